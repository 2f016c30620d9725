//! Functions that map a value through constants given in the call: `transform` (3 and 4
//! arguments), `clamp` and `widthBucket`, with ClickHouse's result types and errors.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt32Array, UInt64Array};
use datafusion::arrow::compute::kernels::cmp::{gt, lt};
use datafusion::arrow::compute::kernels::zip::zip;
use datafusion::arrow::compute::{cast, is_not_null, take};
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_float, is_integer, is_string, must_be_constant, Arity, DfResult};
use crate::func::{RetCtx, ScalarDef};
use crate::supertype::{least_supertype, least_supertype_of_args};


/// The values of a constant array argument.
fn constant_array(scalar: Option<&ScalarValue>) -> Option<ArrayRef> {
    match scalar {
        Some(ScalarValue::List(list)) if list.len() == 1 && !list.is_null(0) => Some(list.value(0)),
        _ => None,
    }
}

/// Values as hashable keys, so that `UInt64` rows find `UInt8` array elements: text as
/// its bytes, floats by their bits, other numbers and dates as 128-bit integers.
#[derive(Hash, PartialEq, Eq)]
enum Key {
    Text(Vec<u8>),
    Float(u64),
    Integer(i128),
}

fn keys(values: &ArrayRef, as_float: bool) -> DfResult<Vec<Option<Key>>> {
    let dt = values.data_type();
    if is_string(dt) || matches!(dt, DataType::FixedSizeBinary(_)) {
        let texts = crate::string::text_bytes(values);
        return Ok((0..values.len()).map(|row| values.is_valid(row).then(|| Key::Text(texts.value(row).to_vec()))).collect());
    }
    if as_float {
        let floats = cast(values, &DataType::Float64)?;
        // 0.0 and -0.0 are the same key, as they compare equal.
        return Ok(floats.as_primitive::<Float64Type>().iter().map(|v| v.map(|v| Key::Float((v + 0.0).to_bits()))).collect());
    }
    let integers = match dt {
        DataType::Date32 | DataType::Timestamp(..) => cast(&cast(values, &DataType::Int64)?, &DataType::Decimal128(38, 0))?,
        _ => cast(values, &DataType::Decimal128(38, 0))?,
    };
    Ok(integers.as_primitive::<datafusion::arrow::datatypes::Decimal128Type>().iter().map(|v| v.map(Key::Integer)).collect())
}

/// The element type a constant array of integer literals will have once typed.
fn narrowed_elements(scalar: Option<&ScalarValue>) -> Option<ChType> {
    let values = constant_array(scalar)?;
    let mut types = Vec::with_capacity(values.len());
    for row in 0..values.len() {
        let value = ScalarValue::try_from_array(&values, row).ok()?;
        let narrowed = crate::literals::narrow(&value).unwrap_or(value);
        types.push(ChType::from_arrow(&narrowed.data_type(), narrowed.is_null()));
    }
    least_supertype(&types).ok()
}

fn array_element(ctx: &RetCtx, i: usize) -> DfResult<ChType> {
    match ctx.ch(i) {
        ChType::Array(inner) => Ok(*inner),
        other => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument {} of function transform must be an array, got {other}", i + 1))),
    }
}

const TRANSFORM_SIGNATURE: &str =
    "Function transform has signature: transform(T, Array(T), Array(U), U) -> U; or transform(T, Array(T), Array(T)) -> T; where T and U are types";

/// `transform(x, from, to[, default])`: the element of `to` at the first position of `x`
/// in `from`; else `default` (4 arguments, the result being the supertype of `to`'s
/// elements and `default`) or `x` itself (3 arguments, the result keeping `x`'s type).
fn transform() -> ScalarUDF {
    ScalarDef::new(
        "transform",
        Arity::range(3, 4),
        |ctx| {
            array_element(ctx, 1)?;
            let to = array_element(ctx, 2)?;
            if ctx.arg_count() == 3 {
                if ctx.ch(0).is_nullable() {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, TRANSFORM_SIGNATURE));
                }
                return Ok(ctx.ch(0));
            }
            if let Ok(t) = least_supertype(&[to.clone(), ctx.ch(3)]) {
                return Ok(t);
            }
            // Integer literals are still Int64 while planning (they get ClickHouse's types
            // right after): retry with the types the array's and the default's literals will have.
            let literal_array_untyped = ctx.scalar(2).is_none() && to == ChType::Int64;
            let to = narrowed_elements(ctx.scalar(2)).unwrap_or(to);
            let default = match ctx.scalar(3).and_then(crate::literals::narrow) {
                Some(narrowed) => ChType::from_arrow(&narrowed.data_type(), false),
                None => ctx.ch(3),
            };
            if let Ok(t) = least_supertype(&[to.clone(), default.clone()]) {
                return Ok(t);
            }
            // An array of integer literals not folded yet (`[10, 20]` is still a call of
            // Int64s): its elements get their own types before the plan is final, so the
            // default's type stands in until then.
            if literal_array_untyped && is_integer(&default.to_arrow()) {
                return Ok(default);
            }
            Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, TRANSFORM_SIGNATURE))
        },
        |ctx| {
            let from = constant_array(ctx.scalar(1)).ok_or_else(|| must_be_constant(ctx.name, 1, "from"))?;
            let to = constant_array(ctx.scalar(2)).ok_or_else(|| must_be_constant(ctx.name, 2, "to"))?;
            if from.len() != to.len() {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Second and third arguments of function transform must be arrays of same size"));
            }
            let x = ctx.array(0)?;
            let as_float = is_float(x.data_type()) || is_float(from.data_type());
            let mut positions: HashMap<Key, u32> = HashMap::with_capacity(from.len());
            for (position, key) in keys(&from, as_float)?.into_iter().enumerate() {
                if let Some(key) = key {
                    positions.entry(key).or_insert(position as u32);
                }
            }
            let found: UInt32Array = keys(&x, as_float)?.into_iter().map(|key| key.and_then(|key| positions.get(&key).copied())).collect();
            let matched = is_not_null(&found)?;
            let result_type = ctx.ret_type();
            let replacements = take(&cast(&to, result_type)?, &found, None)?;
            let otherwise = match ctx.args.len() {
                4 => cast(&ctx.array(3)?, result_type)?,
                _ => x,
            };
            Ok(zip(&matched, &replacements, &otherwise)?)
        },
    )
    .custom_nulls()
    .build()
}

/// `clamp(x, min, max)`: `x` held within [min, max], in the supertype of the three.
fn clamp() -> ScalarUDF {
    ScalarDef::new(
        "clamp",
        Arity::exact(3),
        |ctx| least_supertype_of_args(ctx, &[0, 1, 2]),
        |ctx| {
            let result_type = ctx.ret_type();
            let [x, low, high] = [0, 1, 2].map(|i| ctx.array(i).and_then(|a| Ok(cast(&a, result_type)?)));
            let (x, low, high) = (x?, low?, high?);
            let inverted = gt(&low, &high)?;
            if inverted.true_count() > 0 {
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "The minimum value cannot be greater than the maximum value for function clamp"));
            }
            let raised = zip(&lt(&x, &low)?, &low, &x)?;
            Ok(zip(&gt(&raised, &high)?, &high, &raised)?)
        },
    )
    .build()
}

fn width_bucket_result(count: &ChType) -> Option<ChType> {
    Some(match count {
        ChType::UInt8 => ChType::UInt16,
        ChType::UInt16 => ChType::UInt32,
        ChType::UInt32 | ChType::UInt64 => ChType::UInt64,
        _ => return None,
    })
}

/// `widthBucket(operand, low, high, count)`: which of `count` equal buckets of [low, high)
/// holds `operand` (0 below, count + 1 above, 0 for an empty or inverted range).
fn width_bucket() -> ScalarUDF {
    ScalarDef::new(
        "widthBucket",
        Arity::exact(4),
        |ctx| {
            let names = ["operand", "low", "high"];
            for (i, name) in names.iter().enumerate() {
                let dt = ctx.dt(i);
                if !(is_integer(dt) || is_float(dt)) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("A value of illegal type was provided as argument '{name}' to function 'widthBucket'. Expected: native numeric, got: {}", ctx.ch(i)),
                    ));
                }
            }
            let count = match ctx.scalar(3).and_then(crate::literals::narrow) {
                Some(narrowed) if matches!(ctx.dt(3), DataType::Int64) => ChType::from_arrow(&narrowed.data_type(), false),
                _ => ctx.ch(3).strip_nullable().clone(),
            };
            width_bucket_result(&count).ok_or_else(|| {
                ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 4th argument 'num_buckets' to function 'widthBucket'. Expected: UInt8, UInt16, UInt32 or UInt64, got: {count}"),
                )
            })
        },
        |ctx| {
            let float = |i: usize| -> DfResult<Vec<f64>> { Ok(cast(&ctx.array(i)?, &DataType::Float64)?.as_primitive::<Float64Type>().values().to_vec()) };
            let (operands, lows, highs) = (float(0)?, float(1)?, float(2)?);
            let counts = cast(&ctx.array(3)?, &DataType::UInt64)?;
            let counts = counts.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().values();
            let valid = |row: usize| ctx.args.iter().all(|a| match a {
                datafusion::logical_expr::ColumnarValue::Array(a) => a.is_valid(row),
                datafusion::logical_expr::ColumnarValue::Scalar(s) => !s.is_null(),
            });
            let mut buckets = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                if !valid(row) {
                    buckets.push(0);
                    continue;
                }
                let (operand, low, high, count) = (operands[row], lows[row], highs[row], counts[row]);
                if operand.is_nan() || low.is_nan() || high.is_nan() {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "The first three arguments (operand, low, high) cannot be NaN in function widthBucket"));
                }
                if low.is_infinite() || high.is_infinite() {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "The second and third arguments (low, high) cannot be Inf function widthBucket"));
                }
                if count == 0 {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Last argument (count) for function widthBucket cannot be 0"));
                }
                buckets.push(if operand < low || low >= high {
                    0
                } else if operand >= high {
                    count.saturating_add(1)
                } else {
                    (count as f64 * ((operand - low) / (high - low)) + 1.0) as u64
                });
            }
            let buckets: ArrayRef = Arc::new(UInt64Array::from(buckets));
            Ok(cast(&buckets, ctx.ret_type())?)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![transform(), clamp(), width_bucket()]
}
