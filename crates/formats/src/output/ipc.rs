//! `Arrow` (IPC file) and `ArrowStream` (IPC stream), with the Arrow types ClickHouse
//! writes: `DateTime` as `UInt32` seconds, `DateTime64` as a timestamp carrying the
//! session time zone when the type has none, `UUID` as the `arrow.uuid` extension,
//! `LowCardinality(T)` as `T`, and `String` as Arrow strings (binary when
//! `output_format_arrow_string_as_string` is off). The encoded bytes are handed out
//! after every batch; the file footer comes at the end.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow::ipc::writer::{FileWriter, StreamWriter};
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::wide::WideInt;
use granary_types::ChType;

use crate::{FormatSettings, OutputFormat, QueryStatistics};

enum Writer {
    File(FileWriter<Vec<u8>>),
    Stream(StreamWriter<Vec<u8>>),
}

pub struct ArrowOutput {
    schema: SchemaRef,
    writer: Option<Writer>,
    finished: bool,
}

fn arrow_error(e: arrow::error::ArrowError) -> Error {
    Error::new(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot write Arrow data: {e}"))
}

/// The Arrow field ClickHouse writes for a column of type `t`.
fn ch_field(name: &str, t: &ChType, nullable: bool, settings: &FormatSettings) -> Field {
    let field = Field::new(name, ch_data_type(t, settings), nullable);
    if matches!(t.base(), ChType::Uuid) {
        let metadata = [("ARROW:extension:name", "arrow.uuid"), ("ARROW:extension:metadata", "")];
        return field.with_metadata(metadata.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<HashMap<_, _>>());
    }
    field
}

/// Arrow's time types are a time of day: ClickHouse refuses to write a `Time` that is
/// negative or 24 hours and more.
fn check_time_of_day(column: &ArrayRef) -> Result<()> {
    let nanos = arrow::compute::cast(column, &DataType::Time64(TimeUnit::Nanosecond))
        .and_then(|c| arrow::compute::cast(&c, &DataType::Int64))
        .map_err(arrow_error)?;
    let nanos = nanos.as_primitive::<arrow::datatypes::Int64Type>();
    match nanos.iter().flatten().find(|&v| !(0..86_400_000_000_000).contains(&v)) {
        None => Ok(()),
        Some(v) => Err(Error::new(
            ErrorCode::VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE,
            format!(
                "Cannot convert value {} of column {} to Arrow time: it is outside the valid time-of-day range [0, 86400). Arrow time types represent a time of day, so negative or >= 24h ClickHouse Time/Time64 values cannot be represented.",
                v.div_euclid(1_000_000_000),
                ChType::from_arrow(column.data_type(), false)
            ),
        )),
    }
}

fn holds_nulls(t: &ChType) -> bool {
    match t {
        ChType::LowCardinality(inner) | ChType::SimpleAggregateFunction(_, inner) => holds_nulls(inner),
        ChType::Nullable(_) | ChType::Nothing => true,
        _ => false,
    }
}

fn ch_data_type(t: &ChType, settings: &FormatSettings) -> DataType {
    match t {
        ChType::LowCardinality(inner) | ChType::Nullable(inner) | ChType::SimpleAggregateFunction(_, inner) => ch_data_type(inner, settings),
        ChType::String if !settings.arrow_string_as_string => DataType::Binary,
        ChType::DateTime(_) => DataType::UInt32,
        // Arrow's time types by the precision's unit (the column may hold a finer one).
        ChType::Time | ChType::Time64(0) => DataType::Time32(TimeUnit::Second),
        ChType::Time64(1..=3) => DataType::Time32(TimeUnit::Millisecond),
        ChType::Time64(4..=6) => DataType::Time64(TimeUnit::Microsecond),
        ChType::Time64(_) => DataType::Time64(TimeUnit::Nanosecond),
        ChType::DateTime64(p, tz) => {
            let tz = tz.clone().unwrap_or_else(|| settings.timezone().name().to_string());
            match t.to_arrow() {
                DataType::Timestamp(unit, _) => DataType::Timestamp(unit, Some(tz.into())),
                _ => DataType::Timestamp(crate::binary::time_unit(*p), Some(tz.into())),
            }
        }
        ChType::Array(inner) => DataType::List(Arc::new(ch_field("item", inner, holds_nulls(inner), settings))),
        ChType::Tuple(items) => DataType::Struct(items.iter().map(|(n, t)| Arc::new(ch_field(n, t, holds_nulls(t), settings))).collect()),
        ChType::Map(k, v) => {
            let kv = vec![Arc::new(ch_field("key", k, false, settings)), Arc::new(ch_field("value", v, holds_nulls(v), settings))];
            DataType::Map(Arc::new(Field::new("entries", DataType::Struct(kv.into()), false)), false)
        }
        other => other.to_arrow(),
    }
}

impl ArrowOutput {
    pub fn new(schema: SchemaRef, stream: bool, settings: &FormatSettings) -> Result<Self> {
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .map(|f| {
                let t = ChType::from_field(f);
                match WideInt::of(t.base()) {
                    // ClickHouse writes wide integers as their little-endian bytes (nested
                    // ones stay decimals here).
                    Some(kind) => Field::new(f.name(), DataType::FixedSizeBinary(kind.byte_width() as i32), f.is_nullable()),
                    None => ch_field(f.name(), &t, f.is_nullable(), settings),
                }
            })
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let writer = if stream {
            Writer::Stream(StreamWriter::try_new(Vec::new(), &schema).map_err(arrow_error)?)
        } else {
            Writer::File(FileWriter::try_new(Vec::new(), &schema).map_err(arrow_error)?)
        };
        Ok(ArrowOutput { schema, writer: Some(writer), finished: false })
    }

    /// Moves what the writer has encoded so far to `out`.
    fn drain(&mut self, out: &mut Vec<u8>) {
        let buffer = match self.writer.as_mut() {
            Some(Writer::File(w)) => w.get_mut(),
            Some(Writer::Stream(w)) => w.get_mut(),
            None => return,
        };
        out.append(buffer);
    }
}

impl OutputFormat for ArrowOutput {
    fn content_type(&self) -> &'static str {
        "application/octet-stream"
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        self.drain(out);
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        if batch.num_columns() != self.schema.fields().len() {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "A batch does not match the schema of the Arrow output"));
        }
        let columns = self
            .schema
            .fields()
            .iter()
            .zip(batch.schema().fields())
            .zip(batch.columns())
            .map(|((f, from), c)| {
                if matches!(c.data_type(), DataType::Time32(_) | DataType::Time64(_)) {
                    check_time_of_day(c)?;
                }
                if c.data_type() == f.data_type() {
                    return Ok(c.clone());
                }
                match WideInt::of(ChType::from_field(from).base()) {
                    Some(kind) => Ok(Arc::new(kind.to_fixed_binary(c.as_ref())?) as ArrayRef),
                    None => arrow::compute::cast(c, f.data_type()).map_err(arrow_error),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let batch = RecordBatch::try_new(self.schema.clone(), columns).map_err(arrow_error)?;
        match self.writer.as_mut() {
            Some(Writer::File(w)) => w.write(&batch).map_err(arrow_error)?,
            Some(Writer::Stream(w)) => w.write(&batch).map_err(arrow_error)?,
            None => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "Arrow output written after its end")),
        }
        self.drain(out);
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        if !self.finished {
            self.finished = true;
            match self.writer.as_mut() {
                Some(Writer::File(w)) => w.finish().map_err(arrow_error)?,
                Some(Writer::Stream(w)) => w.finish().map_err(arrow_error)?,
                None => {}
            }
            self.drain(out);
        }
        Ok(())
    }
}
