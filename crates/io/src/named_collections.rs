//! Named collections: sets of `key = value` settings with a name, so credentials and
//! locations need not be written into queries (`s3(my_bucket, filename = 'x.csv')`).
//!
//! As ClickHouse: collections come from the server config (`[named_collections.<name>]`,
//! which SQL cannot change) or from `CREATE NAMED COLLECTION` (kept in
//! `<path>/named_collections/`, one JSON file per collection, written atomically). A key
//! may be marked `OVERRIDABLE` or `NOT OVERRIDABLE`; unmarked keys follow
//! `allow_named_collection_override_by_default`. A table function given a collection
//! takes its keys, then the `key = value` arguments of the call over them, and checks
//! every key against the keys it knows ([`CollectionKeys`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use granary_common::{Error, ErrorCode, Result, Settings};
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

/// One key's value and whether a call may override it (`None`: the setting decides).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub value: String,
    pub overridable: Option<bool>,
}

/// Where a collection was defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    Sql,
    Config,
}

impl Source {
    /// As `system.named_collections.source` shows it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Sql => "SQL",
            Source::Config => "Config",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedCollection {
    pub name: String,
    pub entries: BTreeMap<String, Entry>,
    pub source: Source,
}

/// What `system.named_collections` and its `create_query` show instead of values.
pub const HIDDEN_VALUE: &str = "[HIDDEN]";

impl NamedCollection {
    /// `CREATE NAMED COLLECTION name AS key = '[HIDDEN]' [NOT] OVERRIDABLE, ...`, keys
    /// sorted, as ClickHouse shows it (values are never shown).
    pub fn create_query_hidden(&self) -> String {
        let entries: Vec<String> = self
            .entries
            .iter()
            .map(|(key, entry)| {
                let flag = match entry.overridable {
                    Some(true) => " OVERRIDABLE",
                    Some(false) => " NOT OVERRIDABLE",
                    None => "",
                };
                format!("{key} = '{HIDDEN_VALUE}'{flag}")
            })
            .collect();
        format!("CREATE NAMED COLLECTION {} AS {}", self.name, entries.join(", "))
    }
}

/// The collections of a server. Readers take a snapshot; changes replace it.
#[derive(Debug)]
pub struct NamedCollections {
    /// Where SQL-defined collections are kept (`None`: in memory only).
    directory: Option<PathBuf>,
    current: RwLock<Arc<BTreeMap<String, Arc<NamedCollection>>>>,
}

/// The collections as one query sees them.
pub type Snapshot = Arc<BTreeMap<String, Arc<NamedCollection>>>;

impl NamedCollections {
    /// The config's collections and those created by SQL before (read from `directory`).
    pub fn open(directory: Option<PathBuf>, config: Vec<NamedCollection>) -> Result<NamedCollections> {
        let mut all = BTreeMap::new();
        for collection in config {
            all.insert(collection.name.clone(), Arc::new(NamedCollection { source: Source::Config, ..collection }));
        }
        if let Some(dir) = &directory {
            std::fs::create_dir_all(dir).map_err(|e| storage_error(dir, "create", e))?;
            let listing = std::fs::read_dir(dir).map_err(|e| storage_error(dir, "list", e))?;
            for item in listing {
                let path = item.map_err(|e| storage_error(dir, "list", e))?.path();
                if path.extension().and_then(|e| e.to_str()) != Some("json") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).map_err(|e| storage_error(&path, "read", e))?;
                let collection: NamedCollection = serde_json::from_str(&text)
                    .map_err(|e| Error::new(ErrorCode::CORRUPTED_DATA, format!("Cannot read named collection from {}: {e}", path.display())))?;
                if all.contains_key(&collection.name) {
                    // The config wins over a stored collection of the same name.
                    tracing::warn!("named collection {} is defined in the config and in {}; the config's is used", collection.name, path.display());
                    continue;
                }
                all.insert(collection.name.clone(), Arc::new(NamedCollection { source: Source::Sql, ..collection }));
            }
        }
        Ok(NamedCollections { directory, current: RwLock::new(Arc::new(all)) })
    }

    pub fn snapshot(&self) -> Snapshot {
        self.current.read().clone()
    }

    /// `CREATE NAMED COLLECTION [IF NOT EXISTS] name AS ...`.
    pub fn create(&self, name: &str, entries: BTreeMap<String, Entry>, if_not_exists: bool) -> Result<()> {
        let mut current = self.current.write();
        if current.contains_key(name) {
            if if_not_exists {
                return Ok(());
            }
            return Err(Error::new(ErrorCode::NAMED_COLLECTION_ALREADY_EXISTS, format!("A named collection `{name}` already exists")));
        }
        let collection = NamedCollection { name: name.to_string(), entries, source: Source::Sql };
        self.store(&collection)?;
        let mut next = (**current).clone();
        next.insert(name.to_string(), Arc::new(collection));
        *current = Arc::new(next);
        Ok(())
    }

    /// `ALTER NAMED COLLECTION [IF EXISTS] name [SET k = v, ...] [DELETE k, ...]`.
    pub fn alter(&self, name: &str, set: Vec<(String, Entry)>, delete: &[String], if_exists: bool) -> Result<()> {
        let mut current = self.current.write();
        let Some(existing) = current.get(name) else {
            if if_exists {
                return Ok(());
            }
            return Err(Error::new(ErrorCode::NAMED_COLLECTION_DOESNT_EXIST, format!("Cannot update collection `{name}`, because it doesn't exist")));
        };
        immutable_if_config(existing, "alter")?;
        let mut collection = (**existing).clone();
        for (key, mut entry) in set {
            // A key set again without a flag keeps the one it had (as ClickHouse).
            if entry.overridable.is_none() {
                entry.overridable = collection.entries.get(&key).and_then(|old| old.overridable);
            }
            collection.entries.insert(key, entry);
        }
        for key in delete {
            if collection.entries.remove(key).is_none() {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Cannot delete key `{key}` because it does not exist in collection")));
            }
        }
        self.store(&collection)?;
        let mut next = (**current).clone();
        next.insert(name.to_string(), Arc::new(collection));
        *current = Arc::new(next);
        Ok(())
    }

    /// `DROP NAMED COLLECTION [IF EXISTS] name`.
    pub fn drop(&self, name: &str, if_exists: bool) -> Result<()> {
        let mut current = self.current.write();
        let Some(existing) = current.get(name) else {
            if if_exists {
                return Ok(());
            }
            return Err(Error::new(ErrorCode::NAMED_COLLECTION_DOESNT_EXIST, format!("Cannot remove collection `{name}`, because it doesn't exist")));
        };
        immutable_if_config(existing, "drop")?;
        if let Some(dir) = &self.directory {
            let path = dir.join(file_name(name));
            std::fs::remove_file(&path).map_err(|e| storage_error(&path, "remove", e))?;
            granary_storage::fs::sync_dir(dir)?;
        }
        let mut next = (**current).clone();
        next.remove(name);
        *current = Arc::new(next);
        Ok(())
    }

    fn store(&self, collection: &NamedCollection) -> Result<()> {
        let Some(dir) = &self.directory else { return Ok(()) };
        let path = dir.join(file_name(&collection.name));
        let text = serde_json::to_string_pretty(collection).map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("Cannot serialize named collection: {e}")))?;
        granary_storage::fs::write_atomic(&path, text.as_bytes())
    }
}

fn immutable_if_config(collection: &NamedCollection, what: &str) -> Result<()> {
    if collection.source == Source::Config {
        return Err(Error::new(
            ErrorCode::NAMED_COLLECTION_IS_IMMUTABLE,
            format!("Cannot {what} collection `{}` because it was defined in the server configuration", collection.name),
        ));
    }
    Ok(())
}

fn storage_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot {what} {}: {e}", path.display()))
}

/// One safe file name per collection name (ClickHouse's escaping of names).
fn file_name(name: &str) -> String {
    granary_storage::fs::escape_for_file_name(name) + ".json"
}

/// The keys a table function takes from a collection.
#[derive(Debug, Clone, Copy)]
pub struct CollectionKeys {
    /// Each entry: one key, or alternatives of which one must be there (`a|b`).
    pub required: &'static [&'static str],
    pub optional: &'static [&'static str],
}

impl CollectionKeys {
    fn knows(&self, key: &str) -> bool {
        self.optional.contains(&key) || self.required.iter().any(|r| r.split('|').any(|k| k == key))
    }
}

/// A collection's keys with a call's `key = value` arguments over them, checked
/// against what the function takes.
pub fn resolve(
    snapshot: &Snapshot,
    name: &str,
    overrides: &[(String, String)],
    keys: &CollectionKeys,
    settings: &Settings,
) -> Result<BTreeMap<String, String>> {
    let collection = snapshot
        .get(name)
        .ok_or_else(|| Error::new(ErrorCode::NAMED_COLLECTION_DOESNT_EXIST, format!("There is no named collection `{name}`")))?;
    let mut values: BTreeMap<String, String> = collection.entries.iter().map(|(k, e)| (k.clone(), e.value.clone())).collect();
    let by_default = settings.get_bool("allow_named_collection_override_by_default");
    for (key, value) in overrides {
        if let Some(entry) = collection.entries.get(key) {
            if !entry.overridable.unwrap_or(by_default) {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Override not allowed for '{key}'")));
            }
        }
        values.insert(key.clone(), value.clone());
    }
    for key in values.keys() {
        if !keys.knows(key) {
            return Err(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Unexpected key `{key}` in named collection. Required keys: {}, optional keys: {}", keys.required.join(", "), keys.optional.join(", ")),
            ));
        }
    }
    for required in keys.required {
        if !required.split('|').any(|k| values.contains_key(k)) {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Key `{}` is missing in named collection `{name}`", required.replace('|', "` or `"))));
        }
    }
    Ok(values)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn entry(value: &str, overridable: Option<bool>) -> Entry {
        Entry { value: value.into(), overridable }
    }

    const KEYS: CollectionKeys = CollectionKeys { required: &["url"], optional: &["format", "access_key_id", "secret_access_key", "filename"] };

    #[test]
    fn create_alter_drop_persist() {
        let dir = tempfile::tempdir().unwrap();
        let config = NamedCollection { name: "conf".into(), entries: BTreeMap::from([("url".into(), entry("http://x/", None))]), source: Source::Config };
        let collections = NamedCollections::open(Some(dir.path().to_path_buf()), vec![config.clone()]).unwrap();
        let entries = BTreeMap::from([("url".to_string(), entry("http://h/b/", None)), ("secret_access_key".to_string(), entry("s", Some(false)))]);
        collections.create("my coll", entries.clone(), false).unwrap();
        assert_eq!(collections.create("my coll", entries.clone(), false).unwrap_err().code(), ErrorCode::NAMED_COLLECTION_ALREADY_EXISTS);
        collections.create("my coll", BTreeMap::new(), true).unwrap();
        collections.alter("my coll", vec![("format".into(), entry("CSV", Some(true)))], &["url".to_string()], false).unwrap();
        assert_eq!(collections.alter("my coll", vec![], &["nope".to_string()], false).unwrap_err().code(), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(collections.alter("conf", vec![], &[], false).unwrap_err().code(), ErrorCode::NAMED_COLLECTION_IS_IMMUTABLE);
        assert_eq!(collections.drop("conf", false).unwrap_err().code(), ErrorCode::NAMED_COLLECTION_IS_IMMUTABLE);
        assert_eq!(collections.drop("nope", false).unwrap_err().code(), ErrorCode::NAMED_COLLECTION_DOESNT_EXIST);
        collections.drop("nope", true).unwrap();
        // A restart sees the same.
        let reopened = NamedCollections::open(Some(dir.path().to_path_buf()), vec![config]).unwrap();
        let mine = reopened.snapshot()["my coll"].clone();
        assert_eq!(mine.entries.keys().collect::<Vec<_>>(), ["format", "secret_access_key"]);
        assert_eq!(mine.create_query_hidden(), "CREATE NAMED COLLECTION my coll AS format = '[HIDDEN]' OVERRIDABLE, secret_access_key = '[HIDDEN]' NOT OVERRIDABLE");
        assert_eq!(reopened.snapshot()["conf"].source, Source::Config);
        reopened.drop("my coll", false).unwrap();
        assert!(NamedCollections::open(Some(dir.path().to_path_buf()), vec![]).unwrap().snapshot().is_empty());
    }

    #[test]
    fn overrides_and_keys() {
        let collections = NamedCollections::open(None, vec![]).unwrap();
        let entries = BTreeMap::from([("url".to_string(), entry("http://h/b/", None)), ("secret_access_key".to_string(), entry("s", Some(false)))]);
        collections.create("c", entries, false).unwrap();
        let snapshot = collections.snapshot();
        let mut settings = Settings::new();
        let merged = resolve(&snapshot, "c", &[("filename".into(), "x.csv".into()), ("url".into(), "http://o/".into())], &KEYS, &settings).unwrap();
        assert_eq!(merged["url"], "http://o/");
        assert_eq!(merged["filename"], "x.csv");
        let denied = resolve(&snapshot, "c", &[("secret_access_key".into(), "x".into())], &KEYS, &settings).unwrap_err();
        assert_eq!(denied.message(), "Override not allowed for 'secret_access_key'");
        assert!(resolve(&snapshot, "c", &[("bogus".into(), "1".into())], &KEYS, &settings).unwrap_err().message().contains("Unexpected key `bogus`"));
        assert_eq!(resolve(&snapshot, "nope", &[], &KEYS, &settings).unwrap_err().code(), ErrorCode::NAMED_COLLECTION_DOESNT_EXIST);
        settings.set("allow_named_collection_override_by_default", "0").unwrap();
        assert!(resolve(&snapshot, "c", &[("url".into(), "http://o/".into())], &KEYS, &settings).is_err());
        assert!(file_name("a/b c").starts_with("a%2Fb%20c"));
    }
}
