//! Lending the keys: what the server may take is exactly what we would have sent unchanged, and
//! the keys are lent only in the state where we would have sent them to the painted pane.

use std::time::Instant;

use signaltty_proto::v1 as pb;

use super::{excluded, may_lend};
use crate::app::{App, Effect, Focus, Mode, Msg, Overlay, PaneEvent};
use crate::keymap::Keymap;
use crate::test_fixture::four_panes;
use crate::update::update;

/// A change to the app, named for the failure message.
type Case = (&'static str, Box<dyn Fn(&mut App)>);

/// The fixture in Insert mode on pane `b` (free of the fixture's decision).
fn inserting_on_b() -> App {
    let mut app = four_panes();
    for p in app.catalog.panes.values_mut() {
        p.pending_decision = None;
    }
    app.active_pane.insert("t1".into(), "b".into());
    app.mode = Mode::Insert;
    app.focus = Focus::Panes;
    app
}

/// What typing `key` (a terminal's bytes for one key) makes the app send to pane `b`.
fn sent(app: &mut App, key: &[u8]) -> Vec<u8> {
    let mut events = Vec::new();
    crate::input::Parser::new().feed(key, &mut events);
    let mut bytes = Vec::new();
    for event in events {
        let crossterm::event::Event::Key(key) = event else {
            panic!("{key:?} is not a key: {event:?}");
        };
        for effect in update(app, Msg::Key(key), Instant::now()) {
            if let Effect::Input { pane_id, bytes: b } = effect {
                assert_eq!(pane_id, "b");
                bytes.extend(b);
            }
        }
    }
    bytes
}

#[test]
fn every_byte_the_server_may_take_is_what_we_would_have_sent() {
    // The keyboard protocols a program may push that keep plain keys plain (kitty flags without
    // 8, modifyOtherKeys), and the modes that change other keys (DECCKM, keypad, bracketed
    // paste, mouse).
    let protocols: [&[u8]; 5] = [
        b"",
        b"\x1b[>1u",
        b"\x1b[>23u",
        b"\x1b[>4;2m",
        b"\x1b[?1h\x1b=\x1b[?2004h\x1b[?1000h\x1b[?1006h",
    ];
    for protocol in protocols {
        let mut app = inserting_on_b();
        let pane_id = "b".to_owned();
        let event = PaneEvent::Output(protocol.to_vec());
        update(&mut app, Msg::Pane { pane_id, event }, Instant::now());
        let taken: Vec<u8> = (0..=u8::MAX)
            .filter(|b| signaltty_tty::lend::taken(&[*b], &excluded(&app), kitty(&app)) == 1)
            .collect();
        assert_eq!(
            taken.len(),
            98,
            "{protocol:?}: printable ASCII, DEL, CR, Tab"
        );
        let typed = taken
            .into_iter()
            .map(|b| vec![b])
            .chain(["é", "μ", "π", "Π", "中", "😀"].map(|c| c.as_bytes().to_vec()));
        for key in typed {
            let whole = signaltty_tty::lend::taken(&key, &excluded(&app), kitty(&app));
            assert_eq!(whole, key.len(), "{key:?} is the server's");
            assert_eq!(
                sent(&mut app, &key),
                key,
                "{:?} under {:?}",
                String::from_utf8_lossy(&key),
                String::from_utf8_lossy(protocol)
            );
        }
    }
    // Every key as an escape code: nothing is the server's.
    let mut app = inserting_on_b();
    let pane_id = "b".to_owned();
    let event = PaneEvent::Output(b"\x1b[>9u".to_vec());
    update(&mut app, Msg::Pane { pane_id, event }, Instant::now());
    assert_eq!(signaltty_tty::lend::taken(b"a", "", kitty(&app)), 0);
    assert_ne!(sent(&mut app, b"a"), b"a");
}

/// The kitty flags of pane `b`'s program, as the server reads them.
fn kitty(app: &App) -> u8 {
    let screen = app.screens.get("b").expect("a model").view();
    screen
        .keyboard()
        .kitty_flags(usize::from(screen.alternate_screen()))
}

#[test]
fn plain_keys_the_insert_keymap_uses_are_handed_back() {
    assert_eq!(excluded(&inserting_on_b()), "", "defaults");
    let keymap = Keymap::from_config(
        r#"
[tui.keymap]
leader = "`"

[tui.keymap.insert]
"x y" = "NextTab"
"é" = "PrevTab"
"#,
    )
    .expect("valid");
    let mut app = inserting_on_b();
    app.keymap = keymap;
    assert_eq!(excluded(&app), "`xé");
}

#[test]
fn keys_are_lent_only_while_we_would_send_them_to_the_painted_pane() {
    let all = |_: &str| true;
    assert!(may_lend(&inserting_on_b(), Some("b"), all));
    let cases: Vec<Case> = vec![
        ("normal mode", Box::new(|a| a.mode = Mode::Normal)),
        ("the sidebar", Box::new(|a| a.focus = Focus::Sidebar)),
        (
            "an overlay",
            Box::new(|a| a.overlay = Some(Overlay::Help { offset: 0 })),
        ),
        (
            "a chord held",
            Box::new(|a| a.chord.held.push("ctrl-a".into())),
        ),
        (
            "attention typing would clear",
            Box::new(|a| {
                if let Some(p) = a.catalog.panes.get_mut("b") {
                    p.attention = pb::Attention::Unread as i32;
                }
            }),
        ),
    ];
    for (what, change) in cases {
        let mut app = inserting_on_b();
        change(&mut app);
        assert!(!may_lend(&app, Some("b"), all), "{what}");
    }
    let mut app = inserting_on_b();
    let pane_id = "b".to_owned();
    let event = PaneEvent::Output(b"\x1b[>8u".to_vec());
    update(&mut app, Msg::Pane { pane_id, event }, Instant::now());
    assert!(
        !may_lend(&app, Some("b"), all),
        "every key as an escape code"
    );
    let app = inserting_on_b();
    assert!(!may_lend(&app, Some("d"), all), "another pane painted");
    assert!(!may_lend(&app, None, all), "nothing painted");
    assert!(
        !may_lend(&app, Some("b"), |id| id != "b"),
        "typed bytes still on their way"
    );
}

/// In the tmux preset the prefix is the only key taken from typing: `ctrl-b` is never a byte
/// the server may write to the pane (it hands it back with the rest of its read), every plain
/// byte is the pane's, and the keys are not lent while the prefix waits for its key.
#[test]
fn the_tmux_prefix_is_handed_back_and_nothing_else_is_kept() {
    let mut app = crate::test_fixture::app_with(crate::keymap::Preset::Tmux, (100, 30));
    let kept = excluded(&app);
    assert_eq!(kept, "", "no plain key is the TUI's in the tmux preset");
    assert!(!signaltty_tty::lend::plain(0x02));
    assert_eq!(signaltty_tty::lend::taken(b"ls\x02%", &kept, 0), 2);
    for p in app.catalog.panes.values_mut() {
        p.pending_decision = None;
        p.attention = pb::Attention::None as i32;
    }
    let pane = app.focused_pane().map(|p| p.id.clone()).expect("pane");
    assert!(may_lend(&app, Some(&pane), |_| true));
    crate::dsl::press(&mut app, "ctrl-b", Instant::now());
    assert!(!may_lend(&app, Some(&pane), |_| true), "the prefix waits");
}
