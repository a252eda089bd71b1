//! Moving around as tmux does: the last pane / tab / workspace (`;` `l` `L`), the next pane in
//! layout order (`o`), the next and previous workspace (`(` `)`), zoom (`z`), swapping (`{`
//! `}`) and rotating (`C-o` `M-o`) panes.
//!
//! Zoom is the client's own state, per tab: the zoomed pane is drawn over the whole pane area
//! (the others stay attached, watched, so they keep running at their size) until the tab's
//! focus moves to another pane or `z` is pressed again. The server has no zoom in its layout:
//! it survives a reconnect in memory and a detach in a file of this client's
//! ([`crate::zoom_file`]); other clients do not see it.
//!
//! Swap and rotate change which pane sits in which place of the tab's layout: the tree (its
//! splits and ratios) stays, its leaves are permuted, and the new layout goes to the server
//! with `SetLayout`, so every client sees it and it is saved.

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::layout::Node;

use crate::app::{App, Effect, Place, Request};
use crate::navigate::go_to;

/// Where the user is now.
pub fn place(app: &App) -> Place {
    (
        app.workspace.clone(),
        app.current_tab().map(|t| t.id.clone()),
        app.focused_pane().map(|p| p.id.clone()),
    )
}

/// Run after every message: remembers what was left, and drops a zoom whose pane lost the
/// focus.
pub fn follow(app: &mut App) {
    let now = place(app);
    let before = std::mem::replace(&mut app.history.at, now.clone());
    if before != now {
        match (&before, &now) {
            ((Some(w0), ..), (Some(w1), ..)) if w0 != w1 => {
                app.history.workspace = Some(w0.clone());
            }
            ((_, Some(t0), _), (Some(ws), Some(t1), _)) if t0 != t1 => {
                app.history.tab.insert(ws.clone(), t0.clone());
            }
            ((_, _, Some(p0)), (_, Some(tab), Some(p1))) if p0 != p1 => {
                app.history.pane.insert(tab.clone(), p0.clone());
            }
            _ => {}
        }
        // The sidebar follows the focus (unless the user is moving in it).
        if app.focus != crate::app::Focus::Sidebar
            && let (_, _, Some(pane)) = &now
        {
            let row = crate::app::Row::Pane(pane.clone());
            if let Some(i) = app.sidebar_rows().iter().position(|r| *r == row) {
                app.highlight = i;
            }
        }
    }
    if let (_, Some(tab), pane) = &now
        && let Some(zoomed) = app.zoomed.get(tab)
        && pane.as_ref() != Some(zoomed)
    {
        app.zoomed.remove(tab);
    }
}

/// The pane focused before this one in the current tab.
pub fn last_pane(app: &mut App, fx: &mut Vec<Effect>) -> bool {
    let Some(tab) = app.current_tab() else {
        return false;
    };
    let Some(pane) = app
        .history
        .pane
        .get(&tab.id)
        .filter(|p| tab.pane_ids.contains(p))
        .cloned()
    else {
        return false;
    };
    let (ws, tab) = (tab.workspace_id.clone(), tab.id.clone());
    go_to(app, Some(ws), Some(tab), Some(pane), fx);
    true
}

/// The tab shown before this one in the current workspace.
pub fn last_tab(app: &mut App, fx: &mut Vec<Effect>) -> bool {
    let Some(ws) = app.current_workspace() else {
        return false;
    };
    let Some(tab) = app
        .history
        .tab
        .get(&ws.id)
        .filter(|t| ws.tab_ids.contains(t))
        .cloned()
    else {
        return false;
    };
    let ws = ws.id.clone();
    go_to(app, Some(ws), Some(tab), None, fx);
    true
}

/// The workspace shown before this one.
pub fn last_workspace(app: &mut App, fx: &mut Vec<Effect>) -> bool {
    let Some(ws) = app
        .history
        .workspace
        .clone()
        .filter(|w| app.catalog.workspace(w).is_some())
    else {
        return false;
    };
    go_to(app, Some(ws), None, None, fx);
    true
}

/// The next (`step` 1) or previous (`step` -1) workspace, wrapping.
pub fn cycle_workspace(app: &mut App, forward: bool, fx: &mut Vec<Effect>) -> bool {
    let ids: Vec<String> = app
        .catalog
        .workspaces
        .iter()
        .map(|w| w.id.clone())
        .collect();
    let n = ids.len();
    if n < 2 {
        return false;
    }
    let i = app
        .workspace
        .as_ref()
        .and_then(|w| ids.iter().position(|id| id == w))
        .unwrap_or(0);
    let j = if forward {
        (i + 1) % n
    } else {
        (i + n - 1) % n
    };
    go_to(app, Some(ids[j].clone()), None, None, fx);
    true
}

/// The next pane of the current tab in layout order, wrapping.
pub fn next_pane(app: &mut App, fx: &mut Vec<Effect>) {
    let (Some(tab), Some(pane)) = (app.current_tab(), app.focused_pane()) else {
        return;
    };
    let ids = &tab.pane_ids;
    let Some(i) = ids.iter().position(|id| id == &pane.id) else {
        return;
    };
    let next = ids[(i + 1) % ids.len()].clone();
    let (ws, tab) = (tab.workspace_id.clone(), tab.id.clone());
    go_to(app, Some(ws), Some(tab), Some(next), fx);
}

/// Zooms the focused pane, or unzooms the tab. A tab of one pane has nothing to zoom.
pub fn toggle_zoom(app: &mut App) {
    let (Some(tab), Some(pane)) = (app.current_tab(), app.focused_pane()) else {
        return;
    };
    let (tab, pane) = (tab.id.clone(), pane.id.clone());
    if app.zoomed.remove(&tab).is_none() && app.current_tab().is_some_and(|t| t.pane_ids.len() > 1)
    {
        app.zoomed.insert(tab, pane);
    }
}

/// The zoomed pane of the current tab, if it is zoomed.
pub fn zoomed(app: &App) -> Option<&str> {
    let tab = app.current_tab()?;
    let pane = app.zoomed.get(&tab.id)?;
    tab.pane_ids.contains(pane).then_some(pane.as_str())
}

/// How the panes of a tab move between its places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shuffle {
    /// The focused pane trades places with the one before it in layout order.
    SwapPrev,
    /// … with the one after it.
    SwapNext,
    /// Every pane moves one place on (the last to the first place).
    Rotate,
    /// Every pane moves one place back.
    RotateBack,
}

/// Permutes the current tab's panes over its places and sends the new layout.
pub fn shuffle(app: &mut App, how: Shuffle, fx: &mut Vec<Effect>) {
    let Some(tab) = app.current_tab() else {
        return;
    };
    let Some(layout) = signaltty_client::layout_tree::held(tab) else {
        return;
    };
    let order = crate::geometry::pane_ids(layout);
    let n = order.len();
    if n < 2 {
        return;
    }
    let focused = app.focused_pane().map(|p| p.id.clone());
    let at = focused
        .and_then(|f| order.iter().position(|id| *id == f))
        .unwrap_or(0);
    // `new[i]`: the pane that goes to place `i`.
    let mut new = order.clone();
    match how {
        Shuffle::SwapPrev => new.swap(at, (at + n - 1) % n),
        Shuffle::SwapNext => new.swap(at, (at + 1) % n),
        Shuffle::Rotate => new.rotate_right(1),
        Shuffle::RotateBack => new.rotate_left(1),
    }
    let mut next = new.into_iter();
    let layout = relabel(layout, &mut next);
    fx.push(Effect::Request(Request::SetLayout {
        tab_id: tab.id.clone(),
        layout,
    }));
}

/// The same tree with its leaves, in layout order, taken from `ids`.
fn relabel(layout: &pb::Layout, ids: &mut impl Iterator<Item = String>) -> pb::Layout {
    let node = match &layout.node {
        Some(Node::PaneId(id)) => Some(Node::PaneId(ids.next().unwrap_or_else(|| id.clone()))),
        Some(Node::Split(split)) => {
            let mut split = split.clone();
            if let Some(first) = split.first.as_deref() {
                split.first = Some(Box::new(relabel(first, ids)));
            }
            if let Some(second) = split.second.as_deref() {
                split.second = Some(Box::new(relabel(second, ids)));
            }
            Some(Node::Split(split))
        }
        None => None,
    };
    pb::Layout { node }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::{leaf, split};

    #[test]
    fn relabelling_keeps_the_tree_and_permutes_the_leaves() {
        let layout = split(
            pb::Direction::Right,
            0.3,
            leaf("a"),
            split(pb::Direction::Down, 0.6, leaf("b"), leaf("c")),
        );
        let mut ids = ["c", "a", "b"].map(String::from).into_iter();
        let new = relabel(&layout, &mut ids);
        assert_eq!(
            new,
            split(
                pb::Direction::Right,
                0.3,
                leaf("c"),
                split(pb::Direction::Down, 0.6, leaf("a"), leaf("b")),
            )
        );
    }
}
