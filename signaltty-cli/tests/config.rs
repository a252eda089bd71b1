//! The user config file end to end: `signaltty config check` and a real server started by the
//! CLI honouring (or refusing) the file.

mod common;

use common::TestEnv;
use serde_json::json;

#[test]
fn check_without_a_file_says_the_defaults_apply() {
    let env = TestEnv::new();
    let out = env.ok(&["config", "check"]);
    assert!(out.contains("no such file; the defaults apply"), "{out}");
    let path = env.ok(&["config", "path"]);
    assert!(
        path.trim().ends_with("xdg-config/signaltty/config.toml"),
        "{path}"
    );
    // A path named explicitly must exist.
    let missing = env.fails(&["config", "check", "/nonexistent/config.toml"], 2);
    assert!(missing.stdout.contains("cannot read it"), "{missing:?}");
}

#[test]
fn check_lists_every_mistake_with_its_line() {
    let env = TestEnv::new();
    let path = env.write_config(
        "[server]\nscrollback_lines = \"lots\"\n\n[attach]\ndetach_key = \"alt-q\"\nfoo = 1\n",
    );
    let run = env.fails(&["config", "check"], 2);
    let p = path.display();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{run:?}");
    assert!(lines[0].starts_with(&format!(
        "{p}:2:20: server.scrollback_lines: expected an integer"
    )));
    assert!(lines[1].starts_with(&format!("{p}:5:14: attach.detach_key: bad detach key")));
    assert!(lines[2].starts_with(&format!("{p}:6:1: attach.foo: unknown key")));
    assert!(run.stderr.contains("has 3 mistakes"), "{run:?}");

    let report = {
        let run = env.fails(&["--json", "config", "check"], 2);
        serde_json::from_str::<serde_json::Value>(&run.stdout).expect("JSON")
    };
    assert_eq!(report["ok"], false);
    assert_eq!(report["problems"][1]["line"], 5);
    assert_eq!(report["problems"][1]["key"], "attach.detach_key");

    env.write_config("[server]\nscrollback_lines = 100\n[tui.keymap]\nq = \"quit\"\n");
    assert!(env.ok(&["config", "check"]).ends_with(": ok\n"));
}

#[test]
fn the_server_honours_the_file() {
    let env = TestEnv::new();
    env.write_config(
        "[server]\ndefault_shell = \"/bin/cat\"\nclose_tab_on_last_pane = false\n\
         scrollback_lines = 5\n",
    );
    let ws = env.workspace("configured");
    let made = env.json(&["pane", "spawn", &ws]);
    assert_eq!(made["pane"]["argv"], json!(["/bin/cat"]), "{made}");
    let pane = made["pane"]["id"].as_str().expect("pane id");
    let tab = made["tab"]["id"].as_str().expect("tab id");
    env.ok(&["pane", "close", pane]);
    // The tab stays although its last pane closed.
    let got = env.json(&["workspace", "get", &ws]);
    let tabs = got["tabs"].as_array().expect("tabs");
    assert!(tabs.iter().any(|t| t["id"] == tab), "{got}");
}

#[test]
fn a_server_refuses_to_start_on_a_broken_file_and_says_why() {
    let env = TestEnv::new();
    env.write_config("[server]\nevent_ring = 0\n");
    let run = env.fails(&["workspace", "list"], 1);
    assert!(
        run.stderr
            .contains("2:14: server.event_ring: 0 is out of range"),
        "{run:?}"
    );
}

#[test]
fn the_server_honours_max_connections_from_the_file_with_a_clear_refusal() {
    use std::io::BufRead;
    let env = TestEnv::new();
    env.write_config(
        "[server]\nmax_connections = 1\nkeepalive_interval_secs = 30\nkeepalive_timeout_secs = 10\n",
    );
    assert!(env.ok(&["config", "check"]).ends_with(": ok\n"));
    // Starts the server (the file is read at its start) and leaves an event to replay. The
    // auto-start's own probe holds the one connection until the server sees it closed: retry.
    common::wait_for("the first call under the cap", common::RUN_TIMEOUT, || {
        env.run(&[
            "workspace",
            "create",
            "--name",
            "capped",
            "--cwd",
            &env.dir_str(),
        ])
        .success()
        .then_some(())
    });
    // A follower holds the one connection; its first replayed line says it is connected (a
    // follower that came too early, while the last call's connection was still counted, is
    // refused and tried again).
    let mut follower = common::wait_for("a follower under the cap", common::RUN_TIMEOUT, || {
        let mut child = env
            .command(&["events", "--from-seq", "0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn signaltty events");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = std::io::BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            // Keep reading: a closed pipe would end the follower at its next line (SIGPIPE)
            // and free the connection it is meant to hold.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        match rx.recv_timeout(common::RUN_TIMEOUT) {
            Ok(line) if line.contains("capped") => Some(child),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                None
            }
        }
    });

    let refused = env.fails(&["workspace", "list"], 1);
    assert!(
        refused.stderr.contains("TOO_MANY_CONNECTIONS"),
        "{refused:?}"
    );
    assert!(refused.stderr.contains("close idle clients"), "{refused:?}");

    // Once the follower is gone there is room again (the server sees the close shortly after).
    let _ = follower.kill();
    let _ = follower.wait();
    common::wait_for("room under the cap", common::RUN_TIMEOUT, || {
        env.run(&["workspace", "list"]).success().then_some(())
    });
}

#[test]
fn check_reports_connection_limits_out_of_range() {
    let env = TestEnv::new();
    let path = env.write_config("[server]\nmax_connections = 0\nkeepalive_timeout_secs = 601\n");
    let run = env.fails(&["config", "check"], 2);
    let p = path.display();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            format!(
                "{p}:2:19: server.max_connections: 0 is out of range: expected an integer from 1 to 65536"
            ),
            format!(
                "{p}:3:26: server.keepalive_timeout_secs: 601 is out of range: expected an integer from 1 to 600"
            ),
        ],
        "{run:?}"
    );
}
