//! The live catalog: the server's workspaces, tabs (with layouts), panes (with their pending
//! decisions) and unread notifications, mirrored from one `Subscribe` stream.
//!
//! Two halves. [`Catalog`] is plain data with a pure [`Catalog::apply`]: events are applied in
//! seq order, and an event at or below the catalog's seq is ignored, so replaying an overlap is
//! harmless. [`run_feed`] is the task that keeps a client's copy live: it loads the state
//! ([`Catalog::load`]: the head seq first, then the records, so nothing can fall between them),
//! subscribes with `from_seq` = that seq, and forwards every event. When the stream drops it
//! reconnects with backoff and resumes from the last seq it forwarded; only a `HistoryLost`
//! (the server's replay ring no longer reaches back that far, or a new server) costs a full
//! reload. The consumer owns its `Catalog` and applies what the feed sends, so a UI's update
//! function stays pure.
//!
//! Unread notifications: the stream says when one is created, not when one is read. `MarkSeen`
//! (which marks a pane's notifications read) shows as that pane's attention going to NONE, so a
//! pane's attention dropping to NONE drops its notifications here too.

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::event::Kind as Ev;
use signaltty_proto::v1::event_service_client::EventServiceClient;
use signaltty_proto::v1::notification_service_client::NotificationServiceClient;
use signaltty_proto::v1::server_service_client::ServerServiceClient;
use signaltty_proto::v1::subscribe_response::Kind as Sub;
use signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient;
use tokio::sync::mpsc;
use tonic::transport::Channel;

use signaltty_client::Backoff;

/// A mirror of the server's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    /// Workspaces in creation order.
    pub workspaces: Vec<pb::Workspace>,
    /// Tabs by id (their order is their workspace's `tab_ids`), each with its whole layout
    /// tree in memory ([`signaltty_client::layout_tree::held`]).
    pub tabs: HashMap<String, pb::Tab>,
    /// Panes by id; `pending_decision` is kept current by the decision events.
    pub panes: HashMap<String, pb::Pane>,
    /// Unread notifications, newest first.
    pub unread: Vec<pb::Notification>,
    /// The seq of the last event applied (or the head seq the load was taken at).
    pub seq: u64,
}

impl Catalog {
    /// Reads the whole state: the head seq first, so that a subscription from it misses
    /// nothing that happens during the load.
    pub async fn load(channel: Channel) -> Result<Catalog, tonic::Status> {
        Catalog::load_on(channel, None).await
    }

    /// [`Catalog::load`] of another machine through the local server (`machine`: the
    /// `signaltty-machine` metadata; `None`: the server's own).
    pub async fn load_on(
        channel: Channel,
        machine: Option<&str>,
    ) -> Result<Catalog, tonic::Status> {
        let on = |msg| crate::machine_request::on(machine, msg);
        let seq = ServerServiceClient::new(channel.clone())
            .get_status(on(pb::GetStatusRequest {}))
            .await?
            .into_inner()
            .head_seq;
        let mut workspaces_client = WorkspaceServiceClient::new(channel.clone());
        let listed = workspaces_client
            .list_workspaces(crate::machine_request::on(
                machine,
                pb::ListWorkspacesRequest {},
            ))
            .await?
            .into_inner()
            .workspaces;
        let mut catalog = Catalog {
            seq,
            ..Catalog::default()
        };
        for ws in listed {
            let full = match workspaces_client
                .get_workspace(crate::machine_request::on(
                    machine,
                    pb::GetWorkspaceRequest {
                        workspace_id: ws.id.clone(),
                    },
                ))
                .await
            {
                Ok(full) => full.into_inner(),
                // Closed between the two calls: its WorkspaceClosed event follows.
                Err(status) if status.code() == tonic::Code::NotFound => continue,
                Err(status) => return Err(status),
            };
            for mut tab in full.tabs {
                signaltty_client::layout_tree::hold(&mut tab);
                catalog.tabs.insert(tab.id.clone(), tab);
            }
            for pane in full.panes {
                catalog.panes.insert(pane.id.clone(), pane);
            }
            catalog.workspaces.push(full.workspace.unwrap_or(ws));
        }
        catalog.unread = NotificationServiceClient::new(channel)
            .list_notifications(crate::machine_request::on(
                machine,
                pb::ListNotificationsRequest {
                    unread_only: true,
                    ..Default::default()
                },
            ))
            .await?
            .into_inner()
            .notifications;
        Ok(catalog)
    }

    /// Applies one event; returns false (and changes nothing) for an event already applied.
    pub fn apply(&mut self, event: &pb::Event) -> bool {
        if event.seq <= self.seq {
            return false;
        }
        self.seq = event.seq;
        let Some(kind) = &event.kind else {
            return true;
        };
        match kind {
            Ev::WorkspaceCreated(pb::WorkspaceCreated {
                workspace: Some(ws),
            })
            | Ev::WorkspaceUpdated(pb::WorkspaceUpdated {
                workspace: Some(ws),
            }) => match self.workspaces.iter_mut().find(|w| w.id == ws.id) {
                Some(existing) => *existing = ws.clone(),
                None => self.workspaces.push(ws.clone()),
            },
            Ev::WorkspaceClosed(closed) => {
                let id = &closed.workspace_id;
                self.workspaces.retain(|w| &w.id != id);
                self.tabs.retain(|_, t| &t.workspace_id != id);
                self.panes.retain(|_, p| &p.workspace_id != id);
                self.unread.retain(|n| &n.workspace_id != id);
            }
            Ev::TabCreated(pb::TabCreated { tab: Some(tab) })
            | Ev::TabUpdated(pb::TabUpdated { tab: Some(tab) }) => {
                let mut held = tab.clone();
                signaltty_client::layout_tree::hold(&mut held);
                self.tabs.insert(tab.id.clone(), held);
                // The workspace's tab list comes with WorkspaceUpdated; until then, a created
                // tab is listed at the end so it is never invisible.
                if let Some(ws) = self
                    .workspaces
                    .iter_mut()
                    .find(|w| w.id == tab.workspace_id)
                    && !ws.tab_ids.contains(&tab.id)
                {
                    ws.tab_ids.push(tab.id.clone());
                }
            }
            Ev::TabClosed(closed) => {
                self.tabs.remove(&closed.tab_id);
                self.panes.retain(|_, p| p.tab_id != closed.tab_id);
                if let Some(ws) = self
                    .workspaces
                    .iter_mut()
                    .find(|w| w.id == closed.workspace_id)
                {
                    ws.tab_ids.retain(|t| t != &closed.tab_id);
                }
            }
            Ev::PaneCreated(pb::PaneCreated { pane: Some(pane) })
            | Ev::PaneUpdated(pb::PaneUpdated { pane: Some(pane) }) => {
                self.panes.insert(pane.id.clone(), pane.clone());
            }
            Ev::PaneResized(resized) => {
                if let Some(pane) = self.panes.get_mut(&resized.pane_id) {
                    pane.cols = resized.cols;
                    pane.rows = resized.rows;
                }
            }
            Ev::PaneExited(exited) => {
                if let Some(pane) = self.panes.get_mut(&exited.pane_id) {
                    pane.status = pb::PaneStatus::Exited as i32;
                    pane.exit_code = Some(exited.exit_code);
                    pane.pid = 0;
                    pane.pending_decision = None;
                }
            }
            Ev::PaneClosed(closed) => {
                self.panes.remove(&closed.pane_id);
                self.unread.retain(|n| n.pane_id != closed.pane_id);
            }
            Ev::LifecycleChanged(change) => {
                if let Some(pane) = self.panes.get_mut(&change.pane_id) {
                    pane.lifecycle = change.new;
                    pane.lifecycle_since = event.at;
                    if change.run_seconds > 0.0 {
                        pane.last_run_seconds = change.run_seconds;
                    }
                }
            }
            Ev::AttentionChanged(change) => {
                if let Some(pane) = self.panes.get_mut(&change.pane_id) {
                    pane.attention = change.new;
                }
                if change.new == pb::Attention::None as i32 {
                    self.unread.retain(|n| n.pane_id != change.pane_id);
                }
            }
            Ev::NotificationCreated(pb::NotificationCreated {
                notification: Some(n),
            }) => {
                if !n.read && !self.unread.iter().any(|u| u.id == n.id) {
                    self.unread.insert(0, n.clone());
                }
                if let Some(pane) = self.panes.get_mut(&n.pane_id)
                    && !n.body.is_empty()
                {
                    pane.last_message = n.body.clone();
                }
            }
            Ev::DecisionCreated(pb::DecisionCreated {
                decision: Some(decision),
            }) => {
                if let Some(pane) = self.panes.get_mut(&decision.pane_id) {
                    pane.pending_decision = Some(decision.clone());
                }
            }
            Ev::DecisionAnswered(pb::DecisionAnswered {
                decision_id,
                pane_id,
                ..
            })
            | Ev::DecisionCleared(pb::DecisionCleared {
                decision_id,
                pane_id,
                ..
            }) => {
                if let Some(pane) = self.panes.get_mut(pane_id)
                    && pane
                        .pending_decision
                        .as_ref()
                        .is_some_and(|d| &d.id == decision_id)
                {
                    pane.pending_decision = None;
                }
            }
            Ev::GitContextChanged(change) => {
                if let Some(ws) = self
                    .workspaces
                    .iter_mut()
                    .find(|w| w.id == change.workspace_id)
                {
                    ws.git = change.git.clone();
                }
            }
            // Events without a payload to mirror (or with a missing one, never sent).
            _ => {}
        }
        true
    }

    /// A workspace by id.
    pub fn workspace(&self, id: &str) -> Option<&pb::Workspace> {
        self.workspaces.iter().find(|w| w.id == id)
    }

    /// A workspace's tabs in display order.
    pub fn tabs_of<'a>(&'a self, ws: &'a pb::Workspace) -> impl Iterator<Item = &'a pb::Tab> {
        ws.tab_ids.iter().filter_map(|id| self.tabs.get(id))
    }

    /// A tab's panes in layout order.
    pub fn panes_of<'a>(&'a self, tab: &'a pb::Tab) -> impl Iterator<Item = &'a pb::Pane> {
        tab.pane_ids.iter().filter_map(|id| self.panes.get(id))
    }

    /// Every pending decision, oldest first.
    pub fn decisions(&self) -> Vec<&pb::Decision> {
        let mut out: Vec<&pb::Decision> = self
            .panes
            .values()
            .filter_map(|p| p.pending_decision.as_ref())
            .collect();
        out.sort_by_key(|d| d.received_at.map(|t| (t.seconds, t.nanos)));
        out
    }
}

/// What the feed tells its consumer.
#[derive(Debug)]
pub enum FeedMsg {
    /// A full state: replace the catalog with it (first load, and after HistoryLost).
    Loaded(Box<Catalog>),
    /// The next event, in seq order.
    Event(Box<pb::Event>),
    /// Replay after a (re)connect is complete; every later event is live.
    Live,
    /// The stream dropped; the feed retries after `retry_in`.
    Disconnected {
        /// What went wrong.
        reason: String,
        /// When the next attempt is made.
        retry_in: Duration,
    },
}

/// Keeps a catalog live: load, subscribe from the load's seq, forward events; on a dropped
/// stream, reconnect with [`Backoff`] and resume from the last forwarded seq. Ends when the
/// receiver is dropped. `connect` opens a fresh channel (and may start a server).
/// Reconnection delays are [`Backoff`]'s (1 s doubling to 30 s, with jitter).
pub async fn run_feed<C, F, E>(connect: C, tx: mpsc::UnboundedSender<FeedMsg>)
where
    C: FnMut() -> F,
    F: Future<Output = Result<Channel, E>>,
    E: std::fmt::Display,
{
    run_feed_on(None, connect, tx).await
}

/// [`run_feed`] of another machine through the local server (`machine`: the
/// `signaltty-machine` metadata on every call). A dropped link to it (`REMOTE_LINK_LOST`)
/// ends the stream like any drop: the feed resubscribes from the last seq it forwarded.
pub async fn run_feed_on<C, F, E>(
    machine: Option<String>,
    mut connect: C,
    tx: mpsc::UnboundedSender<FeedMsg>,
) where
    C: FnMut() -> F,
    F: Future<Output = Result<Channel, E>>,
    E: std::fmt::Display,
{
    let mut backoff = Backoff::new();
    let mut seq: Option<u64> = None;
    loop {
        let reason = match connect().await {
            Ok(channel) => {
                match follow(channel, machine.as_deref(), &mut seq, &tx, &mut backoff).await {
                    Ok(()) => return,
                    Err(reason) => reason,
                }
            }
            Err(err) => err.to_string(),
        };
        if tx.is_closed() {
            return;
        }
        let retry_in = backoff.next_delay();
        if tx.send(FeedMsg::Disconnected { reason, retry_in }).is_err() {
            return;
        }
        tokio::time::sleep(retry_in).await;
    }
}

/// One connection's life: (re)load if needed, subscribe, forward. `Ok` when the consumer is
/// gone; `Err(reason)` when the connection or stream failed.
async fn follow(
    channel: Channel,
    machine: Option<&str>,
    seq: &mut Option<u64>,
    tx: &mpsc::UnboundedSender<FeedMsg>,
    backoff: &mut Backoff,
) -> Result<(), String> {
    // A fresh load is held back until the replay after it is applied, so the consumer never
    // sees records older than the load (events between the head seq and the reads carry them).
    let mut pending: Option<Catalog> = None;
    loop {
        if seq.is_none() {
            let catalog = Catalog::load_on(channel.clone(), machine)
                .await
                .map_err(|s| s.message().to_owned())?;
            *seq = Some(catalog.seq);
            pending = Some(catalog);
        }
        let from = seq.unwrap_or(0);
        let mut stream = EventServiceClient::new(channel.clone())
            .subscribe(crate::machine_request::on(
                machine,
                pb::SubscribeRequest {
                    from_seq: Some(from),
                    kinds: Vec::new(),
                },
            ))
            .await
            .map_err(|s| s.message().to_owned())?
            .into_inner();
        loop {
            let message = match stream.message().await {
                Ok(Some(message)) => message,
                Ok(None) => return Err("the event stream ended".to_owned()),
                Err(status) => return Err(status.message().to_owned()),
            };
            let sent = match message.kind {
                Some(Sub::Event(event)) => {
                    *seq = Some(event.seq);
                    match pending.as_mut() {
                        Some(catalog) => {
                            catalog.apply(&event);
                            Ok(())
                        }
                        None => tx.send(FeedMsg::Event(Box::new(event))),
                    }
                }
                Some(Sub::Synced(_)) => {
                    backoff.reset();
                    let loaded = match pending.take() {
                        Some(catalog) => tx.send(FeedMsg::Loaded(Box::new(catalog))),
                        None => Ok(()),
                    };
                    loaded.and_then(|()| tx.send(FeedMsg::Live))
                }
                Some(Sub::HistoryLost(_)) => {
                    // Reload, then subscribe again from the new load's seq.
                    *seq = None;
                    break;
                }
                Some(Sub::Lagged(lagged)) => {
                    *seq = Some(lagged.last_delivered_seq);
                    break;
                }
                None => Ok(()),
            };
            if sent.is_err() {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
