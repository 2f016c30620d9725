//! GraphiteMergeTree: Graphite metrics rolled up on merge, by the rules of a
//! `graphite_rollup` section of the server configuration (ClickHouse's
//! `Graphite::Params` and `GraphiteRollupSortedAlgorithm`).
//!
//! A table `GraphiteMergeTree('name')` takes the rules `[graphite_rollup.name]` of the
//! server's TOML config:
//!
//! ```toml
//! [graphite_rollup.graphite_rollup]
//! path_column_name = "Path"          # the defaults: Path, Time, Value, Timestamp
//! [[graphite_rollup.graphite_rollup.pattern]]
//! rule_type = "plain"                # all (default), plain, tagged, tag_list
//! regexp = "^click_cost"
//! function = "any"
//! retention = [{ age = 0, precision = 3600 }, { age = 86400, precision = 60 }]
//! [graphite_rollup.graphite_rollup.default]
//! function = "max"
//! retention = [{ age = 0, precision = 60 }]
//! ```
//!
//! A merge (and an INSERT's block, and `SELECT ... FINAL`) walks the rows in sorting-key
//! order: rows of one path whose times round to the same value become one row. A path's
//! rule is the first matching pattern (regex searched in the path; `default` matches any
//! path), pairing a retention-only and an aggregation-only pattern when the first match
//! has only one of them. The retention whose `age` the row's age (merge time minus row
//! time) reaches gives the precision the time is rounded down to (no rounding if none
//! does). Among rows of one path and time only the greatest version counts (the last one
//! on equal versions); the values of those rows are aggregated with the rule's function,
//! or the last one is kept without one. The other columns come from the group's first
//! row, the version from its last one.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, AsArray};
use arrow::datatypes::DataType;
use arrow::record_batch::RecordBatch;
use granary_common::{Error, ErrorCode, Result};
use serde::Deserialize;

/// The rollup sections of the server configuration, by name.
pub type GraphiteConfigs = BTreeMap<String, Arc<GraphiteParams>>;

/// One `[graphite_rollup.<name>]` section as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RollupConfig {
    pub path_column_name: Option<String>,
    pub time_column_name: Option<String>,
    pub value_column_name: Option<String>,
    pub version_column_name: Option<String>,
    pub pattern: Vec<PatternConfig>,
    pub default: Option<PatternConfig>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PatternConfig {
    pub rule_type: Option<String>,
    pub regexp: Option<String>,
    pub function: Option<String>,
    pub retention: Vec<Retention>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retention {
    pub age: u64,
    pub precision: u64,
}

/// Which metrics a pattern applies to: `plain` ones (no `?` in the path), `tagged` ones
/// (`name?tag=value&...`), or `all`. `tag_list` patterns are tagged patterns written
/// as a list of `tag=value` regexes, turned into one regex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleType {
    All,
    Plain,
    Tagged,
    TagList,
}

impl RuleType {
    fn parse(text: &str) -> Result<RuleType> {
        Ok(match text {
            "all" => RuleType::All,
            "plain" => RuleType::Plain,
            "tagged" => RuleType::Tagged,
            "tag_list" => RuleType::TagList,
            other => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("invalid rule type: {other}"))),
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            RuleType::All => "all",
            RuleType::Plain => "plain",
            RuleType::Tagged => "tagged",
            RuleType::TagList => "tag_list",
        }
    }
}

/// The aggregate function a rollup applies to the values (as Float64, like ClickHouse):
/// the common ones natively, any other aggregate function of a number through the
/// function registry (`median`, `quantile(0.9)`, ...), as ClickHouse accepts any.
#[derive(Debug, Clone)]
pub enum RollupFunction {
    Any,
    AnyLast,
    Min,
    Max,
    Sum,
    Avg,
    /// The name as written, and the function.
    Other(String, Arc<granary_functions::Float64Aggregate>),
}

impl RollupFunction {
    fn parse(text: &str) -> Result<RollupFunction> {
        Ok(match text.trim() {
            "any" => RollupFunction::Any,
            "anyLast" => RollupFunction::AnyLast,
            "min" => RollupFunction::Min,
            "max" => RollupFunction::Max,
            "sum" => RollupFunction::Sum,
            "avg" => RollupFunction::Avg,
            other => RollupFunction::Other(other.to_string(), Arc::new(granary_functions::Float64Aggregate::new(other)?)),
        })
    }

    pub fn name(&self) -> &str {
        match self {
            RollupFunction::Any => "any",
            RollupFunction::AnyLast => "anyLast",
            RollupFunction::Min => "min",
            RollupFunction::Max => "max",
            RollupFunction::Sum => "sum",
            RollupFunction::Avg => "avg",
            RollupFunction::Other(name, _) => name,
        }
    }
}

/// One rollup pattern, checked.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub rule_type: RuleType,
    /// The regex as ClickHouse shows it (a `tag_list` turned into a regex); empty for
    /// `default`.
    pub regexp_text: String,
    regexp: Option<regex::Regex>,
    pub function: Option<RollupFunction>,
    /// Ordered by age, oldest first.
    pub retentions: Vec<Retention>,
    pub is_default: bool,
}

impl Pattern {
    fn from_config(config: &PatternConfig, is_default: bool) -> Result<Pattern> {
        let mut rule_type = match &config.rule_type {
            Some(text) => RuleType::parse(text)?,
            None => RuleType::All,
        };
        let mut regexp_text = config.regexp.clone().unwrap_or_default();
        if !regexp_text.is_empty() && rule_type == RuleType::TagList {
            regexp_text = tagged_regex(&regexp_text);
            rule_type = RuleType::Tagged;
        }
        let regexp = match regexp_text.is_empty() {
            true => None,
            false => Some(regex::Regex::new(&regexp_text).map_err(|e| Error::new(ErrorCode::CANNOT_COMPILE_REGEXP, format!("Cannot compile regexp {regexp_text}: {e}")))?),
        };
        let function = config.function.as_deref().map(RollupFunction::parse).transpose()?;
        if function.is_none() && config.retention.is_empty() {
            return Err(Error::new(
                ErrorCode::NO_ELEMENTS_IN_CONFIG,
                "At least one of an aggregate function or retention rules is mandatory for rollup patterns in GraphiteMergeTree",
            ));
        }
        if is_default && rule_type != RuleType::All {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Default must have rule_type all for rollup patterns in GraphiteMergeTree"));
        }
        let mut retentions = config.retention.clone();
        if let Some(r) = retentions.iter().find(|r| r.precision == 0) {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Precision of a retention must be positive: {}:{}", r.age, r.precision)));
        }
        retentions.sort_by(|a, b| b.age.cmp(&a.age));
        for pair in retentions.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if !(a.age > b.age && a.precision > b.precision) {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Age and precision should only grow up: {}:{} vs {}:{}", a.age, a.precision, b.age, b.precision)));
            }
        }
        Ok(Pattern { rule_type, regexp_text, regexp, function, retentions, is_default })
    }

    fn kind(&self) -> PatternKind {
        match (self.function.is_some(), self.retentions.is_empty()) {
            (false, _) => PatternKind::Retention,
            (true, true) => PatternKind::Aggregation,
            (true, false) => PatternKind::Both,
        }
    }
}

/// What a pattern sets: the retention, the function, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PatternKind {
    Retention,
    Aggregation,
    Both,
}

/// The regex of a `tag_list` pattern (`name;tag1=v1;tag2=v2`, the name optional):
/// matches `name?...` with the tags in any order among others, as ClickHouse builds it.
fn tagged_regex(list: &str) -> String {
    let mut tags: Vec<&str> = list.split(';').filter(|t| !t.is_empty()).collect();
    let mut out = String::new();
    if let Some(first) = tags.first().copied().filter(|t| !t.contains('=')) {
        if tags.len() == 1 {
            return format!("^{first}\\?");
        }
        out.push_str(&format!("^{first}\\?(.*&)?"));
        tags.remove(0);
    } else {
        out.push_str("[\\?&]");
    }
    tags.sort_unstable();
    out.push_str(&tags.join("&(.*&)?"));
    out.push_str("(&.*)?$");
    out
}

/// A checked rollup section.
#[derive(Debug)]
pub struct GraphiteParams {
    pub config_name: String,
    pub path_column: String,
    pub time_column: String,
    pub value_column: String,
    pub version_column: String,
    /// In configuration order, `default` last.
    pub patterns: Vec<Pattern>,
    /// The patterns for plain paths and for tagged ones (`name?tag=value`), as indices
    /// into `patterns`: with `plain`/`tagged` patterns, those and the `all` ones; else
    /// every pattern for both.
    plain: Vec<usize>,
    tagged: Vec<usize>,
}

/// The patterns a path's values are rolled up by: the retention's and the function's
/// (indices into `GraphiteParams::patterns`; None: no rounding / keep the last value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RollupRule {
    pub retention: Option<usize>,
    pub aggregation: Option<usize>,
}

impl GraphiteParams {
    pub fn from_config(name: &str, config: &RollupConfig) -> Result<GraphiteParams> {
        let context = |e: Error| e.context(format!("graphite_rollup section {name}"));
        let mut patterns = Vec::with_capacity(config.pattern.len() + 1);
        for p in &config.pattern {
            patterns.push(Pattern::from_config(p, false).map_err(context)?);
        }
        if let Some(d) = &config.default {
            patterns.push(Pattern::from_config(d, true).map_err(context)?);
        }
        let typed = patterns.iter().any(|p| p.rule_type != RuleType::All);
        let of = |kind: RuleType| -> Vec<usize> { (0..patterns.len()).filter(|&i| !typed || matches!(patterns[i].rule_type, RuleType::All) || patterns[i].rule_type == kind).collect() };
        let (plain, tagged) = (of(RuleType::Plain), of(RuleType::Tagged));
        let column = |v: &Option<String>, default: &str| v.clone().unwrap_or_else(|| default.to_string());
        Ok(GraphiteParams {
            config_name: name.to_string(),
            path_column: column(&config.path_column_name, "Path"),
            time_column: column(&config.time_column_name, "Time"),
            value_column: column(&config.value_column_name, "Value"),
            version_column: column(&config.version_column_name, "Timestamp"),
            patterns,
            plain,
            tagged,
        })
    }

    /// The rule of `path` (ClickHouse's `selectPatternForPath`).
    pub fn rule_for(&self, path: &str) -> RollupRule {
        let candidates = if path.contains('?') { &self.tagged } else { &self.plain };
        // The first match of a single kind waits for a match of the other kind; a
        // pattern of both kinds (a default too, when nothing matched yet) decides alone.
        let mut first: Option<(usize, PatternKind)> = None;
        for &i in candidates {
            let pattern = &self.patterns[i];
            let kind = pattern.kind();
            match (&pattern.regexp, first) {
                (Some(regexp), _) if !regexp.is_match(path) => continue,
                (_, None) if kind == PatternKind::Both => return RollupRule { retention: Some(i), aggregation: Some(i) },
                (Some(_), Some(_)) if kind == PatternKind::Both => return RollupRule { retention: Some(i), aggregation: Some(i) },
                (Some(_), None) => first = Some((i, kind)),
                (None, None) => {}
                (_, Some((f, first_kind))) if kind != first_kind => {
                    return match first_kind {
                        PatternKind::Retention => RollupRule { retention: Some(f), aggregation: Some(i) },
                        _ => RollupRule { retention: Some(i), aggregation: Some(f) },
                    };
                }
                (_, Some(_)) => {}
            }
        }
        RollupRule::default()
    }

    /// The precision a time `age` seconds old is rounded to under `retention`'s pattern
    /// (1: none).
    pub fn precision(&self, rule: RollupRule, age: i64) -> u64 {
        let Some(pattern) = rule.retention.map(|i| &self.patterns[i]) else { return 1 };
        pattern.retentions.iter().find(|r| age >= r.age as i64).map_or(1, |r| r.precision)
    }
}

/// `time` rounded down to `precision` seconds: to a multiple of it up to an hour, else
/// to a multiple counted from the start of the day in the server's time zone (as
/// ClickHouse's `roundTimeToPrecision`: rounding past a day is not supported).
pub fn round_time(time: i64, precision: u64, tz: &granary_functions::tz::SessionTz) -> i64 {
    let precision = precision.max(1) as i64;
    if precision <= 3600 {
        return time.div_euclid(precision) * precision;
    }
    let day_start = tz.to_utc(tz.to_local(time).div_euclid(86_400) * 86_400);
    day_start + (time - day_start).div_euclid(precision) * precision
}

/// The server's time zone (`TZ`, else UTC), which rollups round days in.
pub fn server_time_zone() -> Result<granary_functions::tz::SessionTz> {
    let name = match std::env::var("TZ") {
        Ok(tz) if !tz.is_empty() => tz.trim_start_matches(':').to_string(),
        _ => "UTC".to_string(),
    };
    granary_functions::tz::parse_tz(&name).map_err(|e| Error::new(ErrorCode::BAD_ARGUMENTS, e.to_string()))
}

/// A GraphiteMergeTree's rollup: its rules and the table columns they name.
#[derive(Debug, Clone)]
pub struct Rollup {
    pub params: Arc<GraphiteParams>,
    pub path: usize,
    pub time: usize,
    pub value: usize,
    pub version: usize,
}

impl PartialEq for Rollup {
    fn eq(&self, other: &Rollup) -> bool {
        Arc::ptr_eq(&self.params, &other.params) && (self.path, self.time, self.value, self.version) == (other.path, other.time, other.value, other.version)
    }
}

impl Eq for Rollup {}

impl Rollup {
    /// The rollup of a table with `schema` by section `name` of `configs`.
    pub fn of_table(name: &str, configs: &GraphiteConfigs, schema: &arrow::datatypes::SchemaRef) -> Result<Rollup> {
        let params = configs.get(name).ok_or_else(|| Error::new(ErrorCode::NO_ELEMENTS_IN_CONFIG, format!("No '{name}' element in configuration file")))?;
        let column = |what: &str, name: &str| {
            schema.index_of(name).map_err(|_| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("{what} column ({name}) does not exist in table declaration.")))
        };
        let rollup = Rollup {
            params: params.clone(),
            path: column("Path", &params.path_column)?,
            time: column("Time", &params.time_column)?,
            value: column("Value", &params.value_column)?,
            version: column("Version", &params.version_column)?,
        };
        use granary_types::ChType as T;
        let type_of = |i: usize| T::from_field(schema.field(i));
        if !matches!(type_of(rollup.path), T::String | T::FixedString(_)) {
            return Err(Error::new(ErrorCode::BAD_TYPE_OF_FIELD, format!("Path column ({}) of GraphiteMergeTree must be a String, not {}", params.path_column, type_of(rollup.path))));
        }
        if !matches!(type_of(rollup.time), T::DateTime(_) | T::UInt32 | T::UInt64 | T::Int32 | T::Int64) {
            return Err(Error::new(ErrorCode::BAD_TYPE_OF_FIELD, format!("Time column ({}) of GraphiteMergeTree must be a DateTime or an integer, not {}", params.time_column, type_of(rollup.time))));
        }
        Ok(rollup)
    }

    /// The rollup functions take Float64 values: as in ClickHouse, a table with another
    /// value type is created, but its INSERTs and merges fail.
    pub fn check_value_type(&self, schema: &arrow::datatypes::SchemaRef) -> Result<()> {
        let field = schema.field(self.value);
        if field.data_type() != &DataType::Float64 || field.is_nullable() {
            return Err(Error::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("The value column ({}) of GraphiteMergeTree must be Float64, not {}", field.name(), granary_types::ChType::from_field(field)),
            ));
        }
        Ok(())
    }
}

/// The path at `row` of a String or FixedString column.
pub fn path_at(column: &dyn Array, row: usize) -> Result<&str> {
    match column.data_type() {
        DataType::Utf8 => Ok(column.as_string::<i32>().value(row)),
        DataType::FixedSizeBinary(_) => std::str::from_utf8(column.as_fixed_size_binary().value(row)).map_err(|_| Error::new(ErrorCode::CANNOT_PARSE_TEXT, "Graphite path is not UTF-8")),
        other => Err(Error::new(ErrorCode::LOGICAL_ERROR, format!("Graphite path column of type {other}"))),
    }
}

impl RollupFunction {
    /// The function over `values` (at least one), the newest value of each time of an
    /// output row in time order: natives fold left from the first value, as ClickHouse
    /// adds them one by one; others go to the aggregate as one array.
    pub fn apply(&self, values: &[f64]) -> Result<f64> {
        let Some((&first, rest)) = values.split_first() else {
            return Err(Error::new(ErrorCode::LOGICAL_ERROR, "Graphite rollup of no values"));
        };
        Ok(match self {
            RollupFunction::Any => first,
            RollupFunction::AnyLast => values[values.len() - 1],
            RollupFunction::Min => rest.iter().fold(first, |a, b| a.min(*b)),
            RollupFunction::Max => rest.iter().fold(first, |a, b| a.max(*b)),
            RollupFunction::Sum => rest.iter().fold(first, |a, b| a + b),
            RollupFunction::Avg => rest.iter().fold(first, |a, b| a + b) / values.len() as f64,
            RollupFunction::Other(_, aggregate) => {
                let mut accumulator = aggregate.accumulator()?;
                granary_functions::Float64Aggregate::add(accumulator.as_mut(), values)?;
                granary_functions::Float64Aggregate::result(accumulator.as_mut())?
            }
        })
    }
}

/// The rollup of a stream of rows in sorting-key order, a chunk at a time, by columns
/// (ClickHouse's `GraphiteRollupSortedAlgorithm`): group boundaries come from comparing
/// each row's path and time with the previous row's, rounded times are computed once per
/// time, and each output row's function runs once over the array of its values. An
/// output row may go on in the next chunk: it is kept as its first row, the newest row
/// of its current time and the values of its earlier times.
pub struct Roller {
    rollup: Rollup,
    /// The time of the merge (ages count from it) and the zone days start in.
    now: i64,
    tz: granary_functions::tz::SessionTz,
    open: Option<OpenRow>,
    /// Finished output rows not handed out yet.
    done: Vec<RecordBatch>,
    done_rows: usize,
}

/// The output row still open at the end of a chunk.
struct OpenRow {
    /// One-row batches: the row the other columns come from; the row of greatest version
    /// (the last on ties) among those of the current time.
    first: RecordBatch,
    newest: RecordBatch,
    rule: RollupRule,
    rounded: i64,
    /// The newest value of each earlier time of the row.
    values: Vec<f64>,
}

/// The rows of one output row within a chunk: its first row, and where its times start
/// among the chunk's times.
struct Span {
    first: usize,
    times_from: usize,
    rule: RollupRule,
    rounded: i64,
}

impl Roller {
    pub fn new(rollup: Rollup, now: i64, tz: granary_functions::tz::SessionTz) -> Roller {
        Roller { rollup, now, tz, open: None, done: Vec::new(), done_rows: 0 }
    }

    /// Rolls up the next rows of the stream (`chunk`, sorted, after those pushed so far).
    pub fn push(&mut self, chunk: RecordBatch) -> Result<()> {
        if chunk.num_rows() == 0 {
            return Ok(());
        }
        let open = self.open.take();
        // With an open row, its first and newest rows go before the chunk: row 1 is the
        // stream's previous row (the newest of the current time), row 0 stands apart.
        let (rows, start) = match &open {
            Some(o) => (arrow::compute::concat_batches(&chunk.schema(), [&o.first, &o.newest, &chunk])?, 2),
            None => (chunk, 0),
        };
        let n = rows.num_rows();
        let paths = rows.column(self.rollup.path);
        let changed = arrow::compute::kernels::cmp::distinct(&paths.slice(0, n - 1), &paths.slice(1, n - 1))?;
        let times = arrow::compute::cast(rows.column(self.rollup.time), &DataType::Int64)?;
        let times = times.as_primitive::<arrow::datatypes::Int64Type>().values();
        let version = rows.column(self.rollup.version);
        let newer = arrow::array::make_comparator(version.as_ref(), version.as_ref(), arrow::compute::SortOptions::default())?;
        let params = &self.rollup.params;
        let mut spans: Vec<Span> = Vec::new();
        // The newest row of each time, in stream order.
        let mut newest_of_times: Vec<usize> = Vec::new();
        let mut newest = 1;
        let (mut rule, mut rounded) = (RollupRule::default(), 0);
        if let Some(o) = &open {
            spans.push(Span { first: 0, times_from: 0, rule: o.rule, rounded: o.rounded });
            (rule, rounded) = (o.rule, o.rounded);
        }
        for r in start..n {
            let new_path = r == 0 || changed.value(r - 1);
            if !new_path && times[r] == times[r - 1] {
                if newer(r, newest) != std::cmp::Ordering::Less {
                    newest = r;
                }
                continue;
            }
            if !spans.is_empty() {
                newest_of_times.push(newest);
            }
            newest = r;
            if new_path {
                rule = params.rule_for(path_at(paths.as_ref(), r)?);
            }
            let time = times[r];
            let time_rounded = round_time(time, params.precision(rule, self.now - time), &self.tz);
            if new_path || time_rounded != rounded {
                spans.push(Span { first: r, times_from: newest_of_times.len(), rule, rounded: time_rounded });
                rounded = time_rounded;
            }
        }
        let Some(last) = spans.pop() else { return Ok(()) };
        let all_values = arrow::compute::take(rows.column(self.rollup.value).as_ref(), &arrow::array::UInt32Array::from_iter_values(newest_of_times.iter().map(|&i| i as u32)), None)?;
        let all_values = float_values(all_values.as_ref())?;
        let mut carried = open.map(|o| o.values);
        let mut out = Vec::with_capacity(spans.len());
        for (i, span) in spans.iter().enumerate() {
            let to = spans.get(i + 1).map_or(last.times_from, |s| s.times_from);
            let values = match (i, carried.take()) {
                (0, Some(mut earlier)) if span.first == 0 => {
                    earlier.extend_from_slice(&all_values[span.times_from..to]);
                    std::borrow::Cow::Owned(earlier)
                }
                _ => std::borrow::Cow::Borrowed(&all_values[span.times_from..to]),
            };
            out.push(OutputRow { first: span.first, newest: newest_of_times[to - 1], rounded: span.rounded, value: self.value(span.rule, &values)? });
        }
        let mut values = match carried {
            Some(earlier) if last.first == 0 => earlier,
            _ => Vec::new(),
        };
        values.extend_from_slice(&all_values[last.times_from..]);
        self.open = Some(OpenRow { first: rows.slice(last.first, 1), newest: rows.slice(newest, 1), rule: last.rule, rounded: last.rounded, values });
        self.emit(&rows, &out)
    }

    /// Finishes the open output row: the stream has ended.
    pub fn finish(&mut self) -> Result<()> {
        let Some(mut open) = self.open.take() else { return Ok(()) };
        open.values.push(float_values(open.newest.column(self.rollup.value).as_ref())?[0]);
        let rows = arrow::compute::concat_batches(&open.first.schema(), [&open.first, &open.newest])?;
        let value = self.value(open.rule, &open.values)?;
        self.emit(&rows, &[OutputRow { first: 0, newest: 1, rounded: open.rounded, value }])
    }

    /// The next `rows` finished output rows, or fewer once `finished`.
    pub fn take_chunk(&mut self, rows: usize, finished: bool) -> Result<Option<RecordBatch>> {
        if self.done.is_empty() || (self.done_rows < rows && !finished) {
            return Ok(None);
        }
        let all = arrow::compute::concat_batches(&self.done[0].schema(), &self.done)?;
        let taken = rows.min(all.num_rows());
        self.done.clear();
        self.done_rows = all.num_rows() - taken;
        if self.done_rows > 0 {
            self.done.push(all.slice(taken, self.done_rows));
        }
        Ok(Some(all.slice(0, taken)))
    }

    /// The rolled-up value of an output row of `rule` whose times' newest values are
    /// `values`; None without a function (the newest row's value stays).
    fn value(&self, rule: RollupRule, values: &[f64]) -> Result<Option<f64>> {
        rule.aggregation.and_then(|i| self.rollup.params.patterns[i].function.as_ref()).map(|f| f.apply(values)).transpose()
    }

    /// Adds output rows, made of rows of `rows`, to the finished ones.
    fn emit(&mut self, rows: &RecordBatch, out: &[OutputRow]) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        let index = |of: fn(&OutputRow) -> usize| arrow::array::UInt32Array::from_iter_values(out.iter().map(|o| of(o) as u32));
        let (firsts, newests) = (index(|o| o.first), index(|o| o.newest));
        let mut arrays = Vec::with_capacity(rows.num_columns());
        for (i, column) in rows.columns().iter().enumerate() {
            let picked = if i == self.rollup.version || i == self.rollup.value { &newests } else { &firsts };
            arrays.push(arrow::compute::take(column.as_ref(), picked, None)?);
        }
        let times = arrow::array::Int64Array::from_iter_values(out.iter().map(|o| o.rounded));
        arrays[self.rollup.time] = arrow::compute::cast(&times, rows.schema().field(self.rollup.time).data_type())?;
        if out.iter().any(|o| o.value.is_some()) {
            let newest_values = float_values(arrays[self.rollup.value].as_ref())?;
            let values = out.iter().zip(newest_values).map(|(o, newest)| o.value.unwrap_or(*newest));
            arrays[self.rollup.value] = Arc::new(arrow::array::Float64Array::from_iter_values(values));
        }
        let batch = RecordBatch::try_new(rows.schema(), arrays)?;
        self.done_rows += batch.num_rows();
        self.done.push(batch);
        Ok(())
    }
}

/// An output row of a chunk: its first and newest rows, rounded time and value.
struct OutputRow {
    first: usize,
    newest: usize,
    rounded: i64,
    value: Option<f64>,
}

/// The values of the Float64 value column (see [`Rollup::check_value_type`]).
fn float_values(column: &dyn Array) -> Result<&[f64]> {
    let values = column.as_primitive_opt::<arrow::datatypes::Float64Type>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "Graphite value column is not Float64"))?;
    Ok(values.values())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(rule_type: Option<&str>, regexp: Option<&str>, function: Option<&str>, retention: &[(u64, u64)]) -> PatternConfig {
        PatternConfig {
            rule_type: rule_type.map(str::to_string),
            regexp: regexp.map(str::to_string),
            function: function.map(str::to_string),
            retention: retention.iter().map(|&(age, precision)| Retention { age, precision }).collect(),
        }
    }

    fn params(patterns: Vec<PatternConfig>, default: Option<PatternConfig>) -> Result<GraphiteParams> {
        GraphiteParams::from_config("rollup", &RollupConfig { pattern: patterns, default, ..Default::default() })
    }

    #[test]
    fn rules_pair_retention_and_aggregation_patterns() {
        let p = params(
            vec![
                pattern(None, Some("^one\\."), Some("sum"), &[(0, 60), (3600, 300)]),
                pattern(None, Some("retained"), None, &[(0, 10)]),
                pattern(None, Some("summed"), Some("sum"), &[]),
                pattern(None, Some("retained_max"), Some("max"), &[]),
            ],
            Some(pattern(None, None, Some("avg"), &[(0, 1000)])),
        )
        .expect("valid");
        assert_eq!(p.rule_for("one.x"), RollupRule { retention: Some(0), aggregation: Some(0) });
        // A retention-only match pairs with the next aggregation-only match, else the default.
        assert_eq!(p.rule_for("retained_max.x"), RollupRule { retention: Some(1), aggregation: Some(3) });
        assert_eq!(p.rule_for("retained.x"), RollupRule { retention: Some(1), aggregation: Some(4) });
        assert_eq!(p.rule_for("summed.x"), RollupRule { retention: Some(4), aggregation: Some(2) });
        assert_eq!(p.rule_for("other"), RollupRule { retention: Some(4), aggregation: Some(4) });
        // Retentions: the oldest age reached wins.
        let rule = p.rule_for("one.x");
        assert_eq!((p.precision(rule, 10), p.precision(rule, 3600), p.precision(rule, -5)), (60, 300, 1));
        let none = params(vec![pattern(None, Some("x"), Some("sum"), &[])], None).expect("valid");
        assert_eq!(none.rule_for("y"), RollupRule::default());
        assert_eq!(none.rule_for("x"), RollupRule { retention: None, aggregation: None });
    }

    #[test]
    fn typed_rules_split_plain_and_tagged_paths() {
        let p = params(
            vec![
                pattern(Some("plain"), Some("cpu"), Some("sum"), &[(0, 60)]),
                pattern(Some("tagged"), Some("cpu"), Some("max"), &[(0, 120)]),
                pattern(Some("tag_list"), Some("mem;host=a.*;dc=x"), Some("min"), &[(0, 30)]),
            ],
            Some(pattern(None, None, Some("any"), &[(0, 600)])),
        )
        .expect("valid");
        assert_eq!(p.patterns[2].regexp_text, "^mem\\?(.*&)?dc=x&(.*&)?host=a.*(&.*)?$");
        assert_eq!(p.rule_for("cpu.load").aggregation, Some(0));
        assert_eq!(p.rule_for("cpu?host=a").aggregation, Some(1));
        assert_eq!(p.rule_for("mem?dc=x&host=ab").aggregation, Some(2));
        assert_eq!(p.rule_for("mem?host=ab").aggregation, Some(3));
        assert_eq!(tagged_regex("env=prod"), "[\\?&]env=prod(&.*)?$");
        assert_eq!(tagged_regex("name"), "^name\\?");
    }

    #[test]
    fn bad_sections_are_refused() {
        let code = |r: Result<GraphiteParams>| r.err().map(|e| e.code());
        assert_eq!(code(params(vec![pattern(None, Some("x"), None, &[])], None)), Some(ErrorCode::NO_ELEMENTS_IN_CONFIG));
        assert_eq!(code(params(vec![], Some(pattern(Some("plain"), None, Some("sum"), &[])))), Some(ErrorCode::BAD_ARGUMENTS));
        assert_eq!(code(params(vec![pattern(Some("odd"), Some("x"), Some("sum"), &[])], None)), Some(ErrorCode::BAD_ARGUMENTS));
        assert_eq!(code(params(vec![pattern(None, Some("x"), None, &[(0, 60), (10, 30)])], None)), Some(ErrorCode::BAD_ARGUMENTS));
        assert_eq!(code(params(vec![pattern(None, Some("x"), None, &[(0, 0)])], None)), Some(ErrorCode::BAD_ARGUMENTS));
        assert_eq!(code(params(vec![pattern(None, Some("x"), Some("nosuch"), &[])], None)), Some(ErrorCode::UNKNOWN_AGGREGATE_FUNCTION));
        assert_eq!(code(params(vec![pattern(None, Some("x"), Some("groupArray"), &[])], None)), Some(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT));
        assert_eq!(code(params(vec![pattern(None, Some("("), Some("sum"), &[])], None)), Some(ErrorCode::CANNOT_COMPILE_REGEXP));
    }

    #[test]
    fn times_round_down_within_the_day() {
        let utc = granary_functions::tz::parse_tz("UTC").expect("UTC");
        assert_eq!(round_time(1_000_000_123, 60, &utc), 1_000_000_080);
        assert_eq!(round_time(1_000_000_123, 3600, &utc), 999_997_200);
        // Above an hour: from the start of the day (1_000_000_123 is 01:48:43 UTC).
        assert_eq!(round_time(1_000_000_123, 7200, &utc), 999_993_600);
        let tokyo = granary_functions::tz::parse_tz("Asia/Tokyo").expect("Tokyo");
        // 10:48:43 in Tokyo: the day starts at 15:00 UTC the day before.
        assert_eq!(round_time(1_000_000_123, 7200, &tokyo), 999_993_600 - 3600 * 9 + 7200 * 5);
    }

    #[test]
    fn functions_aggregate_values() {
        let of = |name: &str, values: &[f64]| RollupFunction::parse(name).expect("function").apply(values).expect("result");
        assert_eq!(of("avg", &[1.0, 2.0, 6.0]), 3.0);
        assert_eq!(of("any", &[5.0, 2.0]), 5.0);
        assert_eq!(of("anyLast", &[5.0, 2.0]), 2.0);
        assert_eq!(of("min", &[f64::NAN, 2.0, 1.0]), 1.0);
        assert!(of("sum", &[-0.0]).is_sign_negative());
        assert_eq!(of("median", &[1.0, 9.0, 2.0]), 2.0);
        assert_eq!(of("quantileExact(0.9)", &[1.0, 2.0, 3.0, 4.0, 5.0]), 5.0);
        assert_eq!(of("count", &[1.0, 2.0]), 2.0);
    }
}
