//! `signaltty events [--from-seq N] [--kind workspace,tab,…] [--count N]`: follows the Subscribe
//! stream, one line per message (JSON lines with `--json`, each with `seq` and `kind`).
//!
//! Exit status: 0 when the server ends the stream (it shuts down) or after `--count` events;
//! 1 (`LAGGED`) when the server dropped us for falling behind — the last line says which
//! `--from-seq` resumes; 3 when the connection is lost.
//!
//! Over a remote (`--remote NAME`) a lost link is not the end: the remote server still runs, so
//! the stream redials with backoff (saying so on stderr) and resubscribes from the last seq it
//! printed. The server replays what was missed from its ring, in order and nothing twice, or
//! says `HistoryLost` when the link was down longer than the ring holds.

use std::time::Duration;

use crate::present::events::EventView;
use crate::present::names;
use clap::Args;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::event_service_client::EventServiceClient;
use signaltty_proto::v1::subscribe_response::Kind as StreamKind;

use signaltty_client::{Backoff, ClientError};
use tonic::transport::Channel;

use super::Ctx;
use crate::error::{CliError, CliResult, ErrorKind};

/// `signaltty events`
#[derive(Debug, Args)]
pub struct EventsArgs {
    /// Replay the retained events after this seq first (0: everything retained) [default: live
    /// events only].
    #[arg(long, value_name = "SEQ")]
    from_seq: Option<u64>,
    /// Only these kinds, comma-separated: workspace, tab, pane, lifecycle, attention,
    /// notification, decision, git, server.
    #[arg(long, value_name = "KINDS", value_parser = parse_kinds)]
    kind: Option<KindList>,
    /// Stop after this many events (control messages do not count).
    #[arg(long, value_name = "N")]
    count: Option<u64>,
}

/// A parsed `--kind` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindList(pub Vec<pb::EventKind>);

fn parse_kinds(text: &str) -> Result<KindList, String> {
    names::parse_list::<pb::EventKind>(text).map(KindList)
}

/// Runs `signaltty events`.
pub async fn cmd_events(ctx: &Ctx, args: EventsArgs) -> CliResult {
    if args.count == Some(0) {
        return Ok(());
    }
    let mut follow = Follow {
        kinds: args
            .kind
            .map(|k| k.0)
            .unwrap_or_default()
            .into_iter()
            .map(|k| k as i32)
            .collect(),
        cursor: args.from_seq,
        count: args.count,
        events_seen: 0,
        subscribed: false,
    };
    let seed = u64::from(std::process::id());
    let mut backoff =
        Backoff::with_limits(Duration::from_millis(200), Duration::from_secs(10), seed);
    loop {
        let err = match follow.run(ctx).await {
            Ok(()) => return Ok(()),
            Err(Ended::Cli(err)) => return Err(err),
            Err(Ended::Link(err)) => err,
        };
        let Some(remote) = ctx.remote.as_ref().filter(|_| link_failure(&err)) else {
            return Err(err.into());
        };
        if std::mem::take(&mut follow.subscribed) {
            // The link had come back before it broke again: a fresh outage, a fresh backoff.
            backoff.reset();
        }
        let delay = backoff.next_delay();
        eprintln!(
            "[signaltty: link to {} lost ({}); reconnecting in {:.1}s]",
            remote.name,
            err.to_string().lines().next().unwrap_or_default(),
            delay.as_secs_f64()
        );
        tokio::time::sleep(delay).await;
    }
}

/// Why one subscription ended early.
enum Ended {
    /// The connection or the server's answer: over a remote, a lost link is redialled.
    Link(ClientError),
    /// Ours: the output failed, or the stream said we lagged.
    Cli(CliError),
}

impl From<tonic::Status> for Ended {
    fn from(status: tonic::Status) -> Self {
        Ended::Link(status.into())
    }
}

/// An `events` run across (re)subscriptions.
struct Follow {
    kinds: Vec<i32>,
    /// The last seq printed (or the head the server said it had synced to): where a
    /// resubscription picks up. `None` before the first subscription without `--from-seq`.
    cursor: Option<u64>,
    count: Option<u64>,
    events_seen: u64,
    /// A subscription was answered since the last lost link.
    subscribed: bool,
}

impl Follow {
    /// One subscription, until the stream ends (`Ok`), `--count` is reached (`Ok`) or it fails.
    async fn run(&mut self, ctx: &Ctx) -> Result<(), Ended> {
        let channel = match &ctx.remote {
            Some(remote) => signaltty_client::remote::connect_remote(remote)
                .await
                .map_err(Ended::Link)?
                .channel(),
            None => ctx.channel().await.map_err(Ended::Cli)?,
        };
        self.stream(ctx, channel).await
    }

    async fn stream(&mut self, ctx: &Ctx, channel: Channel) -> Result<(), Ended> {
        let request = pb::SubscribeRequest {
            from_seq: self.cursor,
            kinds: self.kinds.clone(),
        };
        let mut stream = EventServiceClient::new(channel)
            .subscribe(request)
            .await?
            .into_inner();
        self.subscribed = true;
        while let Some(message) = stream.message().await? {
            let Some(view) = EventView::of(&message) else {
                continue;
            };
            let printed = if ctx.out.is_json() {
                ctx.out.json_line(&view.json)
            } else {
                ctx.out.line(view.human_line())
            };
            printed.map_err(Ended::Cli)?;
            match message.kind {
                Some(StreamKind::Lagged(lagged)) => {
                    return Err(Ended::Cli(CliError::with_reason(
                        ErrorKind::Server,
                        format!(
                            "fell too far behind the event stream; resume with --from-seq {}",
                            lagged.last_delivered_seq
                        ),
                        "LAGGED",
                    )));
                }
                Some(StreamKind::Synced(synced)) => self.cursor = Some(synced.head_seq),
                Some(StreamKind::HistoryLost(lost)) => self.cursor = Some(lost.head_seq),
                Some(StreamKind::Event(event)) => {
                    self.cursor = Some(event.seq);
                    self.events_seen += 1;
                    if self.count.is_some_and(|n| self.events_seen >= n) {
                        return Ok(());
                    }
                }
                None => {}
            }
        }
        Ok(())
    }
}

/// Whether trying the link again may help: the transport broke or the host did not answer. A
/// refusal by the remote server or a version mismatch stays an error.
fn link_failure(err: &ClientError) -> bool {
    err.is_retryable()
        || matches!(
            err,
            ClientError::Remote {
                reason: "REMOTE_UNREACHABLE" | "REMOTE_TIMEOUT",
                ..
            }
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_as_a_comma_list() {
        assert_eq!(
            parse_kinds("workspace,pane"),
            Ok(KindList(vec![
                pb::EventKind::Workspace,
                pb::EventKind::Pane
            ]))
        );
        assert!(parse_kinds("weather").is_err());
    }
}
