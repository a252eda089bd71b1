//! Keys while an overlay is open: it takes every key until dismissed. The confirmation has no
//! bindings at all (no keymap entry can answer it), so a destructive act always takes a `y`.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};

use crate::action::Target;
use crate::app::{App, Confirm, Effect, Overlay, Request};
use crate::field::edit;

/// Handles a key for the open overlay. Returns true when the overlay gave the key up (and
/// closed): the caller handles it as if no overlay had been open (returning it, rather than
/// calling back into `update`, keeps this module below `update`).
pub fn on_key(app: &mut App, key: KeyEvent, now: Instant, fx: &mut Vec<Effect>) -> bool {
    let Some(overlay) = app.overlay.take() else {
        return false;
    };
    let leader = crate::keys::token_of(&key).is_some_and(|t| t == app.keymap.leader);
    app.overlay = match overlay {
        Overlay::Help { offset } => help_key(offset, key),
        Overlay::Notifications => {
            crate::outer_notify::list_key(app, key, fx).then_some(Overlay::Notifications)
        }
        // The prefix leaves the decision box and starts a command.
        Overlay::Decision { .. } if leader => return true,
        Overlay::Decision {
            pane_id,
            decision_id,
            selected,
        } => decision_key(app, pane_id, decision_id, selected, key, now, fx),
        Overlay::Picker(mut picker) => {
            crate::picker::on_key(app, &mut picker, key, fx).then_some(Overlay::Picker(picker))
        }
        Overlay::PaneNumbers { .. } => {
            if !pane_number_key(app, key, fx) {
                // Any other key takes the numbers away and is handled as usual (the prefix
                // starts a command, a letter goes to the pane).
                return true;
            }
            None
        }
        Overlay::Prompt(mut field) => match key.code {
            KeyCode::Esc => None,
            KeyCode::Enter => {
                run_command(app, &field.text, now, fx);
                // A command may open an overlay of its own: keep it.
                return false;
            }
            _ => {
                edit(&mut field, &key);
                Some(Overlay::Prompt(field))
            }
        },
        Overlay::Confirm(what) => {
            if matches!(key.code, KeyCode::Char('y' | 'Y')) {
                fx.push(Effect::Request(match what {
                    Confirm::ClosePane(id) => Request::ClosePane(id),
                    Confirm::CloseTab(id) => Request::CloseTab(id),
                }));
            }
            None
        }
        Overlay::Rename {
            target,
            id,
            mut field,
        } => match key.code {
            KeyCode::Esc => None,
            KeyCode::Enter => {
                let name = field.text.trim().to_owned();
                if name.is_empty() {
                    app.toast("a name cannot be empty", now);
                } else {
                    fx.push(Effect::Request(Request::Rename { target, id, name }));
                }
                None
            }
            _ => {
                edit(&mut field, &key);
                Some(Overlay::Rename { target, id, field })
            }
        },
        Overlay::Spawn(mut form) => {
            if crate::spawn::on_key(app, &mut form, key, fx) {
                Some(Overlay::Spawn(form))
            } else {
                // A race started from it opened the race view.
                app.overlay.take()
            }
        }
        Overlay::Diff(mut view) => {
            if crate::diff::on_key(app, &mut view, key, fx) {
                Some(Overlay::Diff(view))
            } else if let Some(race) = view.race {
                // A race entry's diff goes back to the race view, on that entry.
                crate::race_view::reopen(app, &race.race_id, race.shown, fx);
                return false;
            } else {
                None
            }
        }
        Overlay::Copy(mut mode) => {
            // The prefix leaves copy mode and starts a command, as in the decision box.
            if leader {
                return true;
            }
            match crate::copy_mode::on_key(app, &mut mode, key, fx) {
                crate::copy_mode::Outcome::Stay => Some(Overlay::Copy(mode)),
                crate::copy_mode::Outcome::Leave => None,
            }
        }
        Overlay::Race(mut view) => {
            if crate::race_view::on_key(app, &mut view, key, fx) {
                Some(Overlay::Race(view))
            } else {
                // It may have opened another view (an entry's diff).
                app.overlay.take()
            }
        }
    };
    false
}

/// The help overlay: j/k, arrows, PgUp/PgDn and space scroll; any other key closes it.
fn help_key(offset: usize, key: KeyEvent) -> Option<Overlay> {
    let offset = match key.code {
        KeyCode::Char('j') | KeyCode::Down => offset + 1,
        KeyCode::Char('k') | KeyCode::Up => offset.saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char(' ') => offset + 10,
        KeyCode::PageUp => offset.saturating_sub(10),
        _ => return None,
    };
    Some(Overlay::Help { offset })
}

/// The focused decision box: a digit answers that option, Enter the highlighted one, arrows
/// (and `h` `l`, Tab) move the highlight, Esc or `q` leave it unanswered. The leader leaves it
/// and starts a prefix as usual. Any other key does nothing (it is not the pane's either: the
/// box has the keys until it is left).
fn decision_key(
    app: &mut App,
    pane_id: String,
    decision_id: String,
    selected: u8,
    key: KeyEvent,
    now: Instant,
    fx: &mut Vec<Effect>,
) -> Option<Overlay> {
    let options = app
        .catalog
        .panes
        .get(&pane_id)
        .and_then(|p| p.pending_decision.as_ref())
        .map_or(0, |d| u8::try_from(d.options.len()).unwrap_or(u8::MAX));
    let selected = match key.code {
        KeyCode::Char(c @ '1'..='9') => {
            let n = c as u8 - b'0';
            if n <= options {
                crate::actions::answer(app, &pane_id, n, now, fx);
                return None;
            }
            selected
        }
        KeyCode::Enter => {
            crate::actions::answer(app, &pane_id, selected, now, fx);
            return None;
        }
        KeyCode::Esc | KeyCode::Char('q') => return None,
        KeyCode::Left | KeyCode::Up | KeyCode::BackTab | KeyCode::Char('h' | 'k') => {
            selected.saturating_sub(1).max(1)
        }
        KeyCode::Right | KeyCode::Down | KeyCode::Tab | KeyCode::Char('l' | 'j') => {
            (selected + 1).min(options.max(1))
        }
        _ => selected,
    };
    Some(Overlay::Decision {
        pane_id,
        decision_id,
        selected,
    })
}

/// Pane numbers: a digit focuses that pane (numbered from 0 in layout order, as tmux does).
/// Returns whether the key was a digit.
fn pane_number_key(app: &mut App, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let KeyCode::Char(c @ '0'..='9') = key.code else {
        return false;
    };
    let n = usize::from(c as u8 - b'0');
    if let Some(tab) = app.current_tab()
        && let Some(pane) = tab.pane_ids.get(n)
    {
        let (ws, tab, pane) = (tab.workspace_id.clone(), tab.id.clone(), pane.clone());
        crate::navigate::go_to(app, Some(ws), Some(tab), Some(pane), fx);
    }
    true
}

/// Runs a command line from the prompt.
fn run_command(app: &mut App, line: &str, now: Instant, fx: &mut Vec<Effect>) {
    match crate::prompt::parse(line) {
        Ok(crate::prompt::Command::Action(action)) => {
            crate::actions::perform(app, action, None, now, fx);
        }
        Ok(crate::prompt::Command::Rename { target, name }) => {
            let id = match target {
                Target::Pane => app.focused_pane().map(|p| p.id.clone()),
                Target::Tab => app.current_tab().map(|t| t.id.clone()),
                Target::Workspace => app.workspace.clone(),
            };
            if let Some(id) = id {
                fx.push(Effect::Request(Request::Rename { target, id, name }));
            }
        }
        Ok(crate::prompt::Command::StartRace(race)) => {
            crate::race_view::start(app, race, now, fx);
        }
        Err(message) => app.toast(message, now),
    }
}
