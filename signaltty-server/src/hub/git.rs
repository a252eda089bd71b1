//! GitService operations: worktrees (listed from git each time; created and removed with the
//! `git` CLI, see `git/cli.rs`) and diffs against HEAD. Every read runs on the blocking pool
//! under a deadline ([`Hub::bounded`]); the hub only adds what git does not know — which open
//! workspaces and live panes use a checkout — and the workspace a new checkout gets.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::git::changes::{WorkspaceDiff, workspace_diff};
use crate::git::hunks::{FileDiff, file_diff};
use crate::git::repos::Repos;
use crate::git::worktrees::{self, WorktreeInfo, Worktrees};
use crate::git::{GitError, Refusal, cli};
use crate::model::event::Event;
use crate::model::ids::WorkspaceId;
use crate::model::workspace::{Workspace, WorkspaceSettings};

use super::Hub;

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

impl Hub {
    /// The repositories kept open between git reads (see [`Repos`]).
    pub(crate) fn git_repos(&self) -> &Repos {
        &self.inner.git_repos
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

    fn workspace_cwd(&self, id: &WorkspaceId) -> Result<PathBuf> {
        Ok(self
            .store()
            .read(|s| s.workspace(id).map(|w| w.cwd.clone()))?)
    }

    async fn read_worktrees(&self, dir: PathBuf) -> Result<Worktrees> {
        let deadline = self.config().git_diff_deadline;
        Ok(self
            .bounded("listing worktrees", deadline, move |_| {
                worktrees::list(&dir)
            })
            .await??)
    }

    /// Attaches the open workspaces to each checkout.
    fn with_users(&self, trees: &Worktrees) -> Vec<Worktree> {
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

    /// Adds a checkout on a branch (existing, or new at `start_point`) and opens a workspace
    /// on it.
    pub async fn create_worktree(
        &self,
        id: &WorkspaceId,
        req: NewWorktree,
    ) -> Result<CreatedWorktree> {
        let cwd = self.workspace_cwd(id)?;
        let branch = req.branch.trim().to_owned();
        if branch.is_empty() {
            return Err(Error::bad(
                "branch is required: name an existing or a new branch",
            ));
        }
        if branch.starts_with('-') || branch.chars().any(|c| c.is_control() || c == ' ') {
            return Err(Error::bad(format!(
                "branch {branch:?} is not a valid branch name"
            )));
        }
        // Everything that can be checked is checked before git touches the disk: a refusal must
        // leave no checkout and no branch behind.
        let name = if req.workspace_name.trim().is_empty() {
            branch.clone()
        } else {
            crate::model::names::validate_name("workspace name", &req.workspace_name)
                .map_err(Error::bad)?
        };
        crate::model::names::validate_name("workspace name", &name).map_err(|why| {
            Error::bad(format!(
                "{why} (it defaults to the branch name): give a shorter workspace name"
            ))
        })?;
        let trees = self.read_worktrees(cwd.clone()).await?;
        let path = if req.path.is_empty() {
            worktrees::default_path(&trees.main, &branch)
        } else {
            let path = PathBuf::from(&req.path);
            if !path.is_absolute() {
                return Err(Error::bad(format!(
                    "path {:?} is relative: give an absolute path for the new checkout",
                    req.path
                )));
            }
            path
        };
        if path.symlink_metadata().is_ok() {
            return Err(Error::bad(format!(
                "{} already exists: give a new path for the checkout",
                path.display()
            )));
        }
        let exists = {
            let (dir, branch) = (cwd.clone(), branch.clone());
            self.bounded(
                "reading branches",
                self.config().git_diff_deadline,
                move |_| worktrees::branch_exists(&dir, &branch),
            )
            .await??
        };
        // `git worktree add` creates the missing parent directories itself.
        let mut args: Vec<&OsStr> = vec![OsStr::new("worktree"), OsStr::new("add")];
        if exists {
            args.extend([OsStr::new("--"), path.as_os_str(), OsStr::new(&branch)]);
        } else {
            args.extend([OsStr::new("-b"), OsStr::new(&branch), OsStr::new("--")]);
            args.push(path.as_os_str());
            if !req.start_point.is_empty() {
                args.push(OsStr::new(&req.start_point));
            }
        }
        if let Err(e) = cli::run(&cwd, &args).await {
            // git can fail after it made the checkout (a `post-checkout` hook that fails runs
            // once the files are out): take back the checkout if git registered it.
            let registered = match (
                std::fs::canonicalize(&path),
                self.read_worktrees(cwd.clone()).await,
            ) {
                (Ok(real), Ok(now)) => now.list.iter().any(|t| t.path == real),
                _ => false,
            };
            if registered {
                rollback_worktree(&cwd, &path, (!exists).then_some(branch.as_str())).await;
            }
            return Err(e.into());
        }
        self.store().publish([Event::WorktreeChanged {
            repo_root: trees.main.clone(),
        }]);
        let opened = self.open_created_worktree(&path, &name).await;
        let (workspace, worktree) = match opened {
            Ok(opened) => opened,
            Err(e) => {
                // Nothing half-done: take back the checkout (and the branch, if it is new).
                let created = (!exists).then_some(branch.as_str());
                rollback_worktree(&cwd, &path, created).await;
                self.store().publish([Event::WorktreeChanged {
                    repo_root: trees.main.clone(),
                }]);
                return Err(e);
            }
        };
        Ok(CreatedWorktree {
            worktree,
            workspace,
            created_branch: !exists,
        })
    }

    /// Opens a workspace named `name` on the checkout git just made at `path`, and reads the
    /// checkout back.
    async fn open_created_worktree(
        &self,
        path: &std::path::Path,
        name: &str,
    ) -> Result<(Workspace, Worktree)> {
        let path = std::fs::canonicalize(path)
            .map_err(|e| Error::io(format!("cannot resolve {}", path.display()), e))?;
        let workspace = self
            .create_workspace(
                name,
                &path.display().to_string(),
                WorkspaceSettings::default(),
            )
            .await?;
        let found = async {
            let trees = self.read_worktrees(path.clone()).await?;
            self.with_users(&trees)
                .into_iter()
                .find(|w| w.info.path == path)
                .ok_or_else(|| Error::Internal(format!("git did not list {}", path.display())))
        }
        .await;
        match found {
            Ok(worktree) => Ok((workspace, worktree)),
            Err(e) => {
                let _ = self.close_workspace(&workspace.id).await;
                Err(e)
            }
        }
    }

    /// Opens a workspace on a checkout of the workspace's repository, reusing one already open
    /// there (its cwd exactly the checkout's root first, else any inside it). Returns it and
    /// whether it was reused.
    pub async fn open_worktree(&self, id: &WorkspaceId, path: &str) -> Result<(Workspace, bool)> {
        let cwd = self.workspace_cwd(id)?;
        let trees = self.read_worktrees(cwd).await?;
        let target = self.find_checkout(&trees, path)?;
        if target.missing {
            return Err(Error::bad(format!(
                "{} is registered but its directory is gone; `git worktree prune` forgets it",
                target.path.display()
            )));
        }
        let users = self.with_users(&trees);
        let open = users
            .iter()
            .find(|w| w.info.path == target.path)
            .map(|w| w.workspaces.clone())
            .unwrap_or_default();
        let existing = self.store().read(|s| {
            let mut found: Vec<Workspace> = open
                .iter()
                .filter_map(|id| s.workspace(id).ok().cloned())
                .collect();
            found.sort_by_key(|w| w.cwd != target.path);
            found.into_iter().next()
        });
        if let Some(ws) = existing {
            return Ok((ws, true));
        }
        let name = target.branch.clone().unwrap_or_else(|| {
            target
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        let ws = self
            .create_workspace(
                &name,
                &target.path.display().to_string(),
                WorkspaceSettings::default(),
            )
            .await?;
        Ok((ws, false))
    }

    fn find_checkout(&self, trees: &Worktrees, raw: &str) -> Result<WorktreeInfo> {
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
                .bounded(
                    "checking the checkout",
                    self.config().git_diff_deadline,
                    move |flag| worktrees::has_changes(&dir, flag),
                )
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
        let deadline = self.config().git_diff_deadline;
        let repos = self.git_repos().clone();
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
        let deadline = self.config().git_diff_deadline;
        let repos = self.git_repos().clone();
        Ok(self
            .bounded("diffing a file", deadline, move |_| {
                let repo = checkout_of(&repos, &cwd)?;
                file_diff(&repo, &path, old_path.as_deref())
            })
            .await??)
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

/// Takes back a checkout `create_worktree` made (and the branch it created, if any) after a
/// later step failed. Best effort: what cannot be removed is logged, the caller's error stands.
async fn rollback_worktree(repo: &std::path::Path, path: &std::path::Path, branch: Option<&str>) {
    let remove = [
        OsStr::new("worktree"),
        OsStr::new("remove"),
        OsStr::new("--force"),
        OsStr::new("--"),
        path.as_os_str(),
    ];
    if let Err(e) = cli::run(repo, &remove).await {
        tracing::warn!("cannot take back the checkout {}: {e}", path.display());
        // Its directory may be gone already (git refuses to remove it then): forget it.
        if let Err(e) = cli::run(repo, &[OsStr::new("worktree"), OsStr::new("prune")]).await {
            tracing::warn!("cannot prune the checkout {}: {e}", path.display());
        }
    }
    if let Some(branch) = branch {
        let delete = [
            OsStr::new("branch"),
            OsStr::new("-D"),
            OsStr::new("--"),
            OsStr::new(branch),
        ];
        if let Err(e) = cli::run(repo, &delete).await {
            tracing::warn!("cannot take back the branch {branch}: {e}");
        }
    }
}
