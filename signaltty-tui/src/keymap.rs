//! The keymap: shipped defaults, the user's `[tui.keymap]` merged over them, and the chord
//! resolver.
//!
//! Loading is two passes over the whole file so every mistake is reported at once, each with its
//! line: pass 1 lexes every key string into canonical tokens ([`crate::keys`]), pass 2 resolves
//! every action name against [`Action`]. A key bound to `"Noop"` is removed (so in Insert mode it
//! reaches the pane again). A binding that is a prefix of another (`g` and `g t`) is a warning:
//! the resolver waits for the longer one until the chord timeout, then fires the shorter.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Deserialize;
use toml::Spanned;

use crate::action::{Action, Target};
use crate::keys::{canonical_chord, canonical_token};
use signaltty_client::geometry::Dir;

/// Which table a key is looked up in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// Normal mode (and the sidebar).
    Normal,
    /// Insert mode: everything unbound goes to the pane.
    Insert,
}

/// A resolved keymap.
#[derive(Clone, Debug, PartialEq)]
pub struct Keymap {
    /// The leader token (default `ctrl-a`).
    pub leader: String,
    /// How long a chord prefix waits for its next key.
    pub chord_timeout: Duration,
    /// Normal-mode bindings: chord tokens → action.
    pub normal: BTreeMap<Vec<String>, Action>,
    /// Insert-mode bindings.
    pub insert: BTreeMap<Vec<String>, Action>,
    /// Prefix conflicts found while merging.
    pub warnings: Vec<String>,
}

/// The shipped Normal-mode bindings.
pub const DEFAULT_NORMAL: &[(&str, Action)] = &[
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
    ("b", Action::ToggleSidebar),
    ("?", Action::ShowHelp),
    ("q", Action::Quit),
    ("mouse:click(pane)", Action::FocusPaneAtCursor),
    ("mouse:click(tab)", Action::GotoTabAtCursor),
    ("mouse:click(sidebar-row)", Action::HighlightSidebarRow),
    ("mouse:click(decision-option)", Action::AnswerAtCursor),
    ("mouse:dblclick(sidebar-row)", Action::AttachHighlighted),
    ("mouse:drag(split-divider)", Action::ResizePaneByDrag),
    ("mouse:wheel-up(pane)", Action::ScrollBack),
];

/// The shipped Insert-mode bindings (sparse: everything else goes to the pane).
pub const DEFAULT_INSERT: &[(&str, Action)] = &[
    ("<leader>", Action::LeaveInsert),
    ("mouse:click(pane)", Action::FocusPaneAtCursor),
    ("mouse:click(decision-option)", Action::AnswerAtCursor),
    ("mouse:click(tab)", Action::GotoTabAtCursor),
    ("mouse:click(sidebar-row)", Action::HighlightSidebarRow),
    ("mouse:drag(split-divider)", Action::ResizePaneByDrag),
    ("mouse:wheel-up(pane)", Action::ScrollBack),
];

/// The shipped leader.
pub const DEFAULT_LEADER: &str = "ctrl-a";
/// The shipped chord timeout.
pub const DEFAULT_CHORD_TIMEOUT: Duration = Duration::from_millis(1000);

/// One problem in the config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

type Bindings = BTreeMap<Spanned<String>, Spanned<String>>;

/// The config file as far as the TUI reads it; other sections belong to others and are ignored.
#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    tui: Option<TuiSection>,
}

#[derive(Deserialize, Default)]
struct TuiSection {
    #[serde(default)]
    keymap: Option<KeymapSection>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct KeymapSection {
    leader: Option<Spanned<String>>,
    chord_timeout_ms: Option<Spanned<u64>>,
    #[serde(default)]
    normal: Bindings,
    #[serde(default)]
    insert: Bindings,
}

impl Default for Keymap {
    fn default() -> Self {
        Self::from_parts(
            DEFAULT_LEADER.to_owned(),
            DEFAULT_CHORD_TIMEOUT,
            Vec::new(),
            Vec::new(),
        )
    }
}

impl Keymap {
    /// The defaults with the user's config file text merged over them; every error, with its
    /// line, when the file is wrong.
    pub fn from_config(text: &str) -> Result<Keymap, Vec<ConfigError>> {
        let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
        let file: File = toml::from_str(text).map_err(|err| {
            vec![ConfigError {
                line: err.span().map(|s| line_of(s.start)).unwrap_or(0),
                message: err.message().to_owned(),
            }]
        })?;
        let section = file.tui.and_then(|t| t.keymap).unwrap_or_default();
        let mut errors = Vec::new();
        // Pass 1: lex every key.
        let leader = match &section.leader {
            Some(leader) => match canonical_token(leader.get_ref()) {
                Ok(token) if !token.starts_with("mouse:") && token != "<leader>" => token,
                Ok(_) => {
                    errors.push(ConfigError {
                        line: line_of(leader.span().start),
                        message: "the leader must be a key".into(),
                    });
                    DEFAULT_LEADER.to_owned()
                }
                Err(message) => {
                    errors.push(ConfigError {
                        line: line_of(leader.span().start),
                        message,
                    });
                    DEFAULT_LEADER.to_owned()
                }
            },
            None => DEFAULT_LEADER.to_owned(),
        };
        fn lex<'a>(
            bindings: &'a Bindings,
            line_of: &dyn Fn(usize) -> usize,
            errors: &mut Vec<ConfigError>,
        ) -> Vec<(Vec<String>, &'a Spanned<String>)> {
            let mut lexed = Vec::new();
            for (key, action) in bindings {
                match canonical_chord(key.get_ref()) {
                    Ok(tokens) => lexed.push((tokens, action)),
                    Err(message) => errors.push(ConfigError {
                        line: line_of(key.span().start),
                        message,
                    }),
                }
            }
            lexed
        }
        let normal = lex(&section.normal, &line_of, &mut errors);
        let insert = lex(&section.insert, &line_of, &mut errors);
        // Pass 2: resolve every action.
        let resolve = |lexed: Vec<(Vec<String>, &Spanned<String>)>,
                       errors: &mut Vec<ConfigError>| {
            let mut out = Vec::new();
            for (tokens, action) in lexed {
                match action.get_ref().parse::<Action>() {
                    Ok(action) => out.push((tokens, action)),
                    Err(message) => errors.push(ConfigError {
                        line: line_of(action.span().start),
                        message,
                    }),
                }
            }
            out
        };
        let normal = resolve(normal, &mut errors);
        let insert = resolve(insert, &mut errors);
        if !errors.is_empty() {
            errors.sort_by_key(|e| e.line);
            return Err(errors);
        }
        let timeout = section
            .chord_timeout_ms
            .map(|t| Duration::from_millis(*t.get_ref()))
            .unwrap_or(DEFAULT_CHORD_TIMEOUT);
        Ok(Self::from_parts(leader, timeout, normal, insert))
    }

    fn from_parts(
        leader: String,
        chord_timeout: Duration,
        normal: Vec<(Vec<String>, Action)>,
        insert: Vec<(Vec<String>, Action)>,
    ) -> Keymap {
        let mut warnings = Vec::new();
        let table = |defaults: &[(&str, Action)], user: Vec<(Vec<String>, Action)>| {
            let mut map = BTreeMap::new();
            let defaults = defaults.iter().filter_map(|(key, action)| {
                canonical_chord(key).ok().map(|tokens| (tokens, *action))
            });
            for (tokens, action) in defaults.chain(user) {
                let tokens: Vec<String> = tokens
                    .into_iter()
                    .map(|t| if t == "<leader>" { leader.clone() } else { t })
                    .collect();
                if action == Action::Noop {
                    map.remove(&tokens);
                } else {
                    map.insert(tokens, action);
                }
            }
            map
        };
        let normal = table(DEFAULT_NORMAL, normal);
        let insert = table(DEFAULT_INSERT, insert);
        for (name, map) in [("normal", &normal), ("insert", &insert)] {
            for short in map.keys() {
                for long in map.keys() {
                    if long.len() > short.len() && long.starts_with(short) {
                        warnings.push(format!(
                            "[tui.keymap.{name}] \"{}\" is a prefix of \"{}\": it fires after the chord timeout",
                            short.join(" "),
                            long.join(" ")
                        ));
                    }
                }
            }
        }
        Keymap {
            leader,
            chord_timeout,
            normal,
            insert,
            warnings,
        }
    }

    fn table(&self, table: Table) -> &BTreeMap<Vec<String>, Action> {
        match table {
            Table::Normal => &self.normal,
            Table::Insert => &self.insert,
        }
    }

    /// Feeds one token to the chord state.
    pub fn resolve(
        &self,
        table: Table,
        chord: &mut Chord,
        token: String,
        now: Instant,
    ) -> Resolved {
        chord.held.push(token);
        let map = self.table(table);
        let exact = map.get(&chord.held).copied();
        let longer = map
            .range(chord.held.clone()..)
            .take_while(|(k, _)| k.starts_with(&chord.held))
            .any(|(k, _)| k.len() > chord.held.len());
        match (exact, longer) {
            (Some(action), false) => {
                chord.held.clear();
                Resolved::Action(action)
            }
            (_, true) => {
                chord.since = Some(now);
                Resolved::Pending
            }
            (None, false) => Resolved::Unbound(std::mem::take(&mut chord.held)),
        }
    }

    /// When a held chord times out: its exact binding, or its keys as unbound.
    pub fn expire(&self, table: Table, chord: &mut Chord, now: Instant) -> Option<Resolved> {
        let since = chord.since?;
        if chord.held.is_empty() || now.duration_since(since) < self.chord_timeout {
            return None;
        }
        chord.since = None;
        let held = std::mem::take(&mut chord.held);
        Some(match self.table(table).get(&held) {
            Some(action) => Resolved::Action(*action),
            None => Resolved::Unbound(held),
        })
    }

    /// When a held chord must be decided, if one is held.
    pub fn deadline(&self, chord: &Chord) -> Option<Instant> {
        (!chord.held.is_empty())
            .then_some(chord.since)
            .flatten()
            .map(|since| since + self.chord_timeout)
    }

    /// Bindings of a table as (`keys`, action) for the help overlay, sorted by action.
    pub fn listing(&self, table: Table) -> Vec<(String, Action)> {
        let mut rows: Vec<(String, Action)> = self
            .table(table)
            .iter()
            .map(|(k, a)| (k.join(" "), *a))
            .collect();
        rows.sort_by(|a, b| a.1.to_string().cmp(&b.1.to_string()).then(a.0.cmp(&b.0)));
        rows
    }
}

/// Keys held while a chord is incomplete.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chord {
    /// The tokens so far.
    pub held: Vec<String>,
    /// When the last one came.
    pub since: Option<Instant>,
}

/// What a key resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A complete binding.
    Action(Action),
    /// A prefix: wait for the next key (or the timeout).
    Pending,
    /// No binding: these keys (in Insert mode they go to the pane).
    Unbound(Vec<String>),
}

#[cfg(test)]
#[path = "keymap_tests.rs"]
mod tests;
