//! Tabs of the most panes a tab may hold (256), in every arrangement, read whole through every
//! path a client reads a tab by — split responses, GetWorkspace, SetLayout's answer, events,
//! after a restart — by this crate's generated prost client with its default decoder limits
//! (nesting at most 100 levels); and the pane limits, refused with RESOURCE_EXHAUSTED
//! `TOO_MANY_PANES`, starting nothing and changing nothing.
//!
//! Before `flat_layout`, the ~50th split in one direction made a tab no generated client could
//! decode ("recursion limit reached"), the split's own response included.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::{TestServer, assert_error, spawn, until_event};
use signaltty_proto::v1 as pb;
use tonic::Code;

/// The per-tab limit (`docs/api.md`, "Limits").
const TAB_LIMIT: usize = 256;
/// The deepest tree the server also sends in the deprecated nested field.
const NESTED_MAX_DEPTH: usize = 32;

fn sleeper() -> Vec<String> {
    vec!["sleep".into(), "1000".into()]
}

/// Pane ids of a flat layout in layout order (the server writes it depth first).
fn flat_ids(tab: &pb::Tab) -> Vec<String> {
    let nodes = &tab.flat_layout.as_ref().expect("flat_layout").nodes;
    nodes
        .iter()
        .filter_map(|n| match &n.node {
            Some(pb::layout_node::Node::PaneId(id)) => Some(id.clone()),
            _ => None,
        })
        .collect()
}

/// Most splits on a root-to-leaf path of a flat layout.
fn flat_depth(flat: &pb::FlatLayout) -> usize {
    let mut depth = vec![0_usize; flat.nodes.len()];
    for (i, node) in flat.nodes.iter().enumerate() {
        if let Some(pb::layout_node::Node::Split(s)) = &node.node {
            for child in [s.first, s.second] {
                depth[child as usize] = depth[i] + 1;
            }
        }
    }
    depth.into_iter().max().unwrap_or(0)
}

/// The nodes of a layout of `ids` built depth first: `shape` picks, for a run of panes, where
/// it is cut and which way.
fn build(ids: &[String], shape: &dyn Fn(usize, usize) -> (usize, pb::Direction)) -> pb::FlatLayout {
    fn push(
        ids: &[String],
        level: usize,
        shape: &dyn Fn(usize, usize) -> (usize, pb::Direction),
        out: &mut Vec<pb::LayoutNode>,
    ) -> u32 {
        let me = out.len();
        if let [only] = ids {
            out.push(pb::LayoutNode {
                node: Some(pb::layout_node::Node::PaneId(only.clone())),
            });
            return me as u32;
        }
        let (cut, direction) = shape(ids.len(), level);
        out.push(pb::LayoutNode { node: None });
        let first = push(&ids[..cut], level + 1, shape, out);
        let second = push(&ids[cut..], level + 1, shape, out);
        out[me].node = Some(pb::layout_node::Node::Split(pb::LayoutSplit {
            direction: direction as i32,
            ratio: 0.5, // within 0.05–0.95, so stored as sent
            first,
            second,
        }));
        me as u32
    }
    let mut nodes = Vec::new();
    push(ids, 0, shape, &mut nodes);
    pb::FlatLayout { nodes }
}

fn alternate(level: usize) -> pb::Direction {
    if level.is_multiple_of(2) {
        pb::Direction::Right
    } else {
        pb::Direction::Down
    }
}

/// A tab as every reader must see it: all panes in order in `flat_layout`; the nested field
/// only while it is shallow enough for every decoder.
#[allow(deprecated)] // checks what v1 clients get in the nested field.
fn assert_whole(tab: &pb::Tab, ids: &[String], what: &str) {
    assert_eq!(
        flat_ids(tab),
        ids,
        "{what}: flat_layout holds every pane in order"
    );
    assert_eq!(tab.pane_ids, ids, "{what}: pane_ids");
    let depth = flat_depth(tab.flat_layout.as_ref().unwrap());
    assert_eq!(
        tab.layout.is_some(),
        depth <= NESTED_MAX_DEPTH,
        "{what}: the nested field is set exactly while the tree is at most {NESTED_MAX_DEPTH} splits deep (depth {depth})"
    );
}

#[tokio::test]
async fn a_tab_of_the_most_panes_is_read_whole_in_every_arrangement_and_after_a_restart() {
    // Each live pane holds four descriptors; a CI runner's soft limit may be 1024.
    signaltty_server::fdlimit::raise().expect("raise the descriptor limit");
    let srv = TestServer::start().await;
    let ws = srv.workspace("big").await;
    let mut events = srv.subscribe(&[pb::EventKind::Tab]).await;
    let first = spawn(&srv, &ws.id, &["sleep", "1000"]).await;
    let mut panes = srv.panes();
    let mut ids = vec![first.id.clone()];
    // One direction: each split cuts the newest pane, so the tree is a chain 255 splits deep.
    let mut tab = None;
    while ids.len() < TAB_LIMIT {
        let split = panes
            .split_pane(pb::SplitPaneRequest {
                pane_id: ids.last().unwrap().clone(),
                direction: pb::Direction::Right as i32,
                argv: sleeper(),
                ..Default::default()
            })
            .await
            .unwrap_or_else(|s| panic!("split {} decodes and succeeds: {s:?}", ids.len()))
            .into_inner();
        ids.push(split.pane.unwrap().id);
        let got = split.tab.unwrap();
        assert_whole(&got, &ids, "SplitPane's answer");
        tab = Some(got);
    }
    let tab = tab.unwrap();
    assert_eq!(flat_depth(tab.flat_layout.as_ref().unwrap()), TAB_LIMIT - 1);

    // Events: the stream carried every one of those tabs and still decodes.
    let last = until_event(&mut events, |k| match k {
        pb::event::Kind::TabUpdated(pb::TabUpdated { tab: Some(t) })
            if t.pane_ids.len() == TAB_LIMIT =>
        {
            Some(t.clone())
        }
        _ => None,
    })
    .await;
    assert_whole(&last, &ids, "TabUpdated");

    // The next pane is refused by the per-tab limit, by split or spawn; nothing starts.
    let before = srv.get_workspace(&ws.id).await;
    assert_error(
        panes
            .split_pane(pb::SplitPaneRequest {
                pane_id: ids[0].clone(),
                direction: pb::Direction::Down as i32,
                argv: sleeper(),
                ..Default::default()
            })
            .await,
        Code::ResourceExhausted,
        "TOO_MANY_PANES",
    );
    let status = panes
        .spawn_pane(pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            tab_id: tab.id.clone(),
            argv: sleeper(),
            ..Default::default()
        })
        .await
        .expect_err("the tab is full");
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert!(
        status.message().contains("256 panes") && status.message().contains("another tab"),
        "says the limit and what to do: {}",
        status.message()
    );
    let after = srv.get_workspace(&ws.id).await;
    assert_eq!(after.panes.len(), before.panes.len(), "no pane was added");
    assert_eq!(after.tabs, before.tabs, "no tab changed");

    // Alternating directions (255 splits deep) and balanced (8 deep), set in the flat form and
    // read back by GetWorkspace.
    let mut tabs = srv.tabs();
    let alternating = build(&ids, &|_, level| (1, alternate(level)));
    let balanced = build(&ids, &|len, level| (len / 2, alternate(level)));
    for (name, flat) in [("alternating", alternating), ("balanced", balanced)] {
        let set = tabs
            .set_layout(pb::SetLayoutRequest {
                tab_id: tab.id.clone(),
                flat_layout: Some(flat.clone()),
                ..Default::default()
            })
            .await
            .unwrap_or_else(|s| panic!("{name}: {s:?}"))
            .into_inner()
            .tab
            .unwrap();
        assert_eq!(
            set.flat_layout.as_ref(),
            Some(&flat),
            "{name}: stored as sent"
        );
        assert_whole(&set, &ids, name);
        let read = srv.get_workspace(&ws.id).await;
        let read = read.tabs.iter().find(|t| t.id == tab.id).unwrap();
        assert_whole(read, &ids, name);
        assert_eq!(
            read.flat_layout.as_ref(),
            Some(&flat),
            "{name}: GetWorkspace"
        );
    }

    // Back to the 255-deep chain, then a restart: the snapshot holds it and reads it back.
    tabs.set_layout(pb::SetLayoutRequest {
        tab_id: tab.id.clone(),
        flat_layout: tab.flat_layout.clone(),
        ..Default::default()
    })
    .await
    .expect("the chain again");
    drop((events, panes, tabs));
    let srv = srv.restart().await;
    let restored = srv.get_workspace(&ws.id).await;
    let restored = restored
        .tabs
        .iter()
        .find(|t| t.id == tab.id)
        .expect("tab restored");
    assert_eq!(
        restored.flat_layout, tab.flat_layout,
        "the deepest tree survives a restart"
    );
}

#[tokio::test]
async fn set_layout_refuses_a_malformed_flat_layout_and_changes_nothing() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let a = spawn(&srv, &ws.id, &["sleep", "1000"]).await;
    let b = srv
        .split_with(pb::SplitPaneRequest {
            pane_id: a.id.clone(),
            direction: pb::Direction::Down as i32,
            argv: sleeper(),
            ..Default::default()
        })
        .await;
    let before = srv.get_workspace(&ws.id).await.tabs;
    let tab_id = before[0].id.clone();
    let pane = |id: &str| pb::LayoutNode {
        node: Some(pb::layout_node::Node::PaneId(id.into())),
    };
    let split = |first: u32, second: u32| pb::LayoutNode {
        node: Some(pb::layout_node::Node::Split(pb::LayoutSplit {
            direction: pb::Direction::Right as i32,
            ratio: 0.5,
            first,
            second,
        })),
    };
    let good = pb::FlatLayout {
        nodes: vec![split(1, 2), pane(&b.id), pane(&a.id)],
    };
    #[allow(deprecated)] // both forms at once is one of the refusals.
    let cases = vec![
        ("neither form", pb::SetLayoutRequest::default()),
        (
            "both forms",
            pb::SetLayoutRequest {
                layout: Some(pb::Layout {
                    node: Some(pb::layout::Node::PaneId(a.id.clone())),
                }),
                flat_layout: Some(good.clone()),
                ..Default::default()
            },
        ),
        (
            "no nodes",
            pb::SetLayoutRequest {
                flat_layout: Some(pb::FlatLayout::default()),
                ..Default::default()
            },
        ),
        (
            "child out of range",
            pb::SetLayoutRequest {
                flat_layout: Some(pb::FlatLayout {
                    nodes: vec![split(1, 7), pane(&b.id), pane(&a.id)],
                }),
                ..Default::default()
            },
        ),
        (
            "a cycle",
            pb::SetLayoutRequest {
                flat_layout: Some(pb::FlatLayout {
                    nodes: vec![split(1, 2), split(0, 2), pane(&a.id)],
                }),
                ..Default::default()
            },
        ),
        (
            "an orphan node",
            pb::SetLayoutRequest {
                flat_layout: Some(pb::FlatLayout {
                    nodes: vec![split(1, 2), pane(&b.id), pane(&a.id), pane(&a.id)],
                }),
                ..Default::default()
            },
        ),
        (
            "a pane missing",
            pb::SetLayoutRequest {
                flat_layout: Some(pb::FlatLayout {
                    nodes: vec![pane(&a.id)],
                }),
                ..Default::default()
            },
        ),
    ];
    let mut tabs = srv.tabs();
    for (why, mut request) in cases {
        request.tab_id = tab_id.clone();
        let status = tabs.set_layout(request).await.expect_err(why);
        assert_eq!(status.code(), Code::InvalidArgument, "{why}: {status:?}");
        assert_eq!(
            signaltty_proto::error_reason(&status).as_deref(),
            Some("BAD_PARAMS"),
            "{why}"
        );
    }
    assert_eq!(
        srv.get_workspace(&ws.id).await.tabs,
        before,
        "nothing changed"
    );
    // The good one is taken (b now left of a).
    let set = tabs
        .set_layout(pb::SetLayoutRequest {
            tab_id,
            flat_layout: Some(good.clone()),
            ..Default::default()
        })
        .await
        .expect("valid")
        .into_inner()
        .tab
        .unwrap();
    assert_eq!(set.flat_layout, Some(good));
    assert_eq!(set.pane_ids, vec![b.id, a.id]);
}

#[tokio::test]
async fn the_server_pane_limit_refuses_the_next_pane_with_what_to_do() {
    let srv = TestServer::start_with(|c| c.max_panes = 2).await;
    let ws = srv.workspace("w").await;
    let a = spawn(&srv, &ws.id, &["sleep", "1000"]).await;
    spawn(&srv, &ws.id, &["sleep", "1000"]).await;
    let mut panes = srv.panes();
    let before = srv.get_workspace(&ws.id).await;
    let status = panes
        .spawn_pane(pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            argv: sleeper(),
            ..Default::default()
        })
        .await
        .expect_err("past the server's limit");
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(
        signaltty_proto::error_reason(&status).as_deref(),
        Some("TOO_MANY_PANES")
    );
    assert!(
        status.message().contains("2 panes") && status.message().contains("server.max_panes"),
        "{}",
        status.message()
    );
    assert_error(
        panes
            .split_pane(pb::SplitPaneRequest {
                pane_id: a.id.clone(),
                direction: pb::Direction::Right as i32,
                argv: sleeper(),
                ..Default::default()
            })
            .await,
        Code::ResourceExhausted,
        "TOO_MANY_PANES",
    );
    let after = srv.get_workspace(&ws.id).await;
    assert_eq!(after.panes.len(), 2);
    assert_eq!(after.tabs, before.tabs, "nothing changed");
}
