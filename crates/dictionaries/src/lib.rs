//! # granary-dictionaries: `CREATE DICTIONARY`, dictionaries from config files, `dictGet`
//!
//! A dictionary is a catalog object (engine `Dictionary`, with the key, source, layout and
//! lifetime in its `TableMeta`) whose rows live in memory, indexed by key, for lookups at
//! the speed of a hash probe. ClickHouse users reach for them, and for `ENGINE = Join`
//! with `joinGet`, to serve key-value lookups. The server's configuration can define
//! dictionaries too (ClickHouse's `dictionaries_config`): the same definitions, in no
//! database.
//!
//! ```text
//! CREATE DICTIONARY ─► interpreter ─► Catalog::create_table(meta + DictionaryMeta)
//!                                        └─► DictionaryEngineFactory::open ─► DictionaryRegistry
//! dictionaries_config files ─► config_files (XML / TOML ─► the same TableMeta, in no
//!        database) ─► DictionaryRegistry (by name; rescanned by SYSTEM RELOAD and every 5 s)
//! SELECT dictGet('d', 'attr', key) ─► query layer qualifies 'd' (a config dictionary
//!        first, else the current database) and loads every dictionary the query names
//!        (Dictionary::ensure_loaded, which runs the source SELECT through the
//!        SourceRunner the query layer provides)
//!      ─► LookupUdf: RowIndex (KeyIndex probe, or IP prefix search) + Arrow take, per batch
//!      ─► HierarchyUdf (dictGetHierarchy, dictIsIn, dictGetChildren, dictGetDescendants)
//! LIFETIME ─► DictionaryRegistry::reload_expired (a periodic task): new copy, atomic swap
//! ```
//!
//! | module | what |
//! |---|---|
//! | [`definition`] | the checked definition: layout, source (as one SELECT), key, defaults, hierarchy |
//! | [`dictionary`] | loaded copies, status for system.dictionaries, reloads, the engine, the registry (SQL and config dictionaries) |
//! | [`functions`] | `dictGet[Type][OrDefault]`, `dictGetOrNull`, `dictHas`, `joinGet[OrNull]`, the hierarchy functions, the `dictionary()` table function |
//! | [`ip_trie`] | `IP_TRIE`: sorted, masked prefixes with containment chains; longest-prefix lookups |
//! | [`hierarchy`] | parent links and ClickHouse's walks up and down them (cycles, null value, children order) |
//! | [`config_files`] | ClickHouse's XML dictionary files (and the same in TOML) as definitions |
//!
//! Layouts: `FLAT`, `HASHED`, `SPARSE_HASHED`, `HASHED_ARRAY`, their `COMPLEX_KEY_`
//! forms, `CACHE` (loaded whole, refreshed by LIFETIME: the same answers as ClickHouse's
//! on-demand cache), `DIRECT` (the source is read again by every query that uses it),
//! `[COMPLEX_KEY_]RANGE_HASHED` (rows valid over `RANGE(MIN a MAX b)`, looked up by
//! key and point, `range_lookup_strategy` 'min' or 'max') and `IP_TRIE` (a `String` key
//! of CIDR prefixes looked up by IPv4 `UInt32`, IPv6 `FixedString(16)` or, while Granary
//! has no IP types, address text; `access_to_key_from_attributes`). A repeated key keeps
//! its first row in the hashed layouts and its last in the others, as in ClickHouse.
//! Hierarchies: one `HIERARCHICAL` `UInt64` attribute on a simple-key layout;
//! `dictGetHierarchy`/`dictIsIn` on every such layout but range ones,
//! `dictGetChildren`/`dictGetDescendants` on `FLAT` and the hashed layouts.
//! Not yet: attribute `EXPRESSION`s, sources on other servers (and other source kinds),
//! `POLYGON`, `REGEXP_TREE`, YAML configuration files.

pub mod config_files;
pub mod definition;
pub mod dictionary;
pub mod functions;
pub mod hierarchy;
pub mod ip_trie;

pub use definition::{DictionaryDefinition, Layout, Source};
pub use dictionary::{Dictionary, DictionaryEngineFactory, DictionaryRegistry, SourceRunner};
pub use functions::{is_lookup_function, lookup_functions, DictionaryTableFunction, LookupEnv};
