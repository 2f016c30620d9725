//! Column lists inside expressions: `f(*)`, `f(t.*)`, `f(COLUMNS('regexp'))` and
//! `SELECT COLUMNS('regexp')`.
//!
//! ClickHouse expands these to the columns of the SELECT's FROM clause (`cityHash64(*)`
//! over `numbers(2)` is `cityHash64(number)`, and is named so). DataFusion only knows a
//! bare `*` in the SELECT list and `count(*)`, and the columns are known only with the
//! catalog, so the query layer expands them in the AST before planning: the FROM clause
//! of each SELECT that needs it is planned on its own as `SELECT * FROM ...` to learn
//! its columns. That costs one extra planning of the FROM, paid only by queries that
//! use these forms.
//!
//! A SELECT's FROM may hold subqueries that use the forms too, so SELECTs are expanded
//! innermost first, one at a time: find the first one in post-order, plan its FROM,
//! rewrite it, repeat.

use std::collections::HashSet;
use std::ops::ControlFlow;

use arrow::datatypes::FieldRef;
use datafusion::common::TableReference;
use datafusion::logical_expr::{LogicalPlan, TableScan};
use datafusion::execution::SessionState;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    self, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName, ObjectNamePart, Query, Select, SelectItem, SetExpr,
    Value, VisitorMut, With,
};
use granary_common::{Error, ErrorCode, Result};
use granary_sql::column_lists::{argument_column_list, columns_call, has_column_list_argument, last_part, transformed_columns, uses_column_lists, ColumnList, Transformer};
use granary_sql::names::column_name;
use granary_sql::walk::walk_mut;
use granary_storage::{ColumnKind, EngineTableProvider};

/// Which computed columns a `*` stands for besides ordinary ones (the
/// `asterisk_include_materialized_columns` and `asterisk_include_alias_columns` settings;
/// EPHEMERAL columns are never read).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AsteriskColumns {
    pub(crate) materialized: bool,
    pub(crate) alias: bool,
}

impl AsteriskColumns {
    pub(crate) fn from_settings(settings: &granary_common::settings::Settings) -> Self {
        AsteriskColumns { materialized: settings.get_bool("asterisk_include_materialized_columns"), alias: settings.get_bool("asterisk_include_alias_columns") }
    }

    pub(crate) fn includes(self, kind: ColumnKind) -> bool {
        match kind {
            ColumnKind::Ordinary => true,
            ColumnKind::Materialized => self.materialized,
            ColumnKind::Alias => self.alias,
            ColumnKind::Ephemeral => false,
        }
    }
}

/// Expands every column list in `query`.
pub(crate) async fn expand_column_lists(state: &SessionState, query: &mut Query, asterisk: AsteriskColumns) -> Result<()> {
    // A `*` over a table with MATERIALIZED, ALIAS or EPHEMERAL columns is expanded here,
    // to leave them out: DataFusion's `*` has every column of the table. The tables are
    // looked up only for a query with a column list to expand.
    let hidden_columns = {
        let mut finder = Finder { withs: Vec::new(), seen: 0, found: None, hidden_columns: true };
        let _ = walk_mut(query, &mut finder);
        finder.found.is_some() && reads_hidden_columns(state, query, asterisk).await
    };
    loop {
        let mut finder = Finder { withs: Vec::new(), seen: 0, found: None, hidden_columns };
        let _ = walk_mut(query, &mut finder);
        let Some((target, probe)) = finder.found else { return Ok(()) };
        let plan = state.statement_to_plan(DFStatement::Statement(Box::new(ast::Statement::Query(Box::new(probe))))).await?;
        let columns = Columns::of(&plan, asterisk);
        let mut expander = Expander { seen: 0, target, columns: &columns, hidden_columns, result: Ok(()) };
        let _ = walk_mut(query, &mut expander);
        expander.result?;
    }
}

/// The columns of a FROM clause, with the table each comes from.
struct Columns {
    /// (table name, column name, whether another column has the same name).
    fields: Vec<(Option<String>, String, bool)>,
    /// The table of the first column: the left-most table of a join.
    first_table: Option<String>,
}

impl Columns {
    /// The columns of `probe` (`SELECT * FROM <a FROM clause>`), without the virtual
    /// columns of the tables it reads directly: ClickHouse's `*` leaves those out, while
    /// a subquery's result columns are ordinary columns whatever they were read from.
    fn of(probe: &LogicalPlan, asterisk: AsteriskColumns) -> Columns {
        let hidden = tables_hidden_columns(probe.inputs().first().copied().unwrap_or(probe), asterisk);
        let schema = probe.schema();
        let visible: Vec<(Option<&TableReference>, &FieldRef)> =
            schema.iter().filter(|(qualifier, field)| !hidden.iter().any(|(q, name)| q.as_ref() == *qualifier && name == field.name())).collect();
        let names: Vec<String> = visible.iter().map(|(_, f)| f.name().clone()).collect();
        let fields = visible
            .into_iter()
            .map(|(qualifier, field)| {
                let ambiguous = names.iter().filter(|n| *n == field.name()).count() > 1;
                (qualifier.map(|q| q.table().to_string()), field.name().clone(), ambiguous)
            })
            .collect::<Vec<(Option<String>, String, bool)>>();
        let first_table = fields.first().and_then(|(table, ..)| table.clone());
        Columns { fields, first_table }
    }

    /// A reference to column `i`: its bare name, qualified only when the name is ambiguous.
    fn reference(&self, i: usize) -> Expr {
        let (table, name, ambiguous) = &self.fields[i];
        match (table, ambiguous) {
            (Some(table), true) => Expr::CompoundIdentifier(vec![Ident::new(table), Ident::new(name)]),
            _ => Expr::Identifier(Ident::new(name)),
        }
    }

    /// Column `i` as a result column of a SELECT list, named as ClickHouse names it: a
    /// column whose name another table of the join has too is shown qualified (`y.b`),
    /// unless it comes from the left-most table.
    fn item(&self, i: usize) -> SelectItem {
        let (table, name, ambiguous) = &self.fields[i];
        match table {
            Some(table) if *ambiguous && self.first_table.as_ref() != Some(table) => {
                SelectItem::ExprWithAlias { expr: self.reference(i), alias: Ident::with_quote('`', format!("{table}.{name}")) }
            }
            _ => SelectItem::UnnamedExpr(self.reference(i)),
        }
    }

    /// The columns `list` stands for.
    fn expand(&self, list: &ColumnList) -> Result<Vec<Expr>> {
        Ok(self.matches(list)?.into_iter().map(|i| self.reference(i)).collect())
    }

    /// The positions of the columns `list` stands for.
    fn matches(&self, list: &ColumnList) -> Result<Vec<usize>> {
        let matches: Vec<usize> = match list {
            ColumnList::All => (0..self.fields.len()).collect(),
            ColumnList::OfTable(table) => (0..self.fields.len()).filter(|&i| self.fields[i].0.as_deref() == Some(table.as_str())).collect(),
            ColumnList::Matching(pattern) => {
                let regex = regex::Regex::new(pattern)
                    .map_err(|e| Error::new(ErrorCode::CANNOT_COMPILE_REGEXP, format!("COLUMNS pattern {pattern} cannot be compiled: {e}")))?;
                (0..self.fields.len()).filter(|&i| regex.is_match(&self.fields[i].1)).collect()
            }
        };
        Ok(matches)
    }
}

/// The columns `*` leaves out (qualified as the FROM clause names them) of the tables
/// `from` reads directly, through joins and table aliases: virtual columns, and computed
/// ones unless `asterisk` includes them.
fn tables_hidden_columns(from: &LogicalPlan, asterisk: AsteriskColumns) -> Vec<(Option<TableReference>, String)> {
    match from {
        LogicalPlan::Join(join) => [join.left.as_ref(), join.right.as_ref()].into_iter().flat_map(|side| tables_hidden_columns(side, asterisk)).collect(),
        plan => {
            let Some(scan) = scanned_table(plan) else { return Vec::new() };
            let computed = computed_columns(scan, asterisk);
            plan.schema()
                .iter()
                .filter(|(_, field)| granary_storage::virtual_columns::is_virtual(field) || computed.contains(field.name()))
                .map(|(qualifier, field)| (qualifier.cloned(), field.name().clone()))
                .collect()
        }
    }
}

/// The table `plan` reads directly, through table aliases and the subquery that
/// computes its ALIAS columns (query/alias_columns.rs).
fn scanned_table(mut plan: &LogicalPlan) -> Option<&TableScan> {
    loop {
        match plan {
            LogicalPlan::TableScan(scan) => return Some(scan),
            LogicalPlan::SubqueryAlias(alias) => plan = alias.input.as_ref(),
            LogicalPlan::Projection(projection)
                if matches!(projection.input.as_ref(), LogicalPlan::SubqueryAlias(inner) if inner.alias.table() == crate::alias_columns::ALIAS_SOURCE) =>
            {
                plan = projection.input.as_ref()
            }
            _ => return None,
        }
    }
}

/// The names of the columns of the table `scan` reads that `*` leaves out by their kind.
fn computed_columns(scan: &TableScan, asterisk: AsteriskColumns) -> HashSet<String> {
    let Ok(provider) = datafusion::datasource::source_as_provider(&scan.source) else { return HashSet::new() };
    let Some(table) = (provider.as_ref() as &dyn std::any::Any).downcast_ref::<EngineTableProvider>() else { return HashSet::new() };
    table.table().meta.columns.iter().filter(|c| !asterisk.includes(c.kind())).map(|c| c.name.clone()).collect()
}

/// Whether `query` reads a table that has columns `*` leaves out by their kind (a name
/// that turns out to be a CTE's only costs an expansion).
async fn reads_hidden_columns(state: &SessionState, query: &mut Query, asterisk: AsteriskColumns) -> bool {
    let mut references: Vec<TableReference> = Vec::new();
    let _ = granary_sql::views::visit_table_factors(query, &mut |factor| {
        if let ast::TableFactor::Table { name, args: None, .. } = factor {
            match granary_sql::views::table_reference(name) {
                Some((Some(database), table)) => references.push(TableReference::partial(database, table)),
                Some((None, table)) => references.push(TableReference::bare(table)),
                None => {}
            }
        }
        Ok(())
    });
    for reference in references {
        let Ok(schema) = state.schema_for_ref(reference.clone()) else { continue };
        let Ok(Some(provider)) = schema.table(reference.table()).await else { continue };
        let Some(table) = (provider.as_ref() as &dyn std::any::Any).downcast_ref::<EngineTableProvider>() else { continue };
        if table.table().meta.columns.iter().any(|c| !asterisk.includes(c.kind())) {
            return true;
        }
    }
    false
}

/// The columns a plain `*` or `t.*` in a SELECT list stands for. Only expanded when the
/// list holds other items too: those may repeat a column of the `*` (`SELECT url, *`),
/// which ClickHouse allows and the planner can only rename once the names are known. A
/// `*` with modifiers (EXCEPT, REPLACE, ...) is left to DataFusion.
fn plain_wildcard(item: &SelectItem) -> Option<ColumnList> {
    let plain = |o: &ast::WildcardAdditionalOptions| {
        o.opt_ilike.is_none() && o.opt_exclude.is_none() && o.opt_except.is_none() && o.opt_replace.is_none() && o.opt_rename.is_none() && o.opt_alias.is_none()
    };
    match item {
        SelectItem::Wildcard(o) if plain(o) => Some(ColumnList::All),
        SelectItem::QualifiedWildcard(ast::SelectItemQualifiedWildcardKind::ObjectName(name), o) if plain(o) => {
            last_part(name).map(ColumnList::OfTable)
        }
        _ => None,
    }
}

/// A `*` with only EXCEPT/EXCLUDE modifiers: the columns it stands for, and the names
/// it leaves out. Expanded here only while tables show virtual columns (DataFusion's
/// expansion would keep those).
fn wildcard_with_exclusions(item: &SelectItem, expand_wildcards: bool) -> Option<(ColumnList, Vec<String>)> {
    let SelectItem::Wildcard(o) = item else { return None };
    let only_exclusions = o.opt_ilike.is_none() && o.opt_replace.is_none() && o.opt_rename.is_none() && o.opt_alias.is_none();
    if !only_exclusions || (o.opt_except.is_none() && o.opt_exclude.is_none()) || !expand_wildcards {
        return None;
    }
    let mut names: Vec<String> = Vec::new();
    if let Some(except) = &o.opt_except {
        names.extend(std::iter::once(&except.first_element).chain(&except.additional_elements).map(|i| i.value.clone()));
    }
    match &o.opt_exclude {
        Some(ast::ExcludeSelectItem::Single(name)) => names.extend(last_part(name)),
        Some(ast::ExcludeSelectItem::Multiple(list)) => names.extend(list.iter().filter_map(last_part)),
        None => {}
    }
    Some((ColumnList::All, names))
}

/// Whether `select` (not its subqueries, which are SELECTs of their own) uses a column list.
/// Whether the `*` of `select` is expanded here rather than by DataFusion: while tables
/// show virtual columns (the query names one) or have computed columns, to leave those
/// out, and in a join, to name the columns as ClickHouse does.
fn expands_wildcards(select: &Select, hidden_columns: bool) -> bool {
    let joins = select.from.len() > 1 || select.from.iter().any(|f| !f.joins.is_empty());
    hidden_columns || joins || granary_storage::virtual_columns::visible()
}

fn select_uses_column_lists(select: &mut Select, hidden_columns: bool) -> bool {
    let expand_wildcards = expands_wildcards(select, hidden_columns);
    let mut found = (expand_wildcards || select.projection.len() > 1) && select.projection.iter().any(|item| plain_wildcard(item).is_some());
    found |= select.projection.iter().any(|item| wildcard_with_exclusions(item, expand_wildcards).is_some());
    for item in &select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            found |= columns_call(e).is_some();
        }
    }
    let _ = visit_own_expressions(select, &mut |expr| {
        found |= matches!(expr, Expr::Function(f) if has_column_list_argument(f));
        ControlFlow::Continue(())
    });
    found
}

/// Calls `f` on every expression of `select` outside its subqueries.
fn visit_own_expressions(select: &mut Select, f: &mut dyn FnMut(&mut Expr) -> ControlFlow<()>) -> ControlFlow<()> {
    granary_sql::walk::exprs_outside_subqueries_mut(select, f)
}

/// Finds the first SELECT, in post-order, that uses column lists, and builds the query
/// that gives its FROM clause's columns.
struct Finder {
    /// The WITH clauses of the queries around the current point, for CTEs in FROM.
    withs: Vec<Option<With>>,
    seen: usize,
    found: Option<(usize, Query)>,
    /// The query reads tables whose `*` leaves computed columns out.
    hidden_columns: bool,
}

impl VisitorMut for Finder {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        self.withs.push(query.with.clone());
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.withs.pop();
        ControlFlow::Continue(())
    }

    fn post_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        let index = self.seen;
        self.seen += 1;
        if !select_uses_column_lists(select, self.hidden_columns) {
            return ControlFlow::Continue(());
        }
        self.found = Some((index, probe_query(select, &self.withs)));
        ControlFlow::Break(())
    }
}

/// `WITH <every enclosing CTE> SELECT * FROM <select's FROM>`; with no FROM, ClickHouse
/// reads `system.one`.
fn probe_query(select: &Select, withs: &[Option<With>]) -> Query {
    let mut probe = select.clone();
    probe.projection = vec![SelectItem::Wildcard(ast::WildcardAdditionalOptions::default())];
    probe.distinct = None;
    probe.top = None;
    probe.into = None;
    probe.prewhere = None;
    probe.selection = None;
    probe.group_by = ast::GroupByExpr::Expressions(Vec::new(), Vec::new());
    probe.cluster_by.clear();
    probe.distribute_by.clear();
    probe.sort_by.clear();
    probe.having = None;
    probe.named_window.clear();
    probe.qualify = None;
    probe.connect_by.clear();
    if probe.from.is_empty() {
        probe.from = vec![system_one()];
    }
    let ctes: Vec<ast::Cte> = withs.iter().flatten().flat_map(|w| w.cte_tables.iter().cloned()).collect();
    let with = (!ctes.is_empty()).then(|| With { with_token: ast::helpers::attached_token::AttachedToken::empty(), recursive: false, cte_tables: ctes });
    Query {
        with,
        body: Box::new(SetExpr::Select(Box::new(probe))),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: vec![],
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: vec![],
    }
}

/// `system.one`, which a SELECT without FROM reads in ClickHouse: `SELECT ignore(*)` is
/// `ignore(dummy)`.
fn system_one() -> ast::TableWithJoins {
    let name = ObjectName(vec![ObjectNamePart::Identifier(Ident::new("system")), ObjectNamePart::Identifier(Ident::new("one"))]);
    let relation = ast::TableFactor::Table {
        name,
        alias: None,
        args: None,
        with_hints: vec![],
        version: None,
        with_ordinality: false,
        partitions: vec![],
        json_path: None,
        sample: None,
        index_hints: vec![],
    };
    ast::TableWithJoins { relation, joins: vec![] }
}

/// Expands the column lists of the `target`-th SELECT (post-order).
struct Expander<'a> {
    seen: usize,
    target: usize,
    columns: &'a Columns,
    /// The query reads tables whose `*` leaves computed columns out.
    hidden_columns: bool,
    result: Result<()>,
}

impl VisitorMut for Expander<'_> {
    type Break = ();

    fn post_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        let index = self.seen;
        self.seen += 1;
        if index != self.target {
            return ControlFlow::Continue(());
        }
        if select.from.is_empty() {
            select.from = vec![system_one()];
        }
        let expand_wildcards = expands_wildcards(select, self.hidden_columns);
        self.result = expand_select(select, self.columns, expand_wildcards);
        ControlFlow::Break(())
    }
}

fn expand_select(select: &mut Select, columns: &Columns, expand_wildcards: bool) -> Result<()> {
    // `SELECT COLUMNS('re')`: one result column per match, named after it.
    let mut projection = Vec::with_capacity(select.projection.len());
    for item in std::mem::take(&mut select.projection) {
        if let SelectItem::UnnamedExpr(e) = &item {
            if let Some((list, chain)) = transformed_columns(e) {
                projection.extend(transform(columns, &list, &chain)?);
                continue;
            }
        }
        let list = match &item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => columns_call(e),
            other => plain_wildcard(other),
        };
        match (list, wildcard_with_exclusions(&item, expand_wildcards)) {
            (Some(list), _) => projection.extend(columns.matches(&list)?.into_iter().map(|i| columns.item(i))),
            (None, Some((list, excluded))) => {
                let kept = columns.matches(&list)?.into_iter().filter(|&i| !excluded.contains(&columns.fields[i].1));
                projection.extend(kept.map(|i| columns.item(i)));
            }
            (None, None) => projection.push(item),
        }
    }
    if projection.is_empty() {
        return Err(Error::new(ErrorCode::EMPTY_LIST_OF_COLUMNS_QUERIED, "Empty list of columns in projection"));
    }
    select.projection = projection;

    // The front end left the result columns that use column lists unnamed: ClickHouse
    // names them after the expansion (`ignore(*)` is `ignore(number)`).
    let unnamed: Vec<bool> = select.projection.iter().map(|item| matches!(item, SelectItem::UnnamedExpr(e) if uses_column_lists(e))).collect();
    let mut failure = None;
    let _ = visit_own_expressions(select, &mut |expr| {
        let Expr::Function(f) = expr else { return ControlFlow::Continue(()) };
        if !has_column_list_argument(f) {
            return ControlFlow::Continue(());
        }
        let name = last_part(&f.name).unwrap_or_default();
        let FunctionArguments::List(list) = &mut f.args else { return ControlFlow::Continue(()) };
        let mut args = Vec::with_capacity(list.args.len());
        for arg in std::mem::take(&mut list.args) {
            match argument_column_list(&name, &arg) {
                Some(columns_list) => match columns.expand(&columns_list) {
                    Ok(exprs) => args.extend(exprs.into_iter().map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))),
                    Err(e) => {
                        failure = Some(e);
                        return ControlFlow::Break(());
                    }
                },
                None => args.push(arg),
            }
        }
        list.args = args;
        ControlFlow::Continue(())
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let mut used: HashSet<String> = select.projection.iter().filter_map(|item| match item {
        SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
        SelectItem::UnnamedExpr(Expr::Identifier(i)) => Some(i.value.clone()),
        _ => None,
    }).collect();
    for (item, unnamed) in select.projection.iter_mut().zip(unnamed) {
        if !unnamed {
            continue;
        }
        let SelectItem::UnnamedExpr(expr) = item else { continue };
        let name = column_name(expr);
        // DataFusion wants unique names; a duplicate keeps DataFusion's own.
        if used.insert(name.clone()) {
            let expr = std::mem::replace(expr, Expr::value(Value::Null));
            *item = SelectItem::ExprWithAlias { expr, alias: Ident::with_quote('`', name) };
        }
    }
    Ok(())
}

/// The result columns of a column list and its transformers (`* EXCEPT (b) APPLY(f)`),
/// applied left to right. Each column keeps the expression it is named after apart from
/// its value: REPLACE changes the value only, so `* REPLACE (ab + 1 AS ab) APPLY(x -> x * 2)`
/// is named `multiply(ab, 2)`, as in ClickHouse, and later transformers match columns by
/// that name.
fn transform(columns: &Columns, list: &ColumnList, chain: &[Transformer]) -> Result<Vec<SelectItem>> {
    // (value, the expression it is named after, the column it started from).
    let mut items: Vec<(Expr, Expr, usize)> = columns.matches(list)?.into_iter().map(|i| (columns.reference(i), columns.reference(i), i)).collect();
    let current_name = |e: &Expr| match e {
        Expr::Identifier(i) => i.value.clone(),
        Expr::CompoundIdentifier(parts) => parts.last().map(|i| i.value.clone()).unwrap_or_default(),
        other => column_name(other),
    };
    let strict_failure = |kind: &str, written: String, missing: Vec<&String>| {
        let missing: Vec<&str> = missing.into_iter().map(String::as_str).collect();
        Error::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Strict {kind} column transformer {kind} {written} expects following column(s) : {}", missing.join(", ")),
        )
    };
    for transformer in chain {
        match transformer {
            Transformer::Except { names, strict } => {
                let missing: Vec<&String> = names.iter().filter(|n| !items.iter().any(|(_, name, _)| current_name(name) == **n)).collect();
                if *strict && !missing.is_empty() {
                    return Err(strict_failure("EXCEPT", names.join(", "), missing));
                }
                items.retain(|(_, name, _)| !names.contains(&current_name(name)));
            }
            Transformer::Replace { items: replacements, strict } => {
                let missing: Vec<&String> =
                    replacements.iter().map(|(n, _)| n).filter(|n| !items.iter().any(|(_, name, _)| current_name(name) == **n)).collect();
                if *strict && !missing.is_empty() {
                    let written: Vec<String> = replacements.iter().map(|(n, e)| format!("{e} AS {n}")).collect();
                    return Err(strict_failure("REPLACE", format!("({})", written.join(", ")), missing));
                }
                for (value, name, _) in items.iter_mut() {
                    if let Some((_, replacement)) = replacements.iter().find(|(n, _)| *n == current_name(name)) {
                        *value = replacement.clone();
                    }
                }
            }
            Transformer::Apply(template) => {
                for (value, name, _) in items.iter_mut() {
                    *value = apply_template(template, value);
                    *name = apply_template(template, name);
                }
            }
        }
    }
    Ok(items
        .into_iter()
        .map(|(value, name, column)| match &value {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) if value == name => columns.item(column),
            _ => SelectItem::ExprWithAlias { alias: Ident::with_quote('`', current_name(&name)), expr: value },
        })
        .collect())
}

/// `template` with `column` in place of the APPLY placeholder.
fn apply_template(template: &Expr, column: &Expr) -> Expr {
    let mut out = template.clone();
    let _ = granary_sql::walk::exprs_mut(&mut out, &mut |e: &mut Expr| {
        if matches!(e, Expr::Identifier(i) if i.value == granary_sql::column_transformers::APPLY_PLACEHOLDER) {
            *e = column.clone();
        }
        ControlFlow::<()>::Continue(())
    });
    match out {
        Expr::Nested(inner) => *inner,
        other => other,
    }
}
