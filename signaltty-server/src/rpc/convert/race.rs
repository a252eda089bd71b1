//! Races on the wire. An entry's agent state (lifecycle, attention, pending decision) is read
//! from its pane's record at conversion time, so a race read is always current.

use signaltty_proto::v1 as pb;

use super::{attention_to_pb, lifecycle_to_pb, timestamp};
use crate::hub::Hub;
use crate::hub::race::{Cleanup, EntryDiff};
use crate::model::race::{CheckRun, Entry, EntryState, MergeMode, Race, RaceState};

/// A race with its entries' current agent state.
pub fn race_to_pb(hub: &Hub, race: &Race) -> pb::Race {
    pb::Race {
        id: race.id.to_string(),
        workspace_id: race.workspace_id.to_string(),
        repo_root: race.repo_root.display().to_string(),
        base: race.base.clone(),
        base_commit: race.base_commit.clone(),
        base_branch: race.base_branch.clone(),
        prompt: race.prompt.clone(),
        created_at: Some(timestamp(race.created_at)),
        state: match race.state {
            RaceState::Running => pb::RaceState::Running,
            RaceState::Kept => pb::RaceState::Kept,
            RaceState::Closed => pb::RaceState::Closed,
        } as i32,
        entries: race.entries.iter().map(|e| entry_to_pb(hub, e)).collect(),
        kept_index: race.kept_index.unwrap_or(0),
        check_command: race.check_command.clone(),
        copy_files: race.copy_files.clone(),
        setup_command: race.setup_command.clone(),
    }
}

fn entry_state_to_pb(s: EntryState) -> pb::RaceEntryState {
    match s {
        EntryState::Preparing => pb::RaceEntryState::Preparing,
        EntryState::Starting => pb::RaceEntryState::Starting,
        EntryState::Working => pb::RaceEntryState::Working,
        EntryState::TurnEnded => pb::RaceEntryState::TurnEnded,
        EntryState::Failed => pb::RaceEntryState::Failed,
        EntryState::Closed => pb::RaceEntryState::Closed,
        EntryState::Kept => pb::RaceEntryState::Kept,
    }
}

/// One entry with its pane's state.
pub fn entry_to_pb(hub: &Hub, e: &Entry) -> pb::RaceEntry {
    let pane = e
        .pane_id
        .as_ref()
        .and_then(|id| hub.store().read(|s| s.pane(id).cloned()).ok());
    let decision = pane.as_ref().and_then(|p| p.pending_decision.clone());
    pb::RaceEntry {
        index: e.index,
        agent: e.agent.to_string(),
        branch: e.branch.clone(),
        path: e.path.display().to_string(),
        workspace_id: e
            .workspace_id
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        pane_id: e
            .pane_id
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        state: entry_state_to_pb(e.state) as i32,
        error: e.error.clone(),
        setup_output: e.setup_output.clone(),
        turns: e.turns,
        started_at: e.started_at.map(timestamp),
        prompt_delivered_at: e.prompt_delivered_at.map(timestamp),
        turn_ended_at: e.turn_ended_at.map(timestamp),
        pending_comments: e.pending_comments,
        lifecycle: pane.as_ref().map_or(pb::Lifecycle::Unspecified, |p| {
            lifecycle_to_pb(p.state.lifecycle())
        }) as i32,
        attention: pane.as_ref().map_or(pb::Attention::Unspecified, |p| {
            attention_to_pb(p.state.attention())
        }) as i32,
        pending_decision_id: decision
            .as_ref()
            .map(|d| d.id.to_string())
            .unwrap_or_default(),
        pending_decision_prompt: decision.map(|d| d.prompt).unwrap_or_default(),
        files_changed: e.stat.files,
        added: e.stat.added,
        removed: e.stat.removed,
        check: e.check.as_ref().map(check_to_pb),
    }
}

/// One check run.
pub fn check_to_pb(c: &CheckRun) -> pb::RaceCheck {
    pb::RaceCheck {
        command: c.command.clone(),
        exit_code: c.exit_code,
        output: c.output.clone(),
        timed_out: c.timed_out,
        finished_at: Some(timestamp(c.finished_at)),
    }
}

/// One entry's diff.
pub fn entry_diff_to_pb(d: &EntryDiff) -> pb::RaceEntryDiff {
    pb::RaceEntryDiff {
        index: d.index,
        files: d.files.iter().map(super::git::change_to_pb).collect(),
        added: d.files.iter().map(|f| f.added).sum(),
        removed: d.files.iter().map(|f| f.removed).sum(),
        patch: d.patch.clone(),
        patch_truncated: d.patch_truncated,
        check: d.check.as_ref().map(check_to_pb),
        error: d.error.clone(),
    }
}

/// What closing an entry did.
pub fn cleanup_to_pb(c: &Cleanup) -> pb::RaceCleanup {
    pb::RaceCleanup {
        index: c.index,
        stopped: c.stopped,
        worktree_removed: c.worktree_removed,
        branch_deleted: c.branch_deleted,
        problem: c.problem.clone(),
    }
}

/// A merge mode from the wire (UNSPECIFIED: a merge commit).
pub fn merge_mode_from_pb(raw: i32) -> MergeMode {
    match pb::MergeMode::try_from(raw).unwrap_or(pb::MergeMode::Unspecified) {
        pb::MergeMode::FastForward => MergeMode::FastForward,
        pb::MergeMode::Squash => MergeMode::Squash,
        pb::MergeMode::Merge | pb::MergeMode::Unspecified => MergeMode::Merge,
    }
}
