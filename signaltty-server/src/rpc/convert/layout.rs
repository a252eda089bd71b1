//! Layouts between the wire and the domain, in both of the wire's forms.
//!
//! `FlatLayout` (a node list; [`crate::model::layout::flat`]) carries every tab whole. The
//! deprecated nested `Layout` costs two levels of protobuf nesting per split, and generated
//! decoders (prost, Python's protobuf, protobuf.js, Go) refuse a message nested deeper than 100
//! levels by default, failing the whole response or event; so it is sent only for trees at most
//! [`NESTED_LAYOUT_MAX_DEPTH`] splits deep and left unset beyond (documented in `tab.proto` and
//! `docs/api.md`). Requests may use either form; a nested one deeper than the decoder allows
//! never reaches here (tonic refuses it as BAD_PARAMS, `rpc::edge`).

use signaltty_proto::v1 as pb;

use crate::error::{Error, Result};
use crate::model::layout::flat::FlatNode;
use crate::model::layout::{Layout, Ratio, Split};

use super::{direction_from_pb, direction_to_pb, pane_id};

/// Deepest tree sent in the deprecated nested `Tab.layout`. With 32 splits the layout takes 65
/// levels of nesting; the deepest message carrying a tab (a `SubscribeResponse`'s event) adds
/// four, well under the decoders' 100.
pub const NESTED_LAYOUT_MAX_DEPTH: usize = 32;

/// Deepest nested layout accepted from the wire (protects the recursive conversion; the
/// decoder's own limit of 100 levels is reached first).
const MAX_WIRE_DEPTH: usize = 64;

/// The nested form of a layout, or `None` when it is deeper than [`NESTED_LAYOUT_MAX_DEPTH`].
pub fn nested_layout_to_pb(l: &Layout) -> Option<pb::Layout> {
    (l.depth() <= NESTED_LAYOUT_MAX_DEPTH).then(|| layout_to_pb(l))
}

/// A layout in the nested wire form, whatever its depth (callers bound it).
pub fn layout_to_pb(l: &Layout) -> pb::Layout {
    let node = match l {
        Layout::Pane(id) => pb::layout::Node::PaneId(id.to_string()),
        Layout::Split(s) => pb::layout::Node::Split(Box::new(pb::Split {
            direction: direction_to_pb(s.direction).into(),
            ratio: s.ratio.get(),
            first: Some(Box::new(layout_to_pb(&s.first))),
            second: Some(Box::new(layout_to_pb(&s.second))),
        })),
    };
    pb::Layout { node: Some(node) }
}

/// A layout as the wire's flat node list (depth first, root first).
pub fn flat_layout_to_pb(l: &Layout) -> pb::FlatLayout {
    let nodes = l
        .to_flat()
        .into_iter()
        .map(|node| pb::LayoutNode {
            node: Some(match node {
                FlatNode::Pane(id) => pb::layout_node::Node::PaneId(id.to_string()),
                FlatNode::Split {
                    direction,
                    ratio,
                    first,
                    second,
                } => pb::layout_node::Node::Split(pb::LayoutSplit {
                    direction: direction_to_pb(direction).into(),
                    ratio: ratio.get(),
                    first: index_to_pb(first),
                    second: index_to_pb(second),
                }),
            }),
        })
        .collect();
    pb::FlatLayout { nodes }
}

/// A wire flat layout into the domain; its shape is checked here, membership by the state.
pub fn flat_layout_from_pb(l: &pb::FlatLayout) -> Result<Layout> {
    if l.nodes.is_empty() {
        return Err(Error::bad(
            "flat_layout has no nodes: a layout holds at least one pane",
        ));
    }
    let nodes = l
        .nodes
        .iter()
        .enumerate()
        .map(|(index, node)| match &node.node {
            None => Err(Error::bad(format!(
                "flat_layout node {index} is empty: set pane_id or split"
            ))),
            Some(pb::layout_node::Node::PaneId(raw)) => pane_id(raw).map(FlatNode::Pane),
            Some(pb::layout_node::Node::Split(s)) => Ok(FlatNode::Split {
                direction: direction_from_pb(s.direction)?,
                ratio: Ratio::new(s.ratio)
                    .map_err(|e| Error::bad(format!("flat_layout node {index}: ratio: {e}")))?,
                first: index_from_pb(s.first),
                second: index_from_pb(s.second),
            }),
        })
        .collect::<Result<Vec<_>>>()?;
    Layout::from_flat(nodes).map_err(|e| Error::bad(format!("flat_layout refused: {e}")))
}

/// A wire nested layout into the domain; structure is checked here, membership by the state.
pub fn layout_from_pb(l: &pb::Layout) -> Result<Layout> {
    layout_from_pb_at(l, 0)
}

/// The layout of a SetLayout request: exactly one of the two forms.
#[allow(deprecated)] // the nested `layout` is still accepted from clients written before it.
pub fn requested_layout(req: &pb::SetLayoutRequest) -> Result<Layout> {
    match (&req.layout, &req.flat_layout) {
        (None, Some(flat)) => flat_layout_from_pb(flat),
        (Some(nested), None) => layout_from_pb(nested),
        (None, None) => Err(Error::bad("flat_layout is required")),
        (Some(_), Some(_)) => Err(Error::bad(
            "set either flat_layout or the deprecated layout, not both",
        )),
    }
}

fn layout_from_pb_at(l: &pb::Layout, depth: usize) -> Result<Layout> {
    if depth > MAX_WIRE_DEPTH {
        return Err(Error::bad(format!(
            "layout is deeper than {MAX_WIRE_DEPTH} levels; send it as flat_layout"
        )));
    }
    match &l.node {
        None => Err(Error::bad("layout node is empty: set pane_id or split")),
        Some(pb::layout::Node::PaneId(raw)) => pane_id(raw).map(Layout::Pane),
        Some(pb::layout::Node::Split(s)) => {
            let direction = direction_from_pb(s.direction)?;
            let ratio =
                Ratio::new(s.ratio).map_err(|e| Error::bad(format!("layout ratio: {e}")))?;
            let child = |c: &Option<Box<pb::Layout>>, which: &str| {
                c.as_deref()
                    .ok_or_else(|| Error::bad(format!("split has no {which} child")))
                    .and_then(|c| layout_from_pb_at(c, depth + 1))
            };
            Ok(Layout::Split(Split {
                direction,
                ratio,
                first: Box::new(child(&s.first, "first")?),
                second: Box::new(child(&s.second, "second")?),
            }))
        }
    }
}

/// Node indices are at most [`crate::model::layout::flat::MAX_NODES`], far inside `u32`.
fn index_to_pb(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// A wire index; one that does not fit `usize` is out of range all the same.
fn index_from_pb(index: u32) -> usize {
    usize::try_from(index).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use prost::Message;

    use super::*;
    use crate::model::ids::{PaneId, TabId, WorkspaceId};
    use crate::model::layout::Direction;
    use crate::model::tab::Tab;

    /// A tab of `panes` panes, each split off the newest: `panes - 1` splits deep.
    fn chain_tab(panes: usize) -> (Tab, Vec<PaneId>) {
        let ids: Vec<PaneId> = (0..panes).map(|_| PaneId::new()).collect();
        let mut layout = Layout::single(ids[0].clone());
        for pair in ids.windows(2) {
            layout
                .split(&pair[0], pair[1].clone(), Direction::Right)
                .expect("within the cap");
        }
        let tab = Tab {
            id: TabId::new(),
            workspace_id: WorkspaceId::new(),
            title: "t".into(),
            layout: Some(layout),
            active_pane: None,
            created_at: SystemTime::UNIX_EPOCH,
        };
        (tab, ids)
    }

    /// What the issue reported: the nested form of ~50 splits in one direction cannot be decoded
    /// by prost with its default limit, inside the event that carries it; the tab as sent now
    /// decodes whole at the most panes a tab may hold.
    #[test]
    #[allow(deprecated)] // builds the old wire shape to show why it had to go.
    fn tabs_as_sent_decode_with_default_limits_where_the_nested_form_did_not() {
        let wrap = |tab: pb::Tab| pb::SubscribeResponse {
            kind: Some(pb::subscribe_response::Kind::Event(pb::Event {
                seq: 1,
                kind: Some(pb::event::Kind::TabUpdated(pb::TabUpdated {
                    tab: Some(tab),
                })),
                ..Default::default()
            })),
        };
        let (fifty, _) = chain_tab(50);
        let old = pb::Tab {
            layout: fifty.layout.as_ref().map(layout_to_pb),
            ..Default::default()
        };
        let err = pb::SubscribeResponse::decode(wrap(old).encode_to_vec().as_slice())
            .expect_err("the nested form of 49 splits is past the decoder's nesting limit");
        assert!(err.to_string().contains("recursion limit"), "{err}");

        for panes in [
            2,
            NESTED_LAYOUT_MAX_DEPTH + 1,
            NESTED_LAYOUT_MAX_DEPTH + 2,
            256,
        ] {
            let (tab, ids) = chain_tab(panes);
            let sent = wrap(super::super::tab_to_pb(&tab)).encode_to_vec();
            let got = pb::SubscribeResponse::decode(sent.as_slice()).expect("decodes");
            let Some(pb::subscribe_response::Kind::Event(pb::Event {
                kind: Some(pb::event::Kind::TabUpdated(pb::TabUpdated { tab: Some(got) })),
                ..
            })) = got.kind
            else {
                panic!("a tab event")
            };
            let flat = flat_layout_from_pb(got.flat_layout.as_ref().expect("flat_layout"));
            assert_eq!(flat.expect("valid").panes(), ids, "{panes} panes");
            // The nested field only while every decoder can read it.
            assert_eq!(
                got.layout.is_some(),
                panes - 1 <= NESTED_LAYOUT_MAX_DEPTH,
                "{panes}"
            );
        }
    }
}
