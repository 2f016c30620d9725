//! `multiMatchAny`, `multiMatchAnyIndex`, `multiMatchAllIndices`: a set of regular
//! expressions against each haystack. ClickHouse runs them through Hyperscan, which
//! reports each pattern's matches by where they end; Granary tests the whole set at once
//! with the `regex` crate's `RegexSet` and, for the index forms, orders the matching
//! patterns by the end of their earliest-ending match (ties by position in the array),
//! which is the order Hyperscan reports: `multiMatchAnyIndex` is the first reported,
//! `multiMatchAllIndices` all of them. Patterns use RE2's syntax as the other regexp
//! functions do (see `regexp::translate_re2`); `.` matches a newline.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt64Array, UInt8Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use granary_common::ErrorCode;
use granary_types::ChType;
use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

use crate::args::{ch_error, illegal_type, Arity, DfResult};
use crate::func::ScalarDef;
use crate::regexp::translate_re2;
use crate::text::utf8_array;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Any,
    AnyIndex,
    AllIndices,
}

/// One compiled array of patterns.
struct PatternSet {
    set: RegexSet,
    /// Each pattern alone, to find where its earliest match ends.
    each: Vec<Regex>,
}

impl PatternSet {
    fn new(patterns: &[&str]) -> DfResult<PatternSet> {
        let mut each = Vec::with_capacity(patterns.len());
        let mut translated = Vec::with_capacity(patterns.len());
        for p in patterns {
            let t = translate_re2(p);
            let re = RegexBuilder::new(&t).dot_matches_new_line(true).build().map_err(|e| {
                let reason = e.to_string().lines().last().unwrap_or_default().trim().to_string();
                ch_error(ErrorCode::BAD_ARGUMENTS, format!("Pattern '{p}' failed with error '{reason}'"))
            })?;
            each.push(re);
            translated.push(t);
        }
        let set = RegexSetBuilder::new(&translated)
            .dot_matches_new_line(true)
            .build()
            .map_err(|e| ch_error(ErrorCode::BAD_ARGUMENTS, format!("Cannot compile the pattern set: {e}")))?;
        Ok(PatternSet { set, each })
    }

    /// 1-based indices of the matching patterns, in Hyperscan's report order.
    fn matching(&self, hay: &[u8], out: &mut Vec<u64>) {
        let mut found: Vec<(usize, usize)> =
            self.set.matches(hay).iter().map(|i| (self.each[i].shortest_match(hay).unwrap_or(0), i)).collect();
        found.sort_unstable();
        out.extend(found.into_iter().map(|(_, i)| i as u64 + 1));
    }
}

fn multi_match(name: &'static str, kind: Kind) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            let low_cardinality = match ctx.ch(0) {
                ChType::String => false,
                ChType::LowCardinality(inner) if matches!(*inner, ChType::String) => true,
                _ => return Err(illegal_type(ctx.name, 0, ctx.field(0))),
            };
            match ctx.ch(1) {
                ChType::Array(item) if matches!(*item, ChType::String) => {}
                _ => return Err(illegal_type(ctx.name, 1, ctx.field(1))),
            }
            let scalar = match kind {
                Kind::Any => ChType::UInt8,
                Kind::AnyIndex => ChType::UInt64,
                Kind::AllIndices => return Ok(ChType::Array(Box::new(ChType::UInt64))),
            };
            Ok(if low_cardinality { ChType::LowCardinality(Box::new(scalar)) } else { scalar })
        },
        move |ctx| {
            if matches!(ctx.args[0], ColumnarValue::Scalar(_)) && matches!(ctx.args[1], ColumnarValue::Array(_)) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!("Function '{}' doesn't support search with non-constant needles in constant haystack", ctx.name),
                ));
            }
            let hay = utf8_array(ctx.array(0)?)?;
            let hay = hay.as_string::<i32>();
            let lists = ctx.array(1)?;
            let lists = lists
                .as_list_opt::<i32>()
                .ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, format!("{} expects an Array(String) of patterns", ctx.name)))?;
            let values = utf8_array(Arc::clone(lists.values()))?;
            let values = values.as_string::<i32>();
            let offsets = lists.value_offsets();
            let set_of = |row: usize| -> DfResult<PatternSet> {
                let patterns: Vec<&str> = (offsets[row] as usize..offsets[row + 1] as usize).map(|i| values.value(i)).collect();
                PatternSet::new(&patterns)
            };
            let constant = if matches!(ctx.args[1], ColumnarValue::Scalar(_)) { Some(set_of(0)?) } else { None };
            let mut indices: Vec<u64> = Vec::new();
            let mut scalars: Vec<u64> = Vec::with_capacity(ctx.len);
            let mut list_offsets: Vec<i32> = Vec::with_capacity(ctx.len + 1);
            list_offsets.push(0);
            for row in 0..ctx.len {
                let owned;
                let set = match &constant {
                    Some(s) => s,
                    None => {
                        owned = set_of(row)?;
                        &owned
                    }
                };
                let bytes = if hay.is_null(row) { &b""[..] } else { hay.value(row).as_bytes() };
                match kind {
                    Kind::Any => scalars.push(u64::from(set.set.is_match(bytes))),
                    Kind::AnyIndex => {
                        let start = indices.len();
                        set.matching(bytes, &mut indices);
                        scalars.push(indices.get(start).copied().unwrap_or(0));
                        indices.truncate(start);
                    }
                    Kind::AllIndices => {
                        set.matching(bytes, &mut indices);
                        list_offsets.push(crate::regexp::list_offset(indices.len())?);
                    }
                }
            }
            Ok(match kind {
                Kind::Any => Arc::new(UInt8Array::from(scalars.into_iter().map(|v| v as u8).collect::<Vec<_>>())) as ArrayRef,
                Kind::AnyIndex => Arc::new(UInt64Array::from(scalars)),
                Kind::AllIndices => Arc::new(ListArray::try_new(
                    Arc::new(ChType::UInt64.to_arrow_field("item")),
                    OffsetBuffer::new(list_offsets.into()),
                    Arc::new(UInt64Array::from(indices)),
                    None,
                )?),
            })
        },
    )
    .build()
}

/// `multiFuzzyMatchAny(haystack, distance, patterns)` and its index forms: Hyperscan's
/// approximate matching, which the `regex` crate has no counterpart of. Arguments and
/// result types are checked as ClickHouse does; running one fails as ClickHouse built
/// without Vectorscan does.
fn multi_fuzzy_match(name: &'static str, kind: Kind) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(3),
        move |ctx| {
            if !matches!(ctx.ch(0).base(), ChType::String) {
                return Err(illegal_type(ctx.name, 0, ctx.field(0)));
            }
            if !matches!(ctx.ch(1).base(), ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64) {
                return Err(illegal_type(ctx.name, 1, ctx.field(1)));
            }
            match ctx.ch(2) {
                ChType::Array(item) if matches!(*item, ChType::String) => {}
                _ => return Err(illegal_type(ctx.name, 2, ctx.field(2))),
            }
            Ok(match kind {
                Kind::Any => ChType::UInt8,
                Kind::AnyIndex => ChType::UInt64,
                Kind::AllIndices => ChType::Array(Box::new(ChType::UInt64)),
            })
        },
        |_| Err(ch_error(ErrorCode::NOT_IMPLEMENTED, "Edit distance multi-search is not implemented when vectorscan is off")),
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        multi_match("multiMatchAny", Kind::Any),
        multi_match("multiMatchAnyIndex", Kind::AnyIndex),
        multi_match("multiMatchAllIndices", Kind::AllIndices),
        multi_fuzzy_match("multiFuzzyMatchAny", Kind::Any),
        multi_fuzzy_match("multiFuzzyMatchAnyIndex", Kind::AnyIndex),
        multi_fuzzy_match("multiFuzzyMatchAllIndices", Kind::AllIndices),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn indices_in_report_order() {
        let set = PatternSet::new(&["b", "a", "ab", "ba"]).unwrap();
        let mut out = Vec::new();
        set.matching(b"abab", &mut out);
        assert_eq!(out, vec![2, 1, 3, 4]);
        assert!(PatternSet::new(&["(a"]).is_err());
    }
}
