//! Conversions for agent awareness: agent kinds and info, decisions and verdicts, notifications
//! and severities, hook install reports, and the lifecycle/attention values clients wait for.

use signaltty_proto::v1 as pb;

use super::timestamp;
use crate::agents::AgentKind;
use crate::agents::install::HookState;
use crate::error::{Error, Result};
use crate::hub::agents::HookReport;
use crate::model::agent::AgentInfo;
use crate::model::decision::{PendingDecision, Verdict};
use crate::model::ids::WorkspaceId;
use crate::model::lifecycle::{Attention, Lifecycle};
use crate::model::notification::{Notification, NotificationSource, Severity};

/// An agent kind on the wire.
pub fn agent_kind_to_pb(k: AgentKind) -> pb::AgentKind {
    match k {
        AgentKind::Claude => pb::AgentKind::Claude,
        AgentKind::Codex => pb::AgentKind::Codex,
        AgentKind::Opencode => pb::AgentKind::Opencode,
        AgentKind::Cursor => pb::AgentKind::Cursor,
        AgentKind::Generic => pb::AgentKind::Generic,
    }
}

/// A wire agent kind; UNSPECIFIED or unknown values are refused.
pub fn agent_kind_from_pb(raw: i32) -> Result<AgentKind> {
    match pb::AgentKind::try_from(raw) {
        Ok(pb::AgentKind::Claude) => Ok(AgentKind::Claude),
        Ok(pb::AgentKind::Codex) => Ok(AgentKind::Codex),
        Ok(pb::AgentKind::Opencode) => Ok(AgentKind::Opencode),
        Ok(pb::AgentKind::Cursor) => Ok(AgentKind::Cursor),
        Ok(pb::AgentKind::Generic) => Ok(AgentKind::Generic),
        Ok(pb::AgentKind::Unspecified) => Err(Error::bad(
            "agent is required: claude, codex, opencode, cursor or generic",
        )),
        Err(_) => Err(Error::bad(format!(
            "unknown agent kind {raw} (expected claude, codex, opencode, cursor or generic)"
        ))),
    }
}

/// A list of wire agent kinds; empty means every kind with hooks to install.
pub fn agent_kinds_from_pb(raw: &[i32], all: &[AgentKind]) -> Result<Vec<AgentKind>> {
    if raw.is_empty() {
        return Ok(all.to_vec());
    }
    raw.iter().map(|k| agent_kind_from_pb(*k)).collect()
}

/// Agent info on the wire.
pub fn agent_to_pb(a: &AgentInfo) -> pb::AgentInfo {
    pb::AgentInfo {
        kind: agent_kind_to_pb(a.kind).into(),
        session_id: a
            .session_id
            .as_ref()
            .map(|s| s.as_str().to_owned())
            .unwrap_or_default(),
        resume_argv: a.resume_argv.clone().unwrap_or_default(),
        config_env: a.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
    }
}

/// A decision on the wire. For a permission request the prompt is "Allow <tool>?" and the detail
/// is what follows on its second line.
pub fn decision_to_pb(d: &PendingDecision) -> pb::Decision {
    let detail = match d.tool_name {
        Some(_) => d
            .prompt
            .split_once('\n')
            .map(|(_, detail)| detail.to_owned())
            .unwrap_or_default(),
        None => String::new(),
    };
    pb::Decision {
        id: d.id.to_string(),
        pane_id: d.pane_id.to_string(),
        prompt: d.prompt.clone(),
        options: d
            .options
            .iter()
            .map(|o| pb::DecisionOption {
                id: o.id.clone(),
                label: o.label.clone(),
            })
            .collect(),
        answerable: d.answerable,
        received_at: Some(timestamp(d.received_at)),
        tool_name: d.tool_name.clone().unwrap_or_default(),
        detail,
    }
}

/// A verdict on the wire (none = UNSPECIFIED) and its message.
pub fn verdict_to_pb(v: Option<&Verdict>) -> (pb::Verdict, String) {
    match v {
        None => (pb::Verdict::Unspecified, String::new()),
        Some(Verdict::Allow) => (pb::Verdict::Allow, String::new()),
        Some(Verdict::Deny { message }) => (pb::Verdict::Deny, message.clone()),
    }
}

/// A severity on the wire.
pub fn severity_to_pb(s: Severity) -> pb::Severity {
    match s {
        Severity::Info => pb::Severity::Info,
        Severity::Warning => pb::Severity::Warning,
        Severity::Error => pb::Severity::Error,
    }
}

/// A wire severity; UNSPECIFIED means info, unknown values are refused.
pub fn severity_from_pb(raw: i32) -> Result<Severity> {
    match pb::Severity::try_from(raw) {
        Ok(pb::Severity::Unspecified | pb::Severity::Info) => Ok(Severity::Info),
        Ok(pb::Severity::Warning) => Ok(Severity::Warning),
        Ok(pb::Severity::Error) => Ok(Severity::Error),
        Err(_) => Err(Error::bad(format!(
            "unknown severity {raw} (expected INFO, WARNING or ERROR)"
        ))),
    }
}

/// A notification source on the wire (the OSC forms share one value).
pub fn notification_source_to_pb(s: NotificationSource) -> pb::NotificationSource {
    match s {
        NotificationSource::Osc9 | NotificationSource::Osc99 | NotificationSource::Osc777 => {
            pb::NotificationSource::Osc
        }
        NotificationSource::Api => pb::NotificationSource::Api,
        NotificationSource::Hook => pb::NotificationSource::Hook,
        NotificationSource::Bell | NotificationSource::Exit => pb::NotificationSource::Unspecified,
    }
}

/// A notification on the wire, with its pane's workspace.
pub fn notification_to_pb(n: &Notification, workspace: Option<&WorkspaceId>) -> pb::Notification {
    pb::Notification {
        id: n.id.to_string(),
        pane_id: n
            .pane_id
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        workspace_id: workspace.map(ToString::to_string).unwrap_or_default(),
        title: n.title.clone(),
        body: n.body.clone(),
        severity: severity_to_pb(n.severity).into(),
        source: notification_source_to_pb(n.source).into(),
        created_at: Some(timestamp(n.created_at)),
        read: n.read,
    }
}

/// A hook state on the wire.
pub fn hook_state_to_pb(s: Option<&HookState>) -> pb::HookState {
    match s {
        None => pb::HookState::Unspecified,
        Some(HookState::Installed) => pb::HookState::Installed,
        Some(HookState::NotInstalled) => pb::HookState::NotInstalled,
        Some(HookState::Partial) => pb::HookState::Partial,
        Some(HookState::Malformed(_)) => pb::HookState::Malformed,
    }
}

/// A hook install/status report on the wire.
pub fn hook_report_to_pb(r: &HookReport) -> pb::HookReport {
    pb::HookReport {
        agent: agent_kind_to_pb(r.kind).into(),
        path: r.path.display().to_string(),
        state: hook_state_to_pb(r.state.as_ref()).into(),
        changed: r.changed,
        error: r.error.clone().unwrap_or_default(),
        notice: r.notice.clone().unwrap_or_default(),
    }
}

/// A wire lifecycle in a request; UNSPECIFIED or unknown values are refused.
pub fn lifecycle_from_pb(raw: i32) -> Result<Lifecycle> {
    Ok(match pb::Lifecycle::try_from(raw) {
        Ok(pb::Lifecycle::Unknown) => Lifecycle::Unknown,
        Ok(pb::Lifecycle::Idle) => Lifecycle::Idle,
        Ok(pb::Lifecycle::Working) => Lifecycle::Working,
        Ok(pb::Lifecycle::Blocked) => Lifecycle::Blocked,
        Ok(pb::Lifecycle::Done) => Lifecycle::Done,
        Ok(pb::Lifecycle::Failed) => Lifecycle::Failed,
        Ok(pb::Lifecycle::Exited) => Lifecycle::Exited,
        Ok(pb::Lifecycle::Unspecified) | Err(_) => {
            return Err(Error::bad(format!(
                "lifecycle {raw} is not one of UNKNOWN, IDLE, WORKING, BLOCKED, DONE, FAILED, EXITED"
            )));
        }
    })
}

/// A wire attention in a request; UNSPECIFIED or unknown values are refused.
pub fn attention_from_pb(raw: i32) -> Result<Attention> {
    Ok(match pb::Attention::try_from(raw) {
        Ok(pb::Attention::None) => Attention::None,
        Ok(pb::Attention::Unread) => Attention::Unread,
        Ok(pb::Attention::Warning) => Attention::Warning,
        Ok(pb::Attention::InputRequired) => Attention::InputRequired,
        Ok(pb::Attention::PermissionRequired) => Attention::PermissionRequired,
        Ok(pb::Attention::Error) => Attention::Error,
        Ok(pb::Attention::Unspecified) | Err(_) => {
            return Err(Error::bad(format!(
                "attention {raw} is not one of NONE, UNREAD, WARNING, INPUT_REQUIRED, PERMISSION_REQUIRED, ERROR"
            )));
        }
    })
}
