//! Focus and arrangement: which tab and pane the user was on, moving panes between tabs and
//! reordering tabs. All of it is layout bookkeeping in the store (`model/state/arrange.rs`);
//! no process is touched, so a moved pane keeps running and every attached client keeps its
//! stream. With renaming workspaces and tabs, their settings and tab layouts (`workspaces.rs`,
//! `tabs.rs`) it is the arrangement concern, `hub.arrangement()`: records in the store only, so
//! its handle holds the store and nothing else.

use crate::error::Result;
use crate::model::event::ChangeSource;
use crate::model::ids::{PaneId, TabId};
use crate::model::pane::Pane;
use crate::model::state::{Destination, PaneMoved};
use crate::model::tab::Tab;
use crate::model::workspace::Workspace;

use crate::store::Store;

/// The arrangement concern's handle.
#[derive(Clone, Debug)]
pub struct Arrangement {
    store: Store,
}

impl Arrangement {
    /// The handle over the store.
    pub(super) fn new(store: Store) -> Self {
        Arrangement { store }
    }

    pub(super) fn store(&self) -> &Store {
        &self.store
    }

    /// Makes a tab its workspace's active tab.
    pub fn focus_tab(&self, id: &TabId) -> Result<Workspace> {
        self.store().apply(|s, now| s.focus_tab(id, now))
    }

    /// Makes a pane its tab's active pane (and the tab its workspace's active one); with
    /// `mark_seen`, also clears its attention as a client looking at it does. Both happen in one
    /// store section, so no one sees the focus without the clear.
    pub fn focus_pane(&self, id: &PaneId, mark_seen: bool) -> Result<(Pane, Tab)> {
        self.store().apply(|s, now| {
            let ((tab, _), mut events) = s.focus_pane(id, now)?;
            if mark_seen {
                events.extend(s.mark_seen(id, ChangeSource::Client, now)?.1);
            }
            Ok(((s.pane(id)?.clone(), tab), events))
        })
    }

    /// Moves a tab to `index` in its workspace's list.
    pub fn move_tab(&self, id: &TabId, index: usize) -> Result<Workspace> {
        self.store().apply(|s, now| s.move_tab(id, index, now))
    }

    /// Moves a pane (its process untouched) to `destination`.
    pub fn move_pane(&self, id: &PaneId, destination: Destination) -> Result<PaneMoved> {
        self.store()
            .apply(|s, now| s.move_pane(id, destination, now))
    }
}
