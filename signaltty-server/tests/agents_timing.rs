//! No installed hook may delay an agent's own prompt: a hook the agent runs *before* its prompt
//! (Codex's PermissionRequest, a Claude sub-agent's, Cursor's beforeShellExecution), run exactly
//! as installed (`--wait-for-answer`) in a real pane's environment with no client attached and
//! nobody opted in, returns in under 100 ms with nothing on stdout (on a loaded machine: within
//! twice what a plain `signaltty server status` takes at that moment).
//!
//! Needs the CLI binary: `cargo build -p signaltty-cli` (or `SIGNALTTY_CLI_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{TestServer, cli_bin, spawn};

/// Runs the CLI as the agent would and returns how long it took and what it printed.
fn run_hook(
    srv: &TestServer,
    pane: &str,
    agent: &str,
    event: &str,
    payload: &[u8],
) -> (Duration, String) {
    let started = Instant::now();
    let mut child = Command::new(cli_bin())
        .args([
            "hook-event",
            "--agent",
            agent,
            "--event",
            event,
            "--payload-stdin",
            "--wait-for-answer",
        ])
        .env("SIGNALTTY_PANE", pane)
        .env("SIGNALTTY_SOCKET", srv.socket())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the CLI runs");
    child.stdin.take().unwrap().write_all(payload).unwrap();
    let out = child.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "the hook was accepted"
    );
    (took, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Best of three of the same CLI's cheapest round trip to the server (`server status`): what
/// starting the CLI and connecting cost on this machine right now, hook or not.
fn baseline(srv: &TestServer) -> Duration {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            let out = Command::new(cli_bin())
                .arg("--socket")
                .arg(srv.socket())
                .args(["server", "status"])
                .output()
                .expect("the CLI runs");
            assert!(out.status.success(), "{out:?}");
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_that_precede_a_prompt_return_at_once() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["sleep", "600"]).await;
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus");
    for (agent, event, fixture) in [
        (
            "codex",
            "PermissionRequest",
            "codex/2026-12/PermissionRequest.json",
        ),
        (
            "claude",
            "PermissionRequest",
            "claude/2026-12/PermissionRequest-subagent.json",
        ),
        (
            "cursor",
            "beforeShellExecution",
            "cursor/2026-12/beforeShellExecution.json",
        ),
        (
            "cursor",
            "beforeMCPExecution",
            "cursor/2026-12/beforeMCPExecution.json",
        ),
    ] {
        let payload = std::fs::read(corpus.join(fixture)).unwrap();
        // The machine is shared: the best of three runs is what the hook costs; every run must
        // still be far from any hold.
        let mut best = Duration::MAX;
        for _ in 0..3 {
            let pane_id = pane.id.clone();
            let (took, stdout) =
                tokio::task::block_in_place(|| run_hook(&srv, &pane_id, agent, event, &payload));
            assert_eq!(stdout, "", "{agent} {event}: no verdict");
            assert!(
                took < Duration::from_secs(2),
                "{agent} {event} was held: {took:?}"
            );
            best = best.min(took);
        }
        // Under 100 ms; on a loaded machine (CI's 2 cores running the suite at once; it failed
        // at 149 ms with nothing held) within twice a plain `server status` measured just now.
        let floor = tokio::task::block_in_place(|| baseline(&srv));
        eprintln!("{agent} {event}: {best:?} (server status: {floor:?})");
        assert!(
            best < Duration::from_millis(100).max(floor * 2),
            "{agent} {event}: {best:?} (server status: {floor:?})"
        );
    }
}
