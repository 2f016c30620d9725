//! ClickHouse's introspection functions, for reading `system.trace_log`:
//! `addressToSymbol`, `addressToLine`, `addressToLineWithInlines`, `demangle`.
//!
//! They answer about the running server binary, so ClickHouse allows them only with
//! `allow_introspection_functions = 1` ([`check_introspection_allowed`], called when a
//! query is planned).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringArray};
use datafusion::arrow::datatypes::{DataType, UInt64Type};
use datafusion::logical_expr::ScalarUDF;
use datafusion::sql::sqlparser::ast::{visit_expressions, Expr, Statement};
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

use crate::args::{ch_error, Arity, DfResult};
use crate::func::{ExecCtx, RetCtx, ScalarDef};
use crate::text::string_list;

const NAMES: [&str; 4] = ["addressToSymbol", "addressToLine", "addressToLineWithInlines", "demangle"];

pub(crate) fn functions() -> Vec<ScalarUDF> {
    vec![
        address_function("addressToSymbol", granary_profiler::symbols::address_to_symbol),
        address_function("addressToLine", granary_profiler::symbols::address_to_line),
        address_to_line_with_inlines(),
        demangle(),
    ]
}

/// FUNCTION_NOT_ALLOWED when `statement` calls an introspection function and the
/// setting does not allow it (names are case-sensitive, as in ClickHouse).
pub fn check_introspection_allowed(statement: &Statement, allowed: bool, user: &str) -> Result<()> {
    if allowed {
        return Ok(());
    }
    let found = visit_expressions(statement, |expr| match expr {
        Expr::Function(function) if matches!(function.name.0.as_slice(), [part] if part.as_ident().is_some_and(|i| NAMES.contains(&i.value.as_str()))) => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    });
    if found.is_break() {
        return Err(Error::new(
            ErrorCode::FUNCTION_NOT_ALLOWED,
            format!("{user}: Introspection functions are disabled, because setting 'allow_introspection_functions' is set to 0"),
        ));
    }
    Ok(())
}

/// ClickHouse takes exactly UInt64 (an address), not any integer.
fn require_address(ctx: &RetCtx) -> DfResult<()> {
    if ctx.dt(0) == &DataType::UInt64 {
        return Ok(());
    }
    Err(ch_error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("The only argument for function {} must be UInt64. Found {} instead", ctx.name, ctx.ch(0)),
    ))
}

/// Resolving is slow (a symbol table and line-table lookup each); traces repeat the same
/// addresses a lot, so each distinct address of a block is resolved once.
fn resolve_each(ctx: &ExecCtx, resolve: fn(u64) -> String) -> DfResult<ArrayRef> {
    let input = ctx.array(0)?;
    let addresses = input.as_primitive::<UInt64Type>();
    let mut seen: HashMap<u64, Arc<str>> = HashMap::new();
    let out: StringArray = addresses
        .iter()
        .map(|address| address.map(|a| seen.entry(a).or_insert_with(|| Arc::from(resolve(a))).clone()))
        .collect::<Vec<_>>()
        .iter()
        .map(|v| v.as_deref())
        .collect();
    Ok(Arc::new(out))
}

fn address_function(name: &'static str, resolve: fn(u64) -> String) -> ScalarUDF {
    ScalarDef::new(
        name,
        Arity::exact(1),
        |ctx| {
            require_address(ctx)?;
            Ok(ChType::String)
        },
        move |ctx| resolve_each(ctx, resolve),
    )
    .build()
}

fn address_to_line_with_inlines() -> ScalarUDF {
    ScalarDef::new(
        "addressToLineWithInlines",
        Arity::exact(1),
        |ctx| {
            require_address(ctx)?;
            Ok(ChType::Array(Box::new(ChType::String)))
        },
        |ctx| {
            let input = ctx.array(0)?;
            let addresses = input.as_primitive::<UInt64Type>();
            let mut offsets = vec![0i32];
            let mut lines: Vec<String> = Vec::new();
            for (row, &address) in addresses.values().iter().enumerate() {
                if addresses.is_valid(row) {
                    lines.extend(granary_profiler::symbols::address_to_line_with_inlines(address));
                }
                offsets.push(lines.len() as i32);
            }
            string_list(Arc::new(StringArray::from(lines)), offsets)
        },
    )
    .build()
}

fn demangle() -> ScalarUDF {
    ScalarDef::new(
        "demangle",
        Arity::exact(1),
        |ctx| {
            if ctx.dt(0) != &DataType::Utf8 {
                return Err(ch_error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("A value of illegal type was provided as 1st argument 'symbol' to function 'demangle'. Expected: String, got: {}", ctx.ch(0)),
                ));
            }
            Ok(ChType::String)
        },
        |ctx| {
            let input = ctx.array(0)?;
            let names = input.as_string::<i32>();
            let out: StringArray = names.iter().map(|name| name.map(granary_profiler::symbols::demangle)).collect();
            Ok(Arc::new(out) as ArrayRef)
        },
    )
    .build()
}
