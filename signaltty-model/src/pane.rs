//! Pane records: the metadata the server keeps about one PTY and its process. The process itself
//! is owned by the pane actor (`crate::pane`); this record is what is listed, evented and saved.

use std::path::PathBuf;
use std::time::SystemTime;

use crate::agent::AgentInfo;
use crate::decision::PendingDecision;
use crate::ids::{PaneId, TabId, WorkspaceId};
use crate::lifecycle::PaneState;

/// Terminal size in cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Size {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

impl Size {
    /// Smallest accepted width.
    pub const MIN_COLS: u16 = 20;
    /// Largest accepted width.
    pub const MAX_COLS: u16 = 500;
    /// Smallest accepted height.
    pub const MIN_ROWS: u16 = 5;
    /// Largest accepted height.
    pub const MAX_ROWS: u16 = 200;
    /// The size used when a request gives none.
    pub const DEFAULT: Size = Size { cols: 80, rows: 24 };

    /// A size from request values: 0 means the default; others are clamped into range.
    pub fn clamped(cols: u32, rows: u32) -> Size {
        let pick = |v: u32, default: u16, min: u16, max: u16| {
            if v == 0 {
                default
            } else {
                u16::try_from(v.min(u32::from(max)))
                    .unwrap_or(max)
                    .clamp(min, max)
            }
        };
        Size {
            cols: pick(cols, Self::DEFAULT.cols, Self::MIN_COLS, Self::MAX_COLS),
            rows: pick(rows, Self::DEFAULT.rows, Self::MIN_ROWS, Self::MAX_ROWS),
        }
    }
}

/// Whether a process runs in the pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum PaneStatus {
    /// Running. The pid is never persisted (restored panes become `Restored`).
    Live {
        /// Child pid.
        pid: u32,
    },
    /// Exited; the pane is a tombstone until closed.
    Exited {
        /// Exit code, 128+n for signal n.
        code: i32,
        /// When.
        at: SystemTime,
    },
    /// Restored from a snapshot; no process.
    Restored,
    /// Restored with a resumable agent session.
    Resumable,
    /// An idle agent whose process was stopped to save memory (`hub/hibernate.rs`); its screen
    /// is kept and its session is resumed when it is woken. Saved as `Resumable`.
    Hibernated,
}

impl PaneStatus {
    /// True while a process runs.
    pub fn is_live(&self) -> bool {
        matches!(self, PaneStatus::Live { .. })
    }
}

/// One pane's record.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pane {
    /// Its id.
    pub id: PaneId,
    /// Owning workspace.
    pub workspace_id: WorkspaceId,
    /// Tab that shows it.
    pub tab_id: TabId,
    /// Current title.
    pub title: String,
    /// Set by RenamePane: program titles (OSC 0/1/2) no longer override it.
    #[serde(default)]
    pub title_locked: bool,
    /// Launch command.
    pub argv: Vec<String>,
    /// Current working directory.
    pub cwd: PathBuf,
    /// Terminal size.
    pub size: Size,
    /// Process state.
    pub status: PaneStatus,
    /// Both state axes (lifecycle and attention) with their timestamps. A record saved before
    /// the axes existed loads as `unknown`/`none`.
    #[serde(default = "unknown_state")]
    pub state: PaneState,
    /// The agent running in the pane, when one was detected at spawn or reported by a hook.
    #[serde(default)]
    pub agent: Option<AgentInfo>,
    /// The question the pane's agent is blocked on. Never saved: it is only answerable while the
    /// hook that asked waits, and waits live in memory only.
    #[serde(skip)]
    pub pending_decision: Option<PendingDecision>,
    /// Latest explicit message (notification body or hook summary).
    #[serde(default)]
    pub last_message: String,
    /// Creation time.
    pub created_at: SystemTime,
}

fn unknown_state() -> PaneState {
    PaneState::new(SystemTime::UNIX_EPOCH)
}

impl Pane {
    /// The agent kind whose rules apply to this pane (`generic` when no agent is known).
    pub fn agent_kind(&self) -> crate::agent_kind::AgentKind {
        self.agent
            .as_ref()
            .map_or(crate::agent_kind::AgentKind::Generic, |a| a.kind)
    }
}
