//! String similarity: `editDistance` (`levenshteinDistance`), `editDistanceUTF8`,
//! `damerauLevenshteinDistance`, `byteHammingDistance`, `jaroSimilarity`,
//! `jaroWinklerSimilarity`, `stringJaccardIndex` and `stringJaccardIndexUTF8`, with
//! ClickHouse's results: bytes unless the name says UTF8, the restricted (optimal string
//! alignment) form of Damerau-Levenshtein, Jaro's match window `max(len) / 2 - 1`, 0
//! for an empty side of the Jaccard index and the other side's length for the Jaro measures.

use std::collections::HashSet;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float64Array, UInt64Array};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, ScalarDef};
use crate::string::{require_string, text_bytes};

/// ClickHouse refuses longer strings for the quadratic measures (a guard against slow queries).
const MAX_STRING_SIZE: usize = 1 << 16;

fn check_size(name: &str, a: &[u8], b: &[u8]) -> DfResult<()> {
    if a.len() > MAX_STRING_SIZE || b.len() > MAX_STRING_SIZE {
        return Err(ch_error(
            ErrorCode::TOO_LARGE_STRING_SIZE,
            format!("The string size is too big for function {name}, should be at most {MAX_STRING_SIZE}"),
        ));
    }
    Ok(())
}

/// Levenshtein distance over any symbols, one row of the table at a time.
pub(crate) fn edit_distance<T: PartialEq>(a: &[T], b: &[T]) -> u64 {
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len()) as u64;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()] as u64
}

/// Damerau-Levenshtein as ClickHouse computes it: optimal string alignment, where a
/// transposed pair counts once and is not edited again (`ca` to `abc` is 3).
pub(crate) fn damerau_levenshtein_distance(a: &[u8], b: &[u8]) -> u64 {
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len()) as u64;
    }
    let width = b.len() + 1;
    let mut table = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        table[i * width] = i;
    }
    for (j, cell) in table.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (table[(i - 1) * width + j] + 1).min(table[i * width + j - 1] + 1).min(table[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[(i - 2) * width + j - 2] + 1);
            }
            table[i * width + j] = best;
        }
    }
    table[a.len() * width + b.len()] as u64
}

pub(crate) fn jaro_similarity(a: &[u8], b: &[u8]) -> f64 {
    // ClickHouse's shortcut for an empty side returns the other side's length.
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len()) as f64;
    }
    if a == b {
        return 1.0;
    }
    let window = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_matched = vec![false; a.len()];
    let mut b_matched = vec![false; b.len()];
    let mut matches = 0usize;
    for (i, x) in a.iter().enumerate() {
        let low = i.saturating_sub(window);
        let high = (i + window + 1).min(b.len());
        for j in low..high {
            if !b_matched[j] && b[j] == *x {
                a_matched[i] = true;
                b_matched[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let a_order = a.iter().zip(&a_matched).filter(|(_, m)| **m).map(|(c, _)| c);
    let b_order = b.iter().zip(&b_matched).filter(|(_, m)| **m).map(|(c, _)| c);
    let half_transpositions = a_order.zip(b_order).filter(|(x, y)| x != y).count() as f64 * 0.5;
    let m = matches as f64;
    1.0 / 3.0 * (m / a.len() as f64 + m / b.len() as f64 + (m - half_transpositions) / m)
}

pub(crate) fn jaro_winkler_similarity(a: &[u8], b: &[u8]) -> f64 {
    const MAX_PREFIX: usize = 4;
    const SCALING: f64 = 0.1;
    const BOOST_THRESHOLD: f64 = 0.7;
    let mut similarity = jaro_similarity(a, b);
    if similarity > BOOST_THRESHOLD {
        let prefix = a.iter().zip(b).take(MAX_PREFIX).take_while(|(x, y)| x == y).count();
        similarity += prefix as f64 * SCALING * (1.0 - similarity);
    }
    similarity
}

fn byte_jaccard_index(a: &[u8], b: &[u8]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let mut in_a = [false; 256];
    let mut in_b = [false; 256];
    a.iter().for_each(|c| in_a[*c as usize] = true);
    b.iter().for_each(|c| in_b[*c as usize] = true);
    let intersection = in_a.iter().zip(&in_b).filter(|(x, y)| **x && **y).count();
    let union = in_a.iter().zip(&in_b).filter(|(x, y)| **x || **y).count();
    intersection as f64 / union as f64
}

fn code_points(name: &str, bytes: &[u8]) -> DfResult<Vec<char>> {
    std::str::from_utf8(bytes)
        .map(|text| text.chars().collect())
        .map_err(|_| ch_error(ErrorCode::BAD_ARGUMENTS, format!("Illegal UTF-8 sequence, while processing '{}' in {name}", String::from_utf8_lossy(bytes))))
}

fn utf8_jaccard_index(name: &str, a: &[u8], b: &[u8]) -> DfResult<f64> {
    if a.is_empty() || b.is_empty() {
        return Ok(0.0);
    }
    let a: HashSet<char> = code_points(name, a)?.into_iter().collect();
    let b: HashSet<char> = code_points(name, b)?.into_iter().collect();
    let intersection = a.intersection(&b).count();
    Ok(intersection as f64 / (a.len() + b.len() - intersection) as f64)
}

/// Applies `measure` to the two string arguments row by row.
fn pairs<T>(ctx: &ExecCtx, mut measure: impl FnMut(&[u8], &[u8]) -> DfResult<T>) -> DfResult<Vec<T>> {
    let left = text_bytes(&ctx.array(0)?);
    let right = text_bytes(&ctx.array(1)?);
    (0..ctx.len).map(|row| measure(left.value(row), right.value(row))).collect()
}

/// A measure of two String arguments, `result` typed, its values collected by `column`.
fn string_measure<T: 'static>(name: &'static str, result: ChType, measure: fn(&str, &[u8], &[u8]) -> DfResult<T>, column: fn(Vec<T>) -> ArrayRef) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        move |ctx| {
            require_string(ctx, 0, ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT)?;
            require_string(ctx, 1, ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT)?;
            Ok(result.clone())
        },
        move |ctx| Ok(column(pairs(ctx, |a, b| measure(ctx.name, a, b))?)),
    )
    .build()
}

fn distance(name: &'static str, measure: fn(&str, &[u8], &[u8]) -> DfResult<u64>) -> ScalarUDF {
    string_measure(name, ChType::UInt64, measure, |values| Arc::new(UInt64Array::from(values)))
}

fn similarity(name: &'static str, measure: fn(&str, &[u8], &[u8]) -> DfResult<f64>) -> ScalarUDF {
    string_measure(name, ChType::Float64, measure, |values| Arc::new(Float64Array::from(values)))
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        distance("byteHammingDistance", |_, a, b| {
            let differing = a.iter().zip(b).filter(|(x, y)| x != y).count();
            Ok((differing + a.len().abs_diff(b.len())) as u64)
        }),
        distance("editDistance", |name, a, b| {
            check_size(name, a, b)?;
            Ok(edit_distance(a, b))
        }),
        distance("editDistanceUTF8", |name, a, b| {
            check_size(name, a, b)?;
            Ok(edit_distance(&code_points(name, a)?, &code_points(name, b)?))
        }),
        distance("damerauLevenshteinDistance", |name, a, b| {
            check_size(name, a, b)?;
            Ok(damerau_levenshtein_distance(a, b))
        }),
        similarity("jaroSimilarity", |name, a, b| {
            check_size(name, a, b)?;
            Ok(jaro_similarity(a, b))
        }),
        similarity("jaroWinklerSimilarity", |name, a, b| {
            check_size(name, a, b)?;
            Ok(jaro_winkler_similarity(a, b))
        }),
        similarity("stringJaccardIndex", |_, a, b| Ok(byte_jaccard_index(a, b))),
        similarity("stringJaccardIndexUTF8", utf8_jaccard_index),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_match_clickhouse() {
        // Values from ClickHouse (chdb).
        assert_eq!(edit_distance(b"kitten", b"sitting"), 3);
        assert_eq!(edit_distance(b"clickhouse", b"mouse"), 6);
        assert_eq!(edit_distance(b"", b"abc"), 3);
        assert_eq!(edit_distance(&"我是谁".chars().collect::<Vec<_>>(), &"我是我".chars().collect::<Vec<_>>()), 1);
        assert_eq!(damerau_levenshtein_distance(b"ca", b"abc"), 3);
        assert_eq!(damerau_levenshtein_distance(b"ab", b"ba"), 1);
        assert_eq!(damerau_levenshtein_distance(b"clickhouse", b"mouse"), 6);
    }

    #[test]
    fn jaro_matches_clickhouse() {
        assert!((jaro_similarity(b"MARTHA", b"MARHTA") - 0.9444444444444444).abs() < 1e-15);
        assert!((jaro_winkler_similarity(b"MARTHA", b"MARHTA") - 0.9611111111111111).abs() < 1e-15);
        assert_eq!(jaro_similarity(b"", b""), 0.0);
        assert_eq!(jaro_similarity(b"", b"abc"), 3.0);
        assert_eq!(jaro_winkler_similarity(b"xy", b""), 2.0);
        assert_eq!(jaro_similarity(b"abc", b"xyz"), 0.0);
        assert_eq!(byte_jaccard_index(b"abc", b"bcd"), 0.5);
    }
}
