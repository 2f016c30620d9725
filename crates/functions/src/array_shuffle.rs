//! `arrayShuffle(arr[, seed])`, `arrayPartialShuffle(arr[, limit[, seed]])` and
//! `arrayRandomSample(arr, samples)`.
//!
//! With a seed the order is ClickHouse's: its generator is PCG's `pcg64_fast` (a 128-bit
//! multiplicative congruential state, XSL-RR output), seeded once per call and drawn
//! from across the rows, and the shuffle is libc++'s `std::shuffle` (a Fisher-Yates pass
//! from the front, each index drawn by `uniform_int_distribution` as masked 64-bit
//! draws, rejected until in range). A partial shuffle stops after `limit` positions
//! (0 or past the end: all). Without a seed the generator is seeded at random.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt64Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::take;
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, is_integer, Arity, DfResult};
use crate::bits::bits_of;
use crate::func::{ExecCtx, RetCtx, ScalarDef};

/// PCG's `pcg64_fast` (`mcg_xsl_rr_128_64`).
struct Pcg64Fast {
    state: u128,
}

impl Pcg64Fast {
    const MULTIPLIER: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

    fn new(seed: u64) -> Self {
        // A multiplicative generator needs an odd state; PCG sets the two low bits.
        Pcg64Fast { state: u128::from(seed) | 3 }
    }

    /// One step, then the output of the new state (PCG outputs the previous state only
    /// for states of 64 bits or less).
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_mul(Self::MULTIPLIER);
        let state = self.state;
        let rotation = (state >> 122) as u32;
        (((state >> 64) ^ state) as u64).rotate_right(rotation)
    }

    /// libc++'s `uniform_int_distribution<ptrdiff_t>` over `low..=high` (`high > low`).
    fn uniform(&mut self, low: u64, high: u64) -> u64 {
        let range = high - low + 1;
        // The bits needed for `range - 1`, as libc++ computes them.
        let mut bits = 64 - range.leading_zeros() - 1;
        if range & (u64::MAX >> (64 - bits)) != 0 {
            bits += 1;
        }
        let mask = if bits >= 64 { u64::MAX } else { u64::MAX >> (64 - bits) };
        loop {
            let draw = self.next_u64() & mask;
            if draw < range {
                return draw + low;
            }
        }
    }

    /// The first `limit` steps of libc++'s `std::shuffle` over `items`.
    fn shuffle<T>(&mut self, items: &mut [T], limit: usize) {
        let n = items.len();
        for i in 0..limit.min(n.saturating_sub(1)) {
            let j = self.uniform(i as u64, (n - 1) as u64) as usize;
            items.swap(i, j);
        }
    }
}

fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    hasher.finish()
}

fn array_argument(ctx: &RetCtx) -> DfResult<ChType> {
    match ctx.ch(0) {
        t @ ChType::Array(_) => Ok(t),
        _ => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("First argument of function '{}' must be array", ctx.name))),
    }
}

fn integer_argument(ctx: &RetCtx, i: usize) -> DfResult<()> {
    if is_integer(ctx.dt(i)) {
        Ok(())
    } else {
        Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of arguments of function {} (must be UInt or Int)", ctx.ch(i), ctx.name)))
    }
}

/// The list argument's rows with their elements picked by `pick(row elements) -> kept
/// positions` (positions into the list's values).
fn picked(ctx: &ExecCtx, mut pick: impl FnMut(Vec<u64>) -> Vec<u64>) -> DfResult<ArrayRef> {
    let array = ctx.array(0)?;
    let list = array.as_list::<i32>();
    let offsets = list.value_offsets();
    let mut indices: Vec<u64> = Vec::with_capacity(list.values().len());
    let mut lengths: Vec<usize> = Vec::with_capacity(ctx.len);
    for row in 0..ctx.len {
        let kept = pick((offsets[row] as u64..offsets[row + 1] as u64).collect());
        lengths.push(kept.len());
        indices.extend(kept);
    }
    let values = take(list.values().as_ref(), &UInt64Array::from(indices), None)?;
    let item = crate::bits_more::list_item(ctx)?;
    Ok(Arc::new(ListArray::try_new(item, OffsetBuffer::from_lengths(lengths), values, None)?))
}

/// A constant seed argument, else a random one.
fn seed(ctx: &ExecCtx, i: usize) -> DfResult<u64> {
    Ok(match ctx.args.get(i) {
        Some(_) => bits_of(ctx, i)?.values().first().copied().unwrap_or(0) as u64,
        None => random_seed(),
    })
}

fn array_shuffle() -> ScalarUDF {
    ScalarDef::new(
        "arrayShuffle",
        Arity::range(1, 2),
        |ctx| {
            let t = array_argument(ctx)?;
            if ctx.arg_count() == 2 {
                integer_argument(ctx, 1)?;
            }
            Ok(t)
        },
        |ctx| {
            let mut rng = Pcg64Fast::new(seed(ctx, 1)?);
            picked(ctx, |mut positions| {
                rng.shuffle(&mut positions, usize::MAX);
                positions
            })
        },
    )
    .volatile()
    .build()
}

fn array_partial_shuffle() -> ScalarUDF {
    ScalarDef::new(
        "arrayPartialShuffle",
        Arity::range(1, 3),
        |ctx| {
            let t = array_argument(ctx)?;
            for i in 1..ctx.arg_count() {
                integer_argument(ctx, i)?;
            }
            Ok(t)
        },
        |ctx| {
            let limits = if ctx.args.len() >= 2 { Some(bits_of(ctx, 1)?) } else { None };
            let mut rng = Pcg64Fast::new(seed(ctx, 2)?);
            let mut row = 0;
            picked(ctx, |mut positions| {
                // A limit of 0 (or a negative one, read as unsigned) shuffles everything.
                let limit = limits.as_ref().map_or(0, |l| l.value(row) as u64);
                let limit = if limit == 0 { usize::MAX } else { usize::try_from(limit).unwrap_or(usize::MAX) };
                row += 1;
                rng.shuffle(&mut positions, limit);
                positions
            })
        },
    )
    .volatile()
    .build()
}

fn array_random_sample() -> ScalarUDF {
    ScalarDef::new(
        "arrayRandomSample",
        Arity::exact(2),
        |ctx| {
            let t = array_argument(ctx).map_err(|_| {
                ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 'array' to function '{}'. Expected: Array, got: {}", ctx.name, ctx.ch(0)),
                )
            })?;
            let samples = ctx.literal_ch(1);
            if !matches!(samples.base(), ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64) {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 2nd argument 'samples' to function '{}'. Expected: const UInt*, got: {samples}", ctx.name),
                ));
            }
            if ctx.scalar(1).is_none() {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!("A value of illegal type was provided as 2nd argument 'samples' to function '{}'. Expected: const UInt*, got: {samples}", ctx.name),
                ));
            }
            Ok(t)
        },
        |ctx| {
            let samples = ctx.const_int(1, "samples")?;
            let samples = usize::try_from(samples).unwrap_or(usize::MAX);
            let mut rng = Pcg64Fast::new(random_seed());
            picked(ctx, |mut positions| {
                rng.shuffle(&mut positions, usize::MAX);
                positions.truncate(samples);
                positions
            })
        },
    )
    .volatile()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![array_shuffle(), array_partial_shuffle(), array_random_sample()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_as_clickhouse_does() {
        // arrayShuffle([1, ..., 10], 42) in ClickHouse.
        let mut items: Vec<u32> = (1..=10).collect();
        Pcg64Fast::new(42).shuffle(&mut items, usize::MAX);
        assert_eq!(items, [5, 9, 7, 2, 4, 8, 1, 10, 3, 6]);
        let mut items: Vec<u32> = (1..=10).collect();
        Pcg64Fast::new(42).shuffle(&mut items, 3);
        assert_eq!(items, [5, 9, 7, 4, 1, 6, 3, 8, 2, 10]);
    }
}
