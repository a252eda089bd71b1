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
