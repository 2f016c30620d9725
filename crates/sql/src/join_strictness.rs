//! ClickHouse's join strictness: `[ANY|ALL] [LEFT|RIGHT|INNER] JOIN`, and `SEMI`/`ANTI`
//! written before the side (`SEMI LEFT JOIN`).
//!
//! sqlparser knows neither, so the words are taken out of the token stream before
//! parsing ([`take_strictness`]), remembering where each `ANY` join's `JOIN` keyword
//! stood. `ALL` is what a join does anyway. After parsing, each `ANY` join is given its
//! meaning ([`apply_any_joins`]): every row of the preserved side meets at most one row
//! of the other side with the same key, by joining against the other side reduced to
//! one row per key (`SELECT DISTINCT ON (keys) * FROM ...`). `ANY INNER` does the same
//! as ClickHouse: one match per left row.
//!
//! An `ASOF` join keeps its ON equalities and has its one inequality replaced by
//! `__granary_asof(a, b, 'op')` ([`apply_asof_joins`]); the query layer turns a join with
//! that marker into its ASOF operator. `USING (k..., t)` becomes that ON form, with the
//! USING columns' unqualified names and `*` resolved as ClickHouse resolves them (the
//! left table's columns, the right table's USING columns hidden).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    self, BinaryOperator, Expr, JoinConstraint, JoinOperator, Query, SetExpr, Spanned, TableFactor, TableWithJoins, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::{Location, Token};
use granary_common::{Error, ErrorCode, Result};

use crate::lexer::Lexeme;
use crate::walk::walk_mut;

const JOIN_WORDS: [&str; 8] = ["LEFT", "RIGHT", "INNER", "FULL", "OUTER", "SEMI", "ANTI", "JOIN"];

/// Where the `JOIN` keyword of each `ANY` and each `ASOF` join stood.
#[derive(Debug, Default)]
pub(crate) struct Strictness {
    any_joins: Vec<Location>,
    asof_joins: Vec<Location>,
}

/// The name of the marker that stands for an ASOF join's inequality.
pub const ASOF_MARKER: &str = "__granary_asof";

/// Puts the column list of `USING a, b` (ClickHouse's form without brackets) in the
/// brackets sqlparser requires.
pub(crate) fn bracket_using_columns(lexemes: &mut Vec<Lexeme>) {
    let mut i = 0;
    while i + 1 < lexemes.len() {
        let bare_list = lexemes[i].is_keyword("USING") && matches!(lexemes[i + 1].token, Token::Word(_));
        if !bare_list {
            i += 1;
            continue;
        }
        let mut last = i + 1;
        while matches!(lexemes.get(last + 1).map(|l| &l.token), Some(Token::Comma)) && matches!(lexemes.get(last + 2).map(|l| &l.token), Some(Token::Word(_))) {
            last += 2;
        }
        let bracket = |token: Token, like: &Lexeme| Lexeme { token, span: like.span, start: like.start, end: like.start };
        let close = bracket(Token::RParen, &lexemes[last]);
        let open = bracket(Token::LParen, &lexemes[i + 1]);
        lexemes.insert(last + 1, close);
        lexemes.insert(i + 1, open);
        i = last + 3;
    }
}

/// Removes `ANY`/`ALL`/`ASOF` before joins and puts `SEMI`/`ANTI` after the side.
pub(crate) fn take_strictness(lexemes: &mut Vec<Lexeme>) -> Result<Strictness> {
    let mut found = Strictness::default();
    let mut i = 0;
    while i < lexemes.len() {
        let starts_join = |at: usize| lexemes.get(at).is_some_and(|l| JOIN_WORDS.iter().any(|w| l.is_keyword(w)));
        let word = lexemes[i].keyword_text().unwrap_or_default();
        if matches!(word.as_str(), "ANY" | "ALL" | "ASOF") && starts_join(i + 1) {
            let join = lexemes[i + 1..].iter().take(4).find(|l| l.is_keyword("JOIN")).map(|l| l.span.start);
            match (word.as_str(), join) {
                ("ANY", Some(join)) => found.any_joins.push(join),
                ("ASOF", Some(join)) => found.asof_joins.push(join),
                _ => {}
            }
            lexemes.remove(i);
            continue;
        }
        // `SEMI LEFT JOIN` is sqlparser's `LEFT SEMI JOIN`.
        if matches!(word.as_str(), "SEMI" | "ANTI") && lexemes.get(i + 1).is_some_and(|l| l.is_keyword("LEFT") || l.is_keyword("RIGHT")) {
            let (first, second) = (lexemes[i].token.clone(), lexemes[i + 1].token.clone());
            lexemes[i].token = second;
            lexemes[i + 1].token = first;
            i += 2;
            continue;
        }
        i += 1;
    }
    Ok(found)
}

/// Gives each `ANY` join found by [`take_strictness`] its one-match-per-row meaning and
/// each `ASOF` join its marked condition.
pub(crate) fn apply_strictness(query: &mut Query, found: &Strictness) -> Result<()> {
    if found.any_joins.is_empty() && found.asof_joins.is_empty() {
        return Ok(());
    }
    // The join a strictness word belongs to is the one whose right-hand table starts
    // first after the `JOIN` keyword.
    let mut starts = Vec::new();
    visit_joins(query, &mut |_, _, join| {
        starts.push(join.relation.span().start);
        Ok(())
    })?;
    let targets = |words: &[Location]| -> Vec<Location> { words.iter().filter_map(|at| starts.iter().filter(|s| *s > at).min().copied()).collect() };
    let (any, asof) = (targets(&found.any_joins), targets(&found.asof_joins));
    if !asof.is_empty() {
        if let ControlFlow::Break(e) = walk_mut(query, &mut AsofVisitor { targets: &asof }) {
            return Err(e);
        }
    }
    if any.is_empty() {
        return Ok(());
    }
    visit_joins(query, &mut |from, j, join| if any.contains(&join.relation.span().start) { make_any(from, j, join) } else { Ok(()) })
}

/// Rewrites the ASOF joins (named by where their right tables start) of every SELECT.
struct AsofVisitor<'a> {
    targets: &'a [Location],
}

impl VisitorMut for AsofVisitor<'_> {
    type Break = Error;

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<Error> {
        match self.set_expr(&mut query.body, query.order_by.as_mut()) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    }
}

impl AsofVisitor<'_> {
    fn set_expr(&mut self, body: &mut SetExpr, order_by: Option<&mut ast::OrderBy>) -> Result<()> {
        match body {
            SetExpr::Select(select) => {
                let mut using = Vec::new();
                for from in &mut select.from {
                    for j in 0..from.joins.len() {
                        if !self.targets.contains(&from.joins[j].relation.span().start) {
                            continue;
                        }
                        let left = if j == 0 { &from.relation } else { &from.joins[j - 1].relation };
                        let left = relation_name(left);
                        using.extend(make_asof(left, &mut from.joins[j])?);
                    }
                }
                crate::asof_using::resolve_using_names(select, order_by, &using);
                Ok(())
            }
            SetExpr::SetOperation { left, right, .. } => {
                self.set_expr(left, None)?;
                self.set_expr(right, None)
            }
            _ => Ok(()),
        }
    }
}

/// Marks the inequality of an ASOF join's ON condition (`l.t >= r.t` becomes
/// `__granary_asof(l.t, r.t, '>=')`), or turns its `USING (k..., t)` into that ON form,
/// returning what the USING names resolve to. `left` names the table before the join.
fn make_asof(left: Option<String>, join: &mut ast::Join) -> Result<Option<crate::asof_using::AsofUsing>> {
    let right = relation_name(&join.relation);
    let constraint = match &mut join.join_operator {
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) | JoinOperator::Inner(c) | JoinOperator::Join(c) => c,
        _ => return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Wrong ASOF JOIN type. Only ASOF and LEFT ASOF joins are supported")),
    };
    match constraint {
        JoinConstraint::On(on) => {
            mark_asof_inequality(on)?;
            Ok(None)
        }
        JoinConstraint::Using(names) => {
            let names: Vec<ast::Ident> = names.iter().filter_map(|n| n.0.last().and_then(|p| p.as_ident()).cloned()).collect();
            let (left, right) = match (left, right) {
                (Some(left), Some(right)) => (left, right),
                _ => return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "ASOF JOIN USING needs named tables (or aliases) on both sides")),
            };
            let using = crate::asof_using::AsofUsing::new(left, right, names)?;
            *constraint = JoinConstraint::On(using.on_condition());
            Ok(Some(using))
        }
        _ => Err(Error::new(ErrorCode::INVALID_JOIN_ON_EXPRESSION, "ASOF join requires ON or USING")),
    }
}

/// Replaces the one inequality among the top-level conjuncts of `on` by the ASOF marker.
fn mark_asof_inequality(on: &mut Expr) -> Result<()> {
    let mut conjuncts = Vec::new();
    collect_conjuncts(on, &mut conjuncts);
    let is_inequality = |e: &Expr| matches!(e, Expr::BinaryOp { op: BinaryOperator::Gt | BinaryOperator::GtEq | BinaryOperator::Lt | BinaryOperator::LtEq, .. });
    let inequalities = conjuncts.iter().filter(|e| is_inequality(e)).count();
    if inequalities > 1 {
        return Err(Error::new(ErrorCode::INVALID_JOIN_ON_EXPRESSION, "ASOF join does not support multiple inequality predicates in JOIN ON expression"));
    }
    if inequalities == 0 {
        return Err(Error::new(
            ErrorCode::INVALID_JOIN_ON_EXPRESSION,
            "ASOF join requires one inequality predicate (<, <=, > or >=) in the JOIN ON expression, in addition to the equality predicates",
        ));
    }
    if !conjuncts.iter().any(|e| matches!(e, Expr::BinaryOp { op: BinaryOperator::Eq, .. })) {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "ASOF join with hash algorithm needs at least one equi-join column"));
    }
    let marked = conjuncts
        .into_iter()
        .map(|e| match e {
            Expr::BinaryOp { left, op: op @ (BinaryOperator::Gt | BinaryOperator::GtEq | BinaryOperator::Lt | BinaryOperator::LtEq), right } => {
                asof_marker(*left, *right, &op.to_string())
            }
            other => other,
        })
        .reduce(|a, b| Expr::BinaryOp { left: Box::new(a), op: BinaryOperator::And, right: Box::new(b) });
    if let Some(marked) = marked {
        *on = marked;
    }
    Ok(())
}

fn collect_conjuncts(expr: &Expr, out: &mut Vec<Expr>) {
    match expr {
        Expr::Nested(inner) if matches!(inner.as_ref(), Expr::BinaryOp { op: BinaryOperator::And, .. }) => collect_conjuncts(inner, out),
        Expr::BinaryOp { left, op: BinaryOperator::And, right } => {
            collect_conjuncts(left, out);
            collect_conjuncts(right, out);
        }
        other => out.push(other.clone()),
    }
}

/// `__granary_asof(a, b, 'op')`: `a op b` is the ASOF join's inequality.
pub(crate) fn asof_marker(a: Expr, b: Expr, op: &str) -> Expr {
    crate::rewrite::function_call(ASOF_MARKER, vec![a, b, Expr::Value(ast::Value::SingleQuotedString(op.to_string()).into())])
}

fn visit_joins(query: &mut Query, on_join: &mut OnJoin<'_>) -> Result<()> {
    match walk_mut(query, &mut JoinVisitor { on_join }) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

type OnJoin<'a> = dyn FnMut(&mut TableWithJoins, usize, &mut ast::Join) -> Result<()> + 'a;

/// Calls `on_join` for every join of every SELECT, nested ones included.
struct JoinVisitor<'a, 'b> {
    on_join: &'a mut OnJoin<'b>,
}

impl VisitorMut for JoinVisitor<'_, '_> {
    type Break = Error;

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<Error> {
        match self.set_expr(&mut query.body) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    }
}

impl JoinVisitor<'_, '_> {
    fn set_expr(&mut self, body: &mut SetExpr) -> Result<()> {
        match body {
            SetExpr::Select(select) => {
                for from in &mut select.from {
                    let mut joins = std::mem::take(&mut from.joins);
                    let outcome = joins.iter_mut().enumerate().try_for_each(|(j, join)| (self.on_join)(from, j, join));
                    from.joins = joins;
                    outcome?;
                }
                Ok(())
            }
            SetExpr::SetOperation { left, right, .. } => {
                self.set_expr(left)?;
                self.set_expr(right)
            }
            _ => Ok(()),
        }
    }
}

/// Reduces the non-preserved side of `join` (the `j`-th join of `from`) to one row per key.
fn make_any(from: &mut TableWithJoins, j: usize, join: &mut ast::Join) -> Result<()> {
    let unsupported = |what: &str| Error::new(ErrorCode::NOT_IMPLEMENTED, format!("ANY {what} JOIN is not supported"));
    match &join.join_operator {
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) | JoinOperator::Inner(c) | JoinOperator::Join(c) => {
            let keys = join_keys(c, &join.relation)?;
            join.relation = one_row_per_key(&join.relation, &keys)?;
            Ok(())
        }
        // The left side must be a single table for its rows to be reduced alone.
        JoinOperator::Right(c) | JoinOperator::RightOuter(c) if j == 0 => {
            let keys = join_keys(c, &from.relation)?;
            from.relation = one_row_per_key(&from.relation, &keys)?;
            Ok(())
        }
        JoinOperator::Right(_) | JoinOperator::RightOuter(_) => Err(unsupported("RIGHT (after another join)")),
        JoinOperator::FullOuter(_) => Err(unsupported("FULL")),
        _ => Err(unsupported("CROSS, SEMI or ANTI")),
    }
}

/// The name the rest of the query uses for `relation`.
pub(crate) fn relation_name(relation: &TableFactor) -> Option<String> {
    match relation {
        TableFactor::Table { alias: Some(alias), .. } | TableFactor::Derived { alias: Some(alias), .. } => Some(alias.name.value.clone()),
        TableFactor::Table { name, args: None, .. } => name.0.last().and_then(|part| part.as_ident()).map(|i| i.value.clone()),
        _ => None,
    }
}

/// The columns of `relation` the join matches on: the USING columns, or the sides of
/// `ON` equalities that name `relation`.
fn join_keys(constraint: &JoinConstraint, relation: &TableFactor) -> Result<Vec<ast::Ident>> {
    let keys = match constraint {
        JoinConstraint::Using(names) => names.iter().filter_map(|n| n.0.last().and_then(|p| p.as_ident()).cloned()).collect(),
        JoinConstraint::On(on) => {
            let name = relation_name(relation);
            let mut keys = Vec::new();
            collect_on_keys(on, name.as_deref(), &mut keys);
            keys
        }
        _ => Vec::new(),
    };
    if keys.is_empty() {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "ANY JOIN needs USING or ON equalities naming the joined table's columns"));
    }
    Ok(keys)
}

fn collect_on_keys(expr: &Expr, relation: Option<&str>, keys: &mut Vec<ast::Ident>) {
    match expr {
        Expr::Nested(inner) => collect_on_keys(inner, relation, keys),
        Expr::BinaryOp { left, op: BinaryOperator::And, right } => {
            collect_on_keys(left, relation, keys);
            collect_on_keys(right, relation, keys);
        }
        Expr::BinaryOp { left, op: BinaryOperator::Eq, right } => {
            for side in [left, right] {
                if let Expr::CompoundIdentifier(parts) = side.as_ref() {
                    if let [.., qualifier, column] = parts.as_slice() {
                        if relation == Some(qualifier.value.as_str()) {
                            keys.push(column.clone());
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// `(SELECT DISTINCT ON (keys) * FROM relation) AS name`.
fn one_row_per_key(relation: &TableFactor, keys: &[ast::Ident]) -> Result<TableFactor> {
    let name = relation_name(relation)
        .ok_or_else(|| Error::new(ErrorCode::NOT_IMPLEMENTED, "ANY JOIN with a table function or subquery needs an alias"))?;
    let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
    let sql = format!("SELECT DISTINCT ON ({}) * FROM {relation}", keys.join(", "));
    let dialect = ClickHouseDialect {};
    let subquery = Parser::new(&dialect)
        .try_with_sql(&sql)
        .and_then(|mut p| p.parse_query())
        .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("ANY JOIN rewrite produced invalid SQL ({sql}): {e}")))?;
    Ok(TableFactor::Derived {
        lateral: false,
        subquery,
        alias: Some(ast::TableAlias { explicit: true, name: ast::Ident::new(name), columns: Vec::new(), at: None }),
        sample: None,
    })
}
