//! `arrayReduce('agg', arr, ...)`: the aggregate function `agg` (any Granary aggregate,
//! combinators included: `sumIf`, `uniqExactState`, ...) run over each row's arrays, the
//! i-th elements of the arrays being one row of its arguments; `arrayReduceInRanges`
//! runs it over ranges of them.
//!
//! The aggregate comes from the same registry SQL calls use; its result type is what it
//! returns over the element types. Each row gets a fresh accumulator fed that row's
//! elements.

use std::sync::Arc;

use std::collections::HashSet;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt64Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, FieldRef, Int64Type, UInt64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_integer, scalar_str, Arity, DfResult};
use crate::combinators::{base_aggregate, base_fields, BaseCall};
use crate::func::{ch_type_of_field, ExecCtx, RetCtx, ScalarDef};

/// What `arrayReduce`'s aggregate name asks for. The SQL front end turns `-If` and
/// `-Distinct` into `FILTER` and `DISTINCT`, so the registry has no `sumIf`: those two
/// outermost combinators are applied here, on the rows of elements.
struct Resolved {
    aggregate: Arc<AggregateUDF>,
    /// The argument fields the aggregate runs on (after its own coercion).
    inputs: Vec<FieldRef>,
    /// `-If`: the last array is the condition.
    condition: bool,
    /// `-Distinct`: equal rows of elements count once.
    distinct: bool,
}

fn resolve(name: &str, elements: &[ChType], strict: bool) -> DfResult<Resolved> {
    let mut base = name;
    let (mut condition, mut distinct) = (false, false);
    let aggregate = loop {
        match base_aggregate(base) {
            Ok(a) => break a,
            Err(e) => {
                if let Some(rest) = base.strip_suffix("If").filter(|r| !r.is_empty() && !condition) {
                    condition = true;
                    base = rest;
                } else if let Some(rest) = base.strip_suffix("Distinct").filter(|r| !r.is_empty() && !distinct) {
                    distinct = true;
                    base = rest;
                } else if base == name {
                    return Err(e);
                } else {
                    return Err(ch_error(ErrorCode::UNKNOWN_AGGREGATE_FUNCTION, format!("Unknown aggregate function {name}")));
                }
            }
        }
    };
    let arguments = if condition {
        match elements.split_last() {
            // While the query is planned, an expression over literals may still have a
            // provisional integer type (`x % 2` over UInt64 before `2` is typed UInt8): any
            // integer passes here, and the condition's real type is checked when it runs.
            Some((last, rest)) if matches!(last.strip_nullable(), ChType::UInt8 | ChType::Bool) || (!strict && is_integer(&last.to_arrow())) => rest,
            Some((last, _)) => {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {last} of the last argument of an aggregate function with the If suffix: the last argument is the condition and must be UInt8. If the condition is missing, it goes after the arguments of the aggregate function")));
            }
            None => return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Aggregate function {name} requires at least one argument"))),
        }
    } else {
        elements
    };
    if let Some(t) = arguments.iter().find(|t| matches!(t, ChType::Nothing)) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {t} of argument for aggregate function {base}")));
    }
    let inputs = base_fields(&aggregate, arguments);
    Ok(Resolved { aggregate, inputs, condition, distinct })
}

fn is_null_type(t: &ChType) -> bool {
    matches!(t, ChType::Nullable(inner) if matches!(**inner, ChType::Nothing))
}

/// The element types of the array arguments from `first`.
fn element_types(ctx: &RetCtx, first: usize) -> DfResult<Vec<ChType>> {
    (first..ctx.arg_count())
        .map(|i| match ctx.ch(i) {
            ChType::Array(inner) => Ok(*inner),
            t => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument {i} for function {} must be an array but it has type {t}", ctx.name))),
        })
        .collect()
}

fn name_error(name: &str) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First argument for function {name} must be constant string: name of aggregate function"))
}

/// The result type of the aggregate over the arrays from argument `first`.
fn reduced_type(ctx: &RetCtx, first: usize) -> DfResult<ChType> {
    let name = ctx.scalar(0).and_then(scalar_str).ok_or_else(|| name_error(ctx.name))?;
    let elements = element_types(ctx, first)?;
    // Only NULLs to aggregate: ClickHouse answers NULL whatever the function.
    if elements.iter().any(is_null_type) {
        return Ok(ChType::Nullable(Box::new(ChType::Nothing)));
    }
    let r = resolve(name, &elements, false)?;
    Ok(ch_type_of_field(r.aggregate.return_field(&r.inputs)?.as_ref()))
}

/// Runs the aggregate over the arrays from argument `first`: for each row, once per range
/// of element positions `ranges(row, length)` gives (`start..end`, within the row).
/// Returns the results in order and, per row, how many there are; `None` when the
/// elements are only NULLs (the result is NULL whatever the aggregate).
fn reduce(ctx: &ExecCtx, first: usize, ranges: &dyn Fn(usize, usize) -> DfResult<Vec<(usize, usize)>>) -> DfResult<Option<(Vec<ScalarValue>, Vec<usize>)>> {
    let name = ctx.scalar(0).and_then(scalar_str).ok_or_else(|| name_error(ctx.name))?;
    let elements: Vec<ChType> = (first..ctx.args.len()).map(|i| crate::array::element_type(&ctx.ch(i))).collect();
    if elements.iter().any(is_null_type) {
        return Ok(None);
    }
    let r = resolve(name, &elements, true)?;
    let (aggregate, inputs) = (&r.aggregate, &r.inputs);
    let call = BaseCall::new(aggregate, inputs)?;
    let arrays: Vec<ArrayRef> = (first..ctx.args.len()).map(|i| ctx.array(i)).collect::<DfResult<_>>()?;
    let lists: Vec<&ListArray> = arrays.iter().map(|a| a.as_list::<i32>()).collect();
    // Element values as the aggregate takes them (after its own coercion).
    let values: Vec<ArrayRef> = lists
        .iter()
        .zip(inputs)
        .map(|(l, f)| if l.values().data_type() == f.data_type() { Ok(Arc::clone(l.values())) } else { Ok(cast(l.values(), f.data_type())?) })
        .collect::<DfResult<_>>()?;
    let condition = if r.condition {
        let last = lists[lists.len() - 1].values();
        let mask = crate::conditional::truth_mask(last)?;
        Some(crate::conditional::null_to_false(&mask))
    } else {
        None
    };
    let keys: Vec<datafusion::arrow::row::Rows> =
        if r.distinct { values.iter().map(crate::array_aggregate::element_keys).collect::<DfResult<_>>()? } else { Vec::new() };
    let first_offsets = lists[0].value_offsets();
    let mut results: Vec<ScalarValue> = Vec::with_capacity(ctx.len);
    let mut counts: Vec<usize> = Vec::with_capacity(ctx.len);
    for row in 0..ctx.len {
        let length = (first_offsets[row + 1] - first_offsets[row]) as usize;
        for l in &lists {
            let o = l.value_offsets();
            if (o[row + 1] - o[row]) as usize != length {
                return Err(ch_error(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, format!("Lengths of all arrays passed to {} must be equal", ctx.name)));
            }
        }
        let row_ranges = ranges(row, length)?;
        counts.push(row_ranges.len());
        for (start, end) in row_ranges {
            // The range's element positions that take part (`-If`, `-Distinct`).
            let mut seen: HashSet<Vec<u8>> = HashSet::new();
            let picked: Vec<usize> = (start..end)
                .filter(|j| condition.as_ref().is_none_or(|c| c.value(lists[lists.len() - 1].value_offsets()[row] as usize + j)))
                .filter(|j| {
                    !r.distinct || {
                        let mut key = Vec::new();
                        for (l, k) in lists.iter().zip(&keys) {
                            key.extend_from_slice(k.row(l.value_offsets()[row] as usize + j).as_ref());
                        }
                        seen.insert(key)
                    }
                })
                .collect();
            let mut accumulator = call.accumulator(aggregate, false)?;
            if !picked.is_empty() {
                let mut slices = Vec::with_capacity(inputs.len());
                for (l, v) in lists.iter().zip(&values) {
                    let s = l.value_offsets()[row] as usize;
                    let indices = UInt64Array::from_iter_values(picked.iter().map(|j| (s + j) as u64));
                    slices.push(take(v.as_ref(), &indices, None)?);
                }
                accumulator.update_batch(&slices)?;
            }
            results.push(accumulator.evaluate()?);
        }
    }
    Ok(Some((results, counts)))
}

/// Scalar results as a column of `target`.
fn to_column(results: Vec<ScalarValue>, target: &DataType) -> DfResult<ArrayRef> {
    let out = if results.is_empty() { datafusion::arrow::array::new_empty_array(target) } else { ScalarValue::iter_to_array(results)? };
    if out.data_type() == target {
        Ok(out)
    } else {
        Ok(cast(&out, target)?)
    }
}

fn too_few(ctx: &RetCtx, at_least: usize) -> DfResult<()> {
    if ctx.arg_count() < at_least {
        return Err(ch_error(
            ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
            format!("Number of arguments for function {} doesn't match: passed {}, should be at least {at_least}", ctx.name, ctx.arg_count()),
        ));
    }
    Ok(())
}

fn array_reduce() -> ScalarUDF {
    ScalarDef::new(
        "arrayReduce",
        Arity::at_least(0),
        |ctx| {
            too_few(ctx, 2)?;
            reduced_type(ctx, 1)
        },
        |ctx| match reduce(ctx, 1, &|_, length| Ok(vec![(0, length)]))? {
            None => Ok(datafusion::arrow::array::new_null_array(ctx.ret_type(), ctx.len)),
            Some((results, _)) => to_column(results, ctx.ret_type()),
        },
    )
    .custom_nulls()
    .build()
}

fn lengths_not_unsigned(name: &str) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Second tuple member in the second argument for function {name} must be uints"))
}

/// `arrayReduceInRanges('agg', ranges, arr, ...)`: `arrayReduce` over each `(index,
/// length)` range of the arrays (a 1-based index, negative from the end; a range that
/// starts outside the array is empty), an array of the results.
fn array_reduce_in_ranges() -> ScalarUDF {
    ScalarDef::new(
        "arrayReduceInRanges",
        Arity::at_least(0),
        |ctx| {
            too_few(ctx, 3)?;
            let not_pairs = || ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Each array element in the second argument for function {} must be a tuple (index, length)", ctx.name));
            let ChType::Array(range) = ctx.ch(1) else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The second argument for function {} must be an array of ranges", ctx.name)));
            };
            let ChType::Tuple(members) = *range else { return Err(not_pairs()) };
            let [(_, index), (_, length)] = members.as_slice() else { return Err(not_pairs()) };
            if !is_integer(&index.to_arrow()) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First tuple member in the second argument for function {} must be ints or uints", ctx.name)));
            }
            // While the query is planned, the integers of a literal `[(1, 2)]` are still
            // Int64 (see `crate::literals`); the kernel checks the final type.
            if !matches!(length, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int64) {
                return Err(lengths_not_unsigned(ctx.name));
            }
            Ok(ChType::Array(Box::new(reduced_type(ctx, 2)?)))
        },
        |ctx| {
            let ranges = ctx.array(1)?;
            let ranges = ranges.as_list::<i32>();
            let pairs = ranges.values().as_struct();
            if crate::args::is_signed_int(pairs.column(1).data_type()) {
                return Err(lengths_not_unsigned(ctx.name));
            }
            let starts = cast(pairs.column(0), &DataType::Int64)?;
            let starts = starts.as_primitive::<Int64Type>();
            let lengths = cast(pairs.column(1), &DataType::UInt64)?;
            let lengths = lengths.as_primitive::<UInt64Type>();
            let offsets = ranges.value_offsets();
            let in_row = |row: usize, length: usize| -> DfResult<Vec<(usize, usize)>> {
                Ok((offsets[row] as usize..offsets[row + 1] as usize)
                    .map(|k| {
                        let (index, count) = (starts.value(k), lengths.value(k));
                        let start = match index {
                            i if i > 0 => i as i128 - 1,
                            i if i < 0 => length as i128 + i as i128,
                            _ => -1,
                        };
                        if start < 0 || start >= length as i128 {
                            return (0, 0);
                        }
                        let start = start as usize;
                        (start, start + (count.min((length - start) as u64) as usize))
                    })
                    .collect())
            };
            let DataType::List(item) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns a list", ctx.name)));
            };
            let (values, counts) = match reduce(ctx, 2, &in_row)? {
                Some((results, counts)) => (to_column(results, item.data_type())?, counts),
                // Only NULLs: a NULL per range.
                None => {
                    let counts: Vec<usize> = (0..ctx.len).map(|row| (offsets[row + 1] - offsets[row]) as usize).collect();
                    (datafusion::arrow::array::new_null_array(item.data_type(), counts.iter().sum()), counts)
                }
            };
            Ok(Arc::new(ListArray::try_new(Arc::clone(item), OffsetBuffer::from_lengths(counts), values, None)?))
        },
    )
    .custom_nulls()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![array_reduce(), array_reduce_in_ranges()]
}
