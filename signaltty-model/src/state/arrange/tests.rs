use std::path::PathBuf;

use proptest::prelude::*;

use super::*;
use crate::ids::WorkspaceId;
use crate::state::fixtures::{new_tab, record, state_with_ws};
use crate::state::{PaneLimit, Placement, Policy};
use crate::workspace::{GitContext, WorkspaceSettings};

fn now() -> SystemTime {
    SystemTime::now()
}

fn spawn(s: &mut State, ws: &WorkspaceId, placement: Placement) -> (Pane, Tab) {
    s.add_pane(record(ws), placement, now())
        .expect("add pane")
        .0
}

fn split(target: &PaneId, direction: Direction) -> Placement {
    Placement::Split {
        target: target.clone(),
        direction,
    }
}

fn to_tab(tab: &TabId) -> Destination {
    Destination::Tab {
        tab: tab.clone(),
        beside: None,
        direction: Direction::Right,
    }
}

/// The whole state as JSON: what a refused request must leave byte for byte.
fn dump(s: &State) -> serde_json::Value {
    serde_json::to_value(s).expect("state serialises")
}

/// Beyond `check_invariants`: focus points at things that exist where they should.
fn check_focus(s: &State) -> Result<(), String> {
    for ws in s.workspaces() {
        if let Some(active) = &ws.active_tab
            && !ws.tabs.contains(active)
        {
            return Err(format!("{} active tab {active} not listed", ws.id));
        }
        for tab in s.tabs_of(ws) {
            if let Some(active) = &tab.active_pane
                && !tab.panes().contains(active)
            {
                return Err(format!("{} active pane {active} not in layout", tab.id));
            }
        }
    }
    Ok(())
}

#[test]
fn focus_tab_and_pane_set_the_active_ids_and_repeat_silently() {
    let (mut s, ws) = state_with_ws();
    let (a, t1) = spawn(&mut s, &ws, new_tab(""));
    let (b, _) = spawn(&mut s, &ws, split(&a.id, Direction::Right));
    let (_, t2) = spawn(&mut s, &ws, new_tab(""));
    assert_eq!(
        s.workspace(&ws).expect("ws").active_tab,
        Some(t2.id.clone())
    );

    let (w, events) = s.focus_tab(&t1.id, now()).expect("focus tab");
    assert_eq!(w.active_tab, Some(t1.id.clone()));
    assert!(
        matches!(events.as_slice(), [Event::WorkspaceUpdated(w)] if w.active_tab == Some(t1.id.clone()))
    );
    let (_, again) = s.focus_tab(&t1.id, now()).expect("focus tab again");
    assert!(again.is_empty(), "{again:?}");

    let ((tab, w), events) = s.focus_pane(&a.id, now()).expect("focus pane");
    assert_eq!(tab.active_pane, Some(a.id.clone()));
    assert_eq!(w.active_tab, Some(t1.id.clone()));
    assert!(
        matches!(events.as_slice(), [Event::TabUpdated(t)] if t.active_pane == Some(a.id.clone()))
    );
    let (_, again) = s.focus_pane(&a.id, now()).expect("focus pane again");
    assert!(again.is_empty());
    // Focusing a pane of another tab moves the workspace's focus too.
    s.focus_tab(&t2.id, now()).expect("focus t2");
    let ((_, w), events) = s.focus_pane(&b.id, now()).expect("focus b");
    assert_eq!(w.active_tab, Some(t1.id.clone()));
    assert_eq!(events.len(), 2, "{events:?}");
}

#[test]
fn focus_of_unknown_ids_is_refused() {
    let (mut s, _) = state_with_ws();
    let before = dump(&s);
    let tab = TabId::new();
    assert_eq!(
        s.focus_tab(&tab, now()),
        Err(StateError::NoSuchTab(tab.clone()))
    );
    let pane = PaneId::new();
    assert!(matches!(
        s.focus_pane(&pane, now()),
        Err(StateError::NoSuchPane(p)) if p == pane
    ));
    assert_eq!(dump(&s), before);
}

#[test]
fn move_tab_reorders_and_refuses_out_of_range() {
    let (mut s, ws) = state_with_ws();
    let tabs: Vec<TabId> = (0..3)
        .map(|_| spawn(&mut s, &ws, new_tab("")).1.id)
        .collect();
    let (w, events) = s.move_tab(&tabs[2], 0, now()).expect("move");
    assert_eq!(
        w.tabs,
        vec![tabs[2].clone(), tabs[0].clone(), tabs[1].clone()]
    );
    assert!(matches!(events.as_slice(), [Event::WorkspaceUpdated(_)]));
    let (w, events) = s.move_tab(&tabs[2], 2, now()).expect("move to the end");
    assert_eq!(
        w.tabs,
        vec![tabs[0].clone(), tabs[1].clone(), tabs[2].clone()]
    );
    assert_eq!(events.len(), 1);
    let (_, events) = s.move_tab(&tabs[1], 1, now()).expect("same place");
    assert!(events.is_empty());

    let before = dump(&s);
    let err = s.move_tab(&tabs[0], 3, now()).expect_err("out of range");
    assert!(
        matches!(&err, StateError::Bad(m) if m.contains("0–2")),
        "{err:?}"
    );
    assert_eq!(dump(&s), before);
}

#[test]
fn moving_a_pane_collapses_its_old_layout_and_splits_the_active_pane_of_the_target() {
    let (mut s, ws) = state_with_ws();
    let (a, t1) = spawn(&mut s, &ws, new_tab(""));
    let (b, _) = spawn(&mut s, &ws, split(&a.id, Direction::Right));
    let (c, _) = spawn(&mut s, &ws, split(&b.id, Direction::Down));
    let (d, t2) = spawn(&mut s, &ws, new_tab(""));
    let (e, _) = spawn(&mut s, &ws, split(&d.id, Direction::Down));
    s.focus_pane(&d.id, now()).expect("focus d");

    // What removing b from t1 would leave, computed independently.
    let mut expected_source = s.tab(&t1.id).expect("t1").layout.clone().expect("layout");
    expected_source.remove(&b.id).expect("remove");

    let (moved, events) = s.move_pane(&b.id, to_tab(&t2.id), now()).expect("move");
    assert_eq!(moved.pane.tab_id, t2.id);
    assert_eq!(moved.closed_tab, None);
    // Split beside t2's active pane d, to the right.
    assert_eq!(
        moved.tab.panes(),
        vec![d.id.clone(), b.id.clone(), e.id.clone()]
    );
    assert_eq!(moved.tab.active_pane, Some(b.id.clone()));
    let t1_now = s.tab(&t1.id).expect("t1");
    assert_eq!(t1_now.layout.as_ref(), Some(&expected_source));
    assert_eq!(t1_now.panes(), vec![a.id.clone(), c.id.clone()]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::PaneUpdated(p) if p.id == b.id && p.tab_id == t2.id))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::TabUpdated(t) if t.id == t1.id))
    );
    s.check_invariants().expect("invariants");
    check_focus(&s).expect("focus");
}

#[test]
fn moving_the_last_pane_closes_its_tab_without_ending_anything() {
    let (mut s, ws) = state_with_ws();
    let (a, t1) = spawn(&mut s, &ws, new_tab(""));
    let (b, t2) = spawn(&mut s, &ws, new_tab(""));
    let (moved, events) = s
        .move_pane(
            &b.id,
            Destination::Tab {
                tab: t1.id.clone(),
                beside: Some(a.id.clone()),
                direction: Direction::Down,
            },
            now(),
        )
        .expect("move");
    assert_eq!(moved.closed_tab, Some(t2.id.clone()));
    assert!(s.tab(&t2.id).is_err());
    assert!(s.pane(&b.id).is_ok(), "the pane lives on");
    assert!(!events.iter().any(|e| matches!(e, Event::PaneClosed { .. })));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::TabClosed { tab_id, .. } if tab_id == &t2.id))
    );
    let w = s.workspace(&ws).expect("ws");
    assert_eq!(w.tabs, vec![t1.id.clone()]);
    assert_eq!(w.active_tab, Some(t1.id.clone()));
    s.check_invariants().expect("invariants");
}

#[test]
fn with_empty_tabs_kept_the_emptied_tab_stays() {
    let mut s = State::new(Policy {
        close_tab_on_last_pane: false,
        ..Policy::default()
    });
    let (w, _) = s
        .create_workspace(
            "w",
            PathBuf::from("/tmp"),
            WorkspaceSettings::default(),
            GitContext::default(),
            now(),
        )
        .expect("ws");
    let (a, t1) = spawn(&mut s, &w.id, new_tab(""));
    let (_, t2) = spawn(&mut s, &w.id, new_tab(""));
    let (moved, _) = s.move_pane(&a.id, to_tab(&t2.id), now()).expect("move");
    assert_eq!(moved.closed_tab, None);
    let t1 = s.tab(&t1.id).expect("kept");
    assert_eq!((t1.layout.as_ref(), t1.active_pane.as_ref()), (None, None));
    // And the empty tab can take a pane again: it is filled.
    let (back, _) = s.move_pane(&a.id, to_tab(&t1.id), now()).expect("back");
    assert_eq!(back.tab.layout, Some(Layout::single(a.id.clone())));
    s.check_invariants().expect("invariants");
}

#[test]
fn a_pane_moves_to_a_new_tab_which_becomes_active() {
    let (mut s, ws) = state_with_ws();
    let (a, t1) = spawn(&mut s, &ws, new_tab(""));
    let (b, _) = spawn(&mut s, &ws, split(&a.id, Direction::Right));
    let (moved, events) = s
        .move_pane(
            &b.id,
            Destination::NewTab {
                title: "logs".into(),
            },
            now(),
        )
        .expect("move");
    assert_eq!(moved.tab.title, "logs");
    assert_eq!(moved.tab.layout, Some(Layout::single(b.id.clone())));
    assert!(matches!(events.first(), Some(Event::TabCreated(t)) if t.id == moved.tab.id));
    let w = s.workspace(&ws).expect("ws");
    assert_eq!(w.tabs, vec![t1.id.clone(), moved.tab.id.clone()]);
    assert_eq!(w.active_tab, Some(moved.tab.id.clone()));
    assert_eq!(
        s.tab(&t1.id).expect("t1").active_pane,
        Some(a.id.clone()),
        "the sibling that took the space takes the focus"
    );
    s.check_invariants().expect("invariants");
}

#[test]
fn a_pane_rearranges_within_its_tab_beside_another() {
    let (mut s, ws) = state_with_ws();
    let (a, t1) = spawn(&mut s, &ws, new_tab(""));
    let (b, _) = spawn(&mut s, &ws, split(&a.id, Direction::Right));
    let (c, _) = spawn(&mut s, &ws, split(&b.id, Direction::Right));
    let (moved, events) = s
        .move_pane(
            &a.id,
            Destination::Tab {
                tab: t1.id.clone(),
                beside: Some(c.id.clone()),
                direction: Direction::Down,
            },
            now(),
        )
        .expect("rearrange");
    assert_eq!(
        moved.tab.panes(),
        vec![b.id.clone(), c.id.clone(), a.id.clone()]
    );
    assert!(
        !events.iter().any(|e| matches!(e, Event::PaneUpdated(_))),
        "the pane record did not change"
    );
    s.check_invariants().expect("invariants");
}

#[test]
fn a_pane_moves_to_another_workspace() {
    let (mut s, ws) = state_with_ws();
    let (other, _) = s
        .create_workspace(
            "other",
            PathBuf::from("/tmp"),
            WorkspaceSettings::default(),
            GitContext::default(),
            now(),
        )
        .expect("ws");
    let (a, _) = spawn(&mut s, &ws, new_tab(""));
    let (_, t2) = spawn(&mut s, &other.id, new_tab(""));
    let (moved, _) = s.move_pane(&a.id, to_tab(&t2.id), now()).expect("move");
    assert_eq!(moved.pane.workspace_id, other.id);
    assert!(s.workspace(&ws).expect("ws").tabs.is_empty());
    assert_eq!(s.workspace(&ws).expect("ws").active_tab, None);
    s.check_invariants().expect("invariants");
}

#[test]
fn bad_moves_are_refused_and_change_nothing() {
    let (mut s, ws) = state_with_ws();
    let (a, t1) = spawn(&mut s, &ws, new_tab(""));
    let (b, _) = spawn(&mut s, &ws, split(&a.id, Direction::Right));
    let (c, t2) = spawn(&mut s, &ws, new_tab(""));
    let before = dump(&s);
    let cases: Vec<(PaneId, Destination, &str)> = vec![
        (a.id.clone(), to_tab(&t1.id), "already in tab"),
        (
            a.id.clone(),
            Destination::Tab {
                tab: t2.id.clone(),
                beside: Some(b.id.clone()),
                direction: Direction::Right,
            },
            "is not in tab",
        ),
        (
            a.id.clone(),
            Destination::Tab {
                tab: t1.id.clone(),
                beside: Some(a.id.clone()),
                direction: Direction::Right,
            },
            "beside itself",
        ),
        (
            c.id.clone(),
            Destination::NewTab {
                title: "bad\u{7}title".into(),
            },
            "control",
        ),
    ];
    for (pane, destination, needle) in cases {
        let err = s
            .move_pane(&pane, destination.clone(), now())
            .expect_err("refused");
        assert!(
            matches!(&err, StateError::Bad(m) if m.contains(needle)),
            "{destination:?}: {err:?}"
        );
        assert_eq!(dump(&s), before, "{destination:?} changed the state");
    }
    let ghost_tab = TabId::new();
    assert_eq!(
        s.move_pane(&a.id, to_tab(&ghost_tab), now()),
        Err(StateError::NoSuchTab(ghost_tab))
    );
    let ghost = PaneId::new();
    assert!(matches!(
        s.move_pane(&ghost, to_tab(&t2.id), now()),
        Err(StateError::NoSuchPane(_))
    ));
    assert_eq!(dump(&s), before);
}

#[test]
fn a_full_destination_refuses_the_move() {
    let (mut s, ws) = state_with_ws();
    let (first, t1) = spawn(&mut s, &ws, new_tab(""));
    // Split breadth first so the tree stays shallow: the pane cap is hit, not the depth cap.
    let mut queue = std::collections::VecDeque::from([first.id]);
    for i in 1..crate::layout::MAX_PANES {
        let dir = if i % 2 == 0 {
            Direction::Right
        } else {
            Direction::Down
        };
        let target = queue.pop_front().expect("never empty");
        let new = spawn(&mut s, &ws, split(&target, dir)).0.id;
        queue.extend([target, new]);
    }
    let (x, _) = spawn(&mut s, &ws, new_tab(""));
    let before = dump(&s);
    let err = s.move_pane(&x.id, to_tab(&t1.id), now()).expect_err("full");
    assert_eq!(
        err,
        StateError::TooManyPanes(PaneLimit::Tab {
            tab: t1.id.clone(),
            max: crate::layout::MAX_PANES,
        })
    );
    assert_eq!(dump(&s), before);
    // A new pane cannot join it either, by spawn or by split; nothing changes.
    let extra = |s: &State| s.panes.values().next().map(|p| p.id.clone());
    let target = extra(&s).expect("panes");
    for placement in [
        Placement::IntoTab(t1.id.clone()),
        Placement::Split {
            target,
            direction: Direction::Down,
        },
    ] {
        let err = s.check_placement(&placement).expect_err("full");
        assert!(
            matches!(err, StateError::TooManyPanes(PaneLimit::Tab { .. })),
            "{err:?}"
        );
    }
    assert_eq!(dump(&s), before);
}

#[test]
fn the_server_pane_limit_refuses_the_next_pane_anywhere() {
    let mut s = State::new(Policy {
        max_panes: 2,
        ..Policy::default()
    });
    let (w, _) = s
        .create_workspace(
            "w",
            PathBuf::from("/tmp"),
            WorkspaceSettings::default(),
            GitContext::default(),
            now(),
        )
        .expect("ws");
    let (a, _) = spawn(&mut s, &w.id, new_tab(""));
    spawn(&mut s, &w.id, split(&a.id, Direction::Right));
    let before = dump(&s);
    for placement in [new_tab(""), split(&a.id, Direction::Down)] {
        let err = s.check_placement(&placement).expect_err("at the limit");
        assert_eq!(err, StateError::TooManyPanes(PaneLimit::Server { max: 2 }));
        assert!(err.to_string().contains("server.max_panes"), "{err}");
    }
    assert_eq!(dump(&s), before);
}

/// One step of the property test below; indices pick among what exists at that moment.
#[derive(Clone, Debug)]
enum Op {
    Spawn {
        tab: usize,
        split: bool,
        down: bool,
    },
    Move {
        pane: usize,
        tab: usize,
        beside: Option<usize>,
        down: bool,
        new_tab: bool,
    },
    MoveTab {
        tab: usize,
        index: usize,
    },
    FocusPane(usize),
    FocusTab(usize),
    Close(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<usize>(), any::<bool>(), any::<bool>()).prop_map(|(tab, split, down)| Op::Spawn {
            tab,
            split,
            down
        }),
        (
            any::<usize>(),
            any::<usize>(),
            proptest::option::of(any::<usize>()),
            any::<bool>(),
            proptest::bool::weighted(0.2)
        )
            .prop_map(|(pane, tab, beside, down, new_tab)| Op::Move {
                pane,
                tab,
                beside,
                down,
                new_tab
            }),
        (any::<usize>(), 0usize..6).prop_map(|(tab, index)| Op::MoveTab { tab, index }),
        any::<usize>().prop_map(Op::FocusPane),
        any::<usize>().prop_map(Op::FocusTab),
        any::<usize>().prop_map(Op::Close),
    ]
}

fn pick<T: Clone>(items: &[T], i: usize) -> Option<T> {
    (!items.is_empty()).then(|| items[i % items.len()].clone())
}

proptest! {
    /// Any sequence of spawns, moves, reorders, focus changes and closes keeps every invariant:
    /// each pane in exactly one layout of its own tab, focus pointing at what exists, and every
    /// refused step leaving the state exactly as it was.
    #[test]
    fn arranging_keeps_every_invariant(ops in proptest::collection::vec(op(), 1..60), keep_empty in any::<bool>()) {
        let mut s = State::new(Policy {
            close_tab_on_last_pane: !keep_empty,
            ..Policy::default()
        });
        let (w, _) = s
            .create_workspace("w", PathBuf::from("/tmp"), WorkspaceSettings::default(), GitContext::default(), now())
            .expect("ws");
        let ws = w.id;
        for op in ops {
            let tabs: Vec<TabId> = s.workspace(&ws).expect("ws").tabs.to_vec();
            let panes: Vec<PaneId> = s.all_panes().iter().map(|p| p.id.clone()).collect();
            let before = dump(&s);
            let result: Result<(), StateError> = match op {
                Op::Spawn { tab, split: do_split, down } => {
                    let dir = if down { Direction::Down } else { Direction::Right };
                    let placement = match (pick(&panes, tab), pick(&tabs, tab)) {
                        (Some(p), _) if do_split => split(&p, dir),
                        (_, Some(t)) => Placement::IntoTab(t),
                        _ => new_tab(""),
                    };
                    s.add_pane(record(&ws), placement, now()).map(|_| ())
                }
                Op::Move { pane, tab, beside, down, new_tab: fresh } => {
                    let Some(p) = pick(&panes, pane) else { continue };
                    let destination = match pick(&tabs, tab) {
                        Some(t) if !fresh => Destination::Tab {
                            beside: beside.and_then(|b| pick(&s.tab(&t).expect("tab").panes(), b)),
                            tab: t,
                            direction: if down { Direction::Down } else { Direction::Right },
                        },
                        _ => Destination::NewTab { title: String::new() },
                    };
                    let count = panes.len();
                    let r = s.move_pane(&p, destination, now());
                    if let Ok((moved, _)) = &r {
                        prop_assert_eq!(s.pane_count(), count, "a move never adds or removes panes");
                        prop_assert!(moved.tab.panes().contains(&p));
                        prop_assert_eq!(moved.tab.active_pane.as_ref(), Some(&p));
                        prop_assert_eq!(s.workspace(&ws).expect("ws").active_tab.as_ref(), Some(&moved.tab.id));
                    }
                    r.map(|_| ())
                }
                Op::MoveTab { tab, index } => {
                    let Some(t) = pick(&tabs, tab) else { continue };
                    let r = s.move_tab(&t, index, now());
                    if r.is_ok() {
                        let mut after = s.workspace(&ws).expect("ws").tabs.to_vec();
                        prop_assert_eq!(&after[index], &t);
                        after.sort();
                        let mut sorted = tabs.clone();
                        sorted.sort();
                        prop_assert_eq!(after, sorted, "a reorder keeps the same tabs");
                    } else {
                        prop_assert!(index >= tabs.len());
                    }
                    r.map(|_| ())
                }
                Op::FocusPane(i) => {
                    let Some(p) = pick(&panes, i) else { continue };
                    s.focus_pane(&p, now()).map(|_| ())
                }
                Op::FocusTab(i) => {
                    let Some(t) = pick(&tabs, i) else { continue };
                    s.focus_tab(&t, now()).map(|_| ())
                }
                Op::Close(i) => {
                    let Some(p) = pick(&panes, i) else { continue };
                    s.remove_pane(&p, now()).map(|_| ())
                }
            };
            if result.is_err() {
                prop_assert_eq!(dump(&s), before, "a refused step changed the state");
            }
            prop_assert_eq!(s.check_invariants(), Ok(()));
            prop_assert_eq!(check_focus(&s), Ok(()));
            for tab in s.tabs_of(s.workspace(&ws).expect("ws")) {
                if let Some(layout) = &tab.layout {
                    for share in layout.shares() {
                        prop_assert!(share.width > 0.0 && share.height > 0.0);
                    }
                }
            }
        }
    }
}
