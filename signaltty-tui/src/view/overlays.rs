//! Modal overlays (help, confirmation, rename, notifications; the spawn form, the diff view
//! and copy mode have their own files) and the "reconnecting…" notice drawn over the frozen
//! last frame.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

use super::boxes::{boxed, text_field};
use super::put;
use crate::app::{App, Confirm, Link, Overlay};
use crate::keymap::Table;

/// Draws the open overlay and the connection notice.
pub fn draw(app: &App, buf: &mut Buffer) {
    match &app.overlay {
        None => {}
        Some(Overlay::Help { offset }) => help(app, *offset, buf),
        // Drawn on the box itself (`panes::decision_box`) and in the status line.
        Some(Overlay::Decision { .. }) => {}
        Some(Overlay::Picker(picker)) => super::picker::draw(app, picker, buf),
        Some(Overlay::PaneNumbers { .. }) => pane_numbers(app, buf),
        Some(Overlay::Prompt(field)) => {
            let status = crate::regions::regions(app).status;
            for x in status.x..status.x + status.width {
                if let Some(cell) = buf.cell_mut((x, status.y)) {
                    cell.reset();
                }
            }
            put(buf, status.x, status.y, ":", 1, Style::default());
            text_field(
                buf,
                status.x + 1,
                status.y,
                status.width.saturating_sub(1),
                field,
                true,
            );
        }
        Some(Overlay::Spawn(form)) => super::spawn::draw(app, form, buf),
        Some(Overlay::Diff(view)) => super::diff::draw(app, view, buf),
        Some(Overlay::Race(view)) => super::race::draw(app, view, buf),
        Some(Overlay::Confirm(what)) => {
            let text = match what {
                Confirm::ClosePane(id) => format!(
                    "Close pane {}? Its process is ended.",
                    app.catalog
                        .panes
                        .get(id)
                        .map(|p| p.title.as_str())
                        .unwrap_or(id)
                ),
                Confirm::CloseTab(id) => format!(
                    "Close tab {} and every pane in it?",
                    app.catalog
                        .tabs
                        .get(id)
                        .map(|t| t.title.as_str())
                        .unwrap_or(id)
                ),
            };
            let inner = boxed(buf, "confirm", 56, 4);
            put(buf, inner.x, inner.y, &text, inner.width, Style::default());
            put(
                buf,
                inner.x,
                inner.y + 1,
                "y: yes   any other key: no",
                inner.width,
                Style::default().add_modifier(Modifier::BOLD),
            );
        }
        Some(Overlay::Rename { target, field, .. }) => {
            let inner = boxed(buf, &format!("rename {target:?}").to_lowercase(), 50, 3);
            text_field(buf, inner.x, inner.y, inner.width, field, true);
        }
        Some(Overlay::Notifications) => notifications(app, buf),
        Some(Overlay::Copy(mode)) => super::copy_mode::draw(app, mode, buf),
    }
    if let Link::Reconnecting { reason } = &app.link {
        let inner = boxed(buf, "reconnecting…", 60, 4);
        let style = Style::default()
            .fg(Color::Yellow)
            .add_modifier(Modifier::BOLD);
        put(
            buf,
            inner.x,
            inner.y,
            "reconnecting… the server went away",
            inner.width,
            style,
        );
        put(
            buf,
            inner.x,
            inner.y + 1,
            reason,
            inner.width,
            Style::default().fg(Color::Gray),
        );
    }
    if app.link == Link::Connecting {
        let inner = boxed(buf, "signaltty", 40, 3);
        put(
            buf,
            inner.x,
            inner.y,
            "connecting…",
            inner.width,
            Style::default(),
        );
    }
}

/// The bindings in two columns, scrolled by `offset` rows when they do not fit (j/k, PgDn).
fn help(app: &App, offset: usize, buf: &mut Buffer) {
    let mut lines: Vec<HelpLine> = Vec::new();
    let tables = match app.keymap.preset {
        crate::keymap::Preset::Tmux => [
            ("Typing (prefix first)", Table::Insert),
            ("Sidebar", Table::Normal),
        ],
        crate::keymap::Preset::Modal => [("Normal", Table::Normal), ("Insert", Table::Insert)],
    };
    for (name, table) in tables {
        let mut rows = app.keymap.listing(table);
        if app.keymap.preset == crate::keymap::Preset::Tmux && table == Table::Normal {
            // The sidebar has the prefix bindings too: list only its own keys.
            rows.retain(|(keys, _)| !keys.starts_with(&app.keymap.leader));
        }
        lines.push(HelpLine::Heading(name));
        for pair in rows.chunks(2) {
            lines.push(HelpLine::Pair(pair.to_vec()));
        }
        lines.push(HelpLine::Blank);
    }
    // Keys inside overlays are plain; these have many, each lists its own with `?`.
    lines.push(HelpLine::Heading(
        "Race view (ShowRaces) — ? there lists all its keys",
    ));
    lines.push(HelpLine::Text(
        "d entry's diff · m matrix · K keep (mode, branches, y) · y/n answer · Enter its pane",
    ));
    lines.push(HelpLine::Text(
        "in the diff: n/p entry · J/K line · c comment · l list · s send · o check · C run it",
    ));
    let area = buf.area;
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height.saturating_sub(1));
    let visible = usize::from(height.saturating_sub(2));
    let offset = offset.min(lines.len().saturating_sub(visible));
    let title = if lines.len() > visible {
        format!(
            "keys {}-{} of {} — j/k PgDn scroll, q closes",
            offset + 1,
            (offset + visible).min(lines.len()),
            lines.len()
        )
    } else {
        "keys — any key closes".to_owned()
    };
    let inner = boxed(buf, &title, 96, height);
    let col_w = inner.width / 2;
    let key_w: u16 = if col_w < 40 { 10 } else { 16 };
    for (i, line) in lines.iter().skip(offset).take(visible).enumerate() {
        let y = inner.y + u16::try_from(i).unwrap_or(0);
        match line {
            HelpLine::Heading(name) => {
                put(
                    buf,
                    inner.x,
                    y,
                    name,
                    inner.width,
                    Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                );
            }
            HelpLine::Blank => {}
            HelpLine::Text(text) => {
                put(buf, inner.x, y, text, inner.width, Style::default());
            }
            HelpLine::Pair(pair) => {
                for (j, (keys, action)) in pair.iter().enumerate() {
                    let x = inner.x + col_w * u16::try_from(j).unwrap_or(0);
                    let keys = keys.replace("ctrl-", "C-").replace("alt-", "M-");
                    let w = put(
                        buf,
                        x,
                        y,
                        &format!("{keys:>width$} ", width = usize::from(key_w)),
                        col_w,
                        Style::default().fg(Color::Cyan),
                    );
                    put(
                        buf,
                        x + w,
                        y,
                        &action.to_string(),
                        col_w.saturating_sub(w + 1),
                        Style::default(),
                    );
                }
            }
        }
    }
}

/// One row of the help overlay.
enum HelpLine {
    Heading(&'static str),
    Pair(Vec<(String, crate::action::Action)>),
    Text(&'static str),
    Blank,
}

/// Each visible pane's number (from 0, in layout order, as tmux's `display-panes`) in the
/// middle of the pane, large enough to spot.
fn pane_numbers(app: &App, buf: &mut Buffer) {
    let Some((tab, placement)) = crate::regions::placement(app) else {
        return;
    };
    let focused = app.focused_pane().map(|p| p.id.as_str());
    for p in &placement.panes {
        let Some(n) = tab.pane_ids.iter().position(|id| *id == p.pane_id) else {
            continue;
        };
        let text = format!("  {n}  ");
        let style = if focused == Some(p.pane_id.as_str()) {
            Style::default().bg(Color::Red).fg(Color::White)
        } else {
            Style::default().bg(Color::Blue).fg(Color::White)
        }
        .add_modifier(Modifier::BOLD);
        let w = u16::try_from(text.len()).unwrap_or(5);
        let x = p.rect.x + p.rect.width.saturating_sub(w) / 2;
        let y = p.rect.y + p.rect.height / 2;
        for dy in 0..3u16 {
            let row = y.saturating_sub(1) + dy;
            let shown = if dy == 1 { text.as_str() } else { "     " };
            put(buf, x, row, shown, w.min(p.rect.width), style);
        }
    }
}

fn notifications(app: &App, buf: &mut Buffer) {
    let height = u16::try_from(app.catalog.unread.len().min(16) + 2)
        .unwrap_or(18)
        .max(3);
    let inner = boxed(
        buf,
        "unread notifications — j/k, Enter: go to its pane, any other key closes",
        80,
        height + 2,
    );
    if app.catalog.unread.is_empty() {
        put(
            buf,
            inner.x,
            inner.y,
            "nothing unread",
            inner.width,
            Style::default(),
        );
    }
    for (i, n) in app.catalog.unread.iter().take(16).enumerate() {
        let y = inner.y + u16::try_from(i).unwrap_or(0);
        let pane = app
            .catalog
            .panes
            .get(&n.pane_id)
            .map(|p| p.title.as_str())
            .unwrap_or("server");
        let text = if n.title.is_empty() {
            n.body.clone()
        } else {
            format!("{}: {}", n.title, n.body)
        };
        let selected = i
            == app
                .outer
                .selected
                .min(app.catalog.unread.len().saturating_sub(1));
        let mark = if selected { "›" } else { " " };
        let row = if selected {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        };
        let w = put(
            buf,
            inner.x,
            y,
            &format!("{mark}{pane:<12} "),
            14,
            Style::default().fg(Color::Cyan),
        );
        put(
            buf,
            inner.x + w,
            y,
            text.lines().next().unwrap_or(""),
            inner.width.saturating_sub(w),
            row,
        );
    }
}
