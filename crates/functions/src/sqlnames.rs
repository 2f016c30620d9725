//! Function-name handling for the SQL front end.
//!
//! DataFusion 55's SQL planner lowercases every *unquoted* function name, whatever
//! `enable_ident_normalization` says (`datafusion-sql` `expr/function.rs` calls
//! `normalize_ident` on the name). ClickHouse names are case-sensitive (`toUInt64`),
//! except those ClickHouse marks case-insensitive (`SUM`, `Count`). So before planning,
//! the front end rewrites function names: case-insensitive ones are lowercased, and all
//! are marked quoted so DataFusion looks them up exactly as written. The functions that
//! take a lambda (`arrayMap(x -> .., arr)`, `arraySort(x -> .., arr)`, ...) are renamed to their higher-order forms (see
//! [`crate::lambda`]). `arr[i]` and `map[key]` become `arrayElement` calls, ClickHouse's
//! semantics of subscripts. Innermost `-If` and
//! `-Distinct` combinators become `FILTER (WHERE ..)` and `DISTINCT` (see
//! [`crate::combinators`]).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, AccessExpr, BinaryOperator, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
    ObjectName, ObjectNamePart, Statement, Subscript, TrimWhereField, UnaryOperator, Value,
};
use granary_common::Result;

use crate::is_case_insensitive;

/// Whether Granary registers an aggregate function under `name`.
fn is_aggregate_name(name: &str) -> bool {
    crate::registered().1.iter().any(|f| f.name() == name || f.aliases().iter().any(|a| a == name)) || crate::parametric::is_family(name)
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
        // Whether a `tuple(..)` was taken off: it stays where its argument is Nullable,
        // which only the types tell (`__uniq_tuple`). The other injective functions keep
        // the nullability of their argument, so the innermost one decides.
        let mut tuple_taken = false;
        loop {
            let inner = match expr {
                Expr::UnaryOp { op: UnaryOperator::Minus, expr: inner } => (**inner).clone(),
                Expr::Nested(inner) => (**inner).clone(),
                Expr::Function(f) => {
                    let injective = matches!(f.name.0.as_slice(), [ObjectNamePart::Identifier(n)] if INJECTIVE.contains(&n.value.as_str()));
                    let is_tuple = matches!(f.name.0.as_slice(), [ObjectNamePart::Identifier(n)] if n.value == "tuple");
                    match &f.args {
                        FunctionArguments::List(l) if injective && f.over.is_none() && f.filter.is_none() && l.args.len() == 1 => match &l.args[0] {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => {
                                tuple_taken |= is_tuple;
                                e.clone()
                            }
                            _ => break,
                        },
                        _ => break,
                    }
                }
                _ => break,
            };
            *expr = inner;
        }
        if tuple_taken {
            *expr = call("__uniq_tuple", vec![std::mem::replace(expr, Expr::Value(Value::Null.into()))]);
        }
    }
}

/// `uniqExact(a, b, ...)` counts distinct combinations of its arguments, skipping a row
/// where one of them is NULL (ClickHouse's -Null combinator); DataFusion's
/// `count(DISTINCT)` behind `uniqExact` takes one argument, so the arguments become one
/// tuple, NULL when one of them is: `uniqExact(if(a IS NULL OR b IS NULL, NULL, tuple(a, b)))`.
fn uniq_exact_arguments_as_tuple(function: &mut Function) {
    let [ObjectNamePart::Identifier(name)] = function.name.0.as_slice() else { return };
    if name.value != "uniqExact" || function.over.is_some() {
        return;
    }
    let FunctionArguments::List(list) = &mut function.args else { return };
    if list.args.len() < 2 || list.duplicate_treatment.is_some() {
        return;
    }
    let mut exprs = Vec::with_capacity(list.args.len());
    for arg in &list.args {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg else { return };
        exprs.push(e.clone());
    }
    let Some(any_null) = exprs
        .iter()
        .map(|e| Expr::IsNull(Box::new(Expr::Nested(Box::new(e.clone())))))
        .reduce(|a, b| Expr::BinaryOp { left: Box::new(a), op: BinaryOperator::Or, right: Box::new(b) })
    else {
        return;
    };
    let packed = call("if", vec![any_null, Expr::Value(Value::Null.into()), call("tuple", exprs)]);
    list.args = vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(packed))];
}

/// A call of `name` with `args`, looked up exactly as written.
fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::with_quote('"', name)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args.into_iter().map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e))).collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// `root[i][j]` as `arrayElement(arrayElement(root, i), j)`; the chain stops at the
/// first access that is not a plain subscript (a slice, `.field`), which stays as it is.
fn subscripts_to_array_element(expr: &mut Expr) {
    let Expr::CompoundFieldAccess { root, access_chain } = expr else { return };
    let leading = access_chain.iter().take_while(|a| matches!(a, AccessExpr::Subscript(Subscript::Index { .. }))).count();
    if leading == 0 {
        return;
    }
    let rest = access_chain.split_off(leading);
    let mut built = std::mem::replace(root.as_mut(), Expr::value(datafusion::sql::sqlparser::ast::Value::Null));
    for access in access_chain.drain(..) {
        if let AccessExpr::Subscript(Subscript::Index { index }) = access {
            built = call("arrayElement", vec![built, index]);
        }
    }
    *expr = if rest.is_empty() { built } else { Expr::CompoundFieldAccess { root: Box::new(built), access_chain: rest } };
}

/// `TRIM([BOTH | LEADING | TRAILING] [chars FROM] s)` as `trimBoth`/`trimLeft`/
/// `trimRight` (DataFusion would plan its own `btrim`, which ClickHouse's `trim` replaces).
fn trim_to_function(expr: &mut Expr) {
    let Expr::Trim { expr: inner, trim_where, trim_what, trim_characters } = expr else { return };
    let name = match trim_where {
        Some(TrimWhereField::Leading) => "trimLeft",
        Some(TrimWhereField::Trailing) => "trimRight",
        Some(TrimWhereField::Both) | None => "trimBoth",
    };
    let mut args = vec![(**inner).clone()];
    if let Some(what) = trim_what {
        args.push((**what).clone());
    } else if let Some(characters) = trim_characters {
        args.extend(characters.iter().cloned());
    }
    *expr = call(name, args);
}

/// Renames a call of a lambda-taking function whose first argument is a lambda to the
/// function's higher-order form, checking that the lambda takes one parameter per array.
fn rename_lambda_call(ident: &mut Ident, args: &FunctionArguments) -> Result<()> {
    let name = ident.value.as_str();
    if ident.quote_style.is_some() || !crate::lambda::LAMBDA_FUNCTIONS.contains(&name) {
        return Ok(());
    }
    let FunctionArguments::List(list) = args else { return Ok(()) };
    let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Lambda(lambda)))) = list.args.first() else {
        return Ok(());
    };
    let before_arrays = if crate::lambda::LIMIT_LAMBDA_FUNCTIONS.contains(&name) { 2 } else { 1 };
    // A map stands for two arrays, its keys and its values.
    let params_per_argument = if crate::lambda::MAP_LAMBDA_FUNCTIONS.contains(&name) { 2 } else { 1 };
    let arrays = list.args.len().saturating_sub(before_arrays) * params_per_argument;
    crate::lambda::check_lambda_arity(&ident.value, lambda.params.len(), arrays)?;
    ident.value = crate::lambda::lambda_name(&ident.value);
    ident.quote_style = Some('"');
    Ok(())
}

/// `any(x) RESPECT NULLS` (and `first_value`, `anyLast`, `last_value`) outside a window
/// is ClickHouse's `any_respect_nulls(x)` / `anyLast_respect_nulls(x)`.
fn respect_nulls_to_function(function: &mut Function) {
    use datafusion::sql::sqlparser::ast::NullTreatment;
    if !matches!(function.null_treatment, Some(NullTreatment::RespectNulls)) {
        return;
    }
    let [ObjectNamePart::Identifier(ident)] = function.name.0.as_mut_slice() else { return };
    let renamed = match ident.value.to_ascii_lowercase().as_str() {
        "any" | "first_value" => "any_respect_nulls",
        "anylast" | "last_value" => "anyLast_respect_nulls",
        _ => return,
    };
    *ident = Ident::with_quote('"', renamed);
    function.null_treatment = None;
}

/// Rewrites the function names of a parsed statement as described above.
///
/// Also turns `SUBSTRING(s, a, b)` / `SUBSTRING(s FROM a FOR b)`, which the parser
/// reads as special syntax and DataFusion plans with its own `substr` (bypassing the
/// function registry), into a call of ClickHouse's `substring`. Fails only for a lambda
/// whose parameters do not match its arrays (43, as ClickHouse).
pub fn prepare_function_names(statement: &mut Statement) -> Result<()> {
    let outcome = visit_expressions_mut(statement, |expr| {
        subscripts_to_array_element(expr);
        trim_to_function(expr);
        if let Expr::Substring { expr: inner, substring_from, substring_for, .. } = expr {
            // ClickHouse's grammar wants an offset: `substring('abc')` is a syntax error.
            if substring_from.is_none() {
                return ControlFlow::Break(granary_common::Error::new(
                    granary_common::ErrorCode::SYNTAX_ERROR,
                    format!("Syntax error: failed at {expr}: substring needs an offset (substring(s, offset[, length]))"),
                ));
            }
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
            uniq_exact_arguments_as_tuple(function);
            if function.over.is_none() {
                respect_nulls_to_function(function);
                // A bad call (`countIf()`) is left for the planner to report.
                let _ = crate::combinators::rewrite_if_distinct(function, &is_aggregate_name);
                crate::combinators::give_count_an_argument(function);
                if let Err(e) = crate::parametric::rewrite_parametric_call(function, &is_aggregate_name) {
                    return ControlFlow::Break(e);
                }
            }
            if function.name.0.len() == 1 {
                if let Some(ObjectNamePart::Identifier(ident)) = function.name.0.first_mut() {
                    // `arrayJoin(arr)`: one row per element, which DataFusion plans as
                    // `unnest` (the column keeps its ClickHouse name, given earlier).
                    if ident.quote_style.is_none() && ident.value == "arrayJoin" {
                        ident.value = "unnest".to_string();
                    }
                    if let Err(e) = rename_lambda_call(ident, &function.args) {
                        return ControlFlow::Break(e);
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
        ControlFlow::Continue(())
    });
    match outcome {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    use super::*;

    fn prepared(sql: &str) -> Result<String> {
        let mut statement = Parser::parse_sql(&ClickHouseDialect {}, sql).unwrap().remove(0);
        prepare_function_names(&mut statement)?;
        Ok(statement.to_string())
    }

    #[test]
    fn subscripts_become_array_element() {
        assert_eq!(prepared("SELECT a[1][-2], m['k']").unwrap(), r#"SELECT "arrayElement"("arrayElement"(a, 1), -2), "arrayElement"(m, 'k')"#);
    }

    #[test]
    fn trim_syntax_becomes_clickhouse_functions() {
        assert_eq!(
            prepared("SELECT TRIM(BOTH 'x' FROM s), TRIM(LEADING 'x' FROM s), TRIM(TRAILING 'x' FROM s), TRIM(s)").unwrap(),
            r#"SELECT "trimBoth"(s, 'x'), "trimLeft"(s, 'x'), "trimRight"(s, 'x'), "trimBoth"(s)"#
        );
    }

    #[test]
    fn lambda_calls_are_renamed_and_checked() {
        assert_eq!(prepared("SELECT arrayCount(x -> x > 1, a), arrayCount(a)").unwrap(), r#"SELECT "arrayCount(lambda)"(x -> x > 1, a), "arrayCount"(a)"#);
        let err = prepared("SELECT arraySort(x -> x, a, b)").unwrap_err();
        assert_eq!(err.code(), granary_common::ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT);
    }
}
