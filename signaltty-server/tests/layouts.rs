//! Layouts made by real panes: splits rebalance runs, SetLayout and SetRatio validate (omitted,
//! repeated, stolen panes, non-finite ratios) and change nothing when they refuse, closing
//! collapses the tree and the last pane closes the tab.

//!
//! This file speaks the deprecated nested `Layout` on purpose: clients written before
//! `flat_layout` must keep working for small tabs (`large_tabs.rs` covers the flat form).

#![allow(clippy::unwrap_used, clippy::expect_used, deprecated)]

mod clients;
mod common;

use common::{TestServer, assert_error, spawn};
use signaltty_proto::v1 as pb;
use tonic::Code;

#[tokio::test]
async fn layouts_made_by_panes_are_validated_by_set_layout_and_set_ratio() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let a = spawn(&srv, &ws.id, &["sleep", "1000"]).await;
    let mut panes = srv.panes();
    let split = |target: &str, dir: pb::Direction| pb::SplitPaneRequest {
        pane_id: target.into(),
        direction: dir as i32,
        argv: vec!["sleep".into(), "1000".into()],
        ..Default::default()
    };
    let b = srv.split_with(split(&a.id, pb::Direction::Right)).await;
    let c = panes
        .split_pane(split(&b.id, pb::Direction::Right))
        .await
        .unwrap()
        .into_inner();
    let d = panes
        .split_pane(split(&c.pane.as_ref().unwrap().id, pb::Direction::Right))
        .await
        .unwrap()
        .into_inner();
    let tab = d.tab.unwrap();
    assert_eq!(tab.pane_ids.len(), 4);
    // Four equal quarters: ratios 1/4, 1/3, 1/2 down the chain.
    let mut ratios = Vec::new();
    let mut node = tab.layout.clone();
    while let Some(pb::Layout {
        node: Some(pb::layout::Node::Split(s)),
    }) = node
    {
        ratios.push(s.ratio);
        node = s.second.map(|b| *b);
    }
    let expect = [0.25, 1.0 / 3.0, 0.5];
    assert_eq!(ratios.len(), 3);
    for (r, e) in ratios.iter().zip(expect) {
        assert!((r - e).abs() < 1e-5, "{ratios:?}");
    }
    let other = spawn(&srv, &ws.id, &["sleep", "1000"]).await; // lives in another tab
    let leaf = |id: &str| pb::Layout {
        node: Some(pb::layout::Node::PaneId(id.into())),
    };
    let pair = |x: pb::Layout, y: pb::Layout, ratio: f32| pb::Layout {
        node: Some(pb::layout::Node::Split(Box::new(pb::Split {
            direction: pb::Direction::Down as i32,
            ratio,
            first: Some(Box::new(x)),
            second: Some(Box::new(y)),
        }))),
    };
    let ids: Vec<String> = tab.pane_ids.clone();
    let full = |last: &str, ratio: f32| {
        pair(
            pair(leaf(&ids[0]), leaf(&ids[1]), 0.5),
            pair(leaf(&ids[2]), leaf(last), 0.5),
            ratio,
        )
    };
    let mut tabs = srv.tabs();
    for (bad, why) in [
        (
            pair(pair(leaf(&ids[0]), leaf(&ids[1]), 0.5), leaf(&ids[2]), 0.5),
            "omits a pane",
        ),
        (full(&ids[0], 0.5), "repeats a pane"),
        (full(&other.id, 0.5), "steals another tab's pane"),
        (full(&ids[3], f32::NAN), "non-finite ratio"),
        (pb::Layout { node: None }, "empty node"),
    ] {
        let status = tabs
            .set_layout(pb::SetLayoutRequest {
                tab_id: tab.id.clone(),
                layout: Some(bad),
                ..Default::default()
            })
            .await
            .expect_err(why);
        assert_eq!(status.code(), Code::InvalidArgument, "{why}");
        assert_eq!(
            signaltty_proto::error_reason(&status).as_deref(),
            Some("BAD_PARAMS"),
            "{why}"
        );
    }
    let unchanged = srv
        .get_workspace(&ws.id)
        .await
        .tabs
        .into_iter()
        .find(|t| t.id == tab.id)
        .unwrap();
    assert_eq!(
        unchanged.layout, tab.layout,
        "a refused layout changes nothing"
    );

    let set = tabs
        .set_layout(pb::SetLayoutRequest {
            tab_id: tab.id.clone(),
            layout: Some(full(&ids[3], 0.99)),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .tab
        .unwrap();
    let Some(pb::layout::Node::Split(root)) = set.layout.unwrap().node else {
        panic!("split")
    };
    assert!((root.ratio - 0.95).abs() < 1e-6, "stored {}", root.ratio);
    let ratio = tabs
        .set_ratio(pb::SetRatioRequest {
            tab_id: tab.id.clone(),
            path: vec![pb::PathStep::First as i32],
            ratio: 0.01,
        })
        .await
        .unwrap()
        .into_inner()
        .tab
        .unwrap();
    let Some(pb::layout::Node::Split(root)) = ratio.layout.unwrap().node else {
        panic!("split")
    };
    let Some(pb::layout::Node::Split(first)) = root.first.unwrap().node else {
        panic!("split")
    };
    assert!((first.ratio - 0.05).abs() < 1e-6);
    assert_error(
        tabs.set_ratio(pb::SetRatioRequest {
            tab_id: tab.id.clone(),
            path: vec![],
            ratio: f32::INFINITY,
        })
        .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    assert_error(
        tabs.set_ratio(pb::SetRatioRequest {
            tab_id: tab.id.clone(),
            path: vec![pb::PathStep::First as i32, pb::PathStep::First as i32],
            ratio: 0.5,
        })
        .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );

    // Closing panes collapses the layout; the last one closes the tab.
    for id in &ids[..3] {
        let r = panes
            .close_pane(pb::ClosePaneRequest {
                pane_id: id.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(!r.tab_closed);
    }
    let last = panes
        .close_pane(pb::ClosePaneRequest {
            pane_id: ids[3].clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(last.tab_closed);
    assert_error(
        panes
            .get_pane(pb::GetPaneRequest {
                pane_id: ids[0].clone(),
            })
            .await,
        Code::NotFound,
        "NO_SUCH_PANE",
    );
}
