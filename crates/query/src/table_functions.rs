//! Table functions over constant arguments: `values()`, `format()`,
//! `generateRandom()` and `merge()`. Their rows are made at planning time (`values`,
//! `format`), generated as they are read (`generateRandom`), or read from the tables
//! matched (`merge`).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow::datatypes::{Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::datasource::{MemTable, TableType};
use datafusion::logical_expr::{ColumnarValue, Expr};
use datafusion::physical_plan::ExecutionPlan;
use granary_common::{Error, ErrorCode, Result};
use granary_engines::generate_random::{check_random_schema, random_limits, random_scan, RandomLimits};
use granary_engines::merge::{merge_virtual_columns, table_pattern, MergeSource};
use granary_formats::{create_input_format, FormatSettings};
use granary_io::function::{parse_structure, string_arg};
use granary_io::IoContext;
use granary_types::ChType;

/// Registers the table functions of this module.
pub(crate) fn register(state: &mut datafusion::execution::SessionState) {
    state.register_udtf("values", Arc::new(ValuesFunction));
    state.register_udtf("format", Arc::new(FormatFunction));
    state.register_udtf("generateRandom", Arc::new(GenerateRandomFunction));
    state.register_udtf("merge", Arc::new(MergeFunction));
    state.register_udtf("input", Arc::new(crate::input_function::InputFunction));
}

fn io_context(args: &TableFunctionArgs) -> Arc<IoContext> {
    args.session().config().get_extension::<IoContext>().unwrap_or_default()
}

/// A constant argument, evaluated: its one value and its field (the ClickHouse type in
/// the field's metadata).
fn evaluate(session: &dyn Session, expr: &Expr) -> Result<(ArrayRef, Arc<Field>)> {
    let physical = session.create_physical_expr(expr.clone(), &DFSchema::empty())?;
    let input = RecordBatch::try_new_with_options(Arc::new(Schema::empty()), vec![], &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(1)))?;
    let field = physical.return_field(input.schema_ref())?;
    let array = match physical.evaluate(&input)? {
        ColumnarValue::Array(array) => array,
        ColumnarValue::Scalar(value) => value.to_array_of_size(1)?,
    };
    Ok((array, field))
}

/// The ClickHouse type of a one-value array: NULL is `Nullable(Nothing)`, another value is
/// not Nullable (tuple elements come with nullable fields), and integers have the type
/// ClickHouse gives a literal of that value (`1` is UInt8), since the SQL planner made
/// them Int64.
fn value_type(array: &ArrayRef, field: &Field) -> Result<ChType> {
    if array.is_null(0) {
        return Ok(ChType::Nullable(Box::new(ChType::Nothing)));
    }
    if matches!(field.data_type(), arrow::datatypes::DataType::Int64 | arrow::datatypes::DataType::UInt64) {
        let value = ScalarValue::try_from_array(array, 0)?;
        if let Some(narrowed) = granary_functions::literals::narrow(&value) {
            return Ok(ChType::from_arrow(&narrowed.data_type(), false));
        }
    }
    Ok(ChType::from_field(field).strip_nullable().clone())
}

/// `values([structure,] row, ...)`: each row a value (one column) or a tuple.
#[derive(Debug)]
struct ValuesFunction;

impl TableFunctionImpl for ValuesFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        Ok(values_table(args.session(), args.exprs())?)
    }
}

fn values_table(session: &dyn Session, exprs: &[Expr]) -> Result<Arc<dyn TableProvider>> {
    if exprs.is_empty() {
        return Err(Error::new(ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION, "Table function 'values' requires at least 1 argument"));
    }
    // A first string argument is the structure when it reads as one and rows follow.
    let structure = match (exprs.len() > 1, string_arg("values", &exprs[0])) {
        (true, Ok(text)) => parse_structure(&text).ok(),
        _ => None,
    };
    let row_exprs = if structure.is_some() { &exprs[1..] } else { exprs };
    // Each row as its values, with their fields.
    let mut rows: Vec<Vec<(ArrayRef, Arc<Field>)>> = Vec::with_capacity(row_exprs.len());
    let width = structure.as_ref().map(Vec::len);
    for expr in row_exprs {
        let (array, field) = evaluate(session, expr)?;
        let split = match (width, array.as_any().downcast_ref::<StructArray>()) {
            (Some(1), _) => None,
            (_, Some(tuple)) => Some(tuple.columns().iter().cloned().zip(tuple.fields().iter().cloned()).collect::<Vec<_>>()),
            _ => None,
        };
        rows.push(split.unwrap_or_else(|| vec![(array, field)]));
    }
    let columns: Vec<(String, ChType)> = match structure {
        Some(columns) => columns,
        None => {
            let width = rows[0].len();
            (0..width)
                .map(|i| {
                    let types = rows.iter().filter_map(|row| row.get(i)).map(|(a, f)| value_type(a, f)).collect::<Result<Vec<_>>>()?;
                    Ok((format!("c{}", i + 1), granary_functions::least_supertype(&types)?))
                })
                .collect::<Result<_>>()?
        }
    };
    for row in &rows {
        if row.len() != columns.len() {
            return Err(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Values of table function 'values' have {} elements where the structure has {} columns", row.len(), columns.len()),
            ));
        }
    }
    let schema = Arc::new(Schema::new(columns.iter().map(|(n, t)| t.to_arrow_field(n)).collect::<Vec<_>>()));
    let mut arrays = Vec::with_capacity(columns.len());
    for (i, (_, target)) in columns.iter().enumerate() {
        let converted = rows
            .iter()
            .map(|row| {
                let (array, field) = &row[i];
                if array.data_type() == &target.to_arrow() && ChType::from_field(field) == *target {
                    Ok(array.clone())
                } else {
                    granary_functions::convert_array(array, field, target).map_err(|e| {
                        let e = Error::from(e);
                        // ClickHouse converts each value as a field, which fails with TYPE_MISMATCH.
                        match e.code() {
                            ErrorCode::CANNOT_PARSE_TEXT => Error::new(ErrorCode::TYPE_MISMATCH, format!("Cannot convert {} to type {target}: {}", ScalarValue::try_from_array(array, 0).map(|v| v.to_string()).unwrap_or_default(), e.message())),
                            _ => e,
                        }
                    })
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let parts: Vec<&dyn Array> = converted.iter().map(|a| a.as_ref()).collect();
        arrays.push(arrow::compute::concat(&parts)?);
    }
    let batch = RecordBatch::try_new_with_options(schema.clone(), arrays, &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows.len())))?;
    Ok(Arc::new(MemTable::try_new(schema, vec![vec![batch]])?))
}

/// `format(format_name, [structure,] data)`: the rows of a string in a format.
#[derive(Debug)]
struct FormatFunction;

impl TableFunctionImpl for FormatFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let ctx = io_context(&args);
        Ok(format_table(&ctx, args.exprs())?)
    }
}

fn format_table(ctx: &IoContext, exprs: &[Expr]) -> Result<Arc<dyn TableProvider>> {
    let values = exprs.iter().map(|e| string_arg("format", e)).collect::<Result<Vec<_>>>()?;
    let (format, structure, data) = match values.as_slice() {
        [format, data] => (format.clone(), None, data.clone()),
        [format, structure, data] => (format.clone(), Some(structure.clone()), data.clone()),
        _ => {
            return Err(Error::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Table function 'format' requires 2 or 3 arguments: format, [structure], data",
            ))
        }
    };
    if !granary_formats::input_format_names().contains(&format.as_str()) {
        return Err(Error::new(ErrorCode::UNKNOWN_FORMAT, format!("Unknown input format {format}")));
    }
    let (columns, read_format) = match structure.filter(|s| !s.eq_ignore_ascii_case("auto")) {
        Some(structure) => (parse_structure(&structure)?, format.clone()),
        None => {
            let mut reader: &[u8] = data.as_bytes();
            let inferred = if matches!(format.as_str(), "Native" | "RowBinaryWithNamesAndTypes") {
                granary_io::infer::infer_from_header(&format, &mut reader, "format")?
            } else {
                granary_io::infer::infer_text(&format, &mut reader, &ctx.settings, "format")?
            };
            (inferred.columns, inferred.format)
        }
    };
    let schema: SchemaRef = Arc::new(Schema::new(columns.iter().map(|(n, t)| t.to_arrow_field(n)).collect::<Vec<_>>()));
    let settings = FormatSettings::from_settings(&ctx.settings, ctx.timezone);
    let mut parser = create_input_format(&read_format, schema.clone(), &settings)?;
    let mut batches = Vec::new();
    parser.push(data.as_bytes(), &mut batches)?;
    parser.finish(&mut batches)?;
    Ok(Arc::new(MemTable::try_new(schema, vec![batches])?))
}

/// `generateRandom(structure [, seed [, max_string_length [, max_array_length]]])`.
#[derive(Debug)]
struct GenerateRandomFunction;

impl TableFunctionImpl for GenerateRandomFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let exprs = args.exprs();
        let Some((structure, rest)) = exprs.split_first() else {
            return Err(Error::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Table function 'generateRandom' requires at most four arguments: structure, [random_seed, max_string_length, max_array_length].",
            )
            .into());
        };
        let columns = parse_structure(&string_arg("generateRandom", structure)?)?;
        let schema: SchemaRef = Arc::new(Schema::new(columns.iter().map(|(n, t)| t.to_arrow_field(n)).collect::<Vec<_>>()));
        let values = rest
            .iter()
            .map(|e| {
                let (array, _) = evaluate(args.session(), e)?;
                Ok(ScalarValue::try_from_array(&array, 0)?)
            })
            .collect::<Result<Vec<_>>>()?;
        let limits = random_limits("generateRandom", &values)?;
        check_random_schema(&schema)?;
        Ok(Arc::new(RandomTable { schema, limits }))
    }
}

#[derive(Debug)]
struct RandomTable {
    schema: SchemaRef,
    limits: RandomLimits,
}

#[async_trait]
impl TableProvider for RandomTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(&self, state: &dyn Session, projection: Option<&Vec<usize>>, _filters: &[Expr], limit: Option<usize>) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        Ok(random_scan(state, self.schema.clone(), projection, self.limits, limit)?)
    }
}

/// `merge([db,] 'regexp')`: the tables of `db` (the current database by default) whose
/// names match, with the union of their columns (by name, in order of appearance, each
/// of the least supertype of its types).
#[derive(Debug)]
struct MergeFunction;

impl TableFunctionImpl for MergeFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let session = args.session();
        let texts = args
            .exprs()
            .iter()
            .map(|e| match string_arg("merge", e) {
                Ok(text) => Ok(text),
                // `currentDatabase()` and other constant expressions.
                Err(_) => {
                    let (array, _) = evaluate(session, e)?;
                    match ScalarValue::try_from_array(&array, 0)? {
                        ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)) | ScalarValue::LargeUtf8(Some(s)) => Ok(s),
                        other => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Table function 'merge' expects string arguments, got {other}"))),
                    }
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let (database, pattern) = match texts.as_slice() {
            [pattern] => (session.config().options().catalog.default_schema.clone(), pattern.clone()),
            [database, pattern] => (database.clone(), pattern.clone()),
            _ => {
                return Err(Error::new(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "Table function 'merge' requires from one to two parameters: merge(['db_name',] 'tables_regexp')",
                )
                .into())
            }
        };
        let source = MergeSource { database, pattern: table_pattern(&pattern)?, exclude: None };
        let tables = futures::executor::block_on(source.tables(session))?;
        if tables.is_empty() {
            return Err(Error::new(
                ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
                "There are no tables satisfied provided regexp, you must specify table structure manually",
            )
            .into());
        }
        let mut columns: Vec<(String, Vec<ChType>)> = Vec::new();
        for (_, provider) in &tables {
            for field in provider.schema().fields() {
                if granary_storage::virtual_columns::is_virtual(field) {
                    continue;
                }
                let t = ChType::from_field(field);
                match columns.iter_mut().find(|(name, _)| name == field.name()) {
                    Some((_, types)) => types.push(t),
                    None => columns.push((field.name().clone(), vec![t])),
                }
            }
        }
        let mut fields = columns
            .iter()
            .map(|(name, types)| Ok(Arc::new(granary_functions::least_supertype(types)?.to_arrow_field(name))))
            .collect::<Result<Vec<_>>>()?;
        if granary_storage::virtual_columns::visible() {
            fields.extend(merge_virtual_columns());
        }
        Ok(Arc::new(MergeTable { schema: Arc::new(Schema::new(fields)), source, sample: None }))
    }
}

#[derive(Debug)]
pub(crate) struct MergeTable {
    schema: SchemaRef,
    source: MergeSource,
    /// `merge(...) SAMPLE k`: every table read samples.
    sample: Option<granary_storage::SampleClause>,
}

impl MergeTable {
    pub(crate) fn with_sample(&self, sample: granary_storage::SampleClause) -> MergeTable {
        MergeTable { schema: self.schema.clone(), source: self.source.clone(), sample: Some(sample) }
    }
}

#[async_trait]
impl TableProvider for MergeTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(&self, state: &dyn Session, projection: Option<&Vec<usize>>, _filters: &[Expr], limit: Option<usize>) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        Ok(self.source.scan(state, &self.schema, projection, limit, self.sample.as_ref()).await?)
    }
}
