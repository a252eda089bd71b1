//! Keys while an overlay is open: it takes every key until dismissed. The confirmation has no
//! bindings at all (no keymap entry can answer it), so a destructive act always takes a `y`.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::{App, Confirm, Effect, Field, Overlay, Request, ScrollView};

/// Handles a key for the open overlay.
pub fn on_key(app: &mut App, key: KeyEvent, now: Instant, fx: &mut Vec<Effect>) {
    let Some(overlay) = app.overlay.take() else {
        return;
    };
    app.overlay = match overlay {
        Overlay::Help | Overlay::Notifications => None,
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
            crate::spawn::on_key(app, &mut form, key, fx).then_some(Overlay::Spawn(form))
        }
        Overlay::Diff(mut view) => {
            crate::diff::on_key(app, &mut view, key, fx).then_some(Overlay::Diff(view))
        }
        Overlay::Scroll(mut view) => scroll_key(&mut view, key).then_some(Overlay::Scroll(view)),
    };
}

/// Edits a text field; returns whether the key was an edit.
pub fn edit(field: &mut Field, key: &KeyEvent) -> bool {
    match key.code {
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => field.text.clear(),
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => field.text.push(c),
        KeyCode::Backspace => {
            field.text.pop();
        }
        _ => return false,
    }
    true
}

/// The scroll view; returns whether it stays open.
fn scroll_key(view: &mut ScrollView, key: KeyEvent) -> bool {
    if let Some(search) = &mut view.search {
        match key.code {
            KeyCode::Esc => view.search = None,
            KeyCode::Enter => {
                view.last_search = search.text.clone();
                view.search = None;
                find(view);
            }
            _ => {
                edit(search, &key);
            }
        }
        return true;
    }
    let max = view.lines.len();
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc => return false,
        KeyCode::Char('k') | KeyCode::Up => view.offset = (view.offset + 1).min(max),
        KeyCode::Char('j') | KeyCode::Down => view.offset = view.offset.saturating_sub(1),
        KeyCode::PageUp | KeyCode::Char('b') => view.offset = (view.offset + 20).min(max),
        KeyCode::PageDown | KeyCode::Char(' ') => view.offset = view.offset.saturating_sub(20),
        KeyCode::Char('g') => view.offset = max,
        KeyCode::Char('G') => view.offset = 0,
        KeyCode::Char('/') => view.search = Some(Field::default()),
        KeyCode::Char('n') => find(view),
        _ => {}
    }
    true
}

/// Scrolls to the next match of the last search above the current bottom line.
fn find(view: &mut ScrollView) {
    if view.last_search.is_empty() {
        return;
    }
    let bottom = view.lines.len().saturating_sub(view.offset);
    let needle = view.last_search.to_lowercase();
    let hit = view.lines[..bottom.saturating_sub(1)]
        .iter()
        .rposition(|l| l.to_lowercase().contains(&needle));
    if let Some(i) = hit {
        view.offset = view.lines.len() - (i + 1);
    }
}
