//! The signaltty terminal UI: every workspace, tab, pane and agent on one screen.
//!
//! Elm-style: [`app::App`] is the whole state, [`update::update`] turns a [`app::Msg`] into state
//! changes plus [`app::Effect`]s (requests for the runtime to carry out), and [`view::view`]
//! draws the state. Only [`runtime`] (with [`terminal`] and [`conn`]) touches the terminal, the
//! server and the clock, so behaviour is tested by driving `update` with keys ([`dsl`]) and
//! rendering into ratatui's `TestBackend`.

pub mod action;
pub mod actions;
pub mod app;
pub mod catalog;
pub mod config;
pub mod conn;
pub mod copy_mode;
pub mod copy_state;
pub mod decision_box;
pub mod diff;
pub mod diff_view;
pub mod dsl;
pub mod encode;
pub mod field;
pub mod focus;
pub mod frame_cells;
pub mod frames;
pub mod geometry;
pub mod git;
pub mod git_replies;
pub mod input;
pub mod keymap;
pub mod keys;
pub mod machine_request;
pub mod machines;
pub mod moves;
pub mod names;
pub mod navigate;
pub mod outer_notify;
pub mod overlay_keys;
pub mod pacing;
pub mod picker;
pub mod pointer;
pub mod presets;
pub mod prompt;
pub mod race_diff;
pub mod race_keep;
pub mod race_state;
pub mod race_view;
pub mod regions;
pub mod respawn;
pub mod runtime;
pub mod shell_line;
pub mod sidebar_row;
pub mod spawn;
pub mod spawn_form;
pub mod styled;
pub mod terminal;
pub mod tui_options;
pub mod unified_diff;
pub mod update;
pub mod view;
pub mod zoom_file;

#[cfg(test)]
mod machines_tests;
#[cfg(test)]
mod many_panes_tests;
#[cfg(test)]
mod test_fixture;
