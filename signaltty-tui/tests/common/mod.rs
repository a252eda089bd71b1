//! What the TUI's end-to-end tests share: the binaries beside the TUI's, and a `World` — a temp
//! dir with a tmux server whose window `t` runs the TUI, the signaltty socket at `run/s.sock`,
//! and the screen read with `capture-pane`. Dropping it ends tmux and the signaltty server.

#![allow(dead_code)] // each test file uses its own part

pub mod stopped;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Longest a wait lasts before the test fails with the screen: generous, as CI's 2 cores run
/// the whole suite at once; a wait that holds returns as soon as it holds.
pub const WAIT: Duration = Duration::from_secs(60);

pub fn bin(name: &str) -> PathBuf {
    let tui = PathBuf::from(env!("CARGO_BIN_EXE_signaltty-tui"));
    let path = tui.with_file_name(name);
    assert!(
        path.is_file(),
        "{} not found: build it first (cargo build -p signaltty-server -p signaltty-cli)",
        path.display()
    );
    path
}

pub struct World {
    pub dir: tempfile::TempDir,
    pub tmux_socket: PathBuf,
    pub socket: PathBuf,
}

impl World {
    /// A world whose TUI uses the modal keymap (`[tui] keys = "modal"`): the tests written for
    /// it drive Normal and Insert modes.
    pub fn new() -> World {
        World::with_keys("modal")
    }

    /// A world whose TUI uses the keys preset `keys` (`tmux`, the default, or `modal`).
    pub fn with_keys(keys: &str) -> World {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["proj", "home", "cfg/signaltty"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        std::fs::write(
            dir.path().join("cfg/signaltty/config.toml"),
            format!("[tui]\nkeys = \"{keys}\"\n"),
        )
        .unwrap();
        World {
            tmux_socket: dir.path().join("tmux.sock"),
            socket: dir.path().join("run/s.sock"),
            dir,
        }
    }

    pub fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }

    /// The environment the TUI runs in (`env -i …`): a clean one pointing at this world.
    pub fn env(&self) -> String {
        format!(
            "env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME={home} SHELL=/bin/sh PS1='$ ' \
             XDG_CONFIG_HOME={cfg} SIGNALTTY_SOCKET={sock} SIGNALTTY_STATE_DIR={state} SIGNALTTY_SERVER_BIN={server}",
            home = self.path("home").display(),
            cfg = self.path("cfg").display(),
            sock = self.socket.display(),
            state = self.path("state").display(),
            server = bin("signaltty-server").display(),
        )
    }

    /// Starts tmux's window `t`, `cols`×`rows`, in `dir`, running `command` in [`World::env`].
    pub fn start(&self, cols: u16, rows: u16, dir: &Path, command: &str) {
        let started = self.tmux(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &cols.to_string(),
            "-y",
            &rows.to_string(),
            "-c",
            dir.to_str().unwrap(),
            &format!("{} {command}", self.env()),
        ]);
        assert!(started.status.success(), "{started:?}");
    }

    pub fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.tmux_socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success());
    }

    pub fn literal(&self, text: &str) {
        assert!(
            self.tmux(&["send-keys", "-t", "t", "-l", text])
                .status
                .success()
        );
    }

    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// Waits until the screen satisfies `pred`; fails with the last screen.
    pub fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        match self.wait_within(WAIT, &pred) {
            Ok(screen) => screen,
            Err(screen) => panic!("timed out waiting for {what}; screen:\n{screen}"),
        }
    }

    /// The screen once it satisfies `pred`, or the last screen after `within`.
    pub fn wait_within(
        &self,
        within: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> Result<String, String> {
        let deadline = Instant::now() + within;
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return Ok(screen);
            }
            if Instant::now() >= deadline {
                return Err(screen);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `signaltty --json ARGS` against the test's server.
    pub fn cli(&self, args: &[&str]) -> serde_json::Value {
        let out = Command::new(bin("signaltty"))
            .arg("--socket")
            .arg(&self.socket)
            .arg("--json")
            .args(args)
            .env("SIGNALTTY_SERVER_BIN", bin("signaltty-server"))
            .env("SIGNALTTY_STATE_DIR", self.path("state"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {out:?}\nscreen:\n{}",
            self.screen()
        );
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null)
    }

    /// Polls a CLI query until `pred` holds.
    pub fn wait_cli(
        &self,
        what: &str,
        args: &[&str],
        pred: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let value = self.cli(args);
            if pred(&value) {
                return value;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}: {value}\nscreen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn panes(&self) -> Vec<serde_json::Value> {
        let value = self.cli(&["pane", "list"]);
        value
            .as_array()
            .cloned()
            .or_else(|| value["panes"].as_array().cloned())
            .unwrap_or_default()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
        // No `bin()` here: its assertion would panic inside a panic's unwinding and abort.
        let cli = PathBuf::from(env!("CARGO_BIN_EXE_signaltty-tui")).with_file_name("signaltty");
        let _ = Command::new(cli)
            .arg("--socket")
            .arg(&self.socket)
            .args(["server", "stop", "--force"])
            .output();
    }
}

/// Runs `git` in `dir` with a fixed identity and no system or user config; fails the test on error.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}
