//! `DecisionService`: list pending decisions, answer one.

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::{decision_id, decision_to_pb, optional, pane_id, verdict_to_pb, workspace_id};
use crate::hub::Hub;

/// Serves `signaltty.v1.DecisionService`.
#[derive(Debug)]
pub struct DecisionService {
    hub: Hub,
}

impl DecisionService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        DecisionService { hub }
    }
}

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl pb::decision_service_server::DecisionService for DecisionService {
    async fn list_pending_decisions(
        &self,
        req: Request<pb::ListPendingDecisionsRequest>,
    ) -> Answer<pb::ListPendingDecisionsResponse> {
        let ws = optional(&req.into_inner().workspace_id, workspace_id)?;
        let decisions = self.hub.decisions().pending_decisions(ws.as_ref())?;
        Ok(Response::new(pb::ListPendingDecisionsResponse {
            decisions: decisions.iter().map(decision_to_pb).collect(),
        }))
    }

    async fn answer_decision(
        &self,
        req: Request<pb::AnswerDecisionRequest>,
    ) -> Answer<pb::AnswerDecisionResponse> {
        self.hub.guard().may_answer(&super::origin(&req))?;
        let req = req.into_inner();
        let pane = pane_id(&req.pane_id)?;
        let decision = decision_id(&req.decision_id)?;
        let verdict =
            self.hub
                .decisions()
                .answer_decision(&pane, &decision, &req.option_id, &req.message)?;
        Ok(Response::new(pb::AnswerDecisionResponse {
            verdict: verdict_to_pb(Some(&verdict)).0.into(),
        }))
    }
}
