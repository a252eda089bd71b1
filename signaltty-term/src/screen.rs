//! `Screen`: one pane's terminal model — the [`Term`] emulator for the visible screen plus the
//! pane's [`History`] of lines that scrolled off it.
//!
//! How history is captured: the emulator hands every row leaving the top of the main screen
//! (scrolling, or a resize that shrinks the screen) to its [`Sink`] before reusing it; we render
//! the row once, as SGR-styled text, into the compact [`History`]. Rows from the alternate screen
//! are not kept (full-screen programs redraw; tmux does the same). Rows the program's line
//! soft-wrapped across join into one history line (a logical line), so that a resize reflows
//! the screen without rewriting the history: captures cut history lines into rows at the width
//! of the moment, and a resize that makes room takes the newest lines back onto the screen
//! (`take_back`). `ESC [3J` clears the history.

use super::history::{History, HistoryLimits, HistoryTail};
use super::osc_limit::OscLimit;
use super::render::{BlankRun, write_cells, write_row};
use super::sanitize::{TITLE_MAX_CHARS, sanitize};
use super::vt::{LinePart, MAX_TAKE_BACK_BYTES, Row, Sink, Term, parse_line};

/// Everything needed to show a pane's current screen on a fresh terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScreenSnapshot {
    /// Bytes that, written to a fresh terminal of `cols`×`rows`, reproduce the screen: the main
    /// screen (and, when a full-screen program is running, the alternate screen over it), colours
    /// and attributes, cursor position and visibility, and input modes (keypad, cursor keys,
    /// bracketed paste, mouse reporting, cursor style).
    pub repaint: Vec<u8>,
    /// Cursor row, 0-based.
    pub cursor_row: u16,
    /// Cursor column, 0-based; equals `cols` while a wrap is pending after the last column.
    pub cursor_col: u16,
    /// Whether the cursor is shown.
    pub cursor_visible: bool,
    /// Screen width.
    pub cols: u16,
    /// Screen height.
    pub rows: u16,
}

/// Most answer bytes kept until the pane takes them: a program that floods queries (or `cat`
/// of a file full of them) gets the first answers, like from a terminal whose input is full,
/// and cannot grow this.
pub const REPLIES_MAX: usize = 4096;

/// The emulator's sink: where scrolled-off rows, titles and answers land.
struct Capture {
    history: History,
    /// Reused buffer for rendering one scrolled-off row.
    scratch: String,
    title: Option<String>,
    /// Answers to queries not yet taken by [`Screen::take_replies`].
    replies: Vec<u8>,
}

impl Capture {
    fn new(limits: HistoryLimits) -> Self {
        Self {
            history: History::new(limits),
            scratch: String::new(),
            title: None,
            replies: Vec::new(),
        }
    }
}

impl Sink for Capture {
    fn scrolled_off(&mut self, row: &Row, cols: u16, part: LinePart) {
        self.scratch.clear();
        // Rendered rows start from default attributes, so lines can be evicted independently;
        // `History::push` appends the closing reset.
        let written = write_cells(row, true, BlankRun::Spaces, &mut self.scratch);
        if row.wrapped {
            // The line goes on in the next row: its blanks up to the edge are part of it (all
            // but the one a double-width character that went on to the next row left).
            let edge = usize::from(cols) - usize::from(row.padded());
            let pad = edge.saturating_sub(written);
            self.scratch.extend(std::iter::repeat_n(' ', pad));
        }
        self.history.push_part(&self.scratch, part);
    }

    fn take_back(&mut self) -> Option<Row> {
        let line = self.history.pop_newest(MAX_TAKE_BACK_BYTES)?;
        parse_line(&line)
    }

    fn title(&mut self, raw: &[u8]) {
        let title = sanitize(&String::from_utf8_lossy(raw), TITLE_MAX_CHARS);
        if !title.is_empty() {
            self.title = Some(title);
        }
    }

    fn clear_history(&mut self) {
        self.history.clear();
    }

    fn reply(&mut self, bytes: &[u8]) {
        // Whole answers only: half of one would read as typed garbage.
        if self.replies.len() + bytes.len() <= REPLIES_MAX {
            self.replies.extend_from_slice(bytes);
        }
    }
}

/// One pane's terminal: visible screen and scrollback history.
pub struct Screen {
    term: Term,
    capture: Capture,
    osc_limit: OscLimit,
}

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (cols, rows) = self.size();
        f.debug_struct("Screen")
            .field("cols", &cols)
            .field("rows", &rows)
            .field("history_len", &self.history_len())
            .finish_non_exhaustive()
    }
}

impl Screen {
    /// A blank screen of `cols`×`rows` (0 is taken as 1) with the default history bounds.
    pub fn new(cols: u16, rows: u16) -> Self {
        Self::with_history_limits(cols, rows, HistoryLimits::default())
    }

    /// A blank screen with explicit history bounds.
    pub fn with_history_limits(cols: u16, rows: u16, limits: HistoryLimits) -> Self {
        Self {
            term: Term::new(cols, rows),
            capture: Capture::new(limits),
            osc_limit: OscLimit::new(),
        }
    }

    /// Applies a chunk of the program's output.
    pub fn feed(&mut self, bytes: &[u8]) {
        let (term, capture) = (&mut self.term, &mut self.capture);
        self.osc_limit
            .filter(bytes, |slice| term.process(slice, capture));
    }

    /// The terminal's answers to queries in the output fed so far (DA, CPR…), oldest first, to be
    /// written to the program's input; empty when there were none. At most [`REPLIES_MAX`]
    /// bytes accumulate between calls.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.capture.replies)
    }

    /// Changes the size (0 is taken as 1). Rows pushed off the top by a shrink go to history;
    /// a grow adds rows at the bottom.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.term.resize(cols, rows, &mut self.capture);
    }

    /// Current size as `(cols, rows)`.
    pub fn size(&self) -> (u16, u16) {
        self.term.size()
    }

    /// The last title set by OSC 0/1/2 (sanitized), if any.
    pub fn title(&self) -> Option<&str> {
        self.capture.title.as_deref()
    }

    /// Whether a full-screen program has switched to the alternate screen.
    pub fn alternate_screen(&self) -> bool {
        self.term.alternate_screen()
    }

    /// Cursor position as `(row, col)`, 0-based.
    pub fn cursor_position(&self) -> (u16, u16) {
        self.term.cursor()
    }

    /// The visible rows joined by `\n`, trailing blanks of each row and trailing blank rows
    /// removed; with `keep_ansi`, styled with SGR sequences.
    pub fn contents(&self, keep_ansi: bool) -> String {
        self.visible_rows(keep_ansi, Trailing::Trim).join("\n")
    }

    /// The last `last_n` lines of history followed by the screen rows (trailing blank rows below
    /// the cursor left out), oldest first; with `keep_ansi`, each line is self-contained SGR text.
    pub fn scrollback(&self, last_n: usize, keep_ansi: bool) -> Vec<String> {
        self.scrollback_copy(last_n, keep_ansi).into_lines()
    }

    /// [`Screen::scrollback`] in two steps: the screen rows rendered and the history's bytes
    /// copied now (quick, so a lock over the screen can be released), the history lines made
    /// into text by [`ScrollbackCopy::into_lines`] after (milliseconds for a full history).
    pub fn scrollback_copy(&self, last_n: usize, keep_ansi: bool) -> ScrollbackCopy {
        let mut rows = self.visible_rows(keep_ansi, Trailing::KeepToCursor);
        if rows.len() >= last_n {
            return ScrollbackCopy {
                history: HistoryTail::default(),
                rows: rows.split_off(rows.len() - last_n),
                keep_ansi,
            };
        }
        ScrollbackCopy {
            history: self.history().tail_rows(last_n - rows.len(), self.size().0),
            rows,
            keep_ansi,
        }
    }

    /// The pane's history (lines that scrolled off the main screen).
    pub fn history(&self) -> &History {
        &self.capture.history
    }

    /// Number of history lines.
    pub fn history_len(&self) -> usize {
        self.history().len()
    }

    /// Bytes of text held in history.
    pub fn history_bytes(&self) -> usize {
        self.history().bytes()
    }

    /// The bytes and facts to reproduce the current screen on a fresh terminal.
    pub fn snapshot(&self) -> ScreenSnapshot {
        let (cols, rows) = self.size();
        let (cursor_row, cursor_col) = self.term.cursor();
        ScreenSnapshot {
            repaint: self.term.repaint(),
            cursor_row,
            cursor_col,
            cursor_visible: self.term.modes().cursor_visible,
            cols,
            rows,
        }
    }

    fn visible_rows(&self, keep_ansi: bool, trailing: Trailing) -> Vec<String> {
        let mut out: Vec<String> = self
            .term
            .rows()
            .map(|row| {
                let mut line = String::new();
                write_row(row, keep_ansi, &mut line);
                line
            })
            .collect();
        let keep = match trailing {
            Trailing::Trim => 0,
            Trailing::KeepToCursor => usize::from(self.term.cursor().0) + 1,
        };
        while out.len() > keep && out.last().is_some_and(String::is_empty) {
            out.pop();
        }
        out
    }

    /// Whether the program asked for pastes bracketed (mode 2004): text typed on its behalf
    /// (a race's prompt) is then sent as one paste, line breaks and all.
    pub fn bracketed_paste(&self) -> bool {
        self.term.modes().bracketed_paste
    }

    /// The emulator, for tests and for [`Screen::view`] (`view.rs`).
    pub(crate) fn term(&self) -> &Term {
        &self.term
    }
}

/// A scrollback capture taken by [`Screen::scrollback_copy`].
#[derive(Clone, Debug)]
pub struct ScrollbackCopy {
    history: HistoryTail,
    rows: Vec<String>,
    keep_ansi: bool,
}

impl ScrollbackCopy {
    /// Bytes of history text still to be turned into lines (what [`Self::into_lines`] costs).
    pub fn history_bytes(&self) -> usize {
        self.history.bytes()
    }

    /// The lines, oldest first: history, then the screen rows.
    pub fn into_lines(self) -> Vec<String> {
        let mut lines = self.history.lines(self.keep_ansi);
        lines.extend(self.rows);
        lines
    }
}

/// What to do with blank rows at the bottom of the screen.
#[derive(Clone, Copy)]
enum Trailing {
    /// Drop them all.
    Trim,
    /// Drop those below the cursor row.
    KeepToCursor,
}

#[cfg(test)]
#[path = "screen_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "reflow_tests.rs"]
mod reflow_tests;
