//! Focus, moving panes between tabs and reordering tabs, with real panes: events say what
//! changed, a moved pane's process and attached client carry on, an emptied tab closes, every
//! refusal changes nothing, and a restart comes back to the same tabs, layouts and focus.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::{TestServer, assert_error, attach, spawn, until_event};
use signaltty_proto::v1 as pb;
use tonic::Code;

fn split(target: &str, direction: pb::Direction) -> pb::SplitPaneRequest {
    pb::SplitPaneRequest {
        pane_id: target.into(),
        direction: direction as i32,
        argv: vec!["/bin/cat".into()],
        ..Default::default()
    }
}

fn to_tab(pane: &str, tab: &str, beside: &str, direction: pb::Direction) -> pb::MovePaneRequest {
    pb::MovePaneRequest {
        pane_id: pane.into(),
        destination: Some(pb::move_pane_request::Destination::TabId(tab.into())),
        beside_pane_id: beside.into(),
        direction: direction as i32,
    }
}

/// What a restart must keep: the workspace's tab order and focus, and each tab's layout and
/// focus (process numbers and timestamps aside).
fn arrangement(got: &pb::GetWorkspaceResponse) -> (Vec<String>, String, Vec<pb::Tab>) {
    let ws = got.workspace.clone().expect("workspace");
    (ws.tab_ids, ws.active_tab_id, got.tabs.clone())
}

#[tokio::test]
async fn focus_moves_and_reorders_are_events_keep_processes_and_survive_a_restart() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let a = spawn(&srv, &ws.id, &["/bin/cat"]).await;
    let tab1 = a.tab_id.clone();
    let b = srv.split_with(split(&a.id, pb::Direction::Right)).await;
    let c = spawn(&srv, &ws.id, &["/bin/cat"]).await;
    let tab2 = c.tab_id.clone();
    let mut events = srv
        .subscribe(&[
            pb::EventKind::Workspace,
            pb::EventKind::Tab,
            pb::EventKind::Pane,
        ])
        .await;

    // Focus a tab, then a pane: the records and the events say so.
    let focused = srv
        .workspaces()
        .focus_tab(pb::FocusTabRequest {
            tab_id: tab1.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .workspace
        .unwrap();
    assert_eq!(focused.active_tab_id, tab1);
    until_event(&mut events, |k| match k {
        pb::event::Kind::WorkspaceUpdated(u) => u
            .workspace
            .as_ref()
            .filter(|w| w.active_tab_id == tab1)
            .map(|_| ()),
        _ => None,
    })
    .await;
    let reply = srv
        .panes()
        .focus_pane(pb::FocusPaneRequest {
            pane_id: a.id.clone(),
            mark_seen: true,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.tab.as_ref().unwrap().active_pane_id, a.id);
    assert_eq!(
        reply.pane.as_ref().unwrap().attention,
        pb::Attention::None as i32
    );
    until_event(&mut events, |k| match k {
        pb::event::Kind::TabUpdated(u) => u
            .tab
            .as_ref()
            .filter(|t| t.id == tab1 && t.active_pane_id == a.id)
            .map(|_| ()),
        _ => None,
    })
    .await;

    // Move b, attached and running, below c in the other tab.
    let (mut attached, _) = attach(&srv, &b.id, 80, 24, false).await;
    let moved = srv
        .panes()
        .move_pane(to_tab(&b.id, &tab2, &c.id, pb::Direction::Down))
        .await
        .unwrap()
        .into_inner();
    let tab = moved.tab.unwrap();
    assert_eq!(moved.pane.unwrap().tab_id, tab2);
    assert_eq!(tab.pane_ids, vec![c.id.clone(), b.id.clone()]);
    assert_eq!(tab.active_pane_id, b.id);
    assert!(moved.closed_tab_id.is_empty());
    until_event(&mut events, |k| match k {
        pb::event::Kind::PaneUpdated(u) => u
            .pane
            .as_ref()
            .filter(|p| p.id == b.id && p.tab_id == tab2)
            .map(|_| ()),
        _ => None,
    })
    .await;
    until_event(&mut events, |k| match k {
        pb::event::Kind::TabUpdated(u) => u
            .tab
            .as_ref()
            .filter(|t| t.id == tab1 && t.pane_ids == vec![a.id.clone()])
            .map(|_| ()),
        _ => None,
    })
    .await;
    // The process and the attached client did not notice.
    attached.input(b"still-here\r").await;
    attached.until_output("still-here").await;

    // Reorder: tab2 first.
    let reordered = srv
        .workspaces()
        .move_tab(pb::MoveTabRequest {
            tab_id: tab2.clone(),
            index: 0,
        })
        .await
        .unwrap()
        .into_inner()
        .workspace
        .unwrap();
    assert_eq!(reordered.tab_ids, vec![tab2.clone(), tab1.clone()]);

    // a, the last pane of tab1, goes to a new tab: tab1 closes, a lives on.
    let moved = srv
        .panes()
        .move_pane(pb::MovePaneRequest {
            pane_id: a.id.clone(),
            destination: Some(pb::move_pane_request::Destination::NewTab(
                pb::NewTabDestination {
                    title: "solo".into(),
                },
            )),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(moved.closed_tab_id, tab1);
    let solo = moved.tab.unwrap();
    assert_eq!(solo.title, "solo");
    until_event(&mut events, |k| match k {
        pb::event::Kind::TabClosed(t) if t.tab_id == tab1 => Some(()),
        _ => None,
    })
    .await;
    assert_eq!(
        srv.pane(&a.id).await.status,
        pb::PaneStatus::Live as i32,
        "moving never ends a process"
    );
    let before = srv.get_workspace(&ws.id).await;
    let (order, active, _) = arrangement(&before);
    assert_eq!(order, vec![tab2.clone(), solo.id.clone()]);
    assert_eq!(active, solo.id);
    // Focus back on c, so the restart has a non-default focus to keep.
    srv.panes()
        .focus_pane(pb::FocusPaneRequest {
            pane_id: c.id.clone(),
            mark_seen: false,
        })
        .await
        .unwrap();
    let before = srv.get_workspace(&ws.id).await;
    drop(events);
    drop(attached);

    let srv = srv.restart().await;
    let after = srv.get_workspace(&ws.id).await;
    assert_eq!(arrangement(&after), arrangement(&before));
    let (_, active, tabs) = arrangement(&after);
    assert_eq!(active, tab2);
    assert_eq!(tabs[0].active_pane_id, c.id);
}

#[tokio::test]
async fn bad_focus_and_move_requests_are_refused_and_change_nothing() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let a = spawn(&srv, &ws.id, &["/bin/cat"]).await;
    let b = srv.split_with(split(&a.id, pb::Direction::Down)).await;
    let c = spawn(&srv, &ws.id, &["/bin/cat"]).await;
    let before = srv.get_workspace(&ws.id).await;
    let head = srv.head().await;
    let ghost_pane = "pane_00000000-0000-4000-8000-000000000000";
    let ghost_tab = "tab_00000000-0000-4000-8000-000000000000";

    let mut panes = srv.panes();
    let mut workspaces = srv.workspaces();
    assert_error(
        workspaces
            .focus_tab(pb::FocusTabRequest {
                tab_id: ghost_tab.into(),
            })
            .await,
        Code::NotFound,
        "NO_SUCH_TAB",
    );
    assert_error(
        workspaces
            .focus_tab(pb::FocusTabRequest {
                tab_id: "not-an-id".into(),
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    assert_error(
        panes
            .focus_pane(pb::FocusPaneRequest {
                pane_id: ghost_pane.into(),
                mark_seen: true,
            })
            .await,
        Code::NotFound,
        "NO_SUCH_PANE",
    );
    assert_error(
        workspaces
            .move_tab(pb::MoveTabRequest {
                tab_id: c.tab_id.clone(),
                index: 2,
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    let refusals: Vec<(pb::MovePaneRequest, Code, &str)> = vec![
        (
            pb::MovePaneRequest {
                pane_id: a.id.clone(),
                ..Default::default()
            },
            Code::InvalidArgument,
            "BAD_PARAMS",
        ),
        (
            to_tab(&a.id, &a.tab_id, "", pb::Direction::Right),
            Code::InvalidArgument,
            "BAD_PARAMS",
        ),
        (
            to_tab(&a.id, &a.tab_id, &a.id, pb::Direction::Right),
            Code::InvalidArgument,
            "BAD_PARAMS",
        ),
        (
            to_tab(&a.id, &c.tab_id, &b.id, pb::Direction::Right),
            Code::InvalidArgument,
            "BAD_PARAMS",
        ),
        (
            to_tab(&a.id, ghost_tab, "", pb::Direction::Right),
            Code::NotFound,
            "NO_SUCH_TAB",
        ),
        (
            to_tab(ghost_pane, &c.tab_id, "", pb::Direction::Right),
            Code::NotFound,
            "NO_SUCH_PANE",
        ),
        (
            pb::MovePaneRequest {
                direction: 7,
                ..to_tab(&a.id, &c.tab_id, "", pb::Direction::Right)
            },
            Code::InvalidArgument,
            "BAD_PARAMS",
        ),
        (
            pb::MovePaneRequest {
                pane_id: a.id.clone(),
                destination: Some(pb::move_pane_request::Destination::NewTab(
                    pb::NewTabDestination {
                        title: String::new(),
                    },
                )),
                beside_pane_id: b.id.clone(),
                direction: 0,
            },
            Code::InvalidArgument,
            "BAD_PARAMS",
        ),
        (
            pb::MovePaneRequest {
                pane_id: a.id.clone(),
                destination: Some(pb::move_pane_request::Destination::NewTab(
                    pb::NewTabDestination {
                        title: "x\u{1b}[31m".into(),
                    },
                )),
                ..Default::default()
            },
            Code::InvalidArgument,
            "BAD_PARAMS",
        ),
    ];
    for (request, code, reason) in refusals {
        let shown = format!("{request:?}");
        let result = panes.move_pane(request).await;
        let status = result.as_ref().err().cloned();
        assert_error(result, code, reason);
        assert!(
            !status.unwrap().message().contains("pb::"),
            "{shown}: messages speak to people"
        );
    }
    assert_eq!(srv.get_workspace(&ws.id).await, before, "nothing changed");
    assert_eq!(srv.head().await, head, "no event was emitted");
}

/// After a restart a pane has no process: attaching says so on the screen, with the command
/// that starts it, and typed keys bring the notice back instead of vanishing silently.
#[tokio::test]
async fn attaching_to_a_restored_pane_says_how_to_resume_it() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let a = spawn(&srv, &ws.id, &["/bin/cat"]).await;
    let srv = srv.restart().await;
    assert_eq!(
        srv.pane(&a.id).await.status,
        pb::PaneStatus::Restored as i32
    );

    let hint = format!("signaltty pane resume {} --respawn", a.id);
    let (mut attached, snap) = attach(&srv, &a.id, 120, 24, false).await;
    let mut screen = signaltty_server::term::Screen::new(snap.cols as u16, snap.rows as u16);
    screen.feed(&snap.screen);
    let text = screen.contents(false);
    let last_row = text.lines().last().unwrap_or_default().to_owned();
    assert_eq!(
        text.lines().count(),
        snap.rows as usize,
        "on the last row: {text}"
    );
    assert!(last_row.contains(&hint), "{last_row:?}");
    assert!(text.contains("not running"), "{text}");

    attached.input(b"hello\r").await;
    attached
        .until(|k| matches!(k, pb::attach_response::Kind::Resync(_)).then_some(()))
        .await;
    let again = attached
        .until(|k| match k {
            pb::attach_response::Kind::Snapshot(s) => Some(s.clone()),
            _ => None,
        })
        .await;
    assert!(String::from_utf8_lossy(&again.screen).contains(&hint));
    // ReadPane still returns the pane's own screen, without the notice.
    let lines = srv.read(&a.id, pb::ReadMode::Screen, 0, false).await;
    assert!(!lines.join("\n").contains("not running"), "{lines:?}");
}
