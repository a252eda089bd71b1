//! `update()` tests for answering decisions by click and key, focus marking panes seen, and keys
//! reaching a pane in the keyboard protocol its program pushed. Geometry of the fixture at
//! 100×30: the sidebar is x 0–27 (tree rows from y 1: w, t1, a, a's options 1–3, b, t2, c);
//! pane a's content is x 28–63, y 2–28, so its decision box's options sit at y 27 (`[1] Allow
//! once` x 29–42, `[2] Always` x 45–54) and y 28 (`[3] Deny` x 29–36).

use std::time::Instant;

use crate::catalog::{Catalog, FeedMsg};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use signaltty_proto::v1 as pb;

use crate::app::{App, Effect, Msg, PaneEvent, Reply, Request};
use crate::dsl::press;
use crate::keymap::Keymap;
use crate::test_fixture::{app, catalog};
use crate::update::update;

fn answers(fx: &[Effect]) -> Vec<String> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Request(Request::Answer {
                pane_id, option_id, ..
            }) => Some(format!("{pane_id}:{option_id}")),
            _ => None,
        })
        .collect()
}

fn marked(fx: &[Effect]) -> Vec<String> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Request(Request::MarkSeen(id)) => Some(id.clone()),
            _ => None,
        })
        .collect()
}

fn inputs(fx: &[Effect]) -> String {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Input { bytes, .. } => Some(String::from_utf8_lossy(bytes).into_owned()),
            _ => None,
        })
        .collect()
}

fn left_click(app: &mut App, x: u16, y: u16, now: Instant) -> Vec<Effect> {
    let mut fx = Vec::new();
    for kind in [
        MouseEventKind::Down(MouseButton::Left),
        MouseEventKind::Up(MouseButton::Left),
    ] {
        fx.extend(update(
            app,
            Msg::Mouse(MouseEvent {
                kind,
                column: x,
                row: y,
                modifiers: KeyModifiers::NONE,
            }),
            now,
        ));
    }
    fx
}

fn loaded(catalog: Catalog) -> (App, Vec<Effect>) {
    let mut app = App::new(
        Keymap::preset(crate::keymap::Preset::Modal),
        (100, 30),
        "/proj".into(),
    );
    let fx = update(
        &mut app,
        Msg::Feed(FeedMsg::Loaded(Box::new(catalog))),
        Instant::now(),
    );
    (app, fx)
}

fn snapshot(app: &mut App, pane: &str, screen: &[u8]) {
    update(
        app,
        Msg::Pane {
            pane_id: pane.into(),
            event: PaneEvent::Snapshot {
                screen: screen.to_vec(),
                cols: 36,
                rows: 27,
            },
        },
        Instant::now(),
    );
}

#[test]
fn clicking_an_option_on_the_pane_answers_it_once() {
    let mut app = app();
    let now = Instant::now();
    // Focus b first: a click answers a's decision without a's being focused.
    left_click(&mut app, 70, 10, now);
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("b"));
    let fx = left_click(&mut app, 46, 26, now);
    assert_eq!(answers(&fx), ["a:always"]);
    assert_eq!(
        app.focused_pane().map(|p| p.id.as_str()),
        Some("b"),
        "answering does not move the focus"
    );
    assert!(
        app.selection.is_none(),
        "a click on a button selects nothing"
    );
    // The second click of a double click sends nothing more.
    let fx = left_click(&mut app, 46, 26, now);
    assert!(answers(&fx).is_empty());
    // A gap between two buttons, and the detail row, are not options.
    let mut app = crate::test_fixture::app();
    assert!(answers(&left_click(&mut app, 44, 26, now)).is_empty());
    assert!(answers(&left_click(&mut app, 30, 25, now)).is_empty());
    assert_eq!(answers(&left_click(&mut app, 30, 27, now)), ["a:deny"]);
}

#[test]
fn a_refused_answer_can_be_given_again() {
    let mut app = app();
    let now = Instant::now();
    assert_eq!(answers(&press(&mut app, "a 1", now)), ["a:once"]);
    assert!(answers(&press(&mut app, "a 1", now)).is_empty());
    update(
        &mut app,
        Msg::Reply(Reply::Failed("the agent stopped waiting".into())),
        now,
    );
    assert_eq!(answers(&press(&mut app, "a 1", now)), ["a:once"]);
}

#[test]
fn the_sidebar_lists_the_options_clickable_and_answerable_with_enter() {
    let mut app = app();
    let now = Instant::now();
    // Row y 6 is a's third option.
    assert_eq!(answers(&left_click(&mut app, 10, 6, now)), ["a:deny"]);
    // By keys: the highlight (on the focused pane, a) moved to its first option, then Enter.
    let mut app = crate::test_fixture::app();
    press(&mut app, "<tab> j", now);
    assert_eq!(
        app.sidebar_rows().get(app.highlight),
        Some(&crate::app::Row::Option("a".into(), 1))
    );
    assert_eq!(answers(&press(&mut app, "<enter>", now)), ["a:once"]);
    // A click on a pane row still only highlights it.
    let mut app = crate::test_fixture::app();
    assert!(answers(&left_click(&mut app, 10, 7, now)).is_empty());
    assert_eq!(
        app.sidebar_rows().get(app.highlight),
        Some(&crate::app::Row::Pane("b".into()))
    );
}

#[test]
fn an_option_click_is_not_passed_to_a_program_that_wants_the_mouse() {
    let mut app = app();
    let now = Instant::now();
    snapshot(&mut app, "a", b"\x1b[?1000h\x1b[?1006h");
    press(&mut app, "i", now);
    let fx = left_click(&mut app, 30, 26, now);
    assert_eq!(answers(&fx), ["a:once"]);
    assert_eq!(inputs(&fx), "", "the program does not see the click");
    // Above the box, the click is the program's.
    let fx = left_click(&mut app, 30, 5, now);
    assert!(inputs(&fx).starts_with("\x1b[<0;3;4M"), "{:?}", inputs(&fx));
}

#[test]
fn the_wheel_goes_to_a_program_that_asked_for_the_mouse_in_any_mode() {
    let mut app = app();
    let now = Instant::now();
    let wheel = |x, y| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollUp,
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        })
    };
    // b (not focused, Normal mode) runs a program with SGR mouse reporting: it gets the wheel.
    snapshot(&mut app, "b", b"\x1b[?1000h\x1b[?1006h");
    let fx = update(&mut app, wheel(70, 10), now);
    assert_eq!(inputs(&fx), "\x1b[<64;6;9M");
    assert!(app.overlay.is_none());
    // a did not ask: the wheel opens copy mode.
    snapshot(&mut app, "a", b"");
    update(&mut app, wheel(30, 10), now);
    assert!(matches!(app.overlay, Some(crate::app::Overlay::Copy(_))));
}

#[test]
fn focusing_a_pane_marks_what_is_unread_there_seen() {
    let mut c = catalog();
    if let Some(b) = c.panes.get_mut("b") {
        b.attention = pb::Attention::Unread as i32;
    }
    if let Some(pane) = c.panes.get_mut("c") {
        pane.attention = pb::Attention::InputRequired as i32;
    }
    // a (focused at start) has a pending permission and nothing unread: nothing to mark.
    let (mut app, fx) = loaded(c);
    assert!(marked(&fx).is_empty());
    let now = Instant::now();
    // A click on b: b's unread is seen.
    assert_eq!(marked(&left_click(&mut app, 70, 10, now)), ["b"]);
    // (The server's event for that MarkSeen.)
    if let Some(b) = app.catalog.panes.get_mut("b") {
        b.attention = pb::Attention::None as i32;
    }
    // Moving between panes that are already seen marks nothing more.
    assert!(marked(&press(&mut app, "h", now)).is_empty());
    assert!(marked(&press(&mut app, "l", now)).is_empty());
    // c waits for typed input: looking at it does not answer it.
    assert!(marked(&press(&mut app, "g t", now)).is_empty());
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("c"));
}

#[test]
fn unread_notifications_are_seen_at_start_and_typing_is_looking() {
    let mut c = catalog();
    c.unread.push(pb::Notification {
        id: "n1".into(),
        pane_id: "a".into(),
        ..Default::default()
    });
    let (mut app, fx) = loaded(c);
    assert_eq!(
        marked(&fx),
        ["a"],
        "the pane shown focused at start is looked at"
    );
    let now = Instant::now();
    left_click(&mut app, 70, 10, now);
    // b finishes a turn while focused: not marked (the user may be away)…
    if let Some(b) = app.catalog.panes.get_mut("b") {
        b.attention = pb::Attention::Unread as i32;
    }
    assert!(marked(&update(&mut app, Msg::Tick, now)).is_empty());
    // …until they type into it.
    let fx = press(&mut app, "i x", now);
    assert_eq!(inputs(&fx), "x");
    assert_eq!(marked(&fx), ["b"]);
}

#[test]
fn programs_that_asked_for_focus_reports_hear_the_focus_move() {
    let mut app = app();
    let now = Instant::now();
    snapshot(&mut app, "a", b"\x1b[?1004h");
    snapshot(&mut app, "b", b"\x1b[?1004h");
    let fx = press(&mut app, "l", now);
    let reports: Vec<(String, String)> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Input { pane_id, bytes } => {
                Some((pane_id.clone(), String::from_utf8_lossy(bytes).into_owned()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        reports,
        [
            ("a".to_owned(), "\x1b[O".to_owned()),
            ("b".to_owned(), "\x1b[I".to_owned())
        ]
    );
    // The outer terminal losing and regaining the focus is passed on to the focused pane.
    assert_eq!(inputs(&update(&mut app, Msg::FocusLost, now)), "\x1b[O");
    assert_eq!(inputs(&update(&mut app, Msg::FocusGained, now)), "\x1b[I");
    // c did not ask: a tab switch only tells b it lost the focus.
    let fx = press(&mut app, "g t", now);
    assert_eq!(inputs(&fx), "\x1b[O");
    assert!(inputs(&update(&mut app, Msg::FocusLost, now)).is_empty());
}

#[test]
fn keys_reach_the_pane_in_the_protocol_its_program_pushed() {
    let key = |code, mods| Msg::Key(KeyEvent::new(code, mods));
    let now = Instant::now();
    let mut app = app();
    // No protocol: Shift+Enter is Enter, as in any legacy terminal.
    press(&mut app, "i", now);
    let fx = update(&mut app, key(KeyCode::Enter, KeyModifiers::SHIFT), now);
    assert_eq!(inputs(&fx), "\r");
    // The agent pushes the kitty flags (disambiguate): Shift+Enter and Ctrl+I are distinct.
    snapshot(&mut app, "a", b"");
    update(
        &mut app,
        Msg::Pane {
            pane_id: "a".into(),
            event: PaneEvent::Output(b"\x1b[>1u".to_vec()),
        },
        now,
    );
    let fx = update(&mut app, key(KeyCode::Enter, KeyModifiers::SHIFT), now);
    assert_eq!(inputs(&fx), "\x1b[13;2u");
    let fx = update(
        &mut app,
        key(KeyCode::Char('i'), KeyModifiers::CONTROL),
        now,
    );
    assert_eq!(inputs(&fx), "\x1b[105;5u");
    let fx = update(&mut app, key(KeyCode::Tab, KeyModifiers::NONE), now);
    assert_eq!(inputs(&fx), "\t");
    // The leader typed twice reaches the pane in the same protocol.
    let fx = press(&mut app, "ctrl-a ctrl-a", now);
    assert_eq!(inputs(&fx), "\x1b[97;5u");
    // modifyOtherKeys 2 on b.
    snapshot(&mut app, "b", b"\x1b[>4;2m");
    press(&mut app, "ctrl-a l i", now);
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("b"));
    let fx = update(&mut app, key(KeyCode::Enter, KeyModifiers::SHIFT), now);
    assert_eq!(inputs(&fx), "\x1b[27;2;13~");
}

#[test]
fn releases_reach_only_the_pane_that_got_the_press_and_asked_for_event_types() {
    use crossterm::event::KeyEventKind::{Release, Repeat};
    let key = |code, kind| Msg::Key(KeyEvent::new_with_kind(code, KeyModifiers::NONE, kind));
    let now = Instant::now();
    let mut app = app();
    snapshot(&mut app, "a", b"");
    // Normal mode: a release never reaches the keymap (`i` released does not enter Insert),
    // and costs no frame.
    app.dirty = false;
    let fx = update(&mut app, key(KeyCode::Char('i'), Release), now);
    assert!(fx.is_empty() && app.mode == crate::app::Mode::Normal && !app.dirty);
    // A repeat acts like a press.
    update(&mut app, key(KeyCode::Char('i'), Repeat), now);
    assert_eq!(app.mode, crate::app::Mode::Insert);
    // The release of `i` (its press went to the keymap) goes nowhere.
    assert!(inputs(&update(&mut app, key(KeyCode::Char('i'), Release), now)).is_empty());
    // A pane without flag 2: repeats are presses, releases are not sent.
    update(
        &mut app,
        key(KeyCode::Char('x'), crossterm::event::KeyEventKind::Press),
        now,
    );
    assert_eq!(
        inputs(&update(&mut app, key(KeyCode::Char('x'), Repeat), now)),
        "x"
    );
    assert!(inputs(&update(&mut app, key(KeyCode::Char('x'), Release), now)).is_empty());
    // The program pushes disambiguate + event types: the release follows its press.
    update(
        &mut app,
        Msg::Pane {
            pane_id: "a".into(),
            event: PaneEvent::Output(b"\x1b[>3u".to_vec()),
        },
        now,
    );
    assert_eq!(inputs(&press(&mut app, "x", now)), "x");
    assert_eq!(
        inputs(&update(&mut app, key(KeyCode::Up, Repeat), now)),
        "\x1b[1;1:2A"
    );
    app.dirty = false;
    let fx = update(&mut app, key(KeyCode::Char('x'), Release), now);
    assert_eq!(inputs(&fx), "\x1b[120;1:3u");
    assert!(!app.dirty, "a release draws nothing");
    assert_eq!(
        inputs(&update(&mut app, key(KeyCode::Up, Release), now)),
        "\x1b[1;1:3A"
    );
    // Released once only.
    assert!(inputs(&update(&mut app, key(KeyCode::Char('x'), Release), now)).is_empty());
}
