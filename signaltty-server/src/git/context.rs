//! Reads a directory's git context. Never fails: a directory outside any repository, or a
//! repository gix cannot read, yields an empty context (logged), because git context is an
//! enrichment and must never block creating a workspace.
//!
//! The dirty check is the one part whose cost grows with the checkout (it stats every tracked
//! file), so it takes an interrupt flag: the caller ([`crate::hub`]) raises it at a deadline and
//! the context then says "dirty unknown" instead of guessing.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use super::baseline::head_vs_index;
use super::repos::Repos;
use crate::model::workspace::GitContext;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The git context of `dir` now, from `repos` (which opens or keeps its repository). The dirty
/// check stops when `interrupt` is raised.
pub fn read_context(repos: &Repos, dir: &Path, interrupt: &Arc<AtomicBool>) -> GitContext {
    match try_read(repos, dir, interrupt) {
        Ok(Some(ctx)) => ctx,
        Ok(None) => GitContext {
            refreshed_at: Some(SystemTime::now()),
            ..GitContext::default()
        },
        Err(e) => {
            tracing::warn!(dir = %dir.display(), error = %e, "could not read git context");
            GitContext {
                refreshed_at: Some(SystemTime::now()),
                ..GitContext::default()
            }
        }
    }
}

fn try_read(
    repos: &Repos,
    dir: &Path,
    interrupt: &Arc<AtomicBool>,
) -> Result<Option<GitContext>, BoxError> {
    // Any discovery failure means "no repository we can show" (not found, not trusted, …).
    let Some(repo) = repos.open(dir) else {
        return Ok(None);
    };
    let Some(root) = repo.workdir().map(Path::to_path_buf) else {
        // A bare repository has no checkout to show.
        return Ok(None);
    };
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let branch = repo.head_name()?.map(|name| name.shorten().to_string());
    let repo_name = main_checkout(&repo, &root)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (dirty, dirty_unknown) = match is_dirty(&repo, interrupt.clone())? {
        Some(dirty) => (dirty, false),
        None => (false, true),
    };
    Ok(Some(GitContext {
        repo_root: Some(root),
        repo_name,
        branch,
        dirty,
        dirty_unknown,
        refreshed_at: Some(SystemTime::now()),
    }))
}

/// The main checkout's directory (it names the repository), also from a linked worktree.
pub fn main_checkout(repo: &gix::Repository, fallback: &Path) -> std::path::PathBuf {
    let common = repo.common_dir();
    let common = std::fs::canonicalize(common).unwrap_or_else(|_| common.to_path_buf());
    if common.file_name().is_some_and(|n| n == ".git") {
        common.parent().unwrap_or(fallback).to_path_buf()
    } else {
        common
    }
}

/// Whether tracked files differ from HEAD (staged or not; untracked files and submodules do
/// not count). `None` when `interrupt` was raised before the answer was known. Stops at the
/// first change; `interrupt` is raised on the way out then (see [`stop_early`]), so the flag
/// must be this call's own. HEAD against the index costs nothing when the index's cached tree
/// says they are the same (see [`super::baseline`]).
pub fn is_dirty(
    repo: &gix::Repository,
    interrupt: Arc<AtomicBool>,
) -> Result<Option<bool>, BoxError> {
    let index = repo.index_or_empty()?;
    let (_, staged) = head_vs_index(repo, &index, true)?;
    if !staged.is_empty() {
        return Ok(Some(true));
    }
    let mut items = repo
        .status(gix::progress::Discard)?
        .index(gix::worktree::IndexPersistedOrInMemory::Persisted(index))
        .should_interrupt_owned(interrupt.clone())
        .untracked_files(gix::status::UntrackedFiles::None)
        .index_worktree_rewrites(None)
        .index_worktree_submodules(gix::status::Submodule::Given {
            ignore: gix::submodule::config::Ignore::All,
            check_dirty: false,
        })
        .index_worktree_options_mut(|o| o.dirwalk_options = None)
        .into_index_worktree_iter(Vec::new())?;
    let mut changed = false;
    for item in items.by_ref() {
        if interrupt.load(Ordering::Relaxed) {
            return Ok(None);
        }
        changed = item?.summary().is_some();
        if changed {
            break;
        }
    }
    if changed {
        stop_early(items, &interrupt);
        return Ok(Some(true));
    }
    if interrupt.load(Ordering::Relaxed) {
        return Ok(None);
    }
    Ok(Some(false))
}

/// Ends a status whose answer is known before its end. With gix's `parallel` feature the status
/// runs on threads of its own; dropping the iterator raises the interrupt flag only for a moment
/// and puts the old value back, so those threads would go on statting the rest of the checkout
/// in the background. Raising the (per-call) flag for good after the drop stops them.
pub fn stop_early<I>(items: I, interrupt: &AtomicBool) {
    drop(items);
    interrupt.store(true, Ordering::Relaxed);
}
