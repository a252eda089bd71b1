//! A tab with 100 panes on screen (issue 31): drawn at every size from a wide terminal down to
//! a few cells without a panic, with nothing past the frame's edge and long titles elided; every
//! pane attached, fed output and drawn again; and the frame pacing held to 60 frames per second
//! while all 100 panes print every millisecond (the `Pacer` driven with synthetic instants as
//! the runtime drives it: output, then `when_panes`, then `paced` when a frame goes out).

use std::time::{Duration, Instant};

use crate::catalog::{Catalog, FeedMsg};
use signaltty_proto::v1 as pb;

use crate::app::{App, Msg, PaneEvent};
use crate::keymap::{Keymap, Preset};
use crate::pacing::{Pacer, When};
use crate::test_fixture::{leaf, pane, render, split};
use crate::update::update;

const PANES: usize = 100;

fn id(i: usize) -> String {
    format!("p{i:03}")
}

/// A balanced tree over `ids`, alternating directions by depth (a 10 × 10 grid for 100).
fn balanced(ids: &[String], depth: usize) -> pb::Layout {
    if ids.len() == 1 {
        return leaf(&ids[0]);
    }
    let (a, b) = ids.split_at(ids.len() / 2);
    let direction = if depth.is_multiple_of(2) {
        pb::Direction::Right
    } else {
        pb::Direction::Down
    };
    let ratio = a.len() as f32 / ids.len() as f32;
    split(
        direction,
        ratio,
        balanced(a, depth + 1),
        balanced(b, depth + 1),
    )
}

fn catalog() -> Catalog {
    let ids: Vec<String> = (0..PANES).map(id).collect();
    let mut c = Catalog {
        seq: 1,
        ..Catalog::default()
    };
    c.workspaces.push(pb::Workspace {
        id: "w".into(),
        name: "hundred agents".into(),
        cwd: "/proj".into(),
        tab_ids: vec!["t1".into()],
        active_tab_id: "t1".into(),
        ..Default::default()
    });
    let mut tab = pb::Tab {
        id: "t1".into(),
        workspace_id: "w".into(),
        title: "agents".into(),
        pane_ids: ids.clone(),
        active_pane_id: ids[0].clone(),
        ..Default::default()
    };
    signaltty_client::layout_tree::set(&mut tab, Some(balanced(&ids, 0)));
    c.tabs.insert("t1".into(), tab);
    for (i, pane_id) in ids.iter().enumerate() {
        let mut p = pane(
            pane_id,
            "t1",
            &format!("agent {i} refactoring the pane registry with a very long title"),
        );
        p.agent = Some(pb::AgentInfo {
            kind: pb::AgentKind::Claude as i32,
            ..Default::default()
        });
        p.lifecycle = [
            pb::Lifecycle::Working,
            pb::Lifecycle::Done,
            pb::Lifecycle::Idle,
        ][i % 3] as i32;
        if i % 10 == 0 {
            p.status = pb::PaneStatus::Hibernated as i32;
        }
        c.panes.insert(pane_id.clone(), p);
    }
    c
}

fn app(size: (u16, u16)) -> App {
    let mut app = App::new(Keymap::preset(Preset::Tmux), size, "/proj".into());
    update(
        &mut app,
        Msg::Feed(FeedMsg::Loaded(Box::new(catalog()))),
        Instant::now(),
    );
    update(&mut app, Msg::Tick, Instant::now());
    app
}

/// Every attached pane gets a snapshot at its drawn size, then a burst of agent-like output.
fn feed_all(app: &mut App, round: usize) {
    let attached: Vec<(String, u16, u16)> = app
        .attached
        .iter()
        .filter_map(|(id, a)| match a {
            crate::app::Attachment::Interactive { cols, rows } => Some((id.clone(), *cols, *rows)),
            _ => None,
        })
        .collect();
    for (pane_id, cols, rows) in attached {
        if round == 0 {
            let event = PaneEvent::Snapshot {
                screen: Vec::new(),
                cols,
                rows,
            };
            update(
                app,
                Msg::Pane {
                    pane_id: pane_id.clone(),
                    event,
                },
                Instant::now(),
            );
        }
        let burst = format!(
            "\x1b[H\x1b[2K⠋ Thinking… step {round} of {pane_id}\r\n\x1b[2Kediting src/hub/panes.rs\r\n\x1b]0;step {round}\x07"
        );
        update(
            app,
            Msg::Pane {
                pane_id,
                event: PaneEvent::Output(burst.into_bytes()),
            },
            Instant::now(),
        );
    }
}

#[test]
fn a_hundred_pane_tab_draws_at_every_size_without_panic_or_overflow() {
    for size in [
        (200, 50),
        (120, 40),
        (80, 24),
        (40, 12),
        (20, 8),
        (8, 4),
        (2, 2),
        (1, 1),
    ] {
        let mut app = app(size);
        for round in 0..3 {
            feed_all(&mut app, round);
            let text = render(&app);
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), usize::from(size.1), "{size:?}");
            for line in &lines {
                assert!(
                    line.chars().count() <= usize::from(size.0),
                    "{size:?}: a line past the edge: {line:?}"
                );
            }
            // A title never runs past its pane: the long titles are cut short.
            assert!(
                !text.contains("with a very long title"),
                "{size:?}: a title was not elided:\n{text}"
            );
        }
    }
}

#[test]
fn at_200_by_50_every_pane_is_attached_and_titled() {
    let mut app = app((200, 50));
    feed_all(&mut app, 0);
    assert_eq!(app.attached.len(), PANES, "every visible pane is attached");
    let text = render(&app);
    // Titles are shown (cut), and the hibernated panes carry their glyph.
    assert!(text.contains("agent 1"), "{text}");
    assert!(text.contains('☾'), "hibernated glyph missing:\n{text}");
}

#[test]
fn a_hundred_printing_panes_are_drawn_at_most_sixty_times_a_second() {
    let start = Instant::now();
    let mut pacer = Pacer::new();
    let mut frames = 0;
    let mut damaged = false;
    // One simulated second: every pane prints every millisecond.
    for tick in 0..1000u64 {
        let now = start + Duration::from_millis(tick);
        for i in 0..PANES {
            pacer.output(&id(i), now);
            damaged = true;
        }
        if pacer.when_panes(false, damaged, now) == When::Now {
            pacer.paced(now);
            frames += 1;
            damaged = false;
        }
    }
    assert!(frames <= 61, "{frames} frames in one second");
    assert!(frames >= 55, "output must still be drawn: {frames} frames");

    // A key typed into one of them is echoed at once, and does not add a frame per chunk of
    // the others' output.
    let now = start + Duration::from_millis(1000);
    pacer.typed(&id(7), now);
    for i in 0..PANES {
        pacer.output(&id(i), now);
    }
    assert_eq!(pacer.echo_pane(), Some(id(7).as_str()));
    assert_eq!(pacer.when_panes(false, true, now), When::Now);
}
