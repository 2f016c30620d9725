//! Input formats: every format on valid data, every split of the input into two pushes,
//! malformed input with the row and column named, bad-row skipping, and header matching.

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

fn settings() -> FormatSettings {
    FormatSettings::from_settings(&Settings::new(), chrono_tz::Tz::UTC)
}

/// The batches as TSV text (the output side is checked against ClickHouse elsewhere).
fn as_tsv(schema: &SchemaRef, batches: &[RecordBatch]) -> String {
    let mut output = create_output_format("TabSeparated", schema.clone(), &settings()).unwrap();
    let mut out = Vec::new();
    for b in batches {
        assert_eq!(b.schema(), *schema, "batches come out in exactly the target schema");
        output.write_batch(b, &mut out).unwrap();
    }
    output.write_suffix(&QueryStatistics::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
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

fn parse(format: &str, schema: &SchemaRef, data: &str) -> String {
    as_tsv(schema, &parse_with(format, schema, &[data.as_bytes()], &settings()).unwrap_or_else(|e| panic!("{format}: {e}")))
}

/// Parses `data` whole, then split at every byte offset, and byte by byte: same result.
fn parse_every_split(format: &str, schema: &SchemaRef, data: &str) -> String {
    let whole = parse(format, schema, data);
    let bytes = data.as_bytes();
    for at in 0..=bytes.len() {
        let batches = parse_with(format, schema, &[&bytes[..at], &bytes[at..]], &settings()).unwrap_or_else(|e| panic!("{format} split at {at}: {e}"));
        assert_eq!(as_tsv(schema, &batches), whole, "{format} split at {at}");
    }
    let single: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(as_tsv(schema, &parse_with(format, schema, &single, &settings()).unwrap()), whole, "{format} byte by byte");
    whole
}

fn error(format: &str, schema: &SchemaRef, data: &str) -> granary_common::Error {
    match parse_with(format, schema, &[data.as_bytes()], &settings()) {
        Ok(_) => panic!("{format} should fail on {data:?}"),
        Err(e) => e,
    }
}

fn mixed() -> SchemaRef {
    schema(&[("x", "UInt64"), ("s", "String"), ("a", "Array(Nullable(String))"), ("n", "Nullable(Float64)"), ("d", "DateTime('UTC')")])
}

const EXPECTED: &str = "1\ta\\tb\t['x',NULL]\t1.5\t2020-01-02 03:04:05\n2\tq\"q\t[]\t\\N\t1970-01-01 00:00:00\n";

#[test]
fn tsv() {
    let data = "1\ta\\tb\t['x',NULL]\t1.5\t2020-01-02 03:04:05\n2\tq\"q\t[]\t\\N\t0\n";
    assert_eq!(parse_every_split("TabSeparated", &mixed(), data), EXPECTED);
    // A last row without its line feed, and an escaped line feed inside a value.
    assert_eq!(parse("TSV", &schema(&[("s", "String")]), "a\\\nb\nc"), "a\\nb\nc\n");
}

#[test]
fn tsv_with_names_and_types() {
    let data = "d\tzz\ts\tx\nDateTime\tString\tString\tUInt64\n2020-01-02 03:04:05\tskip\ta\\tb\t1\n";
    let out = parse_every_split("TSVWithNamesAndTypes", &mixed(), data);
    // `a` and `n` are missing: their defaults ([] and NULL) are filled in.
    assert_eq!(out, "1\ta\\tb\t[]\t\\N\t2020-01-02 03:04:05\n");
    let mut strict = settings();
    strict.skip_unknown_fields = false;
    let e = parse_with("TSVWithNames", &mixed(), &[data.as_bytes()], &strict).unwrap_err();
    assert_eq!(e.code(), ErrorCode::INCORRECT_DATA);
    assert!(e.message().contains("'zz'"), "{}", e.message());
}

#[test]
fn csv() {
    let data = "1,\"a\tb\",\"['x',NULL]\",1.5,\"2020-01-02 03:04:05\"\r\n 2 , \"q\"\"q\" ,[],\\N,\n";
    assert_eq!(parse_every_split("CSV", &mixed(), data), EXPECTED);
    let names = "s,x\n\"a\",1\n";
    assert_eq!(parse_every_split("CSVWithNames", &schema(&[("x", "UInt8"), ("s", "String")]), names), "1\ta\n");
    let mut semicolon = settings();
    semicolon.text.csv_delimiter = b';';
    let s = schema(&[("x", "UInt8"), ("s", "String")]);
    assert_eq!(as_tsv(&s, &parse_with("CSV", &s, &[b"1;a,b\n"], &semicolon).unwrap()), "1\ta,b\n");
}

#[test]
fn json_each_row() {
    let data = "{\"x\":1,\"s\":\"a\\tb\",\"a\":[\"x\",null],\"n\":1.5,\"d\":\"2020-01-02 03:04:05\",\"extra\":{\"k\":[1,\"}\"]}}\n\
                {\"s\":\"q\\\"q\",\"x\":\"2\"}";
    assert_eq!(parse_every_split("JSONEachRow", &mixed(), data), EXPECTED);
    // Whitespace-separated objects, an enclosing array, commas.
    let s = schema(&[("x", "UInt8")]);
    assert_eq!(parse("JSONEachRow", &s, "[{\"x\":1}, {\"x\":2}]  {\"x\":3}"), "1\n2\n3\n");
    let mut strict = settings();
    strict.skip_unknown_fields = false;
    let e = parse_with("JSONEachRow", &s, &[b"{\"x\":1,\"y\":2}"], &strict).unwrap_err();
    assert_eq!(e.code(), ErrorCode::INCORRECT_DATA);
    assert_eq!(error("JSONEachRow", &s, "{\"x\":1,\"x\":2}").code(), ErrorCode::INCORRECT_DATA);
    let e = error("JSONEachRow", &s, "{\"x\":1}\n{\"x\":\"a\"}");
    assert!(e.message().ends_with("(at row 2, column 'x')"), "{}", e.message());
}

#[test]
fn json_documents() {
    let s = schema(&[("x", "UInt8"), ("s", "String")]);
    let document = "{\"meta\": [{\"name\": \"x\", \"type\": \"UInt8\"}, {\"name\": \"s\", \"type\": \"String\"}],\n\
                    \"data\": [{\"x\": 1, \"s\": \"a]}\"}, {\"s\": \"b\"}],\n\"rows\": 2, \"statistics\": {\"elapsed\": 0.1}}";
    assert_eq!(parse_every_split("JSON", &s, document), "1\ta]}\n0\tb\n");
    // Compact rows follow the order of `meta`.
    let compact = "{\"meta\": [{\"name\": \"s\", \"type\": \"String\"}, {\"name\": \"x\", \"type\": \"UInt8\"}], \"data\": [[\"p\", 7], [\"q\", 8]], \"rows\": 2}";
    assert_eq!(parse_every_split("JSONCompact", &s, compact), "7\tp\n8\tq\n");
    assert_eq!(parse("JSON", &s, "{\"meta\": [], \"data\": []}"), "");
    assert_eq!(error("JSON", &s, "{\"meta\": [], \"data\": [{\"x\": 1}, {\"x\":").code(), ErrorCode::ATTEMPT_TO_READ_AFTER_EOF);
    assert_eq!(error("JSON", &s, "{\"meta\": [").code(), ErrorCode::CANNOT_READ_ALL_DATA);
    assert_eq!(error("JSON", &s, "[1]").code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
}

#[test]
fn values() {
    let data = "(1, 'a\\tb', ['x', NULL], 1.5, '2020-01-02 03:04:05'), (2,'q\"q',[],NULL,'1970-01-01 00:00:00');";
    assert_eq!(parse_every_split("Values", &mixed(), data), EXPECTED);
    // Expressions are a SYNTAX_ERROR: the caller evaluates the VALUES as SQL instead.
    let s = schema(&[("x", "UInt8"), ("s", "String")]);
    for bad in ["(now(), 'a')", "(1 + 2, 'a')", "(1, concat('a'))", "(1, a)", "(x, 'a')"] {
        assert_eq!(error("Values", &s, bad).code(), ErrorCode::SYNTAX_ERROR, "{bad}");
    }
    // Too few or too many values, or a row cut short, are ClickHouse's SYNTAX_ERROR too.
    for bad in ["(1)", "(1, 'a'", "(1, 'a', 3)"] {
        assert_eq!(error("Values", &s, bad).code(), ErrorCode::SYNTAX_ERROR, "{bad}");
    }
}

#[test]
fn malformed_rows_name_the_row_and_column() {
    let s = schema(&[("x", "UInt64"), ("y", "String")]);
    let e = error("TSV", &s, "1\ta\n2\tb\nabc\tc\n");
    // ClickHouse reads no digits and then misses the delimiter.
    assert_eq!(e.code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
    assert_eq!(e.message(), "Cannot parse input: expected '\\t' before: 'abc\\tc': (at row 3, column 'x')");
    let e = error("TSV", &s, "1\ta\n2\n");
    assert_eq!(e.code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
    assert!(e.message().starts_with("Cannot parse input: expected '\\t' before: '\\n'"), "{}", e.message());
    assert!(e.message().ends_with("(at row 2)"), "{}", e.message());
    assert_eq!(error("TSV", &s, "1\ta\tz\n").code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
    let d = schema(&[("d", "Date"), ("t", "DateTime")]);
    assert_eq!(error("CSV", &d, "2020-13-01,2020-01-01 00:00:00\n").code(), ErrorCode::CANNOT_PARSE_DATE);
    assert_eq!(error("CSV", &d, "2020-01-01,yesterday\n").code(), ErrorCode::CANNOT_PARSE_DATETIME);
    let f = schema(&[("f", "Float32")]);
    assert_eq!(error("TSV", &f, "x1\n").code(), ErrorCode::CANNOT_PARSE_NUMBER);
    let n = schema(&[("u", "UInt8")]);
    // Out of range wraps as in ClickHouse's input formats; a minus for an unsigned type fails.
    assert_eq!(parse("TSV", &n, "300\n"), "44\n");
    assert_eq!(error("TSV", &n, "-1\n").code(), ErrorCode::CANNOT_PARSE_NUMBER);
    assert_eq!(error("CSV", &s, "1,\"unterminated\n").code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
    // An object cut off by the end of the input, as ClickHouse reports it.
    assert_eq!(error("JSONEachRow", &s, "{\"x\":1").code(), ErrorCode::CANNOT_READ_ALL_DATA);
    assert_eq!(error("JSONEachRow", &s, "x").code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
    let fs = schema(&[("f", "FixedString(2)")]);
    assert_eq!(error("TSV", &fs, "abc\n").code(), ErrorCode::TOO_LARGE_STRING_SIZE);
}

#[test]
fn bad_rows_are_skipped_within_the_allowance() {
    let s = schema(&[("x", "UInt8"), ("y", "String")]);
    let data = b"1\ta\nx\tb\n3\tc\n4\n5\te\n";
    let mut allow = settings();
    allow.allow_errors_num = 2;
    assert_eq!(as_tsv(&s, &parse_with("TSV", &s, &[data], &allow).unwrap()), "1\ta\n3\tc\n5\te\n");
    allow.allow_errors_num = 1;
    assert!(parse_with("TSV", &s, &[data], &allow).is_err());
    let mut ratio = settings();
    ratio.allow_errors_ratio = 0.5;
    assert_eq!(as_tsv(&s, &parse_with("TSV", &s, &[data], &ratio).unwrap()), "1\ta\n3\tc\n5\te\n");
    // A bad composite value leaves nothing of its row behind.
    let a = schema(&[("a", "Array(UInt8)"), ("y", "String")]);
    let mut allow = settings();
    allow.allow_errors_num = 1;
    assert_eq!(as_tsv(&a, &parse_with("TSV", &a, &[b"[1]\ta\n[1,x]\tb\n[2]\tc\n"], &allow).unwrap()), "[1]\ta\n[2]\tc\n");
}

#[test]
fn nulls_and_defaults() {
    let s = schema(&[("x", "UInt8"), ("n", "Nullable(UInt8)")]);
    assert_eq!(parse("TSV", &s, "\\N\t\\N\n\t\n"), "0\t\\N\n0\t\\N\n");
    let mut strict = settings();
    strict.text.null_as_default = false;
    let e = parse_with("TSV", &s, &[b"\\N\t1\n"], &strict).unwrap_err();
    assert_eq!(e.code(), ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN);
}

#[test]
fn blocks_are_cut_at_max_block_rows() {
    let s = schema(&[("x", "UInt32")]);
    let data: String = (0..10).map(|i| format!("{i}\n")).collect();
    let mut small = settings();
    small.max_block_rows = 3;
    let batches = parse_with("TSV", &s, &[data.as_bytes()], &small).unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).collect::<Vec<_>>(), vec![3, 3, 3, 1]);
}

#[test]
fn empty_input_gives_no_rows() {
    for format in ["TSV", "CSV", "JSONEachRow", "Values", "TSVWithNames", "Parquet"] {
        let batches = parse_with(format, &mixed(), &[b""], &settings()).unwrap();
        assert!(batches.iter().all(|b| b.num_rows() == 0), "{format}");
    }
}

#[test]
fn parquet_round_trip() {
    let s = mixed();
    let source = parse("Values", &s, "(1, 'a', ['x', NULL], 1.5, '2020-01-02 03:04:05'), (2, 'b', [], NULL, '1970-01-01 00:00:00')");
    let batches = parse_with("TSV", &s, &[source.as_bytes()], &settings()).unwrap();
    let mut output = create_output_format("Parquet", s.clone(), &settings()).unwrap();
    let mut file = Vec::new();
    output.write_prefix(&mut file).unwrap();
    for b in &batches {
        output.write_batch(b, &mut file).unwrap();
    }
    output.write_suffix(&QueryStatistics::default(), &mut file).unwrap();
    assert!(file.starts_with(b"PAR1"));
    // Read back into a schema with a column the file lacks and another order.
    let target = schema(&[("s", "String"), ("x", "UInt64"), ("missing", "UInt8"), ("d", "DateTime('UTC')")]);
    let chunks: Vec<&[u8]> = file.chunks(7).collect();
    let back = parse_with("Parquet", &target, &chunks, &settings()).unwrap();
    assert_eq!(as_tsv(&target, &back), "a\t1\t0\t2020-01-02 03:04:05\nb\t2\t0\t1970-01-01 00:00:00\n");
    assert_eq!(parse_with("Parquet", &target, &[b"not parquet"], &settings()).unwrap_err().code(), ErrorCode::INCORRECT_DATA);
}

fn parallel_settings(threads: usize, chunk_bytes: usize) -> FormatSettings {
    let mut s = settings();
    s.parsing_threads = threads;
    s.min_chunk_bytes_for_parallel_parsing = chunk_bytes;
    s
}

#[test]
fn parallel_parsing_matches_sequential() {
    let schema = schema(&[("id", "UInt64"), ("s", "String"), ("f", "Nullable(Float64)")]);
    let mut csv = String::from("id,s,f\n");
    let mut tsv = String::new();
    let mut json = String::new();
    for i in 0..20_000u64 {
        // Quoted fields with delimiters and newlines: row boundaries need the scanner.
        let text = if i % 7 == 0 { format!("\"multi\nline, {i}\"") } else { format!("v{i}") };
        let float = if i % 5 == 0 { "\\N".to_string() } else { format!("{}.5", i) };
        csv.push_str(&format!("{i},{text},{}\n", if i % 5 == 0 { "" } else { &float }));
        tsv.push_str(&format!("{i}\tv{i}\\tx\t{float}\n"));
        json.push_str(&format!("{{\"id\":{i},\"s\":\"v{{{i}}}\\n\",\"f\":{}}}\n", if i % 5 == 0 { "null".to_string() } else { float.clone() }));
    }
    for (format, data) in [("CSVWithNames", &csv), ("TSV", &tsv), ("JSONEachRow", &json)] {
        let sequential = as_tsv(&schema, &parse_with(format, &schema, &[data.as_bytes()], &parallel_settings(1, 1 << 20)).unwrap());
        let pieces: Vec<&[u8]> = data.as_bytes().chunks(999).collect();
        for (threads, chunk) in [(2, 4096), (4, 10_000), (3, 1 << 20)] {
            let settings = parallel_settings(threads, chunk);
            let whole = parse_with(format, &schema, &[data.as_bytes()], &settings).unwrap();
            assert_eq!(as_tsv(&schema, &whole), sequential, "{format} whole, {threads} threads, chunks of {chunk}");
            let pushed = parse_with(format, &schema, &pieces, &settings).unwrap();
            assert_eq!(as_tsv(&schema, &pushed), sequential, "{format} in pieces, {threads} threads, chunks of {chunk}");
            assert!(pushed.iter().all(|b| b.num_rows() <= settings.max_block_rows));
        }
    }
}

#[test]
fn parallel_parsing_reports_the_row_of_the_whole_input() {
    let schema = schema(&[("id", "UInt32")]);
    let mut data = String::new();
    for i in 0..10_000 {
        data.push_str(if i == 7_777 { "oops\n" } else { "1\n" });
    }
    let e = parse_with("TSV", &schema, &[data.as_bytes()], &parallel_settings(4, 1024)).unwrap_err();
    assert!(e.message().contains("(at row 7778"), "{}", e.message());
    let mut lenient = parallel_settings(4, 1024);
    lenient.allow_errors_num = 1;
    let batches = parse_with("TSV", &schema, &[data.as_bytes()], &lenient).unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 9_999);
}

#[test]
fn parallel_csv_and_tsv_with_awkward_rows() {
    let schema = schema(&[("id", "UInt64"), ("s", "String"), ("n", "Nullable(Int32)")]);
    let mut csv = String::new();
    let mut tsv = String::new();
    for i in 0..30_000u64 {
        // Doubled quotes, quoted line feeds and delimiters, CRLF, blank lines, quotes
        // inside unquoted text, spaces around fields, `\N`, empty fields.
        let s = match i % 6 {
            0 => format!("\"a \"\"quote\"\" {i}\""),
            1 => format!("\"multi\r\nline,\n{i}\""),
            2 => format!("un\"quoted{i}"),
            3 => format!("  \"spaced\"  "),
            4 => String::new(),
            _ => format!("plain{i}"),
        };
        let n = match i % 4 {
            0 => "\\N".to_string(),
            1 => String::new(),
            _ => format!("-{i}"),
        };
        csv.push_str(&format!("{i},{s},{n}{}", if i % 3 == 0 { "\r\n" } else { "\n" }));
        if i % 11 == 0 {
            csv.push_str(if i % 2 == 0 { "\n" } else { "\r\n" });
        }
        tsv.push_str(&format!("{i}\tt\\\\{i}\\\nx\\t\t{}\n", if i % 4 == 0 { "\\N" } else { "7" }));
        if i % 13 == 0 {
            tsv.push('\n');
        }
    }
    for (format, data) in [("CSV", &csv), ("TSV", &tsv)] {
        let sequential = as_tsv(&schema, &parse_with(format, &schema, &[data.as_bytes()], &parallel_settings(1, 1 << 20)).unwrap());
        assert_eq!(sequential.lines().count(), 30_000, "{format}");
        for (threads, chunk, piece) in [(2, 1000, 777), (3, 5000, 100_000), (2, 64, 1)] {
            let settings = parallel_settings(threads, chunk);
            let pieces: Vec<&[u8]> = data.as_bytes().chunks(piece).collect();
            let pushed = parse_with(format, &schema, &pieces, &settings).unwrap();
            assert_eq!(as_tsv(&schema, &pushed), sequential, "{format} in pieces of {piece}, {threads} threads, chunks of {chunk}");
        }
    }
    // A bad row is named by its number in the whole input (blank lines are not rows).
    let mut bad = csv.clone();
    let at = bad.find("\n24000,").unwrap();
    bad.insert_str(at + 1, "x");
    for threads in [1, 2, 4] {
        let e = parse_with("CSV", &schema, &[bad.as_bytes()], &parallel_settings(threads, 4096)).unwrap_err();
        assert!(e.message().contains("(at row 24001"), "{threads} threads: {}", e.message());
    }
}
