//! The iteration order of ClickHouse's `HashSet`/`HashMap` (`HashTable` with
//! `HashTableGrower`): open addressing with linear probing, 256 cells at first, growing
//! four-fold (two-fold from 2^23 cells) when more than half full, keys moved as
//! `HashTable::resize` moves them; the zero key lives outside the cells and comes first.
//! Aggregates whose results or states list a hash table's keys in its order keep one of
//! these beside their values.

/// `HashTableGrower`'s initial degree (256 cells).
pub(crate) const INITIAL_DEGREE: u8 = 8;

/// ClickHouse's `HashSet` with `HashTableGrower`, keys as bytes.
#[derive(Debug, Clone)]
pub(crate) struct KeySet {
    cells: Vec<Option<usize>>,
    degree: u8,
    keys: Vec<(Vec<u8>, u64)>,
    has_zero: bool,
}

impl KeySet {
    pub(crate) fn with_degree(degree: u8) -> Self {
        KeySet { cells: vec![None; 1 << degree], degree, keys: Vec::new(), has_zero: false }
    }

    /// `HashTable::reserve(n)`: the degree `HashTableGrower::set` gives.
    pub(crate) fn reserved(n: usize) -> Self {
        let degree = if n <= 1 { INITIAL_DEGREE } else { INITIAL_DEGREE.max((usize::BITS - (n - 1).leading_zeros()) as u8 + 1) };
        Self::with_degree(degree)
    }

    /// Bytes held, for accumulators' `size`.
    pub(crate) fn memory(&self) -> usize {
        self.cells.capacity() * 16 + self.keys.iter().map(|(k, _)| k.len() + 32).sum::<usize>()
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len() + usize::from(self.has_zero)
    }

    fn mask(&self) -> usize {
        self.cells.len() - 1
    }

    fn find(&self, key: &[u8], hash: u64) -> usize {
        let mut i = hash as usize & self.mask();
        while let Some(k) = self.cells[i] {
            if self.keys[k].0 == key {
                break;
            }
            i = (i + 1) & self.mask();
        }
        i
    }

    pub(crate) fn contains(&self, key: &Key) -> bool {
        match key {
            None => self.has_zero,
            Some((bytes, hash)) => self.cells[self.find(bytes, *hash)].is_some(),
        }
    }

    pub(crate) fn insert(&mut self, key: Key) {
        let Some((bytes, hash)) = key else {
            self.has_zero = true;
            return;
        };
        let i = self.find(&bytes, hash);
        if self.cells[i].is_some() {
            return;
        }
        self.cells[i] = Some(self.keys.len());
        self.keys.push((bytes, hash));
        if self.len() > 1 << (self.degree - 1) {
            self.resize();
        }
    }

    fn resize(&mut self) {
        let old_size = self.cells.len();
        self.degree += if self.degree >= 23 { 1 } else { 2 };
        self.cells.resize(1 << self.degree, None);
        let mut i = 0;
        while i < self.cells.len() && (i < old_size || self.cells[i].is_some()) {
            if let Some(k) = self.cells[i] {
                let (bytes, hash) = &self.keys[k];
                if *hash as usize & self.mask() != i {
                    let place = self.find(bytes, *hash);
                    if self.cells[place].is_none() {
                        self.cells[place] = Some(k);
                        self.cells[i] = None;
                    }
                }
            }
            i += 1;
        }
    }

    /// The keys in iteration order: the zero key, then the cells.
    pub(crate) fn iter(&self) -> Vec<Key> {
        self.has_zero.then_some(None).into_iter().chain(self.cells.iter().flatten().map(|&k| Some(self.keys[k].clone()))).collect()
    }
}

/// A key: None is the zero key of a number set, else the bytes and their hash.
pub(crate) type Key = Option<(Vec<u8>, u64)>;

