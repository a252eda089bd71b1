//! Server paint (`signaltty_tty::protocol`, `paint`): a client that draws this pane inside a screen of its
//! own (the TUI) gave the server its terminal and the pane's place on it; after each output
//! chunk, still under the model's lock, the changes of the visible screen are written straight
//! into that terminal — the echo's way is then program → server → terminal, as with tmux. The
//! client draws the same cells from its own model a moment later; this is only an early copy.
//!
//! Per grant the pane keeps a copy of the visible rows as last painted (taken at the grant and
//! at each `resume`). A chunk is compared with it row by row (rows first: an unchanged row is
//! one slice comparison), and in a changed row only the span from its first to its last changed
//! column is written. What is not painted but paused (the client told `skipped`, through the
//! grant's task, never blocking the actor): a screen that no longer fits the client's
//! rectangle, more than [`MAX_PAINT_ROWS`] changed rows (a scroll, a redraw — the client's own
//! damage frame is as fast then, and a half-painted scroll would look worse), a chunk over
//! [`MAX_PAINT_CHUNK`] bytes (no compare at all: it almost always changes many rows), or a
//! terminal that is full (`EAGAIN` with nothing written).
//!
//! What a paint looks like: `ESC 7` (DECSC: the client's cursor and pen are saved, so a paint
//! landing between two of the client's writes changes neither), per span `CSI row;col H` and
//! the cells, `CSI m`, `ESC 8` (DECRC), in one non-blocking write. A write the terminal takes
//! only in part leaves a paint cut short (maybe mid-sequence): the grant ends with `damaged`
//! and the client redraws everything. Cells are written by `signaltty_term::drawn`, the writer
//! the TUI's frames use too (a test in the TUI holds the two to the same bytes): a cell painted
//! differently would stay wrong on the terminal until it changed again (the TUI writes only
//! cells that differ from its previous frame).

use std::fs::File;
use std::os::fd::AsFd;

use nix::errno::Errno;
use signaltty_tty::protocol::{Notice, Rect};
use tokio::sync::mpsc;

use signaltty_term::drawn::{CellWriter, write_span};

use crate::term::vt::{Row, Term};

/// Changed rows a paint may cover; more is a scroll or a redraw, left to the client.
pub const MAX_PAINT_ROWS: usize = 4;
/// A chunk longer than this is not compared at all (it is skipped): typed echoes and line
/// edits are a few bytes, output this long nearly always changes many rows.
pub const MAX_PAINT_CHUNK: usize = 4096;

/// Identifies one grant on a pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrantId(u64);

/// One changed run of cells: row `row`, columns `start..end` of the pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub row: u16,
    pub start: u16,
    pub end: u16,
}

/// What a chunk changed, against a grant's copy.
#[derive(Debug, PartialEq, Eq)]
pub enum Diff {
    /// Nothing visible.
    Same,
    /// These spans, top first.
    Spans(Vec<Span>),
    /// Not paintable: the size changed or does not fit, or too many rows changed.
    Skip,
}

/// The visible rows of a screen as last painted.
#[derive(Clone, Debug, Default)]
pub struct ScreenCopy {
    cols: u16,
    rows: Vec<Row>,
}

impl ScreenCopy {
    /// The visible screen of `term` now.
    pub fn of(term: &Term) -> ScreenCopy {
        ScreenCopy {
            cols: term.size().0,
            rows: term.rows().cloned().collect(),
        }
    }

    /// Becomes the visible screen of `term` now, reusing its rows' allocations (a client that
    /// resumes after every frame of a flood makes one of these a frame).
    fn retake(&mut self, term: &Term) {
        self.cols = term.size().0;
        self.rows.truncate(term.rows().len());
        for (i, row) in term.rows().enumerate() {
            match self.rows.get_mut(i) {
                Some(old) => old.clone_from(row),
                None => self.rows.push(row.clone()),
            }
        }
    }

    /// Takes the rows of `spans` from `term` (after they were painted).
    fn update(&mut self, term: &Term, spans: &[Span]) {
        for span in spans {
            if let (Some(old), Some(new)) =
                (self.rows.get_mut(usize::from(span.row)), term.row(span.row))
            {
                old.clone_from(new);
            }
        }
    }
}

/// Compares `term`'s visible screen with `copy`; the spans to paint into `rect`.
pub fn diff(copy: &ScreenCopy, term: &Term, rect: Rect) -> Diff {
    let (cols, rows) = term.size();
    if cols != copy.cols
        || usize::from(rows) != copy.rows.len()
        || cols > rect.cols
        || rows > rect.rows
    {
        return Diff::Skip;
    }
    let mut spans = Vec::new();
    for (y, (old, new)) in copy.rows.iter().zip(term.rows()).enumerate() {
        let Some(span) = changed_span(old, new, cols) else {
            continue;
        };
        if spans.len() == MAX_PAINT_ROWS {
            return Diff::Skip;
        }
        // Rows fit in u16: the screen has at most u16::MAX of them.
        let row = y as u16;
        spans.push(Span { row, ..span });
    }
    if spans.is_empty() {
        Diff::Same
    } else {
        Diff::Spans(spans)
    }
}

/// The columns of `new` that differ from `old`, widened so that a double-width character is
/// written whole.
fn changed_span(old: &Row, new: &Row, cols: u16) -> Option<Span> {
    let (mut start, mut end) = new.changed_columns(old, cols)?;
    if start > 0 && new.cell(start).is_wide_continuation() {
        start -= 1;
    }
    if end < cols && new.cell(end).is_wide_continuation() {
        end += 1;
    }
    Some(Span { row: 0, start, end })
}

/// Appends the paint of `spans` of `term` at `rect` to `out`: saved cursor, each span drawn as
/// the TUI draws those cells (`signaltty_term::drawn`, the writer its frames use too), restored
/// cursor.
pub fn render(term: &Term, spans: &[Span], rect: Rect, out: &mut Vec<u8>) {
    out.extend_from_slice(b"\x1b7");
    let mut cells = CellWriter::default();
    for span in spans {
        if let Some(row) = term.row(span.row) {
            let y = rect.row.saturating_add(span.row);
            write_span(row, span.start..span.end, rect.col, y, &mut cells, out);
        }
    }
    cells.finish(out);
    out.extend_from_slice(b"\x1b8");
}

/// A client's terminal the pane paints into.
pub struct Grant {
    id: GrantId,
    out: File,
    rect: Rect,
    /// The visible rows as last painted (meaningless while paused).
    copy: ScreenCopy,
    /// After a skip, until `resume`.
    paused: bool,
    notices: mpsc::UnboundedSender<Notice>,
}

/// The grants of one pane (usually none; one per TUI showing the pane focused).
#[derive(Default)]
pub struct Grants {
    list: Vec<Grant>,
    next: u64,
    /// The paint being written, kept to reuse its allocation.
    buf: Vec<u8>,
}

impl Grants {
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether a grant paints now (one that is not paused).
    pub fn live(&self) -> bool {
        self.list.iter().any(|g| !g.paused)
    }

    /// Adds a grant painting into `out` (non-blocking) at `rect`, from a copy of `term` now.
    pub fn add(
        &mut self,
        term: &Term,
        out: File,
        rect: Rect,
        notices: mpsc::UnboundedSender<Notice>,
    ) -> GrantId {
        self.next += 1;
        let id = GrantId(self.next);
        self.list.push(Grant {
            id,
            out,
            rect,
            copy: ScreenCopy::of(term),
            paused: false,
            notices,
        });
        id
    }

    /// Takes a fresh copy of `term` for `id` and paints again; false when the grant is gone.
    pub fn resume(&mut self, id: GrantId, term: &Term) -> bool {
        match self.list.iter_mut().find(|g| g.id == id) {
            Some(grant) => {
                grant.copy.retake(term);
                grant.paused = false;
                true
            }
            None => false,
        }
    }

    /// Ends grant `id`: nothing is painted for it after this returns. False when it was gone.
    pub fn remove(&mut self, id: GrantId) -> bool {
        let before = self.list.len();
        self.list.retain(|g| g.id != id);
        self.list.len() != before
    }

    /// After a chunk of `chunk_len` bytes was fed to `term`: paints each active grant.
    pub fn paint(&mut self, term: &Term, chunk_len: usize) {
        let Grants { list, buf, .. } = self;
        list.retain_mut(|grant| {
            if grant.paused {
                return true;
            }
            let copy = &mut grant.copy;
            let spans = if chunk_len > MAX_PAINT_CHUNK {
                Diff::Skip
            } else {
                diff(copy, term, grant.rect)
            };
            let spans = match spans {
                Diff::Same => return true,
                Diff::Skip => return grant.skip(),
                Diff::Spans(spans) => spans,
            };
            buf.clear();
            render(term, &spans, grant.rect, buf);
            match nix::unistd::write(grant.out.as_fd(), buf) {
                Ok(n) if n == buf.len() => {
                    copy.update(term, &spans);
                    true
                }
                // Nothing written: the terminal is full, or its write lock is held by the
                // client's own (blocking) write, or a signal came first.
                Err(Errno::EAGAIN | Errno::EINTR) => grant.skip(),
                // Part of a paint (or a terminal that failed): what it shows is unknown.
                _ => {
                    let _ = grant.notices.send(Notice::Damaged);
                    false
                }
            }
        });
    }
}

impl Grant {
    /// Pauses until `resume` and tells the client; keeps the grant.
    fn skip(&mut self) -> bool {
        self.paused = true;
        let _ = self.notices.send(Notice::Skipped);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Screen;

    const RECT: Rect = Rect {
        col: 7,
        row: 3,
        cols: 20,
        rows: 8,
    };

    fn span(row: u16, start: u16, end: u16) -> Span {
        Span { row, start, end }
    }

    fn screen(bytes: &[u8]) -> Screen {
        let mut screen = Screen::new(10, 6);
        screen.feed(bytes);
        screen
    }

    /// The paint of what `then` changes after `first`.
    fn paint(first: &[u8], then: &[u8], rect: Rect) -> (Diff, Vec<u8>) {
        let mut s = screen(first);
        let copy = ScreenCopy::of(s.view());
        s.feed(then);
        let diff = diff(&copy, s.view(), rect);
        let mut out = Vec::new();
        if let Diff::Spans(spans) = &diff {
            render(s.view(), spans, rect, &mut out);
        }
        (diff, out)
    }

    #[test]
    fn an_echo_paints_its_cell_only() {
        let (diff, out) = paint(b"$ ab", b"c", RECT);
        assert_eq!(diff, Diff::Spans(vec![span(0, 4, 5)]));
        assert_eq!(out, b"\x1b7\x1b[4;12H\x1b[0mc\x1b[m\x1b8");
        // Replayed on a terminal of the outer size, the letter lands at the rect's offset.
        let mut outer = Screen::new(40, 10);
        outer.feed(&out);
        assert_eq!(outer.view().cell_text(3, 7 + 4), "c");
        assert_eq!(outer.view().cursor(), (0, 0), "the cursor is restored");
    }

    #[test]
    fn styles_are_written_as_the_tui_draws_them() {
        let (_, out) = paint(
            b"",
            b"\x1b[1;31ma\x1b[0;4:3;38;2;1;2;3;58;5;9;53mb\x1b[m",
            RECT,
        );
        let text = String::from_utf8(out).expect("utf-8");
        assert!(text.contains("\x1b[0;1;38;5;1ma"), "{text:?}");
        // Curly underline as plain, no overline, no underline colour: ratatui has neither.
        assert!(text.contains("\x1b[0;4;38;2;1;2;3mb"), "{text:?}");
    }

    #[test]
    fn an_erase_paints_blanks_with_their_colour() {
        let (diff, out) = paint(b"abcdef", b"\r\x1b[3C\x1b[44m\x1b[K", RECT);
        assert_eq!(diff, Diff::Spans(vec![span(0, 3, 10)]));
        let text = String::from_utf8(out).expect("utf-8");
        assert!(text.contains("\x1b[0;48;5;4m       \x1b[m"), "{text:?}");
        let (_, out) = paint(b"abcdef", b"\x1b[2D\x1b[K", RECT);
        assert_eq!(out, b"\x1b7\x1b[4;12H\x1b[0m  \x1b[m\x1b8");
    }

    #[test]
    fn wide_characters_and_marks_are_written_whole() {
        let (diff, out) = paint("ab日".as_bytes(), "\x1b[2D本".as_bytes(), RECT);
        assert_eq!(diff, Diff::Spans(vec![span(0, 2, 4)]));
        assert_eq!(out, "\x1b7\x1b[4;10H\x1b[0m本\x1b[m\x1b8".as_bytes());
        let (_, out) = paint(b"e", "\u{301}".as_bytes(), RECT);
        assert_eq!(out, "\x1b7\x1b[4;8H\x1b[0me\u{301}\x1b[m\x1b8".as_bytes());
    }

    #[test]
    fn several_rows_paint_until_too_many() {
        let (diff, _) = paint(b"", b"a\r\nb\r\n\r\nd", RECT);
        assert_eq!(
            diff,
            Diff::Spans(vec![span(0, 0, 1), span(1, 0, 1), span(3, 0, 1),])
        );
        // A scroll changes every row.
        let (diff, _) = paint(b"1\r\n2\r\n3\r\n4\r\n5\r\n6", b"\r\n7", RECT);
        assert_eq!(diff, Diff::Skip);
        let big = Rect { rows: 100, ..RECT };
        let (diff, _) = paint(b"1\r\n2\r\n3\r\n4\r\n5\r\n6", b"\r\n7", big);
        assert_eq!(diff, Diff::Skip, "still a scroll with room to spare");
    }

    #[test]
    fn nothing_visible_is_same_and_a_screen_that_does_not_fit_is_skipped() {
        let (diff, _) = paint(b"ab", b"\x1b[1;1H\x1b]0;title\x07", RECT);
        assert_eq!(diff, Diff::Same);
        let narrow = Rect { cols: 9, ..RECT };
        let (diff, _) = paint(b"", b"x", narrow);
        assert_eq!(diff, Diff::Skip);
        let mut s = screen(b"ab");
        let copy = ScreenCopy::of(s.view());
        s.resize(12, 6);
        s.feed(b"c");
        assert_eq!(
            diff_of(&copy, &s),
            Diff::Skip,
            "a resized screen is skipped"
        );
    }

    #[test]
    fn a_copy_taken_again_equals_a_fresh_one() {
        let mut s = screen(b"one\r\ntwo\r\n\x1b[31mthree");
        let mut copy = ScreenCopy::of(s.view());
        for (cols, rows) in [(10, 3), (14, 8), (14, 8)] {
            s.resize(cols, rows);
            s.feed(b"\r\nmore");
            copy.retake(s.view());
            let fresh = ScreenCopy::of(s.view());
            assert_eq!((copy.cols, &copy.rows), (fresh.cols, &fresh.rows));
            assert_eq!(diff(&copy, s.view(), RECT), Diff::Same);
        }
    }

    fn diff_of(copy: &ScreenCopy, s: &Screen) -> Diff {
        diff(copy, s.view(), RECT)
    }

    /// Not an assertion on time (a loaded machine): prints the cost of the compare and render
    /// of one echo on a full 200×50 screen, for the record (`--nocapture`).
    #[test]
    fn cost_of_one_echo_on_a_full_200x50_screen() {
        let mut s = Screen::new(200, 50);
        for row in 0..49 {
            s.feed(format!("\x1b[{};1H\x1b[3{}m", row + 1, row % 8).as_bytes());
            s.feed(&[b'x'; 200]);
        }
        s.feed(b"\x1b[50;1H\x1b[m$ ");
        let rect = Rect {
            col: 0,
            row: 0,
            cols: 200,
            rows: 50,
        };
        let mut copy = ScreenCopy::of(s.view());
        let mut out = Vec::new();
        // The best of 20 batches: a loaded machine preempts some of them.
        let (mut best_all, mut best_diff) = (std::time::Duration::MAX, std::time::Duration::MAX);
        for _ in 0..20 {
            let rounds = 100;
            let mut in_diff = std::time::Duration::ZERO;
            let started = std::time::Instant::now();
            for i in 0..rounds {
                s.feed(if i % 2 == 0 { b"a" } else { b"\x08 \x08" });
                let diffing = std::time::Instant::now();
                let changed = diff(&copy, s.view(), rect);
                in_diff += diffing.elapsed();
                match changed {
                    Diff::Spans(spans) => {
                        out.clear();
                        render(s.view(), &spans, rect, &mut out);
                        copy.update(s.view(), &spans);
                    }
                    other => panic!("{other:?}"),
                }
            }
            best_all = best_all.min(started.elapsed() / rounds);
            best_diff = best_diff.min(in_diff / rounds);
        }
        eprintln!(
            "per echo on 200x50 (best of 20 batches): feed + diff + render {best_all:?}, of which diff {best_diff:?}"
        );
        // The write itself: one echo's paint into a raw pty whose master a thread drains.
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let mut t = nix::sys::termios::tcgetattr(&pty.slave).expect("tcgetattr");
        nix::sys::termios::cfmakeraw(&mut t);
        nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &t)
            .expect("raw");
        let mut master = File::from(pty.master);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while std::io::Read::read(&mut master, &mut buf).is_ok_and(|n| n > 0) {}
        });
        let mut best_write = std::time::Duration::MAX;
        for _ in 0..20 {
            let started = std::time::Instant::now();
            for _ in 0..100 {
                nix::unistd::write(&pty.slave, &out).expect("write");
            }
            best_write = best_write.min(started.elapsed() / 100);
        }
        eprintln!(
            "writing one paint ({} bytes) to a raw pty: {best_write:?}",
            out.len()
        );
    }
}

#[cfg(test)]
#[path = "paint_tests.rs"]
mod replay_tests;
