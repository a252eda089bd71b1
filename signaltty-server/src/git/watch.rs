//! Which directories to watch for a checkout's git state, and what a change there means. The
//! watching itself (one inotify instance for the whole server, no timers, no polling) is
//! `hub/git_watch.rs`.
//!
//! Git updates HEAD, the index, refs and `packed-refs` by writing `<name>.lock` and renaming it
//! over `<name>`, which replaces the inode: watching the files themselves would lose the watch
//! at the first update. So the directories are watched and events are filtered by name.

use std::path::{Path, PathBuf};

/// A watched directory's role, deciding which names in it matter and what they mean. One
/// directory can have several roles (a linked worktree's git dir is also its administrative
/// directory under the common dir's `worktrees/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A git dir or common dir: `HEAD`, `index`, `packed-refs`.
    GitDir,
    /// `refs/heads` or one of its subdirectories: any branch (not `*.lock`).
    Refs,
    /// The common dir, for its `worktrees/` directory coming and going.
    Common,
    /// The common dir's `worktrees/`: a linked worktree registered or removed (`git worktree
    /// add/remove/prune`, also when run in a pane).
    Worktrees,
    /// One linked worktree's administrative directory (`worktrees/<id>`): `locked` (git writes
    /// it while `worktree add` runs and removes it at the end; `git worktree lock/unlock`) and
    /// `gitdir` (`git worktree move`).
    WorktreeAdmin,
}

/// What a change in a watched directory means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The git context of the checkouts using the directory may have changed.
    Context,
    /// The repository's list of worktrees changed.
    Worktrees,
}

impl Role {
    /// What a change to `name` in a directory of this role means, if anything.
    pub fn change(self, name: &std::ffi::OsStr) -> Option<Change> {
        let lock = name.as_encoded_bytes().ends_with(b".lock");
        let yes = match self {
            Role::GitDir => name == "HEAD" || name == "index" || name == "packed-refs",
            Role::Refs => !lock,
            Role::Common => name == "worktrees",
            Role::Worktrees => !lock,
            Role::WorktreeAdmin => name == "locked" || name == "gitdir",
        };
        let meaning = match self {
            Role::GitDir | Role::Refs => Change::Context,
            Role::Common | Role::Worktrees | Role::WorktreeAdmin => Change::Worktrees,
        };
        yes.then_some(meaning)
    }
}

/// Refs directories watched per repository at most (branch names with many `/` levels).
const MAX_REF_DIRS: usize = 256;
/// Linked worktrees' administrative directories watched per repository at most.
const MAX_WORKTREE_DIRS: usize = 256;

/// The directories to watch for one checkout.
#[derive(Debug, Default)]
pub struct Dirs {
    /// The repository's main checkout (names it in `WorktreeChanged`).
    pub main: PathBuf,
    /// Directories with their roles; a directory may appear once per role.
    pub dirs: Vec<(PathBuf, Role)>,
}

/// The directories to watch for the checkout at `root`: its git dir, the common dir (the main
/// repository's `.git`, for a linked worktree), `refs/heads` with its subdirectories, and the
/// common dir's `worktrees/` with each linked worktree's directory in it.
pub fn dirs_for(root: &Path) -> Dirs {
    let Some(git_dir) = git_dir_of(root) else {
        return Dirs::default();
    };
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .map(|c| git_dir.join(c.trim()))
        .and_then(|c| std::fs::canonicalize(c).ok())
        .unwrap_or_else(|| git_dir.clone());
    // As `context::main_checkout`: `<main>/.git` names `<main>`; a bare common dir names itself.
    let main = match (common.file_name(), common.parent()) {
        (Some(n), Some(parent)) if n == ".git" => parent.to_path_buf(),
        _ => common.clone(),
    };
    let mut out = vec![(git_dir.clone(), Role::GitDir)];
    if common != git_dir {
        out.push((common.clone(), Role::GitDir));
    }
    out.push((common.clone(), Role::Common));
    let worktrees = common.join("worktrees");
    if let Ok(entries) = std::fs::read_dir(&worktrees) {
        out.push((worktrees, Role::Worktrees));
        out.extend(
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .take(MAX_WORKTREE_DIRS)
                .map(|e| (e.path(), Role::WorktreeAdmin)),
        );
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
    Dirs { main, dirs: out }
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
        let c = |role: Role, name: &str| role.change(name.as_ref());
        assert_eq!(c(Role::GitDir, "HEAD"), Some(Change::Context));
        assert_eq!(c(Role::GitDir, "index"), Some(Change::Context));
        assert_eq!(c(Role::GitDir, "index.lock"), None);
        assert_eq!(c(Role::GitDir, "FETCH_HEAD"), None);
        assert_eq!(c(Role::Refs, "main"), Some(Change::Context));
        assert_eq!(c(Role::Refs, "main.lock"), None);
        assert_eq!(c(Role::Common, "worktrees"), Some(Change::Worktrees));
        assert_eq!(c(Role::Common, "HEAD"), None);
        assert_eq!(c(Role::Worktrees, "feature"), Some(Change::Worktrees));
        assert_eq!(c(Role::WorktreeAdmin, "locked"), Some(Change::Worktrees));
        assert_eq!(c(Role::WorktreeAdmin, "gitdir"), Some(Change::Worktrees));
        assert_eq!(c(Role::WorktreeAdmin, "index"), None);
    }

    #[test]
    fn a_linked_worktree_is_watched_from_its_repository() {
        let dir = tempfile::tempdir().expect("temp dir");
        let main = dir.path().join("main");
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(&main)
                .args(args)
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@localhost")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@localhost")
                .output()
                .expect("git runs");
            assert!(out.status.success(), "git {args:?}: {out:?}");
        };
        std::fs::create_dir_all(&main).expect("mkdir");
        git(&["init", "-q", "-b", "main"]);
        git(&["commit", "-q", "--allow-empty", "-m", "init"]);
        let before = dirs_for(&main);
        let main = std::fs::canonicalize(&main).expect("canonical");
        assert_eq!(before.main, main);
        assert!(before.dirs.contains(&(main.join(".git"), Role::Common)));
        assert!(!before.dirs.iter().any(|(_, r)| *r == Role::Worktrees));
        let linked = dir.path().join("linked");
        git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            linked.to_str().expect("utf-8"),
        ]);
        let after = dirs_for(&linked);
        assert_eq!(
            after.main, main,
            "a linked checkout names its main checkout"
        );
        let admin = main.join(".git/worktrees/linked");
        assert!(after.dirs.contains(&(admin.clone(), Role::GitDir)));
        assert!(after.dirs.contains(&(admin, Role::WorktreeAdmin)));
        assert!(
            after
                .dirs
                .contains(&(main.join(".git/worktrees"), Role::Worktrees))
        );
    }
}
