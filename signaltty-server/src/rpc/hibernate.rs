//! `HibernatePane` and `WakePane` (hub/hibernate.rs): decode, check the caller may control the
//! pane, call the hub, encode.

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::{pane_id, pane_pb};
use crate::hub::Hub;

/// HibernatePane.
pub async fn hibernate(
    hub: &Hub,
    req: Request<pb::HibernatePaneRequest>,
) -> Result<Response<pb::HibernatePaneResponse>, Status> {
    let origin = super::origin(&req);
    let id = pane_id(&req.into_inner().pane_id)?;
    hub.guard().may_control_pane(&origin, &id)?;
    let (pane, stopped) = hub.hibernate_pane(&id).await?;
    Ok(Response::new(pb::HibernatePaneResponse {
        pane: Some(pane_pb(hub, &pane)),
        stopped_by: stopped.as_str().to_owned(),
    }))
}

/// WakePane.
pub async fn wake(
    hub: &Hub,
    req: Request<pb::WakePaneRequest>,
) -> Result<Response<pb::WakePaneResponse>, Status> {
    let origin = super::origin(&req);
    let id = pane_id(&req.into_inner().pane_id)?;
    hub.guard().may_control_pane(&origin, &id)?;
    let pane = hub.wake_pane(&id).await?;
    Ok(Response::new(pb::WakePaneResponse {
        pane: Some(pane_pb(hub, &pane)),
    }))
}
