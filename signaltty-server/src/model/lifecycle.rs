//! The two independent axes of a pane's state: lifecycle (what the process is doing) and attention
//! (how much it needs the user). Attention is ordered by severity.

/// What a pane's process is doing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// Nothing known yet (a plain shell, or an agent before its first hook).
    #[default]
    Unknown,
    /// An agent waiting for a prompt.
    Idle,
    /// An agent running a turn.
    Working,
    /// An agent stopped on the user (permission or input).
    Blocked,
    /// The last turn finished.
    Done,
    /// The last turn or the process failed.
    Failed,
    /// The process exited.
    Exited,
}

/// How much a pane needs the user, from least to most severe. `Ord` follows severity.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Attention {
    /// Nothing to look at.
    #[default]
    None,
    /// New output or a notification the user has not seen.
    Unread,
    /// A warning-level notification.
    Warning,
    /// The agent waits for typed input.
    InputRequired,
    /// The agent waits for a permission answer.
    PermissionRequired,
    /// An error-level notification or a failure.
    Error,
}
