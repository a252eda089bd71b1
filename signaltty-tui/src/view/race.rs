//! Draws the race view (`race_view.rs`) over the tab bar and the panes: a header naming the
//! race, one row per entry, the highlighted entry's details (its decision, its error), and the
//! keys.

use std::time::SystemTime;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use signaltty_client::present::race as race_text;
use signaltty_proto::v1 as pb;

use super::put;
use crate::app::App;
use crate::race_view::{RaceView, selected_entry};

fn name<E: signaltty_client::present::names::ProtoEnum>(value: i32) -> String {
    signaltty_client::present::names::name::<E>(value)
}

fn state_colour(state: i32) -> Color {
    use pb::RaceEntryState as S;
    match S::try_from(state).unwrap_or(S::Unspecified) {
        S::TurnEnded | S::Kept => Color::Green,
        S::Working => Color::Blue,
        S::Failed => Color::Red,
        S::Starting | S::Preparing => Color::Yellow,
        _ => Color::Gray,
    }
}

/// The view.
pub fn draw(app: &App, view: &RaceView, buf: &mut Buffer) {
    let r = crate::regions::regions(app);
    let (x, y, width) = (r.tab_bar.x, r.tab_bar.y, r.tab_bar.width);
    let height = r.tab_bar.height + r.panes.height;
    for row in y..y + height {
        for col in x..x + width {
            if let Some(cell) = buf.cell_mut((col, row)) {
                cell.reset();
            }
        }
    }
    if height < 3 || width < 10 {
        return;
    }
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let muted = Style::default().fg(Color::Gray);
    let footer = "? keys  ↑↓ entry  Enter its pane  y/n answer  d diff  m matrix  K keep  [ ] race  Esc close";
    put(buf, x, y + height - 1, footer, width, muted);
    let Some(race) = view.race() else {
        let text = match (&view.error, view.loaded) {
            (Some(why), _) => format!("races unavailable: {why}"),
            (None, false) => "loading…".to_owned(),
            (None, true) => {
                "no race yet: `signaltty race start --prompt-file F --agent claude -n 3`".to_owned()
            }
        };
        put(buf, x + 1, y, &text, width - 1, muted);
        return;
    };
    let head = format!(
        "Race {} · {} · {} entries · base {} {}",
        race.id,
        name::<pb::RaceState>(race.state),
        race.entries.len(),
        if race.base_branch.is_empty() {
            "(detached)"
        } else {
            &race.base_branch
        },
        race.base_commit.chars().take(10).collect::<String>()
    );
    put(buf, x + 1, y, &head, width - 1, bold);
    let prompt = race.prompt.lines().next().unwrap_or_default();
    put(buf, x + 1, y + 1, &format!("“{prompt}”"), width - 1, muted);
    let columns: [(&str, u16); 8] = [
        ("#", 3),
        ("AGENT", 9),
        ("STATE", 11),
        ("AGENT STATE", 30),
        ("ELAPSED", 8),
        ("FILES", 6),
        ("+/-", 12),
        ("DECISION", 0),
    ];
    let mut col = x + 1;
    for (title, w) in columns {
        put(buf, col, y + 2, title, width.saturating_sub(col - x), bold);
        col += w;
    }
    for (i, e) in race.entries.iter().enumerate() {
        let row = y + 3 + u16::try_from(i).unwrap_or(u16::MAX);
        if row + 3 >= y + height {
            break;
        }
        let selected = i == view.selected;
        let base = if selected {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        };
        if selected {
            for c in x..x + width {
                if let Some(cell) = buf.cell_mut((c, row)) {
                    cell.set_style(base);
                }
            }
        }
        let decision = race_text::decision_label(e)
            .map(|d| format!("⚠ {d}"))
            .unwrap_or_default();
        let cells = [
            (e.index.to_string(), base),
            (e.agent.clone(), base),
            (
                name::<pb::RaceEntryState>(e.state),
                base.fg(state_colour(e.state)),
            ),
            (race_text::agent_state(e), base),
            (race_text::elapsed(e, SystemTime::now()), base),
            (e.files_changed.to_string(), base),
            (format!("+{}/-{}", e.added, e.removed), base),
            (decision, base.fg(Color::Yellow)),
        ];
        let mut col = x + 1;
        for ((text, style), (_, w)) in cells.iter().zip(columns) {
            let room = if w == 0 {
                width.saturating_sub(col - x)
            } else {
                w.saturating_sub(1)
            };
            put(buf, col, row, text, room, *style);
            col += w;
        }
    }
    extras(view, race, x, y, width, height, buf);
    if let Some(e) = selected_entry(view) {
        let detail = if !e.error.is_empty() {
            format!("entry {}: {}", e.index, e.error)
        } else if e.pending_comments > 0 {
            format!(
                "entry {}: {} review comment(s) queued",
                e.index, e.pending_comments
            )
        } else {
            format!("entry {}: {} · {}", e.index, e.branch, e.path)
        };
        put(buf, x + 1, y + height - 2, &detail, width - 1, muted);
    }
}

/// The race view's keys, for `?`.
const KEYS: [(&str, &str); 10] = [
    ("↑↓ j/k", "choose an entry"),
    ("Enter", "go to its agent's pane"),
    ("y / n", "answer its pending decision (once / deny)"),
    ("d", "its diff against the race's base (review it there)"),
    ("m", "the per-file matrix of every entry, and checks"),
    ("K", "keep it: merge mode, branches, then confirm"),
    ("[ ]", "an older / newer race"),
    ("r", "read the races again"),
    ("?", "these keys"),
    ("Esc q", "close"),
];

/// The keep form, the last keep's outcome or the keys, over the lower part of the view.
fn extras(
    view: &RaceView,
    race: &pb::Race,
    x: u16,
    y: u16,
    width: u16,
    height: u16,
    buf: &mut Buffer,
) {
    let mut lines: Vec<(String, Style)> = Vec::new();
    let bold = Style::default().add_modifier(Modifier::BOLD);
    if view.keys {
        lines.push(("race view keys".into(), bold));
        for (key, what) in KEYS {
            lines.push((format!("{key:>8}  {what}"), Style::default()));
        }
    } else if let Some(form) = &view.keep {
        if form.confirming {
            let question = form.question(race);
            let (ask, then) = question.split_once("? ").unwrap_or((&question, ""));
            lines.push((format!("{ask}?"), bold.fg(Color::Yellow)));
            lines.push((then.to_owned(), Style::default()));
            lines.push(("y: keep it   any other key: back".into(), Style::default()));
        } else {
            lines.push((format!("keep entry {}", form.index), bold));
            let modes: Vec<String> = crate::race_keep::MODES
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let text = crate::race_keep::mode_text(*m);
                    if i == form.mode {
                        format!("[{text}]")
                    } else {
                        format!(" {text} ")
                    }
                })
                .collect();
            lines.push((
                format!("merge mode ◂ ▸: {}", modes.join(" ")),
                Style::default(),
            ));
            let mark = if form.delete_branches { "x" } else { " " };
            lines.push((
                format!("[{mark}] b: delete the other entries' branches too"),
                Style::default(),
            ));
            lines.push((
                "Enter: confirm   Esc: cancel".into(),
                Style::default().fg(Color::Gray),
            ));
        }
    } else if let Some(outcome) = &view.outcome {
        for (i, text) in outcome.iter().enumerate() {
            let style = match i {
                0 if text.starts_with("not kept") => bold.fg(Color::Red),
                0 => bold.fg(Color::Green),
                _ => Style::default(),
            };
            lines.push((text.clone(), style));
        }
    }
    if lines.is_empty() {
        return;
    }
    let n = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    // Above the detail and footer rows, below the entries where there is room.
    let rows = u16::try_from(race.entries.len()).unwrap_or(u16::MAX);
    let top = (y + 4 + rows)
        .min((y + height).saturating_sub(2 + n))
        .max(y + 1);
    for (i, (text, style)) in lines.iter().enumerate() {
        let row = top + u16::try_from(i).unwrap_or(0);
        if row + 2 >= y + height {
            break;
        }
        for c in x..x + width {
            if let Some(cell) = buf.cell_mut((c, row)) {
                cell.reset();
            }
        }
        put(buf, x + 1, row, text, width - 1, *style);
    }
}
