//! Terminals handed over by clients (`signaltty attach`): the server reads the keys and writes
//! the pane's output to the client's own terminal, as tmux's server does, so a keystroke's echo
//! crosses one process instead of three (client → server → client).
//!
//! The protocol is `signaltty_tty::protocol` (a line-based conversation on a second socket,
//! `<socket>.tty`, with descriptors passed by `SCM_RIGHTS`); it is a private fast path beside
//! the gRPC API, which stays complete: a client that cannot use it attaches over
//! `PaneService.Attach`. [`listen`] accepts (peer uid checked, the peer placed in or outside a
//! pane exactly like a gRPC caller); [`dispatch`] reads the opening request and refuses what
//! does not parse or belong; [`session`] shows one pane on a handed-off terminal; [`direct`]
//! gives a client that shows a pane over gRPC the pane's input to write itself (direct input);
//! [`paint`] takes a client's terminal and a pane's rectangle on it and lets the pane actor
//! write the pane's changes there (server paint, `pane/paint.rs`); [`lent`] reads that client's
//! keys while it paints, and writes the plain ones to the pane.

pub mod direct;
pub mod dispatch;
pub mod fitted;
pub mod lent;
pub mod listen;
pub mod paint;
pub mod session;
