//! Stopping the TUI's process (SIGSTOP) to prove what the server does without it.

use std::process::Command;

use super::{World, bin};

/// Starts the TUI in `world` (100×30, in `proj`) so that it can be stopped, and waits for its
/// shell pane. Not as tmux's own pane process (a shell runs it and waits): tmux continues a
/// pane process that stops.
pub fn start_tui(world: &World) {
    let tui = format!("{}; exit", bin("signaltty-tui").display());
    world.start(100, 30, &world.path("proj"), &tui);
    world.wait("the TUI with a shell", |s| {
        s.contains("NORMAL") && s.contains("▶○ sh") && s.lines().any(|l| l.ends_with('$'))
    });
}

/// The TUI's process: the child of tmux's pane process (the shell that runs it).
pub fn tui_pid(world: &World) -> String {
    let out = world.tmux(&["list-panes", "-t", "t", "-F", "#{pane_pid}"]);
    let shell = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let child = Command::new("pgrep")
        .args(["-P", &shell, "-x", "signaltty-tui"])
        .output()
        .expect("run pgrep");
    let pid = String::from_utf8_lossy(&child.stdout).trim().to_owned();
    assert!(
        !pid.is_empty(),
        "no signaltty-tui under the pane's shell {shell}"
    );
    pid
}

/// Waits until `pid` is stopped (a signal is delivered asynchronously).
pub fn wait_stopped(pid: &str) {
    let deadline = std::time::Instant::now() + super::WAIT;
    let stat = || std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The state is the field after the command's closing parenthesis.
    while !stat().contains(") T ") {
        assert!(
            std::time::Instant::now() < deadline,
            "{pid} did not stop: {}",
            stat()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

pub fn signal(pid: &str, sig: &str) {
    let status = Command::new("kill")
        .args([sig, pid])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill {sig} {pid}");
}

/// Resumes the TUI even when the test fails while it is stopped (else tmux's teardown waits).
pub struct Stopped(pub String);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-CONT", &self.0]).status();
    }
}
