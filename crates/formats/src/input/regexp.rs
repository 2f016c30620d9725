//! `Regexp`: each line must match `format_regexp` in full (RE2 syntax, which the
//! `regex` crate reads too); its capture groups, in order, are the columns, each read
//! by `format_regexp_escaping_rule` (`Raw` by default). A line that does not match is
//! an error, or skipped with `format_regexp_skip_unmatched = 1`. A carriage return
//! before the line feed is not part of the line.

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use regex::bytes::Regex;

use super::custom::read_value;
use super::lines::scan_line;
use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::output::custom::EscapingRule;
use crate::{FormatSettings, InputFormat};

#[derive(Clone)]
struct RegexpRows {
    regex: Regex,
    pattern: String,
    rule: EscapingRule,
    skip_unmatched: bool,
    scratch: Vec<u8>,
}

impl RegexpRows {
    fn new(settings: &FormatSettings) -> Result<Self> {
        let pattern = settings.regexp.pattern.clone();
        if pattern.is_empty() {
            return Err(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                "The regular expression is not set for the `Regexp` format. It requires setting the value of the `format_regexp` setting",
            ));
        }
        let invalid = |e: regex::Error| {
            // The crate's message draws the pattern over several lines; its last line says what is wrong.
            let why = e.to_string().lines().last().unwrap_or_default().trim_start_matches("error: ").to_string();
            Error::new(ErrorCode::BAD_ARGUMENTS, format!("Invalid regular expression '{pattern}' for the `Regexp` format: {why}"))
        };
        Regex::new(&pattern).map_err(invalid)?;
        let regex = Regex::new(&format!("^(?:{pattern})$")).map_err(invalid)?;
        let rule = EscapingRule::parse(&settings.regexp.escaping_rule)?;
        Ok(RegexpRows { regex, pattern, rule, skip_unmatched: settings.regexp.skip_unmatched, scratch: Vec::new() })
    }
}

impl RowFormat for RegexpRows {
    fn scan(&mut self, data: &[u8], from: usize, eof: bool) -> Result<Scan> {
        Ok(scan_line(data, from, eof))
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        let line = row.strip_suffix(b"\r").unwrap_or(row);
        let Some(captures) = self.regex.captures(line) else {
            if self.skip_unmatched {
                return Ok(());
            }
            let message = format!("Line \"{}\" doesn't match the regexp: `{}`", String::from_utf8_lossy(line), self.pattern);
            return Err(block.row_error(Error::new(ErrorCode::INCORRECT_DATA, message)));
        };
        if captures.len() - 1 != block.column_count() {
            let message = "The number of matched fields in line doesn't match the number of columns";
            return Err(block.row_error(Error::new(ErrorCode::INCORRECT_DATA, message)));
        }
        for column in 0..block.column_count() {
            let text = captures.get(column + 1).map_or(&b""[..], |m| m.as_bytes());
            read_value(self.rule, &mut block.builders[column], text, &mut self.scratch).map_err(|e| block.column_error(e, column))?;
        }
        block.commit_row(out)
    }
}

/// `Regexp`.
pub struct RegexpInput {
    streamer: Streamer<RegexpRows>,
}

impl RegexpInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        let rows = RegexpRows::new(settings)?;
        Ok(RegexpInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for RegexpInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}

/// The captured fields of the matching lines of `data` (a sample for schema
/// inference), and the escaping rule that reads them. `eof`: the data is whole, so a
/// last line without a line feed counts.
pub fn regexp_fields(data: &[u8], settings: &FormatSettings, eof: bool) -> Result<(EscapingRule, Vec<Vec<Vec<u8>>>)> {
    let rows = RegexpRows::new(settings)?;
    let mut lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if !eof || lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop();
    }
    let mut out = Vec::new();
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match rows.regex.captures(line) {
            Some(captures) => out.push(captures.iter().skip(1).map(|m| m.map_or(Vec::new(), |m| m.as_bytes().to_vec())).collect()),
            None if rows.skip_unmatched => {}
            None => {
                let message = format!("Line \"{}\" doesn't match the regexp: `{}`", String::from_utf8_lossy(line), rows.pattern);
                return Err(Error::new(ErrorCode::INCORRECT_DATA, message));
            }
        }
    }
    Ok((rows.rule, out))
}
