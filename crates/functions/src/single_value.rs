//! `singleValueOrNull(x)`: the value when every non-NULL row holds the same one, else
//! NULL (also for no rows). The result is always `Nullable`.
//!
//! The state is Granary's own: a byte (0 no value, 1 one value, 2 several) and the
//! value. ClickHouse writes only its single-value cell, so its state of `1, 2` reads
//! back as `1`; Granary keeps the "several" mark so partial aggregates merge right.

use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::native_state::{take, NativeState, NullHandling, Spec};
use crate::states::{get_value, put_value};
use crate::value_stats::no_params;

#[derive(Debug)]
struct SingleValueSpec;

pub(crate) fn single_value_or_null(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>> {
    no_params("singleValueOrNull", params)?;
    Ok(Arc::new(SingleValueSpec))
}

impl Spec for SingleValueSpec {
    fn name(&self) -> &str {
        "singleValueOrNull"
    }
    fn arity(&self) -> Arity {
        Arity::exact(1)
    }
    fn nulls(&self) -> NullHandling {
        NullHandling::Skip
    }
    fn result(&self, args: &[ChType]) -> DfResult<ChType> {
        match &args[0] {
            ChType::Array(_) | ChType::Map(..) | ChType::Tuple(_) | ChType::AggregateFunction(..) => {
                Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {} of argument of aggregate function singleValueOrNull because the values of that data type are not comparable", args[0])))
            }
            t => Ok(t.clone().into_nullable()),
        }
    }
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>> {
        self.result(args)?;
        Ok(Box::new(SingleValue { value_type: args[0].to_arrow(), value: None, several: false }))
    }
}

#[derive(Debug)]
struct SingleValue {
    value_type: DataType,
    value: Option<ScalarValue>,
    several: bool,
}

impl SingleValue {
    fn offer(&mut self, v: ScalarValue) {
        match &self.value {
            None if !self.several => self.value = Some(v),
            Some(current) if *current != v => {
                self.several = true;
                self.value = None;
            }
            _ => {}
        }
    }
}

impl NativeState for SingleValue {
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        let column = &columns[0];
        for row in 0..column.len() {
            if self.several {
                break;
            }
            if column.is_valid(row) {
                self.offer(ScalarValue::try_from_array(column, row)?);
            }
        }
        Ok(())
    }
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()> {
        match take(input, 1)?[0] {
            0 => {}
            1 => {
                let v = get_value(input, &self.value_type)?;
                if !self.several {
                    self.offer(v);
                }
            }
            _ => {
                self.several = true;
                self.value = None;
            }
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        match (&self.value, self.several) {
            (_, true) => out.push(2),
            (Some(v), false) => {
                out.push(1);
                // Values of the argument's own type always serialize.
                if put_value(out, v).is_err() {
                    out.truncate(out.len() - 1);
                    out.push(2);
                }
            }
            (None, false) => out.push(0),
        }
    }
    fn finish(&self) -> DfResult<ScalarValue> {
        match &self.value {
            Some(v) if !self.several => Ok(v.clone()),
            _ => Ok(ScalarValue::try_from(&self.value_type)?),
        }
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.value.as_ref().map_or(0, |v| v.size())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::arrow::array::UInt8Array;

    #[test]
    fn one_value_or_null() {
        let spec = single_value_or_null(&[]).unwrap();
        let mut same = spec.new_state(&[ChType::UInt8]).unwrap();
        same.add(&[Arc::new(UInt8Array::from(vec![Some(1), None, Some(1)])) as ArrayRef]).unwrap();
        assert_eq!(same.finish().unwrap(), ScalarValue::UInt8(Some(1)));
        let mut bytes = Vec::new();
        same.write(&mut bytes);
        let mut other = spec.new_state(&[ChType::UInt8]).unwrap();
        other.add(&[Arc::new(UInt8Array::from(vec![2])) as ArrayRef]).unwrap();
        other.merge(&mut bytes.as_slice()).unwrap();
        assert_eq!(other.finish().unwrap(), ScalarValue::UInt8(None));
    }
}
