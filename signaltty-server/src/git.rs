//! Git for workspaces. Reads with gix (no `git` subprocess): a directory's context (root, name,
//! branch, dirty — `context`), the changed files of a checkout (`changes`), one file's hunks
//! (`hunks`), the worktrees of a repository (`worktrees`). The two mutations gix cannot do —
//! registering and removing a linked worktree — run the `git` CLI with a deadline (`cli`).
//! `watch` turns inotify events on `.git` into context refreshes.
//!
//! Everything here is blocking file-system work: callers run it on the blocking pool.

pub mod baseline;
pub mod changes;
pub mod cli;
pub mod context;
pub mod hunks;
pub mod paths;
pub mod priority;
pub mod repos;
pub mod sides;
pub mod stat;
pub mod watch;
pub mod worktrees;

/// Why a git operation failed or was refused.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The directory is not in a repository with a checkout.
    #[error("{0} is not inside a git repository with a checkout")]
    NotARepo(String),
    /// A client-given path is unsafe or malformed.
    #[error("{0}")]
    BadPath(String),
    /// A bad request (e.g. an unknown worktree path).
    #[error("{0}")]
    Bad(String),
    /// The deadline passed.
    #[error("{0} did not finish in time; the repository may be very large")]
    Timeout(String),
    /// A worktree removal was refused.
    #[error("{message}")]
    Refused {
        /// Which rule refused it.
        refusal: Refusal,
        /// What to do, for a person.
        message: String,
    },
    /// `git` itself refused or failed; its message is kept.
    #[error("git failed: {0}")]
    Cli(String),
    /// Reading a file failed.
    #[error("{0}")]
    Io(String),
    /// gix could not read the repository.
    #[error("could not read the repository: {0}")]
    Gix(String),
}

impl GitError {
    /// Wraps any gix error.
    pub fn gix(e: impl std::fmt::Display) -> Self {
        GitError::Gix(e.to_string())
    }
}

/// The rules RemoveWorktree enforces, each with its own stable reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// It is the main checkout.
    IsMain,
    /// It has changes against HEAD or untracked files.
    Dirty,
    /// Git has it locked.
    Locked,
    /// An open workspace or a live pane uses it.
    InUse,
}

impl Refusal {
    /// The stable reason in `ErrorInfo`.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::IsMain => "WORKTREE_IS_MAIN",
            Refusal::Dirty => "WORKTREE_DIRTY",
            Refusal::Locked => "WORKTREE_LOCKED",
            Refusal::InUse => "WORKTREE_IN_USE",
        }
    }
}
