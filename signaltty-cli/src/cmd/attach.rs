//! `signaltty attach PANE [--read-only] [--detach-key KEY]`: this terminal becomes the pane's
//! terminal over the `Attach` bidirectional stream.
//!
//! The attach itself is `signaltty_client`'s driver; this file is what a real terminal does
//! with it. The terminal goes raw (`signaltty_client::raw_mode`) only after the server's first
//! message (a Snapshot) proves the attach works. Snapshot and Output bytes go to the terminal
//! as they are, less the queries the server answers for the pane (DA, cursor position:
//! [`QueryFilter`]), which this terminal would otherwise answer a second time, with its own
//! cursor position. They are written without blocking (`signaltty_client::tty_output`); when
//! the terminal falls behind the pane, output is skipped and a fresh screen is written once it
//! caught up (`signaltty_client::catch_up`), so it never shows stale output late; typed
//! bytes (read from the terminal in the same task, `signaltty_client::tty_input`) go to the pane
//! as Input; SIGWINCH becomes a Resize. The detach key (Ctrl-\ by default, `--detach-key`:
//! `ctrl-X`, `C-X` or `^X` for a control key, or `0xNN` for any byte) ends the attach without
//! sending that byte; the pane's process keeps running. An Exited message, the stream ending
//! (server gone), SIGTERM, SIGHUP, SIGINT or SIGQUIT also end it; in every case the
//! terminal is restored first.

use std::io::IsTerminal;

use clap::Args;
use signaltty_client::catch_up::{CatchUp, CatchUpState, Piece, fetch_snapshot};
use signaltty_client::raw_mode::{ModeTracker, RawMode};
use signaltty_client::tty_input::TtyInput;
use signaltty_client::tty_output::TtyOutput;
use signaltty_client::{AttachEvent, AttachStart, Client, ClientError, Snapshot};
use signaltty_term::QueryFilter;

use super::attach_options::print_stdout;
pub use super::attach_options::{AttachEnd, AttachOptions, DetachKey, Signals, configured};
use super::{Ctx, terminal_size};
use crate::error::{CliError, CliResult, ErrorKind};
use crate::resolve::Kind;

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
    #[arg(long, value_name = "KEY", value_parser = clap::value_parser!(DetachKey))]
    detach_key: Option<DetachKey>,
    /// Do not clear the pane's attention on attach.
    #[arg(long)]
    no_mark_seen: bool,
}

/// Runs `signaltty attach`.
pub async fn cmd_attach(ctx: &Ctx, args: AttachArgs) -> CliResult {
    let configured = configured()?;
    let options = AttachOptions {
        read_only: args.read_only,
        detach_key: args.detach_key.unwrap_or(configured.detach_key),
        mark_seen: !args.no_mark_seen,
        ..configured
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
    attach(ctx, client, &pane, options).await
}

/// Attaches this terminal to `pane` until detached; restores the terminal whatever happens.
/// Takes the connection: once the server has the terminal it is closed (an idle connection
/// would count against the server's `max_connections` for as long as the attach lasts), so the
/// caller must hold no other clone of it.
pub async fn attach(ctx: &Ctx, client: Client, pane: &str, options: AttachOptions) -> CliResult {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(CliError::usage(
            "attach needs a terminal on stdin and stdout",
        ));
    }
    let remember = || {
        crate::resolve::remember(
            &ctx.target,
            crate::resolve::LastUsed {
                pane: Some(pane.to_owned()),
                attached: Some(pane.to_owned()),
                ..Default::default()
            },
        );
    };
    // A remote attach runs on the remote, in a terminal ssh gives it.
    if let Some(remote) = &ctx.remote {
        drop(client);
        remember();
        return super::attach_remote::attach(remote, pane, &options).await;
    }
    // The fast path: the server takes this terminal; else over gRPC.
    let client =
        match super::attach_handoff::attach(&ctx.target.socket, pane, &options, client).await {
            Ok(end) => {
                remember();
                return report(end, pane);
            }
            Err(client) => client,
        };
    let (cols, rows) = terminal_size().unwrap_or((80, 24));
    let start = AttachStart {
        read_only: options.read_only,
        mark_seen: options.mark_seen,
        ..AttachStart::new(pane, cols, rows)
    };
    // Waits for the server's first message before touching the terminal: a bad pane id fails
    // here with the terminal as it was.
    let (mut events, input) = client.attach(start).await?.split();
    remember();

    let mut signals = Signals::new()?;
    let mut keys = TtyInput::open_stdin()
        .map_err(|e| CliError::local(format!("cannot read the terminal: {e}")))?;
    let guard = RawMode::enter()?;
    let mut screen = Screen::new(cols, rows);
    // A fresh screen being fetched because the terminal fell behind (see `catch_up`).
    let mut fetch: Option<Fetch> = None;
    // Set by Exited: the attach ends once the terminal shows the final screen.
    let mut exited: Option<i32> = None;
    // One task does everything: a keystroke goes from the terminal's readiness to the
    // connection without another thread or queue in between, and the terminal is written
    // without blocking, so a slow terminal never stops the connection from being read.
    let end = loop {
        if let Some(generation) = screen.catch_up.want_snapshot(screen.out.pending()) {
            let (client, pane) = (client.clone(), pane.to_owned());
            let (cols, rows) = terminal_size().unwrap_or((cols, rows));
            fetch = Some(Box::pin(async move {
                let result = fetch_snapshot(&client, &pane, cols, rows).await;
                (generation, result)
            }));
        }
        if let Some(code) = exited
            && screen.caught_up()
        {
            break AttachEnd::Exited(code);
        }
        tokio::select! {
            event = events.next(), if exited.is_none() => match event {
                Ok(Some(AttachEvent::Exited { code })) => exited = Some(code),
                Ok(Some(event)) => {
                    if let Err(err) = screen.show(event) {
                        break AttachEnd::Failed(err.into());
                    }
                }
                Ok(None) => break AttachEnd::StreamEnded,
                Err(err) => break AttachEnd::Failed(err.into()),
            },
            (generation, result) = poll_fetch(&mut fetch) => {
                fetch = None;
                let pieces = screen.catch_up.fetched(generation, result);
                if let Err(err) = screen.write(pieces) {
                    break AttachEnd::Failed(err.into());
                }
            }
            flushed = screen.out.flush_some(), if screen.out.pending() > 0 => {
                if let Err(err) = flushed {
                    break AttachEnd::Failed(err.into());
                }
            }
            typed = keys.read() => match typed {
                // The terminal hung up: nothing more can be typed, so leave.
                Ok([]) | Err(_) => break AttachEnd::Detached,
                Ok(bytes) => {
                    let (forward, detach) =
                        signaltty_tty::split_at_detach(bytes, options.detach_key.0);
                    if !options.read_only {
                        input.input(forward.to_vec()).await;
                    }
                    if detach {
                        break AttachEnd::Detached;
                    }
                }
            },
            signal = signals.next() => match signal {
                Some(name) => break AttachEnd::Signal(name),
                None => if let Some((cols, rows)) = terminal_size() {
                    screen.catch_up.resize(cols, rows);
                    input.resize(cols, rows).await;
                },
            },
        }
    };
    drop(guard);
    // Closing our half of the stream is the detach; the pane's process lives on.
    drop(input);
    report(end, pane)
}

/// Tells the user how the attach ended, below the pane's screen.
fn report(end: AttachEnd, pane: &str) -> CliResult {
    let (line, result) = match end {
        AttachEnd::Detached => (
            format!("[detached] {pane} keeps running; come back with: signaltty attach\n"),
            Ok(()),
        ),
        AttachEnd::Exited(code) => (format!("[pane exited with code {code}]\n"), Ok(())),
        AttachEnd::Closed => ("[pane closed]\n".to_owned(), Ok(())),
        AttachEnd::StreamEnded => (
            String::new(),
            Err(CliError::with_reason(
                ErrorKind::NoServer,
                "lost the connection to the server",
                "UNAVAILABLE",
            )),
        ),
        AttachEnd::Failed(err) => (String::new(), Err(err)),
        AttachEnd::Signal(name) => (
            format!("[detached: {name}]\n"),
            Err(CliError::local(format!("attach ended by {name}"))),
        ),
    };
    // Park the cursor on the last line so the shell's prompt comes after the pane's screen.
    let park = String::from_utf8_lossy(signaltty_tty::modes::PARK_CURSOR);
    print_stdout(&format!("{park}{line}"));
    result
}

/// A fresh screen on its way: the catch-up's generation and the server's answer.
type Fetch = std::pin::Pin<
    Box<dyn std::future::Future<Output = (u64, Result<Snapshot, ClientError>)> + Send>,
>;

/// The fetch in flight, or never (for `select!`).
async fn poll_fetch(fetch: &mut Option<Fetch>) -> (u64, Result<Snapshot, ClientError>) {
    match fetch {
        Some(fetch) => fetch.await,
        None => std::future::pending().await,
    }
}

/// What is known of this terminal while it shows the pane.
struct Screen {
    modes: ModeTracker,
    queries: QueryFilter,
    catch_up: CatchUp,
    out: TtyOutput,
}

impl Screen {
    fn new(cols: u16, rows: u16) -> Screen {
        Screen {
            modes: ModeTracker::default(),
            queries: QueryFilter::default(),
            catch_up: CatchUp::new(cols, rows),
            out: TtyOutput::open_stdout(),
        }
    }

    /// Writes one event's bytes to the terminal, or skips them while it is behind.
    fn show(&mut self, event: AttachEvent) -> std::io::Result<()> {
        let pieces = match event {
            AttachEvent::Snapshot(snapshot) => self.catch_up.snapshot(snapshot),
            AttachEvent::Output { data, end_offset } => self.catch_up.output(data, end_offset),
            // A Snapshot follows a Resync at once and repaints; a size change needs nothing
            // here; Exited is the caller's.
            AttachEvent::Resync { .. }
            | AttachEvent::Resized { .. }
            | AttachEvent::Exited { .. } => Vec::new(),
        };
        self.write(pieces)
    }

    /// Writes what the catch-up let through; drops the backlog when the terminal fell behind.
    fn write(&mut self, pieces: Vec<Piece>) -> std::io::Result<()> {
        for piece in pieces {
            match piece {
                Piece::Repaint { bytes, first } => {
                    // Whatever partial query was held belonged to skipped output.
                    self.queries.reset();
                    if !first {
                        let prefix = self.modes.repaint_prefix();
                        self.out.push(&prefix)?;
                    }
                    self.modes.observe(&bytes);
                    self.out.push(&bytes)?;
                }
                Piece::Output(data) => {
                    let data = self.queries.filter_owned(data);
                    self.modes.observe(&data);
                    self.out.push(&data)?;
                }
            }
            if self.catch_up.wrote(self.out.pending()) {
                // Behind: what the terminal has not taken yet is not worth writing any more.
                self.out.discard();
                self.out.push(signaltty_tty::modes::CANCEL)?;
            }
        }
        Ok(())
    }

    /// The terminal has been given everything it should show (nothing skipped, nothing
    /// pending).
    fn caught_up(&self) -> bool {
        self.catch_up.state() == CatchUpState::Live && self.out.pending() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detach_key_flag_takes_the_config_files_spellings_and_defaults_to_it() {
        use crate::cli::{Cli, Command};
        use clap::Parser;
        let flag = |extra: &[&str]| {
            let args = ["signaltty", "attach", "pane_1"].iter().chain(extra);
            Cli::try_parse_from(args).map(|cli| match cli.command {
                Command::Attach(args) => args.detach_key,
                _ => panic!("attach"),
            })
        };
        assert_eq!(
            flag(&[]).ok(),
            Some(None),
            "the config file's key, else ctrl-\\"
        );
        assert_eq!(DetachKey::default(), DetachKey(0x1c));
        // Every spelling: `signaltty_config::detach_key`'s tests.
        assert_eq!(
            flag(&["--detach-key", "C-a"]).ok(),
            Some(Some(DetachKey(0x01)))
        );
        assert_eq!(
            flag(&["--detach-key", "0x1f"]).ok(),
            Some(Some(DetachKey(0x1f)))
        );
        assert!(flag(&["--detach-key", "alt-x"]).is_err());
    }
}
