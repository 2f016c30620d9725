//! Which parts and granules a scan reads: DataFusion's `PruningPredicate` over two kinds
//! of statistics.
//!
//! * Parts: the min/max of partition-key columns (`minmax.idx`), and the range of the
//!   first sorting-key column (first and last entry of `primary.idx`).
//! * Granules: granule `i` of a part holds keys in `[key_i, key_{i+1}]` (the index
//!   stores the first key of every granule and the part's last key). The range of key
//!   element `j > 0` is known only where elements `0..j` are equal at both ends, since
//!   the key is sorted lexicographically; elsewhere the statistics say "unknown".
//!
//! Bare key columns and partition columns have statistics of their own; expressions of
//! them and expression key elements are reached through the virtual columns of
//! [`crate::monotonic`].

use std::collections::HashSet;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, UInt64Array};
use arrow::compute::{concat, nullif};
use arrow::datatypes::SchemaRef;
use arrow::row::{RowConverter, SortField};
use datafusion::common::{Column, ScalarValue};
use datafusion::physical_optimizer::pruning::PruningStatistics;
use granary_common::Result;

use crate::keys::TableKeys;
use crate::monotonic::{derived_bounds, Pruning, VirtualSource};
use crate::part::Part;
use crate::reader::GranuleRange;

/// What index analysis kept, for the log line ClickHouse users read to check that a
/// query uses the index.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SelectionStats {
    pub parts: usize,
    /// Parts whose partition min/max and key range may match.
    pub parts_by_partition_key: usize,
    /// Of those, parts with at least one granule that may match.
    pub parts_by_primary_key: usize,
    /// Granules (marks) of every part, and of the parts kept by the partition key.
    pub marks_total: u64,
    pub marks_in_kept_parts: u64,
    pub marks: u64,
    pub ranges: usize,
    /// What each data-skipping index dropped after the primary key, in order.
    pub skip_indexes: Vec<crate::skip_index::SkipIndexSelection>,
}

impl std::fmt::Display for SelectionStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Selected {}/{} parts by partition key, {} parts by primary key, {}/{} marks by primary key, {} marks to read from {} ranges",
            self.parts_by_partition_key, self.parts, self.parts_by_primary_key, self.marks, self.marks_in_kept_parts, self.marks, self.ranges
        )
    }
}

impl SelectionStats {
    fn of(parts: &[Arc<Part>], parts_by_partition_key: usize, marks_in_kept_parts: u64, ranges: &[GranuleRange]) -> Self {
        let mut parts_by_primary_key = 0;
        let mut last: Option<&Arc<Part>> = None;
        for r in ranges {
            if !last.is_some_and(|p| Arc::ptr_eq(p, &r.part)) {
                parts_by_primary_key += 1;
                last = Some(&r.part);
            }
        }
        SelectionStats {
            parts: parts.len(),
            marks_total: parts.iter().map(|p| p.granules() as u64).sum(),
            parts_by_partition_key,
            parts_by_primary_key,
            marks_in_kept_parts,
            marks: ranges.iter().map(|r| r.granules.len() as u64).sum(),
            ranges: ranges.len(),
            skip_indexes: Vec::new(),
        }
    }
}

/// Selects the granules of `parts` that `predicate` may match.
pub fn select_granules(
    parts: &[Arc<Part>],
    pruning: Option<&Pruning>,
    schema: &SchemaRef,
    keys: &TableKeys,
) -> Result<(Vec<GranuleRange>, SelectionStats)> {
    let Some(pruning) = pruning.filter(|p| !p.predicate.always_true()) else {
        let ranges: Vec<_> = parts.iter().map(|p| GranuleRange { part: p.clone(), granules: 0..p.granules() }).collect();
        let marks = parts.iter().map(|p| p.granules() as u64).sum();
        let stats = SelectionStats::of(parts, parts.len(), marks, &ranges);
        return Ok((ranges, stats));
    };
    let predicate = &pruning.predicate;
    let keep_part = predicate.prune(&PartStats { parts, schema, keys, pruning })?;
    let mut out = Vec::new();
    let (mut kept_parts, mut kept_marks) = (0, 0u64);
    for (part, keep) in parts.iter().zip(keep_part) {
        if !keep {
            continue;
        }
        kept_parts += 1;
        kept_marks += part.granules() as u64;
        let prefix_equal = key_prefix_equal(part, keys)?;
        let keep_granule = predicate.prune(&GranuleStats { part, schema, keys, pruning, prefix_equal: &prefix_equal })?;
        let mut g = 0;
        while g < keep_granule.len() {
            if keep_granule[g] {
                let start = g;
                while g < keep_granule.len() && keep_granule[g] {
                    g += 1;
                }
                out.push(GranuleRange { part: part.clone(), granules: start..g });
            } else {
                g += 1;
            }
        }
    }
    let stats = SelectionStats::of(parts, kept_parts, kept_marks, &out);
    Ok((out, stats))
}

fn column_index(schema: &SchemaRef, column: &Column) -> Option<usize> {
    schema.index_of(&column.name).ok()
}

struct PartStats<'a> {
    parts: &'a [Arc<Part>],
    schema: &'a SchemaRef,
    keys: &'a TableKeys,
    pruning: &'a Pruning,
}

impl PartStats<'_> {
    fn bound(&self, column: &Column, max: bool) -> Option<ArrayRef> {
        if let Some(v) = self.pruning.virtual_column(&column.name) {
            return match &v.source {
                VirtualSource::KeyElement(0) if !self.keys.sorting[0].unsigned_words => first_key_bounds(self.parts, max),
                VirtualSource::KeyElement(_) => None,
                VirtualSource::UnsignedKey(0) => Some(self.keys.sorting[0].in_key_order(first_key_bounds(self.parts, max)?)),
                VirtualSource::UnsignedKey(_) => None,
                VirtualSource::Derived { column, expr } => {
                    let name = Column::new_unqualified(self.schema.field(*column).name());
                    derived_bounds(self.schema, *column, expr, self.column_bound(&name, max)?)
                }
            };
        }
        self.column_bound(column, max)
    }

    fn column_bound(&self, column: &Column, max: bool) -> Option<ArrayRef> {
        part_column_bounds(self.parts, self.keys, column_index(self.schema, column)?, max)
    }
}

impl PruningStatistics for PartStats<'_> {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bound(column, false)
    }

    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bound(column, true)
    }

    fn num_containers(&self) -> usize {
        self.parts.len()
    }

    fn null_counts(&self, _column: &Column) -> Option<ArrayRef> {
        None
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        Some(Arc::new(UInt64Array::from_iter_values(self.parts.iter().map(|p| p.rows))))
    }

    fn contained(&self, _column: &Column, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        None
    }
}

/// `prefix_equal[j][i]`: primary-key elements `0..j` are equal at both ends of granule `i`
/// of `part`.
fn key_prefix_equal(part: &Part, keys: &TableKeys) -> Result<Vec<BooleanArray>> {
    let n = part.granules();
    let mut prefix_equal = vec![BooleanArray::from(vec![true; n])];
    for j in 1..keys.primary_len {
        let arrays: Vec<ArrayRef> = part.primary[..j].to_vec();
        let converter = RowConverter::new(arrays.iter().map(|a| SortField::new(a.data_type().clone())).collect())?;
        let rows = converter.convert_columns(&arrays)?;
        prefix_equal.push(BooleanArray::from_iter((0..n).map(|i| Some(rows.row(i) == rows.row(i + 1)))));
    }
    Ok(prefix_equal)
}

/// One part's statistics, asked again and again by a predicate that changes while the
/// query runs (a TopK's threshold): the key analysis is done once per part.
pub(crate) struct PartStatistics {
    part: Arc<Part>,
    prefix_equal: Vec<BooleanArray>,
}

impl PartStatistics {
    pub(crate) fn new(part: Arc<Part>, keys: &TableKeys) -> Result<Self> {
        let prefix_equal = key_prefix_equal(&part, keys)?;
        Ok(PartStatistics { part, prefix_equal })
    }

    /// Whether any row of the part may match `pruning`, by its partition min/max and key range.
    pub(crate) fn part_may_match(&self, pruning: &Pruning, schema: &SchemaRef, keys: &TableKeys) -> Result<bool> {
        let parts = std::slice::from_ref(&self.part);
        Ok(pruning.predicate.prune(&PartStats { parts, schema, keys, pruning })?.first().copied().unwrap_or(true))
    }

    /// Per granule of the part: whether any of its rows may match `pruning`.
    pub(crate) fn granules_may_match(&self, pruning: &Pruning, schema: &SchemaRef, keys: &TableKeys) -> Result<Vec<bool>> {
        let stats = GranuleStats { part: &self.part, schema, keys, pruning, prefix_equal: &self.prefix_equal };
        Ok(pruning.predicate.prune(&stats)?)
    }
}

/// Per part, the lower (`max` false) or upper bound of table column `column`, where the
/// part's statistics know it: a partition-key column or the first sorting-key column.
pub(crate) fn part_column_bounds(parts: &[Arc<Part>], keys: &TableKeys, column: usize, max: bool) -> Option<ArrayRef> {
    let pieces: Vec<ArrayRef> = if let Some(j) = keys.partition_columns.iter().position(|&c| c == column) {
        parts.iter().map(|p| p.minmax[j].slice(usize::from(max), 1)).collect()
    } else if keys.primary_len > 0 && keys.sorting[0].column == Some(column) && !keys.sorting[0].unsigned_words {
        return first_key_bounds(parts, max);
    } else {
        return None;
    };
    let refs: Vec<&dyn Array> = pieces.iter().map(|a| a.as_ref()).collect();
    concat(&refs).ok()
}

/// Per part, the first (`max` false) or last entry of the primary index's first key
/// element: the part's range of that element, as the index holds the values.
fn first_key_bounds(parts: &[Arc<Part>], max: bool) -> Option<ArrayRef> {
    let pieces: Vec<ArrayRef> = parts.iter().map(|p| if max { p.primary[0].slice(p.granules(), 1) } else { p.primary[0].slice(0, 1) }).collect();
    let refs: Vec<&dyn Array> = pieces.iter().map(|a| a.as_ref()).collect();
    concat(&refs).ok()
}

struct GranuleStats<'a> {
    part: &'a Part,
    schema: &'a SchemaRef,
    keys: &'a TableKeys,
    pruning: &'a Pruning,
    prefix_equal: &'a [BooleanArray],
}

impl GranuleStats<'_> {
    fn bound(&self, column: &Column, max: bool) -> Option<ArrayRef> {
        if let Some(v) = self.pruning.virtual_column(&column.name) {
            return match &v.source {
                VirtualSource::KeyElement(j) => self.key_bound(*j, max),
                VirtualSource::UnsignedKey(j) => Some(self.keys.sorting[*j].in_key_order(self.index_bound(*j, max)?)),
                VirtualSource::Derived { column, expr } => {
                    let j = self.keys.primary().iter().position(|k| k.column == Some(*column))?;
                    derived_bounds(self.schema, *column, expr, self.key_bound(j, max)?)
                }
            };
        }
        let index = column_index(self.schema, column)?;
        let j = self.keys.primary().iter().position(|k| k.column == Some(index))?;
        self.key_bound(j, max)
    }

    /// Bounds of primary-key element `j` per granule (unknown where a previous element
    /// changes inside the granule).
    fn key_bound(&self, j: usize, max: bool) -> Option<ArrayRef> {
        if self.keys.sorting[j].unsigned_words {
            return None;
        }
        self.index_bound(j, max)
    }

    /// [`Self::key_bound`] as the primary index holds the values, in Arrow's order even
    /// where that is not the key's.
    fn index_bound(&self, j: usize, max: bool) -> Option<ArrayRef> {
        let n = self.part.granules();
        let values = self.part.primary[j].slice(usize::from(max), n);
        if j == 0 {
            return Some(values);
        }
        let unknown = arrow::compute::not(&self.prefix_equal[j]).ok()?;
        nullif(&values, &unknown).ok()
    }
}

impl PruningStatistics for GranuleStats<'_> {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bound(column, false)
    }

    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bound(column, true)
    }

    fn num_containers(&self) -> usize {
        self.part.granules()
    }

    fn null_counts(&self, _column: &Column) -> Option<ArrayRef> {
        None
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        let starts = &self.part.granule_starts;
        Some(Arc::new(UInt64Array::from_iter_values(starts.windows(2).map(|w| w[1] - w[0]))))
    }

    fn contained(&self, _column: &Column, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        None
    }
}
