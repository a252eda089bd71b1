//! The TUI's git requests and their replies: the diff view's two reads, the spawn form's
//! worktree list, and "new agent in a worktree" (one request chain, carried out in
//! `runtime/requests.rs`). Kept apart from [`crate::app`]'s general requests so the git part of
//! the TUI lives in its own files ([`crate::diff`], [`crate::spawn`]).

use signaltty_proto::v1 as pb;

/// A request failed: the server's stable reason (empty when it gave none) and the line shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// ErrorInfo reason, e.g. `NOT_A_REPO`.
    pub reason: String,
    /// The server's message with its reason, for a person.
    pub message: String,
}

/// Which checkout a new pane runs in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checkout {
    /// A new worktree (and workspace) on `branch`, new or existing, at the server's default
    /// path (`<main>-worktrees/<branch>`).
    New {
        /// The branch.
        branch: String,
    },
    /// An existing checkout, by its absolute path (its open workspace is reused).
    Existing {
        /// The checkout's path.
        path: String,
    },
}

/// "New agent in a worktree": the pane to start once the checkout and its workspace exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorktreeSpawn {
    /// A workspace in the repository.
    pub workspace_id: String,
    /// Where.
    pub checkout: Checkout,
    /// Command (a shell when empty).
    pub argv: Vec<String>,
    /// Title.
    pub title: String,
    /// Environment.
    pub env: Vec<(String, String)>,
    /// Initial size.
    pub cols: u16,
    /// Initial size.
    pub rows: u16,
}

/// A git request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GitRequest {
    /// GetWorkspaceDiff; `seq` comes back with the reply so a stale one is dropped.
    WorkspaceDiff {
        /// The workspace.
        workspace_id: String,
        /// The diff view's request number.
        seq: u64,
    },
    /// GetFileDiff.
    FileDiff {
        /// The workspace.
        workspace_id: String,
        /// The file.
        path: String,
        /// Its path in HEAD for a rename, else empty.
        old_path: String,
        /// The diff view's request number.
        seq: u64,
    },
    /// ListWorktrees, for the spawn form's checkout choice.
    ListWorktrees {
        /// The workspace.
        workspace_id: String,
    },
    /// CreateWorktree or OpenWorktree, then SpawnPane in its workspace. If the spawn fails, what
    /// the chain made is undone (the workspace it opened closed, the worktree it added removed),
    /// so a failure leaves nothing that looks like a success.
    SpawnInWorktree(WorktreeSpawn),
    /// RefreshGit: the diff view saw changes the workspace's dirty mark does not say (an edit
    /// no inotify watch sees), or none where it says dirty; the server re-reads and publishes.
    Refresh {
        /// The workspace.
        workspace_id: String,
    },
}

/// What a git request brought back.
#[derive(Clone, Debug, PartialEq)]
pub enum GitReply {
    /// GetWorkspaceDiff's answer.
    WorkspaceDiff {
        /// The request number.
        seq: u64,
        /// The files, or why not.
        result: Result<pb::GetWorkspaceDiffResponse, Failure>,
    },
    /// GetFileDiff's answer.
    FileDiff {
        /// The request number.
        seq: u64,
        /// The hunks, or why not.
        result: Result<pb::GetFileDiffResponse, Failure>,
    },
    /// ListWorktrees' answer.
    Worktrees {
        /// The workspace asked about.
        workspace_id: String,
        /// The checkouts, or why not.
        result: Result<Vec<pb::Worktree>, Failure>,
    },
    /// The chain finished: focus the new pane in the checkout's workspace.
    SpawnedInWorktree {
        /// The checkout's workspace (as the server returned it, so it can be shown before its
        /// event arrives).
        workspace: Box<pb::Workspace>,
        /// The new pane's tab.
        tab_id: String,
        /// The new pane.
        pane_id: String,
        /// A line for the status bar ("worktree … on branch …").
        note: String,
    },
}

/// Text from a repository made safe to draw: escape sequences and control characters removed,
/// tabs expanded to 4 columns.
pub fn display(text: &str) -> String {
    signaltty_term::strip(text).replace('\t', "    ")
}
