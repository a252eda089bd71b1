//! Fixtures for tests over a real `State`: this crate's and the server's (which drives the hub
//! and the agents' mapping over one), hence public behind the `fixtures` feature.

use std::path::PathBuf;
use std::time::SystemTime;

use super::{Placement, Policy, State};
use crate::event::Event;
use crate::ids::{PaneId, TabId, WorkspaceId};
use crate::lifecycle::PaneState;
use crate::pane::{Pane, PaneStatus, Size};
use crate::workspace::{GitContext, WorkspaceSettings};

fn now() -> SystemTime {
    SystemTime::now()
}

/// A state holding one workspace ("w", at /tmp), and that workspace's id.
pub fn state_with_ws() -> (State, WorkspaceId) {
    let mut s = State::new(Policy::default());
    let (ws, events) = s
        .create_workspace(
            "w",
            PathBuf::from("/tmp"),
            WorkspaceSettings::default(),
            GitContext::default(),
            now(),
        )
        .expect("create");
    assert!(matches!(events.as_slice(), [Event::WorkspaceCreated(_)]));
    (s, ws.id)
}

/// A live pane record (`sh` in /tmp, pid 1) in `ws`, not yet added to a state.
pub fn record(ws: &WorkspaceId) -> Pane {
    Pane {
        id: PaneId::new(),
        workspace_id: ws.clone(),
        tab_id: TabId::new(),
        title: "sh".into(),
        title_locked: false,
        argv: vec!["sh".into()],
        cwd: PathBuf::from("/tmp"),
        size: Size::DEFAULT,
        status: PaneStatus::Live { pid: 1 },
        state: PaneState::new(now()),
        agent: None,
        pending_decision: None,
        last_message: String::new(),
        created_at: now(),
    }
}

/// A new tab with this title (empty: the default).
pub fn new_tab(title: &str) -> Placement {
    Placement::NewTab {
        title: title.into(),
    }
}
