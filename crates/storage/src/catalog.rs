//! Databases and tables, persisted in the data directory.
//!
//! Layout under the server's `--path`:
//!
//! ```text
//! metadata/<db>.json             database definition ({"engine": "Atomic", ...})
//! metadata/<db>/<table>.json     TableMeta (names come from the file names, escaped)
//! metadata/<db>/<table>.json.detached   TableMeta of a table detached PERMANENTLY
//! store/<uuid>/                  the table's data, owned by its engine
//! temporary/<uuid>/              data of temporary tables (emptied at start)
//! ```
//!
//! Every change is a durable atomic file operation (write-temp + fsync + rename), done
//! under one DDL lock, before the in-memory maps change. A crash between the two leaves
//! the files authoritative; a RENAME is a single `rename(2)` of the metadata file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use granary_common::{Error, ErrorCode, Result, ResultExt};
use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};

use crate::engine::{EngineContext, EngineRegistry, TableEngine};
use crate::fs::{create_dir_all, escape_for_file_name, rename_durable, sync_dir, unescape_file_name, write_atomic};
use crate::meta::{TableMeta, TABLE_META_VERSION};

/// A table: its persisted description and the engine instance serving it.
#[derive(Debug)]
pub struct Table {
    pub meta: TableMeta,
    pub engine: Arc<dyn TableEngine>,
    schema: SchemaRef,
}

impl Table {
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The same table (engine and data) under another database and name.
    fn renamed(&self, database: &str, name: &str) -> Arc<Table> {
        let mut meta = self.meta.clone();
        meta.database = database.to_string();
        meta.name = name.to_string();
        Arc::new(Table { meta, engine: self.engine.clone(), schema: self.schema.clone() })
    }

    /// A table that no database holds, under a full definition: a dictionary from a
    /// configuration file, which lookups reach by name.
    pub fn standalone(meta: TableMeta, engine: Arc<dyn TableEngine>) -> Result<Arc<Table>> {
        let schema = meta.schema()?;
        Ok(Arc::new(Table { meta, engine, schema }))
    }

    /// A table outside any database, for one statement: the target of
    /// `INSERT INTO FUNCTION file(...)`, which the INSERT path treats like any table.
    pub fn detached(database: &str, name: &str, columns: Vec<crate::meta::ColumnMeta>, engine: Arc<dyn TableEngine>) -> Result<Arc<Table>> {
        let meta = TableMeta {
            format_version: TABLE_META_VERSION,
            uuid: String::new(),
            database: database.to_string(),
            name: name.to_string(),
            columns,
            engine: crate::meta::EngineMeta { name: engine.engine_name().to_string(), ..Default::default() },
            comment: None,
            created_at: 0,
            dictionary: None,
            view: None,
            renamed_columns: Vec::new(),
            constraints: Vec::new(),
            indices: Vec::new(),
        };
        let schema = meta.schema()?;
        Ok(Arc::new(Table { meta, engine, schema }))
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct DatabaseMeta {
    format_version: u32,
    engine: String,
}

#[derive(Debug)]
pub struct Database {
    pub name: String,
    pub engine: String,
    tables: RwLock<BTreeMap<String, Arc<Table>>>,
}

impl Database {
    pub fn table(&self, name: &str) -> Option<Arc<Table>> {
        self.tables.read().get(name).cloned()
    }

    pub fn table_names(&self) -> Vec<String> {
        self.tables.read().keys().cloned().collect()
    }

    pub fn tables(&self) -> Vec<Arc<Table>> {
        self.tables.read().values().cloned().collect()
    }
}

pub struct Catalog {
    metadata_dir: PathBuf,
    store_dir: PathBuf,
    registry: EngineRegistry,
    databases: RwLock<BTreeMap<String, Arc<Database>>>,
    /// Names served by the interpreter itself (`system`, `INFORMATION_SCHEMA`).
    reserved: Vec<String>,
    /// Serialises DDL so file operations and map updates happen in one order.
    ddl: Mutex<()>,
    /// Tables taken out by DETACH, kept for ATTACH. A plain DETACH leaves the metadata
    /// file in place, so the next start attaches the table again (as ClickHouse); one
    /// detached PERMANENTLY has its file renamed to `*.json.detached` and stays detached.
    detached: Mutex<BTreeMap<(String, String), TableMeta>>,
    /// Databases taken out by DETACH DATABASE; their files stay, the next start attaches them.
    detached_databases: Mutex<std::collections::BTreeSet<String>>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog").field("metadata_dir", &self.metadata_dir).finish()
    }
}

pub const DEFAULT_DATABASE: &str = "default";

/// The journal of an EXCHANGE TABLES in progress, in the metadata directory (not
/// `*.json`, so it is never read as a database).
const EXCHANGE_JOURNAL: &str = "exchange.journal";

/// The journal of a RENAME DATABASE in progress: a database is a directory of table
/// files and a file of its own, two renames that one journal makes atomic.
const RENAME_DATABASE_JOURNAL: &str = "rename_database.journal";

#[derive(Debug, Serialize, Deserialize)]
struct RenameDatabaseJournal {
    from: String,
    to: String,
}

/// The new contents of the metadata files an EXCHANGE TABLES rewrites, by path relative
/// to the metadata directory.
#[derive(Debug, Serialize, Deserialize)]
struct ExchangeJournal {
    files: Vec<(PathBuf, String)>,
}

/// Writes a journal durably: once this returns, the next start completes the operation.
fn write_journal<T: Serialize>(path: &Path, journal: &T) -> Result<()> {
    let json = serde_json::to_vec(journal).map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, e.to_string()))?;
    write_atomic(path, &json)
}

/// The journal at `path`, or `None` when no operation was left unfinished. Journals are
/// written whole (write-temp + rename), so one that exists is complete.
fn read_journal<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot read {}: {e}", path.display()))),
    };
    serde_json::from_str(&text).map(Some).with_code(ErrorCode::CORRUPTED_DATA, || format!("Cannot parse {}", path.display()))
}

fn remove_journal(path: &Path) -> Result<()> {
    std::fs::remove_file(path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot remove {}", path.display()))?;
    if let Some(parent) = path.parent() {
        sync_dir(parent)?;
    }
    Ok(())
}

/// The `<escaped name><suffix>` files of a metadata directory, as (name, path). Leftovers
/// of interrupted atomic writes (`*.tmp`) are removed: the previous version is intact.
fn metadata_files(dir: &Path, suffix: &str) -> Result<Vec<(String, PathBuf)>> {
    let entries = std::fs::read_dir(dir).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", dir.display()))?;
    let mut out = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let Some(file_name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        if file_name.ends_with(".tmp") {
            let _ = std::fs::remove_file(&path);
            continue;
        }
        if let Some(escaped) = file_name.strip_suffix(suffix) {
            out.push((unescape_file_name(escaped)?, path));
        }
    }
    Ok(out)
}

impl Catalog {
    /// Opens (or initialises) the catalog under `root`, reopening every table.
    pub fn open(root: &Path, registry: EngineRegistry, reserved: Vec<String>) -> Result<Catalog> {
        let metadata_dir = root.join("metadata");
        let store_dir = root.join("store");
        create_dir_all(&metadata_dir)?;
        create_dir_all(&store_dir)?;
        let catalog = Catalog {
            metadata_dir,
            store_dir,
            registry,
            databases: RwLock::new(BTreeMap::new()),
            reserved,
            ddl: Mutex::new(()),
            detached: Mutex::new(BTreeMap::new()),
            detached_databases: Mutex::new(std::collections::BTreeSet::new()),
        };
        // Temporary tables of sessions before a restart or a crash: their sessions are gone.
        let _ = std::fs::remove_dir_all(catalog.temporary_dir());
        catalog.finish_exchange()?;
        catalog.finish_database_rename()?;
        catalog.load()?;
        if catalog.database(DEFAULT_DATABASE).is_none() {
            catalog.create_database(DEFAULT_DATABASE, true, None)?;
        }
        Ok(catalog)
    }

    pub fn registry(&self) -> &EngineRegistry {
        &self.registry
    }

    fn load(&self) -> Result<()> {
        let mut databases = BTreeMap::new();
        for (name, path) in metadata_files(&self.metadata_dir, ".json")? {
            let database = self.load_database(&name, &path)?;
            databases.insert(name, Arc::new(database));
        }
        *self.databases.write() = databases;
        Ok(())
    }

    /// A database from its file `path` with every table it holds opened.
    fn load_database(&self, name: &str, path: &Path) -> Result<Database> {
        let text = std::fs::read_to_string(path)?;
        let meta: DatabaseMeta =
            serde_json::from_str(&text).with_code(ErrorCode::CORRUPTED_DATA, || format!("Cannot parse database metadata {}", path.display()))?;
        let database = Database { name: name.to_string(), engine: meta.engine, tables: RwLock::new(BTreeMap::new()) };
        self.load_tables(&database)?;
        Ok(database)
    }

    fn database_file(&self, database: &str) -> PathBuf {
        self.metadata_dir.join(format!("{}.json", escape_for_file_name(database)))
    }

    fn database_dir(&self, database: &str) -> PathBuf {
        self.metadata_dir.join(escape_for_file_name(database))
    }

    fn table_file(&self, database: &str, table: &str) -> PathBuf {
        self.database_dir(database).join(format!("{}.json", escape_for_file_name(table)))
    }

    /// Where the metadata of a table detached PERMANENTLY waits for ATTACH: not `*.json`,
    /// so a start does not open it.
    fn detached_table_file(&self, database: &str, table: &str) -> PathBuf {
        self.database_dir(database).join(format!("{}.json.detached", escape_for_file_name(table)))
    }

    fn read_table_meta(path: &Path, database: &str, name: &str) -> Result<TableMeta> {
        let text = std::fs::read_to_string(path)?;
        let mut meta: TableMeta =
            serde_json::from_str(&text).with_code(ErrorCode::CORRUPTED_DATA, || format!("Cannot parse table metadata {}", path.display()))?;
        if meta.format_version > TABLE_META_VERSION {
            return Err(Error::new(
                ErrorCode::CORRUPTED_DATA,
                format!("Table metadata {} has format version {}, this server reads up to {TABLE_META_VERSION}", path.display(), meta.format_version),
            ));
        }
        meta.database = database.to_string();
        meta.name = name.to_string();
        Ok(meta)
    }

    fn load_tables(&self, database: &Database) -> Result<()> {
        let dir = self.database_dir(&database.name);
        create_dir_all(&dir)?;
        let mut tables = database.tables.write();
        for (name, path) in metadata_files(&dir, ".json")? {
            let meta = Self::read_table_meta(&path, &database.name, &name)?;
            let table = self.open_table(meta, false).map_err(|e| e.context(format!("while loading table {}.{name}", database.name)))?;
            tables.insert(name, table);
        }
        let mut detached = self.detached.lock();
        for (name, path) in metadata_files(&dir, ".json.detached")? {
            let meta = Self::read_table_meta(&path, &database.name, &name)?;
            detached.insert((database.name.clone(), name), meta);
        }
        Ok(())
    }

    fn open_table(&self, meta: TableMeta, is_new: bool) -> Result<Arc<Table>> {
        let factory = self.registry.get(&meta.engine.name)?;
        if is_new {
            factory.validate(&meta)?;
        }
        let schema = meta.schema()?;
        let data_path = self.store_dir.join(&meta.uuid);
        let engine = factory.open(EngineContext { meta: &meta, schema: schema.clone(), data_path, is_new })?;
        Ok(Arc::new(Table { meta, engine, schema }))
    }

    /// A temporary table (`meta.database` empty): opened like any table, its data (if
    /// its engine keeps any on disk) under `<path>/temporary/<uuid>`, its metadata
    /// nowhere. The caller keeps it with its session.
    pub fn open_temporary(&self, meta: TableMeta) -> Result<Arc<Table>> {
        let factory = self.registry.get(&meta.engine.name)?;
        factory.validate(&meta)?;
        let schema = meta.schema()?;
        let data_path = self.temporary_dir().join(&meta.uuid);
        let engine = factory.open(EngineContext { meta: &meta, schema: schema.clone(), data_path, is_new: true })?;
        Ok(Arc::new(Table { meta, engine, schema }))
    }

    fn temporary_dir(&self) -> PathBuf {
        self.store_dir.with_file_name("temporary")
    }

    pub fn database(&self, name: &str) -> Option<Arc<Database>> {
        self.databases.read().get(name).cloned()
    }

    /// The database, or UNKNOWN_DATABASE.
    pub fn require_database(&self, name: &str) -> Result<Arc<Database>> {
        self.database(name).ok_or_else(|| Error::new(ErrorCode::UNKNOWN_DATABASE, format!("Database {name} does not exist")))
    }

    pub fn databases(&self) -> Vec<Arc<Database>> {
        self.databases.read().values().cloned().collect()
    }

    /// The table, or UNKNOWN_DATABASE / UNKNOWN_TABLE. A temporary table of the query's
    /// session hides a table of its name in the current database.
    pub fn table(&self, database: &str, table: &str) -> Result<Arc<Table>> {
        if let Some(temporary) = crate::temporary::lookup(database, table) {
            return Ok(temporary);
        }
        self.require_database(database)?
            .table(table)
            .ok_or_else(|| Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table {database}.{table} does not exist")))
    }

    fn check_not_reserved(&self, name: &str) -> Result<()> {
        if self.reserved.iter().any(|r| r.eq_ignore_ascii_case(name)) {
            return Err(Error::new(ErrorCode::DATABASE_ALREADY_EXISTS, format!("Database {name} already exists")));
        }
        if name.is_empty() {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Database name is empty"));
        }
        Ok(())
    }

    /// CREATE DATABASE. Returns false if it existed and `if_not_exists` was given.
    pub fn create_database(&self, name: &str, if_not_exists: bool, engine: Option<&str>) -> Result<bool> {
        let _ddl = self.ddl.lock();
        self.check_not_reserved(name)?;
        if self.database(name).is_some() || self.detached_databases.lock().contains(name) {
            if if_not_exists {
                return Ok(false);
            }
            return Err(Error::new(ErrorCode::DATABASE_ALREADY_EXISTS, format!("Database {name} already exists")));
        }
        let engine = engine.unwrap_or("Atomic");
        if !matches!(engine, "Atomic" | "Ordinary" | "Memory") {
            return Err(Error::new(ErrorCode::UNKNOWN_DATABASE_ENGINE, format!("Unknown database engine: {engine}")));
        }
        create_dir_all(&self.database_dir(name))?;
        let meta = DatabaseMeta { format_version: 1, engine: "Atomic".to_string() };
        let json = serde_json::to_vec_pretty(&meta).map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, e.to_string()))?;
        write_atomic(&self.database_file(name), &json)?;
        let database = Database { name: name.to_string(), engine: meta.engine, tables: RwLock::new(BTreeMap::new()) };
        self.databases.write().insert(name.to_string(), Arc::new(database));
        Ok(true)
    }

    /// DROP DATABASE: drops its tables, then the database.
    pub async fn drop_database(&self, name: &str, if_exists: bool) -> Result<()> {
        let Some(database) = self.database(name) else {
            if if_exists || self.reserved.iter().any(|r| r == name) && if_exists {
                return Ok(());
            }
            return Err(Error::new(ErrorCode::UNKNOWN_DATABASE, format!("Database {name} does not exist")));
        };
        for table in database.table_names() {
            self.drop_table(name, &table, true).await?;
        }
        let _ddl = self.ddl.lock();
        let file = self.database_file(name);
        std::fs::remove_file(&file).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot remove {}", file.display()))?;
        sync_dir(&self.metadata_dir)?;
        let _ = std::fs::remove_dir_all(self.database_dir(name));
        self.databases.write().remove(name);
        self.detached.lock().retain(|(database, _), _| database != name);
        Ok(())
    }

    /// ClickHouse keeps the name of a detached table taken: ATTACH must find it free.
    fn check_not_detached(&self, database: &str, name: &str) -> Result<()> {
        if self.detached.lock().contains_key(&(database.to_string(), name.to_string())) {
            return Err(Error::new(ErrorCode::TABLE_ALREADY_EXISTS, format!("Table `{database}`.`{name}` already exists (detached)")));
        }
        Ok(())
    }

    /// DETACH TABLE (also a view or dictionary): the table leaves the database, its data
    /// and metadata stay for ATTACH. PERMANENTLY renames its metadata file so that the
    /// next start leaves it detached too. Returns the table, whose engine the caller closes.
    pub fn detach_table(&self, database: &str, name: &str, permanently: bool) -> Result<Arc<Table>> {
        let _ddl = self.ddl.lock();
        let db = self.require_database(database)?;
        let table = db.table(name).ok_or_else(|| Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table {database}.{name} does not exist")))?;
        if permanently {
            rename_durable(&self.table_file(database, name), &self.detached_table_file(database, name))?;
        }
        db.tables.write().remove(name);
        self.detached.lock().insert((database.to_string(), name.to_string()), table.meta.clone());
        Ok(table)
    }

    /// ATTACH TABLE of a detached table: reopened from its kept metadata.
    pub fn attach_table(&self, database: &str, name: &str, if_not_exists: bool) -> Result<Option<Arc<Table>>> {
        let _ddl = self.ddl.lock();
        let db = self.require_database(database)?;
        if db.table(name).is_some() {
            if if_not_exists {
                return Ok(None);
            }
            return Err(Error::new(ErrorCode::TABLE_ALREADY_EXISTS, format!("Table {database}.{name} already exists")));
        }
        let key = (database.to_string(), name.to_string());
        let meta = self.detached.lock().get(&key).cloned().ok_or_else(|| {
            Error::new(ErrorCode::CANNOT_GET_CREATE_TABLE_QUERY, format!("Table `{name}` doesn't exist"))
        })?;
        let table = self.open_table(meta, false)?;
        let detached_file = self.detached_table_file(database, name);
        if detached_file.exists() {
            rename_durable(&detached_file, &self.table_file(database, name))?;
        }
        self.detached.lock().remove(&key);
        db.tables.write().insert(name.to_string(), table.clone());
        Ok(Some(table))
    }

    /// DETACH DATABASE: the database and its tables leave the catalog, their files stay;
    /// the next start (or ATTACH DATABASE) opens them again. Returns its tables, whose
    /// engines the caller closes.
    pub fn detach_database(&self, name: &str) -> Result<Vec<Arc<Table>>> {
        let _ddl = self.ddl.lock();
        let database = self.require_database(name)?;
        self.databases.write().remove(name);
        self.detached_databases.lock().insert(name.to_string());
        Ok(database.tables())
    }

    /// ATTACH DATABASE of a detached database: read again from its files.
    pub fn attach_database(&self, name: &str, if_not_exists: bool) -> Result<bool> {
        let _ddl = self.ddl.lock();
        if self.database(name).is_some() {
            if if_not_exists {
                return Ok(false);
            }
            return Err(Error::new(ErrorCode::DATABASE_ALREADY_EXISTS, format!("Database {name} already exists")));
        }
        let file = self.database_file(name);
        if !self.detached_databases.lock().contains(name) || !file.exists() {
            // ClickHouse's ATTACH DATABASE without a definition only finds a detached one.
            return Err(Error::new(ErrorCode::UNKNOWN_DATABASE_ENGINE, "Database engine must be specified for ATTACH DATABASE query"));
        }
        self.detached.lock().retain(|(database, _), _| database != name);
        let database = self.load_database(name, &file)?;
        self.databases.write().insert(name.to_string(), Arc::new(database));
        self.detached_databases.lock().remove(name);
        Ok(true)
    }

    /// CREATE TABLE from a complete description. Returns the table, or `None` if it
    /// existed and `if_not_exists` was given.
    pub fn create_table(&self, mut meta: TableMeta, if_not_exists: bool) -> Result<Option<Arc<Table>>> {
        let _ddl = self.ddl.lock();
        let database = self.require_database(&meta.database)?;
        if database.table(&meta.name).is_some() {
            if if_not_exists {
                return Ok(None);
            }
            return Err(Error::new(ErrorCode::TABLE_ALREADY_EXISTS, format!("Table {}.{} already exists", meta.database, meta.name)));
        }
        self.check_not_detached(&meta.database, &meta.name)?;
        // A parameterized view has columns only once its parameters are given.
        let parameterized_view = meta.view.as_ref().is_some_and(|v| !v.parameters.is_empty());
        if meta.columns.is_empty() && !parameterized_view {
            return Err(Error::new(ErrorCode::EMPTY_LIST_OF_COLUMNS_PASSED, "Empty list of columns passed"));
        }
        let mut seen = std::collections::HashSet::new();
        for c in &meta.columns {
            if !seen.insert(c.name.as_str()) {
                return Err(Error::new(ErrorCode::ILLEGAL_COLUMN, format!("Cannot add column {}: column with this name already exists", c.name)));
            }
        }
        meta.format_version = TABLE_META_VERSION;
        let table = self.open_table(meta.clone(), true)?;
        let json = serde_json::to_vec_pretty(&meta).map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, e.to_string()))?;
        write_atomic(&self.table_file(&meta.database, &meta.name), &json)?;
        database.tables.write().insert(meta.name.clone(), table.clone());
        Ok(Some(table))
    }

    /// DROP TABLE: the metadata goes first (durably), then the engine removes its data.
    pub async fn drop_table(&self, database: &str, name: &str, if_exists: bool) -> Result<()> {
        let table = {
            let _ddl = self.ddl.lock();
            let db = self.require_database(database)?;
            let Some(table) = db.table(name) else {
                if if_exists {
                    return Ok(());
                }
                return Err(Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table {database}.{name} does not exist")));
            };
            let file = self.table_file(database, name);
            std::fs::remove_file(&file).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot remove {}", file.display()))?;
            sync_dir(&self.database_dir(database))?;
            db.tables.write().remove(name);
            table
        };
        table.engine.drop_data().await
    }

    /// ALTER TABLE of columns, comments or settings: `meta` replaces the table's
    /// metadata durably (one atomic rename: a crash leaves the old or the new file), then
    /// the table is reopened from its directory with it; the engine was closed by the
    /// caller. Should the reopen fail, the old table stays served and the next start
    /// opens the new metadata.
    pub fn replace_table_meta(&self, meta: TableMeta) -> Result<Arc<Table>> {
        let _ddl = self.ddl.lock();
        let database = self.require_database(&meta.database)?;
        if database.table(&meta.name).is_none() {
            return Err(Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table {}.{} does not exist", meta.database, meta.name)));
        }
        let json = serde_json::to_vec_pretty(&meta).map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, e.to_string()))?;
        write_atomic(&self.table_file(&meta.database, &meta.name), &json)?;
        let table = self.open_table(meta, false)?;
        database.tables.write().insert(table.meta.name.clone(), table.clone());
        Ok(table)
    }

    /// EXCHANGE TABLES a AND b: the two metadata files swap contents (each names its
    /// table's data directory by UUID, so the data follows). Two files cannot be replaced
    /// in one `rename(2)`, so the new contents of both are first written durably to a
    /// journal; a crash before it is complete leaves the old state, one after it is
    /// rolled forward at the next start ([`Catalog::finish_exchange`]).
    pub fn exchange_tables(&self, first: (&str, &str), second: (&str, &str)) -> Result<()> {
        let _ddl = self.ddl.lock();
        let first_db = self.require_database(first.0)?;
        let second_db = self.require_database(second.0)?;
        let missing = |(db, t): (&str, &str)| Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table `{db}`.`{t}` doesn't exist"));
        let first_table = first_db.table(first.1).ok_or_else(|| missing(first))?;
        let second_table = second_db.table(second.1).ok_or_else(|| missing(second))?;
        if first == second {
            return Ok(());
        }
        let (first_file, second_file) = (self.table_file(first.0, first.1), self.table_file(second.0, second.1));
        let read = |path: &Path| std::fs::read_to_string(path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot read {}", path.display()));
        let (first_text, second_text) = (read(&first_file)?, read(&second_file)?);
        let relative = |path: &Path| path.strip_prefix(&self.metadata_dir).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf());
        let journal = ExchangeJournal { files: vec![(relative(&first_file), second_text.clone()), (relative(&second_file), first_text.clone())] };
        let journal_path = self.metadata_dir.join(EXCHANGE_JOURNAL);
        write_journal(&journal_path, &journal)?;
        let swapped = write_atomic(&first_file, second_text.as_bytes()).and_then(|()| write_atomic(&second_file, first_text.as_bytes()));
        if let Err(e) = swapped {
            // Put the old contents back so the files agree with the tables still served.
            write_atomic(&first_file, first_text.as_bytes())?;
            write_atomic(&second_file, second_text.as_bytes())?;
            remove_journal(&journal_path)?;
            return Err(e.context(format!("while exchanging {}.{} and {}.{}", first.0, first.1, second.0, second.1)));
        }
        remove_journal(&journal_path)?;
        first_db.tables.write().insert(first.1.to_string(), second_table.renamed(first.0, first.1));
        second_db.tables.write().insert(second.1.to_string(), first_table.renamed(second.0, second.1));
        Ok(())
    }

    /// Completes an EXCHANGE TABLES that a crash interrupted after its journal was
    /// written: the journal holds both files' new contents, so writing them again is safe
    /// however far the exchange got.
    fn finish_exchange(&self) -> Result<()> {
        let path = self.metadata_dir.join(EXCHANGE_JOURNAL);
        let Some(journal) = read_journal::<ExchangeJournal>(&path)? else { return Ok(()) };
        for (file, contents) in &journal.files {
            write_atomic(&self.metadata_dir.join(file), contents.as_bytes())?;
        }
        remove_journal(&path)
    }

    /// RENAME DATABASE a TO b: its directory of table files and its own file are renamed
    /// after a journal naming both is written, so a crash leaves the old names (no
    /// journal yet) or is completed at the next start ([`Catalog::finish_database_rename`]).
    /// Table data stays where it is: it is named by UUID.
    pub fn rename_database(&self, from: &str, to: &str) -> Result<()> {
        let _ddl = self.ddl.lock();
        let database = self.require_database(from)?;
        self.check_not_reserved(to)?;
        if self.database(to).is_some() {
            return Err(Error::new(ErrorCode::DATABASE_ALREADY_EXISTS, format!("Database {to} already exists")));
        }
        if from == to {
            return Ok(());
        }
        write_journal(&self.metadata_dir.join(RENAME_DATABASE_JOURNAL), &RenameDatabaseJournal { from: from.to_string(), to: to.to_string() })?;
        self.finish_database_rename()?;
        let renamed = Database { name: to.to_string(), engine: database.engine.clone(), tables: RwLock::new(BTreeMap::new()) };
        for table in database.tables() {
            renamed.tables.write().insert(table.meta.name.clone(), table.renamed(to, &table.meta.name));
        }
        let mut databases = self.databases.write();
        databases.remove(from);
        databases.insert(to.to_string(), Arc::new(renamed));
        Ok(())
    }

    /// Carries out the renames of a journaled RENAME DATABASE, those not done yet.
    fn finish_database_rename(&self) -> Result<()> {
        let path = self.metadata_dir.join(RENAME_DATABASE_JOURNAL);
        let Some(journal) = read_journal::<RenameDatabaseJournal>(&path)? else { return Ok(()) };
        let (from_dir, to_dir) = (self.database_dir(&journal.from), self.database_dir(&journal.to));
        if from_dir.exists() {
            rename_durable(&from_dir, &to_dir)?;
        }
        let file = |name: &str| self.metadata_dir.join(format!("{}.json", escape_for_file_name(name)));
        if file(&journal.from).exists() {
            rename_durable(&file(&journal.from), &file(&journal.to))?;
        }
        remove_journal(&path)
    }

    /// RENAME TABLE a TO b.
    pub fn rename_table(&self, from: (&str, &str), to: (&str, &str)) -> Result<()> {
        let _ddl = self.ddl.lock();
        let source_db = self.require_database(from.0)?;
        let target_db = self.require_database(to.0)?;
        let table = source_db
            .table(from.1)
            .ok_or_else(|| Error::new(ErrorCode::UNKNOWN_TABLE, format!("Table {}.{} does not exist", from.0, from.1)))?;
        if target_db.table(to.1).is_some() {
            return Err(Error::new(ErrorCode::TABLE_ALREADY_EXISTS, format!("Table {}.{} already exists", to.0, to.1)));
        }
        self.check_not_detached(to.0, to.1)?;
        rename_durable(&self.table_file(from.0, from.1), &self.table_file(to.0, to.1))?;
        source_db.tables.write().remove(from.1);
        target_db.tables.write().insert(to.1.to_string(), table.renamed(to.0, to.1));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::{ColumnMeta, EngineMeta};
    use async_trait::async_trait;
    use datafusion::catalog::Session;
    use datafusion::logical_expr::Expr;
    use datafusion::physical_plan::ExecutionPlan;
    use granary_types::ChType;

    #[derive(Debug)]
    struct Dummy(SchemaRef);

    #[async_trait]
    impl TableEngine for Dummy {
        fn engine_name(&self) -> &str {
            "Dummy"
        }
        fn schema(&self) -> SchemaRef {
            self.0.clone()
        }
        async fn scan(&self, _: &dyn Session, _: Option<&Vec<usize>>, _: &[Expr], _: Option<usize>) -> Result<Arc<dyn ExecutionPlan>> {
            Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "dummy"))
        }
        async fn insert(&self, _: crate::engine::InsertRequest) -> Result<crate::engine::InsertResult> {
            Ok(Default::default())
        }
        async fn truncate(&self) -> Result<()> {
            Ok(())
        }
        async fn drop_data(&self) -> Result<()> {
            Ok(())
        }
    }

    struct DummyFactory;
    impl crate::engine::EngineFactory for DummyFactory {
        fn name(&self) -> &'static str {
            "Dummy"
        }
        fn open(&self, ctx: EngineContext<'_>) -> Result<Arc<dyn TableEngine>> {
            Ok(Arc::new(Dummy(ctx.schema)))
        }
    }

    fn registry() -> EngineRegistry {
        let mut r = EngineRegistry::new();
        r.register(Arc::new(DummyFactory));
        r
    }

    fn meta(db: &str, name: &str) -> TableMeta {
        TableMeta {
            format_version: TABLE_META_VERSION,
            uuid: format!("{db}-{name}"),
            database: db.into(),
            name: name.into(),
            columns: vec![ColumnMeta::new("x", &ChType::UInt64)],
            engine: EngineMeta { name: "Dummy".into(), ..Default::default() },
            comment: None,
            created_at: 0,
            dictionary: None,
            view: None,
            renamed_columns: Vec::new(),
            constraints: Vec::new(),
            indices: Vec::new(),
        }
    }

    #[tokio::test]
    async fn survives_reopen_with_renames_and_drops() {
        let dir = tempfile::tempdir().unwrap();
        {
            let c = Catalog::open(dir.path(), registry(), vec!["system".into()]).unwrap();
            c.create_database("db 1", false, None).unwrap();
            c.create_table(meta("db 1", "a/b"), false).unwrap();
            c.create_table(meta("default", "t"), false).unwrap();
            c.create_table(meta("default", "gone"), false).unwrap();
            assert_eq!(c.create_table(meta("default", "t"), false).unwrap_err().code(), ErrorCode::TABLE_ALREADY_EXISTS);
            c.rename_table(("default", "t"), ("db 1", "t2")).unwrap();
            c.drop_table("default", "gone", false).await.unwrap();
            assert_eq!(c.create_database("system", false, None).unwrap_err().code(), ErrorCode::DATABASE_ALREADY_EXISTS);
        }
        let c = Catalog::open(dir.path(), registry(), vec![]).unwrap();
        assert_eq!(c.require_database("db 1").unwrap().table_names(), vec!["a/b", "t2"]);
        assert!(c.require_database("default").unwrap().table_names().is_empty());
        assert_eq!(c.table("db 1", "t2").unwrap().meta.uuid, "default-t");
        assert_eq!(c.table("nope", "x").unwrap_err().code(), ErrorCode::UNKNOWN_DATABASE);
        assert_eq!(c.table("default", "x").unwrap_err().code(), ErrorCode::UNKNOWN_TABLE);
        c.drop_database("db 1", false).await.unwrap();
        assert!(c.database("db 1").is_none());
    }

    #[test]
    fn exchange_swaps_tables_and_a_leftover_journal_is_rolled_forward() {
        let dir = tempfile::tempdir().unwrap();
        {
            let c = Catalog::open(dir.path(), registry(), vec![]).unwrap();
            c.create_table(meta("default", "a"), false).unwrap();
            c.create_table(meta("default", "b"), false).unwrap();
            c.exchange_tables(("default", "a"), ("default", "b")).unwrap();
            assert_eq!(c.table("default", "a").unwrap().meta.uuid, "default-b");
            assert_eq!(c.table("default", "a").unwrap().meta.name, "a");
            assert_eq!(c.exchange_tables(("default", "a"), ("default", "c")).unwrap_err().code(), ErrorCode::UNKNOWN_TABLE);
        }
        let c = Catalog::open(dir.path(), registry(), vec![]).unwrap();
        assert_eq!(c.table("default", "a").unwrap().meta.uuid, "default-b");
        assert_eq!(c.table("default", "b").unwrap().meta.uuid, "default-a");
        drop(c);
        // A crash after the journal was written but before both files were: the next
        // start writes them from the journal.
        let metadata = dir.path().join("metadata");
        let a_file = metadata.join("default").join("a.json");
        let b_text = std::fs::read_to_string(metadata.join("default").join("b.json")).unwrap();
        let journal = ExchangeJournal { files: vec![(PathBuf::from("default/a.json"), b_text.clone())] };
        std::fs::write(metadata.join(EXCHANGE_JOURNAL), serde_json::to_vec(&journal).unwrap()).unwrap();
        let c = Catalog::open(dir.path(), registry(), vec![]).unwrap();
        assert_eq!(std::fs::read_to_string(a_file).unwrap(), b_text);
        assert_eq!(c.table("default", "a").unwrap().meta.uuid, "default-a");
        assert!(!metadata.join(EXCHANGE_JOURNAL).exists());
    }

    #[test]
    fn detach_permanently_lasts_across_reopen_and_a_plain_detach_does_not() {
        let dir = tempfile::tempdir().unwrap();
        {
            let c = Catalog::open(dir.path(), registry(), vec![]).unwrap();
            c.create_table(meta("default", "p"), false).unwrap();
            c.create_table(meta("default", "q"), false).unwrap();
            c.detach_table("default", "p", true).unwrap();
            c.detach_table("default", "q", false).unwrap();
            assert!(c.require_database("default").unwrap().table_names().is_empty());
            assert_eq!(c.create_table(meta("default", "p"), false).unwrap_err().code(), ErrorCode::TABLE_ALREADY_EXISTS);
            assert_eq!(c.detach_table("default", "p", false).unwrap_err().code(), ErrorCode::UNKNOWN_TABLE);
            assert_eq!(c.attach_table("default", "x", false).unwrap_err().code(), ErrorCode::CANNOT_GET_CREATE_TABLE_QUERY);
        }
        let c = Catalog::open(dir.path(), registry(), vec![]).unwrap();
        assert_eq!(c.require_database("default").unwrap().table_names(), vec!["q"]);
        c.attach_table("default", "p", false).unwrap();
        assert_eq!(c.table("default", "p").unwrap().meta.uuid, "default-p");
        assert!(c.attach_table("default", "p", true).unwrap().is_none());
        drop(c);
        let c = Catalog::open(dir.path(), registry(), vec![]).unwrap();
        assert_eq!(c.require_database("default").unwrap().table_names(), vec!["p", "q"]);
        c.create_database("d", false, None).unwrap();
        c.create_table(meta("d", "t"), false).unwrap();
        c.detach_database("d").unwrap();
        assert!(c.database("d").is_none());
        assert_eq!(c.create_database("d", false, None).unwrap_err().code(), ErrorCode::DATABASE_ALREADY_EXISTS);
        c.attach_database("d", false).unwrap();
        assert_eq!(c.table("d", "t").unwrap().meta.uuid, "d-t");
    }

    #[test]
    fn rename_database_moves_its_tables_and_a_leftover_journal_is_completed() {
        let dir = tempfile::tempdir().unwrap();
        {
            let c = Catalog::open(dir.path(), registry(), vec!["system".into()]).unwrap();
            c.create_database("d1", false, None).unwrap();
            c.create_table(meta("d1", "t"), false).unwrap();
            assert_eq!(c.rename_database("d1", "default").unwrap_err().code(), ErrorCode::DATABASE_ALREADY_EXISTS);
            assert_eq!(c.rename_database("nope", "x").unwrap_err().code(), ErrorCode::UNKNOWN_DATABASE);
            c.rename_database("d1", "d2").unwrap();
            assert!(c.database("d1").is_none());
            assert_eq!(c.table("d2", "t").unwrap().meta.database, "d2");
            // A crash after the journal and the first rename: the start completes it.
            c.create_database("d3", false, None).unwrap();
            c.create_table(meta("d3", "u"), false).unwrap();
        }
        let metadata = dir.path().join("metadata");
        std::fs::rename(metadata.join("d3"), metadata.join("d4")).unwrap();
        let journal = RenameDatabaseJournal { from: "d3".into(), to: "d4".into() };
        std::fs::write(metadata.join(RENAME_DATABASE_JOURNAL), serde_json::to_vec(&journal).unwrap()).unwrap();
        let c = Catalog::open(dir.path(), registry(), vec![]).unwrap();
        assert_eq!(c.table("d2", "t").unwrap().meta.uuid, "d1-t");
        assert_eq!(c.table("d4", "u").unwrap().meta.uuid, "d3-u");
        assert!(c.database("d3").is_none());
        assert!(!metadata.join(RENAME_DATABASE_JOURNAL).exists());
    }
}
