//! Turning screen rows into capture text: one row as plain text or as self-contained SGR-styled
//! text, and stripping SGR back out of stored lines.
//!
//! Styled rows follow the same contract as history lines: they start from default attributes,
//! contain no escape sequence other than SGR, and end with a reset when they set anything. That
//! is what lets a capture mix history lines and screen rows freely.

use std::fmt::Write as _;

use super::vt::{Attr, Color, Row, Style, UnderlineStyle};

/// Writes one SGR sequence that sets exactly `style` from any previous state. Underline shapes
/// other than single and the underline colour use the `:` forms (`4:3`, `58:2::r:g:b`), the
/// ones terminals that draw them understand; others ignore the sub-parameters.
pub(super) fn write_sgr(style: Style, out: &mut String) {
    if style.is_default() {
        out.push_str("\x1b[m");
        return;
    }
    out.push_str("\x1b[0");
    for attr in Attr::ALL {
        if style.has(attr) {
            out.push(';');
            out.push_str(attr.sgr_code());
            let shape = style.underline_style();
            if attr == Attr::Underline && shape != UnderlineStyle::Single {
                let _ = write!(out, ":{}", shape.sgr_number());
            }
        }
    }
    write_color(out, style.fg(), 30);
    write_color(out, style.bg(), 40);
    match style.underline_color() {
        Color::Default => {}
        Color::Idx(i) => {
            let _ = write!(out, ";58:5:{i}");
        }
        Color::Rgb(r, g, b) => {
            let _ = write!(out, ";58:2::{r}:{g}:{b}");
        }
    }
    out.push('m');
}

fn write_color(out: &mut String, color: Color, base: u8) {
    // Writing to a String cannot fail.
    let _ = match color {
        Color::Default => Ok(()),
        Color::Idx(i) if i < 8 => write!(out, ";{}", base + i),
        Color::Idx(i) if i < 16 => write!(out, ";{}", base + 60 + (i - 8)),
        Color::Idx(i) => write!(out, ";{};5;{i}", base + 8),
        Color::Rgb(r, g, b) => write!(out, ";{};2;{r};{g};{b}", base + 8),
    };
}

/// How a run of blank cells inside a row is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BlankRun {
    /// As spaces: captures and history are text.
    Spaces,
    /// Runs of four or more as a cursor move (`CSI n C`), shorter ones as spaces: repaints draw
    /// on a cleared screen, so skipping is exact and shorter for indentation and gaps, while
    /// the spaces between words stay spaces (clients and tests search repaints for text).
    CursorForward,
}

/// Appends `row` to `out`, trailing blank cells trimmed; with `keep_ansi`, styled as SGR
/// sequences under the contract in the module doc.
pub(super) fn write_row(row: &Row, keep_ansi: bool, out: &mut String) {
    write_cells(row, keep_ansi, BlankRun::Spaces, out);
}

/// [`write_row`] with a choice of how blank runs are written; returns the columns written.
pub(super) fn write_cells(row: &Row, keep_ansi: bool, blanks: BlankRun, out: &mut String) -> usize {
    if blanks == BlankRun::Spaces && !row.has_marks() && row.cells().iter().all(|c| c.is_plain()) {
        // Uncoloured text (most history): the characters up to the last non-blank, as they are.
        let len = row.trimmed_len();
        out.extend(row.cells()[..len].iter().map(|c| c.ch()));
        return len;
    }
    let default = Style::default();
    let mut current = default;
    // Blank default cells are held back so trailing ones can be dropped.
    let mut pending_blanks = 0usize;
    let mut written = 0;
    let marks = row.has_marks();
    for (col, cell) in row.cells().iter().enumerate() {
        if cell.is_wide_continuation() {
            continue;
        }
        let style = if marks {
            // Columns fit in u16: rows are never wider than the screen.
            row.style(col as u16)
        } else {
            cell.style()
        };
        // A printed space is as blank as an untouched cell unless its colours show.
        if cell.ch() == ' '
            && (style == default || !keep_ansi)
            && !(marks && row.marks(col as u16).next().is_some())
        {
            pending_blanks += 1;
            continue;
        }
        if pending_blanks > 0 {
            if keep_ansi && current != default {
                out.push_str("\x1b[m");
                current = default;
            }
            match blanks {
                BlankRun::CursorForward if pending_blanks >= 4 => {
                    let _ = write!(out, "\x1b[{pending_blanks}C");
                }
                BlankRun::Spaces | BlankRun::CursorForward => {
                    out.extend(std::iter::repeat_n(' ', pending_blanks));
                }
            }
            pending_blanks = 0;
        }
        if keep_ansi && style != current {
            write_sgr(style, out);
            current = style;
        }
        out.push(cell.ch());
        if marks {
            // Columns fit in u16: rows are never wider than the screen.
            out.extend(row.marks(col as u16));
        }
        written = col + if cell.is_wide() { 2 } else { 1 };
    }
    if keep_ansi && current != default {
        out.push_str("\x1b[m");
    }
    written
}

/// Removes every CSI sequence (stored lines only ever contain SGR) from `line`.
pub(super) fn strip_sgr(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        let seq = &rest[at + 1..];
        rest = match seq.strip_prefix('[') {
            Some(params) => match params.find(|c: char| ('\x40'..='\x7e').contains(&c)) {
                Some(end) => &params[end + 1..],
                None => "",
            },
            // A bare ESC is dropped; what follows is kept.
            None => seq,
        };
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::super::vt::{Sink, Term};
    use super::*;

    struct Discard;
    impl Sink for Discard {
        fn scrolled_off(&mut self, _: &Row, _: u16, _: crate::vt::LinePart) {}
        fn title(&mut self, _: &[u8]) {}
        fn clear_history(&mut self) {}
    }

    fn screen_of(bytes: &[u8]) -> Term {
        let mut term = Term::new(20, 3);
        term.process(bytes, &mut Discard);
        term
    }

    fn row(term: &Term, row: u16, keep_ansi: bool) -> String {
        let mut out = String::new();
        write_row(term.row(row).expect("row on screen"), keep_ansi, &mut out);
        out
    }

    #[test]
    fn plain_rows_trim_trailing_blanks() {
        let p = screen_of(b"ab  cd   \r\n\r\n  x");
        assert_eq!(row(&p, 0, false), "ab  cd");
        assert_eq!(row(&p, 1, false), "");
        assert_eq!(row(&p, 2, false), "  x");
    }

    #[test]
    fn styled_rows_are_self_contained() {
        let p = screen_of(b"\x1b[1;31mred\x1b[0m plain \x1b[38;5;200;48;2;1;2;3mX\x1b[m");
        let styled = row(&p, 0, true);
        assert_eq!(
            styled,
            "\x1b[0;1;31mred\x1b[m plain \x1b[0;38;5;200;48;2;1;2;3mX\x1b[m"
        );
        assert_eq!(strip_sgr(&styled), "red plain X");
        // Replaying the styled row in a fresh terminal gives the same cells.
        let q = screen_of(styled.as_bytes());
        for col in 0..20 {
            assert_eq!(p.cell(0, col), q.cell(0, col), "col {col}");
        }
    }

    #[test]
    fn coloured_blanks_are_kept_only_with_ansi() {
        let p = screen_of(b"a\x1b[44m  \x1b[mb");
        assert_eq!(row(&p, 0, true), "a\x1b[0;44m  \x1b[mb");
        assert_eq!(row(&p, 0, false), "a  b");
    }

    #[test]
    fn wide_characters_and_marks_take_one_entry() {
        let p = screen_of("日本x e\u{301}".as_bytes());
        assert_eq!(row(&p, 0, false), "日本x e\u{301}");
    }

    #[test]
    fn strip_handles_odd_input() {
        assert_eq!(strip_sgr("a\x1b[31"), "a");
        assert_eq!(strip_sgr("a\x1bb"), "ab");
        assert_eq!(strip_sgr("\x1b[m\x1b[1;2mz"), "z");
    }
}
