//! `ENGINE = Log`, `TinyLog` and `StripeLog`: append-only tables on disk, for small
//! tables written once or in a few INSERTs and read whole.
//!
//! All three share one storage here: each INSERT is one Arrow IPC file
//! (`data_<n>.arrow`) in the table directory, written under a temporary name, fsynced,
//! renamed into place and the directory fsynced before the INSERT is acknowledged. A
//! failed INSERT (or a crash during one) leaves only the temporary file, which is
//! removed when the table is opened again; readers see whole INSERTs in their order.
//! TRUNCATE removes the files. ClickHouse's on-disk formats of these engines (a file per
//! column with `__marks.mrk`, or one `data.bin` with `index.mrk`) are not reproduced: the
//! directory of a ClickHouse Log table cannot be attached here, nor the reverse.
//!
//! There is no index and no sorting: a scan reads the files in order, spread over the
//! query's threads.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result, ResultExt};
use granary_storage::fs::{create_dir_all, rename_durable, sync_dir};
use granary_storage::{EngineContext, EngineFactory, InsertRequest, InsertResult, TableEngine, TableMeta};
use parking_lot::{Mutex, RwLock};

const DATA_PREFIX: &str = "data_";
const DATA_SUFFIX: &str = ".arrow";
const TEMP_PREFIX: &str = "tmp_insert_";

/// One INSERT's file.
#[derive(Debug, Clone)]
struct DataFile {
    number: u64,
    rows: u64,
    bytes: u64,
}

#[derive(Debug)]
pub struct LogEngine {
    /// `Log`, `TinyLog` or `StripeLog`.
    name: &'static str,
    schema: SchemaRef,
    dir: PathBuf,
    files: RwLock<Vec<DataFile>>,
    /// Held by an INSERT from numbering its file to publishing it, and by TRUNCATE, so
    /// files are published in number order.
    writer: Mutex<()>,
}

fn data_file_name(number: u64) -> String {
    format!("{DATA_PREFIX}{number}{DATA_SUFFIX}")
}

fn io_error(action: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot {action} {}: {e}", path.display()))
}

impl LogEngine {
    fn open(name: &'static str, schema: SchemaRef, dir: PathBuf) -> Result<Self> {
        create_dir_all(&dir)?;
        let mut files = Vec::new();
        let entries = fs::read_dir(&dir).map_err(|e| io_error("read directory", &dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error("read directory", &dir, e))?;
            let file_name = entry.file_name().to_string_lossy().into_owned();
            if file_name.starts_with(TEMP_PREFIX) {
                // An INSERT that did not finish: it was never visible.
                let path = entry.path();
                fs::remove_file(&path).map_err(|e| io_error("remove", &path, e))?;
                continue;
            }
            let Some(number) = file_name.strip_prefix(DATA_PREFIX).and_then(|s| s.strip_suffix(DATA_SUFFIX)).and_then(|s| s.parse::<u64>().ok()) else {
                continue;
            };
            let path = entry.path();
            let (rows, bytes) = read_file(&path)?.iter().fold((0u64, 0u64), |(r, b), batch| (r + batch.num_rows() as u64, b + batch.get_array_memory_size() as u64));
            files.push(DataFile { number, rows, bytes });
        }
        files.sort_by_key(|f| f.number);
        Ok(LogEngine { name, schema, dir, files: RwLock::new(files), writer: Mutex::new(()) })
    }

    fn path_of(&self, number: u64) -> PathBuf {
        self.dir.join(data_file_name(number))
    }
}

fn read_file(path: &Path) -> Result<Vec<RecordBatch>> {
    let file = fs::File::open(path).map_err(|e| io_error("open", path, e))?;
    let reader = FileReader::try_new(std::io::BufReader::new(file), None)
        .map_err(|e| Error::new(ErrorCode::CORRUPTED_DATA, format!("Cannot read {}: {e}", path.display())))?;
    reader
        .map(|batch| batch.map_err(|e| Error::new(ErrorCode::CORRUPTED_DATA, format!("Cannot read {}: {e}", path.display()))))
        .collect()
}

/// Removes a temporary file when an INSERT fails before publishing it.
struct TempFile(Option<PathBuf>);

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            let _ = fs::remove_file(path);
        }
    }
}

#[async_trait]
impl TableEngine for LogEngine {
    fn engine_name(&self) -> &str {
        self.name
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn scan(&self, session: &dyn Session, projection: Option<&Vec<usize>>, _filters: &[Expr], _limit: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
        let files = self.files.read().clone();
        let mut batches = Vec::new();
        for file in &files {
            for batch in read_file(&self.path_of(file.number))? {
                // The file's schema is the table's as it was written; the table's own
                // field metadata is what the query sees.
                batches.push(RecordBatch::try_new(self.schema.clone(), batch.columns().to_vec()).with_code(ErrorCode::CORRUPTED_DATA, || {
                    format!("The data of table file {} does not match the table's columns", data_file_name(file.number))
                })?);
            }
        }
        let partitions = session.config().target_partitions().max(1).min(batches.len().max(1));
        let mut split: Vec<Vec<RecordBatch>> = vec![Vec::new(); partitions];
        for (i, batch) in batches.into_iter().enumerate() {
            split[i % partitions].push(batch);
        }
        Ok(MemorySourceConfig::try_new_exec(&split, self.schema.clone(), projection.cloned())?)
    }

    async fn insert(&self, request: InsertRequest) -> Result<InsertResult> {
        let mut input = request.into_stream();
        let temp_path = self.dir.join(format!("{TEMP_PREFIX}{}{DATA_SUFFIX}", uuid_like()));
        let mut guard = TempFile(Some(temp_path.clone()));
        let file = fs::File::create(&temp_path).map_err(|e| io_error("create", &temp_path, e))?;
        let mut writer = FileWriter::try_new(std::io::BufWriter::new(file), &self.schema)?;
        let (mut rows, mut bytes) = (0u64, 0u64);
        while let Some(batch) = input.next().await {
            let batch = batch?;
            if batch.num_rows() == 0 {
                continue;
            }
            rows += batch.num_rows() as u64;
            bytes += batch.get_array_memory_size() as u64;
            writer.write(&batch)?;
        }
        if rows == 0 {
            return Ok(InsertResult::default());
        }
        writer.finish()?;
        let file = writer.into_inner()?.into_inner().map_err(|e| io_error("write", &temp_path, e.error()))?;
        file.sync_all().map_err(|e| io_error("fsync", &temp_path, e))?;
        drop(file);
        let _writer = self.writer.lock();
        let number = self.files.read().last().map_or(1, |f| f.number + 1);
        rename_durable(&temp_path, &self.path_of(number))?;
        guard.0 = None;
        self.files.write().push(DataFile { number, rows, bytes });
        Ok(InsertResult { written_rows: rows, written_bytes: bytes })
    }

    async fn truncate(&self) -> Result<()> {
        let _writer = self.writer.lock();
        let mut files = self.files.write();
        // Newest first: a crash half way leaves a prefix of the INSERTs, as if the later
        // ones had never happened.
        while let Some(file) = files.last() {
            let path = self.path_of(file.number);
            fs::remove_file(&path).map_err(|e| io_error("remove", &path, e))?;
            files.pop();
        }
        sync_dir(&self.dir)
    }

    async fn drop_data(&self) -> Result<()> {
        self.files.write().clear();
        match fs::remove_dir_all(&self.dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_error("remove", &self.dir, e)),
        }
    }

    fn total_rows(&self) -> Option<u64> {
        // ClickHouse's TinyLog does not count its rows.
        if self.name == "TinyLog" {
            return None;
        }
        Some(self.files.read().iter().map(|f| f.rows).sum())
    }

    fn total_bytes(&self) -> Option<u64> {
        Some(self.files.read().iter().map(|f| f.bytes).sum())
    }

    fn data_paths(&self) -> Vec<PathBuf> {
        vec![self.dir.clone()]
    }
}

/// A name no other INSERT of this process uses now.
fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The factory of one of the three names.
pub struct LogEngineFactory {
    name: &'static str,
}

impl LogEngineFactory {
    pub fn all() -> [LogEngineFactory; 3] {
        [LogEngineFactory { name: "Log" }, LogEngineFactory { name: "TinyLog" }, LogEngineFactory { name: "StripeLog" }]
    }
}

impl EngineFactory for LogEngineFactory {
    fn name(&self) -> &'static str {
        self.name
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        crate::memory::no_engine_arguments(meta)
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        Ok(Arc::new(LogEngine::open(self.name, context.schema, context.data_path)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int32Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
    use datafusion::prelude::SessionContext;
    use granary_common::Settings;

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false), Field::new("s", DataType::Utf8, false)]))
    }

    fn request(batches: Vec<datafusion::common::Result<RecordBatch>>) -> InsertRequest {
        InsertRequest::new(Box::pin(RecordBatchStreamAdapter::new(schema(), futures::stream::iter(batches))), Settings::new())
    }

    fn batch(values: &[i32]) -> RecordBatch {
        let strings: Vec<String> = values.iter().map(|v| format!("v{v}")).collect();
        RecordBatch::try_new(schema(), vec![Arc::new(Int32Array::from(values.to_vec())), Arc::new(StringArray::from(strings))]).unwrap()
    }

    async fn read_all(engine: &LogEngine) -> Vec<i32> {
        let ctx = SessionContext::new();
        let plan = engine.scan(&ctx.state(), None, &[], None).await.unwrap();
        let batches = datafusion::physical_plan::collect(plan, ctx.task_ctx()).await.unwrap();
        let mut values: Vec<i32> = batches.iter().flat_map(|b| b.column(0).as_any().downcast_ref::<Int32Array>().unwrap().values().to_vec()).collect();
        values.sort();
        values
    }

    #[tokio::test]
    async fn inserts_survive_reopen_and_failed_inserts_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let engine = LogEngine::open("Log", schema(), path.clone()).unwrap();
        engine.insert(request(vec![Ok(batch(&[1, 2])), Ok(batch(&[3]))])).await.unwrap();
        let failed = engine.insert(request(vec![Ok(batch(&[4])), Err(datafusion::error::DataFusionError::Execution("broken".into()))])).await;
        assert!(failed.is_err());
        engine.insert(request(vec![Ok(batch(&[5]))])).await.unwrap();
        assert_eq!(read_all(&engine).await, vec![1, 2, 3, 5]);
        assert_eq!(engine.total_rows(), Some(4));
        // A leftover temporary file (a crash during an INSERT) is not data.
        fs::write(path.join(format!("{TEMP_PREFIX}x{DATA_SUFFIX}")), b"partial").unwrap();
        drop(engine);
        let engine = LogEngine::open("Log", schema(), path.clone()).unwrap();
        assert_eq!(read_all(&engine).await, vec![1, 2, 3, 5]);
        assert_eq!(fs::read_dir(&path).unwrap().count(), 2);
        engine.truncate().await.unwrap();
        assert_eq!(read_all(&engine).await, Vec::<i32>::new());
        engine.insert(request(vec![Ok(batch(&[7]))])).await.unwrap();
        let engine = LogEngine::open("Log", schema(), path).unwrap();
        assert_eq!(read_all(&engine).await, vec![7]);
    }
}
