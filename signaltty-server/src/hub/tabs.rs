//! Tab operations: the record-only ones are `hub.arrangement()`'s (see `arrange.rs`); closing a
//! tab also ends its panes, so it is `Hub`'s.

use crate::error::Result;
use crate::model::ids::{PaneId, TabId, WorkspaceId};
use crate::model::layout::{Layout, PathStep};
use crate::model::tab::Tab;

use super::Hub;
use super::arrange::Arrangement;

impl Hub {
    /// Closes a tab and ends its panes.
    pub async fn close_tab(&self, id: &TabId) -> Result<Vec<PaneId>> {
        let removed = self.store().apply(|s, now| s.close_tab(id, now))?;
        let ids: Vec<PaneId> = removed.into_iter().map(|p| p.id).collect();
        self.end_panes(&ids).await;
        Ok(ids)
    }
}

impl Arrangement {
    /// Adds an empty tab.
    pub fn create_tab(&self, ws: &WorkspaceId, title: &str) -> Result<Tab> {
        self.store().apply(|s, now| s.create_tab(ws, title, now))
    }

    /// Renames a tab.
    pub fn rename_tab(&self, id: &TabId, title: &str) -> Result<Tab> {
        self.store().apply(|s, _| s.rename_tab(id, title))
    }

    /// Replaces a tab's layout.
    pub fn set_layout(&self, id: &TabId, layout: Layout) -> Result<Tab> {
        self.store().apply(|s, _| s.set_layout(id, layout))
    }

    /// Moves one divider.
    pub fn set_ratio(&self, id: &TabId, path: &[PathStep], ratio: f32) -> Result<Tab> {
        self.store().apply(|s, _| s.set_ratio(id, path, ratio))
    }
}
