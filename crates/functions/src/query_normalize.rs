//! `normalizeQuery`, `normalizeQueryKeepNames`, `normalizedQueryHash`,
//! `normalizedQueryHashKeepNames`: ClickHouse's query normalization
//! (`queryNormalization.cpp`) over the tokens of its SQL lexer. Literals become `?`, a
//! comma-separated run of them `?..`, whitespace and comments one space; identifiers that
//! look generated (36 bytes or more, whitespace, or more than two digits) become `` `?` ``
//! unless names are kept. The hash is SipHash-2-4 of the same token stream, literals as a
//! zero byte and generated names as a one byte.
//!
//! The lexer here is the part of ClickHouse's `Lexer` that decides these results: where
//! whitespace, comments, numbers, strings, heredocs, quoted identifiers and bare words
//! begin and end, and which characters it refuses (normalization stops there). Other
//! punctuation is copied as it is, so it needs no finer tokens.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, UInt64Array};
use datafusion::logical_expr::ScalarUDF;
use granary_common::hash::SipHasher;
use granary_types::ChType;

use crate::args::Arity;
use crate::func::ScalarDef;
use crate::string::text_bytes;
use crate::string_extra::{plain_string_only, string_map_checked};
use crate::text::ByteStrings;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        string_map_checked("normalizeQuery", plain_string_only, normalize_query),
        string_map_checked("normalizeQueryKeepNames", plain_string_only, normalize_query_keep_names),
        hash_function("normalizedQueryHash", false),
        hash_function("normalizedQueryHashKeepNames", true),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Whitespace,
    Comment,
    BareWord,
    Number,
    StringLiteral,
    QuotedIdentifier,
    HereDoc,
    Comma,
    Plus,
    Minus,
    Dot,
    ClosingBracket,
    Other,
    Error,
    End,
}

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    prev_significant: Kind,
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0C | 0x0B)
}

impl<'a> Lexer<'a> {
    fn new(s: &'a [u8]) -> Self {
        Lexer { s, pos: 0, prev_significant: Kind::Whitespace }
    }

    /// The next token: its kind and byte range.
    fn next_token(&mut self) -> (Kind, usize, usize) {
        let begin = self.pos;
        let kind = self.lex();
        if !matches!(kind, Kind::Whitespace | Kind::Comment) {
            self.prev_significant = kind;
        }
        (kind, begin, self.pos)
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.s.get(i).copied()
    }

    fn lex(&mut self) -> Kind {
        let s = self.s;
        let Some(c) = self.at(self.pos) else { return Kind::End };
        let end = s.len();
        match c {
            _ if is_space(c) => {
                while self.pos < end && is_space(s[self.pos]) {
                    self.pos += 1;
                }
                Kind::Whitespace
            }
            b'0'..=b'9' => self.number(),
            b'\'' => self.quoted(b'\'', Kind::StringLiteral),
            b'"' | b'`' => self.quoted(c, Kind::QuotedIdentifier),
            b'.' => {
                let digit_follows = self.at(self.pos + 1).is_some_and(|d| d.is_ascii_digit());
                let after_operand = matches!(self.prev_significant, Kind::ClosingBracket | Kind::BareWord | Kind::QuotedIdentifier | Kind::Number);
                self.pos += 1;
                if self.pos > 1 && (!digit_follows || after_operand) {
                    return Kind::Dot;
                }
                self.digits();
                if self.pos + 1 < end && matches!(s[self.pos], b'e' | b'E') {
                    self.pos += 1;
                    if self.pos + 1 < end && matches!(s[self.pos], b'-' | b'+') {
                        self.pos += 1;
                    }
                    self.digits();
                }
                Kind::Number
            }
            b',' => self.single(Kind::Comma),
            b'+' => self.single(Kind::Plus),
            b')' | b']' => self.single(Kind::ClosingBracket),
            b'-' => match self.at(self.pos + 1) {
                Some(b'-') => self.line_comment(),
                Some(b'>') => {
                    self.pos += 2;
                    Kind::Other
                }
                _ => self.single(Kind::Minus),
            },
            b'/' if self.at(self.pos + 1) == Some(b'*') => {
                self.pos += 2;
                let mut depth = 1;
                while self.pos + 2 <= end {
                    if s[self.pos] == b'/' && s[self.pos + 1] == b'*' {
                        self.pos += 2;
                        depth += 1;
                    } else if s[self.pos] == b'*' && s[self.pos + 1] == b'/' {
                        self.pos += 2;
                        depth -= 1;
                        if depth == 0 {
                            return Kind::Comment;
                        }
                    } else {
                        self.pos += 1;
                    }
                }
                self.pos = end;
                Kind::Error
            }
            b'#' => match self.at(self.pos + 1) {
                Some(b' ' | b'!') => self.line_comment(),
                _ => self.single(Kind::Error),
            },
            b'!' => match self.at(self.pos + 1) {
                Some(b'=') => {
                    self.pos += 2;
                    Kind::Other
                }
                _ => self.single(Kind::Error),
            },
            b'$' => self.dollar(),
            _ if is_word(c) => {
                self.word();
                Kind::BareWord
            }
            b'(' | b'[' | b'{' | b'}' | b';' | b':' | b'?' | b'@' | b'%' | b'*' | b'/' | b'=' | b'<' | b'>' | b'|' | b'^' | b'\\' => {
                self.single(Kind::Other)
            }
            _ => self.single(Kind::Error),
        }
    }

    fn single(&mut self, kind: Kind) -> Kind {
        self.pos += 1;
        kind
    }

    fn digits(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
    }

    fn word(&mut self) {
        while self.pos < self.s.len() && (is_word(self.s[self.pos]) || self.s[self.pos] == b'$') {
            self.pos += 1;
        }
    }

    fn line_comment(&mut self) -> Kind {
        self.pos = self.s[self.pos..].iter().position(|c| *c == b'\n').map_or(self.s.len(), |i| self.pos + i);
        Kind::Comment
    }

    fn quoted(&mut self, quote: u8, kind: Kind) -> Kind {
        let s = self.s;
        self.pos += 1;
        loop {
            match s[self.pos..].iter().position(|c| *c == quote || *c == b'\\') {
                None => {
                    self.pos = s.len();
                    return Kind::Error;
                }
                Some(i) => {
                    self.pos += i;
                    if s[self.pos] == quote {
                        self.pos += 1;
                        if self.at(self.pos) == Some(quote) {
                            self.pos += 1;
                            continue;
                        }
                        return kind;
                    }
                    self.pos += 1;
                    if self.pos >= s.len() {
                        return Kind::Error;
                    }
                    self.pos += 1;
                }
            }
        }
    }

    /// ClickHouse's number scan: digits (hex after `0x`, binary after `0b`), `_` between
    /// digits, a fraction and an exponent; a word glued to it makes it a bare word.
    fn number(&mut self) -> Kind {
        let s = self.s;
        let end = s.len();
        let begin = self.pos;
        if self.prev_significant == Kind::Dot {
            self.pos += 1;
            self.digits();
        } else {
            let mut hex = false;
            if self.pos + 2 < end && s[self.pos] == b'0' && matches!(s[self.pos + 1], b'x' | b'X' | b'b' | b'B') {
                let valid = if matches!(s[self.pos + 1], b'x' | b'X') {
                    hex = s[self.pos + 2].is_ascii_hexdigit();
                    hex
                } else {
                    matches!(s[self.pos + 2], b'0' | b'1')
                };
                self.pos += if valid { 2 } else { 1 };
            } else {
                self.pos += 1;
            }
            let is_digit = |c: u8| if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() };
            let run = |lexer: &mut Self| {
                while lexer.pos < end && (is_digit(s[lexer.pos]) || (s[lexer.pos] == b'_' && lexer.pos > begin && is_digit(s[lexer.pos - 1]) && lexer.pos + 1 < end && is_digit(s[lexer.pos + 1]))) {
                    lexer.pos += 1;
                }
            };
            run(self);
            if self.at(self.pos) == Some(b'.') {
                self.pos += 1;
                run(self);
            }
            if self.pos + 1 < end && (if hex { matches!(s[self.pos], b'p' | b'P') } else { matches!(s[self.pos], b'e' | b'E') }) {
                self.pos += 1;
                if self.pos + 1 < end && matches!(s[self.pos], b'-' | b'+') {
                    self.pos += 1;
                }
                self.digits();
            }
        }
        if self.pos < end && is_word(s[self.pos]) {
            self.pos += 1;
            self.word();
            let glued = &s[begin..self.pos];
            return if glued.iter().all(|c| is_word(*c) || *c == b'$') { Kind::BareWord } else { Kind::Error };
        }
        Kind::Number
    }

    /// `$name$ ... $name$` heredocs, a lone `$`, or a bare word starting with `$`.
    fn dollar(&mut self) -> Kind {
        let rest = &self.s[self.pos..];
        if let Some(name_end) = rest[1..].iter().position(|c| *c == b'$').map(|i| i + 1) {
            let tag = &rest[..=name_end];
            if let Some(close) = rest[tag.len()..].windows(tag.len()).position(|w| w == tag) {
                self.pos += tag.len() + close + tag.len();
                return Kind::HereDoc;
            }
        }
        if rest.get(1).is_none_or(|c| !is_word(*c)) {
            return self.single(Kind::Other);
        }
        self.word();
        Kind::BareWord
    }
}

/// Whether an identifier looks generated.
fn is_complex_identifier(name: &[u8]) -> bool {
    name.len() >= 36 || name.iter().any(|c| is_space(*c)) || name.iter().filter(|c| c.is_ascii_digit()).count() > 2
}

/// Whether a token is a name to keep or replace: quoted, or a bare word not directly
/// followed by `(` (a function name).
fn is_name(s: &[u8], kind: Kind, end: usize) -> bool {
    kind == Kind::QuotedIdentifier || kind == Kind::BareWord && s.get(end) != Some(&b'(')
}

fn is_literal(kind: Kind) -> bool {
    matches!(kind, Kind::Number | Kind::StringLiteral | Kind::HereDoc)
}

/// ClickHouse's `normalizeQueryToPODArray` (text) and `normalizedQueryHash` (the bytes
/// it hashes), which walk the tokens alike: `emit` gets each piece in order. The hash
/// leaves out whitespace and writes a literal run as one zero byte (two when longer than
/// one literal) and a generated name as a one byte.
fn normalize_tokens(s: &[u8], keep_names: bool, for_hash: bool, emit: &mut dyn FnMut(&[u8])) {
    let mut lexer = Lexer::new(s);
    let (mut prev_insignificant, mut literals, mut prev_comma, mut prev_whitespace) = (false, 0usize, false, false);
    loop {
        let (kind, begin, end) = lexer.next_token();
        if matches!(kind, Kind::Whitespace | Kind::Comment) {
            if !for_hash && !prev_insignificant {
                if literals == 0 {
                    // Leading whitespace is dropped.
                    if begin != 0 {
                        emit(b" ");
                    }
                } else {
                    prev_whitespace = true;
                }
            }
            prev_insignificant = true;
            continue;
        }
        prev_insignificant = false;
        if is_literal(kind) {
            if literals == 0 {
                emit(if for_hash { b"\x00" } else { b"?" });
            }
            literals += 1;
            prev_whitespace = false;
            prev_comma = false;
            continue;
        }
        if kind == Kind::Comma {
            if literals > 0 {
                prev_comma = true;
                continue;
            }
        } else if !for_hash && prev_comma && matches!(kind, Kind::Plus | Kind::Minus) {
            continue;
        } else {
            if literals > 1 {
                emit(if for_hash { &b"\x00"[..] } else { &b".."[..] });
            }
            if prev_comma {
                emit(b",");
            }
            if prev_whitespace {
                emit(b" ");
            }
            literals = 0;
            prev_comma = false;
            prev_whitespace = false;
        }
        if is_name(s, kind, end) {
            if keep_names || !is_complex_identifier(&s[begin..end]) {
                emit(&s[begin..end]);
            } else {
                emit(if for_hash { &b"\x01"[..] } else { &b"`?`"[..] });
            }
            continue;
        }
        if matches!(kind, Kind::End | Kind::Error) {
            break;
        }
        emit(&s[begin..end]);
    }
}

fn normalize(s: &[u8], keep_names: bool, out: &mut ByteStrings) {
    normalize_tokens(s, keep_names, false, &mut |piece| out.extend(piece));
}

fn normalize_query(s: &[u8], out: &mut ByteStrings) {
    normalize(s, false, out);
}

fn normalize_query_keep_names(s: &[u8], out: &mut ByteStrings) {
    normalize(s, true, out);
}

/// SipHash-2-4 of the pieces, as one stream.
fn normalized_hash(s: &[u8], keep_names: bool) -> u64 {
    let mut hasher = SipHasher::new();
    normalize_tokens(s, keep_names, true, &mut |piece| hasher.update(piece));
    hasher.finish64()
}

fn hash_function(name: &'static str, keep_names: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            plain_string_only(ctx)?;
            Ok(ChType::UInt64)
        },
        move |ctx| {
            let texts = text_bytes(&ctx.array(0)?);
            let hashes: UInt64Array = (0..ctx.len).map(|row| normalized_hash(texts.value(row), keep_names)).collect();
            Ok(Arc::new(hashes) as ArrayRef)
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalized(text: &str, keep_names: bool) -> String {
        let mut out = ByteStrings::with_capacity(1, 0);
        normalize(text.as_bytes(), keep_names, &mut out);
        let end = out.current_len();
        out.finish_value().ok();
        let array = out.finish(None).ok();
        let value = array.as_ref().and_then(|a| a.as_any().downcast_ref::<datafusion::arrow::array::StringArray>()).map(|s| s.value(0).to_string());
        assert_eq!(value.as_ref().map(|v| v.len()), Some(end));
        value.unwrap_or_default()
    }

    /// chdb's `normalizeQuery` of the same queries.
    #[test]
    fn normalizes_as_clickhouse() {
        assert_eq!(
            normalized(r#"SELECT 1, 'abc', 1.5e3, [1,2,3], (1, 'a'), x IN (1, 2, 3) FROM t WHERE y = -5 AND z = "col"  -- comment"#, false),
            r#"SELECT ?.., [?..], (?..), x IN (?..) FROM t WHERE y = -? AND z = "col" "#
        );
        assert_eq!(normalized("select   *\nfrom\ttable_123 /* c */ where a=0x1F and b=''  ;", false), "select * from `?` where a=? and b=? ;");
        assert_eq!(
            normalized("SELECT [1, 2], [], (), f(1,2), tuple(1,2,3), arr[1], 1 + 2, NULL, true, x.1", false),
            "SELECT [?..], [], (), f(?..), tuple(?..), arr[?], ? + ?, NULL, true, x.?"
        );
        assert_eq!(normalized("SELECT a1, a_2, abc123, `q1`, db.t3 FROM t", false), "SELECT a1, a_2, `?`, `q1`, db.t3 FROM t");
        assert_eq!(normalized("SELECT a1, abc123 FROM t", true), "SELECT a1, abc123 FROM t");
    }

    #[test]
    fn hashes_as_clickhouse() {
        assert_eq!(normalized_hash(b"SELECT 1", false), 15722048748544463130);
        assert_eq!(normalized_hash(b"SELECT 2", true), 15722048748544463130);
    }
}
