//! `groupBitmap(x)`: the number of distinct integers, and `groupBitmapAnd`/`Or`/`Xor(b)`:
//! the cardinality of the intersection, union or symmetric difference of bitmaps
//! (`AggregateFunction(groupBitmap, T)` values). All keep a [`BitmapSet`], so their states
//! are ClickHouse's bytes; the `-State` of the three set aggregates is a `groupBitmap`
//! state, as in ClickHouse ([`state_type`]).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, UInt64Type};
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::bitmap_set::{value_shape, BitmapSet, SetOp};
use crate::native_state::{illegal_argument, NativeState, NullHandling, Spec};

#[derive(Debug)]
struct GroupBitmapSpec;

fn no_params(name: &str, params: &[ScalarValue]) -> DfResult<()> {
    if !params.is_empty() {
        return Err(ch_error(ErrorCode::AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS, format!("Aggregate function {name} cannot have parameters")));
    }
    Ok(())
}

pub(crate) fn group_bitmap(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("groupBitmap", params)?;
    Ok(Arc::new(GroupBitmapSpec))
}

impl Spec for GroupBitmapSpec {
    fn name(&self) -> &str {
        "groupBitmap"
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::DefaultResult
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        value_shape(&args[0]).ok_or_else(|| illegal_argument("groupBitmap", &args[0]))?;
        Ok(ChType::UInt64)
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let set = BitmapSet::of_type(&args[0]).ok_or_else(|| illegal_argument("groupBitmap", &args[0]))?;
        Ok(Box::new(GroupBitmap { set }))
    }
}

#[derive(Debug)]
struct GroupBitmap {
    set: BitmapSet,
}

impl NativeState for GroupBitmap {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let mask = self.set.mask();
        if self.set.signed() {
            let values = cast(&columns[0], &DataType::Int64)?;
            for v in values.as_primitive::<Int64Type>().values() {
                self.set.insert((*v as u64) & mask);
            }
        } else {
            let values = cast(&columns[0], &DataType::UInt64)?;
            for v in values.as_primitive::<UInt64Type>().values() {
                self.set.insert(*v);
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let other = BitmapSet::read(self.set.width(), self.set.signed(), input)?;
        self.set.merge(&other);
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.set.write(out);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        // ClickHouse counts in the value type: 256 distinct UInt8 values count as 0.
        Ok(ScalarValue::UInt64(Some(self.set.cardinality() & self.set.mask())))
    }
    fn size(&self) -> usize {
        self.set.size()
    }
}

/// `groupBitmapAnd`, `groupBitmapOr`, `groupBitmapXor`.
#[derive(Debug)]
struct GroupBitmapOpSpec {
    name: &'static str,
    op: SetOp,
}

pub(crate) fn group_bitmap_and(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("groupBitmapAnd", params)?;
    Ok(Arc::new(GroupBitmapOpSpec { name: "groupBitmapAnd", op: SetOp::And }))
}

pub(crate) fn group_bitmap_or(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("groupBitmapOr", params)?;
    Ok(Arc::new(GroupBitmapOpSpec { name: "groupBitmapOr", op: SetOp::Or }))
}

pub(crate) fn group_bitmap_xor(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("groupBitmapXor", params)?;
    Ok(Arc::new(GroupBitmapOpSpec { name: "groupBitmapXor", op: SetOp::Xor }))
}

/// The value type `T` of a bitmap type `AggregateFunction(groupBitmap, T)`.
pub(crate) fn bitmap_value_type(t: &ChType) -> Option<&ChType> {
    match t.strip_nullable() {
        ChType::AggregateFunction(function, args) if function == "groupBitmap" && args.len() == 1 && value_shape(&args[0]).is_some() => Some(&args[0]),
        _ => None,
    }
}

/// The `-State` type of the set aggregates: a `groupBitmap` state of the values' type,
/// so that the bitmap functions and `groupBitmapMerge` take it, as in ClickHouse.
pub(crate) fn state_type(function: &str, args: &[ChType]) -> Option<ChType> {
    if !matches!(function, "groupBitmapAnd" | "groupBitmapOr" | "groupBitmapXor") {
        return None;
    }
    let value = bitmap_value_type(args.first()?)?;
    Some(ChType::AggregateFunction("groupBitmap".to_string(), vec![value.clone()]))
}

/// A count as a value of `t` (an integer type up to 64 bits): ClickHouse casts the
/// cardinality to the bitmap's value type.
pub(crate) fn count_as(t: &ChType, count: u64) -> DfResult<ScalarValue> {
    let v = count;
    Ok(match t.base() {
        ChType::UInt8 | ChType::Bool => ScalarValue::UInt8(Some(v as u8)),
        ChType::UInt16 => ScalarValue::UInt16(Some(v as u16)),
        ChType::UInt32 => ScalarValue::UInt32(Some(v as u32)),
        ChType::UInt64 => ScalarValue::UInt64(Some(v)),
        ChType::Int8 => ScalarValue::Int8(Some(v as i8)),
        ChType::Int16 => ScalarValue::Int16(Some(v as i16)),
        ChType::Int32 => ScalarValue::Int32(Some(v as i32)),
        ChType::Int64 => ScalarValue::Int64(Some(v as i64)),
        other => return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{other} is not a bitmap value type"))),
    })
}

impl Spec for GroupBitmapOpSpec {
    fn name(&self) -> &str {
        self.name
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn nulls(&self) -> NullHandling {
        // The flag tells a partial state that saw no bitmap, which must not take part:
        // an AND starts from the first bitmap it meets.
        NullHandling::NullableResult
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        bitmap_value_type(&args[0]).cloned().ok_or_else(|| illegal_argument(self.name, &args[0]))
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        let value = bitmap_value_type(&args[0]).ok_or_else(|| illegal_argument(self.name, &args[0]))?;
        let set = BitmapSet::of_type(value).ok_or_else(|| illegal_argument(self.name, &args[0]))?;
        Ok(Box::new(GroupBitmapOp { op: self.op, value: value.clone(), init: false, set }))
    }
}

#[derive(Debug)]
struct GroupBitmapOp {
    op: SetOp,
    value: ChType,
    /// Whether a bitmap came: the first one is taken as it is (ClickHouse's `init`).
    init: bool,
    set: BitmapSet,
}

impl GroupBitmapOp {
    fn combine(&mut self, bytes: &mut &[u8]) -> DfResult<()> {
        let other = BitmapSet::read(self.set.width(), self.set.signed(), bytes)?;
        if self.init {
            self.set.apply(self.op, &other);
        } else {
            self.init = true;
            self.set.merge(&other);
        }
        Ok(())
    }
}

impl NativeState for GroupBitmapOp {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let bitmaps = columns[0].as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "A bitmap column must be Binary"))?;
        for bytes in bitmaps.iter().flatten() {
            let mut input = bytes;
            self.combine(&mut input)?;
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        self.combine(input)
    }
    fn write(&self, out: &mut Vec<u8>) {
        self.set.write(out);
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        count_as(&self.value, self.set.cardinality())
    }
    fn size(&self) -> usize {
        self.set.size()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::native_state::state_hex as hex;
    use datafusion::arrow::array::{UInt32Array, UInt64Array};
    use std::sync::Arc;

    fn state_of(t: ChType, values: ArrayRef) -> Box<dyn NativeState> {
        let mut state = GroupBitmapSpec.new_state(&[t]).unwrap();
        state.add(&[values]).unwrap();
        state
    }

    /// chdb's `hex(groupBitmapState(...))`.
    #[test]
    fn states_as_clickhouse() {
        let small = state_of(ChType::UInt32, Arc::new(UInt32Array::from(vec![0, 1, 2])));
        assert_eq!(hex(small.as_ref()), "0003000000000100000002000000");
        let runs = state_of(ChType::UInt32, Arc::new(UInt32Array::from_iter_values(0..5000)));
        assert_eq!(hex(runs.as_ref()), "010F3B3000000100008713010000008713");
        let array = state_of(ChType::UInt32, Arc::new(UInt32Array::from_iter_values((0..40).map(|n| n * 3))));
        assert!(hex(array.as_ref()).starts_with("01603A30000001000000000027001000000000000300060009000C00"));
        let wide = state_of(ChType::UInt64, Arc::new(UInt64Array::from_iter_values((0..40).map(|n| n * 1000))));
        assert!(hex(wide.as_ref()).starts_with("016C0100000000000000000000003A3000000100000000002700100000000000E803D007"));
        // Merging the bytes back gives the same bytes.
        for (state, t) in [(small, ChType::UInt32), (runs, ChType::UInt32), (array, ChType::UInt32), (wide, ChType::UInt64)] {
            let mut merged = GroupBitmapSpec.new_state(&[t]).unwrap();
            let mut bytes = Vec::new();
            state.write(&mut bytes);
            let mut input = bytes.as_slice();
            merged.merge(&mut input).unwrap();
            assert!(input.is_empty());
            assert_eq!(hex(merged.as_ref()), hex(state.as_ref()));
        }
    }
}
