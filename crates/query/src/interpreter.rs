//! Statements: what each one does, given a parsed [`Statement`] and a query context.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray, UInt8Array};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::execute_stream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast;
use datafusion::common::TableReference;
use granary_common::{Error, ErrorCode, Result};
use granary_formats::{create_output_format, FormatSettings, OutputFormat};
use granary_sql::parse::{ParseOptions, Statement, StatementWithClauses};
use granary_sql::rewrite::{LimitBy, RewriteOptions};
use granary_sql::{AlterCommand, CreateTable, TableName};
use granary_storage::{ColumnMeta, DeleteRequest, EngineMeta, OptimizeRequest, PartitionCommand, RuleMutation, TableMeta, UpdateRequest, TABLE_META_VERSION};
use granary_types::ChType;

use crate::insert;
use crate::instance::{Instance, QueryContext, QueryRequest};
use crate::session::Session;

pub(crate) enum Outcome {
    /// A result to stream through an output format; `totals` (WITH TOTALS) is run once
    /// the result has been sent, for the format's totals row.
    Rows {
        stream: SendableRecordBatchStream,
        output_format: Box<dyn OutputFormat>,
        totals: Option<Arc<dyn datafusion::physical_plan::ExecutionPlan>>,
        /// The executed plan, read after the result for `rows_before_limit_at_least`.
        plan: Option<Arc<dyn datafusion::physical_plan::ExecutionPlan>>,
    },
    /// Nothing to send (DDL, INSERT, SET, ...).
    Done,
}

pub(crate) struct StatementOutcome {
    pub result: Outcome,
    pub format: String,
    pub content_type: String,
    /// `system.query_log.query_kind`.
    pub kind: &'static str,
}

impl StatementOutcome {
    /// The outcome of a SELECT answered before the general path (fast paths, cached plans).
    fn rows(result: Outcome, format: String, kind: &'static str) -> Self {
        let content_type = match &result {
            Outcome::Rows { output_format, .. } => output_format.content_type().to_string(),
            Outcome::Done => String::new(),
        };
        StatementOutcome { result, format, content_type, kind }
    }
}

const DEFAULT_FORMAT: &str = "TabSeparated";

pub(crate) async fn run(
    instance: &Instance,
    ctx: &mut QueryContext,
    session: &mut Session,
    text: &str,
    request: &mut QueryRequest,
) -> Result<StatementOutcome> {
    let mut params = session.params.clone();
    params.extend(request.params.iter().map(|(k, v)| (k.clone(), v.clone())));
    let case_insensitive = |name: &str| granary_functions::is_case_insensitive(name);
    let options = ParseOptions {
        params: &params,
        rewrite: RewriteOptions { is_case_insensitive: Some(&case_insensitive), clickhouse_functions: true },
        max_query_size: ctx.settings.get_u64("max_query_size") as usize,
    };
    let normalized = if options.max_query_size == 0 || text.len() <= options.max_query_size { crate::point_query::normalize(text) } else { None };
    if let Some(normalized) = &normalized {
        if let Some(outcome) = run_cached_point_query(instance, ctx, request.default_format.as_deref(), normalized).await? {
            return Ok(outcome);
        }
    }
    // A normalized text has no parameters and fits max_query_size: its parse depends on
    // the text alone.
    let cached_parse = normalized.as_ref().and_then(|_| instance.parsed_selects().get(text));
    let (parsed, substituted) = match cached_parse {
        Some(parsed) => (parsed, None),
        None => {
            let (parsed, substituted) = granary_sql::parse_statement(text, &options)?;
            let parsed = Arc::new(parsed);
            if normalized.is_some() && substituted.is_none() && matches!(parsed.statement, Statement::Query { .. }) {
                instance.parsed_selects().insert(text, parsed.clone());
            }
            (parsed, substituted)
        }
    };
    // Borrowed from the (possibly shared) parse until a statement is consumed below: a
    // query answered from the plan cache never copies its syntax tree.
    let StatementWithClauses { statement, settings, format } = &*parsed;
    apply_statement_clauses(instance, ctx, &statement, &settings)?;
    let kind = statement.kind_name();
    let written_format = format.clone();
    let format_name = format.clone().or_else(|| request.default_format.clone()).unwrap_or_else(|| DEFAULT_FORMAT.to_string());
    let format_settings = FormatSettings::from_settings(&ctx.settings, ctx.timezone);
    let rows = |stream: SendableRecordBatchStream, limit_by: Option<LimitBy>| -> Result<Outcome> {
        let stream = with_displayed_names(stream)?;
        let stream = match limit_by {
            Some(spec) => crate::limit_by::apply_to_stream(stream, spec)?,
            None => stream,
        };
        let stream = crate::limit_by::without_hidden_columns(stream)?;
        let output_format = create_output_format(&format_name, stream.schema(), &format_settings)?;
        Ok(Outcome::Rows { stream, output_format, totals: None, plan: None })
    };
    if let Statement::Query { query, limit_by: None } = &statement {
        let mut fast = crate::point_query::try_point_query(ctx, query)?;
        if let (Some(_), Some(normalized)) = (&fast, &normalized) {
            instance.point_shapes().remember(normalized, query, &statement, &settings, written_format.as_deref());
        }
        // Restricted users take the planned path, where lookups are checked.
        if fast.is_none() && ctx.access.is_unrestricted() {
            fast = crate::point_query::try_constant_lookup(ctx, query, instance.lookup_functions()).await?;
            if let (Some(_), Some(normalized)) = (&fast, &normalized) {
                instance.point_shapes().remember_constant(normalized, query, &statement, &settings, written_format.as_deref());
            }
        }
        if let Some(stream) = fast {
            return Ok(StatementOutcome::rows(rows(stream, None)?, format_name, kind));
        }
    }
    let plan_key = match &statement {
        Statement::Query { .. } => crate::plan_cache::PlanCache::key(ctx, substituted.as_deref().unwrap_or(text)),
        _ => None,
    };
    if let (Some(key), Statement::Query { limit_by, .. }) = (&plan_key, &statement) {
        if let Some(physical) = instance.plan_cache().get(key) {
            let config = instance.query_config(ctx)?;
            let mut result = rows(execute_physical(ctx, config, physical.clone())?, limit_by.clone())?;
            if let Outcome::Rows { plan, .. } = &mut result {
                *plan = Some(physical);
            }
            return Ok(StatementOutcome::rows(result, format_name, kind));
        }
    }
    instance.configure_state(ctx)?;
    let statement = Arc::try_unwrap(parsed).map_or_else(|shared| shared.statement.clone(), |parsed| parsed.statement);
    // Boxed: the statements below await large futures (planning, INSERT, DDL). Inline,
    // they would make this function's future tens of KiB, copied into its box for every
    // query, key-value lookups included.
    let result = Box::pin(run_statement(instance, ctx, session, request, text, substituted.as_deref(), plan_key, statement, &rows)).await?;
    let content_type = match &result {
        Outcome::Rows { output_format, .. } => output_format.content_type().to_string(),
        Outcome::Done => "text/plain; charset=UTF-8".to_string(),
    };
    Ok(StatementOutcome { result, format: format_name, content_type, kind })
}

/// A result stream as the statement's output: LIMIT BY applied, names as displayed, in
/// the query's format.
type RowsOutcome<'a> = dyn Fn(SendableRecordBatchStream, Option<LimitBy>) -> Result<Outcome> + Sync + 'a;

/// Runs a statement the fast paths of [`run`] did not answer.
#[allow(clippy::too_many_arguments)]
async fn run_statement(
    instance: &Instance,
    ctx: &mut QueryContext,
    session: &mut Session,
    request: &mut QueryRequest,
    text: &str,
    substituted: Option<&str>,
    plan_key: Option<String>,
    statement: Statement,
    rows: &RowsOutcome<'_>,
) -> Result<Outcome> {
    Ok(match statement {
        Statement::Query { query, limit_by } => {
            // ClickHouse applies LIMIT BY before WITH FILL; Granary applies LIMIT BY to the
            // result stream, after it.
            if limit_by.is_some() && crate::fill::has_with_fill(&query) {
                return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "LIMIT BY together with ORDER BY ... WITH FILL is not supported yet"));
            }
            let (plan, totals) = plan_query_with_totals(ctx, query).await?;
            let physical = physical_plan(ctx, &plan).await?;
            // The cache keeps one plan per query: a query with totals is always planned.
            let read_views = ctx.read_views.load(std::sync::atomic::Ordering::Relaxed) || ctx.per_execution_values.load(std::sync::atomic::Ordering::Relaxed);
            if let Some(key) = plan_key.filter(|_| totals.is_none() && !read_views && crate::plan_cache::is_reusable(&plan)) {
                instance.plan_cache().insert(key, &physical);
            }
            let totals = match totals {
                Some(totals) => Some(physical_plan(ctx, &totals).await?),
                None => None,
            };
            let mut result = rows(execute_physical(ctx, ctx.state.config().clone(), physical.clone())?, limit_by)?;
            if let Outcome::Rows { totals: slot, plan, .. } = &mut result {
                *slot = totals;
                *plan = Some(physical);
            }
            result
        }
        Statement::Insert(insert) => {
            let takes_data = matches!(insert.source, granary_sql::InsertSource::Data { .. } | granary_sql::InsertSource::Select { input_format: Some(_), .. });
            if request.input.is_some() && !takes_data {
                return Err(too_large(ctx));
            }
            let data_text = substituted.unwrap_or(text);
            insert::run_insert(ctx, Some(instance.async_inserts()), insert, data_text, request.input.take()).await?;
            Outcome::Done
        }
        Statement::CreateDatabase { name, if_not_exists, engine } => {
            instance.catalog().create_database(&name, if_not_exists, engine.as_deref())?;
            Outcome::Done
        }
        Statement::DropDatabase { name, if_exists } => {
            if name == "system" || name.eq_ignore_ascii_case("information_schema") {
                return Err(Error::new(ErrorCode::DATABASE_ACCESS_DENIED, format!("Cannot drop database {name}")));
            }
            instance.catalog().drop_database(&name, if_exists).await?;
            if session.current_database == name {
                session.current_database = "default".into();
            }
            Outcome::Done
        }
        Statement::CreateTable(create) => {
            create_table(instance, ctx, session, *create).await?;
            Outcome::Done
        }
        Statement::CreateDictionary(create) => {
            crate::lookups::create_dictionary(instance, ctx, *create)?;
            Outcome::Done
        }
        Statement::CreateView(create) => {
            crate::views::create_view(instance, ctx, *create).await?;
            Outcome::Done
        }
        Statement::DropTable { name, if_exists, view_only, temporary } => {
            if name.database.is_none() {
                if let Some(table) = session.temporary_tables.remove(&name.table) {
                    table.engine.drop_data().await?;
                    return Ok(Outcome::Done);
                }
            }
            if temporary {
                if if_exists {
                    return Ok(Outcome::Done);
                }
                return Err(Error::new(ErrorCode::UNKNOWN_TABLE, format!("Temporary table {} doesn't exist", name.table)));
            }
            let db = database_of(ctx, &name);
            forbid_system(&db, "drop")?;
            let unqualified_config_dictionary = name.database.is_none() && !if_exists && instance.catalog().table(&db, &name.table).is_err();
            if unqualified_config_dictionary {
                if let Some(e) = crate::lookups::config_dictionary_drop_error(instance.dictionaries(), &db, &name.table) {
                    return Err(e);
                }
            }
            match instance.catalog().table(&db, &name.table) {
                Ok(table) if table.meta.view.is_some() => crate::views::drop_view(instance, &db, &name.table).await?,
                Ok(_) if view_only => {
                    return Err(Error::new(ErrorCode::INCORRECT_QUERY, format!("Table {db}.{} is not a View", name.table)));
                }
                _ => instance.catalog().drop_table(&db, &name.table, if_exists).await?,
            }
            Outcome::Done
        }
        Statement::DetachTable { name, if_exists, permanently } => {
            let db = database_of(ctx, &name);
            forbid_system(&db, "detach")?;
            let table = match instance.catalog().detach_table(&db, &name.table, permanently) {
                Err(e) if if_exists && e.code() == ErrorCode::UNKNOWN_TABLE => return Ok(Outcome::Done),
                other => other?,
            };
            close_detached(&table).await;
            Outcome::Done
        }
        Statement::AttachTable { name, if_not_exists } => {
            let db = database_of(ctx, &name);
            forbid_system(&db, "attach")?;
            instance.catalog().attach_table(&db, &name.table, if_not_exists)?;
            Outcome::Done
        }
        Statement::DetachDatabase { name, if_exists, permanently } => {
            forbid_system(&name, "detach")?;
            if permanently {
                return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "DETACH PERMANENTLY is not implemented for databases"));
            }
            let tables = match instance.catalog().detach_database(&name) {
                Err(e) if if_exists && e.code() == ErrorCode::UNKNOWN_DATABASE => return Ok(Outcome::Done),
                other => other?,
            };
            for table in tables {
                close_detached(&table).await;
            }
            if session.current_database == name {
                session.current_database = "default".into();
            }
            Outcome::Done
        }
        Statement::AttachDatabase { name, if_not_exists } => {
            forbid_system(&name, "attach")?;
            instance.catalog().attach_database(&name, if_not_exists)?;
            Outcome::Done
        }
        Statement::RenameDatabase { from, to } => {
            forbid_system(&from, "rename")?;
            forbid_system(&to, "rename")?;
            instance.catalog().rename_database(&from, &to)?;
            Outcome::Done
        }
        Statement::ExchangeTables(first, second) => {
            let (first_db, second_db) = (database_of(ctx, &first), database_of(ctx, &second));
            forbid_system(&first_db, "exchange")?;
            forbid_system(&second_db, "exchange")?;
            instance.catalog().exchange_tables((&first_db, &first.table), (&second_db, &second.table))?;
            Outcome::Done
        }
        Statement::RenameTables(pairs) => {
            for (from, to) in pairs {
                let (from_db, to_db) = (database_of(ctx, &from), database_of(ctx, &to));
                forbid_system(&from_db, "rename")?;
                forbid_system(&to_db, "rename")?;
                instance.catalog().rename_table((&from_db, &from.table), (&to_db, &to.table))?;
            }
            Outcome::Done
        }
        Statement::TruncateTable { name, if_exists } => {
            let db = database_of(ctx, &name);
            forbid_system(&db, "truncate")?;
            match instance.catalog().table(&db, &name.table) {
                // A materialized view empties its inner table; a TO table is not the view's.
                Ok(table) if table.meta.view.as_ref().is_some_and(|v| v.is_materialized()) => {
                    if table.meta.view.as_ref().is_some_and(|v| v.inner_engine.is_some()) {
                        if let Some(target) = crate::views::target_of(ctx, &table)? {
                            target.engine.truncate().await?;
                        }
                    }
                }
                Ok(table) => table.engine.truncate().await?,
                Err(e) if if_exists && matches!(e.code(), ErrorCode::UNKNOWN_TABLE) => {}
                Err(e) => return Err(e),
            }
            Outcome::Done
        }
        Statement::ShowDatabases { like, limit } => {
            let filter = like.map(|l| format!(" WHERE {}", l.condition("name"))).unwrap_or_default();
            rows(run_sql(ctx, &format!("SELECT name FROM system.databases{filter} ORDER BY name{}", limit_clause(limit))).await?, None)?
        }
        Statement::ShowTables { database, like, limit } => {
            let db = database.unwrap_or_else(|| ctx.current_database.clone());
            if db != "system" {
                instance.catalog().require_database(&db)?;
            }
            let filter = name_filter(&db, like.as_ref(), "name");
            rows(run_sql(ctx, &format!("SELECT name FROM system.tables WHERE {filter} ORDER BY name{}", limit_clause(limit))).await?, None)?
        }
        Statement::ShowDictionaries { database, like, limit } => {
            let db = database.unwrap_or_else(|| ctx.current_database.clone());
            instance.catalog().require_database(&db)?;
            let filter = name_filter(&db, like.as_ref(), "name");
            rows(run_sql(ctx, &format!("SELECT name FROM system.dictionaries WHERE {filter} ORDER BY name{}", limit_clause(limit))).await?, None)?
        }
        Statement::ShowColumns { table, like, limit } => {
            let db = database_of(ctx, &table);
            // A missing table shows no columns, as in ClickHouse (SHOW is a query of
            // system.columns); a missing database is an error.
            if db != "system" {
                instance.catalog().require_database(&db)?;
            }
            let filter = format!("{} AND table = {}", name_filter(&db, like.as_ref(), "name"), granary_sql::params::quote_string(&table.table));
            let sql = format!(
                "SELECT name AS field, type, if(startsWith(type, 'Nullable('), 'YES', 'NO') AS null, \
                 multiIf(is_in_primary_key = 1, 'PRI', is_in_sorting_key = 1, 'SOR', '') AS key, \
                 if(default_expression = '', NULL, default_expression) AS default, '' AS extra \
                 FROM system.columns WHERE {filter} ORDER BY field{}",
                limit_clause(limit)
            );
            rows(run_sql(ctx, &sql).await?, None)?
        }
        Statement::ShowFunctions { like } => {
            let filter = like.map(|l| format!(" WHERE {}", l.condition("name"))).unwrap_or_default();
            rows(run_sql(ctx, &format!("SELECT * FROM system.functions{filter}")).await?, None)?
        }
        Statement::ShowEngines => rows(run_sql(ctx, "SELECT * FROM system.table_engines").await?, None)?,
        Statement::ShowPrivileges => rows(run_sql(ctx, "SELECT * FROM system.privileges").await?, None)?,
        // A missing table or database shows no rows, as in ClickHouse.
        Statement::ShowIndexes { table, condition } => {
            let db = database_of(ctx, &table);
            rows(run_sql(ctx, &show_indexes_query(&db, &table.table, condition.as_deref())).await?, None)?
        }
        Statement::ShowSettings { like, changed } => {
            let mut conditions = vec!["true".to_string()];
            conditions.extend(like.map(|l| l.condition("name")));
            if changed {
                conditions.push("changed = 1".to_string());
            }
            rows(run_sql(ctx, &format!("SELECT name, type, value FROM system.settings WHERE {} ORDER BY name", conditions.join(" AND "))).await?, None)?
        }
        Statement::ShowSetting(name) => {
            let value = ctx.settings.get(&name).ok_or_else(|| {
                Error::new(ErrorCode::UNKNOWN_SETTING, format!("Setting {name} is neither a builtin setting nor started with the prefix 'custom_' registered for user-defined settings"))
            })?;
            rows(single_string_column("value", vec![value.to_string()])?, None)?
        }
        Statement::ShowCreateDatabase(name) => {
            let database = instance.catalog().require_database(&name)?;
            rows(single_string_column("statement", vec![format!("CREATE DATABASE {}\nENGINE = {}", name, database.engine)])?, None)?
        }
        Statement::ShowProcesslist => rows(run_sql(ctx, "SELECT * FROM system.processes").await?, None)?,
        Statement::ShowCreateTable(name) => {
            let statement = show_create(instance, ctx, &name).await?;
            rows(single_string_column("statement", vec![statement])?, None)?
        }
        Statement::DescribeTable(name) => {
            let schema = table_schema(instance, ctx, &name).await?;
            let mut columns = describe_columns(instance, ctx, &name, &schema);
            if ctx.settings.get_bool("describe_include_virtual_columns") {
                columns.extend(describe_virtual_columns(instance, ctx, &name));
            }
            rows(describe_batch(ctx, columns)?, None)?
        }
        Statement::DescribeQuery { query } => {
            let plan = plan_query(ctx, query).await?;
            let schema: SchemaRef = Arc::new(plan.schema().as_arrow().clone());
            let columns = schema.fields().iter().map(|f| DescribedColumn::plain(f.name(), &ChType::from_field(f))).collect();
            rows(describe_batch(ctx, columns)?, None)?
        }
        Statement::ExistsTable(name) => {
            let db = database_of(ctx, &name);
            let exists = if db == "system" {
                crate::system::SystemSchema::names().contains(&name.table.as_str())
            } else {
                instance.catalog().table(&db, &name.table).is_ok()
            };
            rows(single_u8_column("result", exists)?, None)?
        }
        Statement::ExistsDatabase(name) => {
            let exists = name == "system" || instance.catalog().database(&name).is_some();
            rows(single_u8_column("result", exists)?, None)?
        }
        Statement::Use(database) => {
            if database != "system" {
                instance.catalog().require_database(&database)?;
            }
            session.current_database = database;
            Outcome::Done
        }
        Statement::Set(assignments) => {
            let (params, changes): (Vec<_>, Vec<_>) = assignments.into_iter().partition(|(name, _)| name.starts_with("param_"));
            crate::instance::change_settings(&mut session.settings, &session.access, changes.iter().map(|(n, v)| (n.as_str(), v.as_str())))?;
            for (name, value) in params {
                session.params.insert(name["param_".len()..].to_string(), value);
            }
            Outcome::Done
        }
        Statement::Optimize { name, partition, final_, cleanup } => {
            let db = database_of(ctx, &name);
            let table = instance.catalog().table(&db, &name.table)?;
            let table = crate::views::target_of(ctx, &table)?.unwrap_or(table);
            let skip_merged_partitions = ctx.settings.get_bool("optimize_skip_merged_partitions");
            table.engine.optimize(OptimizeRequest { partition, final_, cleanup, skip_merged_partitions }).await?;
            Outcome::Done
        }
        Statement::CheckTable { name, partition } => {
            let db = database_of(ctx, &name);
            let table = instance.catalog().table(&db, &name.table)?;
            let results = table.engine.check(partition).await?;
            let batch = if ctx.settings.get_bool("check_query_single_value_result") {
                let schema = Arc::new(Schema::new(vec![Field::new("result", DataType::UInt8, false)]));
                let all = results.iter().all(|r| r.is_passed);
                RecordBatch::try_new(schema, vec![Arc::new(UInt8Array::from(vec![u8::from(all)])) as ArrayRef])?
            } else {
                let schema = Arc::new(Schema::new(vec![
                    Field::new("part_path", DataType::Utf8, false),
                    Field::new("is_passed", DataType::UInt8, false),
                    Field::new("message", DataType::Utf8, false),
                ]));
                RecordBatch::try_new(
                    schema,
                    vec![
                        Arc::new(StringArray::from_iter_values(results.iter().map(|r| r.part_path.as_str()))) as ArrayRef,
                        Arc::new(UInt8Array::from_iter_values(results.iter().map(|r| u8::from(r.is_passed)))),
                        Arc::new(StringArray::from_iter_values(results.iter().map(|r| r.message.as_str()))),
                    ],
                )?
            };
            rows(batch_stream(batch)?, None)?
        }
        Statement::KillMutation { condition, test } => rows(batch_stream(kill_mutations(instance, ctx, &condition, test).await?)?, None)?,
        Statement::Alter { name, commands } => {
            let db = database_of(ctx, &name);
            forbid_system(&db, "alter")?;
            let mut table = instance.catalog().table(&db, &name.table)?;
            // Consecutive commands on the table's description change it in one step.
            let mut metadata: Vec<AlterCommand> = Vec::new();
            for command in commands.into_iter().map(Some).chain([None]) {
                if let Some(command) = command.as_ref().filter(|c| crate::alter_columns::is_metadata_command(c)) {
                    metadata.push(command.clone());
                    continue;
                }
                if !metadata.is_empty() {
                    let applied = std::mem::take(&mut metadata);
                    crate::alter_columns::alter_metadata(instance, &table, &applied).await?;
                    table = instance.catalog().table(&db, &name.table)?;
                    // ClickHouse removes a dropped index's files from the parts by a mutation.
                    for name in crate::alter_columns::dropped_indexes(&applied) {
                        let sync = ctx.settings.get_u64("mutations_sync") > 0;
                        table.engine.mutate_by_rule(RuleMutation::ClearIndex { name, partition: None, drop: true }, sync).await?;
                    }
                    if crate::alter_columns::sets_ttl(&applied) && ctx.settings.get_bool("materialize_ttl_after_modify") {
                        let sync = ctx.settings.get_u64("mutations_sync") > 0;
                        table.engine.mutate_by_rule(RuleMutation::MaterializeTtl { partition: None }, sync).await?;
                    }
                }
                let Some(command) = command else { break };
                match command {
                    AlterCommand::DropPartition(partition) => table.engine.alter_partition(PartitionCommand::Drop { partition }).await?,
                    AlterCommand::DetachPartition(partition) => table.engine.alter_partition(PartitionCommand::Detach { partition }).await?,
                    AlterCommand::AttachPartition(partition) => table.engine.alter_partition(PartitionCommand::Attach { partition }).await?,
                    AlterCommand::Delete(predicate) => {
                        let sync = ctx.settings.get_u64("mutations_sync") > 0;
                        table.engine.delete_where(DeleteRequest { predicate, sync, lightweight: false }).await?
                    }
                    // ClickHouse waits for a lightweight delete unless `lightweight_deletes_sync = 0`.
                    AlterCommand::LightweightDelete(predicate) => {
                        let sync = ctx.settings.get_u64("lightweight_deletes_sync") > 0;
                        table.engine.delete_where(DeleteRequest { predicate, sync, lightweight: true }).await?
                    }
                    AlterCommand::Update(assignments, predicate) => {
                        let sync = ctx.settings.get_u64("mutations_sync") > 0;
                        table.engine.update_where(UpdateRequest { assignments, predicate, sync }).await?
                    }
                    AlterCommand::ClearColumn { name: column, partition, if_exists } => {
                        if crate::alter_columns::check_clear_column(&table.meta, &column, if_exists)? {
                            let sync = ctx.settings.get_u64("mutations_sync") > 0;
                            table.engine.mutate_by_rule(RuleMutation::ClearColumn { column, partition }, sync).await?
                        }
                    }
                    AlterCommand::MaterializeColumn { name: column, partition } => {
                        crate::alter_columns::check_materialize_column(&table.meta, &column)?;
                        let sync = ctx.settings.get_u64("mutations_sync") > 0;
                        table.engine.mutate_by_rule(RuleMutation::MaterializeColumn { column, partition }, sync).await?
                    }
                    // As in ClickHouse, an index the table does not have is not an error: the
                    // mutation then changes nothing.
                    AlterCommand::MaterializeIndex { name: index, partition, .. } => {
                        let sync = ctx.settings.get_u64("mutations_sync") > 0;
                        table.engine.mutate_by_rule(RuleMutation::MaterializeIndex { name: index, partition }, sync).await?
                    }
                    AlterCommand::ClearIndex { name: index, partition, .. } => {
                        let sync = ctx.settings.get_u64("mutations_sync") > 0;
                        table.engine.mutate_by_rule(RuleMutation::ClearIndex { name: index, partition, drop: false }, sync).await?
                    }
                    AlterCommand::MaterializeTtl(partition) => {
                        if table.meta.engine.ttl.is_none() && table.meta.columns.iter().all(|c| c.ttl.is_none()) {
                            return Err(Error::new(ErrorCode::INCORRECT_QUERY, format!("Cannot MATERIALIZE TTL as there is no TTL set for table {db}.{}", name.table)));
                        }
                        let sync = ctx.settings.get_u64("mutations_sync") > 0;
                        table.engine.mutate_by_rule(RuleMutation::MaterializeTtl { partition }, sync).await?
                    }
                    _ => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "ALTER command left unapplied")),
                }
            }
            Outcome::Done
        }
        Statement::Explain { kind, options, query } => {
            let indexes = explain_options(&kind, &options)?;
            let plan = plan_query(ctx, query).await?;
            if kind == "ESTIMATE" {
                return rows(explain_estimate(ctx, &plan).await?, None);
            }
            let text = match kind.as_str() {
                "PLAN" | "QUERY" if indexes => {
                    let optimized = ctx.state.optimize(&plan)?;
                    format!("{}{}", optimized.display_indent(), explain_indexes(ctx, &optimized).await?)
                }
                "PLAN" | "QUERY" => format!("{}", ctx.state.optimize(&plan)?.display_indent()),
                "PIPELINE" => {
                    let physical = physical_plan(ctx, &plan).await?;
                    format!("{}", datafusion::physical_plan::displayable(physical.as_ref()).indent(false))
                }
                "SYNTAX" | "AST" => format!("{}", plan.display_indent()),
                other => return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("EXPLAIN {other} is not supported"))),
            };
            rows(single_string_column("explain", text.lines().map(str::to_string).collect())?, None)?
        }
        Statement::Access(command) => match instance.access_control().execute(&ctx.access, command, &ctx.current_database)? {
            granary_access::AccessOutcome::Done => Outcome::Done,
            granary_access::AccessOutcome::Lines { column, lines } => rows(single_string_column(column, lines)?, None)?,
        },
        Statement::CreateNamedCollection { name, if_not_exists, entries } => {
            let entries = entries.into_iter().map(|e| (e.key, granary_io::named_collections::Entry { value: e.value, overridable: e.overridable })).collect();
            instance.named_collections().create(&name, entries, if_not_exists)?;
            Outcome::Done
        }
        Statement::AlterNamedCollection { name, if_exists, set, delete } => {
            let set = set.into_iter().map(|e| (e.key, granary_io::named_collections::Entry { value: e.value, overridable: e.overridable })).collect();
            instance.named_collections().alter(&name, set, &delete, if_exists)?;
            Outcome::Done
        }
        Statement::CreateFunction(definition) => {
            let builtin = |name: &str| {
                if ctx.state.scalar_functions().contains_key(name) {
                    Some("function")
                } else if ctx.state.aggregate_functions().contains_key(name) {
                    Some("aggregate function")
                } else {
                    None
                }
            };
            instance.sql_functions().create(definition, builtin)?;
            // Cached plans may have expanded the old definition.
            instance.plan_cache().clear();
            Outcome::Done
        }
        Statement::DropFunction { name, if_exists } => {
            instance.sql_functions().drop(&name, if_exists)?;
            instance.plan_cache().clear();
            Outcome::Done
        }
        Statement::DropNamedCollection { name, if_exists } => {
            instance.named_collections().drop(&name, if_exists)?;
            Outcome::Done
        }
        Statement::System { command } => {
            let words: Vec<&str> = command.split_whitespace().collect();
            match words.as_slice() {
                [reload, dictionary, name] if reload.eq_ignore_ascii_case("RELOAD") && dictionary.eq_ignore_ascii_case("DICTIONARY") => {
                    crate::lookups::reload(instance, ctx, Some(name)).await?
                }
                [reload, dictionaries] if reload.eq_ignore_ascii_case("RELOAD") && dictionaries.eq_ignore_ascii_case("DICTIONARIES") => {
                    crate::lookups::reload(instance, ctx, None).await?
                }
                [flush, asynchronous, insert, queue, ..]
                    if [*flush, *asynchronous, *insert, *queue].iter().zip(["FLUSH", "ASYNC", "INSERT", "QUEUE"]).all(|(w, k)| w.eq_ignore_ascii_case(k)) =>
                {
                    let tables = flush_queue_tables(ctx, &words[4..].join(" "));
                    instance.async_inserts().flush(tables.as_deref()).await;
                }
                _ => system_command(instance, ctx, &command)?,
            }
            Outcome::Done
        }
    })
}

fn too_large(ctx: &QueryContext) -> Error {
    Error::new(
        ErrorCode::SYNTAX_ERROR,
        format!("Max query size exceeded: the query is larger than max_query_size ({})", ctx.settings.get_u64("max_query_size")),
    )
}

/// The statement's SETTINGS clause and the checks every statement passes before it runs.
fn apply_statement_clauses(instance: &Instance, ctx: &mut QueryContext, statement: &Statement, settings: &[(String, String)]) -> Result<()> {
    crate::instance::change_settings(&mut ctx.settings, &ctx.access, settings.iter().map(|(n, v)| (n.as_str(), v.as_str())))?;
    check_readonly(ctx, statement)?;
    crate::access::check_statement(ctx, statement)?;
    instance.configure_query(ctx)
}

/// A point query or constant lookup whose normalized text was parsed before: answered
/// from the remembered shape with this text's literals, without parsing (see
/// [`crate::point_query::ShapeCache`]).
async fn run_cached_point_query(
    instance: &Instance,
    ctx: &mut QueryContext,
    // Not the request: it holds the INSERT data stream, which is not Sync, across an await.
    default_format: Option<&str>,
    normalized: &crate::point_query::NormalizedText,
) -> Result<Option<StatementOutcome>> {
    let Some(cached) = instance.point_shapes().get(normalized) else { return Ok(None) };
    apply_statement_clauses(instance, ctx, &cached.statement, &cached.settings)?;
    let Some(stream) = crate::point_query::read_cached_shape(ctx, &cached, normalized, instance.lookup_functions()).await? else { return Ok(None) };
    let format_name = cached.format.clone().or_else(|| default_format.map(str::to_string)).unwrap_or_else(|| DEFAULT_FORMAT.to_string());
    let format_settings = FormatSettings::from_settings(&ctx.settings, ctx.timezone);
    let stream = with_displayed_names(stream)?;
    let output_format = create_output_format(&format_name, stream.schema(), &format_settings)?;
    let result = Outcome::Rows { stream, output_format, totals: None, plan: None };
    Ok(Some(StatementOutcome::rows(result, format_name, cached.statement.kind_name())))
}

fn check_readonly(ctx: &QueryContext, statement: &Statement) -> Result<()> {
    let readonly = ctx.settings.get_u64("readonly");
    if readonly == 0 || statement.is_read_only() || (readonly == 2 && matches!(statement, Statement::Set(_))) {
        return Ok(());
    }
    Err(Error::new(ErrorCode::READONLY, format!("Cannot execute query in readonly mode (readonly = {readonly})")))
}

fn forbid_system(database: &str, action: &str) -> Result<()> {
    if database == "system" {
        return Err(Error::new(ErrorCode::DATABASE_ACCESS_DENIED, format!("Cannot {action} tables of the system database")));
    }
    Ok(())
}

pub(crate) fn database_of(ctx: &QueryContext, name: &TableName) -> String {
    name.database.clone().unwrap_or_else(|| ctx.current_database.clone())
}

/// Gives repeated result columns back the name ClickHouse shows (`SELECT a, a` has two
/// columns `a`; the plan needs unique names, see `granary_sql::names::name_repeated_columns`).
/// Arrow batches allow repeated field names, so only the schema changes.
pub(crate) fn with_displayed_names(stream: SendableRecordBatchStream) -> Result<SendableRecordBatchStream> {
    let schema = stream.schema();
    if !schema.fields().iter().any(|f| granary_sql::names::is_repeat_name(f.name())) {
        return Ok(stream);
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_name(granary_sql::names::displayed_name(f.name())))
        .collect();
    let displayed: SchemaRef = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let batch_schema = displayed.clone();
    let batches = futures::StreamExt::map(stream, move |batch| {
        let batch = batch?;
        Ok(RecordBatch::try_new(batch_schema.clone(), batch.columns().to_vec())?)
    });
    Ok(Box::pin(RecordBatchStreamAdapter::new(displayed, batches)))
}

/// ClickHouse's query for `SHOW INDEX`: the primary key as one row per key expression
/// (one empty row without a key, as for engines without one), then the skipping indices.
fn show_indexes_query(database: &str, table: &str, condition: Option<&str>) -> String {
    let (database, table) = (granary_sql::params::quote_string(database), granary_sql::params::quote_string(table));
    let filter = condition.map(|c| format!(" WHERE {c}")).unwrap_or_default();
    format!(
        "SELECT * FROM (\
         SELECT name AS table, toUInt8(1) AS non_unique, 'PRIMARY' AS key_name, toUInt64(position) AS seq_in_index, assumeNotNull(key_column) AS pk_col, \
         toNullable('A') AS collation, toUInt8(0) AS cardinality, NULL AS sub_part, NULL AS packed, NULL AS `null`, \
         'PRIMARY' AS index_type, '' AS comment, '' AS index_comment, 'YES' AS visible, '' AS expression \
         FROM system.tables ARRAY JOIN if(primary_key = '', [''], splitByString(', ', primary_key)) AS key_column, \
         arrayEnumerate(if(primary_key = '', [''], splitByString(', ', primary_key))) AS position \
         WHERE database = {database} AND name = {table} \
         UNION ALL \
         SELECT table, toUInt8(1), name, toUInt64(1), '', CAST(NULL, 'Nullable(String)'), toUInt8(0), NULL, NULL, NULL, upper(type), '', '', 'YES', expr \
         FROM system.data_skipping_indices WHERE database = {database} AND table = {table}\
         ){filter} ORDER BY index_type, expression, seq_in_index"
    )
}

fn limit_clause(limit: Option<u64>) -> String {
    limit.map(|n| format!(" LIMIT {n}")).unwrap_or_default()
}

/// `database = 'db' [AND <filter on column>]`.
fn name_filter(database: &str, like: Option<&granary_sql::NameFilter>, column: &str) -> String {
    let mut filter = format!("database = {}", granary_sql::params::quote_string(database));
    if let Some(like) = like {
        filter.push_str(&format!(" AND {}", like.condition(column)));
    }
    filter
}

/// Plans a parsed SELECT, reporting unknown databases and tables as ClickHouse does.
/// A `WITH TOTALS` is ignored (INSERT ... SELECT, DESCRIBE, EXPLAIN take the rows alone).
pub(crate) async fn plan_query(ctx: &QueryContext, query: Box<ast::Query>) -> Result<LogicalPlan> {
    Ok(plan_query_with_totals(ctx, query).await?.0)
}

/// [`plan_query`], and the plan of the totals row when the query has `WITH TOTALS`.
pub(crate) async fn plan_query_with_totals(ctx: &QueryContext, query: Box<ast::Query>) -> Result<(LogicalPlan, Option<LogicalPlan>)> {
    let mut query = query;
    // Before views are expanded (a materialized view's FINAL is checked against its
    // target), and again for the FINALs the views' own queries bring in.
    crate::final_clause::check_final_tables(ctx, &mut query)?;
    crate::final_clause::check_sample_clauses(ctx, &mut query)?;
    if crate::views::expand_views(ctx, &mut query)? {
        ctx.read_views.store(true, std::sync::atomic::Ordering::Relaxed);
        crate::final_clause::check_final_tables(ctx, &mut query)?;
    }
    // After the views: the tables they read are filtered too.
    crate::row_policies::apply_row_policies(ctx, &mut query)?;
    // After the views and policies: the tables they read compute their ALIAS columns too.
    crate::alias_columns::expand_alias_columns(ctx, &mut query)?;
    let mut inner = ast::Statement::Query(query);
    ctx.sql_functions.expand(&mut inner)?;
    if crate::get_setting::inline_get_setting(&mut inner, ctx)? {
        ctx.per_execution_values.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    crate::get_setting::pin_parse_time_zones(&mut inner, ctx.timezone.name());
    granary_functions::prepare_function_names(&mut inner)?;
    granary_functions::check_funnel_functions_allowed(&inner, ctx.settings.get_bool("enable_funnel_functions") || ctx.settings.get_bool("allow_experimental_funnel_functions"))?;
    // Parametric aggregates (`quantile(0.9)`) are made per call: the session learns them here.
    let parametric = granary_functions::parametric_aggregates(&inner)?;
    let with_parametric;
    let state = if parametric.is_empty() {
        &*ctx.state
    } else {
        let mut state = (*ctx.state).clone();
        for udaf in parametric {
            datafusion::execution::FunctionRegistry::register_udaf(&mut state, udaf)?;
        }
        with_parametric = state;
        &with_parametric
    };
    granary_functions::check_introspection_allowed(&inner, ctx.settings.get_bool("allow_introspection_functions"), &ctx.access.user)?;
    granary_functions::check_deprecated_window_functions(&inner, ctx.settings.get_bool("allow_deprecated_error_prone_window_functions"))?;
    crate::named_args::rewrite_named_arguments(&mut inner);
    let lookups = crate::lookups::qualify_lookup_names(&mut inner, &ctx.current_database, &ctx.dictionaries);
    crate::access::check_lookups(ctx, &lookups)?;
    crate::lookups::load_dictionaries(ctx, &lookups).await?;
    let (derived_fills, fill, totals) = match &mut inner {
        ast::Statement::Query(query) => {
            let derived = crate::fill::take_derived_table_fills(query)?;
            (derived, crate::fill::take_fill_clause(query)?, crate::totals::take_totals(query)?)
        }
        _ => (Vec::new(), None, None),
    };
    let mut statement = DFStatement::Statement(Box::new(inner));
    if let Some(io) = ctx.state.config().get_extension::<granary_io::IoContext>() {
        // Virtual columns of file()/s3() exist only for queries that name them.
        io.virtual_columns.store(granary_io::mentions_virtual_columns(&statement.to_string()), std::sync::atomic::Ordering::Relaxed);
    }
    check_table_references(ctx, &statement).await?;
    if let DFStatement::Statement(inner) = &mut statement {
        if let ast::Statement::Query(query) = inner.as_mut() {
            let asterisk = crate::column_lists::AsteriskColumns::from_settings(&ctx.settings);
            crate::column_lists::expand_column_lists(state, query, asterisk).await?;
            granary_sql::names::name_repeated_columns(query);
        }
    }
    let keeps_subquery_order = match &statement {
        DFStatement::Statement(inner) => matches!(inner.as_ref(), ast::Statement::Query(q) if reads_subquery_in_order(q)),
        _ => false,
    };
    let plan = if derived_fills.is_empty() && !keeps_subquery_order {
        crate::nested_names::statement_to_plan(state, statement).await?
    } else {
        // A subquery's ORDER BY that WITH FILL applies to, or whose order the result
        // keeps, must survive planning.
        let mut state = state.clone();
        state.config_mut().options_mut().sql_parser.enable_subquery_sort_elimination = false;
        crate::nested_names::statement_to_plan(&state, statement).await?
    };
    let plan = if ctx.settings.get_bool("join_use_nulls") { plan } else { crate::joins::fill_join_defaults(plan)? };
    let plan = if ctx.settings.get_bool("group_by_use_nulls") { plan } else { crate::grouping::fill_grouping_defaults(plan)? };
    let plan = granary_functions::fixed_string_literals(plan)?;
    granary_functions::check_string_number_comparisons(&plan)?;
    let plan = granary_functions::type_literals(plan)?;
    // After the literals got their types: NaN and -0 in WHERE/HAVING/CASE compare as in ClickHouse.
    let plan = granary_functions::ieee_float_comparisons(plan)?;
    // What compares or orders UInt256 values must see arrayJoin's elements as UInt256.
    let plan = crate::unnest::restore_element_types(plan)?;
    let plan = granary_functions::uint256_comparisons(plan)?;
    // After the join defaults (planned on the join, whose layout the ASOF node keeps) and
    // the literal types (the node's schema is its inputs').
    let plan = crate::asof::plan_asof_joins(plan)?;
    // WITH FILL works on the ORDER BY keys as written: its plans keep DataFusion's NaN order.
    let plan = if fill.is_none() && derived_fills.is_empty() {
        granary_functions::uint256_sort_keys(crate::nan_order::nan_next_to_null(plan)?)?
    } else {
        plan
    };
    let plan = if derived_fills.is_empty() { plan } else { crate::fill::plan_derived_table_fills(&ctx.state, plan, &derived_fills)? };
    // After the literals got their types: WITH FILL works in the keys' final types.
    let plan = match &fill {
        Some(fill) => crate::fill::plan_fill(&ctx.state, plan, fill)?,
        None => plan,
    };
    let totals = match totals {
        Some(crate::totals::TotalsSource::Outer) => Some(crate::totals::plan_totals(&plan)?),
        Some(crate::totals::TotalsSource::Derived(alias)) => crate::totals::plan_totals_through(&plan, &alias)?,
        Some(crate::totals::TotalsSource::UnionBranch(position, source)) => crate::totals::plan_union_totals(&plan, position, &source)?,
        None => None,
    };
    let plan = crate::joins::name_qualified_join_columns(plan)?;
    Ok((plan, totals))
}

/// Optimizes and plans `plan` for execution (what `SessionState::create_physical_plan`
/// does), noting on the way the tables and columns its scans read: after projection
/// pushdown a scan names exactly the columns it reads.
pub(crate) async fn physical_plan(ctx: &QueryContext, plan: &LogicalPlan) -> Result<Arc<dyn datafusion::physical_plan::ExecutionPlan>> {
    let optimized = crate::unnest::restore_element_types(ctx.state.optimize(plan)?)?;
    record_scans(ctx, &optimized);
    check_ephemeral_reads(&optimized)?;
    let physical = ctx.state.query_planner().create_physical_plan(&optimized, &*ctx.state).await?;
    Ok(without_views(physical)?)
}

/// The plan with its view columns (Parquet strings, read as `Utf8View`) cast to `Utf8`:
/// output formats, engines and clients get the String type they always got. The cast
/// keeps each column's name, nullability and metadata.
fn without_views(plan: Arc<dyn datafusion::physical_plan::ExecutionPlan>) -> datafusion::common::Result<Arc<dyn datafusion::physical_plan::ExecutionPlan>> {
    use datafusion::physical_expr::expressions::{CastExpr, Column};
    use datafusion::physical_plan::projection::{ProjectionExec, ProjectionExpr};
    if !plan.schema().fields().iter().any(|f| granary_types::without_views(f.data_type()).is_some()) {
        return Ok(plan);
    }
    let plan = plain_strings_from_scan(plan);
    let schema = plan.schema();
    if !schema.fields().iter().any(|f| granary_types::without_views(f.data_type()).is_some()) {
        return Ok(plan);
    }
    let exprs: Vec<ProjectionExpr> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let column: Arc<dyn datafusion::physical_expr::PhysicalExpr> = Arc::new(Column::new(f.name(), i));
            let expr = match granary_types::without_views(f.data_type()) {
                Some(plain) => Arc::new(CastExpr::new(column, plain, None)),
                None => column,
            };
            ProjectionExpr::new(expr, f.name().clone())
        })
        .collect();
    Ok(Arc::new(ProjectionExec::try_new_with_schema_metadata(exprs, plan, &schema)?))
}

/// A plan that is a Parquet scan (`SELECT * FROM file(...)`, the source of most
/// `INSERT ... SELECT`s), rebuilt to read its view columns as `Utf8` in the first place:
/// decoding into views and casting them back copied every string twice. Other plans
/// are returned as they are.
fn plain_strings_from_scan(plan: Arc<dyn datafusion::physical_plan::ExecutionPlan>) -> Arc<dyn datafusion::physical_plan::ExecutionPlan> {
    use datafusion::datasource::source::DataSourceExec;
    use granary_storage::ScanCounterExec;
    let (counted, scan) = match (plan.as_ref() as &dyn std::any::Any).downcast_ref::<ScanCounterExec>() {
        Some(_) => (true, plan.children()[0].clone()),
        None => (false, plan.clone()),
    };
    let Some(source) = (scan.as_ref() as &dyn std::any::Any).downcast_ref::<DataSourceExec>() else { return plan };
    let schema = scan.schema();
    let views: Vec<&str> = schema.fields().iter().filter(|f| f.data_type() == &DataType::Utf8View).map(|f| f.name().as_str()).collect();
    let Some(plain) = granary_io::parquet_dictionary::with_plain_string_columns(source, &views) else { return plan };
    let plain: Arc<dyn datafusion::physical_plan::ExecutionPlan> = plain;
    let plain_schema = plain.schema();
    // The same columns in the same order, only the strings' type changed.
    let same_columns = plain_schema.fields().len() == schema.fields().len()
        && plain_schema.fields().iter().zip(schema.fields()).all(|(new, old)| new.name() == old.name() && (new.data_type() == old.data_type() || new.data_type() == &DataType::Utf8));
    if !same_columns {
        return plan;
    }
    if counted { ScanCounterExec::wrap(plain) } else { plain }
}

fn record_scans(ctx: &QueryContext, plan: &LogicalPlan) {
    use datafusion::common::tree_node::TreeNodeRecursion;
    let mut accessed = ctx.accessed.lock();
    let _ = plan.apply_with_subqueries(|node| {
        if let LogicalPlan::TableScan(scan) = node {
            let (database, table) = match &scan.table_name {
                TableReference::Bare { table } => (ctx.current_database.as_str(), table.as_ref()),
                TableReference::Partial { schema, table } | TableReference::Full { schema, table, .. } => (schema.as_ref(), table.as_ref()),
            };
            // Table functions (`numbers()`, `file()`) scan under their call's text; they
            // are no table of a database.
            if !table.contains('(') {
                accessed.add(database, table, scan.projected_schema.fields().iter().map(|f| f.name().as_str()));
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
}

/// An EPHEMERAL column exists only for the DEFAULTs of an INSERT: ClickHouse has no
/// such column to read. Its table stores the type's default for it, so a scan (after
/// projection pushdown: exactly the columns read) that reads one is refused.
fn check_ephemeral_reads(plan: &LogicalPlan) -> Result<()> {
    use datafusion::common::tree_node::TreeNodeRecursion;
    let mut error = None;
    let _ = plan.apply_with_subqueries(|node| {
        let LogicalPlan::TableScan(scan) = node else { return Ok(TreeNodeRecursion::Continue) };
        let Ok(provider) = datafusion::datasource::source_as_provider(&scan.source) else { return Ok(TreeNodeRecursion::Continue) };
        let Some(table) = (provider.as_ref() as &dyn std::any::Any).downcast_ref::<granary_storage::EngineTableProvider>() else {
            return Ok(TreeNodeRecursion::Continue);
        };
        let columns = &table.table().meta.columns;
        let read = scan.projection.clone().unwrap_or_else(|| (0..columns.len()).collect());
        if let Some(column) = read.iter().filter_map(|&i| columns.get(i)).find(|c| c.kind() == granary_storage::ColumnKind::Ephemeral) {
            error = Some(Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("There is no column or subcolumn {} in table.", column.name)));
            return Ok(TreeNodeRecursion::Stop);
        }
        Ok(TreeNodeRecursion::Continue)
    });
    error.map_or(Ok(()), Err)
}

pub(crate) async fn execute_plan(ctx: &QueryContext, plan: &LogicalPlan) -> Result<SendableRecordBatchStream> {
    let physical = physical_plan(ctx, plan).await?;
    execute_physical(ctx, ctx.state.config().clone(), physical)
}

/// Runs a plan as one stream per output partition: an `INSERT ... SELECT` hands them to
/// the engine, which writes them in parallel, each in its partition's order (a plan
/// that must keep a global order, with ORDER BY or LIMIT, has a single partition).
pub(crate) async fn execute_plan_partitioned(ctx: &QueryContext, plan: &LogicalPlan) -> Result<Vec<SendableRecordBatchStream>> {
    let physical = physical_plan(ctx, plan).await?;
    let task = task_context(ctx, ctx.state.config().clone());
    Ok(datafusion::physical_plan::execute_stream_partitioned(physical, task)?)
}

/// Starts a physical plan with the query's configuration and memory pool.
pub(crate) fn execute_physical(ctx: &QueryContext, config: datafusion::prelude::SessionConfig, plan: Arc<dyn datafusion::physical_plan::ExecutionPlan>) -> Result<SendableRecordBatchStream> {
    Ok(execute_stream(plan, task_context(ctx, config))?)
}

fn task_context(ctx: &QueryContext, config: datafusion::prelude::SessionConfig) -> Arc<datafusion::execution::TaskContext> {
    // Execution never looks functions up by name (physical expressions hold them), so
    // the task context goes without copies of the registry's maps.
    Arc::new(datafusion::execution::TaskContext::new(
        None,
        ctx.query_id.clone(),
        config,
        HashMap::new(),
        HashMap::new(),
        HashMap::new(),
        HashMap::new(),
        ctx.runtime.clone(),
    ))
}

/// `KILL MUTATION WHERE condition`: the matching rows of `system.mutations`, each killed
/// (unless `test`) and listed with ClickHouse's result columns. A kill takes effect at
/// once (the mutation is forgotten, its file removed), which ClickHouse reports as
/// `waiting` with or without SYNC.
async fn kill_mutations(instance: &Instance, ctx: &QueryContext, condition: &str, test: bool) -> Result<RecordBatch> {
    let sql = format!("SELECT database, table, mutation_id, command FROM system.mutations WHERE {condition}");
    let batches = datafusion::physical_plan::common::collect(run_sql(ctx, &sql).await?).await?;
    let mut found: Vec<[String; 4]> = Vec::new();
    for batch in &batches {
        let columns = (0..4).map(|i| batch.column(i).as_any().downcast_ref::<StringArray>().cloned()).collect::<Option<Vec<_>>>();
        let Some(columns) = columns else {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "system.mutations has unexpected column types"));
        };
        for row in 0..batch.num_rows() {
            found.push(std::array::from_fn(|i| columns[i].value(row).to_string()));
        }
    }
    let mut statuses = Vec::with_capacity(found.len());
    for [database, table, mutation_id, _] in &found {
        if test {
            statuses.push("unknown_status");
            continue;
        }
        ctx.access.check(granary_access::Privilege::Alter, &granary_access::Level::Table(database.clone(), table.clone()))?;
        let killed = match instance.catalog().table(database, table) {
            Ok(t) => t.engine.kill_mutation(mutation_id)?,
            Err(_) => false,
        };
        statuses.push(if killed { "waiting" } else { "not_found" });
    }
    let schema = Arc::new(Schema::new(
        ["kill_status", "database", "table", "mutation_id", "command"].into_iter().map(|n| Field::new(n, DataType::Utf8, false)).collect::<Vec<_>>(),
    ));
    let column = |i: usize| Arc::new(StringArray::from_iter_values(found.iter().map(|r| r[i].as_str()))) as ArrayRef;
    Ok(RecordBatch::try_new(schema, vec![Arc::new(StringArray::from_iter_values(statuses)) as ArrayRef, column(0), column(1), column(2), column(3)])?)
}

/// Runs SQL generated by the interpreter itself (SHOW ... rewrites).
async fn run_sql(ctx: &QueryContext, sql: &str) -> Result<SendableRecordBatchStream> {
    let params = HashMap::new();
    let options = ParseOptions { params: &params, rewrite: RewriteOptions::default(), max_query_size: 0 };
    let (parsed, _) = granary_sql::parse_statement(sql, &options)?;
    let Statement::Query { query, .. } = parsed.statement else {
        return Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("Generated statement is not a query: {sql}")));
    };
    let plan = plan_query(ctx, query).await?;
    execute_plan(ctx, &plan).await
}

async fn check_table_references(ctx: &QueryContext, statement: &DFStatement) -> Result<()> {
    let references = ctx.state.resolve_table_references(statement)?;
    for reference in &references {
        if let (Some(_), table) = (reference.schema(), reference.table()) {
            if !references.iter().any(|r| r.schema().is_none() && r.table() == table) {
                granary_storage::temporary::prefer_regular(table);
            }
        }
    }
    for reference in references {
        let (database, table) = match &reference {
            TableReference::Bare { table } => {
                if ctx.state.table_functions().contains_key(table.as_ref()) {
                    crate::access::check_table_function(&ctx.access, table)?;
                    continue;
                }
                (ctx.current_database.clone(), table.to_string())
            }
            TableReference::Partial { schema, table } => (schema.to_string(), table.to_string()),
            TableReference::Full { schema, table, .. } => (schema.to_string(), table.to_string()),
        };
        let catalog = ctx.state.catalog_list().catalog(crate::instance::CATALOG_NAME);
        let Some(schema) = catalog.and_then(|c| c.schema(&database)) else {
            return Err(Error::new(ErrorCode::UNKNOWN_DATABASE, format!("Database {database} does not exist")));
        };
        if !schema.table_exist(&table) {
            // CTE names also appear as references.
            if is_cte(statement, &table) {
                continue;
            }
            check_table_functions(ctx, statement)?;
            return Err(Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table {database}.{table} does not exist")));
        }
        crate::access::check_select(&ctx.access, &database, &table)?;
    }
    Ok(())
}

/// `FROM f(args)` of a table function that does not exist is ClickHouse's
/// UNKNOWN_FUNCTION, not a missing table.
fn check_table_functions(ctx: &QueryContext, statement: &DFStatement) -> Result<()> {
    let DFStatement::Statement(inner) = statement else { return Ok(()) };
    let ast::Statement::Query(query) = inner.as_ref() else { return Ok(()) };
    let mut query = query.clone();
    granary_sql::views::visit_table_factors(&mut query, &mut |factor| {
        if let ast::TableFactor::Table { name, args: Some(_), .. } = factor {
            if let Some((None, function)) = granary_sql::views::table_reference(name) {
                if !ctx.state.table_functions().contains_key(&function) {
                    return Err(Error::new(ErrorCode::UNKNOWN_FUNCTION, format!("Unknown table function {function}")));
                }
            }
        }
        Ok(())
    })
}

fn is_cte(statement: &DFStatement, name: &str) -> bool {
    let DFStatement::Statement(inner) = statement else { return false };
    let ast::Statement::Query(query) = inner.as_ref() else { return false };
    let mut found = false;
    fn ctes(query: &ast::Query, name: &str, found: &mut bool) {
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                if cte.alias.name.value == name {
                    *found = true;
                }
                ctes(&cte.query, name, found);
            }
        }
    }
    ctes(query, name, &mut found);
    found
}

struct DescribedColumn {
    name: String,
    type_name: String,
    default_type: String,
    default_expression: String,
    comment: String,
    codec: String,
    ttl: String,
    is_virtual: bool,
}

impl DescribedColumn {
    fn plain(name: &str, ch_type: &ChType) -> Self {
        DescribedColumn {
            name: name.to_string(),
            type_name: ch_type.to_string(),
            default_type: String::new(),
            default_expression: String::new(),
            comment: String::new(),
            codec: String::new(),
            ttl: String::new(),
            is_virtual: false,
        }
    }
}

async fn table_schema(instance: &Instance, ctx: &QueryContext, name: &TableName) -> Result<SchemaRef> {
    let db = database_of(ctx, name);
    if db == "system" {
        let catalog = ctx.state.catalog_list().catalog(crate::instance::CATALOG_NAME);
        let schema = catalog.and_then(|c| c.schema("system"));
        if let Some(schema) = schema {
            if let Some(table) = schema.table(&name.table).await? {
                return Ok(table.schema());
            }
        }
        return Err(Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table system.{} does not exist", name.table)));
    }
    Ok(instance.catalog().table(&db, &name.table)?.schema())
}

fn describe_columns(instance: &Instance, ctx: &QueryContext, name: &TableName, schema: &SchemaRef) -> Vec<DescribedColumn> {
    let db = database_of(ctx, name);
    match instance.catalog().table(&db, &name.table) {
        Ok(table) => table
            .meta
            .columns
            .iter()
            .map(|c| DescribedColumn {
                name: c.name.clone(),
                type_name: c.type_name.clone(),
                default_type: c.default_kind.clone().unwrap_or_default(),
                default_expression: c.default_expression.clone().unwrap_or_default(),
                comment: c.comment.clone().unwrap_or_default(),
                codec: c.codec.as_deref().map(|c| c.strip_prefix("CODEC(").and_then(|c| c.strip_suffix(')')).unwrap_or(c).to_string()).unwrap_or_default(),
                ttl: c.ttl.clone().unwrap_or_default(),
                is_virtual: false,
            })
            .collect(),
        Err(_) => schema.fields().iter().map(|f| DescribedColumn::plain(f.name(), &ChType::from_field(f))).collect(),
    }
}

/// The virtual columns of table `name` (`describe_include_virtual_columns`): those its
/// engine makes, with their comments and codecs. System tables have none in Granary.
fn describe_virtual_columns(instance: &Instance, ctx: &QueryContext, name: &TableName) -> Vec<DescribedColumn> {
    let Ok(table) = instance.catalog().table(&database_of(ctx, name), &name.table) else { return Vec::new() };
    table
        .engine
        .virtual_columns()
        .iter()
        .map(|field| {
            let (comment, codec) = granary_storage::virtual_columns::description(field);
            DescribedColumn { comment: comment.to_string(), codec: codec.to_string(), is_virtual: true, ..DescribedColumn::plain(field.name(), &ChType::from_field(field)) }
        })
        .collect()
}

/// DESCRIBE's rows: ClickHouse's seven columns (`describe_compact_output`: name and type),
/// then `is_virtual` with `describe_include_virtual_columns`.
fn describe_batch(ctx: &QueryContext, columns: Vec<DescribedColumn>) -> Result<SendableRecordBatchStream> {
    let strings = |value: fn(&DescribedColumn) -> &str| -> ArrayRef { Arc::new(StringArray::from_iter_values(columns.iter().map(value))) };
    let mut fields = vec![("name", strings(|c| &c.name)), ("type", strings(|c| &c.type_name))];
    if !ctx.settings.get_bool("describe_compact_output") {
        fields.extend([
            ("default_type", strings(|c| &c.default_type)),
            ("default_expression", strings(|c| &c.default_expression)),
            ("comment", strings(|c| &c.comment)),
            ("codec_expression", strings(|c| &c.codec)),
            ("ttl_expression", strings(|c| &c.ttl)),
        ]);
    }
    if ctx.settings.get_bool("describe_include_virtual_columns") {
        fields.push(("is_virtual", Arc::new(UInt8Array::from_iter_values(columns.iter().map(|c| u8::from(c.is_virtual))))));
    }
    let schema = Arc::new(Schema::new(fields.iter().map(|(n, a)| Field::new(*n, a.data_type().clone(), false)).collect::<Vec<_>>()));
    batch_stream(RecordBatch::try_new(schema, fields.into_iter().map(|(_, a)| a).collect())?)
}

fn single_string_column(name: &str, values: Vec<String>) -> Result<SendableRecordBatchStream> {
    let schema = Arc::new(Schema::new(vec![Field::new(name, DataType::Utf8, false)]));
    batch_stream(RecordBatch::try_new(schema, vec![Arc::new(StringArray::from(values))])?)
}

/// Checks the `name = value` options of an EXPLAIN against those ClickHouse knows for
/// its kind; returns whether `indexes` (or `indices`) is on, the one Granary acts on.
fn explain_options(kind: &str, options: &[(String, String)]) -> Result<bool> {
    let known: &[&str] = match kind {
        "PLAN" => &[
            "compact", "column_structure", "distributed", "description", "json", "sorting", "input_headers", "projections", "keep_logical_steps", "indexes", "actions",
            "pretty", "indices", "estimates", "optimize", "header",
        ],
        "PIPELINE" => &["compact_repeated_processor_chains", "compact", "distributed", "graph", "header"],
        _ => return Ok(false),
    };
    let mut indexes = false;
    for (name, value) in options {
        if !known.contains(&name.as_str()) {
            return Err(Error::new(
                ErrorCode::UNKNOWN_SETTING,
                format!("Unknown setting \"{name}\" for EXPLAIN {kind} query. Supported settings: {}", known.join(", ")),
            ));
        }
        if name == "indexes" || name == "indices" {
            indexes = value != "0";
        }
    }
    Ok(indexes)
}

/// `EXPLAIN indexes = 1`: after the plan, what index analysis selected for each
/// MergeTree read, in the layout of ClickHouse's `Indexes:` section (partition key,
/// primary key and each data-skipping index used, parts and granules kept of those
/// examined; no `Condition` lines).
async fn explain_indexes(ctx: &QueryContext, optimized: &LogicalPlan) -> Result<String> {
    let mut out = String::new();
    for (table, exec) in merge_tree_scans(ctx, optimized).await? {
        let Some(stats) = (exec.as_ref() as &dyn std::any::Any).downcast_ref::<granary_mergetree::reader::MergeTreeExec>().and_then(|e| e.selection().cloned()) else { continue };
        let engine = &table.meta.engine;
        let keys = |text: &str| -> Result<String> { Ok(granary_mergetree::keys::split_tuple(text)?.iter().map(|k| format!("\n        {k}")).collect()) };
        out.push_str(&format!("\nReadFromMergeTree ({}.{})\n  Indexes:", table.meta.database, table.meta.name));
        if let Some(partition) = &engine.partition_by {
            out.push_str(&format!(
                "\n    Partition\n      Keys:{}\n      Parts: {}/{}\n      Granules: {}/{}",
                keys(partition)?,
                stats.parts_by_partition_key,
                stats.parts,
                stats.marks_in_kept_parts,
                stats.marks_total
            ));
        }
        if let Some(primary) = engine.primary_key.as_ref().or(engine.order_by.as_ref()).filter(|k| !granary_mergetree::keys::split_tuple(k).unwrap_or_default().is_empty()) {
            out.push_str(&format!(
                "\n    PrimaryKey\n      Keys:{}\n      Parts: {}/{}\n      Granules: {}/{}",
                keys(primary)?,
                stats.parts_by_primary_key,
                stats.parts_by_partition_key,
                stats.marks,
                stats.marks_in_kept_parts
            ));
        }
        for skip in &stats.skip_indexes {
            out.push_str(&format!(
                "\n    Skip\n      Name: {}\n      Description: {}\n      Parts: {}/{}\n      Granules: {}/{}",
                skip.name, skip.description, skip.parts_after, skip.parts_before, skip.granules_after, skip.granules_before
            ));
        }
        out.push_str(&format!("\n    Ranges: {}", stats.ranges));
    }
    Ok(out)
}

/// The table scans of `optimized` planned again through their engines, with the table
/// each reads (tables outside the catalog left out).
async fn merge_tree_scans(ctx: &QueryContext, optimized: &LogicalPlan) -> Result<Vec<(Arc<granary_storage::Table>, Arc<dyn datafusion::physical_plan::ExecutionPlan>)>> {
    use datafusion::common::tree_node::TreeNodeRecursion;
    let mut scans = Vec::new();
    optimized.apply_with_subqueries(|node| {
        if let LogicalPlan::TableScan(scan) = node {
            scans.push(scan.clone());
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    let mut out = Vec::new();
    for scan in scans {
        let database = scan.table_name.schema().map(str::to_string).unwrap_or_else(|| ctx.current_database.clone());
        let Some(table) = ctx.catalog.database(&database).and_then(|db| db.table(scan.table_name.table())) else { continue };
        // Unqualified, as DataFusion's physical planner hands them to the provider.
        let filters = datafusion::logical_expr::expr_rewriter::unnormalize_cols(scan.filters.iter().cloned());
        let exec = table.engine.scan(&*ctx.state, scan.projection.as_ref(), &filters, scan.fetch).await?;
        out.push((table, exec));
    }
    Ok(out)
}

/// `EXPLAIN ESTIMATE`: per MergeTree table the query reads, the parts, rows and marks
/// its index analysis selects (the scans are planned, not run), as ClickHouse lists them.
async fn explain_estimate(ctx: &QueryContext, plan: &LogicalPlan) -> Result<SendableRecordBatchStream> {
    let optimized = ctx.state.optimize(plan)?;
    let mut tables: Vec<((String, String), [u64; 3])> = Vec::new();
    for (table, exec) in merge_tree_scans(ctx, &optimized).await? {
        let Some(exec) = (exec.as_ref() as &dyn std::any::Any).downcast_ref::<granary_mergetree::reader::MergeTreeExec>() else { continue };
        let (parts, rows, marks) = exec.estimate();
        let key = (table.meta.database.clone(), table.meta.name.clone());
        match tables.iter_mut().find(|(k, _)| *k == key) {
            Some((_, sums)) => *sums = [sums[0] + parts, sums[1] + rows, sums[2] + marks],
            None => tables.push((key, [parts, rows, marks])),
        }
    }
    let strings = |f: fn(&(String, String)) -> &str| -> ArrayRef { Arc::new(StringArray::from_iter_values(tables.iter().map(|(k, _)| f(k)))) };
    let counts = |i: usize| -> ArrayRef { Arc::new(arrow::array::UInt64Array::from_iter_values(tables.iter().map(|(_, c)| c[i]))) };
    let schema = Arc::new(Schema::new(vec![
        Field::new("database", DataType::Utf8, false),
        Field::new("table", DataType::Utf8, false),
        Field::new("parts", DataType::UInt64, false),
        Field::new("rows", DataType::UInt64, false),
        Field::new("marks", DataType::UInt64, false),
    ]));
    batch_stream(RecordBatch::try_new(schema, vec![strings(|k| &k.0), strings(|k| &k.1), counts(0), counts(1), counts(2)])?)
}

fn single_u8_column(name: &str, value: bool) -> Result<SendableRecordBatchStream> {
    let schema = Arc::new(Schema::new(vec![Field::new(name, DataType::UInt8, false)]));
    batch_stream(RecordBatch::try_new(schema, vec![Arc::new(UInt8Array::from(vec![u8::from(value)]))])?)
}

fn batch_stream(batch: RecordBatch) -> Result<SendableRecordBatchStream> {
    let schema = batch.schema();
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(vec![Ok(batch)]))))
}

async fn show_create(instance: &Instance, ctx: &QueryContext, name: &TableName) -> Result<String> {
    let db = database_of(ctx, name);
    if db == "system" {
        let schema = table_schema(instance, ctx, name).await?;
        let mut meta = TableMeta {
            format_version: TABLE_META_VERSION,
            uuid: String::new(),
            database: db,
            name: name.table.clone(),
            columns: schema.fields().iter().map(|f| ColumnMeta::new(f.name(), &ChType::from_field(f))).collect(),
            engine: EngineMeta::default(),
            comment: None,
            created_at: 0,
            dictionary: None,
            view: None,
            renamed_columns: Vec::new(),
            constraints: Vec::new(),
            indices: Vec::new(),
        };
        meta.engine.name = format!("System{}", name.table);
        return Ok(meta.create_query());
    }
    instance.catalog().require_database(&db)?;
    match instance.catalog().table(&db, &name.table) {
        Ok(table) => Ok(table.meta.create_query()),
        Err(e) if e.code() == ErrorCode::UNKNOWN_TABLE => Err(Error::new(
            ErrorCode::CANNOT_GET_CREATE_TABLE_QUERY,
            format!("There is no metadata of table `{}` in database `{db}` (engine Atomic)", name.table),
        )),
        Err(e) => Err(e),
    }
}

/// Column types ClickHouse creates only while their setting allows them (on by default
/// since 25.x; turned off, CREATE refuses them with ILLEGAL_COLUMN as ClickHouse does).
fn check_type_settings(ctx: &QueryContext, columns: &[ColumnMeta]) -> Result<()> {
    if ctx.settings.get_bool("enable_time_time64_type") {
        return Ok(());
    }
    for column in columns {
        let Ok(t) = ChType::parse(&column.type_name) else { continue };
        let family = if t.contains(&|t| matches!(t, ChType::Time64(_))) {
            "Time64"
        } else if t.contains(&|t| matches!(t, ChType::Time)) {
            "Time"
        } else {
            continue;
        };
        return Err(Error::new(
            ErrorCode::ILLEGAL_COLUMN,
            format!("Cannot create column with type '{t}' because {family} type is not allowed. Set setting enable_time_time64_type = 1 in order to allow it."),
        ));
    }
    Ok(())
}

async fn create_table(instance: &Instance, ctx: &QueryContext, session: &Session, create: CreateTable) -> Result<()> {
    if create.temporary && create.name.database.is_some() {
        return Err(Error::new(
            ErrorCode::BAD_DATABASE_FOR_TEMPORARY_TABLE,
            "Temporary objects (tables/views) cannot be inside a database. You should not specify a database for a temporary objects.",
        ));
    }
    // A temporary table belongs to no database (its metadata's database is empty).
    let database = if create.temporary { String::new() } else { database_of(ctx, &create.name) };
    forbid_system(&database, "create")?;
    if create.or_replace && !create.temporary {
        return Box::pin(create_or_replace_table(instance, ctx, session, create, database)).await;
    }
    if create.temporary && create.if_not_exists && session.temporary_tables.get(&create.name.table).is_some() {
        return Ok(());
    }
    let mut columns: Vec<ColumnMeta> = create.columns.iter().map(column_meta).collect();
    let mut engine = create.engine.as_ref().map(engine_meta);
    if let Some(source) = &create.as_table {
        let source_db = database_of(ctx, source);
        let source_table = instance.catalog().table(&source_db, &source.table)?;
        if columns.is_empty() {
            columns = source_table.meta.columns.clone();
        }
        if engine.is_none() {
            engine = Some(source_table.meta.engine.clone());
        }
    }
    let mut select_plan = None;
    if let Some((query, _limit_by)) = create.as_select {
        let plan = plan_query(ctx, query).await?;
        if columns.is_empty() {
            columns = plan.schema().fields().iter().map(|f| ColumnMeta::new(f.name(), &ChType::from_field(f))).collect();
        }
        select_plan = Some(plan);
    }
    check_type_settings(ctx, &columns)?;
    let constraints: Vec<granary_storage::ConstraintMeta> = create.constraints.iter().map(constraint_meta).collect();
    crate::insert_expressions::check_table_expressions(ctx, &columns, &constraints).await?;
    let mut engine = match engine {
        Some(engine) if !engine.name.is_empty() => engine,
        clauses => default_engine(ctx, create.temporary, clauses)?,
    };
    if engine.name == "Buffer" {
        granary_engines::buffer::normalize_arguments(&mut engine.args, &ctx.current_database);
    }
    // ClickHouse stores a MergeTree table's index_granularity with it (SHOW CREATE,
    // engine_full), after the settings given; not a temporary table's.
    if engine.name.ends_with("MergeTree") && !create.temporary && !engine.settings.iter().any(|(k, _)| k == "index_granularity") {
        engine.settings.push(("index_granularity".to_string(), "8192".to_string()));
    }
    let meta = TableMeta {
        format_version: TABLE_META_VERSION,
        uuid: uuid::Uuid::new_v4().to_string(),
        database: database.clone(),
        name: create.name.table.clone(),
        columns,
        engine,
        comment: create.comment.clone(),
        created_at: chrono::Utc::now().timestamp(),
        dictionary: None,
        view: None,
        renamed_columns: Vec::new(),
        constraints,
        indices: create
            .indices
            .iter()
            .map(index_meta)
            .collect(),
    };
    // CREATE OR REPLACE TEMPORARY TABLE: the session's old table is put back should the
    // new one fail to fill, and dropped once it is filled.
    let mut replaced = None;
    let table = if create.temporary {
        let table = instance.catalog().open_temporary(meta)?;
        if create.or_replace {
            replaced = session.temporary_tables.remove(&create.name.table);
        }
        if !session.temporary_tables.insert(table.clone()) {
            return Err(Error::new(ErrorCode::TABLE_ALREADY_EXISTS, format!("Temporary table {} already exists", create.name.table)));
        }
        table
    } else {
        let Some(table) = instance.catalog().create_table(meta, create.if_not_exists)? else { return Ok(()) };
        table
    };
    if let Some(plan) = select_plan {
        let filled = match execute_plan(ctx, &plan).await {
            Ok(stream) => insert::insert_stream(ctx, &table, &[], stream).await,
            Err(e) => Err(e),
        };
        if let Err(e) = filled {
            // CREATE ... AS SELECT is one statement: a failed fill leaves no table behind.
            if create.temporary {
                session.temporary_tables.remove(&create.name.table);
                if let Some(old) = replaced {
                    session.temporary_tables.insert(old);
                }
            } else {
                let _ = instance.catalog().drop_table(&database, &create.name.table, true).await;
            }
            return Err(e);
        }
    }
    if let Some(old) = replaced {
        old.engine.drop_data().await?;
    }
    Ok(())
}

/// Stops a detached table's engine: a Buffer writes what it holds first (its rows live
/// only in memory), then background work stops. The table is already out of the catalog,
/// so a failure is logged, not returned.
async fn close_detached(table: &granary_storage::Table) {
    if table.engine.engine_name() == "Buffer" {
        if let Err(e) = table.engine.optimize(granary_storage::OptimizeRequest::default()).await {
            tracing::error!(target: "StorageBuffer", "Cannot flush {}.{}: {}", table.meta.database, table.meta.name, e.message());
        }
    }
    if let Err(e) = table.engine.close().await {
        tracing::error!("Cannot close detached table {}.{}: {}", table.meta.database, table.meta.name, e.message());
    }
}

/// CREATE OR REPLACE TABLE / REPLACE TABLE, as ClickHouse does it: the new table is
/// created (and filled) under a temporary name, then exchanged with the old one, which is
/// dropped. Until the exchange the old table is untouched, so a failing CREATE or SELECT
/// leaves it as it was.
async fn create_or_replace_table(instance: &Instance, ctx: &QueryContext, session: &Session, mut create: CreateTable, database: String) -> Result<()> {
    let name = create.name.table.clone();
    let exists = instance.catalog().require_database(&database)?.table(&name).is_some();
    create.or_replace = false;
    if !exists {
        if create.replace_only {
            return Err(Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table `{database}`.`{name}` doesn't exist")));
        }
        return create_table(instance, ctx, session, create).await;
    }
    let temporary_name = format!("_tmp_replace_{}", uuid::Uuid::new_v4().simple());
    create.name = TableName { database: Some(database.clone()), table: temporary_name.clone() };
    create_table(instance, ctx, session, create).await?;
    if let Err(e) = instance.catalog().exchange_tables((&database, &temporary_name), (&database, &name)) {
        let _ = instance.catalog().drop_table(&database, &temporary_name, true).await;
        return Err(e);
    }
    instance.catalog().drop_table(&database, &temporary_name, false).await
}

/// The engine of CREATE [TEMPORARY] TABLE without `ENGINE =`: `default_table_engine`
/// (`default_temporary_table_engine`) with the clauses given, a MergeTree without ORDER BY
/// or PRIMARY KEY ordered by `tuple()`, as ClickHouse makes it.
fn default_engine(ctx: &QueryContext, temporary: bool, clauses: Option<EngineMeta>) -> Result<EngineMeta> {
    let setting = if temporary { "default_temporary_table_engine" } else { "default_table_engine" };
    let name = ctx.settings.get_str(setting);
    if name.is_empty() || name.eq_ignore_ascii_case("None") {
        return Err(Error::new(ErrorCode::ENGINE_REQUIRED, "Table engine is not specified in CREATE query"));
    }
    let mut engine = clauses.unwrap_or_default();
    engine.name = name.to_string();
    if name.ends_with("MergeTree") && engine.order_by.is_none() && engine.primary_key.is_none() {
        engine.order_by = Some("tuple()".to_string());
    }
    Ok(engine)
}

/// The stored form of an `ENGINE = ...` clause.
pub(crate) fn engine_meta(e: &granary_sql::EngineSpec) -> EngineMeta {
    EngineMeta {
        name: e.name.clone(),
        args: e.args.clone(),
        order_by: e.order_by.clone(),
        partition_by: e.partition_by.clone(),
        primary_key: e.primary_key.clone(),
        sample_by: e.sample_by.clone(),
        // A clause that does not parse is kept as written: the engine's validation reports it.
        ttl: e.ttl.as_deref().map(|t| granary_storage::ttl::format_table_ttl(t).unwrap_or_else(|_| t.to_string())),
        settings: e.settings.clone(),
    }
}

/// The stored form of a `CONSTRAINT` of CREATE TABLE or ALTER TABLE ADD CONSTRAINT.
pub(crate) fn index_meta(i: &granary_sql::IndexSpec) -> granary_storage::IndexMeta {
    granary_storage::IndexMeta { name: i.name.clone(), expr: i.expr.clone(), type_full: i.type_full.clone(), granularity: i.granularity }
}

pub(crate) fn constraint_meta(c: &granary_sql::ConstraintSpec) -> granary_storage::ConstraintMeta {
    granary_storage::ConstraintMeta { name: c.name.clone(), kind: c.kind.clone(), expression: c.expression.clone() }
}

/// The stored form of a column of CREATE TABLE / CREATE DICTIONARY.
pub(crate) fn column_meta(c: &granary_sql::ColumnSpec) -> ColumnMeta {
    ColumnMeta {
        name: c.name.clone(),
        type_name: c.ch_type.to_string(),
        default_kind: c.default_kind.clone(),
        default_expression: c.default_expression.clone(),
        codec: c.codec.clone(),
        comment: c.comment.clone(),
        ttl: c.ttl.as_deref().map(granary_storage::ttl::format_expression),
    }
}

/// The tables of `SYSTEM FLUSH ASYNC INSERT QUEUE [db.]t [, ...]` as (database, table);
/// None (every table) without a list.
fn flush_queue_tables(ctx: &QueryContext, list: &str) -> Option<Vec<(String, String)>> {
    let names: Vec<(String, String)> = list
        .split(',')
        .map(|name| name.trim().replace('`', ""))
        .filter(|name| !name.is_empty())
        .map(|name| match name.split_once('.') {
            Some((db, table)) => (db.to_string(), table.to_string()),
            None => (ctx.current_database.clone(), name),
        })
        .collect();
    (!names.is_empty()).then_some(names)
}

fn system_command(instance: &Instance, ctx: &QueryContext, command: &str) -> Result<()> {
    let words: Vec<String> = command.split_whitespace().map(|w| w.to_ascii_uppercase()).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        [verb @ ("STOP" | "START"), "MERGES", rest @ ..] => {
            let enabled = *verb == "START";
            // The table name keeps its case: take it from the original text.
            let name = command.split_whitespace().nth(2);
            if rest.len() > 1 {
                return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("SYSTEM {verb} MERGES takes at most one table name: {command}")));
            }
            match name {
                Some(name) => {
                    let name = name.replace('`', "");
                    let (db, table) = match name.split_once('.') {
                        Some((db, t)) => (db.to_string(), t.to_string()),
                        None => (ctx.current_database.clone(), name.clone()),
                    };
                    instance.catalog().table(&db, &table)?.engine.set_merges_enabled(enabled);
                }
                None => {
                    for database in instance.catalog().databases() {
                        for table in database.tables() {
                            table.engine.set_merges_enabled(enabled);
                        }
                    }
                }
            }
            Ok(())
        }
        // Entries are visible to SELECT at once; this waits until they are on disk too.
        ["FLUSH", "LOGS", ..] => {
            instance.flush_logs();
            Ok(())
        }
        ["DROP", "UNCOMPRESSED", "CACHE"] => {
            granary_mergetree::cache::uncompressed_cache().clear();
            Ok(())
        }
        ["DROP", "MARK", "CACHE"] => {
            granary_mergetree::cache::mark_cache().clear();
            Ok(())
        }
        ["DROP", "SCHEMA", "CACHE"] => {
            granary_io::schema_cache::clear(None);
            Ok(())
        }
        ["DROP", "SCHEMA", "CACHE", "FOR", storage] => match *storage {
            "FILE" | "S3" | "URL" | "AZURE" => {
                granary_io::schema_cache::clear(Some(storage));
                Ok(())
            }
            other => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Unknown storage {other} for SYSTEM DROP SCHEMA CACHE: File, S3, URL or Azure"))),
        },
        ["DROP", "QUERY", "PLAN", "CACHE"] => {
            instance.plan_cache().clear();
            Ok(())
        }
        // Marks live with their parts (see granary_mergetree::cache); other caches
        // (DNS, query cache, ...) do not exist here: nothing to drop.
        ["DROP", .., "CACHE"] => Ok(()),
        ["KILL", ..] => Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Use KILL QUERY")),
        _ => {
            let _ = instance;
            Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("SYSTEM {command} is not supported yet")))
        }
    }
}

/// Whether the query's result is its one FROM subquery's rows in their order: a SELECT
/// without ORDER BY, GROUP BY or joins over a derived table (`SELECT * FROM (SELECT ..
/// ORDER BY x) LIMIT 3`), where ClickHouse keeps the subquery's ORDER BY and DataFusion
/// would drop a subquery sort that has no LIMIT of its own.
fn reads_subquery_in_order(query: &ast::Query) -> bool {
    if query.order_by.is_some() {
        return false;
    }
    let ast::SetExpr::Select(select) = query.body.as_ref() else { return false };
    let grouped = match &select.group_by {
        ast::GroupByExpr::Expressions(exprs, modifiers) => !exprs.is_empty() || !modifiers.is_empty(),
        ast::GroupByExpr::All(_) => true,
    };
    !grouped && matches!(select.from.as_slice(), [t] if t.joins.is_empty() && matches!(t.relation, ast::TableFactor::Derived { .. }))
}
