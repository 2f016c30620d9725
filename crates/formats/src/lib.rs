//! Input and output formats, with ClickHouse's names and byte-exact text rules.
//!
//! * [`value`]: how one value is written in each escaping style (TSV, CSV, JSON,
//!   quoted, Pretty); floats, dates, decimals and nested types as ClickHouse prints them.
//! * [`output`]: the output formats (`TabSeparated*`, `CSV*`, `JSONEachRow`,
//!   `JSONCompactEachRow`, `JSON`, `JSONCompact`, `Values`, `Pretty*`, `Null`, `Parquet`).
//! * [`input`]: streaming parsers (`TabSeparated*`, `CSV*`, `JSONEachRow`, `Values`,
//!   `Parquet`) that accept bytes in any split and produce batches of the target columns.
//! * [`convert`]: field text to typed columns, with errors naming the row and column.
//!
//! Format names are case-sensitive, as in ClickHouse; an unknown name is UNKNOWN_FORMAT.

pub mod convert;
pub mod input;
pub mod output;
pub mod value;

use std::time::Duration;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use chrono_tz::Tz;
use granary_common::{Error, ErrorCode, Result, Settings};

use crate::input::{ParquetInput, TextInput, TextKind};
use crate::output::{Delimited, JsonDocument, JsonEachRow, NullOutput, ParquetOutput, Pretty, PrettyKind, Values};
use crate::value::{Style, TextOptions};

/// Format-related settings, resolved once per query.
#[derive(Debug, Clone)]
pub struct FormatSettings {
    pub text: TextOptions,
    pub pretty_max_rows: u64,
    pub write_statistics: bool,
    pub skip_unknown_fields: bool,
    pub null_as_default: bool,
    pub csv_allow_single_quotes: bool,
    pub allow_errors_num: u64,
    /// Rows per batch produced by input formats.
    pub max_block_rows: usize,
}

impl FormatSettings {
    pub fn from_settings(settings: &Settings, timezone: Tz) -> Self {
        let delimiter = settings.get_str("format_csv_delimiter").bytes().next().unwrap_or(b',');
        FormatSettings {
            text: TextOptions {
                timezone,
                json_quote_64bit_integers: settings.get_bool("output_format_json_quote_64bit_integers"),
                json_quote_denormals: settings.get_bool("output_format_json_quote_denormals"),
                json_escape_forward_slashes: true,
                csv_delimiter: delimiter,
            },
            pretty_max_rows: settings.get_u64("output_format_pretty_max_rows").max(1),
            write_statistics: settings.get_bool("output_format_write_statistics"),
            skip_unknown_fields: settings.get_bool("input_format_skip_unknown_fields"),
            null_as_default: settings.get_bool("input_format_null_as_default"),
            csv_allow_single_quotes: settings.get_bool("format_csv_allow_single_quotes"),
            allow_errors_num: settings.get_u64("input_format_allow_errors_num"),
            max_block_rows: settings.get_u64("max_block_size").max(1) as usize,
        }
    }
}

/// What JSON formats report in `statistics`.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryStatistics {
    pub elapsed: Duration,
    pub rows_read: u64,
    pub bytes_read: u64,
}

pub trait OutputFormat: Send {
    /// The Content-Type ClickHouse sends for this format.
    fn content_type(&self) -> &'static str;
    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()>;
    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()>;
    fn write_suffix(&mut self, stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()>;
}

pub trait InputFormat: Send {
    /// Feeds the next bytes (any split, even mid-row); finished batches go to `out`.
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()>;
    /// End of input: parses what is left.
    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()>;
}

const OUTPUT_FORMATS: &[&str] = &[
    "TabSeparated", "TSV", "TabSeparatedRaw", "TSVRaw", "TabSeparatedWithNames", "TSVWithNames",
    "TabSeparatedWithNamesAndTypes", "TSVWithNamesAndTypes", "CSV", "CSVWithNames", "CSVWithNamesAndTypes",
    "JSONEachRow", "JSONLines", "NDJSON", "JSONCompactEachRow", "JSON", "JSONCompact", "Values", "Pretty",
    "PrettyCompact", "PrettyCompactMonoBlock", "PrettySpace", "Null", "Parquet",
];

const INPUT_FORMATS: &[&str] = &[
    "TabSeparated", "TSV", "TabSeparatedRaw", "TSVRaw", "TabSeparatedWithNames", "TSVWithNames",
    "TabSeparatedWithNamesAndTypes", "TSVWithNamesAndTypes", "CSV", "CSVWithNames", "CSVWithNamesAndTypes",
    "JSONEachRow", "JSONLines", "NDJSON", "Values", "Parquet",
];

pub fn output_format_names() -> &'static [&'static str] {
    OUTPUT_FORMATS
}

pub fn input_format_names() -> &'static [&'static str] {
    INPUT_FORMATS
}

fn unknown_format(name: &str) -> Error {
    Error::new(ErrorCode::UNKNOWN_FORMAT, format!("Unknown format {name}"))
}

pub fn create_output_format(name: &str, schema: SchemaRef, settings: &FormatSettings) -> Result<Box<dyn OutputFormat>> {
    Ok(match name {
        "TabSeparated" | "TSV" => Box::new(Delimited::new(schema, Style::Tsv, false, false, settings)),
        "TabSeparatedRaw" | "TSVRaw" => Box::new(Delimited::new(schema, Style::Raw, false, false, settings)),
        "TabSeparatedWithNames" | "TSVWithNames" => Box::new(Delimited::new(schema, Style::Tsv, true, false, settings)),
        "TabSeparatedWithNamesAndTypes" | "TSVWithNamesAndTypes" => Box::new(Delimited::new(schema, Style::Tsv, true, true, settings)),
        "CSV" => Box::new(Delimited::new(schema, Style::Csv, false, false, settings)),
        "CSVWithNames" => Box::new(Delimited::new(schema, Style::Csv, true, false, settings)),
        "CSVWithNamesAndTypes" => Box::new(Delimited::new(schema, Style::Csv, true, true, settings)),
        "JSONEachRow" | "JSONLines" | "NDJSON" => Box::new(JsonEachRow::new(schema, false, settings)),
        "JSONCompactEachRow" => Box::new(JsonEachRow::new(schema, true, settings)),
        "JSON" => Box::new(JsonDocument::new(schema, false, settings)),
        "JSONCompact" => Box::new(JsonDocument::new(schema, true, settings)),
        "Values" => Box::new(Values::new(settings)),
        "Pretty" => Box::new(Pretty::new(schema, PrettyKind::Full, settings)),
        "PrettyCompact" | "PrettyCompactMonoBlock" => Box::new(Pretty::new(schema, PrettyKind::Compact, settings)),
        "PrettySpace" => Box::new(Pretty::new(schema, PrettyKind::Space, settings)),
        "Null" => Box::new(NullOutput),
        "Parquet" => Box::new(ParquetOutput::new(schema)?),
        other => return Err(unknown_format(other)),
    })
}

pub fn create_input_format(name: &str, schema: SchemaRef, settings: &FormatSettings) -> Result<Box<dyn InputFormat>> {
    Ok(match name {
        "TabSeparated" | "TSV" | "TabSeparatedRaw" | "TSVRaw" => Box::new(TextInput::new(TextKind::Tsv, schema, settings, 0)),
        "TabSeparatedWithNames" | "TSVWithNames" => Box::new(TextInput::new(TextKind::Tsv, schema, settings, 1)),
        "TabSeparatedWithNamesAndTypes" | "TSVWithNamesAndTypes" => Box::new(TextInput::new(TextKind::Tsv, schema, settings, 2)),
        "CSV" => Box::new(TextInput::new(TextKind::Csv, schema, settings, 0)),
        "CSVWithNames" => Box::new(TextInput::new(TextKind::Csv, schema, settings, 1)),
        "CSVWithNamesAndTypes" => Box::new(TextInput::new(TextKind::Csv, schema, settings, 2)),
        "JSONEachRow" | "JSONLines" | "NDJSON" => Box::new(TextInput::new(TextKind::JsonEachRow, schema, settings, 0)),
        "Values" => Box::new(TextInput::new(TextKind::Values, schema, settings, 0)),
        "Parquet" => Box::new(ParquetInput::new(schema, settings)?),
        other if OUTPUT_FORMATS.contains(&other) => {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Format {other} is not suitable for input")))
        }
        other => return Err(unknown_format(other)),
    })
}
