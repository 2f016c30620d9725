//! AST walks through one visitor type.
//!
//! sqlparser's `Visit::visit` and `VisitMut::visit` are generic over the visitor, and its
//! derived walk covers every node type of the SQL AST: each visitor type (and each closure
//! given to `visit_expressions_mut`) compiled a fresh copy of about 4,000 functions. With
//! twenty-odd visitors that was 94% of this crate's machine code and most of its build
//! time. Every walk here goes through [`Erased`], which forwards to a `dyn` visitor, so the
//! AST walk is compiled once per break type and root node type whatever the visitor.
//! Call these instead of `.visit(..)` / `visit_expressions[_mut](..)`.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, ObjectName, Query, Select, Statement, TableFactor, ValueWithSpan, Visit, VisitMut, Visitor, VisitorMut,
};

/// Walks `node` with `visitor` (pre/post hooks as in sqlparser's `VisitorMut`).
pub fn walk_mut<T: VisitMut + ?Sized, B>(node: &mut T, visitor: &mut dyn VisitorMut<Break = B>) -> ControlFlow<B> {
    node.visit(&mut Erased(visitor))
}

/// Walks `node` with `visitor` (pre/post hooks as in sqlparser's `Visitor`).
pub fn walk<T: Visit + ?Sized, B>(node: &T, visitor: &mut dyn Visitor<Break = B>) -> ControlFlow<B> {
    node.visit(&mut Erased(visitor))
}

/// Calls `f` on every expression after its children (as sqlparser's `visit_expressions_mut`).
pub fn exprs_mut<T: VisitMut + ?Sized, B>(node: &mut T, f: &mut dyn FnMut(&mut Expr) -> ControlFlow<B>) -> ControlFlow<B> {
    walk_mut(node, &mut PostExprMut(f))
}

/// Calls `f` on every expression before its children (as sqlparser's `visit_expressions`).
pub fn exprs<T: Visit + ?Sized, B>(node: &T, f: &mut dyn FnMut(&Expr) -> ControlFlow<B>) -> ControlFlow<B> {
    walk(node, &mut PreExpr(f))
}

/// Calls `f` on every expression of `node` after its children, leaving out the
/// expressions of subqueries (they belong to their own SELECTs).
pub fn exprs_outside_subqueries_mut<T: VisitMut + ?Sized, B>(node: &mut T, f: &mut dyn FnMut(&mut Expr) -> ControlFlow<B>) -> ControlFlow<B> {
    walk_mut(node, &mut OutsideSubqueries { depth: 0, f })
}

struct OutsideSubqueries<'a, B> {
    depth: usize,
    f: &'a mut dyn FnMut(&mut Expr) -> ControlFlow<B>,
}

impl<B> VisitorMut for OutsideSubqueries<'_, B> {
    type Break = B;
    fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<B> {
        self.depth += 1;
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<B> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<B> {
        if self.depth == 0 {
            (self.f)(expr)
        } else {
            ControlFlow::Continue(())
        }
    }
}

struct PostExprMut<'a, B>(&'a mut dyn FnMut(&mut Expr) -> ControlFlow<B>);

impl<B> VisitorMut for PostExprMut<'_, B> {
    type Break = B;
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<B> {
        (self.0)(expr)
    }
}

struct PreExpr<'a, B>(&'a mut dyn FnMut(&Expr) -> ControlFlow<B>);

impl<B> Visitor for PreExpr<'_, B> {
    type Break = B;
    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<B> {
        (self.0)(expr)
    }
}

/// The one visitor type the AST walk is compiled for: forwards every hook to a `dyn` visitor.
struct Erased<'a, V: ?Sized>(&'a mut V);

/// Forwards the hooks sqlparser's visitors have (the same names in `Visitor` and `VisitorMut`).
macro_rules! forward_hooks {
    ($($ref:tt)*) => {
        fn pre_visit_query(&mut self, node: $($ref)* Query) -> ControlFlow<B> { self.0.pre_visit_query(node) }
        fn post_visit_query(&mut self, node: $($ref)* Query) -> ControlFlow<B> { self.0.post_visit_query(node) }
        fn pre_visit_select(&mut self, node: $($ref)* Select) -> ControlFlow<B> { self.0.pre_visit_select(node) }
        fn post_visit_select(&mut self, node: $($ref)* Select) -> ControlFlow<B> { self.0.post_visit_select(node) }
        fn pre_visit_relation(&mut self, node: $($ref)* ObjectName) -> ControlFlow<B> { self.0.pre_visit_relation(node) }
        fn post_visit_relation(&mut self, node: $($ref)* ObjectName) -> ControlFlow<B> { self.0.post_visit_relation(node) }
        fn pre_visit_table_factor(&mut self, node: $($ref)* TableFactor) -> ControlFlow<B> { self.0.pre_visit_table_factor(node) }
        fn post_visit_table_factor(&mut self, node: $($ref)* TableFactor) -> ControlFlow<B> { self.0.post_visit_table_factor(node) }
        fn pre_visit_expr(&mut self, node: $($ref)* Expr) -> ControlFlow<B> { self.0.pre_visit_expr(node) }
        fn post_visit_expr(&mut self, node: $($ref)* Expr) -> ControlFlow<B> { self.0.post_visit_expr(node) }
        fn pre_visit_statement(&mut self, node: $($ref)* Statement) -> ControlFlow<B> { self.0.pre_visit_statement(node) }
        fn post_visit_statement(&mut self, node: $($ref)* Statement) -> ControlFlow<B> { self.0.post_visit_statement(node) }
        fn pre_visit_value(&mut self, node: $($ref)* ValueWithSpan) -> ControlFlow<B> { self.0.pre_visit_value(node) }
        fn post_visit_value(&mut self, node: $($ref)* ValueWithSpan) -> ControlFlow<B> { self.0.post_visit_value(node) }
    };
}

impl<B> VisitorMut for Erased<'_, dyn VisitorMut<Break = B> + '_> {
    type Break = B;
    forward_hooks!(&mut);
}

impl<B> Visitor for Erased<'_, dyn Visitor<Break = B> + '_> {
    type Break = B;
    forward_hooks!(&);
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::{dialect::ClickHouseDialect, parser::Parser};

    fn parse(sql: &str) -> Statement {
        Parser::parse_sql(&ClickHouseDialect {}, sql).expect("valid SQL").remove(0)
    }

    #[test]
    fn expression_hooks_run_in_sqlparser_order() {
        let mut statement = parse("SELECT a + 1 FROM t WHERE b");
        let mut seen = Vec::new();
        let _ = exprs::<_, ()>(&statement, &mut |e| {
            seen.push(e.to_string());
            ControlFlow::Continue(())
        });
        assert_eq!(seen, ["a + 1", "a", "1", "b"]);
        let mut post = Vec::new();
        let _ = exprs_mut::<_, ()>(&mut statement, &mut |e| {
            post.push(e.to_string());
            ControlFlow::Continue(())
        });
        assert_eq!(post, ["a", "1", "a + 1", "b"]);
    }

    #[test]
    fn break_stops_the_walk() {
        let mut statement = parse("SELECT x, y, z FROM t");
        let mut visited = 0;
        let flow = exprs_mut(&mut statement, &mut |e| {
            visited += 1;
            if e.to_string() == "y" { ControlFlow::Break(7) } else { ControlFlow::Continue(()) }
        });
        assert_eq!(flow, ControlFlow::Break(7));
        assert_eq!(visited, 2);
    }
}
