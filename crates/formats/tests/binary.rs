//! Binary formats against ClickHouse (chdb): the fixtures in `tests/fixtures/` were
//! written by `gen_binary_fixtures.py` and `gen_connect_fixture.py`. Granary's output of
//! the same rows must equal ClickHouse's bytes; ClickHouse's bytes (and
//! clickhouse-connect's insert body) must read back to the same rows, in any split.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use granary_common::{ErrorCode, Result, Settings};
use granary_formats::{create_input_format, create_output_format, FormatSettings, QueryStatistics};
use granary_types::ChType;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn schema_of(columns: &[(&str, &str)]) -> SchemaRef {
    Arc::new(Schema::new(columns.iter().map(|(n, t)| ChType::parse(t).unwrap().to_arrow_field(n)).collect::<Vec<_>>()))
}

fn wide_schema() -> SchemaRef {
    let text = String::from_utf8(fixture("wide.schema")).unwrap();
    let columns: Vec<(&str, &str)> = text.lines().map(|l| l.split_once('\t').unwrap()).collect();
    schema_of(&columns)
}

fn settings_with(pairs: &[(&str, &str)]) -> FormatSettings {
    let mut settings = Settings::new();
    for (k, v) in pairs {
        settings.set(k, v).unwrap();
    }
    FormatSettings::from_settings(&settings, chrono_tz::Tz::UTC)
}

fn settings() -> FormatSettings {
    settings_with(&[])
}

fn parse(format: &str, schema: &SchemaRef, chunks: &[&[u8]], settings: &FormatSettings) -> Result<Vec<RecordBatch>> {
    let mut input = create_input_format(format, schema.clone(), settings)?;
    let mut out = Vec::new();
    for chunk in chunks {
        input.push(chunk, &mut out)?;
    }
    input.finish(&mut out)?;
    for batch in &out {
        assert_eq!(batch.schema(), *schema, "{format}: batches come out in exactly the target schema");
        assert!(batch.num_rows() <= settings.max_block_rows);
    }
    Ok(out)
}

fn write(format: &str, schema: &SchemaRef, batches: &[RecordBatch], settings: &FormatSettings) -> Vec<u8> {
    let mut output = create_output_format(format, schema.clone(), settings).unwrap();
    let mut out = Vec::new();
    output.write_prefix(&mut out).unwrap();
    for b in batches {
        output.write_batch(b, &mut out).unwrap_or_else(|e| panic!("{format}: {e}"));
    }
    output.write_suffix(&QueryStatistics::default(), &mut out).unwrap();
    out
}

/// The rows ClickHouse wrote in Values format, read by Granary.
fn wide_batches() -> Vec<RecordBatch> {
    parse("Values", &wide_schema(), &[&fixture("wide.values")], &settings()).unwrap()
}

fn as_values(schema: &SchemaRef, batches: &[RecordBatch]) -> String {
    String::from_utf8(write("Values", schema, batches, &settings())).unwrap()
}

#[test]
fn values_fixture_reads_back_as_clickhouse_wrote_it() {
    // The reference for every other test: Granary's Values round trip is exact.
    assert_eq!(as_values(&wide_schema(), &wide_batches()), String::from_utf8(fixture("wide.values")).unwrap());
}

#[test]
fn outputs_equal_clickhouse_bytes() {
    let schema = wide_schema();
    let batches = wide_batches();
    for format in ["Native", "RowBinary", "RowBinaryWithNames", "RowBinaryWithNamesAndTypes"] {
        let ours = write(format, &schema, &batches, &settings());
        let theirs = fixture(&format!("wide.{format}"));
        if ours != theirs {
            let at = ours.iter().zip(&theirs).position(|(a, b)| a != b).unwrap_or(ours.len().min(theirs.len()));
            panic!(
                "{format} differs at byte {at}:\n ours   {:02x?}\n theirs {:02x?}",
                &ours[at.saturating_sub(16)..(at + 32).min(ours.len())],
                &theirs[at.saturating_sub(16)..(at + 32).min(theirs.len())]
            );
        }
    }
}

#[test]
fn clickhouse_bytes_read_back_in_any_split() {
    let schema = wide_schema();
    let expected = String::from_utf8(fixture("wide.values")).unwrap();
    for format in ["Native", "RowBinary", "RowBinaryWithNames", "RowBinaryWithNamesAndTypes", "Arrow", "ArrowStream"] {
        let data = fixture(&format!("wide.{format}"));
        let whole = parse(format, &schema, &[&data], &settings()).unwrap_or_else(|e| panic!("{format}: {e}"));
        assert_eq!(as_values(&schema, &whole), expected, "{format}");
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        let single = parse(format, &schema, &bytes, &settings()).unwrap_or_else(|e| panic!("{format} byte by byte: {e}"));
        assert_eq!(as_values(&schema, &single), expected, "{format} byte by byte");
        for at in (0..data.len()).step_by(7) {
            let split = parse(format, &schema, &[&data[..at], &data[at..]], &settings()).unwrap();
            assert_eq!(as_values(&schema, &split), expected, "{format} split at {at}");
        }
        // Small blocks: at most max_block_rows rows per batch (checked in `parse`).
        let small = settings_with(&[("max_block_size", "1")]);
        let batches = parse(format, &schema, &[&data], &small).unwrap();
        assert_eq!(batches.len(), 4, "{format}");
        assert_eq!(as_values(&schema, &batches), expected, "{format} in blocks of one row");
    }
}

#[test]
fn own_outputs_read_back() {
    let schema = wide_schema();
    let batches = wide_batches();
    let expected = as_values(&schema, &batches);
    for format in ["Native", "RowBinary", "RowBinaryWithNames", "RowBinaryWithNamesAndTypes", "Arrow", "ArrowStream"] {
        for protocol in ["0", "54405", "54454", "54483"] {
            let s = settings_with(&[("max_block_size", "3")]);
            let mut s_out = s.clone();
            s_out.client_protocol_version = protocol.parse().unwrap();
            let data = write(format, &schema, &batches, &s_out);
            if format == "Native" && protocol != "0" {
                continue; // BlockInfo is for clients, ClickHouse reads Native input without it.
            }
            let back = parse(format, &schema, &[&data], &s).unwrap_or_else(|e| panic!("{format}: {e}"));
            assert_eq!(as_values(&schema, &back), expected, "{format}");
        }
    }
}

#[test]
fn arrow_output_has_clickhouse_types() {
    let schema = wide_schema();
    let ours = write("ArrowStream", &schema, &wide_batches(), &settings());
    let read_schema = |data: &[u8]| arrow::ipc::reader::StreamReader::try_new(std::io::Cursor::new(data.to_vec()), None).unwrap().schema();
    let ours = read_schema(&ours);
    let theirs = read_schema(&fixture("wide.ArrowStream"));
    for (a, b) in ours.fields().iter().zip(theirs.fields()) {
        assert_eq!(a.name(), b.name());
        // ClickHouse names the session time zone `Etc/UTC` where Granary says `UTC`.
        let normalize = |t: String| t.replace("Etc/UTC", "UTC");
        assert_eq!(normalize(format!("{:?}", a.data_type())), normalize(format!("{:?}", b.data_type())), "{}", a.name());
        assert_eq!(a.is_nullable(), b.is_nullable(), "{}", a.name());
    }
    let file = write("Arrow", &schema, &wide_batches(), &settings());
    assert!(file.starts_with(b"ARROW1") && file.ends_with(b"ARROW1"));
}

#[test]
fn native_protocol_versions() {
    let schema = schema_of(&[("check", "UInt8"), ("dt", "DateTime('Asia/Tokyo')"), ("l", "LowCardinality(String)")]);
    let batch = parse("Values", &schema, &[b"(1, '2020-01-01 00:00:00', 'a')"], &settings()).unwrap();
    let native = |protocol: u64| {
        let mut s = settings();
        s.client_protocol_version = protocol;
        write("Native", &schema, &batch, &s)
    };
    let header = |data: &[u8], skip: usize| data[skip..skip + 8].to_vec();
    // What clickhouse-connect checks to accept a server's protocol support.
    let with_info = native(54405);
    assert_eq!(&with_info[..8], &[1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0]);
    assert_eq!(header(&with_info, 8), b"\x03\x01\x05check");
    assert!(with_info.windows(17).any(|w| w == b"\x16DateTime('Asia/T"), "time zone kept from 54337");
    assert!(with_info.windows(22).any(|w| w == b"LowCardinality(String)"));
    // Without a protocol version: no BlockInfo, DateTime without its time zone (as ClickHouse).
    let plain = native(0);
    assert_eq!(&plain[..8], b"\x03\x01\x05check");
    assert!(plain.windows(12).any(|w| w == b"\x02dt\x08DateTime"));
    // 54454: a custom serialization byte (0) after each type name.
    let custom = native(54454);
    assert_eq!(&custom[8..24], b"\x03\x01\x05check\x05UInt8\x00\x01");
    // 54480: out_of_order_buckets in BlockInfo.
    assert_eq!(&native(54480)[..10], &[1, 0, 2, 0xff, 0xff, 0xff, 0xff, 3, 0, 0]);
    // Older than 54405: LowCardinality removed.
    let old = native(54300);
    assert!(!old.windows(14).any(|w| w == b"LowCardinality"));
    assert!(old.ends_with(b"\x01l\x06String\x01a"));
}

#[test]
fn clickhouse_connect_insert_body() {
    let schema = schema_of(&[
        ("lc", "LowCardinality(String)"),
        ("lcn", "LowCardinality(Nullable(String))"),
        ("ni", "Nullable(Int32)"),
        ("arr", "Array(LowCardinality(String))"),
        ("m", "Map(String, Nullable(UInt64))"),
        ("extra", "UInt16"),
    ]);
    let data = fixture("connect.Native");
    let expected = "('b',NULL,1,['x','y'],{'k':1},0),('a','x',NULL,[],{},0),('b','',3,['x'],{'n':NULL},0)";
    assert_eq!(as_values(&schema, &parse("Native", &schema, &[&data], &settings()).unwrap()), expected);
    let bytes: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(as_values(&schema, &parse("Native", &schema, &bytes, &settings()).unwrap()), expected);
}

#[test]
fn native_columns_by_name_with_casts_defaults_and_unknown_columns() {
    let source = schema_of(&[("b", "UInt8"), ("zzz", "String"), ("a", "Nullable(String)")]);
    let batch = parse("Values", &source, &[b"(1, 'x', NULL), (2, 'y', '5')"], &settings()).unwrap();
    let data = write("Native", &source, &batch, &settings());
    let target = schema_of(&[("a", "String"), ("b", "UInt64"), ("c", "Date")]);
    let back = parse("Native", &target, &[&data], &settings()).unwrap();
    assert_eq!(as_values(&target, &back), "('',1,'1970-01-01'),('5',2,'1970-01-01')");
    let strict = settings_with(&[("input_format_skip_unknown_fields", "0")]);
    assert_eq!(parse("Native", &target, &[&data], &strict).unwrap_err().code(), ErrorCode::INCORRECT_DATA);
    let no_null_default = settings_with(&[("input_format_null_as_default", "0")]);
    let e = parse("Native", &target, &[&data], &no_null_default).unwrap_err();
    assert_eq!(e.code(), ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN);
    // RowBinaryWithNamesAndTypes: the same mapping.
    let data = write("RowBinaryWithNamesAndTypes", &source, &batch, &settings());
    let back = parse("RowBinaryWithNamesAndTypes", &target, &[&data], &settings()).unwrap();
    assert_eq!(as_values(&target, &back), "('',1,'1970-01-01'),('5',2,'1970-01-01')");
    // RowBinaryWithNames cannot skip a column it does not know the type of.
    let data = write("RowBinaryWithNames", &source, &batch, &settings());
    assert_eq!(parse("RowBinaryWithNames", &target, &[&data], &settings()).unwrap_err().code(), ErrorCode::INCORRECT_DATA);
}

#[test]
fn bad_input_is_a_typed_error() {
    let schema = wide_schema();
    for format in ["Native", "RowBinary", "RowBinaryWithNamesAndTypes", "Arrow", "ArrowStream"] {
        let data = fixture(&format!("wide.{format}"));
        for at in 1..data.len() {
            match parse(format, &schema, &[&data[..at]], &settings()) {
                // Cuts between rows of RowBinary, or between messages of an Arrow
                // stream (whose end marker is optional), are valid shorter inputs.
                Ok(_) => assert!(format.starts_with("RowBinary") || format == "ArrowStream", "{format} cut at {at} was accepted"),
                Err(e) => {
                    let expected = if format.starts_with("Arrow") { [ErrorCode::CANNOT_READ_ALL_DATA, ErrorCode::INCORRECT_DATA] } else { [ErrorCode::CANNOT_READ_ALL_DATA; 2] };
                    assert!(expected.contains(&e.code()), "{format} cut at {at}: {e}");
                }
            }
        }
    }
    let target = schema_of(&[("x", "UInt8")]);
    // Unknown type.
    let e = parse("Native", &target, &[b"\x01\x01\x01x\x07Foo(12)\x00"], &settings()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::UNKNOWN_TYPE);
    let e = parse("RowBinaryWithNamesAndTypes", &target, &[b"\x01\x01x\x03Foo"], &settings()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::UNKNOWN_TYPE);
    // Absurd sizes: errors, not allocations.
    let e = parse("Native", &target, &[b"\x01\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x01x\x05UInt8"], &settings()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::INCORRECT_DATA);
    let e = parse("Native", &target, &[b"\x01\x01\x01x\x06String\xff\xff\xff\xff\x0f"], &settings()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::TOO_LARGE_STRING_SIZE);
    let e = parse("Native", &target, &[b"\x01\x02\x01x\x0cArray(UInt8)\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00"], &settings())
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::INCORRECT_DATA);
    // A LowCardinality index outside its dictionary.
    let mut lc = b"\x01\x01\x01x\x16LowCardinality(String)".to_vec();
    lc.extend_from_slice(&1u64.to_le_bytes());
    lc.extend_from_slice(&0x600u64.to_le_bytes());
    lc.extend_from_slice(&1u64.to_le_bytes());
    lc.push(0);
    lc.extend_from_slice(&1u64.to_le_bytes());
    lc.push(5);
    let lc_target = schema_of(&[("x", "String")]);
    assert_eq!(parse("Native", &lc_target, &[&lc], &settings()).unwrap_err().code(), ErrorCode::INCORRECT_DATA);
    // Garbage.
    assert_eq!(parse("Arrow", &target, &[b"PARQUET1"], &settings()).unwrap_err().code(), ErrorCode::INCORRECT_DATA);
    assert!(parse("ArrowStream", &target, &[b"\xff\xff\xff\xff\x10\x00\x00\x00garbagegarbage!!"], &settings()).is_err());
    // Empty input: no rows.
    for format in ["Native", "RowBinary", "RowBinaryWithNamesAndTypes", "Arrow", "ArrowStream"] {
        assert!(parse(format, &target, &[], &settings()).unwrap().is_empty(), "{format}");
    }
}

