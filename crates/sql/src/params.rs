//! ClickHouse query parameters: `{name:Type}` placeholders filled from `param_<name>`
//! URL parameters (or `SET param_name = ...`).
//!
//! Values are substituted as typed literals, never as raw SQL: a string becomes a quoted
//! literal, a number is checked to be a number, an `Identifier` becomes a back-quoted
//! identifier, and anything else becomes `CAST('<text>' AS Type)`. That keeps a parameter
//! from changing the shape of the query (no injection through parameters).

use std::collections::HashMap;

use datafusion::sql::sqlparser::tokenizer::Token;
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

use crate::lexer::{lex, Lexeme};

/// Replaces every `{name:Type}` in `sql` with a literal built from `params`.
/// Returns `None` when the query has no placeholders.
pub fn substitute_parameters(sql: &str, params: &HashMap<String, String>) -> Result<Option<String>> {
    substitute_with(sql, |name, type_text| {
        let value = params.get(name).ok_or_else(|| Error::new(ErrorCode::UNKNOWN_QUERY_PARAMETER, format!("Substitution `{name}` is not set")))?;
        render_value(name, type_text, value)
    })
}

/// The names of the `{name:Type}` placeholders of `sql`, each once, in order.
pub fn placeholder_names(sql: &str) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    substitute_with(sql, |name, _| {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        Ok(String::new())
    })?;
    Ok(names)
}

/// Replaces every `{name:Type}` in `sql` with `render(name, type)`.
/// Returns `None` when the query has no placeholders.
pub fn substitute_with(sql: &str, mut render: impl FnMut(&str, &str) -> Result<String>) -> Result<Option<String>> {
    if !sql.contains('{') {
        return Ok(None);
    }
    let lexemes = lex(sql)?;
    let mut out = String::with_capacity(sql.len());
    let mut copied_to = 0;
    let mut i = 0;
    let mut found = false;
    while i < lexemes.len() {
        if let Some((name, type_text, end_index)) = placeholder_at(sql, &lexemes, i) {
            out.push_str(&sql[copied_to..lexemes[i].start]);
            out.push_str(&render(name, type_text)?);
            copied_to = lexemes[end_index].end;
            i = end_index + 1;
            found = true;
        } else {
            i += 1;
        }
    }
    if !found {
        return Ok(None);
    }
    out.push_str(&sql[copied_to..]);
    Ok(Some(out))
}

/// Recognises `{ name : Type }` starting at lexeme `i`; returns the name, the type text
/// and the index of the closing brace.
fn placeholder_at<'a>(sql: &'a str, lx: &[Lexeme], i: usize) -> Option<(&'a str, &'a str, usize)> {
    if lx.get(i)?.token != Token::LBrace {
        return None;
    }
    let name_lexeme = lx.get(i + 1)?;
    let Token::Word(_) = &name_lexeme.token else { return None };
    if lx.get(i + 2)?.token != Token::Colon {
        return None;
    }
    let type_start = lx.get(i + 3)?.start;
    let mut depth = 0i32;
    for (j, lexeme) in lx.iter().enumerate().skip(i + 3) {
        match lexeme.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::RBrace if depth == 0 => {
                let name = &sql[name_lexeme.start..name_lexeme.end];
                return Some((name.trim_matches('`'), sql[type_start..lexeme.start].trim(), j));
            }
            _ => {}
        }
    }
    None
}

fn render_value(name: &str, type_text: &str, value: &str) -> Result<String> {
    let bad = |why: &str| {
        Error::new(
            ErrorCode::BAD_QUERY_PARAMETER,
            format!("Value {value} cannot be parsed as {type_text} for query parameter '{name}' because {why}"),
        )
    };
    if type_text == "Identifier" {
        if value.contains('`') || value.is_empty() {
            return Err(bad("it is not a valid identifier"));
        }
        return Ok(format!("`{value}`"));
    }
    let ch_type = ChType::parse(type_text).map_err(|e| bad(e.message()))?;
    if ch_type.is_nullable() && value == "\\N" {
        return Ok(format!("CAST(NULL AS {type_text})"));
    }
    // ClickHouse reads a value in the TSV-escaped text form of its type: a scalar's
    // escapes (`it\'s`, `a\tb`) are undone; composite values keep their quoted text.
    let unescaped;
    let value = if matches!(ch_type.base(), ChType::Array(_) | ChType::Map(..) | ChType::Tuple(_)) {
        value
    } else {
        unescaped = unescape_tsv(value);
        unescaped.as_str()
    };
    let quoted = quote_string(value);
    Ok(match ch_type.base() {
        ChType::String => quoted,
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 => {
            value.trim().parse::<i128>().map_err(|_| bad("it is not an integer"))?;
            format!("CAST({} AS {type_text})", value.trim())
        }
        ChType::Float32 | ChType::Float64 => {
            value.trim().parse::<f64>().map_err(|_| bad("it is not a number"))?;
            format!("CAST({quoted} AS {type_text})")
        }
        _ => format!("CAST({quoted} AS {type_text})"),
    })
}

/// Undoes TSV escaping (clickhouse-connect sends `it\'s`), as TSV input does.
fn unescape_tsv(value: &str) -> String {
    let mut out = Vec::with_capacity(value.len());
    granary_types::text::escape::unescape_tsv(value.as_bytes(), &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// A single-quoted SQL string literal with ClickHouse escapes.
pub fn quote_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('\'');
    for c in value.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            other => out.push(other),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn substitutes_typed_literals() {
        let sql = "SELECT {id:UInt64}, {s:String}, '{x:String}' FROM {t:Identifier}";
        let out = substitute_parameters(sql, &params(&[("id", "42"), ("s", "it's"), ("t", "tbl")])).unwrap().unwrap();
        assert_eq!(out, "SELECT CAST(42 AS UInt64), 'it\\'s', '{x:String}' FROM `tbl`");
        // Values arrive TSV-escaped (clickhouse-connect sends `it\'s`).
        let out = substitute_parameters("SELECT {s:String}, {a:Array(String)}", &params(&[("s", "it\\'s\\ttab"), ("a", "['x\\'y']")])).unwrap().unwrap();
        assert_eq!(out, "SELECT 'it\\'s\\ttab', CAST('[\\'x\\\\\\'y\\']' AS Array(String))");
    }

    #[test]
    fn rejects_missing_and_bad_values() {
        let e = substitute_parameters("SELECT {a:UInt8}", &params(&[])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::UNKNOWN_QUERY_PARAMETER);
        let e = substitute_parameters("SELECT {a:UInt8}", &params(&[("a", "1; DROP TABLE t")])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::BAD_QUERY_PARAMETER);
    }
}
