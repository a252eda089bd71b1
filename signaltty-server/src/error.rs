//! The server's one error type. Every core operation returns it; `rpc/status.rs` turns it into a
//! `tonic::Status` with a stable reason in `google.rpc.ErrorInfo` exactly once, at the edge.
//! Each variant's message tells a person what to do next.

use crate::model::ids::{DecisionId, PaneId, TabId, WorkspaceId};

/// Result with the server's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything a request can fail with. The variant decides the gRPC code and reason.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The workspace id names nothing open.
    #[error("no workspace {0}; list them with `signaltty workspace list`")]
    NoSuchWorkspace(WorkspaceId),
    /// The tab id names nothing open.
    #[error("no tab {0}; `signaltty workspace get WS` lists a workspace's tabs")]
    NoSuchTab(TabId),
    /// The pane id names nothing open.
    #[error("no pane {0}; list them with `signaltty pane list`")]
    NoSuchPane(PaneId),
    /// The decision is not pending (answered, cleared, or its waiter is gone).
    #[error(
        "no pending decision {0} on that pane; list pending ones with `signaltty decision list`"
    )]
    NoSuchDecision(DecisionId),
    /// The request is malformed; the message says which field and why.
    #[error("{0}")]
    BadParams(String),
    /// The pane's process has exited.
    #[error("pane {0} has exited; read it, resume it, or close it")]
    PaneExited(PaneId),
    /// A shutdown was refused because processes are running.
    #[error("{0} pane(s) still have running processes; close them or shut down with --force")]
    PanesAlive(usize),
    /// The pane has nothing to resume.
    #[error("{0}")]
    NotResumable(String),
    /// The pane cannot be hibernated now (not an agent, busy, no session id, not running).
    #[error("{0}")]
    NotHibernatable(String),
    /// The pane is not hibernated (WakePane).
    #[error("{0}")]
    NotHibernated(String),
    /// The directory is not in a git repository.
    #[error("{0} is not inside a git repository")]
    NotARepo(String),
    /// The process could not be started.
    #[error("could not start {}: {reason}", quote(program))]
    SpawnFailed {
        /// argv[0].
        program: String,
        /// The OS error or the check that failed.
        reason: String,
    },
    /// Input larger than the per-call limit; nothing was written.
    #[error("input of {len} bytes exceeds the {max}-byte limit per write; nothing was written")]
    InputTooLarge {
        /// Bytes offered.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A new pane would pass the per-tab or per-server pane limit; nothing was changed.
    #[error("{0}")]
    TooManyPanes(crate::model::state::PaneLimit),
    /// Too many requests of a kind at once.
    #[error("{0}")]
    RateLimited(String),
    /// A bounded wait ran out.
    #[error("{what} timed out{}", written.map(|w| format!(" after {w} bytes were written")).unwrap_or_default())]
    Timeout {
        /// What timed out.
        what: String,
        /// For input: how many bytes the child accepted before the deadline.
        written: Option<u64>,
    },
    /// The peer changed identity (e.g. a process id now belongs to another program).
    #[error("{0}")]
    IdentityChanged(String),
    /// A file-system or OS operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The caller runs inside a pane and the server's policy keeps programs in panes from doing
    /// this; the message names the rule and the config key that relaxes it.
    #[error("{0}")]
    DeniedInPane(String),
    /// A git rule refused the request (e.g. removing a dirty worktree); `refusal` gives the
    /// stable reason.
    #[error("{message}")]
    Refused {
        /// Which rule.
        refusal: crate::git::Refusal,
        /// What to do, for a person.
        message: String,
    },
    /// `git` refused or failed (its message is kept), or gix could not read the repository.
    #[error("{0}")]
    GitFailed(String),
    /// A capability a later release implements.
    #[error("{0} is not implemented yet in this server")]
    Unimplemented(&'static str),
    /// A bug: an invariant did not hold.
    #[error("internal error: {0}")]
    Internal(String),
    /// The race id names no race this server knows.
    #[error("no race {0}; list them with `signaltty race list`")]
    NoSuchRace(crate::model::ids::RaceId),
    /// The base checkout has uncommitted changes where a race needs a clean one.
    #[error("{0}")]
    RaceBaseDirty(String),
    /// Merging a race entry conflicted (or could not fast-forward); the base is unchanged.
    #[error("{0}")]
    RaceMergeConflict(String),
    /// The race (or entry) is kept or closed already.
    #[error("{0}")]
    RaceEnded(String),
}

/// What to do about input over the per-write limit.
pub const MAX_INPUT_BYTES_HINT: &str =
    "write at most 1 MiB (1048576 bytes) per call, splitting larger input";

/// Most characters of a caller's input an error message repeats.
pub const QUOTE_CHARS: usize = 100;

/// Longest status message the server sends (a message is also gRPC metadata, and clients refuse
/// large metadata); a longer one is cut, marked with `…`.
pub const MAX_MESSAGE_CHARS: usize = 1000;

/// A caller's input as an error message quotes it: debug-escaped (so control characters show as
/// escapes, never act), at most [`QUOTE_CHARS`] characters of it, `…` when cut.
pub fn quote(input: impl AsRef<str>) -> String {
    let input = input.as_ref();
    match input.char_indices().nth(QUOTE_CHARS) {
        None => format!("{input:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &input[..cut], input.len()),
    }
}

/// `text` cut to [`MAX_MESSAGE_CHARS`] characters.
pub fn clip_message(text: String) -> String {
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => text,
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

impl From<crate::git::GitError> for Error {
    fn from(e: crate::git::GitError) -> Self {
        use crate::git::GitError as G;
        match e {
            G::NotARepo(dir) => Error::NotARepo(dir),
            G::BadPath(msg) | G::Bad(msg) => Error::BadParams(msg),
            G::Timeout(what) => Error::Timeout {
                what,
                written: None,
            },
            G::Refused { refusal, message } => Error::Refused { refusal, message },
            e @ (G::Cli(_) | G::Gix(_)) => Error::GitFailed(e.to_string()),
            G::Io(msg) => Error::io(msg, std::io::Error::other("read failed")),
        }
    }
}

impl Error {
    /// A BAD_PARAMS error with a formatted message.
    pub fn bad(msg: impl Into<String>) -> Self {
        Error::BadParams(msg.into())
    }

    /// An IO_ERROR with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// The stable reason string of API.md.
    pub fn reason(&self) -> &'static str {
        match self {
            Error::NoSuchWorkspace(_) => "NO_SUCH_WORKSPACE",
            Error::NoSuchTab(_) => "NO_SUCH_TAB",
            Error::NoSuchPane(_) => "NO_SUCH_PANE",
            Error::NoSuchDecision(_) => "NO_SUCH_DECISION",
            Error::BadParams(_) => "BAD_PARAMS",
            Error::PaneExited(_) => "PANE_EXITED",
            Error::PanesAlive(_) => "PANES_ALIVE",
            Error::NotResumable(_) => "NOT_RESUMABLE",
            Error::NotHibernatable(_) => "NOT_HIBERNATABLE",
            Error::NotHibernated(_) => "NOT_HIBERNATED",
            Error::NotARepo(_) => "NOT_A_REPO",
            Error::SpawnFailed { .. } => "SPAWN_FAILED",
            Error::InputTooLarge { .. } => "INPUT_TOO_LARGE",
            Error::RateLimited(_) => "RATE_LIMITED",
            Error::TooManyPanes(_) => "TOO_MANY_PANES",
            Error::Timeout { .. } => "TIMEOUT",
            Error::IdentityChanged(_) => "IDENTITY_CHANGED",
            Error::Io { .. } => "IO_ERROR",
            Error::Refused { refusal, .. } => refusal.reason(),
            Error::GitFailed(_) => "GIT_FAILED",
            Error::Unimplemented(_) => "UNIMPLEMENTED",
            Error::DeniedInPane(_) => "DENIED_IN_PANE",
            Error::Internal(_) => "INTERNAL",
            Error::NoSuchRace(_) => "NO_SUCH_RACE",
            Error::RaceBaseDirty(_) => "RACE_BASE_DIRTY",
            Error::RaceMergeConflict(_) => "RACE_MERGE_CONFLICT",
            Error::RaceEnded(_) => "RACE_ENDED",
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every reason [`super::Error::reason`] can return is documented in docs/api.md's table (read
    /// from this file's source, so a new variant cannot be forgotten there).
    #[test]
    fn every_reason_is_documented_in_the_api_guide() {
        let source = include_str!("error.rs");
        let doc = include_str!("../../docs/api.md");
        let reasons: Vec<&str> = source
            .lines()
            .filter_map(|line| line.trim().split_once("=> \""))
            .filter_map(|(_, rest)| rest.split_once('"').map(|(reason, _)| reason))
            .collect();
        assert!(reasons.len() >= 17, "{reasons:?}");
        for reason in reasons {
            assert!(
                doc.contains(&format!("| `{reason}` |")),
                "docs/api.md does not document the error reason {reason}"
            );
        }
    }
}
