use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::SystemTime;

use super::fixtures::{new_tab, record, state_with_ws};
use super::*;

fn now() -> SystemTime {
    SystemTime::now()
}

fn spawn(s: &mut State, ws: &WorkspaceId, placement: Placement) -> (Pane, Tab) {
    s.add_pane(record(ws), placement, now())
        .expect("add pane")
        .0
}

#[test]
fn a_pane_without_tab_gets_a_new_tab_and_splits_rebalance() {
    let (mut s, ws) = state_with_ws();
    let (a, tab) = spawn(&mut s, &ws, new_tab(""));
    assert_eq!(tab.panes(), vec![a.id.clone()]);
    assert_eq!(tab.title, "tab 1");
    for _ in 0..3 {
        spawn(
            &mut s,
            &ws,
            Placement::Split {
                target: a.id.clone(),
                direction: Direction::Right,
            },
        );
    }
    let tab = s.tab(&tab.id).expect("tab").clone();
    let widths: Vec<f32> = tab
        .layout
        .as_ref()
        .expect("layout")
        .shares()
        .iter()
        .map(|p| p.width)
        .collect();
    assert_eq!(widths.len(), 4);
    for w in widths {
        assert!((w - 0.25).abs() < 1e-5, "{w}");
    }
    s.check_invariants().expect("invariants");
}

#[test]
fn into_tab_fills_an_empty_tab_then_splits_its_active_pane() {
    let (mut s, ws) = state_with_ws();
    let (tab, _) = s.create_tab(&ws, "agents", now()).expect("tab");
    let (a, t1) = spawn(&mut s, &ws, Placement::IntoTab(tab.id.clone()));
    assert_eq!(t1.panes(), vec![a.id.clone()]);
    let (b, t2) = spawn(&mut s, &ws, Placement::IntoTab(tab.id.clone()));
    assert_eq!(t2.panes(), vec![a.id.clone(), b.id.clone()]);
    assert_eq!(t2.active_pane, Some(b.id));
    s.check_invariants().expect("invariants");
}

#[test]
fn set_layout_refuses_omitted_repeated_and_foreign_panes_and_changes_nothing() {
    let (mut s, ws) = state_with_ws();
    let (a, tab) = spawn(&mut s, &ws, new_tab(""));
    let (b, _) = spawn(
        &mut s,
        &ws,
        Placement::Split {
            target: a.id.clone(),
            direction: Direction::Down,
        },
    );
    let (other, _) = spawn(&mut s, &ws, new_tab(""));
    let before = s.tab(&tab.id).expect("tab").clone();
    let split = |x: &PaneId, y: &PaneId| {
        Layout::Split(crate::layout::Split {
            direction: Direction::Right,
            ratio: crate::layout::Ratio::HALF,
            first: Box::new(Layout::Pane(x.clone())),
            second: Box::new(Layout::Pane(y.clone())),
        })
    };
    for bad in [
        Layout::single(a.id.clone()),
        split(&a.id, &a.id),
        split(&a.id, &other.id),
    ] {
        let err = s.set_layout(&tab.id, bad).expect_err("refused");
        assert!(matches!(err, StateError::Bad(_)), "{err:?}");
        assert_eq!(s.tab(&tab.id).expect("tab"), &before);
    }
    let (t, events) = s.set_layout(&tab.id, split(&b.id, &a.id)).expect("valid");
    assert_eq!(t.panes(), vec![b.id, a.id]);
    assert!(matches!(events.as_slice(), [Event::TabUpdated(_)]));
}

#[test]
fn closing_the_last_pane_closes_the_tab_unless_policy_keeps_it() {
    let (mut s, ws) = state_with_ws();
    let (a, tab) = spawn(&mut s, &ws, new_tab(""));
    let (removal, events) = s.remove_pane(&a.id, now()).expect("remove");
    assert!(removal.tab_closed);
    assert!(events.iter().any(|e| matches!(e, Event::TabClosed { .. })));
    assert!(s.tab(&tab.id).is_err());
    assert!(s.workspace(&ws).expect("ws").tabs.is_empty());

    let mut keep = State::new(Policy {
        close_tab_on_last_pane: false,
        ..Policy::default()
    });
    let (ws2, _) = keep
        .create_workspace(
            "w",
            PathBuf::from("/tmp"),
            WorkspaceSettings::default(),
            GitContext::default(),
            now(),
        )
        .expect("ws");
    let (a, tab) = spawn(&mut keep, &ws2.id, new_tab(""));
    let (removal, _) = keep.remove_pane(&a.id, now()).expect("remove");
    assert!(!removal.tab_closed);
    assert!(keep.tab(&tab.id).expect("kept").layout.is_none());
    keep.check_invariants().expect("invariants");
}

#[test]
fn closing_a_workspace_removes_its_tabs_and_panes() {
    let (mut s, ws) = state_with_ws();
    let (a, _) = spawn(&mut s, &ws, new_tab(""));
    spawn(&mut s, &ws, new_tab("two"));
    let (removed, events) = s.close_workspace(&ws).expect("close");
    assert_eq!(removed.len(), 2);
    assert!(removed.iter().any(|p| p.id == a.id));
    assert_eq!(s.pane_count(), 0);
    assert_eq!(s.tab_count(), 0);
    assert!(matches!(events.last(), Some(Event::WorkspaceClosed { .. })));
    let closed: BTreeSet<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::PaneClosed { pane_id, .. } => Some(pane_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(closed.len(), 2);
}

#[test]
fn bad_names_and_unknown_ids_are_refused_without_change() {
    let (mut s, ws) = state_with_ws();
    let before = s.workspace(&ws).expect("ws").clone();
    assert!(matches!(
        s.rename_workspace(&ws, "  ", now()),
        Err(StateError::Bad(_))
    ));
    assert!(matches!(
        s.rename_workspace(&WorkspaceId::new(), "x", now()),
        Err(StateError::NoSuchWorkspace(_))
    ));
    assert_eq!(s.workspace(&ws).expect("ws"), &before);
    assert!(matches!(
        s.create_tab(&WorkspaceId::new(), "", now()),
        Err(StateError::NoSuchWorkspace(_))
    ));
    assert!(matches!(
        s.add_pane(record(&ws), Placement::IntoTab(TabId::new()), now()),
        Err(StateError::NoSuchTab(_))
    ));
    assert_eq!(s.pane_count(), 0);
}

#[test]
fn set_ratio_clamps_and_refuses_non_finite() {
    let (mut s, ws) = state_with_ws();
    let (a, tab) = spawn(&mut s, &ws, new_tab(""));
    spawn(
        &mut s,
        &ws,
        Placement::Split {
            target: a.id,
            direction: Direction::Right,
        },
    );
    let (t, _) = s.set_ratio(&tab.id, &[], 0.99).expect("clamped");
    let Some(Layout::Split(split)) = t.layout else {
        panic!("split expected")
    };
    assert!((split.ratio.get() - 0.95).abs() < f32::EPSILON);
    assert!(s.set_ratio(&tab.id, &[], f32::NAN).is_err());
    assert!(s.set_ratio(&tab.id, &[PathStep::First], 0.5).is_err());
}
