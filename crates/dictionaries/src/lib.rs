//! # granary-dictionaries: `CREATE DICTIONARY`, `dictGet`, and key lookups
//!
//! A dictionary is a catalog object (engine `Dictionary`, with the key, source, layout and
//! lifetime in its `TableMeta`) whose rows live in memory, indexed by key, for lookups at
//! the speed of a hash probe. ClickHouse users reach for them, and for `ENGINE = Join`
//! with `joinGet`, to serve key-value lookups.
//!
//! ```text
//! CREATE DICTIONARY ─► interpreter ─► Catalog::create_table(meta + DictionaryMeta)
//!                                        └─► DictionaryEngineFactory::open ─► DictionaryRegistry
//! SELECT dictGet('d', 'attr', key) ─► query layer qualifies 'd' with the current database
//!        and loads every dictionary the query names (Dictionary::ensure_loaded, which runs
//!        the source SELECT through the SourceRunner the query layer provides)
//!      ─► LookupUdf: KeyIndex::probe + Arrow take, per batch
//! LIFETIME ─► DictionaryRegistry::reload_expired (a periodic task): new copy, atomic swap
//! ```
//!
//! | module | what |
//! |---|---|
//! | [`definition`] | the checked definition: layout, source (as one SELECT), key, defaults |
//! | [`dictionary`] | loaded copies, status for system.dictionaries, reloads, the engine |
//! | [`functions`] | `dictGet[Type][OrDefault]`, `dictGetOrNull`, `dictHas`, `joinGet[OrNull]`, the `dictionary()` table function |
//!
//! Layouts: `FLAT`, `HASHED`, `SPARSE_HASHED`, `HASHED_ARRAY`, their `COMPLEX_KEY_`
//! forms, `CACHE` (loaded whole, refreshed by LIFETIME: the same answers as ClickHouse's
//! on-demand cache), `DIRECT` (the source is read again by every query that uses it)
//! and `[COMPLEX_KEY_]RANGE_HASHED` (rows valid over `RANGE(MIN a MAX b)`, looked up by
//! key and point, `range_lookup_strategy` 'min' or 'max').
//! Not yet: `IP_TRIE`, hierarchies, attribute `EXPRESSION`s, sources on
//! other servers, dictionaries from configuration files.

pub mod config_files;
pub mod definition;
pub mod dictionary;
pub mod functions;
pub mod hierarchy;
pub mod ip_trie;

pub use definition::{DictionaryDefinition, Layout, Source};
pub use dictionary::{Dictionary, DictionaryEngineFactory, DictionaryRegistry, SourceRunner};
pub use functions::{is_lookup_function, lookup_functions, DictionaryTableFunction, LookupEnv};
