//! The spawn form: workspace, checkout (the workspace's own, a new worktree on a branch, or an
//! existing worktree from ListWorktrees), working directory, command, label and environment
//! rows (`KEY=VALUE` each, so values may hold spaces). Submitting in the current checkout is a
//! plain SpawnPane; in a worktree it is one request chain (CreateWorktree or OpenWorktree, then
//! SpawnPane there, see `runtime/requests.rs`) whose pane is focused when it lands.
//!
//! Keys: `tab`/`down` next row, `backtab`/`up` previous, `left`/`right` change a choice,
//! `ctrl-n` a new env row below, `ctrl-d` removes the env row, `enter` starts, `esc` cancels.
//! There is always one empty env row at the end, so typing there adds a variable.
//!
//! The last checkout choice is a race (`race_view.rs`): agents (names, space-separated), copies
//! of each, base (empty: HEAD), an optional check command and one prompt (`ctrl-j` starts a new
//! line in it); `enter` calls StartRace and opens the race view.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use signaltty_proto::v1 as pb;

use crate::app::{App, Effect, Field, Overlay, Request};
use crate::field::edit;
use crate::git::{Checkout, GitReply, GitRequest, WorktreeSpawn};
use crate::spawn_form::{FormRow, SpawnForm, Worktrees};

/// A request for a shell in a workspace (a new tab when `tab_id` is empty), sized for the pane
/// area.
pub fn spawn_shell(app: &App, workspace_id: String, tab_id: String) -> Effect {
    let area = crate::regions::regions(app).panes;
    Effect::Request(Request::Spawn {
        workspace_id,
        tab_id,
        argv: Vec::new(),
        cwd: String::new(),
        title: String::new(),
        env: Vec::new(),
        cols: area.width,
        rows: area.height.saturating_sub(1),
    })
}

/// Opens the form on the current workspace and asks for its worktrees.
pub fn open(app: &mut App, fx: &mut Vec<Effect>) {
    let workspace = app
        .workspace
        .as_ref()
        .and_then(|id| app.catalog.workspaces.iter().position(|w| &w.id == id))
        .unwrap_or(0);
    let form = SpawnForm {
        workspace,
        ..SpawnForm::default()
    };
    list_worktrees(app, &form, fx);
    app.overlay = Some(Overlay::Spawn(form));
}

fn list_worktrees(app: &App, form: &SpawnForm, fx: &mut Vec<Effect>) {
    if let Some(ws) = app.catalog.workspaces.get(form.workspace) {
        fx.push(Effect::Request(Request::Git(GitRequest::ListWorktrees {
            workspace_id: ws.id.clone(),
        })));
    }
}

/// Before a feed event is applied: a repository's worktrees changed while the form is open, so
/// its list is asked for again (the choice is kept by path when the answer comes).
pub fn on_event(app: &mut App, event: &pb::Event, fx: &mut Vec<Effect>) {
    if let Some(pb::event::Kind::WorktreeChanged(_)) = &event.kind
        && event.seq > app.catalog.seq
        && let Some(Overlay::Spawn(form)) = &app.overlay
    {
        list_worktrees(app, form, fx);
    }
}

/// ListWorktrees' answer, for the form if it is still about that workspace.
pub fn on_worktrees(app: &mut App, reply: GitReply) {
    let GitReply::Worktrees {
        workspace_id,
        result,
    } = reply
    else {
        return;
    };
    let Some(ws) = app.catalog.workspace(&workspace_id).cloned() else {
        return;
    };
    let Some(Overlay::Spawn(form)) = &mut app.overlay else {
        return;
    };
    if app.catalog.workspaces.get(form.workspace).map(|w| &w.id) != Some(&workspace_id) {
        return;
    }
    let own = ws
        .git
        .as_ref()
        .map(|g| g.repo_root.clone())
        .unwrap_or_default();
    let was_race = form.is_race();
    let chosen = match (&form.worktrees, form.checkout) {
        (Worktrees::Loaded(list), n) if n >= 2 => list.get(n - 2).map(|w| w.path.clone()),
        _ => None,
    };
    form.worktrees = match result {
        Ok(list) => Worktrees::Loaded(
            list.into_iter()
                .filter(|w| !w.missing && w.path != own)
                .collect(),
        ),
        Err(failure) if failure.reason == "NOT_A_REPO" => {
            Worktrees::Unavailable("not a repository".into())
        }
        Err(failure) => Worktrees::Unavailable(failure.message),
    };
    form.checkout = match (&form.worktrees, chosen) {
        (Worktrees::Loaded(list), Some(path)) => list
            .iter()
            .position(|w| w.path == path)
            .map_or(0, |i| i + 2),
        _ if was_race => form.checkouts() - 1,
        _ => form.checkout.min(form.checkouts() - 1),
    };
}

/// A key for the form; returns whether it stays open.
pub fn on_key(app: &mut App, form: &mut SpawnForm, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Esc => return false,
        KeyCode::Tab | KeyCode::Down => form.step(true),
        KeyCode::BackTab | KeyCode::Up => form.step(false),
        KeyCode::Left | KeyCode::Right
            if matches!(form.row, FormRow::Workspace | FormRow::Checkout) =>
        {
            let right = key.code == KeyCode::Right;
            let cycle = |i: usize, n: usize| if right { (i + 1) % n } else { (i + n - 1) % n };
            if form.row == FormRow::Workspace {
                form.workspace = cycle(form.workspace, app.catalog.workspaces.len().max(1));
                form.worktrees = Worktrees::Loading;
                form.checkout = form.checkout.min(1);
                list_worktrees(app, form, fx);
            } else {
                form.checkout = cycle(form.checkout, form.checkouts());
            }
        }
        KeyCode::Char('n') if ctrl => {
            let at = match form.row {
                FormRow::Env(i) => i + 1,
                _ => form.env.len(),
            };
            form.env.insert(at, Field::default());
            form.row = FormRow::Env(at);
        }
        KeyCode::Char('j') if ctrl && form.row == FormRow::Prompt => form.prompt.text.push('\n'),
        KeyCode::Char('d') if ctrl => {
            if let FormRow::Env(i) = form.row {
                form.env.remove(i);
                // The row that took its place (the empty last one, if it was the last).
                if form.env.last().is_none_or(|f| !f.text.is_empty()) {
                    form.env.push(Field::default());
                }
                form.row = FormRow::Env(i.min(form.env.len() - 1));
            }
        }
        KeyCode::Enter if form.is_race() => return !submit_race(app, form, fx),
        KeyCode::Enter => return !submit(app, form, fx),
        _ => {
            if let Some(field) = form.field_mut(form.row) {
                edit(field, &key);
            }
        }
    }
    form.tidy_env();
    true
}

/// Starts the pane; returns whether the form is done (false: a mistake was shown, the form
/// stays open with the cursor on it).
fn submit(app: &mut App, form: &mut SpawnForm, fx: &mut Vec<Effect>) -> bool {
    let now = Instant::now();
    let Some(ws) = app.catalog.workspaces.get(form.workspace) else {
        app.toast("no workspace to spawn into", now);
        return true;
    };
    let workspace_id = ws.id.clone();
    let env = match form.env_pairs() {
        Ok(env) => env,
        Err((row, why)) => {
            form.row = FormRow::Env(row);
            app.toast(why, now);
            return false;
        }
    };
    // Read as a shell reads it: quotes; pipes and `$VAR` through `sh -c`.
    let argv = match crate::shell_line::argv(&form.command.text) {
        Ok(argv) => argv,
        Err(why) => {
            form.row = FormRow::Command;
            app.toast(format!("the command: {why}"), now);
            return false;
        }
    };
    let title = form.label.text.trim().to_owned();
    let area = crate::regions::regions(app).panes;
    let (cols, rows) = (area.width, area.height.saturating_sub(1));
    let checkout = match form.checkout {
        0 => None,
        1 => {
            let branch = form.branch.text.trim().to_owned();
            if branch.is_empty() {
                form.row = FormRow::Branch;
                app.toast("a new worktree needs a branch name", now);
                return false;
            }
            Some(Checkout::New { branch })
        }
        n => match &form.worktrees {
            Worktrees::Loaded(list) => list.get(n - 2).map(|w| Checkout::Existing {
                path: w.path.clone(),
            }),
            _ => None,
        },
    };
    fx.push(Effect::Request(match checkout {
        None => Request::Spawn {
            workspace_id,
            tab_id: String::new(),
            argv,
            cwd: form.cwd.text.trim().to_owned(),
            title,
            env,
            cols,
            rows,
        },
        Some(checkout) => {
            let what = match &checkout {
                Checkout::New { branch } => format!("creating a worktree on {branch}…"),
                Checkout::Existing { path } => format!("opening {}…", crate::git::display(path)),
            };
            app.toast(what, now);
            Request::Git(GitRequest::SpawnInWorktree(WorktreeSpawn {
                workspace_id,
                checkout,
                argv,
                title,
                env,
                cols,
                rows,
            }))
        }
    }));
    true
}

/// Starts the race; returns whether the form is done (false: a mistake was shown).
fn submit_race(app: &mut App, form: &mut SpawnForm, fx: &mut Vec<Effect>) -> bool {
    let now = Instant::now();
    let Some(ws) = app.catalog.workspaces.get(form.workspace) else {
        app.toast("no workspace to race from", now);
        return true;
    };
    let workspace_id = ws.id.clone();
    let agents: Vec<String> = form
        .agents
        .text
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    if agents.is_empty() {
        form.row = FormRow::Agents;
        app.toast("a race needs at least one agent (e.g. `claude codex`)", now);
        return false;
    }
    let copies = match form.copies.text.trim() {
        "" => 1,
        n => match n.parse::<u32>() {
            Ok(n) if n > 0 => n,
            _ => {
                form.row = FormRow::Copies;
                app.toast(format!("copies is a number from 1, not {n:?}"), now);
                return false;
            }
        },
    };
    let prompt = form.prompt.text.trim().to_owned();
    if prompt.is_empty() {
        form.row = FormRow::Prompt;
        app.toast("a race needs a prompt: the task every agent gets", now);
        return false;
    }
    let race = crate::race_view::NewRace {
        agents,
        copies,
        prompt,
        base: form.base.text.trim().to_owned(),
        check_command: form.check.text.trim().to_owned(),
    };
    fx.push(Effect::Request(Request::Race(
        crate::race_view::RaceRequest::Start { workspace_id, race },
    )));
    crate::race_view::open(app, fx);
    true
}

/// The chain's pane landed: show its workspace (known before its event arrives: the reply
/// carries it) and focus the pane.
pub fn on_spawned(app: &mut App, reply: GitReply, now: Instant) {
    let GitReply::SpawnedInWorktree {
        workspace,
        tab_id,
        pane_id,
        note,
    } = reply
    else {
        return;
    };
    let ws_id = workspace.id.clone();
    if app.catalog.workspace(&ws_id).is_none() {
        app.catalog.workspaces.push(*workspace);
    }
    app.workspace = Some(ws_id.clone());
    app.active_tab.insert(ws_id, tab_id.clone());
    app.active_pane.insert(tab_id, pane_id);
    app.focus = crate::app::Focus::Panes;
    app.toast(note, now);
}

#[cfg(test)]
#[path = "spawn_tests.rs"]
mod tests;
