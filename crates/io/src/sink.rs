//! Writing into files and objects: `INSERT INTO FUNCTION file(...)`, `s3(...)` and
//! `url(...)` (an HTTP POST with a chunked body, as ClickHouse sends it).
//!
//! The function's arguments name a destination, a format, a structure and a
//! compression ([`resolve_sink`]). The rows then arrive through the ordinary INSERT path
//! as into any table ([`SinkTarget::into_table`] wraps a [`FileSink`] engine), so column
//! lists, casts and defaults behave as for tables.
//!
//! ```text
//!  batches ─► (PARTITION BY: rows grouped by toString(expr)) ─► one ObjectWriter per
//!  destination: OutputFormat ─► Encoder (gzip/zstd/lz4) ─► local file | S3 upload | POST
//! ```
//!
//! Nothing partial becomes visible on failure: a new local file is written under a
//! temporary name, fsynced and renamed; an append is cut back to the old length; an S3
//! object is one PUT, or a multipart upload that is aborted (memory stays bounded by the
//! part size times `s3_max_inflight_parts_for_one_file`). A POST's body ends only at
//! commit; on failure the body is broken off, so the server never sees a complete request.
//!
//! Existing destinations follow ClickHouse: a local file is appended to when its format
//! allows appends (no second header for `*WithNames`), otherwise it is an error unless
//! `engine_file_truncate_on_insert` or `engine_file_allow_create_multiple_files`; an
//! existing S3 object is an error unless `s3_truncate_on_insert` or
//! `s3_create_new_file_on_insert` (`data.csv` -> `data.1.csv`, `data.2.csv`, ...).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, AsArray, UInt32Array};
use arrow::compute::{cast, take_record_batch};
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::{ExecutionPlan, PhysicalExpr};
use futures::StreamExt;
use granary_common::{Error, ErrorCode, Result, Settings};
use granary_formats::{create_output_format, FormatSettings, OutputFormat, QueryStatistics};
use granary_storage::{ColumnMeta, InsertRequest, InsertResult, Table, TableEngine};
use granary_types::ChType;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStoreExt, PutPayload};

use crate::detect::{format_from_name, Compression, Encoder};
use crate::function::{format_args, parse_structure, string_arg, FormatArgs};
use crate::glob::has_glob;
use crate::remote::{remote_error, RemoteStore};
use crate::remote_functions::{ResolvedS3, S3Function};
use crate::IoContext;

/// Where `{_partition_id}` in a path is replaced by the partition of the rows.
pub const PARTITION_ID_PLACEHOLDER: &str = "{_partition_id}";

/// Formats whose files are whole documents (a footer, a closing bracket): appending a
/// second one would corrupt the file.
const NOT_APPENDABLE: &[&str] = &[
    "Parquet",
    "Arrow",
    "ORC",
    "Avro",
    "JSON",
    "JSONCompact",
    "JSONStrings",
    "JSONCompactStrings",
    "JSONColumns",
    "JSONCompactColumns",
    "JSONColumnsWithMetadata",
    "JSONObjectEachRow",
    "XML",
    "Markdown",
    "MD",
];

/// What the arguments of a table function say about writing into it.
#[derive(Debug)]
pub struct SinkTarget {
    function: String,
    destination: Destination,
    pub format: String,
    /// The `structure` argument, if given (else the columns come from the SELECT).
    pub structure: Option<Vec<(String, ChType)>>,
    compression: Compression,
    partition_options: PartitionOptions,
}

/// `partition_strategy` and `partition_columns_in_data_file` of s3()-like functions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartitionOptions {
    pub strategy: Option<PartitionStrategy>,
    pub columns_in_data_file: Option<bool>,
}

impl PartitionOptions {
    /// Takes the partitioning arguments out of `named` (the others stay).
    pub(crate) fn take_from(named: &mut Vec<(String, String)>) -> Result<PartitionOptions> {
        let mut options = PartitionOptions::default();
        let mut rest = Vec::new();
        for (name, value) in named.drain(..) {
            match name.as_str() {
                "partition_strategy" => {
                    options.strategy = Some(match value.to_ascii_lowercase().as_str() {
                        "hive" => PartitionStrategy::Hive,
                        "wildcard" => PartitionStrategy::Wildcard,
                        _ => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Partition strategy {value} is not supported"))),
                    })
                }
                "partition_columns_in_data_file" => {
                    options.columns_in_data_file = Some(match value.to_ascii_lowercase().as_str() {
                        "1" | "true" => true,
                        "0" | "false" => false,
                        _ => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("partition_columns_in_data_file must be 0 or 1, got '{value}'"))),
                    })
                }
                _ => rest.push((name, value)),
            }
        }
        *named = rest;
        Ok(options)
    }

    /// A read has no PARTITION BY: `hive` cannot apply (ClickHouse's error).
    pub(crate) fn check_for_read(&self) -> Result<()> {
        if self.strategy == Some(PartitionStrategy::Hive) {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Partition strategy hive can not be used without a PARTITION BY expression"));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionStrategy {
    /// `{_partition_id}` in the path is replaced by `toString(PARTITION BY expression)`.
    Wildcard,
    /// `key=value/` directories under the path, one file per partition named by a
    /// snowflake id and the format; the partition columns are left out of the files.
    Hive,
}

/// How an INSERT's rows are spread over destinations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionMode {
    /// One destination (also when PARTITION BY does not apply, as ClickHouse ignores it
    /// for a path without `{_partition_id}` outside hive partitioning).
    Single,
    Wildcard,
    Hive,
}

/// The partitioning of an INSERT's rows, computed by the query layer.
pub enum SinkPartitioning {
    /// The expression gives `toString(PARTITION BY expression)` per row.
    Wildcard(Arc<dyn PhysicalExpr>),
    /// The expression gives `key=value/...` per row; `columns` are the partition
    /// columns (indexes in the INSERT's columns), left out of the files unless
    /// `partition_columns_in_data_file`.
    Hive { key: Arc<dyn PhysicalExpr>, columns: Vec<usize> },
}

#[derive(Debug, Clone)]
enum Destination {
    /// An absolute path inside `root` (`user_files_path`); may hold the placeholder.
    Local { root: PathBuf, path: PathBuf },
    /// A key in a bucket; may hold the placeholder.
    Remote { store: Arc<RemoteStore>, bucket: String, key: String },
    /// An HTTP(S) URL the rows are POSTed to; may hold the placeholder.
    Http { url: String },
}

impl Destination {
    fn text(&self) -> String {
        match self {
            Destination::Local { path, .. } => path.to_string_lossy().into_owned(),
            Destination::Remote { bucket, key, .. } => format!("{bucket}/{key}"),
            Destination::Http { url } => url.clone(),
        }
    }
}

/// Resolves `INSERT INTO FUNCTION name(args)`. `file`, `url` and the `s3` family write.
pub fn resolve_sink(ctx: &IoContext, function: &str, exprs: &[Expr]) -> Result<SinkTarget> {
    let mut partition_options = PartitionOptions::default();
    let (destination, args) = if function == "file" {
        let (positional, named) = crate::function::split_named_arguments(exprs);
        crate::function::no_named_arguments(function, &named)?;
        let exprs = positional.as_slice();
        let Some((path_expr, rest)) = exprs.split_first() else {
            return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Table function 'file' requires 1 to 4 arguments: path, [format, [structure, [compression]]]"));
        };
        let path = string_arg("file", path_expr)?;
        let root = std::path::absolute(&ctx.user_files_path)?;
        let confined = crate::local::confine(&root, &path)?;
        if has_glob(&path.replace(PARTITION_ID_PLACEHOLDER, "")) {
            return Err(Error::new(ErrorCode::DATABASE_ACCESS_DENIED, "Table '_table_function.file' is in readonly mode because of globs in filepath"));
        }
        (Destination::Local { root, path: confined }, format_args("file", rest)?)
    } else if let Some(s3) = S3Function::named(function) {
        let ResolvedS3 { location, remote, args, partition } = s3.resolve(ctx, exprs)?;
        partition_options = partition;
        if has_glob(&location.key.replace(PARTITION_ID_PLACEHOLDER, "")) {
            return Err(Error::new(
                ErrorCode::DATABASE_ACCESS_DENIED,
                format!("Non partitioned table with path '{}' that contains globs, the table is in readonly mode", location.key),
            ));
        }
        (Destination::Remote { store: remote, bucket: location.bucket, key: location.key }, args)
    } else if let Some(azure) = crate::azure::AzureFunction::named(function) {
        let crate::azure::ResolvedAzure { remote, account, knobs, container, blob_path, args, partition } = azure.resolve(ctx, exprs)?;
        partition_options = partition;
        if has_glob(&blob_path.replace(PARTITION_ID_PLACEHOLDER, "")) {
            return Err(Error::new(
                ErrorCode::DATABASE_ACCESS_DENIED,
                format!("Non partitioned table with path '{blob_path}' that contains globs, the table is in readonly mode"),
            ));
        }
        // A writing client creates a missing container, as ClickHouse's does.
        crate::azure::ensure_container(&account, &container, &knobs)?;
        (Destination::Remote { store: remote, bucket: container, key: blob_path }, args)
    } else if function == "url" {
        let (url, args) = crate::remote_functions::url_arguments(ctx, exprs)?;
        let parsed = url::Url::parse(&url.replace(PARTITION_ID_PLACEHOLDER, "x")).map_err(|e| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad URL {url}: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Cannot write into {url}: url() writes over http and https only")));
        }
        (Destination::Http { url }, args)
    } else {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Table function '{function}' does not support INSERT (file, url, s3, gcs, s3Cluster and azureBlobStorage do)")));
    };
    let FormatArgs { format, structure, compression } = args;
    let name = destination.text();
    let format = match format.or_else(|| format_from_name(&name).map(str::to_string)) {
        Some(format) => format,
        None => {
            return Err(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Cannot determine the output format of {name} from its extension; give the format as an argument of {function}()"),
            ))
        }
    };
    let compression = match compression {
        Some(c) => c,
        None => Compression::detect(&name)?,
    };
    let structure = structure.map(|s| parse_structure(&s)).transpose()?;
    Ok(SinkTarget { function: function.to_string(), destination, format, structure, compression, partition_options })
}

impl SinkTarget {
    /// Whether the path names `{_partition_id}` (required by `PARTITION BY`).
    pub fn has_partition_placeholder(&self) -> bool {
        self.destination.text().contains(PARTITION_ID_PLACEHOLDER)
    }

    /// How PARTITION BY (`has_partition_by`) applies, as ClickHouse decides it: a path
    /// with `{_partition_id}` is `wildcard`; `partition_strategy = 'hive'` (or, for
    /// object storage, `file_like_engine_default_partition_strategy = 'hive'` and a path
    /// without the placeholder) is `hive`; otherwise PARTITION BY is ignored.
    pub fn partition_mode(&self, has_partition_by: bool, settings: &Settings) -> Result<PartitionMode> {
        let mode = self.decide_partition_mode(has_partition_by, settings)?;
        if let (PartitionMode::Single | PartitionMode::Wildcard, Destination::Remote { bucket, key, .. }) = (mode, &self.destination) {
            if key.is_empty() || key.ends_with('/') {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Cannot write into '{bucket}/{key}': the URL names no object key")));
            }
        }
        Ok(mode)
    }

    fn decide_partition_mode(&self, has_partition_by: bool, settings: &Settings) -> Result<PartitionMode> {
        let placeholder = self.has_partition_placeholder();
        let object_storage = matches!(self.destination, Destination::Remote { .. });
        let bad = |message: &str| Err(Error::new(ErrorCode::BAD_ARGUMENTS, message.to_string()));
        match self.partition_options.strategy {
            Some(PartitionStrategy::Hive) => {
                if placeholder {
                    return bad("Partition strategy hive can not be used with a '_partition_id' wildcard in the path");
                }
                if !has_partition_by {
                    return bad("Partition strategy hive can not be used without a PARTITION BY expression");
                }
                Ok(PartitionMode::Hive)
            }
            Some(PartitionStrategy::Wildcard) => {
                if has_partition_by && !placeholder {
                    return bad("Partition strategy wildcard can not be used without a '_partition_id' wildcard");
                }
                if self.partition_options.columns_in_data_file == Some(false) {
                    return bad("Partition strategy wildcard can not be used with partition_columns_in_data_file=0");
                }
                self.wildcard_mode(has_partition_by)
            }
            None if placeholder => self.wildcard_mode(has_partition_by),
            None if has_partition_by && object_storage && settings.get_str("file_like_engine_default_partition_strategy").eq_ignore_ascii_case("hive") => {
                Ok(PartitionMode::Hive)
            }
            None => Ok(PartitionMode::Single),
        }
    }

    fn wildcard_mode(&self, has_partition_by: bool) -> Result<PartitionMode> {
        if !has_partition_by {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("The path of {}() names {PARTITION_ID_PLACEHOLDER} but the INSERT has no PARTITION BY", self.function)));
        }
        Ok(PartitionMode::Wildcard)
    }

    /// The destination as a table of `columns`, its rows spread by `partition`.
    pub fn into_table(self, columns: &[(String, ChType)], partition: Option<SinkPartitioning>, settings: &Settings, format_settings: FormatSettings) -> Result<Arc<Table>> {
        let metas: Vec<ColumnMeta> = columns.iter().map(|(name, ty)| ColumnMeta::new(name, ty)).collect();
        let schema = Arc::new(arrow::datatypes::Schema::new(columns.iter().map(|(n, t)| t.to_arrow_field(n)).collect::<Vec<_>>()));
        // Hive partitioning leaves the partition columns out of the files by default.
        let file_columns: Vec<usize> = match &partition {
            Some(SinkPartitioning::Hive { columns: partition_columns, .. }) if !self.partition_options.columns_in_data_file.unwrap_or(false) => {
                (0..columns.len()).filter(|i| !partition_columns.contains(i)).collect()
            }
            _ => (0..columns.len()).collect(),
        };
        if file_columns.is_empty() {
            return Err(Error::new(
                ErrorCode::INCORRECT_DATA,
                "A hive partitioned file can't contain only partition columns. Try reading it with `use_hive_partitioning=0` and/or `partition_strategy != hive`",
            ));
        }
        let file_schema = Arc::new(schema.project(&file_columns)?);
        // Fails now, before anything is read, for an unknown or input-only format.
        create_output_format(&self.format, file_schema.clone(), &format_settings)?;
        let function = self.function.clone();
        let engine = Arc::new(FileSink { target: self, schema, file_schema, file_columns, partition, settings: settings.clone(), format_settings });
        Table::detached("_table_function", &function, metas, engine)
    }
}

/// The engine behind `INSERT INTO FUNCTION`: writes, never reads.
pub struct FileSink {
    target: SinkTarget,
    schema: SchemaRef,
    /// What the files hold: `schema` without hive partition columns.
    file_schema: SchemaRef,
    file_columns: Vec<usize>,
    partition: Option<SinkPartitioning>,
    settings: Settings,
    format_settings: FormatSettings,
}

impl std::fmt::Debug for FileSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileSink").field("destination", &self.target.destination.text()).field("format", &self.target.format).finish()
    }
}

#[async_trait]
impl TableEngine for FileSink {
    fn engine_name(&self) -> &str {
        match &self.target.destination {
            Destination::Local { .. } => "File",
            Destination::Remote { store, .. } if store.kind == crate::remote::RemoteKind::Azure => "AzureBlobStorage",
            Destination::Remote { .. } => "S3",
            Destination::Http { .. } => "URL",
        }
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    async fn scan(&self, _session: &dyn Session, _projection: Option<&Vec<usize>>, _filters: &[Expr], _limit: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
        Err(Error::new(ErrorCode::LOGICAL_ERROR, "INSERT INTO FUNCTION targets are not read"))
    }

    async fn insert(&self, request: InsertRequest) -> Result<InsertResult> {
        let mut writers: Vec<ObjectWriter> = Vec::new();
        let result = self.write_all(request, &mut writers).await;
        if result.is_err() {
            for writer in writers {
                writer.abort().await;
            }
        }
        result
    }

    async fn truncate(&self) -> Result<()> {
        Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "TRUNCATE of a table function is not supported"))
    }

    async fn drop_data(&self) -> Result<()> {
        Ok(())
    }
}

impl FileSink {
    async fn write_all(&self, request: InsertRequest, writers: &mut Vec<ObjectWriter>) -> Result<InsertResult> {
        let mut by_partition: HashMap<String, usize> = HashMap::new();
        let mut input = request.into_stream();
        let mut rows = 0u64;
        while let Some(batch) = input.next().await {
            let batch = batch?;
            rows += batch.num_rows() as u64;
            match &self.partition {
                None => {
                    let writer = self.writer_for("", &mut by_partition, writers).await?;
                    writer.write(&batch).await?;
                }
                Some(SinkPartitioning::Wildcard(expr) | SinkPartitioning::Hive { key: expr, .. }) => {
                    for (id, rows_of_partition) in partition_rows(expr.as_ref(), &batch)? {
                        let part = take_record_batch(&batch, &rows_of_partition)?;
                        let part = if self.file_columns.len() == part.num_columns() { part } else { part.project(&self.file_columns)? };
                        let writer = self.writer_for(&id, &mut by_partition, writers).await?;
                        writer.write(&part).await?;
                    }
                }
            }
        }
        if writers.is_empty() && self.partition.is_none() {
            // An empty INSERT still creates the file (a header, an empty Parquet file).
            self.writer_for("", &mut by_partition, writers).await?;
        }
        // Every destination is complete before any becomes visible; a failure up to here
        // leaves none behind. Commits (a rename, completing an upload) rarely fail; the
        // ones not yet committed when one does are still in `writers`, and the caller
        // aborts them.
        let mut written_bytes = 0;
        for writer in writers.iter_mut() {
            written_bytes += writer.seal().await?;
        }
        while !writers.is_empty() {
            writers.remove(0).sink.commit().await?;
        }
        Ok(InsertResult { written_rows: rows, written_bytes })
    }

    async fn writer_for<'a>(&self, partition_id: &str, by_partition: &mut HashMap<String, usize>, writers: &'a mut Vec<ObjectWriter>) -> Result<&'a mut ObjectWriter> {
        let index = match by_partition.get(partition_id) {
            Some(&i) => i,
            None => {
                let writer = self.open_writer(partition_id).await?;
                writers.push(writer);
                by_partition.insert(partition_id.to_string(), writers.len() - 1);
                writers.len() - 1
            }
        };
        Ok(&mut writers[index])
    }

    async fn open_writer(&self, partition_id: &str) -> Result<ObjectWriter> {
        let format = create_output_format(&self.target.format, self.file_schema.clone(), &self.format_settings)?;
        let level = self.settings.get_u64("output_format_compression_level").clamp(1, 22) as u32;
        let encoder = Encoder::new(self.target.compression, level)?;
        let appendable = !NOT_APPENDABLE.contains(&self.target.format.as_str());
        let (sink, append) = match &self.target.destination {
            Destination::Local { root, path } => {
                let path = PathBuf::from(path.to_string_lossy().replace(PARTITION_ID_PLACEHOLDER, partition_id));
                let path = crate::local::confine(root, &path.to_string_lossy())?;
                let file = LocalFile::open(root, &path, &self.target.format, appendable, &self.settings)?;
                let append = file.appends();
                (ByteSink::Local(file), append)
            }
            Destination::Remote { store, bucket, key } => {
                let key = match &self.partition {
                    Some(SinkPartitioning::Hive { .. }) => hive_object_key(key, partition_id, &self.target.format),
                    _ => key.replace(PARTITION_ID_PLACEHOLDER, partition_id),
                };
                let upload = RemoteUpload::open(store.clone(), bucket, &key, &self.settings).await?;
                (ByteSink::Remote(upload), false)
            }
            Destination::Http { url } => (ByteSink::Http(HttpPost::open(url.replace(PARTITION_ID_PLACEHOLDER, partition_id))), false),
        };
        Ok(ObjectWriter { format, encoder: Some(encoder), scratch: Vec::new(), sink, write_prefix: !append, started: false, formatted_bytes: 0 })
    }
}

/// `prefix/key=value/.../<snowflake id>.<format in lower case>`, ClickHouse's names for
/// the files of hive partitioning (`hive_key` ends with `/`).
fn hive_object_key(prefix: &str, hive_key: &str, format: &str) -> String {
    let mut key = prefix.to_string();
    if !key.is_empty() && !key.ends_with('/') {
        key.push('/');
    }
    key.push_str(hive_key);
    key.push_str(&format!("{}.{}", snowflake_id(), format.to_ascii_lowercase()));
    key
}

/// A snowflake id as ClickHouse's `generateSnowflakeID()`: milliseconds since the epoch
/// in the high bits, then a machine part and a sequence; strictly increasing in this
/// process, so two files of one INSERT never get the same name.
fn snowflake_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let millis = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let machine = u64::from(std::process::id()) & 0x3ff;
    let candidate = (millis << 22) | (machine << 12);
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        let next = candidate.max(last + 1);
        match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => last = seen,
        }
    }
}

/// The columns of `PARTITION BY` for hive partitioning: a column or a tuple of columns
/// (ClickHouse's rule), as indexes into `columns`, each of a type a path can hold.
pub fn hive_partition_columns(expression: &str, columns: &[(String, ChType)]) -> Result<Vec<usize>> {
    use datafusion::sql::sqlparser::ast::Expr as Ast;
    use datafusion::sql::sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    let not_a_column = |what: &str| {
        Error::new(ErrorCode::BAD_ARGUMENTS, format!("Hive partitioning expects that the partition by expression columns are a part of the storage columns, could not find '{what}' in storage"))
    };
    let dialect = datafusion::sql::sqlparser::dialect::ClickHouseDialect {};
    let parsed = datafusion::sql::sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(expression)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse PARTITION BY {expression}: {e}")))?;
    let mut items = match parsed {
        Ast::Tuple(items) => items,
        Ast::Function(f) if f.name.to_string().eq_ignore_ascii_case("tuple") => match f.args {
            FunctionArguments::List(list) => list
                .args
                .into_iter()
                .map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(e),
                    other => Err(not_a_column(&other.to_string())),
                })
                .collect::<Result<Vec<_>>>()?,
            _ => Vec::new(),
        },
        other => vec![other],
    };
    let mut indexes = Vec::new();
    for item in items.drain(..) {
        let mut item = item;
        while let Ast::Nested(inner) = item {
            item = *inner;
        }
        let Ast::Identifier(ident) = &item else { return Err(not_a_column(&item.to_string())) };
        let index = columns.iter().position(|(name, _)| *name == ident.value).ok_or_else(|| not_a_column(&ident.value))?;
        let ty = &columns[index].1;
        let supported = matches!(
            ty,
            ChType::UInt8 | ChType::UInt16 | ChType::UInt32 | ChType::UInt64 | ChType::Int8 | ChType::Int16 | ChType::Int32 | ChType::Int64 | ChType::Date | ChType::DateTime(_) | ChType::String | ChType::FixedString(_)
        );
        if !supported {
            return Err(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Hive partitioning supports only partition columns of types: Integer, Date, Time, DateTime and String/FixedString. Found '{ty}'"),
            ));
        }
        indexes.push(index);
    }
    Ok(indexes)
}

/// The rows of each partition of `batch`, by `toString(partition expression)`, in order
/// of first appearance.
fn partition_rows(expr: &dyn PhysicalExpr, batch: &RecordBatch) -> Result<Vec<(String, UInt32Array)>> {
    let ids = expr.evaluate(batch)?.into_array(batch.num_rows())?;
    let ids = cast(&ids, &DataType::Utf8)?;
    let ids = ids.as_string::<i32>();
    let mut order: Vec<String> = Vec::new();
    let mut rows: HashMap<&str, Vec<u32>> = HashMap::new();
    for row in 0..ids.len() {
        let id = if ids.is_null(row) { "" } else { ids.value(row) };
        validate_partition_id(id)?;
        rows.entry(id).or_insert_with(|| {
            order.push(id.to_string());
            Vec::new()
        });
        if let Some(list) = rows.get_mut(id) {
            list.push(row as u32);
        }
    }
    Ok(order
        .into_iter()
        .map(|id| {
            let list = rows.remove(id.as_str()).unwrap_or_default();
            (id, UInt32Array::from(list))
        })
        .collect())
}

/// Partition ids become parts of paths: characters that would be read back as globs, or
/// that no file system takes, are refused (as ClickHouse does).
fn validate_partition_id(id: &str) -> Result<()> {
    if let Some(c) = id.chars().find(|c| matches!(c, '\0' | '{' | '}' | '*' | '?')) {
        return Err(Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Illegal character '{}' in partition id starting with '{}'", c.escape_default(), id.chars().take(20).collect::<String>())));
    }
    if id.split('/').any(|component| component == "..") {
        return Err(Error::new(ErrorCode::DATABASE_ACCESS_DENIED, format!("Partition id '{id}' would leave the destination directory")));
    }
    Ok(())
}

/// One destination file or object being written.
struct ObjectWriter {
    format: Box<dyn OutputFormat>,
    encoder: Option<Encoder>,
    scratch: Vec<u8>,
    sink: ByteSink,
    /// False when appending to a non-empty file: its header is already there.
    write_prefix: bool,
    started: bool,
    formatted_bytes: u64,
}

impl ObjectWriter {
    async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.scratch.clear();
        self.start()?;
        self.format.write_batch(batch, &mut self.scratch)?;
        self.flush_scratch().await
    }

    fn start(&mut self) -> Result<()> {
        if !self.started {
            self.started = true;
            if self.write_prefix {
                self.format.write_prefix(&mut self.scratch)?;
            }
        }
        Ok(())
    }

    async fn flush_scratch(&mut self) -> Result<()> {
        self.formatted_bytes += self.scratch.len() as u64;
        let encoder = self.encoder.as_mut().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "write after finish"))?;
        encoder.write_all(&self.scratch)?;
        let chunk = encoder.take_output();
        self.sink.write(chunk).await
    }

    /// Writes the suffix and closes the compression stream; the destination is not yet
    /// visible. Returns the bytes written before compression.
    async fn seal(&mut self) -> Result<u64> {
        self.scratch.clear();
        self.start()?;
        self.format.write_suffix(&QueryStatistics::default(), &mut self.scratch)?;
        self.flush_scratch().await?;
        let encoder = self.encoder.take().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "finish twice"))?;
        let tail = encoder.finish()?;
        self.sink.write(tail).await?;
        Ok(self.formatted_bytes)
    }

    async fn abort(self) {
        self.sink.abort().await;
    }
}

enum ByteSink {
    Local(LocalFile),
    Remote(RemoteUpload),
    Http(HttpPost),
}

impl ByteSink {
    async fn write(&mut self, bytes: Vec<u8>) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        match self {
            ByteSink::Local(file) => file.write(&bytes),
            ByteSink::Remote(upload) => upload.write(bytes).await,
            ByteSink::Http(post) => post.write(bytes).await,
        }
    }

    async fn commit(self) -> Result<()> {
        match self {
            ByteSink::Local(file) => file.commit(),
            ByteSink::Remote(upload) => upload.commit().await,
            ByteSink::Http(post) => post.commit().await,
        }
    }

    async fn abort(self) {
        match self {
            ByteSink::Local(file) => file.abort(),
            ByteSink::Remote(upload) => upload.abort().await,
            ByteSink::Http(post) => post.abort().await,
        }
    }
}

/// A local destination: a new file under a temporary name (renamed on commit), or an
/// existing one appended to (cut back to its old length on abort).
struct LocalFile {
    file: File,
    path: PathBuf,
    mode: LocalMode,
}

enum LocalMode {
    New { temp: PathBuf },
    Append { old_length: u64 },
}

fn file_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot {what} {}: {e}", path.display()))
}

impl LocalFile {
    fn open(root: &Path, path: &Path, format: &str, appendable: bool, settings: &Settings) -> Result<LocalFile> {
        let parent = path.parent().ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("{} is not a file path", path.display())))?;
        std::fs::create_dir_all(parent).map_err(|e| file_error(parent, "create directory", e))?;
        // The directory (after symlinks) must still be inside user_files_path.
        let canonical_root = root.canonicalize().map_err(|e| file_error(root, "open", e))?;
        let canonical_parent = parent.canonicalize().map_err(|e| file_error(parent, "open", e))?;
        if !canonical_parent.starts_with(&canonical_root) {
            return Err(Error::new(ErrorCode::DATABASE_ACCESS_DENIED, format!("File is not inside {}/", root.display())));
        }
        let mut target = path.to_path_buf();
        if let Ok(link) = std::fs::symlink_metadata(&target) {
            if link.file_type().is_symlink() {
                let resolved = target.canonicalize().map_err(|e| file_error(&target, "open", e))?;
                if !resolved.starts_with(&canonical_root) {
                    return Err(Error::new(ErrorCode::DATABASE_ACCESS_DENIED, format!("File is not inside {}/", root.display())));
                }
                target = resolved;
            }
        }
        let existing_length = std::fs::metadata(&target).ok().filter(|m| m.is_file()).map(|m| m.len()).unwrap_or(0);
        if existing_length > 0 && !settings.get_bool("engine_file_truncate_on_insert") {
            if appendable {
                let file = OpenOptions::new().append(true).open(&target).map_err(|e| file_error(&target, "open", e))?;
                return Ok(LocalFile { file, path: target, mode: LocalMode::Append { old_length: existing_length } });
            }
            if !settings.get_bool("engine_file_allow_create_multiple_files") {
                return Err(Error::new(
                    ErrorCode::CANNOT_APPEND_TO_FILE,
                    format!(
                        "File {} already exists and data cannot be appended to this file as the {format} format doesn't support appends. You can enable truncate on insertion with the `engine_file_truncate_on_insert` setting, or you can configure ClickHouse to create a new file on each insert by enabling the setting `engine_file_allow_create_multiple_files`",
                        target.display()
                    ),
                ));
            }
            let text = target.to_string_lossy().into_owned();
            let free = (1u64..)
                .map(|i| PathBuf::from(numbered_name(&text, i)))
                .find(|candidate| !candidate.exists())
                .ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "no free file name"))?;
            target = free;
        }
        let file_name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let temp = target.with_file_name(format!(".{file_name}.tmp.{}", std::process::id()));
        let file = OpenOptions::new().write(true).create(true).truncate(true).open(&temp).map_err(|e| file_error(&temp, "create", e))?;
        Ok(LocalFile { file, path: target, mode: LocalMode::New { temp } })
    }

    fn appends(&self) -> bool {
        matches!(self.mode, LocalMode::Append { .. })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.file.write_all(bytes).map_err(|e| Error::new(ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR, format!("Cannot write to file {}: {e}", self.path.display())))
    }

    fn commit(self) -> Result<()> {
        self.file.sync_all().map_err(|e| file_error(&self.path, "fsync", e))?;
        if let LocalMode::New { temp } = &self.mode {
            granary_storage::fs::rename_durable(temp, &self.path)?;
        }
        Ok(())
    }

    fn abort(self) {
        match self.mode {
            LocalMode::New { temp } => {
                let _ = std::fs::remove_file(temp);
            }
            LocalMode::Append { old_length } => {
                let _ = self.file.set_len(old_length);
            }
        }
    }
}

/// `dir/data.csv.gz` -> `dir/data.1.csv.gz`: the number goes before the first dot of
/// the file name, as ClickHouse names the files of repeated inserts.
fn numbered_name(path: &str, index: u64) -> String {
    let name_start = path.rfind('/').map_or(0, |i| i + 1);
    match path[name_start..].find('.') {
        Some(dot) => format!("{}.{index}{}", &path[..name_start + dot], &path[name_start + dot..]),
        None => format!("{path}.{index}"),
    }
}

/// An S3 (or Azure) destination: bytes are kept until `s3_max_single_part_upload_size`
/// (one PUT at commit); past that a multipart upload takes parts of
/// `s3_min_upload_part_size`, at most `s3_max_inflight_parts_for_one_file` in flight
/// (`azure_*` settings for Azure, where parts are blocks of a block blob). The upload is aborted whenever it
/// does not complete (a part that fails after its retries, a failed completion, an
/// abandoned INSERT), so no parts are left behind in the bucket.
struct RemoteUpload {
    store: Arc<RemoteStore>,
    location: ObjectPath,
    display: String,
    pending: Vec<u8>,
    multipart: Option<Multipart>,
    single_part_limit: usize,
    part_size: usize,
    max_inflight: usize,
}

/// An open multipart upload: parts are sent in order as they fill, the upload itself
/// stays ours to complete or abort.
struct Multipart {
    upload: Box<dyn object_store::MultipartUpload>,
    in_flight: tokio::task::JoinSet<object_store::Result<()>>,
}

impl Multipart {
    /// Waits until fewer than `limit` parts are in flight; the first failed part fails it.
    async fn wait_for_capacity(&mut self, limit: usize) -> object_store::Result<()> {
        while self.in_flight.len() >= limit.max(1) {
            self.join_one().await?;
        }
        Ok(())
    }

    async fn join_one(&mut self) -> object_store::Result<()> {
        match self.in_flight.join_next().await {
            Some(Ok(result)) => result,
            Some(Err(e)) => Err(object_store::Error::JoinError { source: e }),
            None => Ok(()),
        }
    }

    async fn send(&mut self, part: Vec<u8>, limit: usize) -> object_store::Result<()> {
        self.wait_for_capacity(limit).await?;
        self.in_flight.spawn(self.upload.put_part(PutPayload::from(part)));
        Ok(())
    }

    async fn finish(&mut self) -> object_store::Result<()> {
        while !self.in_flight.is_empty() {
            self.join_one().await?;
        }
        self.upload.complete().await.map(|_| ())
    }

    async fn abort(mut self) {
        self.in_flight.abort_all();
        while self.in_flight.join_next().await.is_some() {}
        let _ = self.upload.abort().await;
    }
}

/// S3 refuses parts below 5 MiB (except the last).
const MIN_PART_SIZE: usize = 5 << 20;

impl RemoteUpload {
    async fn open(store: Arc<RemoteStore>, bucket: &str, key: &str, settings: &Settings) -> Result<RemoteUpload> {
        let prefix = if store.kind == crate::remote::RemoteKind::Azure { "azure" } else { "s3" };
        let setting = |name: &str| format!("{prefix}_{name}");
        let mut key = key.to_string();
        let exists = |key: String| {
            let store = store.clone();
            async move {
                match store.store.head(&ObjectPath::from(key.as_str())).await {
                    Ok(_) => Ok(true),
                    Err(object_store::Error::NotFound { .. }) => Ok(false),
                    Err(e) => Err(remote_error(store.kind, &format!("{bucket}/{key}"), e)),
                }
            }
        };
        if !settings.get_bool(&setting("truncate_on_insert")) && exists(key.clone()).await? {
            if !settings.get_bool(&setting("create_new_file_on_insert")) {
                return Err(Error::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Object in bucket {bucket} with key {key} already exists. If you want to overwrite it, enable setting {prefix}_truncate_on_insert, if you want to create a new file on each insert, enable setting {prefix}_create_new_file_on_insert"),
                ));
            }
            let mut index = 1;
            loop {
                let candidate = numbered_name(&key, index);
                if !exists(candidate.clone()).await? {
                    key = candidate;
                    break;
                }
                index += 1;
            }
        }
        let part_size = (settings.get_u64(&setting("min_upload_part_size")) as usize).max(MIN_PART_SIZE);
        Ok(RemoteUpload {
            location: ObjectPath::from(key.as_str()),
            display: format!("{bucket}/{key}"),
            store,
            pending: Vec::new(),
            multipart: None,
            single_part_limit: (settings.get_u64(&setting("max_single_part_upload_size")) as usize).max(1),
            part_size,
            max_inflight: (settings.get_u64(&setting("max_inflight_parts_for_one_file")) as usize).max(1),
        })
    }

    fn error(&self, e: object_store::Error) -> Error {
        remote_error(self.store.kind, &self.display, e)
    }

    async fn write(&mut self, bytes: Vec<u8>) -> Result<()> {
        self.pending.extend_from_slice(&bytes);
        if self.multipart.is_none() {
            if self.pending.len() <= self.single_part_limit {
                return Ok(());
            }
            let upload = self.store.store.put_multipart(&self.location).await.map_err(|e| self.error(e))?;
            self.multipart = Some(Multipart { upload, in_flight: tokio::task::JoinSet::new() });
        }
        while self.pending.len() >= self.part_size {
            let rest = self.pending.split_off(self.part_size);
            let part = std::mem::replace(&mut self.pending, rest);
            let sent = match self.multipart.as_mut() {
                Some(multipart) => multipart.send(part, self.max_inflight).await,
                None => Ok(()),
            };
            sent.map_err(|e| self.error(e))?;
        }
        Ok(())
    }

    async fn commit(mut self) -> Result<()> {
        match self.multipart.take() {
            Some(mut multipart) => {
                let last = std::mem::take(&mut self.pending);
                let mut outcome = Ok(());
                if !last.is_empty() {
                    outcome = multipart.send(last, self.max_inflight).await;
                }
                if outcome.is_ok() {
                    outcome = multipart.finish().await;
                }
                if let Err(e) = outcome {
                    multipart.abort().await;
                    return Err(self.error(e));
                }
            }
            None => {
                let payload = PutPayload::from(std::mem::take(&mut self.pending));
                self.store.store.put(&self.location, payload).await.map_err(|e| self.error(e))?;
            }
        }
        Ok(())
    }

    async fn abort(self) {
        if let Some(multipart) = self.multipart {
            multipart.abort().await;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn numbered_names() {
        assert_eq!(numbered_name("dir.d/data.csv.gz", 1), "dir.d/data.1.csv.gz");
        assert_eq!(numbered_name("w/a.csv", 2), "w/a.2.csv");
        assert_eq!(numbered_name("noext", 3), "noext.3");
    }

    #[test]
    fn hive_keys_and_columns() {
        let key = hive_object_key("out/data.parquet", "year=2024/", "Parquet");
        assert!(key.starts_with("out/data.parquet/year=2024/") && key.ends_with(".parquet"), "{key}");
        assert_eq!(hive_object_key("", "k=1/", "CSVWithNames").rsplit('.').next(), Some("csvwithnames"));
        assert!(snowflake_id() < snowflake_id());
        let columns = vec![
            ("id".to_string(), ChType::UInt64),
            ("year".to_string(), ChType::UInt16),
            ("country".to_string(), ChType::String),
            ("score".to_string(), ChType::Float64),
            ("n".to_string(), ChType::parse("Nullable(Int32)").unwrap()),
        ];
        assert_eq!(hive_partition_columns("year", &columns).unwrap(), vec![1]);
        assert_eq!(hive_partition_columns("(year, country)", &columns).unwrap(), vec![1, 2]);
        assert_eq!(hive_partition_columns("tuple(country, id)", &columns).unwrap(), vec![2, 0]);
        assert_eq!(hive_partition_columns("toString(year)", &columns).unwrap_err().code(), ErrorCode::BAD_ARGUMENTS);
        assert!(hive_partition_columns("score", &columns).unwrap_err().message().contains("Found 'Float64'"));
        assert!(hive_partition_columns("n", &columns).is_err());
        assert!(hive_partition_columns("missing", &columns).is_err());
    }

    #[test]
    fn partition_ids() {
        assert!(validate_partition_id("2024-01/x").is_ok());
        assert!(validate_partition_id("a*").is_err());
        assert!(validate_partition_id("../up").is_err());
    }
}

/// An HTTP POST whose chunked body is the formatted rows, sent while they are produced
/// (memory holds a few chunks, whatever the INSERT's size).
struct HttpPost {
    url: String,
    body: Option<tokio::sync::mpsc::Sender<std::io::Result<bytes::Bytes>>>,
    request: tokio::task::JoinHandle<Result<()>>,
}

/// Chunks buffered between the writer and the request.
const HTTP_BODY_CHUNKS: usize = 8;

impl HttpPost {
    fn open(url: String) -> HttpPost {
        let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<bytes::Bytes>>(HTTP_BODY_CHUNKS);
        let body = reqwest::Body::wrap_stream(futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|chunk| (chunk, rx)) }));
        let target = url.clone();
        let request = tokio::spawn(async move {
            let response = http_client().post(&target).body(body).send().await.map_err(|e| http_error(&target, &e.to_string()))?;
            let status = response.status();
            if status.is_success() {
                return Ok(());
            }
            let text = response.text().await.unwrap_or_default();
            let text: String = text.chars().take(1000).collect();
            Err(Error::new(
                ErrorCode::RECEIVED_ERROR_FROM_REMOTE_IO_SERVER,
                format!("Received error from remote server {target}. HTTP status code: {} {}, body: {text}", status.as_u16(), status.canonical_reason().unwrap_or("")),
            ))
        });
        HttpPost { url, body: Some(tx), request }
    }

    async fn write(&mut self, bytes: Vec<u8>) -> Result<()> {
        let sent = match &self.body {
            Some(body) => body.send(Ok(bytes.into())).await.is_ok(),
            None => false,
        };
        if sent {
            return Ok(());
        }
        // The request ended before its body did: its outcome says why.
        self.body = None;
        match (&mut self.request).await {
            Ok(Err(e)) => Err(e),
            _ => Err(http_error(&self.url, "the server closed the request before the body was sent")),
        }
    }

    async fn commit(mut self) -> Result<()> {
        self.body = None;
        match self.request.await {
            Ok(result) => result,
            Err(e) => Err(http_error(&self.url, &e.to_string())),
        }
    }

    async fn abort(mut self) {
        // An error in the body stream breaks the chunked encoding off: the server sees an
        // incomplete request, not a short but complete one.
        if let Some(body) = self.body.take() {
            let _ = body.send(Err(std::io::Error::other("INSERT failed"))).await;
        }
        let _ = self.request.await;
    }
}

fn http_client() -> &'static reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(reqwest::Client::new)
}

fn http_error(url: &str, detail: &str) -> Error {
    Error::new(ErrorCode::RECEIVED_ERROR_FROM_REMOTE_IO_SERVER, format!("Cannot POST to {url}: {detail}"))
}
