//! End to end, in tmux: the server paints the TUI's focused pane into the TUI's terminal
//! itself (`runtime/painting.rs`). Proof: with the TUI process stopped (SIGSTOP), output of its
//! focused pane still shows on its screen, at the pane's place — only the server can have
//! written it. Then the TUI carries on (SIGCONT) and opening an overlay takes the grant back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::{World, bin};

/// The TUI's process: the command of tmux's window (run through `env`, which execs it).
fn tui_pid(world: &World) -> String {
    let out = world.tmux(&["list-panes", "-t", "t", "-F", "#{pane_pid}"]);
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn signal(pid: &str, sig: &str) {
    let status = Command::new("kill")
        .args([sig, pid])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill {sig} {pid}");
}

/// Resumes the TUI even when the test fails while it is stopped (else tmux's teardown waits).
struct Stopped(String);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-CONT", &self.0]).status();
    }
}

#[test]
fn the_server_paints_the_focused_pane_while_the_tui_is_stopped() {
    let world = World::new();
    let proj = world.path("proj");
    world.start(100, 30, &proj, &bin("signaltty-tui").display().to_string());
    world.wait("the TUI with a shell", |s| {
        s.contains("NORMAL") && s.contains("▶○ sh") && s.contains("$ ")
    });
    let pane = world.panes()[0]["id"]
        .as_str()
        .expect("the pane's id")
        .to_owned();

    let pid = tui_pid(&world);
    signal(&pid, "-STOP");
    let stopped = Stopped(pid.clone());
    // Typed into the pane by another client; the shell's echo and output come back while the
    // TUI cannot run.
    world.cli(&["pane", "send", &pane, "--", "echo pain''ted by the server"]);
    let screen = world.wait("the pane's output painted by the server", |s| {
        s.lines()
            .any(|l| l.contains("painted by the server") && !l.contains("echo"))
    });
    // At the pane's place: right of the sidebar, below the tab bar and the pane's title.
    let (row, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("painted by the server") && !l.contains("echo"))
        .expect("the output line");
    let col = line.find("painted").expect("the text");
    assert!(
        row >= 2 && col > 20,
        "painted at row {row}, column {col}:\n{screen}"
    );
    signal(&pid, "-CONT");
    drop(stopped);

    // The TUI carries on: an overlay over the pane takes the grant back (stopped and confirmed
    // before the overlay is drawn), and closing it draws the pane again from the TUI's model.
    world.keys(&["?"]);
    world.wait("the help overlay", |s| s.contains("any key closes"));
    world.keys(&["Escape"]);
    world.wait("the help closed", |s| !s.contains("any key closes"));
    world.keys(&["i"]);
    world.literal("echo af''ter");
    world.keys(&["Enter"]);
    world.wait("typing still works", |s| {
        s.lines()
            .any(|l| l.contains("after") && !l.contains("echo"))
    });
    world.keys(&["C-a"]);
    world.wait("normal mode", |s| s.contains("NORMAL"));
    world.keys(&["q"]);
}
