//! What is under the mouse: the region at a cell (for the keymap's `mouse:kind(region)`
//! bindings and the actions that act at the cursor) and the start of a divider drag. Below
//! `update` and `actions`, which both ask.

use crate::app::{App, Drag};
use crate::geometry::Hit;
use crate::regions::{placement, regions};

/// The mouse regions of the keymap's `mouse:kind(region)` strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// A pane (title or content).
    Pane,
    /// A tab in the tab bar.
    Tab,
    /// A sidebar row.
    SidebarRow,
    /// A split divider.
    Divider,
    /// An option of a pending decision (drawn on its pane or listed in the sidebar).
    DecisionOption,
}

impl Region {
    /// Its name in the keymap's mouse strings.
    pub fn name(self) -> &'static str {
        match self {
            Region::Pane => "pane",
            Region::Tab => "tab",
            Region::SidebarRow => "sidebar-row",
            Region::Divider => "split-divider",
            Region::DecisionOption => "decision-option",
        }
    }
}

/// What is at a cell, with the pane's id for panes.
pub fn region_at(app: &App, x: u16, y: u16) -> Option<(Region, Option<String>)> {
    if let Some((pane_id, _)) = crate::decision_box::decision_at(app, x, y) {
        return Some((Region::DecisionOption, Some(pane_id)));
    }
    let r = regions(app);
    if r.sidebar.is_some_and(|s| s.contains(x, y)) {
        return Some((Region::SidebarRow, None));
    }
    if r.tab_bar.contains(x, y) {
        return Some((Region::Tab, None));
    }
    if r.panes.contains(x, y) {
        let (_, placement) = placement(app)?;
        return match placement.hit(x, y)? {
            Hit::Pane(id) => Some((Region::Pane, Some(id))),
            Hit::Divider(_) => Some((Region::Divider, None)),
        };
    }
    None
}

/// Starts a divider drag at a cell, if a divider is there.
pub fn start_drag(app: &mut App, x: u16, y: u16) {
    if let Some((tab, placement)) = placement(app)
        && let Some(Hit::Divider(divider)) = placement.hit(x, y)
    {
        app.drag = Some(Drag {
            tab_id: tab.id.clone(),
            divider,
        });
    }
}
