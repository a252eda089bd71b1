//! Where the server may paint: only the focused pane, only while nothing of the TUI's is drawn
//! over its content and its model fits.

use std::time::Instant;

use super::{Target, target};
use crate::app::{Link, Msg, Overlay, PaneEvent, Selection};
use crate::regions::{content, placement};
use crate::test_fixture::four_panes;
use crate::update::update;

/// The fixture with its focused pane free of the decision the fixture gives pane `a`.
fn app_on(pane: &str) -> crate::app::App {
    let mut app = four_panes();
    for p in app.catalog.panes.values_mut() {
        p.pending_decision = None;
    }
    app.active_pane.insert("t1".into(), pane.to_owned());
    app
}

/// A change to the app, named for the failure message.
type Case = (&'static str, Box<dyn Fn(&mut crate::app::App)>);

fn body_of(app: &crate::app::App, pane: &str) -> crate::geometry::Rect {
    let (_, placement) = placement(app).expect("a layout");
    content(placement.rect_of(pane).expect("placed"))
}

#[test]
fn the_focused_pane_s_content_is_the_target() {
    let app = app_on("b");
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("b"));
    assert_eq!(
        target(&app, |_| true),
        Some(Target {
            pane: "b".into(),
            rect: body_of(&app, "b"),
        })
    );
}

#[test]
fn nothing_is_painted_under_what_the_tui_draws_over_the_pane() {
    let base = app_on("b");
    let cases: Vec<Case> = vec![
        (
            "an overlay",
            Box::new(|a| a.overlay = Some(Overlay::Help { offset: 0 })),
        ),
        (
            "reconnecting",
            Box::new(|a| {
                a.link = Link::Reconnecting {
                    reason: "gone".into(),
                }
            }),
        ),
        (
            "a selection in the pane",
            Box::new(|a| {
                a.selection = Some(Selection {
                    pane_id: "b".into(),
                    start: (0, 0),
                    end: (0, 3),
                })
            }),
        ),
        (
            "a decision on the pane",
            Box::new(|a| {
                let decision = crate::test_fixture::decision();
                if let Some(p) = a.catalog.panes.get_mut("b") {
                    p.pending_decision = Some(decision);
                }
            }),
        ),
        (
            "a model bigger than the pane",
            Box::new(|a| {
                let body = body_of(a, "b");
                let event = PaneEvent::Snapshot {
                    screen: Vec::new(),
                    cols: body.width + 1,
                    rows: body.height,
                };
                let pane_id = "b".to_owned();
                update(a, Msg::Pane { pane_id, event }, Instant::now());
            }),
        ),
    ];
    for (what, change) in cases {
        let mut app = app_on("b");
        change(&mut app);
        assert_eq!(target(&app, |_| true), None, "{what}");
    }
    // A selection in another pane does not matter; a pane not attached for typing does.
    let mut app = app_on("b");
    app.selection = Some(Selection {
        pane_id: "d".into(),
        start: (0, 0),
        end: (0, 3),
    });
    assert!(target(&app, |_| true).is_some());
    assert_eq!(target(&base, |id| id != "b"), None, "not interactive");
}
