//! Opening workspaces on checkouts (CreateWorktree, OpenWorktree): orchestration on `Hub`,
//! because it spans two concerns — git (`hub.git()`: the checkout, its listing) and the
//! workspaces (creating one, closing it again when reading the checkout back fails).

use std::ffi::OsStr;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::git::cli;
use crate::git::worktrees;
use crate::model::event::Event;
use crate::model::ids::WorkspaceId;
use crate::model::workspace::{Workspace, WorkspaceSettings};

use super::Hub;
use super::git::{CreatedWorktree, NewWorktree, Worktree};

impl Hub {
    /// Adds a checkout on a branch (existing, or new at `start_point`) and opens a workspace
    /// on it.
    pub async fn create_worktree(
        &self,
        id: &WorkspaceId,
        req: NewWorktree,
    ) -> Result<CreatedWorktree> {
        let cwd = self.git().workspace_cwd(id)?;
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
        let trees = self.git().read_worktrees(cwd.clone()).await?;
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
            self.git()
                .bounded(
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
                self.git().read_worktrees(cwd.clone()).await,
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
            let trees = self.git().read_worktrees(path.clone()).await?;
            self.git()
                .with_users(&trees)
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
        let cwd = self.git().workspace_cwd(id)?;
        let trees = self.git().read_worktrees(cwd).await?;
        let target = self.git().find_checkout(&trees, path)?;
        if target.missing {
            return Err(Error::bad(format!(
                "{} is registered but its directory is gone; `git worktree prune` forgets it",
                target.path.display()
            )));
        }
        let users = self.git().with_users(&trees);
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
