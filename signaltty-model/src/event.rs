//! Domain events: every state change the store makes is described by one of these, stamped with a
//! seq by the bus and converted to the wire form only at the edge.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::decision::{ClearReason, PendingDecision};
use crate::ids::{DecisionId, PaneId, TabId, WorkspaceId};
pub use crate::lifecycle::ChangeSource;
use crate::lifecycle::{Attention, Lifecycle};
use crate::notification::Notification;
use crate::pane::{Pane, Size};
use crate::tab::Tab;
use crate::workspace::{GitContext, Workspace};

/// One state change. Records are boxed: the bus keeps up to 10,000 events and an enum is as
/// large as its largest variant, so an inline `Pane` (~550 bytes) made every event, even a
/// lifecycle change, cost that much in the replay ring.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A workspace was created.
    WorkspaceCreated(Box<Workspace>),
    /// A workspace changed.
    WorkspaceUpdated(Box<Workspace>),
    /// A workspace was closed.
    WorkspaceClosed {
        /// Its id.
        workspace_id: WorkspaceId,
    },
    /// A tab was created.
    TabCreated(Box<Tab>),
    /// A tab changed.
    TabUpdated(Box<Tab>),
    /// A tab was closed.
    TabClosed {
        /// Its id.
        tab_id: TabId,
        /// Its workspace.
        workspace_id: WorkspaceId,
    },
    /// A pane was created.
    PaneCreated(Box<Pane>),
    /// A pane changed.
    PaneUpdated(Box<Pane>),
    /// A pane's size changed.
    PaneResized {
        /// Its id.
        pane_id: PaneId,
        /// New size.
        size: Size,
    },
    /// A pane's process exited.
    PaneExited {
        /// Its id.
        pane_id: PaneId,
        /// Exit code.
        code: i32,
    },
    /// A pane was removed.
    PaneClosed {
        /// Its id.
        pane_id: PaneId,
        /// Its tab.
        tab_id: TabId,
        /// Its workspace.
        workspace_id: WorkspaceId,
    },
    /// Lifecycle transition.
    LifecycleChanged {
        /// The pane.
        pane_id: PaneId,
        /// Before.
        prev: Lifecycle,
        /// After.
        new: Lifecycle,
        /// Cause.
        source: ChangeSource,
        /// Length of the WORKING stretch that just ended, if one did.
        run: Option<Duration>,
    },
    /// Attention transition.
    AttentionChanged {
        /// The pane.
        pane_id: PaneId,
        /// Before.
        prev: Attention,
        /// After.
        new: Attention,
        /// Cause.
        source: ChangeSource,
    },
    /// A notification was stored.
    NotificationCreated {
        /// The notification as stored (sanitized).
        notification: Notification,
        /// The workspace of its pane, when it has one.
        workspace_id: Option<WorkspaceId>,
    },
    /// A decision became pending on its pane.
    DecisionCreated(Box<PendingDecision>),
    /// A decision was answered; its waiter received the verdict.
    DecisionAnswered {
        /// The decision.
        decision_id: DecisionId,
        /// Its pane.
        pane_id: PaneId,
        /// The option chosen.
        option_id: String,
    },
    /// A decision ended without an answer.
    DecisionCleared {
        /// The decision.
        decision_id: DecisionId,
        /// Its pane.
        pane_id: PaneId,
        /// Why.
        reason: ClearReason,
    },
    /// A workspace's git context changed.
    GitContextChanged {
        /// The workspace.
        workspace_id: WorkspaceId,
        /// The new context.
        git: GitContext,
    },
    /// A repository's worktrees changed.
    WorktreeChanged {
        /// Main checkout.
        repo_root: PathBuf,
    },
    /// The server is stopping.
    ServerShuttingDown {
        /// Why.
        reason: String,
    },
    /// A race or one of its entries changed (consumers read the race again).
    RaceChanged {
        /// The race.
        race_id: crate::ids::RaceId,
        /// The entry; 0 for the race as a whole.
        index: u32,
        /// What happened, for people.
        what: String,
    },
}

/// Event groups, for subscription filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// Workspace events.
    Workspace,
    /// Tab events.
    Tab,
    /// Pane events.
    Pane,
    /// Lifecycle changes.
    Lifecycle,
    /// Attention changes.
    Attention,
    /// Notifications.
    Notification,
    /// Decisions.
    Decision,
    /// Git and worktrees.
    Git,
    /// Server-wide.
    Server,
    /// Races.
    Race,
}

impl Event {
    /// The group this event belongs to.
    pub fn kind(&self) -> EventKind {
        match self {
            Event::WorkspaceCreated(_)
            | Event::WorkspaceUpdated(_)
            | Event::WorkspaceClosed { .. } => EventKind::Workspace,
            Event::TabCreated(_) | Event::TabUpdated(_) | Event::TabClosed { .. } => EventKind::Tab,
            Event::PaneCreated(_)
            | Event::PaneUpdated(_)
            | Event::PaneResized { .. }
            | Event::PaneExited { .. }
            | Event::PaneClosed { .. } => EventKind::Pane,
            Event::LifecycleChanged { .. } => EventKind::Lifecycle,
            Event::AttentionChanged { .. } => EventKind::Attention,
            Event::NotificationCreated { .. } => EventKind::Notification,
            Event::DecisionCreated(_)
            | Event::DecisionAnswered { .. }
            | Event::DecisionCleared { .. } => EventKind::Decision,
            Event::GitContextChanged { .. } | Event::WorktreeChanged { .. } => EventKind::Git,
            Event::ServerShuttingDown { .. } => EventKind::Server,
            Event::RaceChanged { .. } => EventKind::Race,
        }
    }
}

/// An event with its place in the stream.
#[derive(Clone, Debug)]
pub struct Stamped {
    /// Strictly increasing from 1.
    pub seq: u64,
    /// When it happened.
    pub at: SystemTime,
    /// What happened.
    pub event: Event,
}
