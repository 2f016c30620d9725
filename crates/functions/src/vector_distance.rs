//! Norms and distances of numeric arrays, as ClickHouse's `L1Norm`, `L2Norm`,
//! `L2SquaredNorm`, `LinfNorm`, `LpNorm`, `L1Distance`, `L2Distance`, `L2SquaredDistance`,
//! `LinfDistance`, `LpDistance` and `cosineDistance` (aliases `normL1`, `distanceL2`, ...)
//! compute them for arrays: Float32 when every element type is Float32 (summed in
//! Float32), else Float64; arrays of different sizes are error 190. `L1Normalize`,
//! `L2Normalize`, `LinfNormalize` and `LpNormalize` divide each element by the norm, in
//! that same type. Of tuples they are composed of the scalar functions as in ClickHouse
//! (`crate::tuple_arithmetic`). The power of the `Lp` forms is a constant in [1, inf).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float32Array, Float64Array, ListArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::tuple_arithmetic::{is_tuple_call, tuple_norm_exec, tuple_norm_type, tuple_normalize_exec, tuple_normalize_type, TupleNorm};

/// The arithmetic the kernels need, in Float32 or Float64.
trait Real: Copy + PartialOrd + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self> + std::ops::Div<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    /// `std::pow(x, p)` with a double power, rounded back to the type, as ClickHouse's `Lp` kernels.
    fn pow(self, power: f64) -> Self;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn pow(self, power: f64) -> f32 {
        f64::from(self).powf(power) as f32
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn pow(self, power: f64) -> f64 {
        self.powf(power)
    }
}

#[derive(Clone, Copy)]
enum Norm {
    L1,
    L2,
    L2Squared,
    Linf,
    /// The power is the call's last argument ([`lp_power`]).
    Lp,
}

impl Norm {
    fn of<T: Real>(self, values: impl Iterator<Item = T>, power: f64) -> T {
        match self {
            Norm::L1 => values.fold(T::ZERO, |acc, x| acc + x.abs()),
            Norm::L2 => values.fold(T::ZERO, |acc, x| acc + x * x).sqrt(),
            Norm::L2Squared => values.fold(T::ZERO, |acc, x| acc + x * x),
            Norm::Linf => values.fold(T::ZERO, |acc, x| if x.abs() > acc { x.abs() } else { acc }),
            Norm::Lp => values.fold(T::ZERO, |acc, x| acc + x.abs().pow(power)).pow(1.0 / power),
        }
    }

    /// Arguments before the power.
    fn arity(self, vectors: usize) -> usize {
        match self {
            Norm::Lp => vectors + 1,
            _ => vectors,
        }
    }
}

/// The power of an `Lp` call from its last argument's constant value: a number (error 43
/// otherwise), constant (44; checked when running, since only literals are known when
/// typing), finite and at least 1 (69). 2 when the value is not known yet: the power
/// never changes a result type.
fn lp_power(scalar: Option<&ScalarValue>, field_type: &DataType, name: &str, running: bool) -> DfResult<f64> {
    if !crate::args::is_numeric(field_type) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument p of function {name} must be a numeric constant")));
    }
    let Some(scalar) = scalar else {
        if running {
            return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Argument at index 1 for function {name} must be constant")));
        }
        return Ok(2.0);
    };
    let power = match scalar.cast_to(&DataType::Float64)? {
        ScalarValue::Float64(Some(power)) => power,
        _ => return Ok(2.0),
    };
    if !power.is_finite() || power < 1.0 {
        return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Second argument for function {name} must be a finite number not less than one")));
    }
    Ok(power)
}

/// The power of a call of `norm` (1 for the norms without one, which ignore it).
fn power_of(norm: Norm, scalars: (Option<&ScalarValue>, &DataType), name: &str, running: bool) -> DfResult<f64> {
    match norm {
        Norm::Lp => lp_power(scalars.0, scalars.1, name, running),
        _ => Ok(1.0),
    }
}

#[derive(Clone, Copy)]
enum Distance {
    Norm(Norm),
    Cosine,
}

impl Distance {
    fn of<T: Real>(self, pairs: impl Iterator<Item = (T, T)>, power: f64) -> T {
        match self {
            Distance::Norm(norm) => norm.of(pairs.map(|(a, b)| a - b), power),
            Distance::Cosine => {
                let (mut dot, mut a_squared, mut b_squared) = (T::ZERO, T::ZERO, T::ZERO);
                for (a, b) in pairs {
                    dot = dot + a * b;
                    a_squared = a_squared + a * a;
                    b_squared = b_squared + b * b;
                }
                T::ONE - dot / (a_squared * b_squared).sqrt()
            }
        }
    }
}

/// The element type of array argument `i`, which must be a number.
fn element_type(ctx: &RetCtx, i: usize, internal_name: &str) -> DfResult<ChType> {
    let ChType::Array(inner) = ctx.ch(i) else {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument {} of function {} must be an Array", i + 1, ctx.name)));
    };
    let numeric = matches!(
        *inner,
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64
    );
    if !numeric {
        return Err(ch_error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Arguments of function {internal_name} has nested type {inner}. Supported types: UInt8, UInt16, UInt32, UInt64, Int8, Int16, Int32, Int64, BFloat16, Float32, Float64"),
        ));
    }
    Ok(*inner)
}

fn result_type(elements: &[ChType]) -> ChType {
    if elements.iter().all(|t| matches!(t, ChType::Float32)) {
        ChType::Float32
    } else {
        ChType::Float64
    }
}

/// The list argument `i` with its values cast to the result's float type.
fn float_list(ctx: &ExecCtx, i: usize) -> DfResult<(ListArray, ArrayRef)> {
    float_list_of(ctx, i, ctx.ret_ch().base())
}

/// The list argument `i` with its values cast to `float` (Float32 or Float64).
fn float_list_of(ctx: &ExecCtx, i: usize, float: &ChType) -> DfResult<(ListArray, ArrayRef)> {
    let array = ctx.array(i)?;
    let list = array.as_list::<i32>().clone();
    let float = match float {
        ChType::Float32 => DataType::Float32,
        _ => DataType::Float64,
    };
    let values = cast(list.values(), &float)?;
    Ok((list, values))
}

/// The tuple form of a norm or distance (see [`crate::tuple_arithmetic::TupleNorm`]).
fn tuple_form(distance: Distance, power: f64) -> TupleNorm {
    match distance {
        Distance::Norm(Norm::L1) => TupleNorm::L1,
        Distance::Norm(Norm::L2) => TupleNorm::L2,
        Distance::Norm(Norm::L2Squared) => TupleNorm::L2Squared,
        Distance::Norm(Norm::Linf) => TupleNorm::Linf,
        Distance::Norm(Norm::Lp) => TupleNorm::Lp(power),
        Distance::Cosine => TupleNorm::Cosine,
    }
}

/// The power argument of a call that has `vectors` arrays or tuples before it: its value
/// and type.
fn ret_power(ctx: &RetCtx, norm: Norm, vectors: usize, name: &str) -> DfResult<f64> {
    let i = vectors.min(ctx.arg_count().saturating_sub(1));
    power_of(norm, (ctx.scalar(i), ctx.dt(i)), name, false)
}

fn exec_power(ctx: &ExecCtx, norm: Norm, vectors: usize, name: &str) -> DfResult<f64> {
    let i = vectors.min(ctx.args.len().saturating_sub(1));
    power_of(norm, (ctx.scalar(i), ctx.dt(i)), name, true)
}

/// The norm of each row of a float list, in the list's float type.
fn row_norms<'a, T: Real>(values: &'a [T], offsets: &'a [i32], norm: Norm, power: f64) -> impl Iterator<Item = T> + 'a {
    offsets.windows(2).map(move |w| norm.of(values[w[0] as usize..w[1] as usize].iter().copied(), power))
}

fn norm_fn(name: &'static str, internal_name: &'static str, norm: Norm) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(norm.arity(1)),
        move |ctx| {
            if is_tuple_call(&ctx.fields) {
                return tuple_norm_type(ctx, tuple_form(Distance::Norm(norm), ret_power(ctx, norm, 1, name)?));
            }
            let element = element_type(ctx, 0, internal_name)?;
            ret_power(ctx, norm, 1, internal_name)?;
            Ok(result_type(&[element]))
        },
        move |ctx| {
            if is_tuple_call(ctx.fields) {
                return tuple_norm_exec(ctx, tuple_form(Distance::Norm(norm), exec_power(ctx, norm, 1, name)?));
            }
            let power = exec_power(ctx, norm, 1, internal_name)?;
            let (list, values) = float_list(ctx, 0)?;
            let offsets = list.value_offsets();
            Ok(match values.data_type() {
                DataType::Float32 => Arc::new(Float32Array::from_iter_values(row_norms(values.as_primitive::<Float32Type>().values(), offsets, norm, power))) as ArrayRef,
                _ => Arc::new(Float64Array::from_iter_values(row_norms(values.as_primitive::<Float64Type>().values(), offsets, norm, power))),
            })
        },
    )
    .build()
}

/// `L1Normalize`, ..., `LpNormalize`: each element divided by the row's norm.
fn normalize_fn(name: &'static str, internal_name: &'static str, norm: Norm) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(norm.arity(1)),
        move |ctx| {
            if is_tuple_call(&ctx.fields) {
                return tuple_normalize_type(ctx, tuple_form(Distance::Norm(norm), ret_power(ctx, norm, 1, name)?));
            }
            let element = element_type(ctx, 0, internal_name)?;
            ret_power(ctx, norm, 1, internal_name)?;
            Ok(ChType::Array(Box::new(result_type(&[element]))))
        },
        move |ctx| {
            if is_tuple_call(ctx.fields) {
                return tuple_normalize_exec(ctx, tuple_form(Distance::Norm(norm), exec_power(ctx, norm, 1, name)?));
            }
            let power = exec_power(ctx, norm, 1, internal_name)?;
            let float = match ctx.ret_ch().base() {
                ChType::Array(inner) => (**inner).clone(),
                other => other.clone(),
            };
            let (list, values) = float_list_of(ctx, 0, &float)?;
            let offsets = list.value_offsets();
            let normalized: ArrayRef = match values.data_type() {
                DataType::Float32 => {
                    let v = values.as_primitive::<Float32Type>().values();
                    let lengths: Vec<f32> = row_norms(v, offsets, norm, power).collect();
                    Arc::new(Float32Array::from_iter_values(offsets.windows(2).zip(&lengths).flat_map(|(w, &length)| v[w[0] as usize..w[1] as usize].iter().map(move |x| x / length))))
                }
                _ => {
                    let v = values.as_primitive::<Float64Type>().values();
                    let lengths: Vec<f64> = row_norms(v, offsets, norm, power).collect();
                    Arc::new(Float64Array::from_iter_values(offsets.windows(2).zip(&lengths).flat_map(|(w, &length)| v[w[0] as usize..w[1] as usize].iter().map(move |x| x / length))))
                }
            };
            let DataType::List(item) = ctx.ret_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{name} must return an array")));
            };
            Ok(Arc::new(ListArray::try_new(Arc::clone(item), list.offsets().clone(), normalized, None)?))
        },
    )
    .build()
}

fn distance_fn(name: &'static str, internal_name: &'static str, distance: Distance) -> ScalarUDF {
    let norm = match distance {
        Distance::Norm(norm) => norm,
        Distance::Cosine => Norm::L2,
    };
    ScalarDef::new(
        name,
        Arity::exact(norm.arity(2)),
        move |ctx| {
            if is_tuple_call(&ctx.fields) {
                return tuple_norm_type(ctx, tuple_form(distance, ret_power(ctx, norm, 2, name)?));
            }
            let elements = [element_type(ctx, 0, internal_name)?, element_type(ctx, 1, internal_name)?];
            ret_power(ctx, norm, 2, internal_name)?;
            Ok(result_type(&elements))
        },
        move |ctx| {
            if is_tuple_call(ctx.fields) {
                return tuple_norm_exec(ctx, tuple_form(distance, exec_power(ctx, norm, 2, name)?));
            }
            let power = exec_power(ctx, norm, 2, internal_name)?;
            let (left, left_values) = float_list(ctx, 0)?;
            let (right, right_values) = float_list(ctx, 1)?;
            let (lo, ro) = (left.value_offsets(), right.value_offsets());
            for row in 0..ctx.len {
                if lo[row + 1] - lo[row] != ro[row + 1] - ro[row] {
                    return Err(ch_error(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, format!("Array arguments for function {internal_name} must have equal sizes")));
                }
            }
            let range = |offsets: &[i32], row: usize| offsets[row] as usize..offsets[row + 1] as usize;
            Ok(match left_values.data_type() {
                DataType::Float32 => {
                    let (a, b) = (left_values.as_primitive::<Float32Type>().values(), right_values.as_primitive::<Float32Type>().values());
                    let rows = (0..ctx.len).map(|row| distance.of(a[range(lo, row)].iter().copied().zip(b[range(ro, row)].iter().copied()), power));
                    Arc::new(Float32Array::from_iter_values(rows)) as ArrayRef
                }
                _ => {
                    let (a, b) = (left_values.as_primitive::<Float64Type>().values(), right_values.as_primitive::<Float64Type>().values());
                    let rows = (0..ctx.len).map(|row| distance.of(a[range(lo, row)].iter().copied().zip(b[range(ro, row)].iter().copied()), power));
                    Arc::new(Float64Array::from_iter_values(rows))
                }
            })
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        norm_fn("L1Norm", "arrayL1Norm", Norm::L1),
        norm_fn("L2Norm", "arrayL2Norm", Norm::L2),
        norm_fn("L2SquaredNorm", "arrayL2SquaredNorm", Norm::L2Squared),
        norm_fn("LinfNorm", "arrayLinfNorm", Norm::Linf),
        norm_fn("LpNorm", "arrayLpNorm", Norm::Lp),
        normalize_fn("L1Normalize", "arrayL1Normalize", Norm::L1),
        normalize_fn("L2Normalize", "arrayL2Normalize", Norm::L2),
        normalize_fn("LinfNormalize", "arrayLinfNormalize", Norm::Linf),
        normalize_fn("LpNormalize", "arrayLpNormalize", Norm::Lp),
        distance_fn("L1Distance", "arrayL1Distance", Distance::Norm(Norm::L1)),
        distance_fn("L2Distance", "arrayL2Distance", Distance::Norm(Norm::L2)),
        distance_fn("L2SquaredDistance", "arrayL2SquaredDistance", Distance::Norm(Norm::L2Squared)),
        distance_fn("LinfDistance", "arrayLinfDistance", Distance::Norm(Norm::Linf)),
        distance_fn("LpDistance", "arrayLpDistance", Distance::Norm(Norm::Lp)),
        distance_fn("cosineDistance", "arrayCosineDistance", Distance::Cosine),
    ]
}
