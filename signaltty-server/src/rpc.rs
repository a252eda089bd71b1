//! The gRPC edge: one `*Service` per proto service. Each handler decodes the request
//! (`convert.rs`), calls one `Hub` method, and encodes the answer; errors become statuses in
//! `status.rs`. No business rules live here.

mod agent;
mod attach;
pub mod convert;
mod decision;
pub mod edge;
pub mod event;
mod git;
mod hibernate;
mod notification;
mod pane;
mod race;
mod reflection;
mod resources;
mod restored;
mod server;
mod status;
mod tab;
mod workspace;

use tonic::service::Routes;

use crate::peer::{Origin, Peer};

/// Where the caller of `req` runs (attached at accept by `listen::incoming`); outside every pane
/// when the request did not come through our listener.
pub(crate) fn origin<T>(req: &tonic::Request<T>) -> Origin {
    req.extensions()
        .get::<Peer>()
        .map_or(Origin::Outside, |p| p.origin.clone())
}

/// The pid of the process on the other end of a request's connection (0 if unknown).
pub(crate) fn peer_pid<T>(req: &tonic::Request<T>) -> u32 {
    req.extensions().get::<Peer>().map_or(0, |p| p.pid)
}

use crate::hub::Hub;

/// Every service plus reflection (built on its first call: `reflection.rs`), ready to serve.
pub fn routes(hub: &Hub) -> Routes {
    use signaltty_proto::v1::{
        agent_service_server::AgentServiceServer, decision_service_server::DecisionServiceServer,
        event_service_server::EventServiceServer, git_service_server::GitServiceServer,
        notification_service_server::NotificationServiceServer,
        pane_service_server::PaneServiceServer, server_service_server::ServerServiceServer,
        tab_service_server::TabServiceServer, workspace_service_server::WorkspaceServiceServer,
    };
    use tonic_reflection::server::Builder;
    let reflection_v1 = reflection::Lazy::new(|| {
        Builder::configure()
            .register_encoded_file_descriptor_set(signaltty_proto::FILE_DESCRIPTOR_SET)
            .build_v1()
    });
    // grpcio-reflection (Python) still speaks v1alpha.
    let reflection_v1alpha = reflection::Lazy::new(|| {
        Builder::configure()
            .register_encoded_file_descriptor_set(signaltty_proto::FILE_DESCRIPTOR_SET)
            .build_v1alpha()
    });
    let mut routes = Routes::new(reflection_v1);
    routes = routes
        .add_service(reflection_v1alpha)
        .add_service(ServerServiceServer::new(server::ServerService::new(
            hub.clone(),
        )))
        .add_service(WorkspaceServiceServer::new(
            workspace::WorkspaceService::new(hub.clone()),
        ))
        .add_service(TabServiceServer::new(tab::TabService::new(hub.clone())))
        .add_service(EventServiceServer::new(event::EventService::new(
            hub.clone(),
        )))
        .add_service(PaneServiceServer::new(pane::PaneService::new(hub.clone())))
        .add_service(AgentServiceServer::new(agent::AgentService::new(
            hub.clone(),
        )))
        .add_service(DecisionServiceServer::new(decision::DecisionService::new(
            hub.clone(),
        )))
        .add_service(NotificationServiceServer::new(
            notification::NotificationService::new(hub.clone()),
        ))
        .add_service(GitServiceServer::new(git::GitService::new(hub.clone())))
        .add_service(
            signaltty_proto::v1::race_service_server::RaceServiceServer::new(
                race::RaceService::new(hub.clone()),
            ),
        );
    routes
}
