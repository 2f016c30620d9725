//! The uncompressed-block cache: decompressed blocks of `.bin` files shared by every
//! query of the process (ClickHouse's `uncompressed_cache_size` / `use_uncompressed_cache`).
//!
//! Short queries that read the same few blocks again and again (key-value lookups,
//! dashboards) skip the `pread` and the decompression on a hit. Full scans do not use it
//! (`merge_tree_max_rows_to_use_cache`): they would only evict the hot blocks.
//!
//! Eviction is CLOCK (second chance), in 16 shards: a hit takes only a read lock and sets
//! the entry's reference bit, so concurrent lookups never serialize on the cache; an
//! insert sweeps the shard's ring, dropping entries not referenced since the last sweep.
//! That approximates LRU at a fraction of its locking. Entries are keyed by the part's
//! process-unique id, so a merged-away part's blocks are never served for a new part;
//! they age out.
//!
//! Marks are not cached here: every part keeps its marks in memory from load to removal
//! (16 bytes per granule and column), reported as `MarkCacheBytes`.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;

const SHARDS: usize = 16;

/// (part id, column index in the table, offset of the compressed block in the file).
pub type BlockKey = (u64, u32, u64);

struct Entry {
    data: Arc<[u8]>,
    referenced: AtomicBool,
}

#[derive(Default)]
struct Shard {
    map: HashMap<BlockKey, Entry>,
    ring: VecDeque<BlockKey>,
    bytes: u64,
}

/// A byte-bounded cache of decompressed blocks.
pub struct UncompressedCache {
    shards: Vec<RwLock<Shard>>,
    capacity: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
}

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

impl UncompressedCache {
    pub fn new(capacity: u64) -> Self {
        UncompressedCache {
            shards: (0..SHARDS).map(|_| RwLock::new(Shard::default())).collect(),
            capacity: AtomicU64::new(capacity),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Changes the size; shrinking evicts at the next insert into each shard.
    pub fn set_capacity(&self, bytes: u64) {
        self.capacity.store(bytes, Ordering::Relaxed);
        if bytes == 0 {
            for shard in &self.shards {
                *shard.write() = Shard::default();
            }
        }
    }

    fn shard(&self, key: &BlockKey) -> &RwLock<Shard> {
        // Parts and offsets spread well; mixing them keeps one hot part from one shard.
        let h = key.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (key.2 >> 12) ^ (u64::from(key.1) << 7);
        &self.shards[(h as usize) % SHARDS]
    }

    pub fn get(&self, key: &BlockKey) -> Option<Arc<[u8]>> {
        let shard = self.shard(key).read();
        match shard.map.get(key) {
            Some(entry) => {
                entry.referenced.store(true, Ordering::Relaxed);
                self.hits.fetch_add(1, Ordering::Relaxed);
                granary_common::metrics::Event::UncompressedCacheHits.add(1);
                Some(entry.data.clone())
            }
            None => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                granary_common::metrics::Event::UncompressedCacheMisses.add(1);
                None
            }
        }
    }

    pub fn insert(&self, key: BlockKey, data: Arc<[u8]>) {
        let per_shard = self.capacity.load(Ordering::Relaxed) / SHARDS as u64;
        let size = data.len() as u64;
        if size == 0 || size > per_shard {
            return;
        }
        let mut shard = self.shard(&key).write();
        if shard.map.contains_key(&key) {
            return; // another query decompressed it meanwhile
        }
        while shard.bytes + size > per_shard {
            let Some(victim) = shard.ring.pop_front() else { break };
            let second_chance = shard.map.get(&victim).is_some_and(|e| e.referenced.swap(false, Ordering::Relaxed));
            if second_chance {
                shard.ring.push_back(victim);
            } else if let Some(gone) = shard.map.remove(&victim) {
                shard.bytes -= gone.data.len() as u64;
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

    /// `SYSTEM DROP UNCOMPRESSED CACHE`.
    pub fn clear(&self) {
        for shard in &self.shards {
            *shard.write() = Shard::default();
        }
    }
}

/// The process's cache (ClickHouse has one per server). Sized by the server config
/// through [`UncompressedCache::set_capacity`].
pub fn uncompressed_cache() -> &'static UncompressedCache {
    static CACHE: OnceLock<UncompressedCache> = OnceLock::new();
    CACHE.get_or_init(|| UncompressedCache::new(DEFAULT_UNCOMPRESSED_CACHE_SIZE))
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

    fn block(n: usize) -> Arc<[u8]> {
        vec![7u8; n].into()
    }

    #[test]
    fn hits_misses_and_byte_bound() {
        let cache = UncompressedCache::new(16 * 1000);
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
        let cache = UncompressedCache::new(16 * 1000);
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
        let cache = UncompressedCache::new(0);
        cache.insert((1, 0, 0), block(10));
        assert!(cache.get(&(1, 0, 0)).is_none());
    }
}
