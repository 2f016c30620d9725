//! The query layer: one running Granary [`Instance`] (catalog, function registry,
//! query log, process list) and the interpreter that turns a statement into work.
//!
//! ```text
//!  QueryRequest ─► Instance::execute
//!                   ├─ settings: session + URL + SETTINGS clause, validated
//!                   ├─ granary-sql: parse + rewrite ─► Statement
//!                   ├─ SELECT ─► DataFusion logical plan ─► physical plan ─► stream
//!                   │            ─► (LIMIT BY) ─► output format ─► QueryResponse.body
//!                   ├─ INSERT ─► input format (or SELECT) ─► conform to table ─► engine.insert
//!                   └─ DDL / SHOW / SET / USE ─► catalog, session
//! ```
//!
//! Both the HTTP server and `granary local` call [`Instance::execute`]; neither knows
//! how statements run. Modules: [`instance`] (startup, per-query DataFusion state),
//! [`interpreter`] (statements), [`insert`], `async_insert` (async_insert = 1: INSERTs queued and written together), [`output`] (formatting the result stream),
//! [`limit_by`], `column_lists` (`f(*)`, `COLUMNS('re')`: expanded in the AST from the FROM clause's planned columns), `fill` (ORDER BY ... WITH FILL: an extension node and its operator), `final_clause` (`FROM t FINAL` refused for engines that do not merge), `totals` (GROUP BY ... WITH TOTALS: a second plan for the totals row), `unnest` (arrayJoin rows keep their element types), `nested_names` (`n.a` names a Nested subcolumn), [`point_query`] (the key-value fast path), `plan_cache` (physical plans reused for queries that read no stored data), [`lookups`] (dictionaries and joinGet: names, loading, DDL), `views` (views, parameterized views and materialized views: expansion before planning, pushes on INSERT), [`system`] (system tables), [`query_log`], [`text_log`] (`system.text_log`, `send_logs_level`), [`process_list`], [`session`].

mod access;
mod alter_columns;
mod asof;
pub mod sql_functions;
mod async_insert;
mod insert_expressions;
mod alias_columns;
mod buffer_destination;
mod column_lists;
mod fill;
mod final_clause;
mod get_setting;
mod grouping;
pub mod insert;
mod insert_values;
pub mod instance;
pub mod interpreter;
pub mod joins;
pub mod limit_by;
pub mod lookups;
mod nan_order;
mod named_args;
mod nested_names;
pub mod output;
mod plan_cache;
mod sample;
mod row_policies;
pub mod point_query;
pub mod process_list;
pub mod query_log;
pub mod session;
mod stream_order;
pub mod system;
mod system_access;
mod totals;
mod unnest;
mod view_literal_compare;
mod dictionary_group_by;
mod input_function;
mod string_groups;
mod table_functions;
mod views;
pub mod text_log;
pub mod trace_log;

pub use instance::{Instance, InstanceConfig, QueryRequest, QueryResponse};
pub use session::Session;
pub use granary_mergetree::cache::{DEFAULT_MARK_CACHE_SIZE, DEFAULT_UNCOMPRESSED_CACHE_SIZE};
pub use granary_io::remote::S3EndpointConfig;

/// The ClickHouse version Granary answers `version()` with: clients (clickhouse-connect,
/// JDBC, Grafana) switch features on version numbers, so this is the release whose HTTP
/// behaviour Granary follows.
pub const CLICKHOUSE_COMPATIBLE_VERSION: &str = "24.8.1.1";

/// A stream of byte chunks: INSERT data coming in, formatted results going out.
pub type ByteStream = std::pin::Pin<Box<dyn futures::Stream<Item = granary_common::Result<bytes::Bytes>> + Send>>;
