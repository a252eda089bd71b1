//! A verdict spelled in the agent's own hook-output JSON, for a waiting hook to print on stdout
//! (the CLI's `hook-event` spells the same shapes). Claude Code and Codex share the shape
//! `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`,
//! and for a deny `"decision":{"behavior":"deny","message":"…"}`. Cursor's
//! `beforeShellExecution`/`beforeMCPExecution` take `{"permission":"allow"}` or
//! `{"permission":"deny","user_message":"…","agent_message":"…"}`. OpenCode's `permission.asked`
//! (our plugin's report) takes `{"reply":"once"}` or `{"reply":"reject","message":"…"}`, which the
//! plugin passes to OpenCode's permission reply. No verdict at all (timeout, cancel) means printing nothing: the
//! agent then falls back to its own prompt — silence never allows.

use serde_json::{Value, json};

use super::AgentKind;
use crate::model::decision::Verdict;

/// The JSON the waiting hook prints for `verdict`, or `None` when `kind` cannot take a verdict.
pub fn native_verdict(kind: AgentKind, verdict: &Verdict) -> Option<Value> {
    if !kind.supports_native_wait() {
        return None;
    }
    if kind == AgentKind::Opencode {
        // What our plugin passes to OpenCode's permission reply (`once` / `reject`).
        return Some(match verdict {
            Verdict::Allow => json!({ "reply": "once" }),
            Verdict::Deny { message } => json!({ "reply": "reject", "message": message }),
        });
    }
    if kind == AgentKind::Cursor {
        return Some(match verdict {
            Verdict::Allow => json!({ "permission": "allow" }),
            Verdict::Deny { message } => json!({
                "permission": "deny",
                "user_message": message,
                "agent_message": message,
            }),
        });
    }
    let decision = match verdict {
        Verdict::Allow => json!({ "behavior": "allow" }),
        Verdict::Deny { message } => json!({ "behavior": "deny", "message": message }),
    };
    Some(json!({
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": decision,
        }
    }))
}

/// [`native_verdict`] as one compact line, ready for stdout.
pub fn native_verdict_line(kind: AgentKind, verdict: &Verdict) -> Option<String> {
    native_verdict(kind, verdict).map(|v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_and_codex_get_their_shape() {
        for kind in [AgentKind::Claude, AgentKind::Codex] {
            let line = native_verdict_line(kind, &Verdict::Allow).expect("supported");
            assert!(!line.contains('\n'), "one line for stdout");
            let parsed: Value = serde_json::from_str(&line).expect("valid JSON");
            assert_eq!(
                parsed,
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}})
            );
            let allow = native_verdict(kind, &Verdict::Allow).expect("supported");
            assert_eq!(
                allow["hookSpecificOutput"]["hookEventName"],
                "PermissionRequest"
            );
            assert_eq!(
                allow["hookSpecificOutput"]["decision"],
                json!({"behavior": "allow"})
            );
            let deny = native_verdict(
                kind,
                &Verdict::Deny {
                    message: "no".into(),
                },
            )
            .expect("supported");
            assert_eq!(
                deny["hookSpecificOutput"]["decision"],
                json!({"behavior": "deny", "message": "no"})
            );
        }
    }

    #[test]
    fn other_agents_get_nothing() {
        assert_eq!(native_verdict(AgentKind::Generic, &Verdict::Allow), None);
    }
}
