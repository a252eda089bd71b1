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

    fn title(&self) -> String {
        let out = self.cmd(&["display-message", "-p", "-t", "t", "#{pane_title}"]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
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

/// A tmux server (its own socket in the test's dir) running a plain `sh` in session `t`.
fn tmux_with_shell(env: &TestEnv) -> Tmux {
    let tmux = Tmux {
        socket: env.dir.path().join("tmux.sock"),
    };
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
    // A title of the terminal's own, which an attach must give back on detaching.
    tmux.cmd(&["send-keys", "-t", "t", "-l", "printf '\\033]2;outer\\007'"]);
    tmux.cmd(&["send-keys", "-t", "t", "Enter"]);
    wait_for("the outer title", Duration::from_secs(30), || {
        (tmux.title() == "outer").then_some(())
    });
    tmux
}

/// Types `signaltty attach PANE` into the tmux window's shell.
fn type_attach(env: &TestEnv, tmux: &Tmux, pane_id: &str) {
    let cli = env!("CARGO_BIN_EXE_signaltty");
    let attach = format!("{cli} --socket {} attach {pane_id}", env.socket.display());
    tmux.cmd(&["send-keys", "-t", "t", "-l", &attach]);
    tmux.cmd(&["send-keys", "-t", "t", "Enter"]);
}

fn tmux_missing() -> bool {
    let missing = Command::new("tmux").arg("-V").output().is_err();
    if missing {
        eprintln!("skipped: tmux is not installed");
    }
    missing
}

/// A pane's id from `pane spawn --json` output.
fn spawned(env: &TestEnv, ws: &str, argv: &[&str]) -> String {
    let mut args = vec!["pane", "spawn", ws, "--"];
    args.extend_from_slice(argv);
    let pane = env.json(&args);
    pane["pane"]["id"].as_str().expect("pane id").to_string()
}

/// `sh -c script` in a pane, attached with `signaltty attach` inside tmux, then Enter typed into
/// it: scripts start with `read go` so that what they do happens with the client attached.
/// `None` when tmux is not installed.
fn script_attached_in_tmux(name: &str, script: &str) -> Option<(TestEnv, Tmux)> {
    if tmux_missing() {
        return None;
    }
    let env = TestEnv::new();
    let ws = env.workspace(name);
    let pane_id = spawned(&env, &ws, &["sh", "-c", script]);
    let tmux = tmux_with_shell(&env);
    type_attach(&env, &tmux, &pane_id);
    tmux.wait_screen("the attach's repaint", |s| !s.contains("tmuxshell$"));
    tmux.cmd(&["send-keys", "-t", "t", "Enter"]);
    Some((env, tmux))
}

#[test]
fn attach_inside_tmux_types_into_the_pane_and_detaches_with_the_terminal_restored() {
    if tmux_missing() {
        return;
    }
    let env = TestEnv::new();
    let ws = env.workspace("tmux-e2e");
    let pane_id = spawned(&env, &ws, &["cat"]);
    let tmux = tmux_with_shell(&env);
    type_attach(&env, &tmux, &pane_id);
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

/// A program that asks for the cursor position while a client is attached gets one answer, the
/// pane's, not a second one from the client's terminal (tmux, here, which answers CPR with its
/// own cursor). The program waits 1 s for a second answer: a negative can only be a timeout.
#[test]
fn a_query_through_an_attached_terminal_is_answered_once_by_the_pane() {
    let script = r#"read go; stty raw -echo
printf '\033[5;9H\033[6n'; first=$(dd bs=1 count=6 2>/dev/null)
stty -icanon min 0 time 10; second=$(dd bs=64 count=1 2>/dev/null); stty sane
show() { printf %s "$1" | tr '\033' E; }
printf '\033[H\033[2Jfirst=%s second=%s end\r\n' "$(show "$first")" "$(show "$second")"
exec cat"#;
    let Some((_env, tmux)) = script_attached_in_tmux("tmux-queries", script) else {
        return;
    };
    let screen = tmux.wait_screen("the script's report", |s| s.contains(" end"));
    assert!(
        screen.contains("first=E[5;9R second= end"),
        "expected exactly the pane's answer:\n{screen}"
    );
}

/// Detaching undoes in the client's terminal every mode the pane's program switched on there, and
/// the title it set, as tmux itself reports them: that program keeps running in the pane and will never switch them
/// off for us (a shell left with mouse reporting, no autowrap or a scroll region is broken).
#[test]
fn detaching_resets_the_modes_the_pane_set_in_the_client_terminal() {
    let script = r#"read go
printf '\033]2;agent\007\033[?1049h\033[?1h\033=\033[?1003h\033[?1006h\033[4h\033[?7l\033[5;10r\033[?6h\033[?25lmodes-on'
exec cat"#;
    let Some((_env, tmux)) = script_attached_in_tmux("tmux-modes", script) else {
        return;
    };
    let flags = "#{alternate_on} #{keypad_cursor_flag} #{keypad_flag} #{mouse_any_flag} \
                 #{mouse_sgr_flag} #{insert_flag} #{wrap_flag} #{origin_flag} #{cursor_flag} \
                 #{scroll_region_upper} #{scroll_region_lower}";
    let read_flags = || {
        let out = tmux.cmd(&["display-message", "-p", "-t", "t", flags]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    // Every mode reached tmux's terminal through the attach (so the test means something).
    wait_for("the modes on", Duration::from_secs(30), || {
        (read_flags() == "1 1 1 1 1 1 0 1 0 4 9").then_some(())
    });
    assert_eq!(tmux.title(), "agent");

    tmux.cmd(&["send-keys", "-t", "t", "C-\\"]);
    tmux.wait_screen("detach message", |s| s.contains("[detached]"));
    assert_eq!(
        read_flags(),
        "0 0 0 0 0 0 1 0 1 0 29",
        "modes left on after detaching"
    );
    assert_eq!(tmux.title(), "outer", "the pane's title stayed");
}

#[test]
fn the_config_files_detach_key_detaches() {
    if tmux_missing() {
        return;
    }
    let env = TestEnv::new();
    // The tmux shell has only HOME, so the config file is $HOME/.config/signaltty/config.toml.
    let dir = env.home.join(".config/signaltty");
    std::fs::create_dir_all(&dir).expect("config dir");
    std::fs::write(dir.join("config.toml"), "[attach]\ndetach_key = \"C-a\"\n").expect("config");
    let ws = env.workspace("detach-key");
    let pane_id = spawned(&env, &ws, &["cat"]);
    let tmux = tmux_with_shell(&env);
    type_attach(&env, &tmux, &pane_id);
    tmux.cmd(&["send-keys", "-t", "t", "-l", "typed"]);
    tmux.cmd(&["send-keys", "-t", "t", "Enter"]);
    tmux.wait_screen("cat's echo", |s| s.matches("typed").count() >= 2);
    // Ctrl-\ is now an ordinary key for the pane; Ctrl-A detaches.
    tmux.cmd(&["send-keys", "-t", "t", "C-a"]);
    tmux.wait_screen("detach message", |s| s.contains("[detached]"));
}

/// The window the attach runs in changes size: the pane takes the new size (the CLI relays
/// SIGWINCH; with the terminal handed over, the server reads the new size from it).
#[test]
fn resizing_the_attached_terminal_resizes_the_pane() {
    if tmux_missing() {
        return;
    }
    let env = TestEnv::new();
    let ws = env.workspace("resize");
    let pane_id = spawned(&env, &ws, &["cat"]);
    let tmux = tmux_with_shell(&env);
    type_attach(&env, &tmux, &pane_id);
    tmux.wait_screen("the attach's repaint", |s| !s.contains("tmuxshell$"));
    let size = |env: &TestEnv| {
        let pane = env.json(&["pane", "get", &pane_id]);
        (pane["cols"].as_u64(), pane["rows"].as_u64())
    };
    // What the attach's terminal is: tmux's pane.
    let window = |tmux: &Tmux| {
        let out = tmux.cmd(&[
            "display-message",
            "-p",
            "-t",
            "t",
            "#{pane_width} #{pane_height}",
        ]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut words = text.split_whitespace().map(|w| w.parse::<u64>().ok());
        (words.next().flatten(), words.next().flatten())
    };
    wait_for(
        "the pane to take the window's size",
        Duration::from_secs(30),
        || (size(&env) == window(&tmux)).then_some(()),
    );
    let before = window(&tmux);
    tmux.cmd(&["resize-window", "-t", "t", "-x", "120", "-y", "40"]);
    wait_for(
        "the pane to follow the window",
        Duration::from_secs(30),
        || {
            let now = window(&tmux);
            (now != before && size(&env) == now).then_some(())
        },
    );
    assert_eq!(size(&env).0, Some(120));
    tmux.cmd(&["send-keys", "-t", "t", "C-\\"]);
    tmux.wait_screen("the shell again", |s| s.contains("[detached]"));
}
