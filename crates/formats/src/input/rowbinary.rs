//! `RowBinary`, `RowBinaryWithNames`, `RowBinaryWithNamesAndTypes` input.
//!
//! Plain `RowBinary` holds the target columns in order. `WithNames` maps header names
//! to target columns (or by position when `input_format_with_names_use_header` is
//! off) and reads each with the target type; an unknown name cannot be skipped, as its
//! values have no known size. `WithNamesAndTypes` reads the header types, drops
//! unknown columns (`input_format_skip_unknown_fields`) and casts to the target types.
//! Target columns absent from the header take their defaults.
//!
//! Rows are decoded as they become complete; a row cut by the end of a push is rolled
//! back and read again when the bytes it was missing have arrived.

use arrow::array::ArrayRef;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::TextOptions;
use granary_types::ChType;

use crate::binary::{is_incomplete, parse_type, Col, Reader};
use crate::input::conform::conform;
use crate::input::native::Pending;
use crate::{FormatSettings, InputFormat};

const MAX_COLUMNS: u64 = 1 << 20;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Header {
    None,
    Names,
    NamesAndTypes,
}

/// A column of the data: the target column it fills (None: read and dropped), its type.
struct Source {
    target: Option<String>,
    ch_type: ChType,
    col: Col,
}

pub struct RowBinaryInput {
    schema: SchemaRef,
    text: TextOptions,
    max_block_rows: usize,
    skip_unknown_fields: bool,
    use_header: bool,
    header: Header,
    /// None until the header is read.
    sources: Option<Vec<Source>>,
    rows: usize,
    row_number: u64,
    pending: Pending,
}

impl RowBinaryInput {
    pub fn new(schema: SchemaRef, header: Header, settings: &FormatSettings) -> Result<Self> {
        let mut input = RowBinaryInput {
            schema,
            text: settings.text.clone(),
            max_block_rows: settings.max_block_rows.max(1),
            skip_unknown_fields: settings.skip_unknown_fields,
            use_header: settings.with_names_use_header,
            header,
            sources: None,
            rows: 0,
            row_number: 0,
            pending: Pending::default(),
        };
        if header == Header::None {
            let names: Vec<String> = input.schema.fields().iter().map(|f| f.name().clone()).collect();
            input.sources = Some(input.map_columns(&names, None)?);
        }
        Ok(input)
    }

    /// The sources for header `names` (and `types`, if the data has them).
    fn map_columns(&self, names: &[String], types: Option<&[ChType]>) -> Result<Vec<Source>> {
        let fields = self.schema.fields();
        if !self.use_header && self.header != Header::None && names.len() != fields.len() {
            return Err(Error::new(
                ErrorCode::INCORRECT_NUMBER_OF_COLUMNS,
                format!("The number of columns in the header ({}) differs from the table ({})", names.len(), fields.len()),
            ));
        }
        let mut sources = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let field = if self.use_header || self.header == Header::None { self.schema.column_with_name(name).map(|(_, f)| f) } else { fields.get(i).map(|f| f.as_ref()) };
            let target = field.map(|f| f.name().clone());
            let ch_type = match (types, field) {
                (Some(types), _) => types[i].clone(),
                (None, Some(field)) => ChType::from_field(field),
                (None, None) => {
                    return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Unknown field found while parsing RowBinary format: {name}")));
                }
            };
            if target.is_none() && !self.skip_unknown_fields {
                return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Unknown field found while parsing RowBinary format: {name}")));
            }
            sources.push(Source { col: Col::new(&ch_type)?, target, ch_type });
        }
        Ok(sources)
    }

    fn read_header(&self, r: &mut Reader) -> Result<Vec<Source>> {
        let count = r.varint()?;
        if count > MAX_COLUMNS {
            return Err(Error::new(ErrorCode::INCORRECT_DATA, format!("Too many columns in the RowBinary header: {count}")));
        }
        let mut names = Vec::new();
        for _ in 0..count {
            names.push(r.utf8()?);
        }
        let mut types = Vec::new();
        if self.header == Header::NamesAndTypes {
            for _ in 0..count {
                types.push(parse_type(&r.utf8()?)?);
            }
        }
        self.map_columns(&names, (self.header == Header::NamesAndTypes).then_some(types.as_slice()))
    }

    fn flush(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        let Some(sources) = self.sources.as_mut() else { return Ok(()) };
        if self.rows == 0 {
            return Ok(());
        }
        let mut arrays: Vec<(&str, ArrayRef)> = Vec::new();
        for source in sources.iter_mut() {
            let col = std::mem::replace(&mut source.col, Col::new(&source.ch_type)?);
            if let Some(target) = &source.target {
                arrays.push((target.as_str(), col.into_arrow(&source.ch_type)?));
            }
        }
        out.push(conform(&self.schema, self.rows, &arrays, &self.text, "RowBinary")?);
        self.rows = 0;
        Ok(())
    }

    fn decode(&mut self, eof: bool, out: &mut Vec<RecordBatch>) -> Result<()> {
        let mut pos = 0;
        if self.sources.is_none() {
            let mut r = Reader::new(&self.pending.data);
            match self.read_header(&mut r) {
                Ok(sources) => {
                    self.sources = Some(sources);
                    pos = r.pos;
                }
                // No header at all: an empty input.
                Err(_) if eof && self.pending.data.is_empty() => return Ok(()),
                Err(e) if is_incomplete(&e) && !eof => {
                    let needed = r.needed;
                    self.pending.wait(0, needed);
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
        while pos < self.pending.data.len() {
            let sources = self.sources.as_mut().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "RowBinary header missing"))?;
            if sources.is_empty() {
                return Err(Error::new(ErrorCode::INCORRECT_DATA, "RowBinary data for a table without columns"));
            }
            let mut r = Reader::new(&self.pending.data[pos..]);
            let mut result = Ok(());
            for source in sources.iter_mut() {
                result = source.col.read_row(&mut r);
                if result.is_err() {
                    break;
                }
            }
            match result {
                Ok(()) => {
                    pos += r.pos;
                    self.rows += 1;
                    self.row_number += 1;
                    if self.rows >= self.max_block_rows {
                        self.flush(out)?;
                    }
                }
                Err(e) => {
                    let rows = self.rows;
                    sources.iter_mut().for_each(|s| s.col.truncate(rows));
                    if is_incomplete(&e) && !eof {
                        let needed = r.needed;
                        self.pending.wait(pos, needed);
                        return Ok(());
                    }
                    return Err(e.context(format!("(at row {})", self.row_number + 1)));
                }
            }
        }
        self.pending.consumed(pos);
        Ok(())
    }
}

impl InputFormat for RowBinaryInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.pending.push(data) {
            self.decode(false, out)?;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        self.decode(true, out)?;
        self.flush(out)
    }
}
