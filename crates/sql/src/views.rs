//! What views need from a query's syntax tree: table names resolved in the view's own
//! database, the table a materialized view reads its inserted rows from, and every
//! table reference, for the interpreter to replace views by their queries.

use std::collections::HashSet;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{Ident, ObjectName, ObjectNamePart, Query, SetExpr, TableFactor, TableWithJoins, VisitorMut};

use crate::walk::walk_mut;
use granary_common::Result;

/// `[db.]table` of a table reference, when it names a table (not a table function).
pub fn table_reference(name: &ObjectName) -> Option<(Option<String>, String)> {
    let parts: Vec<&Ident> = name.0.iter().map(|p| p.as_ident()).collect::<Option<Vec<_>>>()?;
    match parts.as_slice() {
        [table] => Some((None, table.value.clone())),
        [database, table] => Some((Some(database.value.clone()), table.value.clone())),
        _ => None,
    }
}

/// Prefixes every bare table name of `query` with `database` (CTE names excepted), so
/// the query means the same wherever it runs: ClickHouse resolves a view's tables in
/// the view's database, not in the current one of the query that reads it.
pub fn qualify_table_names(query: &mut Query, database: &str) {
    let ctes = cte_names(query);
    let _ = visit_table_factors(query, &mut |factor| {
        if let TableFactor::Table { name, args: None, .. } = factor {
            if let [ObjectNamePart::Identifier(table)] = name.0.as_slice() {
                if !ctes.contains(&table.value) {
                    let table = table.clone();
                    name.0 = vec![ObjectNamePart::Identifier(Ident::new(database)), ObjectNamePart::Identifier(table)];
                }
            }
        }
        Ok(())
    });
}

/// Every name a `WITH name AS (...)` of the query defines, at any depth.
pub fn cte_names(query: &mut Query) -> HashSet<String> {
    struct Ctes(HashSet<String>);
    impl VisitorMut for Ctes {
        type Break = ();
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            if let Some(with) = &query.with {
                self.0.extend(with.cte_tables.iter().map(|cte| cte.alias.name.value.clone()));
            }
            ControlFlow::Continue(())
        }
    }
    let mut ctes = Ctes(HashSet::new());
    let _ = walk_mut(query, &mut ctes);
    ctes.0
}

/// Calls `f` on every table factor of `query`, outermost first; a factor that `f`
/// replaces by a subquery is visited inside too. Stops at the first error.
pub fn visit_table_factors(query: &mut Query, f: &mut dyn FnMut(&mut TableFactor) -> Result<()>) -> Result<()> {
    struct Factors<'a>(&'a mut dyn FnMut(&mut TableFactor) -> Result<()>);
    impl VisitorMut for Factors<'_> {
        type Break = granary_common::Error;
        fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<Self::Break> {
            match (self.0)(factor) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(e),
            }
        }
    }
    match walk_mut(query, &mut Factors(f)) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(e) => Err(e),
    }
}

/// The table a materialized view is triggered by: the first table of the query's
/// (first) FROM, looking through subqueries there, as ClickHouse picks it. `None` when
/// the query reads no table (or only a table function).
pub fn source_table(query: &Query) -> Option<(Option<String>, String)> {
    match query.body.as_ref() {
        SetExpr::Select(select) => select.from.first().and_then(leftmost_table),
        SetExpr::Query(inner) => source_table(inner),
        SetExpr::SetOperation { left, .. } => source_table(&Query { body: left.clone(), ..query.clone() }),
        _ => None,
    }
}

fn leftmost_table(from: &TableWithJoins) -> Option<(Option<String>, String)> {
    match &from.relation {
        TableFactor::Table { name, args: None, .. } => table_reference(name),
        TableFactor::Derived { subquery, .. } => source_table(subquery),
        TableFactor::NestedJoin { table_with_joins, .. } => leftmost_table(table_with_joins),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn query(sql: &str) -> Query {
        *Parser::new(&ClickHouseDialect {}).try_with_sql(sql).unwrap().parse_query().unwrap()
    }

    #[test]
    fn qualifies_bare_tables_but_not_ctes_or_functions() {
        let mut q = query("WITH c AS (SELECT 1) SELECT * FROM t JOIN other.u USING (id) JOIN c ON 1 WHERE x IN (SELECT y FROM w) AND z IN (SELECT 1 FROM numbers(3))");
        qualify_table_names(&mut q, "db");
        let text = q.to_string();
        assert!(text.contains("FROM db.t JOIN other.u"), "{text}");
        assert!(text.contains("JOIN c ON"), "{text}");
        assert!(text.contains("FROM db.w"), "{text}");
        assert!(text.contains("FROM numbers(3)"), "{text}");
    }

    #[test]
    fn source_is_the_first_table_of_the_first_from() {
        assert_eq!(source_table(&query("SELECT a FROM d.src JOIN dim USING (k)")), Some((Some("d".into()), "src".into())));
        assert_eq!(source_table(&query("SELECT a FROM (SELECT * FROM s WHERE v > 1)")), Some((None, "s".into())));
        assert_eq!(source_table(&query("SELECT a FROM s1 UNION ALL SELECT a FROM s2")), Some((None, "s1".into())));
        assert_eq!(source_table(&query("SELECT 1 AS x")), None);
        assert_eq!(source_table(&query("SELECT * FROM numbers(10)")), None);
    }
}
