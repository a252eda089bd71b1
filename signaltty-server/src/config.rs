//! Server configuration: paths and limits. Built from the command line and environment by the
//! binary, or directly by tests.

use std::path::PathBuf;
use std::time::Duration;

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
    /// `$HOME` (tests point it at a temp dir).
    pub hook_home: Option<PathBuf>,
    /// How long the dirty check of a workspace's git context may take before it reports
    /// "unknown" (a very large checkout must not hold a refresh, or the blocking pool, long).
    pub git_dirty_deadline: Duration,
    /// How long GetWorkspaceDiff and GetFileDiff may take before they fail with TIMEOUT.
    pub git_diff_deadline: Duration,
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
            git_dirty_deadline: Duration::from_secs(2),
            git_diff_deadline: Duration::from_secs(30),
        }
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
