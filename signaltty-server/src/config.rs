//! Server configuration: paths and limits. Built from the command line, the environment and
//! the user's config file (`signaltty_config`, applied with [`Config::apply_user`]) by the
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
    /// The program a pane runs when no command is given; `None` = `$SHELL`, else `/bin/sh`.
    pub default_shell: Option<String>,
    /// The user's config file as read at start. The limits above are already applied from it;
    /// the rest (`[agents.*]` hook waiting, `[policy]`) is kept here for the parts that use it.
    pub user: signaltty_config::Config,
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
            default_shell: None,
            user: signaltty_config::Config::default(),
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
}
