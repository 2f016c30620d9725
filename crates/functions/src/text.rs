//! Building `String` columns from bytes.
//!
//! ClickHouse's String functions work on bytes: `substring` may cut a character,
//! `reverse` reverses bytes, `unhex` makes any bytes. Granary's String values are Arrow
//! `Utf8`, which must be valid UTF-8, so kernels write bytes into a [`ByteStrings`] and
//! the column is checked once at the end; a value that is not valid UTF-8 is then
//! written with U+FFFD for each invalid sequence (what a UTF-8 client decoding
//! ClickHouse's raw bytes shows, e.g. Python's `errors="replace"`).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, StringArray};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, DfResult};

/// A `String` column under construction: one byte buffer and the value offsets.
pub(crate) struct ByteStrings {
    values: Vec<u8>,
    offsets: Vec<i32>,
}

impl ByteStrings {
    pub fn with_capacity(rows: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        ByteStrings { values: Vec::with_capacity(bytes), offsets }
    }

    /// Appends bytes to the value being written.
    pub fn extend(&mut self, bytes: &[u8]) {
        self.values.extend_from_slice(bytes);
    }

    pub fn push_byte(&mut self, byte: u8) {
        self.values.push(byte);
    }

    /// Bytes written to the value being written so far.
    pub fn current_len(&self) -> usize {
        self.values.len() - self.offsets.last().map_or(0, |o| *o as usize)
    }

    /// The last byte of the value being written, if it has any.
    pub fn last_byte(&self) -> Option<u8> {
        if self.current_len() == 0 {
            None
        } else {
            self.values.last().copied()
        }
    }

    /// Keeps only the first `len` bytes of the value being written.
    pub fn truncate_current(&mut self, len: usize) {
        let start = self.offsets.last().map_or(0, |o| *o as usize);
        self.values.truncate(start + len);
    }

    /// Ends the value being written.
    pub fn finish_value(&mut self) -> DfResult<()> {
        let end = i32::try_from(self.values.len()).map_err(|_| {
            ch_error(ErrorCode::TOO_LARGE_STRING_SIZE, format!("A String column of more than {} bytes does not fit in one block", i32::MAX))
        })?;
        self.offsets.push(end);
        Ok(())
    }

    /// Appends a whole value.
    pub fn push_value(&mut self, bytes: &[u8]) -> DfResult<()> {
        self.extend(bytes);
        self.finish_value()
    }

    /// Keeps only the first `rows` finished values (drops the value being written).
    pub fn truncate_values(&mut self, rows: usize) {
        self.offsets.truncate(rows + 1);
        let end = self.offsets.last().map_or(0, |o| *o as usize);
        self.values.truncate(end);
    }

    /// Values finished so far.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The `Utf8` column, with `nulls` as its validity.
    pub fn finish(self, nulls: Option<NullBuffer>) -> DfResult<ArrayRef> {
        Ok(Arc::new(self.into_string_array(nulls)?))
    }

    fn into_string_array(self, nulls: Option<NullBuffer>) -> DfResult<StringArray> {
        let ByteStrings { values, offsets } = self;
        if let Ok(valid) = std::str::from_utf8(&values) {
            let on_boundaries = offsets.iter().all(|o| valid.is_char_boundary(*o as usize));
            if on_boundaries {
                return Ok(StringArray::try_new(OffsetBuffer::new(offsets.into()), values.into(), nulls)?);
            }
        }
        let mut repaired = ByteStrings::with_capacity(offsets.len() - 1, values.len());
        for w in offsets.windows(2) {
            let bytes = &values[w[0] as usize..w[1] as usize];
            repaired.push_value(String::from_utf8_lossy(bytes).as_bytes())?;
        }
        Ok(StringArray::try_new(OffsetBuffer::new(repaired.offsets.into()), repaired.values.into(), nulls)?)
    }

    /// An `Array(String)` column whose row `i` holds values `list_offsets[i]..list_offsets[i + 1]`.
    pub fn finish_list(self, list_offsets: Vec<i32>) -> DfResult<ArrayRef> {
        let values = self.into_string_array(None)?;
        string_list(Arc::new(values), list_offsets)
    }
}

/// `Array(String)` from its flat values and list offsets.
pub(crate) fn string_list(values: ArrayRef, list_offsets: Vec<i32>) -> DfResult<ArrayRef> {
    let item = Arc::new(ChType::String.to_arrow_field("item"));
    Ok(Arc::new(ListArray::try_new(item, OffsetBuffer::new(list_offsets.into()), values, None)?))
}

/// The text of a String or FixedString column (FixedString bytes as they are, made
/// valid UTF-8 if they are not), as `Utf8`.
pub(crate) fn utf8_array(a: ArrayRef) -> DfResult<ArrayRef> {
    Ok(match a.data_type() {
        DataType::Utf8 => a,
        DataType::FixedSizeBinary(_) => {
            let b = a.as_fixed_size_binary();
            let strings: StringArray = b.iter().map(|v| v.map(|bytes| String::from_utf8_lossy(bytes).into_owned())).collect();
            Arc::new(strings)
        }
        _ => cast(&a, &DataType::Utf8)?,
    })
}
