//! A frame's changed cells to bytes, through `signaltty_term::drawn` — the writer the server's
//! painter uses for the focused pane's echoes — instead of ratatui's crossterm backend, so that
//! the two writers of this terminal cannot draw the same cell two ways (the contract, and its
//! test, are in `signaltty_term::drawn` and `tests` below).
//!
//! A ratatui cell's style becomes the model's style it came from ([`vt_style`], the inverse of
//! `view::panes::style_of`); the TUI's own colours (named ones) become the indexed colours
//! crossterm writes for them (`38;5;n`).

use std::io::{self, Write};

use ratatui::buffer::Cell;
use ratatui::style::{Color, Modifier};
use signaltty_term::drawn::CellWriter;
use signaltty_term::vt::{Attr, Color as VtColor, Style as VtStyle};

/// Writes `cells` (a buffer diff: column, row, cell) to `out` in one write, through `scratch`.
pub fn draw<'a>(
    out: &mut impl Write,
    cells: impl Iterator<Item = (u16, u16, &'a Cell)>,
    scratch: &mut Vec<u8>,
) -> io::Result<()> {
    scratch.clear();
    let mut writer = CellWriter::default();
    for (x, y, cell) in cells {
        writer.cell(x, y, vt_style(cell), cell.symbol(), scratch);
    }
    writer.finish(scratch);
    out.write_all(scratch)
}

/// The model style a ratatui cell shows.
pub fn vt_style(cell: &Cell) -> VtStyle {
    let mut style = VtStyle::default();
    style.set_fg(vt_color(cell.fg));
    style.set_bg(vt_color(cell.bg));
    for (attr, modifier) in MODIFIERS {
        if cell.modifier.contains(modifier) {
            style.set(attr, true);
        }
    }
    // The one modifier with no attribute of its own (the TUI does not use it).
    if cell.modifier.contains(Modifier::RAPID_BLINK) {
        style.set(Attr::Blink, true);
    }
    style
}

/// The model's attributes and the ratatui modifiers they are drawn with, both ways
/// (`view::panes::style_of` and [`vt_style`]).
pub const MODIFIERS: [(Attr, Modifier); 8] = [
    (Attr::Bold, Modifier::BOLD),
    (Attr::Dim, Modifier::DIM),
    (Attr::Italic, Modifier::ITALIC),
    (Attr::Underline, Modifier::UNDERLINED),
    (Attr::Blink, Modifier::SLOW_BLINK),
    (Attr::Inverse, Modifier::REVERSED),
    (Attr::Hidden, Modifier::HIDDEN),
    (Attr::Strikethrough, Modifier::CROSSED_OUT),
];

fn vt_color(color: Color) -> VtColor {
    let index = match color {
        Color::Reset => return VtColor::Default,
        Color::Indexed(i) => i,
        Color::Rgb(r, g, b) => return VtColor::Rgb(r, g, b),
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
    };
    VtColor::Idx(index)
}

#[cfg(test)]
mod tests {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use signaltty_term::Screen;
    use signaltty_term::drawn::{CellWriter, write_span};

    /// The cell-styling contract between the TUI and the server's painter: a model row drawn
    /// by the TUI (model → ratatui cells by the view → bytes here) and painted by the server
    /// (`write_span`, what `signaltty-server/src/pane/paint.rs` writes) are the same bytes.
    #[test]
    fn the_server_paints_a_row_with_the_bytes_the_tui_draws_it_with() {
        let (cols, rows) = (24u16, 4u16);
        let mut screen = Screen::new(cols, rows);
        screen.feed(
            "plain \x1b[1;31mbold red\x1b[0;3;4:3;53;38;2;1;2;3;58;5;9mcurly\x1b[m\r\n\
             \x1b[7;38;5;200;48;5;17minverse\x1b[m 日本 e\u{301}\x1b[2;5;8;9mdim\r\n\
             \x1b[44m\x1b[K\x1b[mab\x1b[10Gc\r\n\
             \x1b[97;100mbright\x1b[m"
                .as_bytes(),
        );
        let term = screen.view();
        // Where the pane is on the screen.
        let (x0, y0) = (3u16, 2u16);
        let area = Rect::new(0, 0, x0 + cols + 2, y0 + rows + 1);

        let mut server = Vec::new();
        let mut writer = CellWriter::default();
        for (y, row) in term.rows().enumerate() {
            let y = y0 + u16::try_from(y).expect("row");
            write_span(row, 0..cols, x0, y, &mut writer, &mut server);
        }
        writer.finish(&mut server);

        // The TUI: what the terminal showed before is unknown (every cell differs), then the
        // view's copy of the model rows.
        let mut before = Buffer::empty(area);
        for cell in &mut before.content {
            cell.set_symbol("\u{f8ff}");
        }
        let mut after = Buffer::empty(area);
        let pane = crate::geometry::Rect {
            x: x0,
            y: y0,
            width: cols,
            height: rows,
        };
        crate::view::copy_rows(term, pane, &mut after);
        let mut tui = Vec::new();
        let diff = before
            .diff_iter(&after)
            .filter(|(x, y, _)| (x0..x0 + cols).contains(x) && (y0..y0 + rows).contains(y));
        super::draw(&mut tui, diff, &mut Vec::new()).expect("draw");

        assert_eq!(
            String::from_utf8_lossy(&tui),
            String::from_utf8_lossy(&server)
        );
        assert!(
            server.windows(4).any(|w| w == b";1;3"),
            "styles were written"
        );
    }
}
