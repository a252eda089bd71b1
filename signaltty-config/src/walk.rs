//! The parser: TOML with spans (`toml::de::DeTable`, which keeps every key's and value's byte
//! range and recovers from syntax errors), walked against [`crate::schema::KEYS`]. Problems are
//! collected rather than returned at the first one, and sorted by position.

use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use crate::schema::{self, AgentKind, Kind, SECTIONS};
use crate::{AgentConfig, AttachConfig, Config, PolicyConfig, Problem, ServerConfig};

type SpannedKey<'i> = Spanned<std::borrow::Cow<'i, str>>;
type SpannedValue<'i> = Spanned<DeValue<'i>>;

/// A value that passed its key's check.
enum Checked {
    Bool(bool),
    Integer(u64),
    Text(String),
    DetachKey(crate::DetachKey),
    WindowSize(crate::WindowSize),
}

struct Walker<'s> {
    source: &'s str,
    problems: Vec<Problem>,
}

pub(crate) fn parse(text: &str) -> Result<Config, Vec<Problem>> {
    let (doc, errors) = DeTable::parse_recoverable(text);
    let mut w = Walker {
        source: text,
        problems: Vec::new(),
    };
    for err in errors {
        let offset = err.span().map_or(0, |span| span.start);
        w.problems
            .push(Problem::at(text, offset, "", err.message().trim_end()));
    }
    let mut config = Config::default();
    for (key, value) in doc.get_ref() {
        let name = key.get_ref().as_ref();
        match name {
            "server" => {
                if let Some(table) = w.table(name, value) {
                    w.server(table, &mut config.server);
                }
            }
            "agents" => {
                if let Some(table) = w.table(name, value) {
                    w.agents(table, &mut config);
                }
            }
            "policy" => {
                if let Some(table) = w.table(name, value) {
                    w.policy(table, &mut config.policy);
                }
            }
            "attach" => {
                if let Some(table) = w.table(name, value) {
                    w.attach(table, &mut config.attach);
                }
            }
            "fast_paths" => {
                if let Some(table) = w.table(name, value) {
                    let out = &mut config.fast_paths;
                    w.section(name, table, |key, value| match value {
                        Checked::Bool(b) => _ = out.set_bool(key, b),
                        Checked::Integer(n) => _ = out.set_integer(key, n),
                        _ => {}
                    });
                }
            }
            "tui" => {
                if w.table(name, value).is_some() {
                    match toml::Table::deserialize(ValueDeserializer::from(value.clone())) {
                        Ok(table) => config.tui = table,
                        Err(err) => w.at(value, name, err.message().to_owned()),
                    }
                }
            }
            "remotes" => {
                if let Some(table) = w.table(name, value) {
                    w.remotes(table, &mut config);
                }
            }
            _ => w.unknown(key, "", &SECTIONS),
        }
    }
    // A value recovered from a syntax error is a guess: say nothing more about its line.
    let syntax_lines: Vec<usize> = w
        .problems
        .iter()
        .filter(|p| p.key.is_empty())
        .map(|p| p.line)
        .collect();
    w.problems
        .retain(|p| p.key.is_empty() || !syntax_lines.contains(&p.line));
    w.problems.sort_by_key(|p| (p.line, p.column));
    if w.problems.is_empty() {
        Ok(config)
    } else {
        Err(w.problems)
    }
}

impl Walker<'_> {
    fn at(&mut self, value: &SpannedValue<'_>, key: &str, message: String) {
        self.problems
            .push(Problem::at(self.source, value.span().start, key, message));
    }

    fn unknown(&mut self, key: &SpannedKey<'_>, section: &str, expected: &[&str]) {
        let name = key.get_ref();
        let dotted = dotted(section, name);
        let message = format!("unknown key; expected one of: {}", expected.join(", "));
        self.problems
            .push(Problem::at(self.source, key.span().start, &dotted, message));
    }

    /// The value as a table, or a problem saying it must be one.
    fn table<'v, 'i>(&mut self, key: &str, value: &'v SpannedValue<'i>) -> Option<&'v DeTable<'i>> {
        match value.get_ref() {
            DeValue::Table(table) => Some(table),
            other => {
                let message = format!("expected a table ([{key}]), found {}", other.type_str());
                self.at(value, key, message);
                None
            }
        }
    }

    /// Checks each key of `table` against the schema's keys for `section`; calls `set` with the
    /// name and the checked value of every valid one.
    fn section(&mut self, section: &str, table: &DeTable<'_>, mut set: impl FnMut(&str, Checked)) {
        let known: Vec<&'static str> = schema::keys_of(section).map(|k| k.name).collect();
        for (key, value) in table {
            let name = key.get_ref().as_ref();
            let Some(spec) = schema::keys_of(section).find(|k| k.name == name) else {
                self.unknown(key, section, &known);
                continue;
            };
            match check(spec.kind, value.get_ref()) {
                Ok(checked) => set(name, checked),
                Err(message) => self.at(value, &dotted(section, name), message),
            }
        }
    }

    fn server(&mut self, table: &DeTable<'_>, out: &mut ServerConfig) {
        self.section("server", table, |name, value| match (name, value) {
            ("scrollback_lines", Checked::Integer(n)) => out.scrollback_lines = Some(usize(n)),
            ("scrollback_bytes", Checked::Integer(n)) => out.scrollback_bytes = Some(usize(n)),
            ("event_ring", Checked::Integer(n)) => out.event_ring = Some(usize(n)),
            ("default_shell", Checked::Text(s)) => out.default_shell = Some(s),
            ("close_tab_on_last_pane", Checked::Bool(b)) => out.close_tab_on_last_pane = Some(b),
            ("max_connections", Checked::Integer(n)) => out.max_connections = Some(usize(n)),
            ("max_panes", Checked::Integer(n)) => out.max_panes = Some(usize(n)),
            ("keepalive_interval_secs", Checked::Integer(n)) => {
                out.keepalive_interval_secs = Some(n);
            }
            ("keepalive_timeout_secs", Checked::Integer(n)) => {
                out.keepalive_timeout_secs = Some(n);
            }
            ("window_size", Checked::WindowSize(w)) => out.window_size = Some(w),
            _ => {}
        });
    }

    fn agents(&mut self, table: &DeTable<'_>, config: &mut Config) {
        let names: Vec<&str> = AgentKind::ALL.iter().map(|k| k.name()).collect();
        for (key, value) in table {
            let Some(kind) = AgentKind::from_name(key.get_ref()) else {
                self.unknown(key, "agents", &names);
                continue;
            };
            let section = format!("agents.{kind}");
            let Some(agent_table) = self.table(&section, value) else {
                continue;
            };
            let mut agent = AgentConfig::default();
            self.section(&section, agent_table, |name, value| match (name, value) {
                ("wait_for_answer", Checked::Bool(b)) => agent.wait_for_answer = Some(b),
                ("wait_timeout_ms", Checked::Integer(n)) => agent.wait_timeout_ms = Some(n),
                ("hibernate_after_minutes", Checked::Integer(n)) => {
                    agent.hibernate_after_minutes = Some(n);
                }
                _ => {}
            });
            config.agents.insert(kind, agent);
        }
    }

    fn policy(&mut self, table: &DeTable<'_>, out: &mut PolicyConfig) {
        self.section("policy", table, |name, value| {
            let Checked::Bool(b) = value else { return };
            match name {
                "pane_clients_may_answer_decisions" => {
                    out.pane_clients_may_answer_decisions = Some(b);
                }
                "pane_clients_may_report_for_other_panes" => {
                    out.pane_clients_may_report_for_other_panes = Some(b);
                }
                "pane_clients_may_control_other_workspaces" => {
                    out.pane_clients_may_control_other_workspaces = Some(b);
                }
                _ => {}
            }
        });
    }

    /// `[remotes.NAME]`: `host` (required), `ssh_options` (strings), `command`.
    fn remotes(&mut self, table: &DeTable<'_>, config: &mut Config) {
        for (key, value) in table {
            let name = key.get_ref().as_ref();
            let section = format!("remotes.{name}");
            if let Err(message) = crate::remotes::check_name(name) {
                self.problems.push(Problem::at(
                    self.source,
                    key.span().start,
                    &section,
                    message,
                ));
                continue;
            }
            let Some(remote_table) = self.table(&section, value) else {
                continue;
            };
            let mut remote = crate::RemoteConfig::default();
            for (k, v) in remote_table {
                let field = k.get_ref().as_ref();
                let dotted_key = dotted(&section, field);
                match (field, v.get_ref()) {
                    ("host" | "command", DeValue::String(s)) => {
                        match crate::remotes::check_text(field, s) {
                            Ok(()) if field == "host" => remote.host = s.to_string(),
                            Ok(()) => remote.command = Some(s.to_string()),
                            Err(message) => self.at(v, &dotted_key, message),
                        }
                    }
                    ("ssh_options", DeValue::Array(items)) => {
                        for item in items {
                            match item.get_ref() {
                                DeValue::String(s) if !s.contains('\0') => {
                                    remote.ssh_options.push(s.to_string());
                                }
                                other => self.at(
                                    item,
                                    &dotted_key,
                                    format!("expected a string, found {}", describe(other)),
                                ),
                            }
                        }
                    }
                    ("host" | "command", other) => self.at(
                        v,
                        &dotted_key,
                        format!("expected a non-empty string, found {}", describe(other)),
                    ),
                    ("ssh_options", other) => self.at(
                        v,
                        &dotted_key,
                        format!("expected an array of strings, found {}", describe(other)),
                    ),
                    _ => self.unknown(k, &section, &["host", "ssh_options", "command"]),
                }
            }
            if remote.host.is_empty() {
                self.at(
                    value,
                    &section,
                    "missing key `host` ([user@]host for ssh)".to_owned(),
                );
                continue;
            }
            config.remotes.insert(name.to_owned(), remote);
        }
    }

    fn attach(&mut self, table: &DeTable<'_>, out: &mut AttachConfig) {
        self.section("attach", table, |name, value| {
            if let ("detach_key", Checked::DetachKey(key)) = (name, value) {
                out.detach_key = Some(key);
            }
        });
    }
}

/// Checks one value against its kind.
fn check(kind: Kind, value: &DeValue<'_>) -> Result<Checked, String> {
    let found = || format!("expected {kind}, found {}", describe(value));
    match (kind, value) {
        (Kind::Bool, DeValue::Boolean(b)) => Ok(Checked::Bool(*b)),
        (Kind::Integer { min, max }, DeValue::Integer(i)) => {
            let n = i64::from_str_radix(i.as_str(), i.radix()).map_err(|_| found())?;
            match u64::try_from(n) {
                Ok(n) if (min..=max).contains(&n) => Ok(Checked::Integer(n)),
                _ => Err(format!("{n} is out of range: expected {kind}")),
            }
        }
        (Kind::Text, DeValue::String(s)) if !s.trim().is_empty() && !s.contains('\0') => {
            Ok(Checked::Text(s.to_string()))
        }
        (Kind::DetachKey, DeValue::String(s)) => s.parse().map(Checked::DetachKey),
        (Kind::WindowSize, DeValue::String(s)) => s.parse().map(Checked::WindowSize),
        _ => Err(found()),
    }
}

/// How a value is named in "found …".
fn describe(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(s) if s.trim().is_empty() => "an empty string".to_owned(),
        DeValue::String(s) if s.contains('\0') => "a string with a NUL byte".to_owned(),
        DeValue::String(s) => format!("the string {s:?}"),
        DeValue::Integer(i) => format!("the integer {i}"),
        DeValue::Boolean(b) => format!("{b}"),
        other => other.type_str().to_owned(),
    }
}

fn dotted(section: &str, name: &str) -> String {
    if section.is_empty() {
        name.to_owned()
    } else {
        format!("{section}.{name}")
    }
}

/// Schema ranges are far below `usize::MAX` on every target we build for.
fn usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
