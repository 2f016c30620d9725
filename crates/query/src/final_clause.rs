//! `FROM t FINAL`: the SQL front end turns FINAL into the query's `final` setting (the
//! engines that merge rows read it) and leaves a `WITH (__granary_final)` hint on the
//! table it was written after. Here, before planning, each such table is checked as
//! ClickHouse does: FINAL on an engine that does not merge rows (MergeTree, Memory, a
//! table function, a system table) is ILLEGAL_FINAL, on a CTE name UNSUPPORTED_METHOD;
//! a view ignores it. The hint is removed once checked.

use datafusion::sql::sqlparser::ast::{self, Expr, TableFactor};
use granary_common::{Error, ErrorCode, Result};

use crate::instance::QueryContext;

pub(crate) fn check_final_tables(ctx: &QueryContext, query: &mut ast::Query) -> Result<()> {
    let ctes = granary_sql::views::cte_names(query);
    granary_sql::views::visit_table_factors(query, &mut |factor| {
        let TableFactor::Table { name, args, with_hints, .. } = factor else { return Ok(()) };
        let written = with_hints.len();
        with_hints.retain(|hint| !is_final_marker(hint));
        if with_hints.len() == written {
            return Ok(());
        }
        let Some((database, table)) = granary_sql::views::table_reference(name) else { return Ok(()) };
        if database.is_none() && ctes.contains(&table) {
            return Err(Error::new(ErrorCode::UNSUPPORTED_METHOD, format!("Table expression modifiers FINAL are not supported for subquery {table}")));
        }
        let database = database.unwrap_or_else(|| ctx.current_database.clone());
        let storage = if let Some(stored) = ctx.catalog.database(&database).and_then(|db| db.table(&table)) {
            match &stored.meta.view {
                // A view passes FINAL on to nothing: ClickHouse reads it as without.
                Some(view) if view.target.is_none() => return Ok(()),
                Some(view) => {
                    let target = view.target.as_ref().and_then(|t| ctx.catalog.database(&t.database).and_then(|db| db.table(&t.table)));
                    if target.is_some_and(|t| t.engine.supports_final()) {
                        return Ok(());
                    }
                    granary_engines::view::MATERIALIZED_VIEW_ENGINE.to_string()
                }
                None if stored.engine.supports_final() => return Ok(()),
                None => stored.engine.engine_name().to_string(),
            }
        } else if args.is_some() {
            table_function_storage(&table)
        } else if database == "system" {
            format!("System{}", camel_case(&table))
        } else {
            // An unknown table: planning reports it.
            return Ok(());
        };
        Err(Error::new(ErrorCode::ILLEGAL_FINAL, format!("Storage {storage} doesn't support FINAL")))
    })
}

/// `SAMPLE k`, checked before planning as ClickHouse checks it: the ratios must parse;
/// a table whose engine cannot sample (no sampling key), a table function or a system
/// table is SAMPLING_NOT_SUPPORTED, a subquery or CTE UNSUPPORTED_METHOD, never a
/// silent read of every row. A view ignores it, as in ClickHouse; a materialized view
/// passes it on to its target (see `views::expand_views`). Tables that can sample keep
/// it for the planner (`crate::sample`).
pub(crate) fn check_sample_clauses(ctx: &QueryContext, query: &mut ast::Query) -> Result<()> {
    let ctes = granary_sql::views::cte_names(query);
    granary_sql::views::visit_table_factors(query, &mut |factor| match factor {
        TableFactor::Table { name, args, sample: sample @ Some(_), .. } => {
            if let Some(kind) = sample.as_ref() {
                crate::sample::sample_of(kind)?;
            }
            let Some((database, table)) = granary_sql::views::table_reference(name) else { return Ok(()) };
            if database.is_none() && ctes.contains(&table) && args.is_none() {
                let shown = match sample {
                    Some(ast::TableSampleKind::BeforeTableAlias(s) | ast::TableSampleKind::AfterTableAlias(s)) => s.to_string(),
                    None => String::new(),
                };
                return Err(Error::new(ErrorCode::UNSUPPORTED_METHOD, format!("Table expression modifiers {} are not supported for subquery {table}", shown.trim())));
            }
            let storage = if args.is_some() {
                if database.is_none() && table == "merge" {
                    return Ok(()); // each table it reads must sample
                }
                format!("_table_function.{table}")
            } else {
                let database = database.unwrap_or_else(|| ctx.current_database.clone());
                match ctx.catalog.database(&database).and_then(|db| db.table(&table)) {
                    Some(stored) => match &stored.meta.view {
                        Some(view) if view.target.is_none() => {
                            *sample = None;
                            return Ok(());
                        }
                        Some(view) => {
                            let target = view.target.as_ref().and_then(|t| ctx.catalog.database(&t.database).and_then(|db| db.table(&t.table)));
                            match (target, &view.target) {
                                (Some(target), _) if target.engine.supports_sampling() => return Ok(()),
                                (_, Some(t)) => format!("{}.{}", t.database, t.table),
                                (_, None) => format!("{database}.{table}"),
                            }
                        }
                        None if stored.engine.supports_sampling() => return Ok(()),
                        None => format!("{database}.{table}"),
                    },
                    None if database != "system" => return Ok(()), // an unknown table: planning reports it
                    None => format!("{database}.{table}"),
                }
            };
            Err(Error::new(ErrorCode::SAMPLING_NOT_SUPPORTED, format!("Storage {storage} doesn't support sampling")))
        }
        TableFactor::Derived { sample: Some(ast::TableSampleKind::BeforeTableAlias(sample) | ast::TableSampleKind::AfterTableAlias(sample)), subquery, .. } => {
            Err(Error::new(ErrorCode::UNSUPPORTED_METHOD, format!("Table expression modifiers {sample} are not supported for subquery {subquery}")))
        }
        _ => Ok(()),
    })
}

fn is_final_marker(hint: &Expr) -> bool {
    matches!(hint, Expr::Identifier(ident) if ident.value == granary_sql::FINAL_MARKER && ident.quote_style.is_none())
}

/// The storage ClickHouse names in the message for a table function's table.
fn table_function_storage(function: &str) -> String {
    match function {
        "numbers" | "numbers_mt" => "SystemNumbers".to_string(),
        "zeros" | "zeros_mt" => "SystemZeros".to_string(),
        "s3" | "s3Cluster" | "gcs" => "S3".to_string(),
        "url" => "URL".to_string(),
        "azureBlobStorage" | "azureBlobStorageCluster" => "AzureBlobStorage".to_string(),
        other => {
            let mut chars = other.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        }
    }
}

/// `query_log` as `QueryLog`: system tables' storage names.
fn camel_case(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_names_follow_clickhouse() {
        assert_eq!(table_function_storage("numbers_mt"), "SystemNumbers");
        assert_eq!(table_function_storage("file"), "File");
        assert_eq!(table_function_storage("generateRandom"), "GenerateRandom");
        assert_eq!(camel_case("query_log"), "QueryLog");
        assert_eq!(camel_case("one"), "One");
    }
}
