//! `ASOF JOIN ... USING (k..., t)`: the equality columns, then the ASOF column, compared
//! as `left.t >= right.t` (ClickHouse's rule for USING).
//!
//! The join gets the ON form `left.k = right.k AND __granary_asof(left.t, right.t, '>=')`,
//! which the query layer plans like any ASOF join. What USING means for the rest of the
//! SELECT is kept by resolving names: an unqualified USING column is the left table's
//! (for `t` that is what ClickHouse shows too; for the keys both sides are equal or the
//! right side is missing), and `*` is the left table's columns followed by the right
//! table's without its USING columns.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    self, BinaryOperator, Expr, Ident, ObjectName, SelectItem, SelectItemQualifiedWildcardKind, WildcardAdditionalOptions,
};
use granary_common::{Error, ErrorCode, Result};

use crate::join_strictness::asof_marker;
use crate::walk::exprs_outside_subqueries_mut;

/// One ASOF join written with USING: the names of its two tables and its columns.
#[derive(Debug, Clone)]
pub(crate) struct AsofUsing {
    left: String,
    right: String,
    keys: Vec<Ident>,
    asof: Ident,
}

impl AsofUsing {
    pub(crate) fn new(left: String, right: String, mut columns: Vec<Ident>) -> Result<Self> {
        let asof = columns.pop();
        match asof {
            Some(asof) if !columns.is_empty() => Ok(AsofUsing { left, right, keys: columns, asof }),
            _ => Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "ASOF join with hash algorithm needs at least one equi-join column")),
        }
    }

    /// `left.k = right.k AND ... AND __granary_asof(left.t, right.t, '>=')`.
    pub(crate) fn on_condition(&self) -> Expr {
        let column = |table: &str, name: &Ident| Expr::CompoundIdentifier(vec![Ident::new(table), name.clone()]);
        let equalities = self.keys.iter().map(|k| Expr::BinaryOp {
            left: Box::new(column(&self.left, k)),
            op: BinaryOperator::Eq,
            right: Box::new(column(&self.right, k)),
        });
        equalities
            .chain(std::iter::once(asof_marker(column(&self.left, &self.asof), column(&self.right, &self.asof), ">=")))
            .reduce(|a, b| Expr::BinaryOp { left: Box::new(a), op: BinaryOperator::And, right: Box::new(b) })
            .unwrap_or_else(|| asof_marker(column(&self.left, &self.asof), column(&self.right, &self.asof), ">="))
    }

    fn columns(&self) -> impl Iterator<Item = &Ident> {
        self.keys.iter().chain(std::iter::once(&self.asof))
    }

    /// The left table's column for an unqualified USING column name.
    fn qualify(&self, name: &Ident) -> Option<Expr> {
        self.columns().any(|c| c.value == name.value).then(|| Expr::CompoundIdentifier(vec![Ident::new(&self.left), name.clone()]))
    }
}

/// Resolves the names of `select` (and of the ORDER BY of its query) that holds the
/// joins in `joins`.
pub(crate) fn resolve_using_names(select: &mut ast::Select, order_by: Option<&mut ast::OrderBy>, joins: &[AsofUsing]) {
    if joins.is_empty() {
        return;
    }
    let aliases = crate::aliases::select_list_aliases(select);
    let mut projection = Vec::with_capacity(select.projection.len());
    for item in std::mem::take(&mut select.projection) {
        match item {
            SelectItem::Wildcard(options) => expand_wildcard(options, joins, &mut projection),
            mut other => {
                qualify_names(&mut other, joins, &[]);
                projection.push(other);
            }
        }
    }
    select.projection = projection;
    for expr in [&mut select.selection, &mut select.prewhere, &mut select.having, &mut select.qualify].into_iter().flatten() {
        qualify_names(expr, joins, &aliases);
    }
    if let ast::GroupByExpr::Expressions(exprs, _) = &mut select.group_by {
        for expr in exprs {
            qualify_names(expr, joins, &aliases);
        }
    }
    if let Some(order_by) = order_by {
        qualify_names(order_by, joins, &aliases);
    }
}

/// `*` as `left.*, right.* EXCEPT (USING columns)` for each join (the first join's left
/// table first).
fn expand_wildcard(options: WildcardAdditionalOptions, joins: &[AsofUsing], projection: &mut Vec<SelectItem>) {
    let qualified = |table: &str, options: WildcardAdditionalOptions| {
        SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::ObjectName(ObjectName::from(vec![Ident::new(table)])), options)
    };
    if let Some(first) = joins.first() {
        projection.push(qualified(&first.left, options.clone()));
    }
    for join in joins {
        let mut hidden: Vec<ObjectName> = join.columns().map(|c| ObjectName::from(vec![c.clone()])).collect();
        match &options.opt_exclude {
            Some(ast::ExcludeSelectItem::Multiple(more)) => hidden.extend(more.iter().cloned()),
            Some(ast::ExcludeSelectItem::Single(one)) => hidden.push(one.clone()),
            None => {}
        }
        let exclude = if hidden.len() == 1 { ast::ExcludeSelectItem::Single(hidden.remove(0)) } else { ast::ExcludeSelectItem::Multiple(hidden) };
        projection.push(qualified(&join.right, WildcardAdditionalOptions { opt_exclude: Some(exclude), ..options.clone() }));
    }
}

/// Qualifies the unqualified USING column names in `node`, outside subqueries and apart
/// from names that are aliases of the SELECT list.
fn qualify_names<T: ast::VisitMut + ?Sized>(node: &mut T, joins: &[AsofUsing], aliases: &[String]) {
    let _ = exprs_outside_subqueries_mut(node, &mut |expr| {
        if let Expr::Identifier(name) = expr {
            if !aliases.contains(&name.value) {
                if let Some(qualified) = joins.iter().find_map(|j| j.qualify(name)) {
                    *expr = qualified;
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
}
