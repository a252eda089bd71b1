//! Claude Code and Codex hooks (they share event names and payload shapes).
//!
//! | event | lifecycle / attention | notes |
//! |---|---|---|
//! | SessionStart | idle | `source: compact` (a restart mid-turn) changes nothing; `source: clear` (`/clear`) is idle / none |
//! | UserPromptSubmit | working / none | settles anything pending |
//! | PermissionRequest | blocked / permission_required | a permission ask: raced by Claude's main session, awaited first by Codex and by Claude's sub-agents (`agent_id` in the payload); Claude's `AskUserQuestion` is a question instead: blocked / input_required, no decision |
//! | PreToolUse | – | settles a request about another tool call |
//! | PostToolUse, PostToolUseFailure | – | settle a request about the same tool call |
//! | PermissionDenied (claude) | – | the request was refused without a prompt: settled |
//! | Notification (claude) | by `notification_type`: `permission_prompt` → blocked / permission_required; `elicitation_dialog`, `elicitation_url_dialog` → blocked / input_required; `agent_needs_input` → input_required; `elicitation_complete`, `elicitation_response` settle it; `idle_prompt` → idle / none on a pane still `working` (the turn was interrupted: no Stop came), else nothing; `auth_success`, `agent_completed` and unknown types change nothing | |
//! | Elicitation (claude) | blocked / input_required | an MCP server asks the user |
//! | ElicitationResult (claude) | – | settles it |
//! | Stop, `agent-turn-complete` (codex `notify`) | done / unread | |
//! | StopFailure | failed / error | the turn ended on an API error; its text is the message |
//! | Interrupt (codex) | idle / none | the user pressed Esc |
//! | SessionEnd | done / unread | only a restatement after Stop; `reason: clear` changes nothing (SessionStart `clear` follows) |
//! | SubagentStart, SubagentStop, PreCompact, PostCompact and others | – | never clear a block |

use serde_json::{Map, Value};

use super::{
    AskKind, HookEffect, HookError, HookNotice, Settle, ToolRef, ask, str_field, summary,
    tool_detail,
};
use crate::agents::AgentKind;
use crate::agents::payload::type_error;
use crate::model::lifecycle::{Attention, Lifecycle};
use crate::model::notification::{Severity, sanitize_text};

pub(super) fn map(
    kind: AgentKind,
    event: &str,
    obj: Option<&Map<String, Value>>,
) -> Result<HookEffect, HookError> {
    let is_claude = kind == AgentKind::Claude;
    Ok(match event {
        "SessionStart" => {
            // A restart after compaction happens mid-turn; going idle there would be a lie.
            let source = str_field(obj, "source")?;
            if source == Some("compact") {
                HookEffect::default()
            } else if source == Some("clear") {
                // `/clear`: the user is at the prompt with an empty conversation; nothing of
                // the turn before is left to read.
                HookEffect {
                    settles: Settle::No,
                    ..HookEffect::state(Lifecycle::Idle, Some(Attention::None))
                }
            } else {
                HookEffect {
                    settles: Settle::No,
                    ..HookEffect::state(Lifecycle::Idle, None)
                }
            }
        }
        "UserPromptSubmit" => HookEffect::state(Lifecycle::Working, Some(Attention::None)),
        "PermissionRequest" => permission_request(kind, obj)?,
        "PreToolUse" => HookEffect::settling(Settle::OtherTool, Some(tool_ref(obj)?)),
        "PostToolUse" | "PostToolUseFailure" => {
            HookEffect::settling(Settle::SameTool, Some(tool_ref(obj)?))
        }
        "PermissionDenied" if is_claude => {
            HookEffect::settling(Settle::SameTool, Some(tool_ref(obj)?))
        }
        "Notification" if is_claude => notification(obj)?,
        "Elicitation" if is_claude => {
            let mut e = HookEffect::state(Lifecycle::Blocked, Some(Attention::InputRequired));
            e.settles = Settle::No;
            e.message = match str_field(obj, "mcp_server_name")? {
                Some(server) => summary(&format!("{server} asks for input")),
                None => Some("An MCP server asks for input".to_owned()),
            };
            e
        }
        "ElicitationResult" if is_claude => HookEffect::settling(Settle::Any, None),
        "Stop" => {
            let mut e = HookEffect::state(Lifecycle::Done, Some(Attention::Unread));
            e.message = str_field(obj, "last_assistant_message")?.and_then(summary);
            e
        }
        "StopFailure" => {
            let mut e = HookEffect::state(Lifecycle::Failed, Some(Attention::Error));
            let text = stop_failure_text(obj)?;
            e.message = summary(&text);
            e.notice = Some(HookNotice {
                title: format!("{} stopped on an error", agent_name(kind)),
                body: text,
                severity: Severity::Error,
            });
            e
        }
        "Interrupt" if !is_claude => {
            let mut e = HookEffect::state(Lifecycle::Idle, Some(Attention::None));
            e.message = Some("interrupted".to_owned());
            e
        }
        // Codex's legacy `notify` program: the event is the payload's `type`.
        "agent-turn-complete" if !is_claude => turn_complete(obj)?,
        "notify" if !is_claude => match str_field(obj, "type")? {
            Some("agent-turn-complete") => turn_complete(obj)?,
            _ => HookEffect::default(),
        },
        // `/clear` ends the session and starts a new one at once: SessionStart says the rest.
        "SessionEnd" if str_field(obj, "reason")? == Some("clear") => HookEffect::default(),
        "SessionEnd" => {
            let mut e = HookEffect::state(Lifecycle::Done, Some(Attention::Unread));
            e.skip_if_finished = true;
            // `/clear` ends a session but not the process; any other reason (`/exit`, Ctrl-D,
            // logout) ends Claude.
            e.agent_ends =
                is_claude && !matches!(str_field(obj, "reason")?, Some("clear") | Some("resume"));
            e.message = Some(
                match str_field(obj, "reason")?.map(|r| sanitize_text(r, 80)) {
                    Some(r) if !r.is_empty() => format!("session ended ({r})"),
                    _ => "session ended".to_owned(),
                },
            );
            e
        }
        // SubagentStart, SubagentStop, PreCompact, PostCompact and anything new: no change, and
        // in particular a blocked pane stays blocked.
        _ => HookEffect::default(),
    })
}

fn agent_name(kind: AgentKind) -> &'static str {
    if kind == AgentKind::Claude {
        "Claude"
    } else {
        "Codex"
    }
}

fn turn_complete(obj: Option<&Map<String, Value>>) -> Result<HookEffect, HookError> {
    let mut e = HookEffect::state(Lifecycle::Done, Some(Attention::Unread));
    e.message = str_field(obj, "last-assistant-message")?.and_then(summary);
    Ok(e)
}

fn permission_request(
    kind: AgentKind,
    obj: Option<&Map<String, Value>>,
) -> Result<HookEffect, HookError> {
    let tool = str_field(obj, "tool_name")?.map(|t| sanitize_text(t, 200));
    let Some(tool_name) = tool.filter(|t| !t.is_empty()) else {
        let mut e = HookEffect::state(Lifecycle::Blocked, Some(Attention::PermissionRequired));
        e.settles = Settle::No;
        return Ok(e);
    };
    if kind == AgentKind::Claude && tool_name == "AskUserQuestion" {
        return question(obj);
    }
    let detail = tool_detail(obj.and_then(|o| o.get("tool_input")));
    // Claude's main session shows its dialog while the hook runs; a sub-agent (its hooks carry
    // `agent_id`) and Codex wait for the hook before showing anything.
    let sub_agent = str_field(obj, "agent_id")?.is_some_and(|a| !a.is_empty());
    let (agent, ask_kind) = match kind {
        AgentKind::Claude if !sub_agent => ("Claude", AskKind::Raced),
        AgentKind::Claude => ("Claude", AskKind::AwaitedFirst),
        _ => ("Codex", AskKind::AwaitedFirst),
    };
    let mut e = ask(agent, tool_name, detail, ask_kind);
    e.tool = Some(tool_ref(obj)?);
    Ok(e)
}

/// Claude's AskUserQuestion reaches the PermissionRequest hook like a tool, but it is a question:
/// allowing it without answers makes Claude tell the model "the user did not answer". So it is
/// shown as a question (`input_required`, its text and options as the message) with no decision
/// and no waiting: the user answers in Claude's own dialog, whose tool result settles it.
fn question(obj: Option<&Map<String, Value>>) -> Result<HookEffect, HookError> {
    let mut e = HookEffect::state(Lifecycle::Blocked, Some(Attention::InputRequired));
    e.settles = Settle::No;
    let asked: Vec<String> = obj
        .and_then(|o| o.get("tool_input"))
        .and_then(|i| i.get("questions"))
        .and_then(Value::as_array)
        .map(|qs| {
            qs.iter()
                .filter_map(|q| {
                    let text = q.get("question")?.as_str()?;
                    let labels: Vec<&str> = q
                        .get("options")
                        .and_then(Value::as_array)
                        .map(|os| {
                            os.iter()
                                .filter_map(|o| o.get("label").and_then(Value::as_str))
                                .collect()
                        })
                        .unwrap_or_default();
                    Some(if labels.is_empty() {
                        text.to_owned()
                    } else {
                        format!("{text} ({})", labels.join(" / "))
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    e.message = if asked.is_empty() {
        Some("Claude asks a question".to_owned())
    } else {
        summary(&format!("Claude asks: {}", asked.join(" · ")))
    };
    e.tool = Some(tool_ref(obj)?);
    Ok(e)
}

/// Claude's Notification, by `notification_type`. Older versions send no type; their permission
/// text says "permission".
fn notification(obj: Option<&Map<String, Value>>) -> Result<HookEffect, HookError> {
    let message = str_field(obj, "message")?;
    let kind = match str_field(obj, "notification_type")? {
        Some(t) => t.to_owned(),
        None if message.is_some_and(|m| m.to_ascii_lowercase().contains("permission")) => {
            "permission_prompt".to_owned()
        }
        None => String::new(),
    };
    let mut e = match kind.as_str() {
        "permission_prompt" => {
            HookEffect::state(Lifecycle::Blocked, Some(Attention::PermissionRequired))
        }
        "elicitation_dialog" | "elicitation_url_dialog" => {
            HookEffect::state(Lifecycle::Blocked, Some(Attention::InputRequired))
        }
        // Someone (a sub-agent, a background task) waits for the user; the turn itself goes on.
        "agent_needs_input" => HookEffect {
            attention: Some(Attention::InputRequired),
            ..HookEffect::default()
        },
        // Claude has waited at its prompt for a while. After a normal end of turn the pane says
        // done already; a pane still `working` was interrupted (Esc sends no Stop): it is idle.
        "idle_prompt" => {
            return Ok(HookEffect {
                only_if: Some(Lifecycle::Working),
                ..HookEffect::state(Lifecycle::Idle, Some(Attention::None))
            });
        }
        // The dialog was answered: whatever it asked is settled.
        "elicitation_complete" | "elicitation_response" => {
            return Ok(HookEffect::settling(Settle::Any, None));
        }
        // `auth_success`, `agent_completed` and types we do not know are information only.
        _ => return Ok(HookEffect::default()),
    };
    e.settles = Settle::No;
    // Claude repeats a dialog that is already shown (6 s later, "Claude needs your permission"):
    // on a blocked pane it must not replace the ask's own text (or raise a question to a
    // permission).
    e.reminder = true;
    e.message = message.and_then(summary);
    Ok(e)
}

/// The text of a StopFailure: the error details, else the error type, else a generic line.
fn stop_failure_text(obj: Option<&Map<String, Value>>) -> Result<String, HookError> {
    // Claude 2.1.x sends `error: "unknown"` and its own text ("API Error: 400 …") as
    // `last_assistant_message`.
    for key in [
        "error_details",
        "error_message",
        "message",
        "last_assistant_message",
    ] {
        if let Some(t) = str_field(obj, key)?.filter(|t| !t.trim().is_empty()) {
            let kind = error_kind(obj)?.filter(|k| k != "unknown");
            return Ok(match kind {
                Some(k) => format!("{k}: {t}"),
                None => t.to_owned(),
            });
        }
    }
    Ok(error_kind(obj)?.map_or_else(
        || "the turn ended on an API error".to_owned(),
        |k| format!("the turn ended on an API error ({k})"),
    ))
}

/// `error` as a string, or an object's `type`/`message`.
fn error_kind(obj: Option<&Map<String, Value>>) -> Result<Option<String>, HookError> {
    match obj.and_then(|o| o.get("error")) {
        None | Some(Value::Null) => Ok(str_field(obj, "error_type")?.map(str::to_owned)),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Object(m)) => Ok(str_field(Some(m), "type")?
            .or(str_field(Some(m), "message")?)
            .map(str::to_owned)),
        Some(_) => Err(type_error("error", "a string or an object")),
    }
}

/// The tool call a payload names: `tool_name`, `tool_use_id`, and the sub-agent making it
/// (`agent_id`; none for the main session).
pub(super) fn tool_ref(obj: Option<&Map<String, Value>>) -> Result<ToolRef, HookError> {
    Ok(ToolRef {
        agent: str_field(obj, "agent_id")?
            .filter(|a| !a.is_empty())
            .map(|a| a.chars().take(200).collect()),
        name: str_field(obj, "tool_name")?
            .map(|t| sanitize_text(t, 200))
            .filter(|t| !t.is_empty()),
        use_id: str_field(obj, "tool_use_id")?
            .filter(|t| !t.is_empty())
            .map(|t| t.chars().take(200).collect()),
    })
}

#[cfg(test)]
mod real_findings;
