//! The git concern, `hub.git()`: worktrees (listed from git each time; removed with the `git`
//! CLI, see `git/cli.rs`), diffs against HEAD and workspaces' git context, and the watcher that
//! keeps that context live (`git_watch.rs`). Every read runs on a thread of its own under a
//! deadline ([`Git::bounded`]); the handle only adds what git does not know — which open
//! workspaces and live panes use a checkout, read from the store. It needs the store (records
//! and the bus), two deadlines from the configuration and the shutdown token, nothing else:
//! opening a workspace on a new checkout also touches the workspaces and is `Hub`'s
//! (`worktrees.rs`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::git::changes::{WorkspaceDiff, workspace_diff};
use crate::git::context::read_context;
use crate::git::hunks::{FileDiff, file_diff};
use crate::git::repos::Repos;
use crate::git::worktrees::{self, WorktreeInfo, Worktrees};
use crate::git::{GitError, Refusal, cli};
use crate::model::event::Event;
use crate::model::ids::WorkspaceId;
use crate::model::workspace::Workspace;

use crate::model::workspace::GitContext;
use crate::store::Store;
use tokio_util::sync::CancellationToken;

use super::git_watch::Pokes;

/// A checkout with the open workspaces on it.
#[derive(Clone, Debug)]
pub struct Worktree {
    /// What git says.
    pub info: WorktreeInfo,
    /// Workspaces whose cwd is in it (and not in a checkout nested in it).
    pub workspaces: Vec<WorkspaceId>,
}

/// What CreateWorktree asks for.
#[derive(Clone, Debug, Default)]
pub struct NewWorktree {
    /// Absolute path; empty for the default.
    pub path: String,
    /// Existing or new branch.
    pub branch: String,
    /// Start of a new branch; empty for HEAD.
    pub start_point: String,
    /// Name of the new workspace; empty for the branch.
    pub workspace_name: String,
}

/// What CreateWorktree did.
#[derive(Clone, Debug)]
pub struct CreatedWorktree {
    /// The checkout.
    pub worktree: Worktree,
    /// Its workspace.
    pub workspace: Workspace,
    /// The branch is new.
    pub created_branch: bool,
}

/// The git concern's handle: what it owns (the kept repositories, the watcher's pokes) and the
/// little it needs from the rest of the server. Cheap to clone (the watcher task keeps one).
#[derive(Clone, Debug)]
pub struct Git {
    store: Store,
    /// `Config::git_dirty_deadline`: reading a workspace's context.
    dirty_deadline: Duration,
    /// `Config::git_diff_deadline`: listings and diffs.
    diff_deadline: Duration,
    shutdown: CancellationToken,
    repos: Repos,
    pokes: Arc<Pokes>,
}

impl Git {
    /// The handle over the store, with the configuration's deadlines.
    pub(super) fn new(
        store: Store,
        config: &crate::config::Config,
        shutdown: CancellationToken,
    ) -> Self {
        Git {
            store,
            dirty_deadline: config.git_dirty_deadline,
            diff_deadline: config.git_diff_deadline,
            shutdown,
            repos: Repos::default(),
            pokes: Arc::new(Pokes::default()),
        }
    }

    pub(super) fn store(&self) -> &Store {
        &self.store
    }

    /// The repositories kept open between git reads (see [`Repos`]).
    pub(crate) fn repos(&self) -> &Repos {
        &self.repos
    }

    /// The watcher's pokes (see `git_watch.rs`).
    pub(super) fn pokes(&self) -> &Pokes {
        &self.pokes
    }

    /// Cancelled when the server begins to stop (ends the watcher).
    pub(super) fn shutdown_token(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// Runs `work` on a thread of its own at a lower CPU priority (see `git/priority.rs`);
    /// raises its interrupt flag once `deadline` passes and then waits for it to stop (gix
    /// checks the flag between files, so that is soon). The answer is sent before the thread
    /// gives freed memory back to the OS, so the trim costs the caller nothing.
    pub(crate) async fn bounded<T: Send + 'static>(
        &self,
        what: &str,
        deadline: Duration,
        work: impl FnOnce(&Arc<AtomicBool>) -> T + Send + 'static,
    ) -> Result<T> {
        // A zero deadline has passed already: the flag starts raised. (Raised by the timer
        // instead, a check faster than one turn of the runtime could still answer, so what a
        // zero deadline gave depended on scheduling.)
        let flag = Arc::new(AtomicBool::new(deadline.is_zero()));
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("signaltty-git".to_owned())
            .spawn({
                let flag = flag.clone();
                move || {
                    crate::git::priority::lower_this_thread();
                    let _ = tx.send(work(&flag));
                    crate::memory::release_free_heap();
                }
            })
            .map_err(|e| Error::Internal(format!("{what}: cannot start a thread: {e}")))?;
        let joined = tokio::select! {
            joined = &mut rx => joined,
            () = tokio::time::sleep(deadline) => {
                flag.store(true, Ordering::Relaxed);
                rx.await
            }
        };
        joined.map_err(|_| Error::Internal(format!("{what} task failed")))
    }

    pub(super) fn workspace_cwd(&self, id: &WorkspaceId) -> Result<PathBuf> {
        Ok(self
            .store()
            .read(|s| s.workspace(id).map(|w| w.cwd.clone()))?)
    }

    pub(super) async fn read_worktrees(&self, dir: PathBuf) -> Result<Worktrees> {
        let deadline = self.diff_deadline;
        Ok(self
            .bounded("listing worktrees", deadline, move |_| {
                worktrees::list(&dir)
            })
            .await??)
    }

    /// Attaches the open workspaces to each checkout.
    pub(super) fn with_users(&self, trees: &Worktrees) -> Vec<Worktree> {
        let cwds: Vec<(WorkspaceId, PathBuf)> = self.store().read(|s| {
            s.workspaces()
                .iter()
                .map(|w| (w.id.clone(), w.cwd.clone()))
                .collect()
        });
        trees
            .list
            .iter()
            .map(|info| Worktree {
                info: info.clone(),
                workspaces: cwds
                    .iter()
                    .filter(|(_, cwd)| trees.owner_of(cwd).is_some_and(|o| o.path == info.path))
                    .map(|(id, _)| id.clone())
                    .collect(),
            })
            .collect()
    }

    /// The checkouts of the workspace's repository, main first.
    pub async fn list_worktrees(&self, id: &WorkspaceId) -> Result<Vec<Worktree>> {
        let trees = self.read_worktrees(self.workspace_cwd(id)?).await?;
        Ok(self.with_users(&trees))
    }

    pub(super) fn find_checkout(&self, trees: &Worktrees, raw: &str) -> Result<WorktreeInfo> {
        let path = Path::new(raw);
        if raw.is_empty() || !path.is_absolute() {
            return Err(Error::bad(format!(
                "path {raw:?} must be the absolute path of a checkout; `signaltty worktree list` shows them"
            )));
        }
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        trees.find(&path).cloned().ok_or_else(|| {
            Error::bad(format!(
                "{} is not a checkout of this repository; `signaltty worktree list` shows them",
                path.display()
            ))
        })
    }

    /// Removes a linked checkout (never the branch; never forced). Refuses, each with its own
    /// reason: the main checkout, a locked one, one an open workspace or a live pane uses, and
    /// one with changes or untracked files.
    pub async fn remove_worktree(&self, id: &WorkspaceId, path: &str) -> Result<PathBuf> {
        let cwd = self.workspace_cwd(id)?;
        let trees = self.read_worktrees(cwd.clone()).await?;
        let target = self.find_checkout(&trees, path)?;
        let refuse = |refusal, message: String| Err(Error::Refused { refusal, message });
        let shown = target.path.display().to_string();
        if target.is_main {
            return refuse(
                Refusal::IsMain,
                format!("{shown} is the main checkout; only linked worktrees can be removed"),
            );
        }
        if target.locked {
            let why = target
                .lock_reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            return refuse(
                Refusal::Locked,
                format!("{shown} is locked{why}; `git worktree unlock` it first"),
            );
        }
        let users = self.with_users(&trees);
        let open: Vec<String> = users
            .iter()
            .find(|w| w.info.path == target.path)
            .map(|w| w.workspaces.iter().map(ToString::to_string).collect())
            .unwrap_or_default();
        if !open.is_empty() {
            return refuse(
                Refusal::InUse,
                format!(
                    "{shown} is open in workspace(s) {}; close them first (closing keeps the checkout)",
                    open.join(", ")
                ),
            );
        }
        let live: Vec<String> = self.store().read(|s| {
            s.all_panes()
                .iter()
                .filter(|p| p.status.is_live())
                .filter(|p| {
                    trees
                        .owner_of(&p.cwd)
                        .is_some_and(|o| o.path == target.path)
                })
                .map(|p| p.id.to_string())
                .collect()
        });
        if !live.is_empty() {
            return refuse(
                Refusal::InUse,
                format!(
                    "live pane(s) {} run in {shown}; close them first",
                    live.join(", ")
                ),
            );
        }
        if !target.missing {
            let dir = target.path.clone();
            let changes = self
                .bounded("checking the checkout", self.diff_deadline, move |flag| {
                    worktrees::has_changes(&dir, flag)
                })
                .await??;
            match changes {
                Some(false) => {}
                Some(true) => {
                    return refuse(
                        Refusal::Dirty,
                        format!(
                            "{shown} has changes or untracked files; commit, stash or delete them first"
                        ),
                    );
                }
                None => {
                    return refuse(
                        Refusal::Dirty,
                        format!(
                            "{shown} could not be checked for changes in time; nothing was removed"
                        ),
                    );
                }
            }
        }
        cli::run(
            &cwd,
            &[
                OsStr::new("worktree"),
                OsStr::new("remove"),
                OsStr::new("--"),
                target.path.as_os_str(),
            ],
        )
        .await?;
        self.store().publish([Event::WorktreeChanged {
            repo_root: trees.main.clone(),
        }]);
        Ok(target.path)
    }

    /// The workspace's changed files against HEAD.
    pub async fn workspace_diff(&self, id: &WorkspaceId) -> Result<WorkspaceDiff> {
        let cwd = self.workspace_cwd(id)?;
        let deadline = self.diff_deadline;
        let repos = self.repos().clone();
        Ok(self
            .bounded("diffing the checkout", deadline, move |flag| {
                let repo = checkout_of(&repos, &cwd)?;
                workspace_diff(&repo, flag)
            })
            .await??)
    }

    /// One file's diff against HEAD.
    pub async fn file_diff(
        &self,
        id: &WorkspaceId,
        path: String,
        old_path: Option<String>,
    ) -> Result<FileDiff> {
        checked_repo_path("path", &path)?;
        if let Some(old) = &old_path {
            checked_repo_path("old_path", old)?;
        }
        let cwd = self.workspace_cwd(id)?;
        let deadline = self.diff_deadline;
        let repos = self.repos().clone();
        Ok(self
            .bounded("diffing a file", deadline, move |_| {
                let repo = checkout_of(&repos, &cwd)?;
                file_diff(&repo, &path, old_path.as_deref())
            })
            .await??)
    }

    /// Reads git context off the async runtime (gix walks the index and may touch many files);
    /// the dirty check gives up at the configured deadline and says "unknown".
    pub async fn context_of(&self, dir: PathBuf) -> GitContext {
        let deadline = self.dirty_deadline;
        let repos = self.repos().clone();
        self.bounded("reading git context", deadline, move |flag| {
            read_context(&repos, &dir, flag)
        })
        .await
        .unwrap_or_default()
    }

    /// Re-reads a workspace's git context now.
    pub async fn refresh(&self, id: &WorkspaceId) -> Result<GitContext> {
        let cwd = self
            .store()
            .read(|s| s.workspace(id).map(|w| w.cwd.clone()))?;
        let git = self.context_of(cwd).await;
        self.store().apply(|s, _| s.set_git(id, git))
    }
}

/// Longest path in a repository a diff is asked for, in bytes (Linux's `PATH_MAX`).
const MAX_REPO_PATH_BYTES: usize = 4096;

/// Checks a path given for a file diff before git sees it: a path relative to the checkout,
/// no longer than any real one, without NUL. Beyond that, git says whether it exists.
fn checked_repo_path(what: &str, path: &str) -> Result<()> {
    let why = if path.is_empty() {
        "is empty: give a path relative to the checkout's root, as `GetWorkspaceDiff` lists it"
    } else if path.len() > MAX_REPO_PATH_BYTES {
        "is longer than 4096 bytes: no file in a checkout has such a path"
    } else if path.contains('\0') {
        "contains a NUL byte: give a path as `GetWorkspaceDiff` lists it"
    } else if path.starts_with('/') {
        "is absolute: give it relative to the checkout's root"
    } else {
        return Ok(());
    };
    Err(Error::bad(format!(
        "{what} {} {why}",
        crate::error::quote(path)
    )))
}

/// The kept repository of a workspace directory, when it has a checkout.
fn checkout_of(repos: &Repos, dir: &Path) -> std::result::Result<gix::Repository, GitError> {
    repos
        .open(dir)
        .filter(|r| r.workdir().is_some())
        .ok_or_else(|| GitError::NotARepo(dir.display().to_string()))
}
