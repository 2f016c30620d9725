//! The `system` database: views of the running server, generated when scanned.
//!
//! Each table has a fixed schema (ClickHouse column names and types) and a generator that
//! reads live state: the catalog, the settings of the querying session, the function
//! registry, the query log and the process list. The querying session's settings and
//! database reach the generator through [`QueryContextExt`], a DataFusion session-config
//! extension set for every query.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow::array::{
    ArrayRef, Date32Array, Float64Array, Int32Array, ListBuilder, StringArray, StringBuilder, TimestampMicrosecondArray,
    TimestampSecondArray, UInt64Array, UInt8Array,
};
use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::{SchemaProvider, Session, TableProvider};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::TableType;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use granary_common::settings::SETTINGS_REGISTRY;
use granary_common::{Error, ErrorCode, Result, Settings};
use granary_engines::numbers::NumbersTable;
use granary_types::ChType;

use crate::instance::Shared;

/// Per-query facts the system tables need, carried in the DataFusion session config.
#[derive(Debug, Clone)]
pub struct QueryContextExt {
    pub settings: Settings,
    pub current_database: String,
}

pub(crate) type Generator = fn(&Shared, &QueryContextExt) -> Result<Vec<ArrayRef>>;

struct SystemTable {
    schema: SchemaRef,
    shared: Arc<Shared>,
    generate: Generator,
}

impl std::fmt::Debug for SystemTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemTable").field("schema", &self.schema).finish()
    }
}

#[async_trait]
impl TableProvider for SystemTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let context = state
            .config()
            .get_extension::<QueryContextExt>()
            .map(|c| (*c).clone())
            .unwrap_or_else(|| QueryContextExt { settings: Settings::new(), current_database: "default".into() });
        let columns = (self.generate)(&self.shared, &context)?;
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        Ok(MemorySourceConfig::try_new_exec(&[vec![batch]], self.schema.clone(), projection.cloned())?)
    }
}

fn schema(columns: &[(&str, &str)]) -> SchemaRef {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, type_name)| {
            // The names are literals of this file; a typo is caught by the unit test.
            let t = ChType::parse(type_name).unwrap_or(ChType::String);
            t.to_arrow_field(name)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// The `system` schema provider.
pub struct SystemSchema {
    tables: HashMap<&'static str, Arc<dyn TableProvider>>,
}

impl std::fmt::Debug for SystemSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemSchema").finish()
    }
}

/// Every system table: name, columns, generator.
#[allow(clippy::type_complexity)]
fn definitions() -> Vec<(&'static str, Vec<(&'static str, &'static str)>, Generator)> {
    let mut all: Vec<(&'static str, Vec<(&'static str, &'static str)>, Generator)> = vec![
        ("one", vec![("dummy", "UInt8")], |_, _| Ok(vec![Arc::new(UInt8Array::from(vec![0u8]))])),
        (
            "databases",
            vec![("name", "String"), ("engine", "String"), ("data_path", "String"), ("metadata_path", "String"), ("uuid", "String"), ("comment", "String")],
            databases,
        ),
        (
            "tables",
            vec![
                ("database", "String"),
                ("name", "String"),
                ("uuid", "String"),
                ("engine", "String"),
                ("is_temporary", "UInt8"),
                ("data_paths", "Array(String)"),
                ("metadata_path", "String"),
                ("metadata_modification_time", "DateTime"),
                ("dependencies_database", "Array(String)"),
                ("dependencies_table", "Array(String)"),
                ("create_table_query", "String"),
                ("engine_full", "String"),
                ("as_select", "String"),
                ("parameterized_view_parameters", "Array(String)"),
                ("partition_key", "String"),
                ("sorting_key", "String"),
                ("primary_key", "String"),
                ("sampling_key", "String"),
                ("total_rows", "Nullable(UInt64)"),
                ("total_bytes", "Nullable(UInt64)"),
                ("comment", "String"),
                ("has_own_data", "UInt8"),
            ],
            tables,
        ),
        (
            "columns",
            vec![
                ("database", "String"),
                ("table", "String"),
                ("name", "String"),
                ("type", "String"),
                ("position", "UInt64"),
                ("default_kind", "String"),
                ("default_expression", "String"),
                ("data_compressed_bytes", "UInt64"),
                ("data_uncompressed_bytes", "UInt64"),
                ("marks_bytes", "UInt64"),
                ("comment", "String"),
                ("is_in_partition_key", "UInt8"),
                ("is_in_sorting_key", "UInt8"),
                ("is_in_primary_key", "UInt8"),
                ("compression_codec", "String"),
            ],
            columns,
        ),
        (
            "settings",
            vec![
                ("name", "String"),
                ("value", "String"),
                ("changed", "UInt8"),
                ("description", "String"),
                ("min", "Nullable(String)"),
                ("max", "Nullable(String)"),
                ("readonly", "UInt8"),
                ("type", "String"),
                ("default", "String"),
            ],
            settings,
        ),
        (
            "merge_tree_settings",
            vec![
                ("name", "String"),
                ("value", "String"),
                ("default", "String"),
                ("changed", "UInt8"),
                ("description", "String"),
                ("min", "Nullable(String)"),
                ("max", "Nullable(String)"),
                ("disallowed_values", "Array(String)"),
                ("readonly", "UInt8"),
                ("type", "String"),
                ("is_obsolete", "UInt8"),
                // Enum8 in ClickHouse; Granary has no Enum types, the text is the same.
                ("tier", "String"),
            ],
            merge_tree_settings,
        ),
        (
            "graphite_retentions",
            vec![
                ("config_name", "String"),
                ("rule_type", "String"),
                ("regexp", "String"),
                ("function", "String"),
                ("age", "UInt64"),
                ("precision", "UInt64"),
                ("priority", "UInt16"),
                ("is_default", "UInt8"),
                ("Tables.database", "Array(String)"),
                ("Tables.table", "Array(String)"),
            ],
            graphite_retentions,
        ),
        (
            "functions",
            vec![
                ("name", "String"),
                ("is_aggregate", "UInt8"),
                ("case_insensitive", "UInt8"),
                ("alias_to", "String"),
                ("create_query", "String"),
                ("origin", "String"),
                ("description", "String"),
            ],
            functions,
        ),
        ("build_options", vec![("name", "String"), ("value", "String")], build_options),
        (
            "named_collections",
            vec![("name", "String"), ("collection", "Map(String, String)"), ("source", "String"), ("create_query", "String")],
            named_collections,
        ),
        (
            "table_engines",
            vec![
                ("name", "String"),
                ("supports_settings", "UInt8"),
                ("supports_skipping_indices", "UInt8"),
                ("supports_projections", "UInt8"),
                ("supports_sort_order", "UInt8"),
                ("supports_ttl", "UInt8"),
                ("supports_replication", "UInt8"),
                ("supports_deduplication", "UInt8"),
                ("supports_parallel_insert", "UInt8"),
            ],
            table_engines,
        ),
        (
            "privileges",
            vec![("privilege", "String"), ("aliases", "Array(String)"), ("level", "Nullable(String)"), ("parent_group", "Nullable(String)")],
            privileges,
        ),
        (
            "data_skipping_indices",
            vec![
                ("database", "String"),
                ("table", "String"),
                ("name", "String"),
                ("type", "String"),
                ("type_full", "String"),
                ("expr", "String"),
                ("creation", "String"),
                ("granularity", "UInt64"),
                ("data_compressed_bytes", "UInt64"),
                ("data_uncompressed_bytes", "UInt64"),
                ("marks_bytes", "UInt64"),
            ],
            data_skipping_indices,
        ),
        ("table_functions", vec![("name", "String")], |shared, _| Ok(vec![strings(shared.table_functions.get().map(Vec::as_slice).unwrap_or_default())])),
        ("formats", vec![("name", "String"), ("is_input", "UInt8"), ("is_output", "UInt8")], formats),
        (
            "query_log",
            vec![
                ("type", "String"),
                ("event_date", "Date"),
                ("event_time", "DateTime"),
                ("event_time_microseconds", "DateTime64(6)"),
                ("query_start_time", "DateTime"),
                ("query_start_time_microseconds", "DateTime64(6)"),
                ("query_duration_ms", "UInt64"),
                ("read_rows", "UInt64"),
                ("read_bytes", "UInt64"),
                ("written_rows", "UInt64"),
                ("written_bytes", "UInt64"),
                ("result_rows", "UInt64"),
                ("result_bytes", "UInt64"),
                ("memory_usage", "UInt64"),
                ("current_database", "String"),
                ("query", "String"),
                ("query_kind", "String"),
                ("exception_code", "Int32"),
                ("exception", "String"),
                ("user", "String"),
                ("query_id", "String"),
                ("initial_query_id", "String"),
                ("is_initial_query", "UInt8"),
                ("log_comment", "String"),
                ("databases", "Array(LowCardinality(String))"),
                ("tables", "Array(LowCardinality(String))"),
                ("columns", "Array(LowCardinality(String))"),
            ],
            query_log,
        ),
        (
            "schema_inference_cache",
            vec![
                ("storage", "String"),
                ("source", "String"),
                ("format", "String"),
                ("additional_format_info", "String"),
                ("registration_time", "DateTime"),
                ("schema", "Nullable(String)"),
                ("number_of_rows", "Nullable(UInt64)"),
                ("schema_inference_mode", "Nullable(String)"),
            ],
            schema_inference_cache,
        ),
        (
            "text_log",
            vec![
                ("event_date", "Date"),
                ("event_time", "DateTime"),
                ("event_time_microseconds", "DateTime64(6)"),
                ("thread_name", "String"),
                ("thread_id", "UInt64"),
                ("level", "String"),
                ("query_id", "String"),
                ("logger_name", "String"),
                ("message", "String"),
                ("source_file", "String"),
                ("source_line", "UInt64"),
            ],
            text_log,
        ),
        (
            "trace_log",
            vec![
                ("hostname", "LowCardinality(String)"),
                ("event_date", "Date"),
                ("event_time", "DateTime"),
                ("event_time_microseconds", "DateTime64(6)"),
                ("timestamp_ns", "UInt64"),
                ("revision", "UInt32"),
                ("trace_type", "Enum8('Real' = 0, 'CPU' = 1, 'Memory' = 2, 'MemorySample' = 3, 'MemoryPeak' = 4, 'ProfileEvent' = 5)"),
                ("thread_id", "UInt64"),
                ("query_id", "String"),
                ("trace", "Array(UInt64)"),
                ("size", "Int64"),
                ("ptr", "UInt64"),
                ("event", "LowCardinality(String)"),
                ("increment", "Int64"),
            ],
            trace_log,
        ),
        (
            "dictionaries",
            vec![
                ("database", "String"),
                ("name", "String"),
                ("uuid", "String"),
                ("status", "String"),
                ("origin", "String"),
                ("type", "String"),
                ("key.names", "Array(String)"),
                ("key.types", "Array(String)"),
                ("attribute.names", "Array(String)"),
                ("attribute.types", "Array(String)"),
                ("bytes_allocated", "UInt64"),
                ("hierarchical_index_bytes_allocated", "UInt64"),
                ("query_count", "UInt64"),
                ("hit_rate", "Float64"),
                ("found_rate", "Float64"),
                ("element_count", "UInt64"),
                ("load_factor", "Float64"),
                ("source", "String"),
                ("lifetime_min", "UInt64"),
                ("lifetime_max", "UInt64"),
                ("loading_start_time", "DateTime"),
                ("last_successful_update_time", "DateTime"),
                ("error_count", "UInt64"),
                ("loading_duration", "Float64"),
                ("last_exception", "String"),
                ("comment", "String"),
            ],
            dictionaries,
        ),
        (
            "parts",
            vec![
                ("partition", "String"),
                ("name", "String"),
                ("part_type", "String"),
                ("active", "UInt8"),
                ("marks", "UInt64"),
                ("rows", "UInt64"),
                ("files", "UInt64"),
                ("bytes_on_disk", "UInt64"),
                ("data_compressed_bytes", "UInt64"),
                ("data_uncompressed_bytes", "UInt64"),
                ("primary_key_size", "UInt64"),
                ("marks_bytes", "UInt64"),
            ]
            .into_iter()
            .chain(PART_LOCATION_COLUMNS)
            .chain([("bytes", "UInt64"), ("marks_size", "UInt64"), ("part_name", "String"), ("delete_ttl_info_min", "DateTime"), ("delete_ttl_info_max", "DateTime")])
            .chain(TTL_INFO_COLUMNS.into_iter().enumerate().flat_map(|(i, names)| {
                // ClickHouse lists the default codec between the move and recompression ranges.
                let codec = (i == 1).then_some(("default_compression_codec", "String"));
                codec.into_iter().chain([(names[0], "Array(String)"), (names[1], "Array(DateTime)"), (names[2], "Array(DateTime)")])
            }))
            .chain([("has_lightweight_delete", "UInt8")])
            .collect(),
            parts,
        ),
        (
            "parts_columns",
            vec![
                ("partition", "String"),
                ("name", "String"),
                ("part_type", "String"),
                ("active", "UInt8"),
                ("marks", "UInt64"),
                ("rows", "UInt64"),
                ("bytes_on_disk", "UInt64"),
                ("data_compressed_bytes", "UInt64"),
                ("data_uncompressed_bytes", "UInt64"),
                ("marks_bytes", "UInt64"),
            ]
            .into_iter()
            .chain(PART_LOCATION_COLUMNS)
            .chain([
                ("column", "String"),
                ("type", "String"),
                ("column_position", "UInt64"),
                ("default_kind", "String"),
                ("default_expression", "String"),
                ("column_bytes_on_disk", "UInt64"),
                ("column_data_compressed_bytes", "UInt64"),
                ("column_data_uncompressed_bytes", "UInt64"),
                ("column_marks_bytes", "UInt64"),
                ("bytes", "UInt64"),
                ("marks_size", "UInt64"),
                ("part_name", "String"),
            ])
            .collect(),
            parts_columns,
        ),
        (
            "part_log",
            vec![
                ("event_type", "String"),
                ("event_date", "Date"),
                ("event_time", "DateTime"),
                ("event_time_microseconds", "DateTime64(6)"),
                ("duration_ms", "UInt64"),
                ("database", "String"),
                ("table", "String"),
                ("part_name", "String"),
                ("partition_id", "String"),
                ("rows", "UInt64"),
                ("size_in_bytes", "UInt64"),
                ("merged_from", "Array(String)"),
                ("read_rows", "UInt64"),
            ],
            part_log,
        ),
        (
            "merges",
            vec![
                ("database", "String"),
                ("table", "String"),
                ("elapsed", "Float64"),
                ("progress", "Float64"),
                ("num_parts", "UInt64"),
                ("source_part_names", "Array(String)"),
                ("result_part_name", "String"),
                ("partition_id", "String"),
                ("is_mutation", "UInt8"),
                ("total_size_bytes_compressed", "UInt64"),
                ("rows_read", "UInt64"),
                ("rows_written", "UInt64"),
            ],
            merges,
        ),
        (
            "mutations",
            vec![
                ("database", "String"),
                ("table", "String"),
                ("mutation_id", "String"),
                ("command", "String"),
                ("create_time", "DateTime"),
                ("finish_time", "DateTime"),
                ("parts_in_progress_names", "Array(String)"),
                ("parts_to_do_names", "Array(String)"),
                ("parts_to_do", "Int64"),
                ("is_done", "UInt8"),
                ("is_killed", "UInt8"),
                ("latest_failed_part", "String"),
                ("latest_fail_time", "DateTime"),
                ("latest_fail_reason", "String"),
                ("latest_fail_error_code_name", "String"),
            ],
            mutations,
        ),
        (
            "asynchronous_inserts",
            vec![
                ("query", "String"),
                ("database", "String"),
                ("table", "String"),
                ("format", "String"),
                ("first_update", "DateTime64(6)"),
                ("total_bytes", "UInt64"),
                ("entries.query_id", "Array(String)"),
                ("entries.bytes", "Array(UInt64)"),
            ],
            asynchronous_inserts,
        ),
        (
            "asynchronous_metrics",
            vec![("metric", "String"), ("value", "Float64"), ("description", "String")],
            asynchronous_metrics,
        ),
        (
            "events",
            vec![("event", "String"), ("value", "UInt64"), ("description", "String")],
            events,
        ),
        ("metrics", vec![("metric", "String"), ("value", "Int64"), ("description", "String")], metrics),
        (
            "processes",
            vec![
                ("is_initial_query", "UInt8"),
                ("user", "String"),
                ("query_id", "String"),
                ("elapsed", "Float64"),
                ("read_rows", "UInt64"),
                ("read_bytes", "UInt64"),
                ("total_rows_approx", "UInt64"),
                ("written_rows", "UInt64"),
                ("written_bytes", "UInt64"),
                ("memory_usage", "Int64"),
                ("query", "String"),
                ("current_database", "String"),
            ],
            processes,
        ),
    ];
    all.extend(crate::system_access::definitions());
    all
}

impl SystemSchema {
    pub fn new(shared: Arc<Shared>) -> Self {
        let mut tables: HashMap<&'static str, Arc<dyn TableProvider>> = HashMap::new();
        for (name, columns, generate) in definitions() {
            tables.insert(name, Arc::new(SystemTable { schema: schema(&columns), shared: shared.clone(), generate }));
        }
        tables.insert("numbers", Arc::new(NumbersTable::unbounded()));
        tables.insert("numbers_mt", Arc::new(NumbersTable::unbounded()));
        SystemSchema { tables }
    }

    /// The columns of system table `name`.
    pub(crate) fn table_columns(name: &str) -> Option<Vec<&'static str>> {
        if matches!(name, "numbers" | "numbers_mt") {
            return Some(vec!["number"]);
        }
        definitions().into_iter().find(|(n, _, _)| *n == name).map(|(_, columns, _)| columns.into_iter().map(|(c, _)| c).collect())
    }

    pub fn names() -> Vec<&'static str> {
        let mut names: Vec<&'static str> = definitions().into_iter().map(|(n, _, _)| n).collect();
        names.extend(["numbers", "numbers_mt"]);
        names.sort_unstable();
        names
    }
}

#[async_trait]
impl SchemaProvider for SystemSchema {
    fn table_names(&self) -> Vec<String> {
        self.tables.keys().map(|k| k.to_string()).collect()
    }

    async fn table(&self, name: &str) -> datafusion::common::Result<Option<Arc<dyn TableProvider>>> {
        Ok(self.tables.get(name).cloned())
    }

    fn table_exist(&self, name: &str) -> bool {
        self.tables.contains_key(name)
    }
}

pub(crate) fn nullable_strings(values: impl IntoIterator<Item = Option<String>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(values))
}

pub(crate) fn strings<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(values))
}

fn u64s(values: impl IntoIterator<Item = u64>) -> ArrayRef {
    Arc::new(UInt64Array::from_iter_values(values))
}

pub(crate) fn u8s(values: impl IntoIterator<Item = bool>) -> ArrayRef {
    Arc::new(UInt8Array::from_iter_values(values.into_iter().map(u8::from)))
}

fn databases(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let mut rows: Vec<(String, String)> = shared.catalog.databases().iter().map(|d| (d.name.clone(), d.engine.clone())).collect();
    rows.push(("system".into(), "Memory".into()));
    rows.push(("INFORMATION_SCHEMA".into(), "Memory".into()));
    rows.sort();
    let path = shared.config.path.display().to_string();
    Ok(vec![
        strings(rows.iter().map(|r| &r.0)),
        strings(rows.iter().map(|r| &r.1)),
        strings(rows.iter().map(|_| format!("{path}/store/"))),
        strings(rows.iter().map(|r| format!("{path}/metadata/{}/", r.0))),
        strings(rows.iter().map(|_| "")),
        strings(rows.iter().map(|_| "")),
    ])
}

fn tables(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    struct Row {
        database: String,
        name: String,
        uuid: String,
        engine: String,
        data_paths: Vec<String>,
        modified: i64,
        create: String,
        engine_full: String,
        partition_key: String,
        sorting_key: String,
        primary_key: String,
        sampling_key: String,
        total_rows: Option<u64>,
        total_bytes: Option<u64>,
        comment: String,
        /// Materialized views reading the table, as (database, name).
        dependents: Vec<(String, String)>,
        as_select: String,
        parameters: Vec<String>,
        has_own_data: bool,
        temporary: bool,
    }
    let mut dependents: HashMap<(String, String), Vec<(String, String)>> = HashMap::new();
    for database in shared.catalog.databases() {
        for table in database.tables() {
            if let Some(source) = table.meta.view.as_ref().and_then(|v| v.source.as_ref()) {
                dependents.entry((source.database.clone(), source.table.clone())).or_default().push((database.name.clone(), table.meta.name.clone()));
            }
        }
    }
    let mut rows = Vec::new();
    let databases = shared.catalog.databases();
    let tables = databases
        .iter()
        .flat_map(|database| database.tables().into_iter().map(|table| (database.name.clone(), table)))
        // The temporary tables of the query's session, in no database (as ClickHouse lists them).
        .chain(granary_storage::temporary::visible().into_iter().map(|table| (String::new(), table)));
    for (database, table) in tables {
        let m = &table.meta;
        rows.push(Row {
            temporary: database.is_empty(),
            dependents: dependents.remove(&(database.clone(), m.name.clone())).unwrap_or_default(),
            as_select: m.view.as_ref().map(|v| v.query.clone()).unwrap_or_default(),
            parameters: m.view.as_ref().map(|v| v.parameters.clone()).unwrap_or_default(),
            has_own_data: m.view.is_none() && m.dictionary.is_none(),
            database,
            name: m.name.clone(),
            uuid: m.uuid.clone(),
            engine: m.engine.name.clone(),
            data_paths: table.engine.data_paths().iter().map(|p| format!("{}/", p.display())).collect(),
            modified: m.created_at,
            create: m.create_query_one_line(),
            engine_full: m.engine_full(),
            partition_key: m.engine.partition_by.clone().unwrap_or_default(),
            sorting_key: sorting_key_text(&m.engine),
            primary_key: m.engine.primary_key.clone().or(m.engine.order_by.clone()).map(strip_tuple_parens).unwrap_or_default(),
            sampling_key: m.engine.sample_by.clone().unwrap_or_default(),
            total_rows: table.engine.total_rows(),
            total_bytes: table.engine.total_bytes(),
            comment: m.comment.clone().unwrap_or_default(),
        });
    }
    for name in SystemSchema::names() {
        rows.push(Row {
            database: "system".into(),
            name: name.into(),
            uuid: String::new(),
            engine: format!("System{}", camel(name)),
            data_paths: vec![],
            modified: 0,
            create: String::new(),
            engine_full: format!("System{}", camel(name)),
            partition_key: String::new(),
            sorting_key: String::new(),
            primary_key: String::new(),
            sampling_key: String::new(),
            total_rows: None,
            total_bytes: None,
            comment: String::new(),
            dependents: Vec::new(),
            as_select: String::new(),
            parameters: Vec::new(),
            has_own_data: false,
            temporary: false,
        });
    }
    let string_lists = |lists: Vec<Vec<String>>| -> ArrayRef {
        let item = Arc::new(Field::new("item", arrow::datatypes::DataType::Utf8, false));
        let mut builder = ListBuilder::new(StringBuilder::new()).with_field(item);
        for list in lists {
            for value in list {
                builder.values().append_value(value);
            }
            builder.append(true);
        }
        Arc::new(builder.finish())
    };
    let item = Arc::new(Field::new("item", arrow::datatypes::DataType::Utf8, false));
    let mut paths = ListBuilder::new(StringBuilder::new()).with_field(item);
    for row in &rows {
        for p in &row.data_paths {
            paths.values().append_value(p);
        }
        paths.append(true);
    }
    let metadata_root = shared.config.path.join("metadata");
    Ok(vec![
        strings(rows.iter().map(|r| &r.database)),
        strings(rows.iter().map(|r| &r.name)),
        strings(rows.iter().map(|r| &r.uuid)),
        strings(rows.iter().map(|r| &r.engine)),
        u8s(rows.iter().map(|r| r.temporary)),
        Arc::new(paths.finish()),
        strings(rows.iter().map(|r| {
            if r.database == "system" || r.temporary {
                String::new()
            } else {
                format!("{}/{}/{}.json", metadata_root.display(), r.database, r.name)
            }
        })),
        Arc::new(TimestampSecondArray::from_iter_values(rows.iter().map(|r| r.modified))),
        string_lists(rows.iter().map(|r| r.dependents.iter().map(|d| d.0.clone()).collect()).collect()),
        string_lists(rows.iter().map(|r| r.dependents.iter().map(|d| d.1.clone()).collect()).collect()),
        strings(rows.iter().map(|r| &r.create)),
        strings(rows.iter().map(|r| &r.engine_full)),
        strings(rows.iter().map(|r| &r.as_select)),
        string_lists(rows.iter().map(|r| r.parameters.clone()).collect()),
        strings(rows.iter().map(|r| &r.partition_key)),
        strings(rows.iter().map(|r| &r.sorting_key)),
        strings(rows.iter().map(|r| &r.primary_key)),
        strings(rows.iter().map(|r| &r.sampling_key)),
        Arc::new(UInt64Array::from(rows.iter().map(|r| r.total_rows).collect::<Vec<_>>())),
        Arc::new(UInt64Array::from(rows.iter().map(|r| r.total_bytes).collect::<Vec<_>>())),
        strings(rows.iter().map(|r| &r.comment)),
        u8s(rows.iter().map(|r| r.has_own_data)),
    ])
}

/// Parts of every table whose engine has parts (MergeTree family), through the engine
/// contract's plain `PartStatus` rows.
fn parts(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let mut rows: Vec<(String, String, String, granary_storage::PartStatus)> = Vec::new();
    for database in shared.catalog.databases() {
        for table in database.tables() {
            for part in table.engine.parts() {
                rows.push((database.name.clone(), table.meta.name.clone(), table.engine.engine_name().to_string(), part));
            }
        }
    }
    let p = |f: fn(&granary_storage::PartStatus) -> u64| u64s(rows.iter().map(|r| f(&r.3)));
    let mut columns = vec![
        strings(rows.iter().map(|r| &r.3.partition)),
        strings(rows.iter().map(|r| &r.3.name)),
        strings(rows.iter().map(|r| &r.3.part_type)),
        u8s(rows.iter().map(|r| r.3.active)),
        p(|s| s.marks),
        p(|s| s.rows),
        p(|s| s.files),
        p(|s| s.bytes_on_disk),
        p(|s| s.data_compressed_bytes),
        p(|s| s.data_uncompressed_bytes),
        p(|s| s.primary_key_size),
        p(|s| s.marks_bytes),
    ];
    let located: Vec<PartLocation> = rows.iter().map(|r| (r.0.as_str(), r.1.as_str(), r.2.as_str(), &r.3)).collect();
    columns.extend(part_location_arrays(&located));
    columns.extend([
        p(|s| s.bytes_on_disk),
        p(|s| s.marks_bytes),
        strings(rows.iter().map(|r| &r.3.name)),
        Arc::new(TimestampSecondArray::from_iter_values(rows.iter().map(|r| r.3.delete_ttl_info.0))),
        Arc::new(TimestampSecondArray::from_iter_values(rows.iter().map(|r| r.3.delete_ttl_info.1))),
    ]);
    // One disk: no part has move TTL ranges.
    type Ranges = fn(&granary_storage::PartStatus) -> &[(String, i64, i64)];
    let kinds: [Ranges; 4] = [|_| &[], |s| &s.recompression_ttl_info, |s| &s.group_by_ttl_info, |s| &s.rows_where_ttl_info];
    for (i, kind) in kinds.into_iter().enumerate() {
        if i == 1 {
            columns.push(strings(rows.iter().map(|r| &r.3.default_compression_codec)));
        }
        let infos: Vec<&[(String, i64, i64)]> = rows.iter().map(|r| kind(&r.3)).collect();
        columns.push(string_lists(infos.iter().map(|i| i.iter().map(|t| t.0.clone()).collect())));
        columns.push(datetime_lists(infos.iter().map(|i| i.iter().map(|t| t.1).collect())));
        columns.push(datetime_lists(infos.iter().map(|i| i.iter().map(|t| t.2).collect())));
    }
    columns.push(u8s(rows.iter().map(|r| r.3.has_lightweight_delete)));
    Ok(columns)
}

/// A part with the database, table and engine it belongs to.
type PartLocation<'a> = (&'a str, &'a str, &'a str, &'a granary_storage::PartStatus);

/// The columns `system.parts` and `system.parts_columns` share, from `modification_time`
/// to `path` ([`part_location_arrays`] builds them).
/// `system.parts`' TTL range columns, ClickHouse's `Nested` of each rule kind: moves,
/// recompression, GROUP BY, DELETE ... WHERE.
const TTL_INFO_COLUMNS: [[&str; 3]; 4] = [
    ["move_ttl_info.expression", "move_ttl_info.min", "move_ttl_info.max"],
    ["recompression_ttl_info.expression", "recompression_ttl_info.min", "recompression_ttl_info.max"],
    ["group_by_ttl_info.expression", "group_by_ttl_info.min", "group_by_ttl_info.max"],
    ["rows_where_ttl_info.expression", "rows_where_ttl_info.min", "rows_where_ttl_info.max"],
];

const PART_LOCATION_COLUMNS: [(&str, &str); 12] = [
    ("modification_time", "DateTime"),
    ("remove_time", "DateTime"),
    ("partition_id", "String"),
    ("min_block_number", "Int64"),
    ("max_block_number", "Int64"),
    ("level", "UInt32"),
    ("data_version", "UInt64"),
    ("database", "String"),
    ("table", "String"),
    ("engine", "String"),
    ("disk_name", "String"),
    ("path", "String"),
];

fn part_location_arrays(rows: &[PartLocation]) -> Vec<ArrayRef> {
    vec![
        Arc::new(TimestampSecondArray::from_iter_values(rows.iter().map(|r| r.3.modification_time))),
        Arc::new(TimestampSecondArray::from_iter_values(rows.iter().map(|r| r.3.remove_time))),
        strings(rows.iter().map(|r| &r.3.partition_id)),
        Arc::new(arrow::array::Int64Array::from_iter_values(rows.iter().map(|r| r.3.min_block_number))),
        Arc::new(arrow::array::Int64Array::from_iter_values(rows.iter().map(|r| r.3.max_block_number))),
        Arc::new(arrow::array::UInt32Array::from_iter_values(rows.iter().map(|r| r.3.level))),
        u64s(rows.iter().map(|r| r.3.data_version)),
        strings(rows.iter().map(|r| r.0)),
        strings(rows.iter().map(|r| r.1)),
        strings(rows.iter().map(|r| r.2)),
        strings(rows.iter().map(|_| "default")),
        strings(rows.iter().map(|r| &r.3.path)),
    ]
}

/// One row per column of each part: the part's own fields, then the column's.
fn parts_columns(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    struct Row {
        database: String,
        table: String,
        engine: String,
        part: Arc<granary_storage::PartStatus>,
        column: granary_storage::ColumnMeta,
        position: u64,
        sizes: granary_storage::ColumnSizes,
    }
    let mut rows: Vec<Row> = Vec::new();
    for database in shared.catalog.databases() {
        for table in database.tables() {
            for part in table.engine.parts() {
                let part = Arc::new(part);
                // A lightweight delete's mask is a column of the part, listed after the
                // table's, as ClickHouse lists it.
                let mask = part.has_lightweight_delete.then(|| granary_storage::ColumnMeta::new("_row_exists".to_string(), &ChType::UInt8));
                for (i, column) in table.meta.columns.iter().chain(&mask).enumerate() {
                    let sizes = part.columns.iter().find(|c| c.name == column.name).cloned().unwrap_or_default();
                    let (database, table_name, engine) = (database.name.clone(), table.meta.name.clone(), table.engine.engine_name().to_string());
                    rows.push(Row { database, table: table_name, engine, part: part.clone(), column: column.clone(), position: i as u64 + 1, sizes });
                }
            }
        }
    }
    let p = |f: fn(&granary_storage::PartStatus) -> u64| u64s(rows.iter().map(|r| f(&r.part)));
    let c = |f: fn(&granary_storage::ColumnSizes) -> u64| u64s(rows.iter().map(|r| f(&r.sizes)));
    let mut columns = vec![
        strings(rows.iter().map(|r| &r.part.partition)),
        strings(rows.iter().map(|r| &r.part.name)),
        strings(rows.iter().map(|r| &r.part.part_type)),
        u8s(rows.iter().map(|r| r.part.active)),
        p(|s| s.marks),
        p(|s| s.rows),
        p(|s| s.bytes_on_disk),
        p(|s| s.data_compressed_bytes),
        p(|s| s.data_uncompressed_bytes),
        p(|s| s.marks_bytes),
    ];
    let located: Vec<PartLocation> = rows.iter().map(|r| (r.database.as_str(), r.table.as_str(), r.engine.as_str(), r.part.as_ref())).collect();
    columns.extend(part_location_arrays(&located));
    columns.extend([
        strings(rows.iter().map(|r| &r.column.name)),
        strings(rows.iter().map(|r| &r.column.type_name)),
        u64s(rows.iter().map(|r| r.position)),
        strings(rows.iter().map(|r| r.column.default_kind.clone().unwrap_or_default())),
        strings(rows.iter().map(|r| r.column.default_expression.clone().unwrap_or_default())),
        c(|s| s.data_compressed_bytes + s.marks_bytes),
        c(|s| s.data_compressed_bytes),
        c(|s| s.data_uncompressed_bytes),
        c(|s| s.marks_bytes),
        p(|s| s.bytes_on_disk),
        p(|s| s.marks_bytes),
        strings(rows.iter().map(|r| &r.part.name)),
    ]);
    Ok(columns)
}

/// The sorting key as system.tables shows it, with a column the engine adds.
fn sorting_key_text(engine: &granary_storage::EngineMeta) -> String {
    let order_by = engine.order_by.clone().map(strip_tuple_parens).unwrap_or_default();
    match engine.implicit_sorting_column() {
        Some(column) if !order_by.split(',').any(|k| k.trim().trim_matches('`') == column) => {
            if order_by.is_empty() { column } else { format!("{order_by}, {column}") }
        }
        _ => order_by,
    }
}

/// ClickHouse shows `ORDER BY (a, b)` (or `tuple(a, b)`) as sorting_key `a, b`.
fn strip_tuple_parens(key: String) -> String {
    let trimmed = key.trim();
    let inner = trimmed.strip_prefix("tuple(").or_else(|| trimmed.strip_prefix('('));
    match inner.and_then(|k| k.strip_suffix(')')) {
        Some(inner) if balanced(inner) => inner.trim().to_string(),
        _ => trimmed.to_string(),
    }
}

fn balanced(text: &str) -> bool {
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

fn camel(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

pub(crate) fn string_lists(lists: impl IntoIterator<Item = Vec<String>>) -> ArrayRef {
    string_lists_of(Arc::new(Field::new("item", arrow::datatypes::DataType::Utf8, false)), lists)
}

/// An `Array(LowCardinality(String))` column: strings as `Array(String)`, with the element
/// field carrying the LowCardinality type name the schema declares.
fn low_cardinality_string_lists(lists: impl IntoIterator<Item = Vec<String>>) -> ArrayRef {
    let declared = schema(&[("lists", "Array(LowCardinality(String))")]);
    let item = match declared.field(0).data_type() {
        arrow::datatypes::DataType::List(item) => item.clone(),
        _ => Arc::new(Field::new("item", arrow::datatypes::DataType::Utf8, false)),
    };
    string_lists_of(item, lists)
}

/// An `Array(DateTime)` column of Unix seconds.
fn datetime_lists(lists: impl IntoIterator<Item = Vec<i64>>) -> ArrayRef {
    let declared = schema(&[("lists", "Array(DateTime)")]);
    let item = match declared.field(0).data_type() {
        arrow::datatypes::DataType::List(item) => item.clone(),
        _ => Arc::new(Field::new("item", arrow::datatypes::DataType::Timestamp(arrow::datatypes::TimeUnit::Second, None), false)),
    };
    let values = arrow::array::TimestampSecondBuilder::new().with_data_type(item.data_type().clone());
    let mut builder = ListBuilder::new(values).with_field(item);
    for list in lists {
        for value in list {
            builder.values().append_value(value);
        }
        builder.append(true);
    }
    Arc::new(builder.finish())
}

fn string_lists_of(item: arrow::datatypes::FieldRef, lists: impl IntoIterator<Item = Vec<String>>) -> ArrayRef {
    let mut builder = ListBuilder::new(StringBuilder::new()).with_field(item);
    for list in lists {
        for value in list {
            builder.values().append_value(value);
        }
        builder.append(true);
    }
    Arc::new(builder.finish())
}

fn dictionaries(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    use std::sync::atomic::Ordering::Relaxed;
    /// One row: a dictionary of a database or of a configuration file, or a definition
    /// in a configuration file that failed.
    struct Row {
        database: String,
        name: String,
        uuid: String,
        origin: String,
        comment: String,
        dictionary: Option<Arc<granary_dictionaries::Dictionary>>,
        definition_error: Option<String>,
    }
    let seconds = |t: Option<std::time::SystemTime>| {
        t.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_secs() as i64)
    };
    let mut rows = Vec::new();
    for database in shared.catalog.databases() {
        for table in database.tables() {
            if table.meta.dictionary.is_none() {
                continue;
            }
            if let Some(dictionary) = shared.dictionaries.get(&table.meta.uuid) {
                rows.push(Row {
                    database: database.name.clone(),
                    name: table.meta.name.clone(),
                    uuid: table.meta.uuid.clone(),
                    origin: table.meta.uuid.clone(),
                    comment: table.meta.comment.clone().unwrap_or_default(),
                    dictionary: Some(dictionary),
                    definition_error: None,
                });
            }
        }
    }
    for entry in shared.dictionaries.config_dictionaries() {
        rows.push(Row {
            database: String::new(),
            name: entry.name.clone(),
            uuid: granary_dictionaries::config_files::CONFIG_DICTIONARY_UUID.to_string(),
            origin: entry.origin.to_string_lossy().into_owned(),
            comment: entry.table().and_then(|t| t.meta.comment.clone()).unwrap_or_default(),
            dictionary: entry.dictionary().cloned(),
            definition_error: entry.error().map(|e| e.to_clickhouse_string()),
        });
    }
    rows.sort_by(|a, b| (&a.database, &a.name).cmp(&(&b.database, &b.name)));
    let type_names = |d: &granary_dictionaries::Dictionary, columns: Vec<usize>| -> Vec<String> {
        columns.into_iter().map(|i| ChType::from_field(d.definition.schema.field(i)).to_string()).collect()
    };
    let of = |row: &Row, f: &dyn Fn(&granary_dictionaries::Dictionary) -> Vec<String>| row.dictionary.as_deref().map(f).unwrap_or_default();
    let mut columns: Vec<ArrayRef> = Vec::new();
    let statuses: Vec<_> = rows.iter().map(|r| (r.dictionary.as_ref().map(|d| d.status()).unwrap_or_default(), r.dictionary.as_ref().and_then(|d| d.current()))).collect();
    let status_name = |row: &Row, status: &granary_dictionaries::dictionary::LoadStatus| if row.definition_error.is_some() { "FAILED" } else { status.status };
    columns.push(strings(rows.iter().map(|r| &r.database)));
    columns.push(strings(rows.iter().map(|r| &r.name)));
    columns.push(strings(rows.iter().map(|r| &r.uuid)));
    columns.push(strings(rows.iter().zip(&statuses).map(|(r, (s, _))| status_name(r, s))));
    columns.push(strings(rows.iter().map(|r| &r.origin)));
    columns.push(strings(rows.iter().map(|r| r.dictionary.as_ref().map_or("", |d| d.definition.layout.type_name(d.definition.complex_key)))));
    columns.push(string_lists(rows.iter().map(|r| of(r, &|d| d.definition.meta.primary_key.clone()))));
    columns.push(string_lists(rows.iter().map(|r| of(r, &|d| type_names(d, d.definition.key_columns.clone())))));
    columns.push(string_lists(rows.iter().map(|r| of(r, &|d| d.definition.attribute_names()))));
    columns.push(string_lists(rows.iter().map(|r| of(r, &|d| type_names(d, d.definition.attribute_columns())))));
    columns.push(u64s(statuses.iter().map(|(_, l)| l.as_ref().map_or(0, |l| l.allocated_bytes() as u64))));
    columns.push(u64s(statuses.iter().map(|(_, l)| l.as_ref().and_then(|l| l.hierarchy.as_ref()).map_or(0, |h| h.children_index_bytes() as u64))));
    columns.push(u64s(rows.iter().map(|r| r.dictionary.as_ref().map_or(0, |d| d.query_count.load(Relaxed)))));
    columns.push(Arc::new(Float64Array::from_iter_values(rows.iter().map(|_| 1.0))));
    columns.push(Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| {
        let Some(d) = &r.dictionary else { return 0.0 };
        let lookups = d.lookup_count.load(Relaxed);
        if lookups == 0 {
            0.0
        } else {
            d.found_count.load(Relaxed) as f64 / lookups as f64
        }
    }))));
    columns.push(u64s(statuses.iter().map(|(_, l)| l.as_ref().map_or(0, |l| l.element_count() as u64))));
    columns.push(Arc::new(Float64Array::from_iter_values(statuses.iter().map(|(_, l)| {
        l.as_ref().map_or(0.0, |l| if l.rows.num_rows() == 0 { 0.0 } else { l.index.len() as f64 / l.rows.num_rows() as f64 })
    }))));
    columns.push(strings(rows.iter().map(|r| r.dictionary.as_ref().map(|d| d.definition.source_description()).unwrap_or_default())));
    columns.push(u64s(rows.iter().map(|r| r.dictionary.as_ref().map_or(0, |d| d.definition.lifetime_min))));
    columns.push(u64s(rows.iter().map(|r| r.dictionary.as_ref().map_or(0, |d| d.definition.lifetime_max))));
    columns.push(Arc::new(TimestampSecondArray::from_iter_values(statuses.iter().map(|(s, _)| seconds(s.loading_start_time)))));
    columns.push(Arc::new(TimestampSecondArray::from_iter_values(statuses.iter().map(|(s, _)| seconds(s.last_successful_update_time)))));
    columns.push(u64s(rows.iter().zip(&statuses).map(|(r, (s, _))| s.error_count + u64::from(r.definition_error.is_some()))));
    columns.push(Arc::new(Float64Array::from_iter_values(statuses.iter().map(|(s, _)| s.loading_duration.as_secs_f64()))));
    columns.push(strings(rows.iter().zip(&statuses).map(|(r, (s, _))| r.definition_error.clone().or_else(|| s.last_exception.clone()).unwrap_or_default())));
    columns.push(strings(rows.iter().map(|r| &r.comment)));
    Ok(columns)
}

fn columns(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let mut db = Vec::new();
    let mut table_names = Vec::new();
    let mut names = Vec::new();
    let mut types = Vec::new();
    let mut positions = Vec::new();
    let mut kinds = Vec::new();
    let mut exprs = Vec::new();
    let mut comments = Vec::new();
    let mut in_partition = Vec::new();
    let mut in_sorting = Vec::new();
    let mut in_primary = Vec::new();
    let mut codecs = Vec::new();
    let (mut compressed, mut uncompressed, mut marks) = (Vec::new(), Vec::new(), Vec::new());
    for database in shared.catalog.databases() {
        for table in database.tables() {
            let m = &table.meta;
            let mentions = |key: &Option<String>, column: &str| key.as_deref().is_some_and(|k| mentions_identifier(k, column));
            // Sizes summed over the active parts, by column name.
            let mut sizes: HashMap<String, (u64, u64, u64)> = HashMap::new();
            for part in table.engine.parts().into_iter().filter(|p| p.active) {
                for c in part.columns {
                    let entry = sizes.entry(c.name).or_default();
                    entry.0 += c.data_compressed_bytes;
                    entry.1 += c.data_uncompressed_bytes;
                    entry.2 += c.marks_bytes;
                }
            }
            for (i, c) in m.columns.iter().enumerate() {
                let (c_bytes, u_bytes, m_bytes) = sizes.get(&c.name).copied().unwrap_or_default();
                compressed.push(c_bytes);
                uncompressed.push(u_bytes);
                marks.push(m_bytes);
                db.push(database.name.clone());
                table_names.push(m.name.clone());
                names.push(c.name.clone());
                types.push(c.type_name.clone());
                positions.push(i as u64 + 1);
                kinds.push(c.default_kind.clone().unwrap_or_default());
                exprs.push(c.default_expression.clone().unwrap_or_default());
                comments.push(c.comment.clone().unwrap_or_default());
                in_partition.push(mentions(&m.engine.partition_by, &c.name));
                in_sorting.push(mentions(&m.engine.order_by, &c.name));
                in_primary.push(mentions(&m.engine.primary_key.clone().or(m.engine.order_by.clone()), &c.name));
                codecs.push(c.codec.clone().unwrap_or_default());
            }
        }
    }
    // The system tables' own columns, as ClickHouse lists them too; the numbers tables
    // are engines of their own, with the one column `number`.
    let numbers_columns: &[(&str, &str)] = &[("number", "UInt64")];
    let numbers = ["numbers", "numbers_mt"].map(|name| (name, numbers_columns.to_vec()));
    let system_tables = definitions().into_iter().map(|(table, columns, _)| (table, columns)).chain(numbers);
    for (table, table_columns) in system_tables {
        for (i, (name, type_name)) in table_columns.iter().enumerate() {
            db.push("system".to_string());
            table_names.push(table.to_string());
            names.push(name.to_string());
            types.push(type_name.to_string());
            positions.push(i as u64 + 1);
            kinds.push(String::new());
            exprs.push(String::new());
            compressed.push(0);
            uncompressed.push(0);
            marks.push(0);
            comments.push(String::new());
            in_partition.push(false);
            in_sorting.push(false);
            in_primary.push(false);
            codecs.push(String::new());
        }
    }
    Ok(vec![
        strings(db),
        strings(table_names),
        strings(names),
        strings(types),
        u64s(positions),
        strings(kinds),
        strings(exprs),
        u64s(compressed),
        u64s(uncompressed),
        u64s(marks),
        strings(comments),
        u8s(in_partition),
        u8s(in_sorting),
        u8s(in_primary),
        strings(codecs),
    ])
}

/// Whether `column` appears as a whole identifier in a key expression.
fn mentions_identifier(expression: &str, column: &str) -> bool {
    expression
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == column)
}

fn settings(_: &Shared, context: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let s = &context.settings;
    let no_bounds = || Arc::new(StringArray::from(vec![None::<&str>; SETTINGS_REGISTRY.len()])) as ArrayRef;
    Ok(vec![
        strings(SETTINGS_REGISTRY.iter().map(|d| d.name)),
        strings(SETTINGS_REGISTRY.iter().map(|d| s.get(d.name).unwrap_or(d.default))),
        u8s(SETTINGS_REGISTRY.iter().map(|d| s.is_changed(d.name))),
        strings(SETTINGS_REGISTRY.iter().map(|d| d.description)),
        no_bounds(),
        no_bounds(),
        u8s(SETTINGS_REGISTRY.iter().map(|_| false)),
        strings(SETTINGS_REGISTRY.iter().map(|d| d.kind.type_name())),
        strings(SETTINGS_REGISTRY.iter().map(|d| d.default)),
    ])
}

/// The MergeTree settings Granary accepts in `SETTINGS`, at their defaults: the server has
/// no `<merge_tree>` configuration section, so none is ever changed.
fn merge_tree_settings(_: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    use granary_mergetree::settings::SETTINGS;
    let defaults = granary_mergetree::MergeTreeSettings::default();
    let no_bounds = || Arc::new(StringArray::from(vec![None::<&str>; SETTINGS.len()])) as ArrayRef;
    Ok(vec![
        strings(SETTINGS.iter().map(|s| s.name)),
        strings(SETTINGS.iter().map(|s| s.value_in(&defaults))),
        strings(SETTINGS.iter().map(|s| s.value_in(&defaults))),
        u8s(SETTINGS.iter().map(|_| false)),
        strings(SETTINGS.iter().map(|s| s.description)),
        no_bounds(),
        no_bounds(),
        string_lists(SETTINGS.iter().map(|_| Vec::new())),
        u8s(SETTINGS.iter().map(|s| s.readonly)),
        strings(SETTINGS.iter().map(|s| s.type_name)),
        u8s(SETTINGS.iter().map(|_| false)),
        strings(SETTINGS.iter().map(|_| "Production")),
    ])
}

/// The rollup rules of the `graphite_rollup` sections GraphiteMergeTree tables use, as
/// ClickHouse lists them: a row per pattern and retention (oldest first; one with age and
/// precision 0 for a pattern without retention), with the tables using the section.
fn graphite_retentions(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let mut users: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for database in shared.catalog.databases() {
        for table in database.tables() {
            let engine = &table.meta.engine;
            if engine.name != "GraphiteMergeTree" {
                continue;
            }
            let Some(section) = engine.args.first().map(|a| a.trim().trim_matches('\'').to_string()) else { continue };
            let tables = users.entry(section).or_default();
            tables.0.push(database.name.clone());
            tables.1.push(table.meta.name.clone());
        }
    }
    struct Row<'a> {
        config: &'a str,
        pattern: &'a granary_mergetree::graphite::Pattern,
        priority: u16,
        retention: (u64, u64),
        tables: &'a (Vec<String>, Vec<String>),
    }
    let mut rows = Vec::new();
    for (name, tables) in &users {
        let Some(params) = shared.config.graphite_rollups.get(name) else { continue };
        for (priority, pattern) in params.patterns.iter().enumerate() {
            let retentions: Vec<(u64, u64)> = match pattern.retentions.is_empty() {
                true => vec![(0, 0)],
                false => pattern.retentions.iter().map(|r| (r.age, r.precision)).collect(),
            };
            // Counted from 1 in configuration order; the default pattern comes last.
            let priority = match pattern.is_default {
                true => u16::MAX,
                false => u16::try_from(priority + 1).unwrap_or(u16::MAX),
            };
            for retention in retentions {
                rows.push(Row { config: name, pattern, priority, retention, tables });
            }
        }
    }
    Ok(vec![
        strings(rows.iter().map(|r| r.config)),
        strings(rows.iter().map(|r| r.pattern.rule_type.name())),
        strings(rows.iter().map(|r| &r.pattern.regexp_text)),
        strings(rows.iter().map(|r| r.pattern.function.as_ref().map_or("", |f| f.name()))),
        u64s(rows.iter().map(|r| r.retention.0)),
        u64s(rows.iter().map(|r| r.retention.1)),
        Arc::new(arrow::array::UInt16Array::from_iter_values(rows.iter().map(|r| r.priority))),
        u8s(rows.iter().map(|r| r.pattern.is_default)),
        string_lists(rows.iter().map(|r| r.tables.0.clone())),
        string_lists(rows.iter().map(|r| r.tables.1.clone())),
    ])
}

fn functions(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let list = shared.functions.get().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "function list is not ready"))?;
    // Built-in functions, then the SQL user-defined ones (CREATE FUNCTION).
    let defined = shared.sql_functions.list();
    let queries: Vec<String> = defined.iter().map(|f| f.create_query()).collect();
    Ok(vec![
        strings(list.iter().map(|f| f.name.as_str()).chain(defined.iter().map(|f| f.name.as_str()))),
        u8s(list.iter().map(|f| f.is_aggregate).chain(defined.iter().map(|_| false))),
        u8s(list.iter().map(|f| f.case_insensitive).chain(defined.iter().map(|_| false))),
        strings(list.iter().map(|f| f.alias_to.as_str()).chain(defined.iter().map(|_| ""))),
        strings(list.iter().map(|_| "").chain(queries.iter().map(String::as_str))),
        strings(list.iter().map(|_| "System").chain(defined.iter().map(|_| "SQLUserDefined"))),
        strings(list.iter().map(|f| f.description.as_str()).chain(defined.iter().map(|_| ""))),
    ])
}

/// The flags of `system.table_engines`, as ClickHouse sets them for the engines Granary
/// has (settings, skipping indices, projections, sort order, TTL, replication,
/// deduplication, parallel insert); other engines show none.
const ENGINE_FLAGS: [(&str, [bool; 8]); 23] = {
    const MERGE_TREE: [bool; 8] = [true, true, true, true, true, false, false, true];
    const SETTINGS_ONLY: [bool; 8] = [true, false, false, false, false, false, false, false];
    const NONE: [bool; 8] = [false; 8];
    const PARALLEL_INSERT: [bool; 8] = [false, false, false, false, false, false, false, true];
    [
        ("AggregatingMergeTree", MERGE_TREE),
        ("Buffer", PARALLEL_INSERT),
        ("CollapsingMergeTree", MERGE_TREE),
        ("Dictionary", NONE),
        ("File", SETTINGS_ONLY),
        ("GenerateRandom", NONE),
        ("GraphiteMergeTree", MERGE_TREE),
        ("Join", SETTINGS_ONLY),
        ("Log", SETTINGS_ONLY),
        ("MaterializedView", NONE),
        ("Memory", [true, false, false, false, false, false, false, true]),
        ("Merge", NONE),
        ("MergeTree", MERGE_TREE),
        ("Null", PARALLEL_INSERT),
        ("ReplacingMergeTree", MERGE_TREE),
        ("S3", [true, false, false, true, false, false, false, false]),
        ("Set", SETTINGS_ONLY),
        ("StripeLog", SETTINGS_ONLY),
        ("SummingMergeTree", MERGE_TREE),
        ("TinyLog", SETTINGS_ONLY),
        ("URL", SETTINGS_ONLY),
        ("VersionedCollapsingMergeTree", MERGE_TREE),
        ("View", NONE),
    ]
};

fn table_engines(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let names = shared.catalog.registry().names();
    let flags: Vec<[bool; 8]> = names.iter().map(|n| ENGINE_FLAGS.iter().find(|(name, _)| name == n).map(|(_, f)| *f).unwrap_or_default()).collect();
    let mut columns = vec![strings(names.iter())];
    columns.extend((0..8).map(|i| u8s(flags.iter().map(|f| f[i]))));
    Ok(columns)
}

/// ClickHouse's privileges as its `system.privileges` lists them (privilege, aliases,
/// level, parent group), so `SHOW PRIVILEGES` reads the same; Granary checks a subset
/// of them (`granary_access::Privilege`).
const PRIVILEGES: &str = include_str!("privileges.tsv");

fn privileges(_: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let rows: Vec<Vec<&str>> = PRIVILEGES.lines().map(|line| line.split('\t').collect()).filter(|fields: &Vec<&str>| fields.len() == 4).collect();
    let nullable = |i: usize| nullable_strings(rows.iter().map(|r| (r[i] != "\\N").then(|| r[i].to_string())));
    let aliases = rows.iter().map(|r| {
        let inner = r[1].trim_start_matches('[').trim_end_matches(']');
        inner.split(',').filter(|a| !a.is_empty()).map(|a| a.trim_matches('\'').to_string()).collect::<Vec<_>>()
    });
    let item = Arc::new(Field::new("item", arrow::datatypes::DataType::Utf8, false));
    Ok(vec![strings(rows.iter().map(|r| r[0])), string_lists_of(item, aliases), nullable(2), nullable(3)])
}

/// The skipping indices tables declare, with the sizes of their files in the active
/// parts (0 for parts written before the index, as in ClickHouse). Granary's index files
/// are not compressed and have no marks: compressed and uncompressed sizes are the same.
fn data_skipping_indices(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let mut rows: Vec<(String, String, granary_storage::IndexMeta, u64)> = Vec::new();
    for database in shared.catalog.databases() {
        for table in database.tables() {
            if table.meta.indices.is_empty() {
                continue;
            }
            let parts: Vec<granary_storage::PartStatus> = table.engine.parts().into_iter().filter(|p| p.active).collect();
            rows.extend(table.meta.indices.iter().map(|i| {
                let bytes = parts.iter().flat_map(|p| &p.skip_indexes).filter(|(name, _)| *name == i.name).map(|(_, bytes)| bytes).sum();
                (database.name.clone(), table.meta.name.clone(), i.clone(), bytes)
            }));
        }
    }
    Ok(vec![
        strings(rows.iter().map(|r| &r.0)),
        strings(rows.iter().map(|r| &r.1)),
        strings(rows.iter().map(|r| &r.2.name)),
        strings(rows.iter().map(|r| r.2.type_name())),
        strings(rows.iter().map(|r| &r.2.type_full)),
        strings(rows.iter().map(|r| &r.2.expr)),
        strings(rows.iter().map(|_| "Explicit")),
        u64s(rows.iter().map(|r| r.2.granularity)),
        u64s(rows.iter().map(|r| r.3)),
        u64s(rows.iter().map(|r| r.3)),
        u64s(rows.iter().map(|_| 0)),
    ])
}

fn build_options(_: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let rows = [
        ("VERSION_FULL", format!("Granary {}", env!("CARGO_PKG_VERSION"))),
        ("VERSION_DESCRIBE", format!("v{}", env!("CARGO_PKG_VERSION"))),
        ("VERSION_INTEGER", crate::CLICKHOUSE_COMPATIBLE_VERSION.replace('.', "")),
        ("BUILD_TYPE", if cfg!(debug_assertions) { "Debug".into() } else { "Release".into() }),
        ("SYSTEM", format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)),
        ("ENGINE", "DataFusion 55".into()),
        ("COMPATIBLE_CLICKHOUSE_VERSION", crate::CLICKHOUSE_COMPATIBLE_VERSION.into()),
    ];
    Ok(vec![strings(rows.iter().map(|r| r.0)), strings(rows.iter().map(|r| r.1.as_str()))])
}

fn formats(_: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let inputs = granary_formats::input_format_names();
    let outputs = granary_formats::output_format_names();
    let mut names: Vec<&str> = inputs.iter().chain(outputs.iter()).copied().collect();
    names.sort_unstable();
    names.dedup();
    Ok(vec![
        strings(names.iter()),
        u8s(names.iter().map(|n| inputs.contains(n))),
        u8s(names.iter().map(|n| outputs.contains(n))),
    ])
}

fn query_log(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let entries = shared.query_log.snapshot();
    Ok(vec![
        strings(entries.iter().map(|e| e.log_type.name())),
        event_date(entries.iter().map(|e| e.event_time_us)),
        event_time(entries.iter().map(|e| e.event_time_us)),
        event_time_us(entries.iter().map(|e| e.event_time_us)),
        event_time(entries.iter().map(|e| e.query_start_time_us)),
        event_time_us(entries.iter().map(|e| e.query_start_time_us)),
        u64s(entries.iter().map(|e| e.query_duration_ms)),
        u64s(entries.iter().map(|e| e.read_rows)),
        u64s(entries.iter().map(|e| e.read_bytes)),
        u64s(entries.iter().map(|e| e.written_rows)),
        u64s(entries.iter().map(|e| e.written_bytes)),
        u64s(entries.iter().map(|e| e.result_rows)),
        u64s(entries.iter().map(|e| e.result_bytes)),
        u64s(entries.iter().map(|e| e.memory_usage)),
        strings(entries.iter().map(|e| &e.current_database)),
        strings(entries.iter().map(|e| &e.query)),
        strings(entries.iter().map(|e| &e.query_kind)),
        Arc::new(Int32Array::from_iter_values(entries.iter().map(|e| e.exception_code))),
        strings(entries.iter().map(|e| &e.exception)),
        strings(entries.iter().map(|e| &e.user)),
        strings(entries.iter().map(|e| &e.query_id)),
        strings(entries.iter().map(|e| &e.query_id)),
        u8s(entries.iter().map(|_| true)),
        strings(entries.iter().map(|e| &e.log_comment)),
        low_cardinality_string_lists(entries.iter().map(|e| e.databases.clone())),
        low_cardinality_string_lists(entries.iter().map(|e| e.tables.clone())),
        low_cardinality_string_lists(entries.iter().map(|e| e.columns.clone())),
    ])
}

/// `event_date`, `event_time` and `event_time_microseconds` of a system log, from
/// microseconds since the epoch.
fn event_date(us: impl Iterator<Item = i64>) -> ArrayRef {
    Arc::new(Date32Array::from_iter_values(us.map(|us| us.div_euclid(86_400_000_000) as i32)))
}

fn event_time(us: impl Iterator<Item = i64>) -> ArrayRef {
    Arc::new(TimestampSecondArray::from_iter_values(us.map(|us| us.div_euclid(1_000_000))))
}

fn event_time_us(us: impl Iterator<Item = i64>) -> ArrayRef {
    Arc::new(TimestampMicrosecondArray::from_iter_values(us))
}

fn schema_inference_cache(_: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let rows = granary_io::schema_cache::rows();
    Ok(vec![
        strings(rows.iter().map(|r| r.storage)),
        strings(rows.iter().map(|r| &r.source)),
        strings(rows.iter().map(|r| &r.format)),
        strings(rows.iter().map(|r| &r.additional_format_info)),
        Arc::new(TimestampSecondArray::from_iter_values(rows.iter().map(|r| r.registration_time))),
        Arc::new(arrow::array::StringArray::from_iter(rows.iter().map(|r| Some(r.schema.as_str())))),
        Arc::new(arrow::array::UInt64Array::from_iter(rows.iter().map(|_| None::<u64>))),
        Arc::new(arrow::array::StringArray::from_iter(rows.iter().map(|_| Some("default")))),
    ])
}

/// Values are never shown, as in ClickHouse without `display_secrets_in_show_and_select`
/// in its config (reading the table needs NAMED COLLECTION ADMIN).
fn named_collections(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    use arrow::array::{MapBuilder, MapFieldNames, StringBuilder};
    use granary_io::named_collections::HIDDEN_VALUE;
    let snapshot = shared.named_collections.snapshot();
    let names = MapFieldNames { entry: "entries".into(), key: "key".into(), value: "value".into() };
    let mut map = MapBuilder::new(Some(names), StringBuilder::new(), StringBuilder::new())
        .with_values_field(Arc::new(arrow::datatypes::Field::new("value", arrow::datatypes::DataType::Utf8, false)));
    for collection in snapshot.values() {
        for key in collection.entries.keys() {
            map.keys().append_value(key);
            map.values().append_value(HIDDEN_VALUE);
        }
        map.append(true)?;
    }
    Ok(vec![
        strings(snapshot.keys()),
        Arc::new(map.finish()),
        strings(snapshot.values().map(|c| c.source.name())),
        strings(snapshot.values().map(|c| if c.source == granary_io::named_collections::Source::Sql { c.create_query_hidden() } else { String::new() })),
    ])
}

fn text_log(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let entries = shared.text_log.snapshot();
    Ok(vec![
        event_date(entries.iter().map(|e| e.event_time_us)),
        event_time(entries.iter().map(|e| e.event_time_us)),
        event_time_us(entries.iter().map(|e| e.event_time_us)),
        strings(entries.iter().map(|e| &e.thread_name)),
        u64s(entries.iter().map(|e| e.thread_id)),
        strings(entries.iter().map(|e| e.level.name())),
        strings(entries.iter().map(|e| &e.query_id)),
        strings(entries.iter().map(|e| &e.logger_name)),
        strings(entries.iter().map(|e| &e.message)),
        strings(entries.iter().map(|e| &e.source_file)),
        u64s(entries.iter().map(|e| e.source_line)),
    ])
}

/// The protocol revision of the Native format this server writes (ClickHouse's
/// `trace_log.revision` is its build's revision).
const SERVER_REVISION: u32 = 54480;

fn trace_log(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let entries = shared.trace_log.snapshot();
    let micros = || entries.iter().map(|e| (e.timestamp_ns / 1000) as i64);
    let host = granary_functions::system::host_name();
    let item = Arc::new(ChType::UInt64.to_arrow_field("item"));
    let mut traces = arrow::array::ListBuilder::new(UInt64Array::builder(0)).with_field(item);
    for entry in &entries {
        traces.values().append_slice(&entry.trace);
        traces.append(true);
    }
    Ok(vec![
        strings(entries.iter().map(|_| host.as_str())),
        event_date(micros()),
        event_time(micros()),
        event_time_us(micros()),
        u64s(entries.iter().map(|e| e.timestamp_ns)),
        Arc::new(arrow::array::UInt32Array::from_iter_values(entries.iter().map(|_| SERVER_REVISION))),
        Arc::new(arrow::array::Int8Array::from_iter_values(entries.iter().map(|e| e.trace_type))),
        u64s(entries.iter().map(|e| e.thread_id)),
        strings(entries.iter().map(|e| &e.query_id)),
        Arc::new(traces.finish()),
        Arc::new(arrow::array::Int64Array::from_iter_values(entries.iter().map(|_| 0))),
        u64s(entries.iter().map(|_| 0)),
        strings(entries.iter().map(|_| "")),
        Arc::new(arrow::array::Int64Array::from_iter_values(entries.iter().map(|_| 0))),
    ])
}

/// Gauges computed when the table is read (ClickHouse refreshes them every second;
/// reading them here is cheap enough to be exact instead).
fn asynchronous_metrics(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let metrics = asynchronous_metric_values(shared);
    Ok(vec![
        strings(metrics.iter().map(|m| m.0)),
        Arc::new(Float64Array::from_iter_values(metrics.iter().map(|m| m.1))),
        strings(metrics.iter().map(|m| m.2)),
    ])
}

/// Values computed on demand (caches, parts, memory, uptime): `system.asynchronous_metrics`
/// and the `ClickHouseAsyncMetrics_` lines of `/metrics`.
pub(crate) fn asynchronous_metric_values(shared: &Shared) -> Vec<(&'static str, f64, &'static str)> {
    let cache = granary_mergetree::cache::uncompressed_cache().stats();
    let mark_cache = granary_mergetree::cache::mark_cache().stats();
    let (mut tables, mut parts, mut rows, mut bytes) = (0u64, 0u64, 0u64, 0u64);
    let databases = shared.catalog.databases();
    for database in &databases {
        for table in database.tables() {
            tables += 1;
            for part in table.engine.parts().iter().filter(|p| p.active) {
                parts += 1;
                rows += part.rows;
                bytes += part.bytes_on_disk;
            }
        }
    }
    let page = 4096.0;
    let resident = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()))
        .map(|pages| pages * page)
        .unwrap_or(0.0);
    let metrics: Vec<(&str, f64, &str)> = vec![
        ("UncompressedCacheBytes", cache.bytes as f64, "Bytes of decompressed MergeTree blocks in the uncompressed cache."),
        ("UncompressedCacheCells", cache.cells as f64, "Blocks in the uncompressed cache."),
        ("UncompressedCacheMaxBytes", cache.capacity as f64, "Size limit of the uncompressed cache (uncompressed_cache_size)."),
        ("QueryPlanCacheEntries", shared.plan_cache.len() as f64, "Physical plans kept for reuse (queries that read no stored data)."),
        ("MarkCacheBytes", mark_cache.bytes as f64, "Bytes of MergeTree marks in the mark cache."),
        ("MarkCacheFiles", mark_cache.cells as f64, "Marks files (one column of one part) in the mark cache."),
        ("MarkCacheMaxBytes", mark_cache.capacity as f64, "Size limit of the mark cache (mark_cache_size)."),
        ("NumberOfDatabases", databases.len() as f64, "Databases."),
        ("NumberOfTables", tables as f64, "Tables in all databases (system tables excluded)."),
        ("TotalPartsOfMergeTreeTables", parts as f64, "Active parts of all MergeTree tables."),
        ("TotalRowsOfMergeTreeTables", rows as f64, "Rows in active parts of all MergeTree tables."),
        ("TotalBytesOfMergeTreeTables", bytes as f64, "Bytes on disk of active parts of all MergeTree tables."),
        ("MemoryResident", resident, "Resident memory of the server process in bytes."),
        ("Uptime", shared.started.elapsed().as_secs_f64(), "Seconds since the server started."),
        ("TraceCollectorDroppedSamples", granary_profiler::dropped_samples() as f64, "Query profiler samples dropped because the collector's pipe was full."),
    ];
    metrics
}

/// Counters since the server started; ClickHouse lists only events that happened.
fn events(_: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let events: Vec<_> = granary_common::metrics::Event::ALL.iter().filter(|e| e.value() > 0).collect();
    Ok(vec![strings(events.iter().map(|e| e.name())), u64s(events.iter().map(|e| e.value())), strings(events.iter().map(|e| e.description()))])
}

/// Gauges of what is happening now.
fn metrics(_: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let metrics = granary_common::metrics::Metric::ALL;
    Ok(vec![
        strings(metrics.iter().map(|m| m.name())),
        Arc::new(arrow::array::Int64Array::from_iter_values(metrics.iter().map(|m| m.value()))),
        strings(metrics.iter().map(|m| m.description())),
    ])
}

fn part_log(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let entries = shared.part_log.snapshot();
    Ok(vec![
        strings(entries.iter().map(|e| &e.event_type)),
        event_date(entries.iter().map(|e| e.event_time_us)),
        event_time(entries.iter().map(|e| e.event_time_us)),
        event_time_us(entries.iter().map(|e| e.event_time_us)),
        u64s(entries.iter().map(|e| e.duration_ms)),
        strings(entries.iter().map(|e| &e.database)),
        strings(entries.iter().map(|e| &e.table)),
        strings(entries.iter().map(|e| &e.part_name)),
        strings(entries.iter().map(|e| &e.partition_id)),
        u64s(entries.iter().map(|e| e.rows)),
        u64s(entries.iter().map(|e| e.size_in_bytes)),
        string_lists(entries.iter().map(|e| e.merged_from.clone())),
        u64s(entries.iter().map(|e| e.read_rows)),
    ])
}

fn merges(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let mut rows: Vec<(String, String, granary_storage::MergeStatus)> = Vec::new();
    for database in shared.catalog.databases() {
        for table in database.tables() {
            for m in table.engine.merges() {
                rows.push((database.name.clone(), table.meta.name.clone(), m));
            }
        }
    }
    Ok(vec![
        strings(rows.iter().map(|r| &r.0)),
        strings(rows.iter().map(|r| &r.1)),
        Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.2.elapsed))),
        Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.2.progress))),
        u64s(rows.iter().map(|r| r.2.num_parts)),
        string_lists(rows.iter().map(|r| r.2.source_part_names.clone())),
        strings(rows.iter().map(|r| &r.2.result_part_name)),
        strings(rows.iter().map(|r| &r.2.partition_id)),
        u8s(rows.iter().map(|r| r.2.is_mutation)),
        u64s(rows.iter().map(|r| r.2.total_size_bytes_compressed)),
        u64s(rows.iter().map(|r| r.2.rows_read)),
        u64s(rows.iter().map(|r| r.2.rows_written)),
    ])
}

fn mutations(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let mut rows: Vec<(String, String, granary_storage::MutationStatus)> = Vec::new();
    for database in shared.catalog.databases() {
        for table in database.tables() {
            for m in table.engine.mutations() {
                rows.push((database.name.clone(), table.meta.name.clone(), m));
            }
        }
    }
    let times = |f: fn(&granary_storage::MutationStatus) -> i64| Arc::new(TimestampSecondArray::from_iter_values(rows.iter().map(|r| f(&r.2)))) as ArrayRef;
    Ok(vec![
        strings(rows.iter().map(|r| &r.0)),
        strings(rows.iter().map(|r| &r.1)),
        strings(rows.iter().map(|r| &r.2.mutation_id)),
        strings(rows.iter().map(|r| &r.2.command)),
        times(|m| m.create_time),
        times(|m| m.finish_time),
        string_lists(rows.iter().map(|r| r.2.parts_in_progress_names.clone())),
        string_lists(rows.iter().map(|r| r.2.parts_to_do_names.clone())),
        Arc::new(arrow::array::Int64Array::from_iter_values(rows.iter().map(|r| r.2.parts_to_do))),
        u8s(rows.iter().map(|r| r.2.is_done)),
        // A killed mutation is gone at once: none is listed as killed.
        u8s(rows.iter().map(|_| false)),
        strings(rows.iter().map(|r| &r.2.latest_failed_part)),
        times(|m| m.latest_fail_time),
        strings(rows.iter().map(|r| &r.2.latest_fail_reason)),
        strings(rows.iter().map(|r| &r.2.latest_fail_error_code_name)),
    ])
}

fn asynchronous_inserts(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let rows = shared.async_inserts.snapshot();
    Ok(vec![
        strings(rows.iter().map(|r| &r.query)),
        strings(rows.iter().map(|r| &r.database)),
        strings(rows.iter().map(|r| &r.table)),
        strings(rows.iter().map(|r| &r.format)),
        event_time_us(rows.iter().map(|r| r.first_update_us)),
        u64s(rows.iter().map(|r| r.total_bytes)),
        string_lists(rows.iter().map(|r| r.query_ids.clone())),
        crate::system_access::u64_lists(rows.iter().map(|r| r.bytes.clone())),
    ])
}

fn processes(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let running = shared.processes.snapshot();
    let snaps: Vec<_> = running.iter().map(|p| p.progress.snapshot()).collect();
    Ok(vec![
        u8s(running.iter().map(|_| true)),
        strings(running.iter().map(|p| &p.user)),
        strings(running.iter().map(|p| &p.query_id)),
        Arc::new(Float64Array::from_iter_values(snaps.iter().map(|s| s.elapsed_ns as f64 / 1e9))),
        u64s(snaps.iter().map(|s| s.read_rows)),
        u64s(snaps.iter().map(|s| s.read_bytes)),
        u64s(snaps.iter().map(|s| s.total_rows_to_read)),
        u64s(snaps.iter().map(|s| s.written_rows)),
        u64s(snaps.iter().map(|s| s.written_bytes)),
        Arc::new(arrow::array::Int64Array::from_iter_values(snaps.iter().map(|s| s.peak_memory as i64))),
        strings(running.iter().map(|p| &p.query)),
        strings(running.iter().map(|p| &p.current_database)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_types_parse() {
        for (name, columns, _) in definitions() {
            for (column, type_name) in columns {
                ChType::parse(type_name).unwrap_or_else(|e| panic!("system.{name}.{column}: {e}"));
            }
        }
    }

    #[test]
    fn sorting_key_display() {
        assert_eq!(strip_tuple_parens("(a, b)".into()), "a, b");
        assert_eq!(strip_tuple_parens("(a + 1) * (b)".into()), "(a + 1) * (b)");
        assert!(mentions_identifier("toYYYYMM(ts)", "ts"));
        assert!(!mentions_identifier("toYYYYMM(ts2)", "ts"));
    }
}
