//! The JSON model of the wire types (the CLI's `--json` output): serde structs mirroring the
//! proto messages, converted by hand so the output is stable and friendly to `jq` rather than a
//! dump of the wire format: enums are lower-case names (`"working"`, `"permission_required"`),
//! ids are strings, empty optional ids and unset timestamps are `null`, timestamps are RFC 3339,
//! layouts use the [`LayoutJson`] shape that `tab set-layout` reads.

use serde::Serialize;
use signaltty_proto::v1 as pb;

use super::layout::LayoutJson;
use super::names::name;

/// An RFC 3339 timestamp, or `None` when unset.
pub fn timestamp(ts: &Option<prost_types::Timestamp>) -> Option<String> {
    ts.as_ref().map(|t| t.to_string())
}

/// `None` for an empty string: proto3 cannot tell "absent" from "empty" for ids.
pub fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// `ServerService.GetStatus`.
#[derive(Debug, Serialize)]
pub struct JsonStatus {
    pub version: String,
    pub started_at: Option<String>,
    pub uptime_seconds: u64,
    pub pid: u32,
    pub socket_path: String,
    pub state_dir: String,
    pub workspace_count: u32,
    pub tab_count: u32,
    pub pane_count: u32,
    pub live_pane_count: u32,
    pub head_seq: u64,
}

impl From<&pb::GetStatusResponse> for JsonStatus {
    fn from(s: &pb::GetStatusResponse) -> Self {
        JsonStatus {
            version: s.version.clone(),
            started_at: timestamp(&s.started_at),
            uptime_seconds: s.uptime_seconds,
            pid: s.pid,
            socket_path: s.socket_path.clone(),
            state_dir: s.state_dir.clone(),
            workspace_count: s.workspace_count,
            tab_count: s.tab_count,
            pane_count: s.pane_count,
            live_pane_count: s.live_pane_count,
            head_seq: s.head_seq,
        }
    }
}

/// A workspace.
#[derive(Debug, Serialize)]
pub struct JsonWorkspace {
    pub id: String,
    pub name: String,
    pub cwd: String,
    pub git: Option<JsonGit>,
    pub tab_ids: Vec<String>,
    pub active_tab_id: Option<String>,
    pub settings: JsonSettings,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

impl From<&pb::Workspace> for JsonWorkspace {
    fn from(w: &pb::Workspace) -> Self {
        let settings = w.settings.clone().unwrap_or_default();
        JsonWorkspace {
            id: w.id.clone(),
            name: w.name.clone(),
            cwd: w.cwd.clone(),
            git: w.git.as_ref().map(JsonGit::from),
            tab_ids: w.tab_ids.clone(),
            active_tab_id: non_empty(&w.active_tab_id),
            settings: JsonSettings {
                auto_resume_agents: settings.auto_resume_agents,
                disable_tails: settings.disable_tails,
            },
            created_at: timestamp(&w.created_at),
            updated_at: timestamp(&w.updated_at),
        }
    }
}

/// A workspace's settings.
#[derive(Debug, Serialize)]
pub struct JsonSettings {
    pub auto_resume_agents: bool,
    pub disable_tails: bool,
}

/// A workspace's git context.
#[derive(Debug, Serialize)]
pub struct JsonGit {
    pub is_repo: bool,
    pub repo_root: Option<String>,
    pub repo_name: Option<String>,
    pub branch: Option<String>,
    pub dirty: bool,
    /// The dirty check ran out of time; `dirty` means nothing then.
    pub dirty_unknown: bool,
    pub refreshed_at: Option<String>,
}

impl From<&pb::GitContext> for JsonGit {
    fn from(g: &pb::GitContext) -> Self {
        JsonGit {
            is_repo: g.is_repo,
            repo_root: non_empty(&g.repo_root),
            repo_name: non_empty(&g.repo_name),
            branch: non_empty(&g.branch),
            dirty: g.dirty,
            dirty_unknown: g.dirty_unknown,
            refreshed_at: timestamp(&g.refreshed_at),
        }
    }
}

/// A tab with its layout.
#[derive(Debug, Serialize)]
pub struct JsonTab {
    pub id: String,
    pub workspace_id: String,
    pub title: String,
    pub layout: Option<LayoutJson>,
    pub pane_ids: Vec<String>,
    pub active_pane_id: Option<String>,
    pub created_at: Option<String>,
}

impl From<&pb::Tab> for JsonTab {
    fn from(t: &pb::Tab) -> Self {
        JsonTab {
            id: t.id.clone(),
            workspace_id: t.workspace_id.clone(),
            title: t.title.clone(),
            // A tree this client cannot represent is shown as absent rather than failing the
            // whole command; `tab` commands print the ids anyway.
            layout: signaltty_client::layout_tree::tree(t)
                .and_then(|l| LayoutJson::from_proto(&l).ok()),
            pane_ids: t.pane_ids.clone(),
            active_pane_id: non_empty(&t.active_pane_id),
            created_at: timestamp(&t.created_at),
        }
    }
}

/// A pane.
#[derive(Debug, Serialize)]
pub struct JsonPane {
    pub id: String,
    pub workspace_id: String,
    pub tab_id: String,
    pub title: String,
    pub argv: Vec<String>,
    pub cwd: String,
    pub cols: u32,
    pub rows: u32,
    pub status: String,
    pub pid: Option<u32>,
    pub exit_code: Option<i32>,
    pub lifecycle: String,
    pub attention: String,
    pub lifecycle_since: Option<String>,
    pub last_run_seconds: f64,
    pub last_message: Option<String>,
    pub agent: Option<JsonAgent>,
    pub pending_decision: Option<JsonDecision>,
    pub output_offset: u64,
    pub created_at: Option<String>,
    pub last_activity_at: Option<String>,
    pub exited_at: Option<String>,
}

impl From<&pb::Pane> for JsonPane {
    fn from(p: &pb::Pane) -> Self {
        JsonPane {
            id: p.id.clone(),
            workspace_id: p.workspace_id.clone(),
            tab_id: p.tab_id.clone(),
            title: p.title.clone(),
            argv: p.argv.clone(),
            cwd: p.cwd.clone(),
            cols: p.cols,
            rows: p.rows,
            status: name::<pb::PaneStatus>(p.status),
            pid: (p.pid != 0).then_some(p.pid),
            exit_code: p.exit_code,
            lifecycle: name::<pb::Lifecycle>(p.lifecycle),
            attention: name::<pb::Attention>(p.attention),
            lifecycle_since: timestamp(&p.lifecycle_since),
            last_run_seconds: p.last_run_seconds,
            last_message: non_empty(&p.last_message),
            agent: p.agent.as_ref().map(JsonAgent::from),
            pending_decision: p.pending_decision.as_ref().map(JsonDecision::from),
            output_offset: p.output_offset,
            created_at: timestamp(&p.created_at),
            last_activity_at: timestamp(&p.last_activity_at),
            exited_at: timestamp(&p.exited_at),
        }
    }
}

/// What is known of a pane's agent.
#[derive(Debug, Serialize)]
pub struct JsonAgent {
    pub kind: String,
    pub session_id: Option<String>,
    pub resume_argv: Vec<String>,
}

impl From<&pb::AgentInfo> for JsonAgent {
    fn from(a: &pb::AgentInfo) -> Self {
        JsonAgent {
            kind: name::<pb::AgentKind>(a.kind),
            session_id: non_empty(&a.session_id),
            resume_argv: a.resume_argv.clone(),
        }
    }
}

/// A pending decision.
#[derive(Debug, Serialize)]
pub struct JsonDecision {
    pub id: String,
    pub pane_id: String,
    pub prompt: String,
    pub options: Vec<JsonOption>,
    pub answerable: bool,
    pub received_at: Option<String>,
    pub tool_name: Option<String>,
    pub detail: Option<String>,
}

/// One answer to a decision.
#[derive(Debug, Serialize)]
pub struct JsonOption {
    pub id: String,
    pub label: String,
}

impl From<&pb::Decision> for JsonDecision {
    fn from(d: &pb::Decision) -> Self {
        JsonDecision {
            id: d.id.clone(),
            pane_id: d.pane_id.clone(),
            prompt: d.prompt.clone(),
            options: d
                .options
                .iter()
                .map(|o| JsonOption {
                    id: o.id.clone(),
                    label: o.label.clone(),
                })
                .collect(),
            answerable: d.answerable,
            received_at: timestamp(&d.received_at),
            tool_name: non_empty(&d.tool_name),
            detail: non_empty(&d.detail),
        }
    }
}

/// A stored notification.
#[derive(Debug, Serialize)]
pub struct JsonNotification {
    pub id: String,
    pub pane_id: Option<String>,
    pub workspace_id: Option<String>,
    pub title: String,
    pub body: String,
    pub severity: String,
    pub source: String,
    pub created_at: Option<String>,
    pub read: bool,
}

impl From<&pb::Notification> for JsonNotification {
    fn from(n: &pb::Notification) -> Self {
        JsonNotification {
            id: n.id.clone(),
            pane_id: non_empty(&n.pane_id),
            workspace_id: non_empty(&n.workspace_id),
            title: n.title.clone(),
            body: n.body.clone(),
            severity: name::<pb::Severity>(n.severity),
            source: name::<pb::NotificationSource>(n.source),
            created_at: timestamp(&n.created_at),
            read: n.read,
        }
    }
}

/// The outcome of a hook install, uninstall or status for one agent.
#[derive(Debug, Serialize)]
pub struct JsonHookReport {
    pub agent: String,
    pub path: String,
    pub state: String,
    pub changed: bool,
    pub error: Option<String>,
}

impl From<&pb::HookReport> for JsonHookReport {
    fn from(r: &pb::HookReport) -> Self {
        JsonHookReport {
            agent: name::<pb::AgentKind>(r.agent),
            path: r.path.clone(),
            state: name::<pb::HookState>(r.state),
            changed: r.changed,
            error: non_empty(&r.error),
        }
    }
}

/// Converts a list with a `From` conversion.
pub fn list<'a, P: 'a, J: From<&'a P>>(items: &'a [P]) -> Vec<J> {
    items.iter().map(J::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_json_uses_names_nulls_and_rfc3339() {
        let pane = pb::Pane {
            id: "pane_1".into(),
            status: pb::PaneStatus::Live as i32,
            lifecycle: pb::Lifecycle::Blocked as i32,
            attention: pb::Attention::PermissionRequired as i32,
            pid: 42,
            created_at: Some(prost_types::Timestamp {
                seconds: 0,
                nanos: 0,
            }),
            ..Default::default()
        };
        let v = serde_json::to_value(JsonPane::from(&pane)).expect("serializable");
        assert_eq!(v["lifecycle"], "blocked");
        assert_eq!(v["attention"], "permission_required");
        assert_eq!(v["status"], "live");
        assert_eq!(v["pid"], 42);
        assert_eq!(v["exit_code"], serde_json::Value::Null);
        assert_eq!(v["last_message"], serde_json::Value::Null);
        assert_eq!(v["created_at"], "1970-01-01T00:00:00Z");
    }

    #[test]
    fn tab_json_carries_the_layout_shape() {
        let mut tab = pb::Tab {
            id: "tab_1".into(),
            ..Default::default()
        };
        signaltty_client::layout_tree::set(
            &mut tab,
            Some(pb::Layout {
                node: Some(pb::layout::Node::PaneId("pane_1".into())),
            }),
        );
        let v = serde_json::to_value(JsonTab::from(&tab)).expect("serializable");
        assert_eq!(v["layout"], serde_json::json!({"pane": "pane_1"}));
        assert_eq!(v["active_pane_id"], serde_json::Value::Null);
    }
}
