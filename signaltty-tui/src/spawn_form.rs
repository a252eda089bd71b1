//! The spawn form's state: its rows, the checkout choices (the workspace's own, a new worktree, an
//! existing one, a race) and the environment rows read as pairs. What keys do to it and what
//! submitting sends is [`crate::spawn`]; the state sits below the app, which holds the form.

use signaltty_proto::v1 as pb;

use crate::field::Field;
use crate::git::display;

/// The other checkouts of the form's repository, as ListWorktrees said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Worktrees {
    /// Not asked yet, or waiting.
    #[default]
    Loading,
    /// The workspace is not in a repository, or the list failed (why).
    Unavailable(String),
    /// The checkouts other than the workspace's own (and not missing).
    Loaded(Vec<pb::Worktree>),
}

/// A row of the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormRow {
    /// The workspace choice.
    Workspace,
    /// The checkout choice.
    Checkout,
    /// The new worktree's branch (only for a new worktree).
    Branch,
    /// The working directory (only in the current checkout).
    Cwd,
    /// The command.
    Command,
    /// The label.
    Label,
    /// Environment row `n`.
    Env(usize),
    /// A race's agents.
    Agents,
    /// A race's copies of each agent.
    Copies,
    /// A race's base revision.
    Base,
    /// A race's check command.
    Check,
    /// A race's prompt.
    Prompt,
}

/// The spawn form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnForm {
    /// Index into the catalog's workspaces.
    pub workspace: usize,
    /// 0: the workspace's checkout, 1: a new worktree, 2 + i: existing worktree `i`.
    pub checkout: usize,
    /// The new worktree's branch.
    pub branch: Field,
    /// The other checkouts.
    pub worktrees: Worktrees,
    /// Working directory (the workspace's when empty).
    pub cwd: Field,
    /// Command line, split on whitespace (a shell when empty).
    pub command: Field,
    /// Title.
    pub label: Field,
    /// `KEY=VALUE` rows; the last one is always empty.
    pub env: Vec<Field>,
    /// The row with the cursor.
    pub row: FormRow,
    /// A race's agents, space-separated.
    pub agents: Field,
    /// A race's copies of each agent (empty: 1).
    pub copies: Field,
    /// A race's base (empty: HEAD).
    pub base: Field,
    /// A race's check command (empty: none).
    pub check: Field,
    /// A race's prompt (may hold line breaks).
    pub prompt: Field,
}

impl Default for SpawnForm {
    fn default() -> Self {
        SpawnForm {
            workspace: 0,
            checkout: 0,
            branch: Field::default(),
            worktrees: Worktrees::Loading,
            cwd: Field::default(),
            command: Field::default(),
            label: Field::default(),
            env: vec![Field::default()],
            row: FormRow::Command,
            agents: Field {
                text: "claude".into(),
            },
            copies: Field::default(),
            base: Field::default(),
            check: Field::default(),
            prompt: Field::default(),
        }
    }
}

impl SpawnForm {
    /// The rows shown, top to bottom.
    pub fn rows(&self) -> Vec<FormRow> {
        let mut rows = vec![FormRow::Workspace, FormRow::Checkout];
        if self.is_race() {
            rows.extend([
                FormRow::Agents,
                FormRow::Copies,
                FormRow::Base,
                FormRow::Check,
                FormRow::Prompt,
            ]);
            return rows;
        }
        match self.checkout {
            0 => rows.push(FormRow::Cwd),
            1 => rows.push(FormRow::Branch),
            _ => {}
        }
        rows.extend([FormRow::Command, FormRow::Label]);
        rows.extend((0..self.env.len()).map(FormRow::Env));
        rows
    }

    /// How many checkout choices there are.
    pub fn checkouts(&self) -> usize {
        3 + match &self.worktrees {
            Worktrees::Loaded(list) => list.len(),
            _ => 0,
        }
    }

    /// The race choice is chosen (the last checkout choice).
    pub fn is_race(&self) -> bool {
        self.checkout == self.checkouts() - 1
    }

    /// The checkout choice as text.
    pub fn checkout_text(&self) -> String {
        if self.is_race() {
            return "race: a new worktree per agent, one prompt".into();
        }
        match self.checkout {
            0 => "current checkout".into(),
            1 => "new worktree".into(),
            n => match &self.worktrees {
                Worktrees::Loaded(list) => list
                    .get(n - 2)
                    .map(|w| {
                        let branch = if w.branch.is_empty() {
                            "detached"
                        } else {
                            &w.branch
                        };
                        format!("worktree {} ({branch})", display(&w.path))
                    })
                    .unwrap_or_default(),
                _ => String::new(),
            },
        }
    }

    /// The field a text row edits.
    pub fn field_mut(&mut self, row: FormRow) -> Option<&mut Field> {
        match row {
            FormRow::Branch => Some(&mut self.branch),
            FormRow::Cwd => Some(&mut self.cwd),
            FormRow::Command => Some(&mut self.command),
            FormRow::Label => Some(&mut self.label),
            FormRow::Env(i) => self.env.get_mut(i),
            FormRow::Agents => Some(&mut self.agents),
            FormRow::Copies => Some(&mut self.copies),
            FormRow::Base => Some(&mut self.base),
            FormRow::Check => Some(&mut self.check),
            FormRow::Prompt => Some(&mut self.prompt),
            FormRow::Workspace | FormRow::Checkout => None,
        }
    }

    /// Keeps exactly one empty env row at the end (rows emptied elsewhere stay until removed
    /// or submitted, so a row does not vanish under the cursor).
    pub fn tidy_env(&mut self) {
        while self.env.len() > 1
            && self.env.last().is_some_and(|f| f.text.is_empty())
            && self.env[self.env.len() - 2].text.is_empty()
            && self.row != FormRow::Env(self.env.len() - 1)
        {
            self.env.pop();
        }
        if self.env.last().is_none_or(|f| !f.text.is_empty()) {
            self.env.push(Field::default());
        }
    }

    pub fn step(&mut self, forward: bool) {
        let rows = self.rows();
        let n = rows.len();
        let i = rows.iter().position(|r| *r == self.row).unwrap_or(0);
        self.row = rows[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }];
    }

    /// The environment as pairs, or the first bad row (its index and why).
    pub fn env_pairs(&self) -> Result<Vec<(String, String)>, (usize, String)> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (i, field) in self.env.iter().enumerate() {
            let text = field.text.trim_start();
            if text.trim().is_empty() {
                continue;
            }
            let Some((key, value)) = text.split_once('=') else {
                return Err((i, format!("env rows are KEY=VALUE, not {text:?}")));
            };
            let key = key.trim_end();
            if key.is_empty() || key.contains(char::is_whitespace) {
                return Err((i, format!("{key:?} is not a variable name")));
            }
            if pairs.iter().any(|(k, _)| k == key) {
                return Err((i, format!("{key} is set twice")));
            }
            pairs.push((key.to_owned(), value.to_owned()));
        }
        Ok(pairs)
    }
}
