//! End to end: the agent-facing commands (`hook-event`, `notify`, `decision`) with the real
//! binaries. Needs `cargo build -p signaltty-server` first (see tests/common).

mod common;

use common::TestEnv;

#[test]
fn hook_event_without_a_server_is_silent_and_exits_0() {
    let env = TestEnv::new();
    let payload = br#"{"session_id":"s1","hook_event_name":"Stop"}"#;
    for extra in [&[][..], &["--wait-for-answer", "--timeout", "1"][..]] {
        let mut args = vec!["hook-event", "--agent", "claude", "--event", "Stop"];
        args.extend_from_slice(extra);
        let run = env.run_with_stdin(&args, Some(payload));
        assert_eq!(run.code, Some(0), "{run:?}");
        assert_eq!(run.stdout, "", "stdout stays empty");
        assert!(run.stderr.contains("no server running"), "{run:?}");
    }
    assert!(!env.socket.exists(), "hook-event must never start a server");
}

#[test]
fn hook_event_with_bad_arguments_still_exits_0() {
    let env = TestEnv::new();
    let unknown_flag = env.run_with_stdin(&["hook-event", "--frobnicate"], Some(b"{}"));
    assert_eq!(unknown_flag.code, Some(0), "{unknown_flag:?}");
    assert_eq!(unknown_flag.stdout, "");
    let unknown_agent = env.run_with_stdin(
        &["hook-event", "--agent", "hal9000", "--event", "Stop"],
        Some(b"{}"),
    );
    assert_eq!(unknown_agent.code, Some(0), "{unknown_agent:?}");
    assert_eq!(unknown_agent.stdout, "");
    assert!(
        unknown_agent.stderr.contains("hal9000"),
        "{unknown_agent:?}"
    );
}

#[test]
fn hook_event_with_a_server_prints_nothing() {
    let env = TestEnv::new();
    env.ok(&["server", "start"]);
    let run = env.run_with_stdin(
        &["hook-event", "--agent", "claude", "--event", "Stop"],
        Some(br#"{"session_id":"s1"}"#),
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "", "{run:?}");
    assert_eq!(
        run.stderr, "",
        "an event that maps to no pane is accepted: {run:?}"
    );
}

#[test]
fn notifications_are_raised_listed_and_marked_read() {
    let env = TestEnv::new();
    let n = env.json(&[
        "notify",
        "--title",
        "build",
        "--severity",
        "warning",
        "tests",
        "failed",
    ]);
    let id = n["id"].as_str().expect("id").to_string();
    assert!(id.starts_with("notif_"), "{n}");
    assert_eq!(n["severity"], "warning");
    assert_eq!(n["body"], "tests failed");
    let unread = env.json(&["notifications", "--unread"]);
    assert_eq!(unread[0]["id"], id.as_str(), "{unread}");
    let marked = env.json(&["mark-read", "--id", &id]);
    assert_eq!(marked["marked"], 1);
    let after = env.json(&["notifications", "--unread"]);
    assert!(after.as_array().is_some_and(|a| a.is_empty()), "{after}");
}

#[test]
fn answering_an_unknown_decision_says_so() {
    let env = TestEnv::new();
    let ws = env.workspace("decisions");
    let pane = env.json(&["pane", "spawn", &ws, "--", "sleep", "600"]);
    let pane = pane["pane"]["id"].as_str().expect("pane id").to_string();
    let listed = env.json(&["decision", "list"]);
    assert!(listed.as_array().is_some_and(|a| a.is_empty()), "{listed}");
    let stale = env.fails(&["decision", "answer", &pane, "dec_nope", "once"], 1);
    assert!(stale.stderr.contains("(NO_SUCH_DECISION)"), "{stale:?}");
}

#[test]
fn pane_notification_and_decision_listings_are_valid_json() {
    let env = TestEnv::new();
    env.workspace("listings");
    for args in [
        &["pane", "list"][..],
        &["notifications"][..],
        &["decision", "list"][..],
    ] {
        let value = env.json(args);
        assert!(value.is_array(), "{args:?}: {value}");
    }
}
