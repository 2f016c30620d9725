//! Input and output formats, with ClickHouse's names and byte-exact text rules.
//!
//! The value rules (how a `Float32`, a `DateTime64(3)` or an `Array(String)` is written
//! or read in TSV, CSV, JSON or quoted style) live in [`granary_types::text`]; this
//! crate puts values together into rows and documents: headers, delimiters, JSON
//! documents, Pretty tables, Parquet files, and the streaming parsers that turn bytes
//! arriving in any split into Arrow batches of a target schema.
//!
//! Module map:
//!
//! * [`output`]: [`OutputFormat`] implementations.
//!   * `output::delimited`: `TabSeparated*`, `TSVRaw` (`Raw`, `LineAsString`), `CSV*`.
//!   * `output::custom`: `CustomSeparated*` and the escaping rules.
//!   * `output::json`: the JSON family: `JSONEachRow` (`JSONLines`, `JSONL`, `NDJSON`),
//!     `JSONCompactEachRow*`, the `Strings` variants, `PrettyJSONEachRow`,
//!     `*WithProgress`, `JSONObjectEachRow`, the `JSON`/`JSONCompact`/`JSONStrings`
//!     documents, `JSONColumns`, `JSONCompactColumns`, `JSONColumnsWithMetadata`.
//!   * `output::pretty`: `Pretty`, `PrettyCompact`, `PrettySpace` (and their `NoEscapes`
//!     and `MonoBlock` names); `output::vertical`: `Vertical`; `output::markdown`:
//!     `Markdown` (`MD`).
//!   * `output::xml`, `output::tskv`, `output::sql_insert`, `output::raw_blob`.
//!   * `output::native`: `Native` (ClickHouse's columnar blocks, `client_protocol_version` aware).
//!   * `output::rowbinary`: `RowBinary`, `RowBinaryWithNames`, `RowBinaryWithNamesAndTypes`.
//!   * `output::ipc`: `Arrow` (IPC file), `ArrowStream` (IPC stream).
//!   * `output::values`, `output::parquet`, and `Null` in `output`.
//! * [`input`]: [`InputFormat`] implementations.
//!   * `input::rows`: the shared machinery: column builders, row numbering, bad-row
//!     accounting (`input_format_allow_errors_*`), block cutting, and the streaming
//!     driver that finds complete rows in pushed bytes.
//!   * `input::delimited`: `TabSeparated*`, `TSVRaw*` (`Raw*`), `CSV*` (header matching by name).
//!   * `input::json`: `JSONEachRow`, `JSONStringsEachRow`, `JSONObjectEachRow`,
//!     `JSONAsString`, and the resumable scanner of JSON values they share;
//!     `input::json_compact`: `JSONCompact(Strings)EachRow*`; `input::json_columns`:
//!     `JSONColumns`, `JSONCompactColumns`; `input::json_document`: `JSON`,
//!     `JSONCompact`, `JSONColumnsWithMetadata`.
//!   * `input::custom`: `CustomSeparated*`; `input::tskv`: `TSKV`; `input::lines`:
//!     `LineAsString`, `RawBLOB`.
//!   * `input::values`: `Values` (literals only; expressions are a SYNTAX_ERROR so the
//!     caller can fall back to evaluating them).
//!   * `input::parquet`: `Parquet` (spooled to a temporary file, decoded at the end).
//!   * `input::native`, `input::rowbinary`, `input::ipc`: the binary formats; they and
//!     Parquet fit their columns to the target with `input::conform`.
//! * `binary`: ClickHouse's binary value encoding shared by Native and RowBinary.
//!
//! Format names are case-sensitive, as in ClickHouse; an unknown name is
//! UNKNOWN_FORMAT (`Unknown format X`), and an output-only format used for input is
//! BAD_ARGUMENTS.

mod binary;
pub mod input;
pub mod output;

use std::time::Duration;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use chrono_tz::Tz;
use granary_common::{Error, ErrorCode, Result, Settings};
use granary_types::text::{DateTimeInputFormat, TextOptions};

use crate::input::ipc::ArrowInput;
use crate::input::delimited::{DelimitedInput, Dialect};
use crate::input::custom::CustomSeparatedInput;
use crate::input::json::{JsonAsStringInput, JsonEachRowInput, JsonObjectEachRowInput};
use crate::input::json_columns::JsonColumnsInput;
use crate::input::json_compact::JsonCompactEachRowInput;
use crate::input::lines::{LineAsStringInput, RawBlobInput};
use crate::input::tskv::TskvInput;
use crate::input::json_document::JsonDocumentInput;
use crate::input::native::NativeInput;
use crate::input::parquet::ParquetInput;
use crate::input::rowbinary::{Header, RowBinaryInput};
use crate::input::values::ValuesInput;
use crate::output::ipc::ArrowOutput;
use crate::output::delimited::Delimited;
use crate::output::custom::CustomSeparated;
use crate::output::json::{DocumentData, EachRow, JsonColumns, JsonDocument, JsonEachRow};
use crate::output::markdown::Markdown;
use crate::output::native::NativeOutput;
use crate::output::parquet::ParquetOutput;
use crate::output::pretty::{Pretty, PrettyStyle};
use crate::output::raw_blob::RawBlob;
use crate::output::rowbinary::RowBinaryOutput;
use crate::output::sql_insert::SqlInsert;
use crate::output::tskv::Tskv;
use crate::output::values::Values;
use crate::output::vertical::Vertical;
use crate::output::xml::Xml;
use crate::output::NullOutput;

/// Format settings, resolved once per query from the query's [`Settings`].
#[derive(Debug, Clone)]
pub struct FormatSettings {
    /// Value rules: time zone, JSON quoting, CSV delimiter, NULL as default, DateTime input.
    pub text: TextOptions,
    /// `output_format_pretty_max_rows`.
    pub pretty_max_rows: u64,
    /// `output_format_pretty_max_column_pad_width`.
    pub pretty_max_column_pad_width: u64,
    /// `output_format_pretty_max_value_width`.
    pub pretty_max_value_width: u64,
    /// `output_format_pretty_row_numbers`.
    pub pretty_row_numbers: bool,
    /// `output_format_pretty_display_footer_column_names_min_rows` (0: never).
    pub pretty_footer_min_rows: u64,
    /// `output_format_pretty_single_large_number_tip_threshold` (0: never).
    pub pretty_number_tip_threshold: u64,
    /// `output_format_write_statistics`: the `statistics` object of JSON documents.
    pub write_statistics: bool,
    /// `input_format_skip_unknown_fields`.
    pub skip_unknown_fields: bool,
    /// `input_format_allow_errors_num`.
    pub allow_errors_num: u64,
    /// `input_format_allow_errors_ratio`.
    pub allow_errors_ratio: f64,
    /// `format_csv_allow_single_quotes`.
    pub csv_allow_single_quotes: bool,
    /// `output_format_csv_crlf_end_of_line`.
    pub csv_crlf_end_of_line: bool,
    /// `format_csv_allow_double_quotes`.
    pub csv_allow_double_quotes: bool,
    /// `input_format_with_names_use_header`: match `*WithNames` columns by the header.
    pub with_names_use_header: bool,
    /// Threads that parse one text stream (1 when `input_format_parallel_parsing = 0`).
    pub parsing_threads: usize,
    /// `min_chunk_bytes_for_parallel_parsing`.
    pub min_chunk_bytes_for_parallel_parsing: usize,
    /// Rows per batch produced by input formats (the caller sets it from
    /// `max_insert_block_size` for INSERT).
    pub max_block_rows: usize,
    /// `client_protocol_version` (an HTTP parameter in ClickHouse, 0 when absent): the
    /// client's protocol revision, which shapes `Native` output.
    pub client_protocol_version: u64,
    /// `output_format_arrow_string_as_string`: `String` as Arrow strings, not binary.
    pub arrow_string_as_string: bool,
    /// `output_format_pretty_max_column_name_width_cut_to` (0: names are never cut).
    pub pretty_name_cut_to: u64,
    /// `output_format_pretty_max_column_name_width_min_chars_to_cut`.
    pub pretty_name_min_chars_to_cut: u64,
    /// `output_format_markdown_escape_special_characters`.
    pub markdown_escape_special_characters: bool,
    /// `output_format_json_array_of_rows`: JSONEachRow as one array.
    pub json_array_of_rows: bool,
    /// `format_json_object_each_row_column_for_object_name` (empty: none).
    pub json_object_name_column: String,
    /// `output_format_sql_insert_*`.
    pub sql_insert: SqlInsertSettings,
    /// `format_custom_*`: the `CustomSeparated` formats.
    pub custom: CustomSettings,
    /// `output_format_avro_codec`.
    pub avro_codec: String,
    /// `format_regexp*`: the `Regexp` input format.
    pub regexp: RegexpSettings,
}

/// What the `SQLInsert` output writes around the values.
#[derive(Debug, Clone)]
pub struct SqlInsertSettings {
    pub table_name: String,
    pub include_column_names: bool,
    pub use_replace: bool,
    pub quote_names: bool,
    /// Rows per statement.
    pub max_batch_size: u64,
}

/// The settings of the `Regexp` input format.
#[derive(Debug, Clone)]
pub struct RegexpSettings {
    /// `format_regexp`, as written.
    pub pattern: String,
    /// `format_regexp_escaping_rule`, as written.
    pub escaping_rule: String,
    /// `format_regexp_skip_unmatched`.
    pub skip_unmatched: bool,
}

/// The delimiters and escaping rule of the `CustomSeparated` formats.
#[derive(Debug, Clone)]
pub struct CustomSettings {
    /// `Escaped`, `Quoted`, `CSV`, `JSON`, `XML`, `Raw` or `None`, as written in the setting.
    pub escaping_rule: String,
    pub field_delimiter: String,
    pub row_before_delimiter: String,
    pub row_after_delimiter: String,
    pub row_between_delimiter: String,
    pub result_before_delimiter: String,
    pub result_after_delimiter: String,
}

impl Default for FormatSettings {
    fn default() -> Self {
        FormatSettings::from_settings(&Settings::new(), Tz::UTC)
    }
}

/// Reads the settings [`FormatSettings`] is made of; in debug builds it checks each name
/// against [`is_format_setting`], which decides when the cached defaults can be used.
struct FormatSettingsReader<'a>(&'a Settings);

impl<'a> FormatSettingsReader<'a> {
    fn get(&self, name: &str) -> Option<&'a str> {
        debug_assert!(is_format_setting(name), "{name} is read by FormatSettings: add it to is_format_setting");
        self.0.get(name)
    }

    fn get_str(&self, name: &str) -> &'a str {
        self.get(name).unwrap_or("")
    }

    fn get_u64(&self, name: &str) -> u64 {
        self.get(name).and_then(|v| v.parse().ok()).unwrap_or(0)
    }

    fn get_f64(&self, name: &str) -> f64 {
        self.get(name).and_then(|v| v.parse().ok()).unwrap_or(0.0)
    }

    fn max_threads(&self) -> usize {
        debug_assert!(is_format_setting("max_threads"));
        self.0.max_threads()
    }

    /// A setting's value, or ClickHouse's default when the registry does not know it.
    fn flag(&self, name: &str, default: bool) -> bool {
        self.get(name).map_or(default, |v| matches!(v, "1" | "true"))
    }

    fn number(&self, name: &str, default: u64) -> u64 {
        self.get(name).and_then(|v| v.parse().ok()).unwrap_or(default)
    }
}

/// Whether `name` is one of the settings [`FormatSettings`] is made of.
fn is_format_setting(name: &str) -> bool {
    ["output_format_", "input_format_", "format_"].iter().any(|prefix| name.starts_with(prefix))
        || matches!(name, "date_time_input_format" | "max_block_size" | "max_threads" | "min_chunk_bytes_for_parallel_parsing" | "client_protocol_version")
}

impl FormatSettings {
    pub fn from_settings(settings: &Settings, timezone: Tz) -> Self {
        // Most queries change none of these settings, and reading the ~45 of them costs
        // more than the rest of a key-value lookup's setup: their values are the defaults'.
        if settings.changed().all(|(name, _)| !is_format_setting(name)) {
            static DEFAULTS: std::sync::LazyLock<FormatSettings> = std::sync::LazyLock::new(|| FormatSettings::read(&Settings::new(), Tz::UTC));
            let mut defaults = DEFAULTS.clone();
            defaults.text.timezone = timezone;
            return defaults;
        }
        Self::read(settings, timezone)
    }

    fn read(settings: &Settings, timezone: Tz) -> Self {
        let reader = FormatSettingsReader(settings);
        let delimiter = reader.get_str("format_csv_delimiter").bytes().next().unwrap_or(b',');
        FormatSettings {
            text: TextOptions {
                timezone,
                json_quote_64bit_integers: reader.flag("output_format_json_quote_64bit_integers", false),
                json_quote_denormals: reader.flag("output_format_json_quote_denormals", false),
                json_escape_forward_slashes: reader.flag("output_format_json_escape_forward_slashes", true),
                json_named_tuples_as_objects: reader.flag("output_format_json_named_tuples_as_objects", true),
                json_quote_decimals: reader.flag("output_format_json_quote_decimals", false),
                decimal_trailing_zeros: reader.flag("output_format_decimal_trailing_zeros", false),
                csv_delimiter: delimiter,
                date_time_input_format: DateTimeInputFormat::from_setting(reader.get_str("date_time_input_format")),
                null_as_default: reader.flag("input_format_null_as_default", true),
                integers_wrap: true,
            },
            pretty_max_rows: reader.number("output_format_pretty_max_rows", 10_000).max(1),
            pretty_max_column_pad_width: reader.number("output_format_pretty_max_column_pad_width", 250),
            pretty_max_value_width: reader.number("output_format_pretty_max_value_width", 10_000),
            pretty_row_numbers: reader.flag("output_format_pretty_row_numbers", true),
            pretty_footer_min_rows: if reader.flag("output_format_pretty_display_footer_column_names", true) {
                reader.number("output_format_pretty_display_footer_column_names_min_rows", 50)
            } else {
                0
            },
            pretty_number_tip_threshold: reader.number("output_format_pretty_single_large_number_tip_threshold", 1_000_000),
            write_statistics: reader.flag("output_format_write_statistics", true),
            skip_unknown_fields: reader.flag("input_format_skip_unknown_fields", true),
            allow_errors_num: reader.get_u64("input_format_allow_errors_num"),
            allow_errors_ratio: reader.get_f64("input_format_allow_errors_ratio"),
            csv_allow_single_quotes: reader.flag("format_csv_allow_single_quotes", false),
            csv_crlf_end_of_line: reader.flag("output_format_csv_crlf_end_of_line", false),
            csv_allow_double_quotes: reader.flag("format_csv_allow_double_quotes", true),
            with_names_use_header: reader.flag("input_format_with_names_use_header", true),
            max_block_rows: reader.get_u64("max_block_size").max(1) as usize,
            parsing_threads: if reader.flag("input_format_parallel_parsing", true) { reader.max_threads() } else { 1 },
            min_chunk_bytes_for_parallel_parsing: reader.number("min_chunk_bytes_for_parallel_parsing", 10 << 20) as usize,
            client_protocol_version: reader.number("client_protocol_version", 0),
            arrow_string_as_string: reader.flag("output_format_arrow_string_as_string", true),
            pretty_name_cut_to: reader.number("output_format_pretty_max_column_name_width_cut_to", 24),
            pretty_name_min_chars_to_cut: reader.number("output_format_pretty_max_column_name_width_min_chars_to_cut", 4),
            markdown_escape_special_characters: reader.flag("output_format_markdown_escape_special_characters", false),
            json_array_of_rows: reader.flag("output_format_json_array_of_rows", false),
            json_object_name_column: reader.get_str("format_json_object_each_row_column_for_object_name").to_string(),
            sql_insert: SqlInsertSettings {
                table_name: reader.get("output_format_sql_insert_table_name").unwrap_or("table").to_string(),
                include_column_names: reader.flag("output_format_sql_insert_include_column_names", true),
                use_replace: reader.flag("output_format_sql_insert_use_replace", false),
                quote_names: reader.flag("output_format_sql_insert_quote_names", true),
                max_batch_size: reader.number("output_format_sql_insert_max_batch_size", 65409),
            },
            avro_codec: reader.get_str("output_format_avro_codec").to_string(),
            regexp: RegexpSettings {
                pattern: reader.get_str("format_regexp").to_string(),
                escaping_rule: reader.get("format_regexp_escaping_rule").unwrap_or("Raw").to_string(),
                skip_unmatched: reader.flag("format_regexp_skip_unmatched", false),
            },
            custom: CustomSettings {
                escaping_rule: reader.get("format_custom_escaping_rule").unwrap_or("Escaped").to_string(),
                field_delimiter: reader.get("format_custom_field_delimiter").unwrap_or("\t").to_string(),
                row_before_delimiter: reader.get_str("format_custom_row_before_delimiter").to_string(),
                row_after_delimiter: reader.get("format_custom_row_after_delimiter").unwrap_or("\n").to_string(),
                row_between_delimiter: reader.get_str("format_custom_row_between_delimiter").to_string(),
                result_before_delimiter: reader.get_str("format_custom_result_before_delimiter").to_string(),
                result_after_delimiter: reader.get_str("format_custom_result_after_delimiter").to_string(),
            },
        }
    }

    /// The session (or server) time zone.
    pub fn timezone(&self) -> Tz {
        self.text.timezone
    }
}

/// What JSON formats report in `statistics`.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryStatistics {
    pub elapsed: Duration,
    pub rows_read: u64,
    pub bytes_read: u64,
    /// `rows_before_limit_at_least`: the rows that reached the query's LIMIT, when it has one.
    pub rows_before_limit: Option<u64>,
}

/// A result writer. Calls come in the order prefix, batches, suffix; each appends to
/// `out`, which the caller flushes to the client when it likes.
pub trait OutputFormat: Send {
    /// The Content-Type ClickHouse sends for this format.
    fn content_type(&self) -> &'static str;
    fn write_prefix(&mut self, out: &mut Vec<u8>) -> Result<()>;
    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<()>;
    /// The `WITH TOTALS` row (one row, the result's schema), after the last batch and
    /// before the suffix. Formats without a place for it (JSONEachRow, Values, binary
    /// formats) leave it out, as ClickHouse does.
    fn write_totals(&mut self, _totals: &RecordBatch, _out: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
    fn write_suffix(&mut self, stats: &QueryStatistics, out: &mut Vec<u8>) -> Result<()>;
}

/// A streaming parser.
pub trait InputFormat: Send {
    /// Feeds the next bytes of the stream (any split, even mid-row); appends finished
    /// batches of at most `max_block_rows` rows to `out`.
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()>;
    /// End of stream: parses what is left (a last row without a trailing newline is
    /// fine) and appends the last batch.
    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()>;
}

const OUTPUT_FORMATS: &[&str] = &[
    "TabSeparated",
    "TSV",
    "TabSeparatedRaw",
    "TSVRaw",
    "Raw",
    "LineAsString",
    "TabSeparatedWithNames",
    "TSVWithNames",
    "TabSeparatedWithNamesAndTypes",
    "TSVWithNamesAndTypes",
    "TabSeparatedRawWithNames",
    "TSVRawWithNames",
    "RawWithNames",
    "LineAsStringWithNames",
    "TabSeparatedRawWithNamesAndTypes",
    "TSVRawWithNamesAndTypes",
    "RawWithNamesAndTypes",
    "LineAsStringWithNamesAndTypes",
    "CSV",
    "CSVWithNames",
    "CSVWithNamesAndTypes",
    "CustomSeparated",
    "CustomSeparatedWithNames",
    "CustomSeparatedWithNamesAndTypes",
    "TSKV",
    "Avro",
    "JSONEachRow",
    "JSONLines",
    "JSONL",
    "NDJSON",
    "JSONStringsEachRow",
    "PrettyJSONEachRow",
    "PrettyJSONLines",
    "PrettyNDJSON",
    "JSONEachRowWithProgress",
    "JSONStringsEachRowWithProgress",
    "JSONCompactEachRow",
    "JSONCompactEachRowWithNames",
    "JSONCompactEachRowWithNamesAndTypes",
    "JSONCompactStringsEachRow",
    "JSONCompactStringsEachRowWithNames",
    "JSONCompactStringsEachRowWithNamesAndTypes",
    "JSONCompactEachRowWithProgress",
    "JSONCompactStringsEachRowWithProgress",
    "JSONObjectEachRow",
    "JSON",
    "JSONCompact",
    "JSONStrings",
    "JSONCompactStrings",
    "JSONColumns",
    "JSONCompactColumns",
    "JSONColumnsWithMetadata",
    "XML",
    "Values",
    "SQLInsert",
    "Vertical",
    "Markdown",
    "MD",
    "Pretty",
    "PrettyCompact",
    "PrettySpace",
    "PrettyNoEscapes",
    "PrettyCompactNoEscapes",
    "PrettySpaceNoEscapes",
    "PrettyMonoBlock",
    "PrettyCompactMonoBlock",
    "PrettySpaceMonoBlock",
    "PrettyNoEscapesMonoBlock",
    "PrettyCompactNoEscapesMonoBlock",
    "PrettySpaceNoEscapesMonoBlock",
    "Null",
    "Parquet",
    "Native",
    "RowBinary",
    "RowBinaryWithNames",
    "RowBinaryWithNamesAndTypes",
    "RawBLOB",
    "Arrow",
    "ArrowStream",
];

const INPUT_FORMATS: &[&str] = &[
    "TabSeparated",
    "TSV",
    "TabSeparatedRaw",
    "TSVRaw",
    "Raw",
    "TabSeparatedWithNames",
    "TSVWithNames",
    "TabSeparatedWithNamesAndTypes",
    "TSVWithNamesAndTypes",
    "TabSeparatedRawWithNames",
    "TSVRawWithNames",
    "RawWithNames",
    "TabSeparatedRawWithNamesAndTypes",
    "TSVRawWithNamesAndTypes",
    "RawWithNamesAndTypes",
    "CSV",
    "CSVWithNames",
    "CSVWithNamesAndTypes",
    "CustomSeparated",
    "CustomSeparatedWithNames",
    "CustomSeparatedWithNamesAndTypes",
    "TSKV",
    "JSONEachRow",
    "JSONLines",
    "JSONL",
    "NDJSON",
    "JSONStringsEachRow",
    "JSONCompactEachRow",
    "JSONCompactEachRowWithNames",
    "JSONCompactEachRowWithNamesAndTypes",
    "JSONCompactStringsEachRow",
    "JSONCompactStringsEachRowWithNames",
    "JSONCompactStringsEachRowWithNamesAndTypes",
    "JSONObjectEachRow",
    "JSON",
    "JSONCompact",
    "JSONColumns",
    "JSONCompactColumns",
    "JSONColumnsWithMetadata",
    "JSONAsString",
    "LineAsString",
    "Regexp",
    "Avro",
    "RawBLOB",
    "Values",
    "Parquet",
    "Native",
    "RowBinary",
    "RowBinaryWithNames",
    "RowBinaryWithNamesAndTypes",
    "Arrow",
    "ArrowStream",
];

/// Every output format name (aliases included), for `system.formats`.
pub fn output_format_names() -> &'static [&'static str] {
    OUTPUT_FORMATS
}

/// Every input format name (aliases included), for `system.formats`.
pub fn input_format_names() -> &'static [&'static str] {
    INPUT_FORMATS
}

fn unknown_format(name: &str) -> Error {
    Error::new(ErrorCode::UNKNOWN_FORMAT, format!("Unknown format {name}"))
}

/// The writer of an output format for results of `schema`.
pub fn create_output_format(name: &str, schema: SchemaRef, settings: &FormatSettings) -> Result<Box<dyn OutputFormat>> {
    use crate::output::delimited::Kind as D;
    Ok(match name {
        "TabSeparated" | "TSV" => Box::new(Delimited::new(schema, D::Tsv, false, false, settings)),
        "TabSeparatedRaw" | "TSVRaw" | "Raw" | "LineAsString" => Box::new(Delimited::new(schema, D::TsvRaw, false, false, settings)),
        "TabSeparatedWithNames" | "TSVWithNames" => Box::new(Delimited::new(schema, D::Tsv, true, false, settings)),
        "TabSeparatedWithNamesAndTypes" | "TSVWithNamesAndTypes" => Box::new(Delimited::new(schema, D::Tsv, true, true, settings)),
        "TabSeparatedRawWithNames" | "TSVRawWithNames" | "RawWithNames" | "LineAsStringWithNames" => {
            Box::new(Delimited::new(schema, D::TsvRaw, true, false, settings))
        }
        "TabSeparatedRawWithNamesAndTypes" | "TSVRawWithNamesAndTypes" | "RawWithNamesAndTypes" | "LineAsStringWithNamesAndTypes" => {
            Box::new(Delimited::new(schema, D::TsvRaw, true, true, settings))
        }
        "CSV" => Box::new(Delimited::new(schema, D::Csv, false, false, settings)),
        "CSVWithNames" => Box::new(Delimited::new(schema, D::Csv, true, false, settings)),
        "CSVWithNamesAndTypes" => Box::new(Delimited::new(schema, D::Csv, true, true, settings)),
        "CustomSeparated" => Box::new(CustomSeparated::new(schema, false, false, settings)?),
        "CustomSeparatedWithNames" => Box::new(CustomSeparated::new(schema, true, false, settings)?),
        "CustomSeparatedWithNamesAndTypes" => Box::new(CustomSeparated::new(schema, true, true, settings)?),
        "TSKV" => Box::new(Tskv::new(schema, settings)),
        "Avro" => Box::new(crate::output::avro::AvroOutput::new(schema, &settings.avro_codec)?),
        "JSONEachRow" | "JSONLines" | "JSONL" | "NDJSON" => Box::new(JsonEachRow::new(schema, EachRow::Object, false, settings)),
        "JSONStringsEachRow" => Box::new(JsonEachRow::new(schema, EachRow::Object, true, settings)),
        "PrettyJSONEachRow" | "PrettyJSONLines" | "PrettyNDJSON" => Box::new(JsonEachRow::new(schema, EachRow::Pretty, false, settings)),
        "JSONEachRowWithProgress" => Box::new(JsonEachRow::new(schema, EachRow::Object, false, settings).with_progress()),
        "JSONStringsEachRowWithProgress" => Box::new(JsonEachRow::new(schema, EachRow::Object, true, settings).with_progress()),
        "JSONCompactEachRow" => Box::new(JsonEachRow::new(schema, EachRow::Compact, false, settings)),
        "JSONCompactEachRowWithNames" => Box::new(JsonEachRow::new(schema, EachRow::Compact, false, settings).with_header(false)),
        "JSONCompactEachRowWithNamesAndTypes" => Box::new(JsonEachRow::new(schema, EachRow::Compact, false, settings).with_header(true)),
        "JSONCompactStringsEachRow" => Box::new(JsonEachRow::new(schema, EachRow::Compact, true, settings)),
        "JSONCompactStringsEachRowWithNames" => Box::new(JsonEachRow::new(schema, EachRow::Compact, true, settings).with_header(false)),
        "JSONCompactStringsEachRowWithNamesAndTypes" => Box::new(JsonEachRow::new(schema, EachRow::Compact, true, settings).with_header(true)),
        "JSONCompactEachRowWithProgress" => Box::new(JsonEachRow::new(schema, EachRow::Compact, false, settings).with_progress()),
        "JSONCompactStringsEachRowWithProgress" => Box::new(JsonEachRow::new(schema, EachRow::Compact, true, settings).with_progress()),
        "JSONObjectEachRow" => Box::new(JsonEachRow::object_of_rows(schema, settings)?),
        "JSON" => Box::new(JsonDocument::new(schema, DocumentData::Objects, false, settings)),
        "JSONCompact" => Box::new(JsonDocument::new(schema, DocumentData::Arrays, false, settings)),
        "JSONStrings" => Box::new(JsonDocument::new(schema, DocumentData::Objects, true, settings)),
        "JSONCompactStrings" => Box::new(JsonDocument::new(schema, DocumentData::Arrays, true, settings)),
        "JSONColumnsWithMetadata" => Box::new(JsonDocument::new(schema, DocumentData::Columns, false, settings)),
        "JSONColumns" => Box::new(JsonColumns::new(schema, false, settings)),
        "JSONCompactColumns" => Box::new(JsonColumns::new(schema, true, settings)),
        "XML" => Box::new(Xml::new(schema, settings)),
        "Values" => Box::new(Values::new(schema, settings)),
        "SQLInsert" => Box::new(SqlInsert::new(schema, settings)),
        "Vertical" => Box::new(Vertical::new(schema, settings)),
        "Markdown" | "MD" => Box::new(Markdown::new(schema, settings)),
        // Granary writes a Pretty table once, at the end: the MonoBlock variants are the
        // same, and NoEscapes only drops colors, which HTTP output never has.
        "Pretty" | "PrettyNoEscapes" | "PrettyMonoBlock" | "PrettyNoEscapesMonoBlock" => Box::new(Pretty::new(schema, PrettyStyle::Full, settings)),
        "PrettyCompact" | "PrettyCompactMonoBlock" | "PrettyCompactNoEscapes" | "PrettyCompactNoEscapesMonoBlock" => {
            Box::new(Pretty::new(schema, PrettyStyle::Compact, settings))
        }
        "PrettySpace" | "PrettySpaceNoEscapes" | "PrettySpaceMonoBlock" | "PrettySpaceNoEscapesMonoBlock" => Box::new(Pretty::new(schema, PrettyStyle::Space, settings)),
        "Null" => Box::new(NullOutput),
        "Parquet" => Box::new(ParquetOutput::new(schema)?),
        "Native" => Box::new(NativeOutput::new(schema, settings)),
        "RowBinary" => Box::new(RowBinaryOutput::new(schema, false, false)),
        "RowBinaryWithNames" => Box::new(RowBinaryOutput::new(schema, true, false)),
        "RowBinaryWithNamesAndTypes" => Box::new(RowBinaryOutput::new(schema, true, true)),
        "RawBLOB" => Box::new(RawBlob::new(schema)),
        "Arrow" => Box::new(ArrowOutput::new(schema, false, settings)?),
        "ArrowStream" => Box::new(ArrowOutput::new(schema, true, settings)?),
        other => return Err(unknown_format(other)),
    })
}

/// The parser of an input format producing batches of `schema` (the target columns,
/// with their ClickHouse types as [`granary_types::ChType::from_field`] reads them).
pub fn create_input_format(name: &str, schema: SchemaRef, settings: &FormatSettings) -> Result<Box<dyn InputFormat>> {
    Ok(match name {
        "TabSeparated" | "TSV" => Box::new(DelimitedInput::new(schema, Dialect::Tsv, 0, settings)?),
        "TabSeparatedRaw" | "TSVRaw" | "Raw" => Box::new(DelimitedInput::new(schema, Dialect::TsvRaw, 0, settings)?),
        "TabSeparatedWithNames" | "TSVWithNames" => Box::new(DelimitedInput::new(schema, Dialect::Tsv, 1, settings)?),
        "TabSeparatedWithNamesAndTypes" | "TSVWithNamesAndTypes" => Box::new(DelimitedInput::new(schema, Dialect::Tsv, 2, settings)?),
        "TabSeparatedRawWithNames" | "TSVRawWithNames" | "RawWithNames" => Box::new(DelimitedInput::new(schema, Dialect::TsvRaw, 1, settings)?),
        "TabSeparatedRawWithNamesAndTypes" | "TSVRawWithNamesAndTypes" | "RawWithNamesAndTypes" => {
            Box::new(DelimitedInput::new(schema, Dialect::TsvRaw, 2, settings)?)
        }
        "CSV" => Box::new(DelimitedInput::new(schema, Dialect::Csv, 0, settings)?),
        "CSVWithNames" => Box::new(DelimitedInput::new(schema, Dialect::Csv, 1, settings)?),
        "CSVWithNamesAndTypes" => Box::new(DelimitedInput::new(schema, Dialect::Csv, 2, settings)?),
        "CustomSeparated" => Box::new(CustomSeparatedInput::new(schema, 0, settings)?),
        "CustomSeparatedWithNames" => Box::new(CustomSeparatedInput::new(schema, 1, settings)?),
        "CustomSeparatedWithNamesAndTypes" => Box::new(CustomSeparatedInput::new(schema, 2, settings)?),
        "TSKV" => Box::new(TskvInput::new(schema, settings)?),
        "JSONEachRow" | "JSONLines" | "JSONL" | "NDJSON" => Box::new(JsonEachRowInput::new(schema, false, settings)?),
        "JSONStringsEachRow" => Box::new(JsonEachRowInput::new(schema, true, settings)?),
        "JSONCompactEachRow" => Box::new(JsonCompactEachRowInput::new(schema, false, 0, settings)?),
        "JSONCompactEachRowWithNames" => Box::new(JsonCompactEachRowInput::new(schema, false, 1, settings)?),
        "JSONCompactEachRowWithNamesAndTypes" => Box::new(JsonCompactEachRowInput::new(schema, false, 2, settings)?),
        "JSONCompactStringsEachRow" => Box::new(JsonCompactEachRowInput::new(schema, true, 0, settings)?),
        "JSONCompactStringsEachRowWithNames" => Box::new(JsonCompactEachRowInput::new(schema, true, 1, settings)?),
        "JSONCompactStringsEachRowWithNamesAndTypes" => Box::new(JsonCompactEachRowInput::new(schema, true, 2, settings)?),
        "JSONObjectEachRow" => Box::new(JsonObjectEachRowInput::new(schema, settings)?),
        "JSON" | "JSONColumnsWithMetadata" => Box::new(JsonDocumentInput::new(schema, false, settings)?),
        "JSONCompact" => Box::new(JsonDocumentInput::new(schema, true, settings)?),
        "JSONColumns" => Box::new(JsonColumnsInput::new(schema, false, settings)?),
        "JSONCompactColumns" => Box::new(JsonColumnsInput::new(schema, true, settings)?),
        "JSONAsString" => Box::new(JsonAsStringInput::new(schema, settings)?),
        "LineAsString" => Box::new(LineAsStringInput::new(schema, settings)?),
        "Regexp" => Box::new(crate::input::regexp::RegexpInput::new(schema, settings)?),
        "Avro" => Box::new(crate::input::avro::AvroInput::new(schema, settings)),
        "RawBLOB" => Box::new(RawBlobInput::new(schema, settings)?),
        "Values" => Box::new(ValuesInput::new(schema, settings)?),
        "Parquet" => Box::new(ParquetInput::new(schema, settings)?),
        "Native" => Box::new(NativeInput::new(schema, settings)),
        "RowBinary" => Box::new(RowBinaryInput::new(schema, Header::None, settings)?),
        "RowBinaryWithNames" => Box::new(RowBinaryInput::new(schema, Header::Names, settings)?),
        "RowBinaryWithNamesAndTypes" => Box::new(RowBinaryInput::new(schema, Header::NamesAndTypes, settings)?),
        "Arrow" => Box::new(ArrowInput::new(schema, true, settings)),
        "ArrowStream" => Box::new(ArrowInput::new(schema, false, settings)),
        other if OUTPUT_FORMATS.contains(&other) => {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Format {other} is not suitable for input")))
        }
        other => return Err(unknown_format(other)),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("x", DataType::UInt8, false)]))
    }

    #[test]
    fn names_are_case_sensitive_and_unknown_ones_fail() {
        let s = FormatSettings::default();
        for name in OUTPUT_FORMATS {
            assert!(create_output_format(name, schema(), &s).is_ok(), "{name}");
        }
        // A String column suits every input format (LineAsString and the like want one).
        let strings = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, false)]));
        // Regexp needs its expression.
        let mut with_regexp = s.clone();
        with_regexp.regexp.pattern = "(.*)".to_string();
        for name in INPUT_FORMATS {
            assert!(create_input_format(name, strings.clone(), &with_regexp).is_ok(), "{name}");
        }
        assert_eq!(create_input_format("Regexp", strings.clone(), &s).err().unwrap().code(), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(create_input_format("LineAsString", schema(), &s).err().unwrap().code(), ErrorCode::INCORRECT_QUERY);
        assert_eq!(create_input_format("Vertical", schema(), &s).err().unwrap().code(), ErrorCode::BAD_ARGUMENTS);
        let e = create_output_format("tsv", schema(), &s).err().unwrap();
        assert_eq!(e.code(), ErrorCode::UNKNOWN_FORMAT);
        assert_eq!(e.message(), "Unknown format tsv");
        assert_eq!(create_output_format("native", schema(), &s).err().unwrap().code(), ErrorCode::UNKNOWN_FORMAT);
        assert_eq!(create_output_format("Protobuf", schema(), &s).err().unwrap().code(), ErrorCode::UNKNOWN_FORMAT);
        assert_eq!(create_input_format("Pretty", schema(), &s).err().unwrap().code(), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(create_input_format("Nope", schema(), &s).err().unwrap().code(), ErrorCode::UNKNOWN_FORMAT);
    }

    #[test]
    fn settings_are_read() {
        let mut settings = Settings::new();
        settings.set("format_csv_delimiter", ";").unwrap();
        settings.set("output_format_json_quote_64bit_integers", "1").unwrap();
        settings.set("input_format_allow_errors_num", "5").unwrap();
        settings.set("date_time_input_format", "best_effort").unwrap();
        let _ = settings.set("client_protocol_version", "54405");
        let f = FormatSettings::from_settings(&settings, chrono_tz::Asia::Tokyo);
        assert_eq!(f.text.csv_delimiter, b';');
        assert!(f.text.json_quote_64bit_integers);
        assert_eq!(f.allow_errors_num, 5);
        assert_eq!(f.timezone(), chrono_tz::Asia::Tokyo);
        assert_eq!(f.text.date_time_input_format, DateTimeInputFormat::BestEffort);
        if settings.get("client_protocol_version").is_some() {
            assert_eq!(f.client_protocol_version, 54405);
        }
    }
}

#[cfg(test)]
mod format_settings_tests {
    use super::*;

    #[test]
    fn defaults_are_shared_until_a_format_setting_changes() {
        let mut settings = Settings::new();
        settings.set("max_memory_usage", "1000000").unwrap();
        let berlin: Tz = "Europe/Berlin".parse().unwrap();
        let shared = FormatSettings::from_settings(&settings, berlin);
        assert_eq!(shared.timezone(), berlin);
        assert_eq!(shared.pretty_max_rows, 10_000);
        // Every name the reader touches passes its debug check.
        let read = FormatSettings::read(&settings, berlin);
        assert_eq!((read.pretty_max_rows, read.csv_crlf_end_of_line), (shared.pretty_max_rows, shared.csv_crlf_end_of_line));

        settings.set("output_format_pretty_max_rows", "7").unwrap();
        settings.set("format_csv_delimiter", ";").unwrap();
        let changed = FormatSettings::from_settings(&settings, berlin);
        assert_eq!((changed.pretty_max_rows, changed.text.csv_delimiter), (7, b';'));
    }
}
