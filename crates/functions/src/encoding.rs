//! Byte encodings: `base64Encode`, `base64Decode`, `tryBase64Decode`, `base32Encode`,
//! `base32Decode`, `tryBase32Decode`, `base58Encode`, `base58Decode`, `tryBase58Decode`,
//! `unhex`, `unbin`, `char` (`hex` and `bin` live with the string functions).
//!
//! Decoding follows ClickHouse exactly: base64 ignores ASCII whitespace (space, tab,
//! CR, LF, form feed), needs whole 4-character groups with `=` padding only at the end,
//! and accepts non-zero bits after the last byte; `unhex` reads a leading odd digit as a
//! byte of its own and maps a non-hex character to 0xFF before combining digits as
//! `high * 16 + low` (so `unhex('zz')` is 0xEF, as in ClickHouse); `unbin` reads every
//! character other than `0` as a one bit and drops a leading partial byte that is zero.
//! Base32 is RFC 4648's alphabet (lowercase letters read as capitals), whole 8-character
//! groups with 1, 3, 4 or 6 `=` at the end and zero bits after the last byte; base58 is
//! Bitcoin's alphabet, leading zero bytes written as `1`.

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

const BASE64_URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64_encode_into(bytes: &[u8], out: &mut ByteStrings) {
    base64_encode_with(bytes, BASE64, true, out);
}

fn base64_encode_with(bytes: &[u8], alphabet: &[u8; 64], pad: bool, out: &mut ByteStrings) {
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (k, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if k <= chunk.len() {
                out.push_byte(alphabet[((n >> shift) & 63) as usize]);
            } else if pad {
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

/// Base64 with the URL alphabet (`-`, `_`) and no padding.
fn base64_url_encode_into(bytes: &[u8], out: &mut ByteStrings) {
    base64_encode_with(bytes, BASE64_URL, false, out);
}

/// URL-alphabet base64, its padding optional: read as ClickHouse does, by turning it
/// into standard base64 first.
fn base64_url_decode_into(text: &[u8], out: &mut ByteStrings) -> bool {
    let mut standard: Vec<u8> = text
        .iter()
        .map(|c| match c {
            b'-' => b'+',
            b'_' => b'/',
            other => *other,
        })
        .collect();
    match standard.len() % 4 {
        2 => standard.extend(b"=="),
        3 => standard.push(b'='),
        _ => {}
    }
    base64_decode_into(&standard, out)
}

/// Appends the encoding of one value; all encodings take any bytes.
type EncodeFn = fn(&[u8], &mut ByteStrings);
/// Appends the decoding of one value, `false` when the text is not valid.
type DecodeFn = fn(&[u8], &mut ByteStrings) -> bool;

fn encode_function(name: &'static str, encode: EncodeFn) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            require_text(ctx, 0)?;
            Ok(ChType::String)
        },
        move |ctx| {
            let input = text_bytes(&ctx.array(0)?);
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                encode(input.value(row), &mut out);
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `base64Decode` (`fail`: invalid input is an error) and `tryBase64Decode` (it gives '').
fn base64_decode(name: &'static str, fail: bool) -> ScalarUDF {
    decode_function(name, fail, base64_decode_into)
}

/// A decoding whose invalid input fails the query (`fail`) or gives '' (the `try` forms).
fn decode_function(name: &'static str, fail: bool, decode: DecodeFn) -> ScalarUDF {
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
                if !decode(text.value(row), &mut out) {
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

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

fn base32_encode_into(bytes: &[u8], out: &mut ByteStrings) {
    let mut buffer = 0u32;
    let mut bits = 0u32;
    let mut written = 0usize;
    for byte in bytes {
        buffer = (buffer << 8) | u32::from(*byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push_byte(BASE32[((buffer >> bits) & 31) as usize]);
            written += 1;
        }
    }
    if bits > 0 {
        out.push_byte(BASE32[((buffer << (5 - bits)) & 31) as usize]);
        written += 1;
    }
    while !written.is_multiple_of(8) {
        out.push_byte(b'=');
        written += 1;
    }
}

fn base32_digit(c: u8) -> Option<u64> {
    Some(u64::from(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a',
        b'2'..=b'7' => c - b'2' + 26,
        _ => return None,
    }))
}

fn base32_decode_into(text: &[u8], out: &mut ByteStrings) -> bool {
    if !text.len().is_multiple_of(8) {
        return false;
    }
    let mut buffer = 0u64;
    let mut bits = 0u32;
    let mut padding = 0usize;
    for c in text {
        if *c == b'=' {
            padding += 1;
            continue;
        }
        if padding > 0 {
            return false;
        }
        let Some(digit) = base32_digit(*c) else { return false };
        buffer = (buffer << 5) | digit;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push_byte((buffer >> bits) as u8);
        }
    }
    // Padding must complete a group exactly, and the bits it leaves over must be zero.
    padding == 0 || (matches!(padding, 1 | 3 | 4 | 6) && buffer & ((1u64 << bits) - 1) == 0)
}

const BASE58: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// Base58 as a big number in base 58: the digits are built by repeated multiply-add over
/// the input bytes (quadratic in the length, as every base58 codec is).
fn base58_encode_into(bytes: &[u8], out: &mut ByteStrings) {
    let zeros = bytes.iter().take_while(|b| **b == 0).count();
    // Little-endian base-58 digits of the number after the leading zeros.
    let mut digits: Vec<u8> = Vec::with_capacity(bytes.len() * 138 / 100 + 1);
    for byte in &bytes[zeros..] {
        let mut carry = u32::from(*byte);
        for digit in digits.iter_mut() {
            carry += u32::from(*digit) << 8;
            *digit = (carry % 58) as u8;
            carry /= 58;
        }
        while carry > 0 {
            digits.push((carry % 58) as u8);
            carry /= 58;
        }
    }
    for _ in 0..zeros {
        out.push_byte(b'1');
    }
    for digit in digits.iter().rev() {
        out.push_byte(BASE58[usize::from(*digit)]);
    }
}

fn base58_digit(c: u8) -> Option<u32> {
    BASE58.iter().position(|d| *d == c).map(|p| p as u32)
}

fn base58_decode_into(text: &[u8], out: &mut ByteStrings) -> bool {
    let ones = text.iter().take_while(|c| **c == b'1').count();
    // Little-endian bytes of the number after the leading ones.
    let mut bytes: Vec<u8> = Vec::with_capacity(text.len());
    for c in &text[ones..] {
        let Some(mut carry) = base58_digit(*c) else { return false };
        for byte in bytes.iter_mut() {
            carry += u32::from(*byte) * 58;
            *byte = carry as u8;
            carry >>= 8;
        }
        while carry > 0 {
            bytes.push(carry as u8);
            carry >>= 8;
        }
    }
    for _ in 0..ones {
        out.push_byte(0);
    }
    for byte in bytes.iter().rev() {
        out.push_byte(*byte);
    }
    true
}

/// `unbin`: ClickHouse reads every character but `0` as a one bit; a leading group of
/// fewer than 8 digits is a byte of its own, dropped when it is zero and more follows.
fn unbin_into(digits: &[u8], out: &mut ByteStrings) {
    let byte_of = |group: &[u8]| group.iter().fold(0u8, |byte, c| (byte << 1) | u8::from(*c != b'0'));
    let head = digits.len() % 8;
    let (first, rest) = digits.split_at(head);
    if head > 0 {
        let byte = byte_of(first);
        if byte != 0 || rest.is_empty() {
            out.push_byte(byte);
        }
    }
    for group in rest.chunks_exact(8) {
        out.push_byte(byte_of(group));
    }
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        encode_function("base64Encode", base64_encode_into),
        base64_decode("base64Decode", true),
        base64_decode("tryBase64Decode", false),
        encode_function("base64URLEncode", base64_url_encode_into),
        decode_function("base64URLDecode", true, base64_url_decode_into),
        decode_function("tryBase64URLDecode", false, base64_url_decode_into),
        encode_function("base32Encode", base32_encode_into),
        decode_function("base32Decode", true, base32_decode_into),
        decode_function("tryBase32Decode", false, base32_decode_into),
        encode_function("base58Encode", base58_encode_into),
        decode_function("base58Decode", true, base58_decode_into),
        decode_function("tryBase58Decode", false, base58_decode_into),
        unhex(),
        encode_function("unbin", unbin_into),
        char_fn(),
    ]
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

    fn run(f: fn(&[u8], &mut ByteStrings), input: &[u8]) -> Vec<u8> {
        let mut out = ByteStrings::with_capacity(1, 0);
        f(input, &mut out);
        out.finish_value().unwrap();
        let array = out.finish(None).unwrap();
        array.as_string::<i32>().value(0).as_bytes().to_vec()
    }

    fn try_decode(f: DecodeFn, input: &str) -> Option<Vec<u8>> {
        let mut out = ByteStrings::with_capacity(1, 0);
        if !f(input.as_bytes(), &mut out) {
            return None;
        }
        out.finish_value().unwrap();
        Some(out.finish(None).unwrap().as_string::<i32>().value(0).as_bytes().to_vec())
    }

    #[test]
    fn base58_round_trips_and_keeps_leading_zeros() {
        assert_eq!(run(base58_encode_into, b"hello"), b"Cn8eVZg");
        assert_eq!(run(base58_encode_into, b"\0\0a"), b"112g");
        assert_eq!(run(base58_encode_into, b""), b"");
        assert_eq!(try_decode(base58_decode_into, "Cn8eVZg").unwrap(), b"hello");
        assert_eq!(try_decode(base58_decode_into, "112g").unwrap(), b"\0\0a");
        assert_eq!(try_decode(base58_decode_into, "").unwrap(), b"");
        for bad in ["0", "O", "I", "l", "abc!"] {
            assert!(try_decode(base58_decode_into, bad).is_none(), "{bad}");
        }
        // A long value exercises the carries across many digits.
        let text = run(base58_encode_into, b"The quick brown fox jumps over the lazy dog.");
        let back = try_decode(base58_decode_into, std::str::from_utf8(&text).unwrap()).unwrap();
        assert_eq!(back, b"The quick brown fox jumps over the lazy dog.");
    }

    #[test]
    fn base32_rules_match_clickhouse() {
        assert_eq!(run(base32_encode_into, b"hello"), b"NBSWY3DP");
        assert_eq!(run(base32_encode_into, b"f"), b"MY======");
        assert_eq!(try_decode(base32_decode_into, "MY======").unwrap(), b"f");
        assert_eq!(try_decode(base32_decode_into, "nbswy3dp").unwrap(), b"hello");
        for bad in ["NBSWY3D", "NBSWY3DP=", "MY=====A", "MZ======", "M=======", "!!!!!!!!"] {
            assert!(try_decode(base32_decode_into, bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn unbin_reads_partial_leading_bytes() {
        assert_eq!(run(unbin_into, b"0100000101000010"), b"AB");
        assert_eq!(run(unbin_into, b"101"), b"\x05");
        assert_eq!(run(unbin_into, b"000000000"), b"\0");
        assert_eq!(run(unbin_into, b"0"), b"\0");
        assert_eq!(run(unbin_into, b"abc"), b"\x07");
        assert_eq!(run(unbin_into, b""), b"");
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
