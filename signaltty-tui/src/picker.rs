//! The picker (tmux's `choose-tree`, prefix `s` / `w`): every workspace, its tabs and their
//! panes — each pane with its agent-state glyph and label — in one list, filtered as one types.
//! A row shows when its text or a row under it matches, so a match keeps its workspace and tab
//! above it; Enter goes there. Up/Down (or ctrl-p/ctrl-n) move, Esc closes.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::{App, Effect, Picker, Row};
use crate::navigate::open_row;

/// Opens the picker on the row of the focused pane.
pub fn open(app: &App) -> Picker {
    let mut picker = Picker::default();
    let focused = app.focused_pane().map(|p| Row::Pane(p.id.clone()));
    picker.selected = rows(app, &picker)
        .iter()
        .position(|(row, _, _)| Some(row) == focused.as_ref())
        .unwrap_or(0);
    picker
}

/// The rows shown: (row, depth, text), top to bottom.
pub fn rows(app: &App, picker: &Picker) -> Vec<(Row, u8, String)> {
    let needle = picker.filter.text.to_lowercase();
    let matches = |text: &str| needle.is_empty() || text.to_lowercase().contains(&needle);
    let mut out = Vec::new();
    for ws in &app.catalog.workspaces {
        let ws_text = workspace_text(ws);
        let mut tabs = Vec::new();
        for (i, tab) in app.catalog.tabs_of(ws).enumerate() {
            let tab_text = format!("{}:{}", i + 1, crate::names::tab_name(app, tab));
            let panes: Vec<(Row, u8, String)> = app
                .catalog
                .panes_of(tab)
                .map(|p| (Row::Pane(p.id.clone()), 2, pane_text(p)))
                .filter(|(_, _, text)| matches(text))
                .collect();
            if matches(&tab_text) || !panes.is_empty() {
                tabs.push((Row::Tab(tab.id.clone()), 1, tab_text));
                tabs.extend(panes);
            }
        }
        if matches(&ws_text) || !tabs.is_empty() {
            out.push((Row::Workspace(ws.id.clone()), 0, ws_text));
            out.extend(tabs);
        }
    }
    out
}

fn workspace_text(ws: &signaltty_proto::v1::Workspace) -> String {
    match ws.git.as_ref().filter(|g| !g.branch.is_empty()) {
        Some(git) => format!("{}  {}", ws.name, git.branch),
        None => ws.name.clone(),
    }
}

/// A pane's row: its glyph, its label (the title, else the agent or the command) and its
/// badge.
pub fn pane_text(pane: &signaltty_proto::v1::Pane) -> String {
    let (glyph, _) = crate::view::glyph(pane);
    let mut text = format!("{glyph} {}", crate::names::label(pane));
    if let Some(badge) = crate::view::badge(pane) {
        text.push_str("  ");
        text.push_str(badge);
    }
    text
}

/// A key in the picker; returns whether it stays open.
pub fn on_key(app: &mut App, picker: &mut Picker, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let shown = rows(app, picker);
    match key.code {
        KeyCode::Esc => return false,
        KeyCode::Char('c' | 'g') if ctrl => return false,
        KeyCode::Enter => {
            if let Some((row, ..)) = shown.get(picker.selected) {
                open_row(app, row, fx);
            }
            return false;
        }
        KeyCode::Up => picker.selected = picker.selected.saturating_sub(1),
        KeyCode::Char('p') if ctrl => picker.selected = picker.selected.saturating_sub(1),
        KeyCode::Down => picker.selected += 1,
        KeyCode::Char('n') if ctrl => picker.selected += 1,
        _ => {
            if crate::field::edit(&mut picker.filter, &key) {
                // The best match of what was typed: the first row that matches itself (not
                // only through a row under it), else the first row.
                let needle = picker.filter.text.to_lowercase();
                picker.selected = rows(app, picker)
                    .iter()
                    .position(|(_, _, text)| {
                        !needle.is_empty() && text.to_lowercase().contains(&needle)
                    })
                    .unwrap_or(0);
            }
        }
    }
    let len = rows(app, picker).len();
    picker.selected = picker.selected.min(len.saturating_sub(1));
    true
}
