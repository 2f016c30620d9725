//! The key-value fast path: `SELECT cols FROM t WHERE key = X` (or `key IN (...)`,
//! `PREWHERE`, `LIMIT n`) answered by the table engine's point read, skipping DataFusion
//! planning, optimisation and its per-query session state.
//!
//! Planning a query costs far more than finding one row through a sparse index, and
//! these queries are all a key-value workload sends. Anything outside the shape below
//! (expressions, aggregates, ORDER BY, joins, FINAL, a key the engine cannot look up,
//! a literal that does not convert exactly) declines, and the query is planned normally,
//! so results never depend on which path ran.

use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray};
use arrow::datatypes::{DataType, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::common::ScalarValue;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, ObjectNamePart, Query, Select, SelectItem, SetExpr, TableFactor, UnaryOperator, Value,
};
use granary_common::Result;
use granary_storage::{ColumnKind, PointReadRequest};

use crate::instance::QueryContext;

/// The rows of a point query, or `None` when the query is not one.
pub(crate) fn try_point_query(ctx: &QueryContext, query: &Query) -> Result<Option<SendableRecordBatchStream>> {
    if filtered_by_row_policies(ctx) {
        return Ok(None);
    }
    let Some(shape) = match_shape(query) else { return Ok(None) };
    read_shape(ctx, &shape)
}

/// Row policies filter reads in planning ([`crate::row_policies`]), which the point read
/// skips: users they cover always plan.
fn filtered_by_row_policies(ctx: &QueryContext) -> bool {
    ctx.access.has_row_policies()
}

/// Reads the rows a point-query shape asks for, or `None` when the table, its key or the
/// literals do not allow the engine's point read (the query is then planned normally).
fn read_shape(ctx: &QueryContext, shape: &Shape) -> Result<Option<SendableRecordBatchStream>> {
    if ctx.settings.get_bool("final") {
        return Ok(None);
    }
    let database = shape.database.clone().unwrap_or_else(|| ctx.current_database.clone());
    if database == "system" {
        return Ok(None);
    }
    let Ok(table) = ctx.catalog.table(&database, &shape.table) else { return Ok(None) };
    // ALIAS columns are computed by the planned path; EPHEMERAL ones are refused there.
    if table.meta.columns.iter().any(|c| matches!(c.kind(), ColumnKind::Alias | ColumnKind::Ephemeral)) {
        return Ok(None);
    }
    crate::access::check_select(&ctx.access, &database, &shape.table)?;
    let schema = table.engine.schema();
    let Ok(key_index) = schema.index_of(&shape.key_column) else { return Ok(None) };
    let Some(keys) = literal_keys(&shape.keys, schema.field(key_index).data_type()) else { return Ok(None) };
    let mut projection = Vec::new();
    let mut out_fields = Vec::new();
    for item in &shape.columns {
        match item {
            Projected::All => {
                let asterisk = crate::column_lists::AsteriskColumns::from_settings(&ctx.settings);
                let shown = (0..schema.fields().len()).filter(|&i| table.meta.columns.get(i).is_none_or(|c| asterisk.includes(c.kind())));
                for i in shown {
                    projection.push(i);
                    out_fields.push(schema.field(i).clone());
                }
            }
            Projected::Column { name, alias } => {
                let Ok(index) = schema.index_of(name) else { return Ok(None) };
                projection.push(index);
                out_fields.push(schema.field(index).clone().with_name(alias.as_deref().unwrap_or(name)));
            }
        }
    }
    let request = PointReadRequest { column: shape.key_column.clone(), keys, projection, use_uncompressed_cache: ctx.settings.get_bool("use_uncompressed_cache") };
    let read: Vec<&str> = request.projection.iter().map(|&i| schema.field(i).name().as_str()).chain(std::iter::once(shape.key_column.as_str())).collect();
    let Some(result) = table.engine.point_read(&request) else { return Ok(None) };
    ctx.accessed.lock().add(&database, &shape.table, read);
    let result = result?;
    ctx.progress.add_read(result.read_rows, result.read_bytes);
    let out_schema: SchemaRef = Arc::new(Schema::new(out_fields));
    let mut remaining = shape.limit.unwrap_or(u64::MAX) as usize;
    let mut batches = Vec::with_capacity(result.batches.len());
    for batch in result.batches {
        if remaining == 0 {
            break;
        }
        let batch = batch.slice(0, batch.num_rows().min(remaining));
        remaining -= batch.num_rows();
        batches.push(Ok(RecordBatch::try_new(out_schema.clone(), batch.columns().to_vec())?));
    }
    Ok(Some(Box::pin(RecordBatchStreamAdapter::new(out_schema, futures::stream::iter(batches)))))
}

#[derive(Clone)]
struct Shape {
    database: Option<String>,
    table: String,
    columns: Vec<Projected>,
    key_column: String,
    keys: Vec<Literal>,
    limit: Option<u64>,
}

#[derive(Clone)]
enum Projected {
    All,
    Column { name: String, alias: Option<String> },
}

#[derive(Clone, PartialEq)]
enum Literal {
    Number(String),
    String(String),
}

fn match_shape(query: &Query) -> Option<Shape> {
    if query.with.is_some() || query.order_by.is_some() || query.fetch.is_some() || !query.locks.is_empty() || query.for_clause.is_some() {
        return None;
    }
    let limit = match &query.limit_clause {
        None => None,
        Some(datafusion::sql::sqlparser::ast::LimitClause::LimitOffset { limit: Some(Expr::Value(v)), offset: None, limit_by }) if limit_by.is_empty() => {
            match &v.value {
                Value::Number(n, _) => Some(n.parse::<u64>().ok()?),
                _ => return None,
            }
        }
        Some(_) => return None,
    };
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    let select: &Select = select;
    let simple = select.distinct.is_none()
        && select.top.is_none()
        && select.into.is_none()
        && select.lateral_views.is_empty()
        && select.prewhere.is_none()
        && matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty())
        && select.cluster_by.is_empty()
        && select.distribute_by.is_empty()
        && select.sort_by.is_empty()
        && select.having.is_none()
        && select.named_window.is_empty()
        && select.qualify.is_none()
        && select.from.len() == 1
        && select.from[0].joins.is_empty();
    if !simple {
        return None;
    }
    let TableFactor::Table { name, args: None, with_hints, version: None, partitions, sample: None, .. } = &select.from[0].relation else {
        return None;
    };
    if !with_hints.is_empty() || !partitions.is_empty() {
        return None;
    }
    let parts: Vec<String> = name.0.iter().map(|p| match p {
        ObjectNamePart::Identifier(i) => Some(i.value.clone()),
        _ => None,
    }).collect::<Option<_>>()?;
    let (database, table) = match parts.as_slice() {
        [t] => (None, t.clone()),
        [d, t] => (Some(d.clone()), t.clone()),
        _ => return None,
    };
    let mut columns = Vec::new();
    for item in &select.projection {
        columns.push(match item {
            SelectItem::Wildcard(options) if options.opt_exclude.is_none() && options.opt_except.is_none() && options.opt_replace.is_none() && options.opt_rename.is_none() && options.opt_ilike.is_none() => {
                Projected::All
            }
            SelectItem::UnnamedExpr(Expr::Identifier(ident)) => Projected::Column { name: ident.value.clone(), alias: None },
            SelectItem::ExprWithAlias { expr: Expr::Identifier(ident), alias } => {
                Projected::Column { name: ident.value.clone(), alias: Some(alias.value.clone()) }
            }
            _ => return None,
        });
    }
    let (key_column, keys) = match select.selection.as_ref()? {
        Expr::BinaryOp { left, op: BinaryOperator::Eq, right } => match (left.as_ref(), right.as_ref()) {
            (Expr::Identifier(column), value) | (value, Expr::Identifier(column)) => (column.value.clone(), vec![literal(value)?]),
            _ => return None,
        },
        Expr::InList { expr, list, negated: false } => {
            let Expr::Identifier(column) = expr.as_ref() else { return None };
            (column.value.clone(), list.iter().map(literal).collect::<Option<Vec<_>>>()?)
        }
        _ => return None,
    };
    Some(Shape { database, table, columns, key_column, keys, limit })
}

fn literal(expr: &Expr) -> Option<Literal> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => Some(Literal::Number(n.clone())),
            Value::SingleQuotedString(s) => Some(Literal::String(s.clone())),
            _ => None,
        },
        Expr::UnaryOp { op: UnaryOperator::Minus, expr } => match literal(expr)? {
            Literal::Number(n) => Some(Literal::Number(format!("-{n}"))),
            Literal::String(_) => None,
        },
        Expr::Nested(inner) => literal(inner),
        _ => None,
    }
}

/// The literals as an array of the key column's type, when each converts exactly
/// (otherwise the planner decides what the comparison means).
fn literal_keys(literals: &[Literal], key_type: &DataType) -> Option<ArrayRef> {
    match key_type {
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 | DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            let text: Vec<&str> = literals.iter().map(|l| match l {
                Literal::Number(n) if !n.contains(['.', 'e', 'E']) => Some(n.as_str()),
                _ => None,
            }).collect::<Option<_>>()?;
            let strings: ArrayRef = Arc::new(StringArray::from(text));
            let options = arrow::compute::CastOptions { safe: false, ..Default::default() };
            arrow::compute::cast_with_options(&strings, key_type, &options).ok()
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let text: Vec<&str> = literals.iter().map(|l| match l {
                Literal::String(s) => Some(s.as_str()),
                Literal::Number(_) => None,
            }).collect::<Option<_>>()?;
            arrow::compute::cast(&(Arc::new(StringArray::from(text)) as ArrayRef), key_type).ok()
        }
        // FixedString(N) compares with a string literal padded with zero bytes.
        DataType::FixedSizeBinary(n) => {
            let width = *n as usize;
            let values: Vec<Vec<u8>> = literals.iter().map(|l| match l {
                Literal::String(s) if s.len() <= width => {
                    let mut bytes = s.as_bytes().to_vec();
                    bytes.resize(width, 0);
                    Some(bytes)
                }
                _ => None,
            }).collect::<Option<_>>()?;
            arrow::array::FixedSizeBinaryArray::try_from_iter(values.into_iter()).ok().map(|a| Arc::new(a) as ArrayRef)
        }
        _ => None,
    }
}

/// `SELECT dictGet*(...)`, `dictHas`, `joinGet*` with constant arguments and no FROM (the
/// dictionary and Join-table key-value pattern): evaluated by calling the lookup
/// functions directly, without planning. Key arguments must be typed unambiguously
/// (`toUInt64(123)`, `'text'`); a bare number literal is left to the planner, which owns
/// literal typing.
pub(crate) async fn try_constant_lookup(
    ctx: &QueryContext,
    query: &Query,
    functions: &std::collections::HashMap<String, Arc<datafusion::logical_expr::ScalarUDF>>,
) -> Result<Option<SendableRecordBatchStream>> {
    use datafusion::logical_expr::{ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs};
    use datafusion::sql::sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};

    if query.with.is_some() || query.order_by.is_some() || query.limit_clause.is_some() || query.fetch.is_some() {
        return Ok(None);
    }
    let SetExpr::Select(select) = query.body.as_ref() else { return Ok(None) };
    if !select.from.is_empty() || select.selection.is_some() || select.having.is_some() || select.distinct.is_some() || select.prewhere.is_some() {
        return Ok(None);
    }
    if !matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty()) {
        return Ok(None);
    }
    let mut calls = Vec::new();
    for item in &select.projection {
        let (expr, name) = match item {
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            SelectItem::UnnamedExpr(expr) => (expr, expr.to_string()),
            _ => return Ok(None),
        };
        let Expr::Function(function) = expr else { return Ok(None) };
        let Some(udf) = function.name.0.last().and_then(|p| p.as_ident()).and_then(|i| functions.get(&i.value)) else { return Ok(None) };
        let FunctionArguments::List(list) = &function.args else { return Ok(None) };
        if !list.clauses.is_empty() || function.over.is_some() || function.filter.is_some() {
            return Ok(None);
        }
        let mut args = Vec::with_capacity(list.args.len());
        for arg in &list.args {
            let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg else { return Ok(None) };
            let Some(value) = typed_constant(e) else { return Ok(None) };
            args.push(value);
        }
        // Names are qualified with the current database, as the planned path does.
        if let Some(ScalarValue::Utf8(Some(object))) = args.first_mut() {
            *object = crate::lookups::qualify_name(&ctx.dictionaries, udf.name(), object, &ctx.current_database);
        }
        calls.push((udf.clone(), args, name));
    }
    if calls.is_empty() {
        return Ok(None);
    }
    let dictionaries: Vec<String> = calls
        .iter()
        .filter(|(udf, _, _)| udf.name().starts_with("dict"))
        .filter_map(|(_, args, _)| match args.first() {
            Some(ScalarValue::Utf8(Some(name))) => Some(name.clone()),
            _ => None,
        })
        .collect();
    crate::lookups::load_dictionaries(ctx, &dictionaries).await?;
    let mut fields = Vec::with_capacity(calls.len());
    let mut columns = Vec::with_capacity(calls.len());
    for (udf, args, name) in calls {
        let arg_fields: Vec<arrow::datatypes::FieldRef> =
            args.iter().map(|a| Arc::new(arrow::datatypes::Field::new("", a.data_type(), a.is_null()))).collect();
        let scalars: Vec<Option<&ScalarValue>> = args.iter().map(Some).collect();
        let return_field = udf.return_field_from_args(ReturnFieldArgs { arg_fields: &arg_fields, scalar_arguments: &scalars })?;
        let value = udf.invoke_with_args(ScalarFunctionArgs {
            args: args.into_iter().map(ColumnarValue::Scalar).collect(),
            arg_fields,
            number_rows: 1,
            return_field: return_field.clone(),
            config_options: default_config_options(),
        })?;
        columns.push(value.to_array(1)?);
        fields.push(return_field.as_ref().clone().with_name(name));
    }
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns)?;
    Ok(Some(Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(vec![Ok(batch)])))))
}

/// The configuration the lookup functions are called with: they read none of it, and
/// building DataFusion's full default configuration on every call cost more than the lookup.
fn default_config_options() -> Arc<datafusion::common::config::ConfigOptions> {
    static OPTIONS: std::sync::LazyLock<Arc<datafusion::common::config::ConfigOptions>> = std::sync::LazyLock::new(Default::default);
    OPTIONS.clone()
}

/// A constant whose type does not depend on literal-typing rules: a string literal, or
/// `to<Int|UInt><N>(number)`.
fn typed_constant(expr: &Expr) -> Option<ScalarValue> {
    use datafusion::sql::sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    match expr {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => Some(ScalarValue::Utf8(Some(s.clone()))),
            _ => None,
        },
        Expr::Function(function) => {
            let name = function.name.0.last()?.as_ident()?.value.clone();
            let FunctionArguments::List(list) = &function.args else { return None };
            let [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] = list.args.as_slice() else { return None };
            let Literal::Number(text) = literal(arg)? else { return None };
            match name.as_str() {
                "toUInt64" => text.parse().ok().map(|v| ScalarValue::UInt64(Some(v))),
                "toUInt32" => text.parse().ok().map(|v| ScalarValue::UInt32(Some(v))),
                "toUInt16" => text.parse().ok().map(|v| ScalarValue::UInt16(Some(v))),
                "toUInt8" => text.parse().ok().map(|v| ScalarValue::UInt8(Some(v))),
                "toInt64" => text.parse().ok().map(|v| ScalarValue::Int64(Some(v))),
                "toInt32" => text.parse().ok().map(|v| ScalarValue::Int32(Some(v))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Point-query shapes kept at most; a full cache starts over (shapes are few in practice:
/// one per table, column list and clause set a key-value client sends).
const SHAPE_CACHE_CAPACITY: usize = 1024;
/// Longer texts are not looked up (a key-value client's queries are short).
const MAX_NORMALIZED_TEXT: usize = 16 * 1024;

/// Point-query shapes by normalized query text: the text with its literals replaced by
/// placeholders. A key-value client sends the same query with different keys thousands
/// of times a second; parsing and rewriting it each time cost more than the lookup
/// itself, while lexing it and filling the keys into the remembered shape costs little.
///
/// Sound because a statement's structure depends on its tokens, not on the values of its
/// literals: a text with the same tokens parses to the same shape with other keys. The
/// literals that are neither keys nor the LIMIT (setting values) must match exactly, and
/// anything the remembered shape cannot answer (table dropped, literal not exact in the
/// key type) falls back to parsing, as a miss does.
#[derive(Default)]
pub(crate) struct ShapeCache {
    entries: parking_lot::RwLock<std::collections::HashMap<String, Arc<CachedShape>>>,
}

/// What parsing a point query (or a constant lookup) produced, with the literal each
/// placeholder stands for.
pub(crate) struct CachedShape {
    kind: CachedKind,
    slots: Vec<Slot>,
    /// The statement as first parsed, for the read-only and access checks.
    pub statement: granary_sql::Statement,
    pub settings: Vec<(String, String)>,
    pub format: Option<String>,
}

enum CachedKind {
    Point(Shape),
    /// `SELECT dictGet*/joinGet*(constants)` ([`try_constant_lookup`]): the query as
    /// parsed, whose literals, in the order the AST visitor meets them, are the text's
    /// first literals (one [`Slot::Replaced`] each), so another text of the same key is
    /// this query with those literals replaced.
    Constant(Box<Query>),
}

/// The role of one literal of the text, in order.
#[derive(Debug, PartialEq)]
enum Slot {
    /// A literal of a constant lookup's query, taken as the new text has it.
    Replaced,
    /// The next key; `negated` when written `-literal`.
    Key { negated: bool },
    Limit,
    /// Anything else (a setting's value): must be this literal for the shape to apply.
    Fixed(Literal),
}

impl std::fmt::Debug for Literal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Literal::Number(n) => write!(f, "{n}"),
            Literal::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A query text with its literals taken out: the cache key and the values in order.
pub(crate) struct NormalizedText {
    key: String,
    literals: Vec<Literal>,
}

/// Normalizes a SELECT's text, or `None` for texts the cache does not consider (not a
/// SELECT, too long, or with anything but plain SQL: parameters, comments, other quotes).
///
/// The key is the text itself with each number and string literal replaced by a
/// placeholder (`\u{1}N`, `\u{1}S`), so two texts share a key only when they are equal
/// but for their literals' contents, which is what makes their parses share a shape. A
/// byte scan, not the SQL lexer: it runs before every SELECT, and lexing was half the cost
/// of a cached lookup. Anything it does not fully understand returns `None`.
pub(crate) fn normalize(text: &str) -> Option<NormalizedText> {
    let head = text.trim_start();
    if text.len() > MAX_NORMALIZED_TEXT || !head.get(..6).is_some_and(|w| w.eq_ignore_ascii_case("SELECT")) || text.contains('\u{1}') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut key = String::with_capacity(text.len());
    let mut literals = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\'' => {
                let start = i;
                i += 1;
                loop {
                    match bytes.get(i)? {
                        b'\\' => i += 2,
                        b'\'' if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                        b'\'' => break,
                        _ => i += 1,
                    }
                }
                let value = granary_sql::lexer::unescape_string_literal(text.get(start + 1..i)?, start).ok()?;
                i += 1;
                key.push_str(&text[copied..start]);
                key.push_str("\u{1}S");
                copied = i;
                literals.push(Literal::String(value));
            }
            b'`' => {
                i += 1 + bytes.get(i + 1..)?.iter().position(|&c| c == b'`')? + 1;
            }
            b'0'..=b'9' if i == 0 || !(is_word(bytes[i - 1]) || bytes[i - 1] == b'.') => {
                let start = i;
                let digits = |i: &mut usize| {
                    while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                        *i += 1;
                    }
                };
                digits(&mut i);
                if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                    digits(&mut i);
                }
                if matches!(bytes.get(i), Some(b'e' | b'E')) {
                    i += 1;
                    if matches!(bytes.get(i), Some(b'+' | b'-')) {
                        i += 1;
                    }
                    if !bytes.get(i).is_some_and(u8::is_ascii_digit) {
                        return None;
                    }
                    digits(&mut i);
                }
                // `0x10`, `1f`, `5L`, `1.`: not plain literals.
                if bytes.get(i).is_some_and(|&c| is_word(c) || c == b'.') {
                    return None;
                }
                key.push_str(&text[copied..start]);
                key.push_str("\u{1}N");
                copied = i;
                literals.push(Literal::Number(text[start..i].to_string()));
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => return None,
            b'/' if bytes.get(i + 1) == Some(&b'*') => return None,
            b if b.is_ascii_alphanumeric() || b.is_ascii_whitespace() || b"_.,()*=<>!-+/;".contains(&b) => i += 1,
            _ => return None,
        }
    }
    key.push_str(&text[copied..]);
    Some(NormalizedText { key, literals })
}

impl ShapeCache {
    pub(crate) fn get(&self, normalized: &NormalizedText) -> Option<Arc<CachedShape>> {
        self.entries.read().get(&normalized.key).cloned()
    }

    /// Remembers the shape of a query the point path answered, when each of its literals
    /// has a known role.
    pub(crate) fn remember(
        &self,
        normalized: &NormalizedText,
        query: &Query,
        statement: &granary_sql::Statement,
        settings: &[(String, String)],
        format: Option<&str>,
    ) {
        let Some(shape) = match_shape(query) else { return };
        let Some(slots) = slots_of(&shape, &normalized.literals) else { return };
        self.insert(normalized, CachedShape { kind: CachedKind::Point(shape), slots, statement: statement.clone(), settings: settings.to_vec(), format: format.map(str::to_string) });
    }

    /// Remembers a constant lookup query ([`try_constant_lookup`] answered it), when its
    /// literals are the text's first literals, in order and with equal values (anything a
    /// rewrite added or changed makes the text one that is always parsed).
    pub(crate) fn remember_constant(
        &self,
        normalized: &NormalizedText,
        query: &Query,
        statement: &granary_sql::Statement,
        settings: &[(String, String)],
        format: Option<&str>,
    ) {
        use granary_sql::walk::exprs;
        let mut literals = Vec::new();
        let plain = exprs(query, &mut |expr| {
            if let Expr::Value(v) = expr {
                match &v.value {
                    Value::Number(n, false) => literals.push(Literal::Number(n.clone())),
                    Value::SingleQuotedString(s) => literals.push(Literal::String(s.clone())),
                    _ => return std::ops::ControlFlow::Break(()),
                }
            }
            std::ops::ControlFlow::Continue(())
        });
        if plain.is_break() || !normalized.literals.starts_with(&literals) {
            return;
        }
        // An unaliased item is named after its text, literals included (see
        // `generated_names`); a name the user wrote that looks the same stays as written,
        // so such a text is always parsed.
        if generated_names(query).flatten().any(|alias| normalized.key.contains(&format!("`{alias}`"))) {
            return;
        }
        let slots = std::iter::repeat_with(|| Slot::Replaced)
            .take(literals.len())
            .chain(normalized.literals[literals.len()..].iter().cloned().map(Slot::Fixed))
            .collect();
        let kind = CachedKind::Constant(Box::new(query.clone()));
        self.insert(normalized, CachedShape { kind, slots, statement: statement.clone(), settings: settings.to_vec(), format: format.map(str::to_string) });
    }

    fn insert(&self, normalized: &NormalizedText, cached: CachedShape) {
        let mut entries = self.entries.write();
        if entries.len() >= SHAPE_CACHE_CAPACITY {
            entries.clear();
        }
        entries.insert(normalized.key.clone(), Arc::new(cached));
    }
}

/// The role of each literal of a point query's text: its keys come first, in order (the
/// shape has no literal before WHERE), then the LIMIT, then setting values.
fn slots_of(shape: &Shape, literals: &[Literal]) -> Option<Vec<Slot>> {
    let mut slots = Vec::with_capacity(literals.len());
    let mut rest = literals.iter();
    for key in &shape.keys {
        let negated = match (key, rest.next()?) {
            (key, literal) if key == literal => false,
            (Literal::Number(key), Literal::Number(literal)) if key.strip_prefix('-') == Some(literal.as_str()) => true,
            _ => return None,
        };
        slots.push(Slot::Key { negated });
    }
    if let Some(limit) = shape.limit {
        match rest.next()? {
            Literal::Number(n) if n.parse::<u64>().ok() == Some(limit) => slots.push(Slot::Limit),
            _ => return None,
        }
    }
    slots.extend(rest.cloned().map(Slot::Fixed));
    Some(slots)
}

/// Answers a query whose normalized text matched `cached`, with its own literals; `None`
/// when the remembered shape does not apply to them (the query is then parsed).
pub(crate) async fn read_cached_shape(
    ctx: &QueryContext,
    cached: &CachedShape,
    normalized: &NormalizedText,
    functions: &std::collections::HashMap<String, Arc<datafusion::logical_expr::ScalarUDF>>,
) -> Result<Option<SendableRecordBatchStream>> {
    let rows = match &cached.kind {
        CachedKind::Point(_) if filtered_by_row_policies(ctx) => return Ok(None),
        CachedKind::Point(_) => {
            let Some(shape) = fill_shape(cached, &normalized.literals) else { return Ok(None) };
            read_shape(ctx, &shape)?
        }
        // Restricted users take the planned path, as for a parsed constant lookup.
        CachedKind::Constant(_) if !ctx.access.is_unrestricted() => return Ok(None),
        CachedKind::Constant(query) => {
            let Some(query) = fill_constant(cached, query, &normalized.literals) else { return Ok(None) };
            try_constant_lookup(ctx, &query, functions).await?
        }
    };
    if rows.is_some() {
        granary_common::metrics::Event::PointQueryShapeCacheHits.add(1);
    }
    Ok(rows)
}

/// The remembered constant lookup query with this text's literals.
fn fill_constant(cached: &CachedShape, original: &Query, literals: &[Literal]) -> Option<Query> {
    use granary_sql::walk::exprs_mut;
    if literals.len() != cached.slots.len() {
        return None;
    }
    let mut replaced = Vec::with_capacity(literals.len());
    for (slot, literal) in cached.slots.iter().zip(literals) {
        match slot {
            Slot::Replaced => replaced.push(literal),
            Slot::Fixed(expected) if expected == literal => {}
            _ => return None,
        }
    }
    let mut query = original.clone();
    let mut next = replaced.into_iter();
    let filled = exprs_mut(&mut query, &mut |expr| {
        if let Expr::Value(v) = expr {
            match (&mut v.value, next.next()) {
                (Value::Number(n, false), Some(Literal::Number(new))) => n.clone_from(new),
                (Value::SingleQuotedString(s), Some(Literal::String(new))) => s.clone_from(new),
                _ => return std::ops::ControlFlow::Break(()),
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    if filled.is_break() || next.next().is_some() {
        return None;
    }
    // The front end named each unaliased item after its text: the new literals rename it.
    let renamed: Vec<usize> = generated_names(original)
        .zip(0..)
        .filter_map(|(alias, i)| alias.is_some().then_some(i))
        .collect();
    if let SetExpr::Select(select) = query.body.as_mut() {
        for i in renamed {
            if let Some(SelectItem::ExprWithAlias { expr, alias }) = select.projection.get_mut(i) {
                alias.value = granary_sql::names::column_name(expr);
            }
        }
    }
    Some(query)
}

/// For each result column of `query`, the name the SQL front end gave it after its
/// expression (a backquoted alias equal to the expression's ClickHouse name), or None.
fn generated_names(query: &Query) -> impl Iterator<Item = Option<&str>> {
    let projection = match query.body.as_ref() {
        SetExpr::Select(select) => select.projection.as_slice(),
        _ => &[],
    };
    projection.iter().map(|item| match item {
        SelectItem::ExprWithAlias { expr, alias } if alias.quote_style == Some('`') && alias.value == granary_sql::names::column_name(expr) => Some(alias.value.as_str()),
        _ => None,
    })
}

fn fill_shape(cached: &CachedShape, literals: &[Literal]) -> Option<Shape> {
    let CachedKind::Point(remembered) = &cached.kind else { return None };
    if literals.len() != cached.slots.len() {
        return None;
    }
    let mut shape = Shape { keys: Vec::with_capacity(remembered.keys.len()), ..remembered.clone_without_keys() };
    for (slot, literal) in cached.slots.iter().zip(literals) {
        match (slot, literal) {
            (Slot::Key { negated: false }, literal) => shape.keys.push(literal.clone()),
            (Slot::Key { negated: true }, Literal::Number(n)) => shape.keys.push(Literal::Number(format!("-{n}"))),
            (Slot::Limit, Literal::Number(n)) => shape.limit = Some(n.parse().ok()?),
            (Slot::Fixed(expected), literal) if expected == literal => {}
            _ => return None,
        }
    }
    Some(shape)
}

impl Shape {
    fn clone_without_keys(&self) -> Shape {
        Shape {
            database: self.database.clone(),
            table: self.table.clone(),
            columns: self.columns.clone(),
            key_column: self.key_column.clone(),
            keys: Vec::new(),
            limit: self.limit,
        }
    }
}

#[cfg(test)]
mod shape_cache_tests {
    use super::*;

    fn parse(text: &str) -> (Box<Query>, granary_sql::Statement) {
        let params = std::collections::HashMap::new();
        let options = granary_sql::ParseOptions { params: &params, rewrite: Default::default(), max_query_size: 0 };
        let (parsed, _) = granary_sql::parse_statement(text, &options).expect("parses");
        match &parsed.statement {
            granary_sql::Statement::Query { query, .. } => (query.clone(), parsed.statement.clone()),
            _ => panic!("not a query"),
        }
    }

    fn remembered(text: &str) -> (ShapeCache, NormalizedText) {
        let cache = ShapeCache::default();
        let normalized = normalize(text).expect("normalizes");
        let (query, statement) = parse(text);
        cache.remember(&normalized, &query, &statement, &[], None);
        (cache, normalized)
    }

    fn filled(cache: &ShapeCache, text: &str) -> Option<(Vec<Literal>, Option<u64>)> {
        let normalized = normalize(text)?;
        let cached = cache.get(&normalized)?;
        fill_shape(&cached, &normalized.literals).map(|s| (s.keys, s.limit))
    }

    #[test]
    fn same_tokens_with_other_literals_share_a_shape() {
        let (cache, _) = remembered("SELECT * FROM t WHERE id = 5 LIMIT 3 SETTINGS use_uncompressed_cache = 1");
        let (keys, limit) = filled(&cache, "SELECT * FROM t WHERE id = 77 LIMIT 10 SETTINGS use_uncompressed_cache = 1").expect("hit");
        assert_eq!(keys, vec![Literal::Number("77".into())]);
        assert_eq!(limit, Some(10));
    }

    #[test]
    fn setting_values_must_match() {
        let (cache, _) = remembered("SELECT * FROM t WHERE id = 5 SETTINGS use_uncompressed_cache = 1");
        assert!(filled(&cache, "SELECT * FROM t WHERE id = 5 SETTINGS use_uncompressed_cache = 0").is_none());
    }

    #[test]
    fn negated_keys_and_in_lists() {
        let (cache, _) = remembered("SELECT a, b AS c FROM db.t WHERE k IN (-1, 'x', 3)");
        let (keys, _) = filled(&cache, "SELECT a, b AS c FROM db.t WHERE k IN (-40, 'y', 9)").expect("hit");
        assert_eq!(keys, vec![Literal::Number("-40".into()), Literal::String("y".into()), Literal::Number("9".into())]);
        // A string where the shape had a number is another text.
        assert!(filled(&cache, "SELECT a, b AS c FROM db.t WHERE k IN (-40, 2, 9)").is_none());
        assert!(filled(&cache, "SELECT a, b AS c FROM db.t WHERE k IN (-40, 'y')").is_none());
    }

    #[test]
    fn different_tokens_are_different_texts() {
        let (cache, _) = remembered("SELECT * FROM t WHERE id = 5");
        assert!(filled(&cache, "SELECT * FROM t WHERE id = -5").is_none());
        assert!(filled(&cache, "SELECT * FROM `t` WHERE id = 5").is_none());
        assert!(filled(&cache, "SELECT * FROM t WHERE id = 5 LIMIT 1").is_none());
        assert!(filled(&cache, "SELECT * FROM t2 WHERE id = 5").is_none());
        assert!(filled(&cache, "SELECT * FROM t WHERE id2 = 5").is_none());
        assert!(filled(&cache, "SELECT * FROM t WHERE id = 6").is_some());
    }

    #[test]
    fn literals_are_found_where_the_lexer_finds_them() {
        let n = |text: &str| normalize(text).map(|n| (n.key.replace('\u{1}', "?"), n.literals));
        let (key, literals) = n("SELECT `a1` FROM t1 WHERE x = 12 AND s = 'it''s \\n' AND f = 1.5e3").expect("plain SQL");
        assert_eq!(key, "SELECT `a1` FROM t1 WHERE x = ?N AND s = ?S AND f = ?N");
        assert_eq!(literals, vec![Literal::Number("12".into()), Literal::String("it's \n".into()), Literal::Number("1.5e3".into())]);
        for unusual in ["SELECT 0x10", "SELECT 1 -- c", "SELECT /* c */ 1", "SELECT {p:UInt8}", "SELECT \"a\"", "SELECT 'open", "SELECT 5L", "SELECT `open"] {
            assert!(n(unusual).is_none(), "{unusual}");
        }
    }

    #[test]
    fn constant_lookups_take_the_new_literals() {
        let text = "SELECT dictGet('d', 'v', toUInt64(5)) AS x, joinGetOrNull('j', 'w', toInt32(-3)) SETTINGS max_threads = 2";
        let cache = ShapeCache::default();
        let normalized = normalize(text).expect("normalizes");
        let (query, statement) = parse(text);
        cache.remember_constant(&normalized, &query, &statement, &[], None);
        let fill = |other: &str| {
            let other = normalize(other).expect("normalizes");
            let cached = cache.get(&other).expect("same key");
            let CachedKind::Constant(query) = &cached.kind else { panic!("not a constant lookup") };
            fill_constant(&cached, query, &other.literals).map(|q| q.to_string())
        };
        let other = "SELECT dictGet('e', 'w''s', toUInt64(77)) AS x, joinGetOrNull('k', 'z', toInt32(-40)) SETTINGS max_threads = 2";
        assert_eq!(fill(other), Some(parse(other).0.to_string()));
        // A name the user wrote like the generated one keeps the text out of the cache.
        let written = "SELECT dictGet('d', 'v', toUInt64(5)) AS `dictGet('d', 'v', toUInt64(5))`";
        let (query, statement) = parse(written);
        let written = normalize(written).expect("normalizes");
        let cache = ShapeCache::default();
        cache.remember_constant(&written, &query, &statement, &[], None);
        assert!(cache.get(&written).is_none());
        // A setting's value is part of the remembered query.
        assert_eq!(fill("SELECT dictGet('d', 'v', toUInt64(5)) AS x, joinGetOrNull('j', 'w', toInt32(-3)) SETTINGS max_threads = 3"), None);
    }

    #[test]
    fn texts_the_cache_does_not_consider() {
        assert!(normalize("INSERT INTO t VALUES (1)").is_none());
        assert!(normalize("SELECT * FROM t WHERE id = {id:UInt64}").is_none());
        let cache = ShapeCache::default();
        let text = "SELECT count() FROM t WHERE id = 5";
        let (query, statement) = parse(text);
        let normalized = normalize(text).expect("normalizes");
        cache.remember(&normalized, &query, &statement, &[], None);
        assert!(cache.get(&normalized).is_none(), "not a point query");
    }
}
