//! Golden comparison with ClickHouse: every case of `tests/data/cases.tsv` is read with
//! Granary's `Values` parser and written in every output format; the bytes must equal
//! what ClickHouse (chdb) wrote for the same data, stored by `tests/gen_from_chdb.py`.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;

use arrow::datatypes::{Field, Schema, SchemaRef};
use granary_common::Settings;
use granary_formats::{create_input_format, create_output_format, FormatSettings, QueryStatistics};
use granary_types::ChType;

const FORMATS: &[&str] = &[
    "TabSeparated",
    "TabSeparatedRaw",
    "TSVWithNames",
    "TSVWithNamesAndTypes",
    "CSV",
    "CSVWithNames",
    "CSVWithNamesAndTypes",
    "JSONEachRow",
    "JSONCompactEachRow",
    "JSON",
    "JSONCompact",
    "Values",
    "Pretty",
    "PrettyCompact",
    "PrettySpace",
    "Vertical",
    "Markdown",
    "JSONStrings",
    "JSONCompactStrings",
    "JSONStringsEachRow",
    "JSONCompactStringsEachRow",
    "JSONCompactEachRowWithNames",
    "JSONCompactEachRowWithNamesAndTypes",
    "JSONCompactStringsEachRowWithNames",
    "JSONCompactStringsEachRowWithNamesAndTypes",
    "JSONObjectEachRow",
    "JSONColumns",
    "JSONCompactColumns",
    "JSONColumnsWithMetadata",
    "PrettyJSONEachRow",
    "XML",
    "TSKV",
    "LineAsString",
    "Raw",
    "RawWithNames",
    "RawWithNamesAndTypes",
    "SQLInsert",
    "CustomSeparated",
    "CustomSeparatedWithNames",
    "CustomSeparatedWithNamesAndTypes",
    "PrettyMonoBlock",
    "PrettyCompactMonoBlock",
    "PrettySpaceMonoBlock",
    "PrettyNoEscapesMonoBlock",
];

/// Outputs known to differ, with the reason. ClickHouse switches Pretty formats to the
/// Vertical layout for tables of at least 5 columns and 250 characters with at most 10
/// rows (output_format_pretty_fallback_to_vertical); Granary does not yet.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    ("composites", "Pretty"),
    ("composites", "PrettyCompact"),
    ("composites", "PrettySpace"),
    ("composites", "PrettyMonoBlock"),
    ("composites", "PrettyCompactMonoBlock"),
    ("composites", "PrettySpaceMonoBlock"),
    ("composites", "PrettyNoEscapesMonoBlock"),
];

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("data")
}

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits at commas outside parentheses, quotes and backquotes.
fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut quote: Option<char> = None;
    let mut current = String::new();
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '`' => quote = Some(c),
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(current.trim().to_string());
                    current.clear();
                    continue;
                }
                _ => {}
            },
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_string());
    }
    parts
}

fn schema(structure: &str) -> SchemaRef {
    let fields: Vec<Field> = split_top_level(structure)
        .iter()
        .map(|column| {
            let (name, type_name) = if let Some(rest) = column.strip_prefix('`') {
                let end = rest.find('`').unwrap();
                (rest[..end].to_string(), rest[end + 1..].trim().to_string())
            } else {
                let (n, t) = column.split_once(' ').unwrap();
                (n.to_string(), t.trim().to_string())
            };
            ChType::parse(&type_name).unwrap().to_arrow_field(&name)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

fn format_settings(settings: &str) -> FormatSettings {
    let mut known = Settings::new();
    known.set("output_format_write_statistics", "0").unwrap();
    let mut trailing_zeros = false;
    for setting in split_top_level(settings) {
        let (key, value) = setting.split_once('=').unwrap();
        // A SQL string literal: quotes off, backslash escapes decoded.
        let value = sql_unescape(value.trim().trim_matches('\''));
        let value = value.as_str();
        match key.trim() {
            // Not in the settings registry: applied to the format settings directly.
            "output_format_decimal_trailing_zeros" => trailing_zeros = value == "1",
            key => known.set(key, value).unwrap(),
        }
    }
    let mut f = FormatSettings::from_settings(&known, chrono_tz::Tz::UTC);
    f.text.decimal_trailing_zeros = trailing_zeros;
    f
}

fn sql_unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(40);
    format!(
        "first difference at byte {at}:\n  granary:    {:?}\n  clickhouse: {:?}",
        String::from_utf8_lossy(&a[from..(at + 40).min(a.len())]),
        String::from_utf8_lossy(&b[from..(at + 40).min(b.len())])
    )
}

/// The formats to compare: all, or those listed in `GOLDEN_FORMATS` (comma-separated,
/// for working on one format).
fn formats() -> Vec<&'static str> {
    match std::env::var("GOLDEN_FORMATS") {
        Ok(list) => FORMATS.iter().copied().filter(|f| list.split(',').any(|x| x == *f)).collect(),
        Err(_) => FORMATS.to_vec(),
    }
}

#[test]
fn outputs_match_clickhouse() {
    let manifest = std::fs::read_to_string(data_dir().join("cases.tsv")).unwrap();
    let mut failures = Vec::new();
    let mut compared = 0;
    for line in manifest.lines() {
        let fields: Vec<String> = line.split('\t').map(unescape).collect();
        let (name, structure, settings, data) = (&fields[0], &fields[1], &fields[2], &fields[3]);
        let schema = schema(structure);
        let format_settings = format_settings(settings);
        // Read the data with Granary's Values parser; split in two pushes on purpose.
        let mut input = create_input_format("Values", schema.clone(), &format_settings).unwrap();
        let mut batches = Vec::new();
        let (first, second) = data.as_bytes().split_at(data.len() / 2);
        input.push(first, &mut batches).unwrap_or_else(|e| panic!("{name}: {e}"));
        input.push(second, &mut batches).unwrap_or_else(|e| panic!("{name}: {e}"));
        input.finish(&mut batches).unwrap_or_else(|e| panic!("{name}: {e}"));
        for format in formats() {
            let expected = std::fs::read(data_dir().join("out").join(format!("{name}.{format}"))).unwrap();
            let mut output = create_output_format(format, schema.clone(), &format_settings).unwrap();
            let mut out = Vec::new();
            output.write_prefix(&mut out).unwrap();
            for batch in &batches {
                output.write_batch(batch, &mut out).unwrap();
            }
            output.write_suffix(&QueryStatistics::default(), &mut out).unwrap();
            compared += 1;
            if KNOWN_DIFFERENCES.contains(&(name.as_str(), format)) {
                continue;
            }
            if out != expected {
                failures.push(format!("{name} as {format}: {}", first_difference(&out, &expected)));
            }
        }
    }
    assert!(compared > 1000 || std::env::var("GOLDEN_FORMATS").is_ok(), "only {compared} comparisons");
    assert!(failures.is_empty(), "{} of {compared} outputs differ from ClickHouse:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn outputs_are_the_same_in_any_batch_split() {
    // A result delivered one row per batch writes the same bytes as in one batch.
    let manifest = std::fs::read_to_string(data_dir().join("cases.tsv")).unwrap();
    for line in manifest.lines() {
        let fields: Vec<String> = line.split('\t').map(unescape).collect();
        let (name, structure, settings, data) = (&fields[0], &fields[1], &fields[2], &fields[3]);
        let schema = schema(structure);
        let mut format_settings = format_settings(settings);
        let mut whole = Vec::new();
        let mut input = create_input_format("Values", schema.clone(), &format_settings).unwrap();
        input.push(data.as_bytes(), &mut whole).unwrap();
        input.finish(&mut whole).unwrap();
        format_settings.max_block_rows = 1;
        let mut single = Vec::new();
        let mut input = create_input_format("Values", schema.clone(), &format_settings).unwrap();
        input.push(data.as_bytes(), &mut single).unwrap();
        input.finish(&mut single).unwrap();
        for format in formats() {
            let write = |batches: &[arrow::record_batch::RecordBatch]| {
                let mut output = create_output_format(format, schema.clone(), &format_settings).unwrap();
                let mut out = Vec::new();
                output.write_prefix(&mut out).unwrap();
                for b in batches {
                    output.write_batch(b, &mut out).unwrap();
                }
                output.write_suffix(&QueryStatistics::default(), &mut out).unwrap();
                out
            };
            assert_eq!(write(&whole), write(&single), "{name} as {format}");
        }
    }
}
