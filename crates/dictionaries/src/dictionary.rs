//! A dictionary at run time: its loaded rows, load status, reloads, and the table-engine
//! face (`SELECT * FROM dict`, system.tables).
//!
//! Loading reads the whole source into one batch and indexes its key. A reload builds a
//! complete new copy and swaps an `Arc`, so a query sees the old copy or the new one,
//! never half of either; a per-dictionary async mutex makes reloads one at a time.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, UInt32Array};
use arrow::compute::concat_batches;
use arrow::datatypes::{DataType, FieldRef, Int64Type, SchemaRef, UInt64Type};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::ScalarValue;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{DuplicateKeys, EngineContext, EngineFactory, InsertRequest, InsertResult, KeyIndex, KeyLookup, Table, TableEngine, TableMeta};
use parking_lot::{Mutex, RwLock};

use crate::config_files::{ConfigDictionary, ConfigFiles};
use crate::definition::{DictionaryDefinition, KeyOrder, Layout, RangeColumns, RangeStrategy, FLAT_MAX_ARRAY_SIZE};
use crate::hierarchy::Hierarchy;
use crate::ip_trie::IpPrefixIndex;

/// Registry keys of dictionaries from configuration files: `config:<name>`.
pub const CONFIG_KEY_PREFIX: &str = "config:";

/// Runs SELECTs on this server for dictionary sources. Implemented by the query layer,
/// which owns parsing and execution; held weakly so a dictionary does not keep the server
/// alive.
#[async_trait]
pub trait SourceRunner: Send + Sync {
    /// Runs `sql` with `database` as the current database and returns every row.
    /// `files_root`, when given, is the directory `file()` may read instead of
    /// `user_files_path` (a FILE source of a dictionary the server config defines).
    async fn select(&self, database: &str, sql: &str, files_root: Option<&std::path::Path>) -> Result<Vec<RecordBatch>>;
}

/// One loaded copy of a dictionary.
#[derive(Debug)]
pub struct LoadedDictionary {
    /// Key columns and attributes, in declaration order.
    pub rows: RecordBatch,
    pub index: RowIndex,
    /// Per column: the value a lookup of a missing key returns (the attribute's
    /// `DEFAULT`, else the type's default).
    pub defaults: Vec<ScalarValue>,
    /// The ranges of a `RANGE_HASHED` dictionary.
    pub ranges: Option<RangeIndex>,
    /// Rows the source gave.
    pub source_rows: usize,
    /// The parent links of a dictionary with a `HIERARCHICAL` attribute.
    pub hierarchy: Option<Hierarchy>,
}

/// How a loaded dictionary finds the row of a key.
#[derive(Debug)]
pub enum RowIndex {
    /// A hash index over the key columns.
    Keys(KeyIndex),
    /// Network prefixes of an `IP_TRIE` dictionary.
    IpPrefixes(IpPrefixIndex),
}

impl RowIndex {
    /// Distinct keys (prefixes) indexed.
    pub fn len(&self) -> usize {
        match self {
            RowIndex::Keys(index) => index.len(),
            RowIndex::IpPrefixes(index) => index.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn allocated_bytes(&self) -> usize {
        match self {
            RowIndex::Keys(index) => index.allocated_bytes(),
            RowIndex::IpPrefixes(index) => index.allocated_bytes(),
        }
    }
}

impl LoadedDictionary {
    /// What system.dictionaries counts: keys, the rows (key and range) of a range
    /// dictionary, or the source rows of an `IP_TRIE` one (duplicates included), as
    /// ClickHouse counts them.
    pub fn element_count(&self) -> usize {
        match &self.index {
            _ if self.ranges.is_some() => self.rows.num_rows(),
            RowIndex::IpPrefixes(_) => self.source_rows,
            RowIndex::Keys(index) => index.len(),
        }
    }

    /// system.dictionaries' `bytes_allocated`.
    pub fn allocated_bytes(&self) -> usize {
        self.rows.get_array_memory_size() + self.index.allocated_bytes() + self.hierarchy.as_ref().map_or(0, Hierarchy::allocated_bytes)
    }
}

/// The rows of each key of a `RANGE_HASHED` dictionary with their ranges. `index` maps a
/// key to one of its rows (its representative); `by_key` lists every row of that key.
#[derive(Debug)]
pub struct RangeIndex {
    by_key: HashMap<u32, Vec<RangeRow>>,
    strategy: RangeStrategy,
    /// The range columns' type: lookup points are converted to it first.
    point_type: DataType,
}

#[derive(Debug, Clone, Copy)]
struct RangeRow {
    min: i64,
    max: i64,
    row: u32,
}

impl RangeIndex {
    /// Groups the rows by key (`representatives`: each row's key probed in the index)
    /// with their bounds as i64 (NULL bounds open: `i64::MIN` / `i64::MAX`).
    fn build(rows: &RecordBatch, columns: RangeColumns, representatives: &UInt32Array) -> Result<RangeIndex> {
        let bound = |column: usize| -> Result<ArrayRef> { Ok(arrow::compute::cast(rows.column(column), &DataType::Int64)?) };
        let (min, max) = (bound(columns.min)?, bound(columns.max)?);
        let (min, max) = (min.as_primitive::<Int64Type>(), max.as_primitive::<Int64Type>());
        let mut by_key: HashMap<u32, Vec<RangeRow>> = HashMap::new();
        for (row, representative) in representatives.iter().enumerate() {
            let Some(representative) = representative else { continue };
            let min = if min.is_null(row) { i64::MIN } else { min.value(row) };
            let max = if max.is_null(row) { i64::MAX } else { max.value(row) };
            by_key.entry(representative).or_default().push(RangeRow { min, max, row: row as u32 });
        }
        for ranges in by_key.values_mut() {
            ranges.sort_by_key(|r| (r.min, r.max));
        }
        Ok(RangeIndex { by_key, strategy: columns.strategy, point_type: rows.schema().field(columns.min).data_type().clone() })
    }

    /// For each (key row, point): the row whose range contains the point, per strategy.
    fn select(&self, representatives: &UInt32Array, points: &ArrayRef) -> Result<UInt32Array> {
        let points = match points.data_type() {
            t if t.is_integer() => arrow::compute::cast(points, &DataType::Int64)?,
            // Dates and times are compared in the range columns' unit (a DateTime point
            // in a Date range is its day).
            _ => arrow::compute::cast(&arrow::compute::cast(points, &self.point_type)?, &DataType::Int64)?,
        };
        let points = points.as_primitive::<Int64Type>();
        Ok(representatives
            .iter()
            .zip(points.iter())
            .map(|(representative, point)| {
                let (ranges, point) = (self.by_key.get(&representative?)?, point?);
                let mut matching = ranges.iter().filter(|r| r.min <= point && point <= r.max);
                match self.strategy {
                    RangeStrategy::Min => matching.next(),
                    RangeStrategy::Max => matching.last(),
                }
                .map(|r| r.row)
            })
            .collect())
    }
}

#[derive(Debug, Clone, Default)]
pub struct LoadStatus {
    /// `NOT_LOADED`, `LOADED`, `FAILED`, `LOADING`, `FAILED_AND_RELOADING`, `LOADED_AND_RELOADING`.
    pub status: &'static str,
    pub loading_start_time: Option<SystemTime>,
    pub last_successful_update_time: Option<SystemTime>,
    pub loading_duration: Duration,
    /// The last load failure, as ClickHouse prints it (`Code: N. DB::Exception: ...`).
    pub last_exception: Option<String>,
    /// Failed loads since the last successful one.
    pub error_count: u64,
    /// When a LIFETIME reload is due.
    pub next_update: Option<Instant>,
}

#[derive(Debug)]
pub struct Dictionary {
    pub definition: DictionaryDefinition,
    loaded: RwLock<Option<Arc<LoadedDictionary>>>,
    status: Mutex<LoadStatus>,
    load_lock: tokio::sync::Mutex<()>,
    pub query_count: std::sync::atomic::AtomicU64,
    pub found_count: std::sync::atomic::AtomicU64,
    pub lookup_count: std::sync::atomic::AtomicU64,
}

impl Dictionary {
    pub fn new(definition: DictionaryDefinition) -> Dictionary {
        Dictionary {
            definition,
            loaded: RwLock::new(None),
            status: Mutex::new(LoadStatus { status: "NOT_LOADED", ..LoadStatus::default() }),
            load_lock: tokio::sync::Mutex::new(()),
            query_count: Default::default(),
            found_count: Default::default(),
            lookup_count: Default::default(),
        }
    }

    pub fn status(&self) -> LoadStatus {
        self.status.lock().clone()
    }

    pub fn current(&self) -> Option<Arc<LoadedDictionary>> {
        self.loaded.read().clone()
    }

    /// The loaded copy, loading it first if there is none (or, for `DIRECT`, always).
    pub async fn ensure_loaded(&self, runner: &dyn SourceRunner) -> Result<Arc<LoadedDictionary>> {
        if self.definition.layout != Layout::Direct {
            if let Some(loaded) = self.current() {
                return Ok(loaded);
            }
        }
        self.load(runner, self.definition.layout == Layout::Direct).await
    }

    /// Loads the source and swaps the new copy in. With `force = false`, a copy loaded by
    /// a concurrent caller while this one waited is returned instead.
    pub async fn load(&self, runner: &dyn SourceRunner, force: bool) -> Result<Arc<LoadedDictionary>> {
        let _one_at_a_time = self.load_lock.lock().await;
        if !force {
            if let Some(loaded) = self.current() {
                return Ok(loaded);
            }
        }
        let started = Instant::now();
        {
            let mut status = self.status.lock();
            status.status = match status.status {
                "LOADED" | "LOADED_AND_RELOADING" => "LOADED_AND_RELOADING",
                "FAILED" | "FAILED_AND_RELOADING" => "FAILED_AND_RELOADING",
                _ => "LOADING",
            };
            status.loading_start_time = Some(SystemTime::now());
        }
        let result = self.read_source(runner).await;
        let mut status = self.status.lock();
        status.loading_duration = started.elapsed();
        status.next_update = self.next_update_after(Instant::now());
        match result {
            Ok(loaded) => {
                let loaded = Arc::new(loaded);
                *self.loaded.write() = Some(loaded.clone());
                status.status = "LOADED";
                status.last_successful_update_time = Some(SystemTime::now());
                status.last_exception = None;
                // ClickHouse counts the errors since the last successful load.
                status.error_count = 0;
                Ok(loaded)
            }
            Err(e) => {
                status.status = if self.current().is_some() { "LOADED" } else { "FAILED" };
                status.error_count += 1;
                status.last_exception = Some(e.to_clickhouse_string());
                Err(e)
            }
        }
    }

    /// A uniformly random point in `[MIN, MAX]` seconds from now, as ClickHouse spreads
    /// reloads so that dictionaries sharing a source do not all hit it at once.
    fn next_update_after(&self, now: Instant) -> Option<Instant> {
        let (min, max) = (self.definition.lifetime_min, self.definition.lifetime_max);
        if max == 0 || self.definition.layout == Layout::Direct {
            return None;
        }
        let spread = max - min;
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos() as u64).unwrap_or(0);
        let offset = if spread == 0 { 0 } else { nanos % (spread * 1000) };
        Some(now + Duration::from_secs(min) + Duration::from_millis(offset))
    }

    /// Whether a LIFETIME reload is due (only for a dictionary that was loaded once).
    pub fn reload_due(&self, now: Instant) -> bool {
        let status = self.status.lock();
        status.status != "NOT_LOADED" && status.next_update.is_some_and(|t| t <= now)
    }

    async fn read_source(&self, runner: &dyn SourceRunner) -> Result<LoadedDictionary> {
        let definition = &self.definition;
        let ch_types: Vec<String> = definition.schema.fields().iter().map(|f| granary_types::ChType::from_field(f).to_string()).collect();
        let sql = definition.load_query(&ch_types);
        let context = |e: Error| {
            let message = format!("Cannot load dictionary {}: {}", definition.full_name(), e.message());
            Error::new(e.code(), message)
        };
        // ClickHouse runs a QUERY source in the `default` database; a TABLE without DB is
        // the dictionary's own database's.
        let database = match &definition.source {
            crate::definition::Source::ClickHouse { query: Some(_), .. } => "default",
            _ => definition.query_database(),
        };
        let batches = runner.select(database, &sql, definition.files_root.as_deref()).await.map_err(context)?;
        let defaults = self.default_values(runner).await.map_err(context)?;
        let batches = batches.iter().map(|b| conform(b, &definition.schema)).collect::<Result<Vec<_>>>()?;
        let rows = concat_batches(&definition.schema, batches.iter())?;
        let source_rows = rows.num_rows();
        let keys: Vec<ArrayRef> = definition.key_columns.iter().map(|&i| rows.column(i).clone()).collect();
        if definition.layout == Layout::IpTrie {
            let key_column = definition.key_columns[0];
            let built = IpPrefixIndex::build(&rows.column(key_column).clone())?;
            let rows = crate::ip_trie::reorder_rows(&rows, key_column, &built)?;
            return Ok(LoadedDictionary { rows, index: RowIndex::IpPrefixes(built.index), defaults, ranges: None, source_rows, hierarchy: None });
        }
        if definition.layout == Layout::Flat {
            check_flat_keys(&keys[0])?;
        }
        // As in ClickHouse, a hashed layout keeps the first row of a repeated key; the
        // others (an array, a cache, the source itself) the last.
        let duplicates = if definition.layout == Layout::Hashed { DuplicateKeys::KeepFirst } else { DuplicateKeys::KeepLast };
        let mut index = KeyIndex::build(&keys, duplicates)?;
        let ranges = match definition.range {
            Some(columns) => Some(RangeIndex::build(&rows, columns, &index.probe(&keys)?)?),
            None => None,
        };
        let mut rows = rows;
        if ranges.is_none() && index.len() < rows.num_rows() {
            // Only the rows the index kept, so that the dictionary reads as it answers.
            let kept: UInt32Array = index.probe(&keys)?.iter().enumerate().filter(|(row, kept)| *kept == Some(*row as u32)).map(|(row, _)| Some(row as u32)).collect();
            rows = arrow::compute::take_record_batch(&rows, &kept)?;
            let keys: Vec<ArrayRef> = definition.key_columns.iter().map(|&i| rows.column(i).clone()).collect();
            index = KeyIndex::build(&keys, duplicates)?;
        }
        let hierarchy = match (definition.hierarchical, definition.layout) {
            (Some(parent_column), Layout::Flat | Layout::Hashed | Layout::Cache | Layout::Direct) => {
                Some(build_hierarchy(&rows, definition.key_columns[0], parent_column, &defaults[parent_column], definition.key_order, source_rows)?)
            }
            _ => None,
        };
        Ok(LoadedDictionary { rows, index: RowIndex::Keys(index), defaults, ranges, source_rows, hierarchy })
    }

    /// Evaluates the attributes' DEFAULT expressions, cast to their types, in one SELECT.
    async fn default_values(&self, runner: &dyn SourceRunner) -> Result<Vec<ScalarValue>> {
        let definition = &self.definition;
        let fields = definition.schema.fields();
        let mut expressions = Vec::new();
        for (i, field) in fields.iter().enumerate() {
            if let Some(expr) = &definition.defaults[i] {
                expressions.push((i, format!("CAST(({expr}) AS {})", granary_types::ChType::from_field(field))));
            }
        }
        let mut values: Vec<ScalarValue> = fields
            .iter()
            .map(|f| {
                if f.is_nullable() {
                    ScalarValue::try_from(f.data_type())
                } else {
                    ScalarValue::new_default(f.data_type())
                }
            })
            .collect::<std::result::Result<_, _>>()?;
        if expressions.is_empty() {
            return Ok(values);
        }
        let sql = format!("SELECT {}", expressions.iter().map(|(_, e)| e.as_str()).collect::<Vec<_>>().join(", "));
        let batches = runner.select(definition.query_database(), &sql, None).await?;
        let batch = batches.iter().find(|b| b.num_rows() > 0).ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "DEFAULT expressions gave no row"))?;
        for (column, (i, _)) in expressions.iter().enumerate() {
            let value = ScalarValue::try_from_array(batch.column(column), 0)?;
            values[*i] = value.cast_to(fields[*i].data_type())?;
        }
        Ok(values)
    }

    /// The row of each key (and, in a range dictionary, of each point), if any.
    pub fn rows(&self, loaded: &LoadedDictionary, keys: &[ArrayRef], points: Option<&ArrayRef>) -> Result<UInt32Array> {
        self.rows_of_arguments(loaded, keys, None, points)
    }

    /// [`Self::rows`] for keys as a function received them: the key of an `IP_TRIE`
    /// dictionary is an address, whose form its argument field (`fields`) tells.
    pub fn rows_of_arguments(&self, loaded: &LoadedDictionary, keys: &[ArrayRef], fields: Option<&[FieldRef]>, points: Option<&ArrayRef>) -> Result<UInt32Array> {
        let index = match &loaded.index {
            RowIndex::Keys(index) => index,
            RowIndex::IpPrefixes(prefixes) => {
                let [address] = keys else {
                    return Err(Error::new(ErrorCode::TYPE_MISMATCH, "Key does not match, expected either IPv4 (or UInt32) or IPv6 (or FixedString(16))"));
                };
                return prefixes.lookup_column(address, fields.and_then(|f| f.first()));
            }
        };
        let rows = index.probe(keys)?;
        match (&loaded.ranges, points) {
            (None, None) => Ok(rows),
            (Some(ranges), Some(points)) => ranges.select(&rows, points),
            (Some(_), None) => Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Dictionary {} is a range dictionary: a lookup needs the key and a point of the range", self.definition.name))),
            (None, Some(_)) => Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, format!("Dictionary {} is not a range dictionary: a lookup takes only the key", self.definition.name))),
        }
    }

    /// Gathers `attribute` at `rows` (from [`Self::rows`]): values of missing keys are the
    /// attribute's default (`or_default` replaces it per row; `or_null` gives NULL).
    pub fn get(&self, loaded: &LoadedDictionary, rows: &UInt32Array, attribute: usize, missing: Missing<'_>) -> Result<(ArrayRef, BooleanArray)> {
        let (values, found) = granary_storage::lookup::gather(loaded.rows.column(attribute), rows)?;
        self.lookup_count.fetch_add(rows.len() as u64, std::sync::atomic::Ordering::Relaxed);
        self.found_count.fetch_add(found.true_count() as u64, std::sync::atomic::Ordering::Relaxed);
        let values = match missing {
            Missing::Null => values,
            Missing::Default => {
                let default = loaded.defaults[attribute].to_scalar()?;
                arrow::compute::kernels::zip::zip(&found, &values, &default)?
            }
            Missing::Values(defaults) => arrow::compute::kernels::zip::zip(&found, &values, defaults)?,
        };
        Ok((values, found))
    }
}

/// What a lookup returns for a key that is absent.
pub enum Missing<'a> {
    Default,
    Null,
    Values(&'a ArrayRef),
}

/// The batch under the dictionary's schema (names and ClickHouse type metadata), its
/// columns cast where the source's Arrow types differ.
fn conform(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    if batch.num_columns() != schema.fields().len() {
        return Err(Error::new(
            ErrorCode::NUMBER_OF_COLUMNS_DOESNT_MATCH,
            format!("The source returned {} columns, the dictionary has {}", batch.num_columns(), schema.fields().len()),
        ));
    }
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(column, field)| {
            if column.data_type() == field.data_type() {
                Ok(column.clone())
            } else {
                Ok(arrow::compute::cast(column, field.data_type())?)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

/// The parent links of every row (keys are unique by now) and the attribute's null value.
fn build_hierarchy(rows: &RecordBatch, key_column: usize, parent_column: usize, null_value: &ScalarValue, key_order: KeyOrder, source_rows: usize) -> Result<Hierarchy> {
    let as_u64 = |column: usize| -> Result<ArrayRef> { Ok(arrow::compute::cast(rows.column(column), &DataType::UInt64)?) };
    let (keys, parents) = (as_u64(key_column)?, as_u64(parent_column)?);
    let (keys, parents) = (keys.as_primitive::<UInt64Type>(), parents.as_primitive::<UInt64Type>());
    let links = keys.iter().zip(parents.iter()).filter_map(|(key, parent)| Some((key?, parent))).collect();
    let null_value = match null_value {
        ScalarValue::UInt64(value) => *value,
        _ => None,
    };
    Ok(Hierarchy::new(links, null_value, key_order, source_rows))
}

fn check_flat_keys(keys: &ArrayRef) -> Result<()> {
    let as_u64 = arrow::compute::cast(keys, &arrow::datatypes::DataType::UInt64)?;
    let max = arrow::compute::max(arrow::array::AsArray::as_primitive::<arrow::datatypes::UInt64Type>(as_u64.as_ref()));
    if let Some(max) = max.filter(|&m| m >= FLAT_MAX_ARRAY_SIZE) {
        return Err(Error::new(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!("Key value {max} is out of range [0, {FLAT_MAX_ARRAY_SIZE}) of a FLAT dictionary; use HASHED"),
        ));
    }
    Ok(())
}

/// Every dictionary of the server, by table uuid (stable across RENAME); those of
/// configuration files by `config:<name>`.
#[derive(Default)]
pub struct DictionaryRegistry {
    dictionaries: RwLock<HashMap<String, Arc<Dictionary>>>,
    runner: RwLock<Option<Weak<dyn SourceRunner>>>,
    /// The files of `dictionaries_config` as last read.
    config_files: Mutex<ConfigFiles>,
    /// The dictionaries those files define, by name (the first file, in path order,
    /// that names one wins).
    config_dictionaries: RwLock<BTreeMap<String, Arc<ConfigDictionary>>>,
}

impl DictionaryRegistry {
    pub fn new() -> Arc<DictionaryRegistry> {
        Arc::new(DictionaryRegistry::default())
    }

    /// Set once the query layer exists (the catalog, which opens dictionaries, comes first).
    pub fn set_runner(&self, runner: Weak<dyn SourceRunner>) {
        *self.runner.write() = Some(runner);
    }

    pub fn runner(&self) -> Result<Arc<dyn SourceRunner>> {
        self.runner
            .read()
            .as_ref()
            .and_then(Weak::upgrade)
            .ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "Dictionaries cannot be loaded: the server is shutting down"))
    }

    pub fn get(&self, uuid: &str) -> Option<Arc<Dictionary>> {
        self.dictionaries.read().get(uuid).cloned()
    }

    pub fn all(&self) -> Vec<Arc<Dictionary>> {
        self.dictionaries.read().values().cloned().collect()
    }

    /// Reads dictionaries from the files matching `pattern` (ClickHouse's
    /// `dictionaries_config`, made absolute), now and at every [`Self::rescan_config_files`].
    pub fn set_config_pattern(self: &Arc<Self>, pattern: Option<PathBuf>) {
        self.config_files.lock().pattern = pattern;
        self.rescan_config_files();
    }

    /// Re-reads the configuration files that are new or changed since the last read, and
    /// forgets those that are gone. A dictionary whose file did not change keeps its
    /// loaded data; one from a changed file is defined anew (and loads on first use).
    pub fn rescan_config_files(self: &Arc<Self>) {
        let mut files = self.config_files.lock();
        if files.pattern.is_none() {
            return;
        }
        let matching = match files.matching_files() {
            Ok(matching) => matching,
            Err(e) => {
                tracing::error!("{e}");
                return;
            }
        };
        let mut read = BTreeMap::new();
        for path in matching {
            let modified = crate::config_files::modified(&path);
            match files.files.remove(&path) {
                Some((when, defined)) if when.is_some() && when == modified => {
                    read.insert(path, (when, defined));
                }
                _ => {
                    let defined = self.define_from_file(&path);
                    read.insert(path, (modified, defined));
                }
            }
        }
        files.files = read;
        let mut by_name: BTreeMap<String, Arc<ConfigDictionary>> = BTreeMap::new();
        for (path, (_, defined)) in &files.files {
            for entry in defined {
                match by_name.get(&entry.name) {
                    Some(first) => tracing::warn!("Dictionary {} of {} is already defined in {}: ignored", entry.name, path.display(), first.origin.display()),
                    None => {
                        by_name.insert(entry.name.clone(), entry.clone());
                    }
                }
            }
        }
        {
            let mut dictionaries = self.dictionaries.write();
            dictionaries.retain(|key, _| !key.starts_with(CONFIG_KEY_PREFIX));
            for entry in by_name.values() {
                if let Ok((table, dictionary)) = &entry.defined {
                    dictionaries.insert(table.meta.uuid.clone(), dictionary.clone());
                }
            }
        }
        *self.config_dictionaries.write() = by_name;
    }

    fn define_from_file(self: &Arc<Self>, path: &std::path::Path) -> Vec<Arc<ConfigDictionary>> {
        let entry = |name: String, defined: Result<(Arc<Table>, Arc<Dictionary>)>| {
            if let Err(e) = &defined {
                tracing::error!("{}", e.message());
            }
            Arc::new(ConfigDictionary { name, origin: path.to_path_buf(), defined: defined.map_err(|e| (e.code(), e.message().to_string())) })
        };
        match crate::config_files::read_file(path) {
            // Nothing in the file can be named: the entry takes the file's name.
            Err(e) => vec![entry(path.file_stem().map_or_else(|| path.to_string_lossy().into_owned(), |s| s.to_string_lossy().into_owned()), Err(e))],
            Ok(dictionaries) => dictionaries
                .into_iter()
                .map(|(name, meta)| {
                    let defined = meta.and_then(|meta| {
                        self.open_config_dictionary(meta).map_err(|e| Error::new(e.code(), format!("Dictionary {name} in {}: {}", path.display(), e.message())))
                    });
                    entry(name, defined)
                })
                .collect(),
        }
    }

    fn open_config_dictionary(self: &Arc<Self>, meta: TableMeta) -> Result<(Arc<Table>, Arc<Dictionary>)> {
        let mut definition = DictionaryDefinition::from_meta(&meta)?;
        // The server's own configuration may name any file, as in ClickHouse (a SQL
        // dictionary's files stay inside user_files_path).
        if let crate::definition::Source::File { path, .. } = &definition.source {
            definition.files_root = std::path::Path::new(path).ancestors().last().map(std::path::Path::to_path_buf);
        }
        let dictionary = Arc::new(Dictionary::new(definition));
        let engine = Arc::new(DictionaryEngine { dictionary: dictionary.clone(), registry: Arc::downgrade(self), uuid: meta.uuid.clone() });
        let table = Table::standalone(meta, engine)?;
        Ok((table, dictionary))
    }

    /// The dictionary a configuration file defines under `name`, with its definition
    /// error if it has one.
    pub fn config_dictionary(&self, name: &str) -> Option<Arc<ConfigDictionary>> {
        self.config_dictionaries.read().get(name).cloned()
    }

    /// Every dictionary of the configuration files (failed definitions included).
    pub fn config_dictionaries(&self) -> Vec<Arc<ConfigDictionary>> {
        self.config_dictionaries.read().values().cloned().collect()
    }

    /// Reloads every loaded dictionary whose LIFETIME has passed. Called periodically.
    pub async fn reload_expired(&self) {
        let now = Instant::now();
        let due: Vec<Arc<Dictionary>> = self.all().into_iter().filter(|d| d.reload_due(now)).collect();
        let Ok(runner) = self.runner() else { return };
        for dictionary in due {
            if let Err(e) = dictionary.load(runner.as_ref(), true).await {
                tracing::warn!("reloading dictionary {}: {e}", dictionary.definition.full_name());
            }
        }
    }
}

/// The table face of a dictionary.
#[derive(Debug)]
pub struct DictionaryEngine {
    pub dictionary: Arc<Dictionary>,
    registry: Weak<DictionaryRegistry>,
    uuid: String,
}

impl std::fmt::Debug for DictionaryRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DictionaryRegistry").field("dictionaries", &self.dictionaries.read().len()).finish()
    }
}

#[async_trait]
impl TableEngine for DictionaryEngine {
    fn engine_name(&self) -> &str {
        "Dictionary"
    }

    fn schema(&self) -> SchemaRef {
        self.dictionary.definition.schema.clone()
    }

    async fn scan(
        &self,
        _session: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let registry = self.registry.upgrade().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "dictionary registry is gone"))?;
        let loaded = self.dictionary.ensure_loaded(registry.runner()?.as_ref()).await?;
        Ok(MemorySourceConfig::try_new_exec(&[vec![loaded.rows.clone()]], self.schema(), projection.cloned())?)
    }

    async fn insert(&self, _request: InsertRequest) -> Result<InsertResult> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Method write is not supported by storage Dictionary"))
    }

    async fn truncate(&self) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Truncate is not supported by storage Dictionary"))
    }

    async fn drop_data(&self) -> Result<()> {
        if let Some(registry) = self.registry.upgrade() {
            registry.dictionaries.write().remove(&self.uuid);
        }
        Ok(())
    }

    fn total_rows(&self) -> Option<u64> {
        None
    }

    fn key_lookup(&self) -> Option<&dyn KeyLookup> {
        Some(self)
    }
}

impl KeyLookup for DictionaryEngine {
    fn key_fields(&self) -> Vec<FieldRef> {
        self.dictionary.definition.key_fields()
    }

    fn value_field(&self, name: &str) -> Option<FieldRef> {
        let definition = &self.dictionary.definition;
        definition.attribute_index(name).map(|i| Arc::new(definition.schema.field(i).clone()))
    }

    fn lookup(&self, keys: &[ArrayRef], name: &str) -> Result<(ArrayRef, BooleanArray)> {
        let definition = &self.dictionary.definition;
        let attribute = definition
            .attribute_index(name)
            .ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("No such attribute '{name}'")))?;
        let loaded = self.dictionary.current().ok_or_else(|| {
            Error::new(ErrorCode::LOGICAL_ERROR, format!("Dictionary {} is not loaded", definition.full_name()))
        })?;
        let rows = self.dictionary.rows(&loaded, keys, None)?;
        self.dictionary.get(&loaded, &rows, attribute, Missing::Default)
    }
}

/// Opens `Dictionary` "tables" and registers them.
pub struct DictionaryEngineFactory {
    pub registry: Arc<DictionaryRegistry>,
}

impl EngineFactory for DictionaryEngineFactory {
    fn name(&self) -> &'static str {
        "Dictionary"
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        DictionaryDefinition::from_meta(meta).map(|_| ())
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        let definition = DictionaryDefinition::from_meta(context.meta)?;
        let dictionary = Arc::new(Dictionary::new(definition));
        let uuid = context.meta.uuid.clone();
        self.registry.dictionaries.write().insert(uuid.clone(), dictionary.clone());
        Ok(Arc::new(DictionaryEngine { dictionary, registry: Arc::downgrade(&self.registry), uuid }))
    }
}
