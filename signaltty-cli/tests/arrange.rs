//! End to end: `tab focus|move` and `pane focus|move` with the real binaries, including what a
//! restarted server remembers. Needs `cargo build -p signaltty-server` first (see tests/common).

mod common;

use common::TestEnv;
use serde_json::Value;

fn id(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("an id: {v}"))
        .to_string()
}

#[test]
fn panes_and_tabs_are_focused_moved_and_remembered_across_a_restart() {
    let env = TestEnv::new();
    let ws = env.workspace("arrange");
    let a = env.json(&["pane", "spawn", &ws, "--", "/bin/cat"]);
    let (a, tab1) = (id(&a["pane"]["id"]), id(&a["tab"]["id"]));
    let b = env.json(&["pane", "split", &a, "--right", "--", "/bin/cat"]);
    let b = id(&b["pane"]["id"]);
    let c = env.json(&["pane", "spawn", &ws, "--", "/bin/cat"]);
    let (c, tab2) = (id(&c["pane"]["id"]), id(&c["tab"]["id"]));

    let focused = env.json(&["tab", "focus", &tab1]);
    assert_eq!(focused["active_tab_id"], tab1.as_str(), "{focused}");
    let focused = env.json(&["pane", "focus", &a, "--seen"]);
    assert_eq!(focused["tab"]["active_pane_id"], a.as_str(), "{focused}");
    assert_eq!(focused["pane"]["attention"], "none", "{focused}");

    // b goes below c, in the other tab.
    let moved = env.json(&[
        "pane", "move", &b, "--to-tab", &tab2, "--beside", &c, "--down",
    ]);
    assert_eq!(moved["pane"]["tab_id"], tab2.as_str(), "{moved}");
    assert_eq!(moved["tab"]["layout"]["split"]["direction"], "down");
    assert_eq!(moved["tab"]["pane_ids"], serde_json::json!([c, b]));
    assert_eq!(moved["closed_tab_id"], Value::Null);

    let reordered = env.json(&["tab", "move", &tab2, "--index", "0"]);
    assert_eq!(reordered["tab_ids"], serde_json::json!([tab2, tab1]));

    // a, alone in tab1, goes to a new tab: tab1 closes (said in the human output too).
    let human = env.ok(&["pane", "move", &a, "--new-tab", "--title", "solo"]);
    assert!(
        human.contains(&format!("closed {tab1}")),
        "the emptied tab is reported: {human}"
    );
    let full = env.json(&["workspace", "get", &ws]);
    let solo = id(&full["workspace"]["tab_ids"][1]);
    assert_eq!(full["tabs"][1]["title"], "solo", "{full}");
    assert_eq!(full["workspace"]["active_tab_id"], solo.as_str());
    env.ok(&["pane", "focus", &c]);

    // Restart: the order, the active tab and the active pane come back.
    let before = env.json(&["workspace", "get", &ws]);
    env.ok(&["server", "stop", "--force"]);
    let after = env.json(&["workspace", "get", &ws]);
    assert_eq!(
        after["workspace"]["tab_ids"],
        before["workspace"]["tab_ids"]
    );
    assert_eq!(after["workspace"]["active_tab_id"], tab2.as_str());
    assert_eq!(after["tabs"], before["tabs"], "layouts and focus restored");
    assert_eq!(after["tabs"][0]["active_pane_id"], c.as_str());
}

#[test]
fn bad_focus_and_moves_say_why_and_exit_1() {
    let env = TestEnv::new();
    let ws = env.workspace("refusals");
    let a = env.json(&["pane", "spawn", &ws, "--", "/bin/cat"]);
    let (a, tab) = (id(&a["pane"]["id"]), id(&a["tab"]["id"]));
    let before = env.json(&["workspace", "get", &ws]);

    for (args, reason) in [
        (
            vec!["tab", "move", tab.as_str(), "--index", "1"],
            "(BAD_PARAMS)",
        ),
        (
            vec!["pane", "move", a.as_str(), "--to-tab", tab.as_str()],
            "(BAD_PARAMS)",
        ),
        (
            vec!["pane", "move", a.as_str(), "--to-tab", "tab_nope"],
            "(NO_SUCH_TAB)",
        ),
        (vec!["pane", "focus", "pane_nope"], "(NO_SUCH_PANE)"),
        (vec!["tab", "focus", "tab_nope"], "(NO_SUCH_TAB)"),
    ] {
        let run = env.fails(&args, 1);
        assert!(run.stderr.contains(reason), "{args:?}: {run:?}");
    }
    let index = env.fails(&["tab", "move", &tab, "--index", "1"], 1);
    assert!(
        index.stderr.contains("0–0"),
        "the valid range is named: {index:?}"
    );
    // Usage errors never reach the server.
    env.fails(&["pane", "move", &a], 2);
    assert_eq!(
        env.json(&["workspace", "get", &ws]),
        before,
        "nothing changed"
    );
}

/// `tab focus|move` and `pane focus|move` take what every other command takes: titles, unique
/// id prefixes and `-` for the last one used; an ambiguous word lists the candidates.
#[test]
fn focus_and_move_take_titles_prefixes_and_the_last_used() {
    let env = TestEnv::new();
    let ws = env.workspace("words");
    let a = env.json(&["pane", "spawn", &ws, "--title", "left", "--", "/bin/cat"]);
    let (a, tab1) = (id(&a["pane"]["id"]), id(&a["tab"]["id"]));
    env.ok(&["tab", "rename", &tab1, "first"]);
    let b = env.json(&["pane", "spawn", &ws, "--title", "right", "--", "/bin/cat"]);
    let (b, tab2) = (id(&b["pane"]["id"]), id(&b["tab"]["id"]));
    env.ok(&["tab", "rename", &tab2, "second"]);

    // A tab by title, then by id prefix without `tab_`.
    let focused = env.json(&["tab", "focus", "first"]);
    assert_eq!(focused["active_tab_id"], tab1.as_str(), "{focused}");
    let prefix = &tab2["tab_".len().."tab_".len() + 12];
    let focused = env.json(&["tab", "focus", prefix]);
    assert_eq!(focused["active_tab_id"], tab2.as_str(), "{focused}");
    // `-` is the tab just focused.
    let moved = env.json(&["tab", "move", "-", "--index", "0"]);
    assert_eq!(moved["tab_ids"], serde_json::json!([tab2, tab1]), "{moved}");

    // A pane by title; then `-` is that pane.
    let focused = env.json(&["pane", "focus", "left"]);
    assert_eq!(focused["tab"]["active_pane_id"], a.as_str(), "{focused}");
    let moved = env.json(&[
        "pane", "move", "-", "--to-tab", "second", "--beside", "right", "--down",
    ]);
    assert_eq!(moved["pane"]["id"], a.as_str(), "{moved}");
    assert_eq!(
        moved["tab"]["pane_ids"],
        serde_json::json!([b, a]),
        "{moved}"
    );
    assert_eq!(moved["closed_tab_id"], tab1.as_str(), "{moved}");
    // --beside was not remembered: `-` is still the pane that moved.
    let focused = env.json(&["pane", "focus", "-"]);
    assert_eq!(focused["pane"]["id"], a.as_str(), "{focused}");

    // Two panes titled alike: the error lists both and nothing moves.
    env.ok(&["pane", "rename", &b, "left"]);
    let before = env.json(&["workspace", "get", &ws]);
    let run = env.fails(&["pane", "move", "left", "--new-tab"], 2);
    assert!(
        run.stderr.contains(&a) && run.stderr.contains(&b),
        "the candidates are listed: {run:?}"
    );
    let run = env.fails(&["pane", "focus", "no-such-title"], 1);
    assert!(run.stderr.contains("(NO_SUCH_PANE)"), "{run:?}");
    let run = env.fails(&["tab", "move", "no-such-tab", "--index", "0"], 1);
    assert!(run.stderr.contains("(NO_SUCH_TAB)"), "{run:?}");
    assert_eq!(
        env.json(&["workspace", "get", &ws]),
        before,
        "nothing changed"
    );
}
