//! Where a pending decision is drawn over the bottom of its pane — prompt, detail and numbered
//! options wrapped onto as many rows as the pane's width needs — and where each option's
//! `[n] label` lands, so that `view` draws the options and `update` hit-tests clicks on them by
//! the same numbers (as `regions` does for the rest of the screen).

use ratatui::text::Span;
use signaltty_client::geometry::Rect;
use signaltty_proto::v1 as pb;

use crate::app::{App, Row};
use crate::regions;

/// What one row of the box shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// `⚠ prompt`, drawn bold.
    Prompt(String),
    /// The first line of the detail.
    Detail(String),
    /// Options: each with its 1-based number, text and the cells it covers on this row.
    Options(Vec<(u8, String, Rect)>),
    /// A note (the agent stopped waiting).
    Note(String),
}

/// A laid-out decision box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecisionBox {
    /// The whole box (the bottom rows of the pane's content).
    pub area: Rect,
    /// Its rows, top first; row `i` is at `area.y + i`.
    pub lines: Vec<Line>,
}

impl DecisionBox {
    /// The option (1-based) drawn at a cell.
    pub fn option_at(&self, x: u16, y: u16) -> Option<u8> {
        self.lines.iter().find_map(|line| match line {
            Line::Options(items) => items
                .iter()
                .find(|(_, _, rect)| rect.contains(x, y))
                .map(|(n, ..)| *n),
            _ => None,
        })
    }
}

/// The decision option under a cell, as (pane id, option number): on a decision box drawn over
/// a visible pane, or a decision's option row in the sidebar.
pub fn decision_at(app: &App, x: u16, y: u16) -> Option<(String, u8)> {
    let r = regions::regions(app);
    if r.sidebar.is_some_and(|s| s.contains(x, y)) {
        let rows = app.sidebar_rows();
        return match rows.get(regions::sidebar_row_at(app, y)?)? {
            Row::Option(pane_id, n) => Some((pane_id.clone(), *n)),
            _ => None,
        };
    }
    let (_, placement) = regions::placement(app)?;
    placement.panes.iter().find_map(|p| {
        let decision = app
            .catalog
            .panes
            .get(&p.pane_id)?
            .pending_decision
            .as_ref()?;
        let n = layout(decision, regions::content(p.rect))?.option_at(x, y)?;
        Some((p.pane_id.clone(), n))
    })
}

/// Display width of a text in cells.
fn width(text: &str) -> u16 {
    u16::try_from(Span::raw(text).width()).unwrap_or(u16::MAX)
}

/// The box for `decision` over a pane whose content is `area`; `None` when the pane is too small
/// to show it (under 10 columns or 2 rows).
pub fn layout(decision: &pb::Decision, area: Rect) -> Option<DecisionBox> {
    if area.width < 10 || area.height < 2 {
        return None;
    }
    let inner = area.width - 2;
    // Options wrapped into rows of `[n] label` items two cells apart.
    let mut rows: Vec<Vec<(u8, String)>> = vec![Vec::new()];
    let mut used = 0u16;
    for (i, o) in decision.options.iter().enumerate() {
        let n = u8::try_from(i + 1).unwrap_or(u8::MAX);
        let item = format!("[{n}] {}", o.label);
        let w = width(&item);
        if used > 0 && used.saturating_add(2).saturating_add(w) > inner {
            rows.push(Vec::new());
            used = 0;
        }
        used = used
            .saturating_add(if used > 0 { 2 } else { 0 })
            .saturating_add(w);
        if let Some(row) = rows.last_mut() {
            row.push((n, item));
        }
    }
    let detail = decision.detail.lines().next().unwrap_or("").to_owned();
    let mut lines: Vec<Line> = vec![Line::Prompt(format!("⚠ {}", decision.prompt))];
    if !detail.is_empty() {
        lines.push(Line::Detail(detail));
    }
    let options_at = lines.len();
    lines.extend(rows.into_iter().map(|items| {
        Line::Options(
            items
                .into_iter()
                .map(|(n, text)| (n, text, Rect::default()))
                .collect(),
        )
    }));
    if !decision.answerable {
        lines.push(Line::Note("(the agent stopped waiting)".into()));
    }
    let height = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .min(area.height);
    // When the pane is too short, the options matter most: drop the detail, then the prompt.
    let mut options_at = options_at;
    while lines.len() > usize::from(height) && options_at > 0 {
        let drop = if options_at == 2 { 1 } else { 0 };
        lines.remove(drop);
        options_at -= 1;
    }
    lines.truncate(usize::from(height));
    let top = area.y + area.height - height;
    // Place each option on its row, clipped to the box's inner width.
    let right = area.x + 1 + inner;
    for (i, line) in lines.iter_mut().enumerate() {
        let y = top + u16::try_from(i).unwrap_or(0);
        if let Line::Options(items) = line {
            let mut x = area.x + 1;
            for (_, text, rect) in items.iter_mut() {
                let w = width(text).min(right.saturating_sub(x));
                *rect = Rect::new(x, y, w, 1);
                x = x.saturating_add(w).saturating_add(2).min(right);
            }
        }
    }
    Some(DecisionBox {
        area: Rect::new(area.x, top, area.width, height),
        lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::decision;

    #[test]
    fn options_are_placed_where_they_are_drawn_and_wrap() {
        let wide = layout(&decision(), Rect::new(10, 5, 60, 20)).expect("box");
        // prompt, detail, one row of options at the bottom of the pane.
        assert_eq!(wide.area, Rect::new(10, 22, 60, 3));
        assert_eq!(wide.option_at(11, 24), Some(1)); // "[1] Allow once" starts at x 11
        assert_eq!(wide.option_at(24, 24), Some(1)); // its last cell
        assert_eq!(wide.option_at(25, 24), None); // the gap
        assert_eq!(wide.option_at(27, 24), Some(2)); // "[2] Always"
        assert_eq!(wide.option_at(39, 24), Some(3)); // "[3] Deny"
        assert_eq!(wide.option_at(11, 23), None); // the detail row
        // 20 columns: one option per row.
        let narrow = layout(&decision(), Rect::new(0, 0, 20, 20)).expect("box");
        assert_eq!(narrow.lines.len(), 5);
        assert_eq!(narrow.option_at(1, 17), Some(1));
        assert_eq!(narrow.option_at(1, 18), Some(2));
        assert_eq!(narrow.option_at(1, 19), Some(3));
        // 3 rows: the prompt and detail give way to the options.
        let short = layout(&decision(), Rect::new(0, 0, 20, 3)).expect("box");
        assert!(short.lines.iter().all(|l| matches!(l, Line::Options(_))));
        assert_eq!(short.option_at(1, 0), Some(1));
        assert!(layout(&decision(), Rect::new(0, 0, 9, 3)).is_none());
    }
}
