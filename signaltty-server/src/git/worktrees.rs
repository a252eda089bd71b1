//! The checkouts of a repository, read from git each time (never copied into the snapshot):
//! the main checkout first, then the linked worktrees registered under `.git/worktrees/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::GitError;
use super::changes::open_checkout;
use super::context::main_checkout;

/// One checkout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorktreeInfo {
    /// Its directory (canonical when it exists).
    pub path: PathBuf,
    /// Checked-out branch (short name); None when detached or unborn-detached.
    pub branch: Option<String>,
    /// HEAD commit (hex); None when unborn or unreadable.
    pub head: Option<String>,
    /// The main checkout.
    pub is_main: bool,
    /// Git has it locked.
    pub locked: bool,
    /// The lock's reason, when given.
    pub lock_reason: Option<String>,
    /// Its directory is gone.
    pub missing: bool,
}

/// A repository's checkouts.
#[derive(Clone, Debug)]
pub struct Worktrees {
    /// The main checkout's directory (names the repository).
    pub main: PathBuf,
    /// Main first, then linked ones by path.
    pub list: Vec<WorktreeInfo>,
}

impl Worktrees {
    /// The checkout containing `dir` (the deepest, when checkouts nest).
    pub fn owner_of(&self, dir: &Path) -> Option<&WorktreeInfo> {
        self.list
            .iter()
            .filter(|w| dir.starts_with(&w.path))
            .max_by_key(|w| w.path.components().count())
    }

    /// The checkout at exactly `path`.
    pub fn find(&self, path: &Path) -> Option<&WorktreeInfo> {
        self.list.iter().find(|w| w.path == path)
    }
}

/// Lists the checkouts of the repository containing `dir`.
pub fn list(dir: &Path) -> Result<Worktrees, GitError> {
    let repo = open_checkout(dir)?;
    let fallback = repo.workdir().unwrap_or(dir).to_path_buf();
    let main = main_checkout(&repo, &fallback);
    let main_repo = repo.main_repo().map_err(GitError::gix)?;
    let mut list = vec![describe(&main_repo, main.clone(), true)];
    for proxy in repo.worktrees().map_err(GitError::gix)? {
        let locked = proxy.is_locked();
        let lock_reason = proxy
            .lock_reason()
            .map(|r| r.to_string())
            .filter(|r| !r.trim().is_empty());
        let missing = proxy.is_prunable();
        let Ok(path) = proxy.base() else { continue };
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let mut info = match proxy.into_repo_with_possibly_inaccessible_worktree() {
            Ok(wt) => describe(&wt, path, false),
            Err(_) => WorktreeInfo {
                path,
                branch: None,
                head: None,
                is_main: false,
                locked: false,
                lock_reason: None,
                missing: true,
            },
        };
        info.locked = locked;
        info.lock_reason = lock_reason;
        info.missing |= missing;
        list.push(info);
    }
    list[1..].sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Worktrees { main, list })
}

fn describe(repo: &gix::Repository, path: PathBuf, is_main: bool) -> WorktreeInfo {
    let branch = repo
        .head_name()
        .ok()
        .flatten()
        .map(|n| n.shorten().to_string());
    let head = repo.head_id().ok().map(|id| id.to_string());
    let missing = !path.is_dir();
    WorktreeInfo {
        path,
        branch,
        head,
        is_main,
        locked: false,
        lock_reason: None,
        missing,
    }
}

/// Whether a local branch exists.
pub fn branch_exists(dir: &Path, branch: &str) -> Result<bool, GitError> {
    let repo = open_checkout(dir)?;
    let name = format!("refs/heads/{branch}");
    Ok(repo
        .try_find_reference(name.as_str())
        .map_err(GitError::gix)?
        .is_some())
}

/// The default place for a new checkout of `branch`: `<main>-worktrees/<branch>` next to the
/// main checkout, `/` in the branch replaced by `-` (one directory per branch, no nesting).
pub fn default_path(main: &Path, branch: &str) -> PathBuf {
    let name = main
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_owned());
    let parent = main.parent().unwrap_or(main);
    parent
        .join(format!("{name}-worktrees"))
        .join(branch.replace('/', "-"))
}

/// Whether the checkout at `path` has anything `git worktree remove` would lose: changes
/// against HEAD (staged or not) or untracked files (ignored files do not count, as for git).
/// `None` when `interrupt` was raised first.
pub fn has_changes(path: &Path, interrupt: &Arc<AtomicBool>) -> Result<Option<bool>, GitError> {
    let repo = open_checkout(path)?;
    let mut items = repo
        .status(gix::progress::Discard)
        .map_err(GitError::gix)?
        .should_interrupt_owned(interrupt.clone())
        .untracked_files(gix::status::UntrackedFiles::Collapsed)
        .index_worktree_rewrites(None)
        .tree_index_track_renames(gix::status::tree_index::TrackRenames::Disabled)
        .into_iter(Vec::new())
        .map_err(GitError::gix)?;
    let mut changed = false;
    for item in items.by_ref() {
        if interrupt.load(Ordering::Relaxed) {
            return Ok(None);
        }
        changed = match item.map_err(GitError::gix)? {
            gix::status::Item::TreeIndex(_) => true,
            gix::status::Item::IndexWorktree(item) => item.summary().is_some(),
        };
        if changed {
            break;
        }
    }
    if changed {
        stop_early(items, interrupt);
        return Ok(Some(true));
    }
    Ok((!interrupt.load(Ordering::Relaxed)).then_some(false))
}

/// Ends a status whose answer is known before its end. With gix's `parallel` feature the status
/// runs on threads of its own; dropping the iterator raises the interrupt flag only for a moment
/// and puts the old value back, so those threads would go on statting the rest of the checkout
/// in the background. Raising the (per-call) flag for good after the drop stops them.
fn stop_early<I>(items: I, interrupt: &AtomicBool) {
    drop(items);
    interrupt.store(true, Ordering::Relaxed);
}
