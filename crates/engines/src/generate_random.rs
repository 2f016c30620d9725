//! `ENGINE = GenerateRandom(seed, max_string_length, max_array_length)` and the
//! generator behind the `generateRandom(structure, ...)` table function: endless random
//! rows of the table's columns, in batches of `max_block_size`, for tests and benchmarks.
//!
//! A seed makes the rows repeatable (each output partition draws from its own stream
//! derived from the seed), but they are not ClickHouse's: its generator and the order in
//! which it draws values are not reproduced, only the shapes (string lengths up to
//! `max_string_length`, array and map sizes up to `max_array_length`, dates and times in
//! their types' ranges, enums among their values).

use std::sync::Arc;

use arrow::array::{new_null_array, Array, ArrayData, ArrayRef, BooleanArray, Int16Array, Int8Array, ListArray, MapArray, PrimitiveArray, StringBuilder, StructArray};
use arrow::buffer::{Buffer, NullBuffer, OffsetBuffer};
use arrow::datatypes::{i256, DataType, Date32Type, Decimal128Type, Decimal256Type, SchemaRef, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::ScalarValue;
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{EngineContext, EngineFactory, InsertRequest, InsertResult, TableEngine, TableMeta};
use granary_types::ChType;

/// What shapes the random values take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomLimits {
    /// `None`: a seed from the clock, different on every read (ClickHouse's default).
    pub seed: Option<u64>,
    pub max_string_length: usize,
    pub max_array_length: usize,
}

impl Default for RandomLimits {
    fn default() -> Self {
        RandomLimits { seed: None, max_string_length: 10, max_array_length: 10 }
    }
}

/// SplitMix64: small, fast, and enough for test data; not cryptographic.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n > 0`).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.next().to_le_bytes());
        }
        out.truncate(len);
        out
    }
}

fn unsupported(t: &ChType) -> Error {
    Error::new(ErrorCode::NOT_IMPLEMENTED, format!("The 'GenerateRandom' is not implemented for type {t}"))
}

/// `rows` random values of `t`, as an array of `t.to_arrow()`.
fn random_array(t: &ChType, rows: usize, rng: &mut Rng, limits: &RandomLimits) -> Result<ArrayRef> {
    let fixed = |rng: &mut Rng, data_type: DataType, width: usize| -> Result<ArrayRef> {
        let data = ArrayData::builder(data_type).len(rows).add_buffer(Buffer::from_vec(rng.bytes(rows * width))).build()?;
        Ok(arrow::array::make_array(data))
    };
    Ok(match t {
        ChType::Nullable(inner) => {
            let values = random_array(inner, rows, rng, limits)?;
            // One value in ten is NULL.
            let valid: Vec<bool> = (0..rows).map(|_| rng.below(10) != 0).collect();
            let nulls = NullBuffer::from(valid);
            arrow::array::make_array(values.into_data().into_builder().nulls(Some(nulls)).build()?)
        }
        ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => random_array(inner, rows, rng, limits)?,
        ChType::UInt8 | ChType::Int8 => fixed(rng, t.to_arrow(), 1)?,
        ChType::UInt16 | ChType::Int16 => fixed(rng, t.to_arrow(), 2)?,
        ChType::UInt32 | ChType::Int32 | ChType::Float32 | ChType::IPv4 => fixed(rng, t.to_arrow(), 4)?,
        ChType::UInt64 | ChType::Int64 | ChType::Float64 => fixed(rng, t.to_arrow(), 8)?,
        ChType::FixedString(n) => fixed(rng, t.to_arrow(), *n as usize)?,
        ChType::Uuid | ChType::IPv6 => fixed(rng, t.to_arrow(), 16)?,
        ChType::Int128 => {
            let values = (0..rows).map(|_| ((rng.next() as u128) << 64 | rng.next() as u128) as i128);
            Arc::new(PrimitiveArray::<Decimal128Type>::from_iter_values(values).with_data_type(t.to_arrow()))
        }
        ChType::UInt128 | ChType::Int256 | ChType::UInt256 => {
            let values = (0..rows).map(|_| {
                let low = (rng.next() as u128) << 64 | rng.next() as u128;
                let high = match t {
                    ChType::UInt128 => 0,
                    // Kept below 2^255 for UInt256, whose Arrow type is a signed 256-bit decimal.
                    ChType::UInt256 => ((rng.next() as i128) << 64 | rng.next() as i128) & i128::MAX,
                    _ => (rng.next() as i128) << 64 | rng.next() as i128,
                };
                i256::from_parts(low, high)
            });
            Arc::new(PrimitiveArray::<Decimal256Type>::from_iter_values(values).with_data_type(t.to_arrow()))
        }
        ChType::Bool => Arc::new(BooleanArray::from_iter((0..rows).map(|_| Some(rng.below(2) == 1)))),
        ChType::String => {
            let mut builder = StringBuilder::with_capacity(rows, rows * (limits.max_string_length / 2 + 1));
            let mut text = String::new();
            for _ in 0..rows {
                text.clear();
                let len = rng.below(limits.max_string_length as u64 + 1);
                // Printable ASCII, so the text is valid UTF-8 in every output format.
                text.extend((0..len).map(|_| char::from(b' ' + rng.below(95) as u8)));
                builder.append_value(&text);
            }
            Arc::new(builder.finish())
        }
        // ClickHouse's ranges: Date 1970-01-01..2149-06-06, Date32 1900-01-01..2299-12-31.
        ChType::Date => Arc::new(PrimitiveArray::<Date32Type>::from_iter_values((0..rows).map(|_| rng.below(65536) as i32))),
        ChType::Date32 => Arc::new(PrimitiveArray::<Date32Type>::from_iter_values((0..rows).map(|_| rng.below(146_097) as i32 - 25_567))),
        ChType::DateTime(_) => {
            Arc::new(PrimitiveArray::<TimestampSecondType>::from_iter_values((0..rows).map(|_| rng.below(1 << 32) as i64)).with_data_type(t.to_arrow()))
        }
        ChType::DateTime64(precision, _) => {
            let DataType::Timestamp(unit, _) = t.to_arrow() else { return Err(unsupported(t)) };
            let unit_digits: u32 = match unit {
                arrow::datatypes::TimeUnit::Second => 0,
                arrow::datatypes::TimeUnit::Millisecond => 3,
                arrow::datatypes::TimeUnit::Microsecond => 6,
                arrow::datatypes::TimeUnit::Nanosecond => 9,
            };
            let per_second = 10i64.pow(unit_digits);
            // Sub-second digits beyond the type's precision stay zero.
            let step = 10i64.pow(unit_digits.saturating_sub(u32::from(*precision)));
            // Seconds as DateTime's range, so nanoseconds do not overflow an i64.
            let values: Vec<i64> = (0..rows).map(|_| rng.below(1 << 32) as i64 * per_second + rng.below(per_second as u64) as i64 / step * step).collect();
            let array: ArrayRef = match unit {
                arrow::datatypes::TimeUnit::Second => Arc::new(PrimitiveArray::<TimestampSecondType>::from(values)),
                arrow::datatypes::TimeUnit::Millisecond => Arc::new(PrimitiveArray::<TimestampMillisecondType>::from(values)),
                arrow::datatypes::TimeUnit::Microsecond => Arc::new(PrimitiveArray::<TimestampMicrosecondType>::from(values)),
                arrow::datatypes::TimeUnit::Nanosecond => Arc::new(PrimitiveArray::<TimestampNanosecondType>::from(values)),
            };
            arrow::compute::cast(&array, &t.to_arrow())?
        }
        ChType::Decimal(precision, _) => {
            let digits = u32::from(*precision).min(38);
            let bound = 10u128.pow(digits);
            let value = |rng: &mut Rng| {
                let magnitude = (((rng.next() as u128) << 64 | rng.next() as u128) % bound) as i128;
                if rng.below(2) == 0 { magnitude } else { -magnitude }
            };
            match t.to_arrow() {
                DataType::Decimal128(..) => Arc::new(PrimitiveArray::<Decimal128Type>::from_iter_values((0..rows).map(|_| value(rng))).with_data_type(t.to_arrow())),
                _ => Arc::new(PrimitiveArray::<Decimal256Type>::from_iter_values((0..rows).map(|_| i256::from_i128(value(rng)))).with_data_type(t.to_arrow())),
            }
        }
        ChType::Enum8(values) | ChType::Enum16(values) => {
            if values.is_empty() {
                return Err(unsupported(t));
            }
            let picks = (0..rows).map(|_| values[rng.below(values.len() as u64) as usize].1);
            match t {
                ChType::Enum8(_) => Arc::new(Int8Array::from_iter_values(picks.map(|v| v as i8))),
                _ => Arc::new(Int16Array::from_iter_values(picks)),
            }
        }
        ChType::Array(inner) => {
            let lengths: Vec<usize> = (0..rows).map(|_| rng.below(limits.max_array_length as u64 + 1) as usize).collect();
            let values = random_array(inner, lengths.iter().sum(), rng, limits)?;
            Arc::new(ListArray::try_new(Arc::new(inner.to_arrow_field("item")), OffsetBuffer::from_lengths(lengths), values, None)?)
        }
        ChType::Tuple(elements) => {
            let DataType::Struct(fields) = t.to_arrow() else { return Err(unsupported(t)) };
            if elements.is_empty() {
                return Ok(Arc::new(StructArray::new_empty_fields(rows, None)));
            }
            let columns = elements.iter().map(|(_, element)| random_array(element, rows, rng, limits)).collect::<Result<Vec<_>>>()?;
            Arc::new(StructArray::try_new(fields, columns, None)?)
        }
        ChType::Map(key, value) => {
            let DataType::Map(entries_field, _) = t.to_arrow() else { return Err(unsupported(t)) };
            let DataType::Struct(entry_fields) = entries_field.data_type().clone() else { return Err(unsupported(t)) };
            let lengths: Vec<usize> = (0..rows).map(|_| rng.below(limits.max_array_length as u64 + 1) as usize).collect();
            let total = lengths.iter().sum();
            let keys = random_array(key, total, rng, limits)?;
            let values = random_array(value, total, rng, limits)?;
            let entries = StructArray::try_new(entry_fields, vec![keys, values], None)?;
            Arc::new(MapArray::try_new(entries_field, OffsetBuffer::from_lengths(lengths), entries, None, false)?)
        }
        ChType::Nothing => new_null_array(&DataType::Null, rows),
        other => return Err(unsupported(other)),
    })
}

/// One batch of random rows of `schema` (whose fields carry their ClickHouse types).
fn random_batch(schema: &SchemaRef, rows: usize, rng: &mut Rng, limits: &RandomLimits) -> Result<RecordBatch> {
    let columns = schema
        .fields()
        .iter()
        .map(|field| {
            let array = random_array(&ChType::from_field(field), rows, rng, limits)?;
            // Field metadata of nested types decides nothing about the values; the
            // schema's exact type is what readers compare.
            if array.data_type() == field.data_type() {
                Ok(array)
            } else {
                Ok(arrow::compute::cast(&array, field.data_type())?)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let options = arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(schema.clone(), columns, &options)?)
}

/// Checks that every column has a type the generator knows, before any row is asked for.
pub fn check_random_schema(schema: &SchemaRef) -> Result<()> {
    random_batch(schema, 1, &mut Rng(0), &RandomLimits { seed: Some(0), max_string_length: 1, max_array_length: 1 }).map(|_| ())
}

/// One endless partition of random rows.
#[derive(Debug)]
struct RandomPartition {
    schema: SchemaRef,
    limits: RandomLimits,
    seed: u64,
}

impl PartitionStream for RandomPartition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let batch_size = ctx.session_config().batch_size().max(1);
        let (schema, limits) = (self.schema.clone(), self.limits);
        let mut rng = Rng(self.seed);
        let batches = futures::stream::repeat_with(move || random_batch(&schema, batch_size, &mut rng, &limits).map_err(DataFusionError::from));
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), batches))
    }
}

/// A plan of endless random rows of `schema`, one stream per target partition.
pub fn random_scan(session: &dyn Session, schema: SchemaRef, projection: Option<&Vec<usize>>, limits: RandomLimits, limit: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
    let base = limits.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
    });
    // With a LIMIT one stream is enough, and it keeps a seeded result the same
    // whatever max_threads is.
    let partitions = if limit.is_some() { 1 } else { session.config().target_partitions().max(1) };
    let streams: Vec<Arc<dyn PartitionStream>> = (0..partitions as u64)
        .map(|i| Arc::new(RandomPartition { schema: schema.clone(), limits, seed: base ^ i.wrapping_mul(0xA24B_AED4_963E_E407) }) as Arc<dyn PartitionStream>)
        .collect();
    // Unbounded unless limited: DataFusion refuses to aggregate or sort an unbounded input.
    Ok(Arc::new(StreamingTableExec::try_new(schema, streams, projection, Vec::new(), limit.is_none(), limit)?))
}

/// `ENGINE = GenerateRandom`.
#[derive(Debug)]
pub struct GenerateRandomEngine {
    schema: SchemaRef,
    limits: RandomLimits,
}

#[async_trait]
impl TableEngine for GenerateRandomEngine {
    fn engine_name(&self) -> &str {
        "GenerateRandom"
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn scan(&self, session: &dyn Session, projection: Option<&Vec<usize>>, _filters: &[Expr], limit: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
        random_scan(session, self.schema.clone(), projection, self.limits, limit)
    }

    async fn insert(&self, _request: InsertRequest) -> Result<InsertResult> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Method write is not supported by storage GenerateRandom"))
    }

    async fn truncate(&self) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Truncate is not supported by storage GenerateRandom"))
    }

    async fn drop_data(&self) -> Result<()> {
        Ok(())
    }
}

/// The engine's arguments: `[seed [, max_string_length [, max_array_length]]]`, each an
/// unsigned integer literal (a NULL seed means a random one).
pub fn random_limits(engine: &str, args: &[ScalarValue]) -> Result<RandomLimits> {
    if args.len() > 3 {
        return Err(Error::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Storage {engine} requires at most three arguments: random_seed, max_string_length, max_array_length."),
        ));
    }
    let number = |i: usize| -> Result<Option<u64>> {
        match args.get(i) {
            None => Ok(None),
            Some(v) if v.is_null() => Ok(None),
            Some(v) => match v.cast_to(&DataType::UInt64) {
                Ok(ScalarValue::UInt64(Some(n))) if !matches!(v, ScalarValue::Utf8(_) | ScalarValue::Utf8View(_) | ScalarValue::LargeUtf8(_)) => Ok(Some(n)),
                _ => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Argument {} of {engine} must be an unsigned integer, got {v}", i + 1))),
            },
        }
    };
    let defaults = RandomLimits::default();
    Ok(RandomLimits {
        seed: number(0)?,
        max_string_length: number(1)?.map_or(defaults.max_string_length, |n| n as usize),
        max_array_length: number(2)?.map_or(defaults.max_array_length, |n| n as usize),
    })
}

pub struct GenerateRandomEngineFactory;

impl GenerateRandomEngineFactory {
    fn limits(meta: &TableMeta) -> Result<RandomLimits> {
        let args = meta
            .engine
            .args
            .iter()
            .map(|text| {
                let text = text.trim();
                if text.eq_ignore_ascii_case("NULL") {
                    return Ok(ScalarValue::Null);
                }
                text.parse::<u64>().map(|n| ScalarValue::UInt64(Some(n))).map_err(|_| {
                    Error::new(ErrorCode::BAD_ARGUMENTS, format!("Arguments of GenerateRandom must be unsigned integer literals, got {text}"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        random_limits("GenerateRandom", &args)
    }
}

impl EngineFactory for GenerateRandomEngineFactory {
    fn name(&self) -> &'static str {
        "GenerateRandom"
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        crate::memory::no_sorting_clauses(meta)?;
        Self::limits(meta).map(|_| ())
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        let limits = Self::limits(context.meta)?;
        if context.is_new {
            check_random_schema(&context.schema)?;
        }
        Ok(Arc::new(GenerateRandomEngine { schema: context.schema, limits }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::Schema;

    fn schema(columns: &[(&str, &str)]) -> SchemaRef {
        Arc::new(Schema::new(columns.iter().map(|(n, t)| ChType::parse(t).map(|t| t.to_arrow_field(n))).collect::<Result<Vec<_>>>().unwrap()))
    }

    #[test]
    fn random_rows_follow_types_and_limits() {
        let schema = schema(&[
            ("s", "String"),
            ("a", "Array(Nullable(UInt8))"),
            ("m", "Map(String, Tuple(Int32, Decimal(9, 2)))"),
            ("d", "Date"),
            ("t", "DateTime64(3, 'UTC')"),
            ("e", "Enum8('a' = 1, 'b' = 5)"),
            ("w", "UInt256"),
        ]);
        let limits = RandomLimits { seed: Some(7), max_string_length: 4, max_array_length: 3 };
        let batch = random_batch(&schema, 500, &mut Rng(7), &limits).unwrap();
        assert_eq!(batch.num_rows(), 500);
        let strings = batch.column(0).as_any().downcast_ref::<arrow::array::StringArray>().unwrap();
        assert!(strings.iter().all(|s| s.is_some_and(|s| s.len() <= 4)));
        let lists = batch.column(1).as_any().downcast_ref::<ListArray>().unwrap();
        assert!(lists.offsets().lengths().all(|n| n <= 3));
        assert!(lists.values().null_count() > 0);
        let enums = batch.column(5).as_any().downcast_ref::<Int8Array>().unwrap();
        assert!(enums.values().iter().all(|v| *v == 1 || *v == 5));
        let dates = batch.column(3).as_any().downcast_ref::<PrimitiveArray<Date32Type>>().unwrap();
        assert!(dates.values().iter().all(|d| (0..65536).contains(d)));
        // The same seed gives the same rows.
        let again = random_batch(&schema, 500, &mut Rng(7), &limits).unwrap();
        assert_eq!(batch, again);
    }

    #[test]
    fn engine_arguments() {
        let limits = random_limits("GenerateRandom", &[ScalarValue::UInt64(Some(1)), ScalarValue::Int64(Some(5))]).unwrap();
        assert_eq!(limits, RandomLimits { seed: Some(1), max_string_length: 5, max_array_length: 10 });
        assert!(random_limits("GenerateRandom", &[ScalarValue::Utf8(Some("x".into()))]).is_err());
        assert!(random_limits("GenerateRandom", &vec![ScalarValue::UInt64(Some(1)); 4]).is_err());
    }
}
