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
//! * `GROUP BY k [SET c = agg(c)]` rules collapse the expired rows of each key (a prefix
//!   of the primary key, so equal keys are adjacent in a merge) into one row, as
//!   ClickHouse's `TTLAggregationAlgorithm`: a key's run of expired rows ends at a new key
//!   or at an unexpired row of the key; SET columns take their aggregate, every other
//!   column its first row's value (ClickHouse's `any`). Rules run in ClickHouse's order:
//!   deletes, then GROUP BY rules, then column TTL.
//! * TTL expressions go through the SQL front end's rewrites, as a query's expressions.
//!   A Date is taken at midnight in the server time zone, as ClickHouse's `DateLUT`.
//! * `RECOMPRESS` rules record their ranges in `ttl.txt`; a merge whose sources' rows are
//!   all past one writes columns without a CODEC of their own with its codec (the latest
//!   such rule, as ClickHouse). Move (`TO DISK`/`TO VOLUME`) rules fail: there is one disk.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, Int64Array};
use arrow::compute::kernels::zip::zip;
use arrow::compute::{and, concat_batches, filter_record_batch, not, or};
use arrow::datatypes::{DataType, SchemaRef, TimeUnit};
use arrow::record_batch::RecordBatch;
use arrow::row::{OwnedRow, RowConverter, SortField};
use datafusion::physical_expr::aggregate::AggregateFunctionExpr;
use datafusion::physical_expr::PhysicalExpr;
use granary_functions::tz::SessionTz;
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

/// A GROUP BY rule of the table TTL.
#[derive(Debug)]
struct GroupRule {
    text: String,
    expr: Arc<dyn PhysicalExpr>,
    /// The GROUP BY columns and their types.
    keys: Vec<usize>,
    key_types: Vec<DataType>,
    /// The SET columns and their aggregates; any other column keeps its first row's value.
    set: Vec<(usize, Arc<AggregateFunctionExpr>)>,
}

/// A RECOMPRESS rule: its codec as written (`CODEC(ZSTD(3))`).
#[derive(Debug)]
struct RecompressRule {
    text: String,
    expr: Arc<dyn PhysicalExpr>,
    codec: String,
}

/// The planned TTL rules of a table.
#[derive(Debug)]
pub struct TableTtl {
    /// The DELETE rule without WHERE (ClickHouse's "table" TTL; at most one).
    rows: Option<RowRule>,
    rows_where: Vec<RowRule>,
    group_by: Vec<GroupRule>,
    recompress: Vec<RecompressRule>,
    columns: Vec<ColumnRule>,
    /// The server time zone a Date's midnight is taken in.
    tz: SessionTz,
}

/// The range of one TTL's values over a part's rows, Unix seconds (0: none seen).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TtlRange {
    pub min: i64,
    pub max: i64,
    /// ClickHouse's `ttl_finished`: a GROUP BY rule found every row of its sources expired.
    pub finished: bool,
}

impl TtlRange {
    /// ClickHouse's `TTLInfo::update`: a zero time (no TTL) never counts.
    fn update(&mut self, time: i64) {
        if time != 0 && (self.min == 0 || time < self.min) {
            self.min = time;
        }
        self.max = self.max.max(time);
    }

    /// ClickHouse's `TTLInfo::update` with another part's range.
    fn merge(&mut self, other: &TtlRange) {
        if other.min != 0 && (self.min == 0 || other.min < self.min) {
            self.min = other.min;
        }
        self.max = self.max.max(other.max);
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
    pub recompression: BTreeMap<String, TtlRange>,
    pub group_by: BTreeMap<String, TtlRange>,
    pub rows_where: BTreeMap<String, TtlRange>,
}

pub const TTL_FILE: &str = "ttl.txt";

/// ClickHouse's file of a part's default codec; written only by RECOMPRESS merges here.
pub const CODEC_FILE: &str = "default_compression_codec.txt";

impl TtlInfos {
    /// Whether a merge would remove or reset something now.
    pub fn any_expired(&self, now: i64) -> bool {
        self.table.expired_at(now)
            || self.rows_where.values().any(|r| r.expired_at(now))
            || self.columns.values().any(|r| r.expired_at(now))
            || self.group_by.values().any(|r| !r.finished && r.expired_at(now))
    }

    /// A map of ranges as `system.parts` lists them: expression, min, max.
    pub fn listed(ranges: &BTreeMap<String, TtlRange>) -> Vec<(String, i64, i64)> {
        ranges.iter().map(|(text, r)| (text.clone(), r.min, r.max)).collect()
    }

    /// The ranges of several parts together (a merge's sources).
    pub fn union<'a>(parts: impl IntoIterator<Item = &'a TtlInfos>) -> TtlInfos {
        let mut out = TtlInfos::default();
        for infos in parts {
            out.table.merge(&infos.table);
            for (mine, theirs) in [(&mut out.columns, &infos.columns), (&mut out.recompression, &infos.recompression), (&mut out.group_by, &infos.group_by), (&mut out.rows_where, &infos.rows_where)] {
                for (name, range) in theirs {
                    mine.entry(name.clone()).or_default().merge(range);
                }
            }
        }
        out
    }

    /// When the part's earliest TTL came due (what ClickHouse's TTL merge selector
    /// orders parts by).
    pub fn due_at(&self) -> i64 {
        let unfinished_group_by = self.group_by.values().filter(|r| !r.finished);
        let ranges = std::iter::once(&self.table).chain(self.rows_where.values()).chain(self.columns.values()).chain(unfinished_group_by);
        ranges.filter(|r| r.min != 0).map(|r| r.min).min().unwrap_or(i64::MAX)
    }

    /// Whether every row of the part is past its table TTL.
    pub fn all_rows_expired(&self, now: i64) -> bool {
        self.table.max != 0 && self.table.max <= now
    }

    /// The file's text, as ClickHouse's `MergeTreeDataPartTTLInfos::write` writes it.
    pub fn text(&self) -> String {
        let range = |r: &TtlRange| format!("\"min\":{},\"max\":{},\"finished\":{}", r.min, r.max, u8::from(r.finished));
        let list = |key: &str, field: &str, map: &BTreeMap<String, TtlRange>| {
            let items: Vec<String> = map.iter().map(|(name, r)| format!("{{\"{field}\":{},{}}}", json_string(name), range(r))).collect();
            format!("\"{key}\":[{}]", items.join(","))
        };
        let mut parts = Vec::new();
        if !self.columns.is_empty() {
            parts.push(list("columns", "name", &self.columns));
        }
        if self.table.min != 0 {
            parts.push(format!("\"table\":{{{}}}", range(&self.table)));
        }
        for (key, map) in [("recompression", &self.recompression), ("group_by", &self.group_by), ("rows_where", &self.rows_where)] {
            if !map.is_empty() {
                parts.push(list(key, "expression", map));
            }
        }
        format!("ttl format version: 1\n{{{}}}", parts.join(","))
    }

    /// Reads a `ttl.txt`; move ranges (this server has one disk) are skipped.
    pub fn parse(text: &str) -> Result<TtlInfos> {
        let bad = |what: &str| Error::new(ErrorCode::CORRUPTED_DATA, format!("Cannot parse {TTL_FILE}: {what}"));
        let body = text.strip_prefix("ttl format version: 1\n").ok_or_else(|| bad("expected 'ttl format version: 1'"))?;
        let json: serde_json::Value = serde_json::from_str(body).map_err(|e| bad(&e.to_string()))?;
        let range = |v: &serde_json::Value| TtlRange { min: v["min"].as_i64().unwrap_or(0), max: v["max"].as_i64().unwrap_or(0), finished: v["finished"].as_i64().is_some_and(|f| f != 0) };
        let mut infos = TtlInfos::default();
        for c in json["columns"].as_array().into_iter().flatten() {
            infos.columns.insert(c["name"].as_str().ok_or_else(|| bad("column without a name"))?.to_string(), range(c));
        }
        if json.get("table").is_some() {
            infos.table = range(&json["table"]);
        }
        for (key, map) in [("recompression", &mut infos.recompression), ("group_by", &mut infos.group_by), ("rows_where", &mut infos.rows_where)] {
            for r in json[key].as_array().into_iter().flatten() {
                map.insert(r["expression"].as_str().ok_or_else(|| bad(&format!("{key} without an expression")))?.to_string(), range(r));
            }
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
        let tz = SessionTz::from_config(&datafusion::config::ConfigOptions::new())?;
        let mut ttl = TableTtl { rows: None, rows_where: Vec::new(), group_by: Vec::new(), recompress: Vec::new(), columns: Vec::new(), tz };
        for rule in parse_table_ttl(meta.engine.ttl.as_deref().unwrap_or_default()).or_else(|e| if meta.engine.ttl.is_none() { Ok(Vec::new()) } else { Err(e) })? {
            match &rule.action {
                TtlAction::Move { volume, name } => {
                    let (what, name) = (if *volume { "volume" } else { "disk" }, name.trim_matches('\''));
                    return Err(Error::new(ErrorCode::BAD_TTL_EXPRESSION, format!("No such {what} `{name}` for given storage policy")));
                }
                TtlAction::Recompress(codec) => {
                    crate::compression::ColumnCodec::parse(codec, &DataType::UInt64)?;
                    let expr = plan_ttl_expression(keys, schema, &rule.expression)?;
                    ttl.recompress.push(RecompressRule { text: rule.expression.clone(), expr, codec: codec.clone() });
                    continue;
                }
                TtlAction::GroupBy { keys: group_keys, set } => {
                    ttl.group_by.push(plan_group_by(meta, schema, keys, &rule.expression, group_keys, set)?);
                    continue;
                }
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

    /// `batch` with its expired rows removed and expired column values reset (GROUP BY
    /// rules need the whole sorted stream: [`TableTtl::stream`]).
    pub fn apply(&self, batch: &RecordBatch, now: i64) -> Result<RecordBatch> {
        self.reset_columns(&self.delete_rows(batch, now)?, now)
    }

    /// Whether some rule needs the rows in key order across blocks.
    pub fn has_group_by(&self) -> bool {
        !self.group_by.is_empty()
    }

    /// Applies every rule to a sorted stream of blocks, GROUP BY rules included.
    pub fn stream(&self, now: i64) -> Result<TtlStream<'_>> {
        let groups = self
            .group_by
            .iter()
            .map(|rule| Ok(GroupState { converter: RowConverter::new(rule.key_types.iter().map(|t| SortField::new(t.clone())).collect())?, key: None, rows: Vec::new() }))
            .collect::<Result<_>>()?;
        Ok(TtlStream { ttl: self, now, groups })
    }

    fn delete_rows(&self, batch: &RecordBatch, now: i64) -> Result<RecordBatch> {
        let mut deleted: Option<BooleanArray> = None;
        for rule in self.rows.iter().chain(&self.rows_where) {
            let mut expired = expired_mask(&self.ttl_seconds(&rule.expr, batch)?, now);
            if let Some(condition) = &rule.condition {
                expired = and(&expired, &condition_mask(condition, batch)?)?;
            }
            deleted = Some(match deleted {
                Some(d) => or(&d, &expired)?,
                None => expired,
            });
        }
        match deleted {
            Some(d) if d.true_count() > 0 => Ok(filter_record_batch(batch, &not(&d)?)?),
            _ => Ok(batch.clone()),
        }
    }

    fn reset_columns(&self, batch: &RecordBatch, now: i64) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        if rows == 0 || self.columns.is_empty() {
            return Ok(batch.clone());
        }
        let mut columns = batch.columns().to_vec();
        for rule in &self.columns {
            let expired = expired_mask(&self.ttl_seconds(&rule.expr, batch)?, now);
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
        Ok(RecordBatch::try_new(batch.schema(), columns)?)
    }

    /// The codec of the RECOMPRESS rule whose expression is past for every row of a part
    /// with `infos` (the latest such, as ClickHouse's `selectTTLDescriptionForTTLInfos`).
    pub fn recompression_codec(&self, infos: &TtlInfos, now: i64) -> Option<&str> {
        let mut best: Option<(i64, &str)> = None;
        for rule in &self.recompress {
            let Some(range) = infos.recompression.get(&rule.text) else { continue };
            if range.max != 0 && range.max <= now && best.is_none_or(|(t, _)| t <= range.max) {
                best = Some((range.max, rule.codec.as_str()));
            }
        }
        best.map(|(_, codec)| codec)
    }

    /// `batch`'s TTL values as Unix seconds (a Date at midnight in the server time zone).
    fn ttl_seconds(&self, expr: &Arc<dyn PhysicalExpr>, batch: &RecordBatch) -> Result<Int64Array> {
        ttl_seconds(expr, batch, self.tz)
    }

    /// Adds `batch`'s TTL values to `infos`. `applied_at`: the TTL was just applied at
    /// that time, so expired column values are defaults now and do not count (as in
    /// ClickHouse's TTL transform), else a merge would find them expired forever.
    pub fn observe(&self, batch: &RecordBatch, applied_at: Option<i64>, infos: &mut TtlInfos) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if let Some(rule) = &self.rows {
            for t in self.ttl_seconds(&rule.expr, batch)?.iter().flatten() {
                infos.table.update(t);
            }
        }
        for rule in &self.rows_where {
            let range = infos.rows_where.entry(rule.text.clone()).or_default();
            let seconds = self.ttl_seconds(&rule.expr, batch)?;
            // Only rows its WHERE holds for count, as in ClickHouse.
            let counted = match &rule.condition {
                Some(condition) => condition_mask(condition, batch)?,
                None => BooleanArray::from(vec![true; batch.num_rows()]),
            };
            for (t, counted) in seconds.iter().zip(counted.iter()) {
                if let (Some(t), Some(true)) = (t, counted) {
                    range.update(t);
                }
            }
        }
        for (key, rules) in [(&mut infos.group_by, self.group_by.iter().map(|r| (&r.text, &r.expr)).collect::<Vec<_>>()), (&mut infos.recompression, self.recompress.iter().map(|r| (&r.text, &r.expr)).collect())] {
            for (text, expr) in rules {
                let range = key.entry(text.clone()).or_default();
                for t in self.ttl_seconds(expr, batch)?.iter().flatten() {
                    range.update(t);
                }
            }
        }
        for rule in &self.columns {
            let range = infos.columns.entry(rule.name.clone()).or_default();
            for t in self.ttl_seconds(&rule.expr, batch)?.iter().flatten() {
                if applied_at.is_none_or(|now| t == 0 || t > now) {
                    range.update(t);
                }
            }
        }
        Ok(())
    }

    /// Marks the GROUP BY ranges of a merge's result `finished` where every row of its
    /// sources (`sources`: their ranges together) was past the rule, as ClickHouse does.
    pub fn finish_group_by(&self, sources: &TtlInfos, now: i64, infos: &mut TtlInfos) {
        for rule in &self.group_by {
            if sources.group_by.get(&rule.text).is_some_and(|r| r.max != 0 && r.max <= now) {
                infos.group_by.entry(rule.text.clone()).or_default().finished = true;
            }
        }
    }
}

/// The state of one GROUP BY rule between blocks: the key being collapsed and its
/// expired rows so far.
struct GroupState {
    /// One converter for the whole stream, so keys of different blocks compare.
    converter: RowConverter,
    key: Option<OwnedRow>,
    rows: Vec<RecordBatch>,
}

/// Every TTL rule applied to a sorted stream of blocks: push each block, then finish.
pub struct TtlStream<'a> {
    ttl: &'a TableTtl,
    now: i64,
    groups: Vec<GroupState>,
}

impl TtlStream<'_> {
    /// What can be written of `batch` now (a key's expired rows wait for the key's end).
    pub fn push(&mut self, batch: &RecordBatch) -> Result<RecordBatch> {
        let mut out = self.ttl.delete_rows(batch, self.now)?;
        for i in 0..self.groups.len() {
            out = self.group(i, &out)?;
        }
        self.ttl.reset_columns(&out, self.now)
    }

    /// The rows still held at the end of the stream.
    pub fn finish(&mut self) -> Result<Option<RecordBatch>> {
        let mut out: Option<RecordBatch> = None;
        for i in 0..self.groups.len() {
            if let Some(batch) = out.take() {
                out = Some(self.group(i, &batch)?);
            }
            let rows = std::mem::take(&mut self.groups[i].rows);
            self.groups[i].key = None;
            if !rows.is_empty() {
                let collapsed = collapse(&self.ttl.group_by[i], &rows)?;
                out = Some(match out {
                    Some(before) => concat_batches(&before.schema(), &[before, collapsed])?,
                    None => collapsed,
                });
            }
        }
        out.map(|b| self.ttl.reset_columns(&b, self.now)).transpose()
    }

    /// ClickHouse's `TTLAggregationAlgorithm::execute` on one block: the rows to write,
    /// in order, with each finished run of expired rows as one row.
    fn group(&mut self, index: usize, batch: &RecordBatch) -> Result<RecordBatch> {
        let rule = &self.ttl.group_by[index];
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(batch.clone());
        }
        let expired = expired_mask(&self.ttl.ttl_seconds(&rule.expr, batch)?, self.now);
        let key_columns: Vec<ArrayRef> = rule.keys.iter().map(|&k| batch.column(k).clone()).collect();
        let state = &mut self.groups[index];
        let keys = state.converter.convert_columns(&key_columns)?;
        let mut out = Vec::new();
        let (mut passed_from, mut group_from): (Option<usize>, Option<usize>) = (None, None);
        for row in 0..rows {
            let is_expired = expired.value(row);
            let same = match &state.key {
                Some(k) => k.row() == keys.row(row),
                None => false,
            };
            if !same || !is_expired {
                if let Some(from) = group_from.take() {
                    state.rows.push(batch.slice(from, row - from));
                }
                if !state.rows.is_empty() {
                    if let Some(from) = passed_from.take() {
                        out.push(batch.slice(from, row - from));
                    }
                    out.push(collapse(rule, &std::mem::take(&mut state.rows))?);
                }
                if !same {
                    state.key = Some(keys.row(row).owned());
                }
            }
            if is_expired {
                if let Some(from) = passed_from.take() {
                    out.push(batch.slice(from, row - from));
                }
                group_from.get_or_insert(row);
            } else {
                passed_from.get_or_insert(row);
            }
        }
        if let Some(from) = group_from {
            state.rows.push(batch.slice(from, rows - from));
        }
        if let Some(from) = passed_from {
            out.push(batch.slice(from, rows - from));
        }
        Ok(concat_batches(&batch.schema(), &out)?)
    }
}

/// `blocks` (sorted, as a merge gives them) with every TTL rule applied; no TTL: as is.
pub fn apply_to_blocks<'a, I>(stream: Option<TtlStream<'a>>, blocks: I) -> impl Iterator<Item = Result<RecordBatch>> + 'a
where
    I: Iterator<Item = Result<RecordBatch>> + 'a,
{
    let mut stream = stream;
    let mut blocks = blocks.fuse();
    std::iter::from_fn(move || {
        let Some(ttl) = stream.as_mut() else { return blocks.next() };
        match blocks.next() {
            Some(Ok(block)) => Some(ttl.push(&block)),
            Some(Err(e)) => Some(Err(e)),
            None => {
                let held = ttl.finish().transpose();
                stream = None;
                held
            }
        }
    })
}

/// One key's expired rows as one row: SET columns aggregated (cast to the column's
/// type), the others from the first row.
fn collapse(rule: &GroupRule, rows: &[RecordBatch]) -> Result<RecordBatch> {
    let schema = rows.first().map(|b| b.schema()).ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "TTL GROUP BY collapses no rows"))?;
    let group = concat_batches(&schema, rows)?;
    let mut columns: Vec<ArrayRef> = group.columns().iter().map(|c| c.slice(0, 1)).collect();
    for (column, aggregate) in &rule.set {
        let mut accumulator = aggregate.create_accumulator()?;
        let args = aggregate.expressions().iter().map(|e| Ok(e.evaluate(&group)?.into_array(group.num_rows())?)).collect::<Result<Vec<_>>>()?;
        accumulator.update_batch(&args)?;
        let value = accumulator.evaluate()?.to_array_of_size(1)?;
        let field = schema.field(*column);
        columns[*column] = if value.data_type() == field.data_type() { value } else { arrow::compute::cast(&value, field.data_type())? };
    }
    Ok(RecordBatch::try_new(schema, columns)?)
}

/// Plans a GROUP BY rule and checks it as ClickHouse's `TTLDescription` does.
fn plan_group_by(meta: &TableMeta, schema: &SchemaRef, keys: &TableKeys, expression: &str, group_keys: &[String], set: &[(String, String)]) -> Result<GroupRule> {
    let expr = plan_ttl_expression(keys, schema, expression)?;
    let primary = &keys.sorting[..keys.primary_len.min(keys.sorting.len())];
    let mut key_columns = Vec::with_capacity(group_keys.len());
    for (i, key) in group_keys.iter().enumerate() {
        let matched = primary.get(i).filter(|k| k.text == *key || k.text.trim_matches('`') == key.trim_matches('`'));
        let Some(k) = matched else {
            let pk = primary.get(i).map_or("", |k| k.text.as_str());
            return Err(Error::new(ErrorCode::BAD_TTL_EXPRESSION, format!("TTL Expression GROUP BY key should be a prefix of primary key {key} {pk}")));
        };
        let column = k.column.ok_or_else(|| Error::new(ErrorCode::NOT_IMPLEMENTED, format!("TTL GROUP BY an expression key ({key}) is not supported")))?;
        key_columns.push(column);
    }
    let mut planned = Vec::with_capacity(set.len());
    for (name, value) in set {
        let column = meta.columns.iter().position(|c| c.name == *name && c.default_kind.as_deref().is_none_or(|k| k == "DEFAULT"));
        let column = column.ok_or_else(|| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("There is no physical column {name} in table.")))?;
        let aggregate = keys.plan_aggregate(schema, value)?;
        let aggregate = aggregate.ok_or_else(|| Error::new(ErrorCode::BAD_TTL_EXPRESSION, format!("Invalid expression for assignment of column {name}. Should contain an aggregate function.")))?;
        planned.push((column, aggregate));
    }
    let key_types = key_columns.iter().map(|&c| schema.field(c).data_type().clone()).collect();
    Ok(GroupRule { text: expression.to_string(), expr, keys: key_columns, key_types, set: planned })
}

/// Where a TTL WHERE condition holds; NULL keeps the row, as in ClickHouse.
fn condition_mask(condition: &Arc<dyn PhysicalExpr>, batch: &RecordBatch) -> Result<BooleanArray> {
    let value = condition.evaluate(batch)?.into_array(batch.num_rows())?;
    let matched = value.as_any().downcast_ref::<BooleanArray>().ok_or_else(|| Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "TTL WHERE condition is not boolean"))?;
    Ok(if matched.null_count() > 0 { arrow::compute::prep_null_mask_filter(matched) } else { matched.clone() })
}

/// Plans a TTL expression and checks it as ClickHouse does: a date or time, depending
/// on a column.
fn plan_ttl_expression(keys: &TableKeys, schema: &SchemaRef, text: &str) -> Result<Arc<dyn PhysicalExpr>> {
    let expr = keys.plan_query_expr(schema, text)?;
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

/// The expression's values as Unix seconds (a Date at midnight in `tz`); NULL stays NULL.
fn ttl_seconds(expr: &Arc<dyn PhysicalExpr>, batch: &RecordBatch, tz: SessionTz) -> Result<Int64Array> {
    let values = expr.evaluate(batch)?.into_array(batch.num_rows())?;
    let seconds = match values.data_type() {
        DataType::Date32 => {
            let days = arrow::compute::cast(&values, &DataType::Int64)?;
            let days = days.as_any().downcast_ref::<Int64Array>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "TTL days are not Int64"))?;
            return Ok(days.unary(|d| tz.to_utc(d * 86_400)));
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
        infos.table = TtlRange { min: 946_771_200, max: 4_102_531_200, finished: false };
        infos.columns.insert("x".into(), TtlRange { min: 10, max: 20, finished: false });
        infos.rows_where.insert("d + toIntervalMonth(2)".into(), TtlRange { min: 1, max: 2, finished: false });
        infos.group_by.insert("d".into(), TtlRange { min: 3, max: 4, finished: true });
        infos.recompression.insert("d + 4".into(), TtlRange { min: 5, max: 6, finished: false });
        let text = infos.text();
        assert_eq!(
            text,
            concat!(
                "ttl format version: 1\n{\"columns\":[{\"name\":\"x\",\"min\":10,\"max\":20,\"finished\":0}],",
                "\"table\":{\"min\":946771200,\"max\":4102531200,\"finished\":0},",
                "\"recompression\":[{\"expression\":\"d + 4\",\"min\":5,\"max\":6,\"finished\":0}],",
                "\"group_by\":[{\"expression\":\"d\",\"min\":3,\"max\":4,\"finished\":1}],",
                "\"rows_where\":[{\"expression\":\"d + toIntervalMonth(2)\",\"min\":1,\"max\":2,\"finished\":0}]}"
            )
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
        assert_eq!(r, TtlRange { min: 3, max: 5, finished: false });
        assert!(!TtlRange::default().expired_at(100));
    }
}
