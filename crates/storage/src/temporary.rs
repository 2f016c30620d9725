//! Temporary tables (`CREATE TEMPORARY TABLE`): tables of one session, never written to
//! the metadata directory, gone when the session ends (an HTTP `session_id` expiring or
//! closed, the end of `granary local`).
//!
//! ClickHouse resolves an unqualified name to the session's temporary table first, so a
//! temporary table hides a table of the same name in the current database. The session's
//! tables are made visible to everything a query does while it is planned (the query
//! layer runs each query inside [`scope`]); [`crate::Catalog::table`] and the DataFusion
//! schema provider of the current database look there first. Those lookups do not see
//! whether the name was qualified, so the query layer names the tables a query qualifies
//! (`db.t`, which is never the temporary `t`) with [`prefer_regular`] before planning; a
//! query naming both `t` and `db.t` gets the regular table for both.

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

    /// Writes what the session's Buffer tables hold to their destinations: their rows
    /// live only in memory, and the session's end must not lose them.
    pub async fn flush_buffers(&self) {
        flush_buffers(self.buffers()).await;
    }

    fn buffers(&self) -> Vec<Arc<Table>> {
        self.tables.read().values().filter(|t| t.engine.engine_name() == "Buffer").cloned().collect()
    }
}

async fn flush_buffers(buffers: Vec<Arc<Table>>) {
    for table in buffers {
        if let Err(e) = table.engine.optimize(crate::engine::OptimizeRequest::default()).await {
            tracing::error!(target: "StorageBuffer", "Cannot flush temporary table {}: {}", table.meta.name, e.message());
        }
    }
}

impl Drop for TemporaryTables {
    fn drop(&mut self) {
        // A session that expires ends here, outside any query: the flush runs on its own.
        // (`granary local` flushes before it ends, when no task could finish this one.)
        let buffers = self.buffers();
        if !buffers.is_empty() {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(flush_buffers(buffers));
            }
        }
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
    /// Names the query only uses qualified: they find regular tables.
    qualified: Arc<RwLock<std::collections::BTreeSet<String>>>,
}

tokio::task_local! {
    static SESSION: Visible;
}

/// Runs `future` (one query of a session whose current database is `current_database`)
/// with the session's temporary tables visible.
pub async fn scope<F: Future>(current_database: String, tables: Arc<TemporaryTables>, future: F) -> F::Output {
    SESSION.scope(Visible { current_database, tables, qualified: Arc::default() }, future).await
}

/// The temporary table `name`, when a query of its session looks in `database` (the
/// session's current database).
pub fn lookup(database: &str, name: &str) -> Option<Arc<Table>> {
    SESSION
        .try_with(|s| if s.current_database == database && !s.qualified.read().contains(name) { s.tables.get(name) } else { None })
        .ok()
        .flatten()
}

/// The current query names `name` with its database: from now on it finds the regular
/// table, not the session's temporary table of that name.
pub fn prefer_regular(name: &str) {
    let _ = SESSION.try_with(|s| s.qualified.write().insert(name.to_string()));
}

/// Every temporary table of the session the current query runs for.
pub fn visible() -> Vec<Arc<Table>> {
    SESSION.try_with(|s| s.tables.all()).unwrap_or_default()
}
