//! ClickHouse's tuple literals that sqlparser does not read: a one-element tuple with a
//! trailing comma `(2.5,)`, a trailing comma after more elements `(1, 2,)`, and the empty
//! tuple `()`. Rewritten at token level before the query is parsed: `(x,)` becomes
//! `tuple(x)` (a parenthesized `(x)` is `x` itself), `(a, b,)` loses its comma, `()`
//! becomes `tuple()`. Brackets that open a function's arguments are left alone, so
//! `f(x,)` stays the syntax error it is in ClickHouse.

use datafusion::sql::sqlparser::tokenizer::Token;

use crate::lexer::Lexeme;

/// Keywords after which `(` opens an expression, not a function's arguments.
const EXPRESSION_BEFORE: [&str; 36] = [
    "SELECT", "DISTINCT", "WHERE", "PREWHERE", "HAVING", "AND", "OR", "NOT", "IN", "ON", "BY", "WHEN", "THEN", "ELSE", "CASE", "IS", "LIKE", "ILIKE",
    "BETWEEN", "INTERVAL", "AS", "LIMIT", "OFFSET", "FROM", "JOIN", "EXISTS", "ALL", "ANY", "WITH", "UNION", "VALUES", "ARRAY", "DIV", "MOD", "RETURN",
    "SETTINGS",
];

/// Whether the `(` at `i` opens a function's arguments (`f(`, `quantile(0.5)(`).
fn opens_arguments(lexemes: &[Lexeme], i: usize) -> bool {
    let Some(before) = i.checked_sub(1).map(|b| &lexemes[b]) else { return false };
    match &before.token {
        Token::Word(w) if w.quote_style.is_some() => true,
        Token::Word(_) => !EXPRESSION_BEFORE.iter().any(|k| before.is_keyword(k)),
        Token::RParen => true,
        _ => false,
    }
}

fn synthetic(token: Token, like: &Lexeme) -> Lexeme {
    Lexeme { token, span: like.span, start: like.start, end: like.start }
}

/// Rewrites the tuple literals of the statement's tokens that sqlparser cannot read.
pub(crate) fn rewrite_tuple_literals(lexemes: Vec<Lexeme>) -> Vec<Lexeme> {
    let needed = lexemes.windows(2).any(|w| matches!((&w[0].token, &w[1].token), (Token::Comma | Token::LParen, Token::RParen)));
    if !needed {
        return lexemes;
    }
    // For each `(`: where it is in the output, whether it is a tuple literal's, how many
    // commas stand directly inside it, and whether it is inside `GROUPING SETS (..)`,
    // where `()` is the empty grouping set.
    let mut open: Vec<(usize, bool, usize, bool)> = Vec::new();
    let mut out: Vec<Lexeme> = Vec::with_capacity(lexemes.len() + 2);
    for (i, lexeme) in lexemes.iter().enumerate() {
        match &lexeme.token {
            Token::LParen => {
                let grouping_sets = open.last().is_some_and(|top| top.3) || (i > 0 && lexemes[i - 1].is_keyword("SETS"));
                open.push((out.len(), !opens_arguments(&lexemes, i) && !grouping_sets, 0, grouping_sets));
            }
            Token::Comma => {
                if let Some(top) = open.last_mut() {
                    top.2 += 1;
                }
            }
            Token::RParen => {
                if let Some((at, literal, commas, _)) = open.pop() {
                    let empty = out.len() == at + 1;
                    let trailing_comma = matches!(out.last().map(|l| &l.token), Some(Token::Comma));
                    // `x IN (1,)` is `x IN (1)`: the list is a tuple already.
                    let after_in = at > 0 && out[at - 1].is_keyword("IN");
                    if literal && !after_in && (empty || (trailing_comma && commas == 1)) {
                        let tuple = synthetic(Token::make_word("tuple", None), &out[at]);
                        if trailing_comma {
                            out.pop();
                        }
                        out.insert(at, tuple);
                    } else if literal && trailing_comma {
                        out.pop();
                    }
                }
            }
            _ => {}
        }
        out.push(lexeme.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn rewritten(sql: &str) -> String {
        let lexemes = rewrite_tuple_literals(crate::lexer::lex(sql).unwrap());
        lexemes.iter().map(|l| l.token.to_string()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn trailing_commas_and_empty_tuples() {
        assert_eq!(rewritten("SELECT (2.5,)"), "SELECT tuple ( 2.5 )");
        assert_eq!(rewritten("SELECT (1, 2,)"), "SELECT ( 1 , 2 )");
        assert_eq!(rewritten("SELECT ((1,),)"), "SELECT tuple ( tuple ( 1 ) )");
        assert_eq!(rewritten("SELECT ()"), "SELECT tuple ( )");
        assert_eq!(rewritten("SELECT x IN (1,)"), "SELECT x IN ( 1 )");
        // A function's arguments keep their comma (a syntax error, as in ClickHouse).
        assert_eq!(rewritten("SELECT f(1,)"), "SELECT f ( 1 , )");
        assert_eq!(rewritten("SELECT now()"), "SELECT now ( )");
        // The empty grouping set is no tuple.
        assert_eq!(rewritten("GROUP BY GROUPING SETS ((a), ())"), "GROUP BY GROUPING SETS ( ( a ) , ( ) )");
    }
}
