//! Terminals handed over by clients (`signaltty attach`): the server reads the keys and writes
//! the pane's output to the client's own terminal, as tmux's server does, so a keystroke's echo
//! crosses one process instead of three (client → server → client).
//!
//! The protocol is `signaltty_tty::handoff` (a line-based conversation on a second socket,
//! `<socket>.tty`, with the terminal's descriptors passed by `SCM_RIGHTS`); it is a private fast
//! path beside the gRPC API, which stays complete: a client that cannot hand off attaches over
//! `PaneService.Attach`. [`listen`] accepts (peer uid checked, the peer placed in or outside a
//! pane exactly like a gRPC caller); [`session`] shows one pane on one terminal; [`direct`] gives
//! a client that shows a pane over gRPC the pane's input to write itself (direct input); [`paint`]
//! takes a client's terminal and a pane's rectangle on it and lets the pane actor write the pane's
//! echoes there (server paint, `pane/paint.rs`); [`keys`] reads that client's keys while it
//! paints, and writes the plain ones to the pane.

pub mod direct;
pub mod fitted;
pub mod keys;
pub mod listen;
pub mod paint;
pub mod session;
