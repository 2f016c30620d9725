//! GROUP BY one Parquet string column, worked out once per dictionary value.
//!
//! `SELECT name, count() FROM file('*.parquet') WHERE name NOT IN (...) GROUP BY name`
//! (the seed's read query) spent 40% of its time hashing and probing the group table
//! with every row's string. A Parquet writer dictionary-encodes such a column, so a row
//! group holds a few thousand distinct strings for a hundred thousand rows.
//! [`DictionaryGroupBy`] finds an aggregation keyed by one string column read straight
//! from a Parquet scan (optionally through a filter on that column alone), makes the
//! scan produce that column as a dictionary ([`granary_io::parquet_dictionary`]), and
//! puts [`DictionaryGroupByExec`] in place of the aggregation and the filter. Per
//! dictionary it interns the values ([`crate::string_groups`]) and evaluates the filter
//! on the strings it had not seen before (groups that no row turns out to use, or
//! whose key fails the filter, are dropped when emitting); per row only the key's group
//! is looked up, and the filter reaches the accumulators as their filter mask instead
//! of a copy of the rows. When every aggregate is `count()`,
//! rows are only counted per dictionary value, and the counts added to the groups once
//! per dictionary.
//!
//! The same exec serves GROUP BY one one- or two-byte integer expression (`tag % 100`, a
//! UInt8 column), over any input: the type's whole domain (256 or 65536 values) is the
//! one dictionary, so each row indexes a table with its key's bits instead of hashing it
//! (DataFusion's primitive group table was 22% of `GROUP BY tag % 100` over MergeTree).
//!
//! The exec produces what the `AggregateExec` it replaces would (`Single`: final values,
//! `Partial`: states), so the plan above it is unchanged. Aggregates are DataFusion's
//! `GroupsAccumulator`s and the key column is emitted in the replaced plan's type, so
//! results and types are the same as without the rewrite; anything else (several keys, aggregates without a
//! groups accumulator, DISTINCT, FILTER clauses, filters on other columns) keeps the
//! ordinary plan.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, Int64Array, RecordBatch};
use arrow::buffer::BooleanBuffer;
use arrow::compute::{cast, concat};
use arrow::datatypes::{DataType, Field, Int32Type, Schema, SchemaRef};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{EmitTo, GroupsAccumulator};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::utils::collect_columns;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_expr_common::physical_expr::is_volatile;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::group_values::{new_group_values, GroupValues};
use datafusion::physical_plan::aggregates::order::GroupOrdering;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning, PlanProperties, SendableRecordBatchStream};
use datafusion::datasource::source::DataSourceExec;
use futures::{StreamExt, TryStreamExt};
use granary_storage::ScanCounterExec;

use crate::string_groups::StringGroups;

/// Replaces `AggregateExec(Single|Partial) [-> FilterExec] [-> ScanCounterExec] ->
/// Parquet scan`, grouped by one string column of the files, by [`DictionaryGroupByExec`].
#[derive(Debug)]
pub(crate) struct DictionaryGroupBy;

impl PhysicalOptimizerRule for DictionaryGroupBy {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        let rewritten = plan.transform_up(|node| {
            let Some(aggregate) = (node.as_ref() as &dyn Any).downcast_ref::<AggregateExec>() else { return Ok(Transformed::no(node)) };
            match DictionaryGroupByExec::try_replace(aggregate)? {
                Some(exec) => Ok(Transformed::yes(Arc::new(exec) as Arc<dyn ExecutionPlan>)),
                None => Ok(Transformed::no(node)),
            }
        })?;
        Ok(rewritten.data)
    }

    fn name(&self) -> &str {
        "dictionary_group_by"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// Where the rows' keys come from.
#[derive(Debug, Clone)]
enum KeySource {
    /// A `Dictionary(Int32, Utf8)` column of the input: the keys index its values.
    DictionaryColumn(usize),
    /// An expression of type (U)Int8 or (U)Int16: its whole domain (256 or 65536 values)
    /// is the one dictionary, a value's bits its index.
    SmallInteger(Arc<dyn PhysicalExpr>),
}

/// An aggregation grouped by one dictionary-encoded string column (see the module).
#[derive(Debug)]
pub(crate) struct DictionaryGroupByExec {
    /// The scan (with its row counter), producing the key as `Dictionary(Int32, Utf8)`,
    /// or any input for small integer keys.
    input: Arc<dyn ExecutionPlan>,
    key: KeySource,
    /// The key's name and type in the replaced plan (`Utf8View`, `Utf8`, or a one- or
    /// two-byte integer).
    key_field: Arc<Field>,
    /// A filter on the key alone, over a batch holding only the key column.
    key_filter: Option<Arc<dyn PhysicalExpr>>,
    aggregates: Vec<Arc<AggregateFunctionExpr>>,
    /// Every aggregate counts rows (`count()`, `count(1)`): rows are counted per
    /// dictionary value, and the accumulators are not used.
    counts_only: bool,
    /// Partial: emits accumulator states; Single: final values.
    partial: bool,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
}

impl DictionaryGroupByExec {
    fn try_replace(aggregate: &AggregateExec) -> Result<Option<Self>> {
        let partial = match aggregate.mode() {
            AggregateMode::Partial => true,
            AggregateMode::Single => false,
            _ => return Ok(None),
        };
        let group_by = aggregate.group_expr();
        if group_by.expr().len() != 1 || !group_by.is_single() || aggregate.limit_options().is_some() {
            return Ok(None);
        }
        if aggregate.filter_expr().iter().any(Option::is_some) {
            return Ok(None);
        }
        if aggregate.aggr_expr().iter().any(|a| !a.groups_accumulator_supported() || a.is_distinct() || !a.order_bys().is_empty()) {
            return Ok(None);
        }
        let counts_only = aggregate.aggr_expr().iter().all(|a| is_row_count(a));
        let input_schema = aggregate.input().schema();
        let schema = aggregate.schema();
        let key_expr = &group_by.expr()[0].0;
        if matches!(key_expr.data_type(&input_schema)?, DataType::UInt8 | DataType::Int8 | DataType::UInt16 | DataType::Int16)
            && aggregate.input_order_mode() == &datafusion::physical_plan::InputOrderMode::Linear
        {
            let key_field = Arc::new(Field::new(schema.field(0).name(), key_expr.data_type(&input_schema)?, key_expr.nullable(&input_schema)?));
            let input = aggregate.input().clone();
            let properties = Self::properties_for(&schema, &input);
            return Ok(Some(DictionaryGroupByExec {
                input,
                key: KeySource::SmallInteger(key_expr.clone()),
                key_field,
                key_filter: None,
                aggregates: aggregate.aggr_expr().to_vec(),
                counts_only,
                partial,
                schema,
                properties,
            }));
        }
        let Some(key) = key_expr.downcast_ref::<Column>() else { return Ok(None) };
        let key_field = Arc::new(input_schema.field(key.index()).clone());
        if !matches!(key_field.data_type(), DataType::Utf8View | DataType::Utf8) {
            return Ok(None);
        }
        // Aggregate arguments are evaluated on the scan's batches, where the key is a dictionary.
        for aggregate_expr in aggregate.aggr_expr() {
            if aggregate_expr.expressions().iter().any(|e| collect_columns(e).iter().any(|c| c.index() == key.index())) {
                return Ok(None);
            }
        }
        let mut below = aggregate.input().clone();
        let mut key_filter = None;
        if let Some(filter) = (below.as_ref() as &dyn Any).downcast_ref::<FilterExec>() {
            if filter.projection().is_some() {
                return Ok(None);
            }
            let columns = collect_columns(filter.predicate());
            // The filter runs once per distinct key, not per row.
            if columns.iter().any(|c| c.index() != key.index()) || is_volatile(filter.predicate()) {
                return Ok(None);
            }
            let over_key_alone = Arc::clone(filter.predicate()).transform(|e| match e.downcast_ref::<Column>() {
                Some(c) => Ok(Transformed::yes(Arc::new(Column::new(c.name(), 0)) as Arc<dyn PhysicalExpr>)),
                None => Ok(Transformed::no(e)),
            })?;
            key_filter = Some(over_key_alone.data);
            below = filter.input().clone();
        }
        let (counter, scan) = match (below.as_ref() as &dyn Any).downcast_ref::<ScanCounterExec>() {
            Some(_) => (true, below.children()[0].clone()),
            None => (false, below.clone()),
        };
        let Some(scan) = (scan.as_ref() as &dyn Any).downcast_ref::<DataSourceExec>() else { return Ok(None) };
        let Some(dictionary_scan) = granary_io::parquet_dictionary::with_dictionary_columns(scan, &[key_field.name().as_str()]) else { return Ok(None) };
        let dictionary_schema = dictionary_scan.schema();
        let key_column = key.index();
        if dictionary_schema.fields().len() != input_schema.fields().len()
            || dictionary_schema.field(key_column).data_type() != &granary_io::parquet_dictionary::dictionary_string_type()
        {
            return Ok(None);
        }
        let input: Arc<dyn ExecutionPlan> = if counter { ScanCounterExec::wrap(dictionary_scan) } else { dictionary_scan };
        let properties = Self::properties_for(&schema, &input);
        Ok(Some(DictionaryGroupByExec {
            input,
            key: KeySource::DictionaryColumn(key_column),
            key_field,
            key_filter,
            aggregates: aggregate.aggr_expr().to_vec(),
            counts_only,
            partial,
            schema,
            properties,
        }))
    }
}

impl DictionaryGroupByExec {
    fn properties_for(schema: &SchemaRef, input: &Arc<dyn ExecutionPlan>) -> Arc<PlanProperties> {
        Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(input.output_partitioning().partition_count()),
            EmissionType::Final,
            Boundedness::Bounded,
        ))
    }
}

impl DisplayAs for DictionaryGroupByExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let names: Vec<&str> = self.aggregates.iter().map(|a| a.name()).collect();
        write!(f, "DictionaryGroupByExec: mode={}, gby=[{}], aggr=[{}]", if self.partial { "Partial" } else { "Single" }, self.key_field.name(), names.join(", "))?;
        if matches!(self.key, KeySource::SmallInteger(_)) {
            write!(f, ", small_integer_key")?;
        }
        if self.counts_only {
            write!(f, ", counts_only")?;
        }
        if let Some(filter) = &self.key_filter {
            write!(f, ", key_filter={filter}")?;
        }
        Ok(())
    }
}

#[allow(deprecated)]
impl ExecutionPlan for DictionaryGroupByExec {
    fn name(&self) -> &str {
        "DictionaryGroupByExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(&self, _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        match children.pop() {
            Some(input) if children.is_empty() => Ok(Arc::new(DictionaryGroupByExec {
                input,
                key: self.key.clone(),
                key_field: self.key_field.clone(),
                key_filter: self.key_filter.clone(),
                aggregates: self.aggregates.clone(),
                counts_only: self.counts_only,
                partial: self.partial,
                schema: self.schema.clone(),
                properties: self.properties.clone(),
            })),
            _ => datafusion::common::internal_err!("DictionaryGroupByExec takes exactly one child"),
        }
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context.clone())?;
        // Counting rows needs no accumulators (see `group_counts`).
        let accumulators = if self.counts_only {
            Vec::new()
        } else {
            self.aggregates.iter().map(|a| a.create_groups_accumulator()).collect::<Result<Vec<_>>>()?
        };
        // Nullable: the key's values carry a NULL for rows without a key.
        let group_schema = Arc::new(Schema::new(vec![self.key_field.as_ref().clone().with_nullable(true)]));
        let groups = match self.key {
            KeySource::DictionaryColumn(_) => Groups::Strings(StringGroups::new()),
            KeySource::SmallInteger(_) => Groups::Domain(new_group_values(group_schema.clone(), &GroupOrdering::None)?),
        };
        let reservation = MemoryConsumer::new(format!("DictionaryGroupByExec[{partition}]")).register(context.memory_pool());
        let mut state = GroupingState {
            key: self.key.clone(),
            key_type: self.key_field.data_type().clone(),
            key_schema: group_schema,
            key_filter: self.key_filter.clone(),
            arguments: self.aggregates.iter().map(|a| a.expressions()).collect(),
            accumulators,
            groups,
            group_passes: Vec::new(),
            dictionary: None,
            group_used: Vec::new(),
            group_counts: self.counts_only.then(Vec::new),
            group_indices: Vec::new(),
            reservation,
        };
        let schema = self.schema.clone();
        let partial = self.partial;
        let batch_size = context.session_config().batch_size().max(1);
        let output = futures::stream::once(async move {
            let mut input = input;
            while let Some(batch) = input.next().await {
                state.update(&batch?)?;
            }
            let batch = state.emit(&schema, partial)?;
            let chunks: Vec<Result<RecordBatch>> =
                (0..batch.num_rows()).step_by(batch_size).map(|offset| Ok(batch.slice(offset, batch_size.min(batch.num_rows() - offset)))).collect();
            Ok::<_, DataFusionError>(futures::stream::iter(chunks))
        })
        .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), output)))
    }
}

/// `count()`, `count(*)` or `count(literal)`: the number of rows, whatever they hold.
/// Its result and its state are one integer column each (ClickHouse's count is UInt64,
/// DataFusion's state Int64).
fn is_row_count(aggregate: &AggregateFunctionExpr) -> bool {
    use datafusion::physical_expr::expressions::Literal;
    let integer = |t: &DataType| matches!(t, DataType::Int64 | DataType::UInt64);
    aggregate.fun().name() == "count"
        && aggregate.expressions().iter().all(|e| e.downcast_ref::<Literal>().is_some_and(|l| !l.value().is_null()))
        && integer(aggregate.field().data_type())
        && aggregate.state_fields().is_ok_and(|f| f.len() == 1 && integer(f[0].data_type()))
}

/// Every value of a one- or two-byte integer type, in the order of
/// [`small_integer_indices`]: the value whose bits (as unsigned) are `i` at `i`.
fn small_integer_domain(data_type: &DataType) -> Result<ArrayRef> {
    use arrow::array::{Int16Array, Int8Array, UInt16Array, UInt8Array};
    Ok(match data_type {
        DataType::UInt8 => Arc::new(UInt8Array::from_iter_values(0..=u8::MAX)),
        DataType::Int8 => Arc::new(Int8Array::from_iter_values((0..=u8::MAX).map(|b| b as i8))),
        DataType::UInt16 => Arc::new(UInt16Array::from_iter_values(0..=u16::MAX)),
        DataType::Int16 => Arc::new(Int16Array::from_iter_values((0..=u16::MAX).map(|b| b as i16))),
        other => return Err(DataFusionError::Internal(format!("not a small integer key: {other}"))),
    })
}

/// Each row's index into [`small_integer_domain`]; NULL keys get the index after it.
fn small_integer_indices(keys: &ArrayRef) -> Result<Vec<i32>> {
    use arrow::datatypes::{Int16Type, Int8Type, UInt16Type, UInt8Type};
    macro_rules! indices {
        ($t:ty, $bits:ty, $domain:expr) => {{
            let array = keys.as_primitive::<$t>();
            let mut indices: Vec<i32> = array.values().iter().map(|&v| i32::from(v as $bits)).collect();
            if let Some(nulls) = array.nulls().filter(|n| n.null_count() > 0) {
                for row in nulls.iter().enumerate().filter(|(_, valid)| !valid).map(|(row, _)| row) {
                    indices[row] = $domain;
                }
            }
            indices
        }};
    }
    Ok(match keys.data_type() {
        DataType::UInt8 => indices!(UInt8Type, u8, 256),
        DataType::Int8 => indices!(Int8Type, u8, 256),
        DataType::UInt16 => indices!(UInt16Type, u16, 65536),
        DataType::Int16 => indices!(Int16Type, u16, 65536),
        other => return Err(DataFusionError::Internal(format!("not a small integer key: {other}"))),
    })
}

/// The value does not pass the filter: rows with it are left out.
const FILTERED_OUT: u32 = u32::MAX;

/// What is known about the dictionary of the batches being read.
struct DictionaryState {
    values: ArrayRef,
    /// Per value (and a NULL at the end, for rows whose key is NULL): its group, or
    /// [`FILTERED_OUT`]. Every value that passes the filter gets a group when the
    /// dictionary arrives (one vectorized intern), whether rows use it or not.
    group_of_value: Vec<u32>,
    /// Per value: how many rows used it since it was last folded into the groups.
    /// Groups no row used are dropped when emitting.
    rows_of_value: Vec<u32>,
    /// Rows counted in `rows_of_value` (folded before a count could overflow).
    rows_counted: usize,
}

/// The group table.
enum Groups {
    /// String keys, interned a dictionary at a time.
    Strings(StringGroups),
    /// DataFusion's table, for the domain of a small integer key.
    Domain(Box<dyn GroupValues>),
}

impl Groups {
    fn len(&self) -> usize {
        match self {
            Groups::Strings(strings) => strings.len(),
            Groups::Domain(table) => table.len(),
        }
    }

    fn size(&self) -> usize {
        match self {
            Groups::Strings(strings) => strings.size(),
            Groups::Domain(table) => table.size(),
        }
    }

    fn emit(&mut self, key_type: &DataType) -> Result<ArrayRef> {
        match self {
            Groups::Strings(strings) => strings.emit(key_type),
            Groups::Domain(table) => {
                let mut columns = table.emit(EmitTo::All)?;
                columns.pop().filter(|_| columns.is_empty()).ok_or_else(|| DataFusionError::Internal("one key column expected".to_string()))
            }
        }
    }
}

struct GroupingState {
    key: KeySource,
    key_type: DataType,
    key_schema: SchemaRef,
    key_filter: Option<Arc<dyn PhysicalExpr>>,
    arguments: Vec<Vec<Arc<dyn PhysicalExpr>>>,
    accumulators: Vec<Box<dyn GroupsAccumulator>>,
    groups: Groups,
    /// Per string group: its key passes the filter.
    group_passes: Vec<bool>,
    dictionary: Option<DictionaryState>,
    /// Per group: some row belongs to it.
    group_used: Vec<bool>,
    /// Per group, when every aggregate counts rows: the count.
    group_counts: Option<Vec<i64>>,
    group_indices: Vec<usize>,
    reservation: MemoryReservation,
}

impl GroupingState {
    fn update(&mut self, batch: &RecordBatch) -> Result<()> {
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(());
        }
        let values_of_rows: Vec<i32>;
        let value_of_row: &[i32] = match &self.key {
            KeySource::DictionaryColumn(column) => {
                let key = batch.column(*column).as_dictionary_opt::<Int32Type>().ok_or_else(|| {
                    DataFusionError::Internal(format!("DictionaryGroupByExec expects a dictionary key, got {}", batch.column(*column).data_type()))
                })?;
                // The Parquet reader wraps one column chunk's dictionary in a new array for
                // every batch; the buffers are the same.
                if !self.dictionary.as_ref().is_some_and(|d| d.values.to_data().ptr_eq(&key.values().to_data())) {
                    self.finish_dictionary();
                    self.dictionary = Some(self.new_dictionary(key.values())?);
                }
                let null_value = key.values().len();
                let keys = key.keys();
                // Rows whose key is NULL use the extra value at the end. Keys out of range
                // (negative ones become huge as usize) are caught where rows index values.
                match keys.nulls().filter(|n| n.null_count() > 0) {
                    None => keys.values(),
                    Some(nulls) => {
                        values_of_rows = keys.values().iter().zip(nulls.iter()).map(|(&k, valid)| if valid { k } else { null_value as i32 }).collect();
                        &values_of_rows
                    }
                }
            }
            KeySource::SmallInteger(expr) => {
                let keys = expr.evaluate(batch)?.into_array(rows)?;
                if self.dictionary.is_none() {
                    self.dictionary = Some(self.new_dictionary(&small_integer_domain(keys.data_type())?)?);
                }
                values_of_rows = small_integer_indices(&keys)?;
                &values_of_rows
            }
        };
        let counting = self.group_counts.is_some();
        if counting {
            self.reserve_memory()?;
        }
        let Some(dictionary) = self.dictionary.as_mut() else { return Ok(()) };
        let value_count = dictionary.group_of_value.len();

        let key_out_of_range = || DataFusionError::Execution(format!("dictionary key out of range in column {}", self.key_schema.field(0).name()));
        if counting {
            let rows_of_value = &mut dictionary.rows_of_value[..value_count];
            let mut out_of_range = false;
            for &value in value_of_row {
                match rows_of_value.get_mut(value as usize) {
                    Some(count) => *count += 1,
                    None => out_of_range = true,
                }
            }
            if out_of_range {
                return Err(key_out_of_range());
            }
            dictionary.rows_counted += rows;
            if dictionary.rows_counted > (u32::MAX / 2) as usize {
                self.fold_dictionary_counts();
            }
            return Ok(());
        }

        // Each row's group, and the filter as a bitmap, 64 rows at a time.
        self.group_indices.clear();
        self.group_indices.resize(rows, 0);
        let group_of_value = &dictionary.group_of_value[..value_count];
        let rows_of_value = &mut dictionary.rows_of_value[..value_count];
        let mut mask_words: Vec<u64> = Vec::with_capacity(rows.div_ceil(64));
        let mut passing_rows = 0usize;
        let mut out_of_range = false;
        for (indices, values) in self.group_indices.chunks_mut(64).zip(value_of_row.chunks(64)) {
            let mut bits = 0u64;
            for (bit, (index, &value)) in indices.iter_mut().zip(values).enumerate() {
                let Some(&group) = group_of_value.get(value as usize) else {
                    out_of_range = true;
                    continue;
                };
                // Only whether a value was used matters here (the accumulators count).
                rows_of_value[value as usize] = 1;
                let passes = group != FILTERED_OUT;
                bits |= (passes as u64) << bit;
                // Rows that do not pass are masked out; any valid group index does for them.
                *index = if passes { group as usize } else { 0 };
            }
            passing_rows += bits.count_ones() as usize;
            mask_words.push(bits);
        }
        if out_of_range {
            return Err(key_out_of_range());
        }
        if passing_rows == 0 {
            return Ok(());
        }
        let mask = (passing_rows < rows).then(|| BooleanArray::new(BooleanBuffer::new(mask_words.into(), 0, rows), None));
        let total_groups = self.groups.len();
        for (accumulator, arguments) in self.accumulators.iter_mut().zip(&self.arguments) {
            let values = arguments.iter().map(|e| e.evaluate(batch).and_then(|v| v.into_array(rows))).collect::<Result<Vec<_>>>()?;
            accumulator.update_batch(&values, &self.group_indices, mask.as_ref(), total_groups)?;
        }
        self.reserve_memory()
    }

    /// Accounts what the groups hold so far to the query's memory pool.
    fn reserve_memory(&mut self) -> Result<()> {
        let size = self.groups.size()
            + self.accumulators.iter().map(|a| a.size()).sum::<usize>()
            + self.group_counts.as_ref().map_or(0, |c| c.capacity() * size_of::<i64>())
            + self.group_indices.capacity() * size_of::<usize>()
            + self.group_used.capacity();
        self.reservation.try_resize(size)
    }

    /// The group of each value of a new dictionary (and of NULL after them), or
    /// [`FILTERED_OUT`].
    fn new_dictionary(&mut self, values: &ArrayRef) -> Result<DictionaryState> {
        let group_of_value: Vec<u32> = match &mut self.groups {
            Groups::Strings(strings) => {
                let values = values
                    .as_string_opt::<i32>()
                    .ok_or_else(|| DataFusionError::Internal(format!("DictionaryGroupByExec expects Utf8 dictionary values, got {}", values.data_type())))?;
                let first_new = strings.len();
                let mut assigned = strings.intern(values)?;
                assigned.push(strings.null_group()?);
                // A string passes the filter or not whatever dictionary it comes in, so the
                // filter runs once per group, when the group is made.
                let added = first_new..strings.len();
                match &self.key_filter {
                    None => self.group_passes.resize(strings.len(), true),
                    Some(filter) if !added.is_empty() => {
                        let keys = strings.strings(added.clone(), &self.key_type)?;
                        let batch = RecordBatch::try_new(self.key_schema.clone(), vec![keys])?;
                        let result = filter.evaluate(&batch)?.into_array(added.len())?;
                        let result = result
                            .as_boolean_opt()
                            .ok_or_else(|| DataFusionError::Internal(format!("filter of DictionaryGroupByExec returned {}", result.data_type())))?;
                        // NULL is not a pass.
                        self.group_passes.extend((0..result.len()).map(|i| result.is_valid(i) && result.value(i)));
                    }
                    Some(_) => {}
                }
                let passes = &self.group_passes;
                assigned.into_iter().map(|group| if passes[group as usize] { group } else { FILTERED_OUT }).collect()
            }
            Groups::Domain(table) => {
                if self.key_filter.is_some() {
                    return Err(DataFusionError::Internal("DictionaryGroupByExec filters string keys only".to_string()));
                }
                let as_key = cast(values.as_ref(), &self.key_type)?;
                let with_null = concat(&[as_key.as_ref(), arrow::array::new_null_array(&self.key_type, 1).as_ref()])?;
                let mut assigned = Vec::with_capacity(with_null.len());
                table.intern(&[with_null], &mut assigned)?;
                assigned
                    .into_iter()
                    .map(|group| u32::try_from(group).ok().filter(|&g| g != FILTERED_OUT).ok_or_else(|| DataFusionError::Execution("too many groups".to_string())))
                    .collect::<Result<_>>()?
            }
        };
        let count = group_of_value.len();
        self.group_used.resize(self.groups.len(), false);
        if let Some(counts) = &mut self.group_counts {
            counts.resize(self.groups.len(), 0);
        }
        Ok(DictionaryState { values: values.clone(), group_of_value, rows_of_value: vec![0; count], rows_counted: 0 })
    }

    /// Adds what the rows of the current dictionary did to its groups: used them, and
    /// (when only counting) how many rows each has.
    fn fold_dictionary_counts(&mut self) {
        let Some(dictionary) = self.dictionary.as_mut() else { return };
        for (&group, rows) in dictionary.group_of_value.iter().zip(dictionary.rows_of_value.iter_mut()) {
            if *rows != 0 && group != FILTERED_OUT {
                self.group_used[group as usize] = true;
                if let Some(counts) = &mut self.group_counts {
                    counts[group as usize] += i64::from(*rows);
                }
            }
            *rows = 0;
        }
        dictionary.rows_counted = 0;
    }

    fn finish_dictionary(&mut self) {
        self.fold_dictionary_counts();
        self.dictionary = None;
    }

    fn emit(&mut self, schema: &SchemaRef, partial: bool) -> Result<RecordBatch> {
        self.finish_dictionary();
        let mut columns = vec![self.groups.emit(&self.key_type)?];
        if let Some(counts) = self.group_counts.take() {
            let counts: ArrayRef = Arc::new(Int64Array::from(counts));
            for field in &schema.fields()[columns.len()..] {
                columns.push(cast(&counts, field.data_type())?);
            }
            self.accumulators.clear();
        }
        for accumulator in &mut self.accumulators {
            if partial {
                columns.extend(accumulator.state(EmitTo::All)?);
            } else {
                columns.push(accumulator.evaluate(EmitTo::All)?);
            }
        }
        self.reservation.free();
        if self.group_used.iter().all(|&u| u) {
            return Ok(RecordBatch::try_new(schema.clone(), columns)?);
        }
        // Groups made ahead for values no row used (the NULL key's among them) are dropped
        // before the batch takes the output schema, whose key may be non-nullable.
        let used = BooleanArray::from(std::mem::take(&mut self.group_used));
        let columns = columns.iter().map(|c| arrow::compute::filter(c, &used)).collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(RecordBatch::try_new(schema.clone(), columns)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{DictionaryArray, Int32Array, Int64Array, StringArray};
    use datafusion::execution::memory_pool::{GreedyMemoryPool, MemoryPool};
    use datafusion::functions_aggregate::count::count_udaf;
    use datafusion::functions_aggregate::sum::sum_udaf;
    use datafusion::physical_expr::aggregate::AggregateExprBuilder;
    use datafusion::physical_expr::expressions::{lit, BinaryExpr};

    fn key_batch(schema: &SchemaRef, values: &ArrayRef, keys: Vec<Option<i32>>, scores: Vec<i64>) -> RecordBatch {
        let keys = DictionaryArray::<Int32Type>::try_new(Int32Array::from(keys), values.clone()).expect("dictionary");
        RecordBatch::try_new(schema.clone(), vec![Arc::new(keys), Arc::new(Int64Array::from(scores))]).expect("batch")
    }

    fn input_schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("name", granary_io::parquet_dictionary::dictionary_string_type(), true),
            Field::new("score", DataType::Int64, false),
        ]))
    }

    /// The groups of three batches (two dictionaries, the first one twice in different
    /// arrays, as the Parquet reader makes them), filtered by `name != 'skip'`, as
    /// sorted (name, aggregate values) rows.
    fn grouped(aggregates: Vec<Arc<AggregateFunctionExpr>>, counts_only: bool) -> Vec<(Option<String>, Vec<i64>)> {
        let input_schema = input_schema();
        let key_field = Arc::new(Field::new("name", DataType::Utf8View, true));
        let key_schema = Arc::new(Schema::new(vec![key_field.as_ref().clone()]));
        let filter: Arc<dyn PhysicalExpr> = Arc::new(BinaryExpr::new(
            Arc::new(Column::new("name", 0)),
            datafusion::logical_expr::Operator::NotEq,
            lit(datafusion::common::ScalarValue::Utf8View(Some("skip".to_string()))),
        ));
        let pool: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(1 << 30));
        let mut state = GroupingState {
            key: KeySource::DictionaryColumn(0),
            key_type: DataType::Utf8View,
            key_schema: key_schema.clone(),
            key_filter: Some(filter),
            arguments: aggregates.iter().map(|a| a.expressions()).collect(),
            accumulators: aggregates.iter().map(|a| a.create_groups_accumulator().expect("accumulator")).collect(),
            groups: Groups::Strings(StringGroups::new()),
            group_passes: Vec::new(),
            dictionary: None,
            group_used: Vec::new(),
            group_counts: counts_only.then(Vec::new),
            group_indices: Vec::new(),
            reservation: MemoryConsumer::new("test").register(&pool),
        };
        let first: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "skip", "unused"]));
        state.update(&key_batch(&input_schema, &first, vec![Some(0), Some(1), Some(2), None, Some(0)], vec![1, 2, 4, 8, 16])).expect("update");
        let again = arrow::array::make_array(first.to_data());
        state.update(&key_batch(&input_schema, &again, vec![Some(1)], vec![32])).expect("update");
        // "skip" comes again: it stays filtered out without the filter running on it again.
        let second: ArrayRef = Arc::new(StringArray::from(vec!["never", "c", "a", "skip"]));
        state.update(&key_batch(&input_schema, &second, vec![Some(2), Some(1), None, Some(3)], vec![64, 128, 256, 512])).expect("update");
        let mut fields = vec![key_field.as_ref().clone()];
        fields.extend(aggregates.iter().map(|a| a.field().as_ref().clone()));
        let batch = state.emit(&Arc::new(Schema::new(fields)), false).expect("emit");
        let mut rows: Vec<(Option<String>, Vec<i64>)> = (0..batch.num_rows())
            .map(|i| {
                let name = batch.column(0).as_string_view();
                let values = (1..batch.num_columns()).map(|c| batch.column(c).as_primitive::<arrow::datatypes::Int64Type>().value(i)).collect();
                (name.is_valid(i).then(|| name.value(i).to_string()), values)
            })
            .collect();
        rows.sort();
        rows
    }

    fn count() -> Arc<AggregateFunctionExpr> {
        Arc::new(AggregateExprBuilder::new(count_udaf(), vec![lit(1i64)]).schema(input_schema()).alias("c").build().expect("count"))
    }

    /// Groups like a plain GROUP BY: across dictionaries, with NULL keys, a filter, and
    /// dictionary values that no row uses (which must not become groups). NULL keys fail
    /// `name != 'skip'`, as in SQL.
    #[test]
    fn groups_rows_by_dictionary_value() {
        let score = Arc::new(Column::new("score", 1)) as Arc<dyn PhysicalExpr>;
        let sum = Arc::new(AggregateExprBuilder::new(sum_udaf(), vec![score]).schema(input_schema()).alias("s").build().expect("sum"));
        let expected = vec![(Some("a".to_string()), vec![3, 1 + 16 + 64]), (Some("b".to_string()), vec![2, 2 + 32]), (Some("c".to_string()), vec![1, 128])];
        assert_eq!(grouped(vec![count(), sum], false), expected);
    }

    #[test]
    fn counts_rows_per_dictionary_value() {
        assert!(is_row_count(&count()));
        let expected = vec![(Some("a".to_string()), vec![3, 3]), (Some("b".to_string()), vec![2, 2]), (Some("c".to_string()), vec![1, 1])];
        assert_eq!(grouped(vec![count(), count()], true), expected);
        assert_eq!(grouped(vec![count(), count()], false), expected);
    }
}
