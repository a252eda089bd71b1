//! Draws the diff view ([`crate::diff`]): a title row, the changed files on the left (status
//! letter, path, `+added -removed`, renames as `old → new`, `binary` / `too large` marks), and
//! the highlighted file's hunks on the right with old/new line numbers, `+` lines green and `-`
//! lines red. Each state says what it is in words (loading, not a repository, unchanged, binary,
//! too large, unavailable), so nothing relies on colour alone.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use signaltty_proto::v1 as pb;

use super::{put, tui};
use crate::app::App;
use crate::diff::{DiffView, Files, Hunks, layout, letter, list_top};
use crate::git::display;

/// Draws the view.
pub fn draw(app: &App, view: &DiffView, buf: &mut Buffer) {
    let l = layout(app);
    for r in [l.header, l.list, l.hunks, l.footer] {
        buf.set_style(tui(r), Style::default());
        for y in r.y..r.y + r.height {
            for x in r.x..r.x + r.width {
                buf[(x, y)].reset();
            }
        }
    }
    header(app, view, l.header, buf);
    footer(view, l.footer, buf);
    if let Some(race) = view.race.as_deref() {
        let body = crate::geometry::Rect::new(
            l.list.x,
            l.list.y,
            l.list.width + l.hunks.width,
            l.list.height,
        );
        if super::race_diff::panel(race, body, buf) {
            super::race_diff::input(race, buf);
            return;
        }
    }
    let muted = Style::default().fg(Color::Gray);
    let (x, y, w) = (l.list.x + 1, l.list.y + 1, l.list.width.saturating_sub(2));
    let whole = l.list.width + l.hunks.width - 2;
    match &view.files {
        Files::Loading => {
            put(buf, x, y, "loading…", w, muted);
        }
        Files::NotARepo => {
            let cwd = app
                .catalog
                .workspace(&view.workspace_id)
                .map(|ws| display(&ws.cwd))
                .unwrap_or_default();
            put(buf, x, y, "not a git repository:", whole, muted);
            put(buf, x, y + 1, &cwd, whole, muted);
        }
        Files::Unavailable(why) => {
            put(buf, x, y, "diff unavailable (r: retry):", whole, muted);
            let body = crate::geometry::Rect::new(x, y, whole, l.list.height);
            para(buf, body, x, y + 1, &display(why), muted);
        }
        Files::Loaded(diff) if diff.files.is_empty() => {
            let text = if diff.unborn {
                "no commits yet, and no files"
            } else if view.race.is_some() {
                "no changes against the race's base"
            } else {
                "no changes against HEAD"
            };
            put(buf, x, y, text, whole, muted);
        }
        Files::Loaded(diff) => {
            list(view, diff, l.list, buf);
            separator(l.hunks, buf);
            hunks(view, l.hunks, buf);
            if let Some(race) = view.race.as_deref() {
                super::race_diff::marks(view, race, l.hunks, buf);
            }
        }
    }
    if let Some(race) = view.race.as_deref() {
        super::race_diff::input(race, buf);
    }
}

fn header(app: &App, view: &DiffView, area: crate::geometry::Rect, buf: &mut Buffer) {
    let style = Style::default().bg(Color::Cyan).fg(Color::Black);
    buf.set_style(tui(area), style);
    if let Some(race) = view.race.as_deref() {
        let text = super::race_diff::header(view, race);
        let bold = style.add_modifier(Modifier::BOLD);
        put(buf, area.x, area.y, &text, area.width, bold);
        return;
    }
    let ws = app.catalog.workspace(&view.workspace_id);
    let name = ws.map(|w| display(&w.name)).unwrap_or_default();
    let branch = ws
        .and_then(|w| w.git.as_ref())
        .map(|g| {
            if g.branch.is_empty() {
                " (detached)".to_owned()
            } else {
                format!(" ({})", display(&g.branch))
            }
        })
        .unwrap_or_default();
    let counts = match &view.files {
        Files::Loaded(d) => {
            let (a, r) = d.files.iter().fold((0u64, 0u64), |(a, r), f| {
                (a + u64::from(f.added), r + u64::from(f.removed))
            });
            let more = if d.truncated { "+" } else { "" };
            let unborn = if d.unborn { ", no commits yet" } else { "" };
            let files = if d.files.len() == 1 { "file" } else { "files" };
            format!(" — {}{more} {files} +{a} -{r}{unborn}", d.files.len())
        }
        _ => String::new(),
    };
    let text = format!(" diff: {name}{branch}{counts}");
    put(
        buf,
        area.x,
        area.y,
        &text,
        area.width,
        style.add_modifier(Modifier::BOLD),
    );
}

fn footer(view: &DiffView, area: crate::geometry::Rect, buf: &mut Buffer) {
    let style = Style::default().bg(Color::Black).fg(Color::Gray);
    buf.set_style(tui(area), style);
    let text = match view.race.as_deref() {
        Some(race) => super::race_diff::footer(race),
        None => " j/k file · J/K PgUp PgDn scroll · r refresh · q close",
    };
    put(buf, area.x, area.y, text, area.width, style);
}

/// `text` cut to `max` characters from the left (a path keeps its file name), `…` when cut.
fn keep_end(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_owned();
    }
    let tail: String = text.chars().skip(n + 1 - max.max(1)).collect();
    format!("…{tail}")
}

/// `text` cut into lines of at most `width` characters, at spaces where it can.
fn wrap(text: &str, width: u16) -> Vec<String> {
    let width = usize::from(width.max(1));
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let head: String = line.chars().take(width).collect();
            line = line.chars().skip(width).collect();
            lines.push(head);
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Writes wrapped text from row `y` down, within `area`.
fn para(buf: &mut Buffer, area: crate::geometry::Rect, x: u16, y: u16, text: &str, style: Style) {
    let width = (area.x + area.width).saturating_sub(x);
    for (i, line) in wrap(text, width).iter().enumerate() {
        let row = y + u16::try_from(i).unwrap_or(u16::MAX - y);
        if row >= area.y + area.height {
            break;
        }
        put(buf, x, row, line, width, style);
    }
}

/// One file's row text (without the letter).
pub fn file_label(f: &pb::FileChange) -> (String, String) {
    let path = if f.old_path.is_empty() {
        display(&f.path)
    } else {
        format!("{} → {}", display(&f.old_path), display(&f.path))
    };
    let counts = if f.binary {
        "binary".to_owned()
    } else if f.too_large {
        "too large".to_owned()
    } else {
        format!("+{} -{}", f.added, f.removed)
    };
    (path, counts)
}

fn list(
    view: &DiffView,
    diff: &pb::GetWorkspaceDiffResponse,
    area: crate::geometry::Rect,
    buf: &mut Buffer,
) {
    let rows = usize::from(area.height);
    let top = list_top(view, rows);
    for (i, f) in diff.files.iter().enumerate().skip(top).take(rows) {
        let y = area.y + u16::try_from(i - top).unwrap_or(0);
        let selected = i == view.selected;
        let base = if selected {
            Style::default().bg(Color::DarkGray).fg(Color::White)
        } else {
            Style::default()
        };
        if selected {
            buf.set_style(ratatui::layout::Rect::new(area.x, y, area.width, 1), base);
        }
        let mark = if selected { "▶" } else { " " };
        let l = letter(f);
        let colour = match l {
            'A' | '?' => Color::Green,
            'D' => Color::Red,
            'R' => Color::Magenta,
            _ => Color::Yellow,
        };
        put(buf, area.x, y, mark, 1, base);
        put(
            buf,
            area.x + 1,
            y,
            &l.to_string(),
            1,
            base.fg(colour).add_modifier(Modifier::BOLD),
        );
        let (path, counts) = file_label(f);
        let cw = u16::try_from(counts.chars().count()).unwrap_or(0);
        let path_w = area.width.saturating_sub(cw + 4);
        put(
            buf,
            area.x + 3,
            y,
            &keep_end(&path, usize::from(path_w)),
            path_w,
            base,
        );
        let cx = (area.x + area.width).saturating_sub(cw);
        let count_style = if f.binary || f.too_large {
            base.fg(Color::Gray)
        } else {
            base
        };
        put(buf, cx, y, &counts, cw, count_style);
    }
    if diff.truncated && rows > 0 && diff.files.len() < top + rows {
        let y = area.y + u16::try_from(diff.files.len() - top).unwrap_or(0);
        put(
            buf,
            area.x + 1,
            y,
            "… list cut at 5,000 files",
            area.width,
            Style::default().fg(Color::Gray),
        );
    }
}

fn separator(area: crate::geometry::Rect, buf: &mut Buffer) {
    for y in area.y..area.y + area.height {
        put(buf, area.x, y, "│", 1, Style::default().fg(Color::DarkGray));
    }
}

fn hunks(view: &DiffView, area: crate::geometry::Rect, buf: &mut Buffer) {
    let x = area.x + 2;
    let width = area.width.saturating_sub(2);
    let muted = Style::default().fg(Color::Gray);
    let Some((path, state)) = &view.file else {
        return;
    };
    let diff = match state {
        Hunks::Loading => {
            put(buf, x, area.y, "loading…", width, muted);
            return;
        }
        Hunks::Failed(why) => {
            let text = format!("diff unavailable: {}", display(why));
            para(buf, area, x, area.y, &text, muted);
            return;
        }
        Hunks::Loaded(diff) => diff,
    };
    let state_line = match pb::DiffKind::try_from(diff.kind).unwrap_or(pb::DiffKind::Unspecified) {
        pb::DiffKind::Text => None,
        pb::DiffKind::Binary => Some("binary file: no text diff".to_owned()),
        pb::DiffKind::Unchanged => Some(
            match view
                .file_list()
                .get(view.selected)
                .filter(|f| !f.old_path.is_empty())
            {
                Some(f) => format!("renamed from {}; content unchanged", display(&f.old_path)),
                None if view.race.is_some() => "unchanged against the race's base".to_owned(),
                None => "unchanged against HEAD".to_owned(),
            },
        ),
        pb::DiffKind::TooLarge => Some(format!("too large to show: {}", display(&diff.reason))),
        pb::DiffKind::Unavailable => Some(format!("diff unavailable: {}", display(&diff.reason))),
        pb::DiffKind::Unspecified => Some("diff unavailable".to_owned()),
    };
    if let Some(text) = state_line {
        put(
            buf,
            x,
            area.y,
            &display(path),
            width,
            Style::default().add_modifier(Modifier::BOLD),
        );
        para(buf, area, x, area.y + 1, &text, muted);
        return;
    }
    let mut lines: Vec<(String, Style)> = Vec::new();
    for h in &diff.hunks {
        lines.push((
            format!(
                "@@ -{},{} +{},{} @@",
                h.old_start, h.old_lines, h.new_start, h.new_lines
            ),
            Style::default().fg(Color::Cyan),
        ));
        for line in &h.lines {
            let num = |n: u32| if n == 0 { String::new() } else { n.to_string() };
            let (sign, style) =
                match pb::LineKind::try_from(line.kind).unwrap_or(pb::LineKind::Unspecified) {
                    pb::LineKind::Added => ('+', Style::default().fg(Color::Green)),
                    pb::LineKind::Removed => ('-', Style::default().fg(Color::Red)),
                    _ => (' ', Style::default()),
                };
            lines.push((
                format!(
                    "{:>5} {:>5} {sign}{}",
                    num(line.old_line),
                    num(line.new_line),
                    display(&line.text)
                ),
                style,
            ));
        }
    }
    if diff.truncated {
        lines.push((
            format!(
                "… cut here (the whole file: +{} -{})",
                diff.added, diff.removed
            ),
            muted,
        ));
    }
    for (i, (text, style)) in lines
        .iter()
        .skip(view.scroll)
        .take(usize::from(area.height))
        .enumerate()
    {
        put(
            buf,
            x,
            area.y + u16::try_from(i).unwrap_or(0),
            text,
            width,
            *style,
        );
    }
}
