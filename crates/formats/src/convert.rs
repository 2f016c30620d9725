//! Text fields to typed Arrow columns, with ClickHouse's rules and error messages that
//! name the row and the column.

use std::sync::Arc;

use arrow::array::{new_null_array, Array, ArrayRef, FixedSizeBinaryBuilder, ListArray, StringArray, StringBuilder};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{DataType, Field, TimeUnit};
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

/// Converts the text of one column (NULL = `\N` or a missing field) into `field`'s type.
/// `first_row` is the 1-based number of the first row, for error messages.
pub fn convert_column(strings: &StringArray, field: &Field, first_row: u64, null_as_default: bool) -> Result<ArrayRef> {
    let target = field.data_type();
    let converted: ArrayRef = match target {
        DataType::Utf8 => Arc::new(strings.clone()),
        DataType::FixedSizeBinary(n) => {
            let n = *n;
            let mut builder = FixedSizeBinaryBuilder::with_capacity(strings.len(), n);
            for i in 0..strings.len() {
                if strings.is_null(i) {
                    builder.append_null();
                    continue;
                }
                let bytes = strings.value(i).as_bytes();
                if bytes.len() > n as usize {
                    return Err(Error::new(
                        ErrorCode::TOO_LARGE_STRING_SIZE,
                        format!("Too large value for FixedString({n}): (at row {}, column '{}')", first_row + i as u64, field.name()),
                    ));
                }
                let mut padded = bytes.to_vec();
                padded.resize(n as usize, 0);
                builder.append_value(&padded)?;
            }
            Arc::new(builder.finish())
        }
        DataType::List(item) => convert_list(strings, field, item, first_row)?,
        DataType::Null => new_null_array(&DataType::Null, strings.len()),
        _ => convert_scalar(strings, field, first_row)?,
    };
    if !field.is_nullable() && converted.null_count() > 0 {
        if !null_as_default {
            let row = (0..converted.len()).find(|i| converted.is_null(*i)).unwrap_or(0);
            return Err(Error::new(
                ErrorCode::CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN,
                format!("Cannot insert NULL value into a column of type '{}' (at row {}, column '{}')", ChType::from_field(field), first_row + row as u64, field.name()),
            ));
        }
        return fill_defaults(converted, field);
    }
    Ok(converted)
}

/// NULLs of a non-Nullable column become the type's default (input_format_null_as_default).
fn fill_defaults(array: ArrayRef, field: &Field) -> Result<ArrayRef> {
    let default_text = ChType::from_field(field).default_literal();
    let defaults = StringArray::from(vec![default_text; array.len()]);
    let default_array = match field.data_type() {
        DataType::Utf8 => Arc::new(defaults) as ArrayRef,
        DataType::FixedSizeBinary(n) => {
            let mut b = FixedSizeBinaryBuilder::with_capacity(array.len(), *n);
            for _ in 0..array.len() {
                b.append_value(vec![0u8; *n as usize])?;
            }
            Arc::new(b.finish())
        }
        DataType::List(item) => {
            let offsets = OffsetBuffer::new(vec![0i32; array.len() + 1].into());
            Arc::new(ListArray::try_new(item.clone(), offsets, arrow::array::new_empty_array(item.data_type()), None)?)
        }
        other => cast_with_options(&defaults, other, &CastOptions::default())?,
    };
    let mask = arrow::compute::is_not_null(&array)?;
    Ok(arrow::compute::kernels::zip::zip(&mask, &array, &default_array)?)
}

fn convert_scalar(strings: &StringArray, field: &Field, first_row: u64) -> Result<ArrayRef> {
    let target = field.data_type();
    let prepared = prepare_for_cast(strings, target);
    let strict = CastOptions { safe: false, ..Default::default() };
    match cast_with_options(&prepared, target, &strict) {
        Ok(array) => Ok(array),
        Err(_) => {
            // Find the first value that does not parse, to name it.
            let lenient = cast_with_options(&prepared, target, &CastOptions::default())?;
            let row = (0..prepared.len()).find(|i| !prepared.is_null(*i) && lenient.is_null(*i)).unwrap_or(0);
            let value = if prepared.is_null(row) { "" } else { prepared.value(row) };
            let type_name = ChType::from_field(field);
            let code = match type_name.base() {
                ChType::Date | ChType::Date32 => ErrorCode::CANNOT_PARSE_DATE,
                ChType::DateTime(_) | ChType::DateTime64(..) => ErrorCode::CANNOT_PARSE_DATETIME,
                ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64 | ChType::Decimal(..) => {
                    ErrorCode::CANNOT_PARSE_TEXT
                }
                _ => ErrorCode::CANNOT_PARSE_TEXT,
            };
            Err(Error::new(
                code,
                format!("Cannot parse input: cannot parse '{value}' as {type_name} (at row {}, column '{}')", first_row + row as u64, field.name()),
            ))
        }
    }
}

/// Normalises ClickHouse spellings that Arrow's parsers do not take: unix timestamps for
/// DateTime, `inf`/`nan` variants, and Bool words.
fn prepare_for_cast(strings: &StringArray, target: &DataType) -> StringArray {
    match target {
        DataType::Timestamp(unit, _) if strings.iter().flatten().any(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())) => {
            let scale = match unit {
                TimeUnit::Second => "",
                TimeUnit::Millisecond => ".000",
                TimeUnit::Microsecond => ".000000",
                TimeUnit::Nanosecond => ".000000000",
            };
            strings
                .iter()
                .map(|v| {
                    v.map(|v| {
                        if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
                            match v.parse::<i64>().ok().and_then(|s| chrono::DateTime::from_timestamp(s, 0)) {
                                Some(t) => format!("{}{scale}", t.format("%Y-%m-%d %H:%M:%S")),
                                None => v.to_string(),
                            }
                        } else {
                            v.to_string()
                        }
                    })
                })
                .collect()
        }
        DataType::Float32 | DataType::Float64 => strings
            .iter()
            .map(|v| v.map(|v| match v {
                "+inf" | "Inf" | "+Inf" => "inf".to_string(),
                "-Inf" => "-inf".to_string(),
                "NaN" | "+nan" | "-nan" => "nan".to_string(),
                other => other.to_string(),
            }))
            .collect(),
        _ => strings.clone(),
    }
}

fn convert_list(strings: &StringArray, field: &Field, item: &Arc<Field>, first_row: u64) -> Result<ArrayRef> {
    let mut offsets = vec![0i32];
    let mut elements = StringBuilder::new();
    let mut valid = Vec::with_capacity(strings.len());
    for i in 0..strings.len() {
        if strings.is_null(i) {
            valid.push(false);
            offsets.push(*offsets.last().unwrap_or(&0));
            continue;
        }
        valid.push(true);
        let parsed = parse_array_literal(strings.value(i)).map_err(|why| {
            Error::new(
                ErrorCode::CANNOT_READ_ARRAY_FROM_TEXT,
                format!("Cannot read array from text '{}': {why} (at row {}, column '{}')", strings.value(i), first_row + i as u64, field.name()),
            )
        })?;
        for element in &parsed {
            match element {
                Some(text) => elements.append_value(text),
                None => elements.append_null(),
            }
        }
        offsets.push(offsets.last().unwrap_or(&0) + parsed.len() as i32);
    }
    let elements = elements.finish();
    let values = convert_column(&elements, item, first_row, true)?;
    let nulls = valid.iter().any(|v| !v).then(|| NullBuffer::from(valid));
    Ok(Arc::new(ListArray::try_new(item.clone(), OffsetBuffer::new(offsets.into()), values, nulls)?))
}

/// Splits `[a, 'b', NULL, [1,2]]` into element texts (quotes removed, escapes resolved;
/// nested arrays kept as text for the inner conversion).
pub fn parse_array_literal(text: &str) -> std::result::Result<Vec<Option<String>>, String> {
    let bytes = text.trim().as_bytes();
    if bytes.first() != Some(&b'[') || bytes.last() != Some(&b']') {
        return Err("expected [ ... ]".into());
    }
    let inner = &bytes[1..bytes.len() - 1];
    let mut out = Vec::new();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < inner.len() && inner[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if i == inner.len() {
        return Ok(out);
    }
    loop {
        skip_ws(&mut i);
        let c = *inner.get(i).ok_or("unexpected end")?;
        if c == b'\'' || c == b'"' {
            let (value, next) = read_quoted(inner, i)?;
            out.push(Some(value));
            i = next;
        } else if c == b'[' {
            let start = i;
            let mut depth = 0;
            while i < inner.len() {
                match inner[i] {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    b'\'' | b'"' => {
                        let (_, next) = read_quoted(inner, i)?;
                        i = next;
                        continue;
                    }
                    _ => {}
                }
                i += 1;
            }
            out.push(Some(String::from_utf8_lossy(&inner[start..i]).into_owned()));
        } else {
            let start = i;
            while i < inner.len() && inner[i] != b',' {
                i += 1;
            }
            let token = String::from_utf8_lossy(&inner[start..i]).trim().to_string();
            out.push(if token == "NULL" || token == "null" { None } else { Some(token) });
        }
        skip_ws(&mut i);
        match inner.get(i) {
            None => return Ok(out),
            Some(b',') => i += 1,
            Some(other) => return Err(format!("unexpected '{}'", *other as char)),
        }
    }
}

/// Reads a quoted string starting at `start`; returns the value and the index after it.
pub fn read_quoted(bytes: &[u8], start: usize) -> std::result::Result<(String, usize), String> {
    let quote = bytes[start];
    let mut out = Vec::new();
    let mut i = start + 1;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\\' {
            let next = *bytes.get(i + 1).ok_or("unterminated escape")?;
            out.push(unescape_byte(next));
            i += 2;
        } else if b == quote {
            if bytes.get(i + 1) == Some(&quote) {
                out.push(quote);
                i += 2;
            } else {
                return Ok((String::from_utf8_lossy(&out).into_owned(), i + 1));
            }
        } else {
            out.push(b);
            i += 1;
        }
    }
    Err("unterminated string".into())
}

pub fn unescape_byte(b: u8) -> u8 {
    match b {
        b't' => b'\t',
        b'n' => b'\n',
        b'r' => b'\r',
        b'0' => 0,
        b'b' => 0x08,
        b'f' => 0x0c,
        b'a' => 0x07,
        b'v' => 0x0b,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_literals() {
        assert_eq!(parse_array_literal("[1, 2,3]").unwrap(), vec![Some("1".into()), Some("2".into()), Some("3".into())]);
        assert_eq!(parse_array_literal("['a,b', NULL, \"c\"]").unwrap(), vec![Some("a,b".into()), None, Some("c".into())]);
        assert_eq!(parse_array_literal("[[1,2],[3]]").unwrap(), vec![Some("[1,2]".into()), Some("[3]".into())]);
        assert_eq!(parse_array_literal("[]").unwrap(), Vec::<Option<String>>::new());
        assert!(parse_array_literal("1,2").is_err());
    }

    #[test]
    fn errors_name_row_and_column() {
        let strings = StringArray::from(vec![Some("1"), Some("x"), Some("3")]);
        let e = convert_column(&strings, &Field::new("n", DataType::UInt8, false), 10, true).unwrap_err();
        assert!(e.message().contains("at row 11, column 'n'"), "{}", e.message());
        let overflow = StringArray::from(vec![Some("300")]);
        assert!(convert_column(&overflow, &Field::new("n", DataType::UInt8, false), 1, true).is_err());
    }

    #[test]
    fn nulls_become_defaults_in_ordinary_columns() {
        let strings = StringArray::from(vec![Some("1"), None]);
        let a = convert_column(&strings, &Field::new("n", DataType::Int32, false), 1, true).unwrap();
        assert_eq!(a.null_count(), 0);
        let a = convert_column(&strings, &Field::new("n", DataType::Int32, true), 1, true).unwrap();
        assert_eq!(a.null_count(), 1);
    }
}
