//! The user configuration file of signaltty, `$XDG_CONFIG_HOME/signaltty/config.toml`.
//!
//! Every key is optional: a missing key keeps the built-in default, so an empty or absent file
//! is a valid configuration. [`parse`] reads the whole file and returns either a [`Config`] or
//! every [`Problem`] it found (syntax errors, unknown keys, wrong types, values out of range),
//! each with its line and column — never just the first one, so one `signaltty config check`
//! shows everything to fix. The schema, with each key's meaning and default, is [`schema::KEYS`];
//! `docs/guide.md` documents the same keys (a test checks that it names every one).
//!
//! Sections:
//! - `[server]` — limits and defaults of the server (read once at its start).
//! - `[agents.<kind>]` — per-agent hook policy (`claude`, `codex`, `opencode`, `cursor`,
//!   `generic`).
//! - `[policy]` — what programs running inside panes may do through the API.
//! - `[attach]` — the CLI's attach (the detach key).
//! - `[fast_paths]` — switches of the hand-off, server painting, lent keys and direct input
//!   (see [`fast_paths`]).
//! - `[remotes.<name>]` — other machines reached over ssh (`signaltty remote add`, see
//!   [`remotes`]).
//! - `[tui]` — kept as an opaque table: the TUI validates its own keys (see [`Config::tui`]).
//!
//! This crate has no I/O beyond reading the file and no async runtime: the server, the CLI and
//! the TUI all link it.

pub mod detach_key;
pub mod fast_paths;
mod problem;
pub mod remotes;
pub mod schema;
mod walk;
pub mod window_size;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use detach_key::DetachKey;
pub use fast_paths::FastPaths;
pub use problem::{Problem, Problems};
pub use remotes::RemoteConfig;
pub use schema::AgentKind;
pub use window_size::WindowSize;

/// Environment variable naming the config file (overrides the XDG location).
pub const CONFIG_ENV: &str = "SIGNALTTY_CONFIG";

/// The whole configuration. `None` everywhere means "not set: use the built-in default".
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Config {
    /// `[server]`
    pub server: ServerConfig,
    /// `[agents.<kind>]`, one entry per agent kind the file mentions.
    pub agents: BTreeMap<AgentKind, AgentConfig>,
    /// `[policy]`
    pub policy: PolicyConfig,
    /// `[attach]`
    pub attach: AttachConfig,
    /// `[fast_paths]`, defaults applied.
    pub fast_paths: FastPaths,
    /// `[tui]`, unvalidated here. The TUI checks its own keys; to report them with line
    /// numbers it can re-read the file's text ([`Loaded::source`]) with its own spanned types.
    pub tui: toml::Table,
    /// `[remotes.<name>]`: other machines, by name.
    pub remotes: BTreeMap<String, RemoteConfig>,
}

/// `[server]`: read by the server when it starts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ServerConfig {
    /// Scrollback lines kept per pane.
    pub scrollback_lines: Option<usize>,
    /// Scrollback bytes kept per pane (a hard cap on top of the lines).
    pub scrollback_bytes: Option<usize>,
    /// Events kept for replay to subscribers that reconnect (`Subscribe` with `from_seq`).
    pub event_ring: Option<usize>,
    /// The program a pane runs when no command is given (else `$SHELL`, else `/bin/sh`).
    pub default_shell: Option<String>,
    /// Close a tab when its last pane closes.
    pub close_tab_on_last_pane: Option<bool>,
    /// Open connections past which new ones are refused (`TOO_MANY_CONNECTIONS`).
    pub max_connections: Option<usize>,
    /// Most panes the server holds at once (`TOO_MANY_PANES` past it).
    pub max_panes: Option<usize>,
    /// Seconds of silence after which the server pings a connection (HTTP/2 keepalive).
    pub keepalive_interval_secs: Option<u64>,
    /// Seconds a ping may go unanswered before the connection is closed.
    pub keepalive_timeout_secs: Option<u64>,
    /// How a pane's size follows its clients' sizes (`latest`, `largest`, `smallest`).
    pub window_size: Option<WindowSize>,
}

/// `[agents.<kind>]`: how the hooks of one agent kind behave.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AgentConfig {
    /// Hold this agent's permission hook so that its request can be answered through
    /// signaltty, in every workspace (`false`/unset: the hook reports the request and returns at
    /// once; the agent asks in its pane).
    pub wait_for_answer: Option<bool>,
    /// How long a held hook waits, in milliseconds, before the agent asks in its pane (the
    /// server takes the longest among held agents and holds at most 25 s).
    pub wait_timeout_ms: Option<u64>,
    /// Hibernate this agent's idle panes after this many minutes in every workspace (0/unset:
    /// never; a workspace's own setting wins).
    pub hibernate_after_minutes: Option<u64>,
}

/// `[policy]`: what programs running inside panes (clients whose process is in a pane) may do
/// through the API. Unset keeps the server's built-in rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PolicyConfig {
    /// Answer agents' permission requests (`AnswerDecision`).
    pub pane_clients_may_answer_decisions: Option<bool>,
    /// Report hook events or notifications for a pane other than their own.
    pub pane_clients_may_report_for_other_panes: Option<bool>,
    /// Create, change, close or type into anything outside their own workspace.
    pub pane_clients_may_control_other_workspaces: Option<bool>,
}

/// `[attach]`: the CLI's `signaltty attach`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AttachConfig {
    /// The key that detaches (`--detach-key` overrides it).
    pub detach_key: Option<DetachKey>,
}

impl Config {
    /// The policy of one agent kind (all unset when the file does not mention it).
    pub fn agent(&self, kind: AgentKind) -> AgentConfig {
        self.agents.get(&kind).cloned().unwrap_or_default()
    }
}

/// A configuration read from a file, with what it was read from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// The parsed configuration.
    pub config: Config,
    /// The file, `None` when there was none (the defaults).
    pub path: Option<PathBuf>,
    /// The file's text (empty without a file).
    pub source: String,
}

/// Parses a configuration file's text. `Err` lists every problem, in file order.
pub fn parse(text: &str) -> Result<Config, Vec<Problem>> {
    walk::parse(text)
}

/// Where the config file is: `$SIGNALTTY_CONFIG`, else `$XDG_CONFIG_HOME/signaltty/config.toml`,
/// else `~/.config/signaltty/config.toml`.
pub fn default_path() -> PathBuf {
    locate_with(None, |name| std::env::var_os(name)).path
}

/// Which config file a process reads, and what a missing one means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file.
    pub path: PathBuf,
    /// Whether it may be absent.
    pub missing: Missing,
}

/// The one resolver every binary uses: `explicit` (a `--config PATH` or a path given to
/// `signaltty config check`), which must exist; else [`default_path`], where no file means the
/// defaults.
pub fn locate(explicit: Option<&Path>) -> Location {
    locate_with(explicit, |name| std::env::var_os(name))
}

/// Reads the file [`locate`] finds.
pub fn load_located(explicit: Option<&Path>) -> Result<Loaded, Problems> {
    let Location { path, missing } = locate(explicit);
    load(&path, missing)
}

/// [`locate`] with the environment given (so it is tested without touching the process's).
fn locate_with(
    explicit: Option<&Path>,
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Location {
    if let Some(path) = explicit {
        return Location {
            path: path.to_path_buf(),
            missing: Missing::Required,
        };
    }
    let env = |name: &str| env(name).filter(|v| !v.is_empty());
    let path = match env(CONFIG_ENV) {
        Some(path) => PathBuf::from(path),
        None => env("XDG_CONFIG_HOME")
            .map_or_else(
                || {
                    env("HOME")
                        .map_or_else(|| PathBuf::from("/"), PathBuf::from)
                        .join(".config")
                },
                PathBuf::from,
            )
            .join("signaltty")
            .join("config.toml"),
    };
    Location {
        path,
        missing: Missing::Default,
    }
}

/// Reads and parses `path`. A file that does not exist is the default configuration when
/// `missing_ok` (the default location), an error otherwise (a path the user named).
pub fn load(path: &Path, missing: Missing) -> Result<Loaded, Problems> {
    let source = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && missing == Missing::Default => {
            return Ok(Loaded::default());
        }
        Err(err) => {
            return Err(Problems {
                path: path.to_path_buf(),
                problems: vec![Problem::whole_file(format!("cannot read it: {err}"))],
            });
        }
    };
    match parse(&source) {
        Ok(config) => Ok(Loaded {
            config,
            path: Some(path.to_path_buf()),
            source,
        }),
        Err(problems) => Err(Problems {
            path: path.to_path_buf(),
            problems,
        }),
    }
}

/// What [`load`] makes of a file that does not exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// The default location: no file means the defaults.
    Default,
    /// A path given explicitly: it must exist.
    Required,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locate_in(explicit: Option<&str>, vars: &[(&str, &str)]) -> Location {
        locate_with(explicit.map(Path::new), |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        })
    }

    #[test]
    fn an_explicit_path_wins_and_must_exist_else_the_environment_then_home() {
        let all = [
            ("SIGNALTTY_CONFIG", "/etc/s.toml"),
            ("XDG_CONFIG_HOME", "/x"),
            ("HOME", "/h"),
        ];
        let at = |path: &str, missing| Location {
            path: PathBuf::from(path),
            missing,
        };
        assert_eq!(
            locate_in(Some("/given.toml"), &all),
            at("/given.toml", Missing::Required)
        );
        assert_eq!(locate_in(None, &all), at("/etc/s.toml", Missing::Default));
        assert_eq!(
            locate_in(None, &all[1..]),
            at("/x/signaltty/config.toml", Missing::Default)
        );
        assert_eq!(
            locate_in(None, &all[2..]),
            at("/h/.config/signaltty/config.toml", Missing::Default)
        );
        // Empty variables count as unset.
        assert_eq!(
            locate_in(
                None,
                &[
                    ("SIGNALTTY_CONFIG", ""),
                    ("XDG_CONFIG_HOME", ""),
                    ("HOME", "/h")
                ]
            ),
            at("/h/.config/signaltty/config.toml", Missing::Default)
        );
        assert_eq!(
            locate_in(None, &[]),
            at("/.config/signaltty/config.toml", Missing::Default)
        );
    }
}
