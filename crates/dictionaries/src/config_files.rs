//! Dictionaries from configuration files (ClickHouse's `dictionaries_config`).
//!
//! The server config names a glob of files; each file holds `<dictionary>` elements as in
//! ClickHouse (`<name>`, `<source>` with one of `<clickhouse>`, `<file>`, `<http>`,
//! `<layout>`, `<structure>` with `<id>` or `<key>`, `<range_min>`/`<range_max>` and
//! `<attribute>`s, `<lifetime>`), under any root element (`<clickhouse>`,
//! `<dictionaries>`, ...). A `.toml` file may say the same in TOML: `[[dictionary]]`
//! tables whose keys are the element names (`[[dictionary.structure.attribute]]`,
//! `lifetime = 300` or `{ min = 0, max = 300 }`, `layout = "hashed"` or
//! `[dictionary.layout.hashed]`).
//!
//! Each definition becomes the same [`TableMeta`] a `CREATE DICTIONARY` gives (in no
//! database), so loading, lookups and reloads are shared with SQL dictionaries. A file
//! that cannot be read, or a definition that is wrong, becomes an entry that carries
//! the error, shown in `system.dictionaries.last_exception`; the server keeps running.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use granary_common::{Error, ErrorCode, Result};
use granary_storage::meta::{ColumnMeta, DictionaryClause, DictionaryMeta, EngineMeta, TableMeta, TABLE_META_VERSION};
use granary_storage::Table;
use granary_types::ChType;

use crate::dictionary::Dictionary;

/// The `uuid` column ClickHouse shows for dictionaries from configuration files.
pub const CONFIG_DICTIONARY_UUID: &str = "00000000-0000-0000-0000-000000000000";

/// An element of a configuration file: its name, its text and its child elements.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigNode {
    pub name: String,
    pub text: String,
    pub children: Vec<ConfigNode>,
}

impl ConfigNode {
    fn child(&self, name: &str) -> Option<&ConfigNode> {
        self.children.iter().find(|c| c.name == name)
    }

    fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a ConfigNode> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    fn value(&self) -> &str {
        self.text.trim()
    }
}

/// The root element of an XML document.
pub fn parse_xml(text: &str) -> std::result::Result<ConfigNode, String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut open: Vec<ConfigNode> = vec![ConfigNode::default()];
    let position = |reader: &quick_xml::Reader<&[u8]>| reader.error_position();
    loop {
        let event = reader.read_event().map_err(|e| format!("{e} at byte {}", position(&reader)))?;
        match event {
            Event::Start(start) => open.push(ConfigNode { name: element_name(&start)?, ..ConfigNode::default() }),
            Event::Empty(start) => {
                let node = ConfigNode { name: element_name(&start)?, ..ConfigNode::default() };
                open.last_mut().ok_or("unbalanced elements")?.children.push(node);
            }
            Event::End(_) => {
                let node = open.pop().ok_or("unbalanced elements")?;
                open.last_mut().ok_or("unbalanced elements")?.children.push(node);
            }
            Event::Text(text) => {
                let text = text.xml10_content().map_err(|e| e.to_string())?;
                open.last_mut().ok_or("text outside elements")?.text.push_str(&text);
            }
            Event::CData(data) => {
                let data = data.decode().map_err(|e| e.to_string())?;
                open.last_mut().ok_or("text outside elements")?.text.push_str(&data);
            }
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref().map_err(|e| e.to_string())? {
                    Some(c) => c.to_string(),
                    None => {
                        let name = reference.decode().map_err(|e| e.to_string())?;
                        quick_xml::escape::resolve_predefined_entity(&name).ok_or_else(|| format!("unknown entity &{name};"))?.to_string()
                    }
                };
                open.last_mut().ok_or("text outside elements")?.text.push_str(&resolved);
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    let document = match open.as_slice() {
        [document] => document,
        _ => return Err("the document ends inside an element".to_string()),
    };
    match document.children.as_slice() {
        [root] => Ok(root.clone()),
        [] => Err("no root element".to_string()),
        _ => Err("more than one root element".to_string()),
    }
}

fn element_name(start: &quick_xml::events::BytesStart<'_>) -> std::result::Result<String, String> {
    std::str::from_utf8(start.name().as_ref()).map(str::to_string).map_err(|e| e.to_string())
}

/// A TOML document as the element tree its keys name: a table is an element, an array
/// repeats its element, a value is an element's text.
pub fn parse_toml(text: &str) -> std::result::Result<ConfigNode, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    Ok(ConfigNode { name: String::new(), text: String::new(), children: table.iter().flat_map(|(key, value)| toml_nodes(key, value)).collect() })
}

fn toml_nodes(name: &str, value: &toml::Value) -> Vec<ConfigNode> {
    let leaf = |text: String| vec![ConfigNode { name: name.to_string(), text, children: Vec::new() }];
    match value {
        toml::Value::Table(table) => {
            vec![ConfigNode { name: name.to_string(), text: String::new(), children: table.iter().flat_map(|(k, v)| toml_nodes(k, v)).collect() }]
        }
        toml::Value::Array(items) => items.iter().flat_map(|item| toml_nodes(name, item)).collect(),
        toml::Value::String(s) => leaf(s.clone()),
        toml::Value::Integer(i) => leaf(i.to_string()),
        toml::Value::Float(f) => leaf(f.to_string()),
        toml::Value::Boolean(b) => leaf(b.to_string()),
        toml::Value::Datetime(d) => leaf(d.to_string()),
    }
}

/// The dictionaries a file defines: per `<dictionary>`, its name and its definition (or
/// what is wrong with it). An error means the whole file could not be read.
pub fn read_file(path: &Path) -> Result<Vec<(String, Result<TableMeta>)>> {
    let cannot = |why: String| Error::new(ErrorCode::CANNOT_LOAD_CONFIG, format!("Cannot load dictionaries from {}: {why}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| cannot(e.to_string()))?;
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    let root = match extension.as_str() {
        "toml" => parse_toml(&text).map_err(|e| cannot(format!("not valid TOML: {e}")))?,
        "yaml" | "yml" => return Err(cannot("YAML files are not supported; use XML or TOML".to_string())),
        _ => parse_xml(&text).map_err(|e| cannot(format!("not valid XML: {e}")))?,
    };
    let mut dictionaries = Vec::new();
    for (i, node) in root.children_named("dictionary").enumerate() {
        let name = node.child("name").map(|n| n.value().to_string()).unwrap_or_default();
        if name.is_empty() {
            return Err(cannot(format!("dictionary #{} has no <name>", i + 1)));
        }
        let meta = table_meta(node, &name, path).map_err(|e| Error::new(e.code(), format!("Dictionary {name} in {}: {}", path.display(), e.message())));
        dictionaries.push((name, meta));
    }
    Ok(dictionaries)
}

fn missing(element: &str) -> Error {
    Error::new(ErrorCode::NO_ELEMENTS_IN_CONFIG, format!("Element <{element}> is missing"))
}

fn required<'a>(node: &'a ConfigNode, element: &str, path: &str) -> Result<&'a str> {
    node.child(element).map(ConfigNode::value).filter(|v| !v.is_empty()).ok_or_else(|| missing(&format!("{path}.{element}")))
}

fn flag(node: &ConfigNode, element: &str) -> Result<bool> {
    match node.child(element).map(|n| n.value().to_ascii_lowercase()) {
        None => Ok(false),
        Some(v) => match v.as_str() {
            "1" | "true" => Ok(true),
            "0" | "false" | "" => Ok(false),
            _ => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("<{element}> must be true or false, not '{v}'"))),
        },
    }
}

fn number(text: &str, element: &str) -> Result<u64> {
    text.trim().parse().map_err(|_| Error::new(ErrorCode::BAD_ARGUMENTS, format!("<{element}> must be a number of seconds, not '{}'", text.trim())))
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn column(name: &str, type_text: &str) -> Result<(ColumnMeta, ChType)> {
    let t = ChType::parse(type_text)?;
    Ok((ColumnMeta::new(name, &t), t))
}

/// An attribute's `<null_value>` as the DEFAULT expression of its column: the value a
/// lookup of a missing key returns.
fn null_value_default(text: &str, t: &ChType) -> Option<String> {
    let base = t.strip_nullable();
    let is_text = matches!(base, ChType::String | ChType::FixedString(_)) || matches!(base, ChType::LowCardinality(inner) if matches!(inner.as_ref(), ChType::String));
    if t.is_nullable() && text.trim().eq_ignore_ascii_case("null") {
        return Some("NULL".to_string());
    }
    if is_text {
        return Some(quote(text));
    }
    let text = text.trim();
    (!text.is_empty()).then(|| format!("CAST({} AS {t})", quote(text)))
}

/// One `<dictionary>` element as the definition a `CREATE DICTIONARY` would store.
fn table_meta(node: &ConfigNode, name: &str, file: &Path) -> Result<TableMeta> {
    let structure = node.child("structure").ok_or_else(|| missing("dictionary.structure"))?;
    let mut columns = Vec::new();
    let mut primary_key = Vec::new();
    match (structure.child("id"), structure.child("key")) {
        (Some(_), Some(_)) => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Only one of <id> and <key> can be in <structure>")),
        (Some(id), None) => {
            let key = required(id, "name", "structure.id")?;
            let type_text = id.child("type").map(ConfigNode::value).filter(|t| !t.is_empty()).unwrap_or("UInt64");
            columns.push(column(key, type_text)?.0);
            primary_key.push(key.to_string());
        }
        (None, Some(key)) => {
            for attribute in key.children_named("attribute") {
                let key_name = required(attribute, "name", "structure.key.attribute")?;
                columns.push(column(key_name, required(attribute, "type", "structure.key.attribute")?)?.0);
                primary_key.push(key_name.to_string());
            }
            if primary_key.is_empty() {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "<structure><key> has no <attribute>"));
            }
        }
        (None, None) => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Dictionary <structure> must have an <id> or a <key>")),
    }
    let mut range_names = Vec::new();
    for bound in ["range_min", "range_max"] {
        if let Some(range) = structure.child(bound) {
            let range_name = required(range, "name", &format!("structure.{bound}"))?;
            let type_text = range.child("type").map(ConfigNode::value).filter(|t| !t.is_empty()).unwrap_or("Date");
            columns.push(column(range_name, type_text)?.0);
            range_names.push(range_name.to_string());
        }
    }
    let range = match range_names.as_slice() {
        [] => None,
        [min, max] => Some((min.clone(), max.clone())),
        _ => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "<structure> needs both <range_min> and <range_max>")),
    };
    let mut hierarchical = Vec::new();
    for attribute in structure.children_named("attribute") {
        let attribute_name = required(attribute, "name", "structure.attribute")?;
        let (mut column_meta, t) = column(attribute_name, required(attribute, "type", "structure.attribute")?)?;
        if attribute.child("expression").is_some_and(|e| !e.value().is_empty()) {
            return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Attribute {attribute_name}: <expression> is not supported yet")));
        }
        if let Some(default) = attribute.child("null_value").and_then(|n| null_value_default(&n.text, &t)) {
            column_meta.default_kind = Some("DEFAULT".to_string());
            column_meta.default_expression = Some(default);
        }
        if flag(attribute, "hierarchical")? {
            hierarchical.push(attribute_name.to_string());
        }
        flag(attribute, "injective")?;
        flag(attribute, "is_object_id")?;
        columns.push(column_meta);
    }
    let (lifetime_min, lifetime_max) = match node.child("lifetime") {
        None => (0, 0),
        Some(lifetime) if lifetime.children.is_empty() => (0, number(&lifetime.text, "lifetime")?),
        Some(lifetime) => (
            lifetime.child("min").map_or(Ok(0), |n| number(&n.text, "lifetime.min"))?,
            lifetime.child("max").map_or(Ok(0), |n| number(&n.text, "lifetime.max"))?,
        ),
    };
    Ok(TableMeta {
        format_version: TABLE_META_VERSION,
        uuid: format!("{}{name}", crate::dictionary::CONFIG_KEY_PREFIX),
        database: String::new(),
        name: name.to_string(),
        columns,
        engine: EngineMeta { name: "Dictionary".into(), ..EngineMeta::default() },
        comment: node.child("comment").map(|c| c.value().to_string()).filter(|c| !c.is_empty()),
        created_at: 0,
        dictionary: Some(DictionaryMeta {
            primary_key,
            source: source_clause(node, file)?,
            layout: layout_clause(node)?,
            lifetime_min,
            lifetime_max,
            range,
            hierarchical,
        }),
        view: None,
        renamed_columns: Vec::new(),
        constraints: Vec::new(),
        indices: Vec::new(),
    })
}

/// `<source><kind>...</kind></source>` as the `SOURCE(KIND(...))` clause. A relative
/// file path is taken from the configuration file's directory; a table without `<db>`
/// is in `default`, as ClickHouse reads it for dictionaries outside databases.
fn source_clause(node: &ConfigNode, file: &Path) -> Result<DictionaryClause> {
    let source = node.child("source").ok_or_else(|| missing("dictionary.source"))?;
    let [kind] = source.children.as_slice() else {
        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "<source> must hold exactly one source (<clickhouse>, <file> or <http>)"));
    };
    let mut params: Vec<(String, String)> = Vec::new();
    for param in &kind.children {
        let key = param.name.to_ascii_uppercase();
        let value = if param.children.is_empty() { param.value().to_string() } else { String::new() };
        let value = match (kind.name.as_str(), key.as_str()) {
            ("file", "PATH") if Path::new(&value).is_relative() => normalized(&file.parent().unwrap_or(Path::new("")).join(&value)).to_string_lossy().into_owned(),
            _ => value,
        };
        params.push((key, if param.children.is_empty() { quote(&value) } else { "()".to_string() }));
    }
    if kind.name == "clickhouse" && params.iter().any(|(k, _)| k == "TABLE") && !params.iter().any(|(k, _)| k == "DB") {
        params.push(("DB".to_string(), quote("default")));
    }
    Ok(DictionaryClause { name: kind.name.to_ascii_uppercase(), params })
}

/// `path` without `.` and `..` components (a file source is read by a path confined to
/// its directory, which may not step out of it).
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `<layout><kind>params</kind></layout>` (or, from TOML, `layout = "kind"`).
fn layout_clause(node: &ConfigNode) -> Result<DictionaryClause> {
    let layout = node.child("layout").ok_or_else(|| missing("dictionary.layout"))?;
    match layout.children.as_slice() {
        [] if !layout.value().is_empty() => Ok(DictionaryClause { name: layout.value().to_ascii_uppercase(), params: Vec::new() }),
        [kind] => Ok(DictionaryClause {
            name: kind.name.to_ascii_uppercase(),
            params: kind.children.iter().map(|p| (p.name.to_ascii_uppercase(), quote(p.value()))).collect(),
        }),
        _ => Err(Error::new(ErrorCode::BAD_ARGUMENTS, "<layout> must hold exactly one layout (<hashed/>, <flat/>, ...)")),
    }
}

/// A dictionary named in a configuration file: its table (outside any database) and
/// dictionary, or why it could not be defined.
#[derive(Debug)]
pub struct ConfigDictionary {
    pub name: String,
    /// The file that defines it (system.dictionaries' `origin`).
    pub origin: PathBuf,
    pub defined: std::result::Result<(Arc<Table>, Arc<Dictionary>), (ErrorCode, String)>,
}

impl ConfigDictionary {
    /// The definition error, as a lookup reports it.
    pub fn error(&self) -> Option<Error> {
        self.defined.as_ref().err().map(|(code, message)| Error::new(*code, message.clone()))
    }

    pub fn table(&self) -> Option<&Arc<Table>> {
        self.defined.as_ref().ok().map(|(table, _)| table)
    }

    pub fn dictionary(&self) -> Option<&Arc<Dictionary>> {
        self.defined.as_ref().ok().map(|(_, dictionary)| dictionary)
    }
}

/// What has been read of the files the glob matches.
#[derive(Debug, Default)]
pub struct ConfigFiles {
    pub pattern: Option<PathBuf>,
    /// Per file: its modification time when read and what it defined.
    pub files: BTreeMap<PathBuf, (Option<SystemTime>, Vec<Arc<ConfigDictionary>>)>,
}

impl ConfigFiles {
    /// The files the glob matches now, sorted.
    pub fn matching_files(&self) -> Result<Vec<PathBuf>> {
        let Some(pattern) = &self.pattern else { return Ok(Vec::new()) };
        let text = pattern.to_string_lossy();
        let paths = glob::glob(&text).map_err(|e| Error::new(ErrorCode::CANNOT_LOAD_CONFIG, format!("Bad dictionaries_config pattern {text}: {e}")))?;
        let mut files: Vec<PathBuf> = paths.filter_map(std::result::Result::ok).filter(|p| p.is_file()).collect();
        files.sort();
        Ok(files)
    }
}

pub fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = r#"<?xml version="1.0"?>
<clickhouse>
  <comment>regions &amp; more</comment>
  <dictionary>
    <name>regions</name>
    <source><clickhouse><table>regions_src</table></clickhouse></source>
    <layout><hashed/></layout>
    <structure>
      <id><name>id</name></id>
      <attribute><name>parent</name><type>UInt64</type><null_value>0</null_value><hierarchical>true</hierarchical></attribute>
      <attribute><name>name</name><type>String</type><null_value>it's &lt;none&gt;</null_value></attribute>
    </structure>
    <lifetime><min>10</min><max>20</max></lifetime>
  </dictionary>
  <dictionary>
    <name>nets</name>
    <source><file><path>./sub/../data/nets.tsv</path><format>TabSeparated</format></file></source>
    <layout><ip_trie><access_to_key_from_attributes>true</access_to_key_from_attributes></ip_trie></layout>
    <structure>
      <key><attribute><name>prefix</name><type>String</type></attribute></key>
      <attribute><name>asn</name><type>UInt32</type><null_value></null_value></attribute>
    </structure>
    <lifetime>300</lifetime>
  </dictionary>
</clickhouse>"#;

    #[test]
    fn xml_dictionaries_become_definitions() {
        let dir = std::env::temp_dir().join(format!("granary-dict-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("dicts.xml");
        std::fs::write(&file, XML).unwrap();
        let dictionaries = read_file(&file).unwrap();
        assert_eq!(dictionaries.len(), 2);
        let regions = dictionaries[0].1.as_ref().unwrap();
        let meta = regions.dictionary.as_ref().unwrap();
        assert_eq!(regions.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["id", "parent", "name"]);
        assert_eq!(regions.columns[0].type_name, "UInt64");
        assert_eq!(regions.columns[2].default_expression.as_deref(), Some(r"'it\'s <none>'"));
        assert_eq!(regions.columns[1].default_expression.as_deref(), Some("CAST('0' AS UInt64)"));
        assert_eq!(meta.hierarchical, ["parent"]);
        assert_eq!((meta.lifetime_min, meta.lifetime_max), (10, 20));
        assert_eq!(meta.source.to_string(), "CLICKHOUSE(TABLE 'regions_src' DB 'default')");
        assert_eq!(meta.layout.to_string(), "HASHED()");
        let nets = dictionaries[1].1.as_ref().unwrap();
        let meta = nets.dictionary.as_ref().unwrap();
        assert_eq!(meta.primary_key, ["prefix"]);
        assert_eq!(meta.source.param("PATH").unwrap(), dir.join("data/nets.tsv").to_string_lossy());
        assert_eq!(meta.layout.param("ACCESS_TO_KEY_FROM_ATTRIBUTES").as_deref(), Some("true"));
        assert_eq!(nets.columns[1].default_expression, None);
        assert_eq!((meta.lifetime_min, meta.lifetime_max), (0, 300));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn toml_says_the_same() {
        let root = parse_toml(
            r#"
            [[dictionary]]
            name = "regions"
            layout = "flat"
            lifetime = { min = 1, max = 2 }
            [dictionary.source.clickhouse]
            query = "SELECT 1 AS id, 'x' AS name"
            [dictionary.structure.id]
            name = "id"
            [[dictionary.structure.attribute]]
            name = "name"
            type = "String"
            null_value = ""
            "#,
        )
        .unwrap();
        let node = root.child("dictionary").unwrap();
        let meta = table_meta(node, "regions", Path::new("/etc/granary/d.toml")).unwrap();
        let dictionary = meta.dictionary.unwrap();
        assert_eq!(dictionary.layout.to_string(), "FLAT()");
        assert_eq!(dictionary.source.param("QUERY").as_deref(), Some("SELECT 1 AS id, 'x' AS name"));
        assert_eq!((dictionary.lifetime_min, dictionary.lifetime_max), (1, 2));
        assert_eq!(meta.columns[1].default_expression.as_deref(), Some("''"));
    }

    #[test]
    fn broken_documents_and_definitions_say_what_is_wrong() {
        assert!(parse_xml("<clickhouse><dictionary></clickhouse>").unwrap_err().contains("clickhouse"));
        assert!(parse_xml("").is_err());
        let root = parse_xml("<dictionaries><dictionary><name>d</name><layout><hashed/></layout></dictionary></dictionaries>").unwrap();
        let error = table_meta(root.child("dictionary").unwrap(), "d", Path::new("/x.xml")).unwrap_err();
        assert_eq!(error.code(), ErrorCode::NO_ELEMENTS_IN_CONFIG);
        assert!(error.message().contains("dictionary.structure"), "{}", error.message());
    }
}
