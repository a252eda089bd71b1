//! What the overlays draw with: a centred bordered box and a one-row text field. Apart from
//! `overlays.rs` (which dispatches to every overlay's file) so those files need not import it back.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect as TuiRect;
use ratatui::style::{Color, Style};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use super::put;
use crate::app::Field;

/// A centred bordered box; returns its inside.
pub(super) fn boxed(buf: &mut Buffer, title: &str, width: u16, height: u16) -> TuiRect {
    let area = buf.area;
    let width = width.min(area.width);
    let height = height.min(area.height);
    let rect = TuiRect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    Clear.render(rect, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" {title} "))
        .border_style(Style::default().fg(Color::Cyan));
    let inner = block.inner(rect);
    block.render(rect, buf);
    TuiRect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(2),
        inner.height,
    )
}

/// A text field on one row, the end of a long value shown, a cursor when `active`.
pub(super) fn text_field(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    width: u16,
    field: &Field,
    active: bool,
) {
    let style = if active {
        Style::default().bg(Color::DarkGray).fg(Color::White)
    } else {
        Style::default().fg(Color::Gray)
    };
    buf.set_style(TuiRect::new(x, y, width, 1), style);
    let shown = if active {
        format!("{}▏", field.text)
    } else {
        field.text.clone()
    };
    // Show the end of a long value.
    let skip = shown.chars().count().saturating_sub(usize::from(width));
    let shown: String = shown.chars().skip(skip).collect();
    put(buf, x, y, &shown, width, style);
}
