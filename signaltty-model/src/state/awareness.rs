//! Agent awareness as state changes: notifications, bells, MarkSeen, hook effects, sessions,
//! exits and pending decisions. Pure like the rest of `State`: every method validates, applies
//! fully and returns the events it caused, in the order a mirror must apply them.
//!
//! Invariants kept here:
//! - every lifecycle/attention transition yields exactly one `LifecycleChanged`/`AttentionChanged`
//!   (from `PaneState`, so same-value sets yield nothing);
//! - a pane holds at most one pending decision; whoever replaces or removes it emits
//!   `DecisionCreated`/`DecisionCleared`/`DecisionAnswered` and reports the id so the hub can wake
//!   the hook waiting on it;
//! - an exited pane ignores late hooks (`apply_hook`), and never gets a new decision;
//! - `PaneUpdated` is emitted when the agent info or `last_message` changed (the axes have their
//!   own events).
//!
//! Its tests are `agents/state_tests.rs`: they drive these methods with the effects of real hook
//! payloads (`agents::mapping::map_hook`), and `model` must not import `agents`, not even in tests.
//!
//! Waiting hooks are not state: the hub keeps them (`hub/decisions.rs`) and calls in here under
//! the store lock, so the state and the waiters never disagree about which decision is current.

use std::time::SystemTime;

use super::{Outcome, State, StateError};
use crate::agent::AgentInfo;
use crate::agent_kind::AgentKind;
use crate::decision::{ClearReason, DecisionError, PendingDecision, Verdict, answer};
use crate::event::{ChangeSource, Event};
use crate::ids::{DecisionId, NotificationId, PaneId, WorkspaceId};
use crate::lifecycle::effect::{HookEffect, apply_hook, map_exit};
use crate::lifecycle::{Attention, AttentionChange, Lifecycle, LifecycleChange, StateChanges};
use crate::notification::{
    AttentionCandidate, Notification, NotificationError, NotificationSource, Notifications,
};
use crate::pane::{Pane, PaneStatus};
use crate::session_id::SessionId;

/// What applying one hook event did, beyond its events.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookApplied {
    /// The decision this event created, if any.
    pub created: Option<PendingDecision>,
    /// Decisions this event removed, with why (their waiters must be woken).
    pub cleared: Vec<(DecisionId, ClearReason)>,
    /// False when the pane ignored the event's effect (exited, or a restatement).
    pub applied: bool,
}

/// Why an answer was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum AnswerRefused {
    /// The pane does not exist.
    Pane(StateError),
    /// The decision is not current, the option is not offered, or nobody waits for it.
    Decision(DecisionError),
}

fn lifecycle_event(pane_id: &PaneId, c: LifecycleChange) -> Event {
    Event::LifecycleChanged {
        pane_id: pane_id.clone(),
        prev: c.prev,
        new: c.new,
        source: c.source,
        run: c.run_duration,
    }
}

fn attention_event(pane_id: &PaneId, c: AttentionChange, source: ChangeSource) -> Event {
    Event::AttentionChanged {
        pane_id: pane_id.clone(),
        prev: c.prev,
        new: c.new,
        source,
    }
}

fn change_events(
    pane_id: &PaneId,
    changes: StateChanges,
    attention_source: ChangeSource,
) -> Vec<Event> {
    let mut events = Vec::new();
    if let Some(c) = changes.lifecycle {
        events.push(lifecycle_event(pane_id, c));
    }
    if let Some(c) = changes.attention {
        events.push(attention_event(pane_id, c, attention_source));
    }
    events
}

pub(super) fn cleared_event(d: &PendingDecision, reason: ClearReason) -> Event {
    Event::DecisionCleared {
        decision_id: d.id.clone(),
        pane_id: d.pane_id.clone(),
        reason,
    }
}

/// The fields whose change deserves a `PaneUpdated` here.
fn visible(p: &Pane) -> (Option<AgentInfo>, String) {
    (p.agent.clone(), p.last_message.clone())
}

impl State {
    /// The stored notifications.
    pub fn notifications(&self) -> &Notifications {
        &self.notifications
    }

    /// Stores a notification: it raises its pane's attention to the severity's level (source
    /// `source`) and becomes the pane's `last_message`. A notification without a pane is only
    /// stored. Unknown pane → `NoSuchPane`, nothing stored.
    pub fn notify(
        &mut self,
        notification: Notification,
        source: ChangeSource,
        now: SystemTime,
    ) -> Outcome<Notification> {
        let mut events = Vec::new();
        match notification.pane_id.clone() {
            Some(pane_id) => {
                let pane = self
                    .panes
                    .get_mut(&pane_id)
                    .ok_or_else(|| StateError::NoSuchPane(pane_id.clone()))?;
                let before = visible(pane);
                events.extend(store_notice(
                    &mut self.notifications,
                    pane,
                    notification.clone(),
                    source,
                    true,
                    now,
                ));
                if visible(pane) != before {
                    events.push(Event::PaneUpdated(pane.clone()));
                }
            }
            None => {
                self.notifications.push(notification.clone());
                events.push(Event::NotificationCreated {
                    notification: notification.clone(),
                    workspace_id: None,
                });
            }
        }
        Ok((notification, events))
    }

    /// A bell: raises the pane's attention to `unread`.
    pub fn ring_bell(&mut self, pane_id: &PaneId, now: SystemTime) -> Outcome<()> {
        let pane = self.pane_mut(pane_id)?;
        let events = pane
            .state
            .raise_attention(Attention::Unread, now)
            .map(|c| attention_event(pane_id, c, ChangeSource::Bell))
            .into_iter()
            .collect();
        Ok(((), events))
    }

    /// The user looked at the pane: attention goes to `none` (a pending decision keeps
    /// `permission_required`) and the pane's notifications are marked read.
    pub fn mark_seen(
        &mut self,
        pane_id: &PaneId,
        source: ChangeSource,
        now: SystemTime,
    ) -> Outcome<Pane> {
        let pane = self.pane_mut(pane_id)?;
        let pending = pane.pending_decision.is_some();
        let events: Vec<Event> = pane
            .state
            .clear_attention(pending, now)
            .map(|c| attention_event(pane_id, c, source))
            .into_iter()
            .collect();
        let pane = pane.clone();
        self.notifications.mark_pane_read(pane_id);
        Ok((pane, events))
    }

    /// Marks one notification read; returns whether it was unread.
    pub fn mark_notification_read(
        &mut self,
        id: &NotificationId,
    ) -> Result<bool, NotificationError> {
        self.notifications.mark_read(id)
    }

    /// Marks every notification of a pane read; returns how many changed.
    pub fn mark_pane_notifications_read(&mut self, pane_id: &PaneId) -> usize {
        self.notifications.mark_pane_read(pane_id)
    }

    /// The pane's process exited with `code` (128+n for signal n): records the tombstone, moves
    /// the axes by the exit rules of the pane's agent kind (`map_exit`; plain commands follow the
    /// generic rules), and clears a pending decision with `pane_exited`. Returns that decision.
    pub fn pane_exited(
        &mut self,
        pane_id: &PaneId,
        code: i32,
        now: SystemTime,
    ) -> Outcome<Option<PendingDecision>> {
        let pane = self.pane_mut(pane_id)?;
        pane.status = PaneStatus::Exited { code, at: now };
        let mut events = vec![Event::PaneExited {
            pane_id: pane_id.clone(),
            code,
        }];
        let cleared = pane.pending_decision.take();
        if let Some(d) = &cleared {
            events.push(cleared_event(d, ClearReason::PaneExited));
        }
        // A request still open when the agent died was never answered: the pane must not keep
        // offering it ("Allow bash? …" through the exit), but the user should see what it was.
        let unanswered = cleared.is_some() || pane.state.attention().is_required();
        if unanswered && pane.state.lifecycle() == Lifecycle::Blocked {
            pane.last_message = unanswered_message(&pane.last_message);
        }
        let rule = map_exit(pane.agent_kind(), Some(code));
        let changes = pane.state.exit(rule.lifecycle, rule.attention, now);
        events.extend(change_events(pane_id, changes, ChangeSource::Exit));
        events.push(Event::PaneUpdated(Box::new(pane.clone())));
        if let Some(d) = &cleared {
            self.notifications.settle_since(pane_id, d.received_at);
        }
        Ok((cleared, events))
    }

    /// Applies one hook event of an agent of `kind` to a pane, in this order: the agent info
    /// (kind, session id → resume argv); the axes (`apply_hook`, which first drops a stale
    /// decision as `agent_moved_on`); a permission ask becomes the pane's decision (superseding an
    /// older one), `answerable` when a hook waits for it; the message; the notice as a
    /// notification. A pane that ignores the event (exited, or a `SessionEnd` after `Stop`) still
    /// records the session id but nothing else.
    pub fn apply_hook_event(
        &mut self,
        pane_id: &PaneId,
        kind: AgentKind,
        effect: &HookEffect,
        answerable: bool,
        now: SystemTime,
    ) -> Outcome<HookApplied> {
        let pane = self
            .panes
            .get_mut(pane_id)
            .ok_or_else(|| StateError::NoSuchPane(pane_id.clone()))?;
        let before = visible(pane);
        let argv0 = pane.argv.first().cloned();
        adopt_agent(pane, kind, effect.session_id.clone(), argv0.as_deref());

        let lifecycle_before = pane.state.lifecycle();
        let finished = matches!(lifecycle_before, Lifecycle::Done | Lifecycle::Failed);
        let applies = pane.status.is_live()
            && lifecycle_before != Lifecycle::Exited
            && !(effect.skip_if_finished && finished)
            && effect.only_if.is_none_or(|l| l == lifecycle_before)
            && !effect.unless.contains(&lifecycle_before)
            && !(effect.reminder && lifecycle_before == Lifecycle::Blocked);
        let mut events = Vec::new();
        let mut applied = HookApplied {
            applied: applies,
            ..HookApplied::default()
        };
        if applies {
            let outcome = apply_hook(&mut pane.state, effect, pane.pending_decision.as_ref(), now);
            if let Some(reason) = outcome.clear_decision
                && let Some(d) = pane.pending_decision.take()
            {
                self.notifications.settle_since(pane_id, d.received_at);
                events.push(cleared_event(&d, reason));
                applied.cleared.push((d.id, reason));
            }
            // A message belongs to its turn: a pane that goes (back) to work — a new turn, or
            // the agent going on after a question or a permission — drops the old one unless
            // the event brings its own.
            if outcome
                .changes
                .lifecycle
                .as_ref()
                .is_some_and(|c| c.new == Lifecycle::Working)
            {
                pane.last_message.clear();
            }
            events.extend(change_events(pane_id, outcome.changes, ChangeSource::Hook));
            if let Some(ask) = &effect.permission {
                if let Some(old) = pane.pending_decision.take() {
                    self.notifications.settle_since(pane_id, old.received_at);
                    events.push(cleared_event(&old, ClearReason::Superseded));
                    applied.cleared.push((old.id, ClearReason::Superseded));
                }
                let mut decision = PendingDecision::permission_request(
                    pane_id.clone(),
                    &ask.tool_name,
                    ask.detail.as_deref(),
                    answerable,
                    now,
                );
                decision.tool_use_id = effect.tool.as_ref().and_then(|t| t.use_id.clone());
                decision.sub_agent = effect.tool.as_ref().and_then(|t| t.agent.clone());
                decision.session.clone_from(&effect.session_id);
                pane.pending_decision = Some(decision.clone());
                events.push(Event::DecisionCreated(Box::new(decision.clone())));
                applied.created = Some(decision);
            }
            if let Some(message) = &effect.message {
                pane.last_message.clone_from(message);
            }
            // A notice whose text sanitizes to nothing is simply not stored.
            if let Some(n) = &effect.notice
                && let Ok(stored) = Notification::new(
                    Some(pane_id.clone()),
                    &n.title,
                    &n.body,
                    n.severity,
                    NotificationSource::Hook,
                    now,
                )
            {
                // The hook's own summary beats the notice's (it says more, e.g. the command).
                let set_message = effect.message.is_none();
                events.extend(store_notice(
                    &mut self.notifications,
                    pane,
                    stored,
                    ChangeSource::Hook,
                    set_message,
                    now,
                ));
            }
        }
        if effect.agent_ends && pane.status.is_live() {
            events.extend(agent_left(pane, kind, argv0.as_deref(), now));
        }
        if visible(pane) != before {
            events.push(Event::PaneUpdated(pane.clone()));
        }
        Ok((applied, events))
    }

    /// Records an agent session reported explicitly (ReportSession).
    pub fn record_session(
        &mut self,
        pane_id: &PaneId,
        kind: AgentKind,
        session: SessionId,
    ) -> Outcome<AgentInfo> {
        let pane = self.pane_mut(pane_id)?;
        let before = visible(pane);
        let argv0 = pane.argv.first().cloned();
        adopt_agent(pane, kind, Some(session), argv0.as_deref());
        let info = pane
            .agent
            .clone()
            .expect("adopt_agent always leaves agent info in place");
        let events = if visible(pane) == before {
            Vec::new()
        } else {
            vec![Event::PaneUpdated(Box::new(pane.clone()))]
        };
        Ok((info, events))
    }

    /// Checks that `option_id` would answer the pane's current decision `decision_id`, without
    /// consuming it: the caller must first make sure a waiter takes the verdict
    /// ([`State::commit_answer`] then consumes it).
    pub fn check_answer(
        &self,
        pane_id: &PaneId,
        decision_id: &DecisionId,
        option_id: &str,
    ) -> Result<Verdict, AnswerRefused> {
        let pane = self.pane(pane_id).map_err(AnswerRefused::Pane)?;
        let mut slot = pane.pending_decision.clone();
        answer(&mut slot, decision_id, option_id)
            .map(|(_, verdict)| verdict)
            .map_err(AnswerRefused::Decision)
    }

    /// Consumes the pane's decision with an answer already delivered to its waiter: emits
    /// `DecisionAnswered`, clears attention and reads the pane's notifications (answering is an
    /// explicit act), and moves a blocked pane back to `working` (the agent goes on with its turn
    /// either way).
    pub fn commit_answer(
        &mut self,
        pane_id: &PaneId,
        decision_id: &DecisionId,
        option_id: &str,
        now: SystemTime,
    ) -> Outcome<PendingDecision> {
        let pane = self.pane_mut(pane_id)?;
        let (decision, _) = answer(&mut pane.pending_decision, decision_id, option_id)
            .map_err(|e| StateError::Bad(e.to_string()))?;
        let mut events = vec![Event::DecisionAnswered {
            decision_id: decision.id.clone(),
            pane_id: pane_id.clone(),
            option_id: option_id.to_owned(),
        }];
        if pane.state.lifecycle() == Lifecycle::Blocked
            && let Some(c) =
                pane.state
                    .set_lifecycle(Lifecycle::Working, ChangeSource::Decision, now)
        {
            events.push(lifecycle_event(pane_id, c));
            // The question was answered: it is no longer the pane's message.
            if !pane.last_message.is_empty() {
                pane.last_message.clear();
                events.push(Event::PaneUpdated(Box::new(pane.clone())));
            }
        }
        if let Some(c) = pane.state.clear_attention(false, now) {
            events.push(attention_event(pane_id, c, ChangeSource::Decision));
        }
        // Answering is the user looking at the pane: its notifications (the approval request's
        // among them) are read.
        self.notifications.mark_pane_read(pane_id);
        Ok((decision, events))
    }

    /// Removes the pane's decision `decision_id` if it is still the current one. A closed pane or
    /// a newer decision is not an error: there is just nothing left to clear. Attention is left
    /// alone: the agent falls back to its own prompt and still needs the user.
    pub fn clear_decision(
        &mut self,
        pane_id: &PaneId,
        decision_id: &DecisionId,
        reason: ClearReason,
    ) -> Outcome<bool> {
        let Some(pane) = self.panes.get_mut(pane_id) else {
            return Ok((false, Vec::new()));
        };
        match pane.pending_decision.take_if(|d| &d.id == decision_id) {
            Some(d) => {
                self.notifications.settle_since(pane_id, d.received_at);
                Ok((true, vec![cleared_event(&d, reason)]))
            }
            None => Ok((false, Vec::new())),
        }
    }

    /// Pending decisions, oldest first, optionally only one workspace's.
    pub fn pending_decisions(&self, ws: Option<&WorkspaceId>) -> Vec<&PendingDecision> {
        let mut all: Vec<&PendingDecision> = self
            .panes
            .values()
            .filter(|p| ws.is_none_or(|w| &p.workspace_id == w))
            .filter_map(|p| p.pending_decision.as_ref())
            .collect();
        all.sort_by(|a, b| a.received_at.cmp(&b.received_at).then(a.id.cmp(&b.id)));
        all
    }

    /// Every pane's attention and last change, optionally only one workspace's (for NextUnread).
    pub fn attention_candidates(&self, ws: Option<&WorkspaceId>) -> Vec<AttentionCandidate> {
        self.panes
            .values()
            .filter(|p| ws.is_none_or(|w| &p.workspace_id == w))
            .map(|p| AttentionCandidate {
                pane_id: p.id.clone(),
                attention: p.state.attention(),
                since: p.state.last_change(),
            })
            .collect()
    }
}

/// Stores a notification of `pane`: `NotificationCreated`, then the attention it raises; with
/// `set_message` it also becomes the pane's `last_message` (the caller emits `PaneUpdated`).
fn store_notice(
    store: &mut Notifications,
    pane: &mut Pane,
    notification: Notification,
    source: ChangeSource,
    set_message: bool,
    now: SystemTime,
) -> Vec<Event> {
    let mut events = vec![Event::NotificationCreated {
        notification: notification.clone(),
        workspace_id: Some(pane.workspace_id.clone()),
    }];
    if let Some(c) = pane
        .state
        .raise_attention(notification.severity.attention(), now)
    {
        events.push(attention_event(&pane.id, c, source));
    }
    if set_message {
        pane.last_message = notification.summary();
    }
    store.push(notification);
    events
}

/// Makes sure the pane has agent info of (at least) `kind`, and records a session id.
/// The agent ended in a pane that outlives it (`claude` run from the pane's shell, then `/exit`):
/// the pane is the shell's again — no agent, lifecycle `unknown` (signaltty knows nothing of a
/// shell's state), any pending decision gone. Unread attention stays: the last answer is unread.
/// A pane whose own command is the agent exits with it instead.
fn agent_left(
    pane: &mut Pane,
    kind: AgentKind,
    argv0: Option<&str>,
    now: SystemTime,
) -> Vec<Event> {
    if argv0.and_then(AgentKind::detect) == Some(kind) {
        return Vec::new();
    }
    let mut events = Vec::new();
    pane.agent = None;
    if let Some(d) = pane.pending_decision.take() {
        events.push(cleared_event(&d, ClearReason::AgentMovedOn));
    }
    let changes = StateChanges {
        lifecycle: pane
            .state
            .set_lifecycle(Lifecycle::Unknown, ChangeSource::Hook, now),
        attention: if pane.state.attention().is_required() {
            pane.state.clear_attention(false, now)
        } else {
            None
        },
    };
    events.extend(change_events(&pane.id, changes, ChangeSource::Hook));
    pane.last_message = format!("{} exited", kind.as_str());
    events
}

/// The message of a pane that exited with a request open: what it asked, said to be unanswered.
fn unanswered_message(asked: &str) -> String {
    if asked.is_empty() {
        "exited without an answer".to_owned()
    } else {
        format!("exited without an answer to: {asked}")
    }
}

fn adopt_agent(pane: &mut Pane, kind: AgentKind, session: Option<SessionId>, argv0: Option<&str>) {
    let agent = pane
        .agent
        .get_or_insert_with(|| AgentInfo::new(kind, Default::default()));
    agent.adopt_kind(kind, argv0);
    if let Some(session) = session {
        agent.set_session(session, argv0);
    }
}
