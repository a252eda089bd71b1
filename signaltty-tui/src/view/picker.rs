//! The picker overlay ([`crate::picker`]): a box over the middle of the screen, the filter on
//! top, then the tree — workspaces, tabs, panes with their glyphs — the highlighted row
//! reversed, scrolled to keep it in view.

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use super::boxes::{boxed, text_field};
use super::put;
use crate::app::Picker;
use crate::app::{App, Row};
use crate::picker::rows;

/// Draws the picker.
pub fn draw(app: &App, picker: &Picker, buf: &mut Buffer) {
    let shown = rows(app, picker);
    let area = buf.area;
    let height = u16::try_from(shown.len() + 3)
        .unwrap_or(u16::MAX)
        .clamp(5, area.height.saturating_sub(2).max(5));
    let inner = boxed(buf, "choose — type to filter, ↑↓ Enter, Esc", 70, height);
    put(buf, inner.x, inner.y, "/", 1, Style::default());
    text_field(
        buf,
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(1),
        &picker.filter,
        true,
    );
    let visible = usize::from(inner.height.saturating_sub(1));
    let first = picker.selected.saturating_sub(visible.saturating_sub(1));
    if shown.is_empty() {
        put(
            buf,
            inner.x,
            inner.y + 1,
            "no match",
            inner.width,
            Style::default(),
        );
    }
    for (i, (row, depth, text)) in shown.iter().enumerate().skip(first).take(visible) {
        let y = inner.y + 1 + u16::try_from(i - first).unwrap_or(0);
        let mut style = Style::default();
        if matches!(row, Row::Workspace(_)) {
            style = style.add_modifier(Modifier::BOLD);
        }
        if i == picker.selected {
            style = style.add_modifier(Modifier::REVERSED);
        }
        let indent = "  ".repeat(usize::from(*depth));
        put(
            buf,
            inner.x,
            y,
            &format!("{indent}{text}"),
            inner.width,
            style,
        );
    }
}
