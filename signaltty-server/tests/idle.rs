//! Idle is idle: a real server with idle panes and no client makes no wake-ups at all once its
//! start-up has settled (tmux makes none either). Counted as the voluntary context switches of
//! every thread of the server process, from `/proc/<pid>/task/*/status`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use std::time::{Duration, Instant};

use server_process::{RealServer, Root, WAIT, wait_file_contains};
use tonic::transport::Channel;

/// Panes in the test: enough that any per-pane timer would show.
const PANES: usize = 20;

/// The threads an idle server keeps: the main thread (in `block_on`) and the one async worker.
/// Blocking-pool threads end 1 s after their last job.
const RESIDENT_THREADS: usize = 2;

/// The window over which nothing may wake.
const WINDOW: Duration = Duration::from_secs(3);

/// (threads, sum of their voluntary context switches).
fn sample(pid: u32) -> (usize, u64) {
    let mut threads = 0;
    let mut switches = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let Ok(status) = std::fs::read_to_string(task.unwrap().path().join("status")) else {
            continue; // the thread ended meanwhile
        };
        threads += 1;
        switches += status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
    }
    (threads, switches)
}

/// Waits (polling /proc: a thread's end has no event to wait on) until only the resident
/// threads are left, i.e. the blocking pool has wound down after the spawns; returns how long
/// that took.
async fn settle(pid: u32) -> Duration {
    let started = Instant::now();
    let deadline = started + WAIT;
    while sample(pid).0 > RESIDENT_THREADS {
        assert!(
            Instant::now() < deadline,
            "blocking-pool threads never ended: {:?}",
            sample(pid)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    started.elapsed()
}

/// Wake-ups of `pid` over [`WINDOW`]; the thread set must not change meanwhile.
async fn wakeups(pid: u32) -> u64 {
    let (threads, before) = sample(pid);
    tokio::time::sleep(WINDOW).await;
    let (threads_after, after) = sample(pid);
    assert_eq!(
        threads, threads_after,
        "a thread started or ended in the idle window"
    );
    after - before
}

/// A server with [`PANES`] idle panes, once the state that records them is saved (the saver
/// writes a couple of seconds after the last change: part of start-up settling).
async fn server_with_idle_panes(root: &Root) -> RealServer {
    let srv = root.start().await;
    let ws = srv.workspace("idle", &root.path().join("ws")).await;
    let mut last = String::new();
    for _ in 0..PANES {
        last = srv.spawn(&ws.id, "", &["sleep", "100000"]).await.id;
    }
    wait_file_contains(&root.snapshot(), &[&last]).await;
    srv
}

#[tokio::test]
async fn idle_panes_without_clients_make_no_wakeups() {
    let root = Root::new();
    let mut srv = server_with_idle_panes(&root).await;
    let pid = srv.child.id();
    // Hang up: the server must not keep anything ticking for a client that has gone.
    srv.channel = Channel::from_static("http://[::1]:1").connect_lazy();
    // Pool threads (the saver's last job) end 1 s after their last job (tokio's default, 10 s,
    // kept the server waking long after start-up); 6 s leaves room for a loaded machine.
    let settled = settle(pid).await;
    assert!(
        settled < Duration::from_secs(6),
        "settled only after {settled:?}"
    );
    let woke = wakeups(pid).await;
    assert_eq!(
        woke, 0,
        "{PANES} idle panes, no client: {woke} wake-ups in {WINDOW:?}"
    );
}

#[tokio::test]
async fn idle_claude_panes_watching_their_transcripts_make_no_wakeups() {
    let root = Root::new();
    let mut srv = server_with_idle_panes(&root).await;
    let pid = srv.child.id();
    // Each pane becomes a Claude pane whose transcript is watched (for Claude's unreported
    // interruptions), then ends its turn: an idle agent must cost nothing, watch included.
    let panes = srv
        .panes()
        .list_panes(signaltty_proto::v1::ListPanesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .panes;
    assert_eq!(panes.len(), PANES);
    let transcripts = root.path().join("transcripts");
    std::fs::create_dir_all(&transcripts).unwrap();
    for (i, pane) in panes.iter().enumerate() {
        let transcript = transcripts.join(format!("s{i}.jsonl"));
        std::fs::write(&transcript, "{}\n").unwrap();
        for event in ["UserPromptSubmit", "Stop"] {
            let payload = serde_json::json!({
                "session_id": format!("s{i}"),
                "hook_event_name": event,
                "transcript_path": transcript,
                "prompt": "hello",
            });
            srv.agents()
                .report_hook_event(signaltty_proto::v1::ReportHookEventRequest {
                    agent: signaltty_proto::v1::AgentKind::Claude as i32,
                    event: event.to_owned(),
                    payload: payload.to_string().into_bytes(),
                    pane_id: pane.id.clone(),
                    ..Default::default()
                })
                .await
                .unwrap();
        }
    }
    // Hang up, then let the saver write the agents' state and its pool thread end.
    srv.channel = Channel::from_static("http://[::1]:1").connect_lazy();
    wait_file_contains(&root.snapshot(), &[&format!("s{}", PANES - 1)]).await;
    settle(pid).await;
    let woke = wakeups(pid).await;
    assert_eq!(
        woke, 0,
        "{PANES} idle Claude panes, no client: {woke} wake-ups in {WINDOW:?}"
    );
}

#[tokio::test]
async fn an_idle_connected_client_costs_only_what_the_connection_asks_for() {
    let root = Root::new();
    let srv = server_with_idle_panes(&root).await;
    let pid = srv.child.id();
    // The test's connection stays open and idle. HTTP/2 keepalive pings, if configured, are
    // the only deliberate cost of an idle connection: at most one per second over the window.
    settle(pid).await;
    let woke = wakeups(pid).await;
    eprintln!("{PANES} idle panes, one idle connected client: {woke} wake-ups in {WINDOW:?}");
    assert!(
        woke <= WINDOW.as_secs(),
        "{woke} wake-ups in {WINDOW:?} with one idle client"
    );
    drop(srv);
}
