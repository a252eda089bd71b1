//! Claude fires no hook when the user interrupts it; signaltty reads the interruption from the
//! transcript every hook names (`transcript_path`). Hooks as the real Claude 2.1.332 sends them
//! (`tests/real_claude.rs` runs the agent itself), a transcript written as Claude writes it.

mod common;

use std::io::Write;

use common::{TestEnv, WAIT, wait_for};
use serde_json::{Value, json};

fn pane_state(env: &TestEnv, pane: &str) -> (String, String, String) {
    let v = env.json(&["pane", "get", pane]);
    let p = if v.get("pane").is_some() {
        &v["pane"]
    } else {
        &v
    };
    let s = |k: &str| p[k].as_str().unwrap_or("").to_owned();
    (s("lifecycle"), s("attention"), s("last_message"))
}

fn hook(env: &TestEnv, pane: &str, event: &str, payload: &Value) {
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
        Some(payload.to_string().as_bytes()),
    );
    assert!(run.success(), "{run:?}");
}

/// A pane standing in for Claude's (its hooks are sent by hand).
fn sleeping_pane(env: &TestEnv) -> String {
    let ws = env.workspace("t");
    env.json(&["pane", "spawn", &ws, "--", "sleep", "600"])["pane"]["id"]
        .as_str()
        .expect("pane id")
        .to_owned()
}

#[test]
fn an_interruption_in_the_transcript_makes_a_busy_pane_idle() {
    let env = TestEnv::new();
    let pane = sleeping_pane(&env);
    let transcript = env.dir.path().join("session.jsonl");
    // An interruption from an earlier turn is already there: it must not count.
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"[Request interrupted by user]\"}]}}\n",
    )
    .expect("transcript");
    let base = json!({"session_id": "s1", "transcript_path": transcript, "cwd": env.dir_str()});
    let mut prompt = base.clone();
    prompt["prompt"] = json!("talk forever");
    hook(&env, &pane, "UserPromptSubmit", &prompt);
    let mut ask = base.clone();
    ask["tool_name"] = json!("Bash");
    ask["tool_input"] = json!({"command": "ls"});
    hook(&env, &pane, "PermissionRequest", &ask);
    assert_eq!(pane_state(&env, &pane).0, "blocked");

    // More transcript, no interruption: still blocked, with its ask.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .expect("append");
    writeln!(
        file,
        "{{\"type\":\"assistant\",\"message\":{{\"content\":[]}}}}"
    )
    .expect("write");
    let (l, a, m) = pane_state(&env, &pane);
    assert_eq!(
        (l.as_str(), a.as_str(), m.as_str()),
        ("blocked", "permission_required", "Allow Bash? ls")
    );

    // The user pressed Esc in Claude's dialog.
    writeln!(
        file,
        "{{\"type\":\"user\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"[Request interrupted by user for tool use]\"}}]}}}}"
    )
    .expect("write");
    wait_for("the pane to show the interruption", WAIT, || {
        let (l, a, m) = pane_state(&env, &pane);
        (l == "idle" && a == "none" && m == "interrupted").then_some(())
    });
    let decisions = env.json(&["decision", "list"]);
    assert_eq!(decisions, json!([]), "the decision was settled");

    // The next prompt works as usual, and the old interruption does not end it.
    hook(&env, &pane, "UserPromptSubmit", &prompt);
    assert_eq!(pane_state(&env, &pane).0, "working");
}

/// A fresh HOME: Claude names its transcript at SessionStart before it has made the directory,
/// and writes into it only once the prompt is sent. The interruption is seen all the same.
#[test]
fn a_transcript_whose_directory_comes_later_is_still_read() {
    let env = TestEnv::new();
    let pane = sleeping_pane(&env);
    let dir = env.dir.path().join("projects/-tmp-project");
    let transcript = dir.join("session.jsonl");
    let base = json!({"session_id": "s1", "transcript_path": transcript, "cwd": env.dir_str()});
    hook(&env, &pane, "SessionStart", &base);
    let mut prompt = base.clone();
    prompt["prompt"] = json!("talk forever");
    hook(&env, &pane, "UserPromptSubmit", &prompt);
    assert_eq!(pane_state(&env, &pane).0, "working");

    // Only now does Claude make the directory and write the turn, then the user presses Esc.
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":{\"content\":\"talk forever\"}}\n\
         {\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"[Request interrupted by user]\"}]}}\n",
    )
    .expect("transcript");
    wait_for("the pane to show the interruption", WAIT, || {
        let (l, a, m) = pane_state(&env, &pane);
        (l == "idle" && a == "none" && m == "interrupted").then_some(())
    });
}
