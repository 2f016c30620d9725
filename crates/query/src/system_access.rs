//! `system.users`, `roles`, `grants`, `role_grants`, `settings_profiles`,
//! `settings_profile_elements`, `quotas`, `quota_limits`, `quota_usage` and `row_policies`.

use std::sync::Arc;

use arrow::array::{ArrayRef, UInt64Array};
use granary_access::{Authentication, Level, QuotaLimits, User};
use granary_common::Result;

use crate::instance::Shared;
use crate::system::{nullable_strings, string_lists, strings, u8s, Generator, QueryContextExt};

type Definition = (&'static str, Vec<(&'static str, &'static str)>, Generator);

pub(crate) fn definitions() -> Vec<Definition> {
    vec![
        (
            "users",
            vec![
                ("name", "String"),
                ("storage", "String"),
                ("auth_type", "String"),
                ("host_ip", "Array(String)"),
                ("host_names", "Array(String)"),
                ("default_roles_all", "UInt8"),
                ("default_roles_list", "Array(String)"),
                ("default_database", "String"),
                ("settings_profile", "Nullable(String)"),
            ],
            users,
        ),
        ("roles", vec![("name", "String"), ("storage", "String")], roles),
        (
            "grants",
            vec![
                ("user_name", "Nullable(String)"),
                ("role_name", "Nullable(String)"),
                ("access_type", "String"),
                ("database", "Nullable(String)"),
                ("table", "Nullable(String)"),
                ("column", "Nullable(String)"),
                ("is_partial_revoke", "UInt8"),
                ("grant_option", "UInt8"),
            ],
            grants,
        ),
        (
            "role_grants",
            vec![("user_name", "Nullable(String)"), ("role_name", "Nullable(String)"), ("granted_role_name", "String"), ("granted_role_is_default", "UInt8"), ("with_admin_option", "UInt8")],
            role_grants,
        ),
        ("settings_profiles", vec![("name", "String"), ("storage", "String"), ("num_elements", "UInt64"), ("apply_to_list", "Array(String)")], settings_profiles),
        (
            "settings_profile_elements",
            vec![("profile_name", "Nullable(String)"), ("user_name", "Nullable(String)"), ("role_name", "Nullable(String)"), ("setting_name", "Nullable(String)"), ("value", "Nullable(String)"), ("writability", "Nullable(String)")],
            settings_profile_elements,
        ),
        ("quotas", vec![("name", "String"), ("storage", "String"), ("keys", "Array(String)"), ("durations", "Array(UInt64)"), ("apply_to_list", "Array(String)")], quotas),
        (
            "quota_limits",
            vec![
                ("quota_name", "String"),
                ("duration", "UInt64"),
                ("max_queries", "Nullable(UInt64)"),
                ("max_query_selects", "Nullable(UInt64)"),
                ("max_query_inserts", "Nullable(UInt64)"),
                ("max_errors", "Nullable(UInt64)"),
                ("max_result_rows", "Nullable(UInt64)"),
                ("max_read_rows", "Nullable(UInt64)"),
                ("max_execution_time", "Nullable(UInt64)"),
            ],
            quota_limits,
        ),
        (
            "row_policies",
            vec![
                ("name", "String"),
                ("short_name", "String"),
                ("database", "String"),
                ("table", "String"),
                ("id", "String"),
                ("storage", "String"),
                ("select_filter", "Nullable(String)"),
                ("is_restrictive", "UInt8"),
                ("apply_to_all", "UInt8"),
                ("apply_to_list", "Array(String)"),
                ("apply_to_except", "Array(String)"),
            ],
            row_policies,
        ),
        (
            "quota_usage",
            vec![
                ("quota_name", "String"),
                ("quota_key", "String"),
                ("end_time", "DateTime"),
                ("duration", "UInt64"),
                ("queries", "UInt64"),
                ("max_queries", "Nullable(UInt64)"),
                ("errors", "UInt64"),
                ("max_errors", "Nullable(UInt64)"),
                ("result_rows", "UInt64"),
                ("read_rows", "UInt64"),
                ("execution_time", "UInt64"),
            ],
            quota_usage,
        ),
    ]
}

fn auth_type(user: &User) -> &'static str {
    match user.auth {
        Authentication::NoPassword => "no_password",
        Authentication::Plaintext(_) => "plaintext_password",
        Authentication::Sha256 { .. } => "sha256_password",
    }
}

fn users(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let users = shared.access.users();
    let hosts = users.iter().map(|(u, _)| match &u.hosts {
        Some(hosts) => hosts.iter().map(|h| h.to_sql()).collect(),
        None if u.auth == Authentication::NoPassword => vec!["LOCAL".to_string()],
        None => vec!["::/0".to_string()],
    });
    Ok(vec![
        strings(users.iter().map(|(u, _)| &u.name)),
        strings(users.iter().map(|(_, s)| s)),
        strings(users.iter().map(|(u, _)| auth_type(u))),
        string_lists(hosts),
        string_lists(users.iter().map(|_| Vec::new())),
        u8s(users.iter().map(|(u, _)| u.default_roles.is_none())),
        string_lists(users.iter().map(|(u, _)| u.default_roles.iter().flatten().cloned().collect())),
        strings(users.iter().map(|(u, _)| u.default_database.clone().unwrap_or_default())),
        nullable_strings(users.iter().map(|(u, _)| u.profile.clone())),
    ])
}

fn roles(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let roles = shared.access.roles();
    Ok(vec![strings(roles.iter().map(|(r, _)| &r.name)), strings(roles.iter().map(|(_, s)| s))])
}

fn grants(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    struct Row {
        user: Option<String>,
        role: Option<String>,
        access_type: &'static str,
        level: Level,
        partial_revoke: bool,
        grant_option: bool,
    }
    let mut rows = Vec::new();
    let users = shared.access.users().into_iter().map(|(u, _)| (Some(u.name.clone()), None, u.rights));
    let roles = shared.access.roles().into_iter().map(|(r, _)| (None, Some(r.name.clone()), r.rights));
    for (user, role, rights) in users.chain(roles) {
        for entry in rights.entries() {
            rows.push(Row {
                user: user.clone(),
                role: role.clone(),
                access_type: entry.privilege.name(),
                level: entry.level.clone(),
                partial_revoke: entry.partial_revoke,
                grant_option: entry.grant_option,
            });
        }
    }
    let database = |l: &Level| match l {
        Level::Global => None,
        Level::Database(d) | Level::Table(d, _) => Some(d.clone()),
    };
    let table = |l: &Level| match l {
        Level::Table(_, t) => Some(t.clone()),
        _ => None,
    };
    Ok(vec![
        nullable_strings(rows.iter().map(|r| r.user.clone())),
        nullable_strings(rows.iter().map(|r| r.role.clone())),
        strings(rows.iter().map(|r| r.access_type)),
        nullable_strings(rows.iter().map(|r| database(&r.level))),
        nullable_strings(rows.iter().map(|r| table(&r.level))),
        nullable_strings(rows.iter().map(|_| None)),
        u8s(rows.iter().map(|r| r.partial_revoke)),
        u8s(rows.iter().map(|r| r.grant_option)),
    ])
}

fn role_grants(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let mut rows = Vec::new();
    for (user, _) in shared.access.users() {
        for role in &user.roles {
            let is_default = user.default_roles.as_ref().is_none_or(|d| d.contains(role));
            rows.push((user.name.clone(), role.clone(), is_default));
        }
    }
    Ok(vec![
        nullable_strings(rows.iter().map(|r| Some(r.0.clone()))),
        nullable_strings(rows.iter().map(|_| None)),
        strings(rows.iter().map(|r| &r.1)),
        u8s(rows.iter().map(|r| r.2)),
        u8s(rows.iter().map(|_| false)),
    ])
}

fn settings_profiles(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let profiles = shared.access.profiles();
    let users = shared.access.users();
    let roles = shared.access.roles();
    let apply_to = profiles.iter().map(|(p, _)| {
        let by_user = users.iter().filter(|(u, _)| u.profile.as_deref() == Some(p.name.as_str())).map(|(u, _)| u.name.clone());
        let by_role = roles.iter().filter(|(r, _)| r.profile.as_deref() == Some(p.name.as_str())).map(|(r, _)| r.name.clone());
        by_user.chain(by_role).collect::<Vec<_>>()
    });
    Ok(vec![
        strings(profiles.iter().map(|(p, _)| &p.name)),
        strings(profiles.iter().map(|(_, s)| s)),
        Arc::new(UInt64Array::from_iter_values(profiles.iter().map(|(p, _)| p.settings.len() as u64))),
        string_lists(apply_to),
    ])
}

fn settings_profile_elements(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    // (profile, user, role, setting)
    let mut rows: Vec<(Option<String>, Option<String>, Option<String>, granary_access::SettingValue)> = Vec::new();
    for (p, _) in shared.access.profiles() {
        rows.extend(p.settings.iter().map(|s| (Some(p.name.clone()), None, None, s.clone())));
    }
    for (u, _) in shared.access.users() {
        rows.extend(u.settings.iter().map(|s| (None, Some(u.name.clone()), None, s.clone())));
    }
    for (r, _) in shared.access.roles() {
        rows.extend(r.settings.iter().map(|s| (None, None, Some(r.name.clone()), s.clone())));
    }
    Ok(vec![
        nullable_strings(rows.iter().map(|r| r.0.clone())),
        nullable_strings(rows.iter().map(|r| r.1.clone())),
        nullable_strings(rows.iter().map(|r| r.2.clone())),
        nullable_strings(rows.iter().map(|r| Some(r.3.name.clone()))),
        nullable_strings(rows.iter().map(|r| Some(r.3.value.clone()))),
        nullable_strings(rows.iter().map(|r| Some(if r.3.fixed { "CONST" } else { "WRITABLE" }.to_string()))),
    ])
}

pub(crate) fn u64_lists(lists: impl IntoIterator<Item = Vec<u64>>) -> ArrayRef {
    let item = Arc::new(arrow::datatypes::Field::new("item", arrow::datatypes::DataType::UInt64, false));
    let mut builder = arrow::array::ListBuilder::new(arrow::array::UInt64Builder::new()).with_field(item);
    for list in lists {
        builder.values().append_slice(&list);
        builder.append(true);
    }
    Arc::new(builder.finish())
}

fn quotas(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let quotas = shared.access.quotas();
    Ok(vec![
        strings(quotas.iter().map(|(q, _)| &q.name)),
        strings(quotas.iter().map(|(_, s)| s)),
        string_lists(quotas.iter().map(|(q, _)| if q.keyed_by_user { vec!["user_name".to_string()] } else { Vec::new() })),
        u64_lists(quotas.iter().map(|(q, _)| q.intervals.iter().map(|i| i.duration_seconds).collect())),
        string_lists(quotas.iter().map(|(q, _)| q.applies_to.iter().cloned().collect())),
    ])
}

fn limit_column(limits: &[&QuotaLimits], resource: &str) -> ArrayRef {
    Arc::new(UInt64Array::from_iter(limits.iter().map(|l| Some(l.get(resource)).filter(|v| *v > 0))))
}

fn quota_limits(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let quotas = shared.access.quotas();
    let rows: Vec<(&str, &QuotaLimits)> = quotas.iter().flat_map(|(q, _)| q.intervals.iter().map(move |i| (q.name.as_str(), i))).collect();
    let limits: Vec<&QuotaLimits> = rows.iter().map(|(_, l)| *l).collect();
    let mut columns = vec![strings(rows.iter().map(|(n, _)| *n)), Arc::new(UInt64Array::from_iter_values(limits.iter().map(|l| l.duration_seconds))) as ArrayRef];
    columns.extend(QuotaLimits::RESOURCES.iter().map(|r| limit_column(&limits, r)));
    Ok(columns)
}

fn quota_usage(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let rows = shared.access.quota_usage();
    let end_times = arrow::array::TimestampSecondArray::from_iter_values(rows.iter().map(|r| r.end_unix as i64));
    let limits: Vec<&QuotaLimits> = rows.iter().map(|r| &r.limits).collect();
    Ok(vec![
        strings(rows.iter().map(|r| &r.quota)),
        strings(rows.iter().map(|r| &r.key)),
        Arc::new(end_times),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.duration_seconds))),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.used.queries))),
        limit_column(&limits, "queries"),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.used.errors))),
        limit_column(&limits, "errors"),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.used.result_rows))),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.used.read_rows))),
        Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.used.execution_time))),
    ])
}

fn row_policies(shared: &Shared, _: &QueryContextExt) -> Result<Vec<ArrayRef>> {
    let mut policies = shared.access.row_policies();
    policies.sort_by_key(|(p, _)| p.full_name());
    Ok(vec![
        strings(policies.iter().map(|(p, _)| p.full_name())),
        strings(policies.iter().map(|(p, _)| &p.short_name)),
        strings(policies.iter().map(|(p, _)| &p.database)),
        strings(policies.iter().map(|(p, _)| &p.table)),
        strings(policies.iter().map(|(p, _)| &p.id)),
        strings(policies.iter().map(|(_, s)| s)),
        nullable_strings(policies.iter().map(|(p, _)| p.condition.clone())),
        u8s(policies.iter().map(|(p, _)| p.restrictive)),
        u8s(policies.iter().map(|(p, _)| p.to.all)),
        string_lists(policies.iter().map(|(p, _)| p.to.names.iter().cloned().collect())),
        string_lists(policies.iter().map(|(p, _)| p.to.except.iter().cloned().collect())),
    ])
}
