//! Arithmetic on tuples: `tuplePlus`, `tupleMinus`, `tupleMultiply`, `tupleDivide`,
//! `tupleModulo`, `tupleIntDiv`, `tupleIntDivOrZero` (element by element of two tuples),
//! their `ByNumber` forms (each element with one number), `tupleNegate`, `dotProduct` of
//! two tuples, and `tupleNames`, `tupleConcat`; the operators `+ - * / %` and unary `-`
//! on tuples call them ([`tuple_operator`]).
//!
//! As ClickHouse, each element goes through the scalar function of the same operation
//! (`plus`, `multiply`, ...), so element types and errors are exactly that function's;
//! the result is an unnamed tuple of the element results. The element kernels run on
//! whole element columns: a tuple column is a struct of columns.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StructArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::common::ScalarValue;
use datafusion::common::config::ConfigOptions;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{call_return_field, call_scalar, ch_type_of_field, registered_scalar, ExecCtx, RetCtx, ScalarDef};
use crate::text::string_list;

/// The element fields of a Tuple argument.
fn tuple_fields(field: &Field) -> Option<Fields> {
    match field.data_type() {
        DataType::Struct(fields) => Some(fields.clone()),
        _ => None,
    }
}

fn not_a_tuple(name: &str, index: usize, t: &ChType) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument {index} of function {name} should be tuple, got {t}"))
}

/// Runs one element operation over whole columns.
fn element_call(udf: &ScalarUDF, args: Vec<ColumnarValue>, fields: Vec<FieldRef>, rows: usize, config: &ConfigOptions) -> DfResult<ArrayRef> {
    Ok(call_scalar(udf, args, fields, rows, config)?.0)
}

/// The element columns of Tuple argument `i`, with their fields.
fn element_columns(ctx: &ExecCtx, i: usize) -> DfResult<Vec<(ArrayRef, FieldRef)>> {
    let array = ctx.array(i)?;
    let tuple = array.as_struct_opt().ok_or_else(|| not_a_tuple(ctx.name, i, &ctx.ch(i)))?;
    Ok(tuple.columns().iter().cloned().zip(tuple.fields().iter().cloned()).collect())
}

fn tuple_of(fields: &[FieldRef]) -> ChType {
    ChType::Tuple(fields.iter().enumerate().map(|(i, f)| ((i + 1).to_string(), ch_type_of_field(f))).collect())
}

/// The result tuple from element columns, in the fields of the return type.
fn struct_result(ctx: &ExecCtx, columns: Vec<ArrayRef>) -> DfResult<ArrayRef> {
    let DataType::Struct(fields) = ctx.ret_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return a tuple", ctx.name)));
    };
    let columns = columns
        .into_iter()
        .zip(fields.iter())
        .map(|(c, f)| {
            let c = if c.data_type() == f.data_type() { c } else { datafusion::arrow::compute::cast(&c, f.data_type())? };
            // NULLs of a Nullable number argument (`tupleDivideByNumber(t, n)`) reach the
            // elements, but they null the whole tuple row, which the adapter marks.
            if !f.is_nullable() && c.null_count() > 0 {
                return crate::func::with_nulls(&c, None);
            }
            Ok(c)
        })
        .collect::<DfResult<Vec<_>>>()?;
    Ok(Arc::new(StructArray::try_new(fields.clone(), columns, None)?))
}

/// How a tuple function takes its arguments.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Two tuples of the same size, element by element.
    TwoTuples,
    /// A tuple and a number applied to every element.
    ByNumber,
    /// One tuple.
    OneTuple,
}

fn element_fields(ctx: &RetCtx, shape: Shape) -> DfResult<Vec<Vec<FieldRef>>> {
    let first = tuple_fields(ctx.field(0)).ok_or_else(|| not_a_tuple(ctx.name, 0, &ctx.ch(0)))?;
    match shape {
        Shape::OneTuple => Ok(first.iter().map(|f| vec![Arc::clone(f)]).collect()),
        Shape::ByNumber => Ok(first.iter().map(|f| vec![Arc::clone(f), Arc::clone(&ctx.fields[1])]).collect()),
        Shape::TwoTuples => {
            let second = tuple_fields(ctx.field(1)).ok_or_else(|| not_a_tuple(ctx.name, 1, &ctx.ch(1)))?;
            if first.len() != second.len() {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Expected tuples of the same size as arguments 0 and 1 of function {}, got {} and {}", ctx.name, ctx.ch(0), ctx.ch(1)),
                ));
            }
            Ok(first.iter().zip(second.iter()).map(|(a, b)| vec![Arc::clone(a), Arc::clone(b)]).collect())
        }
    }
}

fn elementwise(name: &'static str, operation: &'static str, shape: Shape) -> ScalarUDF {
    let arity = if shape == Shape::OneTuple { Arity::exact(1) } else { Arity::exact(2) };
    ScalarDef::new(
        name,
        arity,
        move |ctx| {
            let udf = registered_scalar(operation)?;
            let number = if shape == Shape::ByNumber { ctx.scalar(1) } else { None };
            let mut results = Vec::new();
            for fields in element_fields(ctx, shape)? {
                let scalars = [None, number];
                results.push(call_return_field(&udf, &fields, &scalars[..fields.len()])?);
            }
            Ok(tuple_of(&results))
        },
        move |ctx| {
            let udf = registered_scalar(operation)?;
            let first = element_columns(ctx, 0)?;
            let second = if shape == Shape::TwoTuples { Some(element_columns(ctx, 1)?) } else { None };
            let mut columns = Vec::with_capacity(first.len());
            for (k, (column, field)) in first.into_iter().enumerate() {
                let (args, fields) = match (&second, shape) {
                    (Some(second), _) => {
                        let (other, other_field) = second[k].clone();
                        (vec![ColumnarValue::Array(column), ColumnarValue::Array(other)], vec![field, other_field])
                    }
                    (None, Shape::ByNumber) => (vec![ColumnarValue::Array(column), ctx.args[1].clone()], vec![field, Arc::clone(&ctx.fields[1])]),
                    _ => (vec![ColumnarValue::Array(column)], vec![field]),
                };
                columns.push(element_call(&udf, args, fields, ctx.len, ctx.config)?);
            }
            struct_result(ctx, columns)
        },
    )
    .build()
}

/// `dotProduct`: of two tuples, the sum of the element products (`multiply`, then
/// `plus` left to right, so the type grows as ClickHouse's does); of two arrays,
/// `arrayDotProduct`.
fn dot_product() -> ScalarUDF {
    ScalarDef::new(
        "dotProduct",
        Arity::exact(2),
        |ctx| {
            if !is_tuple_call(&ctx.fields) {
                let array_udf = registered_scalar("arrayDotProduct")?;
                let scalars = [ctx.scalar(0), ctx.scalar(1)];
                return Ok(ch_type_of_field(call_return_field(&array_udf, &ctx.fields, &scalars)?.as_ref()));
            }
            let (first, second) = (tuple_steps(&ctx.fields, None, 0, 1)?, tuple_steps(&ctx.fields, None, 1, 1)?);
            Ok(ch_type_of_field(dot_of(first, second, 1, None)?.field.as_ref()))
        },
        |ctx| {
            if !is_tuple_call(ctx.fields) {
                let array_udf = registered_scalar("arrayDotProduct")?;
                return element_call(&array_udf, ctx.args.to_vec(), ctx.fields.to_vec(), ctx.len, ctx.config);
            }
            let first = tuple_steps(ctx.fields, Some(ctx.args), 0, ctx.len)?;
            let second = tuple_steps(ctx.fields, Some(ctx.args), 1, ctx.len)?;
            result_of(ctx, dot_of(first, second, ctx.len, Some(ctx.config))?)
        },
    )
    .build()
}

/// `tupleNames(t)`: the element names (`'1'`, `'2'`, ... for an unnamed tuple).
fn tuple_names() -> ScalarUDF {
    ScalarDef::new(
        "tupleNames",
        Arity::exact(1),
        |ctx| match ctx.ch(0).strip_nullable() {
            ChType::Tuple(_) => Ok(ChType::Array(Box::new(ChType::String))),
            _ => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First argument for function {} must be a Tuple or Nullable(Tuple)", ctx.name))),
        },
        |ctx| {
            let ChType::Tuple(elements) = ctx.ch(0).strip_nullable().clone() else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First argument for function {} must be a Tuple", ctx.name)));
            };
            let names: Vec<&str> = elements.iter().map(|(name, _)| name.as_str()).collect();
            let repeated: Vec<&str> = (0..ctx.len).flat_map(|_| names.iter().copied()).collect();
            let values: ArrayRef = Arc::new(datafusion::arrow::array::StringArray::from_iter_values(repeated));
            let offsets: Vec<i32> = (0..=ctx.len).map(|row| (row * names.len()) as i32).collect();
            string_list(values, offsets)
        },
    )
    .build()
}

/// `tupleConcat(t1, t2, ...)`: the elements of all tuples in one unnamed tuple.
fn tuple_concat() -> ScalarUDF {
    ScalarDef::new(
        "tupleConcat",
        Arity::at_least(1),
        |ctx| {
            let mut elements = Vec::new();
            for i in 0..ctx.arg_count() {
                match ctx.ch(i) {
                    ChType::Tuple(items) => elements.extend(items),
                    other => {
                        let ordinal = match i {
                            0 => "1st".to_string(),
                            1 => "2nd".to_string(),
                            2 => "3rd".to_string(),
                            n => format!("{}th", n + 1),
                        };
                        return Err(ch_error(
                            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                            format!("A value of illegal type was provided as {ordinal} argument 'tupleN' to function '{}'. Expected: Tuple, got: {other}", ctx.name),
                        ));
                    }
                }
            }
            // The result is unnamed, as ClickHouse's, whatever the arguments' names.
            Ok(ChType::Tuple(elements.into_iter().enumerate().map(|(i, (_, t))| ((i + 1).to_string(), t)).collect()))
        },
        |ctx| {
            let mut columns = Vec::new();
            for i in 0..ctx.args.len() {
                columns.extend(element_columns(ctx, i)?.into_iter().map(|(c, _)| c));
            }
            struct_result(ctx, columns)
        },
    )
    .build()
}

/// `tupleHammingDistance(a, b)`: how many elements differ, as ClickHouse composes it:
/// `notEquals` per element summed with `plus`, so the type grows with the size
/// (`UInt8`, `UInt16`, `UInt32`, then `UInt64`).
fn tuple_hamming_distance() -> ScalarUDF {
    fn steps(fields: &[FieldRef], args: Option<&[ColumnarValue]>, rows: usize, config: Option<&ConfigOptions>) -> DfResult<Step> {
        let name = "tupleHammingDistance";
        for (i, field) in fields.iter().enumerate() {
            if tuple_fields(field).is_none() {
                return Err(not_a_tuple(name, i, &ch_type_of_field(field)));
            }
        }
        let (first, second) = (tuple_steps(fields, args, 0, rows)?, tuple_steps(fields, args, 1, rows)?);
        if first.len() != second.len() {
            return Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Expected tuples of the same size as arguments of function {name}. Got {} and {}", ch_type_of_field(&fields[0]), ch_type_of_field(&fields[1])),
            ));
        }
        if first.is_empty() {
            let zero = ScalarValue::UInt8(Some(0));
            return Ok(Step { value: Some(ColumnarValue::Scalar(zero)), field: Arc::new(Field::new("", DataType::UInt8, false)) });
        }
        let differences = first.into_iter().zip(second).map(|(a, b)| apply("notEquals", vec![a, b], rows, config)).collect::<DfResult<Vec<_>>>()?;
        fold(differences, "plus", rows, config)
    }
    ScalarDef::new(
        "tupleHammingDistance",
        Arity::exact(2),
        |ctx| Ok(ch_type_of_field(steps(&ctx.fields, None, 1, None)?.field.as_ref())),
        |ctx| {
            result_of(ctx, steps(ctx.fields, Some(ctx.args), ctx.len, Some(ctx.config))?)
        },
    )
    .build()
}

/// `tupleToNameValuePairs(t)`: `[(name, value), ...]` per row; the elements must all have
/// one type.
fn tuple_to_name_value_pairs() -> ScalarUDF {
    ScalarDef::new(
        "tupleToNameValuePairs",
        Arity::exact(1),
        |ctx| {
            let ChType::Tuple(elements) = ctx.ch(0).strip_nullable().clone() else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First argument for function {} must be a Tuple or a Nullable(Tuple)", ctx.name)));
            };
            let Some((_, value)) = elements.first() else {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The argument tuple for function {} must not be empty", ctx.name)));
            };
            if elements.iter().any(|(_, t)| t != value) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("The argument tuple for function {} must contain just one type", ctx.name)));
            }
            let pair = ChType::Tuple(vec![("1".to_string(), ChType::String), ("2".to_string(), value.clone())]);
            Ok(ChType::Array(Box::new(pair)))
        },
        |ctx| {
            let ChType::Tuple(elements) = ctx.ch(0).strip_nullable().clone() else {
                return Err(not_a_tuple(ctx.name, 0, &ctx.ch(0)));
            };
            let DataType::List(item) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return an array", ctx.name)));
            };
            let DataType::Struct(pair_fields) = item.data_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} must return an array of tuples", ctx.name)));
            };
            let columns: Vec<ArrayRef> = element_columns(ctx, 0)?.into_iter().map(|(c, _)| c).collect();
            let size = columns.len();
            let names: Vec<&str> = elements.iter().map(|(name, _)| name.as_str()).collect();
            let repeated: Vec<&str> = (0..ctx.len).flat_map(|_| names.iter().copied()).collect();
            let all_names: ArrayRef = Arc::new(datafusion::arrow::array::StringArray::from_iter_values(repeated));
            let sources: Vec<&dyn Array> = columns.iter().map(|c| c.as_ref()).collect();
            let indices: Vec<(usize, usize)> = (0..ctx.len).flat_map(|row| (0..size).map(move |k| (k, row))).collect();
            let values = datafusion::arrow::compute::interleave(&sources, &indices)?;
            let names = datafusion::arrow::compute::cast(&all_names, pair_fields[0].data_type())?;
            let values = if values.data_type() == pair_fields[1].data_type() { values } else { datafusion::arrow::compute::cast(&values, pair_fields[1].data_type())? };
            let pairs = StructArray::try_new(pair_fields.clone(), vec![names, values], None)?;
            let offsets = datafusion::arrow::buffer::OffsetBuffer::from_lengths(std::iter::repeat_n(size, ctx.len));
            Ok(Arc::new(datafusion::arrow::array::ListArray::try_new(Arc::clone(item), offsets, Arc::new(pairs), None)?))
        },
    )
    .build()
}

/// The tuple function an arithmetic operator on tuples means, as in ClickHouse:
/// `t1 + t2`, `t1 - t2`, `t1 * t2` (the dot product), `t * n` and `n * t`, `t / n`,
/// `t % n`, `-t`; and whether its arguments are swapped (`n * t`). `None` when no
/// argument is a tuple or the operator takes no tuples that way.
pub(crate) fn tuple_operator(operator: &str, types: &[&DataType]) -> Option<(&'static str, bool)> {
    let is_tuple = |t: &DataType| matches!(t, DataType::Struct(_));
    match (operator, types) {
        ("negate", [t]) if is_tuple(t) => Some(("tupleNegate", false)),
        (_, [a, b]) if is_tuple(a) && is_tuple(b) => match operator {
            "plus" => Some(("tuplePlus", false)),
            "minus" => Some(("tupleMinus", false)),
            "multiply" => Some(("dotProduct", false)),
            _ => None,
        },
        (_, [a, _]) if is_tuple(a) => match operator {
            "multiply" => Some(("tupleMultiplyByNumber", false)),
            "divide" => Some(("tupleDivideByNumber", false)),
            "modulo" => Some(("tupleModuloByNumber", false)),
            _ => None,
        },
        ("multiply", [_, b]) if is_tuple(b) => Some(("tupleMultiplyByNumber", true)),
        _ => None,
    }
}

/// The result type of an arithmetic operator on tuples (see [`tuple_operator`]).
pub(crate) fn tuple_operator_type(ctx: &RetCtx, target: &str, swap: bool) -> DfResult<ChType> {
    let mut fields = ctx.fields.clone();
    let mut scalars: Vec<Option<&ScalarValue>> = (0..fields.len()).map(|i| ctx.scalar(i)).collect();
    if swap {
        fields.reverse();
        scalars.reverse();
    }
    Ok(ch_type_of_field(call_return_field(registered_scalar(target)?.as_ref(), &fields, &scalars)?.as_ref()))
}

/// An arithmetic operator on tuples, run as its tuple function.
pub(crate) fn tuple_operator_exec(ctx: &ExecCtx, target: &str, swap: bool) -> DfResult<ArrayRef> {
    let mut args = ctx.args.to_vec();
    let mut fields = ctx.fields.to_vec();
    if swap {
        args.reverse();
        fields.reverse();
    }
    element_call(registered_scalar(target)?.as_ref(), args, fields, ctx.len, ctx.config)
}

/// A norm of a tuple, or of the difference of two tuples (`L1Distance` is the `L1Norm`
/// of `tupleMinus`), composed of the scalar functions as ClickHouse composes it, so
/// integer elements keep integer sums (`L1Norm((1, -2))` is UInt16).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum TupleNorm {
    L1,
    L2,
    L2Squared,
    Linf,
    /// `LpNorm(t, p)`: `pow` of the sum of `pow(abs(x), p)` to `1 / p`; the call's last
    /// argument is the power, already read into the value.
    Lp(f64),
    Cosine,
}

impl TupleNorm {
    /// How many leading arguments are tuples (the power of `Lp` comes after them).
    fn tuple_count(self, arguments: usize) -> usize {
        match self {
            TupleNorm::Lp(_) => arguments.saturating_sub(1),
            _ => arguments,
        }
    }
}

/// A value of a norm's computation: a column (or constant) when running, only its field
/// when computing the result type.
struct Step {
    value: Option<ColumnarValue>,
    field: FieldRef,
}

/// Runs `name` on steps: the result field only, unless every input has a value.
fn apply(name: &str, inputs: Vec<Step>, rows: usize, config: Option<&ConfigOptions>) -> DfResult<Step> {
    let udf = registered_scalar(name)?;
    let fields: Vec<FieldRef> = inputs.iter().map(|s| Arc::clone(&s.field)).collect();
    match (inputs.iter().map(|s| s.value.clone()).collect::<Option<Vec<_>>>(), config) {
        (Some(args), Some(config)) => {
            let (array, field) = call_scalar(&udf, args, fields, rows, config)?;
            Ok(Step { value: Some(ColumnarValue::Array(array)), field })
        }
        _ => {
            let scalars: Vec<Option<&ScalarValue>> = inputs
                .iter()
                .map(|s| match &s.value {
                    Some(ColumnarValue::Scalar(v)) => Some(v),
                    _ => None,
                })
                .collect();
            Ok(Step { value: None, field: call_return_field(&udf, &fields, &scalars)? })
        }
    }
}

fn float_constant(value: f64) -> Step {
    Step { value: Some(ColumnarValue::Scalar(ScalarValue::Float64(Some(value)))), field: Arc::new(Field::new("", DataType::Float64, false)) }
}

/// Folds `combine` over the elements, left to right.
fn fold(elements: Vec<Step>, combine: &str, rows: usize, config: Option<&ConfigOptions>) -> DfResult<Step> {
    let mut total: Option<Step> = None;
    for element in elements {
        total = Some(match total {
            None => element,
            Some(total) => apply(combine, vec![total, element], rows, config)?,
        });
    }
    total.ok_or_else(|| ch_error(ErrorCode::BAD_ARGUMENTS, "Norms need non-empty tuples"))
}

/// The larger of two Float64 steps, row by row.
fn larger(a: Step, b: Step, rows: usize) -> DfResult<Step> {
    let (Some(left), Some(right)) = (&a.value, &b.value) else { return Ok(a) };
    let (left, right) = (left.to_array(rows)?, right.to_array(rows)?);
    let right_is_larger = datafusion::arrow::compute::kernels::cmp::gt(&right, &left)?;
    let values = datafusion::arrow::compute::kernels::zip::zip(&right_is_larger, &right, &left)?;
    Ok(Step { value: Some(ColumnarValue::Array(values)), field: a.field })
}

fn norm_of(elements: Vec<Step>, norm: TupleNorm, rows: usize, config: Option<&ConfigOptions>) -> DfResult<Step> {
    match norm {
        TupleNorm::L1 => {
            let absolute = elements.into_iter().map(|e| apply("abs", vec![e], rows, config)).collect::<DfResult<Vec<_>>>()?;
            fold(absolute, "plus", rows, config)
        }
        TupleNorm::L2Squared => {
            let squares = elements
                .into_iter()
                .map(|e| apply("multiply", vec![Step { value: e.value.clone(), field: Arc::clone(&e.field) }, e], rows, config))
                .collect::<DfResult<Vec<_>>>()?;
            fold(squares, "plus", rows, config)
        }
        TupleNorm::L2 => apply("sqrt", vec![norm_of(elements, TupleNorm::L2Squared, rows, config)?], rows, config),
        TupleNorm::Linf => {
            let absolute = elements
                .into_iter()
                .map(|e| apply("toFloat64", vec![apply("abs", vec![e], rows, config)?], rows, config))
                .collect::<DfResult<Vec<_>>>()?;
            let mut largest: Option<Step> = None;
            for value in absolute {
                largest = Some(match largest {
                    None => value,
                    Some(largest) => larger(largest, value, rows)?,
                });
            }
            largest.ok_or_else(|| ch_error(ErrorCode::BAD_ARGUMENTS, "Norms need non-empty tuples"))
        }
        TupleNorm::Lp(power) => {
            let powers = elements
                .into_iter()
                .map(|e| apply("pow", vec![apply("abs", vec![e], rows, config)?, float_constant(power)], rows, config))
                .collect::<DfResult<Vec<_>>>()?;
            apply("pow", vec![fold(powers, "plus", rows, config)?, float_constant(1.0 / power)], rows, config)
        }
        TupleNorm::Cosine => Err(ch_error(ErrorCode::LOGICAL_ERROR, "cosineDistance takes two tuples")),
    }
}

/// The dot product of two tuples' elements.
fn dot_of(first: Vec<Step>, second: Vec<Step>, rows: usize, config: Option<&ConfigOptions>) -> DfResult<Step> {
    if first.len() != second.len() {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "Expected tuples of the same size"));
    }
    let products = first.into_iter().zip(second).map(|(a, b)| apply("multiply", vec![a, b], rows, config)).collect::<DfResult<Vec<_>>>()?;
    fold(products, "plus", rows, config)
}

/// The element steps of Tuple argument `i`.
fn tuple_steps(fields: &[FieldRef], args: Option<&[ColumnarValue]>, i: usize, rows: usize) -> DfResult<Vec<Step>> {
    let element_fields = tuple_fields(&fields[i]).ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument {} must be a tuple", i + 1)))?;
    let columns = match args {
        Some(args) => {
            let array = args[i].to_array(rows)?;
            let tuple = array.as_struct_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument {} must be a tuple", i + 1)))?;
            tuple.columns().iter().map(|c| Some(ColumnarValue::Array(Arc::clone(c)))).collect()
        }
        None => vec![None; element_fields.len()],
    };
    Ok(columns.into_iter().zip(element_fields.iter()).map(|(value, field)| Step { value, field: Arc::clone(field) }).collect())
}

/// The norm (one argument) or distance (two) of tuples: the result step.
fn tuple_norm_step(fields: &[FieldRef], args: Option<&[ColumnarValue]>, norm: TupleNorm, rows: usize, config: Option<&ConfigOptions>) -> DfResult<Step> {
    let first = tuple_steps(fields, args, 0, rows)?;
    if norm.tuple_count(fields.len()) == 1 {
        return norm_of(first, norm, rows, config);
    }
    let second = tuple_steps(fields, args, 1, rows)?;
    if first.len() != second.len() {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Expected tuples of the same size as arguments 0 and 1 of function tupleMinus, got {} and {}", tuple_of(&fields[0..1]), tuple_of(&fields[1..2])),
        ));
    }
    if norm == TupleNorm::Cosine {
        // 1 - dot(a, b) / (L2Norm(a) * L2Norm(b))
        let share = |steps: &[Step]| steps.iter().map(|s| Step { value: s.value.clone(), field: Arc::clone(&s.field) }).collect::<Vec<_>>();
        let dot = dot_of(share(&first), share(&second), rows, config)?;
        let lengths = apply("multiply", vec![norm_of(first, TupleNorm::L2, rows, config)?, norm_of(second, TupleNorm::L2, rows, config)?], rows, config)?;
        let ratio = apply("divide", vec![dot, lengths], rows, config)?;
        return apply("minus", vec![float_constant(1.0), ratio], rows, config);
    }
    let differences = first.into_iter().zip(second).map(|(a, b)| apply("minus", vec![a, b], rows, config)).collect::<DfResult<Vec<_>>>()?;
    norm_of(differences, norm, rows, config)
}

/// Whether a norm or distance call takes tuples.
pub(crate) fn is_tuple_call(fields: &[FieldRef]) -> bool {
    fields.first().is_some_and(|f| matches!(f.data_type(), DataType::Struct(_)))
}

/// The result type of a norm or distance of tuples.
pub(crate) fn tuple_norm_type(ctx: &RetCtx, norm: TupleNorm) -> DfResult<ChType> {
    Ok(ch_type_of_field(tuple_norm_step(&ctx.fields, None, norm, 1, None)?.field.as_ref()))
}

/// A norm or distance of tuples, computed.
pub(crate) fn tuple_norm_exec(ctx: &ExecCtx, norm: TupleNorm) -> DfResult<ArrayRef> {
    result_of(ctx, tuple_norm_step(ctx.fields, Some(ctx.args), norm, ctx.len, Some(ctx.config))?)
}

/// The column of a computed step, in the function's return type.
fn result_of(ctx: &ExecCtx, step: Step) -> DfResult<ArrayRef> {
    let array = step_column(ctx, step)?;
    Ok(if array.data_type() == ctx.ret_type() { array } else { datafusion::arrow::compute::cast(&array, ctx.ret_type())? })
}

fn step_column(ctx: &ExecCtx, step: Step) -> DfResult<ArrayRef> {
    let value = step.value.ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, format!("{} computed no value", ctx.name)))?;
    value.to_array(ctx.len)
}

/// `L1Normalize(t)`, `LpNormalize(t, p)`, ...: `tupleDivideByNumber(t, norm)`, as ClickHouse
/// composes it, so the elements are `divide`'s Float64 whatever their type.
fn tuple_normalized(fields: &[FieldRef], args: Option<&[ColumnarValue]>, norm: TupleNorm, rows: usize, config: Option<&ConfigOptions>) -> DfResult<Vec<Step>> {
    let elements = tuple_steps(fields, args, 0, rows)?;
    let share = |steps: &[Step]| steps.iter().map(|s| Step { value: s.value.clone(), field: Arc::clone(&s.field) }).collect::<Vec<_>>();
    let length = norm_of(share(&elements), norm, rows, config)?;
    elements
        .into_iter()
        .map(|e| apply("divide", vec![e, Step { value: length.value.clone(), field: Arc::clone(&length.field) }], rows, config))
        .collect()
}

/// The result type of a normalized tuple.
pub(crate) fn tuple_normalize_type(ctx: &RetCtx, norm: TupleNorm) -> DfResult<ChType> {
    let steps = tuple_normalized(&ctx.fields, None, norm, 1, None)?;
    Ok(tuple_of(&steps.into_iter().map(|s| s.field).collect::<Vec<_>>()))
}

/// A normalized tuple, computed.
pub(crate) fn tuple_normalize_exec(ctx: &ExecCtx, norm: TupleNorm) -> DfResult<ArrayRef> {
    let steps = tuple_normalized(ctx.fields, Some(ctx.args), norm, ctx.len, Some(ctx.config))?;
    let columns = steps.into_iter().map(|s| step_column(ctx, s)).collect::<DfResult<Vec<_>>>()?;
    struct_result(ctx, columns)
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        elementwise("tuplePlus", "plus", Shape::TwoTuples),
        elementwise("tupleMinus", "minus", Shape::TwoTuples),
        elementwise("tupleMultiply", "multiply", Shape::TwoTuples),
        elementwise("tupleDivide", "divide", Shape::TwoTuples),
        elementwise("tupleModulo", "modulo", Shape::TwoTuples),
        elementwise("tupleIntDiv", "intDiv", Shape::TwoTuples),
        elementwise("tupleIntDivOrZero", "intDivOrZero", Shape::TwoTuples),
        elementwise("tupleMultiplyByNumber", "multiply", Shape::ByNumber),
        elementwise("tupleDivideByNumber", "divide", Shape::ByNumber),
        elementwise("tupleModuloByNumber", "modulo", Shape::ByNumber),
        elementwise("tupleIntDivByNumber", "intDiv", Shape::ByNumber),
        elementwise("tupleIntDivOrZeroByNumber", "intDivOrZero", Shape::ByNumber),
        elementwise("tuplePositiveModuloByNumber", "positiveModulo", Shape::ByNumber),
        elementwise("tupleNegate", "negate", Shape::OneTuple),
        dot_product(),
        tuple_names(),
        tuple_concat(),
        tuple_hamming_distance(),
        tuple_to_name_value_pairs(),
    ]
}
