//! Functions that build arrays from arrays: `arrayPushBack`, `arrayPushFront`,
//! `arrayPopBack`, `arrayPopFront`, `arrayResize`, `arrayRotateLeft/Right`,
//! `arrayShiftLeft/Right`, `arrayCompact`, `arrayFlatten`
//! (`flatten`), `arrayZip`, `arrayWithConstant`; running and whole-array arithmetic:
//! `arrayCumSum`, `arrayCumSumNonNegative`, `arrayDifference`, `arrayProduct`,
//! `arrayAvg`, `arrayDotProduct`. The lambda forms of the arithmetic ones and of
//! `arrayCompact` call the kernels here on the lambda's results (see [`crate::lambda`]).
//!
//! As in ClickHouse: running sums widen to Int64 / UInt64 / Float64 / Decimal(38, S) and
//! wrap; `arrayDifference` is one size up and signed (UInt8 -> Int16, 4 and 8 bytes ->
//! Int64), wrapping too; `arrayProduct` and `arrayAvg` are Float64 (0 for an empty
//! array); none of them takes Nullable elements.

use std::sync::Arc;

use datafusion::arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, Decimal128Array, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array,
    ListArray, StructArray, UInt16Array, UInt32Array, UInt64Array, UInt8Array,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{cast, interleave, take};
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Field, Float64Type, Int64Type, UInt64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_integer, is_numeric, Arity, DfResult};
use crate::array::{element_type, without_low_cardinality};
use crate::array_access::{default_value, element_supertype, gather_lists};
use crate::array_aggregate::element_keys;
use crate::array_set::values_as;
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::regexp::list_offset;

fn illegal(message: String) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, message)
}

/// The list item field of the call's result.
fn result_item(ctx: &ExecCtx) -> DfResult<Arc<Field>> {
    match ctx.ret_type() {
        DataType::List(item) => Ok(Arc::clone(item)),
        other => Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns {other}", ctx.name))),
    }
}

/// A list column of `values` (cast to the result's item type when only names or
/// metadata differ) cut at `offsets`.
fn result_list(ctx: &ExecCtx, values: ArrayRef, offsets: OffsetBuffer<i32>) -> DfResult<ArrayRef> {
    let item = result_item(ctx)?;
    let values = if values.data_type() == item.data_type() { values } else { cast(&values, item.data_type())? };
    Ok(Arc::new(ListArray::try_new(item, offsets, values, None)?))
}

fn first_array(ctx: &RetCtx) -> DfResult<ChType> {
    match ctx.ch(0) {
        ChType::Array(inner) => Ok(*inner),
        t => Err(illegal(format!("First argument for function {} must be an array but it has type {t}", ctx.name))),
    }
}

/// `arrayPushBack(arr, x)` / `arrayPushFront(arr, x)`: the elements in the least
/// supertype of the array's and `x`'s (`arrayPushBack([1], NULL)` is `[1, NULL]`).
fn push(name: &'static str, back: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            if ctx.dt(0) == &DataType::Null {
                return Ok(ChType::Nullable(Box::new(ChType::Nothing)));
            }
            let element = first_array(ctx)?;
            Ok(ChType::Array(Box::new(element_supertype(&[element, ctx.ch(1)])?)))
        },
        move |ctx| {
            if ctx.dt(0) == &DataType::Null {
                return ctx.array(0);
            }
            let target = element_type(&ctx.ret_ch());
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let values = values_as(ctx, list, &target)?;
            let x = crate::conditional::to_type(ctx, 1, &target)?;
            let x = if x.data_type() == values.data_type() { x } else { cast(&x, values.data_type())? };
            let o = list.value_offsets();
            let mut indices: Vec<(usize, usize)> = Vec::with_capacity(values.len() + ctx.len);
            for row in 0..ctx.len {
                if !back {
                    indices.push((1, row));
                }
                indices.extend((o[row] as usize..o[row + 1] as usize).map(|j| (0, j)));
                if back {
                    indices.push((1, row));
                }
            }
            let values = interleave(&[values.as_ref(), x.as_ref()], &indices)?;
            let lengths = (0..ctx.len).map(|row| (o[row + 1] - o[row]) as usize + 1);
            result_list(ctx, values, OffsetBuffer::from_lengths(lengths))
        },
    )
    .custom_nulls()
    .build()
}

fn pop(name: &'static str, back: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            first_array(ctx)?;
            Ok(without_low_cardinality(ctx.ch(0)))
        },
        move |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let o = list.value_offsets();
            let ranges = (0..ctx.len).map(|row| {
                let (start, end) = (o[row] as usize, o[row + 1] as usize);
                if start == end {
                    (start, end)
                } else if back {
                    (start, end - 1)
                } else {
                    (start + 1, end)
                }
            });
            gather_lists(list, ranges)
        },
    )
    .build()
}

/// The list's elements in the result's element type, and what pads it: the third
/// argument (one value per row: `per_row`) or the element type's default.
fn values_and_padding(ctx: &ExecCtx, list: &ListArray) -> DfResult<(ArrayRef, ArrayRef, bool)> {
    let target = element_type(&ctx.ret_ch());
    let values = values_as(ctx, list, &target)?;
    if ctx.args.len() == 3 {
        let x = crate::conditional::to_type(ctx, 2, &target)?;
        let x = if x.data_type() == values.data_type() { x } else { cast(&x, values.data_type())? };
        return Ok((values, x, true));
    }
    let field = Field::new("", values.data_type().clone(), result_item(ctx)?.is_nullable());
    let default = default_value(&field)?;
    Ok((values, default, false))
}

/// `arrayResize(arr, size[, extender])`: cut to `size` elements or padded with
/// `extender` (the element type's default); a negative size keeps the last elements and
/// pads in front.
fn array_resize() -> ScalarUDF {
    ScalarDef::new(
        "arrayResize",
        Arity::range(2, 3),
        |ctx| {
            let element = match ctx.ch(0) {
                ChType::Array(inner) => *inner,
                t => {
                    return Err(illegal(format!(
                        "A value of illegal type was provided as 1st argument 'array' to function 'arrayResize'. Expected: Array, got: {t}"
                    )))
                }
            };
            if !is_integer(ctx.dt(1)) || ctx.ch(1).is_nullable() {
                return Err(illegal(format!(
                    "A value of illegal type was provided as 2nd argument 'size' to function 'arrayResize'. Expected: Number, got: {}",
                    ctx.ch(1)
                )));
            }
            Ok(ChType::Array(Box::new(if ctx.arg_count() == 3 { element_supertype(&[element, ctx.ch(2)])? } else { without_low_cardinality(element) })))
        },
        |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let (values, extender, per_row) = values_and_padding(ctx, list)?;
            let sizes = cast(&ctx.array(1)?, &DataType::Int64)?;
            let sizes = sizes.as_primitive::<Int64Type>();
            let o = list.value_offsets();
            let mut indices: Vec<(usize, usize)> = Vec::new();
            let mut offsets: Vec<i32> = vec![0];
            for row in 0..ctx.len {
                let (start, end) = (o[row] as usize, o[row + 1] as usize);
                let len = end - start;
                let size = sizes.value(row);
                let wanted = usize::try_from(size.unsigned_abs()).unwrap_or(usize::MAX);
                if wanted > (1 << 30) {
                    return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "Too large array size in function arrayResize"));
                }
                let pad = (1, if per_row { row } else { 0 });
                if wanted <= len {
                    let range = if size >= 0 { start..start + wanted } else { end - wanted..end };
                    indices.extend(range.map(|j| (0, j)));
                } else if size >= 0 {
                    indices.extend((start..end).map(|j| (0, j)));
                    indices.extend(std::iter::repeat_n(pad, wanted - len));
                } else {
                    indices.extend(std::iter::repeat_n(pad, wanted - len));
                    indices.extend((start..end).map(|j| (0, j)));
                }
                offsets.push(list_offset(indices.len())?);
            }
            let values = interleave(&[values.as_ref(), extender.as_ref()], &indices)?;
            result_list(ctx, values, OffsetBuffer::new(offsets.into()))
        },
    )
    .custom_nulls()
    .build()
}

/// `arrayRotateLeft/Right(arr, n)` and `arrayShiftLeft/Right(arr, n[, default])`.
#[derive(Clone, Copy)]
enum Move {
    Rotate,
    Shift,
}

/// `n` as ClickHouse reads it: a UInt64 above `i64::MAX` wraps to a negative count
/// (`arrayShiftLeft(arr, toUInt64(-1))` shifts right by one).
fn counts_as_i64(counts: &ArrayRef) -> DfResult<Vec<i64>> {
    Ok(match counts.data_type() {
        DataType::UInt64 => counts.as_primitive::<UInt64Type>().values().iter().map(|v| *v as i64).collect(),
        _ => cast(counts, &DataType::Int64)?.as_primitive::<Int64Type>().values().to_vec(),
    })
}

/// The rotations and shifts: a shift to the left by `n` is one to the right by `-n`,
/// and the vacated places hold `default` (the element type's default without one); it
/// must already be of the element's type (`arrayShiftLeft([1], 1, 1000)` is an error).
fn array_move(name: &'static str, kind: Move, left: bool) -> ScalarUDF {
    let arity = match kind {
        Move::Rotate => Arity::exact(2),
        Move::Shift => Arity::range(2, 3),
    };
    ScalarDef::new(
        name,
        arity,
        move |ctx| {
            let element = match ctx.ch(0) {
                ChType::Array(inner) => without_low_cardinality(*inner),
                t => return Err(illegal(format!("Illegal type {t} of argument of function {name}, expected Array"))),
            };
            if !is_integer(ctx.dt(1)) {
                return Err(illegal(format!("Illegal type {} of argument of function {name}, expected Native Integer", ctx.ch(1))));
            }
            if ctx.arg_count() == 3 && element_supertype(&[element.clone(), ctx.ch(2)])? != element {
                return Err(illegal(format!("Illegal type {} of argument of function {name}, expected {element}", ctx.ch(2))));
            }
            Ok(ChType::Array(Box::new(element)))
        },
        move |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let (values, filler, per_row) = values_and_padding(ctx, list)?;
            let counts = counts_as_i64(&ctx.array(1)?)?;
            let o = list.value_offsets();
            let mut indices: Vec<(usize, usize)> = Vec::with_capacity(values.len());
            for (row, &n) in counts.iter().enumerate().take(ctx.len) {
                let (start, end) = (o[row] as usize, o[row + 1] as usize);
                let len = end - start;
                if len == 0 {
                    continue;
                }
                // How far to the left the elements move; negative moves to the right.
                let by = if left { n as i128 } else { -(n as i128) };
                match kind {
                    Move::Rotate => {
                        let k = by.rem_euclid(len as i128) as usize;
                        indices.extend((start + k..end).chain(start..start + k).map(|j| (0, j)));
                    }
                    Move::Shift => {
                        let k = usize::try_from(by.unsigned_abs()).unwrap_or(usize::MAX).min(len);
                        let pad = std::iter::repeat_n((1, if per_row { row } else { 0 }), k);
                        if by >= 0 {
                            indices.extend((start + k..end).map(|j| (0, j)));
                            indices.extend(pad);
                        } else {
                            indices.extend(pad);
                            indices.extend((start..end - k).map(|j| (0, j)));
                        }
                    }
                }
            }
            let values = interleave(&[values.as_ref(), filler.as_ref()], &indices)?;
            let lengths = (0..ctx.len).map(|row| (o[row + 1] - o[row]) as usize);
            result_list(ctx, values, OffsetBuffer::from_lengths(lengths))
        },
    )
    .build()
}

/// Each row's elements of `values` (rows at `offsets`) without those whose `keys` (aligned
/// with `values`) equal the previous element's: `arrayCompact`, and its lambda form with
/// the lambda's results as keys.
pub(crate) fn compact_lists(values: &ArrayRef, keys: &ArrayRef, offsets: &[i32], item: Arc<Field>) -> DfResult<ArrayRef> {
    let mut indices: Vec<u64> = Vec::new();
    let mut new_offsets: Vec<i32> = vec![0];
    if keys.data_type() == &DataType::Null {
        for w in offsets.windows(2) {
            if w[0] < w[1] {
                indices.push(w[0] as u64);
            }
            new_offsets.push(list_offset(indices.len())?);
        }
    } else {
        let rows = element_keys(keys)?;
        for w in offsets.windows(2) {
            for i in w[0] as usize..w[1] as usize {
                if i == w[0] as usize || rows.row(i) != rows.row(i - 1) {
                    indices.push(i as u64);
                }
            }
            new_offsets.push(list_offset(indices.len())?);
        }
    }
    let taken = take(values.as_ref(), &UInt64Array::from(indices), None)?;
    let taken = if taken.data_type() == item.data_type() { taken } else { cast(&taken, item.data_type())? };
    Ok(Arc::new(ListArray::try_new(item, OffsetBuffer::new(new_offsets.into()), taken, None)?))
}

fn array_compact() -> ScalarUDF {
    ScalarDef::new(
        "arrayCompact",
        Arity::exact(1),
        |ctx| match ctx.ch(0) {
            t @ ChType::Array(_) => Ok(without_low_cardinality(t)),
            t => Err(illegal(format!("The 1st and only argument for function arrayCompact must be array. Found {t} instead"))),
        },
        |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let o = list.value_offsets();
            let base = o[0] as usize;
            let values = list.values().slice(base, o[ctx.len] as usize - base);
            let offsets: Vec<i32> = o.iter().map(|x| x - o[0]).collect();
            compact_lists(&values, &values, &offsets, result_item(ctx)?)
        },
    )
    .build()
}

/// `arrayFlatten(arr)`: the elements of nested arrays at every depth, in order.
fn array_flatten() -> ScalarUDF {
    ScalarDef::new(
        "arrayFlatten",
        Arity::exact(1),
        |ctx| {
            let mut t = match ctx.ch(0) {
                ChType::Array(inner) => *inner,
                t => return Err(illegal(format!("Illegal type {t} of argument of function arrayFlatten, expected Array"))),
            };
            while let ChType::Array(inner) = t {
                t = *inner;
            }
            Ok(ChType::Array(Box::new(without_low_cardinality(t))))
        },
        |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let mut offsets: Vec<i32> = list.value_offsets().to_vec();
            let mut values = Arc::clone(list.values());
            while let DataType::List(_) = values.data_type() {
                let inner = values.as_list::<i32>().clone();
                let inner_offsets = inner.value_offsets();
                offsets = offsets.iter().map(|o| inner_offsets[*o as usize]).collect();
                values = Arc::clone(inner.values());
            }
            let base = offsets[0] as usize;
            let values = values.slice(base, offsets[offsets.len() - 1] as usize - base);
            let offsets: Vec<i32> = offsets.iter().map(|o| o - base as i32).collect();
            result_list(ctx, values, OffsetBuffer::new(offsets.into()))
        },
    )
    .build()
}

/// `arrayZip(a, b, ...)`: an array of tuples of the arrays' elements (of equal sizes);
/// without arguments, an empty `Array(Tuple())` per row, as ClickHouse.
fn array_zip() -> ScalarUDF {
    ScalarDef::new(
        "arrayZip",
        Arity::at_least(0),
        |ctx| {
            let mut elements = Vec::with_capacity(ctx.arg_count());
            for i in 0..ctx.arg_count() {
                match ctx.ch(i) {
                    ChType::Array(inner) => elements.push(((i + 1).to_string(), without_low_cardinality(*inner))),
                    t => return Err(illegal(format!("Argument {} of function arrayZip must be array. Found {t} instead", i + 1))),
                }
            }
            Ok(ChType::Array(Box::new(ChType::Tuple(elements))))
        },
        |ctx| {
            let item = result_item(ctx)?;
            let DataType::Struct(fields) = item.data_type() else {
                return Err(ch_error(ErrorCode::LOGICAL_ERROR, "arrayZip returns an array of tuples"));
            };
            if ctx.args.is_empty() {
                let empty = StructArray::new_empty_fields(0, None);
                return result_list(ctx, Arc::new(empty), OffsetBuffer::new_zeroed(ctx.len));
            }
            let arrays: Vec<ArrayRef> = (0..ctx.args.len()).map(|i| ctx.array(i)).collect::<DfResult<_>>()?;
            let lists: Vec<&ListArray> = arrays.iter().map(|a| a.as_list::<i32>()).collect();
            let first = lists[0].value_offsets();
            let mut columns = Vec::with_capacity(lists.len());
            for (k, list) in lists.iter().enumerate() {
                let o = list.value_offsets();
                let mut indices: Vec<u64> = Vec::with_capacity(list.values().len());
                for row in 0..ctx.len {
                    let (a, b) = (first[row + 1] - first[row], o[row + 1] - o[row]);
                    if a != b {
                        return Err(ch_error(
                            ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                            format!("The argument 1 and argument {} of function arrayZip have different array sizes", k + 1),
                        ));
                    }
                    indices.extend((o[row] as u64)..(o[row + 1] as u64));
                }
                let column = take(list.values().as_ref(), &UInt64Array::from(indices), None)?;
                let wanted = fields[k].data_type();
                columns.push(if column.data_type() == wanted { column } else { cast(&column, wanted)? });
            }
            let tuples = StructArray::try_new(fields.clone(), columns, None)?;
            let lengths = (0..ctx.len).map(|row| (first[row + 1] - first[row]) as usize);
            result_list(ctx, Arc::new(tuples), OffsetBuffer::from_lengths(lengths))
        },
    )
    .build()
}

/// `arrayWithConstant(n, x)`: `n` copies of `x`.
fn array_with_constant() -> ScalarUDF {
    ScalarDef::new(
        "arrayWithConstant",
        Arity::exact(2),
        |ctx| {
            if !is_numeric(ctx.dt(0)) || ctx.ch(0).is_nullable() {
                return Err(illegal(format!("Illegal type {} of argument of function arrayWithConstant, expected Integer", ctx.ch(0))));
            }
            Ok(ChType::Array(Box::new(without_low_cardinality(ctx.ch(1)))))
        },
        |ctx| {
            let counts = cast(&ctx.array(0)?, &DataType::Int64)?;
            let counts = counts.as_primitive::<Int64Type>();
            let x = ctx.array(1)?;
            let mut indices: Vec<u64> = Vec::new();
            let mut offsets: Vec<i32> = vec![0];
            for row in 0..ctx.len {
                let n = counts.value(row);
                if n < 0 {
                    return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, format!("Array size {n} cannot be negative: while executing function arrayWithConstant")));
                }
                if indices.len() as i64 + n > (1 << 30) {
                    return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "Too large array size while executing function arrayWithConstant"));
                }
                indices.extend(std::iter::repeat_n(row as u64, n as usize));
                offsets.push(list_offset(indices.len())?);
            }
            let values = take(x.as_ref(), &UInt64Array::from(indices), None)?;
            result_list(ctx, values, OffsetBuffer::new(offsets.into()))
        },
    )
    .custom_nulls()
    .build()
}

/// What running arithmetic does over each row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Running {
    CumSum,
    CumSumNonNegative,
    Difference,
}

impl Running {
    pub fn name(self) -> &'static str {
        match self {
            Running::CumSum => "arrayCumSum",
            Running::CumSumNonNegative => "arrayCumSumNonNegative",
            Running::Difference => "arrayDifference",
        }
    }

    /// The element type of the result for elements of type `element`.
    pub fn result_type(self, element: &ChType) -> DfResult<ChType> {
        let t = match (self, element) {
            (Running::Difference, ChType::UInt8 | ChType::Int8) => ChType::Int16,
            (Running::Difference, ChType::UInt16 | ChType::Int16) => ChType::Int32,
            (Running::Difference, ChType::UInt32 | ChType::Int32 | ChType::UInt64 | ChType::Int64) => ChType::Int64,
            (Running::Difference, ChType::Decimal(..)) => element.clone(),
            (_, ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64) => ChType::Int64,
            (_, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64) => ChType::UInt64,
            (_, ChType::Float32 | ChType::Float64) => ChType::Float64,
            (_, ChType::Decimal(_, s)) => ChType::Decimal(38, *s),
            _ => {
                let what = if self == Running::Difference { "process" } else { "add" };
                return Err(illegal(format!("{} cannot {what} values of type {element}", self.name())));
            }
        };
        Ok(t)
    }
}

/// The values as wrapping 64-bit signed integers (UInt64 reinterpreted, as ClickHouse's
/// arithmetic does).
fn as_i64(values: &ArrayRef) -> DfResult<Vec<i64>> {
    Ok(match values.data_type() {
        DataType::UInt64 => values.as_primitive::<UInt64Type>().values().iter().map(|v| *v as i64).collect(),
        _ => cast(values, &DataType::Int64)?.as_primitive::<Int64Type>().values().to_vec(),
    })
}

/// Per row (rows of `values` at `offsets`), the running sums or differences, as a flat
/// column of type `result` (from [`Running::result_type`]).
pub(crate) fn running_values(values: &ArrayRef, offsets: &[i32], how: Running, result: &ChType) -> DfResult<ArrayRef> {
    fn run<T: Copy>(v: &[T], offsets: &[i32], zero: T, how: Running, add: impl Fn(T, T) -> T, sub: impl Fn(T, T) -> T, clamp: impl Fn(T) -> T) -> Vec<T> {
        let mut out = Vec::with_capacity(v.len());
        for w in offsets.windows(2) {
            let mut acc = zero;
            for i in w[0] as usize..w[1] as usize {
                let x = v[i];
                out.push(match how {
                    Running::CumSum => {
                        acc = add(acc, x);
                        acc
                    }
                    Running::CumSumNonNegative => {
                        acc = clamp(add(acc, x));
                        acc
                    }
                    Running::Difference => {
                        if i == w[0] as usize {
                            zero
                        } else {
                            sub(x, v[i - 1])
                        }
                    }
                });
            }
        }
        out
    }
    let base = offsets[0] as usize;
    let values = values.slice(base, offsets[offsets.len() - 1] as usize - base);
    let offsets: Vec<i32> = offsets.iter().map(|o| o - base as i32).collect();
    Ok(match result {
        ChType::UInt64 => {
            let v = cast(&values, &DataType::UInt64)?;
            let v = v.as_primitive::<UInt64Type>().values();
            Arc::new(UInt64Array::from(run(v, &offsets, 0u64, how, u64::wrapping_add, u64::wrapping_sub, |x| x)))
        }
        ChType::Int64 | ChType::Int32 | ChType::Int16 => {
            let v = as_i64(&values)?;
            let out: ArrayRef = Arc::new(Int64Array::from(run(&v, &offsets, 0i64, how, i64::wrapping_add, i64::wrapping_sub, |x| x.max(0))));
            // Differences of narrower types fit their result type.
            if matches!(result, ChType::Int64) {
                out
            } else {
                cast(&out, &result.to_arrow())?
            }
        }
        ChType::Float64 => {
            let v = cast(&values, &DataType::Float64)?;
            let v = v.as_primitive::<Float64Type>().values();
            Arc::new(Float64Array::from(run(v, &offsets, 0f64, how, |a, b| a + b, |a, b| a - b, |x| if x < 0.0 { 0.0 } else { x })))
        }
        ChType::Decimal(p, s) => {
            let v = cast(&values, &DataType::Decimal128(38, *s as i8))?;
            let v = v.as_primitive::<Decimal128Type>().values();
            let out = Decimal128Array::from(run(v, &offsets, 0i128, how, i128::wrapping_add, i128::wrapping_sub, |x| x.max(0)));
            Arc::new(out.with_precision_and_scale(*p, *s as i8)?)
        }
        other => return Err(illegal(format!("{} cannot add values of type {other}", how.name()))),
    })
}

fn running(how: Running) -> ScalarUDF {
    ScalarDef::new(
        how.name(),
        Arity::exact(1),
        move |ctx| match ctx.ch(0) {
            ChType::Array(inner) => Ok(ChType::Array(Box::new(how.result_type(&inner)?))),
            t => Err(illegal(format!("The 1st and only argument for function {} must be array. Found {t} instead", ctx.name))),
        },
        move |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            let o = list.value_offsets();
            let values = running_values(list.values(), o, how, &element_type(&ctx.ret_ch()))?;
            let lengths = o.windows(2).map(|w| (w[1] - w[0]) as usize);
            result_list(ctx, values, OffsetBuffer::from_lengths(lengths))
        },
    )
    .build()
}

/// Whole-array Float64 reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Reduce {
    Product,
    Avg,
}

impl Reduce {
    pub fn name(self) -> &'static str {
        match self {
            Reduce::Product => "arrayProduct",
            Reduce::Avg => "arrayAvg",
        }
    }

    /// ClickHouse's check of the element type (the result is Float64).
    pub fn check(self, element: &ChType) -> DfResult<()> {
        match element {
            ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 => Ok(()),
            ChType::Float32 | ChType::Float64 | ChType::Decimal(..) => Ok(()),
            ChType::String | ChType::FixedString(_) => {
                Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Unexpected column for arraySum: {element}")))
            }
            other => Err(illegal(format!("array aggregation function cannot be performed on type {other}"))),
        }
    }
}

/// Per row, the product or mean of `values[offsets[row]..offsets[row + 1]]` (0 for none).
/// Integers are multiplied or summed in 64 bits, wrapping, before becoming Float64, as
/// ClickHouse accumulates them; other types in Float64.
pub(crate) fn reduce_values(values: &ArrayRef, offsets: &[i32], how: Reduce) -> DfResult<ArrayRef> {
    let rows = offsets.windows(2).map(|w| w[0] as usize..w[1] as usize);
    let finish = |acc: f64, n: usize| match how {
        Reduce::Product => acc,
        Reduce::Avg => acc / n as f64,
    };
    let out: Vec<f64> = match values.data_type() {
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
            let v = cast(values, &DataType::UInt64)?;
            let v = v.as_primitive::<UInt64Type>().values();
            rows.map(|r| {
                let n = r.len();
                if n == 0 {
                    return 0.0;
                }
                let acc = match how {
                    Reduce::Product => v[r].iter().fold(1u64, |a, x| a.wrapping_mul(*x)),
                    Reduce::Avg => v[r].iter().fold(0u64, |a, x| a.wrapping_add(*x)),
                };
                finish(acc as f64, n)
            })
            .collect()
        }
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            let v = as_i64(values)?;
            rows.map(|r| {
                let n = r.len();
                if n == 0 {
                    return 0.0;
                }
                let acc = match how {
                    Reduce::Product => v[r].iter().fold(1i64, |a, x| a.wrapping_mul(*x)),
                    Reduce::Avg => v[r].iter().fold(0i64, |a, x| a.wrapping_add(*x)),
                };
                finish(acc as f64, n)
            })
            .collect()
        }
        // Decimals are summed exactly and divided in their own scale (ClickHouse's mean of
        // Decimal(18, 2) values 1, 2, 4 is 2.33), then made Float64.
        DataType::Decimal128(_, scale) | DataType::Decimal256(_, scale) if how == Reduce::Avg => {
            let scale = *scale;
            let v = cast(values, &DataType::Decimal128(38, scale))?;
            let v = v.as_primitive::<Decimal128Type>().values();
            let unit = 10f64.powi(i32::from(scale));
            rows.map(|r| {
                let n = r.len();
                if n == 0 {
                    return 0.0;
                }
                let sum = v[r].iter().fold(0i128, |a, x| a.wrapping_add(*x));
                (sum / n as i128) as f64 / unit
            })
            .collect()
        }
        _ => {
            let v = if values.data_type() == &DataType::Null { new_null_array(&DataType::Float64, values.len()) } else { cast(values, &DataType::Float64)? };
            let v = v.as_primitive::<Float64Type>().values();
            rows.map(|r| {
                let n = r.len();
                if n == 0 {
                    return 0.0;
                }
                let acc = match how {
                    Reduce::Product => v[r].iter().product(),
                    Reduce::Avg => v[r].iter().fold(0.0, |acc, x| acc + x),
                };
                finish(acc, n)
            })
            .collect()
        }
    };
    Ok(Arc::new(Float64Array::from(out)))
}

fn reduce(how: Reduce) -> ScalarUDF {
    ScalarDef::new(
        how.name(),
        Arity::exact(1),
        move |ctx| match ctx.ch(0) {
            ChType::Array(inner) => {
                how.check(&inner)?;
                Ok(ChType::Float64)
            }
            t => Err(illegal(format!("The 1st and only argument for function {} must be array. Found {t} instead", ctx.name))),
        },
        move |ctx| {
            let a = ctx.array(0)?;
            let list = a.as_list::<i32>();
            reduce_values(list.values(), list.value_offsets(), how)
        },
    )
    .build()
}

/// The result type of `arrayDotProduct` of elements `a` and `b`: the type of their
/// product (Float32 only when both are).
fn dot_type(a: &ChType, b: &ChType) -> DfResult<ChType> {
    for t in [a, b] {
        let numeric = matches!(
            t,
            ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64
        );
        if !numeric {
            return Err(illegal(format!("Function arrayDotProduct cannot process values of type {t}")));
        }
    }
    let float = |t: &ChType| matches!(t, ChType::Float32 | ChType::Float64);
    if matches!((a, b), (ChType::Float32, ChType::Float32)) {
        return Ok(ChType::Float32);
    }
    if float(a) || float(b) {
        return Ok(ChType::Float64);
    }
    let width = |t: &ChType| t.to_arrow().primitive_width().unwrap_or(8);
    let signed = |t: &ChType| matches!(t, ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64);
    let w = (width(a).max(width(b)) * 2).min(8);
    Ok(ChType::from_arrow(&crate::args::int_type(signed(a) || signed(b), w), false))
}

fn array_dot_product() -> ScalarUDF {
    ScalarDef::new(
        "arrayDotProduct",
        Arity::exact(2),
        |ctx| {
            let mut elements = Vec::with_capacity(2);
            for i in 0..2 {
                match ctx.ch(i) {
                    ChType::Array(inner) => elements.push(*inner),
                    _ => return Err(illegal("Arguments for function arrayDotProduct must be of type Array".to_string())),
                }
            }
            dot_type(&elements[0], &elements[1])
        },
        |ctx| {
            let arrays = [ctx.array(0)?, ctx.array(1)?];
            let (la, lb) = (arrays[0].as_list::<i32>(), arrays[1].as_list::<i32>());
            let (oa, ob) = (la.value_offsets(), lb.value_offsets());
            for row in 0..ctx.len {
                if oa[row + 1] - oa[row] != ob[row + 1] - ob[row] {
                    return Err(ch_error(ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH, "Array arguments for function arrayDotProduct must have equal sizes"));
                }
            }
            let pairs = |row: usize| (oa[row] as usize..oa[row + 1] as usize).zip(ob[row] as usize..ob[row + 1] as usize);
            let result = ctx.ret_ch();
            Ok(match result.base() {
                ChType::Float32 => {
                    let (a, b) = (la.values().as_primitive::<datafusion::arrow::datatypes::Float32Type>(), lb.values().as_primitive::<datafusion::arrow::datatypes::Float32Type>());
                    Arc::new(Float32Array::from_iter_values((0..ctx.len).map(|row| pairs(row).map(|(i, j)| a.value(i) * b.value(j)).fold(0.0f32, |acc, x| acc + x))))
                }
                ChType::Float64 => {
                    let (a, b) = (cast(la.values(), &DataType::Float64)?, cast(lb.values(), &DataType::Float64)?);
                    let (a, b) = (a.as_primitive::<Float64Type>(), b.as_primitive::<Float64Type>());
                    Arc::new(Float64Array::from_iter_values((0..ctx.len).map(|row| pairs(row).map(|(i, j)| a.value(i) * b.value(j)).fold(0.0, |acc, x| acc + x))))
                }
                t => {
                    // Integer products and sums wrap in the result type, as in ClickHouse.
                    let (a, b) = (as_i64(la.values())?, as_i64(lb.values())?);
                    let sums: Vec<i64> = (0..ctx.len).map(|row| pairs(row).fold(0i64, |acc, (i, j)| acc.wrapping_add(a[i].wrapping_mul(b[j])))).collect();
                    let out: ArrayRef = match t {
                        ChType::UInt16 => Arc::new(UInt16Array::from_iter_values(sums.iter().map(|v| *v as u16))),
                        ChType::UInt32 => Arc::new(UInt32Array::from_iter_values(sums.iter().map(|v| *v as u32))),
                        ChType::UInt64 => Arc::new(UInt64Array::from_iter_values(sums.iter().map(|v| *v as u64))),
                        ChType::Int16 => Arc::new(Int16Array::from_iter_values(sums.iter().map(|v| *v as i16))),
                        ChType::Int32 => Arc::new(Int32Array::from_iter_values(sums.iter().map(|v| *v as i32))),
                        ChType::UInt8 => Arc::new(UInt8Array::from_iter_values(sums.iter().map(|v| *v as u8))),
                        ChType::Int8 => Arc::new(Int8Array::from_iter_values(sums.iter().map(|v| *v as i8))),
                        _ => Arc::new(Int64Array::from(sums)),
                    };
                    out
                }
            })
        },
    )
    .build()
}

/// `arraySplit`, `arrayFill`, ... without a lambda: ClickHouse's error (they need one).
fn lambda_only(name: &'static str) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(0),
        |ctx| {
            Err(ch_error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Function {} needs at least 2 arguments, passed {}", ctx.name, ctx.arg_count()),
            ))
        },
        |ctx| Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} without a lambda", ctx.name))),
    )
    .custom_nulls()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        push("arrayPushBack", true),
        push("arrayPushFront", false),
        pop("arrayPopBack", true),
        pop("arrayPopFront", false),
        array_resize(),
        array_move("arrayRotateLeft", Move::Rotate, true),
        array_move("arrayRotateRight", Move::Rotate, false),
        array_move("arrayShiftLeft", Move::Shift, true),
        array_move("arrayShiftRight", Move::Shift, false),
        array_compact(),
        array_flatten(),
        array_zip(),
        array_with_constant(),
        running(Running::CumSum),
        running(Running::CumSumNonNegative),
        running(Running::Difference),
        reduce(Reduce::Product),
        reduce(Reduce::Avg),
        array_dot_product(),
        lambda_only("arraySplit"),
        lambda_only("arrayReverseSplit"),
        lambda_only("arrayFill"),
        lambda_only("arrayReverseFill"),
    ]
}
