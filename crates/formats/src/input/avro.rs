//! `Avro` input: Avro object container files (OCF), as ClickHouse reads them.
//!
//! An OCF is a header (magic `Obj\x01`, a metadata map holding the schema JSON and the
//! block codec, a 16-byte sync marker) and then blocks (row count, byte size, the
//! rows, possibly compressed, and the sync marker). `arrow-avro` reads a whole file
//! from a `BufRead`; input here arrives in pieces, so the framing is walked here: bytes
//! are kept until whole blocks are in, and every run of at least
//! [`DECODE_BYTES`] of whole blocks is decoded as a small file (the header followed by
//! those blocks). Memory holds the header and about one run, whatever the file size.
//! Columns are then matched by name and converted to the target types as for Arrow.

use std::io::Cursor;

use arrow::array::ArrayRef;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use arrow_avro::reader::ReaderBuilder;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::TextOptions;

use crate::input::conform::{conform, push_sliced};
use crate::{FormatSettings, InputFormat};

const MAGIC: &[u8] = b"Obj\x01";
const SYNC_LEN: usize = 16;
/// Whole blocks gathered before they are decoded together.
const DECODE_BYTES: usize = 1 << 20;

fn bad_avro(why: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::INCORRECT_DATA, format!("Cannot read Avro data: {why}"))
}

/// Reads an Avro `long` (zigzag varint) at `*pos`; `None` when the data ends first.
fn read_long(data: &[u8], pos: &mut usize) -> Result<Option<i64>> {
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        let Some(&byte) = data.get(*pos) else { return Ok(None) };
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(Some((value >> 1) as i64 ^ -((value & 1) as i64)));
        }
    }
    Err(bad_avro("a variable-length integer is longer than 10 bytes"))
}

/// Skips `len` bytes at `*pos`; false when the data ends first.
fn skip(data: &[u8], pos: &mut usize, len: i64) -> Result<bool> {
    let len = usize::try_from(len).map_err(|_| bad_avro(format!("negative length {len}")))?;
    if data.len() - *pos < len {
        return Ok(false);
    }
    *pos += len;
    Ok(true)
}

/// The length of the OCF header at the start of `data`, or `None` when it is not all in.
pub fn header_len(data: &[u8]) -> Result<Option<usize>> {
    let magic_in = data.len().min(MAGIC.len());
    if data[..magic_in] != MAGIC[..magic_in] {
        return Err(bad_avro("not an Avro object container file (wrong magic bytes)"));
    }
    let mut pos = MAGIC.len();
    if data.len() < pos {
        return Ok(None);
    }
    // The metadata map: blocks of `count` entries (a negative count is followed by the
    // block's byte size), each a key string and a value bytes, ended by a zero count.
    loop {
        let Some(mut count) = read_long(data, &mut pos)? else { return Ok(None) };
        if count == 0 {
            break;
        }
        if count < 0 {
            count = -count;
            if read_long(data, &mut pos)?.is_none() {
                return Ok(None);
            }
        }
        for _ in 0..count * 2 {
            let Some(len) = read_long(data, &mut pos)? else { return Ok(None) };
            if !skip(data, &mut pos, len)? {
                return Ok(None);
            }
        }
    }
    Ok((data.len() - pos >= SYNC_LEN).then_some(pos + SYNC_LEN))
}

/// The length of the data block at the start of `data`, or `None` when it is not all in.
fn block_len(data: &[u8]) -> Result<Option<usize>> {
    let mut pos = 0;
    if read_long(data, &mut pos)?.is_none() {
        return Ok(None);
    }
    let Some(size) = read_long(data, &mut pos)? else { return Ok(None) };
    if !skip(data, &mut pos, size)? {
        return Ok(None);
    }
    Ok((data.len() - pos >= SYNC_LEN).then_some(pos + SYNC_LEN))
}

/// Decodes `file` (an OCF: a header and whole blocks) into batches of its own schema.
pub fn decode_file(file: &[u8], batch_rows: usize) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let reader = ReaderBuilder::new().with_batch_size(batch_rows.max(1)).build(Cursor::new(file)).map_err(bad_avro)?;
    let schema = reader.schema();
    let batches = reader.collect::<std::result::Result<Vec<_>, _>>().map_err(bad_avro)?;
    Ok((schema, batches))
}

pub struct AvroInput {
    schema: SchemaRef,
    text: TextOptions,
    max_block_rows: usize,
    /// The header, then whole and partial blocks not decoded yet.
    buffer: Vec<u8>,
    header_len: Option<usize>,
    /// Where the blocks not yet known to be whole begin in `buffer`.
    whole_blocks_end: usize,
}

impl AvroInput {
    pub fn new(schema: SchemaRef, settings: &FormatSettings) -> Self {
        AvroInput { schema, text: settings.text.clone(), max_block_rows: settings.max_block_rows.max(1), buffer: Vec::new(), header_len: None, whole_blocks_end: 0 }
    }

    /// Finds the whole blocks that arrived, and decodes them when there are enough
    /// (or all of them, at the end).
    fn advance(&mut self, last: bool, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.header_len.is_none() {
            self.header_len = header_len(&self.buffer)?;
            let Some(len) = self.header_len else { return Ok(()) };
            self.whole_blocks_end = len;
        }
        let Some(header_len) = self.header_len else { return Ok(()) };
        while let Some(len) = block_len(&self.buffer[self.whole_blocks_end..])? {
            self.whole_blocks_end += len;
        }
        if self.whole_blocks_end > header_len && (last || self.whole_blocks_end - header_len >= DECODE_BYTES) {
            let (_, batches) = decode_file(&self.buffer[..self.whole_blocks_end], self.max_block_rows)?;
            for batch in batches {
                self.emit(batch, out)?;
            }
            self.buffer.drain(header_len..self.whole_blocks_end);
            self.whole_blocks_end = header_len;
        }
        Ok(())
    }

    fn emit(&self, batch: RecordBatch, out: &mut Vec<RecordBatch>) -> Result<()> {
        let columns: Vec<(&str, ArrayRef)> =
            batch.schema_ref().fields().iter().map(|f| f.name().as_str()).zip(batch.columns().iter().cloned()).collect();
        let batch = conform(&self.schema, batch.num_rows(), &columns, &self.text, "Avro")?;
        if batch.num_rows() > 0 {
            push_sliced(batch, self.max_block_rows, out);
        }
        Ok(())
    }
}

impl InputFormat for AvroInput {
    fn push(&mut self, data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        self.buffer.extend_from_slice(data);
        self.advance(false, out)
    }

    fn finish(&mut self, out: &mut Vec<RecordBatch>) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.advance(true, out)?;
        match self.header_len {
            None => Err(bad_avro("the data ends inside the file header")),
            Some(_) if self.whole_blocks_end < self.buffer.len() => Err(bad_avro("the data ends inside a block")),
            Some(_) => Ok(()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_longs() {
        for (bytes, value) in [(&[0x00][..], 0), (&[0x01], -1), (&[0x02], 1), (&[0x7f], -64), (&[0x80, 0x01], 64), (&[0xfe, 0x01], 127)] {
            let mut pos = 0;
            assert_eq!(read_long(bytes, &mut pos).unwrap(), Some(value));
            assert_eq!(pos, bytes.len());
        }
        assert_eq!(read_long(&[0x80], &mut 0).unwrap(), None);
    }

    #[test]
    fn header_framing() {
        // Magic, one map block of one entry ("k" -> "v"), end of map, sync marker.
        let mut file = b"Obj\x01\x02\x02k\x02v\x00".to_vec();
        file.extend_from_slice(&[7u8; SYNC_LEN]);
        assert_eq!(header_len(&file).unwrap(), Some(file.len()));
        for cut in 0..file.len() {
            assert_eq!(header_len(&file[..cut]).unwrap(), None, "cut at {cut}");
        }
        assert!(header_len(b"PAR1").is_err());
    }
}
