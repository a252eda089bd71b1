//! The stat pass: which tracked files may differ from the index, found the way git finds them
//! (each file's stat data against what the index recorded), with every `lstat` relative to an
//! open descriptor of the file's directory.
//!
//! Why not gix's status for this part: it stats absolute paths, so for each of a checkout's
//! files the kernel walks every component of the checkout's own path again (profile of a
//! GetWorkspaceDiff of 10,000 files: most of the server's time in `__d_lookup_rcu` under gix's
//! stat threads). Git chdirs to the checkout and stats `dir/file` (two components). Here a stack
//! of directory descriptors follows the index's sorted paths, so a file costs one `fstatat` of
//! one component, and a directory one `openat`.
//!
//! An entry is a *candidate* (its content must be looked at) when its file is missing or of
//! another type; when a directory on its way is missing, not a directory, or a symbolic link
//! (git does not follow links inside the checkout); when its stat data differ from the index's
//! (`core.trustctime`, `core.checkStat`: gix's comparison); when it is *racily clean* (modified
//! in or after the instant the index was written — a same-size edit in that window leaves size
//! and mtime equal); when a racy write smudged it (size 0 in the index, not the empty blob); and
//! for a conflict. Submodules, skip-worktree and assume-unchanged entries are not looked at (as
//! git). A candidate says whether its executable bit differs from the index's mode.
//!
//! The `unsafe` of this module is the three libc calls (`open`, `openat`, `fstatat`).
#![allow(unsafe_code)]

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use gix::index::entry::{Flags, Mode, Stat, stat};

use super::GitError;

/// Entries looked at between two checks of the interrupt flag.
const CHECK_EVERY: usize = 256;

/// An index entry whose file may differ from the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Its position in the index's entries.
    pub entry: usize,
    /// It surely differs from what the index recorded: gone, another type, another executable
    /// bit, another size, or a conflict. Otherwise only its content can tell (racy, touched).
    pub certain: bool,
}

/// What the pass needs besides the index.
#[derive(Clone, Copy, Debug)]
pub struct Pass<'a> {
    /// The checkout's root.
    pub root: &'a Path,
    /// How stat data are compared (`gix::Repository::stat_options`).
    pub options: stat::Options,
    /// `core.fileMode`: the executable bit counts.
    pub executable_bit: bool,
    /// Threads to split the entries over (at least 1).
    pub threads: usize,
    /// Stop at the first certain candidate (a dirty check needs no more).
    pub first_only: bool,
}

/// The candidates of `repo`'s checkout against `index` (its stat options and `core.fileMode`
/// from the repository's configuration); see [`candidates`].
pub fn of_checkout(
    repo: &gix::Repository,
    index: &gix::index::State,
    threads: usize,
    first_only: bool,
    interrupt: &AtomicBool,
) -> Result<Vec<Candidate>, GitError> {
    let root = repo
        .workdir()
        .ok_or_else(|| GitError::NotARepo(repo.git_dir().display().to_string()))?;
    let pass = Pass {
        root,
        options: repo.stat_options().map_err(GitError::gix)?,
        executable_bit: repo
            .filesystem_options()
            .map_err(GitError::gix)?
            .executable_bit,
        threads,
        first_only,
    };
    candidates(index, pass, interrupt)
}

/// The candidates of `index` in the checkout, by entry position. Fails with
/// [`GitError::Timeout`] once `interrupt` is raised.
pub fn candidates(
    index: &gix::index::State,
    pass: Pass<'_>,
    interrupt: &AtomicBool,
) -> Result<Vec<Candidate>, GitError> {
    let entries = index.entries();
    let threads = pass.threads.clamp(1, 16).min(entries.len() / 512 + 1);
    let found = AtomicBool::new(false);
    let chunk = entries.len().div_ceil(threads);
    let mut out = Vec::new();
    if threads == 1 {
        out = walk(index, 0..entries.len(), pass, interrupt, &found)?;
    } else {
        let results: Vec<Result<Vec<Candidate>, GitError>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let range = t * chunk..((t + 1) * chunk).min(entries.len());
                    let found = &found;
                    s.spawn(move || walk(index, range, pass, interrupt, found))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(GitError::Io("the stat pass panicked".into())))
                })
                .collect()
        });
        for part in results {
            out.extend(part?);
        }
    }
    if interrupt.load(Ordering::Relaxed) {
        return Err(stopped());
    }
    Ok(out)
}

fn stopped() -> GitError {
    GitError::Timeout("comparing the checkout with the index".to_owned())
}

/// The pass over `range` of the entries, with its own directory descriptors.
fn walk(
    index: &gix::index::State,
    range: std::ops::Range<usize>,
    pass: Pass<'_>,
    interrupt: &AtomicBool,
    found: &AtomicBool,
) -> Result<Vec<Candidate>, GitError> {
    let entries = index.entries();
    let timestamp = index.timestamp();
    let empty_blob = gix::ObjectId::empty_blob(index.object_hash());
    let mut dirs = Dirs::open(pass.root)?;
    let mut name = Vec::with_capacity(256);
    let mut out = Vec::new();
    for (n, i) in range.enumerate() {
        if n % CHECK_EVERY == 0
            && (interrupt.load(Ordering::Relaxed)
                || (pass.first_only && found.load(Ordering::Relaxed)))
        {
            break;
        }
        let entry = &entries[i];
        if entry.flags.intersects(
            Flags::UPTODATE | Flags::SKIP_WORKTREE | Flags::ASSUME_VALID | Flags::FSMONITOR_VALID,
        ) || entry.mode.is_submodule()
            || entry.mode.is_sparse()
        {
            continue;
        }
        let path: &[u8] = entry.path(index);
        let (dir, file) = match memchr::memrchr(b'/', path) {
            Some(slash) => (&path[..slash], &path[slash + 1..]),
            None => (&path[..0], path),
        };
        let candidate = if entry.stage_raw() != 0 {
            Some(true)
        } else {
            match dirs.at(dir) {
                None => Some(true),
                Some(fd) => {
                    // Racily clean, or smudged by git after a racy write: read it whatever the
                    // stat data say.
                    let unsure = entry.stat.is_racy(timestamp, pass.options)
                        || (entry.stat.size == 0 && entry.id != empty_blob);
                    check(fd, file, &mut name, entry, unsure, pass)
                }
            }
        };
        if let Some(certain) = candidate {
            out.push(Candidate { entry: i, certain });
            if pass.first_only && certain {
                found.store(true, Ordering::Relaxed);
                break;
            }
        }
    }
    Ok(out)
}

/// `Some(certain)` when the entry is a candidate (see [`Candidate`]), `None` when its stat data
/// say it is unchanged. `unsure`: racy or smudged, a candidate whatever its stat data.
fn check(
    dir: RawFd,
    file: &[u8],
    name: &mut Vec<u8>,
    entry: &gix::index::Entry,
    unsure: bool,
    pass: Pass<'_>,
) -> Option<bool> {
    let Some(st) = lstat_at(dir, file, name) else {
        return Some(true);
    };
    let kind = st.st_mode & libc::S_IFMT;
    let want = if entry.mode == Mode::SYMLINK {
        libc::S_IFLNK
    } else {
        libc::S_IFREG
    };
    if kind != want {
        return Some(true);
    }
    let now = Stat {
        mtime: time(st.st_mtime, st.st_mtime_nsec),
        ctime: time(st.st_ctime, st.st_ctime_nsec),
        // Truncated to 32 bits as git (and gix) store them.
        dev: st.st_dev as u32,
        ino: st.st_ino as u32,
        uid: st.st_uid,
        gid: st.st_gid,
        size: st.st_size as u32,
    };
    let mode_changed = pass.executable_bit
        && kind == libc::S_IFREG
        && (st.st_mode & 0o100 != 0) != (entry.mode == Mode::FILE_EXECUTABLE);
    // A smudged entry's size (0) says nothing; any other entry recorded the size of the file
    // whose content it holds.
    let resized = entry.stat.size != 0 && now.size != entry.stat.size;
    if mode_changed || resized {
        Some(true)
    } else if unsure || !entry.stat.matches(&now, pass.options) {
        Some(false)
    } else {
        None
    }
}

fn time(secs: libc::time_t, nsecs: libc::c_long) -> gix::index::entry::stat::Time {
    gix::index::entry::stat::Time {
        secs: u32::try_from(secs).unwrap_or(0),
        nsecs: u32::try_from(nsecs).unwrap_or(0),
    }
}

/// `lstat` of `file` in the directory `dir`; `None` when it cannot be statted (gone).
fn lstat_at(dir: RawFd, file: &[u8], name: &mut Vec<u8>) -> Option<libc::stat> {
    c_name(file, name)?;
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `name` is NUL-terminated (c_name), `st` is a valid out pointer for one `stat`,
    // `dir` is a descriptor owned by the caller's `Dirs` for the whole call.
    let rc = unsafe {
        libc::fstatat(
            dir,
            name.as_ptr().cast(),
            st.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if rc != 0 {
        return None;
    }
    // SAFETY: fstatat returned 0, so it filled `st`.
    Some(unsafe { st.assume_init() })
}

/// `part` NUL-terminated in `buf`; `None` when it holds a NUL itself.
fn c_name(part: &[u8], buf: &mut Vec<u8>) -> Option<()> {
    if part.is_empty() || memchr::memchr(0, part).is_some() {
        return None;
    }
    buf.clear();
    buf.extend_from_slice(part);
    buf.push(0);
    Some(())
}

/// Open directories from the root down to the current one. A level that could not be opened
/// (missing, not a directory, a symbolic link) holds `None`, and so does everything below it.
struct Dirs {
    root: OwnedFd,
    /// For each level below the root: the length of `path` up to it, and its descriptor.
    open: Vec<(usize, Option<OwnedFd>)>,
    /// The current directory, relative to the root, `/`-separated (empty: the root).
    path: Vec<u8>,
    name: Vec<u8>,
}

impl Dirs {
    fn open(root: &Path) -> Result<Self, GitError> {
        let c = CString::new(root.as_os_str().as_bytes())
            .map_err(|_| GitError::Io(format!("{} holds a NUL byte", root.display())))?;
        // SAFETY: `c` is a valid NUL-terminated path; the returned descriptor is owned below.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            return Err(GitError::Io(format!("cannot open {}: {e}", root.display())));
        }
        Ok(Dirs {
            // SAFETY: `fd` is a fresh descriptor nothing else owns.
            root: unsafe { OwnedFd::from_raw_fd(fd) },
            open: Vec::new(),
            path: Vec::new(),
            name: Vec::new(),
        })
    }

    fn current(&self) -> Option<RawFd> {
        match self.open.last() {
            None => Some(self.root.as_raw_fd()),
            Some((_, fd)) => fd.as_ref().map(AsRawFd::as_raw_fd),
        }
    }

    /// The descriptor of `dir` (relative to the root, `/`-separated; empty for the root), or
    /// `None` when it or a directory on its way cannot be opened as a directory.
    fn at(&mut self, dir: &[u8]) -> Option<RawFd> {
        if dir == self.path.as_slice() {
            return self.current();
        }
        while !self.open.is_empty() && !is_dir_prefix(&self.path, dir) {
            self.open.pop();
            let len = self.open.last().map_or(0, |(len, _)| *len);
            self.path.truncate(len);
        }
        let rest = if self.path.is_empty() {
            dir
        } else {
            dir.get(self.path.len() + 1..).unwrap_or_default()
        };
        if !rest.is_empty() {
            for part in rest.split(|&b| b == b'/') {
                let fd = self
                    .current()
                    .and_then(|parent| open_dir(parent, part, &mut self.name));
                if !self.path.is_empty() {
                    self.path.push(b'/');
                }
                self.path.extend_from_slice(part);
                self.open.push((self.path.len(), fd));
            }
        }
        self.current()
    }
}

/// `prefix` is `dir` or one of its parent directories (the empty prefix is the root).
fn is_dir_prefix(prefix: &[u8], dir: &[u8]) -> bool {
    prefix.is_empty()
        || (dir.starts_with(prefix) && (dir.len() == prefix.len() || dir[prefix.len()] == b'/'))
}

/// Opens the directory `part` of `parent` without following a symbolic link.
fn open_dir(parent: RawFd, part: &[u8], name: &mut Vec<u8>) -> Option<OwnedFd> {
    c_name(part, name)?;
    // SAFETY: `name` is NUL-terminated, `parent` an open descriptor; the result is owned below.
    let fd = unsafe {
        libc::openat(
            parent,
            name.as_ptr().cast(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    // SAFETY: a fresh descriptor nothing else owns.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn dir_prefixes_are_whole_components() {
        assert!(is_dir_prefix(b"", b"a"));
        assert!(is_dir_prefix(b"a", b"a/b"));
        assert!(is_dir_prefix(b"a/b", b"a/b"));
        assert!(!is_dir_prefix(b"a/b", b"a/bc"));
        assert!(!is_dir_prefix(b"a/b", b"a"));
    }

    #[test]
    fn dirs_follow_sorted_paths_and_refuse_links() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("c")).unwrap();
        std::fs::write(root.join("file"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        let mut dirs = Dirs::open(root).unwrap();
        assert!(dirs.at(b"a/b").is_some());
        assert!(dirs.at(b"a").is_some());
        assert_eq!(dirs.path, b"a");
        assert!(dirs.at(b"c").is_some());
        assert!(dirs.at(b"link").is_none(), "a link is not followed");
        assert!(dirs.at(b"link/b").is_none());
        assert!(dirs.at(b"file/x").is_none(), "a file is not a directory");
        assert!(dirs.at(b"gone/deeper").is_none());
        assert!(dirs.at(b"").is_some());
        assert!(dirs.at(b"a/b").is_some());
    }
}
