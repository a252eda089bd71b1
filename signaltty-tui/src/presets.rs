//! The two shipped keymaps, chosen with `[tui] keys = "tmux" | "modal"`.
//!
//! - **tmux** (the default): every key goes to the focused pane from the first one; the TUI's
//!   own commands sit behind a prefix (`ctrl-b`), with tmux's key for every action tmux has, so
//!   years of tmux habits work unchanged. signaltty's own actions get prefix keys tmux leaves
//!   free. The sidebar, once focused (`prefix tab` or a click), takes plain keys to move.
//! - **modal**: the vim-like map the TUI started with — Normal mode for the TUI's keys, Insert
//!   mode (`i`) for the pane, `ctrl-a` between them.
//!
//! A digit is a tab's number in both: a decision is answered only in its focused box
//! (`FocusDecision`) or by a click on an option, never by a key that means something else too.

use crate::geometry::Dir;

use crate::action::{Action, Target};

/// Which shipped keymap the user's bindings are merged over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Preset {
    /// tmux's model: typing goes to the pane, commands behind the prefix.
    #[default]
    Tmux,
    /// Normal / Insert modes.
    Modal,
}

impl std::str::FromStr for Preset {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "tmux" => Ok(Preset::Tmux),
            "modal" => Ok(Preset::Modal),
            other => Err(format!(
                "unknown keys preset {other:?} (one of \"tmux\", \"modal\")"
            )),
        }
    }
}

impl Preset {
    /// The prefix (tmux) or leader (modal) key when the config names none.
    pub fn leader(self) -> &'static str {
        match self {
            Preset::Tmux => "ctrl-b",
            Preset::Modal => "ctrl-a",
        }
    }

    /// The shipped bindings of the typing table (`Table::Insert`).
    pub fn insert(self) -> Vec<(String, Action)> {
        match self {
            Preset::Tmux => prefixed(TMUX_PREFIX).chain(owned(MOUSE_TYPING)).collect(),
            Preset::Modal => owned(MODAL_INSERT).chain(owned(MOUSE_TYPING)).collect(),
        }
    }

    /// The shipped bindings of the other table (`Table::Normal`: the sidebar in tmux's
    /// model, Normal mode in the modal one).
    pub fn normal(self) -> Vec<(String, Action)> {
        match self {
            Preset::Tmux => prefixed(TMUX_PREFIX)
                .chain(owned(TMUX_SIDEBAR))
                .chain(owned(MOUSE_NORMAL))
                .collect(),
            Preset::Modal => owned(MODAL_NORMAL).chain(owned(MOUSE_NORMAL)).collect(),
        }
    }
}

fn owned(table: &'static [(&'static str, Action)]) -> impl Iterator<Item = (String, Action)> {
    table.iter().map(|(k, a)| ((*k).to_owned(), *a))
}

fn prefixed(table: &'static [(&'static str, Action)]) -> impl Iterator<Item = (String, Action)> {
    table.iter().map(|(k, a)| (format!("<leader> {k}"), *a))
}

/// What follows the prefix in the tmux preset: tmux's own key wherever tmux has the action.
pub const TMUX_PREFIX: &[(&str, Action)] = &[
    ("<leader>", Action::SendLeader),
    ("%", Action::SplitHorizontal),
    ("\"", Action::SplitVertical),
    ("left", Action::FocusPane(Dir::Left)),
    ("down", Action::FocusPane(Dir::Down)),
    ("up", Action::FocusPane(Dir::Up)),
    ("right", Action::FocusPane(Dir::Right)),
    ("o", Action::FocusNextPane),
    (";", Action::LastPane),
    ("ctrl-left", Action::ResizePane(Dir::Left, 1)),
    ("ctrl-down", Action::ResizePane(Dir::Down, 1)),
    ("ctrl-up", Action::ResizePane(Dir::Up, 1)),
    ("ctrl-right", Action::ResizePane(Dir::Right, 1)),
    ("alt-left", Action::ResizePane(Dir::Left, 5)),
    ("alt-down", Action::ResizePane(Dir::Down, 5)),
    ("alt-up", Action::ResizePane(Dir::Up, 5)),
    ("alt-right", Action::ResizePane(Dir::Right, 5)),
    ("z", Action::ToggleZoom),
    ("{", Action::SwapPrev),
    ("}", Action::SwapNext),
    ("ctrl-o", Action::RotatePanes),
    ("alt-o", Action::RotatePanesBack),
    ("x", Action::ClosePane),
    ("!", Action::MovePane),
    ("c", Action::NewTab),
    ("&", Action::CloseTab),
    ("n", Action::NextTab),
    ("p", Action::PrevTab),
    ("l", Action::LastTab),
    ("1", Action::GotoTab(1)),
    ("2", Action::GotoTab(2)),
    ("3", Action::GotoTab(3)),
    ("4", Action::GotoTab(4)),
    ("5", Action::GotoTab(5)),
    ("6", Action::GotoTab(6)),
    ("7", Action::GotoTab(7)),
    ("8", Action::GotoTab(8)),
    ("9", Action::GotoTab(9)),
    ("0", Action::GotoTab(10)),
    (",", Action::Rename(Target::Tab)),
    ("$", Action::Rename(Target::Workspace)),
    (".", Action::Rename(Target::Pane)),
    ("(", Action::PrevWorkspace),
    (")", Action::NextWorkspace),
    ("L", Action::LastWorkspace),
    ("s", Action::ShowPicker),
    ("w", Action::ShowPicker),
    ("[", Action::ScrollBack),
    ("pageup", Action::ScrollBack),
    ("]", Action::PasteBuffer),
    ("q", Action::ShowPaneNumbers),
    ("d", Action::Quit),
    ("?", Action::ShowHelp),
    (":", Action::CommandPrompt),
    ("r", Action::Redraw),
    // signaltty's own.
    ("a", Action::FocusDecision),
    ("A", Action::OpenSpawnModal),
    ("g", Action::ShowDiff),
    ("V", Action::ShowRaces),
    ("u", Action::NextAttention),
    ("m", Action::MarkSeen),
    ("N", Action::ShowNotifications),
    ("R", Action::ResumePane),
    ("alt-r", Action::ResumeAll),
    ("b", Action::ToggleSidebar),
    ("tab", Action::FocusSidebar),
];

/// The sidebar's plain keys in the tmux preset (it takes them only while focused).
const TMUX_SIDEBAR: &[(&str, Action)] = &[
    ("j", Action::FocusPane(Dir::Down)),
    ("k", Action::FocusPane(Dir::Up)),
    ("down", Action::FocusPane(Dir::Down)),
    ("up", Action::FocusPane(Dir::Up)),
    ("l", Action::FocusPane(Dir::Right)),
    ("right", Action::FocusPane(Dir::Right)),
    ("enter", Action::EnterInsert),
    ("h", Action::FocusPane(Dir::Left)),
    ("left", Action::FocusPane(Dir::Left)),
    ("x", Action::KillHighlighted),
    ("tab", Action::FocusSidebar),
    ("esc", Action::FocusSidebar),
    ("q", Action::FocusSidebar),
];

/// The mouse while typing (both presets).
const MOUSE_TYPING: &[(&str, Action)] = &[
    ("mouse:click(pane)", Action::FocusPaneAtCursor),
    ("mouse:click(decision-option)", Action::AnswerAtCursor),
    ("mouse:click(tab)", Action::GotoTabAtCursor),
    ("mouse:click(sidebar-row)", Action::HighlightSidebarRow),
    ("mouse:drag(split-divider)", Action::ResizePaneByDrag),
    ("mouse:wheel-up(pane)", Action::ScrollBack),
];

/// The mouse in the other table (both presets).
const MOUSE_NORMAL: &[(&str, Action)] = &[
    ("mouse:click(pane)", Action::FocusPaneAtCursor),
    ("mouse:click(tab)", Action::GotoTabAtCursor),
    ("mouse:click(sidebar-row)", Action::HighlightSidebarRow),
    ("mouse:click(decision-option)", Action::AnswerAtCursor),
    ("mouse:dblclick(sidebar-row)", Action::AttachHighlighted),
    ("mouse:drag(split-divider)", Action::ResizePaneByDrag),
    ("mouse:wheel-up(pane)", Action::ScrollBack),
];

/// The modal preset's Insert mode: only the leader is the TUI's.
const MODAL_INSERT: &[(&str, Action)] = &[("<leader>", Action::LeaveInsert)];

/// The modal preset's Normal mode.
pub const MODAL_NORMAL: &[(&str, Action)] = &[
    ("i", Action::EnterInsert),
    ("enter", Action::EnterInsert),
    ("<leader>", Action::SendLeader),
    ("tab", Action::FocusSidebar),
    ("h", Action::FocusPane(Dir::Left)),
    ("j", Action::FocusPane(Dir::Down)),
    ("k", Action::FocusPane(Dir::Up)),
    ("l", Action::FocusPane(Dir::Right)),
    ("left", Action::FocusPane(Dir::Left)),
    ("down", Action::FocusPane(Dir::Down)),
    ("up", Action::FocusPane(Dir::Up)),
    ("right", Action::FocusPane(Dir::Right)),
    ("ctrl-w h", Action::FocusPane(Dir::Left)),
    ("ctrl-w j", Action::FocusPane(Dir::Down)),
    ("ctrl-w k", Action::FocusPane(Dir::Up)),
    ("ctrl-w l", Action::FocusPane(Dir::Right)),
    ("%", Action::SplitHorizontal),
    ("\"", Action::SplitVertical),
    ("ctrl-w v", Action::SplitHorizontal),
    ("ctrl-w s", Action::SplitVertical),
    ("ctrl-w c", Action::ClosePane),
    ("x", Action::KillHighlighted),
    ("H", Action::ResizePane(Dir::Left, 4)),
    ("J", Action::ResizePane(Dir::Down, 2)),
    ("K", Action::ResizePane(Dir::Up, 2)),
    ("L", Action::ResizePane(Dir::Right, 4)),
    ("s", Action::OpenSpawnModal),
    ("t", Action::NewTab),
    ("X", Action::CloseTab),
    ("g t", Action::NextTab),
    ("g T", Action::PrevTab),
    ("1", Action::GotoTab(1)),
    ("2", Action::GotoTab(2)),
    ("3", Action::GotoTab(3)),
    ("4", Action::GotoTab(4)),
    ("5", Action::GotoTab(5)),
    ("6", Action::GotoTab(6)),
    ("7", Action::GotoTab(7)),
    ("8", Action::GotoTab(8)),
    ("9", Action::GotoTab(9)),
    ("a", Action::FocusDecision),
    ("n", Action::NextAttention),
    ("m", Action::MarkSeen),
    ("N", Action::ShowNotifications),
    ("/", Action::ScrollBack),
    ("r", Action::Rename(Target::Pane)),
    ("g r", Action::Rename(Target::Tab)),
    ("g w", Action::Rename(Target::Workspace)),
    ("R", Action::ResumePane),
    ("M", Action::MovePane),
    ("d", Action::ShowDiff),
    ("V", Action::ShowRaces),
    ("b", Action::ToggleSidebar),
    ("z", Action::ToggleZoom),
    ("w", Action::ShowPicker),
    (":", Action::CommandPrompt),
    ("ctrl-l", Action::Redraw),
    ("?", Action::ShowHelp),
    ("q", Action::Quit),
];
