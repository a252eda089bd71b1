//! Answers to a program's questions about its terminal: device attributes (DA1, DA2), status and
//! cursor position reports (DSR 5, CPR, DECXCPR), the text area's size in characters
//! (XTWINOPS 18), the kitty keyboard flags in force and the terminal's name (XTVERSION).
//!
//! Why the emulator answers rather than the attached client's terminal (tmux does the same):
//! the pane's terminal is this model. A client's terminal knows neither the pane's size nor
//! where the pane's cursor is (a TUI draws the pane inside a split), several clients would each
//! answer, and with none attached a program that waits for an answer — a shell measuring its
//! prompt, an inline TUI asking where its cursor is — would hang. Clients that write Output to a
//! real terminal drop these queries so it does not answer as well.
//!
//! Queries asked about something this model does not track (DECRQM, colours, sizes in pixels)
//! get no answer from it, as from a terminal that does not know them; programs ask DA1 after such a
//! question precisely to learn that, so answering DA1 is what keeps them from waiting.
//!
//! The kitty flag query is answered here although the keys come from the client's terminal:
//! programs ask it followed by DA1 and take "DA1 first" to mean "unsupported", so with DA1
//! answered here a client terminal's own answer would always come too late, and arrive later as
//! stray input. The model tracks the flags the program set, so it answers them; a client
//! terminal without the protocol then simply sends keys the legacy way, which such programs read
//! as well.

use std::fmt::Write as _;

use super::Emulator;

/// DA1: a VT220-class terminal (62) with ANSI colour (22), what xterm-likes without sixel say.
const PRIMARY_ATTRIBUTES: &str = "\x1b[?62;22c";

/// DA2: a VT220 (1), firmware version 10, no ROM cartridge. A low version, so programs that
/// enable features by xterm patch level (vim does) do not assume a recent xterm.
const SECONDARY_ATTRIBUTES: &str = "\x1b[>1;10;0c";

/// DSR 5: "no malfunction".
const STATUS_OK: &str = "\x1b[0n";

/// What a query asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Query {
    /// `CSI c` / `CSI 0 c`.
    PrimaryAttributes,
    /// `CSI > c` / `CSI > 0 c`.
    SecondaryAttributes,
    /// `CSI 5 n`.
    Status,
    /// `CSI 6 n`.
    CursorPosition,
    /// `CSI ? 6 n`.
    ExtendedCursorPosition,
    /// `CSI > q` / `CSI > 0 q`.
    Version,
    /// `CSI 18 t`: the text area's size in characters (the pane's, which no client knows when
    /// it shows the pane smaller or larger than itself).
    TextAreaSize,
    /// `CSI ? u`: the kitty keyboard flags in force (see `keyboard`).
    KeyboardFlags,
}

impl Query {
    /// The query a CSI sequence asks, if it is one this model answers. `first` is its first
    /// parameter (0 when missing).
    pub(crate) fn parse(intermediates: &[u8], action: char, first: u16) -> Option<Self> {
        Some(match (intermediates, action, first) {
            ([], 'c', 0) => Self::PrimaryAttributes,
            ([b'>'], 'c', 0) => Self::SecondaryAttributes,
            ([], 'n', 5) => Self::Status,
            ([], 'n', 6) => Self::CursorPosition,
            ([b'?'], 'n', 6) => Self::ExtendedCursorPosition,
            ([b'>'], 'q', 0) => Self::Version,
            ([], 't', 18) => Self::TextAreaSize,
            ([b'?'], 'u', 0) => Self::KeyboardFlags,
            _ => return None,
        })
    }

    /// Whether a control sequence begun as `ESC [`, `prefix` and the parameter digits `digits`
    /// can still end as a query [`Query::parse`] accepts (the same table, by first parameter;
    /// the query filter's property test checks the two agree).
    pub(crate) fn could_start(prefix: &[u8], digits: &[u8]) -> bool {
        let firsts: &[&[u8]] = match prefix {
            [] => &[b"0", b"5", b"6", b"18"],
            [b'?'] => &[b"0", b"6"],
            [b'>'] => &[b"0"],
            _ => return false,
        };
        let leading_zeros = digits.iter().take_while(|&&d| d == b'0').count();
        let significant = &digits[leading_zeros..];
        firsts.iter().any(|first| first.starts_with(significant))
    }
}

impl Emulator {
    /// The bytes a terminal sends back for `query`.
    pub(super) fn answer(&self, query: Query) -> String {
        match query {
            Query::PrimaryAttributes => PRIMARY_ATTRIBUTES.to_owned(),
            Query::SecondaryAttributes => SECONDARY_ATTRIBUTES.to_owned(),
            Query::Status => STATUS_OK.to_owned(),
            Query::CursorPosition | Query::ExtendedCursorPosition => {
                let (row, col) = self.reported_position();
                let mut out = String::from("\x1b[");
                if query == Query::ExtendedCursorPosition {
                    out.push('?');
                }
                let _ = write!(out, "{row};{col}");
                if query == Query::ExtendedCursorPosition {
                    // The page; this terminal has one.
                    out.push_str(";1");
                }
                out.push('R');
                out
            }
            Query::Version => format!("\x1bP>|signaltty {}\x1b\\", env!("CARGO_PKG_VERSION")),
            Query::TextAreaSize => format!("\x1b[8;{};{}t", self.rows, self.cols),
            Query::KeyboardFlags => format!("\x1b[?{}u", self.keyboard.kitty_flags(self.screen())),
        }
    }

    /// The cursor as CPR reports it: 1-based, relative to the scroll region in origin mode (so
    /// that it can be fed back to CUP), and on the last column while a wrap is pending.
    fn reported_position(&self) -> (u16, u16) {
        let row = if self.modes.origin {
            self.row.saturating_sub(self.top)
        } else {
            self.row
        };
        let col = self.col.min(self.cols - 1);
        (row + 1, col + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::term_with_replies;

    fn answer(cols: u16, rows: u16, bytes: &[u8]) -> String {
        term_with_replies(cols, rows, bytes)
    }

    #[test]
    fn device_attributes_are_answered_with_and_without_the_zero_parameter() {
        assert_eq!(answer(80, 24, b"\x1b[c"), "\x1b[?62;22c");
        assert_eq!(answer(80, 24, b"\x1b[0c"), "\x1b[?62;22c");
        assert_eq!(answer(80, 24, b"\x1b[>c"), "\x1b[>1;10;0c");
        assert_eq!(answer(80, 24, b"\x1b[>0c"), "\x1b[>1;10;0c");
        assert_eq!(answer(80, 24, b"\x1bZ"), "\x1b[?62;22c");
    }

    #[test]
    fn the_text_area_size_is_the_panes() {
        assert_eq!(answer(100, 30, b"\x1b[18t"), "\x1b[8;30;100t");
        assert_eq!(
            answer(100, 30, b"\x1b[14t"),
            "",
            "pixels are not known here"
        );
        assert_eq!(answer(100, 30, b"\x1b[18;1t"), "");
    }

    #[test]
    fn the_kitty_flags_in_force_are_reported_per_screen() {
        assert_eq!(answer(80, 24, b"\x1b[?u"), "\x1b[?0u");
        assert_eq!(answer(80, 24, b"\x1b[>5u\x1b[?u"), "\x1b[?5u");
        assert_eq!(answer(80, 24, b"\x1b[>5u\x1b[?1049h\x1b[?u"), "\x1b[?0u");
        assert_eq!(answer(80, 24, b"\x1b[?1u"), "", "not the query");
    }

    #[test]
    fn status_and_version_are_answered() {
        assert_eq!(answer(80, 24, b"\x1b[5n"), "\x1b[0n");
        let version = answer(80, 24, b"\x1b[>q");
        assert!(version.starts_with("\x1bP>|signaltty "), "{version:?}");
        assert!(version.ends_with("\x1b\\"), "{version:?}");
    }

    #[test]
    fn cursor_position_is_one_based() {
        assert_eq!(answer(80, 24, b"\x1b[6n"), "\x1b[1;1R");
        assert_eq!(answer(80, 24, b"\x1b[5;12H\x1b[6n"), "\x1b[5;12R");
        assert_eq!(answer(80, 24, b"\x1b[5;12H\x1b[?6n"), "\x1b[?5;12;1R");
        assert_eq!(answer(80, 24, b"abc\r\nde\x1b[6n"), "\x1b[2;3R");
    }

    #[test]
    fn cursor_position_is_relative_to_the_region_in_origin_mode() {
        // Region rows 5..=10, origin mode homes to its top; row 3 of the region is row 7.
        assert_eq!(
            answer(80, 24, b"\x1b[5;10r\x1b[?6h\x1b[3;4H\x1b[6n"),
            "\x1b[3;4R"
        );
        assert_eq!(
            answer(80, 24, b"\x1b[5;10r\x1b[?6l\x1b[3;4H\x1b[6n"),
            "\x1b[3;4R"
        );
        assert_eq!(
            answer(80, 24, b"\x1b[5;10r\x1b[?6h\x1b[3;4H\x1b[?6l\x1b[6n"),
            "\x1b[1;1R"
        );
    }

    #[test]
    fn a_pending_wrap_reports_the_last_column() {
        assert_eq!(answer(10, 5, b"0123456789\x1b[6n"), "\x1b[1;10R");
    }

    #[test]
    fn the_cursor_is_clamped_to_the_screen_after_a_shrink() {
        let mut term = super::super::Term::new(80, 24);
        let mut sink = super::super::tests::Record::default();
        term.process(b"\x1b[20;70H", &mut sink);
        term.resize(40, 10, &mut sink);
        term.process(b"\x1b[6n", &mut sink);
        assert_eq!(String::from_utf8_lossy(&sink.replies), "\x1b[10;40R");
    }

    #[test]
    fn lookalikes_are_not_answered() {
        for bytes in [
            &b"\x1b[1c"[..],   // DA1 with a parameter is not a request
            b"\x1b[?c",        // a DA1 answer, not a question
            b"\x1b[>1c",       // DA2 with a parameter
            b"\x1b[=c",        // DA3 (unit id): not answered
            b"\x1b[3n",        // not a report we make
            b"\x1b[?5n",       // not a private report we make
            b"\x1b[2 q",       // DECSCUSR, not XTVERSION
            b"\x1b[>1q",       // XTVERSION takes no parameter but 0
            b"\x1b[6;1R",      // an answer echoed back to us
            b"\x1bP>|x\x1b\\", // an XTVERSION answer
        ] {
            assert_eq!(answer(80, 24, bytes), "", "{bytes:?}");
        }
    }

    #[test]
    fn several_queries_in_one_chunk_are_answered_in_order() {
        assert_eq!(
            answer(80, 24, b"\x1b[6n\x1b[2;2H\x1b[6n\x1b[c"),
            "\x1b[1;1R\x1b[2;2R\x1b[?62;22c"
        );
    }
}
