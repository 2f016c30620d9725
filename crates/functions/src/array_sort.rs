//! `arraySort`, `arrayReverseSort`, `arrayPartialSort`, `arrayPartialReverseSort` and
//! `arrayDistinct`.
//!
//! Sorting is stable and puts NULLs last and NaNs just before them whatever the
//! direction, as ClickHouse does; strings compare as bytes, arrays and tuples
//! element by element. With a lambda (`arraySort(x -> -x, arr)`,
//! `arraySort((x, y) -> y, xs, ys)`) the lambda's results are the sort keys of the first
//! array's elements (see [`crate::lambda`]). `arrayDistinct` keeps the first of equal
//! elements and drops NULLs, returning the element type without `Nullable`.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::sync::Arc;

use datafusion::arrow::array::{make_comparator, Array, ArrayRef, AsArray, ListArray, UInt64Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{take, SortOptions};
use datafusion::arrow::datatypes::{DataType, FieldRef, Float32Type, Float64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::array_aggregate::element_keys;
use crate::func::ScalarDef;
use crate::regexp::list_offset;

/// The order of `keys[i]` and `keys[j]`: values first (ascending or descending), then
/// NaNs, then NULLs.
pub(crate) fn key_order(keys: &ArrayRef, descending: bool) -> DfResult<Box<dyn Fn(usize, usize) -> Ordering + '_>> {
    let class: Box<dyn Fn(usize) -> u8 + '_> = match keys.data_type() {
        DataType::Float64 => {
            let f = keys.as_primitive::<Float64Type>();
            Box::new(move |i| if f.is_null(i) { 2 } else { u8::from(f.value(i).is_nan()) })
        }
        DataType::Float32 => {
            let f = keys.as_primitive::<Float32Type>();
            Box::new(move |i| if f.is_null(i) { 2 } else { u8::from(f.value(i).is_nan()) })
        }
        _ => Box::new(move |i| if keys.is_null(i) { 2 } else { 0 }),
    };
    if keys.data_type() == &DataType::Null {
        return Ok(Box::new(|_, _| Ordering::Equal));
    }
    let options = SortOptions { descending: false, nulls_first: false };
    let cmp = make_comparator(keys.as_ref(), keys.as_ref(), options)?;
    Ok(Box::new(move |i, j| {
        let (ci, cj) = (class(i), class(j));
        if ci != cj || ci != 0 {
            return ci.cmp(&cj);
        }
        let order = cmp(i, j);
        if descending {
            order.reverse()
        } else {
            order
        }
    }))
}

/// Each row's elements of `values` (a flat column, rows at `offsets`) in the order of
/// `keys` (aligned with `values`), as a list column with item `field`.
pub(crate) fn sort_lists(values: &ArrayRef, keys: &ArrayRef, offsets: &[i32], field: FieldRef, descending: bool) -> DfResult<ArrayRef> {
    sort_lists_by(values, &key_order(keys, descending)?, offsets, field)
}

/// [`sort_lists`] in the order `order` gives positions of `values`.
pub(crate) fn sort_lists_by(values: &ArrayRef, order: &dyn Fn(usize, usize) -> Ordering, offsets: &[i32], field: FieldRef) -> DfResult<ArrayRef> {
    let mut indices: Vec<u64> = Vec::with_capacity(values.len());
    let mut row_indices: Vec<usize> = Vec::new();
    for w in offsets.windows(2) {
        row_indices.clear();
        row_indices.extend(w[0] as usize..w[1] as usize);
        row_indices.sort_by(|a, b| order(*a, *b));
        indices.extend(row_indices.iter().map(|i| *i as u64));
    }
    let sorted = take(values.as_ref(), &UInt64Array::from(indices), None)?;
    let lengths = offsets.windows(2).map(|w| (w[1] - w[0]) as usize);
    Ok(Arc::new(ListArray::try_new(field, OffsetBuffer::from_lengths(lengths), sorted, None)?))
}

fn sort_fn(name: &'static str, descending: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| match ctx.ch(0) {
            t @ ChType::Array(_) => Ok(crate::array::without_low_cardinality(t)),
            t => Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("The 1st and only argument for function {} must be array. Found {t} instead", ctx.name),
            )),
        },
        move |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let DataType::List(field) = list.data_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "arraySort of a non-list"));
            };
            sort_lists(list.values(), list.values(), list.value_offsets(), Arc::clone(field), descending)
        },
    )
    .build()
}

/// `arrayPartialSort(limit, arr)` / `arrayPartialReverseSort`: the first `limit`
/// elements in order, the rest where ClickHouse's `::partial_sort` of the positions
/// leaves them ([`crate::cxx_sort`]); a limit of 0, negative or past the end sorts all.
fn partial_sort_fn(name: &'static str, descending: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(2),
        |ctx| {
            if ctx.arg_count() > 2 {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("First argument for function {} must be a function. Actual {}", ctx.name, ctx.ch(0)),
                ));
            }
            if !matches!(
                ctx.ch(0).base(),
                ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64
            ) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {} of limit argument of function {} (must be UInt or Int)", ctx.ch(0), ctx.name),
                ));
            }
            match ctx.ch(1) {
                t @ ChType::Array(_) => Ok(crate::array::without_low_cardinality(t)),
                t => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The 2nd argument for function {} must be array. Found {t} instead", ctx.name))),
            }
        },
        move |ctx| {
            let limits = datafusion::arrow::compute::cast(&ctx.array(0)?, &DataType::Int64)?;
            let limits = limits.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
            let a = ctx.array(1)?;
            let list = a.as_list::<i32>();
            let DataType::List(field) = list.data_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "arrayPartialSort of a non-list"));
            };
            let limit = |row: usize| if limits.is_null(row) { 0 } else { limits.value(row) };
            partial_sort_lists(list.values(), list.values(), list.value_offsets(), &limit, Arc::clone(field), descending, list.nulls().cloned())
        },
    )
    .build()
}

/// Each row's elements of `values` (a flat column, rows at `offsets`) with the first
/// `limit(row)` in the order of `keys` (aligned with `values`) and the rest where
/// ClickHouse's `::partial_sort` of the positions leaves them; a limit of 0, negative or
/// past the end sorts the whole row (stably, as `arraySort`).
pub(crate) fn partial_sort_lists(
    values: &ArrayRef,
    keys: &ArrayRef,
    offsets: &[i32],
    limit: &dyn Fn(usize) -> i64,
    field: FieldRef,
    descending: bool,
    nulls: Option<datafusion::arrow::buffer::NullBuffer>,
) -> DfResult<ArrayRef> {
    partial_sort_lists_by(values, &key_order(keys, descending)?, offsets, limit, field, nulls)
}

/// [`partial_sort_lists`] in the order `order` gives positions of `values`.
pub(crate) fn partial_sort_lists_by(
    values: &ArrayRef,
    order: &dyn Fn(usize, usize) -> Ordering,
    offsets: &[i32],
    limit: &dyn Fn(usize) -> i64,
    field: FieldRef,
    nulls: Option<datafusion::arrow::buffer::NullBuffer>,
) -> DfResult<ArrayRef> {
    let before = |a: &usize, b: &usize| order(*a, *b) == Ordering::Less;
    let mut indices: Vec<u64> = Vec::with_capacity(values.len());
    let mut row_indices: Vec<usize> = Vec::new();
    for (row, w) in offsets.windows(2).enumerate() {
        row_indices.clear();
        row_indices.extend(w[0] as usize..w[1] as usize);
        let limit = limit(row);
        if limit > 0 && (limit as usize) < row_indices.len() {
            crate::cxx_sort::partial_sort(&mut row_indices, limit as usize, &before);
        } else {
            row_indices.sort_by(|a, b| order(*a, *b));
        }
        indices.extend(row_indices.iter().map(|i| *i as u64));
    }
    let sorted = take(values.as_ref(), &UInt64Array::from(indices), None)?;
    let lengths = offsets.windows(2).map(|w| (w[1] - w[0]) as usize);
    Ok(Arc::new(ListArray::try_new(field, OffsetBuffer::from_lengths(lengths), sorted, nulls)?) as ArrayRef)
}

fn array_distinct() -> ScalarUDF {
    ScalarDef::new(
        "arrayDistinct",
        Arity::exact(1),
        |ctx| match ctx.ch(0) {
            ChType::Array(inner) => Ok(crate::array::without_low_cardinality(ChType::Array(Box::new(inner.strip_nullable().clone())))),
            t => Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Argument for function arrayDistinct must be array but it has type {t}"),
            )),
        },
        |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let DataType::List(field) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "arrayDistinct returns a list"));
            };
            let values = list.values();
            let mut indices: Vec<u64> = Vec::new();
            let mut offsets: Vec<i32> = vec![0];
            if values.data_type() != &DataType::Null {
                let keys = element_keys(values)?;
                let mut seen: HashSet<&[u8]> = HashSet::new();
                let o = list.value_offsets();
                for row in 0..list.len() {
                    seen.clear();
                    for i in o[row] as usize..o[row + 1] as usize {
                        if values.is_valid(i) && seen.insert(keys.row(i).data()) {
                            indices.push(i as u64);
                        }
                    }
                    offsets.push(list_offset(indices.len())?);
                }
            } else {
                offsets.extend(std::iter::repeat_n(0, list.len()));
            }
            let distinct = take(values.as_ref(), &UInt64Array::from(indices), None)?;
            Ok(Arc::new(ListArray::try_new(Arc::clone(field), OffsetBuffer::new(offsets.into()), distinct, None)?))
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        sort_fn("arraySort", false),
        sort_fn("arrayReverseSort", true),
        partial_sort_fn("arrayPartialSort", false),
        partial_sort_fn("arrayPartialReverseSort", true),
        array_distinct(),
    ]
}
