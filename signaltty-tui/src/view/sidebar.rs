//! The sidebar: workspaces (name, branch, dirty mark) → tabs → panes (glyph, title or agent,
//! badge, timer, last message), then a footer with the waiting and unread counts.

use crate::geometry::Rect;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

use super::{badge, glyph, put, timer};
use crate::app::{App, Focus, Row};

/// Draws the sidebar into `area` (its last column is the border).
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let width = area.width.saturating_sub(1);
    for y in area.y..area.y + area.height {
        put(
            buf,
            area.x + width,
            y,
            "│",
            1,
            Style::default().fg(Color::DarkGray),
        );
    }
    put(
        buf,
        area.x,
        area.y,
        " signaltty",
        width,
        Style::default().add_modifier(Modifier::BOLD),
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let rows = app.sidebar_rows();
    // The same window `regions::sidebar_row_at` hit-tests clicks by.
    let (first, visible) = crate::regions::sidebar_window(app);
    let current_tab = app.current_tab().map(|t| t.id.clone());
    let focused = app.focused_pane().map(|p| p.id.clone());
    for (i, row) in rows.iter().enumerate().skip(first).take(visible) {
        let y = area.y + 1 + u16::try_from(i - first).unwrap_or(0);
        let highlighted = i == app.highlight && app.focus == Focus::Sidebar;
        let mut style = Style::default();
        if highlighted {
            style = style.add_modifier(Modifier::REVERSED);
            buf.set_style(ratatui::layout::Rect::new(area.x, y, width, 1), style);
        }
        match row {
            Row::Machine(name) => machine_header(app, name, area.x, y, width, style, buf),
            Row::Remote(name, inner) => {
                if let Some(cat) = crate::machines::catalog(&app.remotes, name) {
                    let at = At {
                        area,
                        y,
                        width,
                        now,
                        style,
                        local: false,
                    };
                    draw_row(app, cat, inner, &at, &None, &None, buf);
                }
            }
            row => {
                let at = At {
                    area,
                    y,
                    width,
                    now,
                    style,
                    local: true,
                };
                draw_row(app, &app.catalog, row, &at, &current_tab, &focused, buf);
            }
        }
    }
    // Last message of the highlighted (or focused) pane, under the tree when room allows.
    let footer_y = area.y + area.height.saturating_sub(1);
    let waiting = crate::outer_notify::waiting(app);
    let unread = crate::outer_notify::unread(app);
    let text = format!("⚠ {waiting} waiting  ⚑ {unread} unread");
    let style = if waiting > 0 {
        Style::default()
            .fg(Color::Yellow)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::default().fg(Color::Gray)
    };
    put(
        buf,
        area.x + 1,
        footer_y,
        &text,
        width.saturating_sub(1),
        style,
    );
    if let Some(Row::Pane(id)) = rows.get(app.highlight)
        && app.focus == Focus::Sidebar
        && let Some(pane) = app.catalog.panes.get(id)
        && !pane.last_message.is_empty()
        && footer_y > area.y + 1
    {
        let message: String = pane.last_message.lines().next().unwrap_or("").to_owned();
        put(
            buf,
            area.x + 1,
            footer_y - 1,
            &format!("“{message}”"),
            width.saturating_sub(1),
            Style::default()
                .fg(Color::Gray)
                .add_modifier(Modifier::ITALIC),
        );
    }
}

/// Where a row is drawn and how.
#[derive(Clone, Copy)]
struct At {
    area: Rect,
    y: u16,
    width: u16,
    now: i64,
    style: Style,
    /// This machine's row (folding, activity and the current tab and pane apply).
    local: bool,
}

/// A machine's header: `local`, or a remote's name and its link's state (`gpu ● connected`).
fn machine_header(
    app: &App,
    name: &str,
    x: u16,
    y: u16,
    width: u16,
    style: Style,
    buf: &mut Buffer,
) {
    let header = match app.remotes.iter().find(|r| r.name() == name) {
        Some(remote) => format!("{name} {}", remote.state_text(std::time::SystemTime::now())),
        None => name.to_owned(),
    };
    let color = match app.remotes.iter().find(|r| r.name() == name) {
        Some(r) if r.connected() => Color::Green,
        Some(r) if r.machine.state == signaltty_proto::v1::MachineState::Failed as i32 => {
            Color::Red
        }
        Some(_) => Color::Yellow,
        None => Color::Green,
    };
    put(
        buf,
        x,
        y,
        &header,
        width,
        style.fg(color).add_modifier(Modifier::BOLD),
    );
}

/// One workspace, tab, pane or option row of `cat` (this machine's catalog or a remote's).
fn draw_row(
    app: &App,
    cat: &crate::catalog::Catalog,
    row: &Row,
    at: &At,
    current_tab: &Option<String>,
    focused: &Option<String>,
    buf: &mut Buffer,
) {
    let At {
        area,
        y,
        width,
        now,
        style,
        local,
    } = *at;
    match row {
        Row::Workspace(id) => {
            let Some(ws) = cat.workspace(id) else {
                return;
            };
            let fold = if local && app.collapsed.contains(id) {
                "▸"
            } else {
                "▾"
            };
            let mut x = area.x
                + put(
                    buf,
                    area.x,
                    y,
                    &format!("{fold} {} ", ws.name),
                    width,
                    style.add_modifier(Modifier::BOLD),
                );
            if let Some(git) = ws.git.as_ref().filter(|g| g.is_repo) {
                let branch = if git.branch.is_empty() {
                    "(detached)"
                } else {
                    &git.branch
                };
                let dirty = if git.dirty { "*" } else { "" };
                x += put(
                    buf,
                    x,
                    y,
                    &format!("{branch}{dirty}"),
                    (area.x + width).saturating_sub(x),
                    style.fg(Color::Magenta),
                );
            }
            // Panes of the workspace that need the user: visible even when it is folded.
            let needing = app
                .catalog
                .panes
                .values()
                .filter(|p| {
                    &p.workspace_id == id
                        && p.attention > signaltty_proto::v1::Attention::None as i32
                })
                .count();
            // tmux's `#`: a pane of a tab not shown printed since it was last looked at.
            let activity = local && crate::outer_notify::workspace_activity(app, ws);
            if needing > 0 || activity {
                let mut count = String::from(" ");
                if activity {
                    count.push('#');
                }
                if needing > 0 {
                    count.push_str(&format!("⚠{needing}"));
                }
                let w = u16::try_from(count.chars().count()).unwrap_or(0);
                let at = (area.x + width).saturating_sub(w).max(x);
                put(
                    buf,
                    at,
                    y,
                    &count,
                    (area.x + width).saturating_sub(at),
                    style.fg(Color::Yellow).add_modifier(Modifier::BOLD),
                );
            }
        }
        Row::Tab(id) => {
            let Some(tab) = cat.tabs.get(id) else {
                return;
            };
            let mark = if current_tab.as_ref() == Some(id) {
                "▸"
            } else {
                " "
            };
            put(
                buf,
                area.x,
                y,
                &format!(
                    "  {mark}{}",
                    if local {
                        crate::names::tab_name(app, tab)
                    } else {
                        tab.title.clone()
                    }
                ),
                width,
                style.fg(Color::Cyan),
            );
        }
        Row::Option(id, n) => {
            let Some(option) = cat
                .panes
                .get(id)
                .and_then(|p| p.pending_decision.as_ref())
                .and_then(|d| d.options.get(usize::from(*n).wrapping_sub(1)))
            else {
                return;
            };
            put(
                buf,
                area.x,
                y,
                &format!("       [{n}] {}", option.label),
                width,
                style.fg(Color::Yellow),
            );
        }
        Row::Pane(id) => {
            let Some(pane) = cat.panes.get(id) else {
                return;
            };
            let (g, color) = glyph(pane);
            let bold = if pane.attention > signaltty_proto::v1::Attention::None as i32 {
                Modifier::BOLD
            } else {
                Modifier::empty()
            };
            let mark = if focused.as_ref() == Some(id) {
                "›"
            } else {
                " "
            };
            let mut x = area.x + put(buf, area.x, y, &format!("   {mark}"), width, style);
            x += put(buf, x, y, g, 1, style.fg(color).add_modifier(bold));
            let name = super::label(pane);
            let tail = match badge(pane) {
                Some(b) => b.to_owned(),
                None => timer(pane, now),
            };
            let left = (area.x + width).saturating_sub(x + 1);
            let tail_w = u16::try_from(tail.chars().count())
                .unwrap_or(0)
                .min(left / 2);
            let name_w = left.saturating_sub(tail_w + u16::from(tail_w > 0));
            put(buf, x + 1, y, &name, name_w, style.add_modifier(bold));
            if tail_w > 0 {
                let tail_style = if badge(pane).is_some() {
                    style.fg(Color::Yellow)
                } else {
                    style.fg(Color::Gray)
                };
                put(buf, area.x + width - tail_w, y, &tail, tail_w, tail_style);
            }
        }
        Row::Machine(_) | Row::Remote(..) => {}
    }
}
