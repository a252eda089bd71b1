//! Which directories to watch for a checkout's git state, and what a change there means. The
//! watching itself (one inotify instance for the whole server, no timers, no polling) is
//! `hub/git_watch.rs`.
//!
//! Git updates HEAD, the index, refs and `packed-refs` by writing `<name>.lock` and renaming it
//! over `<name>`, which replaces the inode: watching the files themselves would lose the watch
//! at the first update. So the directories are watched and events are filtered by name.

use std::path::{Path, PathBuf};

/// A watched directory's role, deciding which names in it matter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A git dir or common dir: `HEAD`, `index`, `packed-refs`.
    GitDir,
    /// `refs/heads` or one of its subdirectories: any branch (not `*.lock`).
    Refs,
}

impl Role {
    /// Whether a change to `name` in a directory of this role can change the git context.
    pub fn matters(self, name: &std::ffi::OsStr) -> bool {
        match self {
            Role::GitDir => name == "HEAD" || name == "index" || name == "packed-refs",
            Role::Refs => !name.as_encoded_bytes().ends_with(b".lock"),
        }
    }
}

/// Refs directories watched per repository at most (branch names with many `/` levels).
const MAX_REF_DIRS: usize = 256;

/// The directories to watch for the checkout at `root`: its git dir, the common dir (the main
/// repository's `.git`, for a linked worktree), and `refs/heads` with its subdirectories.
pub fn dirs_for(root: &Path) -> Vec<(PathBuf, Role)> {
    let Some(git_dir) = git_dir_of(root) else {
        return Vec::new();
    };
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .map(|c| git_dir.join(c.trim()))
        .and_then(|c| std::fs::canonicalize(c).ok())
        .unwrap_or_else(|| git_dir.clone());
    let mut out = vec![(git_dir.clone(), Role::GitDir)];
    if common != git_dir {
        out.push((common.clone(), Role::GitDir));
    }
    let mut stack = vec![common.join("refs/heads")];
    let mut refs = 0;
    while let Some(dir) = stack.pop() {
        if refs >= MAX_REF_DIRS {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        refs += 1;
        stack.extend(
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path()),
        );
        out.push((dir, Role::Refs));
    }
    out
}

/// `root/.git` when it is a directory, or the directory a `.git` file points to (a linked
/// worktree's `gitdir: …`).
fn git_dir_of(root: &Path) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    let meta = std::fs::metadata(&dot_git).ok()?;
    let dir = if meta.is_dir() {
        dot_git
    } else {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.trim().strip_prefix("gitdir:")?.trim();
        root.join(target)
    };
    std::fs::canonicalize(dir).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_matter() {
        assert!(Role::GitDir.matters("HEAD".as_ref()));
        assert!(Role::GitDir.matters("index".as_ref()));
        assert!(!Role::GitDir.matters("index.lock".as_ref()));
        assert!(!Role::GitDir.matters("FETCH_HEAD".as_ref()));
        assert!(Role::Refs.matters("main".as_ref()));
        assert!(!Role::Refs.matters("main.lock".as_ref()));
    }
}
