//! Key-value access to a table: the contract behind `dictGet` and `joinGet`.
//!
//! Engines that keep rows addressable by a key (dictionaries, `ENGINE = Join`) expose a
//! [`KeyLookup`] through [`crate::TableEngine::key_lookup`]. Lookups are vectorized: a
//! whole column of keys is resolved to row numbers with one hash probe per row, and the
//! values are gathered with Arrow's `take`, so a function call costs no per-row
//! interpretation.

use std::collections::HashMap;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, UInt32Array};
use arrow::compute::{cast, take};
use arrow::datatypes::{DataType, FieldRef, UInt64Type};
use arrow::row::{RowConverter, SortField};
use granary_common::{Error, ErrorCode, Result};

/// Rows addressable by key.
pub trait KeyLookup: Send + Sync {
    /// The key columns, in key order; lookup keys are converted to these types first.
    fn key_fields(&self) -> Vec<FieldRef>;

    /// The column that `lookup` can return under `name` (an attribute, a non-key column).
    fn value_field(&self, name: &str) -> Option<FieldRef>;

    /// For every row of `keys` (one array per key column, already of the key types): the
    /// value of column `name` of the matching row, and whether a row matched. Where no row
    /// matched, the value is null.
    fn lookup(&self, keys: &[ArrayRef], name: &str) -> Result<(ArrayRef, BooleanArray)>;
}

/// Which row a key keeps when several rows share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuplicateKeys {
    KeepFirst,
    KeepLast,
}

/// A hash index from key to row number over a set of key columns.
///
/// One `UInt64`-convertible integer key (the common case: ids) is hashed as a `u64`;
/// any other key (strings, several columns) is hashed in Arrow's row format, which is
/// byte-comparable and type-exact.
#[derive(Debug)]
pub struct KeyIndex {
    key_types: Vec<DataType>,
    map: KeyMap,
}

#[derive(Debug)]
enum KeyMap {
    Integer(HashMap<u64, u32>),
    Rows { converter: RowConverter, map: HashMap<Box<[u8]>, u32> },
}

impl KeyIndex {
    /// Indexes `keys` (one array per key column, equal lengths). Rows with a NULL in a key
    /// column are not indexed: they can never match (ClickHouse's dictionaries and Join
    /// tables skip them as well).
    pub fn build(keys: &[ArrayRef], duplicates: DuplicateKeys) -> Result<KeyIndex> {
        let key_types: Vec<DataType> = keys.iter().map(|k| k.data_type().clone()).collect();
        let rows = keys.first().map_or(0, |k| k.len());
        if rows > u32::MAX as usize {
            return Err(Error::new(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("Too many rows for a key index: {rows}")));
        }
        let keep = |slot: &mut u32, row: u32| {
            if duplicates == DuplicateKeys::KeepLast {
                *slot = row;
            }
        };
        let map = if let Some(integers) = single_integer_key(keys)? {
            let mut map = HashMap::with_capacity(rows);
            for (row, key) in integers.iter().enumerate() {
                if let Some(key) = key {
                    keep(map.entry(key).or_insert(row as u32), row as u32);
                }
            }
            KeyMap::Integer(map)
        } else {
            let converter = RowConverter::new(key_types.iter().map(|t| SortField::new(t.clone())).collect())?;
            let encoded = converter.convert_columns(keys)?;
            let valid = all_keys_valid(keys);
            let mut map = HashMap::with_capacity(rows);
            for row in 0..rows {
                if valid.as_ref().is_none_or(|v| v.value(row)) {
                    let key: Box<[u8]> = encoded.row(row).as_ref().into();
                    keep(map.entry(key).or_insert(row as u32), row as u32);
                }
            }
            KeyMap::Rows { converter, map }
        };
        Ok(KeyIndex { key_types, map })
    }

    pub fn key_types(&self) -> &[DataType] {
        &self.key_types
    }

    /// Distinct keys indexed.
    pub fn len(&self) -> usize {
        match &self.map {
            KeyMap::Integer(map) => map.len(),
            KeyMap::Rows { map, .. } => map.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Approximate heap bytes used by the index (for `bytes_allocated`).
    pub fn allocated_bytes(&self) -> usize {
        match &self.map {
            KeyMap::Integer(map) => map.capacity() * (size_of::<u64>() + size_of::<u32>() + 1),
            KeyMap::Rows { map, .. } => {
                map.capacity() * (size_of::<Box<[u8]>>() + size_of::<u32>() + 1) + map.keys().map(|k| k.len()).sum::<usize>()
            }
        }
    }

    /// The row number of every probe key (null where absent). `keys` must have the
    /// indexed key types.
    pub fn probe(&self, keys: &[ArrayRef]) -> Result<UInt32Array> {
        if keys.len() != self.key_types.len() {
            return Err(Error::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Key has {} columns, expected {}", keys.len(), self.key_types.len()),
            ));
        }
        match &self.map {
            KeyMap::Integer(map) => {
                let integers = single_integer_key(keys)?
                    .ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "probe key is not an integer"))?;
                Ok(integers.iter().map(|key| key.and_then(|k| map.get(&k).copied())).collect())
            }
            KeyMap::Rows { converter, map } => {
                let encoded = converter.convert_columns(keys)?;
                let valid = all_keys_valid(keys);
                Ok((0..encoded.num_rows())
                    .map(|row| {
                        if valid.as_ref().is_some_and(|v| !v.value(row)) {
                            return None;
                        }
                        map.get(encoded.row(row).as_ref()).copied()
                    })
                    .collect())
            }
        }
    }
}

/// Gathers `values` at `rows` (null rows give null values) and reports which rows matched.
pub fn gather(values: &ArrayRef, rows: &UInt32Array) -> Result<(ArrayRef, BooleanArray)> {
    let found: BooleanArray = rows.iter().map(|r| Some(r.is_some())).collect();
    Ok((take(values.as_ref(), rows, None)?, found))
}

/// The key as `u64`s when it is a single integer column (negative numbers keep their
/// two's-complement bits: equal keys stay equal, which is all an index needs).
fn single_integer_key(keys: &[ArrayRef]) -> Result<Option<arrow::array::PrimitiveArray<UInt64Type>>> {
    let [key] = keys else { return Ok(None) };
    let as_u64 = match key.data_type() {
        DataType::UInt64 => key.clone(),
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 => cast(key, &DataType::UInt64)?,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => reinterpret_i64(&cast(key, &DataType::Int64)?)?,
        _ => return Ok(None),
    };
    Ok(Some(as_u64.as_primitive::<UInt64Type>().clone()))
}

/// `Int64` values as the `UInt64` with the same bits.
fn reinterpret_i64(array: &ArrayRef) -> Result<ArrayRef> {
    let ints = array.as_primitive::<arrow::datatypes::Int64Type>();
    let bits: arrow::array::UInt64Array = ints.iter().map(|v| v.map(|v| v as u64)).collect();
    Ok(std::sync::Arc::new(bits))
}

/// Rows where every key column is non-null, or None when no key column has nulls.
fn all_keys_valid(keys: &[ArrayRef]) -> Option<BooleanArray> {
    let mut valid: Option<BooleanArray> = None;
    for key in keys.iter().filter(|k| k.null_count() > 0) {
        let this = arrow::compute::is_not_null(key.as_ref()).ok()?;
        valid = Some(match valid {
            None => this,
            Some(v) => arrow::compute::and(&v, &this).ok()?,
        });
    }
    valid
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Int32Array, StringArray, UInt64Array};

    use super::*;

    #[test]
    fn integer_keys_keep_first_or_last() {
        let keys: Vec<ArrayRef> = vec![Arc::new(UInt64Array::from(vec![Some(5), Some(7), Some(5), None]))];
        let first = KeyIndex::build(&keys, DuplicateKeys::KeepFirst).unwrap();
        let last = KeyIndex::build(&keys, DuplicateKeys::KeepLast).unwrap();
        assert_eq!(first.len(), 2);
        let probe: Vec<ArrayRef> = vec![Arc::new(UInt64Array::from(vec![Some(5), Some(6), None, Some(7)]))];
        assert_eq!(first.probe(&probe).unwrap(), UInt32Array::from(vec![Some(0), None, None, Some(1)]));
        assert_eq!(last.probe(&probe).unwrap(), UInt32Array::from(vec![Some(2), None, None, Some(1)]));
    }

    #[test]
    fn negative_integer_keys_match() {
        let keys: Vec<ArrayRef> = vec![Arc::new(Int32Array::from(vec![-1, 2]))];
        let index = KeyIndex::build(&keys, DuplicateKeys::KeepFirst).unwrap();
        assert_eq!(index.probe(&keys).unwrap(), UInt32Array::from(vec![Some(0), Some(1)]));
    }

    #[test]
    fn composite_keys() {
        let keys: Vec<ArrayRef> =
            vec![Arc::new(StringArray::from(vec!["a", "a", "b"])), Arc::new(UInt64Array::from(vec![1, 2, 1]))];
        let index = KeyIndex::build(&keys, DuplicateKeys::KeepFirst).unwrap();
        let probe: Vec<ArrayRef> =
            vec![Arc::new(StringArray::from(vec!["b", "a", "c"])), Arc::new(UInt64Array::from(vec![1, 2, 1]))];
        assert_eq!(index.probe(&probe).unwrap(), UInt32Array::from(vec![Some(2), Some(1), None]));
        let values: ArrayRef = Arc::new(StringArray::from(vec!["x", "y", "z"]));
        let (gathered, found) = gather(&values, &index.probe(&probe).unwrap()).unwrap();
        assert_eq!(gathered.as_string::<i32>().iter().collect::<Vec<_>>(), vec![Some("z"), Some("y"), None]);
        assert_eq!(found, BooleanArray::from(vec![true, true, false]));
    }
}
