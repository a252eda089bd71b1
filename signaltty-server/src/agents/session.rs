//! Agent sessions in hook payloads: where each agent puts its session id. Session ids only ever
//! come from hook payloads (never from the screen). The id type, the resume argv and the
//! remembered launch environment are model data (`model::agent::session`), re-exported here.

use serde_json::{Map, Value};

use super::AgentKind;
use super::payload::{HookError, as_object, obj_field, str_field};
pub use crate::model::agent::session::{
    InvalidSessionId, REMEMBERED_ENV, SessionId, remembered_env, resume_argv,
};

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
        let props = obj_field(obj, "properties")?;
        if let Some(id) = first_id(props, &["sessionID", "sessionId", "session_id"])? {
            return Ok(Some(id));
        }
        let info = obj_field(props, "info")?;
        return first_id(info, &["id"]);
    }
    Ok(None)
}

fn first_id(
    obj: Option<&Map<String, Value>>,
    keys: &[&str],
) -> Result<Option<SessionId>, HookError> {
    for key in keys {
        if let Some(s) = str_field(obj, key)?.filter(|s| !s.is_empty()) {
            return SessionId::parse(s).map(Some).map_err(HookError::from);
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn id(s: &str) -> SessionId {
        SessionId::parse(s).expect("valid id")
    }

    #[test]
    fn session_ids_must_look_like_ids() {
        assert!(SessionId::parse("3f2c9a7e-1b2d-4c5e-8f90-a1b2c3d4e5f6").is_ok());
        assert!(SessionId::parse("ses_01J9ZK").is_ok());
        for bad in [
            "",
            "--dangerously-skip-permissions",
            "a b",
            "x;rm",
            &"a".repeat(257),
        ] {
            assert!(SessionId::parse(bad).is_err(), "{bad:?} accepted");
        }
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
    fn resume_argv_per_agent() {
        let s = id("abc");
        assert_eq!(
            resume_argv(AgentKind::Claude, &s, None),
            Some(vec!["claude".into(), "--resume".into(), "abc".into()])
        );
        assert_eq!(
            resume_argv(AgentKind::Codex, &s, Some("codex")),
            Some(vec!["codex".into(), "resume".into(), "abc".into()])
        );
        assert_eq!(
            resume_argv(AgentKind::Opencode, &s, None),
            Some(vec!["opencode".into(), "--session".into(), "abc".into()])
        );
        assert_eq!(
            resume_argv(AgentKind::Cursor, &s, None),
            Some(vec!["cursor-agent".into(), "--resume".into(), "abc".into()])
        );
        assert_eq!(resume_argv(AgentKind::Generic, &s, Some("/bin/sh")), None);
    }

    #[test]
    fn absolute_argv0_is_kept_only_for_the_same_binary() {
        let s = id("abc");
        assert_eq!(
            resume_argv(AgentKind::Codex, &s, Some("/opt/tools/codex")),
            Some(vec![
                "/opt/tools/codex".into(),
                "resume".into(),
                "abc".into()
            ])
        );
        assert_eq!(
            resume_argv(AgentKind::Codex, &s, Some("./bin/codex")).map(|a| a[0].clone()),
            Some("codex".into())
        );
        assert_eq!(
            resume_argv(AgentKind::Claude, &s, Some("/usr/bin/claude-wrapper"))
                .map(|a| a[0].clone()),
            Some("claude".into())
        );
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
