//! `sumMap`, `minMap`, `maxMap` and their relatives (`sumMapWithOverflow`,
//! `sumMappedArrays`, `minMappedArrays`, `maxMappedArrays`): per key, the sum, minimum or
//! maximum of each value column, with ClickHouse's state bytes.
//!
//! Two forms share one state. Over arrays (`sumMap(keys, values1, values2...)`, or one
//! tuple of them) ClickHouse runs `AggregateFunctionSumMap`: keys sorted, the result a
//! tuple of arrays, the state (version 1) an entry count, then each key with its values
//! written in their promoted types (`UInt64`, `Int64`, `Float64`, `Decimal128`).
//! Over a `Map` it runs the `-Map` combinator over `sum`, `min` or `max`: the result is a
//! `Map` with keys sorted and the state writes each key's nested state (`sum`'s number,
//! `min`/`max`'s set flag and value). Keys order as in MergeTree's combination of
//! `SimpleAggregateFunction(sumMap, ...)` columns ([`crate::map_key::MapKeyPart`]).
//!
//! ClickHouse keeps a `-Map` state's keys in libc++'s `std::unordered_map` and writes
//! them in its iteration order, which [`UnorderedOrder`] repeats for integer and String
//! keys (other key types are written sorted; either order reads back the same).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, MapArray, StructArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{i256, DataType, Field};
use datafusion::common::ScalarValue;
use granary_common::{Error, ErrorCode};
use granary_types::wide::WideInt;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::map_key::{replaces, MapKeyPart};
use crate::native_state::{take, NativeState, NullHandling, Num, NumType, Spec};
use crate::states::{get_varuint, put_varuint};
use crate::value_stats::no_params;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Sum,
    Min,
    Max,
}

#[derive(Debug)]
struct MapSpec {
    /// With parameters, as a state type names it (`sumMapFiltered([1, 2])`).
    name: String,
    op: Op,
    /// `sumMapWithOverflow`: sums stay in the value's type.
    overflow: bool,
    /// `*MappedArrays`, `sumMapWithOverflow`, `sumMapFiltered`: no `Map` form.
    arrays_only: bool,
    /// `sumMapFiltered(keys)`: the keys kept (others are left out as rows come).
    keep: Option<Vec<MapKeyPart>>,
}

fn spec(name: &'static str, op: Op, overflow: bool, arrays_only: bool, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params(name, params)?;
    Ok(Arc::new(MapSpec { name: name.to_string(), op, overflow, arrays_only, keep: None }))
}

/// `sumMapFiltered(keys)` and `sumMapFilteredWithOverflow(keys)`: one Array parameter.
fn filtered(name: &'static str, overflow: bool, params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    let [ScalarValue::List(list)] = params else {
        return Err(match params {
            [_] => ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {name} requires an Array as a parameter")),
            _ => ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function '{name}' requires exactly one parameter of Array type")),
        });
    };
    let values = list.value(0);
    // Keys compare as ClickHouse's Fields: an integer key matches an integer parameter
    // of the same value whatever the widths, never a Float64 one.
    let mut keep = Vec::with_capacity(values.len());
    for i in 0..values.len() {
        let v = ScalarValue::try_from_array(&values, i)?;
        let t = ChType::from_arrow(&v.data_type(), false);
        keep.push(MapKeyPart::of(&v, &t).map_err(Error::into_datafusion)?);
    }
    Ok(Arc::new(MapSpec { name: crate::parametric::parametric_name(name, params), op: Op::Sum, overflow, arrays_only: true, keep: Some(keep) }))
}

pub(crate) fn sum_map_filtered(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    filtered("sumMapFiltered", false, params)
}
pub(crate) fn sum_map_filtered_with_overflow(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    filtered("sumMapFilteredWithOverflow", true, params)
}
pub(crate) fn sum_map_filtered_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(sum_map_filtered, params)
}
pub(crate) fn sum_map_filtered_with_overflow_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(sum_map_filtered_with_overflow, params)
}

pub(crate) fn sum_map(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("sumMap", Op::Sum, false, false, params)
}
pub(crate) fn min_map(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("minMap", Op::Min, false, false, params)
}
pub(crate) fn max_map(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("maxMap", Op::Max, false, false, params)
}
pub(crate) fn sum_map_with_overflow(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("sumMapWithOverflow", Op::Sum, true, true, params)
}
pub(crate) fn sum_mapped_arrays(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("sumMappedArrays", Op::Sum, false, true, params)
}
pub(crate) fn min_mapped_arrays(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("minMappedArrays", Op::Min, false, true, params)
}
pub(crate) fn max_mapped_arrays(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    spec("maxMappedArrays", Op::Max, false, true, params)
}

/// What the arguments are: arrays (given apart or in one tuple) or one `Map`.
#[derive(Debug, Clone)]
struct Shape {
    key: ChType,
    /// The value columns' element types as given (Nullable kept).
    values: Vec<ChType>,
    map: bool,
    tuple: bool,
}

impl MapSpec {
    fn shape(&self, args: &[ChType]) -> DfResult<Shape> {
        let requires_map = || ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "Aggregate function Map requires map as argument");
        let element = |t: &ChType| match t {
            ChType::Array(e) => Some((**e).clone()),
            _ => None,
        };
        if args.len() > 1 && matches!(args[0], ChType::Map(..)) && !self.arrays_only {
            return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Map combinator takes only one map argument"));
        }
        let (elements, map, tuple) = match args {
            [ChType::Map(k, v)] if !self.arrays_only => (vec![(**k).clone(), (**v).clone()], true, false),
            [ChType::Tuple(items)] => (items.iter().map(|(_, t)| element(t)).collect::<Option<Vec<_>>>().ok_or_else(requires_map)?, false, true),
            [_] if self.arrays_only => {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("When function {} gets one argument it must be a tuple", crate::combinators::without_params(&self.name))));
            }
            _ => (args.iter().map(element).collect::<Option<Vec<_>>>().ok_or_else(requires_map)?, false, false),
        };
        if elements.len() < 2 {
            return Err(requires_map());
        }
        let key = elements[0].clone();
        let values = elements[1..].to_vec();
        for t in std::iter::once(&key).chain(&values) {
            if t.strip_nullable() == &ChType::Nothing {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type Nothing of argument for aggregate function {}", self.nested())));
            }
            codec_check(t)?;
        }
        if self.op == Op::Sum {
            for v in &values {
                if !is_summable(v.strip_nullable()) {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument for aggregate function sum", v.strip_nullable())));
                }
            }
        }
        Ok(Shape { key, values, map, tuple })
    }

    fn nested(&self) -> &'static str {
        match self.op {
            Op::Sum => "sum",
            Op::Min => "min",
            Op::Max => "max",
        }
    }

    /// The type a value column's results have.
    fn result_value(&self, value: &ChType, map: bool) -> ChType {
        let plain = value.strip_nullable();
        match self.op {
            Op::Sum if self.overflow => plain.clone(),
            // `sum` over a Map's values: its own result type (Decimal(38, S) too).
            Op::Sum if map => promoted(plain),
            Op::Sum => match plain {
                ChType::Decimal(..) => plain.clone(),
                _ => promoted(plain),
            },
            Op::Min | Op::Max => plain.clone(),
        }
    }

    /// The type sums accumulate in.
    fn accumulated(&self, value: &ChType) -> ChType {
        match self.op {
            Op::Sum if !self.overflow => promoted(value.strip_nullable()),
            _ => value.strip_nullable().clone(),
        }
    }
}

fn is_summable(t: &ChType) -> bool {
    NumType::of(t).is_some() && !matches!(t, ChType::Date | ChType::DateTime(_) | ChType::Date32 | ChType::DateTime64(..) | ChType::Bool)
        || matches!(t, ChType::Decimal(..))
        || WideInt::of(t).is_some()
}

/// ClickHouse's `promoteNumericType`: integers to 64 bits, floats to Float64, decimals to
/// Decimal128 (Decimal256 stays); other types stay.
fn promoted(t: &ChType) -> ChType {
    match t {
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 => ChType::UInt64,
        ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 => ChType::Int64,
        ChType::Float32 | ChType::Float64 => ChType::Float64,
        ChType::Decimal(p, s) if *p <= 38 => ChType::Decimal(38, *s),
        other => other.clone(),
    }
}

/// The types whose values this module reads and writes in ClickHouse's binary layout.
fn codec_check(t: &ChType) -> DfResult<()> {
    let plain = t.strip_nullable();
    if NumType::of(plain).is_some() || WideInt::of(plain).is_some() || matches!(plain, ChType::Decimal(..) | ChType::String | ChType::FixedString(_)) {
        Ok(())
    } else {
        Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("Values of type {t} in sumMap/minMap/maxMap are not supported yet")))
    }
}

impl Spec for MapSpec {
    fn name(&self) -> &str {
        &self.name
    }
    fn arity(&self) -> Arity {
        Arity::at_least(1)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::Skip
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        let shape = self.shape(args)?;
        if shape.map {
            return Ok(ChType::Map(Box::new(shape.key.clone()), Box::new(self.result_value(&shape.values[0], true))));
        }
        let arrays = std::iter::once(shape.key.clone()).chain(shape.values.iter().map(|v| self.result_value(v, false)));
        Ok(ChType::Tuple(arrays.enumerate().map(|(i, t)| ((i + 1).to_string(), ChType::Array(Box::new(t)))).collect()))
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let shape = self.shape(args)?;
        let result = self.result(args)?;
        let accumulated = shape.values.iter().map(|v| self.accumulated(v)).collect();
        let order = (shape.map && key_hash(&shape.key, &ScalarValue::Null).is_some()).then(UnorderedOrder::default);
        Ok(Box::new(MapState { op: self.op, overflow: self.overflow, keep: self.keep.clone(), order, shape, accumulated, result, entries: BTreeMap::new() }))
    }
}

#[derive(Debug)]
struct MapState {
    op: Op,
    overflow: bool,
    keep: Option<Vec<MapKeyPart>>,
    shape: Shape,
    /// Each value column's type in `entries`.
    accumulated: Vec<ChType>,
    result: ChType,
    /// Each key, with the key and its values (None: only NULLs came).
    entries: BTreeMap<MapKeyPart, (ScalarValue, Vec<Option<ScalarValue>>)>,
    /// The `Map` form's keys in ClickHouse's state order, where Granary knows it.
    order: Option<UnorderedOrder>,
}

impl MapState {
    fn combine(&mut self, key: ScalarValue, values: Vec<Option<ScalarValue>>) -> DfResult<()> {
        let part = MapKeyPart::of(&key, &self.shape.key).map_err(Error::into_datafusion)?;
        if self.keep.as_ref().is_some_and(|keep| !keep.contains(&part)) {
            return Ok(());
        }
        let Some((_, old)) = self.entries.get_mut(&part) else {
            if let Some(order) = &mut self.order {
                let hash = key_hash(&self.shape.key, &key).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "Map key without a hash"))?;
                order.insert(hash, part.clone());
            }
            self.entries.insert(part, (key, values));
            return Ok(());
        };
        for ((old, new), t) in old.iter_mut().zip(values).zip(&self.accumulated) {
            let Some(new) = new else { continue };
            *old = Some(match old.take() {
                None => new,
                Some(current) => match self.op {
                    Op::Sum => add(&current, &new, t)?,
                    Op::Min if replaces(&new, &current, t, Ordering::Less) => new,
                    Op::Max if replaces(&new, &current, t, Ordering::Greater) => new,
                    _ => current,
                },
            });
        }
        Ok(())
    }

    /// The key and value columns of each row: the arrays, a tuple's arrays or a map's.
    fn add_rows(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let rows = columns.first().map_or(0, |c| c.len());
        let lists: Vec<ArrayRef> = if self.shape.map {
            let map = columns[0].as_map_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "sumMap expects a Map column"))?;
            let entries = map.entries();
            let offsets = map.offsets().clone();
            let as_list = |values: &ArrayRef, field: &str| -> DfResult<ArrayRef> {
                let field = Arc::new(Field::new(field, values.data_type().clone(), true));
                Ok(Arc::new(datafusion::arrow::array::ListArray::try_new(field, offsets.clone(), Arc::clone(values), None)?))
            };
            vec![as_list(entries.column(0), "keys")?, as_list(entries.column(1), "values")?]
        } else if self.shape.tuple {
            let tuple = columns[0].as_struct_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "sumMap expects a Tuple column"))?;
            tuple.columns().to_vec()
        } else {
            columns.to_vec()
        };
        let lists = lists.iter().map(|l| l.as_list_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "sumMap expects arrays"))).collect::<DfResult<Vec<_>>>()?;
        for row in 0..rows {
            let keys = lists[0].value(row);
            let values: Vec<ArrayRef> = lists[1..].iter().map(|l| l.value(row)).collect();
            if values.iter().any(|v| v.len() != keys.len()) {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Sizes of keys and values arrays do not match"));
            }
            for i in 0..keys.len() {
                let key = ScalarValue::try_from_array(&keys, i)?;
                let row_values = values
                    .iter()
                    .zip(&self.accumulated)
                    .map(|(v, t)| {
                        let value = ScalarValue::try_from_array(v, i)?;
                        Ok(if value.is_null() { None } else { Some(value.cast_to(&t.to_arrow())?) })
                    })
                    .collect::<DfResult<Vec<_>>>()?;
                self.combine(key, row_values)?;
            }
        }
        Ok(())
    }
}

/// `a + b` in type `t`, wrapping as ClickHouse's sums do.
fn add(a: &ScalarValue, b: &ScalarValue, t: &ChType) -> DfResult<ScalarValue> {
    if let (Some(kind), ScalarValue::Decimal256(Some(x), p, s), ScalarValue::Decimal256(Some(y), ..)) = (WideInt::of(t), a, b) {
        return Ok(ScalarValue::Decimal256(Some(kind.wrap(x.wrapping_add(*y))), *p, *s));
    }
    a.add_checked(b).or_else(|_| a.add(b))
}

impl NativeState for MapState {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        self.add_rows(columns)
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let n = get_varuint(input)?;
        // A state read into an empty one keeps its order: it is the same state (the
        // partial states of a query travel this way), not keys inserted one by one.
        let copy = self.entries.is_empty();
        for _ in 0..n {
            let key = get_binary(input, &self.shape.key)?;
            let mut values = Vec::with_capacity(self.accumulated.len());
            for (value, accumulated) in self.shape.values.clone().iter().zip(self.accumulated.clone()) {
                let v = if self.shape.map {
                    self.get_nested(input, &accumulated)?
                } else if value.is_nullable() {
                    get_binary(input, &ChType::Nullable(Box::new(promoted(&accumulated))))?
                } else {
                    get_binary(input, &promoted(&accumulated))?
                };
                values.push(if v.is_null() { None } else { Some(v.cast_to(&accumulated.to_arrow())?) });
            }
            self.combine(key, values)?;
        }
        if let Some(order) = self.order.as_mut().filter(|_| copy) {
            order.keep_insertion_order();
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        // Values were checked against these types when the state was made.
        let _ = self.write_state(out);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let kept: Vec<&(ScalarValue, Vec<Option<ScalarValue>>)> = self
            .entries
            .values()
            // ClickHouse's sumMap leaves out the keys whose sums are all zero; `-Map` and
            // sumMapWithOverflow keep them.
            .filter(|(_, values)| self.shape.map || self.op != Op::Sum || self.overflow || !values.iter().all(|v| v.as_ref().is_none_or(is_zero)))
            .collect();
        let result_values: Vec<ChType> = match &self.result {
            ChType::Map(_, v) => vec![(**v).clone()],
            ChType::Tuple(items) => items[1..]
                .iter()
                .map(|(_, t)| match t {
                    ChType::Array(e) => (**e).clone(),
                    other => other.clone(),
                })
                .collect(),
            _ => return Err(ch_error(ErrorCode::LOGICAL_ERROR, "sumMap result is neither a Map nor a Tuple")),
        };
        let key_type = self.shape.key.to_arrow();
        let keys = column(kept.iter().map(|(k, _)| Some(k.clone())), &key_type)?;
        let mut value_columns = Vec::with_capacity(result_values.len());
        for (i, t) in result_values.iter().enumerate() {
            value_columns.push(column(kept.iter().map(|(_, v)| v[i].clone()), &t.to_arrow())?);
        }
        let offsets = OffsetBuffer::from_lengths([kept.len()]);
        match self.result.to_arrow() {
            DataType::Map(entries_field, sorted) => {
                let DataType::Struct(fields) = entries_field.data_type() else {
                    return Err(ch_error(ErrorCode::LOGICAL_ERROR, "Map entries are not a struct"));
                };
                let entries = StructArray::try_new(fields.clone(), vec![keys, value_columns.remove(0)], None)?;
                let map = MapArray::try_new(Arc::clone(&entries_field), offsets, entries, None, sorted)?;
                Ok(ScalarValue::Map(Arc::new(map)))
            }
            DataType::Struct(fields) => {
                let arrays = fields
                    .iter()
                    .zip(std::iter::once(keys).chain(value_columns))
                    .map(|(field, values)| {
                        let DataType::List(element) = field.data_type() else {
                            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "sumMap result element is not an array"));
                        };
                        Ok(Arc::new(datafusion::arrow::array::ListArray::try_new(Arc::clone(element), offsets.clone(), values, None)?) as ArrayRef)
                    })
                    .collect::<DfResult<Vec<_>>>()?;
                Ok(ScalarValue::Struct(Arc::new(StructArray::try_new(fields, arrays, None)?)))
            }
            other => Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("sumMap result of type {other}"))),
        }
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.entries.len() * 64
    }
}

impl MapState {
    fn write_state(&self, out: &mut Vec<u8>) -> DfResult<()> {
        put_varuint(out, self.entries.len() as u64);
        let in_order: Vec<&(ScalarValue, Vec<Option<ScalarValue>>)> = match &self.order {
            Some(order) => order.keys().filter_map(|k| self.entries.get(k)).collect(),
            None => self.entries.values().collect(),
        };
        for (key, values) in in_order {
            put_binary(out, key, &self.shape.key)?;
            for ((value, given), accumulated) in values.iter().zip(&self.shape.values).zip(&self.accumulated) {
                if self.shape.map {
                    self.put_nested(out, value.as_ref(), accumulated)?;
                    continue;
                }
                let value = value.clone().map_or_else(|| ScalarValue::try_from(&accumulated.to_arrow()), Ok)?;
                if given.is_nullable() {
                    out.push(u8::from(value.is_null()));
                    if value.is_null() {
                        continue;
                    }
                }
                put_binary(out, &value, &promoted(accumulated))?;
            }
        }
        Ok(())
    }

    /// The state of the `-Map` combinator's nested `sum` (the number), or `min`/`max`
    /// (whether a value is set, then the value; a String as its length with the
    /// terminating zero, the bytes and the zero).
    fn put_nested(&self, out: &mut Vec<u8>, value: Option<&ScalarValue>, t: &ChType) -> DfResult<()> {
        match (self.op, value) {
            (Op::Sum, Some(v)) => put_binary(out, v, t),
            (Op::Sum, None) => put_binary(out, &ScalarValue::new_zero(&t.to_arrow())?, t),
            (_, Some(ScalarValue::Utf8(Some(s)))) => {
                out.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
                out.push(0);
                Ok(())
            }
            (_, None) if t == &ChType::String => {
                out.extend_from_slice(&(-1i32).to_le_bytes());
                Ok(())
            }
            (_, Some(v)) => {
                out.push(1);
                put_binary(out, v, t)
            }
            (_, None) => {
                out.push(0);
                Ok(())
            }
        }
    }

    fn get_nested(&self, input: &mut &[u8], t: &ChType) -> DfResult<ScalarValue> {
        if self.op == Op::Sum {
            return get_binary(input, t);
        }
        if t == &ChType::String {
            let len = i32::from_le_bytes(take(input, 4)?.try_into().map_err(|_| crate::native_state::truncated())?);
            if len <= 0 {
                return Ok(ScalarValue::Utf8(None));
            }
            let bytes = take(input, len as usize)?;
            return Ok(ScalarValue::Utf8(Some(String::from_utf8_lossy(&bytes[..bytes.len() - 1]).into_owned())));
        }
        if take(input, 1)?[0] == 0 {
            return Ok(ScalarValue::try_from(&t.to_arrow())?);
        }
        get_binary(input, t)
    }
}

/// What libc++'s `std::hash` gives for a `-Map` key: integers up to 64 bits (dates as
/// their numbers) are their own hash, sign-extended; a String hashes its bytes with
/// CityHash64, which libc++'s `__murmur2_or_cityhash` is on 64-bit targets. None for key
/// types ClickHouse hashes otherwise (wide integers, UUID, FixedString).
fn key_hash(t: &ChType, key: &ScalarValue) -> Option<u64> {
    match t {
        ChType::String => Some(match key {
            ScalarValue::Utf8(Some(s)) => granary_common::hash::city_hash64(s.as_bytes()),
            _ => 0,
        }),
        _ => {
            let num = NumType::of(t).filter(|n| !n.is_float())?;
            if key.is_null() {
                return Some(0);
            }
            let v = num.values(&key.to_array().ok()?).ok()?.first().copied()?;
            match v {
                Num::Int(i) => Some(i as i64 as u64),
                Num::Float(_) => None,
            }
        }
    }
}

/// The iteration order of libc++'s `std::unordered_map` with unique keys, the default
/// maximum load factor of 1 and nodes inserted one by one: a singly linked list whose
/// nodes of one bucket stay together; a node of a new bucket goes to the front of the
/// list, one of a known bucket to the front of that bucket's run; the table grows to the
/// next prime past twice its size, relinking the list as `__do_rehash` does.
#[derive(Debug, Default)]
struct UnorderedOrder {
    /// Node 0 is the list's head (`__p1_`); node `i + 1` holds the `i`-th key inserted.
    next: Vec<usize>,
    hashes: Vec<u64>,
    keys: Vec<MapKeyPart>,
    /// Per bucket, the node before its run (NIL: empty bucket).
    buckets: Vec<usize>,
}

const NIL: usize = usize::MAX;

impl UnorderedOrder {
    fn constrain(hash: u64, count: usize) -> usize {
        let count = count as u64;
        (if count & (count - 1) == 0 { hash & (count - 1) } else { hash % count }) as usize
    }

    fn next_prime(n: usize) -> usize {
        let is_prime = |n: usize| n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0);
        (n..).find(|&m| is_prime(m)).unwrap_or(n)
    }

    fn insert(&mut self, hash: u64, key: MapKeyPart) {
        if self.next.is_empty() {
            self.next.push(NIL);
            self.hashes.push(0);
        }
        let size = self.keys.len();
        let count = self.buckets.len();
        if size + 1 > count {
            let power_of_two = count > 2 && count & (count - 1) == 0;
            let wanted = (2 * count + usize::from(!power_of_two)).max(size + 1);
            let wanted = if wanted == 1 { 2 } else if wanted & (wanted - 1) != 0 { Self::next_prime(wanted) } else { wanted };
            if wanted > count {
                self.rehash(wanted);
            }
        }
        let node = self.next.len();
        self.next.push(NIL);
        self.hashes.push(hash);
        self.keys.push(key);
        let count = self.buckets.len();
        let bucket = Self::constrain(hash, count);
        match self.buckets[bucket] {
            NIL => {
                self.next[node] = self.next[0];
                self.next[0] = node;
                self.buckets[bucket] = 0;
                if self.next[node] != NIL {
                    let after = Self::constrain(self.hashes[self.next[node]], count);
                    self.buckets[after] = node;
                }
            }
            before => {
                self.next[node] = self.next[before];
                self.next[before] = node;
            }
        }
    }

    fn rehash(&mut self, count: usize) {
        self.buckets = vec![NIL; count];
        let mut pp = 0;
        let mut cp = self.next[0];
        if cp == NIL {
            return;
        }
        let mut previous = Self::constrain(self.hashes[cp], count);
        self.buckets[previous] = pp;
        pp = cp;
        cp = self.next[cp];
        while cp != NIL {
            let bucket = Self::constrain(self.hashes[cp], count);
            if bucket == previous {
                pp = cp;
            } else if self.buckets[bucket] == NIL {
                self.buckets[bucket] = pp;
                pp = cp;
                previous = bucket;
            } else {
                let before = self.buckets[bucket];
                self.next[pp] = self.next[cp];
                self.next[cp] = self.next[before];
                self.next[before] = cp;
            }
            cp = self.next[pp];
        }
    }

    /// Relinks the list in the order the keys were inserted, as the list of a state
    /// written in that order was (the table's size depends only on the number of keys).
    fn keep_insertion_order(&mut self) {
        let nodes = self.keys.len();
        for node in 0..=nodes {
            self.next[node] = if node == nodes { NIL } else { node + 1 };
        }
        let count = self.buckets.len();
        self.buckets = vec![NIL; count];
        let mut before = 0;
        for node in 1..=nodes {
            let bucket = Self::constrain(self.hashes[node], count);
            if self.buckets[bucket] == NIL {
                self.buckets[bucket] = before;
            }
            before = node;
        }
    }

    /// The keys in iteration order.
    fn keys(&self) -> impl Iterator<Item = &MapKeyPart> {
        let mut node = self.next.first().copied().unwrap_or(NIL);
        std::iter::from_fn(move || {
            if node == NIL {
                return None;
            }
            let key = &self.keys[node - 1];
            node = self.next[node];
            Some(key)
        })
    }
}

fn is_zero(v: &ScalarValue) -> bool {
    ScalarValue::new_zero(&v.data_type()).is_ok_and(|zero| &zero == v)
}

/// `values` (None: the type's default) as an array of `dt`.
fn column(values: impl Iterator<Item = Option<ScalarValue>>, dt: &DataType) -> DfResult<ArrayRef> {
    let values: Vec<ScalarValue> = values.map(|v| v.map_or_else(|| ScalarValue::new_default(dt), Ok)).collect::<DfResult<_>>()?;
    if values.is_empty() {
        return Ok(datafusion::arrow::array::new_empty_array(dt));
    }
    let array = ScalarValue::iter_to_array(values)?;
    Ok(if array.data_type() == dt { array } else { datafusion::arrow::compute::cast(&array, dt)? })
}

/// The bytes of a decimal of precision `p`.
fn decimal_width(p: u8) -> usize {
    match p {
        0..=9 => 4,
        10..=18 => 8,
        19..=38 => 16,
        _ => 32,
    }
}

/// Writes `v` as ClickHouse's `serializeBinary` of type `t` does.
fn put_binary(out: &mut Vec<u8>, v: &ScalarValue, t: &ChType) -> DfResult<()> {
    if let ChType::Nullable(inner) = t {
        out.push(u8::from(v.is_null()));
        return if v.is_null() { Ok(()) } else { put_binary(out, v, inner) };
    }
    let v = if v.data_type() == t.to_arrow() { v.clone() } else { v.cast_to(&t.to_arrow())? };
    if let Some(num) = NumType::of(t) {
        let array = v.to_array()?;
        let value = num.values(&array)?.first().copied().unwrap_or(Num::Int(0));
        num.write(value, out);
        return Ok(());
    }
    if let Some(kind) = WideInt::of(t) {
        let word = match &v {
            ScalarValue::Decimal128(Some(x), ..) => i256::from_i128(*x),
            ScalarValue::Decimal256(Some(x), ..) => *x,
            _ => i256::ZERO,
        };
        out.extend_from_slice(&word.to_le_bytes()[..kind.byte_width()]);
        return Ok(());
    }
    match (t, &v) {
        (ChType::Decimal(p, _), ScalarValue::Decimal128(x, ..)) => out.extend_from_slice(&x.unwrap_or(0).to_le_bytes()[..decimal_width(*p)]),
        (ChType::Decimal(..), ScalarValue::Decimal256(x, ..)) => out.extend_from_slice(&x.unwrap_or(i256::ZERO).to_le_bytes()),
        (ChType::String, ScalarValue::Utf8(s)) => {
            let s = s.as_deref().unwrap_or_default();
            put_varuint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        (ChType::FixedString(n), ScalarValue::FixedSizeBinary(_, b)) => {
            let mut bytes = b.clone().unwrap_or_default();
            bytes.resize(*n as usize, 0);
            out.extend_from_slice(&bytes);
        }
        _ => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("Cannot write a value of type {t} in a sumMap state"))),
    }
    Ok(())
}

/// Reads what [`put_binary`] writes, as a value of `t`'s Arrow type.
fn get_binary(input: &mut &[u8], t: &ChType) -> DfResult<ScalarValue> {
    if let ChType::Nullable(inner) = t {
        return if take(input, 1)?[0] != 0 { Ok(ScalarValue::try_from(&inner.to_arrow())?) } else { get_binary(input, inner) };
    }
    let dt = t.to_arrow();
    if let Some(num) = NumType::of(t) {
        return num.scalar(num.read(input)?, &dt);
    }
    if let Some(kind) = WideInt::of(t) {
        let bytes = take(input, kind.byte_width())?;
        let mut word = [if kind.is_signed() && bytes[bytes.len() - 1] & 0x80 != 0 { 0xFF } else { 0 }; 32];
        word[..bytes.len()].copy_from_slice(bytes);
        let v = i256::from_le_bytes(word);
        return Ok(match dt {
            DataType::Decimal128(p, s) => ScalarValue::Decimal128(Some(v.as_i128()), p, s),
            DataType::Decimal256(p, s) => ScalarValue::Decimal256(Some(v), p, s),
            _ => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{t} held as {dt}"))),
        });
    }
    Ok(match (t, &dt) {
        (ChType::Decimal(p, _), DataType::Decimal128(dp, ds)) => {
            let width = decimal_width(*p);
            let bytes = take(input, width)?;
            let mut le = [if bytes[width - 1] & 0x80 != 0 { 0xFF } else { 0 }; 16];
            le[..width].copy_from_slice(bytes);
            ScalarValue::Decimal128(Some(i128::from_le_bytes(le)), *dp, *ds)
        }
        (ChType::Decimal(..), DataType::Decimal256(dp, ds)) => {
            let bytes = take(input, 32)?;
            ScalarValue::Decimal256(Some(i256::from_le_bytes(bytes.try_into().map_err(|_| crate::native_state::truncated())?)), *dp, *ds)
        }
        (ChType::String, _) => {
            let len = get_varuint(input)? as usize;
            ScalarValue::Utf8(Some(String::from_utf8_lossy(take(input, len)?).into_owned()))
        }
        (ChType::FixedString(n), _) => ScalarValue::FixedSizeBinary(*n as i32, Some(take(input, *n as usize)?.to_vec())),
        _ => return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("Cannot read a value of type {t} in a sumMap state"))),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::native_state::state_hex as hex;

    fn arrays(keys: Vec<u8>, values: Vec<u8>) -> Vec<ArrayRef> {
        let list = |v: Vec<u8>| -> ArrayRef {
            Arc::new(datafusion::arrow::array::ListArray::from_iter_primitive::<datafusion::arrow::datatypes::UInt8Type, _, _>([Some(v.into_iter().map(Some).collect::<Vec<_>>())]))
        };
        vec![list(keys), list(values)]
    }

    /// Bytes as chdb writes `hex(sumMapState([1,2],[3,4]))` and `minMapState`.
    #[test]
    fn array_form_states_match_clickhouse() {
        let args = [ChType::Array(Box::new(ChType::UInt8)), ChType::Array(Box::new(ChType::UInt8))];
        for factory in [sum_map, min_map] {
            let mut state = factory(&[]).unwrap().new_state(&args).unwrap();
            state.add(&arrays(vec![2, 1], vec![4, 3])).unwrap();
            assert_eq!(hex(state.as_ref()), "02010300000000000000020400000000000000");
        }
        let mut state = sum_map(&[]).unwrap().new_state(&args).unwrap();
        state.add(&arrays(vec![1, 1], vec![2, 254])).unwrap();
        // The sum is 256 in UInt64: kept; a zero sum would be left out of the result only.
        assert_eq!(hex(state.as_ref()), "01010001000000000000");
        let mut merged = sum_map(&[]).unwrap().new_state(&args).unwrap();
        let mut bytes = Vec::new();
        state.write(&mut bytes);
        merged.merge(&mut bytes.as_slice()).unwrap();
        merged.merge(&mut bytes.as_slice()).unwrap();
        assert_eq!(hex(merged.as_ref()), "01010002000000000000");
    }
}
