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

use datafusion::sql::sqlparser::ast::{self, JoinOperator, Select, TableFactor, TableWithJoins};
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;
use granary_common::{Error, ErrorCode, Result};

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
