//! `file(path [, format [, structure [, compression]]])`.

use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Expr;
use granary_common::{Error, ErrorCode, Result};
use granary_formats::FormatSettings;
use granary_types::ChType;

use crate::detect::{format_from_name, Compression};
use crate::infer::{infer_from_header, infer_text};
use crate::download::DownloadOptions;
use crate::table::{FileEntry, FileTable};
use crate::IoContext;

/// The `file` table function.
#[derive(Debug, Default)]
pub struct FileFunction;

/// Arguments common to file(), s3() and url() after the location.
#[derive(Debug, Default)]
pub(crate) struct FormatArgs {
    pub format: Option<String>,
    pub structure: Option<String>,
    pub compression: Option<Compression>,
}

/// A string literal, or a bare word taken as its text (`file('x.native', Native)`, as
/// ClickHouse accepts).
pub fn string_arg(function: &str, expr: &Expr) -> Result<String> {
    match expr {
        Expr::Literal(ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) | ScalarValue::Utf8View(Some(s)), _) => Ok(s.clone()),
        Expr::Cast(c) => string_arg(function, &c.expr),
        Expr::Column(c) if c.relation.is_none() => Ok(c.name.clone()),
        other => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Table function '{function}' expects string literal arguments, got {other}"))),
    }
}

/// A `name = value` argument, as the query layer hands it over: `named_struct('name',
/// value)`, folded into a one-field struct literal when DataFusion planned it. The value
/// is given as text (a string as it is, a number or a bare word as written).
pub fn named_argument(expr: &Expr) -> Option<(String, String)> {
    match expr {
        Expr::Literal(ScalarValue::Struct(array), _) if array.num_columns() == 1 && arrow::array::Array::len(array.as_ref()) == 1 => {
            let name = array.fields()[0].name().clone();
            let value = ScalarValue::try_from_array(array.column(0), 0).ok()?;
            Some((name, scalar_text(&value)?))
        }
        Expr::ScalarFunction(call) if call.name() == "named_struct" && call.args.len() == 2 => {
            let Expr::Literal(ScalarValue::Utf8(Some(name)) | ScalarValue::Utf8View(Some(name)) | ScalarValue::LargeUtf8(Some(name)), _) = &call.args[0] else {
                return None;
            };
            let value = match &call.args[1] {
                Expr::Literal(value, _) => scalar_text(value)?,
                Expr::Column(c) if c.relation.is_none() => c.name.clone(),
                Expr::Cast(c) => match c.expr.as_ref() {
                    Expr::Literal(value, _) => scalar_text(value)?,
                    _ => return None,
                },
                _ => return None,
            };
            Some((name.clone(), value))
        }
        _ => None,
    }
}

fn scalar_text(value: &ScalarValue) -> Option<String> {
    match value {
        ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)) | ScalarValue::LargeUtf8(Some(s)) => Some(s.clone()),
        ScalarValue::Boolean(Some(b)) => Some(if *b { "1" } else { "0" }.to_string()),
        v if !v.is_null() => Some(v.to_string()),
        _ => None,
    }
}

/// Splits a call's arguments into positional ones and `name = value` ones.
pub(crate) fn split_named_arguments(exprs: &[Expr]) -> (Vec<Expr>, Vec<(String, String)>) {
    let mut positional = Vec::new();
    let mut named = Vec::new();
    for expr in exprs {
        match named_argument(expr) {
            Some(pair) => named.push(pair),
            None => positional.push(expr.clone()),
        }
    }
    (positional, named)
}

/// Refuses `name = value` arguments a function does not take.
pub(crate) fn no_named_arguments(function: &str, named: &[(String, String)]) -> Result<()> {
    match named.first() {
        Some((name, _)) => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Table function '{function}' has no argument named '{name}'"))),
        None => Ok(()),
    }
}

pub(crate) fn format_args(function: &str, rest: &[Expr]) -> Result<FormatArgs> {
    if rest.len() > 3 {
        return Err(Error::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Table function '{function}' requires 1 to 4 arguments: path, [format, [structure, [compression]]]"),
        ));
    }
    let values: Vec<String> = rest.iter().map(|e| string_arg(function, e)).collect::<Result<_>>()?;
    let auto = |v: Option<&String>| v.filter(|s| !s.eq_ignore_ascii_case("auto")).cloned();
    Ok(FormatArgs {
        format: auto(values.first()),
        structure: auto(values.get(1)),
        compression: match values.get(2) {
            Some(c) => Compression::from_argument(c)?,
            None => None,
        },
    })
}

/// Parses a ClickHouse column list: `a UInt8, "b c" Array(String), `d` Nullable(Int32)`.
pub fn parse_structure(text: &str) -> Result<Vec<(String, ChType)>> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut quote) = (0i32, 0usize, None::<char>);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '`' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    let bad = |why: String| Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse the structure '{text}': {why}"));
    parts
        .into_iter()
        .map(|part| {
            let part = part.trim();
            let (name, ty) = if let Some(q @ ('`' | '"')) = part.chars().next() {
                let end = part[1..].find(q).ok_or_else(|| bad(format!("unclosed quote in '{part}'")))? + 1;
                (part[1..end].to_string(), part[end + 1..].trim())
            } else {
                let (n, t) = part.split_once(char::is_whitespace).ok_or_else(|| bad(format!("expected a name and a type in '{part}'")))?;
                (n.to_string(), t.trim())
            };
            if ty.is_empty() {
                return Err(bad(format!("expected a type after '{name}'")));
            }
            Ok((name, ChType::parse(ty)?))
        })
        .collect()
}

pub(crate) fn schema_of(columns: &[(String, ChType)]) -> SchemaRef {
    Arc::new(Schema::new(columns.iter().map(|(n, t)| t.to_arrow_field(n)).collect::<Vec<_>>()))
}

/// The columns of a Parquet file as ClickHouse types.
pub(crate) fn parquet_schema(arrow: &Schema) -> SchemaRef {
    let columns: Vec<(String, ChType)> = arrow.fields().iter().map(|f| (f.name().clone(), ChType::from_field(f))).collect();
    schema_of(&columns)
}

pub(crate) fn io_context(args: &TableFunctionArgs) -> Arc<IoContext> {
    args.session().config().get_extension::<IoContext>().unwrap_or_else(|| Arc::new(IoContext::default()))
}

impl TableFunctionImpl for FileFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let ctx = io_context(&args);
        Ok(file_table(&ctx, args.exprs())?)
    }
}

pub(crate) fn file_table(ctx: &IoContext, exprs: &[Expr]) -> Result<Arc<dyn TableProvider>> {
    let (positional, named) = split_named_arguments(exprs);
    no_named_arguments("file", &named)?;
    let Some((path_expr, rest)) = positional.split_first() else {
        return Err(Error::new(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, "Table function 'file' requires 1 to 4 arguments: path, [format, [structure, [compression]]]"));
    };
    let path = string_arg("file", path_expr)?;
    let args = format_args("file", rest)?;
    let root = std::path::absolute(&ctx.user_files_path)?;
    let pattern = crate::local::confine(&root, &path)?;
    let files = crate::local::list(&root, &pattern)?;
    let pattern_text = pattern.to_string_lossy().into_owned();
    if files.is_empty() && !crate::glob::has_glob(&pattern_text) && !ctx.settings.get_bool("engine_file_empty_if_not_exists") {
        let format = args.format.clone().or_else(|| format_from_name(&pattern_text).map(str::to_string));
        if let (None, Some(format)) = (&args.structure, format) {
            return Err(Error::new(
                ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
                format!("The table structure cannot be extracted from a {format} format file, because the file {pattern_text} doesn't exist. You can specify the structure manually"),
            ));
        }
        if args.format.is_some() || args.structure.is_some() {
            return Err(Error::new(ErrorCode::FILE_DOESNT_EXIST, format!("File {pattern_text} doesn't exist")));
        }
    }
    table_over(ctx, Source::File, files, &pattern_text, &args)
}

/// Which table function the files come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    File,
    S3,
    Url,
    Azure,
}

/// The table over matched files: format (given or from the names), structure (given or
/// inferred from the first non-empty file), and how they are read.
pub(crate) fn table_over(ctx: &IoContext, source: Source, files: Vec<FileEntry>, pattern_text: &str, args: &FormatArgs) -> Result<Arc<dyn TableProvider>> {
    let format = match &args.format {
        Some(f) => f.clone(),
        None => match files.first().and_then(|f| format_from_name(&f.path)).or_else(|| format_from_name(pattern_text)) {
            Some(f) => f.to_string(),
            None if files.is_empty() => {
                return Err(Error::new(
                    ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
                    "The data format cannot be detected by the contents of the files, because there are no files with provided path. You can specify the format manually",
                ))
            }
            None => return Err(Error::new(ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE, format!("Cannot detect the format of file {}; specify it manually", files[0].path))),
        },
    };
    if !granary_formats::input_format_names().contains(&format.as_str()) {
        return Err(Error::new(ErrorCode::UNKNOWN_FORMAT, format!("Unknown input format {format}")));
    }
    let download = DownloadOptions::from_settings(&ctx.settings);
    let skip_empty = match source {
        Source::File => ctx.settings.get_bool("engine_file_skip_empty_files"),
        Source::S3 => ctx.settings.get_bool("s3_skip_empty_files"),
        Source::Url => ctx.settings.get_bool("engine_url_skip_empty_files"),
        Source::Azure => ctx.settings.get_bool("azure_skip_empty_files"),
    };
    let remote = files.iter().any(|f| f.remote.is_some());
    let resolve = || -> Result<(SchemaRef, String)> {
        // The file inference reads is checked now (ClickHouse's message for it); every
        // file a query reads is checked by the scan, after pruning.
        if let (true, None, Some(sample)) = (format == "Parquet", &args.structure, files.first()) {
            let checked = match &sample.remote {
                Some(_) => tokio::runtime::Handle::current().block_on(crate::table::check_parquet_magic(sample)),
                None => futures::executor::block_on(crate::table::check_parquet_magic(sample)),
            };
            checked.map_err(|e| match e.code() {
                // A failed request is not a statement about the file's structure.
                ErrorCode::INCORRECT_DATA => Error::new(
                    ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
                    format!("The table structure cannot be extracted from a Parquet format file. Error: {}. You can specify the structure manually", e.message()),
                ),
                _ => e,
            })?;
        }
        match &args.structure {
            Some(s) => Ok((schema_of(&parse_structure(s)?), format.clone())),
            None => infer_files(ctx, &files, &format, args.compression, download),
        }
    };
    let (schema, read_format) = if remote { crate::remote::run_blocking_io(resolve)? } else { resolve()? };
    let mut format_settings = FormatSettings::from_settings(&ctx.settings, ctx.timezone);
    let mut files = files;
    let hive = if ctx.settings.get_bool("use_hive_partitioning") {
        // ClickHouse types the keys by one path: a given path itself, else the first match.
        let sample = match files.first() {
            Some(first) if crate::glob::has_glob(pattern_text) => first.path.clone(),
            _ => pattern_text.to_string(),
        };
        let columns: Vec<(String, ChType)> = schema.fields().iter().map(|f| (f.name().clone(), ChType::from_field(f))).collect();
        let hive = crate::hive::columns_for(&sample, &columns, args.structure.is_some())?;
        crate::hive::attach_values(&mut files, &hive, &format_settings.text)?;
        hive
    } else {
        Vec::new()
    };
    // Files are already read in parallel: a file's text is split among threads only
    // when there are fewer files than threads.
    format_settings.parsing_threads = (format_settings.parsing_threads / files.len().max(1)).max(1);
    let virtual_columns = ctx.virtual_columns.load(std::sync::atomic::Ordering::Relaxed);
    let table = FileTable::new(schema, files, read_format, args.compression, virtual_columns, format_settings, skip_empty).with_download(download).with_hive_columns(hive);
    Ok(Arc::new(table))
}

/// The schema of the first non-empty file (ClickHouse infers from the first file that
/// gives a result).
fn infer_files(ctx: &IoContext, files: &[FileEntry], format: &str, compression: Option<Compression>, download: DownloadOptions) -> Result<(SchemaRef, String)> {
    let Some(file) = files.iter().find(|f| f.size > 0) else {
        return Err(Error::new(
            ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
            format!("The table structure cannot be extracted from a {format} format file, because there are no files with provided path or all files are empty. You can specify the structure manually"),
        ));
    };
    let compression_name = compression.map(|c| format!("{c:?}")).unwrap_or_else(|| "auto".to_string());
    if let Some(cached) = crate::schema_cache::lookup(&ctx.settings, file, format, &compression_name) {
        return Ok(cached);
    }
    let (schema, read_format) = infer_file(ctx, file, format, compression, download)?;
    crate::schema_cache::store(&ctx.settings, file, format, &compression_name, &schema, &read_format);
    Ok((schema, read_format))
}

fn infer_file(ctx: &IoContext, file: &FileEntry, format: &str, compression: Option<Compression>, download: DownloadOptions) -> Result<(SchemaRef, String)> {
    if format == "Parquet" {
        let cannot = |e: &dyn std::fmt::Display| {
            Error::new(ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE, format!("The table structure cannot be extracted from a Parquet format file. Error: {e}. You can specify the structure manually: (in file/uri {})", file.path))
        };
        let arrow_schema = match &file.remote {
            Some(object) => {
                let metadata = tokio::runtime::Handle::current().block_on(remote_parquet_metadata(object, file.size)).map_err(|e| match e {
                    FooterError::Request(e) => crate::remote::remote_error(object.store.kind, &file.path, e),
                    FooterError::Invalid(e) => cannot(&e),
                })?;
                let file_metadata = metadata.file_metadata();
                Arc::new(parquet::arrow::parquet_to_arrow_schema(file_metadata.schema_descr(), file_metadata.key_value_metadata()).map_err(|e| cannot(&e))?)
            }
            None => {
                let handle = std::fs::File::open(&file.path).map_err(|e| crate::table::open_error(&file.path, e))?;
                let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(handle).map_err(|e| cannot(&e))?;
                builder.schema().clone()
            }
        };
        return Ok((parquet_schema(&arrow_schema), format.to_string()));
    }
    let c = match compression {
        Some(c) => c,
        None => Compression::detect(&file.path)?,
    };
    let mut reader = c.reader(file.open(download)?)?;
    let inferred = match format {
        "Native" | "RowBinaryWithNamesAndTypes" => infer_from_header(format, &mut reader, &file.path)?,
        "Avro" => crate::infer::infer_avro(&mut reader, &file.path)?,
        _ => infer_text(format, &mut reader, &ctx.settings, &file.path)?,
    };
    Ok((schema_of(&inferred.columns), inferred.format))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structures() {
        let cols = parse_structure("a UInt8, `b c` Array(String), \"d\" Nullable(Int32), e Tuple(x Int8, y String)").unwrap();
        let names: Vec<_> = cols.iter().map(|(n, t)| format!("{n}:{t}")).collect();
        assert_eq!(names, ["a:UInt8", "b c:Array(String)", "d:Nullable(Int32)", "e:Tuple(x Int8, y String)"]);
        assert!(parse_structure("a").is_err());
        assert!(parse_structure("a NoSuchType").is_err());
    }
}

/// Why a remote Parquet footer could not be read: the request failed (the store's
/// code), or the bytes are not a Parquet footer.
#[derive(Debug, thiserror::Error)]
enum FooterError {
    #[error("{0}")]
    Request(object_store::Error),
    #[error("{0}")]
    Invalid(String),
}

/// Reads a remote Parquet footer with two ranged GETs (the 8-byte tail, then the metadata).
async fn remote_parquet_metadata(object: &crate::table::RemoteObject, size: u64) -> std::result::Result<parquet::file::metadata::ParquetMetaData, FooterError> {
    use object_store::ObjectStoreExt;
    const FOOTER: u64 = 8;
    if size < FOOTER + 4 {
        return Err(FooterError::Invalid(format!("file of {size} bytes is too small to be Parquet")));
    }
    let store = &object.store.store;
    let tail = store.get_range(&object.location, size - FOOTER..size).await.map_err(FooterError::Request)?;
    let tail: [u8; 8] = tail.as_ref().try_into().map_err(|_| FooterError::Invalid("short footer read".to_string()))?;
    let footer = parquet::file::metadata::FooterTail::try_new(&tail).map_err(|e| FooterError::Invalid(e.to_string()))?;
    let length = footer.metadata_length() as u64;
    if length + FOOTER > size {
        return Err(FooterError::Invalid(format!("metadata length {length} exceeds file size {size}")));
    }
    let bytes = store.get_range(&object.location, size - FOOTER - length..size - FOOTER).await.map_err(FooterError::Request)?;
    parquet::file::metadata::ParquetMetaDataReader::decode_metadata(&bytes).map_err(|e| FooterError::Invalid(e.to_string()))
}
