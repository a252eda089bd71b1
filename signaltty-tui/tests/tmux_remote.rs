//! Other machines in the TUI, end to end (issue 33): the real `signaltty-tui` in tmux against a
//! local server with one remote, `gpu`, reached over a real OpenSSH server on loopback (its
//! own server, socket and state in a directory of its own). The sidebar shows `local` first,
//! then `gpu ● connected` with the remote's workspace and pane; a permission request of an
//! agent on the remote (`hook-event` run there) is listed under its pane and named in the
//! status line; Enter on its first option answers it on the remote: the waiting hook gets
//! "allow".
//!
//! Skips (saying so) without `/usr/sbin/sshd` unless `SIGNALTTY_REQUIRE_SSHD` is set. Needs the
//! binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../tools/sshd_fixture.rs"]
mod sshd;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::{World, bin};
use sshd::Sshd;

/// The remote machine's signaltty: its directories under `world`'s.
struct Remote {
    dir: PathBuf,
}

impl Remote {
    fn new(world: &World) -> Remote {
        let dir = world.path("remote");
        // Private, all of them: the server refuses a socket or a state directory others can
        // enter.
        use std::os::unix::fs::PermissionsExt;
        for sub in ["", "home", "state", "xdg-config", "xdg-state", "run"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
            std::fs::set_permissions(dir.join(sub), std::fs::Permissions::from_mode(0o700))
                .unwrap();
        }
        Remote { dir }
    }

    /// `VAR=value` pairs of the remote's environment.
    fn env(&self) -> Vec<(&'static str, PathBuf)> {
        let d = &self.dir;
        vec![
            ("SIGNALTTY_SOCKET", d.join("s.sock")),
            ("SIGNALTTY_STATE_DIR", d.join("state")),
            ("SIGNALTTY_SERVER_BIN", bin("signaltty-server")),
            ("HOME", d.join("home")),
            ("XDG_CONFIG_HOME", d.join("xdg-config")),
            ("XDG_STATE_HOME", d.join("xdg-state")),
            ("XDG_RUNTIME_DIR", d.join("run")),
        ]
    }

    /// What the sshd session runs: the remote's `signaltty` in its environment.
    fn command(&self) -> String {
        let vars: Vec<String> = self
            .env()
            .into_iter()
            .map(|(k, v)| format!("{k}={}", v.display()))
            .collect();
        format!(
            "env {} SHELL=/bin/sh {}",
            vars.join(" "),
            bin("signaltty").display()
        )
    }

    /// `signaltty ARGS` on the remote (directly on its socket, as a program there would).
    fn cli(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin("signaltty"));
        cmd.args(args)
            .current_dir(&self.dir)
            .env("SHELL", "/bin/sh");
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
        cmd
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.cli(args).output().unwrap();
        assert!(out.status.success(), "remote {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.cli(&["server", "stop", "--force"]).output();
    }
}

/// `signaltty remote add gpu …` on the local machine (the world's config file).
fn add_remote(world: &World, sshd: &Sshd, remote: &Remote) {
    let mut cmd = Command::new(bin("signaltty"));
    cmd.args(["remote", "add", "gpu", "127.0.0.1"])
        .env("XDG_CONFIG_HOME", world.path("cfg"))
        .env("HOME", world.path("home"))
        .env("SIGNALTTY_SOCKET", &world.socket)
        .env("SIGNALTTY_STATE_DIR", world.path("state"));
    for opt in sshd.ssh_options() {
        cmd.arg(format!("--ssh-option={opt}"));
    }
    cmd.arg(format!("--command={}", remote.command()));
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "remote add: {out:?}");
}

/// The screen's row (0-based) drawn in reverse video: the sidebar's highlight.
fn highlighted_row(world: &World) -> Option<usize> {
    let out = world.tmux(&["capture-pane", "-p", "-e", "-t", "t"]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .position(|l| l.contains("\x1b[7m"))
}

fn row_of(screen: &str, pred: impl Fn(&str) -> bool) -> Option<usize> {
    screen.lines().position(pred)
}

#[test]
fn the_sidebar_shows_a_remote_machine_and_its_decision_is_answered_there() {
    let Some(sshd) = Sshd::start() else { return };
    let world = World::with_keys("tmux");
    let remote = Remote::new(&world);
    let pane = remote.ok(&["new", "--name", "far", "-d", "--", "cat"]);
    add_remote(&world, &sshd, &remote);

    world.start(200, 50, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    world.literal(&bin("signaltty-tui").display().to_string());
    world.keys(&["Enter"]);
    let screen = world.wait("the remote in the sidebar", |s| {
        s.contains("gpu ● connected") && s.contains("far")
    });
    let local = row_of(&screen, |l| l.starts_with("local")).expect("local header");
    let gpu = row_of(&screen, |l| l.contains("gpu ● connected")).expect("gpu header");
    assert!(local < gpu, "local first:\n{screen}");

    // An agent on the remote asks; its hook waits for the answer.
    let mut hook = remote
        .cli(&[
            "hook-event",
            "--agent",
            "claude",
            "--event",
            "PermissionRequest",
            "--pane",
            &pane,
            "--wait-for-answer",
            "--timeout",
            "60",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    hook.stdin
        .take()
        .unwrap()
        .write_all(
            br#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
        )
        .unwrap();
    let shown = world.wait_within(common::WAIT, |s| {
        s.contains("⚠ gpu:") && s.lines().skip(gpu).any(|l| l.contains("[1]"))
    });
    let screen = match shown {
        Ok(screen) => screen,
        Err(screen) => {
            let decisions = remote.ok(&["--json", "decision", "list"]);
            let _ = hook.kill();
            let out = hook.wait_with_output().unwrap();
            panic!(
                "the remote decision is not shown; the remote's: {decisions}; the hook: {out:?}\nscreen:\n{screen}"
            )
        }
    };
    let option = screen
        .lines()
        .enumerate()
        .skip(gpu)
        .find(|(_, l)| l.contains("[1]"))
        .map(|(i, _)| i)
        .unwrap();

    // Into the sidebar, down to the option, Enter.
    world.keys(&["C-b", "Tab"]);
    let deadline = std::time::Instant::now() + common::WAIT;
    let at = loop {
        if let Some(row) = highlighted_row(&world) {
            break row;
        }
        assert!(std::time::Instant::now() < deadline, "no highlight");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(at <= option, "the highlight is above the option");
    for _ in at..option {
        world.keys(&["j"]);
    }
    world
        .wait_within(common::WAIT, |_| highlighted_row(&world) == Some(option))
        .unwrap_or_else(|s| panic!("the highlight did not reach row {option}:\n{s}"));
    world.keys(&["Enter"]);

    let mut verdict = String::new();
    hook.stdout
        .take()
        .unwrap()
        .read_to_string(&mut verdict)
        .unwrap();
    assert!(hook.wait().unwrap().success(), "hook: {verdict}");
    assert!(
        verdict.contains("allow"),
        "the remote hook's verdict: {verdict}"
    );
    world.wait("the remote decision gone", |s| !s.contains("⚠ gpu:"));
}
