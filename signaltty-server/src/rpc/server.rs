//! `ServerService`: status, shutdown, and the machines this server reaches.

use std::time::SystemTime;

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::timestamp;
use crate::hub::Hub;
use crate::machines::{LinkState, MachineRow, Machines};

/// Serves `signaltty.v1.ServerService`.
#[derive(Debug)]
pub struct ServerService {
    hub: Hub,
}

impl ServerService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        ServerService { hub }
    }
}

#[tonic::async_trait]
impl pb::server_service_server::ServerService for ServerService {
    async fn get_status(
        &self,
        _: Request<pb::GetStatusRequest>,
    ) -> Result<Response<pb::GetStatusResponse>, Status> {
        let hub = &self.hub;
        let (workspaces, tabs, panes, live) = hub.store().read(|s| {
            let live = s.all_panes().iter().filter(|p| p.status.is_live()).count();
            (s.workspaces().len(), s.tab_count(), s.pane_count(), live)
        });
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let fd_limit = crate::fdlimit::get().map_or(0, |(soft, _)| soft);
        let open_fds = crate::fdlimit::open_fds();
        Ok(Response::new(pb::GetStatusResponse {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            started_at: Some(timestamp(hub.started_at())),
            uptime_seconds: SystemTime::now()
                .duration_since(hub.started_at())
                .map_or(0, |d| d.as_secs()),
            pid: std::process::id(),
            socket_path: hub.config().socket.display().to_string(),
            state_dir: hub.config().state_dir.display().to_string(),
            workspace_count: count(workspaces),
            tab_count: count(tabs),
            pane_count: count(panes),
            live_pane_count: count(live),
            head_seq: hub.store().head(),
            fd_limit,
            open_fds,
            panes_that_fit: count(
                usize::try_from(crate::fdlimit::panes_that_fit(fd_limit, open_fds))
                    .unwrap_or(usize::MAX),
            ),
        }))
    }

    async fn shutdown(
        &self,
        req: Request<pb::ShutdownRequest>,
    ) -> Result<Response<pb::ShutdownResponse>, Status> {
        // It ends every workspace's panes.
        self.hub
            .guard()
            .may_act_beyond_workspace(&super::origin(&req), "shut the server down")?;
        let hung_up = self
            .hub
            .shutdown(req.into_inner().force, "shutdown requested")
            .await?;
        Ok(Response::new(pb::ShutdownResponse {
            hung_up_panes: u32::try_from(hung_up).unwrap_or(u32::MAX),
        }))
    }

    async fn list_machines(
        &self,
        req: Request<pb::ListMachinesRequest>,
    ) -> Result<Response<pb::ListMachinesResponse>, Status> {
        // Put on every local request by the machines layer; absent when the routes are served
        // without it (in-process tests): this machine only.
        let machines = req.extensions().get::<Machines>().cloned();
        let rows = match machines {
            Some(machines) => machines.list(req.into_inner().connect).await,
            None => {
                Machines::new(None, std::path::PathBuf::new(), false)
                    .list(false)
                    .await
            }
        };
        Ok(Response::new(pb::ListMachinesResponse {
            machines: rows.into_iter().map(machine).collect(),
        }))
    }
}

/// A row of the machine table on the wire.
fn machine(row: MachineRow) -> pb::Machine {
    use pb::MachineState as S;
    let mut m = pb::Machine {
        name: row.name,
        host: row.host,
        ..Default::default()
    };
    let (state, down) = match row.state {
        LinkState::Idle => (S::Idle, None),
        LinkState::Connecting => (S::Connecting, None),
        LinkState::Connected { version, since } => {
            m.server_version = version;
            // This machine has no link: no "connected since".
            m.connected_at = (m.name != crate::machines::LOCAL).then(|| timestamp(since));
            (S::Connected, None)
        }
        LinkState::Reconnecting(down) => (S::Reconnecting, Some(down)),
        LinkState::Failed(down) => (S::Failed, Some(down)),
    };
    m.state = state.into();
    if let Some(down) = down {
        m.server_version = down.version;
        m.detail = down.message;
        m.reason = down.reason.to_owned();
        m.next_try_at = Some(timestamp(down.next_try));
    }
    m
}
