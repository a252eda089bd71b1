//! Draws the race view (`race_view.rs`) over the tab bar and the panes: a header naming the
//! race, one row per entry, the highlighted entry's details (its decision, its error), and the
//! keys.

use std::time::{Duration, SystemTime};

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use signaltty_proto::v1 as pb;

use super::put;
use crate::app::App;
use crate::race_view::{RaceView, selected_entry};

fn name<E: signaltty_client::present::names::ProtoEnum>(value: i32) -> String {
    signaltty_client::present::names::name::<E>(value)
}

fn time_of(seconds: i64, nanos: i32) -> Option<SystemTime> {
    Some(
        SystemTime::UNIX_EPOCH
            + Duration::new(u64::try_from(seconds).ok()?, u32::try_from(nanos).ok()?),
    )
}

macro_rules! at {
    ($t:expr) => {
        $t.as_ref().and_then(|t| time_of(t.seconds, t.nanos))
    };
}

/// How long the entry has worked on its last prompt (until its turn ended, else until now).
fn elapsed(e: &pb::RaceEntry) -> String {
    let Some(from) = at!(e.prompt_delivered_at).or(at!(e.started_at)) else {
        return "-".into();
    };
    let until = at!(e.turn_ended_at)
        .filter(|end| *end >= from)
        .unwrap_or_else(SystemTime::now);
    let secs = until.duration_since(from).unwrap_or_default().as_secs();
    if secs >= 60 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("{secs}s")
    }
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
    let footer =
        "↑↓ entry  Enter go to its pane  y/n answer its decision  [ ] older/newer race  Esc close";
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
        let agent_state = if e.pane_id.is_empty() {
            "-".to_owned()
        } else {
            format!(
                "{}/{}",
                name::<pb::Lifecycle>(e.lifecycle),
                name::<pb::Attention>(e.attention)
            )
        };
        let decision = if e.pending_decision_id.is_empty() {
            String::new()
        } else {
            format!("⚠ {}", e.pending_decision_prompt.replace(['\n', '\r'], " "))
        };
        let cells = [
            (e.index.to_string(), base),
            (e.agent.clone(), base),
            (
                name::<pb::RaceEntryState>(e.state),
                base.fg(state_colour(e.state)),
            ),
            (agent_state, base),
            (elapsed(e), base),
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
