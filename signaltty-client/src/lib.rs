//! What every Rust client of the signaltty server shares (the CLI and the TUI): connecting
//! (with auto-start and reconnect), a live catalog mirrored from the event stream, the attach
//! driver, and geometry over the server's layout trees. Nothing here draws to a terminal.

pub mod catalog;
pub mod geometry;
