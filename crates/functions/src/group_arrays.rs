//! Aggregates that collect values into an array or a string, with ClickHouse's results
//! and state bytes: `groupArrayLast(N)` (a ring of the last N values, returned in ring
//! order as ClickHouse does), `groupArraySorted(N)` (the N smallest, sorted),
//! `groupArrayMovingSum/Avg([window])` (prefix sums; the state is the prefix sums) and
//! `groupConcat([separator[, limit]])` (the text of the values joined).
//!
//! Values are written as ClickHouse writes array elements ([`crate::states::ItemCodec`]).
//! `groupArraySorted` keeps its N values in ClickHouse's max-heap, whose array order its
//! states hold (generic values, as String or Decimal, each after a has-value byte).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, ListArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{concat, sort_to_indices, take, SortOptions};
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{illegal_argument, read_u64, NativeState, NullHandling, Num, NumType, Spec};
use crate::parametric::parametric_name;
use crate::states::{get_items, get_varuint, item_codec, put_items, put_varuint, ItemCodec};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Last,
    Sorted,
    MovingSum,
    MovingAvg,
}

#[derive(Debug)]
struct GroupArraySpec {
    name: String,
    kind: Kind,
    /// `N` of `groupArrayLast`/`groupArraySorted`, the window of the moving ones.
    limit: Option<u64>,
}

fn positive_param(function: &str, params: &[ScalarValue], required: bool, wording: &str) -> DfResult<Option<u64>> {
    let bad = || ch_error(ErrorCode::BAD_ARGUMENTS, format!("Parameter for aggregate function {function} should be {wording}"));
    match params {
        [] if required => Err(ch_error(ErrorCode::BAD_ARGUMENTS, match function {
            "groupArrayLast" => "groupArrayLast make sense only with max_elems (groupArrayLast(max_elems)())".to_string(),
            _ => format!("Parameter for aggregate function {function} should have limit argument"),
        })),
        [] => Ok(None),
        [ScalarValue::UInt64(Some(n))] if *n > 0 => Ok(Some(*n)),
        [_] => Err(bad()),
        _ => Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Incorrect number of parameters for aggregate function {function}, should be 0 or 1"))),
    }
}

fn build(name: &'static str, kind: Kind, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let limit = match kind {
        Kind::Last | Kind::Sorted => positive_param(name, params, true, "positive number")?,
        Kind::MovingSum | Kind::MovingAvg => positive_param(name, params, false, "positive integer")?,
    };
    Ok(Arc::new(GroupArraySpec { name: parametric_name(name, params), kind, limit }))
}

pub(crate) fn group_array_last(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    build("groupArrayLast", Kind::Last, params)
}
pub(crate) fn group_array_sorted(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    build("groupArraySorted", Kind::Sorted, params)
}
pub(crate) fn group_array_moving_sum(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    build("groupArrayMovingSum", Kind::MovingSum, params)
}
pub(crate) fn group_array_moving_avg(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    build("groupArrayMovingAvg", Kind::MovingAvg, params)
}

/// The families of this module for [`crate::parametric::FAMILIES`].
pub(crate) fn group_array_last_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(group_array_last, params)
}
pub(crate) fn group_array_sorted_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(group_array_sorted, params)
}
pub(crate) fn group_array_moving_sum_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(group_array_moving_sum, params)
}
pub(crate) fn group_array_moving_avg_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(group_array_moving_avg, params)
}
pub(crate) fn group_concat_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(group_concat, params)
}

/// The Arrow array of no values of ClickHouse type `item`.
fn empty_items(item: &ChType) -> ArrayRef {
    datafusion::arrow::array::new_empty_array(&item.to_arrow())
}

/// One array value (a `List` scalar) holding `values`.
pub(crate) fn list_of(values: ArrayRef, item: &ChType) -> DfResult<ScalarValue> {
    let field = Arc::new(item.to_arrow_field("item"));
    let offsets = OffsetBuffer::from_lengths([values.len()]);
    Ok(ScalarValue::List(Arc::new(ListArray::try_new(field, offsets, values, None)?)))
}

/// The type moving sums add up in: Int64, UInt64 or Float64 (ClickHouse's sum types).
fn moving_sum_type(arg: &ChType) -> Option<ChType> {
    Some(match NumType::of(arg)? {
        NumType::Int { signed: true, .. } => ChType::Int64,
        NumType::Int { signed: false, .. } => ChType::UInt64,
        _ => ChType::Float64,
    })
}

impl Spec for GroupArraySpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::Skip
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        let function = crate::combinators::without_params(&self.name);
        let arg = &args[0];
        let plain_number = matches!(arg, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64);
        match self.kind {
            Kind::Last | Kind::Sorted => {
                item_codec(arg).ok_or_else(|| illegal_argument(function, arg))?;
                Ok(ChType::Array(Box::new(arg.clone())))
            }
            Kind::MovingSum if plain_number => Ok(ChType::Array(Box::new(moving_sum_type(arg).ok_or_else(|| illegal_argument(function, arg))?))),
            Kind::MovingAvg if plain_number => Ok(ChType::Array(Box::new(ChType::Float64))),
            _ => Err(illegal_argument(function, arg)),
        }
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let result = self.result(args)?;
        let item = args[0].clone();
        let limit = self.limit.unwrap_or(u64::MAX);
        Ok(match self.kind {
            Kind::Last => Box::new(LastValues { codec: codec_of(&item)?, ring: empty_items(&item), item, limit, total: 0 }),
            Kind::Sorted => Box::new(SortedValues { codec: codec_of(&item)?, values: empty_items(&item), item, limit: limit as usize }),
            Kind::MovingSum | Kind::MovingAvg => {
                let ChType::Array(sum) = result else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, "moving sums return arrays")) };
                let sum_ty = NumType::of(&sum).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "moving sums are numbers"))?;
                Box::new(MovingSums { ty: sum_ty, sum_type: *sum, prefix: Vec::new(), window: self.limit, average: self.kind == Kind::MovingAvg })
            }
        })
    }
}

fn codec_of(item: &ChType) -> DfResult<ItemCodec> {
    item_codec(item).ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {item} of argument")))
}

/// The size of a value ClickHouse's `serializeBinary` writes without a length
/// (Decimal, FixedString), where `ItemCodec` has one.
fn raw_width(item: &ChType, codec: ItemCodec) -> Option<usize> {
    match (item, codec) {
        (ChType::FixedString(n), _) => Some(*n as usize),
        (_, ItemCodec::Decimal(width)) => Some(width),
        _ => None,
    }
}

/// Writes value `i` of `values` (of type `item`) as ClickHouse's `serializeBinary` of
/// one generic value (a `Field`) does.
fn put_binary_value(out: &mut Vec<u8>, values: &ArrayRef, i: usize, item: &ChType, codec: ItemCodec) {
    let mut bytes = Vec::new();
    // Values of the argument's type always encode.
    let _ = put_items(&mut bytes, &values.slice(i, 1), codec);
    let mut rest = bytes.as_slice();
    if raw_width(item, codec).is_some() && get_varuint(&mut rest).is_ok() {
        out.extend_from_slice(rest);
    } else {
        out.extend_from_slice(&bytes);
    }
}

/// Reads one value written by [`put_binary_value`] as an array of one `item`.
fn get_binary_value(input: &mut &[u8], item: &ChType, codec: ItemCodec) -> DfResult<ArrayRef> {
    match raw_width(item, codec) {
        Some(width) => {
            let mut bytes = Vec::with_capacity(width + 1);
            put_varuint(&mut bytes, width as u64);
            bytes.extend_from_slice(crate::native_state::take(input, width)?);
            get_items(&mut bytes.as_slice(), 1, item, codec)
        }
        None => get_items(input, 1, item, codec),
    }
}

/// `parts` (arrays of `item`) as one array.
fn concat_items(parts: &[ArrayRef], item: &ChType) -> DfResult<ArrayRef> {
    if parts.is_empty() {
        return Ok(empty_items(item));
    }
    let parts: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
    Ok(concat(&parts)?)
}

// ------------------------------------------------------------------ groupArrayLast

/// The last `limit` values in ClickHouse's ring: value `i` (counting from 0) sits at
/// `i % limit`.
#[derive(Debug, Clone)]
struct LastValues {
    item: ChType,
    codec: ItemCodec,
    ring: ArrayRef,
    limit: u64,
    /// Values seen, including those overwritten.
    total: u64,
}

impl LastValues {
    /// Appends `values` in order to the ring.
    fn push(&mut self, values: &ArrayRef) -> DfResult<()> {
        let n = values.len() as u64;
        // Only the last `limit` values of the batch can survive.
        let skip = n.saturating_sub(self.limit);
        let kept = values.slice(skip as usize, (n - skip) as usize);
        self.total += skip;
        let target = self.item.to_arrow();
        let kept = if kept.data_type() == &target { kept } else { datafusion::arrow::compute::cast(&kept, &target)? };
        // Slot of every ring position after the batch: the ring's old values, then the
        // batch's, each slot taken by the last value written to it.
        let old_len = self.ring.len() as u64;
        let new_len = (old_len + kept.len() as u64).min(self.limit);
        let mut source: Vec<(u32, u32)> = (0..new_len).map(|slot| (0, slot as u32)).collect();
        for j in 0..kept.len() as u64 {
            let slot = ((self.total + j) % self.limit) as usize;
            source[slot] = (1, j as u32);
        }
        let both = concat(&[self.ring.as_ref(), kept.as_ref()])?;
        let indices = datafusion::arrow::array::UInt32Array::from_iter_values(source.iter().map(|(from, i)| if *from == 0 { *i } else { old_len as u32 + *i }));
        self.ring = take(&both, &indices, None)?;
        self.total += kept.len() as u64;
        Ok(())
    }
}

impl NativeState for LastValues {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        self.push(&columns[0])
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let n = get_varuint(input)? as usize;
        let values = get_items(input, n, &self.item, self.codec)?;
        let total = read_u64(input)?;
        // ClickHouse appends the other ring's values in its storage order, then counts
        // the values it had overwritten.
        self.push(&values)?;
        self.total += total.saturating_sub(n as u64);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.ring.len() as u64);
        // Values of the argument's type always encode.
        let _ = put_items(out, &self.ring, self.codec);
        out.extend_from_slice(&self.total.to_le_bytes());
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        list_of(Arc::clone(&self.ring), &self.item)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.ring.get_array_memory_size()
    }
}

// ------------------------------------------------------------------ groupArraySorted

/// ClickHouse's `groupArraySorted(N)` state (its heap strategy, for N up to 1000000): the
/// N smallest values as a max-heap, in the heap's array order, which is what the state
/// bytes hold. Values go in one at a time: `std::push_heap` until the heap is full, then
/// a smaller value replaces the top and sinks (`heapReplaceTop`).
#[derive(Debug, Clone)]
struct SortedValues {
    item: ChType,
    codec: ItemCodec,
    /// The heap, in its array order.
    values: ArrayRef,
    limit: usize,
}

impl SortedValues {
    /// Whether ClickHouse keeps `item` as a plain number (numbers, Date, DateTime, IPv4)
    /// rather than a generic value, which its state writes with a has-value byte first.
    fn plain(&self) -> bool {
        !matches!(self.item, ChType::String | ChType::FixedString(_) | ChType::Decimal(..) | ChType::Date32 | ChType::DateTime64(..) | ChType::Enum8(_) | ChType::Enum16(_))
    }

    fn absorb(&mut self, values: &ArrayRef) -> DfResult<()> {
        let target = self.item.to_arrow();
        let values = if values.data_type() == &target { Arc::clone(values) } else { datafusion::arrow::compute::cast(values, &target)? };
        let old = self.values.len();
        let both = concat(&[self.values.as_ref(), values.as_ref()])?;
        let compare = datafusion::arrow::array::make_comparator(both.as_ref(), both.as_ref(), SortOptions { descending: false, nulls_first: false })?;
        let less = |a: u32, b: u32| compare(a as usize, b as usize) == std::cmp::Ordering::Less;
        let mut heap: Vec<u32> = (0..old as u32).collect();
        for element in old as u32..both.len() as u32 {
            if heap.len() >= self.limit {
                if !less(element, heap[0]) {
                    continue;
                }
                heap[0] = element;
                replace_top(&mut heap, &less);
            } else {
                heap.push(element);
                sift_up(&mut heap, &less);
            }
        }
        self.values = take(&both, &datafusion::arrow::array::UInt32Array::from(heap), None)?;
        Ok(())
    }
}

/// libc++'s `push_heap` of the last element of a max-heap.
fn sift_up(heap: &mut [u32], less: &impl Fn(u32, u32) -> bool) {
    let Some(mut index) = heap.len().checked_sub(1) else { return };
    let value = heap[index];
    while index > 0 {
        let parent = (index - 1) / 2;
        if !less(heap[parent], value) {
            break;
        }
        heap[index] = heap[parent];
        index = parent;
    }
    heap[index] = value;
}

/// ClickHouse's `heapReplaceTop`: sinks a new top of a max-heap.
fn replace_top(heap: &mut [u32], less: &impl Fn(u32, u32) -> bool) {
    let size = heap.len();
    if size < 2 {
        return;
    }
    let mut child = 1;
    if size > 2 && less(heap[1], heap[2]) {
        child = 2;
    }
    if less(heap[child], heap[0]) {
        return;
    }
    let mut current = 0;
    let top = heap[0];
    loop {
        heap[current] = heap[child];
        current = child;
        child = 2 * child + 1;
        if child >= size {
            break;
        }
        if child + 1 < size && less(heap[child], heap[child + 1]) {
            child += 1;
        }
        if less(heap[child], top) {
            break;
        }
    }
    heap[current] = top;
}

impl NativeState for SortedValues {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        self.absorb(&columns[0])
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let n = get_varuint(input)? as usize;
        if n > self.limit {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, format!("Too large array size, it should not exceed {}", self.limit)));
        }
        let values = if self.plain() {
            get_items(input, n, &self.item, self.codec)?
        } else {
            let mut parts = Vec::with_capacity(n.min(input.len()));
            for _ in 0..n {
                // Every value of the argument's type is present.
                let _has_value = crate::native_state::take(input, 1)?;
                parts.push(get_binary_value(input, &self.item, self.codec)?);
            }
            concat_items(&parts, &self.item)?
        };
        // ClickHouse adds the other state's values one by one in its heap order.
        self.absorb(&values)
    }
    fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.values.len() as u64);
        if self.plain() {
            let _ = put_items(out, &self.values, self.codec);
        } else {
            for i in 0..self.values.len() {
                out.push(1);
                put_binary_value(out, &self.values, i, &self.item, self.codec);
            }
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let order = sort_to_indices(&self.values, Some(SortOptions { descending: false, nulls_first: false }), None)?;
        list_of(take(&self.values, &order, None)?, &self.item)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.values.get_array_memory_size()
    }
}

// ------------------------------------------------------------------ groupArrayMovingSum/Avg

#[derive(Debug, Clone)]
struct MovingSums {
    /// The type of the sums (Int64, UInt64 or Float64).
    ty: NumType,
    sum_type: ChType,
    /// The running sum after each value.
    prefix: Vec<Num>,
    window: Option<u64>,
    average: bool,
}

impl MovingSums {
    fn last(&self) -> Num {
        self.prefix.last().copied().unwrap_or(self.ty.zero())
    }
}

impl NativeState for MovingSums {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let values = self.ty.values(&columns[0])?;
        let mut sum = self.last();
        self.prefix.reserve(values.len());
        for v in values {
            sum = self.ty.add(sum, v);
            self.prefix.push(sum);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let n = get_varuint(input)?;
        if n.saturating_mul(self.ty.width() as u64) > input.len() as u64 {
            return Err(crate::native_state::truncated());
        }
        // The other state's sums start from zero: shift them by this state's total.
        let base = self.last();
        for _ in 0..n {
            let v = self.ty.read(input)?;
            self.prefix.push(self.ty.add(base, v));
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.prefix.len() as u64);
        for v in &self.prefix {
            self.ty.write(*v, out);
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let window = self.window.map_or(self.prefix.len(), |w| w.min(usize::MAX as u64) as usize);
        let moving = |i: usize| if i < window { self.prefix[i] } else { self.ty.sub(self.prefix[i], self.prefix[i - window]) };
        let values: ArrayRef = if self.average {
            let divisor = window as f64;
            Arc::new(datafusion::arrow::array::Float64Array::from_iter_values((0..self.prefix.len()).map(|i| moving(i).as_f64() / divisor)))
        } else {
            match self.ty {
                NumType::Int { signed: true, .. } => Arc::new(datafusion::arrow::array::Int64Array::from_iter_values((0..self.prefix.len()).map(|i| match moving(i) {
                    Num::Int(v) => v as i64,
                    Num::Float(f) => f as i64,
                }))),
                NumType::Int { signed: false, .. } => Arc::new(datafusion::arrow::array::UInt64Array::from_iter_values((0..self.prefix.len()).map(|i| match moving(i) {
                    Num::Int(v) => v as u64,
                    Num::Float(f) => f as u64,
                }))),
                _ => Arc::new(datafusion::arrow::array::Float64Array::from_iter_values((0..self.prefix.len()).map(|i| moving(i).as_f64()))),
            }
        };
        let item = if self.average { ChType::Float64 } else { self.sum_type.clone() };
        list_of(values, &item)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.prefix.capacity() * std::mem::size_of::<Num>()
    }
}

// ------------------------------------------------------------------ groupConcat

#[derive(Debug)]
struct GroupConcatSpec {
    name: String,
    separator: String,
    limit: Option<u64>,
}

pub(crate) fn group_concat(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let separator = match params.first() {
        None => String::new(),
        Some(ScalarValue::Utf8(Some(s))) => s.clone(),
        Some(_) => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "First parameter for aggregate function groupConcat should be string")),
    };
    let limit = match params.get(1) {
        None => None,
        Some(ScalarValue::UInt64(Some(n))) if *n > 0 => Some(*n),
        Some(other) => return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Second parameter for aggregate function groupConcat should be a positive number, got: {other}"))),
    };
    if params.len() > 2 {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Incorrect number of parameters for aggregate function groupConcat, should be 0, 1 or 2"));
    }
    Ok(Arc::new(GroupConcatSpec { name: parametric_name("groupConcat", params), separator, limit }))
}

impl Spec for GroupConcatSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn result(&self, _args: &[ChType]) -> DfResult<ChType> {
        Ok(ChType::String)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        Ok(Box::new(Concatenated { arg: args[0].clone(), separator: self.separator.clone(), limit: self.limit, data: Vec::new(), spans: Vec::new() }))
    }
}

/// ClickHouse's `GroupConcatData`: the joined text, and (with a limit) where each value is.
#[derive(Debug, Clone)]
struct Concatenated {
    arg: ChType,
    separator: String,
    limit: Option<u64>,
    data: Vec<u8>,
    /// Each value's (start, end) in `data`.
    spans: Vec<(u64, u64)>,
}

impl Concatenated {
    fn full(&self) -> bool {
        self.limit.is_some_and(|l| self.spans.len() as u64 >= l)
    }

    fn append(&mut self, value: &[u8]) {
        if self.full() {
            return;
        }
        if !self.spans.is_empty() {
            self.data.extend_from_slice(self.separator.as_bytes());
        }
        let start = self.data.len() as u64;
        self.data.extend_from_slice(value);
        self.spans.push((start, self.data.len() as u64));
    }
}

impl NativeState for Concatenated {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let field = self.arg.to_arrow_field("value");
        let text = crate::string_build::as_text(&columns[0], &field, &datafusion::config::ConfigOptions::default())?;
        for value in text.iter() {
            if self.full() {
                break;
            }
            self.append(value.unwrap_or_default().as_bytes());
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let len = get_varuint(input)? as usize;
        let data = crate::native_state::take(input, len)?;
        match self.limit {
            None => {
                if data.is_empty() {
                    return Ok(());
                }
                // Without a limit ClickHouse keeps no positions: the other text is one piece.
                self.append(data);
            }
            Some(_) => {
                let rows = get_varuint(input)?;
                for _ in 0..rows {
                    let (start, end) = (get_varuint(input)? as usize, get_varuint(input)? as usize);
                    let value = data.get(start..end).ok_or_else(crate::native_state::truncated)?;
                    self.append(value);
                }
            }
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.data.len() as u64);
        out.extend_from_slice(&self.data);
        if self.limit.is_some() {
            put_varuint(out, self.spans.len() as u64);
            for (start, end) in &self.spans {
                put_varuint(out, *start);
                put_varuint(out, *end);
            }
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        Ok(ScalarValue::Utf8(Some(String::from_utf8_lossy(&self.data).into_owned())))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.data.capacity() + self.spans.capacity() * 16
    }
}

// ------------------------------------------------------------------ groupArrayInsertAt

/// ClickHouse's `AGGREGATE_FUNCTION_GROUP_ARRAY_INSERT_AT_MAX_SIZE`: positions and sizes
/// stay below it.
const INSERT_AT_MAX_SIZE: u64 = 0xFF_FFFF;

#[derive(Debug)]
struct InsertAtSpec {
    name: String,
    /// The default value as given (NULL: the type's default).
    default: ScalarValue,
    /// The size results are cut or padded to (none: as many as the highest position).
    length: Option<u64>,
}

pub(crate) fn group_array_insert_at(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    if params.len() > 2 {
        return Err(ch_error(ErrorCode::TOO_MANY_ARGUMENTS_FOR_FUNCTION, "Aggregate function groupArrayInsertAt requires at most two parameters."));
    }
    let length = match params.get(1) {
        None => None,
        Some(p) => {
            let length = match p {
                ScalarValue::UInt64(Some(n)) => *n,
                ScalarValue::Int64(Some(n)) => *n as u64,
                ScalarValue::Float64(Some(f)) => *f as u64,
                other => return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot convert {other} to UInt64"))),
            };
            if length > INSERT_AT_MAX_SIZE {
                return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, format!("Too large array size (maximum: {INSERT_AT_MAX_SIZE})")));
            }
            // Zero means no resizing, as in ClickHouse.
            Some(length).filter(|l| *l > 0)
        }
    };
    Ok(Arc::new(InsertAtSpec { name: parametric_name("groupArrayInsertAt", params), default: params.first().cloned().unwrap_or(ScalarValue::Null), length }))
}

pub(crate) fn group_array_insert_at_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(group_array_insert_at, params)
}

impl InsertAtSpec {
    /// The default value as a value of `item`, converted as ClickHouse's
    /// `convertFieldToType` does: numbers must fit exactly, strings only go to strings.
    fn default_of(&self, item: &ChType) -> DfResult<ScalarValue> {
        let target = item.to_arrow();
        let param = &self.default;
        if param.is_null() {
            return Ok(ScalarValue::new_default(&target)?);
        }
        let cannot = || {
            ch_error(
                ErrorCode::CANNOT_CONVERT_TYPE,
                format!("Cannot convert parameter of aggregate function groupArrayInsertAt ({param}) to type {item} to be used as default value in array"),
            )
        };
        let textual = matches!(item, ChType::String | ChType::FixedString(_));
        match (param, item) {
            (ScalarValue::Utf8(Some(s)), ChType::FixedString(n)) => {
                if s.len() > *n as usize {
                    return Err(ch_error(ErrorCode::TOO_LARGE_STRING_SIZE, "Too large string for FixedString column"));
                }
                let mut bytes = s.as_bytes().to_vec();
                bytes.resize(*n as usize, 0);
                Ok(ScalarValue::FixedSizeBinary(*n as i32, Some(bytes)))
            }
            (ScalarValue::Utf8(Some(s)), _) if NumType::of(item).is_some() && !matches!(item, ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..)) => {
                Err(ch_error(ErrorCode::TYPE_MISMATCH, format!("Cannot convert string '{s}' to type {item}")))
            }
            (ScalarValue::Utf8(Some(_)), _) => param.cast_to(&target).map_err(|_| cannot()),
            (_, _) if textual => Err(ch_error(ErrorCode::TYPE_MISMATCH, format!("Type mismatch in IN or VALUES section. Expected: {item}. Got: {}", param.data_type()))),
            (_, _) => {
                let converted = param.cast_to(&target).map_err(|_| cannot())?;
                // Integers take only values they hold exactly (1.5 or 300 into UInt8 fail).
                if !target.is_floating() && converted.cast_to(&param.data_type()).ok().as_ref() != Some(param) {
                    return Err(cannot());
                }
                Ok(converted)
            }
        }
    }
}

impl InsertAtSpec {
    /// The result type, checking the arguments. Until the plan's integer literals are
    /// narrowed (`number * 2` is Int64 at first, UInt64 to ClickHouse), an Int64
    /// position is let through; the final types are checked when the state is made.
    fn checked(&self, args: &[ChType], final_types: bool) -> DfResult<ChType> {
        let [item, position] = args else {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Aggregate function groupArrayInsertAt requires two arguments."));
        };
        let unsigned = matches!(position, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Bool);
        if !unsigned && (final_types || position != &ChType::Int64) {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "Second argument of aggregate function groupArrayInsertAt must be unsigned integer."));
        }
        item_codec(item).ok_or_else(|| illegal_argument("groupArrayInsertAt", item))?;
        self.default_of(item)?;
        Ok(ChType::Array(Box::new(item.clone())))
    }
}

impl Spec for InsertAtSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(2)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::DefaultResult
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        self.checked(args, false)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.checked(args, true)?;
        let item = args[0].clone();
        Ok(Box::new(InsertedAt {
            codec: codec_of(&item)?,
            default: self.default_of(&item)?,
            values: empty_items(&item),
            item,
            length: self.length,
            slots: Vec::new(),
        }))
    }
}

/// ClickHouse's array of `Field`s: each position holds the first value inserted there.
#[derive(Debug, Clone)]
struct InsertedAt {
    item: ChType,
    codec: ItemCodec,
    default: ScalarValue,
    length: Option<u64>,
    /// The values inserted, in the order they came.
    values: ArrayRef,
    /// Each position's index in `values`; `None` where nothing was inserted.
    slots: Vec<Option<u32>>,
}

impl InsertedAt {
    /// Appends `rows` of `from` to the values.
    fn append(&mut self, from: &ArrayRef, rows: Vec<u32>) -> DfResult<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let taken = take(from, &datafusion::arrow::array::UInt32Array::from(rows), None)?;
        self.values = concat(&[self.values.as_ref(), taken.as_ref()])?;
        Ok(())
    }

    /// Claims `position` for the next value appended; false when it is taken.
    fn claim(&mut self, position: usize, next: usize) -> bool {
        if self.slots.len() <= position {
            self.slots.resize(position + 1, None);
        } else if self.slots[position].is_some() {
            return false;
        }
        self.slots[position] = Some(next as u32);
        true
    }
}

impl NativeState for InsertedAt {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let target = self.item.to_arrow();
        let values = if columns[0].data_type() == &target { Arc::clone(&columns[0]) } else { datafusion::arrow::compute::cast(&columns[0], &target)? };
        let positions = datafusion::arrow::compute::cast(&columns[1], &datafusion::arrow::datatypes::DataType::UInt64)?;
        let positions = positions.as_any().downcast_ref::<datafusion::arrow::array::UInt64Array>().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "positions are UInt64"))?;
        let mut rows = Vec::new();
        for (row, &position) in positions.values().iter().enumerate() {
            // Values past the size results are cut to are ignored.
            if self.length.is_some_and(|l| position >= l) {
                continue;
            }
            if position >= INSERT_AT_MAX_SIZE {
                return Err(ch_error(
                    ErrorCode::TOO_LARGE_ARRAY_SIZE,
                    format!("Too large array size: position argument ({position}) is greater or equals to limit ({INSERT_AT_MAX_SIZE})"),
                ));
            }
            if self.claim(position as usize, self.values.len() + rows.len()) {
                rows.push(row as u32);
            }
        }
        self.append(&values, rows)
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let n = get_varuint(input)?;
        if n > INSERT_AT_MAX_SIZE {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, format!("Too large array size (maximum: {INSERT_AT_MAX_SIZE})")));
        }
        let mut parts = Vec::new();
        let mut incoming = Vec::with_capacity((n as usize).min(input.len()));
        for _ in 0..n {
            let is_null = crate::native_state::take(input, 1)?[0];
            if is_null == 0 {
                parts.push(get_binary_value(input, &self.item, self.codec)?);
                incoming.push(Some(parts.len() as u32 - 1));
            } else {
                incoming.push(None);
            }
        }
        let other = concat_items(&parts, &self.item)?;
        let mut rows = Vec::new();
        if self.slots.len() < incoming.len() {
            self.slots.resize(incoming.len(), None);
        }
        for (position, value) in incoming.into_iter().enumerate() {
            if let Some(row) = value {
                if self.slots[position].is_none() {
                    self.slots[position] = Some((self.values.len() + rows.len()) as u32);
                    rows.push(row);
                }
            }
        }
        self.append(&other, rows)
    }
    fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.slots.len() as u64);
        for slot in &self.slots {
            match slot {
                None => out.push(1),
                Some(index) => {
                    out.push(0);
                    put_binary_value(out, &self.values, *index as usize, &self.item, self.codec);
                }
            }
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let size = (self.slots.len() as u64).max(self.length.unwrap_or(0)) as usize;
        let default = self.values.len() as u32;
        let with_default = concat(&[self.values.as_ref(), self.default.to_array_of_size(1)?.as_ref()])?;
        let indices = datafusion::arrow::array::UInt32Array::from_iter_values((0..size).map(|i| self.slots.get(i).copied().flatten().unwrap_or(default)));
        list_of(take(&with_default, &indices, None)?, &self.item)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.values.get_array_memory_size() + self.slots.capacity() * std::mem::size_of::<Option<u32>>()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{AsArray, UInt64Array};

    use crate::native_state::state_hex as hex;

    /// chdb: `groupArrayLast(3)(number)` over `numbers(10)` is [9, 7, 8] (ring order),
    /// state `03` 9 7 8 then the total 10; the same from batches of 4 and from a merge.
    #[test]
    fn last_values_ring_order() {
        let spec = GroupArraySpec { name: "groupArrayLast(3)".into(), kind: Kind::Last, limit: Some(3) };
        let expected = "030900000000000000070000000000000008000000000000000A00000000000000";
        let mut whole = spec.new_state(&[ChType::UInt64]).unwrap();
        whole.add(&[Arc::new(UInt64Array::from_iter_values(0..10)) as ArrayRef]).unwrap();
        assert_eq!(hex(whole.as_ref()), expected);
        let mut batches = spec.new_state(&[ChType::UInt64]).unwrap();
        for start in [0, 4, 8] {
            batches.add(&[Arc::new(UInt64Array::from_iter_values(start..(start + 4).min(10))) as ArrayRef]).unwrap();
        }
        assert_eq!(hex(batches.as_ref()), expected);
    }

    /// chdb's `groupArraySortedState(5)(number * 7 % 11)` over `numbers(20)`: the heap's
    /// array order, however the rows are batched.
    #[test]
    fn sorted_values_heap_order() {
        let spec = GroupArraySpec { name: "groupArraySorted(5)".into(), kind: Kind::Sorted, limit: Some(5) };
        let values: Vec<u64> = (0..20).map(|n| n * 7 % 11).collect();
        let mut whole = spec.new_state(&[ChType::UInt8]).unwrap();
        whole.add(&[Arc::new(datafusion::arrow::array::UInt8Array::from_iter_values(values.iter().map(|v| *v as u8))) as ArrayRef]).unwrap();
        assert_eq!(hex(whole.as_ref()), "050201000001");
        let mut batches = spec.new_state(&[ChType::UInt8]).unwrap();
        for chunk in values.chunks(3) {
            batches.add(&[Arc::new(datafusion::arrow::array::UInt8Array::from_iter_values(chunk.iter().map(|v| *v as u8))) as ArrayRef]).unwrap();
        }
        assert_eq!(hex(batches.as_ref()), "050201000001");
    }

    /// Prefix sums merged: [0, 1, 2] then [3, 4] is [0, 1, 3, 6, 10]; window 3 gives
    /// [0, 1, 3, 6, 9] (chdb's `groupArrayMovingSum(3)(number)` over `numbers(5)`).
    #[test]
    fn moving_sums_merge() {
        let spec = GroupArraySpec { name: "groupArrayMovingSum(3)".into(), kind: Kind::MovingSum, limit: Some(3) };
        let mut left = spec.new_state(&[ChType::UInt64]).unwrap();
        left.add(&[Arc::new(UInt64Array::from_iter_values(0..3)) as ArrayRef]).unwrap();
        let mut right = spec.new_state(&[ChType::UInt64]).unwrap();
        right.add(&[Arc::new(UInt64Array::from_iter_values(3..5)) as ArrayRef]).unwrap();
        let mut bytes = Vec::new();
        right.write(&mut bytes);
        left.merge(&mut bytes.as_slice()).unwrap();
        assert_eq!(hex(left.as_ref()), "0500000000000000000100000000000000030000000000000006000000000000000A00000000000000");
        let ScalarValue::List(list) = left.finish().unwrap() else { panic!("not a list") };
        assert_eq!(list.value(0).as_primitive::<datafusion::arrow::datatypes::UInt64Type>().values().to_vec(), vec![0, 1, 3, 6, 9]);
    }
}
