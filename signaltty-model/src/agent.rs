//! What is known of the coding agent running in a pane: its kind (detected from argv[0] at spawn,
//! or first reported by a hook), its own session id (only ever from hook payloads), the argv that
//! resumes that session, and the few launch environment variables a resume needs.
//!
//! Invariant: `resume_argv` is `Some` only together with `session_id`, and is always derived from
//! it by [`resume_argv`] (never copied from a client).

use std::collections::BTreeMap;
use std::path::Path;

use crate::agent_kind::AgentKind;
use crate::session_id::SessionId;

/// The agent of one pane.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AgentInfo {
    /// Which agent.
    pub kind: AgentKind,
    /// The agent's session id, once a hook reported one.
    #[serde(default)]
    pub session_id: Option<SessionId>,
    /// The command that resumes `session_id` (none for generic agents).
    #[serde(default)]
    pub resume_argv: Option<Vec<String>>,
    /// The allow-listed launch variables (`agents::session::REMEMBERED_ENV`) a resume needs.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl AgentInfo {
    /// An agent without a session yet.
    pub fn new(kind: AgentKind, env: BTreeMap<String, String>) -> Self {
        Self {
            kind,
            session_id: None,
            resume_argv: None,
            env,
        }
    }

    /// Records a session id and derives its resume argv from the pane's launch argv[0].
    /// Returns whether anything changed.
    pub fn set_session(&mut self, session: SessionId, launch_argv0: Option<&str>) -> bool {
        let argv = resume_argv(self.kind, &session, launch_argv0);
        let changed = self.session_id.as_ref() != Some(&session) || self.resume_argv != argv;
        self.session_id = Some(session);
        self.resume_argv = argv;
        changed
    }

    /// Takes the kind a hook reports. A specific kind wins over `generic` (a hook's own kind is
    /// what the agent says it is); `generic` never demotes a specific kind. Returns whether the
    /// kind changed, in which case the resume argv is re-derived.
    pub fn adopt_kind(&mut self, kind: AgentKind, launch_argv0: Option<&str>) -> bool {
        if kind == self.kind || kind == AgentKind::Generic {
            return false;
        }
        self.kind = kind;
        if let Some(session) = self.session_id.clone() {
            self.resume_argv = resume_argv(kind, &session, launch_argv0);
        }
        true
    }
}

/// The argv that resumes `session` (`claude --resume ID`, `codex resume ID`,
/// `opencode --session ID`, `cursor-agent --resume ID`); `None` for generic panes. An absolute
/// launch argv[0] naming the same binary (`/opt/tools/codex`) replaces the bare name; nothing else
/// from the launch command line is copied (flags may be one-shot or unsafe to repeat).
pub fn resume_argv(
    kind: AgentKind,
    session: &SessionId,
    launch_argv0: Option<&str>,
) -> Option<Vec<String>> {
    let binary = kind.binary()?;
    let program = launch_argv0
        .filter(|a| {
            let p = Path::new(a);
            p.is_absolute() && p.file_name().and_then(|n| n.to_str()) == Some(binary)
        })
        .unwrap_or(binary);
    let flag = match kind {
        AgentKind::Claude | AgentKind::Cursor => "--resume",
        AgentKind::Codex => "resume",
        AgentKind::Opencode => "--session",
        AgentKind::Generic => return None,
    };
    Some(vec![
        program.to_owned(),
        flag.to_owned(),
        session.as_str().to_owned(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sid(s: &str) -> SessionId {
        SessionId::parse(s).expect("valid id")
    }

    #[test]
    fn a_session_yields_its_resume_argv() {
        let mut a = AgentInfo::new(AgentKind::Claude, BTreeMap::new());
        assert!(a.set_session(sid("s1"), Some("/opt/bin/claude")));
        assert_eq!(
            a.resume_argv,
            Some(vec![
                "/opt/bin/claude".into(),
                "--resume".into(),
                "s1".into()
            ])
        );
        assert!(!a.set_session(sid("s1"), Some("/opt/bin/claude")));
        assert!(a.set_session(sid("s2"), Some("sh")));
        assert_eq!(
            a.resume_argv.as_ref().map(|v| v[0].as_str()),
            Some("claude")
        );
    }

    #[test]
    fn generic_never_demotes_a_known_kind() {
        let mut a = AgentInfo::new(AgentKind::Generic, BTreeMap::new());
        a.set_session(sid("s"), None);
        assert_eq!(a.resume_argv, None);
        assert!(a.adopt_kind(AgentKind::Codex, None));
        assert_eq!(
            a.resume_argv,
            Some(vec!["codex".into(), "resume".into(), "s".into()])
        );
        assert!(!a.adopt_kind(AgentKind::Generic, None));
        assert_eq!(a.kind, AgentKind::Codex);
    }

    #[test]
    fn resume_argv_per_agent() {
        let s = sid("abc");
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
        let s = sid("abc");
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
}
