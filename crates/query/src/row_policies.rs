//! Row policies (`CREATE ROW POLICY ... USING condition TO user`): a user covered by a
//! policy on a table reads only the rows its condition holds for.
//!
//! ClickHouse adds the policy's filter to the table's read; here each reference to such a
//! table is replaced, before planning, by `(SELECT * FROM db.t WHERE filter) AS t`, so
//! whatever the query does with the table (joins, subqueries, views that read it, since
//! views are expanded first) sees the filtered rows, and the filter is pushed into the scan
//! like any WHERE. The combined filter of several policies is
//! [`granary_access::UserAccess::row_filter`]'s. Users covered by no policy of a table read
//! all its rows (ClickHouse's `users_without_row_policies_can_read_rows`, on by default).

use std::collections::HashMap;

use datafusion::sql::sqlparser::ast::{self, Ident, TableAlias, TableFactor};
use granary_common::Result;

use crate::instance::QueryContext;

/// The alias of the table inside the filtering subquery: marks it as filtered already.
const FILTERED_ALIAS: &str = "__granary_row_policy";

/// Replaces each table the user's row policies filter by its filtered rows.
pub(crate) fn apply_row_policies(ctx: &QueryContext, query: &mut ast::Query) -> Result<()> {
    if !ctx.access.has_row_policies() {
        return Ok(());
    }
    let ctes = granary_sql::views::cte_names(query);
    granary_sql::views::visit_table_factors(query, &mut |factor| {
        let TableFactor::Table { name, alias, args: None, with_hints, .. } = factor else { return Ok(()) };
        if alias.as_ref().is_some_and(|a| a.name.value == FILTERED_ALIAS) {
            return Ok(());
        }
        let Some((database, table)) = granary_sql::views::table_reference(name) else { return Ok(()) };
        if database.is_none() && ctes.contains(&table) {
            return Ok(());
        }
        let database = database.unwrap_or_else(|| ctx.current_database.clone());
        let Some(filter) = ctx.access.row_filter(&database, &table) else { return Ok(()) };
        let text = format!(
            "SELECT * FROM {}.{} AS {FILTERED_ALIAS} WHERE {filter}",
            granary_access::rights::quote_name(&database),
            granary_access::rights::quote_name(&table)
        );
        let (mut subquery, _) = crate::views::parse_view_query(&text, &HashMap::new())?;
        // FINAL (a table hint) applies to the table read inside.
        let hints = std::mem::take(with_hints);
        if let ast::SetExpr::Select(select) = subquery.body.as_mut() {
            if let Some(TableFactor::Table { with_hints, .. }) = select.from.first_mut().map(|f| &mut f.relation) {
                *with_hints = hints;
            }
        }
        let alias = alias.take().unwrap_or_else(|| TableAlias { explicit: true, name: Ident::with_quote('`', table.clone()), columns: Vec::new(), at: None });
        *factor = TableFactor::Derived { lateral: false, subquery, alias: Some(alias), sample: None };
        Ok(())
    })
}
