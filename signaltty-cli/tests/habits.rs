//! The habits of tmux users and scripters (issue 17), each against the real server: names and
//! short ids wherever an id is taken, `new` reusing a directory's workspace, the `ls` tree,
//! `pane send`'s usage, `pane resize COLSxROWS`, `pane read --lines`, the workspace in
//! `pane list`, `decision answer DECISION OPTION`, and `pane stream`.

mod common;

use std::io::Read;
use std::process::Stdio;
use std::time::Duration;

use common::{TestEnv, wait_for};
use serde_json::Value;

fn spawn(env: &TestEnv, ws: &str, title: &str, argv: &[&str]) -> String {
    let mut args = vec!["pane", "spawn", ws, "--title", title, "--"];
    args.extend_from_slice(argv);
    env.json(&args)["pane"]["id"]
        .as_str()
        .expect("pane id")
        .to_string()
}

#[test]
fn panes_and_workspaces_are_named_by_prefix_name_or_dash() {
    let env = TestEnv::new();
    let ws = env.workspace("habits");
    let alpha = spawn(&env, &ws, "alpha", &["sleep", "600"]);
    let beta = spawn(&env, &ws, "beta", &["sleep", "600"]);

    // A title, a unique id prefix with or without `pane_`, and the full id.
    assert_eq!(env.json(&["pane", "get", "alpha"])["id"], alpha.as_str());
    let short = &alpha["pane_".len().."pane_".len() + 8];
    assert_eq!(env.json(&["pane", "get", short])["id"], alpha.as_str());
    assert_eq!(
        env.json(&["pane", "get", &format!("pane_{short}")])["id"],
        alpha.as_str()
    );
    // `-` and nothing: the last one used (beta was named last by `get` below).
    assert_eq!(env.json(&["pane", "get", &beta])["id"], beta.as_str());
    assert_eq!(env.json(&["pane", "get", "-"])["id"], beta.as_str());
    assert_eq!(env.json(&["pane", "get"])["id"], beta.as_str());

    // Ambiguity lists the candidates (exit 2); nothing matching is the server's NOT_FOUND.
    let both = env.fails(&["pane", "get", "pane_"], 2);
    assert!(
        both.stderr.contains(&alpha) && both.stderr.contains(&beta),
        "{both:?}"
    );
    assert!(both.stderr.contains("alpha") && both.stderr.contains("beta"));
    let none = env.fails(&["pane", "get", "gamma"], 1);
    assert!(none.stderr.contains("(NO_SUCH_PANE)"), "{none:?}");

    // Workspaces by name, commands on panes by title.
    assert_eq!(
        env.json(&["workspace", "get", "habits"])["workspace"]["id"],
        ws.as_str()
    );
    env.ok(&["pane", "rename", "beta", "gamma"]);
    assert_eq!(env.json(&["pane", "get", "gamma"])["id"], beta.as_str());
}

#[test]
fn new_reuses_the_directorys_workspace_unless_told_otherwise() {
    let env = TestEnv::new();
    let first = env.ok(&["new", "--", "sleep", "600"]).trim().to_string();
    assert!(first.starts_with("pane_"), "{first}");
    // Same directory: the same workspace and its active pane, not a second workspace.
    let again = env.ok(&["new"]).trim().to_string();
    assert_eq!(again, first);
    assert_eq!(
        env.json(&["workspace", "list"]).as_array().map(Vec::len),
        Some(1)
    );
    // With a command: a new tab in that workspace.
    let with_cmd = env.json(&["new", "--", "sleep", "601"]);
    assert_eq!(
        with_cmd["workspace"]["id"],
        env.json(&["pane", "get", &first])["workspace_id"]
    );
    assert_ne!(with_cmd["pane"]["id"], first.as_str());
    // --new forces a fresh workspace.
    env.ok(&["new", "--new", "--", "sleep", "602"]);
    assert_eq!(
        env.json(&["workspace", "list"]).as_array().map(Vec::len),
        Some(2)
    );
}

#[test]
fn ls_prints_workspaces_tabs_and_panes_as_a_tree() {
    let env = TestEnv::new();
    assert!(env.ok(&["ls"]).contains("no workspaces"));
    let ws = env.workspace("tree");
    let pane = spawn(&env, &ws, "worker", &["sleep", "600"]);
    let text = env.ok(&["ls"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("tree  ws_"), "{text}");
    assert!(
        lines[1].starts_with("  ") && lines[1].contains("tab_"),
        "{text}"
    );
    assert!(
        lines[2].starts_with(&format!("    {pane}  worker  LIVE")),
        "{text}"
    );
    let json: Value = env.json(&["ls"]);
    assert_eq!(json[0]["name"], "tree");
    assert_eq!(json[0]["tabs"][0]["panes"][0]["id"], pane.as_str());
}

#[test]
fn pane_commands_take_what_pane_get_prints() {
    let env = TestEnv::new();
    let ws = env.workspace("shapes");
    let pane = spawn(
        &env,
        &ws,
        "lines",
        &["sh", "-c", "seq 1 60; exec sleep 600"],
    );

    // resize: COLSxROWS as `pane get` prints it, or COLS ROWS.
    env.ok(&["pane", "resize", &pane, "100x30"]);
    assert!(env.ok(&["pane", "get", &pane]).contains("100x30"));
    env.ok(&["pane", "resize", &pane, "90", "25"]);
    assert_eq!(env.json(&["pane", "get", &pane])["cols"], 90);
    let bad = env.fails(&["pane", "resize", &pane, "wide"], 2);
    assert!(bad.stderr.contains("COLSxROWS"), "{bad:?}");

    // read --lines implies --scrollback: line 1 has scrolled off a 25-row screen.
    wait_for("the last line", Duration::from_secs(30), || {
        env.ok(&["pane", "read", &pane])
            .contains("60")
            .then_some(())
    });
    let read = env.json(&["pane", "read", &pane, "--lines", "100"]);
    let lines: Vec<&str> = read["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(lines.contains(&"1") && lines.contains(&"60"), "{lines:?}");
    let last3 = env.json(&["pane", "read", &pane, "--lines", "3"]);
    assert!(
        last3["lines"].as_array().is_some_and(|l| l.len() <= 3),
        "{last3}"
    );

    // pane list names the workspace.
    let table = env.ok(&["pane", "list"]);
    assert!(
        table.lines().next().unwrap_or("").contains("WORKSPACE"),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.contains(&pane) && l.contains("shapes")),
        "{table}"
    );
    // So does the pane table of `workspace get` (its name, not a truncated id).
    let details = env.ok(&["workspace", "get", &ws]);
    assert!(
        details
            .lines()
            .any(|l| l.starts_with(&pane) && l.contains("shapes")),
        "{details}"
    );

    // pane send's usage shows the order it accepts: PANE, then TEXT.
    let help = env.ok(&["pane", "send", "--help"]);
    assert!(
        help.contains("pane send [OPTIONS] <PANE> <TEXT>..."),
        "{help}"
    );
}

#[test]
fn a_decision_is_answered_by_its_id_alone() {
    let env = TestEnv::new();
    let ws = env.workspace("decide");
    let pane = spawn(&env, &ws, "agent", &["sleep", "600"]);
    // What Claude Code's permission hook runs, waiting for the answer.
    let mut hook = env.permission_hook(&pane, true);
    let id = wait_for("the pending decision", Duration::from_secs(30), || {
        let listed = env.json(&["decision", "list"]);
        listed[0]["answerable"]
            .as_bool()
            .filter(|a| *a)
            .and(listed[0]["id"].as_str().map(str::to_owned))
    });
    // Only a prefix of the decision's id and the option: the pane is looked up.
    let short = &id["dec_".len().."dec_".len() + 8];
    let answered = env.json(&["decision", "answer", short, "once"]);
    assert_eq!(answered["decision_id"], id.as_str(), "{answered}");
    let mut out = String::new();
    hook.stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("hook output");
    assert!(hook.wait().expect("hook exit").success());
    assert!(out.contains("allow"), "the hook got the verdict: {out}");
    let none = env.fails(&["decision", "answer", "dec_nope", "once"], 1);
    assert!(none.stderr.contains("(NO_SUCH_DECISION)"), "{none:?}");
}

#[test]
fn pane_stream_copies_the_output_to_a_pipe_until_the_pane_exits() {
    let env = TestEnv::new();
    let ws = env.workspace("stream");
    let pane = spawn(
        &env,
        &ws,
        "echoer",
        &["sh", "-c", "read x; echo got-$x; exit 0"],
    );
    let mut stream = env
        .command(&["pane", "stream", &pane, "--screen"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("stream");
    env.ok(&["pane", "send", &pane, "hello"]);
    let mut out = Vec::new();
    stream
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("stream output");
    assert!(stream.wait().expect("exit").success());
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("got-hello"), "{text:?}");
}

#[test]
fn pane_get_and_read_show_the_cursor_and_modes() {
    let env = TestEnv::new();
    let ws = env.workspace("modes");
    let pane = spawn(
        &env,
        &ws,
        "fullscreen",
        &[
            "sh",
            "-c",
            "printf '\\033[?1049h\\033[?2004h\\033[3;5Hab'; exec sleep 600",
        ],
    );
    let got = wait_for("the modes", Duration::from_secs(30), || {
        let got = env.json(&["pane", "get", &pane]);
        (got["modes"] == serde_json::json!(["alternate_screen", "bracketed_paste"])).then_some(got)
    });
    // Row 3, column 5 (1-based) then two characters: row 2, column 6 from 0.
    assert_eq!(
        got["cursor"],
        serde_json::json!({"row": 2, "col": 6}),
        "{got}"
    );
    let text = env.ok(&["pane", "get", &pane]);
    assert!(text.contains("row 2, column 6"), "{text}");
    assert!(text.contains("alternate_screen bracketed_paste"), "{text}");
    let read = env.json(&["pane", "read", &pane]);
    assert_eq!(read["cursor"]["col"], 6, "{read}");
    assert_eq!(read["modes"][0], "alternate_screen", "{read}");
}
