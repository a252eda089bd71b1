//! `Term`: signaltty's own terminal emulator — a vte parser driving a grid of compact cells.
//!
//! Why not vt100: its cells are 32 bytes, its grid is allocated whole, and a row leaving the top
//! of the screen can only be read back through a per-cell formatting callback, which cost as much
//! CPU as parsing. Here a row is a vector of 12-byte cells up to its last written column
//! (`Row`), the screen is a ring of rows so a scroll is a pop and a push, and the row that
//! scrolls off is handed to the [`Sink`] as it is, before it is reused.
//!
//! The model follows xterm (what `TERM=xterm-256color` promises): autowrap with a pending-wrap
//! state (the cursor column reads as `cols` until the next character wraps), double-width
//! characters and combining marks, scroll regions and origin mode, insert mode, background-colour
//! erase, the alternate screen (modes 47, 1047, 1049) with its own saved cursor (DECSC and
//! SCOSC/SCORC, `CSI s`/`CSI u`), DEC line drawing, tab stops (HTS/TBC), DECALN, DECSTR (soft
//! reset), SGR with underline shapes, underline colour and overline, reflow of the main screen
//! on resize (`reflow`), and the input modes a client must mirror ([`Modes`]). It answers
//! the queries a program asks its terminal (DA, DSR, CPR, size, name, kitty flags) through the
//! [`Sink`]; the `reply` module lists them and says why here and not in the client's terminal.
//!
//! Invariants: `0 <= cursor_row < rows`; `0 <= cursor_col <= cols` (== `cols` only while a
//! wrap is pending); `top < bottom < rows`; every row is at most `cols` cells.

mod cell;
mod edit;
mod keyboard;
mod modes;
mod perform;
mod reflow;
mod repaint;
pub(crate) mod reply;
mod row;
mod sgr;
mod tabs;

use std::collections::VecDeque;

pub use cell::{Attr, Cell, Color, Style, UnderlineStyle};
pub use keyboard::Keyboard;
pub use modes::{Modes, MouseEncoding, MouseMode};
pub(crate) use reflow::{
    MAX_TAKE_BACK_BYTES, is_printable_ascii, parse_line, rows_for_text, wrap_text,
};
pub use row::Row;

/// Whether a row leaving the screen starts a line of the history or continues its newest one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinePart {
    /// A new line: the row before it ended hard (or was not the row above).
    Starts,
    /// The newest history line's last row was soft-wrapped into this one.
    Continues,
}

impl LinePart {
    /// `Continues` after a soft-wrapped row.
    pub fn after(wrapped: bool) -> Self {
        if wrapped {
            Self::Continues
        } else {
            Self::Starts
        }
    }
}

/// Where the emulator reports what leaves the screen and what it cannot keep itself.
pub trait Sink {
    /// A row scrolled off the top of the main screen (not the alternate one), just before the
    /// emulator blanks and reuses it; `cols` is the screen's width. A row with `wrapped` set
    /// continues into the next one (its blanks up to `cols` are part of the line).
    fn scrolled_off(&mut self, row: &Row, cols: u16, part: LinePart);
    /// A resize takes the newest history line back onto the screen (reflow): its cells as one
    /// row of any length, or `None` when there is none (or it is too long to take back).
    /// Rows that do not fit come back through [`Sink::scrolled_off`].
    fn take_back(&mut self) -> Option<Row> {
        None
    }
    /// OSC 0, 1 or 2 set the title (raw bytes, the program's; sanitize before use).
    fn title(&mut self, raw: &[u8]);
    /// `ESC [ 3 J`: the program asked to erase the scrollback.
    fn clear_history(&mut self);
    /// The terminal's answer to a query (a device-attributes or cursor-position request), to be
    /// written to the program's input as a terminal would. Dropped by default, for sinks with
    /// no program behind them (measurements, replays of saved output).
    fn reply(&mut self, bytes: &[u8]) {
        let _ = bytes;
    }
}

/// A terminal: the vte parser (which carries partial sequences across chunks) and the model.
pub struct Term {
    parser: vte::Parser,
    emu: Emulator,
}

impl Term {
    /// A blank terminal of `cols`×`rows` (0 is taken as 1).
    pub fn new(cols: u16, rows: u16) -> Self {
        Self {
            parser: vte::Parser::new(),
            emu: Emulator::new(cols.max(1), rows.max(1)),
        }
    }

    /// Applies a chunk of program output.
    pub fn process(&mut self, bytes: &[u8], sink: &mut impl Sink) {
        self.parser.advance(
            &mut perform::Performer {
                emu: &mut self.emu,
                sink,
            },
            bytes,
        );
    }

    /// Changes the size (0 is taken as 1), reflowing the main screen (see `reflow`): soft-wrapped
    /// lines are wrapped again at the new width with the cursor on its character, rows that no
    /// longer fit leave through the sink (blank rows below the cursor are dropped first), and
    /// a grow takes rows back from the sink's history.
    pub fn resize(&mut self, cols: u16, rows: u16, sink: &mut impl Sink) {
        self.emu.resize(cols.max(1), rows.max(1), sink);
    }

    /// `(cols, rows)`.
    pub fn size(&self) -> (u16, u16) {
        (self.emu.cols, self.emu.rows)
    }

    /// `(row, col)`, 0-based; the column is `cols` while a wrap is pending.
    pub fn cursor(&self) -> (u16, u16) {
        (self.emu.row, self.emu.col)
    }

    pub fn alternate_screen(&self) -> bool {
        self.emu.on_alt
    }

    pub fn modes(&self) -> &Modes {
        &self.emu.modes
    }

    /// Whether the main screen's first row continues the history's newest line.
    #[cfg(test)]
    pub(crate) fn history_open(&self) -> bool {
        self.emu.history_open
    }

    /// The keyboard protocols the program asked for (modifyOtherKeys, kitty flags).
    pub fn keyboard(&self) -> &Keyboard {
        &self.emu.keyboard
    }

    /// The visible rows of the active screen, top first.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &Row> {
        (0..self.emu.rows).map(|row| self.emu.row_at(row))
    }

    /// Visible row `row` of the active screen.
    pub fn row(&self, row: u16) -> Option<&Row> {
        (row < self.emu.rows).then(|| self.emu.row_at(row))
    }

    /// The cell at `(row, col)` of the active screen.
    pub fn cell(&self, row: u16, col: u16) -> Option<Cell> {
        (col < self.emu.cols)
            .then(|| self.row(row).map(|r| r.cell(col)))
            .flatten()
    }

    /// The text of a cell: its character and combining marks; empty for the right half of a
    /// double-width character.
    pub fn cell_text(&self, row: u16, col: u16) -> String {
        let Some(r) = self.row(row) else {
            return String::new();
        };
        let cell = r.cell(col);
        if cell.is_wide_continuation() {
            return String::new();
        }
        std::iter::once(cell.ch()).chain(r.marks(col)).collect()
    }

    /// Bytes that, written to a fresh terminal of the same size, reproduce the screen: the main
    /// screen (and the alternate one over it when active), colours, scroll region, cursor
    /// (position, pending wrap, visibility, shape), current drawing style, and [`Modes`].
    pub fn repaint(&self) -> Vec<u8> {
        repaint::repaint(&self.emu).into_bytes()
    }
}

impl std::fmt::Debug for Term {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Term")
            .field("size", &self.size())
            .field("cursor", &self.cursor())
            .field("alternate_screen", &self.emu.on_alt)
            .finish_non_exhaustive()
    }
}

/// The character set a G0/G1 slot designates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Charset {
    #[default]
    Ascii,
    /// DEC special graphics (line drawing), `ESC ( 0`.
    DecGraphics,
}

/// What DECSC saves and DECRC restores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Saved {
    row: u16,
    col: u16,
    pen: Style,
    origin: bool,
    charsets: [Charset; 2],
    shifted: bool,
}

/// The model the parser's actions edit; `edit.rs` holds the operations.
struct Emulator {
    cols: u16,
    rows: u16,
    /// Main and alternate screens, `rows` rows each, top first. The main screen is empty until
    /// the first edit of it (`grid_mut`), and reads as blank rows until then: most panes are
    /// idle, and a blank 80×24 screen's row headers alone were ~1 KiB a pane (issue 31). The
    /// alternate screen is empty while it does not show.
    main: VecDeque<Row>,
    alt: VecDeque<Row>,
    on_alt: bool,
    row: u16,
    col: u16,
    pen: Style,
    /// DECSC slots of the main and the alternate screen.
    saved: [Saved; 2],
    /// Scroll region, inclusive.
    top: u16,
    bottom: u16,
    modes: Modes,
    /// G0 and G1; `shifted` selects G1 (SO) instead of G0 (SI).
    charsets: [Charset; 2],
    shifted: bool,
    /// The last printed character, for REP (`CSI b`).
    last_char: Option<char>,
    tabs: tabs::TabStops,
    keyboard: Keyboard,
    /// The newest history line continues on the main screen's first row (the row that left
    /// before it was soft-wrapped into it).
    history_open: bool,
}

impl Emulator {
    fn new(cols: u16, rows: u16) -> Self {
        Self {
            cols,
            rows,
            main: VecDeque::new(),
            alt: VecDeque::new(),
            on_alt: false,
            row: 0,
            col: 0,
            pen: Style::default(),
            saved: [Saved::default(); 2],
            top: 0,
            bottom: rows - 1,
            modes: Modes::default(),
            charsets: [Charset::Ascii; 2],
            shifted: false,
            last_char: None,
            tabs: tabs::TabStops::default(),
            keyboard: Keyboard::default(),
            history_open: false,
        }
    }

    /// The active screen as an index: 0 main, 1 alternate.
    fn screen(&self) -> usize {
        usize::from(self.on_alt)
    }

    /// Row `row` (`< rows`) of the active screen; a blank one while the rows are not made.
    fn row_at(&self, row: u16) -> &Row {
        let grid = if self.on_alt { &self.alt } else { &self.main };
        grid.get(usize::from(row)).unwrap_or(&BLANK_ROW)
    }

    /// The active screen, for an edit: its rows are made first when they are not yet.
    fn grid_mut(&mut self) -> &mut VecDeque<Row> {
        if self.on_alt {
            &mut self.alt
        } else {
            self.main_mut()
        }
    }

    /// The main screen, for an edit (see `main`).
    fn main_mut(&mut self) -> &mut VecDeque<Row> {
        if self.main.is_empty() {
            self.main = blank_rows(self.rows);
        }
        &mut self.main
    }
}

/// What a row not made yet reads as.
static BLANK_ROW: Row = Row::BLANK;

fn blank_rows(rows: u16) -> VecDeque<Row> {
    std::iter::repeat_with(Row::default)
        .take(usize::from(rows))
        .collect()
}

#[cfg(test)]
#[path = "vt_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "vt_sequences_tests.rs"]
mod sequences_tests;
