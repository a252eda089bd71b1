//! Where things are on the outer terminal: the sidebar, the tab bar, the pane area, the status
//! line, each pane's title row and content, each tab's cells. `view` draws by these and
//! `update` hit-tests mouse events by the same numbers, so a click lands where it was drawn.

use signaltty_client::geometry::{Placement, Rect};
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

/// The current tab's placement, if it has a layout.
pub fn placement(app: &App) -> Option<(&pb::Tab, Placement)> {
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
    let labels: Vec<String> = tabs
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}:{}", i + 1, t.title))
        .collect();
    let available = usize::from(bar.width.saturating_sub(2));
    let natural: usize = labels.iter().map(|l| l.chars().count() + 3).sum();
    let cap = if natural <= available {
        usize::MAX
    } else {
        (available / tabs.len()).saturating_sub(3).max(6)
    };
    let mut out = Vec::new();
    let mut x = bar.x;
    for (tab, label) in tabs.iter().zip(labels) {
        let label = truncate(&label, cap);
        let width = u16::try_from(label.chars().count() + 3).unwrap_or(u16::MAX);
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
