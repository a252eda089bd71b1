//! GitService diffs against real repositories: GetWorkspaceDiff (modified, renamed, binary,
//! deleted, untracked, staged, unborn, submodule, too large) and GetFileDiff (typed hunks with
//! line numbers; binary, unchanged, unavailable and too-large kinds; caps; refused paths).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::repo::{Repo, lines, workspace_diff as diff};
use common::{TestServer, assert_error};
use signaltty_proto::v1 as pb;
use tonic::Code;

async fn file(srv: &TestServer, ws: &str, path: &str, old_path: &str) -> pb::GetFileDiffResponse {
    srv.git()
        .get_file_diff(pb::GetFileDiffRequest {
            workspace_id: ws.into(),
            path: path.into(),
            old_path: old_path.into(),
        })
        .await
        .expect("GetFileDiff")
        .into_inner()
}

fn find<'a>(d: &'a pb::GetWorkspaceDiffResponse, path: &str) -> &'a pb::FileChange {
    d.files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} not listed in {:#?}", d.files))
}

#[tokio::test]
async fn every_kind_of_change_against_head() {
    let srv = TestServer::start().await;
    let repo = Repo::init(&srv.dir_path().join("repo"));
    repo.write("a.txt", lines(1, 10));
    repo.write("b.txt", lines(1, 20));
    repo.write("gone.txt", lines(1, 4));
    repo.write("same.txt", "same\n");
    repo.write("bin.dat", b"\x00\x01\x02binary");
    repo.write("staged-then-reverted.txt", "x\n");
    repo.commit_all("init");
    // Modified: line 5 replaced.
    repo.write("a.txt", lines(1, 4) + "five\n" + &lines(6, 10));
    // Renamed (moved and edited, not staged: an agent's plain `mv`).
    std::fs::create_dir_all(repo.path.join("moved")).unwrap();
    std::fs::rename(repo.path.join("b.txt"), repo.path.join("moved/b2.txt")).unwrap();
    repo.write("moved/b2.txt", lines(1, 19) + "twenty\n");
    std::fs::remove_file(repo.path.join("gone.txt")).unwrap();
    repo.write("bin.dat", b"\x00\x01\x03binary!");
    repo.write("new.txt", "n1\nn2\n");
    repo.write("staged.txt", "s\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("staged-then-reverted.txt", "y\n");
    repo.git(&["add", "staged-then-reverted.txt"]);
    repo.write("staged-then-reverted.txt", "x\n");
    let ws = repo.workspace(&srv).await;
    assert!(ws.git.as_ref().unwrap().dirty);

    let d = diff(&srv, &ws.id).await;
    assert!(!d.unborn);
    assert!(!d.truncated);
    assert_eq!(d.repo_root, repo.path.display().to_string());
    let paths: Vec<&str> = d.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "a.txt",
            "bin.dat",
            "gone.txt",
            "moved/b2.txt",
            "new.txt",
            "staged.txt"
        ],
        "{:#?}",
        d.files
    );
    let a = find(&d, "a.txt");
    assert_eq!(
        (a.kind(), a.added, a.removed),
        (pb::ChangeKind::Modified, 1, 1)
    );
    let b = find(&d, "moved/b2.txt");
    assert_eq!(b.kind(), pb::ChangeKind::Renamed);
    assert_eq!(b.old_path, "b.txt");
    assert_eq!((b.added, b.removed), (1, 1));
    assert!(b.untracked);
    let bin = find(&d, "bin.dat");
    assert!(bin.binary);
    assert_eq!(
        (bin.kind(), bin.added, bin.removed),
        (pb::ChangeKind::Modified, 0, 0)
    );
    let gone = find(&d, "gone.txt");
    assert_eq!((gone.kind(), gone.removed), (pb::ChangeKind::Deleted, 4));
    let new = find(&d, "new.txt");
    assert_eq!(
        (new.kind(), new.added, new.untracked),
        (pb::ChangeKind::Added, 2, true)
    );
    let staged = find(&d, "staged.txt");
    assert_eq!(
        (staged.kind(), staged.untracked),
        (pb::ChangeKind::Added, false)
    );

    // One file's hunk, with line numbers on both sides and three lines of context.
    let f = file(&srv, &ws.id, "a.txt", "").await;
    assert_eq!(f.kind(), pb::DiffKind::Text);
    assert_eq!((f.added, f.removed, f.truncated), (1, 1, false));
    assert_eq!(f.hunks.len(), 1);
    let h = &f.hunks[0];
    assert_eq!(
        (h.old_start, h.old_lines, h.new_start, h.new_lines),
        (2, 7, 2, 7)
    );
    let shown: Vec<(pb::LineKind, u32, u32, &str)> = h
        .lines
        .iter()
        .map(|l| (l.kind(), l.old_line, l.new_line, l.text.as_str()))
        .collect();
    use pb::LineKind::{Added, Context, Removed};
    assert_eq!(
        shown,
        [
            (Context, 2, 2, "line 2"),
            (Context, 3, 3, "line 3"),
            (Context, 4, 4, "line 4"),
            (Removed, 5, 0, "line 5"),
            (Added, 0, 5, "five"),
            (Context, 6, 6, "line 6"),
            (Context, 7, 7, "line 7"),
            (Context, 8, 8, "line 8"),
        ]
    );
    // The rename against its HEAD path.
    let f = file(&srv, &ws.id, "moved/b2.txt", "b.txt").await;
    assert_eq!((f.kind(), f.added, f.removed), (pb::DiffKind::Text, 1, 1));
    assert_eq!(f.hunks[0].old_start, 17);
    // A deleted file: everything removed, the new side empty.
    let f = file(&srv, &ws.id, "gone.txt", "").await;
    assert_eq!((f.added, f.removed), (0, 4));
    assert_eq!(
        (
            f.hunks[0].old_start,
            f.hunks[0].new_start,
            f.hunks[0].new_lines
        ),
        (1, 0, 0)
    );
    // Explicit kinds, never an empty text diff.
    assert_eq!(
        file(&srv, &ws.id, "bin.dat", "").await.kind(),
        pb::DiffKind::Binary
    );
    assert_eq!(
        file(&srv, &ws.id, "same.txt", "").await.kind(),
        pb::DiffKind::Unchanged
    );
    assert_eq!(
        file(&srv, &ws.id, "staged-then-reverted.txt", "")
            .await
            .kind(),
        pb::DiffKind::Unchanged
    );
    let nowhere = file(&srv, &ws.id, "no/such.txt", "").await;
    assert_eq!(nowhere.kind(), pb::DiffKind::Unavailable);
    assert!(!nowhere.reason.is_empty());
}

#[tokio::test]
async fn an_unborn_repository_lists_every_file_as_added() {
    let srv = TestServer::start().await;
    let repo = Repo::init(&srv.dir_path().join("fresh"));
    repo.write("one.txt", "1\n2\n3\n");
    repo.write("dir/two.txt", "x\n");
    repo.git(&["add", "dir/two.txt"]);
    let ws = repo.workspace(&srv).await;
    let git = ws.git.as_ref().unwrap();
    assert!(git.is_repo);
    assert_eq!(git.branch, "main");
    let d = diff(&srv, &ws.id).await;
    assert!(d.unborn);
    let paths: Vec<(&str, pb::ChangeKind, bool)> = d
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.kind(), f.untracked))
        .collect();
    assert_eq!(
        paths,
        [
            ("dir/two.txt", pb::ChangeKind::Added, false),
            ("one.txt", pb::ChangeKind::Added, true)
        ]
    );
    let f = file(&srv, &ws.id, "one.txt", "").await;
    assert_eq!(f.kind(), pb::DiffKind::Text);
    let h = &f.hunks[0];
    assert_eq!(
        (h.old_start, h.old_lines, h.new_start, h.new_lines),
        (0, 0, 1, 3)
    );
}

#[tokio::test]
async fn detached_head_and_a_submodule_do_not_confuse_the_diff() {
    let srv = TestServer::start().await;
    let sub = Repo::init(&srv.dir_path().join("sub"));
    sub.write("s.txt", "s\n");
    sub.commit_all("sub");
    let repo = Repo::with_commit(&srv.dir_path().join("super"));
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        sub.path.to_str().unwrap(),
        "vendor/sub",
    ]);
    repo.commit_all("add submodule");
    repo.git(&["checkout", "-q", "--detach"]);
    // A change inside the submodule's checkout is the submodule's business, not ours.
    std::fs::write(repo.path.join("vendor/sub/s.txt"), "changed\n").unwrap();
    repo.write("a.txt", "b\n");
    let ws = repo.workspace(&srv).await;
    let git = ws.git.as_ref().unwrap();
    assert_eq!(git.branch, "", "detached HEAD has no branch");
    assert!(git.dirty);
    let d = diff(&srv, &ws.id).await;
    let paths: Vec<&str> = d.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.txt"]);
    let f = file(&srv, &ws.id, "vendor/sub", "").await;
    assert_eq!(f.kind(), pb::DiffKind::Unavailable);
}

#[tokio::test]
async fn huge_files_and_long_diffs_are_capped() {
    let srv = TestServer::start().await;
    let repo = Repo::init(&srv.dir_path().join("big"));
    repo.write("small.txt", "x\n");
    repo.commit_all("init");
    // Over the 16 MiB side cap.
    repo.write("huge.log", vec![b'a'; 17 * 1024 * 1024]);
    // Under the side cap but over the 10,000 hunk lines cap.
    repo.write("long.txt", lines(1, 25_000));
    let ws = repo.workspace(&srv).await;
    let d = diff(&srv, &ws.id).await;
    let huge = find(&d, "huge.log");
    assert!(huge.too_large);
    assert_eq!((huge.added, huge.removed), (0, 0));
    let long = find(&d, "long.txt");
    assert_eq!(long.added, 25_000);
    let f = file(&srv, &ws.id, "huge.log", "").await;
    assert_eq!(f.kind(), pb::DiffKind::TooLarge);
    assert!(f.reason.contains("MiB"), "{}", f.reason);
    let f = file(&srv, &ws.id, "long.txt", "").await;
    assert_eq!(f.kind(), pb::DiffKind::Text);
    assert!(f.truncated);
    assert_eq!(f.added, 25_000, "counts cover the whole file");
    let shown: usize = f.hunks.iter().map(|h| h.lines.len()).sum();
    assert_eq!(shown, 10_000);
}

#[tokio::test]
async fn paths_that_leave_the_checkout_are_refused() {
    let srv = TestServer::start().await;
    let repo = Repo::with_commit(&srv.dir_path().join("safe"));
    let outside = srv.dir_path().join("secret");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("key"), "secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, repo.path.join("link")).unwrap();
    let ws = repo.workspace(&srv).await;
    for (path, old_path) in [
        ("../secret/key", ""),
        ("/etc/passwd", ""),
        (".git/config", ""),
        ("link/key", ""),
        ("a.txt", "../secret/key"),
        ("", ""),
    ] {
        assert_error(
            srv.git()
                .get_file_diff(pb::GetFileDiffRequest {
                    workspace_id: ws.id.clone(),
                    path: path.into(),
                    old_path: old_path.into(),
                })
                .await,
            Code::InvalidArgument,
            "BAD_PARAMS",
        );
    }
    // A path no file can have (1 MB; a NUL) is refused the same way, its message short and
    // quoting at most ~100 characters of it.
    let huge = "a/".repeat(500_000);
    for (path, old_path) in [(huge.as_str(), ""), ("a\0b", ""), ("a.txt", huge.as_str())] {
        let status = srv
            .git()
            .get_file_diff(pb::GetFileDiffRequest {
                workspace_id: ws.id.clone(),
                path: path.into(),
                old_path: old_path.into(),
            })
            .await
            .expect_err("refused");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(
            status.message().chars().count() <= 300,
            "{}",
            status.message()
        );
    }
    // The link itself is a file for git: its content is the target's name, not the target's.
    let f = file(&srv, &ws.id, "link", "").await;
    assert_eq!(f.kind(), pb::DiffKind::Text);
    assert!(
        f.hunks[0]
            .lines
            .iter()
            .all(|l| !l.text.contains("secret\n") && l.text != "secret")
    );
}

#[tokio::test]
async fn outside_a_repository_the_diff_says_not_a_repo() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("plain").await;
    assert_error(
        srv.git()
            .get_workspace_diff(pb::GetWorkspaceDiffRequest {
                workspace_id: ws.id.clone(),
            })
            .await,
        Code::FailedPrecondition,
        "NOT_A_REPO",
    );
}

#[tokio::test]
async fn a_dirty_check_past_its_deadline_says_unknown() {
    let srv = TestServer::start_with(|c| c.git_dirty_deadline = std::time::Duration::ZERO).await;
    let repo = Repo::init(&srv.dir_path().join("slow"));
    for i in 0..300 {
        repo.write(&format!("f{i}.txt"), format!("{i}\n"));
    }
    repo.commit_all("init");
    let ws = repo.workspace(&srv).await;
    let git = ws.git.unwrap();
    assert!(git.is_repo);
    assert_eq!(git.branch, "main", "the cheap facts are still read");
    assert!(git.dirty_unknown, "{git:?}");
    assert!(!git.dirty);
}

fn listed(d: &pb::GetWorkspaceDiffResponse) -> Vec<(&str, pb::ChangeKind, u32, u32)> {
    d.files
        .iter()
        .map(|f| (f.path.as_str(), f.kind(), f.added, f.removed))
        .collect()
}

/// The server keeps a workspace's repository open between reads and skips HEAD↔index when the
/// index's cached tree names HEAD's tree: a commit, a soft reset, a branch switch and staging,
/// each done by `git` behind its back, are all seen by the very next diff.
#[tokio::test]
async fn the_kept_repository_sees_commits_resets_checkouts_and_staging() {
    let srv = TestServer::start().await;
    let repo = Repo::init(&srv.dir_path().join("kept"));
    repo.write("a.txt", lines(1, 10));
    repo.write("b.txt", lines(1, 5));
    repo.commit_all("init");
    let ws = repo.workspace(&srv).await;
    assert!(diff(&srv, &ws.id).await.files.is_empty());

    repo.write("a.txt", lines(1, 9) + "ten\n");
    let d = diff(&srv, &ws.id).await;
    assert_eq!(listed(&d), [("a.txt", pb::ChangeKind::Modified, 1, 1)]);

    // Committed: nothing differs from the new HEAD.
    repo.commit_all("ten");
    assert!(diff(&srv, &ws.id).await.files.is_empty());
    let refreshed = srv
        .workspaces()
        .refresh_git(pb::RefreshGitRequest {
            workspace_id: ws.id.clone(),
        })
        .await
        .expect("RefreshGit")
        .into_inner();
    assert!(!refreshed.git.unwrap().dirty);

    // HEAD moves back, the index stays: the commit's change is now staged against HEAD.
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    let d = diff(&srv, &ws.id).await;
    assert_eq!(listed(&d), [("a.txt", pb::ChangeKind::Modified, 1, 1)]);
    repo.commit_all("ten again");

    // Another branch with another file, then back.
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("c.txt", "c\n");
    repo.commit_all("c");
    assert!(diff(&srv, &ws.id).await.files.is_empty());
    repo.git(&["checkout", "-q", "main"]);
    assert!(diff(&srv, &ws.id).await.files.is_empty());
    repo.git(&["checkout", "-q", "side", "--", "c.txt"]);
    let d = diff(&srv, &ws.id).await;
    assert_eq!(listed(&d), [("c.txt", pb::ChangeKind::Added, 1, 0)]);
    assert!(!d.files[0].untracked);

    // A staged edit and a further unstaged one: counted against HEAD.
    repo.git(&["rm", "-q", "--cached", "c.txt"]);
    std::fs::remove_file(repo.path.join("c.txt")).unwrap();
    repo.write("b.txt", lines(1, 4) + "five\n");
    repo.git(&["add", "b.txt"]);
    repo.write("b.txt", lines(1, 4) + "five\nsix\n");
    let d = diff(&srv, &ws.id).await;
    assert_eq!(listed(&d), [("b.txt", pb::ChangeKind::Modified, 2, 1)]);
}
