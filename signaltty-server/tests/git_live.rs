//! Live git context: a `git checkout` run in a real pane reaches the event stream through the
//! server's inotify watch (no polling, no RefreshGit), a pane's OSC 7 cwd report makes the
//! server re-read its workspace's context, `git worktree add/remove` run in a pane is announced
//! as `WorktreeChanged`, and an edit without an index write is seen when the agent's turn ends.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::repo::Repo;
use common::{TestServer, fixtures, next, spawn, spawn_in};
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
    let repo = Repo::with_commit(&srv.dir_path().join("live"));
    repo.git(&["branch", "feature"]);
    let ws = repo.workspace(&srv).await;
    assert_eq!(ws.git.as_ref().unwrap().branch, "main");
    let mut events = srv.subscribe(&[pb::EventKind::Git]).await;
    let pane = spawn_in(
        &srv,
        &ws.id,
        &repo.path,
        &["git", "checkout", "-q", "feature"],
    )
    .await;
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
    let repo = Repo::with_commit(&srv.dir_path().join("osc7"));
    let ws = repo.workspace(&srv).await;
    assert!(!ws.git.as_ref().unwrap().dirty);
    let mut events = srv.subscribe(&[pb::EventKind::Git]).await;
    // Editing a tracked file touches nothing under .git: no inotify signal for it.
    repo.write("a.txt", "edited\n");
    let report = format!(
        "printf '\\033]7;file://localhost{}\\007'; sleep 30",
        repo.path.display()
    );
    spawn(&srv, &ws.id, &["sh", "-c", &report]).await;
    let git = context_change(&mut events, &ws.id, |g| g.dirty).await;
    assert_eq!(git.branch, "main");
}

/// Waits for WorktreeChanged events of `main` until the listed worktrees satisfy `want` (each
/// event re-lists: the first may announce a checkout git is still creating).
async fn worktrees_until(
    srv: &TestServer,
    events: &mut tonic::Streaming<pb::SubscribeResponse>,
    ws: &str,
    main: &std::path::Path,
    want: impl Fn(&[pb::Worktree]) -> bool,
) -> Vec<pb::Worktree> {
    loop {
        let msg = next(events).await;
        if let Some(pb::subscribe_response::Kind::Event(e)) = msg.kind
            && let Some(pb::event::Kind::WorktreeChanged(c)) = e.kind
        {
            assert_eq!(std::path::Path::new(&c.repo_root), main);
            let list = srv
                .git()
                .list_worktrees(pb::ListWorktreesRequest {
                    workspace_id: ws.into(),
                })
                .await
                .unwrap()
                .into_inner()
                .worktrees;
            if want(&list) {
                return list;
            }
        }
    }
}

#[tokio::test]
async fn git_worktree_add_and_remove_in_a_pane_reach_the_event_stream() {
    let srv = TestServer::start().await;
    let repo = Repo::with_commit(&srv.dir_path().join("wt-live"));
    let ws = repo.workspace(&srv).await;
    let mut events = srv.subscribe(&[pb::EventKind::Git]).await;
    let linked = repo.path.parent().unwrap().join("wt-live-side");
    let shown = linked.display().to_string();

    // The repository has no `worktrees/` directory yet: the first add creates it.
    spawn_in(
        &srv,
        &ws.id,
        &repo.path,
        &["git", "worktree", "add", "-q", "-b", "side", &shown],
    )
    .await;
    let list = worktrees_until(&srv, &mut events, &ws.id, &repo.path, |l| {
        l.iter()
            .any(|w| w.path == shown && !w.locked && w.branch == "side")
    })
    .await;
    assert_eq!(list.len(), 2);

    // A second one, into an existing `worktrees/`, then both removed again.
    let other = repo.path.parent().unwrap().join("wt-live-other");
    let other_shown = other.display().to_string();
    spawn_in(
        &srv,
        &ws.id,
        &repo.path,
        &["git", "worktree", "add", "-q", "-b", "other", &other_shown],
    )
    .await;
    worktrees_until(&srv, &mut events, &ws.id, &repo.path, |l| {
        l.iter().any(|w| w.path == other_shown && !w.locked)
    })
    .await;
    spawn_in(
        &srv,
        &ws.id,
        &repo.path,
        &["git", "worktree", "remove", &shown],
    )
    .await;
    worktrees_until(&srv, &mut events, &ws.id, &repo.path, |l| {
        l.len() == 2 && !l.iter().any(|w| w.path == shown)
    })
    .await;
    spawn_in(
        &srv,
        &ws.id,
        &repo.path,
        &["git", "worktree", "remove", &other_shown],
    )
    .await;
    let list = worktrees_until(&srv, &mut events, &ws.id, &repo.path, |l| l.len() == 1).await;
    assert!(list[0].is_main);
    assert!(!linked.exists() && !other.exists());
}

#[tokio::test]
async fn an_agent_turn_ending_refreshes_the_dirty_flag() {
    let srv = TestServer::start().await;
    let repo = Repo::with_commit(&srv.dir_path().join("turn"));
    let ws = repo.workspace(&srv).await;
    assert!(!ws.git.as_ref().unwrap().dirty);
    let pane = spawn_in(&srv, &ws.id, &repo.path, &["sleep", "60"])
        .await
        .id;
    let hook = |event: &str| pb::ReportHookEventRequest {
        agent: pb::AgentKind::Claude as i32,
        event: event.into(),
        payload: std::fs::read(fixtures("claude").join(format!("{event}.json"))).unwrap(),
        pane_id: pane.clone(),
        ..Default::default()
    };
    let mut events = srv
        .subscribe(&[pb::EventKind::Git, pb::EventKind::Lifecycle])
        .await;
    srv.agents()
        .report_hook_event(hook("UserPromptSubmit"))
        .await
        .unwrap();
    // The agent edits a tracked file (nothing under .git changes), then its turn ends.
    repo.write("a.txt", "edited by the agent\n");
    srv.agents().report_hook_event(hook("Stop")).await.unwrap();
    let mut left_working = false;
    loop {
        let msg = next(&mut events).await;
        let Some(pb::subscribe_response::Kind::Event(e)) = msg.kind else {
            continue;
        };
        match e.kind {
            Some(pb::event::Kind::LifecycleChanged(c))
                if c.pane_id == pane && c.prev == pb::Lifecycle::Working as i32 =>
            {
                left_working = true;
            }
            Some(pb::event::Kind::GitContextChanged(c)) if c.workspace_id == ws.id => {
                let git = c.git.unwrap();
                if git.dirty {
                    assert!(left_working, "the refresh follows the end of the turn");
                    break;
                }
            }
            _ => {}
        }
    }
}
