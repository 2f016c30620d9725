//! What a `CREATE DICTIONARY` says, checked: layout, source, key, attributes, lifetime.

use arrow::datatypes::{FieldRef, SchemaRef};
use granary_common::{Error, ErrorCode, Result};
use granary_storage::meta::{quote_ident, unquote_literal};
use granary_storage::{DictionaryMeta, TableMeta};
use granary_types::ChType;

/// How the dictionary holds its data. Every layout answers the same lookups with the same
/// results; they differ in memory and in when the source is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Keys index an array directly: keys must be below `MAX_ARRAY_SIZE`.
    Flat,
    /// A hash table from key to row (also `SPARSE_HASHED`, `HASHED_ARRAY`, and the
    /// `COMPLEX_KEY_` variants, which allow any key types and several key columns).
    Hashed,
    /// Filled like `Hashed` but meant as a cache of a large source: ClickHouse fetches
    /// missing keys on demand; here the whole source is loaded and refreshed by LIFETIME,
    /// which gives the same answers.
    Cache,
    /// No copy: the source is read again for every query that uses the dictionary.
    Direct,
    /// `RANGE_HASHED`: several rows per key, each valid for `[range_min, range_max]`
    /// (both ends included; NULL is open); a lookup names the key and a point in the range.
    RangeHashed,
    /// `IP_TRIE`: a `String` key of network prefixes, looked up by IPv4 or IPv6 address
    /// with the longest matching prefix (see [`crate::ip_trie`]).
    IpTrie,
}

/// The order in which a layout's storage lists its keys, which is the order
/// `dictGetChildren` and `dictGetDescendants` give children in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOrder {
    /// `FLAT`: an array indexed by key, so ascending keys.
    Ascending,
    /// `HASHED_ARRAY`: keys in the order the source gave them first.
    FirstSeen,
    /// `HASHED`, `SPARSE_HASHED`: ClickHouse's hash table order (see [`crate::hierarchy`]).
    ClickHouseHashTable,
    /// `CACHE`, `DIRECT`: no stored order; children are not listed.
    None,
}

/// Which row wins when several ranges of a key contain the point
/// (`LAYOUT(RANGE_HASHED(range_lookup_strategy 'min'))`, ClickHouse's default `min`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeStrategy {
    /// The range that starts first (then ends first).
    Min,
    /// The range that starts last (then ends last).
    Max,
}

/// The range columns of a `RANGE_HASHED` dictionary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeColumns {
    /// Positions in the dictionary's schema.
    pub min: usize,
    pub max: usize,
    pub strategy: RangeStrategy,
}

impl Layout {
    /// ClickHouse's `type` column of system.dictionaries.
    pub fn type_name(self, complex_key: bool) -> &'static str {
        match (self, complex_key) {
            (Layout::Flat, _) => "Flat",
            (Layout::Hashed, false) => "Hashed",
            (Layout::Hashed, true) => "ComplexKeyHashed",
            (Layout::Cache, false) => "Cache",
            (Layout::Cache, true) => "ComplexKeyCache",
            (Layout::Direct, false) => "Direct",
            (Layout::Direct, true) => "ComplexKeyDirect",
            (Layout::RangeHashed, false) => "RangeHashed",
            (Layout::RangeHashed, true) => "ComplexKeyRangeHashed",
            (Layout::IpTrie, _) => "Trie",
        }
    }
}

/// ClickHouse's `max_array_size` default for FLAT dictionaries.
pub const FLAT_MAX_ARRAY_SIZE: u64 = 500_000;

/// Where the rows come from. Each source is read by running one SELECT on this server,
/// so every source the SQL layer can read (tables, `file()`, `url()`) is a source here.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// `CLICKHOUSE(TABLE 't' [DB 'd'] [WHERE 'cond'])` or `CLICKHOUSE(QUERY 'SELECT ...')`
    /// on this server.
    ClickHouse { database: Option<String>, table: Option<String>, query: Option<String>, condition: Option<String> },
    /// `FILE(PATH 'p' FORMAT 'F')`, read through `file()` (confined to user_files_path).
    File { path: String, format: String },
    /// `HTTP(URL 'u' FORMAT 'F')`, read through `url()`.
    Http { url: String, format: String },
}

#[derive(Debug, Clone)]
pub struct DictionaryDefinition {
    pub database: String,
    pub name: String,
    pub layout: Layout,
    pub complex_key: bool,
    pub source: Source,
    /// Key columns then attributes, as declared.
    pub schema: SchemaRef,
    /// Positions in `schema` of the key columns, in PRIMARY KEY order.
    pub key_columns: Vec<usize>,
    /// `RANGE(MIN a MAX b)` of a `RANGE_HASHED` dictionary.
    pub range: Option<RangeColumns>,
    /// `DEFAULT` expression text of each attribute (by schema position).
    pub defaults: Vec<Option<String>>,
    /// The `HIERARCHICAL` attribute (the parent key), by schema position.
    pub hierarchical: Option<usize>,
    /// How the layout orders its keys (for the hierarchy functions).
    pub key_order: KeyOrder,
    /// `IP_TRIE(ACCESS_TO_KEY_FROM_ATTRIBUTES 1)`: the key column can be read like an
    /// attribute (`dictGet(d, 'prefix', ip)` gives the matching prefix).
    pub key_is_attribute: bool,
    pub lifetime_min: u64,
    pub lifetime_max: u64,
    pub meta: DictionaryMeta,
    /// Where a FILE source may read: `user_files_path` (None) for SQL dictionaries,
    /// anywhere (`/`) for a dictionary the server's configuration defines.
    pub files_root: Option<std::path::PathBuf>,
}

impl DictionaryDefinition {
    pub fn from_meta(meta: &TableMeta) -> Result<DictionaryDefinition> {
        let dictionary = meta
            .dictionary
            .clone()
            .ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("{}.{} is not a dictionary", meta.database, meta.name)))?;
        let schema = meta.schema()?;
        let key_columns = dictionary
            .primary_key
            .iter()
            .map(|k| {
                schema.index_of(k).map_err(|_| {
                    Error::new(ErrorCode::BAD_ARGUMENTS, format!("Dictionary key {k} is not among the declared attributes"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        if key_columns.len() == schema.fields().len() {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Dictionary has no attributes besides its key"));
        }
        let layout_name = dictionary.layout.name.to_ascii_uppercase();
        let complex_key = layout_name.starts_with("COMPLEX_KEY_");
        let layout = match layout_name.trim_start_matches("COMPLEX_KEY_") {
            "FLAT" if !complex_key => Layout::Flat,
            "HASHED" | "SPARSE_HASHED" | "HASHED_ARRAY" | "SPARSE_HASHED_ARRAY" => Layout::Hashed,
            "CACHE" | "SSD_CACHE" => Layout::Cache,
            "DIRECT" => Layout::Direct,
            "RANGE_HASHED" => Layout::RangeHashed,
            "IP_TRIE" if !complex_key => Layout::IpTrie,
            "POLYGON" | "REGEXP_TREE" | "RANGE" => {
                return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Dictionary layout {layout_name} is not supported yet")))
            }
            "" => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Dictionary layout is not specified: add LAYOUT(HASHED()) or another layout")),
            _ => {
                return Err(Error::new(ErrorCode::UNKNOWN_ELEMENT_IN_CONFIG, format!("Unknown dictionary layout type: {}", layout_name.to_ascii_lowercase())))
            }
        };
        // An IP_TRIE key is a prefix text, held as ClickHouse holds complex keys.
        let complex_key = complex_key || layout == Layout::IpTrie;
        if layout == Layout::IpTrie {
            if key_columns.len() != 1 {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Dictionary of layout 'ip_trie' has to have one 'key'"));
            }
            let key_type = ChType::from_field(schema.field(key_columns[0]));
            if key_type != ChType::String {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Key attribute of ip_trie dictionary must be of type String, got {key_type}")));
            }
        }
        let key_is_attribute = match dictionary.layout.param("ACCESS_TO_KEY_FROM_ATTRIBUTES") {
            None => false,
            Some(flag) => match flag.to_ascii_lowercase().as_str() {
                "1" | "true" => layout == Layout::IpTrie,
                "0" | "false" => false,
                other => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("access_to_key_from_attributes must be 0 or 1 (true or false), not '{other}'"))),
            },
        };
        if !complex_key {
            if key_columns.len() != 1 {
                return Err(Error::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("A dictionary with a {layout_name} layout has a single numeric key; use COMPLEX_KEY_{layout_name} for a composite key"),
                ));
            }
            let key = schema.field(key_columns[0]);
            if !is_simple_key_type(&ChType::from_field(key)) {
                return Err(Error::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Key {} of a {layout_name} dictionary must be UInt64 (or another unsigned integer); use COMPLEX_KEY_{layout_name} for other key types", key.name()),
                ));
            }
        }
        let range = match (layout, &dictionary.range) {
            (Layout::RangeHashed, Some((min, max))) => Some(RangeColumns {
                min: range_column(&schema, &key_columns, min)?,
                max: range_column(&schema, &key_columns, max)?,
                strategy: match dictionary.layout.param("RANGE_LOOKUP_STRATEGY").map(|s| s.to_ascii_lowercase()).as_deref() {
                    None | Some("min") => RangeStrategy::Min,
                    Some("max") => RangeStrategy::Max,
                    Some(other) => {
                        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("range_lookup_strategy must be 'min' or 'max', not '{other}'")))
                    }
                },
            }),
            (Layout::RangeHashed, None) => {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Dictionary of layout {layout_name} requires RANGE(MIN range_start MAX range_end)")))
            }
            (_, Some(_)) => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("RANGE(...) is only for range dictionaries, not layout {layout_name}"))),
            (_, None) => None,
        };
        if range.is_some_and(|r| r.min == r.max) || (key_columns.len() + range.map_or(0, |_| 2)) >= schema.fields().len() {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Dictionary has no attributes besides its key and range"));
        }
        let hierarchical = hierarchical_attribute(&schema, &key_columns, &dictionary.hierarchical, complex_key)?;
        let base_layout = layout_name.trim_start_matches("COMPLEX_KEY_");
        let key_order = match layout {
            Layout::Flat => KeyOrder::Ascending,
            Layout::Hashed if base_layout.ends_with("_ARRAY") => KeyOrder::FirstSeen,
            Layout::Hashed => KeyOrder::ClickHouseHashTable,
            _ => KeyOrder::None,
        };
        let source = Source::from_clause(&dictionary)?;
        let defaults = meta
            .columns
            .iter()
            .map(|c| c.default_expression.clone().filter(|_| c.default_kind.as_deref() == Some("DEFAULT")))
            .collect();
        Ok(DictionaryDefinition {
            database: meta.database.clone(),
            name: meta.name.clone(),
            layout,
            complex_key,
            source,
            schema,
            key_columns,
            range,
            defaults,
            hierarchical,
            key_order,
            key_is_attribute,
            lifetime_min: dictionary.lifetime_min,
            lifetime_max: dictionary.lifetime_max.max(dictionary.lifetime_min),
            meta: dictionary,
            files_root: None,
        })
    }

    /// The database queries of this dictionary run in: its own, or `default` for one
    /// from a configuration file (in no database).
    pub fn query_database(&self) -> &str {
        if self.database.is_empty() {
            "default"
        } else {
            &self.database
        }
    }

    /// `db.name`, or `name` for a dictionary in no database.
    pub fn full_name(&self) -> String {
        if self.database.is_empty() {
            self.name.clone()
        } else {
            format!("{}.{}", self.database, self.name)
        }
    }

    pub fn key_fields(&self) -> Vec<FieldRef> {
        self.key_columns.iter().map(|&i| std::sync::Arc::new(self.schema.field(i).clone())).collect()
    }

    /// The position in `schema` of a column lookups can return: an attribute, or the key
    /// of an `IP_TRIE` dictionary with `access_to_key_from_attributes`.
    pub fn attribute_index(&self, name: &str) -> Option<usize> {
        let index = self.schema.index_of(name).ok()?;
        (self.is_attribute(index) || (self.key_is_attribute && self.key_columns.contains(&index))).then_some(index)
    }

    /// The declared attributes (neither key nor range columns).
    pub fn attribute_names(&self) -> Vec<String> {
        self.attribute_columns().into_iter().map(|i| self.schema.field(i).name().clone()).collect()
    }

    /// Positions in `schema` of the declared attributes.
    pub fn attribute_columns(&self) -> Vec<usize> {
        (0..self.schema.fields().len()).filter(|&i| self.is_attribute(i)).collect()
    }

    fn is_attribute(&self, column: usize) -> bool {
        !self.key_columns.contains(&column) && !self.range.is_some_and(|r| r.min == column || r.max == column)
    }

    /// The SELECT that reads the source, with every column cast to its declared type.
    pub fn load_query(&self, ch_types: &[String]) -> String {
        let columns: Vec<String> = self
            .schema
            .fields()
            .iter()
            .zip(ch_types)
            .map(|(f, t)| format!("CAST({0} AS {1}) AS {0}", quote_ident(f.name()), t))
            .collect();
        let columns = columns.join(", ");
        let structure = || {
            let parts: Vec<String> = self.schema.fields().iter().zip(ch_types).map(|(f, t)| format!("{} {t}", f.name())).collect();
            quote_string(&parts.join(", "))
        };
        match &self.source {
            Source::ClickHouse { query: Some(query), .. } => format!("SELECT {columns} FROM ({query})"),
            Source::ClickHouse { database, table, condition, .. } => {
                let table = table.as_deref().unwrap_or_default();
                let from = match database {
                    Some(db) => format!("{}.{}", quote_ident(db), quote_ident(table)),
                    None => format!("{}.{}", quote_ident(self.query_database()), quote_ident(table)),
                };
                match condition {
                    Some(c) => format!("SELECT {columns} FROM {from} WHERE {c}"),
                    None => format!("SELECT {columns} FROM {from}"),
                }
            }
            Source::File { path, format } => {
                format!("SELECT {columns} FROM file({}, {}, {})", quote_string(path), quote_string(format), structure())
            }
            Source::Http { url, format } => {
                format!("SELECT {columns} FROM url({}, {}, {})", quote_string(url), quote_string(format), structure())
            }
        }
    }

    /// The `source` column of system.dictionaries.
    pub fn source_description(&self) -> String {
        match &self.source {
            Source::ClickHouse { query: Some(q), .. } => format!("ClickHouse: {q}"),
            Source::ClickHouse { database, table, .. } => {
                format!("ClickHouse: {}.{}", database.as_deref().unwrap_or(&self.database), table.as_deref().unwrap_or_default())
            }
            Source::File { path, format } => format!("File: {path}, {format}"),
            Source::Http { url, format } => format!("HTTP: {url}, {format}"),
        }
    }
}

impl Source {
    fn from_clause(meta: &DictionaryMeta) -> Result<Source> {
        let clause = &meta.source;
        let known = |allowed: &[&str]| -> Result<()> {
            for (key, _) in &clause.params {
                if !allowed.contains(&key.as_str()) {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Unknown parameter {key} of dictionary source {}", clause.name)));
                }
            }
            Ok(())
        };
        match clause.name.to_ascii_uppercase().as_str() {
            "CLICKHOUSE" => {
                known(&["HOST", "PORT", "USER", "PASSWORD", "DB", "TABLE", "QUERY", "WHERE", "INVALIDATE_QUERY", "UPDATE_FIELD", "UPDATE_LAG", "SECURE", "NAME"])?;
                if let Some(host) = clause.param("HOST") {
                    if !matches!(host.as_str(), "localhost" | "127.0.0.1" | "::1" | "") {
                        return Err(Error::new(
                            ErrorCode::NOT_IMPLEMENTED,
                            format!("Dictionary source CLICKHOUSE on another server ({host}) is not supported yet; only this server's tables"),
                        ));
                    }
                }
                let source = Source::ClickHouse {
                    database: clause.param("DB").filter(|d| !d.is_empty()),
                    table: clause.param("TABLE").filter(|t| !t.is_empty()),
                    query: clause.param("QUERY").filter(|q| !q.is_empty()),
                    condition: clause.param("WHERE").filter(|w| !w.is_empty()),
                };
                if let Source::ClickHouse { table: None, query: None, .. } = source {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Dictionary source CLICKHOUSE needs TABLE or QUERY"));
                }
                Ok(source)
            }
            "FILE" => {
                known(&["PATH", "FORMAT"])?;
                let required = |key: &str| {
                    clause.param(key).ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Dictionary source FILE needs {key}")))
                };
                Ok(Source::File { path: required("PATH")?, format: required("FORMAT")? })
            }
            "HTTP" => {
                known(&["URL", "FORMAT", "CREDENTIALS", "HEADERS"])?;
                let required = |key: &str| {
                    clause.param(key).ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Dictionary source HTTP needs {key}")))
                };
                Ok(Source::Http { url: required("URL")?, format: required("FORMAT")? })
            }
            "" => Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Dictionary source is not specified: add SOURCE(CLICKHOUSE(TABLE '...'))")),
            other => Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Dictionary source {other} is not supported yet (CLICKHOUSE, FILE and HTTP are)"))),
        }
    }
}

/// The position of a range column: a declared non-key attribute holding integers, dates
/// or date-times.
fn range_column(schema: &SchemaRef, key_columns: &[usize], name: &str) -> Result<usize> {
    let index = schema
        .index_of(name)
        .ok()
        .filter(|i| !key_columns.contains(i))
        .ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Range column {name} is not among the dictionary's attributes")))?;
    let t = ChType::from_field(schema.field(index));
    let ok = matches!(
        t.strip_nullable(),
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..)
    );
    if !ok {
        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Range column {name} has type {t}; it must be an integer, Date or DateTime")));
    }
    Ok(index)
}

/// The position of the `HIERARCHICAL` attribute, checked as ClickHouse checks it: one at
/// most, `UInt64` (or `Nullable(UInt64)`), and only with a simple key.
fn hierarchical_attribute(schema: &SchemaRef, key_columns: &[usize], names: &[String], complex_key: bool) -> Result<Option<usize>> {
    let Some(name) = names.first() else { return Ok(None) };
    if names.len() > 1 {
        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Only one hierarchical attribute supported"));
    }
    if complex_key {
        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Dictionary with complex key does not support hierarchy"));
    }
    let index = schema
        .index_of(name)
        .ok()
        .filter(|i| !key_columns.contains(i))
        .ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Hierarchical attribute {name} is not among the dictionary's attributes")))?;
    let t = ChType::from_field(schema.field(index));
    if t.strip_nullable() != &ChType::UInt64 {
        return Err(Error::new(ErrorCode::TYPE_MISMATCH, format!("Hierarchical attribute type for dictionary with simple key must be UInt64. Actual {t}")));
    }
    Ok(Some(index))
}

fn is_simple_key_type(t: &ChType) -> bool {
    matches!(t, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64)
}

fn quote_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// `'x'` as the text it denotes (for parameters given as literals).
pub fn literal_value(text: &str) -> String {
    unquote_literal(text)
}
