//! Durable small-file writes: write to a temporary name, fsync, rename into place, fsync
//! the directory. A crash leaves either the old file or the new one, never half of one.
//! (Catalog metadata, access entities; parts have their own writer in the storage crates.)

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

use crate::{ErrorCode, Result, ResultExt};

/// Atomically replaces `path` with `contents`.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot open file {}", tmp.display()))?;
        file.write_all(contents)
            .and_then(|_| file.sync_all())
            .with_code(ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR, || format!("Cannot write file {}", tmp.display()))?;
    }
    fs::rename(&tmp, path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot rename {} into place", tmp.display()))?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Makes a rename or unlink inside `dir` durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot fsync directory {}", dir.display()))
}

