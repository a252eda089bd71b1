//! The coding agents signaltty knows, as a closed set: each kind's stable name, the binary it is
//! launched as (so a pane's argv[0] tells which agent runs in it), the hook events on which it can
//! wait for a verdict, and whether its exit ends an interactive session.
//!
//! A plain domain value, so the records (`pane`, `agent`, `workspace`) and the state machine can
//! name a kind; what a kind's hooks *mean* is `agents::mapping`'s job. Supporting a new agent
//! family means adding a variant here and its tables there.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// The coding agents signaltty understands.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    /// Anthropic's Claude Code (`claude`).
    Claude,
    /// OpenAI's Codex CLI (`codex`).
    Codex,
    /// OpenCode (`opencode`).
    Opencode,
    /// Cursor's CLI agent (`cursor-agent`).
    Cursor,
    /// Anything else that reports through hooks, OSC and exit codes.
    Generic,
}

/// An agent kind name that is not one of ours.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent kind {0:?} (expected claude, codex, opencode, cursor or generic)")]
pub struct UnknownAgent(pub String);

impl AgentKind {
    /// Every kind.
    pub const ALL: [AgentKind; 5] = [
        AgentKind::Claude,
        AgentKind::Codex,
        AgentKind::Opencode,
        AgentKind::Cursor,
        AgentKind::Generic,
    ];

    /// The stable lowercase name used by the API and the CLI (`--agent`).
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Codex => "codex",
            AgentKind::Opencode => "opencode",
            AgentKind::Cursor => "cursor",
            AgentKind::Generic => "generic",
        }
    }

    /// Parses a kind name exactly; anything else is refused (the RPC answers BAD_PARAMS).
    pub fn parse(s: &str) -> Result<Self, UnknownAgent> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownAgent(s.to_owned()))
    }

    /// The executable name the agent is launched as, if it has one.
    pub fn binary(self) -> Option<&'static str> {
        match self {
            AgentKind::Claude => Some("claude"),
            AgentKind::Codex => Some("codex"),
            AgentKind::Opencode => Some("opencode"),
            AgentKind::Cursor => Some("cursor-agent"),
            AgentKind::Generic => None,
        }
    }

    /// Detects a directly launched agent from argv[0]'s basename (`/usr/bin/claude` → Claude).
    /// Shells and everything else give `None`.
    pub fn detect(argv0: &str) -> Option<Self> {
        let base = Path::new(argv0).file_name()?.to_str()?;
        Self::ALL.into_iter().find(|k| k.binary() == Some(base))
    }

    /// Whether a permission hook of this agent can wait for an answer and act on our verdict.
    pub fn supports_native_wait(self) -> bool {
        !self.waiting_events().is_empty()
    }

    /// The hook events of this agent that can take a verdict: Claude Code's and Codex's
    /// `PermissionRequest`; Cursor's `beforeShellExecution` and `beforeMCPExecution`; OpenCode's
    /// `permission.asked` (our OpenCode 1 plugin replies to OpenCode with the verdict).
    pub fn waiting_events(self) -> &'static [&'static str] {
        match self {
            AgentKind::Claude | AgentKind::Codex => &["PermissionRequest"],
            AgentKind::Cursor => &["beforeShellExecution", "beforeMCPExecution"],
            AgentKind::Opencode => &["permission.asked"],
            AgentKind::Generic => &[],
        }
    }

    /// Whether a hook of this agent for `event` may wait for an answer.
    pub fn can_wait_on(self, event: &str) -> bool {
        self.waiting_events().contains(&event)
    }

    /// Whether an exit of this kind's process is the end of an interactive agent session (→
    /// `exited`) rather than a one-shot command (→ `done`/`failed`).
    pub fn is_interactive_agent(self) -> bool {
        self != AgentKind::Generic
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AgentKind {
    type Err = UnknownAgent;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_and_unknown_ones_are_refused() {
        for k in AgentKind::ALL {
            assert_eq!(AgentKind::parse(k.as_str()), Ok(k));
        }
        assert_eq!(
            AgentKind::parse("hal9000"),
            Err(UnknownAgent("hal9000".into()))
        );
        assert!("Claude".parse::<AgentKind>().is_err());
        assert!("cursor-agent".parse::<AgentKind>().is_err());
    }

    #[test]
    fn detection_uses_the_basename() {
        assert_eq!(AgentKind::detect("claude"), Some(AgentKind::Claude));
        assert_eq!(
            AgentKind::detect("/opt/tools/codex"),
            Some(AgentKind::Codex)
        );
        assert_eq!(
            AgentKind::detect("./node_modules/.bin/opencode"),
            Some(AgentKind::Opencode)
        );
        assert_eq!(
            AgentKind::detect("/home/u/.local/bin/cursor-agent"),
            Some(AgentKind::Cursor)
        );
        assert_eq!(AgentKind::detect("cursor"), None);
        assert_eq!(AgentKind::detect("/bin/bash"), None);
        assert_eq!(AgentKind::detect("claude-wrapper"), None);
        assert_eq!(AgentKind::detect(""), None);
    }
}
