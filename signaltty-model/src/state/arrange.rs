//! Arranging what already exists: focus (a workspace's active tab, a tab's active pane), moving a
//! pane to another tab or to a new one, and reordering a workspace's tabs.
//!
//! Like the rest of `State`, each operation validates everything first — the destination, the
//! pane to split, and both new layouts, computed on copies — and only then writes, so a refused
//! move changes nothing. Invariants kept:
//! - a moved pane leaves its old layout the way a closed one does (its parent split collapses
//!   into the sibling, which takes the space and the focus), and its old tab, when emptied,
//!   follows `Policy::close_tab_on_last_pane` — closed (without ending anything: it holds no
//!   pane any more) or kept empty;
//! - the destination gets the pane by splitting one of its panes (the named one, else its
//!   active pane, else its last) with the same run rebalancing as `SplitPane`;
//! - the moved pane becomes its new tab's active pane, and that tab its workspace's active tab:
//!   focus follows the pane, as it does for a new pane;
//! - focus and order changes that change nothing emit nothing.

use std::time::SystemTime;

use super::{Outcome, PaneLimit, State, StateError};
use crate::event::Event;
use crate::ids::{PaneId, TabId};
use crate::layout::{Direction, Layout, LayoutError, Removal};
use crate::names::validate_name;
use crate::pane::Pane;
use crate::tab::Tab;
use crate::workspace::Workspace;

/// Where [`State::move_pane`] puts a pane.
#[derive(Clone, Debug, PartialEq)]
pub enum Destination {
    /// A new tab at the end of the pane's workspace.
    NewTab {
        /// Title of the new tab ("" for the default "tab N").
        title: String,
    },
    /// An existing tab, in this or another workspace (the pane then belongs to that workspace).
    /// The pane splits `beside` in `direction`; without `beside`, the tab's active pane (else its
    /// last pane); an empty tab is simply filled. The pane's own tab is a valid destination only
    /// with a `beside`: the pane is then taken out and put back next to that pane.
    Tab {
        /// The destination tab.
        tab: TabId,
        /// The pane of that tab to split.
        beside: Option<PaneId>,
        /// Where the moved pane goes relative to the split pane.
        direction: Direction,
    },
}

/// What [`State::move_pane`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct PaneMoved {
    /// The pane after the move (its `tab_id`, and `workspace_id` when it changed workspace).
    pub pane: Pane,
    /// The tab it is in now.
    pub tab: Tab,
    /// The tab it left, when that tab was emptied and closed.
    pub closed_tab: Option<TabId>,
}

/// The moved pane's old tab after the pane left it.
enum Source {
    /// Other panes remain: the collapsed layout and the new active pane.
    Remains { layout: Layout, successor: PaneId },
    /// The pane was the tab's only one.
    Emptied,
}

impl State {
    /// Makes `tab` its workspace's active tab. Emits `WorkspaceUpdated` only when that changes.
    pub fn focus_tab(&mut self, tab_id: &TabId, now: SystemTime) -> Outcome<Workspace> {
        let ws_id = self.tab(tab_id)?.workspace_id.clone();
        let ws = self.workspace(&ws_id)?;
        if ws.active_tab.as_ref() == Some(tab_id) {
            return Ok((ws.clone(), Vec::new()));
        }
        self.update_workspace(&ws_id, now, |w| w.active_tab = Some(tab_id.clone()))
    }

    /// Makes the pane its tab's active pane and that tab its workspace's active tab. Emits
    /// `TabUpdated` / `WorkspaceUpdated` only for what changed. Returns both records.
    pub fn focus_pane(&mut self, pane_id: &PaneId, now: SystemTime) -> Outcome<(Tab, Workspace)> {
        let events = self.focus(pane_id, now)?;
        let tab = self.tab(&self.pane(pane_id)?.tab_id)?.clone();
        let ws = self.workspace(&tab.workspace_id)?.clone();
        Ok(((tab, ws), events))
    }

    /// Moves a tab to position `index` (0-based) of its workspace's tab list; the others keep
    /// their order. `index` must name an existing position. Emits `WorkspaceUpdated` only when
    /// the order changes.
    pub fn move_tab(
        &mut self,
        tab_id: &TabId,
        index: usize,
        now: SystemTime,
    ) -> Outcome<Workspace> {
        let ws_id = self.tab(tab_id)?.workspace_id.clone();
        let ws = self.workspace(&ws_id)?;
        let count = ws.tabs.len();
        if index >= count {
            return Err(StateError::Bad(format!(
                "tab index {index} is out of range: workspace {ws_id} has {count} tab(s), \
                 so the index must be 0–{}",
                count - 1
            )));
        }
        let from = ws
            .tabs
            .position(tab_id)
            .ok_or_else(|| StateError::Bad(format!("tab {tab_id} is not listed by {ws_id}")))?;
        if from == index {
            return Ok((ws.clone(), Vec::new()));
        }
        self.update_workspace(&ws_id, now, |w| {
            let tab = w.tabs.remove(from);
            w.tabs.insert(index, tab);
        })
    }

    /// Moves a pane to another tab (or a new one, or next to another pane of its own tab). The
    /// process is untouched; only the layouts and the pane's `tab_id` (and `workspace_id`)
    /// change. See the module docs for the rules; nothing changes when it is refused.
    pub fn move_pane(
        &mut self,
        pane_id: &PaneId,
        destination: Destination,
        now: SystemTime,
    ) -> Outcome<PaneMoved> {
        let pane = self.pane(pane_id)?.clone();
        let source_tab = self.tab(&pane.tab_id)?.clone();

        // ----- validate and compute, on copies -----
        let source = match source_tab.layout.clone() {
            Some(mut layout) => match layout.remove(pane_id) {
                Ok(Removal::Collapsed { successor }) => Source::Remains { layout, successor },
                Ok(Removal::LastPane) => Source::Emptied,
                Err(e) => return Err(StateError::Bad(format!("layout out of step: {e}"))),
            },
            None => return Err(StateError::Bad(format!("layout out of step: {pane_id}"))),
        };
        let (target_tab, split) = match &destination {
            Destination::NewTab { title } => {
                if !title.trim().is_empty() {
                    validate_name("tab title", title).map_err(StateError::Bad)?;
                }
                (None, None)
            }
            Destination::Tab {
                tab,
                beside,
                direction,
            } => {
                let target = self.tab(tab)?;
                let beside = match beside {
                    Some(b) if b == pane_id => {
                        return Err(StateError::Bad(format!(
                            "cannot move pane {pane_id} beside itself; name another pane"
                        )));
                    }
                    Some(b) => {
                        if !target.panes().contains(b) {
                            return Err(StateError::Bad(format!(
                                "pane {b} is not in tab {tab}; --beside must name a pane of the \
                                 destination tab"
                            )));
                        }
                        Some(b.clone())
                    }
                    None if tab == &source_tab.id => {
                        return Err(StateError::Bad(format!(
                            "pane {pane_id} is already in tab {tab}; name a pane to move it \
                             beside, or move it to another tab"
                        )));
                    }
                    None => target
                        .active_pane
                        .clone()
                        .filter(|p| target.panes().contains(p))
                        .or_else(|| target.panes().last().cloned()),
                };
                (Some(target.id.clone()), beside.map(|b| (b, *direction)))
            }
        };
        // The destination's layout after the pane joins it.
        let base = match (&target_tab, &source) {
            // Rearranging within one tab: split the layout the pane already left.
            (Some(t), Source::Remains { layout, .. }) if t == &source_tab.id => {
                Some(layout.clone())
            }
            (Some(t), _) => self.tab(t)?.layout.clone(),
            (None, _) => None,
        };
        let target_layout = match (base, split) {
            (Some(mut layout), Some((beside, direction))) => {
                layout
                    .split(&beside, pane_id.clone(), direction)
                    .map_err(|e| match (e, &target_tab) {
                        (LayoutError::TooManyPanes { max }, Some(tab)) => {
                            StateError::TooManyPanes(PaneLimit::Tab {
                                tab: tab.clone(),
                                max,
                            })
                        }
                        (e, _) => StateError::Bad(format!("move refused: {e}")),
                    })?;
                layout
            }
            // An empty destination (or a new tab): the pane fills it.
            _ => Layout::single(pane_id.clone()),
        };

        // ----- apply -----
        let mut events = Vec::new();
        let target_id = match &destination {
            Destination::Tab { tab, .. } => tab.clone(),
            Destination::NewTab { title } => {
                let (tab, tab_events) = self.create_tab(&pane.workspace_id, title, now)?;
                events.extend(tab_events);
                tab.id
            }
        };
        let target_ws = self.tab(&target_id)?.workspace_id.clone();
        let same_tab = target_id == source_tab.id;

        if !same_tab {
            let (_, pane_events) = self.update_pane(pane_id, |p| {
                p.tab_id = target_id.clone();
                p.workspace_id = target_ws.clone();
            })?;
            events.extend(pane_events);
        }
        let (tab, tab_events) = self.update_tab(&target_id, |t| {
            t.layout = Some(target_layout);
            t.active_pane = Some(pane_id.clone());
        })?;
        events.extend(tab_events);

        let mut closed_tab = None;
        if !same_tab {
            match source {
                Source::Remains { layout, successor } => {
                    let (_, source_events) = self.update_tab(&source_tab.id, |t| {
                        t.layout = Some(layout);
                        if t.active_pane.as_ref().is_none_or(|a| a == pane_id) {
                            t.active_pane = Some(successor);
                        }
                    })?;
                    events.extend(source_events);
                }
                Source::Emptied if self.policy.close_tab_on_last_pane => {
                    events.extend(self.unlink_empty_tab(&source_tab.id, now)?);
                    closed_tab = Some(source_tab.id.clone());
                }
                Source::Emptied => {
                    let (_, source_events) = self.update_tab(&source_tab.id, |t| {
                        t.layout = None;
                        t.active_pane = None;
                    })?;
                    events.extend(source_events);
                }
            }
        }
        let (_, ws_events) = self.focus_tab(&target_id, now)?;
        events.extend(ws_events);
        let pane = self.pane(pane_id)?.clone();
        Ok((
            PaneMoved {
                pane,
                tab,
                closed_tab,
            },
            events,
        ))
    }

    /// Closes a tab that holds no pane any more (its last one moved away): removed from the maps
    /// and its workspace's list, with the same active-tab rule as `close_tab`. Ends nothing.
    fn unlink_empty_tab(&mut self, id: &TabId, now: SystemTime) -> Result<Vec<Event>, StateError> {
        let tab = self
            .tabs
            .remove(id)
            .ok_or_else(|| StateError::NoSuchTab(id.clone()))?;
        let mut events = vec![Event::TabClosed {
            tab_id: tab.id.clone(),
            workspace_id: tab.workspace_id.clone(),
        }];
        let (_, ws_events) = self.update_workspace(&tab.workspace_id, now, |w| {
            w.tabs.retain(|t| t != id);
            if w.active_tab.as_ref() == Some(id) {
                w.active_tab = w.tabs.last().cloned();
            }
        })?;
        events.extend(ws_events);
        Ok(events)
    }
}

#[cfg(test)]
mod tests;
