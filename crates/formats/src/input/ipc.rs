//! `Arrow` (IPC file) and `ArrowStream` (IPC stream) input, decoded as the bytes come
//! with Arrow's push-based stream decoder. An IPC file is its magic, an IPC stream and
//! a footer: the stream part is decoded the same way and the footer (an index of the
//! same batches) is ignored. Columns are matched by name and cast to the target types
//! (`UInt32` seconds to `DateTime`, binary to strings, dictionaries to values).

use arrow::array::ArrayRef;
use arrow::buffer::Buffer;
use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;
use arrow::ipc::reader::StreamDecoder;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use granary_types::text::TextOptions;

use crate::input::conform::{conform, push_sliced};
use crate::{FormatSettings, InputFormat};

const FILE_MAGIC: &[u8] = b"ARROW1";

pub struct ArrowInput {
    schema: SchemaRef,
    text: TextOptions,
    max_block_rows: usize,
    decoder: StreamDecoder,
    /// File format: how many bytes of the leading magic are still to come.
    magic_left: usize,
    file: bool,
    /// The end-of-stream marker was seen (the rest of a file is its footer).
    ended: bool,
    /// File format: the first message began (the magic's padding is behind).
    started: bool,
    /// File format: the last bytes seen after the end of the stream.
    tail: Vec<u8>,
    received: bool,
}

fn bad_arrow(e: ArrowError) -> Error {
    Error::new(ErrorCode::INCORRECT_DATA, format!("Cannot read Arrow data: {e}"))
}

impl ArrowInput {
    pub fn new(schema: SchemaRef, file: bool, settings: &FormatSettings) -> Self {
        ArrowInput {
            schema,
            text: settings.text.clone(),
            max_block_rows: settings.max_block_rows.max(1),
            decoder: StreamDecoder::new(),
            magic_left: if file { FILE_MAGIC.len() } else { 0 },
            file,
            ended: false,
            started: false,
            tail: Vec::new(),
            received: false,
        }
    }

    fn emit(&self, batch: RecordBatch, out: &mut Vec<RecordBatch>) -> Result<()> {
        let columns: Vec<(&str, ArrayRef)> =
            batch.schema_ref().fields().iter().map(|f| f.name().as_str()).zip(batch.columns().iter().cloned()).collect();
        let batch = conform(&self.schema, batch.num_rows(), &columns, &self.text, "Arrow")?;
        if batch.num_rows() > 0 {
            push_sliced(batch, self.max_block_rows, out);
        }
        Ok(())
    }
}

impl InputFormat for ArrowInput {
    fn push(&mut self, mut data: &[u8], out: &mut Vec<RecordBatch>) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        self.received = true;
        if self.ended {
            // The footer of a file: only its closing magic is checked.
            self.tail.extend_from_slice(data);
            let excess = self.tail.len().saturating_sub(FILE_MAGIC.len());
            self.tail.drain(..excess);
            return Ok(());
        }
        if self.magic_left > 0 {
            let n = self.magic_left.min(data.len());
            let at = FILE_MAGIC.len() - self.magic_left;
            if data[..n] != FILE_MAGIC[at..at + n] {
                return Err(Error::new(ErrorCode::INCORRECT_DATA, "Cannot read Arrow data: not an Arrow IPC file (bad magic)"));
            }
            self.magic_left -= n;
            data = &data[n..];
        }
        if self.file && !self.started {
            // The magic is padded with zeros to the writer's alignment (8 bytes in the
            // specification, 64 by Arrow's Rust writer); a message never starts with 0.
            let zeros = data.iter().take_while(|&&b| b == 0).count();
            data = &data[zeros..];
            self.started = !data.is_empty();
        }
        let mut buffer = Buffer::from(data);
        while !buffer.is_empty() {
            match self.decoder.decode(&mut buffer) {
                Ok(Some(batch)) => self.emit(batch, out)?,
                Ok(None) => {}
                // Data after the end-of-stream marker: in a file, the footer.
                Err(ArrowError::IpcError(m)) if self.file && m == "Unexpected EOS" => {
                    self.ended = true;
                    let rest = &buffer[..];
                    self.tail = rest[rest.len().saturating_sub(FILE_MAGIC.len())..].to_vec();
                    return Ok(());
                }
                Err(e) => return Err(bad_arrow(e)),
            }
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<RecordBatch>) -> Result<()> {
        if !self.received {
            return Ok(());
        }
        if self.ended && self.tail == FILE_MAGIC {
            return Ok(());
        }
        if self.file {
            // A file always has a footer after its stream: getting here means it was cut.
            return Err(Error::new(ErrorCode::CANNOT_READ_ALL_DATA, "Cannot read Arrow data: unexpected end of file"));
        }
        self.decoder
            .finish()
            .map_err(|e| Error::new(ErrorCode::CANNOT_READ_ALL_DATA, format!("Cannot read Arrow data: unexpected end of stream: {e}")))
    }
}
