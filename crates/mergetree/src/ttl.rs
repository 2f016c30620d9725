//! TTL of a MergeTree table, as ClickHouse applies it.
//!
//! * Rules: the table's `TTL expr [DELETE] [WHERE cond], ...` and each column's
//!   `TTL expr`. An expression gives a Date or DateTime; a row (a column value) is
//!   expired when it is a time after the epoch and at or before now.
//! * Expired rows are removed, and expired column values reset to the column's default,
//!   when parts are merged (background merges pick parts holding expired rows, at most
//!   once per `merge_with_ttl_timeout` per partition; OPTIMIZE FINAL merges everything)
//!   and by `ALTER TABLE ... MATERIALIZE TTL`. An INSERT keeps expired rows until then,
//!   as in ClickHouse. With `ttl_only_drop_parts` merges keep expired rows and whole
//!   parts whose every row expired are dropped.
//! * Each part records the range of its TTL values in `ttl.txt`, ClickHouse's file and
//!   format (`ttl format version: 1` then one JSON object: `columns`, `table`,
//!   `rows_where`, Unix seconds). The merge selector reads it; a part without one (written
//!   before the table had TTL) is left to MATERIALIZE TTL, as in ClickHouse.
//! * Move (`TO DISK`/`TO VOLUME`) rules fail: there is one disk. `RECOMPRESS` rules are
//!   kept in the metadata but parts are not recompressed. `GROUP BY` rules are refused.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, Int64Array};
use arrow::compute::kernels::zip::zip;
use arrow::compute::{and, filter_record_batch, not, or};
use arrow::datatypes::{DataType, SchemaRef, TimeUnit};
use arrow::record_batch::RecordBatch;
use datafusion::physical_expr::PhysicalExpr;
use granary_common::{Error, ErrorCode, Result};
use granary_storage::ttl::{parse_table_ttl, TtlAction};
use granary_storage::TableMeta;
use granary_types::ChType;

use crate::keys::TableKeys;

/// A DELETE rule of the table TTL.
#[derive(Debug)]
struct RowRule {
    text: String,
    expr: Arc<dyn PhysicalExpr>,
    condition: Option<Arc<dyn PhysicalExpr>>,
}

/// A column's TTL and the value its expired cells get.
#[derive(Debug)]
struct ColumnRule {
    column: usize,
    name: String,
    expr: Arc<dyn PhysicalExpr>,
    /// The column's DEFAULT (or MATERIALIZED) expression, cast to its type.
    default_expr: Option<Arc<dyn PhysicalExpr>>,
    /// One row of the type's default, when the column has no expression.
    default_value: ArrayRef,
}

/// The planned TTL rules of a table.
#[derive(Debug)]
pub struct TableTtl {
    /// The DELETE rule without WHERE (ClickHouse's "table" TTL; at most one).
    rows: Option<RowRule>,
    rows_where: Vec<RowRule>,
    columns: Vec<ColumnRule>,
}

/// The range of one TTL's values over a part's rows, Unix seconds (0: none seen).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TtlRange {
    pub min: i64,
    pub max: i64,
}

impl TtlRange {
    /// ClickHouse's `TTLInfo::update`: a zero time (no TTL) never counts.
    fn update(&mut self, time: i64) {
        if time != 0 && (self.min == 0 || time < self.min) {
            self.min = time;
        }
        self.max = self.max.max(time);
    }

    fn expired_at(&self, now: i64) -> bool {
        self.min != 0 && self.min <= now
    }
}

/// What a part's `ttl.txt` holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TtlInfos {
    pub columns: BTreeMap<String, TtlRange>,
    pub table: TtlRange,
    pub rows_where: BTreeMap<String, TtlRange>,
}

pub const TTL_FILE: &str = "ttl.txt";

impl TtlInfos {
    /// Whether a merge would remove or reset something now.
    pub fn any_expired(&self, now: i64) -> bool {
        self.table.expired_at(now) || self.rows_where.values().any(|r| r.expired_at(now)) || self.columns.values().any(|r| r.expired_at(now))
    }

    /// Whether every row of the part is past its table TTL.
    pub fn all_rows_expired(&self, now: i64) -> bool {
        self.table.max != 0 && self.table.max <= now
    }

    /// The file's text, as ClickHouse's `MergeTreeDataPartTTLInfos::write` writes it.
    pub fn text(&self) -> String {
        let range = |r: &TtlRange| format!("\"min\":{},\"max\":{}", r.min, r.max);
        let mut parts = Vec::new();
        if !self.columns.is_empty() {
            let items: Vec<String> = self.columns.iter().map(|(name, r)| format!("{{\"name\":{},{}}}", json_string(name), range(r))).collect();
            parts.push(format!("\"columns\":[{}]", items.join(",")));
        }
        if self.table.min != 0 {
            parts.push(format!("\"table\":{{{}}}", range(&self.table)));
        }
        if !self.rows_where.is_empty() {
            let items: Vec<String> = self.rows_where.iter().map(|(expr, r)| format!("{{\"expression\":{},{}}}", json_string(expr), range(r))).collect();
            parts.push(format!("\"rows_where\":[{}]", items.join(",")));
        }
        format!("ttl format version: 1\n{{{}}}", parts.join(","))
    }

    /// Reads a `ttl.txt`; sections this server does not apply (moves, recompression,
    /// group by) are skipped.
    pub fn parse(text: &str) -> Result<TtlInfos> {
        let bad = |what: &str| Error::new(ErrorCode::CORRUPTED_DATA, format!("Cannot parse {TTL_FILE}: {what}"));
        let body = text.strip_prefix("ttl format version: 1\n").ok_or_else(|| bad("expected 'ttl format version: 1'"))?;
        let json: serde_json::Value = serde_json::from_str(body).map_err(|e| bad(&e.to_string()))?;
        let range = |v: &serde_json::Value| TtlRange { min: v["min"].as_i64().unwrap_or(0), max: v["max"].as_i64().unwrap_or(0) };
        let mut infos = TtlInfos::default();
        for c in json["columns"].as_array().into_iter().flatten() {
            infos.columns.insert(c["name"].as_str().ok_or_else(|| bad("column without a name"))?.to_string(), range(c));
        }
        if json.get("table").is_some() {
            infos.table = range(&json["table"]);
        }
        for r in json["rows_where"].as_array().into_iter().flatten() {
            infos.rows_where.insert(r["expression"].as_str().ok_or_else(|| bad("rows_where without an expression"))?.to_string(), range(r));
        }
        Ok(infos)
    }
}

fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

impl TableTtl {
    /// Plans the table's and columns' TTL rules; `None` when it has none. Errors are
    /// CREATE's and ALTER's, with ClickHouse's codes.
    pub fn new(meta: &TableMeta, schema: &SchemaRef, keys: &TableKeys) -> Result<Option<TableTtl>> {
        let has_column_ttl = meta.columns.iter().any(|c| c.ttl.is_some());
        if meta.engine.ttl.is_none() && !has_column_ttl {
            return Ok(None);
        }
        let mut ttl = TableTtl { rows: None, rows_where: Vec::new(), columns: Vec::new() };
        for rule in parse_table_ttl(meta.engine.ttl.as_deref().unwrap_or_default()).or_else(|e| if meta.engine.ttl.is_none() { Ok(Vec::new()) } else { Err(e) })? {
            match &rule.action {
                TtlAction::Move { volume, name } => {
                    let (what, name) = (if *volume { "volume" } else { "disk" }, name.trim_matches('\''));
                    return Err(Error::new(ErrorCode::BAD_TTL_EXPRESSION, format!("No such {what} `{name}` for given storage policy")));
                }
                TtlAction::Recompress(_) => continue,
                TtlAction::Delete => {}
            }
            let expr = plan_ttl_expression(keys, schema, &rule.expression)?;
            let condition = match &rule.condition {
                Some(text) => Some(keys.plan_predicate(schema, &format!("if(({text}), true, false)"))?),
                None => None,
            };
            let planned = RowRule { text: rule.expression.clone(), expr, condition };
            if planned.condition.is_some() {
                ttl.rows_where.push(planned);
            } else if ttl.rows.replace(planned).is_some() {
                return Err(Error::new(ErrorCode::BAD_TTL_EXPRESSION, "More than one DELETE TTL expression without WHERE expression is not allowed"));
            }
        }
        let key_columns: Vec<usize> = keys.sorting.iter().chain(&keys.partition).flat_map(|k| datafusion::physical_expr::utils::collect_columns(&k.expr)).map(|c| c.index()).collect();
        for (index, column) in meta.columns.iter().enumerate() {
            let Some(text) = &column.ttl else { continue };
            if key_columns.contains(&index) {
                return Err(Error::new(ErrorCode::ILLEGAL_COLUMN, format!("Trying to set TTL for key column {}", column.name)));
            }
            let field = schema.field(index);
            let default_expr = match (column.default_kind.as_deref(), &column.default_expression) {
                (Some("DEFAULT" | "MATERIALIZED"), Some(e)) => {
                    let t = ChType::from_field(field).to_string().replace('\'', "\\'");
                    Some(keys.plan_expr(schema, &format!("_CAST(({e}), '{t}')"))?)
                }
                _ => None,
            };
            ttl.columns.push(ColumnRule {
                column: index,
                name: column.name.clone(),
                expr: plan_ttl_expression(keys, schema, text)?,
                default_expr,
                default_value: granary_storage::defaults::default_value(field)?,
            });
        }
        Ok(Some(ttl))
    }

    /// `batch` with its expired rows removed and expired column values reset.
    pub fn apply(&self, batch: &RecordBatch, now: i64) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let mut deleted: Option<BooleanArray> = None;
        for rule in self.rows.iter().chain(&self.rows_where) {
            let mut expired = expired_mask(&ttl_seconds(&rule.expr, batch)?, now);
            if let Some(condition) = &rule.condition {
                let value = condition.evaluate(batch)?.into_array(rows)?;
                let matched = value.as_any().downcast_ref::<BooleanArray>().ok_or_else(|| Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "TTL WHERE condition is not boolean"))?;
                // NULL keeps the row, as in ClickHouse.
                let matched = if matched.null_count() > 0 { arrow::compute::prep_null_mask_filter(matched) } else { matched.clone() };
                expired = and(&expired, &matched)?;
            }
            deleted = Some(match deleted {
                Some(d) => or(&d, &expired)?,
                None => expired,
            });
        }
        let mut columns = batch.columns().to_vec();
        for rule in &self.columns {
            let expired = expired_mask(&ttl_seconds(&rule.expr, batch)?, now);
            if expired.true_count() == 0 {
                continue;
            }
            let default = match &rule.default_expr {
                Some(e) => e.evaluate(batch)?.into_array(rows)?,
                None => granary_storage::defaults::repeat(&rule.default_value, rows)?,
            };
            let field = batch.schema_ref().field(rule.column).clone();
            let default = if default.data_type() == field.data_type() { default } else { arrow::compute::cast(&default, field.data_type())? };
            columns[rule.column] = zip(&expired, &default, &columns[rule.column])?;
        }
        let reset = RecordBatch::try_new(batch.schema(), columns)?;
        match deleted {
            Some(d) if d.true_count() > 0 => Ok(filter_record_batch(&reset, &not(&d)?)?),
            _ => Ok(reset),
        }
    }

    /// Adds `batch`'s TTL values to `infos`. `applied_at`: the TTL was just applied at
    /// that time, so expired column values are defaults now and do not count (as in
    /// ClickHouse's TTL transform), else a merge would find them expired forever.
    pub fn observe(&self, batch: &RecordBatch, applied_at: Option<i64>, infos: &mut TtlInfos) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if let Some(rule) = &self.rows {
            for t in ttl_seconds(&rule.expr, batch)?.iter().flatten() {
                infos.table.update(t);
            }
        }
        for rule in &self.rows_where {
            let range = infos.rows_where.entry(rule.text.clone()).or_default();
            for t in ttl_seconds(&rule.expr, batch)?.iter().flatten() {
                range.update(t);
            }
        }
        for rule in &self.columns {
            let range = infos.columns.entry(rule.name.clone()).or_default();
            for t in ttl_seconds(&rule.expr, batch)?.iter().flatten() {
                if applied_at.is_none_or(|now| t == 0 || t > now) {
                    range.update(t);
                }
            }
        }
        Ok(())
    }
}

/// Plans a TTL expression and checks it as ClickHouse does: a date or time, depending
/// on a column.
fn plan_ttl_expression(keys: &TableKeys, schema: &SchemaRef, text: &str) -> Result<Arc<dyn PhysicalExpr>> {
    let expr = keys.plan_expr(schema, &calendar_intervals(text))?;
    if datafusion::physical_expr::utils::collect_columns(&expr).is_empty() {
        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("TTL expression {text} does not depend on any of the columns of the table")));
    }
    let field = expr.return_field(schema)?;
    if !matches!(field.data_type(), DataType::Date32 | DataType::Timestamp(..)) {
        let t = ChType::from_field(&field.as_ref().clone().with_nullable(false));
        return Err(Error::new(ErrorCode::BAD_TTL_EXPRESSION, format!("TTL expression result column should have Date, Date32, DateTime or DateTime64 type, but has {t}")));
    }
    Ok(expr)
}

/// `text` with each `toIntervalUnit(n)` as DataFusion's `INTERVAL 'n' UNIT`: the
/// stored form is ClickHouse's, but the key planner has no rewrite of `date + interval`
/// and DataFusion adds its own intervals in calendar units.
fn calendar_intervals(text: &str) -> String {
    static INTERVAL: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let Some(re) = INTERVAL.get_or_init(|| regex::Regex::new(r"(?i)\btoInterval(Nanosecond|Microsecond|Millisecond|Second|Minute|Hour|Day|Week|Month|Quarter|Year)\(\s*'?(-?[0-9]+(?:\.[0-9]+)?)'?\s*\)").ok())
    else {
        return text.to_string();
    };
    re.replace_all(text, |c: &regex::Captures| format!("INTERVAL '{}' {}", &c[2], c[1].to_ascii_uppercase())).into_owned()
}

/// The expression's values as Unix seconds (a Date at midnight UTC); NULL stays NULL.
fn ttl_seconds(expr: &Arc<dyn PhysicalExpr>, batch: &RecordBatch) -> Result<Int64Array> {
    let values = expr.evaluate(batch)?.into_array(batch.num_rows())?;
    let seconds = match values.data_type() {
        DataType::Date32 => {
            let days = arrow::compute::cast(&values, &DataType::Int64)?;
            arrow::compute::kernels::numeric::mul(&days, &Int64Array::new_scalar(86_400))?
        }
        DataType::Timestamp(TimeUnit::Second, _) => arrow::compute::cast(&values, &DataType::Int64)?,
        DataType::Timestamp(_, _) => {
            let whole = arrow::compute::cast(&values, &DataType::Timestamp(TimeUnit::Second, None))?;
            arrow::compute::cast(&whole, &DataType::Int64)?
        }
        other => return Err(Error::new(ErrorCode::BAD_TTL_EXPRESSION, format!("TTL expression has type {other}, not a date or time"))),
    };
    seconds.as_any().downcast_ref::<Int64Array>().cloned().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "TTL seconds are not Int64"))
}

/// True where the time is set and not after `now` (ClickHouse's `isTTLExpired`).
fn expired_mask(seconds: &Int64Array, now: i64) -> BooleanArray {
    seconds.iter().map(|t| Some(t.is_some_and(|t| t != 0 && t <= now))).collect()
}

/// Unix seconds now.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::SystemTime::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ttl_file_is_written_as_clickhouse_writes_it_and_read_back() {
        let mut infos = TtlInfos::default();
        assert_eq!(infos.text(), "ttl format version: 1\n{}");
        infos.table = TtlRange { min: 946_771_200, max: 4_102_531_200 };
        infos.columns.insert("x".into(), TtlRange { min: 10, max: 20 });
        infos.rows_where.insert("d + toIntervalMonth(2)".into(), TtlRange { min: 1, max: 2 });
        let text = infos.text();
        assert_eq!(
            text,
            "ttl format version: 1\n{\"columns\":[{\"name\":\"x\",\"min\":10,\"max\":20}],\"table\":{\"min\":946771200,\"max\":4102531200},\"rows_where\":[{\"expression\":\"d + toIntervalMonth(2)\",\"min\":1,\"max\":2}]}"
        );
        assert_eq!(TtlInfos::parse(&text).unwrap(), infos);
        assert!(TtlInfos::parse("{}").is_err());
        assert!(infos.any_expired(10) && !infos.all_rows_expired(10) && infos.all_rows_expired(4_102_531_200));
    }

    #[test]
    fn zero_times_never_count() {
        let mut r = TtlRange::default();
        for t in [0, 5, 3, 0] {
            r.update(t);
        }
        assert_eq!(r, TtlRange { min: 3, max: 5 });
        assert!(!TtlRange::default().expired_at(100));
    }
}
