//! Agent awareness without I/O on the hot path: which coding agent runs in a pane, what its hook
//! events mean for the pane's lifecycle and attention ([`mapping`]), where its session id lives and
//! how to resume it ([`session`]), how a verdict is spelled back to it ([`hook_output`]), and the
//! installers that register our hooks in the agent's own config ([`install`]).
//!
//! The set of kinds ([`AgentKind`], defined with the pane records in `model::agent`) is closed:
//! supporting a new agent family means adding Rust code there and here.

pub mod hook_output;
pub mod install;
pub mod mapping;
pub mod payload;
pub mod session;

pub use crate::model::agent::{AgentKind, UnknownAgent};
