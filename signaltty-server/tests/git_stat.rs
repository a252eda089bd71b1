//! The server's own stat pass (`git/stat.rs`: each tracked file's stat data against the index,
//! `fstatat` relative to its directory) on a real repository: every kind of change made behind
//! the server's back is seen by the very next GetWorkspaceDiff and dirty check — an edit and
//! its revert, a new untracked file, a deleted file and a deleted directory, an executable bit,
//! and a same-size edit whose stat data match the index (only git's racy-clean rule finds it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::time::SystemTime;

use common::TestServer;
use common::repo::{Repo, lines, workspace_diff};
use signaltty_proto::v1 as pb;

async fn diff(srv: &TestServer, ws: &str) -> Vec<(String, pb::ChangeKind, u32, u32, bool)> {
    workspace_diff(srv, ws)
        .await
        .files
        .iter()
        .map(|f| (f.path.clone(), f.kind(), f.added, f.removed, f.untracked))
        .collect()
}

async fn dirty(srv: &TestServer, ws: &str) -> bool {
    let git = srv
        .workspaces()
        .refresh_git(pb::RefreshGitRequest {
            workspace_id: ws.into(),
        })
        .await
        .expect("RefreshGit")
        .into_inner()
        .git
        .unwrap();
    assert!(!git.dirty_unknown, "{git:?}");
    git.dirty
}

fn entry(
    path: &str,
    kind: pb::ChangeKind,
    added: u32,
    removed: u32,
    untracked: bool,
) -> (String, pb::ChangeKind, u32, u32, bool) {
    (path.to_owned(), kind, added, removed, untracked)
}

#[tokio::test]
async fn every_change_behind_the_servers_back_is_seen_by_the_next_read() {
    use pb::ChangeKind::{Added, Deleted, Modified};
    let srv = TestServer::start().await;
    let repo = Repo::init(&srv.dir_path().join("stat"));
    // Only raciness may reveal the same-size edit below: a changed ctime must not.
    repo.git(&["config", "core.trustctime", "false"]);
    repo.write("a.txt", "aaaa\n");
    repo.write("dir/b.txt", lines(1, 5));
    repo.write("dir/sub/c.txt", lines(1, 8));
    repo.write("dir/sub/deeper/d.txt", "d\n");
    repo.write("dir.txt", "sorts before the dir/ entries\n");
    repo.write(
        "dir/zz.txt",
        "after dir/sub/deeper: the pass goes back up\n",
    );
    repo.write("e.sh", "echo e\n");
    repo.commit_all("init");
    // The index written in the very instant a.txt was last modified: its entry is racily clean
    // (git's rule: modified at or after the index was written), so its stat data prove nothing.
    let written = std::fs::metadata(repo.path.join("a.txt"))
        .unwrap()
        .modified()
        .unwrap();
    set_mtime(&repo.path.join(".git/index"), written);
    let ws = repo.workspace(&srv).await;
    assert_eq!(diff(&srv, &ws.id).await, []);
    assert!(!dirty(&srv, &ws.id).await);

    // A same-size edit with the old mtime put back: size, mtime, inode all as the index says.
    repo.write("a.txt", "bbbb\n");
    set_mtime(&repo.path.join("a.txt"), written);
    assert_eq!(
        diff(&srv, &ws.id).await,
        [entry("a.txt", Modified, 1, 1, false)]
    );
    assert!(dirty(&srv, &ws.id).await);
    repo.write("a.txt", "aaaa\n");
    set_mtime(&repo.path.join("a.txt"), written);
    assert_eq!(diff(&srv, &ws.id).await, []);
    assert!(!dirty(&srv, &ws.id).await);

    // An edit deep down, then its revert (stat data changed, content the same).
    repo.write("dir/sub/c.txt", lines(1, 7) + "eight\n");
    assert_eq!(
        diff(&srv, &ws.id).await,
        [entry("dir/sub/c.txt", Modified, 1, 1, false)]
    );
    assert!(dirty(&srv, &ws.id).await);
    repo.write("dir/sub/c.txt", lines(1, 8));
    assert_eq!(diff(&srv, &ws.id).await, []);
    assert!(!dirty(&srv, &ws.id).await);

    // A new untracked file: listed, and not dirty (untracked files do not count).
    repo.write("dir/new.txt", "n\n");
    assert_eq!(
        diff(&srv, &ws.id).await,
        [entry("dir/new.txt", Added, 1, 0, true)]
    );
    assert!(!dirty(&srv, &ws.id).await);
    std::fs::remove_file(repo.path.join("dir/new.txt")).unwrap();

    // A deleted file, and a deleted directory (the entries under it).
    std::fs::remove_file(repo.path.join("dir/b.txt")).unwrap();
    assert_eq!(
        diff(&srv, &ws.id).await,
        [entry("dir/b.txt", Deleted, 0, 5, false)]
    );
    assert!(dirty(&srv, &ws.id).await);
    repo.write("dir/b.txt", lines(1, 5));
    std::fs::remove_dir_all(repo.path.join("dir/sub/deeper")).unwrap();
    assert_eq!(
        diff(&srv, &ws.id).await,
        [entry("dir/sub/deeper/d.txt", Deleted, 0, 1, false)]
    );
    assert!(dirty(&srv, &ws.id).await);
    repo.write("dir/sub/deeper/d.txt", "d\n");
    assert_eq!(diff(&srv, &ws.id).await, []);
    assert!(!dirty(&srv, &ws.id).await);

    // The executable bit: the dirty check sees it (as `git status`); the diff lists content.
    use std::os::unix::fs::PermissionsExt;
    let sh = repo.path.join("e.sh");
    std::fs::set_permissions(&sh, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(dirty(&srv, &ws.id).await);
    std::fs::set_permissions(&sh, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(!dirty(&srv, &ws.id).await);
}

fn set_mtime(path: &std::path::Path, at: SystemTime) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(at).unwrap();
}
