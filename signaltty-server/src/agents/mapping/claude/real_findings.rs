//! What the real Claude Code 2.1.332 sent in `tests/real_claude.rs` (signaltty-cli), pinned here
//! so that the mapping keeps it without npm.

use serde_json::json;

use super::super::{AgentKind, HookEffect, map_hook};
use crate::model::lifecycle::effect::apply_hook;
use crate::model::lifecycle::{Attention, Lifecycle, PaneState};

fn map(event: &str, payload: serde_json::Value) -> HookEffect {
    map_hook(AgentKind::Claude, event, &payload).expect("valid payload")
}

#[test]
fn ask_user_question_is_a_question_with_its_options_and_no_decision() {
    let e = map(
        "PermissionRequest",
        json!({"session_id": "s", "tool_name": "AskUserQuestion", "tool_use_id": "toolu_1",
               "tool_input": {"questions": [{"question": "Which colour?", "header": "Colour",
                 "multiSelect": false,
                 "options": [{"label": "Red", "description": "warm"}, {"label": "Blue"}]}]}}),
    );
    assert_eq!(e.lifecycle, Some(Lifecycle::Blocked));
    assert_eq!(e.attention, Some(Attention::InputRequired));
    assert!(e.permission.is_none(), "no allow/deny decision");
    assert_eq!(
        e.message.as_deref(),
        Some("Claude asks: Which colour? (Red / Blue)")
    );
}

#[test]
fn the_permission_reminder_does_not_replace_a_shown_ask() {
    let now = std::time::SystemTime::UNIX_EPOCH;
    let mut state = PaneState::new(now);
    let ask = map(
        "PermissionRequest",
        json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    apply_hook(&mut state, &ask, None, now);
    let reminder = map(
        "Notification",
        json!({"session_id": "s", "notification_type": "permission_prompt",
               "message": "Claude needs your permission"}),
    );
    assert!(reminder.reminder);
    let outcome = apply_hook(&mut state, &reminder, None, now);
    assert_eq!(outcome.changes.lifecycle, None);
    assert_eq!(outcome.changes.attention, None);
}

#[test]
fn stop_failure_shows_claudes_own_error_text() {
    let e = map(
        "StopFailure",
        json!({"session_id": "s", "error": "unknown",
               "last_assistant_message": "API Error: 400 the prompt is far too long"}),
    );
    assert_eq!(
        e.message.as_deref(),
        Some("API Error: 400 the prompt is far too long")
    );
}

#[test]
fn session_end_ends_the_agent_except_on_clear() {
    let exit = map(
        "SessionEnd",
        json!({"session_id": "s", "reason": "prompt_input_exit"}),
    );
    assert!(exit.agent_ends);
    let clear = map("SessionEnd", json!({"session_id": "s", "reason": "clear"}));
    assert!(!clear.agent_ends);
}
