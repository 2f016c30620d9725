//! Access-management statements as plain data: what the SQL front end produces and
//! [`crate::AccessControl::execute`] carries out.

use std::collections::BTreeSet;

use crate::entities::{Authentication, HostPattern, QuotaLimits, RowPolicy, SettingValue};

/// The object of GRANT/REVOKE as written: `*.*`, `db.*`, `db.t`, `t`, `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantTarget {
    /// `None`: the current database.
    pub database: Option<String>,
    /// `None`: every table (`*`).
    pub table: Option<String>,
    /// `*.*`.
    pub global: bool,
}

/// Changes of CREATE USER / ALTER USER; `None` leaves a property as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserChanges {
    pub auth: Option<Authentication>,
    /// `HOST ...`: `Some(None)` means the default for the user's authentication.
    pub hosts: Option<Vec<HostPattern>>,
    /// `DEFAULT ROLE ...`: `Some(None)` is `ALL`.
    pub default_roles: Option<Option<BTreeSet<String>>>,
    pub default_database: Option<Option<String>>,
    pub settings: Option<Vec<SettingValue>>,
    pub profile: Option<Option<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessCommand {
    CreateUser { names: Vec<String>, if_not_exists: bool, or_replace: bool, changes: UserChanges },
    AlterUser { names: Vec<String>, if_exists: bool, rename_to: Option<String>, changes: UserChanges },
    DropUser { names: Vec<String>, if_exists: bool },
    CreateRole { names: Vec<String>, if_not_exists: bool, or_replace: bool, settings: Vec<SettingValue>, profile: Option<String> },
    DropRole { names: Vec<String>, if_exists: bool },
    /// `GRANT privileges ON target TO grantees [WITH GRANT OPTION]`.
    Grant { privileges: Vec<String>, target: GrantTarget, grantees: Vec<String>, with_grant_option: bool },
    /// `REVOKE [GRANT OPTION FOR] privileges ON target FROM grantees`.
    Revoke { privileges: Vec<String>, target: GrantTarget, grantees: Vec<String>, grant_option_only: bool },
    GrantRoles { roles: Vec<String>, grantees: Vec<String> },
    RevokeRoles { roles: Vec<String>, grantees: Vec<String> },
    CreateProfile { name: String, if_not_exists: bool, or_replace: bool, settings: Vec<SettingValue>, to: Vec<String> },
    DropProfile { names: Vec<String>, if_exists: bool },
    CreateQuota { name: String, if_not_exists: bool, or_replace: bool, intervals: Vec<QuotaLimits>, to: Vec<String>, keyed_by_user: bool },
    DropQuota { names: Vec<String>, if_exists: bool },
    /// `SHOW GRANTS [FOR a, b]`; no names means the current user.
    ShowGrants { names: Vec<String> },
    ShowCreateUser { names: Vec<String> },
    ShowUsers,
    ShowRoles,
    ShowProfiles,
    ShowQuotas,
    /// `CREATE [OR REPLACE] ROW POLICY [IF NOT EXISTS] name ON [db.]table [AS
    /// PERMISSIVE|RESTRICTIVE] [FOR SELECT] [USING condition] [TO grantees]`.
    CreateRowPolicy { policy: RowPolicy, if_not_exists: bool, or_replace: bool },
    /// `DROP ROW POLICY [IF EXISTS] name ON [db.]table`; the names are resolved.
    DropRowPolicy { short_name: String, database: String, table: String, if_exists: bool },
    /// `SHOW [ROW] POLICIES [ON [db.]table]`.
    ShowRowPolicies { on: Option<(String, String)> },
    /// `SHOW CREATE [ROW] POLICY name ON [db.]table`.
    ShowCreateRowPolicy { short_name: String, database: String, table: String },
}

impl AccessCommand {
    /// The statement with the row policy tables written without a database put in
    /// `database` (the current one when it runs).
    pub fn in_database(mut self, database: &str) -> Self {
        let fill = |d: &mut String| {
            if d.is_empty() {
                *d = database.to_string();
            }
        };
        match &mut self {
            AccessCommand::CreateRowPolicy { policy, .. } => fill(&mut policy.database),
            AccessCommand::DropRowPolicy { database, .. } | AccessCommand::ShowCreateRowPolicy { database, .. } => fill(database),
            AccessCommand::ShowRowPolicies { on: Some((database, _)) } => fill(database),
            _ => {}
        }
        self
    }

    /// Whether the statement changes nothing (allowed with `readonly`).
    pub fn is_read_only(&self) -> bool {
        matches!(
            self,
            AccessCommand::ShowGrants { .. }
                | AccessCommand::ShowCreateUser { .. }
                | AccessCommand::ShowUsers
                | AccessCommand::ShowRoles
                | AccessCommand::ShowProfiles
                | AccessCommand::ShowQuotas
                | AccessCommand::ShowRowPolicies { .. }
                | AccessCommand::ShowCreateRowPolicy { .. }
        )
    }

    /// `system.query_log.query_kind`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            AccessCommand::CreateUser { .. }
            | AccessCommand::CreateRole { .. }
            | AccessCommand::CreateProfile { .. }
            | AccessCommand::CreateQuota { .. }
            | AccessCommand::CreateRowPolicy { .. } => "Create",
            AccessCommand::AlterUser { .. } => "Alter",
            AccessCommand::DropUser { .. }
            | AccessCommand::DropRole { .. }
            | AccessCommand::DropProfile { .. }
            | AccessCommand::DropQuota { .. }
            | AccessCommand::DropRowPolicy { .. } => "Drop",
            AccessCommand::Grant { .. } | AccessCommand::GrantRoles { .. } => "Grant",
            AccessCommand::Revoke { .. } | AccessCommand::RevokeRoles { .. } => "Revoke",
            _ => "Show",
        }
    }
}
