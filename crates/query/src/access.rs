//! Privilege checks: which grant each statement, table, table function and lookup of a
//! query needs. A user holding every privilege skips them all (the point-lookup path
//! of the default user pays nothing).

use granary_access::{Level, Privilege, UserAccess};
use granary_common::Result;
use granary_sql::{InsertTarget, Statement, TableName};

use crate::instance::QueryContext;
use crate::interpreter::database_of;

/// Databases anyone may read (as in ClickHouse, where `system` tables show each user
/// what concerns them).
fn always_readable(database: &str) -> bool {
    database == "system" || database.eq_ignore_ascii_case("information_schema")
}

/// The statement-level privilege. Queries (and the SELECT inside INSERT, CREATE AS,
/// EXPLAIN, DESCRIBE) are checked table by table when planned; access statements by
/// the access control itself.
pub(crate) fn check_statement(ctx: &QueryContext, statement: &Statement) -> Result<()> {
    let access = &ctx.access;
    if access.is_unrestricted() {
        return Ok(());
    }
    let table = |name: &TableName| Level::Table(database_of(ctx, name), name.table.clone());
    match statement {
        Statement::Insert(insert) => match &insert.target {
            InsertTarget::Table(name) => access.check(Privilege::Insert, &table(name)),
            InsertTarget::Function(call) => check_table_function(access, &call.name),
        },
        Statement::CreateDatabase { name, .. } => access.check(Privilege::CreateDatabase, &Level::Database(name.clone())),
        Statement::DropDatabase { name, .. } => access.check(Privilege::DropDatabase, &Level::Database(name.clone())),
        Statement::CreateTable(create) => access.check(Privilege::CreateTable, &table(&create.name)),
        Statement::CreateDictionary(create) => access.check(Privilege::CreateDictionary, &table(&create.name)),
        Statement::CreateView(create) => access.check(Privilege::CreateView, &table(&create.name)),
        Statement::DropTable { name, .. } => access.check(Privilege::DropTable, &table(name)),
        Statement::DetachTable { name, .. } => access.check(Privilege::DropTable, &table(name)),
        Statement::AttachTable { name, .. } => access.check(Privilege::CreateTable, &table(name)),
        Statement::DetachDatabase { name, .. } => access.check(Privilege::DropDatabase, &Level::Database(name.clone())),
        Statement::AttachDatabase { name, .. } => access.check(Privilege::CreateDatabase, &Level::Database(name.clone())),
        Statement::RenameTables(pairs) => {
            for (from, to) in pairs {
                access.check(Privilege::DropTable, &table(from))?;
                access.check(Privilege::CreateTable, &table(to))?;
            }
            Ok(())
        }
        Statement::RenameDatabase { from, to } => {
            access.check(Privilege::DropDatabase, &Level::Database(from.clone()))?;
            access.check(Privilege::CreateDatabase, &Level::Database(to.clone()))
        }
        // Each name loses one table and gains another, as two renames would.
        Statement::ExchangeTables(first, second) => {
            for name in [first, second] {
                access.check(Privilege::DropTable, &table(name))?;
                access.check(Privilege::CreateTable, &table(name))?;
            }
            Ok(())
        }
        Statement::TruncateTable { name, .. } => access.check(Privilege::Truncate, &table(name)),
        Statement::Optimize { name, .. } => access.check(Privilege::Optimize, &table(name)),
        Statement::Alter { name, .. } => access.check(Privilege::Alter, &table(name)),
        Statement::ShowCreateTable(name)
        | Statement::DescribeTable(name)
        | Statement::ExistsTable(name)
        | Statement::CheckTable { name, .. }
        | Statement::ShowColumns { table: name, .. }
        | Statement::ShowIndexes { table: name, .. } => {
            let level = table(name);
            if always_readable(&database_of(ctx, name)) || [Privilege::Show, Privilege::Select, Privilege::Insert].iter().any(|p| access.allows(*p, &level)) {
                return Ok(());
            }
            access.check(Privilege::Show, &level)
        }
        Statement::System { .. } => access.check(Privilege::System, &Level::Global),
        Statement::CreateFunction(_) => access.check(Privilege::CreateFunction, &Level::Global),
        Statement::DropFunction { .. } => access.check(Privilege::DropFunction, &Level::Global),
        // Each mutation's table is checked for ALTER when it is killed.
        Statement::KillMutation { .. } => Ok(()),
        Statement::CreateNamedCollection { .. } | Statement::AlterNamedCollection { .. } | Statement::DropNamedCollection { .. } => {
            access.check(Privilege::NamedCollectionAdmin, &Level::Global)
        }
        Statement::Query { .. }
        | Statement::DescribeQuery { .. }
        | Statement::Explain { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowTables { .. }
        | Statement::ShowDictionaries { .. }
        | Statement::ShowSettings { .. }
        | Statement::ShowSetting(_)
        | Statement::ShowCreateDatabase(_)
        | Statement::ShowProcesslist
        | Statement::ShowFunctions { .. }
        | Statement::ShowEngines
        | Statement::ShowPrivileges
        | Statement::ExistsDatabase(_)
        | Statement::Use(_)
        | Statement::Set(_)
        | Statement::Access(_) => Ok(()),
    }
}

/// System tables that describe other users: for those who manage access only.
const ACCESS_TABLES: [&str; 10] =
    ["users", "roles", "grants", "role_grants", "settings_profiles", "settings_profile_elements", "quotas", "quota_limits", "quota_usage", "row_policies"];

/// SELECT on a table a query reads.
pub(crate) fn check_select(access: &UserAccess, database: &str, table: &str) -> Result<()> {
    if access.is_unrestricted() {
        return Ok(());
    }
    if database == "system" && ACCESS_TABLES.contains(&table) {
        return access.check(Privilege::AccessManagement, &Level::Global);
    }
    if database == "system" && table == "named_collections" {
        return access.check(Privilege::NamedCollectionAdmin, &Level::Global);
    }
    if always_readable(database) {
        return Ok(());
    }
    access.check(Privilege::Select, &Level::Table(database.to_string(), table.to_string()))
}

/// The source privilege of a table function that reaches outside the server.
pub(crate) fn check_table_function(access: &UserAccess, name: &str) -> Result<()> {
    if access.is_unrestricted() {
        return Ok(());
    }
    let privilege = match name.to_ascii_lowercase().as_str() {
        "file" => Privilege::File,
        "url" => Privilege::Url,
        "s3" | "s3cluster" | "gcs" | "azureblobstorage" | "azureblobstoragecluster" => Privilege::S3,
        _ => return Ok(()),
    };
    access.check(privilege, &Level::Global)
}

/// `dictGet*` needs dictGet on the dictionary, `joinGet*` SELECT on the Join table.
pub(crate) fn check_lookups(ctx: &QueryContext, qualified_names: &[String]) -> Result<()> {
    if ctx.access.is_unrestricted() {
        return Ok(());
    }
    for qualified in qualified_names {
        let Some((database, name)) = qualified.split_once('.') else {
            // A dictionary of the configuration files is in no database: only a global
            // grant covers it, as in ClickHouse.
            ctx.access.check(Privilege::DictGet, &Level::Table(String::new(), qualified.clone()))?;
            continue;
        };
        let is_dictionary = ctx.catalog.table(database, name).is_ok_and(|t| t.meta.dictionary.is_some());
        let privilege = if is_dictionary { Privilege::DictGet } else { Privilege::Select };
        ctx.access.check(privilege, &Level::Table(database.to_string(), name.to_string()))?;
    }
    Ok(())
}
