//! Where a part's granules end, as ClickHouse's part writers decide it.
//!
//! `system.parts.marks` (and so which granules a key lookup reads) follows from the
//! blocks the writer is handed and from the part's format, so Granary replays
//! ClickHouse's rules on the same blocks (an INSERT's part is one block; a merge hands
//! over the blocks its merging algorithm emits, see `merge.rs`):
//!
//! * **Granule size of a block** (`computeIndexGranularity`): `index_granularity` rows,
//!   fewer when the block's bytes, counted as ClickHouse counts its columns in memory
//!   ([`block_bytes`]), pass `index_granularity_bytes`: a block of `B` bytes and `R`
//!   rows gets `R / (B / index_granularity_bytes)` rows per granule when
//!   `B >= index_granularity_bytes`, else `index_granularity_bytes / (B / R)`.
//! * **Wide parts** (`MergeTreeDataPartWriterWide`): a block's rows fill granules of that
//!   size; a granule left open at the end of a block is continued by the next block. If
//!   the next block's granules are smaller than the rows still missing from the open
//!   granule, the open one is closed where it is (when it already has that many rows)
//!   or shrunk to the new size. The part's last granule has whatever rows are left.
//! * **Compact parts** (`MergeTreeDataPartWriterCompact`): the same, except that a
//!   block's short last piece (when the block completed a granule, or continued an open
//!   one) is a granule of its own only from half a granule up; fewer rows are added to
//!   the previous granule, which so may hold up to 1.5 × the granule size.
//!
//! The planner only counts rows; `writer.rs` cuts the data accordingly.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::RecordBatch;
use granary_types::ChType;

use crate::settings::MergeTreeSettings;
use crate::writer::PartLayout;

/// The granule a block left open: `planned` rows once complete, `rows` of them so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Open {
    planned: usize,
    rows: usize,
}

/// Cuts the rows of a part into granules block by block (see the module comment).
#[derive(Debug, Clone)]
pub struct GranulePlanner {
    layout: PartLayout,
    index_granularity: usize,
    index_granularity_bytes: usize,
    open: Option<Open>,
}

impl GranulePlanner {
    pub fn new(layout: PartLayout, settings: &MergeTreeSettings) -> Self {
        GranulePlanner {
            layout,
            index_granularity: settings.index_granularity.max(1) as usize,
            index_granularity_bytes: settings.index_granularity_bytes as usize,
            open: None,
        }
    }

    /// Rows per granule for a block of `rows` rows taking `bytes` bytes.
    pub fn granularity(&self, rows: usize, bytes: usize) -> usize {
        let fixed = self.index_granularity;
        if self.index_granularity_bytes == 0 || rows == 0 {
            return fixed;
        }
        let adaptive = if bytes >= self.index_granularity_bytes {
            rows / (bytes / self.index_granularity_bytes)
        } else {
            self.index_granularity_bytes / (bytes / rows).max(1)
        };
        adaptive.clamp(1, fixed)
    }

    /// Takes a block of `rows` rows and `bytes` bytes. Returns the sizes of the granules
    /// it completes, in order: the first one includes the rows left open by earlier
    /// blocks (and may be made of those alone). The block's remaining rows stay open.
    pub fn block(&mut self, rows: usize, bytes: usize) -> Vec<usize> {
        if rows == 0 {
            return Vec::new();
        }
        let g = self.granularity(rows, bytes);
        match self.layout {
            PartLayout::Wide => self.wide_block(rows, g),
            PartLayout::Compact => self.compact_block(rows, g),
        }
    }

    /// Rows of the granule still open: the part's last granule when no block follows.
    pub fn open_rows(&self) -> usize {
        self.open.map_or(0, |o| o.rows)
    }

    fn wide_block(&mut self, rows: usize, g: usize) -> Vec<usize> {
        let mut done = Vec::new();
        let mut left = rows;
        if let Some(mut open) = self.open.take() {
            // The new block's granules are smaller than what the open granule still
            // needs: close it as it is, or make it a granule of the new size.
            if open.planned - open.rows > g {
                if open.rows >= g {
                    done.push(open.rows);
                    open.planned = 0;
                } else {
                    open.planned = g;
                }
            }
            if open.planned > 0 {
                let missing = open.planned - open.rows;
                if left < missing {
                    self.open = Some(Open { planned: open.planned, rows: open.rows + left });
                    return done;
                }
                done.push(open.planned);
                left -= missing;
            }
        }
        while left >= g {
            done.push(g);
            left -= g;
        }
        if left > 0 {
            self.open = Some(Open { planned: g, rows: left });
        }
        done
    }

    fn compact_block(&mut self, rows: usize, g: usize) -> Vec<usize> {
        let open = self.open.take();
        // Granules planned for the rows written so far and this block, the open one first.
        let mut marks: Vec<usize> = open.map(|o| vec![o.planned]).unwrap_or_default();
        let offset = open.map_or(0, |o| o.planned - o.rows);
        let mut row = offset;
        while row < rows {
            let left = rows - row;
            if left < g && (rows >= g || offset != 0) {
                match marks.last_mut() {
                    Some(last) if left * 2 < g => *last += left,
                    _ => marks.push(left),
                }
            } else {
                marks.push(g);
            }
            row += g;
        }
        let buffered = open.map_or(0, |o| o.rows) + rows;
        let first = marks.first().copied().unwrap_or(0);
        if buffered < first {
            self.open = Some(Open { planned: first, rows: buffered });
            return Vec::new();
        }
        // The buffered rows end where a planned granule ends: all are written.
        let mut done = Vec::with_capacity(marks.len());
        let mut written = 0;
        for mark in marks {
            if written + mark > buffered {
                break;
            }
            written += mark;
            done.push(mark);
        }
        if written < buffered {
            self.open = Some(Open { planned: buffered - written, rows: buffered - written });
        }
        done
    }
}

/// The ClickHouse type of each column of `schema`.
pub fn ch_types(schema: &SchemaRef) -> Vec<ChType> {
    schema.fields().iter().map(|f| ChType::from_field(f)).collect()
}

/// ClickHouse's in-memory size of a block (`Block::bytes`), from each column's
/// ClickHouse type: numbers their width, `String` its bytes plus an 8-byte offset per
/// row, `Nullable` a byte per row more, arrays an 8-byte offset per row plus their
/// elements.
pub fn block_bytes(batch: &RecordBatch, types: &[ChType]) -> usize {
    batch.columns().iter().zip(types).map(|(column, ty)| column_bytes(column.as_ref(), ty)).sum()
}

/// Adds each row's share of [`block_bytes`] to `out` (one entry per row of `batch`).
pub fn add_row_bytes(batch: &RecordBatch, types: &[ChType], out: &mut [usize]) {
    for (column, ty) in batch.columns().iter().zip(types) {
        add_column_row_bytes(column.as_ref(), ty, out);
    }
}

/// The bytes of one value of a fixed-size type; None for variable-size types.
fn fixed_width(ty: &ChType) -> Option<usize> {
    Some(match ty {
        ChType::UInt8 | ChType::Int8 | ChType::Bool | ChType::Enum8(_) => 1,
        ChType::UInt16 | ChType::Int16 | ChType::Enum16(_) | ChType::Date => 2,
        ChType::UInt32 | ChType::Int32 | ChType::Float32 | ChType::Date32 | ChType::DateTime(_) | ChType::IPv4 | ChType::Time => 4,
        ChType::UInt64 | ChType::Int64 | ChType::Float64 | ChType::DateTime64(..) | ChType::Time64(_) | ChType::Interval(_) => 8,
        ChType::Uuid | ChType::IPv6 | ChType::Int128 | ChType::UInt128 => 16,
        ChType::Int256 | ChType::UInt256 => 32,
        ChType::FixedString(n) => *n,
        ChType::Decimal(p, _) => match p {
            0..=9 => 4,
            10..=18 => 8,
            19..=38 => 16,
            _ => 32,
        },
        // One index byte per row: the dictionary of a block's few distinct values is
        // not counted (an approximation).
        ChType::LowCardinality(_) => 1,
        ChType::Nothing => 0,
        ChType::SimpleAggregateFunction(_, inner) => return fixed_width(inner),
        _ => return None,
    })
}

/// Bytes of the values of a string-like array between rows `from` and `to`.
fn string_value_bytes(array: &dyn Array, from: usize, to: usize) -> usize {
    match array.data_type() {
        DataType::Utf8 => {
            let o = array.as_string::<i32>().value_offsets();
            (o[to] - o[from]) as usize
        }
        DataType::LargeUtf8 => {
            let o = array.as_string::<i64>().value_offsets();
            (o[to] - o[from]) as usize
        }
        DataType::Binary => {
            let o = array.as_binary::<i32>().value_offsets();
            (o[to] - o[from]) as usize
        }
        DataType::LargeBinary => {
            let o = array.as_binary::<i64>().value_offsets();
            (o[to] - o[from]) as usize
        }
        DataType::Utf8View => (from..to).map(|i| array.as_string_view().value(i).len()).sum(),
        DataType::BinaryView => (from..to).map(|i| array.as_binary_view().value(i).len()).sum(),
        _ => 0,
    }
}

/// The element range of every row of a list-like array, and its elements.
fn list_parts(array: &dyn Array) -> Option<(Vec<usize>, ArrayRef)> {
    match array.data_type() {
        DataType::List(_) => {
            let list = array.as_list::<i32>();
            Some((list.value_offsets().iter().map(|&o| o as usize).collect(), list.values().clone()))
        }
        DataType::LargeList(_) => {
            let list = array.as_list::<i64>();
            Some((list.value_offsets().iter().map(|&o| o as usize).collect(), list.values().clone()))
        }
        DataType::Map(..) => {
            let map = array.as_map();
            Some((map.value_offsets().iter().map(|&o| o as usize).collect(), std::sync::Arc::new(map.entries().clone())))
        }
        _ => None,
    }
}

fn column_bytes(array: &dyn Array, ty: &ChType) -> usize {
    let rows = array.len();
    if let Some(width) = fixed_width(ty) {
        return width * rows;
    }
    match ty {
        ChType::String => string_value_bytes(array, 0, rows) + 8 * rows,
        ChType::AggregateFunction(..) => string_value_bytes(array, 0, rows) + 8 * rows,
        ChType::Nullable(inner) => rows + column_bytes(array, inner),
        ChType::Array(_) | ChType::Map(..) => {
            let element = array_element_type(ty);
            match list_parts(array) {
                Some((offsets, values)) if rows > 0 => {
                    let (from, to) = (offsets[0], offsets[rows]);
                    8 * rows + column_bytes(values.slice(from, to - from).as_ref(), &element)
                }
                _ => 8 * rows,
            }
        }
        ChType::Tuple(elements) => match array.as_struct_opt() {
            Some(s) => s.columns().iter().zip(elements).map(|(c, (_, t))| column_bytes(c.as_ref(), t)).sum(),
            None => 0,
        },
        _ => array.get_buffer_memory_size(),
    }
}

/// The ClickHouse type of an `Array`'s elements (a `Map`'s entries are key-value tuples).
fn array_element_type(ty: &ChType) -> ChType {
    match ty {
        ChType::Array(inner) => (**inner).clone(),
        ChType::Map(k, v) => ChType::Tuple(vec![("key".into(), (**k).clone()), ("value".into(), (**v).clone())]),
        other => other.clone(),
    }
}

fn add_column_row_bytes(array: &dyn Array, ty: &ChType, out: &mut [usize]) {
    let rows = array.len().min(out.len());
    if let Some(width) = fixed_width(ty) {
        out[..rows].iter_mut().for_each(|b| *b += width);
        return;
    }
    match ty {
        ChType::String | ChType::AggregateFunction(..) => {
            for (i, b) in out[..rows].iter_mut().enumerate() {
                *b += 8 + string_value_bytes(array, i, i + 1);
            }
        }
        ChType::Nullable(inner) => {
            out[..rows].iter_mut().for_each(|b| *b += 1);
            add_column_row_bytes(array, inner, out);
        }
        ChType::Array(_) | ChType::Map(..) => {
            let element = array_element_type(ty);
            let Some((offsets, values)) = list_parts(array) else {
                out[..rows].iter_mut().for_each(|b| *b += 8);
                return;
            };
            let (from, to) = (offsets[0], offsets[rows]);
            let mut elements = vec![0usize; to - from];
            add_column_row_bytes(values.slice(from, to - from).as_ref(), &element, &mut elements);
            for (i, b) in out[..rows].iter_mut().enumerate() {
                *b += 8 + elements[offsets[i] - from..offsets[i + 1] - from].iter().sum::<usize>();
            }
        }
        ChType::Tuple(elements) => {
            if let Some(s) = array.as_struct_opt() {
                for (c, (_, t)) in s.columns().iter().zip(elements) {
                    add_column_row_bytes(c.as_ref(), t, out);
                }
            }
        }
        _ => {
            let share = array.get_buffer_memory_size() / array.len().max(1);
            out[..rows].iter_mut().for_each(|b| *b += share);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow::array::{ListArray, StringArray, UInt64Array};
    use arrow::datatypes::{Field, Int32Type, Schema};

    fn planner(layout: PartLayout, granularity: u64, bytes: u64) -> GranulePlanner {
        let settings = MergeTreeSettings { index_granularity: granularity, index_granularity_bytes: bytes, ..Default::default() };
        GranulePlanner::new(layout, &settings)
    }

    /// Granule sizes of a part written from `blocks` of (rows, bytes).
    fn granules(mut p: GranulePlanner, blocks: &[(usize, usize)]) -> Vec<usize> {
        let mut out: Vec<usize> = blocks.iter().flat_map(|&(rows, bytes)| p.block(rows, bytes)).collect();
        if p.open_rows() > 0 {
            out.push(p.open_rows());
        }
        out
    }

    #[test]
    fn granularity_as_clickhouse_computes_it() {
        let p = planner(PartLayout::Wide, 8192, 11650);
        // 1000 rows of 116 bytes: 116000 / 11650 = 9 granules, 111 rows each.
        assert_eq!(p.granularity(1000, 116_000), 111);
        // A block under the byte limit: bytes per row decide.
        assert_eq!(p.granularity(10, 1160), 100);
        // 80000 bytes are 6 granules of 11650 bytes.
        assert_eq!(p.granularity(10_000, 80_000), 1666);
        assert_eq!(planner(PartLayout::Wide, 256, 10 << 20).granularity(10_000, 80_000), 256);
        assert_eq!(planner(PartLayout::Wide, 8192, 0).granularity(10, 1 << 30), 8192);
        assert_eq!(p.granularity(3, 1 << 30), 1);
    }

    #[test]
    fn wide_parts_keep_the_short_last_granule() {
        // chdb: 1000 rows of 116 bytes at index_granularity_bytes 11650 → 111 × 9, 1.
        let g = granules(planner(PartLayout::Wide, 8192, 11650), &[(1000, 116_000)]);
        assert_eq!(g, [vec![111; 9], vec![1]].concat());
        // An open granule continues into the next block.
        let g = granules(planner(PartLayout::Wide, 1024, 10 << 20), &[(7796, 100_000), (904, 10_000)]);
        assert_eq!(g, [vec![1024; 8], vec![508]].concat());
    }

    #[test]
    fn compact_parts_add_a_short_tail_to_the_previous_granule() {
        let g = granules(planner(PartLayout::Compact, 8192, 11650), &[(1000, 116_000)]);
        assert_eq!(g, [vec![111; 8], vec![112]].concat());
        let g = granules(planner(PartLayout::Compact, 8192, 10 << 20), &[(9720, 200_000)]);
        assert_eq!(g, vec![9720]);
        let g = granules(planner(PartLayout::Compact, 8192, 10 << 20), &[(12288, 200_000)]);
        assert_eq!(g, vec![8192, 4096]);
        // A block too small for a granule leaves it open; the next block completes it and
        // its own short tail joins the last granule.
        let g = granules(planner(PartLayout::Compact, 32, 10 << 20), &[(30, 300), (8, 80)]);
        assert_eq!(g, vec![38]);
        // Each block cuts its own tail; a block that continues an open granule too.
        let g = granules(planner(PartLayout::Compact, 64, 10 << 20), &[(100, 1000), (100, 1000), (20, 200)]);
        assert_eq!(g, vec![64, 36, 64, 36, 20]);
        let g = granules(planner(PartLayout::Compact, 64, 10 << 20), &[(10, 100), (100, 1000), (20, 200)]);
        assert_eq!(g, vec![64, 46, 20]);
    }

    #[test]
    fn wide_granule_shrinks_when_blocks_get_wider() {
        // 100 rows open of a planned 8192; the next block's granules hold 50 rows: the
        // open granule is closed at its 100 rows.
        let mut p = planner(PartLayout::Wide, 8192, 1000);
        assert_eq!(p.block(100, 100), Vec::<usize>::new());
        assert_eq!(p.block(100, 2000), vec![100, 50, 50]);
        // 30 rows open; granules of 50 rows: the open one becomes a 50-row granule.
        let mut p = planner(PartLayout::Wide, 8192, 1000);
        p.block(30, 30);
        assert_eq!(p.block(100, 2000), vec![50, 50]);
        assert_eq!(p.open_rows(), 30);
    }

    #[test]
    fn block_bytes_count_as_clickhouse_columns() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::UInt64, false),
            Field::new("s", DataType::Utf8, true),
            Field::new("a", DataType::List(Arc::new(Field::new("item", DataType::Int32, true))), false),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(UInt64Array::from(vec![1, 2, 3])),
                Arc::new(StringArray::from(vec![Some("ab"), None, Some("xyz")])),
                Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1)]), Some(vec![]), Some(vec![Some(2), Some(3)])])),
            ],
        )
        .unwrap();
        let types = vec![ChType::UInt64, ChType::Nullable(Box::new(ChType::String)), ChType::Array(Box::new(ChType::Int32))];
        // k: 24; s: 3 null-map bytes + 5 chars + 24 offsets; a: 24 offsets + 3 × 4.
        assert_eq!(block_bytes(&batch, &types), 24 + 32 + 36);
        let mut rows = vec![0; 3];
        add_row_bytes(&batch, &types, &mut rows);
        assert_eq!(rows, vec![8 + 11 + 12, 8 + 9 + 8, 8 + 12 + 16]);
        assert_eq!(rows.iter().sum::<usize>(), block_bytes(&batch, &types));
        assert_eq!(block_bytes(&batch.slice(1, 2), &types), rows[1] + rows[2]);
    }
}
