//! The TUI's git requests against the real `signaltty-server` binary and real git repositories
//! in a temp dir, through the same code the runtime runs (`runtime::requests::run_git`): the
//! diff view's reads (a changed file's hunks; a directory outside any repository), and the
//! "new agent in a new worktree" chain — CreateWorktree → its workspace → SpawnPane there; an
//! existing worktree reusing its workspace; a branch that cannot be checked out and a
//! non-repository refused with nothing made; and a pane that cannot start undoing the worktree
//! and workspace the chain made.
//!
//! Needs the server binary next to the TUI's: `cargo build -p signaltty-server`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::git;
use signaltty_client::{AutoStart, Client, Target};
use signaltty_proto::v1 as pb;
use signaltty_tui::app::Reply;
use signaltty_tui::git::{Checkout, GitReply, GitRequest, WorktreeSpawn};
use signaltty_tui::runtime::requests::run_git;

const WAIT: Duration = Duration::from_secs(60);

/// A server of our own in a temp dir, killed when dropped.
struct Server {
    child: Child,
    client: Client,
    dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn server_bin() -> PathBuf {
    let path =
        PathBuf::from(env!("CARGO_BIN_EXE_signaltty-tui")).with_file_name("signaltty-server");
    assert!(
        path.is_file(),
        "{} not found: build it first (cargo build -p signaltty-server)",
        path.display()
    );
    path
}

impl Server {
    async fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["home", "cfg"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        let socket = dir.path().join("run/s.sock");
        let child = Command::new(server_bin())
            .arg("--socket")
            .arg(&socket)
            .arg("--state-dir")
            .arg(dir.path().join("state"))
            .env("HOME", dir.path().join("home"))
            .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
            .env("SHELL", "/bin/sh")
            .env_remove("SIGNALTTY_PANE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let target = Target::new(&socket);
        let deadline = Instant::now() + WAIT;
        let client = loop {
            // Readiness, not a race: the server answers once its socket is listening.
            match signaltty_client::connect(&target, AutoStart::No).await {
                Ok(client) if client.status().await.is_ok() => break client,
                _ if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                other => panic!("the server did not answer: {:?}", other.err()),
            }
        };
        Server { child, client, dir }
    }

    async fn workspace(&self, dir: &Path) -> pb::Workspace {
        self.client
            .workspaces()
            .create_workspace(pb::CreateWorkspaceRequest {
                name: String::new(),
                cwd: dir.display().to_string(),
                settings: None,
            })
            .await
            .unwrap()
            .into_inner()
            .workspace
            .unwrap()
    }

    /// The one reply of a git request: its answer, or the toast's text.
    async fn git(&self, request: GitRequest) -> Result<GitReply, String> {
        let mut replies = run_git(request, self.client.channel()).await;
        assert_eq!(replies.len(), 1, "{replies:?}");
        match replies.remove(0) {
            Reply::Git(reply) => Ok(*reply),
            Reply::Failed(text) => Err(text),
            other => panic!("{other:?}"),
        }
    }

    async fn worktrees(&self, ws: &str) -> Vec<pb::Worktree> {
        match self
            .git(GitRequest::ListWorktrees {
                workspace_id: ws.into(),
            })
            .await
        {
            Ok(GitReply::Worktrees { result, .. }) => result.unwrap(),
            other => panic!("{other:?}"),
        }
    }

    async fn workspaces(&self) -> Vec<pb::Workspace> {
        self.client
            .workspaces()
            .list_workspaces(pb::ListWorkspacesRequest::default())
            .await
            .unwrap()
            .into_inner()
            .workspaces
    }
}

/// A repository with one commit of `a.txt` (three lines), then its second line changed.
fn repo(root: &Path) -> PathBuf {
    let dir = root.join("proj");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = std::fs::canonicalize(dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "init"]);
    std::fs::write(dir.join("a.txt"), "one\nTWO, changed\nthree\n").unwrap();
    dir
}

fn spawn(ws: &str, checkout: Checkout, argv: &[&str]) -> GitRequest {
    GitRequest::SpawnInWorktree(WorktreeSpawn {
        workspace_id: ws.into(),
        checkout,
        argv: argv.iter().map(|s| s.to_string()).collect(),
        title: "agent".into(),
        env: vec![("GREETING".into(), "hello world".into())],
        cols: 80,
        rows: 24,
    })
}

fn new(branch: &str) -> Checkout {
    Checkout::New {
        branch: branch.into(),
    }
}

#[tokio::test]
async fn diff_reads_show_a_changed_file_and_say_when_there_is_no_repository() {
    let srv = Server::start().await;
    let proj = repo(srv.dir.path());
    let ws = srv.workspace(&proj).await;
    let files = match srv
        .git(GitRequest::WorkspaceDiff {
            workspace_id: ws.id.clone(),
            seq: 7,
        })
        .await
    {
        Ok(GitReply::WorkspaceDiff { seq: 7, result }) => result.unwrap().files,
        other => panic!("{other:?}"),
    };
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(
        (files[0].path.as_str(), files[0].added, files[0].removed),
        ("a.txt", 1, 1)
    );
    let diff = match srv
        .git(GitRequest::FileDiff {
            workspace_id: ws.id.clone(),
            path: "a.txt".into(),
            old_path: String::new(),
            seq: 8,
        })
        .await
    {
        Ok(GitReply::FileDiff { seq: 8, result }) => result.unwrap(),
        other => panic!("{other:?}"),
    };
    assert_eq!(diff.kind, pb::DiffKind::Text as i32);
    let lines: Vec<(i32, u32, u32, &str)> = diff.hunks[0]
        .lines
        .iter()
        .map(|l| (l.kind, l.old_line, l.new_line, l.text.as_str()))
        .collect();
    let (c, a, r) = (
        pb::LineKind::Context as i32,
        pb::LineKind::Added as i32,
        pb::LineKind::Removed as i32,
    );
    assert_eq!(
        lines,
        [
            (c, 1, 1, "one"),
            (r, 2, 0, "two"),
            (a, 0, 2, "TWO, changed"),
            (c, 3, 3, "three")
        ]
    );

    let plain = srv.dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let plain_ws = srv.workspace(&plain).await;
    match srv
        .git(GitRequest::WorkspaceDiff {
            workspace_id: plain_ws.id,
            seq: 9,
        })
        .await
    {
        Ok(GitReply::WorkspaceDiff {
            result: Err(failure),
            ..
        }) => assert_eq!(failure.reason, "NOT_A_REPO", "{failure:?}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn new_agent_in_a_new_worktree_and_every_way_it_can_fail() {
    let srv = Server::start().await;
    let proj = repo(srv.dir.path());
    let ws = srv.workspace(&proj).await;

    // The chain: a worktree on a new branch, its workspace, a pane running there.
    let argv = ["sh", "-c", "echo \"$GREETING\"; exec sleep 600"];
    let (new_ws, pane_id) = match srv.git(spawn(&ws.id, new("agent-1"), &argv)).await {
        Ok(GitReply::SpawnedInWorktree {
            workspace,
            pane_id,
            note,
            ..
        }) => {
            assert!(note.contains("new branch agent-1"), "{note}");
            (workspace, pane_id)
        }
        other => panic!("{other:?}"),
    };
    let checkout = format!("{}-worktrees/agent-1", proj.display());
    assert_eq!(new_ws.cwd, checkout);
    let pane = srv
        .client
        .panes()
        .get_pane(pb::GetPaneRequest {
            pane_id: pane_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .pane
        .unwrap();
    assert_eq!(pane.workspace_id, new_ws.id);
    assert_eq!(pane.cwd, checkout);
    assert_eq!(pane.title, "agent");
    let trees = srv.worktrees(&ws.id).await;
    let tree = trees.iter().find(|t| t.path == checkout).expect("listed");
    assert_eq!(tree.branch, "agent-1");
    assert_eq!(tree.workspace_ids, std::slice::from_ref(&new_ws.id));

    // An existing worktree: its open workspace is reused, the pane goes there.
    match srv
        .git(spawn(
            &ws.id,
            Checkout::Existing {
                path: checkout.clone(),
            },
            &["sleep", "600"],
        ))
        .await
    {
        Ok(GitReply::SpawnedInWorktree { workspace, .. }) => {
            assert_eq!(workspace.id, new_ws.id)
        }
        other => panic!("{other:?}"),
    }

    // Refusals: the same branch again (checked out there already), and a directory outside
    // any repository. Nothing is made.
    let before = (
        srv.worktrees(&ws.id).await.len(),
        srv.workspaces().await.len(),
    );
    match srv.git(spawn(&ws.id, new("agent-1"), &argv)).await {
        Err(text) => assert!(!text.is_empty()),
        other => panic!("{other:?}"),
    }
    let plain = srv.dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let plain_ws = srv.workspace(&plain).await;
    match srv.git(spawn(&plain_ws.id, new("agent-x"), &argv)).await {
        Err(text) => assert!(text.contains("NOT_A_REPO"), "{text}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        (
            srv.worktrees(&ws.id).await.len(),
            srv.workspaces().await.len()
        ),
        (before.0, before.1 + 1),
        "only the test's own plain workspace was added"
    );

    // A pane that cannot start: the worktree and workspace the chain made are undone.
    match srv
        .git(spawn(&ws.id, new("agent-2"), &["/nonexistent/agent"]))
        .await
    {
        Err(text) => {
            assert!(text.contains("did not start"), "{text}");
            assert!(text.contains("its workspace closed"), "{text}");
            assert!(text.contains("worktree removed"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    let gone = format!("{}-worktrees/agent-2", proj.display());
    assert!(srv.worktrees(&ws.id).await.iter().all(|t| t.path != gone));
    assert!(srv.workspaces().await.iter().all(|w| w.cwd != gone));
    assert!(!Path::new(&gone).exists());
}
