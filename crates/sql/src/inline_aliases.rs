//! ClickHouse's aliases inside expressions (`GROUP BY number % 3 AS k`,
//! `WHERE (x + 1 AS y) > 5 AND y < 9`, `f(a AS b)`, `[x AS n, 3]`), which sqlparser
//! rejects: rewritten at token level to a marker call `__granary_alias(expr, 'name')`
//! before the query is parsed. [`crate::aliases`] takes the markers out again and resolves
//! the names like SELECT-list aliases; [`crate::names`] names a marker after its alias, as
//! ClickHouse names `(x AS a) + 1` `plus(a, 1)`.
//!
//! An alias ends an element of a list, so it applies to everything back to the start of
//! that element: the opening bracket, a comma, or the clause keyword (`GROUP BY`, `WHERE`).
//! Left alone: the SELECT list's own aliases, table aliases and anything else in FROM/JOIN,
//! WITH, WINDOW and `OVER (...)`, `CAST(x AS T)`, `* REPLACE (e AS c)`, and lambdas.

use datafusion::sql::sqlparser::tokenizer::Token;

use crate::lexer::Lexeme;

/// The function name of the marker.
pub const INLINE_ALIAS_MARKER: &str = "__granary_alias";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Clause {
    /// Before the first clause, or one whose `AS` is not an expression alias.
    Other,
    Select,
    /// FROM, JOIN, ARRAY JOIN, ON, USING: table aliases.
    From,
    /// WHERE, PREWHERE, GROUP BY, ORDER BY, HAVING, QUALIFY, LIMIT (BY).
    Expressions,
    With,
    Window,
}

enum Frame {
    /// A (sub)query: its clause decides what `AS` means at its depth.
    Query { clause: Clause },
    /// Brackets around expressions or function arguments: `AS` is an alias.
    Expressions,
    /// Brackets where `AS` is part of the syntax (CAST, window definitions, FROM items).
    Verbatim,
}

struct Open {
    frame: Frame,
    /// Output index where the current list element starts.
    item_start: usize,
    /// Whether the current element has a lambda arrow (its alias is left to sqlparser).
    lambda: bool,
}

fn clause_of(lexeme: &Lexeme, previous: Option<&Lexeme>) -> Option<Clause> {
    let word = lexeme.keyword_text()?;
    Some(match word.as_str() {
        "SELECT" => Clause::Select,
        "FROM" | "JOIN" | "ON" | "USING" => Clause::From,
        "WHERE" | "PREWHERE" | "HAVING" | "QUALIFY" | "LIMIT" | "OFFSET" => Clause::Expressions,
        // `GROUP BY`, `ORDER BY`, `LIMIT n BY`.
        "BY" => Clause::Expressions,
        "WITH" if previous.is_none() => Clause::With,
        // WITH TOTALS / ROLLUP / FILL / TIES and anything after them.
        "WITH" | "SETTINGS" | "FORMAT" | "UNION" | "EXCEPT" | "INTERSECT" | "INTO" => Clause::Other,
        "WINDOW" => Clause::Window,
        _ => return None,
    })
}

fn synthetic(token: Token, like: &Lexeme) -> Lexeme {
    Lexeme { token, span: like.span, start: like.start, end: like.start }
}

/// Rewrites every alias inside an expression into a marker call.
pub(crate) fn rewrite_inline_aliases(lexemes: Vec<Lexeme>) -> Vec<Lexeme> {
    if !lexemes.iter().any(|l| l.is_keyword("AS")) {
        return lexemes;
    }
    let mut out: Vec<Lexeme> = Vec::with_capacity(lexemes.len() + 8);
    let mut stack = vec![Open { frame: Frame::Query { clause: Clause::Other }, item_start: 0, lambda: false }];
    let mut i = 0;
    while i < lexemes.len() {
        let lexeme = &lexemes[i];
        let previous = i.checked_sub(1).map(|p| &lexemes[p]);
        let Some(top) = stack.last_mut() else { break };
        match &lexeme.token {
            Token::LParen | Token::LBracket => {
                let next = lexemes.get(i + 1);
                let subquery = lexeme.token == Token::LParen && next.is_some_and(|n| n.is_keyword("SELECT") || n.is_keyword("WITH"));
                let verbatim_call = previous.is_some_and(|p| {
                    ["CAST", "TRY_CAST", "SAFE_CAST", "OVER", "REPLACE", "AS"].iter().any(|k| p.is_keyword(k))
                });
                let frame = if subquery {
                    Frame::Query { clause: Clause::Other }
                } else if verbatim_call {
                    Frame::Verbatim
                } else {
                    match &top.frame {
                        Frame::Verbatim => Frame::Verbatim,
                        Frame::Query { clause: Clause::From | Clause::With | Clause::Window | Clause::Other } => Frame::Verbatim,
                        _ => Frame::Expressions,
                    }
                };
                out.push(lexeme.clone());
                stack.push(Open { frame, item_start: out.len(), lambda: false });
                i += 1;
                continue;
            }
            Token::RParen | Token::RBracket => {
                if stack.len() > 1 {
                    stack.pop();
                }
                out.push(lexeme.clone());
                i += 1;
                continue;
            }
            Token::Comma => {
                out.push(lexeme.clone());
                top.item_start = out.len();
                top.lambda = false;
                i += 1;
                continue;
            }
            Token::Arrow => top.lambda = true,
            _ => {}
        }
        if let Frame::Query { clause } = &mut top.frame {
            if let Some(next) = clause_of(lexeme, previous) {
                *clause = next;
                out.push(lexeme.clone());
                top.item_start = out.len();
                top.lambda = false;
                i += 1;
                continue;
            }
        }
        let alias_here = match &top.frame {
            Frame::Query { clause } => *clause == Clause::Expressions,
            Frame::Expressions => true,
            Frame::Verbatim => false,
        };
        let name = match lexemes.get(i + 1).map(|l| &l.token) {
            Some(Token::Word(w)) => Some(w.value.clone()),
            _ => None,
        };
        if lexeme.is_keyword("AS") && alias_here && !top.lambda && out.len() > top.item_start {
            if let Some(name) = name {
                let at = top.item_start;
                out.insert(at, synthetic(Token::LParen, lexeme));
                out.insert(at, synthetic(Token::make_word(INLINE_ALIAS_MARKER, None), lexeme));
                out.push(synthetic(Token::Comma, lexeme));
                out.push(synthetic(Token::SingleQuotedString(name), &lexemes[i + 1]));
                out.push(synthetic(Token::RParen, &lexemes[i + 1]));
                i += 2;
                continue;
            }
        }
        out.push(lexeme.clone());
        i += 1;
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn rewritten(sql: &str) -> String {
        rewrite_inline_aliases(lex(sql).unwrap()).iter().map(|l| l.token.to_string()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn aliases_inside_expressions_become_markers() {
        assert_eq!(
            rewritten("SELECT k, count() FROM t GROUP BY number % 3 AS k ORDER BY k"),
            "SELECT k , count ( ) FROM t GROUP BY __granary_alias ( number % 3 , 'k' ) ORDER BY k"
        );
        assert_eq!(
            rewritten("SELECT n FROM t WHERE (n + 1 AS y) > 5 AND y < 9"),
            "SELECT n FROM t WHERE ( __granary_alias ( n + 1 , 'y' ) ) > 5 AND y < 9"
        );
        assert_eq!(rewritten("SELECT (1 AS a) + a"), "SELECT ( __granary_alias ( 1 , 'a' ) ) + a");
        assert_eq!(rewritten("SELECT f(x AS b, 2), [y AS c]"), "SELECT f ( __granary_alias ( x , 'b' ) , 2 ) , [ __granary_alias ( y , 'c' ) ]");
        assert_eq!(rewritten("SELECT ((1 AS a) + 1 AS b)"), "SELECT ( __granary_alias ( ( __granary_alias ( 1 , 'a' ) ) + 1 , 'b' ) )");
    }

    #[test]
    fn syntactic_as_is_left_alone() {
        for sql in [
            "SELECT a AS b, CAST(x AS String) AS c FROM t AS u JOIN (SELECT 1 AS z) AS v ON u.a = v.z",
            "WITH x AS (SELECT 1 AS y) SELECT * REPLACE (a + 1 AS a) FROM numbers(3) AS n",
            "SELECT count() OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b)",
            "SELECT arrayMap(x -> x AS y, [1])",
            "SELECT a FROM t UNION ALL SELECT b AS a FROM u",
        ] {
            assert!(!rewritten(sql).contains(INLINE_ALIAS_MARKER), "{sql}");
        }
        assert_eq!(rewritten("SELECT (SELECT 1 AS a) AS b, (SELECT (2 AS c))"), "SELECT ( SELECT 1 AS a ) AS b , ( SELECT ( __granary_alias ( 2 , 'c' ) ) )");
    }
}
