//! `ENGINE = File(format [, path [, compression]])`, `URL(url, format [, compression])`
//! and `S3(url [, NOSIGN | key, secret [, token]] [, format [, compression]])` (or
//! `S3(named_collection, key = value, ...)`): tables whose data is a file or an object,
//! read and written through the `file()`, `url()` and `s3()` table functions with the
//! table's columns as their structure. Globs, formats, compression, the virtual columns
//! (`_path`, `_file`, `_size`, `_time`, `_etag`, shown to queries that name them) and
//! the INSERT rules (append, `engine_file_truncate_on_insert`, `s3_truncate_on_insert`,
//! `s3_create_new_file_on_insert`, `PARTITION BY` of an S3 table as of `INSERT INTO
//! FUNCTION s3() PARTITION BY`, ...) are those functions'.
//!
//! `File(format)` without a path keeps its data in the table directory as
//! `data.<format>`, as ClickHouse does; with a path, the path is under `user_files_path`.

use std::path::PathBuf;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use chrono_tz::Tz;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl};
use datafusion::common::{Column, ScalarValue};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode, Result, Settings};
use granary_formats::FormatSettings;
use granary_storage::{EngineContext, EngineFactory, EngineRegistry, InsertRequest, InsertResult, TableEngine, TableMeta};
use granary_types::ChType;

use crate::named_collections::NamedCollections;
use crate::IoContext;

/// What the engines need of the server to make a query's [`IoContext`] when they have
/// no query session (an INSERT).
#[derive(Debug)]
pub struct IoBase {
    pub user_files_path: PathBuf,
    pub s3_endpoints: Arc<Vec<crate::remote::S3EndpointConfig>>,
    pub named_collections: Arc<NamedCollections>,
    pub timezone: Tz,
}

/// Registers `File`, `URL` and `S3`.
pub fn register(registry: &mut EngineRegistry, base: Arc<IoBase>) {
    for kind in [Kind::File, Kind::Url, Kind::S3] {
        registry.register(Arc::new(ObjectEngineFactory { kind, base: base.clone() }));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Url,
    S3,
}

impl Kind {
    fn of_engine(name: &str) -> Option<Kind> {
        [Kind::File, Kind::Url, Kind::S3].into_iter().find(|k| k.engine() == name)
    }

    fn engine(self) -> &'static str {
        match self {
            Kind::File => "File",
            Kind::Url => "URL",
            Kind::S3 => "S3",
        }
    }

    fn function(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Url => "url",
            Kind::S3 => "s3",
        }
    }
}

/// An engine argument as written in CREATE TABLE, as the table function takes it.
fn argument_expr(text: &str) -> Result<Expr> {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        return Ok(Expr::Literal(ScalarValue::Utf8(Some(unescape(inner))), None));
    }
    // `name = value`: a one-field struct, as the query layer hands named arguments over.
    if let Some((name, value)) = text.split_once('=') {
        let name = name.trim();
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            let value = value.trim();
            let value = match value.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
                Some(inner) => unescape(inner),
                None => value.to_string(),
            };
            return Ok(named_expr(name, &value));
        }
    }
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '`' || c == '"') {
        return Ok(Expr::Column(Column::from_name(text.trim_matches('`').trim_matches('"'))));
    }
    Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Engine arguments must be string literals, identifiers or `name = value`, got {text}")))
}

fn unescape(text: &str) -> String {
    text.replace("\\'", "'").replace("''", "'").replace("\\\\", "\\")
}

fn named_expr(name: &str, value: &str) -> Expr {
    let field = Arc::new(arrow::datatypes::Field::new(name, arrow::datatypes::DataType::Utf8, true));
    let array: arrow::array::ArrayRef = Arc::new(arrow::array::StringArray::from(vec![value]));
    let value = arrow::array::StructArray::new(vec![field].into(), vec![array], None);
    Expr::Literal(ScalarValue::Struct(Arc::new(value)), None)
}

fn literal(text: &str) -> Expr {
    Expr::Literal(ScalarValue::Utf8(Some(text.to_string())), None)
}

fn text_of(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Literal(ScalarValue::Utf8(Some(s)), _) => Some(s),
        Expr::Column(c) => Some(&c.name),
        _ => None,
    }
}

fn is_format(text: &str) -> bool {
    text.eq_ignore_ascii_case("auto") || granary_formats::input_format_names().contains(&text) || granary_formats::output_format_names().contains(&text)
}

#[derive(Debug)]
pub struct ObjectEngine {
    kind: Kind,
    schema: SchemaRef,
    /// The table function's arguments, the table's columns as the structure.
    exprs: Vec<Expr>,
    /// `File(format)` without a path: the table directory, where `data.<format>` lives.
    local_dir: Option<PathBuf>,
    base: Arc<IoBase>,
}

/// The table function and its arguments (the table's columns as the structure) through
/// which an INSERT into an `S3` table with PARTITION BY writes (`File` and `URL` refuse
/// the clause, as ClickHouse's): the query layer evaluates the partition key, as for
/// `INSERT INTO FUNCTION s3(...) PARTITION BY`. None for other tables.
pub fn partitioned_insert_function(meta: &TableMeta, schema: &SchemaRef) -> Result<Option<(&'static str, Vec<Expr>)>> {
    let Some(kind) = Kind::of_engine(&meta.engine.name) else { return Ok(None) };
    if meta.engine.partition_by.is_none() {
        return Ok(None);
    }
    let (exprs, local) = function_arguments(kind, meta, schema)?;
    Ok((!local).then_some((kind.function(), exprs)))
}

/// The table function's arguments of a table of `kind`, and whether its data is the
/// table directory's `data.<format>` (`File(format)`).
fn function_arguments(kind: Kind, meta: &TableMeta, schema: &SchemaRef) -> Result<(Vec<Expr>, bool)> {
    let args = meta.engine.args.iter().map(|a| argument_expr(a)).collect::<Result<Vec<_>>>()?;
    let structure = schema
        .fields()
        .iter()
        .map(|f| format!("`{}` {}", f.name().replace('`', "\\`"), ChType::from_field(f)))
        .collect::<Vec<_>>()
        .join(", ");
    let bad_arguments = |message: &str| Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, message.to_string());
    let mut local = false;
    let exprs = match kind {
        Kind::File => {
            let format = args.first().and_then(text_of).ok_or_else(|| bad_arguments("Storage File requires from 1 to 3 arguments: name of used format, source and compression_method"))?;
            if args.len() > 3 {
                return Err(bad_arguments("Storage File requires from 1 to 3 arguments: name of used format, source and compression_method"));
            }
            if !is_format(format) {
                return Err(Error::new(ErrorCode::UNKNOWN_FORMAT, format!("Unknown format {format}")));
            }
            let path = match args.get(1) {
                Some(path) => path.clone(),
                None => {
                    local = true;
                    literal(&format!("data.{format}"))
                }
            };
            let mut exprs = vec![path, literal(format), literal(&structure)];
            exprs.extend(args.get(2).cloned());
            exprs
        }
        Kind::Url => {
            if args.len() < 2 || args.len() > 3 {
                return Err(bad_arguments("Storage URL requires 2 or 3 arguments: url, name of used format and optional compression method"));
            }
            let mut exprs = vec![args[0].clone(), args[1].clone(), literal(&structure)];
            exprs.extend(args.get(2).cloned());
            exprs
        }
        Kind::S3 => {
            if args.is_empty() {
                return Err(bad_arguments("Storage S3 requires 1 to 5 arguments: url, [NOSIGN | access_key_id, secret_access_key], name of used format and [compression_method]"));
            }
            let collection = matches!(args[0], Expr::Column(_));
            let named = args.iter().any(|a| matches!(a, Expr::Literal(ScalarValue::Struct(_), _)));
            if collection || named {
                let mut exprs = args.clone();
                exprs.push(named_expr("structure", &structure));
                exprs
            } else {
                let mut exprs = args.clone();
                // The structure goes after the format, which is after the URL and the
                // credentials (`NOSIGN` or key and secret); without one, 'auto'.
                let format_at = (1..exprs.len()).find(|&i| matches!(&exprs[i], Expr::Literal(ScalarValue::Utf8(Some(s)), _) if is_format(s)));
                match format_at {
                    Some(i) => exprs.insert(i + 1, literal(&structure)),
                    None => exprs.extend([literal("auto"), literal(&structure)]),
                }
                exprs
            }
        }
    };
    Ok((exprs, local))
}

impl ObjectEngine {
    fn new(kind: Kind, meta: &TableMeta, schema: SchemaRef, data_path: PathBuf, base: Arc<IoBase>) -> Result<Self> {
        let (exprs, local) = function_arguments(kind, meta, &schema)?;
        let local_dir = local.then_some(data_path);
        Ok(ObjectEngine { kind, schema, exprs, local_dir, base })
    }

    /// The virtual columns no stored column hides.
    fn virtual_names(&self) -> Vec<&'static str> {
        crate::table::VIRTUAL_COLUMNS.into_iter().filter(|name| self.schema.field_with_name(name).is_err()).collect()
    }

    /// The context of a query for the table function: the session's, with
    /// `user_files_path` the table directory for `File(format)`.
    fn io_context(&self, session_io: Option<&IoContext>, settings: &Settings) -> IoContext {
        let user_files_path = match (&self.local_dir, session_io) {
            (Some(dir), _) => dir.clone(),
            (None, Some(io)) => io.user_files_path.clone(),
            (None, None) => self.base.user_files_path.clone(),
        };
        IoContext {
            settings: settings.clone(),
            timezone: session_io.map_or(self.base.timezone, |io| io.timezone),
            user_files_path,
            virtual_columns: std::sync::atomic::AtomicBool::new(session_io.is_some_and(|io| io.virtual_columns.load(std::sync::atomic::Ordering::Relaxed))),
            s3_endpoints: self.base.s3_endpoints.clone(),
            named_collections: session_io.map_or_else(|| self.base.named_collections.snapshot(), |io| io.named_collections.clone()),
            // Whoever could create the table could name the collection.
            may_use_named_collections: true,
        }
    }

}

#[async_trait]
impl TableEngine for ObjectEngine {
    fn engine_name(&self) -> &str {
        self.kind.engine()
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The table functions' `_path`, `_file`, `_size`, `_time` and `_etag`.
    fn virtual_columns(&self) -> Vec<arrow::datatypes::FieldRef> {
        self.virtual_names().into_iter().map(|name| granary_storage::virtual_columns::field(name, &crate::table::virtual_column_type(name), "", "")).collect()
    }

    async fn scan(&self, session: &dyn Session, projection: Option<&Vec<usize>>, filters: &[Expr], limit: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
        let columns = self.schema.fields().len();
        let projection: Vec<usize> = projection.cloned().unwrap_or_else(|| (0..columns).collect());
        let session_io = session.config().get_extension::<IoContext>();
        let settings = session_io.as_ref().map_or_else(Settings::new, |io| io.settings.clone());
        let ctx = self.io_context(session_io.as_deref(), &settings);
        if projection.iter().any(|&i| i >= columns) {
            ctx.virtual_columns.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let provider = match self.kind {
            Kind::File => crate::function::file_table(&ctx, &self.exprs)?,
            Kind::S3 | Kind::Url => {
                // The functions read the context from the session: give them this one.
                let mut config = session.config().clone();
                config.set_extension(Arc::new(ctx));
                let state = datafusion::execution::SessionStateBuilder::new().with_config(config).with_runtime_env(session.runtime_env().clone()).build();
                let function: Arc<dyn TableFunctionImpl> = match self.kind {
                    Kind::S3 => Arc::new(crate::remote_functions::S3Function::named("s3").ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "no s3 function"))?),
                    _ => Arc::new(crate::remote_functions::UrlFunction),
                };
                function.call_with_args(TableFunctionArgs::new(&self.exprs, &state))?
            }
        };
        // The function's virtual columns follow the table's columns, by name.
        let provider_schema = provider.schema();
        let projection = projection
            .iter()
            .map(|&i| match i.checked_sub(columns) {
                None => Ok(i),
                Some(v) => {
                    let name = self.virtual_names().get(v).copied().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("no virtual column {v}")))?;
                    Ok(provider_schema.index_of(name)?)
                }
            })
            .collect::<Result<Vec<usize>>>()?;
        Ok(provider.scan(session, Some(&projection), filters, limit).await?)
    }

    async fn insert(&self, request: InsertRequest) -> Result<InsertResult> {
        let ctx = self.io_context(None, &request.settings);
        let target = crate::sink::resolve_sink(&ctx, self.kind.function(), &self.exprs)?;
        let columns: Vec<(String, ChType)> = self.schema.fields().iter().map(|f| (f.name().clone(), ChType::from_field(f))).collect();
        let format_settings = FormatSettings::from_settings(&request.settings, ctx.timezone);
        let table = target.into_table(&columns, None, &request.settings, format_settings)?;
        table.engine.insert(request).await
    }

    async fn truncate(&self) -> Result<()> {
        match (&self.local_dir, self.exprs.first().and_then(text_of)) {
            // Left empty, as ClickHouse leaves it: reading a table without its file fails.
            (Some(dir), Some(name)) => match std::fs::OpenOptions::new().write(true).truncate(true).open(dir.join(name)) {
                Ok(file) => file.sync_all().map_err(|e| Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot truncate {}: {e}", dir.join(name).display()))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot truncate {}: {e}", dir.join(name).display()))),
            },
            _ => Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Truncate is not supported by storage {}", self.kind.engine()))),
        }
    }

    async fn drop_data(&self) -> Result<()> {
        match &self.local_dir {
            Some(dir) => match std::fs::remove_dir_all(dir) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot remove {}: {e}", dir.display()))),
            },
            // The files and objects of a table with a path are not the table's to remove.
            None => Ok(()),
        }
    }

    fn data_paths(&self) -> Vec<PathBuf> {
        self.local_dir.iter().cloned().collect()
    }
}

struct ObjectEngineFactory {
    kind: Kind,
    base: Arc<IoBase>,
}

impl EngineFactory for ObjectEngineFactory {
    fn name(&self) -> &'static str {
        self.kind.engine()
    }

    fn validate(&self, meta: &TableMeta) -> Result<()> {
        let e = &meta.engine;
        // Of the three, only S3 spreads its writes by PARTITION BY, as in ClickHouse.
        if e.order_by.is_some() || e.primary_key.is_some() || e.sample_by.is_some() || (e.partition_by.is_some() && self.kind != Kind::S3) {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Engine {} doesn't support PARTITION_BY, PRIMARY_KEY, ORDER_BY or SAMPLE_BY clauses", e.name)));
        }
        let schema = Arc::new(arrow::datatypes::Schema::empty());
        ObjectEngine::new(self.kind, meta, schema, PathBuf::new(), self.base.clone()).map(|_| ())
    }

    fn open(&self, context: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
        let engine = ObjectEngine::new(self.kind, context.meta, context.schema, context.data_path, self.base.clone())?;
        if let Some(dir) = &engine.local_dir {
            granary_storage::fs::create_dir_all(dir)?;
        }
        Ok(Arc::new(engine))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_arguments_become_function_arguments() {
        assert_eq!(argument_expr("'a''b'").unwrap(), literal("a'b"));
        assert_eq!(argument_expr("CSV").unwrap(), Expr::Column(Column::from_name("CSV")));
        assert_eq!(crate::function::named_argument(&argument_expr("format = 'CSV'").unwrap()), Some(("format".to_string(), "CSV".to_string())));
        assert!(argument_expr("1 + 2").is_err());
    }
}
