//! End to end, in tmux: in Insert mode on a pane the server paints, the TUI lends its keys to
//! the server (`runtime/lending.rs`), which writes plain keys to the pane itself and hands the
//! rest back. Proof: with the TUI process stopped (SIGSTOP), typed text still reaches the
//! pane's shell and its echo shows — only the server can have read and painted it. A control
//! key typed then is handed back and waits for the TUI; once the TUI carries on (SIGCONT) it
//! reaches the pane before the keys typed after it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::World;
use common::stopped::{Stopped, signal, start_tui, tui_pid, wait_stopped};

/// A line of the shell's output (not the command line that printed it).
fn output(screen: &str, text: &str) -> bool {
    screen
        .lines()
        .any(|l| l.contains(text) && !l.contains("echo"))
}

#[test]
fn the_server_reads_typed_keys_while_the_tui_is_stopped_and_hands_the_rest_back_in_order() {
    let world = World::new();
    start_tui(&world);
    world.keys(&["i"]);
    world.wait("insert mode", |s| s.contains("INSERT"));

    // The keys are lent once the server paints the pane: stop the TUI and type; if the echo
    // does not show, the TUI still had them — let it catch up, clear the line, try again.
    let pid = tui_pid(&world);
    let mut lent = None;
    for attempt in 0..10 {
        let typed = format!("echo lent{attempt} μ");
        signal(&pid, "-STOP");
        let stopped = Stopped(pid.clone());
        wait_stopped(&pid);
        world.literal(&typed);
        if world
            .wait_within(Duration::from_secs(5), |s| s.contains(&typed))
            .is_ok()
        {
            lent = Some((stopped, attempt));
            break;
        }
        drop(stopped);
        world.wait("the TUI typing the keys itself", |s| s.contains(&typed));
        world.keys(&["C-u"]);
        world.wait("the line cleared", |s| !s.contains(&typed));
    }
    let (stopped, attempt) =
        lent.expect("the server never read the keys while the TUI was stopped");

    // Still stopped: Ctrl-U is not the server's to send (a control key): it comes back to the
    // TUI, and everything typed after it waits behind it.
    world.keys(&["C-u"]);
    world.literal("echo kept");
    world.keys(&["Enter"]);
    let screen = world.screen();
    assert!(
        !output(&screen, "kept"),
        "nothing after Ctrl-U runs while the TUI is stopped:\n{screen}"
    );
    drop(stopped);
    let screen = world.wait("the TUI sending Ctrl-U, then the rest", |s| {
        output(s, "kept")
    });
    assert!(
        !output(&screen, &format!("lent{attempt}")),
        "Ctrl-U reached the shell before Enter, so the first line never ran:\n{screen}"
    );

    world.keys(&["C-a"]);
    world.wait("normal mode", |s| s.contains("NORMAL"));
    world.keys(&["q"]);
}
