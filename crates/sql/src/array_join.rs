//! ClickHouse's `ARRAY JOIN` clause as DataFusion's `unnest`.
//!
//! ```text
//! SELECT .. FROM t [AS x] ARRAY JOIN arr AS a, nums AS n WHERE ..
//!   =>  SELECT .. FROM (SELECT *, unnest(arr) AS a, unnest(nums) AS n FROM t [AS x]) AS x WHERE ..
//! SELECT .. FROM t ARRAY JOIN arr
//!   =>  SELECT .. FROM (SELECT * REPLACE (unnest(arr) AS arr) FROM t) AS t
//! ```
//!
//! Each row of the left side becomes one row per element; several arrays are zipped, as
//! in ClickHouse; rows with empty arrays are dropped, or with `LEFT ARRAY JOIN` kept with
//! the element type's default (`unnest(emptyArrayToSingle(arr))`). Without an alias the element takes
//! the array's name, as ClickHouse does. The derived table keeps the left table's name
//! or alias, so `t.col` still resolves. sqlparser reads `ARRAY JOIN a AS x, b AS y` as
//! an array join of `a` followed by a comma join of a "table" `b`: FROM items after an
//! array join are taken as more arrays.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{self, Expr, JoinOperator, Select, SelectItem, TableFactor, TableWithJoins};
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;
use granary_common::{Error, ErrorCode, Result};

use crate::walk::{exprs, exprs_mut};

/// Rewrites the ARRAY JOIN of `select`, if it has one.
pub(crate) fn rewrite_array_join(select: &mut Select) -> Result<()> {
    let Some(first) = select.from.first() else { return Ok(()) };
    let Some(position) = first.joins.iter().position(|j| is_array_join(&j.join_operator)) else { return Ok(()) };
    let mut from = std::mem::take(&mut select.from);
    let mut head = from.remove(0);
    let array_joins = head.joins.split_off(position);
    let mut arrays = Vec::new();
    let mut left = false;
    for join in array_joins {
        match join.join_operator {
            JoinOperator::ArrayJoin | JoinOperator::InnerArrayJoin => arrays.push(array_of(&join.relation)?),
            JoinOperator::LeftArrayJoin => {
                left = true;
                arrays.push(array_of(&join.relation)?);
            }
            _ => return Err(Error::new(ErrorCode::SYNTAX_ERROR, "A JOIN after ARRAY JOIN is not supported")),
        }
    }
    // `ARRAY JOIN a AS x, b AS y`: the comma items are more arrays.
    for item in from.drain(..) {
        if !item.joins.is_empty() {
            return Err(Error::new(ErrorCode::SYNTAX_ERROR, "Unexpected JOIN in the list of ARRAY JOIN expressions"));
        }
        arrays.push(array_of(&item.relation)?);
    }
    let alias = relation_name(&head);
    let mut added = Vec::new();
    let mut replaced = Vec::new();
    for (expr, name) in &arrays {
        // LEFT ARRAY JOIN keeps rows with empty arrays, with the element's default.
        let unnested = if left { format!("unnest(emptyArrayToSingle({expr}))") } else { format!("unnest({expr})") };
        match name {
            Some(alias) => added.push(format!("{unnested} AS {alias}")),
            None => {
                let column = element_name(expr, alias.as_ref())?;
                replaced.push(format!("{unnested} AS `{column}`"));
            }
        }
    }
    // `SELECT *` does not show ARRAY JOIN aliases, as in ClickHouse.
    let aliases: Vec<ast::Ident> = arrays.iter().filter_map(|(_, name)| name.clone()).collect();
    if let Some(first) = aliases.first() {
        for item in select.projection.iter_mut() {
            match item {
                SelectItem::Wildcard(options) => {
                    let except = options.opt_except.get_or_insert_with(|| ast::ExceptSelectItem { first_element: first.clone(), additional_elements: Vec::new() });
                    let listed: Vec<String> = std::iter::once(&except.first_element).chain(&except.additional_elements).map(|i| i.value.clone()).collect();
                    except.additional_elements.extend(aliases.iter().filter(|a| !listed.contains(&a.value)).cloned());
                }
                // `* EXCEPT (..) APPLY(..)`: the aliases leave the `*` before its transformers.
                SelectItem::UnnamedExpr(expr) => crate::column_transformers::exclude_from_wildcard(expr, &aliases)?,
                _ => {}
            }
        }
    }
    let mut projection = if replaced.is_empty() { "*".to_string() } else { format!("* REPLACE ({})", replaced.join(", ")) };
    for item in added {
        projection.push_str(", ");
        projection.push_str(&item);
    }
    let text = format!("SELECT {projection} FROM {head}");
    let subquery = match Parser::parse_sql(&ClickHouseDialect {}, &text).map_err(|e| Error::new(ErrorCode::SYNTAX_ERROR, format!("ARRAY JOIN: {e}")))?.pop() {
        Some(ast::Statement::Query(query)) => query,
        _ => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "ARRAY JOIN rewrite did not give a query")),
    };
    let alias = alias.map(|name| ast::TableAlias { explicit: true, name, columns: Vec::new(), at: None });
    select.from = vec![TableWithJoins { relation: TableFactor::Derived { lateral: false, subquery, alias, sample: None }, joins: Vec::new() }];
    Ok(())
}

/// Several different `arrayJoin(...)` calls in one SELECT multiply the rows (each row
/// of one with every row of the next), as in ClickHouse; DataFusion's unnests in one
/// projection are zipped instead. So each call becomes a layer of its own:
///
/// ```text
/// SELECT arrayJoin(a) AS x, arrayJoin(b) AS y FROM t
///   =>  SELECT __array_join_0 AS x, __array_join_1 AS y FROM
///         (SELECT *, arrayJoin(b) AS __array_join_1 FROM
///           (SELECT *, arrayJoin(a) AS __array_join_0 FROM t) AS t) AS t
/// ```
///
/// Called after aliases are substituted, so `arrayJoin(a) AS x, x + 1` is one call. A
/// single call is layered the same way when the WHERE uses it.
/// Left as it is (zipped) over joins, several FROM items or a `*` in the SELECT list.
pub(crate) fn cartesian_array_joins(select: &mut Select) -> Result<()> {
    let mut calls: Vec<String> = Vec::new();
    let is_array_join_call = |e: &Expr| matches!(e, Expr::Function(f) if f.name.0.len() == 1 && f.name.0[0].as_ident().is_some_and(|i| i.quote_style.is_none() && i.value == "arrayJoin"));
    let mut collect = |e: &Expr| {
        if is_array_join_call(e) {
            let text = e.to_string();
            if !calls.contains(&text) {
                calls.push(text);
            }
        }
        ControlFlow::<()>::Continue(())
    };
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                let _ = exprs(e, &mut collect);
            }
            _ => return Ok(()),
        }
    }
    if let Some(selection) = &select.selection {
        let _ = exprs(selection, &mut collect);
    }
    // One call is layered too when the WHERE has it (`arrayJoin(a) AS x ... WHERE x > 3`,
    // its alias substituted): DataFusion has no unnest inside a filter.
    let in_where = select.selection.as_ref().is_some_and(|w| {
        let mut found = false;
        let _ = exprs(w, &mut |e: &Expr| {
            found |= is_array_join_call(e);
            ControlFlow::<()>::Continue(())
        });
        found
    });
    if (calls.len() < 2 && !in_where) || select.from.len() > 1 || select.from.first().is_some_and(|f| !f.joins.is_empty()) {
        return Ok(());
    }
    // A call inside another's argument (`arrayJoin(arrayJoin(x))`) is not layered.
    if calls.iter().enumerate().any(|(i, outer)| calls.iter().enumerate().any(|(j, inner)| i != j && outer.contains(inner.as_str()))) {
        return Ok(());
    }
    let alias = select.from.first().and_then(relation_name);
    let alias_text = alias.as_ref().map(|a| a.to_string()).unwrap_or_else(|| "__array_joins".to_string());
    let mut source = select.from.first().map(|f| f.relation.to_string());
    for (i, call) in calls.iter().enumerate() {
        let layer = match &source {
            Some(from) => format!("SELECT *, {call} AS __array_join_{i} FROM {from}"),
            None => format!("SELECT {call} AS __array_join_{i}"),
        };
        source = Some(format!("({layer}) AS {alias_text}"));
    }
    let Some(source) = source else { return Ok(()) };
    let text = format!("SELECT * FROM {source}");
    let mut parsed = match Parser::parse_sql(&ClickHouseDialect {}, &text).map_err(|e| Error::new(ErrorCode::SYNTAX_ERROR, format!("arrayJoin: {e}")))?.pop() {
        Some(ast::Statement::Query(query)) => query,
        _ => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "arrayJoin rewrite did not give a query")),
    };
    let ast::SetExpr::Select(layers) = parsed.body.as_mut() else {
        return Err(Error::new(ErrorCode::LOGICAL_ERROR, "arrayJoin rewrite did not give a SELECT"));
    };
    select.from = std::mem::take(&mut layers.from);
    let mut replace = |e: &mut Expr| {
        if is_array_join_call(e) {
            let text = e.to_string();
            if let Some(i) = calls.iter().position(|c| *c == text) {
                *e = Expr::Identifier(ast::Ident::new(format!("__array_join_{i}")));
            }
        }
        ControlFlow::<()>::Continue(())
    };
    for item in select.projection.iter_mut() {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            let _ = exprs_mut(e, &mut replace);
        }
    }
    if let Some(selection) = select.selection.as_mut() {
        let _ = exprs_mut(selection, &mut replace);
    }
    if let ast::GroupByExpr::Expressions(keys, _) = &mut select.group_by {
        for key in keys.iter_mut() {
            let _ = exprs_mut(key, &mut replace);
        }
    }
    if let Some(having) = select.having.as_mut() {
        let _ = exprs_mut(having, &mut replace);
    }
    Ok(())
}

fn is_array_join(operator: &JoinOperator) -> bool {
    matches!(operator, JoinOperator::ArrayJoin | JoinOperator::LeftArrayJoin | JoinOperator::InnerArrayJoin)
}

/// The array expression (as SQL text) and alias an ARRAY JOIN item was parsed into.
fn array_of(relation: &TableFactor) -> Result<(String, Option<ast::Ident>)> {
    match relation {
        TableFactor::Table { name, alias, args: None, .. } => Ok((name.to_string(), alias.as_ref().map(|a| a.name.clone()))),
        // `ARRAY JOIN range(3) AS n`: a function call reads as a table function.
        TableFactor::Table { name, alias, args: Some(args), .. } => {
            let args: Vec<String> = args.args.iter().map(ToString::to_string).collect();
            Ok((format!("{name}({})", args.join(", ")), alias.as_ref().map(|a| a.name.clone())))
        }
        TableFactor::Function { name, args, alias, .. } => {
            let args: Vec<String> = args.iter().map(ToString::to_string).collect();
            Ok((format!("{name}({})", args.join(", ")), alias.as_ref().map(|a| a.name.clone())))
        }
        other => Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Unsupported ARRAY JOIN expression: {other}"))),
    }
}

/// The name the element of an unaliased ARRAY JOIN takes: the array column's, without
/// the table's name (`t.arr` -> `arr`); a dotted name is a Nested subcolumn (`n.a`).
fn element_name(expr: &str, table: Option<&ast::Ident>) -> Result<String> {
    let name = match (table, expr.split_once('.')) {
        (Some(table), Some((first, rest))) if first == table.value => rest,
        _ => expr,
    };
    if name.is_empty() || name.contains(['(', '`', '"']) {
        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("No alias for non-trivial value in ARRAY JOIN: {expr}")));
    }
    Ok(name.to_string())
}

/// The name the rewritten FROM keeps: the left table's alias or name (one table only).
fn relation_name(head: &TableWithJoins) -> Option<ast::Ident> {
    if !head.joins.is_empty() {
        return None;
    }
    match &head.relation {
        TableFactor::Table { alias: Some(alias), .. } | TableFactor::Derived { alias: Some(alias), .. } => Some(alias.name.clone()),
        TableFactor::Table { name, args: None, .. } => name.0.last().and_then(|part| part.as_ident()).cloned(),
        _ => None,
    }
}
