//! The part of a pane's area its program does not use. Another client may size the pane
//! smaller than this TUI shows it (`[server] window_size`): the columns right of the model and
//! the rows below it are filled with `·`, as tmux does, so it is plain where the program's
//! screen ends. A model larger than the area shows its top-left part (nothing to mark).

use crate::geometry::Rect;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Style};

/// What fills a cell the pane does not reach.
pub const MARK: char = '·';

/// Fills the cells of rows `rows` (of `body`, top first) that a model of `model` (columns,
/// rows) does not cover.
pub fn mark(model: (u16, u16), body: Rect, rows: impl IntoIterator<Item = u16>, buf: &mut Buffer) {
    let (cols, model_rows) = model;
    if cols >= body.width && model_rows >= body.height {
        return;
    }
    let style = Style::default().fg(Color::DarkGray);
    for row in rows.into_iter().filter(|&r| r < body.height) {
        let from = if row < model_rows { cols } else { 0 };
        for col in from..body.width {
            if let Some(cell) = buf.cell_mut((body.x + col, body.y + row)) {
                cell.set_char(MARK).set_style(style);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use ratatui::layout::Rect as TuiRect;

    use super::*;

    fn text(buf: &Buffer) -> Vec<String> {
        (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol().to_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn cells_right_of_and_below_a_smaller_model_are_marked() {
        let mut buf = Buffer::empty(TuiRect::new(0, 0, 6, 4));
        let body = Rect {
            x: 1,
            y: 1,
            width: 5,
            height: 3,
        };
        mark((3, 2), body, 0..body.height, &mut buf);
        assert_eq!(text(&buf), ["      ", "    ··", "    ··", " ·····"]);
        // A model as large as the area (or larger) leaves it alone.
        let mut buf = Buffer::empty(TuiRect::new(0, 0, 6, 4));
        mark((5, 9), body, 0..body.height, &mut buf);
        assert!(text(&buf).iter().all(|row| row.trim().is_empty()));
    }
}
