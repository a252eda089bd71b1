//! Agent sessions as the model keeps them: a validated session id, the argv that resumes it, and
//! the few launch environment variables worth remembering for the resume. Where an id is found
//! in a hook payload is `agents::session`'s business.
//!
//! Because an id becomes a command-line argument, it must look like an id: a leading `-` could
//! smuggle in a flag.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use super::AgentKind;

/// A session id with characters that could not safely become a resume argument (at most its
/// first 80 characters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "session id {0:?} is not 1-256 characters of A-Z a-z 0-9 - _ . : starting with a letter or digit"
)]
pub struct InvalidSessionId(pub String);

/// A validated agent session id.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct SessionId(String);

impl SessionId {
    /// Longest accepted id, in bytes.
    pub const MAX_LEN: usize = 256;

    /// Accepts 1–256 characters of `A-Z a-z 0-9 - _ . :` that start with a letter or digit.
    pub fn parse(s: &str) -> Result<Self, InvalidSessionId> {
        let ok = s.len() <= Self::MAX_LEN
            && s.as_bytes().first().is_some_and(u8::is_ascii_alphanumeric)
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(InvalidSessionId(s.chars().take(80).collect()))
        }
    }

    /// The id as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for SessionId {
    type Error = InvalidSessionId;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<SessionId> for String {
    fn from(id: SessionId) -> Self {
        id.0
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
