//! `simpleJSONHas/ExtractInt/UInt/Float/Bool/String/Raw` (alias `visitParam*`): no
//! validation at all, as in ClickHouse. The field is the first occurrence of the bytes
//! `"name":` anywhere in the text (any depth, spaces before the colon not allowed), and
//! the value is read from the byte after the colon.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, UInt64Array, UInt8Array};
use datafusion::logical_expr::ScalarUDF;
use granary_types::ChType;
use memchr::memmem;

use super::{require_strings, RawStr, TextRows};
use crate::args::{Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};
use crate::text::ByteStrings;

#[derive(Clone, Copy)]
enum SimpleField {
    Has,
    Int,
    UInt,
    Float,
    Bool,
    String,
    Raw,
}

/// Calls `f` with the text after `"name":` in each row (`None` when absent).
fn for_each_field(ctx: &ExecCtx, mut f: impl FnMut(Option<&[u8]>) -> DfResult<()>) -> DfResult<()> {
    let docs = TextRows::of(ctx.array(0)?)?;
    let needle_of = |name: &[u8], out: &mut Vec<u8>| {
        out.push(b'"');
        out.extend_from_slice(name);
        out.extend_from_slice(b"\":");
    };
    // ClickHouse wants the name to be a constant (ILLEGAL_COLUMN otherwise).
    let mut needle = Vec::new();
    needle_of(ctx.const_str(1, "field name")?.as_bytes(), &mut needle);
    let finder = memmem::Finder::new(&needle);
    for row in 0..ctx.len {
        let doc = docs.get(row);
        f(finder.find(doc).map(|at| &doc[at + needle.len()..]))?;
    }
    Ok(())
}

/// An optional quote, a sign and digits, as ClickHouse's `readIntText` reads them;
/// `None` when there are no digits or the number does not fit `min..=max`.
fn leading_integer(text: &[u8], min: i128, max: i128) -> Option<i128> {
    let text = text.strip_prefix(b"\"").unwrap_or(text);
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let count = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    if count == 0 {
        return None;
    }
    let mut value: i128 = 0;
    for d in &digits[..count] {
        value = value.checked_mul(10)?.checked_add((d - b'0') as i128)?;
    }
    let value = if negative { -value } else { value };
    (min..=max).contains(&value).then_some(value)
}

/// The longest number at the start of `text` (after an optional quote), `nan`/`inf` too.
fn leading_float(text: &[u8]) -> Option<f64> {
    let text = text.strip_prefix(b"\"").unwrap_or(text);
    let mut end = 0;
    if matches!(text.first(), Some(b'-' | b'+')) {
        end = 1;
    }
    let rest = &text[end..];
    for word in [&b"nan"[..], b"inf"] {
        if rest.len() >= 3 && rest[..3].eq_ignore_ascii_case(word) {
            return std::str::from_utf8(&text[..end + 3]).ok()?.parse().ok();
        }
    }
    let digits = |from: usize| text[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    end += digits(end);
    if text.get(end) == Some(&b'.') {
        end += 1 + digits(end + 1);
    }
    if matches!(text.get(end), Some(b'e' | b'E')) {
        let mut exp_end = end + 1;
        if matches!(text.get(exp_end), Some(b'-' | b'+')) {
            exp_end += 1;
        }
        let exp_digits = digits(exp_end);
        if exp_digits > 0 {
            end = exp_end + exp_digits;
        }
    }
    std::str::from_utf8(&text[..end]).ok()?.parse().ok()
}

/// A quoted string at the start of `text`, escapes decoded (an unknown escape stands for
/// its letter); `false` when `text` does not start with a complete string.
fn leading_string(text: &[u8], out: &mut Vec<u8>) -> bool {
    if text.first() != Some(&b'"') {
        return false;
    }
    let mut i = 1;
    while i < text.len() {
        match text[i] {
            b'"' => {
                decode_lenient(&text[1..i], out);
                return true;
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    false
}

fn decode_lenient(escaped: &[u8], out: &mut Vec<u8>) {
    let mut start = 0;
    let mut i = 0;
    while i < escaped.len() {
        if escaped[i] != b'\\' {
            i += 1;
            continue;
        }
        let letter = escaped.get(i + 1).copied().unwrap_or(b'\\');
        let well_formed_unicode = letter == b'u' && escaped.get(i + 2..i + 6).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit));
        if matches!(letter, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') || well_formed_unicode {
            // Well-formed escapes (with a following low surrogate) decode as in JSON.
            let mut end = i + if well_formed_unicode { 6 } else { 2 };
            let high_surrogate = well_formed_unicode && matches!(escaped.get(i + 2), Some(b'd' | b'D')) && matches!(escaped.get(i + 3), Some(b'8'..=b'9' | b'a' | b'b' | b'A' | b'B'));
            if high_surrogate && escaped.get(end..end + 2) == Some(b"\\u") {
                end += 6;
            }
            let end = end.min(escaped.len());
            out.extend_from_slice(&escaped[start..i]);
            RawStr { escaped: &escaped[i..end] }.decode_into(out);
            i = end;
        } else {
            out.extend_from_slice(&escaped[start..i]);
            out.push(letter);
            i += 2;
        }
        start = i.min(escaped.len());
    }
    out.extend_from_slice(&escaped[start.min(escaped.len())..]);
}

/// The raw text of the value at the start of `text`: up to a `,` or `}` outside brackets
/// and strings (spaces kept); `None` when the text ends first.
fn leading_raw(text: &[u8]) -> Option<&[u8]> {
    let mut expected_closers: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if expected_closers.last() == Some(&b) {
            expected_closers.pop();
        } else {
            match b {
                b'[' => expected_closers.push(b']'),
                b'{' => expected_closers.push(b'}'),
                b'"' => {
                    i += 1;
                    while i < text.len() && text[i] != b'"' {
                        i += if text[i] == b'\\' { 2 } else { 1 };
                    }
                    if i >= text.len() {
                        return None;
                    }
                }
                b',' | b'}' if expected_closers.is_empty() => return Some(&text[..i]),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// One value per row from the text after the field name.
fn fields_of<T>(ctx: &ExecCtx, mut f: impl FnMut(Option<&[u8]>) -> T) -> DfResult<Vec<T>> {
    let mut out = Vec::with_capacity(ctx.len);
    for_each_field(ctx, |v| {
        out.push(f(v));
        Ok(())
    })?;
    Ok(out)
}

fn run(ctx: &ExecCtx, what: SimpleField) -> DfResult<ArrayRef> {
    Ok(match what {
        SimpleField::Has => Arc::new(UInt8Array::from(fields_of(ctx, |v| v.is_some() as u8)?)),
        SimpleField::Bool => Arc::new(UInt8Array::from(fields_of(ctx, |v| v.is_some_and(|v| v.starts_with(b"true")) as u8)?)),
        SimpleField::Int => Arc::new(Int64Array::from(fields_of(ctx, |v| {
            v.and_then(|v| leading_integer(v, i64::MIN as i128, i64::MAX as i128)).unwrap_or(0) as i64
        })?)),
        SimpleField::UInt => Arc::new(UInt64Array::from(fields_of(ctx, |v| v.and_then(|v| leading_integer(v, 0, u64::MAX as i128)).unwrap_or(0) as u64)?)),
        SimpleField::Float => Arc::new(Float64Array::from(fields_of(ctx, |v| v.and_then(leading_float).unwrap_or(0.0))?)),
        SimpleField::String | SimpleField::Raw => {
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            let mut buf = Vec::new();
            for_each_field(ctx, |v| {
                buf.clear();
                if let Some(v) = v {
                    match what {
                        SimpleField::String => {
                            if !leading_string(v, &mut buf) {
                                buf.clear();
                            }
                        }
                        _ => buf.extend_from_slice(leading_raw(v).unwrap_or_default()),
                    }
                }
                out.push_value(&buf)
            })?;
            out.finish(None)?
        }
    })
}

fn simple_json(name: &'static str, what: SimpleField) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            require_strings(ctx)?;
            Ok(match what {
                SimpleField::Has | SimpleField::Bool => ChType::UInt8,
                SimpleField::Int => ChType::Int64,
                SimpleField::UInt => ChType::UInt64,
                SimpleField::Float => ChType::Float64,
                SimpleField::String | SimpleField::Raw => ChType::String,
            })
        },
        move |ctx| run(ctx, what),
    )
    .takes_string_views()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        simple_json("simpleJSONHas", SimpleField::Has),
        simple_json("simpleJSONExtractInt", SimpleField::Int),
        simple_json("simpleJSONExtractUInt", SimpleField::UInt),
        simple_json("simpleJSONExtractFloat", SimpleField::Float),
        simple_json("simpleJSONExtractBool", SimpleField::Bool),
        simple_json("simpleJSONExtractString", SimpleField::String),
        simple_json("simpleJSONExtractRaw", SimpleField::Raw),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_leading_values_like_clickhouse() {
        assert_eq!(leading_integer(b"-12.5}", i64::MIN as i128, i64::MAX as i128), Some(-12));
        assert_eq!(leading_integer(b"\"5\"", 0, 10), Some(5));
        assert_eq!(leading_integer(b"-5", 0, 10), None);
        assert_eq!(leading_integer(b"99999999999999999999", 0, u64::MAX as i128), None);
        assert_eq!(leading_float(b"1e3,"), Some(1000.0));
        assert_eq!(leading_float(b"\"1.5\""), Some(1.5));
        assert!(leading_float(b"nan}").is_some_and(f64::is_nan));
        assert_eq!(leading_raw(b"{\"b\": [1, \"]\"]}, \"c\":1}"), Some(&b"{\"b\": [1, \"]\"]}"[..]));
        assert_eq!(leading_raw(b" 12 ,"), Some(&b" 12 "[..]));
        assert_eq!(leading_raw(b"[1,2"), None);
        let mut out = Vec::new();
        assert!(leading_string(b"\"a\\x\\u00e9\\ud83d\\ude00\\u0041\"", &mut out));
        assert_eq!(String::from_utf8(out).ok().as_deref(), Some("axé😀A"));
    }
}
