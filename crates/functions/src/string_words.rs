//! Words and characters of text: `tokens`, `alphaTokens`, `ngrams`, `hasToken` (and its
//! `CaseInsensitive`/`OrNull` forms), `translateUTF8`, `initcapUTF8`, `overlayUTF8`,
//! `encodeXMLComponent`, `decodeXMLComponent`.
//!
//! A token is ClickHouse's: a run of bytes that are not ASCII separators (anything but
//! ASCII letters and digits), so every non-ASCII byte belongs to a token.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, UInt8Array};
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, scalar_str, Arity, DfResult};
use crate::func::{RetCtx, ScalarDef};
use crate::string::{require_text, text_bytes};
use crate::text::ByteStrings;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        split_function("tokens", |c| !is_separator(c)),
        split_function("alphaTokens", |c| c.is_ascii_alphabetic()),
        ngrams(),
        has_token("hasToken", false, false),
        has_token("hasTokenOrNull", false, true),
        has_token("hasTokenCaseInsensitive", true, false),
        has_token("hasTokenCaseInsensitiveOrNull", true, true),
        translate_utf8(),
        initcap_utf8(),
        overlay_utf8(),
        encode_xml_component(),
        decode_xml_component(),
    ]
}

fn is_separator(c: u8) -> bool {
    c.is_ascii() && !c.is_ascii_alphanumeric()
}

fn string_result(ctx: &RetCtx) -> DfResult<ChType> {
    require_text(ctx, 0)?;
    Ok(ChType::String)
}

/// The runs of bytes for which `keep` holds, as `Array(String)`.
fn split_function(name: &'static str, keep: fn(u8) -> bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            require_text(ctx, 0)?;
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        move |ctx| {
            let text = text_bytes(&ctx.array(0)?);
            let mut values = ByteStrings::with_capacity(ctx.len, 0);
            let mut offsets = vec![0i32];
            for row in 0..ctx.len {
                for word in text.value(row).split(|c| !keep(*c)).filter(|w| !w.is_empty()) {
                    values.push_value(word)?;
                }
                offsets.push(crate::regexp::list_offset(values.len())?);
            }
            values.finish_list(offsets)
        },
    )
    .build()
}

fn ngrams() -> ScalarUDF {
    ScalarDef::new(
        "ngrams",
        Arity::exact(2),
        |ctx| {
            require_text(ctx, 0)?;
            let n = ctx.const_int(1, "ngram length")?;
            if n < 1 {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Incorrect parameter of tokenizer 'ngrams': ngram length must be at least 1, but got {n}"),
                ));
            }
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        |ctx| {
            let n = ctx.const_int(1, "ngram length")?.max(1) as usize;
            let text = text_bytes(&ctx.array(0)?);
            let mut values = ByteStrings::with_capacity(ctx.len, 0);
            let mut offsets = vec![0i32];
            for row in 0..ctx.len {
                let value = String::from_utf8_lossy(text.value(row));
                let starts: Vec<usize> = value.char_indices().map(|(i, _)| i).chain([value.len()]).collect();
                for window in starts.windows(n + 1) {
                    values.push_value(&value.as_bytes()[window[0]..window[n]])?;
                }
                offsets.push(crate::regexp::list_offset(values.len())?);
            }
            values.finish_list(offsets)
        },
    )
    .build()
}

/// Whether `needle` occurs in `hay` as a whole token.
fn contains_token(hay: &[u8], needle: &[u8], case_insensitive: bool) -> bool {
    if needle.is_empty() || needle.len() > hay.len() {
        return false;
    }
    let equal = |a: &[u8]| if case_insensitive { a.eq_ignore_ascii_case(needle) } else { a == needle };
    (0..=hay.len() - needle.len()).any(|start| {
        let end = start + needle.len();
        (start == 0 || is_separator(hay[start - 1])) && (end == hay.len() || is_separator(hay[end])) && equal(&hay[start..end])
    })
}

fn has_token(name: &'static str, case_insensitive: bool, or_null: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            require_text(ctx, 0)?;
            if ctx.scalar(1).and_then(scalar_str).is_none() {
                return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Argument at index 1 for function {} must be constant", ctx.name)));
            }
            Ok(if or_null { ChType::Nullable(Box::new(ChType::UInt8)) } else { ChType::UInt8 })
        },
        move |ctx| {
            let needle = ctx.const_str(1, "needle")?.as_bytes().to_vec();
            if needle.iter().any(|c| is_separator(*c)) {
                if or_null {
                    return Ok(datafusion::arrow::array::new_null_array(&DataType::UInt8, ctx.len));
                }
                return Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Needle must not contain whitespace or separator characters"));
            }
            let text = text_bytes(&ctx.array(0)?);
            let found = (0..ctx.len).map(|row| u8::from(contains_token(text.value(row), &needle, case_insensitive)));
            Ok(Arc::new(UInt8Array::from_iter_values(found)) as ArrayRef)
        },
    )
    .build()
}

fn translate_utf8() -> ScalarUDF {
    ScalarDef::new(
        "translateUTF8",
        Arity::exact(3),
        |ctx| {
            require_text(ctx, 0)?;
            for i in 1..3 {
                if ctx.scalar(i).and_then(scalar_str).is_none() {
                    return Err(ch_error(ErrorCode::ILLEGAL_COLUMN, format!("Argument at index {i} for function translateUTF8 must be constant")));
                }
            }
            let (from, to) = (ctx.const_str(1, "from")?.chars().count(), ctx.const_str(2, "to")?.chars().count());
            if from < to {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Second argument of function translateUTF8 must not be shorter than the third argument. Size of the second argument: {from}, size of the third argument: {to}"),
                ));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let to: Vec<char> = ctx.const_str(2, "to")?.chars().collect();
            // Characters of `from` past the end of `to` are deleted; a repeated one takes
            // its last mapping.
            let map: HashMap<char, Option<char>> = ctx.const_str(1, "from")?.chars().enumerate().map(|(i, c)| (c, to.get(i).copied())).collect();
            let text = text_bytes(&ctx.array(0)?);
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            let mut buffer = [0u8; 4];
            for row in 0..ctx.len {
                for c in String::from_utf8_lossy(text.value(row)).chars() {
                    match map.get(&c) {
                        Some(Some(replacement)) => out.extend(replacement.encode_utf8(&mut buffer).as_bytes()),
                        Some(None) => {}
                        None => out.extend(c.encode_utf8(&mut buffer).as_bytes()),
                    }
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// Poco's single-character case mapping, as ClickHouse's `initcapUTF8` uses: Rust's
/// mappings that give several characters have none there (ß has one, to ẞ).
fn simple_case(c: char, upper: bool) -> char {
    if c == 'ß' && upper {
        return 'ẞ';
    }
    let mut mapped: Vec<char> = if upper { c.to_uppercase().collect() } else { c.to_lowercase().collect() };
    if mapped.len() == 1 {
        mapped.pop().unwrap_or(c)
    } else {
        c
    }
}

/// ClickHouse's `initcapUTF8`: the first letter of each run of letters and digits upper
/// case, the others lower case. A character whose mapping has another UTF-8 length is
/// copied as it is and ends the word (ClickHouse copies its bytes one by one).
fn initcap(text: &str, out: &mut ByteStrings) {
    let mut previous_alphanumeric = false;
    let mut buffer = [0u8; 4];
    for c in text.chars() {
        let alpha = c.is_alphabetic();
        let alphanumeric = alpha || c.is_numeric();
        let mapped = if alphanumeric && !previous_alphanumeric {
            if alpha {
                simple_case(c, true)
            } else {
                c
            }
        } else if alpha {
            simple_case(c, false)
        } else {
            c
        };
        if mapped.len_utf8() == c.len_utf8() {
            out.extend(mapped.encode_utf8(&mut buffer).as_bytes());
            previous_alphanumeric = alphanumeric;
        } else {
            out.extend(c.encode_utf8(&mut buffer).as_bytes());
            previous_alphanumeric = false;
        }
    }
}

fn initcap_utf8() -> ScalarUDF {
    ScalarDef::new("initcapUTF8", Arity::exact(1), string_result, |ctx| {
        let text = text_bytes(&ctx.array(0)?);
        let mut out = ByteStrings::with_capacity(ctx.len, 0);
        for row in 0..ctx.len {
            initcap(&String::from_utf8_lossy(text.value(row)), &mut out);
            out.finish_value()?;
        }
        out.finish(None)
    })
    .build()
}

/// The characters of `text` with `replacement` put over `length` of them from 1-based
/// `offset` (from the end when negative, after the end when 0); a negative length
/// means the replacement's.
fn overlay(text: &str, replacement: &str, offset: i64, length: Option<i64>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len() as i64;
    let start = match offset {
        o if o > 0 => (o - 1).min(size),
        o if o < 0 => (size + o).max(0),
        _ => size,
    } as usize;
    let replaced = match length {
        Some(l) if l >= 0 => l,
        _ => replacement.chars().count() as i64,
    };
    let end = (start as i64 + replaced).min(size) as usize;
    let mut out: String = chars[..start].iter().collect();
    out.push_str(replacement);
    out.extend(&chars[end..]);
    out
}

fn overlay_utf8() -> ScalarUDF {
    ScalarDef::new(
        "overlayUTF8",
        Arity::range(3, 4),
        |ctx| {
            require_text(ctx, 0)?;
            require_text(ctx, 1)?;
            for i in 2..ctx.arg_count() {
                if !ctx.dt(i).is_integer() {
                    return Err(crate::args::illegal_type(ctx.name, i, ctx.field(i)));
                }
            }
            Ok(ChType::String)
        },
        |ctx| {
            let text = text_bytes(&ctx.array(0)?);
            let replacement = text_bytes(&ctx.array(1)?);
            let offsets = datafusion::arrow::compute::cast(&ctx.array(2)?, &DataType::Int64)?;
            let offsets = offsets.as_primitive::<Int64Type>();
            let lengths = if ctx.args.len() > 3 { Some(datafusion::arrow::compute::cast(&ctx.array(3)?, &DataType::Int64)?) } else { None };
            let lengths = lengths.as_ref().map(|l| l.as_primitive::<Int64Type>());
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            for row in 0..ctx.len {
                let value = overlay(
                    &String::from_utf8_lossy(text.value(row)),
                    &String::from_utf8_lossy(replacement.value(row)),
                    offsets.value(row),
                    lengths.map(|l| l.value(row)),
                );
                out.push_value(value.as_bytes())?;
            }
            out.finish(None)
        },
    )
    .build()
}

fn encode_xml_component() -> ScalarUDF {
    ScalarDef::new("encodeXMLComponent", Arity::exact(1), string_result, |ctx| {
        let text = text_bytes(&ctx.array(0)?);
        let mut out = ByteStrings::with_capacity(ctx.len, 0);
        for row in 0..ctx.len {
            for &c in text.value(row) {
                match c {
                    b'<' => out.extend(b"&lt;"),
                    b'>' => out.extend(b"&gt;"),
                    b'&' => out.extend(b"&amp;"),
                    b'"' => out.extend(b"&quot;"),
                    b'\'' => out.extend(b"&apos;"),
                    other => out.push_byte(other),
                }
            }
            out.finish_value()?;
        }
        out.finish(None)
    })
    .build()
}

/// The character of an XML entity body (between `&` and `;`), if it is one.
fn xml_entity(body: &[u8]) -> Option<char> {
    match body {
        b"lt" => Some('<'),
        b"gt" => Some('>'),
        b"amp" => Some('&'),
        b"quot" => Some('"'),
        b"apos" => Some('\''),
        [b'#', b'x' | b'X', hex @ ..] if !hex.is_empty() && hex.len() <= 8 => {
            u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok().and_then(char::from_u32)
        }
        [b'#', digits @ ..] if !digits.is_empty() && digits.len() <= 10 && digits.iter().all(u8::is_ascii_digit) => {
            std::str::from_utf8(digits).ok()?.parse::<u32>().ok().and_then(char::from_u32)
        }
        _ => None,
    }
}

fn decode_xml_component() -> ScalarUDF {
    ScalarDef::new("decodeXMLComponent", Arity::exact(1), string_result, |ctx| {
        let text = text_bytes(&ctx.array(0)?);
        let mut out = ByteStrings::with_capacity(ctx.len, 0);
        let mut buffer = [0u8; 4];
        for row in 0..ctx.len {
            let bytes = text.value(row);
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'&' {
                    if let Some(semicolon) = bytes[i + 1..].iter().position(|c| *c == b';') {
                        if let Some(c) = xml_entity(&bytes[i + 1..i + 1 + semicolon]) {
                            out.extend(c.encode_utf8(&mut buffer).as_bytes());
                            i += semicolon + 2;
                            continue;
                        }
                    }
                }
                out.push_byte(bytes[i]);
                i += 1;
            }
            out.finish_value()?;
        }
        out.finish(None)
    })
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_bounded_by_ascii_separators() {
        assert!(contains_token(b"Hello World", b"Hello", false));
        assert!(!contains_token(b"Hello World", b"lo", false));
        assert!(contains_token("привет мир".as_bytes(), "мир".as_bytes(), false));
        assert!(!contains_token(b"xabc", b"abc", false));
        assert!(contains_token(b"a_b", b"a", false));
        assert!(contains_token(b"ABC def", b"abc", true));
    }

    #[test]
    fn overlay_offsets_as_clickhouse() {
        assert_eq!(overlay("abcde", "XY", 0, Some(1)), "abcdeXY");
        assert_eq!(overlay("abcde", "XY", -10, None), "XYcde");
        assert_eq!(overlay("abcde", "XY", 5, None), "abcdXY");
        assert_eq!(overlay("abcde", "XY", 1, Some(-1)), "XYcde");
        assert_eq!(overlay("abcde", "XY", -1, Some(0)), "abcdXYe");
        assert_eq!(overlay("абвгд", "XY", -2, Some(1)), "абвXYд");
    }

    #[test]
    fn xml_entities() {
        assert_eq!(xml_entity(b"#1055"), Some('П'));
        assert_eq!(xml_entity(b"#x41F"), Some('П'));
        assert_eq!(xml_entity(b"#xFFFFFFF"), None);
        assert_eq!(xml_entity(b"bogus"), None);
    }
}
