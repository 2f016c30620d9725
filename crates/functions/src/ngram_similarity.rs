//! `ngramDistance` and `ngramSearch` with their `CaseInsensitive` and `UTF8` forms:
//! ClickHouse's n-gram statistics (`FunctionsStringSimilarity.cpp`). The n-grams are
//! 4 bytes (ASCII forms) or 3 UTF-8 sequences (UTF8 forms, each sequence its bytes as a
//! little-endian u32), counted in 65536 cells by a 16-bit CRC-32C hash, so colliding
//! n-grams count as equal exactly where they do in ClickHouse. Case-insensitive ASCII
//! lowers A-Z; case-insensitive UTF-8 clears bit 5 of every byte and bit 0 of a lead
//! byte, ClickHouse's approximation (right for ASCII and most Cyrillic).
//!
//! `ngramDistance` is the size of the multiset symmetric difference over the total count,
//! `ngramSearch` one minus the share of the needle's n-grams missing from the haystack.
//! A haystack over 32 KiB gives 1 (distance) or 0 (search), as in ClickHouse.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float32Array};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity};
use crate::func::ScalarDef;
use crate::string::text_bytes;
use crate::topk::crc32c_u64;

/// Longer haystacks get the fixed answer; longer needles are refused.
const MAX_STRING_SIZE: usize = 1 << 15;

pub(crate) fn functions() -> Vec<ScalarUDF> {
    let mut out = Vec::new();
    for (name, utf8, case_insensitive, symmetric) in [
        ("ngramDistance", false, false, true),
        ("ngramDistanceCaseInsensitive", false, true, true),
        ("ngramDistanceUTF8", true, false, true),
        ("ngramDistanceCaseInsensitiveUTF8", true, true, true),
        ("ngramSearch", false, false, false),
        ("ngramSearchCaseInsensitive", false, true, false),
        ("ngramSearchUTF8", true, false, false),
        ("ngramSearchCaseInsensitiveUTF8", true, true, false),
    ] {
        out.push(ngram_function(name, Kind { utf8, case_insensitive, symmetric }));
    }
    out
}

#[derive(Debug, Clone, Copy)]
struct Kind {
    utf8: bool,
    case_insensitive: bool,
    symmetric: bool,
}

impl Kind {
    /// The 16-bit hashes of a text's n-grams, in order.
    fn hashes(self, text: &[u8], out: &mut Vec<u16>) {
        out.clear();
        if self.utf8 {
            let points = utf8_points(text, self.case_insensitive);
            for w in points.windows(3) {
                let combined = (u64::from(w[0]) << 32) | u64::from(w[1]);
                out.push(crc32c_u64(w[2], combined) as u16);
            }
        } else {
            let lower = |b: u8| if self.case_insensitive { b.to_ascii_lowercase() } else { b };
            for w in text.windows(4) {
                let word = u32::from_le_bytes([lower(w[0]), lower(w[1]), lower(w[2]), lower(w[3])]);
                out.push(crc32c_u64(u32::MAX, u64::from(word)) as u16);
            }
        }
    }

    /// The measure of a haystack against a needle, from the needle's counts (restored
    /// before returning).
    fn measure(self, haystack: &[u16], needle_len: usize, counts: &mut [i16]) -> f32 {
        let mut distance = needle_len as i64;
        for h in haystack {
            let cell = &mut counts[usize::from(*h)];
            if *cell > 0 {
                distance -= 1;
            } else if self.symmetric {
                distance += 1;
            }
            *cell = cell.wrapping_sub(1);
        }
        for h in haystack {
            let cell = &mut counts[usize::from(*h)];
            *cell = cell.wrapping_add(1);
        }
        if self.symmetric {
            distance as f32 / (haystack.len() + needle_len).max(1) as f32
        } else {
            1.0 - distance as f32 / needle_len.max(1) as f32
        }
    }
}

/// ClickHouse's `UTF8::seqLength` of a lead byte.
fn sequence_length(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        0xF8..=0xFB => 5,
        0xFC..=0xFD => 6,
        _ => 1,
    }
}

/// The UTF-8 sequences of a text as ClickHouse packs them for n-grams: up to 4 bytes,
/// little-endian, in a u32.
fn utf8_points(text: &[u8], case_insensitive: bool) -> Vec<u32> {
    let mut points = Vec::with_capacity(text.len());
    let mut pos = 0;
    while pos < text.len() {
        let length = sequence_length(text[pos]).min(text.len() - pos);
        let mut bytes = [0u8; 4];
        let take = length.min(4);
        bytes[..take].copy_from_slice(&text[pos..pos + take]);
        let mut point = u32::from_le_bytes(bytes);
        if case_insensitive {
            if length >= 4 {
                point &= !(1 << (5 + 24));
            }
            if length >= 3 {
                point &= !(1 << (5 + 16));
            }
            if length >= 2 {
                point &= !1;
                point &= !(1 << (5 + 8));
            }
            point &= !(1 << 5);
        }
        points.push(point);
        pos += length;
    }
    points
}

fn ngram_function(name: &'static str, kind: Kind) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(2),
        |ctx| {
            for i in 0..2 {
                if !crate::string::is_plain_string(&ctx.ch(i)) {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of function {}", ctx.ch(i), ctx.name)));
                }
            }
            Ok(ChType::Float32)
        },
        move |ctx| {
            let (haystacks, needles) = (text_bytes(&ctx.array(0)?), text_bytes(&ctx.array(1)?));
            let mut counts = vec![0i16; 1 << 16];
            let (mut haystack, mut needle) = (Vec::new(), Vec::new());
            let mut out = Vec::with_capacity(ctx.len);
            for row in 0..ctx.len {
                let (text, pattern) = (haystacks.value(row), needles.value(row));
                if pattern.len() > MAX_STRING_SIZE {
                    return Err(ch_error(
                        ErrorCode::TOO_LARGE_STRING_SIZE,
                        format!("String size of needle is too big for function {}. Should be at most {MAX_STRING_SIZE}", ctx.name),
                    ));
                }
                if text.len() > MAX_STRING_SIZE {
                    out.push(if kind.symmetric { 1.0 } else { 0.0 });
                    continue;
                }
                kind.hashes(pattern, &mut needle);
                needle.iter().for_each(|h| counts[usize::from(*h)] = counts[usize::from(*h)].wrapping_add(1));
                kind.hashes(text, &mut haystack);
                out.push(kind.measure(&haystack, needle.len(), &mut counts));
                needle.iter().for_each(|h| counts[usize::from(*h)] = counts[usize::from(*h)].wrapping_sub(1));
            }
            Ok(Arc::new(Float32Array::from(out)) as ArrayRef)
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: Kind, haystack: &str, needle: &str) -> f32 {
        let mut counts = vec![0i16; 1 << 16];
        let (mut h, mut n) = (Vec::new(), Vec::new());
        kind.hashes(needle.as_bytes(), &mut n);
        n.iter().for_each(|x| counts[usize::from(*x)] += 1);
        kind.hashes(haystack.as_bytes(), &mut h);
        kind.measure(&h, n.len(), &mut counts)
    }

    /// chdb's values.
    #[test]
    fn measures_as_clickhouse() {
        let distance = Kind { utf8: false, case_insensitive: false, symmetric: true };
        assert_eq!(run(distance, "ClickHouse", "ClickHouse"), 0.0);
        assert_eq!(run(distance, "ClickHouse", "ClickHous"), 1.0 / 13.0);
        assert_eq!(run(distance, "abcdef", "abc"), 1.0);
        let utf8 = Kind { utf8: true, case_insensitive: false, symmetric: true };
        assert_eq!(run(utf8, "привет мир", "привет"), 4.0 / 12.0);
        let search = Kind { utf8: true, case_insensitive: true, symmetric: false };
        assert_eq!(run(search, "ПРИВЕТ МИР", "мир"), 1.0);
    }
}
