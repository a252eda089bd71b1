//! The command prompt (prefix `:`): any action by its name (`ToggleZoom`, `ResizePane(Left,
//! 10)`, as in the config file), or one of tmux's commands for what the TUI can do
//! (`split-window -h`, `select-window -t 3`, `rename-window api`, `resize-pane -L 5`…). Enter
//! runs it, Esc cancels; anything else it cannot read is a toast saying so, and nothing
//! happens.

use crate::geometry::Dir;

use crate::action::{Action, Target};

/// What a command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// An action, as if its key was pressed.
    Action(Action),
    /// A race started from the prompt: `race-start AGENT… [-n N] -- TASK`.
    StartRace(crate::race_view::NewRace),
    /// A rename with its new name given on the line.
    Rename {
        /// What is renamed.
        target: Target,
        /// The new name.
        name: String,
    },
}

/// Reads a command line.
pub fn parse(line: &str) -> Result<Command, String> {
    let line = line.trim();
    if let Ok(action) = line.parse::<Action>() {
        return Ok(Command::Action(action));
    }
    if let Some(rest) = line
        .strip_prefix("race-start ")
        .or_else(|| line.strip_prefix("new-race "))
    {
        return crate::race_view::parse_start(rest).map(Command::StartRace);
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&name, args)) = words.split_first() else {
        return Err("empty command".into());
    };
    let flag = |f: &str| args.contains(&f);
    let number = || args.iter().find_map(|a| a.parse::<u8>().ok());
    let rest = || {
        args.iter()
            .filter(|a| !a.starts_with('-'))
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let dir = || {
        [
            ("-L", Dir::Left),
            ("-R", Dir::Right),
            ("-U", Dir::Up),
            ("-D", Dir::Down),
        ]
        .into_iter()
        .find(|(f, _)| flag(f))
        .map(|(_, d)| d)
    };
    let action = match name {
        "split-window" | "splitw" if flag("-h") => Action::SplitHorizontal,
        "split-window" | "splitw" => Action::SplitVertical,
        "new-window" | "neww" => Action::NewTab,
        "kill-pane" | "killp" => Action::ClosePane,
        "kill-window" | "killw" => Action::CloseTab,
        "next-window" | "next" => Action::NextTab,
        "previous-window" | "prev" => Action::PrevTab,
        "last-window" | "last" => Action::LastTab,
        "last-pane" | "lastp" => Action::LastPane,
        "switch-client" | "switchc" if flag("-n") => Action::NextWorkspace,
        "switch-client" | "switchc" if flag("-p") => Action::PrevWorkspace,
        "switch-client" | "switchc" if flag("-l") => Action::LastWorkspace,
        "select-window" | "selectw" => match number() {
            Some(n) if n > 0 => Action::GotoTab(n),
            _ => return Err("select-window -t N (N from 1)".into()),
        },
        "select-pane" | "selectp" => match dir() {
            Some(d) => Action::FocusPane(d),
            None => return Err("select-pane -L, -R, -U or -D".into()),
        },
        "resize-pane" | "resizep" if flag("-Z") => Action::ToggleZoom,
        "resize-pane" | "resizep" => match dir() {
            Some(d) => Action::ResizePane(d, number().unwrap_or(1).max(1)),
            None => return Err("resize-pane -L, -R, -U or -D [N], or -Z".into()),
        },
        "swap-pane" | "swapp" if flag("-U") => Action::SwapPrev,
        "swap-pane" | "swapp" => Action::SwapNext,
        "rotate-window" | "rotatew" if flag("-D") => Action::RotatePanesBack,
        "rotate-window" | "rotatew" => Action::RotatePanes,
        "break-pane" | "breakp" => Action::MovePane,
        "choose-tree" | "choose-window" | "choose-session" => Action::ShowPicker,
        "display-panes" | "displayp" => Action::ShowPaneNumbers,
        "copy-mode" => Action::ScrollBack,
        "paste-buffer" | "pasteb" => Action::PasteBuffer,
        "list-keys" | "lsk" => Action::ShowHelp,
        "detach-client" | "detach" => Action::Quit,
        "refresh-client" | "refresh" => Action::Redraw,
        "rename-window" | "renamew" | "rename-session" | "rename" | "rename-pane" => {
            let target = match name {
                "rename-window" | "renamew" => Target::Tab,
                "rename-pane" => Target::Pane,
                _ => Target::Workspace,
            };
            let name = rest();
            if name.is_empty() {
                Action::Rename(target)
            } else {
                return Ok(Command::Rename { target, name });
            }
        }
        "spawn" | "new-agent" => Action::OpenSpawnModal,
        "diff" => Action::ShowDiff,
        "race" | "races" => Action::ShowRaces,
        "answer" | "decision" => Action::FocusDecision,
        "notifications" => Action::ShowNotifications,
        "next-attention" => Action::NextAttention,
        "resume" => Action::ResumePane,
        "resume-all" => Action::ResumeAll,
        "sidebar" => Action::ToggleSidebar,
        _ => return Err(format!("unknown command: {line}")),
    };
    Ok(Command::Action(action))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmux_commands_and_action_names_are_read() {
        for (line, want) in [
            ("split-window -h", Command::Action(Action::SplitHorizontal)),
            ("splitw", Command::Action(Action::SplitVertical)),
            ("select-window -t 3", Command::Action(Action::GotoTab(3))),
            (
                "resize-pane -L 5",
                Command::Action(Action::ResizePane(Dir::Left, 5)),
            ),
            ("resize-pane -Z", Command::Action(Action::ToggleZoom)),
            ("ToggleZoom", Command::Action(Action::ToggleZoom)),
            (
                "ResizePane(Up, 3)",
                Command::Action(Action::ResizePane(Dir::Up, 3)),
            ),
            (
                "rename-window my tab",
                Command::Rename {
                    target: Target::Tab,
                    name: "my tab".into(),
                },
            ),
        ] {
            assert_eq!(parse(line), Ok(want), "{line}");
        }
        assert!(parse("frobnicate").unwrap_err().contains("unknown command"));
        assert!(parse("select-pane").is_err());
    }
}
