//! End to end: auto-start, `server status|stop`, workspaces, JSON output and error reporting,
//! with the real `signaltty` and `signaltty-server` binaries.
//! Needs `cargo build -p signaltty-server` first (see tests/common).

mod common;

use std::os::unix::fs::PermissionsExt;

use common::TestEnv;

#[test]
fn the_first_command_starts_a_server_and_stop_stops_it() {
    let env = TestEnv::new();
    let none = env.fails(&["server", "status"], 3);
    assert!(none.stderr.contains("no server running on"), "{none:?}");
    assert!(
        !env.socket.exists(),
        "server status must not start a server"
    );

    let listed = env.ok(&["workspace", "list"]);
    assert!(listed.starts_with("ID"), "a table header: {listed}");

    let status = env.json(&["server", "status"]);
    assert!(status["pid"].as_u64().unwrap_or(0) > 0, "{status}");
    assert!(
        !status["version"].as_str().unwrap_or("").is_empty(),
        "{status}"
    );
    assert_eq!(status["workspace_count"], 0);
    let mode = std::fs::metadata(&env.socket)
        .expect("socket")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600, "socket mode");

    let again = env.ok(&["server", "start"]);
    assert!(again.contains("already running"), "{again}");

    let stopped = env.ok(&["server", "stop"]);
    assert!(stopped.contains("server stopped"), "{stopped}");
    env.fails(&["server", "status"], 3);
    let stop_again = env.fails(&["server", "stop"], 3);
    assert!(
        stop_again.stderr.contains("no server running on"),
        "{stop_again:?}"
    );
}

#[test]
fn server_start_starts_one_explicitly() {
    let env = TestEnv::new();
    let started = env.json(&["server", "start"]);
    assert!(started["pid"].as_u64().unwrap_or(0) > 0, "{started}");
    assert_eq!(
        started["state_dir"].as_str().map(std::path::PathBuf::from),
        Some(env.state.clone()),
        "the state dir is passed on"
    );
    assert!(
        env.state.join("server.log").exists(),
        "the server logs to its own file"
    );
}

#[test]
fn workspaces_are_created_listed_renamed_and_closed() {
    let env = TestEnv::new();
    let dir = env.dir.path().canonicalize().expect("canonical temp dir");
    let ws = env.json(&[
        "workspace",
        "create",
        "--name",
        "alpha",
        "--cwd",
        &env.dir_str(),
    ]);
    let id = ws["id"].as_str().expect("id").to_string();
    assert!(id.starts_with("ws_"), "{ws}");
    assert_eq!(ws["name"], "alpha");
    assert_eq!(ws["cwd"].as_str(), dir.to_str());
    assert!(
        ws["created_at"].as_str().is_some_and(|t| t.ends_with('Z')),
        "RFC 3339: {ws}"
    );
    assert!(
        ws["tab_ids"].as_array().is_some_and(|t| t.is_empty()),
        "{ws}"
    );

    let list = env.json(&["workspace", "list"]);
    let ids: Vec<&str> = list
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|w| w["id"].as_str())
        .collect();
    assert_eq!(ids, [id.as_str()]);

    let full = env.json(&["workspace", "get", &id]);
    assert_eq!(full["workspace"]["id"], id.as_str());
    assert!(
        full["tabs"].is_array() && full["panes"].is_array(),
        "{full}"
    );

    let renamed = env.json(&["workspace", "rename", &id, "beta"]);
    assert_eq!(renamed["name"], "beta");
    let table = env.ok(&["workspace", "list"]);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with(&id) && l.contains("beta")),
        "{table}"
    );
    let details = env.ok(&["workspace", "get", &id]);
    assert!(
        details.contains("name:") && details.contains("beta"),
        "{details}"
    );

    let refreshed = env.json(&["workspace", "refresh-git", &id]);
    assert_eq!(
        refreshed["is_repo"], false,
        "a temp dir is no repository: {refreshed}"
    );

    let closed = env.json(&["workspace", "close", &id]);
    assert_eq!(closed["workspace_id"], id.as_str());
    let gone = env.fails(&["workspace", "get", &id], 1);
    assert!(gone.stderr.contains("(NO_SUCH_WORKSPACE)"), "{gone:?}");
}

#[test]
fn the_current_directory_is_the_default_cwd() {
    let env = TestEnv::new();
    let ws = env.json(&["workspace", "create"]);
    let dir = env.dir.path().canonicalize().expect("canonical temp dir");
    assert_eq!(ws["cwd"].as_str(), dir.to_str());
    let base = dir.file_name().and_then(|n| n.to_str()).expect("base name");
    assert_eq!(ws["name"], base, "the name defaults to the directory's");
}

#[test]
fn bad_input_exits_non_zero_with_the_reason() {
    let env = TestEnv::new();
    let missing = env.fails(&["workspace", "get", "ws_nope"], 1);
    assert!(
        // After the line announcing the server this first command started.
        missing
            .stderr
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("error: "))
            && missing.stderr.contains("(NO_SUCH_WORKSPACE)"),
        "{missing:?}"
    );
    let bad_cwd = env.fails(&["workspace", "create", "--cwd", "/nonexistent/dir"], 1);
    assert!(bad_cwd.stderr.contains("(BAD_PARAMS)"), "{bad_cwd:?}");
    let bad_name = env.fails(&["workspace", "create", "--name", "a\u{7}b"], 1);
    assert!(bad_name.stderr.contains("(BAD_PARAMS)"), "{bad_name:?}");
    let no_tab_ws = env.fails(&["tab", "create", "ws_nope"], 1);
    assert!(
        no_tab_ws.stderr.contains("(NO_SUCH_WORKSPACE)"),
        "{no_tab_ws:?}"
    );

    // Usage errors: exit 2, before any server is involved.
    env.fails(&["workspace", "rename", "ws_x"], 2);
    env.fails(&["pane", "split", "pane_x"], 2);
    let bad_json = env.run_with_stdin(&["tab", "set-layout", "tab_x"], Some(b"{not json"));
    assert_eq!(bad_json.code, Some(2), "{bad_json:?}");
    assert!(bad_json.stderr.contains("bad layout JSON"), "{bad_json:?}");
}

#[test]
fn workspace_and_server_outputs_are_valid_json() {
    let env = TestEnv::new();
    let id = env.workspace("one");
    let list = env.json(&["workspace", "list"]);
    assert!(list.is_array(), "{list}");
    let full = env.json(&["workspace", "get", &id]);
    assert!(full["workspace"]["settings"].is_object(), "{full}");
    let status = env.json(&["server", "status"]);
    assert_eq!(status["workspace_count"], 1, "{status}");
    assert!(status["head_seq"].as_u64().unwrap_or(0) >= 1, "{status}");
}
