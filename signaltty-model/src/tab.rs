//! Tab records: a named layout of panes inside a workspace.

use std::time::SystemTime;

use crate::ids::{PaneId, TabId, WorkspaceId};
use crate::layout::Layout;

/// One named layout.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tab {
    /// Its id.
    pub id: TabId,
    /// Owner.
    pub workspace_id: WorkspaceId,
    /// Display title.
    pub title: String,
    /// The split tree; `None` while the tab has no panes.
    pub layout: Option<Layout>,
    /// Last focused pane.
    #[serde(default)]
    pub active_pane: Option<PaneId>,
    /// Creation time.
    pub created_at: SystemTime,
}

impl Tab {
    /// The tab's panes in layout order.
    pub fn panes(&self) -> Vec<PaneId> {
        self.layout.as_ref().map(Layout::panes).unwrap_or_default()
    }
}
