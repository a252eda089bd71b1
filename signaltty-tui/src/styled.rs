//! Scrollback lines as the server sends them with `keep_ansi` (each line self-contained: SGR
//! sequences only, starting from default attributes) turned into styled runs for the scroll
//! view, parsed by the project's own terminal model so colours mean exactly what they mean on
//! the live pane. The plain text of each line comes from the same cells, so a search matches
//! what is drawn.

use ratatui::text::Span;
use signaltty_term::Screen;
use signaltty_term::vt::Style;

/// Widest line parsed, in cells; the rest of a longer line is cut (the view has no horizontal
/// scrolling, and no terminal is this wide).
const MAX_WIDTH: u16 = 1024;

/// A line as runs of text sharing a style, left to right.
pub type StyledLine = Vec<(String, Style)>;

/// Parses capture lines into (plain text, styled runs) per line; trailing blanks dropped.
pub fn parse(lines: &[String]) -> (Vec<String>, Vec<StyledLine>) {
    let widest = lines
        .iter()
        .map(|l| Span::raw(signaltty_term::strip(l)).width())
        .max()
        .unwrap_or(1);
    let width = u16::try_from(widest)
        .unwrap_or(MAX_WIDTH)
        .clamp(1, MAX_WIDTH);
    // One row, no autowrap: a line can never scroll, whatever its content.
    let mut model = Screen::new(width, 1);
    model.feed(b"\x1b[?7l");
    let mut plain = Vec::with_capacity(lines.len());
    let mut styled = Vec::with_capacity(lines.len());
    for line in lines {
        model.feed(b"\x1b[m\x1b[H\x1b[2K");
        model.feed(line.as_bytes());
        model.take_replies();
        let runs = runs(&model, width);
        plain.push(runs.iter().map(|(t, _)| t.as_str()).collect::<String>());
        styled.push(runs);
    }
    (plain, styled)
}

/// Row 0 of `model` as runs, without trailing default-styled blanks.
fn runs(model: &Screen, width: u16) -> StyledLine {
    let Some(row) = model.view().row(0) else {
        return Vec::new();
    };
    // The last cell worth keeping: not blank, or blank on a coloured background.
    let blank_bg = Style::default().bg();
    let end = (0..width)
        .rev()
        .find(|&col| {
            let cell = row.cell(col);
            !(cell.ch() == ' ' && cell.style().bg() == blank_bg) || row.marks(col).next().is_some()
        })
        .map_or(0, |col| col + 1);
    let mut out: StyledLine = Vec::new();
    for col in 0..end {
        let cell = row.cell(col);
        if cell.is_wide_continuation() {
            continue;
        }
        let style = cell.style();
        if out.last().is_none_or(|(_, s)| *s != style) {
            out.push((String::new(), style));
        }
        if let Some((run, _)) = out.last_mut() {
            run.push(cell.ch());
            run.extend(row.marks(col));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use signaltty_term::vt::{Attr, Color};

    #[test]
    fn colours_and_text_come_from_the_terminal_model() {
        let lines = vec![
            "\x1b[0;1;31merror\x1b[m: build failed".to_owned(),
            "plain".to_owned(),
            "\x1b[0;38;5;208m橙色\x1b[m ok  ".to_owned(),
            String::new(),
        ];
        let (plain, styled) = parse(&lines);
        assert_eq!(plain, ["error: build failed", "plain", "橙色 ok", ""]);
        let (text, style) = &styled[0][0];
        assert_eq!(text, "error");
        assert!(style.has(Attr::Bold));
        assert_eq!(style.fg(), Color::Idx(1));
        assert_eq!(styled[0][1].0, ": build failed");
        assert_eq!(styled[0][1].1, Style::default());
        assert_eq!(styled[2][0].0, "橙色");
        assert_eq!(styled[2][0].1.fg(), Color::Idx(208));
        assert!(styled[3].is_empty());
    }

    #[test]
    fn a_line_cannot_move_the_model_or_leak_its_style() {
        // Cursor motion, a newline and an unterminated style in one line stay in that line.
        let lines = vec![
            "\x1b[41mred bg\r\nnext\x1b[5A".to_owned(),
            "clean".to_owned(),
        ];
        let (plain, styled) = parse(&lines);
        assert_eq!(plain[1], "clean");
        assert_eq!(styled[1], vec![("clean".to_owned(), Style::default())]);
    }
}
