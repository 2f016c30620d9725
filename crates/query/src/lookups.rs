//! The query layer's part of dictionaries and `joinGet`: qualifying names, loading
//! dictionaries a query uses before it runs, running dictionary sources, and the
//! statements (`CREATE DICTIONARY`, `SYSTEM RELOAD DICTIONARY`).

use std::ops::ControlFlow;
use std::sync::{Arc, Weak};

use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::sql::sqlparser::ast::{self, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Value};
use futures::TryStreamExt;
use granary_common::{Error, ErrorCode, Result};
use granary_dictionaries::{is_lookup_function, DictionaryRegistry, SourceRunner};
use granary_sql::walk::exprs_mut;
use granary_sql::CreateDictionary;
use granary_storage::{DictionaryClause, DictionaryMeta, EngineMeta, TableMeta, TABLE_META_VERSION};

use crate::instance::{Instance, QueryContext};

/// The name a lookup function (`function`) gets as the lookup functions resolve it: an
/// unqualified dictionary name is a dictionary of the configuration files when there is
/// one (as in ClickHouse), else a name in the current database, as a Join table's always is.
pub(crate) fn qualify_name(registry: &DictionaryRegistry, function: &str, name: &str, current_database: &str) -> String {
    let config_dictionary = !function.starts_with("joinGet") && registry.config_dictionary(name).is_some();
    if name.contains('.') || config_dictionary {
        name.to_string()
    } else {
        format!("{current_database}.{name}")
    }
}

/// Qualifies the first argument of `dictGet*` / `dictHas` / `joinGet*` (see
/// [`qualify_name`]) and returns the names, qualified.
pub(crate) fn qualify_lookup_names(statement: &mut ast::Statement, current_database: &str, registry: &DictionaryRegistry) -> Vec<String> {
    let mut names = Vec::new();
    let _ = exprs_mut(statement, &mut |expr| {
        if let Expr::Function(function) = expr {
            let function_name = function.name.0.last().and_then(|p| p.as_ident()).map(|i| i.value.clone()).unwrap_or_default();
            if is_lookup_function(&function_name) {
                if let FunctionArguments::List(list) = &mut function.args {
                    if let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(value)))) = list.args.first_mut() {
                        if let Value::SingleQuotedString(name) = &mut value.value {
                            *name = qualify_name(registry, &function_name, name, current_database);
                            names.push(name.clone());
                        }
                    }
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
    names.sort();
    names.dedup();
    names
}

/// Loads (if needed) every dictionary in `names` so the lookup functions find them ready.
pub(crate) async fn load_dictionaries(ctx: &QueryContext, names: &[String]) -> Result<()> {
    for qualified in names {
        let Some((database, name)) = qualified.split_once('.') else {
            // A dictionary of the configuration files (a failed definition is reported
            // by the function).
            if let Some(dictionary) = ctx.dictionaries.config_dictionary(qualified).and_then(|entry| entry.dictionary().cloned()) {
                dictionary.ensure_loaded(ctx.dictionaries.runner()?.as_ref()).await?;
            }
            continue;
        };
        // An unknown name is reported by the function itself, with ClickHouse's message.
        let Ok(table) = ctx.catalog.table(database, name) else { continue };
        if table.meta.dictionary.is_none() {
            continue;
        }
        if let Some(dictionary) = ctx.dictionaries.get(&table.meta.uuid) {
            dictionary.ensure_loaded(ctx.dictionaries.runner()?.as_ref()).await?;
        }
    }
    Ok(())
}

/// Runs dictionary sources through the instance that owns the dictionaries.
pub(crate) struct InstanceRunner {
    pub instance: Weak<Instance>,
}

#[async_trait]
impl SourceRunner for InstanceRunner {
    async fn select(&self, database: &str, sql: &str, files_root: Option<&std::path::Path>) -> Result<Vec<RecordBatch>> {
        let instance = self.instance.upgrade().ok_or_else(|| Error::new(ErrorCode::ABORTED, "The server is shutting down"))?;
        let stream = instance.internal_select(database, sql, files_root).await?;
        Ok(stream.try_collect().await?)
    }
}

/// `CREATE DICTIONARY`: validated by the `Dictionary` engine factory, stored like a table.
pub(crate) fn create_dictionary(instance: &Instance, ctx: &QueryContext, create: CreateDictionary) -> Result<()> {
    let database = create.name.database.clone().unwrap_or_else(|| ctx.current_database.clone());
    if database == "system" {
        return Err(Error::new(ErrorCode::DATABASE_ACCESS_DENIED, "Cannot create dictionaries in the system database"));
    }
    if create.or_replace {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "CREATE OR REPLACE DICTIONARY is not supported yet"));
    }
    let clause = |spec: Option<granary_sql::DictionaryClauseSpec>| {
        spec.map(|s| DictionaryClause { name: s.name, params: s.params }).unwrap_or_default()
    };
    let (lifetime_min, lifetime_max) = create.lifetime.unwrap_or((0, 0));
    let meta = TableMeta {
        format_version: TABLE_META_VERSION,
        uuid: uuid::Uuid::new_v4().to_string(),
        database,
        name: create.name.table.clone(),
        columns: create.attributes.iter().map(crate::interpreter::column_meta).collect(),
        engine: EngineMeta { name: "Dictionary".into(), ..EngineMeta::default() },
        comment: create.comment.clone(),
        created_at: chrono::Utc::now().timestamp(),
        dictionary: Some(DictionaryMeta {
            primary_key: create.primary_key.clone(),
            source: clause(create.source),
            layout: clause(create.layout),
            lifetime_min,
            lifetime_max,
            range: create.range.clone(),
            hierarchical: create.hierarchical.clone(),
        }),
        view: None,
        renamed_columns: Vec::new(),
        constraints: Vec::new(),
        indices: Vec::new(),
    };
    match instance.catalog().create_table(meta, create.if_not_exists) {
        Err(e) if e.code() == ErrorCode::TABLE_ALREADY_EXISTS => Err(Error::new(
            ErrorCode::DICTIONARY_ALREADY_EXISTS,
            format!("Dictionary {}.{} already exists", create.name.database.as_deref().unwrap_or(&ctx.current_database), create.name.table),
        )),
        other => other.map(|_| ()),
    }
}

/// `SYSTEM RELOAD DICTIONARY [db.]name` and `SYSTEM RELOAD DICTIONARIES`. Both read the
/// configuration files again first (new, changed and removed dictionaries), as
/// ClickHouse does. `DICTIONARIES` reloads those that were loaded or tried to load (a
/// dictionary nothing used yet stays unloaded), all of them even when one fails; the
/// first failure is the statement's error.
pub(crate) async fn reload(instance: &Instance, ctx: &QueryContext, target: Option<&str>) -> Result<()> {
    let registry = instance.dictionaries();
    registry.rescan_config_files();
    let runner = registry.runner()?;
    let dictionaries: Vec<Arc<granary_dictionaries::Dictionary>> = match target {
        None => registry.all().into_iter().filter(|d| d.status().status != "NOT_LOADED").collect(),
        Some(name) => {
            let name = name.trim_matches('`');
            if let Some(entry) = registry.config_dictionary(name) {
                if let Some(e) = entry.error() {
                    return Err(e);
                }
                let dictionary = entry.dictionary().cloned().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "config dictionary without definition"))?;
                dictionary.load(runner.as_ref(), true).await?;
                return Ok(());
            }
            let (database, name) = name.split_once('.').unwrap_or((&ctx.current_database, name));
            let (database, name) = (database.trim_matches('`'), name.trim_matches('`'));
            let table = instance.catalog().table(database, name).ok().filter(|t| t.meta.dictionary.is_some()).ok_or_else(|| {
                Error::new(ErrorCode::BAD_ARGUMENTS, format!("Dictionary {database}.{name} not found"))
            })?;
            vec![instance.dictionaries().get(&table.meta.uuid).ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "dictionary is not registered"))?]
        }
    };
    let mut first_error = None;
    for dictionary in dictionaries {
        if let Err(e) = dictionary.load(runner.as_ref(), true).await {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// The error of `DROP DICTIONARY name` (or `DROP TABLE`) when `name` is not in the
/// database but a configuration file defines it: ClickHouse's UNKNOWN_TABLE, saying why.
pub(crate) fn config_dictionary_drop_error(registry: &DictionaryRegistry, database: &str, name: &str) -> Option<Error> {
    let entry = registry.config_dictionary(name)?;
    Some(Error::new(
        ErrorCode::UNKNOWN_TABLE,
        format!(
            "Table {database}.{name} does not exist. Dictionary {name} is defined in the configuration file {}: edit or remove the file and run SYSTEM RELOAD DICTIONARIES",
            entry.origin.display()
        ),
    ))
}
