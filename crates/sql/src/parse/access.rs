//! Access-management statements: CREATE/ALTER/DROP USER, ROLE, SETTINGS PROFILE and
//! QUOTA, GRANT and REVOKE (privileges and roles), SHOW GRANTS/USERS/ROLES/...
//! They become [`AccessCommand`]s; what they mean is the access crate's business.

use std::collections::BTreeSet;

use datafusion::sql::sqlparser::tokenizer::Token;
use granary_access::{AccessCommand, Authentication, GrantTarget, Grantees, HostPattern, QuotaLimits, RowPolicy, SettingValue, UserChanges};
use granary_common::{Error, ErrorCode, Result};

use super::{Cursor, Statement};

fn unsupported(what: &str) -> Error {
    Error::new(ErrorCode::NOT_IMPLEMENTED, format!("{what} is not supported"))
}

impl Cursor<'_> {
    /// A user, role, profile or quota name: an identifier or a string.
    fn entity_name(&mut self) -> Result<String> {
        if let Some(Token::SingleQuotedString(s)) = self.peek().map(|l| &l.token) {
            let name = s.clone();
            self.pos += 1;
            return Ok(name);
        }
        self.ident()
    }

    fn entity_names(&mut self) -> Result<Vec<String>> {
        let mut names = vec![self.entity_name()?];
        while self.eat_token(&Token::Comma) {
            names.push(self.entity_name()?);
        }
        Ok(names)
    }

    /// After `CREATE [OR REPLACE]`: `USER`, `ROLE`, `[SETTINGS] PROFILE`, `QUOTA`.
    pub(super) fn create_access(&mut self, or_replace: bool) -> Result<Option<Statement>> {
        let command = if self.eat("USER") {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            let names = self.entity_names()?;
            self.skip_on_cluster()?;
            let changes = self.user_options()?;
            AccessCommand::CreateUser { names, if_not_exists, or_replace, changes }
        } else if self.eat("ROLE") {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            let names = self.entity_names()?;
            self.skip_on_cluster()?;
            let (settings, profile) = if self.eat("SETTINGS") { self.access_settings()? } else { (Vec::new(), None) };
            AccessCommand::CreateRole { names, if_not_exists, or_replace, settings, profile }
        } else if self.eat_seq(&["SETTINGS", "PROFILE"]) || self.eat("PROFILE") {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            let name = self.entity_name()?;
            self.skip_on_cluster()?;
            let (settings, inherit) = if self.eat("SETTINGS") { self.access_settings()? } else { (Vec::new(), None) };
            if inherit.is_some() {
                return Err(unsupported("Profile inheritance (SETTINGS PROFILE 'x' in a profile)"));
            }
            let to = if self.eat("TO") { self.entity_names()? } else { Vec::new() };
            AccessCommand::CreateProfile { name, if_not_exists, or_replace, settings, to }
        } else if self.eat("QUOTA") {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            let name = self.entity_name()?;
            self.skip_on_cluster()?;
            self.quota(name, if_not_exists, or_replace)?
        } else if self.eat_seq(&["ROW", "POLICY"]) || self.eat("POLICY") {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            self.row_policy(if_not_exists, or_replace)?
        } else {
            return Ok(None);
        };
        self.expect_end()?;
        Ok(Some(Statement::Access(command)))
    }

    /// `name [ON CLUSTER c] ON [db.]table`: the short name, database (empty: the current
    /// one, resolved when the statement runs) and table of a row policy.
    fn row_policy_target(&mut self) -> Result<(String, String, String)> {
        let short_name = self.entity_name()?;
        self.skip_on_cluster()?;
        self.expect("ON")?;
        let table = self.table_name()?;
        Ok((short_name, table.database.unwrap_or_default(), table.table))
    }

    /// After `CREATE ROW POLICY [IF NOT EXISTS]`: `name ON [db.]table [AS PERMISSIVE |
    /// RESTRICTIVE] [FOR SELECT] [USING condition] [TO grantees]`.
    fn row_policy(&mut self, if_not_exists: bool, or_replace: bool) -> Result<AccessCommand> {
        let (short_name, database, table) = self.row_policy_target()?;
        let mut policy = RowPolicy { short_name, database, table, condition: None, restrictive: false, to: Grantees::default(), id: String::new() };
        loop {
            if self.eat("AS") {
                if self.eat("RESTRICTIVE") {
                    policy.restrictive = true;
                } else if self.eat("PERMISSIVE") {
                    policy.restrictive = false;
                } else {
                    return Err(self.syntax_error("PERMISSIVE or RESTRICTIVE"));
                }
            } else if self.eat("FOR") {
                if !self.eat("SELECT") {
                    return Err(unsupported("Row policies for statements other than SELECT"));
                }
            } else if self.eat("USING") {
                let condition = self.raw_until(|l| l.is_keyword("TO")).ok_or_else(|| self.syntax_error("a condition after USING"))?;
                policy.condition = Some(condition);
            } else if self.eat("TO") {
                policy.to = self.grantees()?;
            } else {
                break;
            }
        }
        Ok(AccessCommand::CreateRowPolicy { policy, if_not_exists, or_replace })
    }

    /// `ALL [EXCEPT names]`, `NONE` or `names`.
    fn grantees(&mut self) -> Result<Grantees> {
        let mut grantees = Grantees::default();
        if self.eat("ALL") {
            grantees.all = true;
            if self.eat("EXCEPT") {
                grantees.except = self.entity_names()?.into_iter().collect();
            }
        } else if !self.eat("NONE") {
            grantees.names = self.entity_names()?.into_iter().collect();
        }
        Ok(grantees)
    }

    /// After `SHOW CREATE`: `[ROW] POLICY name ON [db.]table`.
    fn show_create_row_policy(&mut self) -> Result<Option<AccessCommand>> {
        if !(self.eat_seq(&["ROW", "POLICY"]) || self.eat("POLICY")) {
            return Ok(None);
        }
        let (short_name, database, table) = self.row_policy_target()?;
        Ok(Some(AccessCommand::ShowCreateRowPolicy { short_name, database, table }))
    }

    /// After `SHOW`: `[ROW] POLICIES [ON [db.]table]`.
    fn show_row_policies(&mut self) -> Result<Option<AccessCommand>> {
        if !(self.eat_seq(&["ROW", "POLICIES"]) || self.eat("POLICIES")) {
            return Ok(None);
        }
        let on = if self.eat("ON") {
            let table = self.table_name()?;
            Some((table.database.unwrap_or_default(), table.table))
        } else {
            None
        };
        Ok(Some(AccessCommand::ShowRowPolicies { on }))
    }

    /// `ALTER USER [IF EXISTS] names [RENAME TO x] options`.
    pub(super) fn alter_user(&mut self) -> Result<Statement> {
        let if_exists = self.eat_seq(&["IF", "EXISTS"]);
        let names = self.entity_names()?;
        self.skip_on_cluster()?;
        let rename_to = if self.eat_seq(&["RENAME", "TO"]) { Some(self.entity_name()?) } else { None };
        let changes = self.user_options()?;
        self.expect_end()?;
        Ok(Statement::Access(AccessCommand::AlterUser { names, if_exists, rename_to, changes }))
    }

    /// After `DROP`: `USER`, `ROLE`, `[SETTINGS] PROFILE`, `QUOTA`.
    pub(super) fn drop_access(&mut self) -> Result<Option<Statement>> {
        enum Kind {
            User,
            Role,
            Profile,
            Quota,
        }
        let kind = if self.eat("USER") {
            Kind::User
        } else if self.eat("ROLE") {
            Kind::Role
        } else if self.eat_seq(&["SETTINGS", "PROFILE"]) || self.eat("PROFILE") {
            Kind::Profile
        } else if self.eat("QUOTA") {
            Kind::Quota
        } else if self.eat_seq(&["ROW", "POLICY"]) || self.eat("POLICY") {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            let (short_name, database, table) = self.row_policy_target()?;
            self.expect_end()?;
            return Ok(Some(Statement::Access(AccessCommand::DropRowPolicy { short_name, database, table, if_exists })));
        } else {
            return Ok(None);
        };
        let if_exists = self.eat_seq(&["IF", "EXISTS"]);
        let names = self.entity_names()?;
        self.skip_on_cluster()?;
        self.expect_end()?;
        Ok(Some(Statement::Access(match kind {
            Kind::User => AccessCommand::DropUser { names, if_exists },
            Kind::Role => AccessCommand::DropRole { names, if_exists },
            Kind::Profile => AccessCommand::DropProfile { names, if_exists },
            Kind::Quota => AccessCommand::DropQuota { names, if_exists },
        })))
    }

    /// `IDENTIFIED ...`, `HOST ...`, `DEFAULT ROLE ...`, `DEFAULT DATABASE ...`,
    /// `SETTINGS ...` in any order.
    fn user_options(&mut self) -> Result<UserChanges> {
        let mut changes = UserChanges::default();
        loop {
            if self.eat_seq(&["NOT", "IDENTIFIED"]) {
                changes.auth = Some(Authentication::NoPassword);
            } else if self.eat("IDENTIFIED") {
                changes.auth = Some(self.authentication()?);
            } else if self.eat("HOST") {
                changes.hosts = Some(self.hosts()?);
            } else if self.eat_seq(&["DEFAULT", "ROLE"]) {
                changes.default_roles = Some(if self.eat("ALL") {
                    None
                } else if self.eat("NONE") {
                    Some(BTreeSet::new())
                } else {
                    Some(self.entity_names()?.into_iter().collect())
                });
            } else if self.eat_seq(&["DEFAULT", "DATABASE"]) {
                changes.default_database = Some(if self.eat("NONE") { None } else { Some(self.ident()?) });
            } else if self.eat("SETTINGS") {
                let (settings, profile) = self.access_settings()?;
                changes.settings = Some(settings);
                changes.profile = Some(profile);
            } else if self.peek_is("VALID") || self.peek_is("GRANTEES") || self.peek_is("IN") {
                return Err(unsupported(&format!("{} in CREATE/ALTER USER", self.peek().and_then(|l| l.keyword_text()).unwrap_or_default())));
            } else {
                return Ok(changes);
            }
        }
    }

    /// After `IDENTIFIED`: `[WITH method] [BY 'secret']`.
    fn authentication(&mut self) -> Result<Authentication> {
        let method = if self.eat("WITH") { self.ident()?.to_ascii_lowercase() } else { "sha256_password".to_string() };
        if method == "no_password" {
            return Ok(Authentication::NoPassword);
        }
        self.expect("BY")?;
        let secret = self.string_literal()?;
        match method.as_str() {
            "plaintext_password" => Ok(Authentication::Plaintext(secret)),
            "sha256_password" => Ok(Authentication::sha256_of(&secret)),
            "sha256_hash" => {
                if self.peek_is("SALT") {
                    return Err(unsupported("SALT"));
                }
                Authentication::sha256_hash(&secret)
            }
            other => Err(unsupported(&format!("Authentication method {other}"))),
        }
    }

    /// After `HOST`: `LOCAL | ANY | NONE | IP 'addr'` separated by commas.
    fn hosts(&mut self) -> Result<Vec<HostPattern>> {
        let mut hosts = Vec::new();
        loop {
            if self.eat("ANY") {
                hosts.push(HostPattern::Any);
            } else if self.eat("LOCAL") {
                hosts.push(HostPattern::Local);
            } else if self.eat("NONE") {
            } else if self.eat("IP") {
                hosts.push(HostPattern::parse(&self.string_literal()?)?);
            } else if self.peek_is("NAME") || self.peek_is("REGEXP") || self.peek_is("LIKE") {
                return Err(unsupported("HOST NAME/REGEXP/LIKE (use HOST IP)"));
            } else {
                return Err(self.syntax_error("LOCAL, ANY, NONE or IP"));
            }
            if !self.eat_token(&Token::Comma) {
                return Ok(hosts);
            }
        }
    }

    /// After `SETTINGS` of a user, role or profile: `name = value [READONLY|CONST|
    /// WRITABLE] [MIN x] [MAX y]` and `PROFILE 'name'`, separated by commas.
    fn access_settings(&mut self) -> Result<(Vec<SettingValue>, Option<String>)> {
        let mut settings = Vec::new();
        let mut profile = None;
        loop {
            if self.eat("PROFILE") || self.eat("INHERIT") {
                profile = Some(self.entity_name()?);
            } else {
                let name = self.ident()?;
                self.eat_token(&Token::Eq);
                let value = self.literal_text()?;
                let mut fixed = false;
                loop {
                    if self.eat("READONLY") || self.eat("CONST") {
                        fixed = true;
                    } else if self.eat("WRITABLE") || self.eat("CHANGEABLE_IN_READONLY") {
                        fixed = false;
                    } else if self.peek_is("MIN") || self.peek_is("MAX") {
                        return Err(unsupported("MIN/MAX setting constraints"));
                    } else {
                        break;
                    }
                }
                settings.push(SettingValue { name, value, fixed });
            }
            if !self.eat_token(&Token::Comma) {
                return Ok((settings, profile));
            }
        }
    }

    /// `CREATE QUOTA name [KEYED BY user_name | NOT KEYED] [FOR [RANDOMIZED] INTERVAL n
    /// unit {MAX resource = n, ... | NO LIMITS | TRACKING ONLY}, ...] [TO names]`.
    fn quota(&mut self, name: String, if_not_exists: bool, or_replace: bool) -> Result<AccessCommand> {
        let mut keyed_by_user = true;
        let mut intervals = Vec::new();
        let mut to = Vec::new();
        loop {
            if self.eat_seq(&["NOT", "KEYED"]) {
                keyed_by_user = false;
            } else if self.eat("KEYED") {
                self.expect("BY")?;
                let key = self.entity_name()?.to_ascii_lowercase();
                if key != "user_name" {
                    return Err(unsupported(&format!("Quota key {key} (only user_name)")));
                }
            } else if self.eat("FOR") {
                self.eat("RANDOMIZED");
                self.expect("INTERVAL")?;
                let count = self.literal_text()?.parse::<u64>().map_err(|_| self.syntax_error("interval length"))?;
                let unit = self.ident()?.to_ascii_uppercase();
                let seconds = match unit.trim_end_matches('S') {
                    "SECOND" => 1,
                    "MINUTE" => 60,
                    "HOUR" => 3600,
                    "DAY" => 86_400,
                    "WEEK" => 604_800,
                    "MONTH" => 2_629_746,
                    "QUARTER" => 7_889_238,
                    "YEAR" => 31_556_952,
                    _ => return Err(self.syntax_error("SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR")),
                };
                let mut limits = QuotaLimits { duration_seconds: count * seconds, ..Default::default() };
                if self.eat("MAX") {
                    loop {
                        let resource = self.ident()?;
                        self.eat_token(&Token::Eq);
                        let value = self.literal_text()?.parse::<f64>().map_err(|_| self.syntax_error("a number"))?;
                        limits.set(&resource, value.ceil() as u64)?;
                        // A comma continues the list unless the next interval starts.
                        let next_is_resource = self.peek_token(&Token::Comma) && !self.lx.get(self.pos + 1).is_some_and(|l| l.is_keyword("FOR"));
                        if !next_is_resource {
                            break;
                        }
                        self.pos += 1;
                    }
                } else if !(self.eat_seq(&["NO", "LIMITS"]) || self.eat_seq(&["TRACKING", "ONLY"])) {
                    return Err(self.syntax_error("MAX, NO LIMITS or TRACKING ONLY"));
                }
                intervals.push(limits);
                self.eat_token(&Token::Comma);
            } else if self.eat("TO") {
                to = self.entity_names()?;
            } else {
                break;
            }
        }
        Ok(AccessCommand::CreateQuota { name, if_not_exists, or_replace, intervals, to, keyed_by_user })
    }

    /// `GRANT privileges ON target TO names [WITH GRANT OPTION]` or `GRANT roles TO names`.
    pub(super) fn grant(&mut self) -> Result<Statement> {
        self.pos += 1;
        self.skip_on_cluster()?;
        let phrases = self.privilege_phrases()?;
        let command = if self.eat("ON") {
            let target = self.grant_target()?;
            self.expect("TO")?;
            let grantees = self.entity_names()?;
            let with_grant_option = self.eat_seq(&["WITH", "GRANT", "OPTION"]);
            AccessCommand::Grant { privileges: phrases, target, grantees, with_grant_option }
        } else {
            self.expect("TO")?;
            let grantees = self.entity_names()?;
            let _ = self.eat_seq(&["WITH", "ADMIN", "OPTION"]);
            AccessCommand::GrantRoles { roles: phrases, grantees }
        };
        if self.eat_seq(&["WITH", "REPLACE", "OPTION"]) {
            return Err(unsupported("WITH REPLACE OPTION"));
        }
        self.expect_end()?;
        Ok(Statement::Access(command))
    }

    /// `REVOKE [GRANT OPTION FOR] privileges ON target FROM names` or `REVOKE roles FROM names`.
    pub(super) fn revoke(&mut self) -> Result<Statement> {
        self.pos += 1;
        self.skip_on_cluster()?;
        let grant_option_only = self.eat_seq(&["GRANT", "OPTION", "FOR"]);
        let _ = self.eat_seq(&["ADMIN", "OPTION", "FOR"]);
        let phrases = self.privilege_phrases()?;
        let command = if self.eat("ON") {
            let target = self.grant_target()?;
            self.expect("FROM")?;
            AccessCommand::Revoke { privileges: phrases, target, grantees: self.entity_names()?, grant_option_only }
        } else {
            self.expect("FROM")?;
            AccessCommand::RevokeRoles { roles: phrases, grantees: self.entity_names()? }
        };
        self.expect_end()?;
        Ok(Statement::Access(command))
    }

    /// Comma-separated phrases of words up to `ON`, `TO` or `FROM` (privileges or roles).
    fn privilege_phrases(&mut self) -> Result<Vec<String>> {
        let mut phrases = Vec::new();
        let mut words: Vec<String> = Vec::new();
        loop {
            let Some(lexeme) = self.peek() else { break };
            if words.is_empty() || !(lexeme.is_keyword("ON") || lexeme.is_keyword("TO") || lexeme.is_keyword("FROM")) {
                match &lexeme.token {
                    Token::Word(w) if !(lexeme.is_keyword("ON") || lexeme.is_keyword("TO") || lexeme.is_keyword("FROM")) => {
                        words.push(w.value.clone());
                        self.pos += 1;
                        continue;
                    }
                    Token::SingleQuotedString(s) => {
                        words.push(s.clone());
                        self.pos += 1;
                        continue;
                    }
                    Token::LParen => return Err(unsupported("Column-level grants")),
                    Token::Comma if !words.is_empty() => {
                        phrases.push(words.join(" "));
                        words.clear();
                        self.pos += 1;
                        continue;
                    }
                    _ => {}
                }
            }
            break;
        }
        if words.is_empty() {
            return Err(self.syntax_error("privilege or role"));
        }
        phrases.push(words.join(" "));
        Ok(phrases)
    }

    /// `*.*`, `db.*`, `db.table`, `*`, `table`.
    fn grant_target(&mut self) -> Result<GrantTarget> {
        let star = |c: &mut Self| c.eat_token(&Token::Mul);
        if star(self) {
            if self.eat_token(&Token::Period) {
                if !star(self) {
                    return Err(self.syntax_error("'*' after '*.'"));
                }
                return Ok(GrantTarget { database: None, table: None, global: true });
            }
            return Ok(GrantTarget { database: None, table: None, global: false });
        }
        let first = self.ident()?;
        if self.eat_token(&Token::Period) {
            let table = if star(self) { None } else { Some(self.ident()?) };
            return Ok(GrantTarget { database: Some(first), table, global: false });
        }
        Ok(GrantTarget { database: None, table: Some(first), global: false })
    }

    /// After `SHOW`: `GRANTS [FOR names]`, `USERS`, `ROLES`, `[SETTINGS] PROFILES`,
    /// `QUOTAS`, `CREATE USER [names]`.
    pub(super) fn show_access(&mut self) -> Result<Option<Statement>> {
        let command = if self.eat("GRANTS") {
            let names = if self.eat("FOR") { self.entity_names()? } else { Vec::new() };
            AccessCommand::ShowGrants { names }
        } else if self.eat("USERS") {
            AccessCommand::ShowUsers
        } else if self.eat("ROLES") {
            AccessCommand::ShowRoles
        } else if self.eat_seq(&["SETTINGS", "PROFILES"]) || self.eat("PROFILES") {
            AccessCommand::ShowProfiles
        } else if self.eat("QUOTAS") {
            AccessCommand::ShowQuotas
        } else if self.eat_seq(&["CREATE", "USER"]) {
            let names = if self.at_end() || self.peek_is("FORMAT") { Vec::new() } else { self.entity_names()? };
            AccessCommand::ShowCreateUser { names }
        } else if let Some(command) = self.show_row_policies()? {
            command
        } else if self.peek_is("CREATE") && self.lx.get(self.pos + 1).is_some_and(|l| l.is_keyword("ROW") || l.is_keyword("POLICY")) {
            self.pos += 1;
            match self.show_create_row_policy()? {
                Some(command) => command,
                None => return Err(self.syntax_error("ROW POLICY")),
            }
        } else {
            return Ok(None);
        };
        Ok(Some(Statement::Access(command)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_statement, ParseOptions};
    use super::*;
    use crate::rewrite::RewriteOptions;

    fn access(sql: &str) -> AccessCommand {
        let params = Default::default();
        let options = ParseOptions { params: &params, rewrite: RewriteOptions::default(), max_query_size: 0 };
        match parse_statement(sql, &options).unwrap().0.statement {
            Statement::Access(command) => command,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn users_and_roles() {
        let AccessCommand::CreateUser { names, changes, if_not_exists, .. } =
            access("CREATE USER IF NOT EXISTS alice, bob IDENTIFIED WITH plaintext_password BY 'pw' HOST IP '10.0.0.0/8', LOCAL DEFAULT DATABASE db SETTINGS max_threads = 2 READONLY, PROFILE 'ro'")
        else {
            panic!()
        };
        assert!(if_not_exists);
        assert_eq!(names, ["alice", "bob"]);
        assert_eq!(changes.auth, Some(Authentication::Plaintext("pw".into())));
        assert_eq!(changes.hosts.as_ref().map(Vec::len), Some(2));
        assert_eq!(changes.default_database, Some(Some("db".into())));
        assert_eq!(changes.settings, Some(vec![SettingValue { name: "max_threads".into(), value: "2".into(), fixed: true }]));
        assert_eq!(changes.profile, Some(Some("ro".into())));
        assert!(matches!(access("ALTER USER alice RENAME TO alicia NOT IDENTIFIED"), AccessCommand::AlterUser { rename_to: Some(_), .. }));
        assert!(matches!(access("DROP USER IF EXISTS a, b"), AccessCommand::DropUser { if_exists: true, .. }));
        assert!(matches!(access("CREATE OR REPLACE ROLE r SETTINGS readonly = 1"), AccessCommand::CreateRole { or_replace: true, .. }));
        assert!(matches!(access("DROP SETTINGS PROFILE p"), AccessCommand::DropProfile { .. }));
    }

    #[test]
    fn grants_and_revokes() {
        let AccessCommand::Grant { privileges, target, grantees, with_grant_option } =
            access("GRANT SELECT, INSERT, CREATE TABLE ON db.* TO alice, r WITH GRANT OPTION")
        else {
            panic!()
        };
        assert_eq!(privileges, ["SELECT", "INSERT", "CREATE TABLE"]);
        assert_eq!(target, GrantTarget { database: Some("db".into()), table: None, global: false });
        assert_eq!(grantees, ["alice", "r"]);
        assert!(with_grant_option);
        let AccessCommand::Grant { target, .. } = access("GRANT ALL ON *.* TO admin") else { panic!() };
        assert!(target.global);
        let AccessCommand::Grant { target, .. } = access("GRANT SELECT ON t TO a") else { panic!() };
        assert_eq!(target.table.as_deref(), Some("t"));
        assert!(matches!(access("GRANT reader, writer TO alice"), AccessCommand::GrantRoles { .. }));
        assert!(matches!(access("REVOKE GRANT OPTION FOR SELECT ON db.t FROM a"), AccessCommand::Revoke { grant_option_only: true, .. }));
        assert!(matches!(access("REVOKE reader FROM alice"), AccessCommand::RevokeRoles { .. }));
        assert!(matches!(access("SHOW GRANTS FOR alice"), AccessCommand::ShowGrants { .. }));
        assert!(matches!(access("SHOW SETTINGS PROFILES"), AccessCommand::ShowProfiles));
    }

    #[test]
    fn quotas() {
        let AccessCommand::CreateQuota { intervals, to, keyed_by_user, .. } =
            access("CREATE QUOTA q FOR INTERVAL 1 hour MAX queries = 10, errors = 2, FOR INTERVAL 1 day MAX queries = 100 TO alice")
        else {
            panic!()
        };
        assert!(keyed_by_user);
        assert_eq!(to, ["alice"]);
        assert_eq!(intervals.len(), 2);
        assert_eq!((intervals[0].duration_seconds, intervals[0].queries, intervals[0].errors), (3600, 10, 2));
        assert_eq!((intervals[1].duration_seconds, intervals[1].queries), (86_400, 100));
    }

    #[test]
    fn row_policies() {
        let AccessCommand::CreateRowPolicy { policy, or_replace, .. } =
            access("CREATE OR REPLACE ROW POLICY p ON db.t AS RESTRICTIVE FOR SELECT USING a > 1 AND (b = 'x') TO ALL EXCEPT bob, carol")
        else {
            panic!("not CREATE ROW POLICY")
        };
        assert!(or_replace && policy.restrictive && policy.to.all);
        assert_eq!((policy.short_name.as_str(), policy.database.as_str(), policy.table.as_str()), ("p", "db", "t"));
        assert_eq!(policy.condition.as_deref(), Some("a > 1 AND (b = 'x')"));
        assert_eq!(policy.to.except.iter().collect::<Vec<_>>(), ["bob", "carol"]);
        let AccessCommand::CreateRowPolicy { policy, .. } = access("CREATE POLICY q ON t USING 1 TO alice") else { panic!("not CREATE POLICY") };
        assert_eq!((policy.database.as_str(), policy.restrictive, policy.to.names.len()), ("", false, 1));
        assert_eq!(access("DROP ROW POLICY IF EXISTS p ON db.t"), AccessCommand::DropRowPolicy { short_name: "p".into(), database: "db".into(), table: "t".into(), if_exists: true });
        assert_eq!(access("SHOW ROW POLICIES ON t"), AccessCommand::ShowRowPolicies { on: Some((String::new(), "t".into())) });
        assert_eq!(access("SHOW CREATE ROW POLICY p ON t"), AccessCommand::ShowCreateRowPolicy { short_name: "p".into(), database: String::new(), table: "t".into() });
    }
}
