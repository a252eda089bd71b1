//! Attention outside the TUI, and one meaning of "unread" inside it.
//!
//! - A pane's bell, and its OSC 9/99/777 or hook notifications (the server turns them into
//!   `AttentionChanged` with source BELL and `NotificationCreated`), reach the outer terminal
//!   as a bell, or as a desktop notification (OSC 9 and OSC 777, which terminals that know one
//!   of them show, and tmux passes on) with a bell, per `[tui] notify` (off / bell / notify).
//! - The outer terminal's title (OSC 2) names the workspace and counts the panes waiting on the
//!   user, like `signaltty [api] ⚠2`; it is written only when it changes.
//! - Tabs carry tmux's flags: `!` a pane there needs the user (a bell, a notification, an
//!   error, a question), `#` a pane there printed since the tab was last shown.
//! - "Unread" means one thing everywhere: a pane with something the user has not looked at —
//!   attention unread / warning / error, or an unread notification — plus server-wide
//!   notifications. "Waiting" means a pane blocked on the user (a permission or input).
//!   Looking at a pane (it is marked seen) clears both.

use signaltty_proto::v1 as pb;

use crate::app::{App, Effect};
use crate::tui_options::Notify;

/// A feed event about to be applied: a bell or a notification becomes an alert outside.
pub fn on_event(app: &App, event: &pb::Event, fx: &mut Vec<Effect>) {
    use pb::event::Kind;
    if event.seq <= app.catalog.seq {
        // Already applied (a replay overlap): it alerted once.
        return;
    }
    let notify = app.keymap.options.notify;
    if notify == Notify::Off {
        return;
    }
    match &event.kind {
        Some(Kind::AttentionChanged(a)) if a.source == pb::ChangeSource::Bell as i32 => {
            fx.push(Effect::Outer(b"\x07".to_vec()));
        }
        Some(Kind::NotificationCreated(n)) => {
            let Some(n) = &n.notification else { return };
            let bytes = match notify {
                Notify::Notify => desktop(app, n),
                _ => b"\x07".to_vec(),
            };
            fx.push(Effect::Outer(bytes));
        }
        _ => {}
    }
}

/// OSC 9 (iTerm2, kitty, WezTerm, Windows Terminal) and OSC 777 (urxvt, foot, VTE) for a
/// notification, then a bell; control characters and the terminators are kept out of the text.
fn desktop(app: &App, n: &pb::Notification) -> Vec<u8> {
    let pane = app
        .catalog
        .panes
        .get(&n.pane_id)
        .map(crate::names::label)
        .unwrap_or_else(|| "signaltty".into());
    let clean = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_control() && *c != ';')
            .take(200)
            .collect()
    };
    let title = clean(if n.title.is_empty() { &pane } else { &n.title });
    let body = clean(&n.body);
    format!("\x1b]9;{title}: {body}\x07\x1b]777;notify;{title};{body}\x07\x07").into_bytes()
}

/// Output of a pane: a tab not shown gets the activity flag.
pub fn on_output(app: &mut App, pane_id: &str) {
    let Some(tab) = app.catalog.panes.get(pane_id).map(|p| p.tab_id.clone()) else {
        return;
    };
    if app.current_tab().map(|t| t.id.as_str()) != Some(tab.as_str())
        && app.outer.activity.insert(tab)
    {
        app.dirty = true;
    }
}

/// After every message: the shown tab has no activity flag; the title follows the counts.
pub fn follow(app: &mut App, fx: &mut Vec<Effect>) {
    if let Some(tab) = app.current_tab().map(|t| t.id.clone()) {
        app.outer.activity.remove(&tab);
    }
    let Some(ws) = app.current_workspace() else {
        return;
    };
    let waiting = waiting(app);
    let mut title = format!("signaltty [{}]", ws.name);
    if waiting > 0 {
        title.push_str(&format!(" ⚠{waiting}"));
    }
    if app.outer.title.as_deref() != Some(title.as_str()) {
        fx.push(Effect::Outer(format!("\x1b]2;{title}\x07").into_bytes()));
        app.outer.title = Some(title);
    }
}

/// Whether a pane is blocked on the user.
pub fn is_waiting(p: &pb::Pane) -> bool {
    p.pending_decision.as_ref().is_some_and(|d| d.answerable)
        || p.attention == pb::Attention::PermissionRequired as i32
        || p.attention == pb::Attention::InputRequired as i32
}

/// Whether a pane has something the user has not looked at.
pub fn is_unread(app: &App, p: &pb::Pane) -> bool {
    [
        pb::Attention::Unread,
        pb::Attention::Warning,
        pb::Attention::Error,
    ]
    .iter()
    .any(|a| p.attention == *a as i32)
        || app.catalog.unread.iter().any(|n| n.pane_id == p.id)
}

/// Panes waiting on the user (the `⚠` count).
pub fn waiting(app: &App) -> usize {
    let remote = app.remotes.iter().map(|r| &r.catalog.panes);
    std::iter::once(&app.catalog.panes)
        .chain(remote)
        .flat_map(|panes| panes.values())
        .filter(|p| is_waiting(p))
        .count()
}

/// Panes with something unread, plus unread server-wide notifications (the `⚑` count).
pub fn unread(app: &App) -> usize {
    let panes = app
        .catalog
        .panes
        .values()
        .filter(|p| is_unread(app, p))
        .count();
    let server = app
        .catalog
        .unread
        .iter()
        .filter(|n| n.pane_id.is_empty() || !app.catalog.panes.contains_key(&n.pane_id))
        .count();
    panes + server
}

/// tmux's alert flags for a tab that is not shown: `!` (a pane needs the user), `#` (output).
pub fn tab_flags(app: &App, tab: &pb::Tab) -> String {
    if app.current_tab().map(|t| t.id.as_str()) == Some(tab.id.as_str()) {
        return String::new();
    }
    let mut flags = String::new();
    let needs = app
        .catalog
        .panes_of(tab)
        .any(|p| is_waiting(p) || is_unread(app, p));
    if needs {
        flags.push('!');
    }
    if app.outer.activity.contains(&tab.id) {
        flags.push('#');
    }
    flags
}

/// Whether a tab of the workspace has the activity flag (the sidebar's `#` on its row).
pub fn workspace_activity(app: &App, ws: &pb::Workspace) -> bool {
    ws.tab_ids.iter().any(|t| app.outer.activity.contains(t))
}

/// The notification list: `j`/`k` (arrows) move, Enter goes to the notification's pane (and
/// marks it seen there), any other key closes. Returns whether the list stays open.
pub fn list_key(app: &mut App, key: crossterm::event::KeyEvent, fx: &mut Vec<Effect>) -> bool {
    use crossterm::event::KeyCode;
    let count = app.catalog.unread.len();
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => {
            app.outer.selected = (app.outer.selected + 1).min(count.saturating_sub(1));
            true
        }
        KeyCode::Char('k') | KeyCode::Up => {
            app.outer.selected = app.outer.selected.saturating_sub(1);
            true
        }
        KeyCode::Enter => {
            let target = app
                .catalog
                .unread
                .get(app.outer.selected)
                .and_then(|n| app.catalog.panes.get(&n.pane_id))
                .map(|p| (p.workspace_id.clone(), p.tab_id.clone(), p.id.clone()));
            if let Some((ws, tab, pane)) = target {
                crate::navigate::go_to(app, Some(ws), Some(tab), Some(pane), fx);
            }
            false
        }
        _ => false,
    }
}

#[cfg(test)]
#[path = "outer_notify_tests.rs"]
mod tests;
