//! Cells as the TUI draws them: the one writer of styled cells shared by the two processes that
//! write a TUI's terminal — the TUI's renderer (its frames, `signaltty-tui/src/paint.rs`) and
//! the server's painter (the focused pane's echoes, `signaltty-server/src/pane/paint.rs`).
//!
//! The server's paint is an early copy of what the TUI's next frame draws, and the TUI writes
//! only the cells that differ from its previous frame: a cell the two wrote differently would
//! stay wrong until it changed again. So both write through [`CellWriter`], and a test in the
//! TUI (`paint_tests::the_server_paints_a_row_with_the_bytes_the_tui_draws_it_with`) checks
//! that a model row reaching the terminal through the TUI's view (model → ratatui cells →
//! these bytes) is byte for byte what the server's [`write_span`] writes for it.
//!
//! What a TUI can draw is what ratatui's cells hold: the eight attributes below (no overline,
//! every underline shape a plain underline, no underline colour), default, indexed and RGB
//! colours.

use std::io::Write as _;
use std::ops::Range;

use crate::vt::{Attr, Color, Row, Style};

/// The attributes a TUI draws, with their SGR parameters.
pub const ATTRS: [(Attr, &str); 8] = [
    (Attr::Bold, "1"),
    (Attr::Dim, "2"),
    (Attr::Italic, "3"),
    (Attr::Underline, "4"),
    (Attr::Blink, "5"),
    (Attr::Inverse, "7"),
    (Attr::Hidden, "8"),
    (Attr::Strikethrough, "9"),
];

/// Writes cells at screen positions, moving the cursor only where the next cell is not the
/// one after the last, and setting the pen (one SGR with every part of the style, from a
/// reset) only when the style changes.
#[derive(Debug, Default)]
pub struct CellWriter {
    /// Where the last cell was written (the cursor is after it).
    last: Option<(u16, u16)>,
    /// The style the terminal's pen has since our last SGR (`None`: unknown).
    pen: Option<Style>,
}

impl CellWriter {
    /// Writes `text` (one cell's character and its combining marks) with `style` at column
    /// `x`, row `y` of the screen (0-based).
    pub fn cell(&mut self, x: u16, y: u16, style: Style, text: &str, out: &mut Vec<u8>) {
        let next = self
            .last
            .is_some_and(|(lx, ly)| ly == y && lx.checked_add(1) == Some(x));
        if !next {
            // Writing to a Vec cannot fail.
            let _ = write!(out, "\x1b[{};{}H", u32::from(y) + 1, u32::from(x) + 1);
        }
        self.last = Some((x, y));
        if self.pen != Some(style) {
            write_sgr(style, out);
            self.pen = Some(style);
        }
        out.extend_from_slice(text.as_bytes());
    }

    /// Ends the cells: the pen back to the terminal's default if we set it.
    pub fn finish(self, out: &mut Vec<u8>) {
        if self.pen.is_some() {
            out.extend_from_slice(b"\x1b[m");
        }
    }
}

/// Writes columns `cols` of `row` at screen row `y`, its column 0 at screen column `x`, as
/// the TUI draws them: a double-width character's continuation cell is not written (the
/// character covers it), a character's combining marks follow it.
pub fn write_span(
    row: &Row,
    cols: Range<u16>,
    x: u16,
    y: u16,
    w: &mut CellWriter,
    out: &mut Vec<u8>,
) {
    let marks = row.has_marks();
    let mut text = String::new();
    for col in cols {
        let cell = row.cell(col);
        if cell.is_wide_continuation() {
            continue;
        }
        text.clear();
        text.push(cell.ch());
        if marks {
            text.extend(row.marks(col));
        }
        w.cell(x.saturating_add(col), y, cell.style(), &text, out);
    }
}

/// One SGR setting exactly what a TUI's terminal shows for `style`, from any previous pen.
pub fn write_sgr(style: Style, out: &mut Vec<u8>) {
    out.extend_from_slice(b"\x1b[0");
    for (attr, code) in ATTRS {
        if style.has(attr) {
            out.push(b';');
            out.extend_from_slice(code.as_bytes());
        }
    }
    for (color, base) in [(style.fg(), 38), (style.bg(), 48)] {
        // Writing to a Vec cannot fail.
        let _ = match color {
            Color::Default => Ok(()),
            Color::Idx(i) => write!(out, ";{base};5;{i}"),
            Color::Rgb(r, g, b) => write!(out, ";{base};2;{r};{g};{b}"),
        };
    }
    out.push(b'm');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style(f: impl FnOnce(&mut Style)) -> Style {
        let mut s = Style::default();
        f(&mut s);
        s
    }

    #[test]
    fn the_cursor_moves_only_between_runs_and_the_pen_only_on_a_change() {
        let red = style(|s| s.set_fg(Color::Idx(1)));
        let bold_rgb = style(|s| {
            s.set(Attr::Bold, true);
            s.set(Attr::Overline, true);
            s.set_bg(Color::Rgb(1, 2, 3));
        });
        let mut out = Vec::new();
        let mut w = CellWriter::default();
        w.cell(4, 2, red, "a", &mut out);
        w.cell(5, 2, red, "b", &mut out);
        w.cell(6, 2, bold_rgb, "é", &mut out);
        w.cell(0, 3, bold_rgb, "c", &mut out);
        w.finish(&mut out);
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "\x1b[3;5H\x1b[0;38;5;1mab\x1b[0;1;48;2;1;2;3mé\x1b[4;1Hc\x1b[m"
        );
        let mut out = Vec::new();
        CellWriter::default().finish(&mut out);
        assert!(out.is_empty(), "nothing written, nothing to reset");
    }
}
