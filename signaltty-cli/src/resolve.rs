//! What a person may type where a command takes a workspace, tab or pane: the full id, a unique
//! prefix of it (`pane_3706` or just `3706`), a unique name (a workspace's name, a tab's or pane's
//! title), or `-` (and, where the argument is optional, nothing) for the last one this CLI used
//! on this server. An ambiguous word is an error that lists the candidates; a word that matches
//! nothing is the server's own NOT_FOUND error, so scripts see the same reason either way.
//!
//! The "last used" ids live in `<state dir>/cli-last.json`, one entry per socket, written after
//! each command that names or creates something (best effort: a read-only state dir only loses
//! the memory, never the command).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use signaltty_client::Client;
use signaltty_client::connect::Target;
use signaltty_proto::v1 as pb;

use crate::error::{CliError, CliResult, ErrorKind};

/// What kind of thing a word names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A workspace (`ws_…`, or its name).
    Workspace,
    /// A tab (`tab_…`, or its title).
    Tab,
    /// A pane (`pane_…`, or its title).
    Pane,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Workspace => "ws_",
            Kind::Tab => "tab_",
            Kind::Pane => "pane_",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::Workspace => "workspace",
            Kind::Tab => "tab",
            Kind::Pane => "pane",
        }
    }

    fn reason(self) -> &'static str {
        match self {
            Kind::Workspace => "NO_SUCH_WORKSPACE",
            Kind::Tab => "NO_SUCH_TAB",
            Kind::Pane => "NO_SUCH_PANE",
        }
    }

    fn list_command(self) -> &'static str {
        match self {
            Kind::Workspace => "signaltty workspace list",
            Kind::Tab | Kind::Pane => "signaltty ls",
        }
    }
}

/// The ids this CLI used last on one server.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct LastUsed {
    /// The last workspace named or created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The last tab named or created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<String>,
    /// The last pane named or created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane: Option<String>,
    /// The last pane attached to (what `signaltty attach` with no argument reattaches to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attached: Option<String>,
}

fn memory_file(target: &Target) -> PathBuf {
    let dir = target.state_dir.clone().unwrap_or_else(|| {
        let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        match env("XDG_STATE_HOME") {
            Some(dir) => PathBuf::from(dir).join("signaltty"),
            None => env("HOME")
                .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from)
                .join(".local/state/signaltty"),
        }
    });
    dir.join("cli-last.json")
}

fn read_all(target: &Target) -> BTreeMap<String, LastUsed> {
    std::fs::read(memory_file(target))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// What this CLI used last on `target`'s server.
pub fn last_used(target: &Target) -> LastUsed {
    read_all(target)
        .remove(&target.socket.display().to_string())
        .unwrap_or_default()
}

/// Remembers ids as the last used (`None` fields keep what was there).
pub fn remember(target: &Target, update: LastUsed) {
    let path = memory_file(target);
    let mut all = read_all(target);
    let entry = all.entry(target.socket.display().to_string()).or_default();
    for (slot, value) in [
        (&mut entry.workspace, update.workspace),
        (&mut entry.tab, update.tab),
        (&mut entry.pane, update.pane),
        (&mut entry.attached, update.attached),
    ] {
        if value.is_some() {
            *slot = value;
        }
    }
    let Ok(text) = serde_json::to_vec_pretty(&all) else {
        return;
    };
    if let Some(dir) = path.parent() {
        // Private, as the server requires of its state dir: with `--remote` this may be the
        // first thing to create the local one, before any local server ran.
        use std::os::unix::fs::DirBuilderExt;
        let _ = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir);
    }
    let temp = path.with_extension(format!("json.{}", std::process::id()));
    if std::fs::write(&temp, text).is_ok() && std::fs::rename(&temp, &path).is_err() {
        let _ = std::fs::remove_file(&temp);
    }
}

/// Remembers a pane (and its tab and workspace) as the last used.
pub fn remember_pane(target: &Target, pane: &pb::Pane) {
    remember(
        target,
        LastUsed {
            workspace: Some(pane.workspace_id.clone()),
            tab: Some(pane.tab_id.clone()).filter(|t| !t.is_empty()),
            pane: Some(pane.id.clone()),
            attached: None,
        },
    );
}

/// True for a complete id (`pane_` and 32 hex digits): passed on without asking the server.
fn is_full_id(kind: Kind, word: &str) -> bool {
    word.strip_prefix(kind.prefix())
        .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Resolves `word` (`None` = the last used) to an id of `kind`.
pub async fn resolve(
    client: &Client,
    target: &Target,
    kind: Kind,
    word: Option<&str>,
) -> CliResult<String> {
    let word = match word {
        None | Some("-") => {
            let last = last_used(target);
            let id = match kind {
                Kind::Workspace => last.workspace,
                Kind::Tab => last.tab,
                Kind::Pane => last.pane,
            };
            return id.ok_or_else(|| {
                CliError::usage(format!(
                    "no {noun} used yet from this terminal's CLI: name one (an id, a unique id \
                     prefix or a unique name; `{list}` lists them)",
                    noun = kind.noun(),
                    list = kind.list_command()
                ))
            });
        }
        Some(word) => word,
    };
    if is_full_id(kind, word) {
        return Ok(word.to_owned());
    }
    let candidates = candidates(client, kind).await?;
    pick(kind, word, &candidates)
}

/// Picks the one candidate `word` names: exact id, then exact name, then id prefix (with or
/// without the kind's prefix).
fn pick(kind: Kind, word: &str, candidates: &[(String, String)]) -> CliResult<String> {
    if candidates.iter().any(|(id, _)| id == word) {
        return Ok(word.to_owned());
    }
    let by_name: Vec<&(String, String)> = candidates.iter().filter(|(_, n)| n == word).collect();
    if let [(id, _)] = by_name.as_slice() {
        return Ok(id.clone());
    }
    let full = if word.starts_with(kind.prefix()) {
        word.to_owned()
    } else {
        format!("{}{word}", kind.prefix())
    };
    let by_prefix: Vec<&(String, String)> = candidates
        .iter()
        .filter(|(id, _)| id.starts_with(&full))
        .collect();
    let matches = if by_name.len() > 1 {
        by_name
    } else {
        by_prefix
    };
    match matches.as_slice() {
        [(id, _)] => Ok(id.clone()),
        [] => Err(CliError::with_reason(
            ErrorKind::Server,
            format!(
                "no {} matches {word:?}; `{}` lists them",
                kind.noun(),
                kind.list_command()
            ),
            kind.reason(),
        )),
        many => {
            let listed: Vec<String> = many
                .iter()
                .map(|(id, name)| format!("  {id}  {name}"))
                .collect();
            Err(CliError::usage(format!(
                "{word:?} names {} {}s; give more of the id:\n{}",
                many.len(),
                kind.noun(),
                listed.join("\n")
            )))
        }
    }
}

/// Every (id, name) of a kind on the server.
async fn candidates(client: &Client, kind: Kind) -> CliResult<Vec<(String, String)>> {
    let workspaces = client
        .workspaces()
        .list_workspaces(pb::ListWorkspacesRequest {})
        .await?
        .into_inner()
        .workspaces;
    Ok(match kind {
        Kind::Workspace => workspaces.into_iter().map(|w| (w.id, w.name)).collect(),
        Kind::Pane => client
            .panes()
            .list_panes(pb::ListPanesRequest::default())
            .await?
            .into_inner()
            .panes
            .into_iter()
            .map(|p| (p.id, p.title))
            .collect(),
        Kind::Tab => {
            let mut tabs = Vec::new();
            for w in workspaces {
                let got = client
                    .workspaces()
                    .get_workspace(pb::GetWorkspaceRequest { workspace_id: w.id })
                    .await?
                    .into_inner();
                tabs.extend(got.tabs.into_iter().map(|t| (t.id, t.title)));
            }
            tabs
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panes() -> Vec<(String, String)> {
        [
            ("pane_3706aa", "claude"),
            ("pane_3706bb", "shell"),
            ("pane_9f00cc", "shell"),
            ("pane_1234dd", "pane_9f"),
        ]
        .iter()
        .map(|(i, n)| ((*i).to_owned(), (*n).to_owned()))
        .collect()
    }

    #[test]
    fn ids_prefixes_and_names_pick_one() {
        let p = panes();
        assert_eq!(
            pick(Kind::Pane, "pane_3706aa", &p),
            Ok("pane_3706aa".into())
        );
        assert_eq!(pick(Kind::Pane, "3706a", &p), Ok("pane_3706aa".into()));
        assert_eq!(
            pick(Kind::Pane, "pane_9f", &p),
            Ok("pane_1234dd".into()),
            "a name first"
        );
        assert_eq!(pick(Kind::Pane, "claude", &p), Ok("pane_3706aa".into()));
    }

    #[test]
    fn ambiguity_lists_the_candidates() {
        let p = panes();
        let err = pick(Kind::Pane, "3706", &p).expect_err("two panes");
        assert_eq!(err.kind, ErrorKind::Usage);
        assert!(
            err.message.contains("pane_3706aa  claude"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("pane_3706bb  shell"),
            "{}",
            err.message
        );
        let err = pick(Kind::Pane, "shell", &p).expect_err("two shells");
        assert!(err.message.contains("pane_9f00cc"), "{}", err.message);
        let err = pick(Kind::Pane, "nothing", &p).expect_err("none");
        assert_eq!(err.reason.as_deref(), Some("NO_SUCH_PANE"));
    }

    #[test]
    fn full_ids_are_recognised() {
        assert!(is_full_id(
            Kind::Pane,
            "pane_0123456789abcdef0123456789abcdef"
        ));
        assert!(!is_full_id(Kind::Pane, "pane_0123"));
        assert!(!is_full_id(
            Kind::Tab,
            "pane_0123456789abcdef0123456789abcdef"
        ));
    }
}
