//! `State`: every workspace, tab and pane record, and the only code that changes them. Each
//! mutation validates first, then applies fully and returns the events it caused — never a
//! half-applied change. Pure: no clocks (callers pass `now`), no I/O, no processes.
//!
//! Invariants: every tab's layout holds exactly the panes whose `tab_id` is that tab; every tab is
//! listed by exactly one workspace; ids are unique.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::SystemTime;

use crate::decision::ClearReason;
use crate::event::Event;
use crate::ids::{PaneId, TabId, WorkspaceId};
use crate::layout::{Direction, Layout, LayoutError, MAX_PANES, PathStep, Removal};
use crate::names::validate_name;
use crate::notification::Notifications;
use crate::pane::{Pane, Size};
use crate::tab::Tab;
use crate::tab_list::TabList;
use crate::workspace::{GitContext, Workspace, WorkspaceSettings};

/// Why a state change was refused. Maps onto the server's error reasons.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StateError {
    /// Unknown workspace.
    #[error("no such workspace {0}")]
    NoSuchWorkspace(WorkspaceId),
    /// Unknown tab.
    #[error("no such tab {0}")]
    NoSuchTab(TabId),
    /// Unknown pane.
    #[error("no such pane {0}")]
    NoSuchPane(PaneId),
    /// Invalid request content.
    #[error("{0}")]
    Bad(String),
    /// A new pane would pass a pane limit; nothing was changed.
    #[error("{0}")]
    TooManyPanes(PaneLimit),
}

/// The pane limit a new pane would pass (documented in `docs/api.md`, "Limits").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PaneLimit {
    /// The tab already holds [`crate::layout::MAX_PANES`] panes.
    #[error(
        "tab {tab} already holds {max} panes, the most one tab may hold; start the pane in \
         another tab (spawn it without a tab) or close or move a pane out of this one first"
    )]
    Tab {
        /// The full tab.
        tab: TabId,
        /// The limit.
        max: usize,
    },
    /// The server already holds [`Policy::max_panes`] panes.
    #[error(
        "the server already holds {max} panes, the most it keeps at once (config key \
         server.max_panes); close panes you no longer need first"
    )]
    Server {
        /// The limit.
        max: usize,
    },
}

/// Where a new pane goes.
#[derive(Clone, Debug)]
pub enum Placement {
    /// A new tab at the end of the workspace.
    NewTab {
        /// Title of the new tab ("" for the default).
        title: String,
    },
    /// An existing tab: fills it when empty, else splits its active pane to the right.
    IntoTab(TabId),
    /// Next to an existing pane.
    Split {
        /// The pane to split.
        target: PaneId,
        /// Where the new pane goes.
        direction: Direction,
    },
}

/// Policies the server's configuration decides.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// Close a tab when its last pane closes (default) instead of keeping it empty.
    pub close_tab_on_last_pane: bool,
    /// Most panes the server holds at once, counting exited and restored ones (config key
    /// `server.max_panes`, default [`DEFAULT_MAX_PANES`]).
    pub max_panes: usize,
}

/// Default of [`Policy::max_panes`]: far more than a person drives at once, and within what the
/// descriptor limit the server raises itself to allows (four per live pane, `fdlimit`).
pub const DEFAULT_MAX_PANES: usize = 1024;

impl Default for Policy {
    fn default() -> Self {
        Policy {
            close_tab_on_last_pane: true,
            max_panes: DEFAULT_MAX_PANES,
        }
    }
}

/// What removing a pane did.
#[derive(Clone, Debug, PartialEq)]
pub struct PaneRemoval {
    /// The removed record.
    pub pane: Pane,
    /// The tab closed with it.
    pub tab_closed: bool,
}

type Outcome<T> = Result<(T, Vec<Event>), StateError>;

/// All records.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct State {
    workspaces: Vec<Workspace>,
    tabs: HashMap<TabId, Tab>,
    /// Boxed: a map stores its values in a bucket array kept up to ~2× the entries, and a
    /// `Pane` is ~550 bytes, so inline every pane cost ~1 KiB of buckets.
    panes: HashMap<PaneId, Box<Pane>>,
    /// The newest notifications (bounded); see `state/awareness.rs`.
    #[serde(default)]
    notifications: Notifications,
    #[serde(skip)]
    policy: Policy,
}

impl State {
    /// An empty state with the given policy.
    pub fn new(policy: Policy) -> Self {
        State {
            policy,
            ..State::default()
        }
    }

    // ----- reads -----

    /// Workspaces in creation order.
    pub fn workspaces(&self) -> &[Workspace] {
        &self.workspaces
    }

    /// One workspace.
    pub fn workspace(&self, id: &WorkspaceId) -> Result<&Workspace, StateError> {
        self.workspaces
            .iter()
            .find(|w| &w.id == id)
            .ok_or_else(|| StateError::NoSuchWorkspace(id.clone()))
    }

    /// One tab.
    pub fn tab(&self, id: &TabId) -> Result<&Tab, StateError> {
        self.tabs
            .get(id)
            .ok_or_else(|| StateError::NoSuchTab(id.clone()))
    }

    /// One pane.
    pub fn pane(&self, id: &PaneId) -> Result<&Pane, StateError> {
        self.panes
            .get(id)
            .map(|p| &**p)
            .ok_or_else(|| StateError::NoSuchPane(id.clone()))
    }

    /// A workspace's tabs in display order.
    pub fn tabs_of(&self, ws: &Workspace) -> Vec<&Tab> {
        ws.tabs
            .ids()
            .into_iter()
            .filter_map(|t| self.tabs.get(t))
            .collect()
    }

    /// A tab's panes in layout order.
    pub fn panes_of_tab(&self, tab: &Tab) -> Vec<&Pane> {
        tab.panes()
            .iter()
            .filter_map(|p| self.panes.get(p).map(|p| &**p))
            .collect()
    }

    /// Every pane: workspace by workspace, tab by tab, in layout order.
    pub fn all_panes(&self) -> Vec<&Pane> {
        self.workspaces
            .iter()
            .flat_map(|w| self.tabs_of(w))
            .flat_map(|t| self.panes_of_tab(t))
            .collect()
    }

    /// Of `pids` (a process and its ancestors, nearest first), the first that is a live pane's
    /// child: its index in `pids` and its pane. One pass over the panes that allocates nothing,
    /// because every connection asks (`peer.rs`).
    pub fn live_pane_among(&self, pids: &[u32]) -> Option<(usize, &PaneId)> {
        let mut nearest: Option<(usize, &PaneId)> = None;
        for pane in self.panes.values() {
            if let crate::pane::PaneStatus::Live { pid } = pane.status
                && let Some(at) = pids.iter().position(|p| *p == pid)
                && nearest.is_none_or(|(best, _)| at < best)
            {
                nearest = Some((at, &pane.id));
            }
        }
        nearest
    }

    /// Number of tabs.
    pub fn tab_count(&self) -> usize {
        self.tabs.len()
    }

    /// Number of panes.
    pub fn pane_count(&self) -> usize {
        self.panes.len()
    }

    /// Mutable access to one pane record for field updates that keep the invariants (title,
    /// lifecycle, status…). Structure (tab, workspace) must not be changed through it.
    pub fn pane_mut(&mut self, id: &PaneId) -> Result<&mut Pane, StateError> {
        self.panes
            .get_mut(id)
            .map(|p| &mut **p)
            .ok_or_else(|| StateError::NoSuchPane(id.clone()))
    }

    // ----- workspaces -----

    /// Opens a workspace. `cwd` must already be checked to be an absolute directory.
    pub fn create_workspace(
        &mut self,
        name: &str,
        cwd: PathBuf,
        settings: WorkspaceSettings,
        git: GitContext,
        now: SystemTime,
    ) -> Outcome<Workspace> {
        let name = if name.trim().is_empty() {
            cwd.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| "workspace".to_owned())
        } else {
            validate_name("workspace name", name).map_err(StateError::Bad)?
        };
        let ws = Workspace {
            id: WorkspaceId::new(),
            name,
            cwd,
            git,
            tabs: TabList::new(),
            active_tab: None,
            settings,
            created_at: now,
            updated_at: now,
        };
        self.workspaces.push(ws.clone());
        Ok((ws.clone(), vec![Event::WorkspaceCreated(Box::new(ws))]))
    }

    fn workspace_mut(&mut self, id: &WorkspaceId) -> Result<&mut Workspace, StateError> {
        self.workspaces
            .iter_mut()
            .find(|w| &w.id == id)
            .ok_or_else(|| StateError::NoSuchWorkspace(id.clone()))
    }

    fn update_workspace(
        &mut self,
        id: &WorkspaceId,
        now: SystemTime,
        change: impl FnOnce(&mut Workspace),
    ) -> Outcome<Workspace> {
        let ws = self.workspace_mut(id)?;
        change(ws);
        ws.updated_at = now;
        let ws = ws.clone();
        Ok((ws.clone(), vec![Event::WorkspaceUpdated(Box::new(ws))]))
    }

    /// Renames a workspace.
    pub fn rename_workspace(
        &mut self,
        id: &WorkspaceId,
        name: &str,
        now: SystemTime,
    ) -> Outcome<Workspace> {
        let name = validate_name("workspace name", name).map_err(StateError::Bad)?;
        self.update_workspace(id, now, |w| w.name = name)
    }

    /// Replaces a workspace's settings.
    pub fn set_settings(
        &mut self,
        id: &WorkspaceId,
        settings: WorkspaceSettings,
        now: SystemTime,
    ) -> Outcome<Workspace> {
        self.update_workspace(id, now, |w| w.settings = settings)
    }

    /// Stores a fresh git context; emits an event only when the facts changed.
    pub fn set_git(&mut self, id: &WorkspaceId, git: GitContext) -> Outcome<GitContext> {
        let ws = self.workspace_mut(id)?;
        let changed = !ws.git.same_facts(&git);
        ws.git = git.clone();
        let events = if changed {
            vec![Event::GitContextChanged {
                workspace_id: id.clone(),
                git: git.clone(),
            }]
        } else {
            Vec::new()
        };
        Ok((git, events))
    }

    /// Closes a workspace with all its tabs and panes; returns the removed panes.
    pub fn close_workspace(&mut self, id: &WorkspaceId) -> Outcome<Vec<Pane>> {
        let index = self
            .workspaces
            .iter()
            .position(|w| &w.id == id)
            .ok_or_else(|| StateError::NoSuchWorkspace(id.clone()))?;
        let ws = self.workspaces.remove(index);
        let mut events = Vec::new();
        let mut removed = Vec::new();
        for tab_id in ws.tabs.ids() {
            let (panes, tab_events) = self.drop_tab(tab_id);
            removed.extend(panes);
            events.extend(tab_events);
        }
        events.push(Event::WorkspaceClosed {
            workspace_id: ws.id,
        });
        Ok((removed, events))
    }

    // ----- tabs -----

    /// Adds an empty tab at the end of a workspace.
    pub fn create_tab(
        &mut self,
        ws_id: &WorkspaceId,
        title: &str,
        now: SystemTime,
    ) -> Outcome<Tab> {
        let ws = self.workspace(ws_id)?;
        let title = if title.trim().is_empty() {
            format!("tab {}", ws.tabs.len() + 1)
        } else {
            validate_name("tab title", title).map_err(StateError::Bad)?
        };
        let tab = Tab {
            id: TabId::new(),
            workspace_id: ws_id.clone(),
            title,
            layout: None,
            active_pane: None,
            created_at: now,
        };
        self.tabs.insert(tab.id.clone(), tab.clone());
        let (_, mut events) = self.update_workspace(ws_id, now, |w| {
            w.tabs.push(tab.id.clone());
            w.active_tab = Some(tab.id.clone());
        })?;
        events.insert(0, Event::TabCreated(Box::new(tab.clone())));
        Ok((tab, events))
    }

    fn update_tab(&mut self, id: &TabId, change: impl FnOnce(&mut Tab)) -> Outcome<Tab> {
        let tab = self
            .tabs
            .get_mut(id)
            .ok_or_else(|| StateError::NoSuchTab(id.clone()))?;
        change(tab);
        let tab = tab.clone();
        Ok((tab.clone(), vec![Event::TabUpdated(Box::new(tab))]))
    }

    /// Renames a tab.
    pub fn rename_tab(&mut self, id: &TabId, title: &str) -> Outcome<Tab> {
        let title = validate_name("tab title", title).map_err(StateError::Bad)?;
        self.update_tab(id, |t| t.title = title)
    }

    /// Closes a tab and its panes; returns the removed panes.
    pub fn close_tab(&mut self, id: &TabId, now: SystemTime) -> Outcome<Vec<Pane>> {
        let ws_id = self.tab(id)?.workspace_id.clone();
        let (removed, mut events) = self.drop_tab(id);
        let (_, ws_events) = self.update_workspace(&ws_id, now, |w| {
            w.tabs.retain(|t| t != id);
            if w.active_tab.as_ref() == Some(id) {
                w.active_tab = w.tabs.last().cloned();
            }
        })?;
        events.extend(ws_events);
        Ok((removed, events))
    }

    /// Removes a tab and its panes from the maps (not from the workspace's list).
    fn drop_tab(&mut self, id: &TabId) -> (Vec<Pane>, Vec<Event>) {
        let Some(tab) = self.tabs.remove(id) else {
            return (Vec::new(), Vec::new());
        };
        let mut events = Vec::new();
        let mut removed = Vec::new();
        for pane_id in tab.panes() {
            if let Some(pane) = self.panes.remove(&pane_id) {
                events.extend(closed_pane_events(&pane));
                removed.push(*pane);
            }
        }
        events.push(Event::TabClosed {
            tab_id: tab.id,
            workspace_id: tab.workspace_id,
        });
        (removed, events)
    }

    /// Replaces a tab's layout after checking it holds exactly the tab's panes.
    pub fn set_layout(&mut self, id: &TabId, layout: Layout) -> Outcome<Tab> {
        let tab = self.tab(id)?;
        let expected: BTreeSet<PaneId> = tab.panes().into_iter().collect();
        if expected.is_empty() {
            return Err(StateError::Bad(format!(
                "tab {id} has no panes; spawn one before setting a layout"
            )));
        }
        layout
            .validate_against(&expected)
            .map_err(|e| StateError::Bad(format!("layout refused: {e}")))?;
        self.update_tab(id, |t| t.layout = Some(layout))
    }

    /// Moves one divider.
    pub fn set_ratio(&mut self, id: &TabId, path: &[PathStep], ratio: f32) -> Outcome<Tab> {
        let tab = self.tab(id)?;
        let mut layout = tab
            .layout
            .clone()
            .ok_or_else(|| StateError::Bad(format!("tab {id} has no panes, so no divider")))?;
        layout
            .set_ratio(path, ratio)
            .map_err(|e| StateError::Bad(format!("ratio refused: {e}")))?;
        self.update_tab(id, |t| t.layout = Some(layout))
    }

    /// Marks a tab and pane as the focused ones.
    pub fn focus(&mut self, pane_id: &PaneId, now: SystemTime) -> Result<Vec<Event>, StateError> {
        let pane = self.pane(pane_id)?;
        let (tab_id, ws_id) = (pane.tab_id.clone(), pane.workspace_id.clone());
        let mut events = Vec::new();
        if self.tab(&tab_id)?.active_pane.as_ref() != Some(pane_id) {
            events.extend(
                self.update_tab(&tab_id, |t| t.active_pane = Some(pane_id.clone()))?
                    .1,
            );
        }
        if self.workspace(&ws_id)?.active_tab.as_ref() != Some(&tab_id) {
            events.extend(
                self.update_workspace(&ws_id, now, |w| w.active_tab = Some(tab_id))?
                    .1,
            );
        }
        Ok(events)
    }

    // ----- panes -----

    /// Checks that `placement` can take a pane in `ws_id` now, so a process is only spawned
    /// for a placement that exists. Returns the workspace the pane will belong to.
    pub fn check_placement(&self, placement: &Placement) -> Result<(), StateError> {
        match placement {
            Placement::NewTab { title } => {
                if !title.trim().is_empty() {
                    validate_name("tab title", title).map_err(StateError::Bad)?;
                }
                Ok(())
            }
            Placement::IntoTab(tab) => self.tab(tab).map(|_| ()),
            Placement::Split { target, .. } => self.pane(target).map(|_| ()),
        }?;
        self.check_room(placement)
    }

    /// Whether one more pane fits, on the server and in the tab `placement` puts it in.
    fn check_room(&self, placement: &Placement) -> Result<(), StateError> {
        if self.panes.len() >= self.policy.max_panes {
            return Err(StateError::TooManyPanes(PaneLimit::Server {
                max: self.policy.max_panes,
            }));
        }
        let tab = match placement {
            Placement::NewTab { .. } => return Ok(()),
            Placement::IntoTab(tab) => self.tab(tab)?,
            Placement::Split { target, .. } => self.tab(&self.pane(target)?.tab_id)?,
        };
        self.check_tab_room(tab)
    }

    /// Whether one more pane fits in `tab`.
    fn check_tab_room(&self, tab: &Tab) -> Result<(), StateError> {
        if tab.panes().len() >= MAX_PANES {
            return Err(StateError::TooManyPanes(PaneLimit::Tab {
                tab: tab.id.clone(),
                max: MAX_PANES,
            }));
        }
        Ok(())
    }

    /// Inserts a new pane record (its process already runs) at `placement`. The record's
    /// `workspace_id` decides the workspace; its `tab_id` is set here.
    pub fn add_pane(
        &mut self,
        mut pane: Pane,
        placement: Placement,
        now: SystemTime,
    ) -> Outcome<(Pane, Tab)> {
        self.check_placement(&placement)?;
        let ws_id = pane.workspace_id.clone();
        self.workspace(&ws_id)?;
        let mut events = Vec::new();
        let (tab_id, target) = match placement {
            Placement::NewTab { title } => {
                let (tab, tab_events) = self.create_tab(&ws_id, &title, now)?;
                events.extend(tab_events);
                (tab.id, None)
            }
            Placement::IntoTab(tab_id) => {
                let tab = self.tab(&tab_id)?;
                if tab.workspace_id != ws_id {
                    return Err(StateError::Bad(format!(
                        "tab {tab_id} belongs to another workspace than {ws_id}"
                    )));
                }
                let target = tab
                    .active_pane
                    .clone()
                    .or_else(|| tab.panes().last().cloned())
                    .map(|p| (p, Direction::Right));
                (tab_id, target)
            }
            Placement::Split { target, direction } => {
                let target_pane = self.pane(&target)?;
                if target_pane.workspace_id != ws_id {
                    return Err(StateError::Bad(
                        "split target is in another workspace".into(),
                    ));
                }
                (target_pane.tab_id.clone(), Some((target, direction)))
            }
        };
        let mut layout = self.tab(&tab_id)?.layout.clone();
        match (&mut layout, target) {
            (Some(layout), Some((target, direction))) => layout
                .split(&target, pane.id.clone(), direction)
                .map_err(|e| match e {
                    LayoutError::TooManyPanes { max } => StateError::TooManyPanes(PaneLimit::Tab {
                        tab: tab_id.clone(),
                        max,
                    }),
                    e => StateError::Bad(format!("split refused: {e}")),
                })?,
            (None, _) | (Some(_), None) => layout = Some(Layout::single(pane.id.clone())),
        }
        pane.tab_id = tab_id.clone();
        self.panes.insert(pane.id.clone(), Box::new(pane.clone()));
        events.push(Event::PaneCreated(Box::new(pane.clone())));
        let (tab, tab_events) = self.update_tab(&tab_id, |t| {
            t.layout = layout;
            t.active_pane = Some(pane.id.clone());
        })?;
        events.extend(tab_events);
        Ok(((pane, tab), events))
    }

    /// Removes a pane from its tab, collapsing the layout; closes the tab when it was the last
    /// pane (unless the policy keeps empty tabs).
    pub fn remove_pane(&mut self, id: &PaneId, now: SystemTime) -> Outcome<PaneRemoval> {
        let pane = self.pane(id)?.clone();
        let tab = self.tab(&pane.tab_id)?.clone();
        let mut layout = tab.layout.clone();
        let last = match layout.as_mut().map(|l| l.remove(id)) {
            Some(Ok(Removal::LastPane)) | None => true,
            Some(Ok(Removal::Collapsed { .. })) => false,
            Some(Err(e)) => return Err(StateError::Bad(format!("layout out of step: {e}"))),
        };
        self.panes.remove(id);
        let mut events = closed_pane_events(&pane);
        let tab_closed = last && self.policy.close_tab_on_last_pane;
        if tab_closed {
            let (_, close_events) = self.close_tab(&tab.id, now)?;
            events.extend(close_events);
        } else {
            let new_layout = if last { None } else { layout };
            let (_, tab_events) = self.update_tab(&tab.id, |t| {
                t.layout = new_layout;
                if t.active_pane.as_ref() == Some(id) {
                    t.active_pane = t.panes().first().cloned();
                }
            })?;
            events.extend(tab_events);
        }
        Ok((PaneRemoval { pane, tab_closed }, events))
    }

    /// Records a new terminal size.
    pub fn resize_pane(&mut self, id: &PaneId, size: Size) -> Outcome<Size> {
        let pane = self.pane_mut(id)?;
        if pane.size == size {
            return Ok((size, Vec::new()));
        }
        pane.size = size;
        Ok((
            size,
            vec![Event::PaneResized {
                pane_id: id.clone(),
                size,
            }],
        ))
    }

    /// Applies a field change to a pane and emits PaneUpdated when it changed anything.
    pub fn update_pane(&mut self, id: &PaneId, change: impl FnOnce(&mut Pane)) -> Outcome<Pane> {
        let pane = self.pane_mut(id)?;
        let before = pane.clone();
        change(pane);
        let after = pane.clone();
        let events = if after == before {
            Vec::new()
        } else {
            vec![Event::PaneUpdated(Box::new(after.clone()))]
        };
        Ok((after, events))
    }

    /// Checks the structural invariants; used by tests and after restore.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen_tabs = BTreeSet::new();
        for ws in &self.workspaces {
            for tab_id in ws.tabs.ids() {
                let tab = self
                    .tabs
                    .get(tab_id)
                    .ok_or(format!("{tab_id} listed but missing"))?;
                if tab.workspace_id != ws.id || !seen_tabs.insert(tab_id.clone()) {
                    return Err(format!("{tab_id} owned twice or by the wrong workspace"));
                }
                let in_layout: BTreeSet<PaneId> = tab.panes().into_iter().collect();
                let owned: BTreeSet<PaneId> = self
                    .panes
                    .values()
                    .filter(|p| &p.tab_id == tab_id)
                    .map(|p| p.id.clone())
                    .collect();
                if in_layout != owned || in_layout.len() != tab.panes().len() {
                    return Err(format!("{tab_id} layout does not match its panes"));
                }
            }
        }
        if seen_tabs.len() != self.tabs.len() {
            return Err("orphan tabs".into());
        }
        Ok(())
    }

    /// Restores the policy after deserialising.
    pub fn set_policy(&mut self, policy: Policy) {
        self.policy = policy;
    }
}

mod arrange;
mod awareness;
pub use arrange::{Destination, PaneMoved};
pub use awareness::{AnswerRefused, HookApplied};

/// The events of a pane leaving the state: its pending decision is cleared first (the hook
/// waiting on it is woken by the hub with no verdict), so a client that follows decisions
/// through events sees it go, then the pane closes.
fn closed_pane_events(pane: &Pane) -> Vec<Event> {
    let mut events = Vec::new();
    if let Some(decision) = &pane.pending_decision {
        events.push(awareness::cleared_event(decision, ClearReason::PaneExited));
    }
    events.push(Event::PaneClosed {
        pane_id: pane.id.clone(),
        tab_id: pane.tab_id.clone(),
        workspace_id: pane.workspace_id.clone(),
    });
    events
}

#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
#[cfg(test)]
mod tests;
