//! Alerts outside, tab flags, the counts and the notification list, driven through `update`.

use std::time::Instant;

use crate::catalog::FeedMsg;
use signaltty_proto::v1 as pb;

use super::*;
use crate::app::{Msg, Overlay, PaneEvent};
use crate::dsl::press;
use crate::keymap::Preset;
use crate::test_fixture::app_with;
use crate::update::update;

fn event(app: &App, kind: pb::event::Kind) -> Msg {
    Msg::Feed(FeedMsg::Event(Box::new(pb::Event {
        seq: app.catalog.seq + 1,
        at: None,
        kind: Some(kind),
    })))
}

fn outer(fx: &[Effect]) -> Vec<String> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Outer(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        })
        .collect()
}

fn bell(app: &App, pane: &str) -> Msg {
    event(
        app,
        pb::event::Kind::AttentionChanged(pb::AttentionChanged {
            pane_id: pane.into(),
            prev: pb::Attention::None as i32,
            new: pb::Attention::Unread as i32,
            source: pb::ChangeSource::Bell as i32,
        }),
    )
}

fn notification(app: &App, pane: &str, body: &str) -> Msg {
    event(
        app,
        pb::event::Kind::NotificationCreated(pb::NotificationCreated {
            notification: Some(pb::Notification {
                id: format!("notif_{body}"),
                pane_id: pane.into(),
                workspace_id: "w".into(),
                title: "build".into(),
                body: body.into(),
                source: pb::NotificationSource::Osc as i32,
                ..Default::default()
            }),
        }),
    )
}

#[test]
fn a_bell_and_a_notification_reach_the_outer_terminal_as_configured() {
    let now = Instant::now();
    let mut app = app_with(Preset::Tmux, (100, 30));
    let fx = {
        let m = bell(&app, "c");
        update(&mut app, m, now)
    };
    assert_eq!(outer(&fx), ["\x07"]);
    let fx = {
        let m = notification(&app, "c", "done; ok");
        update(&mut app, m, now)
    };
    assert_eq!(
        outer(&fx),
        ["\x1b]9;build: done ok\x07\x1b]777;notify;build;done ok\x07\x07"]
    );
    app.keymap.options.notify = Notify::Bell;
    let fx = {
        let m = notification(&app, "c", "again");
        update(&mut app, m, now)
    };
    assert_eq!(outer(&fx), ["\x07"]);
    app.keymap.options.notify = Notify::Off;
    let fx = {
        let m = bell(&app, "c");
        update(&mut app, m, now)
    };
    assert!(outer(&fx).is_empty());
    // An event already applied (a replay overlap) does not alert twice.
    app.keymap.options.notify = Notify::Notify;
    let mut old = bell(&app, "c");
    if let Msg::Feed(FeedMsg::Event(e)) = &mut old {
        e.seq = app.catalog.seq;
    }
    assert!(outer(&update(&mut app, old, now)).is_empty());
}

#[test]
fn the_title_counts_panes_waiting_and_is_written_only_when_it_changes() {
    let now = Instant::now();
    let mut app = App::new(
        crate::keymap::Keymap::preset(Preset::Tmux),
        (100, 30),
        "/proj".into(),
    );
    let fx = update(
        &mut app,
        Msg::Feed(FeedMsg::Loaded(Box::new(crate::test_fixture::catalog()))),
        now,
    );
    assert_eq!(outer(&fx), ["\x1b]2;signaltty [api] ⚠1\x07"]);
    assert!(outer(&update(&mut app, Msg::Tick, now)).is_empty());
    app.catalog.panes.get_mut("a").unwrap().pending_decision = None;
    app.catalog.panes.get_mut("a").unwrap().attention = pb::Attention::None as i32;
    assert_eq!(
        outer(&update(&mut app, Msg::Tick, now)),
        ["\x1b]2;signaltty [api]\x07"]
    );
}

#[test]
fn tabs_carry_activity_and_attention_flags_until_shown() {
    let now = Instant::now();
    let mut app = app_with(Preset::Tmux, (100, 30));
    let labels = |app: &App| {
        crate::regions::tab_cells(app)
            .into_iter()
            .map(|(_, l, _, _)| l)
            .collect::<Vec<_>>()
    };
    assert_eq!(labels(&app), ["1:agents*", "2:tests"]);
    update(
        &mut app,
        Msg::Pane {
            pane_id: "c".into(),
            event: PaneEvent::Output(b"compiling".to_vec()),
        },
        now,
    );
    assert_eq!(labels(&app), ["1:agents*", "2:tests#"]);
    let frame = crate::test_fixture::render(&app);
    assert!(
        frame.lines().nth(1).is_some_and(|l| l.contains("#⚠1")),
        "the workspace row carries the flag too:\n{frame}"
    );
    {
        let m = bell(&app, "c");
        update(&mut app, m, now)
    };
    assert_eq!(labels(&app), ["1:agents*", "2:tests!#"]);
    press(&mut app, "ctrl-b 2", now);
    assert_eq!(
        labels(&app),
        ["1:agents-!", "2:tests*"],
        "a waits on a decision"
    );
}

#[test]
fn unread_means_panes_with_something_unseen_in_both_counters() {
    let now = Instant::now();
    let mut app = app_with(Preset::Tmux, (100, 30));
    assert_eq!((waiting(&app), unread(&app)), (1, 0));
    {
        let m = bell(&app, "c");
        update(&mut app, m, now)
    };
    {
        let m = notification(&app, "c", "one");
        update(&mut app, m, now)
    };
    {
        let m = notification(&app, "c", "two");
        update(&mut app, m, now)
    };
    // Pane c has a bell and two notifications: one pane unread.
    assert_eq!(unread(&app), 1);
    let frame = crate::test_fixture::render(&app);
    assert!(frame.contains("⚑ 1 unread"), "{frame}");
}

#[test]
fn enter_in_the_notification_list_goes_to_its_pane() {
    let now = Instant::now();
    let mut app = app_with(Preset::Tmux, (100, 30));
    {
        let m = notification(&app, "b", "first");
        update(&mut app, m, now)
    };
    {
        let m = notification(&app, "c", "second");
        update(&mut app, m, now)
    };
    press(&mut app, "ctrl-b N", now);
    assert_eq!(app.overlay, Some(Overlay::Notifications));
    let target = app.catalog.unread[1].pane_id.clone();
    press(&mut app, "j <enter>", now);
    assert!(app.overlay.is_none());
    assert_eq!(app.focused_pane().map(|p| p.id.clone()), Some(target));
}
