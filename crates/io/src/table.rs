//! The table a `file(...)` call resolves to: a list of files, one format, the columns,
//! and how to scan them.
//!
//! Parquet goes through DataFusion's parquet source (projection, row-group pruning by
//! statistics from pushed-down filters, byte-range splitting of big files across
//! partitions). Text formats are streamed: each partition reads its files in 1 MiB
//! pieces through the decompressor into a `granary-formats` [`InputFormat`] on a
//! blocking thread, so no file is ever held in memory whole. Files are spread over
//! `max_threads` partitions.

use std::io::Read;
use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{DataFusionError, ScalarValue};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::object_store::ObjectStoreUrl;
use datafusion::datasource::physical_plan::parquet::CachedParquetFileReaderFactory;
use datafusion::datasource::physical_plan::{FileGroup, FileScanConfigBuilder, ParquetSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::datasource::TableType;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode, Result};
use granary_formats::{create_input_format, FormatSettings};

use crate::detect::Compression;
use crate::download::{DownloadOptions, ObjectReader};
use crate::remote::RemoteStore;

/// Names of the virtual columns.
pub const VIRTUAL_COLUMNS: [&str; 2] = ["_path", "_file"];

/// One matched file.
#[derive(Debug, Clone)]
pub struct FileEntry {
    /// Absolute path of a local file; `bucket/key` of an S3 object; the URL of url().
    /// This is `_path`.
    pub path: String,
    pub size: u64,
    /// Part of the Parquet footer cache's key (with the path and size), so a rewritten
    /// file is never read with a stale footer.
    pub last_modified: Option<chrono::DateTime<chrono::Utc>>,
    /// Where a remote file's bytes come from; `None` for a local file.
    pub remote: Option<Arc<RemoteObject>>,
}

/// An object in a bucket (or behind a URL).
#[derive(Debug)]
pub struct RemoteObject {
    pub store: Arc<RemoteStore>,
    pub location: object_store::path::Path,
}

impl FileEntry {
    pub fn name(&self) -> &str {
        let path = self.path.split(['?', '#']).next().unwrap_or(&self.path);
        path.rsplit('/').next().unwrap_or(path)
    }

    /// Opens the file for reading; a remote one starts downloading at once. Call from a
    /// thread that may block.
    pub fn open(&self, download: DownloadOptions) -> Result<Box<dyn Read + Send>> {
        match &self.remote {
            None => Ok(Box::new(std::fs::File::open(&self.path).map_err(|e| open_error(&self.path, e))?)),
            Some(object) => {
                let runtime = tokio::runtime::Handle::try_current()
                    .map_err(|_| Error::new(ErrorCode::LOGICAL_ERROR, "remote files are read from within the runtime"))?;
                Ok(Box::new(ObjectReader::open(&runtime, object.store.store.clone(), object.store.kind, object.location.clone(), self.size, download)))
            }
        }
    }
}

/// `file(...)` after argument resolution and inference.
#[derive(Debug)]
pub struct FileTable {
    /// Data columns, then `_path` and `_file` when the query names them.
    schema: SchemaRef,
    data_schema: SchemaRef,
    files: Vec<FileEntry>,
    /// The exact input format (a detected header already folded in).
    format: String,
    /// `None`: from each file's name.
    compression: Option<Compression>,
    with_virtual: bool,
    format_settings: FormatSettings,
    /// `engine_file_skip_empty_files` / `s3_skip_empty_files`.
    skip_empty: bool,
    download: DownloadOptions,
}

impl FileTable {
    pub fn new(
        data_schema: SchemaRef,
        files: Vec<FileEntry>,
        format: String,
        compression: Option<Compression>,
        with_virtual: bool,
        format_settings: FormatSettings,
        skip_empty: bool,
    ) -> Self {
        let mut fields: Vec<Field> = data_schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        if with_virtual {
            for name in VIRTUAL_COLUMNS {
                if data_schema.field_with_name(name).is_err() {
                    fields.push(Field::new(name, DataType::Utf8, false));
                }
            }
        }
        let download = DownloadOptions { buffer_size: 10 << 20, threads: 4 };
        FileTable { schema: Arc::new(Schema::new(fields)), data_schema, files, format, compression, with_virtual, format_settings, skip_empty, download }
    }

    /// How remote files are downloaded (`max_download_threads`, `max_download_buffer_size`).
    pub fn with_download(mut self, download: DownloadOptions) -> Self {
        self.download = download;
        self
    }

    fn virtual_count(&self) -> usize {
        self.schema.fields().len() - self.data_schema.fields().len()
    }

    async fn scan_parquet(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let partition_fields: Vec<Arc<Field>> = self.schema.fields()[self.data_schema.fields().len()..].to_vec();
        let threads = state.config().target_partitions().max(1);
        let mut groups: Vec<Vec<PartitionedFile>> = vec![Vec::new(); threads.min(self.files.len()).max(1)];
        let n = groups.len();
        for (i, f) in self.files.iter().enumerate() {
            let location = match &f.remote {
                Some(object) => object.location.to_string(),
                None => f.path.trim_start_matches('/').to_string(),
            };
            let mut pf = PartitionedFile::new(location, f.size);
            if let Some(modified) = f.last_modified {
                pf.object_meta.last_modified = modified;
            }
            if self.virtual_count() > 0 {
                let values = partition_fields
                    .iter()
                    .map(|field| ScalarValue::Utf8(Some(if field.name() == "_path" { f.path.clone() } else { f.name().to_string() })))
                    .collect();
                pf = pf.with_partition_values(values);
            }
            groups[i % n].push(pf);
        }
        let table_schema = TableSchema::builder(self.data_schema.clone()).with_table_partition_cols(partition_fields).build();
        let source = ParquetSource::new(table_schema);
        // One table function call reads from one store. A remote store has a footer cache
        // of its own: the shared one is keyed by path only.
        let (store_url, store, footer_cache) = match self.files.first().and_then(|f| f.remote.as_ref()) {
            Some(object) => {
                state.runtime_env().register_object_store(object.store.url.as_ref(), object.store.store.clone());
                (object.store.url.clone(), object.store.store.clone(), object.store.footer_cache.clone())
            }
            None => {
                let url = ObjectStoreUrl::local_filesystem();
                (url.clone(), state.runtime_env().object_store(&url)?, state.runtime_env().cache_manager.get_file_metadata_cache())
            }
        };
        let source = source
            .with_table_parquet_options(state.table_options().parquet.clone())
            .with_parquet_file_reader_factory(Arc::new(CachedParquetFileReaderFactory::new(store, footer_cache)));
        let source = Arc::new(source);
        let config = FileScanConfigBuilder::new(store_url, source)
            .with_file_groups(groups.into_iter().map(FileGroup::new).collect())
            .with_projection_indices(projection.cloned())?
            .with_limit(limit)
            .build();
        Ok(DataSourceExec::from_data_source(config))
    }
}

#[async_trait]
impl TableProvider for FileTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    fn supports_filters_pushdown(&self, filters: &[&Expr]) -> datafusion::common::Result<Vec<TableProviderFilterPushDown>> {
        // Parquet prunes row groups with them; DataFusion still filters the rows.
        Ok(vec![TableProviderFilterPushDown::Inexact; filters.len()])
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        if self.files.is_empty() {
            let projected = match projection {
                Some(p) => Arc::new(self.schema.project(p)?),
                None => self.schema.clone(),
            };
            return Ok(Arc::new(EmptyExec::new(projected)));
        }
        if self.format == "Parquet" {
            return Ok(granary_storage::ScanCounterExec::wrap(self.scan_parquet(state, projection, limit).await?));
        }
        let threads = state.config().target_partitions().max(1).min(self.files.len());
        let mut groups: Vec<Vec<FileEntry>> = vec![Vec::new(); threads];
        for (i, f) in self.files.iter().enumerate() {
            groups[i % threads].push(f.clone());
        }
        let partitions: Vec<Arc<dyn PartitionStream>> = groups
            .into_iter()
            .map(|files| {
                Arc::new(TextPartition {
                    schema: self.schema.clone(),
                    data_schema: self.data_schema.clone(),
                    files,
                    format: self.format.clone(),
                    compression: self.compression,
                    with_virtual: self.with_virtual,
                    settings: self.format_settings.clone(),
                    skip_empty: self.skip_empty,
                    download: self.download,
                }) as Arc<dyn PartitionStream>
            })
            .collect();
        let exec = StreamingTableExec::try_new(self.schema.clone(), partitions, projection, vec![], false, limit)?;
        Ok(granary_storage::ScanCounterExec::wrap(Arc::new(exec)))
    }
}

#[derive(Debug)]
struct TextPartition {
    schema: SchemaRef,
    data_schema: SchemaRef,
    files: Vec<FileEntry>,
    format: String,
    compression: Option<Compression>,
    with_virtual: bool,
    settings: FormatSettings,
    skip_empty: bool,
    download: DownloadOptions,
}

/// Bytes handed to the parser at a time.
const READ_CHUNK: usize = 1 << 20;

impl TextPartition {
    /// Reads one file into batches sent through `tx`; stops early when the receiver is gone.
    fn read_file(&self, file: &FileEntry, handle: Box<dyn Read + Send>, tx: &tokio::sync::mpsc::Sender<datafusion::common::Result<RecordBatch>>) -> Result<bool> {
        let compression = match self.compression {
            Some(c) => c,
            None => Compression::detect(&file.path)?,
        };
        let mut reader = compression.reader(handle)?;
        let mut parser = create_input_format(&self.format, self.data_schema.clone(), &self.settings)?;
        let mut buf = vec![0u8; READ_CHUNK];
        let mut out = Vec::new();
        let context = |e: Error| e.context(format!("(in file/uri {})", file.path));
        loop {
            let n = match reader.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(crate::detect::corrupt(&file.path, e)),
            };
            if n == 0 {
                parser.finish(&mut out).map_err(context)?;
            } else {
                parser.push(&buf[..n], &mut out).map_err(context)?;
            }
            for batch in out.drain(..) {
                let batch = self.with_virtual_columns(batch, file)?;
                if tx.blocking_send(Ok(batch)).is_err() {
                    return Ok(false);
                }
            }
            if n == 0 {
                return Ok(true);
            }
        }
    }

    fn with_virtual_columns(&self, batch: RecordBatch, file: &FileEntry) -> Result<RecordBatch> {
        if !self.with_virtual || self.schema.fields().len() == batch.num_columns() {
            return Ok(batch);
        }
        let rows = batch.num_rows();
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        for field in &self.schema.fields()[batch.num_columns()..] {
            let value = if field.name() == "_path" { file.path.as_str() } else { file.name() };
            columns.push(Arc::new(StringArray::from_iter_values(std::iter::repeat_n(value, rows))));
        }
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

pub(crate) fn open_error(path: &str, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        Error::new(ErrorCode::FILE_DOESNT_EXIST, format!("File {path} doesn't exist"))
    } else {
        Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot open file {path}: {e}"))
    }
}

impl PartitionStream for TextPartition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (tx, mut rx) = tokio::sync::mpsc::channel(2);
        let me = TextPartition {
            schema: self.schema.clone(),
            data_schema: self.data_schema.clone(),
            files: self.files.clone(),
            format: self.format.clone(),
            compression: self.compression,
            with_virtual: self.with_virtual,
            settings: self.settings.clone(),
            skip_empty: self.skip_empty,
            download: self.download,
        };
        tokio::task::spawn_blocking(move || {
            let files: Vec<&FileEntry> = me.files.iter().filter(|f| !(me.skip_empty && f.size == 0)).collect();
            // The next file is opened (for a remote one: its download started) before the
            // current one is parsed, so small objects are prefetched.
            let mut next = files.first().map(|f| f.open(me.download));
            for (i, file) in files.iter().enumerate() {
                let current = next.take();
                next = files.get(i + 1).map(|f| f.open(me.download));
                let outcome = match current {
                    Some(Ok(handle)) => me.read_file(file, handle, &tx),
                    Some(Err(e)) => Err(e),
                    None => Ok(true),
                };
                match outcome {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(e) => {
                        let _ = tx.blocking_send(Err(DataFusionError::from(e)));
                        return;
                    }
                }
            }
        });
        let stream = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), stream))
    }
}
