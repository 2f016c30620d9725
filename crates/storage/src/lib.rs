//! The table-engine contract and the catalog.
//!
//! ```text
//!   granary-query ──► Catalog ──► Database ──► Table { meta: TableMeta, engine: Arc<dyn TableEngine> }
//!        │                                                              ▲
//!        │  DataFusion sees tables through EngineTableProvider ─────────┘ (provider.rs)
//!        └─ engines are made by name from the EngineRegistry (Memory, Null, MergeTree, ...)
//! ```
//!
//! * [`engine`]: the [`TableEngine`] trait every engine implements, with plain request
//!   structs for scan, insert, truncate, drop and optimize. Engines are driven only
//!   through it, so storage can move (local disk today, shared object storage later)
//!   without the interpreter noticing.
//! * [`meta`]: [`TableMeta`], the persisted description of a table (columns with
//!   ClickHouse types, engine clause), versioned as a file-format contract.
//! * [`catalog`]: databases and tables, persisted under `<path>/metadata`, table data
//!   under `<path>/store/<uuid>` so a RENAME never moves data.
//! * [`lookup`]: [`KeyLookup`], key-value access for `dictGet` / `joinGet`, and the
//!   [`KeyIndex`] hash index engines build it on.
//! * [`virtual_columns`]: columns an engine computes (`_part`, ...), shown to the planner
//!   only for queries that name them.
//! * [`temporary`]: the temporary tables of a session, seen by its queries only.
//! * [`provider`]: DataFusion `CatalogProvider` / `SchemaProvider` / `TableProvider` adapters.

pub mod catalog;
pub mod defaults;
pub mod engine;
pub mod fs;
pub mod lookup;
pub mod meta;
pub mod provider;
pub mod scan_counter;
pub mod temporary;
pub mod ttl;
pub mod virtual_columns;

pub use catalog::{Catalog, Database, Table};
pub use engine::{
    CheckResult, DeleteRequest, EngineContext, EngineFactory, EngineRegistry, InsertRequest, InsertResult, InsertSquash, MergeStatus, OptimizeRequest, PartLogEvent, UpdateRequest,
    ColumnSizes, MutationStatus, PartLogSink, PartStatus, PartitionCommand, PointReadRequest, PointReadResult, RuleMutation, SampleClause, SampleRatio, TableEngine,
};
pub use lookup::{DuplicateKeys, KeyIndex, KeyLookup};
pub use meta::{ColumnKind, ColumnMeta, ConstraintMeta, DictionaryClause, DictionaryMeta, EngineMeta, IndexMeta, QualifiedName, TableMeta, ViewMeta, TABLE_META_VERSION};
pub use provider::{EngineTableProvider, GranaryCatalogProvider};
pub use scan_counter::ScanCounterExec;
