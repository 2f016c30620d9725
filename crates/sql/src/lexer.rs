//! Tokens with byte offsets, on top of sqlparser's tokenizer (ClickHouse dialect).
//!
//! String literals are re-read from the query text with ClickHouse's escape rules
//! ([`unescape_string_literal`]): sqlparser knows `\n`-style escapes only, not `\xHH`,
//! `\e` or `\N`, and drops the backslash of unknown escapes (`'\d'`), which ClickHouse
//! keeps so that patterns written for `LIKE` and regular expressions keep working.

use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Span, Token, TokenWithSpan, Tokenizer};
use granary_common::{Error, ErrorCode, Result};

/// A token and where it stands in the query text (byte offsets, end exclusive).
#[derive(Debug, Clone)]
pub struct Lexeme {
    pub token: Token,
    /// sqlparser's own location, kept so the tokens can be handed back to its parser.
    pub span: Span,
    pub start: usize,
    pub end: usize,
}

impl Lexeme {
    /// The upper-cased word if this is an unquoted word.
    pub fn keyword_text(&self) -> Option<String> {
        match &self.token {
            Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            _ => None,
        }
    }

    pub fn is_keyword(&self, kw: &str) -> bool {
        matches!(&self.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
    }

    pub fn keyword(&self) -> Keyword {
        match &self.token {
            Token::Word(w) => w.keyword,
            _ => Keyword::NoKeyword,
        }
    }
}

/// Tokenizes `sql`, dropping whitespace and comments.
pub fn lex(sql: &str) -> Result<Vec<Lexeme>> {
    let dialect = ClickHouseDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {e}")))?;
    let mut offsets = LineOffsets::new(sql);
    let mut out: Vec<Lexeme> = Vec::with_capacity(tokens.len());
    // The end of a literal read from the text itself, whose pieces sqlparser tokenized.
    let mut consumed = 0;
    for TokenWithSpan { token, span } in tokens {
        if matches!(token, Token::Whitespace(_) | Token::EOF) {
            continue;
        }
        let start = offsets.byte_offset(span.start.line, span.start.column);
        let end = offsets.byte_offset(span.end.line, span.end.column).max(start);
        if start < consumed {
            continue;
        }
        if let Some((length, number)) = hex_float(&sql[start..]) {
            consumed = start + length;
            out.push(Lexeme { token: number, span, start, end: consumed });
            continue;
        }
        // `b'01000001'`: ClickHouse's binary string literal, bits to bytes.
        if let (Token::SingleQuotedString(bits), Some(previous)) = (&token, out.last_mut()) {
            if previous.end == start && (previous.is_keyword("b") || previous.is_keyword("B")) && bits.bytes().all(|b| b == b'0' || b == b'1') {
                previous.token = Token::SingleQuotedString(binary_string(bits));
                previous.span = Span::new(previous.span.start, span.end);
                previous.end = end;
                continue;
            }
        }
        let token = match token {
            Token::SingleQuotedString(value) => {
                let raw = &sql[start..end];
                let quoted = raw.len() >= 2 && raw.starts_with('\'') && raw.ends_with('\'');
                if quoted && raw.contains('\\') {
                    Token::SingleQuotedString(unescape_string_literal(&raw[1..raw.len() - 1], start)?)
                } else {
                    Token::SingleQuotedString(value)
                }
            }
            Token::Word(mut word) if matches!(word.quote_style, Some('`') | Some('"')) => {
                let raw = &sql[start..end];
                if raw.len() >= 2 && raw.contains('\\') {
                    let quote = raw.as_bytes()[0];
                    word.value = unescape_quoted(&raw[1..raw.len() - 1], quote, start)?;
                }
                Token::Word(word)
            }
            Token::HexStringLiteral(digits) if sql[start..end].starts_with('0') => match prefixed_number(&sql[start..end]) {
                Some(number) => number,
                // `0x` without digits is a name to ClickHouse (an unknown identifier).
                None if digits.is_empty() => Token::make_word(&sql[start..end], None),
                None => Token::HexStringLiteral(digits),
            },
            other => other,
        };
        // `t.1` / `(1, 'a').2`: sqlparser reads `.1` as a number; ClickHouse means the
        // tuple's element. It becomes the field `__tuple_element_1`, which the AST
        // rewrite turns into `tupleElement(t, 1)`.
        if let Token::Number(text, _) = &token {
            let follows_operand = out.last().is_some_and(|previous| {
                previous.end == start && matches!(&previous.token, Token::Word(_) | Token::RParen | Token::RBracket)
            });
            if let Some(index) = text.strip_prefix('.').filter(|i| follows_operand && !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit())) {
                let dot_span = Span::new(span.start, span.start);
                out.push(Lexeme { token: Token::Period, span: dot_span, start, end: start + 1 });
                out.push(Lexeme { token: Token::make_word(&format!("{TUPLE_ELEMENT_PREFIX}{index}"), None), span, start: start + 1, end });
                continue;
            }
        }
        // sqlparser reads `0X1F` and `0b101` as the number 0 followed by a word.
        if let (Token::Word(w), Some(previous)) = (&token, out.last_mut()) {
            if previous.end == start && matches!(&previous.token, Token::Number(n, _) if n == "0") && w.quote_style.is_none() {
                if let Some(number) = prefixed_number(&sql[previous.start..end]) {
                    previous.token = number;
                    previous.span = Span::new(previous.span.start, span.end);
                    previous.end = end;
                    continue;
                }
            }
        }
        out.push(Lexeme { token, span, start, end });
    }
    Ok(out)
}

/// The name a numbered tuple element access (`t.1`) has between lexing and the AST
/// rewrite that makes it `tupleElement(t, 1)`.
pub const TUPLE_ELEMENT_PREFIX: &str = "__tuple_element_";

/// ClickHouse's hexadecimal and binary integer literals (`0x1F`, `0b101`) as decimal
/// numbers: ClickHouse types and names them by value (`SELECT 0x10` is column `16`,
/// UInt8), while sqlparser reads `0x..` as a hex string. None when `text` is not such a
/// literal (`0x` alone, `0b12`), which ClickHouse reads as an identifier.
fn prefixed_number(text: &str) -> Option<Token> {
    let (radix, digits) = match text.get(..2)? {
        "0x" | "0X" => (16, &text[2..]),
        "0b" | "0B" => (2, &text[2..]),
        _ => return None,
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let value = match u64::from_str_radix(digits, radix) {
        Ok(value) => value.to_string(),
        // Past UInt64 ClickHouse keeps the value as a Float64.
        Err(_) => {
            let value = digits.chars().fold(0f64, |acc, c| acc * radix as f64 + c.to_digit(radix).unwrap_or(0) as f64);
            format!("{value:e}")
        }
    };
    Some(Token::Number(value, false))
}

/// ClickHouse's hexadecimal floating-point literal at the start of `text` (`0x1.8p1` is
/// 3, `0x1p-2` 0.25, `0x1.8` 1.5): its length and its value as a decimal number,
/// written as ClickHouse names a float constant (`8.` for an integral value). None
/// unless the literal has a fraction or an exponent (`0x1F` is an integer, read
/// elsewhere) or when a name character follows it (`0x1p` is an identifier).
fn hex_float(text: &str) -> Option<(usize, Token)> {
    let bytes = text.as_bytes();
    if !(text.starts_with("0x") || text.starts_with("0X")) {
        return None;
    }
    let hex_digits = |from: usize| bytes[from..].iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let integer_end = 2 + hex_digits(2);
    if integer_end == 2 {
        return None;
    }
    let mut value = text[2..integer_end].chars().fold(0f64, |acc, c| acc * 16.0 + f64::from(c.to_digit(16).unwrap_or(0)));
    let mut at = integer_end;
    let mut float = false;
    if bytes.get(at) == Some(&b'.') {
        let fraction_end = at + 1 + hex_digits(at + 1);
        let mut scale = 1.0 / 16.0;
        for c in text[at + 1..fraction_end].chars() {
            value += f64::from(c.to_digit(16).unwrap_or(0)) * scale;
            scale /= 16.0;
        }
        at = fraction_end;
        float = true;
    }
    if matches!(bytes.get(at), Some(b'p' | b'P')) {
        let sign_length = usize::from(matches!(bytes.get(at + 1), Some(b'+' | b'-')));
        let digits = bytes[at + 1 + sign_length..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        let exponent_end = at + 1 + sign_length + digits;
        let exponent: i32 = text[at + 1..exponent_end].parse().ok()?;
        value *= 2f64.powi(exponent);
        at = exponent_end;
        float = true;
    }
    if !float || bytes.get(at).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
        return None;
    }
    let mut written = value.to_string();
    if written.bytes().all(|b| b.is_ascii_digit()) {
        written.push('.');
    }
    Some((at, Token::Number(written, false)))
}

/// The bytes of a binary string literal's bits, eight to a byte from the right (the
/// first byte takes what is left over, as in ClickHouse).
fn binary_string(bits: &str) -> String {
    let bits = bits.as_bytes();
    let head = bits.len() % 8;
    let mut bytes = Vec::with_capacity(bits.len() / 8 + 1);
    let value = |group: &[u8]| group.iter().fold(0u8, |acc, b| (acc << 1) | (b - b'0'));
    if head > 0 {
        bytes.push(value(&bits[..head]));
    }
    bytes.extend(bits[head..].chunks(8).map(value));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The value of a single-quoted literal from its text between the quotes, as ClickHouse
/// reads it: `''` is a quote; `\xHH` is the byte HH; `\N` is nothing; `\a \b \e \f \n
/// \r \t \v \0` are control characters; `\\ \' \" \` \/ \=` are the character alone; any
/// other escape keeps its backslash (`'\d'` is two bytes). Bytes that do not form valid
/// UTF-8 (`'\xff'`) become U+FFFD, since Granary's String values are UTF-8 text.
/// `literal_start` (the byte offset of the opening quote) places syntax errors.
pub fn unescape_string_literal(body: &str, literal_start: usize) -> Result<String> {
    unescape_quoted(body, b'\'', literal_start)
}

/// [`unescape_string_literal`] for text quoted with `quote`: identifiers in backquotes
/// or double quotes take the same escapes (`` `c\\d` `` is the name `c\d`).
fn unescape_quoted(body: &str, quote: u8, literal_start: usize) -> Result<String> {
    let body = body.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b if b == quote => {
                // Inside the quotes the quote character is always doubled.
                out.push(quote);
                i += 2;
            }
            b'\\' => {
                let Some(&escaped) = body.get(i + 1) else {
                    return Err(literal_error(literal_start));
                };
                match escaped {
                    b'x' => {
                        let (Some(&high), Some(&low)) = (body.get(i + 2), body.get(i + 3)) else {
                            return Err(literal_error(literal_start));
                        };
                        out.push(unhex_pair(high, low));
                        i += 4;
                    }
                    b'N' => i += 2,
                    _ => {
                        let decoded = match escaped {
                            b'a' => 0x07,
                            b'b' => 0x08,
                            b'e' => 0x1B,
                            b'f' => 0x0C,
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            b'v' => 0x0B,
                            b'0' => 0,
                            other => other,
                        };
                        let stands_alone = matches!(decoded, b'\\' | b'\'' | b'"' | b'`' | b'/' | b'=') || decoded <= 31;
                        if !stands_alone {
                            out.push(b'\\');
                        }
                        out.push(decoded);
                        i += 2;
                    }
                }
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    Ok(match String::from_utf8(out) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// ClickHouse's `unhex2`: each digit through a table where a non-hex character counts
/// as 0xFF, combined as `high * 16 + low` in 8 bits (`'\xZZ'` is 0xEF, as in ClickHouse).
fn unhex_pair(high: u8, low: u8) -> u8 {
    let digit = |c: u8| -> u32 {
        match c {
            b'0'..=b'9' => u32::from(c - b'0'),
            b'a'..=b'f' => u32::from(c - b'a' + 10),
            b'A'..=b'F' => u32::from(c - b'A' + 10),
            _ => 0xFF,
        }
    };
    ((digit(high) * 16 + digit(low)) & 0xFF) as u8
}

fn literal_error(literal_start: usize) -> Error {
    Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: bad escape sequence in the string literal at position {}", literal_start + 1))
}

/// Converts sqlparser's (line, column) locations, counted in characters from 1, to byte
/// offsets. Locations are asked for in increasing order, so a line with multi-byte
/// characters is walked once from a remembered position (walking it from its start for
/// every token made long one-line queries, such as `IN` lists, quadratic).
struct LineOffsets<'a> {
    text: &'a str,
    starts: Vec<usize>,
    ascii: bool,
    /// Last position converted: (line index, characters into the line, byte offset).
    cursor: (usize, usize, usize),
}

impl<'a> LineOffsets<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineOffsets { text, starts, ascii: text.is_ascii(), cursor: (0, 0, 0) }
    }

    fn byte_offset(&mut self, line: u64, column: u64) -> usize {
        let line_index = (line as usize).saturating_sub(1);
        let Some(&line_start) = self.starts.get(line_index) else {
            return self.text.len();
        };
        let chars_in = (column as usize).saturating_sub(1);
        if self.ascii {
            return (line_start + chars_in).min(self.text.len());
        }
        let (cursor_line, cursor_chars, cursor_byte) = self.cursor;
        let (mut chars, mut byte) = if cursor_line == line_index && cursor_chars <= chars_in { (cursor_chars, cursor_byte) } else { (0, line_start) };
        let mut rest = self.text[byte..].chars();
        while chars < chars_in {
            match rest.next() {
                Some(c) => {
                    byte += c.len_utf8();
                    chars += 1;
                }
                None => break,
            }
        }
        self.cursor = (line_index, chars, byte);
        byte
    }
}

/// Splits a script into statements at top-level `;` (quotes and comments respected).
/// Used by `granary local` and the client; the HTTP interface takes one statement.
pub fn split_statements(script: &str) -> Result<Vec<&str>> {
    let lexemes = lex(script)?;
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut last_end = 0;
    for lexeme in &lexemes {
        if lexeme.token == Token::SemiColon {
            if let Some(s) = start.take() {
                out.push(script[s..last_end].trim());
            }
            continue;
        }
        if start.is_none() {
            start = Some(lexeme.start);
        }
        last_end = lexeme.end;
    }
    if let Some(s) = start {
        out.push(script[s..].trim().trim_end_matches(';').trim());
    }
    Ok(out.into_iter().filter(|s| !s.is_empty()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_binary_numbers_are_decimal_numbers() {
        let tokens = |sql: &str| lex(sql).unwrap().into_iter().map(|l| l.token).collect::<Vec<_>>();
        assert_eq!(tokens("SELECT 0x10")[1], Token::Number("16".into(), false));
        assert_eq!(tokens("SELECT 0XfF")[1], Token::Number("255".into(), false));
        assert_eq!(tokens("SELECT 0b101, 1")[1], Token::Number("5".into(), false));
        assert_eq!(tokens("SELECT 0b101, 1").len(), 4);
        assert_eq!(tokens("SELECT x'41'")[1], Token::HexStringLiteral("41".into()));
        assert!(matches!(&tokens("SELECT 0b12")[2], Token::Word(w) if w.value == "b12"));
    }

    #[test]
    fn hex_floats_and_binary_strings() {
        let tokens = |sql: &str| lex(sql).unwrap().into_iter().map(|l| l.token).collect::<Vec<_>>();
        assert_eq!(tokens("SELECT 0x1p3")[1], Token::Number("8.".into(), false));
        assert_eq!(tokens("SELECT 0x1.8p1, 0X1P-2")[1], Token::Number("3.".into(), false));
        assert_eq!(tokens("SELECT 0x1.8p1, 0X1P-2")[3], Token::Number("0.25".into(), false));
        assert_eq!(tokens("SELECT 0xA.8, 1").len(), 4);
        assert_eq!(tokens("SELECT 0x10")[1], Token::Number("16".into(), false));
        assert_eq!(tokens("SELECT b'01000001'")[1], Token::SingleQuotedString("A".into()));
        assert_eq!(tokens("SELECT b'1000001000001'")[1], Token::SingleQuotedString("\u{10}A".into()));
    }

    #[test]
    fn offsets_are_bytes() {
        let sql = "SELECT 'é', x\nFROM t";
        let lx = lex(sql).unwrap();
        let from = lx.iter().find(|l| l.is_keyword("FROM")).unwrap();
        assert_eq!(&sql[from.start..from.end], "FROM");
        let t = lx.last().unwrap();
        assert_eq!(&sql[t.start..t.end], "t");
    }

    #[test]
    fn offsets_of_multibyte_lines_in_any_order() {
        let sql = "SELECT 'héllo', 'wörld'\n, 'ü' AS x";
        let lx = lex(sql).unwrap();
        let texts: Vec<&str> = lx.iter().map(|l| &sql[l.start..l.end]).collect();
        assert_eq!(texts, vec!["SELECT", "'héllo'", ",", "'wörld'", ",", "'ü'", "AS", "x"]);
        let mut offsets = LineOffsets::new(sql);
        assert_eq!(offsets.byte_offset(1, 17), 17);
        assert_eq!(offsets.byte_offset(1, 8), 7);
        assert_eq!(offsets.byte_offset(2, 3), sql.find('\'').map(|_| sql.rfind("'ü'").unwrap()).unwrap());
    }

    #[test]
    fn string_literals_use_clickhouse_escapes() {
        let value = |sql: &str| match &lex(sql).unwrap()[1].token {
            Token::SingleQuotedString(s) => s.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(value(r"SELECT '\x41\x7f'"), "A\x7f");
        assert_eq!(value(r"SELECT '\xe2\x98\x83'"), "☃");
        assert_eq!(value(r"SELECT '\xff'"), "\u{FFFD}");
        assert_eq!(value(r"SELECT '\d\%\_\?\c'"), r"\d\%\_\?\c");
        assert_eq!(value(r#"SELECT '\/\=\"\`\\\''"#), "/=\"`\\'");
        assert_eq!(value(r"SELECT '\a\b\e\f\n\r\t\v\0'"), "\x07\x08\x1b\x0c\n\r\t\x0b\0");
        assert_eq!(value(r"SELECT 'a\Nb', 'x'"), "ab");
        assert_eq!(value(r"SELECT 'it''s\n'"), "it's\n");
        assert_eq!(value(r"SELECT '\xZZ'"), "\u{FFFD}");
        assert_eq!(value(r"SELECT '\x4g'"), "?");
        assert!(lex(r"SELECT '\x4'").is_err());
    }

    #[test]
    fn splits_statements() {
        let s = split_statements("SELECT 1; SELECT ';' -- c;\n; INSERT INTO t VALUES (1)").unwrap();
        assert_eq!(s, vec!["SELECT 1", "SELECT ';'", "INSERT INTO t VALUES (1)"]);
    }
}
