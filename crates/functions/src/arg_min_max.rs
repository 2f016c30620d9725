//! `argMin`, `argMax`, `argAndMin`, `argAndMax`: the value at the row with the smallest
//! (largest) key.
//!
//! Which row wins a tie is ClickHouse's, because users compare results:
//! * With GROUP BY, ClickHouse adds rows one at a time and replaces only on a strictly
//!   better key: the first row with the extreme key wins ([`ArgGroups`]).
//! * Without GROUP BY, it takes a whole block at once, and for keys of native numeric
//!   storage (integers up to 64 bits, floats, dates, `DateTime64`, `Decimal32/64`,
//!   enums, `Bool`; not Nullable) its SIMD path finds the extreme value and then its
//!   row: the block's first row if that holds the extreme, otherwise the last row that
//!   does (`findExtremeMaxIndex`). Other keys take the first row. Across blocks and when
//!   merging states, a later block replaces only on a strictly better key.
//!
//! `-If` without GROUP BY takes ClickHouse's first-row path there, but reaches us as a
//! FILTER the executor applies before the rows arrive, so it gets the block rule.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{internal_err, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility};
use granary_types::ChType;

use crate::aggregate::UnsignedKeys;
use crate::args::{Arity, DfResult};
use crate::func::{ch_type_of_field, is_nullable_field, result_field};

pub(crate) fn udaf(name: &'static str, max: bool, with_key: bool) -> AggregateUDF {
    AggregateUDF::new_from_impl(ArgMinMax { name, max, with_key, signature: Signature::user_defined(Volatility::Immutable) })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct ArgMinMax {
    name: &'static str,
    max: bool,
    /// `argAndMin`/`argAndMax`: the result is the tuple (value, key).
    with_key: bool,
    signature: Signature,
}

impl ArgMinMax {
    fn new_accumulator(&self, args: &AccumulatorArgs, block_rule: bool) -> ArgAccumulator {
        let nullable = args.expr_fields.iter().any(|f| is_nullable_field(f));
        let key_type = ch_type_of_field(&args.expr_fields[1]);
        ArgAccumulator {
            max: self.max,
            value: None,
            key: None,
            value_type: args.expr_fields[0].data_type().clone(),
            key_type: args.expr_fields[1].data_type().clone(),
            fill_default: !nullable,
            unsigned_keys: key_type.base() == &ChType::UInt256,
            with_key: self.with_key.then(|| args.return_field.data_type().clone()),
            last_of_ties_in_block: block_rule && has_native_numeric_storage(&key_type),
        }
    }
}

/// Key types ClickHouse's `findExtreme{Min,Max}Index` serves (see the module comment).
fn has_native_numeric_storage(key: &ChType) -> bool {
    match key {
        ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 => true,
        ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 => true,
        ChType::Float32 | ChType::Float64 | ChType::Bool => true,
        ChType::Date | ChType::Date32 | ChType::DateTime(_) | ChType::DateTime64(..) => true,
        ChType::Enum8(_) | ChType::Enum16(_) => true,
        ChType::Decimal(precision, _) => *precision <= 18,
        _ => false,
    }
}

impl AggregateUDFImpl for ArgMinMax {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        Ok(granary_types::plain_arguments(arg_types))
    }
    fn return_type(&self, arg_types: &[DataType]) -> DfResult<DataType> {
        match arg_types.first() {
            Some(t) => Ok(t.clone()),
            None => internal_err!("argMin needs arguments"),
        }
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> DfResult<FieldRef> {
        Arity::exact(2).check(self.name, arg_fields.len())?;
        let nullable = arg_fields.iter().any(|f| is_nullable_field(f));
        let t = ch_type_of_field(&arg_fields[0]).strip_nullable().clone();
        let t = if nullable || arg_fields[0].data_type() == &DataType::Null { t.into_nullable() } else { t };
        let t = if self.with_key { ChType::Tuple(vec![("1".to_string(), t), ("2".to_string(), ch_type_of_field(&arg_fields[1]))]) } else { t };
        Ok(Arc::new(result_field(self.name, &t)))
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        Ok(vec![
            Arc::new(Field::new(format_state_name(args.name, "value"), args.input_fields[0].data_type().clone(), true)),
            Arc::new(Field::new(format_state_name(args.name, "key"), args.input_fields[1].data_type().clone(), true)),
        ])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        Ok(Box::new(self.new_accumulator(&args, true)))
    }
    fn groups_accumulator_supported(&self, _args: AccumulatorArgs) -> bool {
        true
    }
    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(ArgGroups { template: self.new_accumulator(&args, false), groups: Vec::new(), best_in_batch: Vec::new() }))
    }
}

#[derive(Debug, Clone)]
struct ArgAccumulator {
    max: bool,
    value: Option<ScalarValue>,
    key: Option<ScalarValue>,
    value_type: DataType,
    key_type: DataType,
    fill_default: bool,
    /// `UInt256` keys are compared (and kept) as their `unsigned_order_key`s.
    unsigned_keys: bool,
    /// `argAndMin`/`argAndMax`: the result's tuple type.
    with_key: Option<DataType>,
    /// Within one input batch, a tie goes to the last row unless the first row holds
    /// the extreme (see the module comment).
    last_of_ties_in_block: bool,
}

impl ArgAccumulator {
    fn is_better(&self, ord: std::cmp::Ordering) -> bool {
        if self.max {
            ord.is_gt()
        } else {
            ord.is_lt()
        }
    }

    /// Folds rows `(values[i], keys[i])` into the best pair, skipping NULL keys.
    fn fold(&mut self, values: &ArrayRef, keys: &ArrayRef, block_rule: bool) -> DfResult<()> {
        if keys.data_type() == &DataType::Null {
            return Ok(());
        }
        let keys = &UnsignedKeys(self.unsigned_keys).flip(std::slice::from_ref(keys))?[0];
        let cmp = datafusion::arrow::array::make_comparator(keys.as_ref(), keys.as_ref(), Default::default())?;
        let mut best: Option<usize> = None;
        for i in 0..keys.len() {
            if keys.is_null(i) {
                continue;
            }
            best = match best {
                Some(b) if !self.is_better(cmp(i, b)) => Some(b),
                _ => Some(i),
            };
        }
        let Some(mut best) = best else { return Ok(()) };
        if block_rule && self.last_of_ties_in_block && best != 0 {
            if let Some(last) = (best + 1..keys.len()).rev().find(|&i| !keys.is_null(i) && cmp(i, best).is_eq()) {
                best = last;
            }
        }
        self.offer(ScalarValue::try_from_array(keys, best)?, values, best)
    }

    /// Takes `(values[row], key)` if `key` is strictly better than the current one.
    fn offer(&mut self, key: ScalarValue, values: &ArrayRef, row: usize) -> DfResult<()> {
        let replace = match &self.key {
            None => true,
            Some(current) => key.partial_cmp(current).is_some_and(|ord| self.is_better(ord)),
        };
        if replace {
            self.key = Some(key);
            self.value = Some(ScalarValue::try_from_array(values, row)?);
        }
        Ok(())
    }
}

impl Accumulator for ArgAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        self.fold(&values[0], &values[1], true)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        self.fold(&states[0], &states[1], false)
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        Ok(vec![
            self.value.clone().map_or_else(|| ScalarValue::try_from(&self.value_type), Ok)?,
            UnsignedKeys(self.unsigned_keys).flip_scalars(vec![self.key.clone().map_or_else(|| ScalarValue::try_from(&self.key_type), Ok)?])?.remove(0),
        ])
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let value = match &self.value {
            Some(v) => v.clone(),
            None if self.fill_default && self.value_type != DataType::Null => ScalarValue::new_default(&self.value_type)?,
            None => ScalarValue::try_from(&self.value_type)?,
        };
        let Some(DataType::Struct(fields)) = &self.with_key else { return Ok(value) };
        let key = match &self.key {
            Some(k) => UnsignedKeys(self.unsigned_keys).flip_scalars(vec![k.clone()])?.remove(0),
            None => ScalarValue::new_default(&self.key_type)?,
        };
        let columns = [value, key]
            .into_iter()
            .zip(fields.iter())
            .map(|(v, f)| {
                let v = if &v.data_type() == f.data_type() { v } else { v.cast_to(f.data_type())? };
                v.to_array()
            })
            .collect::<DfResult<Vec<_>>>()?;
        Ok(ScalarValue::Struct(Arc::new(datafusion::arrow::array::StructArray::try_new(fields.clone(), columns, None)?)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self.value.as_ref().map_or(0, |v| v.size())
            + self.key.as_ref().map_or(0, |v| v.size())
    }
}

/// GROUP BY: one [`ArgAccumulator`] per group, fed only each batch's best row per group
/// (found with one comparator pass over the batch), so a batch costs one key comparison
/// per row and one scalar conversion per group it touches.
#[derive(Debug)]
struct ArgGroups {
    template: ArgAccumulator,
    groups: Vec<ArgAccumulator>,
    /// Per group, the best row of the current batch (`usize::MAX`: none yet); reset
    /// after each batch for the groups it touched only.
    best_in_batch: Vec<usize>,
}

impl ArgGroups {
    fn fold(&mut self, values: &ArrayRef, keys: &ArrayRef, group_indices: &[usize], filter: Option<&BooleanArray>, total_num_groups: usize) -> DfResult<()> {
        self.groups.resize_with(total_num_groups, || self.template.clone());
        self.best_in_batch.resize(total_num_groups, usize::MAX);
        if keys.data_type() == &DataType::Null {
            return Ok(());
        }
        let keys = &UnsignedKeys(self.template.unsigned_keys).flip(std::slice::from_ref(keys))?[0];
        let cmp = datafusion::arrow::array::make_comparator(keys.as_ref(), keys.as_ref(), Default::default())?;
        let mut touched = Vec::new();
        for (row, &group) in group_indices.iter().enumerate() {
            if keys.is_null(row) || filter.is_some_and(|f| !f.is_valid(row) || !f.value(row)) {
                continue;
            }
            let best = self.best_in_batch[group];
            if best == usize::MAX {
                touched.push(group);
                self.best_in_batch[group] = row;
            } else if self.template.is_better(cmp(row, best)) {
                self.best_in_batch[group] = row;
            }
        }
        for group in touched {
            let row = std::mem::replace(&mut self.best_in_batch[group], usize::MAX);
            self.groups[group].offer(ScalarValue::try_from_array(keys, row)?, values, row)?;
        }
        Ok(())
    }
}

impl GroupsAccumulator for ArgGroups {
    fn update_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], opt_filter: Option<&BooleanArray>, total_num_groups: usize) -> DfResult<()> {
        self.fold(&values[0], &values[1], group_indices, opt_filter, total_num_groups)
    }
    fn merge_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], total_num_groups: usize) -> DfResult<()> {
        self.fold(&values[0], &values[1], group_indices, None, total_num_groups)
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> DfResult<ArrayRef> {
        let results = emit_to.take_needed(&mut self.groups).iter_mut().map(Accumulator::evaluate).collect::<DfResult<Vec<_>>>()?;
        match self.template.with_key.clone() {
            Some(tuple) if results.is_empty() => Ok(datafusion::arrow::array::new_empty_array(&tuple)),
            _ if results.is_empty() => Ok(datafusion::arrow::array::new_empty_array(&self.template.value_type)),
            _ => Ok(ScalarValue::iter_to_array(results)?),
        }
    }
    fn state(&mut self, emit_to: EmitTo) -> DfResult<Vec<ArrayRef>> {
        let mut values = Vec::new();
        let mut keys = Vec::new();
        for group in emit_to.take_needed(&mut self.groups).iter_mut() {
            let mut state = group.state()?.into_iter();
            values.extend(state.next());
            keys.extend(state.next());
        }
        let column = |scalars: Vec<ScalarValue>, data_type: &DataType| -> DfResult<ArrayRef> {
            if scalars.is_empty() {
                Ok(datafusion::arrow::array::new_empty_array(data_type))
            } else {
                Ok(ScalarValue::iter_to_array(scalars)?)
            }
        };
        Ok(vec![column(values, &self.template.value_type)?, column(keys, &self.template.key_type)?])
    }
    /// Each row as a state of its own (when DataFusion skips partial aggregation): the
    /// row itself, with its key NULLed when the FILTER drops it.
    fn convert_to_state(&self, values: &[ArrayRef], opt_filter: Option<&BooleanArray>) -> DfResult<Vec<ArrayRef>> {
        let keys = match opt_filter {
            Some(filter) => {
                let dropped: BooleanArray = (0..filter.len()).map(|row| Some(!filter.is_valid(row) || !filter.value(row))).collect();
                datafusion::arrow::compute::nullif(&values[1], &dropped)?
            }
            None => values[1].clone(),
        };
        Ok(vec![values[0].clone(), keys])
    }
    fn size(&self) -> usize {
        self.groups.iter().map(Accumulator::size).sum::<usize>() + self.best_in_batch.capacity() * std::mem::size_of::<usize>()
    }
}
