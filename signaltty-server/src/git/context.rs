//! Reads a directory's git context. Never fails: a directory outside any repository, or a
//! repository gix cannot read, yields an empty context (logged), because git context is an
//! enrichment and must never block creating a workspace.

use std::path::Path;
use std::time::SystemTime;

use crate::model::workspace::GitContext;

/// The git context of `dir` now.
pub fn read_context(dir: &Path) -> GitContext {
    match try_read(dir) {
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

fn try_read(dir: &Path) -> Result<Option<GitContext>, Box<dyn std::error::Error + Send + Sync>> {
    // Any discovery failure means "no repository we can show" (not found, not trusted, …).
    let Ok(repo) = gix::discover(dir) else {
        return Ok(None);
    };
    let Some(root) = repo.workdir().map(Path::to_path_buf) else {
        // A bare repository has no checkout to show.
        return Ok(None);
    };
    let branch = repo.head_name()?.map(|name| name.shorten().to_string());
    // The main checkout's directory names the repository, also from a linked worktree.
    let common = repo.common_dir();
    let main_root = if common.file_name().is_some_and(|n| n == ".git") {
        common.parent().unwrap_or(&root)
    } else {
        common
    };
    let repo_name = main_root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dirty = repo.is_dirty()?;
    Ok(Some(GitContext {
        repo_root: Some(root),
        repo_name,
        branch,
        dirty,
        refreshed_at: Some(SystemTime::now()),
    }))
}
