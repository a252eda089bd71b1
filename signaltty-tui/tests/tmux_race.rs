//! A race from the TUI, end to end: the real `signaltty-tui` in a tmux window (tmux keys) on a
//! real repository, the real server started on demand, and fake agents — a bash script on the
//! server's PATH as `claude` that fires the real hook events through `signaltty hook-event`. The
//! race is started from the command prompt (`race-start claude -n 3 -- …`); the race view shows
//! the entries, the one blocked on a permission is answered there with `y`, and every entry
//! gets the task exactly once, never before its agent said it was ready. Drawn at 200×50 and
//! 80×24.
//!
//! Also: entry diffs, the matrix, a review comment reaching the agent, and a squash keep with
//! the other branch deleted; and a race started from the spawn form (a prompt of two lines).
//!
//! Needs the binaries next to the TUI's: `cargo build -p signaltty-server -p signaltty-cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{World, bin, git};

const FAKE_AGENT: &str = r#"#!/bin/bash
SIG="__SIG__"
CTRL="__CTRL__"
n=$(basename "$PWD" | sed -E 's/^race-[^-]+-([0-9]+)-.*$/\1/')
sid="sess-$n"
hook() {
  printf '%s' "$2" | "$SIG" hook-event --agent claude --event "$1" --pane "$SIGNALTTY_PANE" >/dev/null 2>&1
}
if [ -e "$CTRL/ask-$n" ]; then
  printf '%s' '{"hook_event_name":"PermissionRequest","session_id":"'$sid'","tool_name":"Bash","tool_input":{"command":"ls"}}' \
    | "$SIG" hook-event --agent claude --event PermissionRequest --pane "$SIGNALTTY_PANE" \
      --wait-for-answer --timeout 120 >/dev/null 2>&1
  if read -t 0; then echo early >> "$CTRL/early-$n"; fi
  hook Stop '{"hook_event_name":"Stop","session_id":"'$sid'"}'
else
  if read -t 0; then echo early >> "$CTRL/early-$n"; fi
  hook SessionStart '{"hook_event_name":"SessionStart","session_id":"'$sid'"}'
fi
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$CTRL/log-$n"
  hook UserPromptSubmit '{"hook_event_name":"UserPromptSubmit","session_id":"'$sid'"}'
  printf 'hello from %s\n' "$n" > "hello-$n.txt"
  hook Stop '{"hook_event_name":"Stop","session_id":"'$sid'"}'
done
"#;

/// A repository `proj` with one commit, the fake agent on a PATH of its own, and the control
/// directory it logs to.
fn setup(world: &World) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let proj = std::fs::canonicalize(world.path("proj")).unwrap();
    git(&proj, &["init", "-q", "-b", "main"]);
    std::fs::write(proj.join("README.md"), "hello\n").unwrap();
    git(&proj, &["add", "-A"]);
    git(&proj, &["commit", "-q", "-m", "init"]);
    let ctrl = world.path("ctrl");
    let fake = world.path("fake");
    std::fs::create_dir_all(&ctrl).unwrap();
    std::fs::create_dir_all(&fake).unwrap();
    let script = FAKE_AGENT
        .replace("__SIG__", bin("signaltty").to_str().unwrap())
        .replace("__CTRL__", ctrl.to_str().unwrap());
    let agent = fake.join("claude");
    std::fs::write(&agent, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The server the TUI starts inherits this PATH, and so do its panes.
    // Keeping commits in the base checkout: git needs an identity there.
    let tui = format!(
        "env PATH={}:/usr/bin:/bin GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com \
         GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com {}",
        fake.display(),
        bin("signaltty-tui").display()
    );
    (proj, ctrl, tui)
}

#[test]
fn a_race_compared_reviewed_and_kept_in_the_tui() {
    let world = World::with_keys("tmux");
    let (proj, ctrl, tui) = setup(&world);
    world.start(200, 50, &proj, &tui);
    world.wait("the TUI", |s| s.contains("proj") && s.contains("help"));
    world.keys(&["C-b", ":"]);
    world.literal("race-start claude -n 2 -- write hello");
    world.keys(&["Enter"]);
    world.wait("both turns ended", |s| {
        s.contains("Race race_") && s.matches("turn_ended").count() == 2
    });
    world.cli(&["race", "wait", "--timeout", "60"]);

    // Entry 1's diff against the base: its new file, then entry 2's with one key.
    world.keys(&["d"]);
    world.wait("entry 1's diff", |s| {
        s.contains("entry 1 (1/2) claude")
            && s.contains("hello-1.txt")
            && s.contains("+hello from 1")
    });
    world.keys(&["n"]);
    world.wait("entry 2's diff", |s| {
        s.contains("entry 2 (2/2) claude")
            && s.contains("hello-2.txt")
            && s.contains("+hello from 2")
    });
    // The matrix: each entry touched its own file.
    world.keys(&["m"]);
    let matrix = world.wait("the matrix", |s| {
        s.contains("FILE") && s.contains("hello-2.txt")
    });
    let row = matrix.lines().find(|l| l.contains("hello-1.txt")).unwrap();
    assert!(row.contains("+1/-0") && row.contains("·"), "{matrix}");
    world.keys(&["m", "p"]);
    world.wait("entry 1 again", |s| s.contains("entry 1 (1/2) claude"));

    // A comment on the added line (cursor: @@ row, then the line), sent to entry 1's agent.
    world.keys(&["J", "c"]);
    world.wait("the comment box", |s| {
        s.contains("comment on hello-1.txt:1")
    });
    world.literal("say hi louder");
    world.keys(&["Enter"]);
    world.wait("one comment pending", |s| s.contains("· 1 comment"));
    world.keys(&["l"]);
    world.wait("the comment listed", |s| {
        s.contains("hello-1.txt:1: say hi louder")
    });
    world.keys(&["s"]);
    world.wait("sent", |s| s.contains("comment(s) sent to entry 1"));
    let log = ctrl.join("log-1");
    let second = |_: &str| {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count()
            >= 2
    };
    world
        .wait_within(std::time::Duration::from_secs(60), second)
        .expect("the review typed into entry 1's agent");
    let text = std::fs::read_to_string(&log).unwrap();
    let review = text.lines().nth(1).unwrap();
    assert!(review.contains("hello-1.txt:1: say hi louder"), "{review}");
    world.cli(&["race", "wait", "--timeout", "60"]);

    // Keep entry 1 by squash, the other branch deleted, after the explicit confirmation; at
    // 80×24.
    assert!(
        world
            .tmux(&["resize-window", "-t", "t", "-x", "80", "-y", "24"])
            .status
            .success()
    );
    world.keys(&["q"]);
    world.wait("the race view", |s| s.contains("Race race_"));
    world.keys(&["K", "s", "b", "Enter"]);
    world.wait("the confirmation", |s| {
        s.contains("Keep entry 1 into main by squash?")
    });
    world.keys(&["y"]);
    world.wait("kept", |s| s.contains("kept entry 1: main now at"));
    let out = std::process::Command::new("git")
        .args(["show", "--stat", "--format=%s", "HEAD"])
        .current_dir(&proj)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("hello-1.txt"), "{shown}");
    let branches = std::process::Command::new("git")
        .args(["branch", "--list", "race/*"])
        .current_dir(&proj)
        .output()
        .unwrap();
    let branches = String::from_utf8_lossy(&branches.stdout);
    assert!(
        !branches.contains("-2-"),
        "entry 2's branch deleted: {branches}"
    );
}

#[test]
fn a_race_of_three_started_and_followed_in_the_tui() {
    let world = World::with_keys("tmux");
    let (proj, ctrl, tui) = setup(&world);
    std::fs::write(ctrl.join("ask-2"), "").unwrap();

    world.start(200, 50, &proj, &tui);
    world.wait("the TUI", |s| s.contains("proj") && s.contains("help"));

    world.keys(&["C-b", ":"]);
    world.literal("race-start claude -n 3 -- write hello");
    world.keys(&["Enter"]);
    let screen = world.wait("the race view with a blocked entry", |s| {
        s.contains("Race race_")
            && s.contains("“write hello”")
            && s.matches("turn_ended").count() == 2
            && s.contains("⚠ Allow Bash")
    });
    let blocked = screen.lines().find(|l| l.contains("⚠ Allow Bash")).unwrap();
    assert!(blocked.contains(" 2  claude   starting"), "{screen}");
    assert!(!ctrl.join("log-2").exists(), "typed into a blocked agent");

    // Answer entry 2's permission from the view: its task follows.
    world.keys(&["j"]);
    world.keys(&["y"]);
    world.wait("every turn ended", |s| s.matches("turn_ended").count() == 3);
    let race = world.cli(&["race", "wait", "--timeout", "60"]);
    for e in race["entries"].as_array().unwrap() {
        let n = e["index"].as_u64().unwrap();
        assert_eq!(e["turns"], 1, "{race}");
        assert_eq!(e["files_changed"], 1, "{race}");
        assert_eq!(
            std::fs::read_to_string(ctrl.join(format!("log-{n}"))).unwrap(),
            "write hello\n"
        );
        assert!(
            !ctrl.join(format!("early-{n}")).exists(),
            "entry {n}: early input"
        );
    }

    // The small terminal still shows the entries; Esc closes the view.
    assert!(
        world
            .tmux(&["resize-window", "-t", "t", "-x", "80", "-y", "24"])
            .status
            .success()
    );
    world.wait("the view at 80×24", |s| {
        s.contains("Race race_") && s.matches("turn_ended").count() == 3
    });
    world.keys(&["Escape"]);
    world.wait("the view closed", |s| !s.contains("Race race_"));
}

#[test]
fn a_race_started_from_the_spawn_form() {
    let world = World::with_keys("tmux");
    let (proj, ctrl, tui) = setup(&world);
    world.start(80, 24, &proj, &tui);
    world.wait("the TUI", |s| s.contains("proj") && s.contains("help"));
    // The spawn form; the race is its last checkout choice (left of the current checkout).
    world.keys(&["C-b", "A"]);
    world.wait("the spawn form", |s| s.contains("spawn a pane"));
    world.keys(&["Up", "Up", "Left"]);
    world.wait("the race rows", |s| {
        s.contains("start a race") && s.contains("agents") && s.contains("prompt")
    });
    world.keys(&["Tab", "C-u"]);
    world.literal("claude");
    world.keys(&["Tab"]);
    world.literal("2");
    world.keys(&["Tab", "Tab", "Tab"]);
    world.literal("write hello");
    world.keys(&["C-j"]);
    world.literal("then stop");
    world.wait("the prompt of two lines", |s| {
        s.contains("write hello↵then stop")
    });
    world.keys(&["Enter"]);
    world.wait("the race view", |s| {
        s.contains("Race race_") && s.contains("“write hello”")
    });
    let race = world.cli(&["race", "wait", "--timeout", "60"]);
    let entries = race["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{race}");
    for e in entries {
        assert_eq!(e["agent"], "claude", "{race}");
        let n = e["index"].as_u64().unwrap();
        let log = std::fs::read_to_string(ctrl.join(format!("log-{n}"))).unwrap();
        assert!(log.starts_with("write hello"), "entry {n}: {log:?}");
    }
    assert_eq!(race["prompt"], "write hello\nthen stop", "{race}");
    // At 200×50 the view shows both entries' turns ended.
    assert!(
        world
            .tmux(&["resize-window", "-t", "t", "-x", "200", "-y", "50"])
            .status
            .success()
    );
    world.wait("both turns ended at 200×50", |s| {
        s.matches("turn_ended").count() == 2
    });
}
