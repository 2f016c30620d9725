//! ASOF joins: each left row meets the one right row with equal keys whose ASOF value is
//! the closest on the side its inequality allows (`l.t >= r.t`: the largest `r.t` not
//! above `l.t`), or none.
//!
//! The SQL front end leaves an ASOF join as a join whose condition holds
//! `__granary_asof(a, b, 'op')` in place of the inequality ([`granary_sql::ASOF_MARKER`]).
//! After planning, [`plan_asof_joins`] replaces each such join by an [`AsofJoinNode`]:
//! the ON equalities are its keys, conditions on one side only filter that side (for an
//! ASOF LEFT JOIN, left-side conditions decide which left rows may match instead).
//! [`AsofJoinExec`] collects the right side once, groups its rows by key and sorts each
//! group by the ASOF value (both in Arrow's row format, so every type orders as it
//! compares); each left row then finds its match by binary search. Like ClickHouse's
//! hash ASOF join, the right side is held in memory; the left side streams.
//!
//! The node keeps the join's output schema (left columns, then right columns; nullable
//! right columns for LEFT), so what was planned above the join (`join_use_nulls = 0`
//! defaults, projections) stays as it was.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt32Array};
use arrow::compute::{cast, concat_batches, filter_record_batch, take};
use arrow::datatypes::{DataType, SchemaRef};
use arrow::row::{RowConverter, Rows, SortField};
use async_trait::async_trait;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{DFSchemaRef, DataFusionError, ScalarValue};
use datafusion::catalog::Session;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::type_coercion::binary::comparison_coercion;
use datafusion::logical_expr::utils::split_conjunction;
use datafusion::logical_expr::logical_plan::builder::build_join_schema;
use datafusion::logical_expr::{
    BinaryExpr, ColumnarValue, Expr, Extension, Filter, JoinType, LogicalPlan, Operator, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    UserDefinedLogicalNode, UserDefinedLogicalNodeCore, Volatility,
};
use datafusion::physical_expr::expressions::CastExpr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, Distribution, ExecutionPlan, ExecutionPlanProperties, PlanProperties};
use datafusion::logical_expr::physical_planning_context::PhysicalPlanningContext;
use datafusion::physical_planner::{ExtensionPlanner, PhysicalPlanner};
use futures::{StreamExt, TryStreamExt};
use granary_common::{Error, ErrorCode, Result};
use granary_sql::ASOF_MARKER;

/// Which right row a left row meets: the inequality `left op right`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd)]
pub(crate) enum AsofOp {
    /// `left >= right`: the largest right value not above the left one.
    GreaterOrEqual,
    /// `left > right`: the largest right value below the left one.
    Greater,
    /// `left <= right`: the smallest right value not below the left one.
    LessOrEqual,
    /// `left < right`: the smallest right value above the left one.
    Less,
}

impl AsofOp {
    fn parse(text: &str) -> Option<AsofOp> {
        Some(match text {
            ">=" => AsofOp::GreaterOrEqual,
            ">" => AsofOp::Greater,
            "<=" => AsofOp::LessOrEqual,
            "<" => AsofOp::Less,
            _ => return None,
        })
    }

    /// The same condition with its sides swapped (`a >= b` is `b <= a`).
    fn swapped(self) -> AsofOp {
        match self {
            AsofOp::GreaterOrEqual => AsofOp::LessOrEqual,
            AsofOp::Greater => AsofOp::Less,
            AsofOp::LessOrEqual => AsofOp::GreaterOrEqual,
            AsofOp::Less => AsofOp::Greater,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            AsofOp::GreaterOrEqual => ">=",
            AsofOp::Greater => ">",
            AsofOp::LessOrEqual => "<=",
            AsofOp::Less => "<",
        }
    }

    /// The position in `group` (right rows sorted by ASOF value) of the row `left` meets.
    fn find(self, group: &[u32], values: &Rows, left: arrow::row::Row<'_>) -> Option<u32> {
        let value = |r: &u32| values.row(*r as usize);
        match self {
            AsofOp::GreaterOrEqual => group.partition_point(|r| value(r) <= left).checked_sub(1).map(|p| group[p]),
            AsofOp::Greater => group.partition_point(|r| value(r) < left).checked_sub(1).map(|p| group[p]),
            AsofOp::LessOrEqual => group.get(group.partition_point(|r| value(r) < left)).copied(),
            AsofOp::Less => group.get(group.partition_point(|r| value(r) <= left)).copied(),
        }
    }
}

/// The marker the SQL front end writes for the inequality; it has no meaning outside an
/// ASOF join, which replaces it before anything runs.
pub(crate) fn asof_marker_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(AsofMarker { signature: Signature::variadic_any(Volatility::Immutable) })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct AsofMarker {
    signature: Signature,
}

impl ScalarUDFImpl for AsofMarker {
    fn name(&self) -> &str {
        ASOF_MARKER
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> datafusion::common::Result<DataType> {
        Ok(DataType::Boolean)
    }
    fn invoke_with_args(&self, _: ScalarFunctionArgs) -> datafusion::common::Result<ColumnarValue> {
        Err(Error::new(ErrorCode::INVALID_JOIN_ON_EXPRESSION, "An ASOF JOIN condition can only be used in the ON clause of an ASOF JOIN").into_datafusion())
    }
}

/// Replaces every join of `plan` that carries the ASOF marker by an [`AsofJoinNode`].
pub(crate) fn plan_asof_joins(plan: LogicalPlan) -> Result<LogicalPlan> {
    let out = plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::Join(join) = &node else { return Ok(Transformed::no(node)) };
        let Some(filter) = &join.filter else { return Ok(Transformed::no(node)) };
        if !contains_marker(filter) {
            return Ok(Transformed::no(node));
        }
        asof_node(join).map(Transformed::yes).map_err(Error::into_datafusion)
    })?;
    Ok(out.data)
}

fn contains_marker(expr: &Expr) -> bool {
    expr.exists(|e| Ok(matches!(e, Expr::ScalarFunction(f) if f.func.name() == ASOF_MARKER))).unwrap_or(false)
}

fn asof_node(join: &datafusion::logical_expr::Join) -> Result<LogicalPlan> {
    let join_type = match join.join_type {
        JoinType::Inner | JoinType::Left => join.join_type,
        _ => return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Wrong ASOF JOIN type. Only ASOF and LEFT ASOF joins are supported")),
    };
    let side_of = |e: &Expr| -> Option<usize> {
        let columns = e.column_refs();
        if columns.is_empty() {
            return None;
        }
        if columns.iter().all(|c| join.left.schema().has_column(c)) {
            Some(0)
        } else if columns.iter().all(|c| join.right.schema().has_column(c)) {
            Some(1)
        } else {
            None
        }
    };
    let mut keys: Vec<(Expr, Expr)> = join.on.clone();
    let mut asof = None;
    let (mut left_conditions, mut right_conditions) = (Vec::new(), Vec::new());
    let filter = join.filter.clone().unwrap_or_else(|| Expr::Literal(ScalarValue::Boolean(Some(true)), None));
    for conjunct in split_conjunction(&filter) {
        match conjunct {
            Expr::ScalarFunction(ScalarFunction { func, args }) if func.name() == ASOF_MARKER => {
                let op = match args.get(2) {
                    Some(Expr::Literal(ScalarValue::Utf8(Some(op)), _)) => AsofOp::parse(op),
                    _ => None,
                };
                let (Some(op), [a, b, _]) = (op, args.as_slice()) else {
                    return Err(Error::new(ErrorCode::LOGICAL_ERROR, "Malformed ASOF JOIN condition"));
                };
                asof = Some(match (side_of(a), side_of(b)) {
                    (Some(0), Some(1)) => (a.clone(), b.clone(), op),
                    (Some(1), Some(0)) => (b.clone(), a.clone(), op.swapped()),
                    _ => {
                        return Err(Error::new(
                            ErrorCode::INVALID_JOIN_ON_EXPRESSION,
                            format!("The inequality of an ASOF JOIN must compare the left table with the right one, not {a} {} {b}", op.symbol()),
                        ))
                    }
                });
            }
            Expr::BinaryExpr(BinaryExpr { left, op: Operator::Eq, right }) if side_of(left).zip(side_of(right)).is_some_and(|(l, r)| l != r) => {
                if side_of(left) == Some(0) {
                    keys.push((left.as_ref().clone(), right.as_ref().clone()));
                } else {
                    keys.push((right.as_ref().clone(), left.as_ref().clone()));
                }
            }
            other => match side_of(other) {
                Some(0) => left_conditions.push(other.clone()),
                Some(1) => right_conditions.push(other.clone()),
                _ => {
                    return Err(Error::new(
                        ErrorCode::INVALID_JOIN_ON_EXPRESSION,
                        format!("ASOF JOIN supports only equalities, one inequality and conditions on one table in ON, not {other}"),
                    ))
                }
            },
        }
    }
    let Some((left_asof, right_asof, op)) = asof else {
        return Err(Error::new(ErrorCode::LOGICAL_ERROR, "ASOF JOIN without its inequality"));
    };
    if keys.is_empty() {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "ASOF join with hash algorithm needs at least one equi-join column"));
    }
    let conjunction = |conditions: Vec<Expr>| conditions.into_iter().reduce(Expr::and);
    let right = match conjunction(right_conditions) {
        Some(predicate) => Arc::new(LogicalPlan::Filter(Filter::try_new(predicate, join.right.clone())?)),
        None => join.right.clone(),
    };
    // An inner join drops left rows failing a left condition; a LEFT join keeps them unmatched.
    let (left, left_filter) = match (conjunction(left_conditions), join_type) {
        (Some(predicate), JoinType::Inner) => (Arc::new(LogicalPlan::Filter(Filter::try_new(predicate, join.left.clone())?)), None),
        (predicate, _) => (join.left.clone(), predicate),
    };
    let node = AsofJoinNode { left: (*left).clone(), right: (*right).clone(), keys, left_asof, right_asof, op, join_type, left_filter, schema: join.schema.clone() };
    Ok(LogicalPlan::Extension(Extension { node: Arc::new(node) }))
}

/// The logical ASOF join (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct AsofJoinNode {
    left: LogicalPlan,
    right: LogicalPlan,
    keys: Vec<(Expr, Expr)>,
    left_asof: Expr,
    right_asof: Expr,
    op: AsofOp,
    join_type: JoinType,
    /// Which left rows may match (ASOF LEFT JOIN with conditions on the left table).
    left_filter: Option<Expr>,
    schema: DFSchemaRef,
}

impl PartialOrd for AsofJoinNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        (self == other).then_some(std::cmp::Ordering::Equal)
    }
}

impl UserDefinedLogicalNodeCore for AsofJoinNode {
    fn name(&self) -> &str {
        "AsofJoin"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.left, &self.right]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.schema
    }

    fn expressions(&self) -> Vec<Expr> {
        let mut exprs: Vec<Expr> = self.keys.iter().flat_map(|(l, r)| [l.clone(), r.clone()]).collect();
        exprs.push(self.left_asof.clone());
        exprs.push(self.right_asof.clone());
        exprs.extend(self.left_filter.clone());
        exprs
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let keys: Vec<String> = self.keys.iter().map(|(l, r)| format!("{l} = {r}")).collect();
        write!(f, "AsofJoin ({:?}): {}, {} {} {}", self.join_type, keys.join(", "), self.left_asof, self.op.symbol(), self.right_asof)
    }

    fn with_exprs_and_inputs(&self, mut exprs: Vec<Expr>, mut inputs: Vec<LogicalPlan>) -> datafusion::common::Result<Self> {
        let (Some(right), Some(left), true) = (inputs.pop(), inputs.pop(), inputs.is_empty()) else {
            return datafusion::common::internal_err!("AsofJoin has two inputs");
        };
        let left_filter = if self.left_filter.is_some() { exprs.pop() } else { None };
        let (Some(right_asof), Some(left_asof)) = (exprs.pop(), exprs.pop()) else {
            return datafusion::common::internal_err!("AsofJoin lost its ASOF expressions");
        };
        if exprs.len() != self.keys.len() * 2 {
            return datafusion::common::internal_err!("AsofJoin lost its keys");
        }
        let keys = exprs.chunks(2).map(|pair| (pair[0].clone(), pair[1].clone())).collect();
        // The inputs' types may have changed under rewrites; the layout stays the join's.
        let schema = Arc::new(build_join_schema(left.schema(), right.schema(), &self.join_type)?);
        Ok(AsofJoinNode { left, right, keys, left_asof, right_asof, op: self.op, join_type: self.join_type, left_filter, schema })
    }
}

/// Physical planning of [`AsofJoinNode`].
pub(crate) struct AsofPlanner;

#[async_trait]
impl ExtensionPlanner for AsofPlanner {
    async fn plan_extension(
        &self,
        planner: &dyn PhysicalPlanner,
        node: &dyn UserDefinedLogicalNode,
        logical_inputs: &[&LogicalPlan],
        physical_inputs: &[Arc<dyn ExecutionPlan>],
        session_state: &dyn Session,
        planning_ctx: &PhysicalPlanningContext,
    ) -> datafusion::common::Result<Option<Arc<dyn ExecutionPlan>>> {
        let Some(join) = node.as_any().downcast_ref::<AsofJoinNode>() else { return Ok(None) };
        let ([left_logical, right_logical], [left, right]) = (logical_inputs, physical_inputs) else {
            return datafusion::common::internal_err!("AsofJoin has two inputs");
        };
        let (left_schema, right_schema) = (left_logical.schema(), right_logical.schema());
        // Each pair is compared in its common type, as the join's `=` and inequality would be.
        let pair = |l: &Expr, r: &Expr| -> datafusion::common::Result<(Arc<dyn PhysicalExpr>, Arc<dyn PhysicalExpr>)> {
            let l = planner.create_physical_expr(l, left_schema, session_state, planning_ctx)?;
            let r = planner.create_physical_expr(r, right_schema, session_state, planning_ctx)?;
            let (lt, rt) = (l.data_type(left_schema.as_arrow())?, r.data_type(right_schema.as_arrow())?);
            if lt == rt {
                return Ok((l, r));
            }
            let common = comparison_coercion(&lt, &rt).ok_or_else(|| {
                Error::new(ErrorCode::TYPE_MISMATCH, format!("Cannot compare {lt} with {rt} in ASOF JOIN")).into_datafusion()
            })?;
            let as_common = |e: Arc<dyn PhysicalExpr>, t: &DataType| -> Arc<dyn PhysicalExpr> {
                if *t == common {
                    e
                } else {
                    Arc::new(CastExpr::new(e, common.clone(), None))
                }
            };
            Ok((as_common(l, &lt), as_common(r, &rt)))
        };
        let mut left_keys = Vec::with_capacity(join.keys.len());
        let mut right_keys = Vec::with_capacity(join.keys.len());
        for (l, r) in &join.keys {
            let (l, r) = pair(l, r)?;
            left_keys.push(l);
            right_keys.push(r);
        }
        let (left_asof, right_asof) = pair(&join.left_asof, &join.right_asof)?;
        let left_filter = join.left_filter.as_ref().map(|e| planner.create_physical_expr(e, left_schema, session_state, planning_ctx)).transpose()?;
        let exec = AsofJoinExec::new(
            left.clone(),
            right.clone(),
            AsofSpec { left_keys, right_keys, left_asof, right_asof, op: join.op, keeps_unmatched: join.join_type == JoinType::Left, left_filter },
            Arc::new(join.schema.as_arrow().clone()),
        );
        Ok(Some(Arc::new(exec)))
    }
}

/// What an [`AsofJoinExec`] evaluates: key and ASOF expressions of each side, already
/// cast to the types they are compared in.
#[derive(Debug, Clone)]
struct AsofSpec {
    left_keys: Vec<Arc<dyn PhysicalExpr>>,
    right_keys: Vec<Arc<dyn PhysicalExpr>>,
    left_asof: Arc<dyn PhysicalExpr>,
    right_asof: Arc<dyn PhysicalExpr>,
    op: AsofOp,
    /// ASOF LEFT JOIN: left rows without a match stay, with NULL right columns.
    keeps_unmatched: bool,
    left_filter: Option<Arc<dyn PhysicalExpr>>,
}

#[derive(Debug)]
pub(crate) struct AsofJoinExec {
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    spec: Arc<AsofSpec>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    /// The right side, built once by the first partition that needs it.
    right_side: Arc<tokio::sync::OnceCell<Arc<RightSide>>>,
}

impl AsofJoinExec {
    fn new(left: Arc<dyn ExecutionPlan>, right: Arc<dyn ExecutionPlan>, spec: AsofSpec, schema: SchemaRef) -> Self {
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            left.output_partitioning().clone(),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        AsofJoinExec { left, right, spec: Arc::new(spec), schema, properties: Arc::new(properties), right_side: Arc::new(tokio::sync::OnceCell::new()) }
    }
}

impl DisplayAs for AsofJoinExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let kind = if self.spec.keeps_unmatched { "Left" } else { "Inner" };
        write!(f, "AsofJoinExec: {kind}, {} keys, left {} right", self.spec.left_keys.len(), self.spec.op.symbol())
    }
}

impl ExecutionPlan for AsofJoinExec {
    fn name(&self) -> &str {
        "AsofJoinExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn required_input_distribution(&self) -> Vec<Distribution> {
        vec![Distribution::UnspecifiedDistribution, Distribution::SinglePartition]
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.left, &self.right]
    }

    fn apply_expressions(&self, f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> datafusion::common::Result<TreeNodeRecursion>) -> datafusion::common::Result<TreeNodeRecursion> {
        let spec = &self.spec;
        let all = spec.left_keys.iter().chain(&spec.right_keys).chain([&spec.left_asof, &spec.right_asof]).chain(spec.left_filter.as_ref());
        for expr in all {
            if f(expr)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let (Some(right), Some(left), true) = (children.pop(), children.pop(), children.is_empty()) else {
            return datafusion::common::internal_err!("AsofJoinExec has two children");
        };
        Ok(Arc::new(AsofJoinExec::new(left, right, (*self.spec).clone(), self.schema.clone())))
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> datafusion::common::Result<SendableRecordBatchStream> {
        let left = self.left.execute(partition, context.clone())?;
        let (right, cell, spec, schema) = (self.right.clone(), self.right_side.clone(), self.spec.clone(), self.schema.clone());
        let probe_schema = schema.clone();
        let joined = async move {
            let side = cell.get_or_try_init(|| RightSide::build(right, context, spec.clone())).await?.clone();
            Ok::<_, DataFusionError>(left.map(move |batch| probe(&side, &spec, &probe_schema, &batch?)))
        };
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::once(joined).try_flatten())))
    }
}

/// The right side's rows grouped by key, each group sorted by ASOF value.
#[derive(Debug)]
struct RightSide {
    /// Holds the side's memory against the query's pool (`max_memory_usage`).
    _reservation: MemoryReservation,
    batch: RecordBatch,
    keys: RowConverter,
    groups: HashMap<Box<[u8]>, Vec<u32>>,
    asof: RowConverter,
    asof_values: Rows,
}

impl RightSide {
    async fn build(right: Arc<dyn ExecutionPlan>, context: Arc<TaskContext>, spec: Arc<AsofSpec>) -> datafusion::common::Result<Arc<RightSide>> {
        let schema = right.schema();
        // Each batch is counted as it arrives, so a right side too large for the query's
        // memory fails the query instead of growing past its limit.
        let reservation = MemoryConsumer::new("AsofJoinExec right side").register(context.memory_pool());
        let mut stream = right.execute(0, context)?;
        let mut batches = Vec::new();
        while let Some(batch) = stream.next().await {
            let batch = batch?;
            reservation.try_grow(batch.get_array_memory_size())?;
            batches.push(batch);
        }
        let batch = concat_batches(&schema, &batches)?;
        drop(batches);
        reservation.try_resize(batch.get_array_memory_size())?;
        let key_columns = evaluate(&spec.right_keys, &batch)?;
        let asof_column = evaluate(std::slice::from_ref(&spec.right_asof), &batch)?;
        let keys = RowConverter::new(key_columns.iter().map(|c| SortField::new(c.data_type().clone())).collect())?;
        let asof = RowConverter::new(vec![SortField::new(asof_column[0].data_type().clone())])?;
        let key_rows = keys.convert_columns(&key_columns)?;
        let asof_values = asof.convert_columns(&asof_column)?;
        let matchable = matchable_rows(&key_columns, &asof_column[0], None)?;
        let mut groups: HashMap<Box<[u8]>, Vec<u32>> = HashMap::new();
        for row in 0..batch.num_rows() {
            if matchable.value(row) {
                let index = u32::try_from(row).map_err(|_| Error::new(ErrorCode::TOO_MANY_ROWS, "The right side of an ASOF JOIN has more than 2^32 rows").into_datafusion())?;
                groups.entry(key_rows.row(row).as_ref().into()).or_default().push(index);
            }
        }
        for group in groups.values_mut() {
            // Stable: among equal ASOF values the order of arrival decides.
            group.sort_by(|a, b| asof_values.row(*a as usize).cmp(&asof_values.row(*b as usize)));
        }
        Ok(Arc::new(RightSide { _reservation: reservation, batch, keys, groups, asof, asof_values }))
    }
}

fn evaluate(exprs: &[Arc<dyn PhysicalExpr>], batch: &RecordBatch) -> datafusion::common::Result<Vec<ArrayRef>> {
    exprs.iter().map(|e| e.evaluate(batch)?.into_array(batch.num_rows())).collect()
}

/// Rows that can match at all: no NULL key or ASOF value (NULL meets nothing, as in
/// ClickHouse), and the left filter true where there is one.
fn matchable_rows(keys: &[ArrayRef], asof: &ArrayRef, filter: Option<&ArrayRef>) -> datafusion::common::Result<BooleanArray> {
    let rows = asof.len();
    let mut matchable: Vec<bool> = (0..rows).map(|i| asof.is_valid(i) && keys.iter().all(|k| k.is_valid(i))).collect();
    if let Some(filter) = filter {
        let filter = cast(filter, &DataType::Boolean)?;
        let filter = filter.as_any().downcast_ref::<BooleanArray>().ok_or_else(|| DataFusionError::Internal("ASOF JOIN filter is not boolean".into()))?;
        for (i, m) in matchable.iter_mut().enumerate() {
            *m = *m && filter.is_valid(i) && filter.value(i);
        }
    }
    Ok(BooleanArray::from(matchable))
}

/// Joins one left batch with the right side.
fn probe(side: &RightSide, spec: &AsofSpec, schema: &SchemaRef, batch: &RecordBatch) -> datafusion::common::Result<RecordBatch> {
    let key_columns = evaluate(&spec.left_keys, batch)?;
    let asof_column = evaluate(std::slice::from_ref(&spec.left_asof), batch)?;
    let filter = spec.left_filter.as_ref().map(|f| f.evaluate(batch)?.into_array(batch.num_rows())).transpose()?;
    let matchable = matchable_rows(&key_columns, &asof_column[0], filter.as_ref())?;
    let key_rows = side.keys.convert_columns(&key_columns)?;
    let asof_values = side.asof.convert_columns(&asof_column)?;
    let matches: Vec<Option<u32>> = (0..batch.num_rows())
        .map(|row| {
            if !matchable.value(row) {
                return None;
            }
            let group = side.groups.get(key_rows.row(row).as_ref())?;
            spec.op.find(group, &side.asof_values, asof_values.row(row))
        })
        .collect();
    let (left, right_indices) = if spec.keeps_unmatched {
        (batch.clone(), UInt32Array::from(matches))
    } else {
        let found = BooleanArray::from(matches.iter().map(Option::is_some).collect::<Vec<bool>>());
        (filter_record_batch(batch, &found)?, UInt32Array::from(matches.into_iter().flatten().collect::<Vec<u32>>()))
    };
    let mut columns: Vec<ArrayRef> = left.columns().to_vec();
    for column in side.batch.columns() {
        columns.push(take(column.as_ref(), &right_indices, None)?);
    }
    // The join's schema may name types the inputs produce differently only in nullability.
    Ok(RecordBatch::try_new_with_options(schema.clone(), columns, &arrow::array::RecordBatchOptions::new().with_row_count(Some(left.num_rows())))?)
}
