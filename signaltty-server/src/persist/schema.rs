//! The snapshot's schema: a version and the model's own serde form of [`State`] (workspaces,
//! tabs with their layouts, pane records, recent notifications).
//!
//! Compatibility rules: a field added to any record must be `#[serde(default)]` (or `Option`),
//! so a snapshot written before it loads; a change an older reader could not ignore bumps
//! [`SCHEMA_VERSION`](super::SCHEMA_VERSION), which older servers then refuse to load instead
//! of misreading. Unknown fields are ignored.
//!
//! Secrets: [`Snapshot::to_json`] filters the serialized form, not the typed one, so any field
//! named `env` or `*_env` — today's or one added later — keeps only the allow-listed variables.

use std::time::SystemTime;

use serde_json::Value;

use super::{ENV_ALLOW_LIST, SCHEMA_VERSION, resumable};
use crate::model::ids::PaneId;
use crate::model::state::State;

/// Everything `snapshot.json` holds.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    /// Schema version ([`SCHEMA_VERSION`] when written by this server).
    pub version: u32,
    /// When it was written.
    #[serde(default)]
    pub saved_at: Option<SystemTime>,
    /// Workspaces, tabs (with their layouts), pane records and recent notifications.
    pub state: State,
}

/// Just the version, read first so a newer file is refused before its content is interpreted.
#[derive(serde::Deserialize)]
pub(super) struct VersionProbe {
    /// Any JSON number: a version too large for an integer type (`1e30`,
    /// `18446744073709551616`) is still a version, newer than this server's, not corruption.
    pub version: serde_json::Number,
}

impl Snapshot {
    /// A snapshot of `state` as it may be written: no pane keeps a pid or a decision wait.
    pub fn for_save(mut state: State, now: SystemTime) -> Self {
        let ids: Vec<PaneId> = state.all_panes().iter().map(|p| p.id.clone()).collect();
        for id in ids {
            if let Ok(pane) = state.pane_mut(&id) {
                resumable::forget_process(pane);
            }
        }
        Snapshot {
            version: SCHEMA_VERSION,
            saved_at: Some(now),
            state,
        }
    }

    /// The file's bytes, with every environment map reduced to the allow-list.
    pub fn to_json(&self) -> Result<Vec<u8>, serde_json::Error> {
        let mut value = serde_json::to_value(self)?;
        scrub_env(&mut value);
        serde_json::to_vec(&value)
    }
}

fn is_env_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == "env" || key.ends_with("_env")
}

fn allowed(name: &str) -> bool {
    ENV_ALLOW_LIST.contains(&name)
}

/// Keeps only allow-listed variables in every `env`/`*_env` field, at any depth. Maps keep
/// allowed keys; lists keep `[name, value]` pairs, `{"name": …}` objects and `NAME=value` strings
/// with an allowed name; anything else in such a field is dropped (fail closed).
pub fn scrub_env(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                if is_env_key(key) {
                    filter_env(field);
                } else {
                    scrub_env(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(scrub_env),
        _ => {}
    }
}

fn filter_env(field: &mut Value) {
    match field {
        Value::Object(vars) => vars.retain(|name, _| allowed(name)),
        Value::Array(vars) => vars.retain(|var| match var {
            Value::Array(pair) => pair.first().and_then(Value::as_str).is_some_and(allowed),
            Value::Object(o) => o.get("name").and_then(Value::as_str).is_some_and(allowed),
            Value::String(s) => s.split_once('=').is_some_and(|(name, _)| allowed(name)),
            _ => false,
        }),
        Value::String(s) => s.clear(),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn env_fields_keep_only_allow_listed_names_in_every_shape() {
        let mut v = json!({
            "state": {"panes": {"p": {
                "agent": {
                    "env": {"CLAUDE_CONFIG_DIR": "/c", "SECRET_TOKEN": "s1"},
                    "launch_env": [["CODEX_HOME", "/x"], ["SECRET_TOKEN", "s2"], "junk"],
                    "config_env": ["OPENCODE_CONFIG_DIR=/o", "SECRET_TOKEN=s3"],
                    "Extra_Env": [{"name": "SECRET_TOKEN", "value": "s4"}],
                },
                "title": "env SECRET_TOKEN stays in a title: not an env field",
            }}}
        });
        scrub_env(&mut v);
        let text = v.to_string();
        for secret in ["s1", "s2", "s3", "s4", "junk"] {
            assert!(
                !text.contains(&format!("\"{secret}\"")),
                "{secret} in {text}"
            );
        }
        assert!(text.contains("/c") && text.contains("/x") && text.contains("/o"));
        assert!(text.contains("not an env field"));
    }

    #[test]
    fn an_older_snapshot_without_optional_parts_loads() {
        let text = r#"{"version": 1, "state": {"workspaces": [], "tabs": {}, "panes": {}}}"#;
        let s: Snapshot = serde_json::from_str(text).unwrap();
        assert_eq!(s.state.pane_count(), 0);
        assert!(s.saved_at.is_none());
    }
}
