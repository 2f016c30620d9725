//! `-Distinct` for Granary's own aggregates (`quantileDistinct`, `varPopDistinct`).
//!
//! The SQL front end turns `fDistinct(x)` into `f(DISTINCT x)`; DataFusion then asks the
//! function for an accumulator with `is_distinct` set, which DataFusion's built-ins
//! handle and a UDAF must handle itself. [`DistinctAccumulator`] keeps each distinct
//! argument tuple once (rows with a NULL argument are skipped, as ClickHouse's -Null
//! combinator outside -Distinct does) and feeds them, in the order first seen, to a fresh
//! accumulator of the function when the result is asked for. Its state is one list of
//! values per argument ([`distinct_state_fields`]).

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::StateFieldsArgs;
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::Accumulator;
use granary_common::ErrorCode;

use crate::args::{ch_error, DfResult};

/// Makes the accumulator the distinct values are fed to.
pub(crate) type NewInner = Box<dyn Fn() -> DfResult<Box<dyn Accumulator>> + Send + Sync>;

/// The state fields of a distinct call: the distinct values of each argument, as lists.
pub(crate) fn distinct_state_fields(args: &StateFieldsArgs) -> Vec<FieldRef> {
    args.input_fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let item = Arc::new(Field::new_list_field(f.data_type().clone(), true));
            Arc::new(Field::new(format_state_name(args.name, &format!("distinct_{i}")), DataType::List(item), true))
        })
        .collect()
}

pub(crate) struct DistinctAccumulator {
    rows: Vec<Vec<ScalarValue>>,
    seen: HashSet<Vec<ScalarValue>>,
    types: Vec<DataType>,
    new_inner: NewInner,
}

impl fmt::Debug for DistinctAccumulator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DistinctAccumulator({} rows)", self.rows.len())
    }
}

impl DistinctAccumulator {
    pub(crate) fn new(types: Vec<DataType>, new_inner: NewInner) -> DistinctAccumulator {
        DistinctAccumulator { rows: Vec::new(), seen: HashSet::new(), types, new_inner }
    }

    fn add_rows(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let len = columns.first().map_or(0, |c| c.len());
        for row in 0..len {
            if columns.iter().any(|c| c.is_null(row)) {
                continue;
            }
            let values = columns.iter().map(|c| ScalarValue::try_from_array(c, row)).collect::<DfResult<Vec<_>>>()?;
            if self.seen.insert(values.clone()) {
                self.rows.push(values);
            }
        }
        Ok(())
    }
}

impl Accumulator for DistinctAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        self.add_rows(values)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let lists = states
            .iter()
            .map(|s| s.as_list_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "distinct state must be lists")))
            .collect::<DfResult<Vec<_>>>()?;
        let Some(first) = lists.first() else { return Ok(()) };
        for row in 0..first.len() {
            if first.is_null(row) {
                continue;
            }
            let columns: Vec<ArrayRef> = lists.iter().map(|l| l.value(row)).collect();
            self.add_rows(&columns)?;
        }
        Ok(())
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        (0..self.types.len())
            .map(|i| {
                let values: Vec<ScalarValue> = self.rows.iter().map(|r| r[i].clone()).collect();
                Ok(ScalarValue::List(ScalarValue::new_list_nullable(&values, &self.types[i])))
            })
            .collect()
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let mut inner = (self.new_inner)()?;
        if !self.rows.is_empty() {
            let columns = (0..self.types.len())
                .map(|i| ScalarValue::iter_to_array(self.rows.iter().map(|r| r[i].clone())))
                .collect::<DfResult<Vec<_>>>()?;
            inner.update_batch(&columns)?;
        }
        inner.evaluate()
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.rows.iter().map(|r| r.iter().map(ScalarValue::size).sum::<usize>()).sum::<usize>() * 2
    }
}
