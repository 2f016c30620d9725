//! `Values`: `(1, 'a'), (2, 'b')`, as after `INSERT INTO t VALUES`. Only literals are
//! read here (numbers, quoted strings, NULL, true/false, nan/inf, arrays, tuples,
//! maps); anything else (a function call, an operator, an identifier) is a SYNTAX_ERROR
//! naming the row, so that the caller can fall back to evaluating the VALUES as SQL
//! expressions (ClickHouse's `input_format_values_interpret_expressions`).

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::escape::shorten;
use granary_types::text::read::skip_ws;

use super::rows::{Block, Parallelism, RowFormat, Scan, Streamer};
use crate::{FormatSettings, InputFormat};

#[derive(Clone)]
struct ValuesRows {
    scratch: Vec<u8>,
    /// Scanner state of an unfinished row: bytes scanned, bracket depth, inside a
    /// quoted string, after a backslash.
    resume: usize,
    depth: usize,
    quote: Option<u8>,
    escaped: bool,
}

impl RowFormat for ValuesRows {
    fn truncated_row_error(&self, rest: &[u8]) -> Error {
        Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse input: unexpected end of data in: '{}'", granary_types::text::escape::shorten(rest)))
    }

    fn scan(&mut self, data: &[u8], from: usize, _eof: bool) -> Result<Scan> {
        let mut start = from;
        if self.resume == 0 {
            while start < data.len() && matches!(data[start], b' ' | b'\t' | b'\n' | b'\r' | b',' | b';') {
                start += 1;
            }
            if start >= data.len() {
                return Ok(Scan::Skip { next: data.len() });
            }
            if data[start] != b'(' {
                return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse input: expected '(' before: '{}'", shorten(&data[start..]))));
            }
            self.depth = 0;
            self.quote = None;
            self.escaped = false;
        }
        let mut i = start + self.resume;
        while i < data.len() {
            let b = data[i];
            if let Some(q) = self.quote {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == q {
                    // A doubled quote closes and reopens: same result for scanning.
                    self.quote = None;
                }
            } else {
                match b {
                    b'\'' | b'"' | b'`' => self.quote = Some(b),
                    b'(' | b'[' | b'{' => self.depth += 1,
                    b')' | b']' | b'}' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            self.resume = 0;
                            return Ok(Scan::Row { start, end: i + 1, next: i + 1 });
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        self.resume = data.len() - start;
        Ok(Scan::NeedMore { start })
    }

    fn parse_row(&mut self, row: &[u8], block: &mut Block, out: &mut Vec<RecordBatch>) -> Result<()> {
        let count = block.column_count();
        let mut pos = 1;
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut result = Ok(());
        for column in 0..count {
            if let Err(e) = block.builders[column].parse_quoted(row, &mut pos, &mut scratch) {
                result = Err(block.column_error(e, column));
                break;
            }
            skip_ws(row, &mut pos);
            let expected = if column + 1 < count { b',' } else { b')' };
            if row.get(pos) != Some(&expected) {
                // A value too many or too few, or an expression after the literal (which
                // the caller then evaluates as SQL): ClickHouse's SYNTAX_ERROR either way.
                let message = format!(
                    "Expected '{}' after the value of column `{}` of type {} here: {}",
                    expected as char,
                    block.column_name(column),
                    block.builders[column].ch_type(),
                    shorten(&row[pos.min(row.len())..])
                );
                result = Err(block.column_error(Error::new(ErrorCode::SYNTAX_ERROR, message), column));
                break;
            }
            pos += 1;
        }
        if count == 0 {
            skip_ws(row, &mut pos);
            if row.get(pos) != Some(&b')') {
                result = Err(block.row_error(Error::new(ErrorCode::SYNTAX_ERROR, "Cannot parse input: expected ')'")));
            }
        }
        self.scratch = scratch;
        result?;
        block.commit_row(out)
    }
}

pub struct ValuesInput {
    streamer: Streamer<ValuesRows>,
}

impl ValuesInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Result<Self> {
        let rows = ValuesRows { scratch: Vec::new(), resume: 0, depth: 0, quote: None, escaped: false };
        Ok(ValuesInput { streamer: Streamer::new(rows, Block::new(schema, settings)?, Parallelism::from_settings(settings)) })
    }
}

impl InputFormat for ValuesInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.push(data, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.streamer.finish(out)
    }
}
