//! `CustomSeparated`, `CustomSeparatedWithNames`, `CustomSeparatedWithNamesAndTypes`:
//! rows framed by the `format_custom_*` delimiters, values escaped by
//! `format_custom_escaping_rule` (`Escaped`, `Quoted`, `CSV`, `JSON`, `Raw`; `XML` and
//! `None` cannot be read, as in ClickHouse).
//!
//! The input is `result_before`, then rows separated by `row_between`, each
//! `row_before field (field_delimiter field)* row_after`, then `result_after` and an
//! optional line feed before the end. A row's fields are found by walking them with
//! the rule's syntax (quoted strings, brackets, escapes), so a delimiter inside a
//! quoted value does not end the field; the walk is done again to read the values.
//! As in ClickHouse, every row, the last one too, ends with `row_after`, and the
//! `Escaped` rule needs a field delimiter that starts with a tab or a line feed when
//! String values are read (their text ends at a tab or line feed).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::{read_json_string, read_quoted_string, shorten, unescape_tsv};
use granary_types::text::read::skip_ws;
use granary_types::text::ColumnBuilder;
use granary_types::ChType;

use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::output::custom::EscapingRule;
use crate::{FormatSettings, InputFormat};

/// The delimiters, as bytes.
#[derive(Clone)]
struct Delimiters {
    field: Vec<u8>,
    row_before: Vec<u8>,
    row_after: Vec<u8>,
    row_between: Vec<u8>,
    result_before: Vec<u8>,
    result_after: Vec<u8>,
}

/// What a look at the data found.
enum Step<T> {
    Done(T),
    /// The data ends before it can be told.
    NeedMore,
}

fn show(delimiter: &[u8]) -> String {
    String::from_utf8_lossy(delimiter).replace('\t', "\\t").replace('\n', "\\n")
}

fn expected_error(delimiter: &[u8], rest: &[u8]) -> Error {
    if rest.is_empty() {
        return Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{}' at end of stream", show(delimiter)));
    }
    Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: expected '{}' before: '{}'", show(delimiter), shorten(rest)))
}

/// `data[pos..]` starts with `delimiter`: the position after it.
fn expect(data: &[u8], pos: usize, delimiter: &[u8], eof: bool) -> Result<Step<usize>> {
    let rest = &data[pos..];
    if rest.starts_with(delimiter) {
        return Ok(Step::Done(pos + delimiter.len()));
    }
    if !eof && rest.len() < delimiter.len() && delimiter.starts_with(rest) {
        return Ok(Step::NeedMore);
    }
    Err(expected_error(delimiter, rest))
}

#[derive(Clone)]
struct CustomRows {
    rule: EscapingRule,
    d: Delimiters,
    allow_single_quotes: bool,
    allow_double_quotes: bool,
    /// Header rows still to read (names, then types).
    header_lines: usize,
    names_read: bool,
    use_header: bool,
    skip_unknown_fields: bool,
    names: HashMap<String, usize>,
    /// For each field of a row, the target column (None: skipped).
    positions: Vec<Option<usize>>,
    /// Types of the target columns, for the check of the Escaped rule's delimiters.
    types: Vec<ChType>,
    /// `result_before` was read.
    started: bool,
    /// Rows found so far (header rows included): `row_between` comes before the next.
    rows_found: u64,
    /// `result_after` was read.
    ended: bool,
    scratch: Vec<u8>,
    fields: Vec<(usize, usize)>,
    /// Rows of any number of fields (schema inference, where the width is unknown).
    any_width: bool,
}

impl CustomRows {
    fn new(schema: &SchemaRef, header_lines: usize, settings: &FormatSettings) -> Result<CustomRows> {
        let rule = EscapingRule::parse(&settings.custom.escaping_rule)?;
        if matches!(rule, EscapingRule::Xml | EscapingRule::None) {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Cannot read value with {} escaping rule", settings.custom.escaping_rule)));
        }
        let c = &settings.custom;
        let columns = schema.fields().len();
        Ok(CustomRows {
            rule,
            d: Delimiters {
                field: c.field_delimiter.as_bytes().to_vec(),
                row_before: c.row_before_delimiter.as_bytes().to_vec(),
                row_after: c.row_after_delimiter.as_bytes().to_vec(),
                row_between: c.row_between_delimiter.as_bytes().to_vec(),
                result_before: c.result_before_delimiter.as_bytes().to_vec(),
                result_after: c.result_after_delimiter.as_bytes().to_vec(),
            },
            allow_single_quotes: settings.csv_allow_single_quotes,
            allow_double_quotes: settings.csv_allow_double_quotes,
            header_lines,
            names_read: false,
            use_header: settings.with_names_use_header,
            skip_unknown_fields: settings.skip_unknown_fields,
            names: schema.fields().iter().enumerate().map(|(i, f)| (f.name().clone(), i)).collect(),
            positions: (0..columns).map(Some).collect(),
            types: schema.fields().iter().map(|f| ChType::from_field(f)).collect(),
            started: false,
            rows_found: 0,
            ended: false,
            scratch: Vec::new(),
            fields: Vec::new(),
            any_width: false,
        })
    }

    /// Where the field that starts at `pos` ends: before `delimiter` (the field
    /// delimiter, or `row_after` after the last field), by the syntax of the rule.
    fn field_end(&self, data: &[u8], pos: usize, delimiter: &[u8], eof: bool) -> Result<Step<usize>> {
        let at_delimiter = |i: usize| -> Option<Step<()>> {
            let rest = &data[i..];
            if !delimiter.is_empty() && rest.starts_with(delimiter) {
                return Some(Step::Done(()));
            }
            if !eof && !delimiter.is_empty() && rest.len() < delimiter.len() && delimiter.starts_with(rest) {
                return Some(Step::NeedMore);
            }
            None
        };
        // An unquoted value: up to the delimiter (Escaped: also a tab or line feed,
        // which end a value in that rule; escapes are skipped over).
        let plain = |mut i: usize, escapes: bool| -> Step<usize> {
            while i < data.len() {
                match at_delimiter(i) {
                    Some(Step::Done(())) => return Step::Done(i),
                    Some(Step::NeedMore) => return Step::NeedMore,
                    None => {}
                }
                let b = data[i];
                if escapes && (b == b'\t' || b == b'\n') {
                    return Step::Done(i);
                }
                if escapes && b == b'\\' {
                    if i + 1 >= data.len() {
                        return if eof { Step::Done(data.len()) } else { Step::NeedMore };
                    }
                    i += 2;
                    continue;
                }
                i += 1;
            }
            if eof {
                Step::Done(data.len())
            } else {
                Step::NeedMore
            }
        };
        let incomplete = |what: &str| -> Result<Step<usize>> {
            if eof {
                Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: unexpected end of stream inside {what}")))
            } else {
                Ok(Step::NeedMore)
            }
        };
        let first = data.get(pos).copied();
        match self.rule {
            EscapingRule::Escaped => Ok(plain(pos, true)),
            EscapingRule::Raw | EscapingRule::None | EscapingRule::Xml => Ok(plain(pos, false)),
            EscapingRule::Csv => match first {
                Some(q) if (q == b'"' && self.allow_double_quotes) || (q == b'\'' && self.allow_single_quotes) => {
                    let mut i = pos + 1;
                    loop {
                        match memchr::memchr(q, &data[i..]) {
                            Some(o) if data.get(i + o + 1) == Some(&q) => i += o + 2,
                            // A quote at the very end may be the first of a doubled pair.
                            Some(o) if i + o + 1 == data.len() && !eof => return Ok(Step::NeedMore),
                            Some(o) => return Ok(Step::Done(i + o + 1)),
                            None => return incomplete("a quoted CSV field"),
                        }
                    }
                }
                _ => Ok(plain(pos, false)),
            },
            EscapingRule::Quoted | EscapingRule::Json => {
                let quote = if self.rule == EscapingRule::Json { b'"' } else { b'\'' };
                match first {
                    Some(b) if b == quote || matches!(b, b'[' | b'{' | b'(') => {
                        // A string, or brackets with strings inside: the end is where the
                        // brackets close outside any string.
                        let mut depth = 0usize;
                        let mut i = pos;
                        while i < data.len() {
                            let b = data[i];
                            if b == quote {
                                let mut j = i + 1;
                                loop {
                                    // A backslash as the last byte leaves `j` past the end.
                                    match memchr::memchr2(quote, b'\\', data.get(j..).unwrap_or_default()) {
                                        Some(o) if data[j + o] == b'\\' => j += o + 2,
                                        Some(o) => {
                                            j += o + 1;
                                            break;
                                        }
                                        None => return incomplete("a string"),
                                    }
                                }
                                i = j;
                                if depth == 0 {
                                    return Ok(Step::Done(i));
                                }
                                continue;
                            }
                            match b {
                                b'[' | b'{' | b'(' => depth += 1,
                                b']' | b'}' | b')' => {
                                    depth = depth.saturating_sub(1);
                                    if depth == 0 {
                                        return Ok(Step::Done(i + 1));
                                    }
                                }
                                _ => {}
                            }
                            i += 1;
                        }
                        incomplete("brackets")
                    }
                    _ => Ok(plain(pos, false)),
                }
            }
        }
    }

    /// The fields of the row that starts at `pos` (into `self.fields`), and where it ends
    /// (after `row_after`). `count`: the number of fields, None to read up to `row_after`.
    fn walk_row(&mut self, data: &[u8], mut pos: usize, count: Option<usize>, eof: bool) -> Result<Step<usize>> {
        self.fields.clear();
        let d = self.d.clone();
        pos = match expect(data, pos, &d.row_before, eof)? {
            Step::Done(p) => p,
            Step::NeedMore => return Ok(Step::NeedMore),
        };
        let mut index = 0;
        loop {
            if Some(index) == count {
                break;
            }
            if index > 0 {
                if count.is_none() {
                    // A header row of unknown length ends at `row_after`.
                    match expect(data, pos, &d.row_after, eof) {
                        Ok(Step::Done(p)) => return Ok(Step::Done(p)),
                        Ok(Step::NeedMore) => return Ok(Step::NeedMore),
                        Err(_) => {}
                    }
                }
                pos = match expect(data, pos, &d.field, eof)? {
                    Step::Done(p) => p,
                    Step::NeedMore => return Ok(Step::NeedMore),
                };
            }
            let last = count == Some(index + 1);
            let delimiter = if last { &d.row_after } else { &d.field };
            let end = match self.field_end(data, pos, delimiter, eof)? {
                Step::Done(end) => end,
                Step::NeedMore => return Ok(Step::NeedMore),
            };
            self.fields.push((pos, end));
            pos = end;
            index += 1;
        }
        expect(data, pos, &d.row_after, eof)
    }

    /// At `pos`, between rows: whether the rest is `result_after` (and an optional line
    /// feed) up to the end.
    fn at_suffix(&self, data: &[u8], pos: usize, eof: bool) -> Step<bool> {
        let rest = &data[pos..];
        let after = rest.strip_prefix(self.d.result_after.as_slice());
        let complete = after.is_some_and(|a| a.is_empty() || a == b"\n");
        if eof {
            return Step::Done(complete);
        }
        // More data may still come: the suffix is only known at the end.
        let mut suffix = self.d.result_after.clone();
        suffix.push(b'\n');
        if suffix.starts_with(rest) {
            return Step::NeedMore;
        }
        Step::Done(false)
    }

    /// A header field as a string, by the rule.
    fn header_value(&self, text: &[u8]) -> Result<String> {
        let mut out = Vec::new();
        match self.rule {
            EscapingRule::Escaped => unescape_tsv(text, &mut out),
            EscapingRule::Quoted => {
                if text.first() != Some(&b'\'') {
                    return Err(Error::new(ErrorCode::CANNOT_PARSE_QUOTED_STRING, format!("Cannot parse quoted string: expected opening quote before: '{}'", shorten(text))));
                }
                let mut pos = 0;
                read_quoted_string(text, &mut pos, &mut out)?;
            }
            EscapingRule::Json => {
                let mut pos = 0;
                read_json_string(text, &mut pos, &mut out)?;
            }
            EscapingRule::Csv => out = unquote_csv(text),
            _ => out.extend_from_slice(text),
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    fn read_header(&mut self, row: &[u8]) -> Result<()> {
        self.header_lines -= 1;
        if self.names_read {
            return Ok(());
        }
        self.names_read = true;
        if self.use_header {
            if let Step::NeedMore = self.walk_row(row, 0, None, true)? {
                return Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, "Cannot parse input: the header row ends early"));
            }
            let fields = std::mem::take(&mut self.fields);
            let mut used = vec![false; self.types.len()];
            let mut positions = Vec::with_capacity(fields.len());
            for (position, (start, end)) in fields.iter().enumerate() {
                let name = self.header_value(&row[*start..*end])?;
                match self.names.get(&name) {
                    Some(&column) if used[column] => {
                        return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Duplicate field found while parsing header: '{name}'")));
                    }
                    Some(&column) => {
                        used[column] = true;
                        positions.push(Some(column));
                    }
                    None if self.skip_unknown_fields => positions.push(None),
                    None => {
                        return Err(Error::new(
                            ErrorCode::INCORRECT_DATA,
                            format!("Unknown field found in format header: '{name}' at position {position}\nSet the 'input_format_skip_unknown_fields' parameter explicitly to ignore and proceed"),
                        ))
                    }
                }
            }
            self.positions = positions;
        }
        self.check_escaped_delimiter()
    }

    /// ClickHouse's `checkSupportedDelimiterAfterField`.
    fn check_escaped_delimiter(&self) -> Result<()> {
        if self.rule != EscapingRule::Escaped || matches!(self.d.field.first(), Some(b'\t' | b'\n')) {
            return Ok(());
        }
        for position in &self.positions {
            let string = match position {
                Some(column) => matches!(self.types[*column].base(), ChType::String),
                None => true,
            };
            if string {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "'Escaped' serialization requires delimiter after String field to start with '\\t' or '\\n'"));
            }
        }
        Ok(())
    }
}

/// Reads one field's text `text` into `builder` by the escaping rule `rule`.
pub(crate) fn read_value(rule: EscapingRule, builder: &mut ColumnBuilder, text: &[u8], scratch: &mut Vec<u8>) -> Result<()> {
    match rule {
        EscapingRule::Escaped | EscapingRule::Raw if text == b"\\N" => builder.append_null(),
        EscapingRule::Escaped if memchr::memchr(b'\\', text).is_some() && !matches!(builder.ch_type().base(), ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..)) => {
            scratch.clear();
            unescape_tsv(text, scratch);
            builder.parse_text(scratch)
        }
        EscapingRule::Escaped | EscapingRule::Raw => builder.parse_text(text),
        EscapingRule::Csv => {
            let quoted = matches!(text.first(), Some(b'"' | b'\''));
            if quoted {
                builder.parse_text(&unquote_csv(text))
            } else if text == b"\\N" {
                builder.append_null()
            } else if text.is_empty() {
                builder.append_default()
            } else {
                builder.parse_text(text)
            }
        }
        EscapingRule::Quoted | EscapingRule::Json => {
            let mut pos = 0;
            if rule == EscapingRule::Json {
                builder.parse_json(text, &mut pos, scratch)?;
            } else {
                builder.parse_quoted(text, &mut pos, scratch)?;
            }
            skip_ws(text, &mut pos);
            if pos != text.len() {
                return Err(Error::new(
                    ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                    format!("Cannot parse input: unexpected data after the value: '{}'", shorten(&text[pos..])),
                ));
            }
            Ok(())
        }
        EscapingRule::Xml | EscapingRule::None => Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Cannot read value with XML escaping rule")),
    }
}

/// A CSV field's text without its quotes, doubled quotes made single.
fn unquote_csv(text: &[u8]) -> Vec<u8> {
    let Some((&q, rest)) = text.split_first() else { return Vec::new() };
    let inner = rest.strip_suffix(&[q]).unwrap_or(rest);
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        out.push(inner[i]);
        i += if inner[i] == q && inner.get(i + 1) == Some(&q) { 2 } else { 1 };
    }
    out
}

impl RowFormat for CustomRows {
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
        if !self.started {
            return match expect(data, from, &self.d.result_before.clone(), eof)? {
                Step::Done(next) => {
                    self.started = true;
                    Ok(Scan::Skip { next })
                }
                Step::NeedMore => Ok(Scan::NeedMore { start: from }),
            };
        }
        if self.ended {
            if from < data.len() {
                return Err(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, format!("Cannot parse input: data after the end of the result: '{}'", shorten(&data[from..]))));
            }
            return Ok(Scan::Skip { next: data.len() });
        }
        match self.at_suffix(data, from, eof) {
            Step::NeedMore => return Ok(Scan::NeedMore { start: from }),
            Step::Done(true) => {
                self.ended = true;
                return Ok(Scan::Skip { next: data.len() });
            }
            Step::Done(false) => {}
        }
        let mut pos = from;
        if self.rows_found > 0 {
            pos = match expect(data, pos, &self.d.row_between.clone(), eof)? {
                Step::Done(p) => p,
                Step::NeedMore => return Ok(Scan::NeedMore { start: from }),
            };
        }
        let count = if self.header_lines > 0 || self.any_width { None } else { Some(self.positions.len()) };
        match self.walk_row(data, pos, count, eof)? {
            Step::Done(end) => {
                self.rows_found += 1;
                Ok(Scan::Row { start: pos, end, next: end })
            }
            Step::NeedMore => Ok(Scan::NeedMore { start: from }),
        }
    }

    fn in_header(&self) -> bool {
        self.header_lines > 0
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.header_lines > 0 {
            return self.read_header(row).map_err(|e| e.context("(while reading header)"));
        }
        let count = self.positions.len();
        if let Step::NeedMore = self.walk_row(row, 0, Some(count), true).map_err(|e| block.row_error(e))? {
            return Err(block.row_error(Error::new(ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED, "Cannot parse input: the row ends early")));
        }
        let fields = std::mem::take(&mut self.fields);
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut seen = vec![false; block.column_count()];
        let mut result = Ok(());
        for (index, (start, end)) in fields.iter().enumerate() {
            let Some(column) = self.positions[index] else { continue };
            seen[column] = true;
            if let Err(e) = read_value(self.rule, &mut block.builders[column], &row[*start..*end], &mut scratch) {
                result = Err(block.column_error(e, column));
                break;
            }
        }
        self.fields = fields;
        self.scratch = scratch;
        result?;
        for (column, seen) in seen.iter().enumerate() {
            if !seen {
                block.builders[column].append_default().map_err(|e| block.column_error(e, column))?;
            }
        }
        block.commit_row(out)
    }
}

/// The rows at the start of `data` in the `CustomSeparated` layout of `settings` (header
/// rows included), each as the text of its fields as written (escaped, quoted), for
/// schema inference. `eof`: `data` is the whole input; else a row cut by its end is
/// left out.
pub fn custom_separated_fields(data: &[u8], settings: &FormatSettings, eof: bool) -> Result<Vec<Vec<Vec<u8>>>> {
    let mut rows = CustomRows::new(&Arc::new(Schema::empty()), 0, settings)?;
    rows.any_width = true;
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        match rows.scan(data, pos, eof) {
            Ok(Scan::Row { start, end, next }) => {
                if let Step::Done(_) = rows.walk_row(&data[..end], start, None, true)? {
                    out.push(rows.fields.iter().map(|(s, e)| data[*s..*e].to_vec()).collect());
                }
                pos = next;
            }
            Ok(Scan::Skip { next }) => {
                if next >= data.len() && rows.started {
                    break;
                }
                pos = next;
            }
            Ok(Scan::NeedMore { .. }) => break,
            // A sample cut in the middle of a row: the rows before it are enough.
            Err(_) if !out.is_empty() => break,
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The escaping rule of `settings` (`format_custom_escaping_rule`).
pub fn custom_escaping_rule(settings: &FormatSettings) -> Result<EscapingRule> {
    EscapingRule::parse(&settings.custom.escaping_rule)
}

/// The `CustomSeparated*` input formats.
pub struct CustomSeparatedInput {
    streamer: Streamer<CustomRows>,
}

impl CustomSeparatedInput {
    /// `header_lines`: 0, 1 (`WithNames`) or 2 (`WithNamesAndTypes`).
    pub fn new(schema: SchemaRef, header_lines: usize, settings: &FormatSettings) -> Result<Self> {
        let c = &settings.custom;
        if header_lines > 0 && settings.with_names_use_header && c.field_delimiter == c.row_after_delimiter && c.row_between_delimiter.is_empty() {
            return Err(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                "Input format CustomSeparatedWithNames(AndTypes) cannot work properly with enabled setting input_format_with_names_use_header, when format_custom_field_delimiter and format_custom_row_after_delimiter are the same and format_custom_row_between_delimiter is empty.",
            ));
        }
        let rows = CustomRows::new(&schema, header_lines, settings)?;
        if header_lines == 0 {
            rows.check_escaped_delimiter()?;
        }
        Ok(CustomSeparatedInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for CustomSeparatedInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}
