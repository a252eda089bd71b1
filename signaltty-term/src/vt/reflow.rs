//! Reflow: laying the main screen out again when its size changes, as tmux, kitty, wezterm,
//! alacritty and VTE do.
//!
//! A row whose text reached the last column and went on to the next row is *soft-wrapped*
//! (`Row::wrapped`); every other row end is hard. On a resize the main screen's rows are joined
//! into logical lines at the soft wraps, each line is wrapped again at the new width, and the
//! result is placed so that the cursor stays on the character it was on and, when the screen
//! grows, on the same row counted from the bottom (rows come back down from the history):
//!
//! - rows above the new screen go to the history through the sink (still marked soft-wrapped,
//!   so the history keeps whole logical lines);
//! - when room is left above the cursor, lines are taken back from the history
//!   ([`Sink::take_back`]) and wrapped at the new width; what of the last one does not fit goes
//!   back;
//! - rows below the cursor that show nothing are dropped first, as before reflow existed.
//!
//! The history stores logical lines, not rows, so a resize never rewrites it: the cost of a
//! resize is the screen plus the lines taken back (each at most [`MAX_TAKE_BACK_BYTES`] of
//! text), whatever the history holds. Captures wrap history lines at the width of the moment.
//!
//! The alternate screen is not reflowed (full-screen programs repaint it on SIGWINCH); the main
//! screen underneath is, with the cursor saved on entry as its cursor.

use std::collections::VecDeque;

use super::cell::{Cell, Style};
use super::edit::char_width;
use super::row::Row;
use super::{Emulator, LinePart, Sink, sgr};

/// Longest logical line a reflow joins (cells); longer runs of soft-wrapped rows are cut into
/// lines of this size. Keeps column numbers within `u16` and a reflow's work bounded.
pub(crate) const MAX_LINE_CELLS: usize = 16_384;

/// Longest history line (bytes of stored text) a resize takes back onto the screen; a longer
/// one stays in the history, so one huge line cannot make a resize slow.
pub(crate) const MAX_TAKE_BACK_BYTES: usize = 16 * 1024;

/// A position to keep on its character through a reflow: the cursor, saved cursors.
#[derive(Clone, Copy, Debug)]
struct Point {
    /// Row of the main screen, then (after [`wrap`]) row in the new layout.
    row: usize,
    col: u16,
    /// A wrap is pending (the column is the old width).
    pending: bool,
    /// Line and cell offset in it, while between layouts.
    line: usize,
    offset: usize,
}

/// A logical line being laid out: its cells, which points are on it.
struct Line {
    cells: Row,
    /// Whether the line goes on past the screen's last content (the first line continuing
    /// the history's newest line keeps that line's head in `cells`).
    continues: bool,
}

impl Emulator {
    /// Lays the main screen out for `cols`×`rows`. The caller sets `self.cols`/`self.rows`
    /// after, and handles the alternate screen.
    pub(super) fn relayout_main(&mut self, cols: u16, rows: u16, sink: &mut impl Sink) {
        let old_cols = usize::from(self.cols);
        let old_rows = usize::from(self.rows);
        let (new_cols, new_rows) = (usize::from(cols), usize::from(rows));
        // The main screen's points: its cursor (the one saved on entering the alternate screen
        // when that shows) first — it is the anchor — then its DECSC slot.
        let mut points = if self.on_alt {
            vec![point(self.saved[0].row, self.saved[0].col, old_cols)]
        } else {
            vec![
                point(self.row, self.col, old_cols),
                point(self.saved[0].row, self.saved[0].col, old_cols),
            ]
        };
        let anchor_row = points[0].row;
        // The reflow reads every row, so rows not made yet are made (as blank) first.
        self.main_mut();
        // Rows below the cursor that show nothing are not content.
        let last = self
            .main
            .iter()
            .rposition(|r| !r.cells().iter().all(|c| c.is_default_blank()) || r.has_marks())
            .unwrap_or(0)
            .max(points.iter().map(|p| p.row).max().unwrap_or(0))
            .min(self.main.len().saturating_sub(1));

        // Join rows into logical lines, the history's open line first.
        let head = if self.history_open {
            sink.take_back()
        } else {
            None
        };
        let joined_head = head.is_some();
        let mut lines: Vec<Line> = Vec::new();
        // The head keeps its trailing blanks: its text reached the last column, blanks included.
        let mut current = head;
        let mut current_len = current.as_ref().map_or(0, Row::len);
        for (i, row) in self.main.iter().enumerate().take(last + 1) {
            let line = current.get_or_insert_with(Row::default);
            for p in points.iter_mut().filter(|p| p.row == i) {
                p.line = lines.len();
                p.offset = current_len + usize::from(p.col);
            }
            line.append(current_len, row);
            let room = current_len + 2 * old_cols <= MAX_LINE_CELLS;
            if row.wrapped && i < last && room {
                // A double-width character that did not fit left the last column blank: that
                // blank is not text.
                let padded = row.padded() && row.len() < old_cols;
                current_len += old_cols - usize::from(padded);
            } else {
                let mut cells = current.take().unwrap_or_default();
                cells.trim();
                lines.push(Line {
                    cells,
                    continues: row.wrapped && i == last,
                });
                current_len = 0;
            }
        }
        if let Some(cells) = current.take() {
            lines.push(Line {
                cells,
                continues: false,
            });
        }

        // Wrap every line at the new width.
        let mut laid: Vec<Row> = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            let (rows_of_line, starts) = wrap(&line.cells, cols, line.continues);
            for p in points.iter_mut().filter(|p| p.line == index) {
                place(p, laid.len(), &starts, &rows_of_line, new_cols);
            }
            laid.extend(rows_of_line);
        }
        if laid.is_empty() {
            laid.push(Row::default());
        }

        // Where the anchor goes: the same row, lower by what the screen grew.
        let grown = new_rows.saturating_sub(old_rows);
        let target = (anchor_row + grown).min(new_rows - 1);
        let anchor = points[0].row;
        let mut open = self.history_open && !joined_head;
        let mut top = 0;
        if anchor > target {
            top = anchor - target;
        } else {
            // Room above the anchor: take lines back from the history.
            let mut wanted = target - anchor;
            let mut taken: Vec<Row> = Vec::new();
            let mut closing = !open;
            while wanted > 0 && closing {
                let Some(mut cells) = sink.take_back() else {
                    break;
                };
                cells.trim();
                let (mut rows_of_line, _) = wrap(&cells, cols, false);
                let keep = rows_of_line.len().min(wanted);
                let back = rows_of_line.len() - keep;
                // What does not fit goes back, still one line with the rows below.
                let mut chain = false;
                for row in &rows_of_line[..back] {
                    sink.scrolled_off(row, cols, LinePart::after(chain));
                    chain = row.wrapped;
                }
                open = back > 0;
                closing = back == 0;
                rows_of_line.drain(..back);
                rows_of_line.append(&mut taken);
                taken = rows_of_line;
                wanted -= keep;
            }
            let pulled = taken.len();
            taken.append(&mut laid);
            laid = taken;
            for p in &mut points {
                p.row += pulled;
            }
        }
        // Content below the anchor that would run off the bottom pushes more rows up, as far
        // as the anchor can go.
        let below = laid.len() - top;
        if below > new_rows {
            top += (below - new_rows).min(points[0].row - top);
        }
        for row in &laid[..top] {
            sink.scrolled_off(row, cols, LinePart::after(open));
            open = row.wrapped;
        }
        self.history_open = open;
        laid.drain(..top);
        laid.truncate(new_rows);
        // A screen still blank after the reflow goes back to no rows at all (see
        // `Emulator::main`): resizing an idle pane, as attaching does, keeps it small.
        self.main = if laid.iter().all(|row| *row == Row::BLANK) {
            VecDeque::new()
        } else {
            laid.resize_with(new_rows, Row::default);
            laid.into()
        };

        // Points back onto the screen.
        let clamp = |p: &Point| -> (u16, u16) {
            let row = p.row.saturating_sub(top).min(new_rows - 1);
            let max_col = if p.pending { cols } else { cols - 1 };
            // Rows fit in u16: the screen has at most u16::MAX rows.
            (row as u16, p.col.min(max_col))
        };
        if self.on_alt {
            (self.saved[0].row, self.saved[0].col) = clamp(&points[0]);
        } else {
            (self.row, self.col) = clamp(&points[0]);
            (self.saved[0].row, self.saved[0].col) = clamp(&points[1]);
        }
    }
}

fn point(row: u16, col: u16, cols: usize) -> Point {
    Point {
        row: usize::from(row),
        col,
        pending: usize::from(col) >= cols,
        line: usize::MAX,
        offset: 0,
    }
}

/// Puts point `p` (line offset known) into the layout of its line, whose rows start at
/// `first_row`, begin at source cells `starts`.
fn place(p: &mut Point, first_row: usize, starts: &[usize], rows: &[Row], cols: usize) {
    // The last row whose start is at or before the offset.
    let j = starts
        .iter()
        .rposition(|&s| s <= p.offset)
        .unwrap_or(0)
        .min(rows.len().saturating_sub(1));
    let mut col = p.offset - starts.get(j).copied().unwrap_or(0);
    // A point just after a line whose last row is full waits there with a wrap pending,
    // whether or not it was pending before (tmux too): a line two rows long at 120 columns,
    // narrowed to 100 (cursor after the text on a third row) and widened back, has the cursor
    // after its last character again, not on it. Past the text elsewhere the column is kept
    // as far as the row reaches.
    let pending = col == cols && rows.get(j).is_some_and(|r| r.len() >= cols);
    if !pending {
        col = col.min(cols - 1);
    }
    p.pending = pending;
    p.row = first_row + j;
    // Columns fit in u16: at most the new width.
    p.col = col as u16;
}

/// Wraps a logical line into rows of `cols`: a double-width character that would straddle the
/// edge starts the next row (the last column stays blank, as when it was printed). Returns the
/// rows (all but the last soft-wrapped; the last one too when `continues`) and the source cell
/// where each starts.
fn wrap(line: &Row, cols: u16, continues: bool) -> (Vec<Row>, Vec<usize>) {
    let cols = usize::from(cols);
    let len = line.len();
    let mut rows = Vec::with_capacity(len / cols + 1);
    let mut starts = Vec::with_capacity(len / cols + 1);
    let mut start = 0;
    loop {
        let mut end = (start + cols).min(len);
        // Cut before a double-width character whose right half would fall off the row.
        let padded = end < len && end > start + 1 && line.cell(end as u16).is_wide_continuation();
        if padded {
            end -= 1;
        }
        let mut row = line.slice(start, end);
        starts.push(start);
        start = end;
        let more = start < len;
        if more || continues {
            row.set_wrapped(padded);
        }
        rows.push(row);
        if !more {
            break;
        }
    }
    (rows, starts)
}

/// A stored history line (text with SGR sequences only, as `render` writes it) back into
/// cells; `None` when it is longer than a reflow takes back.
pub(crate) fn parse_line(text: &str) -> Option<Row> {
    if text.len() > MAX_TAKE_BACK_BYTES {
        return None;
    }
    let mut builder = LineBuilder::new(None);
    vte::Parser::new().advance(&mut builder, text.as_bytes());
    Some(builder.row)
}

/// A stored history line as the rows a screen `cols` wide shows it in (as many as it takes,
/// all but the last soft-wrapped), for captures.
pub(crate) fn wrap_text(text: &str, cols: u16) -> Vec<Row> {
    // (Callers cut printable ASCII themselves, by byte count: see `is_printable_ascii`.)
    let mut builder = LineBuilder::new(Some(usize::from(cols.max(1))));
    vte::Parser::new().advance(&mut builder, text.as_bytes());
    builder.rows.push(builder.row);
    builder.rows
}

/// How many rows `text` (a stored history line) takes at `cols` columns: what [`wrap`] makes
/// of [`parse_line`]'s cells, computed without building them.
pub(crate) fn rows_for_text(text: &str, cols: u16) -> usize {
    let cols = usize::from(cols);
    // A character takes at most as many columns as it has bytes, escape sequences none.
    if text.len() <= cols {
        return 1;
    }
    if is_printable_ascii(text) {
        return text.len().div_ceil(cols);
    }
    let (mut rows, mut col) = (1, 0);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: parameters up to the final byte.
            if chars.next() == Some('[') {
                for f in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&f) {
                        break;
                    }
                }
            }
            continue;
        }
        let w = match char_width(c) {
            Some(w @ 1..) if w <= cols => w,
            _ => continue,
        };
        if col + w > cols {
            rows += 1;
            col = 0;
        }
        col += w;
    }
    rows
}

/// Whether every byte of `text` is printable ASCII (one column each, no escape sequence): most
/// history lines, which then wrap by byte count.
pub(crate) fn is_printable_ascii(text: &str) -> bool {
    text.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// Prints a history line into one row of at most [`MAX_LINE_CELLS`], or into rows of `width`.
struct LineBuilder {
    rows: Vec<Row>,
    row: Row,
    col: usize,
    pen: Style,
    width: Option<usize>,
}

impl LineBuilder {
    fn new(width: Option<usize>) -> Self {
        Self {
            rows: Vec::new(),
            row: Row::default(),
            col: 0,
            pen: Style::default(),
            width,
        }
    }
}

impl vte::Perform for LineBuilder {
    fn print(&mut self, c: char) {
        let Some(width) = char_width(c) else {
            return;
        };
        match self.width {
            // As the emulator: a character wider than the screen is dropped, one that does
            // not fit on the row starts the next.
            Some(cols) if width > cols => return,
            Some(cols) if self.col + width > cols && width > 0 => {
                let mut row = std::mem::take(&mut self.row);
                row.set_wrapped(self.col < cols);
                self.rows.push(row);
                self.col = 0;
            }
            Some(_) => {}
            None if self.col + width.max(1) > MAX_LINE_CELLS => return,
            None => {}
        }
        // Columns fit in u16: at most MAX_LINE_CELLS.
        let col = self.col as u16;
        match width {
            0 if self.col > 0 => {
                let mut at = col - 1;
                if at > 0 && self.row.cell(at).is_wide_continuation() {
                    at -= 1;
                }
                self.row.add_mark(at, c);
            }
            0 => {}
            1 => {
                self.row.put_styled(col, Cell::new(c, self.pen), self.pen);
                self.col += 1;
            }
            _ => {
                self.row.put_styled(col, Cell::wide(c, self.pen), self.pen);
                self.row
                    .put_styled(col + 1, Cell::wide_continuation(self.pen), self.pen);
                self.col += 2;
            }
        }
    }

    fn csi_dispatch(&mut self, params: &vte::Params, intermediates: &[u8], _: bool, action: char) {
        if action == 'm' && intermediates.is_empty() {
            sgr::apply(&mut self.pen, params);
        }
    }
}
