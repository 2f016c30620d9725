//! Point reads: `WHERE key = X` / `key IN (...)` on the first sorting-key column,
//! answered by binary search in each part's sparse index, without a query plan.
//!
//! Granule `i` of a part holds keys in `[primary[i], primary[i + 1]]` (the index keeps
//! the first key of every granule and the part's last key), so the granules that can hold
//! key `k` are a contiguous run found with two binary searches: O(log granules) per key
//! and part, where the general scan path evaluates its predicate on every granule. Only
//! the touched granules are read, then filtered to the exact keys.

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray};
use arrow::compute::{filter_record_batch, SortOptions};
use arrow::datatypes::Schema;
use arrow::record_batch::RecordBatch;
use arrow::array::make_comparator;
use granary_common::Result;
use granary_storage::{DuplicateKeys, KeyIndex, PointReadRequest, PointReadResult};

use crate::engine::Inner;
use crate::part::Part;
use crate::reader::PartReader;

/// Reads the rows whose first sorting-key column equals one of `request.keys`, or
/// `None` when the column is not that key column.
pub fn point_read(inner: &Inner, request: &PointReadRequest) -> Option<Result<PointReadResult>> {
    let key_column = inner.keys.sorting.first().filter(|_| inner.keys.primary_len > 0)?.column?;
    if inner.schema.field(key_column).name() != &request.column {
        return None;
    }
    Some(read(inner, key_column, request))
}

fn read(inner: &Inner, key_column: usize, request: &PointReadRequest) -> Result<PointReadResult> {
    let keys = arrow::compute::cast(&request.keys, inner.schema.field(key_column).data_type())?;
    let wanted = KeyIndex::build(std::slice::from_ref(&keys), DuplicateKeys::KeepFirst)?;
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
            let batch = reader.read(range, &read_schema)?;
            result.read_rows += batch.num_rows() as u64;
            result.read_bytes += batch.get_array_memory_size() as u64;
            let matched = wanted.probe(std::slice::from_ref(batch.column(key_position)))?;
            let mask: BooleanArray = matched.iter().map(|m| Some(m.is_some())).collect();
            let batch = filter_record_batch(&batch, &mask)?;
            if batch.num_rows() > 0 {
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

/// Granule ranges of `part` that may hold any of `keys`, sorted and merged.
fn granules_for_keys(part: &Part, keys: &ArrayRef) -> Result<Vec<Range<usize>>> {
    let granules = part.granules();
    let index = &part.primary[0];
    if granules == 0 {
        return Ok(Vec::new());
    }
    let options = SortOptions { descending: false, nulls_first: true };
    // compare(i, j): index[i] vs keys[j]
    let compare = make_comparator(index.as_ref(), keys.as_ref(), options)?;
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
