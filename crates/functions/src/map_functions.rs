//! Functions over `Map(K, V)`: `mapKeys(m)` (`Array(K)`), `mapValues(m)` (`Array(V)`),
//! `mapContains(m, k)` / `mapContainsKey` and `mapContainsValue(m, v)` (UInt8). The
//! entries of an Arrow map are one keys column and one values column cut by the map's
//! offsets, so the keys and values arrays are those columns under the same offsets, and
//! a search compares every entry with its row's needle in one kernel pass.
//!
//! `mapFromArrays(keys, values)` (alias `MAP_FROM_ARRAYS`) pairs two arrays of equal
//! sizes, and `mapConcat(m1, ...)` joins maps row by row (duplicate keys stay, as in
//! ClickHouse), in the least supertype of their keys and of their values.
//!
//! `mapContainsKeyLike(m, pattern)` / `mapContainsValueLike` (UInt8) and
//! `mapExtractKeyLike` / `mapExtractValueLike` (the entries that match) run one LIKE
//! kernel over every entry, the pattern compiled once when it is a constant.
//! `mapPopulateSeries(m[, max])` / `mapPopulateSeries(keys, values[, max])` fills the
//! integer keys between the smallest and the largest (or `max`) with zero values.
//! `mapSort(m)`, `mapReverseSort(m)`, `mapPartialSort(limit, m)` and
//! `mapPartialReverseSort(limit, m)` order the entries as `(key, value)` tuples; their
//! forms with a lambda are in [`crate::lambda`].

use std::collections::HashSet;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, MapArray, StructArray, UInt32Array, UInt8Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::kernels::cmp;
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, Arity, DfResult};
use crate::conversion::convert::{convert, Conv, Mode};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::supertype::least_supertype;

fn map_types(ctx: &RetCtx, name: &str) -> DfResult<(ChType, ChType)> {
    match ctx.ch(0).strip_nullable().clone() {
        ChType::Map(k, v) => Ok((*k, *v)),
        _ => Err(illegal_type(name, 0, ctx.field(0))),
    }
}

/// `mapKeys(m)` (`keys` true) or `mapValues(m)`.
fn map_part(name: &'static str, keys: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            let (k, v) = map_types(ctx, ctx.name)?;
            Ok(ChType::Array(Box::new(if keys { k } else { v })))
        },
        move |ctx| {
            let array = ctx.array(0)?;
            let map = array.as_map_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {} takes a Map", ctx.name)))?;
            let DataType::List(field) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return an Array", ctx.name)));
            };
            let part = if keys { map.keys() } else { map.values() };
            Ok(Arc::new(ListArray::try_new(field.clone(), map.offsets().clone(), part.clone(), map.nulls().cloned())?))
        },
    )
    .build()
}

/// `mapContains(m, k)` (`keys` true) or `mapContainsValue(m, v)`.
fn map_contains(name: &'static str, keys: bool, aliases: &[&str]) -> ScalarUDF {
    let mut def = ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            let (k, v) = map_types(ctx, ctx.name)?;
            common_type(if keys { &k } else { &v }, &needle_type(ctx.ch(1), ctx.scalar(1)))?;
            Ok(ChType::UInt8)
        },
        move |ctx| contains(ctx, keys),
    );
    def.aliases = aliases.iter().map(|a| a.to_string()).collect();
    def.build()
}

/// An integer literal needle as its narrowest type, as ClickHouse types literals (`5` is
/// UInt8, so it meets UInt64 keys).
fn needle_type(t: ChType, literal: Option<&ScalarValue>) -> ChType {
    match literal {
        Some(value @ ScalarValue::Int64(_)) => crate::literals::narrow(value).map(|n| ChType::from_arrow(&n.data_type(), false)).unwrap_or(t),
        _ => t,
    }
}

/// The type entries and needle are compared in; `None` for an empty map's `Nothing`.
fn common_type(entries: &ChType, needle: &ChType) -> DfResult<Option<ChType>> {
    if matches!(entries.strip_nullable(), ChType::Nothing) {
        return Ok(None);
    }
    Ok(Some(least_supertype(&[entries.clone(), needle.clone()])?))
}

fn contains(ctx: &ExecCtx, keys: bool) -> DfResult<ArrayRef> {
    let array = ctx.array(0)?;
    let map = array.as_map_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {} takes a Map", ctx.name)))?;
    let (entries_type, entries) = match ctx.ch(0).strip_nullable() {
        ChType::Map(k, v) => if keys { (k.as_ref().clone(), map.keys().clone()) } else { (v.as_ref().clone(), map.values().clone()) },
        _ => return Err(illegal_type(ctx.name, 0, &ctx.fields[0])),
    };
    let rows = map.len();
    let Some(common) = common_type(&entries_type, &needle_type(ctx.ch(1), ctx.scalar(1)))? else {
        return Ok(Arc::new(UInt8Array::from(vec![0u8; rows])));
    };
    let cv = Conv { func: ctx.name, mode: Mode::Throw, config: ctx.config };
    let common = common.strip_nullable().clone();
    let entries = convert(&entries, &entries_type.to_arrow_field("entries"), &common, &cv)?;
    let needles = convert(&ctx.array(1)?, &ctx.fields[1], &common, &cv)?;
    // Each entry next to its row's needle, then one comparison over all entries.
    let offsets = map.offsets();
    let owner: UInt32Array = (0..rows).flat_map(|row| std::iter::repeat_n(row as u32, (offsets[row + 1] - offsets[row]) as usize)).collect();
    let first = offsets[0] as usize;
    let entries = entries.slice(first, owner.len());
    let spread = datafusion::arrow::compute::take(needles.as_ref(), &owner, None)?;
    let equal = cmp::not_distinct(&entries, &spread)?;
    let found: Vec<u8> = (0..rows)
        .map(|row| {
            let (start, end) = (offsets[row] as usize - first, offsets[row + 1] as usize - first);
            u8::from((start..end).any(|i| equal.value(i)))
        })
        .collect();
    Ok(Arc::new(UInt8Array::new(found.into(), map.nulls().cloned())))
}

/// The Arrow entries field of a `Map` result, and the key and value fields inside it.
fn entry_fields(ctx: &ExecCtx) -> DfResult<(Arc<datafusion::arrow::datatypes::Field>, datafusion::arrow::datatypes::Fields)> {
    let DataType::Map(entries_field, _) = ctx.ret_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return an Arrow Map", ctx.name)));
    };
    let DataType::Struct(fields) = entries_field.data_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} entries must be a Struct", ctx.name)));
    };
    Ok((entries_field.clone(), fields.clone()))
}

/// `column` in the Arrow type of `field`: the arguments' nested fields can differ from the
/// result's in nullability or names while holding the same values.
fn as_field_type(column: ArrayRef, field: &datafusion::arrow::datatypes::Field) -> DfResult<ArrayRef> {
    if column.data_type() == field.data_type() {
        return Ok(column);
    }
    Ok(datafusion::arrow::compute::cast(&column, field.data_type())?)
}

fn array_element(ctx: &RetCtx, i: usize) -> DfResult<ChType> {
    match ctx.ch(i).strip_nullable() {
        ChType::Array(element) => Ok(*element.clone()),
        other => Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Arguments of function {} must be Array or Map, but {other} is given", ctx.name),
        )),
    }
}

fn map_from_arrays() -> ScalarUDF {
    let mut def = ScalarDef::new(
        "mapFromArrays",
        Arity::exact(2),
        |ctx| {
            let key = array_element(ctx, 0)?;
            let value = array_element(ctx, 1)?;
            // Map keys are never Nullable: a NULL key is refused at execution.
            let key = match key {
                ChType::Nullable(inner) => *inner,
                other => other,
            };
            Ok(ChType::Map(Box::new(key), Box::new(value)))
        },
        |ctx| {
            let (keys, values) = (ctx.array(0)?, ctx.array(1)?);
            let not_array = || ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Arguments of function {} must be Array or Map", ctx.name));
            let keys = keys.as_list_opt::<i32>().ok_or_else(not_array)?;
            let values = values.as_list_opt::<i32>().ok_or_else(not_array)?;
            let (key_offsets, value_offsets) = (keys.offsets(), values.offsets());
            if key_offsets.lengths().ne(value_offsets.lengths()) {
                return Err(ch_error(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, format!("Two arguments of function {} must have equal sizes", ctx.name)));
            }
            let span = |offsets: &OffsetBuffer<i32>| (offsets[0] as usize, (offsets[offsets.len() - 1] - offsets[0]) as usize);
            let (key_start, count) = span(key_offsets);
            let (value_start, _) = span(value_offsets);
            let key_column = keys.values().slice(key_start, count);
            if key_column.logical_null_count() > 0 && !matches!(key_column.data_type(), DataType::Null) {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("The nested column of first argument in function {} must not contain NULLs", ctx.name)));
            }
            map_of(ctx, key_column, values.values().slice(value_start, count), key_offsets.lengths())
        },
    );
    def.aliases = vec!["MAP_FROM_ARRAYS".to_string()];
    def.build()
}

/// A map result of entries `(map, entry)` taken from the maps' key and value columns
/// (already in the result's types), `lengths` entries a row.
fn gather_entries(ctx: &ExecCtx, keys: &[ArrayRef], values: &[ArrayRef], indices: &[(usize, usize)], lengths: Vec<usize>) -> DfResult<ArrayRef> {
    let interleave = |columns: &[ArrayRef]| -> DfResult<ArrayRef> {
        let refs: Vec<&dyn Array> = columns.iter().map(|c| c.as_ref()).collect();
        Ok(datafusion::arrow::compute::interleave(&refs, indices)?)
    };
    map_of(ctx, interleave(keys)?, interleave(values)?, lengths)
}

/// The map result of one key and one value column, `lengths` entries a row.
fn map_of(ctx: &ExecCtx, keys: ArrayRef, values: ArrayRef, lengths: impl IntoIterator<Item = usize>) -> DfResult<ArrayRef> {
    map_from_columns(ctx.ret_type(), keys, values, OffsetBuffer::from_lengths(lengths))
}

/// A map of Arrow type `map_type` from one key and one value column cut by `offsets`.
pub(crate) fn map_from_columns(map_type: &DataType, keys: ArrayRef, values: ArrayRef, offsets: OffsetBuffer<i32>) -> DfResult<ArrayRef> {
    let DataType::Map(entries_field, _) = map_type else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("a map result of type {map_type}")));
    };
    let DataType::Struct(fields) = entries_field.data_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("map entries of type {}", entries_field.data_type())));
    };
    let (keys, values) = (as_field_type(keys, &fields[0])?, as_field_type(values, &fields[1])?);
    let entries = StructArray::try_new(fields.clone(), vec![keys, values], None)?;
    Ok(Arc::new(MapArray::try_new(Arc::clone(entries_field), offsets, entries, None, false)?))
}

fn map_concat() -> ScalarUDF {
    ScalarDef::new(
        "mapConcat",
        Arity::at_least(1),
        |ctx| {
            let mut keys = Vec::new();
            let mut values = Vec::new();
            for i in 0..ctx.arg_count() {
                match ctx.ch(i).strip_nullable().clone() {
                    ChType::Map(k, v) => {
                        keys.push(*k);
                        values.push(*v);
                    }
                    other => {
                        // ClickHouse runs mapConcat as arrayConcat over the entries.
                        return Err(ch_error(
                            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                            format!("Argument {i} for function arrayConcat must be an array but it has type {other}"),
                        ));
                    }
                }
            }
            // Planned integer literals are still Int64 here, as in arrayConcat.
            let supertype = crate::array_access::element_supertype;
            Ok(ChType::Map(Box::new(supertype(&keys)?), Box::new(supertype(&values)?)))
        },
        |ctx| {
            let ChType::Map(key_type, value_type) = ctx.ret_ch() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return a Map", ctx.name)));
            };
            let (_, fields) = entry_fields(ctx)?;
            let cv = Conv { func: ctx.name, mode: Mode::Throw, config: ctx.config };
            let arrays = (0..ctx.args.len()).map(|i| ctx.array(i)).collect::<DfResult<Vec<_>>>()?;
            let mut maps = Vec::with_capacity(arrays.len());
            let mut key_columns = Vec::with_capacity(arrays.len());
            let mut value_columns = Vec::with_capacity(arrays.len());
            for (i, array) in arrays.iter().enumerate() {
                let map = array.as_map_opt().ok_or_else(|| illegal_type(ctx.name, i, &ctx.fields[i]))?;
                let ChType::Map(k, v) = ctx.ch(i).strip_nullable().clone() else {
                    return Err(illegal_type(ctx.name, i, &ctx.fields[i]));
                };
                // An empty `map()` has `Nothing` entries, which no row ever reads.
                let column = |part: &ArrayRef, from: &ChType, to: &ChType, field: &datafusion::arrow::datatypes::Field| -> DfResult<ArrayRef> {
                    if matches!(from, ChType::Nothing) {
                        return Ok(datafusion::arrow::array::new_null_array(field.data_type(), part.len()));
                    }
                    as_field_type(convert(part, &from.to_arrow_field("entries"), to.strip_nullable(), &cv)?, field)
                };
                key_columns.push(column(map.keys(), &k, &key_type, &fields[0])?);
                value_columns.push(column(map.values(), &v, &value_type, &fields[1])?);
                maps.push(map);
            }
            let rows = ctx.len;
            let mut indices = Vec::new();
            let mut lengths = Vec::with_capacity(rows);
            for row in 0..rows {
                let before = indices.len();
                for (m, map) in maps.iter().enumerate() {
                    let offsets = map.offsets();
                    indices.extend((offsets[row] as usize..offsets[row + 1] as usize).map(|e| (m, e)));
                }
                lengths.push(indices.len() - before);
            }
            gather_entries(ctx, &key_columns, &value_columns, &indices, lengths)
        },
    )
    .build()
}

/// `mapUpdate(m1, m2)`: the entries of `m1` whose key `m2` lacks, then all of `m2`.
fn map_update() -> ScalarUDF {
    ScalarDef::new(
        "mapUpdate",
        Arity::exact(2),
        |ctx| {
            let (a, b) = (ctx.ch(0), ctx.ch(1));
            if !matches!(a, ChType::Map(..)) || !matches!(b, ChType::Map(..)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The two arguments for function {} must be both Map type", ctx.name)));
            }
            // Integer literals are still Int64 while planning; the final types are
            // checked again once they have ClickHouse's.
            if a != b && !planning_int_literals(&a, &b) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The Key And Value type of Map for function {} must be the same", ctx.name)));
            }
            Ok(a)
        },
        |ctx| {
            let arrays = [ctx.array(0)?, ctx.array(1)?];
            let not_map = |i: usize| illegal_type(ctx.name, i, &ctx.fields[i]);
            let first = arrays[0].as_map_opt().ok_or_else(|| not_map(0))?;
            let second = arrays[1].as_map_opt().ok_or_else(|| not_map(1))?;
            let (_, fields) = entry_fields(ctx)?;
            let keys = [as_field_type(first.keys().clone(), &fields[0])?, as_field_type(second.keys().clone(), &fields[0])?];
            let values = [as_field_type(first.values().clone(), &fields[1])?, as_field_type(second.values().clone(), &fields[1])?];
            let converter = RowConverter::new(vec![SortField::new(fields[0].data_type().clone())])?;
            let first_rows = converter.convert_columns(&[keys[0].clone()])?;
            let second_rows = converter.convert_columns(&[keys[1].clone()])?;
            let (first_offsets, second_offsets) = (first.offsets(), second.offsets());
            let mut indices = Vec::new();
            let mut lengths = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let before = indices.len();
                let replaced: HashSet<_> = (second_offsets[row] as usize..second_offsets[row + 1] as usize).map(|e| second_rows.row(e)).collect();
                indices.extend((first_offsets[row] as usize..first_offsets[row + 1] as usize).filter(|&e| !replaced.contains(&first_rows.row(e))).map(|e| (0, e)));
                indices.extend((second_offsets[row] as usize..second_offsets[row + 1] as usize).map(|e| (1, e)));
                lengths.push(indices.len() - before);
            }
            gather_entries(ctx, &keys, &values, &indices, lengths)
        },
    )
    .build()
}

/// Whether two map types differ only where one has a planned integer literal's `Int64`.
pub(crate) fn planning_int_literals(a: &ChType, b: &ChType) -> bool {
    match (a, b) {
        (ChType::Map(ka, va), ChType::Map(kb, vb)) => planning_int_literals(ka, kb) && planning_int_literals(va, vb),
        (ChType::Int64, other) | (other, ChType::Int64) => matches!(
            other,
            ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64
        ),
        _ => a == b,
    }
}

/// The sum type of `mapAdd`/`mapSubtract` values: all unsigned integers sum in UInt64,
/// signed ones in Int64, floats in Float64 (ClickHouse mixes none of the three).
fn sum_type(name: &str, values: &[ChType]) -> DfResult<ChType> {
    let unsigned = |t: &ChType| matches!(t, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64);
    let signed = |t: &ChType| matches!(t, ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64);
    let float = |t: &ChType| matches!(t, ChType::Float32 | ChType::Float64);
    if let Some(bad) = values.iter().find(|t| !unsigned(t) && !signed(t) && !float(t)) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Values to be summed are expected to be Numeric, Float or Decimal, got {bad} in {name}")));
    }
    if values.iter().any(float) {
        if values.iter().all(float) {
            return Ok(ChType::Float64);
        }
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("All value types in {name} should be either or float or integer")));
    }
    // A planned integer literal is still Int64 next to unsigned values (see `planning_int_literals`).
    let signed_values: Vec<&ChType> = values.iter().filter(|t| signed(t)).collect();
    if signed_values.is_empty() || signed_values.iter().all(|t| **t == ChType::Int64) && values.iter().any(unsigned) {
        return Ok(ChType::UInt64);
    }
    if values.iter().any(unsigned) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("All value types in {name} should be promotable to Int64, got UInt64")));
    }
    Ok(ChType::Int64)
}

/// `mapAdd(m1, m2, ...)` (`subtract` false) or `mapSubtract`: per row, every key once in
/// ascending order, with its values summed (or the later maps' subtracted), wrapping as
/// ClickHouse's integers do.
fn map_sum(name: &'static str, subtract: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(0),
        |ctx| {
            if ctx.arg_count() < 2 {
                return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("{} accepts at least two maps or map tuples", ctx.name)));
            }
            let mut key: Option<ChType> = None;
            let mut values = Vec::with_capacity(ctx.arg_count());
            for i in 0..ctx.arg_count() {
                let ChType::Map(k, v) = ctx.ch(i) else {
                    return Err(illegal_type(ctx.name, i, ctx.field(i)));
                };
                match &key {
                    Some(first) if !planning_int_literals(first, &k) => {
                        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Expected same {first} type for all keys in {}", ctx.name)))
                    }
                    Some(ChType::Int64) => key = Some(*k),
                    Some(_) => {}
                    None => key = Some(*k),
                }
                values.push(*v);
            }
            let key = key.ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, format!("{} has no maps", ctx.name)))?;
            Ok(ChType::Map(Box::new(key), Box::new(sum_type(ctx.name, &values)?)))
        },
        move |ctx| {
            let ChType::Map(_, value_type) = ctx.ret_ch() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return a Map", ctx.name)));
            };
            let (_, fields) = entry_fields(ctx)?;
            let cv = Conv { func: ctx.name, mode: Mode::Throw, config: ctx.config };
            let converter = RowConverter::new(vec![SortField::new(fields[0].data_type().clone())])?;
            let mut maps = Vec::with_capacity(ctx.args.len());
            for i in 0..ctx.args.len() {
                let array = ctx.array(i)?;
                let map = array.as_map_opt().ok_or_else(|| illegal_type(ctx.name, i, &ctx.fields[i]))?.clone();
                let ChType::Map(_, v) = ctx.ch(i) else {
                    return Err(illegal_type(ctx.name, i, &ctx.fields[i]));
                };
                let keys = converter.convert_columns(&[as_field_type(map.keys().clone(), &fields[0])?])?;
                let values = convert(map.values(), &v.to_arrow_field("value"), &value_type, &cv)?;
                maps.push((map, keys, values));
            }
            let mut sums: Vec<(usize, datafusion::arrow::row::OwnedRow, Sum)> = Vec::new();
            let mut lengths = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let mut by_key: std::collections::BTreeMap<datafusion::arrow::row::OwnedRow, Sum> = std::collections::BTreeMap::new();
                for (m, (map, keys, values)) in maps.iter().enumerate() {
                    let offsets = map.offsets();
                    for e in offsets[row] as usize..offsets[row + 1] as usize {
                        let value = Sum::of(values, e)?;
                        let sum = by_key.entry(keys.row(e).owned()).or_insert(Sum::zero(&value));
                        *sum = sum.add(value, subtract && m > 0);
                    }
                }
                lengths.push(by_key.len());
                sums.extend(by_key.into_iter().map(|(k, v)| (row, k, v)));
            }
            let key_column = converter.convert_rows(sums.iter().map(|(_, k, _)| k.row()))?.remove(0);
            let value_column: ArrayRef = match *value_type {
                ChType::UInt64 => Arc::new(sums.iter().map(|(_, _, v)| v.as_u64()).collect::<datafusion::arrow::array::UInt64Array>()),
                ChType::Int64 => Arc::new(sums.iter().map(|(_, _, v)| v.as_u64() as i64).collect::<datafusion::arrow::array::Int64Array>()),
                _ => Arc::new(sums.iter().map(|(_, _, v)| v.as_f64()).collect::<datafusion::arrow::array::Float64Array>()),
            };
            map_of(ctx, key_column, value_column, lengths)
        },
    )
    .build()
}

/// A running `mapAdd` sum: integers as two's-complement 64-bit words, so that UInt64 and
/// Int64 wrap alike.
#[derive(Clone, Copy)]
enum Sum {
    Int(u64),
    Float(f64),
}

impl Sum {
    fn of(values: &ArrayRef, i: usize) -> DfResult<Sum> {
        if let Some(v) = values.as_primitive_opt::<datafusion::arrow::datatypes::UInt64Type>() {
            return Ok(Sum::Int(v.value(i)));
        }
        if let Some(v) = values.as_primitive_opt::<datafusion::arrow::datatypes::Int64Type>() {
            return Ok(Sum::Int(v.value(i) as u64));
        }
        if let Some(v) = values.as_primitive_opt::<datafusion::arrow::datatypes::Float64Type>() {
            return Ok(Sum::Float(v.value(i)));
        }
        Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("map values to sum are {}", values.data_type())))
    }

    fn zero(like: &Sum) -> Sum {
        match like {
            Sum::Int(_) => Sum::Int(0),
            Sum::Float(_) => Sum::Float(0.0),
        }
    }

    fn add(self, other: Sum, negate: bool) -> Sum {
        match (self, other) {
            (Sum::Int(a), Sum::Int(b)) => Sum::Int(if negate { a.wrapping_sub(b) } else { a.wrapping_add(b) }),
            (Sum::Float(a), Sum::Float(b)) => Sum::Float(if negate { a - b } else { a + b }),
            (a, _) => a,
        }
    }

    fn as_u64(&self) -> u64 {
        match self {
            Sum::Int(v) => *v,
            Sum::Float(v) => *v as u64,
        }
    }

    fn as_f64(&self) -> f64 {
        match self {
            Sum::Int(v) => *v as f64,
            Sum::Float(v) => *v,
        }
    }
}

/// Whether the LIKE functions take `t` (`Nullable` entries they do not).
fn is_string_like(t: &ChType) -> bool {
    let t = match t {
        ChType::LowCardinality(inner) => inner.as_ref(),
        other => other,
    };
    matches!(t, ChType::String | ChType::FixedString(_))
}

/// A text column as Utf8, which the LIKE kernel takes (FixedString through Binary).
fn as_utf8(column: &ArrayRef) -> DfResult<ArrayRef> {
    let column = if matches!(column.data_type(), DataType::FixedSizeBinary(_)) {
        datafusion::arrow::compute::cast(column, &DataType::Binary)?
    } else {
        Arc::clone(column)
    };
    Ok(datafusion::arrow::compute::cast(&column, &DataType::Utf8)?)
}

/// Whether each entry of `map`'s keys (or values) is LIKE its row's pattern: every
/// entry in one kernel call, with the pattern compiled once when it is a constant.
/// Entries are indexed from the map's first offset.
fn entries_like(ctx: &ExecCtx, map: &MapArray, keys: bool) -> DfResult<datafusion::arrow::array::BooleanArray> {
    use datafusion::arrow::array::Scalar;
    use datafusion::arrow::compute::kernels::comparison::like;
    let offsets = map.offsets();
    let first = offsets[0] as usize;
    let count = offsets[offsets.len() - 1] as usize - first;
    let entries = as_utf8(&if keys { map.keys() } else { map.values() }.slice(first, count))?;
    let entries = entries.as_string::<i32>();
    if let Some(pattern) = ctx.scalar(1) {
        let pattern = as_utf8(&pattern.to_array_of_size(1)?)?;
        return Ok(like(entries, &Scalar::new(pattern.as_string::<i32>().clone()))?);
    }
    let owner: UInt32Array = (0..map.len()).flat_map(|row| std::iter::repeat_n(row as u32, (offsets[row + 1] - offsets[row]) as usize)).collect();
    let patterns = as_utf8(&datafusion::arrow::compute::take(ctx.array(1)?.as_ref(), &owner, None)?)?;
    Ok(like(entries, patterns.as_string::<i32>())?)
}

/// `mapContainsKeyLike(m, pattern)` (`keys` true) / `mapContainsValueLike`, or with
/// `extract` the `mapExtract...Like` forms that keep the matching entries.
fn map_like(name: &'static str, keys: bool, extract: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            let ChType::Map(k, v) = ctx.ch(0).strip_nullable().clone() else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First argument for function {} must be a Map", ctx.name)));
            };
            if !is_string_like(if keys { &k } else { &v }) {
                let part = if keys { "Key" } else { "Value" };
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{part} type of map for function {} must be String or FixedString", ctx.name)));
            }
            if !is_string_like(&ctx.ch(1)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Second argument for function {} must be String or FixedString", ctx.name)));
            }
            Ok(if extract { ChType::Map(k, v) } else { ChType::UInt8 })
        },
        move |ctx| {
            let array = ctx.array(0)?;
            let map = array.as_map_opt().ok_or_else(|| illegal_type(ctx.name, 0, &ctx.fields[0]))?;
            let matched = entries_like(ctx, map, keys)?;
            let offsets = map.offsets();
            let first = offsets[0] as usize;
            let rows = offsets.windows(2).map(|w| (w[0] as usize - first)..(w[1] as usize - first));
            if !extract {
                let found: Vec<u8> = rows.map(|mut entries| u8::from(entries.any(|i| matched.is_valid(i) && matched.value(i)))).collect();
                return Ok(Arc::new(UInt8Array::from(found)));
            }
            let mut indices: Vec<u32> = Vec::new();
            let mut lengths = Vec::with_capacity(map.len());
            for entries in rows {
                let before = indices.len();
                indices.extend(entries.filter(|&i| matched.is_valid(i) && matched.value(i)).map(|i| (i + first) as u32));
                lengths.push(indices.len() - before);
            }
            let indices = UInt32Array::from(indices);
            let keys = datafusion::arrow::compute::take(map.keys().as_ref(), &indices, None)?;
            let values = datafusion::arrow::compute::take(map.values().as_ref(), &indices, None)?;
            map_of(ctx, keys, values, lengths)
        },
    )
    .build()
}

/// The integer types `mapPopulateSeries` fills keys of (ClickHouse also takes 128 and
/// 256 bits, which are not handled here).
fn is_series_integer(t: &ChType) -> bool {
    matches!(t, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64)
}

/// The key and value types of `mapPopulateSeries`'s map or arrays, and the position of
/// its optional max key.
fn series_types(ctx: &RetCtx) -> DfResult<(ChType, ChType, usize)> {
    match ctx.ch(0) {
        ChType::Map(k, v) => Ok((*k, *v, 1)),
        ChType::Array(k) => match (ctx.arg_count() > 1).then(|| ctx.ch(1)) {
            Some(ChType::Array(v)) => Ok((*k, *v, 2)),
            _ => Err(ch_error(
                ErrorCode::BAD_ARGUMENTS,
                format!("Function {} if array argument is passed as key, additional array argument as value must be passed", ctx.name),
            )),
        },
        other => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {} only accepts one map or arrays, but got {other}", ctx.name))),
    }
}

/// Rows of more than 2^30 + 1 filled keys are refused, as in ClickHouse.
const MAX_SERIES_SPAN: i128 = 1 << 30;

fn map_populate_series() -> ScalarUDF {
    ScalarDef::new(
        "mapPopulateSeries",
        Arity::at_least(1),
        |ctx| {
            if ctx.arg_count() > 3 {
                return Err(ch_error(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    format!("Function {} accepts at least one map or two arrays arguments, and optional max key argument", ctx.name),
                ));
            }
            let (key, value, max_at) = series_types(ctx)?;
            // ClickHouse names the key type in both messages.
            if !is_series_integer(&key) || !is_series_integer(&value) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Function {} key argument should be of signed or unsigned integer type. Actual type {key}", ctx.name),
                ));
            }
            if max_at < ctx.arg_count() {
                let max = ctx.ch(max_at);
                if !is_series_integer(max.base()) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Function {} max key should be of signed or unsigned integer type. Actual type {key}, max type {max}.", ctx.name),
                    ));
                }
            }
            Ok(if max_at == 1 { ChType::Map(Box::new(key), Box::new(value)) } else { ChType::Tuple(vec![("1".into(), ctx.ch(0)), ("2".into(), ctx.ch(1))]) })
        },
        populate_series,
    )
    .build()
}

/// An integer column as `i128`s (every type [`is_series_integer`] takes fits).
fn integers(column: &ArrayRef) -> DfResult<Vec<i128>> {
    use datafusion::arrow::datatypes::{Int64Type, UInt64Type};
    if matches!(column.data_type(), DataType::UInt64) {
        return Ok(column.as_primitive::<UInt64Type>().values().iter().map(|v| *v as i128).collect());
    }
    let signed = datafusion::arrow::compute::cast(column, &DataType::Int64)?;
    Ok(signed.as_primitive::<Int64Type>().values().iter().map(|v| *v as i128).collect())
}

fn populate_series(ctx: &ExecCtx) -> DfResult<ArrayRef> {
    let first = ctx.array(0)?;
    // Keys and values from the first entry on, and offsets from 0.
    let flat = |offsets: &OffsetBuffer<i32>, column: &ArrayRef| {
        let start = offsets[0] as usize;
        column.slice(start, offsets[offsets.len() - 1] as usize - start)
    };
    let (key_type, keys, values, offsets, max_at) = match ctx.ch(0) {
        ChType::Map(k, _) => {
            let map = first.as_map_opt().ok_or_else(|| illegal_type(ctx.name, 0, &ctx.fields[0]))?;
            (*k, flat(map.offsets(), map.keys()), flat(map.offsets(), map.values()), map.offsets().clone(), 1)
        }
        ChType::Array(k) => {
            let second = ctx.array(1)?;
            let (key_list, value_list) = match (first.as_list_opt::<i32>(), second.as_list_opt::<i32>()) {
                (Some(a), Some(b)) => (a, b),
                _ => return Err(illegal_type(ctx.name, 0, &ctx.fields[0])),
            };
            if key_list.offsets().lengths().ne(value_list.offsets().lengths()) {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Function {} key and value array should have same amount of elements", ctx.name)));
            }
            let (key_offsets, value_offsets) = (key_list.offsets(), value_list.offsets());
            (*k, flat(key_offsets, key_list.values()), flat(value_offsets, value_list.values()), key_offsets.clone(), 2)
        }
        _ => return Err(illegal_type(ctx.name, 0, &ctx.fields[0])),
    };
    let offsets: Vec<usize> = offsets.iter().map(|o| (o - offsets[0]) as usize).collect();
    let (min_allowed, max_allowed) = integer_bounds(&key_type);
    let max_keys = if max_at < ctx.args.len() {
        let max_keys = integers(&ctx.array(max_at)?)?;
        if let Some(bad) = max_keys.iter().find(|m| **m < min_allowed || **m > max_allowed) {
            return Err(ch_error(ErrorCode::CANNOT_CONVERT_TYPE, format!("Value {bad} in column {} cannot be safely converted into type {key_type}", ctx.ch(max_at))));
        }
        Some(max_keys)
    } else {
        None
    };
    let key_values = integers(&keys)?;
    let value_order = crate::array_sort::key_order(&values, false)?;
    let mut out_keys: Vec<i128> = Vec::new();
    let mut take_values: Vec<Option<u32>> = Vec::new();
    let mut lengths = Vec::with_capacity(offsets.len() - 1);
    let mut entries: Vec<usize> = Vec::new();
    for (row, w) in offsets.windows(2).enumerate() {
        entries.clear();
        entries.extend(w[0]..w[1]);
        // By key, then by value: of duplicate keys the smallest value stays.
        entries.sort_by(|a, b| key_values[*a].cmp(&key_values[*b]).then_with(|| value_order(*a, *b)));
        let (Some(&lowest), Some(&highest)) = (entries.first(), entries.last()) else {
            lengths.push(0);
            continue;
        };
        let low = key_values[lowest];
        let high = max_keys.as_ref().map_or(key_values[highest], |m| m[row]);
        if high < low {
            lengths.push(0);
            continue;
        }
        if high - low > MAX_SERIES_SPAN {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, format!("Function {} too large array size in the result", ctx.name)));
        }
        let mut next = entries.iter().peekable();
        for key in low..=high {
            out_keys.push(key);
            let mut found = None;
            while let Some(&&e) = next.peek() {
                if key_values[e] > key {
                    break;
                }
                if key_values[e] == key && found.is_none() {
                    found = Some(e as u32);
                }
                next.next();
            }
            take_values.push(found);
        }
        lengths.push((high - low + 1) as usize);
    }
    let key_column: ArrayRef = if matches!(key_type, ChType::UInt64) {
        Arc::new(out_keys.iter().map(|k| *k as u64).collect::<datafusion::arrow::array::UInt64Array>())
    } else {
        Arc::new(out_keys.iter().map(|k| *k as i64).collect::<datafusion::arrow::array::Int64Array>())
    };
    let key_column = datafusion::arrow::compute::cast(&key_column, &key_type.to_arrow())?;
    let value_column = datafusion::arrow::compute::take(values.as_ref(), &UInt32Array::from(take_values), None)?;
    let value_column = crate::func::defaults_at_nulls(&value_column)?;
    if max_at == 1 {
        return map_of(ctx, key_column, value_column, lengths);
    }
    let DataType::Struct(fields) = ctx.ret_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return a Tuple", ctx.name)));
    };
    let offsets = OffsetBuffer::from_lengths(lengths);
    let list = |column: ArrayRef, field: &datafusion::arrow::datatypes::FieldRef| -> DfResult<ArrayRef> {
        let DataType::List(item) = field.data_type() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return a Tuple of Arrays", ctx.name)));
        };
        Ok(Arc::new(ListArray::try_new(Arc::clone(item), offsets.clone(), as_field_type(column, item)?, None)?))
    };
    let columns = vec![list(key_column, &fields[0])?, list(value_column, &fields[1])?];
    Ok(Arc::new(StructArray::try_new(fields.clone(), columns, None)?))
}

/// The smallest and largest values of an integer type [`is_series_integer`] takes.
fn integer_bounds(t: &ChType) -> (i128, i128) {
    match t {
        ChType::UInt8 => (0, u8::MAX as i128),
        ChType::UInt16 => (0, u16::MAX as i128),
        ChType::UInt32 => (0, u32::MAX as i128),
        ChType::UInt64 => (0, u64::MAX as i128),
        ChType::Int8 => (i8::MIN as i128, i8::MAX as i128),
        ChType::Int16 => (i16::MIN as i128, i16::MAX as i128),
        ChType::Int32 => (i32::MIN as i128, i32::MAX as i128),
        _ => (i64::MIN as i128, i64::MAX as i128),
    }
}

/// The single map argument of the lambda-less `mapSort` family.
fn sorted_map_type(ctx: &RetCtx, at: usize) -> DfResult<ChType> {
    match ctx.ch(at) {
        t @ ChType::Map(..) => Ok(t),
        _ => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {} requires at least one argument of type Map", ctx.name))),
    }
}

/// `mapSort(m)` / `mapReverseSort(m)`, or with `partial` `mapPartialSort(limit, m)` /
/// `mapPartialReverseSort`: the entries in the order of `(key, value)`.
fn map_sort(name: &'static str, descending: bool, partial: bool) -> ScalarUDF {
    let arity = if partial { Arity::exact(2) } else { Arity::exact(1) };
    ScalarDef::new(
        name,
        arity,
        move |ctx| {
            if partial && !crate::args::is_integer(&ctx.ch(0).base().to_arrow()) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {} of limit argument of function {} (must be UInt or Int)", ctx.ch(0), ctx.name),
                ));
            }
            sorted_map_type(ctx, usize::from(partial))
        },
        move |ctx| {
            let at = usize::from(partial);
            let array = ctx.array(at)?;
            let map = array.as_map_opt().ok_or_else(|| illegal_type(ctx.name, at, &ctx.fields[at]))?;
            let entries: ArrayRef = Arc::new(map.entries().clone());
            let offsets = map.offsets();
            let field = Arc::new(datafusion::arrow::datatypes::Field::new("entries", entries.data_type().clone(), false));
            // The sort kernels index the entries from the first row's offset on.
            let first = offsets[0] as usize;
            let entries = entries.slice(first, offsets[offsets.len() - 1] as usize - first);
            let from_zero: Vec<i32> = offsets.iter().map(|o| o - offsets[0]).collect();
            // By key, then by value, each with NaNs last whatever the direction (an Arrow
            // comparison of the entries as structs would put NaN keys first descending).
            let parts = entries.as_struct();
            let (by_key, by_value) = (parts.column(0), parts.column(1));
            let (by_key, by_value) = (crate::array_sort::key_order(by_key, descending)?, crate::array_sort::key_order(by_value, descending)?);
            let order = |a: usize, b: usize| by_key(a, b).then_with(|| by_value(a, b));
            let sorted = if partial {
                let limits = datafusion::arrow::compute::cast(&ctx.array(0)?, &DataType::Int64)?;
                let limits = limits.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
                let limit = |row: usize| if limits.is_null(row) { 0 } else { limits.value(row) };
                crate::array_sort::partial_sort_lists_by(&entries, &order, &from_zero, &limit, field, None)?
            } else {
                crate::array_sort::sort_lists_by(&entries, &order, &from_zero, field)?
            };
            let list = sorted.as_list::<i32>();
            let sorted_entries = list.values().as_struct();
            map_from_columns(ctx.ret_type(), Arc::clone(sorted_entries.column(0)), Arc::clone(sorted_entries.column(1)), list.offsets().clone())
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        map_sort("mapSort", false, false),
        map_sort("mapReverseSort", true, false),
        map_sort("mapPartialSort", false, true),
        map_sort("mapPartialReverseSort", true, true),
        map_populate_series(),
        map_like("mapContainsKeyLike", true, false),
        map_like("mapContainsValueLike", false, false),
        map_like("mapExtractKeyLike", true, true),
        map_like("mapExtractValueLike", false, true),
        map_from_arrays(),
        map_concat(),
        map_update(),
        map_sum("mapAdd", false),
        map_sum("mapSubtract", true),
        map_part("mapKeys", true),
        map_part("mapValues", false),
        map_contains("mapContains", true, &["mapContainsKey"]),
        map_contains("mapContainsValue", false, &[]),
    ]
}
