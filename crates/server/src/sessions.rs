//! HTTP sessions (`session_id`): a session's database, settings and parameters live
//! between requests until `session_timeout` seconds pass without use. One request at a
//! time per session, as in ClickHouse (SESSION_IS_LOCKED otherwise).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use granary_common::{Error, ErrorCode, Result};
use granary_query::Session;
use parking_lot::Mutex;

struct Entry {
    session: Arc<tokio::sync::Mutex<Session>>,
    last_used: Instant,
    timeout: Duration,
}

#[derive(Default)]
pub struct Sessions {
    entries: Mutex<HashMap<String, Entry>>,
}

/// A session held for one request.
pub struct SessionLease {
    pub session: tokio::sync::OwnedMutexGuard<Session>,
}

impl Sessions {
    /// Takes the session `id` (creating it with `make` if new or expired).
    pub fn acquire(&self, id: &str, user: &str, timeout: Duration, make: impl FnOnce() -> Result<Session>) -> Result<SessionLease> {
        let mut entries = self.entries.lock();
        let now = Instant::now();
        entries.retain(|_, e| now.duration_since(e.last_used) < e.timeout || Arc::strong_count(&e.session) > 1);
        let entry = match entries.entry(id.to_string()) {
            std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(Entry { session: Arc::new(tokio::sync::Mutex::new(make()?)), last_used: now, timeout })
            }
        };
        entry.last_used = now;
        entry.timeout = timeout;
        let guard = entry.session.clone().try_lock_owned().map_err(|_| {
            Error::new(ErrorCode::SESSION_IS_LOCKED, format!("Session {id} is locked by a concurrent client"))
        })?;
        if guard.user != user {
            return Err(Error::new(ErrorCode::SESSION_NOT_FOUND, format!("Session {id} belongs to another user")));
        }
        Ok(SessionLease { session: guard })
    }

    /// Whether session `id` exists and has not expired.
    pub fn contains(&self, id: &str) -> bool {
        let entries = self.entries.lock();
        entries.get(id).is_some_and(|e| e.last_used.elapsed() < e.timeout || Arc::strong_count(&e.session) > 1)
    }

    pub fn close(&self, id: &str) {
        self.entries.lock().remove(id);
    }
}
