//! The access entities of a server and the rights of a logged-in user.
//!
//! Entities come from two storages: the server config (read-only, `users_xml` in
//! ClickHouse terms) and SQL statements (`local_directory`, persisted as one JSON file
//! under the data directory, replaced atomically on every change). A login takes a
//! snapshot of the user's rights, settings and quotas ([`UserAccess`]); each HTTP
//! request logs in, so a GRANT applies from the next request on.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use granary_common::{Error, ErrorCode, Result, Settings};
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

use crate::command::{AccessCommand, GrantTarget, UserChanges};
use crate::entities::{row_policy_name, Authentication, Quota, Role, RowPolicy, SettingValue, SettingsProfile, User};
use crate::quota::{Consumption, QueryKind, QuotaTracker, UsageRow};
use crate::rights::{privilege_list, quote_name, AccessRights, Level, Privilege};

/// The entities of one storage.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Entities {
    pub users: BTreeMap<String, User>,
    pub roles: BTreeMap<String, Role>,
    pub profiles: BTreeMap<String, SettingsProfile>,
    pub quotas: BTreeMap<String, Quota>,
    /// By full name (`short_name ON db.table`).
    pub row_policies: BTreeMap<String, RowPolicy>,
}

/// The name of each storage, as `system.users.storage` shows it.
pub const CONFIG_STORAGE: &str = "users_xml";
pub const LOCAL_STORAGE: &str = "local_directory";

const DEFAULT_USER: &str = "default";

pub struct AccessControl {
    config: Entities,
    local: RwLock<Entities>,
    file: Option<PathBuf>,
    tracker: Arc<QuotaTracker>,
    /// Each user's rights, settings and quotas as last resolved: every request
    /// authenticates, and resolving them again (roles, profiles, quotas) cost more than
    /// a key-value lookup's read. Emptied, under `local`'s write lock, whenever an
    /// access statement changes anything.
    resolved: RwLock<BTreeMap<String, Arc<UserAccess>>>,
}

/// The result of an access statement.
pub enum AccessOutcome {
    Done,
    /// One text column (SHOW GRANTS, SHOW USERS, ...).
    Lines { column: &'static str, lines: Vec<String> },
}

impl AccessControl {
    /// `config` from the server config (a passwordless `default` user with every
    /// privilege is added when it defines none); SQL-defined entities live in `dir`.
    pub fn open(mut config: Entities, dir: Option<&Path>) -> Result<Self> {
        if !config.users.contains_key(DEFAULT_USER) {
            let mut default = User::new(DEFAULT_USER, Authentication::NoPassword);
            default.rights = AccessRights::full();
            config.users.insert(DEFAULT_USER.into(), default);
        }
        for user in config.users.values() {
            validate_settings(&user.settings)?;
        }
        for profile in config.profiles.values() {
            validate_settings(&profile.settings)?;
        }
        let file = dir.map(|d| d.join("access.json"));
        let local = match &file {
            Some(path) if path.exists() => {
                let text = std::fs::read_to_string(path).map_err(|e| Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot read {}: {e}", path.display())))?;
                serde_json::from_str(&text).map_err(|e| Error::new(ErrorCode::CORRUPTED_DATA, format!("Cannot parse {}: {e}", path.display())))?
            }
            _ => Entities::default(),
        };
        Ok(AccessControl { config, local: RwLock::new(local), file, tracker: Arc::new(QuotaTracker::default()), resolved: RwLock::default() })
    }

    /// Only the built-in default user, nothing persisted (embedded use and tests).
    pub fn in_memory() -> Self {
        match AccessControl::open(Entities::default(), None) {
            Ok(control) => control,
            // Unreachable: no file to read and no settings to validate.
            Err(_) => AccessControl {
                config: Entities::default(),
                local: RwLock::new(Entities::default()),
                file: None,
                tracker: Arc::default(),
                resolved: RwLock::default(),
            },
        }
    }

    /// Checks credentials and origin. Every failure reads the same, so an attacker
    /// learns nothing about which users exist.
    pub fn authenticate(&self, name: &str, password: &str, peer: IpAddr) -> Result<Arc<UserAccess>> {
        let failed = || {
            granary_common::metrics::Event::FailedAuthentications.add(1);
            Error::new(ErrorCode::AUTHENTICATION_FAILED, format!("{name}: Authentication failed: password is incorrect, or there is no user with such name"))
        };
        let local = self.local.read();
        let user = self.config.users.get(name).or_else(|| local.users.get(name)).ok_or_else(failed)?;
        if !user.auth.verify(password) || !user.allowed_from(peer) {
            return Err(failed());
        }
        if let Some(resolved) = self.resolved.read().get(name) {
            return Ok(resolved.clone());
        }
        // Still under `local`'s read lock: no access statement can change what this
        // resolves before it is remembered.
        let resolved = Arc::new(self.snapshot(user, &local));
        self.resolved.write().insert(name.to_string(), resolved.clone());
        Ok(resolved)
    }

    /// Every privilege, no quotas: `granary local` owns its data directory.
    pub fn unrestricted(name: &str) -> Arc<UserAccess> {
        Arc::new(UserAccess {
            user: name.to_string(),
            rights: vec![AccessRights::full()],
            unrestricted: true,
            settings: Vec::new(),
            quotas: Vec::new(),
            tracker: Arc::default(),
            default_database: None,
            row_policies: Vec::new(),
        })
    }

    fn snapshot(&self, user: &User, local: &Entities) -> UserAccess {
        let role = |name: &String| self.config.roles.get(name).or_else(|| local.roles.get(name));
        let profile = |name: &String| self.config.profiles.get(name).or_else(|| local.profiles.get(name));
        let roles: Vec<&Role> = user.active_roles().filter_map(role).collect();
        let mut rights = vec![user.rights.clone()];
        rights.extend(roles.iter().map(|r| r.rights.clone()));
        // Later entries win: role profiles, role settings, the user's profile, the user's settings.
        let mut settings = Vec::new();
        for r in &roles {
            settings.extend(r.profile.as_ref().and_then(profile).map(|p| p.settings.clone()).unwrap_or_default());
            settings.extend(r.settings.iter().cloned());
        }
        settings.extend(user.profile.as_ref().and_then(profile).map(|p| p.settings.clone()).unwrap_or_default());
        settings.extend(user.settings.iter().cloned());
        let names: BTreeSet<&String> = std::iter::once(&user.name).chain(roles.iter().map(|r| &r.name)).collect();
        let quotas = self
            .config
            .quotas
            .values()
            .chain(local.quotas.values())
            .filter(|q| q.applies_to.iter().any(|n| names.contains(n)))
            .cloned()
            .collect();
        let row_policies: Vec<RowPolicy> = self
            .config
            .row_policies
            .values()
            .chain(local.row_policies.values())
            .filter(|p| p.to.covers(names.iter().copied()))
            .cloned()
            .collect();
        // A user whose reads are filtered takes the checked, planned path everywhere.
        let unrestricted = rights.iter().any(|r| r == AccessRights::full_ref()) && row_policies.is_empty();
        UserAccess {
            row_policies,
            user: user.name.clone(),
            rights,
            unrestricted,
            settings,
            quotas,
            tracker: self.tracker.clone(),
            default_database: user.default_database.clone(),
        }
    }

    /// Carries out an access statement for `actor`.
    pub fn execute(&self, actor: &UserAccess, command: AccessCommand, current_database: &str) -> Result<AccessOutcome> {
        let command = command.in_database(current_database);
        match command {
            AccessCommand::ShowGrants { names } => {
                let names = if names.is_empty() { vec![actor.user.clone()] } else { names };
                if names.iter().any(|n| *n != actor.user) {
                    actor.check(Privilege::AccessManagement, &Level::Global)?;
                }
                let local = self.local.read();
                let mut lines = Vec::new();
                for name in names {
                    let (rights, roles) = match (self.find_user(&local, &name), self.find_role(&local, &name)) {
                        (Some(user), _) => (user.rights.clone(), user.roles.iter().cloned().collect::<Vec<_>>()),
                        (None, Some(role)) => (role.rights.clone(), Vec::new()),
                        (None, None) => return Err(unknown_user(&name)),
                    };
                    lines.extend(grant_lines(&rights, &quote_name(&name)));
                    if !roles.is_empty() {
                        lines.push(format!("GRANT {} TO {}", roles.iter().map(|r| quote_name(r)).collect::<Vec<_>>().join(", "), quote_name(&name)));
                    }
                }
                return Ok(AccessOutcome::Lines { column: "grants", lines });
            }
            AccessCommand::ShowCreateUser { names } => {
                let names = if names.is_empty() { vec![actor.user.clone()] } else { names };
                if names.iter().any(|n| *n != actor.user) {
                    actor.check(Privilege::AccessManagement, &Level::Global)?;
                }
                let local = self.local.read();
                let lines = names
                    .iter()
                    .map(|n| self.find_user(&local, n).map(create_user_sql).ok_or_else(|| unknown_user(n)))
                    .collect::<Result<Vec<_>>>()?;
                return Ok(AccessOutcome::Lines { column: "CREATE USER", lines });
            }
            AccessCommand::ShowUsers | AccessCommand::ShowRoles | AccessCommand::ShowProfiles | AccessCommand::ShowQuotas => {
                actor.check(Privilege::AccessManagement, &Level::Global)?;
                let local = self.local.read();
                let (column, lines): (&'static str, Vec<String>) = match command {
                    AccessCommand::ShowUsers => ("name", self.config.users.keys().chain(local.users.keys()).cloned().collect()),
                    AccessCommand::ShowRoles => ("name", self.config.roles.keys().chain(local.roles.keys()).cloned().collect()),
                    AccessCommand::ShowProfiles => ("name", self.config.profiles.keys().chain(local.profiles.keys()).cloned().collect()),
                    _ => ("name", self.config.quotas.keys().chain(local.quotas.keys()).cloned().collect()),
                };
                let mut lines = lines;
                lines.sort();
                return Ok(AccessOutcome::Lines { column, lines });
            }
            AccessCommand::ShowRowPolicies { on } => {
                actor.check(Privilege::AccessManagement, &Level::Global)?;
                let local = self.local.read();
                let mut lines: Vec<String> = self
                    .config
                    .row_policies
                    .values()
                    .chain(local.row_policies.values())
                    .filter(|p| on.as_ref().is_none_or(|(db, t)| p.database == *db && p.table == *t))
                    .map(RowPolicy::full_name)
                    .collect();
                lines.sort();
                return Ok(AccessOutcome::Lines { column: "name", lines });
            }
            AccessCommand::ShowCreateRowPolicy { short_name, database, table } => {
                actor.check(Privilege::AccessManagement, &Level::Global)?;
                let local = self.local.read();
                let name = row_policy_name(&short_name, &database, &table);
                let policy = self.config.row_policies.get(&name).or_else(|| local.row_policies.get(&name)).ok_or_else(|| not_found("row policy", &name))?;
                return Ok(AccessOutcome::Lines { column: "CREATE ROW POLICY", lines: vec![create_row_policy_sql(policy)] });
            }
            _ => {}
        }
        let mut local = self.local.write();
        let mut changed = local.clone();
        self.apply(actor, command, current_database, &mut changed)?;
        if let Some(path) = &self.file {
            let text = serde_json::to_vec_pretty(&changed).map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("Cannot serialize access entities: {e}")))?;
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot create {}: {e}", dir.display())))?;
            }
            granary_common::fs::write_atomic(path, &text)?;
        }
        *local = changed;
        self.resolved.write().clear();
        Ok(AccessOutcome::Done)
    }

    fn find_user<'a>(&'a self, local: &'a Entities, name: &str) -> Option<&'a User> {
        self.config.users.get(name).or_else(|| local.users.get(name))
    }

    fn find_role<'a>(&'a self, local: &'a Entities, name: &str) -> Option<&'a Role> {
        self.config.roles.get(name).or_else(|| local.roles.get(name))
    }

    /// Applies a mutating statement to a copy of the SQL-defined entities.
    fn apply(&self, actor: &UserAccess, command: AccessCommand, current_database: &str, local: &mut Entities) -> Result<()> {
        let config = &self.config;
        let readonly = readonly_storage;
        let manage = || actor.check(Privilege::AccessManagement, &Level::Global);
        match command {
            AccessCommand::CreateUser { names, if_not_exists, or_replace, changes } => {
                manage()?;
                for name in names {
                    let existing = (config.users.contains_key(&name), local.users.contains_key(&name));
                    if !may_create("user", &name, existing, if_not_exists, or_replace)? {
                        continue;
                    }
                    let mut user = User::new(&name, Authentication::NoPassword);
                    self.change_user(&mut user, &changes, local)?;
                    local.users.insert(name, user);
                }
            }
            AccessCommand::AlterUser { names, if_exists, rename_to, changes } => {
                manage()?;
                for name in names {
                    if config.users.contains_key(&name) {
                        return Err(readonly("user", &name));
                    }
                    let Some(mut user) = local.users.remove(&name) else {
                        if if_exists {
                            continue;
                        }
                        return Err(unknown_user(&name));
                    };
                    self.change_user(&mut user, &changes, local)?;
                    if let Some(new_name) = &rename_to {
                        if config.users.contains_key(new_name) || local.users.contains_key(new_name) {
                            return Err(already_exists("user", new_name, LOCAL_STORAGE));
                        }
                        user.name = new_name.clone();
                    }
                    local.users.insert(user.name.clone(), user);
                }
            }
            AccessCommand::DropUser { names, if_exists } => {
                manage()?;
                for name in names {
                    if !may_drop(config.users.contains_key(&name), local.users.remove(&name).is_some(), if_exists, || readonly("user", &name), || unknown_user(&name))? {
                        continue;
                    }
                    for quota in local.quotas.values_mut() {
                        quota.applies_to.remove(&name);
                    }
                }
            }
            AccessCommand::CreateRole { names, if_not_exists, or_replace, settings, profile } => {
                manage()?;
                validate_settings(&settings)?;
                if let Some(p) = &profile {
                    self.require_profile(local, p)?;
                }
                for name in names {
                    let existing = (config.roles.contains_key(&name), local.roles.contains_key(&name));
                    if !may_create("role", &name, existing, if_not_exists, or_replace)? {
                        continue;
                    }
                    local.roles.insert(name.clone(), Role { name, rights: AccessRights::default(), settings: settings.clone(), profile: profile.clone() });
                }
            }
            AccessCommand::DropRole { names, if_exists } => {
                manage()?;
                for name in names {
                    if !may_drop(config.roles.contains_key(&name), local.roles.remove(&name).is_some(), if_exists, || readonly("role", &name), || unknown_role(&name))? {
                        continue;
                    }
                    for user in local.users.values_mut() {
                        user.roles.remove(&name);
                        if let Some(defaults) = &mut user.default_roles {
                            defaults.remove(&name);
                        }
                    }
                    for quota in local.quotas.values_mut() {
                        quota.applies_to.remove(&name);
                    }
                }
            }
            AccessCommand::Grant { privileges, target, grantees, with_grant_option } => {
                let level = resolve_target(&target, current_database);
                self.change_rights(actor, local, &privileges, &level, &grantees, |rights, p| rights.grant(p, level.clone(), with_grant_option))?;
            }
            AccessCommand::Revoke { privileges, target, grantees, grant_option_only } => {
                let level = resolve_target(&target, current_database);
                self.change_rights(actor, local, &privileges, &level, &grantees, |rights, p| rights.revoke(p, level.clone(), grant_option_only))?;
            }
            AccessCommand::GrantRoles { roles, grantees } => {
                manage()?;
                for role in &roles {
                    if self.find_role(local, role).is_none() {
                        return Err(unknown_role(role));
                    }
                }
                for grantee in grantees {
                    if config.users.contains_key(&grantee) {
                        return Err(readonly("user", &grantee));
                    }
                    let user = local.users.get_mut(&grantee).ok_or_else(|| unknown_user(&grantee))?;
                    user.roles.extend(roles.iter().cloned());
                }
            }
            AccessCommand::RevokeRoles { roles, grantees } => {
                manage()?;
                for grantee in grantees {
                    if config.users.contains_key(&grantee) {
                        return Err(readonly("user", &grantee));
                    }
                    let user = local.users.get_mut(&grantee).ok_or_else(|| unknown_user(&grantee))?;
                    for role in &roles {
                        user.roles.remove(role);
                    }
                }
            }
            AccessCommand::CreateProfile { name, if_not_exists, or_replace, settings, to } => {
                manage()?;
                validate_settings(&settings)?;
                let existing = (config.profiles.contains_key(&name), local.profiles.contains_key(&name));
                if !may_create("settings profile", &name, existing, if_not_exists, or_replace)? {
                    return Ok(());
                }
                for grantee in &to {
                    match (local.users.get_mut(grantee), local.roles.get_mut(grantee)) {
                        (Some(user), _) => user.profile = Some(name.clone()),
                        (None, Some(role)) => role.profile = Some(name.clone()),
                        (None, None) if config.users.contains_key(grantee) || config.roles.contains_key(grantee) => return Err(readonly("user", grantee)),
                        (None, None) => return Err(unknown_user(grantee)),
                    }
                }
                local.profiles.insert(name.clone(), SettingsProfile { name, settings });
            }
            AccessCommand::DropProfile { names, if_exists } => {
                manage()?;
                for name in names {
                    let removed = local.profiles.remove(&name).is_some();
                    if !may_drop(config.profiles.contains_key(&name), removed, if_exists, || readonly("settings profile", &name), || not_found("settings profile", &name))? {
                        continue;
                    }
                    for user in local.users.values_mut().filter(|u| u.profile.as_deref() == Some(name.as_str())) {
                        user.profile = None;
                    }
                    for role in local.roles.values_mut().filter(|r| r.profile.as_deref() == Some(name.as_str())) {
                        role.profile = None;
                    }
                }
            }
            AccessCommand::CreateQuota { name, if_not_exists, or_replace, intervals, to, keyed_by_user } => {
                manage()?;
                let existing = (config.quotas.contains_key(&name), local.quotas.contains_key(&name));
                if !may_create("quota", &name, existing, if_not_exists, or_replace)? {
                    return Ok(());
                }
                for grantee in &to {
                    if self.find_user(local, grantee).is_none() && self.find_role(local, grantee).is_none() {
                        return Err(unknown_user(grantee));
                    }
                }
                local.quotas.insert(name.clone(), Quota { name, intervals, applies_to: to.into_iter().collect(), keyed_by_user });
            }
            AccessCommand::DropQuota { names, if_exists } => {
                manage()?;
                for name in names {
                    let removed = local.quotas.remove(&name).is_some();
                    may_drop(config.quotas.contains_key(&name), removed, if_exists, || readonly("quota", &name), || not_found("quota", &name))?;
                }
            }
            AccessCommand::CreateRowPolicy { mut policy, if_not_exists, or_replace } => {
                manage()?;
                let name = policy.full_name();
                let existing = (config.row_policies.contains_key(&name), local.row_policies.contains_key(&name));
                if !may_create("row policy", &name, existing, if_not_exists, or_replace)? {
                    return Ok(());
                }
                for grantee in policy.to.names.iter().chain(&policy.to.except) {
                    if self.find_user(local, grantee).is_none() && self.find_role(local, grantee).is_none() {
                        return Err(unknown_user(grantee));
                    }
                }
                policy.id = uuid::Uuid::new_v4().to_string();
                local.row_policies.insert(name, policy);
            }
            AccessCommand::DropRowPolicy { short_name, database, table, if_exists } => {
                manage()?;
                let name = row_policy_name(&short_name, &database, &table);
                let removed = local.row_policies.remove(&name).is_some();
                may_drop(config.row_policies.contains_key(&name), removed, if_exists, || readonly("row policy", &name), || not_found("row policy", &name))?;
            }
            AccessCommand::ShowGrants { .. }
            | AccessCommand::ShowRowPolicies { .. }
            | AccessCommand::ShowCreateRowPolicy { .. }
            | AccessCommand::ShowCreateUser { .. }
            | AccessCommand::ShowUsers
            | AccessCommand::ShowRoles
            | AccessCommand::ShowProfiles
            | AccessCommand::ShowQuotas => {}
        }
        Ok(())
    }

    /// GRANT/REVOKE of privileges: the actor must hold each with grant option.
    fn change_rights(
        &self,
        actor: &UserAccess,
        local: &mut Entities,
        phrases: &[String],
        level: &Level,
        grantees: &[String],
        change: impl Fn(&mut AccessRights, Privilege),
    ) -> Result<()> {
        let privileges = resolve_privileges(phrases, level)?;
        for p in &privileges {
            actor.check_grant_option(*p, level)?;
        }
        for grantee in grantees {
            let rights = self.rights_of(local, grantee)?;
            for p in &privileges {
                change(rights, *p);
            }
        }
        Ok(())
    }

    fn require_profile(&self, local: &Entities, name: &str) -> Result<()> {
        if self.config.profiles.contains_key(name) || local.profiles.contains_key(name) {
            Ok(())
        } else {
            Err(not_found("settings profile", name))
        }
    }

    fn change_user(&self, user: &mut User, changes: &UserChanges, local: &Entities) -> Result<()> {
        if let Some(auth) = &changes.auth {
            user.auth = auth.clone();
        }
        if let Some(hosts) = &changes.hosts {
            user.hosts = Some(hosts.clone());
        }
        if let Some(defaults) = &changes.default_roles {
            if let Some(roles) = defaults {
                for role in roles {
                    if !user.roles.contains(role) {
                        return Err(Error::new(ErrorCode::UNKNOWN_ROLE, format!("Role {} should be granted to set as a default", quote_name(role))));
                    }
                }
            }
            user.default_roles = defaults.clone();
        }
        if let Some(database) = &changes.default_database {
            user.default_database = database.clone();
        }
        if let Some(settings) = &changes.settings {
            validate_settings(settings)?;
            user.settings = settings.clone();
        }
        if let Some(profile) = &changes.profile {
            if let Some(name) = profile {
                self.require_profile(local, name)?;
            }
            user.profile = profile.clone();
        }
        Ok(())
    }

    /// The rights of a SQL-defined user or role, to change.
    fn rights_of<'a>(&self, local: &'a mut Entities, grantee: &str) -> Result<&'a mut AccessRights> {
        if self.config.users.contains_key(grantee) {
            return Err(readonly_storage("user", grantee));
        }
        if self.config.roles.contains_key(grantee) {
            return Err(readonly_storage("role", grantee));
        }
        if local.users.contains_key(grantee) {
            return Ok(&mut local.users.get_mut(grantee).ok_or_else(|| unknown_user(grantee))?.rights);
        }
        match local.roles.get_mut(grantee) {
            Some(role) => Ok(&mut role.rights),
            None => Err(unknown_user(grantee)),
        }
    }

    /// Users with their storage, for `system.users`.
    pub fn users(&self) -> Vec<(User, &'static str)> {
        let local = self.local.read();
        self.config.users.values().map(|u| (u.clone(), CONFIG_STORAGE)).chain(local.users.values().map(|u| (u.clone(), LOCAL_STORAGE))).collect()
    }

    pub fn roles(&self) -> Vec<(Role, &'static str)> {
        let local = self.local.read();
        self.config.roles.values().map(|r| (r.clone(), CONFIG_STORAGE)).chain(local.roles.values().map(|r| (r.clone(), LOCAL_STORAGE))).collect()
    }

    pub fn profiles(&self) -> Vec<(SettingsProfile, &'static str)> {
        let local = self.local.read();
        self.config.profiles.values().map(|p| (p.clone(), CONFIG_STORAGE)).chain(local.profiles.values().map(|p| (p.clone(), LOCAL_STORAGE))).collect()
    }

    pub fn quotas(&self) -> Vec<(Quota, &'static str)> {
        let local = self.local.read();
        self.config.quotas.values().map(|q| (q.clone(), CONFIG_STORAGE)).chain(local.quotas.values().map(|q| (q.clone(), LOCAL_STORAGE))).collect()
    }

    /// Every row policy and the storage it comes from (`system.row_policies`).
    pub fn row_policies(&self) -> Vec<(RowPolicy, &'static str)> {
        let local = self.local.read();
        self.config
            .row_policies
            .values()
            .map(|p| (p.clone(), CONFIG_STORAGE))
            .chain(local.row_policies.values().map(|p| (p.clone(), LOCAL_STORAGE)))
            .collect()
    }

    pub fn quota_usage(&self) -> Vec<UsageRow> {
        let quotas: Vec<Quota> = self.quotas().into_iter().map(|(q, _)| q).collect();
        self.tracker.rows(&quotas)
    }
}

/// What a logged-in user may do, and the settings and quotas that come with them.
pub struct UserAccess {
    pub user: String,
    /// The user's own rights, then those of each active role.
    rights: Vec<AccessRights>,
    /// Holds every privilege: checks are skipped (the hot path of the default user).
    unrestricted: bool,
    /// Profile and user settings, in the order they apply.
    pub settings: Vec<SettingValue>,
    quotas: Vec<Quota>,
    tracker: Arc<QuotaTracker>,
    pub default_database: Option<String>,
    /// The row policies that cover this user (by name, an active role, or ALL).
    row_policies: Vec<RowPolicy>,
}

impl std::fmt::Debug for UserAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserAccess").field("user", &self.user).field("unrestricted", &self.unrestricted).finish_non_exhaustive()
    }
}

impl UserAccess {
    /// Whether any row policy filters what this user reads.
    pub fn has_row_policies(&self) -> bool {
        !self.row_policies.is_empty()
    }

    /// The condition on the rows of `database.table` this user may read, as ClickHouse
    /// combines row policies: the permissive ones OR-ed (none of them: no row), the
    /// restrictive ones AND-ed on top. `None` when no policy covers the user there.
    pub fn row_filter(&self, database: &str, table: &str) -> Option<String> {
        let policies: Vec<&RowPolicy> = self.row_policies.iter().filter(|p| p.database == database && p.table == table).collect();
        if policies.is_empty() {
            return None;
        }
        let condition = |p: &&RowPolicy| format!("({})", p.condition.as_deref().unwrap_or("1"));
        let permissive: Vec<String> = policies.iter().filter(|p| !p.restrictive).map(condition).collect();
        let mut filter = if permissive.is_empty() { "0".to_string() } else { permissive.join(" OR ") };
        for restrictive in policies.iter().filter(|p| p.restrictive) {
            filter = format!("({filter}) AND {}", condition(restrictive));
        }
        Some(filter)
    }

    pub fn allows(&self, privilege: Privilege, level: &Level) -> bool {
        self.unrestricted || self.rights.iter().any(|r| r.allows(privilege, level))
    }

    pub fn allows_anything_under(&self, privilege: Privilege, level: &Level) -> bool {
        self.unrestricted || self.rights.iter().any(|r| r.allows_anything_under(privilege, level))
    }

    pub fn check(&self, privilege: Privilege, level: &Level) -> Result<()> {
        if self.allows(privilege, level) {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::ACCESS_DENIED,
            format!("{}: Not enough privileges. To execute this query, it's necessary to have the grant {privilege} ON {level}", self.user),
        ))
    }

    fn check_grant_option(&self, privilege: Privilege, level: &Level) -> Result<()> {
        if self.unrestricted || self.rights.iter().any(|r| r.allows_with_grant_option(privilege, level)) {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::ACCESS_DENIED,
            format!(
                "{}: Not enough privileges. To execute this query, it's necessary to have the grant {privilege} ON {level} WITH GRANT OPTION",
                self.user
            ),
        ))
    }

    pub fn is_unrestricted(&self) -> bool {
        self.unrestricted
    }

    /// The `readonly` level the profile imposes (0: none).
    pub fn readonly(&self) -> u64 {
        self.settings.iter().rev().find(|s| s.name == "readonly").and_then(|s| s.value.parse().ok()).unwrap_or(0)
    }

    /// Whether the user may change `name` from `current` to `value`: `readonly = 1`
    /// forbids every change, `readonly = 2` changes of `readonly` itself, and
    /// `READONLY`/`CONST` profile settings stay as they are. Setting a value it
    /// already has is no change.
    pub fn check_setting_change(&self, name: &str, current: Option<&str>, value: &str) -> Result<()> {
        if self.unrestricted || current == Some(value) {
            return Ok(());
        }
        let readonly = self.readonly();
        if readonly == 1 || (readonly == 2 && name == "readonly") {
            return Err(Error::new(ErrorCode::READONLY, format!("Cannot modify '{name}' setting in readonly mode")));
        }
        if self.settings.iter().any(|s| s.fixed && s.name == name) {
            return Err(Error::new(ErrorCode::SETTING_CONSTRAINT_VIOLATION, format!("Setting {name} should not be changed")));
        }
        Ok(())
    }

    /// Counts a starting query against the user's quotas.
    pub fn start_query(&self, kind: QueryKind) -> Result<()> {
        for quota in &self.quotas {
            self.tracker.start_query(quota, &self.user, kind)?;
        }
        Ok(())
    }

    pub fn finish_query(&self, consumed: Consumption) {
        for quota in &self.quotas {
            self.tracker.finish_query(quota, &self.user, consumed);
        }
    }
}

fn validate_settings(settings: &[SettingValue]) -> Result<()> {
    let mut check = Settings::new();
    for s in settings {
        check.set(&s.name, &s.value)?;
    }
    Ok(())
}

fn resolve_target(target: &GrantTarget, current_database: &str) -> Level {
    if target.global {
        return Level::Global;
    }
    let database = target.database.clone().unwrap_or_else(|| current_database.to_string());
    match &target.table {
        Some(table) => Level::Table(database, table.clone()),
        None => Level::Database(database),
    }
}

/// Privilege phrases to privileges; `ALL` and groups keep what applies to the level,
/// a single privilege that cannot apply there is an error.
fn resolve_privileges(phrases: &[String], level: &Level) -> Result<Vec<Privilege>> {
    let mut out = BTreeSet::new();
    for phrase in phrases {
        let expanded = Privilege::parse_phrase(phrase)?;
        if expanded.len() == 1 && !expanded[0].applies_to(level) {
            return Err(Error::new(ErrorCode::INVALID_GRANT, format!("{} cannot be granted on {level}", expanded[0])));
        }
        out.extend(expanded.into_iter().filter(|p| p.applies_to(level)));
    }
    Ok(out.into_iter().collect())
}

fn grant_lines(rights: &AccessRights, grantee: &str) -> Vec<String> {
    rights
        .grouped()
        .into_iter()
        .map(|(privileges, level, partial_revoke, grant_option)| {
            let list = privilege_list(&privileges, &level);
            if partial_revoke {
                format!("REVOKE {list} ON {level} FROM {grantee}")
            } else {
                format!("GRANT {list} ON {level} TO {grantee}{}", if grant_option { " WITH GRANT OPTION" } else { "" })
            }
        })
        .collect()
}

fn create_user_sql(user: &User) -> String {
    let mut sql = format!("CREATE USER {}", quote_name(&user.name));
    sql.push_str(match user.auth {
        Authentication::NoPassword => " IDENTIFIED WITH no_password",
        Authentication::Plaintext(_) => " IDENTIFIED WITH plaintext_password",
        Authentication::Sha256 { .. } => " IDENTIFIED WITH sha256_password",
    });
    if let Some(hosts) = &user.hosts {
        sql.push_str(" HOST ");
        sql.push_str(&if hosts.is_empty() { "NONE".to_string() } else { hosts.iter().map(|h| h.to_sql()).collect::<Vec<_>>().join(", ") });
    }
    if let Some(database) = &user.default_database {
        sql.push_str(&format!(" DEFAULT DATABASE {}", quote_name(database)));
    }
    if let Some(roles) = &user.default_roles {
        let list = if roles.is_empty() { "NONE".to_string() } else { roles.iter().map(|r| quote_name(r)).collect::<Vec<_>>().join(", ") };
        sql.push_str(&format!(" DEFAULT ROLE {list}"));
    }
    let mut settings: Vec<String> = user.settings.iter().map(|s| format!("{} = {}", s.name, quote_value(&s.value))).collect();
    if let Some(profile) = &user.profile {
        settings.insert(0, format!("PROFILE '{profile}'"));
    }
    if !settings.is_empty() {
        sql.push_str(&format!(" SETTINGS {}", settings.join(", ")));
    }
    sql
}

fn quote_value(value: &str) -> String {
    if value.parse::<f64>().is_ok() {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// Whether CREATE [OR REPLACE] [IF NOT EXISTS] goes ahead for an entity that exists in
/// the (config, SQL) storages as given: `Ok(false)` skips it, the config storage is
/// never replaced.
fn may_create(kind: &str, name: &str, (in_config, in_local): (bool, bool), if_not_exists: bool, or_replace: bool) -> Result<bool> {
    if (in_config || in_local) && if_not_exists {
        return Ok(false);
    }
    if in_config {
        return Err(if or_replace { readonly_storage(kind, name) } else { already_exists(kind, name, CONFIG_STORAGE) });
    }
    if in_local && !or_replace {
        return Err(already_exists(kind, name, LOCAL_STORAGE));
    }
    Ok(true)
}

/// DROP [IF EXISTS] of one entity, after its removal from the SQL storage was tried:
/// `Ok(true)` when it was removed (the caller then cleans up references to it).
fn may_drop(in_config: bool, removed: bool, if_exists: bool, readonly: impl FnOnce() -> Error, missing: impl FnOnce() -> Error) -> Result<bool> {
    if in_config {
        return Err(readonly());
    }
    if !removed && !if_exists {
        return Err(missing());
    }
    Ok(removed)
}

/// `SHOW CREATE ROW POLICY`, as ClickHouse writes it.
fn create_row_policy_sql(policy: &RowPolicy) -> String {
    let mut sql = format!("CREATE ROW POLICY {} ON {}.{}", quote_name(&policy.short_name), quote_name(&policy.database), quote_name(&policy.table));
    if policy.restrictive {
        sql.push_str(" AS restrictive");
    }
    if let Some(condition) = &policy.condition {
        sql.push_str(&format!(" FOR SELECT USING {condition}"));
    }
    sql.push_str(&format!(" TO {}", policy.to.to_sql()));
    sql
}

fn readonly_storage(kind: &str, name: &str) -> Error {
    Error::new(ErrorCode::ACCESS_STORAGE_READONLY, format!("Cannot update {kind} `{name}` in {CONFIG_STORAGE} because this storage is readonly"))
}

fn already_exists(kind: &str, name: &str, storage: &str) -> Error {
    Error::new(
        ErrorCode::ACCESS_ENTITY_ALREADY_EXISTS,
        format!("{kind} `{name}`: cannot insert because {kind} `{name}` already exists in {storage}"),
    )
}

fn unknown_user(name: &str) -> Error {
    Error::new(ErrorCode::UNKNOWN_USER, format!("There is no user `{name}` in user directories"))
}

fn unknown_role(name: &str) -> Error {
    Error::new(ErrorCode::UNKNOWN_ROLE, format!("There is no role `{name}` in user directories"))
}

fn not_found(kind: &str, name: &str) -> Error {
    Error::new(ErrorCode::ACCESS_ENTITY_NOT_FOUND, format!("There is no {kind} `{name}` in user directories"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn on(database: &str, table: Option<&str>) -> GrantTarget {
        GrantTarget { database: Some(database.into()), table: table.map(str::to_string), global: false }
    }

    #[test]
    fn sql_users_grants_and_persistence() {
        let dir = tempfile::tempdir().unwrap();
        let control = AccessControl::open(Entities::default(), Some(dir.path())).unwrap();
        let admin = control.authenticate("default", "", ip("127.0.0.1")).unwrap();
        assert!(control.authenticate("default", "", ip("10.0.0.1")).is_err(), "passwordless default only from loopback");
        let create = AccessCommand::CreateUser {
            names: vec!["alice".into()],
            if_not_exists: false,
            or_replace: false,
            changes: UserChanges { auth: Some(Authentication::sha256_of("pw")), ..Default::default() },
        };
        control.execute(&admin, create.clone(), "default").unwrap();
        assert_eq!(control.execute(&admin, create, "default").err().map(|e| e.code()), Some(ErrorCode::ACCESS_ENTITY_ALREADY_EXISTS));
        let grant = AccessCommand::Grant { privileges: vec!["SELECT".into()], target: on("db", None), grantees: vec!["alice".into()], with_grant_option: false };
        control.execute(&admin, grant, "default").unwrap();
        let alice = control.authenticate("alice", "pw", ip("10.0.0.1")).unwrap();
        assert!(alice.check(Privilege::Select, &Level::Table("db".into(), "t".into())).is_ok());
        let denied = alice.check(Privilege::Insert, &Level::Table("db".into(), "t".into())).unwrap_err();
        assert_eq!(denied.code(), ErrorCode::ACCESS_DENIED);
        assert!(denied.message().contains("INSERT ON db.t"), "{}", denied.message());
        // Alice cannot hand out what she has without the grant option, nor manage users.
        let pass_on = AccessCommand::Grant { privileges: vec!["SELECT".into()], target: on("db", None), grantees: vec!["alice".into()], with_grant_option: false };
        assert_eq!(control.execute(&alice, pass_on, "default").err().map(|e| e.code()), Some(ErrorCode::ACCESS_DENIED));
        // The same failure for a wrong password and an unknown user.
        let wrong = control.authenticate("alice", "nope", ip("127.0.0.1")).unwrap_err();
        let unknown = control.authenticate("mallory", "nope", ip("127.0.0.1")).unwrap_err();
        assert_eq!(wrong.code(), ErrorCode::AUTHENTICATION_FAILED);
        assert_eq!(wrong.message().replace("alice", "x"), unknown.message().replace("mallory", "x"));
        // A restart reads the same entities back.
        drop(control);
        let reopened = AccessControl::open(Entities::default(), Some(dir.path())).unwrap();
        let alice = reopened.authenticate("alice", "pw", ip("127.0.0.1")).unwrap();
        assert!(alice.allows(Privilege::Select, &Level::Database("db".into())));
        let AccessOutcome::Lines { lines, .. } = reopened.execute(&alice, AccessCommand::ShowGrants { names: vec![] }, "default").unwrap() else { panic!() };
        assert_eq!(lines, vec!["GRANT SELECT ON db.* TO alice"]);
    }

    #[test]
    fn roles_profiles_and_readonly() {
        let control = AccessControl::in_memory();
        let admin = control.authenticate("default", "", ip("::1")).unwrap();
        let run = |command| control.execute(&admin, command, "default").map(|_| ());
        run(AccessCommand::CreateProfile {
            name: "ro".into(),
            if_not_exists: false,
            or_replace: false,
            settings: vec![SettingValue { name: "readonly".into(), value: "1".into(), fixed: false }],
            to: vec![],
        })
        .unwrap();
        run(AccessCommand::CreateRole { names: vec!["reader".into()], if_not_exists: false, or_replace: false, settings: vec![], profile: Some("ro".into()) }).unwrap();
        run(AccessCommand::Grant { privileges: vec!["SELECT".into()], target: on("db", Some("t")), grantees: vec!["reader".into()], with_grant_option: false }).unwrap();
        run(AccessCommand::CreateUser {
            names: vec!["bob".into()],
            if_not_exists: false,
            or_replace: false,
            changes: UserChanges { auth: Some(Authentication::Plaintext("b".into())), ..Default::default() },
        })
        .unwrap();
        run(AccessCommand::GrantRoles { roles: vec!["reader".into()], grantees: vec!["bob".into()] }).unwrap();
        let bob = control.authenticate("bob", "b", ip("127.0.0.1")).unwrap();
        assert!(bob.allows(Privilege::Select, &Level::Table("db".into(), "t".into())));
        assert!(!bob.allows(Privilege::Select, &Level::Table("db".into(), "u".into())));
        assert_eq!(bob.readonly(), 1);
        assert_eq!(bob.check_setting_change("max_threads", Some("4"), "2").unwrap_err().code(), ErrorCode::READONLY);
        assert!(bob.check_setting_change("max_threads", Some("4"), "4").is_ok());
        assert!(run(AccessCommand::DropRole { names: vec!["nope".into()], if_exists: false }).is_err());
        run(AccessCommand::DropRole { names: vec!["reader".into()], if_exists: false }).unwrap();
        let bob = control.authenticate("bob", "b", ip("127.0.0.1")).unwrap();
        assert!(!bob.allows(Privilege::Select, &Level::Table("db".into(), "t".into())));
        assert!(run(AccessCommand::CreateUser { names: vec!["x".into()], if_not_exists: false, or_replace: false, changes: UserChanges {
            settings: Some(vec![SettingValue { name: "no_such_setting".into(), value: "1".into(), fixed: false }]),
            ..Default::default()
        } })
        .is_err());
    }

    #[test]
    fn config_users_are_read_only() {
        let mut config = Entities::default();
        let mut carol = User::new("carol", Authentication::sha256_hash(&crate::entities::sha256_hex("c")).unwrap());
        carol.hosts = Some(vec![crate::entities::HostPattern::parse("10.0.0.0/8").unwrap()]);
        config.users.insert("carol".into(), carol);
        let control = AccessControl::open(config, None).unwrap();
        assert!(control.authenticate("carol", "c", ip("10.1.2.3")).is_ok());
        assert!(control.authenticate("carol", "c", ip("192.168.0.1")).is_err());
        let admin = control.authenticate("default", "", ip("127.0.0.1")).unwrap();
        let e = control.execute(&admin, AccessCommand::DropUser { names: vec!["carol".into()], if_exists: false }, "default").err().unwrap();
        assert_eq!(e.code(), ErrorCode::ACCESS_STORAGE_READONLY);
    }
}
