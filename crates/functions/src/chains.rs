//! Combinator chains: any aggregate with any run of combinator suffixes
//! (`avgMap`, `sumArgMaxIf`, `quantileResampleState(0.5, 0, 10, 2)`), resolved per
//! query, and the combinators that only exist in chains: `-If` where it is not the
//! innermost one, `-Map`, `-ArgMin`/`-ArgMax` and `-Resample`.
//!
//! The registry holds every base aggregate with one wrapper (`sumState`,
//! [`crate::combinators::combined`]); longer chains would multiply that list, so a name
//! the registry does not know is split here into its base and suffixes, outermost
//! first, as ClickHouse's factory peels them, and built inside out: the innermost
//! wrapper gets the base, the next one that wrapper. The wrappers of
//! [`crate::combinators`] take part as they are; the ones below are [`Chained`]. A
//! chain's name is what ClickHouse prints for it, so its `-State` is typed
//! `AggregateFunction(sumArgMax, UInt64, UInt8)` and `-Merge` rebuilds the same chain
//! from the type. Their states are Granary's own bytes (the generic layout of
//! [`crate::states`]), not ClickHouse's.
//!
//! `-Resample(begin, end, step)` takes the last three parameters; the ones before go to
//! the function inside (`quantileResample(0.5, 0, 10, 2)` is `quantile(0.5)` per bucket).

use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{new_empty_array, Array, ArrayRef, AsArray, ListArray, MapArray, StructArray, UInt32Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{cast, filter, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Int64Type, UInt64Type};
use datafusion::common::ScalarValue;
use datafusion::functions_aggregate::min_max::{MaxAccumulator, MinAccumulator};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, DfResult};
use crate::combinators::{base_fields, cast_all, wrap, BaseCall, Comb};
use crate::func::{ch_type_of_field, result_field};

/// Every suffix a chain may hold, longest first where one ends another
/// (`MergeState` before `State`), as ClickHouse matches them.
const SUFFIXES: &[&str] = &[
    "MergeState", "SimpleState", "Resample", "OrDefault", "ArgMin", "ArgMax", "Distinct", "ForEach", "OrNull", "Merge", "State", "Array", "Map", "If",
];

/// The most buckets one `-Resample` may have (ClickHouse's sanity limit).
const MAX_RESAMPLE_BUCKETS: i128 = 1_048_576;

/// `name` (without parameters) split into a base aggregate and its combinator suffixes,
/// outermost first; `None` when it is no chain (no suffix, or no aggregate under them).
pub(crate) fn split(name: &str, is_base: &dyn Fn(&str) -> bool) -> Option<(String, Vec<&'static str>)> {
    let mut rest = name;
    let mut suffixes = Vec::new();
    while !is_base(rest) {
        let suffix = SUFFIXES.iter().find(|s| rest.len() > s.len() && rest.ends_with(**s))?;
        rest = &rest[..rest.len() - suffix.len()];
        suffixes.push(*suffix);
    }
    (!suffixes.is_empty()).then(|| (rest.to_string(), suffixes))
}

fn is_base(name: &str) -> bool {
    crate::combinators::is_base_aggregate(name) || crate::parametric::is_family(name)
}

/// Whether `function` (without parameters) names a combinator chain.
pub(crate) fn is_chain(function: &str) -> bool {
    split(function, &is_base).is_some()
}

/// The chain named `function` with parameters `params`, built inside out; `None` when
/// the name is no chain.
pub(crate) fn resolve(function: &str, params: &[ScalarValue]) -> DfResult<Option<Arc<AggregateUDF>>> {
    let Some((base, suffixes)) = split(function, &is_base) else { return Ok(None) };
    // Each `-Resample` keeps the last three parameters left by the combinators outside it.
    let mut left = params.len();
    let mut own: Vec<&[ScalarValue]> = Vec::with_capacity(suffixes.len());
    for suffix in &suffixes {
        if *suffix == "Resample" {
            if left < 3 {
                return Err(ch_error(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    format!("Incorrect number of parameters for aggregate function with Resample suffix: {function}"),
                ));
            }
            own.push(&params[left - 3..left]);
            left -= 3;
        } else {
            own.push(&[]);
        }
    }
    let mut udaf = crate::combinators::base_aggregate(&crate::parametric::parametric_name(&base, &params[..left]))?;
    let mut name = base;
    for (suffix, own) in suffixes.iter().zip(own).rev() {
        name.push_str(suffix);
        // A level's parameters: those of the function inside, then its own (which were
        // taken from the end, so they follow them).
        left += own.len();
        let full = crate::parametric::parametric_name(&name, &params[..left]);
        let comb = match *suffix {
            "MergeState" => Some(Comb::MergeState),
            "Merge" => Some(Comb::Merge),
            "SimpleState" => Some(Comb::SimpleState),
            "State" => Some(Comb::State),
            "OrNull" => Some(Comb::OrNull),
            "OrDefault" => Some(Comb::OrDefault),
            "Array" => Some(Comb::Array),
            "ForEach" => Some(Comb::ForEach),
            _ => None,
        };
        let next = match comb {
            Some(comb) => wrap(full, comb, udaf),
            None => {
                let step = match *suffix {
                    "If" => Step::If,
                    "Map" => Step::Map,
                    "ArgMin" => Step::ArgMin,
                    "ArgMax" => Step::ArgMax,
                    "Resample" => Step::Resample(Buckets::new(&full, own)?),
                    _ => {
                        return Err(ch_error(
                            ErrorCode::NOT_IMPLEMENTED,
                            format!("Combinator -{suffix} is only supported as the innermost combinator (in {function})"),
                        ))
                    }
                };
                AggregateUDF::new_from_impl(Chained { name: full, step, base: udaf, signature: Signature::user_defined(Volatility::Immutable) })
            }
        };
        udaf = Arc::new(next);
    }
    Ok(Some(udaf))
}

/// The buckets of a `-Resample`: keys in `[begin, end)`, `step` apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Buckets {
    begin: i128,
    end: i128,
    step: i128,
    count: usize,
}

impl Buckets {
    fn new(name: &str, params: &[ScalarValue]) -> DfResult<Buckets> {
        let int = |v: &ScalarValue| -> DfResult<i128> {
            match v {
                ScalarValue::UInt64(Some(n)) => Ok(*n as i128),
                ScalarValue::Int64(Some(n)) => Ok(*n as i128),
                other => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Parameter {other} of aggregate function {name} must be an integer"))),
            }
        };
        let (begin, end, step) = (int(&params[0])?, int(&params[1])?, int(&params[2])?);
        if step <= 0 {
            return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("The step given in function {name} should not be zero")));
        }
        let count = if end < begin { 0 } else { (end - begin + step - 1) / step };
        if count > MAX_RESAMPLE_BUCKETS {
            return Err(ch_error(ErrorCode::ARGUMENT_OUT_OF_BOUND, format!("The range given in function {name} contains too many elements")));
        }
        Ok(Buckets { begin, end, step, count: count as usize })
    }

    fn bucket(&self, key: i128) -> Option<usize> {
        (key >= self.begin && key < self.end).then(|| ((key - self.begin) / self.step) as usize)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Step {
    /// `-If` outside another combinator: the last argument is the condition.
    If,
    /// `fMap(m)`: `f` of each key's values, a map sorted by key.
    Map,
    /// `fArgMin(args..., key)`: `f` of the rows with the smallest key.
    ArgMin,
    ArgMax,
    /// `fResample(begin, end, step)(args..., key)`: `f` of each bucket of keys.
    Resample(Buckets),
}

struct Chained {
    name: String,
    step: Step,
    base: Arc<AggregateUDF>,
    signature: Signature,
}

impl fmt::Debug for Chained {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Chained({})", self.name)
    }
}
impl PartialEq for Chained {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for Chained {}
impl Hash for Chained {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl Chained {
    /// The argument fields the function inside runs on.
    fn nested_inputs(&self, args: &[FieldRef]) -> DfResult<Vec<FieldRef>> {
        match self.step {
            Step::Map => {
                if args.len() != 1 {
                    return Err(ch_error(
                        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                        format!("Aggregate function {} requires one map argument, but {} found", self.name, args.len()),
                    ));
                }
                match ch_type_of_field(&args[0]) {
                    ChType::Map(_, value) => Ok(base_fields(&self.base, &[*value])),
                    _ => Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {} requires map as argument", self.name))),
                }
            }
            _ => {
                let Some((last, rest)) = args.split_last() else {
                    return Err(ch_error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Incorrect number of arguments for aggregate function {}", self.name)));
                };
                let last_type = ch_type_of_field(last);
                match (self.step, last_type.strip_nullable()) {
                    // Bare integer literals are Int64 here (`[c, 1]`): any integer is a condition.
                    (Step::If, t) if t == &ChType::Bool || crate::args::is_integer(&t.to_arrow()) => {}
                    (Step::If, other) => {
                        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {other} of last argument for aggregate function with If suffix")))
                    }
                    (Step::Resample(_), t) if !crate::args::is_integer(&t.to_arrow()) => {
                        return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {last_type} of argument for aggregate function {}", self.name)))
                    }
                    _ => {}
                }
                // A function of no arguments inside (`countArgMax(key)`) is given the
                // last column, whose rows it then counts.
                let given = if rest.is_empty() { std::slice::from_ref(last) } else { rest };
                let types: Vec<ChType> = given.iter().map(|f| ch_type_of_field(f)).collect();
                Ok(base_fields(&self.base, &types))
            }
        }
    }

    fn result_type(&self, args: &[FieldRef]) -> DfResult<ChType> {
        let inputs = self.nested_inputs(args)?;
        let nested = ch_type_of_field(self.base.return_field(&inputs)?.as_ref());
        Ok(match self.step {
            Step::If | Step::ArgMin | Step::ArgMax => nested,
            Step::Resample(_) => ChType::Array(Box::new(nested)),
            Step::Map => match ch_type_of_field(&args[0]) {
                ChType::Map(key, _) => ChType::Map(key, Box::new(nested)),
                _ => return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {} requires map as argument", self.name))),
            },
        })
    }
}

/// Makes a fresh accumulator of the function inside.
type NewAccumulator = Arc<dyn Fn() -> DfResult<Box<dyn Accumulator>> + Send + Sync>;

impl AggregateUDFImpl for Chained {
    fn name(&self) -> &str {
        &self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        Ok(granary_types::plain_arguments(arg_types))
    }
    fn return_type(&self, arg_types: &[DataType]) -> DfResult<DataType> {
        let fields: Vec<FieldRef> = arg_types.iter().map(|t| Arc::new(Field::new("", t.clone(), true))).collect();
        Ok(self.return_field(&fields)?.data_type().clone())
    }
    fn return_field(&self, arg_fields: &[FieldRef]) -> DfResult<FieldRef> {
        Ok(Arc::new(result_field(&self.name, &self.result_type(arg_fields)?)))
    }
    fn is_nullable(&self) -> bool {
        matches!(self.step, Step::If | Step::ArgMin | Step::ArgMax) && self.base.is_nullable()
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        let inputs = self.nested_inputs(args.input_fields)?;
        let nested = self.base.state_fields(StateFieldsArgs {
            name: args.name,
            input_fields: &inputs,
            return_field: self.base.return_field(&inputs)?,
            ordering_fields: args.ordering_fields,
            is_distinct: false,
        })?;
        let list_of = |f: &FieldRef| -> FieldRef { Arc::new(Field::new(f.name(), DataType::List(Arc::new(Field::new_list_field(f.data_type().clone(), true))), true)) };
        Ok(match self.step {
            Step::If => nested,
            Step::ArgMin | Step::ArgMax => {
                let key = args.input_fields.last().map_or(DataType::Null, |f| f.data_type().clone());
                nested.into_iter().chain([Arc::new(Field::new(format!("{}[key]", args.name), key, true))]).collect()
            }
            Step::Resample(_) => nested.iter().map(list_of).collect(),
            Step::Map => {
                let DataType::Map(entries, _) = args.input_fields[0].data_type() else {
                    return Err(ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Aggregate function {} requires map as argument", self.name)));
                };
                let DataType::Struct(kv) = entries.data_type() else {
                    return Err(ch_error(ErrorCode::LOGICAL_ERROR, "map entries are not a struct"));
                };
                let keys = Arc::new(Field::new(format!("{}[keys]", args.name), kv[0].data_type().clone(), true));
                std::iter::once(list_of(&keys)).chain(nested.iter().map(list_of)).collect()
            }
        })
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let inputs = self.nested_inputs(args.expr_fields)?;
        let call = Arc::new(BaseCall::new(&self.base, &inputs)?);
        let new_nested: NewAccumulator = {
            let (base, call) = (Arc::clone(&self.base), Arc::clone(&call));
            Arc::new(move || call.accumulator(&base, false))
        };
        let input_types: Vec<DataType> = inputs.iter().map(|f| f.data_type().clone()).collect();
        let state_types: Vec<DataType> = crate::combinators::state_types(&self.base, &inputs)?.iter().map(|f| f.data_type().clone()).collect();
        let ret = Arc::clone(&args.return_field);
        Ok(match self.step {
            Step::If => Box::new(IfAccumulator { inner: new_nested()?, input_types, ret }),
            Step::ArgMin | Step::ArgMax => Box::new(ArgAccumulator {
                max: self.step == Step::ArgMax,
                inner: new_nested()?,
                new_nested,
                best: None,
                key_type: args.expr_fields.last().map_or(DataType::Null, |f| f.data_type().clone()),
                input_types,
                ret,
            }),
            Step::Resample(buckets) => Box::new(ResampleAccumulator {
                buckets: (0..buckets.count).map(|_| new_nested()).collect::<DfResult<_>>()?,
                range: buckets,
                input_types,
                state_types,
                ret,
            }),
            Step::Map => Box::new(MapAccumulator { new_nested, keys: Vec::new(), index: HashMap::new(), input_types, state_types, ret }),
        })
    }
}

/// The last column, and the columns the function inside takes: the others, or the last
/// one itself when there are none (see `Chained::nested_inputs`).
fn split_key(values: &[ArrayRef]) -> Option<(&ArrayRef, &[ArrayRef])> {
    let (last, rest) = values.split_last()?;
    Some((last, if rest.is_empty() { std::slice::from_ref(last) } else { rest }))
}

/// `value` as the type `to`, unless it is that already.
fn cast_scalar(value: ScalarValue, to: &DataType) -> DfResult<ScalarValue> {
    if &value.data_type() == to {
        Ok(value)
    } else {
        value.cast_to(to)
    }
}

#[derive(Debug)]
struct IfAccumulator {
    inner: Box<dyn Accumulator>,
    input_types: Vec<DataType>,
    ret: FieldRef,
}

impl Accumulator for IfAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        let Some((condition, args)) = split_key(values) else { return Ok(()) };
        // A NULL condition is false; `filter` drops rows whose predicate is NULL.
        let condition = cast(condition, &DataType::Boolean)?;
        let keep = condition.as_boolean();
        let args = args.iter().map(|a| filter(a.as_ref(), keep)).collect::<Result<Vec<_>, _>>()?;
        self.inner.update_batch(&cast_all(&args, &self.input_types)?)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        self.inner.merge_batch(states)
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        self.inner.state()
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        cast_scalar(self.inner.evaluate()?, self.ret.data_type())
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.inner.size()
    }
}

/// `-ArgMin`/`-ArgMax`: the function inside sees only the rows whose key equals the
/// best key so far, and starts over when a better one comes (as ClickHouse destroys and
/// recreates the nested state).
struct ArgAccumulator {
    max: bool,
    inner: Box<dyn Accumulator>,
    new_nested: NewAccumulator,
    /// The best key met; `None` before any row with a key.
    best: Option<ScalarValue>,
    key_type: DataType,
    input_types: Vec<DataType>,
    ret: FieldRef,
}

impl fmt::Debug for ArgAccumulator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ArgAccumulator({:?})", self.best)
    }
}

impl ArgAccumulator {
    /// Whether `key` beats the best key so far; equal keys do not.
    fn better(&self, key: &ScalarValue) -> bool {
        match &self.best {
            None => true,
            Some(best) => match key.partial_cmp(best) {
                Some(std::cmp::Ordering::Greater) => self.max,
                Some(std::cmp::Ordering::Less) => !self.max,
                _ => false,
            },
        }
    }

    /// Takes `key` as the best one when it is better (a fresh nested state) and says
    /// whether rows with that key belong to the aggregate.
    fn offer(&mut self, key: ScalarValue) -> DfResult<bool> {
        if key.is_null() {
            return Ok(false);
        }
        if self.better(&key) {
            self.inner = (self.new_nested)()?;
            self.best = Some(key);
            return Ok(true);
        }
        Ok(self.best.as_ref() == Some(&key))
    }
}

impl Accumulator for ArgAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        let Some((keys, args)) = split_key(values) else { return Ok(()) };
        if keys.len() == keys.null_count() {
            return Ok(());
        }
        let batch_best = if self.max {
            let mut m = MaxAccumulator::try_new(keys.data_type())?;
            m.update_batch(std::slice::from_ref(keys))?;
            m.evaluate()?
        } else {
            let mut m = MinAccumulator::try_new(keys.data_type())?;
            m.update_batch(std::slice::from_ref(keys))?;
            m.evaluate()?
        };
        if !self.offer(batch_best.clone())? {
            return Ok(());
        }
        let target = batch_best.to_scalar()?;
        let keep = datafusion::arrow::compute::kernels::cmp::eq(keys, &target)?;
        let args = args.iter().map(|a| filter(a.as_ref(), &keep)).collect::<Result<Vec<_>, _>>()?;
        self.inner.update_batch(&cast_all(&args, &self.input_types)?)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let Some((keys, nested)) = states.split_last() else { return Ok(()) };
        for row in 0..keys.len() {
            if self.offer(ScalarValue::try_from_array(keys, row)?)? {
                let slices: Vec<ArrayRef> = nested.iter().map(|s| s.slice(row, 1)).collect();
                self.inner.merge_batch(&slices)?;
            }
        }
        Ok(())
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        let mut state = self.inner.state()?;
        state.push(match &self.best {
            Some(best) => best.clone(),
            None => ScalarValue::try_from(&self.key_type)?,
        });
        Ok(state)
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        cast_scalar(self.inner.evaluate()?, self.ret.data_type())
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.inner.size()
    }
}

/// The states of `accumulators` as one list per state field (`-Resample`, `-Map`).
fn states_as_lists<'a>(accumulators: impl Iterator<Item = &'a mut Box<dyn Accumulator>>, state_types: &[DataType]) -> DfResult<Vec<ScalarValue>> {
    let states = accumulators.map(|a| a.state()).collect::<DfResult<Vec<_>>>()?;
    state_types
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let values = states
                .iter()
                .map(|s| s.get(k).cloned().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, "state of unexpected width")).and_then(|v| cast_scalar(v, t)))
                .collect::<DfResult<Vec<_>>>()?;
            Ok(ScalarValue::List(ScalarValue::new_list_nullable(&values, t)))
        })
        .collect()
}

fn as_list<'a>(array: &'a ArrayRef, name: &str) -> DfResult<&'a ListArray> {
    array.as_list_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, format!("the state of {name} is not a list")))
}

/// Rows of `columns` gathered per target, each target's rows taken at once.
fn update_each<'a>(
    targets: impl Iterator<Item = &'a mut Box<dyn Accumulator>>,
    columns: &[ArrayRef],
    rows_of: &[Vec<u32>],
    types: &[DataType],
    merge: bool,
) -> DfResult<()> {
    for (target, rows) in targets.zip(rows_of) {
        if rows.is_empty() {
            continue;
        }
        let indices = UInt32Array::from(rows.clone());
        let taken = columns.iter().map(|c| take(c.as_ref(), &indices, None)).collect::<Result<Vec<_>, _>>()?;
        let taken = cast_all(&taken, types)?;
        if merge {
            target.merge_batch(&taken)?;
        } else {
            target.update_batch(&taken)?;
        }
    }
    Ok(())
}

#[derive(Debug)]
struct ResampleAccumulator {
    range: Buckets,
    buckets: Vec<Box<dyn Accumulator>>,
    input_types: Vec<DataType>,
    state_types: Vec<DataType>,
    ret: FieldRef,
}

impl Accumulator for ResampleAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        let Some((keys, args)) = split_key(values) else { return Ok(()) };
        let keys: Vec<Option<i128>> = if crate::args::is_signed_int(keys.data_type()) {
            cast(keys, &DataType::Int64)?.as_primitive::<Int64Type>().iter().map(|k| k.map(i128::from)).collect()
        } else {
            cast(keys, &DataType::UInt64)?.as_primitive::<UInt64Type>().iter().map(|k| k.map(i128::from)).collect()
        };
        let mut rows_of: Vec<Vec<u32>> = vec![Vec::new(); self.buckets.len()];
        for (row, key) in keys.iter().enumerate() {
            if let Some(bucket) = key.and_then(|k| self.range.bucket(k)) {
                rows_of[bucket].push(row as u32);
            }
        }
        update_each(self.buckets.iter_mut(), args, &rows_of, &self.input_types, false)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let lists = states.iter().map(|s| as_list(s, "-Resample")).collect::<DfResult<Vec<_>>>()?;
        let Some(first) = lists.first() else { return Ok(()) };
        let mut rows_of: Vec<Vec<u32>> = vec![Vec::new(); self.buckets.len()];
        for row in (0..first.len()).filter(|&r| first.is_valid(r)) {
            let start = first.value_offsets()[row] as usize;
            for (bucket, rows) in rows_of.iter_mut().enumerate().take(first.value_length(row) as usize) {
                rows.push((start + bucket) as u32);
            }
        }
        let values: Vec<ArrayRef> = lists.iter().map(|l| Arc::clone(l.values())).collect();
        update_each(self.buckets.iter_mut(), &values, &rows_of, &self.state_types, true)
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        states_as_lists(self.buckets.iter_mut(), &self.state_types)
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let DataType::List(element) = self.ret.data_type() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "-Resample returns an array"));
        };
        let values = self.buckets.iter_mut().map(|a| cast_scalar(a.evaluate()?, element.data_type())).collect::<DfResult<Vec<_>>>()?;
        Ok(ScalarValue::List(ScalarValue::new_list(&values, element.data_type(), element.is_nullable())))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.buckets.iter().map(|a| a.size()).sum::<usize>()
    }
}

/// `-Map`: one state of the function inside per key met.
struct MapAccumulator {
    new_nested: NewAccumulator,
    /// The keys in the order met, with their states.
    keys: Vec<(ScalarValue, Box<dyn Accumulator>)>,
    index: HashMap<ScalarValue, usize>,
    input_types: Vec<DataType>,
    state_types: Vec<DataType>,
    ret: FieldRef,
}

impl fmt::Debug for MapAccumulator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MapAccumulator({} keys)", self.keys.len())
    }
}

impl MapAccumulator {
    /// The rows of `keys` (those `valid` accepts) grouped by key, new keys added.
    fn group(&mut self, keys: &ArrayRef, valid: impl Fn(usize) -> bool) -> DfResult<Vec<Vec<u32>>> {
        let mut rows_of: Vec<Vec<u32>> = vec![Vec::new(); self.keys.len()];
        for i in (0..keys.len()).filter(|&i| valid(i)) {
            let key = ScalarValue::try_from_array(keys, i)?;
            let at = match self.index.get(&key) {
                Some(&at) => at,
                None => {
                    self.keys.push((key.clone(), (self.new_nested)()?));
                    self.index.insert(key, self.keys.len() - 1);
                    rows_of.push(Vec::new());
                    self.keys.len() - 1
                }
            };
            rows_of[at].push(i as u32);
        }
        Ok(rows_of)
    }

    fn apply(&mut self, columns: &[ArrayRef], rows_of: &[Vec<u32>], merge: bool) -> DfResult<()> {
        let types = if merge { &self.state_types } else { &self.input_types };
        update_each(self.keys.iter_mut().map(|(_, acc)| acc), columns, rows_of, types, merge)
    }
}

impl Accumulator for MapAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        let map = values[0].as_map_opt().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "-Map combinator expects a map"))?;
        // Only the entries of this batch's valid rows: a sliced batch shares the entries
        // of the whole column.
        let mut valid = vec![false; map.entries().len()];
        for row in (0..map.len()).filter(|&r| map.is_valid(r)) {
            let offsets = map.value_offsets();
            valid[offsets[row] as usize..offsets[row + 1] as usize].fill(true);
        }
        let rows_of = self.group(map.keys(), |i| valid[i])?;
        self.apply(std::slice::from_ref(map.values()), &rows_of, false)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let lists = states.iter().map(|s| as_list(s, "-Map")).collect::<DfResult<Vec<_>>>()?;
        let Some((keys, nested)) = lists.split_first() else { return Ok(()) };
        let mut valid = vec![false; keys.values().len()];
        for row in (0..keys.len()).filter(|&r| keys.is_valid(r)) {
            let offsets = keys.value_offsets();
            valid[offsets[row] as usize..offsets[row + 1] as usize].fill(true);
        }
        let rows_of = self.group(keys.values(), |i| valid[i])?;
        let values: Vec<ArrayRef> = nested.iter().map(|l| Arc::clone(l.values())).collect();
        self.apply(&values, &rows_of, true)
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        let key_type = match self.ret.data_type() {
            DataType::Map(entries, _) => match entries.data_type() {
                DataType::Struct(kv) => kv[0].data_type().clone(),
                _ => DataType::Null,
            },
            _ => DataType::Null,
        };
        let keys: Vec<ScalarValue> = self.keys.iter().map(|(k, _)| k.clone()).collect();
        let mut out = vec![ScalarValue::List(ScalarValue::new_list_nullable(&keys, &key_type))];
        let states = states_as_lists(self.keys.iter_mut().map(|(_, acc)| acc), &self.state_types);
        out.extend(states?);
        Ok(out)
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let DataType::Map(entries, _) = self.ret.data_type() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "-Map returns a map"));
        };
        let DataType::Struct(kv) = entries.data_type() else {
            return Err(ch_error(ErrorCode::LOGICAL_ERROR, "map entries are not a struct"));
        };
        // ClickHouse writes the keys sorted.
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        order.sort_by(|&a, &b| self.keys[a].0.partial_cmp(&self.keys[b].0).unwrap_or(std::cmp::Ordering::Equal));
        let mut keys = Vec::with_capacity(order.len());
        let mut values = Vec::with_capacity(order.len());
        for &at in &order {
            let (key, acc) = &mut self.keys[at];
            keys.push(cast_scalar(key.clone(), kv[0].data_type())?);
            values.push(cast_scalar(acc.evaluate()?, kv[1].data_type())?);
        }
        map_scalar(self.ret.data_type(), keys, values)
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.keys.iter().map(|(k, a)| k.size() + a.size()).sum::<usize>()
    }
}

/// A one-row map of type `map_type` holding `keys` and `values` (of its key and value types).
pub(crate) fn map_scalar(map_type: &DataType, keys: Vec<ScalarValue>, values: Vec<ScalarValue>) -> DfResult<ScalarValue> {
    let DataType::Map(entries, sorted) = map_type else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, format!("{map_type} is not a map")));
    };
    let DataType::Struct(kv) = entries.data_type() else {
        return Err(ch_error(ErrorCode::LOGICAL_ERROR, "map entries are not a struct"));
    };
    let to_array = |v: Vec<ScalarValue>, t: &DataType| -> DfResult<ArrayRef> {
        if v.is_empty() {
            Ok(new_empty_array(t))
        } else {
            ScalarValue::iter_to_array(v)
        }
    };
    let key_array = cast(&to_array(keys, kv[0].data_type())?, kv[0].data_type())?;
    let value_array = cast(&to_array(values, kv[1].data_type())?, kv[1].data_type())?;
    let len = key_array.len();
    let entries_array = StructArray::try_new(kv.clone(), vec![key_array, value_array], None)?;
    let map = MapArray::try_new(Arc::clone(entries), OffsetBuffer::from_lengths([len]), entries_array, None, *sorted)?;
    Ok(ScalarValue::Map(Arc::new(map)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn splits_chains_outermost_first() {
        let base = |n: &str| matches!(n, "sum" | "avg" | "sumMap" | "quantile");
        assert_eq!(split("avgMap", &base), Some(("avg".to_string(), vec!["Map"])));
        assert_eq!(split("sumArgMaxIf", &base), Some(("sum".to_string(), vec!["If", "ArgMax"])));
        assert_eq!(split("sumMapArgMax", &base), Some(("sumMap".to_string(), vec!["ArgMax"])));
        assert_eq!(split("quantileResampleMergeState", &base), Some(("quantile".to_string(), vec!["MergeState", "Resample"])));
        assert_eq!(split("sum", &base), None);
        assert_eq!(split("fooMap", &base), None);
    }

    #[test]
    fn resample_buckets() {
        let p = |a: i64, b: i64, c: i64| vec![ScalarValue::Int64(Some(a)), ScalarValue::Int64(Some(b)), ScalarValue::Int64(Some(c))];
        let b = Buckets::new("sumResample", &p(0, 10, 3)).unwrap();
        assert_eq!(b.count, 4);
        assert_eq!((b.bucket(9), b.bucket(10), b.bucket(-1)), (Some(3), None, None));
        assert_eq!(Buckets::new("f", &p(5, 0, 1)).unwrap().count, 0);
        assert!(Buckets::new("f", &p(0, 10, 0)).is_err());
    }
}
