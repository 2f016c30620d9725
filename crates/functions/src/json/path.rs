//! `JSON_EXISTS`, `JSON_VALUE`, `JSON_QUERY` with the JSONPath subset ClickHouse parses:
//! `$`, member access `.key` / `."quoted key"`, and array subscripts `[n]` (0-based),
//! `[*]`, `[n, m]` and `[n to m]` (end excluded), spaces allowed between tokens.
//! Anything else is BAD_ARGUMENTS ("Unable to parse JSONPath"), as in ClickHouse.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, UInt8Array};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use super::{parse_document, require_strings, write_raw, write_string_value, Kind, TextRows, Value};
use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};
use crate::text::ByteStrings;

/// One JSONPath step.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PathStep {
    Member(Vec<u8>),
    AllElements,
    /// Element ranges, `start..end` (0-based, end excluded).
    Elements(Vec<(u64, u64)>),
}

fn bad_path() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::BAD_ARGUMENTS, "Unable to parse JSONPath")
}

struct PathParser<'a> {
    text: &'a [u8],
    pos: usize,
}

impl PathParser<'_> {
    fn skip_spaces(&mut self) {
        while self.text.get(self.pos).is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.skip_spaces();
        let found = self.text.get(self.pos) == Some(&b);
        if found {
            self.pos += 1;
        }
        found
    }

    fn number(&mut self) -> Option<u64> {
        self.skip_spaces();
        let start = self.pos;
        while self.text.get(self.pos).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        std::str::from_utf8(&self.text[start..self.pos]).ok()?.parse().ok()
    }

    fn keyword(&mut self, word: &[u8]) -> bool {
        self.skip_spaces();
        let found = self.text[self.pos..].starts_with(word);
        if found {
            self.pos += word.len();
        }
        found
    }

    fn member(&mut self) -> Option<PathStep> {
        self.skip_spaces();
        if self.eat(b'"') {
            let start = self.pos;
            while self.text.get(self.pos).is_some_and(|b| *b != b'"') {
                self.pos += 1;
            }
            let name = self.text[start..self.pos].to_vec();
            return self.eat(b'"').then_some(PathStep::Member(name));
        }
        let start = self.pos;
        while self.text.get(self.pos).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            self.pos += 1;
        }
        (self.pos > start).then(|| PathStep::Member(self.text[start..self.pos].to_vec()))
    }

    fn subscript(&mut self) -> Option<PathStep> {
        if self.eat(b'*') {
            return self.eat(b']').then_some(PathStep::AllElements);
        }
        let mut ranges = Vec::new();
        loop {
            let start = self.number()?;
            let end = if self.keyword(b"to") { self.number()? } else { start.checked_add(1)? };
            ranges.push((start, end));
            if self.eat(b']') {
                return Some(PathStep::Elements(ranges));
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    fn parse(mut self) -> Option<Vec<PathStep>> {
        if !self.eat(b'$') {
            return None;
        }
        let mut steps = Vec::new();
        loop {
            self.skip_spaces();
            if self.pos == self.text.len() {
                return Some(steps);
            }
            if self.eat(b'.') {
                steps.push(self.member()?);
            } else if self.eat(b'[') {
                steps.push(self.subscript()?);
            } else {
                return None;
            }
        }
    }
}

fn parse_path(text: &[u8]) -> DfResult<Vec<PathStep>> {
    PathParser { text, pos: 0 }.parse().ok_or_else(bad_path)
}

/// Every value the path matches, in document order.
fn matches<'a>(root: Value<'a>, steps: &[PathStep], out: &mut Vec<Value<'a>>, scratch: &mut Vec<u8>) {
    out.clear();
    out.push(root);
    let mut next = Vec::new();
    for step in steps {
        next.clear();
        for v in out.iter() {
            match step {
                PathStep::Member(name) => next.extend(v.child(super::Step::Key(name), scratch, false)),
                PathStep::AllElements if v.kind() == Kind::Array => next.extend(v.elements()),
                PathStep::Elements(ranges) if v.kind() == Kind::Array => {
                    for (start, end) in ranges {
                        next.extend(v.elements().skip(*start as usize).take(end.saturating_sub(*start) as usize));
                    }
                }
                _ => {}
            }
        }
        std::mem::swap(out, &mut next);
        if out.is_empty() {
            return;
        }
    }
}

#[derive(Clone, Copy)]
enum PathFunction {
    Exists,
    Value,
    Query,
}

fn run(ctx: &ExecCtx, what: PathFunction) -> DfResult<ArrayRef> {
    let docs = TextRows::of(ctx.array(0)?)?;
    // ClickHouse wants the path to be a constant (ILLEGAL_COLUMN otherwise).
    let steps = parse_path(ctx.const_str(1, "JSONPath")?.as_bytes())?;
    let (mut found, mut scratch, mut buf) = (Vec::new(), Vec::new(), Vec::new());
    let mut flags = Vec::new();
    let mut strings = ByteStrings::with_capacity(ctx.len, 0);
    for row in 0..ctx.len {
        found.clear();
        if let Some(root) = parse_document(docs.get(row)) {
            matches(root, &steps, &mut found, &mut scratch);
        }
        buf.clear();
        match what {
            PathFunction::Exists => flags.push(!found.is_empty() as u8),
            PathFunction::Value => {
                if let Some(v) = found.iter().find(|v| !matches!(v.kind(), Kind::Object | Kind::Array)) {
                    match v.kind() {
                        Kind::Null => buf.extend_from_slice(b"null"),
                        _ => write_string_value(*v, &mut buf, &mut scratch),
                    }
                }
                strings.push_value(&buf)?;
            }
            PathFunction::Query => {
                if !found.is_empty() {
                    buf.push(b'[');
                    for (n, v) in found.iter().enumerate() {
                        if n > 0 {
                            buf.extend_from_slice(b", ");
                        }
                        write_raw(*v, &mut buf, &mut scratch);
                    }
                    buf.push(b']');
                }
                strings.push_value(&buf)?;
            }
        }
    }
    match what {
        PathFunction::Exists => Ok(Arc::new(UInt8Array::from(flags))),
        _ => strings.finish(None),
    }
}

fn path_function(name: &'static str, what: PathFunction) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            require_strings(ctx)?;
            if let Ok(text) = ctx.const_str(1, "JSONPath") {
                parse_path(text.as_bytes())?;
            }
            Ok(match what {
                PathFunction::Exists => ChType::UInt8,
                _ => ChType::String,
            })
        },
        move |ctx| run(ctx, what),
    )
    .takes_string_views()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        path_function("JSON_EXISTS", PathFunction::Exists),
        path_function("JSON_VALUE", PathFunction::Value),
        path_function("JSON_QUERY", PathFunction::Query),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_supported_subset() {
        assert_eq!(parse_path(b"$").ok(), Some(vec![]));
        assert_eq!(
            parse_path(b"$.a . \"b c\"[*][0, 2 to 4]").ok(),
            Some(vec![
                PathStep::Member(b"a".to_vec()),
                PathStep::Member(b"b c".to_vec()),
                PathStep::AllElements,
                PathStep::Elements(vec![(0, 1), (2, 4)])
            ])
        );
        for bad in ["", "a", "$a", "$.", "$.a[-1]", "$.*", "$[", "$[1", "$[1 to]"] {
            assert!(parse_path(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn matches_in_document_order() {
        let root = parse_document(br#"{"a":[{"b":1},{"b":2},{"c":3}]}"#).expect("valid");
        let steps = parse_path(b"$.a[*].b").expect("path");
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        matches(root, &steps, &mut out, &mut scratch);
        assert_eq!(out.iter().map(|v| v.text()).collect::<Vec<_>>(), vec![&b"1"[..], &b"2"[..]]);
    }
}
