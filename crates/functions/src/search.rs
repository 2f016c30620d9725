//! Substring search: `position` (`instr`), `locate` (the same with the needle first),
//! `positionUTF8`, `positionCaseInsensitive`,
//! `positionCaseInsensitiveUTF8`, `countSubstrings` and its case-insensitive and UTF-8
//! variants, `multiSearchAny`, `multiSearchFirstIndex`/`FirstPosition`/`AllPositions`
//! (and their CaseInsensitive/UTF8 forms), `hasSubsequence` (the same four forms).
//!
//! Positions are 1-based, 0 when the needle is not found; the byte variants count bytes,
//! the UTF8 variants code points (a byte that does not continue a UTF-8 sequence starts
//! one, as in ClickHouse). An optional `start_pos` (an unsigned integer, 0 counting as 1)
//! starts the search; an empty needle is found at `start_pos` when that lies within the
//! string or right after it. The case-insensitive byte variants fold ASCII letters only;
//! the UTF8 ones compare each code point with the needle's lower- and uppercase forms.
//! A constant needle is prepared (folded, its searcher built) once per batch.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, UInt64Array, UInt8Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, UInt64Type};
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;
use memchr::memmem::Finder;

use crate::args::{ch_error, illegal_type, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::string::{require_text, text_bytes, TextBytes};
use crate::text::utf8_array;

/// How a search compares text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bytes,
    AsciiCaseInsensitive,
    Utf8,
    Utf8CaseInsensitive,
}

/// The third argument, an unsigned integer (ClickHouse refuses signed ones).
fn check_start(ctx: &RetCtx) -> DfResult<()> {
    if ctx.arg_count() == 3 && !crate::string::is_unsigned_arg(ctx, 2) {
        return Err(illegal_type(ctx.name, 2, ctx.field(2)));
    }
    Ok(())
}

fn start_positions(ctx: &ExecCtx) -> DfResult<Option<UInt64Array>> {
    if ctx.args.len() < 3 {
        return Ok(None);
    }
    Ok(Some(cast(&ctx.array(2)?, &DataType::UInt64)?.as_primitive::<UInt64Type>().clone()))
}

/// Whether the byte starts a code point (is not a UTF-8 continuation byte).
fn starts_code_point(b: u8) -> bool {
    (b & 0xC0) != 0x80
}

/// The byte offset of code point `n` (0-based) of `bytes`, or `None` past its end + 1.
fn byte_of_code_point(bytes: &[u8], n: usize) -> Option<usize> {
    if n == 0 {
        return Some(0);
    }
    let mut seen = 0;
    for (i, b) in bytes.iter().enumerate() {
        if starts_code_point(*b) {
            if seen == n {
                return Some(i);
            }
            seen += 1;
        }
    }
    (seen == n).then_some(bytes.len())
}

fn code_points_before(bytes: &[u8], end: usize) -> usize {
    bytes[..end].iter().filter(|b| starts_code_point(**b)).count()
}

/// The simple lower- and uppercase forms of a code point (the first of a multi-char
/// mapping, so `İ` lowers to `i` as in Unicode's simple mapping).
fn case_forms(c: char) -> (char, char) {
    (c.to_lowercase().next().unwrap_or(c), c.to_uppercase().next().unwrap_or(c))
}

/// A needle prepared for one mode.
enum Needle {
    Bytes(Box<Finder<'static>>, usize),
    /// Each code point with its case forms.
    Chars(Vec<(char, char, char)>),
}

impl Needle {
    fn new(needle: &[u8], mode: Mode) -> Self {
        match mode {
            Mode::Bytes | Mode::Utf8 => Needle::Bytes(Box::new(Finder::new(needle).into_owned()), needle.len()),
            Mode::AsciiCaseInsensitive => {
                let lowered = needle.to_ascii_lowercase();
                Needle::Bytes(Box::new(Finder::new(&lowered).into_owned()), needle.len())
            }
            Mode::Utf8CaseInsensitive => Needle::Chars(
                String::from_utf8_lossy(needle)
                    .chars()
                    .map(|c| {
                        let (lower, upper) = case_forms(c);
                        (c, lower, upper)
                    })
                    .collect(),
            ),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Needle::Bytes(_, len) => *len == 0,
            Needle::Chars(chars) => chars.is_empty(),
        }
    }
}

/// A haystack prepared for one mode: folded bytes, or code points with their offsets.
struct Hay<'a> {
    bytes: std::borrow::Cow<'a, [u8]>,
    chars: Vec<(usize, char)>,
}

impl<'a> Hay<'a> {
    fn new(bytes: &'a [u8], mode: Mode) -> Self {
        match mode {
            Mode::AsciiCaseInsensitive => Hay { bytes: std::borrow::Cow::Owned(bytes.to_ascii_lowercase()), chars: Vec::new() },
            Mode::Utf8CaseInsensitive => {
                let text = String::from_utf8_lossy(bytes);
                Hay { bytes: std::borrow::Cow::Borrowed(bytes), chars: text.char_indices().collect() }
            }
            _ => Hay { bytes: std::borrow::Cow::Borrowed(bytes), chars: Vec::new() },
        }
    }

    /// The first match at or after byte `from` (a code point index for
    /// `Utf8CaseInsensitive`): `(start, end)` in the same unit.
    fn find(&self, needle: &Needle, from: usize) -> Option<(usize, usize)> {
        match needle {
            Needle::Bytes(finder, len) => {
                let rest = self.bytes.get(from..)?;
                finder.find(rest).map(|p| (from + p, from + p + len))
            }
            Needle::Chars(wanted) => {
                let n = wanted.len();
                if self.chars.len() < n {
                    return None;
                }
                (from..=self.chars.len() - n)
                    .find(|start| {
                        wanted.iter().enumerate().all(|(j, (c, lower, upper))| {
                            let h = self.chars[start + j].1;
                            h == *c || h == *lower || h == *upper
                        })
                    })
                    .map(|start| (start, start + n))
            }
        }
    }
}

/// Where a search starts, in the mode's unit, for a 1-based `start_pos` (0 counts as
/// 1); `None` when it lies past the end + 1.
fn search_start(bytes: &[u8], hay: &Hay, start_pos: u64, mode: Mode) -> Option<usize> {
    let skip = usize::try_from(start_pos.max(1) - 1).ok()?;
    match mode {
        Mode::Bytes | Mode::AsciiCaseInsensitive => (skip <= bytes.len()).then_some(skip),
        Mode::Utf8 => byte_of_code_point(bytes, skip),
        Mode::Utf8CaseInsensitive => (skip <= hay.chars.len()).then_some(skip),
    }
}

/// The 1-based position of a match starting at `start` (in the mode's unit).
fn position_of(bytes: &[u8], start: usize, mode: Mode) -> u64 {
    let index = match mode {
        Mode::Utf8 => code_points_before(bytes, start),
        _ => start,
    };
    index as u64 + 1
}

/// Runs `per_row(hay bytes, prepared haystack, needle, start)` over the rows, preparing a
/// constant needle once.
fn for_each_row(
    ctx: &ExecCtx,
    mode: Mode,
    haystack_arg: usize,
    needle_arg: usize,
    mut per_row: impl FnMut(&[u8], &Hay, &Needle, Option<usize>) -> u64,
) -> DfResult<ArrayRef> {
    let hay = text_bytes(&ctx.array(haystack_arg)?);
    let constant_needle = match &ctx.args[needle_arg] {
        ColumnarValue::Scalar(_) => {
            let needles = text_bytes(&ctx.args[needle_arg].to_array(1)?);
            Some(Needle::new(needles.value(0), mode))
        }
        ColumnarValue::Array(_) => None,
    };
    let needles: Option<TextBytes> = match constant_needle {
        Some(_) => None,
        None => Some(text_bytes(&ctx.array(needle_arg)?)),
    };
    let starts = start_positions(ctx)?;
    let mut out: Vec<u64> = Vec::with_capacity(ctx.len);
    let mut row_needle;
    for row in 0..ctx.len {
        let needle = match (&constant_needle, &needles) {
            (Some(n), _) => n,
            (None, Some(column)) => {
                row_needle = Needle::new(column.value(row), mode);
                &row_needle
            }
            (None, None) => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{}: no needle", ctx.name))),
        };
        let bytes = hay.value(row);
        let prepared = Hay::new(bytes, mode);
        let start = search_start(bytes, &prepared, starts.as_ref().map_or(1, |s| s.value(row)), mode);
        out.push(per_row(bytes, &prepared, needle, start));
    }
    Ok(Arc::new(UInt64Array::from(out)))
}

/// Where the haystack and the needle are among the arguments.
#[derive(Clone, Copy)]
enum Order {
    /// `position(haystack, needle[, start_pos])`
    HaystackFirst,
    /// `locate(needle, haystack[, start_pos])`, MySQL's order, as ClickHouse has it.
    NeedleFirst,
}

fn position(name: &'static str, mode: Mode, order: Order) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(2, 3),
        |ctx| {
            require_text(ctx, 0)?;
            require_text(ctx, 1)?;
            check_start(ctx)?;
            Ok(ChType::UInt64)
        },
        move |ctx| {
            let (haystack, needle) = match order {
                Order::HaystackFirst => (0, 1),
                Order::NeedleFirst => (1, 0),
            };
            for_each_row(ctx, mode, haystack, needle, |bytes, hay, needle, start| {
                let Some(start) = start else { return 0 };
                if needle.is_empty() {
                    return match mode {
                        Mode::Utf8CaseInsensitive => start as u64 + 1,
                        _ => position_of(bytes, start, mode),
                    };
                }
                hay.find(needle, start).map_or(0, |(found, _)| match mode {
                    Mode::Utf8CaseInsensitive => found as u64 + 1,
                    _ => position_of(bytes, found, mode),
                })
            })
        },
    )
    .build()
}

/// `countSubstrings*(haystack, needle[, start_pos])`: non-overlapping occurrences; an
/// empty needle occurs 0 times.
fn count_substrings(name: &'static str, mode: Mode) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(2, 3),
        |ctx| {
            require_text(ctx, 0)?;
            require_text(ctx, 1)?;
            check_start(ctx)?;
            Ok(ChType::UInt64)
        },
        move |ctx| {
            for_each_row(ctx, mode, 0, 1, |_, hay, needle, start| {
                let Some(mut from) = start else { return 0 };
                if needle.is_empty() {
                    return 0;
                }
                let mut count = 0;
                while let Some((_, end)) = hay.find(needle, from) {
                    count += 1;
                    from = end;
                }
                count
            })
        },
    )
    .build()
}

/// `multiSearchAny(haystack, [needles])`: 1 when any needle occurs in the haystack (an
/// empty needle does in any non-empty haystack), as bytes, like ClickHouse's non-UTF8
/// variant.
fn multi_search_any() -> ScalarUDF {
    ScalarDef::new(
        "multiSearchAny",
        Arity::exact(2),
        |ctx| {
            require_text(ctx, 0)?;
            match ctx.ch(1).strip_nullable() {
                ChType::Array(item) if matches!(item.strip_nullable(), ChType::String | ChType::FixedString(_)) => Ok(ChType::UInt8),
                _ => Err(illegal_type(ctx.name, 1, ctx.field(1))),
            }
        },
        |ctx| {
            let h = text_bytes(&ctx.array(0)?);
            // Constant needles (the usual case) are searched for in the whole column at
            // once; expanding them to one list per row would copy them into every row.
            let constant = matches!(ctx.args[1], ColumnarValue::Scalar(_));
            let needles = if constant { ctx.args[1].to_array(1)? } else { ctx.array(1)? };
            let needles = needles
                .as_list_opt::<i32>()
                .ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "multiSearchAny expects an Array(String) of needles"))?;
            let values = utf8_array(Arc::clone(needles.values()))?;
            let values = values.as_string::<i32>();
            let offsets = needles.value_offsets();
            if constant {
                let list: Vec<&[u8]> = (offsets[0] as usize..offsets[1] as usize).map(|i| values.value(i).as_bytes()).collect();
                let found = match &h {
                    TextBytes::Strings(s) => {
                        let bounds = s.value_offsets();
                        any_in_column(s.value_data(), ctx.len, |row| bounds[row] as usize, &list)
                    }
                    TextBytes::Fixed(f) => {
                        // The value buffer of a sliced FixedString column starts at its first row.
                        let width = f.value_length().max(0) as usize;
                        any_in_column(f.value_data(), ctx.len, |row| row * width, &list)
                    }
                };
                return Ok(Arc::new(UInt8Array::from(found)));
            }
            let out: UInt8Array = (0..ctx.len)
                .map(|row| {
                    let hay = h.value(row);
                    let (from, to) = (offsets[row] as usize, offsets[row + 1] as usize);
                    let found = !hay.is_empty()
                        && (from..to).any(|i| {
                            let needle = values.value(i).as_bytes();
                            needle.is_empty() || memchr::memmem::find(hay, needle).is_some()
                        });
                    u8::from(found)
                })
                .collect::<Vec<_>>()
                .into();
            Ok(Arc::new(out))
        },
    )
    .build()
}

/// For each of `rows` values laid end to end in `data` (value `r` is
/// `data[bound(r)..bound(r + 1)]`), 1 when any needle occurs in it. Each needle's
/// searcher runs over the whole buffer once; a match is kept only when it lies inside
/// one value, and the search goes on from the next value.
fn any_in_column(data: &[u8], rows: usize, bound: impl Fn(usize) -> usize, needles: &[&[u8]]) -> Vec<u8> {
    let mut found = vec![0u8; rows];
    if rows == 0 {
        return found;
    }
    if needles.iter().any(|n| n.is_empty()) {
        // An empty needle occurs in every value but an empty one, as in ClickHouse.
        for (row, f) in found.iter_mut().enumerate() {
            *f = u8::from(bound(row + 1) > bound(row));
        }
        return found;
    }
    let end = bound(rows).min(data.len());
    for needle in needles {
        let finder = Finder::new(needle);
        let (mut pos, mut row) = (bound(0), 0usize);
        while pos < end {
            let Some(at) = finder.find(&data[pos..end]).map(|i| pos + i) else { break };
            while row + 1 < rows && bound(row + 1) <= at {
                row += 1;
            }
            let row_end = bound(row + 1);
            if at + needle.len() <= row_end {
                found[row] = 1;
            }
            // A later match of this needle starting in the same value would cross its
            // end too (or is redundant): go on from the next value.
            pos = row_end.max(at + 1);
            row += 1;
            if row >= rows {
                break;
            }
        }
    }
    found
}

/// What a `multiSearch*` function reports.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MultiKind {
    /// The 1-based index of the first needle (in array order) that occurs.
    FirstIndex,
    /// The leftmost position at which any needle occurs.
    FirstPosition,
    /// The position of each needle (0 when absent).
    AllPositions,
    /// 1 when any needle occurs (`multiSearchAny`'s UTF8 and CaseInsensitive forms).
    Any,
}

/// `multiSearchFirstIndex`, `multiSearchFirstPosition`, `multiSearchAllPositions` and
/// their CaseInsensitive/UTF8 forms over a constant or per-row `Array(String)` of
/// needles. An empty needle occurs at 1 in a non-empty haystack; an empty haystack
/// matches nothing, as in ClickHouse.
fn multi_search(name: &'static str, mode: Mode, kind: MultiKind) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            if !crate::string::is_plain_string(&ctx.ch(0)) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            match ctx.ch(1) {
                ChType::Array(item) if matches!(*item, ChType::String) => {}
                _ => return Err(illegal_type(ctx.name, 1, ctx.field(1))),
            }
            Ok(match (kind, ctx.ch(0)) {
                (MultiKind::AllPositions, _) => ChType::Array(Box::new(ChType::UInt64)),
                (MultiKind::Any, _) => ChType::UInt8,
                (_, ChType::LowCardinality(_)) => ChType::LowCardinality(Box::new(ChType::UInt64)),
                _ => ChType::UInt64,
            })
        },
        move |ctx| {
            if matches!(ctx.args[0], ColumnarValue::Scalar(_)) && matches!(ctx.args[1], ColumnarValue::Array(_)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!("Function '{}' doesn't support search with non-constant needles in constant haystack", ctx.name),
                ));
            }
            let h = text_bytes(&ctx.array(0)?);
            let lists = ctx.array(1)?;
            let lists = lists
                .as_list_opt::<i32>()
                .ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, format!("{} expects an Array(String) of needles", ctx.name)))?;
            let values = utf8_array(Arc::clone(lists.values()))?;
            let values = values.as_string::<i32>();
            let offsets = lists.value_offsets();
            let constant: Option<Vec<Needle>> = matches!(ctx.args[1], ColumnarValue::Scalar(_))
                .then(|| (offsets[0] as usize..offsets[1] as usize).map(|i| Needle::new(values.value(i).as_bytes(), mode)).collect());
            let mut row_needles: Vec<Needle> = Vec::new();
            let mut scalars: Vec<u64> = Vec::with_capacity(ctx.len);
            let mut all: Vec<u64> = Vec::new();
            let mut all_offsets: Vec<i32> = Vec::with_capacity(ctx.len + 1);
            all_offsets.push(0);
            for row in 0..ctx.len {
                let needles: &[Needle] = match &constant {
                    Some(n) => n,
                    None => {
                        row_needles.clear();
                        row_needles.extend(
                            (offsets[row] as usize..offsets[row + 1] as usize).map(|i| Needle::new(values.value(i).as_bytes(), mode)),
                        );
                        &row_needles
                    }
                };
                let bytes = h.value(row);
                let hay = Hay::new(bytes, mode);
                let position = |needle: &Needle| -> u64 {
                    if bytes.is_empty() {
                        0
                    } else if needle.is_empty() {
                        1
                    } else {
                        hay.find(needle, 0).map_or(0, |(found, _)| match mode {
                            Mode::Utf8CaseInsensitive => found as u64 + 1,
                            _ => position_of(bytes, found, mode),
                        })
                    }
                };
                match kind {
                    MultiKind::FirstIndex => {
                        scalars.push(needles.iter().position(|n| position(n) > 0).map_or(0, |i| i as u64 + 1));
                    }
                    MultiKind::FirstPosition => {
                        scalars.push(needles.iter().map(position).filter(|p| *p > 0).min().unwrap_or(0));
                    }
                    MultiKind::AllPositions => {
                        all.extend(needles.iter().map(position));
                        all_offsets.push(crate::regexp::list_offset(all.len())?);
                    }
                    MultiKind::Any => scalars.push(u64::from(needles.iter().any(|n| position(n) > 0))),
                }
            }
            if kind == MultiKind::AllPositions {
                let item = Arc::new(ChType::UInt64.to_arrow_field("item"));
                let list = datafusion::arrow::array::ListArray::try_new(
                    item,
                    datafusion::arrow::buffer::OffsetBuffer::new(all_offsets.into()),
                    Arc::new(UInt64Array::from(all)),
                    None,
                )?;
                return Ok(Arc::new(list) as ArrayRef);
            }
            if kind == MultiKind::Any {
                return Ok(Arc::new(datafusion::arrow::array::UInt8Array::from_iter_values(scalars.into_iter().map(|v| v as u8))) as ArrayRef);
            }
            Ok(Arc::new(UInt64Array::from(scalars)) as ArrayRef)
        },
    )
    .build()
}

/// Whether `needle` is a subsequence of `haystack`: its items appear there in order, not
/// necessarily next to each other.
fn is_subsequence<T: PartialEq>(haystack: impl IntoIterator<Item = T>, needle: impl IntoIterator<Item = T>) -> bool {
    let mut haystack = haystack.into_iter();
    needle.into_iter().all(|wanted| haystack.any(|item| item == wanted))
}

/// `hasSubsequence(haystack, needle)` and its variants: 1 when the needle's bytes (code
/// points for UTF8; ASCII letters folded, or code points lowered, for CaseInsensitive)
/// appear in the haystack in order.
fn has_subsequence(name: &'static str, mode: Mode) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            for i in 0..2 {
                if ctx.ch(i).base() != &ChType::String {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function {}", ctx.ch(i), ctx.name)));
                }
            }
            Ok(ChType::UInt8)
        },
        move |ctx| {
            let (haystacks, needles) = (text_bytes(&ctx.array(0)?), text_bytes(&ctx.array(1)?));
            let lower = |c: char| c.to_lowercase().next().unwrap_or(c);
            let out: UInt8Array = (0..ctx.len)
                .map(|row| {
                    let (h, n) = (haystacks.value(row), needles.value(row));
                    let found = match mode {
                        Mode::Bytes => is_subsequence(h, n),
                        Mode::AsciiCaseInsensitive => is_subsequence(h.iter().map(u8::to_ascii_lowercase), n.iter().map(u8::to_ascii_lowercase)),
                        Mode::Utf8 => is_subsequence(String::from_utf8_lossy(h).chars(), String::from_utf8_lossy(n).chars()),
                        Mode::Utf8CaseInsensitive => is_subsequence(String::from_utf8_lossy(h).chars().map(lower), String::from_utf8_lossy(n).chars().map(lower)),
                    };
                    Some(u8::from(found))
                })
                .collect();
            Ok(Arc::new(out))
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = vec![
        has_subsequence("hasSubsequence", Mode::Bytes),
        has_subsequence("hasSubsequenceUTF8", Mode::Utf8),
        has_subsequence("hasSubsequenceCaseInsensitive", Mode::AsciiCaseInsensitive),
        has_subsequence("hasSubsequenceCaseInsensitiveUTF8", Mode::Utf8CaseInsensitive),
        position("position", Mode::Bytes, Order::HaystackFirst),
        position("locate", Mode::Bytes, Order::NeedleFirst),
        position("positionUTF8", Mode::Utf8, Order::HaystackFirst),
        position("positionCaseInsensitive", Mode::AsciiCaseInsensitive, Order::HaystackFirst),
        position("positionCaseInsensitiveUTF8", Mode::Utf8CaseInsensitive, Order::HaystackFirst),
        count_substrings("countSubstrings", Mode::Bytes),
        count_substrings("countSubstringsCaseInsensitive", Mode::AsciiCaseInsensitive),
        count_substrings("countSubstringsCaseInsensitiveUTF8", Mode::Utf8CaseInsensitive),
        multi_search_any(),
        multi_search("multiSearchAnyUTF8", Mode::Utf8, MultiKind::Any),
        multi_search("multiSearchAnyCaseInsensitive", Mode::AsciiCaseInsensitive, MultiKind::Any),
        multi_search("multiSearchAnyCaseInsensitiveUTF8", Mode::Utf8CaseInsensitive, MultiKind::Any),
    ];
    for (suffix, mode) in [
        ("", Mode::Bytes),
        ("UTF8", Mode::Utf8),
        ("CaseInsensitive", Mode::AsciiCaseInsensitive),
        ("CaseInsensitiveUTF8", Mode::Utf8CaseInsensitive),
    ] {
        for (base, kind) in [
            ("multiSearchFirstIndex", MultiKind::FirstIndex),
            ("multiSearchFirstPosition", MultiKind::FirstPosition),
            ("multiSearchAllPositions", MultiKind::AllPositions),
        ] {
            // Registered names live for the process.
            let name: &'static str = Box::leak(format!("{base}{suffix}").into_boxed_str());
            out.push(multi_search(name, mode, kind));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `any_in_column` over strings laid end to end, against a per-value search.
    #[test]
    fn any_in_column_matches_per_value_search() {
        let values = ["", "ab", "b", "abcab", "", "ca", "bc", "c", "xyzab", "a"];
        let data: Vec<u8> = values.concat().into_bytes();
        let mut bounds = vec![0usize];
        for v in values {
            bounds.push(bounds.last().copied().unwrap_or(0) + v.len());
        }
        for needles in [vec!["ab"], vec!["bc", "ca"], vec!["abc"], vec!["zz", "a"], vec!["bca"], vec!["bb", "cc"], vec!["b", ""]] {
            let needles: Vec<&[u8]> = needles.iter().map(|n| n.as_bytes()).collect();
            let expected: Vec<u8> = values
                .iter()
                .map(|v| u8::from(!v.is_empty() && needles.iter().any(|n| n.is_empty() || memchr::memmem::find(v.as_bytes(), n).is_some())))
                .collect();
            assert_eq!(any_in_column(&data, values.len(), |r| bounds[r], &needles), expected, "{needles:?}");
            // A slice of the column: values 3..8, bounds not starting at 0.
            let sliced = any_in_column(&data, 5, |r| bounds[r + 3], &needles);
            assert_eq!(sliced, expected[3..8].to_vec(), "{needles:?} sliced");
        }
    }

    fn find(hay: &str, needle: &str, start: u64, mode: Mode) -> u64 {
        let bytes = hay.as_bytes();
        let prepared = Hay::new(bytes, mode);
        let needle = Needle::new(needle.as_bytes(), mode);
        let Some(from) = search_start(bytes, &prepared, start, mode) else { return 0 };
        if needle.is_empty() {
            return match mode {
                Mode::Utf8CaseInsensitive => from as u64 + 1,
                _ => position_of(bytes, from, mode),
            };
        }
        prepared.find(&needle, from).map_or(0, |(p, _)| match mode {
            Mode::Utf8CaseInsensitive => p as u64 + 1,
            _ => position_of(bytes, p, mode),
        })
    }

    #[test]
    fn positions_match_clickhouse() {
        assert_eq!(find("日本語", "語", 1, Mode::Utf8), 3);
        assert_eq!(find("日本語", "", 4, Mode::Utf8), 4);
        assert_eq!(find("日本語", "", 5, Mode::Utf8), 0);
        assert_eq!(find("日本語", "本", 0, Mode::Utf8), 2);
        assert_eq!(find("日本語日", "日", 2, Mode::Utf8), 4);
        assert_eq!(find("abc", "", 4, Mode::Bytes), 4);
        assert_eq!(find("abc", "", 10, Mode::Bytes), 0);
        assert_eq!(find("", "", 2, Mode::Utf8), 0);
        assert_eq!(find("aÄb", "äB", 1, Mode::AsciiCaseInsensitive), 0);
        assert_eq!(find("aÄb", "äB", 1, Mode::Utf8CaseInsensitive), 2);
        assert_eq!(find("İx", "x", 1, Mode::Utf8CaseInsensitive), 2);
        assert_eq!(find("straße", "SS", 1, Mode::Utf8CaseInsensitive), 0);
        assert_eq!(find("abcABC", "c", 4, Mode::Utf8CaseInsensitive), 6);
    }
}
