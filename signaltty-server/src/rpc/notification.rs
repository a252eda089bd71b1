//! `NotificationService`: Notify, ListNotifications, MarkNotificationRead, NextUnread.

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::{
    notification_id, notification_to_pb, optional, pane_id, pane_pb, severity_from_pb, workspace_id,
};
use crate::error::Error;
use crate::hub::Hub;
use crate::hub::notifications::{NotificationQuery, ReadTarget};

/// Serves `signaltty.v1.NotificationService`.
#[derive(Debug)]
pub struct NotificationService {
    hub: Hub,
}

impl NotificationService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        NotificationService { hub }
    }
}

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl pb::notification_service_server::NotificationService for NotificationService {
    async fn notify(&self, req: Request<pb::NotifyRequest>) -> Answer<pb::NotifyResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let pane = self
            .hub
            .guard()
            .notify_pane(&origin, optional(&req.pane_id, pane_id)?)?;
        let severity = severity_from_pb(req.severity)?;
        let (n, ws) = self
            .hub
            .notifications()
            .notify(pane, &req.title, &req.body, severity)?;
        Ok(Response::new(pb::NotifyResponse {
            notification: Some(notification_to_pb(&n, ws.as_ref())),
        }))
    }

    async fn list_notifications(
        &self,
        req: Request<pb::ListNotificationsRequest>,
    ) -> Answer<pb::ListNotificationsResponse> {
        let req = req.into_inner();
        let query = NotificationQuery {
            unread_only: req.unread_only,
            pane: optional(&req.pane_id, pane_id)?,
            workspace: optional(&req.workspace_id, workspace_id)?,
            limit: req.limit as usize,
        };
        let listed = self.hub.notifications().list_notifications(&query)?;
        Ok(Response::new(pb::ListNotificationsResponse {
            notifications: listed
                .iter()
                .map(|(n, ws)| notification_to_pb(n, ws.as_ref()))
                .collect(),
        }))
    }

    async fn mark_notification_read(
        &self,
        req: Request<pb::MarkNotificationReadRequest>,
    ) -> Answer<pb::MarkNotificationReadResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let target = match (req.notification_id.is_empty(), req.pane_id.is_empty()) {
            (false, true) => ReadTarget::One(notification_id(&req.notification_id)?),
            (true, false) => ReadTarget::Pane(pane_id(&req.pane_id)?),
            _ => {
                return Err(Error::bad("give exactly one of notification_id and pane_id").into());
            }
        };
        self.hub.guard().may_mark_read(&origin, &target)?;
        let marked = self.hub.notifications().mark_notification_read(&target)?;
        Ok(Response::new(pb::MarkNotificationReadResponse {
            marked: u32::try_from(marked).unwrap_or(u32::MAX),
        }))
    }

    async fn next_unread(
        &self,
        req: Request<pb::NextUnreadRequest>,
    ) -> Answer<pb::NextUnreadResponse> {
        let ws = optional(&req.into_inner().workspace_id, workspace_id)?;
        let next = self.hub.notifications().next_unread(ws.as_ref())?;
        Ok(Response::new(match next {
            Some((pane, newest)) => pb::NextUnreadResponse {
                pane: Some(pane_pb(&self.hub, &pane)),
                notification: newest.map(|(n, ws)| notification_to_pb(&n, ws.as_ref())),
            },
            None => pb::NextUnreadResponse::default(),
        }))
    }
}
