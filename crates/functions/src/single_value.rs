//! `singleValueOrNull(x)`: the value when every non-NULL row holds the same one, else
//! NULL (also for no rows). The result is always `Nullable`.
//!
//! The accumulator's state is Granary's own: a byte (0 no value, 1 one value, 2 several,
//! 3 several after a first value) and the first value. ClickHouse's `-State` writes only its single-value cell (the first
//! value), so its state of `1, 2` reads back as `1`; partial aggregates keep the
//! "several" mark so they merge right, and `-State` writes ClickHouse's bytes.

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
    fn own_bytes(&self) -> bool {
        true
    }
}

#[derive(Debug)]
struct SingleValue {
    value_type: DataType,
    /// The first value (ClickHouse's cell, kept after a second value came).
    value: Option<ScalarValue>,
    several: bool,
}

impl SingleValue {
    fn offer(&mut self, v: ScalarValue) {
        match &self.value {
            _ if self.several => {}
            None => self.value = Some(v),
            Some(current) if *current != v => self.several = true,
            _ => {}
        }
    }

    fn is_string(&self) -> bool {
        matches!(self.value_type, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
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
                self.offer(v);
            }
            // Several values, with (3) or without (2) the first one.
            kind => {
                if kind == 3 {
                    let v = get_value(input, &self.value_type)?;
                    self.offer(v);
                }
                self.several = true;
            }
        }
        Ok(())
    }
    fn write(&self, out: &mut Vec<u8>) {
        let kind = match (&self.value, self.several) {
            (None, false) => 0,
            (None, true) => 2,
            (Some(_), false) => 1,
            (Some(_), true) => 3,
        };
        out.push(kind);
        if let Some(v) = &self.value {
            // Values of the argument's own type always serialize.
            if put_value(out, v).is_err() {
                out.truncate(out.len() - 1);
                out.push(if self.several { 2 } else { 0 });
            }
        }
    }
    /// ClickHouse's `SingleValueDataFixed` (a set byte, then the value) or, for
    /// strings, `SingleValueDataString` (size with the terminating zero, or -1).
    fn write_clickhouse(&self, out: &mut Vec<u8>) {
        match (&self.value, self.is_string()) {
            (Some(ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s))), true) => {
                out.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
                out.push(0);
            }
            (_, true) => out.extend_from_slice(&(-1i32).to_le_bytes()),
            (Some(v), false) => {
                out.push(1);
                if put_value(out, v).is_err() {
                    out.truncate(out.len() - 1);
                    out.push(0);
                }
            }
            (None, false) => out.push(0),
        }
    }
    fn merge_clickhouse(&mut self, input: &mut &[u8]) -> DfResult<()> {
        let value = if self.is_string() {
            let size = i32::from_le_bytes(take(input, 4)?.try_into().map_err(|_| crate::native_state::truncated())?);
            if size <= 0 {
                None
            } else {
                let bytes = take(input, size as usize)?;
                let text = String::from_utf8_lossy(&bytes[..bytes.len() - 1]).into_owned();
                Some(ScalarValue::Utf8(Some(text)).cast_to(&self.value_type)?)
            }
        } else {
            match take(input, 1)?[0] {
                0 => None,
                _ => Some(get_value(input, &self.value_type)?),
            }
        };
        if let Some(v) = value {
            self.offer(v);
        }
        Ok(())
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

    /// chdb: hex(singleValueOrNullState(x)) over 1, 2 is 0101 (the first value), and over
    /// '0' as a String 020000003000.
    #[test]
    fn clickhouse_bytes() {
        let spec = single_value_or_null(&[]).unwrap();
        let mut several = spec.new_state(&[ChType::UInt8]).unwrap();
        several.add(&[Arc::new(UInt8Array::from(vec![1, 2])) as ArrayRef]).unwrap();
        let mut bytes = Vec::new();
        several.write(&mut bytes);
        let mut merged = spec.new_state(&[ChType::UInt8]).unwrap();
        merged.merge(&mut bytes.as_slice()).unwrap();
        let mut ch = Vec::new();
        merged.write_clickhouse(&mut ch);
        assert_eq!(ch, vec![1, 1]);
        assert_eq!(merged.finish().unwrap(), ScalarValue::UInt8(None));
        let mut text = spec.new_state(&[ChType::String]).unwrap();
        text.add(&[Arc::new(datafusion::arrow::array::StringArray::from(vec!["0"])) as ArrayRef]).unwrap();
        let mut ch = Vec::new();
        text.write_clickhouse(&mut ch);
        assert_eq!(ch, vec![2, 0, 0, 0, b'0', 0]);
    }
}
