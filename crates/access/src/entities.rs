//! Users, roles, settings profiles and quotas, and how a user proves who they are and
//! where they may connect from.

use std::collections::BTreeSet;
use std::net::IpAddr;

use granary_common::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::rights::AccessRights;

/// How a user authenticates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Authentication {
    NoPassword,
    Plaintext(String),
    /// SHA-256 of password + salt, hex (`IDENTIFIED WITH sha256_password BY 'x'` salts;
    /// `sha256_hash BY 'hex'` and `password_sha256_hex` in config have an empty salt).
    Sha256 { hash_hex: String, salt: String },
}

impl Authentication {
    /// `sha256_password BY 'x'`: a fresh random salt, so equal passwords differ at rest.
    pub fn sha256_of(password: &str) -> Authentication {
        let salt = uuid::Uuid::new_v4().simple().to_string();
        Authentication::Sha256 { hash_hex: sha256_hex(&format!("{password}{salt}")), salt }
    }

    pub fn sha256_hash(hash_hex: &str) -> Result<Authentication> {
        let valid = hash_hex.len() == 64 && hash_hex.bytes().all(|b| b.is_ascii_hexdigit());
        if !valid {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "The SHA-256 password hash must be 64 hexadecimal digits"));
        }
        Ok(Authentication::Sha256 { hash_hex: hash_hex.to_ascii_lowercase(), salt: String::new() })
    }

    pub fn verify(&self, password: &str) -> bool {
        match self {
            Authentication::NoPassword => password.is_empty(),
            Authentication::Plaintext(expected) => constant_time_eq(expected.as_bytes(), password.as_bytes()),
            Authentication::Sha256 { hash_hex, salt } => constant_time_eq(hash_hex.as_bytes(), sha256_hex(&format!("{password}{salt}")).as_bytes()),
        }
    }

    /// `system.users.auth_type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Authentication::NoPassword => "no_password",
            Authentication::Plaintext(_) => "plaintext_password",
            Authentication::Sha256 { .. } => "sha256_password",
        }
    }
}

pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares without an early exit, so timing does not tell how much of a guess was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Where a user may connect from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HostPattern {
    Any,
    /// Loopback addresses.
    Local,
    /// An address or a network in CIDR notation.
    Ip { address: IpAddr, prefix: u8 },
}

impl HostPattern {
    /// `127.0.0.1`, `10.0.0.0/8`, `::1`, `::/0`, `any`, `local`.
    pub fn parse(text: &str) -> Result<HostPattern> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("any") {
            return Ok(HostPattern::Any);
        }
        if text.eq_ignore_ascii_case("local") || text.eq_ignore_ascii_case("localhost") {
            return Ok(HostPattern::Local);
        }
        let bad = || Error::new(ErrorCode::BAD_ARGUMENTS, format!("Invalid network '{text}': expected an IP address or a network like 10.0.0.0/8"));
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix.parse::<u8>().map_err(|_| bad())?)),
            None => (text, None),
        };
        let address: IpAddr = address.parse().map_err(|_| bad())?;
        let max = if address.is_ipv4() { 32 } else { 128 };
        let prefix = prefix.unwrap_or(max);
        if prefix > max {
            return Err(bad());
        }
        Ok(HostPattern::Ip { address: canonical(address), prefix })
    }

    pub fn matches(&self, peer: IpAddr) -> bool {
        let peer = canonical(peer);
        match self {
            HostPattern::Any => true,
            HostPattern::Local => peer.is_loopback(),
            HostPattern::Ip { address, prefix } => match (address, peer) {
                (IpAddr::V4(net), IpAddr::V4(ip)) => prefix_eq(&net.octets(), &ip.octets(), *prefix),
                (IpAddr::V6(net), IpAddr::V6(ip)) => prefix_eq(&net.octets(), &ip.octets(), *prefix),
                _ => false,
            },
        }
    }

    /// As `SHOW CREATE USER` prints it after `HOST`.
    pub fn to_sql(&self) -> String {
        match self {
            HostPattern::Any => "ANY".into(),
            HostPattern::Local => "LOCAL".into(),
            HostPattern::Ip { address, prefix } => {
                let max = if address.is_ipv4() { 32 } else { 128 };
                if *prefix == max {
                    format!("IP '{address}'")
                } else {
                    format!("IP '{address}/{prefix}'")
                }
            }
        }
    }
}

/// IPv4-mapped IPv6 addresses compare as IPv4.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(address),
        v4 => v4,
    }
}

fn prefix_eq(a: &[u8], b: &[u8], prefix: u8) -> bool {
    let full = usize::from(prefix / 8);
    let rest = prefix % 8;
    if a[..full] != b[..full] {
        return false;
    }
    if rest == 0 {
        return true;
    }
    let mask = 0xffu8 << (8 - rest);
    (a[full] & mask) == (b[full] & mask)
}

/// A setting of a profile, user or role, optionally fixed (`READONLY` / `CONST`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingValue {
    pub name: String,
    pub value: String,
    #[serde(default)]
    pub fixed: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    pub name: String,
    pub auth: Authentication,
    /// `None`: anywhere when the user has a password, loopback only when not.
    pub hosts: Option<Vec<HostPattern>>,
    #[serde(default)]
    pub rights: AccessRights,
    #[serde(default)]
    pub roles: BTreeSet<String>,
    /// Roles active at login; `None` means all granted roles.
    #[serde(default)]
    pub default_roles: Option<BTreeSet<String>>,
    #[serde(default)]
    pub settings: Vec<SettingValue>,
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub default_database: Option<String>,
}

impl User {
    pub fn new(name: &str, auth: Authentication) -> Self {
        User {
            name: name.to_string(),
            auth,
            hosts: None,
            rights: AccessRights::default(),
            roles: BTreeSet::new(),
            default_roles: None,
            settings: Vec::new(),
            profile: None,
            default_database: None,
        }
    }

    pub fn allowed_from(&self, peer: IpAddr) -> bool {
        match &self.hosts {
            Some(hosts) => hosts.iter().any(|h| h.matches(peer)),
            None if self.auth == Authentication::NoPassword => HostPattern::Local.matches(peer),
            None => true,
        }
    }

    pub fn active_roles(&self) -> impl Iterator<Item = &String> {
        self.roles.iter().filter(|r| self.default_roles.as_ref().is_none_or(|d| d.contains(*r)))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    pub name: String,
    #[serde(default)]
    pub rights: AccessRights,
    #[serde(default)]
    pub settings: Vec<SettingValue>,
    #[serde(default)]
    pub profile: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsProfile {
    pub name: String,
    #[serde(default)]
    pub settings: Vec<SettingValue>,
}

/// Limits of one quota interval (0 = no limit).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct QuotaLimits {
    #[serde(alias = "duration")]
    pub duration_seconds: u64,
    pub queries: u64,
    pub query_selects: u64,
    pub query_inserts: u64,
    pub errors: u64,
    pub result_rows: u64,
    pub read_rows: u64,
    /// Seconds of query execution.
    pub execution_time: u64,
}

impl QuotaLimits {
    /// The resource names of `MAX name = n`, in `SHOW CREATE QUOTA` order.
    pub const RESOURCES: [&'static str; 7] = ["queries", "query_selects", "query_inserts", "errors", "result_rows", "read_rows", "execution_time"];

    pub fn set(&mut self, resource: &str, value: u64) -> Result<()> {
        let slot = match resource.to_ascii_lowercase().as_str() {
            "queries" => &mut self.queries,
            "query_selects" => &mut self.query_selects,
            "query_inserts" => &mut self.query_inserts,
            "errors" => &mut self.errors,
            "result_rows" => &mut self.result_rows,
            "read_rows" => &mut self.read_rows,
            "execution_time" => &mut self.execution_time,
            other => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Unknown quota resource: {other}"))),
        };
        *slot = value;
        Ok(())
    }

    pub fn get(&self, resource: &str) -> u64 {
        match resource {
            "queries" => self.queries,
            "query_selects" => self.query_selects,
            "query_inserts" => self.query_inserts,
            "errors" => self.errors,
            "result_rows" => self.result_rows,
            "read_rows" => self.read_rows,
            "execution_time" => self.execution_time,
            _ => 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quota {
    pub name: String,
    pub intervals: Vec<QuotaLimits>,
    /// Users and roles it applies to.
    #[serde(default)]
    pub applies_to: BTreeSet<String>,
    /// `KEYED BY user_name` (the default) counts per user; `NOT KEYED` shares one count.
    #[serde(default = "keyed_default")]
    pub keyed_by_user: bool,
}

fn keyed_default() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_and_hashes_are_salted() {
        let a = Authentication::sha256_of("secret");
        let b = Authentication::sha256_of("secret");
        assert_ne!(a, b);
        assert!(a.verify("secret") && !a.verify("Secret") && !a.verify(""));
        let config = Authentication::sha256_hash(&sha256_hex("pw")).unwrap();
        assert!(config.verify("pw") && !config.verify("pw "));
        assert!(Authentication::sha256_hash("xyz").is_err());
        assert!(Authentication::NoPassword.verify("") && !Authentication::NoPassword.verify("x"));
    }

    #[test]
    fn networks_match() {
        let net = HostPattern::parse("10.1.0.0/16").unwrap();
        assert!(net.matches("10.1.200.3".parse().unwrap()));
        assert!(!net.matches("10.2.0.1".parse().unwrap()));
        assert!(net.matches("::ffff:10.1.0.9".parse().unwrap()));
        assert!(HostPattern::parse("::1").unwrap().matches("::1".parse().unwrap()));
        assert!(HostPattern::parse("10.0.0.0/12").unwrap().matches("10.15.255.255".parse().unwrap()));
        assert!(!HostPattern::parse("10.0.0.0/12").unwrap().matches("10.16.0.0".parse().unwrap()));
        assert!(HostPattern::parse("1.2.3.4/33").is_err());
        assert!(HostPattern::Local.matches("127.0.0.1".parse().unwrap()));
        let user = User::new("u", Authentication::NoPassword);
        assert!(user.allowed_from("127.0.0.1".parse().unwrap()));
        assert!(!user.allowed_from("192.168.1.1".parse().unwrap()));
    }
}

/// Who a row policy applies to: `TO ALL`, `TO names`, `TO ALL EXCEPT names`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Grantees {
    pub all: bool,
    pub names: BTreeSet<String>,
    pub except: BTreeSet<String>,
}

impl Grantees {
    /// Whether a user holding these names (the user's and its active roles') is covered.
    pub fn covers<'a>(&self, mut names: impl Iterator<Item = &'a String> + Clone) -> bool {
        if names.clone().any(|n| self.except.contains(n)) {
            return false;
        }
        self.all || names.any(|n| self.names.contains(n))
    }

    /// `ALL`, `a, b`, `ALL EXCEPT a`, or `NONE`, as ClickHouse writes them.
    pub fn to_sql(&self) -> String {
        let quoted = |set: &BTreeSet<String>| set.iter().map(|n| crate::rights::quote_name(n)).collect::<Vec<_>>().join(", ");
        match (self.all, self.except.is_empty()) {
            (true, true) => "ALL".into(),
            (true, false) => format!("ALL EXCEPT {}", quoted(&self.except)),
            (false, _) if self.names.is_empty() => "NONE".into(),
            (false, _) => quoted(&self.names),
        }
    }
}

/// `CREATE ROW POLICY name ON db.table [AS PERMISSIVE|RESTRICTIVE] FOR SELECT USING
/// condition TO grantees`: the rows of `db.table` a covered user reads are those the
/// condition holds for (permissive policies are OR-ed, restrictive ones AND-ed on top).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowPolicy {
    pub short_name: String,
    pub database: String,
    pub table: String,
    /// The SELECT filter as written; `None` for a policy without USING.
    pub condition: Option<String>,
    #[serde(default)]
    pub restrictive: bool,
    #[serde(default)]
    pub to: Grantees,
    /// Generated at creation, shown by `system.row_policies.id`.
    #[serde(default)]
    pub id: String,
}

impl RowPolicy {
    /// ClickHouse's full name, `short_name ON db.table`, which keys the policy.
    pub fn full_name(&self) -> String {
        row_policy_name(&self.short_name, &self.database, &self.table)
    }
}

pub fn row_policy_name(short_name: &str, database: &str, table: &str) -> String {
    format!("{short_name} ON {database}.{table}")
}
