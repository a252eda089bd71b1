//! Notifications from the API (Notify), their listing and read marks, and NextUnread: the pane
//! that most needs the user (most severe attention, then most recent change). The concern's
//! handle is `hub.notifications()`: records in the store and nothing else, so it holds only the
//! store.

use crate::error::{Error, Result};
use crate::model::event::ChangeSource;
use crate::model::ids::{NotificationId, PaneId, WorkspaceId};
use crate::model::notification::{
    Notification, NotificationSource, ReadFilter, Severity, rank_attention,
};
use crate::model::pane::Pane;

use crate::store::Store;

/// Which notifications to list.
#[derive(Clone, Debug, Default)]
pub struct NotificationQuery {
    /// Only unread ones.
    pub unread_only: bool,
    /// Only this pane's.
    pub pane: Option<PaneId>,
    /// Only those of this workspace's panes.
    pub workspace: Option<WorkspaceId>,
    /// At most this many (0 = all kept).
    pub limit: usize,
}

/// What MarkNotificationRead marks.
#[derive(Clone, Debug)]
pub enum ReadTarget {
    /// One notification.
    One(NotificationId),
    /// Every notification of a pane.
    Pane(PaneId),
}

/// A notification with the workspace of its pane (`None` for server-wide ones, or when the pane
/// is gone).
pub type Listed = (Notification, Option<WorkspaceId>);

/// The notifications concern's handle.
#[derive(Clone, Debug)]
pub struct Notifications {
    store: Store,
}

impl Notifications {
    /// The handle over the store.
    pub(super) fn new(store: Store) -> Self {
        Notifications { store }
    }

    fn store(&self) -> &Store {
        &self.store
    }

    /// Stores a notification from the API and raises the pane's attention by severity.
    pub fn notify(
        &self,
        pane: Option<PaneId>,
        title: &str,
        body: &str,
        severity: Severity,
    ) -> Result<Listed> {
        if body.trim().is_empty() {
            return Err(Error::bad("body is required: say what happened"));
        }
        let n = Notification::new(
            pane,
            title,
            body,
            severity,
            NotificationSource::Api,
            std::time::SystemTime::now(),
        )
        .map_err(|e| Error::bad(e.to_string()))?;
        let stored = self
            .store()
            .apply(|s, now| s.notify(n, ChangeSource::Api, now))?;
        let ws = self.workspace_of(stored.pane_id.as_ref());
        Ok((stored, ws))
    }

    fn workspace_of(&self, pane: Option<&PaneId>) -> Option<WorkspaceId> {
        let pane = pane?;
        self.store()
            .read(|s| s.pane(pane).ok().map(|p| p.workspace_id.clone()))
    }

    /// Stored notifications, newest first.
    pub fn list_notifications(&self, q: &NotificationQuery) -> Result<Vec<Listed>> {
        self.store().read(|s| {
            if let Some(ws) = &q.workspace {
                s.workspace(ws)?;
            }
            let filter = if q.unread_only {
                ReadFilter::Unread
            } else {
                ReadFilter::All
            };
            let listed = s
                .notifications()
                .list(filter, q.pane.as_ref())
                .into_iter()
                .map(|n| {
                    let ws = n
                        .pane_id
                        .as_ref()
                        .and_then(|p| s.pane(p).ok())
                        .map(|p| p.workspace_id.clone());
                    (n.clone(), ws)
                })
                .filter(|(_, ws)| q.workspace.is_none() || ws.as_ref() == q.workspace.as_ref())
                .take(if q.limit == 0 { usize::MAX } else { q.limit })
                .collect();
            Ok(listed)
        })
    }

    /// Marks notifications read; returns how many went from unread to read. Attention is not
    /// touched: that is MarkSeen's job.
    pub fn mark_notification_read(&self, target: &ReadTarget) -> Result<usize> {
        self.store().apply_with(|s, _| {
            let marked = match target {
                ReadTarget::One(id) => usize::from(s.mark_notification_read(id).map_err(|e| {
                    Error::bad(format!(
                        "{e}; it may have been dropped (only the newest 200 are kept)"
                    ))
                })?),
                ReadTarget::Pane(pane) => {
                    s.pane(pane)?;
                    s.mark_pane_notifications_read(pane)
                }
            };
            Ok((marked, Vec::new()))
        })
    }

    /// The pane that most needs the user, with its newest unread notification.
    pub fn next_unread(&self, ws: Option<&WorkspaceId>) -> Result<Option<(Pane, Option<Listed>)>> {
        self.store().read(|s| {
            if let Some(ws) = ws {
                s.workspace(ws)?;
            }
            let Some(top) = rank_attention(s.attention_candidates(ws))
                .into_iter()
                .next()
            else {
                return Ok(None);
            };
            let pane = s.pane(&top.pane_id)?.clone();
            let newest = s
                .notifications()
                .list(ReadFilter::Unread, Some(&pane.id))
                .first()
                .map(|n| ((*n).clone(), Some(pane.workspace_id.clone())));
            Ok(Some((pane, newest)))
        })
    }
}
