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

use arrow::array::{Array, ArrayRef, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::TreeNode;
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
use granary_types::ChType;

use crate::detect::Compression;
use crate::download::{DownloadOptions, ObjectReader};
use crate::hive::HiveColumn;
use crate::remote::RemoteStore;

/// Names of the virtual columns.
pub const VIRTUAL_COLUMNS: [&str; 5] = ["_path", "_file", "_size", "_time", "_etag"];

/// The type of virtual column `name` (one of [`VIRTUAL_COLUMNS`]): LowCardinality(String),
/// Nullable(UInt64) and Nullable(DateTime), as ClickHouse 26 types them.
pub fn virtual_column_type(name: &str) -> ChType {
    match name {
        "_size" => ChType::Nullable(Box::new(ChType::UInt64)),
        "_time" => ChType::Nullable(Box::new(ChType::DateTime(None))),
        _ => ChType::LowCardinality(Box::new(ChType::String)),
    }
}

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
    /// The object's ETag as the store reports it (`_etag`); `None` for a local file, whose
    /// `_etag` is empty as in ClickHouse.
    pub etag: Option<String>,
    /// Where a remote file's bytes come from; `None` for a local file.
    pub remote: Option<Arc<RemoteObject>>,
    /// The values of the table's hive columns for this file ([`crate::hive`]).
    pub hive_values: Option<Arc<[ScalarValue]>>,
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

/// Where a column of a [`FileTable`] comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ColumnSource {
    /// The file's column at this index.
    Data(usize),
    /// The file's path: the value of hive column at this index.
    Hive(usize),
    Path,
    File,
    /// `_size`: the file's size in bytes.
    Size,
    /// `_time`: the file's last modification time.
    Time,
    /// `_etag`: the object's ETag.
    Etag,
}

impl ColumnSource {
    /// The value of a per-file virtual column.
    fn file_value(self, file: &FileEntry) -> ScalarValue {
        match self {
            ColumnSource::Size => ScalarValue::UInt64(Some(file.size)),
            ColumnSource::Time => ScalarValue::TimestampSecond(file.last_modified.map(|t| t.timestamp()), None),
            ColumnSource::File => ScalarValue::Utf8(Some(file.name().to_string())),
            ColumnSource::Etag => ScalarValue::Utf8(Some(file.etag.clone().unwrap_or_default())),
            _ => ScalarValue::Utf8(Some(file.path.clone())),
        }
    }
}

/// `file(...)` after argument resolution and inference.
#[derive(Debug)]
pub struct FileTable {
    /// The file's columns (a hive column standing in for one of them), the other hive
    /// columns, then `_path`, `_file`, `_size` and `_time` when the query names one of them.
    schema: SchemaRef,
    /// The columns in the files, as parsers and the Parquet reader see them.
    data_schema: SchemaRef,
    sources: Arc<Vec<ColumnSource>>,
    hive: Vec<HiveColumn>,
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
        let download = DownloadOptions { buffer_size: 10 << 20, threads: 4 };
        let data_schema = if format == "Parquet" { string_views(&data_schema) } else { data_schema };
        let (schema, sources) = layout(&data_schema, &[], with_virtual);
        FileTable { schema, data_schema, sources, hive: Vec::new(), files, format, compression, with_virtual, format_settings, skip_empty, download }
    }

    /// Columns from the files' paths ([`crate::hive`]); the files carry their values.
    pub fn with_hive_columns(mut self, hive: Vec<HiveColumn>) -> Self {
        let (schema, sources) = layout(&self.data_schema, &hive, self.with_virtual);
        self.schema = schema;
        self.sources = sources;
        self.hive = hive;
        self
    }

    /// How remote files are downloaded (`max_download_threads`, `max_download_buffer_size`).
    pub fn with_download(mut self, download: DownloadOptions) -> Self {
        self.download = download;
        self
    }

    /// The files a query must read: those whose hive values and virtual columns (`_path`, `_file`, `_size`, `_time`, `_etag`) pass
    /// every filter that only looks at them (filters that cannot be evaluated that way
    /// prune nothing; DataFusion applies all filters to the rows anyway).
    fn files_to_read(&self, state: &dyn Session, filters: &[Expr]) -> Vec<FileEntry> {
        let mut names: Vec<&str> = self.hive.iter().map(|h| h.name.as_str()).collect();
        names.extend(VIRTUAL_COLUMNS);
        let usable: Vec<&Expr> = filters
            .iter()
            .filter(|f| {
                let columns = f.column_refs();
                !columns.is_empty() && columns.iter().all(|c| names.contains(&c.name.as_str()))
            })
            .collect();
        if usable.is_empty() || self.files.is_empty() {
            return self.files.clone();
        }
        match self.prune(state, &usable) {
            Ok(keep) => self.files.iter().zip(keep).filter(|(_, keep)| *keep).map(|(f, _)| f.clone()).collect(),
            Err(e) => {
                tracing::debug!("file pruning skipped: {e}");
                self.files.clone()
            }
        }
    }

    fn prune(&self, state: &dyn Session, filters: &[&Expr]) -> datafusion::common::Result<Vec<bool>> {
        let mut fields = Vec::new();
        let mut columns: Vec<ArrayRef> = Vec::new();
        for (h, column) in self.hive.iter().enumerate() {
            let values = self.files.iter().map(|f| f.hive_values.as_ref().and_then(|v| v.get(h).cloned()).unwrap_or(ScalarValue::Null));
            let array = ScalarValue::iter_to_array(values)?;
            fields.push(Field::new(&column.name, array.data_type().clone(), true));
            columns.push(array);
        }
        fields.push(Field::new("_path", DataType::Utf8, false));
        columns.push(Arc::new(StringArray::from_iter_values(self.files.iter().map(|f| f.path.as_str()))));
        fields.push(Field::new("_file", DataType::Utf8, false));
        columns.push(Arc::new(StringArray::from_iter_values(self.files.iter().map(|f| f.name()))));
        for (name, source) in [("_size", ColumnSource::Size), ("_time", ColumnSource::Time), ("_etag", ColumnSource::Etag)] {
            let array = ScalarValue::iter_to_array(self.files.iter().map(|f| source.file_value(f)))?;
            fields.push(Field::new(name, array.data_type().clone(), true));
            columns.push(array);
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)?;
        let df_schema = datafusion::common::DFSchema::try_from(batch.schema().as_ref().clone())?;
        let mut keep = vec![true; self.files.len()];
        for filter in filters {
            let unqualified = (*filter).clone().transform(|e| {
                Ok(match e {
                    Expr::Column(c) if c.relation.is_some() => datafusion::common::tree_node::Transformed::yes(Expr::Column(datafusion::common::Column::new_unqualified(c.name))),
                    other => datafusion::common::tree_node::Transformed::no(other),
                })
            })?;
            let physical = state.create_physical_expr(unqualified.data, &df_schema)?;
            let result = physical.evaluate(&batch)?.into_array(batch.num_rows())?;
            let Some(passed) = result.as_any().downcast_ref::<arrow::array::BooleanArray>() else { continue };
            for (row, keep) in keep.iter_mut().enumerate() {
                *keep &= passed.is_valid(row) && passed.value(row);
            }
        }
        Ok(keep)
    }

    async fn scan_parquet(
        &self,
        state: &dyn Session,
        files: &[FileEntry],
        projection: Option<&Vec<usize>>,
        limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        // DataFusion's table: the files' own columns (without those a hive column stands
        // in for), then the per-file values (hive columns, `_path`, `_file`).
        let replaced: Vec<usize> = self.hive.iter().filter_map(|h| h.replaces).collect();
        let file_fields: Vec<Field> =
            self.data_schema.fields().iter().enumerate().filter(|(i, _)| !replaced.contains(i)).map(|(_, f)| f.as_ref().clone()).collect();
        let file_index = |data_index: usize| data_index - replaced.iter().filter(|&&r| r < data_index).count();
        let partition_sources: Vec<(usize, ColumnSource)> =
            self.sources.iter().enumerate().filter(|(_, s)| !matches!(s, ColumnSource::Data(_))).map(|(i, s)| (i, *s)).collect();
        let mut partition_fields: Vec<Arc<Field>> = Vec::new();
        for (output, _) in &partition_sources {
            partition_fields.push(Arc::new(self.schema.field(*output).clone()));
        }
        let internal_index = |output: usize| match self.sources[output] {
            ColumnSource::Data(i) => file_index(i),
            _ => file_fields.len() + partition_sources.iter().position(|(o, _)| *o == output).unwrap_or(0),
        };
        let internal_projection: Vec<usize> = match projection {
            Some(p) => p.iter().map(|&i| internal_index(i)).collect(),
            None => (0..self.schema.fields().len()).map(internal_index).collect(),
        };
        let mut partitioned: Vec<PartitionedFile> = Vec::with_capacity(files.len());
        for f in files {
            let location = match &f.remote {
                Some(object) => object.location.to_string(),
                None => f.path.trim_start_matches('/').to_string(),
            };
            let mut pf = PartitionedFile::new(location, f.size);
            if let Some(modified) = f.last_modified {
                pf.object_meta.last_modified = modified;
            }
            if !partition_sources.is_empty() {
                let values = partition_sources
                    .iter()
                    .map(|(output, source)| match source {
                        ColumnSource::Hive(h) => f.hive_values.as_ref().and_then(|v| v.get(*h).cloned()).map_or_else(|| ScalarValue::try_from(self.schema.field(*output).data_type()), Ok),
                        other => Ok(other.file_value(f)),
                    })
                    .collect::<datafusion::common::Result<Vec<_>>>()?;
                pf = pf.with_partition_values(values);
            }
            partitioned.push(pf);
        }
        let table_schema = TableSchema::builder(Arc::new(Schema::new(file_fields.clone()))).with_table_partition_cols(partition_fields).build();
        let source = ParquetSource::new(table_schema);
        // One table function call reads from one store. A remote store has a footer cache
        // of its own: the shared one is keyed by path only.
        let (store_url, store, footer_cache) = match files.first().and_then(|f| f.remote.as_ref()) {
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
            .with_parquet_file_reader_factory(Arc::new(CachedParquetFileReaderFactory::new(store.clone(), footer_cache.clone())));
        let source = Arc::new(source);
        let threads = state.config().target_partitions().max(1);
        let groups = if partitioned.len() < threads {
            split_by_row_groups(partitioned, threads, store.as_ref(), &footer_cache).await
        } else {
            let mut groups: Vec<Vec<PartitionedFile>> = vec![Vec::new(); threads];
            for (i, pf) in partitioned.into_iter().enumerate() {
                groups[i % threads].push(pf);
            }
            groups
        };
        let config = FileScanConfigBuilder::new(store_url, source)
            .with_file_groups(groups.into_iter().map(FileGroup::new).collect())
            .with_projection_indices(Some(internal_projection))?
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
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        let files = self.files_to_read(state, filters);
        if files.is_empty() {
            let projected = match projection {
                Some(p) => Arc::new(self.schema.project(p)?),
                None => self.schema.clone(),
            };
            return Ok(Arc::new(EmptyExec::new(projected)));
        }
        if self.format == "Parquet" {
            use futures::{StreamExt, TryStreamExt};
            futures::stream::iter(files.iter().map(check_parquet_magic)).buffer_unordered(16).try_collect::<Vec<()>>().await?;
            return Ok(granary_storage::ScanCounterExec::wrap(self.scan_parquet(state, &files, projection, limit).await?));
        }
        let threads = state.config().target_partitions().max(1).min(files.len());
        let mut groups: Vec<Vec<FileEntry>> = vec![Vec::new(); threads];
        for (i, f) in files.iter().enumerate() {
            groups[i % threads].push(f.clone());
        }
        let partitions: Vec<Arc<dyn PartitionStream>> = groups
            .into_iter()
            .map(|files| {
                Arc::new(TextPartition {
                    schema: self.schema.clone(),
                    data_schema: self.data_schema.clone(),
                    sources: self.sources.clone(),
                    files,
                    format: self.format.clone(),
                    compression: self.compression,
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
    sources: Arc<Vec<ColumnSource>>,
    files: Vec<FileEntry>,
    format: String,
    compression: Option<Compression>,
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

    /// The table's columns from the file's: hive values and the virtual columns put in.
    fn with_virtual_columns(&self, batch: RecordBatch, file: &FileEntry) -> Result<RecordBatch> {
        if self.sources.iter().enumerate().all(|(i, s)| *s == ColumnSource::Data(i)) && self.sources.len() == batch.num_columns() {
            return Ok(batch);
        }
        let rows = batch.num_rows();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.sources.len());
        for (output, source) in self.sources.iter().enumerate() {
            columns.push(match source {
                ColumnSource::Data(i) => batch.column(*i).clone(),
                ColumnSource::Hive(h) => {
                    let value = match file.hive_values.as_ref().and_then(|v| v.get(*h)) {
                        Some(value) => value.clone(),
                        None => ScalarValue::try_from(self.schema.field(output).data_type())?,
                    };
                    value.to_array_of_size(rows)?
                }
                ColumnSource::Path => Arc::new(StringArray::from_iter_values(std::iter::repeat_n(file.path.as_str(), rows))),
                ColumnSource::File => Arc::new(StringArray::from_iter_values(std::iter::repeat_n(file.name(), rows))),
                ColumnSource::Size | ColumnSource::Time | ColumnSource::Etag => source.file_value(file).to_array_of_size(rows)?,
            });
        }
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

/// A truncated or foreign file is refused before it is scanned, with ClickHouse's
/// message (a cheap read of the last bytes; the footer itself is read by the scan).
pub(crate) async fn check_parquet_magic(file: &FileEntry) -> Result<()> {
    let bad = || Error::new(ErrorCode::INCORRECT_DATA, format!("Not a Parquet file (wrong magic bytes at the end of file): (in file/uri {})", file.path));
    if file.size < 12 {
        return Err(bad());
    }
    let magic = match &file.remote {
        Some(object) => {
            let range = file.size - 4..file.size;
            let bytes = object_store::ObjectStoreExt::get_range(object.store.store.as_ref(), &object.location, range)
                .await
                .map_err(|e| crate::remote::remote_error(object.store.kind, &file.path, e))?;
            bytes.to_vec()
        }
        None => {
            use std::io::{Read, Seek, SeekFrom};
            let mut handle = std::fs::File::open(&file.path).map_err(|e| open_error(&file.path, e))?;
            let mut magic = [0u8; 4];
            handle.seek(SeekFrom::End(-4)).and_then(|_| handle.read_exact(&mut magic)).map_err(|e| crate::detect::corrupt(&file.path, e))?;
            magic.to_vec()
        }
    };
    if magic != b"PAR1" {
        return Err(bad());
    }
    Ok(())
}

/// Parquet's String columns read as `Utf8View`: values of dictionary-encoded pages then
/// point into the dictionary instead of being copied out, and DataFusion filters, groups
/// and sorts the views (inline 12-byte prefixes). Granary's functions take their
/// arguments as `Utf8` (their `coerce_types` asks DataFusion for the cast), and every
/// plan's result is cast back to `Utf8` (`granary_types::without_views`), so nothing
/// outside a query sees a view.
fn string_views(schema: &SchemaRef) -> SchemaRef {
    if !schema.fields().iter().any(|f| f.data_type() == &DataType::Utf8) {
        return schema.clone();
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| if f.data_type() == &DataType::Utf8 { f.as_ref().clone().with_data_type(DataType::Utf8View) } else { f.as_ref().clone() })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The table's schema and where each column comes from: the file's columns (a hive
/// column standing in for one keeps its place), the other hive columns, then `_path`
/// and `_file` when asked for.
fn layout(data_schema: &SchemaRef, hive: &[HiveColumn], with_virtual: bool) -> (SchemaRef, Arc<Vec<ColumnSource>>) {
    let mut fields: Vec<Field> = Vec::new();
    let mut sources = Vec::new();
    for (i, field) in data_schema.fields().iter().enumerate() {
        fields.push(field.as_ref().clone());
        sources.push(match hive.iter().position(|h| h.replaces == Some(i)) {
            Some(h) => ColumnSource::Hive(h),
            None => ColumnSource::Data(i),
        });
    }
    for (h, column) in hive.iter().enumerate() {
        if column.replaces.is_none() {
            fields.push(column.ch_type.to_arrow_field(&column.name));
            sources.push(ColumnSource::Hive(h));
        }
    }
    if with_virtual {
        let sources_of = [ColumnSource::Path, ColumnSource::File, ColumnSource::Size, ColumnSource::Time, ColumnSource::Etag];
        for (name, source) in VIRTUAL_COLUMNS.into_iter().zip(sources_of) {
            if fields.iter().all(|f| f.name() != name) {
                // Marked virtual: `*` leaves them out, and an engine table's scan matches
                // the fields its virtual columns are planned with.
                fields.push(granary_storage::virtual_columns::field(name, &virtual_column_type(name), "", "").as_ref().clone());
                sources.push(source);
            }
        }
    }
    (Arc::new(Schema::new(fields)), Arc::new(sources))
}

/// Fewer Parquet files than threads: the files' row groups spread over `threads`
/// groups of about equal compressed size, each row group read by one group (a
/// `ParquetAccessPlan` per piece), so one large file is decoded on every thread.
/// DataFusion's own split cuts files into equal byte ranges, and a row group belongs to
/// the range holding its middle: when the footer is a large share of the file, every
/// row group can land in the first range. Without footers (an unreadable file) the
/// files stay whole, for the read to report the error.
async fn split_by_row_groups(
    files: Vec<PartitionedFile>,
    threads: usize,
    store: &dyn object_store::ObjectStore,
    footer_cache: &Arc<datafusion::execution::cache::cache_manager::FileMetadataCache>,
) -> Vec<Vec<PartitionedFile>> {
    use datafusion::datasource::physical_plan::parquet::metadata::DFParquetMetadata;
    use datafusion::datasource::physical_plan::parquet::ParquetAccessPlan;
    let whole = |files: Vec<PartitionedFile>| files.into_iter().map(|f| vec![f]).collect::<Vec<_>>();
    let mut sizes: Vec<Vec<u64>> = Vec::with_capacity(files.len());
    for file in &files {
        let metadata = DFParquetMetadata::new(store, &file.object_meta).with_file_metadata_cache(Some(footer_cache.clone())).fetch_metadata().await;
        match metadata {
            Ok(metadata) => sizes.push(metadata.row_groups().iter().map(|rg| rg.compressed_size().max(1) as u64).collect()),
            Err(_) => return whole(files),
        }
    }
    let total: u64 = sizes.iter().flatten().sum();
    let row_groups: usize = sizes.iter().map(Vec::len).sum();
    if row_groups <= files.len() {
        return whole(files);
    }
    // A row group goes to the group holding its middle byte when the row groups of all
    // files are laid end to end and cut into `threads` equal ranges.
    let threads = threads.min(row_groups) as u64;
    let mut groups: Vec<Vec<PartitionedFile>> = Vec::with_capacity(threads as usize);
    let mut offset = 0u64;
    for (file, sizes) in files.into_iter().zip(sizes) {
        let mut pieces: Vec<(u64, ParquetAccessPlan)> = Vec::new();
        for (index, size) in sizes.iter().enumerate() {
            let group = ((offset + size / 2) * threads / total).min(threads - 1);
            offset += size;
            match pieces.last_mut() {
                Some((g, plan)) if *g == group => plan.scan(index),
                _ => {
                    let mut plan = ParquetAccessPlan::new_none(sizes.len());
                    plan.scan(index);
                    pieces.push((group, plan));
                }
            }
        }
        for (group, plan) in pieces {
            while groups.len() <= group as usize {
                groups.push(Vec::new());
            }
            groups[group as usize].push(file.clone().with_extension(plan));
        }
    }
    groups.retain(|g| !g.is_empty());
    groups
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
            sources: self.sources.clone(),
            files: self.files.clone(),
            format: self.format.clone(),
            compression: self.compression,
            settings: self.settings.clone(),
            skip_empty: self.skip_empty,
            download: self.download,
        };
        tokio::task::spawn_blocking(granary_profiler::carry(move || {
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
        }));
        let stream = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), stream))
    }
}
