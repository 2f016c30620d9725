//! Aggregates whose accumulator keeps ClickHouse's own state (`sumKahan`, `deltaSum`,
//! `entropy`, `uniqUpTo`, ...), so `-State` writes ClickHouse's bytes and `-Merge` reads
//! them without a translation layer.
//!
//! A function is a [`Spec`] (argument checks, result type, how NULLs are treated) that
//! makes a [`NativeState`] per group; [`NativeAggregate`] turns any spec into a UDAF.
//! Rows with a NULL argument are removed from the batch (one `filter` per batch) before
//! the state sees them, as ClickHouse's `-Null` combinator does. Over `Nullable`
//! arguments ClickHouse's `-Null` state starts with a flag byte; which value it has
//! depends on the function ([`NullHandling`]). The accumulator's state is one `Binary`
//! value: that flag (always present internally), then the function's bytes;
//! [`crate::states`] drops the flag where ClickHouse has none.

use std::fmt::Debug;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray};
use datafusion::arrow::compute::{cast, filter};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type, Int64Type, UInt64Type};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility};
use granary_common::ErrorCode;
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ch_type_of_field, is_nullable_field, result_field};

/// How a function treats NULL arguments (ClickHouse's `-Null` combinator variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NullHandling {
    /// Over a `Nullable` argument the result is `Nullable`, NULL when no row without
    /// NULLs came; the state's flag says whether one did.
    NullableResult,
    /// The result keeps its type (the function's value of no rows when only NULLs
    /// came); the state's flag is always set.
    DefaultResult,
    /// The function skips NULL rows itself; its state has no flag.
    Skip,
}

/// One function of this kind, for given parameters.
pub(crate) trait Spec: Debug + Send + Sync {
    /// The name with parameters, as a state type prints it (`uniqUpTo(3)`).
    fn name(&self) -> &str;
    fn arity(&self) -> Arity;
    fn nulls(&self) -> NullHandling {
        NullHandling::NullableResult
    }
    /// The result type over arguments of types `args` (without `Nullable`), checking them.
    fn result(&self, args: &[ChType]) -> DfResult<ChType>;
    /// A state of no rows.
    fn new_state(&self, args: &[ChType]) -> DfResult<Box<dyn NativeState>>;
    /// Whether the states' own bytes differ from ClickHouse's (see
    /// [`NativeState::write_clickhouse`]).
    fn own_bytes(&self) -> bool {
        false
    }
}

/// A group's state in ClickHouse's terms.
pub(crate) trait NativeState: Debug + Send + Sync {
    /// Adds a batch of rows; `columns` hold no NULLs, in the argument types' Arrow types.
    /// Without GROUP BY, ClickHouse adds a block at once (`addMany`), in lanes for sums.
    fn add(&mut self, columns: &[ArrayRef]) -> DfResult<()>;
    /// Adds one group's rows of a GROUP BY, which ClickHouse adds one by one.
    fn add_grouped(&mut self, columns: &[ArrayRef]) -> DfResult<()> {
        self.add(columns)
    }
    /// Merges one state in ClickHouse's bytes from the start of `input`, consuming it.
    fn merge(&mut self, input: &mut &[u8]) -> DfResult<()>;
    /// Writes the state in ClickHouse's bytes.
    fn write(&self, out: &mut Vec<u8>);
    /// Writes the state as ClickHouse's `-State` does, where the accumulator's own bytes
    /// (which partial aggregates pass on) keep more than ClickHouse's.
    fn write_clickhouse(&self, out: &mut Vec<u8>) {
        self.write(out)
    }
    /// Merges a state in the bytes of [`NativeState::write_clickhouse`].
    fn merge_clickhouse(&mut self, input: &mut &[u8]) -> DfResult<()> {
        self.merge(input)
    }
    /// The result, of the spec's result type.
    fn finish(&self) -> DfResult<ScalarValue>;
    fn size(&self) -> usize;
}

/// Makes the spec of a function from its parameters.
pub(crate) type SpecFactory = fn(params: &[ScalarValue]) -> DfResult<Arc<dyn Spec>>;

/// Every function of this kind: name, factory, whether it takes parameters.
const FUNCTIONS: &[(&str, SpecFactory, bool)] = &[
    ("sumKahan", crate::running_sums::sum_kahan, false),
    ("sumWithOverflow", crate::running_sums::sum_with_overflow, false),
    ("deltaSum", crate::running_sums::delta_sum, false),
    ("avgWeighted", crate::running_sums::avg_weighted, false),
    ("sumCount", crate::running_sums::sum_count, false),
    ("deltaSumTimestamp", crate::running_sums::delta_sum_timestamp, false),
    ("entropy", crate::value_stats::entropy, false),
    ("boundingRatio", crate::value_stats::bounding_ratio, false),
    ("simpleLinearRegression", crate::value_stats::simple_linear_regression, false),
    ("anyHeavy", crate::value_stats::any_heavy, false),
    ("uniqUpTo", crate::value_stats::uniq_up_to, true),
    ("groupArrayLast", crate::group_arrays::group_array_last, true),
    ("groupArraySorted", crate::group_arrays::group_array_sorted, true),
    ("groupArrayMovingSum", crate::group_arrays::group_array_moving_sum, true),
    ("groupArrayMovingAvg", crate::group_arrays::group_array_moving_avg, true),
    ("groupConcat", crate::group_arrays::group_concat, true),
    ("groupArrayInsertAt", crate::group_arrays::group_array_insert_at, true),
    ("groupArrayIntersect", crate::group_array_intersect::group_array_intersect, true),
    ("analysisOfVariance", crate::analysis_of_variance::analysis_of_variance, false),
    ("groupArraySample", crate::group_array_sample::group_array_sample, true),
    ("sparkbar", crate::sparkbar::sparkbar, true),
    ("quantileGK", crate::quantile_gk::quantile_gk, true),
    ("quantilesGK", crate::quantile_gk::quantiles_gk, true),
    ("quantileDD", crate::quantile_dd::quantile_dd, true),
    ("quantilesDD", crate::quantile_dd::quantiles_dd, true),
    ("exponentialMovingAverage", crate::sample_stats::exponential_moving_average, true),
    ("maxIntersections", crate::sample_stats::max_intersections, false),
    ("maxIntersectionsPosition", crate::sample_stats::max_intersections_position, false),
    ("rankCorr", crate::sample_stats::rank_corr, false),
    ("corrMatrix", crate::matrix_stats::corr_matrix, false),
    ("singleValueOrNull", crate::single_value::single_value_or_null, false),
    ("covarSampMatrix", crate::matrix_stats::covar_samp_matrix, false),
    ("covarPopMatrix", crate::matrix_stats::covar_pop_matrix, false),
    ("largestTriangleThreeBuckets", crate::matrix_stats::largest_triangle_three_buckets, true),
    ("quantileBFloat16", crate::quantile_bfloat16::quantile_bfloat16, true),
    ("quantileTiming", crate::quantile_timing::quantile_timing, true),
    ("quantilesTiming", crate::quantile_timing::quantiles_timing, true),
    ("quantileTimingWeighted", crate::quantile_timing::quantile_timing_weighted, true),
    ("quantilesTimingWeighted", crate::quantile_timing::quantiles_timing_weighted, true),
    ("quantilesBFloat16", crate::quantile_bfloat16::quantiles_bfloat16, true),
    ("quantileBFloat16Weighted", crate::quantile_bfloat16::quantile_bfloat16_weighted, true),
    ("quantilesBFloat16Weighted", crate::quantile_bfloat16::quantiles_bfloat16_weighted, true),
    ("cramersV", crate::cross_tab::cramers_v, false),
    ("cramersVBiasCorrected", crate::cross_tab::cramers_v_bias_corrected, false),
    ("contingency", crate::cross_tab::contingency, false),
    ("theilsU", crate::cross_tab::theils_u, false),
    ("studentTTest", crate::hypothesis_tests::student_t_test, true),
    ("welchTTest", crate::hypothesis_tests::welch_t_test, true),
    ("studentTTestOneSample", crate::hypothesis_tests::student_t_test_one_sample, true),
    ("meanZTest", crate::hypothesis_tests::mean_z_test, true),
    ("mannWhitneyUTest", crate::hypothesis_tests::mann_whitney_u_test, true),
    ("kolmogorovSmirnovTest", crate::hypothesis_tests::kolmogorov_smirnov_test, true),
    ("histogram", crate::histogram::histogram, true),
    ("groupBitmap", crate::group_bitmap::group_bitmap, false),
    ("groupBitmapAnd", crate::group_bitmap::group_bitmap_and, false),
    ("groupBitmapOr", crate::group_bitmap::group_bitmap_or, false),
    ("groupBitmapXor", crate::group_bitmap::group_bitmap_xor, false),
    ("retention", crate::funnels::retention, false),
    ("intervalLengthSum", crate::funnels::interval_length_sum, false),
    ("windowFunnel", crate::funnels::window_funnel, true),
    ("sequenceMatch", crate::sequences::sequence_match, true),
    ("sequenceCount", crate::sequences::sequence_count, true),
    ("sequenceMatchEvents", crate::sequences::sequence_match_events, true),
    ("sequenceNextNode", crate::sequences::sequence_next_node, true),
    ("sumMap", crate::map_aggregates::sum_map, false),
    ("minMap", crate::map_aggregates::min_map, false),
    ("maxMap", crate::map_aggregates::max_map, false),
    ("sumMapWithOverflow", crate::map_aggregates::sum_map_with_overflow, false),
    ("sumMappedArrays", crate::map_aggregates::sum_mapped_arrays, false),
    ("minMappedArrays", crate::map_aggregates::min_mapped_arrays, false),
    ("maxMappedArrays", crate::map_aggregates::max_mapped_arrays, false),
    ("sumMapFiltered", crate::map_aggregates::sum_map_filtered, true),
    ("sumMapFilteredWithOverflow", crate::map_aggregates::sum_map_filtered_with_overflow, true),
];

fn factory_of(function: &str) -> Option<SpecFactory> {
    let base = crate::combinators::without_params(function);
    FUNCTIONS.iter().find(|(n, _, _)| *n == base).map(|(_, f, _)| *f)
}

/// Whether states of `function` (parameters allowed) are this module's.
pub(crate) fn is_native(function: &str) -> bool {
    factory_of(function).is_some()
}

fn spec_of(function: &str) -> DfResult<Arc<dyn Spec>> {
    let factory = factory_of(function).ok_or_else(|| ch_error(ErrorCode::LOGICAL_ERROR, format!("{function} has no native state")))?;
    factory(&crate::parametric::params_of_name(function)?)
}

/// The functions without parameters, for the registry.
pub(crate) fn aggregates() -> Vec<AggregateUDF> {
    FUNCTIONS.iter().filter(|(_, _, parametric)| !parametric).filter_map(|(_, factory, _)| factory(&[]).ok().map(udaf)).collect()
}

/// The UDAF of a spec.
pub(crate) fn udaf(spec: Arc<dyn Spec>) -> AggregateUDF {
    AggregateUDF::new_from_impl(NativeAggregate { spec, signature: Signature::user_defined(Volatility::Immutable) })
}

/// A parametric family's factory for [`crate::parametric::FAMILIES`].
pub(crate) fn family(factory: SpecFactory, params: &[ScalarValue]) -> DfResult<AggregateUDF> {
    Ok(udaf(factory(params)?))
}

/// Whether a state (ClickHouse's bytes over `args`) starts with the `-Null` flag.
pub(crate) fn has_null_flag(function: &str, args: &[ChType]) -> bool {
    args.iter().any(ChType::is_nullable) && spec_of(function).is_ok_and(|s| s.nulls() != NullHandling::Skip)
}

/// How many bytes the state (without the `-Null` flag) at the start of `input` takes.
pub(crate) fn state_len(function: &str, args: &[ChType], input: &[u8]) -> DfResult<usize> {
    let spec = spec_of(function)?;
    let plain: Vec<ChType> = args.iter().map(|a| a.strip_nullable().base().clone()).collect();
    let mut state = spec.new_state(&plain)?;
    let mut rest = input;
    state.merge(&mut rest)?;
    Ok(input.len() - rest.len())
}

/// The accumulator's bytes of a state (without the flag) as ClickHouse writes them.
pub(crate) fn to_clickhouse(function: &str, args: &[ChType], bytes: &[u8]) -> DfResult<Vec<u8>> {
    let spec = spec_of(function)?;
    if !spec.own_bytes() {
        return Ok(bytes.to_vec());
    }
    let plain: Vec<ChType> = args.iter().map(|a| a.strip_nullable().base().clone()).collect();
    let mut state = spec.new_state(&plain)?;
    state.merge(&mut &bytes[..])?;
    let mut out = Vec::new();
    state.write_clickhouse(&mut out);
    Ok(out)
}

/// Reads a state in ClickHouse's bytes from the start of `input` into the accumulator's
/// bytes (without the flag).
pub(crate) fn from_clickhouse(function: &str, args: &[ChType], input: &mut &[u8]) -> DfResult<Vec<u8>> {
    let spec = spec_of(function)?;
    if !spec.own_bytes() {
        let n = state_len(function, args, input)?;
        return Ok(take(input, n)?.to_vec());
    }
    let plain: Vec<ChType> = args.iter().map(|a| a.strip_nullable().base().clone()).collect();
    let mut state = spec.new_state(&plain)?;
    state.merge_clickhouse(input)?;
    let mut out = Vec::new();
    state.write(&mut out);
    Ok(out)
}

/// A state of no rows, without the flag.
pub(crate) fn empty_state(function: &str, args: &[ChType]) -> DfResult<Vec<u8>> {
    let spec = spec_of(function)?;
    let plain: Vec<ChType> = args.iter().map(|a| a.strip_nullable().base().clone()).collect();
    let mut out = Vec::new();
    spec.new_state(&plain)?.write(&mut out);
    Ok(out)
}

/// Whether a flag value of `seen` must be written for this function's state.
pub(crate) fn flag_when(function: &str, seen: bool) -> bool {
    seen || spec_of(function).is_ok_and(|s| s.nulls() == NullHandling::DefaultResult)
}

#[derive(Debug)]
pub(crate) struct NativeAggregate {
    spec: Arc<dyn Spec>,
    signature: Signature,
}

impl PartialEq for NativeAggregate {
    fn eq(&self, other: &Self) -> bool {
        self.spec.name() == other.spec.name()
    }
}
impl Eq for NativeAggregate {}
impl std::hash::Hash for NativeAggregate {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.spec.name().hash(state)
    }
}

fn plain_types(args: &[FieldRef]) -> Vec<ChType> {
    args.iter().map(|f| ch_type_of_field(f).strip_nullable().base().clone()).collect()
}

impl NativeAggregate {
    fn result(&self, args: &[FieldRef]) -> DfResult<ChType> {
        self.spec.arity().check(crate::combinators::without_params(self.spec.name()), args.len())?;
        let t = self.spec.result(&plain_types(args))?;
        let nullable = self.spec.nulls() == NullHandling::NullableResult && args.iter().any(|f| is_nullable_field(f) || f.data_type() == &DataType::Null);
        Ok(if nullable { t.into_nullable() } else { t })
    }
}

impl AggregateUDFImpl for NativeAggregate {
    fn name(&self) -> &str {
        self.spec.name()
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
        Ok(Arc::new(result_field(self.spec.name(), &self.result(arg_fields)?)))
    }
    fn is_nullable(&self) -> bool {
        self.spec.nulls() == NullHandling::NullableResult
    }
    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        if args.is_distinct {
            return Ok(crate::distinct::distinct_state_fields(&args));
        }
        Ok(vec![Arc::new(Field::new(format_state_name(args.name, "native"), DataType::Binary, true))])
    }
    fn accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        let result = self.result(args.expr_fields)?;
        let types = plain_types(args.expr_fields);
        if args.is_distinct {
            let spec = Arc::clone(&self.spec);
            let (null_when_empty, result) = (result.is_nullable(), result.to_arrow());
            let fresh = move || -> DfResult<Box<dyn Accumulator>> {
                Ok(Box::new(NativeAccumulator { state: spec.new_state(&types)?, seen: false, null_when_empty, result: result.clone() }))
            };
            let arrow_types = args.expr_fields.iter().map(|f| f.data_type().clone()).collect();
            return Ok(Box::new(crate::distinct::DistinctAccumulator::new(arrow_types, Box::new(fresh))));
        }
        Ok(Box::new(NativeAccumulator {
            state: self.spec.new_state(&types)?,
            seen: false,
            null_when_empty: result.is_nullable(),
            result: result.to_arrow(),
        }))
    }
    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        !args.is_distinct
    }
    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> DfResult<Box<dyn GroupsAccumulator>> {
        let result = self.result(args.expr_fields)?;
        Ok(Box::new(NativeGroups {
            spec: Arc::clone(&self.spec),
            types: plain_types(args.expr_fields),
            groups: Vec::new(),
            null_when_empty: result.is_nullable(),
            result: result.to_arrow(),
        }))
    }
}

/// The states of a GROUP BY's groups: each batch's rows are split by group (in row
/// order) and each group's rows added at once.
struct NativeGroups {
    spec: Arc<dyn Spec>,
    types: Vec<ChType>,
    /// Each group's state and whether a row without NULLs came.
    groups: Vec<(Box<dyn NativeState>, bool)>,
    null_when_empty: bool,
    result: DataType,
}

impl NativeGroups {
    fn grow(&mut self, total: usize) -> DfResult<()> {
        while self.groups.len() < total {
            self.groups.push((self.spec.new_state(&self.types)?, false));
        }
        Ok(())
    }

    fn emitted(&mut self, emit_to: EmitTo) -> Vec<(Box<dyn NativeState>, bool)> {
        match emit_to {
            EmitTo::All => std::mem::take(&mut self.groups),
            EmitTo::First(n) => self.groups.drain(..n.min(self.groups.len())).collect(),
        }
    }
}

impl GroupsAccumulator for NativeGroups {
    fn update_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], opt_filter: Option<&BooleanArray>, total_num_groups: usize) -> DfResult<()> {
        self.grow(total_num_groups)?;
        if values.iter().any(|v| v.data_type() == &DataType::Null) {
            return Ok(());
        }
        let valid = |row: usize| values.iter().all(|v| v.is_valid(row)) && opt_filter.is_none_or(|f| f.is_valid(row) && f.value(row));
        // Rows by group, each group's rows in their order.
        let mut rows: Vec<(usize, u32)> = (0..group_indices.len()).filter(|r| valid(*r)).map(|r| (group_indices[r], r as u32)).collect();
        rows.sort_by_key(|(group, _)| *group);
        for run in rows.chunk_by(|a, b| a.0 == b.0) {
            let indices = datafusion::arrow::array::UInt32Array::from_iter_values(run.iter().map(|(_, r)| *r));
            let columns: Vec<ArrayRef> = values.iter().map(|v| datafusion::arrow::compute::take(v, &indices, None)).collect::<Result<_, _>>()?;
            let (state, seen) = &mut self.groups[run[0].0];
            *seen = true;
            state.add_grouped(&columns)?;
        }
        Ok(())
    }
    fn merge_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], total_num_groups: usize) -> DfResult<()> {
        self.grow(total_num_groups)?;
        let Some(states) = values.first() else { return Ok(()) };
        let binary = states.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "aggregate state must be Binary"))?;
        for (row, &group) in group_indices.iter().enumerate() {
            if binary.is_null(row) {
                continue;
            }
            let (state, seen) = &mut self.groups[group];
            merge_flagged(state.as_mut(), seen, binary.value(row))?;
        }
        Ok(())
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> DfResult<ArrayRef> {
        let null_when_empty = self.null_when_empty;
        let values = self
            .emitted(emit_to)
            .into_iter()
            .map(|(state, seen)| if null_when_empty && !seen { ScalarValue::try_from(&self.result) } else { state.finish() })
            .collect::<DfResult<Vec<_>>>()?;
        if values.is_empty() {
            return Ok(datafusion::arrow::array::new_empty_array(&self.result));
        }
        let array = ScalarValue::iter_to_array(values)?;
        Ok(if array.data_type() == &self.result { array } else { cast(&array, &self.result)? })
    }
    fn state(&mut self, emit_to: EmitTo) -> DfResult<Vec<ArrayRef>> {
        let mut builder = datafusion::arrow::array::BinaryBuilder::new();
        let mut bytes = Vec::new();
        for (state, seen) in self.emitted(emit_to) {
            bytes.clear();
            bytes.push(u8::from(seen));
            state.write(&mut bytes);
            builder.append_value(&bytes);
        }
        Ok(vec![Arc::new(builder.finish())])
    }
    fn convert_to_state(&self, _values: &[ArrayRef], _opt_filter: Option<&BooleanArray>) -> DfResult<Vec<ArrayRef>> {
        // `supports_convert_to_state` is false: DataFusion never skips partial aggregation here.
        Err(ch_error(ErrorCode::LOGICAL_ERROR, "native aggregate states are not made from single rows"))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.groups.iter().map(|(s, _)| s.size() + 16).sum::<usize>()
    }
}

/// Merges a state as the accumulators keep it (the `-Null` flag, then ClickHouse's bytes).
fn merge_flagged(state: &mut dyn NativeState, seen: &mut bool, flagged: &[u8]) -> DfResult<()> {
    let Some((&flag, mut bytes)) = flagged.split_first() else { return Ok(()) };
    if flag == 0 {
        return Ok(());
    }
    *seen = true;
    state.merge(&mut bytes)?;
    if !bytes.is_empty() {
        return Err(ch_error(ErrorCode::CORRUPTED_DATA, format!("Aggregate function state has {} extra bytes", bytes.len())));
    }
    Ok(())
}

#[derive(Debug)]
struct NativeAccumulator {
    state: Box<dyn NativeState>,
    /// A row without NULLs came (the `-Null` flag).
    seen: bool,
    null_when_empty: bool,
    result: DataType,
}

/// The rows of `columns` where no column is NULL.
fn without_null_rows(columns: &[ArrayRef]) -> DfResult<Vec<ArrayRef>> {
    if columns.iter().all(|c| c.null_count() == 0) {
        return Ok(columns.to_vec());
    }
    let len = columns.first().map_or(0, |c| c.len());
    let mut keep: Option<datafusion::arrow::buffer::BooleanBuffer> = None;
    for column in columns {
        let valid = match column.logical_nulls() {
            Some(nulls) => nulls.into_inner(),
            None => continue,
        };
        keep = Some(match keep {
            Some(k) => &k & &valid,
            None => valid,
        });
    }
    let mask = BooleanArray::new(keep.unwrap_or_else(|| datafusion::arrow::buffer::BooleanBuffer::new_set(len)), None);
    columns.iter().map(|c| Ok(filter(c, &mask)?)).collect()
}

impl Accumulator for NativeAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DfResult<()> {
        if values.iter().any(|v| v.data_type() == &DataType::Null) {
            return Ok(());
        }
        let columns = without_null_rows(values)?;
        if columns.first().is_some_and(|c| !c.is_empty()) {
            self.seen = true;
            self.state.add(&columns)?;
        }
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> DfResult<()> {
        let Some(states) = states.first() else { return Ok(()) };
        let binary = states.as_binary_opt::<i32>().ok_or_else(|| ch_error(ErrorCode::ILLEGAL_COLUMN, "aggregate state must be Binary"))?;
        for row in 0..binary.len() {
            if !binary.is_null(row) {
                merge_flagged(self.state.as_mut(), &mut self.seen, binary.value(row))?;
            }
        }
        Ok(())
    }
    fn state(&mut self) -> DfResult<Vec<ScalarValue>> {
        let mut out = vec![u8::from(self.seen)];
        self.state.write(&mut out);
        Ok(vec![ScalarValue::Binary(Some(out))])
    }
    fn evaluate(&mut self) -> DfResult<ScalarValue> {
        if self.null_when_empty && !self.seen {
            return ScalarValue::try_from(&self.result);
        }
        self.state.finish()
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.state.size()
    }
}

// ------------------------------------------------------------------ numbers

/// A number type as ClickHouse stores it in a state: integers at their width, floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumType {
    Int { width: usize, signed: bool },
    Float32,
    Float64,
}

/// A value of a [`NumType`]: integers (both signs) fit i128 exactly.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

impl NumType {
    /// The number type of `t`; dates and times count as their raw integers.
    pub(crate) fn of(t: &ChType) -> Option<NumType> {
        let int = |width, signed| Some(NumType::Int { width, signed });
        match t {
            ChType::UInt8 | ChType::Bool => int(1, false),
            ChType::UInt16 | ChType::Date => int(2, false),
            ChType::UInt32 | ChType::DateTime(_) => int(4, false),
            ChType::UInt64 => int(8, false),
            ChType::Int8 => int(1, true),
            ChType::Int16 => int(2, true),
            ChType::Int32 | ChType::Date32 => int(4, true),
            ChType::Int64 | ChType::DateTime64(..) => int(8, true),
            ChType::Float32 => Some(NumType::Float32),
            ChType::Float64 => Some(NumType::Float64),
            _ => None,
        }
    }

    pub(crate) fn is_float(self) -> bool {
        !matches!(self, NumType::Int { .. })
    }

    pub(crate) fn width(self) -> usize {
        match self {
            NumType::Int { width, .. } => width,
            NumType::Float32 => 4,
            NumType::Float64 => 8,
        }
    }

    pub(crate) fn zero(self) -> Num {
        if self.is_float() {
            Num::Float(0.0)
        } else {
            Num::Int(0)
        }
    }

    /// `v` as this type stores it: integers wrapped to the width, Float32 rounded.
    pub(crate) fn wrap(self, v: Num) -> Num {
        match (self, v) {
            (NumType::Int { width, signed }, Num::Int(i)) => {
                let bits = 8 * width as u32;
                let low = (i as u128) & (u128::MAX >> (128 - bits));
                if signed && low >> (bits - 1) != 0 {
                    Num::Int(low as i128 - (1i128 << bits))
                } else {
                    Num::Int(low as i128)
                }
            }
            (NumType::Float32, Num::Float(f)) => Num::Float(f as f32 as f64),
            (_, v) => v,
        }
    }

    /// `a + b` (or `a - b`) in this type.
    pub(crate) fn add(self, a: Num, b: Num) -> Num {
        self.wrap(match (a, b) {
            (Num::Int(x), Num::Int(y)) => Num::Int(x.wrapping_add(y)),
            (Num::Float(x), Num::Float(y)) => Num::Float(x + y),
            (x, _) => x,
        })
    }

    pub(crate) fn sub(self, a: Num, b: Num) -> Num {
        self.wrap(match (a, b) {
            (Num::Int(x), Num::Int(y)) => Num::Int(x.wrapping_sub(y)),
            (Num::Float(x), Num::Float(y)) => Num::Float(x - y),
            (x, _) => x,
        })
    }

    /// The values of a column of this type (no NULLs).
    pub(crate) fn values(self, column: &ArrayRef) -> DfResult<Vec<Num>> {
        let raw = match column.data_type() {
            DataType::Date32 => cast(column, &DataType::Int32)?,
            DataType::Timestamp(..) => cast(column, &DataType::Int64)?,
            DataType::Boolean => cast(column, &DataType::UInt8)?,
            _ => Arc::clone(column),
        };
        Ok(match self {
            NumType::Float32 | NumType::Float64 => cast(&raw, &DataType::Float64)?.as_primitive::<Float64Type>().values().iter().map(|v| Num::Float(*v)).collect(),
            NumType::Int { signed: false, .. } => cast(&raw, &DataType::UInt64)?.as_primitive::<UInt64Type>().values().iter().map(|v| Num::Int(*v as i128)).collect(),
            NumType::Int { signed: true, .. } => cast(&raw, &DataType::Int64)?.as_primitive::<Int64Type>().values().iter().map(|v| Num::Int(*v as i128)).collect(),
        })
    }

    pub(crate) fn write(self, v: Num, out: &mut Vec<u8>) {
        match (self, v) {
            (NumType::Int { width, .. }, Num::Int(i)) => out.extend_from_slice(&i.to_le_bytes()[..width]),
            (NumType::Float32, Num::Float(f)) => out.extend_from_slice(&(f as f32).to_le_bytes()),
            (NumType::Float64, Num::Float(f)) => out.extend_from_slice(&f.to_le_bytes()),
            (_, _) => out.extend(std::iter::repeat_n(0, self.width())),
        }
    }

    pub(crate) fn read(self, input: &mut &[u8]) -> DfResult<Num> {
        let bytes = take(input, self.width())?;
        Ok(match self {
            NumType::Int { width, signed } => {
                let mut le = [0u8; 16];
                le[..width].copy_from_slice(bytes);
                self.wrap(Num::Int(if signed { i128::from_le_bytes(le) } else { u128::from_le_bytes(le) as i128 }))
            }
            NumType::Float32 => Num::Float(f32::from_le_bytes(bytes.try_into().map_err(|_| truncated())?) as f64),
            NumType::Float64 => Num::Float(f64::from_le_bytes(bytes.try_into().map_err(|_| truncated())?)),
        })
    }

    /// `v` as a value of Arrow type `dt` (the argument's type).
    pub(crate) fn scalar(self, v: Num, dt: &DataType) -> DfResult<ScalarValue> {
        let raw = match v {
            Num::Int(i) if i < 0 => ScalarValue::Int64(Some(i as i64)),
            Num::Int(i) => ScalarValue::UInt64(Some(i as u64)),
            Num::Float(f) => ScalarValue::Float64(Some(f)),
        };
        Ok(match dt {
            DataType::Date32 => ScalarValue::Date32(Some(v.as_f64() as i32)),
            DataType::Timestamp(..) => ScalarValue::Int64(Some(v.as_f64() as i64)).cast_to(dt)?,
            DataType::Boolean => ScalarValue::Boolean(Some(v != Num::Int(0))),
            other => raw.cast_to(other)?,
        })
    }
}

impl Num {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// A state's bytes in hex, as chdb's `hex(xState(...))` shows them.
#[cfg(test)]
pub(crate) fn state_hex(state: &dyn NativeState) -> String {
    let mut out = Vec::new();
    state.write(&mut out);
    out.iter().map(|b| format!("{b:02X}")).collect()
}

pub(crate) fn truncated() -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::CORRUPTED_DATA, "Cannot read aggregate function state: unexpected end of data")
}

pub(crate) fn take<'a>(input: &mut &'a [u8], n: usize) -> DfResult<&'a [u8]> {
    if input.len() < n {
        return Err(truncated());
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

pub(crate) fn read_u64(input: &mut &[u8]) -> DfResult<u64> {
    Ok(u64::from_le_bytes(take(input, 8)?.try_into().map_err(|_| truncated())?))
}

pub(crate) fn read_f64(input: &mut &[u8]) -> DfResult<f64> {
    Ok(f64::from_le_bytes(take(input, 8)?.try_into().map_err(|_| truncated())?))
}

/// `ILLEGAL_TYPE_OF_ARGUMENT` worded as ClickHouse's aggregate functions word it.
pub(crate) fn illegal_argument(function: &str, t: &ChType) -> datafusion::common::DataFusionError {
    ch_error(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {t} of argument for aggregate function {function}"))
}
