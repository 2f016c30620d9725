//! `getSetting('name')`: the value of a setting for this query, as a typed constant; and
//! the session time zone passed to the parse functions whose type names it.
//!
//! Settings live in the query layer, not in DataFusion's config, so the calls are
//! replaced by literals before planning (the value is fixed for the whole query, as in
//! ClickHouse, where `getSetting` is a constant too).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{self, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Value};
use granary_common::settings::find_setting;
use granary_common::{Error, ErrorCode, Result, SettingKind, Settings};

/// Replaces every `getSetting('name')` in `statement` with the setting's value, and
/// `currentUser()` (`user()`, `current_user()`) with the name of the logged-in user.
pub(crate) fn inline_get_setting(statement: &mut ast::Statement, settings: &Settings, user: &str) -> Result<()> {
    let mut failure = None;
    let _ = granary_sql::walk::exprs_mut(statement, &mut |expr| {
        let Expr::Function(function) = expr else { return ControlFlow::Continue(()) };
        let name = function.name.to_string();
        let no_arguments = match &function.args {
            FunctionArguments::None => true,
            FunctionArguments::List(list) => list.args.is_empty(),
            FunctionArguments::Subquery(_) => false,
        };
        if no_arguments && ["currentUser", "user", "current_user"].iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            *expr = Expr::value(Value::SingleQuotedString(user.to_string()));
            return ControlFlow::Continue(());
        }
        if !name.eq_ignore_ascii_case("getSetting") {
            return ControlFlow::Continue(());
        }
        match setting_literal(&function.args, settings) {
            Ok(literal) => {
                *expr = literal;
                ControlFlow::Continue(())
            }
            Err(e) => {
                failure = Some(e);
                ControlFlow::Break(())
            }
        }
    });
    failure.map_or(Ok(()), Err)
}

fn setting_literal(args: &FunctionArguments, settings: &Settings) -> Result<Expr> {
    let name = match args {
        FunctionArguments::List(list) if list.args.len() == 1 => match &list.args[0] {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v))) => match &v.value {
                Value::SingleQuotedString(s) => Some(s.clone()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let Some(name) = name else {
        return Err(Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "The argument of function getSetting must be a constant string: the name of a setting"));
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
