//! `Native` input: blocks of columns, each with its name and type ([`crate::binary`]),
//! as ClickHouse, chdb and clients such as clickhouse-connect write them over HTTP (no
//! BlockInfo, no custom serialization byte: ClickHouse reads HTTP input at revision 0).
//!
//! Columns are matched to the target by name and cast to its types; target columns
//! missing from a block take their defaults; a column the target does not have is
//! dropped (`input_format_skip_unknown_fields`) or is INCORRECT_DATA.
//!
//! Streaming: the bytes of an unfinished block are kept, and decoding is retried from
//! the block start once enough new bytes arrived (at least what the last attempt
//! showed missing, and double the buffer, so a block sent in many small pieces is
//! decoded a bounded number of times).

use arrow::array::ArrayRef;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::TextOptions;
use granary_types::ChType;

use crate::binary::{is_incomplete, parse_type, read_native, read_native_prefix, Col, Reader};
use crate::input::conform::{conform, push_sliced};
use crate::{FormatSettings, InputFormat};

/// Sanity bounds on a block header (ClickHouse rejects more rows per block too).
const MAX_COLUMNS: u64 = 1 << 20;
const MAX_ROWS: u64 = 1 << 40;

/// Bytes received but not decoded yet, and when decoding is worth retrying.
#[derive(Default)]
pub(crate) struct Pending {
    pub data: Vec<u8>,
    retry_at: usize,
}

impl Pending {
    /// Appends `bytes`; whether a decode attempt may now succeed.
    pub fn push(&mut self, bytes: &[u8]) -> bool {
        self.data.extend_from_slice(bytes);
        self.data.len() >= self.retry_at
    }

    /// Decoding stopped for lack of data: `consumed` bytes are done, and the rest needs
    /// at least `needed` bytes (counted from the first unconsumed one).
    pub fn wait(&mut self, consumed: usize, needed: usize) {
        self.data.drain(..consumed);
        self.retry_at = needed.max(self.data.len().saturating_mul(2));
    }

    pub fn consumed(&mut self, consumed: usize) {
        self.data.drain(..consumed);
        self.retry_at = 0;
    }
}

pub struct NativeInput {
    schema: SchemaRef,
    text: TextOptions,
    max_block_rows: usize,
    skip_unknown_fields: bool,
    pending: Pending,
}

impl NativeInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Self {
        NativeInput {
            schema,
            text: settings.text.clone(),
            max_block_rows: settings.max_block_rows.max(1),
            skip_unknown_fields: settings.skip_unknown_fields,
            pending: Pending::default(),
        }
    }

    fn read_block(&self, r: &mut Reader) -> Result<RecordBatch> {
        let columns = r.varint()?;
        let rows = r.varint()?;
        if columns > MAX_COLUMNS || rows > MAX_ROWS {
            return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Invalid Native block of {columns} columns and {rows} rows")));
        }
        let rows = rows as usize;
        let mut decoded: Vec<(String, ChType, Col)> = Vec::new();
        for _ in 0..columns {
            let name = r.utf8()?;
            let type_name = r.utf8()?;
            let t = parse_type(&type_name)?;
            let mut col = Col::new(&t)?;
            // Zero rows are written as zero bytes, prefixes included.
            if rows > 0 {
                read_native_prefix(&t, r)?;
                read_native(&t, r, &mut col, rows)?;
            }
            if self.schema.column_with_name(&name).is_some() {
                decoded.push((name, t, col));
            } else if !self.skip_unknown_fields {
                return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Unknown column with name {name} found while reading data in Native format")));
            }
        }
        let mut arrays: Vec<(&str, ArrayRef)> = Vec::with_capacity(decoded.len());
        for (name, t, col) in &mut decoded {
            let col = std::mem::replace(col, Col::Tuple(Vec::new()));
            arrays.push((name.as_str(), col.into_arrow(t)?));
        }
        conform(&self.schema, rows, &arrays, &self.text, "Native")
    }

    fn decode(&mut self, eof: bool, out: &mut Vec<RecordBatch>) -> Result<()> {
        let mut pos = 0;
        while pos < self.pending.data.len() {
            let mut r = Reader::new(&self.pending.data[pos..]);
            match self.read_block(&mut r) {
                Ok(batch) => {
                    pos += r.pos;
                    if batch.num_rows() > 0 {
                        push_sliced(batch, self.max_block_rows, out);
                    }
                }
                Err(e) if is_incomplete(&e) && !eof => {
                    let needed = r.needed;
                    self.pending.wait(pos, needed);
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
        self.pending.consumed(pos);
        Ok(())
    }
}

/// The columns of a stream in a format that names and types them (`Native`: those of
/// its first block; `RowBinaryWithNamesAndTypes`: its header), for schema inference.
/// `Ok(None)`: `data` ends before they are known (read more and retry).
pub fn header_columns(format: &str, data: &[u8]) -> Result<Option<Vec<(String, ChType)>>> {
    let mut r = Reader::new(data);
    let result = match format {
        "Native" => native_block_columns(&mut r),
        "RowBinaryWithNamesAndTypes" => rowbinary_header_columns(&mut r),
        other => return Err(Error::new(ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE, format!("Format {other} has no header to infer the structure from"))),
    };
    match result {
        Ok(columns) => Ok(Some(columns)),
        Err(e) if is_incomplete(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

fn native_block_columns(r: &mut Reader) -> Result<Vec<(String, ChType)>> {
    let columns = r.varint()?;
    let rows = r.varint()?;
    if columns > MAX_COLUMNS || rows > MAX_ROWS {
        return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Invalid Native block of {columns} columns and {rows} rows")));
    }
    let mut out = Vec::with_capacity(columns as usize);
    for _ in 0..columns {
        let name = r.utf8()?;
        let t = parse_type(&r.utf8()?)?;
        // The next column's name comes after this one's data.
        if rows > 0 {
            let mut col = Col::new(&t)?;
            read_native_prefix(&t, r)?;
            read_native(&t, r, &mut col, rows as usize)?;
        }
        out.push((name, t));
    }
    Ok(out)
}

fn rowbinary_header_columns(r: &mut Reader) -> Result<Vec<(String, ChType)>> {
    let columns = r.varint()?;
    if columns > MAX_COLUMNS {
        return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Invalid RowBinary header of {columns} columns")));
    }
    let names = (0..columns).map(|_| r.utf8()).collect::<Result<Vec<_>>>()?;
    let types = (0..columns).map(|_| parse_type(&r.utf8()?)).collect::<Result<Vec<_>>>()?;
    Ok(names.into_iter().zip(types).collect())
}

impl InputFormat for NativeInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.pending.push(data) {
            self.decode(false, out)?;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.decode(true, out)
    }
}
