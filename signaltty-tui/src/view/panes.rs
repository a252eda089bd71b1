//! The pane area: the current tab's split tree with a title row per pane, dividers between
//! them, each pane's cells drawn from its terminal model (the same `signaltty-term` model the
//! server keeps, so the screen equals what `ReadPane` returns), the area a smaller pane does
//! not reach marked (`super::unused`), and a pending decision drawn over the bottom of its pane
//! with its numbered options.

use crate::geometry::{Axis, Rect};
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use signaltty_term::Screen;
use signaltty_term::vt::Color as VtColor;

use super::{agent_name, badge, glyph, put, tui};
use crate::app::{App, Focus, Mode};
use crate::decision_box::Line;
use crate::regions::{content, placement};

/// Draws the pane area.
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let Some((_, placement)) = placement(app) else {
        if area.height > 0 {
            let text = match app.current_workspace() {
                Some(_) => "no panes here — s: spawn, t: new tab",
                None => "no workspace yet",
            };
            put(
                buf,
                area.x + 2,
                area.y + area.height / 2,
                text,
                area.width.saturating_sub(4),
                Style::default().fg(Color::Gray),
            );
        }
        return;
    };
    let focused = app.focused_pane().map(|p| p.id.clone());
    let divider_style = Style::default().fg(Color::DarkGray);
    for d in &placement.dividers {
        let symbol = match d.axis {
            Axis::Columns => "│",
            Axis::Rows => "─",
        };
        for y in d.line.y..d.line.y + d.line.height {
            for x in d.line.x..d.line.x + d.line.width {
                put(buf, x, y, symbol, 1, divider_style);
            }
        }
    }
    for p in &placement.panes {
        let Some(pane) = app.catalog.panes.get(&p.pane_id) else {
            continue;
        };
        let is_focused =
            focused.as_deref() == Some(p.pane_id.as_str()) && app.focus == Focus::Panes;
        title(app, pane, p.rect, is_focused, buf);
        let body = content(p.rect);
        if let Some(screen) = app.screens.get(&p.pane_id) {
            cells(screen, body, buf);
            super::unused::mark(screen.view().size(), body, 0..body.height, buf);
        }
        if let Some(sel) = selection(app, &p.pane_id) {
            for row in 0..body.height {
                select_row(sel, body, row, buf);
            }
        }
        if let Some(decision) = &pane.pending_decision {
            decision_box(app, decision, body, buf);
        }
    }
}

/// Redraws rows `rows` (of the model, top first) of pane `pane_id`'s content `body` over a
/// buffer that holds the previous frame, exactly as [`draw`] draws them on a fresh one: the
/// rows' cells blanked and copied from the model, the selection on them, then the pending
/// decision drawn again (the same cells as before where its rows were not redrawn). A damage
/// frame (`crate::frames`) calls this for the rows that changed.
pub fn draw_rows(app: &App, pane_id: &str, body: Rect, rows: &[u16], buf: &mut Buffer) {
    let Some(pane) = app.catalog.panes.get(pane_id) else {
        return;
    };
    let term = app.screens.get(pane_id).map(|s| s.view());
    let width = term.map_or(0, |t| t.size().0.min(body.width));
    let sel = selection(app, pane_id);
    let mut last = None;
    for &i in rows.iter().filter(|&&i| i < body.height) {
        let y = body.y + i;
        for x in body.x..body.x + body.width {
            if let Some(cell) = buf.cell_mut((x, y)) {
                cell.reset();
            }
        }
        if let Some(row) = term.and_then(|t| t.row(i)) {
            copy_row(row, width, body.x, y, buf, &mut last);
        }
        if let Some(term) = term {
            super::unused::mark(term.size(), body, [i], buf);
        }
        if let Some(sel) = sel {
            select_row(sel, body, i, buf);
        }
    }
    if let Some(decision) = &pane.pending_decision {
        decision_box(app, decision, body, buf);
    }
}

/// The selection in `pane_id`, when it covers any cell.
fn selection<'a>(app: &'a App, pane_id: &str) -> Option<&'a crate::app::Selection> {
    app.selection
        .as_ref()
        .filter(|s| s.pane_id == pane_id && s.start != s.end)
}

/// Marks the selected cells of content row `row` reversed.
fn select_row(sel: &crate::app::Selection, body: Rect, row: u16, buf: &mut Buffer) {
    for col in 0..body.width {
        if sel.contains(row, col)
            && let Some(cell) = buf.cell_mut((body.x + col, body.y + row))
        {
            cell.modifier.insert(Modifier::REVERSED);
        }
    }
}

fn title(app: &App, pane: &signaltty_proto::v1::Pane, rect: Rect, focused: bool, buf: &mut Buffer) {
    if rect.height == 0 || rect.width == 0 {
        return;
    }
    let base = if focused {
        let bg = if app.mode == Mode::Insert {
            Color::Green
        } else {
            Color::Blue
        };
        Style::default()
            .bg(bg)
            .fg(Color::Black)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::default().bg(Color::Black).fg(Color::Gray)
    };
    buf.set_style(tui(Rect::new(rect.x, rect.y, rect.width, 1)), base);
    let (g, color) = glyph(pane);
    let mut x = rect.x
        + put(
            buf,
            rect.x,
            rect.y,
            if focused { "▶" } else { " " },
            rect.width,
            base,
        );
    let glyph_style = if focused { base } else { base.fg(color) };
    x += put(buf, x, rect.y, g, 1, glyph_style);
    let mut text = format!(" {}", pane.title);
    if let Some(agent) = agent_name(pane).filter(|a| *a != pane.title) {
        text = format!(" {agent} · {}", pane.title);
    }
    if let Some(b) = badge(pane) {
        text.push_str(&format!("  [{b}]"));
    }
    if pane.status == signaltty_proto::v1::PaneStatus::Exited as i32 {
        text.push_str(&format!(
            "  ({})",
            super::exit_text(pane.exit_code.unwrap_or(0))
        ));
    }
    if let Some(hint) = crate::respawn::hint(pane) {
        text.push_str(&format!("  {hint}"));
    }
    let max = (rect.right() as u16).saturating_sub(x);
    put(buf, x, rect.y, &text, max, base);
}

/// Copies a terminal model's visible cells into `area` (clipped to both sizes).
///
/// This runs for every visible pane in every full frame (12,000 cells on a 200×60 screen; a
/// damage frame copies only changed rows, through [`copy_row`] too), so it
/// allocates nothing: a cell's text is set from its character (a cell with combining marks,
/// rare, builds its string), erased cells are ratatui's empty cell, and consecutive cells of
/// one style convert it once. `tests::fast_copy_equals_the_plain_copy` pins it to the plain
/// per-cell copy.
fn cells(screen: &Screen, area: Rect, buf: &mut Buffer) {
    copy_rows(screen.view(), area, buf);
}

/// [`cells`] of a terminal model (the visible screen of a pane's [`Screen`]).
pub(crate) fn copy_rows(term: &signaltty_term::vt::Term, area: Rect, buf: &mut Buffer) {
    let width = term.size().0.min(area.width);
    let mut last = None;
    for (y, row) in (area.y..area.y + area.height).zip(term.rows()) {
        copy_row(row, width, area.x, y, buf, &mut last);
    }
}

/// Copies the first `width` cells of a model row to (`x`, `y`) onward of a buffer whose cells
/// there are blank. `last` keeps the last style converted, across rows.
fn copy_row(
    row: &signaltty_term::vt::Row,
    width: u16,
    x: u16,
    y: u16,
    buf: &mut Buffer,
    last: &mut Option<(signaltty_term::vt::Style, Style)>,
) {
    let marks = row.has_marks();
    for col in 0..width {
        let Some(target) = buf.cell_mut((x + col, y)) else {
            continue;
        };
        let cell = row.cell(col);
        if cell.is_wide_continuation() {
            target.set_symbol("");
            continue;
        }
        if col + 1 == width && row.cell(col + 1).is_wide_continuation() {
            // A double-width character cut by the pane's edge (a model wider than the pane, until
            // the server's resize comes) would spill over the divider or wrap: a blank instead.
            target.reset();
            continue;
        }
        if marks && row.marks(col).next().is_some() {
            let text: String = std::iter::once(cell.ch()).chain(row.marks(col)).collect();
            target.set_symbol(&text);
        } else if cell.is_default_blank() {
            // What the frame's fresh buffer already holds here: a blank without style.
            target.reset();
            continue;
        } else {
            target.set_char(cell.ch());
        }
        let vt = cell.style();
        let style = match *last {
            Some((from, to)) if from == vt => to,
            _ => {
                let to = style_of(vt);
                *last = Some((vt, to));
                to
            }
        };
        target.set_style(style);
    }
}

pub(crate) fn style_of(style: signaltty_term::vt::Style) -> Style {
    let mut out = Style::default().fg(color(style.fg())).bg(color(style.bg()));
    for (attr, modifier) in crate::frame_cells::MODIFIERS {
        if style.has(attr) {
            out = out.add_modifier(modifier);
        }
    }
    out
}

fn color(c: VtColor) -> Color {
    match c {
        VtColor::Default => Color::Reset,
        VtColor::Idx(i) => Color::Indexed(i),
        VtColor::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

/// The decision over the bottom of its pane, laid out by [`crate::decision_box`] (where clicks
/// on its options are hit-tested too); options are drawn as buttons.
fn decision_box(app: &App, decision: &signaltty_proto::v1::Decision, area: Rect, buf: &mut Buffer) {
    let Some(laid) = crate::decision_box::layout_in(app, decision, area) else {
        return;
    };
    let selected = crate::decision_box::focused(app, decision);
    // A focused box is drawn brighter, its highlighted option reversed.
    let style = if selected.is_some() {
        Style::default().bg(Color::LightYellow).fg(Color::Black)
    } else {
        Style::default().bg(Color::Yellow).fg(Color::Black)
    };
    buf.set_style(tui(laid.area), style);
    let text_width = laid.area.width.saturating_sub(2);
    for (i, line) in laid.lines.iter().enumerate() {
        let y = laid.area.y + u16::try_from(i).unwrap_or(0);
        let x = laid.area.x + 1;
        match line {
            Line::Prompt(text) => {
                put(
                    buf,
                    x,
                    y,
                    text,
                    text_width,
                    style.add_modifier(Modifier::BOLD),
                );
            }
            Line::Tool(text) | Line::Detail(text) | Line::Note(text) => {
                put(buf, x, y, text, text_width, style);
            }
            Line::Hint(text) => {
                put(
                    buf,
                    x,
                    y,
                    text,
                    text_width,
                    style.add_modifier(Modifier::ITALIC),
                );
            }
            Line::Options(items) => {
                for (n, text, rect) in items {
                    let option = if selected == Some(*n) {
                        style.add_modifier(Modifier::REVERSED | Modifier::BOLD)
                    } else {
                        style.add_modifier(Modifier::UNDERLINED)
                    };
                    put(buf, rect.x, rect.y, text, rect.width, option);
                }
            }
        }
    }
    mend_cut_wide(laid.area, buf);
}

/// Text drawn over pane text (a decision's lines over the model's cells) can cut a
/// double-width character in two. Either half alone cannot be shown (a terminal prints a left
/// half over its neighbour; an empty right half shifts the rest of the row), so a cut
/// character becomes a blank: on `area`'s rows, from the column before it to the one after.
fn mend_cut_wide(area: Rect, buf: &mut Buffer) {
    use ratatui::buffer::CellWidth;
    let from = area.x.saturating_sub(1);
    let to = area.x.saturating_add(area.width);
    for y in area.y..area.y.saturating_add(area.height) {
        for x in from..=to {
            let next_empty = buf.cell((x + 1, y)).is_some_and(|c| c.symbol().is_empty());
            let prev_wide = x > 0 && buf.cell((x - 1, y)).is_some_and(|c| c.cell_width() > 1);
            if let Some(cell) = buf.cell_mut((x, y)) {
                let cut = (cell.cell_width() > 1 && !next_empty)
                    || (cell.symbol().is_empty() && !prev_wide);
                if cut {
                    cell.set_symbol(" ");
                }
            }
        }
    }
}

/// Where the terminal cursor goes: the focused pane's cursor in Insert mode, when it is shown.
pub fn cursor(app: &App) -> Option<(u16, u16)> {
    if app.mode != Mode::Insert || app.overlay.is_some() {
        return None;
    }
    let pane = app.focused_pane()?;
    let (_, placement) = placement(app)?;
    let body = content(placement.rect_of(&pane.id)?);
    let screen = app.screens.get(&pane.id)?;
    let term = screen.view();
    if !term.modes().cursor_visible {
        return None;
    }
    let (row, col) = term.cursor();
    let col = col.min(term.size().0.saturating_sub(1));
    (row < body.height && col < body.width).then(|| (body.x + col, body.y + row))
}

#[cfg(test)]
mod tests {
    use crate::geometry::Rect;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect as TuiRect;
    use signaltty_term::Screen;

    /// The plain copy `cells` replaced: one string per cell, every cell styled.
    fn plain_copy(screen: &Screen, area: Rect, buf: &mut Buffer) {
        let term = screen.view();
        let (cols, rows) = term.size();
        for row in 0..rows.min(area.height) {
            for col in 0..cols.min(area.width) {
                let Some(cell) = term.cell(row, col) else {
                    continue;
                };
                let Some(target) = buf.cell_mut((area.x + col, area.y + row)) else {
                    continue;
                };
                if cell.is_wide_continuation() {
                    target.set_symbol("");
                    continue;
                }
                let text = term.cell_text(row, col);
                target.set_symbol(if text.is_empty() { " " } else { &text });
                target.set_style(super::style_of(cell.style()));
            }
        }
    }

    #[test]
    fn fast_copy_equals_the_plain_copy() {
        let mut screen = Screen::new(40, 8);
        screen.feed(
            "plain \x1b[1;31mbold red\x1b[0m \x1b[48;5;22mbg\x1b[0m wide:世界 e\u{301}x\r\n\
             \x1b[4:3m\x1b[58;2;1;2;3mcurly\x1b[0m \x1b[7minverse\x1b[0m\r\n\
             \x1b[38;2;10;20;30mrgb text that is long enough to wrap past forty columns\x1b[0m\r\n\
             \x1b[5;10H\x1b[44m   \x1b[0m\x1b[K after erase"
                .as_bytes(),
        );
        // Areas larger, smaller and offset from the model, over buffers that start fresh
        // (as a frame's does).
        for area in [
            Rect::new(0, 0, 40, 8),
            Rect::new(3, 2, 50, 12),
            Rect::new(1, 1, 20, 4),
        ] {
            let whole = TuiRect::new(0, 0, 60, 16);
            let (mut fast, mut plain) = (Buffer::empty(whole), Buffer::empty(whole));
            super::cells(&screen, area, &mut fast);
            plain_copy(&screen, area, &mut plain);
            assert_eq!(fast, plain, "area {area:?}");
        }
    }
}
