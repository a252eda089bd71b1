//! End to end: `pane spawn --size COLSxROWS` with the real binaries. Needs
//! `cargo build -p signaltty-server` first (see tests/common).

mod common;

use common::TestEnv;

#[test]
fn spawn_takes_a_size_in_the_form_get_prints_and_the_program_sees_it() {
    let env = TestEnv::new();
    let ws = env.workspace("sizes");
    let spawned = env.json(&[
        "pane",
        "spawn",
        &ws,
        "--size",
        "120x40",
        "--",
        "/bin/sh",
        "-c",
        "stty size; exec cat",
    ]);
    let pane = spawned["pane"]["id"].as_str().expect("pane id").to_string();
    assert_eq!(spawned["pane"]["cols"], 120, "{spawned}");
    assert_eq!(spawned["pane"]["rows"], 40, "{spawned}");
    // The program itself was started on a 120×40 terminal.
    let screen = common::wait_for("stty output", std::time::Duration::from_secs(20), || {
        let text = env.ok(&["pane", "read", &pane]);
        text.contains("40 120").then_some(text)
    });
    assert!(screen.contains("40 120"), "{screen}");
    // Clamped by the server like any size.
    let clamped = env.json(&["pane", "spawn", &ws, "--size", "9999x1", "--", "/bin/cat"]);
    assert_eq!(
        (&clamped["pane"]["cols"], &clamped["pane"]["rows"]),
        (&serde_json::json!(500), &serde_json::json!(5))
    );
    let bad = env.fails(
        &["pane", "spawn", &ws, "--size", "wide", "--", "/bin/cat"],
        2,
    );
    assert!(bad.stderr.contains("COLSxROWS"), "{bad:?}");
}
