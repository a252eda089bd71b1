//! Support for the suites that drive the real agents (`tests/real_*.rs`): pinned installs from
//! npm, fake model servers on loopback, and each agent's world.

pub mod anthropic;
pub mod chat;
pub mod claude;
pub mod codex;
pub mod loopback;
pub mod npm;
pub mod npm_codex;
pub mod opencode;
pub mod opencode_tui;
pub mod responses;

/// The option ids of a decision as `signaltty --json` shows it (`["once", "deny"]`).
#[allow(dead_code)] // each suite includes this module; not all ask for options
pub fn option_ids(decision: &serde_json::Value) -> Vec<&str> {
    decision["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["id"].as_str())
        .collect()
}
