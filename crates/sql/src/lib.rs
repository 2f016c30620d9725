//! The ClickHouse SQL front end.
//!
//! ```text
//!  query text ──► lexer (sqlparser's tokenizer, ClickHouse dialect, byte offsets)
//!       │            ├─ {name:Type} parameters substituted at token level (params)
//!       │            └─ FINAL after a table name: the `final` setting, and a
//!       │               `WITH (__granary_final)` hint on that table ([`FINAL_MARKER`])
//!       ▼
//!  statement parser (parse)
//!       ├─ SELECT / WITH / INSERT ... SELECT ─► sqlparser AST ─► rewrite (ClickHouse names,
//!       │                                          PREWHERE, LIMIT BY, SETTINGS, FORMAT)
//!       └─ DDL and utility statements ─► our own small grammar over the same tokens, so
//!                                          ClickHouse's exact syntax (ENGINE = ..., CODEC, ...)
//!                                          is accepted without forking sqlparser
//! ```
//!
//! The crate knows nothing of storage or execution: it produces [`Statement`] values that
//! the interpreter (granary-query) turns into DataFusion plans and engine calls.
//!
//! Modules: [`lexer`] (tokens with byte offsets, statement splitting), [`params`]
//! (query parameters), [`parse`] (statements), [`rewrite`] (AST rewrites for DataFusion;
//! `conditions`: numbers as conditions, PREWHERE),
//! [`names`] (ClickHouse column names of expressions), [`views`] (table references of
//! view queries).

pub mod lexer;
pub mod aliases;
mod array_join;
pub mod column_lists;
mod conditions;
mod join_strictness;
mod asof_using;
pub use join_strictness::ASOF_MARKER;
pub mod names;
pub mod params;
pub mod parse;
pub mod rewrite;
mod subqueries;
mod ternary;
mod tuple_literals;
pub mod inline_aliases;
pub mod walk;
mod casts;
pub mod column_transformers;
pub mod views;

pub use datafusion::sql::sqlparser;
pub use parse::{
    parse_expression, parse_statement, AlterCommand, ColumnChange, ColumnPosition, ColumnSpec, ConstraintSpec, CreateDictionary, CreateTable, CreateView, DictionaryClauseSpec, EngineSpec, IndexSpec, InsertSource, InsertStatement, InsertTarget, NameFilter, NamedCollectionEntry, TableFunctionCall, ParseOptions, SqlFunction, Statement,
    StatementWithClauses, TableName,
};
pub use lexer::split_statements;

/// The table hint (`WITH (__granary_final)`) that stands for `FINAL` after a table in
/// the AST: the query layer checks that the table's engine supports FINAL, then
/// removes it.
pub const FINAL_MARKER: &str = "__granary_final";
