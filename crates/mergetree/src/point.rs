//! Point reads: `WHERE key = X` / `key IN (...)` on the first sorting-key column,
//! answered by binary search in each part's sparse index, without a query plan.
//!
//! Granule `i` of a part holds keys in `[primary[i], primary[i + 1]]` (the index keeps
//! the first key of every granule and the part's last key), so the granules that can hold
//! key `k` are a contiguous run found with two binary searches: O(log granules) per key
//! and part, where the general scan path evaluates its predicate on every granule. Only
//! the touched granules are read; in each, the rows of the wanted keys are found by binary
//! search too (the granule is sorted by the key), so a lookup never hashes or compares
//! every row it read.

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

use arrow::array::{make_comparator, Array, ArrayRef, UInt32Array};
use arrow::compute::{take_record_batch, SortOptions};
use arrow::datatypes::Schema;
use arrow::record_batch::RecordBatch;
use granary_common::Result;
use granary_storage::{PointReadRequest, PointReadResult};

use crate::engine::Inner;
use crate::part::Part;
use crate::reader::PartReader;

/// Reads the rows whose first sorting-key column equals one of `request.keys`, or
/// `None` when the column is not that key column.
pub fn point_read(inner: &Inner, request: &PointReadRequest) -> Option<Result<PointReadResult>> {
    // The binary searches compare in Arrow's order, which is not a `UInt256` key's.
    let key_column = inner.keys.sorting.first().filter(|k| inner.keys.primary_len > 0 && !k.unsigned_words)?.column?;
    if inner.schema.field(key_column).name() != &request.column {
        return None;
    }
    Some(read(inner, key_column, request))
}

fn read(inner: &Inner, key_column: usize, request: &PointReadRequest) -> Result<PointReadResult> {
    let keys = arrow::compute::cast(&request.keys, inner.schema.field(key_column).data_type())?;
    let wanted = sorted_distinct_keys(&keys)?;
    // The key column is read as well (to filter), placed after the projection if absent.
    let mut columns = request.projection.clone();
    let key_position = match columns.iter().position(|&c| c == key_column) {
        Some(p) => p,
        None => {
            columns.push(key_column);
            columns.len() - 1
        }
    };
    let read_schema = Arc::new(Schema::new(columns.iter().map(|&c| inner.schema.field(c).clone()).collect::<Vec<_>>()));
    let out_schema = Arc::new(Schema::new(request.projection.iter().map(|&c| inner.schema.field(c).clone()).collect::<Vec<_>>()));
    let mut result = PointReadResult { batches: Vec::new(), read_rows: 0, read_bytes: 0 };
    let parts = inner.snapshot();
    let (mut parts_read, mut marks, mut marks_read, mut range_count) = (0, 0, 0, 0);
    for part in parts.iter() {
        let ranges = granules_for_keys(part, &keys)?;
        marks += part.granules();
        if ranges.is_empty() {
            continue;
        }
        parts_read += 1;
        range_count += ranges.len();
        marks_read += ranges.iter().map(|r| r.len()).sum::<usize>();
        let mut reader = PartReader::new(part.clone(), &inner.schema, &columns)?.with_uncompressed_cache(request.use_uncompressed_cache);
        for range in ranges {
            let existing = part.existing_in(range.clone());
            let batch = reader.read(range, &read_schema)?;
            result.read_rows += batch.num_rows() as u64;
            result.read_bytes += batch.columns().iter().map(|c| crate::encoding::decoded_bytes(c.as_ref()) as u64).sum::<u64>();
            // Rows a lightweight delete masked are not found.
            let batch = match existing {
                Some(existing) => arrow::compute::filter_record_batch(&batch, &existing)?,
                None => batch,
            };
            let rows = rows_with_keys(batch.column(key_position), &wanted)?;
            if !rows.is_empty() {
                let batch = take_record_batch(&batch, &rows)?;
                let projected = batch.columns()[..request.projection.len()].to_vec();
                result.batches.push(RecordBatch::try_new_with_options(
                    out_schema.clone(),
                    projected,
                    &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
                )?);
            }
        }
    }
    tracing::debug!(
        logger = %format_args!("{} (SelectExecutor)", inner.table_name),
        "Point lookup of {} keys: {parts_read}/{} parts, {marks_read}/{marks} marks by primary key, {marks_read} marks to read from {range_count} ranges",
        keys.len(),
        parts.len()
    );
    Ok(result)
}

/// The order of sorting keys in parts (and of their sparse index).
const KEY_ORDER: SortOptions = SortOptions { descending: false, nulls_first: true };

/// `keys` sorted in the parts' order, without NULLs (equal to nothing) and repeats.
fn sorted_distinct_keys(keys: &ArrayRef) -> Result<ArrayRef> {
    let order = arrow::compute::sort_to_indices(keys, Some(KEY_ORDER), None)?;
    let sorted = arrow::compute::take(keys.as_ref(), &order, None)?;
    let compare = make_comparator(sorted.as_ref(), sorted.as_ref(), KEY_ORDER)?;
    let distinct: UInt32Array = (sorted.null_count()..sorted.len())
        .filter(|&i| i == sorted.null_count() || compare(i - 1, i) != Ordering::Equal)
        .map(|i| i as u32)
        .collect();
    Ok(arrow::compute::take(sorted.as_ref(), &distinct, None)?)
}

/// Rows of a granule range (sorted by `column`) whose value is one of `wanted` (sorted,
/// distinct), in row order: the wanted keys between the range's first and last value,
/// each found with two binary searches.
fn rows_with_keys(column: &ArrayRef, wanted: &ArrayRef) -> Result<UInt32Array> {
    let rows = column.len();
    if rows == 0 || wanted.is_empty() {
        return Ok(UInt32Array::from(Vec::<u32>::new()));
    }
    // compare(row, key): column[row] vs wanted[key]
    let compare = make_comparator(column.as_ref(), wanted.as_ref(), KEY_ORDER)?;
    let first_key = partition_point(wanted.len(), |k| compare(0, k) == Ordering::Greater);
    let end_key = partition_point(wanted.len(), |k| compare(rows - 1, k) != Ordering::Less);
    let mut out = Vec::new();
    let mut from = 0;
    for k in first_key..end_key {
        let start = from + partition_point(rows - from, |i| compare(from + i, k) == Ordering::Less);
        let end = start + partition_point(rows - start, |i| compare(start + i, k) == Ordering::Equal);
        out.extend(start as u32..end as u32);
        from = end;
    }
    Ok(UInt32Array::from(out))
}

/// Granule ranges of `part` that may hold any of `keys`, sorted and merged.
fn granules_for_keys(part: &Part, keys: &ArrayRef) -> Result<Vec<Range<usize>>> {
    let granules = part.granules();
    let index = &part.primary[0];
    if granules == 0 {
        return Ok(Vec::new());
    }
    // compare(i, j): index[i] vs keys[j]
    let compare = make_comparator(index.as_ref(), keys.as_ref(), KEY_ORDER)?;
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for k in 0..keys.len() {
        if keys.is_null(k) {
            continue;
        }
        // first granule whose upper bound (index[g + 1]) is >= key
        let start = partition_point(granules, |g| compare(g + 1, k) == Ordering::Less);
        // granules whose lower bound (index[g]) is <= key
        let end = partition_point(granules, |g| compare(g, k) != Ordering::Greater);
        if start < end {
            ranges.push(start..end);
        }
    }
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    Ok(merged)
}

/// The first `i` in `0..n` for which `pred(i)` is false (`pred` true then false).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{StringArray, UInt64Array};

    #[test]
    fn rows_of_wanted_keys_by_binary_search() {
        let column: ArrayRef = Arc::new(UInt64Array::from(vec![1, 3, 3, 3, 5, 8, 8, 13]));
        let wanted = sorted_distinct_keys(&(Arc::new(UInt64Array::from(vec![Some(8), None, Some(3), Some(0), Some(8), Some(20), Some(13)])) as ArrayRef)).unwrap();
        assert_eq!(wanted.as_any().downcast_ref::<UInt64Array>().unwrap().values().to_vec(), vec![0, 3, 8, 13, 20]);
        assert_eq!(rows_with_keys(&column, &wanted).unwrap().values().to_vec(), vec![1, 2, 3, 5, 6, 7]);
        let none: ArrayRef = Arc::new(UInt64Array::from(vec![2, 4, 100]));
        assert!(rows_with_keys(&column, &sorted_distinct_keys(&none).unwrap()).unwrap().is_empty());
        let strings: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "b", "d"]));
        let wanted = sorted_distinct_keys(&(Arc::new(StringArray::from(vec!["d", "b"])) as ArrayRef)).unwrap();
        assert_eq!(rows_with_keys(&strings, &wanted).unwrap().values().to_vec(), vec![1, 2, 3]);
    }
}
