//! Function-name handling for the SQL front end.
//!
//! DataFusion 55's SQL planner lowercases every *unquoted* function name, whatever
//! `enable_ident_normalization` says (`datafusion-sql` `expr/function.rs` calls
//! `normalize_ident` on the name). ClickHouse names are case-sensitive (`toUInt64`),
//! except those ClickHouse marks case-insensitive (`SUM`, `Count`). So before planning,
//! the front end rewrites function names: case-insensitive ones are lowercased, and all
//! are marked quoted so DataFusion looks them up exactly as written. `arrayMap` and
//! `arrayFilter` with one array become DataFusion's `array_transform` / `array_filter`
//! (arguments swapped). Innermost `-If` and
//! `-Distinct` combinators become `FILTER (WHERE ..)` and `DISTINCT` (see
//! [`crate::combinators`]).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
    ObjectName, ObjectNamePart, Statement, UnaryOperator,
};

use crate::is_case_insensitive;

/// Whether Granary registers an aggregate function under `name`.
fn is_aggregate_name(name: &str) -> bool {
    crate::registered().1.iter().any(|f| f.name() == name || f.aliases().iter().any(|a| a == name))
}

/// ClickHouse's `optimize_injective_functions_inside_uniq` (on by default): an argument of
/// `uniq`/`uniqExact`/... that is an injective function of one argument (`toString(x)`,
/// `-x`, `hex(x)`, ...) counts the same distinct values as its argument, so it is
/// replaced by that argument, repeatedly. This changes what `uniq` hashes, hence its
/// estimate, so Granary must do the same to give ClickHouse's numbers. Only the plain
/// functions are rewritten (not `uniqState`, `uniqIf`), as in ClickHouse.
fn eliminate_injective_inside_uniq(function: &mut Function) {
    const UNIQ_FUNCTIONS: &[&str] = &["uniq", "uniqExact", "uniqHLL12", "uniqCombined", "uniqCombined64", "uniqTheta"];
    const INJECTIVE: &[&str] = &["toString", "negate", "bitNot", "reverse", "hex", "tuple"];
    let [ObjectNamePart::Identifier(name)] = function.name.0.as_slice() else { return };
    if !UNIQ_FUNCTIONS.contains(&name.value.as_str()) || function.over.is_some() {
        return;
    }
    let FunctionArguments::List(list) = &mut function.args else { return };
    for arg in &mut list.args {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(expr)) = arg else { continue };
        loop {
            let inner = match expr {
                Expr::UnaryOp { op: UnaryOperator::Minus, expr: inner } => (**inner).clone(),
                Expr::Nested(inner) => (**inner).clone(),
                Expr::Function(f) => {
                    let injective = matches!(f.name.0.as_slice(), [ObjectNamePart::Identifier(n)] if INJECTIVE.contains(&n.value.as_str()));
                    match &f.args {
                        FunctionArguments::List(l) if injective && f.over.is_none() && f.filter.is_none() && l.args.len() == 1 => match &l.args[0] {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => e.clone(),
                            _ => break,
                        },
                        _ => break,
                    }
                }
                _ => break,
            };
            *expr = inner;
        }
    }
}

/// Rewrites the function names of a parsed statement as described above.
///
/// Also turns `SUBSTRING(s, a, b)` / `SUBSTRING(s FROM a FOR b)`, which the parser
/// reads as special syntax and DataFusion plans with its own `substr` (bypassing the
/// function registry), into a call of ClickHouse's `substring`.
pub fn prepare_function_names(statement: &mut Statement) {
    let _ = visit_expressions_mut(statement, |expr| {
        if let Expr::Substring { expr: inner, substring_from, substring_for, .. } = expr {
            let mut args = vec![FunctionArg::Unnamed(FunctionArgExpr::Expr((**inner).clone()))];
            let from = substring_from.clone().map(|e| *e).unwrap_or_else(|| {
                Expr::Value(datafusion::sql::sqlparser::ast::Value::Number("1".to_string(), false).into())
            });
            args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(from)));
            if let Some(len) = substring_for {
                args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr((**len).clone())));
            }
            *expr = Expr::Function(Function {
                name: ObjectName::from(vec![Ident::with_quote('"', "substring")]),
                uses_odbc_syntax: false,
                parameters: FunctionArguments::None,
                args: FunctionArguments::List(FunctionArgumentList { duplicate_treatment: None, args, clauses: vec![] }),
                filter: None,
                null_treatment: None,
                over: None,
                within_group: vec![],
            });
        }
        if let Expr::Function(function) = expr {
            eliminate_injective_inside_uniq(function);
            if function.over.is_none() {
                // A bad call (`countIf()`) is left for the planner to report.
                let _ = crate::combinators::rewrite_if_distinct(function, &is_aggregate_name);
                crate::combinators::give_count_an_argument(function);
            }
            if function.name.0.len() == 1 {
                if let Some(ObjectNamePart::Identifier(ident)) = function.name.0.first_mut() {
                    // `arrayJoin(arr)`: one row per element, which DataFusion plans as
                    // `unnest` (the column keeps its ClickHouse name, given earlier).
                    if ident.quote_style.is_none() && ident.value == "arrayJoin" {
                        ident.value = "unnest".to_string();
                    }
                    // `arrayMap(x -> f(x), arr)`, `arrayFilter(x -> c(x), arr)`: DataFusion's
                    // higher-order functions, which take the array first.
                    // `arraySort(arr)` / `arrayReverseSort(arr)`: DataFusion's array_sort,
                    // NULLs last as in ClickHouse.
                    let sort = match ident.value.as_str() {
                        "arraySort" if ident.quote_style.is_none() => Some("ASC"),
                        "arrayReverseSort" if ident.quote_style.is_none() => Some("DESC"),
                        _ => None,
                    };
                    if let (Some(direction), FunctionArguments::List(list)) = (sort, &mut function.args) {
                        if list.args.len() == 1 && !matches!(&list.args[0], FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Lambda(_)))) {
                            let text = |t: &str| FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::value(datafusion::sql::sqlparser::ast::Value::SingleQuotedString(t.to_string()))));
                            list.args.push(text(direction));
                            list.args.push(text("NULLS LAST"));
                            ident.value = "array_sort".to_string();
                        }
                    }
                    let higher_order = match ident.value.as_str() {
                        "arrayMap" if ident.quote_style.is_none() => Some("array_transform"),
                        "arrayFilter" if ident.quote_style.is_none() => Some("array_filter"),
                        _ => None,
                    };
                    if let (Some(target), FunctionArguments::List(list)) = (higher_order, &mut function.args) {
                        if list.args.len() == 2 && matches!(&list.args[0], FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Lambda(_)))) {
                            list.args.swap(0, 1);
                            ident.value = target.to_string();
                        }
                    }
                    if ident.quote_style.is_none() {
                        if is_case_insensitive(&ident.value) {
                            ident.value = ident.value.to_ascii_lowercase();
                        }
                        ident.quote_style = Some('"');
                    }
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
}
