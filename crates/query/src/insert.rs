//! INSERT: data in a format (from the query text and the request body) or the result of
//! a SELECT, conformed to the table's columns, handed to the table's engine.
//!
//! ```text
//!  bytes ─► InputFormat::push ─► batches of the listed columns ─┐
//!  SELECT ─► DataFusion stream ─────────────────────────────────┴► conform (cast, defaults,
//!         column order) ─► engine.insert (all or nothing)
//! ```
//! A task reads the body into a small queue, a blocking thread parses it (text formats
//! on a pool of parser threads, `rows::Streamer` in granary-formats) and feeds a small
//! channel to the engine, so reading, parsing and the engine's work overlap and a large
//! body is never held in memory: at most a few chunks and blocks are in flight.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::compute::kernels::zip::zip;
use arrow::compute::{cast_with_options, is_not_null, CastOptions};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use bytes::Bytes;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::LogicalPlan;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_formats::{create_input_format, FormatSettings};
use granary_sql::{InsertSource, InsertStatement, InsertTarget, TableFunctionCall};
use granary_storage::defaults::{default_value, repeat};
use granary_types::ChType;
use granary_io::sink::{PartitionMode, SinkPartitioning};
use granary_storage::{ColumnKind, InsertRequest, Table};
use tokio::sync::mpsc;

use crate::async_insert::AsyncInsertQueue;
pub(crate) use crate::insert_expressions::plan_insert_expressions;
use crate::insert_expressions::{InsertExpressions, RowCheck, RowDefault};
use crate::instance::QueryContext;
use crate::interpreter::{database_of, execute_plan, execute_plan_partitioned, plan_query};
use crate::ByteStream;

pub(crate) async fn run_insert(
    ctx: &QueryContext,
    queue: Option<&Arc<AsyncInsertQueue>>,
    mut insert: InsertStatement,
    text: &str,
    input: Option<ByteStream>,
) -> Result<()> {
    let (table, planned) = match &insert.target {
        InsertTarget::Table(name) => {
            let database = database_of(ctx, name);
            if database == "system" {
                return Err(Error::new(ErrorCode::DATABASE_ACCESS_DENIED, "Cannot insert into tables of the system database"));
            }
            if name.database.is_some() {
                granary_storage::temporary::prefer_regular(&name.table);
            }
            let table = ctx.catalog.table(&database, &name.table)?;
            // A File/URL/S3 table with PARTITION BY writes as INSERT INTO FUNCTION does.
            if let Some((function, args)) = granary_io::engines::partitioned_insert_function(&table.meta, &table.schema())? {
                let io = ctx.state.config().get_extension::<granary_io::IoContext>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "no I/O context"))?;
                let (sink, planned) = sink_target(ctx, &io, function, &args, table.meta.engine.partition_by.as_deref(), &insert.source).await?;
                // Under the table's own name: the materialized views reading it see the rows.
                let sink = Table::detached(&table.meta.database, &table.meta.name, sink.meta.columns.clone(), sink.engine.clone())?;
                (sink, planned)
            } else {
                match crate::views::target_of(ctx, &table)? {
                    // An INSERT into a materialized view writes the view's columns of its target.
                    Some(target) => {
                        if insert.columns.is_empty() {
                            insert.columns = table.meta.columns.iter().map(|c| c.name.clone()).collect();
                        }
                        (target, None)
                    }
                    None => (table, None),
                }
            }
        }
        InsertTarget::Function(call) => function_target(ctx, call, &insert.source).await?,
    };
    let targets = target_columns(&table, &insert.columns)?;
    if let InsertTarget::Table(name) = &insert.target {
        // system.query_log lists the table written and the columns given, as ClickHouse does.
        let schema = table.schema();
        ctx.accessed.lock().add(&database_of(ctx, name), &name.table, targets.iter().map(|&i| schema.field(i).name().as_str()));
    }
    let defaults = plan_insert_expressions(ctx, &table, &targets).await?;
    match insert.source {
        InsertSource::Select { query, limit_by, input_format: Some(format), data_offset } => {
            // `input()` in the SELECT reads the data sent with the query.
            let mut format_settings = FormatSettings::from_settings(&ctx.settings, ctx.timezone);
            format_settings.max_block_rows = ctx.settings.get_u64("max_insert_block_size").max(1) as usize;
            let head = Bytes::copy_from_slice(text.get(data_offset..).unwrap_or_default().as_bytes());
            let body = crate::input_function::with_head(head, input);
            let pending = crate::input_function::PendingInput { format, format_settings, body };
            crate::input_function::with_input(pending, insert_select(ctx, &table, &targets, planned, query, limit_by, defaults)).await
        }
        InsertSource::Select { query, limit_by, input_format: None, .. } => insert_select(ctx, &table, &targets, planned, query, limit_by, defaults).await,
        InsertSource::Data { format, data_offset } => {
            let data = text.get(data_offset..).unwrap_or_default();
            let head = Bytes::copy_from_slice(data.as_bytes());
            if input.is_none() && data.trim().is_empty() {
                return Err(no_data_to_insert());
            }
            let mut input = input;
            // Only data sent with the query is queued, as in ClickHouse (not INSERT ... SELECT,
            // not INSERT INTO FUNCTION).
            if let (Some(queue), InsertTarget::Table(_), true) = (queue, &insert.target, ctx.settings.get_bool("async_insert")) {
                let query = text.get(..data_offset).unwrap_or_default();
                let data = AsyncData { format: &format, query, data, input };
                match queue_insert(ctx, queue, &table, &targets, data, &defaults).await? {
                    Queued::Done => return Ok(()),
                    Queued::TooLarge(rest) => input = rest,
                }
            }
            let small_values = format == "Values" && input.is_none() && data.len() <= VALUES_EXPRESSION_FALLBACK_BYTES;
            if small_values {
                insert_values(ctx, &table, &targets, data, defaults).await
            } else {
                insert_data(ctx, &table, &targets, &format, head, input, defaults).await
            }
        }
    }
}

/// `INSERT ... SELECT`: the SELECT's streams into the table (`planned`: the SELECT's plan,
/// when the target needed it planned already).
async fn insert_select(
    ctx: &QueryContext,
    table: &Arc<Table>,
    targets: &[usize],
    planned: Option<LogicalPlan>,
    query: Box<granary_sql::sqlparser::ast::Query>,
    limit_by: Option<granary_sql::rewrite::LimitBy>,
    defaults: InsertExpressions,
) -> Result<()> {
    let plan = match planned {
        Some(plan) => plan,
        None => plan_query(ctx, query).await?,
    };
    if let Some(spec) = limit_by {
        // LIMIT BY keeps rows in the SELECT's order: one stream.
        let stream = crate::limit_by::apply_to_stream(execute_plan(ctx, &plan).await?, spec)?;
        let stream = crate::limit_by::without_hidden_columns(stream)?;
        return insert_stream_with_defaults(ctx, table, targets, stream, defaults).await;
    }
    let streams = execute_plan_partitioned(ctx, &plan).await?;
    insert_streams_with_defaults(ctx, table, targets, streams, defaults).await
}

fn no_data_to_insert() -> Error {
    Error::new(ErrorCode::NO_DATA_TO_INSERT, "No data to insert")
}

/// `INSERT INTO FUNCTION f(args) [PARTITION BY expr]`: the destination as a table whose
/// columns are the `structure` argument or, without one, the SELECT's columns (then the
/// SELECT is planned here and its plan returned, so it is planned once).
async fn function_target(ctx: &QueryContext, call: &TableFunctionCall, source: &InsertSource) -> Result<(Arc<Table>, Option<LogicalPlan>)> {
    let io = ctx.state.config().get_extension::<granary_io::IoContext>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "no I/O context"))?;
    let no_columns = DFSchema::empty();
    let args = call.args.iter().map(|arg| function_argument(ctx, &crate::named_args::rewrite_named_argument_text(arg), &no_columns)).collect::<Result<Vec<_>>>()?;
    if call.name.eq_ignore_ascii_case("null") {
        return null_target(ctx, call, &args, source).await;
    }
    sink_target(ctx, &io, &call.name, &args, call.partition_by.as_deref(), source).await
}

/// The sink of table function `function(args)`, its rows spread by `partition_by`.
async fn sink_target(
    ctx: &QueryContext,
    io: &granary_io::IoContext,
    function: &str,
    args: &[datafusion::logical_expr::Expr],
    partition_by: Option<&str>,
    source: &InsertSource,
) -> Result<(Arc<Table>, Option<LogicalPlan>)> {
    let target = granary_io::sink::resolve_sink(io, function, args)?;
    let (columns, planned) = match (&target.structure, source) {
        (Some(structure), _) => (structure.clone(), None),
        (None, InsertSource::Select { query, .. }) => {
            let plan = plan_query(ctx, query.clone()).await?;
            let columns = plan.schema().fields().iter().map(|f| (f.name().clone(), ChType::from_field(f))).collect();
            (columns, Some(plan))
        }
        (None, InsertSource::Data { .. }) => {
            return Err(Error::new(
                ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
                format!("INSERT INTO FUNCTION {function}() with data needs the structure argument (column names and types)"),
            ))
        }
    };
    let schema: SchemaRef = Arc::new(Schema::new(columns.iter().map(|(n, t)| t.to_arrow_field(n)).collect::<Vec<_>>()));
    let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
    let partition = match (target.partition_mode(partition_by.is_some(), &ctx.settings)?, partition_by) {
        (PartitionMode::Wildcard, Some(expr)) => {
            let logical = sql_expression(ctx, &format!("toString({expr})"), &df_schema)?;
            Some(SinkPartitioning::Wildcard(ctx.state.create_physical_expr(logical, &df_schema)?))
        }
        (PartitionMode::Hive, Some(expr)) => {
            // ClickHouse's key: concat('name=', toString(name), '/', ...).
            let partition_columns = granary_io::sink::hive_partition_columns(expr, &columns)?;
            let parts: Vec<String> = partition_columns
                .iter()
                .map(|&i| {
                    let name = &columns[i].0;
                    format!("{}, toString(`{}`), '/'", granary_sql::params::quote_string(&format!("{name}=")), name.replace('`', "\\`"))
                })
                .collect();
            let logical = sql_expression(ctx, &format!("concat({})", parts.join(", ")), &df_schema)?;
            Some(SinkPartitioning::Hive { key: ctx.state.create_physical_expr(logical, &df_schema)?, columns: partition_columns })
        }
        _ => None,
    };
    let format_settings = FormatSettings::from_settings(&ctx.settings, ctx.timezone);
    Ok((target.into_table(&columns, partition, &ctx.settings, format_settings)?, planned))
}

/// `INSERT INTO FUNCTION null(['structure'])`: rows are taken and dropped, as by a
/// `Null` table of the structure's columns or, without one, of the SELECT's.
async fn null_target(ctx: &QueryContext, call: &TableFunctionCall, args: &[datafusion::logical_expr::Expr], source: &InsertSource) -> Result<(Arc<Table>, Option<LogicalPlan>)> {
    use datafusion::logical_expr::Expr;
    let structure = match args {
        [] => None,
        [Expr::Literal(ScalarValue::Utf8(Some(text)) | ScalarValue::LargeUtf8(Some(text)) | ScalarValue::Utf8View(Some(text)), _)] => {
            Some(granary_io::function::parse_structure(text)?)
        }
        _ => return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Table function 'null' requires 'structure' argument or empty argument")),
    };
    let (columns, planned) = match (structure, source) {
        (Some(structure), _) => (structure, None),
        (None, InsertSource::Select { query, .. }) => {
            let plan = plan_query(ctx, query.clone()).await?;
            let columns = plan.schema().fields().iter().map(|f| (f.name().clone(), ChType::from_field(f))).collect();
            (columns, Some(plan))
        }
        (None, InsertSource::Data { .. }) => {
            return Err(Error::new(ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE, format!("INSERT INTO FUNCTION {}() with data needs the structure argument", call.name)));
        }
    };
    let schema: SchemaRef = Arc::new(Schema::new(columns.iter().map(|(n, t)| t.to_arrow_field(n)).collect::<Vec<_>>()));
    let metas = columns.iter().map(|(name, t)| granary_storage::meta::ColumnMeta::new(name.as_str(), t)).collect();
    let table = Table::detached("_table_function", &call.name, metas, Arc::new(granary_engines::null::NullEngine::new(schema)))?;
    Ok((table, planned))
}

/// A table function argument: a bare word (`NOSIGN`) is passed as a column reference,
/// as the planner passes it for reads; anything else is an expression.
fn function_argument(ctx: &QueryContext, text: &str, schema: &DFSchema) -> Result<datafusion::logical_expr::Expr> {
    let trimmed = text.trim();
    if !trimmed.is_empty() && trimmed.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(datafusion::logical_expr::Expr::Column(datafusion::common::Column::from_name(trimmed.to_ascii_lowercase())));
    }
    sql_expression(ctx, trimmed, schema)
}

/// One SQL expression in ClickHouse syntax, planned against `schema`.
fn sql_expression(ctx: &QueryContext, text: &str, schema: &DFSchema) -> Result<datafusion::logical_expr::Expr> {
    use datafusion::sql::sqlparser::ast::{SelectItem, SetExpr, Statement as SqlStatement};
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    let syntax = |detail: String| Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse expression {text}: {detail}"));
    let mut statements = datafusion::sql::sqlparser::parser::Parser::parse_sql(&ClickHouseDialect {}, &format!("SELECT {text}")).map_err(|e| syntax(e.to_string()))?;
    let mut statement = statements.pop().filter(|_| statements.is_empty()).ok_or_else(|| syntax("not one expression".into()))?;
    granary_functions::prepare_function_names(&mut statement)?;
    if let SqlStatement::Query(query) = statement {
        if let SetExpr::Select(select) = *query.body {
            if let [SelectItem::UnnamedExpr(expr)] = select.projection.as_slice() {
                let expr = datafusion::sql::sqlparser::ast::ExprWithAlias { expr: expr.clone(), alias: None };
                return Ok(ctx.state.create_logical_expr_from_sql_expr(expr, schema)?);
            }
        }
    }
    Err(syntax("not one expression".into()))
}

/// VALUES text up to this size is read whole, so that rows the literal parser rejects
/// can be evaluated as SQL expressions (`VALUES (now(), 1 + 1)`), as ClickHouse's Values
/// format does; longer text streams through the literal parser alone.
const VALUES_EXPRESSION_FALLBACK_BYTES: usize = 1 << 20;

/// Inserts VALUES text held in memory: literals parsed in one pass, or, when that fails,
/// row by row with expressions where needed (`insert_values.rs`).
async fn insert_values(ctx: &QueryContext, table: &Table, targets: &[usize], values: &str, defaults: InsertExpressions) -> Result<()> {
    let (schema, batches) = values_batches(ctx, table, targets, values, &defaults).await?;
    let stream = futures::stream::iter(batches.into_iter().map(Ok));
    let stream: SendableRecordBatchStream = Box::pin(RecordBatchStreamAdapter::new(schema, stream));
    insert_stream_with_defaults(ctx, table, targets, stream, defaults).await
}

/// The rows of VALUES text held in memory, as batches of the listed columns.
async fn values_batches(ctx: &QueryContext, table: &Table, targets: &[usize], values: &str, defaults: &InsertExpressions) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let fields = input_fields(ctx, table, targets, defaults)?;
    let input_schema: SchemaRef = Arc::new(Schema::new(fields.clone()));
    let mut format_settings = FormatSettings::from_settings(&ctx.settings, ctx.timezone);
    format_settings.max_block_rows = ctx.settings.get_u64("max_insert_block_size").max(1) as usize;
    let mut parser = create_input_format("Values", input_schema.clone(), &format_settings)?;
    let mut batches = Vec::new();
    let literal = parser.push(values.as_bytes(), &mut batches).and_then(|_| parser.finish(&mut batches));
    let (schema, batches) = match literal {
        Ok(()) => (input_schema, batches),
        Err(_) => {
            let columns = targets
                .iter()
                .map(|&i| {
                    let column = &table.meta.columns[i];
                    Ok(crate::insert_values::ValuesColumn { name: column.name.clone(), ch_type: ChType::parse(&column.type_name)? })
                })
                .collect::<Result<Vec<_>>>()?;
            let batches = crate::insert_values::read_values(ctx, &columns, &fields, values, &format_settings).await?;
            let schema: SchemaRef = Arc::new(Schema::new(fields.iter().map(|f| f.clone().with_nullable(true)).collect::<Vec<_>>()));
            (schema, batches)
        }
    };
    Ok((schema, batches))
}

/// The data of an INSERT that may be queued (`async_insert`).
struct AsyncData<'a> {
    format: &'a str,
    /// The INSERT's text before its data.
    query: &'a str,
    /// The data the query text carries.
    data: &'a str,
    /// The rest of the data, from the request body.
    input: Option<ByteStream>,
}

enum Queued {
    /// Queued (and, with wait_for_async_insert, written).
    Done,
    /// More than async_insert_max_data_size: to be written synchronously, from this input
    /// (what was read of the body, then the rest of it).
    TooLarge(Option<ByteStream>),
}

/// Reads an INSERT's whole data, parses and conforms it, and queues it: a bad row fails
/// here, for this INSERT alone, before anything is queued.
async fn queue_insert(
    ctx: &QueryContext,
    queue: &Arc<AsyncInsertQueue>,
    table: &Arc<Table>,
    targets: &[usize],
    data: AsyncData<'_>,
    defaults: &InsertExpressions,
) -> Result<Queued> {
    let AsyncData { format, query, data, input } = data;
    let limit = ctx.settings.get_u64("async_insert_max_data_size");
    let had_body = input.is_some();
    let mut size = data.len() as u64;
    let mut body: Vec<Bytes> = Vec::new();
    let mut rest = input;
    while let Some(stream) = rest.as_mut() {
        if size > limit {
            break;
        }
        match stream.next().await {
            Some(chunk) => {
                let chunk = chunk?;
                size += chunk.len() as u64;
                body.push(chunk);
            }
            None => rest = None,
        }
    }
    if size > limit {
        let read = futures::stream::iter(body.into_iter().map(Ok));
        let input: Option<ByteStream> = match rest {
            Some(rest) => Some(Box::pin(read.chain(rest))),
            None if had_body => Some(Box::pin(read)),
            None => None,
        };
        return Ok(Queued::TooLarge(input));
    }
    let saw_data = data.bytes().any(|b| !b.is_ascii_whitespace()) || body.iter().any(|chunk| !chunk.is_empty());
    if !saw_data {
        return Err(no_data_to_insert());
    }
    let parsed = if format == "Values" && !had_body && data.len() <= VALUES_EXPRESSION_FALLBACK_BYTES {
        values_batches(ctx, table, targets, data, defaults).await?.1
    } else {
        let input_schema: SchemaRef = Arc::new(Schema::new(input_fields(ctx, table, targets, defaults)?));
        let mut format_settings = FormatSettings::from_settings(&ctx.settings, ctx.timezone);
        format_settings.max_block_rows = ctx.settings.get_u64("max_insert_block_size").max(1) as usize;
        let mut parser = create_input_format(format, input_schema, &format_settings)?;
        let mut parsed = Vec::new();
        parser.push(data.as_bytes(), &mut parsed)?;
        for chunk in &body {
            parser.push(chunk, &mut parsed)?;
        }
        parser.finish(&mut parsed)?;
        parsed
    };
    let conformer = Conformer::new(table.schema(), targets.to_vec(), defaults.clone())?;
    let batches = parsed.iter().filter(|b| b.num_rows() > 0).map(|b| conformer.conform(b)).collect::<Result<Vec<_>>>()?;
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    if rows == 0 {
        return Ok(Queued::Done);
    }
    let queued = crate::async_insert::QueuedData { table, targets, format, query, batches, bytes: size };
    queue.push(&ctx.query_id, &ctx.settings, queued).await?;
    if ctx.settings.get_bool("wait_for_async_insert") {
        ctx.progress.add_written(rows as u64, size);
    }
    Ok(Queued::Done)
}

/// The fields an input format parses for the listed columns. A column that is not
/// Nullable but has a DEFAULT expression is parsed as Nullable, so that the conformer
/// replaces a NULL by that expression's value (ClickHouse's input_format_null_as_default)
/// rather than by the type's zero.
fn input_fields(ctx: &QueryContext, table: &Table, targets: &[usize], defaults: &InsertExpressions) -> Result<Vec<Field>> {
    let schema = table.schema();
    let null_as_default = ctx.settings.get_bool("input_format_null_as_default");
    targets
        .iter()
        .map(|&i| {
            let field = schema.field(i);
            if null_as_default && !field.is_nullable() && defaults.covers(i) {
                let ch_type = ChType::from_field(field);
                let nullable = ch_type.clone().into_nullable();
                if nullable != ch_type {
                    return Ok(nullable.to_arrow_field(field.name()));
                }
            }
            Ok(field.clone())
        })
        .collect()
}

/// Indexes of the listed columns in the table; when none are listed, of the columns an
/// INSERT fills by position (ordinary ones: not MATERIALIZED, ALIAS or EPHEMERAL).
fn target_columns(table: &Table, listed: &[String]) -> Result<Vec<usize>> {
    let schema = table.schema();
    let kind_of = |i: usize| table.meta.columns.get(i).map_or(ColumnKind::Ordinary, |c| c.kind());
    if listed.is_empty() {
        return Ok((0..schema.fields().len()).filter(|&i| kind_of(i) == ColumnKind::Ordinary).collect());
    }
    let mut targets: Vec<usize> = Vec::with_capacity(listed.len());
    for name in listed {
        let no_such_column = || Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("No such column {name} in table {}.{}", table.meta.database, table.meta.name));
        let index = schema.index_of(name).map_err(|_| no_such_column())?;
        match kind_of(index) {
            ColumnKind::Materialized => {
                return Err(Error::new(ErrorCode::ILLEGAL_COLUMN, format!("Cannot insert column {name}, because it is MATERIALIZED column")));
            }
            ColumnKind::Alias => return Err(no_such_column()),
            ColumnKind::Ordinary | ColumnKind::Ephemeral => {}
        }
        if targets.contains(&index) {
            return Err(Error::new(
                ErrorCode::DUPLICATE_COLUMN,
                format!("Column {name} in table {}.{} specified more than once", table.meta.database, table.meta.name),
            ));
        }
        targets.push(index);
    }
    Ok(targets)
}

/// Inserts the rows of `stream` (columns by position = `targets`; when empty, the columns
/// an INSERT without a column list fills).
pub(crate) async fn insert_stream(ctx: &QueryContext, table: &Table, targets: &[usize], stream: SendableRecordBatchStream) -> Result<()> {
    let all = target_columns(table, &[])?;
    let targets = if targets.is_empty() { &all } else { targets };
    let defaults = plan_insert_expressions(ctx, table, targets).await?;
    insert_stream_with_defaults(ctx, table, targets, stream, defaults).await
}

async fn insert_stream_with_defaults(
    ctx: &QueryContext,
    table: &Table,
    targets: &[usize],
    stream: SendableRecordBatchStream,
    defaults: InsertExpressions,
) -> Result<()> {
    insert_streams_with_defaults(ctx, table, targets, vec![stream], defaults).await
}

/// Inserts rows arriving on several streams (the partitions of a SELECT), each
/// conformed to the table's schema on its own.
async fn insert_streams_with_defaults(
    ctx: &QueryContext,
    table: &Table,
    targets: &[usize],
    streams: Vec<SendableRecordBatchStream>,
    defaults: InsertExpressions,
) -> Result<()> {
    let source_columns = match streams.first() {
        Some(stream) => stream.schema().fields().len(),
        None => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "INSERT without an input stream")),
    };
    if source_columns != targets.len() {
        return Err(Error::new(
            ErrorCode::NUMBER_OF_COLUMNS_DOESNT_MATCH,
            format!("Number of columns doesn't match: the query returns {source_columns}, the insert expects {}", targets.len()),
        ));
    }
    let conformer = Arc::new(Conformer::new(table.schema(), targets.to_vec(), defaults)?);
    let schema = table.schema();
    let inputs = streams
        .into_iter()
        .map(|stream| {
            let conformer = conformer.clone();
            let conformed = stream.map(move |batch| {
                let batch = batch?;
                conformer.conform(&batch).map_err(Error::into_datafusion)
            });
            Box::pin(RecordBatchStreamAdapter::new(schema.clone(), conformed)) as SendableRecordBatchStream
        })
        .collect();
    write_to_engine(ctx, table, InsertRequest::partitioned(inputs, ctx.settings.clone())?).await
}

/// Hands rows to the table's engine, and to the materialized views reading the table.
pub(crate) fn write_to_engine<'a>(ctx: &'a QueryContext, table: &'a Table, request: InsertRequest) -> futures::future::BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        let source = granary_storage::QualifiedName { database: table.meta.database.clone(), table: table.meta.name.clone() };
        let views = crate::views::materialized_views_reading(ctx, &source);
        let work = if views.is_empty() { table.engine.insert(request) } else { crate::views::insert_with_views(ctx, table, request, views) };
        let result = match ctx.deadline {
            Some(deadline) => tokio::time::timeout_at(deadline, work).await.map_err(|_| timeout_error(ctx))??,
            None => work.await?,
        };
        ctx.progress.add_written(result.written_rows, result.written_bytes);
        Ok(())
    })
}

pub(crate) fn timeout_error(ctx: &QueryContext) -> Error {
    let limit = ctx.settings.get_f64("max_execution_time");
    Error::new(
        ErrorCode::TIMEOUT_EXCEEDED,
        format!("Timeout exceeded: elapsed {:.6} seconds, maximum: {limit}", ctx.progress.started.elapsed().as_secs_f64()),
    )
}

async fn insert_data(
    ctx: &QueryContext,
    table: &Table,
    targets: &[usize],
    format: &str,
    head: Bytes,
    input: Option<ByteStream>,
    defaults: InsertExpressions,
) -> Result<()> {
    let table_schema = table.schema();
    let input_schema: SchemaRef = Arc::new(Schema::new(input_fields(ctx, table, targets, &defaults)?));
    let mut format_settings = FormatSettings::from_settings(&ctx.settings, ctx.timezone);
    format_settings.max_block_rows = ctx.settings.get_u64("max_insert_block_size").max(1) as usize;
    // Fails here, before any data is read, for an unknown format.
    let mut parser = create_input_format(format, input_schema.clone(), &format_settings)?;
    let conformer = Conformer::new(table_schema.clone(), targets.to_vec(), defaults)?;
    let (tx, mut rx) = mpsc::channel::<Result<Parsed>>(4);
    let (body_tx, mut body_rx) = mpsc::channel::<Result<Option<Bytes>>>(BODY_CHUNKS_IN_FLIGHT);
    // The body reader only reads: parsing never holds up the connection's reads, and the
    // bounded queue holds up the reads when parsing falls behind.
    let reader = AbortOnDrop(tokio::spawn(async move {
        if let Some(mut input) = input {
            while let Some(chunk) = input.next().await {
                let failed = chunk.is_err();
                if body_tx.send(chunk.map(Some)).await.is_err() || failed {
                    return;
                }
            }
        }
        let _ = body_tx.send(Ok(None)).await;
    }));
    // Parsing blocks (the parser waits for its parallel parsers when they fall behind):
    // on a thread of its own, not a runtime thread. It stops when the reader or the
    // engine's side of the channels goes away.
    let parse = granary_profiler::carry(move || {
        let mut pending = Vec::new();
        // Text the query itself carried counts as data only when it is not blank.
        let mut saw_data = head.iter().any(|b| !b.is_ascii_whitespace());
        let mut next_chunk: Option<Result<Option<Bytes>>> = Some(Ok(Some(head)));
        loop {
            let chunk = match next_chunk.take() {
                Some(chunk) => chunk,
                None => match body_rx.blocking_recv() {
                    Some(chunk) => chunk.inspect(|bytes| saw_data |= bytes.as_ref().is_some_and(|b| !b.is_empty())),
                    // The reader was stopped: the INSERT is abandoned.
                    None => return,
                },
            };
            let last = matches!(chunk, Ok(None));
            let step = match chunk {
                Ok(Some(bytes)) => parser.push(&bytes, &mut pending),
                Ok(None) if !saw_data => Err(no_data_to_insert()),
                Ok(None) => parser.finish(&mut pending),
                Err(e) => Err(e),
            };
            let batches = step.and_then(|_| pending.drain(..).map(|b| conformer.conform(&b)).collect::<Result<Vec<_>>>());
            match batches {
                Ok(batches) => {
                    for batch in batches {
                        if tx.blocking_send(Ok(Parsed::Batch(batch))).is_err() {
                            return;
                        }
                    }
                }
                Err(e) => {
                    let _ = tx.blocking_send(Err(e));
                    return;
                }
            }
            if last {
                let _ = tx.blocking_send(Ok(Parsed::End));
                return;
            }
        }
    });
    // Not awaited: the engine's side learns the outcome through the channel.
    drop(tokio::task::spawn_blocking(parse));
    // The parser task says explicitly that the input ended; a channel that closes without
    // that (the task panicked or was cancelled) fails the INSERT instead of committing
    // what arrived so far.
    let mut ended = false;
    let batches = futures::stream::poll_fn(move |cx| match rx.poll_recv(cx) {
        std::task::Poll::Ready(Some(Ok(Parsed::Batch(batch)))) => std::task::Poll::Ready(Some(Ok(batch))),
        std::task::Poll::Ready(Some(Ok(Parsed::End))) => {
            ended = true;
            std::task::Poll::Ready(None)
        }
        std::task::Poll::Ready(Some(Err(e))) => std::task::Poll::Ready(Some(Err(e.into_datafusion()))),
        std::task::Poll::Ready(None) if !ended => {
            ended = true;
            let e = Error::new(ErrorCode::LOGICAL_ERROR, "INSERT data parsing stopped unexpectedly");
            std::task::Poll::Ready(Some(Err(e.into_datafusion())))
        }
        std::task::Poll::Ready(None) => std::task::Poll::Ready(None),
        std::task::Poll::Pending => std::task::Poll::Pending,
    });
    let stream: SendableRecordBatchStream = Box::pin(RecordBatchStreamAdapter::new(table_schema, batches));
    let result = write_to_engine(ctx, table, InsertRequest::new(stream, ctx.settings.clone())).await;
    drop(reader);
    result
}

/// Body chunks read ahead of the parser.
const BODY_CHUNKS_IN_FLIGHT: usize = 16;

/// Stops a task when its owner goes away (an INSERT that failed, timed out or whose
/// client left stops reading the body).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What the parser task sends to the engine.
enum Parsed {
    Batch(RecordBatch),
    /// The input ended and everything before it was parsed.
    End,
}

/// Turns batches of the listed columns into batches of the whole table: casts each
/// column to the table's type, fills unlisted columns with defaults, and replaces NULLs
/// in non-Nullable columns with the type's default (ClickHouse's null_as_default).
pub(crate) struct Conformer {
    table_schema: SchemaRef,
    /// For each table column, the position in the source batch, if listed.
    source_of: Vec<Option<usize>>,
    /// One-row default value per table column.
    defaults: Vec<ArrayRef>,
    /// Columns computed from others of the row, in evaluation order.
    per_row: Vec<RowDefault>,
    /// CHECK constraints, on the conformed rows.
    checks: Vec<RowCheck>,
}

impl Conformer {
    pub fn new(table_schema: SchemaRef, targets: Vec<usize>, defaults: InsertExpressions) -> Result<Self> {
        let InsertExpressions { constants: mut overrides, per_row, checks } = defaults;
        let mut source_of = vec![None; table_schema.fields().len()];
        for (position, column) in targets.iter().enumerate() {
            source_of[*column] = Some(position);
        }
        let defaults = table_schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| match overrides.remove(&i) {
                Some(value) if value.data_type() == f.data_type() => Ok(value),
                _ => default_value(f),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Conformer { table_schema, source_of, defaults, per_row, checks })
    }

    pub fn conform(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let options = CastOptions { safe: false, ..Default::default() };
        let mut columns = Vec::with_capacity(self.source_of.len());
        // Given columns whose NULLs take a per-row default: where the values were given.
        let mut given: HashMap<usize, arrow::array::BooleanArray> = HashMap::new();
        for (i, field) in self.table_schema.fields().iter().enumerate() {
            let column = match self.source_of[i] {
                Some(position) => {
                    let source = batch.column(position);
                    let source_field = batch.schema_ref().field(position).clone();
                    check_state_types(&source_field, field)?;
                    let cast = if source.data_type() == field.data_type() && !needs_clickhouse_conversion(&source_field, field) {
                        source.clone()
                    } else if needs_clickhouse_conversion(&source_field, field) {
                        granary_functions::convert_array(source, &source_field, ChType::from_field(field).strip_nullable())?
                    } else if let DataType::FixedSizeBinary(width) = field.data_type() {
                        to_fixed_string(source, *width, field.name())?
                    } else {
                        cast_with_options(source, field.data_type(), &options).map_err(|e| {
                            Error::new(ErrorCode::TYPE_MISMATCH, format!("Cannot convert column {} from {} to {}: {e}", field.name(), source.data_type(), field.data_type()))
                        })?
                    };
                    if !field.is_nullable() && cast.null_count() > 0 {
                        let mask = is_not_null(&cast)?;
                        let default = arrow::array::Scalar::new(self.defaults[i].clone());
                        let filled = zip(&mask, &cast, &default)?;
                        if self.per_row.iter().any(|d| d.column == i) {
                            given.insert(i, mask);
                        }
                        filled
                    } else {
                        cast
                    }
                }
                None => repeat(&self.defaults[i], rows)?,
            };
            columns.push(column);
        }
        self.fill_missing_nested(&mut columns)?;
        let batch_options = arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows));
        for default in &self.per_row {
            let i = default.column;
            if self.source_of[i].is_some() && !given.contains_key(&i) {
                continue;
            }
            let row = RecordBatch::try_new_with_options(self.table_schema.clone(), columns.clone(), &batch_options)?;
            let field = self.table_schema.field(i);
            let mut computed = default.expression.evaluate(&row)?.into_array(rows)?;
            if computed.data_type() != field.data_type() {
                computed = cast_with_options(&computed, field.data_type(), &options)?;
            }
            if !field.is_nullable() && computed.null_count() > 0 {
                computed = zip(&is_not_null(&computed)?, &computed, &arrow::array::Scalar::new(self.defaults[i].clone()))?;
            }
            columns[i] = match given.get(&i) {
                Some(mask) => zip(mask, &columns[i], &computed)?,
                None => computed,
            };
        }
        check_nested_sizes(&self.table_schema, &columns)?;
        let conformed = RecordBatch::try_new_with_options(self.table_schema.clone(), columns, &batch_options)?;
        for check in &self.checks {
            check.verify(&conformed)?;
        }
        Ok(conformed)
    }
}

/// States of one aggregate function are stored only in a column of exactly their type:
/// `minState` of an Int32 has another layout than a `min` of Int16, and its bytes would be
/// read back as garbage (ClickHouse refuses the same INSERT with the same error).
fn check_state_types(source: &arrow::datatypes::Field, target: &arrow::datatypes::Field) -> Result<()> {
    let (from, to) = (ChType::from_field(source), ChType::from_field(target));
    match (from.strip_nullable(), to.strip_nullable()) {
        (ChType::AggregateFunction(..), ChType::AggregateFunction(..)) if from.strip_nullable() != to.strip_nullable() => Err(Error::new(
            ErrorCode::CANNOT_CONVERT_TYPE,
            format!("Conversion from {} to {} is not supported: while converting source column {} to destination column {}", from, to, source.name(), target.name()),
        )),
        _ => Ok(()),
    }
}

impl Conformer {
    /// A Nested subcolumn that was not given gets, as in ClickHouse, arrays of defaults as
    /// long as a given sibling's (`INSERT INTO t (n.a) ...` fills `n.b` to match).
    fn fill_missing_nested(&self, columns: &mut [ArrayRef]) -> Result<()> {
        let fields = self.table_schema.fields();
        for (i, field) in fields.iter().enumerate() {
            let (Some((group, _)), None, DataType::List(item)) = (field.name().split_once('.'), self.source_of[i], field.data_type()) else { continue };
            let sibling = (0..fields.len()).find(|&j| {
                self.source_of[j].is_some() && fields[j].name().split_once('.').is_some_and(|(g, _)| g == group) && columns[j].as_list_opt::<i32>().is_some()
            });
            let Some(sibling) = sibling.and_then(|j| columns[j].as_list_opt::<i32>()) else { continue };
            let lengths: Vec<usize> = sibling.offsets().lengths().collect();
            let total: usize = lengths.iter().sum();
            let element = repeat(&default_value(item)?, total)?;
            let offsets = arrow::buffer::OffsetBuffer::from_lengths(lengths);
            columns[i] = Arc::new(arrow::array::ListArray::try_new(item.clone(), offsets, element, None)?);
        }
        Ok(())
    }
}

/// The arrays of one Nested column (`n.a`, `n.b`: Array columns sharing the name before
/// the dot) hold the same number of elements in every row, as ClickHouse requires.
fn check_nested_sizes(schema: &Schema, columns: &[ArrayRef]) -> Result<()> {
    let mut first_of_group: HashMap<&str, usize> = HashMap::new();
    for (i, field) in schema.fields().iter().enumerate() {
        let Some((group, _)) = field.name().split_once('.') else { continue };
        let Some(list) = columns[i].as_list_opt::<i32>() else { continue };
        let Some(&first) = first_of_group.get(group) else {
            first_of_group.insert(group, i);
            continue;
        };
        let Some(first_list) = columns[first].as_list_opt::<i32>() else { continue };
        let lengths_differ = first_list.offsets().lengths().zip(list.offsets().lengths()).any(|(a, b)| a != b);
        if lengths_differ {
            return Err(Error::new(
                ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                format!(
                    "Elements '{}' and '{}' of Nested data structure '{group}' (Array columns) have different array sizes",
                    schema.field(first).name(),
                    field.name()
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a column of `source` goes into the table column `target` by ClickHouse's
/// conversion rather than Arrow's cast: enums (by name, even from another enum) and
/// addresses, whose Arrow types are plain integers and bytes.
fn needs_clickhouse_conversion(source: &Field, target: &Field) -> bool {
    let target_type = ChType::from_field(target);
    let domain = matches!(target_type.base(), ChType::Enum8(_) | ChType::Enum16(_) | ChType::IPv4 | ChType::IPv6);
    domain && ChType::from_field(source).base() != target_type.base()
}

/// Strings into `FixedString(N)` as ClickHouse converts them: shorter values padded with
/// zero bytes, longer ones an error (Arrow's cast has no string-to-fixed conversion).
fn to_fixed_string(source: &ArrayRef, width: i32, column: &str) -> Result<ArrayRef> {
    let binary = cast_with_options(source, &DataType::Binary, &CastOptions { safe: false, ..Default::default() }).map_err(|e| {
        Error::new(ErrorCode::TYPE_MISMATCH, format!("Cannot convert column {column} from {} to FixedString({width}): {e}", source.data_type()))
    })?;
    let binary = binary.as_binary::<i32>();
    let width_usize = width as usize;
    let mut builder = arrow::array::FixedSizeBinaryBuilder::with_capacity(binary.len(), width);
    let mut padded = vec![0u8; width_usize];
    for value in binary.iter() {
        match value {
            None => builder.append_null(),
            Some(bytes) if bytes.len() > width_usize => {
                return Err(Error::new(ErrorCode::TOO_LARGE_STRING_SIZE, format!("Too large value for FixedString({width}) in column {column}")));
            }
            Some(bytes) => {
                padded[..bytes.len()].copy_from_slice(bytes);
                padded[bytes.len()..].fill(0);
                builder.append_value(&padded)?;
            }
        }
    }
    Ok(Arc::new(builder.finish()))
}
