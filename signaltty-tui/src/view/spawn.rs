//! Draws the spawn form ([`crate::spawn`]): one row per choice or field, the env as one
//! `KEY=VALUE` row each, and a hint line for the keys.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

use super::boxes::{boxed, text_field};
use super::put;
use crate::app::{App, Field};
use crate::spawn_form::{FormRow, SpawnForm, Worktrees};

/// Draws the form.
pub fn draw(app: &App, form: &SpawnForm, buf: &mut Buffer) {
    let rows = form.rows();
    let height = u16::try_from(rows.len() + 5).unwrap_or(u16::MAX);
    let title = if form.is_race() {
        "start a race — enter: start, esc: cancel, tab: next field"
    } else {
        "spawn a pane — enter: start, esc: cancel, tab: next field"
    };
    let inner = boxed(buf, title, 72, height);
    let label_w = 10;
    let field_w = inner.width.saturating_sub(label_w);
    let bold = Style::default().add_modifier(Modifier::BOLD);
    for (i, row) in rows.iter().enumerate() {
        let y = inner.y + u16::try_from(i).unwrap_or(0);
        let active = *row == form.row;
        let (label, field) = match row {
            FormRow::Workspace => {
                let ws = app
                    .catalog
                    .workspaces
                    .get(form.workspace)
                    .map(|w| format!("◂ {} ▸", crate::git::display(&w.name)))
                    .unwrap_or_else(|| "(none)".into());
                ("workspace".to_owned(), Field { text: ws })
            }
            FormRow::Checkout => {
                let note = match &form.worktrees {
                    Worktrees::Loading => "  (listing worktrees…)".to_owned(),
                    Worktrees::Unavailable(why) => format!("  ({})", crate::git::display(why)),
                    Worktrees::Loaded(_) => String::new(),
                };
                let text = format!("◂ {} ▸{note}", form.checkout_text());
                ("checkout".to_owned(), Field { text })
            }
            FormRow::Branch => ("branch".to_owned(), form.branch.clone()),
            FormRow::Cwd => ("cwd".to_owned(), form.cwd.clone()),
            FormRow::Command => ("command".to_owned(), form.command.clone()),
            FormRow::Label => ("label".to_owned(), form.label.clone()),
            FormRow::Agents => ("agents".to_owned(), form.agents.clone()),
            FormRow::Copies => ("copies".to_owned(), form.copies.clone()),
            FormRow::Base => ("base".to_owned(), form.base.clone()),
            FormRow::Check => ("check".to_owned(), form.check.clone()),
            FormRow::Prompt => (
                "prompt".to_owned(),
                Field {
                    text: form.prompt.text.replace('\n', "↵"),
                },
            ),
            FormRow::Env(n) => (
                if *n == 0 {
                    "env".to_owned()
                } else {
                    String::new()
                },
                form.env.get(*n).cloned().unwrap_or_default(),
            ),
        };
        put(buf, inner.x, y, &label, label_w, bold);
        let is_choice = matches!(row, FormRow::Workspace | FormRow::Checkout);
        text_field(
            buf,
            inner.x + label_w,
            y,
            field_w,
            &field,
            active && !is_choice,
        );
        let last_env = *row == FormRow::Env(form.env.len().saturating_sub(1));
        if last_env && !active && field.text.is_empty() {
            put(
                buf,
                inner.x + label_w,
                y,
                "+ KEY=VALUE",
                field_w,
                Style::default().fg(Color::DarkGray),
            );
        }
        if active && is_choice {
            put(
                buf,
                inner.x + label_w,
                y,
                &field.text,
                field_w,
                Style::default().bg(Color::DarkGray).fg(Color::White),
            );
        }
    }
    let hint_y = inner.y + u16::try_from(rows.len() + 1).unwrap_or(0);
    let hints = if form.is_race() {
        [
            "agents: names, space-separated · copies: of each (1) · base: HEAD",
            "check: run in each worktree to compare · prompt: ctrl-j new line",
        ]
    } else {
        [
            "◂ ▸ change a choice · command empty: a shell",
            "env: KEY=VALUE per row · ctrl-n: add row · ctrl-d: drop row",
        ]
    };
    let placeholder = |row: &FormRow| match row {
        FormRow::Copies => Some("1"),
        FormRow::Base => Some("HEAD"),
        FormRow::Check => Some("(none) e.g. cargo test"),
        _ => None,
    };
    for (i, row) in rows.iter().enumerate() {
        let y = inner.y + u16::try_from(i).unwrap_or(0);
        let empty = match row {
            FormRow::Copies => form.copies.text.is_empty(),
            FormRow::Base => form.base.text.is_empty(),
            FormRow::Check => form.check.text.is_empty(),
            _ => false,
        };
        if let Some(text) = placeholder(row).filter(|_| empty && *row != form.row) {
            put(
                buf,
                inner.x + label_w,
                y,
                text,
                field_w,
                Style::default().fg(Color::DarkGray),
            );
        }
    }
    for (i, hint) in hints.iter().enumerate() {
        put(
            buf,
            inner.x,
            hint_y + u16::try_from(i).unwrap_or(0),
            hint,
            inner.width,
            Style::default().fg(Color::Gray),
        );
    }
}
