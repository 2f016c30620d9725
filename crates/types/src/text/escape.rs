//! String escaping per style, and the reverse for input.
//!
//! Writers copy runs of bytes that need no escaping in one `extend_from_slice`, found
//! through a 256-entry table, so plain text costs one pass and one copy.

use granary_common::{Error, ErrorCode, Result};

/// For TSV and quoted strings: the escape letter of each byte that must be escaped.
static BACKSLASH_ESCAPES: [u8; 256] = {
    let mut t = [0u8; 256];
    t[0x00] = b'0';
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0A] = b'n';
    t[0x0C] = b'f';
    t[0x0D] = b'r';
    t[b'\\' as usize] = b'\\';
    t[b'\'' as usize] = b'\'';
    t
};

fn write_backslash_escaped(bytes: &[u8], out: &mut Vec<u8>) {
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc = BACKSLASH_ESCAPES[b as usize];
        if esc != 0 {
            out.extend_from_slice(&bytes[start..i]);
            out.push(b'\\');
            out.push(esc);
            start = i + 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
}

/// TabSeparated: `\t \n \\ \' \0 \b \f \r` escaped, everything else as is.
pub fn write_tsv_escaped(bytes: &[u8], out: &mut Vec<u8>) {
    write_backslash_escaped(bytes, out);
}

/// Quoted (Values, array elements): `'...'` with the TSV escapes.
pub fn write_quoted(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(bytes.len() + 2);
    out.push(b'\'');
    write_backslash_escaped(bytes, out);
    out.push(b'\'');
}

/// CSV: `"..."` with `"` doubled.
pub fn write_csv_quoted(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    for i in memchr::memchr_iter(b'"', bytes) {
        out.extend_from_slice(&bytes[start..=i]);
        out.push(b'"');
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Doubles the `"` in `out[from..]` and wraps that region in `"`: a CSV field made of
/// text already written (arrays and maps are written in quoted style first).
pub fn csv_quote_tail(out: &mut Vec<u8>, from: usize) {
    let quotes = memchr::memchr_iter(b'"', &out[from..]).count();
    if quotes == 0 {
        out.insert(from, b'"');
        out.push(b'"');
        return;
    }
    let tail: Vec<u8> = out.split_off(from);
    write_csv_quoted(&tail, out);
}

/// XML text content, as ClickHouse's `writeXMLStringForTextElement`: `<` and `&` as
/// entities, everything else (`>`, quotes, control bytes) as it is.
pub fn write_xml_escaped(bytes: &[u8], out: &mut Vec<u8>) {
    let mut start = 0;
    for i in memchr::memchr2_iter(b'<', b'&', bytes) {
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(if bytes[i] == b'<' { b"&lt;" } else { b"&amp;" });
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// Markdown (`output_format_markdown_escape_special_characters`): a backslash before
/// every ASCII punctuation character, other bytes as they are.
pub fn write_markdown_escaped(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        if b.is_ascii_punctuation() {
            out.push(b'\\');
        }
        out.push(b);
    }
}

/// Which bytes a JSON string escapes: 1 = control or quote/backslash, 2 = `/`,
/// 3 = the lead byte of U+2028/U+2029.
static JSON_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 1;
        i += 1;
    }
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 1;
    t[b'/' as usize] = 2;
    t[0xE2] = 3;
    t
};

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// A JSON string as ClickHouse writes it: `\" \\ \b \f \n \r \t`, other control bytes
/// as `\u00XX`, `/` as `\/` when `escape_slash`, U+2028/U+2029 as `\u2028`/`\u2029`
/// (they end lines in JavaScript), other bytes (invalid UTF-8 too) as they are.
pub fn write_json_string(bytes: &[u8], escape_slash: bool, out: &mut Vec<u8>) {
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match JSON_CLASS[b as usize] {
            0 => {
                i += 1;
                continue;
            }
            2 if !escape_slash => {
                i += 1;
                continue;
            }
            3 => {
                if bytes.get(i + 1) == Some(&0x80) && matches!(bytes.get(i + 2), Some(0xA8) | Some(0xA9)) {
                    out.extend_from_slice(&bytes[start..i]);
                    out.extend_from_slice(if bytes[i + 2] == 0xA8 { b"\\u2028" } else { b"\\u2029" });
                    i += 3;
                    start = i;
                } else {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        out.extend_from_slice(&bytes[start..i]);
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'/' => out.extend_from_slice(b"\\/"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            other => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX_UPPER[(other >> 4) as usize]);
                out.push(HEX_UPPER[(other & 15) as usize]);
            }
        }
        i += 1;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// The byte a backslash escape stands for in TSV and quoted strings (`\t`, `\n`...);
/// an unknown letter stands for itself (`\/` is `/`), as in ClickHouse.
pub fn unescape_letter(letter: u8) -> u8 {
    match letter {
        b'b' => 0x08,
        b'f' => 0x0C,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'0' => 0,
        b'a' => 0x07,
        b'v' => 0x0B,
        b'e' => 0x1B,
        other => other,
    }
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes the backslash escapes of a TSV field (`\N` is handled by the caller) into
/// `out`; `\xHH` is a byte in hex.
pub fn unescape_tsv(field: &[u8], out: &mut Vec<u8>) {
    let mut start = 0;
    let mut i = 0;
    while let Some(offset) = memchr::memchr(b'\\', &field[i..]) {
        let at = i + offset;
        out.extend_from_slice(&field[start..at]);
        match field.get(at + 1) {
            Some(b'x') if field.len() > at + 3 => match (hex_value(field[at + 2]), hex_value(field[at + 3])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i = at + 4;
                }
                _ => {
                    out.push(b'x');
                    i = at + 2;
                }
            },
            Some(&letter) => {
                out.push(unescape_letter(letter));
                i = at + 2;
            }
            None => {
                // A lone backslash at the very end stays a backslash.
                out.push(b'\\');
                i = at + 1;
            }
        }
        start = i;
    }
    out.extend_from_slice(&field[start..]);
}

/// Reads a single-quoted string starting at `*pos` (which is at the opening quote):
/// appends the decoded bytes to `out` and moves `*pos` past the closing quote. `''`
/// inside is one quote, as in SQL.
pub fn read_quoted_string(input: &[u8], pos: &mut usize, out: &mut Vec<u8>) -> Result<()> {
    let quote = input[*pos];
    let mut i = *pos + 1;
    loop {
        let Some(offset) = memchr::memchr2(quote, b'\\', &input[i..]) else {
            return Err(Error::new(
                ErrorCode::CANNOT_PARSE_QUOTED_STRING,
                format!("Cannot parse quoted string: expected closing quote before: '{}'", shorten(&input[*pos..])),
            ));
        };
        let at = i + offset;
        out.extend_from_slice(&input[i..at]);
        if input[at] == b'\\' {
            match input.get(at + 1) {
                Some(b'x') if input.len() > at + 3 && hex_value(input[at + 2]).is_some() && hex_value(input[at + 3]).is_some() => {
                    out.push(hex_value(input[at + 2]).unwrap_or(0) * 16 + hex_value(input[at + 3]).unwrap_or(0));
                    i = at + 4;
                }
                Some(&letter) => {
                    out.push(unescape_letter(letter));
                    i = at + 2;
                }
                None => i = at + 1,
            }
        } else if input.get(at + 1) == Some(&quote) {
            out.push(quote);
            i = at + 2;
        } else {
            *pos = at + 1;
            return Ok(());
        }
    }
}

/// Decodes a JSON string starting at `*pos` (at the opening `"`) into `out`, moving
/// `*pos` past the closing quote.
pub fn read_json_string(input: &[u8], pos: &mut usize, out: &mut Vec<u8>) -> Result<()> {
    let bad = |what: &str, at: usize| {
        Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse JSON string: {what} before: '{}'", shorten(&input[at.min(input.len())..])))
    };
    let mut i = *pos + 1;
    loop {
        let Some(offset) = memchr::memchr2(b'"', b'\\', &input[i..]) else {
            return Err(bad("expected closing quote", *pos));
        };
        let at = i + offset;
        out.extend_from_slice(&input[i..at]);
        if input[at] == b'"' {
            *pos = at + 1;
            return Ok(());
        }
        let Some(&letter) = input.get(at + 1) else {
            return Err(bad("unfinished escape sequence", at));
        };
        i = at + 2;
        match letter {
            b'"' | b'\\' | b'/' => out.push(letter),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0C),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'u' => {
                let mut code = read_hex4(input, i).ok_or_else(|| bad("invalid \\u escape", at))?;
                i += 4;
                if (0xD800..0xDC00).contains(&code) {
                    // A surrogate pair: the low half must follow as another \u escape.
                    if input.get(i) == Some(&b'\\') && input.get(i + 1) == Some(&b'u') {
                        let low = read_hex4(input, i + 2).ok_or_else(|| bad("invalid \\u escape", i))?;
                        if (0xDC00..0xE000).contains(&low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                            i += 6;
                        }
                    }
                }
                let c = char::from_u32(code).unwrap_or('\u{FFFD}');
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            _ => return Err(bad("invalid escape sequence", at)),
        }
    }
}

fn read_hex4(input: &[u8], at: usize) -> Option<u32> {
    let digits = input.get(at..at + 4)?;
    digits.iter().try_fold(0u32, |acc, b| Some(acc * 16 + hex_value(*b)? as u32))
}

/// Text of input for an error message: at most 64 bytes, invalid UTF-8 replaced,
/// control characters shown escaped.
pub fn shorten(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(64)];
    let mut text = String::with_capacity(cut.len());
    for c in String::from_utf8_lossy(cut).chars() {
        match c {
            '\n' => text.push_str("\\n"),
            '\t' => text.push_str("\\t"),
            '\r' => text.push_str("\\r"),
            '\0' => text.push_str("\\0"),
            c => text.push(c),
        }
    }
    text
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn s(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut out = Vec::new();
        f(&mut out);
        out
    }

    #[test]
    fn tsv_and_quoted() {
        let input = b"a\tb\nc\\d'e\"q\0f\x08g\x0ch\ri\x01j/k";
        assert_eq!(s(|o| write_tsv_escaped(input, o)), b"a\\tb\\nc\\\\d\\'e\"q\\0f\\bg\\fh\\ri\x01j/k".to_vec());
        assert_eq!(s(|o| write_quoted(b"it's", o)), b"'it\\'s'".to_vec());
        let mut back = Vec::new();
        unescape_tsv(&s(|o| write_tsv_escaped(input, o)), &mut back);
        assert_eq!(back, input.to_vec());
        let mut back = Vec::new();
        unescape_tsv(b"\\x41\\/\\", &mut back);
        assert_eq!(back, b"A/\\".to_vec());
    }

    #[test]
    fn csv() {
        assert_eq!(s(|o| write_csv_quoted(b"a\"b", o)), b"\"a\"\"b\"".to_vec());
        let mut out = b"x,".to_vec();
        out.extend_from_slice(b"['a\"']");
        csv_quote_tail(&mut out, 2);
        assert_eq!(out, b"x,\"['a\"\"']\"".to_vec());
    }

    #[test]
    fn json() {
        let input = "a\tb\nc\\d'e\"q\0f\x08g\x0ch\ri\x01j/k\x1b\x7f\u{2028}\u{2029}€".as_bytes();
        let expected = "\"a\\tb\\nc\\\\d'e\\\"q\\u0000f\\bg\\fh\\ri\\u0001j\\/k\\u001B\x7f\\u2028\\u2029€\"";
        assert_eq!(String::from_utf8(s(|o| write_json_string(input, true, o))).unwrap(), expected);
        assert_eq!(s(|o| write_json_string(b"a/b", false, o)), b"\"a/b\"".to_vec());
        let mut out = Vec::new();
        let mut pos = 0;
        read_json_string(expected.as_bytes(), &mut pos, &mut out).unwrap();
        assert_eq!(out, input.to_vec());
        assert_eq!(pos, expected.len());
        let mut out = Vec::new();
        let mut pos = 0;
        read_json_string(b"\"\\ud83d\\ude00\"", &mut pos, &mut out).unwrap();
        assert_eq!(out, "😀".as_bytes().to_vec());
        assert!(read_json_string(b"\"abc", &mut 0, &mut Vec::new()).is_err());
        assert!(read_json_string(b"\"\\q\"", &mut 0, &mut Vec::new()).is_err());
    }

    #[test]
    fn quoted_strings() {
        let mut out = Vec::new();
        let mut pos = 1;
        read_quoted_string(b"['it\\'s','a''b']", &mut pos, &mut out).unwrap();
        assert_eq!(out, b"it's".to_vec());
        assert_eq!(pos, 8);
        out.clear();
        pos = 9;
        read_quoted_string(b"['it\\'s','a''b']", &mut pos, &mut out).unwrap();
        assert_eq!(out, b"a'b".to_vec());
        assert!(read_quoted_string(b"'abc", &mut 0, &mut Vec::new()).is_err());
    }
}
