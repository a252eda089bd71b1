//! A tab's split tree, whichever wire form carried it.
//!
//! The server sends every tab's layout whole in `Tab.flat_layout` (a node list whose nesting
//! does not grow with the pane count), and in the deprecated nested `Tab.layout` only while the
//! tree is at most 32 splits deep: nested messages deeper than 100 levels are refused by every
//! generated decoder, prost's included. In memory the nested [`pb::Layout`] is the convenient
//! tree (no decoder limit applies there), so Rust clients rebuild it here: [`tree`] from a tab
//! as received, [`flatten`] for sending one back (`SetLayout`'s `flat_layout`).
//!
//! Tabs the [`Catalog`](crate::catalog::Catalog) holds are [`hold`]-normalised on the way in:
//! their `layout` is the whole tree, rebuilt once per change rather than once per frame, and
//! read with [`held`].
//!
//! A server older than `flat_layout` sends only the nested form, which is then used as is. A
//! malformed node list (not something a server sends) gives empty nodes where it is broken,
//! which geometry treats as empty leaves, instead of failing.

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::layout::Node;
use signaltty_proto::v1::layout_node::Node as FlatNode;

/// Deepest tree rebuilt from a node list; deeper subtrees are left empty. Far above what the
/// server allows (a tab of 256 panes is at most 255 splits deep), and low enough that the
/// recursive walks over the tree stay within any thread's stack.
pub const MAX_REBUILT_DEPTH: usize = 1024;

/// The whole split tree of a tab as received from the server: rebuilt from `flat_layout`, else
/// (a server older than it) the nested `layout`. `None` while the tab has no panes.
#[allow(deprecated)] // the nested field is the fallback for servers without `flat_layout`.
pub fn tree(tab: &pb::Tab) -> Option<pb::Layout> {
    match &tab.flat_layout {
        Some(flat) if !flat.nodes.is_empty() => Some(unflatten(flat)),
        _ => tab.layout.clone(),
    }
}

/// Makes a received tab's `layout` its whole tree (see the module docs); the catalog does this
/// to every tab it holds.
#[allow(deprecated)] // in memory the nested field holds the rebuilt tree.
pub fn hold(tab: &mut pb::Tab) {
    tab.layout = tree(tab);
}

/// The whole tree of a tab normalised by [`hold`] (every tab of the catalog).
#[allow(deprecated)] // see `hold`.
pub fn held(tab: &pb::Tab) -> Option<&pb::Layout> {
    tab.layout.as_ref()
}

/// The held tree, to edit in place (a client's optimistic copy until the server's event).
#[allow(deprecated)] // see `hold`.
pub fn held_mut(tab: &mut pb::Tab) -> Option<&mut pb::Layout> {
    tab.layout.as_mut()
}

/// Gives a tab the tree `layout` as a server would send it (both forms); for tests and tools
/// that build tabs themselves.
#[allow(deprecated)] // both forms, as a server sends a small tab.
pub fn set(tab: &mut pb::Tab, layout: Option<pb::Layout>) {
    tab.flat_layout = layout.as_ref().map(flatten);
    tab.layout = layout;
}

/// A tree as a node list, depth first (root first, a split's first child right after it).
pub fn flatten(layout: &pb::Layout) -> pb::FlatLayout {
    let mut nodes = Vec::new();
    push_flat(layout, &mut nodes);
    pb::FlatLayout { nodes }
}

/// A node list as a tree (`nodes[0]` is the root). Children must come after their split, as the
/// server writes them; a missing, backward or repeated child, or one past
/// [`MAX_REBUILT_DEPTH`], becomes an empty node.
pub fn unflatten(flat: &pb::FlatLayout) -> pb::Layout {
    build(&flat.nodes, 0, 0, &mut vec![false; flat.nodes.len()])
}

fn push_flat(layout: &pb::Layout, nodes: &mut Vec<pb::LayoutNode>) -> u32 {
    let me = index(nodes.len());
    match &layout.node {
        Some(Node::PaneId(id)) => nodes.push(pb::LayoutNode {
            node: Some(FlatNode::PaneId(id.clone())),
        }),
        Some(Node::Split(split)) => {
            nodes.push(pb::LayoutNode {
                node: Some(FlatNode::Split(pb::LayoutSplit {
                    direction: split.direction,
                    ratio: split.ratio,
                    first: 0,
                    second: 0,
                })),
            });
            let empty = pb::Layout { node: None };
            let first = push_flat(split.first.as_deref().unwrap_or(&empty), nodes);
            let second = push_flat(split.second.as_deref().unwrap_or(&empty), nodes);
            if let Some(pb::LayoutNode {
                node: Some(FlatNode::Split(s)),
            }) = nodes.get_mut(me as usize)
            {
                s.first = first;
                s.second = second;
            }
        }
        None => nodes.push(pb::LayoutNode { node: None }),
    }
    me
}

fn build(nodes: &[pb::LayoutNode], at: usize, depth: usize, used: &mut [bool]) -> pb::Layout {
    // Each node is used once: a list naming one node twice cannot blow up into a huge tree.
    match used.get_mut(at) {
        Some(slot) if !*slot => *slot = true,
        _ => return pb::Layout { node: None },
    }
    let node = match nodes.get(at).and_then(|n| n.node.as_ref()) {
        Some(FlatNode::PaneId(id)) => Some(Node::PaneId(id.clone())),
        Some(FlatNode::Split(split)) if depth < MAX_REBUILT_DEPTH => {
            let mut child = |raw: u32| {
                let child = raw as usize;
                // Only forward references: no cycle, and the walk ends.
                (child > at).then(|| Box::new(build(nodes, child, depth + 1, used)))
            };
            let first = child(split.first);
            let second = child(split.second);
            Some(Node::Split(Box::new(pb::Split {
                direction: split.direction,
                ratio: split.ratio,
                first,
                second,
            })))
        }
        _ => None,
    };
    pb::Layout { node }
}

/// Node indices: a list longer than `u32` cannot be sent anyway.
fn index(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

#[cfg(test)]
#[path = "layout_tree_tests.rs"]
mod tests;
