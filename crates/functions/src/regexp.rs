//! Regular-expression functions: `match` (`REGEXP_MATCHES`), `extract`, `extractAll`, `extractGroups`,
//! `replaceRegexpOne`, `replaceRegexpAll` (`REGEXP_REPLACE`), `splitByRegexp`.
//!
//! ClickHouse uses RE2; Granary uses the `regex` crate, whose syntax and leftmost-first
//! semantics are close to RE2's. [`translate_re2`] closes the gaps that change results:
//! RE2's `\d`, `\w`, `\s` and `\b` are ASCII-only (the crate's are Unicode), `\Q..\E`
//! quotes a literal, `\C` is any byte, and a `[`, `&&`, `~~` or `--` inside a class or a
//! `{` that starts no repetition is a literal in RE2. As in ClickHouse, `.` also matches
//! a newline.
//!
//! Patterns are compiled once: a constant pattern at planning (a bad one fails the query
//! before it runs, with 427 `CANNOT_COMPILE_REGEXP`, or 36 `BAD_ARGUMENTS` for
//! `replaceRegexp*` as in ClickHouse), and every pattern through a process-wide cache, so
//! a pattern column compiles each distinct pattern once.
//!
//! Searches run over bytes from a start position with the whole string as context (`^`
//! matches only at the start of the value), as ClickHouse's loops do; after an empty
//! match, `replaceRegexpAll` copies one byte and searches on, so `replaceRegexpAll('abc',
//! 'x*', '-')` is `-a-b-c-`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use datafusion::arrow::array::{Array, AsArray, StringArray, UInt8Array};
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;
use regex::bytes::{Captures, Regex, RegexBuilder};

use crate::args::{ch_error, illegal_type, is_integer, must_be_constant, scalar_str, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::text::{utf8_array, ByteStrings};

/// Which error a bad pattern raises: ClickHouse reports 427 from most functions and 36
/// from `replaceRegexp*`, which check their pattern themselves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PatternErrors {
    CannotCompile,
    BadArguments,
}

/// RE2 pattern text rewritten for the `regex` crate (see the module comment).
pub(crate) fn translate_re2(pattern: &str) -> String {
    const DIGIT: &str = "[0-9]";
    const NOT_DIGIT: &str = "[^0-9]";
    const WORD: &str = "[0-9A-Za-z_]";
    const NOT_WORD: &str = "[^0-9A-Za-z_]";
    const SPACE: &str = "[\\t\\n\\f\\r ]";
    const NOT_SPACE: &str = "[^\\t\\n\\f\\r ]";
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let Some(&next) = chars.get(i + 1) else {
                // A trailing backslash: left for the compiler to reject.
                out.push('\\');
                break;
            };
            i += 2;
            match next {
                'd' => out.push_str(DIGIT),
                'D' => out.push_str(NOT_DIGIT),
                'w' => out.push_str(WORD),
                'W' => out.push_str(NOT_WORD),
                's' => out.push_str(SPACE),
                'S' => out.push_str(NOT_SPACE),
                'b' if !in_class => out.push_str("(?-u:\\b)"),
                'B' if !in_class => out.push_str("(?-u:\\B)"),
                'C' if !in_class => out.push_str("(?s-u:.)"),
                'Q' if !in_class => {
                    let mut literal = String::new();
                    while i < chars.len() && !(chars[i] == '\\' && chars.get(i + 1) == Some(&'E')) {
                        literal.push(chars[i]);
                        i += 1;
                    }
                    if i < chars.len() {
                        i += 2;
                    }
                    out.push_str(&regex::escape(&literal));
                }
                'E' if !in_class => {}
                other => {
                    out.push('\\');
                    out.push(other);
                    // `\x{263a}`, `\p{Greek}`: the braces belong to the escape.
                    if matches!(other, 'x' | 'p' | 'P') && chars.get(i) == Some(&'{') {
                        let end = chars[i..].iter().position(|c| *c == '}').map_or(chars.len(), |p| i + p + 1);
                        out.extend(&chars[i..end]);
                        i = end;
                    }
                }
            }
            continue;
        }
        if in_class {
            match c {
                ']' => {
                    in_class = false;
                    out.push(']');
                }
                '[' if chars.get(i + 1) == Some(&':') => {
                    // A POSIX class `[:alpha:]` is copied up to its `:]`.
                    match find_posix_end(&chars, i) {
                        Some(end) => {
                            out.extend(&chars[i..end]);
                            i = end;
                            continue;
                        }
                        None => out.push_str("\\["),
                    }
                }
                '[' | '&' | '~' => {
                    out.push('\\');
                    out.push(c);
                }
                '-' if chars.get(i + 1) == Some(&'-') => out.push_str("\\-"),
                _ => out.push(c),
            }
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                out.push('[');
                i += 1;
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                // A `]` right after `[` or `[^` is a member.
                if chars.get(i) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
                continue;
            }
            '{' if !starts_repetition(&chars, i) => out.push_str("\\{"),
            '}' => {
                // A `}` that closes a repetition was copied with its `{`.
                out.push_str("\\}");
            }
            '{' => {
                let end = chars[i..].iter().position(|c| *c == '}').map_or(chars.len(), |p| i + p + 1);
                out.extend(&chars[i..end]);
                i = end;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

fn find_posix_end(chars: &[char], open: usize) -> Option<usize> {
    let mut j = open + 2;
    while j + 1 < chars.len() {
        if chars[j] == ':' && chars[j + 1] == ']' {
            return Some(j + 2);
        }
        if !(chars[j].is_ascii_alphabetic() || chars[j] == '^') {
            return None;
        }
        j += 1;
    }
    None
}

/// Whether the `{` at `at` starts `{n}`, `{n,}` or `{n,m}` (RE2 reads any other `{` as a
/// literal).
fn starts_repetition(chars: &[char], at: usize) -> bool {
    let mut j = at + 1;
    let digits = |j: &mut usize| {
        let start = *j;
        while *j < chars.len() && chars[*j].is_ascii_digit() {
            *j += 1;
        }
        *j > start
    };
    if !digits(&mut j) {
        return false;
    }
    if chars.get(j) == Some(&',') {
        j += 1;
        digits(&mut j);
    }
    chars.get(j) == Some(&'}')
}

/// The process-wide cache of compiled patterns (ClickHouse keeps one too).
fn cache() -> &'static Mutex<HashMap<String, Arc<Regex>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Regex>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Patterns kept at most; the cache starts over when full (patterns are cheap to
/// recompile, and a query with a pattern column rarely has this many distinct ones).
const CACHE_CAPACITY: usize = 1024;

fn compile(pattern: &str, errors: PatternErrors) -> DfResult<Arc<Regex>> {
    if let Ok(cached) = cache().lock() {
        if let Some(re) = cached.get(pattern) {
            return Ok(Arc::clone(re));
        }
    }
    let compiled = RegexBuilder::new(&translate_re2(pattern)).dot_matches_new_line(true).build().map_err(|e| {
        let reason = e.to_string().lines().last().unwrap_or_default().trim().to_string();
        match errors {
            PatternErrors::CannotCompile => ch_error(
                ErrorCode::CANNOT_COMPILE_REGEXP,
                format!("OptimizedRegularExpression: cannot compile re2: {pattern}, error: {reason}"),
            ),
            PatternErrors::BadArguments => {
                ch_error(ErrorCode::BAD_ARGUMENTS, format!("The pattern argument is not a valid re2 pattern: {reason}: {pattern}"))
            }
        }
    })?;
    let re = Arc::new(compiled);
    if let Ok(mut cached) = cache().lock() {
        if cached.len() >= CACHE_CAPACITY {
            cached.clear();
        }
        cached.insert(pattern.to_string(), Arc::clone(&re));
    }
    Ok(re)
}

/// The patterns of argument `i`, row by row: one compiled regex for a constant, else
/// each row's pattern (`None` for an empty pattern, which functions treat specially).
enum Patterns {
    Constant(Option<Arc<Regex>>),
    Column { texts: StringArray, compiled: HashMap<String, Arc<Regex>>, errors: PatternErrors, flags: &'static str },
}

impl Patterns {
    fn new(ctx: &ExecCtx, i: usize, errors: PatternErrors) -> DfResult<Self> {
        Self::with_flags(ctx, i, errors, "")
    }

    /// Patterns compiled with `flags` (such as `(?i)`) in front of each.
    fn with_flags(ctx: &ExecCtx, i: usize, errors: PatternErrors, flags: &'static str) -> DfResult<Self> {
        if let Some(ColumnarValue::Scalar(s)) = ctx.args.get(i) {
            let text = scalar_str(s).unwrap_or_default();
            return Ok(Patterns::Constant(if text.is_empty() { None } else { Some(compile(&format!("{flags}{text}"), errors)?) }));
        }
        let texts = utf8_array(ctx.array(i)?)?.as_string::<i32>().clone();
        Ok(Patterns::Column { texts, compiled: HashMap::new(), errors, flags })
    }

    fn row(&mut self, row: usize) -> DfResult<Option<Arc<Regex>>> {
        match self {
            Patterns::Constant(re) => Ok(re.clone()),
            Patterns::Column { texts, compiled, errors, flags } => {
                let text = texts.value(row);
                if text.is_empty() {
                    return Ok(None);
                }
                if let Some(re) = compiled.get(text) {
                    return Ok(Some(Arc::clone(re)));
                }
                let re = compile(&format!("{flags}{text}"), *errors)?;
                compiled.insert(text.to_string(), Arc::clone(&re));
                Ok(Some(re))
            }
        }
    }
}

/// The haystack: a String column (ClickHouse's regexp functions take no FixedString).
fn require_string(ctx: &RetCtx, i: usize) -> DfResult<()> {
    match ctx.ch(i).strip_nullable() {
        ChType::String => Ok(()),
        ChType::LowCardinality(inner) if matches!(inner.strip_nullable(), ChType::String) => Ok(()),
        _ => Err(illegal_type(ctx.name, i, ctx.field(i))),
    }
}

/// A constant pattern is compiled while planning, so a bad one fails before any row.
fn check_constant_pattern(ctx: &RetCtx, i: usize, errors: PatternErrors) -> DfResult<()> {
    if let Some(text) = ctx.scalar(i).and_then(scalar_str) {
        if !text.is_empty() {
            compile(text, errors)?;
        }
    }
    Ok(())
}

/// `match(haystack, pattern)`: 1 when the pattern matches anywhere (an empty pattern
/// always does); `notMatch` negated, and their `CaseInsensitive` forms.
fn match_fn(name: &'static str, negated: bool, case_insensitive: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            // A FixedString haystack is searched with its zero bytes, as in ClickHouse.
            crate::string::require_text(ctx, 0)?;
            require_string(ctx, 1)?;
            check_constant_pattern(ctx, 1, PatternErrors::CannotCompile)?;
            Ok(ChType::UInt8)
        },
        move |ctx| {
            let hay = utf8_array(ctx.array(0)?)?;
            let hay = hay.as_string::<i32>();
            let flags = if case_insensitive { "(?i)" } else { "" };
            let mut patterns = Patterns::with_flags(ctx, 1, PatternErrors::CannotCompile, flags)?;
            let mut out = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let found = match patterns.row(row)? {
                    None => true,
                    Some(re) => re.is_match(hay.value(row).as_bytes()),
                };
                out.push(u8::from(found != negated));
            }
            Ok(std::sync::Arc::new(UInt8Array::from(out)))
        },
    )
    .build()
}

/// What `extract`/`extractAll` return of a match: the first group when the pattern
/// has one (empty when it did not take part), else the whole match.
fn wanted_group<'h>(caps: &Captures<'h>, has_group: bool) -> &'h [u8] {
    let index = usize::from(has_group);
    caps.get(index).map_or(&[][..], |m| m.as_bytes())
}

/// `extract(haystack, pattern)`: the first match, or its first group.
fn extract() -> ScalarUDF {
    ScalarDef::new(
        "extract",
        Arity::exact(2),
        |ctx| {
            require_string(ctx, 0)?;
            require_string(ctx, 1)?;
            check_constant_pattern(ctx, 1, PatternErrors::CannotCompile)?;
            Ok(ChType::String)
        },
        |ctx| {
            let hay = utf8_array(ctx.array(0)?)?;
            let hay = hay.as_string::<i32>();
            let Patterns::Constant(re) = Patterns::new(ctx, 1, PatternErrors::CannotCompile)? else {
                return Err(must_be_constant(ctx.name, 1, "pattern"));
            };
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            let mut locations = re.as_ref().map(|re| re.capture_locations());
            for row in 0..ctx.len {
                if let (Some(re), Some(locs)) = (&re, locations.as_mut()) {
                    let bytes = hay.value(row).as_bytes();
                    if re.captures_read(locs, bytes).is_some() {
                        let group = usize::from(re.captures_len() > 1);
                        if let Some((start, end)) = locs.get(group) {
                            out.extend(&bytes[start..end]);
                        }
                    }
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `regexpExtract(haystack, pattern[, index])`: group `index` (1 by default, 0 for the
/// whole match) of the first match; empty when nothing matches or the group did not take part.
fn regexp_extract() -> ScalarUDF {
    ScalarDef::new(
        "regexpExtract",
        Arity::range(2, 3),
        |ctx| {
            require_string(ctx, 0)?;
            require_string(ctx, 1)?;
            check_constant_pattern(ctx, 1, PatternErrors::CannotCompile)?;
            if ctx.arg_count() == 3 && !is_integer(ctx.dt(2)) {
                return Err(illegal_type(ctx.name, 2, ctx.field(2)));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let hay = utf8_array(ctx.array(0)?)?;
            let hay = hay.as_string::<i32>();
            let pattern = ctx.const_str(1, "pattern")?;
            let re = compile(pattern, PatternErrors::CannotCompile)?;
            let indices: Vec<i64> = match ctx.args.get(2) {
                Some(_) => {
                    let indices = datafusion::arrow::compute::cast(&ctx.array(2)?, &datafusion::arrow::datatypes::DataType::Int64)?;
                    indices.as_primitive::<datafusion::arrow::datatypes::Int64Type>().values().to_vec()
                }
                None => vec![1; ctx.len],
            };
            let groups = re.captures_len() as i64;
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            let mut locations = re.capture_locations();
            for (row, index) in indices.iter().enumerate() {
                if *index < 0 || *index >= groups {
                    return Err(ch_error(
                        ErrorCode::INDEX_OF_POSITIONAL_ARGUMENT_IS_OUT_OF_RANGE,
                        format!("Index value {index} for regexp pattern `{pattern}` in function regexpExtract is out-of-range, should be in [0, {groups})"),
                    ));
                }
                let bytes = hay.value(row).as_bytes();
                if re.captures_read(&mut locations, bytes).is_some() {
                    if let Some((start, end)) = locations.get(*index as usize) {
                        out.extend(&bytes[start..end]);
                    }
                }
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// `countMatches(haystack, pattern)` and `countMatchesCaseInsensitive`: non-overlapping
/// matches; an empty match ends the count, as in ClickHouse.
fn count_matches(name: &'static str, case_insensitive: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            require_string(ctx, 0)?;
            require_string(ctx, 1)?;
            check_constant_pattern(ctx, 1, PatternErrors::CannotCompile)?;
            Ok(ChType::UInt64)
        },
        move |ctx| {
            let hay = utf8_array(ctx.array(0)?)?;
            let hay = hay.as_string::<i32>();
            let pattern = ctx.const_str(1, "pattern")?;
            let counts: Vec<u64> = if pattern.is_empty() {
                vec![0; ctx.len]
            } else {
                let re = if case_insensitive { compile(&format!("(?i){pattern}"), PatternErrors::CannotCompile)? } else { compile(pattern, PatternErrors::CannotCompile)? };
                (0..ctx.len).map(|row| re.find_iter(hay.value(row).as_bytes()).take_while(|m| !m.is_empty()).count() as u64).collect()
            };
            Ok(Arc::new(datafusion::arrow::array::UInt64Array::from(counts)) as datafusion::arrow::array::ArrayRef)
        },
    )
    .build()
}

/// `extractAll(haystack, pattern)`: every non-overlapping match (or its first group);
/// an empty match ends the search, as in ClickHouse.
fn extract_all() -> ScalarUDF {
    ScalarDef::new(
        "extractAll",
        Arity::exact(2),
        |ctx| {
            require_string(ctx, 0)?;
            require_string(ctx, 1)?;
            check_constant_pattern(ctx, 1, PatternErrors::CannotCompile)?;
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        |ctx| {
            let hay = utf8_array(ctx.array(0)?)?;
            let hay = hay.as_string::<i32>();
            let Patterns::Constant(re) = Patterns::new(ctx, 1, PatternErrors::CannotCompile)? else {
                return Err(must_be_constant(ctx.name, 1, "pattern"));
            };
            let mut values = ByteStrings::with_capacity(ctx.len, 0);
            let mut list_offsets: Vec<i32> = Vec::with_capacity(ctx.len + 1);
            list_offsets.push(0);
            for row in 0..ctx.len {
                if let Some(re) = &re {
                    let has_group = re.captures_len() > 1;
                    let bytes = hay.value(row).as_bytes();
                    let mut pos = 0;
                    while pos <= bytes.len() {
                        let Some(caps) = re.captures_at(bytes, pos) else { break };
                        let Some(whole) = caps.get(0) else { break };
                        if whole.is_empty() {
                            break;
                        }
                        values.push_value(wanted_group(&caps, has_group))?;
                        pos = whole.end();
                    }
                }
                list_offsets.push(list_offset(values.len())?);
            }
            values.finish_list(list_offsets)
        },
    )
    .build()
}

/// `extractGroups(haystack, pattern)`: the groups of the first match (a group that took
/// no part in it is ''), or an empty array when nothing matches.
fn extract_groups() -> ScalarUDF {
    ScalarDef::new(
        "extractGroups",
        Arity::exact(2),
        |ctx| {
            if !matches!(ctx.ch(0).strip_nullable(), ChType::String | ChType::FixedString(_)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            require_string(ctx, 1)?;
            let pattern = ctx.scalar(1).and_then(scalar_str).ok_or_else(|| {
                ch_error(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!("A value of illegal type was provided as 2nd argument 'needle' to function '{}'. Expected: const String or const FixedString, got: String", ctx.name),
                )
            })?;
            group_pattern(ctx.name, pattern)?;
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        |ctx| {
            let pattern = ctx.const_str(1, "needle")?;
            let re = group_pattern(ctx.name, pattern)?;
            let hay = utf8_array(ctx.array(0)?)?;
            let hay = hay.as_string::<i32>();
            let groups = re.captures_len() - 1;
            let mut values = ByteStrings::with_capacity(ctx.len * groups, 0);
            let mut list_offsets: Vec<i32> = Vec::with_capacity(ctx.len + 1);
            list_offsets.push(0);
            let mut locations = re.capture_locations();
            for row in 0..ctx.len {
                if re.captures_read(&mut locations, hay.value(row).as_bytes()).is_some() {
                    let bytes = hay.value(row).as_bytes();
                    for group in 1..=groups {
                        let (start, end) = locations.get(group).unwrap_or((0, 0));
                        values.push_value(&bytes[start..end])?;
                    }
                }
                list_offsets.push(list_offset(values.len())?);
            }
            values.finish_list(list_offsets)
        },
    )
    .build()
}

/// The text of `group` in a match ('' when the group did not take part).
fn group_text<'h>(caps: &Captures<'h>, group: usize) -> &'h [u8] {
    caps.get(group).map_or(&[][..], |m| m.as_bytes())
}

/// `extractAllGroupsHorizontal(haystack, pattern)`: for each group, its text in every
/// match; `extractAllGroupsVertical`: for each match, the text of every group. A group
/// that did not take part gives ''.
fn extract_all_groups(name: &'static str, horizontal: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            if !matches!(ctx.ch(0).strip_nullable(), ChType::String | ChType::FixedString(_)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            require_string(ctx, 1)?;
            let pattern = ctx.const_str(1, "needle")?;
            group_pattern(ctx.name, pattern)?;
            Ok(ChType::Array(Box::new(ChType::Array(Box::new(ChType::String)))))
        },
        move |ctx| {
            let re = group_pattern(ctx.name, ctx.const_str(1, "needle")?)?;
            let hay = utf8_array(ctx.array(0)?)?;
            let hay = hay.as_string::<i32>();
            let groups = re.captures_len() - 1;
            let mut values = ByteStrings::with_capacity(0, 0);
            let mut inner_offsets: Vec<i32> = vec![0];
            let mut outer_offsets: Vec<i32> = vec![0];
            for row in 0..ctx.len {
                let bytes = hay.value(row).as_bytes();
                let matches: Vec<Captures> = re.captures_iter(bytes).collect();
                if horizontal {
                    for group in 1..=groups {
                        for caps in &matches {
                            values.push_value(group_text(caps, group))?;
                        }
                        inner_offsets.push(list_offset(values.len())?);
                    }
                } else {
                    for caps in &matches {
                        for group in 1..=groups {
                            values.push_value(group_text(caps, group))?;
                        }
                        inner_offsets.push(list_offset(values.len())?);
                    }
                }
                outer_offsets.push(list_offset(inner_offsets.len() - 1)?);
            }
            let inner = values.finish_list(inner_offsets)?;
            let item = Arc::new(ChType::Array(Box::new(ChType::String)).to_arrow_field("item"));
            Ok(Arc::new(datafusion::arrow::array::ListArray::try_new(
                item,
                datafusion::arrow::buffer::OffsetBuffer::new(outer_offsets.into()),
                inner,
                None,
            )?) as datafusion::arrow::array::ArrayRef)
        },
    )
    .build()
}

/// The compiled pattern of `extractGroups`, which must be non-empty and have a group.
fn group_pattern(name: &str, pattern: &str) -> DfResult<Arc<Regex>> {
    if pattern.is_empty() {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("{name} length of 'needle' argument must be greater than 0")));
    }
    let re = compile(pattern, PatternErrors::CannotCompile)?;
    if re.captures_len() < 2 {
        return Err(ch_error(ErrorCode::BAD_ARGUMENTS, format!("There are no groups in regexp: {pattern}")));
    }
    Ok(re)
}

pub(crate) fn list_offset(n: usize) -> DfResult<i32> {
    i32::try_from(n).map_err(|_| ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, "An array column of more than 2^31 elements does not fit in one block"))
}

/// One piece of a `replaceRegexp*` replacement: literal bytes or a group number.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    Literal(Vec<u8>),
    Group(usize),
}

/// ClickHouse's replacement syntax: `\0`..`\9` insert a group, a backslash before
/// anything else keeps only that character, a trailing backslash stays.
fn parse_replacement(replacement: &[u8]) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut literal = Vec::new();
    let mut i = 0;
    while i < replacement.len() {
        let c = replacement[i];
        match replacement.get(i + 1) {
            Some(&next) if c == b'\\' => {
                if next.is_ascii_digit() {
                    if !literal.is_empty() {
                        pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                    }
                    pieces.push(Piece::Group(usize::from(next - b'0')));
                } else {
                    literal.push(next);
                }
                i += 2;
            }
            _ => {
                literal.push(c);
                i += 1;
            }
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    pieces
}

fn check_groups(pieces: &[Piece], re: &Regex) -> DfResult<()> {
    let groups = re.captures_len() - 1;
    for piece in pieces {
        if let Piece::Group(n) = piece {
            if *n > groups {
                return Err(ch_error(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Substitution '\\{n}' in replacement argument is invalid, regexp has only {groups} capturing groups"),
                ));
            }
        }
    }
    Ok(())
}

fn replace_regexp(name: &'static str, all: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(3),
        |ctx| {
            if matches!(ctx.ch(0).base(), ChType::FixedString(_)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!("Illegal column {} of first argument of function {}", ctx.ch(0), ctx.name),
                ));
            }
            for i in 0..3 {
                require_string(ctx, i)?;
            }
            check_constant_pattern(ctx, 1, PatternErrors::BadArguments)?;
            if let (Some(pattern), Some(replacement)) = (ctx.scalar(1).and_then(scalar_str), ctx.scalar(2).and_then(scalar_str)) {
                if !pattern.is_empty() {
                    check_groups(&parse_replacement(replacement.as_bytes()), compile(pattern, PatternErrors::BadArguments)?.as_ref())?;
                }
            }
            Ok(ChType::String)
        },
        move |ctx| {
            let hay = utf8_array(ctx.array(0)?)?;
            let hay = hay.as_string::<i32>();
            let mut patterns = Patterns::new(ctx, 1, PatternErrors::BadArguments)?;
            let constant_replacement = match ctx.args.get(2) {
                Some(ColumnarValue::Scalar(s)) => Some(parse_replacement(scalar_str(s).unwrap_or_default().as_bytes())),
                _ => None,
            };
            let replacements = match constant_replacement {
                Some(_) => None,
                None => Some(utf8_array(ctx.array(2)?)?),
            };
            let replacements = replacements.as_ref().map(|r| r.as_string::<i32>());
            let mut out = ByteStrings::with_capacity(ctx.len, hay.value_data().len());
            let mut row_pieces: Vec<Piece>;
            for row in 0..ctx.len {
                let bytes = hay.value(row).as_bytes();
                let Some(re) = patterns.row(row)? else {
                    out.push_value(bytes)?;
                    continue;
                };
                let pieces = match (&constant_replacement, replacements) {
                    (Some(pieces), _) => {
                        check_groups(pieces, &re)?;
                        pieces
                    }
                    (None, Some(column)) => {
                        row_pieces = parse_replacement(column.value(row).as_bytes());
                        check_groups(&row_pieces, &re)?;
                        &row_pieces
                    }
                    (None, None) => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} has no replacement", ctx.name))),
                };
                replace_in(bytes, &re, pieces, all, &mut out);
                out.finish_value()?;
            }
            out.finish(None)
        },
    )
    .build()
}

/// ClickHouse's replacement loop: after a match, search on from its end; after an empty
/// match, copy one byte first. The search continues up to and including the end of the
/// string, so a pattern that matches empty there is replaced once more.
fn replace_in(bytes: &[u8], re: &Regex, pieces: &[Piece], all: bool, out: &mut ByteStrings) {
    let mut locations = re.capture_locations();
    let mut pos = 0;
    while pos <= bytes.len() {
        if re.captures_read_at(&mut locations, bytes, pos).is_none() {
            break;
        }
        let Some((start, end)) = locations.get(0) else { break };
        out.extend(&bytes[pos..start]);
        for piece in pieces {
            match piece {
                Piece::Literal(text) => out.extend(text),
                Piece::Group(n) => {
                    if let Some((s, e)) = locations.get(*n) {
                        out.extend(&bytes[s..e]);
                    }
                }
            }
        }
        pos = end;
        if start == end {
            if let Some(&next) = bytes.get(pos) {
                out.push_byte(next);
            }
            pos += 1;
        }
        if !all {
            break;
        }
    }
    if pos < bytes.len() {
        out.extend(&bytes[pos..]);
    }
}

/// `splitByRegexp(pattern, s[, max_substrings])`: the pieces between matches; an empty
/// pattern splits into single bytes, an empty match ends the splitting.
fn split_by_regexp() -> ScalarUDF {
    ScalarDef::new(
        "splitByRegexp",
        Arity::range(2, 3),
        |ctx| {
            require_string(ctx, 0)?;
            require_string(ctx, 1)?;
            check_constant_pattern(ctx, 0, PatternErrors::CannotCompile)?;
            if ctx.arg_count() == 3 && !is_integer(ctx.dt(2)) {
                return Err(illegal_type(ctx.name, 2, ctx.field(2)));
            }
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        |ctx| {
            let Patterns::Constant(re) = Patterns::new(ctx, 0, PatternErrors::CannotCompile)? else {
                return Err(must_be_constant(ctx.name, 0, "separator"));
            };
            let max = if ctx.args.len() == 3 { ctx.const_int(2, "max_substrings")? } else { 0 };
            let max = if max > 0 { usize::try_from(max).unwrap_or(usize::MAX) } else { usize::MAX };
            let hay = utf8_array(ctx.array(1)?)?;
            let hay = hay.as_string::<i32>();
            let mut values = ByteStrings::with_capacity(ctx.len, hay.value_data().len());
            let mut list_offsets: Vec<i32> = Vec::with_capacity(ctx.len + 1);
            list_offsets.push(0);
            for row in 0..ctx.len {
                let bytes = hay.value(row).as_bytes();
                let mut pieces = 0usize;
                match &re {
                    None => {
                        for b in bytes.iter().take(max) {
                            values.push_value(std::slice::from_ref(b))?;
                        }
                    }
                    Some(re) => {
                        let mut pos = 0;
                        while pos <= bytes.len() && pieces < max {
                            match re.find_at(bytes, pos) {
                                Some(m) if !m.is_empty() => {
                                    values.push_value(&bytes[pos..m.start()])?;
                                    pos = m.end();
                                }
                                _ => {
                                    values.push_value(&bytes[pos..])?;
                                    pos = bytes.len() + 1;
                                }
                            }
                            pieces += 1;
                        }
                    }
                }
                list_offsets.push(list_offset(values.len())?);
            }
            values.finish_list(list_offsets)
        },
    )
    .build()
}

/// `regexpQuoteMeta(s)`: `s` with a backslash before each byte RE2 treats specially.
/// ClickHouse escapes fewer bytes than RE2's `QuoteMeta` (no `}`, not letters outside
/// ASCII) and a zero byte as a backslash and the byte itself.
fn regexp_quote_meta() -> ScalarUDF {
    ScalarDef::new(
        "regexpQuoteMeta",
        Arity::exact(1),
        |ctx| {
            require_string(ctx, 0)?;
            Ok(ChType::String)
        },
        |ctx| {
            let input = utf8_array(ctx.array(0)?)?;
            let input = input.as_string::<i32>();
            let mut out = ByteStrings::with_capacity(ctx.len, input.value_data().len());
            for row in 0..ctx.len {
                for &byte in input.value(row).as_bytes() {
                    if matches!(byte, b'\0' | b'\\' | b'|' | b'(' | b')' | b'^' | b'$' | b'.' | b'[' | b']' | b'?' | b'*' | b'+' | b'{' | b':' | b'-') {
                        out.extend(b"\\");
                    }
                    out.extend(&[byte]);
                }
                out.finish_value()?;
            }
            out.finish(input.nulls().cloned())
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        regexp_extract(),
        count_matches("countMatches", false),
        count_matches("countMatchesCaseInsensitive", true),
        match_fn("match", false, false),
        match_fn("notMatch", true, false),
        match_fn("matchCaseInsensitive", false, true),
        match_fn("notMatchCaseInsensitive", true, true),
        regexp_quote_meta(),
        extract(),
        extract_all(),
        extract_groups(),
        extract_all_groups("extractAllGroupsHorizontal", true),
        extract_all_groups("extractAllGroupsVertical", false),
        replace_regexp("replaceRegexpOne", false),
        replace_regexp("replaceRegexpAll", true),
        split_by_regexp(),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn replaced(hay: &str, pattern: &str, replacement: &str, all: bool) -> String {
        let re = compile(pattern, PatternErrors::BadArguments).unwrap();
        let mut out = ByteStrings::with_capacity(1, 0);
        replace_in(hay.as_bytes(), &re, &parse_replacement(replacement.as_bytes()), all, &mut out);
        out.finish_value().unwrap();
        let array = out.finish(None).unwrap();
        array.as_string::<i32>().value(0).to_string()
    }

    #[test]
    fn re2_classes_are_ascii() {
        let re = |p: &str| compile(p, PatternErrors::CannotCompile).unwrap();
        assert!(!re("^\\w$").is_match("é".as_bytes()));
        assert!(!re("\\d").is_match("٣".as_bytes()));
        assert!(re("^[\\D]$").is_match("٣".as_bytes()));
        assert!(re("^[^\\d]$").is_match(b"x"));
        assert!(!re("\\s").is_match("\u{a0}".as_bytes()));
        assert!(re("\\Qa.\\E").is_match(b"a.") && !re("\\Qa.\\E").is_match(b"ab"));
        assert!(re("[[]").is_match(b"["));
        assert!(re("a{").is_match(b"a{") && re("a{2}").is_match(b"aa") && !re("^a{2}$").is_match(b"a"));
        assert!(re("[[:alpha:]]").is_match(b"q"));
        assert!(re("a.b").is_match(b"a\nb"));
        assert!(re("[a&&b]").is_match(b"&"));
        assert!(re("(?i)\\x{212A}").is_match(b"k") && re("\\p{Greek}").is_match("α".as_bytes()));
    }

    #[test]
    fn replacement_loop_matches_clickhouse() {
        assert_eq!(replaced("aaa", "a*", "X", true), "XX");
        assert_eq!(replaced("abc", "x*", "-", true), "-a-b-c-");
        assert_eq!(replaced("abc", "b*", "-", true), "-a--c-");
        assert_eq!(replaced("ab", "^", "X", true), "Xab");
        assert_eq!(replaced("ab", "$", "X", true), "abX");
        assert_eq!(replaced("abc", "x*", "-", false), "-abc");
        assert_eq!(replaced("", "x*", "-", true), "-");
        assert_eq!(replaced("2024-01-15", "(\\d+)-(\\d+)-(\\d+)", "\\3/\\2/\\1", true), "15/01/2024");
        assert_eq!(replaced("abc", "(b)", "\\10", true), "ab0c");
        assert_eq!(replaced("abc", "b", "x\\", true), "ax\\c");
        assert_eq!(replaced("abc", "b", "\\x", true), "axc");
    }

    #[test]
    fn replacement_groups_are_checked() {
        let re = compile("X", PatternErrors::BadArguments).unwrap();
        assert!(check_groups(&parse_replacement(b"\\1"), &re).is_err());
        assert!(check_groups(&parse_replacement(b"\\0"), &re).is_ok());
    }
}
