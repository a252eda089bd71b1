//! `server.log`: created 0600 (a log can name paths, commands and pane titles of the user's work),
//! and rotated by size — past [`MAX_BYTES`] it becomes `server.log.1` (one kept) and a fresh file
//! starts — so a long-lived server, or a loop of warnings, never fills the disk the state lives on.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Size past which the log is rotated.
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// An append-only log file rotated by size.
#[derive(Debug)]
pub struct RotatingLog {
    path: PathBuf,
    file: File,
    written: u64,
    max: u64,
}

fn open(path: &Path) -> io::Result<(File, u64)> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    // A file left by an older server may be 0644: make it private too.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    let len = file.metadata()?.len();
    Ok((file, len))
}

impl RotatingLog {
    /// Opens (or creates, 0600) `path`, rotating past `max` bytes.
    pub fn open(path: &Path, max: u64) -> io::Result<Self> {
        let (file, written) = open(path)?;
        Ok(RotatingLog {
            path: path.to_path_buf(),
            file,
            written,
            max,
        })
    }

    fn rotate(&mut self) -> io::Result<()> {
        let mut old = self.path.clone().into_os_string();
        old.push(".1");
        std::fs::rename(&self.path, &old)?;
        let (file, written) = open(&self.path)?;
        self.file = file;
        self.written = written;
        Ok(())
    }
}

impl Write for RotatingLog {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written >= self.max {
            // If rotating fails (e.g. the disk is full), keep appending rather than lose lines.
            let _ = self.rotate();
        }
        let n = self.file.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn the_log_is_private_and_rotates_by_size() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("server.log");
        std::fs::write(&path, b"old\n").expect("seed");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let mut log = RotatingLog::open(&path, 100).expect("open");
        assert_eq!(
            std::fs::metadata(&path).expect("meta").mode() & 0o777,
            0o600
        );
        for _ in 0..30 {
            log.write_all(b"0123456789\n").expect("write");
        }
        let rotated = dir.path().join("server.log.1");
        assert!(rotated.exists());
        assert!(std::fs::metadata(&path).expect("meta").len() <= 100 + 11);
        assert_eq!(
            std::fs::metadata(&rotated).expect("meta").mode() & 0o777,
            0o600
        );
    }
}
