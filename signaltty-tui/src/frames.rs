//! Frames: turn the state into what the outer terminal shows, in one of two kinds of
//! frame, and keep `shown`, the cells the terminal holds.
//!
//! - **Full**: the whole view rendered into a fresh buffer ([`crate::view::render`]) and diffed
//!   against `shown`, as ratatui's `Terminal::draw` does. Drawn whenever anything but pane
//!   output changed (`App::dirty`), and whenever the layout under a damaged pane moved.
//! - **Panes** (damage): only the content rows of the given panes that changed since they were
//!   drawn. Each visible pane's model rows are kept as they were last drawn; a row whose model
//!   row differs is redrawn into `shown` in place ([`crate::view::draw_rows`]: blanked, copied,
//!   selection and decision box on top) and only those screen rows are diffed. The sidebar,
//!   tab bar, titles, dividers and the other panes are not touched, so an echo's frame costs
//!   one row of one pane instead of a 200×60 render and diff.
//!
//! Why the rows are compared here rather than tracked by the emulator: the server runs the
//! same `signaltty-term` model for every pane, and a per-row dirty mark would be one more
//! store in its print fast path and an invariant at every grid edit (scrolls, erases, screen
//! switches, reflow); comparing a row (12-byte cells up to the last written column) costs
//! well under a microsecond, and only the panes that took output are compared.
//!
//! `tests` check, over random edits (text, colours, wide characters, marks, scrolling, screen
//! switches), several panes, selections, decisions, overlays and resizes, that what a damage
//! frame leaves in `shown` — and on a terminal fed its bytes — equals a full redraw.

use std::collections::HashMap;
use std::io::{self, Write};

use crate::geometry::Rect;
use ratatui::backend::{Backend, ClearType, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect as TuiRect;
use signaltty_term::vt::Row;

use crate::app::{App, Link};
use crate::regions::{content, placement};

/// Synchronized output: the outer terminal shows a frame whole or not at all.
const BEGIN: &[u8] = b"\x1b[?2026h";
const END: &[u8] = b"\x1b[?2026l";

/// The symbol of a cell whose content is unknown ([`Frames::forget`]).
const FORGOTTEN: &str = "\u{f8ff}";

/// What a frame drew.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// The whole screen: nothing is left dirty or damaged.
    Full,
    /// The changed rows of the panes asked for.
    Panes,
}

/// A visible pane as last drawn.
#[derive(Debug, Default)]
struct PaneDrawn {
    /// Its content area.
    body: Rect,
    /// Its model's size.
    size: (u16, u16),
    /// Its model's rows that fit the body, as drawn.
    rows: Vec<Row>,
}

/// Draws frames onto a terminal written through `W`.
pub struct Frames<W: Write> {
    out: CrosstermBackend<W>,
    /// What the terminal shows.
    shown: Buffer,
    /// A full frame is rendered here (then swapped with `shown`).
    next: Buffer,
    /// One screen row before and after a damage frame's edit, for the diff.
    before: Buffer,
    after: Buffer,
    /// The screen rows a damage frame edited, and their cells before.
    touched: Vec<(u16, Vec<ratatui::buffer::Cell>)>,
    panes: HashMap<String, PaneDrawn>,
    /// Whether `shown` is what the terminal holds (false until the first full frame).
    valid: bool,
    /// A frame's cells as bytes ([`crate::frame_cells::draw`]), kept for its allocation.
    cell_bytes: Vec<u8>,
}

impl<W: Write> Frames<W> {
    /// A drawer over a blank screen (the alternate screen just entered).
    pub fn new(out: W) -> Self {
        let empty = Buffer::empty(TuiRect::default());
        Frames {
            out: CrosstermBackend::new(out),
            shown: empty.clone(),
            next: empty.clone(),
            before: empty.clone(),
            after: empty,
            touched: Vec::new(),
            panes: HashMap::new(),
            valid: false,
            cell_bytes: Vec::new(),
        }
    }

    /// What the terminal shows (as far as this drawer drew it).
    pub fn shown(&self) -> &Buffer {
        &self.shown
    }

    /// Forgets what the terminal shows in `rect` (another writer, the server painting a pane,
    /// may have written there): the next full frame writes every cell of it again.
    pub fn forget(&mut self, rect: Rect) {
        let area = self.shown.area;
        for y in rect.y..rect.y.saturating_add(rect.height).min(area.height) {
            for x in rect.x..rect.x.saturating_add(rect.width).min(area.width) {
                if let Some(cell) = self.shown.cell_mut((x, y)) {
                    // No frame ever draws this (a private-use character), so the diff
                    // rewrites the cell whatever the frame puts there.
                    cell.set_symbol(FORGOTTEN);
                }
            }
        }
    }

    /// Forgets the whole screen: the next full frame clears it and draws everything.
    pub fn forget_all(&mut self) {
        self.valid = false;
    }

    /// Draws the whole screen.
    pub fn full(&mut self, app: &App) -> io::Result<Drawn> {
        let area = area(app);
        self.out.write_all(BEGIN)?;
        if !self.valid || self.shown.area != area {
            // A new size: start from a cleared screen (as ratatui does on a resize).
            self.out.clear_region(ClearType::All)?;
            self.shown = Buffer::empty(area);
        }
        self.next.resize(area);
        self.next.reset();
        let cursor = crate::view::render(app, &mut self.next);
        let cells = self.shown.diff_iter(&self.next);
        crate::frame_cells::draw(&mut self.out, cells, &mut self.cell_bytes)?;
        std::mem::swap(&mut self.shown, &mut self.next);
        self.cursor(cursor)?;
        self.remember(app);
        self.valid = true;
        self.out.write_all(END)?;
        Ok(Drawn::Full)
    }

    /// Draws the rows of `panes` that changed since they were drawn; a full frame instead when
    /// the screen under them is not what they were drawn on (first frame, new size, an overlay
    /// or notice over the panes, a pane moved or its model resized).
    pub fn panes<'a>(
        &mut self,
        app: &App,
        panes: impl IntoIterator<Item = &'a str>,
    ) -> io::Result<Drawn> {
        if !self.valid
            || self.shown.area != area(app)
            || app.overlay.is_some()
            || matches!(app.link, Link::Reconnecting { .. })
        {
            return self.full(app);
        }
        let Some((_, placement)) = placement(app) else {
            return self.full(app);
        };
        let mut bodies = Vec::new();
        for id in panes {
            let Some(placed) = placement.panes.iter().find(|p| p.pane_id == id) else {
                continue; // not on screen: nothing to draw
            };
            let Some(screen) = app.screens.get(id) else {
                continue;
            };
            let body = content(placed.rect);
            match self.panes.get(id) {
                Some(d) if d.body == body && d.size == screen.view().size() => {}
                _ => return self.full(app),
            }
            bodies.push((id, body));
        }
        // Which rows changed, per pane (the kept rows are brought up to date as they are found).
        let mut changed: Vec<(&str, Rect, Vec<u16>)> = Vec::new();
        let mut cells = 0usize;
        for (id, body) in bodies {
            let (Some(drawn), Some(screen)) = (self.panes.get_mut(id), app.screens.get(id)) else {
                continue;
            };
            let mut rows = Vec::new();
            for (i, (row, was)) in screen.view().rows().zip(drawn.rows.iter_mut()).enumerate() {
                if *row != *was {
                    was.clone_from(row);
                    rows.push(i as u16);
                }
            }
            if !rows.is_empty() {
                cells += rows.len() * usize::from(self.shown.area.width);
                changed.push((id, body, rows));
            }
        }
        // When most of the screen changed (every pane printing), a damage frame would do a
        // full frame's work plus its row copies: draw a full one.
        if cells > self.shown.content.len() / 2 {
            return self.full(app);
        }
        self.out.write_all(BEGIN)?;
        self.touched.clear();
        for (id, body, rows) in &changed {
            let (id, body, rows) = (*id, *body, rows.as_slice());
            let width = self.shown.area.width as usize;
            for &i in rows {
                let y = body.y + i;
                if !self.touched.iter().any(|(t, _)| *t == y) {
                    let start = usize::from(y) * width;
                    let cells = self.shown.content[start..start + width].to_vec();
                    self.touched.push((y, cells));
                }
            }
            crate::view::draw_rows(app, id, body, rows, &mut self.shown);
        }
        let width = self.shown.area.width;
        for (y, cells) in &self.touched {
            let row = TuiRect::new(0, *y, width, 1);
            let start = usize::from(*y) * usize::from(width);
            self.before.area = row;
            self.before.content.clone_from(cells);
            // The row's new cells are lent to `after` for the diff (a swap, not a copy).
            let new = &mut self.shown.content[start..start + usize::from(width)];
            self.after.area = row;
            self.after.content.resize(new.len(), Default::default());
            new.swap_with_slice(&mut self.after.content);
            let cells = self.before.diff_iter(&self.after);
            let drawn = crate::frame_cells::draw(&mut self.out, cells, &mut self.cell_bytes);
            let new = &mut self.shown.content[start..start + usize::from(width)];
            new.swap_with_slice(&mut self.after.content);
            drawn?;
        }
        self.cursor(crate::view::cursor(app))?;
        self.out.write_all(END)?;
        Ok(Drawn::Panes)
    }

    /// Puts the terminal's cursor where the frame wants it (or hides it).
    fn cursor(&mut self, at: Option<(u16, u16)>) -> io::Result<()> {
        match at {
            None => self.out.hide_cursor(),
            Some((x, y)) => {
                self.out.show_cursor()?;
                self.out.set_cursor_position((x, y))
            }
        }
    }

    /// Keeps the model rows of every visible pane as just drawn.
    fn remember(&mut self, app: &App) {
        let mut kept = HashMap::new();
        if let Some((_, placement)) = placement(app) {
            for placed in &placement.panes {
                let Some(screen) = app.screens.get(&placed.pane_id) else {
                    continue;
                };
                let body = content(placed.rect);
                let term = screen.view();
                let mut drawn = self.panes.remove(&placed.pane_id).unwrap_or_default();
                let fit = usize::from(body.height).min(term.rows().len());
                drawn.rows.truncate(fit);
                for (i, row) in term.rows().take(fit).enumerate() {
                    match drawn.rows.get_mut(i) {
                        Some(was) if was == row => {}
                        Some(was) => was.clone_from(row),
                        None => drawn.rows.push(row.clone()),
                    }
                }
                drawn.body = body;
                drawn.size = term.size();
                kept.insert(placed.pane_id.clone(), drawn);
            }
        }
        self.panes = kept;
    }
}

/// The whole outer terminal.
fn area(app: &App) -> TuiRect {
    TuiRect::new(0, 0, app.size.0, app.size.1)
}

#[cfg(test)]
#[path = "frames_tests.rs"]
mod tests;
