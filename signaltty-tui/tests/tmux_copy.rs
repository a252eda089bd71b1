//! Copy mode end to end: the real `signaltty-tui` in a tmux window against the real server.
//! `C-b [` opens copy mode in the pane's place over the server's history (lines the pane's
//! screen no longer shows), `g` shows the first line, a search moves there, a line selection is
//! yanked — to tmux's buffer through OSC 52 (tmux with `set-clipboard on` is the outer
//! terminal) and to the paste buffer that `C-b ]` types into a program. The emacs keys
//! (`[tui] copy_keys = "emacs"`) do the same at 80×24.
//!
//! Needs the binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{World, bin};

fn run_tui(world: &World, cols: u16, rows: u16) {
    world.start(cols, rows, &world.path("proj"), "sh");
    // The outer terminal keeps what a program copies with OSC 52 as a buffer.
    assert!(
        world
            .tmux(&["set", "-g", "set-clipboard", "on"])
            .status
            .success()
    );
    world.wait("the outer shell", |s| s.contains('$'));
    world.literal(&format!(
        "{}; echo \"tui exited $?\"",
        bin("signaltty-tui").display()
    ));
    world.keys(&["Enter"]);
    world.wait("the TUI", |s| s.contains("[proj]") && s.contains("1:"));
    // A history longer than the screen: its first lines are only in the server's scrollback.
    world.literal("seq 1 300 | sed 's/^/row-/'");
    world.keys(&["Enter"]);
    world.wait("the output", |s| s.contains("row-300"));
}

fn buffer(world: &World) -> String {
    String::from_utf8_lossy(&world.tmux(&["show-buffer"]).stdout).into_owned()
}

/// Types the paste buffer into `cat > file` and returns what the file got.
fn pasted(world: &World, prefix: &[&str]) -> String {
    let out = world.path("proj/pasted.txt");
    world.literal("cat > pasted.txt");
    world.keys(&["Enter"]);
    world.keys(prefix);
    world.keys(&["]"]);
    world.keys(&["Enter", "C-d"]);
    world.literal("echo pas''ted-done");
    world.keys(&["Enter"]);
    world.wait("the paste written", |s| s.contains("pasted-done"));
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn vi_copy_mode_over_the_whole_history_yanks_to_osc52_and_the_paste_buffer() {
    let world = World::with_keys("tmux");
    run_tui(&world, 200, 50);
    world.keys(&["C-b", "["]);
    world.wait("copy mode", |s| s.contains("[copy 30"));
    // g: the first line of the history, not a blank page.
    world.keys(&["g"]);
    let screen = world.wait("the top", |s| s.contains("[copy 1/"));
    assert!(screen.contains("$ seq 1 300"), "{screen}");
    // Search forward, then backward (wrapping from the top to the end). Line 1 is the command.
    world.literal("/row-150");
    world.keys(&["Enter"]);
    world.wait("the match", |s| s.contains("[copy 151/"));
    world.literal("?row-29");
    world.keys(&["Enter"]);
    world.wait("the match above", |s| s.contains("[copy 30/"));
    world.literal("n");
    world.wait("n goes on upwards, wrapping", |s| s.contains("[copy 300/"));
    // A line selection of two lines, yanked.
    world.literal("/row-150");
    world.keys(&["Enter"]);
    world.wait("the match again", |s| s.contains("[copy 151/"));
    world.literal("Vjy");
    world.wait("copied", |s| {
        s.contains("copied 15 characters") && !s.contains("[copy")
    });
    assert_eq!(buffer(&world), "row-150\nrow-151");
    assert_eq!(pasted(&world, &["C-b"]), "row-150\nrow-151\n");
    world.keys(&["C-b", "d"]);
    world.wait("detached", |s| s.contains("tui exited 0"));
}

#[test]
fn emacs_copy_mode_at_80x24() {
    let world = World::with_keys("tmux");
    std::fs::write(
        world.path("cfg/signaltty/config.toml"),
        "[tui]\nkeys = \"tmux\"\ncopy_keys = \"emacs\"\n",
    )
    .unwrap();
    run_tui(&world, 80, 24);
    world.keys(&["C-b", "["]);
    world.wait("copy mode", |s| s.contains("[copy 30"));
    world.keys(&["M-<"]);
    world.wait("the top", |s| s.contains("[copy 1/"));
    world.keys(&["C-s"]);
    world.literal("row-42");
    world.keys(&["Enter"]);
    world.wait("the match", |s| s.contains("[copy 43/"));
    world.keys(&["C-Space", "C-e", "M-w"]);
    world.wait("copied", |s| s.contains("copied 6 characters"));
    assert_eq!(buffer(&world), "row-42");
    assert_eq!(pasted(&world, &["C-b"]), "row-42\n");
}
