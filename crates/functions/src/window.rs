//! ClickHouse's value window functions: `lagInFrame`/`leadInFrame` (within the frame),
//! `lag`/`lead` (the whole partition, whatever the frame), `first_value`/`last_value`
//! (NULLs skipped, as ClickHouse's `any`/`anyLast` they are) and `nth_value`.
//!
//! They replace DataFusion's functions of the same names because ClickHouse fills a
//! missing row with the type's default (0, '', 1970-01-01), not NULL, and keeps the
//! argument's type: `first_value(number) OVER ()` is UInt64, not Nullable(UInt64).

use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result as DfResult, ScalarValue};
use datafusion::logical_expr::function::{PartitionEvaluatorArgs, WindowUDFFieldArgs};
use datafusion::logical_expr::{PartitionEvaluator, Signature, TypeSignature, Volatility, WindowUDF, WindowUDFImpl};
use datafusion::physical_expr::expressions::Literal;
use granary_common::ErrorCode;

use crate::args::ch_error;
use crate::func::{ch_type_of_field, result_field};
use crate::supertype::least_supertype;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    LagInFrame,
    LeadInFrame,
    Lag,
    Lead,
    First,
    Last,
    Nth,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::LagInFrame => "lagInFrame",
            Kind::LeadInFrame => "leadInFrame",
            Kind::Lag => "lag",
            Kind::Lead => "lead",
            Kind::First => "first_value",
            Kind::Last => "last_value",
            Kind::Nth => "nth_value",
        }
    }

    fn is_shift(self) -> bool {
        matches!(self, Kind::LagInFrame | Kind::LeadInFrame | Kind::Lag | Kind::Lead)
    }

    fn backwards(self) -> bool {
        matches!(self, Kind::LagInFrame | Kind::Lag)
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct ValueWindow {
    kind: Kind,
    signature: Signature,
}

/// The window functions of this module, to register in place of DataFusion's.
pub fn window_functions() -> Vec<WindowUDF> {
    KINDS
        .into_iter()
        .map(|kind| WindowUDF::new_from_impl(ValueWindow { kind, signature: Signature::one_of(vec![TypeSignature::VariadicAny, TypeSignature::Nullary], Volatility::Immutable) }))
        .collect()
}

/// Whether `name` is one of this module's functions.
pub(crate) fn is_value_function(name: &str) -> bool {
    KINDS.iter().any(|k| k.name() == name)
}

const KINDS: [Kind; 7] = [Kind::LagInFrame, Kind::LeadInFrame, Kind::Lag, Kind::Lead, Kind::First, Kind::Last, Kind::Nth];

fn bad(message: String) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::BAD_ARGUMENTS, message)
}

impl ValueWindow {
    fn check_arity(&self, n: usize) -> DfResult<()> {
        let name = self.kind.name();
        let (min, max) = match self.kind {
            k if k.is_shift() => (1, 3),
            Kind::Nth => (2, 2),
            _ => (1, 1),
        };
        if n < min {
            let message = if min == 1 {
                format!("Function {name} takes at least one argument")
            } else {
                format!("Function {name} takes exactly {min} arguments")
            };
            return Err(ch_error(ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION, message));
        }
        if n > max {
            return Err(ch_error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Function {name} takes at most {max} arguments, {n} given"),
            ));
        }
        Ok(())
    }
}

impl WindowUDFImpl for ValueWindow {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn field(&self, field_args: WindowUDFFieldArgs) -> DfResult<FieldRef> {
        let inputs = field_args.input_fields();
        self.check_arity(inputs.len())?;
        let arg = ch_type_of_field(&inputs[0]);
        let name = self.kind.name();
        if self.kind.is_shift() {
            if let Some(offset) = inputs.get(1) {
                if !offset.data_type().is_integer() && offset.data_type() != &DataType::Null {
                    return Err(bad(format!("Offset must be an integer, got '{}'", ch_type_of_field(offset))));
                }
            }
        } else if self.kind == Kind::Nth && !inputs[1].data_type().is_integer() {
            return Err(ch_error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Offset for function {name} must be an integer, got '{}'", ch_type_of_field(&inputs[1])),
            ));
        }
        Ok(Arc::new(result_field(field_args.name(), &arg)))
    }

    fn partition_evaluator(&self, args: PartitionEvaluatorArgs) -> DfResult<Box<dyn PartitionEvaluator>> {
        let fields = args.input_fields();
        self.check_arity(fields.len())?;
        if let Some(default) = fields.get(2).filter(|_| self.kind.is_shift()) {
            // Checked here, not in `field`: an integer literal default is narrowed to its
            // ClickHouse type only after the window node is planned.
            let arg = ch_type_of_field(&fields[0]);
            let default = ch_type_of_field(default);
            // ClickHouse casts the default to the argument's type only when that loses
            // nothing: their supertype must be the argument type itself.
            let supertype = least_supertype(&[arg.clone(), default.clone()]).map_err(|_| {
                bad(format!("There is no supertype for the argument type '{arg}' and the default value type '{default}'"))
            })?;
            if supertype != arg {
                return Err(bad(format!(
                    "The supertype '{supertype}' for the argument type '{arg}' and the default value type '{default}' is not the same as the argument type"
                )));
            }
        }
        let arg_type = fields[0].data_type().clone();
        let missing = if ch_type_of_field(&fields[0]).is_nullable() || arg_type == DataType::Null {
            ScalarValue::try_from(&arg_type)?
        } else {
            ScalarValue::new_default(&arg_type)?
        };
        let constant = |i: usize| -> Option<ScalarValue> {
            args.input_exprs().get(i)?.downcast_ref::<Literal>().map(|l| l.value().clone())
        };
        let name = self.kind.name();
        let mut nth = 0;
        if self.kind.is_shift() {
            if let Some(offset) = constant(1) {
                let offset = offset_of(&offset)?;
                if offset <= 0 && offset_literal_checked(self.kind) {
                    return Err(bad(format!("The offset for function {name} must be in (0, {}], {offset} given", i64::MAX)));
                }
            }
        } else if self.kind == Kind::Nth {
            let Some(n) = constant(1) else {
                return Err(bad(format!("Argument 2 of function {name} must be a constant")));
            };
            nth = offset_of(&n)?;
            if nth <= 0 {
                return Err(bad(format!("The offset for function {name} must be in (0, {}], {nth} given", i64::MAX)));
            }
        }
        Ok(Box::new(Evaluator { kind: self.kind, row: 0, missing, arg_type, nth: nth as usize, args: fields.len() }))
    }
}

/// `lag`/`lead` are ClickHouse aliases that take any offset, 0 included.
fn offset_literal_checked(kind: Kind) -> bool {
    matches!(kind, Kind::LagInFrame | Kind::LeadInFrame)
}

fn offset_of(value: &ScalarValue) -> DfResult<i64> {
    if value.is_null() {
        return Ok(0);
    }
    let cast = value.cast_to(&DataType::Int64).map_err(|_| bad(format!("Offset must be an integer, got {value}")))?;
    match cast {
        ScalarValue::Int64(Some(v)) => Ok(v),
        _ => Ok(0),
    }
}

#[derive(Debug)]
struct Evaluator {
    kind: Kind,
    /// Rows of the partition evaluated so far: `evaluate` is called once per row, in
    /// order, on a fresh evaluator per partition (bounded execution is declined).
    row: usize,
    missing: ScalarValue,
    arg_type: DataType,
    nth: usize,
    /// How many of `values` are arguments: the ORDER BY columns follow them when the
    /// frame is used.
    args: usize,
}

impl Evaluator {
    fn offset(&self, values: &[ArrayRef], row: usize) -> DfResult<i64> {
        match values.get(1).filter(|_| self.args > 1) {
            None => Ok(1),
            Some(offsets) => offset_of(&ScalarValue::try_from_array(offsets, row)?),
        }
    }

    fn default_at(&self, values: &[ArrayRef], row: usize) -> DfResult<ScalarValue> {
        match values.get(2).filter(|_| self.args > 2) {
            None => Ok(self.missing.clone()),
            Some(defaults) => ScalarValue::try_from_array(defaults, row)?.cast_to(&self.arg_type),
        }
    }

    fn shifted(&self, values: &[ArrayRef], row: usize, range: &Range<usize>) -> DfResult<ScalarValue> {
        let offset = self.offset(values, row)?;
        if offset < 0 {
            return Err(bad(format!("The offset for function {} must be nonnegative, {offset} given", self.kind.name())));
        }
        let offset = offset as usize;
        let target = if self.kind.backwards() { row.checked_sub(offset) } else { row.checked_add(offset) };
        match target {
            Some(t) if t >= range.start && t < range.end => ScalarValue::try_from_array(&values[0], t),
            _ => self.default_at(values, row),
        }
    }
}

impl PartitionEvaluator for Evaluator {
    fn uses_window_frame(&self) -> bool {
        !matches!(self.kind, Kind::Lag | Kind::Lead)
    }

    fn supports_bounded_execution(&self) -> bool {
        false
    }

    fn evaluate(&mut self, values: &[ArrayRef], range: &Range<usize>) -> DfResult<ScalarValue> {
        let row = self.row;
        self.row += 1;
        let column = &values[0];
        match self.kind {
            Kind::LagInFrame | Kind::LeadInFrame => self.shifted(values, row, range),
            Kind::First => match (range.start..range.end).find(|&i| column.is_valid(i)) {
                Some(i) => ScalarValue::try_from_array(column, i),
                None => Ok(self.missing.clone()),
            },
            Kind::Last => match (range.start..range.end).rev().find(|&i| column.is_valid(i)) {
                Some(i) => ScalarValue::try_from_array(column, i),
                None => Ok(self.missing.clone()),
            },
            Kind::Nth => {
                let i = range.start + self.nth - 1;
                if i < range.end {
                    ScalarValue::try_from_array(column, i)
                } else {
                    Ok(self.missing.clone())
                }
            }
            Kind::Lag | Kind::Lead => {
                let all = 0..column.len();
                self.shifted(values, row, &all)
            }
        }
    }

    fn evaluate_all(&mut self, values: &[ArrayRef], num_rows: usize) -> DfResult<ArrayRef> {
        let all = 0..num_rows;
        let scalars = (0..num_rows).map(|row| self.shifted(values, row, &all)).collect::<DfResult<Vec<_>>>()?;
        if scalars.is_empty() {
            return Ok(datafusion::arrow::array::new_empty_array(&self.arg_type));
        }
        ScalarValue::iter_to_array(scalars)
    }
}
