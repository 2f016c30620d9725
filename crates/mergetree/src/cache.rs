//! The process's MergeTree caches, shared by every query (ClickHouse has one of each per
//! server):
//!
//! * the **uncompressed-block cache**: decompressed blocks of `.bin` files
//!   (`uncompressed_cache_size` / `use_uncompressed_cache`). Short queries that read the
//!   same few blocks again and again (key-value lookups, dashboards) skip the `pread`
//!   and the decompression on a hit. Full scans do not use it
//!   (`merge_tree_max_rows_to_use_cache`): they would only evict the hot blocks.
//! * the **mark cache**: the parsed marks of one column of one part (`mark_cache_size`).
//!   Parts keep only their primary index and granule sizes in memory; marks are read
//!   from `.mrk` files (checksummed) when a query first needs them and stay while they
//!   are used, so memory for marks is bounded however many parts and columns exist.
//!
//! Eviction is CLOCK (second chance), in 16 shards: a hit takes only a read lock and sets
//! the entry's reference bit, so concurrent lookups never serialize on the cache; an
//! insert sweeps the shard's ring, dropping entries not referenced since the last sweep.
//! That approximates LRU at a fraction of its locking. Entries are keyed by the part's
//! process-unique id, so a merged-away part's entries are never served for a new part;
//! they age out.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use arrow::buffer::Buffer;
use granary_common::metrics::Event;
use parking_lot::RwLock;

use crate::part::Mark;

const SHARDS: usize = 16;

/// (part id, column index in the table, offset of the compressed block in the file;
/// 0 for marks).
pub type BlockKey = (u64, u32, u64);

/// What a cache entry costs in bytes.
pub trait Weighted: Clone {
    fn weight(&self) -> u64;
}

impl Weighted for Buffer {
    fn weight(&self) -> u64 {
        self.len() as u64
    }
}

impl Weighted for Arc<[Mark]> {
    fn weight(&self) -> u64 {
        std::mem::size_of_val::<[Mark]>(self) as u64
    }
}

struct Entry<V> {
    data: V,
    referenced: AtomicBool,
}

struct Shard<V> {
    map: HashMap<BlockKey, Entry<V>>,
    ring: VecDeque<BlockKey>,
    bytes: u64,
}

impl<V> Default for Shard<V> {
    fn default() -> Self {
        Shard { map: HashMap::new(), ring: VecDeque::new(), bytes: 0 }
    }
}

/// A byte-bounded cache shared by every query.
pub struct ClockCache<V> {
    shards: Vec<RwLock<Shard<V>>>,
    capacity: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    /// `system.events` counters for hits and misses.
    events: (Event, Event),
}

/// Decompressed blocks of `.bin` files, in Arrow buffers: decoded arrays are slices of
/// them (`encoding.rs`), so a hit copies nothing.
pub type UncompressedCache = ClockCache<Buffer>;
/// Marks of one column of one part.
pub type MarkCache = ClockCache<Arc<[Mark]>>;

/// Counters and sizes, for `system.asynchronous_metrics` and `system.events`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub bytes: u64,
    pub cells: u64,
    pub hits: u64,
    pub misses: u64,
    pub capacity: u64,
}

/// The default size when the server config does not set one (ClickHouse ships 0, off,
/// but then `use_uncompressed_cache = 1` does nothing, which surprises users).
pub const DEFAULT_UNCOMPRESSED_CACHE_SIZE: u64 = 1 << 30;
/// ClickHouse's default `mark_cache_size` (5 GiB).
pub const DEFAULT_MARK_CACHE_SIZE: u64 = 5 << 30;

impl<V: Weighted> ClockCache<V> {
    pub fn new(capacity: u64, events: (Event, Event)) -> Self {
        ClockCache {
            shards: (0..SHARDS).map(|_| RwLock::new(Shard::default())).collect(),
            capacity: AtomicU64::new(capacity),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            events,
        }
    }

    /// Changes the size; shrinking evicts at the next insert into each shard.
    pub fn set_capacity(&self, bytes: u64) {
        self.capacity.store(bytes, Ordering::Relaxed);
        if bytes == 0 {
            self.clear();
        }
    }

    fn shard(&self, key: &BlockKey) -> &RwLock<Shard<V>> {
        // Parts and offsets spread well; mixing them keeps one hot part from one shard.
        let h = key.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (key.2 >> 12) ^ (u64::from(key.1) << 7);
        &self.shards[(h as usize) % SHARDS]
    }

    pub fn get(&self, key: &BlockKey) -> Option<V> {
        let shard = self.shard(key).read();
        match shard.map.get(key) {
            Some(entry) => {
                entry.referenced.store(true, Ordering::Relaxed);
                self.hits.fetch_add(1, Ordering::Relaxed);
                self.events.0.add(1);
                Some(entry.data.clone())
            }
            None => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                self.events.1.add(1);
                None
            }
        }
    }

    pub fn insert(&self, key: BlockKey, data: V) {
        let per_shard = self.capacity.load(Ordering::Relaxed) / SHARDS as u64;
        let size = data.weight();
        if size == 0 || size > per_shard {
            return;
        }
        let mut shard = self.shard(&key).write();
        if shard.map.contains_key(&key) {
            return; // another query loaded it meanwhile
        }
        while shard.bytes + size > per_shard {
            let Some(victim) = shard.ring.pop_front() else { break };
            let second_chance = shard.map.get(&victim).is_some_and(|e| e.referenced.swap(false, Ordering::Relaxed));
            if second_chance {
                shard.ring.push_back(victim);
            } else if let Some(gone) = shard.map.remove(&victim) {
                shard.bytes -= gone.data.weight();
            }
        }
        shard.bytes += size;
        shard.ring.push_back(key);
        shard.map.insert(key, Entry { data, referenced: AtomicBool::new(false) });
    }

    pub fn stats(&self) -> CacheStats {
        let mut stats = CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            capacity: self.capacity.load(Ordering::Relaxed),
            ..CacheStats::default()
        };
        for shard in &self.shards {
            let s = shard.read();
            stats.bytes += s.bytes;
            stats.cells += s.map.len() as u64;
        }
        stats
    }

    /// `SYSTEM DROP UNCOMPRESSED CACHE` / `SYSTEM DROP MARK CACHE`.
    pub fn clear(&self) {
        for shard in &self.shards {
            *shard.write() = Shard::default();
        }
    }
}

/// The process's uncompressed-block cache. Sized by the server config through
/// [`ClockCache::set_capacity`].
pub fn uncompressed_cache() -> &'static UncompressedCache {
    static CACHE: OnceLock<UncompressedCache> = OnceLock::new();
    CACHE.get_or_init(|| ClockCache::new(DEFAULT_UNCOMPRESSED_CACHE_SIZE, (Event::UncompressedCacheHits, Event::UncompressedCacheMisses)))
}

/// The process's mark cache. Sized by the server config through
/// [`ClockCache::set_capacity`].
pub fn mark_cache() -> &'static MarkCache {
    static CACHE: OnceLock<MarkCache> = OnceLock::new();
    CACHE.get_or_init(|| ClockCache::new(DEFAULT_MARK_CACHE_SIZE, (Event::MarkCacheHits, Event::MarkCacheMisses)))
}

/// Process-unique part ids for cache keys.
pub fn next_part_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const EVENTS: (Event, Event) = (Event::UncompressedCacheHits, Event::UncompressedCacheMisses);

    fn block(n: usize) -> Buffer {
        Buffer::from_vec(vec![7u8; n])
    }

    #[test]
    fn hits_misses_and_byte_bound() {
        let cache = UncompressedCache::new(16 * 1000, EVENTS);
        assert!(cache.get(&(1, 0, 0)).is_none());
        cache.insert((1, 0, 0), block(100));
        assert_eq!(cache.get(&(1, 0, 0)).unwrap().len(), 100);
        for i in 0..10_000u64 {
            cache.insert((2, 0, i * 4096), block(300));
        }
        let s = cache.stats();
        assert!(s.bytes <= 16 * 1000, "{s:?}");
        assert!(s.cells > 0);
        assert_eq!((s.hits, s.misses), (1, 1));
        // Blocks larger than a shard are not cached at all.
        cache.insert((3, 0, 0), block(2000));
        assert!(cache.get(&(3, 0, 0)).is_none());
        cache.clear();
        assert_eq!(cache.stats().bytes, 0);
    }

    #[test]
    fn referenced_entries_survive_a_sweep() {
        let cache = UncompressedCache::new(16 * 1000, EVENTS);
        // Find keys of one shard so the sweep is deterministic.
        let shard_of = |k: &BlockKey| std::ptr::from_ref(cache.shard(k)) as usize;
        let hot = (9, 1, 0);
        let same: Vec<BlockKey> = (1..100_000u64).map(|i| (9, 1, i * 4096)).filter(|k| shard_of(k) == shard_of(&hot)).take(20).collect();
        cache.insert(hot, block(400));
        for k in &same {
            assert!(cache.get(&hot).is_some(), "the hot block was evicted");
            cache.insert(*k, block(400));
        }
    }

    #[test]
    fn zero_capacity_caches_nothing() {
        let cache = UncompressedCache::new(0, EVENTS);
        cache.insert((1, 0, 0), block(10));
        assert!(cache.get(&(1, 0, 0)).is_none());
    }
}
