//! Hive-style partitioning: `name=value` directories in the paths of the files a table
//! function reads become columns (`use_hive_partitioning`, on by default as in
//! ClickHouse 26), and `INSERT INTO FUNCTION s3() ... PARTITION BY` can write that layout.
//!
//! Reading follows ClickHouse:
//!
//! * the keys come from the directories of one sample path (the first file; the file
//!   name itself never counts), sorted by name; a key given twice with different values
//!   is INCORRECT_DATA; `"quoted"` values lose their quotes;
//! * without a `structure` argument, a key that names a column of the file takes that
//!   column's type and its value comes from the path; the other keys are new columns
//!   after the file's, typed by ClickHouse's inference of a raw text value (`Int64`,
//!   `UInt64`, `Float64`, `Bool`, `Date`, `DateTime`, `DateTime64(9)`, arrays, tuples
//!   and maps in the quoted syntax, `Nullable(Nothing)` for `NULL`, else
//!   `LowCardinality(String)`; an empty value is `String`);
//! * with a `structure`, only its columns exist; those named like a key are filled from
//!   the path;
//! * every file's values are parsed once at planning ([`attach_values`]), so a `WHERE`
//!   on them (and on `_path`/`_file`) drops whole files before any is opened
//!   ([`crate::table::FileTable`]'s pruning).

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::common::ScalarValue;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::ColumnBuilder;
use granary_types::text::TextOptions;
use granary_types::ChType;

use crate::table::FileEntry;

/// A column whose values come from the files' paths.
#[derive(Debug, Clone, PartialEq)]
pub struct HiveColumn {
    pub name: String,
    pub ch_type: ChType,
    /// The index of the file's column it stands in for (its value comes from the path);
    /// `None`: a column of its own after the file's.
    pub replaces: Option<usize>,
}

/// The `key=value` directories of `path` (the file name excluded), by key.
pub fn partition_values(path: &str) -> Result<BTreeMap<String, String>> {
    let mut found = BTreeMap::new();
    let Some(directories) = path.rfind('/').map(|at| &path[..at]) else { return Ok(found) };
    for segment in directories.split('/') {
        let Some((key, value)) = segment.split_once('=') else { continue };
        if key.is_empty() {
            continue;
        }
        let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
        match found.get(key) {
            Some(previous) if previous != value => {
                return Err(Error::new(
                    ErrorCode::INCORRECT_DATA,
                    format!("Path '{path}' to file with enabled hive-style partitioning contains duplicated partition key {key} with different values, only unique keys are allowed"),
                ))
            }
            _ => {
                found.insert(key.to_string(), value.to_string());
            }
        }
    }
    Ok(found)
}

/// The part of a file's `_path` that holds its directories: the path of a URL (no
/// scheme, host or query), the path itself otherwise.
pub fn directory_path(path: &str) -> &str {
    let Some(scheme_end) = path.find("://") else { return path };
    let after_host = &path[scheme_end + 3..];
    let Some(slash) = after_host.find('/') else { return "" };
    let url_path = &after_host[slash..];
    url_path.split(['?', '#']).next().unwrap_or(url_path)
}

/// The hive columns of a table whose first file is at `sample_path`, given the file's
/// `columns` (inferred, or the `structure` argument when `structure_given`).
pub fn columns_for(sample_path: &str, columns: &[(String, ChType)], structure_given: bool) -> Result<Vec<HiveColumn>> {
    let values = partition_values(directory_path(sample_path))?;
    let mut hive = Vec::new();
    for (key, value) in values {
        match columns.iter().position(|(name, _)| *name == key) {
            Some(index) => hive.push(HiveColumn { name: key, ch_type: columns[index].1.clone(), replaces: Some(index) }),
            None if structure_given => {}
            None => hive.push(HiveColumn { ch_type: infer_type(&value), name: key, replaces: None }),
        }
    }
    if !columns.is_empty() && !structure_given && columns.iter().all(|(name, _)| hive.iter().any(|h| h.name == *name)) {
        return Err(Error::new(
            ErrorCode::INCORRECT_DATA,
            "A hive partitioned file can't contain only partition columns. Try reading it with `use_hive_partitioning=0` and/or `partition_strategy != hive`",
        ));
    }
    Ok(hive)
}

/// Parses every file's values of `columns` from its path (a file without a key gets the
/// type's default) and keeps them in [`FileEntry::hive_values`].
pub fn attach_values(files: &mut [FileEntry], columns: &[HiveColumn], text: &TextOptions) -> Result<()> {
    if columns.is_empty() {
        return Ok(());
    }
    let mut builders = columns.iter().map(|c| ColumnBuilder::with_type(&c.ch_type, text)).collect::<Result<Vec<_>>>()?;
    for file in files.iter() {
        let values = partition_values(directory_path(&file.path))?;
        for (column, builder) in columns.iter().zip(builders.iter_mut()) {
            let parsed = match values.get(&column.name) {
                None => builder.append_default(),
                Some(value) if is_null_literal(value) && builder.is_nullable() => builder.append_null(),
                Some(_) if column.ch_type.base() == &ChType::Nothing => builder.append_null(),
                Some(value) => builder.parse_text(value.as_bytes()),
            };
            parsed.map_err(|e| {
                Error::new(
                    e.code(),
                    format!("Cannot read the value of partition column {} of type {} from the path {}: {}", column.name, column.ch_type, file.path, e.message()),
                )
            })?;
        }
    }
    let arrays = builders.iter_mut().map(|b| b.finish()).collect::<Result<Vec<_>>>()?;
    for (row, file) in files.iter_mut().enumerate() {
        let scalars = arrays.iter().map(|array| ScalarValue::try_from_array(array, row)).collect::<datafusion::common::Result<Vec<_>>>()?;
        file.hive_values = Some(Arc::from(scalars));
    }
    Ok(())
}

fn is_null_literal(value: &str) -> bool {
    value.eq_ignore_ascii_case("null") || value == "\\N"
}

/// ClickHouse's type of a raw text value (`tryInferDataTypeByEscapingRule(Raw)`), with
/// its defaults: exponent floats are not numbers (`input_format_try_infer_exponent_floats
/// = 0`), strings are `LowCardinality(String)`.
pub fn infer_type(value: &str) -> ChType {
    if value.is_empty() {
        return ChType::String;
    }
    if is_null_literal(value) {
        return ChType::Nullable(Box::new(ChType::Nothing));
    }
    let scalar = infer_scalar(value, false);
    if let Some(t) = scalar {
        return t;
    }
    if value.starts_with(['[', '(', '{']) {
        let mut parser = Quoted { text: value.as_bytes(), pos: 0 };
        if let Some(t) = parser.value() {
            parser.skip_spaces();
            if parser.pos == parser.text.len() {
                return t;
            }
        }
    }
    ChType::LowCardinality(Box::new(ChType::String))
}

/// Booleans, numbers, dates and times written plainly; `quoted`: the text was inside
/// quotes (dates only: a quoted number is a string).
fn infer_scalar(value: &str, quoted: bool) -> Option<ChType> {
    if !quoted {
        if value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("false") {
            return Some(ChType::Bool);
        }
        if let Some(t) = integer_type(value) {
            return Some(t);
        }
        if is_plain_float(value) {
            return Some(ChType::Float64);
        }
    }
    date_or_time_type(value)
}

fn integer_type(value: &str) -> Option<ChType> {
    let digits = value.strip_prefix(['-', '+']).unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if value.parse::<i64>().is_ok() {
        return Some(ChType::Int64);
    }
    (!value.starts_with('-') && digits.parse::<u64>().is_ok()).then_some(ChType::UInt64)
}

/// `1.5`, `-0.5`, `1.`, `.5`, `nan`, `inf` (no exponent).
fn is_plain_float(value: &str) -> bool {
    let unsigned = value.strip_prefix(['-', '+']).unwrap_or(value);
    if unsigned.eq_ignore_ascii_case("nan") || unsigned.eq_ignore_ascii_case("inf") {
        return true;
    }
    let Some((whole, fraction)) = unsigned.split_once('.') else { return false };
    (!whole.is_empty() || !fraction.is_empty()) && whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())
}

/// `YYYY-MM-DD` (a valid date), `YYYY-MM-DD hh:mm:ss` (`T` also separates them) and the
/// same with a fraction of a second.
fn date_or_time_type(value: &str) -> Option<ChType> {
    let b = value.as_bytes();
    let date_shape = b.len() >= 10 && b[..10].iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
    if !date_shape || granary_types::text::datetime::parse_date(&b[..10]).is_err() {
        return None;
    }
    if b.len() == 10 {
        return Some(ChType::Date);
    }
    if b.len() < 19 || !(b[10] == b' ' || b[10] == b'T') {
        return None;
    }
    let time_shape = b[11..19].iter().enumerate().all(|(i, c)| if i == 2 || i == 5 { *c == b':' } else { c.is_ascii_digit() });
    if !time_shape {
        return None;
    }
    match &b[19..] {
        [] => Some(ChType::DateTime(None)),
        [b'.', fraction @ ..] if !fraction.is_empty() && fraction.iter().all(u8::is_ascii_digit) => Some(ChType::DateTime64(9, None)),
        _ => None,
    }
}

/// Type inference over the quoted syntax of nested values: `[1, 2.5]`, `('a', 1)`,
/// `{'k': [1]}`, `NULL`, `'text'`, numbers, `true`/`false`.
struct Quoted<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Quoted<'_> {
    fn skip_spaces(&mut self) {
        while self.text.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_spaces();
        if self.text.get(self.pos) == Some(&byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// One value's type; `Nothing` for `NULL`.
    fn value(&mut self) -> Option<ChType> {
        self.skip_spaces();
        match *self.text.get(self.pos)? {
            b'[' => {
                self.pos += 1;
                let items = self.list(b']')?;
                let element = items.into_iter().try_fold(None, |acc: Option<ChType>, t| Some(Some(match acc {
                    None => t,
                    Some(a) => unify(a, t)?,
                })))?;
                Some(ChType::Array(Box::new(element.map(nullable_nothing).unwrap_or(ChType::Nothing))))
            }
            b'(' => {
                self.pos += 1;
                let items = self.list(b')')?;
                if items.is_empty() {
                    return None;
                }
                Some(ChType::Tuple(items.into_iter().enumerate().map(|(i, t)| ((i + 1).to_string(), nullable_nothing(t))).collect()))
            }
            b'{' => {
                self.pos += 1;
                let (mut keys, mut values): (Option<ChType>, Option<ChType>) = (None, None);
                if !self.eat(b'}') {
                    loop {
                        let key = self.value()?;
                        if !self.eat(b':') {
                            return None;
                        }
                        let value = self.value()?;
                        keys = Some(match keys {
                            None => key,
                            Some(k) => unify(k, key)?,
                        });
                        values = Some(match values {
                            None => value,
                            Some(v) => unify(v, value)?,
                        });
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return None;
                        }
                    }
                }
                Some(ChType::Map(Box::new(keys.unwrap_or(ChType::Nothing)), Box::new(values.map(nullable_nothing).unwrap_or(ChType::Nothing))))
            }
            b'\'' => {
                self.pos += 1;
                let mut content = Vec::new();
                loop {
                    match *self.text.get(self.pos)? {
                        b'\\' => {
                            content.push(*self.text.get(self.pos + 1)?);
                            self.pos += 2;
                        }
                        b'\'' => {
                            self.pos += 1;
                            break;
                        }
                        other => {
                            content.push(other);
                            self.pos += 1;
                        }
                    }
                }
                let content = String::from_utf8(content).ok()?;
                Some(infer_scalar(&content, true).unwrap_or(ChType::String))
            }
            _ => {
                let start = self.pos;
                while self.text.get(self.pos).is_some_and(|b| !matches!(b, b',' | b']' | b')' | b'}' | b':') && !b.is_ascii_whitespace()) {
                    self.pos += 1;
                }
                let word = std::str::from_utf8(&self.text[start..self.pos]).ok()?;
                if word.eq_ignore_ascii_case("null") {
                    return Some(ChType::Nothing);
                }
                match infer_scalar(word, false)? {
                    t @ (ChType::Bool | ChType::Int64 | ChType::UInt64 | ChType::Float64) => Some(t),
                    _ => None,
                }
            }
        }
    }

    /// Values up to `close`, comma-separated.
    fn list(&mut self, close: u8) -> Option<Vec<ChType>> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Some(items);
        }
        loop {
            items.push(self.value()?);
            if self.eat(close) {
                return Some(items);
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }
}

/// A `NULL` element alone is `Nullable(Nothing)`.
fn nullable_nothing(t: ChType) -> ChType {
    if t == ChType::Nothing {
        ChType::Nullable(Box::new(ChType::Nothing))
    } else {
        t
    }
}

/// The common type of two elements, as ClickHouse's inference merges them: NULL makes
/// a scalar Nullable, integers and floats give Float64, anything else mixed fails.
fn unify(a: ChType, b: ChType) -> Option<ChType> {
    use ChType::*;
    let nullable = |t: ChType| match t {
        Nullable(_) | Array(_) | Tuple(_) | Map(..) | Nothing => None,
        t => Some(Nullable(Box::new(t))),
    };
    match (a, b) {
        (a, b) if a == b => Some(a),
        (Nothing, t) | (t, Nothing) => match t {
            Nullable(_) => Some(t),
            t => nullable(t),
        },
        (Nullable(a), b) | (b, Nullable(a)) => unify(*a, b).and_then(|t| match t {
            Nullable(_) => Some(t),
            t => nullable(t),
        }),
        (Int64 | UInt64, Float64) | (Float64, Int64 | UInt64) => Some(Float64),
        (Int64, UInt64) | (UInt64, Int64) => Some(Float64),
        (Date, DateTime(None)) | (DateTime(None), Date) => Some(DateTime(None)),
        (Array(a), Array(b)) => Some(Array(Box::new(unify(*a, *b)?))),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn inferred(value: &str) -> String {
        infer_type(value).to_string()
    }

    #[test]
    fn keys_and_values_from_directories() {
        let values = partition_values("/data/year=2024/city=Berlin/part=1.csv").unwrap();
        assert_eq!(values.into_iter().collect::<Vec<_>>(), [("city".to_string(), "Berlin".to_string()), ("year".to_string(), "2024".to_string())]);
        assert!(partition_values("/no/partitions/x.parquet").unwrap().is_empty());
        assert_eq!(partition_values("a/k=\"q\"/x").unwrap()["k"], "q");
        assert_eq!(partition_values("a/country=c d=e/x").unwrap()["country"], "c d=e");
        assert!(partition_values("a/=5/x").unwrap().is_empty());
        assert_eq!(partition_values("/f/k=1/k=1/x").unwrap()["k"], "1");
        let duplicate = partition_values("/f/k=1/k=2/x").unwrap_err();
        assert_eq!(duplicate.code(), ErrorCode::INCORRECT_DATA);
        assert_eq!(directory_path("http://h:80/a/k=1/x.csv?y=2/3"), "/a/k=1/x.csv");
        assert_eq!(directory_path("bucket/k=1/x"), "bucket/k=1/x");
    }

    #[test]
    fn inferred_types_follow_clickhouse() {
        // Each pair was checked against ClickHouse 26.9 (chdb).
        let cases = [
            ("2024", "Int64"),
            ("-3", "Int64"),
            ("+5", "Int64"),
            ("00123", "Int64"),
            ("18446744073709551615", "UInt64"),
            ("9223372036854775808", "UInt64"),
            ("99999999999999999999", "LowCardinality(String)"),
            ("-9223372036854775809", "LowCardinality(String)"),
            ("1.5", "Float64"),
            ("-0.5", "Float64"),
            ("1.", "Float64"),
            (".5", "Float64"),
            ("nan", "Float64"),
            ("inf", "Float64"),
            ("1e5", "LowCardinality(String)"),
            ("true", "Bool"),
            ("False", "Bool"),
            ("TRUE", "Bool"),
            ("true1", "LowCardinality(String)"),
            ("NULL", "Nullable(Nothing)"),
            ("null", "Nullable(Nothing)"),
            ("\\N", "Nullable(Nothing)"),
            ("", "String"),
            ("abc", "LowCardinality(String)"),
            ("a b", "LowCardinality(String)"),
            ("2024-01-05", "Date"),
            ("2024-13-01", "LowCardinality(String)"),
            ("2024-01-01 10:00:00", "DateTime"),
            ("2024-01-01T10:00:00", "DateTime"),
            ("2024-01-01 00:00:00.123", "DateTime64(9)"),
            ("10:00:00", "LowCardinality(String)"),
            ("[1,2]", "Array(Int64)"),
            ("[1,2.5]", "Array(Float64)"),
            ("['a','b']", "Array(String)"),
            ("[1,'a']", "LowCardinality(String)"),
            ("[]", "Array(Nothing)"),
            ("[[1],[2,3]]", "Array(Array(Int64))"),
            ("[NULL,1]", "Array(Nullable(Int64))"),
            ("(1,2)", "Tuple(Int64, Int64)"),
            ("(1,'x')", "Tuple(Int64, String)"),
            ("{'a':1}", "Map(String, Int64)"),
            ("0x1F", "LowCardinality(String)"),
            ("1_000", "LowCardinality(String)"),
            ("-", "LowCardinality(String)"),
        ];
        for (value, expected) in cases {
            assert_eq!(inferred(value), expected, "{value}");
        }
    }

    #[test]
    fn columns_replace_or_extend_the_files() {
        let data = vec![("id".to_string(), ChType::parse("Nullable(Int64)").unwrap()), ("s".to_string(), ChType::String)];
        let hive = columns_for("/d/year=2024/id=7/a.csv", &data, false).unwrap();
        assert_eq!(
            hive,
            vec![
                HiveColumn { name: "id".into(), ch_type: ChType::parse("Nullable(Int64)").unwrap(), replaces: Some(0) },
                HiveColumn { name: "year".into(), ch_type: ChType::Int64, replaces: None },
            ]
        );
        // A structure keeps only its own columns.
        assert_eq!(columns_for("/d/year=2024/id=7/a.csv", &data, true).unwrap().len(), 1);
        let only = columns_for("/d/id=7/a.csv", &data[..1], false).unwrap_err();
        assert_eq!(only.code(), ErrorCode::INCORRECT_DATA);
    }
}
