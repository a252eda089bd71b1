//! Cursor's agent hooks (`~/.cursor/hooks.json`).
//!
//! | event | lifecycle / attention |
//! |---|---|
//! | sessionStart | idle |
//! | beforeSubmitPrompt | working / none |
//! | beforeShellExecution, beforeMCPExecution | a pre-check: an ask (blocked / permission_required) only when the user opted in to answering from signaltty, else no change |
//! | afterShellExecution, afterMCPExecution, postToolUse, postToolUseFailure | settle a pending ask |
//! | afterAgentResponse | the response text becomes the last message |
//! | stop `completed` · `aborted` · `error` | done / unread · idle / none · failed / error |
//! | sessionEnd | done / unread (a restatement after stop) |
//! | others (preToolUse, beforeReadFile, afterFileEdit, preCompact, subagent…) | – |

use serde_json::{Map, Value};

use super::{AskKind, HookEffect, HookError, HookNotice, Settle, ask, str_field, summary};
use crate::agents::payload::obj_field;
use crate::model::lifecycle::{Attention, Lifecycle};
use crate::model::notification::{Severity, sanitize_text};

pub(super) fn map(event: &str, obj: Option<&Map<String, Value>>) -> Result<HookEffect, HookError> {
    Ok(match event {
        "sessionStart" => HookEffect {
            settles: Settle::No,
            ..HookEffect::state(Lifecycle::Idle, None)
        },
        "beforeSubmitPrompt" => HookEffect::state(Lifecycle::Working, Some(Attention::None)),
        "beforeShellExecution" => {
            let command = str_field(obj, "command")?
                .map(|c| sanitize_text(c, 2000))
                .filter(|c| !c.is_empty());
            ask("Cursor", "Shell".to_owned(), command, AskKind::PreCheck)
        }
        "beforeMCPExecution" => {
            let tool = str_field(obj, "tool_name")?
                .map(|t| sanitize_text(t, 200))
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "an MCP tool".to_owned());
            let detail = str_field(obj, "url")?
                .or(str_field(obj, "command")?)
                .map(|d| sanitize_text(d, 500))
                .filter(|d| !d.is_empty());
            ask("Cursor", tool, detail, AskKind::PreCheck)
        }
        "afterShellExecution" | "afterMCPExecution" | "postToolUse" | "postToolUseFailure" => {
            HookEffect::settling(Settle::Any, None)
        }
        "afterAgentResponse" => HookEffect {
            message: str_field(obj, "text")?.and_then(summary),
            ..HookEffect::default()
        },
        "stop" => match str_field(obj, "status")? {
            Some("error") => {
                let mut e = HookEffect::state(Lifecycle::Failed, Some(Attention::Error));
                let text =
                    error_text(obj)?.unwrap_or_else(|| "the agent stopped on an error".into());
                e.message = summary(&text);
                e.notice = Some(HookNotice {
                    title: "Cursor stopped on an error".to_owned(),
                    body: text,
                    severity: Severity::Error,
                });
                e
            }
            Some("aborted") => {
                let mut e = HookEffect::state(Lifecycle::Idle, Some(Attention::None));
                e.message = Some("stopped: aborted".to_owned());
                e
            }
            Some(status) if status != "completed" => {
                let mut e = HookEffect::state(Lifecycle::Done, Some(Attention::Unread));
                e.message = summary(&format!("stopped: {status}"));
                e
            }
            _ => HookEffect::state(Lifecycle::Done, Some(Attention::Unread)),
        },
        "sessionEnd" => {
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
        _ => HookEffect::default(),
    })
}

/// An error text a stop payload may carry: `error_message`, or `error` as a string or an
/// object's `message`.
fn error_text(obj: Option<&Map<String, Value>>) -> Result<Option<String>, HookError> {
    if let Some(t) = str_field(obj, "error_message")? {
        return Ok(Some(t.to_owned()));
    }
    match obj.and_then(|o| o.get("error")) {
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Object(_)) => {
            Ok(str_field(obj_field(obj, "error")?, "message")?.map(str::to_owned))
        }
        _ => Ok(None),
    }
}
