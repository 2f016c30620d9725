//! ClickHouse's column names for expressions.
//!
//! ClickHouse names an unaliased result column after the expression in its canonical
//! function form: `SELECT 1 + x` has a column named `plus(1, x)`, `count(*)` is
//! `count()`. The names are visible to users (`*WithNames` formats, JSON `meta`,
//! clients keyed by column name), so the SQL front end aliases each projection item
//! with the name ClickHouse would give it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    AccessExpr, BinaryOperator, Subscript, CastKind, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Ident, JoinConstraint,
    JoinOperator, ObjectNamePart, OrderByKind, Query, Select, SelectItem, SetExpr, TableFactor, TableWithJoins, UnaryOperator, Value, Visitor,
    VisitorMut,
};

use crate::params::quote_string;
use crate::walk::{walk, walk_mut};

/// The name ClickHouse gives a result column computed by `expr`.
pub fn column_name(expr: &Expr) -> String {
    let mut out = String::new();
    // ClickHouse names a subexpression aliased inside the expression by its alias.
    if crate::aliases::has_inline_alias(expr) {
        let mut named = expr.clone();
        crate::aliases::inline_aliases_as_names(&mut named);
        write_name(&named, &mut out);
    } else {
        write_name(expr, &mut out);
    }
    out
}

fn call(out: &mut String, name: &str, args: &[&Expr]) {
    out.push_str(name);
    out.push('(');
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_name(arg, out);
    }
    out.push(')');
}

fn binary_function(op: &BinaryOperator) -> Option<&'static str> {
    Some(match op {
        BinaryOperator::Plus => "plus",
        BinaryOperator::Minus => "minus",
        BinaryOperator::Multiply => "multiply",
        BinaryOperator::Divide => "divide",
        BinaryOperator::Modulo => "modulo",
        BinaryOperator::Eq => "equals",
        BinaryOperator::NotEq => "notEquals",
        BinaryOperator::Lt => "less",
        BinaryOperator::Gt => "greater",
        BinaryOperator::LtEq => "lessOrEquals",
        BinaryOperator::GtEq => "greaterOrEquals",
        BinaryOperator::And => "and",
        BinaryOperator::Or => "or",
        BinaryOperator::StringConcat => "concat",
        _ => return None,
    })
}

/// `a AND b AND c` is one `and(a, b, c)` in ClickHouse.
fn flatten<'e>(expr: &'e Expr, op: &BinaryOperator, into: &mut Vec<&'e Expr>) {
    match expr {
        Expr::BinaryOp { left, op: inner, right } if inner == op => {
            flatten(left, op, into);
            flatten(right, op, into);
        }
        other => into.push(other),
    }
}

fn write_name(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Identifier(ident) => out.push_str(&ident.value),
        Expr::CompoundIdentifier(parts) => {
            out.push_str(&parts.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join("."));
        }
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => out.push_str(n),
            Value::SingleQuotedString(s) => out.push_str(&quote_string(s)),
            Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Null => out.push_str("NULL"),
            // `x'4142'` is the string it spells: `'AB'`.
            Value::HexStringLiteral(digits) => {
                let digit = |b: u8| char::from(b).to_digit(16).unwrap_or(0) as u8;
                let bytes: Vec<u8> = digits.as_bytes().chunks(2).map(|pair| pair.iter().fold(0u8, |acc, &b| (acc << 4) | digit(b))).collect();
                out.push_str(&quote_string(&String::from_utf8_lossy(&bytes)));
            }
            other => out.push_str(&other.to_string()),
        },
        Expr::Nested(inner) => write_name(inner, out),
        Expr::BinaryOp { left, op, right } => match binary_function(op) {
            Some(name @ ("and" | "or")) => {
                let mut args = Vec::new();
                flatten(left, op, &mut args);
                flatten(right, op, &mut args);
                call(out, name, &args);
            }
            Some(name) => call(out, name, &[left, right]),
            None => out.push_str(&expr.to_string()),
        },
        Expr::UnaryOp { op: UnaryOperator::Minus, expr: inner } => match inner.as_ref() {
            // `-1` and `-inf` are negative literals to ClickHouse, not calls of negate.
            Expr::Value(v) if matches!(v.value, Value::Number(..)) => {
                out.push('-');
                write_name(inner, out);
            }
            // A negative NaN prints as `nan`.
            Expr::Identifier(ident) if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("nan") => out.push_str("nan"),
            Expr::Identifier(ident) if ident.quote_style.is_none() && ["inf", "infinity"].iter().any(|n| ident.value.eq_ignore_ascii_case(n)) => {
                out.push('-');
                write_name(inner, out);
            }
            _ => call(out, "negate", &[inner]),
        },
        Expr::UnaryOp { op: UnaryOperator::Not, expr: inner } => call(out, "not", &[inner]),
        Expr::IsNull(inner) => call(out, "isNull", &[inner]),
        Expr::IsNotNull(inner) => call(out, "isNotNull", &[inner]),
        Expr::Like { negated, expr: e, pattern, .. } => call(out, if *negated { "notLike" } else { "like" }, &[e, pattern]),
        Expr::ILike { negated, expr: e, pattern, .. } => call(out, if *negated { "notILike" } else { "ilike" }, &[e, pattern]),
        Expr::Between { expr: e, negated, low, high } => {
            let (lo, hi, join) = if *negated { ("less", "greater", "or") } else { ("greaterOrEquals", "lessOrEquals", "and") };
            out.push_str(join);
            out.push('(');
            call(out, lo, &[e, low]);
            out.push_str(", ");
            call(out, hi, &[e, high]);
            out.push(')');
        }
        Expr::InList { expr: e, list, negated } => {
            out.push_str(if *negated { "notIn(" } else { "in(" });
            write_name(e, out);
            out.push_str(", ");
            // One value is written alone: `in(x, 1)`, `in(x, (1, 2))`.
            if let [item] = list.as_slice() {
                write_name(item, out);
            } else {
                out.push('(');
                for (i, item) in list.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_name(item, out);
                }
                out.push(')');
            }
            out.push(')');
        }
        Expr::Cast { kind: CastKind::Cast | CastKind::DoubleColon, expr: e, data_type, .. } => {
            out.push_str("CAST(");
            write_name(e, out);
            out.push_str(", ");
            out.push_str(&quote_string(&crate::rewrite::clickhouse_type_text(data_type)));
            out.push(')');
        }
        Expr::TypedString(typed) => match crate::rewrite::typed_string_function(&typed.data_type) {
            Some(function) => call(out, function, &[&Expr::value(typed.value.value.clone())]),
            None => out.push_str(&expr.to_string()),
        },
        Expr::Array(array) => {
            out.push('[');
            for (i, item) in array.elem.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_name(item, out);
            }
            out.push(']');
        }
        Expr::Tuple(items) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_name(item, out);
            }
            out.push(')');
        }
        // `a[1]` is `arrayElement(a, 1)` (maps too).
        Expr::CompoundFieldAccess { root, access_chain }
            if access_chain.iter().all(|a| matches!(a, AccessExpr::Subscript(Subscript::Index { .. }))) =>
        {
            let mut name = String::new();
            write_name(root, &mut name);
            for access in access_chain {
                if let AccessExpr::Subscript(Subscript::Index { index }) = access {
                    let mut wrapped = format!("arrayElement({name}, ");
                    write_name(index, &mut wrapped);
                    wrapped.push(')');
                    name = wrapped;
                }
            }
            out.push_str(&name);
        }
        Expr::Interval(interval) => match crate::rewrite::interval_call(interval) {
            Some(call) => write_name(&call, out),
            None => out.push_str(&expr.to_string()),
        },
        // ClickHouse's names: `multiIf(c1, r1, ..., else)`, and with an operand
        // `caseWithExpression(x, v1, r1, ..., else)`.
        Expr::Case { operand, conditions, else_result, .. } => {
            let mut args: Vec<&Expr> = operand.as_deref().into_iter().collect();
            for when in conditions {
                args.push(&when.condition);
                args.push(&when.result);
            }
            let null = Expr::value(Value::Null);
            args.push(else_result.as_deref().unwrap_or(&null));
            call(out, if operand.is_some() { "caseWithExpression" } else { "multiIf" }, &args);
        }
        Expr::Function(function) if function.over.is_none() && function.filter.is_none() => {
            // Parts as written, without the quotes the query layer may have put on them.
            let name = function
                .name
                .0
                .iter()
                .map(|part| match part {
                    ObjectNamePart::Identifier(ident) => ident.value.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(".");
            let FunctionArguments::List(list) = &function.args else {
                if matches!(function.args, FunctionArguments::None) {
                    out.push_str(&name);
                } else {
                    out.push_str(&expr.to_string());
                }
                return;
            };
            // ClickHouse names `tuple(a, b)` and `array(a, b)` as the literals they build.
            let brackets = match name.as_str() {
                "tuple" => Some(('(', ')')),
                "array" => Some(('[', ']')),
                _ => None,
            };
            if let (Some((open, close)), FunctionArguments::None, None) = (brackets, &function.parameters, &list.duplicate_treatment) {
                out.push(open);
                write_args(&list.args, out);
                out.push(close);
                return;
            }
            out.push_str(&name);
            if matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct)) {
                out.push_str("Distinct");
            }
            if let FunctionArguments::List(params) = &function.parameters {
                out.push('(');
                write_args(&params.args, out);
                out.push(')');
            }
            out.push('(');
            write_args(&list.args, out);
            out.push(')');
        }
        Expr::Subquery(query) if subquery_number(query).is_some() => {
            out.push_str(&format!("_subquery_{}", subquery_number(query).unwrap_or_default()));
        }
        Expr::InSubquery { expr: probe, subquery, negated } if subquery_number(subquery).is_some() => {
            out.push_str(if *negated { "notIn(" } else { "in(" });
            write_name(probe, out);
            out.push_str(&format!(", _subquery_{})", subquery_number(subquery).unwrap_or_default()));
        }
        other => out.push_str(&other.to_string()),
    }
}

thread_local! {
    /// The `_subquery_N` numbers of the statement being named, by the address of each
    /// subquery's boxed query (see [`number_subqueries`]).
    static SUBQUERY_NUMBERS: RefCell<HashMap<usize, usize>> = RefCell::new(HashMap::new());
}

fn subquery_number(query: &Query) -> Option<usize> {
    SUBQUERY_NUMBERS.with(|numbers| numbers.borrow().get(&(query as *const Query as usize)).copied())
}

/// While alive, [`column_name`] names the subqueries of the statement it was made for
/// `_subquery_N`, as ClickHouse's analyzer does: one counter for the whole statement,
/// taken by each subquery as it is resolved — a SELECT's FROM (derived tables and the
/// CTEs it reads) first, then its SELECT list left to right, then WHERE, GROUP BY,
/// HAVING and ORDER BY — and a subquery takes its number before its own subqueries.
/// The addresses stay valid as long as the boxed queries are not replaced, which the
/// naming rewrites do not do.
pub(crate) struct SubqueryNumbers {
    previous: HashMap<usize, usize>,
}

impl Drop for SubqueryNumbers {
    fn drop(&mut self) {
        let previous = std::mem::take(&mut self.previous);
        SUBQUERY_NUMBERS.with(|numbers| *numbers.borrow_mut() = previous);
    }
}

pub(crate) fn number_subqueries(query: &Query) -> SubqueryNumbers {
    let mut numbering = Numbering { next: 0, numbers: HashMap::new(), ctes: Vec::new(), expanding: Vec::new() };
    numbering.query(query);
    let previous = SUBQUERY_NUMBERS.with(|numbers| std::mem::replace(&mut *numbers.borrow_mut(), numbering.numbers));
    SubqueryNumbers { previous }
}

struct Numbering {
    next: usize,
    numbers: HashMap<usize, usize>,
    /// CTEs in scope, innermost last (copies: a CTE's own subqueries are counted, not
    /// named).
    ctes: Vec<(String, Query)>,
    /// CTEs being resolved (a recursive one is not entered again).
    expanding: Vec<String>,
}

impl Numbering {
    /// `query` takes the next number(s) (`width`: EXISTS (q) is ClickHouse's
    /// `in(1, (SELECT 1 FROM (q) LIMIT 1))`, two queries), then its subqueries theirs.
    fn take(&mut self, query: &Query, width: usize) {
        self.next += width;
        self.numbers.insert(query as *const Query as usize, self.next);
        self.query(query);
    }

    fn query(&mut self, query: &Query) {
        let scope = self.ctes.len();
        if let Some(with) = &query.with {
            self.ctes.extend(with.cte_tables.iter().map(|cte| (cte.alias.name.value.clone(), cte.query.as_ref().clone())));
        }
        self.set_expr(&query.body);
        if let Some(order_by) = &query.order_by {
            if let OrderByKind::Expressions(keys) = &order_by.kind {
                for key in keys {
                    self.expr(&key.expr);
                }
            }
        }
        self.ctes.truncate(scope);
    }

    fn set_expr(&mut self, body: &SetExpr) {
        match body {
            SetExpr::Select(select) => self.select(select),
            SetExpr::Query(query) => self.query(query),
            SetExpr::SetOperation { left, right, .. } => {
                self.set_expr(left);
                self.set_expr(right);
            }
            _ => {}
        }
    }

    fn select(&mut self, select: &Select) {
        for from in &select.from {
            self.table_with_joins(from);
        }
        for item in &select.projection {
            if let SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } = item {
                self.expr(expr);
            }
        }
        if let Some(selection) = &select.selection {
            self.expr(selection);
        }
        if let GroupByExpr::Expressions(keys, _) = &select.group_by {
            for key in keys {
                self.expr(key);
            }
        }
        if let Some(having) = &select.having {
            self.expr(having);
        }
    }

    fn table_with_joins(&mut self, from: &TableWithJoins) {
        self.factor(&from.relation);
        for join in &from.joins {
            self.factor(&join.relation);
        }
        for join in &from.joins {
            let constraint = match &join.join_operator {
                JoinOperator::Join(c)
                | JoinOperator::Inner(c)
                | JoinOperator::Left(c)
                | JoinOperator::LeftOuter(c)
                | JoinOperator::Right(c)
                | JoinOperator::RightOuter(c)
                | JoinOperator::FullOuter(c) => Some(c),
                _ => None,
            };
            if let Some(JoinConstraint::On(on)) = constraint {
                self.expr(on);
            }
        }
    }

    fn factor(&mut self, factor: &TableFactor) {
        match factor {
            TableFactor::Derived { subquery, .. } => self.take(subquery, 1),
            TableFactor::NestedJoin { table_with_joins, .. } => self.table_with_joins(table_with_joins),
            TableFactor::Table { name, args: None, .. } => {
                let [ObjectNamePart::Identifier(ident)] = name.0.as_slice() else { return };
                let Some((cte_name, cte)) = self.ctes.iter().rev().find(|(n, _)| *n == ident.value).cloned() else { return };
                if self.expanding.contains(&cte_name) {
                    return;
                }
                self.next += 1;
                self.expanding.push(cte_name);
                self.query(&cte);
                self.expanding.pop();
            }
            _ => {}
        }
    }

    /// The subqueries of `expr` outside other subqueries take their numbers in the order
    /// ClickHouse resolves them: a function's arguments left to right, `x IN (SELECT
    /// ...)` after `x` (post-order).
    fn expr(&mut self, expr: &Expr) {
        struct Collect<'n> {
            numbering: &'n mut Numbering,
            depth: usize,
        }
        impl Visitor for Collect<'_> {
            type Break = ();
            fn pre_visit_query(&mut self, _query: &Query) -> ControlFlow<()> {
                self.depth += 1;
                ControlFlow::Continue(())
            }
            fn post_visit_query(&mut self, _query: &Query) -> ControlFlow<()> {
                self.depth -= 1;
                ControlFlow::Continue(())
            }
            fn post_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
                if self.depth == 0 {
                    match expr {
                        Expr::Subquery(query) | Expr::InSubquery { subquery: query, .. } => self.numbering.take(query, 1),
                        Expr::Exists { subquery, .. } => self.numbering.take(subquery, 2),
                        _ => {}
                    }
                }
                ControlFlow::Continue(())
            }
        }
        let _ = walk(expr, &mut Collect { numbering: self, depth: 0 });
    }
}

fn write_args(args: &[FunctionArg], out: &mut String) {
    let mut first = true;
    for arg in args {
        let inner = match arg {
            FunctionArg::Unnamed(a) | FunctionArg::Named { arg: a, .. } | FunctionArg::ExprNamed { arg: a, .. } => a,
        };
        match inner {
            FunctionArgExpr::Expr(e) => {
                if !first {
                    out.push_str(", ");
                }
                write_name(e, out);
            }
            // count(*) is count() in ClickHouse's naming.
            FunctionArgExpr::Wildcard | FunctionArgExpr::QualifiedWildcard(_) => continue,
            FunctionArgExpr::WildcardWithOptions(_) => continue,
        }
        first = false;
    }
}

/// Separates the name ClickHouse shows from the number that makes a repeated result
/// column's name unique inside the plan. A NUL byte cannot come from SQL text, so an
/// internal name never collides with a user's alias.
const REPEAT_MARKER: char = '\u{0}';

/// The name a result column is shown under: its internal name for a repeated column
/// (see [`name_repeated_columns`]) is cut back to the name ClickHouse gives it.
pub fn displayed_name(name: &str) -> &str {
    name.split(REPEAT_MARKER).next().unwrap_or(name)
}

/// Whether `name` is the internal name of a repeated result column.
pub fn is_repeat_name(name: &str) -> bool {
    name.contains(REPEAT_MARKER)
}

/// ClickHouse allows a SELECT to return several columns with one name (`SELECT a, a`,
/// `SELECT x, *` where `*` holds `x`, `SELECT 1, 1`); DataFusion requires unique names.
/// Each repeat of a name in every SELECT of `query` is aliased `<name>\0<n>`, which the
/// output cuts back with [`displayed_name`]; INSERT ... SELECT maps columns by position,
/// so it never looks at them. Run after `*` mixed with other items was expanded (the
/// query layer knows the columns); a `*` left in the list is not looked into.
/// Two explicit aliases with one name are left alone: that is an error, not a repeat.
pub fn name_repeated_columns(query: &mut Query) {
    struct Renamer;
    impl VisitorMut for Renamer {
        type Break = ();
        fn post_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
            rename_repeats(&mut select.projection);
            ControlFlow::Continue(())
        }
    }
    let _ = walk_mut(query, &mut Renamer);
}

fn rename_repeats(projection: &mut [SelectItem]) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut aliases: HashMap<String, Expr> = HashMap::new();
    for item in projection.iter_mut() {
        let (name, explicit_alias) = match item {
            SelectItem::ExprWithAlias { alias, .. } => (alias.value.clone(), true),
            SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) => match parts.last() {
                Some(last) => (last.value.clone(), false),
                None => continue,
            },
            SelectItem::UnnamedExpr(expr) => (column_name(expr), false),
            // `* ` and the multi-alias form (`AS (a, b)`) are not named here.
            _ => continue,
        };
        let count = counts.entry(name.clone()).or_insert(0);
        *count += 1;
        // The same alias on two different expressions is ClickHouse's error
        // (MULTIPLE_EXPRESSIONS_FOR_ALIAS, left to the planner); on the same expression
        // (`SELECT 1 AS x, x`) it names two equal columns.
        let repeats_alias = match item {
            SelectItem::ExprWithAlias { expr, .. } => match aliases.get(&name) {
                Some(previous) => previous != expr,
                None => {
                    aliases.insert(name.clone(), expr.clone());
                    false
                }
            },
            _ => false,
        };
        let _ = explicit_alias;
        if *count == 1 || repeats_alias {
            continue;
        }
        let internal = Ident::with_quote('`', format!("{name}{REPEAT_MARKER}{count}"));
        match item {
            SelectItem::ExprWithAlias { alias, .. } => *alias = internal,
            SelectItem::UnnamedExpr(expr) => {
                let expr = std::mem::replace(expr, Expr::value(Value::Null));
                *item = SelectItem::ExprWithAlias { expr, alias: internal };
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn name(sql: &str) -> String {
        let expr = Parser::new(&ClickHouseDialect {}).try_with_sql(sql).unwrap().parse_expr().unwrap();
        column_name(&expr)
    }

    #[test]
    fn clickhouse_names() {
        assert_eq!(name("1"), "1");
        assert_eq!(name("1 + x"), "plus(1, x)");
        assert_eq!(name("count(*)"), "count()");
        assert_eq!(name("count()"), "count()");
        assert_eq!(name("'a'"), "'a'");
        assert_eq!(name("a AND b AND c"), "and(a, b, c)");
        assert_eq!(name("-x"), "negate(x)");
        assert_eq!(name("-1"), "-1");
        assert_eq!(name("toUInt64(number) * 2"), "multiply(toUInt64(number), 2)");
        assert_eq!(name("x IN (1, 2)"), "in(x, (1, 2))");
        assert_eq!(name("x NOT IN (1)"), "notIn(x, 1)");
        assert_eq!(name("m['a'][2]"), "arrayElement(arrayElement(m, 'a'), 2)");
        assert_eq!(name("quantile(0.5)(x)"), "quantile(0.5)(x)");
        assert_eq!(name("count(DISTINCT x)"), "countDistinct(x)");
        assert_eq!(name("d + INTERVAL 1 DAY"), "plus(d, toIntervalDay(1))");
        assert_eq!(name("INTERVAL '3' MONTH"), "toIntervalMonth('3')");
    }

    fn renamed(sql: &str) -> String {
        let statement = Parser::new(&ClickHouseDialect {}).try_with_sql(sql).unwrap().parse_statement().unwrap();
        let datafusion::sql::sqlparser::ast::Statement::Query(mut query) = statement else { panic!("not a query") };
        name_repeated_columns(&mut query);
        query.to_string().replace(REPEAT_MARKER, "#")
    }

    #[test]
    fn repeated_columns_get_internal_names() {
        assert_eq!(renamed("SELECT a, a, t.a FROM t"), "SELECT a, a AS `a#2`, t.a AS `a#3` FROM t");
        assert_eq!(renamed("SELECT 1 + 1 AS x, 1 + 1, number AS x"), "SELECT 1 + 1 AS x, 1 + 1, number AS x");
        assert_eq!(renamed("SELECT number, number AS number FROM (SELECT 1, 1)"), "SELECT number, number AS `number#2` FROM (SELECT 1, 1 AS `1#2`)");
        assert_eq!(displayed_name("a\u{0}2"), "a");
        assert!(is_repeat_name("a\u{0}2") && !is_repeat_name("a"));
    }
}
