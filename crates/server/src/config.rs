//! Server configuration: defaults, overridden by a TOML file, overridden by flags.

use std::collections::BTreeMap;
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
    /// HTTPS port (off when absent); needs `tls_certificate_file` and `tls_private_key_file`.
    pub https_port: Option<u16>,
    /// PEM certificate chain of the HTTPS port.
    pub tls_certificate_file: Option<PathBuf>,
    /// PEM private key (PKCS#8, PKCS#1 or SEC1) of the HTTPS port.
    pub tls_private_key_file: Option<PathBuf>,
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
    /// Bytes of MergeTree marks kept in memory; marks of other parts are read from
    /// their files when needed (0 keeps none).
    pub mark_cache_size: u64,
    /// `[s3.<name>]` sections: credentials for s3() URLs starting with `endpoint`.
    pub s3: std::collections::BTreeMap<String, granary_query::S3EndpointConfig>,
    /// `[named_collections.<name>]`: named collections SQL cannot change; each key is a
    /// value (string, number, boolean) or `{ value = ..., overridable = true|false }`.
    pub named_collections: BTreeMap<String, BTreeMap<String, toml::Value>>,
    /// `[users.<name>]`: users of the config (read-only to SQL).
    pub users: BTreeMap<String, UserConfig>,
    /// `[profiles.<name>]`: settings (`readonly = 1`, `max_execution_time = 10`, ...).
    pub profiles: BTreeMap<String, BTreeMap<String, toml::Value>>,
    /// `[quotas.<name>]`: limits per interval and the users they apply to.
    pub quotas: BTreeMap<String, QuotaConfig>,
    /// `[logger]`: the server log and `system.text_log`.
    pub logger: LoggerConfig,
    /// ClickHouse's `dictionaries_config`: a glob of dictionary files (ClickHouse's XML
    /// `<dictionary>` elements, or the same structure in `.toml` files), relative to the
    /// directory of this config file.
    pub dictionaries_config: Option<String>,
    /// GraphiteMergeTree rollup rules, by the section name tables give.
    pub graphite_rollup: BTreeMap<String, granary_mergetree::graphite::RollupConfig>,
    /// Files (a glob, relative to this config file's directory) of ClickHouse's XML
    /// rollup sections, taken unchanged: each element under the root that holds
    /// `<pattern>` or `<default>` is a section named by its element name
    /// (`<graphite_rollup>`, ...).
    pub graphite_rollup_xml: Option<String>,
    /// The directory of the config file this was read from (relative paths start there).
    #[serde(skip)]
    pub config_dir: Option<PathBuf>,
}

/// The `[logger]` section, after ClickHouse's `<logger>`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoggerConfig {
    /// Level of the log on stderr and in `log`: `none`, `error`, `warning`,
    /// `information`, `debug`, `trace` (`GRANARY_LOG` overrides it for stderr).
    pub level: String,
    /// A file the log is appended to, besides stderr.
    pub log: Option<PathBuf>,
    /// Format of `log`: `text`, or `json` (one object per line with ClickHouse's keys).
    pub formatting: String,
    /// Records at this level and above are kept in `system.text_log`.
    pub text_log_level: String,
}

impl Default for LoggerConfig {
    fn default() -> Self {
        LoggerConfig { level: "information".into(), log: None, formatting: "text".into(), text_log_level: "information".into() }
    }
}

/// A user of the server config.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UserConfig {
    /// Plain-text password (prefer `password_sha256_hex`).
    pub password: Option<String>,
    /// Hex SHA-256 of the password (`echo -n pw | sha256sum`).
    pub password_sha256_hex: Option<String>,
    /// Addresses and networks it may connect from (`127.0.0.1`, `10.0.0.0/8`, `::1`,
    /// `any`). Default: anywhere with a password, loopback only without one.
    pub networks: Option<Vec<String>>,
    pub profile: Option<String>,
    pub default_database: Option<String>,
    /// Every privilege, user management included (as ClickHouse's `access_management`).
    pub access_management: bool,
    /// `"SELECT, INSERT ON db.*"`, one grant per entry.
    pub grants: Vec<String>,
}

/// A quota of the server config.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QuotaConfig {
    pub intervals: Vec<granary_access::QuotaLimits>,
    /// Users (and roles) it applies to.
    pub users: Vec<String>,
    /// One count per user (default) or one shared count.
    pub keyed_by_user: Option<bool>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            path: PathBuf::from("./granary-data"),
            listen_host: "127.0.0.1".into(),
            http_port: 8123,
            https_port: None,
            tls_certificate_file: None,
            tls_private_key_file: None,
            user_files_path: None,
            max_concurrent_queries: 0,
            default_session_timeout: 60,
            query_log_capacity: 100_000,
            shutdown_wait_seconds: 10,
            uncompressed_cache_size: granary_query::DEFAULT_UNCOMPRESSED_CACHE_SIZE,
            mark_cache_size: granary_query::DEFAULT_MARK_CACHE_SIZE,
            s3: Default::default(),
            named_collections: Default::default(),
            users: Default::default(),
            profiles: Default::default(),
            quotas: Default::default(),
            logger: LoggerConfig::default(),
            dictionaries_config: None,
            graphite_rollup: Default::default(),
            graphite_rollup_xml: None,
            config_dir: None,
        }
    }
}

impl ServerConfig {
    /// Reads a TOML config file (keys as the fields above).
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot read config file {}: {e}", path.display())))?;
        let mut config: ServerConfig =
            toml::from_str(&text).map_err(|e| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad config file {}: {e}", path.display())))?;
        config.config_dir = std::path::absolute(path).ok().and_then(|p| p.parent().map(Path::to_path_buf));
        Ok(config)
    }

    /// The absolute glob of `dictionaries_config`: as written when absolute, else from
    /// the config file's directory (the working directory without a config file).
    pub fn dictionaries_config_pattern(&self) -> Option<PathBuf> {
        self.relative_to_config(self.dictionaries_config.as_ref()?)
    }

    fn relative_to_config(&self, path: &str) -> Option<PathBuf> {
        let pattern = PathBuf::from(path);
        if pattern.is_absolute() {
            return Some(pattern);
        }
        let base = self.config_dir.clone().or_else(|| std::env::current_dir().ok()).unwrap_or_default();
        Some(base.join(pattern))
    }

    /// The `[named_collections.<name>]` sections.
    pub fn named_collections(&self) -> Result<Vec<granary_io::named_collections::NamedCollection>> {
        use granary_io::named_collections::{Entry, NamedCollection, Source};
        let bad = |what: String| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad config: {what}"));
        let text = |collection: &str, key: &str, value: &toml::Value| match value {
            toml::Value::String(s) => Ok(s.clone()),
            toml::Value::Boolean(b) => Ok(b.to_string()),
            toml::Value::Integer(i) => Ok(i.to_string()),
            toml::Value::Float(f) => Ok(f.to_string()),
            _ => Err(bad(format!("named collection {collection}: key {key} must be a string, number or boolean"))),
        };
        self.named_collections
            .iter()
            .map(|(name, keys)| {
                let entries = keys
                    .iter()
                    .map(|(key, value)| {
                        let entry = match value {
                            toml::Value::Table(table) => {
                                if let Some(unknown) = table.keys().find(|k| *k != "value" && *k != "overridable") {
                                    return Err(bad(format!("named collection {name}: key {key} has an unknown field {unknown} (value, overridable)")));
                                }
                                let value = table.get("value").ok_or_else(|| bad(format!("named collection {name}: key {key} needs a value")))?;
                                let overridable = match table.get("overridable") {
                                    None => None,
                                    Some(toml::Value::Boolean(b)) => Some(*b),
                                    Some(_) => return Err(bad(format!("named collection {name}: overridable of {key} must be true or false"))),
                                };
                                Entry { value: text(name, key, value)?, overridable }
                            }
                            other => Entry { value: text(name, key, other)?, overridable: None },
                        };
                        Ok((key.clone(), entry))
                    })
                    .collect::<Result<_>>()?;
                Ok(NamedCollection { name: name.clone(), entries, source: Source::Config })
            })
            .collect()
    }

    /// The users, profiles and quotas of the config as access entities.
    pub fn access_entities(&self) -> Result<granary_access::Entities> {
        use granary_access::{AccessRights, Authentication, Level, Privilege, SettingValue, SettingsProfile, User};
        let bad = |what: String| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad config: {what}"));
        let mut entities = granary_access::Entities::default();
        for (name, profile) in &self.profiles {
            let settings = profile
                .iter()
                .map(|(setting, value)| {
                    let value = match value {
                        toml::Value::String(s) => s.clone(),
                        toml::Value::Boolean(b) => u8::from(*b).to_string(),
                        toml::Value::Integer(i) => i.to_string(),
                        toml::Value::Float(f) => f.to_string(),
                        _ => return Err(bad(format!("profile {name}: setting {setting} must be a string, number or boolean"))),
                    };
                    Ok(SettingValue { name: setting.clone(), value, fixed: false })
                })
                .collect::<Result<Vec<_>>>()?;
            entities.profiles.insert(name.clone(), SettingsProfile { name: name.clone(), settings });
        }
        for (name, user) in &self.users {
            let auth = match (&user.password, &user.password_sha256_hex) {
                (Some(_), Some(_)) => return Err(bad(format!("user {name} has both password and password_sha256_hex"))),
                (Some(p), None) if p.is_empty() => Authentication::NoPassword,
                (Some(p), None) => Authentication::Plaintext(p.clone()),
                (None, Some(hash)) => Authentication::sha256_hash(hash).map_err(|e| bad(format!("user {name}: {}", e.message())))?,
                (None, None) => Authentication::NoPassword,
            };
            let mut entity = User::new(name, auth);
            if let Some(networks) = &user.networks {
                entity.hosts = Some(networks.iter().map(|n| granary_access::HostPattern::parse(n)).collect::<Result<_>>()?);
            }
            if let Some(profile) = &user.profile {
                if !entities.profiles.contains_key(profile) {
                    return Err(bad(format!("user {name} names the unknown profile {profile}")));
                }
            }
            entity.profile = user.profile.clone();
            entity.default_database = user.default_database.clone();
            entity.rights = if user.access_management { AccessRights::full() } else { AccessRights::default() };
            for grant in &user.grants {
                let upper = grant.to_ascii_uppercase();
                let at = upper.find(" ON ").ok_or_else(|| bad(format!("user {name}: grant '{grant}' needs 'privileges ON db.table'")))?;
                let level = Level::parse(&grant[at + 4..])?;
                for phrase in grant[..at].split(',') {
                    let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
                    for privilege in Privilege::parse_phrase(&phrase)?.into_iter().filter(|p| p.applies_to(&level)) {
                        entity.rights.grant(privilege, level.clone(), false);
                    }
                }
            }
            entities.users.insert(name.clone(), entity);
        }
        for (name, quota) in &self.quotas {
            entities.quotas.insert(
                name.clone(),
                granary_access::Quota {
                    name: name.clone(),
                    intervals: quota.intervals.clone(),
                    applies_to: quota.users.iter().cloned().collect(),
                    keyed_by_user: quota.keyed_by_user.unwrap_or(true),
                },
            );
        }
        Ok(entities)
    }

    /// The checked `graphite_rollup` sections, and those of the `graphite_rollup_xml` files.
    pub fn graphite_rollups(&self) -> Result<granary_mergetree::graphite::GraphiteConfigs> {
        let mut sections = self.graphite_rollup.clone();
        if let Some(pattern) = self.graphite_rollup_xml.as_deref().and_then(|p| self.relative_to_config(p)) {
            let text = pattern.to_string_lossy().to_string();
            let files = glob::glob(&text).map_err(|e| Error::new(ErrorCode::CANNOT_LOAD_CONFIG, format!("graphite_rollup_xml {text}: {e}")))?;
            for file in files {
                let file = file.map_err(|e| Error::new(ErrorCode::CANNOT_LOAD_CONFIG, format!("graphite_rollup_xml {text}: {e}")))?;
                for (name, section) in graphite_sections_of_xml(&file)? {
                    if sections.insert(name.clone(), section).is_some() {
                        return Err(Error::new(ErrorCode::CANNOT_LOAD_CONFIG, format!("graphite_rollup section {name} is defined twice ({})", file.display())));
                    }
                }
            }
        }
        sections
            .iter()
            .map(|(name, section)| Ok((name.clone(), std::sync::Arc::new(granary_mergetree::graphite::GraphiteParams::from_config(name, section)?))))
            .collect()
    }

    pub fn user_files_path(&self) -> PathBuf {
        self.user_files_path.clone().unwrap_or_else(|| self.path.join("user_files"))
    }
}

/// The rollup sections of a ClickHouse XML config file: the root's children that hold
/// `<pattern>` or `<default>` elements.
fn graphite_sections_of_xml(file: &Path) -> Result<Vec<(String, granary_mergetree::graphite::RollupConfig)>> {
    use granary_dictionaries::config_files::ConfigNode;
    use granary_mergetree::graphite::{PatternConfig, Retention, RollupConfig};
    let bad = |message: String| Error::new(ErrorCode::CANNOT_LOAD_CONFIG, format!("Cannot load graphite rollup rules from {}: {message}", file.display()));
    let text = std::fs::read_to_string(file).map_err(|e| bad(e.to_string()))?;
    let root = granary_dictionaries::config_files::parse_xml(&text).map_err(|e| bad(format!("not valid XML: {e}")))?;
    let number = |node: &ConfigNode| node.text.trim().parse::<u64>().map_err(|_| bad(format!("<{}> must be a number, not '{}'", node.name, node.text.trim())));
    let pattern = |node: &ConfigNode| -> Result<PatternConfig> {
        let mut out = PatternConfig::default();
        for child in &node.children {
            let value = Some(child.text.trim().to_string());
            match child.name.as_str() {
                "rule_type" => out.rule_type = value,
                "regexp" => out.regexp = value,
                "function" => out.function = value,
                "retention" => {
                    let (mut age, mut precision) = (None, None);
                    for part in &child.children {
                        match part.name.as_str() {
                            "age" => age = Some(number(part)?),
                            "precision" => precision = Some(number(part)?),
                            other => return Err(bad(format!("unknown element <{other}> in <retention>"))),
                        }
                    }
                    let (Some(age), Some(precision)) = (age, precision) else { return Err(bad("a <retention> needs <age> and <precision>".to_string())) };
                    out.retention.push(Retention { age, precision });
                }
                other => return Err(bad(format!("unknown element <{other}> in <{}>", node.name))),
            }
        }
        Ok(out)
    };
    let mut sections = Vec::new();
    for section in root.children.iter().filter(|c| c.children.iter().any(|p| p.name == "pattern" || p.name == "default")) {
        let mut config = RollupConfig::default();
        for child in &section.children {
            let value = Some(child.text.trim().to_string());
            match child.name.as_str() {
                "path_column_name" => config.path_column_name = value,
                "time_column_name" => config.time_column_name = value,
                "value_column_name" => config.value_column_name = value,
                "version_column_name" => config.version_column_name = value,
                "pattern" => config.pattern.push(pattern(child)?),
                "default" => config.default = Some(pattern(child)?),
                other => return Err(bad(format!("unknown element <{other}> in <{}>", section.name))),
            }
        }
        sections.push((section.name.clone(), config));
    }
    Ok(sections)
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

    #[test]
    fn users_profiles_and_quotas_from_toml() {
        let c: ServerConfig = toml::from_str(
            r#"
            [profiles.ro]
            readonly = 1
            max_execution_time = 5
            [users.alice]
            password_sha256_hex = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"
            networks = ["10.0.0.0/8"]
            profile = "ro"
            grants = ["SELECT, INSERT ON db.*"]
            [quotas.hourly]
            users = ["alice"]
            intervals = [{ duration = 3600, queries = 10 }]
            "#,
        )
        .unwrap();
        let entities = c.access_entities().unwrap();
        let alice = &entities.users["alice"];
        assert!(alice.auth.verify("password"));
        assert!(alice.allowed_from("10.1.1.1".parse().unwrap()) && !alice.allowed_from("127.0.0.1".parse().unwrap()));
        assert!(alice.rights.allows(granary_access::Privilege::Insert, &granary_access::Level::Table("db".into(), "t".into())));
        assert_eq!(entities.profiles["ro"].settings.len(), 2);
        assert_eq!(entities.quotas["hourly"].intervals[0].queries, 10);
        let bad: ServerConfig = toml::from_str("[users.bob]\nprofile = 'nope'").unwrap();
        assert!(bad.access_entities().is_err());
    }

    #[test]
    fn dictionaries_config_is_relative_to_the_config_file() {
        let dir = std::env::temp_dir().join(format!("granary-config-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("server.toml");
        std::fs::write(&file, "dictionaries_config = 'dicts/*.xml'").unwrap();
        let c = ServerConfig::from_file(&file).unwrap();
        assert_eq!(c.dictionaries_config_pattern(), Some(dir.join("dicts/*.xml")));
        std::fs::write(&file, "dictionaries_config = '/etc/granary/*.xml'").unwrap();
        assert_eq!(ServerConfig::from_file(&file).unwrap().dictionaries_config_pattern(), Some(PathBuf::from("/etc/granary/*.xml")));
        assert_eq!(ServerConfig::default().dictionaries_config_pattern(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
