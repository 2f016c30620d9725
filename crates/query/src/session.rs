//! A client session: current database, settings changed by `SET`, and query parameters
//! set with `SET param_x = ...`. HTTP requests without `session_id` get a fresh one.

use std::collections::HashMap;

use granary_common::Settings;

#[derive(Debug, Clone)]
pub struct Session {
    pub user: String,
    pub current_database: String,
    pub settings: Settings,
    pub params: HashMap<String, String>,
}

impl Session {
    pub fn new(user: impl Into<String>, current_database: impl Into<String>) -> Self {
        Session { user: user.into(), current_database: current_database.into(), settings: Settings::new(), params: HashMap::new() }
    }
}
