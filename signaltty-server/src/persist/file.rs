//! Files in the state dir: atomic, private writes and moving a bad file aside.
//!
//! An atomic write goes to `<name>.tmp` (created 0600), is flushed to disk, renamed over
//! `<name>`, and the directory is flushed so the rename itself is durable. Readers therefore see
//! the previous content or the new one, whole, whatever happens to the server or the machine.

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Whether a write must reach the disk before it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// fsync the file and the directory: the snapshot.
    Synced,
    /// Atomic but left to the page cache: output tails, which are best-effort context and too
    /// many to fsync one by one. A crash of the server loses nothing; a power cut may.
    Cached,
}

/// Creates `dir` 0700, or makes an existing one 0700. Only for directories inside the state dir,
/// which is already private to us, so nobody else can be relying on looser permissions.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let meta = fs::symlink_metadata(dir)?;
            if !meta.is_dir() {
                return Err(io::Error::other(format!(
                    "{} is not a directory",
                    dir.display()
                )));
            }
            if meta.permissions().mode() & 0o077 != 0 {
                fs::set_permissions(dir, Permissions::from_mode(0o700))?;
            }
            Ok(())
        }
        other => other,
    }
}

/// Replaces `dir/name` with `data` atomically; the file is 0600.
pub fn write_atomic(dir: &Path, name: &str, data: &[u8], durability: Durability) -> io::Result<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    // A temp file left by a crash keeps its old mode; make sure of 0600 before writing.
    file.set_permissions(Permissions::from_mode(0o600))?;
    file.write_all(data)?;
    if durability == Durability::Synced {
        file.sync_all()?;
    }
    drop(file);
    fs::rename(&tmp, dir.join(name))?;
    if durability == Durability::Synced {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Flushes a directory's entries (after renames and removals).
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Renames `path` to `<path>.corrupt-<unix seconds>` (with a counter if that exists) and returns
/// the new path. The file is kept for the user to inspect.
pub fn move_aside(path: &Path) -> io::Result<PathBuf> {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let base = format!("{}.corrupt-{stamp}", path.display());
    let mut target = PathBuf::from(&base);
    let mut n = 1;
    while target.exists() {
        target = PathBuf::from(format!("{base}-{n}"));
        n += 1;
    }
    fs::rename(path, &target)?;
    if let Some(dir) = path.parent() {
        sync_dir(dir)?;
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn atomic_writes_replace_the_file_and_leave_it_private() {
        let dir = tempfile::tempdir().unwrap();
        write_atomic(dir.path(), "f.json", b"one", Durability::Synced).unwrap();
        write_atomic(dir.path(), "f.json", b"two", Durability::Cached).unwrap();
        assert_eq!(fs::read(dir.path().join("f.json")).unwrap(), b"two");
        assert_eq!(mode(&dir.path().join("f.json")), 0o600);
        assert!(!dir.path().join("f.json.tmp").exists());
    }

    #[test]
    fn a_leftover_loose_temp_file_does_not_make_the_result_readable() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("f.json.tmp");
        fs::write(&tmp, b"junk").unwrap();
        fs::set_permissions(&tmp, Permissions::from_mode(0o644)).unwrap();
        write_atomic(dir.path(), "f.json", b"ok", Durability::Synced).unwrap();
        assert_eq!(mode(&dir.path().join("f.json")), 0o600);
    }

    #[test]
    fn move_aside_keeps_every_bad_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("snapshot.json");
        fs::write(&path, b"bad 1").unwrap();
        let first = move_aside(&path).unwrap();
        fs::write(&path, b"bad 2").unwrap();
        let second = move_aside(&path).unwrap();
        assert_ne!(first, second);
        assert!(!path.exists());
        assert_eq!(fs::read(first).unwrap(), b"bad 1");
        assert_eq!(fs::read(second).unwrap(), b"bad 2");
    }
}
