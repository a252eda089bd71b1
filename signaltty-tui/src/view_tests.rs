//! Frames rendered into ratatui's `TestBackend`, compared with reviewed insta snapshots.

use std::time::Instant;

use crate::catalog::FeedMsg;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use signaltty_proto::v1 as pb;

use crate::app::{App, Link, Msg, PaneEvent};
use crate::dsl::press;
use crate::test_fixture::{app, four_pane_layout, leaf, pane, render, tab};
use crate::update::update;

fn with_output(mut app: App) -> App {
    let now = Instant::now();
    for (id, text) in [
        ("a", "Refactoring the handler…\r\n"),
        ("b", "$ cargo test\r\ntest result: ok\r\n$ "),
    ] {
        update(
            &mut app,
            Msg::Pane {
                pane_id: id.into(),
                event: PaneEvent::Snapshot {
                    screen: text.as_bytes().to_vec(),
                    cols: 36,
                    rows: 27,
                },
            },
            now,
        );
    }
    app
}

#[test]
fn main_screen_with_sidebar_split_and_a_decision() {
    insta::assert_snapshot!("main", render(&with_output(app())));
}

#[test]
fn help_overlay() {
    let mut app = app();
    press(&mut app, "?", Instant::now());
    insta::assert_snapshot!("help", render(&app));
}

#[test]
fn spawn_modal() {
    let mut app = app();
    press(&mut app, "s claude <tab> reviewer", Instant::now());
    insta::assert_snapshot!("spawn", render(&app));
}

#[test]
fn reconnecting_overlay_over_the_frozen_frame() {
    let mut app = with_output(app());
    update(
        &mut app,
        Msg::Feed(FeedMsg::Disconnected {
            reason: "transport error".into(),
            retry_in: std::time::Duration::from_secs(2),
        }),
        Instant::now(),
    );
    assert!(matches!(app.link, Link::Reconnecting { .. }));
    insta::assert_snapshot!("reconnecting", render(&app));
}

#[test]
fn notifications_overlay() {
    let mut app = app();
    app.catalog.unread.push(pb::Notification {
        id: "n1".into(),
        pane_id: "b".into(),
        title: "tests".into(),
        body: "all green".into(),
        ..Default::default()
    });
    press(&mut app, "N", Instant::now());
    insta::assert_snapshot!("notifications", render(&app));
}

#[test]
fn tab_bar_truncates_many_tabs() {
    let mut app = app();
    app.size = (70, 12);
    let ws = &mut app.catalog.workspaces[0];
    for i in 3..=12 {
        let id = format!("t{i}");
        ws.tab_ids.push(id.clone());
        app.catalog.tabs.insert(
            id.clone(),
            tab(
                &id,
                &format!("a long tab title {i}"),
                leaf(&format!("p{i}")),
                &[&format!("p{i}")],
            ),
        );
    }
    app.sidebar_visible = false;
    insta::assert_snapshot!("tabs_truncated", render(&app));
}

#[test]
fn nested_splits_and_sidebar_focus() {
    let mut app = app();
    four_pane_layout(&mut app);
    app.catalog.panes.insert("d".into(), pane("d", "t1", "vim"));
    let mut e = pane("e", "t1", "build");
    e.lifecycle = pb::Lifecycle::Failed as i32;
    e.attention = pb::Attention::Error as i32;
    app.catalog.panes.insert("e".into(), e);
    press(&mut app, "<tab> j j", Instant::now());
    insta::assert_snapshot!("nested", render(&app));
}

#[test]
fn copy_mode_shows_the_history_in_colour_in_the_panes_place_and_search_matches() {
    use ratatui::style::{Color, Modifier};

    let mut app = app();
    app.size = (60, 8);
    let now = Instant::now();
    press(&mut app, "/", now);
    let (lines, styled) = crate::styled::parse(&[
        "$ cargo build".into(),
        "\x1b[0;1;31merror\x1b[m: mismatched types".into(),
        "\x1b[0;32mok\x1b[m".into(),
    ]);
    update(
        &mut app,
        Msg::Reply(crate::app::Reply::Lines {
            pane_id: "a".into(),
            lines,
            styled,
        }),
        now,
    );
    let (w, h) = app.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal.draw(|f| super::view(&app, f)).expect("draw");
    let text = render(&app);
    insta::assert_snapshot!("scrollback", text);
    let buf = terminal.backend().buffer().clone();
    // The view is in the pane's place; its line "error: …" is red and bold, then default.
    let (y, x) = text
        .lines()
        .enumerate()
        .find_map(|(y, l)| l.find("error:").map(|i| (y, l[..i].chars().count())))
        .expect("error line");
    let (x, y) = (x as u16, y as u16);
    assert_eq!(buf[(x, y)].fg, Color::Indexed(1));
    assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));
    assert_eq!(buf[(x + 6, y)].fg, Color::Reset);
    // (the cursor sits on the last line's first cell)
    assert_eq!(buf[(x + 1, y + 1)].fg, Color::Indexed(2));
    // A search for "mismatched" highlights the match (search colours over the line's).
    press(&mut app, "/ mismatched <enter> k", now);
    terminal.draw(|f| super::view(&app, f)).expect("draw");
    let buf = terminal.backend().buffer().clone();
    assert_eq!(buf[(x + 7, y)].bg, Color::Yellow);
    assert_eq!(buf[(x, y)].bg, Color::Reset);
}
