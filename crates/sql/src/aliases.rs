//! ClickHouse's aliases: an alias defined in the SELECT list can be used anywhere in
//! the same SELECT (other result columns, WHERE/PREWHERE, GROUP BY, HAVING):
//! `SELECT toDate(ts) AS d, d + 1 FROM t WHERE d > '2024-01-01'`.
//!
//! DataFusion resolves aliases only in ORDER BY (and GROUP BY), so references are
//! replaced by the aliased expression before planning. As in ClickHouse (with the
//! default `prefer_column_name_to_alias = 0`), an alias wins over a column of the same
//! name, except inside its own definition (`SELECT x + 1 AS x` reads column `x`).
//! Subqueries have their own aliases and are not entered; lambda parameters shadow
//! aliases in the lambda body.

use std::collections::HashMap;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, ObjectNamePart, OrderBy, OrderByKind, Query, Select, SelectItem, Value, VisitMut, VisitorMut,
};
use granary_common::{Error, ErrorCode, Result};

use crate::inline_aliases::INLINE_ALIAS_MARKER;
use crate::walk::{exprs_mut, walk_mut};

/// Replaces references to SELECT-list aliases, and to aliases defined inside expressions
/// ([`crate::inline_aliases`] markers, taken out here), in `select` and its `order_by`.
pub fn substitute_aliases(select: &mut Select, mut order_by: Option<&mut OrderBy>) -> Result<()> {
    // Aliases inside expressions, in the order ClickHouse meets them.
    let mut inline: Vec<(String, Expr)> = Vec::new();
    {
        let mut taker = MarkerTaker { query_depth: 0, found: &mut inline };
        for item in &mut select.projection {
            if let SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } = item {
                let _ = walk_mut(expr, &mut taker);
            }
        }
        if let Some(prewhere) = &mut select.prewhere {
            let _ = walk_mut(prewhere, &mut taker);
        }
        if let Some(selection) = &mut select.selection {
            let _ = walk_mut(selection, &mut taker);
        }
        if let GroupByExpr::Expressions(exprs, _) = &mut select.group_by {
            for expr in exprs {
                let _ = walk_mut(expr, &mut taker);
            }
        }
        if let Some(having) = &mut select.having {
            let _ = walk_mut(having, &mut taker);
        }
        if let Some(order_by) = order_by.as_deref_mut() {
            let _ = walk_mut(order_by, &mut taker);
        }
    }
    let mut definitions: HashMap<String, Expr> = HashMap::new();
    let mut define = |alias: &str, expr: &Expr| -> Result<()> {
        // `x AS x` defines nothing new.
        if matches!(unparenthesized(expr), Expr::Identifier(i) if i.value == alias) {
            return Ok(());
        }
        match definitions.get(alias) {
            Some(known) if unparenthesized(known) != unparenthesized(expr) => Err(Error::new(
                ErrorCode::MULTIPLE_EXPRESSIONS_FOR_ALIAS,
                format!("Multiple expressions {expr} AS {alias} and {known} AS {alias} for alias {alias}"),
            )),
            Some(_) => Ok(()),
            None => {
                definitions.insert(alias.to_string(), expr.clone());
                Ok(())
            }
        }
    };
    for item in &select.projection {
        if let SelectItem::ExprWithAlias { expr, alias } = item {
            define(&alias.value, expr)?;
        }
    }
    for (alias, expr) in &inline {
        define(alias, expr)?;
    }
    if definitions.is_empty() {
        return Ok(());
    }
    let tables = &table_names(select);
    // Each alias with the aliases it uses resolved (chains, never cycles).
    let resolved: HashMap<String, Expr> = definitions
        .keys()
        .map(|name| {
            let mut expr = definitions[name].clone();
            substitute(&mut expr, &definitions, &mut vec![name.clone()], tables);
            (name.clone(), expr)
        })
        .collect();
    let mut substituter = Substituter { aliases: &resolved, exclude: None, query_depth: 0, shadowed: Vec::new(), tables };
    for item in &mut select.projection {
        match item {
            SelectItem::ExprWithAlias { expr, alias } => {
                substituter.exclude = Some(alias.value.clone());
                let _ = walk_mut(expr, &mut substituter);
            }
            // A bare alias as a result column keeps the alias as its name
            // (`SELECT 1 AS x, x` has two columns named `x`).
            SelectItem::UnnamedExpr(Expr::Identifier(ident)) if resolved.contains_key(&ident.value) => {
                let alias = ident.clone();
                let expr = resolved[&ident.value].clone();
                *item = SelectItem::ExprWithAlias { expr, alias };
            }
            SelectItem::UnnamedExpr(expr) => {
                substituter.exclude = None;
                // `t.n` of a tuple alias `t` as a result column keeps the name `t.n`.
                let dotted = match &*expr {
                    Expr::CompoundIdentifier(parts) => Some(parts.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join(".")),
                    _ => None,
                };
                if let Some(element) = dotted.and_then(|name| substituter.replacement(expr).map(|e| (name, e))) {
                    let (name, expr) = element;
                    *item = SelectItem::ExprWithAlias { expr, alias: datafusion::sql::sqlparser::ast::Ident::with_quote('`', name) };
                    continue;
                }
                let _ = walk_mut(expr, &mut substituter);
            }
            _ => {}
        }
    }
    substituter.exclude = None;
    if let Some(prewhere) = &mut select.prewhere {
        let _ = walk_mut(prewhere, &mut substituter);
    }
    if let Some(selection) = &mut select.selection {
        let _ = walk_mut(selection, &mut substituter);
    }
    if let Some(having) = &mut select.having {
        let _ = walk_mut(having, &mut substituter);
    }
    // ClickHouse resolves SELECT-list aliases in JOIN ON too (`ON x = y`).
    for table in &mut select.from {
        for join in &mut table.joins {
            if let Some(datafusion::sql::sqlparser::ast::JoinConstraint::On(on)) = crate::conditions::join_constraint(&mut join.join_operator) {
                let _ = walk_mut(on, &mut substituter);
            }
        }
    }
    // A bare SELECT-list alias in GROUP BY and ORDER BY is resolved by DataFusion against
    // the SELECT list already; one defined inside an expression is not in that list.
    let outputs = select_list_aliases(select);
    let is_output = |expr: &Expr| matches!(expr, Expr::Identifier(i) if outputs.contains(&i.value));
    if let GroupByExpr::Expressions(exprs, _) = &mut select.group_by {
        for expr in exprs {
            if !is_output(expr) {
                let _ = walk_mut(expr, &mut substituter);
            }
        }
    }
    if !inline.is_empty() {
        if let Some(OrderBy { kind: OrderByKind::Expressions(keys), .. }) = order_by {
            let inline_only: HashMap<String, Expr> =
                resolved.iter().filter(|(name, _)| inline.iter().any(|(n, _)| n == *name) && !outputs.contains(name)).map(|(n, e)| (n.clone(), e.clone())).collect();
            let mut substituter = Substituter { aliases: &inline_only, exclude: None, query_depth: 0, shadowed: Vec::new(), tables };
            for key in keys {
                let _ = walk_mut(&mut key.expr, &mut substituter);
            }
        }
    }
    Ok(())
}

fn unparenthesized(mut expr: &Expr) -> &Expr {
    while let Expr::Nested(inner) = expr {
        expr = inner;
    }
    expr
}

/// If `expr` is an inline alias marker `__granary_alias(e, 'name')`: `e` and the name.
pub fn inline_alias(expr: &Expr) -> Option<(&Expr, &str)> {
    let Expr::Function(function) = expr else { return None };
    if !matches!(function.name.0.as_slice(), [ObjectNamePart::Identifier(i)] if i.value == INLINE_ALIAS_MARKER) {
        return None;
    }
    let FunctionArguments::List(list) = &function.args else { return None };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(inner)), FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))] => match &v.value {
            Value::SingleQuotedString(name) => Some((inner, name.as_str())),
            _ => None,
        },
        _ => None,
    }
}

/// Replaces every inline alias marker left in `node` (places whose aliases are not
/// resolved, such as JOIN ON) by its expression.
pub fn strip_inline_aliases<T: VisitMut + ?Sized>(node: &mut T) {
    let _ = exprs_mut(node, &mut |expr: &mut Expr| {
        if let Some((inner, _)) = inline_alias(expr) {
            *expr = Expr::Nested(Box::new(inner.clone()));
        }
        ControlFlow::<()>::Continue(())
    });
}

/// Whether `expr` has an inline alias marker.
pub fn has_inline_alias(expr: &Expr) -> bool {
    crate::walk::exprs(expr, &mut |e: &Expr| if inline_alias(e).is_some() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }).is_break()
}

/// Replaces every inline alias marker in `expr` by its alias name.
pub fn inline_aliases_as_names(expr: &mut Expr) {
    let _ = exprs_mut(expr, &mut |e: &mut Expr| {
        if let Some((_, name)) = inline_alias(e) {
            *e = Expr::Identifier(datafusion::sql::sqlparser::ast::Ident::new(name));
        }
        ControlFlow::<()>::Continue(())
    });
}

/// Takes the inline alias markers of one SELECT out (not those of its subqueries).
struct MarkerTaker<'a> {
    query_depth: usize,
    found: &'a mut Vec<(String, Expr)>,
}

impl VisitorMut for MarkerTaker<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.query_depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.query_depth -= 1;
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if self.query_depth == 0 {
            if let Some((inner, name)) = inline_alias(expr) {
                let (inner, name) = (inner.clone(), name.to_string());
                self.found.push((name, inner.clone()));
                *expr = Expr::Nested(Box::new(inner));
            }
        }
        ControlFlow::Continue(())
    }
}

/// The names the tables in FROM are known by (aliases and table names).
fn table_names(select: &Select) -> Vec<String> {
    use datafusion::sql::sqlparser::ast::TableFactor;
    let mut names = Vec::new();
    let mut add = |factor: &TableFactor| {
        let (name, alias) = match factor {
            TableFactor::Table { name, alias, .. } => (name.0.last().and_then(|p| p.as_ident()).map(|i| i.value.clone()), alias.as_ref()),
            TableFactor::Derived { alias, .. } | TableFactor::TableFunction { alias, .. } | TableFactor::Function { alias, .. } => (None, alias.as_ref()),
            _ => (None, None),
        };
        names.extend(name);
        names.extend(alias.map(|a| a.name.value.clone()));
    };
    for table in &select.from {
        add(&table.relation);
        for join in &table.joins {
            add(&join.relation);
        }
    }
    names
}

/// Resolves the aliases used inside one definition (`stack`: definitions being resolved).
fn substitute(expr: &mut Expr, definitions: &HashMap<String, Expr>, stack: &mut Vec<String>, tables: &[String]) {
    let mut names = Vec::new();
    let mut collector = Substituter { aliases: definitions, exclude: None, query_depth: 0, shadowed: Vec::new(), tables };
    collector.collect_only(expr, &mut names);
    let names: Vec<String> = names.into_iter().filter(|n| !stack.contains(n)).collect();
    if names.is_empty() {
        return;
    }
    let mut local: HashMap<String, Expr> = HashMap::new();
    for name in names {
        let mut inner = definitions[&name].clone();
        stack.push(name.clone());
        substitute(&mut inner, definitions, stack, tables);
        stack.pop();
        local.insert(name, inner);
    }
    let mut substituter = Substituter { aliases: &local, exclude: None, query_depth: 0, shadowed: Vec::new(), tables };
    let _ = walk_mut(expr, &mut substituter);
}

struct Substituter<'a> {
    aliases: &'a HashMap<String, Expr>,
    /// The alias being defined by the expression visited.
    exclude: Option<String>,
    query_depth: usize,
    /// Lambda parameters in scope.
    shadowed: Vec<String>,
    /// Names of the tables in FROM (`t.x` there is a column, not an element of alias `t`).
    tables: &'a [String],
}

impl Substituter<'_> {
    fn replacement(&self, expr: &Expr) -> Option<Expr> {
        // `t.n` with `t` an alias of a tuple (and no table of that name): the element `n`.
        if let Expr::CompoundIdentifier(parts) = expr {
            let (first, rest) = parts.split_first()?;
            if self.tables.contains(&first.value) || rest.iter().any(|p| p.value.starts_with(crate::lexer::TUPLE_ELEMENT_PREFIX)) {
                return None;
            }
            let mut base = self.replacement(&Expr::Identifier(first.clone()))?;
            for part in rest {
                base = crate::rewrite::function_call("tupleElement", vec![base, Expr::value(Value::SingleQuotedString(part.value.clone()))]);
            }
            return Some(base);
        }
        let Expr::Identifier(ident) = expr else { return None };
        if self.query_depth > 0 || self.exclude.as_deref() == Some(ident.value.as_str()) || self.shadowed.contains(&ident.value) {
            return None;
        }
        self.aliases.get(&ident.value).map(|e| Expr::Nested(Box::new(e.clone())))
    }

    /// The alias names `expr` refers to (no change).
    fn collect_only(&mut self, expr: &mut Expr, out: &mut Vec<String>) {
        struct Collector<'b, 'c> {
            inner: &'b mut Substituter<'c>,
            out: &'b mut Vec<String>,
        }
        impl VisitorMut for Collector<'_, '_> {
            type Break = ();
            fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
                self.inner.pre_visit_query(q)
            }
            fn post_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
                self.inner.post_visit_query(q)
            }
            fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
                self.inner.enter_lambda(e);
                ControlFlow::Continue(())
            }
            fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
                if self.inner.replacement(e).is_some() {
                    let name = match e {
                        Expr::Identifier(i) => Some(&i.value),
                        Expr::CompoundIdentifier(parts) => parts.first().map(|i| &i.value),
                        _ => None,
                    };
                    if let Some(name) = name.filter(|n| !self.out.contains(n)) {
                        self.out.push(name.clone());
                    }
                }
                self.inner.leave_lambda(e);
                ControlFlow::Continue(())
            }
        }
        let _ = walk_mut(expr, &mut Collector { inner: self, out });
    }

    fn enter_lambda(&mut self, expr: &Expr) {
        if let Expr::Lambda(lambda) = expr {
            for p in lambda.params.iter() {
                self.shadowed.push(p.name.value.clone());
            }
        }
    }

    fn leave_lambda(&mut self, expr: &Expr) {
        if let Expr::Lambda(lambda) = expr {
            for _ in lambda.params.iter() {
                self.shadowed.pop();
            }
        }
    }
}

impl VisitorMut for Substituter<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.query_depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.query_depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        self.enter_lambda(expr);
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Some(replacement) = self.replacement(expr) {
            *expr = replacement;
        }
        self.leave_lambda(expr);
        ControlFlow::Continue(())
    }
}


/// The aliases the SELECT list gives its items (`x + 1 AS y` gives `y`).
pub(crate) fn select_list_aliases(select: &Select) -> Vec<String> {
    select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::ast::{SetExpr, Statement};
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn rewrite(sql: &str) -> String {
        let mut statements = Parser::parse_sql(&ClickHouseDialect {}, sql).unwrap();
        let Statement::Query(query) = &mut statements[0] else { panic!() };
        let SetExpr::Select(select) = query.body.as_mut() else { panic!() };
        substitute_aliases(select, None).unwrap();
        statements[0].to_string()
    }

    #[test]
    fn aliases_are_replaced_where_clickhouse_resolves_them() {
        assert_eq!(rewrite("SELECT toDate(ts) AS d, d + 1 FROM t WHERE d > 1"), "SELECT toDate(ts) AS d, (toDate(ts)) + 1 FROM t WHERE (toDate(ts)) > 1");
        assert_eq!(rewrite("SELECT a AS b, b AS c, c * 2 AS e FROM t"), "SELECT a AS b, (a) AS c, ((a)) * 2 AS e FROM t");
        // Own definition reads the column; cycles stop.
        assert_eq!(rewrite("SELECT x + 1 AS x FROM t WHERE x > 0"), "SELECT x + 1 AS x FROM t WHERE (x + 1) > 0");
        assert_eq!(rewrite("SELECT y AS x, x AS y FROM t"), "SELECT ((y)) AS x, ((x)) AS y FROM t");
        // Subqueries and lambda parameters are their own scopes.
        assert_eq!(rewrite("SELECT 1 AS n FROM t WHERE z IN (SELECT n FROM u)"), "SELECT 1 AS n FROM t WHERE z IN (SELECT n FROM u)");
        assert_eq!(rewrite("SELECT 2 AS x, arrayMap(x -> x + 1, [x]) FROM t"), "SELECT 2 AS x, arrayMap(x -> x + 1, [(2)]) FROM t");
        assert_eq!(rewrite("SELECT sum(v) AS s FROM t GROUP BY k HAVING s > 1"), "SELECT sum(v) AS s FROM t GROUP BY k HAVING (sum(v)) > 1");
        assert_eq!(rewrite("SELECT k AS k FROM t WHERE k = 1"), "SELECT k AS k FROM t WHERE k = 1");
    }
}
