//! What a hook event or an exit does to a pane, as data, and the one function that applies a
//! hook's effect to a pane's two axes. `agents::mapping` decides the effect of each agent's
//! events (the tables of BEHAVIOUR.md); the store applies it here. `attention: Some(None)` in an
//! effect means "clear": the agent moved on.

use std::time::SystemTime;

use super::agent::{AgentKind, SessionId};
use super::decision::ClearReason;
use super::lifecycle::{Attention, ChangeSource, Lifecycle, PaneState, StateChanges};
use super::notification::Severity;

/// A permission request the agent is blocked on; the store turns it into a `PendingDecision`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionAsk {
    /// The tool the agent wants to run (sanitized).
    pub tool_name: String,
    /// A one-line hint from the tool input (command, file path, URL or description), sanitized.
    pub detail: Option<String>,
}

/// A notification the hook deserves (the store stores it and raises its severity's attention).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookNotice {
    /// Title (sanitized later by `Notification::new`).
    pub title: String,
    /// Body.
    pub body: String,
    /// Severity.
    pub severity: Severity,
}

/// Everything one hook event means for its pane. The default is "no change".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookEffect {
    /// New lifecycle, if the event sets one.
    pub lifecycle: Option<Lifecycle>,
    /// Attention signal: `Some(None)` clears, any other level raises.
    pub attention: Option<Attention>,
    /// The agent session id found in the payload.
    pub session_id: Option<SessionId>,
    /// A permission request (claude/codex `PermissionRequest` naming a tool).
    pub permission: Option<PermissionAsk>,
    /// Short sanitized summary for the pane's `last_message` (≤ 300 chars + ellipsis).
    pub message: Option<String>,
    /// A notification worth storing.
    pub notice: Option<HookNotice>,
    /// The agent moved on: a pending decision is stale (lifecycle left `blocked`, or attention
    /// was cleared). False for events that change nothing.
    pub clears_decision: bool,
    /// Only a restatement when the pane already finished (`SessionEnd` after `Stop`): then it
    /// changes neither lifecycle nor attention.
    pub skip_if_finished: bool,
}

impl HookEffect {
    /// An effect that sets a lifecycle and maybe an attention signal, and nothing else.
    pub fn state(lifecycle: Lifecycle, attention: Option<Attention>) -> Self {
        Self {
            lifecycle: Some(lifecycle),
            attention,
            ..Self::default()
        }
    }
}

/// Lifecycle and attention for a child exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitEffect {
    /// `exited` for an interactive agent, `done`/`failed` for a one-shot command.
    pub lifecycle: Lifecycle,
    /// The attention raised (at least `unread`).
    pub attention: Attention,
}

/// The exit rules: an interactive agent → `exited`/`unread`; anything else (generic) → exit code 0
/// gives `done`/`unread`, a non-zero code or a death by signal (`None`) gives `failed`/`error`.
/// Apply with `PaneState::exit`.
pub fn map_exit(kind: AgentKind, code: Option<i32>) -> ExitEffect {
    if kind.is_interactive_agent() {
        return ExitEffect {
            lifecycle: Lifecycle::Exited,
            attention: Attention::Unread,
        };
    }
    match code {
        Some(0) => ExitEffect {
            lifecycle: Lifecycle::Done,
            attention: Attention::Unread,
        },
        _ => ExitEffect {
            lifecycle: Lifecycle::Failed,
            attention: Attention::Error,
        },
    }
}

/// What applying a hook effect did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookOutcome {
    /// Lifecycle/attention transitions (one event each).
    pub changes: StateChanges,
    /// Set when the pane's pending decision must be cleared, with the reason.
    pub clear_decision: Option<ClearReason>,
}

/// Applies `effect` to a pane: a stale pending decision is dropped first (so a clear is not held
/// by it), then the lifecycle moves (source `hook`), then attention is raised or cleared. An
/// exited pane ignores late hooks, and a `skip_if_finished` event on a `done`/`failed` pane only
/// restates. Creating a decision for `effect.permission` is the store's job (it supersedes any
/// previous one).
pub fn apply_hook(
    state: &mut PaneState,
    effect: &HookEffect,
    has_pending_decision: bool,
    now: SystemTime,
) -> HookOutcome {
    let current = state.lifecycle();
    let finished = matches!(current, Lifecycle::Done | Lifecycle::Failed);
    if current == Lifecycle::Exited || (effect.skip_if_finished && finished) {
        return HookOutcome::default();
    }
    let mut outcome = HookOutcome::default();
    let mut pending = has_pending_decision;
    if pending && effect.clears_decision {
        outcome.clear_decision = Some(ClearReason::AgentMovedOn);
        pending = false;
    }
    if let Some(lifecycle) = effect.lifecycle {
        outcome.changes.lifecycle = state.set_lifecycle(lifecycle, ChangeSource::Hook, now);
    }
    if let Some(attention) = effect.attention {
        outcome.changes.attention = state.apply_attention(attention, pending, now);
    }
    outcome
}
