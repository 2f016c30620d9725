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
        if let Some(array) = self.array_text(v) {
            return array;
        }
        if is_int(v) {
            return if self.integers && v.trim_start_matches(['-', '+']).len() <= 18 { Guess::Int } else { Guess::Float };
        }
        if is_float(v) {
            return Guess::Float;
        }
        self.string(v)
    }

    /// `[1, 2]`, `['a', NULL]`, `[[1], []]`: an array in the quoted syntax of TabSeparated
    /// values, as ClickHouse infers it; None when the text is not one.
    fn array_text(&self, v: &str) -> Option<Guess> {
        let inner = v.strip_prefix('[')?.strip_suffix(']')?;
        let mut elements = Vec::new();
        let bytes = inner.as_bytes();
        let (mut depth, mut quoted, mut escaped, mut start) = (0i32, false, false, 0);
        for (i, &b) in bytes.iter().enumerate() {
            if quoted {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'\'' => quoted = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'\'' => quoted = true,
                b'[' => depth += 1,
                b']' => depth -= 1,
                b',' if depth == 0 => {
                    elements.push(inner[start..i].trim());
                    start = i + 1;
                }
                _ => {}
            }
        }
        if quoted || depth != 0 {
            return None;
        }
        if !inner.trim().is_empty() {
            elements.push(inner[start..].trim());
        }
        let mut element = Guess::Null;
        for e in elements {
            let guess = if e == "NULL" {
                Guess::Null
            } else if let Some(text) = e.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
                self.string(text)
            } else if e.starts_with('[') {
                self.array_text(e)?
            } else if is_int(e) || is_float(e) || e == "true" || e == "false" {
                self.text(e)
            } else {
                return None;
            };
            element = merge(element, guess);
        }
        Some(Guess::Array(Box::new(element)))
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

/// The objects of a JSONEachRow sample as ClickHouse reads them: separated by any
/// whitespace or commas (one per line, several on a line, or one spread over lines),
/// optionally inside `[` ... `]`. With `complete_only` the sample was cut at a size
/// limit, so an object the cut truncates ends the rows instead of being an error.
fn json_objects(data: &[u8], complete_only: bool) -> impl Iterator<Item = std::result::Result<Ordered, serde_json::Error>> + '_ {
    let skip = |mut pos: usize| {
        while pos < data.len() && (data[pos].is_ascii_whitespace() || data[pos] == b',') {
            pos += 1;
        }
        pos
    };
    let mut pos = skip(0);
    if data.get(pos) == Some(&b'[') {
        pos += 1;
    }
    std::iter::from_fn(move || {
        pos = skip(pos);
        if pos >= data.len() || data[pos] == b']' {
            return None;
        }
        let mut stream = serde_json::Deserializer::from_slice(&data[pos..]).into_iter::<Ordered>();
        let row = stream.next()?;
        pos += stream.byte_offset();
        match row {
            Err(e) if e.is_eof() && complete_only => None,
            Err(e) => {
                pos = data.len();
                Some(Err(e))
            }
            ok => Some(ok),
        }
    })
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

/// Infers the columns of an Avro object container file from the schema in its header,
/// with ClickHouse's reading of Avro types: timestamps without a time zone, enums as
/// `Enum8`/`Enum16` numbered from 0, the union `["null", T]` as `Nullable(T)`.
pub fn infer_avro(reader: &mut dyn Read, source: &str) -> Result<Inferred> {
    let mut data = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    let cannot = |why: &dyn std::fmt::Display| {
        Error::new(
            ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
            format!("The table structure cannot be extracted from a Avro format file. Error: {why}. You can specify the structure manually: (in file/uri {source})"),
        )
    };
    let header_len = loop {
        if let Some(len) = granary_formats::input::avro::header_len(&data).map_err(|e| cannot(&e))? {
            break len;
        }
        let n = reader.read(&mut chunk).map_err(|e| crate::detect::corrupt(source, e))?;
        if n == 0 {
            return Err(cannot(&if data.is_empty() { "the file is empty" } else { "the data ends inside the file header" }));
        }
        data.extend_from_slice(&chunk[..n]);
    };
    let (schema, _) = granary_formats::input::avro::decode_file(&data[..header_len], 1).map_err(|e| cannot(&e))?;
    let columns = schema.fields().iter().map(|f| (f.name().clone(), avro_column_type(f))).collect();
    Ok(Inferred { columns, format: "Avro".to_string() })
}

fn avro_column_type(field: &arrow::datatypes::Field) -> ChType {
    use arrow::datatypes::{DataType, TimeUnit};
    let base = match field.data_type() {
        DataType::Timestamp(unit, _) => ChType::DateTime64(
            match unit {
                TimeUnit::Second => 0,
                TimeUnit::Millisecond => 3,
                TimeUnit::Microsecond => 6,
                TimeUnit::Nanosecond => 9,
            },
            None,
        ),
        DataType::Dictionary(..) => match field.metadata().get("avro.enum.symbols").and_then(|s| serde_json::from_str::<Vec<String>>(s).ok()) {
            Some(symbols) if symbols.len() <= 128 => ChType::Enum8(symbols.into_iter().zip(0..).collect()),
            Some(symbols) => ChType::Enum16(symbols.into_iter().zip(0..).collect()),
            None => ChType::String,
        },
        DataType::FixedSizeBinary(16) if field.metadata().get("logicalType").is_some_and(|t| t == "uuid") => ChType::Uuid,
        DataType::List(item) => ChType::Array(Box::new(avro_column_type(item))),
        DataType::Struct(fields) => ChType::Tuple(fields.iter().map(|f| (f.name().clone(), avro_column_type(f))).collect()),
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => ChType::Map(Box::new(ChType::String), Box::new(avro_column_type(&kv[1]))),
            _ => ChType::String,
        },
        _ => ChType::from_arrow(field.data_type(), false),
    };
    if field.is_nullable() && !matches!(base, ChType::Array(_) | ChType::Map(..) | ChType::Tuple(_)) {
        ChType::Nullable(Box::new(base))
    } else {
        base
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
        for row in json_objects(text.as_bytes(), complete_only).take(max_rows) {
            let Ordered(map) = row.map_err(|e| cannot(&format!("Cannot parse JSON object: {e}")))?;
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
    if let Some(inferred) = infer_more(format, &data, complete_only, &rules, settings, max_rows, &cannot)? {
        return Ok(inferred);
    }
    let (csv, names_line, types_line, detect) = match format {
        "CSV" => (true, false, false, settings.get_bool("input_format_csv_detect_header")),
        "CSVWithNames" => (true, true, false, false),
        "CSVWithNamesAndTypes" => (true, true, true, false),
        "TabSeparated" | "TSV" | "TabSeparatedRaw" | "TSVRaw" | "Raw" => (false, false, false, settings.get_bool("input_format_tsv_detect_header")),
        "TabSeparatedWithNames" | "TSVWithNames" | "TabSeparatedRawWithNames" | "TSVRawWithNames" | "RawWithNames" => (false, true, false, false),
        "TabSeparatedWithNamesAndTypes" | "TSVWithNamesAndTypes" | "TabSeparatedRawWithNamesAndTypes" | "TSVRawWithNamesAndTypes" | "RawWithNamesAndTypes" => {
            (false, true, true, false)
        }
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

/// The JSON values one after another at the start of `data` (separated by whitespace or
/// commas, in an enclosing array or not); a value cut by the end of the sample is left out.
fn json_values(data: &[u8]) -> Vec<&[u8]> {
    let mut values = Vec::new();
    let mut pos = 0;
    loop {
        while pos < data.len() && matches!(data[pos], b' ' | b'\t' | b'\n' | b'\r' | b',') {
            pos += 1;
        }
        if pos >= data.len() {
            return values;
        }
        let start = pos;
        if granary_types::text::read::skip_json_value(data, &mut pos).is_err() || pos == start {
            return values;
        }
        values.push(&data[start..pos]);
    }
}

/// The members of the JSON object at the start of `data` (`JSONObjectEachRow`), as far
/// as the sample holds complete ones.
fn json_members(data: &[u8]) -> Vec<&[u8]> {
    use granary_types::text::read::{skip_json_value, skip_ws};
    let mut members = Vec::new();
    let mut pos = 0;
    skip_ws(data, &mut pos);
    if data.get(pos) != Some(&b'{') {
        return members;
    }
    pos += 1;
    loop {
        skip_ws(data, &mut pos);
        if data.get(pos) == Some(&b',') {
            pos += 1;
            skip_ws(data, &mut pos);
        }
        if data.get(pos) != Some(&b'"') {
            return members;
        }
        let mut key = Vec::new();
        if granary_types::text::escape::read_json_string(data, &mut pos, &mut key).is_err() {
            return members;
        }
        skip_ws(data, &mut pos);
        if data.get(pos) != Some(&b':') {
            return members;
        }
        pos += 1;
        skip_ws(data, &mut pos);
        let start = pos;
        if skip_json_value(data, &mut pos).is_err() {
            return members;
        }
        members.push(&data[start..pos]);
    }
}

/// Columns met in JSON objects, in order of first appearance, with their merged guesses.
#[derive(Default)]
struct ObjectColumns(Vec<(String, Guess)>);

impl ObjectColumns {
    fn add(&mut self, name: String, guess: Guess) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, prev)) => *prev = merge(prev.clone(), guess),
            None => self.0.push((name, guess)),
        }
    }
}

/// A value's guess in the `*Strings*` formats: strings are strings, or dates and times
/// when they look like one (numbers in strings stay strings, as in ClickHouse).
fn strings_guess(rules: &Rules, v: &serde_json::Value) -> Guess {
    match v {
        serde_json::Value::Null => Guess::Null,
        serde_json::Value::String(s) => rules.string(s),
        _ => Guess::String,
    }
}

/// The formats added with the JSON variants, TSKV, CustomSeparated and the one-column
/// formats; None for the others.
fn infer_more(
    format: &str,
    data: &[u8],
    complete_only: bool,
    rules: &Rules,
    settings: &Settings,
    max_rows: usize,
    cannot: &dyn Fn(&str) -> Error,
) -> Result<Option<Inferred>> {
    let single = |name: &str| Ok(Some(Inferred { columns: vec![(name.to_string(), ChType::String)], format: format.to_string() }));
    let typed = |columns: Vec<(String, Guess)>| -> Result<Option<Inferred>> {
        if columns.is_empty() {
            return Err(cannot(&format!("Cannot extract table structure from {format} format file, file is empty")));
        }
        Ok(Some(Inferred { columns: columns.iter().map(|(n, g)| (n.clone(), rules.to_type(g, true))).collect(), format: format.to_string() }))
    };
    let parse = |value: &[u8]| -> Result<serde_json::Value> { serde_json::from_slice(value).map_err(|e| cannot(&format!("Cannot parse JSON: {e}"))) };
    match format {
        "JSONAsString" => single("json"),
        "LineAsString" => single("line"),
        "RawBLOB" => single("raw_blob"),
        "JSONStringsEachRow" | "JSONObjectEachRow" => {
            let objects = if format == "JSONObjectEachRow" { json_members(data) } else { json_values(data) };
            let mut columns = ObjectColumns::default();
            let name_column = settings.get_str("format_json_object_each_row_column_for_object_name");
            if format == "JSONObjectEachRow" && !name_column.is_empty() {
                // Filled by the rows' names: a String, never NULL.
                columns.add(name_column.to_string(), Guess::String);
            }
            for object in objects.into_iter().take(max_rows) {
                let Ordered(members) = serde_json::from_slice(object).map_err(|e| cannot(&format!("Cannot parse JSON object: {e}")))?;
                for (name, v) in members {
                    let guess = if format == "JSONStringsEachRow" { strings_guess(rules, &v) } else { rules.json(&v) };
                    columns.add(name, guess);
                }
            }
            let mut inferred = typed(columns.0)?;
            if let Some(first) = inferred.as_mut().and_then(|i| i.columns.first_mut()).filter(|_| format == "JSONObjectEachRow" && !name_column.is_empty()) {
                first.1 = ChType::String;
            }
            Ok(inferred)
        }
        "JSONColumns" | "JSONCompactColumns" => {
            let mut columns = ObjectColumns::default();
            for block in json_values(data) {
                let arrays: Vec<(String, serde_json::Value)> = if format == "JSONColumns" {
                    let Ordered(members) = serde_json::from_slice(block).map_err(|e| cannot(&format!("Cannot parse JSON object: {e}")))?;
                    members
                } else {
                    match parse(block)? {
                        serde_json::Value::Array(items) => items.into_iter().enumerate().map(|(i, v)| (format!("c{}", i + 1), v)).collect(),
                        _ => return Err(cannot("JSONCompactColumns data must be an array of arrays")),
                    }
                };
                for (name, values) in arrays {
                    let guess = match &values {
                        serde_json::Value::Array(items) => items.iter().take(max_rows).map(|v| rules.json(v)).fold(Guess::Null, merge),
                        _ => return Err(cannot(&format!("The values of column {name} are not an array"))),
                    };
                    columns.add(name, guess);
                }
            }
            typed(columns.0)
        }
        "JSONCompactEachRow"
        | "JSONCompactEachRowWithNames"
        | "JSONCompactEachRowWithNamesAndTypes"
        | "JSONCompactStringsEachRow"
        | "JSONCompactStringsEachRowWithNames"
        | "JSONCompactStringsEachRowWithNamesAndTypes" => {
            let strings = format.contains("Strings");
            let mut rows = json_values(data).into_iter().map(parse).collect::<Result<Vec<_>>>()?.into_iter();
            let as_strings = |v: Option<serde_json::Value>| -> Result<Vec<String>> {
                match v {
                    Some(serde_json::Value::Array(items)) => Ok(items.into_iter().map(|i| i.as_str().map(str::to_string).unwrap_or_else(|| i.to_string())).collect()),
                    _ => Err(cannot("Cannot read the header")),
                }
            };
            let names = if format.contains("WithNames") { Some(as_strings(rows.next())?) } else { None };
            let types = if format.ends_with("AndTypes") { Some(as_strings(rows.next())?.iter().map(|t| ChType::parse(t)).collect::<Result<Vec<_>>>()?) } else { None };
            let mut guesses: Vec<Guess> = Vec::new();
            for row in rows.take(max_rows) {
                let serde_json::Value::Array(values) = row else { return Err(cannot("A row is not a JSON array")) };
                if guesses.len() < values.len() {
                    guesses.resize(values.len(), Guess::Null);
                }
                for (i, v) in values.iter().enumerate() {
                    guesses[i] = merge(guesses[i].clone(), if strings { strings_guess(rules, v) } else { rules.json(v) });
                }
            }
            let width = guesses.len().max(names.as_ref().map_or(0, Vec::len));
            if width == 0 {
                return Err(cannot(&format!("Cannot extract table structure from {format} format file, file is empty")));
            }
            let columns = (0..width)
                .map(|i| {
                    let name = names.as_ref().and_then(|n| n.get(i).cloned()).unwrap_or_else(|| format!("c{}", i + 1));
                    let t = match &types {
                        Some(t) => t.get(i).cloned().unwrap_or(ChType::String),
                        None => rules.to_type(guesses.get(i).unwrap_or(&Guess::Null), true),
                    };
                    (name, t)
                })
                .collect();
            Ok(Some(Inferred { columns, format: format.to_string() }))
        }
        "TSKV" => {
            let mut columns = ObjectColumns::default();
            let mut lines: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
            // The piece after the last line feed is cut (or empty).
            lines.pop();
            for line in lines.into_iter().take(max_rows) {
                for field in line.split(|b| *b == b'\t').filter(|f| !f.is_empty()) {
                    let Some(eq) = field.iter().enumerate().position(|(i, b)| *b == b'=' && (i == 0 || field[i - 1] != b'\\')) else { continue };
                    let name = unescape_tsv_field(&field[..eq]);
                    let value = &field[eq + 1..];
                    let guess = if value == b"\\N" { Guess::Null } else { rules.text(&unescape_tsv_field(value)) };
                    // ClickHouse's key-value reader does not unify integers and floats.
                    let mixed_numbers = columns.0.iter().any(|(n, g)| *n == name && matches!((g, &guess), (Guess::Int, Guess::Float) | (Guess::Float, Guess::Int)));
                    columns.add(name, if mixed_numbers { Guess::String } else { guess });
                }
            }
            typed(columns.0)
        }
        "CustomSeparated" | "CustomSeparatedWithNames" | "CustomSeparatedWithNamesAndTypes" | "Regexp" => {
            let format_settings = granary_formats::FormatSettings::from_settings(settings, chrono_tz::Tz::UTC);
            let (rule, rows) = if format == "Regexp" {
                granary_formats::input::regexp::regexp_fields(data, &format_settings, !complete_only)?
            } else {
                let rule = granary_formats::input::custom::custom_escaping_rule(&format_settings)?;
                (rule, granary_formats::input::custom::custom_separated_fields(data, &format_settings, !complete_only)?)
            };
            let mut rows = rows.into_iter();
            let decode = |field: &[u8]| -> (Option<String>, Guess) { custom_field_guess(rule, field, rules) };
            let names: Option<Vec<String>> = format.contains("WithNames").then(|| rows.next().unwrap_or_default().iter().map(|f| decode(f).0.unwrap_or_default()).collect());
            let types = if format.ends_with("AndTypes") {
                Some(rows.next().unwrap_or_default().iter().map(|f| ChType::parse(&decode(f).0.unwrap_or_default())).collect::<Result<Vec<_>>>()?)
            } else {
                None
            };
            let mut guesses: Vec<Guess> = Vec::new();
            for row in rows.take(max_rows) {
                if guesses.len() < row.len() {
                    guesses.resize(row.len(), Guess::Null);
                }
                for (i, field) in row.iter().enumerate() {
                    guesses[i] = merge(guesses[i].clone(), decode(field).1);
                }
            }
            let width = guesses.len().max(names.as_ref().map_or(0, Vec::len));
            if width == 0 {
                return Err(cannot(&format!("Cannot extract table structure from {format} format file, file is empty")));
            }
            let columns = (0..width)
                .map(|i| {
                    let name = names.as_ref().and_then(|n| n.get(i).cloned()).unwrap_or_else(|| format!("c{}", i + 1));
                    let t = match &types {
                        Some(t) => t.get(i).cloned().unwrap_or(ChType::String),
                        None => rules.to_type(guesses.get(i).unwrap_or(&Guess::Null), true),
                    };
                    (name, t)
                })
                .collect();
            Ok(Some(Inferred { columns, format: format.to_string() }))
        }
        _ => Ok(None),
    }
}

/// A `CustomSeparated` field's text (decoded by the escaping rule) and type guess.
fn custom_field_guess(rule: granary_formats::output::custom::EscapingRule, field: &[u8], rules: &Rules) -> (Option<String>, Guess) {
    use granary_formats::output::custom::EscapingRule as R;
    match rule {
        R::Escaped | R::Raw if field == b"\\N" => (None, Guess::Null),
        R::Escaped => {
            let text = unescape_tsv_field(field);
            let guess = rules.text(&text);
            (Some(text), guess)
        }
        R::Csv if matches!(field.first(), Some(b'"' | b'\'')) => {
            let q = field[0];
            let inner = field[1..].strip_suffix(&[q]).unwrap_or(&field[1..]);
            let mut text = Vec::with_capacity(inner.len());
            let mut i = 0;
            while i < inner.len() {
                text.push(inner[i]);
                i += if inner[i] == q && inner.get(i + 1) == Some(&q) { 2 } else { 1 };
            }
            let text = String::from_utf8_lossy(&text).into_owned();
            let guess = rules.string(&text);
            (Some(text), guess)
        }
        R::Csv if field.is_empty() || field == b"\\N" => (None, Guess::Null),
        R::Json => match serde_json::from_slice::<serde_json::Value>(field) {
            Ok(v) => (v.as_str().map(str::to_string).or_else(|| Some(v.to_string())), rules.json(&v)),
            Err(_) => (Some(String::from_utf8_lossy(field).into_owned()), Guess::String),
        },
        R::Quoted if field.first() == Some(&b'\'') => {
            let mut out = Vec::new();
            let mut pos = 0;
            let text = match granary_types::text::escape::read_quoted_string(field, &mut pos, &mut out) {
                Ok(()) => String::from_utf8_lossy(&out).into_owned(),
                Err(_) => String::from_utf8_lossy(field).into_owned(),
            };
            let guess = rules.string(&text);
            (Some(text), guess)
        }
        R::Quoted if field.eq_ignore_ascii_case(b"null") => (None, Guess::Null),
        _ => {
            let text = String::from_utf8_lossy(field).into_owned();
            let guess = rules.text(&text);
            (Some(text), guess)
        }
    }
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
    fn json_variants_tskv_and_custom() {
        let (cols, _) = infer("JSONCompactEachRowWithNames", "[\"a\", \"b\"]\n[1, \"x\"]\n[2, \"y\"]");
        assert_eq!(cols, ["a Nullable(Int64)", "b Nullable(String)"]);
        let (cols, _) = infer("JSONCompactEachRowWithNamesAndTypes", "[\"a\", \"b\"]\n[\"UInt8\", \"String\"]\n[1, \"x\"]");
        assert_eq!(cols, ["a UInt8", "b String"]);
        let (cols, _) = infer("JSONCompactEachRow", "[1, \"x\", [1,2]], [2, \"y\", []]");
        assert_eq!(cols, ["c1 Nullable(Int64)", "c2 Nullable(String)", "c3 Array(Nullable(Int64))"]);
        let (cols, _) = infer("JSONCompactStringsEachRow", "[\"1\", \"x\"]\n[\"2\", \"[1]\"]");
        assert_eq!(cols, ["c1 Nullable(String)", "c2 Nullable(String)"]);
        let (cols, _) = infer("JSONObjectEachRow", "{\"row_1\": {\"a\": 1, \"b\": \"x\"}, \"row_2\": {\"a\": 2, \"c\": 1.5}}");
        assert_eq!(cols, ["a Nullable(Int64)", "b Nullable(String)", "c Nullable(Float64)"]);
        let (cols, _) = infer("JSONColumns", "{\"a\": [1, 2], \"b\": [\"x\", \"y\"]}");
        assert_eq!(cols, ["a Nullable(Int64)", "b Nullable(String)"]);
        let (cols, _) = infer("TSKV", "a=1\tb=x\\ty\ttskv\nb=2\n\na=3\tc=5\n");
        assert_eq!(cols, ["a Nullable(Int64)", "b Nullable(String)", "c Nullable(Int64)"]);
        let (cols, _) = infer("JSONAsString", "{}");
        assert_eq!(cols, ["json String"]);
        let (cols, _) = infer("CustomSeparatedWithNames", "a\tb\n1\tx\n");
        assert_eq!(cols, ["a Nullable(Int64)", "b Nullable(String)"]);
    }

    #[test]
    fn empty_is_an_error() {
        let e = infer_text("CSV", &mut &b""[..], &Settings::new(), "x").unwrap_err();
        assert_eq!(e.code(), ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE);
    }
}
