//! Privileges, the levels they are granted on, and a set of grants with partial revokes.
//!
//! A grant applies to its level and everything under it (`*.*` > `db.*` > `db.t`); a
//! revoke at a narrower level than a grant is kept as a *partial revoke*, so
//! `GRANT SELECT ON *.*; REVOKE SELECT ON secret.*` means "everything but `secret`".
//! A check looks for the most specific entry covering the object: that entry decides.

use std::fmt;

use granary_common::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

/// One grantable privilege. Groups (`ALL`, `CREATE`, `DROP`, `SOURCES`) expand to these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Privilege {
    Show,
    Select,
    Insert,
    Alter,
    CreateDatabase,
    CreateTable,
    CreateView,
    CreateDictionary,
    DropDatabase,
    DropTable,
    DropView,
    DropDictionary,
    Truncate,
    Optimize,
    DictGet,
    System,
    KillQuery,
    AccessManagement,
    File,
    Url,
    S3,
    /// Creating, changing, dropping and listing named collections.
    NamedCollectionAdmin,
    /// Using named collections in table functions.
    NamedCollection,
    /// `CREATE FUNCTION` (SQL user-defined functions).
    CreateFunction,
    DropFunction,
}

/// How deep a privilege can be granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Depth {
    Global,
    Database,
    Table,
}

impl Privilege {
    pub const ALL: [Privilege; 25] = [
        Privilege::Show,
        Privilege::Select,
        Privilege::Insert,
        Privilege::Alter,
        Privilege::CreateDatabase,
        Privilege::CreateTable,
        Privilege::CreateView,
        Privilege::CreateDictionary,
        Privilege::DropDatabase,
        Privilege::DropTable,
        Privilege::DropView,
        Privilege::DropDictionary,
        Privilege::Truncate,
        Privilege::Optimize,
        Privilege::DictGet,
        Privilege::System,
        Privilege::KillQuery,
        Privilege::AccessManagement,
        Privilege::File,
        Privilege::Url,
        Privilege::S3,
        Privilege::NamedCollectionAdmin,
        Privilege::NamedCollection,
        Privilege::CreateFunction,
        Privilege::DropFunction,
    ];

    /// The name as `SHOW GRANTS` and `system.grants` print it.
    pub fn name(self) -> &'static str {
        match self {
            Privilege::Show => "SHOW",
            Privilege::Select => "SELECT",
            Privilege::Insert => "INSERT",
            Privilege::Alter => "ALTER",
            Privilege::CreateDatabase => "CREATE DATABASE",
            Privilege::CreateTable => "CREATE TABLE",
            Privilege::CreateView => "CREATE VIEW",
            Privilege::CreateDictionary => "CREATE DICTIONARY",
            Privilege::DropDatabase => "DROP DATABASE",
            Privilege::DropTable => "DROP TABLE",
            Privilege::DropView => "DROP VIEW",
            Privilege::DropDictionary => "DROP DICTIONARY",
            Privilege::Truncate => "TRUNCATE",
            Privilege::Optimize => "OPTIMIZE",
            Privilege::DictGet => "dictGet",
            Privilege::System => "SYSTEM",
            Privilege::KillQuery => "KILL QUERY",
            Privilege::AccessManagement => "ACCESS MANAGEMENT",
            Privilege::File => "FILE",
            Privilege::Url => "URL",
            Privilege::S3 => "S3",
            Privilege::NamedCollectionAdmin => "NAMED COLLECTION ADMIN",
            Privilege::NamedCollection => "NAMED COLLECTION",
            Privilege::CreateFunction => "CREATE FUNCTION",
            Privilege::DropFunction => "DROP FUNCTION",
        }
    }

    fn depth(self) -> Depth {
        match self {
            Privilege::System
            | Privilege::KillQuery
            | Privilege::AccessManagement
            | Privilege::File
            | Privilege::Url
            | Privilege::S3
            | Privilege::NamedCollectionAdmin
            | Privilege::NamedCollection
            | Privilege::CreateFunction
            | Privilege::DropFunction => Depth::Global,
            Privilege::CreateDatabase | Privilege::DropDatabase => Depth::Database,
            _ => Depth::Table,
        }
    }

    /// Whether this privilege can be granted on `level`.
    pub fn applies_to(self, level: &Level) -> bool {
        let depth = match level {
            Level::Global => Depth::Global,
            Level::Database(_) => Depth::Database,
            Level::Table(..) => Depth::Table,
        };
        depth <= self.depth()
    }

    /// A privilege phrase of GRANT/REVOKE (`SELECT`, `CREATE TABLE`, `ALL PRIVILEGES`,
    /// `SOURCES`, ...), words upper-cased and joined by single spaces.
    pub fn parse_phrase(phrase: &str) -> Result<Vec<Privilege>> {
        use Privilege::*;
        let upper = phrase.to_ascii_uppercase();
        Ok(match upper.as_str() {
            "ALL" | "ALL PRIVILEGES" => Privilege::ALL.to_vec(),
            "SHOW" | "SHOW DATABASES" | "SHOW TABLES" | "SHOW COLUMNS" | "SHOW DICTIONARIES" => vec![Show],
            "SELECT" => vec![Select],
            "INSERT" => vec![Insert],
            "ALTER" => vec![Alter],
            "CREATE" => vec![CreateDatabase, CreateTable, CreateView, CreateDictionary],
            "CREATE DATABASE" => vec![CreateDatabase],
            "CREATE TABLE" | "CREATE TEMPORARY TABLE" => vec![CreateTable],
            "CREATE VIEW" => vec![CreateView],
            "CREATE DICTIONARY" => vec![CreateDictionary],
            "DROP" => vec![DropDatabase, DropTable, DropView, DropDictionary],
            "CREATE FUNCTION" => vec![CreateFunction],
            "DROP FUNCTION" => vec![DropFunction],
            "DROP DATABASE" => vec![DropDatabase],
            "DROP TABLE" => vec![DropTable],
            "DROP VIEW" => vec![DropView],
            "DROP DICTIONARY" => vec![DropDictionary],
            "TRUNCATE" => vec![Truncate],
            "OPTIMIZE" => vec![Optimize],
            "DICTGET" | "DICTHAS" | "DICTGETHIERARCHY" | "DICTISIN" => vec![DictGet],
            "SYSTEM" => vec![System],
            "KILL QUERY" => vec![KillQuery],
            "ACCESS MANAGEMENT" => vec![AccessManagement],
            "SOURCES" => vec![File, Url, S3],
            "FILE" => vec![File],
            "URL" => vec![Url],
            "S3" => vec![S3],
            // ClickHouse grants these per collection; Granary only on *.* (every collection).
            "NAMED COLLECTION ADMIN" | "NAMED COLLECTION CONTROL" | "CREATE NAMED COLLECTION" | "ALTER NAMED COLLECTION" | "DROP NAMED COLLECTION" | "SHOW NAMED COLLECTIONS" => {
                vec![NamedCollectionAdmin]
            }
            "NAMED COLLECTION" | "USE NAMED COLLECTION" => vec![NamedCollection],
            _ if upper.starts_with("ALTER ") => {
                return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Privilege {upper} is not supported: grant ALTER as a whole")));
            }
            _ => return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Unknown access type: {phrase}"))),
        })
    }
}

impl fmt::Display for Privilege {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a grant is on: `*.*`, `db.*` or `db.table`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Level {
    Global,
    Database(String),
    Table(String, String),
}

impl Level {
    /// Whether a grant on `self` applies to `other` (itself included).
    pub fn covers(&self, other: &Level) -> bool {
        match (self, other) {
            (Level::Global, _) => true,
            (Level::Database(a), Level::Database(b)) | (Level::Database(a), Level::Table(b, _)) => a == b,
            (Level::Table(a, x), Level::Table(b, y)) => a == b && x == y,
            _ => false,
        }
    }

    fn strictly_covers(&self, other: &Level) -> bool {
        self != other && self.covers(other)
    }

    /// `db.table`, `db.*`, `*.*` (and `db.t` from config files).
    pub fn parse(text: &str) -> Result<Level> {
        let (db, table) = text.trim().split_once('.').ok_or_else(|| Error::new(ErrorCode::BAD_ARGUMENTS, format!("Expected db.table, db.* or *.*, got '{text}'")))?;
        let unquote = |s: &str| s.trim().trim_matches('`').to_string();
        Ok(match (db.trim(), table.trim()) {
            ("*", "*") => Level::Global,
            ("*", _) => return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Expected db.table, db.* or *.*, got '{text}'"))),
            (db, "*") => Level::Database(unquote(db)),
            (db, table) => Level::Table(unquote(db), unquote(table)),
        })
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::Global => f.write_str("*.*"),
            Level::Database(db) => write!(f, "{}.*", quote_name(db)),
            Level::Table(db, table) => write!(f, "{}.{}", quote_name(db), quote_name(table)),
        }
    }
}

/// A name as ClickHouse prints it: bare when it is a plain identifier, back-quoted otherwise.
pub fn quote_name(name: &str) -> String {
    let plain = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') && !name.as_bytes()[0].is_ascii_digit();
    if plain {
        name.to_string()
    } else {
        format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
    }
}

/// One grant or partial revoke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RightEntry {
    pub privilege: Privilege,
    pub level: Level,
    #[serde(default)]
    pub partial_revoke: bool,
    #[serde(default)]
    pub grant_option: bool,
}

/// The privileges of a user or role.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AccessRights {
    entries: Vec<RightEntry>,
}

impl AccessRights {
    /// Everything, with grant option (the default user).
    pub fn full() -> Self {
        Self::full_ref().clone()
    }

    /// The same, built once: every login compares its rights against it.
    pub fn full_ref() -> &'static AccessRights {
        static FULL: std::sync::OnceLock<AccessRights> = std::sync::OnceLock::new();
        FULL.get_or_init(|| {
            let mut rights = AccessRights::default();
            for p in Privilege::ALL {
                rights.grant(p, Level::Global, true);
            }
            rights
        })
    }

    pub fn entries(&self) -> &[RightEntry] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry deciding `privilege` on `level`: the most specific one covering it.
    fn deciding(&self, privilege: Privilege, level: &Level) -> Option<&RightEntry> {
        self.entries
            .iter()
            .filter(|e| e.privilege == privilege && e.level.covers(level))
            .max_by_key(|e| match e.level {
                Level::Global => 0,
                Level::Database(_) => 1,
                Level::Table(..) => 2,
            })
    }

    pub fn allows(&self, privilege: Privilege, level: &Level) -> bool {
        self.deciding(privilege, level).is_some_and(|e| !e.partial_revoke)
    }

    pub fn allows_with_grant_option(&self, privilege: Privilege, level: &Level) -> bool {
        self.deciding(privilege, level).is_some_and(|e| !e.partial_revoke && e.grant_option)
    }

    /// Whether `privilege` is granted on `level` or anything under it (a database
    /// may be shown to someone who can read one of its tables).
    pub fn allows_anything_under(&self, privilege: Privilege, level: &Level) -> bool {
        self.allows(privilege, level) || self.entries.iter().any(|e| e.privilege == privilege && !e.partial_revoke && level.covers(&e.level))
    }

    pub fn grant(&mut self, privilege: Privilege, level: Level, grant_option: bool) {
        self.entries.retain(|e| !(e.privilege == privilege && level.strictly_covers(&e.level)));
        match self.entries.iter_mut().find(|e| e.privilege == privilege && e.level == level) {
            Some(entry) => {
                entry.grant_option = grant_option || (!entry.partial_revoke && entry.grant_option);
                entry.partial_revoke = false;
            }
            None => self.entries.push(RightEntry { privilege, level, partial_revoke: false, grant_option }),
        }
    }

    /// `REVOKE [GRANT OPTION FOR] privilege ON level`.
    pub fn revoke(&mut self, privilege: Privilege, level: Level, grant_option_only: bool) {
        if grant_option_only {
            for entry in self.entries.iter_mut().filter(|e| e.privilege == privilege && level.covers(&e.level)) {
                entry.grant_option = false;
            }
            return;
        }
        self.entries.retain(|e| !(e.privilege == privilege && level.covers(&e.level)));
        if self.allows(privilege, &level) {
            self.entries.push(RightEntry { privilege, level, partial_revoke: true, grant_option: false });
        }
    }

    /// Grants and partial revokes grouped as `SHOW GRANTS` prints them: one line per
    /// level, partial-revoke flag and grant option, privileges in a fixed order.
    pub fn grouped(&self) -> Vec<(Vec<Privilege>, Level, bool, bool)> {
        let mut groups: Vec<(Vec<Privilege>, Level, bool, bool)> = Vec::new();
        let mut entries = self.entries.clone();
        entries.sort_by(|a, b| (&a.level, a.partial_revoke, a.privilege).cmp(&(&b.level, b.partial_revoke, b.privilege)));
        for e in entries {
            match groups.iter_mut().find(|(_, level, revoke, option)| *level == e.level && *revoke == e.partial_revoke && *option == e.grant_option) {
                Some(group) => group.0.push(e.privilege),
                None => groups.push((vec![e.privilege], e.level, e.partial_revoke, e.grant_option)),
            }
        }
        groups
    }
}

/// `SELECT, INSERT` or `ALL` when every privilege that applies to the level is there.
pub fn privilege_list(privileges: &[Privilege], level: &Level) -> String {
    let applicable = Privilege::ALL.iter().filter(|p| p.applies_to(level)).count();
    if privileges.len() == applicable {
        return "ALL".to_string();
    }
    privileges.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(db: &str, t: &str) -> Level {
        Level::Table(db.into(), t.into())
    }

    #[test]
    fn grants_cover_narrower_levels_and_partial_revokes_cut_holes() {
        let mut r = AccessRights::default();
        r.grant(Privilege::Select, Level::Global, false);
        r.revoke(Privilege::Select, Level::Database("secret".into()), false);
        assert!(r.allows(Privilege::Select, &table("db", "t")));
        assert!(!r.allows(Privilege::Select, &table("secret", "t")));
        assert!(!r.allows(Privilege::Insert, &table("db", "t")));
        r.grant(Privilege::Select, table("secret", "open"), false);
        assert!(r.allows(Privilege::Select, &table("secret", "open")));
        assert!(!r.allows(Privilege::Select, &table("secret", "closed")));
        // Revoking at the top removes everything under it.
        r.revoke(Privilege::Select, Level::Global, false);
        assert!(r.is_empty());
        // Revoking what was never granted leaves nothing behind.
        r.revoke(Privilege::Insert, table("a", "b"), false);
        assert!(r.is_empty());
    }

    #[test]
    fn grant_option_and_grouping() {
        let mut r = AccessRights::default();
        r.grant(Privilege::Select, Level::Database("db".into()), true);
        r.grant(Privilege::Insert, Level::Database("db".into()), true);
        assert!(r.allows_with_grant_option(Privilege::Select, &table("db", "x")));
        r.revoke(Privilege::Select, Level::Database("db".into()), true);
        assert!(r.allows(Privilege::Select, &table("db", "x")));
        assert!(!r.allows_with_grant_option(Privilege::Select, &table("db", "x")));
        let groups = r.grouped();
        assert_eq!(groups.len(), 2);
        assert_eq!(privilege_list(&AccessRights::full().grouped()[0].0, &Level::Global), "ALL");
    }

    #[test]
    fn levels_parse_print_and_check_depth() {
        assert_eq!(Level::parse("*.*").unwrap(), Level::Global);
        assert_eq!(Level::parse("db.*").unwrap().to_string(), "db.*");
        assert_eq!(Level::parse("db.`my table`").unwrap().to_string(), "db.`my table`");
        assert!(Level::parse("nodot").is_err());
        assert!(!Privilege::File.applies_to(&Level::Database("db".into())));
        assert!(Privilege::CreateDatabase.applies_to(&Level::Database("db".into())));
        assert!(!Privilege::CreateDatabase.applies_to(&table("db", "t")));
        assert_eq!(Privilege::parse_phrase("create").unwrap().len(), 4);
        assert!(Privilege::parse_phrase("ALTER UPDATE").is_err());
        assert!(Privilege::parse_phrase("FLY").is_err());
    }
}
