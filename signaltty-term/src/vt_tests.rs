//! Tests for the emulator: behaviour checks of our own, and a differential property test that
//! feeds the same random output to vt100 (a maintained emulator, used here only as an oracle)
//! and compares every cell, the cursor and the modes.
//!
//! Deliberate differences from vt100 (we follow xterm), kept out of the comparison:
//! - an erased cell keeps only the background colour, where vt100 keeps every attribute, so
//!   blank cells are compared by background alone;
//! - rows scrolled in take the pen's background (background-colour erase, which
//!   `TERM=xterm-256color` advertises); the generator scrolls with the default background;
//! - scroll regions are left to our own tests above: vt100 moves the cursor differently around
//!   them (after DECSTBM, and CUU/CUD from outside the region);
//! - IL/DL move the cursor to the first column; the generator follows them with CR;
//! - entering the alternate screen keeps the cursor where it was (vt100 homes it); the
//!   generator follows it with a cursor move;
//! - save and restore (DECSC/DECRC) come in pairs on one screen: vt100 shares the saved
//!   attributes between screens and restores nothing-saved as defaults differently;
//! - double-width characters are left to our own tests: an edit that cuts one in half erases
//!   it whole (xterm), where vt100 may keep half of it;
//! - bold and dim can both be on (vt100 keeps one intensity); the generator never sets dim;
//! - a tab while a wrap is pending keeps the wrap pending and the last character (xterm), where
//!   vt100 moves onto the last column; the generator sends tabs after a backspace;
//! - underline shapes, colours and overline are not in vt100's model: only "underlined" is
//!   compared (our own tests check the rest).

use proptest::prelude::*;

use super::*;

/// A sink that records what the emulator reports.
#[derive(Default)]
pub(crate) struct Record {
    scrolled: Vec<String>,
    titles: Vec<String>,
    clears: usize,
    pub(crate) replies: Vec<u8>,
}

impl Sink for Record {
    fn scrolled_off(&mut self, row: &Row, _: u16, _: LinePart) {
        let mut line = String::new();
        crate::render::write_row(row, false, &mut line);
        self.scrolled.push(line);
    }

    fn title(&mut self, raw: &[u8]) {
        self.titles.push(String::from_utf8_lossy(raw).into_owned());
    }

    fn clear_history(&mut self) {
        self.clears += 1;
    }

    fn reply(&mut self, bytes: &[u8]) {
        self.replies.extend_from_slice(bytes);
    }
}

fn term_with(cols: u16, rows: u16, bytes: &[u8]) -> (Term, Record) {
    let mut term = Term::new(cols, rows);
    let mut sink = Record::default();
    term.process(bytes, &mut sink);
    (term, sink)
}

/// What a fresh terminal answers to `bytes`.
pub(super) fn term_with_replies(cols: u16, rows: u16, bytes: &[u8]) -> String {
    let (_, sink) = term_with(cols, rows, bytes);
    String::from_utf8_lossy(&sink.replies).into_owned()
}

fn text(term: &Term) -> Vec<String> {
    term.rows()
        .map(|row| {
            let mut line = String::new();
            crate::render::write_row(row, false, &mut line);
            line
        })
        .collect()
}

#[test]
fn plain_output_scrolls_into_the_sink() {
    let (term, sink) = term_with(10, 3, b"a\r\nb\r\nc\r\nd\r\ne");
    assert_eq!(sink.scrolled, vec!["a", "b"]);
    assert_eq!(text(&term), vec!["c", "d", "e"]);
    assert_eq!(term.cursor(), (2, 1));
}

#[test]
fn pending_wrap_reads_as_cols_and_wraps_on_the_next_character() {
    let (mut term, mut sink) = term_with(4, 2, b"abcd");
    assert_eq!(term.cursor(), (0, 4));
    term.process(b"e", &mut sink);
    assert_eq!(text(&term), vec!["abcd", "e"]);
    assert!(term.row(0).is_some_and(|r| r.wrapped));
    // A carriage return cancels the pending wrap.
    let (mut term, mut sink) = term_with(4, 2, b"abcd\rX");
    assert_eq!(text(&term), vec!["Xbcd", ""]);
    term.process(b"\x1b[?7lzzzzzz", &mut sink);
    assert_eq!(
        text(&term),
        vec!["Xzzz", ""],
        "no autowrap: the last column is rewritten"
    );
}

#[test]
fn scroll_region_keeps_rows_outside_it_and_feeds_history_only_from_the_top() {
    let (term, sink) = term_with(10, 4, b"top\r\n\x1b[2;3r\x1b[3;1Ha\r\nb\r\nc\x1b[4;1Hlast");
    assert_eq!(text(&term), vec!["top", "b", "c", "last"]);
    assert!(
        sink.scrolled.is_empty(),
        "the region does not start at the top"
    );
    let (term, sink) = term_with(10, 3, b"\x1b[1;2r\x1b[3;1Hfixed\x1b[2;1Hx\r\ny\r\nz");
    assert_eq!(text(&term), vec!["y", "z", "fixed"]);
    assert_eq!(sink.scrolled, vec!["", "x"]);
}

#[test]
fn alternate_screen_is_separate_and_restores_the_cursor() {
    let (mut term, mut sink) = term_with(10, 3, b"main\x1b[?1049h\x1b[Halt");
    assert!(term.alternate_screen());
    assert_eq!(text(&term), vec!["alt", "", ""]);
    for _ in 0..5 {
        term.process(b"\n", &mut sink);
    }
    assert!(
        sink.scrolled.is_empty(),
        "alternate screen rows never reach history"
    );
    term.process(b"\x1b[?1049l", &mut sink);
    assert_eq!(text(&term), vec!["main", "", ""]);
    assert_eq!(term.cursor(), (0, 4));
}

#[test]
fn dec_line_drawing_maps_to_box_characters() {
    let (term, _) = term_with(10, 1, b"\x1b(0lqk\x1b(Bx");
    assert_eq!(text(&term), vec!["┌─┐x"]);
}

#[test]
fn titles_and_history_clears_reach_the_sink() {
    let (_, sink) = term_with(10, 2, b"\x1b]2;a;b\x07\x1b]0;t\x1b\\\x1b[3J");
    assert_eq!(sink.titles, vec!["a;b", "t"]);
    assert_eq!(sink.clears, 1);
}

#[test]
fn shrinking_drops_blank_rows_below_the_cursor_before_pushing_history() {
    let (mut term, mut sink) = term_with(10, 6, b"a\r\nb\r\nc");
    term.resize(10, 3, &mut sink);
    assert!(sink.scrolled.is_empty());
    assert_eq!(text(&term), vec!["a", "b", "c"]);
    term.resize(10, 2, &mut sink);
    assert_eq!(sink.scrolled, vec!["a"]);
    assert_eq!(term.cursor(), (1, 1));
    term.resize(3, 4, &mut sink);
    assert_eq!(term.size(), (3, 4));
    assert_eq!(text(&term), vec!["b", "c", "", ""]);
}

#[test]
fn blink_hidden_and_strikethrough_are_kept_and_repainted() {
    let (term, _) = term_with(
        20,
        3,
        b"\x1b[9ms\x1b[5mb\x1b[8mh\x1b[25;28mS\x1b[29mn\x1b[6mr\x1b[m.",
    );
    let row = term.rows().next().expect("a row");
    let has = |col: usize, attr: Attr| row.cells()[col].style().has(attr);
    assert!(has(0, Attr::Strikethrough) && !has(0, Attr::Blink));
    assert!(has(1, Attr::Strikethrough) && has(1, Attr::Blink));
    assert!(has(2, Attr::Hidden) && has(2, Attr::Blink) && has(2, Attr::Strikethrough));
    assert!(has(3, Attr::Strikethrough) && !has(3, Attr::Blink) && !has(3, Attr::Hidden));
    assert!(Attr::ALL.iter().all(|a| !has(4, *a)));
    assert!(has(5, Attr::Blink), "rapid blink is blink");
    assert!(row.cells()[6].style().is_default());
    let (again, _) = term_with(20, 3, &term.repaint());
    assert_same(&term, &again);
}

#[test]
fn repaint_reproduces_regions_origin_charsets_and_pending_wrap() {
    let input = b"\x1b[31mhello\x1b[m\r\nworld\x1b[2;4r\x1b[?6h\x1b[2;1H\x1b[44mx\x1b(0\x1b[?1h\x1b[?2004h\x1b[5 q";
    let (a, _) = term_with(8, 5, input);
    let (b, _) = term_with(8, 5, &a.repaint());
    assert_same(&a, &b);
    // Both behave the same from here on: the region, origin mode, pen and charset carried over.
    let more = b"\x1b[Hq\n\n\n\nend";
    let mut a = a;
    let mut b = b;
    a.process(more, &mut Record::default());
    b.process(more, &mut Record::default());
    assert_same(&a, &b);

    let (a, _) = term_with(4, 2, "ab日".as_bytes());
    assert_eq!(a.cursor(), (0, 4));
    let (mut b, _) = term_with(4, 2, &a.repaint());
    assert_same(&a, &b);
    let mut a = a;
    a.process(b"z", &mut Record::default());
    b.process(b"z", &mut Record::default());
    assert_same(&a, &b);
}

/// Asserts that two terminals show the same: cells, their text, cursor, modes and screen.
pub(crate) fn assert_same(a: &Term, b: &Term) {
    assert_eq!(a.cursor(), b.cursor());
    assert_eq!(a.modes(), b.modes());
    assert_eq!(a.alternate_screen(), b.alternate_screen());
    let (cols, rows) = a.size();
    for row in 0..rows {
        for col in 0..cols {
            assert_eq!(a.cell(row, col), b.cell(row, col), "cell {row},{col}");
            assert_eq!(a.cell_text(row, col), b.cell_text(row, col));
        }
    }
}

// ---- differential test against vt100 ----

/// Pieces of program output; each renders to bytes.
fn piece() -> impl Strategy<Value = String> {
    let n = || 0u16..12;
    prop_oneof![
        4 => "[a-z ]{1,12}",
        2 => Just("\r\n".to_string()),
        1 => Just("\r".to_string()),
        1 => Just("\n".to_string()),
        1 => Just("\x08".to_string()),
        // After a backspace: a tab with a wrap pending keeps it pending (xterm), vt100 moves
        // back onto the last column.
        1 => Just("\x08\t".to_string()),
        1 => (n(), n()).prop_map(|(r, c)| format!("\x1b[{r};{c}H")),
        1 => (n(), prop::sample::select(vec!['A', 'B', 'C', 'D', 'G', 'd', 'E', 'F']))
            .prop_map(|(k, a)| format!("\x1b[{k}{a}")),
        1 => (0u16..3, prop::sample::select(vec!['J', 'K'])).prop_map(|(m, a)| format!("\x1b[{m}{a}")),
        1 => (n(), prop::sample::select(vec!['@', 'P', 'X', 'S', 'T']))
            .prop_map(|(k, a)| format!("\x1b[{k}{a}")),
        // Followed by a carriage return: xterm moves the cursor to the first column, vt100 not.
        1 => (n(), prop::sample::select(vec!['L', 'M'])).prop_map(|(k, a)| format!("\x1b[{k}{a}\r")),
        2 => prop::sample::select(vec![
            "\x1b[1m", "\x1b[3;4m", "\x1b[7m", "\x1b[22;23;24;27m", "\x1b[31m", "\x1b[38;5;200m",
            "\x1b[38;2;1;2;3m", "\x1b[0m", "\x1b[m", "\x1b[94m", "\x1b[39m",
        ])
        .prop_map(str::to_string),
        1 => prop::sample::select(vec![
            // Followed by a cursor move: xterm keeps the cursor where it was, vt100 homes it.
            "\x1b[?1049h\x1b[H", "\x1b[?1049l\x1b[m", "\x1b7\x1b[3;3H\x1b[4mzz\x1b8", "\x1bM", "\x1b[?1h", "\x1b[?1l",
            "\x1b[?25l", "\x1b[?25h", "\x1b[?2004h", "\x1b[?1000h", "\x1b[?1006h", "\x1b=", "\x1b>",
        ])
        .prop_map(str::to_string),
    ]
}

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("non-zero")
}

fn vt100_color(c: vt100::Color) -> Color {
    match c {
        vt100::Color::Default => Color::Default,
        vt100::Color::Idx(i) => Color::Idx(i),
        vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

/// Compares our emulator with vt100 after `bytes`; returns the first difference.
fn differences(cols: u16, rows: u16, bytes: &[u8]) -> Result<(), String> {
    let (ours, _) = term_with(cols, rows, bytes);
    let mut oracle = vt100::Parser::new(nz(rows), nz(cols), 0);
    oracle.process(bytes);
    let theirs = oracle.screen();
    if ours.cursor() != theirs.cursor_position() {
        return Err(format!(
            "cursor: ours {:?}, vt100 {:?}",
            ours.cursor(),
            theirs.cursor_position()
        ));
    }
    let m = ours.modes();
    let their_modes = (
        theirs.alternate_screen(),
        theirs.application_cursor(),
        theirs.application_keypad(),
        theirs.bracketed_paste(),
        theirs.hide_cursor(),
    );
    let our_modes = (
        ours.alternate_screen(),
        m.application_cursor,
        m.application_keypad,
        m.bracketed_paste,
        !m.cursor_visible,
    );
    if our_modes != their_modes {
        return Err(format!("modes: ours {our_modes:?}, vt100 {their_modes:?}"));
    }
    for row in 0..rows {
        for col in 0..cols {
            let (Some(a), Some(b)) = (ours.cell(row, col), theirs.cell(row, col)) else {
                return Err(format!("cell {row},{col} missing"));
            };
            let our_text = ours.cell_text(row, col);
            let their_text = match b.contents() {
                "" if !b.is_wide_continuation() => " ",
                t => t,
            };
            // Blank cells and the right halves of wide characters show no foreground.
            let blank = our_text == " " || a.is_wide_continuation();
            let style = a.style();
            let same = our_text == their_text
                && a.is_wide() == b.is_wide()
                && a.is_wide_continuation() == b.is_wide_continuation()
                && style.bg() == vt100_color(b.bgcolor())
                && (blank
                    || (style.fg() == vt100_color(b.fgcolor())
                        && style.has(Attr::Bold) == b.bold()
                        && style.has(Attr::Dim) == b.dim()
                        && style.has(Attr::Italic) == b.italic()
                        && style.has(Attr::Underline) == b.underline()
                        && style.has(Attr::Inverse) == b.inverse()));
            if !same {
                return Err(format!(
                    "cell {row},{col}: ours {our_text:?} {a:?}, vt100 {their_text:?} {b:?}\nours:\n{}\nvt100:\n{}",
                    text(&ours).join("\n"),
                    theirs.contents()
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn matches_vt100_cell_for_cell(
        cols in 4u16..16,
        rows in 6u16..10,
        pieces in prop::collection::vec(piece(), 1..60),
    ) {
        let bytes = pieces.concat();
        if let Err(diff) = differences(cols, rows, bytes.as_bytes()) {
            prop_assert!(false, "{diff}\ninput: {bytes:?}");
        }
    }
}

// ---- repaint round trip ----

/// Everything the emulator models, including what the vt100 comparison leaves out.
fn any_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => piece(),
        1 => Just("日本".to_string()),
        1 => Just("e\u{301}".to_string()),
        1 => (1u16..4, 1u16..4).prop_map(|(t, h)| format!("\x1b[{t};{}r", t + h)),
        1 => prop::sample::select(vec![
            "\x1b[?6h", "\x1b[?6l", "\x1b(0", "\x1b(B", "\x1b)0", "\x0e", "\x0f", "\x1b[4h",
            "\x1b[4l", "\x1b[?7l", "\x1b[?7h", "\x1b[2m", "\x1b[44m", "\x1b[3 q", "\x1b[?1004h",
            "\x1b[5;8;9m", "\x1b[25m", "\x1b[28;29m", "\x1b[6m",
            "\x1b[?47h", "\x1b[?47l", "\x1b[?1047h", "\x1b[?1047l", "\x1b7", "\x1bH", "\x1b[g", "\x1b[3g",
        ])
        .prop_map(str::to_string),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A late attacher that replays the repaint sees the same screen, and both terminals then
    /// treat further output the same (pen, charsets, scroll region, origin mode, pending wrap,
    /// saved cursor, tab stops and modes all carried over).
    #[test]
    fn repaint_reproduces_the_screen_and_what_follows(
        cols in 4u16..16,
        rows in 6u16..10,
        pieces in prop::collection::vec(any_piece(), 1..60),
        more in "[a-z ]{0,30}",
    ) {
        let (mut a, _) = term_with(cols, rows, pieces.concat().as_bytes());
        let (mut b, _) = term_with(cols, rows, &a.repaint());
        assert_same(&a, &b);
        let more = format!("{more}\r\nq{more}\n{more}\x1b8x{more}\t|\t|\x1b[Z|");
        a.process(more.as_bytes(), &mut Record::default());
        b.process(more.as_bytes(), &mut Record::default());
        assert_same(&a, &b);
    }
}
