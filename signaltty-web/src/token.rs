//! Web tokens: who may use the web front, and how much.
//!
//! A token is 32 random bytes (hex), shown once — in the URL `signaltty web` prints — and stored
//! only as its SHA-256 in `<state dir>/web-tokens.json` (0600, in the server's private state
//! directory), so the file alone lets nobody in. Each has an id (`wt_…`, safe to show and to
//! name in `web token revoke`), an [`Access`], a label and its creation time. The file is read
//! on every check: a token revoked by another process (`signaltty web token revoke`) is refused
//! at once, with no signal to the running `signaltty web`.

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

/// The file, in the state directory.
pub const FILE_NAME: &str = "web-tokens.json";

/// What a token lets a browser do (see [`crate::policy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    /// Watch: the tree, decisions, notifications, panes read-only, diffs.
    ReadOnly,
    /// Also answer decisions, type into panes, mark read: what a CLI outside any pane may do.
    Full,
}

impl Access {
    /// The name shown and accepted on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Access::ReadOnly => "read-only",
            Access::Full => "full",
        }
    }
}

/// One stored token (never the secret itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRecord {
    /// `wt_` + 8 hex digits: names the token in `list` and `revoke`.
    pub id: String,
    /// SHA-256 of the secret, hex.
    pub sha256: String,
    /// What it may do.
    pub access: Access,
    /// Where it came from (`signaltty web`, `web token new`, …).
    pub label: String,
    /// Seconds since the Unix epoch.
    pub created_unix: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TokenFile {
    tokens: Vec<TokenRecord>,
}

/// A token file's problems.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// Reading or writing the file failed.
    #[error("cannot use the web token file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not ours to trust (not JSON, or readable by others).
    #[error(
        "the web token file {path} is unusable: {why}; remove it and start `signaltty web` again"
    )]
    Bad {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// No token has that id.
    #[error("no web token {0}; `signaltty web token list` shows them")]
    NoSuchToken(String),
    /// The OS gave no randomness.
    #[error("no randomness for a token: {0}")]
    Random(String),
}

/// The token file of one state directory.
#[derive(Debug, Clone)]
pub struct TokenStore {
    path: PathBuf,
}

/// A token just made: the secret is shown once and never stored.
#[derive(Debug, Clone)]
pub struct NewToken {
    /// Its record, as stored.
    pub record: TokenRecord,
    /// The secret, for the URL.
    pub secret: String,
}

impl TokenStore {
    /// The store in `state_dir` (created 0700 when a token is first written).
    pub fn new(state_dir: &Path) -> Self {
        TokenStore {
            path: state_dir.join(FILE_NAME),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every token, oldest first.
    pub fn list(&self) -> Result<Vec<TokenRecord>, TokenError> {
        Ok(self.read()?.tokens)
    }

    /// Makes and stores a new token.
    pub fn create(&self, access: Access, label: &str) -> Result<NewToken, TokenError> {
        let mut file = self.read()?;
        let secret = hex(&random::<32>()?);
        let record = TokenRecord {
            id: format!("wt_{}", hex(&random::<4>()?)),
            sha256: digest(&secret),
            access,
            label: label.to_string(),
            created_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        };
        file.tokens.push(record.clone());
        self.write(&file)?;
        Ok(NewToken { record, secret })
    }

    /// Removes one token; browsers holding it are refused from their next request on.
    pub fn revoke(&self, id: &str) -> Result<TokenRecord, TokenError> {
        let mut file = self.read()?;
        let at = file
            .tokens
            .iter()
            .position(|t| t.id == id)
            .ok_or_else(|| TokenError::NoSuchToken(id.to_string()))?;
        let gone = file.tokens.remove(at);
        self.write(&file)?;
        Ok(gone)
    }

    /// Replaces a token with a new one of the same access and label (the old one stops working).
    pub fn rotate(&self, id: &str) -> Result<NewToken, TokenError> {
        let old = self.revoke(id)?;
        self.create(old.access, &old.label)
    }

    /// What `secret` may do, or `None` when no stored token matches it.
    pub fn check(&self, secret: &str) -> Result<Option<TokenRecord>, TokenError> {
        let want = digest(secret);
        Ok(self
            .read()?
            .tokens
            .into_iter()
            .find(|t| constant_time_eq(t.sha256.as_bytes(), want.as_bytes())))
    }

    fn read(&self) -> Result<TokenFile, TokenError> {
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TokenFile::default()),
            Err(source) => return Err(self.io(source)),
        };
        let mode = fs::metadata(&self.path)
            .map_err(|e| self.io(e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(TokenError::Bad {
                path: self.path.clone(),
                why: format!("its mode is {:o}, others may read it", mode & 0o777),
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| TokenError::Bad {
            path: self.path.clone(),
            why: e.to_string(),
        })
    }

    /// Writes a temp file 0600 and renames it over the old one, so a reader never sees half.
    fn write(&self, file: &TokenFile) -> Result<(), TokenError> {
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir).map_err(|e| self.io(e))?;
            let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
        }
        let tmp = self.path.with_extension("json.tmp");
        let text = serde_json::to_vec_pretty(file).map_err(|e| TokenError::Bad {
            path: self.path.clone(),
            why: e.to_string(),
        })?;
        let _ = fs::remove_file(&tmp);
        let mut out = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| self.io(e))?;
        out.write_all(&text).map_err(|e| self.io(e))?;
        out.sync_all().map_err(|e| self.io(e))?;
        fs::rename(&tmp, &self.path).map_err(|e| self.io(e))
    }

    fn io(&self, source: std::io::Error) -> TokenError {
        TokenError::Io {
            path: self.path.clone(),
            source,
        }
    }
}

fn random<const N: usize>() -> Result<[u8; N], TokenError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn digest(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Compares without stopping at the first difference (the digests are public-length hex).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_checks_until_revoked_and_only_its_digest_is_stored() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = TokenStore::new(dir.path());
        let made = store.create(Access::ReadOnly, "test").expect("create");
        let text = fs::read_to_string(store.path()).expect("read");
        assert!(!text.contains(&made.secret), "the secret is never stored");
        let mode = fs::metadata(store.path())
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let found = store.check(&made.secret).expect("check").expect("valid");
        assert_eq!(found.access, Access::ReadOnly);
        assert!(store.check("nope").expect("check").is_none());
        let rotated = store.rotate(&made.record.id).expect("rotate");
        assert!(store.check(&made.secret).expect("check").is_none());
        assert!(store.check(&rotated.secret).expect("check").is_some());
        store.revoke(&rotated.record.id).expect("revoke");
        assert!(store.check(&rotated.secret).expect("check").is_none());
        assert!(matches!(
            store.revoke("wt_x"),
            Err(TokenError::NoSuchToken(_))
        ));
    }
}
