//! Tokens with byte offsets, on top of sqlparser's tokenizer (ClickHouse dialect).

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
    let mut out = Vec::with_capacity(tokens.len());
    for TokenWithSpan { token, span } in tokens {
        if matches!(token, Token::Whitespace(_) | Token::EOF) {
            continue;
        }
        let start = offsets.byte_offset(span.start.line, span.start.column);
        let end = offsets.byte_offset(span.end.line, span.end.column);
        out.push(Lexeme { token, span, start, end: end.max(start) });
    }
    Ok(out)
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
    fn splits_statements() {
        let s = split_statements("SELECT 1; SELECT ';' -- c;\n; INSERT INTO t VALUES (1)").unwrap();
        assert_eq!(s, vec!["SELECT 1", "SELECT ';'", "INSERT INTO t VALUES (1)"]);
    }
}
