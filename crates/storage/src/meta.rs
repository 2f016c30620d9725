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
    /// The column's TTL expression, formatted as ClickHouse shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
}

impl ColumnMeta {
    pub fn new(name: impl Into<String>, ch_type: &ChType) -> Self {
        ColumnMeta { name: name.into(), type_name: ch_type.to_string(), default_kind: None, default_expression: None, codec: None, comment: None, ttl: None }
    }

    pub fn ch_type(&self) -> Result<ChType> {
        ChType::parse(&self.type_name)
    }

    /// The column's kind, from its DEFAULT-like clause.
    pub fn kind(&self) -> ColumnKind {
        match self.default_kind.as_deref() {
            Some("MATERIALIZED") => ColumnKind::Materialized,
            Some("ALIAS") => ColumnKind::Alias,
            Some("EPHEMERAL") => ColumnKind::Ephemeral,
            _ => ColumnKind::Ordinary,
        }
    }
}

/// ClickHouse's column kinds. Only ordinary columns (with or without a DEFAULT) are in
/// `SELECT *` and in an INSERT without a column list; the others are computed
/// (MATERIALIZED, ALIAS) or only inserted by name (EPHEMERAL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Ordinary,
    Materialized,
    Alias,
    Ephemeral,
}

impl ColumnKind {
    pub fn name(self) -> &'static str {
        match self {
            ColumnKind::Ordinary => "DEFAULT",
            ColumnKind::Materialized => "MATERIALIZED",
            ColumnKind::Alias => "ALIAS",
            ColumnKind::Ephemeral => "EPHEMERAL",
        }
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

impl EngineMeta {
    /// A column the engine sorts by after its ORDER BY: VersionedCollapsingMergeTree's
    /// version (ClickHouse's sorting_key `k, ver` for `ORDER BY k`).
    pub fn implicit_sorting_column(&self) -> Option<String> {
        (self.name == "VersionedCollapsingMergeTree").then(|| self.args.get(1).map(|a| a.trim().trim_matches('`').to_string())).flatten()
    }
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
    /// Set for `CREATE VIEW` (engine `View`) and `CREATE MATERIALIZED VIEW` (engine
    /// `MaterializedView`): the query and, for materialized views, where rows come from
    /// and go to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<ViewMeta>,
    /// The last ALTER's column renames, as (new name, name in parts written before it):
    /// an engine that rewrites its data to the new columns (after a crash, at the next
    /// start) finds renamed columns' values under their old names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renamed_columns: Vec<(String, String)>,
    /// `CONSTRAINT name CHECK|ASSUME expr`, in the order written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<ConstraintMeta>,
    /// Data-skipping indexes as declared (`INDEX name expr TYPE type GRANULARITY n`), in
    /// order; MergeTree builds them per part and reads use them (`granary-mergetree::skip_index`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indices: Vec<IndexMeta>,
}

/// A table constraint: CHECK ones are checked on every inserted row; ASSUME ones only
/// tell what holds (ClickHouse's optimizer uses them; here they are kept and shown).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstraintMeta {
    pub name: String,
    /// `CHECK` or `ASSUME`.
    pub kind: String,
    pub expression: String,
}

impl ConstraintMeta {
    pub fn is_check(&self) -> bool {
        self.kind.eq_ignore_ascii_case("CHECK")
    }
}

/// One data-skipping index of a table, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexMeta {
    pub name: String,
    pub expr: String,
    /// The type with its arguments, `set(100)`.
    pub type_full: String,
    pub granularity: u64,
}

impl IndexMeta {
    /// The type without its arguments, `set`.
    pub fn type_name(&self) -> &str {
        self.type_full.split('(').next().unwrap_or_default().trim()
    }
}

/// A table named by database and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct QualifiedName {
    pub database: String,
    pub table: String,
}

impl std::fmt::Display for QualifiedName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", quote_ident(&self.database), quote_ident(&self.table))
    }
}

/// What a view stores besides its columns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewMeta {
    /// The SELECT as written; a parameterized view keeps its `{name:Type}` placeholders.
    /// Bare table names in it are resolved in the view's own database.
    pub query: String,
    /// Placeholder names of a parameterized view, in order of appearance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<String>,
    /// Materialized views: the table whose INSERTs feed the view (none when the query
    /// reads no table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<QualifiedName>,
    /// Materialized views: the table the rows are written to (`TO db.t`, or the view's
    /// own inner table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<QualifiedName>,
    /// The engine of the view's own inner table, when the target is that table (it is
    /// dropped with the view); `None` for `TO` tables and plain views.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner_engine: Option<EngineMeta>,
}

impl ViewMeta {
    pub fn is_materialized(&self) -> bool {
        self.target.is_some()
    }
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

    /// `SHOW CREATE TABLE` text, formatted as ClickHouse formats it (one column a line).
    pub fn create_query(&self) -> String {
        self.render_create(&Layout::MULTI_LINE)
    }

    /// The same statement on one line, as `system.tables.create_table_query` shows it.
    pub fn create_query_one_line(&self) -> String {
        self.render_create(&Layout::ONE_LINE)
    }

    fn render_create(&self, layout: &Layout) -> String {
        let nl = layout.clause_break;
        let kind = match &self.view {
            Some(view) if view.is_materialized() => "MATERIALIZED VIEW",
            Some(_) => "VIEW",
            None if self.dictionary.is_some() => "DICTIONARY",
            None => "TABLE",
        };
        // A temporary table belongs to no database.
        let mut out = match self.database.is_empty() {
            true => format!("CREATE TEMPORARY {kind} {}", quote_ident(&self.name)),
            false => format!("CREATE {kind} {}.{}", quote_ident(&self.database), quote_ident(&self.name)),
        };
        if let Some(target) = self.view.as_ref().and_then(|v| v.target.as_ref().filter(|_| v.inner_engine.is_none())) {
            out.push_str(&format!(" TO {target}"));
        }
        if self.view.as_ref().is_some_and(|v| !v.parameters.is_empty()) {
            // ClickHouse knows a parameterized view's columns only once parameters are given.
            out.push_str(&format!("{nl}AS {}", self.view.as_ref().map(|v| v.query.as_str()).unwrap_or_default()));
            return out;
        }
        out.push_str(layout.open_columns);
        for (i, c) in self.columns.iter().enumerate() {
            // ClickHouse back-quotes every column name here, plain or not.
            out.push_str(&format!("{}{} {}", layout.column_indent, backquote(&c.name), c.type_name));
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
            if let Some(ttl) = &c.ttl {
                out.push_str(&format!(" TTL {ttl}"));
            }
            // Columns, then indexes, then constraints, as ClickHouse lists them.
            let items = self.columns.len() + self.indices.len() + self.constraints.len();
            out.push_str(if i + 1 < items { layout.column_separator } else { layout.after_last_column });
        }
        for (i, index) in self.indices.iter().enumerate() {
            out.push_str(&format!(
                "{}INDEX {} {} TYPE {} GRANULARITY {}",
                layout.column_indent,
                quote_ident(&index.name),
                index.expr,
                index.type_full,
                index.granularity
            ));
            out.push_str(if i + 1 < self.indices.len() + self.constraints.len() { layout.column_separator } else { layout.after_last_column });
        }
        for (i, c) in self.constraints.iter().enumerate() {
            out.push_str(&format!("{}CONSTRAINT {} {} {}", layout.column_indent, quote_ident(&c.name), c.kind, c.expression));
            out.push_str(if i + 1 < self.constraints.len() { layout.column_separator } else { layout.after_last_column });
        }
        if let Some(d) = &self.dictionary {
            out.push_str(&format!(
                "){nl}PRIMARY KEY {}{nl}SOURCE({}){nl}LIFETIME(MIN {} MAX {}){nl}LAYOUT({})",
                d.primary_key.join(", "),
                d.source,
                d.lifetime_min,
                d.lifetime_max,
                d.layout
            ));
            if let Some((min, max)) = &d.range {
                out.push_str(&format!("{nl}RANGE(MIN {min} MAX {max})"));
            }
            if let Some(comment) = &self.comment {
                out.push_str(&format!("{nl}COMMENT {}", quote_string(comment)));
            }
            return out;
        }
        if let Some(view) = &self.view {
            out.push(')');
            if let Some(engine) = &view.inner_engine {
                out.push_str(&engine_clauses(engine, nl));
            }
            out.push_str(&format!("{nl}AS {}", view.query));
            if let Some(comment) = &self.comment {
                out.push_str(&format!("{nl}COMMENT {}", quote_string(comment)));
            }
            return out;
        }
        out.push(')');
        out.push_str(&engine_clauses(&self.engine, nl));
        if let Some(comment) = &self.comment {
            out.push_str(&format!("{nl}COMMENT {}", quote_string(comment)));
        }
        out
    }

    /// The engine clause as `system.tables.engine_full` shows it: the engine and its
    /// clauses on one line, without the table's COMMENT; empty for views and dictionaries.
    pub fn engine_full(&self) -> String {
        if self.view.is_some() || self.dictionary.is_some() {
            return String::new();
        }
        engine_clauses(&self.engine, " ").trim_start_matches(" ENGINE = ").to_string()
    }
}

/// Where `SHOW CREATE` breaks lines and `system.tables.create_table_query` does not.
struct Layout {
    clause_break: &'static str,
    open_columns: &'static str,
    column_indent: &'static str,
    column_separator: &'static str,
    after_last_column: &'static str,
}

impl Layout {
    const MULTI_LINE: Layout = Layout { clause_break: "\n", open_columns: "\n(\n", column_indent: "    ", column_separator: ",\n", after_last_column: "\n" };
    const ONE_LINE: Layout = Layout { clause_break: " ", open_columns: " (", column_indent: "", column_separator: ", ", after_last_column: "" };
}

/// `\nENGINE = Name(args)` and the clauses after it, as SHOW CREATE prints them, each
/// clause after `clause_break`.
fn engine_clauses(engine: &EngineMeta, clause_break: &str) -> String {
    let mut out = format!("{clause_break}ENGINE = ");
    // `Null` is a keyword in ClickHouse's formatter, so the engine name is quoted.
    if engine.name.eq_ignore_ascii_case("null") {
        out.push_str(&backquote(&engine.name));
    } else {
        out.push_str(&engine.name);
    }
    if !engine.args.is_empty() {
        out.push_str(&format!("({})", engine.args.join(", ")));
    }
    let clauses = [
        ("PARTITION BY", &engine.partition_by),
        ("PRIMARY KEY", &engine.primary_key),
        ("ORDER BY", &engine.order_by),
        ("SAMPLE BY", &engine.sample_by),
        ("TTL", &engine.ttl),
    ];
    for (keyword, value) in clauses {
        if let Some(v) = value {
            out.push_str(&format!("{clause_break}{keyword} {v}"));
        }
    }
    if !engine.settings.is_empty() {
        let settings: Vec<String> = engine.settings.iter().map(|(k, v)| format!("{k} = {}", setting_literal(v))).collect();
        out.push_str(&format!("{clause_break}SETTINGS {}", settings.join(", ")));
    }
    out
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

/// A single-quoted SQL string literal, as SHOW CREATE TABLE writes one.
pub fn quote_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// A table setting's value as SQL: numbers as written, anything else (the parser keeps
/// strings unquoted) as a quoted string, as ClickHouse shows `clean_deleted_rows = 'Always'`.
fn setting_literal(value: &str) -> String {
    let numeric = value.parse::<f64>().is_ok() || value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("false");
    if numeric {
        value.to_string()
    } else {
        quote_string(value)
    }
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
            view: None,
            renamed_columns: Vec::new(),
            constraints: Vec::new(),
            indices: Vec::new(),
        };
        assert_eq!(meta.create_query(), "CREATE TABLE default.t\n(\n    `id` UInt64,\n    `my col` String\n)\nENGINE = Memory");
        assert_eq!([setting_literal("8192"), setting_literal("-1.5"), setting_literal("true"), setting_literal("Always")], ["8192", "-1.5", "true", "'Always'"]);
        let json = serde_json::to_string(&meta).unwrap();
        let back: TableMeta = serde_json::from_str(&json).unwrap();
        assert_eq!(back.columns, meta.columns);
    }
}

