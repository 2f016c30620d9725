//! The schema inference cache (`system.schema_inference_cache`): a structure inferred
//! from a file is kept, keyed by where the file is, its format and the settings that
//! shape inference, and reused while the file's modification time and size stay the
//! same, so a repeated `SELECT ... FROM s3('.../*.csv')` does not download and parse
//! the sample again. `schema_inference_use_cache_for_{file,s3,url}` turn it off per
//! storage; `SYSTEM DROP SCHEMA CACHE [FOR File|S3|URL]` empties it.
//!
//! Files without a modification time (a URL server that sends no `Last-Modified`) are
//! not cached: nothing would tell a stale entry.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use arrow::datatypes::SchemaRef;
use chrono::{DateTime, Utc};
use granary_common::Settings;
use granary_types::ChType;

use crate::table::FileEntry;

/// Entries kept per storage (ClickHouse's `schema_inference_cache_max_elements_for_*`).
const MAX_ENTRIES_PER_STORAGE: usize = 4096;

/// Settings that change what inference gives, part of the key
/// (`additional_format_info`).
const INFERENCE_SETTINGS: &[&str] = &[
    "schema_inference_make_columns_nullable",
    "input_format_max_rows_to_read_for_schema_inference",
    "input_format_max_bytes_to_read_for_schema_inference",
    "input_format_csv_detect_header",
    "input_format_tsv_detect_header",
    "format_csv_delimiter",
];

/// One row of `system.schema_inference_cache`.
#[derive(Debug, Clone)]
pub struct SchemaCacheRow {
    /// `File`, `S3` or `URL`.
    pub storage: &'static str,
    pub source: String,
    pub format: String,
    pub additional_format_info: String,
    /// Seconds since the epoch.
    pub registration_time: i64,
    /// `name Type, ...`.
    pub schema: String,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    storage: &'static str,
    source: String,
    format: String,
    additional_format_info: String,
}

struct Entry {
    row: SchemaCacheRow,
    schema: SchemaRef,
    read_format: String,
    last_modified: DateTime<Utc>,
    size: u64,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<Key, Entry>,
    /// Insertion order, oldest first, for eviction.
    order: VecDeque<Key>,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// The storage a file belongs to, as `system.schema_inference_cache` names it.
pub fn storage_of(file: &FileEntry) -> &'static str {
    match &file.remote {
        None => "File",
        Some(object) => match object.store.kind {
            crate::remote::RemoteKind::S3 => "S3",
            crate::remote::RemoteKind::Url => "URL",
            crate::remote::RemoteKind::Azure => "Azure",
        },
    }
}

fn enabled(settings: &Settings, storage: &str) -> bool {
    let name = match storage {
        "File" => "schema_inference_use_cache_for_file",
        "S3" => "schema_inference_use_cache_for_s3",
        "Azure" => "schema_inference_use_cache_for_azure",
        _ => "schema_inference_use_cache_for_url",
    };
    settings.get_bool(name)
}

fn key(settings: &Settings, file: &FileEntry, format: &str, compression: &str) -> Key {
    let mut info: Vec<String> = INFERENCE_SETTINGS.iter().map(|name| format!("{name}={}", settings.get_str(name))).collect();
    info.push(format!("compression={compression}"));
    Key { storage: storage_of(file), source: file.path.clone(), format: format.to_string(), additional_format_info: info.join(", ") }
}

/// The cached structure of `file` (and the format it was read with), if still valid.
pub fn lookup(settings: &Settings, file: &FileEntry, format: &str, compression: &str) -> Option<(SchemaRef, String)> {
    let storage = storage_of(file);
    if !enabled(settings, storage) {
        return None;
    }
    let last_modified = file.last_modified?;
    let key = key(settings, file, format, compression);
    use granary_common::metrics::Event;
    let mut guard = CACHE.lock().ok()?;
    let cache = guard.get_or_insert_with(Cache::default);
    let Some(entry) = cache.entries.get(&key) else {
        Event::SchemaInferenceCacheMisses.add(1);
        return None;
    };
    if entry.last_modified == last_modified && entry.size == file.size {
        Event::SchemaInferenceCacheHits.add(1);
        return Some((entry.schema.clone(), entry.read_format.clone()));
    }
    // The file changed: the entry is stale.
    Event::SchemaInferenceCacheInvalidations.add(1);
    Event::SchemaInferenceCacheMisses.add(1);
    cache.entries.remove(&key);
    cache.order.retain(|k| k != &key);
    None
}

/// Keeps what inference found for `file`.
pub fn store(settings: &Settings, file: &FileEntry, format: &str, compression: &str, schema: &SchemaRef, read_format: &str) {
    let storage = storage_of(file);
    let Some(last_modified) = file.last_modified.filter(|_| enabled(settings, storage)) else { return };
    let key = key(settings, file, format, compression);
    let text: Vec<String> = schema.fields().iter().map(|f| format!("{} {}", f.name(), ChType::from_field(f))).collect();
    let row = SchemaCacheRow {
        storage,
        source: key.source.clone(),
        format: key.format.clone(),
        additional_format_info: key.additional_format_info.clone(),
        registration_time: Utc::now().timestamp(),
        schema: text.join(", "),
    };
    let Ok(mut guard) = CACHE.lock() else { return };
    let cache = guard.get_or_insert_with(Cache::default);
    if cache.entries.insert(key.clone(), Entry { row, schema: schema.clone(), read_format: read_format.to_string(), last_modified, size: file.size }).is_none() {
        cache.order.push_back(key);
    }
    while cache.order.iter().filter(|k| k.storage == storage).count() > MAX_ENTRIES_PER_STORAGE {
        let Some(position) = cache.order.iter().position(|k| k.storage == storage) else { break };
        if let Some(oldest) = cache.order.remove(position) {
            cache.entries.remove(&oldest);
        }
    }
}

/// The rows of `system.schema_inference_cache`, oldest first.
pub fn rows() -> Vec<SchemaCacheRow> {
    let Ok(guard) = CACHE.lock() else { return Vec::new() };
    let Some(cache) = guard.as_ref() else { return Vec::new() };
    cache.order.iter().filter_map(|k| cache.entries.get(k)).map(|e| e.row.clone()).collect()
}

/// `SYSTEM DROP SCHEMA CACHE [FOR storage]`: `storage` is `File`, `S3` or `URL` (any case).
pub fn clear(storage: Option<&str>) {
    let Ok(mut guard) = CACHE.lock() else { return };
    let Some(cache) = guard.as_mut() else { return };
    match storage {
        None => {
            cache.entries.clear();
            cache.order.clear();
        }
        Some(wanted) => {
            cache.entries.retain(|k, _| !k.storage.eq_ignore_ascii_case(wanted));
            cache.order.retain(|k| !k.storage.eq_ignore_ascii_case(wanted));
        }
    }
}
