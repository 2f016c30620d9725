//! `Avro` output: an Avro object container file, blocks written as batches come, with
//! ClickHouse's value mapping: small integers as `int`, `UInt64` as `long`, `DateTime`
//! as `int` seconds, `DateTime64(3|6)` as `timestamp-millis|micros`, `Date` as `date`,
//! `Enum` as an Avro enum of its names, `UUID` as a `uuid` string, `Nullable(T)` as the
//! union `["null", T]`. Blocks are compressed with `output_format_avro_codec`
//! (`snappy` when empty, as ClickHouse does).

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow::array::{Array, ArrayRef, AsArray, DictionaryArray, Int32Array, StringArray};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Int16Type, Int32Type, Schema, SchemaRef, TimeUnit};
use arrow::record_batch::RecordBatch;
use arrow_avro::compression::CompressionCodec;
use arrow_avro::writer::format::AvroOcfFormat;
use arrow_avro::writer::{Writer, WriterBuilder};
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

use crate::{OutputFormat, QueryStatistics};

/// The bytes the Avro writer produced and `write_batch` has not handed on yet.
#[derive(Clone, Default)]
struct Pending(Arc<Mutex<Vec<u8>>>);

impl Write for Pending {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().map_err(|_| std::io::Error::other("Avro output buffer poisoned"))?.extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Pending {
    fn drain_into(&self, out: &mut Vec<u8>) {
        if let Ok(mut pending) = self.0.lock() {
            out.append(&mut pending);
        }
    }
}

/// How one result column becomes an Avro column.
#[derive(Debug, Clone)]
enum Conversion {
    Keep,
    Cast(DataType),
    /// A tuple whose element names are not Avro names (`1`, `2`: unnamed tuples), as a
    /// record with those names prefixed by `_`, as the Avro writer names them.
    Record(arrow::datatypes::Fields),
    /// Enum values to the index of their name among the enum's names (the second).
    Enum(HashMap<i16, i32>, Vec<String>),
}

fn avro_error(e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::CANNOT_CONVERT_TYPE, format!("Cannot write Avro: {e}"))
}

/// The Avro-side field of a result column, and how its values get there.
fn plan_column(field: &Field) -> (Field, Conversion) {
    let ch = ChType::from_field(field);
    let nullable = matches!(ch, ChType::Nullable(_));
    let base = ch.base().clone();
    let named = |data_type: DataType| Field::new(field.name(), data_type, nullable);
    match base {
        ChType::DateTime(_) => (named(DataType::Int32), Conversion::Cast(DataType::Int32)),
        ChType::DateTime64(3, _) => (named(DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))), Conversion::Cast(DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())))),
        ChType::DateTime64(6, _) => (named(DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))), Conversion::Cast(DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())))),
        ChType::DateTime64(..) => (named(DataType::Int64), Conversion::Cast(DataType::Int64)),
        ChType::Uuid => {
            let metadata = HashMap::from([("logicalType".to_string(), "uuid".to_string())]);
            (named(DataType::FixedSizeBinary(16)).with_metadata(metadata), Conversion::Keep)
        }
        ChType::Enum8(values) | ChType::Enum16(values) => {
            let symbols: Vec<&str> = values.iter().map(|(name, _)| name.as_str()).collect();
            let metadata = HashMap::from([(arrow_avro::schema::AVRO_ENUM_SYMBOLS_METADATA_KEY.to_string(), serde_json_list(&symbols))]);
            let indexes = values.iter().enumerate().map(|(index, (_, value))| (*value, index as i32)).collect();
            let names = symbols.iter().map(|s| s.to_string()).collect();
            (named(DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))).with_metadata(metadata), Conversion::Enum(indexes, names))
        }
        ChType::IPv4 => (named(DataType::Int32), Conversion::Cast(DataType::Int32)),
        ChType::Tuple(_) => match field.data_type() {
            DataType::Struct(fields) if fields.iter().any(|f| !is_avro_name(f.name())) => {
                let renamed: arrow::datatypes::Fields = fields
                    .iter()
                    .map(|f| if is_avro_name(f.name()) { f.clone() } else { Arc::new(f.as_ref().clone().with_name(format!("_{}", f.name()))) })
                    .collect();
                (named(DataType::Struct(renamed.clone())), Conversion::Record(renamed))
            }
            _ => (Field::new(field.name(), field.data_type().clone(), nullable || field.is_nullable()), Conversion::Keep),
        },
        _ => {
            let data_type = field.data_type().clone();
            (Field::new(field.name(), data_type, nullable || field.is_nullable()), Conversion::Keep)
        }
    }
}

/// Whether `name` is a valid Avro name (a letter or `_`, then letters, digits, `_`).
fn is_avro_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A JSON list of strings (the enum symbols' metadata value).
fn serde_json_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))).collect();
    format!("[{}]", quoted.join(","))
}

fn convert(column: &ArrayRef, conversion: &Conversion) -> Result<ArrayRef> {
    Ok(match conversion {
        Conversion::Keep => column.clone(),
        Conversion::Cast(data_type) => cast(column, data_type).map_err(avro_error)?,
        Conversion::Record(fields) => {
            let tuple = column.as_struct();
            Arc::new(arrow::array::StructArray::try_new(fields.clone(), tuple.columns().to_vec(), tuple.nulls().cloned()).map_err(avro_error)?)
        }
        Conversion::Enum(indexes, names) => {
            let values = cast(column, &DataType::Int16).map_err(avro_error)?;
            let keys: Int32Array = values.as_primitive::<Int16Type>().iter().map(|v| v.and_then(|v| indexes.get(&v).copied())).collect();
            let names = StringArray::from_iter_values(names);
            Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(names)).map_err(avro_error)?)
        }
    })
}

pub struct AvroOutput {
    writer: Option<Writer<Pending, AvroOcfFormat>>,
    pending: Pending,
    schema: SchemaRef,
    conversions: Vec<Conversion>,
}

impl AvroOutput {
    pub fn new(schema: SchemaRef, codec: &str) -> Result<Self> {
        let codec = match codec {
            "" | "snappy" => Some(CompressionCodec::Snappy),
            "null" => None,
            "deflate" => Some(CompressionCodec::Deflate),
            "zstd" => Some(CompressionCodec::ZStandard),
            other => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Unknown Avro codec: {other}"))),
        };
        let (fields, conversions): (Vec<Field>, Vec<Conversion>) = schema.fields().iter().map(|f| plan_column(f)).unzip();
        let schema = Arc::new(Schema::new(fields));
        let pending = Pending::default();
        let writer = WriterBuilder::new(schema.as_ref().clone()).with_compression(codec).build::<_, AvroOcfFormat>(pending.clone()).map_err(avro_error)?;
        Ok(AvroOutput { writer: Some(writer), pending, schema, conversions })
    }
}

impl OutputFormat for AvroOutput {
    fn content_type(&self) -> &'static str {
        "application/octet-stream"
    }

    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()> {
        self.pending.drain_into(out);
        Ok(())
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()> {
        let columns = batch
            .columns()
            .iter()
            .zip(&self.conversions)
            .map(|(column, conversion)| convert(column, conversion))
            .collect::<Result<Vec<_>>>()?;
        let batch = RecordBatch::try_new(self.schema.clone(), columns).map_err(avro_error)?;
        match self.writer.as_mut() {
            Some(writer) => writer.write(&batch).map_err(avro_error)?,
            None => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "Avro output written after its end")),
        }
        self.pending.drain_into(out);
        Ok(())
    }

    fn write_suffix(&mut self, _stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()> {
        if let Some(mut writer) = self.writer.take() {
            writer.finish().map_err(avro_error)?;
        }
        self.pending.drain_into(out);
        Ok(())
    }
}
