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
    let offsets = LineOffsets::new(sql);
    let mut out = Vec::with_capacity(tokens.len());
    for TokenWithSpan { token, span } in tokens {
        if matches!(token, Token::Whitespace(_) | Token::EOF) {
            continue;
        }
        let start = offsets.byte_offset(sql, span.start.line, span.start.column);
        let end = offsets.byte_offset(sql, span.end.line, span.end.column);
        out.push(Lexeme { token, span, start, end: end.max(start) });
    }
    Ok(out)
}

/// Converts sqlparser's (line, column) locations, counted in characters from 1, to byte offsets.
struct LineOffsets {
    starts: Vec<usize>,
}

impl LineOffsets {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineOffsets { starts }
    }

    fn byte_offset(&self, text: &str, line: u64, column: u64) -> usize {
        let Some(&line_start) = self.starts.get((line as usize).saturating_sub(1)) else {
            return text.len();
        };
        let chars_in = (column as usize).saturating_sub(1);
        text[line_start..].char_indices().nth(chars_in).map(|(i, _)| line_start + i).unwrap_or(text.len())
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
    fn splits_statements() {
        let s = split_statements("SELECT 1; SELECT ';' -- c;\n; INSERT INTO t VALUES (1)").unwrap();
        assert_eq!(s, vec!["SELECT 1", "SELECT ';'", "INSERT INTO t VALUES (1)"]);
    }
}
