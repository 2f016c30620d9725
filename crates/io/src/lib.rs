//! Reading tables from files and object storage: the `file()`, `s3()`, `gcs()`,
//! `s3Cluster()` and `url()` table functions.
//!
//! Module map:
//!
//! * [`glob`]: ClickHouse globs (`*`, `**`, `?`, `{a,b}`, `{01..10}`) and the literal
//!   prefix that listing starts from.
//! * [`detect`]: format and compression from a file name; decompressing readers
//!   (gzip, zstd, lz4 frame).
//! * [`hive`]: `name=value` directories of the matched paths as columns (types, values,
//!   the file pruning they allow).
//! * [`infer`]: schema inference for CSV/TSV (with header detection), `*WithNames`,
//!   `*WithNamesAndTypes` and JSONEachRow, with ClickHouse's inferred types.
//! * [`local`]: paths confined to `user_files_path` (no `..`, no symlink escapes) and
//!   glob listing of local directories.
//! * [`function`]: argument handling of `file(path [, format [, structure [, compression]]])`,
//!   and what every table function shares: format detection, inference, the table.
//! * [`named_collections`]: `CREATE NAMED COLLECTION` and config collections, their
//!   storage, and the keys a table function takes from one.
//! * [`remote`]: S3 URLs, credentials (arguments, `[s3.*]` config endpoints, environment),
//!   cached `object_store` clients, listing globs by prefix.
//! * [`azure`]: `azureBlobStorage()` and `azureBlobStorageCluster()`: connection strings,
//!   storage account URLs, keys and SAS, on object_store's Azure client.
//! * [`coded_store`]: the wrapper that gives every object-store failure ClickHouse's code
//!   for its service (S3_ERROR, RECEIVED_ERROR_FROM_REMOTE_IO_SERVER, ...).
//! * [`engines`]: `ENGINE = File`, `URL` and `S3`, over the table functions.
//! * [`download`]: parallel ranged GETs of one object as a blocking byte stream.
//! * [`remote_functions`]: `s3()`, `gcs()`, `s3Cluster()` and `url()`.
//! * [`sink`]: `INSERT INTO FUNCTION file()/url()/s3()`: destinations (append, truncate,
//!   numbered new files, `{_partition_id}`), compression, multipart uploads, all or
//!   nothing.
//! * [`table`]: the [`table::FileTable`] provider: Parquet through DataFusion's parquet
//!   source (projection, statistics pruning, row groups in parallel), text formats
//!   streamed through `granary-formats` parsers, files spread over `max_threads`
//!   partitions, `_path`/`_file` virtual columns.
//!
//! The query layer hands each query's settings, time zone and `user_files_path` to the
//! table functions through [`IoContext`], a DataFusion session-config extension.
//! Virtual columns are part of the schema only when the query names `_path` or `_file`
//! (DataFusion has no hidden columns; this keeps `SELECT *` as in ClickHouse).

pub mod azure;
pub mod coded_store;
pub mod detect;
pub mod download;
pub mod engines;
pub mod function;
pub mod glob;
pub mod hive;
pub mod infer;
pub mod local;
pub mod named_collections;
pub mod native_compression;
pub mod parquet_dictionary;
pub mod remote;
pub mod remote_functions;
pub mod schema_cache;
pub mod sink;
pub mod table;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use chrono_tz::Tz;
use datafusion::execution::SessionState;
use granary_common::Settings;

/// What the table functions need to know about the query they run in.
#[derive(Debug)]
pub struct IoContext {
    pub settings: Settings,
    pub timezone: Tz,
    pub user_files_path: PathBuf,
    /// Set before planning when the query mentions `_path` or `_file`.
    pub virtual_columns: AtomicBool,
    /// Credentials for s3() by endpoint, from the server config.
    pub s3_endpoints: Arc<Vec<remote::S3EndpointConfig>>,
    /// The server's named collections as the query started.
    pub named_collections: named_collections::Snapshot,
    /// Whether the user may use named collections in table functions.
    pub may_use_named_collections: bool,
}

impl Default for IoContext {
    fn default() -> Self {
        IoContext {
            settings: Settings::new(),
            timezone: Tz::UTC,
            user_files_path: PathBuf::from("user_files"),
            virtual_columns: AtomicBool::new(false),
            s3_endpoints: Arc::default(),
            named_collections: Arc::default(),
            may_use_named_collections: false,
        }
    }
}

/// Whether a query text refers to a virtual column (a cheap token check; a false
/// positive only adds the columns to `SELECT *`).
pub fn mentions_virtual_columns(sql: &str) -> bool {
    table::VIRTUAL_COLUMNS.iter().any(|name| {
        sql.match_indices(name).any(|(i, _)| {
            let before = sql[..i].chars().next_back();
            let after = sql[i + name.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// Registers the table functions of this crate.
pub fn register(state: &mut SessionState) {
    state.register_udtf("file", Arc::new(function::FileFunction));
    for (name, function) in remote_functions::functions().into_iter().chain(azure::functions()) {
        state.register_udtf(name, function);
    }
}
