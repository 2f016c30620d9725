//! The forms that stand for several columns inside an expression: `f(*)`, `f(t.*)` and
//! `COLUMNS('regexp')` (as an argument or a SELECT-list item). The query layer expands
//! them once the FROM clause's columns are known; the front end only has to recognise
//! them, and leaves the result columns they appear in unnamed until then, since
//! ClickHouse names them after the expansion (`cityHash64(*)` is `cityHash64(number)`).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName, ObjectNamePart, Value};

use crate::walk::exprs;

/// What a column-list form stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnList {
    /// `*`: every column.
    All,
    /// `t.*`: the columns of table (or alias) `t`.
    OfTable(String),
    /// `COLUMNS('regexp')`: the columns whose name matches.
    Matching(String),
}

/// The column list function argument `arg` of `function` is, if it is one. `count(*)`
/// is not: it counts rows.
pub fn argument_column_list(function: &str, arg: &FunctionArg) -> Option<ColumnList> {
    let FunctionArg::Unnamed(arg) = arg else { return None };
    match arg {
        FunctionArgExpr::Wildcard if !function.eq_ignore_ascii_case("count") => Some(ColumnList::All),
        FunctionArgExpr::QualifiedWildcard(name) => last_part(name).map(ColumnList::OfTable),
        FunctionArgExpr::Expr(expr) => columns_call(expr),
        _ => None,
    }
}

/// `COLUMNS('regexp')`.
pub fn columns_call(expr: &Expr) -> Option<ColumnList> {
    let Expr::Function(f) = expr else { return None };
    if !last_part(&f.name).is_some_and(|n| n.eq_ignore_ascii_case("COLUMNS")) {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else { return None };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))] => match &v.value {
            Value::SingleQuotedString(pattern) => Some(ColumnList::Matching(pattern.clone())),
            _ => None,
        },
        _ => None,
    }
}

/// The last part of a (possibly qualified) name.
pub fn last_part(name: &ObjectName) -> Option<String> {
    match name.0.last() {
        Some(ObjectNamePart::Identifier(ident)) => Some(ident.value.clone()),
        _ => None,
    }
}

/// Whether `f` has a column-list argument.
pub fn has_column_list_argument(f: &datafusion::sql::sqlparser::ast::Function) -> bool {
    let FunctionArguments::List(list) = &f.args else { return false };
    let name = last_part(&f.name).unwrap_or_default();
    list.args.iter().any(|a| argument_column_list(&name, a).is_some())
}

/// Whether `expr` uses a column list anywhere (subqueries included).
pub fn uses_column_lists(expr: &Expr) -> bool {
    columns_call(expr).is_some()
        || exprs(expr, &mut |e| match e {
            Expr::Function(f) if has_column_list_argument(f) => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        })
        .is_break()
}

/// One column transformer of a [`crate::column_transformers`] marker call.
#[derive(Debug, Clone, PartialEq)]
pub enum Transformer {
    /// Leaves out the columns of these names.
    Except { names: Vec<String>, strict: bool },
    /// Computes the columns of these names by these expressions.
    Replace { items: Vec<(String, Expr)>, strict: bool },
    /// Wraps each column into this template, in place of
    /// [`crate::column_transformers::APPLY_PLACEHOLDER`].
    Apply(Expr),
}

/// The column list and the transformers a marker call stands for.
pub fn transformed_columns(expr: &Expr) -> Option<(ColumnList, Vec<Transformer>)> {
    use crate::column_transformers::{APPLY_MARKER, COLUMNS_MARKER, EXCEPT_MARKER, EXCEPT_STRICT_MARKER, REPLACE_MARKER, REPLACE_STRICT_MARKER};
    let Expr::Function(f) = expr else { return None };
    if last_part(&f.name).as_deref() != Some(COLUMNS_MARKER) {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else { return None };
    let (matcher, rest) = list.args.split_first()?;
    let columns = argument_column_list(COLUMNS_MARKER, matcher)?;
    let exprs = |f: &datafusion::sql::sqlparser::ast::Function| -> Option<Vec<Expr>> {
        let FunctionArguments::List(list) = &f.args else { return None };
        list.args.iter().map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
            _ => None,
        }).collect()
    };
    let string = |e: &Expr| match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    };
    let mut transformers = Vec::with_capacity(rest.len());
    for arg in rest {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(call))) = arg else { return None };
        let args = exprs(call)?;
        let name = last_part(&call.name)?;
        transformers.push(match name.as_str() {
            EXCEPT_MARKER | EXCEPT_STRICT_MARKER => {
                Transformer::Except { names: args.iter().map(string).collect::<Option<_>>()?, strict: name == EXCEPT_STRICT_MARKER }
            }
            REPLACE_MARKER | REPLACE_STRICT_MARKER => {
                let items = args.chunks(2).map(|pair| match pair {
                    [e, column] => Some((string(column)?, e.clone())),
                    _ => None,
                });
                Transformer::Replace { items: items.collect::<Option<_>>()?, strict: name == REPLACE_STRICT_MARKER }
            }
            APPLY_MARKER => Transformer::Apply(args.into_iter().next()?),
            _ => return None,
        });
    }
    Some((columns, transformers))
}
