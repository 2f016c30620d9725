//! Bit functions beyond the operators of [`crate::bits`]: `bitRotateLeft`,
//! `bitRotateRight`, `bitSlice`, `bitTestAll`, `bitTestAny`, `bitPositionsToArray`,
//! `bitmaskToArray`, `bitmaskToList`, `byteSwap`, `bitHammingDistance`.
//!
//! Each works in the bit width of its argument's own type, as ClickHouse does: a rotation
//! of a UInt8 wraps within 8 bits, `bitmaskToArray(toInt8(-1))` ends with -128. The
//! rotations type like `bitAnd` (the wider operand, signed if either is) and refuse wide
//! integers with NOT_IMPLEMENTED; the others take them, except `bitTestAll/Any` and
//! `bitHammingDistance`, which ClickHouse refuses with ILLEGAL_COLUMN.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, ListArray, PrimitiveArray, StringArray, UInt64Array, UInt8Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{i256, DataType, Decimal256Type, FieldRef, Int64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::wide::WideInt;
use granary_types::ChType;

use crate::args::{ch_error, int_type, is_float, is_integer, is_signed_int, Arity, DfResult};
use crate::arithmetic::{int_shape, is_wide, words_of, words_to};
use crate::bits::{bits_of, is_bit_operand, narrowed_to, width_of};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::string::text_bytes;
use crate::text::ByteStrings;

fn illegal_pair(ctx: &RetCtx) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal types {} and {} of arguments of function {}", ctx.ch(0), ctx.ch(1), ctx.name))
}

/// The item field of the list type a function returns.
pub(crate) fn list_item(ctx: &ExecCtx) -> DfResult<FieldRef> {
    match ctx.ret_type() {
        DataType::List(item) => Ok(Arc::clone(item)),
        other => Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns {other}, not a list", ctx.name))),
    }
}

/// Lists of `values` split at `offsets` (one more than the rows).
pub(crate) fn lists_of(item: FieldRef, offsets: Vec<i32>, values: ArrayRef) -> DfResult<ArrayRef> {
    Ok(Arc::new(ListArray::try_new(item, OffsetBuffer::new(offsets.into()), values, None)?))
}

fn list_offset(n: usize) -> DfResult<i32> {
    i32::try_from(n).map_err(|_| ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "Too many array elements in one block"))
}

/// The value's bits in its own width, lowest first, for narrow and wide integers alike.
struct OwnBits {
    narrow: Option<PrimitiveArray<Int64Type>>,
    wide: Option<PrimitiveArray<Decimal256Type>>,
    bits: u32,
}

impl OwnBits {
    fn of(ctx: &ExecCtx, i: usize) -> DfResult<Self> {
        if is_wide(&ctx.ch(i)) {
            let (width, _) = int_shape(&ctx.ch(i)).unwrap_or((32, true));
            Ok(OwnBits { narrow: None, wide: Some(words_of(ctx, i)?), bits: 8 * width as u32 })
        } else {
            Ok(OwnBits { narrow: Some(bits_of(ctx, i)?), wide: None, bits: 8 * width_of(ctx.dt(i)) as u32 })
        }
    }

    /// The positions of the set bits of row `row`, lowest first.
    fn positions(&self, row: usize, mut each: impl FnMut(u32)) {
        if let Some(narrow) = &self.narrow {
            let v = narrow.value(row) as u64;
            (0..self.bits).filter(|b| (v >> b) & 1 == 1).for_each(&mut each);
        } else if let Some(wide) = &self.wide {
            let bytes = wide.value(row).to_le_bytes();
            (0..self.bits).filter(|b| (bytes[(b / 8) as usize] >> (b % 8)) & 1 == 1).for_each(&mut each);
        }
    }
}

fn bit_rotate(name: &'static str, left: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            let (a, b) = (ctx.dt(0), ctx.dt(1));
            if is_wide(&ctx.ch(0)) || is_wide(&ctx.ch(1)) {
                return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "Bit rotate is not implemented for big integers"));
            }
            if !is_bit_operand(a) || !is_bit_operand(b) {
                return Err(illegal_pair(ctx));
            }
            let signed = is_signed_int(a) || is_signed_int(b);
            Ok(ChType::from_arrow(&int_type(signed, width_of(a).max(width_of(b))), false))
        },
        move |ctx| {
            let target = ctx.ret_ch().strip_nullable().to_arrow();
            let bits = 8 * width_of(&target) as i64;
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let (a, n) = (bits_of(ctx, 0)?, bits_of(ctx, 1)?);
            let out: PrimitiveArray<Int64Type> = datafusion::arrow::compute::binary(&a, &n, |x, n| {
                // A count is taken modulo the width (a negative one turns the other way),
                // which is what rotating a `bits`-wide value means.
                let n = n.rem_euclid(bits) as u32;
                let n = if left { n } else { (bits as u32 - n) % bits as u32 };
                let x = (x as u64) & mask;
                let rotated = if n == 0 { x } else { ((x << n) | (x >> (bits as u32 - n))) & mask };
                rotated as i64
            })?;
            narrowed_to(out, &target)
        },
    )
    .build()
}

/// `bitSlice(s, offset[, length])`: bits of a string counted from 1 at the highest bit of
/// its first byte, chosen like `substring` chooses bytes (a negative offset counts from
/// the end, a negative length stops that many bits before the end), padded with zero bits
/// to whole bytes.
fn bit_slice() -> ScalarUDF {
    ScalarDef::new(
        "bitSlice",
        Arity::range(2, 3),
        |ctx| {
            if !matches!(ctx.ch(0).base(), ChType::String | ChType::FixedString(_)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 's' to function 'bitSlice'. Expected: String, got: {}", ctx.ch(0)),
                ));
            }
            for (i, what) in [(1, "offset"), (2, "length")].into_iter().take(ctx.arg_count() - 1) {
                if !is_integer(ctx.dt(i)) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("A value of illegal type was provided as {} argument '{what}' to function 'bitSlice'. Expected: Int, got: {}", crate::args::ordinal(i + 1), ctx.ch(i)),
                    ));
                }
            }
            Ok(ChType::String)
        },
        |ctx| {
            let strings = text_bytes(&ctx.array(0)?);
            let offsets = bits_of(ctx, 1)?;
            let lengths = if ctx.args.len() == 3 { Some(bits_of(ctx, 2)?) } else { None };
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                let bytes = strings.value(row);
                let total = 8 * bytes.len() as i128;
                let offset = offsets.value(row) as i128;
                let start = match offset {
                    0 => total,
                    o if o > 0 => o - 1,
                    o => total + o,
                };
                let end = match lengths.as_ref().map(|l| l.value(row) as i128) {
                    None => total,
                    Some(l) if l >= 0 => start + l,
                    Some(l) => total + l,
                };
                let (start, end) = (start.max(0), end.min(total));
                if offset != 0 && start < end {
                    let (start, end) = (start as usize, end as usize);
                    let mut byte = 0u8;
                    for (k, bit) in (start..end).enumerate() {
                        let set = (bytes[bit / 8] >> (7 - bit % 8)) & 1;
                        byte |= set << (7 - k % 8);
                        if k % 8 == 7 {
                            out.push_byte(byte);
                            byte = 0;
                        }
                    }
                    if (end - start) % 8 != 0 {
                        out.push_byte(byte);
                    }
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `bitTestAll(x, i, ...)` / `bitTestAny(x, i, ...)`: whether all (any) of bits `i` of
/// `x` are set; a position past `x`'s width is PARAMETER_OUT_OF_BOUND.
fn bit_test_many(name: &'static str, all: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::at_least(0),
        |ctx| {
            if ctx.arg_count() < 2 {
                return Err(ch_error(
                    ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
                    format!("Number of arguments for function {} doesn't match: passed {}, should be at least 2", ctx.name, ctx.arg_count()),
                ));
            }
            if is_wide(&ctx.ch(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Illegal column {} of argument of function {}", ctx.ch(0), ctx.name)));
            }
            if !is_bit_operand(ctx.dt(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of first argument of function {}", ctx.ch(0), ctx.name)));
            }
            for i in 1..ctx.arg_count() {
                let position = ctx.literal_ch(i);
                if !matches!(position.base(), ChType::Bool | ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64) {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of {i} argument of function {}", ctx.ch(i), ctx.name)));
                }
            }
            Ok(ChType::UInt8)
        },
        move |ctx| {
            let width = 8 * width_of(ctx.dt(0)) as u64;
            let x = bits_of(ctx, 0)?;
            let positions = (1..ctx.args.len()).map(|i| bits_of(ctx, i)).collect::<DfResult<Vec<_>>>()?;
            let mut out = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let v = x.value(row) as u64;
                let mut result = all;
                for p in &positions {
                    let p = p.value(row) as u64;
                    if p >= width {
                        return Err(ch_error(ErrorCode::PARAMETER_OUT_OF_BOUND, format!("The bit position argument {p} is out of bounds for number")));
                    }
                    let set = (v >> p) & 1 == 1;
                    result = if all { result && set } else { result || set };
                }
                out.push(u8::from(result));
            }
            Ok(Arc::new(UInt8Array::from(out)))
        },
    )
    .build()
}

/// The check shared by the functions that take any integer (wide ones included) or Bool.
fn integer_argument(ctx: &RetCtx) -> DfResult<()> {
    if is_bit_operand(ctx.dt(0)) || is_wide(&ctx.ch(0)) {
        Ok(())
    } else {
        Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function {}", ctx.ch(0), ctx.name)))
    }
}

/// `bitPositionsToArray(x)`: the positions of `x`'s set bits, lowest first.
fn bit_positions_to_array() -> ScalarUDF {
    ScalarDef::new(
        "bitPositionsToArray",
        Arity::exact(1),
        |ctx| {
            if integer_argument(ctx).is_err() {
                // ClickHouse's message has the name and the type the other way round.
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function {}", ctx.name, ctx.ch(0))));
            }
            Ok(ChType::Array(Box::new(ChType::UInt64)))
        },
        |ctx| {
            let bits = OwnBits::of(ctx, 0)?;
            let mut offsets = vec![0i32];
            let mut values: Vec<u64> = Vec::new();
            for row in 0..ctx.len {
                bits.positions(row, |b| values.push(u64::from(b)));
                offsets.push(list_offset(values.len())?);
            }
            lists_of(list_item(ctx)?, offsets, Arc::new(UInt64Array::from(values)))
        },
    )
    .build()
}

/// The powers of two that make up each row of argument 0, in its own type, as 256-bit
/// words (the top bit of a signed type is its negative power), with the row offsets.
fn powers_of_two(ctx: &ExecCtx) -> DfResult<(Vec<i32>, Vec<i256>)> {
    let bits = OwnBits::of(ctx, 0)?;
    let signed = int_shape(&ctx.ch(0)).is_some_and(|(_, signed)| signed);
    let mut offsets = vec![0i32];
    let mut values: Vec<i256> = Vec::new();
    for row in 0..ctx.len {
        bits.positions(row, |b| {
            let mut bytes = [0u8; 32];
            bytes[(b / 8) as usize] = 1 << (b % 8);
            let power = i256::from_le_bytes(bytes);
            values.push(if signed && b + 1 == bits.bits { power.wrapping_neg() } else { power });
        });
        offsets.push(list_offset(values.len())?);
    }
    Ok((offsets, values))
}

/// `bitmaskToArray(x)`: the powers of two that sum to `x`, ascending by bit, in `x`'s type.
fn bitmask_to_array() -> ScalarUDF {
    ScalarDef::new(
        "bitmaskToArray",
        Arity::exact(1),
        |ctx| {
            integer_argument(ctx)?;
            Ok(ChType::Array(Box::new(ctx.ch(0).base().clone())))
        },
        |ctx| {
            let (offsets, values) = powers_of_two(ctx)?;
            let item = list_item(ctx)?;
            let element = ctx.ch(0).base().clone();
            let words = PrimitiveArray::<Decimal256Type>::from(values);
            let values = if is_wide(&element) {
                words_to(words, &element, ctx)?
            } else {
                let narrow: PrimitiveArray<Int64Type> = words.unary(|w| w.as_i128() as i64);
                narrowed_to(narrow, item.data_type())?
            };
            lists_of(item, offsets, values)
        },
    )
    .build()
}

/// `bitmaskToList(x)`: `bitmaskToArray(x)` as comma-separated text.
fn bitmask_to_list() -> ScalarUDF {
    ScalarDef::new(
        "bitmaskToList",
        Arity::exact(1),
        |ctx| {
            integer_argument(ctx)?;
            Ok(ChType::String)
        },
        |ctx| {
            let (offsets, values) = powers_of_two(ctx)?;
            let texts: StringArray = offsets
                .windows(2)
                .map(|w| Some(values[w[0] as usize..w[1] as usize].iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")))
                .collect();
            Ok(Arc::new(texts))
        },
    )
    .build()
}

/// `byteSwap(x)`: the bytes of `x` in reverse order, in `x`'s type (Bool as UInt8).
fn byte_swap() -> ScalarUDF {
    ScalarDef::new(
        "byteSwap",
        Arity::exact(1),
        |ctx| {
            if is_float(ctx.dt(0)) {
                let name = if ctx.dt(0) == &DataType::Float32 { "float" } else { "double" };
                return Err(ch_error(ErrorCode::NOT_IMPLEMENTED, format!("byteSwap is not implemented for {name} datatype")));
            }
            integer_argument(ctx)?;
            if ctx.dt(0) == &DataType::Boolean {
                return Ok(ChType::UInt8);
            }
            Ok(ctx.ch(0).base().clone())
        },
        |ctx| {
            let ret = ctx.ret_ch().strip_nullable().clone();
            if let Some(kind) = WideInt::of(&ret) {
                let width = kind.byte_width();
                let words = words_of(ctx, 0)?.unary(|w| {
                    let bytes = w.to_le_bytes();
                    let mut swapped = [0u8; 32];
                    for k in 0..width {
                        swapped[k] = bytes[width - 1 - k];
                    }
                    i256::from_le_bytes(swapped)
                });
                return words_to(words, &ret, ctx);
            }
            let target = ret.to_arrow();
            let shift = 64 - 8 * width_of(&target) as u32;
            let swapped = bits_of(ctx, 0)?.unary(|v| ((v as u64).swap_bytes() >> shift) as i64);
            narrowed_to(swapped, &target)
        },
    )
    .build()
}

/// `bitHammingDistance(a, b)`: the number of differing bits of two integers (both taken
/// as 64 bits, sign-extended; UInt8) or two strings (the shorter padded with zero bytes;
/// UInt64).
fn bit_hamming_distance() -> ScalarUDF {
    ScalarDef::new(
        "bitHammingDistance",
        Arity::exact(2),
        |ctx| {
            let (a, b) = (ctx.ch(0).base().clone(), ctx.ch(1).base().clone());
            if matches!(a, ChType::String) && matches!(b, ChType::String) {
                return Ok(ChType::UInt64);
            }
            if is_wide(&a) || is_wide(&b) {
                return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Unsupported data type combination in function '{}'", ctx.name)));
            }
            let number = |dt: &DataType| is_bit_operand(dt) || is_float(dt);
            if !number(ctx.dt(0)) || !number(ctx.dt(1)) {
                return Err(illegal_pair(ctx));
            }
            Ok(ChType::UInt8)
        },
        |ctx| {
            if ctx.ret_ch().strip_nullable() == &ChType::UInt64 {
                let (a, b) = (text_bytes(&ctx.array(0)?), text_bytes(&ctx.array(1)?));
                let out: UInt64Array = (0..ctx.len)
                    .map(|row| {
                        let (x, y) = (a.value(row), b.value(row));
                        let (long, short) = if x.len() >= y.len() { (x, y) } else { (y, x) };
                        let common: u64 = short.iter().zip(long).map(|(p, q)| u64::from((p ^ q).count_ones())).sum();
                        common + long[short.len()..].iter().map(|p| u64::from(p.count_ones())).sum::<u64>()
                    })
                    .collect();
                return Ok(Arc::new(out));
            }
            let (a, b) = (bits_of(ctx, 0)?, bits_of(ctx, 1)?);
            let out: UInt8Array = datafusion::arrow::compute::binary(&a, &b, |x, y| (x ^ y).count_ones() as u8)?;
            Ok(Arc::new(out))
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        bit_rotate("bitRotateLeft", true),
        bit_rotate("bitRotateRight", false),
        bit_slice(),
        bit_test_many("bitTestAll", true),
        bit_test_many("bitTestAny", false),
        bit_positions_to_array(),
        bitmask_to_array(),
        bitmask_to_list(),
        byte_swap(),
        bit_hamming_distance(),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::datatypes::Field;

    #[test]
    fn list_item_fields_name_their_items() {
        let item: FieldRef = Arc::new(Field::new("item", DataType::UInt64, true));
        let lists = lists_of(Arc::clone(&item), vec![0, 2, 2], Arc::new(UInt64Array::from(vec![1, 2]))).unwrap();
        assert_eq!(lists.len(), 2);
        assert_eq!(lists.as_list::<i32>().value_length(1), 0);
    }
}
