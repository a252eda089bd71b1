//! Panes. The OS layer lives here: [`spawn`] validates a request and starts a child on a fresh
//! pseudo-terminal, [`pty`] is the handle to that terminal (output events, input, resize, signals,
//! hangup), and [`signal`] is the allow-list of signals a client may send. The pane actor sits on
//! top of [`pty::Pty`]: it is the only owner of a pane's terminal and child.
//!
//! Invariants kept by this layer: every descriptor is close-on-exec (a pane's child never inherits
//! another pane's terminal), every child is reaped exactly once, an idle pane costs no CPU and no
//! wake-ups, and all `unsafe` is confined to the private `sys` module.

pub mod actor;
pub mod attached;
mod burst;
pub mod feed;
mod input;
mod lazy_watch;
pub mod notify_limit;
mod output;
pub mod paint;
pub mod pty;
mod pty_events;
mod reaper;
pub mod signal;
pub mod sizing;
pub mod spawn;
pub(crate) mod sys;
