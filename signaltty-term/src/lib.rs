//! The terminal model of a pane, with no I/O: the pane actor feeds every chunk of PTY output to a
//! [`Screen`] (visible screen + bounded [`History`]) and to an [`OscScanner`] (titles,
//! notifications, bells), and answers captures and attach snapshots from them. The emulator
//! answers the program's queries about its terminal; [`QueryFilter`] takes those queries out of
//! output that a client shows on a real terminal. Every text a program can put into storage or
//! in front of a client goes through [`sanitize`] first.

pub mod drawn;
pub mod history;
pub mod osc;
mod osc_limit;
pub mod query_filter;
mod render;
pub mod sanitize;
pub mod screen;
pub mod view;
pub mod vt;

#[cfg(test)]
mod throughput_tests;
#[cfg(test)]
mod tmux_tests;

pub use history::{History, HistoryLimits, HistoryTail};
pub use osc::{MAX_OSC_BYTES, OscScanner, TermEvent};
pub use query_filter::QueryFilter;
pub use sanitize::{BODY_MAX_CHARS, TITLE_MAX_CHARS, sanitize, strip};
pub use screen::{Screen, ScreenSnapshot, ScrollbackCopy};
