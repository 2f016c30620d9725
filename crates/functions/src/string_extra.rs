//! Smaller String functions: `space`, `firstLine`, `isValidUTF8`, `soundex`,
//! `leftUTF8`/`rightUTF8`, `substringIndex` (`SUBSTRING_INDEX`) and `substringIndexUTF8`,
//! with ClickHouse's edge cases (a negative count counts from the right, a missing
//! delimiter keeps the whole string, `soundex` pads with zeros).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, UInt8Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_type, is_integer, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::string::{require_string, require_text, text_bytes};
use crate::text::ByteStrings;

/// The longest `space(n)` ClickHouse makes.
const MAX_SPACES: i64 = 1_000_000;

fn require_integer(ctx: &RetCtx, i: usize) -> DfResult<()> {
    if is_integer(ctx.dt(i)) {
        Ok(())
    } else {
        Err(illegal_type(ctx.name, i, ctx.field(i)))
    }
}

fn integers(ctx: &ExecCtx, i: usize) -> DfResult<Vec<i64>> {
    let values = cast(&ctx.array(i)?, &DataType::Int64)?;
    Ok(values.as_primitive::<Int64Type>().values().to_vec())
}

fn space() -> ScalarUDF {
    ScalarDef::new(
        "space",
        Arity::exact(1),
        |ctx| {
            require_integer(ctx, 0)?;
            Ok(ChType::String)
        },
        |ctx| {
            let counts = integers(ctx, 0)?;
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for count in counts {
                if count > MAX_SPACES {
                    return Err(ch_error(ErrorCode::TOO_LARGE_STRING_SIZE, format!("Too many times to repeat ({count}), maximum is: {MAX_SPACES}")));
                }
                for _ in 0..count.max(0) {
                    out.push_byte(b' ');
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// A function of one String argument that writes each value's result into `out`.
fn string_map(name: &'static str, map: fn(&[u8], &mut ByteStrings)) -> ScalarUDF {
    string_map_checked(name, |ctx| require_string(ctx, 0, ErrorCode::ILLEGAL_COLUMN), map)
}

/// [`string_map`] with the function's own check of its argument type.
pub(crate) fn string_map_checked(name: &'static str, check: fn(&RetCtx) -> DfResult<()>, map: fn(&[u8], &mut ByteStrings)) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        move |ctx| {
            check(ctx)?;
            Ok(ChType::String)
        },
        move |ctx| {
            let texts = text_bytes(&ctx.array(0)?);
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                map(texts.value(row), &mut out);
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// The check of functions that take only a String: 43 for any other type.
pub(crate) fn plain_string_only(ctx: &RetCtx) -> DfResult<()> {
    if !crate::string::is_plain_string(&ctx.ch(0)) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function {}", ctx.ch(0), ctx.name)));
    }
    Ok(())
}

fn first_line(text: &[u8], out: &mut ByteStrings) {
    let end = text.iter().position(|b| *b == b'\n' || *b == b'\r').unwrap_or(text.len());
    out.extend(&text[..end]);
}

/// Soundex codes of `A`..`Z`; 0 marks letters that separate codes but have none.
const SOUNDEX_CODES: &[u8; 26] = b"01230120022455012623010202";

fn soundex_code(byte: u8) -> u8 {
    if byte.is_ascii_alphabetic() {
        SOUNDEX_CODES[(byte.to_ascii_uppercase() - b'A') as usize]
    } else {
        b'0'
    }
}

/// ClickHouse's soundex: the first ASCII letter, then the codes that differ from the
/// code before them (any byte that is not a coded letter resets it), padded to 4.
pub(crate) fn soundex(text: &[u8], out: &mut ByteStrings) {
    const LENGTH: usize = 4;
    let mut written = 0;
    if let Some(first) = text.iter().position(|b| b.is_ascii_alphabetic()) {
        out.push_byte(text[first].to_ascii_uppercase());
        written = 1;
        let mut previous = soundex_code(text[first]);
        for byte in &text[first + 1..] {
            if written == LENGTH {
                break;
            }
            let code = soundex_code(*byte);
            if code != b'0' && code != previous {
                out.push_byte(code);
                written += 1;
            }
            previous = code;
        }
    }
    for _ in written..LENGTH {
        out.push_byte(b'0');
    }
}

fn is_valid_utf8() -> ScalarUDF {
    ScalarDef::new(
        "isValidUTF8",
        Arity::exact(1),
        |ctx| {
            require_text(ctx, 0)?;
            Ok(ChType::UInt8)
        },
        |ctx| {
            let texts = text_bytes(&ctx.array(0)?);
            let valid: UInt8Array = (0..ctx.len).map(|row| Some(u8::from(std::str::from_utf8(texts.value(row)).is_ok()))).collect();
            Ok(Arc::new(valid) as ArrayRef)
        },
    )
    .build()
}

/// Byte offsets of the code points of `text`, and its length at the end.
fn char_boundaries(text: &str) -> Vec<usize> {
    text.char_indices().map(|(at, _)| at).chain(std::iter::once(text.len())).collect()
}

/// `leftUTF8(s, n)` / `rightUTF8(s, n)`: the first (last) `n` code points; a negative
/// `n` drops that many from the other end.
fn utf8_side(name: &'static str, left: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            require_string(ctx, 0, ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT)?;
            if !matches!(ctx.dt(1), t if is_integer(t) || matches!(t, DataType::Float32 | DataType::Float64)) {
                return Err(illegal_type(ctx.name, 1, ctx.field(1)));
            }
            Ok(ChType::String)
        },
        move |ctx| {
            let texts = crate::string::utf8(ctx, 0)?;
            let texts = texts.as_string::<i32>();
            let counts = integers(ctx, 1)?;
            let mut out = ByteStrings::with_capacity(ctx.len, texts.value_data().len());
            for (row, count) in counts.iter().enumerate() {
                let text = texts.value(row);
                let bounds = char_boundaries(text);
                let chars = bounds.len() as i64 - 1;
                let kept = if *count >= 0 { (*count).min(chars) } else { (chars + count).max(0) } as usize;
                let piece = if left { &text[..bounds[kept]] } else { &text[bounds[bounds.len() - 1 - kept]..] };
                out.push_value(piece.as_bytes())?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// The part of `text` before the `count`-th `delimiter` (after it, counting from the
/// right, for a negative count); all of it when there are fewer delimiters.
pub(crate) fn substring_index<'a>(text: &'a [u8], delimiter: &[u8], count: i64) -> &'a [u8] {
    if count == 0 || delimiter.is_empty() {
        return &text[..0];
    }
    let finder = memchr::memmem::Finder::new(delimiter);
    if count > 0 {
        match finder.find_iter(text).nth(count as usize - 1) {
            Some(at) => &text[..at],
            None => text,
        }
    } else {
        let positions: Vec<usize> = finder.find_iter(text).collect();
        let from_right = count.unsigned_abs() as usize;
        if from_right > positions.len() {
            return text;
        }
        &text[positions[positions.len() - from_right] + delimiter.len()..]
    }
}

fn substring_index_fn(name: &'static str, utf8: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(3),
        |ctx| {
            require_string(ctx, 0, ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT)?;
            require_string(ctx, 1, ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT)?;
            require_integer(ctx, 2)?;
            Ok(ChType::String)
        },
        move |ctx| {
            let texts = text_bytes(&ctx.array(0)?);
            let delimiters = text_bytes(&ctx.array(1)?);
            let counts = integers(ctx, 2)?;
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for (row, count) in counts.iter().enumerate() {
                let delimiter = delimiters.value(row);
                let single = if utf8 { std::str::from_utf8(delimiter).is_ok_and(|d| d.chars().count() == 1) } else { delimiter.len() == 1 };
                if !single {
                    return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Second argument to {} must be a single character", ctx.name)));
                }
                out.push_value(substring_index(texts.value(row), delimiter, *count))?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `appendTrailingCharIfAbsent(s, c)`: `s` ending in the one-byte constant `c`; an empty
/// `s` stays empty, as in ClickHouse.
fn append_trailing_char_if_absent() -> ScalarUDF {
    ScalarDef::new(
        "appendTrailingCharIfAbsent",
        Arity::exact(2),
        |ctx| {
            if ctx.ch(0).base() != &ChType::String {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 's' to function '{}'. Expected: String, got: {}", ctx.name, ctx.ch(0)),
                ));
            }
            if let Some(suffix) = ctx.scalar(1).and_then(crate::args::scalar_str) {
                trailing_char(ctx.name, suffix)?;
            }
            Ok(ChType::String)
        },
        |ctx| {
            let suffix = ctx
                .scalar(1)
                .and_then(crate::args::scalar_str)
                .ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Argument at index 1 for function {} must be constant", ctx.name)))?;
            let suffix = trailing_char(ctx.name, suffix)?;
            let array = ctx.array(0)?;
            let values = text_bytes(&array);
            let mut out = ByteStrings::with_capacity(ctx.len, ctx.len * 8);
            for row in 0..ctx.len {
                let value = values.value(row);
                out.extend(value);
                if value.last().is_some_and(|&last| last != suffix) {
                    out.extend(&[suffix]);
                }
                out.finish_value()?;
            }
            out.finish(array.nulls().cloned())
        },
    )
    .build()
}

fn trailing_char(name: &str, suffix: &str) -> DfResult<u8> {
    match suffix.as_bytes() {
        [byte] => Ok(*byte),
        _ => Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("Second argument of function {name} must be a one-character string"))),
    }
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        append_trailing_char_if_absent(),
        space(),
        string_map("firstLine", first_line),
        string_map("soundex", soundex),
        is_valid_utf8(),
        utf8_side("leftUTF8", true),
        utf8_side("rightUTF8", false),
        substring_index_fn("substringIndex", false),
        substring_index_fn("substringIndexUTF8", true),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soundex_of(text: &str) -> String {
        let mut out = ByteStrings::with_capacity(1, 4);
        soundex(text.as_bytes(), &mut out);
        out.finish_value().ok();
        let column = out.finish(None).ok().map(|c| c.as_string::<i32>().value(0).to_string());
        column.unwrap_or_default()
    }

    #[test]
    fn soundex_matches_clickhouse() {
        // Values from ClickHouse (chdb).
        for (text, code) in [("Robert", "R163"), ("", "0000"), ("123", "0000"), ("Tymczak", "T522"), ("Pfister", "P236"), ("Ashcraft", "A226"), ("  Rob ert", "R163"), ("Lloyd", "L300"), ("a-b", "A100"), ("Honeyman", "H555")] {
            assert_eq!(soundex_of(text), code, "{text}");
        }
    }

    #[test]
    fn substring_index_counts_from_both_ends() {
        assert_eq!(substring_index(b"www.clickhouse.com", b".", 2), b"www.clickhouse");
        assert_eq!(substring_index(b"www.clickhouse.com", b".", -2), b"clickhouse.com");
        assert_eq!(substring_index(b"a.b", b",", 1), b"a.b");
        assert_eq!(substring_index(b"a.b.c", b".", 0), b"");
        assert_eq!(substring_index(b"a.b.c", b".", -5), b"a.b.c");
    }
}
