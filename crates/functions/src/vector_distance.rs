//! Norms and distances of numeric arrays, as ClickHouse's `L1Norm`, `L2Norm`,
//! `L2SquaredNorm`, `LinfNorm`, `L1Distance`, `L2Distance`, `L2SquaredDistance`,
//! `LinfDistance` and `cosineDistance` (aliases `normL1`, `distanceL2`, ...) compute them
//! for arrays: Float32 when every element type is Float32 (summed in Float32), else
//! Float64; arrays of different sizes are error 190. Of tuples they are composed of the
//! scalar functions as in ClickHouse (`crate::tuple_arithmetic`).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float32Array, Float64Array, ListArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::tuple_arithmetic::{is_tuple_call, tuple_norm_exec, tuple_norm_type, TupleNorm};

/// The arithmetic the kernels need, in Float32 or Float64.
trait Real: Copy + PartialOrd + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self> + std::ops::Div<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
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
}

#[derive(Clone, Copy)]
enum Norm {
    L1,
    L2,
    L2Squared,
    Linf,
}

impl Norm {
    fn of<T: Real>(self, values: impl Iterator<Item = T>) -> T {
        match self {
            Norm::L1 => values.fold(T::ZERO, |acc, x| acc + x.abs()),
            Norm::L2 => values.fold(T::ZERO, |acc, x| acc + x * x).sqrt(),
            Norm::L2Squared => values.fold(T::ZERO, |acc, x| acc + x * x),
            Norm::Linf => values.fold(T::ZERO, |acc, x| if x.abs() > acc { x.abs() } else { acc }),
        }
    }
}

#[derive(Clone, Copy)]
enum Distance {
    Norm(Norm),
    Cosine,
}

impl Distance {
    fn of<T: Real>(self, pairs: impl Iterator<Item = (T, T)>) -> T {
        match self {
            Distance::Norm(norm) => norm.of(pairs.map(|(a, b)| a - b)),
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
    let array = ctx.array(i)?;
    let list = array.as_list::<i32>().clone();
    let float = match ctx.ret_ch().base() {
        ChType::Float32 => DataType::Float32,
        _ => DataType::Float64,
    };
    let values = cast(list.values(), &float)?;
    Ok((list, values))
}

/// The tuple form of a norm or distance (see [`crate::tuple_arithmetic::TupleNorm`]).
fn tuple_form(distance: Distance) -> TupleNorm {
    match distance {
        Distance::Norm(Norm::L1) => TupleNorm::L1,
        Distance::Norm(Norm::L2) => TupleNorm::L2,
        Distance::Norm(Norm::L2Squared) => TupleNorm::L2Squared,
        Distance::Norm(Norm::Linf) => TupleNorm::Linf,
        Distance::Cosine => TupleNorm::Cosine,
    }
}

fn norm_fn(name: &'static str, internal_name: &'static str, norm: Norm) -> ScalarUDF {
    let tuple_norm = tuple_form(Distance::Norm(norm));
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            if is_tuple_call(&ctx.fields) {
                return tuple_norm_type(ctx, tuple_norm);
            }
            Ok(result_type(&[element_type(ctx, 0, internal_name)?]))
        },
        move |ctx| {
            if is_tuple_call(ctx.fields) {
                return tuple_norm_exec(ctx, tuple_norm);
            }
            let (list, values) = float_list(ctx, 0)?;
            let offsets = list.value_offsets();
            let range = |row: usize| offsets[row] as usize..offsets[row + 1] as usize;
            Ok(match values.data_type() {
                DataType::Float32 => {
                    let v = values.as_primitive::<Float32Type>().values();
                    Arc::new(Float32Array::from_iter_values((0..list.len()).map(|row| norm.of(v[range(row)].iter().copied())))) as ArrayRef
                }
                _ => {
                    let v = values.as_primitive::<Float64Type>().values();
                    Arc::new(Float64Array::from_iter_values((0..list.len()).map(|row| norm.of(v[range(row)].iter().copied()))))
                }
            })
        },
    )
    .build()
}

fn distance_fn(name: &'static str, internal_name: &'static str, distance: Distance) -> ScalarUDF {
    let tuple_norm = tuple_form(distance);
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            if is_tuple_call(&ctx.fields) {
                return tuple_norm_type(ctx, tuple_norm);
            }
            Ok(result_type(&[element_type(ctx, 0, internal_name)?, element_type(ctx, 1, internal_name)?]))
        },
        move |ctx| {
            if is_tuple_call(ctx.fields) {
                return tuple_norm_exec(ctx, tuple_norm);
            }
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
                    let rows = (0..ctx.len).map(|row| distance.of(a[range(lo, row)].iter().copied().zip(b[range(ro, row)].iter().copied())));
                    Arc::new(Float32Array::from_iter_values(rows)) as ArrayRef
                }
                _ => {
                    let (a, b) = (left_values.as_primitive::<Float64Type>().values(), right_values.as_primitive::<Float64Type>().values());
                    let rows = (0..ctx.len).map(|row| distance.of(a[range(lo, row)].iter().copied().zip(b[range(ro, row)].iter().copied())));
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
        distance_fn("L1Distance", "arrayL1Distance", Distance::Norm(Norm::L1)),
        distance_fn("L2Distance", "arrayL2Distance", Distance::Norm(Norm::L2)),
        distance_fn("L2SquaredDistance", "arrayL2SquaredDistance", Distance::Norm(Norm::L2Squared)),
        distance_fn("LinfDistance", "arrayLinfDistance", Distance::Norm(Norm::Linf)),
        distance_fn("cosineDistance", "arrayCosineDistance", Distance::Cosine),
    ]
}
