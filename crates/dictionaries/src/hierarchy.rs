//! Hierarchical dictionaries: a `HIERARCHICAL` attribute holds each key's parent key,
//! and `dictGetHierarchy`, `dictIsIn`, `dictGetChildren`, `dictGetDescendants` walk it.
//!
//! The walks are ClickHouse's (`HierarchyDictionariesUtils`), step for step, because
//! their answers on cycles depend on the algorithm, not only on the data:
//! * up the tree (`dictGetHierarchy`, `dictIsIn`): from a key present in the dictionary,
//!   parent after parent until a key that is absent, a parent equal to the attribute's
//!   null value (its `DEFAULT`, else 0) or NULL, or 1000 levels. Within one block of
//!   keys, a key met again reuses the chain computed before; meeting a key of the chain
//!   being built (a cycle) ends it. So `dictGetHierarchy` of a key on a cycle can depend
//!   on the keys before it in the block, exactly as in ClickHouse.
//! * down the tree (`dictGetChildren`, `dictGetDescendants`): through an index from
//!   parent to children, depth-first with an explicit stack; a cycle ends the walk of
//!   that key. The children of a parent are listed in the order the layout stores its
//!   keys ([`KeyOrder`]): ascending for `FLAT`, first-seen for `HASHED_ARRAY`, and for
//!   `HASHED` / `SPARSE_HASHED` the cell order of ClickHouse's hash table, reproduced
//!   here ([`clickhouse_hash_table_order`]).

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::definition::KeyOrder;

/// ClickHouse's `DBMS_HIERARCHICAL_DICTIONARY_MAX_DEPTH`.
const MAX_DEPTH: usize = 1000;

/// The parent links of a loaded dictionary.
#[derive(Debug)]
pub struct Hierarchy {
    /// Each key's parent (None: the parent is NULL).
    parents: HashMap<u64, Option<u64>>,
    /// A parent equal to this ends a walk up (the attribute's null value); None when that
    /// value is NULL.
    null_value: Option<u64>,
    /// The keys in the order the source gave them first.
    keys: Vec<u64>,
    key_order: KeyOrder,
    /// Rows the source gave: ClickHouse sizes its hash table for them.
    source_rows: usize,
    children: OnceLock<HashMap<u64, Vec<u64>>>,
}

/// Arrays of keys, one per input row, as ClickHouse builds them: all elements, and the
/// end offset of each row's array.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct KeyArrays {
    pub elements: Vec<u64>,
    pub offsets: Vec<usize>,
}

impl KeyArrays {
    pub fn row(&self, i: usize) -> &[u64] {
        let start = if i == 0 { 0 } else { self.offsets[i - 1] };
        &self.elements[start..self.offsets[i]]
    }
}

impl Hierarchy {
    /// `links`: (key, parent) of each key once, in the order the source gave them;
    /// `source_rows`: the rows the source gave (ClickHouse sizes its hash table for them).
    pub fn new(links: Vec<(u64, Option<u64>)>, null_value: Option<u64>, key_order: KeyOrder, source_rows: usize) -> Hierarchy {
        let keys = links.iter().map(|l| l.0).collect();
        Hierarchy { parents: links.into_iter().collect(), null_value, keys, key_order, source_rows, children: OnceLock::new() }
    }

    /// The keys in the layout's storage order.
    fn stored_keys(&self) -> Vec<u64> {
        match self.key_order {
            KeyOrder::Ascending => {
                let mut keys = self.keys.clone();
                keys.sort_unstable();
                keys
            }
            KeyOrder::FirstSeen | KeyOrder::None => self.keys.clone(),
            KeyOrder::ClickHouseHashTable => clickhouse_hash_table_order(self.keys.iter().copied(), self.source_rows),
        }
    }

    /// Whether the layout stores its keys in an order children can be listed in.
    pub fn lists_children(&self) -> bool {
        self.key_order != KeyOrder::None
    }

    fn parent(&self, key: u64) -> Option<u64> {
        let parent = (*self.parents.get(&key)?)?;
        (self.null_value != Some(parent)).then_some(parent)
    }

    /// `dictGetHierarchy`: each key and its ancestors.
    pub fn hierarchy(&self, keys: &[u64]) -> KeyArrays {
        let mut out = KeyArrays { elements: Vec::with_capacity(keys.len()), offsets: Vec::with_capacity(keys.len()) };
        // Key -> (the row whose array holds it, its position in that array).
        let mut seen: HashMap<u64, (usize, usize)> = HashMap::with_capacity(keys.len());
        for &requested in keys {
            if !self.parents.contains_key(&requested) {
                out.offsets.push(out.elements.len());
                continue;
            }
            let mut key = requested;
            let mut depth = 0;
            loop {
                if let Some(&(row, position)) = seen.get(&key) {
                    if row == out.offsets.len() {
                        break; // a cycle within this key's own chain
                    }
                    let start = if row == 0 { 0 } else { out.offsets[row - 1] } + position;
                    out.elements.extend_from_within(start..out.offsets[row]);
                    break;
                }
                if depth >= MAX_DEPTH {
                    break;
                }
                seen.insert(key, (out.offsets.len(), depth));
                out.elements.push(key);
                depth += 1;
                match self.parent(key) {
                    Some(parent) => key = parent,
                    None => break,
                }
            }
            out.offsets.push(out.elements.len());
        }
        out
    }

    /// `dictIsIn`: whether each `ancestors[i]` is in the hierarchy of `keys[i]`.
    pub fn is_in(&self, keys: &[u64], ancestors: &[u64]) -> Vec<bool> {
        let hierarchy = self.hierarchy(keys);
        ancestors.iter().enumerate().map(|(i, ancestor)| hierarchy.row(i).contains(ancestor)).collect()
    }

    fn children_index(&self) -> &HashMap<u64, Vec<u64>> {
        self.children.get_or_init(|| {
            let mut index: HashMap<u64, Vec<u64>> = HashMap::new();
            for child in self.stored_keys() {
                if let Some(Some(parent)) = self.parents.get(&child) {
                    index.entry(*parent).or_default().push(child);
                }
            }
            index
        })
    }

    /// `dictGetDescendants` (`level` 0: all of them; `dictGetChildren` is level 1).
    pub fn descendants(&self, keys: &[u64], level: usize) -> KeyArrays {
        let index = self.children_index();
        let all = level == 0;
        let level = level as i64;
        // The signal on the stack that a key's descendants are complete.
        const RANGE_END: i64 = -1;
        let mut out = KeyArrays { elements: Vec::with_capacity(keys.len()), offsets: Vec::with_capacity(keys.len()) };
        // Descendants computed for earlier keys, reused (all levels only): (start, end)
        // in `out.elements`; a walk broken by a cycle leaves start > end.
        let mut ranges: HashMap<u64, (usize, usize)> = HashMap::new();
        let mut in_this_walk: HashSet<u64> = HashSet::new();
        let mut stack: Vec<(u64, i64)> = Vec::new();
        for &requested in keys {
            if !index.contains_key(&requested) {
                out.offsets.push(out.elements.len());
                continue;
            }
            stack.push((requested, 0));
            while let Some((key, mut depth)) = stack.pop() {
                if all && depth == RANGE_END {
                    if let Some(range) = ranges.get_mut(&key) {
                        range.1 = out.elements.len();
                    }
                    continue;
                }
                if in_this_walk.contains(&key) {
                    stack.clear();
                    break;
                }
                if all {
                    if let Some(&(start, end)) = ranges.get(&key) {
                        if start > end {
                            ranges.remove(&key);
                        } else {
                            out.elements.extend_from_within(start..end);
                            continue;
                        }
                    }
                }
                let Some(children) = index.get(&key) else { continue };
                if depth >= MAX_DEPTH as i64 || (!all && depth > level) {
                    continue;
                }
                if all {
                    ranges.entry(key).or_insert((0, 0)).0 = out.elements.len();
                    stack.push((key, RANGE_END));
                }
                in_this_walk.insert(key);
                depth += 1;
                for &child in children {
                    if all {
                        out.elements.push(child);
                    } else if depth == level {
                        out.elements.push(child);
                        continue;
                    }
                    stack.push((child, depth));
                }
            }
            in_this_walk.clear();
            out.offsets.push(out.elements.len());
        }
        out
    }

    /// Approximate heap bytes of the parent links and, once built, the children index.
    pub fn allocated_bytes(&self) -> usize {
        self.parents.capacity() * (size_of::<u64>() + size_of::<Option<u64>>() + 1) + self.keys.capacity() * size_of::<u64>() + self.children_index_bytes()
    }

    /// Heap bytes of the children index (system.dictionaries'
    /// `hierarchical_index_bytes_allocated`); 0 until a query needs it.
    pub fn children_index_bytes(&self) -> usize {
        self.children.get().map_or(0, |index| index.values().map(|c| c.capacity() * size_of::<u64>() + 32).sum())
    }
}

/// The order in which ClickHouse's `HashMap<UInt64, ...>` lists `keys` (distinct, in
/// insertion order) after reserving room for `reserved` elements: the zero key first,
/// then by cell, a key's cell being the low bits of `intHash64(key)` with linear probing.
/// ClickHouse's hashed dictionaries reserve their tables for the rows of the source
/// block, so this is their order for a source read in one block.
pub fn clickhouse_hash_table_order(keys: impl Iterator<Item = u64> + Clone, reserved: usize) -> Vec<u64> {
    const INITIAL_DEGREE: u32 = 8;
    let count = keys.clone().count();
    let mut degree = if reserved <= 1 { INITIAL_DEGREE } else { INITIAL_DEGREE.max((reserved - 1).ilog2() + 2) };
    // A table is resized when more than half full.
    while count > 1usize << (degree - 1) {
        degree += if degree >= 23 { 1 } else { 2 };
    }
    let mask = (1usize << degree) - 1;
    // Zero is the empty cell: ClickHouse keeps the zero key outside the cells too.
    let mut cells = vec![0u64; mask + 1];
    let mut has_zero = false;
    for key in keys {
        if key == 0 {
            has_zero = true;
            continue;
        }
        let mut cell = (murmur_finalizer(key) as usize) & mask;
        while cells[cell] != 0 && cells[cell] != key {
            cell = (cell + 1) & mask;
        }
        cells[cell] = key;
    }
    let mut order = Vec::with_capacity(count);
    if has_zero {
        order.push(0);
    }
    order.extend(cells.into_iter().filter(|&k| k != 0));
    order
}

/// ClickHouse's `intHash64` as its hash tables use it (`DefaultHash<UInt64>`).
fn murmur_finalizer(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree 1 <- 2, 3; 2 <- 4 <- 5; 6 -> 99 (absent); 7 -> 7; 8 <-> 9; 10 -> 8.
    fn sample(order: KeyOrder) -> Hierarchy {
        let links = [(1, 0), (2, 1), (3, 1), (4, 2), (5, 4), (6, 99), (7, 7), (8, 9), (9, 8), (10, 8)];
        Hierarchy::new(links.iter().map(|&(k, p)| (k, Some(p))).collect(), Some(0), order, links.len())
    }

    fn rows(arrays: &KeyArrays) -> Vec<Vec<u64>> {
        (0..arrays.offsets.len()).map(|i| arrays.row(i).to_vec()).collect()
    }

    #[test]
    fn hierarchy_matches_clickhouse_including_cycles_within_a_block() {
        let h = sample(KeyOrder::Ascending);
        let keys: Vec<u64> = (0..12).collect();
        let expected: Vec<Vec<u64>> = vec![
            vec![],
            vec![1],
            vec![2, 1],
            vec![3, 1],
            vec![4, 2, 1],
            vec![5, 4, 2, 1],
            vec![6, 99],
            vec![7],
            vec![8, 9],
            vec![9],
            vec![10, 8, 9],
            vec![],
        ];
        assert_eq!(rows(&h.hierarchy(&keys)), expected);
        // Alone, 9 walks its own cycle; 10 after 9 reuses 9's chain.
        assert_eq!(rows(&h.hierarchy(&[9, 10])), vec![vec![9, 8], vec![10, 8]]);
        assert_eq!(rows(&h.hierarchy(&[10, 9])), vec![vec![10, 8, 9], vec![9]]);
        assert_eq!(h.is_in(&[5, 5, 6, 0], &[1, 3, 99, 0]), vec![true, false, true, false]);
    }

    #[test]
    fn null_value_stops_at_the_parent() {
        let links = vec![(1, Some(0)), (2, Some(1)), (4, Some(2)), (99, Some(2)), (6, Some(99)), (3, None)];
        let h = Hierarchy::new(links, Some(2), KeyOrder::Ascending, 6);
        assert_eq!(rows(&h.hierarchy(&[1, 2, 4, 6, 3])), vec![vec![1, 0], vec![2, 1, 0], vec![4], vec![6, 99], vec![3]]);
        assert_eq!(rows(&h.descendants(&[2, 0], 1)), vec![vec![4, 99], vec![1]]);
    }

    #[test]
    fn descendants_match_clickhouse() {
        let h = sample(KeyOrder::Ascending);
        let keys: Vec<u64> = (0..12).collect();
        assert_eq!(
            rows(&h.descendants(&keys, 0)),
            vec![vec![1, 2, 3, 4, 5], vec![2, 3, 4, 5], vec![4, 5], vec![], vec![5], vec![], vec![], vec![7], vec![9, 10, 8], vec![8, 9, 10], vec![], vec![]]
        );
        assert_eq!(
            rows(&h.descendants(&keys, 1)),
            vec![vec![1], vec![2, 3], vec![4], vec![], vec![5], vec![], vec![], vec![7], vec![9, 10], vec![8], vec![], vec![]]
        );
        assert_eq!(rows(&h.descendants(&[0, 1, 8, 9], 2)), vec![vec![2, 3], vec![4], vec![8], vec![9, 10]]);
    }

    #[test]
    fn hashed_children_follow_clickhouse_hash_table_cells() {
        // chdb: keys 1..=40 under parent 0 in a HASHED dictionary.
        let order = clickhouse_hash_table_order(1..=40u64, 40);
        assert_eq!(
            order,
            vec![10, 33, 14, 1, 15, 30, 18, 12, 17, 22, 16, 13, 28, 36, 39, 6, 21, 4, 5, 34, 32, 8, 24, 19, 23, 29, 31, 35, 11, 3, 38, 9, 7, 25, 20, 2, 37, 27, 26, 40]
        );
        let h = sample(KeyOrder::ClickHouseHashTable);
        assert_eq!(rows(&h.descendants(&[0, 1, 8], 0)), vec![vec![1, 3, 2, 4, 5], vec![3, 2, 4, 5], vec![10, 9, 8]]);
    }
}
