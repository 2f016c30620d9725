//! Subcolumns of Nested columns written without quotes: `n.a`, `t.n.a`.
//!
//! A `Nested(a T, b U)` column is stored as the columns `n.a Array(T)` and `n.b Array(U)`
//! (ClickHouse's `flatten_nested = 1`). SQL reads `n.a` as column `a` of a table `n`,
//! which does not exist; ClickHouse resolves it to the column named `n.a`. Which reading
//! is meant is known only with the tables' columns, so planning tries the plain reading
//! first and, when DataFusion reports a missing field whose dotted text is the name of a
//! column it lists, writes that identifier as the column's name and plans again.
//!
//! The Nested column itself, `n` (or `t.n`), is the group of Array columns named `n.*`,
//! as in ClickHouse, where the group is the names and nothing else (a table created
//! with `` `n.a` Array(T), `n.b` Array(U) `` has a Nested column `n` too). When planning
//! reports `n` missing and lists such columns:
//! - `ARRAY JOIN n [AS m]` (from the SQL front end: `* REPLACE (unnest(n) AS n)`, or
//!   `unnest(n) AS m`) unnests every subcolumn, as `n.a`, `n.b` (or `m.a`, `m.b`);
//! - any other `n` reads `__nested('a', n.a, 'b', n.b)`: `Array(Tuple(a T, b U))`, or
//!   `Tuple(a T, b U)` after ARRAY JOIN (a bare `n` in a SELECT list keeps the name `n`).

use std::ops::ControlFlow;

use datafusion::common::{Column, DataFusionError, SchemaError};
use datafusion::execution::SessionState;
use datafusion::logical_expr::LogicalPlan;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, Query, ReplaceSelectElement, Select, SelectItem, SetExpr};
use granary_common::Result;
use granary_sql::walk::walk_mut;

/// Attempts at most: each resolves one distinct name.
const MAX_ATTEMPTS: usize = 32;

/// Plans `statement`, resolving dotted names of Nested subcolumns.
pub(crate) async fn statement_to_plan(state: &SessionState, statement: DFStatement) -> Result<LogicalPlan> {
    let mut statement = statement;
    array_joined_groups(state, &mut statement).await;
    for _ in 0..MAX_ATTEMPTS {
        let error = match state.statement_to_plan(statement.clone()).await {
            Ok(plan) => match unresolved_sort_key(&plan) {
                Some(error) => error,
                None => return Ok(plan),
            },
            Err(e) => e,
        };
        match resolution(&error) {
            Some(Resolution::Subcolumn(written, replacement)) if replace(&mut statement, &written, &replacement) => {}
            // Names are left alone: `n.a, m.a` (written compound, both named `a` by the
            // repeat check) are two columns here.
            Some(Resolution::Group(group)) if read_group(state, &mut statement, &group).await => continue,
            Some(Resolution::VariantElement(written, column, type_name)) if replace_with_variant_element(&mut statement, &written, &column, &type_name) => continue,
            _ => return Err(error.into()),
        }
        // `SELECT n.a, `n.a``: now the same column twice, which ClickHouse allows.
        if let DFStatement::Statement(inner) = &mut statement {
            if let datafusion::sql::sqlparser::ast::Statement::Query(query) = inner.as_mut() {
                granary_sql::names::name_repeated_columns(query);
            }
        }
    }
    Ok(state.statement_to_plan(statement).await?)
}

/// DataFusion plans `ORDER BY n.a` whose `n.a` is no input column without complaint
/// (it adds missing sort columns to the projection below, and finds none) and fails
/// only when the plan runs: such a key is reported here as planning would.
fn unresolved_sort_key(plan: &LogicalPlan) -> Option<DataFusionError> {
    use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
    let mut missing = None;
    let _ = plan.apply(|node| {
        if let LogicalPlan::Sort(sort) = node {
            let schema = sort.input.schema();
            for key in &sort.expr {
                if let Some(column) = key.expr.column_refs().into_iter().find(|c| !schema.has_column(c)) {
                    // A key may name a column the SELECT list does not return.
                    let mut valid_fields = schema.columns();
                    for below in sort.input.inputs() {
                        valid_fields.extend(below.schema().columns().into_iter().filter(|c| !valid_fields.contains(c)).collect::<Vec<_>>());
                    }
                    missing = Some(DataFusionError::SchemaError(Box::new(SchemaError::FieldNotFound { field: Box::new(column.clone()), valid_fields }), Box::new(None)));
                    return Ok(TreeNodeRecursion::Stop);
                }
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
    missing
}

enum Resolution {
    /// The parts as written and what to write instead.
    Subcolumn(Vec<String>, Vec<String>),
    Group(Group),
    /// `v.T` (or `t.v.T`) of a column `v` and a type name `T`: the parts as written, the
    /// column's parts and the type, read as `variantElement(v, 'T')`.
    VariantElement(Vec<String>, Vec<String>, String),
}

/// A Nested column named in the query: `n` or `t.n`.
struct Group {
    written: Vec<String>,
    /// The table qualifier the subcolumns are written with, if the text had one.
    table: Option<String>,
    /// The subcolumns' names after `n.`, in table order.
    elements: Vec<String>,
}

impl Group {
    fn name(&self) -> &str {
        self.written.last().map(String::as_str).unwrap_or_default()
    }

    fn subcolumn(&self, element: &str) -> Expr {
        let column = Ident::with_quote('`', format!("{}.{element}", self.name()));
        match &self.table {
            Some(table) => Expr::CompoundIdentifier(vec![Ident::with_quote('`', table), column]),
            None => Expr::Identifier(column),
        }
    }

    fn read(&self) -> Expr {
        let mut args = Vec::with_capacity(2 * self.elements.len());
        for element in &self.elements {
            args.push(format!("'{}'", element.replace('\\', "\\\\").replace('\'', "\\'")));
            args.push(self.subcolumn(element).to_string());
        }
        let text = format!("__nested({})", args.join(", "));
        match datafusion::sql::sqlparser::parser::Parser::new(&datafusion::sql::sqlparser::dialect::ClickHouseDialect {})
            .try_with_sql(&text)
            .and_then(|mut p| p.parse_expr())
        {
            Ok(expr) => expr,
            Err(_) => Expr::Identifier(Ident::new(self.name())),
        }
    }

    fn is_written(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Identifier(ident) => self.written.len() == 1 && ident.value == self.written[0],
            Expr::CompoundIdentifier(parts) => parts.len() == self.written.len() && parts.iter().zip(&self.written).all(|(p, w)| p.value == *w),
            _ => false,
        }
    }

    /// `unnest(n)` or `unnest(emptyArrayToSingle(n))` (ARRAY JOIN, LEFT ARRAY JOIN):
    /// the same call on subcolumn `element`.
    fn unnest_of(&self, expr: &Expr, element: &str) -> Option<Expr> {
        let argument = only_argument(expr, "unnest")?;
        if !self.is_written(argument) && !only_argument(argument, "emptyArrayToSingle").is_some_and(|inner| self.is_written(inner)) {
            return None;
        }
        let mut call = expr.clone();
        let subcolumn = self.subcolumn(element);
        let _ = walk_mut(&mut call, &mut ExprRewriter(|e: &mut Expr| {
            if self.is_written(e) {
                *e = subcolumn.clone();
            }
            ControlFlow::<()>::Continue(())
        }));
        Some(call)
    }
}

/// `ARRAY JOIN n` without an alias is `* REPLACE (unnest(n) AS n)`, which DataFusion
/// plans without complaint when the FROM clause has no column `n` (nothing is
/// replaced), so a Nested column there is found by planning `SELECT n FROM ...` first.
/// Only queries with such an ARRAY JOIN pay for that.
async fn array_joined_groups(state: &SessionState, statement: &mut DFStatement) {
    let DFStatement::Statement(inner) = statement else { return };
    let mut probes = Vec::new();
    let _ = walk_mut(inner, &mut QueryRewriter(|query: &mut Query| {
        each_select(&mut query.body, &mut |select| {
            for item in &select.projection {
                let SelectItem::Wildcard(options) = item else { continue };
                let Some(replace) = &options.opt_replace else { continue };
                for element in &replace.items {
                    let Some(mut argument) = only_argument(&element.expr, "unnest") else { continue };
                    if let Some(inner) = only_argument(argument, "emptyArrayToSingle") {
                        argument = inner;
                    }
                    let Expr::Identifier(ident) = argument else { continue };
                    if ident.value != element.column_name.value {
                        continue;
                    }
                    let from: Vec<String> = select.from.iter().map(|f| f.to_string()).collect();
                    probes.push(format!("SELECT {ident} FROM {}", from.join(", ")));
                }
            }
        });
        ControlFlow::<()>::Continue(())
    }));
    for probe in probes {
        let Ok(mut parsed) = datafusion::sql::sqlparser::parser::Parser::parse_sql(&datafusion::sql::sqlparser::dialect::ClickHouseDialect {}, &probe) else { continue };
        let Some(parsed) = parsed.pop() else { continue };
        let Err(error) = state.statement_to_plan(DFStatement::Statement(Box::new(parsed))).await else { continue };
        if let Some(Resolution::Group(group)) = resolution(&error) {
            read_group(state, statement, &group).await;
        }
    }
}

/// The argument of a call `name(x)`.
fn only_argument<'a>(expr: &'a Expr, name: &str) -> Option<&'a Expr> {
    let Expr::Function(function) = expr else { return None };
    let [part] = function.name.0.as_slice() else { return None };
    if !part.as_ident().is_some_and(|i| i.value.eq_ignore_ascii_case(name)) {
        return None;
    }
    let FunctionArguments::List(list) = &function.args else { return None };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] => Some(arg),
        _ => None,
    }
}

/// For a missing field written `p1.p2...pk`, the parts as written and what to write
/// instead: the dotted name of a listed column (`n.a`), qualified by its table when the
/// text named one (`t.n.a` -> `t` . `n.a`); for `n` or `t.n` that is no column but the
/// prefix of listed ones, the Nested column they make.
fn resolution(error: &DataFusionError) -> Option<Resolution> {
    let DataFusionError::SchemaError(schema_error, _) = error.find_root() else { return None };
    let SchemaError::FieldNotFound { field, valid_fields } = schema_error.as_ref() else { return None };
    let written = written_parts(field);
    if let Some(group) = group(&written, valid_fields) {
        return Some(Resolution::Group(group));
    }
    if let Some((w, r)) = subcolumn(written.clone(), valid_fields) {
        return Some(Resolution::Subcolumn(w, r));
    }
    variant_element(written, valid_fields)
}

/// `v.T` where `v` is a listed column and `T` a type name: a Variant's subcolumn (the
/// function checks that `v` is a Variant holding `T`).
fn variant_element(written: Vec<String>, valid_fields: &[Column]) -> Option<Resolution> {
    let (column, type_name) = written.split_last().map(|(t, c)| (c.to_vec(), t.clone()))?;
    granary_types::ChType::parse(&type_name).ok()?;
    let listed = valid_fields.iter().any(|valid| match column.as_slice() {
        [name] => valid.name == *name,
        [table, name] => valid.name == *name && valid.relation.as_ref().is_some_and(|r| r.table() == table),
        _ => false,
    });
    listed.then_some(Resolution::VariantElement(written, column, type_name))
}

/// Rewrites every `CompoundIdentifier` equal to `written` as `variantElement(column, 'T')`.
fn replace_with_variant_element(statement: &mut DFStatement, written: &[String], column: &[String], type_name: &str) -> bool {
    let DFStatement::Statement(inner) = statement else { return false };
    let quoted_column: Vec<String> = column.iter().map(|p| format!("`{}`", p.replace('`', "``"))).collect();
    let text = format!("variantElement({}, '{}')", quoted_column.join("."), type_name.replace('\\', "\\\\").replace('\'', "\\'"));
    let dialect = datafusion::sql::sqlparser::dialect::GenericDialect {};
    let Ok(call) = datafusion::sql::sqlparser::parser::Parser::new(&dialect).try_with_sql(&text).and_then(|mut p| p.parse_expr()) else { return false };
    let mut replaced = false;
    let _ = walk_mut(inner, &mut ExprRewriter(|e: &mut Expr| {
        if let Expr::CompoundIdentifier(parts) = e {
            if parts.len() == written.len() && parts.iter().zip(written).all(|(p, w)| p.value == *w) {
                *e = call.clone();
                replaced = true;
            }
        }
        ControlFlow::<()>::Continue(())
    }));
    replaced
}

fn group(written: &[String], valid_fields: &[Column]) -> Option<Group> {
    let (table, name) = match written {
        [name] => (None, name),
        [table, name] => (Some(table), name),
        _ => return None,
    };
    let prefix = format!("{name}.");
    let mut relation = None;
    let mut elements = Vec::new();
    for valid in valid_fields {
        let Some(element) = valid.name.strip_prefix(&prefix) else { continue };
        let valid_table = valid.relation.as_ref().map(|r| r.table().to_string());
        if table.is_some_and(|t| valid_table.as_deref() != Some(t.as_str())) {
            continue;
        }
        // Unqualified, the first table with such columns is the one meant.
        if relation.is_none() {
            relation = Some(valid_table.clone());
        }
        if relation.as_ref() == Some(&valid_table) && !element.is_empty() {
            elements.push(element.to_string());
        }
    }
    if elements.is_empty() {
        return None;
    }
    Some(Group { written: written.to_vec(), table: table.cloned(), elements })
}

fn subcolumn(written: Vec<String>, valid_fields: &[Column]) -> Option<(Vec<String>, Vec<String>)> {
    // ORDER BY over `SELECT *` reports the compound name as one field name.
    let written = match written.as_slice() {
        [name] if name.contains('.') => name.split('.').map(str::to_string).collect(),
        _ => written,
    };
    if written.len() < 2 {
        return None;
    }
    let dotted = written.join(".");
    for valid in valid_fields {
        if !valid.name.contains('.') {
            continue;
        }
        if dotted == valid.name {
            return Some((written, vec![valid.name.clone()]));
        }
        if let Some(relation) = &valid.relation {
            let table = relation.table();
            if dotted == format!("{table}.{}", valid.name) {
                return Some((written, vec![table.to_string(), valid.name.clone()]));
            }
        }
    }
    None
}

/// The identifier parts of a column reference as the query wrote them.
fn written_parts(column: &Column) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(relation) = &column.relation {
        if let Some(catalog) = relation.catalog() {
            parts.push(catalog.to_string());
        }
        if let Some(schema) = relation.schema() {
            parts.push(schema.to_string());
        }
        parts.push(relation.table().to_string());
    }
    parts.push(column.name.clone());
    parts
}

/// Writes the Nested column `group` as its subcolumns: ARRAY JOINs of it unnest each
/// subcolumn, other mentions read `__nested(...)`. False when nothing was rewritten.
async fn read_group(state: &SessionState, statement: &mut DFStatement, group: &Group) -> bool {
    let joined = array_joined_elements(state, statement, group).await;
    let DFStatement::Statement(inner) = statement else { return false };
    let mut changed = false;
    let mut renamed = Vec::new();
    let _ = walk_mut(inner, &mut QueryRewriter(|query: &mut Query| {
        each_select(&mut query.body, &mut |select| changed |= array_joined_group(select, &joined, &mut renamed));
        ControlFlow::<()>::Continue(())
    }));
    // `SELECT * EXCEPT (m)` (the front end hides ARRAY JOIN aliases from `*`): `m` is
    // now `m.a`, `m.b`, ...
    if !renamed.is_empty() {
        let _ = walk_mut(inner, &mut QueryRewriter(|query: &mut Query| {
            each_select(&mut query.body, &mut |select| {
                for item in &mut select.projection {
                    let SelectItem::Wildcard(options) = item else { continue };
                    let Some(except) = &mut options.opt_except else { continue };
                    let mut names: Vec<Ident> = Vec::new();
                    for ident in std::iter::once(&except.first_element).chain(&except.additional_elements) {
                        match renamed.iter().find(|(alias, _)| *alias == ident.value) {
                            Some((_, columns)) => names.extend(columns.iter().map(|c| Ident::with_quote('`', c))),
                            None => names.push(ident.clone()),
                        }
                    }
                    if let Some((first, rest)) = names.split_first() {
                        except.first_element = first.clone();
                        except.additional_elements = rest.to_vec();
                    }
                }
            });
            ControlFlow::<()>::Continue(())
        }));
    }
    let read = group.read();
    let _ = walk_mut(inner, &mut ExprRewriter(|e: &mut Expr| {
        if group.is_written(e) {
            *e = read.clone();
            changed = true;
        }
        ControlFlow::<()>::Continue(())
    }));
    changed
}

/// The group as ARRAY JOIN unnests it: only its Array subcolumns (`n.x String` is not
/// part of it), found by planning `SELECT n.a, n.b, ... FROM` the FROM clause of the
/// first SELECT that array-joins it. The whole group when there is none.
async fn array_joined_elements(state: &SessionState, statement: &mut DFStatement, group: &Group) -> Group {
    let mut from = None;
    if let (DFStatement::Statement(inner), Some(first)) = (&mut *statement, group.elements.first()) {
        let _ = walk_mut(inner, &mut QueryRewriter(|query: &mut Query| {
            each_select(&mut query.body, &mut |select| {
                let unnests = select.projection.iter().any(|item| match item {
                    SelectItem::ExprWithAlias { expr, .. } => group.unnest_of(expr, first).is_some(),
                    SelectItem::Wildcard(options) => {
                        options.opt_replace.as_ref().is_some_and(|r| r.items.iter().any(|e| group.unnest_of(&e.expr, first).is_some()))
                    }
                    _ => false,
                });
                if unnests && from.is_none() {
                    from = Some(select.from.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", "));
                }
            });
            ControlFlow::<()>::Continue(())
        }));
    }
    let whole = Group { written: group.written.clone(), table: group.table.clone(), elements: group.elements.clone() };
    let Some(from) = from else { return whole };
    let columns: Vec<String> = group.elements.iter().map(|e| group.subcolumn(e).to_string()).collect();
    let probe = format!("SELECT {} FROM {from}", columns.join(", "));
    let Ok(mut parsed) = datafusion::sql::sqlparser::parser::Parser::parse_sql(&datafusion::sql::sqlparser::dialect::ClickHouseDialect {}, &probe) else { return whole };
    let Some(parsed) = parsed.pop() else { return whole };
    let Ok(plan) = state.statement_to_plan(DFStatement::Statement(Box::new(parsed))).await else { return whole };
    let schema = plan.schema();
    let elements: Vec<String> = group
        .elements
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < schema.fields().len() && matches!(schema.field(*i).data_type(), arrow::datatypes::DataType::List(_) | arrow::datatypes::DataType::LargeList(_)))
        .map(|(_, e)| e.clone())
        .collect();
    if elements.is_empty() {
        return whole;
    }
    Group { elements, ..whole }
}

fn each_select(set: &mut SetExpr, f: &mut impl FnMut(&mut Select)) {
    match set {
        SetExpr::Select(select) => f(select),
        SetExpr::SetOperation { left, right, .. } => {
            each_select(left, f);
            each_select(right, f);
        }
        _ => {}
    }
}

/// In one SELECT list: `* REPLACE (unnest(n) AS n)` becomes `* REPLACE (unnest(n.a) AS
/// n.a, ...)`, `unnest(n) AS m` becomes `unnest(n.a) AS m.a, ...`, and a bare `n` gets
/// its name as an alias before it is replaced by `__nested(...)`.
fn array_joined_group(select: &mut Select, group: &Group, renamed: &mut Vec<(String, Vec<String>)>) -> bool {
    let mut changed = false;
    let mut projection = Vec::with_capacity(select.projection.len());
    for item in std::mem::take(&mut select.projection) {
        match item {
            SelectItem::Wildcard(mut options) => {
                if let Some(replace) = &mut options.opt_replace {
                    let mut items = Vec::with_capacity(replace.items.len());
                    for element in std::mem::take(&mut replace.items) {
                        let unnests: Option<Vec<Expr>> = group.elements.iter().map(|e| group.unnest_of(&element.expr, e)).collect();
                        match unnests {
                            Some(unnests) => {
                                changed = true;
                                for (expr, e) in unnests.into_iter().zip(&group.elements) {
                                    let column_name = Ident::with_quote('`', format!("{}.{e}", group.name()));
                                    items.push(Box::new(ReplaceSelectElement { expr, column_name, as_keyword: true }));
                                }
                            }
                            None => items.push(element),
                        }
                    }
                    replace.items = items;
                }
                projection.push(SelectItem::Wildcard(options));
            }
            SelectItem::ExprWithAlias { expr, alias } => {
                let unnests: Option<Vec<Expr>> = group.elements.iter().map(|e| group.unnest_of(&expr, e)).collect();
                match unnests {
                    Some(unnests) => {
                        changed = true;
                        for (expr, e) in unnests.into_iter().zip(&group.elements) {
                            projection.push(SelectItem::ExprWithAlias { expr, alias: Ident::with_quote('`', format!("{}.{e}", alias.value)) });
                        }
                        renamed.push((alias.value.clone(), group.elements.iter().map(|e| format!("{}.{e}", alias.value)).collect::<Vec<_>>()));
                    }
                    None => projection.push(SelectItem::ExprWithAlias { expr, alias }),
                }
            }
            SelectItem::UnnamedExpr(expr) if group.is_written(&expr) => {
                projection.push(SelectItem::ExprWithAlias { expr, alias: Ident::with_quote('`', group.name()) });
            }
            item => projection.push(item),
        }
    }
    select.projection = projection;
    changed
}

/// Rewrites every `CompoundIdentifier` equal to `written`; false when there was none.
fn replace(statement: &mut DFStatement, written: &[String], replacement: &[String]) -> bool {
    let DFStatement::Statement(inner) = statement else { return false };
    // `SELECT n.a, m.a`: the front end took both for columns `a` of two tables and named
    // the second as a repeat; as subcolumns they have names of their own.
    let _ = walk_mut(inner, &mut QueryRewriter(|query: &mut Query| {
        each_select(&mut query.body, &mut |select| {
            for item in &mut select.projection {
                if let SelectItem::ExprWithAlias { expr: Expr::CompoundIdentifier(parts), alias } = item {
                    let written_here = parts.len() == written.len() && parts.iter().zip(written).all(|(p, w)| p.value == *w);
                    if written_here && granary_sql::names::is_repeat_name(&alias.value) {
                        *item = SelectItem::UnnamedExpr(Expr::CompoundIdentifier(std::mem::take(parts)));
                    }
                }
            }
        });
        ControlFlow::<()>::Continue(())
    }));
    let mut replaced = false;
    let _ = walk_mut(inner, &mut ExprRewriter(|e: &mut Expr| {
        if let Expr::CompoundIdentifier(parts) = e {
            if parts.len() == written.len() && parts.iter().zip(written).all(|(p, w)| p.value == *w) {
                *e = match replacement {
                    [name] => Expr::Identifier(Ident::with_quote('`', name)),
                    _ => Expr::CompoundIdentifier(replacement.iter().map(|p| Ident::with_quote('`', p)).collect()),
                };
                replaced = true;
            }
        }
        ControlFlow::<()>::Continue(())
    }));
    replaced
}

struct ExprRewriter<F>(F);

impl<F: FnMut(&mut Expr) -> ControlFlow<()>> datafusion::sql::sqlparser::ast::VisitorMut for ExprRewriter<F> {
    type Break = ();
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        (self.0)(expr)
    }
}

struct QueryRewriter<F>(F);

impl<F: FnMut(&mut Query) -> ControlFlow<()>> datafusion::sql::sqlparser::ast::VisitorMut for QueryRewriter<F> {
    type Break = ();
    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        (self.0)(query)
    }
}
