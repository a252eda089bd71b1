//! `RaceService`: one task given to several agents (see `hub/race.rs`).

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::race::{
    cleanup_to_pb, entry_diff_to_pb, entry_to_pb, merge_mode_from_pb, race_to_pb,
};
use super::convert::{race_id, workspace_id};
use crate::hub::Hub;
use crate::hub::race::{NewRace, WaitOutcome};
use crate::hub::wait::wait_timeout;
use crate::model::race::ReviewComment;

/// Serves `signaltty.v1.RaceService`.
#[derive(Debug)]
pub struct RaceService {
    hub: Hub,
}

impl RaceService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        RaceService { hub }
    }
}

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl pb::race_service_server::RaceService for RaceService {
    async fn start_race(
        &self,
        req: Request<pb::StartRaceRequest>,
    ) -> Answer<pb::StartRaceResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let ws = workspace_id(&req.workspace_id)?;
        self.hub.guard().may_control_workspace(&origin, &ws)?;
        self.hub
            .guard()
            .may_act_beyond_workspace(&origin, "start a race (it opens new workspaces)")?;
        let race = self
            .hub
            .start_race(NewRace {
                workspace_id: Some(ws),
                prompt: req.prompt,
                agents: req.agents,
                copies: req.copies,
                base: req.base.trim().to_owned(),
                from_working_tree: req.from_working_tree,
                copy_files: req.copy_files,
                setup_command: req.setup_command,
                check_command: req.check_command,
            })
            .await?;
        Ok(Response::new(pb::StartRaceResponse {
            race: Some(race_to_pb(&self.hub, &race)),
        }))
    }

    async fn get_race(&self, req: Request<pb::GetRaceRequest>) -> Answer<pb::GetRaceResponse> {
        let id = race_id(&req.into_inner().race_id)?;
        let race = self.hub.races().get_race(&id)?;
        Ok(Response::new(pb::GetRaceResponse {
            race: Some(race_to_pb(&self.hub, &race)),
        }))
    }

    async fn list_races(
        &self,
        _req: Request<pb::ListRacesRequest>,
    ) -> Answer<pb::ListRacesResponse> {
        let races = self.hub.races().list_races();
        Ok(Response::new(pb::ListRacesResponse {
            races: races.iter().map(|r| race_to_pb(&self.hub, r)).collect(),
        }))
    }

    async fn wait_race(&self, req: Request<pb::WaitRaceRequest>) -> Answer<pb::WaitRaceResponse> {
        let req = req.into_inner();
        let id = race_id(&req.race_id)?;
        let (race, outcome) = self
            .hub
            .races()
            .wait_race(&id, wait_timeout(req.timeout_ms))
            .await?;
        Ok(Response::new(pb::WaitRaceResponse {
            race: Some(race_to_pb(&self.hub, &race)),
            outcome: match outcome {
                WaitOutcome::AllEnded => pb::WaitRaceOutcome::AllEnded,
                WaitOutcome::EntryFailed => pb::WaitRaceOutcome::EntryFailed,
            } as i32,
        }))
    }

    async fn compare_race(
        &self,
        req: Request<pb::CompareRaceRequest>,
    ) -> Answer<pb::CompareRaceResponse> {
        let req = req.into_inner();
        let id = race_id(&req.race_id)?;
        let diffs = self
            .hub
            .races()
            .compare_race(&id, req.run_check, req.patch)
            .await?;
        Ok(Response::new(pb::CompareRaceResponse {
            entries: diffs.iter().map(entry_diff_to_pb).collect(),
        }))
    }

    async fn review_race_entry(
        &self,
        req: Request<pb::ReviewRaceEntryRequest>,
    ) -> Answer<pb::ReviewRaceEntryResponse> {
        let req = req.into_inner();
        let id = race_id(&req.race_id)?;
        let comments = req
            .comments
            .into_iter()
            .map(|c| ReviewComment {
                path: c.path,
                line: c.line,
                text: c.text,
            })
            .collect();
        let entry = self.hub.review_entry(&id, req.index, comments)?;
        Ok(Response::new(pb::ReviewRaceEntryResponse {
            entry: Some(entry_to_pb(&self.hub, &entry)),
        }))
    }

    async fn keep_race_entry(
        &self,
        req: Request<pb::KeepRaceEntryRequest>,
    ) -> Answer<pb::KeepRaceEntryResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = race_id(&req.race_id)?;
        let race = self.hub.races().get_race(&id)?;
        // Merging changes the base checkout, outside any entry's workspace.
        self.hub
            .guard()
            .may_control_workspace(&origin, &race.workspace_id)?;
        let kept = self
            .hub
            .keep_entry(
                &id,
                req.index,
                merge_mode_from_pb(req.mode),
                &req.message,
                req.delete_branches,
                req.force,
            )
            .await?;
        Ok(Response::new(pb::KeepRaceEntryResponse {
            race: Some(race_to_pb(&self.hub, &kept.race)),
            merged_commit: kept.merged_commit,
            cleanup: kept.cleanup.iter().map(cleanup_to_pb).collect(),
        }))
    }

    async fn close_race(
        &self,
        req: Request<pb::CloseRaceRequest>,
    ) -> Answer<pb::CloseRaceResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = race_id(&req.race_id)?;
        let race = self.hub.races().get_race(&id)?;
        self.hub
            .guard()
            .may_control_workspace(&origin, &race.workspace_id)?;
        let (race, cleanup) = self
            .hub
            .close_race(&id, &req.indexes, req.delete_branches, req.force)
            .await?;
        Ok(Response::new(pb::CloseRaceResponse {
            race: Some(race_to_pb(&self.hub, &race)),
            cleanup: cleanup.iter().map(cleanup_to_pb).collect(),
        }))
    }
}
