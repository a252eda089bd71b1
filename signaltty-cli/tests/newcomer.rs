//! Issue 29's "newcomer's path" (points 21–24) and issue 35's two small points, end to end with
//! the real `signaltty` and `signaltty-server` binaries: stop then start at once, `new` in a
//! workspace whose active pane exited, one naming rule and one spelling of the workspace option,
//! `tab list`, config mistakes all shown, a spawn that names whose PATH it searched, ids printed
//! by `workspace create`, `pane close --exited`, a read-only decision, a non-private state dir.
//! Needs `cargo build -p signaltty-server` first (see tests/common).

mod common;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::Duration;

use common::{TestEnv, WAIT, wait_for};

fn spawn(env: &TestEnv, ws: &str, title: &str, argv: &[&str]) -> String {
    let mut args = vec!["pane", "spawn", ws, "--title", title, "--"];
    args.extend_from_slice(argv);
    env.json(&args)["pane"]["id"]
        .as_str()
        .expect("pane id")
        .to_string()
}

/// Whether a server holds the socket's lock (what makes a new server refuse to start).
fn lock_held(env: &TestEnv) -> bool {
    use nix::fcntl::{Flock, FlockArg};
    let Ok(file) = std::fs::File::open(format!("{}.lock", env.socket.display())) else {
        return false;
    };
    Flock::lock(file, FlockArg::LockSharedNonblock).is_err()
}

fn server_pid(env: &TestEnv) -> i32 {
    env.json(&["server", "status"])["pid"]
        .as_i64()
        .expect("pid") as i32
}

#[test]
fn stop_returns_once_a_new_server_can_start_even_with_a_client_still_connected() {
    let env = TestEnv::new();
    let ws = env.workspace("stop");
    spawn(&env, &ws, "sleeper", &["sleep", "600"]);
    // A client that never hangs up (as a TUI left open): the old server waits for it, up to
    // its grace, after it stopped answering.
    let _lingering = std::os::unix::net::UnixStream::connect(&env.socket).expect("connect");
    let stopped = env.ok(&["server", "stop", "--force"]);
    assert!(
        !lock_held(&env),
        "stop returned while the old server still held the socket"
    );
    assert!(stopped.contains("pane close --exited"), "{stopped}");
    let started = env.run(&["server", "start"]);
    assert!(started.success(), "{started:?}");
}

#[test]
fn a_command_right_after_a_stop_waits_for_the_old_server_instead_of_failing() {
    let env = TestEnv::new();
    env.ok(&["server", "start"]);
    let pid = server_pid(&env);
    let _lingering = std::os::unix::net::UnixStream::connect(&env.socket).expect("connect");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("SIGTERM");
    // The moment the old server no longer answers but still holds its lock.
    wait_for("the old server to stop answering", WAIT, || {
        std::os::unix::net::UnixStream::connect(&env.socket)
            .is_err()
            .then_some(())
    });
    assert!(lock_held(&env), "the lingering client holds the old server");
    let listed = env.run(&["workspace", "list"]);
    assert!(listed.success(), "{listed:?}");
    assert_ne!(server_pid(&env), pid, "a new server answers");
}

#[test]
fn new_attaches_to_a_live_pane_not_to_the_exited_active_one() {
    let env = TestEnv::new();
    let ws = env.workspace_at(env.dir.path());
    let live = spawn(&env, &ws, "live", &["sleep", "600"]);
    let dead = spawn(&env, &ws, "dead", &["true"]);
    env.ok(&["pane", "wait", &dead, "--until", "exited"]);
    let got = env.json(&["workspace", "get", &ws]);
    assert_eq!(
        got["workspace"]["active_tab_id"],
        env.json(&["pane", "get", &dead])["tab_id"],
        "the exited pane's tab is the active one: {got}"
    );
    let picked = env.ok(&["new", "--detach"]).trim().to_string();
    assert_eq!(picked, live, "the live pane, not the exited active one");

    // With no live pane left, `new` starts a shell there.
    env.ok(&["pane", "close", &live]);
    let fresh = env.ok(&["new", "--detach"]).trim().to_string();
    assert_ne!(fresh, dead);
    let pane = env.json(&["pane", "get", &fresh]);
    assert_eq!(pane["workspace_id"], ws.as_str(), "{pane}");
    assert_eq!(pane["status"], "live", "{pane}");
}

#[test]
fn diff_worktree_and_tab_take_names_prefixes_and_every_workspace_spelling() {
    let env = TestEnv::new();
    let repo = env.dir.path().join("repo");
    std::fs::create_dir(&repo).expect("repo dir");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&repo)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "one\n").expect("write");
    git(&["add", "a.txt"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "one",
    ]);
    std::fs::write(repo.join("a.txt"), "two\n").expect("write");
    let ws = env.json(&[
        "workspace",
        "create",
        "--name",
        "names",
        "--cwd",
        repo.to_str().expect("utf-8"),
    ])["id"]
        .as_str()
        .expect("id")
        .to_string();
    let prefix = &ws["ws_".len().."ws_".len() + 6];
    for word in ["names", prefix, "-"] {
        let diff = env.json(&["diff", word, "--stat"]);
        assert_eq!(diff["files"][0]["path"], "a.txt", "diff {word}: {diff}");
        let diff = env.json(&["diff", "--workspace", word, "--stat"]);
        assert_eq!(diff["files"][0]["path"], "a.txt", "diff --workspace {word}");
        let trees = env.json(&["worktree", "list", "--ws", word]);
        assert!(trees.as_array().is_some_and(|t| !t.is_empty()), "{trees}");
        env.json(&["worktree", "list", "--workspace", word]);
    }
    let none = env.fails(&["diff", "nosuch"], 1);
    assert!(none.stderr.contains("NO_SUCH_WORKSPACE"), "{none:?}");

    // One spelling, `--workspace`, with `--ws` as its alias, wherever a command takes one.
    let tab = env.json(&["tab", "create", "--ws", "names", "--title", "second"]);
    let pane = env.json(&[
        "pane",
        "spawn",
        "--workspace",
        "names",
        "--",
        "sleep",
        "600",
    ]);
    env.json(&["pane", "list", "--ws", "names"]);
    env.json(&["decision", "list", "--ws", "names"]);
    env.json(&["notifications", "--ws", "names"]);

    // `tab list`: every tab, or one workspace's.
    let tabs = env.json(&["tab", "list", "--workspace", "names"]);
    let ids: Vec<&str> = tabs
        .as_array()
        .expect("tabs")
        .iter()
        .filter_map(|t| t["id"].as_str())
        .collect();
    assert!(ids.contains(&tab["id"].as_str().expect("tab id")), "{tabs}");
    assert!(
        ids.contains(&pane["tab"]["id"].as_str().expect("tab id")),
        "{tabs}"
    );
    let table = env.ok(&["tab", "ls"]);
    assert!(
        table.starts_with("ID") && table.contains("second"),
        "{table}"
    );
}

#[test]
fn workspace_create_prints_its_id_as_the_other_commands_do() {
    let env = TestEnv::new();
    let out = env.ok(&["workspace", "create", "--cwd", &env.dir_str()]);
    let id = out.trim();
    assert!(
        id.starts_with("ws_") && !id.contains('\n'),
        "only the id: {out:?}"
    );
    env.ok(&["workspace", "get", id]);
}

#[test]
fn every_config_mistake_is_shown_when_the_server_refuses_to_start() {
    let env = TestEnv::new();
    env.write_config("bogus1 = 1\nbogus2 = 2\nbogus3 = 3\nbogus4 = 4\nbogus5 = 5\n");
    let run = env.fails(&["workspace", "list"], 1);
    for n in 1..=5 {
        assert!(
            run.stderr.contains(&format!("bogus{n}: unknown key")),
            "mistake {n} missing: {}",
            run.stderr
        );
    }
}

#[test]
fn a_program_not_found_is_said_to_be_looked_up_on_the_servers_path() {
    let env = TestEnv::new();
    let ws = env.workspace("path");
    let run = env.fails(
        &["pane", "spawn", &ws, "--", "signaltty-no-such-program"],
        1,
    );
    assert!(run.stderr.contains("the server's PATH"), "{run:?}");
    assert!(run.stderr.contains("full path"), "what to do: {run:?}");
    let run = env.fails(
        &[
            "pane",
            "spawn",
            &ws,
            "--env",
            "PATH=/nonexistent",
            "--",
            "signaltty-no-such-program",
        ],
        1,
    );
    assert!(
        run.stderr
            .contains("the PATH given with the request (/nonexistent)"),
        "{run:?}"
    );
}

#[test]
fn panes_hung_up_by_a_forced_stop_come_back_and_close_exited_clears_them() {
    let env = TestEnv::new();
    let ws = env.workspace("restored");
    let a = spawn(&env, &ws, "a", &["sleep", "600"]);
    let b = spawn(&env, &ws, "b", &["sleep", "600"]);
    let stopped = env.ok(&["server", "stop", "--force"]);
    assert!(stopped.contains("2 live panes hung up"), "{stopped}");
    assert!(stopped.contains("pane resume"), "{stopped}");
    let panes = env.json(&["pane", "list"]);
    let statuses: Vec<&str> = panes
        .as_array()
        .expect("panes")
        .iter()
        .filter_map(|p| p["status"].as_str())
        .collect();
    assert_eq!(statuses.len(), 2, "{panes}");
    assert!(statuses.iter().all(|s| *s != "live"), "{panes}");
    let live = spawn(&env, &ws, "live", &["sleep", "600"]);
    let closed = env.json(&["pane", "close", "--exited"]);
    let closed: Vec<&str> = closed["closed_pane_ids"]
        .as_array()
        .expect("closed ids")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(closed.len(), 2);
    assert!(closed.contains(&a.as_str()) && closed.contains(&b.as_str()));
    let left = env.json(&["pane", "list"]);
    assert_eq!(left.as_array().map(Vec::len), Some(1), "{left}");
    assert_eq!(left[0]["id"], live.as_str());
    assert_eq!(
        env.ok(&["pane", "close", "--exited"]).trim(),
        "no exited panes"
    );
}

#[test]
fn answering_a_read_only_decision_says_what_it_is_and_what_to_do() {
    let env = TestEnv::new();
    let ws = env.workspace("readonly");
    let pane = spawn(&env, &ws, "agent", &["sleep", "600"]);
    // A permission hook that does not wait for an answer: the decision is shown, read-only.
    let mut hook = env.permission_hook(&pane, false);
    let mut out = String::new();
    hook.stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("hook output");
    assert!(hook.wait().expect("hook exit").success());
    let id = wait_for("the read-only decision", Duration::from_secs(30), || {
        let listed = env.json(&["decision", "list"]);
        (listed[0]["answerable"] == false)
            .then(|| listed[0]["id"].as_str().map(str::to_owned))
            .flatten()
    });
    let run = env.fails(&["decision", "answer", &id, "once"], 1);
    assert!(run.stderr.contains("read-only"), "{run:?}");
    assert!(run.stderr.contains("DECISION_NOT_ANSWERABLE"), "{run:?}");
    assert!(
        run.stderr.contains(&format!("signaltty attach {pane}")),
        "{run:?}"
    );
    assert!(!run.stderr.contains("no pending decision"), "{run:?}");
}

#[test]
fn a_shared_state_dir_is_named_as_such_and_no_server_starts_silently() {
    let env = TestEnv::new();
    std::fs::create_dir(&env.state).expect("state dir");
    std::fs::set_permissions(&env.state, std::fs::Permissions::from_mode(0o755))
        .expect("chmod 755");
    let run = env.fails(&["workspace", "list"], 1);
    assert!(
        run.stderr.contains(&format!(
            "state directory {} is unsafe",
            env.state.display()
        )),
        "{run:?}"
    );
    assert!(run.stderr.contains("chmod 700"), "{run:?}");
    assert!(!run.stderr.contains("socket directory"), "{run:?}");
    assert!(!env.socket.exists(), "no server runs");

    // A server the CLI does start says so, with the state dir and config it runs with.
    std::fs::set_permissions(&env.state, std::fs::Permissions::from_mode(0o700))
        .expect("chmod 700");
    let run = env.run(&["workspace", "list"]);
    assert!(run.success(), "{run:?}");
    assert!(
        run.stderr.contains("started one")
            && run.stderr.contains(&env.state.display().to_string())
            && run.stderr.contains("config"),
        "{run:?}"
    );
    let again = env.run(&["workspace", "list"]);
    assert!(!again.stderr.contains("started"), "{again:?}");
}

#[test]
fn stop_succeeds_when_another_client_starts_a_server_the_moment_the_old_one_goes() {
    let env = TestEnv::new();
    env.ok(&["server", "start"]);
    let old = server_pid(&env);
    // The TUI's connection: it keeps the old server's graceful stop waiting, and the TUI
    // starts a new server as soon as it can.
    let lingering = std::os::unix::net::UnixStream::connect(&env.socket).expect("connect");
    let stop = env
        .command(&["server", "stop", "--force"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("stop");
    wait_for("the old server to stop answering", WAIT, || {
        std::os::unix::net::UnixStream::connect(&env.socket)
            .is_err()
            .then_some(())
    });
    let restart = env.run(&["workspace", "list"]);
    assert!(restart.success(), "{restart:?}");
    drop(lingering);
    let stopped = stop.wait_with_output().expect("stop's exit");
    assert!(stopped.status.success(), "{stopped:?}");
    assert_ne!(server_pid(&env), old);
}
