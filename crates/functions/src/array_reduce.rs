//! `arrayReduce('agg', arr, ...)`: the aggregate function `agg` (any Granary aggregate,
//! combinators included: `sumIf`, `uniqExactState`, ...) run over each row's arrays, the
//! i-th elements of the arrays being one row of its arguments.
//!
//! The aggregate comes from the same registry SQL calls use; its result type is what it
//! returns over the element types. Each row gets a fresh accumulator fed that row's
//! elements.

use std::sync::Arc;

use std::collections::HashSet;

use datafusion::arrow::array::{ArrayRef, AsArray, ListArray, UInt64Array};
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::FieldRef;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_integer, scalar_str, Arity, DfResult};
use crate::combinators::{base_aggregate, base_fields, BaseCall};
use crate::func::{ch_type_of_field, RetCtx, ScalarDef};

const NAME_ERROR: &str = "First argument for function arrayReduce must be constant string: name of aggregate function";

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

fn element_types(ctx: &RetCtx) -> DfResult<Vec<ChType>> {
    (1..ctx.arg_count())
        .map(|i| match ctx.ch(i) {
            ChType::Array(inner) => Ok(*inner),
            t => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument {i} for function arrayReduce must be an array but it has type {t}"))),
        })
        .collect()
}

fn array_reduce() -> ScalarUDF {
    ScalarDef::new(
        "arrayReduce",
        Arity::at_least(0),
        |ctx| {
            if ctx.arg_count() < 2 {
                return Err(ch_error(
                    ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
                    format!("Number of arguments for function arrayReduce doesn't match: passed {}, should be at least 2", ctx.arg_count()),
                ));
            }
            let name = ctx.scalar(0).and_then(scalar_str).ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, NAME_ERROR))?;
            let elements = element_types(ctx)?;
            // Only NULLs to aggregate: ClickHouse answers NULL whatever the function.
            if elements.iter().any(is_null_type) {
                return Ok(ChType::Nullable(Box::new(ChType::Nothing)));
            }
            let r = resolve(name, &elements, false)?;
            Ok(ch_type_of_field(r.aggregate.return_field(&r.inputs)?.as_ref()))
        },
        |ctx| {
            let name = ctx.scalar(0).and_then(scalar_str).ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, NAME_ERROR))?;
            let elements: Vec<ChType> = (1..ctx.args.len()).map(|i| crate::array::element_type(&ctx.ch(i))).collect();
            if elements.iter().any(is_null_type) {
                return Ok(datafusion::arrow::array::new_null_array(ctx.ret_type(), ctx.len));
            }
            let r = resolve(name, &elements, true)?;
            let (aggregate, inputs) = (&r.aggregate, &r.inputs);
            let call = BaseCall::new(aggregate, inputs)?;
            let arrays: Vec<ArrayRef> = (1..ctx.args.len()).map(|i| ctx.array(i)).collect::<DfResult<_>>()?;
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
            let first = lists[0].value_offsets();
            let mut results: Vec<ScalarValue> = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let (start, end) = (first[row] as usize, first[row + 1] as usize);
                for l in &lists {
                    let o = l.value_offsets();
                    if o[row + 1] - o[row] != first[row + 1] - first[row] {
                        return Err(ch_error(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, "Lengths of all arrays passed to arrayReduce must be equal"));
                    }
                }
                // The row's element positions that take part (`-If`, `-Distinct`).
                let mut seen: HashSet<Vec<u8>> = HashSet::new();
                let picked: Vec<usize> = (0..end - start)
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
            let out = if results.is_empty() {
                datafusion::arrow::array::new_empty_array(ctx.ret_type())
            } else {
                ScalarValue::iter_to_array(results)?
            };
            if out.data_type() == ctx.ret_type() {
                Ok(out)
            } else {
                Ok(cast(&out, ctx.ret_type())?)
            }
        },
    )
    .custom_nulls()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![array_reduce()]
}
