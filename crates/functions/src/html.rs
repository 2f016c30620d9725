//! `decodeHTMLComponent` (HTML5 named and numeric character references) and
//! `extractTextFromHTML` (ClickHouse's best-effort text extractor:
//! `extractTextFromHTML.cpp`, repeated rule by rule: comments and `script`/`style`
//! elements dropped, CDATA copied verbatim, other tags skipped, whitespace collapsed, and
//! a space put where text meets another element).

use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, DfResult};
use crate::func::RetCtx;
use crate::html_entities::HTML_ENTITIES;
use crate::string_extra::{plain_string_only, string_map_checked};
use crate::text::ByteStrings;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        string_map_checked("decodeHTMLComponent", no_fixed_string, decode_html_component),
        string_map_checked("extractTextFromHTML", plain_string_only, extract_text_from_html),
    ]
}

fn no_fixed_string(ctx: &RetCtx) -> DfResult<()> {
    if matches!(ctx.ch(0).base(), ChType::FixedString(_)) {
        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Function {} cannot work with FixedString argument", ctx.name)));
    }
    plain_string_only(ctx)
}

/// The bytes a character reference at the start of `s` (an `&`) stands for, and its length.
fn character_reference(s: &[u8]) -> Option<(Vec<u8>, usize)> {
    let end = s.iter().position(|c| *c == b';')?;
    if s.get(1) == Some(&b'#') {
        let (digits, radix) = match s.get(2) {
            Some(b'x' | b'X') => (&s[3..end.max(3)], 16),
            _ => (&s[2..end.max(2)], 10),
        };
        if digits.is_empty() || !digits.iter().all(|c| (*c as char).is_digit(radix)) {
            return None;
        }
        let mut code: u32 = 0;
        for d in digits {
            code = code.checked_mul(radix)?.checked_add((*d as char).to_digit(radix)?)?;
        }
        if code > 0x10FFFF {
            return None;
        }
        return Some((encode_utf8_raw(code), end + 1));
    }
    let name = std::str::from_utf8(&s[1..=end]).ok()?;
    let at = HTML_ENTITIES.binary_search_by(|(n, _)| n.cmp(&name)).ok()?;
    Some((HTML_ENTITIES[at].1.as_bytes().to_vec(), end + 1))
}

/// A code point as UTF-8 bytes, surrogates included (as ClickHouse writes them; the
/// String column then shows U+FFFD).
fn encode_utf8_raw(code: u32) -> Vec<u8> {
    match code {
        0..=0x7F => vec![code as u8],
        0x80..=0x7FF => vec![0xC0 | (code >> 6) as u8, 0x80 | (code & 0x3F) as u8],
        0x800..=0xFFFF => vec![0xE0 | (code >> 12) as u8, 0x80 | ((code >> 6) & 0x3F) as u8, 0x80 | (code & 0x3F) as u8],
        _ => vec![0xF0 | (code >> 18) as u8, 0x80 | ((code >> 12) & 0x3F) as u8, 0x80 | ((code >> 6) & 0x3F) as u8, 0x80 | (code & 0x3F) as u8],
    }
}

/// References are decoded where they end with `;`; anything else after an `&` is kept
/// and scanned again from the next byte.
fn decode_html_component(text: &[u8], out: &mut ByteStrings) {
    let mut pos = 0;
    while let Some(at) = text[pos..].iter().position(|c| *c == b'&').map(|i| pos + i) {
        out.extend(&text[pos..at]);
        match character_reference(&text[at..]) {
            Some((bytes, length)) => {
                out.extend(&bytes);
                pos = at + length;
            }
            None => {
                out.push_byte(b'&');
                pos = at + 1;
            }
        }
    }
    out.extend(&text[pos..]);
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0C | 0x0B)
}

/// Where `c` is first found from `from`, or the end.
fn find(s: &[u8], from: usize, c: u8) -> usize {
    s[from..].iter().position(|b| *b == c).map_or(s.len(), |i| from + i)
}

/// ClickHouse's `startsWith`: the prefix must be followed by at least one more byte.
fn starts_with_more(s: &[u8], at: usize, prefix: &[u8]) -> bool {
    at + prefix.len() < s.len() && s[at..].starts_with(prefix)
}

fn skip_comment(s: &[u8], src: &mut usize) -> bool {
    if !starts_with_more(s, *src, b"<!--") {
        return false;
    }
    *src += 4;
    loop {
        let gt = find(s, *src, b'>');
        if gt >= s.len() {
            // Unterminated: the rest is scanned as text.
            break;
        }
        let closes = gt > *src + 2 && s[gt - 1] == b'-' && s[gt - 2] == b'-';
        *src = gt + 1;
        if closes {
            break;
        }
    }
    true
}

/// `<![CDATA[...]]>`: its content copied when `out` is given.
fn copy_cdata(s: &[u8], src: &mut usize, out: Option<&mut ByteStrings>) -> bool {
    if !starts_with_more(s, *src, b"<![CDATA[") {
        return false;
    }
    *src += 9;
    let mut gt = *src;
    loop {
        gt = find(s, gt, b'>');
        if gt >= s.len() {
            break;
        }
        if s[gt - 1] == b']' && s[gt - 2] == b']' {
            if let Some(out) = out {
                out.extend(&s[*src..(gt - 2).max(*src)]);
            }
            *src = gt + 1;
            break;
        }
        gt += 1;
    }
    true
}

/// A `script` or `style` element with its content (the closing tag is not looked for
/// inside CDATA). As in ClickHouse, a failed match past the tag name leaves `src` there.
fn skip_element(s: &[u8], src: &mut usize, tag: &[u8]) -> bool {
    let start = *src;
    if s.get(*src) != Some(&b'<') {
        return false;
    }
    *src += 1;
    if !starts_with_more(s, *src, tag) {
        *src = start;
        return false;
    }
    *src += tag.len();
    if !(is_space(s[*src]) || s[*src] == b'>') {
        *src = start;
        return false;
    }
    let gt = find(s, *src, b'>');
    if gt >= s.len() {
        return false;
    }
    *src = gt + 1;
    loop {
        *src = find(s, *src, b'<');
        if *src + 1 >= s.len() {
            break;
        }
        *src += 1;
        if s[*src] == b'!' {
            *src -= 1;
            if copy_cdata(s, src, None) {
                continue;
            }
            *src += 1;
        }
        if s[*src] != b'/' {
            continue;
        }
        *src += 1;
        if starts_with_more(s, *src, tag) {
            *src += tag.len();
            while *src < s.len() && is_space(s[*src]) {
                *src += 1;
            }
            if *src >= s.len() {
                break;
            }
            if s[*src] == b'>' {
                *src += 1;
                break;
            }
        }
    }
    true
}

fn skip_tag(s: &[u8], src: &mut usize) -> bool {
    if s.get(*src) != Some(&b'<') {
        return false;
    }
    *src = find(s, *src, b'>');
    if *src < s.len() {
        *src += 1;
    }
    true
}

/// Text up to the next `<`, whitespace collapsed; a space first where text follows
/// other text without one.
fn copy_text(s: &[u8], src: &mut usize, out: &mut ByteStrings, needs_space: bool) {
    while *src < s.len() && is_space(s[*src]) {
        *src += 1;
    }
    let lt = find(s, *src, b'<');
    if needs_space && *src < lt {
        out.push_byte(b' ');
    }
    loop {
        let ws = s[*src..lt].iter().position(|c| is_space(*c)).map_or(lt, |i| *src + i);
        out.extend(&s[*src..ws]);
        *src = ws;
        while *src < lt && is_space(s[*src]) {
            *src += 1;
        }
        if *src < lt {
            out.push_byte(b' ');
        } else {
            break;
        }
    }
    *src = lt;
}

fn extract_text_from_html(s: &[u8], out: &mut ByteStrings) {
    let mut src = 0;
    while src < s.len() {
        let needs_space = out.last_byte().is_some_and(|b| b != b' ');
        copy_text(s, &mut src, out, needs_space);
        let _ = skip_comment(s, &mut src)
            || copy_cdata(s, &mut src, Some(out))
            || skip_element(s, &mut src, b"script")
            || skip_element(s, &mut src, b"style")
            || skip_tag(s, &mut src);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(f: fn(&[u8], &mut ByteStrings), text: &str) -> String {
        let mut out = ByteStrings::with_capacity(1, 0);
        f(text.as_bytes(), &mut out);
        out.finish_value().ok();
        let array = out.finish(None).ok().map(|a| a.as_any().downcast_ref::<datafusion::arrow::array::StringArray>().map(|s| s.value(0).to_string()));
        array.flatten().unwrap_or_default()
    }

    /// chdb's results for the same texts.
    #[test]
    fn decodes_as_clickhouse() {
        assert_eq!(apply(decode_html_component, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&#x41;&#65;&apos;&copy;&unknown;&#xZZ;&#;&amp"), "<a href=\"x\">&'AA'©&unknown;&#xZZ;&#;&amp");
        assert_eq!(apply(decode_html_component, "&a &lt;"), "&a <");
        assert_eq!(apply(decode_html_component, "x&#65x;&#65;&#1114112;&nGt;"), "x&#65x;A&#1114112;\u{226b}\u{20d2}");
    }

    #[test]
    fn extracts_as_clickhouse() {
        assert_eq!(apply(extract_text_from_html, "<p>Hello<b>world</b></p>  <!-- c -->x<script>var a = '</p>';</script>y"), "Hello world x y");
        assert_eq!(apply(extract_text_from_html, "a<![CDATA[<b> c ]]>d<style >x</style >e"), "a<b> c d e");
    }
}
