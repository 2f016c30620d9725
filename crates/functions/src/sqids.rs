//! `sqidEncode(n, ...)` and `sqidDecode(id)`: Sqids (sqids.org) with the library's
//! defaults, as ClickHouse runs sqids-cpp: the default alphabet, no minimum length, and
//! the default blocklist (`sqids_blocklist.txt`), so an id containing a blocked word is
//! made again with the next offset.

use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{ArrayRef, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::ScalarDef;
use crate::string::text_bytes;
use crate::text::ByteStrings;

const DEFAULT_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![sqid_encode(), sqid_decode()]
}

struct Sqids {
    /// The alphabet after its first shuffle.
    alphabet: Vec<u8>,
    blocklist: Vec<Vec<u8>>,
}

fn sqids() -> &'static Sqids {
    static SQIDS: OnceLock<Sqids> = OnceLock::new();
    SQIDS.get_or_init(|| {
        let lower: Vec<u8> = DEFAULT_ALPHABET.to_ascii_lowercase();
        let blocklist = include_str!("sqids_blocklist.txt")
            .lines()
            .map(|w| w.trim().to_ascii_lowercase().into_bytes())
            .filter(|w| w.len() >= 3 && w.iter().all(|c| lower.contains(c)))
            .collect();
        Sqids { alphabet: shuffle(DEFAULT_ALPHABET.to_vec()), blocklist }
    })
}

fn shuffle(mut chars: Vec<u8>) -> Vec<u8> {
    let n = chars.len();
    let (mut i, mut j) = (0usize, n - 1);
    while j > 0 {
        let r = (i * j + usize::from(chars[i]) + usize::from(chars[j])) % n;
        chars.swap(i, r);
        i += 1;
        j -= 1;
    }
    chars
}

fn to_id(mut num: u64, alphabet: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    let n = alphabet.len() as u64;
    loop {
        out.insert(start, alphabet[(num % n) as usize]);
        num /= n;
        if num == 0 {
            break;
        }
    }
}

impl Sqids {
    fn is_blocked(&self, id: &[u8]) -> bool {
        let id = id.to_ascii_lowercase();
        self.blocklist.iter().filter(|w| w.len() <= id.len()).any(|word| {
            if id.len() <= 3 || word.len() <= 3 {
                id == *word
            } else if word.iter().any(u8::is_ascii_digit) {
                id.starts_with(word) || id.ends_with(word)
            } else {
                id.windows(word.len()).any(|w| w == word.as_slice())
            }
        })
    }

    fn encode(&self, numbers: &[u64]) -> DfResult<Vec<u8>> {
        if numbers.is_empty() {
            return Ok(Vec::new());
        }
        let n = self.alphabet.len();
        for increment in 0..=n {
            let sum = numbers.iter().enumerate().fold(numbers.len(), |a, (i, v)| a + usize::from(self.alphabet[(v % n as u64) as usize]) + i);
            let offset = (sum % n + increment) % n;
            let mut alphabet: Vec<u8> = self.alphabet[offset..].iter().chain(&self.alphabet[..offset]).copied().collect();
            let prefix = alphabet[0];
            alphabet.reverse();
            let mut id = vec![prefix];
            for (i, num) in numbers.iter().enumerate() {
                to_id(*num, &alphabet[1..], &mut id);
                if i + 1 < numbers.len() {
                    id.push(alphabet[0]);
                    alphabet = shuffle(alphabet);
                }
            }
            if !self.is_blocked(&id) {
                return Ok(id);
            }
        }
        Err(ch_error(ErrorCode::BAD_ARGUMENTS, "Reached max attempts to re-generate the ID"))
    }

    fn decode(&self, id: &[u8], out: &mut Vec<u64>) {
        if id.is_empty() || !id.iter().all(|c| self.alphabet.contains(c)) {
            return;
        }
        let Some(offset) = self.alphabet.iter().position(|c| *c == id[0]) else { return };
        let mut alphabet: Vec<u8> = self.alphabet[offset..].iter().chain(&self.alphabet[..offset]).copied().collect();
        alphabet.reverse();
        let mut rest = &id[1..];
        while !rest.is_empty() {
            let separator = alphabet[0];
            let (chunk, after) = match rest.iter().position(|c| *c == separator) {
                Some(at) => (&rest[..at], Some(&rest[at + 1..])),
                None => (rest, None),
            };
            if chunk.is_empty() {
                return;
            }
            let digits = &alphabet[1..];
            let number = chunk.iter().fold(0u64, |a, c| {
                let digit = digits.iter().position(|d| d == c).map_or(u64::MAX, |p| p as u64);
                a.wrapping_mul(digits.len() as u64).wrapping_add(digit)
            });
            out.push(number);
            match after {
                Some(after) => {
                    alphabet = shuffle(alphabet);
                    rest = after;
                }
                None => break,
            }
        }
    }
}

fn is_unsigned(t: &ChType) -> bool {
    matches!(t, ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64)
}

fn sqid_encode() -> ScalarUDF {
    ScalarDef::new(
        "sqidEncode",
        Arity::at_least(1),
        |ctx| {
            for i in 0..ctx.arg_count() {
                let t = ctx.literal_ch(i);
                // While the SQL is planned, arithmetic on integer literals is still Int64
                // (see `crate::literals`); the types it gets afterwards are checked again.
                let pending_literal = ctx.scalar(i).is_none() && *t.strip_nullable() == ChType::Int64;
                if !is_unsigned(t.strip_nullable()) && !pending_literal {
                    return Err(ch_error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Argument {i} for function {} must have datatype UInt*, given type: {t}", ctx.name),
                    ));
                }
            }
            Ok(ChType::String)
        },
        |ctx| {
            let columns: Vec<ArrayRef> = (0..ctx.args.len()).map(|i| Ok(cast(&ctx.array(i)?, &DataType::UInt64)?)).collect::<DfResult<_>>()?;
            let columns: Vec<&UInt64Array> = columns.iter().map(|c| c.as_any().downcast_ref::<UInt64Array>()).collect::<Option<_>>().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "sqidEncode arguments"))?;
            let sqids = sqids();
            let mut out = ByteStrings::with_capacity(ctx.len, 0);
            let mut numbers = Vec::with_capacity(columns.len());
            for row in 0..ctx.len {
                numbers.clear();
                numbers.extend(columns.iter().map(|c| c.value(row)));
                out.push_value(&sqids.encode(&numbers)?)?;
            }
            out.finish(None)
        },
    )
    .build()
}

fn sqid_decode() -> ScalarUDF {
    ScalarDef::new(
        "sqidDecode",
        Arity::exact(1),
        |ctx| {
            if !crate::string::is_plain_string(&ctx.ch(0)) {
                return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Argument 0 for function {} must be String, given type: {}", ctx.name, ctx.ch(0))));
            }
            Ok(ChType::Array(Box::new(ChType::UInt64)))
        },
        |ctx| {
            let texts = text_bytes(&ctx.array(0)?);
            let sqids = sqids();
            let mut offsets = vec![0i32];
            let mut values = Vec::new();
            for row in 0..ctx.len {
                sqids.decode(texts.value(row), &mut values);
                offsets.push(crate::regexp::list_offset(values.len())?);
            }
            crate::bits_more::lists_of(crate::bits_more::list_item(ctx)?, offsets, Arc::new(UInt64Array::from(values)))
        },
    )
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// chdb's `sqidEncode`/`sqidDecode`.
    #[test]
    fn ids_as_clickhouse() {
        let s = sqids();
        assert_eq!(s.encode(&[1, 2, 3]).ok(), Some(b"86Rf07".to_vec()));
        assert_eq!(s.encode(&[0]).ok(), Some(b"bM".to_vec()));
        assert_eq!(s.encode(&[u64::MAX]).ok(), Some(b"eIkvoXH40Lmd".to_vec()));
        let mut out = Vec::new();
        s.decode(b"86Rf07", &mut out);
        assert_eq!(out, vec![1, 2, 3]);
        out.clear();
        s.decode(b"!!", &mut out);
        assert!(out.is_empty());
    }
}
