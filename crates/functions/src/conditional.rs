//! Conditionals and NULL handling: `if`, `multiIf`, `isNull`, `isNotNull`, `ifNull`,
//! `nullIf`, `assumeNotNull`, `toNullable`, and `__condition`, which the SQL front end
//! puts around filter operands so numbers work as conditions.
//!
//! Branch values are converted to ClickHouse's least supertype of the branches
//! ([`crate::supertype`]) and merged 64 rows per mask word for fixed-width types (a
//! constant branch kept as one value), with Arrow's `zip` for the others. Conditions
//! may be `Bool`, any integer (non-zero is true) or `Nullable` (NULL is false).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, Datum, PrimitiveArray, Scalar, UInt8Array};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer, NullBuffer};
use datafusion::arrow::compute::kernels::cmp::{eq, neq};
use datafusion::arrow::compute::kernels::zip::zip;
use datafusion::arrow::compute::{cast, is_not_null, is_null, prep_null_mask_filter};
use datafusion::arrow::datatypes::{
    ArrowNativeType, ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, Decimal256Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ColumnarValue;
use datafusion::logical_expr::ScalarUDF;
use granary_types::ChType;

use crate::args::{illegal_type, is_numeric, DfResult};
use crate::conversion::convert::{convert, Conv, Mode};
use crate::func::{with_nulls, ExecCtx, RetCtx, ScalarDef};
use crate::supertype::least_supertype;
use crate::args::Arity;

/// The rows where a condition column is true (NULL counts as false).
pub(crate) fn truth_mask(array: &ArrayRef) -> DfResult<BooleanArray> {
    let mask = match array.data_type() {
        DataType::Boolean => array.as_boolean().clone(),
        DataType::Null => BooleanArray::from(vec![false; array.len()]),
        DataType::UInt8 => nonzero_bytes(array.as_primitive::<UInt8Type>()),
        DataType::UInt16 => nonzero::<UInt16Type>(array),
        DataType::UInt32 => nonzero::<UInt32Type>(array),
        DataType::UInt64 => nonzero::<UInt64Type>(array),
        DataType::Int8 => nonzero::<Int8Type>(array),
        DataType::Int16 => nonzero::<Int16Type>(array),
        DataType::Int32 => nonzero::<Int32Type>(array),
        DataType::Int64 => nonzero::<Int64Type>(array),
        _ => {
            let as_f = cast(array, &DataType::Float64)?;
            let zero = datafusion::arrow::array::Float64Array::new_scalar(0.0);
            neq(&as_f, &zero)?
        }
    };
    Ok(null_to_false(&mask))
}

/// `value != 0` of an integer column, 64 rows per mask word, keeping its nulls.
fn nonzero<T: ArrowPrimitiveType>(array: &ArrayRef) -> BooleanArray {
    let values = array.as_primitive::<T>().values();
    let zero = T::Native::default();
    let bits = BooleanBuffer::collect_bool(values.len(), |i| values[i] != zero);
    BooleanArray::new(bits, array.nulls().cloned())
}

/// `value != 0` of a UInt8 column (comparisons' results) eight bytes at a time: each
/// byte's "not zero" lands in its top bit, and one multiplication packs the eight top
/// bits into a mask byte.
fn nonzero_bytes(array: &PrimitiveArray<UInt8Type>) -> BooleanArray {
    let values = array.values();
    let mut words = Vec::with_capacity(values.len().div_ceil(64));
    for chunk in values.chunks(64) {
        let mut word = 0u64;
        for (k, eight) in chunk.chunks(8).enumerate() {
            let x = match <[u8; 8]>::try_from(eight) {
                Ok(full) => u64::from_le_bytes(full),
                Err(_) => {
                    let mut padded = [0u8; 8];
                    padded[..eight.len()].copy_from_slice(eight);
                    u64::from_le_bytes(padded)
                }
            };
            let top_bits = (((x & 0x7f7f_7f7f_7f7f_7f7f) + 0x7f7f_7f7f_7f7f_7f7f) | x) & 0x8080_8080_8080_8080;
            word |= ((top_bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        words.push(word);
    }
    let bits = BooleanBuffer::new(Buffer::from_vec(words), 0, values.len());
    BooleanArray::new(bits, array.nulls().cloned())
}

/// A Boolean mask with NULL read as false (and no validity bitmap).
pub(crate) fn null_to_false(mask: &BooleanArray) -> BooleanArray {
    match mask.nulls() {
        Some(nulls) if nulls.null_count() > 0 => prep_null_mask_filter(mask),
        _ => BooleanArray::new(mask.values().clone(), None),
    }
}

/// ClickHouse's `if` and `multiIf` take only UInt8 or Bool conditions (also Nullable or
/// LowCardinality, and NULL): unlike WHERE, `if(toUInt16(1), ..)` is refused. While
/// planning, integer literals are still DataFusion's Int64 and so is what they make
/// (`number % 2` is UInt8 once `2` is), so other integers are refused only when running
/// ([`check_condition_column`]), with the types the literal passes settled.
fn check_condition(ctx: &RetCtx, i: usize) -> DfResult<()> {
    let t = ctx.ch(i);
    let provisional = matches!(t.base(), ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64);
    if provisional || is_condition(ctx.dt(i), &t, ctx.scalar(i)) {
        return Ok(());
    }
    Err(condition_error(ctx.name, &t))
}

fn check_condition_column(ctx: &ExecCtx, i: usize) -> DfResult<()> {
    let t = ctx.ch(i);
    // Plans that skipped the literal passes still hold `1` as an Int64 constant.
    let literal = ctx.scalar(i).filter(|_| !t.is_nullable());
    if is_condition(ctx.dt(i), &t, literal) {
        return Ok(());
    }
    Err(condition_error(ctx.name, &t))
}

fn is_condition(dt: &DataType, t: &ChType, scalar: Option<&datafusion::common::ScalarValue>) -> bool {
    matches!(dt, DataType::Null | DataType::Boolean)
        || matches!(t.base(), ChType::UInt8 | ChType::Bool | ChType::Nothing)
        // An integer literal not narrowed yet; to ClickHouse `1` is UInt8.
        || matches!(scalar, Some(datafusion::common::ScalarValue::Int64(Some(v))) if (0..=255).contains(v))
}

fn condition_error(name: &str, t: &ChType) -> datafusion::error::DataFusionError {
    let position = if name == "if" { "first argument" } else { "argument" };
    crate::args::ch_error(
        granary_common::ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("Illegal type {t} of {position} (condition) of function {name}. Must be UInt8."),
    )
}

/// A branch of `if`/`multiIf` converted to the result type: a constant stays one value
/// instead of a column of copies.
enum Branch {
    Column(ArrayRef),
    /// A one-row array.
    Constant(ArrayRef),
}

impl Branch {
    fn array(&self) -> &ArrayRef {
        match self {
            Branch::Column(a) | Branch::Constant(a) => a,
        }
    }

    fn into_array(self, len: usize) -> DfResult<ArrayRef> {
        match self {
            Branch::Column(a) => Ok(a),
            Branch::Constant(a) => Ok(ScalarValue::try_from_array(&a, 0)?.to_array_of_size(len)?),
        }
    }

    /// Rows that are not NULL (`None`: all of them).
    fn validity(&self, len: usize) -> Option<BooleanBuffer> {
        match self {
            Branch::Column(a) => a.logical_nulls().map(|n| n.into_inner()),
            Branch::Constant(a) if a.is_null(0) => Some(BooleanBuffer::new_unset(len)),
            Branch::Constant(_) => None,
        }
    }
}

/// Argument `i` as a branch of the result type `t`.
fn branch(ctx: &ExecCtx, i: usize, t: &ChType) -> DfResult<Branch> {
    match &ctx.args[i] {
        ColumnarValue::Scalar(value) => {
            let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
            let base = t.strip_nullable().clone();
            let one = value.to_array_of_size(1)?;
            Ok(Branch::Constant(if matches!(base, ChType::Nothing) { one } else { convert(&one, &ctx.fields[i], &base, &cv)? }))
        }
        ColumnarValue::Array(_) => Ok(Branch::Column(to_type(ctx, i, t)?)),
    }
}

/// `mask ? a : b` row by row. Fixed-width values are picked 64 rows per mask word,
/// a constant branch read as one value; other types go through Arrow's `zip`.
fn select(mask: &BooleanArray, a: &Branch, b: &Branch) -> DfResult<ArrayRef> {
    let data_type = a.array().data_type();
    let fits = |branch: &Branch| matches!(branch, Branch::Constant(_)) || branch.array().len() == mask.len();
    if data_type == b.array().data_type() && fits(a) && fits(b) {
        macro_rules! pick {
            ($t:ty) => {
                return Ok(select_primitive::<$t>(mask, a, b))
            };
        }
        match data_type {
            DataType::UInt8 => pick!(UInt8Type),
            DataType::UInt16 => pick!(UInt16Type),
            DataType::UInt32 => pick!(UInt32Type),
            DataType::UInt64 => pick!(UInt64Type),
            DataType::Int8 => pick!(Int8Type),
            DataType::Int16 => pick!(Int16Type),
            DataType::Int32 => pick!(Int32Type),
            DataType::Int64 => pick!(Int64Type),
            DataType::Float32 => pick!(Float32Type),
            DataType::Float64 => pick!(Float64Type),
            DataType::Date32 => pick!(Date32Type),
            DataType::Timestamp(TimeUnit::Second, _) => pick!(TimestampSecondType),
            DataType::Timestamp(TimeUnit::Millisecond, _) => pick!(TimestampMillisecondType),
            DataType::Timestamp(TimeUnit::Microsecond, _) => pick!(TimestampMicrosecondType),
            DataType::Timestamp(TimeUnit::Nanosecond, _) => pick!(TimestampNanosecondType),
            DataType::Decimal128(..) => pick!(Decimal128Type),
            DataType::Decimal256(..) => pick!(Decimal256Type),
            _ => {}
        }
    }
    let datum = |branch: &Branch| -> Box<dyn Datum> {
        match branch {
            Branch::Column(a) => Box::new(Arc::clone(a)),
            Branch::Constant(a) => Box::new(Scalar::new(Arc::clone(a))),
        }
    };
    Ok(zip(mask, datum(a).as_ref(), datum(b).as_ref())?)
}

fn select_primitive<T: ArrowPrimitiveType>(mask: &BooleanArray, a: &Branch, b: &Branch) -> ArrayRef {
    let len = mask.len();
    let on = mask.values();
    let a_values = a.array().as_primitive::<T>().values();
    let b_values = b.array().as_primitive::<T>().values();
    let values = pick_by_mask(on, branch_values(a, a_values, len), branch_values(b, b_values, len));
    let nulls = match (a.validity(len), b.validity(len)) {
        (None, None) => None,
        (a_valid, b_valid) => {
            let all = || BooleanBuffer::new_set(len);
            let a_valid = a_valid.unwrap_or_else(all);
            let b_valid = b_valid.unwrap_or_else(all);
            Some(NullBuffer::new(&(on & &a_valid) | &(&!on & &b_valid)))
        }
    };
    Arc::new(PrimitiveArray::<T>::new(values.into(), nulls).with_data_type(a.array().data_type().clone()))
}

/// A branch's values for [`pick_by_mask`]: a column's own, or a constant's one value.
enum Values<'a, N> {
    Column(&'a [N]),
    Constant(N),
}

fn branch_values<'a, N: Copy>(branch: &Branch, values: &'a [N], len: usize) -> Values<'a, N> {
    match branch {
        Branch::Column(_) => Values::Column(values.get(..len).unwrap_or(values)),
        Branch::Constant(_) => Values::Constant(values[0]),
    }
}

/// Values of `a` where the mask bit is set and of `b` elsewhere: 64 rows per mask word,
/// over fixed-size arrays so that the compiler turns each word into vector blends (a
/// constant is read as a 64-value array repeated).
fn pick_by_mask<N: ArrowNativeType>(on: &BooleanBuffer, a: Values<N>, b: Values<N>) -> Vec<N> {
    let len = on.len();
    let mut out = vec![N::default(); len];
    let (a_repeated, b_repeated);
    let a_chunks: Box<dyn Iterator<Item = &[N]>> = match &a {
        Values::Column(values) => Box::new(values.chunks(64)),
        Values::Constant(value) => {
            a_repeated = [*value; 64];
            Box::new(std::iter::repeat(&a_repeated[..]))
        }
    };
    let b_chunks: Box<dyn Iterator<Item = &[N]>> = match &b {
        Values::Column(values) => Box::new(values.chunks(64)),
        Values::Constant(value) => {
            b_repeated = [*value; 64];
            Box::new(std::iter::repeat(&b_repeated[..]))
        }
    };
    let chunks = on.bit_chunks();
    let words = chunks.iter().chain(std::iter::once(chunks.remainder_bits()));
    for (((slots, a), b), word) in out.chunks_mut(64).zip(a_chunks).zip(b_chunks).zip(words) {
        match (<&mut [N; 64]>::try_from(&mut *slots), <&[N; 64]>::try_from(a), <&[N; 64]>::try_from(b)) {
            (Ok(slots), Ok(a), Ok(b)) => {
                for bit in 0..64 {
                    slots[bit] = if (word >> bit) & 1 == 1 { a[bit] } else { b[bit] };
                }
            }
            _ => {
                for (bit, slot) in slots.iter_mut().enumerate() {
                    *slot = if (word >> bit) & 1 == 1 { a[bit] } else { b[bit] };
                }
            }
        }
    }
    out
}

/// Converts argument `i` to the (base of the) result type `t`, keeping its nulls.
pub(crate) fn to_type(ctx: &ExecCtx, i: usize, t: &ChType) -> DfResult<ArrayRef> {
    let array = ctx.array(i)?;
    let cv = Conv { func: "", mode: Mode::Throw, config: ctx.config };
    let base = t.strip_nullable().clone();
    if matches!(base, ChType::Nothing) {
        return Ok(array);
    }
    convert(&array, &ctx.fields[i], &base, &cv)
}

fn if_fn() -> ScalarUDF {
    ScalarDef::new(
        "if",
        Arity::exact(3),
        |ctx| {
            check_condition(ctx, 0)?;
            crate::supertype::least_supertype_of_args(ctx, &[1, 2])
        },
        |ctx| {
            check_condition_column(ctx, 0)?;
            let t = ctx.ret_ch();
            let mask = truth_mask(&ctx.array(0)?)?;
            let a = branch(ctx, 1, &t)?;
            let b = branch(ctx, 2, &t)?;
            select(&mask, &a, &b)
        },
    )
    .custom_nulls()
    .build()
}

fn multi_if() -> ScalarUDF {
    ScalarDef::new(
        "multiIf",
        Arity::at_least(3),
        |ctx| {
            let n = ctx.arg_count();
            if n % 2 == 0 {
                return Err(crate::args::ch_error(
                    granary_common::ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "Invalid number of arguments for function multiIf",
                ));
            }
            let mut branches = Vec::new();
            for i in (0..n - 1).step_by(2) {
                check_condition(ctx, i)?;
                branches.push(i + 1);
            }
            branches.push(n - 1);
            crate::supertype::least_supertype_of_args(ctx, &branches)
        },
        |ctx| {
            let t = ctx.ret_ch();
            let n = ctx.args.len();
            let mut result = branch(ctx, n - 1, &t)?;
            for i in (0..n - 1).step_by(2).rev() {
                check_condition_column(ctx, i)?;
                let mask = truth_mask(&ctx.array(i)?)?;
                let value = branch(ctx, i + 1, &t)?;
                result = Branch::Column(select(&mask, &value, &result)?);
            }
            result.into_array(ctx.len)
        },
    )
    .custom_nulls()
    .build()
}

fn null_test(name: &'static str, want_null: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |_| Ok(ChType::UInt8),
        move |ctx| {
            let array = ctx.array(0)?;
            let mask = if want_null { is_null(&array)? } else { is_not_null(&array)? };
            Ok(Arc::new(UInt8Array::from_iter_values(mask.values().iter().map(u8::from))))
        },
    )
    .custom_nulls()
    .build()
}

fn if_null() -> ScalarUDF {
    ScalarDef::new(
        "ifNull",
        Arity::exact(2),
        |ctx| {
            let a = ctx.ch(0);
            if ctx.dt(0) == &DataType::Null {
                return Ok(ctx.ch(1));
            }
            if !a.is_nullable() {
                return Ok(a);
            }
            let t = least_supertype(&[a.strip_nullable().clone(), ctx.ch(1)])?;
            Ok(t)
        },
        |ctx| {
            let t = ctx.ret_ch();
            if ctx.dt(0) == &DataType::Null {
                return to_type(ctx, 1, &t);
            }
            if !ctx.ch(0).is_nullable() {
                return to_type(ctx, 0, &t);
            }
            let a = to_type(ctx, 0, &t)?;
            let b = to_type(ctx, 1, &t)?;
            Ok(zip(&is_not_null(&a)?, &a, &b)?)
        },
    )
    .custom_nulls()
    .build()
}

fn null_if() -> ScalarUDF {
    ScalarDef::new(
        "nullIf",
        Arity::exact(2),
        |ctx| {
            least_supertype(&[ctx.ch(0), ctx.ch(1)])?;
            Ok(ctx.ch(0).into_nullable())
        },
        |ctx| {
            let a = ctx.array(0)?;
            if ctx.dt(0) == &DataType::Null {
                return Ok(a);
            }
            let common = least_supertype(&[ctx.ch(0), ctx.ch(1)])?;
            let l = to_type(ctx, 0, &common)?;
            let r = to_type(ctx, 1, &common)?;
            let equal = if ctx.dt(1) == &DataType::Null {
                BooleanArray::from(vec![false; a.len()])
            } else {
                null_to_false(&eq(&l, &r)?)
            };
            // Null where equal (or already null).
            let keep = datafusion::arrow::compute::not(&equal)?;
            let nulls = datafusion::arrow::buffer::NullBuffer::union(a.logical_nulls().as_ref(), Some(&keep.values().clone().into()));
            with_nulls(&a, nulls)
        },
    )
    .custom_nulls()
    .build()
}

fn assume_not_null() -> ScalarUDF {
    ScalarDef::new(
        "assumeNotNull",
        Arity::exact(1),
        |ctx| {
            let t = ctx.ch(0);
            Ok(match t {
                ChType::Nullable(inner) if !matches!(inner.as_ref(), ChType::Nothing) => *inner,
                other => other,
            })
        },
        |ctx| {
            let a = ctx.array(0)?;
            if a.data_type() == &DataType::Null {
                return Ok(a);
            }
            // ClickHouse leaves the default value under a NULL; Arrow kernels leave
            // zeroes/empty strings there, which is the same. A tuple's elements may be
            // NULL under a NULL tuple (Arrow allows that only there): defaults instead.
            if matches!(a.data_type(), DataType::Struct(_)) && a.logical_null_count() > 0 {
                return crate::func::defaults_at_nulls(&a);
            }
            with_nulls(&a, None)
        },
    )
    .custom_nulls()
    .build()
}

fn to_nullable() -> ScalarUDF {
    ScalarDef::new("toNullable", Arity::exact(1), |ctx| Ok(ctx.ch(0).into_nullable()), |ctx| ctx.array(0))
        .custom_nulls()
        .build()
}

/// `and`, `or`, `xor` (any number of arguments) and `not`: ClickHouse's logical
/// functions over numbers (non-zero is true), `Bool` and `Nullable`, returning `UInt8`
/// (`Bool` when an argument is `Bool`; `Nullable` with a Nullable argument) with
/// three-valued logic: `and` is 0 if
/// any argument is 0, else NULL if any is NULL; `or` is 1 if any is non-zero, else NULL
/// if any is NULL; `xor` and `not` are NULL when an argument is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Logic {
    And,
    Or,
    Xor,
    Not,
}

fn logic(name: &'static str, op: Logic) -> ScalarUDF {
    let arity = if op == Logic::Not { Arity::exact(1) } else { Arity::at_least(2) };
    ScalarDef::new(
        name,
        arity,
        |ctx| {
            let (mut nullable, mut boolean) = (false, false);
            for i in 0..ctx.arg_count() {
                let t = ctx.ch(i);
                let base = t.strip_nullable();
                if !(is_numeric(ctx.dt(i)) || matches!(base, ChType::Bool | ChType::Nothing)) {
                    return Err(illegal_type(ctx.name, i, ctx.field(i)));
                }
                nullable |= t.is_nullable() || matches!(base, ChType::Nothing);
                boolean |= matches!(base, ChType::Bool);
            }
            let base = if boolean { ChType::Bool } else { ChType::UInt8 };
            Ok(if nullable { ChType::Nullable(Box::new(base)) } else { base })
        },
        move |ctx| {
            let mut columns: Vec<(BooleanArray, Option<datafusion::arrow::buffer::NullBuffer>)> = Vec::with_capacity(ctx.args.len());
            for i in 0..ctx.args.len() {
                let array = ctx.array(i)?;
                // Logical nulls: a NULL literal is a NullArray, which has no bitmap.
                columns.push((truth_mask(&array)?, array.logical_nulls()));
            }
            let out: UInt8Array = (0..ctx.len)
                .map(|row| {
                    let value = |(truth, nulls): &(BooleanArray, Option<datafusion::arrow::buffer::NullBuffer>)| {
                        if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
                            None
                        } else {
                            Some(truth.value(row))
                        }
                    };
                    let values = columns.iter().map(value);
                    match op {
                        Logic::And => kleene(values, false),
                        Logic::Or => kleene(values, true),
                        Logic::Xor => values.map(|v| v.map(u8::from)).try_fold(0u8, |acc, v| v.map(|v| acc ^ v)),
                        Logic::Not => values.map(|v| v.map(|t| u8::from(!t))).next().flatten(),
                    }
                })
                .collect();
            if matches!(ctx.ret_ch().strip_nullable(), ChType::Bool) {
                return Ok(cast(&(Arc::new(out) as ArrayRef), &DataType::Boolean)?);
            }
            Ok(Arc::new(out))
        },
    )
    .custom_nulls()
    .build()
}

/// Three-valued `and` (`deciding` false) or `or` (`deciding` true): an argument equal to
/// `deciding` decides the result; otherwise a NULL makes it NULL.
fn kleene(values: impl Iterator<Item = Option<bool>>, deciding: bool) -> Option<u8> {
    let mut unknown = false;
    for v in values {
        match v {
            Some(v) if v == deciding => return Some(u8::from(deciding)),
            None => unknown = true,
            Some(_) => {}
        }
    }
    (!unknown).then_some(u8::from(!deciding))
}

/// Where a `__condition` operand sits, named by its second argument: a clause (`WHERE`,
/// `HAVING`, `QUALIFY`, `JOIN ON`) or the logical function (`and`, `or`, `not`) whose
/// argument it is. ClickHouse reports a bad type differently in each.
fn condition_type_error(context: &str, t: &ChType) -> datafusion::error::DataFusionError {
    use granary_common::ErrorCode;
    match context {
        "JOIN ON" => crate::args::ch_error(ErrorCode::INVALID_JOIN_ON_EXPRESSION, format!("Wrong type {t} of JOIN expression")),
        "and" | "or" | "not" => crate::args::ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type ({t}) of argument of function {context}")),
        clause => crate::args::ch_error(ErrorCode::ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER, format!("Invalid type for filter in {clause}: {t}")),
    }
}

/// Whether ClickHouse takes values of `t` as conditions: `Bool` and the native numbers
/// up to 64 bits (non-zero is true), also `Nullable` or `LowCardinality`, and NULL.
/// Dates, decimals, 128-bit integers and strings are refused.
fn is_condition_type(t: &ChType) -> bool {
    use ChType::*;
    matches!(t.base(), Bool | UInt8 | UInt16 | UInt32 | UInt64 | Int8 | Int16 | Int32 | Int64 | Float32 | Float64 | Nothing)
}

/// `__condition(x, 'context')`: `x` as a DataFusion Boolean, for the places where
/// DataFusion insists on one (filters, the operands of AND/OR/NOT) but ClickHouse takes
/// any number. Boolean operands pass through and integers become `x != 0`, both at
/// simplification, so filters keep their plain shape for pushdown and pruning and the
/// common case costs nothing. Floats stay in the kernel: Arrow compares floats by total
/// order, under which `-0.0 != 0.0`, while ClickHouse takes `-0.0` as false.
fn condition() -> ScalarUDF {
    ScalarDef::new(
        "__condition",
        Arity::exact(2),
        |ctx| {
            let context = ctx.const_str(1, "context")?;
            let t = ctx.ch(0);
            if !is_condition_type(&t) {
                return Err(condition_type_error(context, &t));
            }
            let nullable = t.is_nullable() || matches!(t.base(), ChType::Nothing) || ctx.field(0).is_nullable();
            Ok(if nullable { ChType::Nullable(Box::new(ChType::Bool)) } else { ChType::Bool })
        },
        |ctx| {
            let mut array = ctx.array(0)?;
            if let DataType::Dictionary(_, values) = array.data_type() {
                array = cast(&array, values)?;
            }
            let truth: BooleanArray = match array.data_type() {
                DataType::Boolean => array.as_boolean().clone(),
                DataType::Null => BooleanArray::new_null(array.len()),
                DataType::Float32 => array.as_primitive::<datafusion::arrow::datatypes::Float32Type>().iter().map(|v| v.map(|v| v != 0.0)).collect(),
                DataType::Float64 => array.as_primitive::<datafusion::arrow::datatypes::Float64Type>().iter().map(|v| v.map(|v| v != 0.0)).collect(),
                numbers => {
                    let zero = datafusion::common::ScalarValue::new_zero(numbers)?.to_scalar()?;
                    neq(&array, &zero)?
                }
            };
            Ok(Arc::new(truth))
        },
    )
    .custom_nulls()
    .simplify(|mut args, info| {
        use datafusion::logical_expr::simplify::ExprSimplifyResult;
        use datafusion::logical_expr::Expr;
        let Ok(data_type) = info.get_data_type(&args[0]) else { return Ok(ExprSimplifyResult::Original(args)) };
        match data_type {
            DataType::Boolean => Ok(ExprSimplifyResult::Simplified(args.swap_remove(0))),
            DataType::Null => Ok(ExprSimplifyResult::Simplified(Expr::Literal(datafusion::common::ScalarValue::Boolean(None), None))),
            t if t.is_integer() => {
                let zero = datafusion::common::ScalarValue::new_zero(&t)?;
                Ok(ExprSimplifyResult::Simplified(args.swap_remove(0).not_eq(Expr::Literal(zero, None))))
            }
            _ => Ok(ExprSimplifyResult::Original(args)),
        }
    })
    .build()
}

/// `__final_prewhere(c)`: the PREWHERE condition `c` of a SELECT that reads a table with
/// FINAL, unchanged. The mark tells the MergeTree scan to apply `c` to the rows before
/// its FINAL merge, as ClickHouse does; anywhere else it is `c`.
fn final_prewhere() -> ScalarUDF {
    ScalarDef::new("__final_prewhere", Arity::exact(1), |ctx| Ok(ctx.ch(0)), |ctx| ctx.array(0)).build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        condition(),
        final_prewhere(),
        logic("and", Logic::And),
        logic("or", Logic::Or),
        logic("xor", Logic::Xor),
        logic("not", Logic::Not),
        if_fn(),
        multi_if(),
        null_test("isNull", true),
        null_test("isNotNull", false),
        if_null(),
        null_if(),
        assume_not_null(),
        to_nullable(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arithmetic::bool_to_u8;

    #[test]
    fn masks_and_bytes_round_trip_at_any_length_and_offset() {
        let bytes: Vec<u8> = (0..300u32).map(|i| match i % 7 { 0 => 0, 1 => 1, 2 => 128, 3 => 255, 4 => 0, 5 => 127, _ => (i * 37 % 256) as u8 }).collect();
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 130, 300] {
            for offset in [0, 1, 5, 8] {
                if offset > len {
                    continue;
                }
                let array: ArrayRef = Arc::new(UInt8Array::from(bytes[..len].to_vec()).slice(offset, len - offset));
                let mask = truth_mask(&array).expect("mask");
                let expected: Vec<bool> = bytes[offset..len].iter().map(|&b| b != 0).collect();
                assert_eq!(mask.iter().map(|v| v.unwrap_or(false)).collect::<Vec<_>>(), expected, "len {len} offset {offset}");
                let back = bool_to_u8(&mask.slice(0, mask.len()));
                assert_eq!(back.values().to_vec(), expected.iter().map(|&b| u8::from(b)).collect::<Vec<_>>());
                let sliced = BooleanArray::from(expected.clone()).slice(offset.min(expected.len()), expected.len() - offset.min(expected.len()));
                let sliced_back = bool_to_u8(&sliced);
                assert_eq!(sliced_back.values().to_vec(), expected[offset.min(expected.len())..].iter().map(|&b| u8::from(b)).collect::<Vec<_>>());
            }
        }
    }
}
