//! Live git context: a `git checkout` run in a real pane reaches the event stream through the
//! server's inotify watch (no polling, no RefreshGit), and a pane's OSC 7 cwd report makes the
//! server re-read its workspace's context.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::repo::Repo;
use common::{TestServer, next};
use signaltty_proto::v1 as pb;

/// Waits for a GitContextChanged of `ws` whose context satisfies `want`.
async fn context_change(
    events: &mut tonic::Streaming<pb::SubscribeResponse>,
    ws: &str,
    want: impl Fn(&pb::GitContext) -> bool,
) -> pb::GitContext {
    loop {
        let msg = next(events).await;
        if let Some(pb::subscribe_response::Kind::Event(e)) = msg.kind
            && let Some(pb::event::Kind::GitContextChanged(c)) = e.kind
            && c.workspace_id == ws
            && want(c.git.as_ref().unwrap())
        {
            return c.git.unwrap();
        }
    }
}

#[tokio::test]
async fn a_checkout_in_a_pane_reaches_the_event_stream() {
    let srv = TestServer::start().await;
    let repo = Repo::init(&srv.dir_path().join("live"));
    repo.write("a.txt", "a\n");
    repo.commit_all("init");
    repo.git(&["branch", "feature"]);
    let ws = repo.workspace(&srv).await;
    assert_eq!(ws.git.as_ref().unwrap().branch, "main");
    let mut events = srv.subscribe(&[pb::EventKind::Git]).await;
    let pane = srv
        .panes()
        .spawn_pane(pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            argv: vec![
                "git".into(),
                "checkout".into(),
                "-q".into(),
                "feature".into(),
            ],
            cwd: repo.path.display().to_string(),
            cols: 80,
            rows: 24,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .pane
        .unwrap();
    let git = context_change(&mut events, &ws.id, |g| g.branch == "feature").await;
    assert!(git.is_repo);
    assert!(!pane.id.is_empty());

    // A commit made outside the server moves the branch and cleans the checkout.
    repo.write("a.txt", "b\n");
    repo.git(&["add", "a.txt"]);
    context_change(&mut events, &ws.id, |g| g.dirty).await;
    repo.git(&["commit", "-q", "-m", "b"]);
    context_change(&mut events, &ws.id, |g| !g.dirty && g.branch == "feature").await;
}

#[tokio::test]
async fn a_cwd_report_from_a_pane_refreshes_its_workspace() {
    let srv = TestServer::start().await;
    let repo = Repo::init(&srv.dir_path().join("osc7"));
    repo.write("a.txt", "a\n");
    repo.commit_all("init");
    let ws = repo.workspace(&srv).await;
    assert!(!ws.git.as_ref().unwrap().dirty);
    let mut events = srv.subscribe(&[pb::EventKind::Git]).await;
    // Editing a tracked file touches nothing under .git: no inotify signal for it.
    repo.write("a.txt", "edited\n");
    let report = format!(
        "printf '\\033]7;file://localhost{}\\007'; sleep 30",
        repo.path.display()
    );
    srv.panes()
        .spawn_pane(pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            argv: vec!["sh".into(), "-c".into(), report],
            cols: 80,
            rows: 24,
            ..Default::default()
        })
        .await
        .unwrap();
    let git = context_change(&mut events, &ws.id, |g| g.dirty).await;
    assert_eq!(git.branch, "main");
}
