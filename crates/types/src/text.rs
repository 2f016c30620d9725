//! ClickHouse's text rules for values: how each type is printed in each escaping style,
//! and how text is read back into typed Arrow columns.
//!
//! Output is vectorized: a [`ColumnWriter`] resolves the ClickHouse type of a column once
//! (downcasts the Arrow array, picks the time zone, the `DateTime64` precision, the tuple
//! element names...) and then appends the text of any row to a byte buffer without
//! further type dispatch beyond one `match` on a prepared variant.
//!
//! Input is the mirror image: a [`ColumnBuilder`] is made once per column and appends
//! values parsed from field text ([`ColumnBuilder::parse_text`]), from the quoted literal
//! syntax of `Values` and of nested values ([`ColumnBuilder::parse_quoted`]) or from JSON
//! ([`ColumnBuilder::parse_json`]), and yields an Arrow array of exactly the target
//! field's type.
//!
//! Module map:
//!
//! * [`float`]: shortest round-trip float text (`0.1`, `1e21`, `1e-7`, `-0`, `nan`, `inf`).
//! * [`datetime`]: civil dates, time zones, `Date`/`DateTime`/`DateTime64` text both ways.
//! * [`time`]: `Time`/`Time64` text (signed durations up to 999:59:59).
//! * [`escape`]: string escaping and unescaping per style (TSV, CSV, JSON, quoted).
//! * [`write`]: [`ColumnWriter`] and [`array_to_strings`] (the `toString` rules).
//! * [`read`]: [`ColumnBuilder`], the scalar parsers and the quoted/JSON value readers.
//!
//! Every rule here was checked against ClickHouse 26.9 (chdb); the golden tests of the
//! formats crate compare whole outputs byte for byte.

pub mod datetime;
pub mod escape;
pub mod float;
pub mod read;
pub mod time;
pub mod write;

use chrono_tz::Tz;

pub use read::{ColumnBuilder, DateTimeInputFormat};
pub use write::{array_to_strings, ColumnWriter};

/// How values are escaped and quoted; one per family of formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextStyle {
    /// TabSeparated: strings with backslash escapes (`\t \n \\ \' \0 \b \f \r`), NULL `\N`.
    Tsv,
    /// CSV: strings, dates and composites in double quotes (`"` doubled), numbers bare,
    /// NULL `\N`, a top-level tuple as separate fields.
    Csv,
    /// JSON: JSON strings and numbers, NULL `null`, nan/inf `null` (or quoted).
    Json,
    /// Values and the elements of arrays, tuples and maps: `'...'` with backslash escapes,
    /// NULL `NULL`.
    Quoted,
    /// `toString` and TabSeparatedRaw: the bytes as they are, composites in quoted style.
    Raw,
    /// Pretty formats: like `Raw`, NULL shown as `ᴺᵁᴸᴸ`.
    Pretty,
    /// XML: text content with `<` and `&` as entities, NULL `\N`, arrays, tuples and maps
    /// as `<array><elem>..</elem></array>`, `<tuple>..`, `<map><elem><key>..`.
    Xml,
}

impl TextStyle {
    /// The style of the elements of an array, tuple or map written in this style.
    pub fn nested(self) -> TextStyle {
        match self {
            TextStyle::Json => TextStyle::Json,
            TextStyle::Xml => TextStyle::Xml,
            _ => TextStyle::Quoted,
        }
    }

    /// How NULL is spelled in this style.
    pub fn null_text(self) -> &'static [u8] {
        match self {
            TextStyle::Tsv | TextStyle::Csv | TextStyle::Raw | TextStyle::Xml => b"\\N",
            TextStyle::Json => b"null",
            TextStyle::Quoted => b"NULL",
            TextStyle::Pretty => "ᴺᵁᴸᴸ".as_bytes(),
        }
    }
}

/// Settings that change how values are written or read.
#[derive(Debug, Clone)]
pub struct TextOptions {
    /// The session (or server) time zone, for `DateTime` types without their own.
    pub timezone: Tz,
    /// `output_format_json_quote_64bit_integers`: `Int64`/`UInt64` as JSON strings.
    pub json_quote_64bit_integers: bool,
    /// `output_format_json_quote_denormals`: nan/inf as `"nan"`/`"inf"` instead of `null`.
    pub json_quote_denormals: bool,
    /// `output_format_json_escape_forward_slashes`: `/` as `\/`.
    pub json_escape_forward_slashes: bool,
    /// `output_format_json_named_tuples_as_objects`: named tuples as JSON objects.
    pub json_named_tuples_as_objects: bool,
    /// `output_format_json_quote_decimals`: decimals as JSON strings.
    pub json_quote_decimals: bool,
    /// `output_format_decimal_trailing_zeros`: `1.50` instead of `1.5`.
    pub decimal_trailing_zeros: bool,
    /// `format_csv_delimiter`: separates the elements of a top-level tuple in CSV.
    pub csv_delimiter: u8,
    /// `date_time_input_format`: how `DateTime` text is read.
    pub date_time_input_format: DateTimeInputFormat,
    /// `input_format_null_as_default`: NULL read into a non-Nullable column becomes the
    /// type's default instead of an error.
    pub null_as_default: bool,
    /// Integers out of the column type's range wrap around (`1000` into Int8 is -24), as
    /// ClickHouse's input formats read them; elsewhere (query parameters) they are errors.
    pub integers_wrap: bool,
}

impl Default for TextOptions {
    /// ClickHouse's defaults, in UTC.
    fn default() -> Self {
        TextOptions {
            timezone: Tz::UTC,
            json_quote_64bit_integers: false,
            json_quote_denormals: false,
            json_escape_forward_slashes: true,
            json_named_tuples_as_objects: true,
            json_quote_decimals: false,
            decimal_trailing_zeros: false,
            csv_delimiter: b',',
            date_time_input_format: DateTimeInputFormat::Basic,
            null_as_default: true,
            integers_wrap: false,
        }
    }
}
