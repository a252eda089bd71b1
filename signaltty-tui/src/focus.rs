//! Where the user is looking: the pane shown focused. A pane becoming focused (or typed into)
//! is marked seen by the rule in [`seen_clears`], and programs that asked for focus reports
//! (`?1004`) hear `CSI I` / `CSI O` when the focus moves between panes or the outer terminal
//! gains or loses it.

use signaltty_proto::v1 as pb;

use crate::app::{App, Effect, Link, Request};

/// Whether showing `pane` to the user should mark it seen: it has something unread (attention
/// `unread`, `warning` or `error`, or unread notifications). A pane waiting for typed input is
/// not: looking at the question is not answering it, and the agent clears that attention
/// itself when it moves on; a pending permission keeps its attention on the server until it is
/// answered anyway (MarkSeen only reads its notifications).
pub fn seen_clears(app: &App, pane: &pb::Pane) -> bool {
    use pb::Attention as A;
    let attention = A::try_from(pane.attention).unwrap_or(A::Unspecified);
    if attention == A::InputRequired {
        return false;
    }
    matches!(attention, A::Unread | A::Warning | A::Error)
        || app.catalog.unread.iter().any(|n| n.pane_id == pane.id)
}

/// Focus is seen: when the pane shown focused changes (a click, a key, NextAttention, a tab
/// switch, the start), the newly focused pane is marked seen if [`seen_clears`] says so. Only
/// on the change: attention raised later on a pane that stays focused stays until the user
/// types into it, refocuses it or presses MarkSeen — they may not be looking at the screen.
/// Programs that asked for focus reports (`?1004`) hear `CSI O` / `CSI I` on the change too.
pub fn look(app: &mut App) -> Vec<Effect> {
    let mut fx = Vec::new();
    if app.link != Link::Live {
        return fx;
    }
    let Some(pane) = app.focused_pane() else {
        return fx;
    };
    if app.looked_at.as_deref() == Some(pane.id.as_str()) {
        return fx;
    }
    let new = pane.id.clone();
    if seen_clears(app, pane) {
        fx.push(Effect::Request(Request::MarkSeen(new.clone())));
    }
    let old = app.looked_at.replace(new.clone());
    let wants_focus = |id: &str| {
        app.screens
            .get(id)
            .is_some_and(|s| s.view().modes().focus_events)
    };
    for (id, report) in [(old, b"\x1b[O"), (Some(new), b"\x1b[I")] {
        if let Some(id) = id.filter(|id| wants_focus(id)) {
            fx.push(Effect::Input {
                pane_id: id,
                bytes: report.to_vec(),
            });
        }
    }
    fx
}

/// The outer terminal gained (`true`) or lost the focus: the focused pane's program hears it
/// if it asked for focus reports.
pub fn outer(app: &App, gained: bool) -> Option<Effect> {
    let pane = app.focused_pane()?;
    let wants = app
        .screens
        .get(&pane.id)
        .is_some_and(|s| s.view().modes().focus_events);
    wants.then(|| Effect::Input {
        pane_id: pane.id.clone(),
        bytes: if gained { b"\x1b[I" } else { b"\x1b[O" }.to_vec(),
    })
}
