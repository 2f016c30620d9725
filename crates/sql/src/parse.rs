//! Statements: ClickHouse's grammar for DDL and utility statements, sqlparser for queries.

use std::collections::HashMap;

use datafusion::sql::sqlparser::ast::{self, FormatClause, Query};
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan};
use granary_common::{Error, ErrorCode, Result};
use granary_types::ChType;

use crate::lexer::{lex, Lexeme};
use crate::params::substitute_parameters;
use crate::rewrite::{rewrite_query, LimitBy, RewriteOptions};

mod access;

/// How to parse: query parameters and what the function registry knows.
pub struct ParseOptions<'a> {
    pub params: &'a HashMap<String, String>,
    pub rewrite: RewriteOptions<'a>,
    /// `max_query_size`: longer query texts are rejected (0: no limit).
    pub max_query_size: usize,
}

/// `[db.]table`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableName {
    pub database: Option<String>,
    pub table: String,
}

impl std::fmt::Display for TableName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.database {
            Some(db) => write!(f, "{db}.{}", self.table),
            None => f.write_str(&self.table),
        }
    }
}

/// A statement and the clauses that apply to how it runs rather than what it computes.
#[derive(Debug, Clone)]
pub struct StatementWithClauses {
    pub statement: Statement,
    /// `SETTINGS k = v, ...` of the query.
    pub settings: Vec<(String, String)>,
    /// `FORMAT Name` of a SELECT-like statement.
    pub format: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Statement {
    /// SELECT / WITH / UNION, after [`rewrite_query`].
    Query { query: Box<Query>, limit_by: Option<LimitBy> },
    Insert(InsertStatement),
    CreateDatabase { name: String, if_not_exists: bool, engine: Option<String> },
    DropDatabase { name: String, if_exists: bool },
    CreateTable(Box<CreateTable>),
    CreateDictionary(Box<CreateDictionary>),
    CreateView(Box<CreateView>),
    /// `DROP TABLE|VIEW|DICTIONARY`; `DROP VIEW` of a table is an error, as in ClickHouse.
    /// `temporary`: `DROP TEMPORARY TABLE`, which only drops a temporary table.
    DropTable { name: TableName, if_exists: bool, view_only: bool, temporary: bool },
    /// `DETACH TABLE|VIEW|DICTIONARY [IF EXISTS] t [PERMANENTLY] [SYNC]`.
    DetachTable { name: TableName, if_exists: bool, permanently: bool },
    /// `ATTACH TABLE|DICTIONARY [IF NOT EXISTS] t` of a detached table (ATTACH with a
    /// definition is a CREATE).
    AttachTable { name: TableName, if_not_exists: bool },
    DetachDatabase { name: String, if_exists: bool, permanently: bool },
    AttachDatabase { name: String, if_not_exists: bool },
    RenameTables(Vec<(TableName, TableName)>),
    /// `EXCHANGE TABLES a AND b`: the two names swap tables, atomically.
    ExchangeTables(TableName, TableName),
    /// `RENAME DATABASE a TO b`.
    RenameDatabase { from: String, to: String },
    TruncateTable { name: TableName, if_exists: bool },
    ShowDatabases { like: Option<NameFilter>, limit: Option<u64> },
    ShowTables { database: Option<String>, like: Option<NameFilter>, limit: Option<u64> },
    ShowDictionaries { database: Option<String>, like: Option<NameFilter>, limit: Option<u64> },
    /// `SHOW [FULL] COLUMNS FROM t [FROM db] [[NOT] LIKE 'p'] [LIMIT n]`.
    ShowColumns { table: TableName, like: Option<NameFilter>, limit: Option<u64> },
    ShowCreateTable(TableName),
    ShowCreateDatabase(String),
    /// `SHOW FUNCTIONS [[NOT] [I]LIKE 'p']`: rows of `system.functions`.
    ShowFunctions { like: Option<NameFilter> },
    /// `SHOW ENGINES`: rows of `system.table_engines`.
    ShowEngines,
    /// `SHOW PRIVILEGES`: rows of `system.privileges`.
    ShowPrivileges,
    /// `SHOW [EXTENDED] INDEX|INDEXES|INDICES|KEYS FROM t [FROM db] [WHERE condition]`.
    ShowIndexes { table: TableName, condition: Option<String> },
    /// `SHOW [CHANGED] SETTINGS [[NOT] LIKE 'p']`.
    ShowSettings { like: Option<NameFilter>, changed: bool },
    /// `SHOW SETTING name`: the value alone.
    ShowSetting(String),
    ShowProcesslist,
    DescribeTable(TableName),
    DescribeQuery { query: Box<Query> },
    ExistsTable(TableName),
    ExistsDatabase(String),
    Use(String),
    Set(Vec<(String, String)>),
    Optimize { name: TableName, partition: Option<String>, final_: bool, cleanup: bool },
    /// `CHECK TABLE t [PARTITION p]`.
    CheckTable { name: TableName, partition: Option<String> },
    /// `KILL MUTATION [ON CLUSTER c] WHERE condition [SYNC|ASYNC|TEST]`: the condition
    /// is over `system.mutations`; `TEST` only lists what would be killed.
    KillMutation { condition: String, test: bool },
    /// `ALTER TABLE t command [, command ...]` (the partition and mutation commands).
    Alter { name: TableName, commands: Vec<AlterCommand> },
    /// `EXPLAIN [kind] [name = value, ...] query`.
    Explain { kind: String, options: Vec<(String, String)>, query: Box<Query> },
    System { command: String },
    /// CREATE USER, GRANT, SHOW GRANTS, ... ([`parse::access`](self)).
    Access(granary_access::AccessCommand),
    /// `CREATE NAMED COLLECTION [IF NOT EXISTS] name AS key = value [[NOT] OVERRIDABLE], ...`.
    CreateNamedCollection { name: String, if_not_exists: bool, entries: Vec<NamedCollectionEntry> },
    /// `ALTER NAMED COLLECTION [IF EXISTS] name [SET key = value, ...] [DELETE key, ...]`.
    AlterNamedCollection { name: String, if_exists: bool, set: Vec<NamedCollectionEntry>, delete: Vec<String> },
    /// `DROP NAMED COLLECTION [IF EXISTS] name`.
    DropNamedCollection { name: String, if_exists: bool },
    /// `CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] name AS (params) -> body`.
    CreateFunction(SqlFunction),
    DropFunction { name: String, if_exists: bool },
}

/// A SQL user-defined function as written: its parameters and its body's text.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlFunction {
    pub name: String,
    pub params: Vec<String>,
    pub body: String,
    pub or_replace: bool,
    pub if_not_exists: bool,
}

impl SqlFunction {
    /// The statement as ClickHouse shows it in `system.functions.create_query`.
    pub fn create_query(&self) -> String {
        let params = if self.params.len() == 1 { self.params[0].clone() } else { format!("({})", self.params.join(", ")) };
        format!("CREATE FUNCTION {} AS {params} -> {}", self.name, self.body)
    }
}

/// One `key = value [[NOT] OVERRIDABLE]` of a named collection statement; the value as
/// text (a string's content, a number or a boolean as written).
#[derive(Debug, Clone, PartialEq)]
pub struct NamedCollectionEntry {
    pub key: String,
    pub value: String,
    pub overridable: Option<bool>,
}

impl Statement {
    /// The kind as `system.query_log.query_kind` shows it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Statement::Query { .. }
            | Statement::ShowDatabases { .. }
            | Statement::ShowTables { .. }
            | Statement::ShowDictionaries { .. }
            | Statement::ShowColumns { .. }
            | Statement::ShowFunctions { .. }
            | Statement::ShowEngines
            | Statement::ShowPrivileges
            | Statement::ShowIndexes { .. } => "Select",
            Statement::Insert(_) => "Insert",
            Statement::CreateDatabase { .. } | Statement::CreateTable(_) | Statement::CreateDictionary(_) | Statement::CreateView(_) | Statement::CreateNamedCollection { .. } | Statement::CreateFunction(_) => "Create",
            Statement::DropDatabase { .. }
            | Statement::DropTable { .. }
            | Statement::DropNamedCollection { .. }
            | Statement::DropFunction { .. }
            | Statement::DetachTable { .. }
            | Statement::DetachDatabase { .. } => "Drop",
            Statement::AttachTable { .. } | Statement::AttachDatabase { .. } => "Create",
            Statement::RenameTables(_) | Statement::ExchangeTables(..) | Statement::RenameDatabase { .. } => "Rename",
            Statement::TruncateTable { .. } => "Drop",
            Statement::ShowCreateTable(_)
            | Statement::ShowCreateDatabase(_)
            | Statement::ShowSettings { .. }
            | Statement::ShowSetting(_)
            | Statement::ShowProcesslist => "Show",
            Statement::DescribeTable(_) | Statement::DescribeQuery { .. } => "Describe",
            Statement::ExistsTable(_) | Statement::ExistsDatabase(_) => "Exists",
            Statement::Use(_) => "Use",
            Statement::Set(_) => "Set",
            Statement::Optimize { .. } => "Optimize",
            Statement::CheckTable { .. } => "Check",
            Statement::KillMutation { .. } => "KillQuery",
            Statement::Alter { .. } | Statement::AlterNamedCollection { .. } => "Alter",
            Statement::Explain { .. } => "Explain",
            Statement::System { .. } => "System",
            Statement::Access(command) => command.kind_name(),
        }
    }

    /// Whether the statement only reads (for `readonly = 1`).
    pub fn is_read_only(&self) -> bool {
        if let Statement::Access(command) = self {
            return command.is_read_only();
        }
        matches!(
            self,
            Statement::Query { .. }
                | Statement::ShowDatabases { .. }
                | Statement::ShowTables { .. }
                | Statement::ShowDictionaries { .. }
                | Statement::ShowColumns { .. }
                | Statement::ShowFunctions { .. }
                | Statement::ShowEngines
                | Statement::ShowPrivileges
                | Statement::ShowIndexes { .. }
                | Statement::ShowCreateTable(_)
                | Statement::ShowCreateDatabase(_)
                | Statement::ShowSettings { .. }
                | Statement::ShowSetting(_)
                | Statement::ShowProcesslist
                | Statement::DescribeTable(_)
                | Statement::DescribeQuery { .. }
                | Statement::ExistsTable(_)
                | Statement::ExistsDatabase(_)
                | Statement::Use(_)
                | Statement::Explain { .. }
                | Statement::CheckTable { .. }
        )
    }
}

/// One command of `ALTER TABLE`. Partition expressions and predicates are kept as
/// text: the table engine evaluates them against its own keys and schema.
#[derive(Debug, Clone, PartialEq)]
pub enum AlterCommand {
    DropPartition(String),
    DetachPartition(String),
    AttachPartition(String),
    /// `DELETE WHERE expr`.
    Delete(String),
    /// `DELETE FROM t WHERE expr` (a lightweight delete, as `ALTER TABLE t` with this one
    /// command).
    LightweightDelete(String),
    /// `UPDATE c = expr [, ...] WHERE predicate`: the assignments, then the predicate.
    Update(Vec<(String, String)>, String),
    /// `ADD COLUMN [IF NOT EXISTS] spec [FIRST | AFTER c]`.
    AddColumn { column: ColumnSpec, if_not_exists: bool, position: ColumnPosition },
    DropColumn { name: String, if_exists: bool },
    RenameColumn { from: String, to: String, if_exists: bool },
    /// `MODIFY COLUMN [IF EXISTS] c [Type] [DEFAULT e] [CODEC(..)] [COMMENT '..']`: only
    /// what is written changes (`REMOVE DEFAULT`/`COMMENT` .. is `remove`).
    ModifyColumn { change: ColumnChange, if_exists: bool },
    CommentColumn { name: String, comment: String, if_exists: bool },
    /// `CLEAR COLUMN [IF EXISTS] c [IN PARTITION p]`.
    ClearColumn { name: String, partition: Option<String>, if_exists: bool },
    ModifyComment(String),
    /// `ADD CONSTRAINT [IF NOT EXISTS] name CHECK|ASSUME expr`.
    AddConstraint { constraint: ConstraintSpec, if_not_exists: bool },
    DropConstraint { name: String, if_exists: bool },
    /// `MODIFY TTL rules` as written.
    ModifyTtl(String),
    RemoveTtl,
    /// `MATERIALIZE TTL [IN PARTITION p]`.
    MaterializeTtl(Option<String>),
    /// `MATERIALIZE COLUMN c [IN PARTITION p]`.
    MaterializeColumn { name: String, partition: Option<String> },
    /// `ADD INDEX [IF NOT EXISTS] name expr TYPE t [GRANULARITY n] [FIRST | AFTER i]`.
    AddIndex { index: IndexSpec, if_not_exists: bool, position: ColumnPosition },
    /// `DROP INDEX [IF EXISTS] name`.
    DropIndex { name: String, if_exists: bool },
    /// `MATERIALIZE INDEX [IF EXISTS] name [IN PARTITION p]`: built for existing parts.
    MaterializeIndex { name: String, partition: Option<String>, if_exists: bool },
    /// `CLEAR INDEX [IF EXISTS] name [IN PARTITION p]`: its files removed from parts.
    ClearIndex { name: String, partition: Option<String>, if_exists: bool },
    /// `MODIFY SAMPLE BY expr` / `REMOVE SAMPLE BY`: the table's sampling key.
    ModifySampleBy(String),
    RemoveSampleBy,
    ModifySetting(Vec<(String, String)>),
    ResetSetting(Vec<String>),
}

/// Where `ADD COLUMN` puts the column: last, first, or after a named one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnPosition {
    Last,
    First,
    After(String),
}

/// What `MODIFY COLUMN` says of a column; `None` keeps the current value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColumnChange {
    pub name: String,
    pub ch_type: Option<ChType>,
    /// The kind (`DEFAULT`, `MATERIALIZED`, ...) and expression.
    pub default: Option<(String, String)>,
    pub codec: Option<String>,
    pub comment: Option<String>,
    /// `TTL expr` as written.
    pub ttl: Option<String>,
    /// `REMOVE DEFAULT | CODEC | COMMENT | TTL ...`, upper-case.
    pub remove: Option<String>,
}

#[derive(Debug, Clone)]
pub struct InsertStatement {
    pub target: InsertTarget,
    /// The column list, empty for all columns.
    pub columns: Vec<String>,
    pub source: InsertSource,
    pub settings: Vec<(String, String)>,
}

/// Where an INSERT writes.
#[derive(Debug, Clone)]
pub enum InsertTarget {
    Table(TableName),
    /// `INSERT INTO FUNCTION s3(...) [PARTITION BY expr]`.
    Function(TableFunctionCall),
}

/// A table function call as written: arguments are SQL expression texts.
#[derive(Debug, Clone, PartialEq)]
pub struct TableFunctionCall {
    pub name: String,
    pub args: Vec<String>,
    /// `PARTITION BY expr` of `INSERT INTO FUNCTION`: one file per value, named by
    /// replacing `{_partition_id}` in the path.
    pub partition_by: Option<String>,
}

#[derive(Debug, Clone)]
pub enum InsertSource {
    /// `VALUES (...)` or `FORMAT X`: the data starts at byte `data_offset` of the query
    /// text and continues with the request body, if any.
    Data { format: String, data_offset: usize },
    /// `input_format`: the `FORMAT X` after the SELECT, the format of the data sent with the
    /// query (from byte `data_offset` of the text on, then the request body), which
    /// `input(structure)` in the SELECT reads.
    Select { query: Box<Query>, limit_by: Option<LimitBy>, input_format: Option<String>, data_offset: usize },
}

/// One column of `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSpec {
    pub name: String,
    pub ch_type: ChType,
    /// `DEFAULT`, `MATERIALIZED`, `ALIAS` or `EPHEMERAL`, with the expression text.
    pub default_kind: Option<String>,
    pub default_expression: Option<String>,
    pub codec: Option<String>,
    pub comment: Option<String>,
    /// Declared `PRIMARY KEY` in its definition (`a UInt64 PRIMARY KEY`).
    pub primary_key: bool,
    /// `TTL expr` as written.
    pub ttl: Option<String>,
}

/// `ENGINE = Name(args) ORDER BY ... PARTITION BY ... PRIMARY KEY ... SETTINGS ...`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EngineSpec {
    pub name: String,
    /// Argument expressions as written.
    pub args: Vec<String>,
    pub order_by: Option<String>,
    pub partition_by: Option<String>,
    pub primary_key: Option<String>,
    pub sample_by: Option<String>,
    pub ttl: Option<String>,
    pub settings: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
pub struct CreateTable {
    pub name: TableName,
    pub if_not_exists: bool,
    pub or_replace: bool,
    /// `REPLACE TABLE`: as CREATE OR REPLACE, but the table must exist.
    pub replace_only: bool,
    pub columns: Vec<ColumnSpec>,
    /// `None` means the ClickHouse default for a table without ENGINE (`MergeTree` needs
    /// ORDER BY, so the interpreter decides; ClickHouse's default_table_engine).
    pub engine: Option<EngineSpec>,
    /// `CREATE TABLE t AS other_table`: copy the structure (and engine, if none given).
    pub as_table: Option<TableName>,
    /// `CREATE TABLE t ... AS SELECT ...`.
    pub as_select: Option<(Box<Query>, Option<LimitBy>)>,
    pub comment: Option<String>,
    /// `CONSTRAINT name CHECK|ASSUME expr` of the column list.
    pub constraints: Vec<ConstraintSpec>,
    /// `CREATE TEMPORARY TABLE`: a table of the session.
    pub temporary: bool,
    /// `INDEX name expr TYPE type [GRANULARITY n]` items of the column list.
    pub indices: Vec<IndexSpec>,
}

/// What the brackets of CREATE TABLE hold.
struct ColumnList {
    columns: Vec<ColumnSpec>,
    constraints: Vec<ConstraintSpec>,
    indices: Vec<IndexSpec>,
    primary_key: Option<String>,
}

/// `CONSTRAINT name CHECK expr` or `CONSTRAINT name ASSUME expr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstraintSpec {
    pub name: String,
    /// `CHECK` or `ASSUME`, upper-case.
    pub kind: String,
    pub expression: String,
}

/// A data-skipping index of CREATE TABLE, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSpec {
    pub name: String,
    pub expr: String,
    pub type_full: String,
    pub granularity: u64,
}

/// `[NOT] LIKE 'pattern'` / `[NOT] ILIKE 'pattern'` of SHOW statements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameFilter {
    pub pattern: String,
    pub negated: bool,
    pub case_insensitive: bool,
}

impl NameFilter {
    /// The filter as a SQL condition on `column`.
    pub fn condition(&self, column: &str) -> String {
        format!(
            "{column} {}{} {}",
            if self.negated { "NOT " } else { "" },
            if self.case_insensitive { "ILIKE" } else { "LIKE" },
            crate::params::quote_string(&self.pattern)
        )
    }
}

/// `CREATE [OR REPLACE] [MATERIALIZED] VIEW name [TO target] [(columns)] [ENGINE = ...]
/// [POPULATE | EMPTY] AS SELECT ... [COMMENT '...']`.
#[derive(Debug, Clone)]
pub struct CreateView {
    pub name: TableName,
    pub if_not_exists: bool,
    pub or_replace: bool,
    pub materialized: bool,
    pub columns: Vec<ColumnSpec>,
    /// `TO [db.]table` of a materialized view.
    pub to: Option<TableName>,
    /// The engine of a materialized view's inner table (without `TO`).
    pub engine: Option<EngineSpec>,
    /// `POPULATE`: fill the view from the rows already in its source.
    pub populate: bool,
    /// The SELECT as written; a parameterized view keeps its `{name:Type}` placeholders.
    pub query_text: String,
    /// The SELECT parsed, placeholders of a parameterized view replaced by `0`.
    pub query: Box<Query>,
    pub limit_by: Option<LimitBy>,
    /// Placeholder names of a parameterized view, in order of first appearance.
    pub parameters: Vec<String>,
    pub comment: Option<String>,
}

/// `CREATE DICTIONARY name (attributes) PRIMARY KEY ... SOURCE(...) LAYOUT(...) LIFETIME(...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateDictionary {
    pub name: TableName,
    pub if_not_exists: bool,
    pub or_replace: bool,
    /// Key and attribute columns; `default_expression` holds an attribute's `DEFAULT`.
    pub attributes: Vec<ColumnSpec>,
    pub primary_key: Vec<String>,
    pub source: Option<DictionaryClauseSpec>,
    pub layout: Option<DictionaryClauseSpec>,
    /// `LIFETIME(n)` is `(0, n)`; `LIFETIME(MIN a MAX b)` is `(a, b)`.
    pub lifetime: Option<(u64, u64)>,
    pub range: Option<(String, String)>,
    pub comment: Option<String>,
    /// Attributes marked `HIERARCHICAL` (the parent key of a hierarchy).
    pub hierarchical: Vec<String>,
}

/// `NAME(KEY value KEY value ...)` inside SOURCE / LAYOUT; keys upper-cased, values as
/// their literal text.
#[derive(Debug, Clone, PartialEq)]
pub struct DictionaryClauseSpec {
    pub name: String,
    pub params: Vec<(String, String)>,
}

/// Marks a [`ColumnSpec`] that stands for a Nested column until it is flattened.
const NESTED_MARK: &str = "NESTED";

/// The columns a Nested column stands for: `n.a Array(T)`, `n.b Array(U)`, ...
fn nested_columns(column: &ColumnSpec) -> Option<Vec<ColumnSpec>> {
    if column.default_kind.as_deref() != Some(NESTED_MARK) {
        return None;
    }
    let ChType::Tuple(elements) = &column.ch_type else { return None };
    let flattened = elements
        .iter()
        .map(|(element, t)| ColumnSpec {
            name: format!("{}.{element}", column.name),
            ch_type: t.clone(),
            default_kind: None,
            default_expression: None,
            codec: None,
            comment: None,
            primary_key: false,
            ttl: None,
        })
        .collect();
    Some(flattened)
}

/// Parses one statement (a trailing `;` is allowed).
pub fn parse_statement(sql: &str, options: &ParseOptions<'_>) -> Result<(StatementWithClauses, Option<String>)> {
    if options.max_query_size > 0 && sql.len() > options.max_query_size && !looks_like_insert_with_data(sql) {
        return Err(Error::new(
            ErrorCode::SYNTAX_ERROR,
            format!("Max query size exceeded: the query is {} bytes, max_query_size is {}", sql.len(), options.max_query_size),
        ));
    }
    // Parameters are substituted in the query, never in INSERT data that follows it
    // (JSON data is full of `{"key": value}`), nor in a view's query, where they are
    // the view's own parameters.
    let head = insert_head(sql).unwrap_or(sql);
    let substituted = if is_create_view(head) {
        None
    } else {
        substitute_parameters(head, options.params)?.map(|h| format!("{h}{}", &sql[head.len()..]))
    };
    let text = substituted.as_deref().unwrap_or(sql);
    let lexemes = lex_statement(text)?;
    let mut cursor = Cursor { sql: text, lx: &lexemes, pos: 0 };
    let statement = cursor.statement(options)?;
    Ok((statement, substituted))
}

/// One expression as the query front end leaves a SELECT-list item (ClickHouse's casts,
/// operators, intervals and conditions rewritten), for expressions stored outside
/// queries (TTL, SQL function bodies) that are planned on their own.
pub fn parse_expression(text: &str, options: &ParseOptions<'_>) -> Result<ast::Expr> {
    let invalid = || Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: not a single expression: {text}"));
    let Statement::Query { query, .. } = parse_statement(&format!("SELECT {text}"), options)?.0.statement else {
        return Err(invalid());
    };
    match (*query.body, query.order_by, query.limit_clause) {
        (ast::SetExpr::Select(select), None, None) if select.from.is_empty() && select.projection.len() == 1 => match select.projection.into_iter().next() {
            Some(ast::SelectItem::UnnamedExpr(e)) | Some(ast::SelectItem::ExprWithAlias { expr: e, .. }) => Ok(e),
            _ => Err(invalid()),
        },
        _ => Err(invalid()),
    }
}

/// `CREATE [OR REPLACE] VIEW` (not MATERIALIZED: ClickHouse substitutes parameters in
/// those as in any query).
fn is_create_view(sql: &str) -> bool {
    if !sql.trim_start().get(..6).is_some_and(|w| w.eq_ignore_ascii_case("CREATE")) {
        return false;
    }
    let Ok(lexemes) = lex(sql) else { return false };
    let words: Vec<&Lexeme> = lexemes.iter().take(4).collect();
    match words.as_slice() {
        [create, view, ..] if create.is_keyword("CREATE") && view.is_keyword("VIEW") => true,
        [create, or, replace, view] => create.is_keyword("CREATE") && or.is_keyword("OR") && replace.is_keyword("REPLACE") && view.is_keyword("VIEW"),
        _ => false,
    }
}

/// INSERT data may follow the query in the same text; those are not limited by
/// `max_query_size` (ClickHouse limits only the part before the data).
fn looks_like_insert_with_data(sql: &str) -> bool {
    sql.trim_start().get(..6).is_some_and(|w| w.eq_ignore_ascii_case("INSERT"))
}

/// Lexes and drops a single trailing `;`. Lexing an INSERT stops at its data: the data
/// is not SQL and may not even tokenize (CSV with unbalanced quotes, binary formats).
fn lex_statement(sql: &str) -> Result<Vec<Lexeme>> {
    let head = insert_head(sql).unwrap_or(sql);
    let mut lexemes = lex(head)?;
    while lexemes.last().is_some_and(|l| l.token == Token::SemiColon) {
        lexemes.pop();
    }
    if lexemes.is_empty() {
        return Err(Error::new(ErrorCode::SYNTAX_ERROR, "Empty query"));
    }
    if let Some(pos) = lexemes.iter().position(|l| l.token == Token::SemiColon) {
        if insert_head(sql).is_none() {
            return Err(Error::new(
                ErrorCode::SYNTAX_ERROR,
                format!("Multi-statements are not allowed: failed at position {}", lexemes[pos].start + 1),
            ));
        }
    }
    Ok(lexemes)
}

/// For `INSERT ... VALUES|FORMAT X <data>`, the text up to and including the format
/// name (or `VALUES`), found by a cheap scan that respects quotes.
fn insert_head(sql: &str) -> Option<&str> {
    if !looks_like_insert_with_data(sql) {
        return None;
    }
    let bytes = sql.as_bytes();
    let mut i = 0;
    let mut depth = 0i32;
    // After SELECT only a last `FORMAT X` followed by data ends the head: the data of
    // `INSERT ... SELECT ... FROM input(...) FORMAT X`.
    let mut in_select = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' | b'`' => {
                let quote = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b if depth == 0 && (b == b'v' || b == b'V' || b == b'f' || b == b'F' || b == b's' || b == b'S' || b == b'w' || b == b'W' || b == b'(') => {
                let word_start = i == 0 || !is_word_byte(bytes[i - 1]);
                if word_start {
                    let rest = &sql[i..];
                    let word_len = rest.bytes().take_while(|b| is_word_byte(*b)).count();
                    let word = &rest[..word_len];
                    if word.eq_ignore_ascii_case("VALUES") && !in_select {
                        return Some(&sql[..i + word_len]);
                    }
                    if word.eq_ignore_ascii_case("FORMAT") {
                        let after = &rest[word_len..];
                        let name_start = after.len() - after.trim_start().len();
                        let name_len = after[name_start..].bytes().take_while(|b| is_word_byte(*b)).count();
                        let head = &sql[..i + word_len + name_start + name_len];
                        // In a SELECT, `format(...)` is a table function and `format` may
                        // be a column: only `FORMAT Name` then a line break or the end
                        // counts, Name not a keyword that goes on with the query.
                        const GOES_ON: [&str; 12] = ["FROM", "WHERE", "GROUP", "ORDER", "LIMIT", "UNION", "HAVING", "SETTINGS", "AS", "AND", "OR", "FORMAT"];
                        let name = &head[head.len() - name_len..];
                        let then = sql[head.len()..].trim_start_matches([' ', '\t']).chars().next();
                        let ends = name_start > 0 && name_len > 0 && matches!(then, None | Some('\n' | '\r')) && !GOES_ON.iter().any(|k| name.eq_ignore_ascii_case(k));
                        if !in_select || ends {
                            return Some(head);
                        }
                    }
                    if word.eq_ignore_ascii_case("SELECT") || word.eq_ignore_ascii_case("WITH") {
                        in_select = true;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

struct Cursor<'a> {
    sql: &'a str,
    lx: &'a [Lexeme],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn syntax_error(&self, expected: &str) -> Error {
        let (at, near) = match self.lx.get(self.pos) {
            Some(l) => (l.start, &self.sql[l.start..(l.start + 40).min(self.sql.len())]),
            None => (self.sql.len(), ""),
        };
        let near = near.get(..near.char_indices().map(|(i, _)| i).take_while(|i| *i <= 40).last().unwrap_or(0)).unwrap_or("");
        Error::new(
            ErrorCode::SYNTAX_ERROR,
            format!("Syntax error: failed at position {} ('{near}'): expected {expected}", at + 1),
        )
    }

    fn peek(&self) -> Option<&'a Lexeme> {
        self.lx.get(self.pos)
    }

    fn peek_is(&self, kw: &str) -> bool {
        self.peek().is_some_and(|l| l.is_keyword(kw))
    }

    fn peek_token(&self, token: &Token) -> bool {
        self.peek().is_some_and(|l| &l.token == token)
    }

    fn eat(&mut self, kw: &str) -> bool {
        if self.peek_is(kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_seq(&mut self, kws: &[&str]) -> bool {
        let matches = kws.iter().enumerate().all(|(i, kw)| self.lx.get(self.pos + i).is_some_and(|l| l.is_keyword(kw)));
        if matches {
            self.pos += kws.len();
        }
        matches
    }

    fn eat_token(&mut self, token: &Token) -> bool {
        if self.peek_token(token) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, kw: &str) -> Result<()> {
        if self.eat(kw) {
            Ok(())
        } else {
            Err(self.syntax_error(kw))
        }
    }

    fn expect_token(&mut self, token: &Token, what: &str) -> Result<()> {
        if self.eat_token(token) {
            Ok(())
        } else {
            Err(self.syntax_error(what))
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.lx.len()
    }

    fn expect_end(&self) -> Result<()> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.syntax_error("end of query"))
        }
    }

    /// An identifier: a bare word or a back-quoted / double-quoted name.
    fn ident(&mut self) -> Result<String> {
        match self.peek().map(|l| &l.token) {
            Some(Token::Word(w)) => {
                self.pos += 1;
                Ok(w.value.clone())
            }
            _ => Err(self.syntax_error("identifier")),
        }
    }

    fn table_name(&mut self) -> Result<TableName> {
        let first = self.ident()?;
        if self.eat_token(&Token::Period) {
            let table = self.ident()?;
            Ok(TableName { database: Some(first), table })
        } else {
            Ok(TableName { database: None, table: first })
        }
    }

    /// `name(arg, ...)`, each argument kept as its SQL text.
    fn table_function_call(&mut self) -> Result<TableFunctionCall> {
        let name = self.ident()?;
        self.expect_token(&Token::LParen, "'('")?;
        let mut args = Vec::new();
        if !self.eat_token(&Token::RParen) {
            loop {
                args.push(self.raw_until(|l| l.token == Token::Comma).ok_or_else(|| self.syntax_error("table function argument"))?);
                if self.eat_token(&Token::RParen) {
                    break;
                }
                self.expect_token(&Token::Comma, "',' or ')'")?;
            }
        }
        Ok(TableFunctionCall { name, args, partition_by: None })
    }

    fn string_literal(&mut self) -> Result<String> {
        match self.peek().map(|l| &l.token) {
            Some(Token::SingleQuotedString(s)) => {
                self.pos += 1;
                Ok(s.clone())
            }
            _ => Err(self.syntax_error("string literal")),
        }
    }

    /// A setting value: number, string, identifier or boolean, as text.
    fn literal_text(&mut self) -> Result<String> {
        let negative = self.eat_token(&Token::Minus);
        let text = match self.peek().map(|l| &l.token) {
            Some(Token::Number(n, _)) => n.clone(),
            Some(Token::SingleQuotedString(s)) => s.clone(),
            Some(Token::Word(w)) => w.value.clone(),
            _ => return Err(self.syntax_error("literal")),
        };
        self.pos += 1;
        Ok(if negative { format!("-{text}") } else { text })
    }

    /// `k = v, k2 = v2`.
    fn assignments(&mut self) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        loop {
            let name = self.ident()?;
            self.expect_token(&Token::Eq, "'='")?;
            out.push((name, self.literal_text()?));
            if !self.eat_token(&Token::Comma) {
                return Ok(out);
            }
        }
    }

    /// Raw text from the current lexeme up to (not including) a lexeme at paren depth 0
    /// for which `stop` is true, or the end.
    fn raw_until(&mut self, stop: impl Fn(&Lexeme) -> bool) -> Option<String> {
        let start = self.pos;
        let mut depth = 0i32;
        while let Some(l) = self.peek() {
            if depth == 0 && stop(l) {
                break;
            }
            match l.token {
                Token::LParen | Token::LBracket => depth += 1,
                Token::RParen | Token::RBracket => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1
                }
                _ => {}
            }
            self.pos += 1;
        }
        (self.pos > start).then(|| self.sql[self.lx[start].start..self.lx[self.pos - 1].end].to_string())
    }

    /// `LIMIT n [OFFSET m] WITH TIES` and `LIMIT m, n WITH TIES`, at any depth, as the
    /// standard `[OFFSET m ROWS] FETCH FIRST n ROWS WITH TIES` that sqlparser reads (it has
    /// no WITH TIES after LIMIT).
    fn limit_with_ties_as_fetch(lexemes: &mut Vec<Lexeme>) {
        let mut i = 0;
        while i + 1 < lexemes.len() {
            if !(lexemes[i].is_keyword("WITH") && lexemes[i + 1].is_keyword("TIES")) {
                i += 1;
                continue;
            }
            // The LIMIT this belongs to: the nearest one before, at the same bracket depth.
            let mut depth = 0i32;
            let mut limit_at = None;
            for j in (0..i).rev() {
                match lexemes[j].token {
                    Token::RParen | Token::RBracket => depth += 1,
                    Token::LParen | Token::LBracket => {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    }
                    _ if depth == 0 && lexemes[j].is_keyword("LIMIT") => {
                        limit_at = Some(j);
                        break;
                    }
                    _ => {}
                }
            }
            let Some(limit_at) = limit_at else {
                i += 2;
                continue;
            };
            let clause = &lexemes[limit_at + 1..i];
            let top_level = |pred: &dyn Fn(&Lexeme) -> bool| -> Option<usize> {
                let mut depth = 0i32;
                for (k, l) in clause.iter().enumerate() {
                    match l.token {
                        Token::LParen | Token::LBracket => depth += 1,
                        Token::RParen | Token::RBracket => depth -= 1,
                        _ if depth == 0 && pred(l) => return Some(k),
                        _ => {}
                    }
                }
                None
            };
            if top_level(&|l| l.is_keyword("BY")).is_some() {
                i += 2;
                continue;
            }
            let (count, offset): (Vec<Lexeme>, Option<Vec<Lexeme>>) = if let Some(k) = top_level(&|l| l.token == Token::Comma) {
                (clause[k + 1..].to_vec(), Some(clause[..k].to_vec()))
            } else if let Some(k) = top_level(&|l| l.is_keyword("OFFSET")) {
                (clause[..k].to_vec(), Some(clause[k + 1..].to_vec()))
            } else {
                (clause.to_vec(), None)
            };
            let span_of = lexemes[limit_at].clone();
            let word = |w: &str| Lexeme { token: Token::make_keyword(w), ..span_of.clone() };
            let mut replacement = Vec::new();
            if let Some(offset) = offset {
                replacement.push(word("OFFSET"));
                replacement.extend(offset);
                replacement.push(word("ROWS"));
            }
            replacement.push(word("FETCH"));
            replacement.push(word("FIRST"));
            replacement.extend(count);
            replacement.push(word("ROWS"));
            replacement.push(word("WITH"));
            replacement.push(word("TIES"));
            let added = replacement.len();
            lexemes.splice(limit_at..i + 2, replacement);
            i = limit_at + added;
        }
    }

/// Hands the remaining lexemes, minus `FINAL` markers, to sqlparser as a query.
    fn rest_as_query(&mut self, options: &ParseOptions<'_>) -> Result<(Box<Query>, Option<LimitBy>, Vec<(String, String)>, Option<String>)> {
        let mut lexemes = inline_with_aliases(settings_before_format(&self.lx[self.pos..]));
        if lexemes.iter().any(|l| matches!(&l.token, Token::Placeholder(p) if p == "?")) {
            lexemes = crate::ternary::rewrite_ternaries(lexemes)?;
        }
        lexemes = crate::column_transformers::rewrite_column_transformers(lexemes)?;
        lexemes = crate::casts::rewrite_casts(self.sql, lexemes);
        lexemes = crate::tuple_literals::rewrite_tuple_literals(lexemes);
        lexemes = crate::inline_aliases::rewrite_inline_aliases(lexemes);
        // FORMAT and SETTINGS are taken off the end here: after a SELECT without FROM,
        // sqlparser would read `SELECT 1 FORMAT JSON` as a column alias.
        let mut format = None;
        if lexemes.len() >= 2 && lexemes[lexemes.len() - 2].is_keyword("FORMAT") && matches!(lexemes[lexemes.len() - 1].token, Token::Word(_)) {
            if let Token::Word(w) = &lexemes[lexemes.len() - 1].token {
                format = Some(w.value.clone());
            }
            lexemes.truncate(lexemes.len() - 2);
        }
        let mut settings = Vec::new();
        if let Some(at) = trailing_settings_start(&lexemes) {
            let mut cursor = Cursor { sql: self.sql, lx: &lexemes[at + 1..], pos: 0 };
            settings = cursor.assignments()?;
            cursor.expect_end()?;
            lexemes.truncate(at);
        }
        Self::limit_with_ties_as_fetch(&mut lexemes);
        let limit_by_offset = take_limit_by_offset(&mut lexemes)?;
        crate::join_strictness::bracket_using_columns(&mut lexemes);
        let strictness = crate::join_strictness::take_strictness(&mut lexemes)?;
        let mut tokens: Vec<TokenWithSpan> = Vec::with_capacity(lexemes.len() + 1);
        let mut final_seen = false;
        let mut i = 0;
        while i < lexemes.len() {
            let l = &lexemes[i];
            if l.is_keyword("FINAL") && i > 0 && is_after_table_reference(&lexemes[i - 1]) {
                // FINAL applies merge semantics at read time through the `final` setting;
                // the table it was written after keeps a `WITH (__granary_final)` hint so
                // the query layer can refuse it for engines without merges, as ClickHouse.
                if let Some(subquery) = final_subquery(&lexemes, i) {
                    let text = self.sql.get(subquery.clone()).unwrap_or_default();
                    return Err(Error::new(
                        ErrorCode::UNSUPPORTED_METHOD,
                        format!("Table expression modifiers FINAL are not supported for subquery {text}"),
                    ));
                }
                final_seen = true;
                let synthetic = |token: Token| TokenWithSpan { token, span: l.span };
                tokens.push(synthetic(Token::make_keyword("WITH")));
                tokens.push(synthetic(Token::LParen));
                tokens.push(synthetic(Token::make_word(crate::FINAL_MARKER, None)));
                tokens.push(synthetic(Token::RParen));
                i += 1;
                continue;
            }
            tokens.push(TokenWithSpan { token: l.token.clone(), span: l.span });
            if l.is_keyword("IN") {
                if let Some(len) = in_table_name_len(&lexemes[i + 1..]) {
                    // ClickHouse's `x IN t`: the rows of table `t` (a Set table, usually)
                    // are the set; sqlparser only knows `IN (SELECT ...)`.
                    let synthetic = |token: Token| TokenWithSpan { token, span: l.span };
                    tokens.push(synthetic(Token::LParen));
                    tokens.push(synthetic(Token::make_keyword("SELECT")));
                    tokens.push(synthetic(Token::Mul));
                    tokens.push(synthetic(Token::make_keyword("FROM")));
                    tokens.extend(lexemes[i + 1..i + 1 + len].iter().map(|n| TokenWithSpan { token: n.token.clone(), span: n.span }));
                    tokens.push(synthetic(Token::RParen));
                    i += 1 + len;
                    continue;
                }
            }
            i += 1;
        }
        self.pos = self.lx.len();
        let dialect = ClickHouseDialect {};
        let mut parser = Parser::new(&dialect).with_tokens_with_locations(tokens);
        let mut query = parser.parse_query().map_err(|e| Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {e}")))?;
        // `LIMIT n BY x LIMIT m [OFFSET k]` (or `LIMIT k, m`): sqlparser stops at the
        // second LIMIT, which applies to what LIMIT BY kept.
        let has_limit_by = matches!(&query.limit_clause, Some(ast::LimitClause::LimitOffset { limit_by, .. }) if !limit_by.is_empty());
        let mut then_limit = None;
        if has_limit_by && parser.parse_keyword(datafusion::sql::sqlparser::keywords::Keyword::LIMIT) {
            let syntax = |e: datafusion::sql::sqlparser::parser::ParserError| Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {e}"));
            let first = parser.parse_expr().map_err(syntax)?;
            let (limit, offset) = if parser.consume_token(&Token::Comma) {
                (parser.parse_expr().map_err(syntax)?, Some(first))
            } else if parser.parse_keyword(datafusion::sql::sqlparser::keywords::Keyword::OFFSET) {
                (first, Some(parser.parse_expr().map_err(syntax)?))
            } else {
                (first, None)
            };
            then_limit = Some((crate::rewrite::limit_number(Some(&limit), "LIMIT")?, crate::rewrite::limit_number(offset.as_ref(), "OFFSET")?));
        }
        if parser.peek_token().token != Token::EOF {
            if parser.peek_token().token == Token::SemiColon {
                return Err(Error::new(ErrorCode::SYNTAX_ERROR, "Multi-statements are not allowed"));
            }
            return Err(Error::new(
                ErrorCode::SYNTAX_ERROR,
                format!("Syntax error: unexpected {} after the end of the query", parser.peek_token().token),
            ));
        }
        crate::join_strictness::apply_strictness(&mut query, &strictness)?;
        settings.extend(take_settings(&mut query)?);
        if final_seen {
            // ClickHouse's `final` setting means FINAL on every table of the query; the
            // engines read it from the query settings.
            settings.push(("final".to_string(), "1".to_string()));
        }
        if format.is_none() {
            format = match query.format_clause.take() {
                Some(FormatClause::Identifier(ident)) => Some(ident.value),
                Some(FormatClause::Null) => Some("Null".to_string()),
                None => None,
            };
        }
        let mut limit_by = rewrite_query(&mut query, &options.rewrite)?;
        if let Some(spec) = limit_by.as_mut() {
            spec.then = then_limit;
            if let Some(offset) = limit_by_offset {
                spec.offset = offset;
            }
        }
        Ok((query, limit_by, settings, format))
    }

    fn statement(&mut self, options: &ParseOptions<'_>) -> Result<StatementWithClauses> {
        let plain = |statement| StatementWithClauses { statement, settings: Vec::new(), format: None };
        let first = self.peek().and_then(|l| l.keyword_text()).unwrap_or_default();
        let starts_query = first == "SELECT" || first == "WITH" || self.peek_token(&Token::LParen);
        if starts_query {
            let (query, limit_by, settings, format) = self.rest_as_query(options)?;
            return Ok(StatementWithClauses { statement: Statement::Query { query, limit_by }, settings, format });
        }
        let statement = match first.as_str() {
            "INSERT" => return self.insert(options),
            "GRANT" => self.grant()?,
            "REVOKE" => self.revoke()?,
            "ALTER" if self.lx.get(self.pos + 1).is_some_and(|l| l.is_keyword("USER")) => {
                self.pos += 2;
                self.alter_user()?
            }
            "ALTER" if self.lx.get(self.pos + 1).is_some_and(|l| l.is_keyword("NAMED")) => {
                self.pos += 2;
                self.expect("COLLECTION")?;
                self.alter_named_collection()?
            }
            "ATTACH" => match self.attach()? {
                Some(statement) => statement,
                None => return self.create(options),
            },
            "CREATE" | "REPLACE" => return self.create(options),
            "DROP" | "DETACH" => self.drop()?,
            "RENAME" => self.rename()?,
            "EXCHANGE" => self.exchange()?,
            "TRUNCATE" => {
                self.pos += 1;
                self.eat("TEMPORARY");
                self.eat("TABLE");
                let if_exists = self.eat_seq(&["IF", "EXISTS"]);
                let name = self.table_name()?;
                self.skip_on_cluster()?;
                Statement::TruncateTable { name, if_exists }
            }
            "SHOW" => return self.show(options),
            "DESCRIBE" | "DESC" => {
                self.pos += 1;
                self.eat("TABLE");
                if self.peek_token(&Token::LParen) || self.peek_is("SELECT") || self.peek_is("WITH") {
                    let (query, _, settings, format) = self.rest_as_query(options)?;
                    return Ok(StatementWithClauses { statement: Statement::DescribeQuery { query }, settings, format });
                }
                // `DESCRIBE [TABLE] file(...)`: a table function is described through the
                // query `SELECT * FROM file(...)`, whose planning infers the structure.
                if matches!(self.lx.get(self.pos).map(|l| &l.token), Some(Token::Word(_)))
                    && matches!(self.lx.get(self.pos + 1).map(|l| &l.token), Some(Token::LParen))
                {
                    let start = self.lx[self.pos].start;
                    let text = format!("SELECT * FROM {}", &self.sql[start..]);
                    let lexemes = lex(&text)?;
                    let mut cursor = Cursor { sql: &text, lx: &lexemes, pos: 0 };
                    let (query, _, settings, format) = cursor.rest_as_query(options)?;
                    return Ok(StatementWithClauses { statement: Statement::DescribeQuery { query }, settings, format });
                }
                let name = self.table_name()?;
                return self.finish_with_format(Statement::DescribeTable(name));
            }
            "EXISTS" => {
                self.pos += 1;
                if self.eat("DATABASE") {
                    let name = self.ident()?;
                    return self.finish_with_format(Statement::ExistsDatabase(name));
                }
                self.eat("TEMPORARY");
                let _ = self.eat("TABLE") || self.eat("VIEW") || self.eat("DICTIONARY");
                let name = self.table_name()?;
                return self.finish_with_format(Statement::ExistsTable(name));
            }
            "USE" => {
                self.pos += 1;
                Statement::Use(self.ident()?)
            }
            "SET" => {
                self.pos += 1;
                Statement::Set(self.assignments()?)
            }
            "OPTIMIZE" => {
                self.pos += 1;
                self.expect("TABLE")?;
                let name = self.table_name()?;
                self.skip_on_cluster()?;
                let partition = if self.eat("PARTITION") {
                    self.raw_until(|l| l.is_keyword("FINAL") || l.is_keyword("CLEANUP") || l.is_keyword("DEDUPLICATE") || l.is_keyword("SETTINGS"))
                } else {
                    None
                };
                let final_ = self.eat("FINAL");
                let cleanup = self.eat("CLEANUP");
                if !cleanup && self.eat("DEDUPLICATE") {
                    let _ = self.raw_until(|l| l.is_keyword("SETTINGS"));
                }
                return self.finish_with_format(Statement::Optimize { name, partition, final_, cleanup });
            }
            "CHECK" => {
                self.pos += 1;
                self.expect("TABLE")?;
                let name = self.table_name()?;
                let partition = if self.eat("PARTITION") { self.raw_until(|l| l.is_keyword("SETTINGS") || l.is_keyword("FORMAT")) } else { None };
                return self.finish_with_format(Statement::CheckTable { name, partition });
            }
            "ALTER" => return self.alter(),
            "DELETE" => {
                self.pos += 1;
                self.expect("FROM")?;
                let name = self.table_name()?;
                self.skip_on_cluster()?;
                self.expect("WHERE")?;
                let predicate = self.raw_until(|l| l.is_keyword("SETTINGS")).ok_or_else(|| self.syntax_error("expression"))?;
                let mut settings = Vec::new();
                if self.eat("SETTINGS") {
                    settings = self.assignments()?;
                }
                self.expect_end()?;
                return Ok(StatementWithClauses { statement: Statement::Alter { name, commands: vec![AlterCommand::LightweightDelete(predicate)] }, settings, format: None });
            }
            "KILL" => {
                self.pos += 1;
                self.expect("MUTATION")?;
                self.skip_on_cluster()?;
                self.expect("WHERE")?;
                let modifier = |l: &Lexeme| ["SYNC", "ASYNC", "TEST", "FORMAT", "SETTINGS"].iter().any(|k| l.is_keyword(k));
                let condition = self.raw_until(modifier).ok_or_else(|| self.syntax_error("a condition"))?;
                let test = self.eat("TEST");
                if !test && !self.eat("SYNC") {
                    self.eat("ASYNC");
                }
                return self.finish_with_format(Statement::KillMutation { condition, test });
            }
            "EXPLAIN" => {
                self.pos += 1;
                let kind = match self.peek().and_then(|l| l.keyword_text()).as_deref() {
                    Some(k @ ("PLAN" | "SYNTAX" | "AST" | "PIPELINE" | "ESTIMATE" | "QUERY")) => {
                        let k = k.to_string();
                        self.pos += 1;
                        if k == "QUERY" {
                            self.expect("TREE")?;
                        }
                        k
                    }
                    _ => "PLAN".to_string(),
                };
                let mut explain_options = Vec::new();
                while matches!(self.lx.get(self.pos + 1).map(|l| &l.token), Some(Token::Eq)) {
                    let name = self.ident()?;
                    self.pos += 1;
                    explain_options.push((name, self.literal_text()?));
                    self.eat_token(&Token::Comma);
                }
                let (query, _, settings, format) = self.rest_as_query(options)?;
                return Ok(StatementWithClauses { statement: Statement::Explain { kind, options: explain_options, query }, settings, format });
            }
            "SYSTEM" => {
                self.pos += 1;
                let command = self.raw_until(|_| false).unwrap_or_default();
                Statement::System { command }
            }
            _ => return Err(self.syntax_error("one of: SELECT, WITH, INSERT, CREATE, DROP, RENAME, TRUNCATE, SHOW, DESCRIBE, EXISTS, USE, SET, OPTIMIZE, CHECK, ALTER, DELETE, KILL, EXPLAIN, SYSTEM")),
        };
        self.expect_end()?;
        Ok(plain(statement))
    }

    /// For statements that produce a result: an optional `FORMAT X` at the end.
    fn finish_with_format(&mut self, statement: Statement) -> Result<StatementWithClauses> {
        let mut settings = Vec::new();
        if self.eat("SETTINGS") {
            settings = self.assignments()?;
        }
        let format = if self.eat("FORMAT") { Some(self.ident()?) } else { None };
        self.expect_end()?;
        Ok(StatementWithClauses { statement, settings, format })
    }

    /// `ALTER TABLE t [ON CLUSTER c] cmd [, cmd ...] [SETTINGS ...]`.
    fn alter(&mut self) -> Result<StatementWithClauses> {
        self.pos += 1;
        self.expect("TABLE")?;
        let name = self.table_name()?;
        self.skip_on_cluster()?;
        let mut commands = Vec::new();
        let stop = |l: &Lexeme| l.token == Token::Comma || l.is_keyword("SETTINGS");
        loop {
            let partition = |p: &mut Self| -> Result<String> {
                p.expect("PARTITION")?;
                p.raw_until(stop).ok_or_else(|| p.syntax_error("partition expression"))
            };
            let command = if self.peek_is("DROP") && self.lx.get(self.pos + 1).is_some_and(|l| l.is_keyword("PARTITION")) {
                self.pos += 1;
                AlterCommand::DropPartition(partition(self)?)
            } else if self.eat("DETACH") {
                AlterCommand::DetachPartition(partition(self)?)
            } else if self.eat("ATTACH") {
                AlterCommand::AttachPartition(partition(self)?)
            } else if self.eat("DELETE") {
                self.expect("WHERE")?;
                AlterCommand::Delete(self.raw_until(stop).ok_or_else(|| self.syntax_error("expression"))?)
            } else if self.eat("UPDATE") {
                let mut assignments = Vec::new();
                loop {
                    let column = self.ident()?;
                    self.expect_token(&Token::Eq, "'='")?;
                    let value = self.raw_until(|l: &Lexeme| l.token == Token::Comma || l.is_keyword("WHERE")).ok_or_else(|| self.syntax_error("expression"))?;
                    assignments.push((column, value));
                    if !self.eat_token(&Token::Comma) {
                        break;
                    }
                }
                self.expect("WHERE")?;
                AlterCommand::Update(assignments, self.raw_until(stop).ok_or_else(|| self.syntax_error("expression"))?)
            } else if let Some(command) = self.alter_column_command(&stop)? {
                command
            } else {
                return Err(self.syntax_error("DROP PARTITION, DETACH PARTITION, ATTACH PARTITION, DELETE WHERE, UPDATE, ADD/DROP/RENAME/MODIFY/COMMENT/CLEAR COLUMN, ADD/DROP/MATERIALIZE/CLEAR INDEX, MODIFY COMMENT or MODIFY/RESET SETTING"));
            };
            commands.push(command);
            if !self.eat_token(&Token::Comma) {
                break;
            }
        }
        let settings = if self.eat("SETTINGS") { self.assignments()? } else { Vec::new() };
        self.expect_end()?;
        Ok(StatementWithClauses { statement: Statement::Alter { name, commands }, settings, format: None })
    }

    /// `FIRST | AFTER name` after ADD COLUMN / ADD INDEX, or nothing (last).
    fn column_position(&mut self) -> Result<ColumnPosition> {
        Ok(if self.eat("FIRST") {
            ColumnPosition::First
        } else if self.eat("AFTER") {
            ColumnPosition::After(self.ident()?)
        } else {
            ColumnPosition::Last
        })
    }

    /// The column, comment and setting commands of ALTER TABLE; `None` when the next
    /// tokens start none of them.
    fn alter_column_command(&mut self, stop: &dyn Fn(&Lexeme) -> bool) -> Result<Option<AlterCommand>> {
        if self.eat_seq(&["ADD", "COLUMN"]) {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            let column = self.column_until(&["FIRST", "AFTER"])?;
            let position = self.column_position()?;
            return Ok(Some(AlterCommand::AddColumn { column, if_not_exists, position }));
        }
        if self.eat_seq(&["DROP", "COLUMN"]) {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            return Ok(Some(AlterCommand::DropColumn { name: self.ident()?, if_exists }));
        }
        if self.eat_seq(&["RENAME", "COLUMN"]) {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            let from = self.ident()?;
            self.expect("TO")?;
            return Ok(Some(AlterCommand::RenameColumn { from, to: self.ident()?, if_exists }));
        }
        if self.eat_seq(&["COMMENT", "COLUMN"]) {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            let name = self.ident()?;
            return Ok(Some(AlterCommand::CommentColumn { name, comment: self.string_literal()?, if_exists }));
        }
        if self.eat_seq(&["CLEAR", "COLUMN"]) {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            let name = self.ident()?;
            let partition = if self.eat_seq(&["IN", "PARTITION"]) { Some(self.raw_until(stop).ok_or_else(|| self.syntax_error("partition expression"))?) } else { None };
            return Ok(Some(AlterCommand::ClearColumn { name, partition, if_exists }));
        }
        if self.eat_seq(&["ADD", "CONSTRAINT"]) {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            return Ok(Some(AlterCommand::AddConstraint { constraint: self.constraint_body()?, if_not_exists }));
        }
        if self.eat_seq(&["DROP", "CONSTRAINT"]) {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            return Ok(Some(AlterCommand::DropConstraint { name: self.ident()?, if_exists }));
        }
        if self.eat_seq(&["MODIFY", "TTL"]) {
            // The rules are a comma-separated list: the rest of the ALTER is theirs.
            return Ok(Some(AlterCommand::ModifyTtl(self.raw_until(|l| l.is_keyword("SETTINGS")).ok_or_else(|| self.syntax_error("TTL expression"))?)));
        }
        if self.eat_seq(&["REMOVE", "TTL"]) {
            return Ok(Some(AlterCommand::RemoveTtl));
        }
        if self.eat_seq(&["MATERIALIZE", "COLUMN"]) {
            let name = self.ident()?;
            let partition = if self.eat_seq(&["IN", "PARTITION"]) { Some(self.raw_until(stop).ok_or_else(|| self.syntax_error("partition expression"))?) } else { None };
            return Ok(Some(AlterCommand::MaterializeColumn { name, partition }));
        }
        if self.eat_seq(&["MATERIALIZE", "TTL"]) {
            let partition = if self.eat_seq(&["IN", "PARTITION"]) { Some(self.raw_until(stop).ok_or_else(|| self.syntax_error("partition expression"))?) } else { None };
            return Ok(Some(AlterCommand::MaterializeTtl(partition)));
        }
        if self.eat_seq(&["ADD", "INDEX"]) {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            let index = self.index_spec()?;
            let position = self.column_position()?;
            return Ok(Some(AlterCommand::AddIndex { index, if_not_exists, position }));
        }
        if self.eat_seq(&["DROP", "INDEX"]) {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            return Ok(Some(AlterCommand::DropIndex { name: self.ident()?, if_exists }));
        }
        for (verb, clear) in [("MATERIALIZE", false), ("CLEAR", true)] {
            if self.eat_seq(&[verb, "INDEX"]) {
                let if_exists = self.eat_seq(&["IF", "EXISTS"]);
                let name = self.ident()?;
                let partition = if self.eat_seq(&["IN", "PARTITION"]) { Some(self.raw_until(stop).ok_or_else(|| self.syntax_error("partition expression"))?) } else { None };
                return Ok(Some(match clear {
                    true => AlterCommand::ClearIndex { name, partition, if_exists },
                    false => AlterCommand::MaterializeIndex { name, partition, if_exists },
                }));
            }
        }
        if self.eat_seq(&["MODIFY", "COMMENT"]) {
            return Ok(Some(AlterCommand::ModifyComment(self.string_literal()?)));
        }
        if self.eat_seq(&["MODIFY", "SAMPLE", "BY"]) {
            return Ok(Some(AlterCommand::ModifySampleBy(self.raw_until(stop).ok_or_else(|| self.syntax_error("expression"))?)));
        }
        if self.eat_seq(&["REMOVE", "SAMPLE", "BY"]) {
            return Ok(Some(AlterCommand::RemoveSampleBy));
        }
        if self.eat_seq(&["MODIFY", "SETTING"]) {
            return Ok(Some(AlterCommand::ModifySetting(self.assignments()?)));
        }
        if self.eat_seq(&["RESET", "SETTING"]) {
            let mut names = vec![self.ident()?];
            while self.eat_token(&Token::Comma) {
                names.push(self.ident()?);
            }
            return Ok(Some(AlterCommand::ResetSetting(names)));
        }
        if self.eat_seq(&["MODIFY", "COLUMN"]) {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            let name = self.ident()?;
            let mut change = ColumnChange { name, ..ColumnChange::default() };
            if self.eat("REMOVE") {
                change.remove = Some(self.ident()?.to_ascii_uppercase());
                return Ok(Some(AlterCommand::ModifyColumn { change, if_exists }));
            }
            const KEYWORDS: [&str; 8] = ["DEFAULT", "MATERIALIZED", "ALIAS", "EPHEMERAL", "COMMENT", "CODEC", "TTL", "SETTINGS"];
            let starts_option = |p: &Self| p.peek().is_none_or(|l| l.token == Token::Comma || KEYWORDS.iter().any(|k| l.is_keyword(k)));
            if !starts_option(self) {
                let text = self.raw_until(|l| l.token == Token::Comma || KEYWORDS.iter().any(|k| l.is_keyword(k))).ok_or_else(|| self.syntax_error("column type"))?;
                change.ch_type = Some(ChType::parse(&text)?);
            }
            loop {
                if let Some(kind) = ["DEFAULT", "MATERIALIZED", "ALIAS", "EPHEMERAL"].into_iter().find(|k| self.peek_is(k)) {
                    self.pos += 1;
                    let expr = self.raw_until(|l| l.token == Token::Comma || ["COMMENT", "CODEC", "TTL", "SETTINGS"].iter().any(|k| l.is_keyword(k))).ok_or_else(|| self.syntax_error("expression"))?;
                    change.default = Some((kind.to_string(), expr));
                } else if self.eat("COMMENT") {
                    change.comment = Some(self.string_literal()?);
                } else if self.peek_is("CODEC") {
                    change.codec = Some(self.codec_text()?);
                } else if self.eat("TTL") {
                    change.ttl = Some(self.raw_until(|l| l.token == Token::Comma || ["COMMENT", "CODEC", "SETTINGS"].iter().any(|k| l.is_keyword(k))).ok_or_else(|| self.syntax_error("TTL expression"))?);
                } else {
                    break;
                }
            }
            return Ok(Some(AlterCommand::ModifyColumn { change, if_exists }));
        }
        Ok(None)
    }

    /// `CODEC(...)` as written.
    fn codec_text(&mut self) -> Result<String> {
        let start = self.pos;
        self.pos += 1;
        self.expect_token(&Token::LParen, "'('")?;
        self.raw_until(|_| false);
        self.expect_token(&Token::RParen, "')'")?;
        Ok(self.sql[self.lx[start].start..self.lx[self.pos - 1].end].to_string())
    }

    fn skip_on_cluster(&mut self) -> Result<()> {
        if self.eat_seq(&["ON", "CLUSTER"]) {
            self.ident()?;
        }
        Ok(())
    }

    fn insert(&mut self, options: &ParseOptions<'_>) -> Result<StatementWithClauses> {
        self.expect("INSERT")?;
        self.expect("INTO")?;
        self.eat("TABLE");
        let mut target = if self.eat("FUNCTION") { InsertTarget::Function(self.table_function_call()?) } else { InsertTarget::Table(self.table_name()?) };
        let mut columns = Vec::new();
        if self.eat_token(&Token::LParen) {
            loop {
                // `n.a`: a subcolumn of a Nested column, stored as the column `n.a`.
                let mut column = self.ident()?;
                while self.eat_token(&Token::Period) {
                    column = format!("{column}.{}", self.ident()?);
                }
                columns.push(column);
                if self.eat_token(&Token::RParen) {
                    break;
                }
                self.expect_token(&Token::Comma, "',' or ')'")?;
            }
        }
        if let InsertTarget::Function(call) = &mut target {
            if self.eat_seq(&["PARTITION", "BY"]) {
                const SOURCE_START: [&str; 5] = ["SELECT", "WITH", "VALUES", "FORMAT", "SETTINGS"];
                call.partition_by = Some(self.raw_until(|l| SOURCE_START.iter().any(|k| l.is_keyword(k))).ok_or_else(|| self.syntax_error("partition expression"))?);
            }
        }
        let mut settings = Vec::new();
        if self.eat("SETTINGS") {
            settings = self.assignments()?;
        }
        let source = if let Some(values) = self.peek().filter(|l| l.is_keyword("VALUES")) {
            self.pos = self.lx.len();
            InsertSource::Data { format: "Values".to_string(), data_offset: values.end }
        } else if self.eat("FORMAT") {
            let name_lexeme = self.peek().ok_or_else(|| self.syntax_error("format name"))?;
            let format = self.ident()?;
            self.expect_end()?;
            InsertSource::Data { format, data_offset: data_start(self.sql, name_lexeme.end) }
        } else if self.peek_is("SELECT") || self.peek_is("WITH") || self.peek_token(&Token::LParen) {
            let (query, limit_by, query_settings, input_format) = self.rest_as_query(options)?;
            settings.extend(query_settings);
            let data_offset = match (input_format.is_some(), self.lx.last()) {
                (true, Some(name)) => data_start(self.sql, name.end),
                _ => self.sql.len(),
            };
            InsertSource::Select { query, limit_by, input_format, data_offset }
        } else {
            return Err(self.syntax_error("VALUES, FORMAT or SELECT"));
        };
        Ok(StatementWithClauses {
            statement: Statement::Insert(InsertStatement { target, columns, source, settings: settings.clone() }),
            settings,
            format: None,
        })
    }

    fn create(&mut self, options: &ParseOptions<'_>) -> Result<StatementWithClauses> {
        let replace_only = self.peek_is("REPLACE");
        self.pos += 1; // CREATE / ATTACH / REPLACE
        if replace_only && !self.peek_is("TABLE") {
            return Err(self.syntax_error("TABLE"));
        }
        if self.eat_seq(&["NAMED", "COLLECTION"]) {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            let name = self.ident()?;
            self.skip_on_cluster()?;
            self.expect("AS")?;
            let entries = self.named_collection_entries()?;
            self.expect_end()?;
            return Ok(StatementWithClauses { statement: Statement::CreateNamedCollection { name, if_not_exists, entries }, settings: Vec::new(), format: None });
        }
        let or_replace = replace_only || self.eat_seq(&["OR", "REPLACE"]);
        if let Some(statement) = self.create_access(or_replace)? {
            return Ok(StatementWithClauses { statement, settings: Vec::new(), format: None });
        }
        if self.eat("FUNCTION") {
            let statement = Statement::CreateFunction(self.sql_function(or_replace)?);
            return Ok(StatementWithClauses { statement, settings: Vec::new(), format: None });
        }
        let temporary = self.eat("TEMPORARY");
        if self.eat("DATABASE") {
            let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
            let name = self.ident()?;
            self.skip_on_cluster()?;
            let engine = if self.eat("ENGINE") {
                self.expect_token(&Token::Eq, "'='")?;
                let name = self.ident()?;
                if self.peek_token(&Token::LParen) {
                    self.raw_until(|_| false);
                }
                Some(name)
            } else {
                None
            };
            if self.eat("COMMENT") {
                self.string_literal()?;
            }
            self.expect_end()?;
            return Ok(StatementWithClauses {
                statement: Statement::CreateDatabase { name, if_not_exists, engine },
                settings: Vec::new(),
                format: None,
            });
        }
        if self.eat("DICTIONARY") {
            let dictionary = self.create_dictionary(or_replace)?;
            return Ok(StatementWithClauses { statement: Statement::CreateDictionary(Box::new(dictionary)), settings: Vec::new(), format: None });
        }
        let materialized = self.eat("MATERIALIZED");
        if materialized || self.peek_is("VIEW") {
            self.expect("VIEW")?;
            let view = self.create_view(or_replace, materialized, options)?;
            return Ok(StatementWithClauses { statement: Statement::CreateView(Box::new(view)), settings: Vec::new(), format: None });
        }
        if self.peek_is("LIVE") || self.peek_is("WINDOW") {
            return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "LIVE VIEW and WINDOW VIEW are not supported (ClickHouse deprecated them)"));
        }
        if !self.eat("TABLE") {
            return Err(self.syntax_error("DATABASE, TABLE, VIEW or DICTIONARY"));
        }
        let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
        let name = self.table_name()?;
        self.skip_on_cluster()?;
        let mut create = CreateTable {
            name,
            if_not_exists,
            or_replace,
            replace_only,
            columns: Vec::new(),
            engine: None,
            as_table: None,
            as_select: None,
            comment: None,
            constraints: Vec::new(),
            temporary,
            indices: Vec::new(),
        };
        let mut primary_key = None;
        if self.eat_token(&Token::LParen) {
            let list = self.column_list()?;
            (create.columns, create.constraints, create.indices, primary_key) = (list.columns, list.constraints, list.indices, list.primary_key);
        }
        if self.peek_is("AS") && !self.lx.get(self.pos + 1).is_some_and(|l| l.is_keyword("SELECT") || l.is_keyword("WITH") || l.token == Token::LParen) {
            self.pos += 1;
            create.as_table = Some(self.table_name()?);
        }
        if self.eat("ENGINE") {
            self.eat_token(&Token::Eq);
            create.engine = Some(self.engine_spec()?);
        } else if ["ORDER", "PARTITION", "PRIMARY", "SAMPLE", "TTL"].iter().any(|k| self.peek_is(k)) {
            // An empty name: the interpreter takes the default engine.
            create.engine = Some(self.engine_clauses(EngineSpec::default())?);
        }
        if let Some(key) = primary_key {
            // ClickHouse's: the key of the column list is the engine's PRIMARY KEY, and its
            // sorting key when there is no ORDER BY.
            // No ENGINE: an empty name, the interpreter takes the default engine.
            let engine = create.engine.get_or_insert_with(EngineSpec::default);
            if engine.primary_key.is_some() {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Multiple primary keys are not allowed."));
            }
            if engine.order_by.is_none() {
                engine.order_by = Some(key.clone());
            }
            engine.primary_key = Some(key);
        }
        loop {
            if self.eat("COMMENT") {
                create.comment = Some(self.string_literal()?);
            } else if self.peek_is("AS") {
                self.pos += 1;
                let (query, limit_by, _, _) = self.rest_as_query(options)?;
                create.as_select = Some((query, limit_by));
            } else {
                break;
            }
        }
        self.expect_end()?;
        if create.columns.is_empty() && create.as_table.is_none() && create.as_select.is_none() {
            return Err(Error::new(ErrorCode::INCORRECT_QUERY, "Table must have at least one column, or AS table, or AS SELECT"));
        }
        Ok(StatementWithClauses { statement: Statement::CreateTable(Box::new(create)), settings: Vec::new(), format: None })
    }

    fn create_view(&mut self, or_replace: bool, materialized: bool, options: &ParseOptions<'_>) -> Result<CreateView> {
        let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
        let name = self.table_name()?;
        self.skip_on_cluster()?;
        let mut to = None;
        if materialized && self.eat("TO") {
            to = Some(self.table_name()?);
        }
        let mut columns = Vec::new();
        if self.eat_token(&Token::LParen) {
            columns = self.column_list()?.columns;
        }
        let mut engine = None;
        let mut populate = false;
        let mut comment = None;
        loop {
            if materialized && self.eat("ENGINE") {
                self.eat_token(&Token::Eq);
                engine = Some(self.engine_spec()?);
            } else if materialized && self.eat("POPULATE") {
                populate = true;
            } else if materialized && self.eat("EMPTY") {
            } else if self.eat("COMMENT") {
                comment = Some(self.string_literal()?);
            } else if self.eat("DEFINER") {
                // Views run with the rights of the user who queries them or inserts
                // into their source; the definer is accepted and not used.
                self.expect_token(&Token::Eq, "'='")?;
                self.ident()?;
            } else if self.eat_seq(&["SQL", "SECURITY"]) {
                self.ident()?;
            } else if self.peek_is("REFRESH") {
                return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Refreshable materialized views (REFRESH) are not supported yet"));
            } else {
                break;
            }
        }
        if to.is_some() && engine.is_some() {
            return Err(Error::new(ErrorCode::INCORRECT_QUERY, "Cannot specify both TO and ENGINE for a materialized view"));
        }
        self.expect("AS")?;
        let start = self.pos;
        let mut end = self.lx.len();
        // `AS SELECT ... COMMENT 'text'`: the comment follows the query.
        if end >= start + 2 && self.lx[end - 2].is_keyword("COMMENT") && matches!(self.lx[end - 1].token, Token::SingleQuotedString(_)) {
            let mut cursor = Cursor { sql: self.sql, lx: &self.lx[end - 1..], pos: 0 };
            comment = Some(cursor.string_literal()?);
            end -= 2;
        }
        if end <= start {
            return Err(self.syntax_error("SELECT"));
        }
        let query_text = self.sql[self.lx[start].start..self.lx[end - 1].end].to_string();
        self.pos = self.lx.len();
        let parameters = crate::params::placeholder_names(&query_text)?;
        if materialized && !parameters.is_empty() {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Materialized views cannot have query parameters"));
        }
        // A parameterized view's query is checked for syntax with `0` in each placeholder
        // (an Identifier parameter with a placeholder name); it is planned once parameters
        // are given.
        let parsable = crate::params::substitute_with(&query_text, |name, type_text| {
            Ok(if type_text.eq_ignore_ascii_case("Identifier") { format!("`__parameter_{name}`") } else { "0".to_string() })
        })?;
        let parsable = parsable.unwrap_or_else(|| query_text.clone());
        let lexemes = lex(&parsable)?;
        let mut cursor = Cursor { sql: &parsable, lx: &lexemes, pos: 0 };
        if !cursor.peek().is_some_and(|l| l.is_keyword("SELECT") || l.is_keyword("WITH") || l.token == Token::LParen) {
            return Err(cursor.syntax_error("SELECT"));
        }
        let (query, limit_by, settings, format) = cursor.rest_as_query(options)?;
        if format.is_some() {
            return Err(Error::new(ErrorCode::SYNTAX_ERROR, "FORMAT is not allowed in the query of a view"));
        }
        if !settings.is_empty() {
            return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "SETTINGS inside the query of a view are not supported yet"));
        }
        Ok(CreateView { name, if_not_exists, or_replace, materialized, columns, to, engine, populate, query_text, query, limit_by, parameters, comment })
    }

    fn create_dictionary(&mut self, or_replace: bool) -> Result<CreateDictionary> {
        const ATTRIBUTE_KEYWORDS: [&str; 5] = ["DEFAULT", "EXPRESSION", "HIERARCHICAL", "INJECTIVE", "IS_OBJECT_ID"];
        let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
        let name = self.table_name()?;
        self.skip_on_cluster()?;
        let mut dictionary = CreateDictionary {
            name,
            if_not_exists,
            or_replace,
            attributes: Vec::new(),
            primary_key: Vec::new(),
            source: None,
            layout: None,
            lifetime: None,
            range: None,
            comment: None,
            hierarchical: Vec::new(),
        };
        self.expect_token(&Token::LParen, "'('")?;
        loop {
            let name = self.ident()?;
            let type_text = self
                .raw_until(|l| l.token == Token::Comma || ATTRIBUTE_KEYWORDS.iter().any(|k| l.is_keyword(k)))
                .ok_or_else(|| self.syntax_error("attribute type"))?;
            let ch_type = ChType::parse(&type_text)?;
            let mut spec = ColumnSpec { name, ch_type, default_kind: None, default_expression: None, codec: None, comment: None, primary_key: false, ttl: None };
            loop {
                if self.eat("DEFAULT") {
                    spec.default_kind = Some("DEFAULT".to_string());
                    spec.default_expression = self.raw_until(|l| l.token == Token::Comma || ATTRIBUTE_KEYWORDS.iter().any(|k| l.is_keyword(k)));
                } else if self.eat("EXPRESSION") {
                    return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "Dictionary attribute EXPRESSION is not supported yet"));
                } else if self.eat("HIERARCHICAL") {
                    dictionary.hierarchical.push(spec.name.clone());
                } else if self.eat("INJECTIVE") || self.eat("IS_OBJECT_ID") {
                    // Hints for query optimisation; lookups do not depend on them.
                } else {
                    break;
                }
            }
            dictionary.attributes.push(spec);
            if self.eat_token(&Token::RParen) {
                break;
            }
            self.expect_token(&Token::Comma, "',' or ')'")?;
        }
        loop {
            if self.eat_seq(&["PRIMARY", "KEY"]) {
                loop {
                    dictionary.primary_key.push(self.ident()?);
                    if !self.eat_token(&Token::Comma) {
                        break;
                    }
                }
            } else if self.eat("SOURCE") {
                dictionary.source = Some(self.dictionary_clause()?);
            } else if self.eat("LAYOUT") {
                dictionary.layout = Some(self.dictionary_clause()?);
            } else if self.eat("LIFETIME") {
                self.expect_token(&Token::LParen, "'('")?;
                let number = |p: &mut Self| -> Result<u64> {
                    let text = p.literal_text()?;
                    text.parse().map_err(|_| Error::new(ErrorCode::SYNTAX_ERROR, format!("Expected a number in LIFETIME, got {text}")))
                };
                let (mut min, mut max) = (0, 0);
                if self.peek_is("MIN") || self.peek_is("MAX") {
                    while !self.eat_token(&Token::RParen) {
                        if self.eat("MIN") {
                            min = number(self)?;
                        } else if self.eat("MAX") {
                            max = number(self)?;
                        } else {
                            return Err(self.syntax_error("MIN, MAX or ')'"));
                        }
                    }
                } else {
                    max = number(self)?;
                    self.expect_token(&Token::RParen, "')'")?;
                }
                dictionary.lifetime = Some((min, max));
            } else if self.eat("RANGE") {
                self.expect_token(&Token::LParen, "'('")?;
                self.expect("MIN")?;
                let min = self.ident()?;
                self.expect("MAX")?;
                let max = self.ident()?;
                self.expect_token(&Token::RParen, "')'")?;
                dictionary.range = Some((min, max));
            } else if self.eat("SETTINGS") {
                self.expect_token(&Token::LParen, "'('")?;
                self.raw_until(|_| false);
                self.expect_token(&Token::RParen, "')'")?;
            } else if self.eat("COMMENT") {
                dictionary.comment = Some(self.string_literal()?);
            } else {
                break;
            }
        }
        self.expect_end()?;
        if dictionary.primary_key.is_empty() {
            return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Cannot create dictionary with empty primary key"));
        }
        Ok(dictionary)
    }

    /// `(NAME(KEY value ...))` of SOURCE and LAYOUT; nested clauses (`credentials(...)`)
    /// are kept as their text.
    fn dictionary_clause(&mut self) -> Result<DictionaryClauseSpec> {
        self.expect_token(&Token::LParen, "'('")?;
        let name = self.ident()?.to_ascii_uppercase();
        let mut params = Vec::new();
        if self.eat_token(&Token::LParen) {
            while !self.eat_token(&Token::RParen) {
                let key = self.ident()?.to_ascii_uppercase();
                let start = self.pos;
                self.eat_token(&Token::Minus);
                let value = match self.peek().map(|l| &l.token) {
                    Some(Token::LParen) => {
                        self.pos += 1;
                        let inner = self.raw_until(|_| false).unwrap_or_default();
                        self.expect_token(&Token::RParen, "')'")?;
                        format!("({inner})")
                    }
                    Some(Token::Number(..) | Token::SingleQuotedString(_) | Token::Word(_)) => {
                        self.pos += 1;
                        self.sql[self.lx[start].start..self.lx[self.pos - 1].end].to_string()
                    }
                    _ => return Err(self.syntax_error("a value")),
                };
                params.push((key, value));
            }
        }
        self.expect_token(&Token::RParen, "')'")?;
        Ok(DictionaryClauseSpec { name, params })
    }

    /// `n Nested(a T, b U)`: held as the column `n` of type `Tuple(a Array(T), b Array(U))`
    /// until [`nested_columns`] flattens it (ClickHouse's `flatten_nested = 1`).
    fn nested_column(&mut self) -> Result<ColumnSpec> {
        let name = self.ident()?;
        self.pos += 2;
        let mut elements = Vec::new();
        loop {
            let element = self.ident()?;
            let type_text = self
                .raw_until(|l| l.token == Token::Comma)
                .ok_or_else(|| self.syntax_error("the type of a Nested element"))?;
            elements.push((element, ChType::Array(Box::new(ChType::parse(&type_text)?))));
            if self.eat_token(&Token::RParen) {
                break;
            }
            self.expect_token(&Token::Comma, "',' or ')'")?;
        }
        if !matches!(self.peek().map(|l| &l.token), None | Some(Token::Comma | Token::RParen)) {
            return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, format!("Column options of the Nested column {name} are not supported")));
        }
        Ok(ColumnSpec { name, ch_type: ChType::Tuple(elements), default_kind: Some(NESTED_MARK.to_string()), default_expression: None, codec: None, comment: None, primary_key: false, ttl: None })
    }

    /// `name CHECK|ASSUME expr` after `CONSTRAINT`.
    fn constraint_body(&mut self) -> Result<ConstraintSpec> {
        let name = self.ident()?;
        let kind = match () {
            _ if self.eat("CHECK") => "CHECK",
            _ if self.eat("ASSUME") => "ASSUME",
            _ => return Err(self.syntax_error("CHECK or ASSUME")),
        };
        let expression = self.raw_until(|l| l.token == Token::Comma || l.is_keyword("SETTINGS")).ok_or_else(|| self.syntax_error("constraint expression"))?;
        Ok(ConstraintSpec { name, kind: kind.to_string(), expression })
    }

    /// The columns, the constraints, the data-skipping indexes, and the primary key (`PRIMARY KEY expr` in the list,
    /// or the columns declared `PRIMARY KEY`: `tuple(a)`, `(a, b)`).
    fn column_list(&mut self) -> Result<ColumnList> {
        let mut columns: Vec<ColumnSpec> = Vec::new();
        let mut constraints = Vec::new();
        let mut indices = Vec::new();
        let mut primary_key: Option<String> = None;
        loop {
            if self.eat("CONSTRAINT") {
                constraints.push(self.constraint_body()?);
            } else if self.eat("INDEX") {
                indices.push(self.index_spec()?);
            } else if self.peek_is("PROJECTION") {
                // Skipping projections is safe: they only speed up reads.
                self.raw_until(|l| l.token == Token::Comma);
            } else if self.eat_seq(&["PRIMARY", "KEY"]) {
                let key = self.raw_until(|l| l.token == Token::Comma).ok_or_else(|| self.syntax_error("primary key expression"))?;
                if primary_key.replace(key).is_some() {
                    return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Multiple primary keys are not allowed."));
                }
            } else {
                let column = self.column()?;
                match nested_columns(&column) {
                    Some(flattened) => columns.extend(flattened),
                    None => columns.push(column),
                }
            }
            if self.eat_token(&Token::RParen) {
                let declared: Vec<&str> = columns.iter().filter(|c| c.primary_key).map(|c| c.name.as_str()).collect();
                if !declared.is_empty() {
                    if primary_key.is_some() {
                        return Err(Error::new(ErrorCode::BAD_ARGUMENTS, "Multiple primary keys are not allowed."));
                    }
                    primary_key = Some(match declared.as_slice() {
                        [one] => format!("tuple({one})"),
                        many => format!("({})", many.join(", ")),
                    });
                }
                return Ok(ColumnList { columns, constraints, indices, primary_key });
            }
            self.expect_token(&Token::Comma, "',' or ')'")?;
        }
    }

    /// After `INDEX`: `name expr TYPE type[(args)] [GRANULARITY n]`, kept as written (the
    /// engine checks the type and its arguments).
    fn index_spec(&mut self) -> Result<IndexSpec> {
        let name = self.ident()?;
        let expr = self.raw_until(|l| l.is_keyword("TYPE")).ok_or_else(|| self.syntax_error("the expression of an index"))?;
        self.expect("TYPE")?;
        let type_full = self
            .raw_until(|l| ["GRANULARITY", "FIRST", "AFTER", "SETTINGS"].iter().any(|k| l.is_keyword(k)) || l.token == Token::Comma)
            .ok_or_else(|| self.syntax_error("the type of an index"))?;
        let granularity = if self.eat("GRANULARITY") {
            let text = self.literal_text()?;
            text.parse().map_err(|_| Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: GRANULARITY {text} is not a number")))?
        } else {
            1
        };
        Ok(IndexSpec { name, expr, type_full, granularity })
    }

    fn column(&mut self) -> Result<ColumnSpec> {
        self.column_until(&[])
    }

    /// A column definition that also ends before any of `also_stop` (ALTER's `AFTER`).
    fn column_until(&mut self, also_stop: &[&str]) -> Result<ColumnSpec> {
        if self.lx.get(self.pos + 1).is_some_and(|l| l.is_keyword("Nested")) && self.lx.get(self.pos + 2).is_some_and(|l| l.token == Token::LParen) {
            return self.nested_column();
        }
        const COLUMN_KEYWORDS: [&str; 10] = ["NULL", "NOT", "DEFAULT", "MATERIALIZED", "ALIAS", "EPHEMERAL", "COMMENT", "CODEC", "TTL", "PRIMARY"];
        let name = self.ident()?;
        let type_text = self
            .raw_until(|l| l.token == Token::Comma || COLUMN_KEYWORDS.iter().chain(also_stop).any(|k| l.is_keyword(k)))
            .ok_or_else(|| self.syntax_error("column type"))?;
        let mut ch_type = ChType::parse(&type_text)?;
        let mut spec = ColumnSpec { name, ch_type: ch_type.clone(), default_kind: None, default_expression: None, codec: None, comment: None, primary_key: false, ttl: None };
        loop {
            if self.eat("NULL") {
                ch_type = ch_type.into_nullable();
            } else if self.eat_seq(&["NOT", "NULL"]) {
            } else if let Some(kind) = ["DEFAULT", "MATERIALIZED", "ALIAS", "EPHEMERAL"].into_iter().find(|k| self.peek_is(k)) {
                self.pos += 1;
                spec.default_kind = Some(kind.to_string());
                spec.default_expression =
                    self.raw_until(|l| l.token == Token::Comma || ["COMMENT", "CODEC", "TTL", "PRIMARY"].iter().chain(also_stop).any(|k| l.is_keyword(k)));
            } else if self.eat("COMMENT") {
                spec.comment = Some(self.string_literal()?);
            } else if self.peek_is("CODEC") {
                spec.codec = Some(self.codec_text()?);
            } else if self.eat("TTL") {
                spec.ttl = Some(
                    self.raw_until(|l| l.token == Token::Comma || ["COMMENT", "CODEC", "PRIMARY"].iter().chain(also_stop).any(|k| l.is_keyword(k))).ok_or_else(|| self.syntax_error("TTL expression"))?,
                );
            } else if self.eat_seq(&["PRIMARY", "KEY"]) {
                spec.primary_key = true;
            } else {
                break;
            }
        }
        spec.ch_type = ch_type;
        Ok(spec)
    }

    fn engine_spec(&mut self) -> Result<EngineSpec> {
        let mut spec = EngineSpec { name: self.ident()?, ..EngineSpec::default() };
        if self.eat_token(&Token::LParen) {
            if !self.eat_token(&Token::RParen) {
                loop {
                    let arg = self.raw_until(|l| l.token == Token::Comma).ok_or_else(|| self.syntax_error("engine argument"))?;
                    spec.args.push(arg);
                    if self.eat_token(&Token::RParen) {
                        break;
                    }
                    self.expect_token(&Token::Comma, "',' or ')'")?;
                }
            }
        }
        self.engine_clauses(spec)
    }

    /// The ORDER BY, PARTITION BY, ... clauses of an engine; they may come without
    /// `ENGINE = name` (the engine is then `default_table_engine`).
    fn engine_clauses(&mut self, mut spec: EngineSpec) -> Result<EngineSpec> {
        // POPULATE ends the engine clause of a materialized view.
        const CLAUSES: [&str; 9] = ["ORDER", "PARTITION", "PRIMARY", "SAMPLE", "TTL", "SETTINGS", "COMMENT", "AS", "POPULATE"];
        let clause_end = |l: &Lexeme| CLAUSES.iter().any(|k| l.is_keyword(k));
        loop {
            if self.eat_seq(&["ORDER", "BY"]) {
                spec.order_by = self.raw_until(clause_end);
            } else if self.eat_seq(&["PARTITION", "BY"]) {
                spec.partition_by = self.raw_until(clause_end);
            } else if self.eat_seq(&["PRIMARY", "KEY"]) {
                spec.primary_key = self.raw_until(clause_end);
            } else if self.eat_seq(&["SAMPLE", "BY"]) {
                spec.sample_by = self.raw_until(clause_end);
            } else if self.eat("TTL") {
                spec.ttl = self.raw_until(clause_end);
            } else if self.eat("SETTINGS") {
                spec.settings = self.assignments()?;
            } else {
                return Ok(spec);
            }
        }
    }

    fn drop(&mut self) -> Result<Statement> {
        let detach = self.peek_is("DETACH");
        self.pos += 1;
        if detach {
            return self.detach();
        }
        if let Some(statement) = self.drop_access()? {
            return Ok(statement);
        }
        if self.eat_seq(&["NAMED", "COLLECTION"]) {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            let name = self.ident()?;
            self.skip_on_cluster()?;
            return Ok(Statement::DropNamedCollection { name, if_exists });
        }
        if self.eat("FUNCTION") {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            let name = self.ident()?;
            self.skip_on_cluster()?;
            self.expect_end()?;
            return Ok(Statement::DropFunction { name, if_exists });
        }
        if self.eat("DATABASE") {
            let if_exists = self.eat_seq(&["IF", "EXISTS"]);
            let name = self.ident()?;
            self.skip_on_cluster()?;
            let _ = self.eat("SYNC") || self.eat("NO") && self.eat("DELAY");
            return Ok(Statement::DropDatabase { name, if_exists });
        }
        let temporary = self.eat("TEMPORARY");
        let view_only = self.eat("VIEW");
        if !(view_only || self.eat("TABLE") || self.eat("DICTIONARY")) {
            return Err(self.syntax_error("DATABASE, TABLE, VIEW or DICTIONARY"));
        }
        let if_exists = self.eat_seq(&["IF", "EXISTS"]);
        let name = self.table_name()?;
        self.skip_on_cluster()?;
        let _ = self.eat("SYNC");
        Ok(Statement::DropTable { name, if_exists, view_only, temporary })
    }

    /// After DETACH: `DATABASE|TABLE|VIEW|DICTIONARY [IF EXISTS] name [ON CLUSTER c]
    /// [PERMANENTLY] [SYNC]`.
    fn detach(&mut self) -> Result<Statement> {
        let database = self.eat("DATABASE");
        if !database && !(self.eat("TABLE") || self.eat("VIEW") || self.eat("DICTIONARY")) {
            return Err(self.syntax_error("DATABASE, TABLE, VIEW or DICTIONARY"));
        }
        let if_exists = self.eat_seq(&["IF", "EXISTS"]);
        let statement = if database {
            let name = self.ident()?;
            self.skip_on_cluster()?;
            let permanently = self.eat("PERMANENTLY");
            Statement::DetachDatabase { name, if_exists, permanently }
        } else {
            let name = self.table_name()?;
            self.skip_on_cluster()?;
            let permanently = self.eat("PERMANENTLY");
            Statement::DetachTable { name, if_exists, permanently }
        };
        let _ = self.eat("SYNC");
        self.expect_end()?;
        Ok(statement)
    }

    /// `ATTACH TABLE|DICTIONARY|DATABASE [IF NOT EXISTS] name [ON CLUSTER c]` without a
    /// definition; `None` (nothing consumed) for an ATTACH with one, which is a CREATE.
    fn attach(&mut self) -> Result<Option<Statement>> {
        let start = self.pos;
        self.pos += 1;
        let database = self.eat("DATABASE");
        // A view is attached as `ATTACH TABLE v`: ClickHouse's `ATTACH VIEW` needs a definition.
        if !database && !(self.eat("TABLE") || self.eat("DICTIONARY")) {
            self.pos = start;
            return Ok(None);
        }
        let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
        let statement = if database {
            let name = self.ident()?;
            Statement::AttachDatabase { name, if_not_exists }
        } else {
            let name = self.table_name()?;
            Statement::AttachTable { name, if_not_exists }
        };
        self.skip_on_cluster()?;
        if !self.at_end() {
            self.pos = start;
            return Ok(None);
        }
        Ok(Some(statement))
    }

    /// `key = value [[NOT] OVERRIDABLE], ...` (at least one).
    /// After `CREATE [OR REPLACE] FUNCTION`: `[IF NOT EXISTS] name [ON CLUSTER c] AS
    /// (a, b) -> body` (or `a -> body`).
    fn sql_function(&mut self, or_replace: bool) -> Result<SqlFunction> {
        let if_not_exists = self.eat_seq(&["IF", "NOT", "EXISTS"]);
        let name = self.ident()?;
        self.skip_on_cluster()?;
        self.expect("AS")?;
        let mut params = Vec::new();
        if self.eat_token(&Token::LParen) {
            if !self.eat_token(&Token::RParen) {
                loop {
                    params.push(self.ident()?);
                    if self.eat_token(&Token::RParen) {
                        break;
                    }
                    self.expect_token(&Token::Comma, "',' or ')'")?;
                }
            }
        } else {
            params.push(self.ident()?);
        }
        self.expect_token(&Token::Arrow, "'->'")?;
        let body = self.raw_until(|_| false).ok_or_else(|| self.syntax_error("the function's body"))?;
        self.expect_end()?;
        for (i, param) in params.iter().enumerate() {
            if params[..i].contains(param) {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Identifier {param} already used as function parameter")));
            }
        }
        Ok(SqlFunction { name, params, body, or_replace, if_not_exists })
    }

    fn named_collection_entries(&mut self) -> Result<Vec<NamedCollectionEntry>> {
        let mut entries: Vec<NamedCollectionEntry> = Vec::new();
        loop {
            let key = self.ident()?;
            self.expect_token(&Token::Eq, "'='")?;
            let value = self.literal_text()?;
            let overridable = if self.eat("OVERRIDABLE") {
                Some(true)
            } else if self.eat_seq(&["NOT", "OVERRIDABLE"]) {
                Some(false)
            } else {
                None
            };
            if entries.iter().any(|e| e.key == key) {
                return Err(Error::new(ErrorCode::BAD_ARGUMENTS, format!("Duplicate key `{key}` in named collection")));
            }
            entries.push(NamedCollectionEntry { key, value, overridable });
            if !self.eat_token(&Token::Comma) {
                return Ok(entries);
            }
        }
    }

    /// After `ALTER NAMED COLLECTION`.
    fn alter_named_collection(&mut self) -> Result<Statement> {
        let if_exists = self.eat_seq(&["IF", "EXISTS"]);
        let name = self.ident()?;
        self.skip_on_cluster()?;
        let set = if self.eat("SET") { self.named_collection_entries()? } else { Vec::new() };
        let mut delete = Vec::new();
        if self.eat("DELETE") {
            loop {
                delete.push(self.ident()?);
                if !self.eat_token(&Token::Comma) {
                    break;
                }
            }
        }
        if set.is_empty() && delete.is_empty() {
            return Err(self.syntax_error("SET or DELETE"));
        }
        Ok(Statement::AlterNamedCollection { name, if_exists, set, delete })
    }

    /// `EXCHANGE TABLES a AND b [ON CLUSTER c]`.
    fn exchange(&mut self) -> Result<Statement> {
        self.pos += 1;
        if self.eat("DICTIONARIES") {
            return Err(Error::new(ErrorCode::NOT_IMPLEMENTED, "EXCHANGE DICTIONARIES is not supported"));
        }
        if !(self.eat("TABLES") || self.eat("TABLE")) {
            return Err(self.syntax_error("TABLES"));
        }
        let first = self.table_name()?;
        self.expect("AND")?;
        let second = self.table_name()?;
        self.skip_on_cluster()?;
        Ok(Statement::ExchangeTables(first, second))
    }

    fn rename(&mut self) -> Result<Statement> {
        self.pos += 1;
        if self.eat("DATABASE") {
            let from = self.ident()?;
            self.expect("TO")?;
            let to = self.ident()?;
            self.skip_on_cluster()?;
            return Ok(Statement::RenameDatabase { from, to });
        }
        if !(self.eat("TABLE") || self.eat("DICTIONARY")) {
            return Err(self.syntax_error("TABLE or DICTIONARY"));
        }
        let mut pairs = Vec::new();
        loop {
            let from = self.table_name()?;
            self.expect("TO")?;
            let to = self.table_name()?;
            pairs.push((from, to));
            if !self.eat_token(&Token::Comma) {
                break;
            }
        }
        self.skip_on_cluster()?;
        Ok(Statement::RenameTables(pairs))
    }

    fn show(&mut self, options: &ParseOptions<'_>) -> Result<StatementWithClauses> {
        let _ = options;
        self.pos += 1;
        if let Some(statement) = self.show_access()? {
            return self.finish_with_format(statement);
        }
        let statement = if self.eat("DATABASES") {
            let like = self.like_clause()?;
            Statement::ShowDatabases { like, limit: self.show_limit()? }
        } else if self.eat("TABLES") {
            let database = if self.eat("FROM") || self.eat("IN") { Some(self.ident()?) } else { None };
            let like = self.like_clause()?;
            Statement::ShowTables { database, like, limit: self.show_limit()? }
        } else if self.eat("DICTIONARIES") {
            let database = if self.eat("FROM") || self.eat("IN") { Some(self.ident()?) } else { None };
            let like = self.like_clause()?;
            Statement::ShowDictionaries { database, like, limit: self.show_limit()? }
        } else if self.eat("FUNCTIONS") {
            Statement::ShowFunctions { like: self.like_clause()? }
        } else if self.eat("ENGINES") {
            Statement::ShowEngines
        } else if self.eat("PRIVILEGES") {
            Statement::ShowPrivileges
        } else if self.peek_is("FULL") || self.peek_is("EXTENDED") || self.peek_is("COLUMNS") || self.peek_is("FIELDS") || self.peek_is_index_word() {
            while self.eat("FULL") || self.eat("EXTENDED") {}
            if self.eat("INDEX") || self.eat("INDEXES") || self.eat("INDICES") || self.eat("KEYS") {
                if !(self.eat("FROM") || self.eat("IN")) {
                    return Err(self.syntax_error("FROM"));
                }
                let mut table = self.table_name()?;
                if self.eat("FROM") || self.eat("IN") {
                    table.database = Some(self.ident()?);
                }
                let condition = if self.eat("WHERE") { Some(self.rest_text_before_format()) } else { None };
                return self.finish_with_format(Statement::ShowIndexes { table, condition });
            }
            if !(self.eat("COLUMNS") || self.eat("FIELDS")) {
                return Err(self.syntax_error("COLUMNS"));
            }
            if !(self.eat("FROM") || self.eat("IN")) {
                return Err(self.syntax_error("FROM"));
            }
            let mut table = self.table_name()?;
            if self.eat("FROM") || self.eat("IN") {
                table.database = Some(self.ident()?);
            }
            let like = self.like_clause()?;
            Statement::ShowColumns { table, like, limit: self.show_limit()? }
        } else if self.eat("CREATE") {
            let _ = self.eat("TEMPORARY");
            if self.eat("DATABASE") {
                Statement::ShowCreateDatabase(self.ident()?)
            } else {
                let _ = self.eat("TABLE") || self.eat("VIEW") || self.eat("DICTIONARY");
                Statement::ShowCreateTable(self.table_name()?)
            }
        } else if self.eat_seq(&["CHANGED", "SETTINGS"]) {
            Statement::ShowSettings { like: self.like_clause()?, changed: true }
        } else if self.eat("SETTINGS") {
            let like = self.like_clause()?.ok_or_else(|| self.syntax_error("LIKE"))?;
            Statement::ShowSettings { like: Some(like), changed: false }
        } else if self.eat("SETTING") {
            Statement::ShowSetting(self.ident()?)
        } else if self.eat("PROCESSLIST") {
            Statement::ShowProcesslist
        } else {
            return Err(self.syntax_error("DATABASES, TABLES, COLUMNS, INDEX, DICTIONARIES, FUNCTIONS, ENGINES, PRIVILEGES, CREATE, SETTINGS, SETTING or PROCESSLIST"));
        };
        self.finish_with_format(statement)
    }

    fn peek_is_index_word(&self) -> bool {
        ["INDEX", "INDEXES", "INDICES", "KEYS"].iter().any(|w| self.peek_is(w))
    }

    /// The text from here to a trailing `FORMAT name` (or the end), consumed: a condition
    /// the query layer puts into a SELECT of its own.
    fn rest_text_before_format(&mut self) -> String {
        let mut end = self.lx.len();
        if end >= self.pos + 2 && self.lx[end - 2].is_keyword("FORMAT") {
            end -= 2;
        }
        let text = match (self.lx.get(self.pos), end.checked_sub(1).and_then(|e| self.lx.get(e))) {
            (Some(first), Some(last)) if end > self.pos => self.sql.get(first.start..last.end).unwrap_or_default().to_string(),
            _ => String::new(),
        };
        self.pos = end;
        text
    }

    /// `LIMIT n` of SHOW statements.
    fn show_limit(&mut self) -> Result<Option<u64>> {
        if !self.eat("LIMIT") {
            return Ok(None);
        }
        let text = self.literal_text()?;
        text.parse().map(Some).map_err(|_| Error::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: LIMIT {text} is not a number")))
    }

    fn like_clause(&mut self) -> Result<Option<NameFilter>> {
        let negated = self.peek_is("NOT") && self.lx.get(self.pos + 1).is_some_and(|l| l.is_keyword("LIKE") || l.is_keyword("ILIKE"));
        if negated {
            self.pos += 1;
        }
        let case_insensitive = self.peek_is("ILIKE");
        if self.eat("LIKE") || self.eat("ILIKE") {
            Ok(Some(NameFilter { pattern: self.string_literal()?, negated, case_insensitive }))
        } else {
            Ok(None)
        }
    }
}

/// `LIMIT n OFFSET m BY ...` and `LIMIT m, n BY ...` of the outer query, which sqlparser
/// does not parse: the offset is taken out (leaving `LIMIT n BY ...`) and returned.
fn take_limit_by_offset(lexemes: &mut Vec<Lexeme>) -> Result<Option<u64>> {
    let number = |l: &Lexeme| match &l.token {
        Token::Number(n, _) => n.parse::<u64>().ok(),
        _ => None,
    };
    nested_limit_by_offsets(lexemes);
    let mut depth = 0i32;
    for i in 0..lexemes.len() {
        match lexemes[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        if depth != 0 || !lexemes[i].is_keyword("LIMIT") || i + 4 >= lexemes.len() || !lexemes[i + 4].is_keyword("BY") {
            continue;
        }
        let (Some(first), Some(second)) = (number(&lexemes[i + 1]), number(&lexemes[i + 3])) else { continue };
        if lexemes[i + 2].is_keyword("OFFSET") {
            lexemes.drain(i + 2..=i + 3);
            return Ok(Some(second));
        }
        if lexemes[i + 2].token == Token::Comma {
            lexemes.drain(i + 1..=i + 2);
            return Ok(Some(first));
        }
    }
    Ok(None)
}

/// In subqueries, `LIMIT n OFFSET m BY keys` and `LIMIT m, n BY keys` become
/// `LIMIT n BY keys OFFSET m`, which sqlparser reads as one clause (the subquery's LIMIT
/// BY is then planned with window functions, rewrite.rs).
fn nested_limit_by_offsets(lexemes: &mut Vec<Lexeme>) {
    let number = |l: &Lexeme| matches!(&l.token, Token::Number(..));
    let mut depth = 0i32;
    let mut i = 0;
    while i < lexemes.len() {
        match lexemes[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        let shape = depth > 0 && lexemes[i].is_keyword("LIMIT") && i + 4 < lexemes.len() && lexemes[i + 4].is_keyword("BY") && number(&lexemes[i + 1]) && number(&lexemes[i + 3]);
        let (count, offset) = match shape {
            true if lexemes[i + 2].is_keyword("OFFSET") => (lexemes[i + 1].clone(), lexemes[i + 3].clone()),
            true if lexemes[i + 2].token == Token::Comma => (lexemes[i + 3].clone(), lexemes[i + 1].clone()),
            _ => {
                i += 1;
                continue;
            }
        };
        // The BY list ends at the bracket that closes the subquery.
        let mut end = i + 5;
        let mut inner = 0i32;
        while end < lexemes.len() {
            match lexemes[end].token {
                Token::LParen | Token::LBracket => inner += 1,
                Token::RParen | Token::RBracket if inner == 0 => break,
                Token::RParen | Token::RBracket => inner -= 1,
                _ => {}
            }
            end += 1;
        }
        let offset_word = Lexeme { token: Token::make_keyword("OFFSET"), ..lexemes[i + 2].clone() };
        lexemes.insert(end, offset);
        lexemes.insert(end, offset_word);
        lexemes[i + 1] = count;
        lexemes.drain(i + 2..=i + 3);
        i += 1;
    }
}

/// Where INSERT data begins after `FORMAT Name`: ClickHouse skips blanks and one line break.
fn data_start(sql: &str, after_format_name: usize) -> usize {
    let rest = &sql.as_bytes()[after_format_name..];
    let mut i = 0;
    while i < rest.len() && (rest[i] == b' ' || rest[i] == b'\t') {
        i += 1;
    }
    if rest.get(i) == Some(&b'\r') {
        i += 1;
    }
    if rest.get(i) == Some(&b'\n') {
        i += 1;
    }
    after_format_name + i
}

/// ClickHouse's `WITH <expression> AS <name> SELECT ...` names a value, not a table.
/// DataFusion has no such binding, so the expression is put in place of the name (in
/// parentheses) wherever the name appears later; CTEs (`name AS (SELECT ...)`) stay.
fn inline_with_aliases(lexemes: Vec<Lexeme>) -> Vec<Lexeme> {
    if !lexemes.first().is_some_and(|l| l.is_keyword("WITH")) {
        return lexemes;
    }
    let mut items: Vec<(usize, usize)> = Vec::new();
    let (mut depth, mut start, mut body_start) = (0i32, 1usize, None);
    for (i, l) in lexemes.iter().enumerate().skip(1) {
        match l.token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth -= 1,
            Token::Comma if depth == 0 => {
                items.push((start, i));
                start = i + 1;
            }
            _ if depth == 0 && l.is_keyword("SELECT") => {
                items.push((start, i));
                body_start = Some(i);
                break;
            }
            _ => {}
        }
    }
    let Some(body_start) = body_start else { return lexemes };
    let mut kept: Vec<&[Lexeme]> = Vec::new();
    let mut aliases: Vec<(String, Vec<Lexeme>)> = Vec::new();
    for (from, to) in items {
        let item = &lexemes[from..to];
        let is_cte = item.len() >= 3 && item[1].is_keyword("AS") && item[2].token == Token::LParen;
        let alias_at = item.len().checked_sub(2).filter(|&k| k > 0 && item[k].is_keyword("AS"));
        match (is_cte, alias_at, item.last().map(|l| &l.token)) {
            (false, Some(k), Some(Token::Word(w))) => aliases.push((w.value.clone(), item[..k].to_vec())),
            _ => kept.push(item),
        }
    }
    if aliases.is_empty() {
        return lexemes;
    }
    let mut out = Vec::with_capacity(lexemes.len());
    if !kept.is_empty() {
        out.push(lexemes[0].clone());
        for (n, item) in kept.iter().enumerate() {
            if n > 0 {
                out.push(Lexeme { token: Token::Comma, span: item[0].span, start: item[0].start, end: item[0].start });
            }
            out.extend_from_slice(item);
        }
    }
    for (i, l) in lexemes[body_start..].iter().enumerate() {
        let after_dot = i > 0 && lexemes[body_start + i - 1].token == Token::Period;
        let replacement = match &l.token {
            Token::Word(w) if !after_dot => aliases.iter().find(|(name, _)| *name == w.value),
            _ => None,
        };
        match replacement {
            Some((_, expression)) => {
                out.push(Lexeme { token: Token::LParen, span: l.span, start: l.start, end: l.start });
                out.extend(expression.iter().cloned());
                out.push(Lexeme { token: Token::RParen, span: l.span, start: l.end, end: l.end });
            }
            None => out.push(l.clone()),
        }
    }
    out
}

/// Where a top-level `SETTINGS name = ...` clause starts, if the query ends with one.
fn trailing_settings_start(lexemes: &[Lexeme]) -> Option<usize> {
    let mut depth = 0i32;
    let mut found = None;
    for (i, l) in lexemes.iter().enumerate() {
        match l.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        if depth == 0
            && l.is_keyword("SETTINGS")
            && matches!(lexemes.get(i + 1).map(|n| &n.token), Some(Token::Word(_)))
            && lexemes.get(i + 2).is_some_and(|n| n.token == Token::Eq)
        {
            found = Some(i);
        }
    }
    found
}

/// ClickHouse accepts `... FORMAT JSON SETTINGS x = 1`; sqlparser wants SETTINGS first.
fn settings_before_format(lexemes: &[Lexeme]) -> Vec<Lexeme> {
    let mut depth = 0i32;
    for (i, l) in lexemes.iter().enumerate() {
        match l.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        if depth == 0 && l.is_keyword("FORMAT") && lexemes.get(i + 2).is_some_and(|s| s.is_keyword("SETTINGS")) {
            let mut reordered = lexemes[..i].to_vec();
            reordered.extend_from_slice(&lexemes[i + 2..]);
            reordered.extend_from_slice(&lexemes[i..i + 2]);
            return reordered;
        }
    }
    lexemes.to_vec()
}

/// After `IN`: the number of lexemes of a table name (`t` or `db.t`) used as a set, or
/// `None` for a parenthesised list, a subquery or a function call (`IN tuple(1, 2)`).
fn in_table_name_len(rest: &[Lexeme]) -> Option<usize> {
    let is_name = |l: &Lexeme| matches!(&l.token, Token::Word(_)) && !l.is_keyword("SELECT") && !l.is_keyword("WITH");
    let not_call = |next: Option<&Lexeme>| !next.is_some_and(|n| n.token == Token::LParen);
    match rest {
        [db, dot, table, ..] if is_name(db) && dot.token == Token::Period && is_name(table) => not_call(rest.get(3)).then_some(3),
        [table, ..] if is_name(table) => not_call(rest.get(1)).then_some(1),
        _ => None,
    }
}

/// The byte range of the subquery's text when the `FINAL` at `at` follows a subquery in
/// FROM (`(SELECT ...) [[AS] alias] FINAL`), which ClickHouse refuses.
fn final_subquery(lexemes: &[Lexeme], at: usize) -> Option<std::ops::Range<usize>> {
    let mut close = at.checked_sub(1)?;
    if lexemes[close].token != Token::RParen {
        // An alias: `(...) AS a FINAL` or `(...) a FINAL`.
        close = close.checked_sub(1)?;
        if lexemes[close].is_keyword("AS") {
            close = close.checked_sub(1)?;
        }
        if lexemes[close].token != Token::RParen {
            return None;
        }
    }
    let mut depth = 0usize;
    let mut open = close;
    loop {
        match lexemes[open].token {
            Token::RParen => depth += 1,
            Token::LParen => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        open = open.checked_sub(1)?;
    }
    let first = lexemes.get(open + 1)?;
    let starts_query = first.is_keyword("SELECT") || first.is_keyword("WITH");
    // `numbers(10) FINAL` is a table function: its name stands before the parenthesis.
    let after_from = open == 0
        || lexemes[open - 1].is_keyword("FROM")
        || lexemes[open - 1].is_keyword("JOIN")
        || matches!(lexemes[open - 1].token, Token::Comma | Token::LParen);
    (starts_query && after_from && close > open + 1).then(|| first.start..lexemes[close - 1].end)
}

fn is_after_table_reference(previous: &Lexeme) -> bool {
    matches!(previous.token, Token::Word(_) | Token::RParen)
        && !["SELECT", "FROM", "WHERE", "AND", "OR", "JOIN", "ON", "BY", "AS"].iter().any(|k| previous.is_keyword(k))
}

fn take_settings(query: &mut Query) -> Result<Vec<(String, String)>> {
    let Some(settings) = query.settings.take() else { return Ok(Vec::new()) };
    settings
        .into_iter()
        .map(|s| {
            let value = match s.value {
                ast::Expr::Value(v) => match v.value {
                    ast::Value::Number(n, _) => n,
                    ast::Value::SingleQuotedString(s) => s,
                    ast::Value::Boolean(b) => if b { "1".into() } else { "0".into() },
                    other => other.to_string(),
                },
                ast::Expr::Identifier(i) => i.value,
                ast::Expr::UnaryOp { op: ast::UnaryOperator::Minus, expr } => format!("-{expr}"),
                other => {
                    return Err(Error::new(ErrorCode::SYNTAX_ERROR, format!("Setting {} must be a literal, got {other}", s.key.value)))
                }
            };
            Ok((s.key.value, value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(sql: &str) -> StatementWithClauses {
        let params = HashMap::new();
        let options = ParseOptions { params: &params, rewrite: RewriteOptions::default(), max_query_size: 0 };
        parse_statement(sql, &options).unwrap_or_else(|e| panic!("{sql}: {e}")).0
    }

    #[test]
    fn select_with_clauses() {
        let s = parse("ALTER TABLE db.t DROP PARTITION 202401, DETACH PARTITION ('a', 1), DELETE WHERE f(x, y) = 1 SETTINGS mutations_sync = 2");
        let Statement::Alter { name, commands } = &s.statement else { panic!("{s:?}") };
        assert_eq!(name.to_string(), "db.t");
        assert_eq!(
            commands,
            &vec![
                AlterCommand::DropPartition("202401".into()),
                AlterCommand::DetachPartition("('a', 1)".into()),
                AlterCommand::Delete("f(x, y) = 1".into())
            ]
        );
        assert_eq!(s.settings, vec![("mutations_sync".to_string(), "2".to_string())]);
        let s = parse("ALTER TABLE t UPDATE v = f(a, b), `s` = 'x' WHERE k IN (1, 2), DELETE WHERE 1");
        let Statement::Alter { commands, .. } = &s.statement else { panic!("{s:?}") };
        assert_eq!(
            commands,
            &vec![
                AlterCommand::Update(vec![("v".into(), "f(a, b)".into()), ("s".into(), "'x'".into())], "k IN (1, 2)".into()),
                AlterCommand::Delete("1".into())
            ]
        );
        let s = parse("CHECK TABLE t PARTITION tuple() FORMAT JSON");
        assert!(matches!(&s.statement, Statement::CheckTable { partition: Some(p), .. } if p == "tuple()"));
        assert_eq!(s.format.as_deref(), Some("JSON"));
        let s = parse("KILL MUTATION ON CLUSTER c WHERE table = 't' AND mutation_id = 'mutation_3.txt' TEST FORMAT TSV");
        assert!(matches!(&s.statement, Statement::KillMutation { condition, test: true } if condition == "table = 't' AND mutation_id = 'mutation_3.txt'"));
        assert_eq!(s.format.as_deref(), Some("TSV"));
        let s = parse("DELETE FROM db.t ON CLUSTER c WHERE k IN (1, 2) SETTINGS mutations_sync = 0");
        assert!(matches!(&s.statement, Statement::Alter { commands, .. } if commands == &vec![AlterCommand::LightweightDelete("k IN (1, 2)".into())]));
        assert_eq!(s.settings.len(), 1);
        let s = parse("KILL MUTATION WHERE 1 SYNC");
        assert!(matches!(&s.statement, Statement::KillMutation { test: false, .. }));
        let s = parse("SELECT number FROM numbers(10) FINAL WHERE number > 1 FORMAT JSON SETTINGS max_threads = 2");
        assert_eq!(s.settings, vec![("max_threads".to_string(), "2".to_string()), ("final".to_string(), "1".to_string())]);
        let Statement::Query { query, .. } = &s.statement else { panic!("not a query") };
        assert!(query.to_string().contains(&format!("numbers(10) WITH ({})", crate::FINAL_MARKER)), "{query}");
        let joined = parse("SELECT * FROM t AS a FINAL JOIN db.u FINAL ON a.x = u.x");
        let Statement::Query { query, .. } = &joined.statement else { panic!("not a query") };
        let text = query.to_string();
        assert!(text.contains(&format!("t AS a WITH ({})", crate::FINAL_MARKER)), "{text}");
        assert!(text.contains(&format!("db.u WITH ({})", crate::FINAL_MARKER)), "{text}");
        for sql in ["SELECT * FROM (SELECT 1) FINAL", "SELECT * FROM (SELECT 1) AS s FINAL", "SELECT * FROM t, (SELECT 1) s FINAL"] {
            let params = HashMap::new();
            let options = ParseOptions { params: &params, rewrite: RewriteOptions::default(), max_query_size: 0 };
            let e = parse_statement(sql, &options).err().expect(sql);
            assert_eq!(e.code(), ErrorCode::UNSUPPORTED_METHOD, "{sql}");
            assert!(e.to_string().contains("subquery SELECT 1"), "{e}");
        }
        assert_eq!(s.format.as_deref(), Some("JSON"));
        assert!(matches!(s.statement, Statement::Query { .. }));
    }

    #[test]
    fn insert_data_offsets() {
        let sql = "INSERT INTO db.t (a, b) FORMAT CSV\n1,2\n";
        match parse(sql).statement {
            Statement::Insert(InsertStatement { target: InsertTarget::Table(table), columns, source: InsertSource::Data { format, data_offset }, .. }) => {
                assert_eq!(table.to_string(), "db.t");
                assert_eq!(columns, vec!["a", "b"]);
                assert_eq!(format, "CSV");
                assert_eq!(&sql[data_offset..], "1,2\n");
            }
            other => panic!("{other:?}"),
        }
        let sql = "insert into t values (1, 'a;b'), (2, ')')";
        match parse(sql).statement {
            Statement::Insert(InsertStatement { source: InsertSource::Data { format, data_offset }, .. }) => {
                assert_eq!(format, "Values");
                assert_eq!(&sql[data_offset..], " (1, 'a;b'), (2, ')')");
            }
            other => panic!("{other:?}"),
        }
        let sql = "INSERT INTO t FORMAT TSV\n\"unbalanced 'quotes\t1\n";
        assert!(matches!(parse(sql).statement, Statement::Insert(_)));
    }

    #[test]
    fn insert_select_from_input_keeps_its_data() {
        let sql = "INSERT INTO t SELECT x FROM input('x String') FORMAT CSV\n\"unbalanced 'quotes\n";
        match parse(sql).statement {
            Statement::Insert(InsertStatement { source: InsertSource::Select { input_format, data_offset, .. }, .. }) => {
                assert_eq!(input_format.as_deref(), Some("CSV"));
                assert_eq!(&sql[data_offset..], "\"unbalanced 'quotes\n");
            }
            other => panic!("{other:?}"),
        }
        // `format` as a table function or a column is not the data's format.
        for sql in ["INSERT INTO t SELECT * FROM format(CSV, 'a UInt8', '1')", "INSERT INTO t SELECT format FROM u", "INSERT INTO t SELECT * FROM values('a UInt8', 1)"] {
            match parse(sql).statement {
                Statement::Insert(InsertStatement { source: InsertSource::Select { input_format: None, .. }, .. }) => {}
                other => panic!("{sql}: {other:?}"),
            }
        }
    }

    #[test]
    fn insert_into_function() {
        let sql = "INSERT INTO TABLE FUNCTION s3('http://h/b/k_{_partition_id}.csv', 'key', concat('se', 'cret'), 'CSV', 'a UInt8, b String') (a) PARTITION BY a % 2 SETTINGS s3_truncate_on_insert = 1 SELECT 1";
        match parse(sql).statement {
            Statement::Insert(InsertStatement { target: InsertTarget::Function(call), columns, source: InsertSource::Select { .. }, settings }) => {
                assert_eq!(call.name, "s3");
                assert_eq!(call.args, vec!["'http://h/b/k_{_partition_id}.csv'", "'key'", "concat('se', 'cret')", "'CSV'", "'a UInt8, b String'"]);
                assert_eq!(call.partition_by.as_deref(), Some("a % 2"));
                assert_eq!(columns, vec!["a"]);
                assert_eq!(settings, vec![("s3_truncate_on_insert".to_string(), "1".to_string())]);
            }
            other => panic!("{other:?}"),
        }
        let sql = "INSERT INTO FUNCTION file('x.csv', 'CSV', 'x UInt8') VALUES (1)";
        match parse(sql).statement {
            Statement::Insert(InsertStatement { target: InsertTarget::Function(call), source: InsertSource::Data { format, .. }, .. }) => {
                assert_eq!(call.args.len(), 3);
                assert_eq!(format, "Values");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn insert_data_is_not_a_parameter() {
        let sql = "INSERT INTO t FORMAT JSONEachRow {\"x\": 9}";
        match parse(sql).statement {
            Statement::Insert(InsertStatement { source: InsertSource::Data { data_offset, .. }, .. }) => {
                assert_eq!(&sql[data_offset..], "{\"x\": 9}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn create_table_clickhouse_syntax() {
        let sql = "CREATE TABLE IF NOT EXISTS t (id UInt64, ts DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(3)), s Nullable(String) COMMENT 'x', n String NULL) \
                   ENGINE = MergeTree PARTITION BY toYYYYMM(ts) ORDER BY (id, ts) SETTINGS index_granularity = 256";
        let Statement::CreateTable(c) = parse(sql).statement else { panic!() };
        assert!(c.if_not_exists);
        assert_eq!(c.columns.len(), 4);
        assert_eq!(c.columns[1].ch_type.to_string(), "DateTime64(3, 'UTC')");
        assert_eq!(c.columns[1].default_expression.as_deref(), Some("now64(3)"));
        assert_eq!(c.columns[1].codec.as_deref(), Some("CODEC(Delta, ZSTD(3))"));
        assert_eq!(c.columns[3].ch_type.to_string(), "Nullable(String)");
        let engine = c.engine.unwrap();
        assert_eq!(engine.name, "MergeTree");
        assert_eq!(engine.order_by.as_deref(), Some("(id, ts)"));
        assert_eq!(engine.partition_by.as_deref(), Some("toYYYYMM(ts)"));
        assert_eq!(engine.settings, vec![("index_granularity".to_string(), "256".to_string())]);
    }

    #[test]
    fn named_collections() {
        let entry = |key: &str, value: &str, overridable| NamedCollectionEntry { key: key.into(), value: value.into(), overridable };
        let create = parse("CREATE NAMED COLLECTION IF NOT EXISTS c ON CLUSTER x AS url = 'http://h/', n = -3.5 NOT OVERRIDABLE, f = 'CSV' OVERRIDABLE, b = true").statement;
        let Statement::CreateNamedCollection { name, if_not_exists, entries } = create else { panic!("not a CREATE NAMED COLLECTION") };
        assert_eq!((name.as_str(), if_not_exists), ("c", true));
        assert_eq!(entries, vec![entry("url", "http://h/", None), entry("n", "-3.5", Some(false)), entry("f", "CSV", Some(true)), entry("b", "true", None)]);
        let Statement::AlterNamedCollection { name, if_exists, set, delete } = parse("ALTER NAMED COLLECTION IF EXISTS c SET f = 'TSV' DELETE n, b").statement else {
            panic!("not an ALTER NAMED COLLECTION")
        };
        assert_eq!((name.as_str(), if_exists, set, delete), ("c", true, vec![entry("f", "TSV", None)], vec!["n".to_string(), "b".to_string()]));
        assert!(matches!(parse("DROP NAMED COLLECTION IF EXISTS c").statement, Statement::DropNamedCollection { if_exists: true, .. }));
        let params = HashMap::new();
        let options = ParseOptions { params: &params, rewrite: RewriteOptions::default(), max_query_size: 0 };
        assert!(parse_statement("ALTER NAMED COLLECTION c", &options).is_err());
        assert!(parse_statement("CREATE NAMED COLLECTION c AS a = 1, a = 2", &options).is_err());
    }

    #[test]
    fn create_dictionary() {
        let sql = "CREATE DICTIONARY IF NOT EXISTS db.d (id UInt64, name String DEFAULT 'none' INJECTIVE, v Float64) \
                   PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'src' DB 'db' WHERE 'v > 0')) LAYOUT(HASHED()) LIFETIME(MIN 1 MAX 10) COMMENT 'c'";
        let Statement::CreateDictionary(d) = parse(sql).statement else { panic!("not a dictionary") };
        assert!(d.if_not_exists);
        assert_eq!(d.name.to_string(), "db.d");
        assert_eq!(d.attributes.len(), 3);
        assert_eq!(d.attributes[1].default_expression.as_deref(), Some("'none'"));
        assert_eq!(d.primary_key, vec!["id"]);
        let source = d.source.unwrap();
        assert_eq!(source.name, "CLICKHOUSE");
        assert_eq!(source.params, vec![("TABLE".into(), "'src'".into()), ("DB".into(), "'db'".into()), ("WHERE".into(), "'v > 0'".into())]);
        assert_eq!(d.layout.unwrap().name, "HASHED");
        assert_eq!(d.lifetime, Some((1, 10)));
        assert_eq!(d.comment.as_deref(), Some("c"));
        let Statement::CreateDictionary(d) = parse("CREATE DICTIONARY d (k String, v UInt8) PRIMARY KEY k SOURCE(FILE(path 'a.csv' format 'CSV')) LAYOUT(CACHE(SIZE_IN_CELLS 100)) LIFETIME(300)").statement else {
            panic!("not a dictionary")
        };
        assert_eq!(d.lifetime, Some((0, 300)));
        assert_eq!(d.layout.unwrap().params, vec![("SIZE_IN_CELLS".into(), "100".into())]);
    }

    #[test]
    fn limit_with_ties_everywhere() {
        let text = |sql: &str| match parse(sql).statement {
            Statement::Query { query, .. } => query.to_string(),
            _ => panic!("not a query"),
        };
        let top = text("SELECT k FROM t ORDER BY k LIMIT 2 OFFSET 1 WITH TIES");
        assert!(top.contains("rank() OVER (ORDER BY k)") && top.contains("> 1 AND") && top.contains("<= 3"), "{top}");
        let nested = text("SELECT count() FROM (SELECT k FROM t ORDER BY k LIMIT 1, 2 WITH TIES)");
        assert!(nested.contains("row_number() OVER (ORDER BY k)") && nested.contains("<= 3"), "{nested}");
        assert!(text("SELECT k FROM t ORDER BY k FETCH FIRST 2 ROWS ONLY").ends_with("LIMIT 2"));
    }

    #[test]
    fn in_table_becomes_in_subquery() {
        let Statement::Query { query, .. } = parse("SELECT x FROM t WHERE x IN s AND y NOT IN db.s2 AND z IN (1, 2)").statement else {
            panic!("not a query")
        };
        let text = query.to_string();
        assert!(text.contains("x IN (SELECT * FROM s)"), "{text}");
        assert!(text.contains("y NOT IN (SELECT * FROM db.s2)"), "{text}");
        assert!(text.contains("z IN (1, 2)"), "{text}");
    }

    #[test]
    fn utility_statements() {
        assert!(matches!(parse("SHOW TABLES FROM db LIKE 'a%'").statement, Statement::ShowTables { database: Some(_), like: Some(_), .. }));
        assert!(matches!(parse("SET max_threads = 1, log_comment = 'x'").statement, Statement::Set(v) if v.len() == 2));
        assert!(matches!(parse("RENAME TABLE a TO b, db.c TO db.d").statement, Statement::RenameTables(v) if v.len() == 2));
        assert!(matches!(parse("EXISTS TABLE db.t").statement, Statement::ExistsTable(_)));
        assert!(matches!(parse("DESCRIBE TABLE t FORMAT JSON").statement, Statement::DescribeTable(_)));
        assert!(matches!(parse("CREATE TABLE t2 ENGINE = Memory AS SELECT 1 AS x").statement, Statement::CreateTable(c) if c.as_select.is_some()));
        assert!(matches!(parse("CREATE TABLE t2 AS t1").statement, Statement::CreateTable(c) if c.as_table.is_some()));
    }

    #[test]
    fn errors_are_syntax_errors() {
        let params = HashMap::new();
        let options = ParseOptions { params: &params, rewrite: RewriteOptions::default(), max_query_size: 0 };
        for sql in ["SELEC 1", "SELECT 1; SELECT 2", "CREATE TABLE t (x Nope) ENGINE = Memory", ""] {
            let e = parse_statement(sql, &options).unwrap_err();
            assert!(matches!(e.code(), ErrorCode::SYNTAX_ERROR | ErrorCode::UNKNOWN_TYPE), "{sql}: {e:?}");
        }
    }

    #[test]
    fn asof_joins_mark_their_inequality() {
        let options = ParseOptions { params: &HashMap::new(), rewrite: RewriteOptions::default(), max_query_size: 0 };
        let query_text = |sql: &str| match parse_statement(sql, &options).unwrap_or_else(|e| panic!("{sql}: {e}")).0.statement {
            Statement::Query { query, .. } => query.to_string(),
            other => panic!("{other:?}"),
        };
        let on = query_text("SELECT l.v FROM l ASOF LEFT JOIN r ON l.k = r.k AND r.t < l.t");
        assert!(on.contains("LEFT JOIN r ON l.k = r.k AND __granary_asof(r.t, l.t, '<')"), "{on}");
        // USING: the last column is the ASOF one (left >= right); names go to the left table.
        let using = query_text("SELECT *, t FROM l ASOF JOIN r USING (k, t) WHERE k > 1 ORDER BY t");
        assert!(using.contains("SELECT l.*, r.* EXCLUDE (k, t), l.t FROM l JOIN r ON l.k = r.k AND __granary_asof(l.t, r.t, '>=')"), "{using}");
        assert!(using.contains("WHERE l.k > 1 ORDER BY l.t"), "{using}");
        for (sql, code) in [
            ("SELECT 1 FROM l ASOF JOIN r ON l.k = r.k", ErrorCode::INVALID_JOIN_ON_EXPRESSION),
            ("SELECT 1 FROM l ASOF JOIN r ON l.k = r.k AND l.t > r.t AND l.t < r.t", ErrorCode::INVALID_JOIN_ON_EXPRESSION),
            ("SELECT 1 FROM l ASOF RIGHT JOIN r ON l.k = r.k AND l.t > r.t", ErrorCode::NOT_IMPLEMENTED),
            ("SELECT 1 FROM l ASOF JOIN r ON l.t > r.t", ErrorCode::NOT_IMPLEMENTED),
            ("SELECT 1 FROM l ASOF JOIN r USING (t)", ErrorCode::NOT_IMPLEMENTED),
        ] {
            match parse_statement(sql, &options) {
                Err(e) => assert_eq!(e.code(), code, "{sql}: {e}"),
                Ok(_) => panic!("{sql} parsed"),
            }
        }
    }
}

#[cfg(test)]
mod keyword_name_tests {
    use super::*;

    #[test]
    fn with_expression_aliases() {
        let params = HashMap::new();
        let options = ParseOptions { params: &params, rewrite: RewriteOptions::default(), max_query_size: 0 };
        let (s, _) = parse_statement("WITH 5 AS five, t AS (SELECT 1 AS x) SELECT five * x AS y FROM t", &options).unwrap();
        let Statement::Query { query, .. } = s.statement else { panic!() };
        assert_eq!(query.to_string(), "WITH t AS (SELECT 1 AS x) SELECT (5) * x AS y FROM t");
    }

    #[test]
    fn database_named_default_parses() {
        let params = HashMap::new();
        let options = ParseOptions { params: &params, rewrite: RewriteOptions::default(), max_query_size: 0 };
        for sql in ["SELECT * FROM default.t", "SELECT count() FROM system.one", "INSERT INTO default.t SELECT 1", "SELECT t.x FROM default.t AS t"] {
            parse_statement(sql, &options).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    }
}
