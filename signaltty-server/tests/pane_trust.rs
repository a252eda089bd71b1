//! Programs inside panes are not the person at a client (issue 14 §1): real panes run the real
//! `signaltty` CLI against a real server, and the server recognises them by their process
//! ancestry — also after a double fork and `setsid` — while the test process, outside every
//! pane, keeps every right.
//!
//! Needs the CLI binary: `cargo build -p signaltty-cli` (or `SIGNALTTY_CLI_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{TestServer, WAIT, cli_bin, fixtures, spawn};
use signaltty_proto::v1 as pb;

/// Waits until `path` exists and holds a line starting with `rc=`; returns its content.
async fn finished(path: &Path) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.contains("rc=")
        {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{} never finished",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A pane in `ws` running `script` with `$S` = the CLI.
async fn run_in_pane(srv: &TestServer, ws: &str, script: &str) -> pb::Pane {
    let cli = cli_bin();
    let full = format!("export S='{}'; {script}; exec sleep 600", cli.display());
    spawn(srv, ws, &["sh", "-c", &full]).await
}

/// A pending permission request in `pane`, reported by the test (outside every pane).
async fn pending_decision(
    srv: &TestServer,
    pane: &str,
) -> (pb::Decision, tokio::task::JoinHandle<()>) {
    let payload = std::fs::read(fixtures("claude").join("PermissionRequest.json")).unwrap();
    let mut agents = srv.agents();
    let pane_id = pane.to_owned();
    let waiter = tokio::spawn(async move {
        let _ = agents
            .report_hook_event(pb::ReportHookEventRequest {
                agent: pb::AgentKind::Claude as i32,
                event: "PermissionRequest".into(),
                payload,
                pane_id,
                wait_for_answer: true,
                timeout_ms: 60_000,
                ..Default::default()
            })
            .await;
    });
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(d) = srv
            .pending_decisions()
            .await
            .into_iter()
            .find(|d| d.pane_id == pane)
        {
            return (d, waiter);
        }
        assert!(Instant::now() < deadline, "no pending decision appeared");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn out(srv: &TestServer, name: &str) -> PathBuf {
    srv.dir.path().join(name)
}

#[tokio::test]
async fn a_program_in_a_pane_cannot_answer_even_after_a_double_fork_but_the_user_can() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    // The agent's pane: it sits there, its permission request pending.
    let agent = spawn(&srv, &ws.id, &["sh", "-c", "exec sleep 600"]).await;
    let (d, waiter) = pending_decision(&srv, &agent.id).await;
    let answer = format!("\"$S\" decision answer {} {} once", agent.id, d.id);

    // 1. A program in a pane (the same workspace, even) runs the CLI.
    let direct = out(&srv, "direct");
    run_in_pane(
        &srv,
        &ws.id,
        &format!("{answer} > {0} 2>&1; echo rc=$? >> {0}", direct.display()),
    )
    .await;
    let text = finished(&direct).await;
    assert!(!text.contains("rc=0"), "refused: {text}");
    assert!(
        text.contains("programs in panes may not answer permission decisions")
            && text.contains("policy.pane_clients_may_answer_decisions"),
        "the refusal says why and how to allow it: {text}"
    );

    // 2. Double-forked and setsid: re-parented to the server (a subreaper), still a pane's.
    let escaped = out(&srv, "escaped");
    run_in_pane(
        &srv,
        &ws.id,
        &format!(
            // The subshell has exited when `( … & )` returns, so once `go` exists the setsid'd
            // shell is an orphan, re-parented to the server.
            "( setsid sh -c 'while [ ! -e {0}.go ]; do sleep 0.02; done; {answer} > {0} 2>&1; echo rc=$? >> {0}' & ); touch {0}.go",
            escaped.display()
        ),
    )
    .await;
    let text = finished(&escaped).await;
    assert!(
        !text.contains("rc=0"),
        "refused after a double fork: {text}"
    );
    assert!(
        text.contains("left the pane's process tree") && text.contains("may not answer"),
        "recognised as escaped from a pane: {text}"
    );

    // Still pending: nothing was answered.
    let pending = srv.pending_decisions().await;
    assert!(pending.iter().any(|x| x.id == d.id));

    // 3. The user's shell, outside every pane, runs the same command and it works.
    let user = tokio::process::Command::new(cli_bin())
        .args(["--socket"])
        .arg(srv.socket())
        .args(["decision", "answer", &agent.id, &d.id, "once"])
        .env_remove("SIGNALTTY_PANE")
        .output()
        .await
        .unwrap();
    assert!(
        user.status.success(),
        "{}",
        String::from_utf8_lossy(&user.stderr)
    );
    tokio::time::timeout(WAIT, waiter).await.unwrap().unwrap();
}

#[tokio::test]
async fn the_policy_can_be_relaxed_explicitly() {
    let srv = TestServer::start_with(|c| c.pane_clients.may_answer_decisions = true).await;
    let ws = srv.workspace("w").await;
    let agent = spawn(&srv, &ws.id, &["sh", "-c", "exec sleep 600"]).await;
    let (d, waiter) = pending_decision(&srv, &agent.id).await;
    let done = out(&srv, "relaxed");
    run_in_pane(
        &srv,
        &ws.id,
        &format!(
            "\"$S\" decision answer {} {} once > {2} 2>&1; echo rc=$? >> {2}",
            agent.id,
            d.id,
            done.display()
        ),
    )
    .await;
    let text = finished(&done).await;
    assert!(text.contains("rc=0"), "allowed by config: {text}");
    tokio::time::timeout(WAIT, waiter).await.unwrap().unwrap();
}

#[tokio::test]
async fn a_pane_reports_hooks_for_itself_and_types_only_into_its_own_workspace() {
    let srv = TestServer::start().await;
    let mine = srv.workspace("mine").await;
    let other = srv.workspace("other").await;
    let neighbour = spawn(&srv, &mine.id, &["sh", "-c", "exec sleep 600"]).await;
    let stranger = spawn(&srv, &other.id, &["sh", "-c", "exec sleep 600"]).await;
    let stop = fixtures("claude").join("Stop.json");

    let results = out(&srv, "results");
    let r = results.display();
    let script = format!(
        "\"$S\" hook-event --agent claude --event Stop --pane {stranger} --payload-stdin < {stop} > {r}.hook 2>&1; echo hook_other=$? >> {r}; \
         \"$S\" hook-event --agent claude --event Stop --payload-stdin < {stop} >> {r}.hook 2>&1; echo hook_own=$? >> {r}; \
         \"$S\" pane send {stranger} hello > {r}.send 2>&1; echo send_other=$? >> {r}; \
         \"$S\" pane signal {stranger} INT >> {r}.send 2>&1; echo signal_other=$? >> {r}; \
         \"$S\" pane close {stranger} >> {r}.send 2>&1; echo close_other=$? >> {r}; \
         \"$S\" pane send {neighbour} hello >> {r}.send 2>&1; echo send_own=$? >> {r}; \
         echo rc=done >> {r}",
        stranger = stranger.id,
        neighbour = neighbour.id,
        stop = stop.display(),
    );
    run_in_pane(&srv, &mine.id, &script).await;
    let text = finished(&results).await;
    let hook_log = std::fs::read_to_string(format!("{r}.hook")).unwrap_or_default();
    let send_log = std::fs::read_to_string(format!("{r}.send")).unwrap_or_default();
    // `hook-event` never fails its agent (it exits 0 and says why on stderr).
    assert!(
        hook_log.contains("DENIED_IN_PANE") && hook_log.contains("another pane"),
        "{hook_log}"
    );
    assert!(
        srv.pane(&stranger.id).await.agent.is_none(),
        "nothing reported for the stranger"
    );
    assert!(text.contains("hook_own=0"), "{text}\n{hook_log}");
    for refused in ["send_other", "signal_other", "close_other"] {
        assert!(
            text.contains(&format!("{refused}=")) && !text.contains(&format!("{refused}=0")),
            "{refused}: {text}\n{send_log}"
        );
    }
    assert!(send_log.contains("another workspace"), "{send_log}");
    assert!(text.contains("send_own=0"), "{text}\n{send_log}");
    // The stranger pane is still there, untouched.
    assert!(srv.pane(&stranger.id).await.id == stranger.id);
}

/// A pane's program that reports at once (an agent's first hook, before the server has written
/// down the new pane's pid) is still placed in its own pane, never taken for an escaped process.
/// Many panes start together so that the server is busy when their reports connect.
#[tokio::test]
async fn a_program_that_reports_as_soon_as_it_starts_is_placed_in_its_new_pane() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let stop = fixtures("claude").join("Stop.json");
    let logs: Vec<PathBuf> = (0..12).map(|i| out(&srv, &format!("hook{i}"))).collect();
    let scripts: Vec<String> = logs
        .iter()
        .map(|log| {
            format!(
                "\"$S\" hook-event --agent claude --event Stop --payload-stdin < {stop} > {log} 2>&1; echo rc=$? >> {log}",
                stop = stop.display(),
                log = log.display()
            )
        })
        .collect();
    let panes =
        futures_util::future::join_all(scripts.iter().map(|s| run_in_pane(&srv, &ws.id, s))).await;
    for (pane, log) in panes.iter().zip(&logs) {
        let text = finished(log).await;
        assert!(!text.contains("DENIED"), "pane {}: {text}", pane.id);
        assert!(
            srv.pane(&pane.id).await.agent.is_some(),
            "pane {} got its own report: {text}",
            pane.id
        );
    }
}

/// What a same-uid pane program writing to another pane's terminal device can do
/// (docs/security.md, "A pane program can write to another pane's terminal"): fake its output
/// — but never create a decision or an agent state, which come only from placed hooks.
#[tokio::test]
async fn writing_to_another_pane_s_terminal_fakes_output_but_no_decision() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("victim").await;
    let victim = spawn(
        &srv,
        &ws.id,
        &["sh", "-c", "echo \"at $(tty) .\"; exec cat"],
    )
    .await;
    let screen = common::until_screen(&srv, &victim.id, |s| s.contains(" .")).await;
    let tty = screen
        .split_whitespace()
        .find(|w| w.starts_with("/dev/pts/"))
        .expect("the victim's terminal")
        .to_owned();
    let other = srv.workspace("writer").await;
    run_in_pane(
        &srv,
        &other.id,
        &format!("printf 'Allow Bash? rm -rf / [1] yes\\n' > '{tty}'"),
    )
    .await;
    common::until_screen(&srv, &victim.id, |s| s.contains("Allow Bash? rm -rf /")).await;
    let pending = srv
        .decisions()
        .list_pending_decisions(pb::ListPendingDecisionsRequest::default())
        .await
        .unwrap()
        .into_inner()
        .decisions;
    assert!(pending.is_empty(), "output made a decision: {pending:?}");
    let after = srv.pane(&victim.id).await;
    assert!(after.agent.is_none(), "output made an agent: {after:?}");
}
