//! The persisted description of a table.
//!
//! Stored as JSON in `<path>/metadata/<db>/<table>.json`; the database and table names
//! come from the path (so RENAME is one atomic file rename). The format is a contract:
//! `format_version` is bumped on incompatible changes, new fields get serde defaults so
//! older files keep loading.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{Field, Schema, SchemaRef};
use granary_common::Result;
use granary_types::ChType;
use serde::{Deserialize, Serialize};

/// Current version of the table metadata format.
pub const TABLE_META_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnMeta {
    pub name: String,
    /// The ClickHouse type name, e.g. `Nullable(DateTime64(3))`.
    #[serde(rename = "type")]
    pub type_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_expression: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codec: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

impl ColumnMeta {
    pub fn new(name: impl Into<String>, ch_type: &ChType) -> Self {
        ColumnMeta { name: name.into(), type_name: ch_type.to_string(), default_kind: None, default_expression: None, codec: None, comment: None }
    }

    pub fn ch_type(&self) -> Result<ChType> {
        ChType::parse(&self.type_name)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineMeta {
    pub name: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
    #[serde(default)]
    pub settings: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableMeta {
    pub format_version: u32,
    /// Names the data directory `<path>/store/<uuid>`.
    pub uuid: String,
    /// Filled from the file path when loaded.
    #[serde(skip)]
    pub database: String,
    #[serde(skip)]
    pub name: String,
    pub columns: Vec<ColumnMeta>,
    pub engine: EngineMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Seconds since the epoch of CREATE, for system.tables.metadata_modification_time.
    #[serde(default)]
    pub created_at: i64,
    /// Set for `CREATE DICTIONARY` (engine `Dictionary`): its key, source, layout and lifetime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dictionary: Option<DictionaryMeta>,
}

/// The clauses of `CREATE DICTIONARY` after the attribute list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DictionaryMeta {
    pub primary_key: Vec<String>,
    pub source: DictionaryClause,
    pub layout: DictionaryClause,
    pub lifetime_min: u64,
    pub lifetime_max: u64,
    /// `RANGE(MIN a MAX b)` of range dictionaries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<(String, String)>,
    /// Attributes declared `HIERARCHICAL` (at most one is valid).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hierarchical: Vec<String>,
}

/// `NAME(KEY value ...)`, e.g. `CLICKHOUSE(TABLE 'src' DB 'db')` or `HASHED()`. Keys are
/// upper case; values keep their SQL literal text (`'src'`, `1000`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DictionaryClause {
    pub name: String,
    #[serde(default)]
    pub params: Vec<(String, String)>,
}

impl DictionaryClause {
    /// A parameter's value with string quotes removed.
    pub fn param(&self, key: &str) -> Option<String> {
        self.params.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| unquote_literal(v))
    }
}

impl std::fmt::Display for DictionaryClause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let params: Vec<String> = self.params.iter().map(|(k, v)| format!("{k} {v}")).collect();
        write!(f, "{}({})", self.name, params.join(" "))
    }
}

/// `'it''s'` -> `it's`; other literals unchanged.
pub fn unquote_literal(text: &str) -> String {
    let t = text.trim();
    if t.len() >= 2 && t.starts_with('\'') && t.ends_with('\'') {
        let inner = &t[1..t.len() - 1];
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.extend(chars.next()),
                '\'' => {
                    out.push('\'');
                    chars.next();
                }
                c => out.push(c),
            }
        }
        out
    } else {
        t.to_string()
    }
}

impl TableMeta {
    /// The Arrow schema of the table's columns (exact ClickHouse types in field metadata).
    pub fn schema(&self) -> Result<SchemaRef> {
        let fields: Vec<Field> =
            self.columns.iter().map(|c| Ok(c.ch_type()?.to_arrow_field(&c.name))).collect::<Result<_>>()?;
        Ok(Arc::new(Schema::new_with_metadata(fields, HashMap::new())))
    }

    /// `SHOW CREATE TABLE` text, formatted as ClickHouse formats it.
    pub fn create_query(&self) -> String {
        let kind = if self.dictionary.is_some() { "DICTIONARY" } else { "TABLE" };
        let mut out = format!("CREATE {kind} {}.{}\n(\n", quote_ident(&self.database), quote_ident(&self.name));
        for (i, c) in self.columns.iter().enumerate() {
            // ClickHouse back-quotes every column name here, plain or not.
            out.push_str(&format!("    {} {}", backquote(&c.name), c.type_name));
            if let (Some(kind), Some(expr)) = (&c.default_kind, &c.default_expression) {
                out.push_str(&format!(" {kind} {expr}"));
            }
            if self.dictionary.as_ref().is_some_and(|d| d.hierarchical.contains(&c.name)) {
                out.push_str(" HIERARCHICAL");
            }
            if let Some(comment) = &c.comment {
                out.push_str(&format!(" COMMENT {}", quote_string(comment)));
            }
            if let Some(codec) = &c.codec {
                out.push_str(&format!(" {codec}"));
            }
            out.push_str(if i + 1 < self.columns.len() { ",\n" } else { "\n" });
        }
        if let Some(d) = &self.dictionary {
            out.push_str(&format!(")\nPRIMARY KEY {}\nSOURCE({})\nLIFETIME(MIN {} MAX {})\nLAYOUT({})", d.primary_key.join(", "), d.source, d.lifetime_min, d.lifetime_max, d.layout));
            if let Some((min, max)) = &d.range {
                out.push_str(&format!("\nRANGE(MIN {min} MAX {max})"));
            }
            if let Some(comment) = &self.comment {
                out.push_str(&format!("\nCOMMENT {}", quote_string(comment)));
            }
            return out;
        }
        out.push_str(")\nENGINE = ");
        // `Null` is a keyword in ClickHouse's formatter, so the engine name is quoted.
        if self.engine.name.eq_ignore_ascii_case("null") {
            out.push_str(&backquote(&self.engine.name));
        } else {
            out.push_str(&self.engine.name);
        }
        if !self.engine.args.is_empty() {
            out.push_str(&format!("({})", self.engine.args.join(", ")));
        }
        let clauses = [
            ("PARTITION BY", &self.engine.partition_by),
            ("PRIMARY KEY", &self.engine.primary_key),
            ("ORDER BY", &self.engine.order_by),
            ("SAMPLE BY", &self.engine.sample_by),
            ("TTL", &self.engine.ttl),
        ];
        for (keyword, value) in clauses {
            if let Some(v) = value {
                out.push_str(&format!("\n{keyword} {v}"));
            }
        }
        if !self.engine.settings.is_empty() {
            let settings: Vec<String> = self.engine.settings.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            out.push_str(&format!("\nSETTINGS {}", settings.join(", ")));
        }
        if let Some(comment) = &self.comment {
            out.push_str(&format!("\nCOMMENT {}", quote_string(comment)));
        }
        out
    }

    /// The engine clause as `system.tables.engine_full` shows it.
    pub fn engine_full(&self) -> String {
        let create = self.create_query();
        create.split_once("ENGINE = ").map(|(_, e)| e.replace('\n', " ")).unwrap_or_default()
    }
}

/// Back-quotes a name unless it is a plain identifier, as ClickHouse prints names.
/// `name` in back quotes, escaped.
pub fn backquote(name: &str) -> String {
    format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
}

pub fn quote_ident(name: &str) -> String {
    let plain = !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.as_bytes()[0].is_ascii_digit();
    if plain {
        name.to_string()
    } else {
        format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
    }
}

fn quote_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_query_like_clickhouse() {
        let meta = TableMeta {
            format_version: TABLE_META_VERSION,
            uuid: "u".into(),
            database: "default".into(),
            name: "t".into(),
            columns: vec![ColumnMeta::new("id", &ChType::UInt64), ColumnMeta::new("my col", &ChType::String)],
            engine: EngineMeta { name: "Memory".into(), ..Default::default() },
            comment: None,
            created_at: 0,
            dictionary: None,
        };
        assert_eq!(meta.create_query(), "CREATE TABLE default.t\n(\n    `id` UInt64,\n    `my col` String\n)\nENGINE = Memory");
        let json = serde_json::to_string(&meta).unwrap();
        let back: TableMeta = serde_json::from_str(&json).unwrap();
        assert_eq!(back.columns, meta.columns);
    }
}
