//! Each message of the Subscribe stream in a readable form (what `signaltty events` prints): a
//! JSON object with `seq` and `kind` (plus the event's fields), and one aligned human line. The
//! stream's control messages (history lost, synced, lagged) get a line too, so a reader always
//! sees them.

use serde::Serialize;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::event::Kind as EventKind;
use signaltty_proto::v1::subscribe_response::Kind as StreamKind;

use super::json::{
    self, JsonDecision, JsonGit, JsonNotification, JsonPane, JsonTab, JsonWorkspace,
};
use super::names::name;
use super::text as human;

/// One line of `signaltty events --json`.
#[derive(Debug, Serialize)]
pub struct JsonEventLine {
    /// The event's seq; for control messages the seq they refer to (head or last delivered).
    pub seq: u64,
    /// When the change happened; `null` for control messages.
    pub at: Option<String>,
    /// `kind` and the event's fields.
    #[serde(flatten)]
    pub body: EventBody,
}

/// The kind of a stream message and its fields.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum EventBody {
    WorkspaceCreated {
        workspace: JsonWorkspace,
    },
    WorkspaceUpdated {
        workspace: JsonWorkspace,
    },
    WorkspaceClosed {
        workspace_id: String,
    },
    TabCreated {
        tab: JsonTab,
    },
    TabUpdated {
        tab: JsonTab,
    },
    TabClosed {
        tab_id: String,
        workspace_id: String,
    },
    PaneCreated {
        pane: JsonPane,
    },
    PaneUpdated {
        pane: JsonPane,
    },
    PaneResized {
        pane_id: String,
        cols: u32,
        rows: u32,
    },
    PaneExited {
        pane_id: String,
        exit_code: i32,
    },
    PaneClosed {
        pane_id: String,
        tab_id: String,
        workspace_id: String,
    },
    LifecycleChanged {
        pane_id: String,
        prev: String,
        new: String,
        source: String,
        run_seconds: f64,
    },
    AttentionChanged {
        pane_id: String,
        prev: String,
        new: String,
        source: String,
    },
    NotificationCreated {
        notification: JsonNotification,
    },
    DecisionCreated {
        decision: JsonDecision,
    },
    DecisionAnswered {
        decision_id: String,
        pane_id: String,
        option_id: String,
    },
    DecisionCleared {
        decision_id: String,
        pane_id: String,
        reason: String,
    },
    GitContextChanged {
        workspace_id: String,
        git: Option<JsonGit>,
    },
    WorktreeChanged {
        repo_root: String,
    },
    ServerShuttingDown {
        reason: String,
    },
    RaceChanged {
        race_id: String,
        index: u32,
        what: String,
    },
    /// An event kind this client does not know (a newer server).
    Unknown,
    /// The requested replay is impossible; re-read state.
    HistoryLost {
        requested_seq: u64,
        oldest_seq: u64,
        head_seq: u64,
    },
    /// The replay is complete; later events are live.
    Synced {
        head_seq: u64,
    },
    /// This subscriber fell behind and the stream ends.
    Lagged {
        last_delivered_seq: u64,
    },
}

/// A stream message ready to print.
#[derive(Debug)]
pub struct EventView {
    /// The JSON form.
    pub json: JsonEventLine,
    /// The human summary (after seq, time and kind).
    pub summary: String,
    /// When the change happened (events only).
    pub at: Option<prost_types::Timestamp>,
}

impl EventView {
    /// The view of one Subscribe message; `None` for an empty message.
    pub fn of(message: &pb::SubscribeResponse) -> Option<EventView> {
        let (seq, at, body, summary) = match message.kind.as_ref()? {
            StreamKind::Event(event) => {
                let (body, summary) = event_body(event);
                (event.seq, event.at, body, summary)
            }
            StreamKind::HistoryLost(h) => (
                h.head_seq,
                None,
                EventBody::HistoryLost {
                    requested_seq: h.requested_seq,
                    oldest_seq: h.oldest_seq,
                    head_seq: h.head_seq,
                },
                format!(
                    "history lost: seq {} is no longer retained (oldest {}, head {}); re-read state",
                    h.requested_seq, h.oldest_seq, h.head_seq
                ),
            ),
            StreamKind::Synced(s) => (
                s.head_seq,
                None,
                EventBody::Synced {
                    head_seq: s.head_seq,
                },
                format!("replay complete at seq {}; live events follow", s.head_seq),
            ),
            StreamKind::Lagged(l) => (
                l.last_delivered_seq,
                None,
                EventBody::Lagged {
                    last_delivered_seq: l.last_delivered_seq,
                },
                format!(
                    "lagged: fell too far behind; resume with --from-seq {}",
                    l.last_delivered_seq
                ),
            ),
        };
        Some(EventView {
            json: JsonEventLine {
                seq,
                at: json::timestamp(&at),
                body,
            },
            summary,
            at,
        })
    }

    /// The kind as printed (`pane_created`, `history_lost`, …).
    pub fn kind(&self) -> String {
        serde_json::to_value(&self.json)
            .ok()
            .and_then(|v| v.get("kind").and_then(|k| k.as_str().map(str::to_string)))
            .unwrap_or_default()
    }

    /// One human line: seq, time, kind, summary.
    pub fn human_line(&self) -> String {
        format!(
            "{:>6}  {:<20}  {:<20}  {}",
            self.json.seq,
            human::time(&self.at),
            self.kind(),
            self.summary
        )
    }
}

fn event_body(event: &pb::Event) -> (EventBody, String) {
    let Some(kind) = &event.kind else {
        return (EventBody::Unknown, "(unknown event)".into());
    };
    let ws = |w: &Option<pb::Workspace>| w.clone().unwrap_or_default();
    match kind {
        EventKind::WorkspaceCreated(e) => {
            let w = ws(&e.workspace);
            let summary = format!("{} {:?} at {}", w.id, w.name, w.cwd);
            (
                EventBody::WorkspaceCreated {
                    workspace: JsonWorkspace::from(&w),
                },
                summary,
            )
        }
        EventKind::WorkspaceUpdated(e) => {
            let w = ws(&e.workspace);
            let summary = format!("{} {:?}", w.id, w.name);
            (
                EventBody::WorkspaceUpdated {
                    workspace: JsonWorkspace::from(&w),
                },
                summary,
            )
        }
        EventKind::WorkspaceClosed(e) => (
            EventBody::WorkspaceClosed {
                workspace_id: e.workspace_id.clone(),
            },
            e.workspace_id.clone(),
        ),
        EventKind::TabCreated(e) => {
            let t = e.tab.clone().unwrap_or_default();
            let summary = format!("{} {:?} in {}", t.id, t.title, t.workspace_id);
            (
                EventBody::TabCreated {
                    tab: JsonTab::from(&t),
                },
                summary,
            )
        }
        EventKind::TabUpdated(e) => {
            let t = e.tab.clone().unwrap_or_default();
            let summary = format!("{} {:?} panes [{}]", t.id, t.title, t.pane_ids.join(" "));
            (
                EventBody::TabUpdated {
                    tab: JsonTab::from(&t),
                },
                summary,
            )
        }
        EventKind::TabClosed(e) => (
            EventBody::TabClosed {
                tab_id: e.tab_id.clone(),
                workspace_id: e.workspace_id.clone(),
            },
            format!("{} in {}", e.tab_id, e.workspace_id),
        ),
        EventKind::PaneCreated(e) => {
            let p = e.pane.clone().unwrap_or_default();
            let summary = format!(
                "{} {:?} in {} ({})",
                p.id,
                p.title,
                p.tab_id,
                p.argv.join(" ")
            );
            (
                EventBody::PaneCreated {
                    pane: JsonPane::from(&p),
                },
                summary,
            )
        }
        EventKind::PaneUpdated(e) => {
            let p = e.pane.clone().unwrap_or_default();
            let summary = format!("{} {:?} {}", p.id, p.title, human::status(&p));
            (
                EventBody::PaneUpdated {
                    pane: JsonPane::from(&p),
                },
                summary,
            )
        }
        EventKind::PaneResized(e) => (
            EventBody::PaneResized {
                pane_id: e.pane_id.clone(),
                cols: e.cols,
                rows: e.rows,
            },
            format!("{} {}x{}", e.pane_id, e.cols, e.rows),
        ),
        EventKind::PaneExited(e) => (
            EventBody::PaneExited {
                pane_id: e.pane_id.clone(),
                exit_code: e.exit_code,
            },
            format!("{} exit code {}", e.pane_id, e.exit_code),
        ),
        EventKind::PaneClosed(e) => (
            EventBody::PaneClosed {
                pane_id: e.pane_id.clone(),
                tab_id: e.tab_id.clone(),
                workspace_id: e.workspace_id.clone(),
            },
            format!("{} from {}", e.pane_id, e.tab_id),
        ),
        EventKind::LifecycleChanged(e) => {
            let (prev, new) = (name::<pb::Lifecycle>(e.prev), name::<pb::Lifecycle>(e.new));
            let source = name::<pb::ChangeSource>(e.source);
            let summary = format!("{} {prev} -> {new} ({source})", e.pane_id);
            let body = EventBody::LifecycleChanged {
                pane_id: e.pane_id.clone(),
                prev,
                new,
                source,
                run_seconds: e.run_seconds,
            };
            (body, summary)
        }
        EventKind::AttentionChanged(e) => {
            let (prev, new) = (name::<pb::Attention>(e.prev), name::<pb::Attention>(e.new));
            let source = name::<pb::ChangeSource>(e.source);
            let summary = format!("{} {prev} -> {new} ({source})", e.pane_id);
            (
                EventBody::AttentionChanged {
                    pane_id: e.pane_id.clone(),
                    prev,
                    new,
                    source,
                },
                summary,
            )
        }
        EventKind::NotificationCreated(e) => {
            let n = e.notification.clone().unwrap_or_default();
            let summary = format!(
                "{} [{}] {}: {}",
                human::or_dash(&n.pane_id),
                name::<pb::Severity>(n.severity),
                n.title,
                n.body
            );
            (
                EventBody::NotificationCreated {
                    notification: JsonNotification::from(&n),
                },
                summary,
            )
        }
        EventKind::DecisionCreated(e) => {
            let d = e.decision.clone().unwrap_or_default();
            let summary = format!("{} {}", d.pane_id, human::decision_summary(&d));
            (
                EventBody::DecisionCreated {
                    decision: JsonDecision::from(&d),
                },
                summary,
            )
        }
        EventKind::DecisionAnswered(e) => (
            EventBody::DecisionAnswered {
                decision_id: e.decision_id.clone(),
                pane_id: e.pane_id.clone(),
                option_id: e.option_id.clone(),
            },
            format!("{} {} answered {}", e.pane_id, e.decision_id, e.option_id),
        ),
        EventKind::DecisionCleared(e) => (
            EventBody::DecisionCleared {
                decision_id: e.decision_id.clone(),
                pane_id: e.pane_id.clone(),
                reason: e.reason.clone(),
            },
            format!("{} {} cleared ({})", e.pane_id, e.decision_id, e.reason),
        ),
        EventKind::GitContextChanged(e) => (
            EventBody::GitContextChanged {
                workspace_id: e.workspace_id.clone(),
                git: e.git.as_ref().map(JsonGit::from),
            },
            format!("{} {}", e.workspace_id, human::git_summary(e.git.as_ref())),
        ),
        EventKind::WorktreeChanged(e) => (
            EventBody::WorktreeChanged {
                repo_root: e.repo_root.clone(),
            },
            e.repo_root.clone(),
        ),
        EventKind::ServerShuttingDown(e) => (
            EventBody::ServerShuttingDown {
                reason: e.reason.clone(),
            },
            e.reason.clone(),
        ),
        EventKind::RaceChanged(e) => (
            EventBody::RaceChanged {
                race_id: e.race_id.clone(),
                index: e.index,
                what: e.what.clone(),
            },
            if e.index == 0 {
                format!("{} {}", e.race_id, e.what)
            } else {
                format!("{} entry {} {}", e.race_id, e.index, e.what)
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, kind: EventKind) -> pb::SubscribeResponse {
        pb::SubscribeResponse {
            kind: Some(StreamKind::Event(pb::Event {
                seq,
                at: Some(prost_types::Timestamp {
                    seconds: 60,
                    nanos: 5,
                }),
                kind: Some(kind),
            })),
        }
    }

    #[test]
    fn an_event_line_has_seq_kind_and_fields() {
        let msg = event(
            7,
            EventKind::LifecycleChanged(pb::LifecycleChanged {
                pane_id: "pane_1".into(),
                prev: pb::Lifecycle::Idle as i32,
                new: pb::Lifecycle::Working as i32,
                source: pb::ChangeSource::Hook as i32,
                run_seconds: 0.0,
            }),
        );
        let view = EventView::of(&msg).expect("an event");
        let v = serde_json::to_value(&view.json).expect("serializable");
        assert_eq!(v["seq"], 7);
        assert_eq!(v["kind"], "lifecycle_changed");
        assert_eq!(v["new"], "working");
        assert_eq!(v["source"], "hook");
        assert_eq!(v["at"], "1970-01-01T00:01:00.000000005Z");
        assert_eq!(view.summary, "pane_1 idle -> working (hook)");
    }

    #[test]
    fn control_messages_have_seq_and_kind_too() {
        let lost = pb::SubscribeResponse {
            kind: Some(StreamKind::HistoryLost(pb::HistoryLost {
                requested_seq: 3,
                oldest_seq: 10,
                head_seq: 20,
            })),
        };
        let view = EventView::of(&lost).expect("a message");
        let v = serde_json::to_value(&view.json).expect("serializable");
        assert_eq!(v["kind"], "history_lost");
        assert_eq!(v["seq"], 20);
        assert!(view.summary.contains("re-read state"));

        let lagged = pb::SubscribeResponse {
            kind: Some(StreamKind::Lagged(pb::Lagged {
                last_delivered_seq: 42,
            })),
        };
        let view = EventView::of(&lagged).expect("a message");
        assert_eq!(view.kind(), "lagged");
        assert!(view.summary.contains("--from-seq 42"), "{}", view.summary);
    }

    #[test]
    fn an_empty_message_has_no_view() {
        assert!(EventView::of(&pb::SubscribeResponse { kind: None }).is_none());
    }
}
