//! `groupArrayIntersect(arr)`: the elements present in every array, in the order of
//! ClickHouse's `HashSet`, which is the order ClickHouse returns them in.
//!
//! ClickHouse keeps plain numbers in a `HashSet<T>` hashed with `intHash64` of their bits
//! (the state: version, size, then the values at their width) and every other element
//! type in a `HashSet<string_view>` of the element's `serializeValueIntoArena` bytes
//! hashed with the CRC32 string hash (the state: version, size, then each key as a
//! string). Both start at 256 cells and grow as `HashTableGrower` does; the zero key
//! lives outside the cells and comes first. `version` counts the arrays added (or states
//! merged): the first fills the set, each later one keeps only what it also holds, as a
//! new set filled in that array's order.
//!
//! Element types: numbers, Bool, Date, Date32, DateTime, DateTime64, String and
//! FixedString.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{take, NativeState, NullHandling, NumType, Spec};
use crate::hash_set_order::{Key, KeySet, INITIAL_DEGREE};
use crate::states::{get_varuint, put_varuint};

/// `MAX_GROUP_ARRAY_INTERSECT_STATE_SIZE` of ClickHouse.
const MAX_STATE_SIZE: u64 = 100_000_000;

/// How elements are keyed.
#[derive(Debug, Clone, PartialEq)]
enum Keys {
    /// `HashSet<T>` of a plain number.
    Number(NumType),
    /// A generic set over the raw bytes of a fixed-width value (dates, FixedString).
    Raw(NumType),
    FixedString(usize),
    String,
}

fn keys_of(item: &ChType) -> Option<Keys> {
    Some(match item {
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Float32 | ChType::Float64 | ChType::Bool => {
            Keys::Number(NumType::of(item)?)
        }
        ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..) => Keys::Raw(NumType::of(item)?),
        ChType::FixedString(n) => Keys::FixedString(*n as usize),
        ChType::String => Keys::String,
        _ => return None,
    })
}

impl Keys {
    fn width(&self) -> Option<usize> {
        match self {
            Keys::Number(t) | Keys::Raw(t) => Some(t.width()),
            Keys::FixedString(n) => Some(*n),
            Keys::String => None,
        }
    }

    fn key(&self, bytes: Vec<u8>) -> Key {
        match self {
            Keys::Number(_) => {
                let mut le = [0u8; 8];
                le[..bytes.len()].copy_from_slice(&bytes);
                let bits = u64::from_le_bytes(le);
                (bits != 0).then(|| (bytes, crate::uniq::fmix64(bits)))
            }
            _ => {
                let hash = crate::topk::string_hash_crc32(&bytes);
                Some((bytes, hash))
            }
        }
    }

    /// The keys of the elements of one array.
    fn keys(&self, values: &ArrayRef) -> DfResult<Vec<Key>> {
        let mut out = Vec::with_capacity(values.len());
        match self {
            Keys::Number(t) | Keys::Raw(t) => {
                for v in t.values(values)? {
                    let mut bytes = Vec::with_capacity(8);
                    t.write(v, &mut bytes);
                    out.push(self.key(bytes));
                }
            }
            Keys::FixedString(_) | Keys::String => {
                let binary = cast(values, &DataType::Binary)?;
                for v in binary.as_binary::<i32>().iter() {
                    let v = v.unwrap_or_default();
                    let bytes = if *self == Keys::String {
                        // ColumnString's serialized value: size with the terminating zero, bytes, zero.
                        let mut b = Vec::with_capacity(v.len() + 9);
                        b.extend_from_slice(&(v.len() as u64 + 1).to_le_bytes());
                        b.extend_from_slice(v);
                        b.push(0);
                        b
                    } else {
                        v.to_vec()
                    };
                    out.push(self.key(bytes));
                }
            }
        }
        Ok(out)
    }

    /// The element a key stands for.
    fn value(&self, key: &Key, item: &ChType) -> DfResult<ScalarValue> {
        let dt = item.to_arrow();
        match (self, key) {
            (Keys::Number(t) | Keys::Raw(t), None) => t.scalar(t.zero(), &dt),
            (Keys::Number(t) | Keys::Raw(t), Some((bytes, _))) => t.scalar(t.read(&mut bytes.as_slice())?, &dt),
            (Keys::FixedString(_), Some((bytes, _))) => Ok(ScalarValue::FixedSizeBinary(bytes.len() as i32, Some(bytes.clone())).cast_to(&dt)?),
            (Keys::String, Some((bytes, _))) => {
                let text = bytes.get(8..bytes.len().saturating_sub(1)).unwrap_or_default();
                Ok(ScalarValue::Utf8(Some(String::from_utf8_lossy(text).into_owned())).cast_to(&dt)?)
            }
            (_, None) => Ok(ScalarValue::try_from(&dt)?),
        }
    }
}

#[derive(Debug)]
struct IntersectSpec;

/// The family for [`crate::parametric::FAMILIES`], so that parameters get ClickHouse's error.
pub(crate) fn group_array_intersect_family(params: &[ScalarValue]) -> DfResult<datafusion::logical_expr::AggregateUDF> {
    crate::native_state::family(group_array_intersect, params)
}

pub(crate) fn group_array_intersect(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    if !params.is_empty() {
        return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Incorrect number of parameters for aggregate function groupArrayIntersect, should be 0"));
    }
    Ok(Arc::new(IntersectSpec))
}

impl Spec for IntersectSpec {
    fn name(&self) -> &str {
        "groupArrayIntersect"
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::Skip
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        let ChType::Array(item) = &args[0] else {
            return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "Aggregate function groupArrayIntersect accepts only array type argument."));
        };
        keys_of(item).ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument for aggregate function groupArrayIntersect", args[0])))?;
        Ok(args[0].clone())
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        let ChType::Array(item) = &args[0] else { return Err(ch_error(ErrorCode::LOGICAL_ERROR, "groupArrayIntersect takes arrays")) };
        let keys = keys_of(item).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "groupArrayIntersect element type"))?;
        Ok(Box::new(IntersectState { keys, item: (**item).clone(), set: KeySet::with_degree(INITIAL_DEGREE), version: 0 }))
    }
}

#[derive(Debug)]
struct IntersectState {
    keys: Keys,
    item: ChType,
    set: KeySet,
    version: u64,
}

impl IntersectState {
    fn add_array(&mut self, keys: Vec<Key>) {
        self.version += 1;
        if self.version == 1 {
            for k in keys {
                self.set.insert(k);
            }
        } else if self.set.len() > 0 {
            let mut kept = KeySet::with_degree(INITIAL_DEGREE);
            for k in keys {
                if self.set.contains(&k) {
                    kept.insert(k);
                }
            }
            self.set = kept;
        }
    }
}

impl NativeState for IntersectState {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let list = columns[0].as_list_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "groupArrayIntersect takes arrays"))?;
        for row in 0..list.len() {
            let keys = self.keys.keys(&list.value(row))?;
            self.add_array(keys);
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let version = get_varuint(input)?;
        let size = get_varuint(input)?;
        if size > MAX_STATE_SIZE {
            return Err(ch_error(ErrorCode::TOO_LARGE_ARRAY_SIZE, format!("Too large array size ({size}) in groupArrayIntersect deserialization")));
        }
        // ClickHouse reserves room for as many keys as the rest of the buffer can hold.
        let room = match self.keys.width() {
            Some(w) if matches!(self.keys, Keys::Number(_)) => input.len() / w,
            _ => input.len(),
        };
        let mut rhs = KeySet::reserved((size as usize).min(room));
        for _ in 0..size {
            let bytes = match (&self.keys, self.keys.width()) {
                (Keys::Number(_), Some(w)) => take(input, w)?.to_vec(),
                _ => {
                    let n = get_varuint(input)? as usize;
                    take(input, n)?.to_vec()
                }
            };
            rhs.insert(self.keys.key(bytes));
        }
        if version == 0 {
            return Ok(());
        }
        self.version += 1;
        if self.version == 1 {
            for k in rhs.iter() {
                self.set.insert(k);
            }
        } else if self.set.len() > 0 {
            // The numeric form walks the smaller set; the generic one always the left.
            let (walk, probe) = if matches!(self.keys, Keys::Number(_)) && rhs.len() < self.set.len() { (&rhs, &self.set) } else { (&self.set, &rhs) };
            let mut kept = KeySet::with_degree(INITIAL_DEGREE);
            for k in walk.iter() {
                if probe.contains(&k) {
                    kept.insert(k);
                }
            }
            self.set = kept;
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        put_varuint(out, self.version);
        put_varuint(out, self.set.len() as u64);
        let numeric = matches!(self.keys, Keys::Number(_));
        for key in self.set.iter() {
            match key {
                None => out.extend(std::iter::repeat_n(0, self.keys.width().unwrap_or(0))),
                Some((bytes, _)) if numeric => out.extend_from_slice(&bytes),
                Some((bytes, _)) => {
                    put_varuint(out, bytes.len() as u64);
                    out.extend_from_slice(&bytes);
                }
            }
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        let values = self.set.iter().iter().map(|k| self.keys.value(k, &self.item)).collect::<DfResult<Vec<_>>>()?;
        let array = if values.is_empty() {
            datafusion::arrow::array::new_empty_array(&self.item.to_arrow())
        } else {
            let array = ScalarValue::iter_to_array(values)?;
            if array.data_type() == &self.item.to_arrow() { array } else { cast(&array, &self.item.to_arrow())? }
        };
        crate::group_arrays::list_of(array, &self.item)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.set.memory()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state_of(arrays: &[Vec<u8>]) -> IntersectState {
        let mut state = IntersectState { keys: Keys::Number(NumType::Int { width: 1, signed: false }), item: ChType::UInt8, set: KeySet::with_degree(INITIAL_DEGREE), version: 0 };
        for a in arrays {
            let keys = a.iter().map(|v| state.keys.key(vec![*v])).collect();
            state.add_array(keys);
        }
        state
    }

    #[test]
    fn numbers_in_clickhouse_hash_order() {
        // chdb: hex(groupArrayIntersectState(a)) over [1,2,3,4] and [2,3,4,5].
        let state = state_of(&[vec![1, 2, 3, 4], vec![2, 3, 4, 5]]);
        assert_eq!(crate::native_state::state_hex(&state), "0203040302");
    }

    #[test]
    fn strings_keep_their_serialized_form() {
        let mut state = IntersectState { keys: Keys::String, item: ChType::String, set: KeySet::with_degree(INITIAL_DEGREE), version: 0 };
        for a in [vec!["a", "b", "c"], vec!["c", "b"]] {
            let array: ArrayRef = Arc::new(datafusion::arrow::array::StringArray::from(a));
            let keys = state.keys.keys(&array).unwrap_or_default();
            state.add_array(keys);
        }
        assert_eq!(crate::native_state::state_hex(&state), "02020A020000000000000063000A02000000000000006200");
    }
}
