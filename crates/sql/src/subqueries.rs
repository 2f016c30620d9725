//! Subqueries in expressions as ClickHouse types and evaluates them.
//!
//! * A scalar subquery `(SELECT x ...)` is `Nullable` (no row gives NULL), and one that
//!   selects several columns is the tuple of them: `(SELECT 'a', 1)` is `('a', 1)`.
//! * `EXISTS (q)` and `x IN (q)` in a SELECT list are values (UInt8). DataFusion plans
//!   them only as filters (semi/anti joins), so in a SELECT list they become scalar
//!   subqueries over `q`: `(SELECT greater(count(), 0) FROM (q))` and
//!   `has((SELECT groupArray(c) FROM (q)), x)`. In WHERE they stay joins.

use std::ops::{ControlFlow, DerefMut};

use datafusion::sql::sqlparser::ast::{self, Expr, Query, SelectItem, SetExpr, Value, VisitorMut};

use crate::walk::walk_mut;
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;

use crate::rewrite::function_call;

/// `(SELECT a, b ...)` as `(SELECT __named_tuple('a', a, 'b', b) ...)`, the tuple named
/// after the columns as in ClickHouse; any other scalar subquery wrapped in `toNullable`
/// (which leaves arrays, tuples and maps as they are), its column named: DataFusion
/// names an aggregate over an unaliased literal column (`sum((SELECT 1))`) two ways.
pub(crate) fn type_scalar_subquery(expr: &mut Expr) {
    let Expr::Subquery(query) = expr else { return };
    if let SetExpr::Select(select) = query.body.as_mut() {
        let plain_items = select.projection.iter().all(|i| matches!(i, SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }));
        if select.projection.len() > 1 && plain_items {
            // With an ORDER BY or LIMIT the columns' aliases may be used after the SELECT
            // list (`ORDER BY n`): the tuple is then made over the query as a derived
            // table. Otherwise in the same SELECT, which keeps a correlated subquery
            // where DataFusion decorrelates it.
            let wrap = query.order_by.is_some() || query.limit_clause.is_some() || query.fetch.is_some();
            let mut items = Vec::with_capacity(2 * select.projection.len());
            let mut inner_items = Vec::with_capacity(select.projection.len());
            for item in std::mem::take(&mut select.projection) {
                let (name, e) = match item {
                    SelectItem::UnnamedExpr(e) => (crate::names::column_name(&e), e),
                    SelectItem::ExprWithAlias { expr: e, alias } => (crate::names::displayed_name(&alias.value).to_string(), e),
                    _ => continue,
                };
                items.push(Expr::value(Value::SingleQuotedString(name.clone())));
                if wrap {
                    let alias = ast::Ident::with_quote('`', name);
                    items.push(Expr::Identifier(alias.clone()));
                    inner_items.push(SelectItem::ExprWithAlias { expr: e, alias });
                } else {
                    items.push(e);
                }
            }
            if !wrap {
                select.projection = vec![SelectItem::UnnamedExpr(function_call("__named_tuple", items))];
                may_be_empty(expr);
                return;
            }
            select.projection = inner_items;
            if let Some(Expr::Subquery(mut outer)) = over_subquery("SELECT 1 FROM (SELECT 1) AS __scalar_tuple", query, None) {
                if let SetExpr::Select(outer_select) = outer.body.as_mut() {
                    outer_select.projection = vec![SelectItem::UnnamedExpr(function_call("__named_tuple", items))];
                    *expr = Expr::Subquery(outer);
                }
            }
            may_be_empty(expr);
            return;
        }
        if let [item @ SelectItem::UnnamedExpr(_)] = select.projection.as_mut_slice() {
            if let SelectItem::UnnamedExpr(e) = std::mem::replace(item, SelectItem::Wildcard(ast::WildcardAdditionalOptions::default())) {
                let alias = ast::Ident::with_quote('`', crate::names::column_name(&e));
                *item = SelectItem::ExprWithAlias { expr: e, alias };
            }
        }
    }
    let subquery = std::mem::replace(expr, Expr::value(Value::Null));
    *expr = function_call("toNullable", vec![subquery]);
}

/// The tuple of a scalar subquery of several columns as `__scalar_tuple(..)`, which
/// may be NULL (no row) while its type stays the named tuple ClickHouse gives a
/// subquery with a row.
fn may_be_empty(expr: &mut Expr) {
    let subquery = std::mem::replace(expr, Expr::value(Value::Null));
    *expr = function_call("__scalar_tuple", vec![subquery]);
}

/// Rewrites `EXISTS` and `IN (subquery)` in the SELECT lists of `query` and of every
/// query nested in it.
pub(crate) fn predicates_in_select_lists(query: &mut Query) {
    struct Lists;
    impl VisitorMut for Lists {
        type Break = ();
        fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            in_set_expr(query.body.deref_mut());
            ControlFlow::Continue(())
        }
    }
    fn in_set_expr(body: &mut SetExpr) {
        match body {
            SetExpr::Select(select) => {
                for item in select.projection.iter_mut() {
                    if let SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } = item {
                        let _ = crate::walk::exprs_outside_subqueries_mut(expr, &mut |e| {
                            predicate_as_value(e);
                            ControlFlow::<()>::Continue(())
                        });
                    }
                }
            }
            SetExpr::SetOperation { left, right, .. } => {
                in_set_expr(left);
                in_set_expr(right);
            }
            _ => {}
        }
    }
    let _ = walk_mut(query, &mut Lists);
}

// The expressions of one SELECT item are visited but not those of subqueries in it: a
// subquery's own SELECT list is rewritten when its query is visited, and its WHERE
// (`(SELECT count() FROM t WHERE x IN (SELECT ...))`) keeps `IN` as a filter.
fn predicate_as_value(expr: &mut Expr) {
    match expr {
        Expr::Exists { subquery, negated } => {
            let test = |count: Expr| if *negated { function_call("equals", vec![count, number("0")]) } else { function_call("greater", vec![count, number("0")]) };
            if let Some(select) = plain_select(subquery) {
                select.projection = vec![SelectItem::UnnamedExpr(test(function_call("count", Vec::new())))];
                *expr = Expr::Subquery(subquery.clone());
                return;
            }
            let text = format!("SELECT {} FROM (SELECT 1) AS __exists", test(function_call("count", Vec::new())));
            if let Some(scalar) = over_subquery(&text, subquery, None) {
                *expr = scalar;
            }
        }
        Expr::InSubquery { expr: probe, subquery, negated } if !matches!(probe.as_ref(), Expr::Tuple(_)) => {
            // ClickHouse: NULL IN (...) is NULL; NULLs in the set are never matched.
            if matches!(probe.as_ref(), Expr::Value(v) if v.value == Value::Null) {
                *expr = Expr::value(Value::Null);
                return;
            }
            let column = ast::TableAlias {
                explicit: true,
                name: ast::Ident::new("__in_set"),
                columns: vec![ast::TableAliasColumnDef::from_name("__in_value")],
                at: None,
            };
            let set = match plain_select(subquery) {
                Some(select) if select.projection.len() == 1 => {
                    let (SelectItem::UnnamedExpr(value) | SelectItem::ExprWithAlias { expr: value, .. }) = select.projection.remove(0) else { return };
                    select.projection = vec![SelectItem::UnnamedExpr(function_call("groupArray", vec![value]))];
                    Expr::Subquery(subquery.clone())
                }
                _ => match over_subquery("SELECT groupArray(__in_value) FROM (SELECT 1) AS __in_set", subquery, Some(column)) {
                    Some(set) => set,
                    None => return,
                },
            };
            let probe = std::mem::replace(probe.as_mut(), Expr::value(Value::Null));
            let found = function_call("has", vec![set, probe]);
            *expr = if *negated { function_call("not", vec![found]) } else { found };
        }
        _ => {}
    }
}

fn number(text: &str) -> Expr {
    Expr::value(Value::Number(text.to_string(), false))
}

/// The SELECT of `query` when its result rows are its FROM's rows filtered (no
/// grouping, aggregate, window, DISTINCT or LIMIT) and it selects only columns and
/// literals: then `EXISTS`/`IN` can count or collect those rows in the same SELECT,
/// which keeps a correlated subquery correlated at the level DataFusion decorrelates.
/// Anything else is wrapped as a derived table (fine for uncorrelated subqueries).
fn plain_select(query: &mut Query) -> Option<&mut ast::Select> {
    if query.limit_clause.is_some() || query.fetch.is_some() || query.with.is_some() {
        return None;
    }
    let SetExpr::Select(select) = query.body.as_mut() else { return None };
    let grouped = !matches!(&select.group_by, ast::GroupByExpr::Expressions(keys, modifiers) if keys.is_empty() && modifiers.is_empty());
    if grouped || select.having.is_some() || select.distinct.is_some() || !select.named_window.is_empty() || select.qualify.is_some() {
        return None;
    }
    let simple = select.projection.iter().all(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
            matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_))
        }
        SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => true,
        _ => false,
    });
    simple.then_some(select.as_mut())
}

/// The scalar subquery `template` (one SELECT from a placeholder derived table) with
/// `subquery` as its derived table.
fn over_subquery(template: &str, subquery: &Query, alias: Option<ast::TableAlias>) -> Option<Expr> {
    let mut outer = Parser::new(&ClickHouseDialect {}).try_with_sql(template).and_then(|mut p| p.parse_query()).ok()?;
    let SetExpr::Select(select) = outer.body.as_mut() else { return None };
    let from = select.from.first_mut()?;
    let alias = match (alias, &from.relation) {
        (Some(alias), _) => Some(alias),
        (None, ast::TableFactor::Derived { alias, .. }) => alias.clone(),
        _ => None,
    };
    let mut inner = subquery.clone();
    // Naming the inner SELECT's column itself, when it has one, rather than through the
    // derived table's column list: DataFusion loses a literal's column (`SELECT 1`) behind
    // such a list once the subquery is decorrelated into a join.
    let alias = match alias {
        Some(alias) if alias.columns.len() == 1 && crate::rewrite::name_result_columns(&mut inner.body, &[alias.columns[0].name.value.clone()]) => {
            Some(ast::TableAlias { columns: Vec::new(), ..alias })
        }
        other => other,
    };
    from.relation = ast::TableFactor::Derived { lateral: false, subquery: Box::new(inner), alias, sample: None };
    Some(Expr::Subquery(outer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(sql: &str) -> Query {
        *Parser::new(&ClickHouseDialect {}).try_with_sql(sql).unwrap().parse_query().unwrap()
    }

    #[test]
    fn select_list_predicates_become_scalar_subqueries() {
        let mut q = query("SELECT EXISTS (SELECT 1 FROM t), x IN (SELECT y FROM u), NULL IN (SELECT 1) FROM v WHERE z IN (SELECT 1)");
        predicates_in_select_lists(&mut q);
        let text = q.to_string();
        assert!(text.contains("(SELECT greater(count(), 0) FROM t)"), "{text}");
        let mut q = query("SELECT EXISTS (SELECT max(a) FROM t)");
        predicates_in_select_lists(&mut q);
        assert!(q.to_string().contains("(SELECT greater(count(), 0) FROM (SELECT max(a) FROM t) AS __exists)"), "{q}");
        assert!(text.contains("has((SELECT groupArray(y) FROM u), x)"), "{text}");
        assert!(text.contains(", NULL FROM v WHERE z IN (SELECT 1)"), "{text}");
    }

    #[test]
    fn scalar_subqueries_are_nullable_or_tuples() {
        let mut one = Expr::Subquery(Box::new(query("SELECT 1")));
        type_scalar_subquery(&mut one);
        assert_eq!(one.to_string(), "toNullable((SELECT 1 AS `1`))");
        let mut two = Expr::Subquery(Box::new(query("SELECT x, 1 AS n FROM t")));
        type_scalar_subquery(&mut two);
        assert_eq!(two.to_string(), "__scalar_tuple((SELECT __named_tuple('x', x, 'n', 1) FROM t))");
        let mut ordered = Expr::Subquery(Box::new(query("SELECT x AS n, 1 FROM t ORDER BY n LIMIT 1")));
        type_scalar_subquery(&mut ordered);
        assert_eq!(ordered.to_string(), "__scalar_tuple((SELECT __named_tuple('n', `n`, '1', `1`) FROM (SELECT x AS `n`, 1 AS `1` FROM t ORDER BY n LIMIT 1) AS __scalar_tuple))");
    }
}
