//! What one agent event does to a pane's state: the [`HookEffect`] a hook event maps to, the
//! [`ExitEffect`] of a process exit ([`map_exit`]), and [`apply_hook`], the one function that moves
//! a [`PaneState`] by an effect. The per-agent tables that turn a payload into an effect are
//! `agents::mapping` (which re-exports these); the rules that hold for every agent are here, next
//! to the state machine they drive:
//!
//! - **The truth, not a ratchet.** An event that proves the agent went on after a permission or
//!   input request *settles* it ([`Settle`]): the pending decision ends (`agent_moved_on`), a
//!   blocked pane goes back to `working`, and `input_required`/`permission_required` gives way
//!   to what is true (nothing, or `unread` after the turn ended).
//! - An exited pane ignores late hooks; a restatement (`skip_if_finished`) on a finished pane
//!   changes nothing.

use std::time::SystemTime;

use super::{Attention, ChangeSource, Lifecycle, PaneState, StateChanges};
use crate::agent_kind::AgentKind;
use crate::decision::{ClearReason, PendingDecision};
use crate::notification::Severity;
use crate::session_id::SessionId;

/// How the agent runs a permission hook relative to its own approval prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AskKind {
    /// The agent shows its own prompt at once and races the hook against it (Claude Code's main
    /// session): holding the hook delays nothing, so it may wait for an answer from signaltty.
    Raced,
    /// The agent awaits the hook before it shows its prompt (Codex, Claude Code's background
    /// sub-agents): holding it would hide the prompt, so it is held only on opt-in.
    AwaitedFirst,
    /// A check the agent runs before every such action, prompt or not (Cursor's
    /// `beforeShellExecution`/`beforeMCPExecution`): only an ask when the user opted in to
    /// answering from signaltty; otherwise it is not an ask at all.
    PreCheck,
}

/// A permission request the agent is blocked on; the store turns it into a `PendingDecision`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermissionAsk {
    /// The tool the agent wants to run (sanitized).
    pub tool_name: String,
    /// A one-line hint from the tool input (command, file path, URL or description), sanitized.
    pub detail: Option<String>,
    /// How the agent waits for the hook.
    pub kind: AskKind,
}

/// Which pending request a settling event settles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Settle {
    /// Settles nothing.
    #[default]
    No,
    /// Settles whatever is pending (a new prompt, the end of the turn, an interruption).
    Any,
    /// Settles a request about the same tool call (PostToolUse of that tool).
    SameTool,
    /// Settles a request about another tool call (the next PreToolUse).
    OtherTool,
}

/// A tool call named by a hook payload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolRef {
    /// The tool's name (sanitized).
    pub name: Option<String>,
    /// The agent's id of the call.
    pub use_id: Option<String>,
    /// The sub-agent making the call (Claude Code's `agent_id`); `None` for the main session.
    pub agent: Option<String>,
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
    /// A permission request naming a tool.
    pub permission: Option<PermissionAsk>,
    /// Short sanitized summary for the pane's `last_message` (≤ 300 chars + ellipsis).
    pub message: Option<String>,
    /// A notification worth storing.
    pub notice: Option<HookNotice>,
    /// The agent moved on: a pending decision is stale (lifecycle left `blocked`, or attention
    /// was cleared). False for events that change nothing.
    pub clears_decision: bool,
    /// Which pending request this event proves settled (see the module docs).
    pub settles: Settle,
    /// The tool call the event is about, when it names one.
    pub tool: Option<ToolRef>,
    /// Only a restatement when the pane already finished (`SessionEnd` after `Stop`): then it
    /// changes neither lifecycle nor attention.
    pub skip_if_finished: bool,
    /// The event only tells the truth about a pane in this lifecycle (Claude's `idle_prompt`
    /// proves an interrupted turn only while the pane still says `working`); on any other it
    /// changes nothing.
    pub only_if: Option<Lifecycle>,
    /// The event is no news for a pane in one of these lifecycles (OpenCode's end of a turn
    /// after the event that said how it ended: failed, interrupted, rejected); there it changes
    /// nothing.
    pub unless: &'static [Lifecycle],
    /// Only a reminder of a dialog already shown: on a `blocked` pane it changes nothing.
    pub reminder: bool,
    /// The agent's process is ending (Claude's `SessionEnd` other than `/clear`): in a pane
    /// whose own command is something else (a shell), the pane is no longer the agent's.
    pub agent_ends: bool,
}

impl HookEffect {
    /// An event that sets `lifecycle` (and `attention`, when given) and settles whatever request
    /// is pending.
    pub fn state(lifecycle: Lifecycle, attention: Option<Attention>) -> Self {
        Self {
            lifecycle: Some(lifecycle),
            attention,
            settles: Settle::Any,
            ..Self::default()
        }
    }

    /// An event that changes nothing but proves a pending request `settles`.
    pub fn settling(settles: Settle, tool: Option<ToolRef>) -> Self {
        Self {
            settles,
            tool,
            ..Self::default()
        }
    }

    /// Whether this event settles `pending` (or, without a decision, a required attention):
    /// same session when both are known, and the tool rule of [`Settle`].
    pub fn settles_decision(&self, pending: Option<&PendingDecision>) -> bool {
        let Some(d) = pending else {
            return self.settles != Settle::No;
        };
        if let (Some(a), Some(b)) = (&self.session_id, &d.session)
            && a != b
        {
            return false;
        }
        // A sub-agent's tool calls say nothing about the main session's dialog, and the other
        // way round.
        if matches!(self.settles, Settle::SameTool | Settle::OtherTool)
            && let Some(tool) = &self.tool
            && tool.agent != d.sub_agent
        {
            return false;
        }
        let same_call = |tool: &ToolRef| match (&tool.use_id, &d.tool_use_id) {
            (Some(a), Some(b)) => Some(a == b),
            _ => None,
        };
        match self.settles {
            Settle::No => false,
            Settle::Any => true,
            Settle::SameTool => match &self.tool {
                None => true,
                Some(tool) => same_call(tool).unwrap_or_else(|| match (&tool.name, &d.tool_name) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }),
            },
            Settle::OtherTool => !self.tool.as_ref().and_then(same_call).unwrap_or(false),
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

/// Applies `effect` to a pane whose pending decision is `pending`: a stale or settled decision
/// is dropped first (so a clear is not held by it), then the lifecycle moves (source `hook`; a
/// settled block goes back to `working`), then attention is raised, cleared, or — when the event
/// settled a request — lowered from `input_required`/`permission_required` to what is true. An
/// exited pane ignores late hooks, a `skip_if_finished` event on a `done`/`failed` pane only
/// restates, and an event changes nothing on a pane in its `only_if`'s complement or `unless`. Creating a decision for `effect.permission` is the store's job (it supersedes any
/// previous one).
pub fn apply_hook(
    state: &mut PaneState,
    effect: &HookEffect,
    pending: Option<&PendingDecision>,
    now: SystemTime,
) -> HookOutcome {
    let current = state.lifecycle();
    let finished = matches!(current, Lifecycle::Done | Lifecycle::Failed);
    if current == Lifecycle::Exited
        || (effect.skip_if_finished && finished)
        || effect.only_if.is_some_and(|l| l != current)
        || effect.unless.contains(&current)
        || (effect.reminder && current == Lifecycle::Blocked)
    {
        return HookOutcome::default();
    }
    let mut outcome = HookOutcome::default();
    let mut has_pending = pending.is_some();
    let settles = effect.settles_decision(pending);
    if has_pending && (effect.clears_decision || settles) {
        outcome.clear_decision = Some(ClearReason::AgentMovedOn);
        has_pending = false;
    }
    // A decision that just ended takes its required attention with it.
    let settled = settles || outcome.clear_decision.is_some();
    match effect.lifecycle {
        Some(lifecycle) => {
            outcome.changes.lifecycle = state.set_lifecycle(lifecycle, ChangeSource::Hook, now);
        }
        None if settled && current == Lifecycle::Blocked => {
            outcome.changes.lifecycle =
                state.set_lifecycle(Lifecycle::Working, ChangeSource::Hook, now);
        }
        None => {}
    }
    outcome.changes.attention = match effect.attention {
        Some(Attention::None) => state.clear_attention(has_pending, now),
        Some(level) if settled => state.settle_attention(level, now),
        Some(level) => state.raise_attention(level, now),
        None if settled && state.attention().is_required() => {
            state.settle_attention(Attention::None, now)
        }
        None => None,
    };
    outcome
}
