//! What an agent's hook event means for its pane: the mapping tables of BEHAVIOUR.md
//! ("Agents and hooks") as code, plus the exit rules and the one function that applies an effect
//! to a pane's state (those two, with the effect types, are model data in `model::hook`,
//! re-exported here).
//!
//! | agent | event | lifecycle / attention |
//! |---|---|---|
//! | claude | SessionStart | idle (a `compact` restart mid-turn changes nothing) |
//! | claude | UserPromptSubmit | working / none |
//! | claude | PermissionRequest | blocked / permission_required (+ a permission ask) |
//! | claude | Notification | blocked / input_required (permission_required if `notification_type` mentions permission) |
//! | claude | Stop, SessionEnd | done / unread |
//! | codex | as claude without Notification; `agent-turn-complete` | done / unread |
//! | opencode | session.created · session.status busy · session.status idle, session.idle · session.error | idle · working/none · done/unread · failed/error |
//! | cursor | sessionStart · beforeSubmitPrompt · stop, sessionEnd | idle · working/none · done/unread |
//! | generic | an event named after a lifecycle (`working`, `blocked`, `done`, `failed`, `idle`) | that lifecycle |
//!
//! Tool hooks (Pre/PostToolUse), SubagentStop, Pre/PostCompact and unknown events change nothing
//! and never clear a block. `attention: Some(Attention::None)` in an effect means "clear": the
//! agent moved on.

use serde_json::{Map, Value};

use super::AgentKind;
use super::payload::{HookError, as_object, obj_field, str_field, type_error};
use super::session::extract_session_id;
use crate::model::lifecycle::{Attention, Lifecycle};
use crate::model::notification::{
    BODY_MAX_CHARS, SUMMARY_MAX_CHARS, Severity, sanitize_text, truncate_chars,
};

pub use super::payload::{MAX_PAYLOAD_BYTES, check_payload_size, parse_payload};
pub use crate::model::hook::{
    ExitEffect, HookEffect, HookNotice, HookOutcome, PermissionAsk, apply_hook, map_exit,
};

/// Maps one hook event of `kind` to its effect. `payload` must be a JSON object or `null`; fields
/// we read are type-checked, others ignored. Unknown event names are accepted and change nothing.
pub fn map_hook(kind: AgentKind, event: &str, payload: &Value) -> Result<HookEffect, HookError> {
    let obj = as_object(payload)?;
    let mut effect = match kind {
        AgentKind::Claude | AgentKind::Codex => map_claude_like(kind, event, obj)?,
        AgentKind::Opencode => map_opencode(event, obj)?,
        AgentKind::Cursor => map_cursor(event, obj)?,
        AgentKind::Generic => map_generic(event, obj)?,
    };
    effect.session_id = extract_session_id(kind, payload)?;
    effect.clears_decision = effect.lifecycle.is_some_and(|l| l != Lifecycle::Blocked)
        || effect.attention == Some(Attention::None);
    Ok(effect)
}

fn map_claude_like(
    kind: AgentKind,
    event: &str,
    obj: Option<&Map<String, Value>>,
) -> Result<HookEffect, HookError> {
    let is_claude = kind == AgentKind::Claude;
    Ok(match event {
        "SessionStart" => {
            // A restart after compaction happens mid-turn; going idle there would be a lie.
            if str_field(obj, "source")? == Some("compact") {
                HookEffect::default()
            } else {
                HookEffect::state(Lifecycle::Idle, None)
            }
        }
        "UserPromptSubmit" => HookEffect::state(Lifecycle::Working, Some(Attention::None)),
        "PermissionRequest" => {
            let mut e = HookEffect::state(Lifecycle::Blocked, Some(Attention::PermissionRequired));
            let tool = str_field(obj, "tool_name")?.map(|t| sanitize_text(t, 200));
            if let Some(tool_name) = tool.filter(|t| !t.is_empty()) {
                let detail = tool_detail(obj.and_then(|o| o.get("tool_input")));
                e.message = summary(&match &detail {
                    Some(d) => format!("Allow {tool_name}? {d}"),
                    None => format!("Allow {tool_name}?"),
                });
                let agent = if is_claude { "Claude" } else { "Codex" };
                e.notice = Some(HookNotice {
                    title: format!("{agent} needs approval"),
                    body: detail
                        .clone()
                        .map_or_else(|| tool_name.clone(), |d| format!("{tool_name}: {d}")),
                    severity: Severity::Warning,
                });
                e.permission = Some(PermissionAsk { tool_name, detail });
            }
            e
        }
        "Notification" if is_claude => {
            let kind_text = str_field(obj, "notification_type")?;
            let message = str_field(obj, "message")?;
            // Older Claude Code sends no notification_type; its permission text says so.
            let about_permission = match kind_text {
                Some(t) => t.to_ascii_lowercase().contains("permission"),
                None => message.is_some_and(|m| m.to_ascii_lowercase().contains("permission")),
            };
            let attention = if about_permission {
                Attention::PermissionRequired
            } else {
                Attention::InputRequired
            };
            let mut e = HookEffect::state(Lifecycle::Blocked, Some(attention));
            e.message = message.and_then(summary);
            e
        }
        "Stop" => {
            let mut e = HookEffect::state(Lifecycle::Done, Some(Attention::Unread));
            e.message = str_field(obj, "last_assistant_message")?.and_then(summary);
            e
        }
        "agent-turn-complete" if !is_claude => {
            let mut e = HookEffect::state(Lifecycle::Done, Some(Attention::Unread));
            e.message = str_field(obj, "last-assistant-message")?.and_then(summary);
            e
        }
        "SessionEnd" => {
            let mut e = HookEffect::state(Lifecycle::Done, Some(Attention::Unread));
            e.skip_if_finished = true;
            e.message = Some(
                match str_field(obj, "reason")?.map(|r| sanitize_text(r, 80)) {
                    Some(r) if !r.is_empty() => format!("session ended ({r})"),
                    _ => "session ended".to_owned(),
                },
            );
            e
        }
        // PreToolUse, PostToolUse, SubagentStop, PreCompact, PostCompact and anything new: no
        // change, and in particular a blocked pane stays blocked.
        _ => HookEffect::default(),
    })
}

fn map_opencode(event: &str, obj: Option<&Map<String, Value>>) -> Result<HookEffect, HookError> {
    Ok(match event {
        "session.created" => HookEffect::state(Lifecycle::Idle, None),
        "session.status" => match opencode_status(obj)? {
            Some("busy") => HookEffect::state(Lifecycle::Working, Some(Attention::None)),
            Some("idle") => HookEffect::state(Lifecycle::Done, Some(Attention::Unread)),
            _ => HookEffect::default(),
        },
        "session.idle" => HookEffect::state(Lifecycle::Done, Some(Attention::Unread)),
        "session.error" | "session.execution.failed" => {
            let mut e = HookEffect::state(Lifecycle::Failed, Some(Attention::Error));
            let text = opencode_error(obj)?;
            e.message = summary(text.unwrap_or("session error"));
            e.notice = Some(HookNotice {
                title: "OpenCode failed".to_owned(),
                body: text.unwrap_or("session error").to_owned(),
                severity: Severity::Error,
            });
            e
        }
        _ => HookEffect::default(),
    })
}

/// `status` as our plugin sends it (`"busy"`), or as OpenCode's event carries it
/// (`{"type":"busy"}`, possibly under `properties`).
fn opencode_status(obj: Option<&Map<String, Value>>) -> Result<Option<&str>, HookError> {
    let holder = match obj.and_then(|o| o.get("status")) {
        Some(_) => obj,
        None => obj_field(obj, "properties")?,
    };
    match holder.and_then(|o| o.get("status")) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Object(m)) => str_field(Some(m), "type"),
        Some(_) => Err(type_error("status", "a string or an object")),
    }
}

/// The error text of an OpenCode error event: a string, or `{name, data:{message}}`.
fn opencode_error(obj: Option<&Map<String, Value>>) -> Result<Option<&str>, HookError> {
    let holder = match obj.and_then(|o| o.get("error")) {
        Some(_) => obj,
        None => obj_field(obj, "properties")?,
    };
    match holder.and_then(|o| o.get("error")) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Object(m)) => {
            let data = obj_field(Some(m), "data")?;
            Ok(str_field(data, "message")?
                .or(str_field(Some(m), "message")?)
                .or(str_field(Some(m), "name")?))
        }
        Some(_) => Err(type_error("error", "a string or an object")),
    }
}

fn map_cursor(event: &str, obj: Option<&Map<String, Value>>) -> Result<HookEffect, HookError> {
    Ok(match event {
        "sessionStart" => HookEffect::state(Lifecycle::Idle, None),
        "beforeSubmitPrompt" => HookEffect::state(Lifecycle::Working, Some(Attention::None)),
        "stop" => {
            let mut e = HookEffect::state(Lifecycle::Done, Some(Attention::Unread));
            e.message = match str_field(obj, "status")? {
                Some(status) if status != "completed" => summary(&format!("stopped: {status}")),
                _ => None,
            };
            e
        }
        "sessionEnd" => {
            let mut e = HookEffect::state(Lifecycle::Done, Some(Attention::Unread));
            e.skip_if_finished = true;
            e.message = Some("session ended".to_owned());
            e
        }
        _ => HookEffect::default(),
    })
}

fn map_generic(event: &str, obj: Option<&Map<String, Value>>) -> Result<HookEffect, HookError> {
    let mut e = match event {
        "idle" => HookEffect::state(Lifecycle::Idle, None),
        "working" => HookEffect::state(Lifecycle::Working, Some(Attention::None)),
        "blocked" => HookEffect::state(Lifecycle::Blocked, Some(Attention::InputRequired)),
        "done" => HookEffect::state(Lifecycle::Done, Some(Attention::Unread)),
        "failed" => HookEffect::state(Lifecycle::Failed, Some(Attention::Error)),
        _ => return Ok(HookEffect::default()),
    };
    e.message = str_field(obj, "message")?.and_then(summary);
    Ok(e)
}

/// A one-line hint from a tool input: the first string among `command`, `file_path`, `url`,
/// `description`. Tool inputs are tool-specific, so other shapes are simply not summarised.
fn tool_detail(input: Option<&Value>) -> Option<String> {
    let input = input?.as_object()?;
    ["command", "file_path", "url", "description"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(|s| sanitize_text(s, BODY_MAX_CHARS))
        .filter(|s| !s.is_empty())
}

/// Sanitized, single-line-friendly, capped summary; `None` when nothing is left.
fn summary(text: &str) -> Option<String> {
    let clean = sanitize_text(text, BODY_MAX_CHARS);
    (!clean.is_empty()).then(|| truncate_chars(&clean, SUMMARY_MAX_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::agent::SessionId;
    use crate::model::decision::ClearReason;
    use crate::model::lifecycle::PaneState;
    use serde_json::json;
    use std::time::{Duration, SystemTime};

    fn t(s: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(s)
    }

    fn map(kind: AgentKind, event: &str, payload: Value) -> HookEffect {
        map_hook(kind, event, &payload).expect("valid payload")
    }

    #[test]
    fn tool_hooks_never_clear_a_block() {
        let mut s = PaneState::new(t(0));
        let ask = map(
            AgentKind::Claude,
            "PermissionRequest",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        );
        assert_eq!(
            ask.permission.as_ref().map(|p| p.detail.as_deref()),
            Some(Some("ls"))
        );
        apply_hook(&mut s, &ask, false, t(1));
        for event in ["PreToolUse", "PostToolUse", "SubagentStop", "PreCompact"] {
            let e = map(AgentKind::Claude, event, json!({"tool_name": "Bash"}));
            assert_eq!(e, HookEffect::default(), "{event}");
            assert_eq!(apply_hook(&mut s, &e, true, t(2)), HookOutcome::default());
        }
        assert_eq!(
            (s.lifecycle(), s.attention()),
            (Lifecycle::Blocked, Attention::PermissionRequired)
        );
    }

    #[test]
    fn moving_on_clears_the_decision_and_attention() {
        let mut s = PaneState::new(t(0));
        apply_hook(
            &mut s,
            &map(
                AgentKind::Codex,
                "PermissionRequest",
                json!({"tool_name": "Bash"}),
            ),
            false,
            t(1),
        );
        let out = apply_hook(
            &mut s,
            &map(AgentKind::Codex, "UserPromptSubmit", json!({})),
            true,
            t(2),
        );
        assert_eq!(out.clear_decision, Some(ClearReason::AgentMovedOn));
        assert_eq!(
            (s.lifecycle(), s.attention()),
            (Lifecycle::Working, Attention::None)
        );
    }

    #[test]
    fn session_end_after_stop_only_restates() {
        let mut s = PaneState::new(t(0));
        apply_hook(
            &mut s,
            &map(AgentKind::Claude, "Stop", json!({})),
            false,
            t(1),
        );
        s.clear_attention(false, t(2));
        let end = map(
            AgentKind::Claude,
            "SessionEnd",
            json!({"session_id": "s1", "reason": "exit"}),
        );
        assert_eq!(end.session_id.as_ref().map(SessionId::as_str), Some("s1"));
        assert_eq!(
            apply_hook(&mut s, &end, false, t(3)),
            HookOutcome::default()
        );
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
            false,
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
    fn claude_notification_reads_its_type() {
        let idle = map(
            AgentKind::Claude,
            "Notification",
            json!({"notification_type": "idle_prompt", "message": "Claude is waiting"}),
        );
        assert_eq!(idle.attention, Some(Attention::InputRequired));
        assert!(!idle.clears_decision);
        let perm = map(
            AgentKind::Claude,
            "Notification",
            json!({"notification_type": "permission_prompt"}),
        );
        assert_eq!(perm.attention, Some(Attention::PermissionRequired));
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
}
