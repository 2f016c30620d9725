//! ClickHouse's conditional operator `cond ? then : else`, which sqlparser does not know:
//! rewritten at token level to `if(cond, then, else)` before the query is parsed.
//!
//! The operator binds looser than everything else (`a AND b ? x : y` is
//! `if(a AND b, x, y)`) and to the right (`a ? b : c ? d : e` is `if(a, b, if(c, d, e))`),
//! so the condition reaches back to the start of its list item or clause, and the
//! `else` branch forward to the end of it.

use datafusion::sql::sqlparser::tokenizer::Token;
use granary_common::{Error, ErrorCode, Result};

use crate::lexer::Lexeme;

/// Keywords that end the expression before a `?` (the condition starts after them).
const CONDITION_STARTS: [&str; 12] = ["SELECT", "DISTINCT", "WHERE", "PREWHERE", "HAVING", "ON", "WHEN", "THEN", "ELSE", "BY", "RETURNING", "QUALIFY"];
/// Keywords that end the `else` branch.
const BRANCH_ENDS: [&str; 22] = [
    "FROM", "WHERE", "PREWHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "OFFSET", "SETTINGS", "FORMAT", "UNION", "EXCEPT", "INTERSECT", "AS", "WINDOW", "QUALIFY", "END",
    "THEN", "ELSE", "WHEN", "ASC", "DESC",
];

fn is_question(lexeme: &Lexeme) -> bool {
    matches!(&lexeme.token, Token::Placeholder(p) if p == "?")
}

fn synthetic(token: Token, like: &Lexeme) -> Lexeme {
    Lexeme { token, span: like.span, start: like.start, end: like.start }
}

/// Rewrites every `c ? a : b` of the statement's tokens into `if(c, a, b)`.
pub(crate) fn rewrite_ternaries(mut lexemes: Vec<Lexeme>) -> Result<Vec<Lexeme>> {
    while let Some(question) = lexemes.iter().position(is_question) {
        let unmatched = || Error::new(ErrorCode::SYNTAX_ERROR, "Syntax error: '?' without the ':' of a conditional expression a ? b : c");
        // The condition: back to an opening bracket, a comma or a clause keyword at this depth.
        let mut depth = 0i32;
        let mut start = 0;
        for i in (0..question).rev() {
            match &lexemes[i].token {
                Token::RParen | Token::RBracket | Token::RBrace => depth += 1,
                Token::LParen | Token::LBracket | Token::LBrace if depth == 0 => {
                    start = i + 1;
                    break;
                }
                Token::LParen | Token::LBracket | Token::LBrace => depth -= 1,
                Token::Comma if depth == 0 => {
                    start = i + 1;
                    break;
                }
                _ if depth == 0 && CONDITION_STARTS.iter().any(|k| lexemes[i].is_keyword(k)) => {
                    start = i + 1;
                    break;
                }
                _ => {}
            }
        }
        // The `:` of this `?`: the first one at the same depth not taken by a nested `?`.
        let mut depth = 0i32;
        let mut nested = 0usize;
        let mut colon = None;
        for (i, lexeme) in lexemes.iter().enumerate().skip(question + 1) {
            match &lexeme.token {
                Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
                Token::RParen | Token::RBracket | Token::RBrace => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1
                }
                Token::Placeholder(p) if p == "?" && depth == 0 => nested += 1,
                Token::Colon if depth == 0 && nested > 0 => nested -= 1,
                Token::Colon if depth == 0 => {
                    colon = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let colon = colon.ok_or_else(unmatched)?;
        // The else branch: forward to a closing bracket, a comma or a clause keyword.
        let mut depth = 0i32;
        let mut end = lexemes.len();
        for (i, lexeme) in lexemes.iter().enumerate().skip(colon + 1) {
            match &lexeme.token {
                Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
                Token::RParen | Token::RBracket | Token::RBrace if depth == 0 => {
                    end = i;
                    break;
                }
                Token::RParen | Token::RBracket | Token::RBrace => depth -= 1,
                Token::Comma if depth == 0 => {
                    end = i;
                    break;
                }
                _ if depth == 0 && BRANCH_ENDS.iter().any(|k| lexeme.is_keyword(k)) => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        if start == question || colon == question + 1 || end == colon + 1 {
            return Err(unmatched());
        }
        let at = lexemes[question].clone();
        lexemes.insert(end, synthetic(Token::RParen, &at));
        lexemes[colon] = synthetic(Token::Comma, &lexemes[colon]);
        lexemes[question] = synthetic(Token::Comma, &at);
        lexemes.insert(start, synthetic(Token::LParen, &at));
        lexemes.insert(start, synthetic(Token::make_word("if", None), &at));
    }
    Ok(lexemes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn rewritten(sql: &str) -> String {
        rewrite_ternaries(lex(sql).unwrap()).unwrap().iter().map(|l| l.token.to_string()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn conditional_operator_becomes_if() {
        assert_eq!(rewritten("SELECT number % 2 = 0 ? 'even' : 'odd' FROM t"), "SELECT if ( number % 2 = 0 , 'even' , 'odd' ) FROM t");
        assert_eq!(rewritten("SELECT a, b ? c : d ? e : f AS x"), "SELECT a , if ( b , c , if ( d , e , f ) ) AS x");
        assert_eq!(rewritten("SELECT f(a ? 1 : 2, 3) WHERE x AND y ? 1 : 0"), "SELECT f ( if ( a , 1 , 2 ) , 3 ) WHERE if ( x AND y , 1 , 0 )");
        assert_eq!(rewritten("SELECT a ? (b ? 1 : 2) : 3"), "SELECT if ( a , ( if ( b , 1 , 2 ) ) , 3 )");
        assert!(rewrite_ternaries(lex("SELECT a ? 1").unwrap()).is_err());
    }
}
