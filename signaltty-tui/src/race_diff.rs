//! A race entry's diff in the diff view (`diff.rs` draws it as it draws a workspace's): opened
//! from the race view (`d`), it shows what CompareRace returns — the entry's changes against the
//! race's base commit, committed and uncommitted, untracked files as new — one entry at a time,
//! `n`/`p` stepping to the next/previous entry. Besides the files and hunks it has a line cursor
//! (J/K) for review comments (`c` opens a small input box; `l` lists them, `d` there removes
//! one; `s` sends the entry's comments to its agent with ReviewRaceEntry), the per-file matrix
//! of every entry (`m`), and the check command's exit status and output (`o`; `C` runs it in
//! every worktree). `?` lists these keys; Esc or q goes back to the race view.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};
use signaltty_proto::v1 as pb;

use crate::app::{App, Effect, Field, Request};
use crate::diff_view::{DiffView, Files, Hunks};

pub use crate::diff_view::{Comment, Panel, RaceDiff};
use crate::race_state::RaceRequest;

/// Opens the diff view on entry `index` of `race`, and asks for the comparison.
pub fn open(app: &mut App, race: &pb::Race, index: u32, panel: Panel, fx: &mut Vec<Effect>) {
    let race_diff = RaceDiff {
        race_id: race.id.clone(),
        base_commit: race.base_commit.clone(),
        base_branch: race.base_branch.clone(),
        check_command: race.check_command.clone(),
        agents: race
            .entries
            .iter()
            .map(|e| (e.index, e.agent.clone()))
            .collect(),
        workspaces: race
            .entries
            .iter()
            .map(|e| (e.index, e.workspace_id.clone()))
            .collect(),
        shown: index,
        panel,
        ..RaceDiff::default()
    };
    let mut view = DiffView::for_race(race.workspace_id.clone(), race_diff);
    compare(&mut view, false, fx);
    app.overlay = Some(crate::app::Overlay::Diff(view));
}

/// Asks CompareRace for every entry's diff (and runs the check when `run_check`).
pub fn compare(view: &mut DiffView, run_check: bool, fx: &mut Vec<Effect>) {
    let seq = view.next_seq();
    view.files_seq = seq;
    let Some(race) = view.race.as_deref_mut() else {
        return;
    };
    race.loading = Some(run_check);
    fx.push(Effect::Request(Request::Race(RaceRequest::Compare {
        race_id: race.race_id.clone(),
        run_check,
        seq,
    })));
}

/// CompareRace's answer.
pub fn on_compared(
    view: &mut DiffView,
    seq: u64,
    result: Result<Vec<pb::RaceEntryDiff>, String>,
    fx: &mut Vec<Effect>,
) {
    if seq != view.files_seq {
        return;
    }
    let Some(race) = view.race.as_deref_mut() else {
        return;
    };
    race.loading = None;
    match result {
        Ok(entries) => {
            race.entries = entries;
            race.error = None;
            if race.entry().is_none()
                && let Some(first) = race.entries.first()
            {
                race.shown = first.index;
            }
            show_entry(view, fx);
        }
        Err(why) => {
            race.error = Some(why.clone());
            view.files = Files::Unavailable(why);
        }
    }
}

/// Shows the chosen entry's files (keeping the highlighted file when it has it too).
fn show_entry(view: &mut DiffView, fx: &mut Vec<Effect>) {
    let Some(race) = view.race.as_deref_mut() else {
        return;
    };
    let Some(entry) = race.entry() else {
        view.files = Files::Unavailable("this entry is closed: nothing to compare".into());
        view.file = None;
        return;
    };
    if !entry.error.is_empty() {
        view.files = Files::Unavailable(entry.error.clone());
        view.file = None;
        return;
    }
    let files = pb::GetWorkspaceDiffResponse {
        files: entry.files.clone(),
        ..Default::default()
    };
    race.patches = crate::unified_diff::parse(&entry.patch);
    let path = view.file.as_ref().map(|(p, _)| p.clone());
    view.selected = path
        .and_then(|p| files.files.iter().position(|f| f.path == p))
        .unwrap_or(0);
    view.files = Files::Loaded(files);
    view.file = None;
    view.load_selected(fx);
}

/// The hunks of `path` from the shown entry's patch (loaded at once: no request).
pub fn hunks_of(race: &RaceDiff, change: &pb::FileChange) -> Hunks {
    if let Some(diff) = race.patches.get(&change.path) {
        return Hunks::Loaded(diff.clone());
    }
    let (kind, reason) = if change.binary {
        (pb::DiffKind::Binary, String::new())
    } else if race.entry().is_some_and(|e| e.patch_truncated) {
        (
            pb::DiffKind::Unavailable,
            "past the 512 KiB the comparison returns".to_owned(),
        )
    } else {
        (pb::DiffKind::Unchanged, String::new())
    };
    Hunks::Loaded(pb::GetFileDiffResponse {
        path: change.path.clone(),
        kind: kind as i32,
        reason,
        ..Default::default()
    })
}

/// The file and line under the cursor.
pub fn cursor_target(view: &DiffView) -> Option<(String, u32)> {
    let race = view.race.as_deref()?;
    let (path, Hunks::Loaded(diff)) = view.file.as_ref()? else {
        return None;
    };
    let line = crate::unified_diff::line_at(diff, race.cursor).unwrap_or(0);
    Some((path.clone(), line))
}

fn move_cursor(view: &mut DiffView, delta: isize, visible: usize) {
    let rows = view.hunk_rows();
    let Some(race) = view.race.as_deref_mut() else {
        return;
    };
    race.cursor = race
        .cursor
        .saturating_add_signed(delta)
        .min(rows.saturating_sub(1));
    // The scroll follows the cursor.
    let cursor = race.cursor;
    if cursor < view.scroll {
        view.scroll = cursor;
    } else if cursor >= view.scroll + visible.max(1) {
        view.scroll = cursor + 1 - visible.max(1);
    }
}

fn step_entry(view: &mut DiffView, forward: bool, fx: &mut Vec<Effect>) {
    let Some(race) = view.race.as_deref_mut() else {
        return;
    };
    let n = race.entries.len();
    if n == 0 {
        return;
    }
    let at = race
        .entries
        .iter()
        .position(|d| d.index == race.shown)
        .unwrap_or(0);
    let next = if forward {
        (at + 1) % n
    } else {
        (at + n - 1) % n
    };
    race.shown = race.entries[next].index;
    race.cursor = 0;
    if race.panel == Panel::Check || matches!(race.panel, Panel::Comments(_)) {
        race.panel = Panel::Diff;
    }
    view.scroll = 0;
    show_entry(view, fx);
}

/// A key for a race's diff view; `None` when it is not a race key (the diff view's own keys
/// then apply), else whether the view stays open.
pub fn on_key(
    app: &mut App,
    view: &mut DiffView,
    key: KeyEvent,
    visible: usize,
    fx: &mut Vec<Effect>,
) -> Option<bool> {
    let race = view.race.as_deref_mut()?;
    let now = Instant::now();
    if let Some((path, line, mut field)) = race.input.take() {
        match key.code {
            KeyCode::Esc => {}
            KeyCode::Enter if field.text.trim().is_empty() => {
                app.toast("an empty comment says nothing: type it, or Esc", now);
                race.input = Some((path, line, field));
            }
            KeyCode::Enter => race.comments.push(Comment {
                entry: race.shown,
                path,
                line,
                text: field.text.trim().to_owned(),
            }),
            _ => {
                crate::field::edit(&mut field, &key);
                race.input = Some((path, line, field));
            }
        }
        return Some(true);
    }
    if let Panel::Comments(selected) = race.panel {
        let n = race.entry_comments().count();
        match key.code {
            KeyCode::Char('j') | KeyCode::Down => {
                race.panel = Panel::Comments((selected + 1).min(n.saturating_sub(1)));
                return Some(true);
            }
            KeyCode::Char('k') | KeyCode::Up => {
                race.panel = Panel::Comments(selected.saturating_sub(1));
                return Some(true);
            }
            KeyCode::Char('d' | 'x') | KeyCode::Delete => {
                let shown = race.shown;
                if let Some(at) = race
                    .comments
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.entry == shown)
                    .nth(selected)
                    .map(|(i, _)| i)
                {
                    race.comments.remove(at);
                }
                race.panel = Panel::Comments(selected.min(n.saturating_sub(2)));
                return Some(true);
            }
            _ => {}
        }
    }
    let toggle = |panel: &mut Panel, to: Panel| {
        *panel = if *panel == to { Panel::Diff } else { to };
    };
    match key.code {
        KeyCode::Esc | KeyCode::Char('q') if race.panel != Panel::Diff => race.panel = Panel::Diff,
        KeyCode::Esc | KeyCode::Char('q') => return Some(false),
        KeyCode::Char('?') => toggle(&mut race.panel, Panel::Keys),
        KeyCode::Char('m') => toggle(&mut race.panel, Panel::Matrix),
        KeyCode::Char('o') => toggle(&mut race.panel, Panel::Check),
        KeyCode::Char('l') => toggle(&mut race.panel, Panel::Comments(0)),
        KeyCode::Char('n') | KeyCode::Tab => step_entry(view, true, fx),
        KeyCode::Char('p') | KeyCode::BackTab => step_entry(view, false, fx),
        KeyCode::Char('r') => compare(view, false, fx),
        KeyCode::Char('C') => {
            if race.check_command.is_empty() {
                app.toast(
                    "this race has no check command (give one when starting it)",
                    now,
                );
            } else {
                compare(view, true, fx);
            }
        }
        KeyCode::Char('c') => match cursor_target(view) {
            Some((path, line)) => {
                if let Some(race) = view.race.as_deref_mut() {
                    race.input = Some((path, line, Field::default()));
                }
            }
            None => app.toast("no file to comment on: pick one with j/k", now),
        },
        KeyCode::Char('s') => send(app, race, now, fx),
        KeyCode::Char('J') => move_cursor(view, 1, visible),
        KeyCode::Char('K') => move_cursor(view, -1, visible),
        KeyCode::PageDown | KeyCode::Char(' ') => {
            move_cursor(view, visible.max(2) as isize - 1, visible)
        }
        KeyCode::PageUp | KeyCode::Char('b') => {
            move_cursor(view, 1 - visible.max(2) as isize, visible)
        }
        KeyCode::Char('g') => move_cursor(view, isize::MIN / 2, visible),
        KeyCode::Char('G') => move_cursor(view, isize::MAX / 2, visible),
        _ => return None,
    }
    Some(true)
}

/// Sends the shown entry's comments to its agent.
fn send(app: &mut App, race: &mut RaceDiff, now: Instant, fx: &mut Vec<Effect>) {
    let comments: Vec<pb::ReviewComment> = race
        .entry_comments()
        .map(|c| pb::ReviewComment {
            path: c.path.clone(),
            line: c.line,
            text: c.text.clone(),
        })
        .collect();
    if comments.is_empty() {
        app.toast("no comments for this entry yet: c on a line adds one", now);
        return;
    }
    fx.push(Effect::Request(Request::Race(RaceRequest::Review {
        race_id: race.race_id.clone(),
        index: race.shown,
        comments,
    })));
}

/// ReviewRaceEntry's answer: the sent comments leave the list (a refusal keeps them).
pub fn on_reviewed(app: &mut App, index: u32, result: Result<u32, String>, now: Instant) {
    match result {
        Ok(sent) => {
            if let Some(crate::app::Overlay::Diff(view)) = &mut app.overlay
                && let Some(race) = view.race.as_deref_mut()
            {
                race.comments.retain(|c| c.entry != index);
                if matches!(race.panel, Panel::Comments(_)) {
                    race.panel = Panel::Diff;
                }
            }
            app.toast(
                format!("{sent} comment(s) sent to entry {index}: typed once its agent is ready"),
                now,
            );
        }
        Err(why) => app.toast(format!("review not sent: {why}"), now),
    }
}

#[cfg(test)]
#[path = "race_diff_tests.rs"]
mod tests;
