//! `signaltty pane stream PANE [--screen]`: a pane's output as raw bytes on stdout, for a file, a
//! pipe or a program rather than a terminal. Read-only (the pane's size and attention are left
//! alone). Ends when the pane's process exits or the pane closes; with `--screen` the current
//! screen (a repaint, as escape sequences) comes first. After a Resync (this reader fell behind)
//! the skipped bytes are gone; a line on stderr says so.

use std::io::Write;

use clap::Args;
use signaltty_client::{AttachEvent, AttachStart};

use super::Ctx;
use crate::error::CliResult;
use crate::resolve::Kind;

/// `signaltty pane stream`
#[derive(Debug, Args)]
pub struct StreamArgs {
    /// The pane: an id, a unique id prefix or title, or `-`/nothing for the last one used.
    pane: Option<String>,
    /// Write the current screen first (a repaint), then the output.
    #[arg(long)]
    screen: bool,
}

/// Runs `signaltty pane stream`.
pub async fn cmd_stream(ctx: &Ctx, args: StreamArgs) -> CliResult {
    let client = ctx.client().await?;
    let pane = ctx
        .resolve(&client, Kind::Pane, args.pane.as_deref())
        .await?;
    let start = AttachStart {
        read_only: true,
        mark_seen: false,
        ..AttachStart::new(pane, 80, 24)
    };
    let (mut events, _input) = client.attach(start).await?.split();
    let mut first = true;
    while let Some(event) = events.next().await? {
        let data = match event {
            AttachEvent::Snapshot(snapshot) if first && args.screen => snapshot.bytes,
            AttachEvent::Output { data, .. } => data,
            AttachEvent::Exited { .. } => break,
            AttachEvent::Resync { reason } => {
                eprintln!("signaltty pane stream: output skipped ({reason})");
                continue;
            }
            _ => continue,
        };
        first = false;
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(&data)?;
        stdout.flush()?;
    }
    Ok(())
}
