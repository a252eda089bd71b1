//! An agent's own session id, validated. Session ids only ever come from hook payloads (never
//! from the screen), and an id becomes a command-line argument of the resume argv
//! (`model::agent::resume_argv`), so it must look like an id: a leading `-` could smuggle in a
//! flag. Where each agent puts the id in its payload is `agents::session`'s job.

use std::fmt;

/// A validated agent session id.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct SessionId(String);

/// A session id with characters that could not safely become a resume argument (its first 80
/// characters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "session id {0:?} is not 1-256 characters of A-Z a-z 0-9 - _ . : starting with a letter or digit"
)]
pub struct InvalidSessionId(pub String);

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
