//! `PaneService`: decode, call the hub, encode. `Attach` lives in `attach.rs`.

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status, Streaming};

use super::attach::{self, AttachStream};
use super::convert::{
    attention_from_pb, direction_from_pb, lifecycle_from_pb, optional, pane_id, pane_pb, tab_id,
    tab_to_pb, workspace_id,
};
use crate::error::Error;
use crate::hub::Hub;
use crate::hub::panes::{Capture, Launch};
use crate::hub::resume::ResumeMode;
use crate::hub::wait::{WaitTarget, wait_timeout};
use crate::model::event::ChangeSource;
use crate::model::layout::Direction;
use crate::model::state::Destination;

/// Serves `signaltty.v1.PaneService`.
#[derive(Debug)]
pub struct PaneService {
    hub: Hub,
}

impl PaneService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        PaneService { hub }
    }
}

type Answer<T> = Result<Response<T>, Status>;

fn env_pairs(env: std::collections::HashMap<String, String>) -> Vec<(String, String)> {
    let mut pairs: Vec<_> = env.into_iter().collect();
    pairs.sort();
    pairs
}

#[tonic::async_trait]
impl pb::pane_service_server::PaneService for PaneService {
    type AttachStream = AttachStream;

    async fn spawn_pane(
        &self,
        req: Request<pb::SpawnPaneRequest>,
    ) -> Answer<pb::SpawnPaneResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let ws = workspace_id(&req.workspace_id)?;
        self.hub.guard().may_control_workspace(&origin, &ws)?;
        let tab = optional(&req.tab_id, tab_id)?;
        let launch = Launch {
            argv: req.argv,
            cwd: req.cwd,
            env: env_pairs(req.env),
            cols: req.cols,
            rows: req.rows,
            title: req.title,
            skip_hook_install: req.skip_hook_install,
        };
        let (pane, tab) = self.hub.spawn_pane(&ws, tab, launch).await?;
        Ok(Response::new(pb::SpawnPaneResponse {
            pane: Some(pane_pb(&self.hub, &pane)),
            tab: Some(tab_to_pb(&tab)),
        }))
    }

    async fn split_pane(
        &self,
        req: Request<pb::SplitPaneRequest>,
    ) -> Answer<pb::SplitPaneResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let target = pane_id(&req.pane_id)?;
        self.hub.guard().may_control_pane(&origin, &target)?;
        let direction = direction_from_pb(req.direction)?;
        let launch = Launch {
            argv: req.argv,
            cwd: req.cwd,
            env: env_pairs(req.env),
            title: req.title,
            skip_hook_install: req.skip_hook_install,
            ..Launch::default()
        };
        let (pane, tab) = self.hub.split_pane(&target, direction, launch).await?;
        Ok(Response::new(pb::SplitPaneResponse {
            pane: Some(pane_pb(&self.hub, &pane)),
            tab: Some(tab_to_pb(&tab)),
        }))
    }

    async fn get_pane(&self, req: Request<pb::GetPaneRequest>) -> Answer<pb::GetPaneResponse> {
        let id = pane_id(&req.into_inner().pane_id)?;
        let pane = self
            .hub
            .store()
            .read(|s| s.pane(&id).cloned())
            .map_err(Error::from)?;
        Ok(Response::new(pb::GetPaneResponse {
            pane: Some(pane_pb(&self.hub, &pane)),
        }))
    }

    async fn list_panes(
        &self,
        req: Request<pb::ListPanesRequest>,
    ) -> Answer<pb::ListPanesResponse> {
        let req = req.into_inner();
        let ws = optional(&req.workspace_id, workspace_id)?;
        let tab = optional(&req.tab_id, tab_id)?;
        let panes = self.hub.store().read(|s| {
            if let Some(ws) = &ws {
                s.workspace(ws)?;
            }
            if let Some(tab) = &tab {
                s.tab(tab)?;
            }
            Ok::<_, crate::model::state::StateError>(
                s.all_panes()
                    .into_iter()
                    .filter(|p| ws.as_ref().is_none_or(|w| &p.workspace_id == w))
                    .filter(|p| tab.as_ref().is_none_or(|t| &p.tab_id == t))
                    .cloned()
                    .collect::<Vec<_>>(),
            )
        });
        let panes = panes.map_err(Error::from)?;
        Ok(Response::new(pb::ListPanesResponse {
            panes: panes.iter().map(|p| pane_pb(&self.hub, p)).collect(),
        }))
    }

    async fn write_input(
        &self,
        req: Request<pb::WriteInputRequest>,
    ) -> Answer<pb::WriteInputResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = pane_id(&req.pane_id)?;
        self.hub.guard().may_control_pane(&origin, &id)?;
        let written = self.hub.write_input(&id, &req.data, req.timeout_ms).await?;
        Ok(Response::new(pb::WriteInputResponse {
            bytes_written: written as u64,
        }))
    }

    async fn resize_pane(
        &self,
        req: Request<pb::ResizePaneRequest>,
    ) -> Answer<pb::ResizePaneResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = pane_id(&req.pane_id)?;
        self.hub.guard().may_control_pane(&origin, &id)?;
        let size = self.hub.resize_pane(&id, req.cols, req.rows)?;
        Ok(Response::new(pb::ResizePaneResponse {
            cols: u32::from(size.cols),
            rows: u32::from(size.rows),
        }))
    }

    async fn signal_pane(
        &self,
        req: Request<pb::SignalPaneRequest>,
    ) -> Answer<pb::SignalPaneResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = pane_id(&req.pane_id)?;
        self.hub.guard().may_control_pane(&origin, &id)?;
        self.hub.signal_pane(&id, &req.signal, req.group)?;
        Ok(Response::new(pb::SignalPaneResponse {}))
    }

    async fn close_pane(
        &self,
        req: Request<pb::ClosePaneRequest>,
    ) -> Answer<pb::ClosePaneResponse> {
        let origin = super::origin(&req);
        let id = pane_id(&req.into_inner().pane_id)?;
        self.hub.guard().may_control_pane(&origin, &id)?;
        let tab_closed = self.hub.close_pane(&id).await?;
        Ok(Response::new(pb::ClosePaneResponse { tab_closed }))
    }

    async fn rename_pane(
        &self,
        req: Request<pb::RenamePaneRequest>,
    ) -> Answer<pb::RenamePaneResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = pane_id(&req.pane_id)?;
        self.hub.guard().may_control_pane(&origin, &id)?;
        let pane = self.hub.rename_pane(&id, &req.title)?;
        Ok(Response::new(pb::RenamePaneResponse {
            pane: Some(pane_pb(&self.hub, &pane)),
        }))
    }

    async fn mark_seen(&self, req: Request<pb::MarkSeenRequest>) -> Answer<pb::MarkSeenResponse> {
        let origin = super::origin(&req);
        let id = pane_id(&req.into_inner().pane_id)?;
        self.hub.guard().may_control_pane(&origin, &id)?;
        let pane = self.hub.mark_seen(&id, ChangeSource::Api)?;
        Ok(Response::new(pb::MarkSeenResponse {
            pane: Some(pane_pb(&self.hub, &pane)),
        }))
    }

    async fn read_pane(&self, req: Request<pb::ReadPaneRequest>) -> Answer<pb::ReadPaneResponse> {
        let req = req.into_inner();
        let id = pane_id(&req.pane_id)?;
        let capture = match pb::ReadMode::try_from(req.mode) {
            Ok(pb::ReadMode::Unspecified | pb::ReadMode::Screen) => Capture::Screen,
            Ok(pb::ReadMode::Scrollback) => Capture::Scrollback {
                lines: req.lines as usize,
            },
            Err(_) => return Err(Error::bad("mode must be SCREEN or SCROLLBACK").into()),
        };
        let (lines, offset, size) = self.hub.read_pane(&id, capture, req.keep_ansi).await?;
        Ok(Response::new(pb::ReadPaneResponse {
            lines,
            output_offset: offset,
            cols: u32::from(size.cols),
            rows: u32::from(size.rows),
        }))
    }

    async fn hibernate_pane(
        &self,
        req: Request<pb::HibernatePaneRequest>,
    ) -> Answer<pb::HibernatePaneResponse> {
        super::hibernate::hibernate(&self.hub, req).await
    }

    async fn wake_pane(&self, req: Request<pb::WakePaneRequest>) -> Answer<pb::WakePaneResponse> {
        super::hibernate::wake(&self.hub, req).await
    }

    async fn get_resources(
        &self,
        req: Request<pb::GetResourcesRequest>,
    ) -> Answer<pb::GetResourcesResponse> {
        super::resources::get_resources(&self.hub, req).await
    }

    async fn resume_pane(
        &self,
        req: Request<pb::ResumePaneRequest>,
    ) -> Answer<pb::ResumePaneResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = pane_id(&req.pane_id)?;
        self.hub.guard().may_control_pane(&origin, &id)?;
        let mode = match pb::ResumeMode::try_from(req.mode) {
            Ok(pb::ResumeMode::Unspecified | pb::ResumeMode::AgentSession) => {
                ResumeMode::AgentSession
            }
            Ok(pb::ResumeMode::RespawnArgv) => ResumeMode::RespawnArgv,
            Err(_) => {
                return Err(Error::bad("mode must be AGENT_SESSION or RESPAWN_ARGV").into());
            }
        };
        let pane = self.hub.resume_pane(&id, mode).await?;
        Ok(Response::new(pb::ResumePaneResponse {
            pane: Some(pane_pb(&self.hub, &pane)),
        }))
    }

    async fn attach(&self, req: Request<Streaming<pb::AttachRequest>>) -> Answer<AttachStream> {
        let origin = super::origin(&req);
        attach::attach(self.hub.clone(), origin, req.into_inner()).await
    }

    async fn wait_pane(&self, req: Request<pb::WaitPaneRequest>) -> Answer<pb::WaitPaneResponse> {
        let req = req.into_inner();
        let id = pane_id(&req.pane_id)?;
        let target = WaitTarget {
            lifecycles: req
                .until_lifecycle
                .iter()
                .map(|l| lifecycle_from_pb(*l))
                .collect::<Result<_, _>>()?,
            attentions: req
                .until_attention
                .iter()
                .map(|a| attention_from_pb(*a))
                .collect::<Result<_, _>>()?,
        };
        let (pane, seq) = self
            .hub
            .wait_pane(&id, &target, req.after_seq, wait_timeout(req.timeout_ms))
            .await?;
        Ok(Response::new(pb::WaitPaneResponse {
            pane: Some(pane_pb(&self.hub, &pane)),
            seq,
        }))
    }

    async fn focus_pane(
        &self,
        req: Request<pb::FocusPaneRequest>,
    ) -> Answer<pb::FocusPaneResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = pane_id(&req.pane_id)?;
        self.hub.guard().may_control_pane(&origin, &id)?;
        let (pane, tab) = self.hub.arrangement().focus_pane(&id, req.mark_seen)?;
        Ok(Response::new(pb::FocusPaneResponse {
            pane: Some(pane_pb(&self.hub, &pane)),
            tab: Some(tab_to_pb(&tab)),
        }))
    }

    async fn move_pane(&self, req: Request<pb::MovePaneRequest>) -> Answer<pb::MovePaneResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = pane_id(&req.pane_id)?;
        let destination = move_destination(req)?;
        // Both ends: the pane's workspace, and the tab it goes to (a new tab is in the pane's).
        self.hub.guard().may_control_pane(&origin, &id)?;
        if let Destination::Tab { tab, .. } = &destination {
            self.hub.guard().may_control_tab(&origin, tab)?;
        }
        let moved = self.hub.arrangement().move_pane(&id, destination)?;
        Ok(Response::new(pb::MovePaneResponse {
            pane: Some(pane_pb(&self.hub, &moved.pane)),
            tab: Some(tab_to_pb(&moved.tab)),
            closed_tab_id: moved.closed_tab.map(|t| t.to_string()).unwrap_or_default(),
        }))
    }
}

/// A MovePane request's destination in domain terms.
fn move_destination(req: pb::MovePaneRequest) -> Result<Destination, Error> {
    use pb::move_pane_request::Destination as Wire;
    let beside = optional(&req.beside_pane_id, pane_id)?;
    let direction = if req.direction == pb::Direction::Unspecified as i32 {
        Direction::Right
    } else {
        direction_from_pb(req.direction)?
    };
    match req.destination {
        Some(Wire::TabId(raw)) => Ok(Destination::Tab {
            tab: tab_id(&raw)?,
            beside,
            direction,
        }),
        Some(Wire::NewTab(new_tab)) => {
            if beside.is_some() {
                return Err(Error::bad(
                    "beside_pane_id cannot be used with new_tab: a new tab holds only the moved pane",
                ));
            }
            Ok(Destination::NewTab {
                title: new_tab.title,
            })
        }
        None => Err(Error::bad(
            "a destination is required: tab_id (an existing tab) or new_tab",
        )),
    }
}
