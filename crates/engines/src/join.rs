//! `ENGINE = Join(strictness, kind, key, ...)`: a prepared right-hand side of a JOIN,
//! kept in memory, indexed by its key, and read by `joinGet` and by `SELECT`.
//!
//! Durability: every INSERT appends one Arrow IPC file (`data_<n>.arrow`, written to a
//! temporary name, fsynced, renamed) before it is acknowledged; opening the table replays
//! the files in order. So restart time stays bounded, once the files outnumber
//! [`COMPACT_AFTER_FILES`] an INSERT also writes the whole table as one
//! `snapshot_<n>.arrow` and removes the files it covers. A crash between the two leaves
//! both, and the replay starts from the newest snapshot, so no row is lost or doubled.
//!
//! `ANY` strictness keeps one row per key (the first inserted, or the last with
//! `join_any_take_last_row = 1`), as ClickHouse does; `ALL` keeps every row and `joinGet`
//! returns the first row of a key.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray};
use arrow::compute::concat_batches;
use arrow::datatypes::{FieldRef, SchemaRef};
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::{
    fs, DuplicateKeys, EngineContext, EngineFactory, InsertRequest, InsertResult, KeyIndex, KeyLookup, TableEngine, TableMeta,
};
use parking_lot::{Mutex, RwLock};

use crate::collect_insert;

/// Appended files after which an INSERT compacts the table into one snapshot.
pub const COMPACT_AFTER_FILES: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinStrictness {
    Any,
    All,
    Semi,
    Anti,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinSpec {
    pub strictness: JoinStrictness,
    /// `LEFT`, `INNER`, `RIGHT` or `FULL`, as written (upper case).
    pub kind: String,
    pub keys: Vec<String>,
    pub take_last_row: bool,
    pub persistent: bool,
}

impl JoinSpec {
    /// Parses and checks `Join(...)` arguments and settings against the table's columns.
    pub fn from_meta(meta: &TableMeta) -> Result<JoinSpec> {
        let args = &meta.engine.args;
        if args.len() < 3 {
            return Err(Error::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Storage Join requires at least 3 parameters: Join(ANY|ALL|SEMI|ANTI, LEFT|INNER|RIGHT, keys...)",
            ));
        }
        let strictness = match args[0].trim().to_ascii_uppercase().as_str() {
            "ANY" => JoinStrictness::Any,
            "ALL" => JoinStrictness::All,
            "SEMI" => JoinStrictness::Semi,
            "ANTI" => JoinStrictness::Anti,
            _ => {
                return Err(Error::new(
                    ErrorCode::BAD_ARGUMENTS,
                    "First parameter of storage Join must be ANY or ALL or SEMI or ANTI (without quotes)",
                ))
            }
        };
        let kind = args[1].trim().to_ascii_uppercase();
        if !matches!(kind.as_str(), "LEFT" | "INNER" | "RIGHT" | "FULL") {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Second parameter of storage Join must be LEFT or INNER or RIGHT or FULL (without quotes)"));
        }
        let mut keys = Vec::new();
        for arg in &args[2..] {
            let key = arg.trim().trim_matches('`').to_string();
            if !meta.columns.iter().any(|c| c.name == key) {
                return Err(Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("Key column ({key}) does not exist in table declaration")));
            }
            keys.push(key);
        }
        let mut spec = JoinSpec { strictness, kind, keys, take_last_row: false, persistent: true };
        for (name, value) in &meta.engine.settings {
            let flag = || match value.trim() {
                "0" | "false" => Ok(false),
                "1" | "true" => Ok(true),
                other => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Setting {name} expects 0 or 1, got {other}"))),
            };
            match name.as_str() {
                "join_any_take_last_row" => spec.take_last_row = flag()?,
                "persistent" => spec.persistent = flag()?,
                // Accepted for compatibility; the in-memory layout does not use them.
                "join_use_nulls" | "max_rows_in_join" | "max_bytes_in_join" | "join_overflow_mode" | "disk" => {}
                other => return Err(Error::new(ErrorCode::UNKNOWN_SETTING, format!("Unknown setting '{other}' for storage Join"))),
            }
        }
        Ok(spec)
    }
}

#[derive(Debug)]
pub struct JoinEngine {
    /// `Join`, or `Set` (a Join table keyed by all its columns, read by `x IN t`).
    name: &'static str,
    schema: SchemaRef,
    spec: JoinSpec,
    key_columns: Vec<usize>,
    dir: PathBuf,
    state: RwLock<Arc<JoinState>>,
    /// Serializes INSERT / TRUNCATE, which write files and then swap the state.
    write_lock: Mutex<WriteState>,
}

#[derive(Debug, Default)]
struct WriteState {
    /// Number of the next data or snapshot file.
    next_file: u64,
    /// Files written since the last snapshot (replayed at open).
    appended_files: Vec<PathBuf>,
    snapshot: Option<PathBuf>,
}

/// An immutable version of the table: readers take an `Arc` and never block writers.
#[derive(Debug)]
struct JoinState {
    /// The kept rows (for ANY: one per key), as one batch.
    rows: RecordBatch,
    index: KeyIndex,
}

impl JoinState {
    fn build(schema: &SchemaRef, batches: &[RecordBatch], spec: &JoinSpec, key_columns: &[usize]) -> Result<JoinState> {
        let all = concat_batches(schema, batches)?;
        let keys: Vec<ArrayRef> = key_columns.iter().map(|&i| all.column(i).clone()).collect();
        let duplicates = if spec.take_last_row { DuplicateKeys::KeepLast } else { DuplicateKeys::KeepFirst };
        let index = KeyIndex::build(&keys, duplicates)?;
        if spec.strictness != JoinStrictness::Any {
            return Ok(JoinState { rows: all, index });
        }
        // ANY keeps one row per key: materialize exactly the rows the index points to, in
        // insertion order, and re-index them.
        let probe = index.probe(&keys)?;
        let kept: arrow::array::UInt32Array = probe
            .iter()
            .enumerate()
            .filter(|(row, target)| *target == Some(*row as u32))
            .map(|(row, _)| Some(row as u32))
            .collect();
        let columns = all.columns().iter().map(|c| arrow::compute::take(c.as_ref(), &kept, None)).collect::<std::result::Result<Vec<_>, _>>()?;
        let rows = RecordBatch::try_new(schema.clone(), columns)?;
        let keys: Vec<ArrayRef> = key_columns.iter().map(|&i| rows.column(i).clone()).collect();
        let index = KeyIndex::build(&keys, DuplicateKeys::KeepFirst)?;
        Ok(JoinState { rows, index })
    }
}

impl JoinEngine {
    fn open(context: EngineContext<'_>) -> Result<JoinEngine> {
        JoinEngine::open_with(context, "Join", JoinSpec::from_meta)
    }

    fn open_with(context: EngineContext<'_>, name: &'static str, spec: fn(&TableMeta) -> Result<JoinSpec>) -> Result<JoinEngine> {
        let spec = spec(context.meta)?;
        let schema = context.schema.clone();
        let key_columns = spec
            .keys
            .iter()
            .map(|k| schema.index_of(k).map_err(|_| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("Key column ({k}) does not exist"))))
            .collect::<Result<Vec<_>>>()?;
        let dir = context.data_path.clone();
        fs::create_dir_all(&dir)?;
        let (write, batches) = if spec.persistent { replay(&dir, &schema)? } else { (WriteState::default(), Vec::new()) };
        let state = JoinState::build(&schema, &batches, &spec, &key_columns)?;
        Ok(JoinEngine { name, schema, spec, key_columns, dir, state: RwLock::new(Arc::new(state)), write_lock: Mutex::new(write) })
    }

    pub fn spec(&self) -> &JoinSpec {
        &self.spec
    }

    fn current(&self) -> Arc<JoinState> {
        self.state.read().clone()
    }
}

/// Reads the newest snapshot and the data files after it, in order; removes leftovers of
/// an interrupted write (`tmp_*`) and files a snapshot covers.
fn replay(dir: &Path, schema: &SchemaRef) -> Result<(WriteState, Vec<RecordBatch>)> {
    let mut snapshots = Vec::new();
    let mut data = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with("tmp_") {
            std::fs::remove_file(entry.path())?;
        } else if let Some(n) = file_number(&name, "snapshot_") {
            snapshots.push((n, entry.path()));
        } else if let Some(n) = file_number(&name, "data_") {
            data.push((n, entry.path()));
        }
    }
    snapshots.sort();
    data.sort();
    let mut state = WriteState::default();
    let mut batches = Vec::new();
    let covered_up_to = snapshots.last().map(|(n, _)| *n);
    if let Some((n, path)) = snapshots.pop() {
        batches.extend(read_ipc(&path, schema)?);
        state.snapshot = Some(path);
        state.next_file = n + 1;
    }
    for (_, path) in snapshots {
        std::fs::remove_file(path)?;
    }
    for (n, path) in data {
        if covered_up_to.is_some_and(|c| n <= c) {
            std::fs::remove_file(path)?;
            continue;
        }
        batches.extend(read_ipc(&path, schema)?);
        state.appended_files.push(path);
        state.next_file = state.next_file.max(n + 1);
    }
    Ok((state, batches))
}

fn file_number(name: &str, prefix: &str) -> Option<u64> {
    name.strip_prefix(prefix)?.strip_suffix(".arrow")?.parse().ok()
}

fn read_ipc(path: &Path, schema: &SchemaRef) -> Result<Vec<RecordBatch>> {
    let corrupt = |e: &dyn std::fmt::Display| {
        Error::new(ErrorCode::CORRUPTED_DATA, format!("Cannot read Join table file {}: {e}", path.display()))
    };
    let reader = FileReader::try_new(File::open(path)?, None).map_err(|e| corrupt(&e))?;
    let mut batches = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| corrupt(&e))?;
        if batch.schema().fields() != schema.fields() {
            return Err(corrupt(&"the file's columns differ from the table's"));
        }
        batches.push(batch);
    }
    Ok(batches)
}

/// Writes `batches` as an IPC file at `path` durably (temporary name, fsync, rename).
fn write_ipc(dir: &Path, file_name: &str, schema: &SchemaRef, batches: &[RecordBatch]) -> Result<PathBuf> {
    let tmp = dir.join(format!("tmp_{file_name}"));
    let path = dir.join(file_name);
    {
        let file = File::create(&tmp)?;
        let mut writer = FileWriter::try_new(file, schema)?;
        for batch in batches {
            writer.write(batch)?;
        }
        writer.finish()?;
        writer.into_inner()?.sync_all()?;
    }
    fs::rename_durable(&tmp, &path)?;
    Ok(path)
}

#[async_trait]
impl TableEngine for JoinEngine {
    fn engine_name(&self) -> &str {
        self.name
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn scan(
        &self,
        _session: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let state = self.current();
        Ok(MemorySourceConfig::try_new_exec(&[vec![state.rows.clone()]], self.schema.clone(), projection.cloned())?)
    }

    async fn insert(&self, request: InsertRequest) -> Result<InsertResult> {
        let (batches, rows, bytes) = collect_insert(request.into_stream()).await?;
        if rows == 0 {
            return Ok(InsertResult::default());
        }
        let mut write = self.write_lock.lock();
        let current = self.current();
        let mut all = vec![current.rows.clone()];
        all.extend(batches.iter().cloned());
        let next = JoinState::build(&self.schema, &all, &self.spec, &self.key_columns)?;
        if self.spec.persistent {
            let n = write.next_file;
            let path = write_ipc(&self.dir, &format!("data_{n:08}.arrow"), &self.schema, &batches)?;
            write.next_file += 1;
            write.appended_files.push(path);
            if write.appended_files.len() >= COMPACT_AFTER_FILES {
                let n = write.next_file;
                let snapshot = write_ipc(&self.dir, &format!("snapshot_{n:08}.arrow"), &self.schema, std::slice::from_ref(&next.rows))?;
                write.next_file += 1;
                // The snapshot is durable: what it covers can go (a crash here is
                // repaired by `replay`).
                let write = &mut *write;
                for old in write.appended_files.drain(..).chain(write.snapshot.take()) {
                    std::fs::remove_file(old)?;
                }
                write.snapshot = Some(snapshot);
            }
        }
        *self.state.write() = Arc::new(next);
        Ok(InsertResult { written_rows: rows, written_bytes: bytes })
    }

    async fn truncate(&self) -> Result<()> {
        let mut write = self.write_lock.lock();
        let empty = JoinState::build(&self.schema, &[], &self.spec, &self.key_columns)?;
        let write = &mut *write;
        for old in write.appended_files.drain(..).chain(write.snapshot.take()) {
            std::fs::remove_file(old)?;
        }
        fs::sync_dir(&self.dir)?;
        *self.state.write() = Arc::new(empty);
        Ok(())
    }

    async fn drop_data(&self) -> Result<()> {
        self.truncate().await?;
        match std::fs::remove_dir_all(&self.dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        }
    }

    fn total_rows(&self) -> Option<u64> {
        Some(self.current().rows.num_rows() as u64)
    }

    fn total_bytes(&self) -> Option<u64> {
        let state = self.current();
        Some((state.rows.get_array_memory_size() + state.index.allocated_bytes()) as u64)
    }

    fn data_paths(&self) -> Vec<PathBuf> {
        vec![self.dir.clone()]
    }

    fn key_lookup(&self) -> Option<&dyn KeyLookup> {
        (self.name == "Join").then_some(self as &dyn KeyLookup)
    }
}

impl KeyLookup for JoinEngine {
    fn key_fields(&self) -> Vec<FieldRef> {
        self.key_columns.iter().map(|&i| Arc::new(self.schema.field(i).clone())).collect()
    }

    fn value_field(&self, name: &str) -> Option<FieldRef> {
        // Key columns are not attributes: ClickHouse's joinGet cannot return them.
        let index = self.schema.index_of(name).ok().filter(|i| !self.key_columns.contains(i))?;
        Some(Arc::new(self.schema.field(index).clone()))
    }

    fn lookup(&self, keys: &[ArrayRef], name: &str) -> Result<(ArrayRef, BooleanArray)> {
        let state = self.current();
        let column = self
            .value_field(name)
            .and_then(|_| self.schema.index_of(name).ok())
            .ok_or_else(|| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("There is no column {name} in the Join table")))?;
        let rows = state.index.probe(keys)?;
        granary_storage::lookup::gather(state.rows.column(column), &rows)
    }
}

pub struct JoinEngineFactory;

impl EngineFactory for JoinEngineFactory {
    fn name(&self) -> &'static str {
        "Join"
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        crate::memory::no_sorting_clauses(meta)?;
        JoinSpec::from_meta(meta).map(|_| ())
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        Ok(Arc::new(JoinEngine::open(context)?))
    }
}

/// `ENGINE = Set`: distinct rows, durable like Join tables, the right side of `x IN t`.
pub struct SetEngineFactory;

/// A Set table is a Join table whose key is every column, so each distinct row is kept once.
fn set_spec(meta: &TableMeta) -> Result<JoinSpec> {
    if !meta.engine.args.is_empty() {
        return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Engine Set doesn't support any arguments"));
    }
    let mut spec = JoinSpec {
        strictness: JoinStrictness::Any,
        kind: "LEFT".into(),
        keys: meta.columns.iter().map(|c| c.name.clone()).collect(),
        take_last_row: false,
        persistent: true,
    };
    for (name, value) in &meta.engine.settings {
        match (name.as_str(), value.trim()) {
            ("persistent", "0" | "false") => spec.persistent = false,
            ("persistent", "1" | "true") => spec.persistent = true,
            ("disk", _) => {}
            (other, _) => return Err(Error::new(ErrorCode::UNKNOWN_SETTING, format!("Unknown setting '{other}' for storage Set"))),
        }
    }
    Ok(spec)
}

impl EngineFactory for SetEngineFactory {
    fn name(&self) -> &'static str {
        "Set"
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        crate::memory::no_sorting_clauses(meta)?;
        set_spec(meta).map(|_| ())
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        Ok(Arc::new(JoinEngine::open_with(context, "Set", set_spec)?))
    }
}

#[cfg(test)]
mod tests {
    use arrow::array::{AsArray, StringArray, UInt64Array};
    use arrow::datatypes::{DataType, Field, Schema};
    use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
    use granary_common::Settings;
    use granary_storage::{ColumnMeta, EngineMeta, TABLE_META_VERSION};
    use granary_types::ChType;

    use super::*;

    fn meta(args: &[&str], settings: &[(&str, &str)]) -> TableMeta {
        TableMeta {
            format_version: TABLE_META_VERSION,
            uuid: "u".into(),
            database: "default".into(),
            name: "j".into(),
            columns: vec![ColumnMeta::new("k", &ChType::UInt64), ColumnMeta::new("v", &ChType::String)],
            engine: EngineMeta {
                name: "Join".into(),
                args: args.iter().map(|s| s.to_string()).collect(),
                settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                ..EngineMeta::default()
            },
            comment: None,
            created_at: 0,
            dictionary: None,
            view: None,
            renamed_columns: Vec::new(),
            constraints: Vec::new(),
            indices: Vec::new(),
        }
    }

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("k", DataType::UInt64, false), Field::new("v", DataType::Utf8, false)]))
    }

    fn open(dir: &Path, meta: &TableMeta) -> JoinEngine {
        JoinEngine::open(EngineContext { meta, schema: schema(), data_path: dir.to_path_buf(), is_new: false }).unwrap()
    }

    async fn insert(engine: &JoinEngine, keys: Vec<u64>, values: Vec<&str>) {
        let batch = RecordBatch::try_new(schema(), vec![Arc::new(UInt64Array::from(keys)), Arc::new(StringArray::from(values))]).unwrap();
        let input = Box::pin(RecordBatchStreamAdapter::new(schema(), futures::stream::iter(vec![Ok(batch)])));
        engine.insert(InsertRequest::new(input, Settings::default())).await.unwrap();
    }

    fn get(engine: &JoinEngine, keys: Vec<u64>) -> Vec<Option<String>> {
        let keys: Vec<ArrayRef> = vec![Arc::new(UInt64Array::from(keys))];
        let (values, _) = engine.lookup(&keys, "v").unwrap();
        values.as_string::<i32>().iter().map(|v| v.map(str::to_string)).collect()
    }

    #[tokio::test]
    async fn any_keeps_first_row_and_survives_reopen_and_compaction() {
        let dir = tempfile::tempdir().unwrap();
        let meta = meta(&["ANY", "LEFT", "k"], &[]);
        let engine = open(dir.path(), &meta);
        insert(&engine, vec![1, 2, 1], vec!["a", "b", "c"]).await;
        assert_eq!(get(&engine, vec![1, 2, 3]), vec![Some("a".into()), Some("b".into()), None]);
        assert_eq!(engine.total_rows(), Some(2));
        for i in 0..COMPACT_AFTER_FILES as u64 + 3 {
            insert(&engine, vec![100 + i], vec!["x"]).await;
        }
        drop(engine);
        let engine = open(dir.path(), &meta);
        assert_eq!(engine.total_rows(), Some(2 + COMPACT_AFTER_FILES as u64 + 3));
        assert_eq!(get(&engine, vec![1, 102]), vec![Some("a".into()), Some("x".into())]);
        let files = std::fs::read_dir(dir.path()).unwrap().count();
        assert!(files < COMPACT_AFTER_FILES, "compaction keeps the file count bounded, found {files}");
    }

    #[tokio::test]
    async fn take_last_row_and_truncate() {
        let dir = tempfile::tempdir().unwrap();
        let meta = meta(&["ANY", "LEFT", "k"], &[("join_any_take_last_row", "1")]);
        let engine = open(dir.path(), &meta);
        insert(&engine, vec![1, 1], vec!["a", "b"]).await;
        assert_eq!(get(&engine, vec![1]), vec![Some("b".into())]);
        engine.truncate().await.unwrap();
        assert_eq!(get(&engine, vec![1]), vec![None]);
        drop(engine);
        assert_eq!(open(dir.path(), &meta).total_rows(), Some(0));
    }

    #[test]
    fn arguments_are_checked() {
        let err = |args: &[&str]| JoinSpec::from_meta(&meta(args, &[])).unwrap_err().code();
        assert_eq!(err(&["ANY", "LEFT"]), ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH);
        assert_eq!(err(&["FOO", "LEFT", "k"]), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(err(&["ANY", "LEFT", "z"]), ErrorCode::NO_SUCH_COLUMN_IN_TABLE);
    }
}
