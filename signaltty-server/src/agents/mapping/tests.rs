use super::*;
use crate::agents::session::SessionId;
use crate::model::decision::{ClearReason, PendingDecision};
use crate::model::ids::PaneId;
use crate::model::lifecycle::{ChangeSource, PaneState};
use serde_json::json;
use std::time::{Duration, SystemTime};

fn t(s: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(s)
}

fn map(kind: AgentKind, event: &str, payload: Value) -> HookEffect {
    map_hook(kind, event, &payload).expect("valid payload")
}

/// The decision a PermissionRequest effect would create (as the store does).
fn decision(e: &HookEffect) -> PendingDecision {
    let ask = e.permission.as_ref().expect("an ask");
    let mut d = PendingDecision::permission_request(
        PaneId::new(),
        &ask.tool_name,
        ask.detail.as_deref(),
        false,
        t(0),
    );
    d.tool_use_id = e.tool.as_ref().and_then(|t| t.use_id.clone());
    d.session.clone_from(&e.session_id);
    d
}

fn asked(kind: AgentKind, payload: Value) -> (PaneState, PendingDecision) {
    let mut s = PaneState::new(t(0));
    let ask = map(kind, "PermissionRequest", payload);
    apply_hook(&mut s, &ask, None, t(1));
    (s, decision(&ask))
}

#[test]
fn the_same_tools_post_hook_settles_a_permission_and_others_do_not() {
    let (mut s, d) = asked(
        AgentKind::Claude,
        json!({"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}),
    );
    assert_eq!(d.tool_use_id.as_deref(), Some("toolu_1"));
    // Another call's PostToolUse, another session, SubagentStop, PreCompact: no change.
    for (event, payload) in [
        (
            "PostToolUse",
            json!({"session_id": "s1", "tool_name": "Read", "tool_use_id": "toolu_2"}),
        ),
        (
            "PostToolUse",
            json!({"session_id": "s2", "tool_name": "Bash", "tool_use_id": "toolu_1"}),
        ),
        (
            "PreToolUse",
            json!({"session_id": "s1", "tool_name": "Bash", "tool_use_id": "toolu_1"}),
        ),
        ("SubagentStop", json!({"session_id": "s1"})),
        ("PreCompact", json!({"session_id": "s1"})),
    ] {
        let e = map(AgentKind::Claude, event, payload);
        assert_eq!(
            apply_hook(&mut s, &e, Some(&d), t(2)),
            HookOutcome::default(),
            "{event}"
        );
    }
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Blocked, Attention::PermissionRequired)
    );
    let post = map(
        AgentKind::Claude,
        "PostToolUse",
        json!({"session_id": "s1", "tool_name": "Bash", "tool_use_id": "toolu_1"}),
    );
    let out = apply_hook(&mut s, &post, Some(&d), t(3));
    assert_eq!(out.clear_decision, Some(ClearReason::AgentMovedOn));
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Working, Attention::None)
    );
}

#[test]
fn stop_after_an_unanswered_request_is_done_and_unread() {
    let (mut s, d) = asked(AgentKind::Codex, json!({"tool_name": "Bash"}));
    let out = apply_hook(
        &mut s,
        &map(AgentKind::Codex, "Stop", json!({})),
        Some(&d),
        t(2),
    );
    assert_eq!(out.clear_decision, Some(ClearReason::AgentMovedOn));
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Done, Attention::Unread)
    );
    // Without a decision (a Notification raised it), the end of the turn lowers it too.
    let mut s = PaneState::new(t(0));
    let note = map(
        AgentKind::Claude,
        "Notification",
        json!({"notification_type": "permission_prompt", "message": "Claude needs your permission to use Bash"}),
    );
    apply_hook(&mut s, &note, None, t(1));
    apply_hook(
        &mut s,
        &map(AgentKind::Claude, "Stop", json!({})),
        None,
        t(2),
    );
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Done, Attention::Unread)
    );
}

#[test]
fn moving_on_clears_the_decision_and_attention() {
    let (mut s, d) = asked(AgentKind::Codex, json!({"tool_name": "Bash"}));
    let out = apply_hook(
        &mut s,
        &map(AgentKind::Codex, "UserPromptSubmit", json!({})),
        Some(&d),
        t(2),
    );
    assert_eq!(out.clear_decision, Some(ClearReason::AgentMovedOn));
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Working, Attention::None)
    );
}

#[test]
fn codex_interrupt_and_claude_stop_failure_end_the_turn() {
    let (mut s, d) = asked(AgentKind::Codex, json!({"tool_name": "Bash"}));
    let out = apply_hook(
        &mut s,
        &map(AgentKind::Codex, "Interrupt", json!({})),
        Some(&d),
        t(2),
    );
    assert_eq!(out.clear_decision, Some(ClearReason::AgentMovedOn));
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Idle, Attention::None)
    );
    let fail = map(
        AgentKind::Claude,
        "StopFailure",
        json!({"error": "rate_limit", "error_details": "429 Too Many Requests"}),
    );
    assert_eq!(
        fail.message.as_deref(),
        Some("rate_limit: 429 Too Many Requests")
    );
    let mut s = PaneState::new(t(0));
    apply_hook(
        &mut s,
        &map(AgentKind::Claude, "UserPromptSubmit", json!({})),
        None,
        t(1),
    );
    apply_hook(&mut s, &fail, None, t(2));
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Failed, Attention::Error)
    );
}

#[test]
fn session_end_after_stop_only_restates() {
    let mut s = PaneState::new(t(0));
    apply_hook(
        &mut s,
        &map(AgentKind::Claude, "Stop", json!({})),
        None,
        t(1),
    );
    s.clear_attention(false, t(2));
    let end = map(
        AgentKind::Claude,
        "SessionEnd",
        json!({"session_id": "s1", "reason": "exit"}),
    );
    assert_eq!(end.session_id.as_ref().map(SessionId::as_str), Some("s1"));
    assert_eq!(apply_hook(&mut s, &end, None, t(3)), HookOutcome::default());
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Done, Attention::None)
    );
}

#[test]
fn exited_panes_ignore_late_hooks() {
    let mut s = PaneState::new(t(0));
    let exit = map_exit(AgentKind::Claude, Some(0));
    s.exit(exit.lifecycle, exit.attention, t(1));
    let out = apply_hook(
        &mut s,
        &map(AgentKind::Claude, "UserPromptSubmit", json!({})),
        None,
        t(2),
    );
    assert!(out.changes.is_empty());
    assert_eq!(s.lifecycle(), Lifecycle::Exited);
}

#[test]
fn exit_rules() {
    assert_eq!(
        map_exit(AgentKind::Codex, Some(1)),
        ExitEffect {
            lifecycle: Lifecycle::Exited,
            attention: Attention::Unread
        }
    );
    assert_eq!(
        map_exit(AgentKind::Generic, Some(0)).lifecycle,
        Lifecycle::Done
    );
    assert_eq!(
        map_exit(AgentKind::Generic, Some(2)),
        ExitEffect {
            lifecycle: Lifecycle::Failed,
            attention: Attention::Error
        }
    );
    assert_eq!(
        map_exit(AgentKind::Generic, None).lifecycle,
        Lifecycle::Failed
    );
}

#[test]
fn mistyped_fields_are_refused_and_unknown_ones_ignored() {
    assert!(
        map_hook(
            AgentKind::Claude,
            "PermissionRequest",
            &json!({"tool_name": 7})
        )
        .is_err()
    );
    assert!(
        map_hook(
            AgentKind::Claude,
            "Stop",
            &json!({"last_assistant_message": ["x"]})
        )
        .is_err()
    );
    assert!(map_hook(AgentKind::Opencode, "session.status", &json!({"status": 1})).is_err());
    assert!(map_hook(AgentKind::Claude, "Stop", &json!([])).is_err());
    let e = map(
        AgentKind::Claude,
        "Stop",
        json!({"whatever": {"deep": [1, 2]}, "last_assistant_message": "ok"}),
    );
    assert_eq!(e.message.as_deref(), Some("ok"));
}

#[test]
fn claude_notifications_are_mapped_by_type() {
    let idle = map(
        AgentKind::Claude,
        "Notification",
        json!({"notification_type": "idle_prompt", "message": "Claude is waiting for your input"}),
    );
    // Only a pane still `working` was interrupted; a done pane stays done (apply_hook).
    assert_eq!(idle.only_if, Some(Lifecycle::Working));
    assert_eq!(
        (idle.lifecycle, idle.attention),
        (Some(Lifecycle::Idle), Some(Attention::None))
    );
    let mut done = PaneState::new(t(0));
    done.set_lifecycle(Lifecycle::Done, ChangeSource::Hook, t(1));
    assert_eq!(
        apply_hook(&mut done, &idle, None, t(2)),
        HookOutcome::default()
    );
    assert_eq!(done.lifecycle(), Lifecycle::Done);
    for info in ["auth_success", "agent_completed", "something_new"] {
        let e = map(
            AgentKind::Claude,
            "Notification",
            json!({"notification_type": info}),
        );
        assert_eq!(e, HookEffect::default(), "{info}");
    }
    let perm = map(
        AgentKind::Claude,
        "Notification",
        json!({"notification_type": "permission_prompt"}),
    );
    assert_eq!(perm.attention, Some(Attention::PermissionRequired));
    let dialog = map(
        AgentKind::Claude,
        "Notification",
        json!({"notification_type": "elicitation_dialog"}),
    );
    assert_eq!(
        (dialog.lifecycle, dialog.attention),
        (Some(Lifecycle::Blocked), Some(Attention::InputRequired))
    );
    let done = map(
        AgentKind::Claude,
        "Notification",
        json!({"notification_type": "elicitation_response"}),
    );
    assert_eq!(done.settles, Settle::Any);
    let old = map(
        AgentKind::Claude,
        "Notification",
        json!({"message": "Claude needs your permission to use Bash"}),
    );
    assert_eq!(old.attention, Some(Attention::PermissionRequired));
    assert_eq!(
        map(AgentKind::Codex, "Notification", json!({})),
        HookEffect::default()
    );
}

#[test]
fn who_waits_for_the_hook_decides_the_ask_kind() {
    let kind = |agent, payload| {
        map(agent, "PermissionRequest", payload)
            .permission
            .map(|p| p.kind)
    };
    assert_eq!(
        kind(AgentKind::Claude, json!({"tool_name": "Bash"})),
        Some(AskKind::Raced)
    );
    assert_eq!(
        kind(
            AgentKind::Claude,
            json!({"tool_name": "Bash", "agent_id": "a1"})
        ),
        Some(AskKind::AwaitedFirst)
    );
    assert_eq!(
        kind(AgentKind::Codex, json!({"tool_name": "Bash"})),
        Some(AskKind::AwaitedFirst)
    );
    let shell = map(
        AgentKind::Cursor,
        "beforeShellExecution",
        json!({"command": "git push"}),
    );
    assert_eq!(
        shell.permission.map(|p| (p.kind, p.detail)),
        Some((AskKind::PreCheck, Some("git push".into())))
    );
}

#[test]
fn cursor_stop_status_and_claude_hooks_fired_by_cursor() {
    let e = map(AgentKind::Cursor, "stop", json!({"status": "error"}));
    assert_eq!(
        (e.lifecycle, e.attention),
        (Some(Lifecycle::Failed), Some(Attention::Error))
    );
    let e = map(AgentKind::Cursor, "stop", json!({"status": "aborted"}));
    assert_eq!(
        (e.lifecycle, e.attention),
        (Some(Lifecycle::Idle), Some(Attention::None))
    );
    assert!(is_foreign(
        AgentKind::Claude,
        &json!({"cursor_version": "1.7.2", "hook_event_name": "Stop"})
    ));
    assert!(!is_foreign(AgentKind::Claude, &json!({"session_id": "s"})));
    assert!(!is_foreign(
        AgentKind::Cursor,
        &json!({"cursor_version": "1.7.2"})
    ));
}

#[test]
fn messages_are_sanitized_and_capped() {
    let long = format!("\u{1b}[31m{}\u{7}", "x".repeat(1000));
    let e = map(
        AgentKind::Claude,
        "Stop",
        json!({"last_assistant_message": long}),
    );
    let m = e.message.expect("message");
    assert!(!m.contains('\u{1b}'));
    assert_eq!(m.chars().count(), SUMMARY_MAX_CHARS + 1);
    assert!(m.ends_with('…'));
}

#[test]
fn generic_events_named_after_states() {
    let e = map(
        AgentKind::Generic,
        "blocked",
        json!({"message": "need input"}),
    );
    assert_eq!(
        (e.lifecycle, e.attention),
        (Some(Lifecycle::Blocked), Some(Attention::InputRequired))
    );
    assert_eq!(
        map(AgentKind::Generic, "Stop", json!({})),
        HookEffect::default()
    );
}

#[test]
fn an_opencode_retry_says_why_it_waits_and_the_next_busy_clears_it() {
    let retry = map(
        AgentKind::Opencode,
        "session.status",
        json!({"session_id": "s1", "status": "retry",
               "message": "Cannot connect to API: connection refused"}),
    );
    assert_eq!(retry.lifecycle, Some(Lifecycle::Working));
    assert_eq!(retry.attention, Some(Attention::Warning));
    assert_eq!(
        retry.message.as_deref(),
        Some("retrying: Cannot connect to API: connection refused")
    );
    let bare = map(
        AgentKind::Opencode,
        "session.status",
        json!({"session_id": "s1", "status": {"type": "retry"}}),
    );
    assert_eq!(
        bare.message.as_deref(),
        Some("retrying: the model's API failed")
    );
    let busy = map(
        AgentKind::Opencode,
        "session.status",
        json!({"session_id": "s1", "status": "busy"}),
    );
    let mut s = PaneState::new(t(0));
    apply_hook(&mut s, &retry, None, t(1));
    assert_eq!(s.attention(), Attention::Warning);
    apply_hook(&mut s, &busy, None, t(2));
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Working, Attention::None)
    );
}

/// What our plugins send for a reject (the ask's permission and patterns added to the reply),
/// and OpenCode's end of that turn right after it: the pane stays idle, saying what was rejected.
#[test]
fn an_opencode_reject_names_the_request_and_outlives_the_idle_after_it() {
    let reject = map(
        AgentKind::Opencode,
        "permission.replied",
        json!({"session_id": "s1", "reply": "reject", "permission": "bash",
               "patterns": ["rm -rf victim"]}),
    );
    assert_eq!(
        reject.message.as_deref(),
        Some("rejected: bash rm -rf victim")
    );
    let idle = map(
        AgentKind::Opencode,
        "session.idle",
        json!({"session_id": "s1"}),
    );
    let mut s = PaneState::new(t(0));
    s.set_lifecycle(Lifecycle::Working, ChangeSource::Hook, t(1));
    apply_hook(&mut s, &reject, None, t(2));
    apply_hook(&mut s, &idle, None, t(3));
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Idle, Attention::None)
    );
    // An ordinary turn still ends done.
    let busy = map(
        AgentKind::Opencode,
        "session.status",
        json!({"session_id": "s1", "status": "busy"}),
    );
    apply_hook(&mut s, &busy, None, t(4));
    apply_hook(&mut s, &idle, None, t(5));
    assert_eq!(
        (s.lifecycle(), s.attention()),
        (Lifecycle::Done, Attention::Unread)
    );
}
