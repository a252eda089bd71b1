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
    let screen = common::wait_for("stty output", common::WAIT, || {
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

#[test]
fn spawn_and_resize_accept_and_refuse_the_same_sizes() {
    let env = TestEnv::new();
    let ws = env.workspace("one-parser");
    let spawned = env.json(&["pane", "spawn", &ws, "--size", "100×30", "--", "/bin/cat"]);
    let pane = spawned["pane"]["id"].as_str().expect("pane id").to_string();
    assert_eq!(
        (&spawned["pane"]["cols"], &spawned["pane"]["rows"]),
        (&serde_json::json!(100), &serde_json::json!(30))
    );
    for bad in ["0x10", "10x0", "120", "12x4x3", "+1x5", "4294967296x1"] {
        let spawn = env.fails(&["pane", "spawn", &ws, "--size", bad, "--", "/bin/cat"], 2);
        let resize = env.fails(&["pane", "resize", &pane, bad], 2);
        for run in [&spawn, &resize] {
            assert!(
                run.stderr.contains("COLSxROWS such as 120x40"),
                "{bad}: {run:?}"
            );
        }
    }
    // The two-word form of resize goes through the same parser.
    env.fails(&["pane", "resize", &pane, "120x40", "40"], 2);
    env.fails(&["pane", "resize", &pane, "120", "0"], 2);
    let got = env.json(&["pane", "get", &pane]);
    assert_eq!(
        (&got["cols"], &got["rows"]),
        (&serde_json::json!(100), &serde_json::json!(30))
    );
    // What the server clamps, it clamps the same for both commands.
    let resized = env.json(&["pane", "resize", &pane, "9999", "1"]);
    assert_eq!(
        (&resized["cols"], &resized["rows"]),
        (&serde_json::json!(500), &serde_json::json!(5))
    );
    let panes = env.json(&["pane", "list", "--workspace", &ws]);
    assert_eq!(
        panes.as_array().map(Vec::len),
        Some(1),
        "no refused spawn made a pane: {panes}"
    );
}
