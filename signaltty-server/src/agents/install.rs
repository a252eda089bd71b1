//! Hook installers: register `signaltty hook-event …` in each agent's own configuration, so the
//! agent reports its lifecycle to us.
//!
//! | agent | file | shape |
//! |---|---|---|
//! | claude | `$CLAUDE_CONFIG_DIR` or `~/.claude`, `settings.json` | `hooks.<Event>[] = {matcher, hooks:[{type:"command", command, timeout}]}` |
//! | codex | `$CODEX_HOME` or `~/.codex`, `hooks.json` (refused when `config.toml` keeps hooks inline: `codex_inline`) | same as claude |
//! | cursor | `~/.cursor/hooks.json` | `{version:1, hooks.<event>[] = {command, timeout}}` |
//! | opencode | `$OPENCODE_CONFIG_DIR`, `$XDG_CONFIG_HOME/opencode` or `~/.config/opencode`, `plugins/signaltty.js` (V1) or `plugins/signaltty/` (V2), by the installed version | plugins we own entirely |
//!
//! Where an agent reads its config follows its own environment variables ([`ConfigRoots`]): a
//! pane launched with `CLAUDE_CONFIG_DIR=/x` gets its hooks in `/x/settings.json`.
//!
//! Rules every installer keeps: every foreign entry and key survives; an entry is ours when its
//! command contains [`MANAGED_MARKER`] (`signaltty hook-event`); a file we cannot understand is
//! refused and left byte-identical; writes are atomic (temp file in the same directory, fsync,
//! rename, directory fsync) and keep the file's mode and symlinks; a re-install that would change
//! nothing writes nothing and reports [`WriteOutcome::Unchanged`]; uninstall removes only our
//! entries (and the groups/events/plugin it thereby emptied).

mod codex_inline;
mod file;
mod json_hooks;
pub mod opencode;
mod strict_json;

use std::path::{Path, PathBuf};

use super::AgentKind;

/// Substring that marks a hook command as ours.
pub const MANAGED_MARKER: &str = "signaltty hook-event";

/// Largest config file we agree to rewrite.
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// How far our hooks are present in an agent's config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookState {
    /// Every hook we install is there, exactly as we would write it.
    Installed,
    /// None of ours (or no file).
    NotInstalled,
    /// Some of ours, or stale ones (another program path, an older layout).
    Partial,
    /// The file exists but cannot be understood (or, for OpenCode, is not ours); install refuses it.
    Malformed(String),
}

/// Whether an install or uninstall wrote anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    /// The file was written (or removed).
    Changed,
    /// Nothing needed doing; the file was not touched.
    Unchanged,
}

/// The result of an install or uninstall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallReport {
    /// The agent.
    pub kind: AgentKind,
    /// The config file concerned.
    pub path: PathBuf,
    /// Whether it was written.
    pub outcome: WriteOutcome,
    /// Something the user must do themselves (e.g. trust new hooks in Codex).
    pub notice: Option<String>,
}

/// Why an install, uninstall or status failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The agent has no hook configuration we know how to write (generic).
    #[error("no hook installer for agent {0}")]
    Unsupported(AgentKind),
    /// The existing file is not what its agent expects; it was left untouched.
    #[error("{path}: {reason}; fix or move the file, it was left untouched")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file at our plugin path was not written by signaltty; it was left untouched.
    #[error("{0} exists and was not written by signaltty; move it away to install")]
    Foreign(PathBuf),
    /// Codex keeps its hooks inline in `config.toml`: a `hooks.json` beside it would make Codex
    /// warn at every start, so none was written.
    #[error(
        "{config} keeps Codex hooks inline ([hooks] for {events}), and Codex warns at every start when \
         hooks.json sits beside it, so signaltty wrote no hooks.json: move your hooks from \
         config.toml to hooks.json (same shape) and install again"
    )]
    CodexInlineHooks {
        /// The `config.toml`.
        config: PathBuf,
        /// The events it configures inline, comma-separated.
        events: String,
    },
    /// The file changed while we were rewriting it; nothing was written.
    #[error("{0} changed while it was being updated; nothing was written, try again")]
    ChangedMeanwhile(PathBuf),
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// One hook we register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookSpec {
    /// The agent's event name.
    pub event: &'static str,
    /// Seconds the agent waits for the command.
    pub timeout_secs: u64,
    /// Whether the command waits for a decision answer (`--wait-for-answer`).
    pub wait_for_answer: bool,
}

/// Seconds a waiting PermissionRequest hook may run: above the server's 120 s answer limit, so
/// the server ends the wait first and the hook exits cleanly.
pub const PERMISSION_TIMEOUT_SECS: u64 = 125;

/// Seconds a hook that runs *before* the agent's own prompt may run. The server holds it only
/// when the user opted in to answering from signaltty, and then at most
/// `config::MAX_HOLD` (25 s); otherwise it returns at once.
pub const HOLD_TIMEOUT_SECS: u64 = 30;

/// What a waiting hook's command leaves of the agent's timeout for itself: the CLI's liveness
/// check (300 ms) and its margin over the server's wait (2 s), rounded up generously.
const WAIT_HEADROOM_SECS: u64 = 5;

/// The `--timeout` a waiting hook's command passes: the agent's timeout for the hook less
/// [`WAIT_HEADROOM_SECS`], at most the server's 120 s. So the hook always ends before the agent
/// would kill it, even with a hung server.
pub fn answer_wait_secs(spec: &HookSpec) -> u64 {
    spec.timeout_secs
        .saturating_sub(WAIT_HEADROOM_SECS)
        .clamp(1, 120)
}

const fn spec(event: &'static str, timeout_secs: u64) -> HookSpec {
    HookSpec {
        event,
        timeout_secs,
        wait_for_answer: false,
    }
}

const fn waiting(event: &'static str, timeout_secs: u64) -> HookSpec {
    HookSpec {
        event,
        timeout_secs,
        wait_for_answer: true,
    }
}

const WAITING_PERMISSION: HookSpec = waiting("PermissionRequest", PERMISSION_TIMEOUT_SECS);

/// The hooks we register for `kind` (empty for generic; OpenCode's plugin reports its events
/// itself). Tool hooks are there to see a permission request settled in the agent's own dialog.
pub fn hook_specs(kind: AgentKind) -> &'static [HookSpec] {
    const CLAUDE: &[HookSpec] = &[
        spec("SessionStart", 10),
        spec("UserPromptSubmit", 10),
        spec("PreToolUse", 10),
        WAITING_PERMISSION,
        spec("PostToolUse", 10),
        spec("PostToolUseFailure", 10),
        spec("PermissionDenied", 10),
        spec("Notification", 10),
        spec("Elicitation", 10),
        spec("ElicitationResult", 10),
        spec("Stop", 10),
        spec("StopFailure", 10),
        spec("SessionEnd", 10),
    ];
    // Codex runs hooks inline with a short budget, and awaits PermissionRequest before showing
    // its own prompt: that one is held only on opt-in.
    const CODEX: &[HookSpec] = &[
        spec("SessionStart", 3),
        spec("UserPromptSubmit", 3),
        spec("PreToolUse", 3),
        waiting("PermissionRequest", HOLD_TIMEOUT_SECS),
        spec("PostToolUse", 3),
        spec("Stop", 3),
        spec("StopFailure", 3),
        spec("Interrupt", 3),
        spec("SessionEnd", 3),
    ];
    const CURSOR: &[HookSpec] = &[
        spec("sessionStart", 10),
        spec("beforeSubmitPrompt", 10),
        waiting("beforeShellExecution", HOLD_TIMEOUT_SECS),
        spec("afterShellExecution", 10),
        waiting("beforeMCPExecution", HOLD_TIMEOUT_SECS),
        spec("afterMCPExecution", 10),
        spec("afterAgentResponse", 10),
        spec("stop", 10),
        spec("sessionEnd", 10),
    ];
    match kind {
        AgentKind::Claude => CLAUDE,
        AgentKind::Codex => CODEX,
        AgentKind::Cursor => CURSOR,
        AgentKind::Opencode | AgentKind::Generic => &[],
    }
}

/// The shell command registered for one event:
/// `<program> hook-event --agent A --event E --payload-stdin [--wait-for-answer --timeout S] # signaltty hook-event (managed)`
/// (`S` from [`answer_wait_secs`]).
/// `program` is the signaltty executable (ideally absolute), shell-quoted when needed; the trailing
/// comment carries [`MANAGED_MARKER`] whatever the program path looks like.
pub fn hook_command(program: &str, kind: AgentKind, spec: &HookSpec) -> String {
    let mut cmd = format!(
        "{} hook-event --agent {} --event {} --payload-stdin",
        shell_quote(program),
        kind.as_str(),
        spec.event
    );
    if spec.wait_for_answer {
        cmd.push_str(&format!(
            " --wait-for-answer --timeout {}",
            answer_wait_secs(spec)
        ));
    }
    cmd.push_str(" # ");
    cmd.push_str(MANAGED_MARKER);
    cmd.push_str(" (managed)");
    cmd
}

/// True when a hook command is one of ours.
pub fn is_managed(command: &str) -> bool {
    command.contains(MANAGED_MARKER)
}

fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:=@,%".contains(&b));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Where each agent reads its configuration: a home, and the directories the agents' own
/// environment variables point at instead (absolute paths only; relative ones are made
/// absolute by the caller against the launch cwd).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigRoots {
    /// The home directory.
    pub home: PathBuf,
    /// `$CLAUDE_CONFIG_DIR` (replaces `~/.claude`).
    pub claude: Option<PathBuf>,
    /// `$CODEX_HOME` (replaces `~/.codex`).
    pub codex: Option<PathBuf>,
    /// `$OPENCODE_CONFIG_DIR` (an OpenCode config directory whose `plugins/` it loads).
    pub opencode: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME` (OpenCode's global config is `$XDG_CONFIG_HOME/opencode`).
    pub xdg_config: Option<PathBuf>,
}

/// The environment variables [`ConfigRoots::from_env`] reads.
pub const CONFIG_ENV: [&str; 4] = [
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "OPENCODE_CONFIG_DIR",
    "XDG_CONFIG_HOME",
];

impl ConfigRoots {
    /// Everything under `home`, ignoring the environment (`integration install --home`).
    pub fn home(home: &Path) -> Self {
        Self {
            home: home.to_owned(),
            ..Self::default()
        }
    }

    /// `home`, with the directories named by `lookup` (an environment: empty or relative values
    /// are ignored).
    pub fn from_env(home: &Path, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let dir = |var: &str| lookup(var).map(PathBuf::from).filter(|p| p.is_absolute());
        Self {
            home: home.to_owned(),
            claude: dir("CLAUDE_CONFIG_DIR"),
            codex: dir("CODEX_HOME"),
            opencode: dir("OPENCODE_CONFIG_DIR"),
            xdg_config: dir("XDG_CONFIG_HOME"),
        }
    }

    /// The config file the installer for `kind` manages (for OpenCode, the V1 plugin file; the
    /// V2 plugin is the directory beside it without the extension).
    pub fn config_path(&self, kind: AgentKind) -> Result<PathBuf, InstallError> {
        Ok(match kind {
            AgentKind::Claude => self
                .claude
                .clone()
                .unwrap_or_else(|| self.home.join(".claude"))
                .join("settings.json"),
            AgentKind::Codex => self
                .codex
                .clone()
                .unwrap_or_else(|| self.home.join(".codex"))
                .join("hooks.json"),
            AgentKind::Cursor => self.home.join(".cursor").join("hooks.json"),
            AgentKind::Opencode => self
                .opencode
                .clone()
                .unwrap_or_else(|| {
                    self.xdg_config
                        .clone()
                        .unwrap_or_else(|| self.home.join(".config"))
                        .join("opencode")
                })
                .join("plugins")
                .join("signaltty.js"),
            AgentKind::Generic => return Err(InstallError::Unsupported(kind)),
        })
    }
}

impl ConfigRoots {
    /// The file a report names for `kind`: its config file, or for OpenCode the entry file of
    /// the plugin generation the installed OpenCode loads (V2 when that cannot be told).
    pub fn report_path(&self, kind: AgentKind) -> Result<PathBuf, InstallError> {
        let path = self.config_path(kind)?;
        Ok(match kind {
            AgentKind::Opencode => opencode::entry_path(
                &path,
                opencode::detect_generation().unwrap_or(opencode::FALLBACK),
            ),
            _ => path,
        })
    }
}

/// The config file the installer for `kind` manages under `home` (no environment).
pub fn config_path(kind: AgentKind, home: &Path) -> Result<PathBuf, InstallError> {
    ConfigRoots::home(home).config_path(kind)
}

/// Installs (or repairs) our hooks for `kind` under `home`, running `program` (the signaltty
/// executable).
pub fn install(kind: AgentKind, home: &Path, program: &str) -> Result<InstallReport, InstallError> {
    install_in(kind, &ConfigRoots::home(home), program)
}

/// [`install`] into the directories of `roots`.
pub fn install_in(
    kind: AgentKind,
    roots: &ConfigRoots,
    program: &str,
) -> Result<InstallReport, InstallError> {
    let path = roots.config_path(kind)?;
    if kind == AgentKind::Codex
        && let Some((config, events)) = codex_inline::inline_hook_events(&path)
    {
        return Err(InstallError::CodexInlineHooks {
            config,
            events: events.join(", "),
        });
    }
    let mut notice = None;
    let mut report_path = path.clone();
    let outcome = match kind {
        AgentKind::Opencode => {
            let detected = opencode::detect_generation();
            let generation = detected.unwrap_or(opencode::FALLBACK);
            let outcome = opencode::install(&path, program, generation)?;
            if detected.is_none() && outcome == WriteOutcome::Changed {
                notice = Some(opencode::UNKNOWN_VERSION_NOTICE.to_owned());
            }
            report_path = opencode::entry_path(&path, generation);
            outcome
        }
        _ => json_hooks::install(kind, &path, program)?,
    };
    if kind == AgentKind::Codex && outcome == WriteOutcome::Changed {
        notice = Some(CODEX_TRUST_NOTICE.to_owned());
    }
    Ok(InstallReport {
        kind,
        path: report_path,
        outcome,
        notice,
    })
}

/// What the user must do after new Codex hooks were written: Codex runs a new or changed hook
/// only once it is trusted.
pub const CODEX_TRUST_NOTICE: &str =
    "Codex asks you to review new hooks: open /hooks in codex and trust the signaltty entries";

/// Removes our hooks for `kind` under `home`, and nothing else.
pub fn uninstall(kind: AgentKind, home: &Path) -> Result<InstallReport, InstallError> {
    uninstall_in(kind, &ConfigRoots::home(home))
}

/// [`uninstall`] from the directories of `roots`.
pub fn uninstall_in(kind: AgentKind, roots: &ConfigRoots) -> Result<InstallReport, InstallError> {
    let path = roots.config_path(kind)?;
    let outcome = match kind {
        AgentKind::Opencode => opencode::uninstall(&path)?,
        _ => json_hooks::uninstall(kind, &path)?,
    };
    Ok(InstallReport {
        kind,
        path,
        outcome,
        notice: None,
    })
}

/// How far our hooks for `kind` (running `program`) are installed under `home`. A file we cannot
/// understand is `Ok(HookState::Malformed(..))`; errors are for unsupported kinds and I/O.
pub fn status(kind: AgentKind, home: &Path, program: &str) -> Result<HookState, InstallError> {
    status_in(kind, &ConfigRoots::home(home), program)
}

/// [`status`] in the directories of `roots`.
pub fn status_in(
    kind: AgentKind,
    roots: &ConfigRoots,
    program: &str,
) -> Result<HookState, InstallError> {
    let path = roots.config_path(kind)?;
    match kind {
        AgentKind::Opencode => opencode::status(
            &path,
            program,
            opencode::detect_generation().unwrap_or(opencode::FALLBACK),
        ),
        _ => json_hooks::status(kind, &path, program),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_carry_the_marker_and_quote_the_program() {
        let c = hook_command(
            "/usr/local/bin/signaltty",
            AgentKind::Claude,
            &WAITING_PERMISSION,
        );
        assert_eq!(
            c,
            "/usr/local/bin/signaltty hook-event --agent claude --event PermissionRequest --payload-stdin \
             --wait-for-answer --timeout 120 # signaltty hook-event (managed)"
        );
        assert!(is_managed(&c));
        let c = hook_command(
            "/home/a b/it's/signaltty",
            AgentKind::Cursor,
            &spec("stop", 10),
        );
        assert!(
            c.starts_with(r"'/home/a b/it'\''s/signaltty' hook-event --agent cursor --event stop")
        );
        assert!(!is_managed("echo hello"));
    }

    #[test]
    fn every_waiting_hook_ends_before_the_agent_kills_it() {
        // The CLI allows its --timeout plus 2 s, after a liveness check of at most 300 ms.
        for kind in [AgentKind::Claude, AgentKind::Codex, AgentKind::Cursor] {
            for spec in hook_specs(kind).iter().filter(|s| s.wait_for_answer) {
                let wait = answer_wait_secs(spec);
                assert!(
                    wait * 1000 + 2300 < spec.timeout_secs * 1000,
                    "{kind} {spec:?}"
                );
                assert!(hook_command("s", kind, spec).contains(&format!("--timeout {wait}")));
            }
        }
        assert_eq!(answer_wait_secs(&WAITING_PERMISSION), 120);
        assert_eq!(answer_wait_secs(&waiting("x", HOLD_TIMEOUT_SECS)), 25);
    }

    #[test]
    fn codex_has_no_notification_hook_and_waits_on_permission() {
        let events: Vec<_> = hook_specs(AgentKind::Codex)
            .iter()
            .map(|s| s.event)
            .collect();
        assert!(!events.contains(&"Notification"));
        let perm = hook_specs(AgentKind::Claude)
            .iter()
            .find(|s| s.event == "PermissionRequest")
            .expect("claude permission hook");
        assert!(perm.wait_for_answer);
        assert_eq!(perm.timeout_secs, 125);
        assert!(config_path(AgentKind::Generic, Path::new("/h")).is_err());
    }
}
