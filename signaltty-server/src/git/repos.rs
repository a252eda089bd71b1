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
            // A deleted repository (or checkout) is discovered afresh: one stat.
            if repo.git_dir().is_dir() && dir.is_dir() {
                return Some(repo.to_thread_local());
            }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn git_init(dir: &Path) {
        let out = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }

    #[test]
    fn kept_until_forgotten_retained_away_or_deleted() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        git_init(&a);
        git_init(&b);
        let repos = Repos::default();
        assert!(repos.open(&tmp.path().join("none")).is_none());
        assert!(repos.is_empty(), "a failed discovery is not kept");
        assert!(repos.open(&a).is_some());
        assert!(repos.open(&b).is_some());
        assert_eq!(repos.len(), 2);
        repos.forget(&a);
        assert_eq!(repos.len(), 1);
        repos.retain(std::slice::from_ref(&a));
        assert!(repos.is_empty());
        assert!(repos.open(&a).is_some());
        // The repository goes away behind the kept one's back: the next open looks again.
        std::fs::remove_dir_all(a.join(".git")).unwrap();
        let again = repos.open(&a);
        assert!(again.is_none_or(|r| r.git_dir() != a.join(".git")));
    }
}
