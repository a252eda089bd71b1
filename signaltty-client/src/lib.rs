//! What every Rust client of the signaltty server shares (the CLI and the TUI): connecting
//! (trust checks, auto-start, reconnect with backoff), the server's errors with their reasons,
//! the attach driver, the raw-mode guard and keyboard input for a client that owns a terminal,
//! the enum names and race lines both clients show, and a tab's split tree from either wire form.
//! Nothing here draws: what only the CLI prints is the CLI's, the live catalog and the layout
//! geometry are the TUI's.
//!
//! ```text
//!  connect(target, AutoStart) ─▶ trust::check_dir ─▶ UnixStream ─▶ trust::check_peer ─▶ Client
//!                                    (no server and AutoStart::Yes: autostart, then again)
//!  Client ── typed service clients (panes(), tabs(), events(), …)
//!         └─ attach(AttachStart) ─▶ Attach { events: AttachEvents ─▶ AttachEvent,
//!                                            input:  AttachInput  ◀─ keys, sizes }
//! ```
//!
//! Attaching to a pane and following it (what a client does with the events is its own):
//!
//! ```no_run
//! use signaltty_client::{AttachEvent, AttachStart, AutoStart, ClientError, Target};
//!
//! async fn follow(pane_id: &str) -> Result<(), ClientError> {
//!     let client = signaltty_client::connect(&Target::resolve(None), AutoStart::Yes).await?;
//!     let (mut events, input) = client.attach(AttachStart::new(pane_id, 80, 24)).await?.split();
//!     input.input(b"echo hi\r".to_vec()).await;
//!     while let Some(event) = events.next().await? {
//!         match event {
//!             AttachEvent::Snapshot(snapshot) => { /* repaint from snapshot.bytes */ }
//!             AttachEvent::Output { data, .. } => { /* feed data to the terminal model */ }
//!             AttachEvent::Exited { code } => break,
//!             AttachEvent::Resized { .. } | AttachEvent::Resync { .. } => {}
//!         }
//!     }
//!     Ok(())
//! }
//! ```

pub mod attach;
pub mod autostart;
pub mod catch_up;
pub mod client;
pub mod connect;
pub mod error;
pub mod layout_tree;
pub mod present;
pub mod raw_mode;
pub mod reconnect;
pub mod remote;
pub mod server_lock;
mod sys;
pub mod term_guard;
pub mod trust;

pub use attach::{Attach, AttachEvent, AttachEvents, AttachInput, AttachStart, Cursor, Snapshot};
pub use client::Client;
pub use connect::{AutoStart, Target, connect, try_connect};
pub use error::ClientError;
pub use reconnect::{Backoff, reconnect};
pub use signaltty_tty::{input as tty_input, output as tty_output};
pub use sys::{detach_into_new_session, terminal_size};
pub use trust::TrustError;
