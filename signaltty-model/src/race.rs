//! A race: one task given to several agents, each on a branch and worktree of its own made from
//! one base commit. Pure records (persisted as `races.json` by `hub/race/store.rs`); what moves
//! them is `hub/race/`.
//!
//! Invariants: entry indexes run from 1 without gaps, in order; `turn_seq` is the event seq at
//! which the entry's current turn began (its prompt typed), so only a turn end after it counts.

use std::path::PathBuf;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::agent_kind::AgentKind;
use crate::ids::{PaneId, RaceId, WorkspaceId};

/// Where a race as a whole stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RaceState {
    /// Entries are prepared, working or waiting for the user.
    Running,
    /// An entry was merged.
    Kept,
    /// Every entry was closed without keeping one.
    Closed,
}

/// Where one entry stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryState {
    /// Branch, worktree, copied files, setup command.
    Preparing,
    /// The agent runs; a prompt waits for it to be ready.
    Starting,
    /// The prompt was typed; the turn has not ended.
    Working,
    /// The turn ended.
    TurnEnded,
    /// Preparing failed, or the agent failed or exited.
    Failed,
    /// Closed.
    Closed,
    /// Merged into the base branch.
    Kept,
}

impl EntryState {
    /// Still part of the race (not closed, not kept).
    pub fn is_open(self) -> bool {
        !matches!(self, EntryState::Closed | EntryState::Kept)
    }
}

/// How an entry is merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeMode {
    /// `git merge --ff-only`.
    FastForward,
    /// `git merge --no-ff`.
    Merge,
    /// `git merge --squash` + a commit.
    Squash,
}

/// One comment on a line of an entry's diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewComment {
    /// Path relative to the repository root.
    pub path: String,
    /// Line (0: the file as a whole).
    pub line: u32,
    /// The comment.
    pub text: String,
}

/// One run of the check command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRun {
    /// The command.
    pub command: String,
    /// Exit status, -1 when killed.
    pub exit_code: i32,
    /// Output (tail).
    pub output: String,
    /// Killed at its deadline.
    pub timed_out: bool,
    /// When it finished.
    pub finished_at: SystemTime,
}

/// Files changed and lines, as last counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffStat {
    /// Files changed.
    pub files: u32,
    /// Lines added.
    pub added: u32,
    /// Lines removed.
    pub removed: u32,
}

/// One agent's try.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// From 1.
    pub index: u32,
    /// The agent.
    pub agent: AgentKind,
    /// The command its pane runs.
    pub argv: Vec<String>,
    /// Its branch.
    pub branch: String,
    /// Its worktree.
    pub path: PathBuf,
    /// The workspace on the worktree.
    pub workspace_id: Option<WorkspaceId>,
    /// The agent's pane.
    pub pane_id: Option<PaneId>,
    /// Where it stands.
    pub state: EntryState,
    /// Why it failed, or what closing could not do.
    #[serde(default)]
    pub error: String,
    /// The setup command's output (tail).
    #[serde(default)]
    pub setup_output: String,
    /// Prompts typed so far.
    #[serde(default)]
    pub turns: u32,
    /// The prompt to type once the agent is ready (the race's, or a review's).
    #[serde(default)]
    pub pending_prompt: Option<String>,
    /// The last prompt typed (typed again when a restart cut its turn).
    #[serde(default)]
    pub last_prompt: String,
    /// How many review comments `pending_prompt` carries.
    #[serde(default)]
    pub pending_comments: u32,
    /// The event seq when the current turn's prompt was typed.
    #[serde(default)]
    pub turn_seq: u64,
    /// When the agent started.
    pub started_at: Option<SystemTime>,
    /// When the last prompt was typed.
    pub prompt_delivered_at: Option<SystemTime>,
    /// When the last turn ended.
    pub turn_ended_at: Option<SystemTime>,
    /// Changes against the base, as last counted.
    #[serde(default)]
    pub stat: DiffStat,
    /// The last check run.
    #[serde(default)]
    pub check: Option<CheckRun>,
}

/// One task given to several agents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Race {
    /// Id.
    pub id: RaceId,
    /// The workspace it was started from.
    pub workspace_id: WorkspaceId,
    /// The base checkout (that workspace's checkout root).
    pub base_checkout: PathBuf,
    /// Main checkout of the repository.
    pub repo_root: PathBuf,
    /// The base as given.
    pub base: String,
    /// The base commit.
    pub base_commit: String,
    /// The branch of the base checkout at start; empty when detached.
    pub base_branch: String,
    /// The task.
    pub prompt: String,
    /// When it started.
    pub created_at: SystemTime,
    /// Where it stands.
    pub state: RaceState,
    /// The entries.
    pub entries: Vec<Entry>,
    /// The kept entry.
    pub kept_index: Option<u32>,
    /// Files copied into each worktree.
    #[serde(default)]
    pub copy_files: Vec<String>,
    /// Setup command.
    #[serde(default)]
    pub setup_command: String,
    /// Check command.
    #[serde(default)]
    pub check_command: String,
}

impl Race {
    /// The entry with `index`.
    pub fn entry(&self, index: u32) -> Option<&Entry> {
        self.entries.iter().find(|e| e.index == index)
    }

    /// The entry with `index`, to change.
    pub fn entry_mut(&mut self, index: u32) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.index == index)
    }

    /// The short form of the id used in branch and directory names (8 characters of its body).
    pub fn short_id(&self) -> String {
        short_id(&self.id)
    }
}

/// The first 8 characters of a race id's body.
pub fn short_id(id: &RaceId) -> String {
    id.as_str()
        .trim_start_matches(RaceId::PREFIX)
        .chars()
        .take(8)
        .collect()
}

/// The branch of entry `index` running `agent`.
pub fn entry_branch(short: &str, index: u32, agent: AgentKind) -> String {
    format!("race/{short}/{index}-{agent}")
}

/// The review comments as one prompt: one line per comment (`path:line: text`), after a line
/// that says what they are.
pub fn review_prompt(comments: &[ReviewComment]) -> String {
    let mut text = String::from("Review comments on your changes; please address each one:");
    for c in comments {
        let place = if c.line == 0 {
            c.path.clone()
        } else {
            format!("{}:{}", c.path, c.line)
        };
        text.push('\n');
        text.push_str(&format!("- {place}: {}", c.text.trim()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_prompt_lists_every_comment_with_its_place() {
        let prompt = review_prompt(&[
            ReviewComment {
                path: "src/a.rs".into(),
                line: 12,
                text: "name this better ".into(),
            },
            ReviewComment {
                path: "README.md".into(),
                line: 0,
                text: "say why".into(),
            },
        ]);
        let lines: Vec<&str> = prompt.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1], "- src/a.rs:12: name this better");
        assert_eq!(lines[2], "- README.md: say why");
    }

    #[test]
    fn branches_name_the_race_the_entry_and_the_agent() {
        assert_eq!(
            entry_branch("ab12cd34", 2, AgentKind::Codex),
            "race/ab12cd34/2-codex"
        );
        let id = RaceId::parse("race_0123456789abcdef").expect("id");
        assert_eq!(short_id(&id), "01234567");
    }
}
