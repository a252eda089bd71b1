//! Dead panes brought back, end to end in tmux: a shell killed by SIGSEGV says so on its title
//! row with the key to press, `R` typed in it respawns it; two dead panes come back with one
//! `C-b M-r` (resume-all for the workspace).
//!
//! Needs the binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{World, bin};

fn live(world: &World) -> usize {
    world
        .panes()
        .iter()
        .filter(|p| {
            p["status"]
                .as_str()
                .is_some_and(|s| s.eq_ignore_ascii_case("live"))
        })
        .count()
}

#[test]
fn a_crashed_pane_respawns_with_r_and_resume_all_brings_back_every_dead_pane() {
    let world = World::with_keys("tmux");
    world.start(200, 50, &world.path("proj"), "sh");
    world.wait("the outer shell", |s| s.contains('$'));
    world.literal(&format!(
        "{}; echo \"tui exited $?\"",
        bin("signaltty-tui").display()
    ));
    world.keys(&["Enter"]);
    world.wait("the TUI", |s| s.contains("[proj]") && s.contains("1:"));

    world.literal("exec sh -c 'kill -SEGV $$'");
    world.keys(&["Enter"]);
    world.wait("the crash and the key", |s| {
        s.contains("killed by SIGSEGV") && s.contains("R: respawn")
    });
    world.keys(&["R"]);
    world.wait("respawned", |s| !s.contains("killed by SIGSEGV"));
    world.literal("echo back''-again");
    world.keys(&["Enter"]);
    world.wait("typing reaches the new shell", |s| s.contains("back-again"));

    // Two dead panes (split, then both shells exit), one key.
    world.keys(&["C-b", "%"]);
    world.wait_cli("two panes", &["pane", "list"], |v| {
        v.as_array()
            .or(v["panes"].as_array())
            .is_some_and(|a| a.len() == 2)
    });
    world.literal("exit 3");
    world.keys(&["Enter"]);
    world.wait("the right one exited", |s| s.contains("(exited 3)"));
    world.keys(&["C-b", "Left"]);
    world.literal("exit 4");
    world.keys(&["Enter"]);
    world.wait("both exited", |s| {
        s.contains("(exited 4)") && s.contains("(exited 3)")
    });
    assert_eq!(live(&world), 0);
    world.keys(&["C-b", "M-r"]);
    world.wait("resuming", |s| s.contains("resuming 2 panes"));
    world.wait("both back", |s| !s.contains("(exited"));
    assert_eq!(live(&world), 2);
}
