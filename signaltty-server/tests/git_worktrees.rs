//! GitService worktrees against real repositories: list (with the workspaces on each), create
//! (new and existing branch, default sibling path), open (reusing an open workspace), and remove
//! with each of its refusals; closing a workspace keeps its checkout and branch.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::repo::Repo;
use std::path::Path;

use common::{TestServer, assert_error, spawn_in};
use signaltty_proto::v1 as pb;
use tonic::Code;

async fn list(srv: &TestServer, ws: &str) -> Vec<pb::Worktree> {
    srv.git()
        .list_worktrees(pb::ListWorktreesRequest {
            workspace_id: ws.into(),
        })
        .await
        .expect("ListWorktrees")
        .into_inner()
        .worktrees
}

async fn create(
    srv: &TestServer,
    ws: &str,
    path: &str,
    branch: &str,
) -> pb::CreateWorktreeResponse {
    srv.git()
        .create_worktree(pb::CreateWorktreeRequest {
            workspace_id: ws.into(),
            path: path.into(),
            branch: branch.into(),
            ..Default::default()
        })
        .await
        .expect("CreateWorktree")
        .into_inner()
}

async fn remove(
    srv: &TestServer,
    ws: &str,
    path: &str,
) -> Result<tonic::Response<pb::RemoveWorktreeResponse>, tonic::Status> {
    srv.git()
        .remove_worktree(pb::RemoveWorktreeRequest {
            workspace_id: ws.into(),
            path: path.into(),
        })
        .await
}

async fn open(srv: &TestServer, ws: &str, path: &str) -> pb::OpenWorktreeResponse {
    srv.git()
        .open_worktree(pb::OpenWorktreeRequest {
            workspace_id: ws.into(),
            path: path.into(),
        })
        .await
        .expect("OpenWorktree")
        .into_inner()
}

async fn close(srv: &TestServer, ws: &str) {
    srv.workspaces()
        .close_workspace(pb::CloseWorkspaceRequest {
            workspace_id: ws.into(),
        })
        .await
        .expect("close");
}

#[tokio::test]
async fn create_list_open_close_and_remove_a_worktree() {
    let srv = TestServer::start().await;
    let repo = Repo::with_commit(&srv.dir_path().join("proj"));
    let main_ws = repo.workspace(&srv).await;
    let mut events = srv.subscribe(&[pb::EventKind::Git]).await;

    let trees = list(&srv, &main_ws.id).await;
    assert_eq!(trees.len(), 1);
    assert!(trees[0].is_main);
    assert_eq!(trees[0].branch, "main");
    assert_eq!(trees[0].workspace_ids, std::slice::from_ref(&main_ws.id));

    // A new branch at the default path: `<repo>-worktrees/<branch>` with `/` as `-`.
    let created = create(&srv, &main_ws.id, "", "agent/one").await;
    assert!(created.created_branch);
    let expected = srv.dir_path().join("proj-worktrees/agent-one");
    let expected = std::fs::canonicalize(expected).unwrap();
    let tree = created.worktree.unwrap();
    assert_eq!(tree.path, expected.display().to_string());
    assert_eq!(tree.branch, "agent/one");
    assert!(!tree.is_main);
    let ws = created.workspace.unwrap();
    assert_eq!(ws.cwd, tree.path);
    assert_eq!(ws.name, "agent/one");
    assert_eq!(ws.git.as_ref().unwrap().branch, "agent/one");
    assert_eq!(tree.workspace_ids, std::slice::from_ref(&ws.id));
    loop {
        let msg = common::next(&mut events).await;
        if let Some(pb::subscribe_response::Kind::Event(e)) = msg.kind
            && let Some(pb::event::Kind::WorktreeChanged(w)) = e.kind
        {
            assert_eq!(w.repo_root, repo.path.display().to_string());
            break;
        }
    }

    // Listed from git, main first, each with its workspaces.
    let trees = list(&srv, &ws.id).await;
    assert_eq!(trees.len(), 2);
    assert!(trees[0].is_main);
    assert_eq!(trees[0].workspace_ids, std::slice::from_ref(&main_ws.id));
    assert_eq!(trees[1].workspace_ids, std::slice::from_ref(&ws.id));
    assert!(repo.git(&["worktree", "list"]).contains("agent-one"));

    // Opening reuses the open workspace.
    let opened = open(&srv, &main_ws.id, &tree.path).await;
    assert!(opened.reused);
    assert_eq!(opened.workspace.unwrap().id, ws.id);

    // Closing keeps the checkout and the branch; opening again makes a new workspace.
    close(&srv, &ws.id).await;
    assert!(expected.join("a.txt").exists());
    assert!(
        repo.git(&["branch", "--list", "agent/one"])
            .contains("agent/one")
    );
    let opened = open(&srv, &main_ws.id, &tree.path).await;
    assert!(!opened.reused);
    let reopened = opened.workspace.unwrap();
    assert_eq!(reopened.cwd, tree.path);
    close(&srv, &reopened.id).await;

    // Removal: the checkout goes, the branch stays.
    remove(&srv, &main_ws.id, &tree.path).await.expect("remove");
    assert!(!expected.exists());
    assert!(
        repo.git(&["branch", "--list", "agent/one"])
            .contains("agent/one")
    );
    assert_eq!(list(&srv, &main_ws.id).await.len(), 1);
}

#[tokio::test]
async fn an_existing_branch_is_checked_out_and_a_busy_one_refused() {
    let srv = TestServer::start().await;
    let repo = Repo::with_commit(&srv.dir_path().join("proj"));
    repo.git(&["branch", "existing"]);
    let ws = repo.workspace(&srv).await;
    let path = srv.dir_path().join("elsewhere/ex");
    let created = create(&srv, &ws.id, path.to_str().unwrap(), "existing").await;
    assert!(!created.created_branch);
    assert_eq!(created.worktree.unwrap().branch, "existing");
    // `main` is checked out in the main checkout: git refuses, and says why.
    let other = srv.dir_path().join("elsewhere/m");
    assert_error(
        srv.git()
            .create_worktree(pb::CreateWorktreeRequest {
                workspace_id: ws.id.clone(),
                path: other.display().to_string(),
                branch: "main".into(),
                ..Default::default()
            })
            .await,
        Code::FailedPrecondition,
        "GIT_FAILED",
    );
    assert!(!other.exists());
    // Bad requests change nothing.
    for (path, branch) in [("relative/path", "b1"), ("", ""), ("", "-rf")] {
        assert_error(
            srv.git()
                .create_worktree(pb::CreateWorktreeRequest {
                    workspace_id: ws.id.clone(),
                    path: path.into(),
                    branch: branch.into(),
                    ..Default::default()
                })
                .await,
            Code::InvalidArgument,
            "BAD_PARAMS",
        );
    }
    // An existing path is refused before git runs.
    assert_error(
        srv.git()
            .create_worktree(pb::CreateWorktreeRequest {
                workspace_id: ws.id.clone(),
                path: repo.path.display().to_string(),
                branch: "b2".into(),
                ..Default::default()
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    assert!(!repo.git(&["branch", "--list", "b2"]).contains("b2"));
}

#[tokio::test]
async fn removal_refuses_main_in_use_dirty_and_locked_checkouts() {
    let srv = TestServer::start().await;
    let repo = Repo::with_commit(&srv.dir_path().join("proj"));
    let main_ws = repo.workspace(&srv).await;
    let created = create(&srv, &main_ws.id, "", "work").await;
    let tree = created.worktree.unwrap();
    let ws = created.workspace.unwrap();
    let path = tree.path.clone();

    assert_error(
        remove(&srv, &main_ws.id, &repo.path.display().to_string()).await,
        Code::FailedPrecondition,
        "WORKTREE_IS_MAIN",
    );
    assert_error(
        remove(&srv, &main_ws.id, &path).await,
        Code::FailedPrecondition,
        "WORKTREE_IN_USE",
    );
    close(&srv, &ws.id).await;

    // A live pane running there (from another workspace) also holds it.
    let pane = spawn_in(&srv, &main_ws.id, Path::new(&path), &["sleep", "60"]).await;
    assert_error(
        remove(&srv, &main_ws.id, &path).await,
        Code::FailedPrecondition,
        "WORKTREE_IN_USE",
    );
    srv.panes()
        .close_pane(pb::ClosePaneRequest {
            pane_id: pane.id.clone(),
        })
        .await
        .unwrap();

    // Untracked files count as dirty: git would lose them.
    std::fs::write(std::path::Path::new(&path).join("notes.txt"), "wip\n").unwrap();
    assert_error(
        remove(&srv, &main_ws.id, &path).await,
        Code::FailedPrecondition,
        "WORKTREE_DIRTY",
    );
    std::fs::remove_file(std::path::Path::new(&path).join("notes.txt")).unwrap();
    std::fs::write(std::path::Path::new(&path).join("a.txt"), "edited\n").unwrap();
    assert_error(
        remove(&srv, &main_ws.id, &path).await,
        Code::FailedPrecondition,
        "WORKTREE_DIRTY",
    );
    std::fs::write(std::path::Path::new(&path).join("a.txt"), "a\n").unwrap();

    repo.git(&["worktree", "lock", "--reason", "agent running", &path]);
    let locked = list(&srv, &main_ws.id).await;
    assert!(locked[1].locked);
    assert_eq!(locked[1].lock_reason, "agent running");
    assert_error(
        remove(&srv, &main_ws.id, &path).await,
        Code::FailedPrecondition,
        "WORKTREE_LOCKED",
    );
    repo.git(&["worktree", "unlock", &path]);

    // Unknown paths are a bad request, not a removal.
    assert_error(
        remove(&srv, &main_ws.id, "/nowhere/at/all").await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    remove(&srv, &main_ws.id, &path)
        .await
        .expect("clean, unlocked, unused: removed");
    assert!(repo.git(&["branch", "--list", "work"]).contains("work"));
}

#[tokio::test]
async fn a_refused_workspace_name_leaves_no_checkout_and_no_branch() {
    let srv = TestServer::start().await;
    let repo = Repo::with_commit(&srv.dir_path().join("proj"));
    let ws = repo.workspace(&srv).await;
    let path = srv.dir_path().join("elsewhere/long");
    let long = "n".repeat(201);
    // Too long a workspace name, given or taken from the branch: refused before git runs.
    for (branch, name) in [("feature", long.as_str()), (long.as_str(), "")] {
        assert_error(
            srv.git()
                .create_worktree(pb::CreateWorktreeRequest {
                    workspace_id: ws.id.clone(),
                    path: path.display().to_string(),
                    branch: branch.into(),
                    workspace_name: name.into(),
                    ..Default::default()
                })
                .await,
            Code::InvalidArgument,
            "BAD_PARAMS",
        );
        assert!(!path.exists(), "no checkout is left at {}", path.display());
        assert!(
            repo.git(&["branch", "--list", branch]).trim().is_empty(),
            "no branch {branch} is left"
        );
        assert_eq!(
            list(&srv, &ws.id).await.len(),
            1,
            "git lists the main checkout only"
        );
    }
    // The same request with a good name then works: nothing was left in its way.
    let created = srv
        .git()
        .create_worktree(pb::CreateWorktreeRequest {
            workspace_id: ws.id.clone(),
            path: path.display().to_string(),
            branch: "feature".into(),
            workspace_name: "feature work".into(),
            ..Default::default()
        })
        .await
        .expect("a retry with a good name")
        .into_inner();
    assert!(created.created_branch);
    assert_eq!(created.workspace.unwrap().name, "feature work");
}

/// Installs `.git/hooks/post-checkout` with `body`: git runs it once `worktree add` has made the
/// checkout, so it can make the request fail after the disk was touched.
fn post_checkout_hook(repo: &Repo, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let hook = repo.path.join(".git/hooks/post-checkout");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test]
async fn a_failure_after_git_made_the_checkout_leaves_no_checkout_and_no_branch() {
    let srv = TestServer::start().await;
    let repo = Repo::with_commit(&srv.dir_path().join("proj"));
    let ws = repo.workspace(&srv).await;
    let path = srv.dir_path().join("elsewhere/late");
    // Two late failures: git itself fails after the checkout (its hook exits 1), and the
    // checkout vanishes before the server opens a workspace on it (the hook removes it).
    for hook in ["exit 1", "rm -rf \"$PWD\""] {
        post_checkout_hook(&repo, hook);
        let workspaces_before = srv
            .workspaces()
            .list_workspaces(pb::ListWorkspacesRequest::default())
            .await
            .unwrap()
            .into_inner()
            .workspaces
            .len();
        let err = srv
            .git()
            .create_worktree(pb::CreateWorktreeRequest {
                workspace_id: ws.id.clone(),
                path: path.display().to_string(),
                branch: "late".into(),
                ..Default::default()
            })
            .await
            .expect_err(&format!("a post-checkout hook `{hook}` fails the request"));
        assert!(!err.message().is_empty(), "{err:?}");
        assert!(!path.exists(), "no checkout is left after `{hook}`");
        assert!(
            repo.git(&["branch", "--list", "late"]).trim().is_empty(),
            "no branch is left after `{hook}`"
        );
        assert_eq!(
            list(&srv, &ws.id).await.len(),
            1,
            "git lists the main checkout only after `{hook}`"
        );
        let workspaces_after = srv
            .workspaces()
            .list_workspaces(pb::ListWorkspacesRequest::default())
            .await
            .unwrap()
            .into_inner()
            .workspaces
            .len();
        assert_eq!(workspaces_before, workspaces_after, "no workspace is left");
    }
}
