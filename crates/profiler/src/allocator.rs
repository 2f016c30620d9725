//! Settings of the process's allocator (mimalloc, installed by the `granary` binary).

use std::os::raw::{c_int, c_long};

// `libmimalloc-sys` links mimalloc; its Rust declarations of the options API need the
// `extended` feature and follow mimalloc v2's numbering, so the one call used here is
// declared against the v3 header of the version pinned in Cargo.toml (`mi_option_e` in
// c_src/mimalloc/v3/include/mimalloc.h).
use libmimalloc_sys as _;

extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
}

/// `mi_option_purge_decommits` in mimalloc v3's `mi_option_e`.
const MI_OPTION_PURGE_DECOMMITS: c_int = 5;
/// `mi_option_allow_thp` in mimalloc v3's `mi_option_e`.
const MI_OPTION_ALLOW_THP: c_int = 43;

/// Sets what an analytical workload needs, unless the environment sets it
/// (`MIMALLOC_PURGE_DECOMMITS`, `MIMALLOC_ALLOW_THP`). Call first thing in `main`.
///
/// An INSERT churns through blocks of hundreds of MiB (decoded, sorted, encoded):
/// - freed memory is reset (`MADV_FREE`) instead of decommitted (`MADV_DONTNEED`): with
///   decommitted memory every block was faulted in and zeroed by the kernel again, over
///   half of a Parquet load's CPU; reset pages stay mapped and are reused at no cost,
///   and the kernel still takes them back when it runs short of memory;
/// - no transparent huge pages (mimalloc asks for them with `MADV_HUGEPAGE`): on a busy
///   machine the kernel compacts memory to find them, and a fresh process's first 2M-row
///   load took 2.2-3.0 s instead of 1.6 s.
pub fn configure_allocator() {
    for (variable, option) in [("MIMALLOC_PURGE_DECOMMITS", MI_OPTION_PURGE_DECOMMITS), ("MIMALLOC_ALLOW_THP", MI_OPTION_ALLOW_THP)] {
        if std::env::var_os(variable).is_none() {
            // SAFETY: mi_option_set only stores the value in mimalloc's option table;
            // both options are read when memory is next mapped or purged.
            unsafe { mi_option_set(option, 0) };
        }
    }
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // mimalloc reserved its first arena, asking for huge pages, before `main` ran:
        // the option above only covers later mappings. The process flag covers every
        // mapping, as mimalloc sets it itself when the option comes from the environment.
        // SAFETY: prctl with PR_SET_THP_DISABLE takes integer arguments only.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}
