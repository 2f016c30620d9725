//! Lightweight DELETE (`DELETE FROM t WHERE ...`) as ClickHouse does it: the mutation
//! writes only a mask column, `_row_exists` (UInt8, 0: deleted), into each part with a
//! matching row; every other file of the part is hard-linked into the new part
//! (`<partition>_<min>_<max>_<level>_N`), not copied.
//!
//! * The mask is `_row_exists.bin` + `_row_exists.mrk`, a column in the wide format
//!   (same granules as the part, same block and encoding), in wide and compact parts
//!   alike: a compact part is not rewritten either. `columns.txt` lists it after the
//!   table's columns, as ClickHouse lists it.
//! * It is loaded with the part (one bit per row in memory) and every read applies it:
//!   scans (before any PREWHERE, unless `apply_deleted_mask = 0`), FINAL, merges,
//!   mutations and point reads. A merge writes only the rows left, without the mask.
//! * A part whose rows all go keeps its rows and an all-zero mask until a merge, as in
//!   ClickHouse (`system.parts.rows` counts the rows on disk).
//! * Crash safety is the mutation's: the new part is complete before its rename, and
//!   it covers the old one.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, UInt8Array};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use granary_common::{Error, ErrorCode, Result, ResultExt};

use crate::compression::{Codec, ColumnCodec};
use crate::part::{parse_marks, Part};

/// The mask column, as ClickHouse names it.
pub const ROW_EXISTS_COLUMN: &str = "_row_exists";
pub const ROW_EXISTS_BIN: &str = "_row_exists.bin";
pub const ROW_EXISTS_MRK: &str = "_row_exists.mrk";

/// The table's columns and the mask after them: a masked part's `columns.txt`.
pub fn with_row_exists(schema: &SchemaRef) -> SchemaRef {
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.push(Field::new(ROW_EXISTS_COLUMN, DataType::UInt8, false));
    Arc::new(Schema::new(fields))
}

/// Reads a masked part's mask (its files taken from `listed`, the verified small files
/// of the part, where the `.bin` file was size-checked).
pub fn load_mask(part: &Part, listed: &mut std::collections::HashMap<String, Vec<u8>>) -> Result<BooleanArray> {
    let missing = |name: &str| Error::new(ErrorCode::CORRUPTED_DATA, format!("{name} is missing from {}", crate::part::CHECKSUMS_FILE));
    listed.remove(ROW_EXISTS_BIN).ok_or_else(|| missing(ROW_EXISTS_BIN))?;
    let marks = parse_marks(&listed.remove(ROW_EXISTS_MRK).ok_or_else(|| missing(ROW_EXISTS_MRK))?)
        .filter(|m| m.len() == part.granules() && m.iter().zip(part.granule_starts.windows(2)).all(|(m, w)| m.rows == w[1] - w[0]))
        .ok_or_else(|| Error::new(ErrorCode::CORRUPTED_DATA, format!("{ROW_EXISTS_MRK} does not match the part's granules")))?;
    let values = crate::reader::read_whole_column(&part.dir.join(ROW_EXISTS_BIN), &marks, &DataType::UInt8)?;
    let values = values.as_any().downcast_ref::<UInt8Array>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "_row_exists is not UInt8"))?;
    Ok(values.iter().map(|v| Some(v.unwrap_or(1) != 0)).collect())
}

/// The mask rows `deleted` (one per row of the part, true: delete) leave of `part`'s.
pub fn mask_after(part: &Part, deleted: &BooleanArray) -> Result<BooleanArray> {
    let kept = arrow::compute::not(deleted)?;
    Ok(match &part.row_exists {
        Some(existing) => arrow::compute::and(existing, &kept)?,
        None => kept,
    })
}

/// Writes `mask`'s files into the part directory being made (`dir`) and returns their
/// `checksums.txt` lines.
pub fn write_mask(dir: &Path, part: &Part, mask: &BooleanArray) -> Result<String> {
    let values: ArrayRef = Arc::new(UInt8Array::from_iter_values(mask.values().iter().map(u8::from)));
    crate::writer::write_column_file(dir, ROW_EXISTS_COLUMN, &part.granule_starts, &values, &ColumnCodec { transform: None, block: Codec::Lz4 })
}

/// Writes `bytes` to `path` and fsyncs it.
pub fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut file = std::fs::File::create(path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot create {}", path.display()))?;
    file.write_all(bytes).with_code(ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR, || format!("Cannot write {}", path.display()))?;
    file.sync_all().with_code(ErrorCode::CANNOT_FSYNC, || format!("Cannot fsync {}", path.display()))
}
