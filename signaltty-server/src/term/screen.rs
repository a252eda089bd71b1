//! `Screen`: one pane's terminal model — a vt100 parser for the visible screen plus the pane's
//! [`History`] of lines that scrolled off it.
//!
//! How history is captured: vt100 0.18 reports every row that leaves the top of the main screen
//! through `Callbacks::on_scroll` (with its own scrollback capacity at 0, the callback fires with
//! the row itself just before the row is reset and reused, including rows pushed off by a resize
//! that shrinks the screen), and says whether the row came from the alternate screen. We keep the
//! parser's own scrollback at 0 — its cells cost 32 bytes each, ~2.5 KiB per 80-column row — and
//! render each reported row once, as SGR-styled text, into the compact [`History`]. Rows from the
//! alternate screen are not kept (full-screen programs redraw; tmux does the same), and a row
//! counts as one history line even when the program's line wrapped onto the next row.
//!
//! Known gaps of the model: `ESC [3J` (erase scrollback) does not reach the callbacks with a zero
//! parser scrollback, so our history is kept (bounded) rather than cleared; and vt100 exposes no
//! scroll region, origin mode or character set, so [`Screen::snapshot`] cannot repaint those.

use std::num::NonZeroU16;

use vt100::capture::{BasicFormattedCaptureState, RowContents};

use super::history::{History, HistoryLimits};
use super::osc_limit::OscLimit;
use super::render::write_row;
use super::sanitize::{TITLE_MAX_CHARS, sanitize};

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

/// The parser callbacks: where scrolled-off rows and titles land.
struct Capture {
    history: History,
    /// Reused buffer for rendering one scrolled-off row.
    scratch: String,
    title: Option<String>,
}

impl Capture {
    fn new(limits: HistoryLimits) -> Self {
        Self {
            history: History::new(limits),
            scratch: String::new(),
            title: None,
        }
    }

    fn set_title(&mut self, raw: &[u8]) {
        let title = sanitize(&String::from_utf8_lossy(raw), TITLE_MAX_CHARS);
        if !title.is_empty() {
            self.title = Some(title);
        }
    }
}

impl vt100::Callbacks for Capture {
    fn on_scroll(&mut self, contents: RowContents<'_>, alternate_screen: bool) {
        if alternate_screen {
            return;
        }
        self.scratch.clear();
        // A fresh state per row makes each line start from default attributes, so lines can be
        // evicted independently; `History::push` appends the closing reset. Writing to a String
        // cannot fail.
        let _ = contents
            .write_formatted_basic(&mut self.scratch, &mut BasicFormattedCaptureState::new());
        self.history.push(&self.scratch);
    }

    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.set_title(title);
    }

    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, name: &[u8]) {
        // OSC 1 sets the title too (BEHAVIOUR.md); OSC 0 arrives here and in set_window_title.
        self.set_title(name);
    }

    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        // vt100 splits OSC text on `;`, so a title containing `;` arrives here in pieces.
        if let [b"0" | b"1" | b"2", parts @ ..] = params
            && parts.len() > 1
        {
            self.set_title(&parts.join(&b';'));
        }
    }
}

/// One pane's terminal: visible screen and scrollback history.
pub struct Screen {
    grid: Grid,
    osc_limit: OscLimit,
}

/// The cell grid exists from the program's first output on. A pane that has printed nothing
/// yet (a `sleep`, a program still starting, a restored pane with no tail) holds no grid: an
/// 80×24 vt100 grid is 60 KiB of cells, most of an idle pane's memory, and tmux likewise
/// allocates a line's cells only once something is written to it.
enum Grid {
    Blank {
        cols: u16,
        rows: u16,
        capture: Capture,
    },
    Live(Box<vt100::Parser<Capture>>),
}

impl Grid {
    fn capture(&self) -> &Capture {
        match self {
            Self::Blank { capture, .. } => capture,
            Self::Live(parser) => parser.callbacks(),
        }
    }

    /// The parser, created now if the grid was blank.
    fn live(&mut self) -> &mut vt100::Parser<Capture> {
        if let Self::Blank {
            cols,
            rows,
            capture,
        } = self
        {
            let capture = std::mem::replace(capture, Capture::new(capture.history.limits()));
            let parser =
                vt100::Parser::new_with_callbacks(non_zero(*rows), non_zero(*cols), 0, capture);
            *self = Self::Live(Box::new(parser));
        }
        match self {
            Self::Live(parser) => parser,
            Self::Blank { .. } => unreachable!("made live above"),
        }
    }

    /// The vt100 screen; a blank grid answers from a temporary one (reads of a pane that never
    /// printed are rare, and this keeps their answers identical to vt100's).
    fn with_screen<R>(&self, f: impl FnOnce(&vt100::Screen) -> R) -> R {
        match self {
            Self::Live(parser) => f(parser.screen()),
            Self::Blank { cols, rows, .. } => {
                f(vt100::Parser::new(non_zero(*rows), non_zero(*cols), 0).screen())
            }
        }
    }
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

fn non_zero(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN)
}

impl Screen {
    /// A blank screen of `cols`×`rows` (0 is taken as 1) with the default history bounds.
    pub fn new(cols: u16, rows: u16) -> Self {
        Self::with_history_limits(cols, rows, HistoryLimits::default())
    }

    /// A blank screen with explicit history bounds.
    pub fn with_history_limits(cols: u16, rows: u16, limits: HistoryLimits) -> Self {
        Self {
            grid: Grid::Blank {
                cols: cols.max(1),
                rows: rows.max(1),
                capture: Capture::new(limits),
            },
            osc_limit: OscLimit::new(),
        }
    }

    /// Applies a chunk of the program's output.
    pub fn feed(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let parser = self.grid.live();
        self.osc_limit.filter(bytes, |slice| parser.process(slice));
    }

    /// Changes the size (0 is taken as 1). Rows pushed off the top by a shrink go to history.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        // vt100 remembers how many rows *would* be in its scrollback and, on a grow, inserts that
        // many blank rows at the top to mimic pulling scrollback back in. Our scrollback lives in
        // `History`, so those rows would be fake, and a later shrink would push them into history
        // as blank lines. Forgetting the count makes a grow add rows at the bottom instead.
        match &mut self.grid {
            Grid::Blank {
                cols: c, rows: r, ..
            } => (*c, *r) = (cols.max(1), rows.max(1)),
            Grid::Live(parser) => {
                parser.screen_mut().clear_scrollback();
                parser.set_size(non_zero(rows), non_zero(cols));
            }
        }
    }

    /// Current size as `(cols, rows)`.
    pub fn size(&self) -> (u16, u16) {
        match &self.grid {
            Grid::Blank { cols, rows, .. } => (*cols, *rows),
            Grid::Live(parser) => {
                let (rows, cols) = parser.screen().size();
                (cols.get(), rows.get())
            }
        }
    }

    /// The last title set by OSC 0/1/2 (sanitized), if any.
    pub fn title(&self) -> Option<&str> {
        self.grid.capture().title.as_deref()
    }

    /// Whether a full-screen program has switched to the alternate screen.
    pub fn alternate_screen(&self) -> bool {
        match &self.grid {
            Grid::Blank { .. } => false,
            Grid::Live(parser) => parser.screen().alternate_screen(),
        }
    }

    /// Cursor position as `(row, col)`, 0-based.
    pub fn cursor_position(&self) -> (u16, u16) {
        match &self.grid {
            Grid::Blank { .. } => (0, 0),
            Grid::Live(parser) => parser.screen().cursor_position(),
        }
    }

    /// The visible rows joined by `\n`, trailing blanks of each row and trailing blank rows
    /// removed; with `keep_ansi`, styled with SGR sequences.
    pub fn contents(&self, keep_ansi: bool) -> String {
        self.visible_rows(keep_ansi, Trailing::Trim).join("\n")
    }

    /// The last `last_n` lines of history followed by the screen rows (trailing blank rows below
    /// the cursor left out), oldest first; with `keep_ansi`, each line is self-contained SGR text.
    pub fn scrollback(&self, last_n: usize, keep_ansi: bool) -> Vec<String> {
        let mut rows = self.visible_rows(keep_ansi, Trailing::KeepToCursor);
        if rows.len() >= last_n {
            return rows.split_off(rows.len() - last_n);
        }
        let mut lines = self.history().last_lines(last_n - rows.len(), keep_ansi);
        lines.append(&mut rows);
        lines
    }

    /// The pane's history (lines that scrolled off the main screen).
    pub fn history(&self) -> &History {
        &self.grid.capture().history
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
        self.grid
            .with_screen(|screen| snapshot_of(screen, cols, rows))
    }

    fn visible_rows(&self, keep_ansi: bool, trailing: Trailing) -> Vec<String> {
        let (_, rows) = self.size();
        self.grid
            .with_screen(|screen| visible_rows_of(screen, rows, keep_ansi, trailing))
    }

    /// The vt100 screen, for tests that inspect cells of a screen that has been fed.
    #[cfg(test)]
    pub(crate) fn vt(&self) -> &vt100::Screen {
        match &self.grid {
            Grid::Live(parser) => parser.screen(),
            Grid::Blank { .. } => panic!("the screen has not been fed yet"),
        }
    }
}

fn snapshot_of(screen: &vt100::Screen, cols: u16, rows: u16) -> ScreenSnapshot {
    let mut repaint = String::new();
    if screen.alternate_screen() {
        // Paint the main screen first, then switch, so that the client shows the right
        // thing when the program leaves the alternate screen. vt100 only renders the active
        // grid, so leave the alternate screen on a scratch copy to render the main one; the
        // exit restores the cursor saved on entry, which the client's own `?1049h` will save.
        let mut main = vt100::Parser::new(non_zero(rows), non_zero(cols), 0);
        *main.screen_mut() = screen.clone();
        main.process(b"\x1b[?1049l");
        repaint.push_str(&main.screen().contents_formatted());
        repaint.push_str("\x1b[?1049h");
    }
    repaint.push_str(&screen.contents_formatted());
    repaint.push_str(&screen.input_mode_formatted());
    let (cursor_row, cursor_col) = screen.cursor_position();
    ScreenSnapshot {
        repaint: repaint.into_bytes(),
        cursor_row,
        cursor_col,
        cursor_visible: !screen.hide_cursor(),
        cols,
        rows,
    }
}

fn visible_rows_of(
    screen: &vt100::Screen,
    rows: u16,
    keep_ansi: bool,
    trailing: Trailing,
) -> Vec<String> {
    let mut out: Vec<String> = (0..rows)
        .map(|row| {
            let mut line = String::new();
            write_row(screen, row, keep_ansi, &mut line);
            line
        })
        .collect();
    let keep = match trailing {
        Trailing::Trim => 0,
        Trailing::KeepToCursor => usize::from(screen.cursor_position().0) + 1,
    };
    while out.len() > keep && out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
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
