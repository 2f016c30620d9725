//! ClickHouse's column transformers after `*`, `t.*` or `COLUMNS('re')` in a SELECT list:
//! `EXCEPT [STRICT] (a, ...)`, `REPLACE [STRICT] (expr AS a, ...)` and `APPLY(f)`, chained
//! in any order and applied left to right (`* EXCEPT (b) APPLY(sum) APPLY(toString)`).
//!
//! sqlparser knows EXCEPT and REPLACE after `*` only, in that order, and no APPLY; and
//! DataFusion's EXCEPT/REPLACE fail on a name that matches no column, which ClickHouse
//! ignores unless STRICT. So every chain is rewritten at token level into one marker call
//! the query layer expands once the FROM clause's columns are known
//! (`crate::column_lists`):
//!
//! ```text
//! * EXCEPT (b) REPLACE (ab + 1 AS ab) APPLY(x -> x * 2)
//!   ─► __granary_columns(*, __granary_except('b'), __granary_replace(ab + 1, 'ab'),
//!                        __granary_apply(__granary_x * 2))
//! ```
//!
//! Each APPLY becomes a template over the placeholder `__granary_x`: `APPLY(f)` is
//! `f(__granary_x)`, `APPLY(quantile(0.5))` the parametric call
//! `quantile(0.5)(__granary_x)`, and a lambda its body with the parameter replaced. The
//! templates are ordinary calls, so function names, parametric aggregates and SQL
//! user-defined functions are prepared for them as for any other call before expansion.

use datafusion::sql::sqlparser::ast;
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::Token;
use granary_common::{Error, ErrorCode, Result};

use crate::lexer::Lexeme;

/// The marker call that stands for a column matcher and its transformers.
pub const COLUMNS_MARKER: &str = "__granary_columns";
/// `EXCEPT (names)`; the `_strict` form requires every name to match a column.
pub const EXCEPT_MARKER: &str = "__granary_except";
pub const EXCEPT_STRICT_MARKER: &str = "__granary_except_strict";
/// `REPLACE (expr AS name, ...)` as `expr, 'name', ...`.
pub const REPLACE_MARKER: &str = "__granary_replace";
pub const REPLACE_STRICT_MARKER: &str = "__granary_replace_strict";
/// `APPLY(...)` as a template over [`APPLY_PLACEHOLDER`].
pub const APPLY_MARKER: &str = "__granary_apply";
/// Where each column goes in an APPLY template.
pub const APPLY_PLACEHOLDER: &str = "__granary_x";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Except,
    Replace,
    Apply,
}

struct Transformer {
    kind: Kind,
    strict: bool,
    /// The tokens inside the brackets, or the single word written without them.
    body: Vec<Lexeme>,
}

fn synthetic(token: Token, like: &Lexeme) -> Lexeme {
    Lexeme { token, span: like.span, start: like.start, end: like.start }
}

fn syntax_error(message: String) -> Error {
    Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {message}"))
}

/// The index after the bracket group opening at `open`.
fn group_end(lexemes: &[Lexeme], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, lexeme) in lexemes.iter().enumerate().skip(open) {
        match lexeme.token {
            Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
            Token::RParen | Token::RBracket | Token::RBrace => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits `tokens` at commas outside brackets.
fn split_top_level(tokens: &[Lexeme]) -> Vec<&[Lexeme]> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, lexeme) in tokens.iter().enumerate() {
        match lexeme.token {
            Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
            Token::RParen | Token::RBracket | Token::RBrace => depth -= 1,
            Token::Comma if depth == 0 => {
                parts.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < tokens.len() {
        parts.push(&tokens[start..]);
    }
    parts
}

/// The end of a column matcher starting at `i`: `*`, `t.*`, `db.t.*` or `COLUMNS(...)`.
fn matcher_end(lexemes: &[Lexeme], i: usize) -> Option<usize> {
    match &lexemes[i].token {
        Token::Mul => Some(i + 1),
        Token::Word(_) if lexemes[i].is_keyword("COLUMNS") && matches!(lexemes.get(i + 1).map(|l| &l.token), Some(Token::LParen)) => {
            group_end(lexemes, i + 1)
        }
        Token::Word(_) => {
            let mut j = i + 1;
            loop {
                match (lexemes.get(j).map(|l| &l.token), lexemes.get(j + 1).map(|l| &l.token)) {
                    (Some(Token::Period), Some(Token::Mul)) => return Some(j + 2),
                    (Some(Token::Period), Some(Token::Word(_))) => j += 2,
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

/// The transformers written from `j` on, and the index after them.
fn transformers(lexemes: &[Lexeme], mut j: usize) -> Result<(Vec<Transformer>, usize)> {
    let mut out = Vec::new();
    loop {
        let Some(lexeme) = lexemes.get(j) else { break };
        let kind = if lexeme.is_keyword("EXCEPT") {
            Kind::Except
        } else if lexeme.is_keyword("REPLACE") {
            Kind::Replace
        } else if lexeme.is_keyword("APPLY") {
            Kind::Apply
        } else {
            break;
        };
        let mut k = j + 1;
        // `SELECT * EXCEPT SELECT ...` is the set operation.
        if lexemes.get(k).is_some_and(|l| l.is_keyword("SELECT") || l.is_keyword("ALL") || l.is_keyword("DISTINCT")) {
            break;
        }
        let strict = lexemes.get(k).is_some_and(|l| l.is_keyword("STRICT"));
        if strict {
            k += 1;
        }
        match lexemes.get(k).map(|l| &l.token) {
            Some(Token::LParen) => {
                let end = group_end(lexemes, k).ok_or_else(|| syntax_error("unclosed bracket after a column transformer".into()))?;
                out.push(Transformer { kind, strict, body: lexemes[k + 1..end - 1].to_vec() });
                j = end;
            }
            Some(Token::Word(_) | Token::SingleQuotedString(_)) if kind != Kind::Replace => {
                out.push(Transformer { kind, strict, body: vec![lexemes[k].clone()] });
                j = k + 1;
            }
            _ => return Err(syntax_error(format!("expected the arguments of a column transformer after {}", lexeme.token))),
        }
    }
    Ok((out, j))
}

/// Rewrites every transformer chain sqlparser cannot read into the marker call.
pub(crate) fn rewrite_column_transformers(mut lexemes: Vec<Lexeme>) -> Result<Vec<Lexeme>> {
    if !lexemes.iter().any(|l| l.is_keyword("APPLY") || l.is_keyword("STRICT") || l.is_keyword("COLUMNS") || l.is_keyword("EXCEPT") || l.is_keyword("REPLACE")) {
        return Ok(lexemes);
    }
    let mut i = 1;
    while i < lexemes.len() {
        let previous = &lexemes[i - 1];
        let item_start = previous.is_keyword("SELECT") || previous.is_keyword("DISTINCT") || previous.token == Token::Comma;
        let Some(end) = item_start.then(|| matcher_end(&lexemes, i)).flatten() else {
            i += 1;
            continue;
        };
        let (chain, chain_end) = transformers(&lexemes, end)?;
        if chain.is_empty() {
            i = chain_end.max(i + 1);
            continue;
        }
        let at = lexemes[i].clone();
        let word = |w: &str| synthetic(Token::make_word(w, None), &at);
        let punct = |t: Token| synthetic(t, &at);
        let mut out = vec![word(COLUMNS_MARKER), punct(Token::LParen)];
        out.extend_from_slice(&lexemes[i..end]);
        for transformer in &chain {
            out.push(punct(Token::Comma));
            out.extend(marker_call(transformer, &at)?);
        }
        out.push(punct(Token::RParen));
        let added = out.len();
        lexemes.splice(i..chain_end, out);
        i += added;
    }
    Ok(lexemes)
}

/// One transformer as its marker call.
fn marker_call(transformer: &Transformer, at: &Lexeme) -> Result<Vec<Lexeme>> {
    let word = |w: &str| synthetic(Token::make_word(w, None), at);
    let punct = |t: Token| synthetic(t, at);
    let string = |s: &str| synthetic(Token::SingleQuotedString(s.to_string()), at);
    let name = match (transformer.kind, transformer.strict) {
        (Kind::Except, false) => EXCEPT_MARKER,
        (Kind::Except, true) => EXCEPT_STRICT_MARKER,
        (Kind::Replace, false) => REPLACE_MARKER,
        (Kind::Replace, true) => REPLACE_STRICT_MARKER,
        (Kind::Apply, _) => APPLY_MARKER,
    };
    let mut args: Vec<Lexeme> = Vec::new();
    match transformer.kind {
        Kind::Except => {
            for (n, part) in split_top_level(&transformer.body).into_iter().enumerate() {
                let column = match part {
                    [Lexeme { token: Token::Word(w), .. }] => w.value.clone(),
                    [Lexeme { token: Token::SingleQuotedString(s), .. }] => s.clone(),
                    _ => return Err(syntax_error("EXCEPT expects column names".into())),
                };
                if n > 0 {
                    args.push(punct(Token::Comma));
                }
                args.push(string(&column));
            }
        }
        Kind::Replace => {
            for (n, part) in split_top_level(&transformer.body).into_iter().enumerate() {
                let alias_at = part.len().checked_sub(2).filter(|&k| k > 0 && part[k].is_keyword("AS"));
                let (Some(k), Some(Token::Word(column))) = (alias_at, part.last().map(|l| &l.token)) else {
                    return Err(syntax_error("REPLACE expects `expression AS column` items".into()));
                };
                if n > 0 {
                    args.push(punct(Token::Comma));
                }
                args.extend_from_slice(&part[..k]);
                args.push(punct(Token::Comma));
                args.push(string(&column.value));
            }
        }
        Kind::Apply => args = apply_template(&transformer.body, at)?,
    }
    let mut out = vec![word(name), punct(Token::LParen)];
    out.extend(args);
    out.push(punct(Token::RParen));
    Ok(out)
}

/// `f`, `f(params)` or `x -> body` as a call over [`APPLY_PLACEHOLDER`].
fn apply_template(body: &[Lexeme], at: &Lexeme) -> Result<Vec<Lexeme>> {
    let placeholder = || synthetic(Token::make_word(APPLY_PLACEHOLDER, None), at);
    let punct = |t: Token| synthetic(t, at);
    if let Some(arrow) = body.iter().position(|l| l.token == Token::Arrow) {
        let parameter = match &body[..arrow] {
            [Lexeme { token: Token::Word(w), .. }] => w.value.clone(),
            [Lexeme { token: Token::LParen, .. }, Lexeme { token: Token::Word(w), .. }, Lexeme { token: Token::RParen, .. }] => w.value.clone(),
            _ => return Err(syntax_error("the lambda of APPLY takes one parameter".into())),
        };
        let mut out = vec![punct(Token::LParen)];
        for (k, lexeme) in body[arrow + 1..].iter().enumerate() {
            let qualified = k > 0 && body[arrow + k].token == Token::Period;
            match &lexeme.token {
                Token::Word(w) if w.value == parameter && !qualified => out.push(placeholder()),
                _ => out.push(lexeme.clone()),
            }
        }
        out.push(punct(Token::RParen));
        return Ok(out);
    }
    let function_with_params = matches!(body.get(1).map(|l| &l.token), Some(Token::LParen)) && group_end(body, 1) == Some(body.len());
    match body.first().map(|l| &l.token) {
        Some(Token::Word(_)) if body.len() == 1 || function_with_params => {
            let mut out = body.to_vec();
            out.push(punct(Token::LParen));
            out.push(placeholder());
            out.push(punct(Token::RParen));
            Ok(out)
        }
        _ => Err(syntax_error("APPLY expects a function name, a parametric function or a lambda".into())),
    }
}

/// Adds `names` to what a marker call over `*` leaves out before its transformers (ARRAY
/// JOIN's aliases, which `*` does not show). Anything else is left alone.
pub(crate) fn exclude_from_wildcard(expr: &mut ast::Expr, names: &[ast::Ident]) -> Result<()> {
    let ast::Expr::Function(f) = expr else { return Ok(()) };
    if !f.name.0.last().is_some_and(|p| matches!(p, ast::ObjectNamePart::Identifier(i) if i.value == COLUMNS_MARKER)) {
        return Ok(());
    }
    let ast::FunctionArguments::List(list) = &mut f.args else { return Ok(()) };
    if !matches!(list.args.first(), Some(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard))) {
        return Ok(());
    }
    let quoted: Vec<String> = names.iter().map(|n| crate::params::quote_string(&n.value)).collect();
    let text = format!("{EXCEPT_MARKER}({})", quoted.join(", "));
    let except = Parser::new(&ClickHouseDialect {})
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("ARRAY JOIN exclusions {text}: {e}")))?;
    list.args.insert(1, ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(except)));
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn rewritten(sql: &str) -> String {
        rewrite_column_transformers(lex(sql).unwrap()).unwrap().iter().map(|l| l.token.to_string()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn chains_become_marker_calls() {
        assert_eq!(rewritten("SELECT * APPLY(toString) FROM t"), "SELECT __granary_columns ( * , __granary_apply ( toString ( __granary_x ) ) ) FROM t");
        assert_eq!(rewritten("SELECT a, t.* APPLY sum FROM t"), "SELECT a , __granary_columns ( t . * , __granary_apply ( sum ( __granary_x ) ) ) FROM t");
        assert_eq!(
            rewritten("SELECT * EXCEPT (b) REPLACE (ab + 1 AS ab) APPLY(x -> x * 2) FROM t"),
            "SELECT __granary_columns ( * , __granary_except ( 'b' ) , __granary_replace ( ab + 1 , 'ab' ) , __granary_apply ( ( __granary_x * 2 ) ) ) FROM t"
        );
        assert_eq!(
            rewritten("SELECT COLUMNS('a') APPLY(quantile(0.5)) FROM t"),
            "SELECT __granary_columns ( COLUMNS ( 'a' ) , __granary_apply ( quantile ( 0.5 ) ( __granary_x ) ) ) FROM t"
        );
        assert_eq!(
            rewritten("SELECT * EXCEPT b REPLACE (1 AS a) FROM t"),
            "SELECT __granary_columns ( * , __granary_except ( 'b' ) , __granary_replace ( 1 , 'a' ) ) FROM t"
        );
        assert_eq!(rewritten("SELECT * FROM t EXCEPT SELECT * FROM u"), "SELECT * FROM t EXCEPT SELECT * FROM u");
        assert!(rewrite_column_transformers(lex("SELECT * APPLY(x, y -> x) FROM t").unwrap()).is_err());
    }
}
