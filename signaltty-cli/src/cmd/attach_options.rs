//! What the attach commands share, below them all (`attach`, its hand-off and its relink of a
//! remote link): how an attach is set up ([`AttachOptions`], from the config file by
//! [`configured`]), the signals it answers ([`Signals`]), how it ended ([`AttachEnd`]), and the
//! status line it prints on the attached terminal.

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::error::{CliError, CliResult};

/// The byte that detaches (the config file's type, so both spell keys the same way).
pub use signaltty_config::DetachKey;

/// The config file's `[attach]` detach key (else the default) and its `[fast_paths]`. A config
/// file with mistakes is an error here as at the server's start: `signaltty config check`
/// lists them.
pub fn configured() -> CliResult<AttachOptions> {
    match signaltty_config::load_located(None) {
        Ok(loaded) => Ok(AttachOptions {
            detach_key: loaded.config.attach.detach_key.unwrap_or_default(),
            fast_paths: loaded.config.fast_paths,
            ..AttachOptions::default()
        }),
        Err(problems) => Err(CliError::usage(format!(
            "the config file has mistakes (see `signaltty config check`):\n{problems}"
        ))),
    }
}

/// How an attach is set up.
#[derive(Debug, Clone, Copy)]
pub struct AttachOptions {
    /// Watch only.
    pub read_only: bool,
    /// The byte that detaches.
    pub detach_key: DetachKey,
    /// Clear the pane's attention on attach.
    pub mark_seen: bool,
    /// The hand-off's switches (`[fast_paths]` of the config file).
    pub fast_paths: signaltty_config::FastPaths,
}

impl Default for AttachOptions {
    fn default() -> Self {
        AttachOptions {
            read_only: false,
            detach_key: DetachKey::default(),
            mark_seen: true,
            fast_paths: signaltty_config::FastPaths::default(),
        }
    }
}

/// Why an attach ended.
#[derive(Debug)]
pub enum AttachEnd {
    /// The detach key.
    Detached,
    /// The pane's process exited with this code.
    Exited(i32),
    /// The pane was closed.
    Closed,
    /// The server went away.
    StreamEnded,
    /// Something failed.
    Failed(CliError),
    /// A signal to this process.
    Signal(&'static str),
}

/// The signals an attach answers while it lasts.
pub struct Signals {
    winch: Signal,
    term: Signal,
    hup: Signal,
    int: Signal,
    quit: Signal,
}

impl Signals {
    /// Starts listening.
    pub fn new() -> std::io::Result<Signals> {
        Ok(Signals {
            winch: signal(SignalKind::window_change())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
            int: signal(SignalKind::interrupt())?,
            quit: signal(SignalKind::quit())?,
        })
    }

    /// The next signal (cancel-safe): `None` for a window change, else the name of one that
    /// ends the attach.
    pub async fn next(&mut self) -> Option<&'static str> {
        tokio::select! {
            _ = self.winch.recv() => None,
            _ = self.term.recv() => Some("SIGTERM"),
            _ = self.hup.recv() => Some("SIGHUP"),
            _ = self.int.recv() => Some("SIGINT"),
            _ = self.quit.recv() => Some("SIGQUIT"),
        }
    }
}

/// One status line on the attached terminal (raw mode: CR LF around it).
pub fn print_status(text: &str) {
    print_stdout(&format!("\r\n{text}\r\n"));
}

/// `text` on stdout, now (the attached terminal, raw or restored).
pub fn print_stdout(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}
