//! Where things are on the outer terminal: the sidebar, the tab bar, the pane area, the status
//! line, each pane's title row and content, each tab's cells. `view` draws by these and
//! `update` hit-tests mouse events by the same numbers, so a click lands where it was drawn.

use crate::geometry::{Placement, Rect};
use signaltty_proto::v1 as pb;

use crate::app::{App, SIDEBAR_WIDTH};

/// The screen's main regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Regions {
    /// The sidebar (its right border included), when shown.
    pub sidebar: Option<Rect>,
    /// The tab bar: one row above the pane area.
    pub tab_bar: Rect,
    /// Where the current tab's layout is drawn.
    pub panes: Rect,
    /// The status line at the bottom.
    pub status: Rect,
}

/// The regions for the app's size and sidebar setting.
pub fn regions(app: &App) -> Regions {
    let (cols, rows) = app.size;
    let side = if app.sidebar_visible && cols > SIDEBAR_WIDTH + 20 {
        SIDEBAR_WIDTH
    } else {
        0
    };
    let body_rows = rows.saturating_sub(1);
    Regions {
        sidebar: (side > 0).then(|| Rect::new(0, 0, side, body_rows)),
        tab_bar: Rect::new(side, 0, cols - side, body_rows.min(1)),
        panes: Rect::new(
            side,
            1.min(body_rows),
            cols - side,
            body_rows.saturating_sub(1),
        ),
        status: Rect::new(0, body_rows, cols, rows.min(1)),
    }
}

/// How many tree rows the sidebar shows (its title row and footer take two), and the index of
/// the first one: the list scrolls to keep the highlight in view.
pub fn sidebar_window(app: &App) -> (usize, usize) {
    let height = regions(app).sidebar.map(|s| s.height).unwrap_or(0);
    let visible = usize::from(height.saturating_sub(2));
    let first = app.highlight.saturating_sub(visible.saturating_sub(1));
    (first, visible)
}

/// The index (into `App::sidebar_rows`) of the tree row drawn at screen row `y`.
pub fn sidebar_row_at(app: &App, y: u16) -> Option<usize> {
    let side = regions(app).sidebar?;
    let (first, visible) = sidebar_window(app);
    let offset = usize::from(y.checked_sub(side.y + 1)?);
    let row = first + offset;
    (offset < visible && row < app.sidebar_rows().len()).then_some(row)
}

/// The current tab's placement as drawn: its layout, or its zoomed pane alone over the whole
/// pane area.
pub fn placement(app: &App) -> Option<(&pb::Tab, Placement)> {
    let tab = app.current_tab()?;
    if let Some(pane) = crate::moves::zoomed(app) {
        let leaf = pb::Layout {
            node: Some(pb::layout::Node::PaneId(pane.to_owned())),
        };
        return Some((tab, Placement::compute(&leaf, regions(app).panes)));
    }
    layout_placement(app)
}

/// The current tab's placement by its layout, zoom or not (neighbours and dividers).
pub fn layout_placement(app: &App) -> Option<(&pb::Tab, Placement)> {
    let tab = app.current_tab()?;
    let layout = signaltty_client::layout_tree::held(tab)?;
    Some((tab, Placement::compute(layout, regions(app).panes)))
}

/// A pane's content: its rectangle without the title row.
pub fn content(rect: Rect) -> Rect {
    Rect::new(
        rect.x,
        rect.y.saturating_add(1.min(rect.height)),
        rect.width,
        rect.height.saturating_sub(1),
    )
}

/// The tab bar's cells for each tab of the current workspace: (tab id, label, x, width). Labels
/// shrink to fit, down to 6 cells; tabs that still do not fit are left out after a `…`.
pub fn tab_cells(app: &App) -> Vec<(String, String, u16, u16)> {
    let bar = regions(app).tab_bar;
    let Some(ws) = app.current_workspace() else {
        return Vec::new();
    };
    let tabs: Vec<&pb::Tab> = app.catalog.tabs_of(ws).collect();
    if tabs.is_empty() {
        return Vec::new();
    }
    let current = app.current_tab().map(|t| t.id.as_str());
    let last = app.history.tab.get(&ws.id).map(String::as_str);
    // tmux's window flags: `*` the current tab, `-` the last one, `Z` zoomed.
    let labels: Vec<String> = tabs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut flags = String::new();
            if Some(t.id.as_str()) == current {
                flags.push('*');
            } else if Some(t.id.as_str()) == last {
                flags.push('-');
            }
            if app.zoomed.contains_key(&t.id) {
                flags.push('Z');
            }
            flags.push_str(&crate::outer_notify::tab_flags(app, t));
            format!("{}:{}{flags}", i + 1, crate::names::tab_name(app, t))
        })
        .collect();
    let available = usize::from(bar.width.saturating_sub(2));
    let natural: usize = labels.iter().map(|l| l.chars().count() + 3).sum();
    let cap = if natural <= available {
        usize::MAX
    } else {
        (available / tabs.len()).saturating_sub(3).max(6)
    };
    let labels: Vec<String> = labels.iter().map(|l| truncate(l, cap)).collect();
    let widths: Vec<u16> = labels
        .iter()
        .map(|l| u16::try_from(l.chars().count() + 3).unwrap_or(u16::MAX))
        .collect();
    // The current tab is always shown: the tabs before it give way when they do not all fit.
    let room = u32::from(bar.width.saturating_sub(1));
    let at = tabs
        .iter()
        .position(|t| Some(t.id.as_str()) == current)
        .unwrap_or(0);
    let mut first = 0;
    while first < at
        && widths[first..=at]
            .iter()
            .map(|w| u32::from(*w))
            .sum::<u32>()
            > room
    {
        first += 1;
    }
    let mut out = Vec::new();
    let mut x = bar.x;
    for ((tab, label), width) in tabs.iter().zip(labels).zip(widths).skip(first) {
        if u32::from(x) + u32::from(width) > bar.right().saturating_sub(1) {
            break;
        }
        out.push((tab.id.clone(), label, x, width));
        x += width;
    }
    out
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}
