//! Views: `CREATE VIEW` (a stored query, parameterized or not) and `CREATE MATERIALIZED
//! VIEW` (a query applied to every block inserted into its source table, its result
//! written to a target table).
//!
//! ```text
//!  SELECT ... FROM v        ─► v replaced by `(its query) AS v` before planning
//!  SELECT ... FROM pv(p=1)  ─► the same, placeholders filled with typed literals
//!  SELECT ... FROM mv       ─► `(SELECT mv's columns FROM target) AS mv`
//!
//!  INSERT INTO src ─► engine.insert(src) ◄─ tee ─┐ each batch, also to:
//!                                                 └► squash to blocks (min_insert_block_size_*)
//!                                                    ─► per view: its plan, with the scan of
//!                                                       src replaced by the block
//!                                                    ─► conform by name ─► write_to_engine(target)
//!                                                       (the target's own views in turn)
//! ```
//!
//! As in ClickHouse, a view's query sees one inserted block at a time (an aggregation
//! in it aggregates each block; SummingMergeTree / AggregatingMergeTree targets merge
//! the rest), joined tables are read whole, and the view's bare table names mean
//! tables of the view's own database.
//!
//! Unlike ClickHouse, an INSERT with views is all or nothing across the tables: the
//! source's rows are published only after every view's target has committed its rows,
//! and a failing view fails the INSERT before the source commits (ClickHouse keeps the
//! source's rows and the blocks other views already wrote).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::TableReference;
use datafusion::datasource::{provider_as_source, MemTable};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::logical_expr::{LogicalPlan, TableScan};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::sql::sqlparser::ast::{self, BinaryOperator, Expr, FunctionArg, FunctionArgExpr, Ident, TableAlias, TableFactor, Value};
use futures::future::BoxFuture;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_engines::view::{MATERIALIZED_VIEW_ENGINE, VIEW_ENGINE};
use granary_sql::rewrite::LimitBy;
use granary_sql::{CreateView, ParseOptions, Statement};
use granary_storage::{ColumnMeta, EngineMeta, InsertRequest, InsertResult, InsertSquash, QualifiedName, Table, TableMeta, ViewMeta, TABLE_META_VERSION};
use granary_types::ChType;
use tokio::sync::{mpsc, oneshot};

use crate::insert::{plan_insert_expressions, write_to_engine, Conformer};
use crate::instance::{Instance, QueryContext};
use crate::interpreter::{database_of, execute_physical, physical_plan, plan_query};

/// Views expanded in one query at most: a view that (through others) reads itself
/// would otherwise expand forever.
const MAX_VIEW_EXPANSIONS: usize = 256;

/// Parses a view's stored query as the interpreter parses queries.
pub(crate) fn parse_view_query(text: &str, params: &HashMap<String, String>) -> Result<(Box<ast::Query>, Option<LimitBy>)> {
    let case_insensitive = |name: &str| granary_functions::is_case_insensitive(name);
    let options = ParseOptions {
        params,
        rewrite: granary_sql::rewrite::RewriteOptions { is_case_insensitive: Some(&case_insensitive), clickhouse_functions: true },
        max_query_size: 0,
    };
    let (parsed, _) = granary_sql::parse_statement(text, &options)?;
    match parsed.statement {
        Statement::Query { query, limit_by } => Ok((query, limit_by)),
        _ => Err(Error::new(ErrorCode::LOGICAL_ERROR, "The stored query of a view is not a SELECT")),
    }
}

/// A view's query ready to plan in any database: bare table and dictionary names are
/// those of the view's database.
fn view_query(ctx: &QueryContext, view_database: &str, text: &str, params: &HashMap<String, String>) -> Result<Box<ast::Query>> {
    if granary_storage::virtual_columns::mentioned_in(text) {
        granary_storage::virtual_columns::show();
    }
    let (query, limit_by) = parse_view_query(text, params)?;
    if limit_by.is_some() {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "LIMIT BY in the query of a view is not supported yet"));
    }
    let mut statement = ast::Statement::Query(query);
    crate::lookups::qualify_lookup_names(&mut statement, view_database, &ctx.dictionaries);
    let ast::Statement::Query(mut query) = statement else { unreachable!("wrapped a query above") };
    granary_sql::views::qualify_table_names(&mut query, view_database);
    Ok(query)
}

/// Replaces every view the query reads by its query, and every materialized view by a
/// read of its target. Returns whether anything was replaced.
pub(crate) fn expand_views(ctx: &QueryContext, query: &mut ast::Query) -> Result<bool> {
    let ctes = granary_sql::views::cte_names(query);
    let mut expansions = 0usize;
    granary_sql::views::visit_table_factors(query, &mut |factor| {
        let TableFactor::Table { name, alias, args, sample, .. } = factor else { return Ok(()) };
        let Some((database, table_name)) = granary_sql::views::table_reference(name) else { return Ok(()) };
        if database.is_none() && ctes.contains(&table_name) {
            return Ok(());
        }
        let database = database.unwrap_or_else(|| ctx.current_database.clone());
        let Some(table) = ctx.catalog.database(&database).and_then(|db| db.table(&table_name)) else { return Ok(()) };
        let Some(view) = &table.meta.view else { return Ok(()) };
        expansions += 1;
        if expansions > MAX_VIEW_EXPANSIONS {
            return Err(Error::new(ErrorCode::TOO_DEEP_RECURSION, format!("Too deep recursion while expanding view {database}.{table_name} (does it read itself?)")));
        }
        crate::access::check_select(&ctx.access, &database, &table_name)?;
        let params = match args.take() {
            Some(args) => view_arguments(&database, &table_name, view, &args.args)?,
            None if !view.parameters.is_empty() => {
                return Err(Error::new(
                    ErrorCode::UNKNOWN_QUERY_PARAMETER,
                    format!("View {database}.{table_name} is parameterized: give its parameters as {table_name}({} = value, ...)", view.parameters.join(" = value, ")),
                ))
            }
            None => HashMap::new(),
        };
        let subquery = match &view.target {
            // A SAMPLE of the view samples its target, as in ClickHouse.
            Some(target) => with_sample(read_of_target(ctx, &table.meta, target)?, sample.take()),
            None => {
                let text = match granary_sql::params::substitute_parameters(&view.query, &params)? {
                    Some(substituted) => substituted,
                    None => view.query.clone(),
                };
                view_query(ctx, &database, &text, &HashMap::new())?
            }
        };
        let alias = alias.take().unwrap_or_else(|| TableAlias { explicit: true, name: Ident::with_quote('`', table_name.clone()), columns: Vec::new(), at: None });
        *factor = TableFactor::Derived { lateral: false, subquery, alias: Some(alias), sample: None };
        Ok(())
    })?;
    Ok(expansions > 0)
}

/// `name = value` arguments of a parameterized view, as the raw values query
/// parameters take (strings unquoted).
fn view_arguments(database: &str, name: &str, view: &ViewMeta, args: &[FunctionArg]) -> Result<HashMap<String, String>> {
    if view.parameters.is_empty() {
        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("View {database}.{name} takes no parameters")));
    }
    let bad = || Error::new(ErrorCode::BAD_ARGUMENTS, format!("Parameters of view {database}.{name} are given as name = value"));
    let mut params = HashMap::new();
    for arg in args {
        let (param, value) = match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::BinaryOp { left, op: BinaryOperator::Eq, right })) => match left.as_ref() {
                Expr::Identifier(ident) => (ident.value.clone(), right.as_ref()),
                _ => return Err(bad()),
            },
            FunctionArg::Named { name, arg: FunctionArgExpr::Expr(value), .. } => (name.value.clone(), value),
            FunctionArg::ExprNamed { name: Expr::Identifier(name), arg: FunctionArgExpr::Expr(value), .. } => (name.value.clone(), value),
            _ => return Err(bad()),
        };
        if !view.parameters.contains(&param) {
            return Err(Error::new(ErrorCode::UNKNOWN_QUERY_PARAMETER, format!("View {database}.{name} has no parameter {param}")));
        }
        params.insert(param, parameter_value(value));
    }
    Ok(params)
}

/// A parameter value as text: literals without their quotes, anything else as written
/// (the placeholder's type then parses it, as for query parameters).
fn parameter_value(value: &Expr) -> String {
    match value {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
            Value::Number(n, _) => n.to_string(),
            Value::Null => "NULL".to_string(),
            other => other.to_string(),
        },
        Expr::UnaryOp { op: ast::UnaryOperator::Minus, expr } => format!("-{}", parameter_value(expr)),
        other => other.to_string(),
    }
}

/// `query` (`SELECT ... FROM target`) with `sample` on its table.
fn with_sample(mut query: Box<ast::Query>, sample: Option<ast::TableSampleKind>) -> Box<ast::Query> {
    if let (ast::SetExpr::Select(select), Some(sample)) = (query.body.as_mut(), sample) {
        if let Some(TableFactor::Table { sample: slot, .. }) = select.from.first_mut().map(|from| &mut from.relation) {
            *slot = Some(sample);
        }
    }
    query
}

/// `SELECT <the view's columns> FROM target`: what reading a materialized view reads,
/// each column converted to the view's type where the target stores another.
fn read_of_target(ctx: &QueryContext, meta: &TableMeta, target: &QualifiedName) -> Result<Box<ast::Query>> {
    let target_table = ctx.catalog.table(&target.database, &target.table)?;
    let columns: Vec<String> = meta
        .columns
        .iter()
        .map(|c| {
            let name = granary_storage::meta::backquote(&c.name);
            match target_table.meta.columns.iter().find(|t| t.name == c.name) {
                Some(stored) if stored.type_name != c.type_name => format!("CAST({name}, {}) AS {name}", granary_sql::params::quote_string(&c.type_name)),
                _ => name,
            }
        })
        .collect();
    let text = format!("SELECT {} FROM {}", columns.join(", "), target);
    let (query, _) = parse_view_query(&text, &HashMap::new())?;
    Ok(query)
}

/// `CREATE [MATERIALIZED] VIEW`.
pub(crate) async fn create_view(instance: &Instance, ctx: &QueryContext, create: CreateView) -> Result<()> {
    let database = database_of(ctx, &create.name);
    if database == "system" {
        return Err(Error::new(ErrorCode::DATABASE_ACCESS_DENIED, "Cannot create tables in the system database"));
    }
    let catalog = instance.catalog();
    catalog.require_database(&database)?;
    let existing = catalog.database(&database).and_then(|db| db.table(&create.name.table));
    if let Some(existing) = &existing {
        if create.if_not_exists {
            return Ok(());
        }
        if !create.or_replace {
            return Err(Error::new(ErrorCode::TABLE_ALREADY_EXISTS, format!("Table {database}.{} already exists", create.name.table)));
        }
        if create.materialized || existing.meta.engine.name != VIEW_ENGINE {
            return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "CREATE OR REPLACE is supported for views only (not tables or materialized views)"));
        }
    }
    if create.limit_by.is_some() {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "LIMIT BY in the query of a view is not supported yet"));
    }
    let mut view = ViewMeta { query: create.query_text.clone(), parameters: create.parameters.clone(), ..ViewMeta::default() };
    // The query is planned in the view's database, as it will run.
    let mut query = create.query.clone();
    granary_sql::views::qualify_table_names(&mut query, &database);
    let columns: Vec<ColumnMeta> = if !view.parameters.is_empty() {
        // ClickHouse knows a parameterized view's columns only once parameters are given.
        Vec::new()
    } else {
        let plan = plan_query(ctx, query.clone()).await?;
        let planned: Vec<ColumnMeta> = plan.schema().fields().iter().map(|f| ColumnMeta::new(f.name(), &ChType::from_field(f))).collect();
        if create.columns.is_empty() {
            planned
        } else {
            create.columns.iter().map(crate::interpreter::column_meta).collect()
        }
    };
    let mut engine_name = VIEW_ENGINE;
    let mut inner: Option<TableMeta> = None;
    if create.materialized {
        engine_name = MATERIALIZED_VIEW_ENGINE;
        view.source = granary_sql::views::source_table(&query).map(|(db, table)| QualifiedName { database: db.unwrap_or_else(|| database.clone()), table });
        match &create.to {
            Some(to) => {
                let target_name = QualifiedName { database: database_of(ctx, to), table: to.table.clone() };
                let target = catalog.table(&target_name.database, &target_name.table)?;
                if target.meta.view.is_some() {
                    return Err(Error::new(ErrorCode::INCORRECT_QUERY, format!("The target of a materialized view must be a table; {target_name} is a view")));
                }
                // The view's columns are the query's, with the query's types (reads convert).
                if create.columns.is_empty() {
                    if let Some(column) = columns.iter().find(|c| !target.meta.columns.iter().any(|t| t.name == c.name)) {
                        return Err(Error::new(
                            ErrorCode::THERE_IS_NO_COLUMN,
                            format!("SELECT query outputs column with name '{}', which is not found in the target table. Use 'AS' to assign alias that matches a column name.", column.name),
                        ));
                    }
                }
                view.target = Some(target_name);
            }
            None => {
                let engine = match &create.engine {
                    Some(e) => crate::interpreter::engine_meta(e),
                    // ClickHouse's default_table_engine, with an empty sorting key.
                    None => EngineMeta { name: "MergeTree".into(), order_by: Some("tuple()".into()), ..EngineMeta::default() },
                };
                // ClickHouse's name for the inner table of a view in an Atomic database.
                let inner_name = format!(".inner_id.{}", uuid::Uuid::new_v4());
                inner = Some(TableMeta {
                    format_version: TABLE_META_VERSION,
                    uuid: uuid::Uuid::new_v4().to_string(),
                    database: database.clone(),
                    name: inner_name.clone(),
                    columns: columns.clone(),
                    engine: engine.clone(),
                    comment: None,
                    created_at: chrono::Utc::now().timestamp(),
                    dictionary: None,
                    view: None,
                    renamed_columns: Vec::new(),
                    constraints: Vec::new(),
                    indices: Vec::new(),
                });
                view.target = Some(QualifiedName { database: database.clone(), table: inner_name });
                view.inner_engine = Some(engine);
            }
        }
        if let (Some(source), Some(target)) = (&view.source, &view.target) {
            if feeds(ctx, target, source) {
                return Err(Error::new(ErrorCode::INCORRECT_QUERY, format!("Materialized view {database}.{} would feed its own source {source} (a cycle)", create.name.table)));
            }
        }
    }
    let meta = TableMeta {
        format_version: TABLE_META_VERSION,
        uuid: uuid::Uuid::new_v4().to_string(),
        database: database.clone(),
        name: create.name.table.clone(),
        columns,
        engine: EngineMeta { name: engine_name.to_string(), ..EngineMeta::default() },
        comment: create.comment.clone(),
        created_at: chrono::Utc::now().timestamp(),
        dictionary: None,
        view: Some(view),
        renamed_columns: Vec::new(),
        constraints: Vec::new(),
        indices: Vec::new(),
    };
    if existing.is_some() {
        catalog.drop_table(&database, &create.name.table, true).await?;
    }
    let inner_table = match inner {
        Some(inner) => catalog.create_table(inner, false)?,
        None => None,
    };
    let created = match catalog.create_table(meta, false) {
        Ok(created) => created,
        Err(e) => {
            if let Some(inner) = &inner_table {
                let _ = catalog.drop_table(&database, &inner.meta.name, true).await;
            }
            return Err(e);
        }
    };
    if let (true, Some(view_table)) = (create.populate, created) {
        if let Err(e) = populate(ctx, &view_table).await {
            // CREATE ... POPULATE is one statement: a failed fill leaves no view behind.
            let _ = drop_view(instance, &database, &view_table.meta.name).await;
            return Err(e);
        }
    }
    Ok(())
}

/// Whether inserting into `from` reaches `to` through materialized views.
fn feeds(ctx: &QueryContext, from: &QualifiedName, to: &QualifiedName) -> bool {
    let mut seen = HashSet::new();
    let mut pending = vec![from.clone()];
    while let Some(table) = pending.pop() {
        if &table == to {
            return true;
        }
        if !seen.insert(table.clone()) {
            continue;
        }
        for view in materialized_views_reading(ctx, &table) {
            if let Some(target) = view.meta.view.as_ref().and_then(|v| v.target.clone()) {
                pending.push(target);
            }
        }
    }
    false
}

/// `POPULATE`: the view's query over the source's current rows, into the target.
async fn populate(ctx: &QueryContext, view_table: &Table) -> Result<()> {
    let push = ViewPush::plan(ctx, view_table).await?;
    let stream = crate::interpreter::execute_plan(ctx, &push.plan).await?;
    let conformer = push.conformer.clone();
    let schema = push.target.schema();
    let conformed = stream.map(move |batch| conformer.conform(&batch?).map_err(Error::into_datafusion));
    let stream: SendableRecordBatchStream = Box::pin(RecordBatchStreamAdapter::new(schema, conformed));
    write_to_engine(ctx, &push.target, InsertRequest::new(stream, ctx.settings.clone())).await
}

/// Drops a view, and the inner table of a materialized view that has one.
pub(crate) async fn drop_view(instance: &Instance, database: &str, name: &str) -> Result<()> {
    let catalog = instance.catalog();
    let table = catalog.table(database, name)?;
    catalog.drop_table(database, name, false).await?;
    if let Some(view) = &table.meta.view {
        if let (Some(target), Some(_)) = (&view.target, &view.inner_engine) {
            catalog.drop_table(&target.database, &target.table, true).await?;
        }
    }
    Ok(())
}

/// The table rows of a materialized view are written to, for INSERT, TRUNCATE and
/// OPTIMIZE of the view.
pub(crate) fn target_of(ctx: &QueryContext, table: &Table) -> Result<Option<Arc<Table>>> {
    match table.meta.view.as_ref().and_then(|v| v.target.as_ref()) {
        Some(target) => Ok(Some(ctx.catalog.table(&target.database, &target.table)?)),
        None => Ok(None),
    }
}

/// The materialized views whose source is `table`, in name order.
pub(crate) fn materialized_views_reading(ctx: &QueryContext, table: &QualifiedName) -> Vec<Arc<Table>> {
    let mut views = Vec::new();
    for database in ctx.catalog.databases() {
        for candidate in database.tables() {
            if candidate.meta.view.as_ref().and_then(|v| v.source.as_ref()) == Some(table) {
                views.push(candidate);
            }
        }
    }
    views
}

/// One materialized view's work during an INSERT into its source.
struct ViewPush {
    name: QualifiedName,
    /// The view's query, planned with its source scans still reading the source.
    plan: LogicalPlan,
    source: Option<QualifiedName>,
    target: Arc<Table>,
    /// Output columns by name to the target's columns.
    conformer: Arc<Conformer>,
}

impl ViewPush {
    async fn plan(ctx: &QueryContext, view_table: &Table) -> Result<ViewPush> {
        let name = QualifiedName { database: view_table.meta.database.clone(), table: view_table.meta.name.clone() };
        let view = view_table.meta.view.as_ref().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("{name} is not a view")))?;
        let target = target_of(ctx, view_table)?.ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("{name} has no target table")))?;
        let query = view_query(ctx, &name.database, &view.query, &HashMap::new())?;
        let plan = plan_query(ctx, query).await.map_err(|e| e.context(format_args!("while pushing to view {name}")))?;
        let target_schema = target.schema();
        let mut targets = Vec::new();
        for field in plan.schema().fields() {
            let index = target_schema.index_of(field.name()).map_err(|_| {
                Error::new(
                    ErrorCode::THERE_IS_NO_COLUMN,
                    format!("SELECT query of view {name} outputs column with name '{}', which is not found in the target table {}", field.name(), view.target.as_ref().map(ToString::to_string).unwrap_or_default()),
                )
            })?;
            targets.push(index);
        }
        let defaults = plan_insert_expressions(ctx, &target, &targets).await?;
        let conformer = Arc::new(Conformer::new(target_schema, targets, defaults)?);
        Ok(ViewPush { name, plan, source: view.source.clone(), target, conformer })
    }

    /// The view's rows for one inserted block, in the target's schema.
    async fn apply(&self, ctx: &QueryContext, block: &RecordBatch) -> Result<Vec<RecordBatch>> {
        let Some(source) = &self.source else { return Ok(Vec::new()) };
        let memory = Arc::new(MemTable::try_new(block.schema(), vec![vec![block.clone()]])?);
        let plan = self
            .plan
            .clone()
            .transform_up(|node| match node {
                LogicalPlan::TableScan(scan) if scan_reads(&scan.table_name, source) => {
                    Ok(Transformed::yes(LogicalPlan::TableScan(TableScan { source: provider_as_source(memory.clone()), ..scan })))
                }
                other => Ok(Transformed::no(other)),
            })?
            .data;
        let physical = physical_plan(ctx, &plan).await?;
        let mut stream = execute_physical(ctx, ctx.state.config().clone(), physical)?;
        let mut out = Vec::new();
        while let Some(batch) = stream.next().await {
            out.push(self.conformer.conform(&batch?)?);
        }
        Ok(out)
    }
}

fn scan_reads(reference: &TableReference, table: &QualifiedName) -> bool {
    match reference {
        TableReference::Partial { schema, table: name } | TableReference::Full { schema, table: name, .. } => schema.as_ref() == table.database && name.as_ref() == table.table,
        TableReference::Bare { .. } => false,
    }
}

/// What the INSERT's input streams tell the views.
enum SourceEvent {
    Block(RecordBatch),
    /// Every input ended without error.
    End,
}

/// What the views tell each target's INSERT.
enum TargetEvent {
    Batch(RecordBatch),
    End,
    Abort(ErrorCode, String),
}

/// Shared by the tee streams of one INSERT: how many are still running, and the views'
/// outcome, which the last one to end waits for.
struct TeeState {
    running: AtomicUsize,
    outcome_rx: parking_lot::Mutex<Option<oneshot::Receiver<std::result::Result<(), (ErrorCode, String)>>>>,
    outcome: tokio::sync::OnceCell<std::result::Result<(), (ErrorCode, String)>>,
}

impl TeeState {
    async fn outcome(&self) -> Result<()> {
        let outcome = self
            .outcome
            .get_or_init(|| async {
                let receiver = self.outcome_rx.lock().take();
                match receiver {
                    Some(receiver) => receiver.await.unwrap_or_else(|_| Err((ErrorCode::LOGICAL_ERROR, "materialized views stopped unexpectedly".into()))),
                    None => Err((ErrorCode::LOGICAL_ERROR, "materialized views stopped unexpectedly".into())),
                }
            })
            .await;
        outcome.clone().map_err(|(code, message)| Error::new(code, message))
    }
}

/// An input of the source's INSERT that hands each batch to the views too. The last
/// input to end waits for the views (and their targets' commits) and fails the source
/// INSERT if they failed, so the source commits only after its views.
fn tee(input: SendableRecordBatchStream, blocks: mpsc::Sender<SourceEvent>, state: Arc<TeeState>) -> SendableRecordBatchStream {
    struct Tee {
        input: SendableRecordBatchStream,
        blocks: Option<mpsc::Sender<SourceEvent>>,
        state: Arc<TeeState>,
        done: bool,
    }
    let schema = input.schema();
    let tee = Tee { input, blocks: Some(blocks), state, done: false };
    let stream = futures::stream::unfold(tee, |mut tee| async move {
        if tee.done {
            return None;
        }
        match tee.input.next().await {
            Some(Ok(batch)) => {
                let sent = match &tee.blocks {
                    Some(blocks) => blocks.send(SourceEvent::Block(batch.clone())).await.is_ok(),
                    None => false,
                };
                if !sent {
                    tee.done = true;
                    let error = tee.state.outcome().await.err().unwrap_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "materialized views stopped early"));
                    return Some((Err(error.into_datafusion()), tee));
                }
                Some((Ok(batch), tee))
            }
            Some(Err(e)) => {
                tee.done = true;
                tee.blocks = None;
                Some((Err(e), tee))
            }
            None => {
                tee.done = true;
                let blocks = tee.blocks.take();
                if tee.state.running.fetch_sub(1, Ordering::AcqRel) != 1 {
                    return None;
                }
                if let Some(blocks) = blocks {
                    let _ = blocks.send(SourceEvent::End).await;
                }
                match tee.state.outcome().await {
                    Ok(()) => None,
                    Err(e) => Some((Err(e.into_datafusion()), tee)),
                }
            }
        }
    });
    Box::pin(RecordBatchStreamAdapter::new(schema, stream))
}

/// The rows of one target's INSERT, as the views send them. A channel that closes
/// without `End` fails the INSERT rather than committing part of it.
fn target_stream(schema: SchemaRef, mut events: mpsc::Receiver<TargetEvent>) -> SendableRecordBatchStream {
    let stream = futures::stream::poll_fn(move |cx| match events.poll_recv(cx) {
        std::task::Poll::Ready(Some(TargetEvent::Batch(batch))) => std::task::Poll::Ready(Some(Ok(batch))),
        std::task::Poll::Ready(Some(TargetEvent::End)) => std::task::Poll::Ready(None),
        std::task::Poll::Ready(Some(TargetEvent::Abort(code, message))) => std::task::Poll::Ready(Some(Err(Error::new(code, message).into_datafusion()))),
        std::task::Poll::Ready(None) => {
            std::task::Poll::Ready(Some(Err(Error::new(ErrorCode::QUERY_WAS_CANCELLED, "the INSERT into the view's source stopped").into_datafusion())))
        }
        std::task::Poll::Pending => std::task::Poll::Pending,
    });
    Box::pin(RecordBatchStreamAdapter::new(schema, stream))
}

/// INSERT into a table that materialized views read: the source's engine and every
/// view's target are written together (see the module documentation).
pub(crate) fn insert_with_views<'a>(ctx: &'a QueryContext, table: &'a Table, request: InsertRequest, views: Vec<Arc<Table>>) -> BoxFuture<'a, Result<InsertResult>> {
    Box::pin(async move {
        let settings = request.settings.clone();
        let inputs = request.into_streams(usize::MAX);
        let schema = inputs[0].schema();
        let mut pushes = Vec::with_capacity(views.len());
        for view in &views {
            pushes.push(ViewPush::plan(ctx, view).await?);
        }
        let (blocks_tx, blocks_rx) = mpsc::channel::<SourceEvent>(2);
        let (outcome_tx, outcome_rx) = oneshot::channel();
        let state = Arc::new(TeeState { running: AtomicUsize::new(inputs.len()), outcome_rx: parking_lot::Mutex::new(Some(outcome_rx)), outcome: tokio::sync::OnceCell::new() });
        let tees: Vec<SendableRecordBatchStream> = inputs.into_iter().map(|input| tee(input, blocks_tx.clone(), state.clone())).collect();
        drop(blocks_tx);
        let source = table.engine.insert(InsertRequest::partitioned(tees, settings.clone())?);
        let views_work = async move {
            let outcome = run_views(ctx, pushes, blocks_rx, schema, InsertSquash::from_settings(&settings), &settings).await;
            let _ = outcome_tx.send(outcome.map_err(|e| (e.code(), e.message().to_string())));
        };
        let (source_result, ()) = futures::join!(source, views_work);
        source_result
    })
}

/// Squashes the source's batches into blocks, runs every view on each block and feeds
/// the targets' INSERTs, which commit when the source's input ended cleanly.
async fn run_views(
    ctx: &QueryContext,
    pushes: Vec<ViewPush>,
    mut blocks: mpsc::Receiver<SourceEvent>,
    schema: SchemaRef,
    squash: InsertSquash,
    settings: &granary_common::Settings,
) -> Result<()> {
    let mut senders = Vec::with_capacity(pushes.len());
    let mut inserts = Vec::with_capacity(pushes.len());
    for push in &pushes {
        let (tx, rx) = mpsc::channel::<TargetEvent>(2);
        senders.push(tx);
        let stream = target_stream(push.target.schema(), rx);
        let name = push.name.clone();
        let target = push.target.clone();
        inserts.push(async move {
            write_to_engine(ctx, &target, InsertRequest::new(stream, settings.clone())).await.map_err(|e| e.context(format_args!("while pushing to view {name}")))
        });
    }
    let feeding = async {
        let mut pending: Vec<RecordBatch> = Vec::new();
        let (mut rows, mut bytes) = (0usize, 0usize);
        let result: Result<()> = async {
            loop {
                let event = blocks.recv().await;
                let ended = match event {
                    Some(SourceEvent::Block(batch)) => {
                        rows += batch.num_rows();
                        bytes += batch.get_array_memory_size();
                        pending.push(batch);
                        false
                    }
                    Some(SourceEvent::End) => true,
                    None => return Err(Error::new(ErrorCode::QUERY_WAS_CANCELLED, "the INSERT stopped before its end")),
                };
                if !pending.is_empty() && (ended || squash.is_full(rows, bytes)) {
                    let block = arrow::compute::concat_batches(&schema, &pending)?;
                    pending.clear();
                    (rows, bytes) = (0, 0);
                    for (push, sender) in pushes.iter().zip(&senders) {
                        let batches = push.apply(ctx, &block).await.map_err(|e| e.context(format_args!("while pushing to view {}", push.name)))?;
                        for batch in batches {
                            if sender.send(TargetEvent::Batch(batch)).await.is_err() {
                                return Err(Error::new(ErrorCode::QUERY_WAS_CANCELLED, format!("the INSERT into the target of view {} stopped", push.name)));
                            }
                        }
                    }
                }
                if ended {
                    return Ok(());
                }
            }
        }
        .await;
        for sender in &senders {
            let event = match &result {
                Ok(()) => TargetEvent::End,
                Err(e) => TargetEvent::Abort(e.code(), e.message().to_string()),
            };
            let _ = sender.send(event).await;
        }
        drop(senders);
        result
    };
    let (fed, inserted) = futures::join!(feeding, futures::future::join_all(inserts));
    let target_error = inserted.into_iter().find_map(Result::err);
    match (fed, target_error) {
        (Err(e), _) if e.code() != ErrorCode::QUERY_WAS_CANCELLED => Err(e),
        // A target's own error says more than "its INSERT stopped".
        (_, Some(e)) => Err(e),
        (fed, None) => fed,
    }
}
