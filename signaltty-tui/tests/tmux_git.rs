//! The git views end to end, as a person uses them: the real `signaltty-tui` in a tmux window
//! on a real repository in a temp dir, the real server started on demand. `d` shows the
//! changed files and a file's hunks; a commit made outside the TUI refreshes the open view
//! by itself; the spawn form starts a pane in a new worktree on a new branch, with an env row
//! whose value has spaces, and the pane runs there with that value.
//!
//! Needs the binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

mod common;

use common::{World, bin, git};

#[test]
fn diff_view_and_a_new_agent_in_a_new_worktree() {
    let world = World::new();
    let proj = std::fs::canonicalize(world.path("proj")).unwrap();
    git(&proj, &["init", "-q", "-b", "main"]);
    std::fs::write(proj.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    git(&proj, &["add", "-A"]);
    git(&proj, &["commit", "-q", "-m", "init"]);
    std::fs::write(proj.join("a.txt"), "one\nTWO changed\nthree\n").unwrap();

    world.start(120, 32, &proj, &bin("signaltty-tui").display().to_string());
    world.wait("the TUI with a shell", |s| {
        s.contains("NORMAL") && s.contains("▾ proj") && s.contains("▶○ sh")
    });

    // The diff view: the file, its counts, its hunk with line numbers.
    world.keys(&["d"]);
    world.wait("the changed file and its hunk", |s| {
        s.contains("diff: proj (main)")
            && s.contains("M a.txt")
            && s.contains("+1 -1")
            && s.contains("@@ -1,3 +1,3 @@")
            && s.contains("    2       -two")
            && s.contains("          2 +TWO changed")
    });
    // A commit made elsewhere refreshes the open view (the server's watcher sees .git change).
    git(&proj, &["commit", "-q", "-am", "two"]);
    world.wait("the view refreshed by itself", |s| {
        s.contains("no changes against HEAD")
    });
    world.keys(&["q"]);
    world.wait("the view closed", |s| !s.contains("diff: proj"));

    // New agent in a new worktree: checkout → new worktree, a branch, a command, an env row.
    world.keys(&["s"]);
    world.wait("the spawn form", |s| s.contains("spawn a pane"));
    world.keys(&["Up", "Up", "Right", "Down"]);
    world.literal("agent-1");
    world.keys(&["Tab"]);
    world.literal("sh");
    world.keys(&["Tab", "Tab"]);
    world.literal("GREETING=hello big world");
    world.keys(&["Enter"]);
    let checkout = format!("{}-worktrees/agent-1", proj.display());
    world.wait("the new workspace, its pane focused", |s| {
        s.contains("▾ agent-1 agent-1") && s.contains("on new branch agent-1")
    });
    world.keys(&["i"]);
    world.literal("echo \"[$GREETING]\"; pwd");
    world.keys(&["Enter"]);
    world.wait("the pane runs in the worktree with the env value", |s| {
        s.contains("[hello big world]") && s.contains(&checkout)
    });
    assert!(Path::new(&checkout).join("a.txt").is_file());
}
