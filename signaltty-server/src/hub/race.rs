//! Races (`RaceService`): one task given to several agents, each on a branch and worktree of its
//! own. The records are the races handle's, `hub.races()` (`race/records.rs`, with
//! `race/wait.rs` and `race/compare.rs`); this file keeps on `Hub` what also opens workspaces
//! and spawns panes: `StartRace`, which checks everything before it creates anything and then
//! prepares the entries in the background, and review comments (typed by the driver).
//! `race/drive.rs` types prompts when agents are ready and follows their turns, `race/keep.rs`
//! merges and closes.

mod compare;
mod drive;
pub mod git;
mod keep;
mod records;
mod wait;

pub use compare::EntryDiff;
pub use keep::{Cleanup, Kept};
pub use records::Races;
pub use wait::WaitOutcome;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::model::agent_kind::AgentKind;
use crate::model::event::Event;
use crate::model::ids::{RaceId, WorkspaceId};
use crate::model::race::{
    Entry, EntryState, Race, RaceState, ReviewComment, entry_branch, review_prompt, short_id,
};
use crate::model::workspace::WorkspaceSettings;

use super::Hub;
use super::panes::Launch;

/// Most entries one race may have.
pub const MAX_ENTRIES: usize = 16;
/// Longest prompt, in bytes (a pane's input limit is 1 MiB; a task is far shorter).
pub const MAX_PROMPT: usize = 64 * 1024;
/// The file races are kept in, in the state directory.
pub const RACES_FILE: &str = "races.json";

/// What StartRace asks for.
#[derive(Clone, Debug, Default)]
pub struct NewRace {
    /// The base workspace.
    pub workspace_id: Option<WorkspaceId>,
    /// The task.
    pub prompt: String,
    /// Agent names (`claude`, …, or `generic:COMMAND`).
    pub agents: Vec<String>,
    /// Entries per agent (0: 1).
    pub copies: u32,
    /// The base revision; empty: HEAD.
    pub base: String,
    /// Refuse a dirty base checkout.
    pub from_working_tree: bool,
    /// Files to copy.
    pub copy_files: Vec<String>,
    /// Setup command.
    pub setup_command: String,
    /// Check command.
    pub check_command: String,
}

/// An agent named in a request: its kind and the command that starts it. Kind names start the
/// agent's own binary (found on the server's `PATH`); `generic:COMMAND` runs COMMAND (split at
/// spaces), which has no ready signal, so the fallback wait applies.
pub fn parse_agent(raw: &str) -> Result<(AgentKind, Vec<String>)> {
    if let Some(command) = raw.strip_prefix("generic:") {
        let argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        if argv.is_empty() {
            return Err(Error::bad(
                "agent `generic:` needs a command after the colon, e.g. `generic:aider`",
            ));
        }
        return Ok((AgentKind::Generic, argv));
    }
    let unknown = || {
        Error::bad(format!(
            "unknown agent {}: give claude, codex, opencode, cursor, or generic:COMMAND",
            crate::error::quote(raw)
        ))
    };
    let kind = AgentKind::parse(raw).map_err(|_| unknown())?;
    let binary = kind.binary().ok_or_else(unknown)?;
    Ok((kind, vec![binary.to_owned()]))
}

impl Hub {
    /// Loads `races.json` (see [`Races::load`]) and drives again the entries a restart cut
    /// short.
    pub fn restore_races(&self) {
        for (race, index) in self.races().load() {
            self.drive_entry(&race, index);
        }
    }

    /// Checks a race and starts it: nothing is created when a check fails. The entries are
    /// prepared in the background, one after another.
    pub async fn start_race(&self, req: NewRace) -> Result<Race> {
        let ws = req
            .workspace_id
            .clone()
            .ok_or_else(|| Error::bad("workspace_id is required: the workspace to race from"))?;
        let cwd = self
            .store()
            .read(|s| s.workspace(&ws).map(|w| w.cwd.clone()))?;
        if req.prompt.trim().is_empty() {
            return Err(Error::bad(
                "prompt is empty: give the task every agent gets",
            ));
        }
        if req.prompt.len() > MAX_PROMPT {
            return Err(Error::bad(format!(
                "prompt of {} bytes is over the {MAX_PROMPT}-byte limit: put the details in a file the agents can read",
                req.prompt.len()
            )));
        }
        if req.agents.is_empty() {
            return Err(Error::bad(
                "no agent: name at least one (claude, codex, opencode, cursor, generic:COMMAND)",
            ));
        }
        let agents = req
            .agents
            .iter()
            .map(|a| parse_agent(a.trim()))
            .collect::<Result<Vec<_>>>()?;
        let copies = req.copies.max(1) as usize;
        let count = agents.len().saturating_mul(copies);
        if count > MAX_ENTRIES {
            return Err(Error::bad(format!(
                "{count} entries asked for; a race has at most {MAX_ENTRIES}"
            )));
        }
        for file in &req.copy_files {
            git::checked_copy_path(file)?;
        }
        let checkout = git::toplevel(&cwd)
            .await
            .map_err(|_| Error::NotARepo(cwd.display().to_string()))?;
        let base_commit = git::resolve_commit(&checkout, &req.base).await?;
        if req.from_working_tree {
            let changes = git::changes(&checkout).await?;
            if !changes.trim().is_empty() {
                return Err(Error::RaceBaseDirty(format!(
                    "{} has uncommitted changes, which the entries would not get: commit or stash them, or race from a commit (--base)",
                    checkout.display()
                )));
            }
        }
        let base_branch = git::current_branch(&checkout).await?;
        let trees = {
            let dir = checkout.clone();
            super::blocking("listing worktrees", move || {
                crate::git::worktrees::list(&dir)
            })
            .await??
        };
        let id = RaceId::new();
        let short = short_id(&id);
        let parent = worktrees_dir(&trees.main);
        let mut entries = Vec::with_capacity(count);
        for (kind, argv) in &agents {
            for _ in 0..copies {
                let index = u32::try_from(entries.len() + 1).unwrap_or(u32::MAX);
                let branch = entry_branch(&short, index, *kind);
                let path = parent.join(format!("race-{short}-{index}-{kind}"));
                if path.symlink_metadata().is_ok() {
                    return Err(Error::bad(format!(
                        "{} exists already; remove it or start the race again",
                        path.display()
                    )));
                }
                entries.push(Entry {
                    index,
                    agent: *kind,
                    argv: argv.clone(),
                    branch,
                    path,
                    workspace_id: None,
                    pane_id: None,
                    state: EntryState::Preparing,
                    error: String::new(),
                    setup_output: String::new(),
                    turns: 0,
                    pending_prompt: Some(req.prompt.clone()),
                    last_prompt: String::new(),
                    pending_comments: 0,
                    turn_seq: 0,
                    started_at: None,
                    prompt_delivered_at: None,
                    turn_ended_at: None,
                    stat: Default::default(),
                    check: None,
                });
            }
        }
        let race = Race {
            id: id.clone(),
            workspace_id: ws,
            base_checkout: checkout,
            repo_root: trees.main.clone(),
            base: req.base.clone(),
            base_commit,
            base_branch,
            prompt: req.prompt.clone(),
            created_at: SystemTime::now(),
            state: RaceState::Running,
            entries,
            kept_index: None,
            copy_files: req.copy_files.clone(),
            setup_command: req.setup_command.trim().to_owned(),
            check_command: req.check_command.trim().to_owned(),
        };
        self.races().lock().races.push(race.clone());
        self.races().update_race(&id, 0, "started", |_| Ok(()))?;
        let hub = self.clone();
        let started = race.clone();
        tokio::spawn(async move { hub.prepare_entries(started).await });
        Ok(race)
    }

    /// Prepares the entries side by side (only `git worktree add` one at a time: it writes the
    /// repository's shared files), so one entry's setup or agent start overlaps the next one's
    /// checkout; each entry that is ready gets its driver.
    async fn prepare_entries(&self, race: Race) {
        let checkout = tokio::sync::Mutex::new(());
        let all = race.entries.iter().map(|entry| {
            let (race, checkout) = (&race, &checkout);
            async move {
                if let Err(e) = self.prepare_entry(race, entry, checkout).await {
                    let _ = self
                        .races()
                        .update_entry(&race.id, entry.index, "failed", |en| {
                            en.state = EntryState::Failed;
                            en.error = e.to_string();
                        });
                    return;
                }
                self.drive_entry(&race.id, entry.index);
            }
        });
        futures_util::future::join_all(all).await;
    }

    /// Branch and worktree, copied files, setup command, workspace, agent.
    async fn prepare_entry(
        &self,
        race: &Race,
        entry: &Entry,
        checkout: &tokio::sync::Mutex<()>,
    ) -> Result<()> {
        {
            let _one_at_a_time = checkout.lock().await;
            git::add_worktree(
                &race.repo_root,
                &entry.path,
                &entry.branch,
                &race.base_commit,
            )
            .await?;
        }
        self.store().publish([Event::WorktreeChanged {
            repo_root: race.repo_root.clone(),
        }]);
        let mut notes = {
            let (from, to, files) = (
                race.base_checkout.clone(),
                entry.path.clone(),
                race.copy_files.clone(),
            );
            super::blocking("copying files", move || git::copy_files(&from, &to, &files)).await?
        };
        if !race.setup_command.is_empty() {
            self.races()
                .update_entry(&race.id, entry.index, "setup running", |_| ())?;
            let ran = git::shell(&entry.path, &race.setup_command).await?;
            notes.push(format!("{}{}", ran.stdout, ran.stderr));
            let output = git::tail(&notes.join("\n"), 16 * 1024);
            self.races()
                .update_entry(&race.id, entry.index, "setup finished", |en| {
                    en.setup_output = output.clone();
                })?;
            if ran.code != 0 {
                return Err(Error::bad(format!(
                    "the setup command failed (exit status {}{}); its output is in setup_output",
                    ran.code,
                    if ran.timed_out {
                        ", killed at 10 min"
                    } else {
                        ""
                    }
                )));
            }
        } else if !notes.is_empty() {
            let output = notes.join("\n");
            self.races()
                .update_entry(&race.id, entry.index, "files copied", |en| {
                    en.setup_output = output;
                })?;
        }
        let name = format!("race-{}-{}-{}", race.short_id(), entry.index, entry.agent);
        let workspace = self
            .create_workspace(
                &name,
                &entry.path.display().to_string(),
                WorkspaceSettings::default(),
            )
            .await?;
        self.races()
            .update_entry(&race.id, entry.index, "workspace opened", |en| {
                en.workspace_id = Some(workspace.id.clone());
            })?;
        let (pane, _tab) = self
            .spawn_pane(
                &workspace.id,
                None,
                Launch {
                    argv: entry.argv.clone(),
                    cwd: entry.path.display().to_string(),
                    ..Launch::default()
                },
            )
            .await?;
        self.races()
            .update_entry(&race.id, entry.index, "agent started", |en| {
                en.pane_id = Some(pane.id.clone());
                en.state = EntryState::Starting;
                en.started_at = Some(SystemTime::now());
            })?;
        Ok(())
    }

    /// Queues review comments for an entry's agent, typed as one prompt once it is ready.
    pub fn review_entry(
        &self,
        id: &RaceId,
        index: u32,
        comments: Vec<ReviewComment>,
    ) -> Result<Entry> {
        if comments.is_empty() {
            return Err(Error::bad(
                "no comments: give at least one (path, line, text)",
            ));
        }
        for c in &comments {
            if c.text.trim().is_empty() {
                return Err(Error::bad(format!(
                    "the comment on {}:{} has no text",
                    c.path, c.line
                )));
            }
            if c.path.is_empty() || c.path.starts_with('/') || c.path.contains("..") {
                return Err(Error::bad(format!(
                    "comment path {} must be relative to the repository root, as `race compare` lists it",
                    crate::error::quote(&c.path)
                )));
            }
        }
        let entry = self
            .races()
            .update_race(id, index, "review queued", |race| {
                let entry = race
                    .entry_mut(index)
                    .ok_or_else(|| Error::bad(format!("race {id} has no entry {index}")))?;
                if !entry.state.is_open() || entry.state == EntryState::Failed {
                    return Err(Error::RaceEnded(format!(
                        "entry {index} is {:?}; only a running entry takes review comments",
                        entry.state
                    )));
                }
                if entry.pane_id.is_none() {
                    return Err(Error::bad(format!(
                        "entry {index} has no agent yet; review it once it is prepared"
                    )));
                }
                let mut all = comments.clone();
                let before = entry.pending_comments;
                if before > 0 {
                    // Comments queued earlier and not typed yet go first, in one prompt.
                    if let Some(prompt) = &entry.pending_prompt {
                        let text = review_prompt(&all);
                        let added = text.lines().skip(1).collect::<Vec<_>>().join("\n");
                        entry.pending_prompt = Some(format!("{prompt}\n{added}"));
                    }
                    all.clear();
                } else {
                    entry.pending_prompt = Some(review_prompt(&all));
                }
                entry.pending_comments = before + u32::try_from(comments.len()).unwrap_or(u32::MAX);
                Ok(entry.clone())
            })?;
        self.drive_entry(id, index);
        Ok(entry)
    }
}

/// Where a repository's race worktrees go: next to the main checkout, as CreateWorktree's.
fn worktrees_dir(main: &Path) -> PathBuf {
    let name = main
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_owned());
    main.with_file_name(format!("{name}-worktrees"))
}
