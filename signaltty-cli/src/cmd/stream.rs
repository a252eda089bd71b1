//! `signaltty pane stream PANE [--screen]`: a pane's output as raw bytes on stdout, for a file, a
//! pipe or a program rather than a terminal. Read-only (the pane's size and attention are left
//! alone). Ends when the pane's process exits or the pane closes; with `--screen` the current
//! screen (a repaint, as escape sequences) comes first. After a Resync (this reader fell behind)
//! the skipped bytes are gone; a line on stderr says so. The attach stream may report the exit
//! before the last output reaches it, so after `Exited` the stream is read on up to the pane's
//! final output offset (from `GetPane`).

use std::io::Write;

use clap::Args;
use signaltty_client::{AttachEvent, AttachStart};
use signaltty_proto::v1 as pb;

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
        ..AttachStart::new(pane.clone(), 80, 24)
    };
    let (mut events, _input) = client.attach(start).await?.split();
    let mut first = true;
    // Where the output seen so far ends, and (once the process exited) where all of it ends:
    // the exit may be reported before the last output reaches this stream.
    let mut offset = 0u64;
    let mut final_offset = None;
    while final_offset.is_none_or(|end| offset < end) {
        let Some(event) = events.next().await? else {
            break;
        };
        let data = match event {
            AttachEvent::Snapshot(snapshot) => {
                offset = snapshot.offset;
                if !(first && args.screen) {
                    continue;
                }
                snapshot.bytes
            }
            AttachEvent::Output { data, end_offset } => {
                offset = end_offset;
                data
            }
            AttachEvent::Exited { .. } => {
                let pane = client
                    .panes()
                    .get_pane(pb::GetPaneRequest {
                        pane_id: pane.clone(),
                    })
                    .await?
                    .into_inner()
                    .pane
                    .unwrap_or_default();
                final_offset = Some(pane.output_offset);
                continue;
            }
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
