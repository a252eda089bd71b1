//! Table tests of the input parser, one family each (the expected events are what crossterm's
//! own reader gives for the same bytes), and properties: a stream split anywhere parses as the
//! stream whole, and no bytes make the parser panic.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers, MouseButton, MouseEvent,
    MouseEventKind,
};
use proptest::prelude::*;

use super::Parser;

const NONE: KeyModifiers = KeyModifiers::NONE;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const ALT: KeyModifiers = KeyModifiers::ALT;

fn parse(bytes: &[u8]) -> Vec<Event> {
    let mut parser = Parser::new();
    let mut out = Vec::new();
    parser.feed(bytes, &mut out);
    out
}

fn k(code: KeyCode, mods: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, mods))
}

fn kind(code: KeyCode, mods: KeyModifiers, kind: KeyEventKind) -> Event {
    Event::Key(KeyEvent::new_with_kind(code, mods, kind))
}

fn c(ch: char) -> KeyCode {
    KeyCode::Char(ch)
}

fn check(rows: &[(&[u8], Vec<Event>)]) {
    for (bytes, want) in rows {
        assert_eq!(&parse(bytes), want, "{:?}", String::from_utf8_lossy(bytes));
    }
}

#[test]
fn text_and_controls() {
    check(&[
        (b"a", vec![k(c('a'), NONE)]),
        (b"A", vec![k(c('A'), NONE)]),
        (
            "é€😀".as_bytes(),
            vec![k(c('é'), NONE), k(c('€'), NONE), k(c('😀'), NONE)],
        ),
        (b"\x01", vec![k(c('a'), CTRL)]),
        (b"\x1a", vec![k(c('z'), CTRL)]),
        (b"\x00", vec![k(c(' '), CTRL)]),
        (b"\t", vec![k(KeyCode::Tab, NONE)]),
        (b"\r", vec![k(KeyCode::Enter, NONE)]),
        (b"\n", vec![k(c('j'), CTRL)]),
        (b"\x7f", vec![k(KeyCode::Backspace, NONE)]),
        (b"\x08", vec![k(c('h'), CTRL)]),
        (b"\x1c", vec![k(c('4'), CTRL)]),
        (b"\x1f", vec![k(c('7'), CTRL)]),
        // Invalid UTF-8 is dropped byte by byte, never a key.
        (b"\xff\x80a", vec![k(c('a'), NONE)]),
        (b"\xc3a", vec![k(c('a'), NONE)]),
    ]);
}

#[test]
fn escape_and_alt() {
    check(&[
        (b"\x1bx", vec![k(c('x'), ALT)]),
        (b"\x1bX", vec![k(c('X'), ALT)]),
        (b"\x1b\x01", vec![k(c('a'), CTRL | ALT)]),
        (b"\x1b\r", vec![k(KeyCode::Enter, ALT)]),
        (b"\x1b\x7f", vec![k(KeyCode::Backspace, ALT)]),
        ("\x1bé".as_bytes(), vec![k(c('é'), ALT)]),
        (b"\x1b\x1b", vec![k(KeyCode::Esc, NONE)]),
        (
            b"\x1b\x1b[A",
            vec![k(KeyCode::Esc, NONE), k(KeyCode::Up, NONE)],
        ),
    ]);
    // A lone ESC is held (it may begin a sequence) until it expires: then it is Esc.
    let mut parser = Parser::new();
    let mut out = Vec::new();
    parser.feed(b"\x1b", &mut out);
    assert!(out.is_empty() && parser.holding());
    parser.expire(&mut out);
    assert_eq!(out, vec![k(KeyCode::Esc, NONE)]);
    assert!(!parser.holding());
    // ESC [ and ESC O left alone are Alt+[ and Alt+O.
    for (held, ch) in [(&b"\x1b["[..], '['), (b"\x1bO", 'O')] {
        let mut out = Vec::new();
        parser.feed(held, &mut out);
        parser.expire(&mut out);
        assert_eq!(out, vec![k(c(ch), ALT)]);
    }
    // Anything else held and expired is dropped, not leaked.
    let mut out = Vec::new();
    parser.feed(b"\x1b[1;", &mut out);
    parser.expire(&mut out);
    parser.feed(b"a", &mut out);
    assert_eq!(out, vec![k(c('a'), NONE)]);
}

#[test]
fn cursor_and_editing_keys_with_modifiers() {
    let press = KeyEventKind::Press;
    check(&[
        (b"\x1b[A", vec![k(KeyCode::Up, NONE)]),
        (b"\x1bOB", vec![k(KeyCode::Down, NONE)]),
        (b"\x1b[C", vec![k(KeyCode::Right, NONE)]),
        (b"\x1b[D", vec![k(KeyCode::Left, NONE)]),
        (b"\x1b[H", vec![k(KeyCode::Home, NONE)]),
        (b"\x1bOF", vec![k(KeyCode::End, NONE)]),
        (b"\x1b[1;5A", vec![k(KeyCode::Up, CTRL)]),
        (b"\x1b[1;2D", vec![k(KeyCode::Left, SHIFT)]),
        (b"\x1b[1;7C", vec![k(KeyCode::Right, CTRL | ALT)]),
        (b"\x1b[2~", vec![k(KeyCode::Insert, NONE)]),
        (b"\x1b[3~", vec![k(KeyCode::Delete, NONE)]),
        (b"\x1b[3;5~", vec![k(KeyCode::Delete, CTRL)]),
        (b"\x1b[5;3~", vec![k(KeyCode::PageUp, ALT)]),
        (b"\x1b[6~", vec![k(KeyCode::PageDown, NONE)]),
        (b"\x1b[1~", vec![k(KeyCode::Home, NONE)]),
        (b"\x1b[4~", vec![k(KeyCode::End, NONE)]),
        (b"\x1b[Z", vec![k(KeyCode::BackTab, SHIFT)]),
        // Kitty event types on legacy forms.
        (b"\x1b[1;1:1A", vec![kind(KeyCode::Up, NONE, press)]),
        (
            b"\x1b[1;1:2A",
            vec![kind(KeyCode::Up, NONE, KeyEventKind::Repeat)],
        ),
        (
            b"\x1b[3;5:3~",
            vec![kind(KeyCode::Delete, CTRL, KeyEventKind::Release)],
        ),
    ]);
}

#[test]
fn function_keys_in_both_forms() {
    let mut rows: Vec<(&[u8], Vec<Event>)> = vec![
        (b"\x1bOP", vec![k(KeyCode::F(1), NONE)]),
        (b"\x1bOQ", vec![k(KeyCode::F(2), NONE)]),
        (b"\x1bOR", vec![k(KeyCode::F(3), NONE)]),
        (b"\x1bOS", vec![k(KeyCode::F(4), NONE)]),
        (b"\x1b[1;5P", vec![k(KeyCode::F(1), CTRL)]),
        (b"\x1b[1;2R", vec![k(KeyCode::F(3), SHIFT)]),
        (b"\x1b[11~", vec![k(KeyCode::F(1), NONE)]),
        (b"\x1b[12~", vec![k(KeyCode::F(2), NONE)]),
        (b"\x1b[13~", vec![k(KeyCode::F(3), NONE)]),
        (b"\x1b[14~", vec![k(KeyCode::F(4), NONE)]),
    ];
    let tilde: [(&[u8], u8); 8] = [
        (b"\x1b[15~", 5),
        (b"\x1b[17~", 6),
        (b"\x1b[18~", 7),
        (b"\x1b[19~", 8),
        (b"\x1b[20~", 9),
        (b"\x1b[21~", 10),
        (b"\x1b[23~", 11),
        (b"\x1b[24~", 12),
    ];
    for (bytes, n) in tilde {
        rows.push((bytes, vec![k(KeyCode::F(n), NONE)]));
    }
    rows.push((b"\x1b[24;5~", vec![k(KeyCode::F(12), CTRL)]));
    check(&rows);
}

#[test]
fn kitty_keys_with_event_types() {
    let release = KeyEventKind::Release;
    let repeat = KeyEventKind::Repeat;
    check(&[
        (b"\x1b[27u", vec![k(KeyCode::Esc, NONE)]),
        (b"\x1b[13;2u", vec![k(KeyCode::Enter, SHIFT)]),
        (b"\x1b[9;5u", vec![k(KeyCode::Tab, CTRL)]),
        (b"\x1b[9;2u", vec![k(KeyCode::BackTab, SHIFT)]),
        (b"\x1b[127;3u", vec![k(KeyCode::Backspace, ALT)]),
        (b"\x1b[105;5u", vec![k(c('i'), CTRL)]),
        (b"\x1b[97;6u", vec![k(c('a'), CTRL | SHIFT)]),
        (b"\x1b[97:65;2u", vec![k(c('A'), SHIFT)]),
        (b"\x1b[97;1:3u", vec![kind(c('a'), NONE, release)]),
        (b"\x1b[97;5:2u", vec![kind(c('a'), CTRL, repeat)]),
        (b"\x1b[13;1:3u", vec![kind(KeyCode::Enter, NONE, release)]),
        (b"\x1b[97;;97u", vec![k(c('a'), NONE)]),
        (b"\x1b[57376u", vec![k(KeyCode::F(13), NONE)]),
        (
            b"\x1b[57441;2u",
            vec![k(
                KeyCode::Modifier(crossterm::event::ModifierKeyCode::LeftShift),
                SHIFT,
            )],
        ),
        (
            b"\x1b[57399u",
            vec![Event::Key(KeyEvent::new_with_kind_and_state(
                c('0'),
                NONE,
                KeyEventKind::Press,
                KeyEventState::KEYPAD,
            ))],
        ),
        (
            b"\x1b[97;65u",
            vec![Event::Key(KeyEvent::new_with_kind_and_state(
                c('a'),
                NONE,
                KeyEventKind::Press,
                KeyEventState::CAPS_LOCK,
            ))],
        ),
        // An unknown private-use code is dropped.
        (b"\x1b[60000ux", vec![k(c('x'), NONE)]),
    ]);
}

fn mouse(kind: MouseEventKind, column: u16, row: u16, modifiers: KeyModifiers) -> Event {
    Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers,
    })
}

#[test]
fn sgr_mouse() {
    use MouseButton::*;
    use MouseEventKind::*;
    check(&[
        (b"\x1b[<0;1;1M", vec![mouse(Down(Left), 0, 0, NONE)]),
        (b"\x1b[<0;10;5m", vec![mouse(Up(Left), 9, 4, NONE)]),
        (b"\x1b[<1;3;4M", vec![mouse(Down(Middle), 2, 3, NONE)]),
        (b"\x1b[<2;3;4M", vec![mouse(Down(Right), 2, 3, NONE)]),
        (b"\x1b[<32;7;8M", vec![mouse(Drag(Left), 6, 7, NONE)]),
        (b"\x1b[<35;7;8M", vec![mouse(Moved, 6, 7, NONE)]),
        (b"\x1b[<64;2;2M", vec![mouse(ScrollUp, 1, 1, NONE)]),
        (b"\x1b[<65;2;2M", vec![mouse(ScrollDown, 1, 1, NONE)]),
        (b"\x1b[<66;2;2M", vec![mouse(ScrollLeft, 1, 1, NONE)]),
        (b"\x1b[<4;2;2M", vec![mouse(Down(Left), 1, 1, SHIFT)]),
        (b"\x1b[<8;2;2M", vec![mouse(Down(Left), 1, 1, ALT)]),
        (b"\x1b[<16;2;2M", vec![mouse(Down(Left), 1, 1, CTRL)]),
        (b"\x1b[<80;2;2M", vec![mouse(ScrollUp, 1, 1, CTRL)]),
        (b"\x1b[<0;300;200M", vec![mouse(Down(Left), 299, 199, NONE)]),
        // urxvt's form, from a terminal without SGR.
        (b"\x1b[32;3;4M", vec![mouse(Down(Left), 2, 3, NONE)]),
        (b"\x1b[35;3;4M", vec![mouse(Up(Left), 2, 3, NONE)]),
        // X10: CSI M and three raw bytes.
        (b"\x1b[M !!", vec![mouse(Down(Left), 0, 0, NONE)]),
        // Garbage coordinates are dropped.
        (b"\x1b[<0;0;0M", vec![]),
    ]);
}

#[test]
fn paste_focus_and_replies() {
    check(&[
        (
            b"\x1b[200~hello\r\x1b[Aworld\x1b[201~x",
            vec![Event::Paste("hello\r\x1b[Aworld".into()), k(c('x'), NONE)],
        ),
        (b"\x1b[200~\x1b[201~", vec![Event::Paste(String::new())]),
        (b"\x1b[I", vec![Event::FocusGained]),
        (b"\x1b[O", vec![Event::FocusLost]),
        // Answers the TUI asked for, swallowed: kitty flags, device attributes, cursor position.
        (b"\x1b[?1u", vec![]),
        (b"\x1b[?62;22c", vec![]),
        (b"\x1b[12;40R", vec![]),
        (b"\x1b[1;1R", vec![]),
        (b"\x1b[?2026;2$y", vec![]),
        (b"\x1bP", vec![k(c('P'), ALT)]),
        (b"\x1b]", vec![k(c(']'), ALT)]),
        // Unknown sequences are dropped whole.
        (b"\x1b[99z", vec![]),
        (b"\x1b[1;2;3;4;5;6q", vec![]),
        (b"\x1b[?25h", vec![]),
        (b"\x1bO9x", vec![k(c('x'), NONE)]),
        (b"\x1b[201~", vec![]),
    ]);
    // A paste arriving in many reads, its end marker split too.
    let mut parser = Parser::new();
    let mut out = Vec::new();
    for part in [&b"\x1b[20"[..], b"0~ab", b"c\x1b[", b"20", b"1~", b"z"] {
        parser.feed(part, &mut out);
    }
    assert_eq!(out, vec![Event::Paste("abc".into()), k(c('z'), NONE)]);
    // A paste does not expire: keys typed while it is open are part of it.
    let mut out = Vec::new();
    parser.feed(b"\x1b[200~abc", &mut out);
    parser.expire(&mut out);
    assert!(out.is_empty() && !parser.holding());
    parser.feed(b"\x1b[201~", &mut out);
    assert_eq!(out, vec![Event::Paste("abc".into())]);
}

/// A stream of things a terminal sends, joined.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    let pieces: Vec<&'static [u8]> = vec![
        b"a",
        b"Z",
        "é".as_bytes(),
        "😀".as_bytes(),
        b"\x01",
        b"\r",
        b"\x7f",
        b"\x1bx",
        b"\x1b[A",
        b"\x1b[1;5A",
        b"\x1bOP",
        b"\x1b[3;5~",
        b"\x1b[24~",
        b"\x1b[97;5:3u",
        b"\x1b[27u",
        b"\x1b[<0;10;5M",
        b"\x1b[<64;1;1M",
        b"\x1b[200~pasted \x1b[A text\x1b[201~",
        b"\x1b[I",
        b"\x1b[?1u",
        b"\x1b[?62;c",
        b"\x1bP",
        b"\x1b]",
        b"\x1b[99z",
    ];
    prop::collection::vec(prop::sample::select(pieces), 0..24).prop_map(|p| p.concat())
}

proptest! {
    #[test]
    fn any_split_parses_as_the_whole(bytes in stream(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        let whole = parse(&bytes);
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut parser = Parser::new();
        let mut split = Vec::new();
        let mut from = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            parser.feed(&bytes[from..cut], &mut split);
            from = cut;
        }
        prop_assert_eq!(split, whole);
        prop_assert!(!parser.holding());
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512), cut in any::<usize>()) {
        let mut parser = Parser::new();
        let mut out = Vec::new();
        let cut = cut % (bytes.len() + 1);
        parser.feed(&bytes[..cut], &mut out);
        parser.feed(&bytes[cut..], &mut out);
        parser.expire(&mut out);
        // After settling, the parser holds nothing: a plain key comes through at once (unless
        // an unfinished paste takes it as text).
        prop_assert!(!parser.holding());
        let pasting = parser.paste.is_some();
        let before = out.len();
        parser.feed(b"q", &mut out);
        if !pasting {
            prop_assert_eq!(&out[before..], &[k(c('q'), NONE)][..]);
        }
    }
}
