//! Functions whose value comes from the query layer, replaced by literals before
//! planning: `getSetting('name')`, `getSettingOrDefault('name', default)`,
//! `getServerSetting('name')`, `currentUser()`, `queryID()` (`currentQueryID`,
//! `initialQueryID`) and `hasColumnInTable('db', 'table', 'column')`; and the session
//! time zone passed to the parse functions whose type names it.
//!
//! Settings live in the query layer, not in DataFusion's config, so the calls are
//! replaced by literals before planning (the value is fixed for the whole query, as in
//! ClickHouse, where `getSetting` is a constant too).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{self, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Value};
use granary_common::settings::find_setting;
use granary_common::{Error, ErrorCode, Result, SettingKind, Settings};

use crate::instance::QueryContext;

/// The query ID functions. Granary runs no distributed subqueries, so the initial
/// query is the query itself.
const QUERY_ID_FUNCTIONS: [&str; 6] = ["queryID", "query_id", "currentQueryID", "current_query_id", "initialQueryID", "initial_query_id"];

/// Replaces every `getSetting('name')` in `statement` with the setting's value, and the
/// other functions of the module documentation with their values for this query.
/// Returns whether a value that differs between executions of the same text (a query
/// ID, the catalog's columns) was put in: such a plan must not be reused.
pub(crate) fn inline_get_setting(statement: &mut ast::Statement, ctx: &QueryContext) -> Result<bool> {
    let mut failure = None;
    let mut per_execution = false;
    let _ = granary_sql::walk::exprs_mut(statement, &mut |expr| {
        let Expr::Function(function) = expr else { return ControlFlow::Continue(()) };
        let name = function.name.to_string();
        let arguments = match &function.args {
            FunctionArguments::None => Some(Vec::new()),
            FunctionArguments::List(list) => Some(list.args.iter().collect::<Vec<_>>()),
            FunctionArguments::Subquery(_) => None,
        };
        let Some(arguments) = arguments else { return ControlFlow::Continue(()) };
        let replaced = if arguments.is_empty() && ["currentUser", "user", "current_user", "session_user"].iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            Ok(Some(Expr::value(Value::SingleQuotedString(ctx.access.user.clone()))))
        } else if arguments.is_empty() && QUERY_ID_FUNCTIONS.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            per_execution = true;
            Ok(Some(Expr::value(Value::SingleQuotedString(ctx.query_id.clone()))))
        } else if name.eq_ignore_ascii_case("getSetting") {
            exact_arguments(&name, &arguments, 1).and_then(|_| setting_literal("getSetting", &arguments, &ctx.settings)).map(Some)
        } else if name.eq_ignore_ascii_case("getSettingOrDefault") {
            exact_arguments(&name, &arguments, 2).and_then(|_| match setting_literal("getSettingOrDefault", &arguments, &ctx.settings) {
                Err(e) if e.code() == ErrorCode::UNKNOWN_SETTING => match arguments[1] {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(default)) => Ok(Some(default.clone())),
                    _ => Err(Error::new(ErrorCode::BAD_ARGUMENTS, "The second argument of function getSettingOrDefault must be an expression")),
                },
                other => other.map(Some),
            })
        } else if name.eq_ignore_ascii_case("getServerSetting") {
            exact_arguments(&name, &arguments, 1).and_then(|_| server_setting_literal(&arguments, ctx)).map(Some)
        } else if name.eq_ignore_ascii_case("hasColumnInTable") {
            per_execution = true;
            has_column_in_table(&arguments, ctx).map(|found| Some(Expr::value(Value::Number(u8::from(found).to_string(), false))))
        } else {
            Ok(None)
        };
        match replaced {
            Ok(Some(literal)) => {
                *expr = literal;
                ControlFlow::Continue(())
            }
            Ok(None) => ControlFlow::Continue(()),
            Err(e) => {
                failure = Some(e);
                ControlFlow::Break(())
            }
        }
    });
    failure.map_or(Ok(per_execution), Err)
}

fn exact_arguments(name: &str, arguments: &[&FunctionArg], n: usize) -> Result<()> {
    if arguments.len() == n {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!("Number of arguments for function {name} doesn't match: passed {}, should be {n}", arguments.len()),
    ))
}

/// Argument `i` when it is a string literal.
fn string_argument(arguments: &[&FunctionArg], i: usize) -> Option<String> {
    match arguments.get(i)? {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v))) => match &v.value {
            Value::SingleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The server's own settings `getServerSetting` knows, with their values.
pub(crate) fn server_settings(config: &crate::instance::InstanceConfig) -> std::sync::Arc<[(&'static str, String)]> {
    std::sync::Arc::from([
        ("max_concurrent_queries", config.max_concurrent_queries.to_string()),
        ("mark_cache_size", config.mark_cache_size.to_string()),
        ("uncompressed_cache_size", config.uncompressed_cache_size.to_string()),
    ])
}

fn server_setting_literal(arguments: &[&FunctionArg], ctx: &QueryContext) -> Result<Expr> {
    let name = string_argument(arguments, 0).ok_or_else(|| {
        Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "The argument of function getServerSetting should be a constant string with the name of a setting")
    })?;
    let (_, value) = ctx
        .server_settings
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| Error::new(ErrorCode::UNKNOWN_SETTING, format!("Unknown setting '{name}'")))?;
    Ok(Expr::value(Value::Number(value.clone(), false)))
}

fn has_column_in_table(arguments: &[&FunctionArg], ctx: &QueryContext) -> Result<bool> {
    if !(3..=6).contains(&arguments.len()) {
        return Err(Error::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Number of arguments for function hasColumnInTable doesn't match: passed {}, should be 3, 4, 5 or 6", arguments.len()),
        ));
    }
    // The optional host, user and password of a remote server come before the names.
    let first = arguments.len() - 3;
    // `currentDatabase()` is the usual first name; it is a constant of the query too.
    let name_at = |i: usize| match arguments[i] {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(f)))
            if ["currentDatabase", "database", "current_database", "schema"].iter().any(|n| n.eq_ignore_ascii_case(&f.name.to_string()))
                && (matches!(&f.args, FunctionArguments::None) || matches!(&f.args, FunctionArguments::List(l) if l.args.is_empty())) =>
        {
            Some(ctx.current_database.clone())
        }
        _ => string_argument(arguments, i),
    };
    let names: Vec<String> = (first..arguments.len())
        .map(name_at)
        .collect::<Option<_>>()
        .ok_or_else(|| Error::new(ErrorCode::ILLEGAL_COLUMN, "The arguments of function hasColumnInTable must be constant strings"))?;
    if first > 0 {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "hasColumnInTable of a remote server is not supported"));
    }
    let (database, table, column) = (&names[0], &names[1], &names[2]);
    if database == "system" {
        let columns = crate::system::SystemSchema::table_columns(table)
            .ok_or_else(|| Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table system.{table} does not exist")))?;
        return Ok(columns.contains(&column.as_str()));
    }
    let schema = ctx.catalog.table(database, table)?.schema();
    Ok(schema.fields().iter().any(|f| f.name() == column))
}

fn setting_literal(function: &str, arguments: &[&FunctionArg], settings: &Settings) -> Result<Expr> {
    let Some(name) = string_argument(arguments, 0) else {
        return Err(Error::new(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("The argument of function {function} should be a constant string with the name of a setting"),
        ));
    };
    let def = find_setting(&name).ok_or_else(|| Error::new(ErrorCode::UNKNOWN_SETTING, format!("Unknown setting '{name}'")))?;
    let raw = settings.get(&name).unwrap_or(def.default);
    let text = match def.kind {
        // `auto` (0) resolves to the cores, as ClickHouse prints `auto(N)`.
        SettingKind::MaxThreads => match raw.parse::<u64>() {
            Ok(n) if n > 0 => n.to_string(),
            _ if name == "max_insert_threads" => settings.max_insert_threads().to_string(),
            _ => settings.max_threads().to_string(),
        },
        SettingKind::UInt64 | SettingKind::NonZeroUInt64 | SettingKind::Int64 | SettingKind::Milliseconds => raw.parse::<i128>().map(|n| n.to_string()).unwrap_or_else(|_| "0".into()),
        SettingKind::Bool => (if matches!(raw, "1" | "true") { "true" } else { "false" }).to_string(),
        SettingKind::Float | SettingKind::Seconds => format!("toFloat64({})", raw.parse::<f64>().unwrap_or(0.0)),
        SettingKind::String | SettingKind::DateTimeOutputFormat | SettingKind::DateTimeInputFormat => granary_sql::params::quote_string(raw),
    };
    let parsed = datafusion::sql::sqlparser::parser::Parser::new(&datafusion::sql::sqlparser::dialect::ClickHouseDialect {})
        .try_with_sql(&text)
        .and_then(|mut parser| parser.parse_expr());
    parsed.map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("getSetting('{name}'): {e}")))
}

/// Gives each `parseDateTime*` call without a time zone argument the session's zone (and
/// its default format first when it has none): ClickHouse names that zone in the result
/// type (`DateTime('UTC')`), and a function's type rule cannot see settings. Column
/// names were fixed before (the front end aliases each item), so they stay as written.
pub(crate) fn pin_parse_time_zones(statement: &mut ast::Statement, zone: &str) {
    let _ = granary_sql::walk::exprs_mut(statement, &mut |expr| {
        let Expr::Function(function) = expr else { return ControlFlow::<()>::Continue(()) };
        let [ast::ObjectNamePart::Identifier(name)] = function.name.0.as_slice() else { return ControlFlow::Continue(()) };
        let Some(format) = granary_functions::zoned_parse_default_format(&name.value) else { return ControlFlow::Continue(()) };
        let FunctionArguments::List(list) = &mut function.args else { return ControlFlow::Continue(()) };
        let unnamed = list.args.iter().all(|a| matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Expr(_))));
        if !unnamed || list.args.is_empty() || list.args.len() > 2 {
            return ControlFlow::Continue(());
        }
        if list.args.len() == 1 {
            list.args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::value(Value::SingleQuotedString(format.to_string())))));
        }
        list.args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::value(Value::SingleQuotedString(zone.to_string())))));
        ControlFlow::Continue(())
    });
}
