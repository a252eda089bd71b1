//! `Action`: the closed set of verbs the TUI knows. Keymaps, mouse bindings and the help
//! overlay all speak in these; an action's text form (`FocusPane(Left)`, `GotoTab(3)`) is what
//! the config file names.

use std::fmt;

use crate::geometry::Dir;

/// What a rename prompt renames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The focused pane.
    Pane,
    /// The current tab.
    Tab,
    /// The current workspace.
    Workspace,
}

/// Every action a binding can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Send keys to the focused pane.
    EnterInsert,
    /// Back to Normal mode.
    LeaveInsert,
    /// Send the leader (the prefix) itself to the pane and return to typing (`prefix prefix`).
    SendLeader,
    /// Move focus to the sidebar.
    FocusSidebar,
    /// Move focus geometrically.
    FocusPane(Dir),
    /// Open what the sidebar highlights (workspace, tab or pane).
    AttachHighlighted,
    /// Open the highlighted row, or fold/unfold it when it is a workspace.
    ToggleAttachHighlighted,
    /// Move the sidebar highlight.
    SidebarDown,
    /// Move the sidebar highlight.
    SidebarUp,
    /// Open the spawn form.
    OpenSpawnModal,
    /// Close the focused (or highlighted) pane, after a confirmation no binding can skip.
    KillHighlighted,
    /// A new tab with a shell.
    NewTab,
    /// Close the current tab (confirmed).
    CloseTab,
    /// Next tab.
    NextTab,
    /// Previous tab.
    PrevTab,
    /// Tab `n` (1-based). Never a decision's answer: a digit that means "go to a tab" must not
    /// approve a permission.
    GotoTab(u8),
    /// Split the focused pane side by side.
    SplitHorizontal,
    /// Split the focused pane stacked.
    SplitVertical,
    /// Close the focused pane (confirmed).
    ClosePane,
    /// Move the nearest divider on that side of the focused pane by `n` cells.
    ResizePane(Dir, u8),
    /// Show or hide the sidebar.
    ToggleSidebar,
    /// The help overlay.
    ShowHelp,
    /// Leave the TUI (panes keep running: quitting is detaching).
    Quit,
    /// Answer the focused pane's pending decision with option `n` (1-based).
    AnswerDecision(u8),
    /// Focus the pane that most needs the user.
    NextAttention,
    /// Clear the focused pane's attention.
    MarkSeen,
    /// The list of unread notifications.
    ShowNotifications,
    /// Rename something.
    Rename(Target),
    /// Re-spawn a restored pane.
    ResumePane,
    /// Re-spawn every dead or restored pane of the workspace (`crate::respawn`).
    ResumeAll,
    /// The scroll view over the pane's history.
    ScrollBack,
    /// Move the focused pane to a new tab.
    MovePane,
    /// The focused workspace's changes against HEAD (files and hunks).
    ShowDiff,
    /// The race view: the newest race's entries, their agents and changes.
    ShowRaces,
    /// Mouse: focus the pane under the pointer.
    FocusPaneAtCursor,
    /// Mouse: go to the tab under the pointer.
    GotoTabAtCursor,
    /// Mouse: highlight the sidebar row under the pointer.
    HighlightSidebarRow,
    /// Mouse: drag the divider under the pointer.
    ResizePaneByDrag,
    /// Mouse: answer the decision option under the pointer (on its pane or in the sidebar).
    AnswerAtCursor,
    /// Focus the focused pane's pending decision box: only then do its keys (digits, arrows,
    /// Enter) answer it.
    FocusDecision,
    /// Zoom the focused pane to the whole pane area, or back (per tab, like tmux's `z`).
    ToggleZoom,
    /// Swap the focused pane with the previous one in layout order (tmux `{`).
    SwapPrev,
    /// Swap the focused pane with the next one in layout order (tmux `}`).
    SwapNext,
    /// Rotate the tab's panes forward through their places (tmux `C-o`).
    RotatePanes,
    /// Rotate the tab's panes backward (tmux `M-o`).
    RotatePanesBack,
    /// Focus the next pane in layout order (tmux `o`).
    FocusNextPane,
    /// The pane focused before this one in the tab (tmux `;`).
    LastPane,
    /// The tab shown before this one in the workspace (tmux `l`).
    LastTab,
    /// The workspace shown before this one (tmux `L`).
    LastWorkspace,
    /// The next workspace (tmux `)`).
    NextWorkspace,
    /// The previous workspace (tmux `(`).
    PrevWorkspace,
    /// The picker: workspaces, tabs and panes, filtered as one types (tmux `s` / `w`).
    ShowPicker,
    /// Numbers over the panes; a digit jumps to that pane (tmux `q`).
    ShowPaneNumbers,
    /// Paste the last copied text into the focused pane (tmux `]`).
    PasteBuffer,
    /// Draw the whole screen again (tmux `r`).
    Redraw,
    /// A prompt for any action by name, or a few of tmux's commands (tmux `:`).
    CommandPrompt,
    /// Explicitly nothing (unbinds a default).
    Noop,
}

/// The action names without parameters, for parsing and the help overlay.
const SIMPLE: &[(&str, Action)] = &[
    ("EnterInsert", Action::EnterInsert),
    ("LeaveInsert", Action::LeaveInsert),
    ("SendLeader", Action::SendLeader),
    ("FocusSidebar", Action::FocusSidebar),
    ("AttachHighlighted", Action::AttachHighlighted),
    ("ToggleAttachHighlighted", Action::ToggleAttachHighlighted),
    ("SidebarDown", Action::SidebarDown),
    ("SidebarUp", Action::SidebarUp),
    ("OpenSpawnModal", Action::OpenSpawnModal),
    ("KillHighlighted", Action::KillHighlighted),
    ("NewTab", Action::NewTab),
    ("CloseTab", Action::CloseTab),
    ("NextTab", Action::NextTab),
    ("PrevTab", Action::PrevTab),
    ("SplitHorizontal", Action::SplitHorizontal),
    ("SplitVertical", Action::SplitVertical),
    ("ClosePane", Action::ClosePane),
    ("ToggleSidebar", Action::ToggleSidebar),
    ("ShowHelp", Action::ShowHelp),
    ("Quit", Action::Quit),
    ("NextAttention", Action::NextAttention),
    ("MarkSeen", Action::MarkSeen),
    ("ShowNotifications", Action::ShowNotifications),
    ("ResumePane", Action::ResumePane),
    ("ResumeAll", Action::ResumeAll),
    ("ScrollBack", Action::ScrollBack),
    ("MovePane", Action::MovePane),
    ("ShowDiff", Action::ShowDiff),
    ("ShowRaces", Action::ShowRaces),
    ("FocusPaneAtCursor", Action::FocusPaneAtCursor),
    ("GotoTabAtCursor", Action::GotoTabAtCursor),
    ("HighlightSidebarRow", Action::HighlightSidebarRow),
    ("ResizePaneByDrag", Action::ResizePaneByDrag),
    ("AnswerAtCursor", Action::AnswerAtCursor),
    ("FocusDecision", Action::FocusDecision),
    ("ToggleZoom", Action::ToggleZoom),
    ("SwapPrev", Action::SwapPrev),
    ("SwapNext", Action::SwapNext),
    ("RotatePanes", Action::RotatePanes),
    ("RotatePanesBack", Action::RotatePanesBack),
    ("FocusNextPane", Action::FocusNextPane),
    ("LastPane", Action::LastPane),
    ("LastTab", Action::LastTab),
    ("LastWorkspace", Action::LastWorkspace),
    ("NextWorkspace", Action::NextWorkspace),
    ("PrevWorkspace", Action::PrevWorkspace),
    ("ShowPicker", Action::ShowPicker),
    ("ShowPaneNumbers", Action::ShowPaneNumbers),
    ("PasteBuffer", Action::PasteBuffer),
    ("Redraw", Action::Redraw),
    ("CommandPrompt", Action::CommandPrompt),
    ("Noop", Action::Noop),
];

impl Action {
    /// Whether the action repeats without the leader for a moment after it fired behind it
    /// (tmux's `-r` bindings: moving the focus and resizing).
    pub fn repeats(self) -> bool {
        matches!(self, Action::FocusPane(_) | Action::ResizePane(..))
    }
}

/// Every action without parameters, by name (the command prompt's completion and the tests).
pub fn simple_actions() -> impl Iterator<Item = (&'static str, Action)> {
    SIMPLE.iter().copied()
}

fn dir_name(dir: Dir) -> &'static str {
    match dir {
        Dir::Left => "Left",
        Dir::Right => "Right",
        Dir::Up => "Up",
        Dir::Down => "Down",
    }
}

fn parse_dir(s: &str) -> Option<Dir> {
    match s.trim() {
        "Left" => Some(Dir::Left),
        "Right" => Some(Dir::Right),
        "Up" => Some(Dir::Up),
        "Down" => Some(Dir::Down),
        _ => None,
    }
}

fn parse_n(s: &str) -> Option<u8> {
    s.trim().parse::<u8>().ok().filter(|n| (1..=99).contains(n))
}

impl std::str::FromStr for Action {
    type Err = String;

    /// `Name` or `Name(args)`, as in the config file.
    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Some((_, action)) = SIMPLE.iter().find(|(name, _)| *name == text) {
            return Ok(*action);
        }
        let unknown = || format!("unknown action {text:?}");
        let (name, args) = text
            .strip_suffix(')')
            .and_then(|t| t.split_once('('))
            .ok_or_else(unknown)?;
        let bad = || format!("bad arguments in {text:?}");
        match name {
            "FocusPane" => parse_dir(args).map(Action::FocusPane).ok_or_else(bad),
            "GotoTab" => parse_n(args).map(Action::GotoTab).ok_or_else(bad),
            "AnswerDecision" => parse_n(args).map(Action::AnswerDecision).ok_or_else(bad),
            "ResizePane" => {
                let (dir, n) = args.split_once(',').ok_or_else(bad)?;
                match (parse_dir(dir), parse_n(n)) {
                    (Some(dir), Some(n)) => Ok(Action::ResizePane(dir, n)),
                    _ => Err(bad()),
                }
            }
            "Rename" => match args.trim() {
                "Pane" => Ok(Action::Rename(Target::Pane)),
                "Tab" => Ok(Action::Rename(Target::Tab)),
                "Workspace" => Ok(Action::Rename(Target::Workspace)),
                _ => Err(bad()),
            },
            _ => Err(unknown()),
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((name, _)) = SIMPLE.iter().find(|(_, a)| a == self) {
            return f.write_str(name);
        }
        match self {
            Action::FocusPane(dir) => write!(f, "FocusPane({})", dir_name(*dir)),
            Action::GotoTab(n) => write!(f, "GotoTab({n})"),
            Action::AnswerDecision(n) => write!(f, "AnswerDecision({n})"),
            Action::ResizePane(dir, n) => write!(f, "ResizePane({}, {n})", dir_name(*dir)),
            Action::Rename(target) => write!(f, "Rename({target:?})"),
            other => write!(f, "{other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_round_trips_through_its_text() {
        let mut all: Vec<Action> = SIMPLE.iter().map(|(_, a)| *a).collect();
        for dir in [Dir::Left, Dir::Right, Dir::Up, Dir::Down] {
            all.push(Action::FocusPane(dir));
            all.push(Action::ResizePane(dir, 5));
        }
        all.extend([
            Action::GotoTab(3),
            Action::AnswerDecision(2),
            Action::Rename(Target::Pane),
            Action::Rename(Target::Tab),
            Action::Rename(Target::Workspace),
        ]);
        for action in all {
            assert_eq!(action.to_string().parse::<Action>(), Ok(action));
        }
    }

    #[test]
    fn bad_names_and_arguments_are_refused_with_the_text() {
        for (text, wanted) in [
            ("Frobnicate", "unknown action"),
            ("FocusPane(Sideways)", "bad arguments"),
            ("GotoTab(0)", "bad arguments"),
            ("ResizePane(Left)", "bad arguments"),
            ("Rename(Server)", "bad arguments"),
            ("Nope(1)", "unknown action"),
        ] {
            let err = text.parse::<Action>().expect_err(text);
            assert!(err.contains(wanted) && err.contains(text), "{err}");
        }
    }
}
