//! Agent awareness without I/O on the hot path: what each agent's hook events mean for the
//! pane's lifecycle and attention ([`mapping`]), where its session id lives in a payload
//! ([`session`]), how a verdict is spelled back to it ([`hook_output`]), and the installers that
//! register our hooks in the agent's own config ([`install`]).
//!
//! The domain values these produce — [`AgentKind`], `SessionId`, `HookEffect` and the rules that
//! apply it — live in `model` (which never imports `agents`) and are re-exported here. The set of
//! kinds is closed: supporting a new agent family means adding Rust code here and in
//! `model::agent_kind`.

pub mod hook_output;
pub mod install;
pub mod mapping;
pub mod payload;
pub mod screen_signs;
pub mod session;

#[cfg(test)]
mod state_tests;

pub use crate::model::agent_kind::{AgentKind, UnknownAgent};
