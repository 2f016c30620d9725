//! `topK(N[, load_factor[, 'counts']])(x)` and `topKWeighted(...)(x, w)`: ClickHouse's
//! Filtered Space-Saving (`SpaceSaving.h`), so that results equal ClickHouse's, ties
//! included.
//!
//! A state holds up to `reserved = N * load_factor` (default 3 N) counters in arrival order
//! and an "alpha" array of `6 * reserved` rounded up to a power of two. A new key while
//! the counters are full enters with the alpha of its hash's bin as count and error; when
//! the list reaches `max(64, 2 * reserved)` the best `reserved` are selected (ClickHouse's
//! `nth_element`: miniselect's Floyd-Rivest selection) and each dropped counter adds its
//! `count - error` to its bin. Counters compare by `count - error`, then by `count`. The
//! result is the first N after ClickHouse's `partial_sort` (Floyd-Rivest selection, then
//! libc++'s `std::sort`), whose treatment of ties this module repeats step by step: equal
//! counters come out in the order ClickHouse gives them. Merging follows Parallel
//! Space-Saving as ClickHouse does (merging into an empty state copies it).
//!
//! Keys: numbers (and Date, DateTime, IPv4, Enum) by their bytes at ClickHouse's width,
//! hashed with `intHashCRC32`; other types by their bytes (String, FixedString) or a
//! canonical encoding, hashed with ClickHouse's CRC32 string hash. The hash only chooses
//! the alpha bin. NULL rows are skipped.
//!
//! Limits: `libc++`'s `std::sort` is repeated for ranges below 24 elements (insertion
//! sort); longer ranges (N of 24 or more) are sorted stably, so ties among them may come
//! out in another order than ClickHouse's. `-State` bytes are ClickHouse's (`write_state`)
//! for numbers, strings, FixedString and Decimal; other key types keep Granary's own layout.
//! Those bytes hold only the best `reserved` counters, as ClickHouse's do; ClickHouse hands a
//! subquery's states to `-Merge` unserialized, Granary as bytes, so ties past `reserved`
//! may then come out in another order.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, UInt64Type};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility};
use granary_common::hash::hash128_to_64;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, DfResult};
use crate::func::{ch_type_of_field, result_field};
use crate::cxx_sort::{floyd_rivest, partial_sort};
use crate::uniq::single_keys;

const TOP_K_MAX_SIZE: u64 = 0xFF_FFFF;
const MAX_ALPHA_VALUE: u64 = u32::MAX as u64;

/// One step of the SSE4.2 `crc32` instruction over 8 bytes (CRC-32C, no inversions).
pub(crate) fn crc32c_u64(mut crc: u32, word: u64) -> u32 {
    for byte in word.to_le_bytes() {
        crc ^= byte as u32;
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82F6_3B78 & (crc & 1).wrapping_neg());
        }
    }
    crc
}

/// ClickHouse's `HashCRC32` of a number's bytes (zero-extended to 64 bits).
pub(crate) fn int_hash_crc32(x: u64) -> u64 {
    crc32c_u64(u32::MAX, x) as u64
}

/// ClickHouse's `CRC32Hash` of a string (its `StringViewHash` on x86-64).
pub(crate) fn string_hash_crc32(s: &[u8]) -> u64 {
    let load = |b: &[u8]| {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(w)
    };
    let size = s.len();
    if size == 0 {
        return 0;
    }
    if size < 8 {
        const K2: u64 = 0x9ae1_6a3b_2f90_404f;
        const K3: u64 = 0xc949_d7c7_509e_6557;
        let h = if size >= 4 {
            let a = load(&s[..4]);
            hash128_to_64((size as u64).wrapping_add(a << 3), load(&s[size - 4..]))
        } else {
            let (a, b, c) = (s[0] as u64, s[size >> 1] as u64, s[size - 1] as u64);
            let y = a + (b << 8);
            let z = size as u64 + (c << 2);
            let v = y.wrapping_mul(K2) ^ z.wrapping_mul(K3);
            (v ^ (v >> 47)).wrapping_mul(K2)
        };
        return h as u32 as u64;
    }
    let mut res = u32::MAX;
    let mut pos = 0;
    loop {
        res = crc32c_u64(res, load(&s[pos..pos + 8]));
        pos += 8;
        if pos + 8 >= size {
            break;
        }
    }
    crc32c_u64(res, load(&s[size - 8..])) as u64
}

#[derive(Debug, Clone)]
struct Counter {
    /// The key's bytes: what makes two values the same key.
    key: Vec<u8>,
    hash: u64,
    count: u64,
    error: u64,
    value: ScalarValue,
}

/// ClickHouse's `Counter::operator>`.
fn greater(l: &Counter, r: &Counter) -> bool {
    let (a, b) = (l.count.wrapping_sub(l.error), r.count.wrapping_sub(r.error));
    a > b || (a == b && l.count > r.count)
}

/// ClickHouse's `SpaceSaving`.
#[derive(Debug, Clone)]
struct SpaceSaving {
    capacity: usize,
    target: usize,
    counters: Vec<Counter>,
    map: HashMap<Vec<u8>, usize>,
    alpha: Vec<u64>,
}

impl SpaceSaving {
    fn new(capacity: usize) -> Self {
        let alpha_size = 1usize << (64 - ((capacity as u64) * 6).leading_zeros());
        SpaceSaving { capacity, target: capacity.saturating_mul(2).max(64), counters: Vec::new(), map: HashMap::new(), alpha: vec![0; alpha_size] }
    }

    fn alpha_bin(&self, hash: u64) -> usize {
        (hash & (self.alpha.len() as u64 - 1)) as usize
    }

    fn insert(&mut self, key: Vec<u8>, hash: u64, value: impl FnOnce() -> DfResult<ScalarValue>, increment: u64) -> DfResult<()> {
        if let Some(&i) = self.map.get(&key) {
            self.counters[i].count = self.counters[i].count.wrapping_add(increment);
            return Ok(());
        }
        let alpha = if self.counters.len() < self.capacity { 0 } else { self.alpha[self.alpha_bin(hash)] };
        let value = value()?;
        self.map.entry(key.clone()).or_insert(self.counters.len());
        self.counters.push(Counter { key, hash, count: alpha.wrapping_add(increment), error: alpha, value });
        self.truncate_if_needed(false);
        Ok(())
    }

    fn rebuild_map(&mut self) {
        self.map.clear();
        for (i, c) in self.counters.iter().enumerate() {
            self.map.entry(c.key.clone()).or_insert(i);
        }
    }

    fn truncate_if_needed(&mut self, force_rebuild: bool) {
        if self.counters.len() >= self.target {
            let len = self.counters.len() as isize;
            // ClickHouse's `nth_element`: the counter of rank `capacity` in place, better ones before.
            floyd_rivest(&mut self.counters, 0, len - 1, self.capacity as isize, &greater);
            for i in self.capacity..self.counters.len() {
                let bin = self.alpha_bin(self.counters[i].hash);
                let c = &self.counters[i];
                self.alpha[bin] = (self.alpha[bin].wrapping_add(c.count.wrapping_sub(c.error))).min(MAX_ALPHA_VALUE);
            }
            self.counters.truncate(self.capacity);
            self.rebuild_map();
        } else if force_rebuild {
            self.rebuild_map();
        }
    }

    fn merge(&mut self, rhs: &SpaceSaving) {
        if rhs.counters.is_empty() {
            return;
        }
        if self.counters.is_empty() {
            self.counters = rhs.counters.clone();
            if self.alpha.len() == rhs.alpha.len() {
                self.alpha = rhs.alpha.clone();
            }
            self.truncate_if_needed(true);
            return;
        }
        let max_alpha = |s: &SpaceSaving| if s.counters.len() >= s.capacity { s.alpha.iter().copied().max().unwrap_or(0) } else { 0 };
        let (m1, m2) = (max_alpha(self), max_alpha(rhs));
        if m2 > 0 {
            for c in &mut self.counters {
                c.count = c.count.wrapping_add(m2);
                c.error = c.error.wrapping_add(m2);
            }
        }
        for c in &rhs.counters {
            if let Some(&i) = self.map.get(&c.key) {
                let current = &mut self.counters[i];
                current.count = current.count.wrapping_add(c.count.wrapping_sub(m2));
                current.error = current.error.wrapping_add(c.error.wrapping_sub(m2));
            } else {
                let mut added = c.clone();
                added.count = added.count.wrapping_add(m1);
                added.error = added.error.wrapping_add(m1);
                self.counters.push(added);
            }
        }
        if self.alpha.len() == rhs.alpha.len() {
            for (mine, theirs) in self.alpha.iter_mut().zip(&rhs.alpha) {
                *mine = mine.wrapping_add(*theirs).min(MAX_ALPHA_VALUE);
            }
        }
        self.truncate_if_needed(true);
    }

    fn top(&self, k: usize) -> Vec<Counter> {
        let mut list = self.counters.clone();
        let n = list.len().min(k);
        partial_sort(&mut list, n, &greater);
        list.truncate(n);
        list
    }
}

// ------------------------------------------------------------------ keys of rows

/// How values become keys: numbers by their bytes at ClickHouse's width, the rest by bytes.
#[derive(Debug, Clone)]
enum KeyKind {
    Number(usize),
    Float32,
    Float64,
    Bytes,
    Encoded,
}

fn key_kind(ty: &ChType) -> KeyKind {
    match ty {
        ChType::UInt8 | ChType::Int8 | ChType::Bool | ChType::Enum8(_) => KeyKind::Number(1),
        ChType::UInt16 | ChType::Int16 | ChType::Date | ChType::Enum16(_) => KeyKind::Number(2),
        ChType::UInt32 | ChType::Int32 | ChType::Date32 | ChType::DateTime(_) | ChType::IPv4 => KeyKind::Number(4),
        ChType::UInt64 | ChType::Int64 => KeyKind::Number(8),
        ChType::Float32 => KeyKind::Float32,
        ChType::Float64 => KeyKind::Float64,
        ChType::String | ChType::FixedString(_) => KeyKind::Bytes,
        _ => KeyKind::Encoded,
    }
}

/// Each row's key bytes and hash (None for NULL).
fn row_keys(array: &ArrayRef, ty: &ChType) -> DfResult<Vec<Option<(Vec<u8>, u64)>>> {
    Ok(match key_kind(ty) {
        KeyKind::Number(width) => single_keys(array, ty)?
            .into_iter()
            .map(|k| {
                k.map(|k| {
                    let raw = if width == 8 { k } else { k & ((1u64 << (width * 8)) - 1) };
                    (raw.to_le_bytes()[..width].to_vec(), int_hash_crc32(raw))
                })
            })
            .collect(),
        KeyKind::Float32 => {
            let floats = cast(array, &DataType::Float32)?;
            floats.as_primitive::<datafusion::arrow::datatypes::Float32Type>().iter().map(|v| v.map(|v| (v.to_bits().to_le_bytes().to_vec(), int_hash_crc32(v.to_bits() as u64)))).collect()
        }
        KeyKind::Float64 => {
            let floats = cast(array, &DataType::Float64)?;
            floats.as_primitive::<datafusion::arrow::datatypes::Float64Type>().iter().map(|v| v.map(|v| (v.to_bits().to_le_bytes().to_vec(), int_hash_crc32(v.to_bits())))).collect()
        }
        KeyKind::Bytes => {
            let binary = cast(array, &DataType::Binary)?;
            binary.as_binary::<i32>().iter().map(|v| v.map(|b| (b.to_vec(), string_hash_crc32(b)))).collect()
        }
        KeyKind::Encoded => {
            let converter = RowConverter::new(vec![SortField::new(array.data_type().clone())])?;
            let rows = converter.convert_columns(&[Arc::clone(array)])?;
            (0..array.len()).map(|i| array.is_valid(i).then(|| (rows.row(i).as_ref().to_vec(), string_hash_crc32(rows.row(i).as_ref())))).collect()
        }
    })
}

// ------------------------------------------------------------------ the aggregate

#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) struct TopK {
    name: String,
    weighted: bool,
    threshold: u64,
    reserved: u64,
    include_counts: bool,
    signature: Signature,
}

fn to_u64(function: &str, v: &ScalarValue) -> DfResult<u64> {
    Ok(match v {
        ScalarValue::UInt64(Some(v)) => *v,
        ScalarValue::Int64(Some(v)) => *v as u64,
        ScalarValue::Float64(Some(v)) => *v as u64,
        other => return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot convert {} to unsigned long (a parameter of {function})", other.data_type()))),
    })
}

impl TopK {
    /// `approx_top_k(N[, reserved])` and `approx_top_sum` take `reserved` itself as
    /// their second parameter and always return counts; otherwise they are `topK` and
    /// `topKWeighted` (ClickHouse's `createAggregateFunctionTopK`).
    fn with_params(function: &'static str, params: &[ScalarValue]) -> DfResult<TopK> {
        let weighted = matches!(function, "topKWeighted" | "approx_top_sum");
        let approx = matches!(function, "approx_top_k" | "approx_top_sum");
        let (mut threshold, mut load_factor, mut include_counts) = (10u64, 3u64, approx);
        let mut reserved = threshold * load_factor;
        if params.len() > 3 {
            return Err(ch_error(ErrorCode::TOO_MANY_ARGUMENTS_FOR_FUNCTION, format!("Aggregate function '{function}' requires three parameters or less")));
        }
        if params.is_empty() {
            return Ok(TopK { name: function.to_string(), weighted, threshold, reserved, include_counts, signature: Signature::user_defined(Volatility::Immutable) });
        }
        threshold = to_u64(function, &params[0])?;
        if let Some(p) = params.get(1) {
            if approx {
                reserved = to_u64(function, p)?;
                if reserved < 1 {
                    return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Too small parameter 'reserved' for aggregate function '{function}' (got {reserved}, minimum is 1)")));
                }
            } else {
                load_factor = to_u64(function, p)?;
                if load_factor < 1 {
                    return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Too small parameter 'load_factor' for aggregate function '{function}' (got {load_factor}, minimum is 1)")));
                }
            }
        }
        if let Some(p) = params.get(2) {
            match p {
                ScalarValue::Utf8(Some(s)) if s == "counts" => include_counts = true,
                ScalarValue::Utf8(Some(s)) => {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Aggregate function {function} doesn't support a parameter: {s}")));
                }
                other => return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Bad type of parameter {} of aggregate function {function}", other.data_type()))),
            }
        }
        if !approx || params.len() == 1 {
            reserved = threshold.saturating_mul(load_factor);
        }
        if threshold > TOP_K_MAX_SIZE || load_factor > TOP_K_MAX_SIZE || reserved > TOP_K_MAX_SIZE {
            return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Too large parameter(s) for aggregate function '{function}' (maximum is {TOP_K_MAX_SIZE})")));
        }
        if threshold == 0 {
            return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Parameter 0 is illegal for aggregate function '{function}'")));
        }
        Ok(TopK {
            name: crate::parametric::parametric_name(function, params),
            weighted,
            threshold,
            reserved,
            include_counts,
            signature: Signature::user_defined(Volatility::Immutable),
        })
    }

    fn item_type(arg: &FieldRef) -> ChType {
        ch_type_of_field(arg).strip_nullable().base().strip_nullable().clone()
    }

    fn result_type(&self, item: &ChType) -> ChType {
        if self.include_counts {
            ChType::Array(Box::new(ChType::Tuple(vec![
                ("item".to_string(), item.clone()),
                ("count".to_string(), ChType::UInt64),
                ("error".to_string(), ChType::UInt64),
            ])))
        } else {
            ChType::Array(Box::new(item.clone()))
        }
    }
}

/// The `topK` family for [`crate::parametric::FAMILIES`].
pub(crate) fn top_k_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    Ok(AggregateUDF::new_from_impl(TopK::with_params("topK", params)?))
}

/// The `topKWeighted` family for [`crate::parametric::FAMILIES`].
pub(crate) fn top_k_weighted_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    Ok(AggregateUDF::new_from_impl(TopK::with_params("topKWeighted", params)?))
}

/// The `approx_top_k` family (also `approx_top_count`) for [`crate::parametric::FAMILIES`].
pub(crate) fn approx_top_k_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    Ok(AggregateUDF::new_from_impl(TopK::with_params("approx_top_k", params)?))
}

/// The `approx_top_sum` family for [`crate::parametric::FAMILIES`].
pub(crate) fn approx_top_sum_family(params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    Ok(AggregateUDF::new_from_impl(TopK::with_params("approx_top_sum", params)?))
}

/// The base names whose states are this module's.
pub(crate) fn is_top_k(function: &str) -> bool {
    matches!(crate::combinators::without_params(function), "topK" | "topKWeighted" | "approx_top_k" | "approx_top_sum")
}

/// Whether `function` is one of the weighted forms (two arguments).
pub(crate) fn is_weighted(function: &str) -> bool {
    matches!(crate::combinators::without_params(function), "topKWeighted" | "approx_top_sum")
}

impl AggregateUDFImpl for TopK {
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
        Err(ch_error(ErrorCode::LOGICAL_ERROR, "topK: return_field is used"))
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> DfResult<FieldRef> {
        let expected = if self.weighted { 2 } else { 1 };
        if arg_fields.len() != expected {
            return Err(ch_error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Aggregate function {} requires {expected} argument{}", self.name, if expected == 1 { "" } else { "s" }),
            ));
        }
        if self.weighted {
            let w = ch_type_of_field(&arg_fields[1]).strip_nullable().base().strip_nullable().clone();
            if !matches!(w, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Bool) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "The second argument for aggregate function 'topKWeighted' must have integer type"));
            }
        }
        Ok(Arc::new(result_field(&self.name, &self.result_type(&Self::item_type(&arg_fields[0])))))
    }
    fn is_nullable(&self) -> bool {
        false
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        let item = args.input_fields.first().map_or(DataType::Null, |f| Self::item_type(f).to_arrow());
        let list = |t: DataType| DataType::List(Arc::new(Field::new("item", t, true)));
        Ok(vec![
            Arc::new(Field::new(format_state_name(args.name, "keys"), list(item), true)),
            Arc::new(Field::new(format_state_name(args.name, "counts"), list(DataType::UInt64), true)),
            Arc::new(Field::new(format_state_name(args.name, "errors"), list(DataType::UInt64), true)),
            Arc::new(Field::new(format_state_name(args.name, "alphas"), list(DataType::UInt64), true)),
        ])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let item = args.expr_fields.first().map(Self::item_type).unwrap_or(ChType::Nothing);
        Ok(Box::new(TopKAccumulator {
            set: SpaceSaving::new(self.reserved as usize),
            threshold: self.threshold as usize,
            include_counts: self.include_counts,
            weighted: self.weighted,
            seen_rows: false,
            result: self.result_type(&item),
            item,
        }))
    }
}

#[derive(Debug)]
struct TopKAccumulator {
    set: SpaceSaving,
    threshold: usize,
    include_counts: bool,
    weighted: bool,
    /// Rows reached the set, NULLs included: ClickHouse's `topK` of a number (or date,
    /// enum, IPv4) sizes its alpha map when called on a block, also when its -Null
    /// combinator filtered every row out, and writes that map in the state.
    seen_rows: bool,
    item: ChType,
    result: ChType,
}

/// Item types ClickHouse's `topK` keeps in its numeric (non-generic) form.
fn numeric_set(item: &ChType) -> bool {
    matches!(
        item,
        ChType::UInt8
            | ChType::UInt16
            | ChType::UInt32
            | ChType::UInt64
            | ChType::Int8
            | ChType::Int16
            | ChType::Int32
            | ChType::Int64
            | ChType::Float32
            | ChType::Float64
            | ChType::Date
            | ChType::DateTime(_)
            | ChType::Enum8(_)
            | ChType::Enum16(_)
            | ChType::IPv4
    )
}

impl TopKAccumulator {
    fn add(&mut self, values: &ArrayRef, counts: Option<&[Option<u64>]>) -> DfResult<()> {
        let values = if values.data_type() == &self.item.to_arrow() || self.item == ChType::Nothing { Arc::clone(values) } else { cast(values, &self.item.to_arrow())? };
        for (row, key) in row_keys(&values, &self.item)?.into_iter().enumerate() {
            let Some((key, hash)) = key else { continue };
            let increment = match counts {
                Some(c) => match c.get(row).copied().flatten() {
                    Some(c) => c,
                    None => continue,
                },
                None => 1,
            };
            self.set.insert(key, hash, || ScalarValue::try_from_array(&values, row), increment)?;
        }
        Ok(())
    }
}

impl Accumulator for TopKAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        let Some(keys) = values.first() else { return Ok(()) };
        if !self.weighted {
            self.seen_rows |= !keys.is_empty() && numeric_set(&self.item);
            return self.add(keys, None);
        }
        let weights = values.get(1).ok_or_else(|| ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "topKWeighted needs a weight"))?;
        // ClickHouse reads the weight with getUInt: a negative one wraps around.
        let counts: Vec<Option<u64>> = match weights.data_type() {
            DataType::UInt64 => weights.as_primitive::<UInt64Type>().iter().collect(),
            _ => cast(weights, &DataType::Int64)?.as_primitive::<datafusion::arrow::datatypes::Int64Type>().iter().map(|w| w.map(|w| w as u64)).collect(),
        };
        self.add(keys, Some(&counts))
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let [keys, counts, errors, alphas] = states else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, "topK state has four fields")) };
        let (keys, counts, errors, alphas) = (keys.as_list::<i32>(), counts.as_list::<i32>(), errors.as_list::<i32>(), alphas.as_list::<i32>());
        for row in 0..keys.len() {
            if keys.is_null(row) {
                continue;
            }
            let mut other = SpaceSaving::new(self.set.capacity);
            let values = keys.value(row);
            let values = if values.data_type() == &self.item.to_arrow() || self.item == ChType::Nothing { values } else { cast(&values, &self.item.to_arrow())? };
            let c = counts.value(row);
            let e = errors.value(row);
            let (c, e) = (c.as_primitive::<UInt64Type>(), e.as_primitive::<UInt64Type>());
            for (i, key) in row_keys(&values, &self.item)?.into_iter().enumerate() {
                let Some((key, hash)) = key else { continue };
                other.counters.push(Counter { key, hash, count: c.value(i), error: e.value(i), value: ScalarValue::try_from_array(&values, i)? });
            }
            let a = alphas.value(row);
            let a = a.as_primitive::<UInt64Type>();
            // A partial state of only NULL rows still carries its alpha map.
            self.seen_rows |= !a.is_empty();
            if a.len() == other.alpha.len() {
                other.alpha = a.values().to_vec();
            }
            other.rebuild_map();
            self.set.merge(&other);
        }
        Ok(())
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        let item = self.item.to_arrow();
        let values: Vec<ScalarValue> = self.set.counters.iter().map(|c| c.value.clone()).collect();
        let list = |v: &[ScalarValue], t: &DataType| ScalarValue::List(ScalarValue::new_list_nullable(v, t));
        let u64s = |f: &dyn Fn(&Counter) -> u64| self.set.counters.iter().map(|c| ScalarValue::UInt64(Some(f(c)))).collect::<Vec<_>>();
        let alphas: Vec<ScalarValue> = if self.set.counters.is_empty() && !self.seen_rows {
            Vec::new()
        } else {
            self.set.alpha.iter().map(|a| ScalarValue::UInt64(Some(*a))).collect()
        };
        Ok(vec![list(&values, &item), list(&u64s(&|c| c.count), &DataType::UInt64), list(&u64s(&|c| c.error), &DataType::UInt64), list(&alphas, &DataType::UInt64)])
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let top = self.set.top(self.threshold);
        let ChType::Array(element) = &self.result else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, "topK result is an array")) };
        let element_field = element.to_arrow_field("item");
        let items: Vec<ScalarValue> = top.iter().map(|c| c.value.clone()).collect();
        let values: ArrayRef = if items.is_empty() {
            datafusion::arrow::array::new_empty_array(&self.item.to_arrow())
        } else {
            cast(&ScalarValue::iter_to_array(items)?, &self.item.to_arrow())?
        };
        let elements: ArrayRef = if self.include_counts {
            let DataType::Struct(fields) = element_field.data_type() else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, "topK counts are tuples")) };
            let counts: ArrayRef = Arc::new(UInt64Array::from_iter_values(top.iter().map(|c| c.count)));
            let errors: ArrayRef = Arc::new(UInt64Array::from_iter_values(top.iter().map(|c| c.error)));
            Arc::new(datafusion::arrow::array::StructArray::try_new(fields.clone(), vec![values, counts, errors], None)?)
        } else {
            values
        };
        let offsets = datafusion::arrow::buffer::OffsetBuffer::from_lengths([elements.len()]);
        let list = datafusion::arrow::array::ListArray::try_new(Arc::new(element_field), offsets, elements, None)?;
        Ok(ScalarValue::List(Arc::new(list)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.set.counters.capacity() * std::mem::size_of::<Counter>() + self.set.alpha.capacity() * 8
    }
}

// ------------------------------------------------------------------ states for crate::states

/// `reserved` of a `topK` state's function name (`topK(3, 4)`: 12).
fn reserved_of(function: &str) -> DfResult<usize> {
    let params = crate::parametric::params_of_name(function)?;
    let family = match crate::combinators::without_params(function) {
        "topKWeighted" => "topKWeighted",
        "approx_top_k" => "approx_top_k",
        "approx_top_sum" => "approx_top_sum",
        _ => "topK",
    };
    Ok(TopK::with_params(family, &params)?.reserved as usize)
}

/// Writes the accumulator's `state` as ClickHouse's `SpaceSaving::write` does: the best
/// `reserved` counters (its `partial_sort`) as key, VarUInt count, VarUInt error, then
/// the alpha map. A state that never saw a row has no alpha map (one that saw only NULL
/// rows has, for numeric items).
pub(crate) fn write_state(out: &mut Vec<u8>, function: &str, item: &ChType, codec: crate::states::ItemCodec, state: &[ScalarValue]) -> DfResult<()> {
    let reserved = reserved_of(function)?;
    let list = |v: &ScalarValue| -> DfResult<ArrayRef> {
        match v {
            ScalarValue::List(l) if !l.is_null(0) => Ok(l.value(0)),
            ScalarValue::List(_) => Ok(datafusion::arrow::array::new_empty_array(&item.to_arrow())),
            other => Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("topK state field {}", other.data_type()))),
        }
    };
    let [keys, counts, errors, alphas] = state else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, "topK state has four fields")) };
    let (keys, counts, errors, alphas) = (list(keys)?, list(counts)?, list(errors)?, list(alphas)?);
    if keys.is_empty() {
        // The alpha map of a set that saw only NULL rows (see `TopKAccumulator::seen_rows`).
        let alphas = alphas.as_primitive::<UInt64Type>();
        crate::states::put_varuint(out, 0);
        crate::states::put_varuint(out, alphas.len() as u64);
        for a in alphas.values() {
            crate::states::put_varuint(out, *a);
        }
        return Ok(());
    }
    let keys = if keys.data_type() == &item.to_arrow() { keys } else { cast(&keys, &item.to_arrow())? };
    let (counts, errors) = (counts.as_primitive::<UInt64Type>(), errors.as_primitive::<UInt64Type>());
    // The counters carry their row in `value` so the sort moves the row numbers.
    let mut list: Vec<Counter> = Vec::with_capacity(keys.len());
    for (i, key) in row_keys(&keys, item)?.into_iter().enumerate() {
        let Some((key, hash)) = key else { continue };
        list.push(Counter { key, hash, count: counts.value(i), error: errors.value(i), value: ScalarValue::UInt64(Some(i as u64)) });
    }
    let n = list.len().min(reserved);
    partial_sort(&mut list, n, &greater);
    list.truncate(n);
    crate::states::put_varuint(out, n as u64);
    for c in &list {
        let ScalarValue::UInt64(Some(row)) = c.value else { continue };
        crate::states::put_items(out, &keys.slice(row as usize, 1), codec)?;
        crate::states::put_varuint(out, c.count);
        crate::states::put_varuint(out, c.error);
    }
    let alphas = alphas.as_primitive::<UInt64Type>();
    crate::states::put_varuint(out, alphas.len() as u64);
    for a in alphas.values() {
        crate::states::put_varuint(out, *a);
    }
    Ok(())
}

/// Reads a state written by [`write_state`] (or ClickHouse) into the accumulator's state
/// fields, counters in the written order.
pub(crate) fn read_state(input: &mut &[u8], function: &str, item: &ChType, codec: crate::states::ItemCodec) -> DfResult<Vec<ScalarValue>> {
    let reserved = reserved_of(function)?;
    let n = crate::states::get_varuint(input)? as usize;
    if n > reserved {
        return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, format!("Found too large when reading counters (Passed: {n}. Maximum: {reserved})")));
    }
    let mut key_bytes = Vec::new();
    let (mut counts, mut errors) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let start = *input;
        crate::states::get_items(input, 1, item, codec)?;
        key_bytes.extend_from_slice(&start[..start.len() - input.len()]);
        counts.push(crate::states::get_varuint(input)?);
        errors.push(crate::states::get_varuint(input)?);
    }
    let keys = crate::states::get_items(&mut key_bytes.as_slice(), n, item, codec)?;
    let alpha_len = crate::states::get_varuint(input)? as usize;
    let mut alphas = Vec::with_capacity(alpha_len.min(input.len()));
    for _ in 0..alpha_len {
        alphas.push(crate::states::get_varuint(input)?);
    }
    // A state without counters is the empty set, whatever its alpha map.
    if n == 0 {
        alphas.clear();
    }
    let u64_list = |v: Vec<u64>| -> ScalarValue {
        let values: ArrayRef = Arc::new(UInt64Array::from(v));
        let offsets = datafusion::arrow::buffer::OffsetBuffer::from_lengths([values.len()]);
        ScalarValue::List(Arc::new(datafusion::arrow::array::ListArray::new(Arc::new(Field::new("item", DataType::UInt64, true)), offsets, values, None)))
    };
    let offsets = datafusion::arrow::buffer::OffsetBuffer::from_lengths([keys.len()]);
    let keys = ScalarValue::List(Arc::new(datafusion::arrow::array::ListArray::try_new(Arc::new(Field::new("item", keys.data_type().clone(), true)), offsets, keys, None)?));
    Ok(vec![keys, u64_list(counts), u64_list(errors), u64_list(alphas)])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn counter(key: u8, count: u64) -> Counter {
        Counter { key: vec![key], hash: int_hash_crc32(key as u64), count, error: 0, value: ScalarValue::UInt8(Some(key)) }
    }

    /// `topK(number % 7)` and `topK(3)(number % 7)` over numbers(100) in ClickHouse 26.9:
    /// equal counts come out in the order its selection and sort leave them.
    #[test]
    fn ties_in_clickhouse_order() {
        let list: Vec<Counter> = (0..7u8).map(|k| counter(k, if k < 2 { 15 } else { 14 })).collect();
        let mut set = SpaceSaving::new(30);
        set.counters = list;
        let keys = |n: usize| set.top(n).iter().map(|c| c.key[0]).collect::<Vec<_>>();
        assert_eq!(keys(10), vec![0, 1, 5, 4, 6, 2, 3]);
        assert_eq!(keys(3), vec![1, 0, 5]);
    }

    #[test]
    fn string_hash_matches_known_values() {
        assert_eq!(string_hash_crc32(b""), 0);
        // Short and long strings take different paths; both are stable.
        assert_ne!(string_hash_crc32(b"abc"), string_hash_crc32(b"abd"));
        assert_ne!(string_hash_crc32(b"abcdefghij"), string_hash_crc32(b"abcdefghik"));
    }
}
