//! Attention outside the TUI, end to end: the real `signaltty-tui` in a tmux window (the outer
//! terminal, its output recorded with `pipe-pane`) against the real server. A pane on a tab
//! not shown rings its bell and prints an OSC 777 notification: the tab bar flags that tab
//! (`!` attention, `#` activity), the outer terminal gets a bell and the OSC 9 / OSC 777
//! desktop notification, tmux flags the TUI's window with the bell, the outer title names the
//! workspace, and Enter in the notification list (`C-b N`) goes to the pane.
//!
//! Needs the binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{World, bin};

#[test]
fn a_bell_and_a_notification_reach_the_outer_terminal_and_the_list_goes_there() {
    let world = World::with_keys("tmux");
    world.start(200, 50, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    let log = world.path("outer.log");
    assert!(
        world
            .tmux(&[
                "pipe-pane",
                "-O",
                "-t",
                "t:0",
                &format!("cat >> {}", log.display()),
            ])
            .status
            .success()
    );
    world.literal(&format!(
        "{}; echo \"tui exited $?\"",
        bin("signaltty-tui").display()
    ));
    world.keys(&["Enter"]);
    world.wait("the TUI", |s| s.contains("[proj]") && s.contains("1:"));
    let title = |world: &World| {
        String::from_utf8_lossy(
            &world
                .tmux(&["display", "-p", "-t", "t:0", "#{pane_title}"])
                .stdout,
        )
        .into_owned()
    };
    assert!(
        title(&world).contains("signaltty [proj]"),
        "{}",
        title(&world)
    );

    // Tab 1's shell waits for a line, then rings and notifies.
    world.literal("read x; printf '\\a\\033]777;notify;build;all green\\007'");
    world.keys(&["Enter"]);
    let pane = world.panes()[0]["id"].as_str().unwrap().to_owned();
    world.keys(&["C-b", "c"]);
    world.wait("the second tab", |s| s.contains("2:sh proj*"));
    // The TUI's tmux window is no longer the current one: tmux flags a bell there.
    assert!(
        world
            .tmux(&["new-window", "-t", "t:1", "sh"])
            .status
            .success()
    );
    world.cli(&["pane", "send", &pane, "go"]);
    let window_bell = |world: &World| {
        String::from_utf8_lossy(
            &world
                .tmux(&["display", "-p", "-t", "t:0", "#{window_bell_flag}"])
                .stdout,
        )
        .trim()
            == "1"
    };
    let screen = |world: &World| {
        String::from_utf8_lossy(&world.tmux(&["capture-pane", "-p", "-t", "t:0"]).stdout)
            .into_owned()
    };
    let deadline = std::time::Instant::now() + common::WAIT;
    loop {
        let s = screen(&world);
        let logged = std::fs::read(&log).unwrap_or_default();
        let logged = String::from_utf8_lossy(&logged);
        if s.contains("1:sh proj-!#")
            && logged.contains("\x1b]9;build: all green\x07")
            && logged.contains("\x1b]777;notify;build;all green\x07")
            && window_bell(&world)
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no alert; bell flag {}; screen:\n{s}\nlogged: {:?}",
            window_bell(&world),
            logged.chars().rev().take(300).collect::<String>()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(world.tmux(&["select-window", "-t", "t:0"]).status.success());

    // The notification list: Enter goes to the pane it came from.
    // (Once, under a loaded machine, the first `C-b N` after switching tmux windows did not
    // open the list; the keys are sent again if it is not there within 10 s, and the test
    // says so on stderr: a lost key would be a bug of its own, not of the list.)
    let open = |s: &str| s.contains("all green") && s.contains("Enter: go to");
    let mut tries = 0;
    loop {
        world.keys(&["C-b", "N"]);
        tries += 1;
        if world
            .wait_within(std::time::Duration::from_secs(10), open)
            .is_ok()
        {
            break;
        }
        assert!(
            tries < 3,
            "the list never opened; screen:\n{}",
            world.screen()
        );
        eprintln!("C-b N did not open the list; sending it again");
    }
    world.keys(&["Enter"]);
    world.wait("the pane's tab", |s| {
        s.contains("1:sh proj*") && !s.contains("Enter: go to")
    });
}
