//! Values inside a granule: Arrow's own physical layout, written out buffer by buffer.
//!
//! An encoded array is
//!
//! ```text
//! u64 LE  rows
//! u8      flags: bit 0 set if a validity bitmap follows (only when some value is NULL);
//!         bits 1-2 the value transform of buffer 0 (0 none, 1 Delta, 2 DoubleDelta,
//!         3 Gorilla; see `transform.rs`; format version 2, always 0 in version 1);
//!         bit 3 set if buffers are aligned (format version 3, always 0 before);
//!         bit 4 set if buffer 0 (integer values, or string offsets) is bit-packed
//!         (`packing.rs`; format version 4, never with a transform)
//! [bitmap ceil(rows/8) bytes, LSB first]
//! u32 LE  buffer count, then for each: u64 LE byte length, [zero padding up to a
//!         multiple of 16 bytes from the start of the stream, if aligned], bytes
//! u32 LE  child count, then each child array encoded the same way (recursively)
//! ```
//!
//! Buffers are Arrow's little-endian layout: fixed-width values back to back, strings as
//! `i32` offsets + bytes, `Nullable` as the bitmap, `Array(T)` as offsets + a child. The
//! array is re-based to offset 0 first, so the encoding of a granule does not depend on
//! how the writer happened to slice its input. Decoded arrays are validated
//! (`ArrayData::build`), so a decoded array is never trusted blindly even after its block
//! checksum passed.
//!
//! Why aligned buffers: the stream is a decompressed block, and the writer starts every
//! granule at a multiple of 16 in its block, so an aligned buffer sits at an address
//! Arrow accepts for any value type once the block is in an aligned allocation. The
//! reader then hands out slices of the block itself ([`decode_array_shared`]) for a
//! granule read on its own (a point lookup), so a hit in the uncompressed cache costs no
//! copy. Unaligned (older) buffers are copied.
//!
//! Why not Arrow IPC per granule: IPC adds a flatbuffer message header per granule and
//! per column (hundreds of bytes for 8192-row granules of small types); this encoding is
//! the same buffers with 13 bytes of framing and at most 15 of padding per buffer.

use arrow::array::{make_array, Array, ArrayData, ArrayRef, BooleanArray, BooleanBufferBuilder, MutableArrayData};
use arrow::buffer::{Buffer, MutableBuffer};
use arrow::compute::filter;
use arrow::datatypes::DataType;
use granary_common::{Error, ErrorCode, Result};

use crate::packing::{self, PackedType};
use crate::transform::Transform;

const FLAG_NULLS: u8 = 0b0001;
const FLAG_TRANSFORM: u8 = 0b0110;
/// Buffers start at a multiple of [`BUFFER_ALIGNMENT`] from the start of the stream.
const FLAG_ALIGNED: u8 = 0b1000;
/// Buffer 0 holds bit-packed integers.
const FLAG_PACKED: u8 = 0b1_0000;
/// Where aligned buffers start (and where the writer starts granules in a block): enough
/// for every Arrow value type, `i128` and `i256` included.
pub const BUFFER_ALIGNMENT: usize = 16;
/// A buffer is shared with its block only when it is at least this fraction of the
/// block: a shared slice keeps the whole block alive, and Arrow reports the whole
/// allocation as the array's memory (which DataFusion's memory accounting sums).
const SHARE_AT_LEAST_ONE_IN: usize = 2;

/// Appends the length of a buffer about to be written, then the padding that aligns its
/// bytes (`FLAG_ALIGNED`).
fn write_buffer_len(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u64).to_le_bytes());
    out.resize(out.len().next_multiple_of(BUFFER_ALIGNMENT), 0);
}

/// How the values of an array (its buffer 0) are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueCoding {
    /// As they are.
    #[default]
    Plain,
    /// Transformed by the column's codec chain (values of types it does not apply to are
    /// written as they are).
    Transform(Transform),
    /// Integers bit-packed when that halves them (`packing.rs`); other types as they are.
    Pack,
}

impl From<Option<Transform>> for ValueCoding {
    fn from(transform: Option<Transform>) -> Self {
        transform.map_or(ValueCoding::Plain, ValueCoding::Transform)
    }
}

impl ValueCoding {
    fn resolve(self, data_type: &DataType) -> ResolvedCoding {
        match self {
            ValueCoding::Plain => ResolvedCoding::Plain,
            ValueCoding::Transform(t) => t.width_for(data_type).map_or(ResolvedCoding::Plain, |width| ResolvedCoding::Transform(t, width)),
            ValueCoding::Pack => first_buffer_packing(data_type).map_or(ResolvedCoding::Plain, ResolvedCoding::Pack),
        }
    }
}

/// How buffer 0 of `data_type` packs: integer values, or the `i32` offsets of strings
/// (delta mode then stores their lengths).
fn first_buffer_packing(data_type: &DataType) -> Option<PackedType> {
    match data_type {
        DataType::Utf8 | DataType::Binary => Some(PackedType::STRING_OFFSETS),
        other => PackedType::of(other),
    }
}

/// How many values buffer 0 of `rows` rows of `data_type` holds.
fn first_buffer_values(data_type: &DataType, rows: usize) -> usize {
    match data_type {
        DataType::Utf8 | DataType::Binary => rows + 1,
        _ => rows,
    }
}

/// A [`ValueCoding`] for one value type.
#[derive(Clone, Copy)]
enum ResolvedCoding {
    Plain,
    Transform(Transform, usize),
    Pack(PackedType),
}

impl ResolvedCoding {
    /// The flag bits known before the values are seen (packing is decided by them).
    fn transform_bits(self) -> u8 {
        match self {
            ResolvedCoding::Transform(t, _) => t.tag() << 1,
            _ => 0,
        }
    }

    fn is_plain(self) -> bool {
        matches!(self, ResolvedCoding::Plain)
    }
}

/// Appends buffer 0, the values: its length, alignment padding and bytes, as `coding`
/// says. When it packs them, sets `FLAG_PACKED` in the flags byte at `flags_at` and
/// returns the bytes that saved (else 0).
fn write_values(out: &mut Vec<u8>, flags_at: usize, values: &[u8], coding: ResolvedCoding) -> usize {
    match coding {
        ResolvedCoding::Transform(t, width) => {
            write_buffer_len(out, values.len());
            t.encode(width, values, out);
            0
        }
        ResolvedCoding::Pack(ty) => match packing::plan(values, ty) {
            Some(plan) => {
                out[flags_at] |= FLAG_PACKED;
                write_buffer_len(out, plan.len());
                plan.write(values, out);
                values.len() - plan.len()
            }
            None => write_plain(out, values),
        },
        ResolvedCoding::Plain => write_plain(out, values),
    }
}

fn write_plain(out: &mut Vec<u8>, values: &[u8]) -> usize {
    write_buffer_len(out, values.len());
    out.extend_from_slice(values);
    0
}

/// Appends the encoding of `array` to `out`, its values written as `coding` says.
/// Returns the bytes bit-packing saved: the encoding's length plus these is its length
/// unpacked, which `system.parts` reports as the uncompressed size.
pub fn encode_array(array: &dyn Array, out: &mut Vec<u8>, coding: ValueCoding) -> Result<usize> {
    let data = array.to_data();
    let coding = coding.resolve(data.data_type());
    if let Some(saved) = write_flat_slice(&data, out, coding) {
        return Ok(saved);
    }
    // Copy to a fresh array at offset 0 holding exactly `len` values: a slice of a large
    // batch shares the whole batch's buffers, which must not all be written.
    let mut copy = MutableArrayData::new(vec![&data], false, data.len());
    copy.try_extend(0, 0, data.len())?;
    Ok(write_data(&copy.freeze(), out, coding))
}

/// The encoding of fixed-width values and of strings, written straight from a slice of
/// a larger array (string offsets re-based as they are written): the bytes
/// [`write_data`] writes for a re-based copy, without making the copy, and the bytes
/// packing saved. None (nothing written) for other layouts.
fn write_flat_slice(data: &ArrayData, out: &mut Vec<u8>, coding: ResolvedCoding) -> Option<usize> {
    enum Layout {
        Fixed(usize),
        Strings,
    }
    if !data.child_data().is_empty() {
        return None;
    }
    let layout = match data.data_type() {
        DataType::Utf8 | DataType::Binary => Layout::Strings,
        DataType::FixedSizeBinary(width) => match usize::try_from(*width) {
            Ok(width) => Layout::Fixed(width),
            Err(_) => return None,
        },
        other => match other.primitive_width() {
            Some(width) => Layout::Fixed(width),
            None => return None,
        },
    };
    let (offset, len) = (data.offset(), data.len());
    let Some(first) = data.buffers().first() else { return None };
    let read_offset = |i: usize| {
        let at = (offset + i) * 4;
        first.as_slice().get(at..at + 4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    // The string bytes of the slice: [offsets[offset], offsets[offset + len]).
    let mut string_bytes = 0..0;
    match &layout {
        Layout::Fixed(width) if first.len() < (offset + len) * width => return None,
        Layout::Strings => {
            let (Some(start), Some(end), Some(values)) = (read_offset(0), read_offset(len), data.buffers().get(1)) else { return None };
            let (Ok(start), Ok(end)) = (usize::try_from(start), usize::try_from(end)) else { return None };
            if data.buffers().len() != 2 || start > end || end > values.len() {
                return None;
            }
            string_bytes = start..end;
        }
        _ => {}
    }
    out.extend_from_slice(&(len as u64).to_le_bytes());
    let flags_at = out.len();
    let transform_bits = coding.transform_bits();
    match data.nulls().filter(|n| n.null_count() > 0) {
        Some(nulls) => {
            out.push(FLAG_NULLS | FLAG_ALIGNED | transform_bits);
            let bits = nulls.inner().sliced();
            out.extend_from_slice(&bits.as_slice()[..len.div_ceil(8)]);
            // The bits past the slice's end belong to other rows of the array: zero, as
            // in a copy, so a granule's bytes depend only on its own rows.
            if len % 8 != 0 {
                if let Some(last) = out.last_mut() {
                    *last &= (1u8 << (len % 8)) - 1;
                }
            }
        }
        None => out.push(FLAG_ALIGNED | transform_bits),
    }
    let saved = match layout {
        Layout::Fixed(width) => {
            out.extend_from_slice(&1u32.to_le_bytes());
            let values = &first.as_slice()[offset * width..(offset + len) * width];
            write_values(out, flags_at, values, coding)
        }
        Layout::Strings => {
            out.extend_from_slice(&2u32.to_le_bytes());
            let base = string_bytes.start as i32;
            let offsets = &first.as_slice()[offset * 4..(offset + len + 1) * 4];
            let mut rebased = Vec::with_capacity(offsets.len());
            for o in offsets.chunks_exact(4) {
                rebased.extend_from_slice(&(i32::from_le_bytes([o[0], o[1], o[2], o[3]]) - base).to_le_bytes());
            }
            let saved = write_values(out, flags_at, &rebased, coding);
            let bytes = &data.buffers()[1].as_slice()[string_bytes];
            write_buffer_len(out, bytes.len());
            out.extend_from_slice(bytes);
            saved
        }
    };
    out.extend_from_slice(&0u32.to_le_bytes());
    Some(saved)
}

/// One column of a block whose rows are gathered from several arrays (the batches of an
/// INSERT block, in key order): the sources' buffers, looked up once per block.
pub struct GatherSources {
    sources: Vec<ArrayData>,
    layout: Option<FlatLayout>,
    any_nulls: bool,
}

#[derive(Clone, Copy)]
enum FlatLayout {
    Fixed(usize),
    Strings,
}

impl GatherSources {
    /// `sources`: arrays of one type. Gathers fixed-width values and strings directly;
    /// for other types [`GatherSources::encode`] writes nothing and says so.
    pub fn new(sources: &[&dyn Array]) -> Self {
        let sources: Vec<ArrayData> = sources.iter().map(|a| a.to_data()).collect();
        let layout = sources.first().and_then(|first| {
            if !first.child_data().is_empty() {
                return None;
            }
            let layout = match first.data_type() {
                DataType::Utf8 | DataType::Binary => FlatLayout::Strings,
                DataType::FixedSizeBinary(width) => FlatLayout::Fixed(usize::try_from(*width).ok()?),
                other => FlatLayout::Fixed(other.primitive_width()?),
            };
            let buffers = match layout {
                FlatLayout::Fixed(_) => 1,
                FlatLayout::Strings => 2,
            };
            sources.iter().all(|s| s.buffers().len() == buffers && s.child_data().is_empty()).then_some(layout)
        });
        let any_nulls = sources.iter().any(|s| s.null_count() > 0);
        GatherSources { sources, layout, any_nulls }
    }

    /// Appends the encoding of the rows `order` ((source, row) pairs): the bytes
    /// [`encode_array`] writes for `interleave(sources, order)`, without building that
    /// array, and returns what [`encode_array`] returns. None (nothing written) when the
    /// type is not gathered directly.
    pub fn encode(&self, order: &[(usize, usize)], out: &mut Vec<u8>, coding: ValueCoding) -> Result<Option<usize>> {
        let (Some(layout), Some(first)) = (self.layout, self.sources.first()) else { return Ok(None) };
        let coding = coding.resolve(first.data_type());
        let len = order.len();
        let start = out.len();
        out.extend_from_slice(&(len as u64).to_le_bytes());
        let flags_at = out.len();
        let transform_bits = coding.transform_bits();
        let mut valid = None;
        if self.any_nulls {
            let mut bits = BooleanBufferBuilder::new(len);
            for &(source, row) in order {
                bits.append(self.sources[source].is_valid(row));
            }
            let bits = bits.finish();
            if bits.count_set_bits() < len {
                valid = Some(bits);
            }
        }
        match &valid {
            Some(bits) => {
                out.push(FLAG_NULLS | FLAG_ALIGNED | transform_bits);
                out.extend_from_slice(&bits.values()[..len.div_ceil(8)]);
            }
            None => out.push(FLAG_ALIGNED | transform_bits),
        }
        let written = match layout {
            FlatLayout::Fixed(width) => self.gather_fixed(width, order, out, flags_at, coding),
            FlatLayout::Strings => self.gather_strings(order, out, flags_at, coding),
        };
        let Some(saved) = written else {
            out.truncate(start);
            return Ok(None);
        };
        out.extend_from_slice(&0u32.to_le_bytes());
        Ok(Some(saved))
    }

    fn gather_fixed(&self, width: usize, order: &[(usize, usize)], out: &mut Vec<u8>, flags_at: usize, coding: ResolvedCoding) -> Option<usize> {
        let values: Option<Vec<&[u8]>> = self.sources.iter().map(|s| s.buffers()[0].as_slice().get(s.offset() * width..)).collect();
        let Some(values) = values else { return None };
        if order.iter().any(|&(source, row)| values.get(source).is_none_or(|v| (row + 1) * width > v.len())) {
            return None;
        }
        out.extend_from_slice(&1u32.to_le_bytes());
        let gather = |into: &mut Vec<u8>| match width {
            1 => gather_width::<1>(&values, order, into),
            2 => gather_width::<2>(&values, order, into),
            4 => gather_width::<4>(&values, order, into),
            8 => gather_width::<8>(&values, order, into),
            16 => gather_width::<16>(&values, order, into),
            _ => {
                for &(source, row) in order {
                    into.extend_from_slice(&values[source][row * width..(row + 1) * width]);
                }
            }
        };
        if coding.is_plain() {
            write_buffer_len(out, order.len() * width);
            gather(out);
            Some(0)
        } else {
            let mut plain = Vec::with_capacity(order.len() * width);
            gather(&mut plain);
            Some(write_values(out, flags_at, &plain, coding))
        }
    }

    fn gather_strings(&self, order: &[(usize, usize)], out: &mut Vec<u8>, flags_at: usize, coding: ResolvedCoding) -> Option<usize> {
        let mut offsets: Vec<&[i32]> = Vec::with_capacity(self.sources.len());
        let mut values: Vec<&[u8]> = Vec::with_capacity(self.sources.len());
        for s in &self.sources {
            let all: &[i32] = s.buffers()[0].typed_data();
            let Some(own) = all.get(s.offset()..s.offset() + s.len() + 1) else { return None };
            offsets.push(own);
            values.push(s.buffers()[1].as_slice());
        }
        let range = |source: usize, row: usize| -> Option<std::ops::Range<usize>> {
            let o = offsets.get(source)?;
            let (start, end) = (usize::try_from(*o.get(row)?).ok()?, usize::try_from(*o.get(row + 1)?).ok()?);
            (start <= end && end <= values[source].len()).then_some(start..end)
        };
        // Offsets first (the total must fit an i32, as in an Arrow array), then the bytes.
        let mut gathered = Vec::with_capacity((order.len() + 1) * 4);
        gathered.extend_from_slice(&0i32.to_le_bytes());
        let mut total: usize = 0;
        for (i, &(source, row)) in order.iter().enumerate() {
            if let Some(&(next_source, next_row)) = order.get(i + PREFETCH_ROWS_AHEAD) {
                if let Some(next) = offsets.get(next_source).and_then(|o| o.get(next_row)) {
                    granary_simd::prefetch_read(next);
                }
            }
            let r = range(source, row)?;
            total += r.len();
            let end = i32::try_from(total).ok()?;
            gathered.extend_from_slice(&end.to_le_bytes());
        }
        out.extend_from_slice(&2u32.to_le_bytes());
        let saved = write_values(out, flags_at, &gathered, coding);
        write_buffer_len(out, total);
        out.reserve(total);
        for (i, &(source, row)) in order.iter().enumerate() {
            if let Some(&(next_source, next_row)) = order.get(i + PREFETCH_ROWS_AHEAD) {
                if let Some(next) = range(next_source, next_row).and_then(|r| values[next_source].get(r.start)) {
                    granary_simd::prefetch_read(next);
                }
            }
            if let Some(r) = range(source, row) {
                out.extend_from_slice(&values[source][r]);
            }
        }
        Some(saved)
    }
}

/// How far ahead gathers in key order ask for the cache lines they will read: rows in
/// key order come from all over the block, so each read is a cache miss unless its line
/// was asked for earlier.
const PREFETCH_ROWS_AHEAD: usize = 32;

/// Appends the `W`-byte values at `order` of `values` (each source's values from its
/// first row) to `out`: a fixed-size copy per value, not a `memcpy` call.
fn gather_width<const W: usize>(values: &[&[u8]], order: &[(usize, usize)], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + order.len() * W, 0);
    for (i, (chunk, &(source, row))) in out[start..].chunks_exact_mut(W).zip(order).enumerate() {
        if let Some(&(next_source, next_row)) = order.get(i + PREFETCH_ROWS_AHEAD) {
            if let Some(next) = values.get(next_source).and_then(|v| v.get(next_row * W)) {
                granary_simd::prefetch_read(next);
            }
        }
        let value: &[u8; W] = values[source][row * W..(row + 1) * W].try_into().expect("W bytes");
        // Both sides as arrays: `copy_from_slice` into the chunk's slice called memcpy.
        let chunk: &mut [u8; W] = chunk.try_into().expect("W bytes");
        *chunk = *value;
    }
}

fn write_data(data: &ArrayData, out: &mut Vec<u8>, coding: ResolvedCoding) -> usize {
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let flags_at = out.len();
    let transform_bits = coding.transform_bits();
    match data.nulls().filter(|n| n.null_count() > 0) {
        Some(nulls) => {
            out.push(FLAG_NULLS | FLAG_ALIGNED | transform_bits);
            let bits = nulls.inner().sliced();
            let n = data.len().div_ceil(8);
            out.extend_from_slice(&bits.as_slice()[..n]);
        }
        None => out.push(FLAG_ALIGNED | transform_bits),
    }
    out.extend_from_slice(&(data.buffers().len() as u32).to_le_bytes());
    let mut saved = 0;
    for (i, buffer) in data.buffers().iter().enumerate() {
        match coding {
            ResolvedCoding::Pack(ty) if i == 0 => {
                // Exactly the array's values: the plan packs every value it is given.
                let values = buffer.as_slice();
                let n = first_buffer_values(data.data_type(), data.len()) * ty.width();
                saved = write_values(out, flags_at, &values[..n.min(values.len())], coding);
            }
            _ if i == 0 => saved = write_values(out, flags_at, buffer.as_slice(), coding),
            _ => {
                write_buffer_len(out, buffer.len());
                out.extend_from_slice(buffer.as_slice());
            }
        }
    }
    out.extend_from_slice(&(data.child_data().len() as u32).to_le_bytes());
    for child in data.child_data() {
        write_data(child, out, ResolvedCoding::Plain);
    }
    saved
}

/// The bytes of `array`'s values (buffers, validity, children), as `read_bytes` counts
/// them: a decoded granule may be a slice of a larger block, whose whole allocation
/// Arrow's memory sizes would count.
pub fn decoded_bytes(array: &dyn Array) -> usize {
    fn data_bytes(data: &ArrayData) -> usize {
        let own: usize = data.buffers().iter().map(Buffer::len).sum();
        let nulls = data.nulls().map_or(0, |n| n.len().div_ceil(8));
        own + nulls + data.child_data().iter().map(data_bytes).sum::<usize>()
    }
    data_bytes(&array.to_data())
}

/// Reads one encoded array of type `data_type` from `bytes` starting at `*pos`, copying
/// its buffers. `bytes` starts where the stream (block, file) starts: aligned buffers
/// are found by their distance from it.
pub fn decode_array(bytes: &[u8], pos: &mut usize, data_type: &DataType) -> Result<ArrayRef> {
    Ok(make_array(read_data(&Stream { bytes, shared: None }, pos, data_type)?))
}

/// [`decode_array`] from a block in an Arrow buffer: aligned buffers that are a large
/// part of the block are slices of it, not copies.
pub fn decode_array_shared(block: &Buffer, pos: &mut usize, data_type: &DataType) -> Result<ArrayRef> {
    Ok(make_array(read_data(&Stream { bytes: block.as_slice(), shared: Some(block) }, pos, data_type)?))
}

/// Reads one encoded array like [`decode_array`], keeping only the rows set in `keep`
/// (one value per row, no nulls). Plain fixed-width values are gathered straight from
/// the encoded bytes, so a granule with a few matching rows is not copied whole; other
/// arrays are decoded and then filtered.
pub fn decode_array_filtered(bytes: &[u8], pos: &mut usize, data_type: &DataType, keep: &BooleanArray) -> Result<ArrayRef> {
    if let Some(width) = data_type.primitive_width() {
        let start = *pos;
        if let Some(array) = gather_plain(bytes, pos, data_type, width, keep)? {
            return Ok(array);
        }
        *pos = start;
    }
    let array = decode_array(bytes, pos, data_type)?;
    if array.len() != keep.len() {
        return Err(corrupted(format!("granule has {} rows, the filter {}", array.len(), keep.len())));
    }
    Ok(filter(&array, keep)?)
}

/// The kept values of an encoded array without nulls or transform, or None for any
/// other encoding.
fn gather_plain(bytes: &[u8], pos: &mut usize, data_type: &DataType, width: usize, keep: &BooleanArray) -> Result<Option<ArrayRef>> {
    let len = read_u64(bytes, pos)? as usize;
    let flags = take(bytes, pos, 1)?[0];
    if flags & !FLAG_ALIGNED != 0 || len != keep.len() || read_u32(bytes, pos)? != 1 {
        return Ok(None);
    }
    let n = read_u64(bytes, pos)? as usize;
    let stored = take_buffer(bytes, pos, n, flags)?;
    if n != len.checked_mul(width).ok_or_else(|| corrupted("granule size overflows".into()))? || read_u32(bytes, pos)? != 0 {
        return Ok(None);
    }
    let count = keep.true_count();
    let mut values = arrow::buffer::MutableBuffer::with_capacity(count * width);
    for i in keep.values().set_indices() {
        values.extend_from_slice(&stored[i * width..(i + 1) * width]);
    }
    let data = ArrayData::builder(data_type.clone())
        .len(count)
        .buffers(vec![values.into()])
        .build()
        .map_err(|e| corrupted(format!("invalid {data_type} array: {e}")))?;
    Ok(Some(make_array(data)))
}

/// Encoded arrays, and the Arrow buffer they are in when their buffers may be shared.
struct Stream<'a> {
    bytes: &'a [u8],
    shared: Option<&'a Buffer>,
}

impl Stream<'_> {
    /// The next buffer, of `n` bytes: a slice of the shared block when it is aligned and
    /// worth keeping the block for, else a copy.
    fn buffer(&self, pos: &mut usize, n: usize, flags: u8) -> Result<Buffer> {
        let stored = take_buffer(self.bytes, pos, n, flags)?;
        match self.shared {
            Some(block) if flags & FLAG_ALIGNED != 0 && n.saturating_mul(SHARE_AT_LEAST_ONE_IN) >= block.len() && (stored.as_ptr() as usize) % BUFFER_ALIGNMENT == 0 => {
                Ok(block.slice_with_length(*pos - n, n))
            }
            _ => Ok(Buffer::from_slice_ref(stored)),
        }
    }
}

/// The next buffer's `n` bytes, after its alignment padding when `flags` say so.
fn take_buffer<'a>(bytes: &'a [u8], pos: &mut usize, n: usize, flags: u8) -> Result<&'a [u8]> {
    if flags & FLAG_ALIGNED != 0 {
        take(bytes, pos, pos.next_multiple_of(BUFFER_ALIGNMENT) - *pos)?;
    }
    take(bytes, pos, n)
}

fn read_flags(bytes: &[u8], pos: &mut usize) -> Result<u8> {
    let flags = take(bytes, pos, 1)?[0];
    if flags & !(FLAG_NULLS | FLAG_TRANSFORM | FLAG_ALIGNED | FLAG_PACKED) != 0 || (flags & FLAG_PACKED != 0 && flags & FLAG_TRANSFORM != 0) {
        return Err(corrupted(format!("unknown granule flags 0x{flags:02x}")));
    }
    Ok(flags)
}

/// The type of the packed buffer 0 of `data_type` (`FLAG_PACKED`).
fn packed_type(data_type: &DataType) -> Result<PackedType> {
    first_buffer_packing(data_type).ok_or_else(|| corrupted(format!("{data_type} values cannot be packed")))
}



fn read_data(stream: &Stream, pos: &mut usize, data_type: &DataType) -> Result<ArrayData> {
    let bytes = stream.bytes;
    let len = read_u64(bytes, pos)? as usize;
    let flags = read_flags(bytes, pos)?;
    let transform = Transform::from_tag((flags & FLAG_TRANSFORM) >> 1)?;
    let nulls = if flags & FLAG_NULLS != 0 { Some(Buffer::from_slice_ref(take(bytes, pos, len.div_ceil(8))?)) } else { None };
    let buffer_count = read_u32(bytes, pos)? as usize;
    let mut buffers = Vec::with_capacity(buffer_count.min(8));
    for i in 0..buffer_count {
        let n = read_u64(bytes, pos)? as usize;
        if i == 0 && flags & FLAG_PACKED != 0 {
            let ty = packed_type(data_type)?;
            let stored = take_buffer(bytes, pos, n, flags)?;
            let mut values = MutableBuffer::new(0);
            packing::unpack(stored, first_buffer_values(data_type, len), ty, &mut values)?;
            buffers.push(values.into());
            continue;
        }
        match transform.filter(|_| i == 0) {
            Some(t) => {
                let stored = take_buffer(bytes, pos, n, flags)?;
                let width = t.width_for(data_type).map_err(|e| corrupted(e.message().to_string()))?;
                // A MutableBuffer, not a Vec: Arrow's alignment for the value type.
                let mut values = arrow::buffer::MutableBuffer::with_capacity(stored.len());
                values.extend_from_slice(stored);
                t.decode(width, values.as_slice_mut())?;
                buffers.push(values.into());
            }
            None => buffers.push(stream.buffer(pos, n, flags)?),
        }
    }
    let child_count = read_u32(bytes, pos)? as usize;
    let child_types = child_types(data_type);
    if child_count != child_types.len() {
        return Err(corrupted(format!("{data_type} expects {} child arrays, found {child_count}", child_types.len())));
    }
    let mut children = Vec::with_capacity(child_count);
    for t in &child_types {
        children.push(read_data(stream, pos, t)?);
    }
    build_checked(data_type, len, nulls, buffers, children)
}

/// Builds a decoded array with the checks `ArrayDataBuilder::build` makes. A String array
/// is built by `StringArray::try_new`, which checks its values as one UTF-8 run with the
/// offsets on character boundaries: `build` checks each value on its own, which for short
/// strings took longer than decoding them.
fn build_checked(data_type: &DataType, len: usize, nulls: Option<Buffer>, buffers: Vec<Buffer>, children: Vec<ArrayData>) -> Result<ArrayData> {
    let invalid = |e: String| corrupted(format!("invalid {data_type} array: {e}"));
    if *data_type != DataType::Utf8 || !children.is_empty() || buffers.len() != 2 {
        let builder = ArrayData::builder(data_type.clone()).len(len).null_bit_buffer(nulls).buffers(buffers).child_data(children);
        return builder.build().map_err(|e| invalid(e.to_string()));
    }
    if buffers[0].len() < (len + 1) * 4 {
        return Err(invalid(format!("{} bytes of offsets for {len} values", buffers[0].len())));
    }
    // Our buffers are Arrow allocations or aligned slices of one, so viewing them as i32
    // cannot fail.
    let offsets = arrow::buffer::ScalarBuffer::<i32>::new(buffers[0].clone(), 0, len + 1);
    // OffsetBuffer::new asserts what this checks.
    if offsets[0] < 0 || offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(invalid("offsets out of order".into()));
    }
    let offsets = arrow::buffer::OffsetBuffer::new(offsets);
    let nulls = match nulls {
        Some(bits) if bits.len() * 8 >= len => Some(arrow::buffer::NullBuffer::new(arrow::buffer::BooleanBuffer::new(bits, 0, len))).filter(|n| n.null_count() > 0),
        Some(bits) => return Err(invalid(format!("null bitmap of {} bytes for {len} values", bits.len()))),
        None => None,
    };
    let array = arrow::array::StringArray::try_new(offsets, buffers[1].clone(), nulls).map_err(|e| invalid(e.to_string()))?;
    Ok(array.into_data())
}

/// How [`GranuleConcat`] lays out the values of a type.
#[derive(Clone, Copy)]
enum ConcatLayout {
    /// One buffer of values of this many bytes.
    Fixed(usize),
    /// `i32` offsets and the bytes they point into (String, Binary).
    Offsets,
}

/// Decodes consecutive granules of one column straight into one array. Decoding each
/// granule into an array of its own and concatenating them copies every value twice,
/// and pays a validation and allocations per granule (granules may be 1024 rows).
/// Only flat types whose buffers simply append: fixed-width values, String and Binary.
pub struct GranuleConcat {
    data_type: DataType,
    layout: ConcatLayout,
    rows: usize,
    values: MutableBuffer,
    offsets: MutableBuffer,
    nulls: Option<BooleanBufferBuilder>,
}

impl GranuleConcat {
    /// A concatenation of `rows` rows (a capacity hint) of `data_type`, or None when the
    /// type's granules must be decoded one by one.
    pub fn new(data_type: &DataType, rows: usize) -> Option<GranuleConcat> {
        let layout = match data_type {
            DataType::Utf8 | DataType::Binary => ConcatLayout::Offsets,
            DataType::FixedSizeBinary(width) => ConcatLayout::Fixed(usize::try_from(*width).ok()?),
            t if t.is_primitive() => ConcatLayout::Fixed(t.primitive_width()?),
            _ => return None,
        };
        let (values, offsets) = match layout {
            ConcatLayout::Fixed(width) => (MutableBuffer::with_capacity(rows.saturating_mul(width)), MutableBuffer::new(0)),
            ConcatLayout::Offsets => {
                let mut offsets = MutableBuffer::with_capacity((rows + 1) * 4);
                offsets.push(0i32);
                (MutableBuffer::new(0), offsets)
            }
        };
        Some(GranuleConcat { data_type: data_type.clone(), layout, rows: 0, values, offsets, nulls: None })
    }

    /// Appends the granule encoded in `bytes` at `*pos` (see the module docs); returns its rows.
    pub fn append(&mut self, bytes: &[u8], pos: &mut usize) -> Result<usize> {
        let len = read_u64(bytes, pos)? as usize;
        let flags = read_flags(bytes, pos)?;
        let transform = Transform::from_tag((flags & FLAG_TRANSFORM) >> 1)?;
        if flags & FLAG_NULLS != 0 {
            let bits = take(bytes, pos, len.div_ceil(8))?;
            let rows_before = self.rows;
            let nulls = self.nulls.get_or_insert_with(|| {
                let mut b = BooleanBufferBuilder::new(rows_before + len);
                b.append_n(rows_before, true);
                b
            });
            nulls.append_packed_range(0..len, bits);
        } else if let Some(nulls) = &mut self.nulls {
            nulls.append_n(len, true);
        }
        let buffer_count = read_u32(bytes, pos)? as usize;
        match self.layout {
            ConcatLayout::Fixed(width) => {
                if buffer_count != 1 {
                    return Err(corrupted(format!("{} expects 1 buffer, found {buffer_count}", self.data_type)));
                }
                let n = read_u64(bytes, pos)? as usize;
                let stored = take_buffer(bytes, pos, n, flags)?;
                if flags & FLAG_PACKED != 0 {
                    let ty = packed_type(&self.data_type)?;
                    if ty.width() != width {
                        return Err(corrupted(format!("{} values packed as {} bytes", self.data_type, ty.width())));
                    }
                    packing::unpack(stored, len, ty, &mut self.values)?;
                } else {
                    let need = len.checked_mul(width).filter(|need| *need <= n).ok_or_else(|| corrupted(format!("{len} values of {} need more than {n} bytes", self.data_type)))?;
                    let start = self.values.len();
                    self.values.extend_from_slice(&stored[..need]);
                    if let Some(t) = transform {
                        let width = t.width_for(&self.data_type).map_err(|e| corrupted(e.message().to_string()))?;
                        t.decode(width, &mut self.values.as_slice_mut()[start..])?;
                    }
                }
            }
            ConcatLayout::Offsets => {
                if buffer_count != 2 || transform.is_some() {
                    return Err(corrupted(format!("{} expects 2 untransformed buffers, found {buffer_count}", self.data_type)));
                }
                let n = read_u64(bytes, pos)? as usize;
                let stored = take_buffer(bytes, pos, n, flags)?;
                let unpacked;
                let offsets = if flags & FLAG_PACKED != 0 {
                    let mut values = MutableBuffer::new(0);
                    packing::unpack(stored, len + 1, packed_type(&self.data_type)?, &mut values)?;
                    unpacked = values;
                    unpacked.as_slice()
                } else {
                    stored
                };
                let n = read_u64(bytes, pos)? as usize;
                let data = take_buffer(bytes, pos, n, flags)?;
                if offsets.len() < (len + 1) * 4 {
                    return Err(corrupted(format!("{len} strings need {} offset bytes, found {}", (len + 1) * 4, offsets.len())));
                }
                let offset = |i: usize| i32::from_le_bytes([offsets[i * 4], offsets[i * 4 + 1], offsets[i * 4 + 2], offsets[i * 4 + 3]]);
                let (first, last) = (offset(0), offset(len));
                let (from, to) = (usize::try_from(first).ok(), usize::try_from(last).ok());
                let (Some(from), Some(to)) = (from, to) else { return Err(corrupted(format!("negative string offsets {first}..{last}"))) };
                let data = data.get(from..to).ok_or_else(|| corrupted(format!("string offsets {from}..{to} outside {} bytes", data.len())))?;
                // Offsets in between are checked by the validation of the whole array.
                let shift = self.values.len() as i64 - first as i64;
                for i in 1..=len {
                    let shifted = i32::try_from(offset(i) as i64 + shift).map_err(|_| corrupted("string column block over 2 GiB".into()))?;
                    self.offsets.push(shifted);
                }
                self.values.extend_from_slice(data);
            }
        }
        let child_count = read_u32(bytes, pos)?;
        if child_count != 0 {
            return Err(corrupted(format!("{} expects no child arrays, found {child_count}", self.data_type)));
        }
        self.rows += len;
        Ok(len)
    }

    /// The array of every appended granule, validated as a decoded granule is.
    pub fn finish(self) -> Result<ArrayRef> {
        let buffers = match self.layout {
            ConcatLayout::Fixed(_) => vec![self.values.into()],
            ConcatLayout::Offsets => vec![self.offsets.into(), self.values.into()],
        };
        let nulls = self.nulls.map(|mut n| n.finish().into_inner());
        let data_type = self.data_type;
        Ok(make_array(build_checked(&data_type, self.rows, nulls, buffers, Vec::new())?))
    }
}

fn child_types(data_type: &DataType) -> Vec<DataType> {
    match data_type {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) | DataType::Map(f, _) => vec![f.data_type().clone()],
        DataType::ListView(f) | DataType::LargeListView(f) => vec![f.data_type().clone()],
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type().clone()).collect(),
        _ => Vec::new(),
    }
}

fn take<'a>(bytes: &'a [u8], pos: &mut usize, n: usize) -> Result<&'a [u8]> {
    let end = pos.checked_add(n).filter(|end| *end <= bytes.len()).ok_or_else(|| corrupted("encoded array is truncated".into()))?;
    let out = &bytes[*pos..end];
    *pos = end;
    Ok(out)
}

fn read_u64(bytes: &[u8], pos: &mut usize) -> Result<u64> {
    let b = take(bytes, pos, 8)?;
    Ok(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
}

fn read_u32(bytes: &[u8], pos: &mut usize) -> Result<u32> {
    let b = take(bytes, pos, 4)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

pub(crate) fn corrupted(detail: String) -> Error {
    Error::new(ErrorCode::CORRUPTED_DATA, format!("Corrupted column data: {detail}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use arrow::compute::concat;

    use arrow::array::{BinaryArray, BooleanArray, Date32Array, FixedSizeBinaryArray, Float64Array, Int64Array, ListArray, StringArray, UInt32Array, UInt8Array};
    use arrow::datatypes::Int32Type;

    use super::*;

    /// What the encoding of a slice must be: that of its re-based copy.
    fn encoded_through_copy(array: &dyn Array, transform: ValueCoding) -> Vec<u8> {
        let data = array.to_data();
        let mut copy = MutableArrayData::new(vec![&data], false, data.len());
        copy.try_extend(0, 0, data.len()).expect("extend");
        let mut out = Vec::new();
        write_data(&copy.freeze(), &mut out, transform.resolve(data.data_type()));
        out
    }

    #[test]
    fn gathered_rows_encode_as_their_interleaved_array() {
        let cases: Vec<(Vec<ArrayRef>, ValueCoding)> = vec![
            (vec![Arc::new(Int64Array::from(vec![5, -3, 7, 0])), Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5, 6]).slice(2, 3))], ValueCoding::Plain),
            (vec![Arc::new(Int64Array::from(vec![10, 20, 40, 80])), Arc::new(Int64Array::from(vec![15, 25]))], ValueCoding::Transform(Transform::Delta)),
            (vec![Arc::new(Int64Array::from_iter_values(0..300)), Arc::new(Int64Array::from_iter_values(500..700))], ValueCoding::Pack),
            (vec![Arc::new(UInt32Array::from_iter((0..300).map(|i| (i % 5 != 0).then_some(i % 100)))), Arc::new(UInt32Array::from_iter_values(0..100))], ValueCoding::Pack),
            (vec![Arc::new(Float64Array::from_iter_values((0..300).map(f64::from))), Arc::new(Float64Array::from(vec![0.5]))], ValueCoding::Pack),
            (
                vec![
                    Arc::new(StringArray::from_iter((0..300).map(|i| (i % 7 != 0).then(|| format!("s{i}"))))),
                    Arc::new(StringArray::from_iter_values((0..200).map(|i| "xy".repeat(i % 4))).slice(20, 150)),
                ],
                ValueCoding::Pack,
            ),
            (vec![Arc::new(UInt8Array::from(vec![Some(1), None, Some(3)])), Arc::new(UInt8Array::from(vec![9, 8]))], ValueCoding::Plain),
            (vec![Arc::new(Float64Array::from(vec![1.5, f64::NAN])), Arc::new(Float64Array::from(vec![-0.0]))], ValueCoding::Transform(Transform::Gorilla)),
            (
                vec![
                    Arc::new(StringArray::from(vec![Some("alpha"), None, Some(""), Some("a longer value than sixteen bytes")])),
                    Arc::new(StringArray::from(vec!["x", "yy", "zzz", "wwww"]).slice(1, 3)),
                ],
                ValueCoding::Plain,
            ),
            // Many strings of 0 to 80 bytes: short ones copied as blocks, except near the
            // end of their source's bytes.
            (
                vec![
                    Arc::new(StringArray::from((0..300).map(|i| format!("{i}-{}", "abcdefg".repeat(i % 12))).collect::<Vec<_>>())),
                    Arc::new(StringArray::from((0..90).map(|i| "z".repeat(i % 37)).collect::<Vec<_>>()).slice(5, 80)),
                ],
                ValueCoding::Plain,
            ),
            (vec![Arc::new(BinaryArray::from(vec![b"\x00\xff".as_ref(), b"".as_ref()])), Arc::new(BinaryArray::from(vec![b"q".as_ref()]))], ValueCoding::Plain),
            (
                vec![
                    Arc::new(FixedSizeBinaryArray::try_from_iter(vec![b"abc", b"def"].into_iter()).unwrap()),
                    Arc::new(FixedSizeBinaryArray::try_from_iter(vec![b"ghi"].into_iter()).unwrap()),
                ],
                ValueCoding::Plain,
            ),
            (vec![Arc::new(Date32Array::from(vec![19000, 19001])), Arc::new(Date32Array::from(vec![Some(3), None]))], ValueCoding::Plain),
        ];
        for (sources, transform) in cases {
            let refs: Vec<&dyn Array> = sources.iter().map(|a| a.as_ref()).collect();
            let gather = GatherSources::new(&refs);
            let mut orders: Vec<Vec<(usize, usize)>> = Vec::new();
            let all: Vec<(usize, usize)> = sources.iter().enumerate().flat_map(|(s, a)| (0..a.len()).map(move |r| (s, r))).collect();
            orders.push(all.iter().rev().copied().collect());
            orders.push(all.iter().copied().filter(|&(s, _)| s == 1).collect());
            orders.push(vec![all[0], all[all.len() - 1], all[0]]);
            for order in orders {
                let mut gathered = Vec::new();
                let saved = gather.encode(&order, &mut gathered, transform).unwrap();
                assert!(saved.is_some(), "{:?}", sources[0].data_type());
                let interleaved = arrow::compute::interleave(&refs, &order).unwrap();
                let mut expected = Vec::new();
                assert_eq!(Some(encode_array(interleaved.as_ref(), &mut expected, transform).unwrap()), saved);
                assert_eq!(gathered, expected, "{:?} {order:?}", sources[0].data_type());
                let decoded = decode_array(&gathered, &mut 0, interleaved.data_type()).unwrap();
                assert_eq!(decoded.to_data(), interleaved.to_data());
            }
        }
        // Types with children or a bit-packed layout are not gathered directly.
        let booleans: ArrayRef = Arc::new(BooleanArray::from(vec![true, false]));
        let mut out = Vec::new();
        assert!(GatherSources::new(&[booleans.as_ref()]).encode(&[(0, 1)], &mut out, ValueCoding::Plain).unwrap().is_none());
        assert!(out.is_empty());
    }

    #[test]
    fn aligned_buffers_decode_as_slices_of_their_block() {
        let strings: Vec<String> = (0..1000).map(|i| format!("value number {i}")).collect();
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter_values(0..1000)),
            Arc::new(Float64Array::from_iter((0..1000).map(|i| (i % 9 != 0).then_some(i as f64 * 0.5)))),
            Arc::new(StringArray::from(strings)),
            Arc::new(arrow::array::Decimal128Array::from_iter_values(0..1000)),
        ];
        for array in &arrays {
            // A granule at an odd place in its block: the writer pads the block first.
            let mut block = vec![0xAAu8; 5];
            block.resize(block.len().next_multiple_of(BUFFER_ALIGNMENT), 0);
            let start = block.len();
            encode_array(array.as_ref(), &mut block, ValueCoding::Plain).expect("encode");
            let block = Buffer::from_slice_ref(&block);
            let mut pos = start;
            let decoded = decode_array_shared(&block, &mut pos, array.data_type()).expect("decode");
            assert_eq!(pos, block.len());
            assert_eq!(decoded.to_data(), array.to_data(), "{}", array.data_type());
            // The values buffer is the block's memory, not a copy.
            let values = decoded.to_data().buffers().last().expect("values").as_ptr() as usize;
            let range = block.as_ptr() as usize..block.as_ptr() as usize + block.len();
            assert!(range.contains(&values), "{} copied", array.data_type());
            let mut pos = start;
            assert_eq!(decode_array(block.as_slice(), &mut pos, array.data_type()).expect("decode").to_data(), array.to_data());
            let keep = BooleanArray::from_iter((0..1000).map(|i| Some(i % 3 == 1)));
            let mut pos = start;
            let filtered = decode_array_filtered(block.as_slice(), &mut pos, array.data_type(), &keep).expect("filtered");
            assert_eq!(filtered.to_data(), filter(array, &keep).expect("filter").to_data());
            let mut concat = GranuleConcat::new(array.data_type(), 1000).expect("flat type");
            let mut pos = start;
            concat.append(block.as_slice(), &mut pos).expect("append");
            assert_eq!(concat.finish().expect("finish").to_data(), array.to_data());
        }
    }

    #[test]
    fn packed_granules_decode_every_way() {
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter_values(5_000..6_000)),
            Arc::new(UInt32Array::from_iter((0..1000u32).map(|i| (i % 7 != 0).then_some(i.wrapping_mul(2654435761) % 1000)))),
            Arc::new(Date32Array::from_iter_values((0..1000).map(|i| 19_000 + i / 50))),
            Arc::new(Int64Array::from_iter_values(5_000..6_000).slice(100, 800)),
            // Strings pack their offsets: delta mode stores the lengths.
            Arc::new(StringArray::from_iter((0..1000).map(|i| (i % 11 != 0).then(|| format!("payload-{i}"))))),
            Arc::new(BinaryArray::from_iter_values((0..1000).map(|i| vec![7u8; i % 5]))),
            Arc::new(StringArray::from_iter_values((0..1200).map(|i| "é".repeat(i % 3))).slice(150, 1000)),
        ];
        let keep = BooleanArray::from_iter((0..1000).map(|i| Some(i % 3 == 1)));
        for array in &arrays {
            let mut block = vec![0u8; BUFFER_ALIGNMENT];
            let saved = encode_array(array.as_ref(), &mut block, ValueCoding::Pack).expect("encode");
            assert_ne!(block[BUFFER_ALIGNMENT + 8] & FLAG_PACKED, 0, "{} not packed", array.data_type());
            let plain_len = {
                let mut plain = Vec::new();
                encode_array(array.as_ref(), &mut plain, ValueCoding::Plain).expect("encode");
                plain.len()
            };
            if array.data_type().is_primitive() {
                assert!(block.len() - BUFFER_ALIGNMENT < plain_len / 2 + 150, "{}: {} bytes packed, {plain_len} plain", array.data_type(), block.len());
            } else {
                assert!(saved >= array.len() * 3, "{}: packing saved {saved} bytes", array.data_type());
            }
            // Up to the alignment padding of a buffer after the packed one.
            let unpacked = block.len() - BUFFER_ALIGNMENT + saved;
            assert!(unpacked.abs_diff(plain_len) < BUFFER_ALIGNMENT, "saved bytes of {}: {unpacked} against {plain_len}", array.data_type());
            let expected = array.to_data();
            let mut pos = BUFFER_ALIGNMENT;
            assert_eq!(decode_array(&block, &mut pos, array.data_type()).expect("decode").to_data(), expected);
            assert_eq!(pos, block.len());
            let shared = Buffer::from_slice_ref(&block);
            assert_eq!(decode_array_shared(&shared, &mut BUFFER_ALIGNMENT.clone(), array.data_type()).expect("decode").to_data(), expected);
            let keep = keep.slice(0, array.len());
            let filtered = decode_array_filtered(&block, &mut BUFFER_ALIGNMENT.clone(), array.data_type(), &keep).expect("filtered");
            assert_eq!(filtered.to_data(), filter(array, &keep).expect("filter").to_data());
            let mut concat_all = GranuleConcat::new(array.data_type(), 2 * array.len()).expect("flat type");
            let mut pos = BUFFER_ALIGNMENT;
            concat_all.append(&block, &mut pos).expect("append");
            let mut pos = BUFFER_ALIGNMENT;
            concat_all.append(&block, &mut pos).expect("append");
            let twice = concat(&[array.as_ref(), array.as_ref()]).expect("concat");
            assert_eq!(concat_all.finish().expect("finish").to_data(), twice.to_data());
            // A damaged packed buffer is an error, not a panic.
            let mut pos = BUFFER_ALIGNMENT;
            assert!(decode_array(&block[..block.len() - 12], &mut pos, array.data_type()).is_err());
            let mut pos = BUFFER_ALIGNMENT;
            assert!(decode_array(&block, &mut pos, &DataType::Float64).is_err());
        }
    }

    #[test]
    fn unaligned_encodings_of_format_version_2_still_decode() {
        // rows 3, flags 0, one buffer of 24 bytes right after its length, no children.
        let mut old = Vec::new();
        old.extend_from_slice(&3u64.to_le_bytes());
        old.push(0);
        old.extend_from_slice(&1u32.to_le_bytes());
        old.extend_from_slice(&24u64.to_le_bytes());
        for v in [7i64, -1, 1 << 40] {
            old.extend_from_slice(&v.to_le_bytes());
        }
        old.extend_from_slice(&0u32.to_le_bytes());
        let expected = Int64Array::from(vec![7, -1, 1 << 40]).to_data();
        let mut pos = 0;
        assert_eq!(decode_array(&old, &mut pos, &DataType::Int64).expect("decode").to_data(), expected);
        let block = Buffer::from_slice_ref(&old);
        let mut pos = 0;
        assert_eq!(decode_array_shared(&block, &mut pos, &DataType::Int64).expect("decode").to_data(), expected);
        let mut concat = GranuleConcat::new(&DataType::Int64, 3).expect("flat type");
        let mut pos = 0;
        concat.append(&old, &mut pos).expect("append");
        assert_eq!(concat.finish().expect("finish").to_data(), expected);
    }

    #[test]
    fn slices_encode_as_their_rebased_copies_and_decode_back() {
        let strings: Vec<Option<String>> = (0..100).map(|i| (i % 7 != 3).then(|| "x".repeat(i % 13))).collect();
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter((0..100).map(|i| (i % 5 != 0).then_some(i * 1_000_003)))),
            Arc::new(UInt8Array::from_iter_values((0..100).map(|i| i as u8))),
            Arc::new(Float64Array::from_iter_values((0..100).map(|i| i as f64 / 3.0))),
            Arc::new(Date32Array::from_iter_values(0..100)),
            Arc::new(StringArray::from(strings.clone())),
            Arc::new(BinaryArray::from_iter(strings.iter().map(|s| s.as_ref().map(|s| s.as_bytes())))),
            Arc::new(FixedSizeBinaryArray::try_from_iter((0..100u32).map(|i| i.to_le_bytes())).expect("fixed-size binary")),
            Arc::new(BooleanArray::from_iter((0..100).map(|i| Some(i % 3 == 0)))),
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>((0..100).map(|i| Some(vec![Some(i), None])))),
        ];
        for array in &arrays {
            for (offset, len) in [(0, 100), (0, 1), (3, 10), (9, 0), (17, 83), (50, 50)] {
                let slice = array.slice(offset, len);
                for transform in [ValueCoding::Plain, ValueCoding::Transform(Transform::Delta), ValueCoding::Transform(Transform::Gorilla), ValueCoding::Pack] {
                    let mut out = Vec::new();
                    encode_array(slice.as_ref(), &mut out, transform).expect("encode");
                    assert_eq!(out, encoded_through_copy(slice.as_ref(), transform), "{} at {offset}+{len}", array.data_type());
                    if !matches!(transform, ValueCoding::Transform(_)) {
                        let mut pos = 0;
                        let decoded = decode_array(&out, &mut pos, array.data_type()).expect("decode");
                        assert_eq!(pos, out.len());
                        assert_eq!(decoded.to_data(), slice.to_data(), "{}", array.data_type());
                    }
                }
            }
        }
    }

    /// The filtered decode equals decoding everything and filtering, for plain values
    /// (gathered), values with NULLs or a transform, and strings (decoded, filtered).
    #[test]
    fn filtered_decode_matches_decode_then_filter() {
        let keep = BooleanArray::from((0..10).map(|i| i % 3 == 1 || i == 9).collect::<Vec<_>>());
        let arrays: Vec<(ArrayRef, ValueCoding)> = vec![
            (Arc::new(UInt32Array::from((0..10).collect::<Vec<u32>>())), ValueCoding::Plain),
            (Arc::new(UInt32Array::from((0..10u32).map(|i| (i % 4 != 0).then_some(i)).collect::<Vec<_>>())), ValueCoding::Plain),
            (Arc::new(Int64Array::from((0..10).map(|i| i * i).collect::<Vec<i64>>())), ValueCoding::Transform(Transform::Delta)),
            (Arc::new(StringArray::from((0..10).map(|i| "x".repeat(i)).collect::<Vec<_>>())), ValueCoding::Plain),
            // A slice: the encoding re-bases it to offset 0.
            (Arc::new(UInt32Array::from((0..20).collect::<Vec<u32>>()).slice(5, 10)), ValueCoding::Plain),
        ];
        for (array, transform) in arrays {
            let mut bytes = vec![0xAB];
            encode_array(array.as_ref(), &mut bytes, transform).expect("encode");
            let end = bytes.len();
            bytes.extend_from_slice(&[1, 2, 3]);
            let mut pos = 1;
            let filtered = decode_array_filtered(&bytes, &mut pos, array.data_type(), &keep).expect("decode");
            assert_eq!(pos, end, "{array:?}");
            assert_eq!(filtered.as_ref(), filter(array.as_ref(), &keep).expect("filter").as_ref(), "{array:?}");
        }
        let mut bytes = Vec::new();
        encode_array(&UInt32Array::from(vec![1, 2]), &mut bytes, ValueCoding::Plain).expect("encode");
        assert!(decode_array_filtered(&bytes, &mut 0, &DataType::UInt32, &keep).is_err());
    }

    /// String arrays are checked as Arrow checks them: order, bounds, UTF-8, value
    /// boundaries on character boundaries, the null bitmap's size.
    #[test]
    fn string_arrays_are_checked() {
        let text = "aé€x".as_bytes();
        let build = |offsets: &[i32], values: &[u8], nulls: Option<Vec<u8>>| {
            let buffers = vec![Buffer::from_slice_ref(offsets), Buffer::from_slice_ref(values)];
            build_checked(&DataType::Utf8, offsets.len().saturating_sub(1), nulls.map(Buffer::from_vec), buffers, Vec::new())
        };
        let ok = build(&[0, 1, 3, 6, 7], text, None).expect("valid");
        assert_eq!(make_array(ok).as_any().downcast_ref::<StringArray>().expect("strings").value(2), "€");
        assert!(build(&[1, 3, 3], text, Some(vec![0b10])).is_ok());
        assert!(build(&[0, 2, 7], text, None).is_err(), "cuts é");
        assert!(build(&[0, 3, 1, 7], text, None).is_err(), "out of order");
        assert!(build(&[0, 8], text, None).is_err(), "out of bounds");
        assert!(build(&[-1, 1], text, None).is_err(), "negative");
        assert!(build(&[0, 2], &[b'a', 0xFF], None).is_err(), "not UTF-8");
        assert!(build(&[0; 10], text, Some(vec![0])).is_err(), "short null bitmap");
        // Through decoding: a damaged string granule is an error, not a panic or a bad array.
        let mut bytes = Vec::new();
        encode_array(&StringArray::from(vec!["é", "b"]), &mut bytes, ValueCoding::Plain).expect("encode");
        let at = bytes.iter().position(|&b| b == 0xC3).expect("é's first byte");
        bytes[at] = 0xFF;
        assert!(decode_array(&bytes, &mut 0, &DataType::Utf8).is_err());
    }

    /// Granules appended by `GranuleConcat` give the array that decoding each granule
    /// and concatenating gives, with and without NULLs and transforms.
    #[test]
    fn concatenated_granules_equal_decoded_ones() {
        let ints: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![1, 5, 9, -3])),
            Arc::new(Int64Array::from(vec![Some(7), None, Some(8)])),
            Arc::new(Int64Array::from(vec![100, 200])),
        ];
        let strings: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec!["a", "bc", ""])),
            Arc::new(StringArray::from(vec!["x", "yz"]).slice(1, 1)),
            Arc::new(StringArray::from(vec![Some("é"), None])),
        ];
        let floats: Vec<ArrayRef> = vec![Arc::new(Float64Array::from(vec![1.5, 2.5])), Arc::new(Float64Array::from(vec![-0.0, 3.25]))];
        // Long enough to halve when packed: sorted, small, and with NULLs.
        let packable: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter_values(1_000..1_300)),
            Arc::new(Int64Array::from_iter((0..200).map(|i| (i % 9 != 0).then_some(i % 17 - 8)))),
            Arc::new(Int64Array::from_iter_values((0..100).map(|i| i * 1_000_003))),
        ];
        for (granules, transform) in [
            (ints.clone(), ValueCoding::Plain),
            (ints.clone(), ValueCoding::Pack),
            (ints, ValueCoding::Transform(Transform::Delta)),
            (strings, ValueCoding::Pack),
            (floats.clone(), ValueCoding::Transform(Transform::Gorilla)),
            (floats, ValueCoding::Pack),
            (packable, ValueCoding::Pack),
        ] {
            let mut bytes = Vec::new();
            for g in &granules {
                encode_array(g.as_ref(), &mut bytes, transform).unwrap();
            }
            let data_type = granules[0].data_type().clone();
            let mut concat_all = GranuleConcat::new(&data_type, 4).unwrap();
            let (mut pos, mut one_by_one) = (0, Vec::new());
            for g in &granules {
                let mut p = pos;
                one_by_one.push(decode_array(&bytes, &mut p, &data_type).unwrap());
                assert_eq!(concat_all.append(&bytes, &mut pos).unwrap(), g.len());
                assert_eq!(pos, p);
            }
            let refs: Vec<&dyn Array> = one_by_one.iter().map(|a| a.as_ref()).collect();
            let expected = concat(&refs).unwrap();
            assert_eq!(concat_all.finish().unwrap().to_data(), expected.to_data());
        }
        assert!(GranuleConcat::new(&DataType::Boolean, 1).is_none());
        // A damaged granule is an error, not a panic.
        let mut bytes = Vec::new();
        encode_array(&StringArray::from(vec!["abc"]), &mut bytes, ValueCoding::Plain).unwrap();
        let mut concat_all = GranuleConcat::new(&DataType::Utf8, 1).unwrap();
        assert!(concat_all.append(&bytes[..bytes.len() - 6], &mut 0).is_err());
    }
}
