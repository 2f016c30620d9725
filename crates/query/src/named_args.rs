//! `name = value` arguments of table functions (`s3(url, partition_strategy = 'hive')`,
//! `s3(collection, url = '...')`).
//!
//! DataFusion plans table function arguments as expressions over no columns and
//! simplifies them, which rejects `name = value` (an unknown column). Before planning,
//! such an argument becomes `named_struct('name', value)`: a constant that folds to a
//! one-field struct literal, which `granary_io::function::named_argument` reads back.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    self, BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArgOperator, FunctionArgumentList, FunctionArguments, Ident, ObjectName,
    ObjectNamePart, TableFactor, Value, VisitorMut,
};

/// Rewrites the `name = value` arguments of every table function in `statement`.
pub(crate) fn rewrite_named_arguments(statement: &mut ast::Statement) {
    struct Rewriter;
    impl VisitorMut for Rewriter {
        type Break = ();
        fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
            if let TableFactor::Table { args: Some(args), .. } = factor {
                for arg in args.args.iter_mut() {
                    if let Some(rewritten) = as_named_struct(arg) {
                        *arg = FunctionArg::Unnamed(FunctionArgExpr::Expr(rewritten));
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = granary_sql::walk::walk_mut(statement, &mut Rewriter);
}

fn as_named_struct(arg: &FunctionArg) -> Option<Expr> {
    let (name, value) = match arg {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::BinaryOp { left, op: BinaryOperator::Eq, right })) => match left.as_ref() {
            Expr::Identifier(ident) => (ident.value.clone(), right.as_ref().clone()),
            _ => return None,
        },
        FunctionArg::Named { name, arg: FunctionArgExpr::Expr(value), operator: FunctionArgOperator::Equals } => (name.value.clone(), value.clone()),
        FunctionArg::ExprNamed { name: Expr::Identifier(ident), arg: FunctionArgExpr::Expr(value), operator: FunctionArgOperator::Equals } => {
            (ident.value.clone(), value.clone())
        }
        _ => return None,
    };
    Some(named_struct(&name, value))
}

fn named_struct(name: &str, value: Expr) -> Expr {
    let key = Expr::Value(Value::SingleQuotedString(name.to_string()).into());
    Expr::Function(ast::Function {
        name: ObjectName(vec![ObjectNamePart::Identifier(Ident::new("named_struct"))]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(key)), FunctionArg::Unnamed(FunctionArgExpr::Expr(value))],
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// The same rewrite for the argument texts of `INSERT INTO FUNCTION f(...)`: `name =
/// value` becomes `named_struct('name', value)`; other texts are returned as they are.
pub(crate) fn rewrite_named_argument_text(text: &str) -> String {
    let trimmed = text.trim();
    let Some(at) = trimmed.find('=') else { return text.to_string() };
    let (name, rest) = (trimmed[..at].trim(), &trimmed[at + 1..]);
    let is_identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_identifier || rest.starts_with('=') || rest.trim().is_empty() {
        return text.to_string();
    }
    format!("named_struct('{name}', {})", rest.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_texts() {
        assert_eq!(rewrite_named_argument_text(" partition_strategy = 'hive'"), "named_struct('partition_strategy', 'hive')");
        assert_eq!(rewrite_named_argument_text("'http://h/a=b.csv'"), "'http://h/a=b.csv'");
        assert_eq!(rewrite_named_argument_text("a == b"), "a == b");
        assert_eq!(rewrite_named_argument_text("NOSIGN"), "NOSIGN");
    }
}
