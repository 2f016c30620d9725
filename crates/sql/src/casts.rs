//! ClickHouse's cast and interval syntax, rewritten at token level before sqlparser reads
//! the query, because sqlparser would lose what ClickHouse keeps:
//!
//! * the type of `CAST(x AS T)` and `x::T` as written: sqlparser knows SQL types, and
//!   prints `Int8` as `INT8` (which ClickHouse does not accept), `String` as `STRING`,
//!   and cannot read `DateTime('UTC')`. The type's tokens become one backquoted word
//!   holding ClickHouse's spelling of the type (`Decimal(10, 2)`, `Enum8('a' = 1)`),
//!   which sqlparser keeps as a custom type name; the column is named
//!   `CAST(x, 'Decimal(10, 2)')` as in ClickHouse;
//! * `literal::T` casts the literal's text: ClickHouse reads `1.50::Float64` as
//!   `CAST('1.50', 'Float64')` and `[1, 2]::Array(UInt8)` as `CAST('[1, 2]', ...)`, so the
//!   literal becomes a string of its source text;
//! * `INTERVAL '2 day'` is `INTERVAL 2 day` (sqlparser's ClickHouse dialect wants the
//!   unit outside the string).

use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Token, Word};

use crate::lexer::Lexeme;

/// The quote a type word gets, so [`clickhouse_type_text`](crate::rewrite) can tell it
/// from a type sqlparser parsed itself.
pub(crate) const TYPE_QUOTE: char = '`';

/// Applies the three rewrites to the tokens of one statement; `sql` is its text.
pub(crate) fn rewrite_casts(sql: &str, lexemes: Vec<Lexeme>) -> Vec<Lexeme> {
    let lexemes = split_interval_strings(lexemes);
    let lexemes = cast_literal_text(sql, lexemes);
    type_words(lexemes)
}

fn word(value: String, like: &Lexeme, end: &Lexeme) -> Lexeme {
    let token = Token::Word(Word { value, quote_style: Some(TYPE_QUOTE), keyword: Keyword::NoKeyword });
    Lexeme { token, span: like.span.union(&end.span), start: like.start, end: end.end }
}

/// The index of the bracket closing the one at `open`, if any.
fn closing(lexemes: &[Lexeme], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, l) in lexemes.iter().enumerate().skip(open) {
        match l.token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// ClickHouse's spelling of the type written by `tokens`: words separated by a space,
/// `, ` between arguments, ` = ` in enum values, strings in single quotes.
fn type_text(tokens: &[Lexeme]) -> String {
    let mut out = String::new();
    let mut previous_word = false;
    for l in tokens {
        let is_word = matches!(l.token, Token::Word(_) | Token::Number(..) | Token::SingleQuotedString(_));
        if is_word && previous_word {
            out.push(' ');
        }
        match &l.token {
            Token::Word(w) => out.push_str(&w.value),
            Token::Number(n, _) => out.push_str(n),
            Token::SingleQuotedString(s) => out.push_str(&crate::params::quote_string(s)),
            Token::Comma => out.push_str(", "),
            Token::Eq => out.push_str(" = "),
            other => out.push_str(&other.to_string()),
        }
        previous_word = is_word;
    }
    out
}

/// The type after `::` (a word and its bracketed arguments) or after `CAST(x AS` (up to
/// the closing bracket) as one [`TYPE_QUOTE`]d word.
fn type_words(mut lexemes: Vec<Lexeme>) -> Vec<Lexeme> {
    let mut i = 0;
    while i < lexemes.len() {
        let range = match &lexemes[i].token {
            Token::DoubleColon if matches!(lexemes.get(i + 1).map(|l| &l.token), Some(Token::Word(_))) => {
                let start = i + 1;
                let end = match lexemes.get(start + 1).map(|l| &l.token) {
                    Some(Token::LParen) => closing(&lexemes, start + 1),
                    _ => Some(start),
                };
                end.map(|end| (start, end))
            }
            Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("CAST") && matches!(lexemes.get(i + 1).map(|l| &l.token), Some(Token::LParen)) => {
                closing(&lexemes, i + 1).and_then(|close| {
                    let mut depth = 0usize;
                    let mut last_as = None;
                    for (j, l) in lexemes.iter().enumerate().take(close).skip(i + 2) {
                        match l.token {
                            Token::LParen | Token::LBracket => depth += 1,
                            Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
                            _ if depth == 0 && l.is_keyword("AS") => last_as = Some(j),
                            _ => {}
                        }
                    }
                    last_as.filter(|&a| a + 1 < close).map(|a| (a + 1, close - 1))
                })
            }
            _ => None,
        };
        if let Some((start, end)) = range {
            let text = type_text(&lexemes[start..=end]);
            let replacement = word(text, &lexemes[start], &lexemes[end]);
            lexemes.splice(start..=end, [replacement]);
        }
        i += 1;
    }
    lexemes
}

/// Whether a token ends an operand, so that a `-` after it is binary.
fn ends_operand(token: &Token) -> bool {
    matches!(token, Token::Word(_) | Token::Number(..) | Token::SingleQuotedString(_) | Token::RParen | Token::RBracket)
}

/// Whether `tokens` are a literal array or tuple: literals, commas, signs and brackets.
fn is_literal_group(tokens: &[Lexeme]) -> bool {
    tokens.iter().all(|l| {
        matches!(
            &l.token,
            Token::Number(..) | Token::SingleQuotedString(_) | Token::Comma | Token::Minus | Token::Plus | Token::LParen | Token::RParen | Token::LBracket | Token::RBracket
        ) || matches!(l.keyword(), Keyword::NULL | Keyword::TRUE | Keyword::FALSE)
    })
}

/// `1.50::T`, `-1::T`, `[1, 2]::T`, `(1, 'a')::T`: the literal before `::` becomes a
/// string of its text.
fn cast_literal_text(sql: &str, mut lexemes: Vec<Lexeme>) -> Vec<Lexeme> {
    let mut i = 1;
    while i < lexemes.len() {
        if lexemes[i].token != Token::DoubleColon {
            i += 1;
            continue;
        }
        let last = i - 1;
        let first = match &lexemes[last].token {
            Token::Number(..) => {
                let signed = last >= 1 && lexemes[last - 1].token == Token::Minus && (last == 1 || !ends_operand(&lexemes[last - 2].token));
                Some(if signed { last - 1 } else { last })
            }
            Token::RBracket | Token::RParen => {
                // The opening bracket of the group, which must not be a function's.
                let mut depth = 0usize;
                let mut open = None;
                for j in (0..=last).rev() {
                    match lexemes[j].token {
                        Token::RParen | Token::RBracket => depth += 1,
                        Token::LParen | Token::LBracket => {
                            depth -= 1;
                            if depth == 0 {
                                open = Some(j);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                open.filter(|&open| {
                    let called = open > 0 && matches!(lexemes[open - 1].token, Token::Word(_)) && lexemes[open].token == Token::LParen;
                    !called && is_literal_group(&lexemes[open..=last])
                })
            }
            _ => None,
        };
        if let Some(first) = first {
            let text = sql[lexemes[first].start..lexemes[last].end].to_string();
            let literal = Lexeme {
                token: Token::SingleQuotedString(text),
                span: lexemes[first].span.union(&lexemes[last].span),
                start: lexemes[first].start,
                end: lexemes[last].end,
            };
            lexemes.splice(first..=last, [literal]);
            i = first + 1;
        }
        i += 1;
    }
    lexemes
}

/// `INTERVAL '2 day'` as `INTERVAL 2 day`.
fn split_interval_strings(mut lexemes: Vec<Lexeme>) -> Vec<Lexeme> {
    let mut i = 0;
    while i + 1 < lexemes.len() {
        if lexemes[i].is_keyword("INTERVAL") {
            if let Token::SingleQuotedString(text) = &lexemes[i + 1].token {
                let words: Vec<&str> = text.split_whitespace().collect();
                let unit_follows = lexemes.get(i + 2).and_then(|l| l.keyword_text()).is_some_and(|w| granary_types::IntervalKind::from_unit_name(&w).is_some());
                if let [count, unit] = words.as_slice() {
                    let digits = count.strip_prefix('-').unwrap_or(count);
                    if !unit_follows && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && granary_types::IntervalKind::from_unit_name(unit).is_some() {
                        let like = lexemes[i + 1].clone();
                        let mut replacement = Vec::new();
                        if count.starts_with('-') {
                            replacement.push(Lexeme { token: Token::Minus, ..like.clone() });
                        }
                        replacement.push(Lexeme { token: Token::Number(digits.to_string(), false), ..like.clone() });
                        replacement.push(Lexeme { token: Token::make_word(unit, None), ..like });
                        lexemes.splice(i + 1..=i + 1, replacement);
                    }
                }
            }
        }
        i += 1;
    }
    lexemes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(sql: &str) -> String {
        let lexemes = rewrite_casts(sql, crate::lexer::lex(sql).unwrap());
        lexemes.iter().map(|l| l.token.to_string()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn types_are_kept_as_written() {
        assert_eq!(rewritten("CAST(x AS Int8)"), "CAST ( x AS `Int8` )");
        assert_eq!(rewritten("CAST(x AS Decimal(10,2))"), "CAST ( x AS `Decimal(10, 2)` )");
        assert_eq!(rewritten("CAST(x AS DateTime('UTC'))"), "CAST ( x AS `DateTime('UTC')` )");
        assert_eq!(rewritten("CAST((SELECT 1 AS a) AS INT UNSIGNED)"), "CAST ( ( SELECT 1 AS a ) AS `INT UNSIGNED` )");
        assert_eq!(rewritten("x::Nullable(String) + 1"), "x :: `Nullable(String)` + 1");
        assert_eq!(rewritten("CAST('a' AS Enum8('a'=1))"), "CAST ( 'a' AS `Enum8('a' = 1)` )");
    }

    #[test]
    fn literals_before_double_colon_are_their_text() {
        assert_eq!(rewritten("1.50::Float64"), "'1.50' :: `Float64`");
        assert_eq!(rewritten("-1::Int8"), "'-1' :: `Int8`");
        assert_eq!(rewritten("a -1::Int8"), "a - '1' :: `Int8`");
        assert_eq!(rewritten("[1, 2]::Array(UInt8)"), "'[1, 2]' :: `Array(UInt8)`");
        assert_eq!(rewritten("f(1)::UInt8"), "f ( 1 ) :: `UInt8`");
        assert_eq!(rewritten("'7'::Int64"), "'7' :: `Int64`");
    }

    #[test]
    fn interval_strings_are_split() {
        assert_eq!(rewritten("INTERVAL '2 day'"), "INTERVAL 2 day");
        assert_eq!(rewritten("INTERVAL '-1 week'"), "INTERVAL - 1 week");
        assert_eq!(rewritten("INTERVAL '2' DAY"), "INTERVAL '2' DAY");
    }
}
