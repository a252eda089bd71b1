use std::collections::BTreeSet;

use proptest::prelude::*;

use super::*;

fn pane(name: &str) -> PaneId {
    PaneId::parse(&format!("pane_{name}")).expect("test ids are well formed")
}

fn set(panes: &[&PaneId]) -> BTreeSet<PaneId> {
    panes.iter().map(|p| (*p).clone()).collect()
}

fn share_of(layout: &Layout, p: &PaneId) -> PaneShare {
    layout
        .shares()
        .into_iter()
        .find(|s| &s.pane == p)
        .expect("pane is in the layout")
}

fn ratios(layout: &Layout, out: &mut Vec<f32>) {
    if let Layout::Split(s) = layout {
        out.push(s.ratio.get());
        ratios(&s.first, out);
        ratios(&s.second, out);
    }
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

#[test]
fn single_pane_fills_the_tab() {
    let a = pane("a");
    let layout = Layout::single(a.clone());
    assert_eq!(layout.panes(), vec![a.clone()]);
    assert!(layout.contains(&a));
    assert_eq!(layout.depth(), 0);
    assert_eq!(
        layout.shares(),
        vec![PaneShare {
            pane: a,
            x: 0.0,
            y: 0.0,
            width: 1.0,
            height: 1.0
        }]
    );
}

#[test]
fn ratio_refuses_non_finite_and_clamps_the_rest() {
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert_eq!(Ratio::new(bad), Err(LayoutError::NonFiniteRatio));
    }
    assert_eq!(Ratio::new(0.99).map(Ratio::get), Ok(0.95));
    assert_eq!(Ratio::new(0.0).map(Ratio::get), Ok(0.05));
    assert_eq!(Ratio::new(-3.0).map(Ratio::get), Ok(0.05));
    assert_eq!(Ratio::new(0.3).map(Ratio::get), Ok(0.3));
}

#[test]
fn serde_round_trips_and_clamps_stored_ratios() {
    let (a, b) = (pane("a"), pane("b"));
    let mut layout = Layout::single(a.clone());
    layout.split(&a, b, Direction::Down).expect("split");
    let json = serde_json::to_string(&layout).expect("serialize");
    assert_eq!(
        json,
        r#"{"nodes":[{"split":{"direction":"down","ratio":0.5,"first":1,"second":2}},{"pane":"pane_a"},{"pane":"pane_b"}]}"#
    );
    assert_eq!(
        serde_json::from_str::<Layout>(&json).expect("deserialize"),
        layout
    );
    let wild = json.replace("0.5", "7.0");
    let parsed: Layout = serde_json::from_str(&wild).expect("finite ratios clamp");
    let mut got = Vec::new();
    ratios(&parsed, &mut got);
    assert_eq!(got, vec![0.95]);
}

#[test]
fn three_splits_of_the_newest_pane_give_quarters() {
    let ids: Vec<PaneId> = ["a", "b", "c", "d"].into_iter().map(pane).collect();
    let mut layout = Layout::single(ids[0].clone());
    for pair in ids.windows(2) {
        layout
            .split(&pair[0], pair[1].clone(), Direction::Right)
            .expect("split");
    }
    let mut got = Vec::new();
    ratios(&layout, &mut got);
    assert!(
        got.iter()
            .zip([0.25, 1.0 / 3.0, 0.5])
            .all(|(g, w)| close(*g, w)),
        "{got:?}"
    );
    assert_eq!(layout.panes(), ids);
    for (i, s) in layout.shares().iter().enumerate() {
        assert!(close(s.width, 0.25) && close(s.height, 1.0), "{s:?}");
        assert!(close(s.x, 0.25 * i as f32), "{s:?}");
    }
}

#[test]
fn three_splits_of_the_same_pane_give_quarters() {
    let a = pane("a");
    let mut layout = Layout::single(a.clone());
    for name in ["b", "c", "d"] {
        layout
            .split(&a, pane(name), Direction::Down)
            .expect("split");
    }
    assert_eq!(layout.panes(), vec![a, pane("d"), pane("c"), pane("b")]);
    for s in layout.shares() {
        assert!(close(s.height, 0.25) && close(s.width, 1.0), "{s:?}");
    }
}

#[test]
fn mixed_directions_rebalance_only_their_own_run() {
    let (a, b, c, d, e) = (pane("a"), pane("b"), pane("c"), pane("d"), pane("e"));
    let mut layout = Layout::single(a.clone());
    layout.split(&a, b.clone(), Direction::Right).expect("a|b");
    layout.split(&b, c.clone(), Direction::Down).expect("b/c");
    layout
        .split(&a, d.clone(), Direction::Right)
        .expect("a|d|(b/c)");
    for p in [&a, &d, &b, &c] {
        assert!(close(share_of(&layout, p).width, 1.0 / 3.0), "{p}");
    }
    assert!(close(share_of(&layout, &b).height, 0.5));
    layout.split(&c, e.clone(), Direction::Down).expect("b/c/e");
    for p in [&b, &c, &e] {
        let s = share_of(&layout, p);
        assert!(
            close(s.height, 1.0 / 3.0) && close(s.width, 1.0 / 3.0),
            "{s:?}"
        );
    }
    assert!(close(share_of(&layout, &a).width, 1.0 / 3.0));
}

#[test]
fn a_bushy_run_is_rebalanced_whatever_its_shape() {
    let [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map(pane);
    let leaf = |p: &PaneId| Box::new(Layout::Pane(p.clone()));
    let right = |r: f32, first, second| {
        Box::new(Layout::Split(Split {
            direction: Direction::Right,
            ratio: Ratio::new(r).expect("finite"),
            first,
            second,
        }))
    };
    let mut layout = *right(
        0.7,
        right(0.2, leaf(&a), leaf(&b)),
        right(0.9, leaf(&c), leaf(&d)),
    );
    layout.split(&c, e, Direction::Right).expect("split");
    for s in layout.shares() {
        assert!(close(s.width, 0.2), "{s:?}");
    }
}

#[test]
fn splits_outside_the_run_keep_their_ratio() {
    let (a, b, c) = (pane("a"), pane("b"), pane("c"));
    let mut layout = Layout::single(a.clone());
    layout.split(&a, b.clone(), Direction::Down).expect("a/b");
    layout.set_ratio(&[], 0.3).expect("root is a split");
    layout.split(&b, c.clone(), Direction::Right).expect("b|c");
    assert!(close(share_of(&layout, &a).height, 0.3));
    assert!(close(share_of(&layout, &c).width, 0.5));
}

#[test]
fn split_refuses_unknown_target_and_present_new_pane() {
    let (a, b, x) = (pane("a"), pane("b"), pane("x"));
    let mut layout = Layout::single(a.clone());
    layout
        .split(&a, b.clone(), Direction::Right)
        .expect("split");
    let before = layout.clone();
    assert_eq!(
        layout.split(&x, pane("y"), Direction::Down),
        Err(LayoutError::NoSuchPane(x))
    );
    assert_eq!(
        layout.split(&a, b.clone(), Direction::Down),
        Err(LayoutError::Duplicate(b))
    );
    assert_eq!(
        layout.split(&a, a.clone(), Direction::Down),
        Err(LayoutError::Duplicate(a))
    );
    assert_eq!(layout, before);
}

#[test]
fn a_tab_may_be_split_in_one_direction_up_to_the_pane_cap() {
    let mut last = pane("0");
    let mut layout = Layout::single(last.clone());
    for i in 1..MAX_PANES {
        let next = pane(&i.to_string());
        layout
            .split(&last, next.clone(), Direction::Right)
            .expect("within the cap");
        last = next;
    }
    assert_eq!(layout.depth(), MAX_DEPTH);
    assert_eq!(layout.panes().len(), MAX_PANES);
    let before = layout.clone();
    assert_eq!(
        layout.split(&last, pane("deep"), Direction::Down),
        Err(LayoutError::TooManyPanes { max: MAX_PANES })
    );
    assert_eq!(layout, before);
}

#[test]
fn split_refuses_to_exceed_the_pane_cap() {
    let mut layout = Layout::single(pane("0"));
    for i in 1..MAX_PANES {
        // Always split a shallowest pane, so the tree stays balanced and well under the depth cap.
        let target = layout
            .panes()
            .into_iter()
            .min_by_key(|p| layout.path_to(p).map_or(usize::MAX, |path| path.len()))
            .expect("never empty");
        layout
            .split(&target, pane(&i.to_string()), Direction::Right)
            .expect("within the cap");
    }
    let before = layout.clone();
    let err = layout.split(&pane("0"), pane("more"), Direction::Down);
    assert_eq!(err, Err(LayoutError::TooManyPanes { max: MAX_PANES }));
    assert_eq!(layout, before);
}

#[test]
fn removing_the_only_pane_reports_last_pane_and_keeps_the_tree() {
    let a = pane("a");
    let mut layout = Layout::single(a.clone());
    assert_eq!(layout.remove(&a), Ok(Removal::LastPane));
    assert_eq!(layout, Layout::single(a));
}

#[test]
fn removing_collapses_the_parent_into_the_sibling() {
    let (a, b, c) = (pane("a"), pane("b"), pane("c"));
    let mut layout = Layout::single(a.clone());
    layout.split(&a, b.clone(), Direction::Right).expect("a|b");
    layout.split(&b, c.clone(), Direction::Down).expect("b/c");
    layout.set_ratio(&[], 0.3).expect("root split");
    assert_eq!(
        layout.remove(&b),
        Ok(Removal::Collapsed {
            successor: c.clone()
        })
    );
    assert_eq!(layout.panes(), vec![a.clone(), c.clone()]);
    assert!(
        close(share_of(&layout, &c).width, 0.7),
        "sibling takes the space, other ratios kept"
    );
    assert!(close(share_of(&layout, &c).height, 1.0));
    assert_eq!(
        layout.remove(&a),
        Ok(Removal::Collapsed {
            successor: c.clone()
        })
    );
    assert_eq!(layout, Layout::single(c));
}

#[test]
fn removing_an_unknown_pane_is_refused() {
    let mut layout = Layout::single(pane("a"));
    assert_eq!(
        layout.remove(&pane("x")),
        Err(LayoutError::NoSuchPane(pane("x")))
    );
    assert_eq!(layout, Layout::single(pane("a")));
}

#[test]
fn set_ratio_follows_the_path_and_clamps() {
    let (a, b, c) = (pane("a"), pane("b"), pane("c"));
    let mut layout = Layout::single(a.clone());
    layout.split(&a, b.clone(), Direction::Right).expect("a|b");
    layout.split(&b, c.clone(), Direction::Down).expect("b/c");
    assert_eq!(
        layout.set_ratio(&[PathStep::Second], 0.99).map(Ratio::get),
        Ok(0.95)
    );
    assert!(close(share_of(&layout, &b).height, 0.95));
    assert_eq!(layout.set_ratio(&[], -1.0).map(Ratio::get), Ok(0.05));
    assert!(close(share_of(&layout, &a).width, 0.05));
}

#[test]
fn set_ratio_errors_leave_the_tree_unchanged() {
    let (a, b) = (pane("a"), pane("b"));
    let mut layout = Layout::single(a.clone());
    layout.split(&a, b, Direction::Right).expect("a|b");
    let before = layout.clone();
    assert_eq!(
        layout.set_ratio(&[], f32::NAN),
        Err(LayoutError::NonFiniteRatio)
    );
    assert_eq!(
        layout.set_ratio(&[PathStep::First], 0.5),
        Err(LayoutError::PathEndsAtPane)
    );
    let deep = [PathStep::Second, PathStep::First, PathStep::First];
    assert_eq!(
        layout.set_ratio(&deep, 0.5),
        Err(LayoutError::PathTooLong { step: 1 })
    );
    assert_eq!(layout, before);
    let mut leaf = Layout::single(pane("a"));
    assert_eq!(leaf.set_ratio(&[], 0.5), Err(LayoutError::PathEndsAtPane));
}

#[test]
fn validate_against_names_missing_duplicate_and_foreign_panes() {
    let (a, b, c) = (pane("a"), pane("b"), pane("c"));
    let mut layout = Layout::single(a.clone());
    layout.split(&a, b.clone(), Direction::Right).expect("a|b");
    assert_eq!(layout.validate_against(&set(&[&a, &b])), Ok(()));
    assert_eq!(
        layout.validate_against(&set(&[&a, &b, &c])),
        Err(LayoutError::Missing(c.clone()))
    );
    assert_eq!(
        layout.validate_against(&set(&[&a])),
        Err(LayoutError::Foreign(b.clone()))
    );
    let twice = Layout::Split(Split {
        direction: Direction::Down,
        ratio: Ratio::HALF,
        first: Box::new(Layout::Pane(a.clone())),
        second: Box::new(Layout::Pane(a.clone())),
    });
    assert_eq!(
        twice.validate_against(&set(&[&a])),
        Err(LayoutError::Duplicate(a))
    );
}

#[test]
fn validate_against_enforces_depth_and_size_caps() {
    fn chain(depth: usize) -> Layout {
        (0..depth).fold(Layout::Pane(pane("end")), |inner, i| {
            Layout::Split(Split {
                direction: Direction::Right,
                ratio: Ratio::HALF,
                first: Box::new(Layout::Pane(pane(&i.to_string()))),
                second: Box::new(inner),
            })
        })
    }
    fn balanced(leaves: &[PaneId]) -> Layout {
        match leaves {
            [only] => Layout::Pane(only.clone()),
            _ => {
                let (first, second) = leaves.split_at(leaves.len() / 2);
                Layout::Split(Split {
                    direction: Direction::Down,
                    ratio: Ratio::HALF,
                    first: Box::new(balanced(first)),
                    second: Box::new(balanced(second)),
                })
            }
        }
    }
    let ok = chain(MAX_DEPTH);
    assert_eq!(
        ok.validate_against(&ok.panes().into_iter().collect()),
        Ok(())
    );
    let deep = chain(MAX_DEPTH + 1);
    let deep_panes = deep.panes().into_iter().collect();
    assert_eq!(
        deep.validate_against(&deep_panes),
        Err(LayoutError::TooDeep { max: MAX_DEPTH })
    );
    let many: Vec<PaneId> = (0..=MAX_PANES).map(|i| pane(&i.to_string())).collect();
    let wide = balanced(&many);
    let err = wide.validate_against(&many.iter().cloned().collect());
    assert_eq!(err, Err(LayoutError::TooManyPanes { max: MAX_PANES }));
    assert_eq!(
        balanced(&many[1..]).validate_against(&many[1..].iter().cloned().collect()),
        Ok(())
    );
}

/// One random operation; indices pick a pane modulo (count + 1), the extra slot meaning "unknown".
#[derive(Clone, Debug)]
enum Op {
    Split {
        target: usize,
        new: Option<usize>,
        direction: Direction,
    },
    Remove {
        target: usize,
    },
    SetRatio {
        path: Vec<PathStep>,
        ratio: f32,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let direction = prop_oneof![Just(Direction::Right), Just(Direction::Down)];
    let step = prop_oneof![Just(PathStep::First), Just(PathStep::Second)];
    let ratio = prop_oneof![
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(-0.0f32),
        -2.0f32..3.0,
        any::<f32>(),
    ];
    prop_oneof![
        4 => (any::<usize>(), prop::option::weighted(0.1, any::<usize>()), direction)
            .prop_map(|(target, new, direction)| Op::Split { target, new, direction }),
        1 => any::<usize>().prop_map(|target| Op::Remove { target }),
        2 => (prop::collection::vec(step, 0..6), ratio).prop_map(|(path, ratio)| Op::SetRatio { path, ratio }),
    ]
}

/// Asserts that every member of the run containing `new`'s parent split has the same extent along
/// `direction`, measured geometrically from `shares()` (independent of how `split` computes ratios).
fn assert_run_equal(layout: &Layout, new: &PaneId, direction: Direction) {
    let path = layout.path_to(new).expect("new pane present");
    let mut root = path.len() - 1;
    while root > 0
        && layout
            .node(&path[..root - 1])
            .is_some_and(|n| n.splits(direction))
    {
        root -= 1;
    }
    fn members<'a>(node: &'a Layout, direction: Direction, out: &mut Vec<&'a Layout>) {
        match node {
            Layout::Split(s) if s.direction == direction => {
                members(&s.first, direction, out);
                members(&s.second, direction, out);
            }
            other => out.push(other),
        }
    }
    let mut run = Vec::new();
    members(
        layout.node(&path[..root]).expect("valid prefix"),
        direction,
        &mut run,
    );
    if run.len() > 20 {
        return; // 1/n is below the 0.05 clamp; equality is not promised
    }
    let shares = layout.shares();
    let extents: Vec<f32> = run
        .iter()
        .map(|member| {
            let own = member.panes();
            let spans = shares
                .iter()
                .filter(|s| own.contains(&s.pane))
                .map(|s| match direction {
                    Direction::Right => (s.x, s.x + s.width),
                    Direction::Down => (s.y, s.y + s.height),
                });
            let (lo, hi) = spans.fold((f32::MAX, f32::MIN), |(lo, hi), (a, b)| {
                (lo.min(a), hi.max(b))
            });
            hi - lo
        })
        .collect();
    assert!(
        extents.iter().all(|e| close(*e, extents[0])),
        "unequal run {extents:?} in {layout:?}"
    );
}

proptest! {
    #[test]
    fn random_operations_keep_every_invariant(ops in prop::collection::vec(op(), 1..60)) {
        let mut layout = Layout::single(pane("p0"));
        let mut owned: BTreeSet<PaneId> = set(&[&pane("p0")]);
        let mut next = 1;
        for op in ops {
            let before = layout.clone();
            let panes = layout.panes();
            let pick = |i: usize| panes.get(i % (panes.len() + 1)).cloned().unwrap_or_else(|| pane("unknown"));
            let result = match op {
                Op::Split { target, new, direction } => {
                    // `Some` names a pane already present, so the split must be refused.
                    let present = new.map(|i| panes[i % panes.len()].clone());
                    let new = present.clone().unwrap_or_else(|| {
                        next += 1;
                        pane(&format!("p{next}"))
                    });
                    let result = layout.split(&pick(target), new.clone(), direction);
                    if let Some(present) = present {
                        prop_assert_eq!(&result, &Err(LayoutError::Duplicate(present)));
                    }
                    if result.is_ok() {
                        owned.insert(new.clone());
                        assert_run_equal(&layout, &new, direction);
                    }
                    result.map(|_| ())
                }
                Op::Remove { target } => {
                    let target = pick(target);
                    let result = layout.remove(&target);
                    if let Ok(Removal::Collapsed { successor }) = &result {
                        owned.remove(&target);
                        prop_assert!(layout.contains(successor));
                    }
                    if result == Ok(Removal::LastPane) {
                        prop_assert_eq!(&layout, &before);
                    }
                    result.map(|_| ())
                }
                Op::SetRatio { path, ratio } => layout.set_ratio(&path, ratio).map(|_| ()),
            };
            if result.is_err() {
                prop_assert_eq!(&layout, &before);
            }
            let panes = layout.panes();
            prop_assert_eq!(panes.len(), owned.len(), "every pane exactly once");
            prop_assert_eq!(layout.validate_against(&owned), Ok(()));
            let mut all = Vec::new();
            ratios(&layout, &mut all);
            prop_assert!(all.iter().all(|r| (Ratio::MIN..=Ratio::MAX).contains(r)), "{:?}", all);
            let area: f32 = layout.shares().iter().map(|s| s.width * s.height).sum();
            prop_assert!((area - 1.0).abs() < 1e-4, "shares tile the tab: {}", area);
        }
    }
}
