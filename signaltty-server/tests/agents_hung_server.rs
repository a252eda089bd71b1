//! A hung server stalls no agent (issue 29, point 8): with the real server process stopped
//! (SIGSTOP: the socket still accepts connections, nobody answers), every hook command the
//! installer writes for Claude Code, Codex and Cursor — run exactly as written, through `sh -c`,
//! with a documented payload — returns with exit 0 and nothing on stdout within a short bound:
//! the CLI's 300 ms report deadline plus its own start. Before the fix each took 10 s (Claude
//! stalled on every prompt and tool, Codex's 3 s budget was overrun) and the waiting ones ran
//! into the agents' 30 s. Every waiting hook's `--timeout` also leaves the CLI's margin under the
//! agent's own timeout, so even a server that hangs mid-wait is given up in time.
//!
//! Needs the CLI binary: `cargo build -p signaltty-cli` (or `SIGNALTTY_CLI_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;
mod server_process;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;
use server_process::Root;
use signaltty_server::agents::AgentKind;
use signaltty_server::agents::install::{self, hook_specs};

/// The longest a hook may take with a stopped server: the 300 ms deadline, the CLI's start on a
/// loaded machine, and the shell. Far under Codex's 3 s and the old 10 s.
const BOUND: Duration = Duration::from_millis(1500);

/// Every command of ours in an installed hooks file, with its event and timeout.
fn installed(kind: AgentKind, home: &Path) -> Vec<(String, String, u64)> {
    let program = common::cli_bin().display().to_string();
    let report = install::install(kind, home, &program).expect("installed");
    let doc: Value = serde_json::from_slice(&std::fs::read(&report.path).unwrap()).unwrap();
    let mut out = Vec::new();
    for (event, groups) in doc["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            let entries = g["hooks"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![g.clone()]);
            for h in entries {
                let command = h["command"].as_str().unwrap().to_owned();
                out.push((event.clone(), command, h["timeout"].as_u64().unwrap()));
            }
        }
    }
    assert_eq!(
        out.len(),
        hook_specs(kind).len(),
        "{kind}: one command per hook"
    );
    out
}

/// A documented payload for `event` of `agent`, or `{}` when the corpus has none.
fn payload(agent: &str, event: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus")
        .join(agent)
        .join("2026-12")
        .join(format!("{event}.json"));
    std::fs::read(dir).unwrap_or_else(|_| b"{}".to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_installed_hook_returns_at_once_from_a_stopped_server() {
    let root = Root::new();
    let server = root.start().await;
    let ws = server.workspace("w", &root.path().join("ws")).await;
    let pane = server.spawn(&ws.id, "", &["sleep", "600"]).await;
    let pid = Pid::from_raw(i32::try_from(server.child.id()).unwrap());
    kill(pid, Signal::SIGSTOP).unwrap();

    let home = tempfile::tempdir().unwrap();
    let mut report = Vec::new();
    for kind in [AgentKind::Claude, AgentKind::Codex, AgentKind::Cursor] {
        let agent = kind.as_str();
        for (event, command, timeout) in installed(kind, home.path()) {
            // A waiting hook's own bound (its --timeout plus the CLI's margin) stays under the
            // agent's timeout for it.
            if let Some(wait) = command
                .split("--timeout ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
            {
                let wait: u64 = wait.parse().unwrap();
                assert!(
                    wait + 3 <= timeout,
                    "{agent} {event}: {wait} s of {timeout} s"
                );
            }
            let started = Instant::now();
            let mut child = Command::new("/bin/sh")
                .arg("-c")
                .arg(&command)
                .env("SIGNALTTY_SOCKET", root.socket())
                .env("SIGNALTTY_PANE", &pane.id)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(&payload(agent, &event))
                .unwrap();
            let out = tokio::task::block_in_place(|| child.wait_with_output()).unwrap();
            let took = started.elapsed();
            report.push(format!("{agent} {event}: {took:?}"));
            assert!(out.status.success(), "{agent} {event}: {out:?}");
            assert_eq!(out.stdout, b"", "{agent} {event}: no verdict");
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("did not answer"),
                "{agent} {event}: says why: {out:?}"
            );
            assert!(took < BOUND, "{agent} {event} took {took:?}");
        }
    }
    eprintln!("{}", report.join("\n"));
    kill(pid, Signal::SIGCONT).unwrap();
    server.kill();
}
