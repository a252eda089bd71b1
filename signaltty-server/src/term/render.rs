//! Turning screen rows into capture text: one row as plain text or as self-contained SGR-styled
//! text, and stripping SGR back out of stored lines.
//!
//! Styled rows follow the same contract as history lines: they start from default attributes,
//! contain no escape sequence other than SGR, and end with a reset when they set anything. That
//! is what lets a capture mix history lines and screen rows freely.

use std::fmt::Write as _;

use vt100::{Cell, Color};

/// The drawing attributes of a cell, as far as SGR is concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Style {
    fg: Color,
    bg: Color,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
    inverse: bool,
}

impl Style {
    fn of(cell: &Cell) -> Self {
        Self {
            fg: cell.fgcolor(),
            bg: cell.bgcolor(),
            bold: cell.bold(),
            dim: cell.dim(),
            italic: cell.italic(),
            underline: cell.underline(),
            inverse: cell.inverse(),
        }
    }

    /// Writes one SGR sequence that sets exactly this style from any previous state.
    fn write_sgr(&self, out: &mut String) {
        if *self == Self::default() {
            out.push_str("\x1b[m");
            return;
        }
        out.push_str("\x1b[0");
        for (on, code) in [
            (self.bold, "1"),
            (self.dim, "2"),
            (self.italic, "3"),
            (self.underline, "4"),
            (self.inverse, "7"),
        ] {
            if on {
                out.push(';');
                out.push_str(code);
            }
        }
        write_color(out, self.fg, 30);
        write_color(out, self.bg, 40);
        out.push('m');
    }
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

/// Appends visible row `row` of `screen` to `out`, trailing blank cells trimmed; with
/// `keep_ansi`, styled as SGR sequences under the contract in the module doc.
pub(super) fn write_row(screen: &vt100::Screen, row: u16, keep_ansi: bool, out: &mut String) {
    let (_, cols) = screen.size();
    let default = Style::default();
    let mut current = default;
    // Blank default cells are held back so trailing ones can be dropped.
    let mut pending_blanks = 0usize;
    for col in 0..cols.get() {
        let Some(cell) = screen.cell(row, col) else {
            break;
        };
        if cell.is_wide_continuation() {
            continue;
        }
        let style = Style::of(cell);
        // A printed space is as blank as an untouched cell unless its colours show.
        let blank = !cell.has_contents() || cell.contents() == " ";
        if blank && (style == default || !keep_ansi) {
            pending_blanks += 1;
            continue;
        }
        if pending_blanks > 0 {
            if keep_ansi && current != default {
                out.push_str("\x1b[m");
                current = default;
            }
            out.extend(std::iter::repeat_n(' ', pending_blanks));
            pending_blanks = 0;
        }
        if keep_ansi && style != current {
            style.write_sgr(out);
            current = style;
        }
        if cell.has_contents() {
            out.push_str(cell.contents());
        } else {
            out.push(' ');
        }
    }
    if keep_ansi && current != default {
        out.push_str("\x1b[m");
    }
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
    use super::*;

    fn screen_of(bytes: &[u8]) -> vt100::Parser {
        let mut parser = vt100::Parser::new(
            std::num::NonZeroU16::new(3).expect("non-zero"),
            std::num::NonZeroU16::new(20).expect("non-zero"),
            0,
        );
        parser.process(bytes);
        parser
    }

    fn row(parser: &vt100::Parser, row: u16, keep_ansi: bool) -> String {
        let mut out = String::new();
        write_row(parser.screen(), row, keep_ansi, &mut out);
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
            assert_eq!(
                p.screen().cell(0, col),
                q.screen().cell(0, col),
                "col {col}"
            );
        }
    }

    #[test]
    fn coloured_blanks_are_kept_only_with_ansi() {
        let p = screen_of(b"a\x1b[44m  \x1b[mb");
        assert_eq!(row(&p, 0, true), "a\x1b[0;44m  \x1b[mb");
        assert_eq!(row(&p, 0, false), "a  b");
    }

    #[test]
    fn wide_characters_take_one_entry() {
        let p = screen_of("日本x".as_bytes());
        assert_eq!(row(&p, 0, false), "日本x");
    }

    #[test]
    fn strip_handles_odd_input() {
        assert_eq!(strip_sgr("a\x1b[31"), "a");
        assert_eq!(strip_sgr("a\x1bb"), "ab");
        assert_eq!(strip_sgr("\x1b[m\x1b[1;2mz"), "z");
    }
}
