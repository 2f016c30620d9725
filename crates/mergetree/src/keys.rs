//! The table's key expressions: sorting key (`ORDER BY`), primary key (`PRIMARY KEY`, a
//! prefix of the sorting key) and partition key (`PARTITION BY`).
//!
//! The clauses are kept as raw text in `EngineMeta`. Each tuple element is planned once
//! with a private DataFusion `SessionState` that has ClickHouse's functions registered
//! (`toYYYYMM`, `toDate`, ...), into a physical expression over the table schema, and
//! then evaluated per block. Identifiers are case-sensitive, as in ClickHouse.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, UInt32Array};
use arrow::datatypes::{DataType, Decimal256Type, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use arrow::row::{RowConverter, SortField};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::execution::session_state::{SessionState, SessionStateBuilder};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::expressions::Column;
use datafusion::prelude::SessionConfig;
use granary_common::{Error, ErrorCode, Result};
use datafusion::sql::sqlparser::ast::{Expr as SqlExpr, ExprWithAlias, SelectItem, SetExpr, Statement};
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;
use granary_storage::TableMeta;

/// One element of a key tuple.
#[derive(Debug, Clone)]
pub struct KeyExpr {
    /// The expression as written (`toDate(ts)`).
    pub text: String,
    pub expr: Arc<dyn PhysicalExpr>,
    /// The table column when the expression is a bare column reference: only those get
    /// min/max statistics of their own (expressions prune through `monotonic`).
    pub column: Option<usize>,
    pub data_type: DataType,
    pub nullable: bool,
    /// The key is a `UInt256`: its raw words (see `granary_types::wide`) order as signed
    /// numbers, so whatever orders rows by it goes through [`KeyExpr::evaluate_ordered`],
    /// and the primary index's values of it are no bounds for Arrow's comparisons.
    pub unsigned_words: bool,
}

impl KeyExpr {
    pub fn evaluate(&self, batch: &RecordBatch) -> Result<ArrayRef> {
        Ok(self.expr.evaluate(batch)?.into_array(batch.num_rows())?)
    }

    /// The key's values in a form whose Arrow order is ClickHouse's order of the key.
    pub fn evaluate_ordered(&self, batch: &RecordBatch) -> Result<ArrayRef> {
        Ok(self.in_key_order(self.evaluate(batch)?))
    }

    /// `values` of this key (as [`KeyExpr::evaluate`] gives them) in a form whose Arrow
    /// order is ClickHouse's: `UInt256` words with the top bit flipped.
    pub fn in_key_order(&self, values: ArrayRef) -> ArrayRef {
        match values.as_primitive_opt::<Decimal256Type>() {
            Some(words) if self.unsigned_words => Arc::new(granary_types::wide::unsigned_order_keys(words)),
            _ => values,
        }
    }
}

/// The sorting-key values of the rows of `batches`, one after the other, in the form
/// whose Arrow order is the table's order ([`KeyExpr::evaluate_ordered`]).
pub fn ordered_keys_over(keys: &[KeyExpr], batches: &[RecordBatch]) -> Result<Vec<ArrayRef>> {
    keys.iter().map(|k| Ok(k.in_key_order(evaluate_over(k, batches)?))).collect()
}

/// Every key of a table, planned.
#[derive(Debug, Clone)]
pub struct TableKeys {
    pub sorting: Vec<KeyExpr>,
    /// The primary key is `sorting[..primary_len]`.
    pub primary_len: usize,
    pub partition: Vec<KeyExpr>,
    /// Table columns read by the partition expressions (their min/max go to `minmax.idx`).
    pub partition_columns: Vec<usize>,
    /// `SAMPLE BY`: an unsigned integer element of the primary key.
    pub sampling: Option<SamplingKey>,
}

/// The sampling key and how many values its type has.
#[derive(Debug, Clone)]
pub struct SamplingKey {
    pub key: KeyExpr,
    pub universe: crate::sample::Rational,
}

impl TableKeys {
    pub fn new(meta: &TableMeta, schema: &SchemaRef) -> Result<TableKeys> {
        check_clauses(meta)?;
        let engine = &meta.engine;
        let order_by = engine.order_by.as_deref().or(engine.primary_key.as_deref()).unwrap_or("tuple()");
        let mut sorting_texts = split_tuple(order_by)?;
        let primary_texts = match &engine.primary_key {
            Some(pk) => split_tuple(pk)?,
            None => sorting_texts.clone(),
        };
        // VersionedCollapsingMergeTree sorts by its version after the ORDER BY columns
        // (ClickHouse's sorting_key `k, ver`); the primary key stays the ORDER BY.
        if let Some(version) = engine.implicit_sorting_column() {
            if !sorting_texts.iter().any(|t| t.trim().trim_matches('`') == version) {
                sorting_texts.push(version);
            }
        }
        let partition_texts = match &engine.partition_by {
            Some(p) => split_tuple(p)?,
            None => Vec::new(),
        };
        let planner = Planner::new(schema)?;
        let sorting = sorting_texts.iter().map(|t| planner.plan(t)).collect::<Result<Vec<_>>>()?;
        let partition = partition_texts.iter().map(|t| planner.plan(t)).collect::<Result<Vec<_>>>()?;
        let mut partition_columns: Vec<usize> = partition
            .iter()
            .flat_map(|k| datafusion::physical_expr::utils::collect_columns(&k.expr).into_iter().map(|c| c.index()))
            .collect();
        partition_columns.sort_unstable();
        partition_columns.dedup();
        let sampling = match &engine.sample_by {
            Some(text) => Some(sampling_key(&planner, text, &sorting[..primary_texts.len()])?),
            None => None,
        };
        Ok(TableKeys { primary_len: primary_texts.len(), sorting, partition, partition_columns, sampling })
    }

    pub fn primary(&self) -> &[KeyExpr] {
        &self.sorting[..self.primary_len]
    }

    /// Schema of `primary.idx`: one field per primary-key element, named by position.
    pub fn primary_schema(&self) -> SchemaRef {
        key_schema(self.primary())
    }

    pub fn sort_fields(&self) -> Vec<SortField> {
        self.sorting.iter().map(|k| SortField::new(k.data_type.clone())).collect()
    }

    /// Splits a block by partition: `(partition_id, row indices)` in order of first row.
    pub fn split_by_partition(&self, batch: &RecordBatch) -> Result<Vec<(String, UInt32Array)>> {
        self.split_batches_by_partition(std::slice::from_ref(batch))
    }

    /// [`Self::split_by_partition`] of the rows of `batches` one after the other: the
    /// indices count rows across the batches, so a block is split without being copied
    /// into one batch first (only its partition key columns are).
    pub fn split_batches_by_partition(&self, batches: &[RecordBatch]) -> Result<Vec<(String, UInt32Array)>> {
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        if self.partition.is_empty() {
            return Ok(vec![("all".to_string(), UInt32Array::from_iter_values(0..rows as u32))]);
        }
        let arrays = self.partition.iter().map(|k| evaluate_over(k, batches)).collect::<Result<Vec<_>>>()?;
        let converter = RowConverter::new(arrays.iter().map(|a| SortField::new(a.data_type().clone())).collect())?;
        let rows = converter.convert_columns(&arrays)?;
        let mut groups: HashMap<&[u8], usize> = HashMap::new();
        let mut out: Vec<(usize, Vec<u32>)> = Vec::new();
        for i in 0..rows.num_rows() {
            let slot = *groups.entry(rows.row(i).data()).or_insert_with(|| {
                out.push((i, Vec::new()));
                out.len() - 1
            });
            out[slot].1.push(i as u32);
        }
        out.into_iter().map(|(first, idx)| Ok((partition_id(&arrays, first)?, UInt32Array::from(idx)))).collect()
    }
}

/// `key` evaluated over the rows of `batches`, one after the other.
pub fn evaluate_over(key: &KeyExpr, batches: &[RecordBatch]) -> Result<ArrayRef> {
    let parts = batches.iter().map(|b| key.evaluate(b)).collect::<Result<Vec<_>>>()?;
    match parts.as_slice() {
        [one] => Ok(one.clone()),
        _ => Ok(arrow::compute::concat(&parts.iter().map(|a| a.as_ref()).collect::<Vec<_>>())?),
    }
}

impl TableKeys {
    /// The partition value of a part as ClickHouse prints it (`system.parts.partition`):
    /// `202401`, `'abc'`, `('a',202401)`, `tuple()` without PARTITION BY. Evaluated on the
    /// part's minimum of each partition column: every row of a part has the same
    /// partition value, so this is exact when each key element reads one column.
    pub fn partition_text(&self, schema: &SchemaRef, minmax: &[ArrayRef]) -> String {
        if self.partition.is_empty() {
            return "tuple()".to_string();
        }
        let evaluate = || -> Result<Vec<String>> {
            let opts = granary_types::text::TextOptions::default();
            let mut out = Vec::new();
            for (k, array) in self.partition.iter().zip(self.partition_values(schema, minmax)?) {
                let ch = granary_types::ChType::from_arrow(array.data_type(), k.nullable);
                let writer = granary_types::text::ColumnWriter::with_type(&ch, &array, granary_types::text::TextStyle::Quoted, &opts)?;
                let mut bytes = Vec::new();
                writer.write(0, &mut bytes);
                out.push(String::from_utf8_lossy(&bytes).to_string());
            }
            Ok(out)
        };
        match evaluate() {
            Ok(values) if values.len() == 1 => values.into_iter().next().unwrap_or_default(),
            Ok(values) => format!("({})", values.join(",")),
            Err(e) => format!("<{e}>"),
        }
    }

    /// The partition value of a part, one single-row array per PARTITION BY element
    /// (`_partition_value`). Evaluated on the part's minimum of each partition column:
    /// every row of a part has the same partition value, so this is exact when each key
    /// element reads one column.
    pub fn partition_values(&self, schema: &SchemaRef, minmax: &[ArrayRef]) -> Result<Vec<ArrayRef>> {
        let fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone().with_nullable(true)).collect();
        let loose = Arc::new(Schema::new(fields));
        let mut columns: Vec<ArrayRef> = loose.fields().iter().map(|f| arrow::array::new_null_array(f.data_type(), 1)).collect();
        for (j, &c) in self.partition_columns.iter().enumerate() {
            if let Some(m) = minmax.get(j) {
                columns[c] = m.slice(0, 1);
            }
        }
        let batch = RecordBatch::try_new(loose, columns)?;
        self.partition.iter().map(|k| k.evaluate(&batch)).collect()
    }
}

impl TableKeys {
    /// The partition id named by a `PARTITION p` clause: `ID 'id'` as is, otherwise `p`
    /// is the partition value (one literal, or a tuple of them), cast to the partition
    /// key's types and turned into an id as when rows are inserted.
    /// A boolean expression over the table (`ALTER TABLE ... DELETE WHERE`).
    pub fn plan_predicate(&self, schema: &SchemaRef, text: &str) -> Result<Arc<dyn PhysicalExpr>> {
        Ok(Planner::new(schema)?.plan(text)?.expr)
    }

    /// An expression of any type (arrays, maps and tuples too) over `schema`.
    pub fn plan_expr(&self, schema: &SchemaRef, text: &str) -> Result<Arc<dyn PhysicalExpr>> {
        Planner::new(schema)?.expr(text)
    }

    /// An expression over `schema` rewritten first as the SQL front end rewrites a
    /// SELECT-list item, so ClickHouse's forms (`DateTime + 1`, `x::T`, operators on
    /// ClickHouse's result types) mean what they mean in a query.
    pub fn plan_query_expr(&self, schema: &SchemaRef, text: &str) -> Result<Arc<dyn PhysicalExpr>> {
        Planner::new(schema)?.expr(&front_end_form(text)?)
    }

    /// An aggregate call (`sum(x)`, `argMax(v, t)`) over `schema`, rewritten as
    /// [`TableKeys::plan_query_expr`] rewrites; `None` when `text` is no aggregate call.
    pub fn plan_aggregate(&self, schema: &SchemaRef, text: &str) -> Result<Option<Arc<AggregateFunctionExpr>>> {
        let planner = Planner::new(schema)?;
        let text = front_end_form(text)?;
        let logical = planner
            .state
            .create_logical_expr_from_sql_expr(ExprWithAlias { expr: parse_sql_expr(&text)?, alias: None }, &planner.df_schema)
            .map_err(|e| Error::from(e).context(format!("in expression {text}")))?;
        let datafusion::logical_expr::Expr::AggregateFunction(call) = logical else { return Ok(None) };
        let args = call.params.args.iter().map(|a| Ok(planner.state.create_physical_expr(a.clone(), &planner.df_schema)?)).collect::<Result<Vec<_>>>()?;
        // The arguments as the query planner's type coercion would cast them (`avg` of
        // an integer reads Float64).
        let fields = args.iter().map(|a| Ok(a.return_field(&planner.schema)?)).collect::<Result<Vec<_>>>()?;
        let coerced = datafusion::logical_expr::type_coercion::functions::fields_with_udf(&fields, call.func.as_ref())?;
        let args = args
            .into_iter()
            .zip(&coerced)
            .map(|(arg, field)| Ok(datafusion::physical_expr::expressions::cast(arg, &planner.schema, field.data_type().clone())?))
            .collect::<Result<Vec<_>>>()?;
        let aggregate = datafusion::physical_expr::aggregate::AggregateExprBuilder::new(call.func.clone(), args).schema(planner.schema.clone()).alias(text.clone()).build()?;
        Ok(Some(Arc::new(aggregate)))
    }

    pub fn partition_id_of(&self, schema: &SchemaRef, text: &str) -> Result<String> {
        let t = text.trim();
        if t.len() > 3 && t[..3].eq_ignore_ascii_case("ID ") {
            let id = t[3..].trim();
            return id
                .strip_prefix('\'')
                .and_then(|r| r.strip_suffix('\''))
                .map(str::to_string)
                .ok_or_else(|| Error::new(ErrorCode::INVALID_PARTITION_VALUE, format!("Partition ID must be a string literal: {text}")));
        }
        let elements = split_tuple(t)?;
        if self.partition.is_empty() {
            if elements.is_empty() {
                return Ok("all".to_string());
            }
            return Err(Error::new(
                ErrorCode::INVALID_PARTITION_VALUE,
                format!("Wrong number of fields in the partition expression: {}, must be: 0", elements.len()),
            ));
        }
        if elements.len() != self.partition.len() {
            return Err(Error::new(
                ErrorCode::INVALID_PARTITION_VALUE,
                format!("Wrong number of fields in the partition expression: {}, must be: {}", elements.len(), self.partition.len()),
            ));
        }
        let planner = Planner::new(schema)?;
        let empty = RecordBatch::try_new_with_options(
            Arc::new(Schema::empty()),
            vec![],
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(1)),
        )?;
        let mut arrays = Vec::with_capacity(elements.len());
        for (element, key) in elements.iter().zip(&self.partition) {
            let value = planner.plan(element)?;
            if !datafusion::physical_expr::utils::collect_columns(&value.expr).is_empty() {
                return Err(Error::new(ErrorCode::INVALID_PARTITION_VALUE, format!("Partition value {element} must be a constant")));
            }
            let array = value.evaluate(&empty)?;
            let options = arrow::compute::CastOptions { safe: false, ..Default::default() };
            let cast = arrow::compute::cast_with_options(&array, &key.data_type, &options).map_err(|e| {
                Error::new(ErrorCode::TYPE_MISMATCH, format!("Cannot convert partition value {element} to {}: {e}", key.data_type))
            })?;
            arrays.push(cast);
        }
        partition_id(&arrays, 0)
    }
}

/// The `SAMPLE BY` key, checked in ClickHouse's order (MergeTreeData's
/// checkSampleExpression): present in the primary key, then of one unsigned integer type.
fn sampling_key(planner: &Planner, text: &str, primary: &[KeyExpr]) -> Result<SamplingKey> {
    let elements = split_tuple(text)?;
    let Some(first) = elements.first() else {
        return Err(Error::new(ErrorCode::INCORRECT_QUERY, "There are no columns in sampling expression"));
    };
    let key = planner.plan(first)?;
    // Planned by the same planner, equal expressions print the same.
    let shown = key.expr.to_string();
    if !primary.iter().any(|k| k.expr.to_string() == shown) {
        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Sampling expression must be present in the primary key"));
    }
    let ch_type = granary_types::ChType::from_field(key.expr.return_field(&planner.schema)?.as_ref());
    let universe = crate::sample::check_key_type(&ch_type, elements.len())?;
    Ok(SamplingKey { key, universe })
}

pub fn key_schema(keys: &[KeyExpr]) -> SchemaRef {
    Arc::new(Schema::new(
        keys.iter().enumerate().map(|(i, k)| Field::new(format!("k{i}"), k.data_type.clone(), true)).collect::<Vec<_>>(),
    ))
}

/// ClickHouse's partition id: the value itself for non-negative integers (`202401`,
/// several joined by `-`), else a hash of the values' text (stable across versions,
/// unlike a hash of an in-memory encoding).
fn partition_id(arrays: &[ArrayRef], row: usize) -> Result<String> {
    let values = arrays.iter().map(|a| ScalarValue::try_from_array(a, row)).collect::<datafusion::common::Result<Vec<_>>>()?;
    let all_unsigned = values.iter().all(|v| match v {
        ScalarValue::UInt8(Some(_)) | ScalarValue::UInt16(Some(_)) | ScalarValue::UInt32(Some(_)) | ScalarValue::UInt64(Some(_)) => true,
        ScalarValue::Int8(Some(x)) => *x >= 0,
        ScalarValue::Int16(Some(x)) => *x >= 0,
        ScalarValue::Int32(Some(x)) => *x >= 0,
        ScalarValue::Int64(Some(x)) => *x >= 0,
        // DataFusion's `%` on UInt64 and an integer literal yields Decimal128(20, 0).
        ScalarValue::Decimal128(Some(x), _, 0) => *x >= 0,
        _ => false,
    });
    if all_unsigned {
        let text = |v: &ScalarValue| match v {
            ScalarValue::Decimal128(Some(x), _, _) => x.to_string(),
            other => other.to_string(),
        };
        return Ok(values.iter().map(text).collect::<Vec<_>>().join("-"));
    }
    let text = values.iter().map(|v| format!("{}:{v}", v.data_type())).collect::<Vec<_>>().join("\u{1}");
    Ok(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes())))
}

/// Checks the engine clause: ORDER BY present, PRIMARY KEY a prefix of it.
pub fn check_clauses(meta: &TableMeta) -> Result<()> {
    let engine = &meta.engine;
    if engine.order_by.is_none() && engine.primary_key.is_none() {
        return Err(Error::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "ORDER BY or PRIMARY KEY clause is missing. Consider using extended storage definition syntax with ORDER BY or PRIMARY KEY clause (table {}.{})",
                meta.database, meta.name
            ),
        ));
    }
    if let (Some(order_by), Some(primary)) = (&engine.order_by, &engine.primary_key) {
        let sorting = split_tuple(order_by)?;
        let primary = split_tuple(primary)?;
        if primary.len() > sorting.len() {
            return Err(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Primary key must be a prefix of the sorting key, but its length: {} is greater than the sorting key length: {}", primary.len(), sorting.len()),
            ));
        }
        for (i, (p, s)) in primary.iter().zip(&sorting).enumerate() {
            if normalize(p) != normalize(s) {
                return Err(Error::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Primary key must be a prefix of the sorting key, but the column in the position {i} is {s}, not {p}"),
                ));
            }
        }
    }
    Ok(())
}

fn normalize(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Splits a key clause into its elements: `id` -> `[id]`; `(a, toDate(b))` -> `[a, toDate(b)]`;
/// `tuple()` -> `[]`; `tuple(a, b)` -> `[a, b]`. Commas inside parentheses, brackets and
/// quotes do not split.
pub fn split_tuple(text: &str) -> Result<Vec<String>> {
    let t = text.trim();
    let is_tuple_call = t.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("tuple"))
        && t.get(5..).is_some_and(|rest| rest.trim_start().starts_with('('))
        && t.ends_with(')');
    let inner = if is_tuple_call {
        let open = t.find('(').unwrap_or(5);
        &t[open + 1..t.len() - 1]
    } else if t.starts_with('(') && matching_paren(t, 0) == Some(t.len() - 1) {
        &t[1..t.len() - 1]
    } else {
        t
    };
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut prev_escape = false;
    for (i, c) in inner.char_indices() {
        if let Some(q) = quote {
            if c == q && !prev_escape {
                quote = None;
            }
            prev_escape = c == '\\' && !prev_escape;
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(inner[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last.to_string());
    }
    if depth != 0 || quote.is_some() || out.iter().any(|s| s.is_empty()) {
        return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse key expression {text}")));
    }
    Ok(out)
}

fn matching_paren(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices().skip(open) {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` as the SQL front end rewrites a SELECT-list item, as SQL text again.
fn front_end_form(text: &str) -> Result<String> {
    let params = HashMap::new();
    let case_insensitive = |name: &str| granary_functions::is_case_insensitive(name);
    let options = granary_sql::ParseOptions {
        params: &params,
        rewrite: granary_sql::rewrite::RewriteOptions { is_case_insensitive: Some(&case_insensitive), clickhouse_functions: true },
        max_query_size: 0,
    };
    Ok(granary_sql::parse_expression(text, &options)?.to_string())
}

/// Parses one expression with ClickHouse's function-name rules applied (DataFusion
/// lowercases unquoted function names; `granary_functions::prepare_function_names`
/// quotes them so `toYYYYMM` is looked up as written).
fn parse_sql_expr(text: &str) -> Result<SqlExpr> {
    let syntax = |detail: String| Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse key expression {text}: {detail}"));
    let mut statements = Parser::parse_sql(&ClickHouseDialect {}, &format!("SELECT {text}")).map_err(|e| syntax(e.to_string()))?;
    let mut statement = statements.pop().filter(|_| statements.is_empty()).ok_or_else(|| syntax("not one expression".into()))?;
    granary_functions::prepare_function_names(&mut statement)?;
    if let Statement::Query(query) = statement {
        if let SetExpr::Select(select) = *query.body {
            if let [SelectItem::UnnamedExpr(expr)] = select.projection.as_slice() {
                return Ok(expr.clone());
            }
        }
    }
    Err(syntax("not one expression".into()))
}

struct Planner {
    state: SessionState,
    df_schema: DFSchema,
    schema: SchemaRef,
}

impl Planner {
    fn new(schema: &SchemaRef) -> Result<Planner> {
        let mut config = SessionConfig::new();
        config.options_mut().sql_parser.enable_ident_normalization = false;
        let mut state = SessionStateBuilder::new().with_config(config).with_default_features().build();
        granary_functions::register_all(&mut state)?;
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        Ok(Planner { state, df_schema, schema: schema.clone() })
    }

    /// `text` planned over the schema, of any type.
    fn expr(&self, text: &str) -> Result<Arc<dyn PhysicalExpr>> {
        let logical = self
            .state
            .create_logical_expr_from_sql_expr(ExprWithAlias { expr: parse_sql_expr(text)?, alias: None }, &self.df_schema)
            .map_err(|e| Error::from(e).context(format!("in key expression {text}")))?;
        Ok(self.state.create_physical_expr(logical, &self.df_schema)?)
    }

    fn plan(&self, text: &str) -> Result<KeyExpr> {
        let expr = self.expr(text)?;
        let data_type = expr.data_type(&self.schema)?;
        let nullable = expr.nullable(&self.schema)?;
        let column = expr.downcast_ref::<Column>().map(|c| c.index());
        let unsigned_words = granary_types::ChType::from_field(expr.return_field(&self.schema)?.as_ref()).base() == &granary_types::ChType::UInt256;
        if matches!(data_type, DataType::List(_) | DataType::Map(..) | DataType::Struct(_)) {
            return Err(Error::new(ErrorCode::ILLEGAL_COLUMN, format!("Key expression {text} has type {data_type}, which cannot be in a key")));
        }
        Ok(KeyExpr { text: text.to_string(), expr, column, data_type, nullable, unsigned_words })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn tuples_split() {
        assert_eq!(split_tuple("id").unwrap(), vec!["id"]);
        assert_eq!(split_tuple("(toDate(ts), id)").unwrap(), vec!["toDate(ts)", "id"]);
        assert_eq!(split_tuple("tuple()").unwrap(), Vec::<String>::new());
        assert_eq!(split_tuple("tuple(a, b)").unwrap(), vec!["a", "b"]);
        assert_eq!(split_tuple("(a, 'x,y')").unwrap(), vec!["a", "'x,y'"]);
        assert_eq!(split_tuple("(a) + (b)").unwrap(), vec!["(a) + (b)"]);
        assert_eq!(split_tuple("ünïcode").unwrap(), vec!["ünïcode"]);
        assert_eq!(split_tuple("Tuple ( x )").unwrap(), vec!["x"]);
        assert!(split_tuple("(a, ").is_err());
    }
}
