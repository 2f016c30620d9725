//! Mutations (`ALTER TABLE ... DELETE WHERE` / `UPDATE ... WHERE`) as ClickHouse keeps
//! them for a non-replicated MergeTree.
//!
//! * A mutation takes a block number `N` and is written to the table directory as
//!   `mutation_N.txt` (`format version: 1`, `create time: ...`, `commands: ...`, the
//!   command escaped as ClickHouse writes it), durably, before the ALTER returns. At
//!   open every file is read back and its command planned again.
//! * It applies to every part whose data version (`PartInfo::data_version`) is below
//!   `N`: the part becomes `<partition>_<min>_<max>_<level>_N`. A part with a row to
//!   change is rewritten; one without gets the new name by hard links to its (immutable)
//!   files, not a copy; a part losing every row is removed. The new part covers the old
//!   one, so a crash after its rename heals at load as a merge does, and a crash before
//!   it leaves the old part, which the reloaded mutation rewrites again: no state of the
//!   table directory loses an acknowledged row or applies a mutation twice to a row.
//! * Mutations apply in block order, one table at a time under the merge lock; a
//!   mutation that fails on a part stops there (later ones wait behind it, as in
//!   ClickHouse, where a part takes every pending mutation in one step), records the
//!   failure, and is retried by the background task until it succeeds or is killed.
//! * Done is derived from the parts, never stored: a mutation is done when no active
//!   part has a data version below it (`parts_to_do_names`).
//! * `KILL MUTATION` removes the file (durably) and the entry; a part being rewritten
//!   for it is not committed.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, BooleanArray};
use arrow::compute::{filter_record_batch, not, prep_null_mask_filter};
use arrow::datatypes::DataType;
use arrow::record_batch::RecordBatch;
use datafusion::physical_expr::PhysicalExpr;
use granary_common::{Error, ErrorCode, Result, ResultExt};
use granary_storage::MutationStatus;

use crate::engine::Inner;
use crate::insert::{discard, write_part_with};
use crate::part::Part;
use crate::part_info::PartInfo;
use crate::reader::PartReader;
use crate::virtual_columns::VirtualValues;
use crate::writer::{commit_part_dir, PartSync};

/// What a mutation does, as its command text says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MutationCommand {
    /// `lightweight`: `DELETE FROM`, which deletes the rows as `ALTER ... DELETE` does here
    /// (ClickHouse masks them until a merge) and is listed as ClickHouse lists it.
    Delete { predicate: String, lightweight: bool },
    /// Column names and their new values (SQL text), and the rows they apply to.
    Update { assignments: Vec<(String, String)>, predicate: String },
    /// `MATERIALIZE TTL [IN PARTITION p]`: the table's TTL applied to every part.
    MaterializeTtl { partition: Option<String> },
    /// `CLEAR COLUMN c [IN PARTITION p]`: the column reset to its default.
    ClearColumn { column: String, partition: Option<String> },
    /// `MATERIALIZE COLUMN c [IN PARTITION p]`: the column computed again from its
    /// DEFAULT or MATERIALIZED expression.
    MaterializeColumn { column: String, partition: Option<String> },
    /// `MATERIALIZE INDEX i [IN PARTITION p]`: the index's file written for each part.
    MaterializeIndex { name: String, partition: Option<String> },
    /// `CLEAR INDEX i [IN PARTITION p]` and `DROP INDEX i`: the index's file removed.
    ClearIndex { name: String, partition: Option<String> },
    DropIndex { name: String },
}

impl MutationCommand {
    /// The command as ClickHouse shows it in `system.mutations` and writes it to the file.
    pub fn text(&self) -> String {
        match self {
            MutationCommand::Delete { predicate, lightweight: false } => format!("(DELETE WHERE {predicate})"),
            MutationCommand::Delete { predicate, lightweight: true } => format!("(UPDATE {ROW_EXISTS_ASSIGNMENT} WHERE {predicate})"),
            MutationCommand::Update { assignments, predicate } => {
                let assignments: Vec<String> = assignments.iter().map(|(name, value)| format!("{name} = {value}")).collect();
                format!("(UPDATE {} WHERE {predicate})", assignments.join(", "))
            }
            MutationCommand::MaterializeTtl { partition } => format!("(MATERIALIZE TTL{})", in_partition(partition)),
            MutationCommand::ClearColumn { column, partition } => format!("(CLEAR COLUMN {column}{})", in_partition(partition)),
            MutationCommand::MaterializeColumn { column, partition } => format!("(MATERIALIZE COLUMN {column}{})", in_partition(partition)),
            MutationCommand::MaterializeIndex { name, partition } => format!("(MATERIALIZE INDEX {name}{})", in_partition(partition)),
            MutationCommand::ClearIndex { name, partition } => format!("(CLEAR INDEX {name}{})", in_partition(partition)),
            MutationCommand::DropIndex { name } => format!("(DROP INDEX {name})"),
        }
    }

    /// The inverse of [`MutationCommand::text`]: `(DELETE WHERE p)` or
    /// `(UPDATE c = e, ... WHERE p)`, split outside quotes and brackets.
    pub fn parse(text: &str) -> Result<MutationCommand> {
        let bad = || Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse mutation command {text}"));
        let body = text.trim().strip_prefix('(').and_then(|t| t.strip_suffix(')')).ok_or_else(bad)?.trim();
        let split_partition = |rest: &str| -> (String, Option<String>) {
            match top_level(rest).find(|&(i, _)| rest[i..].to_ascii_uppercase().starts_with(" IN PARTITION ")) {
                Some((i, _)) => (rest[..i].trim().to_string(), Some(rest[i + " IN PARTITION ".len()..].trim().to_string())),
                None => (rest.trim().to_string(), None),
            }
        };
        if body.get(..15).is_some_and(|head| head.eq_ignore_ascii_case("MATERIALIZE TTL")) {
            let (rest, partition) = split_partition(&body[15..]);
            if !rest.is_empty() {
                return Err(bad());
            }
            return Ok(MutationCommand::MaterializeTtl { partition });
        }
        if let Some(rest) = strip_keyword(body, "MATERIALIZE").and_then(|r| strip_keyword(r.trim_start(), "COLUMN")) {
            let (column, partition) = split_partition(rest);
            return Ok(MutationCommand::MaterializeColumn { column, partition });
        }
        if let Some(rest) = strip_keyword(body, "CLEAR").and_then(|r| strip_keyword(r.trim_start(), "COLUMN")) {
            let (column, partition) = split_partition(rest);
            return Ok(MutationCommand::ClearColumn { column, partition });
        }
        for verb in ["MATERIALIZE", "CLEAR", "DROP"] {
            if let Some(rest) = strip_keyword(body, verb).and_then(|r| strip_keyword(r.trim_start(), "INDEX")) {
                let (name, partition) = split_partition(rest);
                return Ok(match verb {
                    "MATERIALIZE" => MutationCommand::MaterializeIndex { name, partition },
                    "CLEAR" => MutationCommand::ClearIndex { name, partition },
                    _ => MutationCommand::DropIndex { name },
                });
            }
        }
        if let Some(rest) = strip_keyword(body, "DELETE") {
            let predicate = strip_keyword(rest.trim_start(), "WHERE").ok_or_else(bad)?;
            return Ok(MutationCommand::Delete { predicate: predicate.trim().to_string(), lightweight: false });
        }
        let rest = strip_keyword(body, "UPDATE").ok_or_else(bad)?;
        let split = top_level(rest).find(|&(i, _)| strip_keyword(&rest[i..], "WHERE").is_some() && rest[..i].ends_with(' ')).ok_or_else(bad)?.0;
        let predicate = rest[split + "WHERE".len()..].trim().to_string();
        let list = &rest[..split];
        if list.trim() == ROW_EXISTS_ASSIGNMENT {
            return Ok(MutationCommand::Delete { predicate, lightweight: true });
        }
        let mut assignments = Vec::new();
        let mut start = 0;
        let commas: Vec<usize> = top_level(list).filter(|&(_, c)| c == ',').map(|(i, _)| i).chain([list.len()]).collect();
        for end in commas {
            let item = &list[start..end];
            let eq = top_level(item).find(|&(_, c)| c == '=').ok_or_else(bad)?.0;
            assignments.push((item[..eq].trim().to_string(), item[eq + 1..].trim().to_string()));
            start = end + 1;
        }
        Ok(MutationCommand::Update { assignments, predicate })
    }
}

/// ` IN PARTITION p`, or nothing.
fn in_partition(partition: &Option<String>) -> String {
    partition.as_ref().map(|p| format!(" IN PARTITION {p}")).unwrap_or_default()
}

/// A lightweight delete's command, as ClickHouse shows it.
const ROW_EXISTS_ASSIGNMENT: &str = "_row_exists = 0";

/// `text` after a leading keyword (case-insensitive, followed by a space), if it starts so.
fn strip_keyword<'a>(text: &'a str, keyword: &str) -> Option<&'a str> {
    let head = text.get(..keyword.len())?;
    let rest = &text[keyword.len()..];
    (head.eq_ignore_ascii_case(keyword) && rest.starts_with(char::is_whitespace)).then_some(rest)
}

/// Positions and characters of `text` outside quotes and brackets.
fn top_level(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    text.char_indices().filter(move |&(_, c)| {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            return false;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => return depth == 0,
        }
        false
    })
}

/// A mutation of this table and what the runner last saw of it.
#[derive(Debug, Clone)]
pub struct Mutation {
    pub block: u64,
    /// Unix seconds.
    pub create_time: i64,
    pub command: MutationCommand,
    /// Unix seconds when the runner saw it done (its create time if it was at load).
    pub finish_time: i64,
    pub in_progress: Vec<String>,
    pub latest_failed_part: String,
    pub latest_fail_time: i64,
    pub latest_fail_reason: String,
    pub latest_fail_code: Option<ErrorCode>,
}

impl Mutation {
    pub fn id(&self) -> String {
        file_name(self.block)
    }

    fn new(block: u64, create_time: i64, command: MutationCommand) -> Mutation {
        Mutation {
            block,
            create_time,
            command,
            finish_time: 0,
            in_progress: Vec::new(),
            latest_failed_part: String::new(),
            latest_fail_time: 0,
            latest_fail_reason: String::new(),
            latest_fail_code: None,
        }
    }
}

fn file_name(block: u64) -> String {
    format!("mutation_{block}.txt")
}

/// The file's text, as ClickHouse's `MergeTreeMutationEntry` writes it.
fn file_text(m: &Mutation) -> String {
    format!("format version: 1\ncreate time: {}\ncommands: {}\n", datetime_text(m.create_time), escape(&m.command.text()))
}

/// `YYYY-MM-DD hh:mm:ss` in UTC.
fn datetime_text(unix: i64) -> String {
    let (y, mo, d) = granary_types::text::datetime::civil_from_days(unix.div_euclid(86_400));
    let s = unix.rem_euclid(86_400);
    format!("{y:04}-{mo:02}-{d:02} {:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn parse_datetime(text: &str) -> Option<i64> {
    let (date, time) = text.trim().split_once(' ')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, mo, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':').map(|p| p.parse::<i64>().ok());
    let (h, mi, s) = (t.next()??, t.next()??, t.next()??);
    Some(granary_types::text::datetime::days_from_civil(y, u32::try_from(mo).ok()?, u32::try_from(day).ok()?) * 86_400 + h * 3600 + mi * 60 + s)
}

/// ClickHouse's `writeEscapedString`: the command stays on one line.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn parse_file(block: u64, text: &str) -> Result<Mutation> {
    let bad = |what: &str| Error::new(ErrorCode::CANNOT_PARSE_TEXT, format!("Cannot parse {}: {what}", file_name(block)));
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some("format version: 1") {
        return Err(bad("expected 'format version: 1'"));
    }
    let create_time = lines.next().and_then(|l| l.strip_prefix("create time: ")).and_then(parse_datetime).ok_or_else(|| bad("expected 'create time: YYYY-MM-DD hh:mm:ss'"))?;
    let commands = lines.next().and_then(|l| l.strip_prefix("commands: ")).ok_or_else(|| bad("expected 'commands: ...'"))?;
    Ok(Mutation::new(block, create_time, MutationCommand::parse(&unescape(commands))?))
}

/// The table's mutations, by block. A file that cannot be read or parsed is logged and
/// left alone (not applied, not listed), as a broken part is not served.
pub fn load(dir: &Path) -> Result<Vec<Mutation>> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().to_string();
        // `write_atomic`'s temporary: the ALTER that wrote it never returned.
        if name.starts_with("mutation_") && name.ends_with(".tmp") {
            tracing::info!("removing leftover {}", entry.path().display());
            std::fs::remove_file(entry.path()).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot remove {}", entry.path().display()))?;
            continue;
        }
        let Some(block) = name.strip_prefix("mutation_").and_then(|n| n.strip_suffix(".txt")).and_then(|n| n.parse::<u64>().ok()) else { continue };
        let loaded = std::fs::read_to_string(entry.path())
            .with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot read {}", entry.path().display()))
            .and_then(|text| parse_file(block, &text));
        match loaded {
            Ok(m) => out.push(m),
            Err(e) => tracing::error!("mutation {} of {} is not loaded: {e}", name, dir.display()),
        }
    }
    out.sort_by_key(|m| m.block);
    Ok(out)
}

/// The planned form of a command over the table's scan schema.
pub struct Planned {
    predicate: Arc<dyn PhysicalExpr>,
    /// Table column index and its new value (empty for DELETE).
    updates: Vec<(usize, Arc<dyn PhysicalExpr>)>,
    /// MATERIALIZE TTL: the rows `predicate` matches (a partition's) go through the
    /// table's TTL.
    ttl: bool,
    /// `DELETE FROM`: the rows are masked, not removed (`crate::lightweight_delete`).
    lightweight: bool,
    /// MATERIALIZE / CLEAR / DROP INDEX: only index files change.
    index: Option<IndexChange>,
}

struct IndexChange {
    name: String,
    /// The partition it applies to (every one when `None`).
    partition_id: Option<String>,
    build: bool,
}

/// Plans `command`: its errors are the ALTER's, before any mutation exists. An UPDATE's
/// new value is ClickHouse's `_CAST(if(predicate, _CAST(expr, 'T'), c), 'T')` over the
/// old row, so every assignment sees the values before the update. Key columns cannot
/// change: rows would leave their place in the part, or their partition.
pub fn plan(inner: &Inner, command: &MutationCommand) -> Result<Planned> {
    match command {
        MutationCommand::Delete { predicate, lightweight } => Ok(Planned {
            predicate: mutation_predicate(inner, predicate, "DELETE")?,
            updates: Vec::new(),
            ttl: false,
            lightweight: *lightweight,
            index: None,
        }),
        MutationCommand::MaterializeTtl { partition } => Ok(Planned {
            predicate: mutation_predicate(inner, &partition_predicate(inner, partition)?, "MATERIALIZE TTL")?,
            updates: Vec::new(),
            ttl: true,
            lightweight: false,
            index: None,
        }),
        MutationCommand::ClearColumn { column, partition } => {
            let index = inner.schema.index_of(column).map_err(|_| Error::new(ErrorCode::NOT_FOUND_COLUMN_IN_BLOCK, format!("Wrong column name. Cannot find column `{column}` to clear")))?;
            let value = match inner.column_defaults.get(index).cloned().flatten() {
                Some(expression) => expression,
                None => format!("defaultValueOfTypeName('{}')", granary_types::ChType::from_field(inner.schema.field(index)).to_string().replace('\'', "\\'")),
            };
            plan(inner, &MutationCommand::Update { assignments: vec![(column.clone(), value)], predicate: partition_predicate(inner, partition)? })
        }
        MutationCommand::MaterializeColumn { column, partition } => {
            let index = inner.schema.index_of(column).map_err(|_| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("There is no column {column} in table")))?;
            // A column without an expression keeps its values (ClickHouse's mutation
            // then has nothing to compute either).
            let value = inner.column_defaults.get(index).cloned().flatten().unwrap_or_else(|| format!("`{}`", column.replace('`', "\\`")));
            plan(inner, &MutationCommand::Update { assignments: vec![(column.clone(), value)], predicate: partition_predicate(inner, partition)? })
        }
        MutationCommand::MaterializeIndex { name, partition } | MutationCommand::ClearIndex { name, partition } => {
            let partition_id = partition.as_ref().map(|p| crate::merge::partition_id_of(inner, p)).transpose()?;
            let build = matches!(command, MutationCommand::MaterializeIndex { .. });
            let index = Some(IndexChange { name: name.clone(), partition_id, build });
            Ok(Planned { predicate: mutation_predicate(inner, "1 = 1", "INDEX")?, updates: Vec::new(), ttl: false, lightweight: false, index })
        }
        MutationCommand::DropIndex { name } => {
            let index = Some(IndexChange { name: name.clone(), partition_id: None, build: false });
            Ok(Planned { predicate: mutation_predicate(inner, "1 = 1", "INDEX")?, updates: Vec::new(), ttl: false, lightweight: false, index })
        }
        MutationCommand::Update { assignments, predicate } => {
            let keys = inner.keys.sorting.iter().chain(&inner.keys.partition).flat_map(|k| datafusion::physical_expr::utils::collect_columns(&k.expr)).map(|c| c.index()).collect::<Vec<_>>();
            let mut updates = Vec::with_capacity(assignments.len());
            for (name, value) in assignments {
                let column = inner.schema.index_of(name).map_err(|_| Error::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, format!("There is no column `{name}` in table.")))?;
                if keys.contains(&column) {
                    return Err(Error::new(ErrorCode::CANNOT_UPDATE_COLUMN, format!("Cannot UPDATE key column `{name}`.")));
                }
                let t = granary_types::ChType::from_field(inner.schema.field(column)).to_string().replace('\'', "\\'");
                let text = format!("_CAST(if(({predicate}), _CAST(({value}), '{t}'), `{name}`), '{t}')");
                updates.push((column, inner.keys.plan_expr(&inner.scan_schema, &text)?));
            }
            // The condition of `if`: what `if` takes (an integer literal too), as a boolean.
            let predicate = mutation_predicate(inner, &format!("if(({predicate}), true, false)"), "UPDATE")?;
            Ok(Planned { predicate, updates, ttl: false, lightweight: false, index: None })
        }
    }
}

/// The rows of partition `p` (`IN PARTITION p`), or every row.
fn partition_predicate(inner: &Inner, partition: &Option<String>) -> Result<String> {
    Ok(match partition {
        Some(p) => format!("_partition_id = '{}'", crate::merge::partition_id_of(inner, p)?.replace('\'', "\\'")),
        None => "1 = 1".to_string(),
    })
}

/// Evaluates the planned expressions over no rows, as ClickHouse's dry run of a new
/// mutation does: errors of constant parts (`_CAST('x', 'UInt32')`) are the ALTER's
/// then, and no mutation is made that could never succeed.
fn validate(inner: &Inner, planned: &Planned) -> Result<()> {
    let empty = RecordBatch::new_empty(inner.scan_schema.clone());
    planned.predicate.evaluate(&empty)?;
    for (_, value) in &planned.updates {
        value.evaluate(&empty)?;
    }
    Ok(())
}

/// The boolean predicate of a mutation, over the stored and virtual columns
/// (`DELETE WHERE _partition_id = ...` works in ClickHouse).
fn mutation_predicate(inner: &Inner, text: &str, what: &str) -> Result<Arc<dyn PhysicalExpr>> {
    let predicate = inner.keys.plan_predicate(&inner.scan_schema, text)?;
    let data_type = predicate.data_type(&inner.scan_schema)?;
    if data_type != DataType::Boolean {
        return Err(Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, format!("Illegal type {data_type} of column for filter: the {what} predicate must be boolean ({text})")));
    }
    Ok(predicate)
}

/// Creates a mutation: plans it (errors are the ALTER's), takes its block number, writes
/// its file durably, then runs it: waited for when `sync` (its failure is the ALTER's
/// error, as ClickHouse's `mutations_sync` reports it), else in the background.
pub async fn create(inner: &Arc<Inner>, command: MutationCommand, sync: bool) -> Result<()> {
    validate(inner, &plan(inner, &command)?)?;
    let block = {
        // Under the commit lock: an INSERT committing now gets a block on one side of
        // the mutation, and its part is in the snapshot the mutation sees or after it.
        let _commit = inner.commit_lock.lock();
        inner.next_block.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    };
    let mutation = Mutation::new(block, unix_now(), command);
    granary_common::fs::write_atomic(&inner.dir.join(mutation.id()), file_text(&mutation).as_bytes())?;
    inner.mutations.lock().push(mutation);
    if !sync {
        inner.merge_wakeup.notify_one();
        return Ok(());
    }
    let _merge = inner.merge_lock.lock().await;
    let task_inner = inner.clone();
    let result = tokio::task::spawn_blocking(move || apply_pending(&task_inner))
        .await
        .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("mutation task failed: {e}")))?;
    match result {
        Err(e) if inner.mutations.lock().iter().any(|m| m.block <= block && !m.latest_fail_reason.is_empty()) => Err(e),
        _ => Ok(()),
    }
}

/// Applies every pending mutation, in block order, to the parts below its version. The
/// caller holds the merge lock. Stops at the first failure, which is recorded on the
/// failing mutation and the ones behind it, and returned.
pub fn apply_pending(inner: &Inner) -> Result<()> {
    // DROP TABLE waits on this, not on the merge lock, whose async holder may be gone.
    let _running = inner.merge_running.lock();
    let pending: Vec<(u64, MutationCommand)> = inner.mutations.lock().iter().map(|m| (m.block, m.command.clone())).collect();
    for (block, command) in pending {
        let mut current = String::new();
        let result = (|| -> Result<()> {
            let planned = plan(inner, &command)?;
            let todo: Vec<Arc<Part>> = inner.snapshot().iter().filter(|p| p.info.data_version() < block).cloned().collect();
            for part in todo {
                if inner.shutdown.load(std::sync::atomic::Ordering::SeqCst) || !exists(inner, block) {
                    return Ok(());
                }
                current = part.name();
                set_in_progress(inner, block, vec![current.clone()]);
                mutate_part(inner, &part, &planned, block)?;
            }
            Ok(())
        })();
        set_in_progress(inner, block, Vec::new());
        let now = unix_now();
        let mut mutations = inner.mutations.lock();
        match result {
            Ok(()) => {
                if let Some(m) = mutations.iter_mut().find(|m| m.block == block) {
                    m.finish_time = now;
                    m.latest_failed_part.clear();
                    m.latest_fail_reason.clear();
                    m.latest_fail_time = 0;
                    m.latest_fail_code = None;
                }
            }
            Err(e) => {
                for m in mutations.iter_mut().filter(|m| m.block >= block) {
                    m.latest_failed_part = current.clone();
                    m.latest_fail_time = now;
                    m.latest_fail_reason = e.to_string();
                    m.latest_fail_code = Some(e.code());
                }
                return Err(Error::new(
                    ErrorCode::UNFINISHED,
                    format!(
                        "Exception happened during execution of mutation '{}' with part '{current}' reason: '{e}'. This error maybe retryable or not. In case of unretryable error, mutation can be killed with KILL MUTATION query",
                        file_name(block)
                    ),
                ));
            }
        }
    }
    clear_old(inner)
}

/// ClickHouse's `clearOldMutations`: of the done mutations (those at or below every
/// active part's data version: all of them when there is no part), all but the last
/// `finished_mutations_to_keep` are forgotten and their files removed (0 keeps all).
pub fn clear_old(inner: &Inner) -> Result<()> {
    let keep = inner.settings.finished_mutations_to_keep as usize;
    if keep == 0 {
        return Ok(());
    }
    let min_version = inner.snapshot().iter().map(|p| p.info.data_version()).min();
    let gone: Vec<Mutation> = {
        let mut mutations = inner.mutations.lock();
        let done = mutations.iter().take_while(|m| min_version.is_none_or(|v| m.block <= v)).count();
        if done <= keep {
            return Ok(());
        }
        mutations.drain(..done - keep).collect()
    };
    for m in &gone {
        let path = inner.dir.join(m.id());
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::with_source(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot remove {}", path.display()), e)),
        }
    }
    granary_common::fs::sync_dir(&inner.dir)
}

fn exists(inner: &Inner, block: u64) -> bool {
    inner.mutations.lock().iter().any(|m| m.block == block)
}

fn set_in_progress(inner: &Inner, block: u64, parts: Vec<String>) {
    if let Some(m) = inner.mutations.lock().iter_mut().find(|m| m.block == block) {
        m.in_progress = parts;
    }
}

/// `KILL MUTATION`: forgets the mutation and removes its file durably. Parts it already
/// rewrote keep their version. Returns false when the table has no such mutation.
pub fn kill(inner: &Inner, mutation_id: &str) -> Result<bool> {
    let mut mutations = inner.mutations.lock();
    let Some(index) = mutations.iter().position(|m| m.id() == mutation_id) else { return Ok(false) };
    let path = inner.dir.join(mutation_id);
    match std::fs::remove_file(&path) {
        Ok(()) => granary_common::fs::sync_dir(&inner.dir)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::with_source(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot remove {}", path.display()), e)),
    }
    mutations.remove(index);
    Ok(true)
}

/// `system.mutations` rows of the table, oldest first.
pub fn statuses(inner: &Inner) -> Vec<MutationStatus> {
    let snapshot = inner.snapshot();
    let mut mutations = inner.mutations.lock();
    mutations
        .iter_mut()
        .map(|m| {
            let mut todo: Vec<String> = snapshot.iter().filter(|p| p.info.data_version() < m.block).map(|p| p.name()).collect();
            todo.sort();
            let is_done = todo.is_empty();
            if is_done && m.finish_time == 0 {
                m.finish_time = unix_now().max(m.create_time);
            }
            MutationStatus {
                mutation_id: m.id(),
                command: m.command.text(),
                create_time: m.create_time,
                finish_time: if is_done { m.finish_time } else { 0 },
                parts_to_do: todo.len() as i64,
                parts_to_do_names: todo,
                parts_in_progress_names: m.in_progress.clone(),
                is_done,
                latest_failed_part: m.latest_failed_part.clone(),
                latest_fail_time: m.latest_fail_time,
                latest_fail_reason: m.latest_fail_reason.clone(),
                latest_fail_error_code_name: m.latest_fail_code.map(|c| c.name().to_string()).unwrap_or_default(),
            }
        })
        .collect()
}

/// The largest mutation at or below `data_version`: parts may merge only when theirs
/// are equal (ClickHouse's rule), or the merged part's version would claim a mutation
/// for rows that never had it.
pub fn current_version(inner: &Inner, data_version: u64) -> u64 {
    inner.mutations.lock().iter().map(|m| m.block).filter(|&b| b <= data_version).max().unwrap_or(0)
}

/// Brings `part` to data version `version`: rewritten when a row matches, renamed by
/// hard links when none does, removed when every row goes.
fn mutate_part(inner: &Inner, part: &Arc<Part>, planned: &Planned, version: u64) -> Result<()> {
    if let Some(change) = &planned.index {
        let info = part.info.clone().with_mutation(Some(version));
        if change.partition_id.as_ref().is_some_and(|p| *p != part.info.partition_id) {
            return link_part(inner, part, info, version, None, None);
        }
        let file = crate::skip_index::file_name(&change.name);
        // An index the table no longer has (dropped since) is not built.
        let bytes = match (change.build, inner.skip_indexes.get(&change.name)) {
            (true, Some(index)) => Some(index_of_part(inner, part, index)?),
            _ => None,
        };
        return link_part(inner, part, info, version, None, Some((&file, bytes)));
    }
    let Planned { predicate, updates, ttl, lightweight, .. } = planned;
    let snapshot = inner.snapshot();
    let filter_columns: Vec<usize> = {
        let mut c: Vec<usize> = datafusion::physical_expr::utils::collect_columns(predicate).into_iter().map(|c| c.index()).collect();
        c.sort_unstable();
        c
    };
    let scan_schema = &inner.scan_schema;
    let stored: Vec<usize> = (0..inner.schema.fields().len()).collect();
    // The stored columns, then the virtual ones (made, not read: they cost nothing).
    let all: Vec<usize> = (0..scan_schema.fields().len()).collect();
    let virtual_values = VirtualValues::new(inner, snapshot.iter());
    let info = part.info.clone().with_mutation(Some(version));
    // First pass: only the predicate's columns, to skip parts without matches.
    let projected = Arc::new(scan_schema.project(&filter_columns)?);
    let remap = remap_predicate(predicate, scan_schema, &filter_columns)?;
    let mut reader = PartReader::new(part.clone(), scan_schema, &filter_columns)?.with_virtual_values(&virtual_values, &inner.keys, &inner.schema)?;
    let mut matches = 0u64;
    // Per granule, the rows the predicate matches among those not deleted before.
    let mut matched = Vec::with_capacity(part.granules());
    for g in 0..part.granules() {
        let batch = reader.read(g..g + 1, &projected)?;
        let mut mask = deleted_mask(&remap, &batch)?;
        if let Some(existing) = part.existing_in(g..g + 1) {
            mask = arrow::compute::and(&mask, &existing)?;
        }
        matches += mask.true_count() as u64;
        if *lightweight {
            matched.push(mask);
        }
    }
    // A MATERIALIZE TTL left from before REMOVE TTL has nothing to apply.
    if matches == 0 || (*ttl && inner.ttl.is_none()) {
        return link_part(inner, part, info, version, None, None);
    }
    if *lightweight {
        let matched: Vec<&dyn Array> = matched.iter().map(|m| m as &dyn Array).collect();
        let deleted = arrow::compute::concat(&matched)?;
        let deleted = deleted.as_any().downcast_ref::<BooleanArray>().ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, "mask is not boolean"))?;
        let mask = crate::lightweight_delete::mask_after(part, deleted)?;
        return link_part(inner, part, info, version, Some(&mask), None);
    }
    // With `ttl_only_drop_parts` MATERIALIZE TTL removes whole parts, never rows.
    let drop_whole = match (&inner.ttl, *ttl && inner.settings.ttl_only_drop_parts != 0) {
        (Some(table_ttl), true) => {
            if !every_row_expired(inner, part, table_ttl)? {
                return link_part(inner, part, info, version, None, None);
            }
            true
        }
        _ => false,
    };
    if (matches == part.existing_rows() && updates.is_empty() && !ttl) || drop_whole {
        let _commit = inner.commit_lock.lock();
        if !inner.all_active(std::slice::from_ref(part)) || !exists(inner, version) {
            return Ok(());
        }
        return crate::engine::drop_active_parts(inner, std::slice::from_ref(part));
    }
    let mut reader = PartReader::new(part.clone(), scan_schema, &all)?.with_virtual_values(&virtual_values, &inner.keys, &inner.schema)?;
    let now = crate::ttl::unix_now();
    let ttl_stream = match (*ttl, &inner.ttl) {
        (true, Some(table_ttl)) => Some(table_ttl.stream(now)?),
        _ => None,
    };
    let blocks = (0..part.granules()).map(|g| {
        let batch = reader.read(g..g + 1, scan_schema)?;
        // Rows a lightweight delete masked go now: the new part has no mask.
        let batch = match part.existing_in(g..g + 1) {
            Some(existing) => filter_record_batch(&batch, &existing)?,
            None => batch,
        };
        if *ttl {
            return Ok(batch.project(&stored)?);
        }
        if updates.is_empty() {
            let deleted = deleted_mask(predicate, &batch)?;
            return Ok(filter_record_batch(&batch.project(&stored)?, &not(&deleted)?)?);
        }
        let mut columns = batch.project(&stored)?.columns().to_vec();
        for (column, value) in updates {
            let field = inner.schema.field(*column);
            let value = value.evaluate(&batch)?.into_array(batch.num_rows())?;
            columns[*column] = if value.data_type() == field.data_type() { value } else { arrow::compute::cast(&value, field.data_type())? };
        }
        Ok(RecordBatch::try_new(inner.schema.clone(), columns)?)
    });
    let blocks = crate::ttl::apply_to_blocks(ttl_stream, blocks);
    let layout = crate::merge::layout_of_merge(inner, std::slice::from_ref(part));
    // Each source granule, filtered, is one block, as ClickHouse's mutation reads it.
    let pending = write_part_with(inner, info, "tmp_mut_", PartSync::FULL, layout, |writer| {
        if *ttl {
            writer.ttl_applied_at(now);
            writer.ttl_sources(part.ttl.clone().unwrap_or_default());
        }
        // Every row may have expired (the part is then removed below, not committed) or
        // been masked (the empty part still covers the old one).
        if *ttl || part.row_exists.is_some() {
            writer.allow_empty(part);
        }
        for block in blocks {
            writer.write(&block?)?;
        }
        Ok(())
    })?;
    let _commit = inner.commit_lock.lock();
    if !inner.all_active(std::slice::from_ref(part)) || !exists(inner, version) {
        discard(std::slice::from_ref(&pending));
        return Ok(());
    }
    // MATERIALIZE TTL removed every row: the part goes, as after a merge.
    if *ttl && pending.part.rows == 0 {
        discard(std::slice::from_ref(&pending));
        return crate::engine::drop_active_parts(inner, std::slice::from_ref(part));
    }
    if let Err(e) = commit_part_dir(&pending.tmp_dir, &pending.final_dir, PartSync::FULL) {
        discard(std::slice::from_ref(&pending));
        return Err(e);
    }
    let mutated = Arc::new(pending.part);
    inner.log_part("MutatePart", &mutated, std::slice::from_ref(part), std::time::Duration::ZERO);
    inner.add_parts(vec![mutated], std::slice::from_ref(part));
    Ok(())
}

/// Whether the table's TTL would remove every row of `part` now.
fn every_row_expired(inner: &Inner, part: &Arc<Part>, table_ttl: &crate::ttl::TableTtl) -> Result<bool> {
    let all: Vec<usize> = (0..inner.schema.fields().len()).collect();
    let mut reader = PartReader::new(part.clone(), &inner.schema, &all)?;
    let now = crate::ttl::unix_now();
    for g in 0..part.granules() {
        if table_ttl.apply(&reader.read(g..g + 1, &inner.schema)?, now)?.num_rows() > 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `index` over every row of `part`: its file's bytes.
fn index_of_part(inner: &Inner, part: &Arc<Part>, index: &crate::skip_index::SkipIndex) -> Result<Vec<u8>> {
    let all: Vec<usize> = (0..inner.schema.fields().len()).collect();
    let mut reader = PartReader::new(part.clone(), &inner.schema, &all)?;
    let mut builder = index.builder();
    for g in 0..part.granules() {
        builder.add_granule(&reader.read(g..g + 1, &inner.schema)?)?;
    }
    builder.finish()
}

/// The part under its new version without rewriting it: every file hard-linked (parts
/// are never modified in place) into a temporary directory, fsynced, renamed. With
/// `mask`, a lightweight delete: the part's `_row_exists` becomes `mask`, the only
/// column written (with `columns.txt` and `checksums.txt`, which list it). With
/// `index_file`, that file is left out, or replaced by the bytes given, and
/// `checksums.txt` is written anew to say so.
fn link_part(inner: &Inner, part: &Arc<Part>, info: PartInfo, version: u64, mask: Option<&BooleanArray>, index_file: Option<(&str, Option<Vec<u8>>)>) -> Result<()> {
    use crate::lightweight_delete::{ROW_EXISTS_BIN, ROW_EXISTS_MRK};
    let rewritten = [crate::part::CHECKSUMS_FILE, "columns.txt", ROW_EXISTS_BIN, ROW_EXISTS_MRK];
    let tmp_seq = inner.next_tmp.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp_dir = inner.dir.join(format!("tmp_mut_{}_{tmp_seq}", info.name()));
    let final_dir = inner.dir.join(info.name());
    let linked = (|| {
        granary_storage::fs::create_dir_all(&tmp_dir)?;
        let entries = std::fs::read_dir(&part.dir).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", part.dir.display()))?;
        for entry in entries {
            let entry = entry.with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", part.dir.display()))?;
            if mask.is_some() && rewritten.iter().any(|r| entry.file_name() == *r) {
                continue;
            }
            if index_file.as_ref().is_some_and(|(name, _)| entry.file_name() == *name || entry.file_name() == crate::part::CHECKSUMS_FILE) {
                continue;
            }
            link_file(&entry.path(), &tmp_dir.join(entry.file_name()))?;
        }
        if let Some(mask) = mask {
            write_masked_files(inner, part, &tmp_dir, mask)?;
        }
        if let Some((name, bytes)) = &index_file {
            let old = std::fs::read_to_string(part.dir.join(crate::part::CHECKSUMS_FILE))
                .with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot read {}", part.dir.join(crate::part::CHECKSUMS_FILE).display()))?;
            let mut checksums: String = old.lines().filter(|l| l.split('\t').next() != Some(*name)).map(|l| format!("{l}\n")).collect();
            if let Some(bytes) = bytes {
                granary_common::fs::write_atomic(&tmp_dir.join(name), bytes)?;
                checksums.push_str(&format!("{name}\t{}\t{:016x}\n", bytes.len(), xxhash_rust::xxh3::xxh3_64(bytes)));
            }
            granary_common::fs::write_atomic(&tmp_dir.join(crate::part::CHECKSUMS_FILE), checksums.as_bytes())?;
        }
        granary_common::fs::sync_dir(&tmp_dir)
    })();
    let remove_tmp = || {
        if let Err(e) = std::fs::remove_dir_all(&tmp_dir) {
            tracing::warn!("cannot remove {}: {e}", tmp_dir.display());
        }
    };
    if let Err(e) = linked {
        remove_tmp();
        return Err(e);
    }
    let _commit = inner.commit_lock.lock();
    if !inner.all_active(std::slice::from_ref(part)) || !exists(inner, version) {
        remove_tmp();
        return Ok(());
    }
    if let Err(e) = commit_part_dir(&tmp_dir, &final_dir, PartSync::FULL) {
        remove_tmp();
        return Err(e);
    }
    let renamed = Arc::new(Part::load(&final_dir, info, &inner.schema, &inner.keys)?);
    inner.log_part("MutatePart", &renamed, std::slice::from_ref(part), std::time::Duration::ZERO);
    inner.add_parts(vec![renamed], std::slice::from_ref(part));
    Ok(())
}

/// A file of a part under a new part's directory: hard-linked (parts are never modified
/// in place), copied where links are not possible, and fsynced (an inserted part may
/// not have been: `fsync_after_insert = 0`).
pub fn link_file(from: &Path, target: &Path) -> Result<()> {
    if std::fs::hard_link(from, target).is_err() {
        std::fs::copy(from, target).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot copy {} to {}", from.display(), target.display()))?;
    }
    std::fs::File::open(target).and_then(|f| f.sync_all()).with_code(ErrorCode::CANNOT_FSYNC, || format!("Cannot fsync {}", target.display()))
}

/// A lightweight delete's files of the new part in `dir`: the mask, `columns.txt` with
/// it, and `checksums.txt` (the old part's lines for the linked files, then these).
fn write_masked_files(inner: &Inner, part: &Part, dir: &Path, mask: &BooleanArray) -> Result<()> {
    use crate::lightweight_delete::{with_row_exists, write_mask, write_synced, ROW_EXISTS_BIN, ROW_EXISTS_MRK};
    let old = crate::part::read_text(&part.dir.join(crate::part::CHECKSUMS_FILE))?;
    let mut checksums: String = old
        .lines()
        .filter(|l| !l.is_empty() && !["columns.txt", ROW_EXISTS_BIN, ROW_EXISTS_MRK].contains(&l.split('\t').next().unwrap_or_default()))
        .map(|l| format!("{l}\n"))
        .collect();
    checksums.push_str(&write_mask(dir, part, mask)?);
    let columns = crate::part::columns_txt(&with_row_exists(&inner.schema));
    write_synced(&dir.join("columns.txt"), columns.as_bytes())?;
    checksums.push_str(&format!("columns.txt\t{}\t{:016x}\n", columns.len(), xxhash_rust::xxh3::xxh3_64(columns.as_bytes())));
    write_synced(&dir.join(crate::part::CHECKSUMS_FILE), checksums.as_bytes())
}

/// Rows the predicate deletes: true only (NULL keeps the row, as in ClickHouse).
fn deleted_mask(predicate: &Arc<dyn PhysicalExpr>, batch: &RecordBatch) -> Result<BooleanArray> {
    let value = predicate.evaluate(batch)?.into_array(batch.num_rows())?;
    let mask = value
        .as_any()
        .downcast_ref::<BooleanArray>()
        .ok_or_else(|| Error::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, "DELETE predicate is not boolean"))?;
    Ok(if mask.null_count() > 0 { prep_null_mask_filter(mask) } else { mask.clone() })
}

/// The predicate over the projected batch of `columns` (column indices renumbered).
fn remap_predicate(
    predicate: &Arc<dyn PhysicalExpr>,
    schema: &arrow::datatypes::SchemaRef,
    columns: &[usize],
) -> Result<Arc<dyn PhysicalExpr>> {
    use datafusion::common::tree_node::{Transformed, TreeNode};
    use datafusion::physical_plan::expressions::Column;
    let out = predicate.clone().transform(|e| {
        if let Some(c) = e.downcast_ref::<Column>() {
            let index = columns.iter().position(|&i| i == c.index()).unwrap_or(0);
            return Ok(Transformed::yes(Arc::new(Column::new(schema.field(c.index()).name(), index)) as Arc<dyn PhysicalExpr>));
        }
        Ok(Transformed::no(e))
    })?;
    Ok(out.data)
}

fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::SystemTime::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn commands_round_trip_through_their_text() {
        let update = MutationCommand::Update {
            assignments: vec![("v".into(), "concat(s, ', WHERE \\'x\\'')".into()), ("n".into(), "if(a = 1, [1, 2], [])".into())],
            predicate: "k IN (1, 2) AND s != 'a WHERE b'".into(),
        };
        let lightweight = MutationCommand::Delete { predicate: "k % 3 = 0".into(), lightweight: true };
        assert_eq!(lightweight.text(), "(UPDATE _row_exists = 0 WHERE k % 3 = 0)");
        let rules = [
            MutationCommand::MaterializeTtl { partition: None },
            MutationCommand::MaterializeTtl { partition: Some("'a b'".into()) },
            MutationCommand::ClearColumn { column: "x".into(), partition: None },
            MutationCommand::ClearColumn { column: "x".into(), partition: Some("(1, 'in partition')".into()) },
            MutationCommand::MaterializeColumn { column: "m".into(), partition: Some("2".into()) },
            MutationCommand::MaterializeIndex { name: "i".into(), partition: None },
            MutationCommand::MaterializeIndex { name: "i".into(), partition: Some("202401".into()) },
            MutationCommand::ClearIndex { name: "i".into(), partition: Some("'x'".into()) },
            MutationCommand::DropIndex { name: "i".into() },
        ];
        assert_eq!(rules.iter().map(MutationCommand::text).collect::<Vec<_>>(), [
            "(MATERIALIZE TTL)",
            "(MATERIALIZE TTL IN PARTITION 'a b')",
            "(CLEAR COLUMN x)",
            "(CLEAR COLUMN x IN PARTITION (1, 'in partition'))",
            "(MATERIALIZE COLUMN m IN PARTITION 2)",
            "(MATERIALIZE INDEX i)",
            "(MATERIALIZE INDEX i IN PARTITION 202401)",
            "(CLEAR INDEX i IN PARTITION 'x')",
            "(DROP INDEX i)"
        ]);
        for command in [MutationCommand::Delete { predicate: "x = 'it''s'".into(), lightweight: false }, update, lightweight].into_iter().chain(rules) {
            let text = command.text();
            assert_eq!(MutationCommand::parse(&text).unwrap(), command, "{text}");
            assert_eq!(MutationCommand::parse(&unescape(&escape(&text))).unwrap(), command);
        }
        assert_eq!(MutationCommand::Delete { predicate: "x = 3".into(), lightweight: false }.text(), "(DELETE WHERE x = 3)");
        for bad in ["DELETE WHERE 1", "(DROP WHERE 1)", "(UPDATE v WHERE 1)", "(UPDATE v = 1)"] {
            assert!(MutationCommand::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn files_are_written_as_clickhouse_writes_them_and_read_back() {
        let m = Mutation::new(7, 1_795_000_000, MutationCommand::Update { assignments: vec![("v".into(), "'z'".into())], predicate: "x = 2".into() });
        let text = file_text(&m);
        assert_eq!(text, "format version: 1\ncreate time: 2026-11-18 11:06:40\ncommands: (UPDATE v = \\'z\\' WHERE x = 2)\n");
        let back = parse_file(7, &text).unwrap();
        assert_eq!((back.block, back.create_time, back.command), (7, m.create_time, m.command));
        assert!(parse_file(7, "format version: 2\n").is_err());
        assert!(parse_file(7, "format version: 1\ncreate time: x\ncommands: (DELETE WHERE 1)\n").is_err());
    }
}
