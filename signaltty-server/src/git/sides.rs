//! The two sides of a file diff: its blob in HEAD and its bytes in the checkout, each loaded
//! with a size cap, and the line counting both diffs share.

use std::path::Path;

use gix::diff::blob::{Algorithm, Diff, InternedInput};

use super::GitError;
use super::baseline::HeadEntry;

/// Larger sides are not read: the diff says "too large".
pub const MAX_SIDE_BYTES: u64 = 16 * 1024 * 1024;
/// Git's rule: a NUL byte in the first 8000 bytes makes a file binary.
const BINARY_PROBE: usize = 8000;

/// One side of a file diff.
#[derive(Debug)]
pub enum Side {
    /// Not there (added or deleted on the other side).
    Absent,
    /// A file's bytes (a symbolic link's are its target, as git stores it).
    Bytes(Vec<u8>),
    /// Over [`MAX_SIDE_BYTES`].
    TooLarge(u64),
    /// A submodule (or a directory where HEAD has a file): nothing to compare.
    NotAFile,
}

impl Side {
    /// The bytes, when loaded.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Side::Bytes(b) => Some(b),
            _ => None,
        }
    }
}

/// True when `bytes` look binary to git.
pub fn is_binary(bytes: &[u8]) -> bool {
    memchr::memchr(0, &bytes[..bytes.len().min(BINARY_PROBE)]).is_some()
}

/// HEAD's side of `path` (`tree` is None in an unborn repository), looked up in the tree.
pub fn head_side(
    repo: &gix::Repository,
    tree: Option<&gix::Tree<'_>>,
    path: &str,
) -> Result<Side, GitError> {
    let Some(tree) = tree else {
        return Ok(Side::Absent);
    };
    let Some(entry) = tree.lookup_entry_by_path(path).map_err(GitError::gix)? else {
        return Ok(Side::Absent);
    };
    head_blob(
        repo,
        Some(HeadEntry {
            id: entry.object_id(),
            not_a_file: !entry.mode().is_blob_or_symlink(),
        }),
    )
}

/// HEAD's side of a path whose entry is already known (`None`: not in HEAD).
pub fn head_blob(repo: &gix::Repository, entry: Option<HeadEntry>) -> Result<Side, GitError> {
    let Some(entry) = entry else {
        return Ok(Side::Absent);
    };
    if entry.not_a_file {
        return Ok(Side::NotAFile);
    }
    let size = repo.find_header(entry.id).map_err(GitError::gix)?.size();
    if size > MAX_SIDE_BYTES {
        return Ok(Side::TooLarge(size));
    }
    let mut blob = repo.find_blob(entry.id).map_err(GitError::gix)?;
    Ok(Side::Bytes(blob.take_data()))
}

/// The checkout's side of `path` (relative to `root`, already checked to stay inside it).
pub fn work_side(root: &Path, path: &str) -> Result<Side, GitError> {
    let full = root.join(path);
    let meta = match std::fs::symlink_metadata(&full) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Side::Absent),
        // A parent that became a file, etc.: nothing there for git either.
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => return Ok(Side::Absent),
        Err(e) => return Err(GitError::Io(format!("cannot read {path}: {e}"))),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&full)
            .map_err(|e| GitError::Io(format!("cannot read link {path}: {e}")))?;
        return Ok(Side::Bytes(target.into_os_string().into_encoded_bytes()));
    }
    if !meta.is_file() {
        return Ok(Side::NotAFile);
    }
    if meta.len() > MAX_SIDE_BYTES {
        return Ok(Side::TooLarge(meta.len()));
    }
    match std::fs::read(&full) {
        Ok(bytes) => Ok(Side::Bytes(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Side::Absent),
        Err(e) => Err(GitError::Io(format!("cannot read {path}: {e}"))),
    }
}

/// A line diff of two texts, with git's slider heuristics.
pub struct LineDiff<'a> {
    /// The interned lines (tokens include their terminator, so a missing final newline counts).
    pub input: InternedInput<&'a [u8]>,
    /// The computed diff.
    pub diff: Diff,
}

impl<'a> LineDiff<'a> {
    /// Diffs `old` against `new` line by line.
    pub fn new(old: &'a [u8], new: &'a [u8]) -> Self {
        let input = InternedInput::new(old, new);
        let mut diff = Diff::compute(Algorithm::Histogram, &input);
        diff.postprocess_lines(&input);
        LineDiff { input, diff }
    }

    /// (added, removed) line counts.
    pub fn counts(&self) -> (u32, u32) {
        (self.diff.count_additions(), self.diff.count_removals())
    }
}
