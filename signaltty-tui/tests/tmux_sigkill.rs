//! The outer terminal after `kill -9`: the TUI (and `signaltty attach`) killed outright leaves
//! a tmux pane as it found it — not on the alternate screen, mouse reporting off, the cursor
//! shown, and `stty -a` as before — because a guard process (`signaltty_client::term_guard`)
//! restores it when the client's end of its pipe closes.
//!
//! Needs the binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{World, bin};

fn flag(world: &World, name: &str) -> String {
    let format = format!("#{{{name}}}");
    String::from_utf8_lossy(&world.tmux(&["display", "-p", "-t", "t", &format]).stdout)
        .trim()
        .to_owned()
}

/// The pid of the one child of the tmux pane's shell: the client we started there.
fn client_pid(world: &World) -> String {
    let shell = flag(world, "pane_pid");
    let out = std::process::Command::new("ps")
        .args(["-o", "pid=", "--ppid", &shell])
        .output()
        .unwrap();
    let pids = String::from_utf8_lossy(&out.stdout).into_owned();
    let pids: Vec<&str> = pids.split_whitespace().collect();
    assert_eq!(pids.len(), 1, "children of the shell: {pids:?}");
    pids[0].to_owned()
}

/// Runs `command` in the tmux pane, waits for `ready` on screen, kills it with SIGKILL and
/// checks that the terminal is back as it was.
fn killed_client_leaves_the_terminal_as_it_was(world: &World, command: &str, ready: &str) {
    world.literal("stty -a > before.txt; echo sav''ed");
    world.keys(&["Enter"]);
    world.wait("saved", |s| s.contains("saved"));
    world.literal(&format!("{command}; echo $? > status.txt"));
    world.keys(&["Enter"]);
    world.wait("the client", |s| s.contains(ready));
    assert_eq!(flag(world, "alternate_on"), "1", "the client's screen");
    let pid = client_pid(world);
    assert!(
        std::process::Command::new("kill")
            .args(["-KILL", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = world.path("proj/status.txt");
    let deadline = std::time::Instant::now() + common::WAIT;
    while !(status.exists() && flag(world, "alternate_on") == "0") {
        assert!(
            std::time::Instant::now() < deadline,
            "the client's death went unnoticed; screen:\n{}",
            world.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(std::fs::read_to_string(&status).unwrap().trim(), "137");
    world.literal("stty -a > after.txt; echo com''pared");
    world.keys(&["Enter"]);
    world.wait("stty again", |s| s.contains("compared"));
    let before = std::fs::read_to_string(world.path("proj/before.txt")).unwrap();
    let after = std::fs::read_to_string(world.path("proj/after.txt")).unwrap();
    assert_eq!(before, after, "stty -a");
    assert_eq!(flag(world, "alternate_on"), "0", "alternate screen");
    assert_eq!(flag(world, "mouse_any_flag"), "0", "mouse reporting");
    assert_eq!(flag(world, "cursor_flag"), "1", "cursor shown");
    // The shell reads its own keys again, with echo and line editing.
    world.literal("echo af''ter-kill");
    world.keys(&["Enter"]);
    world.wait("the shell types", |s| s.contains("after-kill"));
}

#[test]
fn sigkill_of_the_tui_leaves_the_outer_terminal_restored() {
    let world = World::with_keys("tmux");
    world.start(100, 30, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    killed_client_leaves_the_terminal_as_it_was(
        &world,
        &bin("signaltty-tui").display().to_string(),
        "[proj]",
    );
}

#[test]
fn sigkill_of_signaltty_attach_leaves_the_outer_terminal_restored() {
    let world = World::with_keys("tmux");
    world.start(100, 30, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    let attach = fullscreen_attach(&world);
    killed_client_leaves_the_terminal_as_it_was(&world, &attach, "fullscreen");
}

/// A pane running a program that takes over the terminal (alternate screen, mouse, no cursor),
/// and the command line that attaches to it.
fn fullscreen_attach(world: &World) -> String {
    // A pane running a program that takes over the terminal: alternate screen, mouse, no cursor.
    let proj = world.path("proj");
    let ws = world.cli(&["workspace", "create", "--cwd", proj.to_str().unwrap()]);
    let ws = ws["id"]
        .as_str()
        .or(ws["workspace"]["id"].as_str())
        .unwrap()
        .to_owned();
    let pane = world.cli(&[
        "pane",
        "spawn",
        &ws,
        "--",
        "sh",
        "-c",
        "printf '\\033[?1049h\\033[?1000h\\033[?1006h\\033[?25lfull''screen\\n'; exec sleep 600",
    ]);
    let id = pane["id"]
        .as_str()
        .or(pane["pane"]["id"].as_str())
        .unwrap()
        .to_owned();
    let attach = format!(
        "{} --socket {} attach {id}",
        bin("signaltty").display(),
        world.socket.display()
    );
    attach
}

#[test]
fn the_server_killed_during_a_hand_off_leaves_the_outer_terminal_restored() {
    let world = World::with_keys("tmux");
    world.start(100, 30, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    let attach = fullscreen_attach(&world);
    let pid = world.cli(&["server", "status"]);
    let pid = pid["pid"]
        .as_u64()
        .or(pid["server"]["pid"].as_u64())
        .expect("the server's pid")
        .to_string();
    world.literal(&format!("{attach}; echo $? > status.txt"));
    world.keys(&["Enter"]);
    world.wait("attached", |s| s.contains("fullscreen"));
    assert_eq!(flag(&world, "alternate_on"), "1");
    assert!(
        std::process::Command::new("kill")
            .args(["-KILL", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = world.path("proj/status.txt");
    let deadline = std::time::Instant::now() + common::WAIT;
    while !(status.exists() && flag(&world, "alternate_on") == "0") {
        assert!(
            std::time::Instant::now() < deadline,
            "still on the alternate screen; screen:\n{}",
            world.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(flag(&world, "mouse_any_flag"), "0", "mouse reporting");
    assert_eq!(flag(&world, "cursor_flag"), "1", "cursor shown");
    world.literal("echo af''ter-server");
    world.keys(&["Enter"]);
    world.wait("the shell types", |s| s.contains("after-server"));
}
