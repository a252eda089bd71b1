//! The signaltty server as a library: `Daemon::start` is the composition root; the binary and the
//! in-process integration tests both go through it.

pub mod agents;
pub mod args;
pub mod bus;
pub mod config;
pub mod daemon;
pub mod error;
pub mod fdlimit;
pub mod git;
pub mod hub;
#[cfg(test)]
mod layering;
pub mod lineage;
pub mod listen;
pub mod log_limit;
pub mod logfile;
pub mod machines;
pub mod memory;
pub mod orphans;
pub mod pane;
pub mod peer;
pub mod persist;
pub mod rpc;
pub mod store;
pub mod terminal;
/// The pure domain, a crate of its own (cargo keeps it from naming the server's upper floors);
/// re-exported so the server's code and tests keep their `model::` paths.
pub use signaltty_model as model;
pub use signaltty_term as term;
