use super::*;

fn leaf(id: &str) -> pb::Layout {
    pb::Layout {
        node: Some(Node::PaneId(id.into())),
    }
}

fn split(direction: pb::Direction, first: pb::Layout, second: pb::Layout) -> pb::Layout {
    pb::Layout {
        node: Some(Node::Split(Box::new(pb::Split {
            direction: direction.into(),
            ratio: 0.5,
            first: Some(Box::new(first)),
            second: Some(Box::new(second)),
        }))),
    }
}

/// `n` panes, each split off the previous one, alternating directions when asked.
fn chain(n: usize, alternate: bool) -> pb::Layout {
    (0..n - 1)
        .rev()
        .fold(leaf(&format!("p{}", n - 1)), |inner, i| {
            let direction = if alternate && i % 2 == 1 {
                pb::Direction::Down
            } else {
                pb::Direction::Right
            };
            split(direction, leaf(&format!("p{i}")), inner)
        })
}

/// The pane ids of a tree's leaves, left to right.
fn leaves(layout: &pb::Layout) -> Vec<&str> {
    match &layout.node {
        Some(Node::PaneId(id)) => vec![id],
        Some(Node::Split(split)) => [&split.first, &split.second]
            .into_iter()
            .flatten()
            .flat_map(|child| leaves(child))
            .collect(),
        None => Vec::new(),
    }
}

#[test]
fn deep_trees_round_trip_through_the_node_list() {
    for alternate in [false, true] {
        let tree = chain(256, alternate);
        let flat = flatten(&tree);
        assert_eq!(flat.nodes.len(), 511);
        assert_eq!(unflatten(&flat), tree);
    }
}

#[test]
fn a_tab_is_read_from_flat_layout_else_from_the_nested_field() {
    let tree = split(pb::Direction::Down, leaf("a"), leaf("b"));
    let mut tab = pb::Tab::default();
    set(&mut tab, Some(tree.clone()));
    assert_eq!(self::tree(&tab), Some(tree.clone()));
    // A large tab: the server leaves the nested field unset.
    let mut big = pb::Tab {
        flat_layout: Some(flatten(&chain(100, false))),
        ..pb::Tab::default()
    };
    hold(&mut big);
    assert_eq!(held(&big), Some(&chain(100, false)));
    // An older server: only the nested field.
    #[allow(deprecated)]
    let old = pb::Tab {
        layout: Some(tree.clone()),
        ..pb::Tab::default()
    };
    assert_eq!(self::tree(&old), Some(tree));
    assert_eq!(self::tree(&pb::Tab::default()), None);
}

#[test]
fn broken_node_lists_give_empty_nodes_not_loops_or_panics() {
    let split_to = |first: u32, second: u32| pb::LayoutNode {
        node: Some(FlatNode::Split(pb::LayoutSplit {
            direction: pb::Direction::Right.into(),
            ratio: 0.5,
            first,
            second,
        })),
    };
    let pane = |id: &str| pb::LayoutNode {
        node: Some(FlatNode::PaneId(id.into())),
    };
    // Backward and out-of-range children.
    let got = unflatten(&pb::FlatLayout {
        nodes: vec![split_to(0, 9), pane("a")],
    });
    let Some(Node::Split(root)) = &got.node else {
        panic!("a split")
    };
    assert_eq!(root.first, None);
    assert!(leaves(&got).is_empty());
    // Every split naming the next node twice: without the once-only rule this is 2^40 leaves.
    let mut nodes: Vec<_> = (1..=40).map(|i| split_to(i, i)).collect();
    nodes.push(pane("end"));
    let got = unflatten(&pb::FlatLayout { nodes });
    assert_eq!(leaves(&got), vec!["end"]);
}
