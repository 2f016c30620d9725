//! The `-ForEach` combinator: `sumForEach(arr)` aggregates each array position on its
//! own (`[1, 2]`, `[3, 4, 5]` give `[4, 6, 5]`); with several arguments, the arrays of one
//! row must have equal lengths and their elements at one position go to that position's
//! aggregate together. `-IfForEach` is `-ForEach` over `-If`: its last argument is an
//! array of conditions, one per element. (`-ForEachIf`, a condition per row, is a plain
//! `FILTER` and is rewritten so by the SQL front end.)
//!
//! One base accumulator per position, created when a longer array first arrives. The
//! partial state of each base state field is the list of that field over the positions,
//! so partial aggregates merge position by position.


use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, ListArray, UInt32Array};
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Accumulator;
use granary_common::ErrorCode;

use crate::args::{ch_error, DfResult};

/// Makes the base accumulator of one more array position.
pub type NewAccumulator = Box<dyn Fn() -> DfResult<Box<dyn Accumulator>> + Send + Sync>;

pub struct ForEachAccumulator {
    name: String,
    new_element: NewAccumulator,
    /// The types the base aggregate takes its arguments in.
    input_types: Vec<DataType>,
    state_types: Vec<DataType>,
    /// `-IfForEach`: the last argument is the conditions.
    with_conditions: bool,
    /// The base accumulator of each array position.
    positions: Vec<Box<dyn Accumulator>>,
    return_field: FieldRef,
}

impl std::fmt::Debug for ForEachAccumulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ForEachAccumulator({}, {} positions)", self.name, self.positions.len())
    }
}

impl ForEachAccumulator {
    pub fn new(
        name: String,
        new_element: NewAccumulator,
        input_types: Vec<DataType>,
        state_types: Vec<DataType>,
        with_conditions: bool,
        return_field: FieldRef,
    ) -> Self {
        ForEachAccumulator { name, new_element, input_types, state_types, with_conditions, positions: Vec::new(), return_field }
    }

    fn grow_to(&mut self, len: usize) -> DfResult<()> {
        while self.positions.len() < len {
            self.positions.push((self.new_element)()?);
        }
        Ok(())
    }

    /// For each list of `lists` and each array position, the indices of the list's
    /// values at that position over all rows (a NULL list counts as empty). The lists of
    /// one row must have equal lengths. `keep(row, position)` drops elements.
    fn positions_of(&self, lists: &[&ListArray], keep: &dyn Fn(usize, usize) -> bool) -> DfResult<Vec<Vec<Vec<u32>>>> {
        let rows = lists.first().map_or(0, |l| l.len());
        let mut indices: Vec<Vec<Vec<u32>>> = vec![Vec::new(); lists.len()];
        for row in 0..rows {
            let length = |l: &ListArray| if l.is_null(row) { 0 } else { l.value_length(row) as usize };
            let len = length(lists[0]);
            if lists.iter().any(|l| length(l) != len) {
                return Err(ch_error(
                    ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                    format!("Arrays passed to {} aggregate function have different sizes", self.name),
                ));
            }
            // Every position of the array gets an aggregate, even when no element there
            // passes its condition (`sumIfForEach` gives 0 there, as in ClickHouse).
            for out in indices.iter_mut().filter(|out| out.len() < len) {
                out.resize(len, Vec::new());
            }
            for position in (0..len).filter(|&p| keep(row, p)) {
                for (list, out) in lists.iter().zip(indices.iter_mut()) {
                    out[position].push((list.value_offsets()[row] as usize + position) as u32);
                }
            }
        }
        Ok(indices)
    }
}

fn as_list<'a>(array: &'a ArrayRef, name: &str) -> DfResult<&'a ListArray> {
    array.as_list_opt::<i32>().ok_or_else(|| {
        ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument for aggregate function {name}. Must be array.", array.data_type()))
    })
}

/// The values of `list` at `indices`, as `to`.
fn gather(list: &ListArray, indices: &[u32], to: Option<&DataType>) -> DfResult<ArrayRef> {
    let values = take(list.values().as_ref(), &UInt32Array::from(indices.to_vec()), None)?;
    Ok(match to {
        Some(t) if values.data_type() != t => cast(&values, t)?,
        _ => values,
    })
}

impl Accumulator for ForEachAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        let lists = values.iter().map(|v| as_list(v, &self.name)).collect::<DfResult<Vec<_>>>()?;
        let conditions: Option<(&ListArray, BooleanArray)> = match lists.last() {
            Some(list) if self.with_conditions => {
                let flags = cast(list.values().as_ref(), &DataType::Boolean)?;
                Some((*list, flags.as_boolean().clone()))
            }
            _ => None,
        };
        // NULL conditions are false, as for -If.
        let keep = |row: usize, position: usize| match &conditions {
            Some((list, flags)) => {
                let at = list.value_offsets()[row] as usize + position;
                flags.is_valid(at) && flags.value(at)
            }
            None => true,
        };
        let indices = self.positions_of(&lists, &keep)?;
        let arguments = if self.with_conditions { lists.len() - 1 } else { lists.len() };
        let positions = indices.iter().map(Vec::len).max().unwrap_or(0);
        self.grow_to(positions)?;
        for position in 0..positions {
            let columns = (0..arguments)
                .map(|a| gather(lists[a], indices[a].get(position).map_or(&[][..], Vec::as_slice), self.input_types.get(a)))
                .collect::<DfResult<Vec<_>>>()?;
            self.positions[position].update_batch(&columns)?;
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let lists = states.iter().map(|v| as_list(v, &self.name)).collect::<DfResult<Vec<_>>>()?;
        let indices = self.positions_of(&lists, &|_, _| true)?;
        let positions = indices.iter().map(Vec::len).max().unwrap_or(0);
        self.grow_to(positions)?;
        for position in 0..positions {
            let columns = lists
                .iter()
                .enumerate()
                .map(|(k, list)| gather(list, indices[k].get(position).map_or(&[][..], Vec::as_slice), self.state_types.get(k)))
                .collect::<DfResult<Vec<_>>>()?;
            self.positions[position].merge_batch(&columns)?;
        }
        Ok(())
    }

    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        let states = self.positions.iter_mut().map(|a| a.state()).collect::<DfResult<Vec<_>>>()?;
        self.state_types
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let values = states.iter().map(|s| s.get(k).cloned().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "state of unexpected width"))).collect::<DfResult<Vec<_>>>()?;
                let values = values.into_iter().map(|v| if &v.data_type() == t { Ok(v) } else { v.cast_to(t) }).collect::<DfResult<Vec<_>>>()?;
                Ok(ScalarValue::List(ScalarValue::new_list_nullable(&values, t)))
            })
            .collect()
    }

    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let DataType::List(element) = self.return_field.data_type() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{} returns an array", self.name)));
        };
        let values = self
            .positions
            .iter_mut()
            .map(|a| {
                let v = a.evaluate()?;
                if &v.data_type() == element.data_type() { Ok(v) } else { v.cast_to(element.data_type()) }
            })
            .collect::<DfResult<Vec<_>>>()?;
        ScalarValue::List(ScalarValue::new_list(&values, element.data_type(), element.is_nullable())).cast_to(self.return_field.data_type())
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.positions.iter().map(|a| a.size()).sum::<usize>()
    }
}
