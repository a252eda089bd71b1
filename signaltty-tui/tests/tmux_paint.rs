//! End to end, in tmux: the server paints the TUI's focused pane into the TUI's terminal
//! itself (`runtime/painting.rs`). Proof: with the TUI process stopped (SIGSTOP), output of its
//! focused pane still shows on its screen, at the pane's place — only the server can have
//! written it. Then the TUI carries on (SIGCONT) and opening an overlay takes the grant back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::World;
use common::stopped::{Stopped, signal, start_tui, tui_pid, wait_stopped};

#[test]
fn the_server_paints_the_focused_pane_while_the_tui_is_stopped() {
    let world = World::new();
    start_tui(&world);
    let pane = world.panes()[0]["id"]
        .as_str()
        .expect("the pane's id")
        .to_owned();

    // The TUI asks for the grant once it has drawn the pane; until the server has it, output
    // waits for the TUI. So: stop the TUI, have another client type into the pane, and wait a
    // while for the output; if it did not show, let the TUI catch up and try again.
    let pid = tui_pid(&world);
    let painted = |s: &str, text: &str| s.lines().any(|l| l.contains(text) && !l.contains("echo"));
    let mut shown = None;
    for attempt in 0..10 {
        let text = format!("painted by the server {attempt}");
        signal(&pid, "-STOP");
        let stopped = Stopped(pid.clone());
        wait_stopped(&pid);
        let split = text.replacen("painted", "pain''ted", 1);
        world.cli(&["pane", "send", &pane, "--", &format!("echo {split}")]);
        let screen = world.wait_within(Duration::from_secs(5), |s| painted(s, &text));
        drop(stopped);
        if let Ok(screen) = screen {
            shown = Some((screen, text));
            break;
        }
        world.wait("the TUI drawing the output itself", |s| painted(s, &text));
    }
    let (screen, text) =
        shown.expect("the server never painted the pane while the TUI was stopped");
    // At the pane's place: right of the sidebar, below the tab bar and the pane's title.
    let (row, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| painted(l, &text))
        .expect("the output line");
    let col = line.find("painted").expect("the text");
    assert!(
        row >= 2 && col > 20,
        "painted at row {row}, column {col}:\n{screen}"
    );

    // The TUI carries on: an overlay over the pane takes the grant back (stopped and confirmed
    // before the overlay is drawn), and closing it draws the pane again from the TUI's model.
    world.keys(&["?"]);
    world.wait("the help overlay", |s| s.contains("ClosePane"));
    world.keys(&["Escape"]);
    world.wait("the help closed", |s| !s.contains("ClosePane"));
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
