//! Schema inference for text formats with ClickHouse's rules: a sample of rows (at most
//! `input_format_max_rows_to_read_for_schema_inference` rows and
//! `input_format_max_bytes_to_read_for_schema_inference` bytes) is read, each value's
//! type guessed (`Int64`, `Float64`, `Bool`, `Date`, `DateTime`, `DateTime64(9)`,
//! `String`, `Array(T)` for JSON), the guesses of a column merged (integers and floats
//! give `Float64`, anything else mixed gives `String`), and the result made `Nullable`
//! (`schema_inference_make_columns_nullable`).
//!
//! `CSV` and `TSV` detect a header of names the way ClickHouse does: the first row is
//! names when all its values are strings and some column of the following rows is not.

use std::io::Read;

use granary_common::{Error, ErrorCode, Result, Settings};
use granary_types::ChType;

/// What inference found: the columns, and the exact format to read with (a detected
/// header turns `CSV` into `CSVWithNames`).
#[derive(Debug, Clone)]
pub struct Inferred {
    pub columns: Vec<(String, ChType)>,
    pub format: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Guess {
    Null,
    Bool,
    Int,
    Float,
    Date,
    DateTime,
    DateTime64,
    String,
    Array(Box<Guess>),
}

fn merge(a: Guess, b: Guess) -> Guess {
    use Guess::*;
    match (a, b) {
        (Null, x) | (x, Null) => x,
        (a, b) if a == b => a,
        (Int, Float) | (Float, Int) => Float,
        (Date, DateTime) | (DateTime, Date) => DateTime,
        (DateTime, DateTime64) | (DateTime64, DateTime) | (Date, DateTime64) | (DateTime64, Date) => DateTime64,
        (Array(a), Array(b)) => Array(Box::new(merge(*a, *b))),
        _ => String,
    }
}

struct Rules {
    integers: bool,
    dates: bool,
    datetimes: bool,
    nullable: bool,
}

impl Rules {
    fn from(settings: &Settings) -> Rules {
        Rules {
            integers: settings.get_bool("input_format_try_infer_integers"),
            dates: settings.get_bool("input_format_try_infer_dates"),
            datetimes: settings.get_bool("input_format_try_infer_datetimes"),
            nullable: settings.get_u64("schema_inference_make_columns_nullable") != 0,
        }
    }

    /// The type of an unquoted text value.
    fn text(&self, v: &str) -> Guess {
        if v == "true" || v == "false" {
            return Guess::Bool;
        }
        if is_int(v) {
            return if self.integers && v.trim_start_matches(['-', '+']).len() <= 18 { Guess::Int } else { Guess::Float };
        }
        if is_float(v) {
            return Guess::Float;
        }
        self.string(v)
    }

    /// The type of a string value: a date or time if it looks like one.
    fn string(&self, v: &str) -> Guess {
        let b = v.as_bytes();
        let date = b.len() >= 10 && b[..10].iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
        if date && b.len() == 10 && self.dates {
            return Guess::Date;
        }
        if date && self.datetimes && b.len() >= 19 && (b[10] == b' ' || b[10] == b'T') {
            let time = &b[11..19];
            let ok = time.iter().enumerate().all(|(i, c)| if i == 2 || i == 5 { *c == b':' } else { c.is_ascii_digit() });
            if ok && b.len() == 19 {
                return Guess::DateTime;
            }
            if ok && b[19] == b'.' && b.len() > 20 && b[20..].iter().all(u8::is_ascii_digit) {
                return Guess::DateTime64;
            }
        }
        Guess::String
    }

    fn json(&self, v: &serde_json::Value) -> Guess {
        match v {
            serde_json::Value::Null => Guess::Null,
            serde_json::Value::Bool(_) => Guess::Bool,
            serde_json::Value::Number(n) => {
                if n.is_i64() && self.integers {
                    Guess::Int
                } else {
                    Guess::Float
                }
            }
            serde_json::Value::String(s) => self.string(s),
            serde_json::Value::Array(items) => Guess::Array(Box::new(items.iter().map(|i| self.json(i)).fold(Guess::Null, merge))),
            serde_json::Value::Object(_) => Guess::String,
        }
    }

    fn to_type(&self, g: &Guess, top: bool) -> ChType {
        let base = match g {
            Guess::Null | Guess::String => "String",
            Guess::Bool => "Bool",
            Guess::Int => "Int64",
            Guess::Float => "Float64",
            Guess::Date => "Date",
            Guess::DateTime => "DateTime",
            Guess::DateTime64 => "DateTime64(9)",
            Guess::Array(inner) => {
                let inner = self.to_type(inner, false);
                return ChType::parse(&format!("Array({inner})")).unwrap_or(ChType::String);
            }
        };
        let _ = top;
        let name = if self.nullable { format!("Nullable({base})") } else { base.to_string() };
        ChType::parse(&name).unwrap_or(ChType::String)
    }
}

fn is_int(v: &str) -> bool {
    let d = v.strip_prefix(['-', '+']).unwrap_or(v);
    !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())
}

fn is_float(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    if matches!(lower.trim_start_matches(['-', '+']), "inf" | "nan") {
        return true;
    }
    let has_digit = v.bytes().any(|c| c.is_ascii_digit());
    has_digit && v.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'-' | b'+')) && v.parse::<f64>().is_ok()
}

/// A JSON object with its keys in document order (serde_json's map sorts them; column
/// order must follow the data).
struct Ordered(Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                    out.push((k, v));
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// Reads the sample: whole lines up to the row and byte limits.
fn sample(reader: &mut dyn Read, max_rows: usize, max_bytes: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut lines = 0usize;
    loop {
        let n = reader.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        lines += memchr_count(&chunk[..n]);
        buf.extend_from_slice(&chunk[..n]);
        if lines > max_rows + 2 || buf.len() >= max_bytes {
            break;
        }
    }
    Ok(buf)
}

fn memchr_count(b: &[u8]) -> usize {
    b.iter().filter(|c| **c == b'\n').count()
}

/// One CSV record: (value, was quoted). `None` values are NULL (`\N` or empty unquoted).
fn csv_records(data: &[u8], delimiter: u8, complete_only: bool) -> Vec<Vec<(Option<String>, bool)>> {
    let mut records = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let mut record = Vec::new();
        loop {
            let (value, quoted, next, end_of_record) = csv_field(data, pos, delimiter);
            let Some(next) = next else {
                // An unfinished record at the end of an incomplete sample is dropped.
                if complete_only {
                    return records;
                }
                record.push((value, quoted));
                records.push(record);
                return records;
            };
            record.push((value, quoted));
            pos = next;
            if end_of_record {
                break;
            }
        }
        if !(record.len() == 1 && record[0].0.is_none() && !record[0].1) {
            records.push(record);
        }
    }
    records
}

/// Returns (value, quoted, position after the delimiter or newline, record ended).
fn csv_field(data: &[u8], mut pos: usize, delimiter: u8) -> (Option<String>, bool, Option<usize>, bool) {
    if data.get(pos) == Some(&b'"') {
        let mut value = Vec::new();
        pos += 1;
        loop {
            match data.get(pos) {
                None => return (Some(String::from_utf8_lossy(&value).into_owned()), true, None, true),
                Some(b'"') if data.get(pos + 1) == Some(&b'"') => {
                    value.push(b'"');
                    pos += 2;
                }
                Some(b'"') => {
                    pos += 1;
                    break;
                }
                Some(c) => {
                    value.push(*c);
                    pos += 1;
                }
            }
        }
        // Skip to the delimiter or end of line.
        while let Some(c) = data.get(pos) {
            if *c == delimiter || *c == b'\n' {
                break;
            }
            pos += 1;
        }
        let v = Some(String::from_utf8_lossy(&value).into_owned());
        return match data.get(pos) {
            None => (v, true, None, true),
            Some(b'\n') => (v, true, Some(pos + 1), true),
            Some(_) => (v, true, Some(pos + 1), false),
        };
    }
    let start = pos;
    while let Some(c) = data.get(pos) {
        if *c == delimiter || *c == b'\n' {
            break;
        }
        pos += 1;
    }
    let raw = String::from_utf8_lossy(&data[start..pos]);
    let raw = raw.strip_suffix('\r').unwrap_or(&raw);
    let value = if raw.is_empty() || raw == "\\N" { None } else { Some(raw.to_string()) };
    match data.get(pos) {
        None => (value, false, None, true),
        Some(b'\n') => (value, false, Some(pos + 1), true),
        Some(_) => (value, false, Some(pos + 1), false),
    }
}

fn tsv_records(data: &[u8], complete_only: bool) -> Vec<Vec<(Option<String>, bool)>> {
    let mut lines: Vec<&[u8]> = data.split(|c| *c == b'\n').collect();
    // The piece after the last newline is incomplete unless the file ended there.
    if let Some(last) = lines.pop() {
        if !complete_only && !last.is_empty() {
            lines.push(last);
        }
    }
    lines
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            line.split(|c| *c == b'\t')
                .map(|f| {
                    if f == b"\\N" {
                        (None, false)
                    } else {
                        (Some(unescape_tsv_field(f)), false)
                    }
                })
                .collect()
        })
        .collect()
}


/// Infers the columns of a format that carries names and types (`Native`,
/// `RowBinaryWithNamesAndTypes`) from the start of a stream: what it declares, read
/// as far as needed (a Native block is read whole, it may be large).
pub fn infer_from_header(format: &str, reader: &mut dyn Read, source: &str) -> Result<Inferred> {
    let mut data = Vec::new();
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        if let Some(columns) = granary_formats::input::native::header_columns(format, &data)? {
            return Ok(Inferred { columns, format: format.to_string() });
        }
        let n = reader.read(&mut chunk).map_err(|e| crate::detect::corrupt(source, e))?;
        if n == 0 {
            let why = if data.is_empty() { "the file is empty" } else { "the data ends inside its first block" };
            return Err(Error::new(
                ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
                format!("The table structure cannot be extracted from a {format} format file: {why}. You can specify the structure manually: (in file/uri {source})"),
            ));
        }
        data.extend_from_slice(&chunk[..n]);
    }
}

/// Infers the columns of `format` from the start of a stream.
pub fn infer_text(format: &str, reader: &mut dyn Read, settings: &Settings, source: &str) -> Result<Inferred> {
    let rules = Rules::from(settings);
    let max_rows = settings.get_u64("input_format_max_rows_to_read_for_schema_inference").max(1) as usize;
    let max_bytes = settings.get_u64("input_format_max_bytes_to_read_for_schema_inference").max(1) as usize;
    let data = sample(reader, max_rows, max_bytes).map_err(|e| crate::detect::corrupt(source, e))?;
    let complete_only = data.len() >= max_bytes;
    let cannot = |why: &str| {
        Error::new(
            ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
            format!("The table structure cannot be extracted from a {format} format file. Error: {why}. You can specify the structure manually: (in file/uri {source})"),
        )
    };
    if matches!(format, "JSONEachRow" | "JSONLines" | "NDJSON") {
        let mut columns: Vec<(String, Guess)> = Vec::new();
        let text = String::from_utf8_lossy(&data);
        let mut lines: Vec<&str> = text.split('\n').collect();
        if complete_only {
            lines.pop();
        }
        for line in lines.into_iter().map(str::trim).filter(|l| !l.is_empty()).take(max_rows) {
            let line = line.trim_end_matches(',');
            if line == "[" || line == "]" {
                continue;
            }
            let Ordered(map) = serde_json::from_str(line).map_err(|e| cannot(&format!("Cannot parse JSON object: {e}")))?;
            for (name, v) in map {
                let g = rules.json(&v);
                match columns.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, prev)) => *prev = merge(prev.clone(), g),
                    None => columns.push((name, g)),
                }
            }
        }
        if columns.is_empty() {
            return Err(cannot("Cannot extract table structure from JSONEachRow format file, file is empty"));
        }
        let columns = columns.iter().map(|(n, g)| (n.clone(), rules.to_type(g, true))).collect();
        return Ok(Inferred { columns, format: "JSONEachRow".into() });
    }
    let (csv, names_line, types_line, detect) = match format {
        "CSV" => (true, false, false, settings.get_bool("input_format_csv_detect_header")),
        "CSVWithNames" => (true, true, false, false),
        "CSVWithNamesAndTypes" => (true, true, true, false),
        "TabSeparated" | "TSV" | "TabSeparatedRaw" | "TSVRaw" => (false, false, false, settings.get_bool("input_format_tsv_detect_header")),
        "TabSeparatedWithNames" | "TSVWithNames" => (false, true, false, false),
        "TabSeparatedWithNamesAndTypes" | "TSVWithNamesAndTypes" => (false, true, true, false),
        other => return Err(Error::new(ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE, format!("Format {other} does not support schema inference; specify the structure"))),
    };
    let delimiter = settings.get_str("format_csv_delimiter").bytes().next().unwrap_or(b',');
    let mut records = if csv { csv_records(&data, delimiter, complete_only) } else { tsv_records(&data, complete_only) };
    if records.is_empty() {
        return Err(cannot("Cannot extract table structure from CSV format file, file is empty"));
    }
    let text_of = |v: &(Option<String>, bool)| v.0.clone().unwrap_or_default();
    let mut names: Option<Vec<String>> = None;
    let mut types: Option<Vec<ChType>> = None;
    if names_line {
        names = Some(records.remove(0).iter().map(text_of).collect());
        if types_line && !records.is_empty() {
            let parsed: Result<Vec<ChType>> = records.remove(0).iter().map(|v| ChType::parse(&text_of(v))).collect();
            types = Some(parsed?);
        }
    }
    let width = records.iter().map(Vec::len).max().unwrap_or(0).max(names.as_ref().map_or(0, Vec::len));
    let guess_rows = |rows: &[Vec<(Option<String>, bool)>]| -> Vec<Guess> {
        let mut guesses = vec![Guess::Null; width];
        for row in rows.iter().take(max_rows) {
            for (i, (v, quoted)) in row.iter().enumerate() {
                let g = match v {
                    None => Guess::Null,
                    // ClickHouse reads a quoted CSV value as a string (or a date in one).
                    Some(s) if *quoted => rules.string(s),
                    Some(s) => rules.text(s),
                };
                guesses[i] = merge(guesses[i].clone(), g);
            }
        }
        guesses
    };
    let mut guesses = guess_rows(&records);
    let mut read_format = format.to_string();
    if detect && records.len() >= 2 {
        let first = &records[0];
        let first_all_strings = first.len() == width && first.iter().all(|(v, _)| v.as_ref().is_some_and(|s| rules.text(s) == Guess::String));
        let rest = guess_rows(&records[1..]);
        if first_all_strings && rest.iter().any(|g| !matches!(g, Guess::String | Guess::Null)) {
            names = Some(records.remove(0).iter().map(text_of).collect());
            guesses = rest;
            read_format = if csv { "CSVWithNames".into() } else { "TSVWithNames".into() };
        }
    }
    let names = names.unwrap_or_else(|| (1..=width).map(|i| format!("c{i}")).collect());
    let columns = names
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let t = match &types {
                Some(t) => t.get(i).cloned().unwrap_or(ChType::String),
                None => rules.to_type(guesses.get(i).unwrap_or(&Guess::Null), true),
            };
            (n, t)
        })
        .collect();
    Ok(Inferred { columns, format: read_format })
}

fn unescape_tsv_field(field: &[u8]) -> String {
    let mut out = Vec::with_capacity(field.len());
    granary_types::text::escape::unescape_tsv(field, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer(format: &str, data: &str) -> (Vec<String>, String) {
        let r = infer_text(format, &mut data.as_bytes(), &Settings::new(), "x").unwrap();
        (r.columns.iter().map(|(n, t)| format!("{n} {t}")).collect(), r.format)
    }

    #[test]
    fn csv_with_detected_header() {
        let (cols, f) = infer("CSV", "a,b,c,d,e\n1,2.5,hello,2024-01-02,2024-01-02 03:04:05\n3,,x,2024-01-03,2024-01-02 03:04:05\n");
        assert_eq!(cols, ["a Nullable(Int64)", "b Nullable(Float64)", "c Nullable(String)", "d Nullable(Date)", "e Nullable(DateTime)"]);
        assert_eq!(f, "CSVWithNames");
        let (cols, f) = infer("CSV", "1,\"x,y\"\n2,z\n");
        assert_eq!(cols, ["c1 Nullable(Int64)", "c2 Nullable(String)"]);
        assert_eq!(f, "CSV");
    }

    #[test]
    fn tsv_and_json() {
        let (cols, f) = infer("TSV", "a\tb\n1\tx\n");
        assert_eq!(cols, ["a Nullable(Int64)", "b Nullable(String)"]);
        assert_eq!(f, "TSVWithNames");
        let (cols, _) = infer("JSONEachRow", "{\"a\":1,\"b\":\"x\",\"c\":[1,2],\"d\":true,\"e\":1.5,\"f\":null}\n{\"a\":2,\"e\":2,\"f\":\"z\",\"c\":[]}\n");
        assert_eq!(cols, ["a Nullable(Int64)", "b Nullable(String)", "c Array(Nullable(Int64))", "d Nullable(Bool)", "e Nullable(Float64)", "f Nullable(String)"]);
    }

    #[test]
    fn empty_is_an_error() {
        let e = infer_text("CSV", &mut &b""[..], &Settings::new(), "x").unwrap_err();
        assert_eq!(e.code(), ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE);
    }
}
