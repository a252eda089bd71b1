//! Support for the suites that drive the real agents (`tests/real_*.rs`): pinned installs from
//! npm, fake model servers on loopback, and each agent's world.

pub mod anthropic;
pub mod claude;
pub mod npm;
