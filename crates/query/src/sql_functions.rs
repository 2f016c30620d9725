//! SQL user-defined functions: `CREATE FUNCTION linear AS (x, k, b) -> k * x + b`.
//!
//! As in ClickHouse, a call is replaced by the function's body with the arguments put in
//! place of the parameters, before the query is planned ([`SqlFunctions::expand`]); a
//! body may call other such functions. Each definition is kept as its CREATE statement in
//! `<path>/user_defined/function_<name>.sql` (ClickHouse's layout), written to a
//! temporary file, fsynced and renamed, so a crash leaves the old or the new definition.
//! Names are case-sensitive and may not be those of built-in functions or aggregates.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use datafusion::sql::sqlparser::ast::{self, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectNamePart};
use granary_common::{Error, ErrorCode, Result};
use granary_sql::rewrite::RewriteOptions;
use granary_sql::{ParseOptions, SqlFunction, Statement};
use parking_lot::RwLock;

/// How deeply bodies may call other functions: deeper is taken as recursion.
const MAX_EXPANSION_DEPTH: usize = 64;

/// A defined function: its statement and its body as parsed.
#[derive(Debug)]
struct Defined {
    definition: SqlFunction,
    body: Expr,
}

#[derive(Debug, Default)]
pub struct SqlFunctions {
    /// `None` for an instance without a data directory of its own: definitions live in memory.
    directory: Option<PathBuf>,
    functions: RwLock<BTreeMap<String, Arc<Defined>>>,
}

impl SqlFunctions {
    /// Loads the definitions stored in `directory`.
    pub fn open(directory: Option<PathBuf>) -> Result<SqlFunctions> {
        let registry = SqlFunctions { directory, functions: RwLock::new(BTreeMap::new()) };
        let Some(dir) = &registry.directory else { return Ok(registry) };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(registry),
            Err(e) => return Err(storage_error(dir, "read", e)),
        };
        for entry in entries {
            let path = entry.map_err(|e| storage_error(dir, "read", e))?.path();
            let is_definition = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("function_") && n.ends_with(".sql"));
            if !is_definition {
                continue; // `.tmp` files of an interrupted CREATE
            }
            let text = std::fs::read_to_string(&path).map_err(|e| storage_error(&path, "read", e))?;
            let definition = match parse_statement(&text)? {
                Statement::CreateFunction(definition) => definition,
                _ => return Err(Error::new(ErrorCode::CORRUPTED_DATA, format!("{} does not hold a CREATE FUNCTION", path.display()))),
            };
            let defined = Defined { body: parse_body(&definition)?, definition };
            registry.functions.write().insert(defined.definition.name.clone(), Arc::new(defined));
        }
        Ok(registry)
    }

    /// `CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS]`. `builtin` tells what a name already
    /// is among the built-in functions ("function" or "aggregate function").
    pub fn create(&self, definition: SqlFunction, builtin: impl Fn(&str) -> Option<&'static str>) -> Result<()> {
        if let Some(kind) = builtin(&definition.name) {
            return Err(Error::new(ErrorCode::FUNCTION_ALREADY_EXISTS, format!("The {kind} '{}' already exists", definition.name)));
        }
        let body = parse_body(&definition)?;
        let mut functions = self.functions.write();
        if functions.contains_key(&definition.name) && !definition.or_replace {
            if definition.if_not_exists {
                return Ok(());
            }
            return Err(Error::new(
                ErrorCode::FUNCTION_ALREADY_EXISTS,
                format!("User-defined object '{0}' already exists: while adding user defined function `{0}`", definition.name),
            ));
        }
        let stored = SqlFunction { or_replace: false, if_not_exists: false, ..definition };
        self.store(&stored)?;
        functions.insert(stored.name.clone(), Arc::new(Defined { definition: stored, body }));
        Ok(())
    }

    /// `DROP FUNCTION [IF EXISTS] name`.
    pub fn drop(&self, name: &str, if_exists: bool) -> Result<()> {
        let mut functions = self.functions.write();
        if !functions.contains_key(name) {
            if if_exists {
                return Ok(());
            }
            return Err(Error::new(ErrorCode::UNKNOWN_FUNCTION, format!("User-defined object '{name}' doesn't exist: while removing user defined function `{name}`")));
        }
        if let Some(dir) = &self.directory {
            let path = dir.join(file_name(name));
            std::fs::remove_file(&path).map_err(|e| storage_error(&path, "remove", e))?;
            granary_storage::fs::sync_dir(dir)?;
        }
        functions.remove(name);
        Ok(())
    }

    /// The definitions, by name.
    pub fn list(&self) -> Vec<SqlFunction> {
        self.functions.read().values().map(|d| d.definition.clone()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.functions.read().is_empty()
    }

    /// Replaces every call of a defined function in `statement` by its body.
    pub fn expand(&self, statement: &mut ast::Statement) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let functions = self.functions.read().clone();
        let outcome = granary_sql::walk::exprs_mut(statement, &mut |expr| match expand_call(expr, &functions, 0) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        });
        match outcome {
            ControlFlow::Break(e) => Err(e),
            ControlFlow::Continue(()) => Ok(()),
        }
    }

    fn store(&self, definition: &SqlFunction) -> Result<()> {
        let Some(dir) = &self.directory else { return Ok(()) };
        granary_storage::fs::create_dir_all(dir)?;
        granary_storage::fs::write_atomic(&dir.join(file_name(&definition.name)), definition.create_query().as_bytes())
    }
}

/// If `expr` calls a defined function, replaces it by the body with its arguments; bodies
/// that call defined functions are expanded in turn.
fn expand_call(expr: &mut Expr, functions: &BTreeMap<String, Arc<Defined>>, depth: usize) -> Result<()> {
    let Expr::Function(call) = expr else { return Ok(()) };
    let [ObjectNamePart::Identifier(name)] = call.name.0.as_slice() else { return Ok(()) };
    let Some(defined) = functions.get(&name.value) else { return Ok(()) };
    if depth >= MAX_EXPANSION_DEPTH {
        return Err(Error::new(ErrorCode::TOO_DEEP_RECURSION, format!("Function {} calls itself (expanded {depth} times)", name.value)));
    }
    let args: Vec<Expr> = match &call.args {
        FunctionArguments::None => Vec::new(),
        FunctionArguments::List(list) => list
            .args
            .iter()
            .map(|arg| match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(e.clone()),
                other => Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Argument {other} of function {} is not an expression", name.value))),
            })
            .collect::<Result<_>>()?,
        FunctionArguments::Subquery(_) => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Function {} takes expressions, not a subquery", name.value))),
    };
    let params = &defined.definition.params;
    if args.len() != params.len() {
        return Err(Error::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Lambda {} expect {} arguments. Actual: {}", defined.definition.create_query(), params.len(), args.len()),
        ));
    }
    let mut body = defined.body.clone();
    let substituted = granary_sql::walk::exprs_mut(&mut body, &mut |e| {
        if let Expr::Identifier(ident) = e {
            if let Some(i) = params.iter().position(|p| *p == ident.value) {
                *e = Expr::Nested(Box::new(args[i].clone()));
            }
        }
        ControlFlow::<()>::Continue(())
    });
    debug_assert!(substituted.is_continue());
    // Calls inside the body (after substitution: arguments were expanded already).
    let nested = granary_sql::walk::exprs_mut(&mut body, &mut |e| match expand_call(e, functions, depth + 1) {
        Ok(()) => ControlFlow::Continue(()),
        Err(err) => ControlFlow::Break(err),
    });
    if let ControlFlow::Break(e) = nested {
        return Err(e);
    }
    *expr = Expr::Nested(Box::new(body));
    Ok(())
}

/// `parse` run with the query front end's options and no parameters.
fn with_parse_options<T>(parse: impl FnOnce(&ParseOptions<'_>) -> T) -> T {
    let params = std::collections::HashMap::new();
    let case_insensitive = |name: &str| granary_functions::is_case_insensitive(name);
    parse(&ParseOptions { params: &params, rewrite: RewriteOptions { is_case_insensitive: Some(&case_insensitive), clickhouse_functions: true }, max_query_size: 0 })
}

fn parse_statement(text: &str) -> Result<Statement> {
    Ok(with_parse_options(|options| granary_sql::parse_statement(text, options))?.0.statement)
}

/// The body as the query parser leaves a SELECT-list expression (ClickHouse's casts,
/// operators and conditions already rewritten), its parameters as bare names.
fn parse_body(definition: &SqlFunction) -> Result<Expr> {
    with_parse_options(|options| granary_sql::parse_expression(&definition.body, options))
        .map_err(|e| Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot parse the body of function {}: {}", definition.name, e)))
}

/// ClickHouse's file name for a function: the name escaped, so no name leaves the directory.
fn file_name(name: &str) -> String {
    format!("function_{}.sql", granary_storage::fs::escape_for_file_name(name))
}

fn storage_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::new(ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR, format!("Cannot {what} {}: {e}", path.display()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn definition(sql: &str) -> SqlFunction {
        match parse_statement(sql).unwrap() {
            Statement::CreateFunction(f) => f,
            other => panic!("{other:?}"),
        }
    }

    fn expanded(registry: &SqlFunctions, sql: &str) -> String {
        let Statement::Query { query, .. } = parse_statement(sql).unwrap() else { panic!() };
        let mut statement = ast::Statement::Query(query);
        registry.expand(&mut statement).unwrap();
        statement.to_string()
    }

    #[test]
    fn create_expand_replace_drop_and_reload() {
        let dir = tempfile::tempdir().unwrap();
        let registry = SqlFunctions::open(Some(dir.path().to_path_buf())).unwrap();
        let none = |_: &str| None;
        registry.create(definition("CREATE FUNCTION lin AS (x, k, b) -> k * x + b"), none).unwrap();
        registry.create(definition("CREATE FUNCTION twice AS x -> lin(x, 2, 0)"), none).unwrap();
        let sql = expanded(&registry, "SELECT twice(number + 1) FROM numbers(3)");
        // The calls are gone (the column keeps its name as written), the argument is in place.
        assert!(sql.starts_with("SELECT ((plus(multiply((2), ((plus(number, 1))))"), "{sql}");
        assert!(!sql.contains("lin("), "{sql}");
        let again = registry.create(definition("CREATE FUNCTION lin AS (x) -> x"), none).unwrap_err();
        assert_eq!(again.code(), ErrorCode::FUNCTION_ALREADY_EXISTS);
        registry.create(definition("CREATE FUNCTION IF NOT EXISTS lin AS (x) -> x"), none).unwrap();
        registry.create(definition("CREATE OR REPLACE FUNCTION lin AS (x, k, b) -> x"), none).unwrap();
        let builtin = registry.create(definition("CREATE FUNCTION plus AS (x) -> x"), |_| Some("function")).unwrap_err();
        assert_eq!(builtin.code(), ErrorCode::FUNCTION_ALREADY_EXISTS);
        // Restart: the definitions come back from their files.
        let reopened = SqlFunctions::open(Some(dir.path().to_path_buf())).unwrap();
        assert_eq!(reopened.list().iter().map(|f| f.create_query()).collect::<Vec<_>>(), [
            "CREATE FUNCTION lin AS (x, k, b) -> x",
            "CREATE FUNCTION twice AS x -> lin(x, 2, 0)"
        ]);
        reopened.drop("lin", false).unwrap();
        assert_eq!(reopened.drop("lin", false).unwrap_err().code(), ErrorCode::UNKNOWN_FUNCTION);
        reopened.drop("lin", true).unwrap();
        assert_eq!(SqlFunctions::open(Some(dir.path().to_path_buf())).unwrap().list().len(), 1);
    }

    #[test]
    fn wrong_argument_counts_and_recursion_are_errors() {
        let registry = SqlFunctions::open(None).unwrap();
        registry.create(definition("CREATE FUNCTION one AS (x) -> x"), |_| None).unwrap();
        registry.create(definition("CREATE FUNCTION loop AS (x) -> loop(x)"), |_| None).unwrap();
        let parse = |sql: &str| {
            let Statement::Query { query, .. } = parse_statement(sql).unwrap() else { panic!() };
            ast::Statement::Query(query)
        };
        assert_eq!(registry.expand(&mut parse("SELECT one(1, 2)")).unwrap_err().code(), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(registry.expand(&mut parse("SELECT loop(1)")).unwrap_err().code(), ErrorCode::TOO_DEEP_RECURSION);
    }
}
