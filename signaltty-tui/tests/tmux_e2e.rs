//! End to end as a newcomer uses it: the real `signaltty-tui` binary inside a tmux window,
//! against the real `signaltty-server` (started on demand by the TUI) in a temp dir, driven
//! with `tmux send-keys` and read with `tmux capture-pane -p`. A fake agent — a shell script in
//! a pane spawned from the TUI's spawn form — raises a permission request through the real
//! `signaltty hook-event`, and a click on its option answers it. A shell command that pushes
//! the kitty keyboard flags then reads a line shows that Esc reaches it as `CSI 27 u`.
//!
//! Needs the binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.
//! Mouse: tmux cannot click for us, but a terminal's mouse report is only bytes on the TUI's
//! input, so the divider drag and the option click are sent as the SGR reports a terminal would
//! send.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

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

#[test]
fn a_newcomer_splits_types_answers_an_agent_survives_a_restart_and_quits_cleanly() {
    let world = World::new();
    let agent = fake_agent(&world);
    world.start(120, 40, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    let run_tui = format!(
        "stty -a > {before}; {tui}; echo \"tui exited $?\"; stty -a > {after}",
        before = world.path("stty.before").display(),
        after = world.path("stty.after").display(),
        tui = bin("signaltty-tui").display(),
    );
    world.literal(&run_tui);
    world.keys(&["Enter"]);

    // The TUI opens on a shell in the current directory (the server started on demand).
    world.wait("the TUI with a shell", |s| {
        s.contains("NORMAL") && s.contains("▾ proj") && s.contains("▶○ sh")
    });

    // The shell runs in the current directory (the tmux window's, where the TUI was started).
    let proj = std::fs::canonicalize(world.path("proj")).unwrap();
    world.keys(&["i"]);
    world.literal("echo \"cwd=$PWD\"");
    world.keys(&["Enter", "C-a"]);
    world.wait("the shell's cwd", |s| {
        s.contains(&format!("cwd={}", proj.display())) && s.contains("NORMAL")
    });

    // Split, then type into the new pane and see the echo.
    world.keys(&["%"]);
    world.wait_cli("two panes", &["pane", "list"], |v| {
        v.as_array()
            .or(v["panes"].as_array())
            .is_some_and(|a| a.len() == 2)
    });
    // Type only once the TUI shows the split with the new (right) pane focused: keys typed
    // before would go to the first pane, or be split between the two.
    world.wait("the split drawn, the new pane focused", |s| {
        let bars = bars(s, 10);
        let titles: Vec<char> = s.lines().nth(1).unwrap_or("").chars().collect();
        bars.len() == 2 && titles.iter().skip(bars[1]).any(|c| *c == '▶')
    });
    world.keys(&["i"]);
    world.literal("echo hel''lo-from-tui");
    world.keys(&["Enter", "C-a"]);
    world.wait("the echo", |s| {
        s.contains("hello-from-tui") && s.contains("NORMAL")
    });

    // A program that pushes the kitty keyboard flags (disambiguate) gets Esc as `CSI 27 u`:
    // the TUI encodes keys by the pane's own protocol, which its model tracked.
    world.keys(&["i"]);
    // The key is sent only once the TUI has drawn output that followed the push.
    world.literal("printf '\\033[>1u'; echo kit''ty-on; head -n1 | od -c");
    world.keys(&["Enter"]);
    world.wait("the flags pushed", |s| s.contains("kitty-on"));
    world.keys(&["Escape"]);
    // Enter only once the pane's tty echoed the Esc: an Esc and a CR read together are Alt-Enter
    // to any terminal parser (the TUI's too), and `head` would never see its line.
    world.wait("the Esc echoed by the pane's tty", |s| s.contains("^[[27u"));
    world.keys(&["Enter"]);
    world.wait("Esc in the kitty protocol", |s| {
        s.contains("033   [   2   7   u")
    });
    world.literal("printf '\\033[<u'");
    world.keys(&["Enter", "C-a"]);
    world.wait("Normal mode again", |s| s.contains("NORMAL"));

    // Drag the divider: press on it, move 10 columns left, release (SGR mouse reports).
    let screen = world.screen();
    let row = screen.lines().nth(10).unwrap();
    let divider_col = row
        .chars()
        .enumerate()
        .filter(|(_, c)| *c == '│')
        .map(|(i, _)| i)
        .nth(1)
        .expect("divider on row 10");
    let (x, y) = (divider_col + 1, 11);
    world.literal(&format!(
        "\x1b[<0;{x};{y}M\x1b[<32;{};{y}M\x1b[<0;{};{y}m",
        x - 10,
        x - 10
    ));
    let narrowed = world.wait_cli("the left pane narrower", &["pane", "list"], |v| {
        let panes = v
            .as_array()
            .or(v["panes"].as_array())
            .cloned()
            .unwrap_or_default();
        panes
            .iter()
            .any(|p| p["cols"].as_u64().is_some_and(|c| c < 40))
    });
    let _ = narrowed;

    // Spawn the fake agent from the spawn form; its permission request shows with its options;
    // a click on `[1]` (a mouse report, as for the divider) answers it.
    world.keys(&["s"]);
    world.wait("the spawn form", |s| s.contains("spawn a pane"));
    world.literal(&format!("sh {}", agent.display()));
    world.keys(&["Enter"]);
    world.wait("the permission request", |s| {
        s.contains("Allow") && s.contains("[1]") && s.contains("waiting")
    });
    let screen = world.screen();
    let (y, x) = screen
        .lines()
        .enumerate()
        .find_map(|(y, line)| {
            let at = line.find("[1] ")?;
            Some((y + 1, line[..at].chars().count() + 2))
        })
        .expect("option [1] on screen");
    world.literal(&format!("\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m"));
    world.wait("the verdict in the agent's pane", |s| {
        s.contains("verdict:") && !s.contains("[1] ")
    });
    let verdict = std::fs::read_to_string(world.path("verdict")).unwrap();
    assert!(verdict.contains("allow"), "{verdict}");

    // Switch tabs: `1` shows the first tab (its split, the echo), `g t` the agent's again.
    world.keys(&["1"]);
    world.wait("the first tab", |s| {
        s.contains("hello-from-tui") && !s.contains("verdict:")
    });
    world.keys(&["g", "t"]);
    world.wait("the agent's tab again", |s| {
        s.contains("verdict:") && !s.contains("hello-from-tui")
    });

    // Resize the outer terminal: the visible panes follow.
    world.tmux(&["resize-window", "-t", "t", "-x", "100", "-y", "30"]);
    world.wait_cli("the agent pane resized", &["pane", "list"], |v| {
        let panes = v
            .as_array()
            .or(v["panes"].as_array())
            .cloned()
            .unwrap_or_default();
        panes
            .iter()
            .any(|p| p["cols"].as_u64() == Some(72) && p["rows"].as_u64() == Some(27))
    });

    // Kill the server: "reconnecting…", then the TUI starts a new one and shows the same layout.
    let before_tabs = world.panes().len();
    let stop = Command::new(bin("signaltty"))
        .arg("--socket")
        .arg(&world.socket)
        .args(["server", "stop", "--force"])
        .output()
        .unwrap();
    assert!(stop.status.success(), "{stop:?}");
    world.wait("reconnecting…", |s| s.contains("reconnecting…"));
    world.wait("recovery", |s| {
        !s.contains("reconnecting…") && s.contains("NORMAL") && s.contains("2:")
    });
    assert_eq!(
        world.panes().len(),
        before_tabs,
        "the same panes after the restart"
    );

    // Show the first tab before quitting and remember it: coming back must show it the same.
    world.keys(&["1"]);
    let first_tab = world.wait("the first tab after the restart", |s| {
        s.contains("hello-from-tui") && s.contains("cwd=") && !s.contains("verdict:")
    });
    // Since the restart no pane has a process (restored / resumable), so none is resized: the
    // sizes read now are the ones coming back must find.
    let sizes_before = sizes_of(&world.cli(&["pane", "list"]));
    assert_eq!(sizes_before.len(), 3, "{sizes_before:?}");

    // Quit: back at the shell, with the terminal exactly as before.
    world.keys(&["q"]);
    world.wait("the TUI gone", |s| s.contains("tui exited 0"));
    world.wait("stty after", |_| {
        world.path("stty.after").exists()
            && std::fs::metadata(world.path("stty.after")).unwrap().len() > 0
    });
    // The first line carries the window size, which the resize above changed on purpose.
    let settings = |name: &str| {
        let text = std::fs::read_to_string(world.path(name)).unwrap();
        text.lines().skip(1).collect::<Vec<_>>().join("\n")
    };
    assert!(
        settings("stty.before").contains("icanon"),
        "{}",
        settings("stty.before")
    );
    assert_eq!(
        settings("stty.before"),
        settings("stty.after"),
        "stty -a differs after quitting"
    );

    // Come back: the same layout — the first tab in front, its split at the dragged ratio,
    // the same pane focused, both tabs in the bar, every pane the same size.
    world.literal(&format!(
        "{}; echo \"tui exited $?\"",
        bin("signaltty-tui").display()
    ));
    world.keys(&["Enter"]);
    world.wait("the TUI again with the same layout", |s| {
        s.contains("1:")
            && s.contains("2:")
            && s.contains("NORMAL")
            && s.contains("hello-from-tui")
            && s.lines().nth(1) == first_tab.lines().nth(1)
            && bars(s, 10) == bars(&first_tab, 10)
    });
    world.wait_cli("every pane the same size again", &["pane", "list"], |v| {
        sizes_of(v) == sizes_before
    });
    world.keys(&["q"]);
    world.wait("the TUI gone again", |s| {
        s.matches("tui exited 0").count() >= 2 && !s.contains("NORMAL")
    });
}

/// The columns of the vertical borders on screen line `row` (0-based): where the dividers are.
fn bars(screen: &str, row: usize) -> Vec<usize> {
    screen
        .lines()
        .nth(row)
        .unwrap_or("")
        .chars()
        .enumerate()
        .filter(|(_, c)| *c == '│')
        .map(|(i, _)| i)
        .collect()
}

/// Every pane's id with its size, from a `pane list`.
fn sizes_of(list: &serde_json::Value) -> Vec<(String, u64, u64)> {
    let panes = list
        .as_array()
        .or(list["panes"].as_array())
        .cloned()
        .unwrap_or_default();
    let mut sizes: Vec<_> = panes
        .iter()
        .map(|p| {
            (
                p["id"].to_string(),
                p["cols"].as_u64().unwrap_or(0),
                p["rows"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    sizes.sort();
    sizes
}
