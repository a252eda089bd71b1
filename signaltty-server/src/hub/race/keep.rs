//! KeepRaceEntry and CloseRace. Keeping merges one entry's branch into the base branch in the
//! base checkout — fast-forward, merge commit or squash — and then closes the other entries.
//! Nothing is half-done: the base checkout must be clean and on the base branch first, and a
//! merge that fails is undone (`git merge --abort`, or a hard reset to the same commit, which
//! is safe because the checkout was clean), so the base is exactly as before.
//!
//! Closing an entry stops its agent and closes its workspace, then removes its worktree under
//! the worktree rules (never a locked one; a dirty one only with `force`) and, when asked,
//! deletes its branch (git itself refuses a branch checked out elsewhere). What could not be
//! done is reported per entry.

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::event::Event;
use crate::model::ids::RaceId;
use crate::model::race::{EntryState, MergeMode, Race, RaceState};

use super::{Hub, git};

/// What closing one entry did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cleanup {
    /// The entry.
    pub index: u32,
    /// Agent and workspace closed.
    pub stopped: bool,
    /// Worktree removed.
    pub worktree_removed: bool,
    /// Branch deleted.
    pub branch_deleted: bool,
    /// What was not done, and why.
    pub problem: String,
}

/// What KeepRaceEntry did.
#[derive(Clone, Debug)]
pub struct Kept {
    /// The race after it.
    pub race: Race,
    /// The base branch's new head.
    pub merged_commit: String,
    /// The other entries.
    pub cleanup: Vec<Cleanup>,
}

impl Hub {
    /// Merges entry `index` into the base branch, then closes the other entries.
    pub async fn keep_entry(
        &self,
        id: &RaceId,
        index: u32,
        mode: MergeMode,
        message: &str,
        delete_branches: bool,
        force: bool,
    ) -> Result<Kept> {
        let race = self.races().get_race(id)?;
        if race.state != RaceState::Running {
            return Err(Error::RaceEnded(format!(
                "race {id} is {:?} already",
                race.state
            )));
        }
        let entry = race
            .entry(index)
            .cloned()
            .ok_or_else(|| Error::bad(format!("race {id} has no entry {index}")))?;
        if !entry.state.is_open() || !entry.path.is_dir() {
            return Err(Error::RaceEnded(format!(
                "entry {index} is closed; keep an open one (`signaltty race show {id}`)"
            )));
        }
        let base = race.base_checkout.as_path();
        if race.base_branch.is_empty() {
            return Err(Error::RaceBaseDirty(format!(
                "{} was on no branch when the race started; nothing to merge into",
                base.display()
            )));
        }
        let branch_now = git::current_branch(base).await?;
        if branch_now != race.base_branch {
            return Err(Error::RaceBaseDirty(format!(
                "{} is on {:?}, not on the base branch {:?}: check that out first",
                base.display(),
                branch_now,
                race.base_branch
            )));
        }
        if !git::changes(base).await?.trim().is_empty() {
            return Err(Error::RaceBaseDirty(format!(
                "{} has uncommitted changes or untracked files; commit or stash them before keeping an entry",
                base.display()
            )));
        }
        // The agent's uncommitted work is part of what is kept.
        if !git::changes(&entry.path).await?.trim().is_empty() {
            git::git(&entry.path, &["add", "-A"]).await?;
            let note = format!(
                "race {}: entry {} ({}) work",
                race.short_id(),
                index,
                entry.agent
            );
            git::git(&entry.path, &["commit", "--no-verify", "-q", "-m", &note]).await?;
        }
        let message = if message.trim().is_empty() {
            format!(
                "Keep race {} entry {} ({})",
                race.short_id(),
                index,
                entry.agent
            )
        } else {
            message.trim().to_owned()
        };
        let before = git::head(base).await?;
        merge(
            base,
            &entry.branch,
            &race.base_branch,
            mode,
            &message,
            &before,
        )
        .await?;
        let merged_commit = git::head(base).await?;
        self.races().update_race(id, index, "kept", |r| {
            r.state = RaceState::Kept;
            r.kept_index = Some(index);
            if let Some(e) = r.entry_mut(index) {
                e.state = EntryState::Kept;
            }
            Ok(())
        })?;
        let others: Vec<u32> = race
            .entries
            .iter()
            .filter(|e| e.index != index && e.state != EntryState::Closed)
            .map(|e| e.index)
            .collect();
        let cleanup = self
            .close_entries(id, &others, delete_branches, force)
            .await?;
        Ok(Kept {
            race: self.races().get_race(id)?,
            merged_commit,
            cleanup,
        })
    }

    /// Closes entries (`indexes`, or every one not closed when empty).
    pub async fn close_race(
        &self,
        id: &RaceId,
        indexes: &[u32],
        delete_branches: bool,
        force: bool,
    ) -> Result<(Race, Vec<Cleanup>)> {
        let race = self.races().get_race(id)?;
        for i in indexes {
            if race.entry(*i).is_none() {
                return Err(Error::bad(format!("race {id} has no entry {i}")));
            }
        }
        let chosen: Vec<u32> = if indexes.is_empty() {
            race.entries
                .iter()
                .filter(|e| e.state != EntryState::Closed)
                .map(|e| e.index)
                .collect()
        } else {
            indexes.to_vec()
        };
        let cleanup = self
            .close_entries(id, &chosen, delete_branches, force)
            .await?;
        Ok((self.races().get_race(id)?, cleanup))
    }

    async fn close_entries(
        &self,
        id: &RaceId,
        indexes: &[u32],
        delete_branches: bool,
        force: bool,
    ) -> Result<Vec<Cleanup>> {
        let mut out = Vec::new();
        for &index in indexes {
            let cleanup = self.close_entry(id, index, delete_branches, force).await?;
            out.push(cleanup);
        }
        self.races().update_race(id, 0, "entries closed", |r| {
            if r.state == RaceState::Running
                && r.entries.iter().all(|e| e.state == EntryState::Closed)
            {
                r.state = RaceState::Closed;
            }
            Ok(())
        })?;
        Ok(out)
    }

    async fn close_entry(
        &self,
        id: &RaceId,
        index: u32,
        delete_branches: bool,
        force: bool,
    ) -> Result<Cleanup> {
        let race = self.races().get_race(id)?;
        let entry = race
            .entry(index)
            .cloned()
            .ok_or_else(|| Error::bad(format!("race {id} has no entry {index}")))?;
        let mut done = Cleanup {
            index,
            ..Cleanup::default()
        };
        let mut problems = Vec::new();
        if let Some(pane) = &entry.pane_id
            && self.store().read(|s| s.pane(pane).map(|_| ())).is_ok()
        {
            let _ = self.close_pane(pane).await;
        }
        if let Some(ws) = &entry.workspace_id
            && self.store().read(|s| s.workspace(ws).map(|_| ())).is_ok()
        {
            let _ = self.close_workspace(ws).await;
        }
        done.stopped = true;
        if entry.path.is_dir() {
            match remove_worktree(&race.repo_root, &entry.path, force).await {
                Ok(()) => done.worktree_removed = true,
                Err(why) => problems.push(why),
            }
            self.store().publish([Event::WorktreeChanged {
                repo_root: race.repo_root.clone(),
            }]);
        } else {
            // Gone already (removed by hand): let git forget it.
            let _ = git::git(&race.repo_root, &["worktree", "prune"]).await;
            done.worktree_removed = true;
        }
        if delete_branches && entry.state != EntryState::Kept {
            if done.worktree_removed {
                let ran = git::git_status(&race.repo_root, &["branch", "-D", "--", &entry.branch])
                    .await?;
                if ran.code == 0 {
                    done.branch_deleted = true;
                } else {
                    problems.push(format!(
                        "branch {} kept: {}",
                        entry.branch,
                        ran.stderr.trim()
                    ));
                }
            } else {
                problems.push(format!(
                    "branch {} kept: its worktree is still there",
                    entry.branch
                ));
            }
        }
        done.problem = problems.join("; ");
        let problem = done.problem.clone();
        self.races().update_entry(id, index, "closed", |e| {
            if e.state != EntryState::Kept {
                e.state = EntryState::Closed;
            }
            e.pending_prompt = None;
            e.pending_comments = 0;
            e.pane_id = None;
            e.workspace_id = None;
            if !problem.is_empty() {
                e.error = problem;
            }
        })?;
        Ok(done)
    }
}

/// Removes a race worktree under the worktree rules; the reason it was kept otherwise.
async fn remove_worktree(repo: &Path, path: &Path, force: bool) -> std::result::Result<(), String> {
    let shown = path.display();
    let dir = repo.to_path_buf();
    let trees = crate::hub::blocking("listing worktrees", move || {
        crate::git::worktrees::list(&dir)
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    match trees.find(&real) {
        Some(t) if t.is_main => return Err(format!("{shown} is the main checkout; kept")),
        Some(t) if t.locked => {
            return Err(format!(
                "worktree {shown} is locked; kept (`git worktree unlock` it first)"
            ));
        }
        Some(_) => {}
        None => {
            return Err(format!(
                "{shown} is not a worktree of this repository; kept"
            ));
        }
    }
    let dirty = git::changes(path)
        .await
        .map(|c| !c.trim().is_empty())
        .unwrap_or(true);
    if dirty && !force {
        return Err(format!(
            "worktree {shown} has changes or untracked files; kept (close with --force to remove it anyway)"
        ));
    }
    let path_text = path.to_string_lossy();
    let mut args = vec!["worktree", "remove"];
    if dirty {
        args.push("--force");
    }
    args.extend(["--", &path_text]);
    git::git(repo, &args)
        .await
        .map(|_| ())
        .map_err(|e| format!("worktree {shown} kept: {e}"))
}

/// Merges `branch` into the checked-out base branch; on failure the base is put back at
/// `before` and the error names the conflicting files.
async fn merge(
    base: &Path,
    branch: &str,
    base_branch: &str,
    mode: MergeMode,
    message: &str,
    before: &str,
) -> Result<()> {
    let ran = match mode {
        MergeMode::FastForward => {
            git::git_status(base, &["merge", "--ff-only", "-q", branch]).await?
        }
        MergeMode::Merge => {
            git::git_status(
                base,
                &["merge", "--no-ff", "--no-edit", "-q", "-m", message, branch],
            )
            .await?
        }
        MergeMode::Squash => git::git_status(base, &["merge", "--squash", "-q", branch]).await?,
    };
    if ran.code != 0 {
        let files = git::conflicted(base).await;
        undo(base, before).await;
        let why = if mode == MergeMode::FastForward {
            format!(
                "{base_branch} cannot be fast-forwarded to {branch} (the base branch has moved since the race started): keep it with a merge commit or squash"
            )
        } else if files.is_empty() {
            format!("merging {branch} failed: {}", ran.stderr.trim())
        } else {
            format!(
                "merging {branch} into {base_branch} conflicts in {}; nothing was merged",
                files.join(", ")
            )
        };
        return Err(Error::RaceMergeConflict(why));
    }
    if mode == MergeMode::Squash {
        let ran = git::git_status(base, &["commit", "--no-verify", "-q", "-m", message]).await?;
        if ran.code != 0 {
            undo(base, before).await;
            return Err(Error::RaceMergeConflict(format!(
                "squashing {branch} gave nothing to commit (the entry has no changes against {base_branch}); nothing was merged"
            )));
        }
    }
    Ok(())
}

/// Puts a clean base checkout back at `before`.
async fn undo(base: &Path, before: &str) {
    let _ = git::git_status(base, &["merge", "--abort"]).await;
    if let Err(e) = git::git(base, &["reset", "--hard", "-q", before]).await {
        tracing::warn!("cannot reset {} after a failed merge: {e}", base.display());
    }
}
