//! `INSERT ... VALUES` rows that the literal parser rejects, read as ClickHouse's Values
//! format reads them with `input_format_values_interpret_expressions`: each row is tried
//! as literals first; a row that fails is split into one SQL expression per column, and
//! each expression is evaluated and converted with `_CAST` to the column's type (so
//! `-1` into UInt32 wraps to 4294967295, `7.9` truncates, `'5'` parses, `0x10` is 16,
//! `now()` and `1 + 1` work). NULL becomes the column's default, as ClickHouse's
//! `if(isNull(x), default, _CAST(x, T))` does.
//!
//! Used for VALUES text small enough to hold (`run_insert` decides); rows keep their
//! order, consecutive expression rows are planned together as one `VALUES` query.

use std::sync::Arc;

use arrow::array::ArrayRef;
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_formats::{create_input_format, FormatSettings};
use granary_types::text::escape::shorten;
use granary_types::ChType;

use crate::instance::QueryContext;
use crate::interpreter::{execute_plan, plan_query};

/// A target column of the INSERT: its name and ClickHouse type.
pub(crate) struct ValuesColumn {
    pub name: String,
    pub ch_type: ChType,
}

/// One `( ... )` row of the VALUES text: the row with its brackets, and the text of each
/// top-level, comma-separated field.
#[derive(Debug)]
struct ValuesRow<'a> {
    text: &'a str,
    fields: Vec<&'a str>,
}

/// Reads the whole VALUES text. `fields` are the Arrow fields of the target columns, in
/// the order of `columns`; the batches returned have those fields, all nullable (NULLs
/// are left for the conformer to replace with defaults).
pub(crate) async fn read_values(
    ctx: &QueryContext,
    columns: &[ValuesColumn],
    fields: &[Field],
    data: &str,
    format_settings: &FormatSettings,
) -> Result<Vec<RecordBatch>> {
    let literal_schema: SchemaRef = Arc::new(Schema::new(fields.to_vec()));
    let output_schema: SchemaRef = Arc::new(Schema::new(fields.iter().map(|f| f.clone().with_nullable(true)).collect::<Vec<_>>()));
    let rows = split_rows(data, columns)?;
    let mut out = Vec::new();
    let mut expression_rows: Vec<&ValuesRow<'_>> = Vec::new();
    for row in &rows {
        match parse_literal_row(row.text, &literal_schema, format_settings) {
            Ok(batches) => {
                if !expression_rows.is_empty() {
                    out.push(evaluate_rows(ctx, columns, &expression_rows, &output_schema).await?);
                    expression_rows.clear();
                }
                for batch in batches {
                    out.push(RecordBatch::try_new(output_schema.clone(), batch.columns().to_vec())?);
                }
            }
            Err(_) => {
                check_field_count(row, columns)?;
                expression_rows.push(row);
            }
        }
    }
    if !expression_rows.is_empty() {
        out.push(evaluate_rows(ctx, columns, &expression_rows, &output_schema).await?);
    }
    Ok(out)
}

fn parse_literal_row(row: &str, schema: &SchemaRef, settings: &FormatSettings) -> Result<Vec<RecordBatch>> {
    let mut parser = create_input_format("Values", schema.clone(), settings)?;
    let mut batches = Vec::new();
    parser.push(row.as_bytes(), &mut batches)?;
    parser.finish(&mut batches)?;
    Ok(batches)
}

/// Evaluates rows of expressions with one `SELECT * FROM (VALUES ...)` whose items are
/// already cast, so DataFusion has no types to reconcile across rows.
async fn evaluate_rows(ctx: &QueryContext, columns: &[ValuesColumn], rows: &[&ValuesRow<'_>], schema: &SchemaRef) -> Result<RecordBatch> {
    let mut sql = String::from("SELECT * FROM (VALUES ");
    for (r, row) in rows.iter().enumerate() {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for (i, (field, column)) in row.fields.iter().zip(columns).enumerate() {
            if i > 0 {
                sql.push_str(", ");
            }
            let target = granary_sql::params::quote_string(&column.ch_type.clone().into_nullable().to_string());
            match wide_integer_literal(field) {
                Some(digits) => sql.push_str(&format!("_CAST({}, {target})", granary_sql::params::quote_string(digits))),
                None => sql.push_str(&format!("_CAST(({field}\n), {target})")),
            }
        }
        sql.push(')');
    }
    sql.push(')');
    let params = std::collections::HashMap::new();
    let options = granary_sql::ParseOptions { params: &params, rewrite: Default::default(), max_query_size: 0 };
    let (parsed, _) = granary_sql::parse_statement(&sql, &options).map_err(|e| expression_syntax_error(rows, columns, e))?;
    let granary_sql::Statement::Query { query, .. } = parsed.statement else {
        return Err(Error::new(ErrorCode::SYNTAX_ERROR, "Cannot parse expressions of VALUES"));
    };
    let plan = plan_query(ctx, query).await?;
    let mut stream = execute_plan(ctx, &plan).await?;
    let mut batches = Vec::new();
    while let Some(batch) = stream.next().await {
        batches.push(batch?);
    }
    let options = CastOptions { safe: false, ..Default::default() };
    let mut columns_out: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    for (i, field) in schema.fields().iter().enumerate() {
        let parts: Vec<ArrayRef> = batches.iter().map(|b| b.column(i).clone()).collect();
        let parts: Vec<&dyn arrow::array::Array> = parts.iter().map(|a| a.as_ref()).collect();
        let joined = arrow::compute::concat(&parts)?;
        let joined = if joined.data_type() == field.data_type() { joined } else { cast_with_options(&joined, field.data_type(), &options)? };
        columns_out.push(joined);
    }
    Ok(RecordBatch::try_new(schema.clone(), columns_out)?)
}

/// The digits of an integer literal too large for 64 bits (an Int128 or UInt256 value):
/// as an expression DataFusion would read it as Float64 and lose digits, where
/// ClickHouse's Values reader parses it with the column's type. Cast from its text, it is
/// parsed that way too.
fn wide_integer_literal(field: &str) -> Option<&str> {
    let text = field.trim();
    let text = text.strip_prefix('+').unwrap_or(text);
    let digits = text.strip_prefix('-').unwrap_or(text);
    let integer = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    (integer && text.parse::<i64>().is_err() && text.parse::<u64>().is_err()).then_some(text)
}

/// A field that is not one expression (`(1, 'a' 'b')`, an unbalanced bracket) names the
/// row's first unparsable field as ClickHouse does.
fn expression_syntax_error(rows: &[&ValuesRow<'_>], columns: &[ValuesColumn], error: Error) -> Error {
    let params = std::collections::HashMap::new();
    let options = granary_sql::ParseOptions { params: &params, rewrite: Default::default(), max_query_size: 0 };
    for row in rows {
        for (field, column) in row.fields.iter().zip(columns) {
            if granary_sql::parse_statement(&format!("SELECT ({field}\n)"), &options).is_err() {
                return Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse expression of type {} here: {}", column.ch_type, shorten(field.as_bytes())));
            }
        }
    }
    error
}

/// Too few or too many values in a row, with ClickHouse's message.
fn check_field_count(row: &ValuesRow<'_>, columns: &[ValuesColumn]) -> Result<()> {
    let count = row.fields.len();
    if count == columns.len() {
        if let Some((field, column)) = row.fields.iter().zip(columns).find(|(f, _)| f.trim().is_empty()) {
            return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse expression of type {} here: {}", column.ch_type, shorten(field.as_bytes()))));
        }
        return Ok(());
    }
    let (expected, last) = if count < columns.len() { (',', count.saturating_sub(1)) } else { (')', columns.len().saturating_sub(1)) };
    let Some(column) = columns.get(last) else {
        return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse input: expected ')' before: '{}'", shorten(row.text.as_bytes()))));
    };
    let here = row.fields.get(last).map(|f| field_offset(row.text, f)).unwrap_or(0);
    Err(Error::new(
        ErrorCode::SYNTAX_ERROR,
        format!(
            "Expected '{expected}' after the value of column `{}` of type {} here: {}",
            column.name,
            column.ch_type,
            shorten(row.text[here..].trim_start().as_bytes())
        ),
    ))
}

/// Byte offset of `field` (a slice of `row`) inside `row`.
fn field_offset(row: &str, field: &str) -> usize {
    (field.as_ptr() as usize).saturating_sub(row.as_ptr() as usize).min(row.len())
}

/// Cuts the VALUES text into rows and each row into fields at top-level commas; quotes
/// (`'`, `"`, backquotes, with backslash escapes and doubled quotes) and brackets are
/// respected. Rows may be separated by commas, whitespace or nothing; a trailing comma
/// inside a row is allowed, as in ClickHouse.
fn split_rows<'a>(data: &'a str, columns: &[ValuesColumn]) -> Result<Vec<ValuesRow<'a>>> {
    let bytes = data.as_bytes();
    let mut rows = Vec::new();
    let mut pos = 0;
    loop {
        while pos < bytes.len() && matches!(bytes[pos], b' ' | b'\t' | b'\n' | b'\r' | b',' | b';') {
            pos += 1;
        }
        if pos >= bytes.len() {
            return Ok(rows);
        }
        if bytes[pos] != b'(' {
            return Err(Error::new(
                ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                format!("Cannot parse input: expected '(' before: '{}': at row {}", shorten(&bytes[pos..]), rows.len() + 1),
            ));
        }
        let start = pos;
        let mut fields = Vec::new();
        let mut field_start = pos + 1;
        let mut depth = 0usize;
        let mut quote: Option<u8> = None;
        let mut escaped = false;
        let mut end = None;
        while pos < bytes.len() {
            let b = bytes[pos];
            if let Some(q) = quote {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
            } else {
                match b {
                    b'\'' | b'"' | b'`' => quote = Some(b),
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            fields.push(&data[field_start..pos]);
                            end = Some(pos + 1);
                            break;
                        }
                    }
                    b',' if depth == 1 => {
                        fields.push(&data[field_start..pos]);
                        field_start = pos + 1;
                    }
                    _ => {}
                }
            }
            pos += 1;
        }
        let Some(end) = end else {
            // An unterminated string or bracket: name the column whose value it is.
            let column = columns.get(fields.len()).or(columns.last());
            let type_name = column.map(|c| c.ch_type.to_string()).unwrap_or_default();
            return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse expression of type {type_name} here: {}", shorten(data[field_start..].trim_start().as_bytes()))));
        };
        // `(1, 2, )`: the empty field after a trailing comma is not a value.
        if fields.len() > 1 && fields.last().is_some_and(|f| f.trim().is_empty()) {
            fields.pop();
        }
        if fields.len() == 1 && fields[0].trim().is_empty() && columns.is_empty() {
            fields.clear();
        }
        rows.push(ValuesRow { text: &data[start..end], fields });
        pos = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(n: usize) -> Vec<ValuesColumn> {
        (0..n).map(|i| ValuesColumn { name: format!("c{i}"), ch_type: ChType::String }).collect()
    }

    #[test]
    fn only_integer_literals_beyond_64_bits_are_cast_from_text() {
        assert_eq!(wide_integer_literal(" 170141183460469231731687303715884105727 "), Some("170141183460469231731687303715884105727"));
        assert_eq!(wide_integer_literal("-170141183460469231731687303715884105728"), Some("-170141183460469231731687303715884105728"));
        assert_eq!(wide_integer_literal("+18446744073709551616"), Some("18446744073709551616"));
        for not_wide in ["18446744073709551615", "-1", "1e40", "1 + 1", "0x10", "", "-"] {
            assert_eq!(wide_integer_literal(not_wide), None, "{not_wide}");
        }
    }

    #[test]
    fn rows_and_fields_respect_quotes_and_brackets() {
        let rows = split_rows("(1, 'a,b)', [1, 2]) (f(1, 2), 'it''s', '\\'')", &columns(3)).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].fields, vec!["1", " 'a,b)'", " [1, 2]"]);
        assert_eq!(rows[1].fields, vec!["f(1, 2)", " 'it''s'", " '\\''"]);
    }

    #[test]
    fn trailing_comma_and_errors() {
        let rows = split_rows("(1, 2, )", &columns(2)).unwrap();
        assert_eq!(rows[0].fields.len(), 2);
        assert_eq!(split_rows("(1), 5", &columns(1)).unwrap_err().code(), ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED);
        assert_eq!(split_rows("(2, 'open)", &columns(2)).unwrap_err().code(), ErrorCode::SYNTAX_ERROR);
        let row = &split_rows("(3, 'c')", &columns(3)).unwrap()[0];
        let error = check_field_count(row, &columns(3)).unwrap_err();
        assert_eq!(error.code(), ErrorCode::SYNTAX_ERROR);
        assert!(error.message().contains("Expected ',' after the value of column `c1` of type String here: 'c')"), "{}", error.message());
        let row = &split_rows("(1, 2, 3)", &columns(2)).unwrap()[0];
        assert!(check_field_count(row, &columns(2)).unwrap_err().message().contains("Expected ')' after the value of column `c1` of type String here: 2, 3)"));
    }
}
