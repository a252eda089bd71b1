//! The wire types presented once, for every client: lower-case names of the proto enums
//! ([`names`]), a stable JSON model of the messages ([`json`], [`layout`]), each event of the
//! Subscribe stream in a readable form ([`events`]), and short text forms of single values
//! ([`text`]) and of a race's entries ([`race`]). The server has its own pb↔domain conversions; this is the client side only.

pub mod events;
pub mod json;
pub mod layout;
pub mod names;
pub mod race;
pub mod text;
