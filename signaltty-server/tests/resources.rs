//! GetResources with the real server binary: a pane's figures cover its whole process tree (a
//! shell holding 24 MB and its child), the workspace sums its panes, the server reports itself;
//! and reading them costs an idle server nothing afterwards: with hibernation switched on in a
//! workspace and the figures read once, a server with no client makes no wake-ups (counted as
//! voluntary context switches of all its threads, as `tests/idle.rs` does).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use std::time::{Duration, Instant};

use server_process::{RealServer, Root, WAIT, wait_file_contains};
use signaltty_proto::v1 as pb;
use tonic::transport::Channel;

async fn resources(srv: &RealServer, ws: &str) -> Result<pb::GetResourcesResponse, tonic::Status> {
    srv.panes()
        .get_resources(pb::GetResourcesRequest {
            workspace_id: ws.into(),
        })
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panes_figures_cover_its_process_tree_and_add_up_per_workspace() {
    let root = Root::new();
    let srv = root.start().await;
    let ws = srv.workspace("big", &root.path().join("w")).await;
    let other = srv.workspace("small", &root.path().join("o")).await;
    // A shell that holds ~24 MB in a variable, with a `cat` child below it. The child says
    // "held" itself (a subshell that then becomes `cat`), so the line proves the child exists:
    // an `echo` in the shell could come before the shell forks `cat`.
    let big = srv
        .spawn(
            &ws.id,
            "",
            &[
                "/bin/sh",
                "-c",
                "x=$(head -c 24000000 /dev/zero | tr '\\0' a); (echo held-${#x}; exec cat); echo $x",
            ],
        )
        .await;
    srv.until_output(&big.id, "held-24000000").await;
    let small = srv.spawn(&other.id, "", &["/bin/cat"]).await;

    let all = resources(&srv, "").await.unwrap();
    let fig = |id: &str| all.panes.iter().find(|p| p.pane_id == id).unwrap().clone();
    let b = fig(&big.id);
    assert!(b.rss_bytes >= 24_000_000, "{b:?}");
    assert!(b.processes >= 2, "the shell and its cat: {b:?}");
    assert_eq!(b.workspace_id, ws.id);
    let s = fig(&small.id);
    assert!(s.rss_bytes > 0 && s.rss_bytes < 24_000_000, "{s:?}");
    assert_eq!(s.processes, 1);
    let w = all
        .workspaces
        .iter()
        .find(|w| w.workspace_id == ws.id)
        .unwrap();
    assert_eq!(w.live_panes, 1);
    assert_eq!(w.rss_bytes, b.rss_bytes);
    assert!(all.server_rss_bytes > 0);

    // One workspace only; an unknown one is NOT_FOUND.
    let only = resources(&srv, &other.id).await.unwrap();
    assert_eq!(only.panes.len(), 1);
    assert_eq!(only.panes[0].pane_id, small.id);
    let err = resources(&srv, "ws_doesnotexist").await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);

    // A pane without a process counts nothing.
    srv.write_input(&big.id, b"\x04").await.unwrap();
    srv.until_status(&big.id, pb::PaneStatus::Exited).await;
    let after = resources(&srv, &ws.id).await.unwrap();
    assert_eq!(after.panes[0].rss_bytes, 0);
    assert_eq!(after.workspaces[0].live_panes, 0);
}

/// (threads, sum of their voluntary context switches).
fn sample(pid: u32) -> (usize, u64) {
    let mut threads = 0;
    let mut switches = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let Ok(status) = std::fs::read_to_string(task.unwrap().path().join("status")) else {
            continue;
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

#[tokio::test]
async fn figures_read_once_and_hibernation_on_leave_an_idle_server_without_wakeups() {
    let root = Root::new();
    let mut srv = root.start().await;
    let ws = srv.workspace("idle", &root.path().join("ws")).await;
    srv.workspaces()
        .update_workspace_settings(pb::UpdateWorkspaceSettingsRequest {
            workspace_id: ws.id.clone(),
            settings: Some(pb::WorkspaceSettings {
                hibernate_after_minutes: 1,
                ..Default::default()
            }),
        })
        .await
        .unwrap();
    let mut last = String::new();
    for _ in 0..10 {
        last = srv.spawn(&ws.id, "", &["sleep", "100000"]).await.id;
    }
    let figures = resources(&srv, "").await.unwrap();
    assert_eq!(figures.panes.len(), 10);
    wait_file_contains(&root.snapshot(), &[&last]).await;
    let pid = srv.child.id();
    srv.channel = Channel::from_static("http://[::1]:1").connect_lazy();
    // The blocking pool (the /proc pass, the saver) winds down 1 s after its last job.
    let deadline = Instant::now() + WAIT;
    while sample(pid).0 > 2 {
        assert!(Instant::now() < deadline, "pool threads never ended");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (threads, before) = sample(pid);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (threads_after, after) = sample(pid);
    assert_eq!(threads, threads_after);
    assert_eq!(
        after - before,
        0,
        "wake-ups of an idle server with no client"
    );
}
