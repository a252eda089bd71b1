//! Workspace records: a directory, its cached git context, settings and ordered tabs.

use std::path::PathBuf;
use std::time::SystemTime;

use crate::ids::{TabId, WorkspaceId};
use crate::tab_list::TabList;

/// One project or task.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Workspace {
    /// Its id.
    pub id: WorkspaceId,
    /// Display name (not unique).
    pub name: String,
    /// Default cwd for new panes; absolute.
    pub cwd: PathBuf,
    /// Cached git context of `cwd`.
    #[serde(default)]
    pub git: GitContext,
    /// Tabs in display order (a persistent list: a copy of the workspace shares it).
    pub tabs: TabList,
    /// Last focused tab.
    #[serde(default)]
    pub active_tab: Option<TabId>,
    /// User settings.
    #[serde(default)]
    pub settings: WorkspaceSettings,
    /// Creation time.
    pub created_at: SystemTime,
    /// Last change.
    pub updated_at: SystemTime,
}

/// Per-workspace choices. New fields must default so older snapshots load.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct WorkspaceSettings {
    /// Re-spawn resumable agent sessions after a restart without asking.
    pub auto_resume_agents: bool,
    /// Do not write pane output tails to disk.
    pub disable_tails: bool,
    /// Agents whose permission hooks, which run before the agent's own prompt, are held here
    /// for an answer from signaltty (see `config::AnswerPolicy`).
    pub answer_from_signaltty: Vec<crate::agent_kind::AgentKind>,
    /// Hibernate an agent pane idle this many minutes (0: never automatically).
    pub hibernate_after_minutes: u32,
    /// The agents that applies to; empty: all.
    pub hibernate_agents: Vec<crate::agent_kind::AgentKind>,
}

/// Cached git state of a directory. `repo_root == None` means "not a repository".
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct GitContext {
    /// Top-level directory of the checkout.
    pub repo_root: Option<PathBuf>,
    /// Name of the repository (main checkout's directory name).
    pub repo_name: String,
    /// Checked-out branch; `None` when detached or not a repo.
    pub branch: Option<String>,
    /// Tracked files differ from HEAD.
    pub dirty: bool,
    /// The dirty check ran out of time: `dirty` means nothing.
    pub dirty_unknown: bool,
    /// When this was read.
    pub refreshed_at: Option<SystemTime>,
}

impl GitContext {
    /// Same repository facts, ignoring when they were read (to decide whether to emit an event).
    pub fn same_facts(&self, other: &GitContext) -> bool {
        self.repo_root == other.repo_root
            && self.repo_name == other.repo_name
            && self.branch == other.branch
            && self.dirty == other.dirty
            && self.dirty_unknown == other.dirty_unknown
    }
}
