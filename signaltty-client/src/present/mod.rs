//! The wire types presented once for the CLI and the TUI alike: lower-case names of the proto
//! enums ([`names`]) and short text forms of a race's entries ([`race`]). What only the CLI prints
//! (its JSON model, readable events, other text forms) is the CLI's `present` module. The server
//! has its own pb↔domain conversions; this is the client side only.

pub mod names;
pub mod race;
