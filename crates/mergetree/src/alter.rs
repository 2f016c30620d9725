//! Partition commands (`ALTER TABLE ... DROP/DETACH/ATTACH PARTITION`) and the
//! `DELETE WHERE` and `UPDATE ... WHERE` mutations.
//!
//! All of them hold the table's merge lock (no merge is half-way over the parts they
//! touch) and the commit lock for the snapshot swap.
//!
//! * DROP: the partition's parts leave the snapshot and are removed durably at once
//!   (renamed to `delete_tmp_<name>` first, so a crash never resurrects them); outdated
//!   parts of the partition go too, since nothing would cover them after a restart.
//! * DETACH: the parts move to `detached/<name>` (never served, never deleted).
//! * ATTACH: every `detached/<partition>_*` part is verified as at load (checksums,
//!   columns), gets a fresh block number and moves back in.
//! * DELETE WHERE / UPDATE ... WHERE: mutations, see `crate::mutation`.

use std::sync::Arc;

use granary_common::{Error, ErrorCode, Result, ResultExt};
use granary_storage::{DeleteRequest, PartitionCommand, UpdateRequest};

use crate::engine::{remove_parts_now, Inner};
use crate::mutation::MutationCommand;
use crate::part::Part;
use crate::part_info::PartInfo;

pub async fn alter_partition(inner: &Arc<Inner>, command: PartitionCommand) -> Result<()> {
    let _merge = inner.merge_lock.lock().await;
    let inner = inner.clone();
    tokio::task::spawn_blocking(move || match command {
        PartitionCommand::Drop { partition } => {
            let id = crate::merge::partition_id_of(&inner, &partition)?;
            let _commit = inner.commit_lock.lock();
            let mut gone = inner.remove_active(|p| p.info.partition_id == id);
            gone.extend(inner.take_outdated(|p| p.info.partition_id == id));
            remove_parts_now(&inner, &gone)
        }
        PartitionCommand::Detach { partition } => {
            let id = crate::merge::partition_id_of(&inner, &partition)?;
            let _commit = inner.commit_lock.lock();
            let gone = inner.remove_active(|p| p.info.partition_id == id);
            let detached = inner.dir.join("detached");
            granary_storage::fs::create_dir_all(&detached)?;
            for part in &gone {
                granary_storage::fs::rename_durable(&part.dir, &detached.join(part.name()))?;
            }
            let outdated = inner.take_outdated(|p| p.info.partition_id == id);
            remove_parts_now(&inner, &outdated)
        }
        PartitionCommand::Attach { partition } => attach(&inner, &partition),
    })
    .await
    .map_err(|e| Error::new(ErrorCode::LOGICAL_ERROR, format!("partition task failed: {e}")))?
}

fn attach(inner: &Inner, partition: &str) -> Result<()> {
    let id = crate::merge::partition_id_of(inner, partition)?;
    let detached = inner.dir.join("detached");
    let mut found: Vec<(PartInfo, std::path::PathBuf)> = Vec::new();
    if detached.is_dir() {
        let entries = std::fs::read_dir(&detached).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", detached.display()))?;
        for entry in entries {
            let entry = entry.with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot list {}", detached.display()))?;
            let name = entry.file_name().to_string_lossy().to_string();
            // `broken_*` and other prefixed names do not parse: they stay detached.
            if let Ok(info) = PartInfo::parse(&name) {
                if info.partition_id == id {
                    found.push((info, entry.path()));
                }
            }
        }
    }
    found.sort();
    // Verify everything before moving anything: ATTACH is all or nothing.
    let _commit = inner.commit_lock.lock();
    let mut loaded = Vec::with_capacity(found.len());
    for (info, path) in &found {
        let block = inner.next_block.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let new_info = PartInfo::new(id.clone(), block, block, info.level);
        let part = Part::load(path, new_info, &inner.schema, &inner.keys).map_err(|e| e.context(format!("cannot attach part {}", info.name())))?;
        loaded.push((path.clone(), part));
    }
    let mut attached = Vec::with_capacity(loaded.len());
    for (path, mut part) in loaded {
        let target = inner.dir.join(part.name());
        granary_storage::fs::rename_durable(&path, &target)?;
        part.dir = target;
        attached.push(Arc::new(part));
    }
    inner.add_parts(attached, &[]);
    Ok(())
}

/// `ALTER TABLE t DELETE WHERE predicate`: a mutation (see `crate::mutation`), waited
/// for when `request.sync`.
pub async fn delete_where(inner: &Arc<Inner>, request: DeleteRequest) -> Result<()> {
    crate::mutation::create(inner, MutationCommand::Delete { predicate: request.predicate, lightweight: request.lightweight }, request.sync).await
}

/// `ALTER TABLE t UPDATE c = expr, ... WHERE predicate`, run as `delete_where`.
pub async fn update_where(inner: &Arc<Inner>, request: UpdateRequest) -> Result<()> {
    crate::mutation::create(inner, MutationCommand::Update { assignments: request.assignments, predicate: request.predicate }, request.sync).await
}
