//! `ALTER TABLE` commands that change a table's description (columns, comments,
//! settings, sampling key): applied together to a copy of its metadata, checked as ClickHouse checks
//! them, then the engine is closed and the catalog reopens the table with the new
//! metadata (the engine rewrites its data there when the columns changed).

use std::sync::Arc;

use granary_common::{Error, ErrorCode, Result};
use granary_sql::{AlterCommand, ColumnPosition};
use granary_storage::{Table, TableMeta};
use granary_types::ChType;

use crate::instance::Instance;

/// Whether `command` changes the table's description rather than its data.
pub fn is_metadata_command(command: &AlterCommand) -> bool {
    matches!(
        command,
        AlterCommand::AddColumn { .. }
            | AlterCommand::DropColumn { .. }
            | AlterCommand::RenameColumn { .. }
            | AlterCommand::ModifyColumn { .. }
            | AlterCommand::CommentColumn { .. }
            | AlterCommand::ModifyComment(_)
            | AlterCommand::AddConstraint { .. }
            | AlterCommand::DropConstraint { .. }
            | AlterCommand::ModifyTtl(_)
            | AlterCommand::RemoveTtl
            | AlterCommand::ModifySampleBy(_)
            | AlterCommand::RemoveSampleBy
            | AlterCommand::ModifySetting(_)
            | AlterCommand::ResetSetting(_)
            | AlterCommand::AddIndex { .. }
            | AlterCommand::DropIndex { .. }
    )
}

/// The indexes `commands` drop (their files go from the parts afterwards).
pub fn dropped_indexes(commands: &[AlterCommand]) -> Vec<String> {
    commands.iter().filter_map(|c| if let AlterCommand::DropIndex { name, .. } = c { Some(name.clone()) } else { None }).collect()
}

/// Applies `commands` (all metadata commands) to `table` and serves the reopened table.
pub async fn alter_metadata(instance: &Instance, table: &Arc<Table>, commands: &[AlterCommand]) -> Result<()> {
    if !table.engine.supports_alter_columns() {
        return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Alter of columns is not supported by storage {}", table.engine.engine_name())));
    }
    let meta = apply(&table.meta, commands)?;
    if meta == table.meta {
        return Ok(());
    }
    instance.catalog().registry().get(&meta.engine.name)?.validate(&meta)?;
    table.engine.check_alter(&meta).await.map_err(|e| {
        Error::new(ErrorCode::UNFINISHED, format!("Exception happened during execution of mutation of table {}.{}: {e}", meta.database, meta.name))
    })?;
    table.engine.close().await?;
    instance.catalog().replace_table_meta(meta)?;
    Ok(())
}

/// Whether `commands` set a TTL that `materialize_ttl_after_modify` applies to the
/// existing parts (ClickHouse adds a MATERIALIZE TTL mutation after them).
pub fn sets_ttl(commands: &[AlterCommand]) -> bool {
    commands.iter().any(|c| matches!(c, AlterCommand::ModifyTtl(_)) || matches!(c, AlterCommand::ModifyColumn { change, .. } if change.ttl.is_some()))
}

/// Checks `CLEAR COLUMN name` against the table: false when the column is missing and
/// `if_exists` lets that pass.
pub fn check_clear_column(meta: &TableMeta, name: &str, if_exists: bool) -> Result<bool> {
    if !meta.columns.iter().any(|c| c.name == name) {
        if if_exists {
            return Ok(false);
        }
        return Err(Error::new(ErrorCode::NOT_FOUND_COLUMN_IN_BLOCK, format!("Wrong column name. Cannot find column `{name}` to drop")));
    }
    let engine = &meta.engine;
    if [&engine.order_by, &engine.partition_by, &engine.primary_key, &engine.sample_by].into_iter().flatten().flat_map(|e| names_in(e)).any(|k| k == name) {
        return Err(Error::new(ErrorCode::ALTER_OF_COLUMN_IS_FORBIDDEN, format!("Trying to ALTER CLEAR key {name} column which is a part of key expression")));
    }
    Ok(true)
}

/// Checks `MATERIALIZE COLUMN name` against the table, with ClickHouse's errors.
pub fn check_materialize_column(meta: &TableMeta, name: &str) -> Result<()> {
    let column = meta.columns.iter().find(|c| c.name == name).ok_or_else(|| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("There is no column {name} in table")))?;
    let engine = &meta.engine;
    if [&engine.order_by, &engine.primary_key].into_iter().flatten().flat_map(|e| names_in(e)).any(|k| k == name) {
        return Err(Error::new(ErrorCode::CANNOT_UPDATE_COLUMN, format!("Refused to materialize column `{name}` because it's in the sort key. Doing so could break the sort order")));
    }
    if column.default_expression.is_none() || !matches!(column.default_kind.as_deref(), Some("DEFAULT" | "MATERIALIZED")) {
        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Cannot materialize column `{name}` because it doesn't have default expression")));
    }
    Ok(())
}

/// The names an expression text mentions (identifiers, quoted or not).
fn names_in(expression: &str) -> Vec<String> {
    expression
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn apply(current: &TableMeta, commands: &[AlterCommand]) -> Result<TableMeta> {
    let mut meta = current.clone();
    let engine = &current.engine;
    let key_names: Vec<String> = [&engine.order_by, &engine.partition_by, &engine.primary_key, &engine.sample_by].into_iter().flatten().flat_map(|e| names_in(e)).collect();
    let is_key = |name: &str| key_names.iter().any(|k| k == name);
    // (current name, name in the stored data) of every column renamed so far.
    let mut renames: Vec<(String, String)> = Vec::new();
    let position = |meta: &TableMeta, name: &str| meta.columns.iter().position(|c| c.name == name);
    for command in commands {
        match command {
            AlterCommand::AddColumn { column, if_not_exists, position: at } => {
                if position(&meta, &column.name).is_some() {
                    if *if_not_exists {
                        continue;
                    }
                    return Err(Error::new(ErrorCode::DUPLICATE_COLUMN, format!("Cannot add column `{}`: column with this name already exists", column.name)));
                }
                let index = match at {
                    ColumnPosition::Last => meta.columns.len(),
                    ColumnPosition::First => 0,
                    ColumnPosition::After(after) => {
                        position(&meta, after).ok_or_else(|| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("Wrong column name. Cannot find column {after} to insert after")))? + 1
                    }
                };
                meta.columns.insert(index, crate::interpreter::column_meta(column));
            }
            AlterCommand::DropColumn { name, if_exists } => {
                let Some(index) = position(&meta, name) else {
                    if *if_exists {
                        continue;
                    }
                    return Err(Error::new(ErrorCode::NOT_FOUND_COLUMN_IN_BLOCK, format!("Wrong column name. Cannot find column `{name}` to drop")));
                };
                if is_key(name) {
                    return Err(Error::new(ErrorCode::ALTER_OF_COLUMN_IS_FORBIDDEN, format!("Trying to ALTER DROP key {name} column which is a part of key expression")));
                }
                meta.columns.remove(index);
                renames.retain(|(new, _)| new != name);
            }
            AlterCommand::RenameColumn { from, to, if_exists } => {
                let Some(index) = position(&meta, from) else {
                    if *if_exists {
                        continue;
                    }
                    return Err(Error::new(ErrorCode::NOT_FOUND_COLUMN_IN_BLOCK, format!("Wrong column name. Cannot find column `{from}` to rename")));
                };
                if position(&meta, to).is_some() {
                    return Err(Error::new(ErrorCode::DUPLICATE_COLUMN, format!("Cannot rename to `{to}`: column with this name already exists")));
                }
                if is_key(from) {
                    return Err(Error::new(ErrorCode::ALTER_OF_COLUMN_IS_FORBIDDEN, format!("Trying to ALTER RENAME key {from} column which is a part of key expression")));
                }
                meta.columns[index].name = to.clone();
                match renames.iter_mut().find(|(new, _)| new == from) {
                    Some(entry) => entry.0 = to.clone(),
                    None => renames.push((to.clone(), from.clone())),
                }
            }
            AlterCommand::ModifyColumn { change, if_exists } => {
                let Some(index) = position(&meta, &change.name) else {
                    if *if_exists {
                        continue;
                    }
                    return Err(Error::new(ErrorCode::NOT_FOUND_COLUMN_IN_BLOCK, format!("Wrong column. Cannot find column `{}` to modify", change.name)));
                };
                let column = &mut meta.columns[index];
                if let Some(t) = &change.ch_type {
                    let old = column.ch_type()?;
                    if *t != old && is_key(&change.name) {
                        return Err(Error::new(
                            ErrorCode::ALTER_OF_COLUMN_IS_FORBIDDEN,
                            format!("ALTER of key column {} from type {old} to type {t} is not safe because it can change the representation of primary key", change.name),
                        ));
                    }
                    column.type_name = t.to_string();
                }
                if let Some((kind, expression)) = &change.default {
                    column.default_kind = Some(kind.clone());
                    column.default_expression = Some(expression.clone());
                }
                if let Some(codec) = &change.codec {
                    column.codec = Some(codec.clone());
                }
                if let Some(comment) = &change.comment {
                    column.comment = Some(comment.clone());
                }
                if let Some(ttl) = &change.ttl {
                    if is_key(&change.name) {
                        return Err(Error::new(ErrorCode::ILLEGAL_COLUMN, format!("Trying to set TTL for key column {}", change.name)));
                    }
                    column.ttl = Some(granary_storage::ttl::format_expression(ttl));
                }
                match change.remove.as_deref() {
                    None => {}
                    Some("DEFAULT" | "MATERIALIZED" | "ALIAS" | "EPHEMERAL") => {
                        column.default_kind = None;
                        column.default_expression = None;
                    }
                    Some("CODEC") => column.codec = None,
                    Some("COMMENT") => column.comment = None,
                    Some("TTL") => column.ttl = None,
                    Some(other) => return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Cannot REMOVE {other} of a column"))),
                }
            }
            AlterCommand::CommentColumn { name, comment, if_exists } => {
                let Some(index) = position(&meta, name) else {
                    if *if_exists {
                        continue;
                    }
                    return Err(Error::new(ErrorCode::NOT_FOUND_COLUMN_IN_BLOCK, format!("Wrong column name. Cannot find column `{name}` to comment")));
                };
                meta.columns[index].comment = Some(comment.clone());
            }
            AlterCommand::ModifyTtl(text) => meta.engine.ttl = Some(granary_storage::ttl::format_table_ttl(text)?),
            AlterCommand::RemoveTtl => {
                if meta.engine.ttl.take().is_none() {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Table doesn't have any table TTL expression, cannot remove"));
                }
            }
            AlterCommand::ModifyComment(comment) => meta.comment = Some(comment.clone()).filter(|c| !c.is_empty()),
            AlterCommand::AddConstraint { constraint, if_not_exists } => {
                if meta.constraints.iter().any(|c| c.name == constraint.name) {
                    if *if_not_exists {
                        continue;
                    }
                    return Err(Error::new(ErrorCode::ILLEGAL_COLUMN, format!("Cannot add constraint {}: constraint with this name already exists", constraint.name)));
                }
                meta.constraints.push(crate::interpreter::constraint_meta(constraint));
            }
            AlterCommand::DropConstraint { name, if_exists } => match meta.constraints.iter().position(|c| c.name == *name) {
                Some(index) => {
                    meta.constraints.remove(index);
                }
                None if *if_exists => continue,
                None => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Wrong constraint name. Cannot find constraint `{name}` to drop"))),
            },
            // The engine's validation checks the new key as CREATE does.
            AlterCommand::ModifySampleBy(expression) => meta.engine.sample_by = Some(expression.clone()),
            AlterCommand::RemoveSampleBy => {
                if meta.engine.sample_by.take().is_none() {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Table doesn't have SAMPLE BY, cannot remove"));
                }
            }
            AlterCommand::ModifySetting(settings) => {
                for (name, value) in settings {
                    match meta.engine.settings.iter_mut().find(|(n, _)| n == name) {
                        Some(entry) => entry.1 = value.clone(),
                        None => meta.engine.settings.push((name.clone(), value.clone())),
                    }
                }
            }
            AlterCommand::ResetSetting(names) => meta.engine.settings.retain(|(n, _)| !names.contains(n)),
            AlterCommand::AddIndex { index, if_not_exists, position: at } => {
                if meta.indices.iter().any(|i| i.name == index.name) {
                    if *if_not_exists {
                        continue;
                    }
                    return Err(Error::new(ErrorCode::ILLEGAL_COLUMN, format!("Cannot add index {}: index with this name already exists", index.name)));
                }
                let place = match at {
                    ColumnPosition::Last => meta.indices.len(),
                    ColumnPosition::First => 0,
                    ColumnPosition::After(after) => {
                        meta.indices.iter().position(|i| i.name == *after).ok_or_else(|| {
                            Error::new(ErrorCode::BAD_ARGUMENTS, format!("Wrong index name. Cannot find index `{after}` to insert after"))
                        })? + 1
                    }
                };
                meta.indices.insert(place, crate::interpreter::index_meta(index));
            }
            AlterCommand::DropIndex { name, if_exists } => match meta.indices.iter().position(|i| i.name == *name) {
                Some(index) => {
                    meta.indices.remove(index);
                }
                None if *if_exists => continue,
                None => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Wrong index name. Cannot find index `{name}` to drop"))),
            },
            _ => return Err(Error::new(ErrorCode::LOGICAL_ERROR, "not a metadata command of ALTER")),
        }
    }
    for column in &meta.columns {
        ChType::parse(&column.type_name)?;
    }
    meta.renamed_columns = renames;
    Ok(meta)
}
