//! The wire types as the CLI presents them: a stable JSON model of the messages ([`json`],
//! [`layout`]), each event of the Subscribe stream in a readable form ([`events`]) and short text
//! forms of single values ([`text`]). The enum names and a race's lines are shared with the TUI
//! (`signaltty_client::present`), re-exported here so the CLI names every form from one place.

pub mod events;
pub mod json;
pub mod layout;
pub mod text;

pub use signaltty_client::present::{names, race};
