//! `State`'s agent awareness (`model/state/awareness.rs`) driven by real hook events: payloads
//! go through the agent's mapping table (`map_hook`) and then into `State::apply_hook_event`, as
//! the hub does. They live in `agents`, not next to the code they test, because `model` must not
//! import `agents` (cargo forbids it: `model` is the crate `signaltty-model`).

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde_json::json;

use crate::agents::AgentKind;
use crate::agents::mapping::map_hook;
use crate::model::agent::AgentInfo;
use crate::model::decision::{ClearReason, DecisionError, Verdict};
use crate::model::event::{ChangeSource, Event};
use crate::model::ids::{PaneId, TabId, WorkspaceId};
use crate::model::lifecycle::{Attention, Lifecycle, PaneState};
use crate::model::notification::{Notification, NotificationSource, Severity};
use crate::model::pane::{Pane, PaneStatus, Size};
use crate::model::state::fixtures::new_tab;
use crate::model::state::{AnswerRefused, HookApplied, Policy, State, StateError};
use crate::model::workspace::{GitContext, WorkspaceSettings};

fn t(s: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_000 + s)
}

fn live_pane(argv0: &str) -> (State, PaneId) {
    let mut s = State::new(Policy::default());
    let (ws, _) = s
        .create_workspace(
            "w",
            PathBuf::from("/tmp"),
            WorkspaceSettings::default(),
            GitContext::default(),
            t(0),
        )
        .expect("workspace");
    let pane = Pane {
        id: PaneId::new(),
        workspace_id: ws.id,
        tab_id: TabId::new(),
        title: argv0.into(),
        title_locked: false,
        argv: vec![argv0.into()],
        cwd: PathBuf::from("/tmp"),
        size: Size::DEFAULT,
        status: PaneStatus::Live { pid: 42 },
        state: PaneState::new(t(0)),
        agent: AgentKind::detect(argv0).map(|k| AgentInfo::new(k, Default::default())),
        pending_decision: None,
        last_message: String::new(),
        created_at: t(0),
    };
    let id = pane.id.clone();
    s.add_pane(pane, new_tab(""), t(0)).expect("add pane");
    (s, id)
}

fn hook(
    s: &mut State,
    pane: &PaneId,
    event: &str,
    payload: serde_json::Value,
    answerable: bool,
    at: u64,
) -> (HookApplied, Vec<Event>) {
    let effect = map_hook(AgentKind::Claude, event, &payload).expect("valid payload");
    s.apply_hook_event(pane, AgentKind::Claude, &effect, answerable, t(at))
        .expect("pane exists")
}

/// Claude's hook asks permission to run Bash at t(`at`).
fn ask_to_run_bash(
    s: &mut State,
    pane: &PaneId,
    answerable: bool,
    at: u64,
) -> (HookApplied, Vec<Event>) {
    hook(
        s,
        pane,
        "PermissionRequest",
        json!({"tool_name": "Bash"}),
        answerable,
        at,
    )
}

/// A live Claude pane whose hook asked for a permission (answerable) at t(1).
fn claude_asking_permission() -> (State, PaneId) {
    let (mut s, p) = live_pane("claude");
    ask_to_run_bash(&mut s, &p, true, 1);
    (s, p)
}

fn axes(s: &State, pane: &PaneId) -> (Lifecycle, Attention) {
    let p = s.pane(pane).expect("pane");
    (p.state.lifecycle(), p.state.attention())
}

fn note(pane: &PaneId, severity: Severity) -> Notification {
    Notification::new(
        Some(pane.clone()),
        "Build",
        "done",
        severity,
        NotificationSource::Api,
        t(1),
    )
    .expect("valid")
}

#[test]
fn notify_raises_by_severity_and_sets_the_message() {
    let (mut s, p) = live_pane("sh");
    let (_, events) = s
        .notify(note(&p, Severity::Warning), ChangeSource::Api, t(1))
        .expect("notify");
    assert!(matches!(
        events.as_slice(),
        [
            Event::NotificationCreated { workspace_id: Some(_), .. },
            Event::AttentionChanged { prev: Attention::None, new: Attention::Warning, source: ChangeSource::Api, .. },
            Event::PaneUpdated(pane),
        ] if pane.last_message == "Build: done"
    ));
    // A lower severity raises nothing but is still stored.
    let (_, events) = s
        .notify(note(&p, Severity::Info), ChangeSource::Api, t(2))
        .expect("notify");
    assert_eq!(events.len(), 1);
    assert_eq!(s.notifications().len(), 2);
    let ghost = PaneId::new();
    assert_eq!(
        s.notify(note(&ghost, Severity::Info), ChangeSource::Api, t(3))
            .map(|_| ()),
        Err(StateError::NoSuchPane(ghost))
    );
    assert_eq!(
        s.notifications().len(),
        2,
        "nothing stored for a ghost pane"
    );
}

#[test]
fn bells_raise_unread_once() {
    let (mut s, p) = live_pane("sh");
    assert_eq!(s.ring_bell(&p, t(1)).expect("bell").1.len(), 1);
    assert!(s.ring_bell(&p, t(2)).expect("bell").1.is_empty());
    assert_eq!(axes(&s, &p).1, Attention::Unread);
}

#[test]
fn mark_seen_keeps_a_pending_decision_required() {
    let (mut s, p) = live_pane("claude");
    s.notify(note(&p, Severity::Error), ChangeSource::Api, t(1))
        .expect("notify");
    ask_to_run_bash(&mut s, &p, true, 2);
    let (pane, events) = s.mark_seen(&p, ChangeSource::Api, t(3)).expect("seen");
    assert_eq!(pane.state.attention(), Attention::PermissionRequired);
    assert!(matches!(
        events.as_slice(),
        [Event::AttentionChanged {
            prev: Attention::Error,
            new: Attention::PermissionRequired,
            ..
        }]
    ));
    assert_eq!(s.notifications().unread_count(Some(&p)), 0);
}

#[test]
fn permission_requests_create_and_supersede_decisions() {
    let (mut s, p) = live_pane("claude");
    let (first, events) = hook(
        &mut s,
        &p,
        "PermissionRequest",
        json!({"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "ls"}}),
        true,
        1,
    );
    let first = first.created.expect("a decision");
    assert_eq!(first.prompt, "Allow Bash?\nls");
    assert!(first.answerable);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::DecisionCreated(d) if d.id == first.id))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::NotificationCreated { .. }))
    );
    let pane = s.pane(&p).expect("pane");
    assert_eq!(pane.last_message, "Allow Bash? ls");
    let agent = pane.agent.as_ref().expect("agent");
    assert_eq!(
        agent.resume_argv,
        Some(vec!["claude".into(), "--resume".into(), "s1".into()])
    );
    let (second, events) = hook(
        &mut s,
        &p,
        "PermissionRequest",
        json!({"tool_name": "Edit"}),
        false,
        2,
    );
    assert_eq!(
        second.cleared,
        [(first.id.clone(), ClearReason::Superseded)]
    );
    let cleared_at = events
        .iter()
        .position(|e| {
            matches!(
                e,
                Event::DecisionCleared {
                    reason: ClearReason::Superseded,
                    ..
                }
            )
        })
        .expect("cleared");
    let created_at = events
        .iter()
        .position(|e| matches!(e, Event::DecisionCreated(_)))
        .expect("created");
    assert!(cleared_at < created_at);
    assert_eq!(s.pending_decisions(None).len(), 1);
    // Moving on clears it.
    let (stop, _) = hook(&mut s, &p, "Stop", json!({}), false, 3);
    assert_eq!(stop.cleared.len(), 1);
    assert_eq!(stop.cleared[0].1, ClearReason::AgentMovedOn);
    assert!(s.pending_decisions(None).is_empty());
    // The permission went with it: done and unread, nothing left to answer.
    assert_eq!(axes(&s, &p), (Lifecycle::Done, Attention::Unread));
}

#[test]
fn answers_are_checked_then_consumed_once() {
    let (mut s, p) = live_pane("claude");
    let (a, _) = ask_to_run_bash(&mut s, &p, true, 1);
    let d = a.created.expect("decision");
    assert!(matches!(
        s.check_answer(&p, &d.id, "always"),
        Err(AnswerRefused::Decision(DecisionError::UnknownOption(_)))
    ));
    assert_eq!(s.check_answer(&p, &d.id, "once"), Ok(Verdict::Allow));
    assert_eq!(
        s.notifications().unread_count(Some(&p)),
        1,
        "the approval notice"
    );
    let (_, events) = s.commit_answer(&p, &d.id, "once", t(2)).expect("commit");
    assert_eq!(s.notifications().unread_count(Some(&p)), 0);
    assert!(matches!(events[0], Event::DecisionAnswered { .. }));
    assert_eq!(axes(&s, &p), (Lifecycle::Working, Attention::None));
    assert!(matches!(
        s.check_answer(&p, &d.id, "once"),
        Err(AnswerRefused::Decision(DecisionError::NotFound(_)))
    ));
    // A decision nobody waits for cannot be answered here.
    let (b, _) = ask_to_run_bash(&mut s, &p, false, 3);
    let b = b.created.expect("decision");
    assert!(matches!(
        s.check_answer(&p, &b.id, "deny"),
        Err(AnswerRefused::Decision(DecisionError::NotAnswerable(_)))
    ));
    assert!(
        !s.clear_decision(&p, &d.id, ClearReason::Timeout)
            .expect("clear")
            .0,
        "a stale id clears nothing"
    );
    let (cleared, events) = s
        .clear_decision(&p, &b.id, ClearReason::Timeout)
        .expect("clear");
    assert!(cleared);
    assert!(matches!(
        events.as_slice(),
        [Event::DecisionCleared {
            reason: ClearReason::Timeout,
            ..
        }]
    ));
    assert_eq!(axes(&s, &p).1, Attention::PermissionRequired);
}

#[test]
fn exits_follow_the_agent_rules_and_clear_decisions() {
    let (mut s, p) = claude_asking_permission();
    let (cleared, events) = s.pane_exited(&p, 0, t(2)).expect("exit");
    assert!(cleared.is_some());
    assert!(events.iter().any(|e| matches!(
        e,
        Event::DecisionCleared {
            reason: ClearReason::PaneExited,
            ..
        }
    )));
    assert_eq!(axes(&s, &p), (Lifecycle::Exited, Attention::Unread));
    // Late hooks change nothing but the session.
    let (late, events) = hook(
        &mut s,
        &p,
        "UserPromptSubmit",
        json!({"session_id": "s9"}),
        false,
        3,
    );
    assert!(!late.applied);
    assert!(matches!(events.as_slice(), [Event::PaneUpdated(_)]));
    assert_eq!(axes(&s, &p), (Lifecycle::Exited, Attention::Unread));

    let (mut s, p) = live_pane("make");
    s.pane_exited(&p, 0, t(1)).expect("exit");
    assert_eq!(axes(&s, &p), (Lifecycle::Done, Attention::Unread));
    let (mut s, p) = live_pane("make");
    s.pane_exited(&p, 2, t(1)).expect("exit");
    assert_eq!(axes(&s, &p), (Lifecycle::Failed, Attention::Error));
}

#[test]
fn next_unread_candidates_follow_workspaces() {
    let (mut s, p) = live_pane("sh");
    s.ring_bell(&p, t(1)).expect("bell");
    let ws = s.pane(&p).expect("pane").workspace_id.clone();
    assert_eq!(s.attention_candidates(Some(&ws)).len(), 1);
    assert!(s.attention_candidates(Some(&WorkspaceId::new())).is_empty());
}

/// The kinds of `events`, in order, as short names.
fn kinds(events: &[Event]) -> Vec<&'static str> {
    events
        .iter()
        .map(|e| match e {
            Event::DecisionCleared {
                reason: ClearReason::PaneExited,
                ..
            } => "cleared(pane_exited)",
            Event::PaneClosed { .. } => "pane_closed",
            Event::TabClosed { .. } => "tab_closed",
            _ => "other",
        })
        .collect()
}

#[test]
fn closing_a_pane_or_its_tab_clears_its_pending_decision_first() {
    for close_tab in [false, true] {
        let (mut s, p) = claude_asking_permission();
        assert_eq!(s.pending_decisions(None).len(), 1);
        let tab = s.pane(&p).expect("pane").tab_id.clone();
        let events = if close_tab {
            s.close_tab(&tab, t(2)).expect("close tab").1
        } else {
            s.remove_pane(&p, t(2)).expect("close pane").1
        };
        let kinds = kinds(&events);
        let cleared = kinds.iter().position(|k| *k == "cleared(pane_exited)");
        let closed = kinds.iter().position(|k| *k == "pane_closed");
        assert!(
            matches!((cleared, closed), (Some(c), Some(p)) if c < p),
            "close_tab={close_tab}: {kinds:?}"
        );
        assert!(s.pending_decisions(None).is_empty());
    }
}

#[test]
fn closing_a_pane_without_a_decision_emits_no_clear() {
    let (mut s, p) = live_pane("claude");
    let events = s.remove_pane(&p, t(2)).expect("close pane").1;
    assert!(!kinds(&events).contains(&"cleared(pane_exited)"));
    assert!(kinds(&events).contains(&"pane_closed"));
}
