//! Durable file operations: write to a temporary name, fsync, rename into place, fsync
//! the directory. A crash leaves either the old file or the new one, never half of one.

use std::fs;
use std::path::Path;

use granary_common::{Error, ErrorCode, Result, ResultExt};

pub use granary_common::fs::{sync_dir, write_atomic};

/// Renames durably (both directories synced).
pub fn rename_durable(from: &Path, to: &Path) -> Result<()> {
    fs::rename(from, to)
        .with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot rename {} to {}", from.display(), to.display()))?;
    if let Some(parent) = to.parent() {
        sync_dir(parent)?;
    }
    if let Some(parent) = from.parent() {
        if Some(parent) != to.parent() {
            sync_dir(parent)?;
        }
    }
    Ok(())
}

pub fn create_dir_all(path: &Path) -> Result<()> {
    fs::create_dir_all(path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot create directory {}", path.display()))
}

/// Escapes a database or table name for use as a file name, as ClickHouse does: bytes
/// outside `[A-Za-z0-9_]` become `%XX`, so any name maps to one safe path component.
pub fn escape_for_file_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The inverse of [`escape_for_file_name`].
pub fn unescape_file_name(name: &str) -> Result<String> {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = name.get(i + 1..i + 3).ok_or_else(|| bad_name(name))?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| bad_name(name))?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| bad_name(name))
}

fn bad_name(name: &str) -> Error {
    Error::new(ErrorCode::INCORRECT_DATA, format!("Bad escaped file name {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_round_trips() {
        for name in ["plain_name1", "with space", "a/b", "ünï", "..", "%"] {
            let escaped = escape_for_file_name(name);
            assert!(!escaped.contains('/') && escaped != "..");
            assert_eq!(unescape_file_name(&escaped).unwrap(), name);
        }
    }

    #[test]
    fn atomic_write_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert!(!p.with_extension("tmp").exists());
    }
}
