//! Temporary tables (`CREATE TEMPORARY TABLE`): tables of one session, never written to
//! the metadata directory, gone when the session ends (an HTTP `session_id` expiring or
//! closed, the end of `granary local`).
//!
//! ClickHouse resolves an unqualified name to the session's temporary table first, so a
//! temporary table hides a table of the same name in the current database. The session's
//! tables are made visible to everything a query does while it is planned (the query
//! layer runs each query inside [`scope`]); [`crate::Catalog::table`] and the DataFusion
//! schema provider of the current database look there first. The name is not checked for
//! a database qualifier at that point, so `db.t` with `db` the current database also
//! finds the temporary `t`: a difference from ClickHouse kept for the sake of one lookup
//! path.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::catalog::Table;

/// The temporary tables of one session, by name. Dropping the last reference (the
/// session's end) removes the tables' data directories.
#[derive(Debug, Default)]
pub struct TemporaryTables {
    tables: RwLock<BTreeMap<String, Arc<Table>>>,
}

impl TemporaryTables {
    pub fn get(&self, name: &str) -> Option<Arc<Table>> {
        self.tables.read().get(name).cloned()
    }

    pub fn all(&self) -> Vec<Arc<Table>> {
        self.tables.read().values().cloned().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.read().is_empty()
    }

    /// Adds `table`; false (and nothing added) when the session has one of that name.
    pub fn insert(&self, table: Arc<Table>) -> bool {
        let mut tables = self.tables.write();
        if tables.contains_key(&table.meta.name) {
            return false;
        }
        tables.insert(table.meta.name.clone(), table);
        true
    }

    pub fn remove(&self, name: &str) -> Option<Arc<Table>> {
        self.tables.write().remove(name)
    }
}

impl Drop for TemporaryTables {
    fn drop(&mut self) {
        for table in self.tables.get_mut().values() {
            for dir in table.engine.data_paths() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

/// The session a query runs for: its current database and temporary tables.
#[derive(Debug, Clone)]
struct Visible {
    current_database: String,
    tables: Arc<TemporaryTables>,
}

tokio::task_local! {
    static SESSION: Visible;
}

/// Runs `future` (one query of a session whose current database is `current_database`)
/// with the session's temporary tables visible.
pub async fn scope<F: Future>(current_database: String, tables: Arc<TemporaryTables>, future: F) -> F::Output {
    SESSION.scope(Visible { current_database, tables }, future).await
}

/// The temporary table `name`, when a query of its session looks in `database` (the
/// session's current database).
pub fn lookup(database: &str, name: &str) -> Option<Arc<Table>> {
    SESSION.try_with(|s| if s.current_database == database { s.tables.get(name) } else { None }).ok().flatten()
}

/// Every temporary table of the session the current query runs for.
pub fn visible() -> Vec<Arc<Table>> {
    SESSION.try_with(|s| s.tables.all()).unwrap_or_default()
}
