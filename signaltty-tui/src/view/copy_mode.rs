//! Copy mode drawn in the pane's place: the history lines from `top` with their colours, the
//! selection in reverse video, every match of the last search in yellow (the one under the
//! cursor in a brighter colour), the cursor as a reversed cell, tmux's `[line/lines]` position
//! at the right of the pane's title row, and the search prompt in the status line.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use unicode_width::UnicodeWidthChar;

use super::put;
use crate::app::App;
use crate::copy_mode::{CopyMode, Dir, Point, matches};

/// Draws copy mode over its pane (nothing when the pane is not on screen).
pub fn draw(app: &App, mode: &CopyMode, buf: &mut Buffer) {
    let Some(area) = crate::copy_mode::area(app, &mode.pane_id) else {
        return;
    };
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            if let Some(cell) = buf.cell_mut((x, y)) {
                cell.reset();
            }
        }
    }
    let title_y = area.y.saturating_sub(1);
    let marker = if mode.loaded {
        format!(
            "[copy {}/{}]",
            mode.cursor.line + 1,
            mode.lines.len().max(1)
        )
    } else {
        "[copy: loading…]".to_owned()
    };
    let width = u16::try_from(marker.chars().count()).unwrap_or(u16::MAX);
    if area.width > width {
        put(
            buf,
            area.x + area.width - width,
            title_y,
            &marker,
            width,
            Style::default().bg(Color::Yellow).fg(Color::Black),
        );
    }
    let needle = mode.search.as_ref().map_or("", |(s, _)| s.as_str());
    for row in 0..area.height {
        let line = mode.top + usize::from(row);
        let Some(runs) = mode.styled.get(line) else {
            break;
        };
        let plain = mode.lines.get(line).map_or("", String::as_str);
        let hits = matches(plain, needle);
        let y = area.y + row;
        let mut x = area.x;
        let mut col = 0usize;
        for (text, style) in runs {
            for c in text.chars() {
                let w = u16::try_from(c.width().unwrap_or(0)).unwrap_or(1);
                if w == 0 {
                    continue;
                }
                if x + w > area.x + area.width {
                    break;
                }
                let p = Point { line, col };
                let style = cell_style(mode, p, &hits, super::panes::style_of(*style));
                if let Some(cell) = buf.cell_mut((x, y)) {
                    cell.set_char(c).set_style(style);
                }
                x += w;
                col += 1;
            }
        }
        // The selection and the cursor show past a line's end too (an empty line, a block).
        while x < area.x + area.width {
            let p = Point { line, col };
            let base = Style::default();
            let style = cell_style(mode, p, &[], base);
            if style != base
                && let Some(cell) = buf.cell_mut((x, y))
            {
                cell.set_char(' ').set_style(style);
            }
            x += 1;
            col += 1;
        }
    }
    if let Some((dir, field)) = &mode.prompt {
        let status = crate::regions::regions(app).status;
        for x in status.x..status.x + status.width {
            if let Some(cell) = buf.cell_mut((x, status.y)) {
                cell.reset();
            }
        }
        let head = match dir {
            Dir::Forward => "search down: ",
            Dir::Backward => "search up: ",
        };
        let used = put(
            buf,
            status.x,
            status.y,
            head,
            status.width,
            Style::default(),
        );
        let text = format!("{}▏", field.text);
        put(
            buf,
            status.x + used,
            status.y,
            &text,
            status.width.saturating_sub(used),
            Style::default().add_modifier(Modifier::BOLD),
        );
    }
}

fn cell_style(mode: &CopyMode, p: Point, hits: &[(usize, usize)], base: Style) -> Style {
    if p == mode.cursor {
        return Style::default()
            .bg(Color::White)
            .fg(Color::Black)
            .add_modifier(Modifier::BOLD);
    }
    if mode.selected(p) {
        return base.add_modifier(Modifier::REVERSED);
    }
    let in_hit = hits.iter().find(|(c, n)| p.col >= *c && p.col < c + n);
    match in_hit {
        Some((c, _)) if mode.cursor.line == p.line && mode.cursor.col == *c => {
            Style::default().bg(Color::LightYellow).fg(Color::Black)
        }
        Some(_) => Style::default().bg(Color::Yellow).fg(Color::Black),
        None => base,
    }
}
