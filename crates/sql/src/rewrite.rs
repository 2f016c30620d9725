//! Rewrites of the sqlparser AST so DataFusion plans what ClickHouse means.
//!
//! * function names that ClickHouse treats case-insensitively (`SUM`, `Count`) are
//!   lower-cased, because DataFusion runs with identifier normalisation off
//!   (ClickHouse names are case-sensitive: `toUInt64`, column `Id` vs `id`);
//! * `CAST(x AS <ClickHouse type>)` becomes `_CAST(x, '<type>')`, whose result type comes
//!   from our type system rather than DataFusion's SQL types;
//! * conditions take numbers, as in ClickHouse, and `PREWHERE c` joins `WHERE`
//!   ([`crate::conditions`]);
//! * `ARRAY JOIN` becomes `unnest` in a derived table ([`crate::array_join`]);
//! * `LIMIT n BY cols` is taken out, to be applied to the result stream by the interpreter;
//! * unaliased projection items get ClickHouse's column names ([`crate::names`]).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    self, BinaryOperator, CastKind, Expr, FunctionArg, FunctionArgExpr, FunctionArgumentList,
    FunctionArguments, Ident, LimitClause, ObjectName, ObjectNamePart, Query, SelectItem, SetExpr, Value,
};
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;
use granary_common::{Error, ErrorCode, Result};

use crate::names::column_name;
use crate::walk::{exprs_mut, walk, walk_mut};

/// What the rewrite needs to know about the function registry.
#[derive(Default, Clone, Copy)]
pub struct RewriteOptions<'a> {
    /// Whether a (lower-case) name is a function ClickHouse matches case-insensitively.
    pub is_case_insensitive: Option<&'a (dyn Fn(&str) -> bool + Sync)>,
    /// Whether ClickHouse functions (`_CAST`, `divide`, ...) are registered, so operators
    /// can be mapped to them.
    pub clickhouse_functions: bool,
}

/// `LIMIT limit [OFFSET offset] BY columns`, applied after ORDER BY.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitBy {
    pub limit: u64,
    pub offset: u64,
    /// Result column names (ClickHouse names of the BY expressions).
    pub columns: Vec<String>,
    /// `... LIMIT n BY x LIMIT m [OFFSET k]`: (m, k), applied to what LIMIT BY kept.
    pub then: Option<(u64, u64)>,
}

/// Rewrites `query` in place; returns the LIMIT BY clause it took out, if any.
pub fn rewrite_query(query: &mut Query, options: &RewriteOptions<'_>) -> Result<Option<LimitBy>> {
    check_limit_literals(query)?;
    fetch_in_every_query(query)?;
    // Before names: `t.1` is named `tupleElement(t, 1)`.
    let _ = exprs_mut(query, &mut |expr: &mut Expr| {
        tuple_element_access(expr);
        ControlFlow::<()>::Continue(())
    });
    let limit_by = take_limit_by(query)?;
    limit_by_in_nested_queries(query)?;
    // Names first: ClickHouse names columns after the expression as written (`SUM(x)`),
    // unaliased subqueries `_subquery_N` by the order the analyzer resolves them in.
    let numbers = crate::names::number_subqueries(query);
    rewrite_nested_query(query, options)?;
    drop(numbers);
    crate::aliases::strip_inline_aliases(query);
    // After alias substitution, so a condition naming an alias sees its definition.
    crate::conditions::rewrite_conditions(query, options.clickhouse_functions);
    let _ = exprs_mut(query, &mut |expr: &mut Expr| {
        rewrite_expr(expr, options);
        ControlFlow::<()>::Continue(())
    });
    if options.clickhouse_functions {
        crate::subqueries::predicates_in_select_lists(query);
    }
    Ok(limit_by)
}

fn rewrite_nested_query(query: &mut Query, options: &RewriteOptions<'_>) -> Result<()> {
    rewrite_set_expr(&mut query.body, query.order_by.as_mut(), options)?;
    if let Some(with) = &mut query.with {
        for cte in &mut with.cte_tables {
            rewrite_nested_query(&mut cte.query, options)?;
        }
    }
    Ok(())
}

/// `order_by`: the ORDER BY of the query whose body this is (None under a set operation).
fn rewrite_set_expr(body: &mut SetExpr, order_by: Option<&mut ast::OrderBy>, options: &RewriteOptions<'_>) -> Result<()> {
    match body {
        SetExpr::Select(select) => {
            crate::array_join::rewrite_array_join(select)?;
            group_by_modifiers(select)?;
            // Names before aliases are substituted: ClickHouse names `n + 1` after the
            // alias `n` it uses, not after the aliased expression.
            name_projection(&mut select.projection);
            crate::aliases::substitute_aliases(select, order_by)?;
            crate::array_join::cartesian_array_joins(select)?;
            for item in select.projection.iter_mut() {
                if let SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } = item {
                    comparisons_as_functions(expr);
                }
            }
            group_keys_as_projected(&mut select.group_by);
            ordered_input_aggregates(select);
            keep_order_for_running_accumulate(select);
            for table in &mut select.from {
                rewrite_table_factor(&mut table.relation, options)?;
                for join in &mut table.joins {
                    rewrite_table_factor(&mut join.relation, options)?;
                }
            }
            Ok(())
        }
        SetExpr::Query(q) => rewrite_nested_query(q, options),
        SetExpr::SetOperation { left, right, .. } => {
            rewrite_set_expr(left, None, options)?;
            rewrite_set_expr(right, None, options)
        }
        _ => Ok(()),
    }
}

/// `GROUP BY a, b WITH ROLLUP` / `WITH CUBE` as `GROUP BY ROLLUP(a, b)` / `CUBE(a, b)`.
/// `WITH TOTALS` (an extra result block) stays for the query layer, which plans it.
fn group_by_modifiers(select: &mut ast::Select) -> Result<()> {
    let ast::GroupByExpr::Expressions(exprs, modifiers) = &mut select.group_by else { return Ok(()) };
    let mut grouping: Option<Expr> = None;
    let mut totals = false;
    for modifier in std::mem::take(modifiers) {
        let sets = || exprs.iter().map(|e| vec![e.clone()]).collect::<Vec<_>>();
        let next = match modifier {
            ast::GroupByWithModifier::Rollup => Expr::Rollup(sets()),
            ast::GroupByWithModifier::Cube => Expr::Cube(sets()),
            ast::GroupByWithModifier::Totals => {
                totals = true;
                continue;
            }
            ast::GroupByWithModifier::GroupingSets(sets) => sets,
        };
        if grouping.replace(next).is_some() {
            return Err(Error::new(ErrorCode::SYNTAX_ERROR, "GROUP BY can have only one of WITH ROLLUP, WITH CUBE and GROUPING SETS"));
        }
    }
    if let Some(grouping) = grouping {
        *exprs = vec![grouping];
    }
    if totals {
        modifiers.push(ast::GroupByWithModifier::Totals);
    }
    Ok(())
}

/// `groupArray`, whose result depends on the order of its input, sees rows in the order
/// of a subquery's ORDER BY in ClickHouse, an idiom
/// (`SELECT k, groupArray(x) FROM (SELECT ... ORDER BY t) GROUP BY k`). DataFusion drops
/// an ORDER BY that no operator above requires and repartitions rows, so the keys are
/// handed to it as its own ordering (`groupArray(x ORDER BY t)`), which
/// DataFusion keeps. Only keys that are output columns of the subquery can be named.
fn ordered_input_aggregates(select: &mut ast::Select) {
    const ORDER_SENSITIVE: [&str; 1] = ["groupArray"];
    let [table] = select.from.as_slice() else { return };
    if !table.joins.is_empty() {
        return;
    }
    let ast::TableFactor::Derived { subquery, .. } = &table.relation else { return };
    let Some(ast::OrderBy { kind: ast::OrderByKind::Expressions(keys), .. }) = &subquery.order_by else { return };
    let SetExpr::Select(inner) = subquery.body.as_ref() else { return };
    let outputs_all = inner.projection.iter().any(|item| matches!(item, SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)));
    let is_output = |name: &str| {
        outputs_all
            || inner.projection.iter().any(|item| match item {
                SelectItem::ExprWithAlias { alias, .. } => alias.value == name,
                SelectItem::UnnamedExpr(Expr::Identifier(ident)) => ident.value == name,
                SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) => parts.last().is_some_and(|p| p.value == name),
                _ => false,
            })
    };
    let mut ordering = Vec::with_capacity(keys.len());
    for key in keys {
        let name = match &key.expr {
            Expr::Identifier(ident) => ident.clone(),
            Expr::CompoundIdentifier(parts) => match parts.last() {
                Some(last) => last.clone(),
                None => return,
            },
            _ => return,
        };
        if !is_output(&name.value) {
            return;
        }
        ordering.push(ast::OrderByExpr { expr: Expr::Identifier(name), options: key.options.clone(), with_fill: None });
    }
    if ordering.is_empty() {
        return;
    }
    let add_ordering = |expr: &mut Expr| {
        let _ = exprs_mut(expr, &mut |e: &mut Expr| {
            if let Expr::Function(function) = e {
                let plain = matches!(function.name.0.as_slice(), [ObjectNamePart::Identifier(i)] if ORDER_SENSITIVE.contains(&i.value.as_str()))
                    && matches!(function.parameters, FunctionArguments::None);
                if let (true, None, FunctionArguments::List(list)) = (plain, &function.over, &mut function.args) {
                    if !list.clauses.iter().any(|c| matches!(c, ast::FunctionArgumentClause::OrderBy(_))) {
                        list.clauses.push(ast::FunctionArgumentClause::OrderBy(ordering.clone()));
                    }
                }
            }
            ControlFlow::<()>::Continue(())
        });
    };
    for item in select.projection.iter_mut() {
        if let SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } = item {
            add_ordering(expr);
        }
    }
    if let Some(having) = select.having.as_mut() {
        add_ordering(having);
    }
}

/// `runningAccumulate` folds rows in the order of the sorted subquery it reads in
/// ClickHouse. DataFusion drops a subquery's ORDER BY that has no LIMIT, so the subquery
/// gets the largest LIMIT, which keeps its sort (and one ordered stream) without
/// changing its rows.
fn keep_order_for_running_accumulate(select: &mut ast::Select) {
    let [table] = select.from.as_mut_slice() else { return };
    if !table.joins.is_empty() {
        return;
    }
    let ast::TableFactor::Derived { subquery, .. } = &mut table.relation else { return };
    if subquery.order_by.is_none() || subquery.limit_clause.is_some() || subquery.fetch.is_some() {
        return;
    }
    let mut calls = false;
    for item in select.projection.iter_mut() {
        if let SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } = item {
            let _ = exprs_mut(expr, &mut |e: &mut Expr| {
                if let Expr::Function(function) = e {
                    if matches!(function.name.0.as_slice(), [ObjectNamePart::Identifier(i)] if i.value == "runningAccumulate") {
                        calls = true;
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            });
        }
    }
    if calls {
        subquery.limit_clause = Some(ast::LimitClause::LimitOffset {
            limit: Some(Expr::value(ast::Value::Number(i64::MAX.to_string(), false))),
            offset: None,
            limit_by: vec![],
        });
    }
}

/// GROUP BY keys get the projection's rewrite of comparisons too: DataFusion matches a
/// result column to a grouping key by comparing expressions, so `if(x = 0, ...)` in the
/// SELECT list (planned as `if(equals(x, 0), ...)`) must appear the same way in
/// `GROUP BY ROLLUP(a)` after the alias `a` was replaced by its definition, and in
/// `GROUP BY x = 0`. A key is a value, never a filter, so ClickHouse's UInt8 is right there.
fn group_keys_as_projected(group_by: &mut ast::GroupByExpr) {
    let ast::GroupByExpr::Expressions(exprs, _) = group_by else { return };
    for expr in exprs {
        match expr {
            Expr::Rollup(sets) | Expr::Cube(sets) | Expr::GroupingSets(sets) => sets.iter_mut().flatten().for_each(comparisons_as_functions),
            key => comparisons_as_functions(key),
        }
    }
}

fn rewrite_table_factor(factor: &mut ast::TableFactor, options: &RewriteOptions<'_>) -> Result<()> {
    if let ast::TableFactor::Derived { subquery, .. } = factor {
        rewrite_nested_query(subquery, options)?;
    }
    Ok(())
}

/// Gives each unaliased computed column the name ClickHouse would give it.
fn name_projection(projection: &mut [SelectItem]) {
    let mut used: std::collections::HashSet<String> = projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
            SelectItem::UnnamedExpr(Expr::Identifier(i)) => Some(i.value.clone()),
            _ => None,
        })
        .collect();
    for item in projection.iter_mut() {
        if let SelectItem::UnnamedExpr(expr) = item {
            // Named by the query layer once `*` / `COLUMNS(...)` are expanded.
            if matches!(expr, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) || crate::column_lists::uses_column_lists(expr) {
                continue;
            }
            // `(e AS a)` as a whole result column is named `a`, as by `e AS a`.
            if let Some((_, alias)) = crate::aliases::inline_alias(unparenthesized(expr)) {
                let alias = Ident::with_quote('`', alias);
                let expr = std::mem::replace(expr, Expr::value(Value::Null));
                *item = SelectItem::ExprWithAlias { expr, alias };
                continue;
            }
            let name = column_name(expr);
            // DataFusion requires unique output names; ClickHouse allows duplicates. A
            // duplicate keeps DataFusion's own name rather than failing the query.
            if !used.insert(name.clone()) {
                continue;
            }
            let expr = std::mem::replace(expr, Expr::value(Value::Null));
            *item = SelectItem::ExprWithAlias { expr, alias: Ident::with_quote('`', name) };
        }
    }
}

fn unparenthesized(mut expr: &Expr) -> &Expr {
    while let Expr::Nested(inner) = expr {
        expr = inner;
    }
    expr
}

/// In a result column, `a = b` is ClickHouse's `equals(a, b)`, a UInt8 (`1`, not `true`), and
/// `a AND b`, `a OR b`, `NOT a` are `and`, `or`, `not` (UInt8, three-valued over numbers),
/// `LIKE` is `like`, `(a, b)` is `tuple(a, b)`, and `IN (..)`, `BETWEEN`, `IS [NOT] NULL`
/// give UInt8 too.
/// Only the projection is rewritten, and subqueries are not entered: filters keep
/// DataFusion's booleans.
pub(crate) fn comparisons_as_functions(expr: &mut Expr) {
    let name = match expr {
        Expr::BinaryOp { op, .. } => match op {
            BinaryOperator::Eq => Some("equals"),
            BinaryOperator::NotEq => Some("notEquals"),
            BinaryOperator::Lt => Some("less"),
            BinaryOperator::Gt => Some("greater"),
            BinaryOperator::LtEq => Some("lessOrEquals"),
            BinaryOperator::GtEq => Some("greaterOrEquals"),
            BinaryOperator::And => Some("and"),
            BinaryOperator::Or => Some("or"),
            BinaryOperator::Xor => Some("xor"),
            _ => None,
        },
        _ => None,
    };
    match expr {
        Expr::BinaryOp { left, right, .. } => {
            comparisons_as_functions(left);
            comparisons_as_functions(right);
        }
        Expr::UnaryOp { expr: inner, .. } | Expr::Nested(inner) | Expr::Cast { expr: inner, .. } => comparisons_as_functions(inner),
        Expr::Like { expr: text, pattern, .. } | Expr::ILike { expr: text, pattern, .. } => {
            comparisons_as_functions(text);
            comparisons_as_functions(pattern);
        }
        Expr::IsNull(inner) | Expr::IsNotNull(inner) => comparisons_as_functions(inner),
        Expr::Function(function) => {
            if let FunctionArguments::List(list) = &mut function.args {
                for arg in &mut list.args {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) | FunctionArg::Named { arg: FunctionArgExpr::Expr(e), .. } = arg {
                        comparisons_as_functions(e);
                    }
                }
            }
        }
        _ => {}
    }
    if let (Some(name), Expr::BinaryOp { left, right, .. }) = (name, &mut *expr) {
        let (left, right) = (std::mem::replace(left.as_mut(), Expr::value(Value::Null)), std::mem::replace(right.as_mut(), Expr::value(Value::Null)));
        *expr = function_call(name, vec![left, right]);
    } else if let Expr::Tuple(items) = expr {
        // `(1, 'a')` is ClickHouse's `tuple(1, 'a')`: Tuple(UInt8, String), elements
        // unnamed (DataFusion's struct would name them c0, c1 and make them Nullable).
        for item in items.iter_mut() {
            comparisons_as_functions(item);
        }
        let items = std::mem::take(items);
        *expr = function_call("tuple", items);
    } else if let Expr::UnaryOp { op: ast::UnaryOperator::Not, expr: inner } = expr {
        let inner = std::mem::replace(inner.as_mut(), Expr::value(Value::Null));
        *expr = function_call("not", vec![inner]);
    } else if matches!(expr, Expr::InList { .. } | Expr::Between { .. } | Expr::IsNull(_) | Expr::IsNotNull(_)) {
        // Still planned as DataFusion's predicates; the column is ClickHouse's UInt8.
        let predicate = std::mem::replace(expr, Expr::value(Value::Null));
        *expr = function_call("toUInt8", vec![Expr::Nested(Box::new(predicate))]);
    } else if let Some(insensitive) = match expr {
        Expr::Like { any: false, escape_char: None, .. } => Some(false),
        Expr::ILike { any: false, escape_char: None, .. } => Some(true),
        _ => None,
    } {
        let (Expr::Like { negated, expr: text, pattern, .. } | Expr::ILike { negated, expr: text, pattern, .. }) = expr else { return };
        let name = match (insensitive, *negated) {
            (false, false) => "like",
            (false, true) => "notLike",
            (true, false) => "ilike",
            (true, true) => "notILike",
        };
        let (text, pattern) = (std::mem::replace(text.as_mut(), Expr::value(Value::Null)), std::mem::replace(pattern.as_mut(), Expr::value(Value::Null)));
        *expr = function_call(name, vec![text, pattern]);
    }
}

fn rewrite_expr(expr: &mut Expr, options: &RewriteOptions<'_>) {
    match expr {
        // `(a, b) IN ((1, 'x'), (2, 'y'))`: each element compared, as ClickHouse compares
        // tuples (DataFusion's struct IN lists need identical struct types).
        // ClickHouse leaves NULLs out of an IN list (transform_null_in = 0): `1 IN (NULL)`
        // is 0 and `2 NOT IN (1, NULL)` is 1, where SQL would say NULL. Only a NULL
        // probe gives NULL; with no value left, `x != x` (`x = x` for NOT IN) says that.
        Expr::InList { expr: probe, list, negated } if list.iter().any(is_null_literal) && !matches!(probe.as_ref(), Expr::Tuple(_)) => {
            list.retain(|item| !is_null_literal(item));
            if list.is_empty() {
                let probe = std::mem::replace(probe.as_mut(), Expr::value(Value::Null));
                let op = if *negated { BinaryOperator::Eq } else { BinaryOperator::NotEq };
                *expr = Expr::Nested(Box::new(Expr::BinaryOp { left: Box::new(probe.clone()), op, right: Box::new(probe) }));
            }
        }
        Expr::InList { expr: probe, list, negated } if matches!(probe.as_ref(), Expr::Tuple(_)) && !list.is_empty() => {
            let Expr::Tuple(keys) = probe.as_ref() else { return };
            let mut alternatives = Vec::with_capacity(list.len());
            for item in list.iter() {
                let Expr::Tuple(values) = item else { return };
                if values.len() != keys.len() {
                    return;
                }
                let equalities = keys.iter().zip(values).map(|(k, v)| Expr::BinaryOp { left: Box::new(k.clone()), op: BinaryOperator::Eq, right: Box::new(v.clone()) });
                let conjunction = equalities.reduce(|a, b| Expr::BinaryOp { left: Box::new(a), op: BinaryOperator::And, right: Box::new(b) });
                alternatives.extend(conjunction.map(|c| Expr::Nested(Box::new(c))));
            }
            let Some(any) = alternatives.into_iter().reduce(|a, b| Expr::BinaryOp { left: Box::new(a), op: BinaryOperator::Or, right: Box::new(b) }) else { return };
            let any = Expr::Nested(Box::new(any));
            *expr = if *negated { Expr::UnaryOp { op: ast::UnaryOperator::Not, expr: Box::new(any) } } else { any };
        }
        // `(a, b) IN (SELECT x, y ...)`: a correlated EXISTS, which DataFusion turns into
        // a semi join (its IN subqueries take one column).
        Expr::InSubquery { expr: probe, subquery, negated } if matches!(probe.as_ref(), Expr::Tuple(keys) if keys.len() > 1) => {
            let Expr::Tuple(keys) = probe.as_ref() else { return };
            let names: Vec<String> = (1..=keys.len()).map(|i| format!("__in_{i}")).collect();
            let alias = ast::TableAlias {
                explicit: true,
                name: Ident::new("__in_subquery"),
                columns: names.iter().map(|n| ast::TableAliasColumnDef::from_name(n.clone())).collect(),
                at: None,
            };
            let condition = keys
                .iter()
                .zip(&names)
                .map(|(k, n)| Expr::BinaryOp {
                    left: Box::new(Expr::CompoundIdentifier(vec![Ident::new("__in_subquery"), Ident::new(n.clone())])),
                    op: BinaryOperator::Eq,
                    right: Box::new(k.clone()),
                })
                .reduce(|a, b| Expr::BinaryOp { left: Box::new(a), op: BinaryOperator::And, right: Box::new(b) });
            let text = format!("SELECT 1 FROM (SELECT 1) AS __in_subquery WHERE {}", condition.map(|c| c.to_string()).unwrap_or_default());
            let Ok(mut exists) = datafusion::sql::sqlparser::parser::Parser::new(&datafusion::sql::sqlparser::dialect::ClickHouseDialect {}).try_with_sql(&text).and_then(|mut p| p.parse_query()) else { return };
            // The subquery's columns are renamed in each of its SELECTs when it lists them,
            // else by the derived table's column list.
            let mut inner = subquery.clone();
            let alias = if name_result_columns(&mut inner.body, &names) { ast::TableAlias { columns: Vec::new(), ..alias } } else { alias };
            if let SetExpr::Select(select) = exists.body.as_mut() {
                if let Some(from) = select.from.first_mut() {
                    from.relation = ast::TableFactor::Derived { lateral: false, subquery: inner, alias: Some(alias), sample: None };
                }
            }
            *expr = Expr::Exists { subquery: exists, negated: *negated };
        }
        // `/` is always floating-point division in ClickHouse (`7 / 2` = 3.5).
        Expr::BinaryOp { op: BinaryOperator::Divide, left, right } if options.clickhouse_functions => {
            let (left, right) = (std::mem::replace(left.as_mut(), Expr::value(Value::Null)), std::mem::replace(right.as_mut(), Expr::value(Value::Null)));
            *expr = function_call("divide", vec![left, right]);
        }
        // `+ - * %` and unary minus are ClickHouse's `plus`..`negate`, whose result types
        // are ClickHouse's (`UInt8 + UInt8` is `UInt16`, `Date + IntervalMonth` is a
        // Date), and `-<number>` stays a literal.
        Expr::BinaryOp { op: op @ (BinaryOperator::Plus | BinaryOperator::Minus | BinaryOperator::Multiply | BinaryOperator::Modulo), left, right }
            if options.clickhouse_functions =>
        {
            let name = match op {
                BinaryOperator::Plus => "plus",
                BinaryOperator::Minus => "minus",
                BinaryOperator::Multiply => "multiply",
                _ => "modulo",
            };
            let (left, right) = (std::mem::replace(left.as_mut(), Expr::value(Value::Null)), std::mem::replace(right.as_mut(), Expr::value(Value::Null)));
            *expr = function_call(name, vec![left, right]);
        }
        Expr::UnaryOp { op: ast::UnaryOperator::Minus, expr: inner } if options.clickhouse_functions && !is_number(inner) => {
            let inner = std::mem::replace(inner.as_mut(), Expr::value(Value::Null));
            *expr = function_call("negate", vec![inner]);
        }
        // `[a, b]` is ClickHouse's `array(a, b)`, typed as ClickHouse types it.
        Expr::Array(array) if options.clickhouse_functions => {
            // Tuples in it are ClickHouse's `tuple(...)` too: `[(1, 'a')]` is
            // Array(Tuple(UInt8, String)), not an array of DataFusion structs.
            let elements = std::mem::take(&mut array.elem).into_iter().map(tuple_as_call).collect();
            *expr = function_call("array", elements);
        }
        // A tuple holding a tuple, `((1, 2), 3)`, is no DataFusion struct literal.
        Expr::Tuple(items) if options.clickhouse_functions && items.iter().any(|item| matches!(item, Expr::Tuple(_))) => {
            let tuple = std::mem::replace(expr, Expr::value(Value::Null));
            *expr = tuple_as_call(tuple);
        }
        // A tuple in a lambda's body is ClickHouse's `tuple(...)` too: DataFusion's
        // struct would name its fields `c0`, `c1` and type them Nullable.
        Expr::Lambda(lambda) if options.clickhouse_functions => {
            let _ = exprs_mut(lambda.body.as_mut(), &mut |e: &mut Expr| {
                if matches!(e, Expr::Tuple(_)) {
                    let tuple = std::mem::replace(e, Expr::value(Value::Null));
                    *e = tuple_as_call(tuple);
                }
                ControlFlow::<()>::Continue(())
            });
        }
        // ClickHouse runs `CASE` as `multiIf` (with an operand, on `x = v` for each
        // branch), whose result keeps ClickHouse's types (a Date stays a Date, an Int128
        // an Int128, where DataFusion's own CASE would show their Arrow types). A
        // volatile operand (`CASE rand() % 3 WHEN ...`) must be evaluated once: left as is.
        Expr::Case { operand, conditions, else_result, .. } if options.clickhouse_functions && operand.as_deref().is_none_or(|o| !is_volatile(o)) => {
            let mut args = Vec::with_capacity(conditions.len() * 2 + 1);
            for when in std::mem::take(conditions) {
                args.push(match operand.as_deref() {
                    // `CASE x WHEN NULL` matches a NULL `x`, as ClickHouse's `transform` does.
                    Some(value) if is_null_literal(&when.condition) => function_call("isNull", vec![value.clone()]),
                    Some(value) => function_call("equals", vec![value.clone(), when.condition]),
                    None => when.condition,
                });
                args.push(when.result);
            }
            args.push(else_result.take().map_or_else(|| Expr::value(Value::Null), |e| *e));
            *expr = function_call("multiIf", args);
        }
        // `INTERVAL n unit` is ClickHouse's `toIntervalUnit(n)`, a value of type
        // `IntervalUnit` that keeps its unit (2 weeks are not 14 days to `toStartOfInterval`).
        Expr::Interval(interval) if options.clickhouse_functions => {
            if let Some(call) = interval_call(interval) {
                *expr = call;
            }
        }
        Expr::Subquery(_) if options.clickhouse_functions => crate::subqueries::type_scalar_subquery(expr),
        // ClickHouse reads `inf` and `nan` as Float64 literals.
        Expr::Identifier(ident) if ident.quote_style.is_none() && ["inf", "infinity", "nan"].iter().any(|n| ident.value.eq_ignore_ascii_case(n)) => {
            let text = if ident.value.eq_ignore_ascii_case("nan") { "nan" } else { "inf" };
            *expr = function_call("_CAST", vec![Expr::value(Value::SingleQuotedString(text.to_string())), Expr::value(Value::SingleQuotedString("Float64".to_string()))]);
        }
        Expr::Function(function) => {
            if let [ObjectNamePart::Identifier(ident)] = function.name.0.as_mut_slice() {
                // DataFusion's planner refuses `map()` without arguments before any
                // function sees it; ClickHouse's is the empty Map(Nothing, Nothing).
                let no_arguments = matches!(&function.args, FunctionArguments::List(list) if list.args.is_empty()) || matches!(function.args, FunctionArguments::None);
                if options.clickhouse_functions && ident.quote_style.is_none() && ident.value == "map" && no_arguments {
                    ident.value = EMPTY_MAP_FUNCTION.to_string();
                }
                if ident.quote_style.is_none() {
                    let lower = ident.value.to_ascii_lowercase();
                    if lower != ident.value && options.is_case_insensitive.is_some_and(|f| f(&lower)) {
                        ident.value = lower;
                    }
                }
            }
        }
        // `a || b` is `concat(a, b)` in ClickHouse, for every argument type (an enum's
        // name, an address's text).
        Expr::BinaryOp { left, op: BinaryOperator::StringConcat, right } if options.clickhouse_functions => {
            let left = std::mem::replace(left.as_mut(), Expr::value(Value::Null));
            let right = std::mem::replace(right.as_mut(), Expr::value(Value::Null));
            *expr = function_call("concat", vec![left, right]);
        }
        // `DATE 'x'` and `TIMESTAMP 'x'` are ClickHouse's `toDate('x')` and
        // `toDateTime('x')` (DataFusion's would be a nanosecond timestamp).
        Expr::TypedString(typed) if options.clickhouse_functions => {
            if let Some(function) = typed_string_function(&typed.data_type) {
                *expr = function_call(function, vec![Expr::value(typed.value.value.clone())]);
            }
        }
        // Every type goes to `_CAST`, which reads it with ClickHouse's rules (an unknown
        // one is UNKNOWN_TYPE there).
        Expr::Cast { kind: CastKind::Cast | CastKind::DoubleColon, expr: inner, data_type, format: None, .. } if options.clickhouse_functions => {
            let type_text = clickhouse_type_text(data_type);
            let inner = std::mem::replace(inner.as_mut(), Expr::value(Value::Null));
            *expr = function_call("_CAST", vec![inner, Expr::value(Value::SingleQuotedString(type_text))]);
        }
        _ => {}
    }
}

/// The function ClickHouse reads a typed string literal (`DATE '2020-01-01'`) with.
pub(crate) fn typed_string_function(data_type: &ast::DataType) -> Option<&'static str> {
    match data_type {
        ast::DataType::Date => Some("toDate"),
        ast::DataType::Timestamp(..) => Some("toDateTime"),
        _ => None,
    }
}

/// A parsed type as ClickHouse spells it. User queries have their types as written
/// (see [`crate::casts`]); SQL that Granary generates may have a type sqlparser parsed,
/// which prints `String` as `STRING` and `Int8` as `INT8`, also inside `Nullable(...)`,
/// `LowCardinality(...)`, `Array(...)` and `Map(...)`.
pub(crate) fn clickhouse_type_text(data_type: &ast::DataType) -> String {
    use ast::{ArrayElemTypeDef, DataType};
    match data_type {
        DataType::Custom(name, modifiers) if modifiers.is_empty() => match name.0.as_slice() {
            [ObjectNamePart::Identifier(ident)] if ident.quote_style == Some(crate::casts::TYPE_QUOTE) => ident.value.clone(),
            _ => data_type.to_string(),
        },
        DataType::String(None) => "String".to_string(),
        DataType::Decimal(ast::ExactNumberInfo::PrecisionAndScale(p, s)) => format!("Decimal({p}, {s})"),
        // Keyword types print in upper case (`DATE`), which ClickHouse's type names are not.
        DataType::Date => "Date".to_string(),
        DataType::Date32 => "Date32".to_string(),
        DataType::Datetime(None) => "DateTime".to_string(),
        DataType::Bool | DataType::Boolean => "Bool".to_string(),
        // sqlparser reads ClickHouse's `Int8`/`Int64`/`Float64` as its keywords and prints
        // them in SQL spellings (`INT8` would be PostgreSQL's 8-byte integer).
        DataType::Int8(None) => "Int8".to_string(),
        DataType::Int16 => "Int16".to_string(),
        DataType::Int32 => "Int32".to_string(),
        DataType::Int64 => "Int64".to_string(),
        DataType::Int128 => "Int128".to_string(),
        DataType::Int256 => "Int256".to_string(),
        DataType::Float32 => "Float32".to_string(),
        DataType::Float64 => "Float64".to_string(),
        DataType::Nullable(inner) => format!("Nullable({})", clickhouse_type_text(inner)),
        DataType::LowCardinality(inner) => format!("LowCardinality({})", clickhouse_type_text(inner)),
        DataType::Array(ArrayElemTypeDef::Parenthesis(inner)) => format!("Array({})", clickhouse_type_text(inner)),
        DataType::Map(key, value) => format!("Map({}, {})", clickhouse_type_text(key), clickhouse_type_text(value)),
        DataType::Tuple(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|f| match &f.field_name {
                    Some(name) => format!("{} {}", name, clickhouse_type_text(&f.field_type)),
                    None => clickhouse_type_text(&f.field_type),
                })
                .collect();
            format!("Tuple({})", fields.join(", "))
        }
        DataType::Enum(members, bits) => {
            let quote = |name: &str| format!("'{}'", name.replace('\\', "\\\\").replace('\'', "\\'"));
            let members: Vec<String> = members
                .iter()
                .map(|m| match m {
                    ast::EnumMember::Name(name) => quote(name),
                    ast::EnumMember::NamedValue(name, value) => format!("{} = {value}", quote(name)),
                })
                .collect();
            let family = match bits {
                Some(8) => "Enum8",
                Some(16) => "Enum16",
                _ => "Enum",
            };
            format!("{family}({})", members.join(", "))
        }
        other => other.to_string(),
    }
}

/// Gives the result columns of every SELECT of `body` the names `names`; false (nothing
/// changed) when a SELECT does not list exactly that many expressions.
pub(crate) fn name_result_columns(body: &mut SetExpr, names: &[String]) -> bool {
    fn fits(body: &SetExpr, count: usize) -> bool {
        match body {
            SetExpr::Select(select) => {
                select.projection.len() == count && select.projection.iter().all(|i| matches!(i, SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }))
            }
            SetExpr::Query(query) => fits(&query.body, count),
            SetExpr::SetOperation { left, right, .. } => fits(left, count) && fits(right, count),
            _ => false,
        }
    }
    fn rename(body: &mut SetExpr, names: &[String]) {
        match body {
            SetExpr::Select(select) => {
                for (item, name) in select.projection.iter_mut().zip(names) {
                    let expr = match item {
                        SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => std::mem::replace(expr, Expr::value(Value::Null)),
                        _ => continue,
                    };
                    *item = SelectItem::ExprWithAlias { expr, alias: Ident::new(name.clone()) };
                }
            }
            SetExpr::Query(query) => rename(&mut query.body, names),
            SetExpr::SetOperation { left, right, .. } => {
                rename(left, names);
                rename(right, names);
            }
            _ => {}
        }
    }
    if !fits(body, names.len()) {
        return false;
    }
    rename(body, names);
    true
}

/// `INTERVAL n unit` as `toIntervalUnit(n)`, as ClickHouse's parser reads it (`INTERVAL
/// 'n unit'` was split into that form at token level). `None` for forms ClickHouse has
/// no interval type for (`INTERVAL '1' DAY TO HOUR`).
pub(crate) fn interval_call(interval: &ast::Interval) -> Option<Expr> {
    if interval.last_field.is_some() || interval.fractional_seconds_precision.is_some() {
        return None;
    }
    let unit = match interval.leading_field.as_ref()? {
        ast::DateTimeField::Week(_) => granary_types::IntervalKind::Week,
        field => granary_types::IntervalKind::from_unit_name(&field.to_string())?,
    };
    Some(function_call(&format!("toInterval{}", unit.name()), vec![interval.value.as_ref().clone()]))
}

/// Whether `expr` calls a function whose value differs from call to call.
fn is_volatile(expr: &Expr) -> bool {
    crate::walk::exprs(expr, &mut |e: &Expr| match e {
        Expr::Function(f) if f.name.0.last().is_some_and(|part| {
            let name = part.to_string().to_ascii_lowercase();
            name.starts_with("rand") || name.starts_with("generateuuid") || name.starts_with("generatesnowflake") || name == "generateulid"
        }) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

fn is_null_literal(expr: &Expr) -> bool {
    matches!(expr, Expr::Value(v) if v.value == Value::Null)
}

fn is_number(expr: &Expr) -> bool {
    match expr {
        Expr::Value(v) => matches!(v.value, Value::Number(..)),
        _ => false,
    }
}

pub(crate) fn function_call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Function(ast::Function {
        name: ObjectName(vec![ObjectNamePart::Identifier(Ident::new(name))]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args.into_iter().map(|a| FunctionArg::Unnamed(FunctionArgExpr::Expr(a))).collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// LIMIT and OFFSET must be numbers: a string or NULL literal there is ClickHouse's
/// INVALID_LIMIT_EXPRESSION, in every SELECT of the statement.
fn check_limit_literals(query: &Query) -> Result<()> {
    struct Limits(Option<Error>);
    impl ast::Visitor for Limits {
        type Break = ();
        fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
            let (limit, offset) = match &query.limit_clause {
                Some(LimitClause::LimitOffset { limit, offset, .. }) => (limit.as_ref(), offset.as_ref().map(|o| &o.value)),
                Some(LimitClause::OffsetCommaLimit { offset, limit }) => (Some(limit), Some(offset)),
                None => (None, None),
            };
            for (what, expr) in [("LIMIT", limit), ("OFFSET", offset)] {
                if let Some(Expr::Value(v)) = expr {
                    if matches!(v.value, Value::SingleQuotedString(_) | Value::DoubleQuotedString(_) | Value::Null | Value::Boolean(_)) {
                        let actual = crate::names::column_name(&Expr::Value(v.clone()));
                        self.0 = Some(Error::new(
                            ErrorCode::INVALID_LIMIT_EXPRESSION,
                            format!("{what} expression must be constant with numeric type. Actual: {actual}."),
                        ));
                        return ControlFlow::Break(());
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut limits = Limits(None);
    let _ = walk(query, &mut limits);
    match limits.0 {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `t.1`, `t.1.2`, `(1, 'a').2`, `arr[1].1` (the lexer made `.1` the field
/// `__tuple_element_1`) as `tupleElement(.., 1)`; a named field after a numbered one
/// (`t.1.name`) is `tupleElement(.., 'name')`. Plain `t.name` stays a column reference
/// or struct field for DataFusion.
fn tuple_element_access(expr: &mut Expr) {
    let element = |name: &str| -> Option<Expr> {
        name.strip_prefix(crate::lexer::TUPLE_ELEMENT_PREFIX).map(|index| Expr::value(Value::Number(index.to_string(), false)))
    };
    match expr {
        Expr::CompoundIdentifier(parts) => {
            let Some(first) = parts.iter().position(|p| p.quote_style.is_none() && element(&p.value).is_some()) else { return };
            if first == 0 {
                return;
            }
            let rest = parts.split_off(first);
            let mut base = if parts.len() == 1 { Expr::Identifier(parts.remove(0)) } else { Expr::CompoundIdentifier(std::mem::take(parts)) };
            for part in rest {
                let key = match element(&part.value) {
                    Some(index) if part.quote_style.is_none() => index,
                    _ => Expr::value(Value::SingleQuotedString(part.value)),
                };
                base = function_call("tupleElement", vec![base, key]);
            }
            *expr = base;
        }
        Expr::CompoundFieldAccess { root, access_chain } => {
            let numbered = |a: &ast::AccessExpr| matches!(a, ast::AccessExpr::Dot(Expr::Identifier(i)) if i.quote_style.is_none() && element(&i.value).is_some());
            if !access_chain.iter().any(numbered) {
                return;
            }
            let mut base = std::mem::replace(root.as_mut(), Expr::value(Value::Null));
            let mut pending: Vec<ast::AccessExpr> = Vec::new();
            for access in std::mem::take(access_chain) {
                let index = match &access {
                    ast::AccessExpr::Dot(Expr::Identifier(i)) if i.quote_style.is_none() => element(&i.value),
                    _ => None,
                };
                match index {
                    Some(index) => {
                        if !pending.is_empty() {
                            base = Expr::CompoundFieldAccess { root: Box::new(base), access_chain: std::mem::take(&mut pending) };
                        }
                        base = function_call("tupleElement", vec![base, index]);
                    }
                    None => pending.push(access),
                }
            }
            if !pending.is_empty() {
                base = Expr::CompoundFieldAccess { root: Box::new(base), access_chain: pending };
            }
            *expr = base;
        }
        _ => {}
    }
}

/// FETCH clauses of `query` and of every query nested in it, innermost first.
fn fetch_in_every_query(query: &mut Query) -> Result<()> {
    struct Fetches;
    impl ast::VisitorMut for Fetches {
        type Break = Error;
        fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<Error> {
            match fetch_as_limit(query) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(e),
            }
        }
    }
    match walk_mut(query, &mut Fetches) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// `[OFFSET n ROWS] FETCH FIRST|NEXT m ROWS ONLY` is `LIMIT m [OFFSET n]` (the standard
/// spelling ClickHouse accepts; DataFusion plans only LIMIT). `WITH TIES` and `PERCENT`
/// are refused rather than ignored.
fn fetch_as_limit(query: &mut Query) -> Result<()> {
    let Some(fetch) = query.fetch.take() else { return Ok(()) };
    if fetch.percent {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "FETCH ... PERCENT is not supported yet"));
    }
    if fetch.with_ties {
        return with_ties(query, fetch.quantity);
    }
    let offset = match query.limit_clause.take() {
        None => None,
        Some(LimitClause::LimitOffset { limit: None, offset, limit_by }) if limit_by.is_empty() => offset,
        Some(_) => return Err(Error::new(ErrorCode::SYNTAX_ERROR, "Syntax error: FETCH cannot be used together with LIMIT")),
    };
    let limit = fetch.quantity.unwrap_or_else(|| Expr::value(Value::Number("1".to_string(), false)));
    query.limit_clause = Some(LimitClause::LimitOffset { limit: Some(limit), offset, limit_by: Vec::new() });
    Ok(())
}

/// `ORDER BY k LIMIT n [OFFSET m] WITH TIES`: the n rows after the first m, and every
/// further row whose ORDER BY keys equal those of the last of them. Planned with window
/// functions over the ORDER BY:
///
/// ```text
/// SELECT .. ORDER BY k LIMIT n OFFSET m WITH TIES
///   =>  SELECT * EXCEPT (r, i) FROM (SELECT .., rank() OVER (ORDER BY k) AS r, row_number() OVER (ORDER BY k) AS i ...)
///       WHERE i > m AND r <= m + n ORDER BY i
/// ```
///
/// (a tie of the last kept row has its rank); the helper columns are left out of the
/// result by `* EXCEPT`.
fn with_ties(query: &mut Query, quantity: Option<Expr>) -> Result<()> {
    let limit = limit_number(quantity.as_ref(), "LIMIT")?;
    let offset = match query.limit_clause.take() {
        None => 0,
        Some(LimitClause::LimitOffset { limit: None, offset, limit_by }) if limit_by.is_empty() => limit_number(offset.as_ref().map(|o| &o.value), "OFFSET")?,
        Some(_) => return Err(Error::new(ErrorCode::SYNTAX_ERROR, "Syntax error: FETCH cannot be used together with LIMIT")),
    };
    if query.order_by.is_none() {
        return Err(Error::new(ErrorCode::WITH_TIES_WITHOUT_ORDER_BY, "Can not use WITH TIES without ORDER BY"));
    }
    let keys = order_keys_as_written(query)?;
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "WITH TIES is supported on a single SELECT"));
    };
    if select.distinct.is_some() || select.projection.iter().any(|i| !matches!(i, SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. })) {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "WITH TIES is not supported with DISTINCT or * in the SELECT list"));
    }
    let window = format!("OVER (ORDER BY {})", keys.join(", "));
    let rank = format!("{LIMIT_BY_HIDDEN_PREFIX}rank");
    let row = format!("{LIMIT_BY_HIDDEN_PREFIX}row");
    add_projection_items(select, &format!("rank() {window} AS {rank}, row_number() {window} AS {row}"))?;
    let filter = format!("{row} > {offset} AND {rank} <= {}", offset + limit);
    wrap_filtered(query, &filter, &[&rank, &row], &row)
}

/// `LIMIT n [OFFSET m] BY keys` in a subquery (the outermost query's is applied to the
/// result stream instead, see [`take_limit_by`]), with window functions:
///
/// ```text
/// SELECT .. ORDER BY o LIMIT n OFFSET m BY k
///   =>  SELECT * EXCEPT (b, i, k0) FROM (
///         SELECT *, row_number() OVER (PARTITION BY k0 ORDER BY i) AS b
///         FROM (SELECT .., row_number() OVER (ORDER BY o) AS i, k AS k0 ...))
///       WHERE b > m AND b <= m + n ORDER BY i
/// ```
fn limit_by_in_nested_queries(query: &mut Query) -> Result<()> {
    struct Nested;
    impl ast::VisitorMut for Nested {
        type Break = Error;
        fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<Error> {
            match limit_by_with_window(query) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(e),
            }
        }
    }
    match walk_mut(query, &mut Nested) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

fn limit_by_with_window(query: &mut Query) -> Result<()> {
    let Some(LimitClause::LimitOffset { limit_by, .. }) = &query.limit_clause else { return Ok(()) };
    if limit_by.is_empty() {
        return Ok(());
    }
    let Some(LimitClause::LimitOffset { limit, offset, limit_by }) = query.limit_clause.take() else { return Ok(()) };
    let limit = limit_number(limit.as_ref(), "LIMIT")?;
    let offset = limit_number(offset.as_ref().map(|o| &o.value), "OFFSET")?;
    let keys = order_keys_as_written(query)?;
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "LIMIT BY is supported on a single SELECT"));
    };
    if select.distinct.is_some() || select.projection.iter().any(|i| !matches!(i, SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. })) {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "LIMIT BY in a subquery is not supported with DISTINCT or * in its SELECT list"));
    }
    let order = if keys.is_empty() { String::new() } else { format!("ORDER BY {}", keys.join(", ")) };
    let in_group = format!("{LIMIT_BY_HIDDEN_PREFIX}in_group");
    let row = format!("{LIMIT_BY_HIDDEN_PREFIX}row");
    // The rows are numbered in a query of their own, before the partitioned window sorts
    // them by the keys: without ORDER BY the number is the input order, which the result
    // keeps (`LIMIT 2 BY k` keeps the first two rows of each k, in their order).
    add_projection_items(select, &format!("row_number() OVER ({order}) AS {row}"))?;
    let mut partition = Vec::with_capacity(limit_by.len());
    for (i, expr) in limit_by.into_iter().enumerate() {
        let key = format!("{LIMIT_BY_HIDDEN_PREFIX}key_{i}");
        select.projection.push(SelectItem::ExprWithAlias { expr, alias: Ident::new(key.clone()) });
        partition.push(key);
    }
    wrap_query(
        query,
        &format!("SELECT *, row_number() OVER (PARTITION BY {} ORDER BY {row}) AS {in_group} FROM (SELECT 1) AS __limit_by_rows", partition.join(", ")),
        "__limit_by_rows",
    )?;
    let filter = format!("{in_group} > {offset} AND {in_group} <= {}", offset + limit);
    let mut hidden: Vec<&str> = vec![&in_group, &row];
    hidden.extend(partition.iter().map(String::as_str));
    wrap_filtered(query, &filter, &hidden, &row)
}

/// `query` becomes `text` (a SELECT whose FROM is `(SELECT 1) AS alias`) over `query`
/// as the derived table `alias`.
fn wrap_query(query: &mut Query, text: &str, alias: &str) -> Result<()> {
    let inner = Query { settings: None, format_clause: None, ..query.clone() };
    let mut outer = Parser::new(&ClickHouseDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_query())
        .map_err(|e| Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {e}")))?;
    if let SetExpr::Select(outer_select) = outer.body.as_mut() {
        if let Some(from) = outer_select.from.first_mut() {
            let alias = ast::TableAlias { explicit: true, name: Ident::new(alias), columns: Vec::new(), at: None };
            from.relation = ast::TableFactor::Derived { lateral: false, subquery: Box::new(inner), alias: Some(alias), sample: None };
        }
    }
    outer.settings = query.settings.take();
    outer.format_clause = query.format_clause.take();
    *query = *outer;
    Ok(())
}

/// The ORDER BY keys of `query` as text, positions (`ORDER BY 2`) replaced by the SELECT
/// item they name; the ORDER BY is taken off the query.
fn order_keys_as_written(query: &mut Query) -> Result<Vec<String>> {
    let Some(order_by) = query.order_by.take() else { return Ok(Vec::new()) };
    let ast::OrderByKind::Expressions(keys) = &order_by.kind else {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "ORDER BY ALL is not supported here"));
    };
    if keys.iter().any(|k| k.with_fill.is_some()) {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "WITH FILL is not supported together with WITH TIES or LIMIT BY in a subquery"));
    }
    let projection = match query.body.as_ref() {
        SetExpr::Select(select) => select.projection.clone(),
        _ => Vec::new(),
    };
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        let mut key = key.clone();
        if let Expr::Value(v) = &key.expr {
            if let Value::Number(n, _) = &v.value {
                let position: usize = n.parse().map_err(|_| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Bad ORDER BY position {n}")))?;
                key.expr = match projection.get(position.wrapping_sub(1)) {
                    Some(SelectItem::UnnamedExpr(e)) | Some(SelectItem::ExprWithAlias { expr: e, .. }) => e.clone(),
                    _ => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("ORDER BY position {position} is not in the SELECT list"))),
                };
            }
        }
        out.push(key.to_string());
    }
    Ok(out)
}

/// Appends `items` (SQL text of SELECT items) to the SELECT list.
fn add_projection_items(select: &mut ast::Select, items: &str) -> Result<()> {
    let mut parsed = Parser::new(&ClickHouseDialect {})
        .try_with_sql(&format!("SELECT {items}"))
        .and_then(|mut p| p.parse_query())
        .map_err(|e| Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {e}")))?;
    if let SetExpr::Select(helper) = parsed.body.as_mut() {
        select.projection.append(&mut helper.projection);
    }
    Ok(())
}

/// `query` becomes `SELECT * EXCEPT (hidden) FROM (query) WHERE filter ORDER BY order`,
/// keeping its SETTINGS and FORMAT clauses outside.
fn wrap_filtered(query: &mut Query, filter: &str, hidden: &[&str], order: &str) -> Result<()> {
    let inner = Query { settings: None, format_clause: None, ..query.clone() };
    let text = format!("SELECT * EXCEPT ({}) FROM (SELECT 1) AS __limited WHERE {filter} ORDER BY {order}", hidden.join(", "));
    let mut outer = Parser::new(&ClickHouseDialect {})
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_query())
        .map_err(|e| Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {e}")))?;
    if let SetExpr::Select(outer_select) = outer.body.as_mut() {
        if let Some(from) = outer_select.from.first_mut() {
            let alias = ast::TableAlias { explicit: true, name: Ident::new("__limited"), columns: Vec::new(), at: None };
            from.relation = ast::TableFactor::Derived { lateral: false, subquery: Box::new(inner), alias: Some(alias), sample: None };
        }
    }
    outer.settings = query.settings.take();
    outer.format_clause = query.format_clause.take();
    *query = *outer;
    Ok(())
}

fn take_limit_by(query: &mut Query) -> Result<Option<LimitBy>> {
    let Some(LimitClause::LimitOffset { limit_by, .. }) = &query.limit_clause else { return Ok(None) };
    if limit_by.is_empty() {
        return Ok(None);
    }
    let Some(LimitClause::LimitOffset { limit, offset, limit_by }) = query.limit_clause.take() else { return Ok(None) };
    let mut columns = Vec::with_capacity(limit_by.len());
    for expr in &limit_by {
        let name = column_name(expr);
        let hidden = match query.body.as_mut() {
            SetExpr::Select(select) if select.distinct.is_none() && !result_has_column(&select.projection, expr, &name) => {
                // Computed as an extra result column, cut off after LIMIT BY used it.
                let hidden = format!("{LIMIT_BY_HIDDEN_PREFIX}{}", columns.len());
                select.projection.push(SelectItem::ExprWithAlias { expr: expr.clone(), alias: Ident::with_quote('`', hidden.clone()) });
                Some(hidden)
            }
            _ => None,
        };
        columns.push(hidden.unwrap_or(name));
    }
    Ok(Some(LimitBy {
        limit: limit_number(limit.as_ref(), "LIMIT")?,
        offset: limit_number(offset.as_ref().map(|o| &o.value), "OFFSET")?,
        columns,
        then: None,
    }))
}

/// Names of the extra result columns that carry LIMIT BY keys not selected by the query.
/// `(a, (b, c))` as `tuple(a, tuple(b, c))`; other expressions unchanged.
fn tuple_as_call(expr: Expr) -> Expr {
    match expr {
        Expr::Tuple(items) => function_call("tuple", items.into_iter().map(tuple_as_call).collect()),
        other => other,
    }
}

/// What `map()` without arguments is called for DataFusion (an alias of granary-functions'
/// `map`).
pub const EMPTY_MAP_FUNCTION: &str = "__granary_empty_map";

pub const LIMIT_BY_HIDDEN_PREFIX: &str = "__granary_limit_by_";

/// Whether the SELECT list yields a column that `expr` (named `name`) refers to: an alias
/// or column of that name, the same expression unaliased, or any column under `*`.
fn result_has_column(projection: &[SelectItem], expr: &Expr, name: &str) -> bool {
    projection.iter().any(|item| match item {
        SelectItem::ExprWithAlias { alias, .. } => alias.value == name,
        SelectItem::UnnamedExpr(e) => column_name(e) == name,
        SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => matches!(expr, Expr::Identifier(_) | Expr::CompoundIdentifier(_)),
        _ => false,
    })
}

/// A LIMIT or OFFSET of a LIMIT BY query: a non-negative integer literal (0 when absent).
pub(crate) fn limit_number(e: Option<&Expr>, what: &str) -> Result<u64> {
    match e {
        None => Ok(0),
        Some(Expr::Value(v)) => match &v.value {
            Value::Number(n, _) => n.parse().map_err(|_| bad_limit(what)),
            _ => Err(bad_limit(what)),
        },
        Some(_) => Err(bad_limit(what)),
    }
}

fn bad_limit(what: &str) -> Error {
    Error::new(ErrorCode::INVALID_LIMIT_EXPRESSION, format!("{what} of LIMIT BY must be a non-negative integer literal"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn rewrite(sql: &str, options: &RewriteOptions<'_>) -> (String, Option<LimitBy>) {
        let mut q = Parser::new(&ClickHouseDialect {}).try_with_sql(sql).unwrap().parse_query().unwrap();
        let limit_by = rewrite_query(&mut q, options).unwrap();
        (q.to_string(), limit_by)
    }

    #[test]
    fn names_prewhere_and_limit_by() {
        let ci = |n: &str| n == "sum";
        let options = RewriteOptions { is_case_insensitive: Some(&ci), clickhouse_functions: true };
        let (sql, limit_by) = rewrite("SELECT SUM(x), a, CAST(b AS UInt64) FROM t PREWHERE a = 1 WHERE b > 2 ORDER BY a LIMIT 2 BY a", &options);
        assert_eq!(
            sql,
            "SELECT sum(x) AS `SUM(x)`, a, _CAST(b, 'UInt64') AS `CAST(b, 'UInt64')` FROM t WHERE (a = 1) AND (b > 2) ORDER BY a"
        );
        assert_eq!(limit_by, Some(LimitBy { limit: 2, offset: 0, columns: vec!["a".into()], then: None }));
    }

    #[test]
    fn group_array_takes_the_order_of_a_sorted_subquery() {
        let (sql, _) = rewrite("SELECT k, groupArray(x) FROM (SELECT * FROM t ORDER BY x DESC, t.y) GROUP BY k", &RewriteOptions::default());
        assert!(sql.starts_with("SELECT k, groupArray(x ORDER BY x DESC, y) AS `groupArray(x)`"), "{sql}");
        // An expression key cannot be named outside the subquery; a key it does not output neither.
        for untouched in ["SELECT groupArray(x) FROM (SELECT x FROM t ORDER BY -x)", "SELECT groupArray(x) FROM (SELECT x FROM t ORDER BY y)"] {
            let (sql, _) = rewrite(untouched, &RewriteOptions::default());
            assert!(!sql.contains("groupArray(x ORDER BY"), "{sql}");
        }
    }

    #[test]
    fn grouping_keys_match_the_projection() {
        let (sql, _) = rewrite("SELECT if(n = 0, NULL, n) AS a, count() FROM t GROUP BY ROLLUP(a)", &RewriteOptions::default());
        assert_eq!(sql, "SELECT if(equals(n, 0), NULL, n) AS a, count() AS `count()` FROM t GROUP BY ROLLUP ((if(equals(n, 0), NULL, n)))");
        let (sql, _) = rewrite("SELECT n = 0 AS e, count() FROM t GROUP BY e, n < 2 WITH CUBE", &RewriteOptions::default());
        assert_eq!(sql, "SELECT equals(n, 0) AS e, count() AS `count()` FROM t GROUP BY CUBE ((equals(n, 0)), less(n, 2))");
        let (sql, _) = rewrite("SELECT n IN (1, 2), count() FROM t GROUP BY GROUPING SETS ((n IN (1, 2)), ())", &RewriteOptions::default());
        assert!(sql.ends_with("GROUP BY GROUPING SETS ((toUInt8((n IN (1, 2)))), ())"), "{sql}");
    }

    #[test]
    fn comparisons_in_projection_only() {
        let (sql, _) = rewrite("SELECT a = 1, if(b < 2, 1, 0) FROM t WHERE a = 1", &RewriteOptions::default());
        assert_eq!(sql, "SELECT equals(a, 1) AS `equals(a, 1)`, if(less(b, 2), 1, 0) AS `if(less(b, 2), 1, 0)` FROM t WHERE a = 1");
    }
}
