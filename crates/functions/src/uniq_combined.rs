//! `uniqCombined`, `uniqCombined64` and `uniqHLL12`: ClickHouse's approximate distinct
//! counts with its data structures, so that results and `-State` bytes equal ClickHouse's.
//!
//! Each row becomes a key (see [`KeyKind`]); a state holds the distinct keys in one of
//! three containers, moving up when one is outgrown:
//! * small: up to 16 keys in insertion order (`SmallSet`), exact;
//! * medium (`uniqCombined*` only): ClickHouse's open-addressing `HashSet` with the key as
//!   its own hash (256 cells at first, doubling when more than half full, rehashed in
//!   place the way ClickHouse's `HashTable::resize` does, so the cell order, which the
//!   state bytes and merges follow, is ClickHouse's), up to 2^(K-5) keys (2^(K-4) for
//!   32-bit keys), exact; one more insert, even of a key already there, moves to large;
//! * large: a HyperLogLog counter of 2^K buckets (K = 17 for `uniqCombined`, 12 for
//!   `uniqHLL12`), ranks of 5 bits (6 bits when the hash is 64-bit), estimated with
//!   linear counting or, for K = 17, HyperLogLog++ bias correction
//!   ([`crate::uniq_combined_bias`]).
//!
//! Keys (ClickHouse's `AggregateFunctionUniqCombinedTraits` and the `uniqHLL12` traits):
//! * `uniqCombined`: numbers, dates, Enum, IPv4 as `intHash64` of the value widened to
//!   64 bits (floats as their bits, -0 as 0), kept as 32 bits (`uniqCombined64`: 64);
//!   String/FixedString as CityHash64 and IPv6 as CityHash64 of its 16 bytes, always 64
//!   bits; UUID as intHash64 of its two 64-bit halves xor-ed; several arguments or a tuple as the combined
//!   CityHash of [`crate::uniq`], truncated to the key width. The HyperLogLog uses the key
//!   itself as the hash.
//! * `uniqHLL12`: a number is kept as itself at its own width (a float goes through
//!   ClickHouse's conversion of its bit pattern, -0 included, to a float value); String, UUID and
//!   several arguments as 64-bit hashes. The HyperLogLog hashes the key's bytes with
//!   `intHash32` (several arguments: takes the low 32 bits of the hash).
//!
//! State layout: `uniqCombined*` writes a container byte (1 small, 2 medium, 3 large)
//! then a VarUInt count and the keys (medium: the zero key first, then the cells in
//! order), or the large counter's memory image: the packed ranks, the count of buckets at
//! each rank (UInt32 each) and the number of empty buckets (UInt16 below 2^16 buckets,
//! else UInt32). `uniqHLL12` writes a Bool "large" then the small set or the counter.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, BooleanArray, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float32Type, Float64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility};
use granary_common::hash::city_hash64;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::states::put_varuint;
use crate::args::{ch_error, Arity, DfResult};
use crate::func::result_field;
use crate::uniq::{argument_types, fmix64, single_keys, RowHasher};
use crate::uniq_combined_bias::{BIASES, RAW_ESTIMATES, THRESHOLD};

const SMALL_SET_SIZE: usize = 16;
/// ClickHouse's `HashTableGrowerWithPrecalculation` default: 2^8 cells at first.
const MEDIUM_INITIAL_DEGREE: u8 = 8;

/// ClickHouse's `intHash32` without salt (the `IntHash32` hasher of its hash tables).
pub(crate) fn int_hash32(x: u64) -> u32 {
    let mut key = (!x).wrapping_add(x << 18);
    key ^= key.rotate_right(31);
    key = key.wrapping_mul(21);
    key ^= key.rotate_right(11);
    key = key.wrapping_add(key << 6);
    key ^= key.rotate_right(22);
    key as u32
}

fn corrupt(message: impl fmt::Display) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::INCORRECT_DATA, format!("Cannot read cardinality estimator state: {message}"))
}


fn get_varuint(input: &mut &[u8]) -> DfResult<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first().ok_or_else(|| corrupt("unexpected end of data"))?;
        *input = rest;
        v |= ((byte & 0x7f) as u64) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(corrupt("bad VarUInt"))
}

fn take<'a>(input: &mut &'a [u8], n: usize) -> DfResult<&'a [u8]> {
    if input.len() < n {
        return Err(corrupt("unexpected end of data"));
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

// ------------------------------------------------------------------ configuration

/// Which function a state belongs to, and its fixed parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Spec {
    /// `uniqHLL12` (no medium container, Bool container flag) rather than `uniqCombined*`.
    hll12: bool,
    /// Bytes of a key in the state: 1..8.
    key_bytes: usize,
    /// HyperLogLog precision: 2^precision buckets.
    precision: u8,
    /// The HyperLogLog hash is 64-bit (6-bit ranks) rather than 32-bit.
    hash64: bool,
    /// The HyperLogLog hashes keys with `intHash32` (else the key is the hash).
    int_hash: bool,
}

impl Spec {
    fn medium_max(&self) -> usize {
        if self.hll12 {
            0
        } else {
            1 << (self.precision as u32 - 5 + u32::from(self.key_bytes == 4))
        }
    }
    fn key_mask(&self) -> u64 {
        if self.key_bytes >= 8 {
            u64::MAX
        } else {
            (1u64 << (self.key_bytes * 8)) - 1
        }
    }
    fn max_rank(&self) -> u8 {
        (if self.hash64 { 64 } else { 32 }) - self.precision + 1
    }
    fn rank_width(&self) -> usize {
        if self.hash64 {
            6
        } else {
            5
        }
    }
    fn buckets(&self) -> usize {
        1 << self.precision
    }
    /// Bytes of the large counter's memory image.
    fn large_bytes(&self) -> usize {
        let ranks = (self.buckets() * self.rank_width()).div_ceil(8);
        let zeros = if self.buckets() >= 1 << 16 { 4 } else { 2 };
        ranks + (self.max_rank() as usize + 1) * 4 + zeros
    }
}

/// How a row's value becomes a key.
#[derive(Debug, Clone, PartialEq)]
enum KeyKind {
    /// `uniqCombined` over a number: intHash64 of the widened value.
    HashedNumber,
    /// `uniqHLL12` over an integer-like value of this many bytes: the value itself.
    Integer(usize),
    /// `uniqHLL12` over floats: the bits converted to a float value.
    Float32,
    Float64,
    /// CityHash64 of the bytes (String, FixedString, IPv6).
    City,
    /// intHash64 of the UUID's halves xor-ed (ClickHouse's `DefaultHash64`).
    Uuid,
    /// Several arguments or a tuple.
    Variadic,
}

/// The bytes of a one-argument integer-like type (Enum as its underlying integer).
fn number_width(ty: &ChType) -> Option<usize> {
    Some(match ty {
        ChType::UInt8 | ChType::Int8 | ChType::Bool | ChType::Enum8(_) => 1,
        ChType::UInt16 | ChType::Int16 | ChType::Date | ChType::Enum16(_) => 2,
        ChType::UInt32 | ChType::Int32 | ChType::Date32 | ChType::DateTime(_) | ChType::IPv4 => 4,
        ChType::UInt64 | ChType::Int64 => 8,
        _ => return None,
    })
}

fn key_kind(hll12: bool, types: &[ChType]) -> KeyKind {
    let [ty] = types else { return KeyKind::Variadic };
    match ty {
        ChType::Float32 if hll12 => KeyKind::Float32,
        ChType::Float64 if hll12 => KeyKind::Float64,
        ChType::Float32 | ChType::Float64 => KeyKind::HashedNumber,
        ChType::String | ChType::FixedString(_) | ChType::IPv6 => KeyKind::City,
        ChType::Uuid => KeyKind::Uuid,
        t => match number_width(t) {
            Some(width) if hll12 => KeyKind::Integer(width),
            Some(_) => KeyKind::HashedNumber,
            None => KeyKind::Variadic,
        },
    }
}

/// ClickHouse's argument types as the function sees them (Nullable and LowCardinality off).
fn plain_types(types: &[ChType]) -> Vec<ChType> {
    types.iter().map(|t| t.strip_nullable().base().strip_nullable().clone()).collect()
}

/// The spec of function `function` (`uniqCombined`, `uniqCombined64`, `uniqHLL12`) over
/// `types` with precision `k` (`uniqCombined` only).
fn spec_of(function: &str, types: &[ChType], k: u8) -> Option<(Spec, KeyKind)> {
    let hll12 = function == "uniqHLL12";
    let wide = match function {
        "uniqCombined" => false,
        "uniqCombined64" => true,
        "uniqHLL12" => false,
        _ => return None,
    };
    let kind = key_kind(hll12, &plain_types(types));
    let spec = if hll12 {
        let key_bytes = match kind {
            KeyKind::Integer(width) => width,
            KeyKind::Float32 => 4,
            _ => 8,
        };
        Spec { hll12, key_bytes, precision: 12, hash64: false, int_hash: kind != KeyKind::Variadic }
    } else {
        // Strings and IPv6 keep their 64-bit hash even in the 32-bit function.
        let key_bytes = if wide || kind == KeyKind::City { 8 } else { 4 };
        Spec { hll12, key_bytes, precision: k, hash64: key_bytes == 8, int_hash: false }
    };
    Some((spec, kind))
}

/// The spec of a state's function as named in its type: `uniqCombined(12)` has K = 12.
fn spec_of_name(name: &str, args: &[ChType]) -> Option<(Spec, KeyKind)> {
    let (function, k) = match name.split_once('(') {
        Some((function, rest)) => (function, rest.trim_end_matches(')').trim().parse::<f64>().ok()?.trunc() as u8),
        None => (name, 17),
    };
    spec_of(function, args, k)
}

/// The bytes of a serialized state at the start of `input` of `function` over `args`
/// (for Native/RowBinary, which do not frame states).
pub(crate) fn state_len(function: &str, args: &[ChType], input: &[u8]) -> DfResult<usize> {
    let (spec, _) = spec_of_name(function, args).ok_or_else(|| corrupt(format!("unknown function {function}")))?;
    let mut rest = input;
    Estimator::read(spec, &mut rest)?;
    Ok(input.len() - rest.len())
}

/// Whether a serialized state holds no key.
pub(crate) fn state_is_empty(function: &str, args: &[ChType], bytes: &[u8]) -> bool {
    let Some((spec, _)) = spec_of_name(function, args) else { return true };
    let mut input = bytes;
    Estimator::read(spec, &mut input).map_or(true, |e| e.is_empty())
}

/// The state of an empty estimator.
pub(crate) fn empty_state(function: &str, args: &[ChType]) -> Vec<u8> {
    let spec = spec_of_name(function, args).map_or(Spec { hll12: false, key_bytes: 4, precision: 17, hash64: false, int_hash: false }, |s| s.0);
    let mut out = Vec::new();
    Estimator::new(spec).write(&mut out);
    out
}

pub(crate) fn is_cardinality(function: &str) -> bool {
    let base = function.split_once('(').map_or(function, |(base, _)| base);
    matches!(base, "uniqCombined" | "uniqCombined64" | "uniqHLL12")
}

// ------------------------------------------------------------------ containers

/// ClickHouse's `HashSet` with `TrivialHash` (see the module docs).
#[derive(Debug, Clone)]
struct MediumSet {
    buf: Vec<u64>,
    degree: u8,
    /// Keys held, the zero key included.
    len: usize,
    has_zero: bool,
}

impl MediumSet {
    fn with_degree(degree: u8) -> Self {
        MediumSet { buf: vec![0; 1 << degree], degree, len: 0, has_zero: false }
    }

    fn mask(&self) -> usize {
        self.buf.len() - 1
    }

    fn find(&self, x: u64) -> usize {
        let mut i = x as usize & self.mask();
        while self.buf[i] != 0 && self.buf[i] != x {
            i = (i + 1) & self.mask();
        }
        i
    }

    fn insert(&mut self, x: u64) {
        if x == 0 {
            self.len += usize::from(!self.has_zero);
            self.has_zero = true;
            return;
        }
        let i = self.find(x);
        if self.buf[i] == x {
            return;
        }
        self.buf[i] = x;
        self.len += 1;
        if self.len > 1 << (self.degree - 1) {
            self.resize();
        }
    }

    /// Doubles the table and moves keys as `HashTable::resize` does: each key of the old
    /// half in order to where a lookup would find it first, then the chain that wrapped
    /// past the old end.
    fn resize(&mut self) {
        let old_size = self.buf.len();
        self.degree += 1;
        self.buf.resize(1 << self.degree, 0);
        let mut i = 0;
        while i < self.buf.len() && (i < old_size || self.buf[i] != 0) {
            let x = self.buf[i];
            if x != 0 && x as usize & self.mask() != i {
                let place = self.find(x);
                if self.buf[place] == 0 {
                    self.buf[place] = x;
                    self.buf[i] = 0;
                }
            }
            i += 1;
        }
    }

    /// Keys in ClickHouse's iteration order: the zero key first, then the cells.
    fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.has_zero.then_some(0).into_iter().chain(self.buf.iter().copied().filter(|x| *x != 0))
    }

    /// A table sized for `n` keys at once, as ClickHouse's `HashTable::read` makes it.
    fn for_len(n: usize) -> Self {
        let degree = if n <= 1 { MEDIUM_INITIAL_DEGREE } else { MEDIUM_INITIAL_DEGREE.max((n - 1).ilog2() as u8 + 2) };
        MediumSet::with_degree(degree)
    }
}

/// A HyperLogLog counter: the rank (0 for none) of each bucket.
#[derive(Debug, Clone)]
struct Hll {
    ranks: Vec<u8>,
}

impl Hll {
    fn new(spec: Spec) -> Self {
        Hll { ranks: vec![0; spec.buckets()] }
    }

    fn insert(&mut self, spec: Spec, key: u64) {
        let hash = if spec.int_hash {
            int_hash32(key) as u64
        } else if spec.hash64 {
            key
        } else {
            key & 0xFFFF_FFFF
        };
        let bucket = (hash & (spec.buckets() as u64 - 1)) as usize;
        let tail = hash >> spec.precision;
        let max_rank = spec.max_rank();
        let rank = if tail == 0 { max_rank } else { (tail.trailing_zeros() as u8 + 1).min(max_rank) };
        if rank > self.ranks[bucket] {
            self.ranks[bucket] = rank;
        }
    }

    fn merge(&mut self, other: &Hll) {
        for (mine, theirs) in self.ranks.iter_mut().zip(&other.ranks) {
            *mine = (*mine).max(*theirs);
        }
    }

    fn rank_counts(&self, spec: Spec) -> Vec<u32> {
        let mut counts = vec![0u32; spec.max_rank() as usize + 1];
        for &r in &self.ranks {
            counts[r as usize] += 1;
        }
        counts
    }

    fn size(&self, spec: Spec) -> u64 {
        let m = spec.buckets() as f64;
        let counts = self.rank_counts(spec);
        // The harmonic sum, accumulated from the highest rank down as ClickHouse's
        // stable denominator does (exact while it fits 53 bits).
        let mut denominator = counts[counts.len() - 1] as f64;
        for &c in counts[..counts.len() - 1].iter().rev() {
            denominator /= 2.0;
            denominator += c as f64;
        }
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let raw = alpha * m * m / denominator;
        let zeros = counts[0];
        let linear = |estimate: f64| if zeros != 0 { m * (m.ln() - (zeros as f64).ln()) } else { estimate };
        let fixed = if raw > 4294967296.0 / 30.0 {
            raw
        } else if spec.precision == 17 && !spec.hll12 {
            let corrected = if raw <= 5.0 * m { raw - bias(raw) } else { raw };
            let linear = linear(corrected);
            if linear < THRESHOLD {
                linear
            } else {
                corrected
            }
        } else if raw <= 2.5 * m {
            linear(raw)
        } else {
            raw
        };
        (fixed + 0.5) as u64
    }

    fn write(&self, spec: Spec, out: &mut Vec<u8>) {
        let width = spec.rank_width();
        let start = out.len();
        out.resize(start + (spec.buckets() * width).div_ceil(8), 0);
        let packed = &mut out[start..];
        for (bucket, &rank) in self.ranks.iter().enumerate() {
            let bit = bucket * width;
            let value = (rank as u16) << (bit % 8);
            packed[bit / 8] |= value as u8;
            if (bit % 8) + width > 8 {
                packed[bit / 8 + 1] |= (value >> 8) as u8;
            }
        }
        let counts = self.rank_counts(spec);
        for c in &counts {
            out.extend_from_slice(&c.to_le_bytes());
        }
        if spec.buckets() >= 1 << 16 {
            out.extend_from_slice(&counts[0].to_le_bytes());
        } else {
            out.extend_from_slice(&(counts[0] as u16).to_le_bytes());
        }
    }

    fn read(spec: Spec, input: &mut &[u8]) -> DfResult<Hll> {
        let bytes = take(input, spec.large_bytes())?;
        let width = spec.rank_width();
        let mask = (1u16 << width) - 1;
        let mut ranks = vec![0u8; spec.buckets()];
        for (bucket, rank) in ranks.iter_mut().enumerate() {
            let bit = bucket * width;
            let low = bytes[bit / 8] as u16;
            let high = if (bit % 8) + width > 8 { bytes[bit / 8 + 1] as u16 } else { 0 };
            let r = (((high << 8) | low) >> (bit % 8)) & mask;
            if r > spec.max_rank() as u16 {
                return Err(corrupt(format!("rank {r} exceeds {}", spec.max_rank())));
            }
            *rank = r as u8;
        }
        // The rank counts and the zero count that follow are derived from the ranks.
        Ok(Hll { ranks })
    }
}

/// HyperLogLog++ bias of a raw estimate: linear interpolation in ClickHouse's table.
fn bias(raw: f64) -> f64 {
    let index = RAW_ESTIMATES.partition_point(|e| *e < raw);
    if index == RAW_ESTIMATES.len() {
        return BIASES[BIASES.len() - 1];
    }
    if RAW_ESTIMATES[index] == raw {
        return BIASES[index];
    }
    if index == 0 {
        return BIASES[0];
    }
    let (e1, e2) = (RAW_ESTIMATES[index - 1], RAW_ESTIMATES[index]);
    let (b1, b2) = (BIASES[index - 1], BIASES[index]);
    let slope = (b2 - b1) / (e2 - e1);
    b1 + slope * (raw - e1)
}

/// One group's state.
#[derive(Debug, Clone)]
enum Container {
    Small(Vec<u64>),
    Medium(MediumSet),
    Large(Box<Hll>),
}

#[derive(Debug, Clone)]
pub(crate) struct Estimator {
    spec: Spec,
    container: Container,
}

impl Estimator {
    fn new(spec: Spec) -> Self {
        Estimator { spec, container: Container::Small(Vec::new()) }
    }

    fn is_empty(&self) -> bool {
        matches!(&self.container, Container::Small(keys) if keys.is_empty())
    }

    fn to_medium(&mut self) {
        if let Container::Small(keys) = &self.container {
            let mut medium = MediumSet::with_degree(MEDIUM_INITIAL_DEGREE);
            for &k in keys {
                medium.insert(k);
            }
            self.container = Container::Medium(medium);
        }
    }

    fn to_large(&mut self) {
        let mut hll = Hll::new(self.spec);
        match &self.container {
            Container::Small(keys) => keys.iter().for_each(|&k| hll.insert(self.spec, k)),
            Container::Medium(set) => set.keys().for_each(|k| hll.insert(self.spec, k)),
            Container::Large(_) => return,
        }
        self.container = Container::Large(Box::new(hll));
    }

    fn insert(&mut self, key: u64) {
        let medium_max = self.spec.medium_max();
        match &mut self.container {
            Container::Small(keys) => {
                if keys.contains(&key) {
                    return;
                }
                if keys.len() < SMALL_SET_SIZE {
                    keys.push(key);
                    return;
                }
                if medium_max == 0 {
                    self.to_large();
                } else {
                    self.to_medium();
                }
                self.insert(key);
            }
            Container::Medium(set) => {
                if set.len < medium_max {
                    set.insert(key);
                } else {
                    self.to_large();
                    self.insert(key);
                }
            }
            Container::Large(hll) => hll.insert(self.spec, key),
        }
    }

    fn merge(&mut self, other: &Estimator) {
        let rank = |c: &Container| match c {
            Container::Small(_) => 0,
            Container::Medium(_) => 1,
            Container::Large(_) => 2,
        };
        if rank(&other.container) > rank(&self.container) {
            match other.container {
                Container::Medium(_) => self.to_medium(),
                _ => self.to_large(),
            }
        }
        match &other.container {
            Container::Small(keys) => keys.iter().for_each(|&k| self.insert(k)),
            Container::Medium(set) => set.keys().for_each(|k| self.insert(k)),
            Container::Large(theirs) => {
                if let Container::Large(mine) = &mut self.container {
                    mine.merge(theirs);
                }
            }
        }
    }

    fn size(&self) -> u64 {
        match &self.container {
            Container::Small(keys) => keys.len() as u64,
            Container::Medium(set) => set.len as u64,
            Container::Large(hll) => hll.size(self.spec),
        }
    }

    fn write_keys(&self, keys: impl Iterator<Item = u64>, len: usize, out: &mut Vec<u8>) {
        put_varuint(out, len as u64);
        for k in keys {
            out.extend_from_slice(&k.to_le_bytes()[..self.spec.key_bytes]);
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        let tag = match (&self.container, self.spec.hll12) {
            (Container::Small(_), true) => 0,
            (Container::Large(_), true) => 1,
            (Container::Small(_), false) => 1,
            (Container::Medium(_), _) => 2,
            (Container::Large(_), false) => 3,
        };
        out.push(tag);
        match &self.container {
            Container::Small(keys) => self.write_keys(keys.iter().copied(), keys.len(), out),
            Container::Medium(set) => self.write_keys(set.keys(), set.len, out),
            Container::Large(hll) => hll.write(self.spec, out),
        }
    }

    fn read_keys(spec: Spec, input: &mut &[u8], max: usize) -> DfResult<Vec<u64>> {
        let n = get_varuint(input)?;
        if n > max as u64 {
            return Err(corrupt(format!("{n} keys is more than {max}")));
        }
        let bytes = take(input, n as usize * spec.key_bytes)?;
        Ok(bytes
            .chunks_exact(spec.key_bytes)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect())
    }

    fn read(spec: Spec, input: &mut &[u8]) -> DfResult<Estimator> {
        let tag = take(input, 1)?[0];
        let container = match (tag, spec.hll12) {
            (0, true) | (1, false) => Container::Small(Self::read_keys(spec, input, SMALL_SET_SIZE)?),
            (2, false) => {
                let keys = Self::read_keys(spec, input, spec.medium_max())?;
                let mut set = MediumSet::for_len(keys.len());
                keys.into_iter().for_each(|k| set.insert(k));
                Container::Medium(set)
            }
            (1, true) | (3, false) => Container::Large(Box::new(Hll::read(spec, input)?)),
            _ => return Err(corrupt(format!("unknown container type {tag}"))),
        };
        Ok(Estimator { spec, container })
    }

    fn from_bytes(spec: Spec, bytes: &[u8]) -> DfResult<Estimator> {
        let mut input = bytes;
        let e = Estimator::read(spec, &mut input)?;
        if !input.is_empty() {
            return Err(corrupt(format!("{} extra bytes", input.len())));
        }
        Ok(e)
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out);
        out
    }

    fn heap_size(&self) -> usize {
        match &self.container {
            Container::Small(keys) => keys.capacity() * 8,
            Container::Medium(set) => set.buf.capacity() * 8,
            Container::Large(hll) => hll.ranks.capacity(),
        }
    }
}

// ------------------------------------------------------------------ keys of rows

#[derive(Debug, Clone)]
struct KeyMaker {
    spec: Spec,
    kind: KeyKind,
    variadic: Option<RowHasher>,
    types: Vec<ChType>,
}

impl KeyMaker {
    fn new(spec: Spec, kind: KeyKind, types: Vec<ChType>) -> Self {
        let variadic = (kind == KeyKind::Variadic).then(|| RowHasher::variadic(types.clone()));
        KeyMaker { spec, kind, variadic, types }
    }

    /// The key of every row, or None for a row with a NULL argument.
    fn keys(&self, values: &[ArrayRef]) -> DfResult<Vec<Option<u64>>> {
        let rows = values.first().map_or(0, |v| v.len());
        if values.iter().any(|v| v.data_type() == &DataType::Null) {
            return Ok(vec![None; rows]);
        }
        let mask = self.spec.key_mask();
        if let Some(hasher) = &self.variadic {
            return Ok(hasher.variadic_hashes(values)?.into_iter().map(|k| k.map(|k| k & mask)).collect());
        }
        let (Some(array), Some(ty)) = (values.first(), self.types.first()) else { return Ok(vec![None; rows]) };
        Ok(match self.kind {
            KeyKind::City => match array.data_type() {
                DataType::FixedSizeBinary(_) => array.as_fixed_size_binary().iter().map(|v| v.map(city_hash64)).collect(),
                _ => single_keys(array, ty)?,
            },
            KeyKind::Uuid => {
                let binary = array.as_fixed_size_binary_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "UUID must be FixedSizeBinary(16)"))?;
                binary
                    .iter()
                    .map(|v| {
                        v.and_then(|b| {
                            // ClickHouse's `DefaultHash64` of a UUID: intHash64 of its two
                            // halves xor-ed (Granary keeps the text's byte order).
                            let high = u64::from_be_bytes(b.get(..8)?.try_into().ok()?);
                            let low = u64::from_be_bytes(b.get(8..16)?.try_into().ok()?);
                            Some(fmix64(high ^ low) & mask)
                        })
                    })
                    .collect()
            }
            KeyKind::HashedNumber => single_keys(array, ty)?.into_iter().map(|k| k.map(|k| fmix64(k) & mask)).collect(),
            KeyKind::Integer(_) => single_keys(array, ty)?.into_iter().map(|k| k.map(|k| k & mask)).collect(),
            // The bit pattern (-0 kept) converted to a float value, as ClickHouse's
            // set of floats receives it.
            KeyKind::Float32 => cast(array, &DataType::Float32)?
                .as_primitive::<Float32Type>()
                .iter()
                .map(|v| v.map(|v| ((v.to_bits() as u64) as f32).to_bits() as u64))
                .collect(),
            KeyKind::Float64 => cast(array, &DataType::Float64)?.as_primitive::<Float64Type>().iter().map(|v| v.map(|v| (v.to_bits() as f64).to_bits())).collect(),
            KeyKind::Variadic => vec![None; rows],
        })
    }
}

// ------------------------------------------------------------------ the aggregates

/// `uniqCombined`, `uniqCombined64` or `uniqHLL12`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) struct UniqCombined {
    /// `uniqCombined`, `uniqCombined64` or `uniqHLL12`.
    function: &'static str,
    /// The name with the parameter, as ClickHouse prints it: `uniqCombined(12)`.
    name: String,
    /// The HyperLogLog precision of `uniqCombined*` (ignored by `uniqHLL12`).
    k: u8,
    signature: Signature,
}

impl UniqCombined {
    pub(crate) fn new(function: &'static str) -> Self {
        UniqCombined { function, name: function.to_string(), k: 17, signature: Signature::user_defined(Volatility::Immutable) }
    }

    /// `uniqCombined(K)` / `uniqCombined64(K)`: K in 12..=20, 17 when not given.
    fn with_params(function: &'static str, params: &[ScalarValue]) -> DfResult<Self> {
        let k = match params {
            [] => return Ok(UniqCombined::new(function)),
            [p] => match p {
                ScalarValue::UInt64(Some(v)) => *v as f64,
                ScalarValue::Int64(Some(v)) => *v as f64,
                ScalarValue::Float64(Some(v)) => v.trunc(),
                other => {
                    return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot convert {} to unsigned long", other.data_type())));
                }
            },
            _ => return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {function} requires one parameter or less."))),
        };
        if !(12.0..=20.0).contains(&k) {
            return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Parameter for aggregate function {function} is out of range: [12, 20].")));
        }
        let name = crate::parametric::parametric_name(function, params);
        Ok(UniqCombined { function, name, k: k as u8, signature: Signature::user_defined(Volatility::Immutable) })
    }

    /// An argument that is always NULL (`Nothing`) makes ClickHouse's `uniqCombined` NULL;
    /// `uniqHLL12` returns its default, 0, instead.
    fn only_null(&self, fields: &[FieldRef]) -> bool {
        self.function != "uniqHLL12" && fields.iter().any(|f| f.data_type() == &DataType::Null)
    }

    fn key_maker(&self, args: &AccumulatorArgs) -> DfResult<KeyMaker> {
        let types = argument_types(args);
        let (spec, kind) = spec_of(self.function, &types, self.k).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, format!("unknown function {}", self.name)))?;
        Ok(KeyMaker::new(spec, kind, types))
    }
}

/// The functions without parameters (`uniqCombined*` are parametric families, see
/// [`uniq_combined_family`]).
pub(crate) fn aggregates() -> Vec<UniqCombined> {
    vec![UniqCombined::new("uniqHLL12")]
}

/// The `uniqCombined` family for [`crate::parametric::FAMILIES`].
pub(crate) fn uniq_combined_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    Ok(datafusion::logical_expr::AggregateUDF::new_from_impl(UniqCombined::with_params("uniqCombined", params)?))
}

/// The `uniqCombined64` family for [`crate::parametric::FAMILIES`].
pub(crate) fn uniq_combined64_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    Ok(datafusion::logical_expr::AggregateUDF::new_from_impl(UniqCombined::with_params("uniqCombined64", params)?))
}

impl AggregateUDFImpl for UniqCombined {
    fn name(&self) -> &str {
        &self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        Ok(granary_types::plain_arguments(arg_types))
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::UInt64)
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> DfResult<FieldRef> {
        Arity::at_least(1).check(&self.name, arg_fields.len())?;
        if self.only_null(arg_fields) {
            return Ok(Arc::new(result_field(&self.name, &ChType::Nullable(Box::new(ChType::Nothing)))));
        }
        Ok(Arc::new(result_field(&self.name, &ChType::UInt64)))
    }
    fn is_nullable(&self) -> bool {
        false
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new(format_state_name(args.name, "estimator"), DataType::Binary, true))])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let keys = self.key_maker(&args)?;
        let nothing = self.only_null(args.expr_fields);
        Ok(Box::new(CombinedAccumulator { estimator: Estimator::new(keys.spec), keys, nothing }))
    }
    fn groups_accumulator_supported(&self, _args: AccumulatorArgs) -> bool {
        true
    }
    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(CombinedGroups { estimators: Vec::new(), keys: self.key_maker(&args)?, nothing: self.only_null(args.expr_fields) }))
    }
    fn default_value(&self, _data_type: &DataType) -> DfResult<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(0)))
    }
}

#[derive(Debug)]
struct CombinedAccumulator {
    estimator: Estimator,
    keys: KeyMaker,
    /// The result is NULL (see `UniqCombined::only_null`).
    nothing: bool,
}

/// Merges every non-NULL serialized state of `states` into `into(row)`.
fn merge_states(spec: Spec, states: &ArrayRef, mut into: impl FnMut(usize) -> Option<usize>, estimators: &mut [Estimator]) -> DfResult<()> {
    let binary = states.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "cardinality estimator state must be Binary"))?;
    for row in 0..binary.len() {
        if binary.is_null(row) {
            continue;
        }
        let Some(target) = into(row) else { continue };
        let other = Estimator::from_bytes(spec, binary.value(row))?;
        estimators[target].merge(&other);
    }
    Ok(())
}

impl Accumulator for CombinedAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        for key in self.keys.keys(values)?.into_iter().flatten() {
            self.estimator.insert(key);
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let Some(states) = states.first() else { return Ok(()) };
        merge_states(self.keys.spec, states, |_| Some(0), std::slice::from_mut(&mut self.estimator))
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.estimator.to_bytes()))])
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        if self.nothing {
            return Ok(ScalarValue::Null);
        }
        Ok(ScalarValue::UInt64(Some(self.estimator.size())))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.estimator.heap_size()
    }
}

struct CombinedGroups {
    estimators: Vec<Estimator>,
    keys: KeyMaker,
    nothing: bool,
}

impl GroupsAccumulator for CombinedGroups {
    fn update_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], opt_filter: Option<&BooleanArray>, total_num_groups: usize) -> DfResult<()> {
        let spec = self.keys.spec;
        self.estimators.resize_with(total_num_groups, || Estimator::new(spec));
        let keys = self.keys.keys(values)?;
        for (row, (&group, key)) in group_indices.iter().zip(keys).enumerate() {
            let Some(key) = key else { continue };
            if opt_filter.is_some_and(|f| !f.is_valid(row) || !f.value(row)) {
                continue;
            }
            self.estimators[group].insert(key);
        }
        Ok(())
    }
    fn merge_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], total_num_groups: usize) -> DfResult<()> {
        let spec = self.keys.spec;
        self.estimators.resize_with(total_num_groups, || Estimator::new(spec));
        let Some(states) = values.first() else { return Ok(()) };
        merge_states(spec, states, |row| group_indices.get(row).copied(), &mut self.estimators)
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> DfResult<ArrayRef> {
        let estimators = emit_to.take_needed(&mut self.estimators);
        if self.nothing {
            return Ok(datafusion::arrow::array::new_null_array(&DataType::Null, estimators.len()));
        }
        Ok(Arc::new(UInt64Array::from_iter_values(estimators.iter().map(Estimator::size))))
    }
    fn state(&mut self, emit_to: EmitTo) -> DfResult<Vec<ArrayRef>> {
        let mut out = BinaryBuilder::new();
        for e in emit_to.take_needed(&mut self.estimators) {
            out.append_value(e.to_bytes());
        }
        Ok(vec![Arc::new(out.finish())])
    }
    /// Each row as a state of its own (when DataFusion skips partial aggregation).
    fn convert_to_state(&self, values: &[ArrayRef], opt_filter: Option<&BooleanArray>) -> DfResult<Vec<ArrayRef>> {
        let mut out = BinaryBuilder::new();
        for (row, key) in self.keys.keys(values)?.into_iter().enumerate() {
            let mut e = Estimator::new(self.keys.spec);
            if let Some(key) = key {
                if opt_filter.is_none_or(|f| f.is_valid(row) && f.value(row)) {
                    e.insert(key);
                }
            }
            out.append_value(e.to_bytes());
        }
        Ok(vec![Arc::new(out.finish())])
    }
    fn size(&self) -> usize {
        self.estimators.iter().map(|e| std::mem::size_of_val(e) + e.heap_size()).sum()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02X}")).collect()
    }

    fn combined(function: &str, ty: ChType) -> Spec {
        spec_of(function, &[ty], 17).unwrap().0
    }

    fn count(spec: Spec, keys: impl Iterator<Item = u64>) -> Estimator {
        let mut e = Estimator::new(spec);
        keys.for_each(|k| e.insert(k));
        e
    }

    fn numbers(spec: Spec, range: std::ops::Range<u64>) -> Estimator {
        count(spec, range.map(move |n| fmix64(n) & spec.key_mask()))
    }

    /// Results and bytes of ClickHouse 26.9 (chdb 4.4) over `numbers(n)`.
    #[test]
    fn uniq_combined_matches_clickhouse() {
        let u32s = combined("uniqCombined", ChType::UInt64);
        let u64s = combined("uniqCombined64", ChType::UInt64);
        assert_eq!(hex(&numbers(u32s, 0..3).to_bytes()), "0103000000002CCBC234E7830665");
        assert_eq!(numbers(u32s, 0..1_000_000).size(), 1_001_148);
        assert_eq!(numbers(u64s, 0..1_000_000).size(), 1_001_148);
        assert_eq!(numbers(u32s, 0..5000).size(), 5000);
        assert_eq!(numbers(u64s, 0..5000).size(), 5008);
        assert_eq!(numbers(u32s, 0..50_000).size(), 50_159);
        assert_eq!(numbers(u32s, 0..100_000).to_bytes().len(), 81_993);
        assert_eq!(numbers(u64s, 0..100_000).to_bytes().len(), 98_505);
        // Other precisions: no bias correction.
        let k = |function: &str, k: u8| spec_of(function, &[ChType::UInt64], k).unwrap().0;
        assert_eq!(numbers(k("uniqCombined", 12), 0..100_000).size(), 98_160);
        assert_eq!(numbers(k("uniqCombined", 20), 0..100_000).size(), 100_088);
        assert_eq!(numbers(k("uniqCombined64", 13), 0..100_000).size(), 99_542);
    }

    #[test]
    fn uniq_hll12_matches_clickhouse() {
        let spec = combined("uniqHLL12", ChType::UInt64);
        let e = count(spec, 0..1_000_000);
        assert_eq!(e.size(), 1_008_797);
        assert_eq!(e.to_bytes().len(), 2651);
        assert_eq!(count(spec, 0..5000).size(), 4613);
        assert_eq!(count(spec, 0..50_000).size(), 49_369);
        let u8s = combined("uniqHLL12", ChType::UInt8);
        assert_eq!(hex(&count(u8s, 0..3).to_bytes()), "0003000102");
    }

    #[test]
    fn states_round_trip_and_merge_like_one_pass() {
        for (function, n) in [("uniqCombined", 300u64), ("uniqCombined", 20_000), ("uniqCombined64", 3000), ("uniqHLL12", 10)] {
            let spec = combined(function, ChType::UInt64);
            let whole = numbers(spec, 0..n);
            let bytes = whole.to_bytes();
            assert_eq!(Estimator::from_bytes(spec, &bytes).unwrap().size(), whole.size());
            let mut merged = Estimator::new(spec);
            for part in 0..3 {
                merged.merge(&numbers(spec, (part * n / 3)..((part + 1) * n / 3)));
            }
            assert_eq!(merged.size(), whole.size(), "{function} {n}");
        }
        assert!(Estimator::from_bytes(combined("uniqCombined", ChType::UInt64), &[1, 17]).is_err());
        assert!(Estimator::from_bytes(combined("uniqCombined", ChType::UInt64), &[9]).is_err());
    }
}
