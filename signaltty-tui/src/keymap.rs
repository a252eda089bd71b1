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

use crate::action::Action;
use crate::keys::{canonical_chord, canonical_token};
pub use crate::presets::Preset;
pub use crate::tui_options::ConfigError;

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
    /// The shipped keymap the user's bindings were merged over.
    pub preset: Preset,
    /// The leader token: the tmux preset's prefix (default `ctrl-b`), the modal preset's
    /// Insert-mode escape (default `ctrl-a`).
    pub leader: String,
    /// How long a chord prefix waits for its next key (a chord that begins with the leader
    /// waits for ever, as tmux's prefix does).
    pub chord_timeout: Duration,
    /// How long after a repeatable leader binding the next needs no leader.
    pub repeat_time: Duration,
    /// Normal-mode bindings: chord tokens → action.
    pub normal: BTreeMap<Vec<String>, Action>,
    /// Insert-mode bindings.
    pub insert: BTreeMap<Vec<String>, Action>,
    /// Prefix conflicts found while merging.
    pub warnings: Vec<String>,
    /// The other `[tui]` settings (copy mode's keys, outer notifications).
    pub options: crate::tui_options::TuiOptions,
}

/// The shipped chord timeout.
pub const DEFAULT_CHORD_TIMEOUT: Duration = Duration::from_millis(1000);
/// How long after a repeatable prefix binding (focus or resize by arrows) the next one needs
/// no prefix (tmux's `repeat-time`).
pub const DEFAULT_REPEAT_TIME: Duration = Duration::from_millis(500);

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
    keys: Option<Spanned<String>>,
    #[serde(default)]
    keymap: Option<KeymapSection>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct KeymapSection {
    #[serde(alias = "prefix")]
    leader: Option<Spanned<String>>,
    chord_timeout_ms: Option<Spanned<u64>>,
    repeat_time_ms: Option<Spanned<u64>>,
    #[serde(default)]
    normal: Bindings,
    #[serde(default)]
    insert: Bindings,
    /// Keys after the leader, bound in both tables (`"|" = "SplitHorizontal"`).
    #[serde(default)]
    prefixed: Bindings,
}

impl Default for Keymap {
    fn default() -> Self {
        Self::preset(Preset::default())
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
        let tui = file.tui.unwrap_or_default();
        let mut errors = Vec::new();
        let preset = match &tui.keys {
            Some(keys) => keys.get_ref().parse::<Preset>().unwrap_or_else(|message| {
                errors.push(ConfigError {
                    line: line_of(keys.span().start),
                    message,
                });
                Preset::default()
            }),
            None => Preset::default(),
        };
        let section = tui.keymap.unwrap_or_default();
        // Pass 1: lex every key.
        let leader = match &section.leader {
            Some(leader) => match canonical_token(leader.get_ref()) {
                Ok(token) if !token.starts_with("mouse:") && token != "<leader>" => token,
                Ok(_) => {
                    errors.push(ConfigError {
                        line: line_of(leader.span().start),
                        message: "the leader must be a key".into(),
                    });
                    preset.leader().to_owned()
                }
                Err(message) => {
                    errors.push(ConfigError {
                        line: line_of(leader.span().start),
                        message,
                    });
                    preset.leader().to_owned()
                }
            },
            None => preset.leader().to_owned(),
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
        let prefixed: Vec<_> = lex(&section.prefixed, &line_of, &mut errors)
            .into_iter()
            .map(|(mut tokens, action)| {
                tokens.insert(0, "<leader>".to_owned());
                (tokens, action)
            })
            .collect();
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
        let mut normal = resolve(normal, &mut errors);
        let mut insert = resolve(insert, &mut errors);
        let prefixed = resolve(prefixed, &mut errors);
        let options = crate::tui_options::TuiOptions::from_config(text).unwrap_or_else(|e| {
            errors.extend(e);
            Default::default()
        });
        if !errors.is_empty() {
            errors.sort_by_key(|e| e.line);
            return Err(errors);
        }
        normal.extend(prefixed.iter().cloned());
        insert.extend(prefixed);
        let millis = |ms: &Option<Spanned<u64>>, default| {
            ms.as_ref()
                .map(|t| Duration::from_millis(*t.get_ref()))
                .unwrap_or(default)
        };
        let timing = Timing {
            chord_timeout: millis(&section.chord_timeout_ms, DEFAULT_CHORD_TIMEOUT),
            repeat_time: millis(&section.repeat_time_ms, DEFAULT_REPEAT_TIME),
        };
        let mut keymap = Self::from_parts(preset, leader, timing, normal, insert);
        keymap.options = options;
        Ok(keymap)
    }

    /// A shipped keymap as it is, with its own leader.
    pub fn preset(preset: Preset) -> Keymap {
        let timing = Timing {
            chord_timeout: DEFAULT_CHORD_TIMEOUT,
            repeat_time: DEFAULT_REPEAT_TIME,
        };
        Self::from_parts(
            preset,
            preset.leader().to_owned(),
            timing,
            Vec::new(),
            Vec::new(),
        )
    }

    fn from_parts(
        preset: Preset,
        leader: String,
        timing: Timing,
        normal: Vec<(Vec<String>, Action)>,
        insert: Vec<(Vec<String>, Action)>,
    ) -> Keymap {
        let mut warnings = Vec::new();
        let table = |defaults: Vec<(String, Action)>, user: Vec<(Vec<String>, Action)>| {
            let mut map = BTreeMap::new();
            let defaults = defaults.into_iter().filter_map(|(key, action)| {
                canonical_chord(&key).ok().map(|tokens| (tokens, action))
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
        let normal = table(preset.normal(), normal);
        let insert = table(preset.insert(), insert);
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
            preset,
            leader,
            chord_timeout: timing.chord_timeout,
            repeat_time: timing.repeat_time,
            normal,
            insert,
            warnings,
            options: Default::default(),
        }
    }

    /// Whether a held chord waits for its next key for ever: one that begins with the leader
    /// (tmux's prefix has no timeout).
    fn waits_forever(&self, chord: &Chord) -> bool {
        chord.held.first() == Some(&self.leader)
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
        if chord.held.is_empty()
            || self.waits_forever(chord)
            || now.duration_since(since) < self.chord_timeout
        {
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
        let held = (!chord.held.is_empty() && !self.waits_forever(chord))
            .then_some(chord.since)
            .flatten()
            .map(|since| since + self.chord_timeout);
        held.into_iter().chain(chord.repeat_until).min()
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

/// The two timings a keymap has.
struct Timing {
    chord_timeout: Duration,
    repeat_time: Duration,
}

/// Keys held while a chord is incomplete.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chord {
    /// The tokens so far.
    pub held: Vec<String>,
    /// When the last one came.
    pub since: Option<Instant>,
    /// After a repeatable leader binding: until when the next key is tried after the leader
    /// first (tmux's `-r`: `prefix ← ← ←` moves three times).
    pub repeat_until: Option<Instant>,
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
