//! End to end as a tmux user drives the default keymap: the real `signaltty-tui` in a tmux
//! window against the real server, keys sent with `tmux send-keys`, the screen read with
//! `capture-pane`. Typing goes to the pane from the first key and after every command; the
//! commands sit behind `C-b` (split, focus, zoom, tabs, help, the prefix sent through,
//! detach). A fake agent's permission request survives the keys a user presses in the pane
//! and is answered only in its focused box (`C-b a`, modal `a`), at 80×24, in both presets.
//!
//! Needs the binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

mod common;

use common::{World, bin};

/// The fake agent: asks permission like Claude Code's hook does, prints the verdict it got.
fn fake_agent(world: &World) -> PathBuf {
    let payload = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../signaltty-server/tests/fixtures/hooks/claude/PermissionRequest.json");
    let script = world.path("fake-agent.sh");
    std::fs::write(
        &script,
        format!(
            "echo fake agent asking\n\"{cli}\" hook-event --agent claude --event PermissionRequest --wait-for-answer < \"{payload}\" > \"{out}\"\necho \"verdict: $(cat \"{out}\" | tr -d '\\n' | cut -c1-60)\"\nexec sleep 600\n",
            cli = bin("signaltty").display(),
            payload = payload.display(),
            out = world.path("verdict").display(),
        ),
    )
    .unwrap();
    script
}

fn run_tui(world: &World) {
    world.literal(&format!(
        "{}; echo \"tui exited $?\"",
        bin("signaltty-tui").display()
    ));
    world.keys(&["Enter"]);
}

#[test]
fn a_tmux_user_types_at_once_and_drives_the_tui_behind_ctrl_b() {
    let world = World::with_keys("tmux");
    world.start(200, 50, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    run_tui(&world);
    world.wait("the TUI", |s| s.contains("[proj]") && s.contains("1:"));

    // The first key goes to the pane: no mode to enter.
    world.literal("echo fir''st");
    world.keys(&["Enter"]);
    world.wait("typed at once", |s| s.contains("first"));

    // C-b %: a split; the new pane is focused and takes the next keys.
    world.keys(&["C-b", "%"]);
    world.wait_cli("two panes", &["pane", "list"], |v| {
        v.as_array()
            .or(v["panes"].as_array())
            .is_some_and(|a| a.len() == 2)
    });
    world.wait("the new pane focused on the right", |s| {
        s.lines()
            .nth(1)
            .is_some_and(|l| l.find('▶').is_some_and(|at| at > 60))
    });
    world.literal("echo rig''ht-pane");
    world.keys(&["Enter"]);
    let screen = world.wait("typed into the new pane", |s| s.contains("right-pane"));
    let line = screen.lines().find(|l| l.contains("right-pane")).unwrap();
    assert!(line.find("right-pane").unwrap() > 60, "{screen}");

    // C-b Left, then typing lands in the left pane.
    world.keys(&["C-b", "Left"]);
    world.wait("the left pane focused", |s| {
        s.lines()
            .nth(1)
            .is_some_and(|l| l.find('▶').is_some_and(|at| at < 60))
    });
    world.literal("echo left''-again");
    world.keys(&["Enter"]);
    world.wait("typed into the left pane", |s| {
        s.lines()
            .any(|l| l.find("left-again").is_some_and(|at| at < 60))
    });

    // C-b z zooms (the tab bar says Z) and unzooms.
    world.keys(&["C-b", "z"]);
    world.wait("zoomed", |s| s.contains("*Z") && !s.contains("right-pane"));
    world.keys(&["C-b", "z"]);
    world.wait("unzoomed", |s| {
        !s.contains("*Z") && s.contains("right-pane")
    });

    // C-b c: a new tab, typed into at once; C-b 1 and C-b l go back and forth.
    world.keys(&["C-b", "c"]);
    world.wait("the new tab", |s| {
        s.contains("2:") && s.contains("2:sh proj*")
    });
    world.literal("echo second''-tab");
    world.keys(&["Enter"]);
    world.wait("typed into the new tab", |s| s.contains("second-tab"));
    world.keys(&["C-b", "1"]);
    world.wait("the first tab", |s| {
        s.contains("right-pane") && !s.contains("second-tab")
    });
    world.keys(&["C-b", "l"]);
    world.wait("the last tab again", |s| s.contains("second-tab"));

    // C-b C-b types C-b into the pane.
    world.literal("head -c1 | od -An -c");
    world.keys(&["Enter"]);
    world.keys(&["C-b", "C-b"]);
    world.wait("the prefix echoed by the pane's tty", |s| s.contains("^B"));
    world.keys(&["Enter"]);
    world.wait("the prefix reached the program", |s| s.contains("002"));

    // C-b ?: the keys; any key closes, and typing goes on in the pane.
    world.keys(&["C-b", "?"]);
    world.wait("the keys", |s| s.contains("C-b x ClosePane"));
    world.keys(&["q"]);
    world.wait("the keys closed", |s| !s.contains("ClosePane"));
    world.literal("echo after''-help");
    world.keys(&["Enter"]);
    world.wait("typed after the help", |s| s.contains("after-help"));

    // C-b d detaches: the TUI exits 0, the panes keep running.
    world.keys(&["C-b", "d"]);
    world.wait("detached", |s| s.contains("tui exited 0"));
    assert_eq!(world.panes().len(), 3);

    // A zoom survives detaching: zoom the first tab's left pane, detach, start again.
    run_tui(&world);
    world.wait("the TUI again", |s| s.contains("[proj]"));
    world.keys(&["C-b", "1"]);
    world.wait("the first tab", |s| s.contains("1:sh proj*"));
    world.keys(&["C-b", "z"]);
    world.wait("zoomed", |s| s.contains("1:sh proj*Z"));
    world.keys(&["C-b", "d"]);
    world.wait("detached again", |s| s.matches("tui exited 0").count() == 2);
    run_tui(&world);
    world.wait("still zoomed after re-attaching", |s| {
        s.contains("1:sh proj*Z") && !s.contains("right-pane")
    });
}

/// A decision at 80×24: the keys a user types in the pane (digits, Enter, the prefix with tab
/// digits and other commands) leave it pending; focusing its box and a digit answer it.
fn a_decision_is_answered_only_on_purpose(keys: &str) {
    let world = World::with_keys(keys);
    let agent = fake_agent(&world);
    world.start(80, 24, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    run_tui(&world);
    let tmux = keys == "tmux";
    world.wait("the TUI", |s| {
        s.contains(if tmux { "[proj]" } else { "NORMAL" }) && s.contains("1:")
    });
    if !tmux {
        world.keys(&["i"]);
    }
    world.literal(&format!("sh {}", agent.display()));
    world.keys(&["Enter"]);
    let focus: &[&str] = if tmux { &["C-b", "a"] } else { &["a"] };
    let hint = if tmux {
        "C-b a: answer"
    } else {
        "C-a a: answer"
    };
    world.wait("the decision box", |s| {
        s.contains("Allow") && s.contains("tool: Bash") && s.contains(hint)
    });
    // The tool and the command are on rows of their own, never glued to the prompt.
    let screen = world.screen();
    assert!(!screen.contains("?rm"), "{screen}");
    // Keys that mean something else: typed into the pane, or tab digits and commands.
    world.literal("123");
    world.keys(&["Enter"]);
    if tmux {
        for key in ["1", "2", "n", "p", "o", ";", "z", "z", "q"] {
            world.keys(&["C-b", key]);
        }
    } else {
        world.keys(&["C-a"]);
        for key in ["1", "2", "Enter", "Escape", "i", "C-a"] {
            world.keys(&[key]);
        }
    }
    // Something after the keys, so that they were all handled: a new tab and back.
    if tmux {
        world.keys(&["C-b", "c"]);
    } else {
        world.keys(&["t"]);
    }
    world.wait("the second tab", |s| s.contains("2:sh proj*"));
    world.keys(if tmux { &["C-b", "1"] } else { &["1"] });
    world.wait("the agent's tab", |s| s.contains("tool: Bash"));
    assert!(
        !world.path("verdict").exists()
            || std::fs::read_to_string(world.path("verdict"))
                .unwrap()
                .is_empty(),
        "answered by a key that meant something else"
    );
    assert!(world.screen().contains("[1]"));
    // On purpose: focus the box, then its digit.
    world.keys(focus);
    world.wait("the focused box", |s| {
        s.contains("DECISION") && s.contains("Enter: answer")
    });
    world.keys(&["1"]);
    world.wait("the verdict in the agent's pane", |s| {
        s.contains("verdict:") && !s.contains("[1] ")
    });
    let verdict = std::fs::read_to_string(world.path("verdict")).unwrap();
    assert!(verdict.contains("allow"), "{verdict}");
}

#[test]
fn a_decision_survives_the_tmux_keys_and_is_answered_in_its_focused_box() {
    a_decision_is_answered_only_on_purpose("tmux");
}

#[test]
fn a_decision_survives_the_modal_keys_and_is_answered_in_its_focused_box() {
    a_decision_is_answered_only_on_purpose("modal");
}

/// The panes' widths, oldest pane first (here: the left one).
fn pane_cols(panes: &[serde_json::Value]) -> Vec<u64> {
    let mut panes: Vec<&serde_json::Value> = panes.iter().collect();
    panes.sort_by_key(|p| p["created_at"].as_str().unwrap_or("").to_owned());
    panes.iter().filter_map(|p| p["cols"].as_u64()).collect()
}

/// At 80×24: the sidebar starts hidden and `C-b b` shows it; the keys scroll; pane numbers,
/// the picker, the last pane, swap, a resize repeated in one read, and a pane killed by
/// SIGSEGV saying so.
#[test]
fn at_80x24_numbers_picker_swap_repeat_and_a_signal() {
    let world = World::with_keys("tmux");
    world.start(80, 24, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    run_tui(&world);
    world.wait("the TUI, sidebar hidden", |s| {
        s.contains("[proj]") && !s.contains("▾ proj")
    });
    world.keys(&["C-b", "b"]);
    world.wait("the sidebar", |s| s.contains("▾ proj"));
    world.keys(&["C-b", "b"]);
    world.wait("the sidebar hidden", |s| !s.contains("▾ proj"));

    // The keys do not fit: they scroll.
    world.keys(&["C-b", "?"]);
    world.wait("the keys", |s| s.contains("j/k PgDn scroll"));
    world.keys(&["PageDown"]);
    world.keys(&["PageDown"]);
    world.keys(&["PageDown"]);
    world.wait("scrolled to the end", |s| s.contains("ShowPicker"));
    world.keys(&["q"]);
    world.wait("the keys closed", |s| !s.contains("ShowPicker"));

    // Two panes side by side, the right one focused.
    world.literal("echo le''ft-one");
    world.keys(&["Enter"]);
    world.wait("typed", |s| s.contains("left-one"));
    world.keys(&["C-b", "%"]);
    world.wait_cli("two panes", &["pane", "list"], |v| {
        v.as_array()
            .or(v["panes"].as_array())
            .is_some_and(|a| a.len() == 2)
    });
    world.wait("the right pane focused", |s| {
        s.lines()
            .nth(1)
            .is_some_and(|l| l.find('▶').is_some_and(|at| at > 30))
    });
    let before = pane_cols(&world.panes());
    // The prefix once, then C-Left three times in one read: the divider moves three times.
    world.keys(&["C-b", "C-Left", "C-Left", "C-Left"]);
    world.wait_cli("the divider moved 3 times", &["pane", "list"], |v| {
        let panes = v
            .as_array()
            .or(v["panes"].as_array())
            .cloned()
            .unwrap_or_default();
        let cols = pane_cols(&panes);
        // One step is one cell (give or take the ratio's rounding): more than one moved.
        cols.len() == 2 && cols[0] + 2 <= before[0]
    });
    world.literal("echo rig''ht-one");
    world.keys(&["Enter"]);
    world.wait("typed right", |s| s.contains("right-one"));

    // C-b q shows the numbers; 0 jumps to the left pane.
    world.keys(&["C-b", "q"]);
    world.keys(&["0"]);
    world.wait("the left pane focused", |s| {
        s.lines()
            .nth(1)
            .is_some_and(|l| l.find('▶').is_some_and(|at| at < 30))
    });
    // C-b ; back to the right one.
    // (tmux takes a bare `;` argument as its command separator: `\;` is the key.)
    world.keys(&["C-b", "\\;"]);
    world.wait("the last pane", |s| {
        s.lines()
            .nth(1)
            .is_some_and(|l| l.find('▶').is_some_and(|at| at > 30))
    });
    // C-b { swaps: the right pane's text moves to the left.
    world.keys(&["C-b", "{"]);
    world.wait("swapped", |s| {
        s.lines()
            .any(|l| l.find("right-one").is_some_and(|at| at < 30))
    });

    // A new tab, then the picker: filtered by typing, Enter goes back to the first tab.
    world.keys(&["C-b", "c"]);
    world.wait("the second tab", |s| s.contains("2:sh proj*"));
    world.keys(&["C-b", "w"]);
    world.wait("the picker", |s| s.contains("choose"));
    world.literal("1:sh");
    world.keys(&["Enter"]);
    world.wait("the first tab from the picker", |s| {
        s.contains("1:sh proj*") && s.contains("right-one")
    });

    // A pane killed by SIGSEGV says so.
    world.literal("exec sh -c 'kill -SEGV $$'");
    world.keys(&["Enter"]);
    world.wait("killed by SIGSEGV", |s| s.contains("killed by SIGSEGV"));
}
