//! The input formats added after the first ones: each reads what Granary's output of
//! the same format writes (those outputs are byte-equal to ClickHouse's, see
//! `golden.rs`), in any split of the input, and the cases where ClickHouse's readers
//! have rules of their own (checked with chdb when these tests were written).

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use granary_common::{ErrorCode, Settings};
use granary_formats::{create_input_format, create_output_format, FormatSettings, QueryStatistics};
use granary_types::ChType;

fn schema(columns: &[(&str, &str)]) -> SchemaRef {
    Arc::new(Schema::new(columns.iter().map(|(n, t)| ChType::parse(t).unwrap().to_arrow_field(n)).collect::<Vec<_>>()))
}

fn settings_with(pairs: &[(&str, &str)]) -> FormatSettings {
    let mut s = Settings::new();
    for (k, v) in pairs {
        s.set(k, v).unwrap();
    }
    FormatSettings::from_settings(&s, chrono_tz::Tz::UTC)
}

fn settings() -> FormatSettings {
    settings_with(&[])
}

fn write(format: &str, schema: &SchemaRef, batches: &[RecordBatch], settings: &FormatSettings) -> Vec<u8> {
    let mut output = create_output_format(format, schema.clone(), settings).unwrap();
    let mut out = Vec::new();
    output.write_prefix(&mut out).unwrap();
    for b in batches {
        output.write_batch(b, &mut out).unwrap();
    }
    output.write_suffix(&QueryStatistics::default(), &mut out).unwrap();
    out
}

fn as_tsv(schema: &SchemaRef, batches: &[RecordBatch]) -> String {
    for b in batches {
        assert_eq!(b.schema(), *schema, "batches come out in exactly the target schema");
    }
    String::from_utf8(write("TabSeparated", schema, batches, &settings())).unwrap()
}

fn parse_with(format: &str, schema: &SchemaRef, chunks: &[&[u8]], settings: &FormatSettings) -> granary_common::Result<Vec<RecordBatch>> {
    let mut input = create_input_format(format, schema.clone(), settings)?;
    let mut out = Vec::new();
    for chunk in chunks {
        input.push(chunk, &mut out)?;
    }
    input.finish(&mut out)?;
    Ok(out)
}

/// Parses `data` whole, split at every byte offset and byte by byte: same result.
fn parse_every_split_with(format: &str, schema: &SchemaRef, data: &[u8], settings: &FormatSettings) -> String {
    let whole = as_tsv(schema, &parse_with(format, schema, &[data], settings).unwrap_or_else(|e| panic!("{format}: {e}")));
    for at in 0..=data.len() {
        let batches = parse_with(format, schema, &[&data[..at], &data[at..]], settings).unwrap_or_else(|e| panic!("{format} split at {at}: {e}"));
        assert_eq!(as_tsv(schema, &batches), whole, "{format} split at {at}");
    }
    let single: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(as_tsv(schema, &parse_with(format, schema, &single, settings).unwrap()), whole, "{format} byte by byte");
    whole
}

fn parse_every_split(format: &str, schema: &SchemaRef, data: &str) -> String {
    parse_every_split_with(format, schema, data.as_bytes(), &settings())
}

fn error_with(format: &str, schema: &SchemaRef, data: &str, settings: &FormatSettings) -> granary_common::Error {
    match parse_with(format, schema, &[data.as_bytes()], settings) {
        Ok(b) => panic!("{format} should fail on {data:?}, read {}", as_tsv(schema, &b)),
        Err(e) => e,
    }
}

fn error(format: &str, schema: &SchemaRef, data: &str) -> granary_common::Error {
    error_with(format, schema, data, &settings())
}

/// Types whose text forms differ between formats, NULLs, quotes, tabs and line feeds.
fn mixed() -> SchemaRef {
    schema(&[
        ("x", "UInt64"),
        ("s", "String"),
        ("a", "Array(Nullable(String))"),
        ("n", "Nullable(Float64)"),
        ("d", "DateTime('UTC')"),
        ("t", "Tuple(a UInt8, b String)"),
        ("m", "Map(String, Int32)"),
        ("e", "Enum8('a' = 1, 'b<&>' = -2)"),
        ("dec", "Decimal(9, 3)"),
        ("ip", "IPv6"),
    ])
}

const ROWS: &str = "(1, 'a\\tb\\nc\\'d\"e\\\\f/é', ['x', NULL, 'q\\'q'], 1.5, '2020-01-02 03:04:05', (7, 'p\"'), {'k': -1, 'l': 2}, 'b<&>', -1.25, '::1'),\
                    (2, '', [], NULL, '1970-01-01 00:00:00', (0, ''), {}, 'a', 0, '2001:db8::ff00:42:8329')";

fn mixed_batches(settings: &FormatSettings) -> Vec<RecordBatch> {
    parse_with("Values", &mixed(), &[ROWS.as_bytes()], settings).unwrap()
}

/// What each format's own output reads back as.
fn round_trip(format: &str, settings: &FormatSettings) {
    round_trip_columns(format, settings, &(0..mixed().fields().len()).collect::<Vec<_>>());
}

/// The same with some of the columns of [`mixed`].
fn round_trip_columns(format: &str, settings: &FormatSettings, columns: &[usize]) {
    let schema: SchemaRef = Arc::new(mixed().project(columns).unwrap());
    let batches: Vec<RecordBatch> = mixed_batches(settings).iter().map(|b| b.project(columns).unwrap()).collect();
    let expected = as_tsv(&schema, &batches);
    let data = write(format, &schema, &batches, settings);
    assert_eq!(parse_every_split_with(format, &schema, &data, settings), expected, "{format}: {}", String::from_utf8_lossy(&data));
}

#[test]
fn outputs_read_back() {
    for format in [
        "JSONStringsEachRow",
        "JSONCompactEachRow",
        "JSONCompactEachRowWithNames",
        "JSONCompactEachRowWithNamesAndTypes",
        "JSONCompactStringsEachRow",
        "JSONCompactStringsEachRowWithNames",
        "JSONCompactStringsEachRowWithNamesAndTypes",
        "JSONObjectEachRow",
        "JSONColumns",
        "JSONCompactColumns",
        "JSONColumnsWithMetadata",
        "TSKV",
        "CustomSeparated",
        "CustomSeparatedWithNames",
        "CustomSeparatedWithNamesAndTypes",
    ] {
        round_trip(format, &settings());
    }
}

#[test]
fn custom_separated_with_every_escaping_rule() {
    let frame = [
        ("format_custom_field_delimiter", "|"),
        ("format_custom_row_before_delimiter", "<"),
        ("format_custom_row_after_delimiter", ">\n"),
        ("format_custom_row_between_delimiter", "--\n"),
        ("format_custom_result_before_delimiter", "BEGIN\n"),
        ("format_custom_result_after_delimiter", "END\n"),
    ];
    for rule in ["CSV", "JSON", "Quoted"] {
        let mut pairs = frame.to_vec();
        pairs.push(("format_custom_escaping_rule", rule));
        let s = settings_with(&pairs);
        for format in ["CustomSeparated", "CustomSeparatedWithNames", "CustomSeparatedWithNamesAndTypes"] {
            if rule == "CSV" {
                // CSV writes a tuple as separate fields, which Granary does not read back
                // (nor does it in the CSV format).
                round_trip_columns(format, &s, &[0, 1, 2, 3, 4, 6, 7, 8, 9]);
            } else {
                round_trip(format, &s);
            }
        }
    }
    // Escaped with a field delimiter that cannot end a String value, as in ClickHouse.
    let s = settings_with(&[("format_custom_field_delimiter", "|")]);
    let e = parse_with("CustomSeparated", &schema(&[("x", "UInt8"), ("s", "String")]), &[b"1|a\n"], &s).err().unwrap();
    assert_eq!(e.code(), ErrorCode::BAD_ARGUMENTS);
    assert_eq!(as_tsv(&schema(&[("x", "UInt8"), ("y", "UInt8")]), &parse_with("CustomSeparated", &schema(&[("x", "UInt8"), ("y", "UInt8")]), &[b"1|2\n"], &s).unwrap()), "1\t2\n");
    // A delimiter inside a quoted value does not end the field.
    let csv = settings_with(&[("format_custom_escaping_rule", "CSV"), ("format_custom_field_delimiter", "|")]);
    let xs = schema(&[("x", "UInt8"), ("s", "String")]);
    assert_eq!(parse_every_split_with("CustomSeparated", &xs, b"1|\"x|y\"\n2|\"\"\n", &csv), "1\tx|y\n2\t\n");
    // ClickHouse wants the last row's delimiter too, and reads no empty lines.
    assert_eq!(error("CustomSeparated", &xs, "1\tx\n2\ty").code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
    assert_eq!(error("CustomSeparated", &xs, "1\tx\n\n2\ty\n").code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
    // Columns by the header's names.
    let named = settings_with(&[("format_custom_escaping_rule", "CSV"), ("format_custom_field_delimiter", ";")]);
    assert_eq!(parse_every_split_with("CustomSeparatedWithNamesAndTypes", &xs, b"\"s\";\"x\"\n\"String\";\"UInt8\"\n\"a\";1\n", &named), "1\ta\n");
    let xml = settings_with(&[("format_custom_escaping_rule", "XML")]);
    assert_eq!(parse_with("CustomSeparated", &xs, &[b""], &xml).err().unwrap().code(), ErrorCode::BAD_ARGUMENTS);
}

#[test]
fn json_compact_each_row() {
    let s = schema(&[("a", "UInt8"), ("b", "String"), ("c", "Array(UInt8)")]);
    assert_eq!(parse_every_split("JSONCompactEachRow", &s, "[1, \"x\", [1,2]]\n[2, \"y\", []], [3, \"]\", [3]]"), "1\tx\t[1,2]\n2\ty\t[]\n3\t]\t[3]\n");
    assert_eq!(error("JSONCompactEachRow", &s, "[1, \"x\"]").code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
    assert_eq!(error("JSONCompactEachRow", &s, "[1, \"x\", [], 4]").code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
    // Names pick the columns; unknown ones are skipped, missing ones are defaults.
    let ab = schema(&[("a", "UInt8"), ("b", "UInt8")]);
    assert_eq!(parse_every_split("JSONCompactEachRowWithNames", &ab, "[\"z\", \"b\"]\n[1, 2]\n"), "0\t2\n");
    let strict = FormatSettings { skip_unknown_fields: false, ..settings() };
    assert_eq!(error_with("JSONCompactEachRowWithNames", &ab, "[\"a\", \"z\"]\n[1, 2]", &strict).code(), ErrorCode::INCORRECT_DATA);
    // Strings: each value is the text of the value; `null` and `ᴺᵁᴸᴸ` in a string are NULL.
    let n = schema(&[("a", "UInt8"), ("b", "Nullable(UInt8)"), ("c", "String"), ("d", "Nullable(String)")]);
    assert_eq!(parse_every_split("JSONCompactStringsEachRow", &n, "[\"1\", \"null\", \"x\\\\y\", \"ᴺᵁᴸᴸ\"]"), "1\t\\N\tx\\\\y\t\\N\n");
    assert_eq!(error("JSONCompactStringsEachRow", &n, "[1, \"2\", \"x\", \"y\"]").code(), ErrorCode::CANNOT_PARSE_QUOTED_STRING);
}

#[test]
fn json_strings_and_objects_of_rows() {
    let s = schema(&[("a", "UInt8"), ("b", "Array(UInt8)"), ("t", "Tuple(UInt8, String)"), ("d", "Nullable(String)")]);
    assert_eq!(parse_every_split("JSONStringsEachRow", &s, "{\"a\":\"1\",\"b\":\"[1,2]\",\"t\":\"(1,'x')\",\"d\":\"\\\\N\"}"), "1\t[1,2]\t(1,'x')\t\\\\N\n");
    let a = schema(&[("a", "UInt8")]);
    assert_eq!(parse_every_split("JSONObjectEachRow", &a, "{\"row_1\": {\"a\": 1}, \"r}2\": {\"a\": 2, \"z\": \"}\"}}\n"), "1\n2\n");
    assert_eq!(parse_every_split("JSONObjectEachRow", &a, "{}"), "");
    assert_eq!(error("JSONObjectEachRow", &a, "{\"r\": 5}").code(), ErrorCode::INCORRECT_DATA);
}

#[test]
fn json_columns() {
    let s = schema(&[("a", "UInt8"), ("b", "String")]);
    assert_eq!(parse_every_split("JSONColumns", &s, "{\"a\": [1, 2], \"b\": [\"x\", \"]\"]}\n{\"a\": [3]}"), "1\tx\n2\t]\n3\t\n");
    assert_eq!(error("JSONColumns", &s, "{\"a\": [1, 2], \"b\": [\"x\"]}").code(), ErrorCode::INCORRECT_DATA);
    assert_eq!(parse_every_split("JSONCompactColumns", &s, "[[1, 2]]"), "1\t\n2\t\n");
    let document = "{\"meta\":[{\"name\":\"a\",\"type\":\"UInt8\"}],\"data\":{\"a\":[1,2]},\"rows\":2}";
    assert_eq!(parse_every_split("JSONColumnsWithMetadata", &s, document), "1\t\n2\t\n");
}

#[test]
fn one_string_column_formats() {
    let s = schema(&[("s", "String")]);
    // JSONAsString: the objects' text as it is.
    assert_eq!(parse_every_split("JSONAsString", &s, "{\"a\" : 1}\n{\"b\":[1, 2]},\n  {\"c\":\"}\"}"), "{\"a\" : 1}\n{\"b\":[1, 2]}\n{\"c\":\"}\"}\n");
    assert_eq!(parse_every_split("JSONAsString", &s, "[{\"a\" : 1}, {\"b\":2}]"), "{\"a\" : 1}\n{\"b\":2}\n");
    assert_eq!(error("JSONAsString", &s, "{\"a\":1} 5").code(), ErrorCode::INCORRECT_DATA);
    // LineAsString: lines as they are; a carriage return stays, an empty line is a value.
    assert_eq!(parse_every_split("LineAsString", &s, "a\\tb\r\nc\n\nd"), "a\\\\tb\\r\nc\n\nd\n");
    // RawBLOB: the whole input; no input, no row.
    assert_eq!(parse_every_split("RawBLOB", &s, "a\nb\n"), "a\\nb\\n\n");
    assert_eq!(parse_every_split("RawBLOB", &s, ""), "");
    let two = schema(&[("s", "String"), ("t", "String")]);
    assert_eq!(parse_with("JSONAsString", &two, &[b""], &settings()).err().unwrap().code(), ErrorCode::BAD_ARGUMENTS);
    assert_eq!(parse_with("LineAsString", &schema(&[("x", "UInt8")]), &[b""], &settings()).err().unwrap().code(), ErrorCode::INCORRECT_QUERY);
}

#[test]
fn tskv() {
    let s = schema(&[("a", "UInt8"), ("b", "String")]);
    // The `tskv` marker, an empty line (a row of defaults), unknown keys skipped.
    assert_eq!(parse_every_split("TSKV", &s, "a=1\tb=x\\ty\ttskv\nb=2\n\na=3\tc=5\n"), "1\tx\\ty\n0\t2\n0\t\n3\t\n");
    assert_eq!(parse_every_split("TSKV", &schema(&[("a=b", "UInt8")]), "a\\=b=7\n"), "7\n");
    assert_eq!(error("TSKV", &s, "a=1\ta=2\n").code(), ErrorCode::INCORRECT_DATA);
    assert_eq!(error("TSKV", &s, "a\n").code(), ErrorCode::INCORRECT_DATA);
    assert_eq!(error("TSKV", &s, "a=1").code(), ErrorCode::CANNOT_READ_ALL_DATA);
    let strict = FormatSettings { skip_unknown_fields: false, ..settings() };
    assert_eq!(error_with("TSKV", &s, "a=1\tz=2\n", &strict).code(), ErrorCode::INCORRECT_DATA);
}

#[test]
fn raw_with_names() {
    let s = schema(&[("a", "UInt8"), ("b", "String")]);
    assert_eq!(parse_every_split("TSVRawWithNames", &s, "b\ta\nx\\y\t1\n"), "1\tx\\\\y\n");
    assert_eq!(parse_every_split("RawWithNamesAndTypes", &s, "a\tb\nUInt8\tString\n1\tx\\ty\n"), "1\tx\\\\ty\n");
    assert_eq!(parse_every_split("Raw", &s, "1\tx\\ty\n"), "1\tx\\\\ty\n");
}

#[test]
fn parallel_parsing_matches_sequential() {
    // Many rows of the mixed columns in each format that parses chunks on several threads.
    let rows: String = (0..400).map(|i| ROWS.replace("(1, ", &format!("({}, ", i * 2 + 1)).replace("(2, ", &format!("({}, ", i * 2 + 2))).collect::<Vec<_>>().join(",");
    let base = settings();
    let batches = parse_with("Values", &mixed(), &[rows.as_bytes()], &base).unwrap();
    let expected = as_tsv(&mixed(), &batches);
    for format in ["JSONStringsEachRow", "JSONCompactEachRowWithNames", "JSONCompactStringsEachRow", "TSKV", "CustomSeparatedWithNames"] {
        let data = write(format, &mixed(), &batches, &base);
        let pieces: Vec<&[u8]> = data.chunks(777).collect();
        for (threads, chunk) in [(2, 4096), (4, 10_000)] {
            let mut parallel = settings();
            parallel.parsing_threads = threads;
            parallel.min_chunk_bytes_for_parallel_parsing = chunk;
            let whole = parse_with(format, &mixed(), &[&data], &parallel).unwrap();
            assert_eq!(as_tsv(&mixed(), &whole), expected, "{format} whole, {threads} threads");
            let pushed = parse_with(format, &mixed(), &pieces, &parallel).unwrap();
            assert_eq!(as_tsv(&mixed(), &pushed), expected, "{format} in pieces, {threads} threads");
        }
    }
    let lines: String = (0..5000).map(|i| format!("line {i}\twith a tab\n")).collect();
    let s = schema(&[("s", "String")]);
    let mut parallel = settings();
    parallel.parsing_threads = 3;
    parallel.min_chunk_bytes_for_parallel_parsing = 2048;
    let sequential = as_tsv(&s, &parse_with("LineAsString", &s, &[lines.as_bytes()], &settings()).unwrap());
    assert_eq!(as_tsv(&s, &parse_with("LineAsString", &s, &[lines.as_bytes()], &parallel).unwrap()), sequential);
}

#[test]
fn json_object_each_row_name_column() {
    let s = schema(&[("a", "UInt8"), ("k", "String")]);
    let named = settings_with(&[("format_json_object_each_row_column_for_object_name", "k")]);
    assert_eq!(parse_every_split_with("JSONObjectEachRow", &s, b"{\"x\": {\"a\": 1}, \"y\\\"z\": {\"a\": 2}}", &named), "1\tx\n2\ty\"z\n");
    let missing = settings_with(&[("format_json_object_each_row_column_for_object_name", "zz")]);
    assert_eq!(parse_with("JSONObjectEachRow", &s, &[b""], &missing).err().unwrap().code(), ErrorCode::BAD_ARGUMENTS);
}
