//! Careful file access for the installers: read a config (following symlinks, regular files only,
//! size-capped) and replace it atomically without losing its mode, refusing if it changed since it
//! was read.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::{InstallError, MAX_CONFIG_BYTES};

/// Mode for files we create: only the user reads its agent configuration.
const NEW_FILE_MODE: u32 = 0o600;

/// A config file as read: where it really lives (symlinks resolved) and its bytes, if it exists.
#[derive(Debug)]
pub(super) struct Existing {
    /// The path to write (the symlink's target when `path` was a symlink).
    pub target: PathBuf,
    /// The content, or `None` when there is no file.
    pub bytes: Option<Vec<u8>>,
    /// Permission bits to keep.
    pub mode: Option<u32>,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Reads `path`: a missing file is `bytes: None`; a directory, FIFO or other non-regular file, or
/// one above [`MAX_CONFIG_BYTES`], is refused as malformed.
pub(super) fn read(path: &Path) -> Result<Existing, InstallError> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => match fs::canonicalize(path) {
            Ok(t) => t,
            // A dangling symlink: create its target, keeping the link.
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let link = fs::read_link(path).map_err(io_err(path))?;
                path.parent().map_or(link.clone(), |dir| dir.join(link))
            }
            Err(e) => return Err(io_err(path)(e)),
        },
        Ok(_) => path.to_owned(),
        Err(e) if e.kind() == ErrorKind::NotFound => path.to_owned(),
        Err(e) => return Err(io_err(path)(e)),
    };
    let meta = match fs::metadata(&target) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Ok(Existing {
                target,
                bytes: None,
                mode: None,
            });
        }
        Err(e) => return Err(io_err(&target)(e)),
    };
    if !meta.is_file() {
        return Err(InstallError::Malformed {
            path: path.to_owned(),
            reason: "not a regular file".to_owned(),
        });
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(InstallError::Malformed {
            path: path.to_owned(),
            reason: format!("larger than {MAX_CONFIG_BYTES} bytes"),
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    File::open(&target)
        .and_then(|f| f.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(io_err(&target))?;
    Ok(Existing {
        target,
        bytes: Some(bytes),
        mode: Some(meta.permissions().mode() & 0o7777),
    })
}

/// Atomically replaces `existing.target` with `content`: temp file in the same directory, fsync,
/// a last check that the file still holds what was read, rename, directory fsync. Creates missing
/// parent directories (0700).
pub(super) fn write_atomic(existing: &Existing, content: &[u8]) -> Result<(), InstallError> {
    let target = &existing.target;
    let dir = target.parent().unwrap_or(Path::new("."));
    create_dirs(dir)?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.signaltty-{}.tmp",
        uuid::Uuid::new_v4().simple()
    ));
    let result = write_tmp(&tmp, existing.mode.unwrap_or(NEW_FILE_MODE), content)
        .and_then(|()| ensure_unchanged(existing))
        .and_then(|()| fs::rename(&tmp, target).map_err(io_err(target)))
        .and_then(|()| sync_dir(dir));
    if result.is_err() {
        // Best effort: the temp file is ours and useless now.
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Removes `existing.target` if it still holds what was read.
pub(super) fn remove(existing: &Existing) -> Result<(), InstallError> {
    ensure_unchanged(existing)?;
    fs::remove_file(&existing.target).map_err(io_err(&existing.target))?;
    sync_dir(existing.target.parent().unwrap_or(Path::new(".")))
}

fn create_dirs(dir: &Path) -> Result<(), InstallError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_err(dir))
}

fn write_tmp(tmp: &Path, mode: u32, content: &[u8]) -> Result<(), InstallError> {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(tmp)
        .map_err(io_err(tmp))?;
    f.write_all(content).map_err(io_err(tmp))?;
    // The umask may have narrowed the mode given to open; the old file's mode wins.
    f.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(io_err(tmp))?;
    f.sync_all().map_err(io_err(tmp))
}

fn ensure_unchanged(existing: &Existing) -> Result<(), InstallError> {
    let now = match fs::read(&existing.target) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(io_err(&existing.target)(e)),
    };
    if now != existing.bytes {
        return Err(InstallError::ChangedMeanwhile(existing.target.clone()));
    }
    Ok(())
}

fn sync_dir(dir: &Path) -> Result<(), InstallError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}
