//! Arrays scored as wholes: `arrayJaccardIndex(a, b)`, `arrayLevenshteinDistance(from,
//! to)`, `arrayLevenshteinDistanceWeighted(from, to, from_weights, to_weights)`,
//! `arraySimilarity(...)` (the weighted distance over the total weight, from 1), and the
//! areas under the ROC curve (`arrayROCAUC`, alias `arrayAUC`) and the precision-recall
//! curve (`arrayAUCPR`, alias `arrayPRAUC`), `arrayAutocorrelation` and
//! `arrayNormalizedGini`.
//!
//! Elements are compared through Arrow's row format, so that one byte comparison stands
//! for any element type. `arrayJaccardIndex` first converts both arrays to their least
//! supertype (`[1, 2]` and `[2.0]` share 2); the Levenshtein functions do not, as
//! ClickHouse compares their elements as its `Field`s: any two unsigned integers, any two
//! signed ones, floats, or strings (String or FixedString) can be equal, `[1]` and
//! `[toInt64(1)]` cannot, and a `Nullable` element is compared as its value.

use std::collections::HashSet;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, ListArray, UInt32Array};
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::arrow::row::Rows;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::array_aggregate::element_keys;
use crate::array_set::values_as;
use crate::func::{ExecCtx, RetCtx, ScalarDef};

/// The element type of array argument `i`, or the error ClickHouse's argument validator
/// gives, naming the argument.
fn array_argument(ctx: &RetCtx, i: usize, argument: &str) -> DfResult<ChType> {
    match ctx.ch(i) {
        ChType::Array(element) => Ok(*element),
        other => {
            let ordinal = ["1st", "2nd", "3rd", "4th"].get(i).copied().unwrap_or("next");
            Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("A value of illegal type was provided as {ordinal} argument '{argument}' to function '{}'. Expected: Array, got: {other}", ctx.name),
            ))
        }
    }
}

/// Argument `i` as a list column.
fn list_arg(ctx: &ExecCtx, i: usize) -> DfResult<ListArray> {
    let array = ctx.array(i)?;
    let list = array.as_list_opt::<i32>().ok_or_else(|| crate::args::illegal_type(ctx.name, i, &ctx.fields[i]))?;
    Ok(list.clone())
}

/// Row `row`'s element positions in `list` (into `list.values()`).
fn row_range(list: &ListArray, row: usize) -> std::ops::Range<usize> {
    let o = list.value_offsets();
    o[row] as usize..o[row + 1] as usize
}

fn jaccard_index() -> ScalarUDF {
    ScalarDef::new(
        "arrayJaccardIndex",
        Arity::exact(2),
        |ctx| {
            let a = array_argument(ctx, 0, "array_1")?;
            let b = array_argument(ctx, 1, "array_2")?;
            crate::array_access::element_supertype(&[a, b])?;
            Ok(ChType::Float64)
        },
        |ctx| {
            let lists = (0..ctx.args.len()).map(|i| list_arg(ctx, i)).collect::<DfResult<Vec<_>>>()?;
            let elements: Vec<ChType> = (0..2).map(|i| crate::array::element_type(&ctx.ch(i))).collect();
            let target = crate::array_access::element_supertype(&elements)?;
            let keys = common_keys(ctx, &lists, &target)?;
            let (mut first, mut second): (HashSet<&[u8]>, HashSet<&[u8]>) = (HashSet::new(), HashSet::new());
            let mut out = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                first.clear();
                second.clear();
                first.extend(row_range(&lists[0], row).map(|i| keys[0].row(i).data()));
                second.extend(row_range(&lists[1], row).map(|i| keys[1].row(i).data()));
                if first.is_empty() && second.is_empty() {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "array aggregate functions cannot be performed on two empty arrays"));
                }
                let common = first.intersection(&second).count();
                out.push(common as f64 / (first.len() + second.len() - common) as f64);
            }
            Ok(Arc::new(Float64Array::from(out)))
        },
    )
    .build()
}

/// The row-format keys of both lists' values converted to `target` (an empty array's
/// `Nothing` values have no rows to convert).
fn common_keys(ctx: &ExecCtx, lists: &[ListArray], target: &ChType) -> DfResult<Vec<Rows>> {
    let values: Vec<ArrayRef> = lists
        .iter()
        .map(|l| if matches!(l.values().data_type(), DataType::Null) { Ok(Arc::clone(l.values())) } else { values_as(ctx, l, target) })
        .collect::<DfResult<_>>()?;
    let data_type = values.iter().map(|v| v.data_type()).find(|t| **t != DataType::Null).cloned().unwrap_or(DataType::Null);
    let converter = datafusion::arrow::row::RowConverter::new(vec![datafusion::arrow::row::SortField::new(data_type.clone())])?;
    values
        .iter()
        .map(|v| {
            let v = if v.data_type() == &data_type { Arc::clone(v) } else { datafusion::arrow::array::new_null_array(&data_type, v.len()) };
            Ok(converter.convert_columns(&[v])?)
        })
        .collect()
}

/// Row-format keys of the `from` and `to` values, or `None` when no two are equal.
fn levenshtein_keys(lists: &[ListArray]) -> DfResult<Option<(Rows, Rows)>> {
    // Each column as the Arrow type of ClickHouse's Field of its elements.
    let plain = |list: &ListArray| -> DfResult<ArrayRef> {
        let values = list.values();
        let values = match values.data_type() {
            DataType::Dictionary(_, inner) => datafusion::arrow::compute::cast(values, inner)?,
            _ => Arc::clone(values),
        };
        let field_type = match values.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::FixedSizeBinary(_) => Some(DataType::Binary),
            DataType::UInt8 | DataType::UInt16 | DataType::UInt32 => Some(DataType::UInt64),
            DataType::Int8 | DataType::Int16 | DataType::Int32 => Some(DataType::Int64),
            DataType::Float32 => Some(DataType::Float64),
            _ => None,
        };
        Ok(match field_type {
            Some(t) => datafusion::arrow::compute::cast(&values, &t)?,
            None => values,
        })
    };
    let (from, to) = (plain(&lists[0])?, plain(&lists[1])?);
    if from.data_type() != to.data_type() {
        return Ok(None);
    }
    Ok(Some((element_keys(&from)?, element_keys(&to)?)))
}

/// The costs of one row's edits: deleting `from[i]`, inserting `to[j]`, replacing one
/// by the other.
struct Costs<'a> {
    delete: &'a dyn Fn(usize) -> f64,
    insert: &'a dyn Fn(usize) -> f64,
    replace: &'a dyn Fn(usize, usize) -> f64,
}

/// The edit distance of one row at `costs`.
fn edit_distance(
    from: std::ops::Range<usize>,
    to: std::ops::Range<usize>,
    equal: &dyn Fn(usize, usize) -> bool,
    costs: &Costs,
    previous: &mut Vec<f64>,
    current: &mut Vec<f64>,
) -> f64 {
    previous.clear();
    previous.push(0.0);
    for j in to.clone() {
        let last = previous[previous.len() - 1];
        previous.push(last + (costs.insert)(j));
    }
    for i in from {
        current.clear();
        current.push(previous[0] + (costs.delete)(i));
        for (k, j) in to.clone().enumerate() {
            let replace = if equal(i, j) { previous[k] } else { previous[k] + (costs.replace)(i, j) };
            let best = replace.min(previous[k + 1] + (costs.delete)(i)).min(current[k] + (costs.insert)(j));
            current.push(best);
        }
        std::mem::swap(previous, current);
    }
    previous[previous.len() - 1]
}

fn levenshtein_distance() -> ScalarUDF {
    ScalarDef::new(
        "arrayLevenshteinDistance",
        Arity::exact(2),
        |ctx| {
            array_argument(ctx, 0, "from")?;
            array_argument(ctx, 1, "to")?;
            Ok(ChType::UInt32)
        },
        |ctx| {
            let lists = (0..ctx.args.len()).map(|i| list_arg(ctx, i)).collect::<DfResult<Vec<_>>>()?;
            let keys = levenshtein_keys(&lists)?;
            let equal = |i: usize, j: usize| keys.as_ref().is_some_and(|(a, b)| a.row(i) == b.row(j));
            let (mut previous, mut current) = (Vec::new(), Vec::new());
            let out: UInt32Array = (0..ctx.len)
                .map(|row| {
                    let costs = Costs { delete: &|_| 1.0, insert: &|_| 1.0, replace: &|_, _| 1.0 };
                    let d = edit_distance(row_range(&lists[0], row), row_range(&lists[1], row), &equal, &costs, &mut previous, &mut current);
                    d as u32
                })
                .collect();
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// `arrayLevenshteinDistanceWeighted` or, with `similarity`, `arraySimilarity`.
fn weighted_distance(name: &'static str, similarity: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(4),
        |ctx| {
            array_argument(ctx, 0, "from")?;
            array_argument(ctx, 1, "to")?;
            let mut weights = Vec::with_capacity(2);
            for (i, argument) in [(2, "from_weights"), (3, "to_weights")] {
                let element = array_argument(ctx, i, argument)?;
                if !is_plain_number(&element) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Argument {} of function {} must be a numeric array. Found {element} instead", i + 1, ctx.name),
                    ));
                }
                weights.push(element);
            }
            // Integer literals are still Int64 while the query is planned.
            if weights[0] != weights[1] && !(matches!(weights[0], ChType::Int64) || matches!(weights[1], ChType::Int64)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Arguments 3 and 4 of function {} must be arrays of the same types. Found {} and {} instead", ctx.name, weights[0], weights[1]),
                ));
            }
            Ok(ChType::Float64)
        },
        move |ctx| {
            let lists = (0..ctx.args.len()).map(|i| list_arg(ctx, i)).collect::<DfResult<Vec<_>>>()?;
            for (array, weights) in [(0, 2), (1, 3)] {
                if lists[array].offsets().lengths().ne(lists[weights].offsets().lengths()) {
                    let row = (0..ctx.len).find(|&r| lists[array].value_length(r) != lists[weights].value_length(r)).unwrap_or(0);
                    return Err(ch_error(
                        ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                        format!(
                            "Arguments {} ({}, size {}) and {} ({}, size {}) of function {} must be arrays of the same size",
                            array + 1,
                            ctx.ch(array),
                            lists[array].value_length(row),
                            weights + 1,
                            ctx.ch(weights),
                            lists[weights].value_length(row),
                            ctx.name
                        ),
                    ));
                }
            }
            let keys = levenshtein_keys(&lists)?;
            let equal = |i: usize, j: usize| keys.as_ref().is_some_and(|(a, b)| a.row(i) == b.row(j));
            let as_f64 = |list: &ListArray| -> DfResult<ArrayRef> { Ok(datafusion::arrow::compute::cast(list.values(), &DataType::Float64)?) };
            let (from_weights, to_weights) = (as_f64(&lists[2])?, as_f64(&lists[3])?);
            let (from_weights, to_weights) = (from_weights.as_primitive::<Float64Type>(), to_weights.as_primitive::<Float64Type>());
            let (mut previous, mut current) = (Vec::new(), Vec::new());
            let out: Float64Array = (0..ctx.len)
                .map(|row| {
                    let (from, to) = (row_range(&lists[0], row), row_range(&lists[1], row));
                    // Weights are addressed by element: shift from each array's to its weights'.
                    let (from_shift, to_shift) = (lists[2].value_offsets()[row] as isize - from.start as isize, lists[3].value_offsets()[row] as isize - to.start as isize);
                    let from_weight = |i: usize| from_weights.value((i as isize + from_shift) as usize);
                    let to_weight = |j: usize| to_weights.value((j as isize + to_shift) as usize);
                    let costs = Costs { delete: &from_weight, insert: &to_weight, replace: &|i, j| from_weight(i) + to_weight(j) };
                    let distance = edit_distance(from.clone(), to.clone(), &equal, &costs, &mut previous, &mut current);
                    if !similarity {
                        return distance;
                    }
                    let total: f64 = from.map(from_weight).sum::<f64>() + to.map(to_weight).sum::<f64>();
                    if total == 0.0 {
                        1.0
                    } else {
                        1.0 - distance / total
                    }
                })
                .collect();
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// An integer or a float, neither Decimal nor Nullable.
fn is_plain_number(t: &ChType) -> bool {
    let arrow = t.to_arrow();
    (crate::args::is_integer(&arrow) || crate::args::is_float(&arrow)) && !matches!(t, ChType::Decimal(..) | ChType::Nullable(_))
}

/// Which area `arrayROCAUC` / `arrayAUCPR` compute.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Curve {
    Roc,
    PrecisionRecall,
}

fn area_under_curve(name: &'static str, curve: Curve, aliases: &[&str]) -> ScalarUDF {
    let max_args = if curve == Curve::Roc { 3 } else { 2 };
    let mut def = ScalarDef::new(
        name,
        Arity::range(2, max_args),
        |ctx| {
            let scores = crate::array::element_type(&ctx.ch(0));
            if !matches!(ctx.ch(0), ChType::Array(_)) || !is_plain_number(&scores) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("First argument (arr_scores) for function {} is of type {scores}, should be a number", ctx.name),
                ));
            }
            let labels = crate::array::element_type(&ctx.ch(1));
            let label_ok = is_plain_number(&labels) || matches!(labels, ChType::Bool | ChType::Enum8(_) | ChType::Enum16(_));
            if !matches!(ctx.ch(1), ChType::Array(_)) || !label_ok {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Second argument (arr_labels) for function {} is of type {labels}, should be a number or Enum", ctx.name),
                ));
            }
            if ctx.arg_count() == 3 && (!matches!(ctx.ch(2), ChType::Bool) || ctx.scalar(2).is_none()) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Third argument (scale) for function {} must be of type const Bool", ctx.name)));
            }
            Ok(ChType::Float64)
        },
        move |ctx| {
            // The third argument is the scale, not an array.
            let lists = [list_arg(ctx, 0)?, list_arg(ctx, 1)?];
            if lists[0].offsets().lengths().ne(lists[1].offsets().lengths()) {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("First two arguments for function {} must be Arrays of equal sizes", ctx.name)));
            }
            let scale = match ctx.scalar(2) {
                Some(datafusion::common::ScalarValue::Boolean(b)) => b.unwrap_or(true),
                _ => true,
            };
            let scores = datafusion::arrow::compute::cast(lists[0].values(), &DataType::Float64)?;
            let labels = datafusion::arrow::compute::cast(lists[1].values(), &DataType::Float64)?;
            let (scores, labels) = (scores.as_primitive::<Float64Type>(), labels.as_primitive::<Float64Type>());
            let mut order: Vec<usize> = Vec::new();
            let out: Float64Array = (0..ctx.len)
                .map(|row| {
                    let (start, end) = (lists[0].value_offsets()[row] as usize, lists[0].value_offsets()[row + 1] as usize);
                    let label_start = lists[1].value_offsets()[row] as usize;
                    let positive = |i: usize| labels.value(label_start + (i - start)) > 0.0;
                    order.clear();
                    order.extend(start..end);
                    order.sort_by(|a, b| scores.value(*b).total_cmp(&scores.value(*a)));
                    area(&order, &|i| scores.value(i), &positive, curve, scale)
                })
                .collect();
            Ok(Arc::new(out))
        },
    );
    def.aliases = aliases.iter().map(|a| a.to_string()).collect();
    def.build()
}

/// The area under one row's curve, its elements `order`ed by descending score; equal
/// scores make one point of the curve.
fn area(order: &[usize], score: &dyn Fn(usize) -> f64, positive: &dyn Fn(usize) -> bool, curve: Curve, scale: bool) -> f64 {
    let total_positive = order.iter().filter(|i| positive(**i)).count() as f64;
    let (mut true_positive, mut false_positive) = (0.0, 0.0);
    let (mut previous_tp, mut previous_fp) = (0.0, 0.0);
    let mut area = 0.0;
    let mut k = 0;
    while k < order.len() {
        // Bit equality, so that a NaN score makes a point of its own.
        let group_score = score(order[k]).to_bits();
        while k < order.len() && score(order[k]).to_bits() == group_score {
            if positive(order[k]) {
                true_positive += 1.0;
            } else {
                false_positive += 1.0;
            }
            k += 1;
        }
        area += match curve {
            Curve::Roc => (false_positive - previous_fp) * (true_positive + previous_tp) / 2.0,
            Curve::PrecisionRecall if total_positive > 0.0 => {
                (true_positive - previous_tp) / total_positive * true_positive / (true_positive + false_positive)
            }
            Curve::PrecisionRecall => 0.0,
        };
        previous_tp = true_positive;
        previous_fp = false_positive;
    }
    if curve == Curve::Roc && scale {
        return area / (true_positive * false_positive);
    }
    area
}

/// The values of list argument `i` as Float64 (decimals by their scale).
fn float_values(ctx: &ExecCtx, i: usize) -> DfResult<(ListArray, Float64Array)> {
    let list = list_arg(ctx, i)?;
    let values = match list.values().data_type() {
        DataType::Null => Float64Array::from(vec![0.0; list.values().len()]),
        _ => datafusion::arrow::compute::cast(list.values(), &DataType::Float64)?.as_primitive::<Float64Type>().clone(),
    };
    Ok((list, values))
}

fn autocorrelation_operand(name: &str, t: &ChType) -> DfResult<()> {
    let ChType::Array(element) = t else {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First argument of function {name} must be an array")));
    };
    let numeric = matches!(**element, ChType::Nothing | ChType::Float32 | ChType::Float64 | ChType::Decimal(..))
        || (matches!(**element, ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Int128 | ChType::Int256)
            || matches!(**element, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::UInt128 | ChType::UInt256));
    if !numeric {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {name} only accepts arrays of integers, floating-point numbers, or decimals")));
    }
    Ok(())
}

/// `arrayAutocorrelation(arr[, max_lag])`: the correlation of the array with itself shifted
/// by 0, 1, ... `max_lag - 1` places (all lags by default), NaN for a constant array.
fn autocorrelation() -> ScalarUDF {
    ScalarDef::new(
        "arrayAutocorrelation",
        Arity::at_least(0),
        |ctx| {
            if ctx.arg_count() == 0 || ctx.arg_count() > 2 {
                return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Function {} requires 1 or 2 arguments", ctx.name)));
            }
            autocorrelation_operand(ctx.name, &ctx.ch(0))?;
            if ctx.arg_count() == 2 && !(crate::args::is_integer(ctx.dt(1))) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Second argument (max_lag) of function {} must be an integer (up to 64-bit), got {}", ctx.name, ctx.ch(1)),
                ));
            }
            Ok(ChType::Array(Box::new(ChType::Float64)))
        },
        |ctx| {
            // The argument's element type may only be final now (`[1, NULL]` is planned
            // before its literals have ClickHouse's types).
            autocorrelation_operand(ctx.name, &ctx.ch(0))?;
            let (list, values) = float_values(ctx, 0)?;
            let lags = if ctx.args.len() == 2 { Some(crate::bits::bits_of(ctx, 1)?) } else { None };
            let signed_lag = ctx.args.len() == 2 && crate::args::is_signed_int(ctx.dt(1));
            let mut out: Vec<f64> = Vec::new();
            let mut offsets = vec![0i32];
            for row in 0..ctx.len {
                let x = &values.values()[row_range(&list, row)];
                let n = x.len();
                let max_lag = match &lags {
                    Some(l) if signed_lag && l.value(row) < 0 => {
                        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("{}: max_lag must be non-negative", ctx.name)));
                    }
                    Some(l) => l.value(row) as u64 as usize,
                    None => n,
                };
                let limit = n.min(max_lag);
                if limit > 0 {
                    let mean = x.iter().sum::<f64>() / n as f64;
                    let denominator: f64 = x.iter().map(|v| (v - mean) * (v - mean)).sum();
                    let constant = x.iter().all(|v| *v == x[0]);
                    for lag in 0..limit {
                        out.push(if constant || denominator == 0.0 {
                            f64::NAN
                        } else {
                            (0..n - lag).map(|t| (x[t] - mean) * (x[t + lag] - mean)).sum::<f64>() / denominator
                        });
                    }
                }
                offsets.push(crate::regexp::list_offset(out.len())?);
            }
            crate::bits_more::lists_of(crate::bits_more::list_item(ctx)?, offsets, Arc::new(Float64Array::from(out)))
        },
    )
    .build()
}

/// `arrayNormalizedGini(predicted, labels)`: the Gini coefficients of the labels ordered
/// by the predictions and of the labels ordered by themselves, and their ratio, as
/// ClickHouse computes them (cumulative shares of the label total).
fn normalized_gini() -> ScalarUDF {
    ScalarDef::new(
        "arrayNormalizedGini",
        Arity::exact(2),
        |ctx| {
            let numeric = |t: &ChType| match t {
                ChType::Array(e) => matches!(**e, ChType::Float32 | ChType::Float64) || (!e.is_nullable() && crate::arithmetic::int_shape(e).is_some() && **e != ChType::Bool),
                _ => false,
            };
            if !numeric(&ctx.ch(0)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("First argument for function {} must be an Array of numeric type, got {}", ctx.name, ctx.ch(0)),
                ));
            }
            if !numeric(&ctx.ch(1)) {
                // ClickHouse's message lacks the comma.
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Second argument for function {} must be an Array of numeric typegot {}", ctx.name, ctx.ch(1)),
                ));
            }
            Ok(ChType::Tuple((1..=3).map(|i| (i.to_string(), ChType::Float64)).collect()))
        },
        |ctx| {
            let (predictions, predicted) = float_values(ctx, 0)?;
            let (labels, label_values) = float_values(ctx, 1)?;
            let mut columns: [Vec<f64>; 3] = [Vec::with_capacity(ctx.len), Vec::with_capacity(ctx.len), Vec::with_capacity(ctx.len)];
            for row in 0..ctx.len {
                let p = &predicted.values()[row_range(&predictions, row)];
                let mut l = label_values.values()[row_range(&labels, row)].to_vec();
                if p.len() != l.len() {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_COLUMN,
                        format!("Prediction and label arrays in function {} should have same size for each row", ctx.name),
                    ));
                }
                let n = l.len();
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by(|a, b| p[*a].partial_cmp(&p[*b]).unwrap_or(std::cmp::Ordering::Equal));
                let total: f64 = l.iter().fold(0.0, |s, v| s + v);
                let cumulative_sum = |values: &mut dyn Iterator<Item = f64>| -> f64 {
                    let mut running = 0.0;
                    values.fold(0.0, |acc, v| {
                        running += v / total;
                        acc + running
                    })
                };
                let by_prediction = cumulative_sum(&mut order.iter().map(|i| l[*i]));
                l.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
                let by_label = cumulative_sum(&mut l.iter().copied());
                let random = 0.5 * (n as f64 + 1.0);
                let predicted_gini = (random - by_prediction) / n as f64;
                let label_gini = (random - by_label) / n as f64;
                columns[0].push(predicted_gini);
                columns[1].push(label_gini);
                columns[2].push(predicted_gini / label_gini);
            }
            let DataType::Struct(fields) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns a tuple", ctx.name)));
            };
            let arrays: Vec<ArrayRef> = columns.into_iter().map(|c| Arc::new(Float64Array::from(c)) as ArrayRef).collect();
            Ok(Arc::new(datafusion::arrow::array::StructArray::try_new(fields.clone(), arrays, None)?))
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        autocorrelation(),
        normalized_gini(),
        jaccard_index(),
        levenshtein_distance(),
        weighted_distance("arrayLevenshteinDistanceWeighted", false),
        weighted_distance("arraySimilarity", true),
        area_under_curve("arrayROCAUC", Curve::Roc, &["arrayAUC"]),
        area_under_curve("arrayAUCPR", Curve::PrecisionRecall, &["arrayPRAUC"]),
    ]
}
