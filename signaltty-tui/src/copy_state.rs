//! Copy mode's state over one pane (its lines, cursor, selection, search): what the app holds
//! while copy mode is open. Its motions (`impl CopyMode`) and keys are [`crate::copy_mode`]; the
//! state sits below the app.

use crate::field::Field;
use crate::styled::StyledLine;
use crate::tui_options::CopyKeys;

/// What a selection covers between its anchor and the cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectKind {
    /// Reading order, from one character to the other.
    Char,
    /// Whole lines.
    Line,
    /// The rectangle the two corners span (tmux's rectangle-toggle, vim's `C-v`).
    Block,
}

/// Which way a search goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Towards the newest line.
    Forward,
    /// Towards the oldest line.
    Backward,
}

/// A place in the history: line (oldest first) and character column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Point {
    /// The line.
    pub line: usize,
    /// The column, in characters.
    pub col: usize,
}

/// The state of copy mode over one pane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CopyMode {
    /// The pane.
    pub pane_id: String,
    /// Plain text per line, oldest first (empty until loaded).
    pub lines: Vec<String>,
    /// The same lines with their colours.
    pub styled: Vec<StyledLine>,
    /// Whether the history arrived.
    pub loaded: bool,
    /// The key style.
    pub keys: CopyKeys,
    /// The cursor.
    pub cursor: Point,
    /// The first line shown.
    pub top: usize,
    /// The pane's cursor column when copy mode opened (where the cursor starts once loaded).
    pub start_col: usize,
    /// Where the selection began, and its kind; none while only moving.
    pub anchor: Option<(Point, SelectKind)>,
    /// A search being typed.
    pub prompt: Option<(Dir, Field)>,
    /// The last search, for `n` / `N` and the highlight.
    pub search: Option<(String, Dir)>,
}
