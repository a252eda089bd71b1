//! What an agent's hook event means for its pane: the mapping tables as code (one module per
//! agent family: [`claude`] for Claude Code and Codex, [`opencode`], [`cursor`]), from a payload
//! to a [`HookEffect`]. The effect types, the exit rules ([`map_exit`]) and the one function
//! that applies an effect to a pane's state ([`apply_hook`]) are domain rules in
//! `model::lifecycle::effect`, re-exported here. `docs/agents.md` has the tables in prose;
//! `tests/fixtures/hooks/<agent>/<version>/` has one payload per documented event, with the
//! effect each must have.
//!
//! Two rules hold for every agent:
//! - **The truth, not a ratchet.** An event that proves the agent went on after a permission or
//!   input request (the tool ran, the next tool started, a new prompt, the turn ended)
//!   *settles* it: the pending decision ends (`agent_moved_on`), its waiting hook returns with no
//!   verdict, a blocked pane goes back to `working`, and `input_required`/`permission_required`
//!   gives way to what is true (nothing, or `unread` after the turn ended).
//! - **No agent waits on us.** A permission hook the agent runs *before* its own prompt
//!   ([`AskKind::AwaitedFirst`], [`AskKind::PreCheck`]) is only held when the user opted in for
//!   that workspace and agent (`hub/agents.rs`); otherwise the ask is reported and the hook
//!   returns at once.
//!
//! Unknown event names are accepted and change nothing.

use serde_json::{Map, Value};

use super::AgentKind;
use super::payload::{HookError, as_object, str_field};
use super::session::extract_session_id;
use crate::model::lifecycle::{Attention, Lifecycle};
use crate::model::notification::{
    BODY_MAX_CHARS, SUMMARY_MAX_CHARS, Severity, sanitize_text, truncate_chars,
};

mod claude;
mod cursor;
mod opencode;

pub use super::payload::{MAX_PAYLOAD_BYTES, check_payload_size, parse_payload};
pub use crate::model::lifecycle::effect::{
    AskKind, ExitEffect, HookEffect, HookNotice, HookOutcome, PermissionAsk, Settle, ToolRef,
    apply_hook, map_exit,
};

/// Maps one hook event of `kind` to its effect. `payload` must be a JSON object or `null`; fields
/// we read are type-checked, others ignored. Unknown event names are accepted and change nothing.
pub fn map_hook(kind: AgentKind, event: &str, payload: &Value) -> Result<HookEffect, HookError> {
    let obj = as_object(payload)?;
    let mut effect = match kind {
        AgentKind::Claude | AgentKind::Codex => claude::map(kind, event, obj)?,
        AgentKind::Opencode => opencode::map(event, obj)?,
        AgentKind::Cursor => cursor::map(event, obj)?,
        AgentKind::Generic => map_generic(event, obj)?,
    };
    effect.session_id = extract_session_id(kind, payload)?;
    effect.clears_decision = effect.lifecycle.is_some_and(|l| l != Lifecycle::Blocked)
        || effect.attention == Some(Attention::None);
    Ok(effect)
}

/// True when a hook reported as `kind` was in fact fired by another agent reading that agent's
/// config: Cursor runs `~/.claude/settings.json` hooks too, with its own payload fields
/// (`cursor_version`). Such a call is accepted and changes nothing — Cursor reports through
/// its own hooks.
pub fn is_foreign(kind: AgentKind, payload: &Value) -> bool {
    kind == AgentKind::Claude
        && payload
            .as_object()
            .is_some_and(|o| o.contains_key("cursor_version"))
}

fn map_generic(event: &str, obj: Option<&Map<String, Value>>) -> Result<HookEffect, HookError> {
    let mut e = match event {
        "idle" => HookEffect::state(Lifecycle::Idle, None),
        "working" => HookEffect::state(Lifecycle::Working, Some(Attention::None)),
        "blocked" => HookEffect {
            settles: Settle::No,
            ..HookEffect::state(Lifecycle::Blocked, Some(Attention::InputRequired))
        },
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

/// A permission ask for `tool` with an optional detail, its message and its notice.
fn ask(agent: &str, tool_name: String, detail: Option<String>, kind: AskKind) -> HookEffect {
    let mut e = HookEffect::state(Lifecycle::Blocked, Some(Attention::PermissionRequired));
    e.settles = Settle::No;
    e.message = summary(&match &detail {
        Some(d) => format!("Allow {tool_name}? {d}"),
        None => format!("Allow {tool_name}?"),
    });
    e.notice = Some(HookNotice {
        title: format!("{agent} needs approval"),
        body: detail
            .clone()
            .map_or_else(|| tool_name.clone(), |d| format!("{tool_name}: {d}")),
        severity: Severity::Warning,
    });
    e.permission = Some(PermissionAsk {
        tool_name,
        detail,
        kind,
    });
    e
}

#[cfg(test)]
mod tests;
