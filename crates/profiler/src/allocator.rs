//! Settings of the process's allocator (mimalloc, installed by the `granary` binary).

use std::os::raw::{c_int, c_long};

// `libmimalloc-sys` links mimalloc; its Rust declarations of the options API need the
// `extended` feature and follow mimalloc v2's numbering, so the one call used here is
// declared against the v3 header the crate builds (`mi_option_e` in mimalloc.h).
use libmimalloc_sys as _;

extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
}

/// `mi_option_purge_decommits` in mimalloc v3's `mi_option_e`.
const MI_OPTION_PURGE_DECOMMITS: c_int = 5;

/// Memory the allocator gives back is reset (`MADV_FREE`) instead of decommitted
/// (`MADV_DONTNEED`), unless `MIMALLOC_PURGE_DECOMMITS` says otherwise.
///
/// An INSERT churns through blocks of hundreds of MiB (decoded, sorted, encoded); with
/// decommitted memory every block is faulted in and zeroed by the kernel again, which
/// took over half of a Parquet load's CPU. Reset pages stay mapped and are reused at no
/// cost, and the kernel still takes them back when it runs short of memory.
pub fn reuse_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DECOMMITS").is_some() {
        return;
    }
    // SAFETY: mi_option_set only stores the value in mimalloc's option table (an atomic
    // store); the option is read when memory is purged.
    unsafe { mi_option_set(MI_OPTION_PURGE_DECOMMITS, 0) };
}
