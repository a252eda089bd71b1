//! Where a pending decision is drawn over the bottom of its pane — prompt, detail and numbered
//! options wrapped onto as many rows as the pane's width needs — and where each option's
//! `[n] label` lands, so that `view` draws the options and `update` hit-tests clicks on them by
//! the same numbers (as `regions` does for the rest of the screen).

use crate::geometry::Rect;
use ratatui::text::Span;
use signaltty_proto::v1 as pb;

use crate::app::{App, Overlay, Row};
use crate::regions;

/// What one row of the box shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// `⚠ prompt` (or a wrapped part of it), drawn bold.
    Prompt(String),
    /// `tool: Bash`: the tool asking, on a row of its own.
    Tool(String),
    /// A row of the detail (the full command, wrapped; `…` ends it when the pane is too short).
    Detail(String),
    /// Options: each with its 1-based number, text and the cells it covers on this row.
    Options(Vec<(u8, String, Rect)>),
    /// A note (the agent stopped waiting).
    Note(String),
    /// How to answer: the key that focuses the box, or, focused, the keys that answer.
    Hint(String),
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
        let n = layout_in(app, decision, regions::content(p.rect))?.option_at(x, y)?;
        Some((p.pane_id.clone(), n))
    })
}

/// The option highlighted in a focused box, when `decision` is the focused one.
pub fn focused(app: &App, decision: &pb::Decision) -> Option<u8> {
    match &app.overlay {
        Some(Overlay::Decision {
            decision_id,
            selected,
            ..
        }) if *decision_id == decision.id => Some(*selected),
        _ => None,
    }
}

/// The box as `app` shows it: its hint names the key that focuses it, or, focused, the keys
/// that answer.
pub fn layout_in(app: &App, decision: &pb::Decision, area: Rect) -> Option<DecisionBox> {
    let hint = if focused(app, decision).is_some() {
        format!(
            "1-{} or ←→ Enter: answer · Esc: leave",
            decision.options.len()
        )
    } else if !decision.answerable {
        String::new()
    } else {
        match focus_key(app) {
            Some(key) => format!("{key}: answer"),
            None => "click an option to answer".to_owned(),
        }
    };
    layout(decision, area, &hint)
}

/// The keys that focus the box from where the user is, as the help shows them: `C-b a` (tmux),
/// `a` in modal Normal mode, `C-a a` in modal Insert mode (the leader back to Normal first).
fn focus_key(app: &App) -> Option<String> {
    let find = |table: &std::collections::BTreeMap<Vec<String>, crate::action::Action>| {
        table
            .iter()
            .find(|(_, a)| **a == crate::action::Action::FocusDecision)
            .map(|(keys, _)| keys.join(" "))
    };
    let keys = if app.mode == crate::app::Mode::Insert {
        find(&app.keymap.insert).or_else(|| {
            let leave = app
                .keymap
                .insert
                .iter()
                .find(|(_, a)| **a == crate::action::Action::LeaveInsert)
                .map(|(keys, _)| keys.join(" "))?;
            Some(format!("{leave} {}", find(&app.keymap.normal)?))
        })
    } else {
        find(&app.keymap.normal)
    }?;
    Some(keys.replace("ctrl-", "C-").replace("alt-", "M-"))
}

/// Display width of a text in cells.
fn width(text: &str) -> u16 {
    u16::try_from(Span::raw(text).width()).unwrap_or(u16::MAX)
}

/// `text` cut into rows of at most `max` cells (by characters; a wide character counts two).
fn wrap(text: &str, max: u16) -> Vec<String> {
    let mut rows = Vec::new();
    for line in text.lines() {
        let mut row = String::new();
        for word in line.split_inclusive(' ') {
            if width(&row) + width(word.trim_end()) > max && !row.is_empty() {
                rows.push(std::mem::take(&mut row).trim_end().to_owned());
            }
            // A word longer than a row is cut where the row ends.
            for c in word.chars() {
                if width(&row) + width(c.encode_utf8(&mut [0; 4])) > max && c != ' ' {
                    rows.push(std::mem::take(&mut row));
                }
                row.push(c);
            }
        }
        rows.push(row.trim_end().to_owned());
    }
    rows
}

/// The box for `decision` over a pane whose content is `area`, with `hint` on its last row;
/// `None` when the pane is too small to show it (under 10 columns or 2 rows).
///
/// Rows, top to bottom: the prompt, the tool, the detail (all of it, wrapped: a command is
/// never cut where it could be shown), the options, the hint. When the pane is too short the
/// options come first, then the first row of the prompt, the hint, the tool and as much of
/// the detail as fits (its last row shown ending in `…`).
pub fn layout(decision: &pb::Decision, area: Rect, hint: &str) -> Option<DecisionBox> {
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
    let options: Vec<Line> = rows
        .into_iter()
        .map(|items| {
            Line::Options(
                items
                    .into_iter()
                    .map(|(n, text)| (n, text, Rect::default()))
                    .collect(),
            )
        })
        .collect();
    // A prompt that carries the command too (`Allow Bash?` + newline + the command) shows
    // only what the detail does not: the command is shown once, under the tool.
    let prompt_text: Vec<&str> = decision
        .prompt
        .lines()
        .filter(|l| !l.trim().is_empty() && !decision.detail.contains(l.trim()))
        .collect();
    let prompt_text = match prompt_text.is_empty() {
        true => decision.prompt.lines().next().unwrap_or("").to_owned(),
        false => prompt_text.join(" "),
    };
    let prompt = wrap(&format!("⚠ {prompt_text}"), inner);
    let tool = (!decision.tool_name.is_empty()).then(|| format!("tool: {}", decision.tool_name));
    let detail = if decision.detail.trim().is_empty() {
        Vec::new()
    } else {
        wrap(decision.detail.trim_end(), inner.saturating_sub(2))
    };
    let note = (!decision.answerable).then(|| "(the agent stopped waiting)".to_owned());
    // What fits, by priority.
    let mut room = usize::from(area.height).saturating_sub(options.len());
    let mut take = |want: usize| {
        let n = want.min(room);
        room -= n;
        n
    };
    let n_prompt_first = take(prompt.len().min(1));
    let n_note = take(usize::from(note.is_some()));
    let n_hint = take(usize::from(!hint.is_empty()));
    let n_tool = take(usize::from(tool.is_some()));
    let n_prompt_rest = take(prompt.len().saturating_sub(1));
    let n_detail = take(detail.len());
    let mut lines: Vec<Line> = Vec::new();
    lines.extend(
        prompt
            .into_iter()
            .take(n_prompt_first + n_prompt_rest)
            .map(Line::Prompt),
    );
    lines.extend(tool.into_iter().take(n_tool).map(Line::Tool));
    let cut = n_detail < detail.len();
    for (i, row) in detail.into_iter().take(n_detail).enumerate() {
        let last = i + 1 == n_detail;
        lines.push(Line::Detail(if last && cut {
            let keep: String = row
                .chars()
                .take(usize::from(inner).saturating_sub(4))
                .collect();
            format!("  {keep}…")
        } else {
            format!("  {row}")
        }));
    }
    lines.extend(options);
    lines.extend(note.into_iter().take(n_note).map(Line::Note));
    if n_hint > 0 {
        lines.push(Line::Hint(hint.to_owned()));
    }
    lines.truncate(usize::from(area.height));
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
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
        let wide = layout(&decision(), Rect::new(10, 5, 60, 20), "hint").expect("box");
        // prompt, tool, detail, one row of options, the hint at the bottom of the pane.
        assert_eq!(wide.area, Rect::new(10, 20, 60, 5));
        assert_eq!(wide.option_at(11, 23), Some(1)); // "[1] Allow once" starts at x 11
        assert_eq!(wide.option_at(24, 23), Some(1)); // its last cell
        assert_eq!(wide.option_at(25, 23), None); // the gap
        assert_eq!(wide.option_at(27, 23), Some(2)); // "[2] Always"
        assert_eq!(wide.option_at(39, 23), Some(3)); // "[3] Deny"
        assert_eq!(wide.option_at(11, 22), None); // the detail row
        // 20 columns: one option per row.
        let narrow = layout(&decision(), Rect::new(0, 0, 20, 20), "").expect("box");
        assert_eq!(narrow.lines.len(), 6);
        assert_eq!(narrow.option_at(1, 17), Some(1));
        assert_eq!(narrow.option_at(1, 18), Some(2));
        assert_eq!(narrow.option_at(1, 19), Some(3));
        // 3 rows: the prompt and detail give way to the options.
        let short = layout(&decision(), Rect::new(0, 0, 20, 3), "").expect("box");
        assert!(short.lines.iter().all(|l| matches!(l, Line::Options(_))));
        assert_eq!(short.option_at(1, 0), Some(1));
        assert!(layout(&decision(), Rect::new(0, 0, 9, 3), "").is_none());
    }

    #[test]
    fn the_tool_and_the_whole_command_are_on_rows_of_their_own() {
        let mut d = decision();
        d.detail = "rm -rf build && cargo build --release --all-features --workspace".into();
        let laid = layout(&d, Rect::new(0, 0, 30, 20), "").expect("box");
        let text: Vec<String> = laid
            .lines
            .iter()
            .filter_map(|l| match l {
                Line::Prompt(t) | Line::Tool(t) | Line::Detail(t) => Some(t.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            text,
            [
                "⚠ Allow Bash?",
                "tool: Bash",
                "  rm -rf build && cargo",
                "  build --release",
                "  --all-features --workspace",
            ]
        );
        // Too short for all of it: the options stay, the detail ends in `…`.
        let short = layout(&d, Rect::new(0, 0, 30, 7), "hint").expect("box");
        assert!(matches!(short.lines.last(), Some(Line::Hint(_))));
        assert!(short.lines.iter().any(|l| matches!(l, Line::Options(_))));
        assert!(
            short
                .lines
                .iter()
                .any(|l| matches!(l, Line::Detail(t) if t.ends_with('…')))
        );
    }
}
