//! The signaltty server as a library: `Daemon::start` is the composition root; the binary and the
//! in-process integration tests both go through it.

pub mod model;
pub mod term;
