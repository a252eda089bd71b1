//! `view`: draws the state. Regions come from [`crate::regions`]; the sidebar, the panes and
//! the overlays have their own files. Glyphs carry meaning without colour (`○ ● ⚠ ✓ ✗ · ↻`);
//! colour only reinforces.

mod boxes;
mod copy_mode;
mod diff;
mod overlays;
mod panes;
mod picker;
mod race;
mod race_diff;
mod sidebar;
mod spawn;
mod unused;

use crate::geometry::Rect;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect as TuiRect;
use ratatui::style::{Color, Modifier, Style};
use signaltty_proto::v1 as pb;

use crate::app::{App, Focus, Link, Mode};
use crate::regions::{regions, tab_cells};

/// Draws the whole screen.
pub fn view(app: &App, frame: &mut Frame) {
    if let Some((x, y)) = render(app, frame.buffer_mut()) {
        frame.set_cursor_position((x, y));
    }
}

/// Draws the whole screen into `buf` (fresh: every cell blank); returns where the terminal
/// cursor goes (`None`: hidden).
pub fn render(app: &App, buf: &mut Buffer) -> Option<(u16, u16)> {
    let r = regions(app);
    if let Some(side) = r.sidebar {
        sidebar::draw(app, side, buf);
    }
    tab_bar(app, r.tab_bar, buf);
    panes::draw(app, r.panes, buf);
    status(app, r.status, buf);
    overlays::draw(app, buf);
    panes::cursor(app)
}

pub use crate::names::{agent_name, label};
#[cfg(test)]
pub(crate) use panes::{copy_rows, style_of};
pub use panes::{cursor, draw_rows};

/// A geometry rectangle as ratatui's.
pub fn tui(r: Rect) -> TuiRect {
    TuiRect::new(r.x, r.y, r.width, r.height)
}

/// Writes `text` at (`x`, `y`), clipped to `max` cells; returns the cells used.
pub fn put(buf: &mut Buffer, x: u16, y: u16, text: &str, max: u16, style: Style) -> u16 {
    if max == 0 || !buf.area.contains((x, y).into()) {
        return 0;
    }
    let (end, _) = buf.set_stringn(x, y, text, usize::from(max), style);
    end - x
}

/// The lifecycle glyph and colour of a pane.
pub fn glyph(pane: &pb::Pane) -> (&'static str, Color) {
    use pb::Lifecycle as L;
    if pane.pending_decision.is_some()
        || pane.attention == pb::Attention::PermissionRequired as i32
        || pane.attention == pb::Attention::InputRequired as i32
    {
        return ("⚠", Color::Yellow);
    }
    if pane.status == pb::PaneStatus::Hibernated as i32 {
        // Asleep: typing into it wakes its agent (the server's hibernation).
        return ("☾", Color::Cyan);
    }
    if pane.status == pb::PaneStatus::Restored as i32
        || pane.status == pb::PaneStatus::Resumable as i32
    {
        return ("↻", Color::Cyan);
    }
    match L::try_from(pane.lifecycle).unwrap_or(L::Unspecified) {
        L::Working => ("●", Color::Green),
        L::Blocked => ("⚠", Color::Yellow),
        L::Done => ("✓", Color::Blue),
        L::Failed => ("✗", Color::Red),
        L::Exited => ("·", Color::DarkGray),
        L::Idle | L::Unknown | L::Unspecified => {
            if pane.status == pb::PaneStatus::Exited as i32 {
                ("·", Color::DarkGray)
            } else {
                ("○", Color::Gray)
            }
        }
    }
}

/// A short name for the attention badge, if any.
pub fn badge(pane: &pb::Pane) -> Option<&'static str> {
    match pb::Attention::try_from(pane.attention).ok()? {
        pb::Attention::PermissionRequired => Some("permission"),
        pb::Attention::InputRequired => Some("input"),
        pb::Attention::Error => Some("error"),
        pb::Attention::Warning => Some("warning"),
        pb::Attention::Unread => Some("unread"),
        _ => None,
    }
}

/// "working 2m" / "worked 2m" / "" for a pane, given the current time in seconds.
pub fn timer(pane: &pb::Pane, now_secs: i64) -> String {
    if pane.lifecycle == pb::Lifecycle::Working as i32 {
        let since = pane.lifecycle_since.map(|t| t.seconds).unwrap_or(now_secs);
        format!("working {}", duration((now_secs - since).max(0) as u64))
    } else if pane.last_run_seconds > 0.0 {
        format!("worked {}", duration(pane.last_run_seconds as u64))
    } else {
        String::new()
    }
}

/// `45s`, `2m`, `1h05`.
pub fn duration(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s => format!("{}h{:02}", s / 3600, (s % 3600) / 60),
    }
}

/// How a pane's process ended: `exited 1`, or `killed by SIGSEGV` for 128 + a signal's number
/// (the server's code for a death by signal).
pub fn exit_text(code: i32) -> String {
    let signal = code
        .checked_sub(128)
        .filter(|n| (1..=64).contains(n))
        .and_then(|n| nix::sys::signal::Signal::try_from(n).ok());
    match signal {
        Some(signal) => format!("killed by {}", signal.as_str()),
        None => format!("exited {code}"),
    }
}

fn tab_bar(app: &App, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let current = app.current_tab().map(|t| t.id.clone());
    let bar = Style::default().bg(Color::Black).fg(Color::Gray);
    buf.set_style(tui(area), bar);
    let cells = tab_cells(app);
    let total = app
        .current_workspace()
        .map(|w| w.tab_ids.len())
        .unwrap_or(0);
    let mut end = area.x;
    for (id, label, x, width) in &cells {
        let style = if current.as_ref() == Some(id) {
            Style::default()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD)
        } else {
            bar
        };
        put(buf, *x, area.y, &format!(" {label} "), *width - 1, style);
        put(buf, x + width - 1, area.y, "│", 1, bar);
        end = x + width;
    }
    if cells.len() < total {
        put(buf, end, area.y, "…", 1, bar);
    }
    if total == 0 {
        put(
            buf,
            area.x + 1,
            area.y,
            match app.keymap.preset {
                crate::keymap::Preset::Tmux => "no tabs — prefix c: new tab, prefix A: spawn",
                crate::keymap::Preset::Modal => "no tabs — t: new tab, s: spawn",
            },
            area.width.saturating_sub(2),
            bar,
        );
    }
}

/// The left end of the status line: the modal preset's mode; in tmux's model the workspace
/// (as tmux shows its session), `PREFIX` while the prefix waits for its key, and what has the
/// keys when it is not the pane (the sidebar, a focused decision).
fn mode_label(app: &App) -> (String, Style) {
    let bold = |bg: Color, fg: Color| Style::default().bg(bg).fg(fg).add_modifier(Modifier::BOLD);
    if matches!(app.overlay, Some(crate::app::Overlay::Decision { .. })) {
        return (" DECISION ".into(), bold(Color::Yellow, Color::Black));
    }
    if matches!(app.overlay, Some(crate::app::Overlay::Copy(_))) {
        return (" COPY ".into(), bold(Color::Yellow, Color::Black));
    }
    if app.keymap.preset == crate::keymap::Preset::Tmux {
        if app.focus == Focus::Sidebar {
            return (" SIDEBAR ".into(), bold(Color::Magenta, Color::Black));
        }
        if app.chord.held.first() == Some(&app.keymap.leader) || app.chord.repeat_until.is_some() {
            return (" PREFIX ".into(), bold(Color::Yellow, Color::Black));
        }
        let name = app.current_workspace().map_or("", |w| w.name.as_str());
        return (
            format!("[{}] ", crate::regions::truncate(name, 20)),
            bold(Color::DarkGray, Color::White),
        );
    }
    match (app.mode, app.focus) {
        (Mode::Insert, _) => (" INSERT ".into(), bold(Color::Green, Color::Black)),
        (Mode::Normal, Focus::Sidebar) => (" SIDEBAR ".into(), bold(Color::Magenta, Color::Black)),
        (Mode::Normal, Focus::Panes) => (" NORMAL ".into(), bold(Color::Blue, Color::White)),
    }
}

fn status(app: &App, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let base = Style::default().bg(Color::DarkGray).fg(Color::White);
    buf.set_style(tui(area), base);
    let (mode, mode_style) = mode_label(app);
    let mut x = area.x + put(buf, area.x, area.y, &mode, area.width, mode_style);
    if !app.chord.held.is_empty() {
        let held = app
            .chord
            .held
            .join(" ")
            .replace("ctrl-", "C-")
            .replace("alt-", "M-");
        x += put(
            buf,
            x + 1,
            area.y,
            &held,
            20,
            base.add_modifier(Modifier::BOLD),
        ) + 1;
    }
    let waiting = crate::outer_notify::waiting(app);
    let unread = crate::outer_notify::unread(app);
    let mut right = format!("{} ? help ", app.keymap.leader.replace("ctrl-", "^"));
    if unread > 0 {
        right = format!("⚑ {unread} unread  {right}");
    }
    if waiting > 0 {
        right = format!("⚠ {waiting} waiting  {right}");
    }
    if let Link::Reconnecting { .. } = app.link {
        right = format!("reconnecting…  {right}");
    }
    let right_w = u16::try_from(right.chars().count())
        .unwrap_or(0)
        .min(area.width);
    let rx = area.right().saturating_sub(u32::from(right_w)) as u16;
    put(buf, rx, area.y, &right, right_w, base);
    // A remote machine's decision is not over a pane shown here: the status line names it
    // and its machine until it is answered (its options are rows of the sidebar).
    let remote = crate::machines::decisions(&app.remotes)
        .into_iter()
        .find(|(_, d)| d.answerable)
        .map(|(machine, d)| {
            let prompt = d.prompt.lines().next().unwrap_or("");
            format!("⚠ {machine}: {prompt} (answer in the sidebar)")
        });
    if let Some(text) = app.toasts.last().map(|t| t.text.clone()).or(remote) {
        let max = rx.saturating_sub(x + 2);
        put(
            buf,
            x + 1,
            area.y,
            &text,
            max,
            base.fg(Color::Yellow).add_modifier(Modifier::BOLD),
        );
    }
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
