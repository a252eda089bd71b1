//! Table tests of the key encoder: each row is a key, the protocol the program asked for, and
//! the bytes a kitty / xterm terminal sends for it in that protocol.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use signaltty_term::Screen;
use signaltty_term::vt::Modes;

use super::{KeyProtocol, key};

const NONE: KeyModifiers = KeyModifiers::NONE;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const ALT: KeyModifiers = KeyModifiers::ALT;

fn proto(kitty_flags: u8, modify_other_keys: u8) -> KeyProtocol {
    KeyProtocol {
        kitty_flags,
        modify_other_keys,
    }
}

fn check(rows: &[(KeyCode, KeyModifiers, KeyProtocol, &str)]) {
    let modes = Modes::default();
    for (code, mods, protocol, want) in rows {
        let got = key(&KeyEvent::new(*code, *mods), &modes, *protocol);
        assert_eq!(
            String::from_utf8_lossy(&got),
            *want,
            "{code:?} {mods:?} under {protocol:?}"
        );
    }
}

#[test]
fn legacy_keys_follow_the_programs_modes() {
    let normal = Modes::default();
    let app = Modes {
        application_cursor: true,
        ..Modes::default()
    };
    let none = KeyProtocol::default();
    let k = |code, mods| KeyEvent::new(code, mods);
    assert_eq!(key(&k(KeyCode::Up, NONE), &normal, none), b"\x1b[A");
    assert_eq!(key(&k(KeyCode::Up, NONE), &app, none), b"\x1bOA");
    assert_eq!(key(&k(KeyCode::Up, CTRL), &app, none), b"\x1b[1;5A");
    check(&[
        (KeyCode::Char('c'), CTRL, none, "\x03"),
        (KeyCode::Char('x'), ALT, none, "\x1bx"),
        (KeyCode::Enter, NONE, none, "\r"),
        (KeyCode::Enter, SHIFT, none, "\r"),
        (KeyCode::Tab, NONE, none, "\t"),
        (KeyCode::Char('i'), CTRL, none, "\t"),
        (KeyCode::BackTab, SHIFT, none, "\x1b[Z"),
        (KeyCode::Esc, NONE, none, "\x1b"),
        (KeyCode::F(5), NONE, none, "\x1b[15~"),
        (KeyCode::F(1), NONE, none, "\x1bOP"),
        (KeyCode::F(1), CTRL, none, "\x1b[1;5P"),
        (KeyCode::Char('é'), NONE, none, "é"),
    ]);
}

#[test]
fn kitty_disambiguate_escapes_only_the_ambiguous_keys() {
    let p = proto(1, 0);
    check(&[
        // Text stays text; Shift alone does not make it ambiguous.
        (KeyCode::Char('a'), NONE, p, "a"),
        (KeyCode::Char('A'), SHIFT, p, "A"),
        (KeyCode::Char('é'), NONE, p, "é"),
        // Unmodified Enter, Tab and Backspace stay legacy (so `reset` can be typed).
        (KeyCode::Enter, NONE, p, "\r"),
        (KeyCode::Tab, NONE, p, "\t"),
        (KeyCode::Backspace, NONE, p, "\x7f"),
        // What the protocol is for: Shift+Enter, Ctrl+I vs Tab, Esc vs the start of a sequence.
        (KeyCode::Enter, SHIFT, p, "\x1b[13;2u"),
        (KeyCode::Enter, CTRL, p, "\x1b[13;5u"),
        (KeyCode::Char('i'), CTRL, p, "\x1b[105;5u"),
        (KeyCode::Esc, NONE, p, "\x1b[27u"),
        (KeyCode::BackTab, SHIFT, p, "\x1b[9;2u"),
        (KeyCode::Tab, CTRL, p, "\x1b[9;5u"),
        (KeyCode::Char('c'), CTRL, p, "\x1b[99;5u"),
        (KeyCode::Char('x'), ALT, p, "\x1b[120;3u"),
        (KeyCode::Char('A'), CTRL | SHIFT, p, "\x1b[97;6u"),
        (KeyCode::Char('a'), CTRL | SHIFT, p, "\x1b[97;6u"),
        (KeyCode::Char('a'), SHIFT, p, "A"),
        (KeyCode::Char(' '), CTRL, p, "\x1b[32;5u"),
        (KeyCode::Backspace, ALT, p, "\x1b[127;3u"),
        (KeyCode::Char('x'), KeyModifiers::SUPER, p, "\x1b[120;9u"),
        // Functional keys keep their CSI forms.
        (KeyCode::Up, NONE, p, "\x1b[A"),
        (KeyCode::Up, SHIFT, p, "\x1b[1;2A"),
        (KeyCode::Delete, CTRL, p, "\x1b[3;5~"),
    ]);
}

#[test]
fn kitty_all_keys_as_escapes_and_alternate_keys() {
    let all = proto(1 | 8, 0);
    let alt_keys = proto(1 | 4 | 8, 0);
    check(&[
        (KeyCode::Char('a'), NONE, all, "\x1b[97u"),
        (KeyCode::Char('A'), SHIFT, all, "\x1b[97;2u"),
        (KeyCode::Enter, NONE, all, "\x1b[13u"),
        (KeyCode::Tab, NONE, all, "\x1b[9u"),
        (KeyCode::Backspace, NONE, all, "\x1b[127u"),
        (KeyCode::Char('A'), SHIFT, alt_keys, "\x1b[97:65;2u"),
        (KeyCode::Char('a'), CTRL, alt_keys, "\x1b[97;5u"),
        // Flag 8 alone (without 1) still means escapes for everything.
        (KeyCode::Char('z'), NONE, proto(8, 0), "\x1b[122u"),
        // Flag 2 alone (event types) changes nothing we send.
        (KeyCode::Enter, SHIFT, proto(2, 0), "\r"),
    ]);
}

#[test]
fn modify_other_keys_levels() {
    let one = proto(0, 1);
    let two = proto(0, 2);
    check(&[
        // Level 1: legacy control codes stay; the inexpressible combinations get the CSI form.
        (KeyCode::Char('a'), CTRL, one, "\x01"),
        (KeyCode::Char('i'), CTRL, one, "\t"),
        (KeyCode::Enter, SHIFT, one, "\x1b[27;2;13~"),
        (KeyCode::Enter, CTRL, one, "\x1b[27;5;13~"),
        (KeyCode::Tab, CTRL, one, "\x1b[27;5;9~"),
        (KeyCode::Char(';'), CTRL, one, "\x1b[27;5;59~"),
        (KeyCode::Char('1'), CTRL, one, "\x1b[27;5;49~"),
        (KeyCode::Char('A'), CTRL | SHIFT, one, "\x1b[27;6;65~"),
        // The same key as a kitty-speaking outer terminal reports it (lower case with Shift).
        (KeyCode::Char('a'), CTRL | SHIFT, one, "\x1b[27;6;65~"),
        (KeyCode::Char('a'), SHIFT, one, "A"),
        (KeyCode::Char('a'), NONE, one, "a"),
        (KeyCode::Char('x'), ALT, one, "\x1bx"),
        (KeyCode::BackTab, SHIFT, one, "\x1b[Z"),
        // Level 2: every Ctrl/Alt key.
        (KeyCode::Char('a'), CTRL, two, "\x1b[27;5;97~"),
        (KeyCode::Char('i'), CTRL, two, "\x1b[27;5;105~"),
        (KeyCode::Char('x'), ALT, two, "\x1b[27;3;120~"),
        (KeyCode::Enter, SHIFT, two, "\x1b[27;2;13~"),
        (KeyCode::BackTab, SHIFT, two, "\x1b[27;2;9~"),
        (KeyCode::Char('A'), SHIFT, two, "A"),
        (KeyCode::Enter, NONE, two, "\r"),
        (KeyCode::Up, CTRL, two, "\x1b[1;5A"),
        // The kitty flags win over modifyOtherKeys.
        (KeyCode::Enter, SHIFT, proto(1, 2), "\x1b[13;2u"),
    ]);
}

#[test]
fn the_protocol_is_read_from_the_panes_model_per_screen() {
    let mut screen = Screen::new(20, 5);
    assert_eq!(KeyProtocol::of(screen.view()), KeyProtocol::default());
    // A program pushes disambiguate on the main screen, then enters the alternate screen.
    screen.feed(b"\x1b[>1u");
    assert_eq!(KeyProtocol::of(screen.view()).kitty_flags, 1);
    screen.feed(b"\x1b[?1049h");
    assert_eq!(KeyProtocol::of(screen.view()).kitty_flags, 0);
    screen.feed(b"\x1b[>9u\x1b[>4;2m");
    assert_eq!(KeyProtocol::of(screen.view()), proto(9, 2));
    screen.feed(b"\x1b[<u\x1b[?1049l");
    assert_eq!(KeyProtocol::of(screen.view()), proto(1, 2));
}

#[test]
fn kitty_associated_text_follows_keys_that_type_text() {
    // Flag 16 only means something with flag 8 (every key as an escape code).
    let text = proto(8 | 16, 0);
    let alternates = proto(8 | 4 | 16, 0);
    check(&[
        (KeyCode::Char('a'), NONE, text, "\x1b[97;;97u"),
        (KeyCode::Char('A'), SHIFT, text, "\x1b[97;2;65u"),
        (KeyCode::Char('A'), SHIFT, alternates, "\x1b[97:65;2;65u"),
        (KeyCode::Char('é'), NONE, text, "\x1b[233;;233u"),
        // Ctrl and Alt type no text; keys that are not text carry none.
        (KeyCode::Char('a'), CTRL, text, "\x1b[97;5u"),
        (KeyCode::Char('a'), ALT, text, "\x1b[97;3u"),
        (KeyCode::Enter, NONE, text, "\x1b[13u"),
        (KeyCode::Esc, NONE, text, "\x1b[27u"),
        // Without flag 8, text stays text and flag 16 changes nothing.
        (KeyCode::Char('a'), NONE, proto(1 | 16, 0), "a"),
        (KeyCode::Char('a'), CTRL, proto(1 | 16, 0), "\x1b[97;5u"),
    ]);
}

#[test]
fn kitty_event_types_only_for_panes_that_pushed_flag_2() {
    use crossterm::event::KeyEventKind::{Press, Release, Repeat};
    let modes = Modes::default();
    let app_cursor = Modes {
        application_cursor: true,
        ..Modes::default()
    };
    let types = proto(1 | 2, 0);
    let all = proto(1 | 2 | 8, 0);
    let rows: &[(KeyCode, KeyModifiers, _, KeyProtocol, &Modes, &str)] = &[
        // A pane without flag 2: repeats are presses, releases are never sent.
        (KeyCode::Char('a'), NONE, Repeat, proto(1, 0), &modes, "a"),
        (KeyCode::Char('a'), NONE, Release, proto(1, 0), &modes, ""),
        (KeyCode::Up, NONE, Release, proto(0, 0), &modes, ""),
        (KeyCode::Enter, NONE, Release, proto(0, 2), &modes, ""),
        (
            KeyCode::Char('c'),
            CTRL,
            Repeat,
            proto(0, 0),
            &modes,
            "\x03",
        ),
        // Flag 2: presses unchanged.
        (KeyCode::Char('a'), NONE, Press, types, &modes, "a"),
        (KeyCode::Up, NONE, Press, types, &modes, "\x1b[A"),
        // Text keys: a repeat is the text again, a release is CSI u with :3.
        (KeyCode::Char('a'), NONE, Repeat, types, &modes, "a"),
        (
            KeyCode::Char('a'),
            NONE,
            Release,
            types,
            &modes,
            "\x1b[97;1:3u",
        ),
        (
            KeyCode::Char('A'),
            SHIFT,
            Release,
            types,
            &modes,
            "\x1b[97;2:3u",
        ),
        (
            KeyCode::Char('é'),
            NONE,
            Release,
            types,
            &modes,
            "\x1b[233;1:3u",
        ),
        // Keys already sent as escapes carry the type in their modifier field.
        (
            KeyCode::Char('c'),
            CTRL,
            Repeat,
            types,
            &modes,
            "\x1b[99;5:2u",
        ),
        (
            KeyCode::Char('c'),
            CTRL,
            Release,
            types,
            &modes,
            "\x1b[99;5:3u",
        ),
        (KeyCode::Esc, NONE, Repeat, types, &modes, "\x1b[27;1:2u"),
        (KeyCode::Esc, NONE, Release, types, &modes, "\x1b[27;1:3u"),
        (KeyCode::Up, NONE, Repeat, types, &modes, "\x1b[1;1:2A"),
        (
            KeyCode::Up,
            NONE,
            Release,
            types,
            &app_cursor,
            "\x1b[1;1:3A",
        ),
        (KeyCode::Left, SHIFT, Release, types, &modes, "\x1b[1;2:3D"),
        (KeyCode::Delete, NONE, Repeat, types, &modes, "\x1b[3;1:2~"),
        (KeyCode::PageUp, CTRL, Release, types, &modes, "\x1b[5;5:3~"),
        (KeyCode::F(1), NONE, Release, types, &modes, "\x1b[1;1:3P"),
        (KeyCode::F(3), NONE, Release, types, &modes, "\x1b[13;1:3~"),
        (KeyCode::F(5), NONE, Repeat, types, &modes, "\x1b[15;1:2~"),
        (
            KeyCode::Enter,
            SHIFT,
            Release,
            types,
            &modes,
            "\x1b[13;2:3u",
        ),
        // Unmodified Enter, Tab, Backspace: repeats as presses, no release without flag 8…
        (KeyCode::Enter, NONE, Repeat, types, &modes, "\r"),
        (KeyCode::Enter, NONE, Release, types, &modes, ""),
        (KeyCode::Tab, NONE, Release, types, &modes, ""),
        (KeyCode::Backspace, NONE, Release, types, &modes, ""),
        // …and with flag 8 every key is an escape with its type (associated text dropped).
        (KeyCode::Enter, NONE, Release, all, &modes, "\x1b[13;1:3u"),
        (
            KeyCode::Char('a'),
            NONE,
            Repeat,
            all,
            &modes,
            "\x1b[97;1:2u",
        ),
        (
            KeyCode::Char('a'),
            NONE,
            Release,
            proto(1 | 2 | 8 | 16, 0),
            &modes,
            "\x1b[97;1:3u",
        ),
    ];
    for (code, mods, kind, protocol, modes, want) in rows {
        let event = KeyEvent::new_with_kind(*code, *mods, *kind);
        let got = key(&event, modes, *protocol);
        assert_eq!(
            String::from_utf8_lossy(&got),
            *want,
            "{code:?} {mods:?} {kind:?} under {protocol:?}"
        );
    }
}
