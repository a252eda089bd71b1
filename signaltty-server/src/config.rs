//! Server configuration: paths and limits. Built from the command line, the environment and
//! the user's config file (`signaltty_config`, applied with [`Config::apply_user`]) by the
//! binary, or directly by tests.

use std::path::PathBuf;
use std::time::Duration;

use signaltty_config::FastPaths;

/// Default cap on open connections: far above what a person's clients need (a TUI, a few CLI
/// calls, a handful of agents' hooks), far below the descriptors the server raises its limit to.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;

/// Everything the daemon needs to start.
#[derive(Clone, Debug)]
pub struct Config {
    /// The Unix socket to listen on. Its directory is created 0700.
    pub socket: PathBuf,
    /// Where the snapshot, tails and logs live (created 0700).
    pub state_dir: PathBuf,
    /// Events kept for replay.
    pub event_ring: usize,
    /// How far a live event subscriber may fall behind before it is closed.
    pub event_live_capacity: usize,
    /// Close a tab when its last pane closes.
    pub close_tab_on_last_pane: bool,
    /// Scrollback lines kept per pane.
    pub scrollback_lines: usize,
    /// Scrollback bytes kept per pane (hard cap).
    pub scrollback_bytes: usize,
    /// Time a pane's process group gets between SIGHUP and SIGKILL on close.
    pub hangup_grace: Duration,
    /// The home whose agent configs receive our hooks; `None` = `$SIGNALTTY_HOOK_HOME`, else
    /// `$HOME` (tests point it at a temp dir). When set, the server's own environment is not
    /// consulted for the agents' config directories (only a pane's launch env is).
    pub hook_home: Option<PathBuf>,
    /// What a client running inside a pane may do (see `docs/security.md`).
    pub pane_clients: PaneClientPolicy,
    /// Open connections past which new ones are refused (RESOURCE_EXHAUSTED
    /// `TOO_MANY_CONNECTIONS`); config key `server.max_connections`.
    pub max_connections: usize,
    /// Most panes the server holds at once (RESOURCE_EXHAUSTED `TOO_MANY_PANES` past it);
    /// config key `server.max_panes`.
    pub max_panes: usize,
    /// HTTP/2 keepalive: a ping after this much silence on a connection
    /// (`server.keepalive_interval_secs`).
    pub keepalive_interval: Duration,
    /// A connection whose peer does not answer a ping within this is closed
    /// (`server.keepalive_timeout_secs`).
    pub keepalive_timeout: Duration,
    /// How a pane shown by several clients is sized (`server.window_size`; `pane::sizing`).
    pub window_size: signaltty_config::WindowSize,
    /// A connection that has not sent the HTTP/2 preface within this is closed, and until it
    /// has it does not count against `max_connections` (so silent connections cannot lock
    /// clients out).
    pub preface_timeout: Duration,
    /// The program a pane runs when no command is given; `None` = `$SHELL`, else `/bin/sh`.
    pub default_shell: Option<String>,
    /// The user's config file, re-read for its `[remotes]` when a machine is looked up (see
    /// `machines`), so a remote added while the server runs is usable at once; `None`: no
    /// remotes (in-process tests).
    pub config_file: Option<PathBuf>,
    /// The user's config file as read at start. The limits above are already applied from it;
    /// the rest (`[agents.*]` hook waiting, `[policy]`) is kept here for the parts that use it.
    pub user: signaltty_config::Config,
    /// How long the dirty check of a workspace's git context may take before it reports
    /// "unknown" (a very large checkout must not hold a refresh, or the blocking pool, long).
    pub git_dirty_deadline: Duration,
    /// How long GetWorkspaceDiff and GetFileDiff may take before they fail with TIMEOUT.
    pub git_diff_deadline: Duration,
    /// Answering from signaltty for agents that wait for their permission hook before showing
    /// their own prompt (see [`AnswerPolicy`]); off by default.
    pub answer_policy: AnswerPolicy,
    /// While a pane is painted into a client's terminal, its attach streams hold its output
    /// until it has been quiet this long (at most a frame; `rpc::attach`). From
    /// `[fast_paths] painted_output_delay_us` (0: at once).
    pub painted_output_delay: Duration,
    /// While a pane is painted into a client's terminal, each output chunk is painted before
    /// its attach streams are woken (`pane::actor`). From `[fast_paths] paint_first`.
    pub paint_first: bool,
}

/// What a client whose process runs inside a pane (a descendant of a pane's child, or a process
/// that escaped one by double-forking) may do. Each rule is strict by default and relaxed only
/// explicitly: a program in a pane (an agent, its background jobs) is not the person at a client.
/// Clients outside every pane (the user's shell, the TUI) are never restricted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PaneClientPolicy {
    /// May answer permission decisions (config key `policy.pane_clients_may_answer_decisions`).
    pub may_answer_decisions: bool,
    /// May report hook events and sessions for panes other than its own
    /// (`policy.pane_clients_may_report_for_other_panes`).
    pub may_report_for_other_panes: bool,
    /// May change anything of other workspaces (input, signals, closes, names, layout,
    /// attention, worktrees) and act beyond any workspace (open new ones, shut the server down,
    /// install hooks) (`policy.pane_clients_may_control_other_workspaces`).
    pub may_control_other_workspaces: bool,
}

/// The default hold of an opted-in permission hook that runs before the agent's own prompt.
pub const DEFAULT_HOLD: Duration = Duration::from_secs(20);
/// The longest such hold (the installed hooks allow 30 s).
pub const MAX_HOLD: Duration = Duration::from_secs(25);

/// Which agents' permission hooks the server holds for an answer from signaltty although the
/// agent waits for them before showing its own prompt (Codex's PermissionRequest, Claude Code
/// sub-agents' PermissionRequest, Cursor's beforeShellExecution/beforeMCPExecution). By default
/// none: the hook reports the request and returns at once, and the user answers in the agent.
/// A workspace can opt in too (`WorkspaceSettings::answer_from_signaltty`); either suffices.
/// Claude Code's main session shows its dialog while its hook runs, so it is always answerable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerPolicy {
    /// Agents held in every workspace.
    pub agents: Vec<crate::agents::AgentKind>,
    /// How long a held hook waits (clamped to 1 s ..= [`MAX_HOLD`]); then the agent shows its
    /// own prompt.
    pub timeout: Duration,
}

impl Default for AnswerPolicy {
    fn default() -> Self {
        Self {
            agents: Vec::new(),
            timeout: DEFAULT_HOLD,
        }
    }
}

impl AnswerPolicy {
    /// The hold for `kind` when the workspace opted in to `workspace_agents`: `None` = do not
    /// hold.
    pub fn hold(
        &self,
        kind: crate::agents::AgentKind,
        workspace_agents: &[crate::agents::AgentKind],
    ) -> Option<Duration> {
        (self.agents.contains(&kind) || workspace_agents.contains(&kind))
            .then(|| self.timeout.clamp(Duration::from_secs(1), MAX_HOLD))
    }
}

impl Config {
    /// Defaults for a socket and state dir.
    pub fn new(socket: PathBuf, state_dir: PathBuf) -> Self {
        Config {
            socket,
            state_dir,
            event_ring: crate::bus::DEFAULT_RING_CAPACITY,
            event_live_capacity: crate::bus::DEFAULT_LIVE_CAPACITY,
            close_tab_on_last_pane: true,
            scrollback_lines: 10_000,
            scrollback_bytes: 4 * 1024 * 1024,
            hangup_grace: Duration::from_secs(2),
            hook_home: None,
            pane_clients: PaneClientPolicy::default(),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_panes: crate::model::state::DEFAULT_MAX_PANES,
            keepalive_interval: Duration::from_secs(60),
            keepalive_timeout: Duration::from_secs(20),
            window_size: signaltty_config::WindowSize::Latest,
            preface_timeout: Duration::from_secs(5),
            default_shell: None,
            config_file: None,
            user: signaltty_config::Config::default(),
            git_dirty_deadline: Duration::from_secs(2),
            git_diff_deadline: Duration::from_secs(30),
            answer_policy: AnswerPolicy::default(),
            painted_output_delay: FastPaths::default().painted_output_delay,
            paint_first: FastPaths::default().paint_first,
        }
    }

    /// Applies the `[server]` keys the user's config file sets and keeps the whole file.
    pub fn apply_user(&mut self, user: signaltty_config::Config) {
        let server = &user.server;
        if let Some(lines) = server.scrollback_lines {
            self.scrollback_lines = lines;
        }
        if let Some(bytes) = server.scrollback_bytes {
            self.scrollback_bytes = bytes;
        }
        if let Some(ring) = server.event_ring {
            self.event_ring = ring;
        }
        if let Some(close) = server.close_tab_on_last_pane {
            self.close_tab_on_last_pane = close;
        }
        if let Some(shell) = &server.default_shell {
            self.default_shell = Some(shell.clone());
        }
        if let Some(max) = server.max_connections {
            self.max_connections = max;
        }
        if let Some(max) = server.max_panes {
            self.max_panes = max;
        }
        if let Some(secs) = server.keepalive_interval_secs {
            self.keepalive_interval = Duration::from_secs(secs);
        }
        if let Some(secs) = server.keepalive_timeout_secs {
            self.keepalive_timeout = Duration::from_secs(secs);
        }
        if let Some(rule) = server.window_size {
            self.window_size = rule;
        }
        // `[agents.<kind>] wait_for_answer = true` holds that agent's permission hook in every
        // workspace; the hold is the longest `wait_timeout_ms` among them (clamped by `hold`).
        let held: Vec<_> = user
            .agents
            .iter()
            .filter(|(_, agent)| agent.wait_for_answer == Some(true))
            .collect();
        for (kind, _) in &held {
            if let Ok(kind) = crate::agents::AgentKind::parse(kind.name())
                && !self.answer_policy.agents.contains(&kind)
            {
                self.answer_policy.agents.push(kind);
            }
        }
        if let Some(ms) = held.iter().filter_map(|(_, a)| a.wait_timeout_ms).max() {
            self.answer_policy.timeout = Duration::from_millis(ms);
        }
        // `[policy]` relaxes, rule by rule, what programs inside panes may do (docs/security.md).
        let policy = &user.policy;
        if let Some(may) = policy.pane_clients_may_answer_decisions {
            self.pane_clients.may_answer_decisions = may;
        }
        if let Some(may) = policy.pane_clients_may_report_for_other_panes {
            self.pane_clients.may_report_for_other_panes = may;
        }
        if let Some(may) = policy.pane_clients_may_control_other_workspaces {
            self.pane_clients.may_control_other_workspaces = may;
        }
        // `[fast_paths]`: the server's two (the others are read by the CLI and the TUI).
        self.painted_output_delay = user.fast_paths.painted_output_delay;
        self.paint_first = user.fast_paths.paint_first;
        self.user = user;
    }
}

/// `$XDG_STATE_HOME/signaltty`, else `~/.local/state/signaltty`.
pub fn default_state_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_STATE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("signaltty");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    home.join(".local/state/signaltty")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_section_relaxes_each_pane_client_rule_on_its_own() {
        let mut config = Config::new("/s".into(), "/d".into());
        assert!(!config.pane_clients.may_answer_decisions);
        let user = signaltty_config::parse("[policy]\npane_clients_may_answer_decisions = true\n")
            .expect("valid");
        config.apply_user(user);
        assert!(config.pane_clients.may_answer_decisions);
        assert!(!config.pane_clients.may_report_for_other_panes);
        assert!(!config.pane_clients.may_control_other_workspaces);
    }

    #[test]
    fn the_user_file_overrides_only_what_it_sets() {
        let mut config = Config::new("/s".into(), "/d".into());
        let user =
            signaltty_config::parse("[server]\nscrollback_lines = 50\ndefault_shell = \"zsh\"\n")
                .expect("valid");
        config.apply_user(user.clone());
        assert_eq!(config.scrollback_lines, 50);
        assert_eq!(config.default_shell.as_deref(), Some("zsh"));
        let defaults = Config::new("/s".into(), "/d".into());
        assert_eq!(config.scrollback_bytes, defaults.scrollback_bytes);
        assert_eq!(config.event_ring, defaults.event_ring);
        assert_eq!(
            config.close_tab_on_last_pane,
            defaults.close_tab_on_last_pane
        );
        assert_eq!(config.user, user);
    }

    #[test]
    fn connection_limits_come_from_the_server_section() {
        let mut config = Config::new("/s".into(), "/d".into());
        let user = signaltty_config::parse(
            "[server]\nmax_connections = 3\nkeepalive_interval_secs = 7\nkeepalive_timeout_secs = 2\nwindow_size = \"largest\"\n",
        )
        .expect("valid");
        config.apply_user(user);
        assert_eq!(config.max_connections, 3);
        assert_eq!(config.keepalive_interval, Duration::from_secs(7));
        assert_eq!(config.keepalive_timeout, Duration::from_secs(2));
        assert_eq!(config.window_size, signaltty_config::WindowSize::Largest);
        // Unset keeps the defaults.
        let mut plain = Config::new("/s".into(), "/d".into());
        plain.apply_user(signaltty_config::Config::default());
        assert_eq!(plain.max_connections, DEFAULT_MAX_CONNECTIONS);
        assert_eq!(plain.keepalive_interval, Duration::from_secs(60));
    }

    #[test]
    fn agents_that_wait_for_answers_become_the_answer_policy() {
        let mut config = Config::new("/s".into(), "/d".into());
        let user = signaltty_config::parse(
            "[agents.codex]\nwait_for_answer = true\nwait_timeout_ms = 15000\n\
             [agents.cursor]\nwait_for_answer = false\nwait_timeout_ms = 90000\n",
        )
        .expect("valid");
        config.apply_user(user);
        assert_eq!(
            config.answer_policy.agents,
            [crate::agents::AgentKind::Codex]
        );
        assert_eq!(config.answer_policy.timeout, Duration::from_secs(15));
    }
}
