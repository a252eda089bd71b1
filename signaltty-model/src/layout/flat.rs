//! A layout tree written as a flat list of nodes, for everything outside the process: the wire's
//! `FlatLayout` and the snapshot on disk.
//!
//! Why: a nested encoding costs one level of nesting per split, and readers bound nesting
//! (generated protobuf decoders at 100 levels, serde_json at 128), so a tab split ~50 times in
//! one direction could be stored but not read back — by a client, or by the server at its next
//! start. A list whose splits name their children by index has the same nesting for one pane as
//! for [`MAX_PANES`](super::MAX_PANES).
//!
//! [`Layout::to_flat`] writes the nodes depth first (a split, its whole first subtree, then its
//! second), so `nodes[0]` is the root and a split's `first` is its own index + 1.
//! [`Layout::from_flat`] accepts any order that forms exactly one tree: each child index is
//! larger than its parent's own index (so there is no cycle, and building recurses at most once
//! per node), and every node but the root is the child of exactly one split. Anything else is a
//! [`LayoutError::BadNode`] naming the node.

use super::{Direction, Layout, LayoutError, MAX_PANES, Ratio, Split};
use crate::ids::PaneId;

/// Most nodes a flat layout may hold: the splits and leaves of a tree of [`MAX_PANES`] panes.
pub const MAX_NODES: usize = 2 * MAX_PANES - 1;

/// One node of a flat layout.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlatNode {
    /// A leaf showing one pane.
    Pane(PaneId),
    /// An area divided between the nodes at indices `first` and `second`.
    Split {
        /// How the two children are arranged.
        direction: Direction,
        /// The first child's share.
        ratio: Ratio,
        /// Index of the left or top child.
        first: usize,
        /// Index of the right or bottom child.
        second: usize,
    },
}

/// Why a node of a flat layout does not fit in one tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NodeFault {
    /// A child index past the end of the list.
    #[error("child index {child} is past the last node")]
    OutOfRange {
        /// The index given.
        child: usize,
    },
    /// A child index at or before the split's own index (it would make a cycle).
    #[error("child index {child} must be larger than the split's own index")]
    Backwards {
        /// The index given.
        child: usize,
    },
    /// The node is a child of two splits, or of one split twice.
    #[error("is the child of more than one split")]
    Shared,
    /// No split names the node as its child.
    #[error("is not the child of any split (only node 0, the root, may be)")]
    Orphan,
}

/// How a layout is written in the snapshot: the flat list, or the nested tree that snapshots
/// written before the flat list hold (read, never written).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Stored {
    /// `{"nodes": [...]}`.
    Flat {
        /// The nodes, root first.
        nodes: Vec<FlatNode>,
    },
    /// `{"pane": ...}` or `{"split": {...}}`.
    Nested(Nested),
}

/// The nested form of older snapshots.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Nested {
    /// A leaf.
    Pane(PaneId),
    /// A split whose children are again [`Stored`] layouts.
    Split(Split),
}

impl From<Layout> for Stored {
    fn from(layout: Layout) -> Stored {
        Stored::Flat {
            nodes: layout.to_flat(),
        }
    }
}

impl TryFrom<Stored> for Layout {
    type Error = LayoutError;

    fn try_from(stored: Stored) -> Result<Layout, LayoutError> {
        match stored {
            Stored::Flat { nodes } => Layout::from_flat(nodes),
            Stored::Nested(Nested::Pane(pane)) => Ok(Layout::Pane(pane)),
            Stored::Nested(Nested::Split(split)) => Ok(Layout::Split(split)),
        }
    }
}

impl Layout {
    /// The tree as a flat list, depth first: root at 0, a split's first child right after it.
    pub fn to_flat(&self) -> Vec<FlatNode> {
        let mut out = Vec::new();
        self.push_flat(&mut out);
        out
    }

    /// Builds a tree from a flat list (see the module docs for what is accepted). Only the
    /// shape is checked here; which panes it must hold is [`Layout::validate_against`]'s job.
    pub fn from_flat(nodes: Vec<FlatNode>) -> Result<Layout, LayoutError> {
        if nodes.is_empty() {
            return Err(LayoutError::BadNode {
                node: 0,
                why: NodeFault::OutOfRange { child: 0 },
            });
        }
        if nodes.len() > MAX_NODES {
            return Err(LayoutError::TooManyPanes { max: MAX_PANES });
        }
        let mut parents = vec![0_usize; nodes.len()];
        for (index, node) in nodes.iter().enumerate() {
            if let FlatNode::Split { first, second, .. } = node {
                for child in [*first, *second] {
                    let fault = if child >= nodes.len() {
                        Some(NodeFault::OutOfRange { child })
                    } else if child <= index {
                        Some(NodeFault::Backwards { child })
                    } else {
                        None
                    };
                    if let Some(why) = fault {
                        return Err(LayoutError::BadNode { node: index, why });
                    }
                    parents[child] += 1;
                    if parents[child] > 1 {
                        return Err(LayoutError::BadNode {
                            node: child,
                            why: NodeFault::Shared,
                        });
                    }
                }
            }
        }
        if let Some(orphan) = (1..nodes.len()).find(|&i| parents[i] == 0) {
            return Err(LayoutError::BadNode {
                node: orphan,
                why: NodeFault::Orphan,
            });
        }
        let mut slots: Vec<Option<FlatNode>> = nodes.into_iter().map(Some).collect();
        // `None` cannot happen after the checks above; reported rather than assumed.
        build(&mut slots, 0).ok_or(LayoutError::BadNode {
            node: 0,
            why: NodeFault::Shared,
        })
    }

    fn push_flat(&self, out: &mut Vec<FlatNode>) -> usize {
        let me = out.len();
        match self {
            Layout::Pane(pane) => out.push(FlatNode::Pane(pane.clone())),
            Layout::Split(s) => {
                out.push(FlatNode::Split {
                    direction: s.direction,
                    ratio: s.ratio,
                    first: 0,
                    second: 0,
                });
                let first_at = s.first.push_flat(out);
                let second_at = s.second.push_flat(out);
                if let Some(FlatNode::Split { first, second, .. }) = out.get_mut(me) {
                    *first = first_at;
                    *second = second_at;
                }
            }
        }
        me
    }
}

/// Takes node `index` and its subtree out of `slots`. Checked beforehand: every index is in
/// range, larger than its parent's, and taken once, so each slot is still full when reached.
fn build(slots: &mut [Option<FlatNode>], index: usize) -> Option<Layout> {
    Some(match slots.get_mut(index)?.take()? {
        FlatNode::Pane(pane) => Layout::Pane(pane),
        FlatNode::Split {
            direction,
            ratio,
            first,
            second,
        } => Layout::Split(Split {
            direction,
            ratio,
            first: Box::new(build(slots, first)?),
            second: Box::new(build(slots, second)?),
        }),
    })
}

#[cfg(test)]
#[path = "flat_tests.rs"]
mod tests;
