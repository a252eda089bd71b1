//! Real git repositories in temp dirs for the git tests, set up with the `git` CLI.

use std::path::{Path, PathBuf};

use signaltty_proto::v1 as pb;

use super::TestServer;

/// A repository (or any directory) that git commands run in.
pub struct Repo {
    pub path: PathBuf,
}

impl Repo {
    /// `git init -b main` in a new directory `dir`.
    pub fn init(dir: &Path) -> Repo {
        std::fs::create_dir_all(dir).unwrap();
        let repo = Repo {
            path: std::fs::canonicalize(dir).unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    /// [`Repo::init`] with one commit (`init`) holding `a.txt` = `a\n`.
    pub fn with_commit(dir: &Path) -> Repo {
        let repo = Repo::init(dir);
        repo.write("a.txt", "a\n");
        repo.commit_all("init");
        repo
    }

    /// Runs git here; panics with its output when it fails. Returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&self.path)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &self.path)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// Writes a file (creating directories).
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.path.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    /// `git add -A && git commit`.
    pub fn commit_all(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
    }

    /// A workspace on this directory.
    pub async fn workspace(&self, srv: &TestServer) -> pb::Workspace {
        self.workspace_at(srv, &self.path).await
    }

    /// A workspace on `dir`.
    pub async fn workspace_at(&self, srv: &TestServer, dir: &Path) -> pb::Workspace {
        srv.create_workspace("", dir).await
    }
}

/// Numbered lines `first..=last`, each `line N\n`.
pub fn lines(first: u32, last: u32) -> String {
    (first..=last).map(|n| format!("line {n}\n")).collect()
}

/// `GetWorkspaceDiff` of workspace `ws`, which must answer.
pub async fn workspace_diff(srv: &TestServer, ws: &str) -> pb::GetWorkspaceDiffResponse {
    srv.git()
        .get_workspace_diff(pb::GetWorkspaceDiffRequest {
            workspace_id: ws.into(),
        })
        .await
        .expect("GetWorkspaceDiff")
        .into_inner()
}
