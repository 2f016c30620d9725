//! Server and session information and randomness: `version`, `currentDatabase`,
//! `hostName`, `uptime`, `rand`, `rand64`, `generateUUIDv4`, `throwIf`, `sleep`,
//! `sleepEachRow`.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use datafusion::arrow::array::{FixedSizeBinaryBuilder, StringArray, UInt32Array, UInt64Array};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::simplify::ExprSimplifyResult;
use datafusion::logical_expr::{Expr, ScalarUDF};
use granary_types::ChType;

use crate::args::Arity;
use crate::func::ScalarDef;

/// The version Granary reports. Clients (JDBC/ODBC drivers, clickhouse-go,
/// clickhouse-connect, Grafana, DBeaver) parse `version()` and the
/// `X-ClickHouse-Server-Display-Name`/hello packet version as a ClickHouse version to
/// decide which protocol features and SQL they may use; a non-numeric string breaks
/// them. `24.8.1.1` is an LTS release whose feature set matches what Granary offers.
pub const CLICKHOUSE_COMPATIBLE_VERSION: &str = "24.8.1.1";

static SERVER_START: OnceLock<Instant> = OnceLock::new();

/// Records the server start (first registration), for `uptime()`.
pub(crate) fn mark_server_start() {
    SERVER_START.get_or_init(Instant::now);
}

fn constant_string(name: &'static str, value: fn(&datafusion::common::config::ConfigOptions) -> String) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(0),
        |_| Ok(ChType::String),
        move |ctx| Ok(Arc::new(StringArray::from(vec![value(ctx.config); ctx.len]))),
    )
    .stable()
    .simplify(move |_, info| Ok(ExprSimplifyResult::Simplified(Expr::Literal(ScalarValue::Utf8(Some(value(info.config_options()))), None))))
    .build()
}

pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".to_string())
}

fn uptime() -> ScalarUDF {
    ScalarDef::new(
        "uptime",
        Arity::exact(0),
        |_| Ok(ChType::UInt32),
        |ctx| {
            let secs = SERVER_START.get_or_init(Instant::now).elapsed().as_secs().min(u32::MAX as u64) as u32;
            Ok(Arc::new(UInt32Array::from(vec![secs; ctx.len])))
        },
    )
    .stable()
    .build()
}

/// A small, fast generator (SplitMix64) seeded from the OS per batch; ClickHouse's
/// `rand` is likewise not cryptographic.
pub(crate) struct SplitMix(u64);

impl SplitMix {
    pub(crate) fn seeded() -> Self {
        let seed = uuid::Uuid::new_v4().as_u128();
        SplitMix((seed >> 64) as u64 ^ seed as u64)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn rand_fn(name: &'static str, wide: bool) -> ScalarUDF {
    // `rand(x)` accepts and ignores arguments (they only stop common-subexpression
    // elimination from merging calls), as in ClickHouse.
    ScalarDef::new(
        name,
        Arity::at_least(0),
        move |_| Ok(if wide { ChType::UInt64 } else { ChType::UInt32 }),
        move |ctx| {
            let mut rng = SplitMix::seeded();
            if wide {
                Ok(Arc::new(UInt64Array::from_iter_values((0..ctx.len).map(|_| rng.next()))))
            } else {
                Ok(Arc::new(UInt32Array::from_iter_values((0..ctx.len).map(|_| (rng.next() >> 32) as u32))))
            }
        },
    )
    .custom_nulls()
    .volatile()
    .build()
}

fn generate_uuid_v4() -> ScalarUDF {
    ScalarDef::new(
        "generateUUIDv4",
        Arity::range(0, 1),
        |_| Ok(ChType::Uuid),
        |ctx| {
            let mut rng = SplitMix::seeded();
            let mut b = FixedSizeBinaryBuilder::with_capacity(ctx.len, 16);
            for _ in 0..ctx.len {
                let bits = ((rng.next() as u128) << 64) | rng.next() as u128;
                let id = uuid::Builder::from_random_bytes(bits.to_be_bytes()).into_uuid();
                b.append_value(id.as_bytes())?;
            }
            Ok(Arc::new(b.finish()))
        },
    )
    .custom_nulls()
    .volatile()
    .build()
}

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        constant_string("version", |_| CLICKHOUSE_COMPATIBLE_VERSION.to_string()),
        // The current database is the session's default schema, which the query
        // layer keeps in sync with `USE db` (`datafusion.catalog.default_schema`).
        constant_string("currentDatabase", |config| config.catalog.default_schema.clone()),
        constant_string("hostName", |_| host_name()),
        uptime(),
        rand_fn("rand", false),
        rand_fn("rand64", true),
        generate_uuid_v4(),
        throw_if(),
        sleep_fn("sleep", false),
        sleep_fn("sleepEachRow", true),
    ]
}

/// ClickHouse's `function_sleep_max_microseconds_per_block` default.
const MAX_SLEEP_PER_BLOCK: std::time::Duration = std::time::Duration::from_secs(3);

/// `sleep(seconds)` once per non-empty block, `sleepEachRow(seconds)` once per row;
/// both return 0. Used to test timeouts, progress and cancellation; capped at 3 s per
/// block as in ClickHouse so a typo cannot hold a thread for hours.
fn sleep_fn(name: &'static str, each_row: bool) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |_| Ok(ChType::UInt8),
        move |ctx| {
            let seconds = ctx
                .scalar(0)
                .and_then(|s| s.cast_to(&datafusion::arrow::datatypes::DataType::Float64).ok())
                .and_then(|s| match s {
                    datafusion::common::ScalarValue::Float64(Some(v)) => Some(v),
                    _ => None,
                })
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    crate::args::ch_error(granary_common::ErrorCode::ILLEGAL_COLUMN, format!("The argument of function {name} must be a non-negative constant number"))
                })?;
            let rows = if each_row { ctx.len as f64 } else if ctx.len > 0 { 1.0 } else { 0.0 };
            let total = std::time::Duration::from_secs_f64(seconds * rows);
            if total > MAX_SLEEP_PER_BLOCK {
                return Err(crate::args::ch_error(
                    granary_common::ErrorCode::TOO_SLOW,
                    format!("The maximum sleep time is {} microseconds. Requested: {} microseconds per block", MAX_SLEEP_PER_BLOCK.as_micros(), total.as_micros()),
                ));
            }
            std::thread::sleep(total);
            Ok(Arc::new(datafusion::arrow::array::UInt8Array::from(vec![0u8; ctx.len])))
        },
    )
    .volatile()
    .build()
}

/// `throwIf(x [, message])`: fails the query when `x` is non-zero in any row, else 0.
fn throw_if() -> ScalarUDF {
    ScalarDef::new(
        "throwIf",
        Arity::range(1, 2),
        |_| Ok(ChType::UInt8),
        |ctx| {
            let condition = datafusion::arrow::compute::cast(&ctx.array(0)?, &datafusion::arrow::datatypes::DataType::Boolean)?;
            let condition = datafusion::arrow::array::AsArray::as_boolean(&condition);
            if condition.true_count() > 0 {
                let message = if ctx.args.len() > 1 { ctx.const_str(1, "message")?.to_string() } else { "Value passed to 'throwIf' function is non-zero".to_string() };
                return Err(crate::args::ch_error(granary_common::ErrorCode::FUNCTION_THROW_IF_VALUE_IS_NON_ZERO, message));
            }
            Ok(Arc::new(datafusion::arrow::array::UInt8Array::from(vec![0u8; ctx.len])))
        },
    )
    .build()
}
