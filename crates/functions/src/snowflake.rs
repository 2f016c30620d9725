//! Time-ordered ids: Snowflake ids (`snowflakeIDToDateTime(64)`,
//! `dateTime(64)ToSnowflakeID`, `generateSnowflakeID`) and UUIDv7 (`generateUUIDv7`,
//! `UUIDv7ToDateTime`, `dateTimeToUUIDv7`).
//!
//! A Snowflake id is 41 bits of milliseconds since an epoch (the Unix epoch unless an
//! argument says otherwise), 10 bits of machine id and a 12-bit sequence. A UUIDv7 is
//! 48 bits of Unix milliseconds, the version (7), a 42-bit counter split around the
//! variant bits, and 32 random bits. Generated ids never go backwards within the
//! process: like ClickHouse, each generator keeps its last (time, counter) and moves
//! past it when the clock has not advanced.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{Array, AsArray, FixedSizeBinaryBuilder, PrimitiveArray, UInt64Array};
use datafusion::arrow::datatypes::{Int64Type, UInt64Type};
use datafusion::logical_expr::ScalarUDF;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, illegal_argument, scalar_i128, Arity, DfResult};
use crate::conversion::convert::timestamp_ticks;
use crate::datetime::{optional_tz, retype};
use crate::func::{ExecCtx, RetCtx, ScalarDef};

const SEQUENCE_BITS: u32 = 12;
const MACHINE_BITS: u32 = 10;
const TIME_SHIFT: u32 = SEQUENCE_BITS + MACHINE_BITS;

/// Whether argument `index` has an unsigned integer type. Before literals are typed, a
/// non-negative integer literal is still an Int64 here (see `crate::literals`);
/// ClickHouse sees an unsigned type for it.
fn is_unsigned_arg(ctx: &RetCtx, index: usize) -> bool {
    match ctx.ch(index).base() {
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 => true,
        ChType::Int64 => ctx.scalar(index).and_then(scalar_i128).is_some_and(|v| v >= 0),
        _ => false,
    }
}

/// Checks the type of a constant unsigned argument (an epoch, a machine id), as
/// ClickHouse declares it (`const UInt*`); whether it is a constant shows only in the
/// kernel ([`const_uint_at`]), once constants are folded.
fn check_const_uint(ctx: &RetCtx, index: usize, what: &str) -> DfResult<()> {
    if ctx.arg_count() > index && !is_unsigned_arg(ctx, index) {
        return Err(illegal_argument(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, ctx.name, index, what, "const UInt*", &ctx.ch(index)));
    }
    Ok(())
}

/// The value of a constant unsigned argument in the kernel; 0 when absent.
fn const_uint_at(ctx: &ExecCtx, index: usize, what: &str) -> DfResult<u64> {
    if ctx.args.len() <= index {
        return Ok(0);
    }
    match ctx.scalar(index).and_then(scalar_i128) {
        Some(v) => Ok(v as u64),
        None => Err(illegal_argument(ErrorCode::ILLEGAL_COLUMN, ctx.name, index, what, "const UInt*", &ctx.ch(index))),
    }
}

/// `snowflakeIDToDateTime(id[, epoch[, tz]])` and the `DateTime64(3)` form.
fn snowflake_to_time_fn(name: &'static str, sub_second: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 3),
        move |ctx| {
            if !matches!(ctx.ch(0).base(), ChType::UInt64 | ChType::Int64) || !is_unsigned_arg(ctx, 0) {
                return Err(illegal_argument(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, ctx.name, 0, "value", "UInt64", &ctx.ch(0)));
            }
            check_const_uint(ctx, 1, "epoch")?;
            let tz = optional_tz(ctx, 2)?;
            Ok(if sub_second { ChType::DateTime64(3, tz) } else { ChType::DateTime(tz) })
        },
        move |ctx| {
            let epoch = const_uint_at(ctx, 1, "epoch")?;
            let ids = ctx.array(0)?;
            let millis = |id: u64| (id >> TIME_SHIFT).wrapping_add(epoch);
            let ticks: PrimitiveArray<Int64Type> = if sub_second {
                ids.as_primitive::<UInt64Type>().unary(|id| millis(id) as i64)
            } else {
                // DateTime wraps in 32 bits, as ClickHouse's conversion does.
                ids.as_primitive::<UInt64Type>().unary(|id| i64::from((millis(id) / 1000) as u32))
            };
            retype(ticks, ctx.ret_ch().base())
        },
    )
    .build()
}

/// `dateTimeToSnowflakeID(t[, epoch])` and `dateTime64ToSnowflakeID`: the id of the
/// first sequence number of machine 0 at `t`.
fn time_to_snowflake_fn(name: &'static str, sub_second: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::range(1, 2),
        move |ctx| {
            let t = ctx.ch(0).base().clone();
            let ok = if sub_second { matches!(t, ChType::DateTime64(..)) } else { matches!(t, ChType::DateTime(_)) };
            if !ok {
                return Err(illegal_argument(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, ctx.name, 0, "value", if sub_second { "DateTime64" } else { "DateTime" }, &t));
            }
            check_const_uint(ctx, 1, "epoch")?;
            Ok(ChType::UInt64)
        },
        |ctx| {
            let epoch = const_uint_at(ctx, 1, "epoch")? as i64;
            let (raw, per) = timestamp_ticks(&ctx.array(0)?)?;
            // Sub-millisecond ticks are cut toward zero, as C++'s division does.
            let to_millis = move |v: i64| if per >= 1000 { v / (per / 1000) } else { v.wrapping_mul(1000 / per) };
            let out: UInt64Array = raw.unary(|v| (to_millis(v).wrapping_sub(epoch) as u64) << TIME_SHIFT);
            Ok(Arc::new(out))
        },
    )
    .build()
}

fn now_millis() -> u64 {
    u64::try_from(chrono::Utc::now().timestamp_millis()).unwrap_or(0)
}

/// The last Snowflake (milliseconds << 12 | sequence) handed out by this process.
static SNOWFLAKE_STATE: AtomicU64 = AtomicU64::new(0);

/// Reserves `n` consecutive (milliseconds, sequence) slots, none before the clock nor
/// before the last slot given out; returns the first.
fn reserve_snowflakes(n: u64) -> u64 {
    let now = now_millis() << SEQUENCE_BITS;
    let mut first = 0;
    // The closure only computes; a failed exchange retries with the newer state.
    let _ = SNOWFLAKE_STATE.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
        first = now.max(last.wrapping_add(1));
        Some(first.wrapping_add(n.saturating_sub(1)))
    });
    first
}

/// `generateSnowflakeID([expr[, machine_id]])`: a new id per row, increasing.
fn generate_snowflake_fn() -> ScalarUDF {
    ScalarDef::new(
        "generateSnowflakeID",
        Arity::range(0, 2),
        |ctx| {
            check_const_uint(ctx, 1, "machine_id")?;
            Ok(ChType::UInt64)
        },
        |ctx| {
            let machine = const_uint_at(ctx, 1, "machine_id")? & ((1 << MACHINE_BITS) - 1);
            let first = reserve_snowflakes(ctx.len as u64);
            let ids = (0..ctx.len as u64).map(|i| {
                let slot = first.wrapping_add(i);
                let (millis, sequence) = (slot >> SEQUENCE_BITS, slot & ((1 << SEQUENCE_BITS) - 1));
                (millis << TIME_SHIFT) | (machine << SEQUENCE_BITS) | sequence
            });
            Ok(Arc::new(UInt64Array::from_iter_values(ids)))
        },
    )
    .custom_nulls()
    .volatile()
    .build()
}

const UUID_COUNTER_BITS: u32 = 42;

/// A random counter with its top bit clear, so that it can count up.
fn fresh_counter(rng: &mut crate::system::SplitMix) -> u64 {
    rng.next() & ((1 << (UUID_COUNTER_BITS - 1)) - 1)
}

/// A UUIDv7 generator's last (milliseconds, counter).
struct UuidClock {
    millis: u64,
    counter: u64,
}

impl UuidClock {
    /// The next (milliseconds, counter) at or after `millis`: a new millisecond starts
    /// its counter at a random value ([`fresh_counter`]), the same
    /// millisecond counts up, and a full counter moves to the next millisecond.
    fn next(&mut self, millis: u64, rng: &mut crate::system::SplitMix) -> (u64, u64) {
        if millis > self.millis {
            self.millis = millis;
            self.counter = fresh_counter(rng);
        } else {
            self.counter += 1;
            if self.counter >> UUID_COUNTER_BITS != 0 {
                self.millis += 1;
                self.counter = fresh_counter(rng);
            }
        }
        (self.millis, self.counter)
    }
}

fn uuid_v7_bytes(millis: u64, counter: u64, random: u32) -> [u8; 16] {
    let high = (u128::from(millis & 0xFFFF_FFFF_FFFF) << 80) | (0x7u128 << 76) | (u128::from(counter >> 30) << 64);
    let low = (0b10u128 << 62) | (u128::from(counter & 0x3FFF_FFFF) << 32) | u128::from(random);
    (high | low).to_be_bytes()
}

static UUID_CLOCK: Mutex<UuidClock> = Mutex::new(UuidClock { millis: 0, counter: 0 });

/// `generateUUIDv7([expr])`: a new UUIDv7 per row, increasing within the process.
fn generate_uuid_v7_fn() -> ScalarUDF {
    ScalarDef::new(
        "generateUUIDv7",
        Arity::range(0, 1),
        |_| Ok(ChType::Uuid),
        |ctx| {
            let mut rng = crate::system::SplitMix::seeded();
            let now = now_millis();
            let mut b = FixedSizeBinaryBuilder::with_capacity(ctx.len, 16);
            // A poisoned lock only means another query panicked mid-batch; its state is
            // still a valid (time, counter).
            let mut clock = UUID_CLOCK.lock().unwrap_or_else(|e| e.into_inner());
            for _ in 0..ctx.len {
                let (millis, counter) = clock.next(now, &mut rng);
                b.append_value(uuid_v7_bytes(millis, counter, rng.next() as u32))?;
            }
            Ok(Arc::new(b.finish()))
        },
    )
    .custom_nulls()
    .volatile()
    .build()
}

/// `dateTimeToUUIDv7(t)`: a UUIDv7 of `t`'s second (its counter counts up across
/// rows of the same second, so they stay ordered).
fn date_time_to_uuid_v7_fn() -> ScalarUDF {
    ScalarDef::new(
        "dateTimeToUUIDv7",
        Arity::exact(1),
        |ctx| {
            if !matches!(ctx.ch(0).base(), ChType::DateTime(_)) {
                return Err(illegal_argument(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, ctx.name, 0, "value", "DateTime", &ctx.ch(0)));
            }
            Ok(ChType::Uuid)
        },
        |ctx| {
            let mut rng = crate::system::SplitMix::seeded();
            let (secs, _) = timestamp_ticks(&ctx.array(0)?)?;
            let mut b = FixedSizeBinaryBuilder::with_capacity(ctx.len, 16);
            let mut last: Option<(u64, u64)> = None;
            for s in secs.iter() {
                let millis = (s.unwrap_or(0) as u64).wrapping_mul(1000);
                let counter = match last {
                    Some((m, c)) if m == millis && (c + 1) >> UUID_COUNTER_BITS == 0 => c + 1,
                    _ => fresh_counter(&mut rng),
                };
                last = Some((millis, counter));
                b.append_value(uuid_v7_bytes(millis, counter, rng.next() as u32))?;
            }
            Ok(Arc::new(b.finish()))
        },
    )
    .volatile()
    .build()
}

/// `UUIDv7ToDateTime(uuid[, tz])`: the UUID's milliseconds; 0 for other versions.
fn uuid_v7_to_date_time_fn() -> ScalarUDF {
    ScalarDef::new(
        "UUIDv7ToDateTime",
        Arity::range(1, 2),
        |ctx| {
            if *ctx.ch(0).base() != ChType::Uuid {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("Illegal type {} of first argument of function {}, expected UUID", ctx.ch(0), ctx.name),
                ));
            }
            Ok(ChType::DateTime64(3, optional_tz(ctx, 1)?))
        },
        |ctx| {
            let uuids = ctx.array(0)?;
            let bytes = uuids.as_fixed_size_binary();
            let ticks: PrimitiveArray<Int64Type> = (0..bytes.len())
                .map(|i| {
                    let b = bytes.value(i);
                    if b.len() == 16 && b[6] >> 4 == 7 {
                        Some(b[..6].iter().fold(0i64, |acc, &x| (acc << 8) | i64::from(x)))
                    } else {
                        Some(0)
                    }
                })
                .collect();
            retype(ticks, ctx.ret_ch().base())
        },
    )
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        snowflake_to_time_fn("snowflakeIDToDateTime", false),
        snowflake_to_time_fn("snowflakeIDToDateTime64", true),
        time_to_snowflake_fn("dateTimeToSnowflakeID", false),
        time_to_snowflake_fn("dateTime64ToSnowflakeID", true),
        generate_snowflake_fn(),
        generate_uuid_v7_fn(),
        date_time_to_uuid_v7_fn(),
        uuid_v7_to_date_time_fn(),
    ]
}
