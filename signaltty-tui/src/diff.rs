//! The diff view: the focused workspace's changes against HEAD, drawn over the tab bar and the
//! pane area. Left, the files (GetWorkspaceDiff); right, the highlighted file's hunks
//! (GetFileDiff) with old/new line numbers. Moving the highlight (keys, click) loads that
//! file's hunks; `r` reloads both; the view reloads by itself when an event says the
//! workspace's git context changed (a commit, a checkout, `git add`: what the server's
//! watcher sees). Every reply carries the request number it answers, so a late reply for a
//! file no longer highlighted, or for a list since refreshed, is dropped.
//!
//! The same view shows a race entry's changes against the race's base (`race_diff.rs`: the
//! files and hunks come from CompareRace, with a line cursor for review comments).

use crate::geometry::Rect;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use signaltty_proto::v1 as pb;

use crate::app::{App, Effect, Overlay, Request};
use crate::git::{Failure, GitReply, GitRequest};
use crate::regions::regions;

pub use crate::diff_view::{DiffView, Files, Hunks};

/// Where the view's parts are on the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The title row.
    pub header: Rect,
    /// The key hints, on the last row.
    pub footer: Rect,
    /// The file list.
    pub list: Rect,
    /// The hunks.
    pub hunks: Rect,
}

/// The view's layout: the tab bar and the pane area, the list a third of it (24–48 columns).
pub fn layout(app: &App) -> Layout {
    let r = regions(app);
    let x = r.tab_bar.x;
    let y = r.tab_bar.y;
    let width = r.tab_bar.width;
    let height = r.tab_bar.height + r.panes.height;
    let list_w = (width / 3).clamp(24.min(width), 48.min(width));
    let body = height.saturating_sub(2);
    Layout {
        header: Rect::new(x, y, width, height.min(1)),
        footer: Rect::new(x, y + height.saturating_sub(1), width, height.min(2) / 2),
        list: Rect::new(x, y + height.min(1), list_w, body),
        hunks: Rect::new(
            x + list_w,
            y + height.min(1),
            width.saturating_sub(list_w),
            body,
        ),
    }
}

impl DiffView {
    /// A view of a race's entries (the comparison is asked for by `race_diff::compare`).
    pub fn for_race(workspace_id: String, race: crate::diff_view::RaceDiff) -> DiffView {
        DiffView {
            workspace_id,
            files: Files::Loading,
            selected: 0,
            file: None,
            scroll: 0,
            seq: 0,
            files_seq: 0,
            file_seq: 0,
            race: Some(Box::new(race)),
        }
    }

    /// A new request number.
    pub fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The changed files, when loaded.
    pub fn file_list(&self) -> &[pb::FileChange] {
        match &self.files {
            Files::Loaded(diff) => &diff.files,
            _ => &[],
        }
    }

    /// Asks for the list again (and, when it comes, the highlighted file's hunks).
    fn refresh(&mut self, fx: &mut Vec<Effect>) {
        if self.race.is_some() {
            crate::race_diff::compare(self, false, fx);
            return;
        }
        self.files_seq = self.next_seq();
        fx.push(Effect::Request(Request::Git(GitRequest::WorkspaceDiff {
            workspace_id: self.workspace_id.clone(),
            seq: self.files_seq,
        })));
    }

    /// Asks for the highlighted file's hunks (keeping what is shown while they load when it is
    /// the same file, so a refresh does not blink).
    pub fn load_selected(&mut self, fx: &mut Vec<Effect>) {
        let Some(change) = self.file_list().get(self.selected).cloned() else {
            self.file = None;
            return;
        };
        if let Some(race) = self.race.as_deref_mut() {
            // A race entry's hunks came with the comparison.
            if self.file.as_ref().is_none_or(|(p, _)| *p != change.path) {
                self.scroll = 0;
                race.cursor = 0;
            }
            self.file = Some((
                change.path.clone(),
                crate::race_diff::hunks_of(race, &change),
            ));
            return;
        }
        let same = self.file.as_ref().is_some_and(|(p, _)| *p == change.path);
        if !same {
            self.file = Some((change.path.clone(), Hunks::Loading));
            self.scroll = 0;
        }
        self.file_seq = self.next_seq();
        fx.push(Effect::Request(Request::Git(GitRequest::FileDiff {
            workspace_id: self.workspace_id.clone(),
            path: change.path,
            old_path: change.old_path,
            seq: self.file_seq,
        })));
    }

    fn select(&mut self, index: usize, fx: &mut Vec<Effect>) {
        let n = self.file_list().len();
        if n == 0 {
            return;
        }
        let index = index.min(n - 1);
        if index != self.selected || self.file.is_none() {
            self.selected = index;
            self.load_selected(fx);
        }
    }

    /// How many rows the hunks of the highlighted file take.
    pub fn hunk_rows(&self) -> usize {
        match &self.file {
            Some((_, Hunks::Loaded(d))) => {
                d.hunks.iter().map(|h| h.lines.len() + 1).sum::<usize>() + usize::from(d.truncated)
            }
            _ => 0,
        }
    }

    fn scroll_by(&mut self, delta: isize, visible: usize) {
        let max = self.hunk_rows().saturating_sub(visible);
        self.scroll = self.scroll.saturating_add_signed(delta).min(max);
    }
}

/// Opens the view on the current workspace and asks for its files.
pub fn open(app: &mut App, fx: &mut Vec<Effect>) {
    let Some(workspace_id) = app.workspace.clone() else {
        app.toast("no workspace to show a diff of", std::time::Instant::now());
        return;
    };
    let mut view = DiffView {
        workspace_id,
        files: Files::Loading,
        selected: 0,
        file: None,
        scroll: 0,
        seq: 0,
        files_seq: 0,
        file_seq: 0,
        race: None,
    };
    view.refresh(fx);
    app.overlay = Some(Overlay::Diff(view));
}

/// A key while the view is open; returns whether it stays open.
pub fn on_key(app: &mut App, view: &mut DiffView, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let visible = usize::from(layout(app).hunks.height);
    let page = visible.max(2) as isize - 1;
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if let Some(stay) = crate::race_diff::on_key(app, view, key, visible, fx) {
        return stay;
    }
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc => return false,
        KeyCode::Char('r') => view.refresh(fx),
        KeyCode::Char('j') | KeyCode::Down => view.select(view.selected + 1, fx),
        KeyCode::Char('k') | KeyCode::Up => view.select(view.selected.saturating_sub(1), fx),
        KeyCode::Home => view.select(0, fx),
        KeyCode::End => view.select(usize::MAX, fx),
        KeyCode::Enter => view.load_selected(fx),
        KeyCode::Char('d') if ctrl => view.scroll_by(page / 2, visible),
        KeyCode::Char('u') if ctrl => view.scroll_by(-(page / 2), visible),
        KeyCode::Char('J') => view.scroll_by(1, visible),
        KeyCode::Char('K') => view.scroll_by(-1, visible),
        KeyCode::PageDown | KeyCode::Char(' ') => view.scroll_by(page, visible),
        KeyCode::PageUp | KeyCode::Char('b') => view.scroll_by(-page, visible),
        KeyCode::Char('g') => view.scroll = 0,
        KeyCode::Char('G') => view.scroll_by(isize::MAX / 2, visible),
        _ => {}
    }
    true
}

/// A mouse event while the view is open: the wheel scrolls the hunks (or, over the list, moves
/// the highlight); a click on a file shows its hunks.
pub fn on_mouse(app: &App, view: &mut DiffView, mouse: &MouseEvent, fx: &mut Vec<Effect>) {
    let l = layout(app);
    let (x, y) = (mouse.column, mouse.row);
    let visible = usize::from(l.hunks.height);
    let over_list = l.list.contains(x, y);
    match mouse.kind {
        MouseEventKind::ScrollDown if over_list => view.select(view.selected + 1, fx),
        MouseEventKind::ScrollUp if over_list => view.select(view.selected.saturating_sub(1), fx),
        MouseEventKind::ScrollDown => view.scroll_by(3, visible),
        MouseEventKind::ScrollUp => view.scroll_by(-3, visible),
        MouseEventKind::Down(crossterm::event::MouseButton::Left) if over_list => {
            let row = usize::from(y - l.list.y);
            let index = list_top(view, usize::from(l.list.height)) + row;
            if index < view.file_list().len() {
                view.select(index, fx);
            }
        }
        _ => {}
    }
}

/// The first file shown in a list of `rows` rows (the highlight kept in sight).
pub fn list_top(view: &DiffView, rows: usize) -> usize {
    (view.selected + 1).saturating_sub(rows.max(1))
}

/// A reply for the view; stale ones (an older request number) are dropped.
pub fn on_reply(view: &mut DiffView, reply: GitReply, fx: &mut Vec<Effect>) {
    match reply {
        GitReply::WorkspaceDiff { seq, result } if seq == view.files_seq => {
            view.files = match result {
                Ok(diff) => Files::Loaded(diff),
                Err(Failure { reason, .. }) if reason == "NOT_A_REPO" => Files::NotARepo,
                Err(Failure { message, .. }) => Files::Unavailable(message),
            };
            // Keep the highlighted file if it is still changed, else the row it was on.
            let path = view.file.as_ref().map(|(p, _)| p.clone());
            let files = view.file_list();
            view.selected = path
                .and_then(|p| files.iter().position(|f| f.path == p))
                .unwrap_or(view.selected)
                .min(files.len().saturating_sub(1));
            view.load_selected(fx);
        }
        GitReply::FileDiff { seq, result } if seq == view.file_seq => {
            if let Some((_, hunks)) = &mut view.file {
                *hunks = match result {
                    Ok(diff) => Hunks::Loaded(diff),
                    Err(failure) => Hunks::Failed(failure.message),
                };
            }
            let max = view.hunk_rows();
            view.scroll = view.scroll.min(max.saturating_sub(1));
        }
        _ => {}
    }
}

/// Before a feed event is applied: when the open view's workspace gets a new git context, reload
/// the view; when it closes, close the view. (Worktrees being added or removed changes no
/// checkout's diff.) An event already applied (a replay overlap) changes nothing.
pub fn on_event(app: &mut App, event: &pb::Event, fx: &mut Vec<Effect>) {
    use pb::event::Kind;
    let Some(Overlay::Diff(view)) = &app.overlay else {
        return;
    };
    if view.race.is_some() {
        // A race entry's diff is read again with `r` (its worktree is not this workspace).
        return;
    }
    let ws_id = view.workspace_id.clone();
    if event.seq <= app.catalog.seq {
        return;
    }
    // Its workspace closed (here or elsewhere): there is nothing left to show.
    if let Some(Kind::WorkspaceClosed(c)) = &event.kind
        && c.workspace_id == ws_id
    {
        app.overlay = None;
        app.toast("the workspace was closed", std::time::Instant::now());
        return;
    }
    let old = app.catalog.workspace(&ws_id).and_then(|w| w.git.clone());
    let changed = match &event.kind {
        Some(Kind::GitContextChanged(c)) => c.workspace_id == ws_id,
        Some(Kind::WorkspaceUpdated(u)) => u
            .workspace
            .as_ref()
            .is_some_and(|w| w.id == ws_id && !same_facts(w.git.as_ref(), old.as_ref())),
        _ => false,
    };
    if changed && let Some(Overlay::Diff(view)) = &mut app.overlay {
        view.refresh(fx);
    }
}

/// Two git contexts say the same (the time they were read aside).
fn same_facts(a: Option<&pb::GitContext>, b: Option<&pb::GitContext>) -> bool {
    let key = |g: Option<&pb::GitContext>| {
        g.map(|g| {
            (
                g.is_repo,
                g.repo_root.clone(),
                g.branch.clone(),
                g.dirty,
                g.dirty_unknown,
            )
        })
    };
    key(a) == key(b)
}

/// The status letter of a change, as `git status --short` writes it.
pub fn letter(change: &pb::FileChange) -> char {
    if change.untracked {
        return '?';
    }
    match pb::ChangeKind::try_from(change.kind).unwrap_or(pb::ChangeKind::Unspecified) {
        pb::ChangeKind::Modified => 'M',
        pb::ChangeKind::Added => 'A',
        pb::ChangeKind::Deleted => 'D',
        pb::ChangeKind::Renamed => 'R',
        pb::ChangeKind::Unspecified => ' ',
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
