//! Byte encodings: `base64Encode`, `base64Decode`, `tryBase64Decode`, `unhex`, `char`
//! (`hex` lives with the string functions).
//!
//! Decoding follows ClickHouse exactly: base64 ignores ASCII whitespace (space, tab,
//! CR, LF, form feed), needs whole 4-character groups with `=` padding only at the end,
//! and accepts non-zero bits after the last byte; `unhex` reads a leading odd digit as a
//! byte of its own and maps a non-hex character to 0xFF before combining digits as
//! `high * 16 + low` (so `unhex('zz')` is 0xEF, as in ClickHouse).

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{
    DataType, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type,
    UInt8Type,
};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_float, is_integer, Arity, DfResult};
use crate::func::ScalarDef;
use crate::string::{require_text, text_bytes};
use crate::text::ByteStrings;

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode_into(bytes: &[u8], out: &mut ByteStrings) {
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (k, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if k <= chunk.len() {
                out.push_byte(BASE64[((n >> shift) & 63) as usize]);
            } else {
                out.push_byte(b'=');
            }
        }
    }
}

fn base64_digit(c: u8) -> Option<u32> {
    Some(u32::from(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    }))
}

/// Decodes base64 text into `out` (appending to the current value); `false` when the
/// text is not valid base64, in which case `out` may hold part of it.
fn base64_decode_into(text: &[u8], out: &mut ByteStrings) -> bool {
    let symbols: Vec<u8> = text.iter().copied().filter(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0C)).collect();
    if !symbols.len().is_multiple_of(4) {
        return false;
    }
    let groups = symbols.len() / 4;
    for (g, group) in symbols.chunks(4).enumerate() {
        let padding = group.iter().rev().take_while(|c| **c == b'=').count();
        let last = g + 1 == groups;
        if padding > 2 || (padding > 0 && !last) {
            return false;
        }
        let mut n = 0u32;
        for (k, c) in group.iter().enumerate() {
            let digit = if k >= 4 - padding {
                0
            } else {
                match base64_digit(*c) {
                    Some(d) => d,
                    None => return false,
                }
            };
            n = (n << 6) | digit;
        }
        let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        for byte in &decoded[..3 - padding] {
            out.push_byte(*byte);
        }
    }
    true
}

fn base64_encode() -> ScalarUDF {
    ScalarDef::new(
        "base64Encode",
        Arity::exact(1),
        |ctx| {
            require_text(ctx, 0)?;
            Ok(ChType::String)
        },
        |ctx| {
            let input = text_bytes(&ctx.array(0)?);
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                base64_encode_into(input.value(row), &mut out);
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `base64Decode` (`fail`: invalid input is an error) and `tryBase64Decode` (it gives '').
fn base64_decode(name: &'static str, fail: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            require_text(ctx, 0)?;
            Ok(ChType::String)
        },
        move |ctx| {
            let input = ctx.array(0)?;
            let valid = input.logical_nulls();
            let text = text_bytes(&input);
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                let before = out.current_len();
                if !base64_decode_into(text.value(row), &mut out) {
                    let is_null = valid.as_ref().is_some_and(|v| v.is_null(row));
                    if fail && !is_null {
                        let shown = String::from_utf8_lossy(text.value(row)).into_owned();
                        return Err(ch_error(ErrorCode::INCORRECT_DATA, format!("Invalid {} value ({shown}), cannot be decoded", ctx.name)));
                    }
                    // Drop what was decoded before the error: the value is ''.
                    out.truncate_current(before);
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

fn hex_digit(c: u8) -> u32 {
    match c {
        b'0'..=b'9' => u32::from(c - b'0'),
        b'a'..=b'f' => u32::from(c - b'a' + 10),
        b'A'..=b'F' => u32::from(c - b'A' + 10),
        _ => 0xFF,
    }
}

fn unhex() -> ScalarUDF {
    ScalarDef::new(
        "unhex",
        Arity::exact(1),
        |ctx| {
            require_text(ctx, 0)?;
            Ok(ChType::String)
        },
        |ctx| {
            let input = text_bytes(&ctx.array(0)?);
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                let digits = input.value(row);
                let mut rest = digits;
                if digits.len() % 2 == 1 {
                    out.push_byte(hex_digit(digits[0]) as u8);
                    rest = &digits[1..];
                }
                for pair in rest.chunks_exact(2) {
                    out.push_byte(((hex_digit(pair[0]) * 16 + hex_digit(pair[1])) & 0xFF) as u8);
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// A float as ClickHouse's `char` takes it: truncated toward zero into 64 bits (a value
/// outside them, or NaN, counts as 0), then its low byte.
fn float_byte(v: f64) -> u8 {
    if v.is_finite() && v > -9.223_372_036_854_776e18 && v < 9.223_372_036_854_776e18 {
        (v.trunc() as i64) as u8
    } else {
        0
    }
}

/// `char(n, ...)`: one byte per argument, each the number modulo 256.
fn char_fn() -> ScalarUDF {
    ScalarDef::new(
        "char",
        Arity::at_least(0),
        |ctx| {
            if ctx.arg_count() == 0 {
                return Err(ch_error(
                    ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
                    "Number of arguments for function char can't be 0, should be at least 1",
                ));
            }
            for i in 0..ctx.arg_count() {
                if !(is_integer(ctx.dt(i)) || is_float(ctx.dt(i))) {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Illegal type {} of argument of function char, must be Int, UInt or Float number", ctx.ch(i)),
                    ));
                }
            }
            Ok(ChType::String)
        },
        |ctx| {
            let columns: Vec<ArrayRef> = (0..ctx.args.len()).map(|i| ctx.array(i)).collect::<DfResult<_>>()?;
            let mut bytes: Vec<Vec<u8>> = Vec::with_capacity(columns.len());
            for (i, c) in columns.iter().enumerate() {
                macro_rules! ints {
                    ($t:ty) => {
                        c.as_primitive::<$t>().values().iter().map(|v| *v as u8).collect()
                    };
                }
                bytes.push(match c.data_type() {
                    DataType::Int8 => ints!(Int8Type),
                    DataType::Int16 => ints!(Int16Type),
                    DataType::Int32 => ints!(Int32Type),
                    DataType::Int64 => ints!(Int64Type),
                    DataType::UInt8 => ints!(UInt8Type),
                    DataType::UInt16 => ints!(UInt16Type),
                    DataType::UInt32 => ints!(UInt32Type),
                    DataType::UInt64 => ints!(UInt64Type),
                    DataType::Float32 => c.as_primitive::<Float32Type>().values().iter().map(|v| float_byte(f64::from(*v))).collect(),
                    DataType::Float64 => c.as_primitive::<Float64Type>().values().iter().map(|v| float_byte(*v)).collect(),
                    _ => return Err(illegal_type(ctx.name, i, &ctx.fields[i])),
                });
            }
            let mut out = ByteStrings::with_capacity(ctx.len, ctx.len * columns.len());
            for row in 0..ctx.len {
                for column in &bytes {
                    out.push_byte(column[row]);
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![base64_encode(), base64_decode("base64Decode", true), base64_decode("tryBase64Decode", false), unhex(), char_fn()]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn decode(text: &str) -> Option<Vec<u8>> {
        let mut out = ByteStrings::with_capacity(1, 0);
        if !base64_decode_into(text.as_bytes(), &mut out) {
            return None;
        }
        out.finish_value().unwrap();
        let array = out.finish(None).unwrap();
        Some(array.as_string::<i32>().value(0).as_bytes().to_vec())
    }

    #[test]
    fn base64_rules_match_clickhouse() {
        assert_eq!(decode("YWJj").unwrap(), b"abc");
        assert_eq!(decode("YQ==").unwrap(), b"a");
        assert_eq!(decode("YR==").unwrap(), b"a");
        assert_eq!(decode(" YW Jj\n").unwrap(), b"abc");
        assert_eq!(decode("YQ= =").unwrap(), b"a");
        assert_eq!(decode("").unwrap(), b"");
        for bad in ["YQ", "YWJ", "Y", "YQ=", "Y===", "====", "YQ==YQ==", "YW=j", "!!", "YQ\x0b=="] {
            assert!(decode(bad).is_none(), "{bad}");
        }
    }
}
