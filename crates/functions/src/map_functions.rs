//! Functions over `Map(K, V)`: `mapKeys(m)` (`Array(K)`), `mapValues(m)` (`Array(V)`),
//! `mapContains(m, k)` / `mapContainsKey` and `mapContainsValue(m, v)` (UInt8). The
//! entries of an Arrow map are one keys column and one values column cut by the map's
//! offsets, so the keys and values arrays are those columns under the same offsets, and
//! a search compares every entry with its row's needle in one kernel pass.
//!
//! `mapFromArrays(keys, values)` (alias `MAP_FROM_ARRAYS`) pairs two arrays of equal
//! sizes, and `mapConcat(m1, ...)` joins maps row by row (duplicate keys stay, as in
//! ClickHouse), in the least supertype of their keys and of their values.

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
    let (entries_field, fields) = entry_fields(ctx)?;
    let (keys, values) = (as_field_type(keys, &fields[0])?, as_field_type(values, &fields[1])?);
    let entries = StructArray::try_new(fields, vec![keys, values], None)?;
    Ok(Arc::new(MapArray::try_new(entries_field, OffsetBuffer::from_lengths(lengths), entries, None, false)?))
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
fn planning_int_literals(a: &ChType, b: &ChType) -> bool {
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

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
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
