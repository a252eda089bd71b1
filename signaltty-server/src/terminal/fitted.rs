//! A handed-over terminal of another size than its pane (several clients on one pane, sized by
//! `[server] window_size`): the pane's output cannot go through as it is — its lines would wrap
//! at the terminal's width and scroll at its height, not the pane's. Instead the session draws
//! frames from the pane's screen, as tmux does: the pane's top-left part that fits, the unused
//! area of a larger terminal filled with `·`, the cursor where the pane has it. A frame is one
//! write wrapped in synchronized output, so the terminal never shows half of one.

use signaltty_tty::protocol::Rect;

use crate::pane::paint::{Span, render};
use crate::term::vt::Term;

/// What fills a cell the pane does not reach (tmux's mark).
pub const MARK: char = '·';

/// Appends a whole frame of `term` for a terminal of `size` (columns, rows) to `out`.
pub fn frame(term: &Term, size: (u16, u16), out: &mut Vec<u8>) {
    let (cols, rows) = size;
    let (pane_cols, pane_rows) = term.size();
    let (shown_cols, shown_rows) = (pane_cols.min(cols), pane_rows.min(rows));
    // Begin synchronized output, hide the cursor, a fresh screen.
    out.extend_from_slice(b"\x1b[?2026h\x1b[?25l\x1b[m\x1b[H\x1b[2J");
    let spans: Vec<Span> = (0..shown_rows)
        .map(|row| Span {
            row,
            start: 0,
            end: visible_end(term, row, shown_cols),
        })
        .collect();
    let at = Rect {
        col: 0,
        row: 0,
        cols: shown_cols,
        rows: shown_rows,
    };
    render(term, &spans, at, out);
    let mut marks = String::from("\x1b[90m");
    for row in 0..rows {
        let from = if row < pane_rows { pane_cols } else { 0 };
        if from < cols {
            marks.push_str(&format!("\x1b[{};{}H", row + 1, from + 1));
            marks.extend(std::iter::repeat_n(MARK, usize::from(cols - from)));
        }
    }
    marks.push_str("\x1b[m");
    out.extend_from_slice(marks.as_bytes());
    let (row, col) = term.cursor();
    let col = col.min(pane_cols.saturating_sub(1));
    if row < rows && col < cols {
        out.extend_from_slice(format!("\x1b[{};{}H", row + 1, col + 1).as_bytes());
        if term.modes().cursor_visible {
            out.extend_from_slice(b"\x1b[?25h");
        }
    }
    out.extend_from_slice(b"\x1b[?2026l");
}

/// The end of row `row`'s part that fits in `width` columns, short of a double-width character
/// the edge would cut (it would spill past the edge).
fn visible_end(term: &Term, row: u16, width: u16) -> u16 {
    match term.row(row) {
        Some(r) if width > 0 && r.cell(width).is_wide_continuation() => width - 1,
        _ => width,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Screen;

    /// What a terminal of `size` shows after `frame` of a pane that printed `output`.
    fn shown(pane: (u16, u16), output: &[u8], size: (u16, u16)) -> (Vec<String>, (u16, u16)) {
        let mut screen = Screen::new(pane.0, pane.1);
        screen.feed(output);
        let mut out = Vec::new();
        frame(screen.view(), size, &mut out);
        let mut terminal = Screen::new(size.0, size.1);
        terminal.feed(&out);
        let text = terminal.contents(false);
        let rows = text.split('\n').map(str::to_owned).collect();
        (rows, terminal.cursor_position())
    }

    #[test]
    fn a_larger_terminal_shows_the_pane_top_left_and_marks_the_rest() {
        let (rows, cursor) = shown((4, 2), b"ab\r\ncd", (6, 3));
        assert_eq!(rows[0], "ab  ··");
        assert_eq!(rows[1], "cd  ··");
        assert_eq!(rows[2], "······");
        assert_eq!(cursor, (1, 2), "the cursor where the pane has it");
    }

    #[test]
    fn a_smaller_terminal_shows_the_pane_top_left_part_only() {
        let (rows, _) = shown((6, 3), b"abcdef\r\nghijkl\r\nmnopqr", (4, 2));
        assert_eq!(&rows[..2], ["abcd", "ghij"]);
        assert!(!rows.concat().contains(MARK));
    }
}
