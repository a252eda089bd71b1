//! Agent sessions: where each agent puts its session id in a hook payload, and the few launch
//! environment variables worth remembering for a resume.
//!
//! Session ids only ever come from hook payloads (never from the screen). The id itself
//! ([`SessionId`], validated because it becomes a command-line argument) and the argv that
//! resumes it (`model::agent::resume_argv`) are domain values in `model`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::AgentKind;
use super::payload::{HookError, as_object, obj_field, str_field};
pub use crate::model::session_id::{InvalidSessionId, SessionId};

/// Top-level payload keys that may carry the session id, tried in order.
pub fn session_keys(kind: AgentKind) -> &'static [&'static str] {
    match kind {
        AgentKind::Claude => &["session_id"],
        // Hooks send `session_id`; the legacy `notify` program gets `thread-id`.
        AgentKind::Codex => &["session_id", "thread-id", "thread_id"],
        AgentKind::Opencode => &["session_id", "sessionID", "sessionId"],
        AgentKind::Cursor => &["session_id", "sessionId", "conversation_id", "chatId"],
        AgentKind::Generic => &["session_id", "sessionId"],
    }
}

/// Reads the session id from a hook payload: the first of [`session_keys`] holding a non-empty
/// string wins. For OpenCode, raw plugin events are also understood (`properties.sessionID`,
/// `properties.info.id`). A key holding a non-string, or an id that fails [`SessionId::parse`],
/// is an error; no id at all is `Ok(None)`.
pub fn extract_session_id(
    kind: AgentKind,
    payload: &Value,
) -> Result<Option<SessionId>, HookError> {
    let obj = as_object(payload)?;
    if let Some(id) = first_id(obj, session_keys(kind))? {
        return Ok(Some(id));
    }
    if kind == AgentKind::Opencode {
        // V1 bus events carry their fields under `properties`, V2 events under `data`.
        for holder in ["properties", "data"] {
            let props = obj_field(obj, holder)?;
            if let Some(id) = first_id(props, &["sessionID", "sessionId", "session_id"])? {
                return Ok(Some(id));
            }
            if let Some(id) = first_id(obj_field(props, "info")?, &["id"])? {
                return Ok(Some(id));
            }
        }
        return Ok(None);
    }
    Ok(None)
}

fn first_id(
    obj: Option<&Map<String, Value>>,
    keys: &[&str],
) -> Result<Option<SessionId>, HookError> {
    for key in keys {
        if let Some(s) = str_field(obj, key)?.filter(|s| !s.is_empty()) {
            return Ok(Some(SessionId::parse(s)?));
        }
    }
    Ok(None)
}

/// The only launch environment variables remembered for a resume: they point the agent at the
/// config (and therefore the hooks and sessions) it was started with.
pub const REMEMBERED_ENV: [&str; 3] = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "OPENCODE_CONFIG_DIR"];

/// Keeps only [`REMEMBERED_ENV`] entries with a non-empty value from a launch env; relative paths
/// are made absolute against the launch cwd so the resume finds the same directory.
pub fn remembered_env<K, V>(
    env: impl IntoIterator<Item = (K, V)>,
    launch_cwd: &Path,
) -> BTreeMap<String, String>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    env.into_iter()
        .filter(|(k, v)| REMEMBERED_ENV.contains(&k.as_ref()) && !v.as_ref().is_empty())
        .map(|(k, v)| {
            let v = v.as_ref();
            let value = if Path::new(v).is_absolute() {
                v.to_owned()
            } else {
                launch_cwd.join(v).to_string_lossy().into_owned()
            };
            (k.as_ref().to_owned(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id(s: &str) -> SessionId {
        SessionId::parse(s).expect("valid id")
    }

    #[test]
    fn each_agent_reads_its_own_keys() {
        let p = json!({"sessionId": "c1", "conversation_id": "c2"});
        assert_eq!(
            extract_session_id(AgentKind::Cursor, &p),
            Ok(Some(id("c1")))
        );
        assert_eq!(extract_session_id(AgentKind::Claude, &p), Ok(None));
        let p = json!({"chatId": "c3"});
        assert_eq!(
            extract_session_id(AgentKind::Cursor, &p),
            Ok(Some(id("c3")))
        );
        let p = json!({"thread-id": "t1"});
        assert_eq!(extract_session_id(AgentKind::Codex, &p), Ok(Some(id("t1"))));
        let p = json!({"properties": {"info": {"id": "ses_9"}}});
        assert_eq!(
            extract_session_id(AgentKind::Opencode, &p),
            Ok(Some(id("ses_9")))
        );
        let p = json!({"session_id": "", "sessionID": "ses_2"});
        assert_eq!(
            extract_session_id(AgentKind::Opencode, &p),
            Ok(Some(id("ses_2")))
        );
        assert_eq!(
            extract_session_id(AgentKind::Claude, &Value::Null),
            Ok(None)
        );
    }

    #[test]
    fn mistyped_or_unsafe_ids_are_errors() {
        assert!(extract_session_id(AgentKind::Claude, &json!({"session_id": 42})).is_err());
        assert!(extract_session_id(AgentKind::Claude, &json!({"session_id": "-x"})).is_err());
        assert!(extract_session_id(AgentKind::Claude, &json!([1])).is_err());
    }

    #[test]
    fn only_config_dirs_are_remembered() {
        let env = [
            ("CLAUDE_CONFIG_DIR", "cfg/claude"),
            ("CODEX_HOME", "/home/u/.codex-work"),
            ("OPENCODE_CONFIG_DIR", ""),
            ("ANTHROPIC_API_KEY", "sk-secret"),
            ("PATH", "/usr/bin"),
        ];
        let kept = remembered_env(env, Path::new("/work/proj"));
        assert_eq!(kept.len(), 2);
        assert_eq!(kept["CLAUDE_CONFIG_DIR"], "/work/proj/cfg/claude");
        assert_eq!(kept["CODEX_HOME"], "/home/u/.codex-work");
    }
}
