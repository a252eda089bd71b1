//! The split-layout tree of one tab: leaves are panes, inner nodes split their area in two.
//!
//! Pure data plus the operations the server applies to it (split, remove, move a divider, check a
//! whole replacement tree). Invariants kept by every operation: each pane appears at most once, every
//! ratio lies in 0.05..=0.95 (the [`Ratio`] type cannot hold anything else), and the tree is never
//! empty — removing the last pane is reported as [`Removal::LastPane`] so the caller closes the tab.
//! Every fallible operation either applies fully or returns a [`LayoutError`] and leaves the tree
//! exactly as it was, so callers can apply a request and persist without undo logic.

use std::collections::BTreeSet;

use crate::ids::PaneId;

/// Most panes one tab's layout may hold (documented in `docs/api.md`, "Limits"). Every client
/// can read a tab this large in any arrangement: the wire's `FlatLayout` and the snapshot store
/// the tree as a flat node list ([`flat`]), whose nesting does not grow with the pane count.
pub const MAX_PANES: usize = 256;
/// Most splits on one root-to-leaf path: a binary tree of [`MAX_PANES`] distinct leaves is never
/// deeper, so this bounds recursion without refusing any arrangement the pane cap allows.
pub const MAX_DEPTH: usize = MAX_PANES - 1;

/// Why a layout operation was refused. The tree is unchanged whenever one of these is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A ratio was NaN or infinite (finite values are clamped, never refused).
    #[error("ratio must be a finite number")]
    NonFiniteRatio,
    /// The pane named by an operation is not in this layout.
    #[error("pane {0} is not in this layout")]
    NoSuchPane(PaneId),
    /// The pane would appear twice (split with a pane already present, or a repeated leaf).
    #[error("pane {0} appears more than once in the layout")]
    Duplicate(PaneId),
    /// A whole-layout replacement omits a pane the tab owns.
    #[error("pane {0} of this tab is missing from the layout")]
    Missing(PaneId),
    /// A whole-layout replacement names a pane the tab does not own.
    #[error("pane {0} does not belong to this tab")]
    Foreign(PaneId),
    /// A divider path steps past a leaf; `step` is the index of the step that could not be taken.
    #[error("path step {step} goes below a pane")]
    PathTooLong {
        /// Index into the path of the first step that could not be taken.
        step: usize,
    },
    /// A divider path ends at a pane instead of a split.
    #[error("path ends at a pane, not at a split")]
    PathEndsAtPane,
    /// The tree would be deeper than [`MAX_DEPTH`] splits.
    #[error("layout deeper than {max} splits")]
    TooDeep {
        /// The limit, [`MAX_DEPTH`].
        max: usize,
    },
    /// The tree would hold more than [`MAX_PANES`] panes.
    #[error("layout holds more than {max} panes")]
    TooManyPanes {
        /// The limit, [`MAX_PANES`].
        max: usize,
    },
    /// A flat node list does not form one tree; `node` is the index of the offending node.
    #[error("layout node {node}: {why}")]
    BadNode {
        /// Index in the node list.
        node: usize,
        /// What is wrong with it.
        why: flat::NodeFault,
    },
}

/// Where a split puts its second child relative to its first.
///
/// The API's split directions are `RIGHT` and `DOWN`; the seed's `H`/`V` tree directions map as
/// `H` (children arranged horizontally) = `Right`, `V` (arranged vertically) = `Down`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Side by side: first on the left, second on the right, a vertical divider between them.
    /// The ratio is the first child's share of the width.
    Right,
    /// Stacked: first on top, second below, a horizontal divider between them.
    /// The ratio is the first child's share of the height.
    Down,
}

/// The first child's share of a split, always within `MIN..=MAX` (0.05..=0.95).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "f32", into = "f32")]
pub struct Ratio(f32);

impl Ratio {
    /// Smallest stored ratio.
    pub const MIN: f32 = 0.05;
    /// Largest stored ratio.
    pub const MAX: f32 = 0.95;
    /// An even split.
    pub const HALF: Ratio = Ratio(0.5);

    /// Refuses NaN and infinities; clamps every finite value into `MIN..=MAX`.
    pub fn new(value: f32) -> Result<Ratio, LayoutError> {
        if value.is_finite() {
            Ok(Ratio(value.clamp(Self::MIN, Self::MAX)))
        } else {
            Err(LayoutError::NonFiniteRatio)
        }
    }

    /// The stored value.
    pub fn get(self) -> f32 {
        self.0
    }

    /// For ratios computed here from pane counts, which are always finite.
    fn from_fraction(value: f64) -> Ratio {
        Ratio((value as f32).clamp(Self::MIN, Self::MAX))
    }
}

impl Default for Ratio {
    fn default() -> Self {
        Ratio::HALF
    }
}

impl TryFrom<f32> for Ratio {
    type Error = LayoutError;

    fn try_from(value: f32) -> Result<Self, Self::Error> {
        Ratio::new(value)
    }
}

impl From<Ratio> for f32 {
    fn from(ratio: Ratio) -> f32 {
        ratio.0
    }
}

/// One choice on the way from the root to a split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathStep {
    /// Into the split's first child (left or top).
    First,
    /// Into the split's second child (right or bottom).
    Second,
}

/// An inner node: its area divided in two along `direction`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Split {
    /// How the two children are arranged.
    pub direction: Direction,
    /// The first child's share of the area along `direction`.
    pub ratio: Ratio,
    /// Left or top child.
    pub first: Box<Layout>,
    /// Right or bottom child.
    pub second: Box<Layout>,
}

/// A tab's layout: a binary tree whose leaves are panes.
///
/// Stored (in the snapshot) as its flat node list, [`flat::Stored`]; snapshots written before
/// that hold the nested form, which is still read.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(into = "flat::Stored", try_from = "flat::Stored")]
pub enum Layout {
    /// A leaf showing one pane.
    Pane(PaneId),
    /// An area divided between two sub-layouts.
    Split(Split),
}

/// What [`Layout::remove`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Removal {
    /// The pane's leaf is gone and its parent collapsed into the sibling subtree, which took the
    /// freed space. `successor` is the sibling subtree's first pane: a natural new focus.
    Collapsed {
        /// First pane of the subtree that absorbed the space.
        successor: PaneId,
    },
    /// The pane was the only one. The tree is left as it was; the caller closes the tab (or keeps
    /// an empty tab) and drops the layout.
    LastPane,
}

/// A pane's rectangle as fractions of the tab's area (origin top-left, all values in 0..=1).
#[derive(Clone, Debug, PartialEq)]
pub struct PaneShare {
    /// The pane.
    pub pane: PaneId,
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Share of the tab's width.
    pub width: f32,
    /// Share of the tab's height.
    pub height: f32,
}

impl Layout {
    /// A layout holding one pane.
    pub fn single(pane: PaneId) -> Layout {
        Layout::Pane(pane)
    }

    /// Every pane, in order (first before second, i.e. left-to-right / top-to-bottom).
    pub fn panes(&self) -> Vec<PaneId> {
        let mut out = Vec::new();
        self.collect_panes(&mut out);
        out
    }

    /// Whether the pane has a leaf in this layout.
    pub fn contains(&self, pane: &PaneId) -> bool {
        self.path_to(pane).is_some()
    }

    /// The steps from the root to the pane's leaf, if it is here.
    pub fn path_to(&self, pane: &PaneId) -> Option<Vec<PathStep>> {
        match self {
            Layout::Pane(p) => (p == pane).then(Vec::new),
            Layout::Split(s) => [(PathStep::First, &s.first), (PathStep::Second, &s.second)]
                .into_iter()
                .find_map(|(step, child)| {
                    let mut path = child.path_to(pane)?;
                    path.insert(0, step);
                    Some(path)
                }),
        }
    }

    /// The most splits on any root-to-leaf path (0 for a single pane).
    pub fn depth(&self) -> usize {
        match self {
            Layout::Pane(_) => 0,
            Layout::Split(s) => 1 + s.first.depth().max(s.second.depth()),
        }
    }

    /// Splits the `target` pane's leaf in `direction`: `target` stays first, `new` goes second. Then
    /// rebalances the run so every member gets an equal share along `direction`.
    ///
    /// The *run* is the maximal connected group of `direction` splits containing the new split:
    /// climb from the new split while the parent splits the same way (that topmost split is the
    /// run's root), and take every split reachable downward from there through `direction` splits
    /// only. Its *members* are the subtrees hanging off that group — panes or splits the other way —
    /// i.e. exactly the visual siblings in that row (for `Right`) or column (for `Down`). Each run
    /// split gets ratio `members(first) / members(first + second)`, so every member gets
    /// `1 / members` of the run root's extent whatever the tree's shape: splitting one pane three
    /// times to the right gives quarters. Ratios outside 0.05..=0.95 (runs over 20 members) clamp,
    /// and shares are then only as close to equal as the clamp allows. Splits outside the run keep
    /// their ratios.
    pub fn split(
        &mut self,
        target: &PaneId,
        new: PaneId,
        direction: Direction,
    ) -> Result<(), LayoutError> {
        if self.contains(&new) {
            return Err(LayoutError::Duplicate(new));
        }
        let path = self
            .path_to(target)
            .ok_or_else(|| LayoutError::NoSuchPane(target.clone()))?;
        if self.pane_count() + 1 > MAX_PANES {
            return Err(LayoutError::TooManyPanes { max: MAX_PANES });
        }
        if path.len() + 1 > MAX_DEPTH {
            // Unreachable while MAX_DEPTH = MAX_PANES - 1; kept so recursion stays bounded even
            // if the two caps are ever set apart.
            return Err(LayoutError::TooDeep { max: MAX_DEPTH });
        }

        let leaf = self
            .node_mut(&path)
            .expect("path_to just returned this path");
        *leaf = Layout::Split(Split {
            direction,
            ratio: Ratio::HALF,
            first: Box::new(Layout::Pane(target.clone())),
            second: Box::new(Layout::Pane(new)),
        });

        let mut run_root = path.len();
        while run_root > 0
            && self
                .node(&path[..run_root - 1])
                .is_some_and(|n| n.splits(direction))
        {
            run_root -= 1;
        }
        self.node_mut(&path[..run_root])
            .expect("a prefix of a valid path is valid")
            .rebalance(direction);
        Ok(())
    }

    /// Removes the pane's leaf; its parent split collapses into the sibling subtree, which takes
    /// the whole of the parent's area. Other ratios are untouched.
    pub fn remove(&mut self, pane: &PaneId) -> Result<Removal, LayoutError> {
        let path = self
            .path_to(pane)
            .ok_or_else(|| LayoutError::NoSuchPane(pane.clone()))?;
        let Some((last, parent_path)) = path.split_last() else {
            return Ok(Removal::LastPane);
        };
        let parent = self
            .node_mut(parent_path)
            .expect("a prefix of a valid path is valid");
        // The placeholder is overwritten at once; it only exists because `mem::replace` needs a value.
        *parent = match std::mem::replace(parent, Layout::Pane(pane.clone())) {
            Layout::Split(s) => match last {
                PathStep::First => *s.second,
                PathStep::Second => *s.first,
            },
            leaf @ Layout::Pane(_) => leaf, // cannot happen: a path step always leaves a split
        };
        Ok(Removal::Collapsed {
            successor: parent.first_pane().clone(),
        })
    }

    /// Moves one divider: `path` leads from the root to a split, whose ratio becomes `ratio`
    /// clamped into 0.05..=0.95. Returns the stored ratio.
    pub fn set_ratio(&mut self, path: &[PathStep], ratio: f32) -> Result<Ratio, LayoutError> {
        let ratio = Ratio::new(ratio)?;
        let mut node = self;
        for (step, choice) in path.iter().enumerate() {
            node = match node {
                Layout::Split(s) => match choice {
                    PathStep::First => &mut *s.first,
                    PathStep::Second => &mut *s.second,
                },
                Layout::Pane(_) => return Err(LayoutError::PathTooLong { step }),
            };
        }
        match node {
            Layout::Split(s) => {
                s.ratio = ratio;
                Ok(ratio)
            }
            Layout::Pane(_) => Err(LayoutError::PathEndsAtPane),
        }
    }

    /// Checks a whole-layout replacement: within the depth and size caps, every pane of `expected`
    /// exactly once and nothing else. Errors are reported in that order (caps, then the first
    /// foreign or repeated leaf in pane order, then the first missing pane in id order).
    pub fn validate_against(&self, expected: &BTreeSet<PaneId>) -> Result<(), LayoutError> {
        let mut seen = BTreeSet::new();
        self.check(0, expected, &mut seen)?;
        match expected.difference(&seen).next() {
            Some(missing) => Err(LayoutError::Missing(missing.clone())),
            None => Ok(()),
        }
    }

    /// Each pane's rectangle as fractions of the tab, in [`Layout::panes`] order. Clients map these
    /// onto cells; tests use them to check that rebalanced runs really are equal.
    pub fn shares(&self) -> Vec<PaneShare> {
        let mut out = Vec::new();
        self.collect_shares([0.0, 0.0, 1.0, 1.0], &mut out);
        out
    }

    fn collect_panes(&self, out: &mut Vec<PaneId>) {
        match self {
            Layout::Pane(p) => out.push(p.clone()),
            Layout::Split(s) => {
                s.first.collect_panes(out);
                s.second.collect_panes(out);
            }
        }
    }

    fn pane_count(&self) -> usize {
        match self {
            Layout::Pane(_) => 1,
            Layout::Split(s) => s.first.pane_count() + s.second.pane_count(),
        }
    }

    fn first_pane(&self) -> &PaneId {
        match self {
            Layout::Pane(p) => p,
            Layout::Split(s) => s.first.first_pane(),
        }
    }

    fn splits(&self, direction: Direction) -> bool {
        matches!(self, Layout::Split(s) if s.direction == direction)
    }

    fn node(&self, path: &[PathStep]) -> Option<&Layout> {
        path.iter().try_fold(self, |node, step| match (node, step) {
            (Layout::Split(s), PathStep::First) => Some(&*s.first),
            (Layout::Split(s), PathStep::Second) => Some(&*s.second),
            (Layout::Pane(_), _) => None,
        })
    }

    fn node_mut(&mut self, path: &[PathStep]) -> Option<&mut Layout> {
        let mut node = self;
        for step in path {
            node = match (node, step) {
                (Layout::Split(s), PathStep::First) => &mut *s.first,
                (Layout::Split(s), PathStep::Second) => &mut *s.second,
                (Layout::Pane(_), _) => return None,
            };
        }
        Some(node)
    }

    /// Gives every member of the run rooted here an equal share; returns the member count.
    fn rebalance(&mut self, direction: Direction) -> usize {
        match self {
            Layout::Split(s) if s.direction == direction => {
                let first = s.first.rebalance(direction);
                let second = s.second.rebalance(direction);
                s.ratio = Ratio::from_fraction(first as f64 / (first + second) as f64);
                first + second
            }
            _ => 1,
        }
    }

    fn check(
        &self,
        depth: usize,
        expected: &BTreeSet<PaneId>,
        seen: &mut BTreeSet<PaneId>,
    ) -> Result<(), LayoutError> {
        if depth > MAX_DEPTH {
            return Err(LayoutError::TooDeep { max: MAX_DEPTH });
        }
        match self {
            Layout::Pane(p) => {
                if !expected.contains(p) {
                    return Err(LayoutError::Foreign(p.clone()));
                }
                if !seen.insert(p.clone()) {
                    return Err(LayoutError::Duplicate(p.clone()));
                }
                if seen.len() > MAX_PANES {
                    return Err(LayoutError::TooManyPanes { max: MAX_PANES });
                }
                Ok(())
            }
            Layout::Split(s) => {
                s.first.check(depth + 1, expected, seen)?;
                s.second.check(depth + 1, expected, seen)
            }
        }
    }

    /// `area` is `[x, y, width, height]`, in f64 so deep trees don't accumulate f32 rounding.
    fn collect_shares(&self, area: [f64; 4], out: &mut Vec<PaneShare>) {
        let [x, y, w, h] = area;
        match self {
            Layout::Pane(p) => out.push(PaneShare {
                pane: p.clone(),
                x: x as f32,
                y: y as f32,
                width: w as f32,
                height: h as f32,
            }),
            Layout::Split(s) => {
                let r = f64::from(s.ratio.get());
                let (first, second) = match s.direction {
                    Direction::Right => ([x, y, w * r, h], [x + w * r, y, w * (1.0 - r), h]),
                    Direction::Down => ([x, y, w, h * r], [x, y + h * r, w, h * (1.0 - r)]),
                };
                s.first.collect_shares(first, out);
                s.second.collect_shares(second, out);
            }
        }
    }
}

pub mod flat;

#[cfg(test)]
mod tests;
