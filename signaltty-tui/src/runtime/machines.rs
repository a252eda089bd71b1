//! The other machines' side of the runtime (issue 33): asks the local server for its machines
//! (`ListMachines`) and, for each remote, keeps a catalog feed following that machine's events
//! through the local server (the `signaltty-machine` metadata), as [`Msg::Machines`] and
//! [`Msg::RemoteFeed`] for `update`.
//!
//! A user without remotes pays one call at start and nothing after: the list is polled only
//! while it names a remote (every [`POLL`], to show a link's state and its next try as they
//! change). A remote's feed reconnects by itself ([`crate::catalog::run_feed_on`]): a dropped
//! link (`REMOTE_LINK_LOST`) ends its stream, and it resubscribes from the last seq it saw.

use std::collections::HashMap;
use std::time::Duration;

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::server_service_client::ServerServiceClient;
use tokio::sync::mpsc;

use super::Slot;
use crate::app::Msg;
use crate::catalog::run_feed_on;

/// How often the machines' states are read while remotes exist.
pub const POLL: Duration = Duration::from_secs(1);

/// Runs until the TUI ends (or, without remotes, after the first answer).
pub async fn run(slot: Slot, tx: mpsc::UnboundedSender<Msg>) {
    let mut feeds: HashMap<String, tokio::task::JoinHandle<()>> = HashMap::new();
    // The first call dials the remotes not dialled yet: the TUI shows them at once.
    let mut connect = true;
    loop {
        let listed = match slot.get() {
            Some(client) => ServerServiceClient::new(client.channel())
                .list_machines(pb::ListMachinesRequest { connect })
                .await
                .map(|r| r.into_inner().machines),
            None => Ok(Vec::new()),
        };
        connect = false;
        let machines = match listed {
            Ok(machines) => machines,
            // An older server without the call: nothing to show.
            Err(_) if feeds.is_empty() => return,
            // A restart under way: the remotes stay as they were shown until it answers.
            Err(_) => {
                tokio::time::sleep(POLL).await;
                continue;
            }
        };
        let remotes: Vec<String> = machines
            .iter()
            .filter(|m| m.name != "local")
            .map(|m| m.name.clone())
            .collect();
        if remotes.is_empty() && feeds.is_empty() {
            return;
        }
        if tx.send(Msg::Machines(machines)).is_err() {
            break;
        }
        for name in &remotes {
            feeds
                .entry(name.clone())
                .or_insert_with(|| start_feed(name.clone(), slot.clone(), tx.clone()));
        }
        feeds.retain(|name, feed| {
            let kept = remotes.contains(name);
            if !kept {
                feed.abort();
            }
            kept
        });
        tokio::time::sleep(POLL).await;
    }
    for (_, feed) in feeds {
        feed.abort();
    }
}

/// One remote's catalog feed, through the local server's connection of the moment.
fn start_feed(
    machine: String,
    slot: Slot,
    tx: mpsc::UnboundedSender<Msg>,
) -> tokio::task::JoinHandle<()> {
    let (feed_tx, mut feed_rx) = mpsc::unbounded_channel();
    let name = machine.clone();
    tokio::spawn(async move {
        let feed = run_feed_on(
            Some(machine),
            move || {
                let channel = slot.get().map(|c| c.channel());
                async move { channel.ok_or("not connected to the server") }
            },
            feed_tx,
        );
        let forward = async {
            while let Some(feed) = feed_rx.recv().await {
                let msg = Msg::RemoteFeed {
                    machine: name.clone(),
                    feed,
                };
                if tx.send(msg).is_err() {
                    return;
                }
            }
        };
        tokio::select! {
            () = feed => {}
            () = forward => {}
        }
    })
}
