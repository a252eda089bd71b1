//! Every conversion between wire (`signaltty_proto::v1`) and domain types, in one place. Wire
//! input is untrusted: conversions into the domain validate and answer BAD_PARAMS.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use signaltty_proto::v1 as pb;

use crate::error::{Error, Result};
use crate::hub::Hub;
use crate::hub::panes::PaneLive;
use crate::model::event::{ChangeSource, Event, EventKind, Stamped};
use crate::model::ids::{DecisionId, NotificationId, PaneId, TabId, WorkspaceId};
use crate::model::layout::{Direction, PathStep};
use crate::model::lifecycle::{Attention, Lifecycle};
use crate::model::pane::{Pane, PaneStatus};
use crate::model::tab::Tab;
use crate::model::workspace::{GitContext, Workspace, WorkspaceSettings};

// ----- ids -----

fn parse_id<T>(
    what: &str,
    raw: &str,
    parse: impl Fn(&str) -> Option<T>,
    prefix: &str,
) -> Result<T> {
    if raw.is_empty() {
        return Err(Error::bad(format!("{what} is required")));
    }
    parse(raw).ok_or_else(|| {
        Error::bad(format!(
            "{what} {} is not a valid id (ids start with {prefix:?})",
            crate::error::quote(raw)
        ))
    })
}

/// A required workspace id.
pub fn workspace_id(raw: &str) -> Result<WorkspaceId> {
    parse_id("workspace_id", raw, WorkspaceId::parse, WorkspaceId::PREFIX)
}

/// A required tab id.
pub fn tab_id(raw: &str) -> Result<TabId> {
    parse_id("tab_id", raw, TabId::parse, TabId::PREFIX)
}

/// A required pane id.
pub fn pane_id(raw: &str) -> Result<PaneId> {
    parse_id("pane_id", raw, PaneId::parse, PaneId::PREFIX)
}

/// A required race id.
pub fn race_id(raw: &str) -> Result<crate::model::ids::RaceId> {
    use crate::model::ids::RaceId;
    parse_id("race_id", raw, RaceId::parse, RaceId::PREFIX)
}

/// A required decision id.
pub fn decision_id(raw: &str) -> Result<DecisionId> {
    parse_id("decision_id", raw, DecisionId::parse, DecisionId::PREFIX)
}

/// A required notification id.
pub fn notification_id(raw: &str) -> Result<NotificationId> {
    parse_id(
        "notification_id",
        raw,
        NotificationId::parse,
        NotificationId::PREFIX,
    )
}

/// An optional id: empty means none.
pub fn optional<T>(raw: &str, parse: impl Fn(&str) -> Result<T>) -> Result<Option<T>> {
    if raw.is_empty() {
        Ok(None)
    } else {
        parse(raw).map(Some)
    }
}

mod awareness;
pub mod git;
mod layout;
pub mod race;
pub use awareness::*;
pub use layout::*;

// ----- time -----

/// A timestamp.
pub fn timestamp(t: SystemTime) -> prost_types::Timestamp {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    prost_types::Timestamp {
        seconds: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        nanos: i32::try_from(d.subsec_nanos()).unwrap_or(0),
    }
}

fn opt_timestamp(t: Option<SystemTime>) -> Option<prost_types::Timestamp> {
    t.map(timestamp)
}

// ----- workspaces -----

/// Wire settings into domain settings (absent → defaults).
pub fn settings_from_pb(s: Option<pb::WorkspaceSettings>) -> WorkspaceSettings {
    let s = s.unwrap_or_default();
    WorkspaceSettings {
        auto_resume_agents: s.auto_resume_agents,
        disable_tails: s.disable_tails,
        answer_from_signaltty: s
            .answer_from_signaltty
            .iter()
            .filter_map(|k| awareness::agent_kind_from_pb(*k).ok())
            .collect(),
        hibernate_after_minutes: s.hibernate_after_minutes,
        hibernate_agents: s
            .hibernate_agents
            .iter()
            .filter_map(|k| awareness::agent_kind_from_pb(*k).ok())
            .collect(),
    }
}

/// A git context on the wire.
pub fn git_to_pb(g: &GitContext) -> pb::GitContext {
    pb::GitContext {
        is_repo: g.repo_root.is_some(),
        repo_root: g
            .repo_root
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        repo_name: g.repo_name.clone(),
        branch: g.branch.clone().unwrap_or_default(),
        dirty: g.dirty,
        dirty_unknown: g.dirty_unknown,
        refreshed_at: opt_timestamp(g.refreshed_at),
    }
}

/// A workspace on the wire.
pub fn workspace_to_pb(w: &Workspace) -> pb::Workspace {
    pb::Workspace {
        id: w.id.to_string(),
        name: w.name.clone(),
        cwd: w.cwd.display().to_string(),
        git: Some(git_to_pb(&w.git)),
        tab_ids: w.tabs.ids().into_iter().map(ToString::to_string).collect(),
        active_tab_id: w
            .active_tab
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        settings: Some(pb::WorkspaceSettings {
            auto_resume_agents: w.settings.auto_resume_agents,
            disable_tails: w.settings.disable_tails,
            answer_from_signaltty: w
                .settings
                .answer_from_signaltty
                .iter()
                .map(|k| i32::from(awareness::agent_kind_to_pb(*k)))
                .collect(),
            hibernate_after_minutes: w.settings.hibernate_after_minutes,
            hibernate_agents: w
                .settings
                .hibernate_agents
                .iter()
                .map(|k| i32::from(awareness::agent_kind_to_pb(*k)))
                .collect(),
        }),
        created_at: Some(timestamp(w.created_at)),
        updated_at: Some(timestamp(w.updated_at)),
    }
}

// ----- tabs and layouts -----

/// A tab on the wire: the layout complete in `flat_layout`, and in the deprecated nested
/// `layout` only while that stays readable (see [`nested_layout_to_pb`]).
#[allow(deprecated)] // `layout` is kept filled for clients written before `flat_layout`.
pub fn tab_to_pb(t: &Tab) -> pb::Tab {
    pb::Tab {
        id: t.id.to_string(),
        workspace_id: t.workspace_id.to_string(),
        title: t.title.clone(),
        layout: t.layout.as_ref().and_then(nested_layout_to_pb),
        flat_layout: t.layout.as_ref().map(flat_layout_to_pb),
        pane_ids: t.panes().iter().map(ToString::to_string).collect(),
        active_pane_id: t
            .active_pane
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        created_at: Some(timestamp(t.created_at)),
    }
}

/// A direction on the wire.
pub fn direction_to_pb(d: Direction) -> pb::Direction {
    match d {
        Direction::Right => pb::Direction::Right,
        Direction::Down => pb::Direction::Down,
    }
}

/// A wire direction; UNSPECIFIED or unknown values are refused.
pub fn direction_from_pb(raw: i32) -> Result<Direction> {
    match pb::Direction::try_from(raw) {
        Ok(pb::Direction::Right) => Ok(Direction::Right),
        Ok(pb::Direction::Down) => Ok(Direction::Down),
        _ => Err(Error::bad("direction must be RIGHT or DOWN")),
    }
}

/// A wire path into the domain.
pub fn path_from_pb(raw: &[i32]) -> Result<Vec<PathStep>> {
    raw.iter()
        .map(|step| match pb::PathStep::try_from(*step) {
            Ok(pb::PathStep::First) => Ok(PathStep::First),
            Ok(pb::PathStep::Second) => Ok(PathStep::Second),
            _ => Err(Error::bad("path steps must be FIRST or SECOND")),
        })
        .collect()
}

// ----- panes -----

/// Lifecycle on the wire.
pub fn lifecycle_to_pb(l: Lifecycle) -> pb::Lifecycle {
    match l {
        Lifecycle::Unknown => pb::Lifecycle::Unknown,
        Lifecycle::Idle => pb::Lifecycle::Idle,
        Lifecycle::Working => pb::Lifecycle::Working,
        Lifecycle::Blocked => pb::Lifecycle::Blocked,
        Lifecycle::Done => pb::Lifecycle::Done,
        Lifecycle::Failed => pb::Lifecycle::Failed,
        Lifecycle::Exited => pb::Lifecycle::Exited,
    }
}

/// Attention on the wire.
pub fn attention_to_pb(a: Attention) -> pb::Attention {
    match a {
        Attention::None => pb::Attention::None,
        Attention::Unread => pb::Attention::Unread,
        Attention::Warning => pb::Attention::Warning,
        Attention::InputRequired => pb::Attention::InputRequired,
        Attention::PermissionRequired => pb::Attention::PermissionRequired,
        Attention::Error => pb::Attention::Error,
    }
}

/// A change source on the wire.
pub fn source_to_pb(s: ChangeSource) -> pb::ChangeSource {
    match s {
        ChangeSource::Hook => pb::ChangeSource::Hook,
        ChangeSource::Osc => pb::ChangeSource::Osc,
        ChangeSource::Bell => pb::ChangeSource::Bell,
        ChangeSource::Exit => pb::ChangeSource::Exit,
        ChangeSource::Api => pb::ChangeSource::Api,
        ChangeSource::Client => pb::ChangeSource::Client,
        ChangeSource::Decision => pb::ChangeSource::Decision,
        ChangeSource::Restore => pb::ChangeSource::Restore,
        ChangeSource::Resume => pb::ChangeSource::Resume,
    }
}

/// A pane on the wire with its live numbers from the hub (offset, last activity, current cwd).
pub fn pane_pb(hub: &Hub, p: &Pane) -> pb::Pane {
    pane_to_pb(p, hub.pane_live(&p.id))
}

/// A pane on the wire.
pub fn pane_to_pb(p: &Pane, live: PaneLive) -> pb::Pane {
    let (status, pid, exit_code, exited_at) = match p.status {
        PaneStatus::Live { pid } => (pb::PaneStatus::Live, pid, None, None),
        PaneStatus::Exited { code, at } => {
            (pb::PaneStatus::Exited, 0, Some(code), Some(timestamp(at)))
        }
        PaneStatus::Restored => (pb::PaneStatus::Restored, 0, None, None),
        PaneStatus::Resumable => (pb::PaneStatus::Resumable, 0, None, None),
        PaneStatus::Hibernated => (pb::PaneStatus::Hibernated, 0, None, None),
    };
    pb::Pane {
        id: p.id.to_string(),
        workspace_id: p.workspace_id.to_string(),
        tab_id: p.tab_id.to_string(),
        title: p.title.clone(),
        argv: p.argv.clone(),
        cwd: live.cwd.as_ref().unwrap_or(&p.cwd).display().to_string(),
        cols: u32::from(p.size.cols),
        rows: u32::from(p.size.rows),
        status: status.into(),
        pid,
        exit_code,
        lifecycle: lifecycle_to_pb(p.state.lifecycle()).into(),
        attention: attention_to_pb(p.state.attention()).into(),
        lifecycle_since: Some(timestamp(p.state.lifecycle_since())),
        last_run_seconds: p.state.last_run().map_or(0.0, |d| d.as_secs_f64()),
        last_message: p.last_message.clone(),
        agent: p.agent.as_ref().map(agent_to_pb),
        pending_decision: p.pending_decision.as_ref().map(decision_to_pb),
        output_offset: live.output_offset,
        created_at: Some(timestamp(p.created_at)),
        last_activity_at: opt_timestamp(live.last_activity_at),
        exited_at,
    }
}

// ----- events -----

/// A wire event-kind filter into the domain (UNSPECIFIED is ignored).
pub fn event_kind_from_pb(raw: i32) -> Option<EventKind> {
    match pb::EventKind::try_from(raw).ok()? {
        pb::EventKind::Unspecified => None,
        pb::EventKind::Workspace => Some(EventKind::Workspace),
        pb::EventKind::Tab => Some(EventKind::Tab),
        pb::EventKind::Pane => Some(EventKind::Pane),
        pb::EventKind::Lifecycle => Some(EventKind::Lifecycle),
        pb::EventKind::Attention => Some(EventKind::Attention),
        pb::EventKind::Notification => Some(EventKind::Notification),
        pb::EventKind::Decision => Some(EventKind::Decision),
        pb::EventKind::Git => Some(EventKind::Git),
        pb::EventKind::Server => Some(EventKind::Server),
        pb::EventKind::Race => Some(EventKind::Race),
    }
}

/// An event on the wire. `pane` converts pane records (it adds live numbers).
pub fn event_to_pb(e: &Stamped, pane: &dyn Fn(&Pane) -> pb::Pane) -> pb::Event {
    use pb::event::Kind;
    let kind = match &e.event {
        Event::WorkspaceCreated(w) => Kind::WorkspaceCreated(pb::WorkspaceCreated {
            workspace: Some(workspace_to_pb(w)),
        }),
        Event::WorkspaceUpdated(w) => Kind::WorkspaceUpdated(pb::WorkspaceUpdated {
            workspace: Some(workspace_to_pb(w)),
        }),
        Event::WorkspaceClosed { workspace_id } => Kind::WorkspaceClosed(pb::WorkspaceClosed {
            workspace_id: workspace_id.to_string(),
        }),
        Event::TabCreated(t) => Kind::TabCreated(pb::TabCreated {
            tab: Some(tab_to_pb(t)),
        }),
        Event::TabUpdated(t) => Kind::TabUpdated(pb::TabUpdated {
            tab: Some(tab_to_pb(t)),
        }),
        Event::TabClosed {
            tab_id,
            workspace_id,
        } => Kind::TabClosed(pb::TabClosed {
            tab_id: tab_id.to_string(),
            workspace_id: workspace_id.to_string(),
        }),
        Event::PaneCreated(p) => Kind::PaneCreated(pb::PaneCreated {
            pane: Some(pane(p)),
        }),
        Event::PaneUpdated(p) => Kind::PaneUpdated(pb::PaneUpdated {
            pane: Some(pane(p)),
        }),
        Event::PaneResized { pane_id, size } => Kind::PaneResized(pb::PaneResized {
            pane_id: pane_id.to_string(),
            cols: u32::from(size.cols),
            rows: u32::from(size.rows),
        }),
        Event::PaneExited { pane_id, code } => Kind::PaneExited(pb::PaneExited {
            pane_id: pane_id.to_string(),
            exit_code: *code,
        }),
        Event::PaneClosed {
            pane_id,
            tab_id,
            workspace_id,
        } => Kind::PaneClosed(pb::PaneClosed {
            pane_id: pane_id.to_string(),
            tab_id: tab_id.to_string(),
            workspace_id: workspace_id.to_string(),
        }),
        Event::LifecycleChanged {
            pane_id,
            prev,
            new,
            source,
            run,
        } => Kind::LifecycleChanged(pb::LifecycleChanged {
            pane_id: pane_id.to_string(),
            prev: lifecycle_to_pb(*prev).into(),
            new: lifecycle_to_pb(*new).into(),
            source: source_to_pb(*source).into(),
            run_seconds: run.map_or(0.0, |d| d.as_secs_f64()),
        }),
        Event::AttentionChanged {
            pane_id,
            prev,
            new,
            source,
        } => Kind::AttentionChanged(pb::AttentionChanged {
            pane_id: pane_id.to_string(),
            prev: attention_to_pb(*prev).into(),
            new: attention_to_pb(*new).into(),
            source: source_to_pb(*source).into(),
        }),
        Event::NotificationCreated {
            notification,
            workspace_id,
        } => Kind::NotificationCreated(pb::NotificationCreated {
            notification: Some(notification_to_pb(notification, workspace_id.as_ref())),
        }),
        Event::DecisionCreated(d) => Kind::DecisionCreated(pb::DecisionCreated {
            decision: Some(decision_to_pb(d)),
        }),
        Event::DecisionAnswered {
            decision_id,
            pane_id,
            option_id,
        } => Kind::DecisionAnswered(pb::DecisionAnswered {
            decision_id: decision_id.to_string(),
            pane_id: pane_id.to_string(),
            option_id: option_id.clone(),
        }),
        Event::DecisionCleared {
            decision_id,
            pane_id,
            reason,
        } => Kind::DecisionCleared(pb::DecisionCleared {
            decision_id: decision_id.to_string(),
            pane_id: pane_id.to_string(),
            reason: reason.as_str().to_owned(),
        }),
        Event::GitContextChanged { workspace_id, git } => {
            Kind::GitContextChanged(pb::GitContextChanged {
                workspace_id: workspace_id.to_string(),
                git: Some(git_to_pb(git)),
            })
        }
        Event::WorktreeChanged { repo_root } => Kind::WorktreeChanged(pb::WorktreeChanged {
            repo_root: repo_root.display().to_string(),
        }),
        Event::ServerShuttingDown { reason } => Kind::ServerShuttingDown(pb::ServerShuttingDown {
            reason: reason.clone(),
        }),
        Event::RaceChanged {
            race_id,
            index,
            what,
        } => Kind::RaceChanged(pb::RaceChanged {
            race_id: race_id.to_string(),
            index: *index,
            what: what.clone(),
        }),
    };
    pb::Event {
        seq: e.seq,
        at: Some(timestamp(e.at)),
        kind: Some(kind),
    }
}
