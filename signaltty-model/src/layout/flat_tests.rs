use super::*;
use crate::layout::MAX_DEPTH;

fn pane(i: usize) -> PaneId {
    PaneId::parse(&format!("pane_{i}")).expect("test ids are well formed")
}

/// `MAX_PANES` panes, each split off the newest one: a chain `MAX_DEPTH` splits deep.
fn chain(direction_of: impl Fn(usize) -> Direction) -> Layout {
    let mut layout = Layout::single(pane(0));
    for i in 1..MAX_PANES {
        layout
            .split(&pane(i - 1), pane(i), direction_of(i))
            .expect("within the cap");
    }
    layout
}

fn balanced(range: std::ops::Range<usize>, direction: Direction) -> Layout {
    if range.len() == 1 {
        return Layout::Pane(pane(range.start));
    }
    let middle = range.start + range.len() / 2;
    let other = match direction {
        Direction::Right => Direction::Down,
        Direction::Down => Direction::Right,
    };
    Layout::Split(Split {
        direction,
        ratio: Ratio::HALF,
        first: Box::new(balanced(range.start..middle, other)),
        second: Box::new(balanced(middle..range.end, other)),
    })
}

fn arrangements() -> Vec<(&'static str, Layout)> {
    vec![
        ("one direction", chain(|_| Direction::Right)),
        (
            "alternating",
            chain(|i| {
                if i.is_multiple_of(2) {
                    Direction::Right
                } else {
                    Direction::Down
                }
            }),
        ),
        ("balanced", balanced(0..MAX_PANES, Direction::Right)),
    ]
}

#[test]
fn every_arrangement_of_the_most_panes_round_trips_through_the_flat_list() {
    for (name, layout) in arrangements() {
        let nodes = layout.to_flat();
        assert_eq!(nodes.len(), MAX_NODES, "{name}");
        // Depth first: a split's first child comes right after it.
        for (i, node) in nodes.iter().enumerate() {
            if let FlatNode::Split { first, .. } = node {
                assert_eq!(*first, i + 1, "{name}");
            }
        }
        assert_eq!(Layout::from_flat(nodes), Ok(layout), "{name}");
    }
}

#[test]
fn the_deepest_layout_survives_the_snapshot_json() {
    // serde_json refuses input nested deeper than 128 levels: the nested form of this tree
    // (two levels a split) could be written but never read back at the next start.
    let layout = chain(|_| Direction::Down);
    assert_eq!(layout.depth(), MAX_DEPTH);
    let json = serde_json::to_string(&layout).expect("serialize");
    assert_eq!(
        serde_json::from_str::<Layout>(&json).expect("read back"),
        layout
    );
}

#[test]
fn snapshots_in_the_nested_form_are_still_read() {
    let json = r#"{"split":{"direction":"right","ratio":0.25,"first":{"pane":"pane_a"},
        "second":{"split":{"direction":"down","ratio":0.5,"first":{"pane":"pane_b"},
        "second":{"pane":"pane_c"}}}}}"#;
    let layout: Layout = serde_json::from_str(json).expect("legacy form");
    let ids: Vec<String> = layout.panes().iter().map(ToString::to_string).collect();
    assert_eq!(ids, ["pane_a", "pane_b", "pane_c"]);
    assert_eq!(layout.depth(), 2);
    let Layout::Split(root) = &layout else {
        panic!("a split at the root")
    };
    assert_eq!(root.ratio.get(), 0.25);
    // Written back, it is flat.
    let again = serde_json::to_string(&layout).expect("serialize");
    assert!(again.starts_with(r#"{"nodes":["#), "{again}");
}

#[test]
fn any_order_forming_one_tree_is_accepted() {
    // Root split, its children listed second-first and after an unrelated leaf.
    let nodes = vec![
        FlatNode::Split {
            direction: Direction::Right,
            ratio: Ratio::HALF,
            first: 2,
            second: 1,
        },
        FlatNode::Pane(pane(1)),
        FlatNode::Pane(pane(0)),
    ];
    let layout = Layout::from_flat(nodes).expect("one tree");
    assert_eq!(layout.panes(), vec![pane(0), pane(1)]);
}

#[test]
fn lists_that_are_not_one_tree_are_refused_naming_the_node() {
    let split = |first, second| FlatNode::Split {
        direction: Direction::Down,
        ratio: Ratio::HALF,
        first,
        second,
    };
    let leaf = |i| FlatNode::Pane(pane(i));
    let cases = vec![
        (
            vec![split(1, 3), leaf(0), leaf(1)],
            LayoutError::BadNode {
                node: 0,
                why: NodeFault::OutOfRange { child: 3 },
            },
        ),
        (
            vec![split(1, 2), split(0, 3), leaf(0), leaf(1)],
            LayoutError::BadNode {
                node: 1,
                why: NodeFault::Backwards { child: 0 },
            },
        ),
        (
            vec![split(1, 1), leaf(0)],
            LayoutError::BadNode {
                node: 1,
                why: NodeFault::Shared,
            },
        ),
        (
            vec![split(1, 2), leaf(0), leaf(1), leaf(2)],
            LayoutError::BadNode {
                node: 3,
                why: NodeFault::Orphan,
            },
        ),
        (
            Vec::new(),
            LayoutError::BadNode {
                node: 0,
                why: NodeFault::OutOfRange { child: 0 },
            },
        ),
    ];
    for (nodes, want) in cases {
        assert_eq!(Layout::from_flat(nodes.clone()), Err(want), "{nodes:?}");
    }
    let too_many = vec![leaf(0); MAX_NODES + 1];
    assert_eq!(
        Layout::from_flat(too_many),
        Err(LayoutError::TooManyPanes { max: MAX_PANES })
    );
}
