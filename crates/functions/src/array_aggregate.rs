//! Functions that reduce each array to one value: `arrayCount`, `arrayExists`,
//! `arrayAll` (of an `Array(UInt8)`), `arraySum`, `arrayMin`, `arrayMax`, `arrayUniq`.
//! Their lambda forms (`arrayCount(x -> x > 1, arr)`) evaluate the lambda and call the
//! same kernels on its results (see [`crate::lambda`]).
//!
//! As in ClickHouse: `arraySum` widens to Int64 / UInt64 / Float64 / Decimal(38, S)
//! and wraps on overflow, refusing Nullable elements; `arrayMin`/`arrayMax` skip NULLs
//! and NaNs (NaN only when nothing else is there), giving the element type's default
//! for an empty array (NULL for Nullable elements); `arrayUniq` counts distinct tuples of
//! the arrays' elements, NULL being a value of its own.

use std::collections::HashSet;
use std::sync::Arc;

use datafusion::arrow::array::{
    make_comparator, Array, ArrayRef, AsArray, Decimal128Array, Float64Array, Int64Array, ListArray, PrimitiveArray, UInt32Array,
    UInt64Array, UInt8Array,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{i256, DataType, Decimal128Type, Decimal256Type, Field, Float32Type, Float64Type, Int64Type, UInt64Type};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::wide::WideInt;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::array::item_field;
use crate::array_access::pick;
use crate::func::ScalarDef;

/// How a truth array reduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Truth {
    Count,
    Exists,
    All,
}

impl Truth {
    pub fn name(self) -> &'static str {
        match self {
            Truth::Count => "arrayCount",
            Truth::Exists => "arrayExists",
            Truth::All => "arrayAll",
        }
    }

    pub fn result_type(self) -> ChType {
        match self {
            Truth::Count => ChType::UInt32,
            Truth::Exists | Truth::All => ChType::UInt8,
        }
    }
}

/// Whether `t` is a truth value ClickHouse accepts (UInt8 or Bool).
pub(crate) fn is_truth(t: &ChType) -> bool {
    matches!(t, ChType::UInt8 | ChType::Bool)
}

/// Per row, the truth elements `values[offsets[row]..offsets[row + 1]]` reduced (a NULL
/// counts as false).
pub(crate) fn reduce_truth(values: &ArrayRef, offsets: &[i32], how: Truth) -> DfResult<ArrayRef> {
    let truth: Vec<bool> = match values.data_type() {
        DataType::Boolean => {
            let b = values.as_boolean();
            (0..b.len()).map(|i| b.is_valid(i) && b.value(i)).collect()
        }
        DataType::UInt8 => {
            let u = values.as_primitive::<datafusion::arrow::datatypes::UInt8Type>();
            (0..u.len()).map(|i| u.is_valid(i) && u.value(i) != 0).collect()
        }
        DataType::Null => vec![false; values.len()],
        other => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("{} expects UInt8 values, got {other}", how.name()))),
    };
    let rows = offsets.len().saturating_sub(1);
    let range = |row: usize| &truth[offsets[row] as usize..offsets[row + 1] as usize];
    Ok(match how {
        Truth::Count => Arc::new(UInt32Array::from_iter_values((0..rows).map(|r| range(r).iter().filter(|t| **t).count() as u32))),
        Truth::Exists => Arc::new(UInt8Array::from_iter_values((0..rows).map(|r| u8::from(range(r).iter().any(|t| *t))))),
        Truth::All => Arc::new(UInt8Array::from_iter_values((0..rows).map(|r| u8::from(range(r).iter().all(|t| *t))))),
    })
}

fn truth_fn(how: Truth) -> ScalarUDF {
    ScalarDef::new(
        how.name(),
        Arity::exact(1),
        move |ctx| {
            let t = ctx.ch(0);
            match &t {
                // While the query is planned an array of literals is still `Array(Int64)`;
                // the element type is checked again when the function runs.
                ChType::Array(inner) if is_truth(inner) || matches!(**inner, ChType::Int64) => Ok(how.result_type()),
                ChType::Array(_) => Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("The 1st and only argument for function {} must be array of UInt8. Found {t} instead", ctx.name),
                )),
                _ => Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("The 1st and only argument for function {} must be array. Found {t} instead", ctx.name),
                )),
            }
        },
        move |ctx| {
            let t = ctx.ch(0);
            if !matches!(&t, ChType::Array(inner) if is_truth(inner)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("The 1st and only argument for function {} must be array of UInt8. Found {t} instead", ctx.name),
                ));
            }
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            reduce_truth(list.values(), list.value_offsets(), how)
        },
    )
    .build()
}

/// The type `arraySum` of `element`s returns.
pub(crate) fn sum_type(element: &ChType) -> DfResult<ChType> {
    Ok(match element {
        ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 => ChType::Int64,
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Bool => ChType::UInt64,
        ChType::Float32 | ChType::Float64 => ChType::Float64,
        ChType::Decimal(p, s) if *p <= 38 => ChType::Decimal(38, *s),
        ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256 => element.clone(),
        other => {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("array aggregation function cannot be performed on type {other}")));
        }
    })
}

/// Per row, the sum of `values[offsets[row]..offsets[row + 1]]` as `result` (from
/// [`sum_type`]); NULL elements (from a lambda) add nothing.
pub(crate) fn sum_lists(values: &ArrayRef, offsets: &[i32], result: &ChType) -> DfResult<ArrayRef> {
    let rows = offsets.len().saturating_sub(1);
    let range = |row: usize| offsets[row] as usize..offsets[row + 1] as usize;
    Ok(match result {
        ChType::Int64 => {
            let v = cast(values, &DataType::Int64)?;
            let v = v.as_primitive::<Int64Type>();
            Arc::new(Int64Array::from_iter_values(
                (0..rows).map(|r| range(r).filter(|i| v.is_valid(*i)).fold(0i64, |acc, i| acc.wrapping_add(v.value(i)))),
            ))
        }
        ChType::UInt64 => {
            let v = cast(values, &DataType::UInt64)?;
            let v = v.as_primitive::<UInt64Type>();
            Arc::new(UInt64Array::from_iter_values(
                (0..rows).map(|r| range(r).filter(|i| v.is_valid(*i)).fold(0u64, |acc, i| acc.wrapping_add(v.value(i)))),
            ))
        }
        ChType::Float64 => {
            let v = cast(values, &DataType::Float64)?;
            let v = v.as_primitive::<Float64Type>();
            Arc::new(Float64Array::from_iter_values(
                (0..rows).map(|r| range(r).filter(|i| v.is_valid(*i)).fold(0f64, |acc, i| acc + v.value(i))),
            ))
        }
        ChType::Int128 | ChType::UInt128 | ChType::Int256 | ChType::UInt256 => {
            let kind = WideInt::of(result).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "not a wide integer"))?;
            let v = kind.widen(values.as_ref()).map_err(|e| ch_error(e.code(), e.message().to_string()))?;
            let sums = (0..rows).map(|r| range(r).filter(|i| v.is_valid(*i)).fold(i256::ZERO, |acc, i| acc.wrapping_add(v.value(i))));
            kind.narrow(&PrimitiveArray::<Decimal256Type>::from_iter_values(sums))
        }
        ChType::Decimal(p, s) => {
            let v = cast(values, &DataType::Decimal128(*p, *s as i8))?;
            let v = v.as_primitive::<Decimal128Type>();
            let sums: Decimal128Array = Decimal128Array::from_iter_values(
                (0..rows).map(|r| range(r).filter(|i| v.is_valid(*i)).fold(0i128, |acc, i| acc.wrapping_add(v.value(i)))),
            );
            Arc::new(sums.with_precision_and_scale(*p, *s as i8)?)
        }
        other => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("array aggregation function cannot be performed on type {other}"))),
    })
}

fn array_sum() -> ScalarUDF {
    ScalarDef::new(
        "arraySum",
        Arity::exact(1),
        |ctx| match ctx.ch(0) {
            ChType::Array(inner) => sum_type(&inner),
            t => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The 1st and only argument for function arraySum must be array. Found {t} instead"))),
        },
        |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            sum_lists(list.values(), list.value_offsets(), &ctx.ret_ch())
        },
    )
    .build()
}

/// Per row, the smallest (`max`: largest) element, skipping NULLs and, unless there is
/// nothing else, NaNs; the default (NULL for a nullable `field`) for none.
pub(crate) fn min_max_lists(values: &ArrayRef, field: &Field, offsets: &[i32], max: bool) -> DfResult<ArrayRef> {
    let rows = offsets.len().saturating_sub(1);
    let is_nan: Box<dyn Fn(usize) -> bool> = match values.data_type() {
        DataType::Float64 => {
            let f = values.as_primitive::<Float64Type>().clone();
            Box::new(move |i| f.value(i).is_nan())
        }
        DataType::Float32 => {
            let f = values.as_primitive::<Float32Type>().clone();
            Box::new(move |i| f.value(i).is_nan())
        }
        _ => Box::new(|_| false),
    };
    let picked: Vec<Option<usize>> = if values.data_type() == &DataType::Null {
        vec![None; rows]
    } else {
        let cmp = make_comparator(values.as_ref(), values.as_ref(), Default::default())?;
        (0..rows)
            .map(|r| {
                let mut best: Option<usize> = None;
                let mut first_nan: Option<usize> = None;
                for i in offsets[r] as usize..offsets[r + 1] as usize {
                    if values.is_null(i) {
                        continue;
                    }
                    if is_nan(i) {
                        first_nan = first_nan.or(Some(i));
                        continue;
                    }
                    best = match best {
                        None => Some(i),
                        Some(b) => {
                            let better = if max { cmp(i, b).is_gt() } else { cmp(i, b).is_lt() };
                            Some(if better { i } else { b })
                        }
                    };
                }
                best.or(first_nan)
            })
            .collect()
    };
    pick(values, field, &picked)
}

fn min_max(name: &'static str, max: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| match ctx.ch(0) {
            ChType::Array(inner) if matches!(*inner, ChType::Nothing) => {
                Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "Invalid projection column with type Nothing"))
            }
            ChType::Array(inner) => Ok(crate::array::without_low_cardinality(*inner)),
            t => Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("The 1st and only argument for function {} must be array. Found {t} instead", ctx.name),
            )),
        },
        move |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            min_max_lists(list.values(), &item_field(list), list.value_offsets(), max)
        },
    )
    .build()
}

/// Row-format bytes of `values`, for hashing elements by value (NaNs with the same
/// bits are one value, -0 and 0 two, NULL one of its own, as in ClickHouse's hashing).
pub(crate) fn element_keys(values: &ArrayRef) -> DfResult<datafusion::arrow::row::Rows> {
    let converter = RowConverter::new(vec![SortField::new(values.data_type().clone())])?;
    Ok(converter.convert_columns(&[Arc::clone(values)])?)
}

fn array_uniq() -> ScalarUDF {
    ScalarDef::new(
        "arrayUniq",
        Arity::at_least(1),
        |ctx| {
            for i in 0..ctx.arg_count() {
                if !matches!(ctx.ch(i), ChType::Array(_)) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("All arguments for function arrayUniq must be arrays but argument {} has type {}", i + 1, ctx.ch(i)),
                    ));
                }
            }
            Ok(ChType::UInt32)
        },
        |ctx| {
            let arrays: Vec<ArrayRef> = (0..ctx.args.len()).map(|i| ctx.array(i)).collect::<DfResult<_>>()?;
            let lists: Vec<&ListArray> = arrays.iter().map(|a| a.as_list::<i32>()).collect();
            let keys: Vec<datafusion::arrow::row::Rows> = lists.iter().map(|l| element_keys(l.values())).collect::<DfResult<_>>()?;
            let mut counts: Vec<u32> = Vec::with_capacity(ctx.len);
            let mut seen: HashSet<Vec<u8>> = HashSet::new();
            for row in 0..ctx.len {
                let first = lists[0].value_offsets();
                let len = (first[row + 1] - first[row]) as usize;
                for l in &lists[1..] {
                    let o = l.value_offsets();
                    if (o[row + 1] - o[row]) as usize != len {
                        return Err(ch_error(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, "Lengths of all arrays passed to arrayUniq must be equal"));
                    }
                }
                seen.clear();
                for j in 0..len {
                    let mut key = Vec::new();
                    for (l, k) in lists.iter().zip(&keys) {
                        key.extend_from_slice(k.row(l.value_offsets()[row] as usize + j).as_ref());
                    }
                    seen.insert(key);
                }
                counts.push(seen.len() as u32);
            }
            Ok(Arc::new(UInt32Array::from(counts)))
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        truth_fn(Truth::Count),
        truth_fn(Truth::Exists),
        truth_fn(Truth::All),
        array_sum(),
        min_max("arrayMin", false),
        min_max("arrayMax", true),
        array_uniq(),
    ]
}
