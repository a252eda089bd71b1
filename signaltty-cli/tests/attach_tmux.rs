//! End to end as a person would use it: `signaltty attach` running inside a tmux window, driven
//! with `tmux send-keys` and read with `tmux capture-pane`. Typing reaches the pane; the detach
//! key returns to the shell with the terminal restored (canonical mode and echo back on).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{TestEnv, server_bin, wait_for};

struct Tmux {
    socket: std::path::PathBuf,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn capture(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    fn wait_screen(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        wait_for(what, Duration::from_secs(30), || {
            let screen = self.capture();
            pred(&screen).then_some(screen)
        })
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

#[test]
fn attach_inside_tmux_types_into_the_pane_and_detaches_with_the_terminal_restored() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let env = TestEnv::new();
    let ws = env.workspace("tmux-e2e");
    let pane = env.json(&["pane", "spawn", &ws, "--", "cat"]);
    let pane_id = pane["pane"]["id"].as_str().expect("pane id").to_string();

    let tmux = Tmux {
        socket: env.dir.path().join("tmux.sock"),
    };
    let cli = env!("CARGO_BIN_EXE_signaltty");
    let shell_env = format!(
        "SIGNALTTY_SERVER_BIN={} PS1='tmuxshell$ ' HOME={}",
        server_bin().display(),
        env.home.display()
    );
    let started = tmux.cmd(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "100",
        "-y",
        "30",
        &format!("env -i PATH=/usr/bin:/bin TERM=xterm-256color {shell_env} sh"),
    ]);
    assert!(started.status.success(), "{started:?}");
    tmux.wait_screen("shell prompt", |s| s.contains("tmuxshell$"));

    let attach = format!("{cli} --socket {} attach {pane_id}", env.socket.display());
    tmux.cmd(&["send-keys", "-t", "t", "-l", &attach]);
    tmux.cmd(&["send-keys", "-t", "t", "Enter"]);
    // The attach repaints the pane's (empty) screen; type into `cat` and see the echo.
    tmux.cmd(&["send-keys", "-t", "t", "-l", "hello from tmux"]);
    tmux.cmd(&["send-keys", "-t", "t", "Enter"]);
    tmux.wait_screen("cat's echo through the attach", |s| {
        s.matches("hello from tmux").count() >= 2
    });

    // Detach with Ctrl-\ : back at the shell, with the terminal in cooked mode again.
    tmux.cmd(&["send-keys", "-t", "t", "C-\\"]);
    tmux.wait_screen("detach message", |s| s.contains("[detached]"));
    tmux.cmd(&[
        "send-keys",
        "-t",
        "t",
        "-l",
        "stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo",
    ]);
    tmux.cmd(&["send-keys", "-t", "t", "Enter"]);
    let screen = tmux.wait_screen("stty output", |s| {
        let lines: Vec<&str> = s.lines().map(str::trim).collect();
        lines.contains(&"icanon") || lines.contains(&"-icanon")
    });
    let lines: Vec<&str> = screen.lines().map(str::trim).collect();
    assert!(
        lines.contains(&"icanon"),
        "terminal left in raw mode:\n{screen}"
    );
    assert!(lines.contains(&"echo"), "echo left off:\n{screen}");

    // The pane lives on after the detach.
    let got = env.json(&["pane", "get", &pane_id]);
    assert_eq!(got["status"].as_str(), Some("live"), "{got}");
    assert!(Path::new(&env.socket).exists());
}
