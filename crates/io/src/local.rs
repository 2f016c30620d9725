//! Local files for `file()`: paths confined to `user_files_path`, glob listing.
//!
//! A relative path is taken from `user_files_path`; an absolute one must lie inside it.
//! `..` components are refused outright (as are `.` tricks, since the path is compared
//! component by component), and every matched file is resolved through its symlinks
//! and checked again, so a link inside `user_files` pointing outside cannot be read.

use std::path::{Component, Path, PathBuf};

use granary_common::{Error, ErrorCode, Result};

use crate::glob::{has_glob, Glob};
use crate::table::FileEntry;

fn outside(root: &Path) -> Error {
    Error::new(ErrorCode::DATABASE_ACCESS_DENIED, format!("File is not inside {}/", root.display()))
}

/// The absolute form of `path` (which may hold globs) under `root`, or an error if it
/// could leave `root`.
pub fn confine(root: &Path, path: &str) -> Result<PathBuf> {
    let candidate = Path::new(path);
    let joined = if candidate.is_absolute() { candidate.to_path_buf() } else { root.join(candidate) };
    let mut clean = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => return Err(outside(root)),
            Component::CurDir => {}
            other => clean.push(other.as_os_str()),
        }
    }
    if !clean.starts_with(root) {
        return Err(outside(root));
    }
    Ok(clean)
}

/// Files matching `pattern` (an absolute, confined path that may hold globs), sorted.
/// A plain path that does not exist gives an empty list: the caller picks the error.
pub fn list(root: &Path, pattern: &Path) -> Result<Vec<FileEntry>> {
    let canonical_root = root.canonicalize().map_err(|e| Error::new(ErrorCode::CANNOT_OPEN_FILE, format!("Cannot open user_files_path {}: {e}", root.display())))?;
    let text = pattern.to_string_lossy().into_owned();
    let mut found = Vec::new();
    if !has_glob(&text) {
        if let Some(entry) = entry_of(&canonical_root, pattern, &text)? {
            found.push(entry);
        }
        return Ok(found);
    }
    let glob = Glob::new_local(&text)?;
    let prefix = glob.literal_prefix();
    let start = match prefix.rfind('/') {
        Some(i) => PathBuf::from(&prefix[..i.max(1)]),
        None => root.to_path_buf(),
    };
    // Without `**` a pattern can only match as deep as it has slashes.
    let max_depth = if glob.is_recursive() { usize::MAX } else { text.matches('/').count().saturating_sub(start.to_string_lossy().trim_end_matches('/').matches('/').count()) };
    walk(&canonical_root, &start, &glob, max_depth, &mut found)?;
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

fn walk(root: &Path, dir: &Path, glob: &Glob, depth: usize, found: &mut Vec<FileEntry>) -> Result<()> {
    if depth == 0 {
        return Ok(());
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let text = path.to_string_lossy().into_owned();
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        if meta.is_dir() {
            walk(root, &path, glob, depth - 1, found)?;
        } else if glob.matches(&text) {
            if let Some(e) = entry_of(root, &path, &text)? {
                found.push(e);
            }
        }
    }
    Ok(())
}

fn entry_of(canonical_root: &Path, path: &Path, text: &str) -> Result<Option<FileEntry>> {
    let Ok(real) = path.canonicalize() else {
        return Ok(None);
    };
    if !real.starts_with(canonical_root) {
        return Err(outside(canonical_root));
    }
    let meta = std::fs::metadata(&real).map_err(|e| crate::table::open_error(text, e))?;
    if meta.is_dir() {
        return Ok(None);
    }
    let last_modified = meta.modified().ok().map(chrono::DateTime::<chrono::Utc>::from);
    Ok(Some(FileEntry { path: text.to_string(), size: meta.len(), last_modified, etag: None, remote: None, hive_values: None }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confinement() {
        let root = Path::new("/data/user_files");
        assert_eq!(confine(root, "a/b.csv").unwrap(), PathBuf::from("/data/user_files/a/b.csv"));
        assert_eq!(confine(root, "/data/user_files/x.csv").unwrap(), PathBuf::from("/data/user_files/x.csv"));
        assert_eq!(confine(root, "../x").unwrap_err().code(), ErrorCode::DATABASE_ACCESS_DENIED);
        assert_eq!(confine(root, "a/../../x").unwrap_err().code(), ErrorCode::DATABASE_ACCESS_DENIED);
        assert_eq!(confine(root, "/etc/passwd").unwrap_err().code(), ErrorCode::DATABASE_ACCESS_DENIED);
        assert_eq!(confine(root, "/data/user_files_other/x").unwrap_err().code(), ErrorCode::DATABASE_ACCESS_DENIED);
    }

    #[test]
    fn listing_and_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("user_files");
        std::fs::create_dir_all(root.join("d/e")).unwrap();
        for name in ["a1.csv", "a2.csv", "b.tsv", "d/c.csv", "d/e/f.csv"] {
            std::fs::write(root.join(name), "1\n").unwrap();
        }
        std::fs::write(dir.path().join("secret.csv"), "x\n").unwrap();
        let names = |p: &str| -> Vec<String> {
            let pattern = confine(&root, p).unwrap();
            list(&root, &pattern).unwrap().iter().map(|e| e.path.strip_prefix(&format!("{}/", root.display())).unwrap().to_string()).collect()
        };
        assert_eq!(names("a*.csv"), ["a1.csv", "a2.csv"]);
        assert_eq!(names("*"), ["a1.csv", "a2.csv", "b.tsv"]);
        assert_eq!(names("**.csv"), ["a1.csv", "a2.csv"]);
        assert_eq!(names("**/*.csv"), ["a1.csv", "a2.csv", "d/c.csv", "d/e/f.csv"]);
        assert_eq!(names("d/*/*.csv"), ["d/e/f.csv"]);
        assert_eq!(names("a{1..2}.csv"), ["a1.csv", "a2.csv"]);
        assert!(names("nope*.csv").is_empty());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.csv"), root.join("link.csv")).unwrap();
            let pattern = confine(&root, "link.csv").unwrap();
            assert_eq!(list(&root, &pattern).unwrap_err().code(), ErrorCode::DATABASE_ACCESS_DENIED);
        }
    }
}
