//! ALIAS columns, computed when they are read, from the table's current expression (an
//! `ALTER TABLE ... MODIFY COLUMN a ALIAS e` changes what every row shows, as in
//! ClickHouse).
//!
//! Before planning, each reference to a table whose ALIAS columns the query names (or
//! whose `*` includes them, `asterisk_include_alias_columns = 1`) is replaced, as row
//! policies do, by `(SELECT c1, c2, _CAST((e), 'T') AS a, ... FROM db.t AS
//! __granary_alias_columns) AS t`, FINAL and SAMPLE going to the table inside. `*` still
//! leaves the computed columns out: query/column_lists.rs sees through this subquery to
//! the table. The value an INSERT stored for the column is never read.

use std::collections::HashMap;

use datafusion::sql::sqlparser::ast::{self, Ident, TableAlias, TableFactor};
use granary_access::rights::quote_name;
use granary_common::Result;
use granary_storage::{ColumnKind, Table};

use crate::instance::QueryContext;

/// The alias of the table inside the computing subquery: marks it as expanded already.
pub(crate) const ALIAS_SOURCE: &str = "__granary_alias_columns";

/// Replaces each table reference whose ALIAS columns `query` may read by a subquery that
/// computes them.
pub(crate) fn expand_alias_columns(ctx: &QueryContext, query: &mut ast::Query) -> Result<()> {
    let ctes = granary_sql::views::cte_names(query);
    let lookup = |factor: &TableFactor| -> Option<(String, String, std::sync::Arc<Table>)> {
        let TableFactor::Table { name, alias, args: None, .. } = factor else { return None };
        if alias.as_ref().is_some_and(|a| a.name.value == ALIAS_SOURCE) {
            return None;
        }
        let (database, table) = granary_sql::views::table_reference(name)?;
        if database.is_none() && ctes.contains(&table) {
            return None;
        }
        let database = database.unwrap_or_else(|| ctx.current_database.clone());
        let stored = ctx.catalog.table(&database, &table).ok()?;
        stored.meta.columns.iter().any(|c| c.kind() == ColumnKind::Alias).then_some((database, table, stored))
    };
    // Most queries read no table with ALIAS columns: they pay one catalog lookup per table.
    let mut any = false;
    granary_sql::views::visit_table_factors(query, &mut |factor| {
        any |= lookup(factor).is_some();
        Ok(())
    })?;
    if !any {
        return Ok(());
    }
    let text = (!ctx.settings.get_bool("asterisk_include_alias_columns")).then(|| query.to_string());
    granary_sql::views::visit_table_factors(query, &mut |factor| {
        let Some((database, table, stored)) = lookup(factor) else { return Ok(()) };
        let aliases = stored.meta.columns.iter().filter(|c| c.kind() == ColumnKind::Alias);
        if let Some(text) = &text {
            // A name that only looks mentioned costs a subquery, nothing else.
            if !aliases.clone().any(|c| text.contains(c.name.as_str())) {
                return Ok(());
            }
        }
        let items: Vec<String> = stored
            .meta
            .columns
            .iter()
            .map(|c| match (c.kind(), &c.default_expression) {
                (ColumnKind::Alias, Some(expr)) => format!("_CAST(({expr}), '{}') AS {}", c.type_name.replace('\\', "\\\\").replace('\'', "\\'"), quote_name(&c.name)),
                _ => quote_name(&c.name),
            })
            .collect();
        let sql = format!("SELECT {} FROM {}.{} AS {ALIAS_SOURCE}", items.join(", "), quote_name(&database), quote_name(&table));
        let (mut subquery, _) = crate::views::parse_view_query(&sql, &HashMap::new())?;
        let TableFactor::Table { alias, with_hints, sample, .. } = factor else { return Ok(()) };
        // FINAL (a table hint) and SAMPLE apply to the table read inside.
        let (hints, sample) = (std::mem::take(with_hints), sample.take());
        if let ast::SetExpr::Select(select) = subquery.body.as_mut() {
            if let Some(TableFactor::Table { with_hints, sample: inner_sample, .. }) = select.from.first_mut().map(|f| &mut f.relation) {
                *with_hints = hints;
                *inner_sample = sample;
            }
        }
        let alias = alias.take().unwrap_or_else(|| TableAlias { explicit: true, name: Ident::with_quote('`', table.clone()), columns: Vec::new(), at: None });
        *factor = TableFactor::Derived { lateral: false, subquery, alias: Some(alias), sample: None };
        Ok(())
    })
}
