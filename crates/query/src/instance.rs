//! One running Granary: opened once per process, shared by every session.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use chrono_tz::Tz;
use datafusion::catalog::{CatalogProviderList, MemoryCatalogProviderList, SchemaProvider};
use datafusion::execution::memory_pool::{GreedyMemoryPool, MemoryPool, PeakRecordingPool, UnboundedMemoryPool};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::session_state::{SessionState, SessionStateBuilder};
use datafusion::execution::{FunctionRegistry, SendableRecordBatchStream};
use datafusion::prelude::SessionConfig;
use granary_common::{Error, ErrorCode, QueryProgress, Result, Settings};
use granary_dictionaries::{DictionaryEngineFactory, DictionaryRegistry, LookupEnv, SourceRunner};
use granary_engines::numbers::{GenerateSeriesFunction, NumbersFunction};
use granary_functions::FunctionInfo;
use granary_storage::{Catalog, EngineRegistry, GranaryCatalogProvider};
use tokio::sync::mpsc;

use crate::interpreter::{self, Outcome};
use crate::lookups::InstanceRunner;
use crate::output::{spawn_output, OutputJob};
use crate::process_list::ProcessList;
use crate::query_log::{AccessedObjects, PartLog, QueryLog, QueryLogEntry, QueryLogType};
use crate::session::Session;
use crate::text_log::{LogLevel, TextLog};
use crate::system::{QueryContextExt, SystemSchema};
use crate::ByteStream;

/// The DataFusion catalog name under which Granary's databases appear.
pub const CATALOG_NAME: &str = "granary";

#[derive(Debug, Clone)]
pub struct InstanceConfig {
    /// The data directory (`--path`).
    pub path: PathBuf,
    /// Where `file()` may read and write.
    pub user_files_path: PathBuf,
    /// IANA name of the server time zone (from `TZ`, UTC if unset).
    pub timezone: String,
    /// 0: unlimited.
    pub max_concurrent_queries: usize,
    /// Entries kept in `system.query_log` (and in each other system log).
    pub query_log_capacity: usize,
    /// Records at this level and above go to `system.text_log` (a query's
    /// `send_logs_level` adds its own).
    pub text_log_level: crate::text_log::LogLevel,
    /// Size of the process's uncompressed-block cache (shared by every instance).
    pub uncompressed_cache_size: u64,
    /// Size of the process's mark cache (shared by every instance).
    pub mark_cache_size: u64,
    /// Credentials for s3() by endpoint (`[s3.<name>]` in the server config).
    pub s3_endpoints: Arc<Vec<granary_io::remote::S3EndpointConfig>>,
    /// Users, roles, profiles and quotas of the server config (read-only); SQL-defined
    /// ones live in `<path>/access`.
    pub access: granary_access::Entities,
    /// ClickHouse's `dictionaries_config`: an absolute glob of dictionary files (XML or
    /// TOML), read at start and again by `SYSTEM RELOAD DICTIONARIES` and every few
    /// seconds.
    pub dictionaries_config: Option<PathBuf>,
    /// Named collections of the server config (read-only); SQL-defined ones live in
    /// `<path>/named_collections`.
    pub named_collections: Vec<granary_io::named_collections::NamedCollection>,
    /// The `graphite_rollup` sections of the server configuration (GraphiteMergeTree).
    pub graphite_rollups: Arc<granary_mergetree::graphite::GraphiteConfigs>,
}

impl InstanceConfig {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        InstanceConfig {
            user_files_path: path.join("user_files"),
            path,
            timezone: server_timezone_from_env(),
            max_concurrent_queries: 0,
            query_log_capacity: 100_000,
            text_log_level: crate::text_log::LogLevel::Information,
            uncompressed_cache_size: granary_mergetree::cache::DEFAULT_UNCOMPRESSED_CACHE_SIZE,
            mark_cache_size: granary_mergetree::cache::DEFAULT_MARK_CACHE_SIZE,
            s3_endpoints: Arc::default(),
            access: granary_access::Entities::default(),
            dictionaries_config: None,
            named_collections: Vec::new(),
            graphite_rollups: Arc::default(),
        }
    }
}

/// The `TZ` environment variable if it names a zone, else UTC (what ClickHouse does
/// without a `<timezone>` in its config).
pub fn server_timezone_from_env() -> String {
    match std::env::var("TZ") {
        Ok(tz) if tz.trim_start_matches(':').parse::<Tz>().is_ok() => tz.trim_start_matches(':').to_string(),
        _ => "UTC".to_string(),
    }
}

/// Changes a setting for a query or session, within what the user's profile allows.
/// Applies a batch of setting changes (a URL's parameters, a SETTINGS clause, a SET).
/// `readonly` is the one in force before the batch, as in ClickHouse: `readonly = 1`
/// refuses any change of value, `readonly = 2` a change of `readonly` itself.
pub(crate) fn change_settings<'a>(
    settings: &mut Settings,
    access: &granary_access::UserAccess,
    changes: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<()> {
    let readonly = settings.get_u64("readonly");
    for (name, value) in changes {
        if readonly > 0 && (readonly == 1 || name == "readonly") {
            let mut normalised = Settings::new();
            normalised.set(name, value)?;
            if normalised.get(name) != settings.get(name) {
                return Err(Error::new(ErrorCode::READONLY, format!("Cannot modify '{name}' setting in readonly mode")));
            }
        }
        change_setting(settings, access, name, value)?;
    }
    Ok(())
}

fn change_setting(settings: &mut Settings, access: &granary_access::UserAccess, name: &str, value: &str) -> Result<()> {
    if !access.is_unrestricted() {
        let mut normalised = Settings::new();
        normalised.set(name, value)?;
        access.check_setting_change(name, settings.get(name), normalised.get(name).unwrap_or(value))?;
    }
    settings.set(name, value)
}

/// What a query counts as for quotas, from its first word.
fn quota_kind(text: &str) -> granary_access::QueryKind {
    let first = text.trim_start().split(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or_default();
    if first.eq_ignore_ascii_case("SELECT") || first.eq_ignore_ascii_case("WITH") {
        granary_access::QueryKind::Select
    } else if first.eq_ignore_ascii_case("INSERT") {
        granary_access::QueryKind::Insert
    } else {
        granary_access::QueryKind::Other
    }
}

fn query_started(kind: granary_access::QueryKind) {
    use granary_common::metrics::Event;
    Event::Query.add(1);
    match kind {
        granary_access::QueryKind::Select => Event::SelectQuery.add(1),
        granary_access::QueryKind::Insert => Event::InsertQuery.add(1),
        granary_access::QueryKind::Other => {}
    }
}

/// Books a finished query: the user's quotas (when it got past them: `counted`) and
/// the server's events.
fn query_ended(access: &granary_access::UserAccess, kind: granary_access::QueryKind, progress: &QueryProgress, failed: bool, counted: bool) {
    use granary_access::QueryKind;
    use granary_common::metrics::Event;
    let snapshot = progress.snapshot();
    if counted {
        access.finish_query(granary_access::Consumption {
            failed,
            result_rows: snapshot.result_rows,
            read_rows: snapshot.read_rows,
            execution_seconds: snapshot.elapsed_ns / 1_000_000_000,
        });
    }
    let micros = snapshot.elapsed_ns / 1_000;
    Event::QueryTimeMicroseconds.add(micros);
    Event::SelectedRows.add(snapshot.read_rows);
    Event::SelectedBytes.add(snapshot.read_bytes);
    Event::InsertedRows.add(snapshot.written_rows);
    Event::InsertedBytes.add(snapshot.written_bytes);
    Event::ResultRows.add(snapshot.result_rows);
    match kind {
        QueryKind::Select => Event::SelectQueryTimeMicroseconds.add(micros),
        QueryKind::Insert => Event::InsertQueryTimeMicroseconds.add(micros),
        QueryKind::Other => {}
    }
    if failed {
        Event::FailedQuery.add(1);
        match kind {
            QueryKind::Select => Event::FailedSelectQuery.add(1),
            QueryKind::Insert => Event::FailedInsertQuery.add(1),
            QueryKind::Other => {}
        }
    }
}

/// State shared with the system tables.
pub struct Shared {
    pub config: InstanceConfig,
    pub catalog: Arc<Catalog>,
    pub query_log: QueryLog,
    pub part_log: Arc<PartLog>,
    pub text_log: Arc<TextLog>,
    pub trace_log: Arc<crate::trace_log::TraceLog>,
    pub processes: Arc<ProcessList>,
    pub functions: OnceLock<Vec<FunctionInfo>>,
    /// Names of the registered table functions (`system.table_functions`), sorted.
    pub table_functions: OnceLock<Vec<String>>,
    pub dictionaries: Arc<DictionaryRegistry>,
    /// When the instance was opened (`Uptime`).
    pub started: std::time::Instant,
    pub access: Arc<granary_access::AccessControl>,
    pub named_collections: Arc<granary_io::named_collections::NamedCollections>,
    /// `CREATE FUNCTION` definitions, in `<path>/user_defined`.
    pub sql_functions: Arc<crate::sql_functions::SqlFunctions>,
    /// Physical plans of queries that read no stored data, by text and settings.
    pub(crate) plan_cache: crate::plan_cache::PlanCache,
    /// Shapes of point queries by normalized text (the key-value fast path's parse cache).
    pub(crate) point_shapes: crate::point_query::ShapeCache,
    /// INSERTs with `async_insert = 1` waiting to be written together.
    pub(crate) async_inserts: Arc<crate::async_insert::AsyncInsertQueue>,
    /// SELECTs as parsed, by text (see [`crate::plan_cache::ParseCache`]).
    pub(crate) parsed_selects: crate::plan_cache::ParseCache,
}

pub struct Instance {
    shared: Arc<Shared>,
    /// Built once; each query clones it and changes only its settings, so functions and
    /// catalogs are never re-registered per request.
    base_state: SessionState,
    /// A state with nothing registered: the cheap stand-in a query holds until its
    /// settings are known and its real state is made from `base_state`.
    placeholder_state: Arc<SessionState>,
    base_runtime: Arc<RuntimeEnv>,
    timezone: Tz,
    /// Runs dictionary sources; the registry holds it weakly.
    dictionary_runner: Arc<dyn SourceRunner>,
    /// `dictGet*`, `joinGet*`, ... by name, for the constant-lookup fast path.
    lookup_functions: HashMap<String, Arc<datafusion::logical_expr::ScalarUDF>>,
    server_settings: Arc<[(&'static str, String)]>,
}

/// One query as the protocol layer received it.
pub struct QueryRequest {
    /// The query text. For INSERT with data, the data may start inside it (after
    /// `FORMAT X` or `VALUES`) and continue in `input`.
    pub text: String,
    pub query_id: Option<String>,
    /// Settings from the request (URL parameters), applied over the session's.
    pub settings: Vec<(String, String)>,
    /// `param_<name>` values for `{name:Type}` placeholders.
    pub params: HashMap<String, String>,
    /// The output format when the query has no FORMAT clause.
    pub default_format: Option<String>,
    /// The rest of the request body.
    pub input: Option<ByteStream>,
    /// Counters to fill, when the caller reports progress while the query runs
    /// (`send_progress_in_http_headers`); fresh ones otherwise.
    pub progress: Option<Arc<QueryProgress>>,
    /// Who sent it (logged by `executeQuery`); None in `granary local`.
    pub client_address: Option<std::net::SocketAddr>,
}

impl QueryRequest {
    pub fn new(text: impl Into<String>) -> Self {
        QueryRequest {
            text: text.into(),
            query_id: None,
            settings: Vec::new(),
            params: HashMap::new(),
            default_format: None,
            input: None,
            progress: None,
            client_address: None,
        }
    }
}

/// The answer: headers known up front and a body that streams.
pub struct QueryResponse {
    pub query_id: String,
    pub format: String,
    pub content_type: String,
    pub timezone: String,
    pub progress: Arc<QueryProgress>,
    /// Formatted output chunks; an `Err` item is an error after output began.
    pub body: mpsc::Receiver<Result<Bytes>>,
}

/// Everything one query carries while it runs.
pub(crate) struct QueryContext {
    pub catalog: Arc<Catalog>,
    pub dictionaries: Arc<DictionaryRegistry>,
    pub query_id: String,
    pub query_text: String,
    pub settings: Settings,
    pub progress: Arc<QueryProgress>,
    /// Shared until the query is planned ([`Instance::configure_state`]): the fast paths
    /// never plan, and a `SessionState` clone per query cost thousands of instructions.
    pub state: Arc<SessionState>,
    pub peak_memory: Arc<PeakRecordingPool>,
    /// The runtime queries execute with: the base one with this query's memory pool.
    pub runtime: Arc<RuntimeEnv>,
    pub deadline: Option<tokio::time::Instant>,
    pub timezone: Tz,
    pub current_database: String,
    pub start_time_us: i64,
    /// The rights every table, function and statement of the query is checked against.
    pub access: Arc<granary_access::UserAccess>,
    pub client_address: Option<std::net::SocketAddr>,
    /// `send_logs_level`, as the query's attribution (`text_log::set_query_level`) knows it.
    pub logs_level: LogLevel,
    /// Tables and columns the query's plans read, for `system.query_log`.
    pub accessed: Arc<parking_lot::Mutex<AccessedObjects>>,
    /// SQL user-defined functions, expanded into queries before planning.
    pub sql_functions: Arc<crate::sql_functions::SqlFunctions>,
    /// Set when a plan of the query read a view: its plan depends on the view's stored
    /// query, which CREATE OR REPLACE can change, so it is not kept in the plan cache.
    pub read_views: std::sync::atomic::AtomicBool,
    /// Set when the query text was given values that change between executions
    /// (`queryID()`, `hasColumnInTable`): its plan is not kept in the plan cache.
    pub per_execution_values: std::sync::atomic::AtomicBool,
    /// What `getServerSetting` answers.
    pub server_settings: Arc<[(&'static str, String)]>,
}

impl Instance {
    pub fn open(config: InstanceConfig) -> Result<Arc<Instance>> {
        let timezone: Tz = config
            .timezone
            .parse()
            .map_err(|_| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Unknown time zone {}", config.timezone)))?;
        std::fs::create_dir_all(&config.user_files_path)?;
        // System logs live in the data directory so they survive restarts; a directory
        // that cannot be created leaves them in memory rather than stopping the server.
        let logs_dir = config.path.join("system_logs");
        let (query_log, part_log, text_log) = match std::fs::create_dir_all(&logs_dir) {
            Ok(()) => (
                QueryLog::open(&logs_dir.join("query_log.jsonl"), config.query_log_capacity),
                PartLog::open(&logs_dir.join("part_log.jsonl"), config.query_log_capacity),
                TextLog::open(&logs_dir.join("text_log.jsonl"), config.query_log_capacity),
            ),
            Err(e) => {
                tracing::error!("system logs stay in memory: cannot create {}: {e}", logs_dir.display());
                (QueryLog::new(config.query_log_capacity), PartLog::new(config.query_log_capacity), TextLog::new(config.query_log_capacity))
            }
        };
        let part_log = Arc::new(part_log);
        let text_log = Arc::new(text_log);
        crate::text_log::attach(&text_log, config.text_log_level);
        let trace_log = Arc::new(crate::trace_log::TraceLog::new(config.query_log_capacity));
        crate::trace_log::attach(&trace_log);
        let named_collections = Arc::new(granary_io::named_collections::NamedCollections::open(Some(config.path.join("named_collections")), config.named_collections.clone())?);
        let mut registry = EngineRegistry::new();
        granary_engines::register_engines(&mut registry);
        let io_base = granary_io::engines::IoBase {
            user_files_path: config.user_files_path.clone(),
            s3_endpoints: config.s3_endpoints.clone(),
            named_collections: named_collections.clone(),
            timezone,
        };
        granary_io::engines::register(&mut registry, Arc::new(io_base));
        granary_mergetree::register_engines_with(&mut registry, Some(part_log.clone() as Arc<dyn granary_storage::PartLogSink>), config.graphite_rollups.clone());
        let dictionaries = DictionaryRegistry::new();
        registry.register(Arc::new(DictionaryEngineFactory { registry: dictionaries.clone() }));
        let buffer_host = Arc::new(granary_engines::buffer::BufferHost::default());
        registry.register(Arc::new(granary_engines::buffer::BufferEngineFactory { host: buffer_host.clone() }));
        let reserved = vec!["system".to_string(), "INFORMATION_SCHEMA".to_string(), "information_schema".to_string()];
        // Before the catalog opens tables: loading parts fills the mark cache.
        granary_mergetree::cache::uncompressed_cache().set_capacity(config.uncompressed_cache_size);
        granary_mergetree::cache::mark_cache().set_capacity(config.mark_cache_size);
        let catalog = Arc::new(Catalog::open(&config.path, registry, reserved)?);
        let access = Arc::new(granary_access::AccessControl::open(config.access.clone(), Some(&config.path.join("access")))?);
        let sql_functions = Arc::new(crate::sql_functions::SqlFunctions::open(Some(config.path.join("user_defined")))?);
        let shared = Arc::new(Shared {
            access,
            named_collections,
            sql_functions,
            processes: Arc::new(ProcessList::new(config.max_concurrent_queries)),
            query_log,
            part_log,
            text_log,
            trace_log,
            catalog: catalog.clone(),
            functions: OnceLock::new(),
            table_functions: OnceLock::new(),
            dictionaries: dictionaries.clone(),
            started: std::time::Instant::now(),
            plan_cache: Default::default(),
            parsed_selects: Default::default(),
            point_shapes: Default::default(),
            async_inserts: Default::default(),
            config,
        });
        let system: Arc<dyn SchemaProvider> = Arc::new(SystemSchema::new(shared.clone()));
        let provider = GranaryCatalogProvider::new(catalog, HashMap::from([("system".to_string(), system)]));
        let catalogs = Arc::new(MemoryCatalogProviderList::new());
        catalogs.register_catalog(CATALOG_NAME.to_string(), Arc::new(provider));

        let mut session_config = SessionConfig::new()
            .with_default_catalog_and_schema(CATALOG_NAME, "default")
            .with_create_default_catalog_and_schema(false)
            .with_information_schema(false)
            .with_batch_size(65_409);
        {
            let options = session_config.options_mut();
            // ClickHouse identifiers are case-sensitive (`toUInt64`, column `Id` vs `id`).
            options.sql_parser.enable_ident_normalization = false;
            // ClickHouse puts NULLs last in both directions unless told otherwise.
            options.sql_parser.default_null_ordering = "nulls_last".to_string();
            options.execution.time_zone = Some(timezone.name().to_string());
        }
        let base_runtime = Arc::new(RuntimeEnvBuilder::new().build()?);
        let mut builder = SessionStateBuilder::new()
            .with_config(session_config)
            .with_runtime_env(base_runtime.clone())
            .with_catalog_list(catalogs as Arc<dyn CatalogProviderList>)
            .with_default_features()
            .with_query_planner(Arc::new(crate::fill::GranaryQueryPlanner))
            .with_relation_planners(vec![Arc::new(crate::sample::SamplePlanner)])
            .with_optimizer_rules(crate::stream_order::KeepNestedLimits::rules())
            .with_physical_optimizer_rules(crate::stream_order::KeepNestedOffsetLimits::rules())
            .with_physical_optimizer_rule(Arc::new(crate::stream_order::FirstRowsInStreamOrder))
            .with_physical_optimizer_rule(Arc::new(crate::stream_order::FilterBelowLimitKeepsBlocks))
            .with_physical_optimizer_rule(Arc::new(crate::stream_order::TopKOverScanFilter))
            .with_physical_optimizer_rule(Arc::new(crate::view_literal_compare::ViewLiteralCompare))
            .with_physical_optimizer_rule(Arc::new(crate::dictionary_group_by::DictionaryGroupBy));
        // Ahead of DataFusion's planners, so `map(k, v)` is ClickHouse's map.
        if let Some(planners) = builder.expr_planners() {
            planners.insert(0, Arc::new(granary_functions::MapPlanner));
        }
        let mut state = builder.build();
        granary_functions::register_all(&mut state)?;
        state.register_udtf("numbers", Arc::new(NumbersFunction));
        state.register_udtf("numbers_mt", Arc::new(NumbersFunction));
        state.register_udtf("generateSeries", Arc::new(GenerateSeriesFunction));
        state.register_udtf("generate_series", Arc::new(GenerateSeriesFunction));
        granary_io::register(&mut state);
        crate::table_functions::register(&mut state);
        state.register_udtf("dictionary", Arc::new(granary_dictionaries::DictionaryTableFunction { catalog: shared.catalog.clone(), registry: dictionaries.clone() }));
        let lookup_env = Arc::new(LookupEnv { catalog: shared.catalog.clone(), registry: dictionaries.clone() });
        let mut lookup_functions = HashMap::new();
        for udf in granary_dictionaries::lookup_functions(lookup_env) {
            let udf = Arc::new(udf);
            lookup_functions.insert(udf.name().to_string(), udf.clone());
            state.register_udf(udf)?;
        }
        let _ = shared.functions.set(granary_functions::function_catalog(&state));
        // After the catalog: the ASOF marker is not a function users call.
        state.register_udf(Arc::new(crate::asof::asof_marker_udf()))?;
        let mut table_functions: Vec<String> = state.table_functions().keys().cloned().collect();
        table_functions.sort();
        let _ = shared.table_functions.set(table_functions);
        let placeholder_state = Arc::new(SessionStateBuilder::new().with_runtime_env(base_runtime.clone()).build());
        let server_settings = crate::get_setting::server_settings(&shared.config);
        granary_functions::context::set_server_uuid(server_uuid(&shared.config.path)?);
        let instance = Arc::new_cyclic(|weak: &Weak<Instance>| Instance {
            shared,
            base_state: state,
            placeholder_state,
            base_runtime,
            timezone,
            dictionary_runner: Arc::new(InstanceRunner { instance: weak.clone() }),
            lookup_functions,
            server_settings,
        });
        dictionaries.set_runner(Arc::downgrade(&instance.dictionary_runner));
        buffer_host.set_destination(Arc::new(crate::buffer_destination::InstanceBufferDestination { instance: Arc::downgrade(&instance) }));
        instance.shared.async_inserts.set_instance(Arc::downgrade(&instance));
        dictionaries.set_config_pattern(instance.shared.config.dictionaries_config.clone());
        spawn_dictionary_reloads(Arc::downgrade(&dictionaries));
        Ok(instance)
    }

    /// Waits until every system log entry so far is on disk.
    pub(crate) fn flush_logs(&self) {
        self.shared.query_log.flush();
        self.shared.part_log.flush();
        self.shared.text_log.flush();
        granary_profiler::flush();
    }

    /// Writes every queued asynchronous INSERT and waits for the writes (shutdown, end of
    /// `granary local`, `SYSTEM FLUSH ASYNC INSERT QUEUE`).
    pub async fn flush_async_inserts(&self) {
        self.shared.async_inserts.flush(None).await;
    }

    /// Writes what every Buffer table holds to its destination (graceful shutdown, end of
    /// `granary local`): unflushed rows live only in memory.
    pub async fn flush_buffers(&self) {
        for database in self.shared.catalog.databases() {
            for table in database.tables().into_iter().filter(|t| t.engine.engine_name() == "Buffer") {
                if let Err(e) = table.engine.optimize(granary_storage::OptimizeRequest::default()).await {
                    tracing::error!(target: "StorageBuffer", "Cannot flush {}.{}: {}", database.name, table.meta.name, e.message());
                }
            }
        }
    }

    pub(crate) fn async_inserts(&self) -> &Arc<crate::async_insert::AsyncInsertQueue> {
        &self.shared.async_inserts
    }

    /// A context for work the server does on its own behalf with `settings` (writing
    /// queued asynchronous INSERTs): unrestricted, outside the process list and the log.
    pub(crate) fn internal_context(&self, database: &str, text: &str, settings: Settings) -> Result<QueryContext> {
        let mut ctx = self.new_context(
            uuid::Uuid::new_v4().to_string(),
            text.to_string(),
            settings,
            database.to_string(),
            Arc::new(QueryProgress::default()),
            granary_access::AccessControl::unrestricted("default"),
        );
        self.configure_query(&mut ctx)?;
        self.configure_state(&mut ctx)?;
        Ok(ctx)
    }

    pub(crate) fn sql_functions(&self) -> &crate::sql_functions::SqlFunctions {
        &self.shared.sql_functions
    }

    pub(crate) fn named_collections(&self) -> &granary_io::named_collections::NamedCollections {
        &self.shared.named_collections
    }

    pub(crate) fn plan_cache(&self) -> &crate::plan_cache::PlanCache {
        &self.shared.plan_cache
    }

    pub(crate) fn parsed_selects(&self) -> &crate::plan_cache::ParseCache {
        &self.shared.parsed_selects
    }

    pub(crate) fn point_shapes(&self) -> &crate::point_query::ShapeCache {
        &self.shared.point_shapes
    }

    pub(crate) fn lookup_functions(&self) -> &HashMap<String, Arc<datafusion::logical_expr::ScalarUDF>> {
        &self.lookup_functions
    }

    pub fn dictionaries(&self) -> &Arc<DictionaryRegistry> {
        &self.shared.dictionaries
    }

    /// Runs a SELECT generated by the server itself (dictionary sources) in `database`,
    /// with default settings, outside the process list and the query log. `files_root`
    /// replaces `user_files_path` as what `file()` may read.
    pub(crate) async fn internal_select(&self, database: &str, sql: &str, files_root: Option<&std::path::Path>) -> Result<SendableRecordBatchStream> {
        let mut ctx = self.new_context(
            uuid::Uuid::new_v4().to_string(),
            sql.to_string(),
            Settings::new(),
            database.to_string(),
            Arc::new(QueryProgress::default()),
            granary_access::AccessControl::unrestricted("default"),
        );
        self.configure_query(&mut ctx)?;
        self.configure_state(&mut ctx)?;
        if let Some(root) = files_root {
            let io = granary_io::IoContext {
                settings: ctx.settings.clone(),
                timezone: ctx.timezone,
                user_files_path: root.to_path_buf(),
                s3_endpoints: self.shared.config.s3_endpoints.clone(),
                virtual_columns: std::sync::atomic::AtomicBool::new(false),
                // Dictionary sources of config files are the server's own: no collections.
                named_collections: Default::default(),
                may_use_named_collections: false,
            };
            Arc::make_mut(&mut ctx.state).config_mut().set_extension(Arc::new(io));
        }
        let params = HashMap::new();
        let case_insensitive = |name: &str| granary_functions::is_case_insensitive(name);
        let options = granary_sql::ParseOptions {
            params: &params,
            rewrite: granary_sql::rewrite::RewriteOptions { is_case_insensitive: Some(&case_insensitive), clickhouse_functions: true },
            max_query_size: 0,
        };
        let (parsed, _) = granary_sql::parse_statement(sql, &options)?;
        let granary_sql::Statement::Query { query, .. } = parsed.statement else {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("A dictionary source must be a SELECT: {sql}")));
        };
        let plan = interpreter::plan_query(&ctx, query).await?;
        interpreter::execute_plan(&ctx, &plan).await
    }

    fn new_context(
        &self,
        query_id: String,
        query_text: String,
        settings: Settings,
        current_database: String,
        progress: Arc<QueryProgress>,
        access: Arc<granary_access::UserAccess>,
    ) -> QueryContext {
        QueryContext {
            access,
            catalog: self.shared.catalog.clone(),
            dictionaries: self.shared.dictionaries.clone(),
            sql_functions: self.shared.sql_functions.clone(),
            query_id,
            query_text,
            settings,
            progress,
            state: self.placeholder_state.clone(),
            peak_memory: Arc::new(PeakRecordingPool::new(Arc::new(UnboundedMemoryPool::default()))),
            runtime: self.base_runtime.clone(),
            deadline: None,
            timezone: self.timezone,
            current_database,
            start_time_us: now_us(),
            client_address: None,
            logs_level: LogLevel::None,
            accessed: Arc::default(),
            read_views: Default::default(),
            per_execution_values: Default::default(),
            server_settings: self.server_settings.clone(),
        }
    }

    /// Events, metrics and asynchronous metrics in Prometheus text format (`/metrics`).
    pub fn prometheus_metrics(&self) -> String {
        let asynchronous: Vec<(String, f64, String)> =
            crate::system::asynchronous_metric_values(&self.shared).into_iter().map(|(n, v, d)| (n.to_string(), v, d.to_string())).collect();
        granary_common::metrics::prometheus_text(&asynchronous)
    }

    /// Users, roles, grants and quotas; the protocol layer logs users in here.
    /// What `system.text_log` holds for one query, oldest first.
    pub fn text_log_of(&self, query_id: &str) -> Vec<crate::text_log::TextLogEntry> {
        self.shared.text_log.snapshot().into_iter().filter(|e| e.query_id == query_id).collect()
    }

    pub fn access_control(&self) -> &Arc<granary_access::AccessControl> {
        &self.shared.access
    }

    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.shared.catalog
    }

    pub fn timezone(&self) -> Tz {
        self.timezone
    }

    pub fn processes(&self) -> &Arc<ProcessList> {
        &self.shared.processes
    }

    /// A new session for `user` in the default database.
    pub fn new_session(&self, user: &str) -> Session {
        Session::new(user, "default")
    }

    /// Runs one statement. Errors found before any output (syntax, unknown table,
    /// planning, INSERT data) are returned here; errors while results stream come as an
    /// `Err` item in the body.
    pub async fn execute(self: &Arc<Self>, session: &mut Session, mut request: QueryRequest) -> Result<QueryResponse> {
        let query_id = request.query_id.take().filter(|id| !id.is_empty()).unwrap_or_else(|| random_query_id().to_string());
        // The level the URL or the session asks for; a SETTINGS clause raises it later
        // (`configure_query`). An invalid value is reported there.
        let send_logs_level = request
            .settings
            .iter()
            .rev()
            .find(|(name, _)| name == "send_logs_level")
            .map(|(_, value)| value.as_str())
            .unwrap_or_else(|| session.settings.get_str("send_logs_level"));
        let logs_level = LogLevel::parse(send_logs_level).unwrap_or(LogLevel::None);
        // The sampling profiler's timers, as the URL or the session set them; a SETTINGS
        // clause changes them later (`configure_query`).
        let period = |name: &str| {
            request.settings.iter().rev().find(|(n, _)| n == name).and_then(|(_, v)| v.parse().ok()).unwrap_or_else(|| session.settings.get_u64(name))
        };
        let (real, cpu) = (period("query_profiler_real_time_period_ns"), period("query_profiler_cpu_time_period_ns"));
        // Made with both timers off too: a SETTINGS clause may turn them on. It is also what
        // attributes log records to the query (`text_log`).
        let profile = granary_profiler::QueryProfile::new(&query_id, real, cpu);
        profile.set_logs_level(logs_level as u8);
        // Boxed where it is made: the statement's future is tens of KiB, and every move of
        // it by value (into `Profiled`, into the caller's future) is a memcpy of all of it
        // on every request.
        // Tables show their virtual columns (`_part`, ...) only to queries that name one.
        let virtual_columns = granary_storage::virtual_columns::mentioned_in(&request.text);
        let (current_database, temporary_tables) = (session.current_database.clone(), session.temporary_tables.clone());
        let execution = Box::pin(self.execute_as_query(session, request, query_id, logs_level));
        let execution = granary_storage::temporary::scope(current_database, temporary_tables, execution);
        granary_storage::virtual_columns::scope(virtual_columns, granary_profiler::Profiled::new(execution, Some(profile))).await
    }

    async fn execute_as_query(self: &Arc<Self>, session: &mut Session, mut request: QueryRequest, query_id: String, logs_level: LogLevel) -> Result<QueryResponse> {
        let progress = request.progress.take().unwrap_or_default();
        let start_time_us = now_us();
        let kind = quota_kind(&request.text);
        query_started(kind);
        let log_failure = |instance: &Instance, session: &Session, text: &str, e: &Error, settings: Option<&Settings>| {
            query_ended(&session.access, kind, &progress, true, false);
            if settings.is_none_or(|s| s.get_bool("log_queries")) {
                instance.log(QueryLogType::ExceptionBeforeStart, &query_id, text, "", session, start_time_us, &progress, Some(e), settings, None);
            }
        };
        let mut settings = session.settings.clone();
        if let Err(e) = change_settings(&mut settings, &session.access, request.settings.iter().map(|(n, v)| (n.as_str(), v.as_str()))) {
            log_failure(self, session, &request.text, &e, None);
            return Err(e);
        }
        if let Err(e) = session.access.start_query(kind) {
            log_failure(self, session, &request.text, &e, Some(&settings));
            return Err(e);
        }
        let guard = match self.shared.processes.register(&query_id, &request.text, &session.user, &session.current_database, progress.clone()) {
            Ok(g) => g,
            Err(e) => {
                log_failure(self, session, &request.text, &e, Some(&settings));
                return Err(e);
            }
        };
        let text = std::mem::take(&mut request.text);
        let mut ctx = self.new_context(query_id.clone(), text.clone(), settings, session.current_database.clone(), progress.clone(), session.access.clone());
        ctx.start_time_us = start_time_us;
        ctx.client_address = request.client_address;
        ctx.logs_level = logs_level;
        // Boxed: the statement's future is large, and this one is moved as a whole.
        let outcome = match Box::pin(interpreter::run(self, &mut ctx, session, &text, &mut request)).await {
            Ok(outcome) => outcome,
            Err(e) => {
                log_query_end(&ctx, Some(&e));
                if ctx.settings.get_bool("log_queries") {
                    self.log(QueryLogType::ExceptionBeforeStart, &query_id, &text, "", session, start_time_us, &progress, Some(&e), Some(&ctx.settings), Some(&ctx.accessed.lock()));
                }
                query_ended(&session.access, kind, &progress, true, true);
                return Err(e);
            }
        };
        let (tx, rx) = mpsc::channel(8);
        let format = outcome.format.clone();
        let content_type = outcome.content_type.clone();
        let instance = self.clone();
        let session_snapshot = session.clone();
        let kind_of_query = kind;
        let kind = outcome.kind;
        match outcome.result {
            Outcome::Rows { stream, output_format, totals, plan } => {
                let job = OutputJob { stream, output_format, totals, plan, ctx, tx, guard };
                spawn_output(job, move |ctx, error| {
                    log_query_end(ctx, error);
                    query_ended(&session_snapshot.access, kind_of_query, &ctx.progress, error.is_some(), true);
                    if ctx.settings.get_bool("log_queries") {
                        let log_type = if error.is_some() { QueryLogType::ExceptionWhileProcessing } else { QueryLogType::QueryFinish };
                        instance.log(log_type, &ctx.query_id, &ctx.query_text, kind, &session_snapshot, ctx.start_time_us, &ctx.progress, error, Some(&ctx.settings), Some(&ctx.accessed.lock()));
                    }
                });
            }
            Outcome::Done => {
                progress.peak_memory.store(ctx.peak_memory.peak_reserved() as u64, std::sync::atomic::Ordering::Relaxed);
                log_query_end(&ctx, None);
                query_ended(&session.access, kind_of_query, &progress, false, true);
                if ctx.settings.get_bool("log_queries") {
                    self.log(QueryLogType::QueryFinish, &query_id, &text, kind, session, start_time_us, &progress, None, Some(&ctx.settings), Some(&ctx.accessed.lock()));
                }
                drop(guard);
                drop(tx);
            }
        }
        Ok(QueryResponse { query_id, format, content_type, timezone: self.timezone.name().to_string(), progress, body: rx })
    }

    /// Prepares what every query needs from its settings: memory limit, time zone,
    /// deadline. Cheap; the DataFusion state comes separately ([`Self::configure_state`])
    /// because the point-query fast path does without it.
    pub(crate) fn configure_query(&self, ctx: &mut QueryContext) -> Result<()> {
        let settings = &ctx.settings;
        let limit = settings.get_u64("max_memory_usage");
        let inner: Arc<dyn MemoryPool> = if limit > 0 { Arc::new(GreedyMemoryPool::new(limit as usize)) } else { Arc::new(UnboundedMemoryPool::default()) };
        ctx.peak_memory = Arc::new(PeakRecordingPool::new(inner));
        // The per-query pool is given to execution through the TaskContext; the planning
        // state is a plain clone of the base state (no function re-registration).
        // The base runtime's managers and registry, shared: a `RuntimeEnvBuilder` would
        // make a new cache manager for every query.
        ctx.runtime = Arc::new(RuntimeEnv {
            memory_pool: ctx.peak_memory.clone(),
            disk_manager: self.base_runtime.disk_manager.clone(),
            cache_manager: self.base_runtime.cache_manager.clone(),
            object_store_registry: self.base_runtime.object_store_registry.clone(),
        });
        ctx.timezone = match settings.get_str("session_timezone") {
            "" => self.timezone,
            name => name.parse().map_err(|_| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Invalid time zone: {name}")))?,
        };
        ctx.deadline = settings.max_execution_time().map(|d| tokio::time::Instant::now() + d);
        if let Some(profile) = granary_profiler::current() {
            let (real, cpu) = crate::trace_log::periods(settings);
            profile.set_periods(real, cpu);
        }
        let logs_level = LogLevel::parse(settings.get_str("send_logs_level"))?;
        if logs_level != ctx.logs_level {
            crate::text_log::set_query_level(logs_level);
            ctx.logs_level = logs_level;
        }
        if tracing::enabled!(target: "executeQuery", tracing::Level::DEBUG) {
            let from = ctx.client_address.map(|a| format!("(from {a}) ")).unwrap_or_default();
            tracing::debug!(target: "executeQuery", "{from}{} (stage: Complete)", ctx.query_text);
        }
        Ok(())
    }

    /// The DataFusion configuration of one query: its settings as DataFusion options,
    /// and what engines and table functions read at execution (progress, settings, I/O).
    pub(crate) fn query_config(&self, ctx: &QueryContext) -> Result<SessionConfig> {
        let settings = &ctx.settings;
        let mut config = self.base_state.config().clone();
        {
            let options = config.options_mut();
            options.catalog.default_schema = ctx.current_database.clone();
            options.execution.target_partitions = settings.max_threads();
            options.optimizer.enable_topk_dynamic_filter_pushdown = settings.get_bool("use_top_k_dynamic_filtering");
            // Joins and aggregates would push min/max bounds of their keys into MergeTree
            // scans too, and DataFusion computes those for fewer types than ClickHouse has
            // (Map, nested types): only the TopK's threshold is pushed.
            options.optimizer.enable_join_dynamic_filter_pushdown = false;
            options.optimizer.enable_aggregate_dynamic_filter_pushdown = false;
            options.execution.batch_size = datafusion::common::config::ConfigNonZeroUsize::try_new(settings.get_u64("max_block_size").clamp(1, 1 << 20) as usize)?;
            options.execution.time_zone = Some(ctx.timezone.name().to_string());
        }
        config.set_extension(ctx.progress.clone());
        config.set_extension(Arc::new(QueryContextExt { settings: settings.clone(), current_database: ctx.current_database.clone() }));
        config.set_extension(Arc::new(granary_io::IoContext {
            settings: settings.clone(),
            timezone: ctx.timezone,
            user_files_path: self.shared.config.user_files_path.clone(),
            s3_endpoints: self.shared.config.s3_endpoints.clone(),
            virtual_columns: std::sync::atomic::AtomicBool::new(false),
            named_collections: self.shared.named_collections.snapshot(),
            may_use_named_collections: ctx.access.is_unrestricted()
                || [granary_access::Privilege::NamedCollection, granary_access::Privilege::NamedCollectionAdmin]
                    .iter()
                    .any(|p| ctx.access.allows(*p, &granary_access::Level::Global)),
        }));
        // Engines read query settings (`final`, caches, PREWHERE) from here: they cannot
        // see this crate's QueryContextExt.
        config.set_extension(Arc::new(settings.clone()));
        Ok(config)
    }

    /// Prepares the DataFusion state of one query from its settings (after
    /// [`Self::configure_query`]), for planning.
    pub(crate) fn configure_state(&self, ctx: &mut QueryContext) -> Result<()> {
        let config = self.query_config(ctx)?;
        let mut state = self.base_state.clone();
        *state.config_mut() = config;
        ctx.state = Arc::new(state);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn log(
        &self,
        log_type: QueryLogType,
        query_id: &str,
        query: &str,
        kind: &str,
        session: &Session,
        start_time_us: i64,
        progress: &QueryProgress,
        error: Option<&Error>,
        settings: Option<&Settings>,
        accessed: Option<&AccessedObjects>,
    ) {
        let p = progress.snapshot();
        let list = |set: fn(&AccessedObjects) -> &std::collections::BTreeSet<String>| accessed.map(|a| set(a).iter().cloned().collect()).unwrap_or_default();
        self.shared.query_log.push(QueryLogEntry {
            log_type,
            event_time_us: now_us(),
            query_start_time_us: start_time_us,
            query_duration_ms: p.elapsed_ns / 1_000_000,
            read_rows: p.read_rows,
            read_bytes: p.read_bytes,
            written_rows: p.written_rows,
            written_bytes: p.written_bytes,
            result_rows: p.result_rows,
            result_bytes: p.result_bytes,
            memory_usage: p.peak_memory,
            current_database: session.current_database.clone(),
            query: query.to_string(),
            query_kind: kind.to_string(),
            exception_code: error.map(|e| e.code().number()).unwrap_or(0),
            exception: error.map(|e| e.to_clickhouse_string()).unwrap_or_default(),
            user: session.user.clone(),
            query_id: query_id.to_string(),
            log_comment: settings.map(|s| s.get_str("log_comment").to_string()).unwrap_or_default(),
            databases: list(|a| &a.databases),
            tables: list(|a| &a.tables),
            columns: list(|a| &a.columns),
        });
    }
}

/// Reloads dictionaries whose LIFETIME passed, once a second, and reads changed
/// dictionary configuration files every 5 seconds (as ClickHouse checks them), for as
/// long as the server runs.
fn spawn_dictionary_reloads(registry: Weak<DictionaryRegistry>) {
    const CONFIG_CHECK_SECONDS: u64 = 5;
    let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
    runtime.spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
        let mut seconds: u64 = 0;
        loop {
            tick.tick().await;
            seconds += 1;
            let Some(registry) = registry.upgrade() else { break };
            if seconds % CONFIG_CHECK_SECONDS == 0 {
                registry.rescan_config_files();
            }
            registry.reload_expired().await;
        }
    });
}

/// What ClickHouse's executeQuery and MemoryTracker log when a query ends.
fn log_query_end(ctx: &QueryContext, error: Option<&Error>) {
    let p = ctx.progress.snapshot();
    if let Some(e) = error {
        tracing::error!(target: "executeQuery", "{} (while processing query: {})", e.to_clickhouse_string(), ctx.query_text);
        return;
    }
    let seconds = (p.elapsed_ns as f64 / 1e9).max(1e-9);
    let (rows, bytes) = if p.written_rows > 0 { (p.written_rows, p.written_bytes) } else { (p.read_rows, p.read_bytes) };
    let verb = if p.written_rows > 0 { "Written" } else { "Read" };
    tracing::debug!(
        target: "executeQuery",
        "{verb} {rows} rows, {} in {seconds:.6} sec., {:.0} rows/sec., {}/sec.",
        readable_size(bytes as f64),
        rows as f64 / seconds,
        readable_size(bytes as f64 / seconds)
    );
    tracing::debug!(target: "MemoryTracker", "Peak memory usage (for query): {}.", readable_size(p.peak_memory as f64));
}

/// ClickHouse's `formatReadableSize`: `1.50 MiB`.
fn readable_size(bytes: f64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.2} {}", UNITS[unit])
}

/// A version-4 UUID for a query without an id of its own. `Uuid::new_v4` asks the kernel
/// for 16 random bytes (one `getrandom` system call per query); here each thread asks
/// once, for a random base, and then counts. SplitMix64's finalizer of base + counter is a
/// bijection, so the first half differs for every id a thread makes (but for the four
/// version bits; the second half is mixed from it too), and threads start from unrelated
/// random bases.
fn random_query_id() -> uuid::Uuid {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<Option<(u64, u64, u64)>> = const { Cell::new(None) };
    }
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    STATE.with(|state| {
        let (high, low, counter) = state.get().unwrap_or_else(|| {
            let seed = uuid::Uuid::new_v4().as_u64_pair();
            (seed.0, seed.1, 0)
        });
        let counter = counter.wrapping_add(1);
        state.set(Some((high, low, counter)));
        let first = mix(high.wrapping_add(counter.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        let second = mix(low ^ first);
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&first.to_be_bytes());
        bytes[8..].copy_from_slice(&second.to_be_bytes());
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    })
}

pub(crate) fn now_us() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros() as i64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn query_ids_are_distinct_version_4_uuids() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..10_000 {
            let id = super::random_query_id();
            assert_eq!(id.get_version_num(), 4);
            assert_eq!(id.get_variant(), uuid::Variant::RFC4122);
            assert!(seen.insert(id), "{id} repeated");
        }
        let other_thread = std::thread::spawn(super::random_query_id).join().expect("thread");
        assert!(!seen.contains(&other_thread));
    }
}

/// The server's UUID (`serverUUID()`), kept in `<path>/uuid` as ClickHouse keeps it, so
/// it survives restarts; made on first start.
fn server_uuid(path: &std::path::Path) -> Result<uuid::Uuid> {
    let file = path.join("uuid");
    if let Ok(text) = std::fs::read_to_string(&file) {
        if let Ok(id) = uuid::Uuid::parse_str(text.trim()) {
            return Ok(id);
        }
    }
    let id = uuid::Uuid::new_v4();
    granary_common::fs::write_atomic(&file, id.to_string().as_bytes())?;
    Ok(id)
}
