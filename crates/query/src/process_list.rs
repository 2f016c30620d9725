//! Running queries (`system.processes`, `SHOW PROCESSLIST`): admission
//! (`max_concurrent_queries`, unique query ids) and cancellation.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use granary_common::{Error, ErrorCode, QueryProgress, Result};
use parking_lot::Mutex;
use tokio::sync::Notify;

#[derive(Debug)]
pub struct ProcessEntry {
    pub query_id: String,
    pub query: String,
    pub user: String,
    pub current_database: String,
    pub progress: Arc<QueryProgress>,
    cancelled: AtomicBool,
    cancel_notify: Notify,
}

impl ProcessEntry {
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.cancel_notify.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Resolves when the query is cancelled.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.cancel_notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

#[derive(Default)]
pub struct ProcessList {
    max_concurrent_queries: usize,
    running: Mutex<HashMap<String, Arc<ProcessEntry>>>,
}

/// Removes the query from the list when dropped, however the query ends.
pub struct ProcessGuard {
    list: Arc<ProcessList>,
    pub entry: Arc<ProcessEntry>,
}

impl Drop for ProcessGuard {
    fn drop(&mut self) {
        if self.list.running.lock().remove(&self.entry.query_id).is_some() {
            granary_common::metrics::Metric::Query.add(-1);
        }
    }
}

impl ProcessList {
    pub fn new(max_concurrent_queries: usize) -> Self {
        ProcessList { max_concurrent_queries, running: Mutex::new(HashMap::new()) }
    }

    pub fn register(
        self: &Arc<Self>,
        query_id: &str,
        query: &str,
        user: &str,
        current_database: &str,
        progress: Arc<QueryProgress>,
    ) -> Result<ProcessGuard> {
        let mut running = self.running.lock();
        if self.max_concurrent_queries > 0 && running.len() >= self.max_concurrent_queries {
            return Err(Error::new(
                ErrorCode::TOO_MANY_SIMULTANEOUS_QUERIES,
                format!("Too many simultaneous queries. Maximum: {}", self.max_concurrent_queries),
            ));
        }
        if running.contains_key(query_id) {
            return Err(Error::new(
                ErrorCode::QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING,
                format!("Query with id = {query_id} is already running."),
            ));
        }
        let entry = Arc::new(ProcessEntry {
            query_id: query_id.to_string(),
            query: query.to_string(),
            user: user.to_string(),
            current_database: current_database.to_string(),
            progress,
            cancelled: AtomicBool::new(false),
            cancel_notify: Notify::new(),
        });
        running.insert(query_id.to_string(), entry.clone());
        granary_common::metrics::Metric::Query.add(1);
        Ok(ProcessGuard { list: self.clone(), entry })
    }

    pub fn snapshot(&self) -> Vec<Arc<ProcessEntry>> {
        self.running.lock().values().cloned().collect()
    }

    /// `KILL QUERY WHERE query_id = ...`: returns whether it was running.
    pub fn cancel(&self, query_id: &str) -> bool {
        match self.running.lock().get(query_id) {
            Some(entry) => {
                entry.cancel();
                true
            }
            None => false,
        }
    }
}
