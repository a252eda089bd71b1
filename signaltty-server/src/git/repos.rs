//! Opened repositories, kept per directory between reads.
//!
//! Opening a repository (discovering it upwards from a directory, reading its configuration)
//! and parsing its index cost more than some reads themselves. An opened repository is kept
//! for the directory it was discovered from; gix re-reads the index when the file's
//! modification time moves and reads refs (HEAD, branches) from disk every time, so a kept
//! repository never answers from a stale index or HEAD. What it does keep is the configuration;
//! the git watcher ([`crate::hub`]) drops a repository whenever its `HEAD`, index or refs change
//! (a commit, a checkout, a `git config` in the same burst), so the next read opens it afresh.
//! At most [`MAX_KEPT`] are kept (each holds its parsed index: about 100 bytes per file).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Repositories kept at most; the whole set is dropped when it would grow past this.
pub const MAX_KEPT: usize = 16;

/// The kept repositories (cheap to clone: one shared set).
#[derive(Clone, Debug, Default)]
pub struct Repos {
    kept: Arc<Mutex<HashMap<PathBuf, gix::ThreadSafeRepository>>>,
}

impl Repos {
    /// The repository `dir` is in (bare or not), opened once and then kept; `None` outside any
    /// repository gix can open (not found, not trusted, …).
    pub fn open(&self, dir: &Path) -> Option<gix::Repository> {
        if let Some(repo) = self.lock().get(dir) {
            return Some(repo.to_thread_local());
        }
        let repo = gix::discover(dir).ok()?;
        let mut kept = self.lock();
        if kept.len() >= MAX_KEPT {
            kept.clear();
        }
        kept.insert(dir.to_path_buf(), repo.clone().into_sync());
        Some(repo)
    }

    /// Drops what is kept for `dir` (its repository changed: re-open on the next read).
    pub fn forget(&self, dir: &Path) {
        self.lock().remove(dir);
    }

    /// Keeps only the repositories of `dirs` (the open workspaces' directories).
    pub fn retain(&self, dirs: &[PathBuf]) {
        self.lock().retain(|dir, _| dirs.contains(dir));
    }

    /// How many are kept.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// None are kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, gix::ThreadSafeRepository>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }
}
