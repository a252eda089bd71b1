//! `signaltty attach PANE [--read-only] [--detach-key KEY]`: this terminal becomes the pane's
//! terminal over the `Attach` bidirectional stream.
//!
//! The attach itself is `signaltty_client`'s driver; this file is what a real terminal does
//! with it. The terminal goes raw (`signaltty_client::raw_mode`) only after the server's first
//! message (a Snapshot) proves the attach works. Snapshot and Output bytes go to stdout as they
//! are, less the queries the server answers for the pane (DA, cursor position: [`QueryFilter`]),
//! which this terminal would otherwise answer a second time, with its own cursor position; typed
//! bytes (read from the terminal in the same task, `signaltty_client::tty_input`) go to the pane
//! as Input; SIGWINCH becomes a Resize. The detach key (Ctrl-\ by default, `--detach-key`:
//! `ctrl-X`, `C-X` or `^X` for a control key, or `0xNN` for any byte) ends the attach without
//! sending that byte; the pane's process keeps running. An Exited message, the stream ending
//! (server gone), SIGTERM, SIGHUP, SIGINT or SIGQUIT also end it; in every case the
//! terminal is restored first.

use std::io::IsTerminal;

use clap::Args;
use signaltty_client::raw_mode::{ModeTracker, RawMode};
use signaltty_client::tty_input::TtyInput;
use signaltty_client::{AttachEvent, AttachStart, Client};
use signaltty_term::QueryFilter;
use tokio::signal::unix::{SignalKind, signal};

use super::{Ctx, terminal_size};
use crate::error::{CliError, CliResult, ErrorKind};
use crate::resolve::Kind;

/// Ctrl-\ (FS), tmux-free and rarely used by programs.
pub const DEFAULT_DETACH_KEY: u8 = signaltty_config::detach_key::DEFAULT.0;

/// `signaltty attach`
#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The pane: an id, a unique id prefix or title [default: the pane attached to last, else
    /// the last one used].
    pane: Option<String>,
    /// Watch only: typing is not sent and this terminal's size does not count.
    #[arg(long)]
    read_only: bool,
    /// The key that detaches: ctrl-X, C-X or ^X (X in A-Z @ [ \ ] ^ _), or 0xNN [default: the
    /// config file's [attach] detach_key, else ctrl-\].
    #[arg(long, value_name = "KEY", value_parser = parse_detach_key)]
    detach_key: Option<DetachKey>,
    /// Do not clear the pane's attention on attach.
    #[arg(long)]
    no_mark_seen: bool,
}

/// The byte that detaches (the config file's type, so both spell keys the same way).
pub use signaltty_config::DetachKey;

/// Parses `ctrl-\`, `C-a`, `^]`, `0x1d`.
pub fn parse_detach_key(text: &str) -> Result<DetachKey, String> {
    text.parse()
}

/// The detach key of the config file's `[attach]` section, else the default. A config file with
/// mistakes is an error here as at the server's start: `signaltty config check` lists them.
pub fn configured_detach_key() -> CliResult<DetachKey> {
    let path = signaltty_config::default_path();
    match signaltty_config::load(&path, signaltty_config::Missing::Default) {
        Ok(loaded) => Ok(loaded.config.attach.detach_key.unwrap_or_default()),
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
}

impl Default for AttachOptions {
    fn default() -> Self {
        AttachOptions {
            read_only: false,
            detach_key: DetachKey(DEFAULT_DETACH_KEY),
            mark_seen: true,
        }
    }
}

/// Why an attach ended.
#[derive(Debug)]
enum AttachEnd {
    Detached,
    Exited(i32),
    StreamEnded,
    Failed(CliError),
    Signal(&'static str),
}

/// Runs `signaltty attach`.
pub async fn cmd_attach(ctx: &Ctx, args: AttachArgs) -> CliResult {
    let detach_key = match args.detach_key {
        Some(key) => key,
        None => configured_detach_key()?,
    };
    let options = AttachOptions {
        read_only: args.read_only,
        detach_key,
        mark_seen: !args.no_mark_seen,
    };
    let client = ctx.client().await?;
    let pane = match args.pane.as_deref() {
        // tmux's `attach` habit: no argument reattaches to the last pane attached to; before
        // the first attach, the last pane used (the one just spawned, as tmux attaches to the
        // most recent session).
        None | Some("-") => {
            let last = crate::resolve::last_used(&ctx.target);
            last.attached.or(last.pane).ok_or_else(|| {
                CliError::usage(
                    "no pane attached to or used yet from this CLI: name one (`signaltty ls` \
                     lists them)",
                )
            })?
        }
        Some(word) => ctx.resolve(&client, Kind::Pane, Some(word)).await?,
    };
    attach(ctx, &client, &pane, options).await
}

/// Attaches this terminal to `pane` until detached; restores the terminal whatever happens.
pub async fn attach(ctx: &Ctx, client: &Client, pane: &str, options: AttachOptions) -> CliResult {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(CliError::usage(
            "attach needs a terminal on stdin and stdout",
        ));
    }
    let (cols, rows) = terminal_size().unwrap_or((80, 24));
    let start = AttachStart {
        read_only: options.read_only,
        mark_seen: options.mark_seen,
        ..AttachStart::new(pane, cols, rows)
    };
    // Waits for the server's first message before touching the terminal: a bad pane id fails
    // here with the terminal as it was.
    let (mut events, input) = client.attach(start).await?.split();
    crate::resolve::remember(
        &ctx.target,
        crate::resolve::LastUsed {
            pane: Some(pane.to_owned()),
            attached: Some(pane.to_owned()),
            ..Default::default()
        },
    );

    let mut sigwinch = signal(SignalKind::window_change())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigquit = signal(SignalKind::quit())?;
    let mut keys = TtyInput::open_stdin()
        .map_err(|e| CliError::local(format!("cannot read the terminal: {e}")))?;
    let guard = RawMode::enter()?;
    let mut screen = Screen::default();
    // One task does everything: a keystroke goes from the terminal's readiness to the
    // connection without another thread or queue in between.
    let end = loop {
        tokio::select! {
            event = events.next() => match event {
                Ok(Some(event)) => {
                    if let Some(end) = screen.show(event) {
                        break end;
                    }
                }
                Ok(None) => break AttachEnd::StreamEnded,
                Err(err) => break AttachEnd::Failed(err.into()),
            },
            typed = keys.read() => match typed {
                // The terminal hung up: nothing more can be typed, so leave.
                Ok([]) | Err(_) => break AttachEnd::Detached,
                Ok(bytes) => {
                    let (forward, detach) = split_at_detach(bytes, options.detach_key);
                    if !options.read_only {
                        input.input(forward.to_vec()).await;
                    }
                    if detach {
                        break AttachEnd::Detached;
                    }
                }
            },
            _ = sigwinch.recv() => {
                if let Some((cols, rows)) = terminal_size() {
                    input.resize(cols, rows).await;
                }
            }
            _ = sigterm.recv() => break AttachEnd::Signal("SIGTERM"),
            _ = sighup.recv() => break AttachEnd::Signal("SIGHUP"),
            _ = sigint.recv() => break AttachEnd::Signal("SIGINT"),
            _ = sigquit.recv() => break AttachEnd::Signal("SIGQUIT"),
        }
    };
    drop(guard);
    // Closing our half of the stream is the detach; the pane's process lives on.
    drop(input);
    // Park the cursor on the last line so the shell's prompt comes after the pane's screen.
    let park = "\x1b[999;1H\r\n";
    match end {
        AttachEnd::Detached => {
            print_stdout(&format!(
                "{park}[detached] {pane} keeps running; come back with: signaltty attach\n"
            ));
            Ok(())
        }
        AttachEnd::Exited(code) => {
            print_stdout(&format!("{park}[pane exited with code {code}]\n"));
            Ok(())
        }
        AttachEnd::StreamEnded => {
            print_stdout(park);
            Err(CliError::with_reason(
                ErrorKind::NoServer,
                "lost the connection to the server",
                "UNAVAILABLE",
            ))
        }
        AttachEnd::Failed(err) => {
            print_stdout(park);
            Err(err)
        }
        AttachEnd::Signal(name) => {
            print_stdout(&format!("{park}[detached: {name}]\n"));
            Err(CliError::local(format!("attach ended by {name}")))
        }
    }
}

/// What is known of this terminal while it shows the pane.
#[derive(Default)]
struct Screen {
    modes: ModeTracker,
    queries: QueryFilter,
}

impl Screen {
    /// Writes one event's bytes to the terminal; `Some` when it ends the attach.
    fn show(&mut self, event: AttachEvent) -> Option<AttachEnd> {
        let data = match event {
            AttachEvent::Snapshot(snapshot) => {
                // A repaint: whatever partial sequence was held belonged to skipped output.
                self.queries.reset();
                snapshot.bytes
            }
            AttachEvent::Output { data, .. } => self.queries.filter(&data),
            AttachEvent::Exited { code } => return Some(AttachEnd::Exited(code)),
            // A Snapshot follows a Resync at once and repaints; a size change needs nothing here.
            AttachEvent::Resync { .. } | AttachEvent::Resized { .. } => return None,
        };
        self.modes.observe(&data);
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        match stdout.write_all(&data).and_then(|()| stdout.flush()) {
            Ok(()) => None,
            Err(err) => Some(AttachEnd::Failed(err.into())),
        }
    }
}

/// The bytes to forward before the detach key, and whether the key was pressed.
pub fn split_at_detach(bytes: &[u8], key: DetachKey) -> (&[u8], bool) {
    match bytes.iter().position(|&b| b == key.0) {
        Some(at) => (&bytes[..at], true),
        None => (bytes, false),
    }
}

fn print_stdout(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detach_keys_parse_in_every_spelling() {
        assert_eq!(parse_detach_key("ctrl-\\"), Ok(DetachKey(0x1c)));
        assert_eq!(parse_detach_key("C-a"), Ok(DetachKey(0x01)));
        assert_eq!(parse_detach_key("^]"), Ok(DetachKey(0x1d)));
        assert_eq!(parse_detach_key("Ctrl+Q"), Ok(DetachKey(0x11)));
        assert_eq!(parse_detach_key("0x1f"), Ok(DetachKey(0x1f)));
        assert!(parse_detach_key("alt-x").is_err());
        assert!(parse_detach_key("ctrl-1").is_err());
        assert!(parse_detach_key("0x100").is_err());
    }

    #[test]
    fn input_is_cut_at_the_detach_key() {
        let key = DetachKey(DEFAULT_DETACH_KEY);
        assert_eq!(split_at_detach(b"ls\x1crest", key), (&b"ls"[..], true));
        assert_eq!(split_at_detach(b"ls -l\r", key), (&b"ls -l\r"[..], false));
    }

    #[test]
    fn the_default_detach_key_is_ctrl_backslash() {
        use crate::cli::{Cli, Command};
        use clap::Parser;
        let cli = Cli::try_parse_from(["signaltty", "attach", "pane_1"]).expect("valid");
        let Command::Attach(args) = cli.command else {
            panic!("attach")
        };
        assert_eq!(args.detach_key, None, "the config file's key, else ctrl-\\");
        assert_eq!(DetachKey::default(), DetachKey(0x1c));
    }
}
