//! The two independent axes of a pane's state: lifecycle (what the process is doing) and attention
//! (how much it needs the user), and the small machine that moves them.
//!
//! Invariants kept by [`PaneState`]:
//! - setting the current lifecycle again is not a change and reports nothing;
//! - leaving `working` records how long the run lasted;
//! - a signal only raises attention (to the more severe of old and new); attention goes down only
//!   through an explicit clear ([`PaneState::clear_attention`]) or a process exit
//!   ([`PaneState::exit`]), and a clear keeps `permission_required` while a decision is pending.
//!
//! Every method returns the change it caused, so the store can turn each into exactly one event.

pub mod effect;

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, SystemTime};

/// What a pane's process is doing.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
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
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
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

/// A lifecycle or attention name that is not one of the documented snake_case values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateParseError {
    /// Not a lifecycle name.
    #[error(
        "unknown lifecycle {0:?} (expected one of unknown, idle, working, blocked, done, failed, exited)"
    )]
    Lifecycle(String),
    /// Not an attention name.
    #[error(
        "unknown attention {0:?} (expected one of none, unread, warning, input_required, permission_required, error)"
    )]
    Attention(String),
    /// Not a change-source name.
    #[error("unknown change source {0:?}")]
    Source(String),
}

impl Lifecycle {
    /// Every value, in declaration order.
    pub const ALL: [Lifecycle; 7] = [
        Lifecycle::Unknown,
        Lifecycle::Idle,
        Lifecycle::Working,
        Lifecycle::Blocked,
        Lifecycle::Done,
        Lifecycle::Failed,
        Lifecycle::Exited,
    ];

    /// The stable snake_case name (as in BEHAVIOUR.md and the snapshot).
    pub fn as_str(self) -> &'static str {
        match self {
            Lifecycle::Unknown => "unknown",
            Lifecycle::Idle => "idle",
            Lifecycle::Working => "working",
            Lifecycle::Blocked => "blocked",
            Lifecycle::Done => "done",
            Lifecycle::Failed => "failed",
            Lifecycle::Exited => "exited",
        }
    }

    /// Parses a snake_case name; anything else is an error.
    pub fn parse(s: &str) -> Result<Self, StateParseError> {
        Self::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| StateParseError::Lifecycle(s.to_owned()))
    }
}

impl Attention {
    /// Every value, from least to most severe.
    pub const ALL: [Attention; 6] = [
        Attention::None,
        Attention::Unread,
        Attention::Warning,
        Attention::InputRequired,
        Attention::PermissionRequired,
        Attention::Error,
    ];

    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Attention::None => "none",
            Attention::Unread => "unread",
            Attention::Warning => "warning",
            Attention::InputRequired => "input_required",
            Attention::PermissionRequired => "permission_required",
            Attention::Error => "error",
        }
    }

    /// Parses a snake_case name; anything else is an error.
    pub fn parse(s: &str) -> Result<Self, StateParseError> {
        Self::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| StateParseError::Attention(s.to_owned()))
    }

    /// True for the levels that mean "the process is waiting on the user"; they make no sense once
    /// the process is gone.
    pub fn is_required(self) -> bool {
        matches!(
            self,
            Attention::InputRequired | Attention::PermissionRequired
        )
    }
}

impl fmt::Display for Lifecycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Attention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Lifecycle {
    type Err = StateParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl FromStr for Attention {
    type Err = StateParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// What caused a lifecycle or attention change; carried on the change events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeSource {
    /// An agent hook (`ReportHookEvent`).
    Hook,
    /// A terminal notification sequence (OSC 9/99/777).
    Osc,
    /// A BEL outside any OSC.
    Bell,
    /// The child process exited.
    Exit,
    /// An explicit API call (Notify, MarkSeen, …).
    Api,
    /// A client focused or attached to the pane.
    Client,
    /// A decision was created, answered or cleared.
    Decision,
    /// The pane was re-spawned from its resume argv.
    Resume,
    /// Loaded from a snapshot.
    Restore,
}

impl ChangeSource {
    /// Every value.
    pub const ALL: [ChangeSource; 9] = [
        ChangeSource::Hook,
        ChangeSource::Osc,
        ChangeSource::Bell,
        ChangeSource::Exit,
        ChangeSource::Api,
        ChangeSource::Client,
        ChangeSource::Decision,
        ChangeSource::Resume,
        ChangeSource::Restore,
    ];

    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeSource::Hook => "hook",
            ChangeSource::Osc => "osc",
            ChangeSource::Bell => "bell",
            ChangeSource::Exit => "exit",
            ChangeSource::Api => "api",
            ChangeSource::Client => "client",
            ChangeSource::Decision => "decision",
            ChangeSource::Resume => "resume",
            ChangeSource::Restore => "restore",
        }
    }

    /// Parses a snake_case name.
    pub fn parse(s: &str) -> Result<Self, StateParseError> {
        Self::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| StateParseError::Source(s.to_owned()))
    }
}

impl fmt::Display for ChangeSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One real lifecycle transition (never emitted for a same-state set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifecycleChange {
    /// The value before.
    pub prev: Lifecycle,
    /// The value now.
    pub new: Lifecycle,
    /// What caused it.
    pub source: ChangeSource,
    /// When it happened.
    pub at: SystemTime,
    /// Set when this change left `working`: how long the run lasted.
    pub run_duration: Option<Duration>,
}

/// One real attention transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionChange {
    /// The value before.
    pub prev: Attention,
    /// The value now.
    pub new: Attention,
}

impl AttentionChange {
    /// True when this change lowered attention (only clears and exits do that).
    pub fn is_clear(&self) -> bool {
        self.new < self.prev
    }
}

/// The changes one compound step caused (either, both or neither).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateChanges {
    /// The lifecycle transition, if any.
    pub lifecycle: Option<LifecycleChange>,
    /// The attention transition, if any.
    pub attention: Option<AttentionChange>,
}

impl StateChanges {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.lifecycle.is_none() && self.attention.is_none()
    }
}

/// Both axes of one pane plus the timestamps the UI and `NextUnread` need.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PaneState {
    lifecycle: Lifecycle,
    attention: Attention,
    /// When `lifecycle` last changed.
    lifecycle_since: SystemTime,
    /// When `attention` last changed (to any value, including `none`).
    attention_since: SystemTime,
    /// Set while `lifecycle` is `working`: when the run started.
    working_since: Option<SystemTime>,
    /// How long the last finished run lasted.
    last_run: Option<Duration>,
}

impl PaneState {
    /// A fresh pane: `unknown` / `none`.
    pub fn new(now: SystemTime) -> Self {
        Self::restored(Lifecycle::Unknown, Attention::None, now)
    }

    /// A pane restored from a snapshot with the given values. A restored `working` pane starts a
    /// fresh run clock at `now`, since the old one belonged to a process that is gone.
    pub fn restored(lifecycle: Lifecycle, attention: Attention, now: SystemTime) -> Self {
        Self {
            lifecycle,
            attention,
            lifecycle_since: now,
            attention_since: now,
            working_since: (lifecycle == Lifecycle::Working).then_some(now),
            last_run: None,
        }
    }

    /// Current lifecycle.
    pub fn lifecycle(&self) -> Lifecycle {
        self.lifecycle
    }

    /// Current attention.
    pub fn attention(&self) -> Attention {
        self.attention
    }

    /// When the lifecycle last changed.
    pub fn lifecycle_since(&self) -> SystemTime {
        self.lifecycle_since
    }

    /// When the attention last changed.
    pub fn attention_since(&self) -> SystemTime {
        self.attention_since
    }

    /// The later of the two change times: the pane's "last activity" for ranking.
    pub fn last_change(&self) -> SystemTime {
        self.lifecycle_since.max(self.attention_since)
    }

    /// While working: when the current run started.
    pub fn working_since(&self) -> Option<SystemTime> {
        self.working_since
    }

    /// How long the last finished run lasted.
    pub fn last_run(&self) -> Option<Duration> {
        self.last_run
    }

    /// Moves the lifecycle. Same value → `None` and nothing is touched. Leaving `working` records
    /// the run duration (zero if the clock went backwards).
    pub fn set_lifecycle(
        &mut self,
        new: Lifecycle,
        source: ChangeSource,
        now: SystemTime,
    ) -> Option<LifecycleChange> {
        let prev = self.lifecycle;
        if prev == new {
            return None;
        }
        let mut run_duration = None;
        if prev == Lifecycle::Working {
            let started = self.working_since.take().unwrap_or(self.lifecycle_since);
            let ran = now.duration_since(started).unwrap_or(Duration::ZERO);
            self.last_run = Some(ran);
            run_duration = Some(ran);
        }
        if new == Lifecycle::Working {
            self.working_since = Some(now);
        }
        self.lifecycle = new;
        self.lifecycle_since = now;
        Some(LifecycleChange {
            prev,
            new,
            source,
            at: now,
            run_duration,
        })
    }

    /// Raises attention to the more severe of the current value and `level`; never lowers it.
    /// Returns `None` when that leaves it unchanged (including `level == none`).
    pub fn raise_attention(
        &mut self,
        level: Attention,
        now: SystemTime,
    ) -> Option<AttentionChange> {
        let new = self.attention.max(level);
        self.move_attention(new, now)
    }

    /// The explicit clear (MarkSeen, focus, attach with mark_seen, an answer). Goes to `none`,
    /// except that a pending decision keeps `permission_required`: a decision and its attention
    /// only end with the decision itself.
    pub fn clear_attention(
        &mut self,
        has_pending_decision: bool,
        now: SystemTime,
    ) -> Option<AttentionChange> {
        let target = if has_pending_decision {
            Attention::PermissionRequired
        } else {
            Attention::None
        };
        self.move_attention(target, now)
    }

    /// Applies an attention signal the way hooks express it: `none` means "clear" (the agent moved
    /// on), anything else is a raise.
    pub fn apply_attention(
        &mut self,
        level: Attention,
        has_pending_decision: bool,
        now: SystemTime,
    ) -> Option<AttentionChange> {
        if level == Attention::None {
            self.clear_attention(has_pending_decision, now)
        } else {
            self.raise_attention(level, now)
        }
    }

    /// The child exited: sets `lifecycle` (normally `exited`, or `done`/`failed` for a one-shot
    /// command), drops `input_required`/`permission_required` to `unread` because nobody can answer
    /// a dead process, then raises to `attention`.
    pub fn exit(
        &mut self,
        lifecycle: Lifecycle,
        attention: Attention,
        now: SystemTime,
    ) -> StateChanges {
        let before = self.attention;
        let lifecycle_change = self.set_lifecycle(lifecycle, ChangeSource::Exit, now);
        let demoted = if before.is_required() {
            Attention::Unread
        } else {
            before
        };
        let new = demoted.max(attention);
        StateChanges {
            lifecycle: lifecycle_change,
            attention: self.move_attention(new, now),
        }
    }

    /// The agent proved that what it waited for is settled (it went on after a permission or
    /// input request was answered elsewhere): a `input_required`/`permission_required` that no
    /// longer holds is replaced by `then` (one change, not a clear and a raise); any other level
    /// is only raised to `then`. This is the one way a hook lowers attention without a clear.
    pub fn settle_attention(
        &mut self,
        then: Attention,
        now: SystemTime,
    ) -> Option<AttentionChange> {
        if self.attention.is_required() {
            self.move_attention(then, now)
        } else {
            self.raise_attention(then, now)
        }
    }

    fn move_attention(&mut self, new: Attention, now: SystemTime) -> Option<AttentionChange> {
        let prev = self.attention;
        if prev == new {
            return None;
        }
        self.attention = new;
        self.attention_since = now;
        Some(AttentionChange { prev, new })
    }
}

#[cfg(test)]
mod tests;
