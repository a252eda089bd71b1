//! Tests of the sequences issue 16 added or fixed: SCOSC/SCORC, underline shapes and colours,
//! overline, a tab with a wrap pending, DECALN, DECSTR and the soft hyphen's width; and the
//! differences from xterm and tmux issue 29 found: mouse mode resets, REP after anything but a
//! character, a double-width character at the last column with autowrap off.

use super::tests::{Record, assert_same};
use super::*;

fn term_with(cols: u16, rows: u16, bytes: &[u8]) -> Term {
    let mut term = Term::new(cols, rows);
    term.process(bytes, &mut Record::default());
    term
}

fn line(term: &Term, row: u16) -> String {
    let (cols, _) = term.size();
    let text: String = (0..cols).map(|c| term.cell_text(row, c)).collect();
    text.trim_end().to_string()
}

fn style(term: &Term, row: u16, col: u16) -> Style {
    term.row(row).map(|r| r.style(col)).unwrap_or_default()
}

#[test]
fn csi_s_and_u_save_and_restore_the_cursor() {
    let term = term_with(20, 5, b"\x1b[2;5H\x1b[s\x1b[4;1Hxx\x1b[uA");
    assert_eq!(line(&term, 1), "    A");
    assert_eq!(term.cursor(), (1, 5));
    // `CSI 0 s` is the same; `CSI 1;10 s` is DECSLRM (margins, not modelled): no save.
    let term = term_with(20, 5, b"\x1b[3;3H\x1b[0s\x1b[H\x1b[1;10s\x1b[5;5H\x1b[uB");
    assert_eq!(line(&term, 2), "  B");
}

#[test]
fn kitty_keyboard_sequences_ending_in_u_are_not_a_restore() {
    let mut term = Term::new(20, 5);
    let mut sink = Record::default();
    term.process(
        b"\x1b[2;2H\x1b[s\x1b[5;5H\x1b[>1u\x1b[=3;1u\x1b[?u",
        &mut sink,
    );
    assert_eq!(term.cursor(), (4, 4), "no restore");
    assert_eq!(term.keyboard().kitty_flags(0), 3);
    assert_eq!(String::from_utf8_lossy(&sink.replies), "\x1b[?3u");
    term.process(b"\x1b[<u", &mut sink);
    assert_eq!(term.cursor(), (4, 4));
    assert_eq!(term.keyboard().kitty_flags(0), 0);
    term.process(b"\x1b[u", &mut sink);
    assert_eq!(term.cursor(), (1, 1));
}

#[test]
fn underline_shapes_overline_and_colours_are_kept() {
    let term = term_with(
        30,
        3,
        b"a\x1b[4:3mb\x1b[21mc\x1b[4:2md\x1b[4:4me\x1b[4:5mf\x1b[4mg\x1b[4:0mh\x1b[53mi\x1b[55mj\x1b[4:9mk\x1b[24ml",
    );
    let shapes: Vec<UnderlineStyle> = (0..12)
        .map(|c| style(&term, 0, c).underline_style())
        .collect();
    use UnderlineStyle::*;
    assert_eq!(
        shapes,
        [
            None, Curly, Double, Double, Dotted, Dashed, Single, None, None, None, Single, None
        ]
    );
    assert!(style(&term, 0, 8).has(Attr::Overline) && !style(&term, 0, 9).has(Attr::Overline));
    assert!(
        style(&term, 0, 1).has(Attr::Underline),
        "any shape is an underline"
    );
}

#[test]
fn sgr_58_in_both_forms_sets_the_underline_colour_and_nothing_else() {
    // `58;2;r;g;b` and `58;5;n`: the numbers must not be read as blink (5), dim (2), bold (1)
    // or a reset (0).
    let term = term_with(
        30,
        3,
        b"\x1b[4;58;2;0;5;1ma\x1b[58;5;2mb\x1b[58:2::10:20:30mc\x1b[58:5:9md\x1b[59me\x1b[m\x1b[58;2;1;1;1mf",
    );
    let s = |c| style(&term, 0, c);
    assert_eq!(s(0).underline_color(), Color::Rgb(0, 5, 1));
    for attr in [Attr::Blink, Attr::Dim, Attr::Bold] {
        assert!(!s(0).has(attr) && !s(1).has(attr), "{attr:?}");
    }
    assert!(s(0).has(Attr::Underline) && s(1).has(Attr::Underline));
    assert_eq!(s(1).underline_color(), Color::Idx(2));
    assert_eq!(s(2).underline_color(), Color::Rgb(10, 20, 30));
    assert_eq!(s(3).underline_color(), Color::Idx(9));
    assert_eq!(s(4).underline_color(), Color::Default);
    assert_eq!(s(5).underline_color(), Color::Rgb(1, 1, 1));
    assert!(!s(5).has(Attr::Underline));
    // Cells stay 12 bytes: the colour is in the row's side list, and goes with its cell.
    assert_eq!(std::mem::size_of::<Cell>(), 12);
    let mut term = term;
    term.process(b"\x1b[H\x1b[2@", &mut Record::default());
    assert_eq!(style(&term, 0, 2).underline_color(), Color::Rgb(0, 5, 1));
    term.process(b"\x1b[H\x1b[3P", &mut Record::default());
    assert_eq!(style(&term, 0, 0).underline_color(), Color::Idx(2));
    term.process(b"\x1b[m\x1b[Hx", &mut Record::default());
    assert_eq!(
        style(&term, 0, 0).underline_color(),
        Color::Default,
        "overwritten"
    );
}

#[test]
fn underline_styles_and_colours_survive_a_repaint_and_history() {
    let input =
        b"\x1b[4:3;58:2::255:0:0mcurl\x1b[m \x1b[21;53;58;5;4mdbl\x1b[m \x1b[4:5mdash\x1b[m";
    let a = term_with(30, 3, input);
    let b = term_with(30, 3, &a.repaint());
    assert_same(&a, &b);
    for col in 0..20 {
        assert_eq!(style(&a, 0, col), style(&b, 0, col), "col {col}");
    }
    // History renders the same styles: a history line replays to the same cells.
    let mut screen = crate::Screen::new(30, 2);
    screen.feed(input);
    screen.feed(b"\r\n\r\n");
    let lines = screen.history().last_lines(1, true);
    let c = term_with(30, 3, lines[0].as_bytes());
    for col in 0..20 {
        assert_eq!(style(&a, 0, col), style(&c, 0, col), "col {col}");
    }
}

#[test]
fn a_tab_with_a_wrap_pending_keeps_the_last_character_and_the_wrap() {
    let term = term_with(8, 3, b"abcdefgh\tX");
    assert_eq!(line(&term, 0), "abcdefgh");
    assert_eq!(line(&term, 1), "X");
    let term = term_with(8, 3, b"abcdefgh\x1b[2IX");
    assert_eq!(line(&term, 0), "abcdefgh");
}

#[test]
fn decaln_fills_the_screen_and_homes_the_cursor() {
    let term = term_with(5, 3, b"\x1b[2;3r\x1b[?6h\x1b[31mxy\x1b#8");
    for row in 0..3 {
        assert_eq!(line(&term, row), "EEEEE");
        assert!(style(&term, row, 0).is_default());
    }
    assert_eq!(term.cursor(), (0, 0));
    assert!(!term.modes().origin);
    let after = term_with(5, 3, b"\x1b[2;3r\x1b#8\x1b[3;1H\n\nz");
    assert_eq!(
        line(&after, 2),
        "z",
        "the scroll region is the whole screen again"
    );
}

#[test]
fn decstr_soft_resets_modes_but_not_the_screen() {
    let mut term = term_with(
        10,
        4,
        b"hello\x1b[2;3r\x1b[?6h\x1b[4h\x1b[?7l\x1b[?25l\x1b[?1h\x1b=\x1b(0\x1b[31m\x1b[?2004h\x1b[3;4H",
    );
    let mut sink = Record::default();
    term.process(b"\x1b7\x1b[!p", &mut sink);
    let m = term.modes();
    assert!(m.cursor_visible && m.autowrap && !m.insert && !m.origin);
    assert!(!m.application_cursor && !m.application_keypad);
    assert!(m.bracketed_paste, "paste mode is not part of a soft reset");
    assert_eq!(line(&term, 0), "hello", "the screen stays");
    assert_eq!(term.cursor(), (2, 3), "the cursor stays");
    term.process(b"q\x1b8", &mut sink);
    assert_eq!(line(&term, 2), "   q", "ASCII charset and default pen");
    assert!(style(&term, 2, 3).is_default());
    assert_eq!(term.cursor(), (0, 0), "the saved cursor is home");
}

#[test]
fn the_soft_hyphen_takes_one_column_as_in_glibc_and_xterm() {
    let term = term_with(10, 2, "a\u{ad}b".as_bytes());
    assert_eq!(term.cursor(), (0, 3));
    assert_eq!(term.cell_text(0, 1), "\u{ad}");
    assert_eq!(term.cell_text(0, 2), "b");
}

// Differences from xterm and tmux that issue 29 found.

#[test]
fn resetting_any_mouse_tracking_mode_turns_tracking_off() {
    // One setting with four values (xterm): resetting any of them ends tracking, whichever is
    // on (tmux 3.3a: `?1003h ?1000l` leaves `mouse_any_flag` 0). Mode 9 too, as in xterm (tmux
    // does not know mode 9 at all).
    for (on, off) in [
        (1003, 1000),
        (1000, 1002),
        (1002, 1003),
        (1003, 1002),
        (1002, 9),
        (9, 1000),
        (1000, 1000),
    ] {
        let term = term_with(20, 3, format!("\x1b[?{on}h\x1b[?{off}l").as_bytes());
        assert_eq!(term.modes().mouse, MouseMode::Off, "?{on}h then ?{off}l");
    }
    let term = term_with(20, 3, b"\x1b[?1000h\x1b[?1003h");
    assert_eq!(
        term.modes().mouse,
        MouseMode::AnyMotion,
        "the last set wins"
    );
}

#[test]
fn rep_repeats_only_a_character_right_before_it() {
    // tmux 3.3a, and xterm's REP (which forgets the character after any control or sequence).
    assert_eq!(line(&term_with(20, 3, b"a\x1b[3b"), 0), "aaaa");
    for (between, what) in [
        (&b"\x1b[1m"[..], "SGR"),
        (b"\x1b[1;5H", "CUP"),
        (b"\r", "CR"),
        (b"\x08", "BS"),
        (b"\x1b7", "DECSC"),
        (b"\x1b]0;t\x07", "OSC"),
        (b"\x1b[?25h", "a mode"),
        (b"\x07", "BEL"),
        (b"\x1b[2b", "REP itself"),
    ] {
        let bytes = [&b"a"[..], between, b"\x1b[2b"].concat();
        let term = term_with(20, 3, &bytes);
        let text: String = (0..3).map(|r| line(&term, r)).collect();
        let expected = if what == "REP itself" { "aaa" } else { "a" };
        assert_eq!(text, expected, "REP after {what}");
    }
}

#[test]
fn a_wide_character_that_does_not_fit_without_autowrap_is_dropped() {
    // With autowrap off a double-width character at the last column has nowhere to go: xterm
    // and tmux 3.3a drop it; it must not overwrite the character before it.
    for before in ["abcdefghi", "abcdefghij", "\x1b[1;10H"] {
        let term = term_with(10, 2, format!("\x1b[?7l{before}日").as_bytes());
        assert_eq!(line(&term, 0), before.trim_start_matches("\x1b[1;10H"));
        assert_eq!(term.cursor(), (0, 9), "after {before:?}");
        assert_eq!(line(&term, 1), "", "nothing wrapped");
    }
    // One that fits in the last two columns is printed, the cursor stays on the last.
    let term = term_with(10, 2, "\x1b[?7labcdefgh日".as_bytes());
    assert_eq!(line(&term, 0), "abcdefgh日");
    assert_eq!(term.cursor(), (0, 9));
}
