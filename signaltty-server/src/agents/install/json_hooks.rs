//! The JSON hook files: Claude Code's `settings.json` and Codex's `hooks.json` (nested groups:
//! `hooks.<Event>[] = {matcher, hooks:[{type, command, timeout}]}`) and Cursor's `hooks.json`
//! (flat: `{version:1, hooks.<event>[] = {command, timeout}}`).
//!
//! The document is edited as a `serde_json` value (insertion order kept), touching only our
//! entries. Structure we must edit (`hooks` an object, each event an array) is required; anything
//! else foreign is carried over as is.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::file::{self, Existing};
use super::{HookState, InstallError, WriteOutcome, hook_command, hook_specs, is_managed};
use crate::agents::AgentKind;

/// Our entries found in a document: event → sorted (command, timeout) pairs.
type Managed = BTreeMap<String, Vec<(String, Option<u64>)>>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Claude Code and Codex: groups with a matcher and inner hooks.
    Nested,
    /// Cursor: entries directly under the event.
    Flat,
}

fn shape(kind: AgentKind) -> Shape {
    if kind == AgentKind::Cursor {
        Shape::Flat
    } else {
        Shape::Nested
    }
}

pub(super) fn status(
    kind: AgentKind,
    path: &Path,
    program: &str,
) -> Result<HookState, InstallError> {
    let existing = file::read(path);
    let existing = match existing {
        Err(InstallError::Malformed { reason, .. }) => return Ok(HookState::Malformed(reason)),
        other => other?,
    };
    let doc = match parse(&existing, kind) {
        Ok(doc) => doc,
        Err(reason) => return Ok(HookState::Malformed(reason)),
    };
    let found = managed(&doc, shape(kind));
    Ok(if found == expected(kind, program) {
        HookState::Installed
    } else if found.is_empty() {
        HookState::NotInstalled
    } else {
        HookState::Partial
    })
}

pub(super) fn install(
    kind: AgentKind,
    path: &Path,
    program: &str,
) -> Result<WriteOutcome, InstallError> {
    let existing = file::read(path)?;
    let original = parse(&existing, kind).map_err(|reason| malformed(path, reason))?;
    if existing.bytes.is_some() && managed(&original, shape(kind)) == expected(kind, program) {
        return Ok(WriteOutcome::Unchanged);
    }
    let mut doc = original.clone();
    strip(&mut doc, shape(kind));
    add(&mut doc, kind, program);
    write_if_changed(&existing, &original, doc)
}

pub(super) fn uninstall(kind: AgentKind, path: &Path) -> Result<WriteOutcome, InstallError> {
    let existing = file::read(path)?;
    if existing.bytes.is_none() {
        return Ok(WriteOutcome::Unchanged);
    }
    let original = parse(&existing, kind).map_err(|reason| malformed(path, reason))?;
    let mut doc = original.clone();
    strip(&mut doc, shape(kind));
    write_if_changed(&existing, &original, doc)
}

fn malformed(path: &Path, reason: String) -> InstallError {
    InstallError::Malformed {
        path: path.to_owned(),
        reason,
    }
}

fn write_if_changed(
    existing: &Existing,
    original: &Map<String, Value>,
    doc: Map<String, Value>,
) -> Result<WriteOutcome, InstallError> {
    if existing.bytes.is_some() && &doc == original {
        return Ok(WriteOutcome::Unchanged);
    }
    let mut bytes =
        serde_json::to_vec_pretty(&Value::Object(doc)).expect("a JSON value always serializes");
    bytes.push(b'\n');
    file::write_atomic(existing, &bytes)?;
    Ok(WriteOutcome::Changed)
}

/// Parses and checks the structure we may have to edit. No file (or only whitespace) is an
/// empty document.
fn parse(existing: &Existing, kind: AgentKind) -> Result<Map<String, Value>, String> {
    let bytes = match &existing.bytes {
        Some(b) if !b.iter().all(u8::is_ascii_whitespace) => b,
        _ => return Ok(Map::new()),
    };
    // Duplicate keys would be merged (the first value lost) by a rewrite: refuse them.
    super::strict_json::check(bytes)?;
    let value: Value = serde_json::from_slice(bytes).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(doc) = value else {
        return Err("the top level is not a JSON object".to_owned());
    };
    match doc.get("hooks") {
        None | Some(Value::Null) => {}
        Some(Value::Object(events)) => {
            for (event, entries) in events {
                let Value::Array(entries) = entries else {
                    return Err(format!("hooks.{event} is not an array"));
                };
                if shape(kind) == Shape::Nested {
                    for group in entries {
                        if let Some(inner) = group.get("hooks").filter(|v| !v.is_array()) {
                            return Err(format!(
                                "hooks.{event}[].hooks is not an array but {}",
                                type_name(inner)
                            ));
                        }
                    }
                }
            }
        }
        Some(other) => {
            return Err(format!(
                "\"hooks\" is {} instead of an object",
                type_name(other)
            ));
        }
    }
    Ok(doc)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The command entries directly holding commands: inner hooks of each group (nested) or the
/// event's entries (flat).
fn command_entries<'a>(
    entries: &'a [Value],
    shape: Shape,
) -> Box<dyn Iterator<Item = &'a Value> + 'a> {
    match shape {
        Shape::Flat => Box::new(entries.iter()),
        Shape::Nested => Box::new(
            entries
                .iter()
                .filter_map(|g| g.get("hooks").and_then(Value::as_array))
                .flatten(),
        ),
    }
}

fn managed_command(entry: &Value) -> Option<&str> {
    entry
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| is_managed(c))
}

fn managed(doc: &Map<String, Value>, shape: Shape) -> Managed {
    let mut found = Managed::new();
    let Some(events) = doc.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, entries) in events {
        let Some(entries) = entries.as_array() else {
            continue;
        };
        let mut ours: Vec<_> = command_entries(entries, shape)
            .filter_map(|e| {
                managed_command(e).map(|c| (c.to_owned(), e.get("timeout").and_then(Value::as_u64)))
            })
            .collect();
        if !ours.is_empty() {
            ours.sort();
            found.insert(event.clone(), ours);
        }
    }
    found
}

fn expected(kind: AgentKind, program: &str) -> Managed {
    hook_specs(kind)
        .iter()
        .map(|s| {
            (
                s.event.to_owned(),
                vec![(hook_command(program, kind, s), Some(s.timeout_secs))],
            )
        })
        .collect()
}

/// Removes our entries; drops the groups, events and `hooks` object that became empty because of
/// it (never ones that were empty before).
fn strip(doc: &mut Map<String, Value>, shape: Shape) {
    let Some(Value::Object(events)) = doc.get_mut("hooks") else {
        return;
    };
    let mut emptied_events = Vec::new();
    for (event, entries) in events.iter_mut() {
        let Value::Array(entries) = entries else {
            continue;
        };
        let before = entries.len();
        match shape {
            Shape::Flat => entries.retain(|e| managed_command(e).is_none()),
            Shape::Nested => entries.retain_mut(|group| {
                let Some(Value::Array(inner)) = group.get_mut("hooks") else {
                    return true;
                };
                let inner_before = inner.len();
                inner.retain(|e| managed_command(e).is_none());
                !(inner.is_empty() && inner_before > 0)
            }),
        }
        if entries.is_empty() && before > 0 {
            emptied_events.push(event.clone());
        }
    }
    let had_events = !events.is_empty();
    for event in emptied_events {
        events.remove(&event);
    }
    if had_events && events.is_empty() {
        doc.remove("hooks");
    }
}

fn add(doc: &mut Map<String, Value>, kind: AgentKind, program: &str) {
    if shape(kind) == Shape::Flat && !doc.contains_key("version") {
        doc.insert("version".to_owned(), json!(1));
    }
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    if hooks.is_null() {
        *hooks = Value::Object(Map::new());
    }
    // parse() refused any other `hooks`, so this always holds.
    let Value::Object(events) = hooks else {
        return;
    };
    for spec in hook_specs(kind) {
        let command = hook_command(program, kind, spec);
        let entry = match shape(kind) {
            Shape::Nested => json!({
                "matcher": "",
                "hooks": [{ "type": "command", "command": command, "timeout": spec.timeout_secs }],
            }),
            Shape::Flat => json!({ "command": command, "timeout": spec.timeout_secs }),
        };
        let list = events
            .entry(spec.event.to_owned())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            list.push(entry);
        }
    }
}
