//! The sampling query profiler behind `system.trace_log`, and introspection of the
//! running binary (`addressToSymbol`, `addressToLine`, `demangle`).
//!
//! It follows ClickHouse's design (QueryProfiler + TraceCollector):
//!
//! - A thread that works for a query has two POSIX timers, one on its CPU clock
//!   (`query_profiler_cpu_time_period_ns`) and one on the wall clock
//!   (`query_profiler_real_time_period_ns`). Each fires a signal at that thread only
//!   (`SIGEV_THREAD_ID`).
//! - The signal handler walks the interrupted stack and writes one record (trace type,
//!   thread, time, query id, return addresses) into a pipe. It takes no lock and
//!   allocates nothing; a record is smaller than `PIPE_BUF`, so it reaches the pipe whole
//!   or not at all (a full pipe drops the sample rather than blocking the query).
//! - A collector thread reads the pipe and hands [`Sample`]s to the sink the server
//!   installed ([`set_sink`]): the instance's `system.trace_log`.
//!
//! Which query a thread works for is a thread-local pointer ([`attribution`]): set while a
//! query's future is polled ([`Profiled`]), inherited by the tokio tasks spawned from it
//! (the runtime's task hooks, [`attribution::runtime_hooks`]), and carried explicitly
//! into blocking threads ([`QueryProfile::enter`]). Threads that do not work for a query
//! are never sampled.
//!
//! This crate holds all of the workspace's unsafe code for it (signals, timers, raw
//! writes); everything above it is safe Rust.

pub mod allocator;
pub mod attribution;
mod sampler;
pub mod symbols;

pub use attribution::{carry, current, runtime_hooks, with_current, EnteredQuery, Profiled, QueryProfile};
pub use sampler::{dropped_samples, flush, set_sink, Sample, TraceType};

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use parking_lot::Mutex;

    use super::*;

    #[inline(never)]
    fn burn_cpu(for_how_long: Duration) -> u64 {
        let start = Instant::now();
        let mut x = 1u64;
        while start.elapsed() < for_how_long {
            for i in 0..10_000u64 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
            }
        }
        x
    }

    #[test]
    fn samples_threads_working_for_a_query_and_only_them() {
        let samples: Arc<Mutex<Vec<Sample>>> = Arc::default();
        let sink = samples.clone();
        set_sink(move |sample| sink.lock().push(sample));

        let profile = QueryProfile::new("unit-query", 0, 1_000_000);
        {
            let _entered = profile.enter();
            burn_cpu(Duration::from_millis(300));
            // Work handed to another thread stays the query's.
            let work = carry(|| burn_cpu(Duration::from_millis(100)));
            std::thread::spawn(work).join().expect("worker thread");
        }
        // Not working for a query: never sampled, timers or not.
        burn_cpu(Duration::from_millis(100));
        flush();

        let samples = samples.lock();
        assert!(!samples.is_empty());
        assert!(samples.iter().all(|s| s.query_id == "unit-query" && s.trace_type == TraceType::Cpu && !s.trace.is_empty()));
        assert!(samples.iter().map(|s| s.thread_id).collect::<std::collections::HashSet<_>>().len() >= 1);
        // The innermost frames are the interrupted code, not the signal handler.
        let in_burn = samples.iter().filter(|s| s.trace.iter().take(3).any(|&a| symbols::demangle(&symbols::address_to_symbol(a)).contains("burn_cpu"))).count();
        assert!(in_burn > 0, "{:?}", samples.first().map(|s| s.trace.iter().map(|&a| symbols::demangle(&symbols::address_to_symbol(a))).collect::<Vec<_>>()));
    }
}
