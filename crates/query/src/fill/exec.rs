//! The WITH FILL operator: each sorted input batch goes out with the rows that fill its
//! gaps interleaved; what carries over between batches is the filling row, the last
//! row's sort prefix and, under INTERPOLATE, the last row. Rows before FROM's value and
//! up to TO are added when the first batch arrives and when the input ends.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use arrow::array::{new_null_array, Array, ArrayRef, AsArray, Float64Array, Int64Array, PrimitiveArray, RecordBatch};
use arrow::compute::{cast, concat, interleave};
use arrow::datatypes::{i256, DataType, Decimal256Type, Float64Type, Int64Type, SchemaRef};
use granary_types::wide::{unsigned_order_key, unsigned_order_keys, WideInt};
use arrow::row::{OwnedRow, RowConverter, SortField};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::ScalarValue;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, LexOrdering, OrderingRequirements, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, Distribution, ExecutionPlan, Partitioning, PlanProperties};
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

use super::row::{equals, less, FillKey, FillValue, FillingRow};
use super::FillSpec;

#[derive(Debug)]
pub(crate) struct FillExec {
    input: Arc<dyn ExecutionPlan>,
    spec: Arc<FillSpec>,
    interpolate: Vec<Arc<dyn PhysicalExpr>>,
    /// The input's sort order, required so sorted partitions are merged, not concatenated.
    ordering: Option<LexOrdering>,
    properties: Arc<PlanProperties>,
}

impl FillExec {
    pub(crate) fn new(input: Arc<dyn ExecutionPlan>, spec: Arc<FillSpec>, interpolate: Vec<Arc<dyn PhysicalExpr>>, ordering: Option<LexOrdering>) -> Self {
        let properties = PlanProperties::new(
            EquivalenceProperties::new(input.schema()),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        FillExec { input, spec, interpolate, ordering, properties: Arc::new(properties) }
    }
}

impl DisplayAs for FillExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "FillExec: {}", self.spec.description)
    }
}

impl ExecutionPlan for FillExec {
    fn name(&self) -> &str {
        "FillExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn required_input_distribution(&self) -> Vec<Distribution> {
        vec![Distribution::SinglePartition]
    }

    fn required_input_ordering(&self) -> Vec<Option<OrderingRequirements>> {
        vec![self.ordering.clone().map(OrderingRequirements::from)]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![false]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(&self, f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> datafusion::common::Result<TreeNodeRecursion>) -> datafusion::common::Result<TreeNodeRecursion> {
        let mut recursion = TreeNodeRecursion::Continue;
        for expr in &self.interpolate {
            recursion = f(expr)?;
            if recursion == TreeNodeRecursion::Stop {
                break;
            }
        }
        Ok(recursion)
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let (Some(input), true) = (children.pop(), children.is_empty()) else {
            return datafusion::common::internal_err!("FillExec has one child");
        };
        Ok(Arc::new(FillExec::new(input, self.spec.clone(), self.interpolate.clone(), self.ordering.clone())))
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> datafusion::common::Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context)?;
        let schema = self.input.schema();
        let filler = Filler::new(schema.clone(), self.spec.clone(), self.interpolate.clone())?;
        let stream = futures::stream::unfold(Some((input, filler)), |state| async move {
            let (mut input, mut filler) = state?;
            loop {
                match input.next().await {
                    Some(Ok(batch)) if batch.num_rows() == 0 => continue,
                    Some(Ok(batch)) => {
                        return match filler.push(&batch) {
                            Ok(out) => Some((Ok(out), Some((input, filler)))),
                            Err(e) => Some((Err(e.into_datafusion()), None)),
                        };
                    }
                    Some(Err(e)) => return Some((Err(e), None)),
                    None => {
                        return match filler.finish() {
                            Ok(Some(out)) => Some((Ok(out), None)),
                            Ok(None) => None,
                            Err(e) => Some((Err(e.into_datafusion()), None)),
                        };
                    }
                }
            }
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

/// What a column of an added row holds.
#[derive(Clone, Copy)]
enum Role {
    /// The i-th WITH FILL key's generated value.
    Fill(usize),
    /// A sort-prefix column: the value of the range the row belongs to.
    Prefix(usize),
    /// The i-th INTERPOLATE expression over the row before.
    Interpolate(usize),
    /// Anything else: the type's default.
    Other,
}

#[derive(Clone, Copy)]
enum OutRow {
    Input(usize),
    Generated(usize),
}

/// Where an added row takes its sort-prefix values from.
#[derive(Clone, Copy)]
enum PrefixSource {
    Input(usize),
    /// `Output::saved_prefixes[i]`: the last range's prefix when the row was added (the
    /// suffix of a range is added once the next range has begun).
    Saved(usize),
    Default,
}

/// The rows of one output batch, and what the added ones hold.
struct Output {
    rows: Vec<OutRow>,
    fill: Vec<Vec<Option<FillValue>>>,
    prefix: Vec<PrefixSource>,
    saved_prefixes: Vec<Vec<ArrayRef>>,
    interpolated: Vec<Vec<ArrayRef>>,
}

struct Filler {
    schema: SchemaRef,
    spec: Arc<FillSpec>,
    keys: Vec<FillKey>,
    interpolate: Vec<Arc<dyn PhysicalExpr>>,
    roles: Vec<Role>,
    /// One-row arrays of each column's default (NULL for Nullable columns).
    defaults: Vec<ArrayRef>,
    filling_row: FillingRow,
    next_row: FillingRow,
    filling_row_inserted: bool,
    seen_rows: bool,
    /// The sort prefix of the last row of the previous range (one-row arrays).
    last_range_prefix: Option<Vec<ArrayRef>>,
    prefix_converter: Option<RowConverter>,
    last_prefix_row: Option<OwnedRow>,
    /// The last row sent (one-row batch); kept only under INTERPOLATE.
    previous_row: Option<RecordBatch>,
}

impl Filler {
    fn new(schema: SchemaRef, spec: Arc<FillSpec>, interpolate: Vec<Arc<dyn PhysicalExpr>>) -> Result<Self> {
        let mut roles = vec![Role::Other; schema.fields().len()];
        for (i, &column) in spec.interpolate_columns.iter().enumerate() {
            roles[column] = Role::Interpolate(i);
        }
        for (i, &column) in spec.prefix.iter().enumerate() {
            roles[column] = Role::Prefix(i);
        }
        for (i, (column, _)) in spec.keys.iter().enumerate() {
            roles[*column] = Role::Fill(i);
        }
        let defaults = schema.fields().iter().map(|f| default_array(f)).collect::<Result<Vec<_>>>()?;
        let prefix_converter = if spec.prefix.is_empty() {
            None
        } else {
            Some(RowConverter::new(spec.prefix.iter().map(|&c| SortField::new(schema.field(c).data_type().clone())).collect())?)
        };
        let width = spec.keys.len();
        Ok(Filler {
            keys: spec.keys.iter().map(|(_, k)| k.clone()).collect(),
            schema,
            spec,
            interpolate,
            roles,
            defaults,
            filling_row: FillingRow::new(width),
            next_row: FillingRow::new(width),
            filling_row_inserted: false,
            seen_rows: false,
            last_range_prefix: None,
            prefix_converter,
            last_prefix_row: None,
            previous_row: None,
        })
    }

    fn output(&self) -> Output {
        Output {
            rows: Vec::new(),
            fill: vec![Vec::new(); self.keys.len()],
            prefix: Vec::new(),
            saved_prefixes: Vec::new(),
            interpolated: vec![Vec::new(); self.interpolate.len()],
        }
    }

    /// The WITH FILL key columns of `batch` as `Int64`, `Float64` or (wide integers, in
    /// [`FillValue::Wide`]'s order form) `Decimal256`.
    fn carriers(&self, batch: &RecordBatch) -> Result<Vec<ArrayRef>> {
        self.spec
            .keys
            .iter()
            .map(|(column, key)| {
                let array = batch.column(*column);
                if let Some(wide) = key.wide {
                    let words = wide.widen(array.as_ref())?;
                    return Ok(Arc::new(if wide == WideInt::UInt256 { unsigned_order_keys(&words) } else { words }) as ArrayRef);
                }
                let carrier = if key.is_float() { DataType::Float64 } else { DataType::Int64 };
                let array = if array.data_type() == &DataType::Date32 { cast(array, &DataType::Int32)? } else { array.clone() };
                Ok(cast(&array, &carrier)?)
            })
            .collect()
    }

    fn push(&mut self, input: &RecordBatch) -> Result<RecordBatch> {
        let carriers = self.carriers(input)?;
        let mut out = self.output();
        let rows = input.num_rows();
        match self.prefix_converter.as_ref() {
            None => {
                let new_range = !self.seen_rows;
                self.transform_range(input, &carriers, 0..rows, new_range, &mut out)?;
            }
            Some(converter) => {
                let prefix: Vec<ArrayRef> = self.spec.prefix.iter().map(|&c| input.column(c).clone()).collect();
                let keys = converter.convert_columns(&prefix)?;
                let mut new_range = self.last_prefix_row.as_ref().is_none_or(|last| last.row() != keys.row(0));
                let mut start = 0;
                while start < rows {
                    let mut end = start + 1;
                    while end < rows && keys.row(end) == keys.row(start) {
                        end += 1;
                    }
                    if self.last_range_prefix.is_some() && new_range {
                        self.generate_suffix(input, &mut out)?;
                    }
                    self.transform_range(input, &carriers, start..end, new_range, &mut out)?;
                    start = end;
                    new_range = true;
                }
                self.last_prefix_row = Some(keys.row(rows - 1).owned());
            }
        }
        self.seen_rows = true;
        self.assemble(input, &out)
    }

    /// The rows after the last one, up to TO (or FROM..TO when there was no row at all).
    fn finish(&mut self) -> Result<Option<RecordBatch>> {
        if !self.seen_rows {
            self.filling_row.init_using_from(0, &self.keys);
            self.filling_row_inserted = false;
        }
        let input = RecordBatch::new_empty(self.schema.clone());
        let mut out = self.output();
        self.generate_suffix(&input, &mut out)?;
        if out.rows.is_empty() {
            return Ok(None);
        }
        self.assemble(&input, &out).map(Some)
    }

    /// ClickHouse's `FillingTransform::transformRange`: the rows of one sort-prefix range.
    fn transform_range(&mut self, input: &RecordBatch, carriers: &[ArrayRef], range: Range<usize>, new_range: bool, out: &mut Output) -> Result<()> {
        if new_range {
            for i in 0..self.keys.len() {
                let current = carrier_value(&carriers[i], range.start);
                let from = self.keys[i].from;
                if from.is_some() && !equals(current, from) {
                    self.filling_row.init_using_from(i, &self.keys);
                    self.filling_row_inserted = false;
                    if less(from, current, self.keys[i].direction) {
                        self.insert_filling_row(input, PrefixSource::Input(range.start), out)?;
                    }
                    break;
                }
                self.filling_row.values[i] = current;
            }
        }
        for row in range.clone() {
            let should_insert_first = self.next_row.less_than(&self.filling_row, &self.keys);
            for (i, carrier) in carriers.iter().enumerate() {
                self.next_row.values[i] = carrier_value(carrier, row);
            }
            // A row set from FROM that comes before this one (once per range).
            if should_insert_first && self.filling_row.less_than(&self.next_row, &self.keys) && self.filling_row.constraints_satisfied(&self.keys) {
                self.insert_filling_row(input, PrefixSource::Input(row), out)?;
            }
            let mut changed = false;
            while self.filling_row.next(&self.next_row, &self.keys, &mut changed)? {
                self.insert_filling_row(input, PrefixSource::Input(row), out)?;
                changed = false;
            }
            if changed {
                self.filling_row_inserted = false;
            }
            out.rows.push(OutRow::Input(row));
            if !self.interpolate.is_empty() {
                self.previous_row = Some(input.slice(row, 1));
            }
        }
        if !self.spec.prefix.is_empty() {
            let last = range.end - 1;
            self.last_range_prefix = Some(self.spec.prefix.iter().map(|&c| input.column(c).slice(last, 1)).collect());
        }
        Ok(())
    }

    /// ClickHouse's `generateSuffixIfNeeded`: rows up to TO after a range ends.
    fn generate_suffix(&mut self, input: &RecordBatch, out: &mut Output) -> Result<()> {
        let should_insert_first =
            (self.next_row.less_than(&self.filling_row, &self.keys) && !self.filling_row_inserted) || (self.next_row.is_null() && !self.filling_row.is_null());
        self.next_row = FillingRow::new(self.keys.len());
        if !FillingRow::has_some_constraints(&self.keys) || !self.filling_row.constraints_satisfied(&self.keys) {
            return Ok(());
        }
        let prefix = match &self.last_range_prefix {
            Some(saved) => {
                out.saved_prefixes.push(saved.clone());
                PrefixSource::Saved(out.saved_prefixes.len() - 1)
            }
            None => PrefixSource::Default,
        };
        if should_insert_first {
            self.insert_filling_row(input, prefix, out)?;
        }
        let mut changed = false;
        while self.filling_row.next(&self.next_row, &self.keys, &mut changed)? {
            self.insert_filling_row(input, prefix, out)?;
        }
        if changed {
            self.filling_row_inserted = false;
        }
        Ok(())
    }

    fn insert_filling_row(&mut self, input: &RecordBatch, prefix: PrefixSource, out: &mut Output) -> Result<()> {
        let index = out.prefix.len();
        for (values, value) in out.fill.iter_mut().zip(&self.filling_row.values) {
            values.push(*value);
        }
        out.prefix.push(prefix);
        out.rows.push(OutRow::Generated(index));
        self.filling_row_inserted = true;
        if self.interpolate.is_empty() {
            return Ok(());
        }
        let previous = match &self.previous_row {
            Some(row) => row.clone(),
            None => RecordBatch::try_new(self.schema.clone(), self.defaults.clone())?,
        };
        for (i, expr) in self.interpolate.iter().enumerate() {
            let column = self.spec.interpolate_columns[i];
            let value = expr.evaluate(&previous)?.into_array(1)?;
            let value = cast(&value, self.schema.field(column).data_type())?;
            out.interpolated[i].push(value);
        }
        // The added row is the "row before" of the next one.
        let columns = (0..self.schema.fields().len()).map(|c| self.generated_column(input, out, c, index..index + 1)).collect::<Result<Vec<_>>>()?;
        self.previous_row = Some(RecordBatch::try_new(self.schema.clone(), columns)?);
        Ok(())
    }

    /// Column `column` of the added rows `rows`.
    fn generated_column(&self, input: &RecordBatch, out: &Output, column: usize, rows: Range<usize>) -> Result<ArrayRef> {
        match self.roles[column] {
            Role::Fill(i) => self.fill_array(i, column, &out.fill[i][rows]),
            Role::Interpolate(i) => {
                let parts: Vec<&dyn Array> = out.interpolated[i][rows].iter().map(|a| a.as_ref()).collect();
                Ok(concat(&parts)?)
            }
            Role::Prefix(i) => {
                let mut sources: Vec<&dyn Array> = vec![input.column(column).as_ref(), self.defaults[column].as_ref()];
                sources.extend(out.saved_prefixes.iter().map(|saved| saved[i].as_ref()));
                let indices: Vec<(usize, usize)> = out.prefix[rows]
                    .iter()
                    .map(|p| match p {
                        PrefixSource::Input(row) => (0, *row),
                        PrefixSource::Default => (1, 0),
                        PrefixSource::Saved(index) => (2 + index, 0),
                    })
                    .collect();
                Ok(interleave(&sources, &indices)?)
            }
            Role::Other => {
                let indices = vec![(0, 0); rows.len()];
                Ok(interleave(&[self.defaults[column].as_ref()], &indices)?)
            }
        }
    }

    /// Generated key values as the column's type; NULL is the column's default.
    fn fill_array(&self, key: usize, column: usize, values: &[Option<FillValue>]) -> Result<ArrayRef> {
        let field = self.schema.field(column);
        let nullable = ChType::from_field(field).is_nullable();
        let fill_null = |v: &Option<FillValue>, zero: FillValue| if nullable { *v } else { Some(v.unwrap_or(zero)) };
        if let Some(wide) = self.keys[key].wide {
            // Order form back to the value: a `UInt256`'s flip is its own inverse.
            let value_of = |v: i256| if wide == WideInt::UInt256 { unsigned_order_key(v) } else { v };
            let words: PrimitiveArray<Decimal256Type> = values
                .iter()
                .map(|v| match fill_null(v, FillValue::Wide(value_of(i256::ZERO))) {
                    Some(FillValue::Wide(w)) => Some(value_of(w)),
                    _ => None,
                })
                .collect();
            return Ok(wide.narrow(&words));
        }
        let carrier: ArrayRef = if self.keys[key].is_float() {
            Arc::new(
                values
                    .iter()
                    .map(|v| match fill_null(v, FillValue::Float(0.0)) {
                        Some(FillValue::Float(f)) => Some(f),
                        Some(FillValue::Int(i)) => Some(i as f64),
                        Some(FillValue::Wide(_)) | None => None,
                    })
                    .collect::<Float64Array>(),
            )
        } else {
            Arc::new(
                values
                    .iter()
                    .map(|v| match fill_null(v, FillValue::Int(0)) {
                        Some(FillValue::Int(i)) => Some(i),
                        Some(FillValue::Float(f)) => Some(f as i64),
                        Some(FillValue::Wide(_)) | None => None,
                    })
                    .collect::<Int64Array>(),
            )
        };
        let carrier = if field.data_type() == &DataType::Date32 { cast(&carrier, &DataType::Int32)? } else { carrier };
        Ok(cast(&carrier, field.data_type())?)
    }

    /// The output batch: input rows with the added ones in between.
    fn assemble(&self, input: &RecordBatch, out: &Output) -> Result<RecordBatch> {
        let generated = out.prefix.len();
        if generated == 0 {
            return Ok(input.clone());
        }
        let indices: Vec<(usize, usize)> = out
            .rows
            .iter()
            .map(|r| match r {
                OutRow::Input(row) => (0, *row),
                OutRow::Generated(index) => (1, *index),
            })
            .collect();
        let columns = (0..self.schema.fields().len())
            .map(|c| {
                let added = self.generated_column(input, out, c, 0..generated)?;
                Ok(interleave(&[input.column(c).as_ref(), added.as_ref()], &indices)?)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

fn carrier_value(array: &ArrayRef, row: usize) -> Option<FillValue> {
    if array.is_null(row) {
        return None;
    }
    match array.data_type() {
        DataType::Float64 => Some(FillValue::Float(array.as_primitive::<Float64Type>().value(row))),
        DataType::Decimal256(..) => Some(FillValue::Wide(array.as_primitive::<Decimal256Type>().value(row))),
        _ => Some(FillValue::Int(array.as_primitive::<Int64Type>().value(row))),
    }
}

/// A one-row array holding the default of `field`'s ClickHouse type.
fn default_array(field: &arrow::datatypes::Field) -> Result<ArrayRef> {
    if ChType::from_field(field).is_nullable() {
        return Ok(new_null_array(field.data_type(), 1));
    }
    let value = ScalarValue::new_default(field.data_type())
        .map_err(|e| Error::new(ErrorCode::NOT_IMPLEMENTED, format!("WITH FILL has no default value for column {}: {e}", field.name())))?;
    Ok(value.to_array_of_size(1)?)
}
