//! ClickHouse path globs: `*` (any characters but `/`), `**` (any characters, `/`
//! included), `?` (one character but `/`), `{a,b,c}` (alternatives) and `{N..M}`
//! (a number range; `{01..10}` keeps the leading zeros: `01`, `02`, ..., `10`).
//!
//! A pattern is matched against whole paths (or keys); listing starts at
//! [`Glob::literal_prefix`], the longest part before the first glob character, so a
//! bucket or directory is never walked beyond what the pattern can match.

use granary_common::{Error, ErrorCode, Result};

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(String),
    /// `*`: any run of characters without `/`.
    Star,
    /// `**`: any run of characters.
    DoubleStar,
    /// `?`: one character that is not `/`.
    Any,
    /// A whole `**/` path segment in a local path: zero or more directories.
    AnyDirs,
    /// `{a,b}` and expanded `{N..M}`.
    OneOf(Vec<String>),
}

/// A parsed glob pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    tokens: Vec<Token>,
    pattern: String,
}

/// Whether the text has any glob syntax (a plain path is read without listing).
pub fn has_glob(text: &str) -> bool {
    text.contains(['*', '?', '{'])
}

impl Glob {
    /// A glob over object keys: `**` is any run of characters (ClickHouse's s3()).
    pub fn new(pattern: &str) -> Result<Glob> {
        Self::parse(pattern, false)
    }

    /// A glob over local paths, as ClickHouse's file() walks directories: `**` is
    /// recursive only as a whole path segment (`dir/**/x`, `dir/**`; `**/` also matches
    /// no directory at all); `**.csv` inside a segment is the same as `*.csv`.
    pub fn new_local(pattern: &str) -> Result<Glob> {
        Self::parse(pattern, true)
    }

    fn parse(pattern: &str, local: bool) -> Result<Glob> {
        let mut tokens = Vec::new();
        let mut literal = String::new();
        let mut chars = pattern.char_indices().peekable();
        let flush = |literal: &mut String, tokens: &mut Vec<Token>| {
            if !literal.is_empty() {
                tokens.push(Token::Literal(std::mem::take(literal)));
            }
        };
        while let Some((i, c)) = chars.next() {
            match c {
                '*' => {
                    flush(&mut literal, &mut tokens);
                    if chars.peek().is_some_and(|(_, c)| *c == '*') {
                        chars.next();
                        let segment_start = i == 0 || pattern[..i].ends_with('/');
                        let rest = &pattern[i + 2..];
                        if !local {
                            tokens.push(Token::DoubleStar);
                        } else if segment_start && rest.starts_with('/') {
                            chars.next();
                            tokens.push(Token::AnyDirs);
                        } else if segment_start && rest.is_empty() {
                            tokens.push(Token::DoubleStar);
                        } else {
                            tokens.push(Token::Star);
                        }
                    } else {
                        tokens.push(Token::Star);
                    }
                }
                '?' => {
                    flush(&mut literal, &mut tokens);
                    tokens.push(Token::Any);
                }
                '{' => {
                    let Some(close) = pattern[i..].find('}') else {
                        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Unbalanced '{{' in glob pattern '{pattern}'")));
                    };
                    let inner = &pattern[i + 1..i + close];
                    flush(&mut literal, &mut tokens);
                    tokens.push(Token::OneOf(alternatives(inner, pattern)?));
                    while chars.peek().is_some_and(|(j, _)| *j <= i + close) {
                        chars.next();
                    }
                }
                c => literal.push(c),
            }
        }
        flush(&mut literal, &mut tokens);
        Ok(Glob { tokens, pattern: pattern.to_string() })
    }

    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The text before the first glob character.
    pub fn literal_prefix(&self) -> &str {
        match self.tokens.first() {
            Some(Token::Literal(text)) => text,
            _ => "",
        }
    }

    /// Whether the pattern can match across `/` at any depth (`**`).
    pub fn is_recursive(&self) -> bool {
        self.tokens.iter().any(|t| matches!(t, Token::DoubleStar | Token::AnyDirs))
    }

    pub fn matches(&self, text: &str) -> bool {
        match_tokens(&self.tokens, text)
    }

    /// Every text the pattern stands for when it has only alternatives (`{a,b}`,
    /// `{1..3}`): url() requests each one instead of listing. `None` with wildcards.
    pub fn expand(&self, limit: usize) -> Result<Option<Vec<String>>> {
        let mut texts = vec![String::new()];
        for token in &self.tokens {
            match token {
                Token::Literal(text) => texts.iter_mut().for_each(|t| t.push_str(text)),
                Token::OneOf(options) => {
                    if texts.len().saturating_mul(options.len()) > limit {
                        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("The glob '{}' stands for more than {limit} URLs", self.pattern)));
                    }
                    texts = texts.iter().flat_map(|t| options.iter().map(move |o| format!("{t}{o}"))).collect();
                }
                _ => return Ok(None),
            }
        }
        Ok(Some(texts))
    }
}

fn alternatives(inner: &str, pattern: &str) -> Result<Vec<String>> {
    if let Some((from, to)) = inner.split_once("..") {
        let bad = || Error::new(ErrorCode::BAD_ARGUMENTS, format!("Invalid range {{{inner}}} in glob pattern '{pattern}'"));
        let (a, b): (u64, u64) = (from.trim().parse().map_err(|_| bad())?, to.trim().parse().map_err(|_| bad())?);
        let (lo, hi) = (a.min(b), a.max(b));
        if hi - lo > 1_000_000 {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Range {{{inner}}} in glob pattern '{pattern}' is too large")));
        }
        // Zero padding is kept when a bound is written with leading zeros (`{01..10}`).
        let padded = |s: &str| s.len() > 1 && s.starts_with('0');
        let width = if padded(from.trim()) || padded(to.trim()) { from.trim().len().max(to.trim().len()) } else { 0 };
        return Ok((lo..=hi).map(|n| format!("{n:0width$}")).collect());
    }
    Ok(inner.split(',').map(str::to_string).collect())
}

fn match_tokens(tokens: &[Token], text: &str) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return text.is_empty();
    };
    match first {
        Token::Literal(lit) => text.strip_prefix(lit.as_str()).is_some_and(|t| match_tokens(rest, t)),
        Token::Any => {
            let mut chars = text.chars();
            match chars.next() {
                Some(c) if c != '/' => match_tokens(rest, chars.as_str()),
                _ => false,
            }
        }
        Token::AnyDirs => {
            if match_tokens(rest, text) {
                return true;
            }
            text.match_indices('/').any(|(i, _)| match_tokens(rest, &text[i + 1..]))
        }
        Token::OneOf(options) => options.iter().any(|o| text.strip_prefix(o.as_str()).is_some_and(|t| match_tokens(rest, t))),
        Token::Star | Token::DoubleStar => {
            let crosses = matches!(first, Token::DoubleStar);
            let mut positions: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            positions.push(text.len());
            for &end in &positions {
                if !crosses && text[..end].contains('/') {
                    break;
                }
                if match_tokens(rest, &text[end..]) {
                    return true;
                }
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, t: &str) -> bool {
        Glob::new(p).unwrap().matches(t)
    }

    #[test]
    fn stars_and_questions() {
        assert!(m("data/*.csv", "data/a.csv"));
        assert!(!m("data/*.csv", "data/x/a.csv"));
        assert!(m("data/**.csv", "data/x/y/a.csv"));
        assert!(m("data/**/a.csv", "data/x/y/a.csv"));
        assert!(m("f?.tsv", "f1.tsv"));
        assert!(!m("f?.tsv", "f12.tsv"));
        assert!(!m("a?b", "a/b"));
    }

    #[test]
    fn alternatives_and_ranges() {
        assert!(m("{a,bb,c}.csv", "bb.csv"));
        assert!(!m("{a,bb,c}.csv", "b.csv"));
        assert!(m("part-{1..10}.csv", "part-7.csv"));
        assert!(m("part-{1..10}.csv", "part-10.csv"));
        assert!(!m("part-{1..10}.csv", "part-07.csv"));
        assert!(m("part-{01..10}.csv", "part-07.csv"));
        assert!(!m("part-{01..10}.csv", "part-7.csv"));
        assert!(m("x{001..3}", "x002"));
        assert!(m("{10..1}", "5"));
    }

    #[test]
    fn local_double_star() {
        let l = |p: &str, t: &str| Glob::new_local(p).unwrap().matches(t);
        assert!(l("d/**.csv", "d/a.csv"));
        assert!(!l("d/**.csv", "d/x/a.csv"));
        assert!(l("d/**/*.csv", "d/a.csv"));
        assert!(l("d/**/*.csv", "d/x/y/a.csv"));
        assert!(l("d/**", "d/x/y/a.csv"));
        assert!(!Glob::new_local("d/**.csv").unwrap().is_recursive());
    }

    #[test]
    fn prefix() {
        assert_eq!(Glob::new("dir/sub/f*.csv").unwrap().literal_prefix(), "dir/sub/f");
        assert_eq!(Glob::new("*.csv").unwrap().literal_prefix(), "");
        assert!(Glob::new("a/**").unwrap().is_recursive());
        assert!(Glob::new("a{b").is_err());
        assert!(Glob::new("{a..b}").is_err());
    }
}
