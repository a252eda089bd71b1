//! End to end with the real CLI and server: forty fake Claude panes (a script named `claude`
//! that records how it was started, answers typed lines and quits on `/exit`), their turns
//! reported through `signaltty hook-event`; half hibernated with `pane hibernate`, shown as
//! `hibernated` in `pane list`, costing nothing in `pane list --resources`; one woken by
//! `pane send` (the prompt reaches the resumed agent), one by `pane wake`; a shell refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use common::{TestEnv, wait_for};
use serde_json::Value;

const AGENTS: usize = 40;

fn fake_claude(env: &TestEnv) -> (String, std::path::PathBuf) {
    let record = env.dir.path().join("claude-runs.txt");
    let bin = env.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = bin.join("claude");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nprintf 'run %s\\n' \"$*\" >> '{}'\necho \"fake-claude $*\"\n\
             while IFS= read -r line; do\n\
               case \"$line\" in /exit) exit 0 ;; *) echo \"got-$line\" ;; esac\n\
             done\n",
            record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    (path.display().to_string(), record)
}

fn hook(env: &TestEnv, pane: &str, event: &str, session: &str) {
    let payload = format!(r#"{{"session_id":"{session}","hook_event_name":"{event}"}}"#);
    let run = env.run_with_stdin(
        &[
            "hook-event",
            "--agent",
            "claude",
            "--event",
            event,
            "--pane",
            pane,
        ],
        Some(payload.as_bytes()),
    );
    assert!(run.success(), "{run:?}");
}

fn pane(env: &TestEnv, id: &str) -> Value {
    env.json(&["pane", "get", id])
}

fn until_screen(env: &TestEnv, id: &str, needle: &str) {
    wait_for(
        &format!("{needle} in {id}"),
        Duration::from_secs(20),
        || {
            env.ok(&["pane", "read", id, "--scrollback"])
                .contains(needle)
                .then_some(())
        },
    );
}

#[test]
fn forty_agents_hibernate_show_up_as_such_and_wake_on_a_prompt() {
    let env = TestEnv::new();
    let (claude, record) = fake_claude(&env);
    let ws = env.workspace("agents");
    let mut ids = Vec::new();
    for i in 0..AGENTS {
        let id = env
            .ok(&["pane", "spawn", &ws, "--skip-hook-install", "--", &claude])
            .trim()
            .to_owned();
        ids.push((id, format!("sess-many-{i}")));
    }
    for (id, session) in &ids {
        until_screen(&env, id, "fake-claude");
        hook(&env, id, "UserPromptSubmit", session);
        hook(&env, id, "Stop", session);
        assert_eq!(pane(&env, id)["lifecycle"], "done");
    }

    let sleepers: Vec<&(String, String)> = ids.iter().step_by(2).collect();
    for (id, _) in &sleepers {
        env.ok(&["pane", "hibernate", id]);
    }
    let listed = env.json(&["pane", "list", "--workspace", &ws]);
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), AGENTS);
    let hibernated = listed
        .iter()
        .filter(|p| p["status"] == "hibernated")
        .count();
    assert_eq!(hibernated, AGENTS / 2);
    let table = env.ok(&["pane", "list", "--workspace", &ws]);
    assert!(table.contains("HIBERNATED"), "{table}");

    // Resources: the sleeping half holds no process, the rest do.
    let figures = env.json(&["pane", "list", "--workspace", &ws, "--resources"]);
    let panes = figures["panes"].as_array().unwrap();
    assert_eq!(panes.len(), AGENTS);
    for p in panes {
        let asleep = sleepers.iter().any(|(id, _)| p["pane_id"] == id.as_str());
        let rss = p["rss_bytes"].as_u64().unwrap();
        assert_eq!(rss == 0, asleep, "{p}");
    }
    assert_eq!(
        figures["workspaces"][0]["live_panes"].as_u64().unwrap() as usize,
        AGENTS / 2
    );
    let table = env.ok(&["pane", "list", "--workspace", &ws, "--resources"]);
    assert!(
        table.contains("RSS") && table.contains("server:"),
        "{table}"
    );

    // A prompt wakes one (its agent resumed with its session), `pane wake` another.
    let (first, first_session) = sleepers[0];
    env.ok(&["pane", "send", first, "prompt-after-sleep"]);
    until_screen(&env, first, "got-prompt-after-sleep");
    assert_eq!(pane(&env, first)["status"], "live");
    let (second, second_session) = sleepers[1];
    env.ok(&["pane", "wake", second]);
    assert_eq!(pane(&env, second)["status"], "live");
    let runs = std::fs::read_to_string(&record).unwrap();
    assert!(
        runs.contains(&format!("run --resume {first_session}\n")),
        "{runs}"
    );
    assert!(
        runs.contains(&format!("run --resume {second_session}\n")),
        "{runs}"
    );
    assert_eq!(runs.lines().count(), AGENTS + 2, "{runs}");

    // `pane close --exited` leaves the sleeping agents alone.
    env.ok(&["pane", "close", "--exited", "--workspace", &ws]);
    let listed = env.json(&["pane", "list", "--workspace", &ws]);
    assert_eq!(listed.as_array().unwrap().len(), AGENTS);

    // Waking a live pane and hibernating a shell are refused, and change nothing.
    let run = env.run(&["pane", "wake", second]);
    assert!(!run.success());
    assert!(run.stderr.contains("not hibernated"), "{run:?}");
    let shell = env
        .ok(&["pane", "spawn", &ws, "--", "/bin/sh"])
        .trim()
        .to_owned();
    let run = env.run(&["pane", "hibernate", &shell]);
    assert!(!run.success());
    assert!(run.stderr.contains("no known agent"), "{run:?}");
    assert_eq!(pane(&env, &shell)["status"], "live");
}
