use super::*;
use crate::geometry::{Placement, Rect};
use signaltty_proto::v1::layout::Node;

fn ev(seq: u64, kind: Ev) -> pb::Event {
    pb::Event {
        seq,
        at: None,
        kind: Some(kind),
    }
}

fn ws(id: &str, tabs: &[&str]) -> pb::Workspace {
    pb::Workspace {
        id: id.into(),
        name: id.into(),
        tab_ids: tabs.iter().map(|t| t.to_string()).collect(),
        ..Default::default()
    }
}

fn tab(id: &str, ws: &str, panes: &[&str]) -> pb::Tab {
    pb::Tab {
        id: id.into(),
        workspace_id: ws.into(),
        pane_ids: panes.iter().map(|p| p.to_string()).collect(),
        ..Default::default()
    }
}

fn pane(id: &str, tab: &str, ws: &str) -> pb::Pane {
    pb::Pane {
        id: id.into(),
        tab_id: tab.into(),
        workspace_id: ws.into(),
        ..Default::default()
    }
}

fn decision(id: &str, pane: &str) -> pb::Decision {
    pb::Decision {
        id: id.into(),
        pane_id: pane.into(),
        prompt: "Allow Bash?".into(),
        ..Default::default()
    }
}

/// A catalog with one workspace, one tab and one pane, at seq 3.
fn populated() -> Catalog {
    let mut c = Catalog::default();
    c.apply(&ev(
        1,
        Ev::WorkspaceCreated(pb::WorkspaceCreated {
            workspace: Some(ws("w", &[])),
        }),
    ));
    c.apply(&ev(
        2,
        Ev::TabCreated(pb::TabCreated {
            tab: Some(tab("t", "w", &["p"])),
        }),
    ));
    c.apply(&ev(
        3,
        Ev::PaneCreated(pb::PaneCreated {
            pane: Some(pane("p", "t", "w")),
        }),
    ));
    c
}

#[test]
fn created_records_appear_and_a_created_tab_is_listed_in_its_workspace() {
    let c = populated();
    assert_eq!(c.seq, 3);
    assert_eq!(c.workspaces.len(), 1);
    assert_eq!(c.workspaces[0].tab_ids, vec!["t".to_string()]);
    let w = c.workspace("w").expect("workspace");
    assert_eq!(c.tabs_of(w).count(), 1);
    assert_eq!(c.panes_of(&c.tabs["t"]).count(), 1);
}

#[test]
fn an_event_already_applied_is_ignored() {
    let mut c = populated();
    let stale = ev(
        2,
        Ev::TabClosed(pb::TabClosed {
            tab_id: "t".into(),
            workspace_id: "w".into(),
        }),
    );
    assert!(!c.apply(&stale));
    assert!(c.tabs.contains_key("t"));
    assert_eq!(c.seq, 3);
}

#[test]
fn closing_a_workspace_drops_its_tabs_panes_and_notifications() {
    let mut c = populated();
    c.apply(&ev(
        4,
        Ev::NotificationCreated(pb::NotificationCreated {
            notification: Some(pb::Notification {
                id: "n".into(),
                pane_id: "p".into(),
                workspace_id: "w".into(),
                body: "hi".into(),
                ..Default::default()
            }),
        }),
    ));
    assert_eq!(c.unread.len(), 1);
    assert_eq!(c.panes["p"].last_message, "hi");
    c.apply(&ev(
        5,
        Ev::WorkspaceClosed(pb::WorkspaceClosed {
            workspace_id: "w".into(),
        }),
    ));
    assert!(
        c.workspaces.is_empty() && c.tabs.is_empty() && c.panes.is_empty() && c.unread.is_empty()
    );
}

#[test]
fn closing_a_tab_removes_it_from_its_workspace() {
    let mut c = populated();
    c.apply(&ev(
        4,
        Ev::TabClosed(pb::TabClosed {
            tab_id: "t".into(),
            workspace_id: "w".into(),
        }),
    ));
    assert!(c.workspaces[0].tab_ids.is_empty());
    assert!(c.panes.is_empty());
}

#[test]
fn decisions_come_and_go_by_id() {
    let mut c = populated();
    c.apply(&ev(
        4,
        Ev::DecisionCreated(pb::DecisionCreated {
            decision: Some(decision("d1", "p")),
        }),
    ));
    assert_eq!(c.decisions().len(), 1);
    // An answer to an older decision does not clear the newer one.
    c.apply(&ev(
        5,
        Ev::DecisionAnswered(pb::DecisionAnswered {
            decision_id: "d0".into(),
            pane_id: "p".into(),
            option_id: "once".into(),
        }),
    ));
    assert_eq!(c.decisions().len(), 1);
    c.apply(&ev(
        6,
        Ev::DecisionCleared(pb::DecisionCleared {
            decision_id: "d1".into(),
            pane_id: "p".into(),
            reason: "timeout".into(),
        }),
    ));
    assert!(c.decisions().is_empty());
}

#[test]
fn lifecycle_attention_resize_and_exit_update_the_pane() {
    let mut c = populated();
    c.apply(&ev(
        4,
        Ev::LifecycleChanged(pb::LifecycleChanged {
            pane_id: "p".into(),
            new: pb::Lifecycle::Working as i32,
            ..Default::default()
        }),
    ));
    c.apply(&ev(
        5,
        Ev::AttentionChanged(pb::AttentionChanged {
            pane_id: "p".into(),
            new: pb::Attention::Unread as i32,
            ..Default::default()
        }),
    ));
    c.apply(&ev(
        6,
        Ev::PaneResized(pb::PaneResized {
            pane_id: "p".into(),
            cols: 100,
            rows: 30,
        }),
    ));
    let p = &c.panes["p"];
    assert_eq!(
        (p.lifecycle, p.attention, p.cols, p.rows),
        (
            pb::Lifecycle::Working as i32,
            pb::Attention::Unread as i32,
            100,
            30
        )
    );
    c.apply(&ev(
        7,
        Ev::DecisionCreated(pb::DecisionCreated {
            decision: Some(decision("d", "p")),
        }),
    ));
    c.apply(&ev(
        8,
        Ev::PaneExited(pb::PaneExited {
            pane_id: "p".into(),
            exit_code: 3,
        }),
    ));
    let p = &c.panes["p"];
    assert_eq!(p.status, pb::PaneStatus::Exited as i32);
    assert_eq!(p.exit_code, Some(3));
    assert!(p.pending_decision.is_none());
}

#[test]
fn attention_cleared_marks_the_panes_notifications_read() {
    let mut c = populated();
    for (seq, id) in [(4, "a"), (5, "b")] {
        c.apply(&ev(
            seq,
            Ev::NotificationCreated(pb::NotificationCreated {
                notification: Some(pb::Notification {
                    id: id.into(),
                    pane_id: "p".into(),
                    ..Default::default()
                }),
            }),
        ));
    }
    assert_eq!(
        c.unread.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(),
        ["b", "a"]
    );
    c.apply(&ev(
        6,
        Ev::AttentionChanged(pb::AttentionChanged {
            pane_id: "p".into(),
            new: pb::Attention::None as i32,
            ..Default::default()
        }),
    ));
    assert!(c.unread.is_empty());
}

/// `n` panes, each split off the previous one, the directions alternating (`n - 1` levels deep).
fn deep_chain(n: usize) -> pb::Layout {
    let leaf = |i: usize| pb::Layout {
        node: Some(Node::PaneId(format!("p{i}"))),
    };
    (0..n - 1).rev().fold(leaf(n - 1), |inner, i| {
        let direction = if i % 2 == 1 {
            pb::Direction::Down
        } else {
            pb::Direction::Right
        };
        pb::Layout {
            node: Some(Node::Split(Box::new(pb::Split {
                direction: direction.into(),
                ratio: 0.5,
                first: Some(Box::new(leaf(i))),
                second: Some(Box::new(inner)),
            }))),
        }
    })
}

#[test]
fn the_catalog_holds_the_whole_tree_of_a_tab_sent_only_flat() {
    let tree = deep_chain(256);
    let tab = pb::Tab {
        id: "tab_big".into(),
        workspace_id: "ws_1".into(),
        flat_layout: Some(signaltty_client::layout_tree::flatten(&tree)),
        ..pb::Tab::default()
    };
    let mut catalog = Catalog::default();
    catalog.apply(&pb::Event {
        seq: 1,
        kind: Some(pb::event::Kind::TabUpdated(pb::TabUpdated {
            tab: Some(tab),
        })),
        ..pb::Event::default()
    });
    let held =
        signaltty_client::layout_tree::held(&catalog.tabs["tab_big"]).expect("the tree is held");
    assert_eq!(held, &tree);
    // And it lays out: every pane of the 255-deep tree gets its place (in a wide enough area,
    // a cell each at least), as the TUI draws it.
    let placement = Placement::compute(held, Rect::new(0, 0, 1000, 300));
    assert_eq!(placement.panes.len(), 256);
    assert_eq!(placement.dividers.len(), 255);
}
