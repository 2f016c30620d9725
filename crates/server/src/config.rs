//! Server configuration: defaults, overridden by a TOML file, overridden by flags.

use std::path::{Path, PathBuf};

use granary_common::{Error, ErrorCode, Result};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Data directory.
    pub path: PathBuf,
    /// Address the HTTP interface listens on.
    pub listen_host: String,
    pub http_port: u16,
    /// Directory `file()` may read and write (default `<path>/user_files`).
    pub user_files_path: Option<PathBuf>,
    /// Queries running at once (0: unlimited).
    pub max_concurrent_queries: usize,
    /// Seconds an idle HTTP session is kept.
    pub default_session_timeout: u64,
    /// Entries kept in system.query_log.
    pub query_log_capacity: usize,
    /// Seconds to wait for running queries on shutdown.
    pub shutdown_wait_seconds: u64,
    /// Bytes of decompressed MergeTree blocks kept for queries with
    /// `use_uncompressed_cache = 1` (0 disables the cache).
    pub uncompressed_cache_size: u64,
    /// `[s3.<name>]` sections: credentials for s3() URLs starting with `endpoint`.
    pub s3: std::collections::BTreeMap<String, granary_query::S3EndpointConfig>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            path: PathBuf::from("./granary-data"),
            listen_host: "127.0.0.1".into(),
            http_port: 8123,
            user_files_path: None,
            max_concurrent_queries: 0,
            default_session_timeout: 60,
            query_log_capacity: 100_000,
            shutdown_wait_seconds: 10,
            uncompressed_cache_size: granary_query::DEFAULT_UNCOMPRESSED_CACHE_SIZE,
            s3: Default::default(),
        }
    }
}

impl ServerConfig {
    /// Reads a TOML config file (keys as the fields above).
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot read config file {}: {e}", path.display())))?;
        toml::from_str(&text).map_err(|e| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad config file {}: {e}", path.display())))
    }

    pub fn user_files_path(&self) -> PathBuf {
        self.user_files_path.clone().unwrap_or_else(|| self.path.join("user_files"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_overrides_defaults_and_rejects_typos() {
        let c: ServerConfig = toml::from_str("http_port = 9123\npath = '/tmp/x'").unwrap();
        assert_eq!(c.http_port, 9123);
        assert_eq!(c.listen_host, "127.0.0.1");
        assert_eq!(c.user_files_path(), PathBuf::from("/tmp/x/user_files"));
        assert!(toml::from_str::<ServerConfig>("htp_port = 1").is_err());
    }
}
