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

use std::io::Read;

use gix::filter::plumbing::pipeline::convert::ToGitOutcome;

use super::GitError;
use super::baseline::head_vs_index;
use super::repos::Repos;
use super::stat;
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
    let (dirty, dirty_unknown) = match is_dirty(&repo, interrupt)? {
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
/// not count). `None` when `interrupt` was raised before the answer was known. HEAD against the
/// index costs nothing when the index's cached tree says they are the same (see
/// [`super::baseline`]); the checkout against the index is the stat pass ([`super::stat`]),
/// which stops at the first file that surely changed; files it cannot vouch for (touched, or
/// racily clean) are then read, converted as `git add` would (gix's filters) and hashed.
pub fn is_dirty(repo: &gix::Repository, interrupt: &AtomicBool) -> Result<Option<bool>, BoxError> {
    let index = repo.index_or_empty()?;
    let (_, staged) = head_vs_index(repo, &index, true)?;
    if !staged.is_empty() {
        return Ok(Some(true));
    }
    let candidates = match stat::of_checkout(repo, &index, DIRTY_THREADS, true, interrupt) {
        Ok(c) => c,
        Err(GitError::Timeout(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if candidates.iter().any(|c| c.certain) {
        return Ok(Some(true));
    }
    if candidates.is_empty() {
        return Ok(Some(false));
    }
    let (mut filters, _) = repo.filter_pipeline(None)?;
    for c in candidates {
        if interrupt.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let entry = &index.entries()[c.entry];
        if differs(repo, &mut filters, &index, entry)? {
            return Ok(Some(true));
        }
    }
    Ok(Some(false))
}

/// Threads of the dirty check's stat pass (it has the cores to itself: no untracked walk).
const DIRTY_THREADS: usize = 2;

/// Whether the checkout's file at `entry` differs from the entry's blob.
fn differs(
    repo: &gix::Repository,
    filters: &mut gix::filter::Pipeline<'_>,
    index: &gix::index::State,
    entry: &gix::index::Entry,
) -> Result<bool, BoxError> {
    let Some(root) = repo.workdir() else {
        return Ok(true);
    };
    let rela = entry.path(index).to_string();
    let full = root.join(&rela);
    let data = if entry.mode == gix::index::entry::Mode::SYMLINK {
        match std::fs::read_link(&full) {
            Ok(target) => target.into_os_string().into_encoded_bytes(),
            Err(_) => return Ok(true),
        }
    } else {
        let Ok(bytes) = std::fs::read(&full) else {
            return Ok(true);
        };
        let converted = match filters.convert_to_git(bytes.as_slice(), Path::new(&rela), index)? {
            ToGitOutcome::Unchanged(_) => None,
            ToGitOutcome::Buffer(buf) => Some(buf.to_vec()),
            ToGitOutcome::Process(mut read) => {
                let mut out = Vec::new();
                read.read_to_end(&mut out)?;
                Some(out)
            }
        };
        converted.unwrap_or(bytes)
    };
    let id = gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, &data)?;
    Ok(id != entry.id)
}
