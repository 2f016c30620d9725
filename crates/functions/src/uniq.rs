//! `uniq`: ClickHouse's approximate count of distinct values, with the same algorithm so
//! that results (and `uniqState` bytes) match ClickHouse's.
//!
//! The state is a `UniquesHashSet` (the BJKST scheme): every value is reduced to a 32-bit
//! hash; the set keeps the hashes in an open-addressing table (linear probing, the empty
//! cell is 0, so the hash 0 is remembered by a flag) that doubles when half full. Past
//! 65536 hashes it stops growing and samples instead: `skip_degree` goes up by one and
//! only hashes divisible by `2^skip_degree` are kept (the low bits choose the sample,
//! the high bits the cell). The estimate scales the kept count back up and corrects for
//! collisions among 2^32 hash values. Below 65536 distinct hashes the count is exact.
//!
//! What is kept depends only on the set of hashes, not on the order of insertion or how
//! rows were split between partial states, so merging states (parallel aggregation,
//! `uniqMerge` over parts) gives exactly the result of one pass.
//!
//! How a value becomes the 64-bit key hashed into the set (ClickHouse's
//! `AggregateFunctionUniqTraits` and `UniqVariadicHash`):
//! * one numeric argument: the value widened to 64 bits (signed values sign-extended,
//!   floats as their bit pattern with -0 as 0); the set hashes it with the MurmurHash3
//!   finalizer and keeps the low 32 bits;
//! * one String/FixedString argument: `CityHash64` v1.0.2 of the bytes, then as above;
//! * several arguments or one tuple: `CityHash64` of each value's bytes (numbers at
//!   their ClickHouse width: Date 2 bytes, DateTime 4), combined left to right with
//!   `Hash128to64`; the set keeps the low 32 bits of that as the hash.
//! * several arguments or one tuple of which one is Nullable or a Tuple (whose value is
//!   not one run of bytes): one SipHash over each value's `updateHashWithValue` (see
//!   `update_hash_with_value`), of which the low 64 bits are the key.
//!
//! * an Array of fixed-size values (numbers, dates, Decimal, UUID, FixedString) is one
//!   run of bytes in ClickHouse (`ColumnArray::getDataAt`): `CityHash64` of its elements'
//!   bytes, as for several arguments; an Array of other values (String, Nullable, Array,
//!   Tuple) and a Map take the SipHash path.
//!
//! Rows where an argument is NULL are skipped (ClickHouse's -Null combinator); a NULL
//! tuple element is a value.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, BooleanArray, UInt64Array};
use datafusion::arrow::datatypes::{
    DataType, Date32Type, Date64Type, Field, FieldRef, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    TimeUnit, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility};
use granary_common::hash::{city_hash64, hash128_to_64, SipHasher};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ch_type_of_field, result_field};

/// Hashes beyond this many are thinned out (2^(MAX_SIZE_DEGREE - 1)).
const MAX_SIZE: u32 = 1 << 16;
/// The table never grows past 2^17 cells.
const MAX_SIZE_DEGREE: u8 = 17;
/// The low bits used for sampling; the cell is chosen by the bits above them.
const BITS_FOR_SKIP: u32 = 32 - MAX_SIZE_DEGREE as u32;
const INITIAL_SIZE_DEGREE: u8 = 4;
/// One past the thinning budget is the highest degree thinning can produce.
const MAX_SKIP_DEGREE: u8 = BITS_FOR_SKIP as u8 + 1;

/// The MurmurHash3 64-bit finalizer (ClickHouse's `intHash64` of `Hash.h`, which, unlike
/// the SQL function of that name, has no salt).
pub(crate) fn fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// CRC-32C of the 8 little-endian bytes of `x`, started from all ones and not inverted:
/// what the SSE4.2 `crc32` instruction gives ClickHouse's `intHashCRC32`.
fn int_hash_crc32(x: u64) -> u64 {
    let mut crc: u32 = 0xFFFF_FFFF;
    for byte in x.to_le_bytes() {
        crc ^= byte as u32;
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82F6_3B78 & (crc & 1).wrapping_neg());
        }
    }
    crc as u64
}

/// ClickHouse's `UniquesHashSet` over 32-bit hashes (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct UniquesHashSet {
    buf: Vec<u32>,
    /// Hashes kept, the zero hash included.
    m_size: u32,
    size_degree: u8,
    skip_degree: u8,
    has_zero: bool,
}

impl Default for UniquesHashSet {
    fn default() -> Self {
        UniquesHashSet { buf: vec![0; 1 << INITIAL_SIZE_DEGREE], m_size: 0, size_degree: INITIAL_SIZE_DEGREE, skip_degree: 0, has_zero: false }
    }
}

impl UniquesHashSet {
    fn mask(&self) -> usize {
        self.buf.len() - 1
    }

    fn max_fill(&self) -> u32 {
        1 << (self.size_degree - 1)
    }

    fn place(&self, x: u32) -> usize {
        (x >> BITS_FOR_SKIP) as usize & self.mask()
    }

    /// Whether the hash survives the current sampling.
    fn good(&self, hash: u32) -> bool {
        hash.trailing_zeros() >= self.skip_degree as u32
    }

    #[inline]
    fn insert_impl(&mut self, x: u32) {
        if x == 0 {
            self.m_size += u32::from(!self.has_zero);
            self.has_zero = true;
            return;
        }
        let mut i = self.place(x);
        while self.buf[i] != 0 && self.buf[i] != x {
            i = (i + 1) & self.mask();
        }
        if self.buf[i] == x {
            return;
        }
        self.buf[i] = x;
        self.m_size += 1;
    }

    /// Puts a hash known to be absent into its cell (after a resize or thinning).
    fn reinsert(&mut self, x: u32) {
        let mut i = self.place(x);
        while self.buf[i] != 0 {
            i = (i + 1) & self.mask();
        }
        self.buf[i] = x;
    }

    /// Drops the hashes the raised `skip_degree` no longer keeps, and moves the rest to
    /// where a lookup would start probing for them.
    fn rehash(&mut self) {
        for i in 0..self.buf.len() {
            let x = self.buf[i];
            if x == 0 {
                continue;
            }
            if !self.good(x) {
                self.buf[i] = 0;
                self.m_size -= 1;
            } else if i != self.place(x) {
                self.buf[i] = 0;
                self.reinsert(x);
            }
        }
        // A chain that wrapped around the end may have left hashes at the start out of place.
        let mut i = 0;
        while i < self.buf.len() && self.buf[i] != 0 {
            let x = self.buf[i];
            if i != self.place(x) {
                self.buf[i] = 0;
                self.reinsert(x);
            }
            i += 1;
        }
    }

    fn resize(&mut self) {
        let old_size = self.buf.len();
        self.size_degree += 1;
        self.buf.resize(1 << self.size_degree, 0);
        // Cells of the old half move right or stay; the chain that wrapped past the old
        // end continues after it and is processed too.
        let mut i = 0;
        while i < self.buf.len() && (i < old_size || self.buf[i] != 0) {
            let x = self.buf[i];
            if x != 0 {
                let mut place = self.place(x);
                if place != i {
                    while self.buf[place] != 0 && self.buf[place] != x {
                        place = (place + 1) & self.mask();
                    }
                    if self.buf[place] != x {
                        self.buf[place] = x;
                        self.buf[i] = 0;
                    }
                }
            }
            i += 1;
        }
    }

    #[inline]
    fn shrink_if_needed(&mut self) -> DfResult<()> {
        if self.m_size <= self.max_fill() {
            return Ok(());
        }
        self.grow_or_thin()
    }

    #[cold]
    #[inline(never)]
    fn grow_or_thin(&mut self) -> DfResult<()> {
        if self.m_size <= MAX_SIZE {
            self.resize();
            return Ok(());
        }
        while self.m_size > MAX_SIZE {
            if self.skip_degree >= MAX_SKIP_DEGREE {
                return Err(corrupt(format!("{} hashes remain at the maximum skip degree {MAX_SKIP_DEGREE}", self.m_size)));
            }
            self.skip_degree += 1;
            self.rehash();
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn insert(&mut self, hash: u32) -> DfResult<()> {
        if !self.good(hash) {
            return Ok(());
        }
        self.insert_impl(hash);
        self.shrink_if_needed()
    }

    pub(crate) fn merge(&mut self, other: &UniquesHashSet) -> DfResult<()> {
        if other.skip_degree > self.skip_degree {
            self.skip_degree = other.skip_degree;
            self.rehash();
        }
        if !self.has_zero && other.has_zero {
            self.has_zero = true;
            self.m_size += 1;
            self.shrink_if_needed()?;
        }
        for &x in &other.buf {
            if x != 0 && self.good(x) {
                self.insert_impl(x);
                self.shrink_if_needed()?;
            }
        }
        Ok(())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.m_size == 0
    }

    /// The estimate: the kept count scaled by the sampling, plus a pseudo-random
    /// remainder so results are not visibly multiples of a power of two, corrected for
    /// collisions of distinct values in 2^32 hashes.
    pub(crate) fn size(&self) -> u64 {
        if self.skip_degree == 0 {
            return self.m_size as u64;
        }
        let scale = 1u64 << self.skip_degree;
        let p32 = 1u64 << 32;
        let res = (self.m_size as u64 * scale + (int_hash_crc32(self.m_size as u64) & (scale - 1))).min(p32 - 1);
        (p32 as f64 * ((p32 as f64).ln() - ((p32 - res) as f64).ln())).round() as u64
    }

    /// ClickHouse's layout: UInt8 skip degree, VarUInt count, then the hashes as UInt32
    /// little-endian (the zero hash first when present).
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.push(self.skip_degree);
        let mut n = self.m_size as u64;
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
        if self.has_zero {
            out.extend_from_slice(&0u32.to_le_bytes());
        }
        for &x in self.buf.iter().filter(|x| **x != 0) {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }

    /// Reads a set written by [`UniquesHashSet::write`] (or ClickHouse) from the start of
    /// `input`, leaving the rest there.
    pub(crate) fn read(input: &mut &[u8]) -> DfResult<UniquesHashSet> {
        let (&skip_degree, rest) = input.split_first().ok_or_else(|| corrupt("unexpected end of data"))?;
        *input = rest;
        if skip_degree > MAX_SKIP_DEGREE {
            return Err(corrupt(format!("skip degree is {skip_degree}, which exceeds the maximum value of {MAX_SKIP_DEGREE}")));
        }
        let mut m_size = 0u64;
        let mut shift = 0;
        loop {
            let (&byte, rest) = input.split_first().ok_or_else(|| corrupt("unexpected end of data"))?;
            *input = rest;
            m_size |= ((byte & 0x7f) as u64) << shift;
            if byte & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift >= 64 {
                return Err(corrupt("bad size"));
            }
        }
        if m_size > MAX_SIZE as u64 {
            return Err(corrupt(format!("{m_size} hashes is more than {MAX_SIZE}")));
        }
        let bytes = m_size as usize * 4;
        if input.len() < bytes {
            return Err(corrupt("unexpected end of data"));
        }
        let (hashes, rest) = input.split_at(bytes);
        *input = rest;
        let size_degree = if m_size <= 1 { INITIAL_SIZE_DEGREE } else { INITIAL_SIZE_DEGREE.max(((m_size - 1) as f64).log2() as u8 + 2) };
        let mut set = UniquesHashSet { buf: vec![0; 1 << size_degree], m_size: m_size as u32, size_degree, skip_degree, has_zero: false };
        for chunk in hashes.chunks_exact(4) {
            let x = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if x == 0 {
                set.has_zero = true;
            } else {
                set.reinsert(x);
            }
        }
        Ok(set)
    }

    fn from_bytes(bytes: &[u8]) -> DfResult<UniquesHashSet> {
        let mut input = bytes;
        let set = UniquesHashSet::read(&mut input)?;
        if !input.is_empty() {
            return Err(corrupt(format!("{} extra bytes", input.len())));
        }
        Ok(set)
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.m_size as usize * 4);
        self.write(&mut out);
        out
    }
}

fn corrupt(message: impl fmt::Display) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::INCORRECT_DATA, format!("Cannot read UniquesHashSet: {message}"))
}

// ------------------------------------------------------------------ hashing rows

/// How the arguments of one `uniq` call become 32-bit hashes.
#[derive(Debug, Clone)]
pub(crate) struct RowHasher {
    /// ClickHouse's type of each argument (Nullable stripped): it decides byte widths.
    types: Vec<ChType>,
    /// Several arguments or a tuple: combined CityHash of the values' bytes.
    variadic: bool,
    /// Some argument (or tuple element) has no single run of bytes (Nullable, Array,
    /// Tuple, Map): ClickHouse then hashes all of them with SipHash instead
    /// (`UniqVariadicHash<true, ...>`, chosen by `isAllArgumentsContiguousInMemory`).
    sip: bool,
}

impl RowHasher {
    fn new(args: &AccumulatorArgs) -> Self {
        let types = argument_types(args);
        // ClickHouse widens only numbers, dates and strings of a single argument; any
        // other single argument (Decimal, DateTime64, ...) takes the several-arguments path.
        let variadic = types.len() != 1 || !types.iter().all(|t| {
            matches!(
                t,
                ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64
                    | ChType::Float32 | ChType::Float64 | ChType::Bool | ChType::String | ChType::FixedString(_) | ChType::Date | ChType::Date32
                    | ChType::DateTime(_)
            )
        });
        let sip = !all_contiguous(&types);
        RowHasher { variadic: variadic || sip, types, sip }
    }

    /// A hasher that always combines the values' CityHashes (ClickHouse's
    /// `UniqVariadicHash`), for functions whose one-argument types are decided elsewhere.
    pub(crate) fn variadic(types: Vec<ChType>) -> Self {
        let sip = !all_contiguous(&types);
        RowHasher { types, variadic: true, sip }
    }

    /// The 32-bit hash of every row, and which rows count: a row with a NULL argument
    /// has a meaningless hash and is not valid in the returned null buffer. Computed
    /// column by column over the values without per-row Options, which is most of the
    /// cost of `uniq` over simple types.
    fn hashes(&self, values: &[ArrayRef]) -> DfResult<(Vec<u32>, Option<NullBuffer>)> {
        if !self.variadic {
            let (Some(array), Some(ty)) = (values.first(), self.types.first()) else { return Ok((Vec::new(), None)) };
            if let Some(hashes) = single_hashes_fast(array) {
                return Ok((hashes, array.nulls().filter(|n| n.null_count() > 0).cloned()));
            }
            let keys = single_keys(array, ty)?;
            let nulls = NullBuffer::from_iter(keys.iter().map(Option::is_some));
            let hashes = keys.into_iter().map(|k| k.map_or(0, |k| fmix64(k) as u32)).collect();
            return Ok((hashes, (nulls.null_count() > 0).then_some(nulls)));
        }
        let (combined, nulls) = self.variadic_hashes_raw(values)?;
        Ok((combined.into_iter().map(|k| k as u32).collect(), nulls))
    }

    /// The 64-bit combined hash of every row (several arguments or a tuple).
    pub(crate) fn variadic_hashes(&self, values: &[ArrayRef]) -> DfResult<Vec<Option<u64>>> {
        let (combined, nulls) = self.variadic_hashes_raw(values)?;
        Ok(match nulls {
            None => combined.into_iter().map(Some).collect(),
            Some(nulls) => combined.into_iter().zip(nulls.iter()).map(|(k, valid)| valid.then_some(k)).collect(),
        })
    }

    /// The combined hashes, and the rows where every argument is non-NULL (None: all).
    fn variadic_hashes_raw(&self, values: &[ArrayRef]) -> DfResult<(Vec<u64>, Option<NullBuffer>)> {
        let rows = values.first().map_or(0, |v| v.len());
        if self.sip {
            return self.sip_hashes(values, rows);
        }
        // A tuple argument counts as its elements.
        let (columns, types): (Vec<ArrayRef>, Vec<ChType>) = match (values, self.types.as_slice()) {
            ([tuple], [ChType::Tuple(elements)]) => {
                let s = tuple.as_struct_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "uniq expects a tuple column"))?;
                let nulls_as_rows = s.nulls().cloned();
                let columns: Vec<ArrayRef> = s
                    .columns()
                    .iter()
                    .map(|c| crate::func::with_nulls(c, NullBuffer::union(nulls_as_rows.as_ref(), c.nulls())))
                    .collect::<DfResult<_>>()?;
                (columns, elements.iter().map(|(_, t)| t.strip_nullable().clone()).collect())
            }
            _ => (values.to_vec(), self.types.clone()),
        };
        let mut combined: Vec<u64> = vec![0; rows];
        let mut nulls: Option<NullBuffer> = None;
        for (index, (column, ty)) in columns.iter().zip(&types).enumerate() {
            let hashes = match value_byte_hashes_fast(column, ty) {
                Some(hashes) => {
                    nulls = NullBuffer::union(nulls.as_ref(), column.nulls());
                    hashes
                }
                None => {
                    let hashes = value_byte_hashes(column, ty)?;
                    let valid = NullBuffer::from_iter(hashes.iter().map(Option::is_some));
                    nulls = NullBuffer::union(nulls.as_ref(), Some(&valid));
                    hashes.into_iter().map(|h| h.unwrap_or(0)).collect()
                }
            };
            if index == 0 {
                combined = hashes;
            } else {
                for (acc, h) in combined.iter_mut().zip(hashes) {
                    *acc = hash128_to_64(h, *acc);
                }
            }
        }
        Ok((combined, nulls.filter(|n| n.null_count() > 0)))
    }
}

impl RowHasher {
    /// ClickHouse's `UniqVariadicHash<true, ...>`: one SipHash over every argument's
    /// `updateHashWithValue` (a tuple argument: over its elements), of which the sets
    /// keep the low 64 bits. A row is skipped when a top-level argument (or the tuple
    /// itself) is NULL; NULL tuple elements are hashed (as a flag byte).
    fn sip_hashes(&self, values: &[ArrayRef], rows: usize) -> DfResult<(Vec<u64>, Option<NullBuffer>)> {
        let mut hashers = vec![SipHasher::new(); rows];
        let mut nulls: Option<NullBuffer> = None;
        let feed = |column: &ArrayRef, ty: &ChType, hashers: &mut [SipHasher]| -> DfResult<()> {
            for (row, hasher) in hashers.iter_mut().enumerate() {
                update_hash_with_value(hasher, column, ty, row)?;
            }
            Ok(())
        };
        match (values, self.types.as_slice()) {
            ([tuple], [ChType::Tuple(elements)]) => {
                let s = tuple.as_struct_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "uniq expects a tuple column"))?;
                nulls = s.nulls().cloned();
                for (column, (_, ty)) in s.columns().iter().zip(elements) {
                    feed(column, ty, &mut hashers)?;
                }
            }
            _ => {
                for (column, ty) in values.iter().zip(&self.types) {
                    nulls = NullBuffer::union(nulls.as_ref(), column.nulls());
                    feed(column, ty, &mut hashers)?;
                }
            }
        }
        let combined = hashers.into_iter().map(|h| h.finish128().0).collect();
        Ok((combined, nulls.filter(|n| n.null_count() > 0)))
    }
}

/// ClickHouse's `isValueUnambiguouslyRepresentedInContiguousMemoryRegion` of every
/// argument (of the elements of a single tuple argument). An Array is one run of bytes
/// only when its elements have a fixed size.
fn all_contiguous(types: &[ChType]) -> bool {
    fn contiguous(ty: &ChType) -> bool {
        match ty {
            ChType::Array(inner) => fixed_size(inner),
            ChType::Map(..) | ChType::Nullable(_) | ChType::Tuple(_) | ChType::Nothing | ChType::AggregateFunction(..) => false,
            ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => contiguous(inner),
            _ => true,
        }
    }
    match types {
        [ChType::Tuple(elements)] => elements.iter().all(|(_, t)| contiguous(t)),
        _ => types.iter().all(contiguous),
    }
}

/// ClickHouse's `isValueUnambiguouslyRepresentedInFixedSizeContiguousMemoryRegion`.
fn fixed_size(ty: &ChType) -> bool {
    match ty {
        ChType::String | ChType::Nullable(_) | ChType::LowCardinality(_) | ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..) | ChType::Nothing => false,
        ChType::AggregateFunction(..) | ChType::SimpleAggregateFunction(..) => false,
        _ => true,
    }
}

/// Where `update_hash_with_value` puts the bytes: a SipHash, or a buffer (the bytes of
/// an Array of fixed-size values, which ClickHouse hashes at once).
pub(crate) trait ByteSink {
    fn update(&mut self, bytes: &[u8]);
}

impl ByteSink for SipHasher {
    fn update(&mut self, bytes: &[u8]) {
        SipHasher::update(self, bytes);
    }
}

impl ByteSink for Vec<u8> {
    fn update(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// `CityHash64` of each row's array elements' bytes (an Array of fixed-size values).
fn fixed_array_hashes(array: &ArrayRef, inner: &ChType) -> DfResult<Vec<Option<u64>>> {
    let mut bytes: Vec<u8> = Vec::new();
    (0..array.len())
        .map(|row| {
            if array.is_null(row) {
                return Ok(None);
            }
            let (child, range) = list_range(array, row)?;
            bytes.clear();
            for i in range {
                update_hash_with_value(&mut bytes, child, inner, i)?;
            }
            Ok(Some(city_hash64(&bytes)))
        })
        .collect()
}

/// The element column of a List array and the elements of row `row`.
fn list_range(array: &ArrayRef, row: usize) -> DfResult<(&ArrayRef, std::ops::Range<usize>)> {
    Ok(match array.data_type() {
        DataType::List(_) => {
            let list = array.as_list::<i32>();
            let o = list.value_offsets();
            (list.values(), o[row] as usize..o[row + 1] as usize)
        }
        DataType::LargeList(_) => {
            let list = array.as_list::<i64>();
            let o = list.value_offsets();
            (list.values(), o[row] as usize..o[row + 1] as usize)
        }
        other => return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("uniq: an Array held as {other}"))),
    })
}

/// ClickHouse's `IColumn::updateHashWithValue` of row `row` of `array` (of type `ty`):
/// numbers by their bytes at ClickHouse's width, a String as its length plus one (a
/// 64-bit word), its bytes and the terminating zero ClickHouse keeps, Nullable as a
/// null flag byte then the value when not NULL, an Array (Map) as its 64-bit length
/// then its elements (keys and values), a Tuple as its elements.
pub(crate) fn update_hash_with_value<S: ByteSink>(hasher: &mut S, array: &ArrayRef, ty: &ChType, row: usize) -> DfResult<()> {
    match ty {
        ChType::Nullable(inner) => {
            if array.is_null(row) || array.data_type() == &DataType::Null {
                hasher.update(&[1]);
                return Ok(());
            }
            hasher.update(&[0]);
            return update_hash_with_value(hasher, array, inner, row);
        }
        ChType::Nothing => return Ok(()),
        ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => {
            if let Some(dictionary) = array.as_any_dictionary_opt() {
                let values = dictionary.values();
                let key = dictionary.normalized_keys().get(row).copied().unwrap_or(0);
                return update_hash_with_value(hasher, values, inner, key);
            }
            return update_hash_with_value(hasher, array, inner, row);
        }
        ChType::Array(inner) => {
            let (child, range) = list_range(array, row)?;
            hasher.update(&(range.len() as u64).to_le_bytes());
            for i in range {
                update_hash_with_value(hasher, child, inner, i)?;
            }
            return Ok(());
        }
        ChType::Map(key_type, value_type) => {
            let map = array.as_map_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "uniq: a Map not held as an Arrow map"))?;
            let o = map.value_offsets();
            let range = o[row] as usize..o[row + 1] as usize;
            hasher.update(&(range.len() as u64).to_le_bytes());
            for i in range {
                update_hash_with_value(hasher, map.keys(), key_type, i)?;
                update_hash_with_value(hasher, map.values(), value_type, i)?;
            }
            return Ok(());
        }
        ChType::Tuple(elements) => {
            let s = array.as_struct_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "uniq: a Tuple not held as an Arrow struct"))?;
            for (column, (_, t)) in s.columns().iter().zip(elements) {
                update_hash_with_value(hasher, column, t, row)?;
            }
            return Ok(());
        }
        _ => {}
    }
    macro_rules! int {
        ($t:ty) => {
            array.as_primitive::<$t>().value(row) as i128
        };
    }
    let value: i128 = match array.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Binary | DataType::LargeBinary if matches!(ty, ChType::String) => {
            let bytes: &[u8] = match array.data_type() {
                DataType::Utf8 => array.as_string::<i32>().value(row).as_bytes(),
                DataType::LargeUtf8 => array.as_string::<i64>().value(row).as_bytes(),
                DataType::Utf8View => array.as_string_view().value(row).as_bytes(),
                DataType::Binary => array.as_binary::<i32>().value(row),
                _ => array.as_binary::<i64>().value(row),
            };
            hasher.update(&(bytes.len() as u64 + 1).to_le_bytes());
            hasher.update(bytes);
            hasher.update(&[0]);
            return Ok(());
        }
        DataType::FixedSizeBinary(_) => {
            let bytes = array.as_fixed_size_binary().value(row);
            if matches!(ty, ChType::Uuid) && bytes.len() == 16 {
                // ClickHouse keeps a UUID as two little-endian 64-bit halves, the first
                // half of the text first; Granary keeps the text's byte order.
                let mut swapped = [0u8; 16];
                for (i, b) in bytes.iter().enumerate() {
                    swapped[(i / 8) * 8 + 7 - i % 8] = *b;
                }
                hasher.update(&swapped);
            } else {
                hasher.update(bytes);
            }
            return Ok(());
        }
        DataType::Float32 => {
            hasher.update(&array.as_primitive::<Float32Type>().value(row).to_le_bytes());
            return Ok(());
        }
        DataType::Float64 => {
            let v = array.as_primitive::<Float64Type>().value(row);
            if matches!(ty, ChType::Float32) {
                hasher.update(&(v as f32).to_le_bytes());
            } else {
                hasher.update(&v.to_le_bytes());
            }
            return Ok(());
        }
        DataType::Decimal256(..) => {
            let bytes = array.as_primitive::<datafusion::arrow::datatypes::Decimal256Type>().value(row).to_le_bytes();
            // UInt128 is held zero-extended in 32 bytes; ClickHouse keeps 16.
            let width = if matches!(ty, ChType::UInt128) { 16 } else { 32 };
            hasher.update(&bytes[..width]);
            return Ok(());
        }
        DataType::Boolean => array.as_boolean().value(row) as i128,
        DataType::UInt8 => int!(UInt8Type),
        DataType::UInt16 => int!(UInt16Type),
        DataType::UInt32 => int!(UInt32Type),
        DataType::UInt64 => int!(UInt64Type),
        DataType::Int8 => int!(Int8Type),
        DataType::Int16 => int!(Int16Type),
        DataType::Int32 => int!(Int32Type),
        DataType::Int64 => int!(Int64Type),
        DataType::Date32 => int!(Date32Type),
        DataType::Date64 => int!(Date64Type),
        DataType::Timestamp(TimeUnit::Second, _) => int!(TimestampSecondType),
        DataType::Timestamp(TimeUnit::Millisecond, _) => int!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => int!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => int!(TimestampNanosecondType),
        DataType::Decimal128(..) => array.as_primitive::<datafusion::arrow::datatypes::Decimal128Type>().value(row),
        other => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("uniq cannot hash a value of type {ty} held as {other}"))),
    };
    let width = match ty {
        ChType::Decimal(p, _) => match p {
            0..=9 => 4,
            10..=18 => 8,
            _ => 16,
        },
        ChType::Enum8(_) => 1,
        ChType::Enum16(_) => 2,
        ChType::IPv4 => 4,
        ChType::DateTime64(..) | ChType::Interval(_) => 8,
        ChType::Int128 => 16,
        other => integer_width(other).unwrap_or(8),
    };
    hasher.update(&value.to_le_bytes()[..width]);
    Ok(())
}

/// The set hash (`fmix64` of the widened key, low 32 bits) of every row of a numeric or
/// string argument, straight from its values (NULL slots get a meaningless hash), or
/// None for the types `single_keys` converts first.
fn single_hashes_fast(array: &ArrayRef) -> Option<Vec<u32>> {
    macro_rules! ints {
        ($t:ty, $widen:expr) => {
            array.as_primitive::<$t>().values().iter().map(|&v| fmix64($widen(v)) as u32).collect()
        };
    }
    if let Some(hashes) = hash_byte_values(array, |v| fmix64(city_hash64(v)) as u32) {
        return Some(hashes);
    }
    Some(match array.data_type() {
        DataType::UInt8 => ints!(UInt8Type, |v: u8| v as u64),
        DataType::UInt16 => ints!(UInt16Type, |v: u16| v as u64),
        DataType::UInt32 => ints!(UInt32Type, |v: u32| v as u64),
        DataType::UInt64 => ints!(UInt64Type, |v: u64| v),
        DataType::Int8 => ints!(Int8Type, |v: i8| v as i64 as u64),
        DataType::Int16 => ints!(Int16Type, |v: i16| v as i64 as u64),
        DataType::Int32 => ints!(Int32Type, |v: i32| v as i64 as u64),
        DataType::Int64 => ints!(Int64Type, |v: i64| v as u64),
        DataType::Date32 => ints!(Date32Type, |v: i32| v as i64 as u64),
        DataType::Timestamp(TimeUnit::Second, _) => ints!(TimestampSecondType, |v: i64| v as u64),
        // -0.0 equals 0.0 but has other bits.
        DataType::Float32 => ints!(Float32Type, |v: f32| if v == 0.0 { 0 } else { v.to_bits() as u64 }),
        DataType::Float64 => ints!(Float64Type, |v: f64| if v == 0.0 { 0 } else { v.to_bits() }),
        _ => return None,
    })
}

/// `hash` of the bytes of every value of a String/Binary array (NULL slots included), or
/// None for other types.
fn hash_byte_values<T>(array: &ArrayRef, hash: impl Fn(&[u8]) -> T) -> Option<Vec<T>> {
    Some(match array.data_type() {
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            offset_slices(a.value_offsets(), a.value_data()).map(hash).collect()
        }
        DataType::LargeUtf8 => array.as_string::<i64>().iter().map(|v| hash(v.unwrap_or_default().as_bytes())).collect(),
        DataType::Utf8View => array.as_string_view().iter().map(|v| hash(v.unwrap_or_default().as_bytes())).collect(),
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            offset_slices(a.value_offsets(), a.value_data()).map(hash).collect()
        }
        _ => return None,
    })
}

/// The bytes of each value of a String/Binary array (offsets are valid in any Arrow
/// array, NULL slots included; a slot out of range would be an Arrow bug, read as empty).
fn offset_slices<'a>(offsets: &'a [i32], data: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
    offsets.windows(2).map(move |w| data.get(w[0] as usize..w[1] as usize).unwrap_or_default())
}

/// `value_byte_hashes` without per-row Options for the common types (NULL slots get a
/// meaningless hash), or None for the others.
fn value_byte_hashes_fast(array: &ArrayRef, ty: &ChType) -> Option<Vec<u64>> {
    macro_rules! ints {
        ($t:ty, $widen:expr) => {{
            // The low bytes of the two's complement value at ClickHouse's width.
            let width = integer_width(ty)?;
            array.as_primitive::<$t>().values().iter().map(|&v| city_hash64(&$widen(v).to_le_bytes()[..width])).collect()
        }};
    }
    if let Some(hashes) = hash_byte_values(array, city_hash64) {
        return Some(hashes);
    }
    Some(match array.data_type() {
        DataType::UInt8 => ints!(UInt8Type, |v: u8| v as u64),
        DataType::UInt16 => ints!(UInt16Type, |v: u16| v as u64),
        DataType::UInt32 => ints!(UInt32Type, |v: u32| v as u64),
        DataType::UInt64 => ints!(UInt64Type, |v: u64| v),
        DataType::Int8 => ints!(Int8Type, |v: i8| v as i64 as u64),
        DataType::Int16 => ints!(Int16Type, |v: i16| v as i64 as u64),
        DataType::Int32 => ints!(Int32Type, |v: i32| v as i64 as u64),
        DataType::Int64 => ints!(Int64Type, |v: i64| v as u64),
        DataType::Float64 => array.as_primitive::<Float64Type>().values().iter().map(|&v| city_hash64(&if v == 0.0 { 0f64 } else { v }.to_le_bytes())).collect(),
        _ => return None,
    })
}

/// ClickHouse's type of each argument as the function sees it (Nullable and
/// LowCardinality off). An integer literal is still DataFusion's `Int64` here, marked as
/// a query literal: it has ClickHouse's narrowest type (`1` is `UInt8`), which decides how
/// many bytes of it are hashed.
pub(crate) fn argument_types(args: &AccumulatorArgs) -> Vec<ChType> {
    args.expr_fields
        .iter()
        .enumerate()
        .map(|(i, field)| {
            let literal = args.exprs.get(i).and_then(|e| e.downcast_ref::<datafusion::physical_expr::expressions::Literal>());
            if let Some(literal) = literal.filter(|_| crate::literals::is_query_literal(field)) {
                if let Some(narrowed) = crate::literals::narrow(literal.value()) {
                    return ChType::from_arrow(&narrowed.data_type(), false);
                }
            }
            ch_type_of_field(field).strip_nullable().base().strip_nullable().clone()
        })
        .collect()
}

/// The 64-bit key ClickHouse's one-argument `uniq` inserts for each row.
pub(crate) fn single_keys(array: &ArrayRef, ty: &ChType) -> DfResult<Vec<Option<u64>>> {
    macro_rules! ints {
        ($t:ty, $widen:expr) => {
            array.as_primitive::<$t>().iter().map(|v| v.map($widen)).collect()
        };
    }
    Ok(match array.data_type() {
        DataType::Boolean => array.as_boolean().iter().map(|v| v.map(u64::from)).collect(),
        DataType::UInt8 => ints!(UInt8Type, |v| v as u64),
        DataType::UInt16 => ints!(UInt16Type, |v| v as u64),
        DataType::UInt32 => ints!(UInt32Type, |v| v as u64),
        DataType::UInt64 => ints!(UInt64Type, |v| v),
        DataType::Int8 => ints!(Int8Type, |v| v as i64 as u64),
        DataType::Int16 => ints!(Int16Type, |v| v as i64 as u64),
        DataType::Int32 => ints!(Int32Type, |v| v as i64 as u64),
        DataType::Int64 => ints!(Int64Type, |v| v as u64),
        DataType::Date32 => ints!(Date32Type, |v| v as i64 as u64),
        DataType::Date64 => ints!(Date64Type, |v| v as u64),
        DataType::Timestamp(TimeUnit::Second, _) => ints!(TimestampSecondType, |v| v as u64),
        DataType::Timestamp(TimeUnit::Millisecond, _) => ints!(TimestampMillisecondType, |v| v as u64),
        DataType::Timestamp(TimeUnit::Microsecond, _) => ints!(TimestampMicrosecondType, |v| v as u64),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => ints!(TimestampNanosecondType, |v| v as u64),
        // -0.0 equals 0.0 but has other bits.
        DataType::Float32 => ints!(Float32Type, |v| if v == 0.0 { 0 } else { v.to_bits() as u64 }),
        DataType::Float64 => ints!(Float64Type, |v| if v == 0.0 { 0 } else { v.to_bits() }),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Binary | DataType::LargeBinary | DataType::FixedSizeBinary(_) => {
            value_byte_hashes(array, ty)?
        }
        // Not reached: other types take the several-arguments path (`RowHasher::new`).
        _ => value_byte_hashes(array, ty)?,
    })
}

/// `CityHash64` of each row's value as ClickHouse lays it out in memory (`getDataAt`).
pub(crate) fn value_byte_hashes(array: &ArrayRef, ty: &ChType) -> DfResult<Vec<Option<u64>>> {
    macro_rules! fixed {
        ($t:ty, $bytes:expr) => {
            array.as_primitive::<$t>().iter().map(|v| v.map(|v| city_hash64(&$bytes(v)))).collect()
        };
    }
    Ok(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().map(|v| v.map(|s| city_hash64(s.as_bytes()))).collect(),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().map(|v| v.map(|s| city_hash64(s.as_bytes()))).collect(),
        DataType::Utf8View => array.as_string_view().iter().map(|v| v.map(|s| city_hash64(s.as_bytes()))).collect(),
        DataType::Binary => array.as_binary::<i32>().iter().map(|v| v.map(city_hash64)).collect(),
        DataType::LargeBinary => array.as_binary::<i64>().iter().map(|v| v.map(city_hash64)).collect(),
        DataType::FixedSizeBinary(_) => array.as_fixed_size_binary().iter().map(|v| v.map(city_hash64)).collect(),
        DataType::Float32 => fixed!(Float32Type, |v: f32| if v == 0.0 { 0f32 } else { v }.to_le_bytes()),
        DataType::Float64 => fixed!(Float64Type, |v: f64| if v == 0.0 { 0f64 } else { v }.to_le_bytes()),
        // Integers, dates and DateTime at ClickHouse's width, whatever Arrow type carries
        // them (a literal `1` is a UInt8 of one byte; Date is a UInt16 day number,
        // DateTime a UInt32 of seconds): the low bytes of the two's complement value.
        _ if integer_width(ty).is_some() && (array.data_type().is_integer() || matches!(array.data_type(), DataType::Boolean | DataType::Date32 | DataType::Timestamp(TimeUnit::Second, _))) => {
            let width = integer_width(ty).unwrap_or(8);
            let unsigned = matches!(array.data_type(), DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 | DataType::Boolean);
            let wide: Vec<Option<u64>> = if unsigned {
                cast(array, &DataType::UInt64)?.as_primitive::<UInt64Type>().iter().collect()
            } else {
                cast(array, &DataType::Int64)?.as_primitive::<Int64Type>().iter().map(|v| v.map(|v| v as u64)).collect()
            };
            wide.into_iter().map(|v| v.map(|v| city_hash64(&v.to_le_bytes()[..width]))).collect()
        }
        DataType::Date32 => fixed!(Date32Type, |v: i32| v.to_le_bytes()),
        // DateTime64 is an Int64 of ticks.
        DataType::Timestamp(TimeUnit::Second, _) => fixed!(TimestampSecondType, |v: i64| v.to_le_bytes()),
        DataType::Timestamp(TimeUnit::Millisecond, _) => fixed!(TimestampMillisecondType, |v: i64| v.to_le_bytes()),
        DataType::Timestamp(TimeUnit::Microsecond, _) => fixed!(TimestampMicrosecondType, |v: i64| v.to_le_bytes()),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => fixed!(TimestampNanosecondType, |v: i64| v.to_le_bytes()),
        DataType::Decimal128(precision, _) => {
            let width = match precision {
                0..=9 => 4,
                10..=18 => 8,
                _ => 16,
            };
            array.as_primitive::<datafusion::arrow::datatypes::Decimal128Type>().iter().map(|v| v.map(|v| city_hash64(&v.to_le_bytes()[..width]))).collect()
        }
        DataType::List(_) | DataType::LargeList(_) if matches!(ty, ChType::Array(inner) if fixed_size(inner)) => {
            let ChType::Array(inner) = ty else { return Ok(Vec::new()) };
            fixed_array_hashes(array, inner)?
        }
        _ => {
            // No ClickHouse byte layout known here: hash a canonical encoding of the value.
            let converter = RowConverter::new(vec![SortField::new(array.data_type().clone())])?;
            let rows = converter.convert_columns(&[Arc::clone(array)])?;
            (0..array.len()).map(|i| array.is_valid(i).then(|| city_hash64(rows.row(i).as_ref()))).collect()
        }
    })
}

/// The bytes ClickHouse keeps an integer-like value of type `ty` in.
fn integer_width(ty: &ChType) -> Option<usize> {
    Some(match ty {
        ChType::UInt8 | ChType::Int8 | ChType::Bool => 1,
        ChType::UInt16 | ChType::Int16 | ChType::Date => 2,
        ChType::UInt32 | ChType::Int32 | ChType::Date32 | ChType::DateTime(_) => 4,
        ChType::UInt64 | ChType::Int64 => 8,
        _ => return None,
    })
}

// ------------------------------------------------------------------ the aggregate

/// The `uniq` aggregate function.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) struct Uniq {
    signature: Signature,
}

impl Uniq {
    pub(crate) fn new() -> Self {
        Uniq { signature: Signature::user_defined(Volatility::Immutable) }
    }
}

impl AggregateUDFImpl for Uniq {
    fn name(&self) -> &str {
        "uniq"
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
        Arity::at_least(1).check("uniq", arg_fields.len())?;
        Ok(Arc::new(result_field("uniq", &ChType::UInt64)))
    }
    fn is_nullable(&self) -> bool {
        false
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new(format_state_name(args.name, "uniques"), DataType::Binary, true))])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        Ok(Box::new(UniqAccumulator { set: UniquesHashSet::default(), hasher: RowHasher::new(&args) }))
    }
    fn groups_accumulator_supported(&self, _args: AccumulatorArgs) -> bool {
        true
    }
    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(UniqGroups { sets: Vec::new(), hasher: RowHasher::new(&args) }))
    }
    fn default_value(&self, _data_type: &DataType) -> DfResult<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(0)))
    }
}

#[derive(Debug)]
struct UniqAccumulator {
    set: UniquesHashSet,
    hasher: RowHasher,
}

/// Merges every non-NULL serialized set of `states` into `into(row)`.
fn merge_states(states: &ArrayRef, mut into: impl FnMut(usize) -> Option<usize>, sets: &mut [UniquesHashSet]) -> DfResult<()> {
    let binary = states.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "uniq state must be Binary"))?;
    for row in 0..binary.len() {
        if binary.is_null(row) {
            continue;
        }
        let Some(target) = into(row) else { continue };
        let other = UniquesHashSet::from_bytes(binary.value(row))?;
        sets[target].merge(&other)?;
    }
    Ok(())
}

impl Accumulator for UniqAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        let (hashes, nulls) = self.hasher.hashes(values)?;
        match nulls {
            None => {
                for hash in hashes {
                    self.set.insert(hash)?;
                }
            }
            Some(nulls) => {
                for (hash, valid) in hashes.into_iter().zip(nulls.iter()) {
                    if valid {
                        self.set.insert(hash)?;
                    }
                }
            }
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let Some(states) = states.first() else { return Ok(()) };
        merge_states(states, |_| Some(0), std::slice::from_mut(&mut self.set))
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.set.to_bytes()))])
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(self.set.size())))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.set.buf.capacity() * 4
    }
}

struct UniqGroups {
    sets: Vec<UniquesHashSet>,
    hasher: RowHasher,
}

impl UniqGroups {
    fn take(&mut self, emit_to: EmitTo) -> Vec<UniquesHashSet> {
        emit_to.take_needed(&mut self.sets)
    }
}

impl GroupsAccumulator for UniqGroups {
    fn update_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], opt_filter: Option<&BooleanArray>, total_num_groups: usize) -> DfResult<()> {
        self.sets.resize_with(total_num_groups, UniquesHashSet::default);
        let (hashes, nulls) = self.hasher.hashes(values)?;
        if nulls.is_none() && opt_filter.is_none() {
            for (&group, hash) in group_indices.iter().zip(hashes) {
                self.sets[group].insert(hash)?;
            }
            return Ok(());
        }
        for (row, (&group, hash)) in group_indices.iter().zip(hashes).enumerate() {
            if nulls.as_ref().is_some_and(|n| n.is_null(row)) || opt_filter.is_some_and(|f| !f.is_valid(row) || !f.value(row)) {
                continue;
            }
            self.sets[group].insert(hash)?;
        }
        Ok(())
    }
    fn merge_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], total_num_groups: usize) -> DfResult<()> {
        self.sets.resize_with(total_num_groups, UniquesHashSet::default);
        let Some(states) = values.first() else { return Ok(()) };
        merge_states(states, |row| group_indices.get(row).copied(), &mut self.sets)
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> DfResult<ArrayRef> {
        Ok(Arc::new(UInt64Array::from_iter_values(self.take(emit_to).iter().map(UniquesHashSet::size))))
    }
    fn state(&mut self, emit_to: EmitTo) -> DfResult<Vec<ArrayRef>> {
        let mut out = BinaryBuilder::new();
        for set in self.take(emit_to) {
            out.append_value(set.to_bytes());
        }
        Ok(vec![Arc::new(out.finish())])
    }
    /// Each row as a state of its own (when DataFusion skips partial aggregation).
    fn convert_to_state(&self, values: &[ArrayRef], opt_filter: Option<&BooleanArray>) -> DfResult<Vec<ArrayRef>> {
        let mut out = BinaryBuilder::new();
        let (hashes, nulls) = self.hasher.hashes(values)?;
        for (row, hash) in hashes.into_iter().enumerate() {
            let mut set = UniquesHashSet::default();
            if nulls.as_ref().is_none_or(|n| n.is_valid(row)) && opt_filter.is_none_or(|f| f.is_valid(row) && f.value(row)) {
                set.insert(hash)?;
            }
            out.append_value(set.to_bytes());
        }
        Ok(vec![Arc::new(out.finish())])
    }
    fn size(&self) -> usize {
        self.sets.iter().map(|s| std::mem::size_of_val(s) + s.buf.capacity() * 4).sum()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn count_of(values: impl Iterator<Item = u64>) -> (UniquesHashSet, u64) {
        let mut set = UniquesHashSet::default();
        for v in values {
            set.insert(fmix64(v) as u32).unwrap();
        }
        let n = set.size();
        (set, n)
    }

    /// Estimates ClickHouse 26.9 (chdb) gives for the same inputs.
    #[test]
    fn array_hashes_match_clickhouse() {
        use datafusion::arrow::array::{ListArray, StringArray, UInt64Array, UInt8Array};
        use datafusion::arrow::buffer::OffsetBuffer;
        use datafusion::arrow::datatypes::Field;
        let list = |values: ArrayRef, offsets: Vec<i32>| -> ArrayRef {
            let field = Arc::new(Field::new("item", values.data_type().clone(), true));
            Arc::new(ListArray::new(field, OffsetBuffer::new(offsets.into()), values, None))
        };
        // The hashes in chdb's uniqState([1, 2]::Array(UInt64)), uniqState([1::UInt8]),
        // uniqState(['a', 'b']).
        let hash = |array: ArrayRef, ty: ChType| RowHasher::variadic(vec![ty]).hashes(&[array]).unwrap().0;
        let numbers = list(Arc::new(UInt64Array::from(vec![1u64, 2])), vec![0, 2]);
        assert_eq!(hash(numbers, ChType::Array(Box::new(ChType::UInt64))), vec![0x9899_4116]);
        let bytes = list(Arc::new(UInt8Array::from(vec![1u8])), vec![0, 1]);
        assert_eq!(hash(bytes, ChType::Array(Box::new(ChType::UInt8))), vec![0x69a5_6947]);
        let strings = list(Arc::new(StringArray::from(vec!["a", "b"])), vec![0, 2]);
        assert_eq!(hash(strings, ChType::Array(Box::new(ChType::String))), vec![0x5bfd_2cf3]);
    }

    #[test]
    fn estimates_match_clickhouse() {
        assert_eq!(count_of(0..1_000_000).1, 1_001_943);
        assert_eq!(count_of((0..1_000_000).map(|n| n % 100_000)).1, 100_315);
        assert_eq!(count_of(0..3).1, 3);
    }

    #[test]
    fn merged_partial_states_equal_one_pass() {
        let (whole, n) = count_of(0..300_000);
        let mut merged = UniquesHashSet::default();
        for part in 0..3u64 {
            let (set, _) = count_of((0..300_000).filter(|v| v % 3 == part));
            let bytes = set.to_bytes();
            merged.merge(&UniquesHashSet::from_bytes(&bytes).unwrap()).unwrap();
        }
        assert_eq!(merged.size(), n);
        assert_eq!(merged.m_size, whole.m_size);
    }

    /// The fast hashing paths give what the per-row paths give, on every type they take
    /// (values at NULL slots aside).
    #[test]
    fn fast_hashes_equal_per_row_hashes() {
        use datafusion::arrow::array::{Float64Array, Int16Array, Int64Array, StringArray, UInt32Array, UInt8Array};
        let arrays: Vec<(ArrayRef, ChType)> = vec![
            (Arc::new(UInt8Array::from(vec![Some(0), None, Some(255)])), ChType::UInt8),
            (Arc::new(Int16Array::from(vec![-1, 7, i16::MIN])), ChType::Int16),
            (Arc::new(UInt32Array::from(vec![Some(1), Some(u32::MAX), None])), ChType::UInt32),
            (Arc::new(Int64Array::from(vec![-5, 0, i64::MAX])), ChType::Int64),
            (Arc::new(Int64Array::from(vec![-5, 0, 300])), ChType::UInt8),
            (Arc::new(Float64Array::from(vec![-0.0, 0.0, 1.5])), ChType::Float64),
            (Arc::new(StringArray::from(vec![Some("a"), None, Some("a longer string than sixteen bytes")])), ChType::String),
        ];
        for (array, ty) in &arrays {
            let valid: Vec<bool> = (0..array.len()).map(|i| array.is_valid(i)).collect();
            if let Some(fast) = single_hashes_fast(array) {
                let slow = single_keys(array, ty).unwrap();
                for ((f, s), v) in fast.iter().zip(&slow).zip(&valid) {
                    assert_eq!(s.is_some(), *v);
                    if let Some(s) = s {
                        assert_eq!(*f, fmix64(*s) as u32, "{ty:?}");
                    }
                }
            }
            let fast = value_byte_hashes_fast(array, ty).unwrap();
            let slow = value_byte_hashes(array, ty).unwrap();
            for ((f, s), v) in fast.iter().zip(&slow).zip(&valid) {
                assert_eq!(s.is_some(), *v);
                if let Some(s) = s {
                    assert_eq!(f, s, "{ty:?}");
                }
            }
        }
        // Several arguments: a NULL in any of them drops the row.
        let hasher = RowHasher::variadic(vec![ChType::UInt32, ChType::String]);
        let combined = hasher.variadic_hashes(&[Arc::clone(&arrays[2].0), Arc::clone(&arrays[6].0)]).unwrap();
        assert!(combined[0].is_some() && combined[1].is_none() && combined[2].is_none());
    }

    /// Bytes of `hex(uniqState(number))` over numbers(3) in ClickHouse.
    #[test]
    fn state_layout_matches_clickhouse() {
        let (set, _) = count_of(0..3);
        let hex: String = set.to_bytes().iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(hex, "0003000000002CCBC234E7830665");
        assert!(UniquesHashSet::from_bytes(&[0, 5, 1, 2]).is_err());
        assert!(UniquesHashSet::from_bytes(&[40, 0]).is_err());
    }
}
