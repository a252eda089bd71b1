use std::time::{Duration, Instant};

use crate::catalog::FeedMsg;
use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use signaltty_proto::v1 as pb;

use super::*;
use crate::app::{
    Attachment, Confirm, Effect, Focus, Link, Mode, Msg, Overlay, PaneEvent, Reply, Request,
};
use crate::dsl::press;
use crate::keymap::Keymap;
use crate::test_fixture::{app, catalog, leaf, pane, tab};

fn requests(fx: &[Effect]) -> Vec<Request> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Request(r)
                if !matches!(
                    r,
                    Request::SetActiveTab { .. } | Request::SetActivePane { .. }
                ) =>
            {
                Some(r.clone())
            }
            _ => None,
        })
        .collect()
}

fn inputs(fx: &[Effect]) -> Vec<u8> {
    fx.iter()
        .flat_map(|e| match e {
            Effect::Input { bytes, .. } => bytes.clone(),
            _ => Vec::new(),
        })
        .collect()
}

fn click(kind: MouseEventKind, x: u16, y: u16) -> Msg {
    Msg::Mouse(MouseEvent {
        kind,
        column: x,
        row: y,
        modifiers: KeyModifiers::NONE,
    })
}

#[test]
fn the_load_attaches_the_current_tab_interactively_and_watches_the_rest() {
    let mut app = App::new(
        Keymap::preset(crate::keymap::Preset::Modal),
        (100, 30),
        "/proj".into(),
    );
    let fx = update(
        &mut app,
        Msg::Feed(FeedMsg::Loaded(Box::new(catalog()))),
        Instant::now(),
    );
    let attach = |id: &str| {
        fx.iter().find_map(|e| match e {
            Effect::Attach { pane_id, how } if pane_id == id => Some(*how),
            _ => None,
        })
    };
    // 100 cols - 28 sidebar = 72: a gets round(71 / 2) = 36 cols, the divider 1, b 35; rows:
    // 30 - status - tab bar - title = 27.
    assert_eq!(
        attach("a"),
        Some(Attachment::Interactive { cols: 36, rows: 27 })
    );
    assert_eq!(
        attach("b"),
        Some(Attachment::Interactive { cols: 35, rows: 27 })
    );
    assert_eq!(attach("c"), Some(Attachment::Watching));
    assert_eq!(app.workspace.as_deref(), Some("w"));
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("a"));
}

#[test]
fn a_start_directory_without_a_workspace_creates_one_once() {
    let mut app = App::new(
        Keymap::preset(crate::keymap::Preset::Modal),
        (100, 30),
        "/elsewhere".into(),
    );
    let fx = update(
        &mut app,
        Msg::Feed(FeedMsg::Loaded(Box::default())),
        Instant::now(),
    );
    assert_eq!(
        requests(&fx),
        vec![Request::CreateWorkspace {
            cwd: "/elsewhere".into()
        }]
    );
    let fx = update(&mut app, Msg::Feed(FeedMsg::Live), Instant::now());
    assert!(requests(&fx).is_empty());
}

#[test]
fn splitting_typing_and_the_leader() {
    let mut app = app();
    let now = Instant::now();
    let fx = press(&mut app, "%", now);
    assert_eq!(
        requests(&fx),
        vec![Request::Split {
            pane_id: "a".into(),
            direction: pb::Direction::Right
        }]
    );
    let fx = press(&mut app, "\"", now);
    assert_eq!(
        requests(&fx),
        vec![Request::Split {
            pane_id: "a".into(),
            direction: pb::Direction::Down
        }]
    );
    let fx = press(&mut app, "i echo <space> hi <enter>", now);
    assert_eq!(app.mode, Mode::Insert);
    assert_eq!(inputs(&fx), b"echo hi\r");
    // In Insert mode the TUI's keys are the program's: `q` is typed, not Quit.
    let fx = press(&mut app, "q ctrl-c", now);
    assert_eq!(inputs(&fx), b"q\x03");
    assert!(!app.quit);
    // The leader leaves Insert; pressed twice it sends itself and returns to Insert.
    press(&mut app, "ctrl-a", now);
    assert_eq!(app.mode, Mode::Normal);
    let fx = press(&mut app, "ctrl-a", now);
    assert_eq!(inputs(&fx), [0x01]);
    assert_eq!(app.mode, Mode::Insert);
}

#[test]
fn focus_moves_geometrically_and_tabs_switch_with_their_attachments() {
    let mut app = app();
    let now = Instant::now();
    press(&mut app, "l", now);
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("b"));
    press(&mut app, "ctrl-w h", now);
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("a"));
    let fx = press(&mut app, "g t", now);
    assert_eq!(app.current_tab().map(|t| t.id.as_str()), Some("t2"));
    assert!(fx.contains(&Effect::Attach {
        pane_id: "c".into(),
        how: Attachment::Interactive { cols: 72, rows: 27 }
    }));
    assert!(fx.contains(&Effect::Attach {
        pane_id: "a".into(),
        how: Attachment::Watching
    }));
    assert!(fx.contains(&Effect::Request(Request::SetActiveTab {
        workspace_id: "w".into(),
        tab_id: "t2".into()
    })));
    press(&mut app, "g T", now);
    assert_eq!(app.current_tab().map(|t| t.id.as_str()), Some("t1"));
}

#[test]
fn a_decision_is_answered_only_in_its_focused_box_and_an_answer_elsewhere_removes_it() {
    let mut app = app();
    let now = Instant::now();
    // A digit is a tab, even with a decision on the focused pane.
    let fx = press(&mut app, "2", now);
    assert!(
        requests(&fx)
            .iter()
            .all(|r| !matches!(r, Request::Answer { .. }))
    );
    assert_eq!(app.current_tab().map(|t| t.id.as_str()), Some("t2"));
    press(&mut app, "1", now);
    // `a` focuses the box; then the digit answers.
    let fx = press(&mut app, "a 2", now);
    assert_eq!(
        requests(&fx),
        vec![Request::Answer {
            pane_id: "a".into(),
            decision_id: "dec_1".into(),
            option_id: "always".into()
        }]
    );
    assert_eq!(app.overlay, None, "answering closes the box");
    // Esc leaves a focused box unanswered; arrows and Enter answer the highlighted option.
    let mut app = crate::test_fixture::app();
    assert!(requests(&press(&mut app, "a <esc>", now)).is_empty());
    assert_eq!(app.overlay, None);
    let fx = press(&mut app, "a <right> <right> <enter>", now);
    assert!(
        matches!(&requests(&fx)[..], [Request::Answer { option_id, .. }] if option_id == "deny")
    );
    // Answered by another client: gone at once, and a focused box with it.
    let mut app = crate::test_fixture::app();
    press(&mut app, "a", now);
    assert!(app.overlay.is_some());
    let event = pb::Event {
        seq: 11,
        at: None,
        kind: Some(pb::event::Kind::DecisionAnswered(pb::DecisionAnswered {
            decision_id: "dec_1".into(),
            pane_id: "a".into(),
            option_id: "once".into(),
        })),
    };
    update(&mut app, Msg::Feed(FeedMsg::Event(Box::new(event))), now);
    assert!(
        app.focused_pane()
            .is_some_and(|p| p.pending_decision.is_none())
    );
    assert_eq!(app.overlay, None);
}

#[test]
fn closing_always_asks_and_only_y_confirms() {
    let mut app = app();
    let now = Instant::now();
    let fx = press(&mut app, "x", now);
    assert!(requests(&fx).is_empty());
    assert_eq!(
        app.overlay,
        Some(Overlay::Confirm(Confirm::ClosePane("a".into())))
    );
    let fx = press(&mut app, "q", now);
    assert!(requests(&fx).is_empty() && app.overlay.is_none() && !app.quit);
    let fx = press(&mut app, "x y", now);
    assert_eq!(requests(&fx), vec![Request::ClosePane("a".into())]);
    let fx = press(&mut app, "X y", now);
    assert_eq!(requests(&fx), vec![Request::CloseTab("t1".into())]);
}

#[test]
fn the_window_resize_resizes_every_visible_pane() {
    let mut app = app();
    let fx = update(&mut app, Msg::Resize(120, 40), Instant::now());
    assert!(fx.contains(&Effect::ResizeAttached {
        pane_id: "a".into(),
        cols: 46,
        rows: 37
    }));
    assert!(fx.contains(&Effect::ResizeAttached {
        pane_id: "b".into(),
        cols: 45,
        rows: 37
    }));
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::ResizeAttached { pane_id, .. } if pane_id == "c"))
    );
}

#[test]
fn mouse_click_focuses_and_dragging_a_divider_sets_the_ratio() {
    let mut app = app();
    let now = Instant::now();
    // b's content starts at x = 28 + 36 + 1 = 65.
    update(
        &mut app,
        click(MouseEventKind::Down(MouseButton::Left), 70, 10),
        now,
    );
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("b"));
    // The divider is at x = 64.
    update(
        &mut app,
        click(MouseEventKind::Down(MouseButton::Left), 64, 10),
        now,
    );
    assert!(app.drag.is_some());
    let fx = update(
        &mut app,
        click(MouseEventKind::Drag(MouseButton::Left), 46, 10),
        now,
    );
    let ratio = match requests(&fx).as_slice() {
        [
            Request::SetRatio {
                tab_id,
                path,
                ratio,
            },
        ] if tab_id == "t1" && path.is_empty() => *ratio,
        other => panic!("{other:?}"),
    };
    assert!((ratio - 18.0 / 71.0).abs() < 1e-4, "{ratio}");
    update(
        &mut app,
        click(MouseEventKind::Up(MouseButton::Left), 46, 10),
        now,
    );
    assert!(app.drag.is_none());
}

#[test]
fn mouse_goes_to_the_program_when_it_asked_for_it_in_insert_mode() {
    let mut app = app();
    let now = Instant::now();
    update(
        &mut app,
        Msg::Pane {
            pane_id: "a".into(),
            event: PaneEvent::Snapshot {
                screen: b"\x1b[?1000h\x1b[?1006h".to_vec(),
                cols: 36,
                rows: 27,
            },
        },
        now,
    );
    press(&mut app, "i", now);
    // a's content starts at (28, 2).
    let fx = update(
        &mut app,
        click(MouseEventKind::Down(MouseButton::Left), 30, 5),
        now,
    );
    assert_eq!(inputs(&fx), b"\x1b[<0;3;4M");
    // In Normal mode the TUI keeps the click.
    press(&mut app, "ctrl-a", now);
    let fx = update(
        &mut app,
        click(MouseEventKind::Down(MouseButton::Left), 30, 5),
        now,
    );
    assert!(inputs(&fx).is_empty());
}

#[test]
fn resize_keys_move_the_nearest_divider() {
    let mut app = app();
    let fx = press(&mut app, "L", Instant::now());
    match requests(&fx).as_slice() {
        [Request::SetRatio { ratio, .. }] => assert!(*ratio > 0.5, "{ratio}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_dropped_feed_shows_reconnecting_and_asks_nothing_until_live() {
    let mut app = app();
    let now = Instant::now();
    let fx = update(
        &mut app,
        Msg::Feed(FeedMsg::Disconnected {
            reason: "gone".into(),
            retry_in: Duration::from_secs(1),
        }),
        now,
    );
    assert_eq!(
        app.link,
        Link::Reconnecting {
            reason: "gone".into()
        }
    );
    assert!(fx.is_empty());
    let fx = update(&mut app, Msg::Resize(90, 30), now);
    assert!(fx.is_empty(), "no resizes while the server is away: {fx:?}");
    update(
        &mut app,
        Msg::Feed(FeedMsg::Loaded(Box::new(catalog()))),
        now,
    );
    assert_eq!(app.link, Link::Live);
}

#[test]
fn the_spawn_form_sends_the_command_label_and_env() {
    let mut app = app();
    let now = Instant::now();
    press(&mut app, "s", now);
    assert!(matches!(app.overlay, Some(Overlay::Spawn(_))));
    let fx = press(&mut app, "claude <tab> agent <tab> A=1 <enter>", now);
    match requests(&fx).as_slice() {
        [
            Request::Spawn {
                workspace_id,
                argv,
                title,
                env,
                ..
            },
        ] => {
            assert_eq!(workspace_id, "w");
            assert_eq!(argv, &["claude".to_string()]);
            assert_eq!(title, "agent");
            assert_eq!(env, &[("A".to_string(), "1".to_string())]);
        }
        other => panic!("{other:?}"),
    }
    assert!(app.overlay.is_none());
}

#[test]
fn a_failed_request_is_a_toast_that_expires() {
    let mut app = app();
    let now = Instant::now();
    update(
        &mut app,
        Msg::Reply(Reply::Failed("no such pane (NO_SUCH_PANE)".into())),
        now,
    );
    assert_eq!(app.toasts.len(), 1);
    assert_eq!(app.deadline(now), Some(now + crate::app::TOAST_TTL));
    update(&mut app, Msg::Tick, now + Duration::from_secs(6));
    assert!(app.toasts.is_empty());
    assert_eq!(
        app.deadline(now + Duration::from_secs(6)),
        None,
        "idle: nothing to wake for"
    );
}

#[test]
fn the_sidebar_navigates_and_opens_rows() {
    let mut app = app();
    let now = Instant::now();
    press(&mut app, "<tab>", now);
    assert_eq!(app.focus, Focus::Sidebar);
    // Rows: w, t1, a, a's three decision options, b, t2, c.
    press(&mut app, "j j j j j j j j", now);
    assert_eq!(app.highlight, 8);
    press(&mut app, "<enter>", now);
    assert_eq!(app.focus, Focus::Panes);
    assert_eq!(app.current_tab().map(|t| t.id.as_str()), Some("t2"));
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("c"));
}

#[test]
fn next_attention_jumps_to_the_permission_request() {
    let mut app = app();
    let now = Instant::now();
    press(&mut app, "g t", now);
    press(&mut app, "n", now);
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("a"));
}

#[test]
fn pane_output_feeds_its_model() {
    let mut app = app();
    let now = Instant::now();
    update(
        &mut app,
        Msg::Pane {
            pane_id: "b".into(),
            event: PaneEvent::Snapshot {
                screen: b"$ ".to_vec(),
                cols: 36,
                rows: 27,
            },
        },
        now,
    );
    update(
        &mut app,
        Msg::Pane {
            pane_id: "b".into(),
            event: PaneEvent::Output(b"echo hi\r\nhi\r\n".to_vec()),
        },
        now,
    );
    assert_eq!(app.screens["b"].contents(false), "$ echo hi\nhi");
}

#[test]
fn output_of_a_hidden_pane_needs_no_frame() {
    let mut app = app();
    let now = Instant::now();
    // The first output flags c's tab with tmux's `#` (a frame for the tab bar); more does not.
    update(
        &mut app,
        Msg::Pane {
            pane_id: "c".into(),
            event: PaneEvent::Output(b"x".to_vec()),
        },
        now,
    );
    app.dirty = false;
    update(
        &mut app,
        Msg::Pane {
            pane_id: "c".into(),
            event: PaneEvent::Output(b"x".to_vec()),
        },
        now,
    );
    assert!(!app.dirty, "c is on another tab");
    assert!(app.damaged.is_empty(), "c is on another tab");
    update(
        &mut app,
        Msg::Pane {
            pane_id: "a".into(),
            event: PaneEvent::Output(b"x".to_vec()),
        },
        now,
    );
    // A visible pane's output damages that pane only (its changed rows are drawn), not the
    // whole screen.
    assert!(!app.dirty);
    assert!(app.damaged.contains("a"));
}

#[test]
fn dragging_over_pane_text_copies_it() {
    let mut app = app();
    let now = Instant::now();
    update(
        &mut app,
        Msg::Pane {
            pane_id: "b".into(),
            event: PaneEvent::Snapshot {
                screen: b"hello world\r\nsecond line".to_vec(),
                cols: 35,
                rows: 27,
            },
        },
        now,
    );
    // b's content starts at (65, 2): select from "world" to "second".
    update(
        &mut app,
        click(MouseEventKind::Down(MouseButton::Left), 65 + 6, 2),
        now,
    );
    assert_eq!(
        app.focused_pane().map(|p| p.id.as_str()),
        Some("b"),
        "the press still focuses"
    );
    update(
        &mut app,
        click(MouseEventKind::Drag(MouseButton::Left), 65 + 5, 3),
        now,
    );
    let fx = update(
        &mut app,
        click(MouseEventKind::Up(MouseButton::Left), 65 + 5, 3),
        now,
    );
    assert!(fx.contains(&Effect::Copy("world\nsecond".into())), "{fx:?}");
    assert!(app.selection.is_none());
}

#[test]
fn a_spawn_reply_before_its_tab_arrives_still_shows_the_new_tab() {
    let mut app = app();
    let now = Instant::now();
    // The RPC reply races the event stream: the tab is not in the catalog yet.
    update(
        &mut app,
        Msg::Reply(Reply::Spawned {
            workspace_id: "w".into(),
            tab_id: "t3".into(),
            pane_id: "d".into(),
        }),
        now,
    );
    assert_eq!(app.current_tab().map(|t| t.id.as_str()), Some("t1"));
    let mut later = catalog();
    later.workspaces[0].tab_ids.push("t3".into());
    later
        .tabs
        .insert("t3".into(), tab("t3", "agent", leaf("d"), &["d"]));
    later.panes.insert("d".into(), pane("d", "t3", "claude"));
    update(&mut app, Msg::Feed(FeedMsg::Loaded(Box::new(later))), now);
    assert_eq!(app.current_tab().map(|t| t.id.as_str()), Some("t3"));
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("d"));
}
