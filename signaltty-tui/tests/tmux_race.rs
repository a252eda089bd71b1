//! A race from the TUI, end to end: the real `signaltty-tui` in a tmux window (tmux keys) on a
//! real repository, the real server started on demand, and fake agents — a bash script on the
//! server's PATH as `claude` that fires the real hook events through `signaltty hook-event`. The
//! race is started from the command prompt (`race-start claude -n 3 -- …`); the race view shows
//! the entries, the one blocked on a permission is answered there with `y`, and every entry
//! gets the task exactly once, never before its agent said it was ready. Drawn at 200×50 and
//! 80×24.
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

#[test]
fn a_race_of_three_started_and_followed_in_the_tui() {
    let world = World::with_keys("tmux");
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
    std::fs::write(ctrl.join("ask-2"), "").unwrap();

    // The server the TUI starts inherits this PATH, and so do its panes.
    let tui = format!(
        "env PATH={}:/usr/bin:/bin {}",
        fake.display(),
        bin("signaltty-tui").display()
    );
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
