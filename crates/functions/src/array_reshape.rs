//! Arrays rebuilt from their elements: `arrayZipUnaligned(a, b, ...)` (tuples up to the
//! longest array, NULL where an array has ended), `arrayShingles(arr, n)` (every run of
//! `n` consecutive elements), `arrayRemove(arr, x)` (the elements not equal to `x`, NULL
//! removing NULLs) and `arrayFlattenedLength(arr)` (the elements at the deepest level);
//! `arrayTopK(k, arr)` / `arrayBottomK(k, arr)` (the `k` largest or smallest elements,
//! in order, without NULLs, NaNs after numbers either way), `arrayTranspose(arr)` (an
//! array of equal-sized arrays turned over) and `arrayExcept(arr, exclude)` (the
//! elements not in `exclude`, NaN equal to NaN and NULL to NULL).
//!
//! Each builds the positions of the elements it keeps for the whole column and takes
//! them in one kernel call.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, StructArray, UInt32Array, UInt64Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};
use crate::regexp::list_offset;

/// The item field of the list type `t`.
fn list_item(t: &DataType, name: &str) -> DfResult<Arc<datafusion::arrow::datatypes::Field>> {
    match t {
        DataType::List(item) => Ok(Arc::clone(item)),
        other => Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{name} works on lists, not {other}"))),
    }
}

/// A list column of `values` at `positions`, `lengths` of them a row, with item `item`.
fn taken_list(values: &ArrayRef, positions: Vec<u32>, lengths: Vec<usize>, item: Arc<datafusion::arrow::datatypes::Field>) -> DfResult<ListArray> {
    list_offset(positions.len())?;
    let taken = as_type(take(values.as_ref(), &UInt32Array::from(positions), None)?, &item)?;
    Ok(ListArray::try_new(item, OffsetBuffer::from_lengths(lengths), taken, None)?)
}

/// `values` in the Arrow type of `field` (nested fields may differ in names or
/// nullability only).
fn as_type(values: ArrayRef, field: &datafusion::arrow::datatypes::Field) -> DfResult<ArrayRef> {
    if values.data_type() == field.data_type() {
        return Ok(values);
    }
    Ok(datafusion::arrow::compute::cast(&values, field.data_type())?)
}

fn zip_unaligned() -> ScalarUDF {
    ScalarDef::new(
        "arrayZipUnaligned",
        Arity::at_least(0),
        |ctx| {
            let mut elements = Vec::with_capacity(ctx.arg_count());
            for i in 0..ctx.arg_count() {
                let ChType::Array(element) = ctx.ch(i) else {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Argument {} of function {} must be array. Found {} instead", i + 1, ctx.name, ctx.ch(i)),
                    ));
                };
                if matches!(*element, ChType::Array(_) | ChType::Map(..)) {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Nested type {element} cannot be inside Nullable type")));
                }
                elements.push(((i + 1).to_string(), element.into_nullable()));
            }
            Ok(ChType::Array(Box::new(ChType::Tuple(elements))))
        },
        |ctx| {
            let item = list_item(ctx.ret_type(), ctx.name)?;
            let DataType::Struct(fields) = item.data_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns tuples", ctx.name)));
            };
            let lists = crate::array_set::list_args(ctx)?;
            let mut lengths = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                lengths.push(lists.iter().map(|l| l.value_length(row) as usize).max().unwrap_or(0));
            }
            let total: usize = lengths.iter().sum();
            let mut columns = Vec::with_capacity(lists.len());
            for (list, field) in lists.iter().zip(fields.iter()) {
                let mut positions: Vec<Option<u32>> = Vec::with_capacity(total);
                for (row, length) in lengths.iter().enumerate() {
                    let o = list.value_offsets();
                    let (start, end) = (o[row] as u32, o[row + 1] as u32);
                    positions.extend((0..*length as u32).map(|k| (start + k < end).then_some(start + k)));
                }
                columns.push(as_type(take(list.values().as_ref(), &UInt32Array::from(positions), None)?, field)?);
            }
            let tuples = if fields.is_empty() { StructArray::new_empty_fields(total, None) } else { StructArray::try_new(fields.clone(), columns, None)? };
            Ok(Arc::new(ListArray::try_new(item, OffsetBuffer::from_lengths(lengths), Arc::new(tuples), None)?))
        },
    )
    .build()
}

fn shingles() -> ScalarUDF {
    ScalarDef::new(
        "arrayShingles",
        Arity::exact(2),
        |ctx| {
            let ChType::Array(_) = ctx.ch(0) else {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 'array' to function '{}'. Expected: Array, got: {}", ctx.name, ctx.ch(0)),
                ));
            };
            if !crate::args::is_integer(ctx.dt(1)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 2nd argument 'length' to function '{}'. Expected: Integer, got: {}", ctx.name, ctx.ch(1)),
                ));
            }
            Ok(ChType::Array(Box::new(ctx.ch(0))))
        },
        |ctx| {
            let array = ctx.array(0)?;
            let list = array.as_list::<i32>();
            let lengths = datafusion::arrow::compute::cast(&ctx.array(1)?, &DataType::Int64)?;
            let lengths = lengths.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
            let outer = list_item(ctx.ret_type(), ctx.name)?;
            let inner = list_item(outer.data_type(), ctx.name)?;
            let mut positions: Vec<u32> = Vec::new();
            let mut outer_lengths = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let n = lengths.value(row);
                if n <= 0 {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Shingle argument of function {} must be a positive integer", ctx.name)));
                }
                let o = list.value_offsets();
                let (start, end) = (o[row] as usize, o[row + 1] as usize);
                let n = n as usize;
                if n > end - start {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Shingle argument of function {} must less or equal than the array length", ctx.name)));
                }
                let count = end - start + 1 - n;
                for first in start..start + count {
                    positions.extend(first as u32..(first + n) as u32);
                }
                outer_lengths.push(count);
            }
            let inner_lengths: Vec<usize> =
                outer_lengths.iter().enumerate().flat_map(|(row, count)| std::iter::repeat_n(lengths.value(row) as usize, *count)).collect();
            let runs = taken_list(list.values(), positions, inner_lengths, inner)?;
            Ok(Arc::new(ListArray::try_new(outer, OffsetBuffer::from_lengths(outer_lengths), Arc::new(runs), None)?))
        },
    )
    .build()
}

fn flattened_length() -> ScalarUDF {
    ScalarDef::new(
        "arrayFlattenedLength",
        Arity::exact(1),
        |ctx| match ctx.ch(0) {
            ChType::Array(_) => Ok(ChType::UInt64),
            other => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {other} of argument of function {}, expected Array", ctx.name))),
        },
        |ctx| {
            let array = ctx.array(0)?;
            // Each row's range of elements, narrowed level by level to the deepest one.
            let mut list = array.as_list::<i32>().clone();
            let mut ranges: Vec<(usize, usize)> = (0..ctx.len).map(|row| (list.value_offsets()[row] as usize, list.value_offsets()[row + 1] as usize)).collect();
            while let Some(nested) = list.values().as_list_opt::<i32>() {
                let o = nested.value_offsets();
                for range in ranges.iter_mut() {
                    *range = (o[range.0] as usize, o[range.1] as usize);
                }
                list = nested.clone();
            }
            Ok(Arc::new(ranges.iter().map(|(start, end)| (end - start) as u64).collect::<UInt64Array>()))
        },
    )
    .build()
}

fn array_remove() -> ScalarUDF {
    ScalarDef::new(
        "arrayRemove",
        Arity::exact(2),
        |ctx| {
            let ChType::Array(element) = ctx.ch(0) else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First argument for function {} must be an array, got {}", ctx.name, ctx.ch(0))));
            };
            crate::array_access::element_supertype(&[*element, ctx.ch(1)])?;
            Ok(ctx.ch(0))
        },
        remove,
    )
    .custom_nulls()
    .build()
}

/// `arrayRemove`: the remover is compared with every element in the elements' and its
/// supertype, as one row-format comparison per element; NULL equals NULL and NaN
/// nothing, as ClickHouse's `=` with NULLs.
fn remove(ctx: &ExecCtx) -> DfResult<ArrayRef> {
    let array = ctx.array(0)?;
    let list = array.as_list::<i32>();
    let item = list_item(ctx.ret_type(), ctx.name)?;
    let element = crate::array::element_type(&ctx.ch(0));
    let target = crate::array_access::element_supertype(&[element.clone(), ctx.ch(1)])?;
    let o = list.value_offsets();
    let (first, last) = (o[0] as usize, o[list.len()] as usize);
    let owner: UInt32Array = (0..list.len()).flat_map(|row| std::iter::repeat_n(row as u32, (o[row + 1] - o[row]) as usize)).collect();
    let values = list.values().slice(first, last - first);
    let removers = take(ctx.array(1)?.as_ref(), &owner, None)?;
    let keep: Vec<bool> = if matches!(target.base(), ChType::Nothing) {
        // Only NULLs on either side: everything equals the NULL remover.
        vec![false; values.len()]
    } else {
        let cv = crate::conversion::convert::Conv { func: ctx.name, mode: crate::conversion::convert::Mode::Throw, config: ctx.config };
        let convert = |column: &ArrayRef, from: &ChType| -> DfResult<ArrayRef> {
            if matches!(from.base(), ChType::Nothing) {
                return Ok(datafusion::arrow::array::new_null_array(&target.strip_nullable().to_arrow(), column.len()));
            }
            crate::conversion::convert::convert(column, &from.to_arrow_field("value"), target.strip_nullable(), &cv)
        };
        let (values, removers) = (convert(&values, &element)?, convert(&removers, &ctx.ch(1))?);
        let converter = datafusion::arrow::row::RowConverter::new(vec![datafusion::arrow::row::SortField::new(values.data_type().clone())])?;
        let (value_keys, remover_keys) = (converter.convert_columns(&[Arc::clone(&values)])?, converter.convert_columns(&[Arc::clone(&removers)])?);
        let is_nan = |column: &ArrayRef, i: usize| match column.data_type() {
            DataType::Float64 => column.as_primitive::<datafusion::arrow::datatypes::Float64Type>().value(i).is_nan(),
            DataType::Float32 => column.as_primitive::<datafusion::arrow::datatypes::Float32Type>().value(i).is_nan(),
            _ => false,
        };
        (0..values.len()).map(|i| value_keys.row(i) != remover_keys.row(i) || values.is_valid(i) && is_nan(&values, i)).collect()
    };
    let mut positions: Vec<u32> = Vec::new();
    let mut lengths = Vec::with_capacity(list.len());
    for row in 0..list.len() {
        let before = positions.len();
        positions.extend((o[row] as usize..o[row + 1] as usize).filter(|&i| keep[i - first]).map(|i| i as u32));
        lengths.push(positions.len() - before);
    }
    Ok(Arc::new(taken_list(list.values(), positions, lengths, item)?))
}

/// `arrayTopK(k, arr)` (`descending`) or `arrayBottomK(k, arr)`.
fn top_k(name: &'static str, descending: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            if !crate::args::is_integer(ctx.dt(0)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {} of the K argument of function {} (must be a native integer: UInt8/16/32/64 or Int8/16/32/64)", ctx.ch(0), ctx.name),
                ));
            }
            match ctx.ch(1) {
                t @ ChType::Array(_) => Ok(crate::array::without_low_cardinality(t)),
                t => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The 2nd argument for function {} must be array. Found {t} instead", ctx.name))),
            }
        },
        move |ctx| {
            let ks = ctx.array(0)?;
            // Beyond i64::MAX a k keeps every element anyway.
            let ks: Vec<i64> = match ks.as_primitive_opt::<datafusion::arrow::datatypes::UInt64Type>() {
                Some(unsigned) => unsigned.values().iter().map(|k| (*k).min(i64::MAX as u64) as i64).collect(),
                None => datafusion::arrow::compute::cast(&ks, &DataType::Int64)?.as_primitive::<datafusion::arrow::datatypes::Int64Type>().values().to_vec(),
            };
            let k_of = |row: usize| -> DfResult<usize> {
                let k = ks[row];
                if k < 0 {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Argument K of function {} must be non-negative, got {k}", ctx.name)));
                }
                Ok(k as usize)
            };
            let array = ctx.array(1)?;
            let list = array.as_list::<i32>();
            let item = list_item(ctx.ret_type(), ctx.name)?;
            let values = list.values();
            let order = crate::array_sort::key_order(values, descending)?;
            let mut positions: Vec<u32> = Vec::new();
            let mut row_positions: Vec<u32> = Vec::new();
            let mut lengths = Vec::with_capacity(list.len());
            for row in 0..list.len() {
                let k = k_of(row)?;
                row_positions.clear();
                row_positions.extend(row_range_u32(list, row).filter(|&i| values.is_valid(i as usize)));
                row_positions.sort_by(|a, b| order(*a as usize, *b as usize));
                row_positions.truncate(k);
                positions.extend_from_slice(&row_positions);
                lengths.push(row_positions.len());
            }
            Ok(Arc::new(taken_list(values, positions, lengths, item)?))
        },
    )
    .build()
}

/// Row `row`'s element positions in `list`.
fn row_range_u32(list: &ListArray, row: usize) -> std::ops::Range<u32> {
    let o = list.value_offsets();
    o[row] as u32..o[row + 1] as u32
}

fn transpose() -> ScalarUDF {
    ScalarDef::new(
        "arrayTranspose",
        Arity::exact(1),
        |ctx| {
            let t = ctx.ch(0);
            match &t {
                ChType::Array(inner) if matches!(**inner, ChType::Array(_)) => Ok(t),
                _ => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument of function {} must be Array(Array(T)), got {t}", ctx.name))),
            }
        },
        |ctx| {
            let array = ctx.array(0)?;
            let outer = array.as_list::<i32>();
            let inner = outer.values().as_list_opt::<i32>().ok_or_else(|| crate::args::illegal_type(ctx.name, 0, &ctx.fields[0]))?;
            let outer_item = list_item(ctx.ret_type(), ctx.name)?;
            let inner_item = list_item(outer_item.data_type(), ctx.name)?;
            let mut positions: Vec<u32> = Vec::new();
            let (mut outer_lengths, mut inner_lengths) = (Vec::with_capacity(ctx.len), Vec::new());
            for row in 0..ctx.len {
                let arrays = row_range_u32(outer, row);
                let size = arrays.clone().next().map_or(0, |first| inner.value_length(first as usize) as usize);
                if let Some(other) = arrays.clone().map(|a| inner.value_length(a as usize) as usize).find(|n| *n != size) {
                    return Err(ch_error(
                        ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                        format!("All inner arrays in argument of function {} must have equal sizes, but row {row} has inner arrays of size {size} and {other}", ctx.name),
                    ));
                }
                for column in 0..size as u32 {
                    positions.extend(arrays.clone().map(|a| inner.value_offsets()[a as usize] as u32 + column));
                    inner_lengths.push(arrays.len());
                }
                outer_lengths.push(size);
            }
            let columns = taken_list(inner.values(), positions, inner_lengths, inner_item)?;
            Ok(Arc::new(ListArray::try_new(outer_item, OffsetBuffer::from_lengths(outer_lengths), Arc::new(columns), None)?))
        },
    )
    .build()
}

fn array_except() -> ScalarUDF {
    ScalarDef::new(
        "arrayExcept",
        Arity::exact(2),
        |ctx| {
            let (ChType::Array(kept), ChType::Array(excluded)) = (ctx.ch(0), ctx.ch(1)) else {
                let (i, argument) = if matches!(ctx.ch(0), ChType::Array(_)) { (1, ("2nd", "exclude")) } else { (0, ("1st", "source")) };
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as {} argument '{}' to function '{}'. Expected: Array, got: {}", argument.0, argument.1, ctx.name, ctx.ch(i)),
                ));
            };
            // Integer literals are still Int64 while the query is planned.
            let (a, b) = (kept.strip_nullable(), excluded.strip_nullable());
            if a != b && !crate::map_functions::planning_int_literals(a, b) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Function {} requires both arrays to have exactly the same element type. Got {} and {}", ctx.name, ctx.ch(0), ctx.ch(1)),
                ));
            }
            Ok(ctx.ch(0))
        },
        |ctx| {
            let (first, second) = (ctx.array(0)?, ctx.array(1)?);
            let (kept, excluded) = (first.as_list::<i32>(), second.as_list::<i32>());
            let item = list_item(ctx.ret_type(), ctx.name)?;
            let excluded_values = if excluded.values().data_type() == kept.values().data_type() {
                Arc::clone(excluded.values())
            } else {
                datafusion::arrow::compute::cast(excluded.values(), kept.values().data_type())?
            };
            let converter = datafusion::arrow::row::RowConverter::new(vec![datafusion::arrow::row::SortField::new(kept.values().data_type().clone())])?;
            let kept_keys = converter.convert_columns(&[Arc::clone(kept.values())])?;
            let excluded_keys = converter.convert_columns(&[excluded_values])?;
            let mut set: std::collections::HashSet<datafusion::arrow::row::Row> = std::collections::HashSet::new();
            let mut positions: Vec<u32> = Vec::new();
            let mut lengths = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                set.clear();
                set.extend(row_range_u32(excluded, row).map(|i| excluded_keys.row(i as usize)));
                let before = positions.len();
                positions.extend(row_range_u32(kept, row).filter(|&i| !set.contains(&kept_keys.row(i as usize))));
                lengths.push(positions.len() - before);
            }
            Ok(Arc::new(taken_list(kept.values(), positions, lengths, item)?))
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        zip_unaligned(),
        shingles(),
        flattened_length(),
        array_remove(),
        top_k("arrayTopK", true),
        top_k("arrayBottomK", false),
        transpose(),
        array_except(),
    ]
}

