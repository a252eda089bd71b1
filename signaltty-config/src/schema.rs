//! The schema: every key the file may hold, with its type, accepted range, default and meaning.
//! [`KEYS`] is the one list: the parser rejects what it does not name, unknown-key messages list
//! its keys, and a test checks that `docs/guide.md` documents each of them.

use std::fmt;

use serde::Serialize;

/// An agent kind that `[agents.<kind>]` may name (the same names as the API's agent kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    /// Claude Code.
    Claude,
    /// OpenAI's Codex CLI.
    Codex,
    /// OpenCode.
    Opencode,
    /// Cursor's CLI agent.
    Cursor,
    /// Any other program that reports through `signaltty hook-event`.
    Generic,
}

impl AgentKind {
    /// Every kind, in the order they are listed to users.
    pub const ALL: [AgentKind; 5] = [
        AgentKind::Claude,
        AgentKind::Codex,
        AgentKind::Opencode,
        AgentKind::Cursor,
        AgentKind::Generic,
    ];

    /// The name used in the file (`claude`).
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Codex => "codex",
            AgentKind::Opencode => "opencode",
            AgentKind::Cursor => "cursor",
            AgentKind::Generic => "generic",
        }
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<AgentKind> {
        AgentKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a key's value must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `true` or `false`.
    Bool,
    /// An integer in `min..=max`.
    Integer {
        /// Smallest accepted value.
        min: u64,
        /// Largest accepted value.
        max: u64,
    },
    /// A non-empty string without NUL bytes.
    Text,
    /// A detach key (`ctrl-X`, `C-X`, `^X`, `0xNN`).
    DetachKey,
    /// A window-size rule (`latest`, `largest`, `smallest`).
    WindowSize,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Bool => f.write_str("true or false"),
            Kind::Integer { min, max } => write!(f, "an integer from {min} to {max}"),
            Kind::Text => f.write_str("a non-empty string"),
            Kind::DetachKey => {
                f.write_str("a key such as \"ctrl-\\\\\", \"C-a\", \"^]\" or \"0x1d\"")
            }
            Kind::WindowSize => f.write_str("\"latest\", \"largest\" or \"smallest\""),
        }
    }
}

/// One key of the file.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The table it lives in: `server`, `agents.*` (any agent kind), `policy`, `attach`,
    /// `fast_paths`.
    pub section: &'static str,
    /// The key's name in that table.
    pub name: &'static str,
    /// Its type and range.
    pub kind: Kind,
    /// The default when the key is absent, as the user would write it (or a description).
    pub default: &'static str,
    /// What it does.
    pub doc: &'static str,
}

/// The sections a file may have at its top level.
pub const SECTIONS: [&str; 7] = [
    "server",
    "agents",
    "policy",
    "attach",
    "tui",
    "remotes",
    "fast_paths",
];

/// Every key, section by section.
pub const KEYS: &[Key] = &[
    Key {
        section: "server",
        name: "scrollback_lines",
        kind: Kind::Integer {
            min: 0,
            max: 1_000_000,
        },
        default: "10000",
        doc: "Scrollback lines kept per pane.",
    },
    Key {
        section: "server",
        name: "scrollback_bytes",
        kind: Kind::Integer {
            min: 4096,
            max: 1 << 30,
        },
        default: "4194304",
        doc: "Scrollback bytes kept per pane: a hard cap on top of the lines.",
    },
    Key {
        section: "server",
        name: "event_ring",
        kind: Kind::Integer {
            min: 16,
            max: 1_000_000,
        },
        default: "10000",
        doc: "Events kept for replay to subscribers that reconnect with a sequence number.",
    },
    Key {
        section: "server",
        name: "default_shell",
        kind: Kind::Text,
        default: "$SHELL, else /bin/sh",
        doc: "The program a pane runs when no command is given (a path or a name on PATH).",
    },
    Key {
        section: "server",
        name: "close_tab_on_last_pane",
        kind: Kind::Bool,
        default: "true",
        doc: "Close a tab when its last pane closes.",
    },
    Key {
        section: "server",
        name: "max_connections",
        kind: Kind::Integer {
            min: 1,
            max: 65_536,
        },
        default: "512",
        doc: "Open connections past which a new one has every call refused \
              (RESOURCE_EXHAUSTED TOO_MANY_CONNECTIONS).",
    },
    Key {
        section: "server",
        name: "max_panes",
        kind: Kind::Integer {
            min: 1,
            max: 65_536,
        },
        default: "1024",
        doc: "Most panes the server holds at once; a spawn or split past it is refused \
              (RESOURCE_EXHAUSTED TOO_MANY_PANES) and changes nothing.",
    },
    Key {
        section: "server",
        name: "keepalive_interval_secs",
        kind: Kind::Integer { min: 1, max: 3_600 },
        default: "60",
        doc: "Seconds of silence on a connection after which the server sends an HTTP/2 ping.",
    },
    Key {
        section: "server",
        name: "keepalive_timeout_secs",
        kind: Kind::Integer { min: 1, max: 600 },
        default: "20",
        doc: "Seconds a client has to answer that ping before its connection is closed.",
    },
    Key {
        section: "server",
        name: "window_size",
        kind: Kind::WindowSize,
        default: "latest",
        doc: "A pane shown by several clients takes the size of the one active last (`latest`, \
              like tmux's window-size), or the largest or smallest of their sizes.",
    },
    Key {
        section: "agents.*",
        name: "wait_for_answer",
        kind: Kind::Bool,
        default: "false",
        doc: "Hold this agent's permission hook so that its request can be answered through \
              signaltty, in every workspace (false: the hook reports the request and returns; \
              the agent asks in its pane). Claude Code's main session is always answerable.",
    },
    Key {
        section: "agents.*",
        name: "wait_timeout_ms",
        kind: Kind::Integer {
            min: 1_000,
            max: 120_000,
        },
        default: "20000",
        doc: "How long a held hook waits, in milliseconds, before the agent asks in its pane \
              (the longest among held agents applies; the server holds at most 25 s).",
    },
    Key {
        section: "agents.*",
        name: "hibernate_after_minutes",
        kind: Kind::Integer {
            min: 0,
            max: 10_080,
        },
        default: "0",
        doc: "Hibernate this agent's panes, in every workspace, once their turn ended this many \
              minutes ago (0: never; a workspace's own hibernate_after_minutes wins).",
    },
    Key {
        section: "policy",
        name: "pane_clients_may_answer_decisions",
        kind: Kind::Bool,
        default: "the server's rule",
        doc: "Programs inside panes may answer agents' permission requests.",
    },
    Key {
        section: "policy",
        name: "pane_clients_may_report_for_other_panes",
        kind: Kind::Bool,
        default: "the server's rule",
        doc: "Programs inside panes may report hook events or notifications for other panes.",
    },
    Key {
        section: "policy",
        name: "pane_clients_may_control_other_workspaces",
        kind: Kind::Bool,
        default: "the server's rule",
        doc: "Programs inside panes may change, close or type into other workspaces, open new \
              workspaces, shut the server down and install or remove the agents' hooks.",
    },
    Key {
        section: "attach",
        name: "detach_key",
        kind: Kind::DetachKey,
        default: "ctrl-\\",
        doc: "The key that detaches `signaltty attach` (`--detach-key` overrides it).",
    },
    Key {
        section: "fast_paths",
        name: "attach_handoff",
        kind: Kind::Bool,
        default: "true",
        doc: "`signaltty attach` hands its terminal to the server, which then reads the keys and \
              writes the pane itself (false: the CLI attaches over gRPC, same behaviour).",
    },
    Key {
        section: "fast_paths",
        name: "report_handoff_refusal",
        kind: Kind::Bool,
        default: "false",
        doc: "`signaltty attach` says on stderr why the server did not take its terminal \
              before attaching over gRPC (for debugging).",
    },
    Key {
        section: "fast_paths",
        name: "server_paint",
        kind: Kind::Bool,
        default: "true",
        doc: "The server paints the TUI's focused pane straight into the TUI's terminal \
              (false: the TUI draws everything, and reads every key).",
    },
    Key {
        section: "fast_paths",
        name: "lend_keys",
        kind: Kind::Bool,
        default: "true",
        doc: "While the server paints the focused pane in Insert mode, it reads the TUI's plain \
              keys itself (false: the TUI reads every key).",
    },
    Key {
        section: "fast_paths",
        name: "direct_input",
        kind: Kind::Bool,
        default: "true",
        doc: "The TUI writes typed keys straight to the pane's terminal (false: over the API).",
    },
    Key {
        section: "fast_paths",
        name: "paint_first",
        kind: Kind::Bool,
        default: "true",
        doc: "While the server paints a pane into a TUI, each output chunk is painted before \
              the pane's attach streams are woken (false: sent first, as without painting).",
    },
    Key {
        section: "fast_paths",
        name: "painted_output_delay_us",
        kind: Kind::Integer {
            min: 0,
            max: 16_000,
        },
        default: "2000",
        doc: "While the server paints a pane into a TUI, the pane's attach streams hold its \
              output until it has been quiet this many microseconds (0: at once).",
    },
];

/// The keys of one section (`agents.codex` matches `agents.*`).
pub fn keys_of(section: &str) -> impl Iterator<Item = &'static Key> + '_ {
    let pattern = if section.starts_with("agents.") {
        "agents.*"
    } else {
        section
    };
    KEYS.iter().filter(move |k| k.section == pattern)
}
