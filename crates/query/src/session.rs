//! A client session: who is logged in (their rights, settings and quotas), current
//! database, settings changed by `SET`, and query parameters set with
//! `SET param_x = ...`, and its temporary tables (dropped with the session's last copy).
//! HTTP requests without `session_id` get a fresh one.

use std::collections::HashMap;
use std::sync::Arc;

use granary_access::{AccessControl, UserAccess};
use granary_common::{Result, Settings};

#[derive(Debug, Clone)]
pub struct Session {
    pub user: String,
    pub current_database: String,
    pub settings: Settings,
    pub params: HashMap<String, String>,
    pub access: Arc<UserAccess>,
    pub temporary_tables: Arc<granary_storage::temporary::TemporaryTables>,
}

impl Session {
    /// A session with every privilege (embedded use: `granary local`, tests).
    pub fn new(user: impl Into<String>, current_database: impl Into<String>) -> Self {
        let user = user.into();
        Session {
            access: AccessControl::unrestricted(&user),
            user,
            current_database: current_database.into(),
            settings: Settings::new(),
            params: HashMap::new(),
            temporary_tables: Arc::default(),
        }
    }

    /// A session of a logged-in user: their profile settings and default database.
    pub fn for_user(access: Arc<UserAccess>) -> Result<Self> {
        let mut settings = Settings::new();
        for s in &access.settings {
            settings.set(&s.name, &s.value)?;
        }
        let current_database = access.default_database.clone().unwrap_or_else(|| "default".to_string());
        Ok(Session { user: access.user.clone(), current_database, settings, params: HashMap::new(), access, temporary_tables: Arc::default() })
    }
}
