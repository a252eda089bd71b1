//! The emulator's operations: printing, cursor movement, erasing, scrolling, screens, resize.
//! `perform.rs` maps escape sequences onto these; they keep the invariants listed in `vt.rs`.

use unicode_width::UnicodeWidthChar;

use super::cell::{Cell, Style};
use super::row::Row;
use super::{Charset, Emulator, LinePart, Saved, Sink, blank_rows};

/// Which screen a mode switches to, and whether it clears or saves on the way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AltScreen {
    /// Mode 47: switch only.
    Plain,
    /// Mode 1047: clear the alternate screen when leaving it.
    ClearOnExit,
    /// Mode 1049: save the cursor and clear on entry, restore on exit.
    SaveCursor,
}

impl Emulator {
    // ---- printing ----

    #[inline]
    pub(super) fn print(&mut self, c: char, sink: &mut impl Sink) {
        // Most output is printable ASCII written left to right with nothing special set: one
        // cell store and a column step.
        if c < '\u{7f}'
            && self.col < self.cols
            && !self.modes.insert
            && !self.pen.has_underline_color()
            && self.charsets[usize::from(self.shifted)] == Charset::Ascii
        {
            let (row, col, pen) = (usize::from(self.row), self.col, self.pen);
            self.grid_mut()[row].put_narrow(col, Cell::new(c, pen));
            self.col += 1;
            if self.col == self.cols && !self.modes.autowrap {
                self.col -= 1;
            }
            self.last_char = Some(c);
            return;
        }
        self.print_slow(c, sink);
    }

    fn print_slow(&mut self, c: char, sink: &mut impl Sink) {
        let c = self.translate(c);
        // Printable ASCII, the common case, is one column wide without a table lookup.
        let width = if c < '\u{7f}' {
            1
        } else {
            match char_width(c) {
                Some(w) => w as u16,
                None => return,
            }
        };
        if width == 0 {
            self.add_mark(c);
            return;
        }
        if width > self.cols {
            return;
        }
        if self.col + width > self.cols {
            if self.modes.autowrap {
                let (row, padded) = (usize::from(self.row), self.col < self.cols);
                self.grid_mut()[row].set_wrapped(padded);
                self.col = 0;
                self.linefeed(sink);
            } else if width > 1 {
                // Nowhere to go without a wrap: xterm and tmux drop the character rather than
                // overwrite the one before it.
                return;
            } else {
                self.col = self.cols - width;
            }
        }
        let (row, col, cols, pen) = (usize::from(self.row), self.col, self.cols, self.pen);
        let insert = self.modes.insert;
        let line = &mut self.grid_mut()[row];
        if insert {
            line.insert_blanks(col, width, cols, Style::default());
        }
        if width == 1 {
            line.put_styled(col, Cell::new(c, pen), pen);
        } else {
            line.put_styled(col, Cell::wide(c, pen), pen);
            line.put_styled(col + 1, Cell::wide_continuation(pen), pen);
        }
        self.col += width;
        if !self.modes.autowrap {
            self.col = self.col.min(self.cols - 1);
        }
        self.last_char = Some(c);
    }

    /// A zero-width character joins the cell before the cursor.
    fn add_mark(&mut self, mark: char) {
        let row = usize::from(self.row);
        let mut col = self.col.min(self.cols);
        if col == 0 {
            return;
        }
        col -= 1;
        let line = &mut self.grid_mut()[row];
        if col > 0 && line.cell(col).is_wide_continuation() {
            col -= 1;
        }
        line.add_mark(col, mark);
    }

    /// DEC line drawing for the active character set.
    fn translate(&self, c: char) -> char {
        if self.charsets[usize::from(self.shifted)] != Charset::DecGraphics {
            return c;
        }
        const GRAPHICS: &str = "◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·";
        match c {
            '_' => '\u{a0}',
            '`'..='~' => GRAPHICS.chars().nth(c as usize - '`' as usize).unwrap_or(c),
            _ => c,
        }
    }

    /// REP: repeats the character printed right before it; anything else in between (a
    /// control, an escape or control sequence, REP itself) makes it do nothing, as in xterm
    /// and tmux (`Performer` forgets the character after each of them).
    pub(super) fn repeat_last(&mut self, n: u16, sink: &mut impl Sink) {
        if let Some(c) = self.last_char {
            // Bounded by the screen: repeating more than a screenful only scrolls.
            let n = n.min(self.cols.saturating_mul(self.rows));
            for _ in 0..n {
                self.print(c, sink);
            }
        }
    }

    /// Something other than a printed character came: REP has nothing to repeat.
    pub(super) fn forget_last_char(&mut self) {
        self.last_char = None;
    }

    pub(super) fn set_charset(&mut self, slot: usize, charset: Charset) {
        self.charsets[slot] = charset;
    }

    pub(super) fn shift_out(&mut self, g1: bool) {
        self.shifted = g1;
    }

    // ---- cursor movement ----
    // Relative moves keep a pending wrap's column (`cols`) as their starting point, as vt100
    // does; absolute column moves (CR, CUP, CHA) end it.

    /// CUP: `row` and `col` 0-based, relative to the scroll region in origin mode.
    pub(super) fn goto(&mut self, row: u16, col: u16) {
        let (low, high) = if self.modes.origin {
            (self.top, self.bottom)
        } else {
            (0, self.rows - 1)
        };
        self.row = low.saturating_add(row).min(high);
        self.col = col.min(self.cols - 1);
    }

    /// VPA.
    pub(super) fn goto_row(&mut self, row: u16) {
        let col = self.col;
        self.goto(row, 0);
        self.col = col;
    }

    /// CHA / HPA.
    pub(super) fn goto_col(&mut self, col: u16) {
        self.col = col.min(self.cols - 1);
    }

    /// CUU; stops at the top margin when starting inside the region.
    pub(super) fn up(&mut self, n: u16) {
        let limit = if self.row >= self.top { self.top } else { 0 };
        self.row = self.row.saturating_sub(n).max(limit);
    }

    /// CUD; stops at the bottom margin when starting inside the region.
    pub(super) fn down(&mut self, n: u16) {
        let limit = if self.row <= self.bottom {
            self.bottom
        } else {
            self.rows - 1
        };
        self.row = self.row.saturating_add(n).min(limit);
    }

    pub(super) fn forward(&mut self, n: u16) {
        self.col = self.col.saturating_add(n).min(self.cols - 1);
    }

    /// CUB and BS; from a pending wrap, one step lands on the last column.
    pub(super) fn backward(&mut self, n: u16) {
        self.col = self.col.saturating_sub(n);
    }

    pub(super) fn carriage_return(&mut self) {
        self.col = 0;
    }

    /// HT and CHT: to the next tab stop, `n` times.
    pub(super) fn tab(&mut self, n: u16) {
        // A pending wrap stays pending (xterm): the tab must not land on the last character.
        if self.col >= self.cols {
            return;
        }
        for _ in 0..n.min(self.cols) {
            self.col = self.tabs.next(self.col, self.cols);
        }
    }

    /// CBT: back to the previous tab stop, `n` times.
    pub(super) fn back_tab(&mut self, n: u16) {
        for _ in 0..n.min(self.cols) {
            self.col = self.tabs.previous(self.col);
        }
    }

    /// HTS.
    pub(super) fn set_tab_stop(&mut self) {
        let col = self.col.min(self.cols - 1);
        self.tabs.set(col, self.cols);
    }

    /// TBC: 0 clears the stop at the cursor, 3 every stop.
    pub(super) fn clear_tab_stops(&mut self, mode: u16) {
        match mode {
            0 => self.tabs.clear(self.col.min(self.cols - 1), self.cols),
            3 => self.tabs.clear_all(self.cols),
            _ => {}
        }
    }

    /// LF, VT, FF, IND: down one row, scrolling the region at its bottom margin. A pending wrap
    /// stays pending (as in vt100), so the next character still starts a new row.
    pub(super) fn linefeed(&mut self, sink: &mut impl Sink) {
        if self.row == self.bottom {
            self.scroll_up(1, sink);
        } else if self.row < self.rows - 1 {
            self.row += 1;
        }
    }

    /// RI: up one row, scrolling the region down at its top margin.
    pub(super) fn reverse_index(&mut self) {
        if self.row == self.top {
            self.scroll_down(1);
        } else if self.row > 0 {
            self.row -= 1;
        }
    }

    pub(super) fn save_cursor(&mut self) {
        self.saved[usize::from(self.on_alt)] = Saved {
            row: self.row,
            col: self.col,
            pen: self.pen,
            origin: self.modes.origin,
            charsets: self.charsets,
            shifted: self.shifted,
        };
    }

    pub(super) fn restore_cursor(&mut self) {
        let saved = self.saved[usize::from(self.on_alt)];
        self.row = saved.row.min(self.rows - 1);
        self.col = saved.col.min(self.cols);
        self.pen = saved.pen;
        self.modes.origin = saved.origin;
        if saved.origin {
            // In origin mode the cursor cannot leave the scroll region, which may have changed
            // since the save.
            self.row = self.row.clamp(self.top, self.bottom);
        }
        self.charsets = saved.charsets;
        self.shifted = saved.shifted;
    }

    // ---- scrolling ----

    /// SU and LF at the bottom margin: the region moves up `n` rows. Rows leaving the top of the
    /// main screen go to the sink (xterm saves them whenever the region starts at the top).
    pub(super) fn scroll_up(&mut self, n: u16, sink: &mut impl Sink) {
        let to_history = self.top == 0 && !self.on_alt;
        let (cols, mut open) = (self.cols, self.history_open);
        self.rows_up(self.top, self.bottom, n, |row| {
            if to_history {
                sink.scrolled_off(row, cols, LinePart::after(open));
                open = row.wrapped;
            }
        });
        if to_history {
            self.history_open = open;
        }
    }

    /// SD and RI at the top margin: the region moves down `n` rows; rows leaving the bottom are
    /// dropped.
    pub(super) fn scroll_down(&mut self, n: u16) {
        self.rows_down(self.top, self.bottom, n);
    }

    /// Moves rows `top..=bottom` up by `n`: each row leaving at the top is shown to `leaving`,
    /// blanked in the pen's background and reused at the bottom.
    fn rows_up(&mut self, top: u16, bottom: u16, n: u16, mut leaving: impl FnMut(&Row)) {
        let (top, bottom) = (usize::from(top), usize::from(bottom));
        let n = usize::from(n).min(bottom - top + 1);
        let (cols, blank) = (self.cols, self.pen);
        // The whole screen scrolls in the common case: a pop and a push on the ring.
        let whole = top == 0 && bottom == usize::from(self.rows) - 1;
        let grid = self.grid_mut();
        for _ in 0..n {
            let taken = if whole {
                grid.pop_front()
            } else {
                grid.remove(top)
            };
            let Some(mut row) = taken else {
                return;
            };
            leaving(&row);
            row.clear(cols, blank);
            if whole {
                grid.push_back(row);
            } else {
                grid.insert(bottom, row);
            }
        }
    }

    /// Moves rows `top..=bottom` down by `n`; rows leaving at the bottom come back blank at the
    /// top.
    fn rows_down(&mut self, top: u16, bottom: u16, n: u16) {
        self.first_row_replaced(top);
        let (top, bottom) = (usize::from(top), usize::from(bottom));
        let n = usize::from(n).min(bottom - top + 1);
        let (cols, blank) = (self.cols, self.pen);
        let grid = self.grid_mut();
        for _ in 0..n {
            if let Some(mut row) = grid.remove(bottom) {
                row.clear(cols, blank);
                grid.insert(top, row);
            }
        }
    }

    /// DECSTBM (0-based, inclusive); an empty or inverted region is ignored. Homes the cursor.
    pub(super) fn set_region(&mut self, top: u16, bottom: u16) {
        let bottom = bottom.min(self.rows - 1);
        if top >= bottom {
            return;
        }
        (self.top, self.bottom) = (top, bottom);
        self.goto(0, 0);
    }

    /// IL: blank rows at the cursor inside the region, pushing rows below down and out.
    pub(super) fn insert_lines(&mut self, n: u16) {
        if (self.top..=self.bottom).contains(&self.row) {
            self.rows_down(self.row, self.bottom, n);
            self.col = 0;
        }
    }

    /// DL: delete rows at the cursor inside the region, pulling rows below up.
    pub(super) fn delete_lines(&mut self, n: u16) {
        if (self.top..=self.bottom).contains(&self.row) {
            self.first_row_replaced(self.row);
            self.rows_up(self.row, self.bottom, n, |_| {});
            self.col = 0;
        }
    }

    // ---- erasing ----
    // Erasing and editing keep a pending wrap (the cursor column may be `cols`, an empty range):
    // a status line that fills the last column and then erases to the end keeps its last cell.

    /// ED 0/1/2.
    pub(super) fn erase_display(&mut self, mode: u16) {
        let (row, rows) = (self.row, self.rows);
        match mode {
            0 => {
                self.erase_line(0);
                self.clear_rows(row + 1, rows);
            }
            1 => {
                self.clear_rows(0, row);
                self.erase_line(1);
            }
            2 => self.clear_rows(0, rows),
            _ => {}
        }
    }

    /// The main screen's first row no longer continues the history's newest line once another
    /// row takes its place or it is erased whole.
    fn first_row_replaced(&mut self, row: u16) {
        if row == 0 && !self.on_alt {
            self.history_open = false;
        }
    }

    fn clear_rows(&mut self, from: u16, to: u16) {
        if to > from {
            self.first_row_replaced(from);
        }
        let (cols, pen) = (self.cols, self.pen);
        for row in self
            .grid_mut()
            .range_mut(usize::from(from)..usize::from(to))
        {
            row.clear(cols, pen);
        }
    }

    /// EL 0/1/2.
    pub(super) fn erase_line(&mut self, mode: u16) {
        let (col, cols, pen, row) = (self.col, self.cols, self.pen, usize::from(self.row));
        let line = &mut self.grid_mut()[row];
        match mode {
            0 => {
                line.erase(col, cols, cols, pen);
                line.wrapped = false;
            }
            1 => line.erase(0, col + 1, cols, pen),
            2 => line.clear(cols, pen),
            _ => {}
        }
    }

    /// ECH.
    pub(super) fn erase_chars(&mut self, n: u16) {
        let (col, cols, pen, row) = (self.col, self.cols, self.pen, usize::from(self.row));
        self.grid_mut()[row].erase(col, col.saturating_add(n), cols, pen);
    }

    /// ICH.
    pub(super) fn insert_chars(&mut self, n: u16) {
        let (col, cols, pen, row) = (self.col, self.cols, self.pen, usize::from(self.row));
        self.grid_mut()[row].insert_blanks(col, n, cols, pen.erased());
    }

    /// DCH.
    pub(super) fn delete_chars(&mut self, n: u16) {
        let (col, cols, pen, row) = (self.col, self.cols, self.pen, usize::from(self.row));
        self.grid_mut()[row].delete(col, n, cols, pen.erased());
    }

    // ---- screens, modes, reset, resize ----

    pub(super) fn enter_alt(&mut self, how: AltScreen) {
        if how == AltScreen::SaveCursor {
            // xterm saves and clears even when the alternate screen already shows.
            self.save_cursor();
            self.alt = blank_rows(self.rows);
        } else if self.on_alt {
            return;
        } else if self.alt.len() != usize::from(self.rows) {
            self.alt = blank_rows(self.rows);
        }
        self.on_alt = true;
    }

    pub(super) fn leave_alt(&mut self, how: AltScreen) {
        if !self.on_alt {
            // xterm restores the cursor for `?1049l` even when the main screen already shows.
            if how == AltScreen::SaveCursor {
                self.restore_cursor();
            }
            return;
        }
        if how != AltScreen::Plain {
            // Nothing shows the alternate screen once left; keep no memory for it.
            self.alt = std::collections::VecDeque::new();
        }
        self.on_alt = false;
        if how == AltScreen::SaveCursor {
            self.restore_cursor();
        }
        self.settle_in_bounds();
    }

    /// DECOM moves the cursor home (inside the region when on).
    pub(super) fn set_origin(&mut self, on: bool) {
        self.modes.origin = on;
        self.goto(0, 0);
    }

    /// DECALN (`ESC # 8`): the screen filled with `E`, margins reset, cursor home (xterm).
    pub(super) fn screen_alignment(&mut self) {
        let cols = usize::from(self.cols);
        self.top = 0;
        self.bottom = self.rows - 1;
        self.modes.origin = false;
        self.first_row_replaced(0);
        for row in self.grid_mut() {
            row.clear(cols as u16, Style::default());
            for col in 0..cols as u16 {
                row.put_narrow(col, Cell::new('E', Style::default()));
            }
        }
        self.row = 0;
        self.col = 0;
    }

    /// DECSTR (`CSI ! p`, part of `tput init`/`reset`): the soft reset of xterm — cursor shown,
    /// insert, origin and cursor-key/keypad application modes off, autowrap on, full scroll
    /// region, ASCII charsets, default pen, the saved cursor back to home. The screen, the
    /// cursor's position, mouse and paste modes stay.
    pub(super) fn soft_reset(&mut self) {
        self.modes.cursor_visible = true;
        self.modes.insert = false;
        self.modes.origin = false;
        self.modes.autowrap = true;
        self.modes.application_cursor = false;
        self.modes.application_keypad = false;
        self.top = 0;
        self.bottom = self.rows - 1;
        self.charsets = [Charset::Ascii; 2];
        self.shifted = false;
        self.pen = Style::default();
        self.saved[self.screen()] = Saved::default();
    }

    /// RIS: everything back to power-on state; the history is the sink's and stays.
    pub(super) fn reset(&mut self) {
        *self = Emulator::new(self.cols, self.rows);
    }

    /// A new size: the main screen reflowed (`reflow.rs`), the alternate screen cut or extended
    /// (its program repaints it).
    pub(super) fn resize(&mut self, cols: u16, rows: u16, sink: &mut impl Sink) {
        if (cols, rows) == (self.cols, self.rows) {
            return;
        }
        if cols < self.cols {
            for row in &mut self.alt {
                row.truncate(cols);
            }
        }
        let new_rows = usize::from(rows);
        if self.on_alt && new_rows < self.alt.len() {
            // Keep the cursor's row on screen: cut from the top only as far as needed.
            let keep_from = usize::from(self.row + 1).saturating_sub(new_rows);
            self.alt.drain(..keep_from);
            self.alt.truncate(new_rows);
            self.row -= keep_from as u16;
        }
        if !self.alt.is_empty() {
            self.alt.resize_with(new_rows, Row::default);
        }
        self.relayout_main(cols, rows, sink);
        self.cols = cols;
        self.tabs.resize(cols);
        self.rows = rows;
        self.top = 0;
        self.bottom = rows - 1;
        self.settle_in_bounds();
    }

    fn settle_in_bounds(&mut self) {
        self.row = self.row.min(self.rows - 1);
        self.col = self.col.min(self.cols);
        for saved in &mut self.saved {
            saved.row = saved.row.min(self.rows - 1);
            saved.col = saved.col.min(self.cols);
        }
    }
}

/// Columns `c` takes, `None` for a control character. U+00AD (soft hyphen) takes one, as in
/// glibc's `wcwidth`, xterm, tmux, VTE and kitty (programs that measure text with `wcwidth`
/// then agree with the screen); Unicode's East Asian Width tables leave it to the renderer.
pub(crate) fn char_width(c: char) -> Option<usize> {
    if c == '\u{ad}' {
        return Some(1);
    }
    c.width()
}
