//! `signaltty events [--from-seq N] [--kind workspace,tab,…] [--count N]`: follows the Subscribe
//! stream, one line per message (JSON lines with `--json`, each with `seq` and `kind`).
//!
//! Exit status: 0 when the server ends the stream (it shuts down) or after `--count` events;
//! 1 (`LAGGED`) when the server dropped us for falling behind — the last line says which
//! `--from-seq` resumes; 3 when the connection is lost.

use clap::Args;
use signaltty_client::present::events::EventView;
use signaltty_client::present::names;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::event_service_client::EventServiceClient;
use signaltty_proto::v1::subscribe_response::Kind as StreamKind;

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
    let mut client = EventServiceClient::new(ctx.channel().await?);
    let request = pb::SubscribeRequest {
        from_seq: args.from_seq,
        kinds: args
            .kind
            .map(|k| k.0)
            .unwrap_or_default()
            .into_iter()
            .map(|k| k as i32)
            .collect(),
    };
    let mut stream = client.subscribe(request).await?.into_inner();
    let mut events_seen = 0u64;
    if args.count == Some(0) {
        return Ok(());
    }
    while let Some(message) = stream.message().await? {
        let Some(view) = EventView::of(&message) else {
            continue;
        };
        if ctx.out.is_json() {
            ctx.out.json_line(&view.json)?;
        } else {
            ctx.out.line(view.human_line())?;
        }
        match message.kind {
            Some(StreamKind::Lagged(lagged)) => {
                return Err(CliError::with_reason(
                    ErrorKind::Server,
                    format!(
                        "fell too far behind the event stream; resume with --from-seq {}",
                        lagged.last_delivered_seq
                    ),
                    "LAGGED",
                ));
            }
            Some(StreamKind::Event(_)) => {
                events_seen += 1;
                if args.count.is_some_and(|n| events_seen >= n) {
                    return Ok(());
                }
            }
            _ => {}
        }
    }
    Ok(())
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
