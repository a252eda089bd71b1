//! End to end: a "remote" machine reached through a real OpenSSH server on loopback. The remote
//! is a second signaltty world (its own socket, state dir and HOME) whose environment is passed
//! through the remote command (`--command "env SIGNALTTY_SOCKET=… signaltty"`): two servers, one
//! link, `ssh host signaltty bridge` in between.

mod common;
mod sshd;

use std::io::Read;
use std::process::Stdio;
use std::time::Duration;

use common::{TestEnv, wait_for};
use sshd::Sshd;

/// `env VAR=… /path/to/signaltty`: how the remote's sshd session runs the remote's signaltty.
fn remote_command(remote: &TestEnv) -> String {
    let d = remote.dir.path();
    format!(
        "env SIGNALTTY_SOCKET={} SIGNALTTY_STATE_DIR={} SIGNALTTY_SERVER_BIN={} HOME={} \
         XDG_CONFIG_HOME={} XDG_STATE_HOME={} XDG_RUNTIME_DIR={} SHELL=/bin/sh {}",
        remote.socket.display(),
        remote.state.display(),
        common::server_bin().display(),
        remote.home.display(),
        d.join("xdg-config").display(),
        d.join("xdg-state").display(),
        d.join("run").display(),
        env!("CARGO_BIN_EXE_signaltty"),
    )
}

/// `signaltty remote add NAME 127.0.0.1 --ssh-option=… --command COMMAND` on `local`.
fn add_remote(local: &TestEnv, sshd: &Sshd, name: &str, command: &str) {
    let mut args = vec![
        "remote".to_owned(),
        "add".to_owned(),
        name.to_owned(),
        "127.0.0.1".to_owned(),
    ];
    for opt in sshd.ssh_options() {
        args.push(format!("--ssh-option={opt}"));
    }
    args.push(format!("--command={command}"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    local.ok(&args);
}

#[test]
fn a_remote_servers_workspaces_panes_and_decisions_over_ssh() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    let remote = TestEnv::new();
    add_remote(&local, &sshd, "gpu", &remote_command(&remote));

    // No server runs on the remote yet: listing it starts one there, through the bridge.
    assert!(!remote.socket.exists());
    let listed = local.json(&["remote", "list"]);
    assert_eq!(listed[0]["name"], "gpu", "{listed}");
    assert_eq!(listed[0]["reachable"], true, "{listed}");
    assert!(remote.socket.exists(), "the remote server was auto-started");

    // A workspace made over the link lives on the remote server, not the local one.
    let ws = local.json(&[
        "--remote",
        "gpu",
        "workspace",
        "create",
        "--name",
        "far",
        "--cwd",
        &remote.dir_str(),
    ])["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let there = remote.json(&["workspace", "list"]);
    assert_eq!(there[0]["id"], ws.as_str(), "{there}");
    let over = local.json(&["--remote", "gpu", "workspace", "list"]);
    assert_eq!(over[0]["name"], "far", "{over}");
    let here = local.json(&["workspace", "list"]);
    assert_eq!(here.as_array().map(Vec::len), Some(0), "{here}");

    // A pane spawned over the link runs there; its screen reads back over the link.
    let pane = local.json(&[
        "--remote",
        "gpu",
        "pane",
        "spawn",
        &ws,
        "--title",
        "agent",
        "--",
        "sh",
        "-c",
        "echo remote-hello; exec sleep 600",
    ])["pane"]["id"]
        .as_str()
        .expect("pane id")
        .to_owned();
    wait_for("the remote pane's output", Duration::from_secs(30), || {
        let read = local.json(&["--remote", "gpu", "pane", "read", &pane]);
        read.to_string().contains("remote-hello").then_some(())
    });

    // An agent on the remote asks; the local CLI answers through the link.
    let mut hook = remote
        .command(&[
            "hook-event",
            "--agent",
            "claude",
            "--event",
            "PermissionRequest",
            "--pane",
            &pane,
            "--wait-for-answer",
            "--timeout",
            "60",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("hook");
    let payload = br#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    std::io::Write::write_all(&mut hook.stdin.take().expect("stdin"), payload).expect("payload");
    let id = wait_for("the remote decision", Duration::from_secs(30), || {
        let listed = local.json(&["--remote", "gpu", "decision", "list"]);
        listed[0]["answerable"]
            .as_bool()
            .filter(|a| *a)
            .and(listed[0]["id"].as_str().map(str::to_owned))
    });
    let answered = local.json(&["--remote", "gpu", "decision", "answer", &id, "once"]);
    assert_eq!(answered["decision_id"], id.as_str(), "{answered}");
    let mut out = String::new();
    hook.stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("hook output");
    assert!(hook.wait().expect("hook exit").success());
    assert!(
        out.contains("allow"),
        "the remote hook got the verdict: {out}"
    );
}

#[test]
fn a_missing_remote_binary_says_to_install_signaltty_there() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    add_remote(&local, &sshd, "bare", "/nonexistent/bin/signaltty");
    let run = local.fails(&["--remote", "bare", "workspace", "list"], 1);
    assert!(run.stderr.contains("install signaltty"), "{run:?}");
    assert!(run.stderr.contains("/nonexistent/bin/signaltty"), "{run:?}");
    assert!(run.stderr.contains("REMOTE_BINARY_MISSING"), "{run:?}");
    let listed = local.json(&["remote", "list"]);
    assert_eq!(listed[0]["reachable"], false, "{listed}");
}

#[test]
fn an_unreachable_host_is_a_clear_error() {
    let Some(sshd) = Sshd::start() else { return };
    let local = TestEnv::new();
    let mut args: Vec<String> = ["remote", "add", "off", "127.0.0.1"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    // The right key, a port nobody listens on.
    let mut opts = sshd.ssh_options();
    opts[1] = "1".to_owned();
    args.extend(opts.into_iter().map(|o| format!("--ssh-option={o}")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    local.ok(&args);
    let run = local.fails(&["--remote", "off", "workspace", "list"], 1);
    assert!(run.stderr.contains("REMOTE_UNREACHABLE"), "{run:?}");
    assert!(run.stderr.contains("cannot reach off"), "{run:?}");
}

#[test]
fn remote_add_checks_names_and_remove_forgets() {
    let local = TestEnv::new();
    let bad = local.fails(&["remote", "add", "a:b", "host"], 2);
    assert!(bad.stderr.contains("bad remote name"), "{bad:?}");
    let config = local.dir.path().join("xdg-config/signaltty/config.toml");
    assert!(!config.exists(), "nothing written");
    local.ok(&[
        "remote",
        "add",
        "gpu",
        "me@gpu",
        "--ssh-option=-p",
        "--ssh-option=2222",
    ]);
    let twice = local.fails(&["remote", "add", "gpu", "other"], 2);
    assert!(twice.stderr.contains("exists already"), "{twice:?}");
    let unknown = local.fails(&["--remote", "nope", "workspace", "list"], 2);
    assert!(
        unknown.stderr.contains("no remote named \"nope\""),
        "{unknown:?}"
    );
    local.ok(&["remote", "remove", "gpu"]);
    let gone = local.fails(&["remote", "remove", "gpu"], 2);
    assert!(gone.stderr.contains("no remote named"), "{gone:?}");
}
