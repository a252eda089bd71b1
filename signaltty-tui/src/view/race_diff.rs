//! Draws the race parts of the diff view ([`crate::race_diff`]): its header (race, entry, agent,
//! base), its key hints, the panels that replace the files and hunks (the per-file matrix with
//! each entry's check, the shown entry's check output, the pending comments, the keys) and the
//! comment input box.

use crate::geometry::Rect;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use signaltty_client::present::race as race_text;

use super::boxes::{boxed, text_field};
use super::put;
use crate::diff::DiffView;
use crate::race_diff::{Panel, RaceDiff};

/// The keys, for `?` (and the guide).
pub const KEYS: [(&str, &str); 15] = [
    ("j/k ↑↓", "file"),
    ("J/K", "line cursor"),
    ("PgUp/PgDn g/G", "move the cursor by a page / to the ends"),
    ("n/p Tab", "next / previous entry"),
    ("c", "comment on the cursor's line"),
    ("l", "list this entry's comments (d removes one)"),
    ("s", "send this entry's comments to its agent"),
    ("m", "per-file matrix of every entry, and checks"),
    ("o", "this entry's check output"),
    ("C", "run the check command in every worktree"),
    ("r", "compare again"),
    ("?", "these keys"),
    ("Esc q", "back (to the race view)"),
    ("", ""),
    (
        "",
        "comments go to the agent as one prompt: file:line: text",
    ),
];

/// The header's text.
pub fn header(view: &DiffView, race: &RaceDiff) -> String {
    let n = race.entries.len();
    let at = race
        .entries
        .iter()
        .position(|d| d.index == race.shown)
        .map_or(0, |i| i + 1);
    let base: String = race.base_commit.chars().take(10).collect();
    let counts = match race.entry() {
        Some(d) if d.error.is_empty() => {
            let files = if d.files.len() == 1 { "file" } else { "files" };
            format!(" — {} {files} +{} -{}", d.files.len(), d.added, d.removed)
        }
        _ => String::new(),
    };
    let pending = race.entry_comments().count();
    let comments = match pending {
        0 => String::new(),
        1 => " · 1 comment".to_owned(),
        n => format!(" · {n} comments"),
    };
    let loading = match race.loading {
        Some(true) => " · running the check…",
        Some(false) if view.file.is_some() => " · comparing…",
        _ => "",
    };
    format!(
        " {} · entry {} ({at}/{n}) {} · base {base}{counts}{comments}{loading}",
        race.race_id,
        race.shown,
        race.agent(race.shown)
    )
}

/// The footer's text.
pub fn footer(race: &RaceDiff) -> &'static str {
    match race.panel {
        Panel::Comments(_) => " j/k comment · d remove · s send · l/Esc back · ? keys",
        Panel::Diff => {
            " ? keys · j/k file · J/K line · c comment · s send · n/p entry · m matrix · o check · q back"
        }
        _ => " ? keys · n/p entry · m matrix · o check · C run check · Esc back",
    }
}

/// Draws the panel over the body (the list and hunks area); false for the plain diff.
pub fn panel(race: &RaceDiff, body: Rect, buf: &mut Buffer) -> bool {
    let muted = Style::default().fg(Color::Gray);
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let (x, w) = (body.x + 1, body.width.saturating_sub(2));
    let mut y = body.y;
    let end = body.y + body.height;
    let mut line = |text: &str, style: Style, y: &mut u16| {
        if *y < end {
            put(buf, x, *y, text, w, style);
            *y += 1;
        }
    };
    match &race.panel {
        Panel::Diff => return false,
        Panel::Keys => {
            line("race diff keys", bold, &mut y);
            for (key, what) in KEYS {
                line(&format!("{key:>14}  {what}"), Style::default(), &mut y);
            }
        }
        Panel::Matrix => {
            let cell_w = 12usize;
            let path_w = usize::from(w)
                .saturating_sub(cell_w * race.entries.len())
                .clamp(8, 48);
            let head: String =
                race.entries
                    .iter()
                    .fold(format!("{:<path_w$}", "FILE"), |acc, d| {
                        let name = format!("#{} {}", d.index, race.agent(d.index));
                        format!("{acc}{:<cell_w$}", cut(&name, cell_w - 1))
                    });
            line(&head, bold, &mut y);
            let rows = race_text::matrix(&race.entries);
            if rows.is_empty() {
                line("no entry changed anything yet", muted, &mut y);
            }
            for (path, cells) in rows {
                let text = cells
                    .iter()
                    .fold(format!("{:<path_w$}", cut(&path, path_w - 1)), |acc, c| {
                        format!("{acc}{c:<cell_w$}")
                    });
                line(&text, Style::default(), &mut y);
            }
            let totals = race
                .entries
                .iter()
                .fold(format!("{:<path_w$}", "total"), |acc, d| {
                    let t = if d.error.is_empty() {
                        format!("+{}/-{}", d.added, d.removed)
                    } else {
                        "gone".to_owned()
                    };
                    format!("{acc}{t:<cell_w$}")
                });
            line(&totals, bold, &mut y);
            y += 1;
            if race.check_command.is_empty() {
                line(
                    "no check command: start the race with one to compare test runs",
                    muted,
                    &mut y,
                );
            } else {
                let checks = race.entries.iter().fold(
                    format!(
                        "{:<path_w$}",
                        cut(&format!("check `{}`", race.check_command), path_w - 1)
                    ),
                    |acc, d| {
                        let c = d
                            .check
                            .as_ref()
                            .map_or_else(|| "not run".to_owned(), race_text::check_label);
                        format!("{acc}{:<cell_w$}", cut(&c, cell_w - 1))
                    },
                );
                line(&checks, bold, &mut y);
                line(
                    "C runs it in every worktree · o shows an entry's output",
                    muted,
                    &mut y,
                );
            }
        }
        Panel::Check => match race.entry().and_then(|d| d.check.as_ref()) {
            None if race.check_command.is_empty() => {
                line("no check command for this race", muted, &mut y);
            }
            None => line(
                &format!("`{}` has not run here yet: C runs it", race.check_command),
                muted,
                &mut y,
            ),
            Some(c) => {
                let style = if c.exit_code == 0 && !c.timed_out {
                    Style::default().fg(Color::Green)
                } else {
                    Style::default().fg(Color::Red)
                };
                line(
                    &format!(
                        "entry {} check `{}`: {} (exit {})",
                        race.shown,
                        c.command,
                        race_text::check_label(c),
                        c.exit_code
                    ),
                    style.add_modifier(Modifier::BOLD),
                    &mut y,
                );
                // The end of the output, where failures are reported.
                let room = usize::from(end.saturating_sub(y));
                let lines: Vec<&str> = c.output.lines().collect();
                for text in &lines[lines.len().saturating_sub(room)..] {
                    line(text, Style::default(), &mut y);
                }
            }
        },
        Panel::Comments(selected) => {
            line(
                &format!("comments for entry {} (not sent yet)", race.shown),
                bold,
                &mut y,
            );
            let mut any = false;
            for (i, c) in race.entry_comments().enumerate() {
                any = true;
                let style = if i == *selected {
                    Style::default().add_modifier(Modifier::REVERSED)
                } else {
                    Style::default()
                };
                line(&format!("{}:{}: {}", c.path, c.line, c.text), style, &mut y);
            }
            if !any {
                line("none: c on a line of the diff adds one", muted, &mut y);
            }
        }
    }
    true
}

/// The comment input box, when open.
pub fn input(race: &RaceDiff, buf: &mut Buffer) {
    let Some((path, line, field)) = &race.input else {
        return;
    };
    let title = format!("comment on {path}:{line} — enter: add, esc: cancel");
    let inner = boxed(buf, &title, 72, 3);
    text_field(buf, inner.x, inner.y, inner.width, field, true);
}

/// The cursor row and comment marks over the hunks the diff view drew.
pub fn marks(view: &DiffView, race: &RaceDiff, hunks: Rect, buf: &mut Buffer) {
    let Some((path, crate::diff::Hunks::Loaded(diff))) = &view.file else {
        return;
    };
    let rows = view.hunk_rows();
    for row in view.scroll..rows.min(view.scroll + usize::from(hunks.height)) {
        let y = hunks.y + u16::try_from(row - view.scroll).unwrap_or(0);
        let line = crate::unified_diff::line_at(diff, row);
        let commented = line.is_some_and(|l| {
            race.entry_comments()
                .any(|c| c.path == *path && c.line == l)
        });
        if commented {
            put(
                buf,
                hunks.x + 1,
                y,
                "●",
                1,
                Style::default().fg(Color::Yellow),
            );
        }
        if row == race.cursor && race.input.is_none() {
            put(
                buf,
                hunks.x + 1,
                y,
                "▶",
                1,
                Style::default().fg(Color::Cyan),
            );
            for x in hunks.x + 2..hunks.x + hunks.width {
                if let Some(cell) = buf.cell_mut((x, y)) {
                    cell.modifier.insert(Modifier::REVERSED);
                }
            }
        }
    }
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}
