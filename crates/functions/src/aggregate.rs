//! Aggregate functions with ClickHouse result types: `count`, `sum`, `avg`, `min`,
//! `max`, `any`, `anyLast`, `argMin`, `argMax`, `uniqExact`, `groupArray` (`uniq` is
//! in [`crate::uniq`]).
//!
//! Most of them wrap DataFusion's own implementations ([`Wrapped`]), so DataFusion's
//! fast accumulators, `GroupsAccumulator`s, skip-partial aggregation and statistics
//! shortcuts (`SELECT count() FROM t` answered from metadata) keep working; the
//! wrapper only changes what users see:
//! * result types: `count`/`uniqExact` are `UInt64` (DataFusion: Int64); `sum` widens
//!   to `Int64`/`UInt64`/`Float64`/`Decimal(38, S)`; `avg` is `Float64`;
//! * empty input: a non-`Nullable` argument gives the type's default (`sum` 0, `min`
//!   0/''/1970-01-01, `avg` nan, `groupArray` []), a `Nullable` one gives NULL, as in
//!   ClickHouse (DataFusion always gives NULL);
//! * `any`/`anyLast` skip NULLs (DataFusion's `first_value` IGNORE NULLS),
//!   `groupArray` skips NULLs, `uniqExact` is `count(DISTINCT)`.
//!
//! `count` keeps the name `count`, so DataFusion's planner still rewrites `count()`
//! and `count(*)` into `count(1)`. `argMin`/`argMax` have their own accumulator.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{new_empty_array, Array, ArrayRef, AsArray, BooleanArray, ListArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::kernels::zip::zip;
use datafusion::arrow::compute::{cast, is_not_null};
use datafusion::arrow::datatypes::{DataType, Decimal256Type, Field, FieldRef};
use datafusion::common::{internal_err, DataFusionError, ScalarValue};
use datafusion::functions_aggregate::{array_agg, average, bit_and_or_xor, count, first_last, min_max, sum};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, EmitTo, GroupsAccumulator, ReversedUDAF, Signature, StatisticsArgs,
    Volatility,
};
use granary_types::wide::{unsigned_order_key, unsigned_order_keys, WideInt};
use granary_types::ChType;

use crate::args::{illegal_type, is_decimal, is_float, is_integer, is_signed_int, Arity, DfResult};
use crate::func::{ch_type_of_field, is_nullable_field, result_field};

/// Which ClickHouse aggregate a [`Wrapped`] implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Count,
    Uniq,
    Sum,
    Avg,
    Min,
    Max,
    Any,
    AnyLast,
    /// `any_respect_nulls`/`anyLast_respect_nulls`: the first/last row's value, NULL included.
    AnyRespectNulls,
    AnyLastRespectNulls,
    GroupArray,
    /// `groupBitOr`/`Xor`: the argument's integer type, 0 for no rows.
    Bitwise,
    /// `groupBitAnd`: as [`Kind::Bitwise`], but all bits set for no rows (ClickHouse starts from `~0`).
    BitAnd,
}

/// The value of integer type `dt` with every bit set (`groupBitAnd` of no rows).
pub(crate) fn all_bits_set(dt: &DataType) -> Option<ScalarValue> {
    Some(match dt {
        DataType::UInt8 => ScalarValue::UInt8(Some(u8::MAX)),
        DataType::UInt16 => ScalarValue::UInt16(Some(u16::MAX)),
        DataType::UInt32 => ScalarValue::UInt32(Some(u32::MAX)),
        DataType::UInt64 => ScalarValue::UInt64(Some(u64::MAX)),
        DataType::Int8 => ScalarValue::Int8(Some(-1)),
        DataType::Int16 => ScalarValue::Int16(Some(-1)),
        DataType::Int32 => ScalarValue::Int32(Some(-1)),
        DataType::Int64 => ScalarValue::Int64(Some(-1)),
        _ => return None,
    })
}

/// A ClickHouse aggregate on top of a DataFusion one.
struct Wrapped {
    name: &'static str,
    kind: Kind,
    inner: Arc<AggregateUDF>,
    signature: Signature,
}

impl fmt::Debug for Wrapped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Wrapped({})", self.name)
    }
}
impl PartialEq for Wrapped {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for Wrapped {}
impl Hash for Wrapped {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl Wrapped {
    fn new(name: &'static str, kind: Kind, inner: Arc<AggregateUDF>) -> Self {
        Wrapped { name, kind, inner, signature: Signature::user_defined(Volatility::Immutable) }
    }

    fn arity(&self) -> Arity {
        match self.kind {
            Kind::Count => Arity::range(0, 1),
            _ => Arity::exact(1),
        }
    }

    /// The argument type DataFusion's implementation computes on.
    fn coerce(&self, t: &DataType) -> DataType {
        match self.kind {
            Kind::Sum => match t {
                t if is_signed_int(t) => DataType::Int64,
                t if is_integer(t) || t == &DataType::Boolean => DataType::UInt64,
                t if is_float(t) => DataType::Float64,
                other => other.clone(),
            },
            Kind::Avg if is_integer(t) || is_float(t) || is_decimal(t) || t == &DataType::Boolean => DataType::Float64,
            _ => t.clone(),
        }
    }

    /// ClickHouse's result type for an argument of type `arg`.
    fn ch_result(&self, arg: &FieldRef) -> DfResult<ChType> {
        let nullable = is_nullable_field(arg);
        let dt = arg.data_type();
        let base = match self.kind {
            Kind::Count | Kind::Uniq => return Ok(ChType::UInt64),
            Kind::GroupArray => {
                let t = ch_type_of_field(arg);
                let inner = match t {
                    ChType::Nullable(inner) => *inner,
                    other => other,
                };
                return Ok(ChType::Array(Box::new(inner)));
            }
            _ if dt == &DataType::Null => return Ok(ChType::Nullable(Box::new(ChType::Nothing))),
            // `sum(Int128)` is Int128 (wrapping), as in ClickHouse.
            Kind::Sum if WideInt::of(ch_type_of_field(arg).base()).is_some() => ch_type_of_field(arg).base().clone(),
            Kind::Sum => match dt {
                t if is_signed_int(t) => ChType::Int64,
                t if is_integer(t) || t == &DataType::Boolean => ChType::UInt64,
                t if is_float(t) => ChType::Float64,
                DataType::Decimal128(_, s) => ChType::Decimal(38, (*s).max(0) as u8),
                DataType::Decimal256(_, s) => ChType::Decimal(76, (*s).max(0) as u8),
                _ => return Err(illegal_type(self.name, 0, arg)),
            },
            Kind::Avg => {
                if !(is_integer(dt) || is_float(dt) || is_decimal(dt) || dt == &DataType::Boolean) {
                    return Err(illegal_type(self.name, 0, arg));
                }
                ChType::Float64
            }
            Kind::Min | Kind::Max | Kind::Any | Kind::AnyLast | Kind::AnyRespectNulls | Kind::AnyLastRespectNulls => {
                ch_type_of_field(arg).strip_nullable().clone()
            }
            Kind::Bitwise | Kind::BitAnd if is_integer(dt) => ch_type_of_field(arg).strip_nullable().clone(),
            Kind::Bitwise | Kind::BitAnd => return Err(illegal_type(self.name, 0, arg)),
        };
        Ok(if nullable { base.into_nullable() } else { base })
    }

    fn inner_field(&self, args: &[FieldRef]) -> DfResult<FieldRef> {
        let coerced: Vec<FieldRef> =
            args.iter().map(|f| Arc::new(f.as_ref().clone().with_data_type(self.coerce(f.data_type())))).collect();
        self.inner.return_field(&coerced)
    }

    fn inner_args<'a>(&self, args: &AccumulatorArgs<'a>) -> DfResult<AccumulatorArgs<'a>> {
        let mut a = args.clone();
        a.return_field = self.inner_field(args.expr_fields)?;
        match self.kind {
            Kind::Uniq => a.is_distinct = true,
            Kind::Any | Kind::AnyLast | Kind::GroupArray => a.ignore_nulls = true,
            _ => {}
        }
        Ok(a)
    }

    fn output(&self, args: &AccumulatorArgs) -> DfResult<Output> {
        let arg_nullable = args.expr_fields.first().is_some_and(|f| is_nullable_field(f));
        Ok(Output { kind: self.kind, ret: Arc::clone(&args.return_field), fill_default: !arg_nullable })
    }
}

/// How a wrapped aggregate's final values are turned into ClickHouse's.
#[derive(Debug, Clone)]
struct Output {
    kind: Kind,
    ret: FieldRef,
    /// Replace NULL (no rows) with the type's default (non-Nullable argument).
    fill_default: bool,
}

impl Output {
    fn map(&self, array: ArrayRef) -> DfResult<ArrayRef> {
        let target = self.ret.data_type();
        let mut out = match self.kind {
            Kind::GroupArray => return self.group_array(array),
            // DataFusion sums UInt128 in a wider decimal: wrapped back into 128 bits.
            _ if array.data_type() != target => match WideInt::of(ch_type_of_field(&self.ret).base()) {
                Some(kind) => kind.narrow(&kind.widen(array.as_ref()).map_err(|e| DataFusionError::External(Box::new(e)))?),
                None => cast(&array, target)?,
            },
            _ => array,
        };
        if self.fill_default && out.null_count() > 0 && target != &DataType::Null {
            let default = match self.kind {
                Kind::Avg => ScalarValue::Float64(Some(f64::NAN)),
                Kind::BitAnd => all_bits_set(target).map_or_else(|| ScalarValue::new_default(target), Ok)?,
                _ => ScalarValue::new_default(target)?,
            };
            let default = default.to_array_of_size(out.len())?;
            let default = if default.data_type() != target { cast(&default, target)? } else { default };
            out = zip(&is_not_null(&out)?, &out, &default)?;
        }
        Ok(out)
    }

    /// NULL (no values) becomes `[]`; items are non-Nullable like ClickHouse's.
    fn group_array(&self, array: ArrayRef) -> DfResult<ArrayRef> {
        let item = match self.ret.data_type() {
            DataType::List(f) => Arc::clone(f),
            _ => return internal_err!("groupArray must return a list"),
        };
        let list = match array.data_type() {
            DataType::List(_) => array.as_list::<i32>().clone(),
            DataType::Null => {
                let offsets = OffsetBuffer::new_zeroed(array.len());
                return Ok(Arc::new(ListArray::try_new(item.clone(), offsets, new_empty_array(item.data_type()), None)?));
            }
            other => return internal_err!("unexpected groupArray state {other}"),
        };
        let (_, offsets, values, _) = list.into_parts();
        let values = if values.data_type() != item.data_type() { cast(&values, item.data_type())? } else { values };
        // NULL lists have equal offsets, so dropping the null buffer leaves `[]`.
        Ok(Arc::new(ListArray::try_new(item, offsets, values, None)?))
    }

    fn map_scalar(&self, value: ScalarValue) -> DfResult<ScalarValue> {
        let array = value.to_array_of_size(1)?;
        let out = self.map(array)?;
        // A list is wrapped as it is: `try_from_array` would rebuild its item field and
        // drop the element's ClickHouse type (`Array(Date)` would become `Array(Date32)`).
        match out.data_type() {
            DataType::List(_) => Ok(ScalarValue::List(Arc::new(out.as_list::<i32>().clone()))),
            _ => ScalarValue::try_from_array(&out, 0),
        }
    }
}

/// Whether an accumulator orders `UInt256` values: it then sees their
/// [`unsigned_order_key`]s (which Arrow orders as the unsigned values), and its states
/// and results are turned back into the values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UnsignedKeys(pub(crate) bool);

impl UnsignedKeys {
    fn of(kind: Kind, args: &AccumulatorArgs) -> Self {
        let orders = matches!(kind, Kind::Min | Kind::Max);
        UnsignedKeys(orders && args.expr_fields.first().is_some_and(|f| ch_type_of_field(f).base() == &ChType::UInt256))
    }

    /// Flips the first column (the ordered one; the key is its own inverse).
    pub(crate) fn flip(self, arrays: &[ArrayRef]) -> DfResult<Vec<ArrayRef>> {
        let mut out = arrays.to_vec();
        if let Some(first) = out.first_mut().filter(|_| self.0) {
            if let DataType::Decimal256(..) = first.data_type() {
                *first = Arc::new(unsigned_order_keys(first.as_primitive::<Decimal256Type>()));
            }
        }
        Ok(out)
    }

    pub(crate) fn flip_scalars(self, scalars: Vec<ScalarValue>) -> DfResult<Vec<ScalarValue>> {
        match scalars.first() {
            Some(ScalarValue::Decimal256(Some(v), p, s)) if self.0 => {
                let mut out = scalars.clone();
                out[0] = ScalarValue::Decimal256(Some(unsigned_order_key(*v)), *p, *s);
                Ok(out)
            }
            _ => Ok(scalars),
        }
    }
}

#[derive(Debug)]
struct MappedAccumulator {
    inner: Box<dyn Accumulator>,
    output: Output,
    unsigned_keys: UnsignedKeys,
    /// min/max without GROUP BY: a batch of integers without NULLs is reduced to its
    /// extreme here (vectorized) and only that value reaches the inner accumulator.
    extreme: Option<Extreme>,
}

#[derive(Debug, Clone, Copy)]
enum Extreme {
    Min,
    Max,
}

/// The smallest or largest value of an integer array without NULLs, as a one-value
/// array of its type; None for other arrays, which the inner accumulator handles.
fn batch_extreme(values: &ArrayRef, extreme: Extreme) -> Option<ArrayRef> {
    use datafusion::arrow::array::PrimitiveArray;
    use datafusion::arrow::datatypes::*;
    if values.null_count() != 0 || values.is_empty() {
        return None;
    }
    macro_rules! reduce {
        ($t:ty) => {{
            let array = values.as_primitive::<$t>();
            let best = match extreme {
                Extreme::Min => granary_simd::lanes::reduce(array.values(), |a, b| a.min(b)),
                Extreme::Max => granary_simd::lanes::reduce(array.values(), |a, b| a.max(b)),
            }?;
            Some(Arc::new(PrimitiveArray::<$t>::from_value(best, 1).with_data_type(values.data_type().clone())) as ArrayRef)
        }};
    }
    match values.data_type() {
        DataType::Int8 => reduce!(Int8Type),
        DataType::Int16 => reduce!(Int16Type),
        DataType::Int32 => reduce!(Int32Type),
        DataType::Int64 => reduce!(Int64Type),
        DataType::UInt8 => reduce!(UInt8Type),
        DataType::UInt16 => reduce!(UInt16Type),
        DataType::UInt32 => reduce!(UInt32Type),
        DataType::UInt64 => reduce!(UInt64Type),
        DataType::Date32 => reduce!(Date32Type),
        _ => None,
    }
}

impl Accumulator for MappedAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        if let (Some(extreme), [single]) = (self.extreme, values) {
            if let Some(reduced) = batch_extreme(single, extreme) {
                return self.inner.update_batch(&[reduced]);
            }
        }
        self.inner.update_batch(&self.unsigned_keys.flip(values)?)
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        let v = self.inner.evaluate()?;
        let v = self.unsigned_keys.flip_scalars(vec![v])?.remove(0);
        self.output.map_scalar(v)
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        let state = self.inner.state()?;
        self.unsigned_keys.flip_scalars(state)
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        self.inner.merge_batch(&self.unsigned_keys.flip(states)?)
    }
    fn retract_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        self.inner.retract_batch(&self.unsigned_keys.flip(values)?)
    }
    fn supports_retract_batch(&self) -> bool {
        self.inner.supports_retract_batch()
    }
}

struct MappedGroups {
    inner: Box<dyn GroupsAccumulator>,
    output: Output,
    unsigned_keys: UnsignedKeys,
}

impl GroupsAccumulator for MappedGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> DfResult<()> {
        self.inner.update_batch(&self.unsigned_keys.flip(values)?, group_indices, opt_filter, total_num_groups)
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> DfResult<ArrayRef> {
        let out = self.inner.evaluate(emit_to)?;
        let out = self.unsigned_keys.flip(&[out])?.remove(0);
        self.output.map(out)
    }
    fn state(&mut self, emit_to: EmitTo) -> DfResult<Vec<ArrayRef>> {
        let state = self.inner.state(emit_to)?;
        self.unsigned_keys.flip(&state)
    }
    fn merge_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], total_num_groups: usize) -> DfResult<()> {
        self.inner.merge_batch(&self.unsigned_keys.flip(values)?, group_indices, total_num_groups)
    }
    fn convert_to_state(&self, values: &[ArrayRef], opt_filter: Option<&BooleanArray>) -> DfResult<Vec<ArrayRef>> {
        let state = self.inner.convert_to_state(&self.unsigned_keys.flip(values)?, opt_filter)?;
        self.unsigned_keys.flip(&state)
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
}

impl AggregateUDFImpl for Wrapped {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> DfResult<Vec<DataType>> {
        // Argument checks happen in `return_field`, where ClickHouse codes survive.
        // Views (Parquet columns) are cast to `Utf8`, which the wrapped states and
        // Granary's result types expect; count looks at nulls only.
        if self.kind == Kind::Count {
            return Ok(arg_types.iter().map(|t| self.coerce(t)).collect());
        }
        Ok(granary_types::plain_arguments(arg_types).iter().map(|t| self.coerce(t)).collect())
    }

    fn return_type(&self, arg_types: &[DataType]) -> DfResult<DataType> {
        let fields: Vec<FieldRef> = arg_types.iter().map(|t| Arc::new(Field::new("", t.clone(), true))).collect();
        Ok(self.return_field(&fields)?.data_type().clone())
    }

    fn return_field(&self, arg_fields: &[FieldRef]) -> DfResult<FieldRef> {
        self.arity().check(self.name, arg_fields.len())?;
        let t = match arg_fields.first() {
            Some(f) => self.ch_result(f)?,
            None => ChType::UInt64,
        };
        Ok(Arc::new(result_field(self.name, &t)))
    }

    fn is_nullable(&self) -> bool {
        !matches!(self.kind, Kind::Count | Kind::Uniq | Kind::GroupArray)
    }

    fn accumulator(&self, acc_args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let inner_args = self.inner_args(&acc_args)?;
        let inner: Box<dyn Accumulator> = if self.kind == Kind::Sum && acc_args.expr_fields.first().is_some_and(|f| is_float(f.data_type())) {
            Box::new(FloatSum::default())
        } else {
            self.inner.accumulator(inner_args)?
        };
        let unsigned_keys = UnsignedKeys::of(self.kind, &acc_args);
        let extreme = match self.kind {
            Kind::Max if !unsigned_keys.0 => Some(Extreme::Max),
            Kind::Min if !unsigned_keys.0 => Some(Extreme::Min),
            _ => None,
        };
        Ok(Box::new(MappedAccumulator { inner, output: self.output(&acc_args)?, unsigned_keys, extreme }))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        let inner_ret = self.inner_field(args.input_fields)?;
        let is_distinct = args.is_distinct || self.kind == Kind::Uniq;
        self.inner.state_fields(StateFieldsArgs {
            name: args.name,
            input_fields: args.input_fields,
            return_field: inner_ret,
            ordering_fields: args.ordering_fields,
            is_distinct,
        })
    }

    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        match self.inner_args(&args) {
            Ok(inner) => self.inner.groups_accumulator_supported(inner),
            Err(_) => false,
        }
    }

    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn GroupsAccumulator>> {
        let inner_args = self.inner_args(&args)?;
        let inner = self.inner.create_groups_accumulator(inner_args)?;
        Ok(Box::new(MappedGroups { inner, output: self.output(&args)?, unsigned_keys: UnsignedKeys::of(self.kind, &args) }))
    }

    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let inner_args = self.inner_args(&args)?;
        let inner = self.inner.create_sliding_accumulator(inner_args)?;
        Ok(Box::new(MappedAccumulator { inner, output: self.output(&args)?, unsigned_keys: UnsignedKeys::of(self.kind, &args), extreme: None }))
    }

    fn reverse_expr(&self) -> ReversedUDAF {
        match self.kind {
            Kind::Count | Kind::Uniq | Kind::Sum | Kind::Avg | Kind::Min | Kind::Max => ReversedUDAF::Identical,
            _ => ReversedUDAF::NotSupported,
        }
    }

    fn default_value(&self, data_type: &DataType) -> DfResult<ScalarValue> {
        match self.kind {
            Kind::Count | Kind::Uniq => Ok(ScalarValue::UInt64(Some(0))),
            _ => ScalarValue::try_from(data_type),
        }
    }

    fn value_from_stats(&self, statistics_args: &StatisticsArgs) -> Option<ScalarValue> {
        if !matches!(self.kind, Kind::Count | Kind::Min | Kind::Max) {
            return None;
        }
        // Statistics order UInt256 (one of these decimals) as signed words.
        if self.kind != Kind::Count && matches!(statistics_args.return_type, DataType::Decimal256(..)) {
            return None;
        }
        let inner_type = match self.kind {
            Kind::Count => DataType::Int64,
            _ => statistics_args.return_type.clone(),
        };
        let inner_args = StatisticsArgs {
            statistics: statistics_args.statistics,
            return_type: &inner_type,
            is_distinct: statistics_args.is_distinct,
            exprs: statistics_args.exprs,
        };
        let v = self.inner.value_from_stats(&inner_args)?;
        v.cast_to(statistics_args.return_type).ok()
    }
}

/// `sum` of floats without GROUP BY, added up in ClickHouse's order so the rounding is
/// the same (`sum(0.1)` over ten rows is 0.9999999999999999, where Arrow's lane-wise
/// kernel says 1): in each block, element `i` goes to the running partial sum `i % 16`
/// for every complete run of 16, the 16 partials are added to the total in order, then
/// the rest of the block is summed alone and added. NULLs count as 0 in their slot.
/// The state is the one Float64 of DataFusion's own sum, so partial and final
/// aggregation mix.
#[derive(Debug, Default)]
struct FloatSum {
    sum: f64,
    seen: bool,
}

/// ClickHouse's `unroll_count` for Float64 sums: 128 bytes of partial sums.
const FLOAT_SUM_PARTIALS: usize = 16;

impl Accumulator for FloatSum {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        let floats = cast(&values[0], &DataType::Float64)?;
        let floats = floats.as_primitive::<datafusion::arrow::datatypes::Float64Type>();
        if floats.null_count() == floats.len() {
            return Ok(());
        }
        self.seen = true;
        if floats.null_count() == 0 {
            // The same additions in the same order as below, without a NULL check per
            // value, so the loop vectorizes.
            let values = floats.values();
            let mut runs = values.chunks_exact(FLOAT_SUM_PARTIALS);
            let mut partials = [0.0f64; FLOAT_SUM_PARTIALS];
            for run in &mut runs {
                for (partial, v) in partials.iter_mut().zip(run) {
                    *partial += v;
                }
            }
            for partial in partials {
                self.sum += partial;
            }
            let mut tail = 0.0;
            for v in runs.remainder() {
                tail += v;
            }
            self.sum += tail;
            return Ok(());
        }
        let value = |i: usize| if floats.is_null(i) { 0.0 } else { floats.value(i) };
        let unrolled = floats.len() / FLOAT_SUM_PARTIALS * FLOAT_SUM_PARTIALS;
        let mut partials = [0.0f64; FLOAT_SUM_PARTIALS];
        for run in (0..unrolled).step_by(FLOAT_SUM_PARTIALS) {
            for (k, partial) in partials.iter_mut().enumerate() {
                *partial += value(run + k);
            }
        }
        for partial in partials {
            self.sum += partial;
        }
        let mut tail = 0.0;
        for i in unrolled..floats.len() {
            tail += value(i);
        }
        self.sum += tail;
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let sums = cast(&states[0], &DataType::Float64)?;
        for sum in sums.as_primitive::<datafusion::arrow::datatypes::Float64Type>().iter().flatten() {
            self.sum += sum;
            self.seen = true;
        }
        Ok(())
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        Ok(vec![self.evaluate()?])
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        Ok(ScalarValue::Float64(self.seen.then_some(self.sum)))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

/// Every aggregate function.
pub(crate) fn aggregates() -> Vec<AggregateUDF> {
    let wrapped = |name: &'static str, kind: Kind, inner: Arc<AggregateUDF>| AggregateUDF::new_from_impl(Wrapped::new(name, kind, inner));
    vec![
        wrapped("count", Kind::Count, count::count_udaf()),
        wrapped("uniqExact", Kind::Uniq, count::count_udaf()),
        AggregateUDF::new_from_impl(crate::uniq::Uniq::new()),
        wrapped("sum", Kind::Sum, sum::sum_udaf()),
        wrapped("avg", Kind::Avg, average::avg_udaf()),
        wrapped("min", Kind::Min, min_max::min_udaf()),
        wrapped("max", Kind::Max, min_max::max_udaf()),
        wrapped("any", Kind::Any, first_last::first_value_udaf()),
        wrapped("anyLast", Kind::AnyLast, first_last::last_value_udaf()),
        wrapped("any_respect_nulls", Kind::AnyRespectNulls, first_last::first_value_udaf()),
        wrapped("anyLast_respect_nulls", Kind::AnyLastRespectNulls, first_last::last_value_udaf()),
        wrapped("groupArray", Kind::GroupArray, array_agg::array_agg_udaf()),
        wrapped("groupBitAnd", Kind::BitAnd, bit_and_or_xor::bit_and_udaf()),
        wrapped("groupBitOr", Kind::Bitwise, bit_and_or_xor::bit_or_udaf()),
        wrapped("groupBitXor", Kind::Bitwise, bit_and_or_xor::bit_xor_udaf()),
        crate::arg_min_max::udaf("argMin", false, false),
        crate::arg_min_max::udaf("argMax", true, false),
        crate::arg_min_max::udaf("argAndMin", false, true),
        crate::arg_min_max::udaf("argAndMax", true, true),
    ]
    .into_iter()
    .chain(crate::moments::aggregates().into_iter().map(AggregateUDF::new_from_impl))
    .chain(crate::native_state::aggregates())
    .chain(crate::uniq_combined::aggregates().into_iter().map(AggregateUDF::new_from_impl))
    .chain(crate::parametric::defaults())
    .collect()
}
