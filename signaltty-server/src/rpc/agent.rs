//! `AgentService`: hook events (with their permission waits), sessions, hook installers.

use std::path::PathBuf;

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::{
    agent_kind_from_pb, agent_kinds_from_pb, hook_report_to_pb, optional, pane_id, verdict_to_pb,
};
use crate::hub::Hub;
use crate::hub::agents::{HookCall, INSTALLABLE, Reporter, answer_wait};

/// Serves `signaltty.v1.AgentService`.
#[derive(Debug)]
pub struct AgentService {
    hub: Hub,
}

impl AgentService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        AgentService { hub }
    }
}

type Answer<T> = Result<Response<T>, Status>;

fn home(raw: String) -> Option<PathBuf> {
    (!raw.is_empty()).then(|| PathBuf::from(raw))
}

#[tonic::async_trait]
impl pb::agent_service_server::AgentService for AgentService {
    async fn report_hook_event(
        &self,
        req: Request<pb::ReportHookEventRequest>,
    ) -> Answer<pb::ReportHookEventResponse> {
        let origin = super::origin(&req);
        let peer_pid = super::peer_pid(&req);
        let req = req.into_inner();
        let kind = agent_kind_from_pb(req.agent)?;
        let reporter = Reporter::of(kind, peer_pid);
        let pane = match reporter {
            // A shared daemon's environment and place name the pane that started it, not the
            // one whose agent reports: the hub routes it by session (hub/shared_hooks.rs).
            Reporter::SharedDaemon { .. } => None,
            Reporter::Pane => self
                .hub
                .guard()
                .hook_pane(&origin, optional(&req.pane_id, pane_id)?)?,
        };
        let call = HookCall {
            kind,
            event: req.event,
            payload: req.payload,
            pane,
            reporter,
            client_pid: req.client_pid,
            wait: if req.wait_for_answer {
                Some(answer_wait(req.timeout_ms)?)
            } else {
                None
            },
        };
        let outcome = self.hub.report_hook_event(call).await?;
        let (verdict, message) = verdict_to_pb(outcome.verdict());
        Ok(Response::new(pb::ReportHookEventResponse {
            pane_id: outcome
                .pane
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
            decision_id: outcome
                .decision
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
            verdict: verdict.into(),
            message,
            wait_end_reason: outcome
                .wait
                .as_ref()
                .map(|w| w.reason().as_str().to_owned())
                .unwrap_or_default(),
        }))
    }

    async fn report_session(
        &self,
        req: Request<pb::ReportSessionRequest>,
    ) -> Answer<pb::ReportSessionResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let kind = agent_kind_from_pb(req.agent)?;
        let pane = self
            .hub
            .guard()
            .hook_pane(&origin, optional(&req.pane_id, pane_id)?)?;
        let recorded = self
            .hub
            .report_session(kind, &req.session_id, pane, req.client_pid)?;
        Ok(Response::new(match recorded {
            Some((pane, info)) => pb::ReportSessionResponse {
                pane_id: pane.to_string(),
                resume_argv: info.resume_argv.unwrap_or_default(),
            },
            None => pb::ReportSessionResponse::default(),
        }))
    }

    async fn install_hooks(
        &self,
        req: Request<pb::InstallHooksRequest>,
    ) -> Answer<pb::InstallHooksResponse> {
        // The agents' config files are read by every workspace's agents.
        self.hub.guard().may_act_beyond_workspace(
            &super::origin(&req),
            "install or remove the agents' hooks",
        )?;
        let req = req.into_inner();
        let kinds = agent_kinds_from_pb(&req.agents, &INSTALLABLE)?;
        let reports = self
            .hub
            .agents()
            .install_hooks(kinds, home(req.home), req.uninstall)
            .await?;
        Ok(Response::new(pb::InstallHooksResponse {
            reports: reports.iter().map(hook_report_to_pb).collect(),
        }))
    }

    async fn hook_status(
        &self,
        req: Request<pb::HookStatusRequest>,
    ) -> Answer<pb::HookStatusResponse> {
        let req = req.into_inner();
        let kinds = agent_kinds_from_pb(&req.agents, &INSTALLABLE)?;
        let reports = self.hub.agents().hook_status(kinds, home(req.home)).await?;
        Ok(Response::new(pb::HookStatusResponse {
            reports: reports.iter().map(hook_report_to_pb).collect(),
        }))
    }
}
