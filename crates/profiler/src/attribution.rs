//! Which query a thread is working for, as the signal handler sees it.
//!
//! A thread-local pointer names the [`QueryProfile`] of the work being done. It is set
//! only by code that holds the profile alive for as long as the pointer names it:
//!
//! - [`QueryProfile::enter`]'s guard (blocking threads, and [`Profiled`] around each poll
//!   of a query's future);
//! - the runtime's task hooks ([`runtime_hooks`]): a task spawned while the pointer is
//!   set belongs to that query; before each of its polls the pointer is set to it (a
//!   thread-local `Arc` keeps the profile alive through the poll, since the task's
//!   termination hook runs inside its last poll) and restored after.
//!
//! Timers are armed on entering a query's work. Runtime workers disarm a short wall-clock
//! period when they park (idle; see `sampler::parked`); other threads disarm when they
//! leave the outermost query scope.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use parking_lot::Mutex;

use crate::sampler;

/// What a thread working for a running query needs to know about it: the query id (for
/// `system.trace_log` and `system.text_log`), the profiler's timer periods, and the log
/// level the query asked for (`send_logs_level`). The thread-local pointer to it is what
/// attributes records to queries, instead of a `tracing` span per query: a span costs
/// thousands of instructions per key-value lookup (registry slot, field formatting for
/// each layer, a dispatch on every poll), and does not follow the query into the tasks
/// and threads it spawns.
#[derive(Debug)]
pub struct QueryProfile {
    query_id: String,
    real_period_ns: AtomicU64,
    cpu_period_ns: AtomicU64,
    logs_level: AtomicU8,
}

thread_local! {
    static CURRENT: AtomicPtr<QueryProfile> = const { AtomicPtr::new(ptr::null_mut()) };
    /// The profile of the task being polled and what CURRENT was before.
    static POLLED: RefCell<Option<(Arc<QueryProfile>, *mut QueryProfile)>> = const { RefCell::new(None) };
    /// Set on the first park: only runtime workers park through the hook.
    static IS_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Profiles of the tasks spawned for queries, by task.
static TASKS: Mutex<Option<HashMap<tokio::task::Id, Arc<QueryProfile>>>> = Mutex::new(None);
static TRACKED_TASKS: AtomicUsize = AtomicUsize::new(0);

impl QueryProfile {
    /// Periods in nanoseconds; 0 turns that timer off.
    pub fn new(query_id: &str, real_period_ns: u64, cpu_period_ns: u64) -> Arc<QueryProfile> {
        Arc::new(QueryProfile {
            query_id: query_id.to_string(),
            real_period_ns: AtomicU64::new(real_period_ns),
            cpu_period_ns: AtomicU64::new(cpu_period_ns),
            logs_level: AtomicU8::new(0),
        })
    }

    pub fn query_id(&self) -> &str {
        &self.query_id
    }

    /// The query's `send_logs_level`, as a number the logging layer defines (0: nothing).
    pub fn logs_level(&self) -> u8 {
        self.logs_level.load(Ordering::Relaxed)
    }

    pub fn set_logs_level(&self, level: u8) {
        self.logs_level.store(level, Ordering::Relaxed);
    }

    /// Changes the periods (a SETTINGS clause read after the query started); the calling
    /// thread's timers follow at once when it works for this query.
    pub fn set_periods(&self, real_period_ns: u64, cpu_period_ns: u64) {
        self.real_period_ns.store(real_period_ns, Ordering::Relaxed);
        self.cpu_period_ns.store(cpu_period_ns, Ordering::Relaxed);
        if ptr::eq(current_ptr(), self) {
            sampler::arm(real_period_ns, cpu_period_ns);
        }
    }

    fn arm(&self) {
        sampler::arm(self.real_period_ns.load(Ordering::Relaxed), self.cpu_period_ns.load(Ordering::Relaxed));
    }

    /// Marks the calling thread as working for this query until the guard drops (for
    /// work handed to blocking threads and scoped threads).
    pub fn enter(self: &Arc<Self>) -> EnteredQuery {
        let previous = switch_to(Arc::as_ptr(self) as *mut QueryProfile);
        self.arm();
        EnteredQuery { _profile: self.clone(), previous, _not_send: PhantomData }
    }
}

/// While alive, the thread works for the query it was entered for.
pub struct EnteredQuery {
    _profile: Arc<QueryProfile>,
    previous: *mut QueryProfile,
    /// The guard restores a thread-local: it must drop on the thread that made it.
    _not_send: PhantomData<*const ()>,
}

impl Drop for EnteredQuery {
    fn drop(&mut self) {
        leave(self.previous);
    }
}

/// The profile the calling thread works for, to carry into work it hands to other threads.
pub fn current() -> Option<Arc<QueryProfile>> {
    let current = current_ptr();
    if current.is_null() {
        return None;
    }
    // SAFETY: a non-null CURRENT points into an Arc held by whoever set it on this thread,
    // which outlives this call; the count is raised before a second Arc is made from it.
    unsafe {
        Arc::increment_strong_count(current);
        Some(Arc::from_raw(current))
    }
}

/// `work` made to run as work of the calling thread's query, on whichever thread runs it
/// (a blocking pool thread, a scoped parsing thread).
pub fn carry<R>(work: impl FnOnce() -> R) -> impl FnOnce() -> R {
    let profile = current();
    move || {
        let _entered = profile.as_ref().map(|p| p.enter());
        work()
    }
}

/// Calls `f` with the profile the calling thread works for, without counting a reference
/// (for the logging layer, on every record).
pub fn with_current<R>(f: impl FnOnce(Option<&QueryProfile>) -> R) -> R {
    let current = current_ptr();
    // SAFETY: a non-null CURRENT points into an Arc held by whoever set it on this thread,
    // which outlives this call (see `current`).
    f(unsafe { current.as_ref() })
}

pub(crate) fn current_ptr() -> *const QueryProfile {
    CURRENT.try_with(|c| c.load(Ordering::Relaxed)).unwrap_or(ptr::null_mut())
}

fn switch_to(profile: *mut QueryProfile) -> *mut QueryProfile {
    // SeqCst orders the store against the signal handler running on this same thread,
    // before the caller may drop what the previous pointer named.
    CURRENT.try_with(|c| c.swap(profile, Ordering::SeqCst)).unwrap_or(ptr::null_mut())
}

fn leave(previous: *mut QueryProfile) {
    switch_to(previous);
    if previous.is_null() {
        if !IS_WORKER.try_with(|w| w.get()).unwrap_or(false) {
            sampler::arm(0, 0);
        }
    } else {
        // SAFETY: `previous` was current before and its holder is still up the stack.
        unsafe { (*previous).arm() };
    }
}

/// A query's future (or anything run for it): polled as the query's work.
pub struct Profiled<F> {
    inner: F,
    profile: Option<Arc<QueryProfile>>,
}

impl<F> Profiled<F> {
    /// `None` runs `inner` unprofiled (both periods 0).
    pub fn new(inner: F, profile: Option<Arc<QueryProfile>>) -> Self {
        Profiled { inner, profile }
    }
}

impl<F: Future> Future for Profiled<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is structurally pinned: never moved out of `self`, and `Profiled`
        // has no Drop impl and is not Unpin-dependent on `inner` otherwise.
        let this = unsafe { self.get_unchecked_mut() };
        let _entered = this.profile.as_ref().map(|p| p.enter());
        // SAFETY: see above.
        unsafe { Pin::new_unchecked(&mut this.inner) }.poll(cx)
    }
}

/// Installs the hooks that carry a query's profile into the tasks spawned for it.
pub fn runtime_hooks(builder: &mut tokio::runtime::Builder) -> &mut tokio::runtime::Builder {
    builder
        .on_task_spawn(|meta| task_spawned(meta.id()))
        .on_task_terminate(|meta| task_terminated(meta.id()))
        .on_before_task_poll(|meta| before_task_poll(meta.id()))
        .on_after_task_poll(|_| after_task_poll())
        .on_thread_park(thread_parked)
}

fn task_spawned(id: tokio::task::Id) {
    if let Some(profile) = current() {
        TASKS.lock().get_or_insert_with(HashMap::new).insert(id, profile);
        TRACKED_TASKS.fetch_add(1, Ordering::Relaxed);
    }
}

fn task_terminated(id: tokio::task::Id) {
    if TRACKED_TASKS.load(Ordering::Relaxed) == 0 {
        return;
    }
    let removed = TASKS.lock().as_mut().and_then(|tasks| tasks.remove(&id));
    if removed.is_some() {
        TRACKED_TASKS.fetch_sub(1, Ordering::Relaxed);
    }
    // The profile may still be current: POLLED holds it until the poll ends.
}

fn before_task_poll(id: tokio::task::Id) {
    if TRACKED_TASKS.load(Ordering::Relaxed) == 0 {
        return;
    }
    let Some(profile) = TASKS.lock().as_ref().and_then(|tasks| tasks.get(&id).cloned()) else { return };
    let previous = switch_to(Arc::as_ptr(&profile) as *mut QueryProfile);
    profile.arm();
    let _ = POLLED.try_with(|polled| *polled.borrow_mut() = Some((profile, previous)));
}

fn after_task_poll() {
    let Ok(Some((profile, previous))) = POLLED.try_with(|polled| polled.borrow_mut().take()) else { return };
    leave(previous);
    drop(profile);
}

fn thread_parked() {
    let _ = IS_WORKER.try_with(|w| w.set(true));
    sampler::parked();
}
