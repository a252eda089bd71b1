//! Layout geometry over the server's split trees: pure functions from a [`pb::Layout`] and an
//! area to cell rectangles, dividers, hit-tests and directional neighbours.
//!
//! The contract every client draws by: a split gives its `first` child
//! `round((extent - 1) × ratio)` cells, then one cell of divider, then the rest to `second`
//! (both children keep at least one cell while the extent allows it). Every cell of the area
//! belongs to exactly one pane rectangle or one divider, so hit-testing is total, and a divider
//! dragged to a cell gives back the ratio that puts it there ([`ratio_for_drag`]).
//!
//! Invalid nodes (an unset oneof, an unknown direction) are treated as an empty leaf: the server
//! never sends them, and geometry must not panic on what it is given.

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::layout::Node;

/// The ratios the server accepts (it clamps to these).
pub const MIN_RATIO: f32 = 0.05;
/// See [`MIN_RATIO`].
pub const MAX_RATIO: f32 = 0.95;

/// A rectangle of cells: `x`, `y` of its top-left cell, `width` × `height` cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rect {
    /// Left column.
    pub x: u16,
    /// Top row.
    pub y: u16,
    /// Columns.
    pub width: u16,
    /// Rows.
    pub height: u16,
}

impl Rect {
    /// A rectangle from its position and size.
    pub const fn new(x: u16, y: u16, width: u16, height: u16) -> Self {
        Self {
            x,
            y,
            width,
            height,
        }
    }

    /// One past the last column.
    pub fn right(self) -> u32 {
        u32::from(self.x) + u32::from(self.width)
    }

    /// One past the last row.
    pub fn bottom(self) -> u32 {
        u32::from(self.y) + u32::from(self.height)
    }

    /// Number of cells.
    pub fn area(self) -> u32 {
        u32::from(self.width) * u32::from(self.height)
    }

    /// Whether the cell at (`x`, `y`) is inside.
    pub fn contains(self, x: u16, y: u16) -> bool {
        x >= self.x && u32::from(x) < self.right() && y >= self.y && u32::from(y) < self.bottom()
    }
}

/// How a split divides its area (the server's `Direction`, decoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// Side by side, a vertical divider (`DIRECTION_RIGHT`).
    Columns,
    /// Stacked, a horizontal divider (`DIRECTION_DOWN`).
    Rows,
}

impl Axis {
    /// The axis of a wire `Direction`, if it names one.
    pub fn from_wire(direction: i32) -> Option<Self> {
        match pb::Direction::try_from(direction).ok()? {
            pb::Direction::Right => Some(Self::Columns),
            pb::Direction::Down => Some(Self::Rows),
            pb::Direction::Unspecified => None,
        }
    }
}

/// A direction of focus motion (h/j/k/l).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// h
    Left,
    /// j
    Down,
    /// k
    Up,
    /// l
    Right,
}

/// The steps from the root to a split, as `SetRatio` takes them.
pub type SplitPath = Vec<pb::PathStep>;

/// Where one pane is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaneRect {
    /// The pane's id.
    pub pane_id: String,
    /// Its cells (title row included: how a client uses them is its own choice).
    pub rect: Rect,
}

/// One divider between the two halves of a split.
#[derive(Clone, Debug, PartialEq)]
pub struct Divider {
    /// From the root to the split.
    pub path: SplitPath,
    /// Columns: a vertical line; Rows: a horizontal line.
    pub axis: Axis,
    /// The divider's own cells (one column or one row).
    pub line: Rect,
    /// The whole area of the split (both children and the divider), for [`ratio_for_drag`].
    pub split_area: Rect,
    /// The split's ratio.
    pub ratio: f32,
}

/// What a cell of the pane area shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Hit {
    /// A pane's rectangle.
    Pane(String),
    /// A divider.
    Divider(Divider),
}

/// Pane rectangles and dividers of a layout laid out in an area.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placement {
    /// Every pane, in layout order (first to second, depth first).
    pub panes: Vec<PaneRect>,
    /// Every divider, parents before children.
    pub dividers: Vec<Divider>,
}

impl Placement {
    /// Lays out `layout` in `area`.
    pub fn compute(layout: &pb::Layout, area: Rect) -> Self {
        let mut out = Self::default();
        place(layout, area, &mut Vec::new(), &mut out);
        out
    }

    /// The rectangle of a pane, if it is in the layout.
    pub fn rect_of(&self, pane_id: &str) -> Option<Rect> {
        self.panes
            .iter()
            .find(|p| p.pane_id == pane_id)
            .map(|p| p.rect)
    }

    /// What the cell at (`x`, `y`) shows; `None` outside the area.
    pub fn hit(&self, x: u16, y: u16) -> Option<Hit> {
        if let Some(pane) = self.panes.iter().find(|p| p.rect.contains(x, y)) {
            return Some(Hit::Pane(pane.pane_id.clone()));
        }
        self.dividers
            .iter()
            .find(|d| d.line.contains(x, y))
            .map(|d| Hit::Divider(d.clone()))
    }

    /// The pane next to `from` in direction `dir`: among the panes lying wholly beyond `from`'s
    /// edge that way and overlapping it across, the nearest; ties go to the largest overlap, then
    /// to the topmost / leftmost. `None` at the area's edge or for an unknown pane.
    pub fn neighbour(&self, from: &str, dir: Dir) -> Option<String> {
        let origin = self.rect_of(from)?;
        let mut best: Option<(NeighbourRank, &PaneRect)> = None;
        for candidate in self.panes.iter().filter(|p| p.pane_id != from) {
            let r = candidate.rect;
            if r.area() == 0 {
                continue;
            }
            let (distance, overlap, across_pos) = match dir {
                Dir::Left if r.right() <= u32::from(origin.x) => (
                    u32::from(origin.x) - r.right(),
                    overlap(origin.y, origin.bottom(), r.y, r.bottom()),
                    u32::from(r.y),
                ),
                Dir::Right if u32::from(r.x) >= origin.right() => (
                    u32::from(r.x) - origin.right(),
                    overlap(origin.y, origin.bottom(), r.y, r.bottom()),
                    u32::from(r.y),
                ),
                Dir::Up if r.bottom() <= u32::from(origin.y) => (
                    u32::from(origin.y) - r.bottom(),
                    overlap(origin.x, origin.right(), r.x, r.right()),
                    u32::from(r.x),
                ),
                Dir::Down if u32::from(r.y) >= origin.bottom() => (
                    u32::from(r.y) - origin.bottom(),
                    overlap(origin.x, origin.right(), r.x, r.right()),
                    u32::from(r.x),
                ),
                _ => continue,
            };
            if overlap == 0 {
                continue;
            }
            let key = (distance, std::cmp::Reverse(overlap), across_pos);
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, candidate));
            }
        }
        best.map(|(_, p)| p.pane_id.clone())
    }
}

/// How a neighbour candidate ranks: distance, then overlap (larger first), then position.
type NeighbourRank = (u32, std::cmp::Reverse<u32>, u32);

fn overlap(a0: u16, a1: u32, b0: u16, b1: u32) -> u32 {
    let start = u32::from(a0.max(b0));
    let end = a1.min(b1);
    end.saturating_sub(start)
}

/// Cells given to a split's first child out of `extent` (the divider takes one more).
pub fn first_extent(extent: u16, ratio: f32) -> u16 {
    let available = extent.saturating_sub(1);
    let ratio = if ratio.is_finite() {
        ratio.clamp(MIN_RATIO, MAX_RATIO)
    } else {
        0.5
    };
    let first = (f32::from(available) * ratio).round() as u16;
    if available >= 2 {
        first.clamp(1, available - 1)
    } else {
        first.min(available)
    }
}

/// The ratio that puts `divider`'s line at column `x` (Columns) or row `y` (Rows), clamped to
/// what the server accepts. Laying the split out again with it puts the line at that cell
/// whenever the clamp allows.
pub fn ratio_for_drag(divider: &Divider, x: u16, y: u16) -> f32 {
    let area = divider.split_area;
    let (start, extent, at) = match divider.axis {
        Axis::Columns => (area.x, area.width, x),
        Axis::Rows => (area.y, area.height, y),
    };
    let available = extent.saturating_sub(1);
    if available == 0 {
        return divider.ratio;
    }
    let first = at.saturating_sub(start).min(available);
    (f32::from(first) / f32::from(available)).clamp(MIN_RATIO, MAX_RATIO)
}

fn place(layout: &pb::Layout, area: Rect, path: &mut SplitPath, out: &mut Placement) {
    match &layout.node {
        Some(Node::PaneId(id)) => out.panes.push(PaneRect {
            pane_id: id.clone(),
            rect: area,
        }),
        Some(Node::Split(split)) => {
            let Some(axis) = Axis::from_wire(split.direction) else {
                return;
            };
            let (first_area, line, second_area) = divide(area, axis, split.ratio);
            out.dividers.push(Divider {
                path: path.clone(),
                axis,
                line,
                split_area: area,
                ratio: split.ratio,
            });
            for (child, child_area, step) in [
                (&split.first, first_area, pb::PathStep::First),
                (&split.second, second_area, pb::PathStep::Second),
            ] {
                if let Some(child) = child {
                    path.push(step);
                    place(child, child_area, path, out);
                    path.pop();
                }
            }
        }
        None => {}
    }
}

/// Splits `area` into first child, divider line, second child.
fn divide(area: Rect, axis: Axis, ratio: f32) -> (Rect, Rect, Rect) {
    match axis {
        Axis::Columns => {
            let first = first_extent(area.width, ratio);
            let line = area.width.min(1);
            let second = area.width - first - line;
            (
                Rect::new(area.x, area.y, first, area.height),
                Rect::new(area.x + first, area.y, line, area.height),
                Rect::new(area.x + first + line, area.y, second, area.height),
            )
        }
        Axis::Rows => {
            let first = first_extent(area.height, ratio);
            let line = area.height.min(1);
            let second = area.height - first - line;
            (
                Rect::new(area.x, area.y, area.width, first),
                Rect::new(area.x, area.y + first, area.width, line),
                Rect::new(area.x, area.y + first + line, area.width, second),
            )
        }
    }
}

/// Every pane id of a layout, in layout order.
pub fn pane_ids(layout: &pb::Layout) -> Vec<String> {
    let mut ids = Vec::new();
    collect_ids(layout, &mut ids);
    ids
}

fn collect_ids(layout: &pb::Layout, ids: &mut Vec<String>) {
    match &layout.node {
        Some(Node::PaneId(id)) => ids.push(id.clone()),
        Some(Node::Split(split)) => {
            for child in [&split.first, &split.second].into_iter().flatten() {
                collect_ids(child, ids);
            }
        }
        None => {}
    }
}

/// The path to the nearest ancestor split of `pane_id` whose divider moves along `axis`, and
/// which side of it the pane is on; `None` if no ancestor splits that way.
pub fn enclosing_split(
    layout: &pb::Layout,
    pane_id: &str,
    axis: Axis,
) -> Option<(SplitPath, pb::PathStep, f32)> {
    let mut path = Vec::new();
    let mut found = None;
    walk_to(layout, pane_id, axis, &mut path, &mut found);
    found
}

fn walk_to(
    layout: &pb::Layout,
    pane_id: &str,
    axis: Axis,
    path: &mut SplitPath,
    found: &mut Option<(SplitPath, pb::PathStep, f32)>,
) -> bool {
    match &layout.node {
        Some(Node::PaneId(id)) => id == pane_id,
        Some(Node::Split(split)) => {
            for (child, step) in [
                (&split.first, pb::PathStep::First),
                (&split.second, pb::PathStep::Second),
            ] {
                let Some(child) = child else { continue };
                path.push(step);
                let inside = walk_to(child, pane_id, axis, path, found);
                path.pop();
                if inside {
                    // The deepest matching ancestor is recorded first (on the way back up).
                    if found.is_none() && Axis::from_wire(split.direction) == Some(axis) {
                        *found = Some((path.clone(), step, split.ratio));
                    }
                    return true;
                }
            }
            false
        }
        None => false,
    }
}

#[cfg(test)]
#[path = "geometry_tests.rs"]
mod tests;
