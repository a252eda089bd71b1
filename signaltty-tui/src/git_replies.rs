//! Git replies and feed events routed to the parts of the state they concern: the diff view and
//! the spawn form. Apart from [`crate::git`] (the requests and replies themselves, which the app
//! state carries) so that those types sit below the app and this routing above it.

use std::time::Instant;

use signaltty_proto::v1 as pb;

use crate::app::{App, Effect, Overlay, Request};
use crate::git::{GitReply, GitRequest};

/// A diff that disagrees with the workspace's dirty mark (changes shown, the mark clean, or the
/// reverse) asks the server to read the context again, so the mark follows what the view shows.
/// The refresh's `GitContextChanged` reloads the view once; the second diff then agrees.
fn stale_dirty_mark(app: &App, reply: &GitReply, fx: &mut Vec<Effect>) {
    let (
        GitReply::WorkspaceDiff {
            result: Ok(diff), ..
        },
        Some(Overlay::Diff(view)),
    ) = (reply, &app.overlay)
    else {
        return;
    };
    let Some(git) = app
        .catalog
        .workspace(&view.workspace_id)
        .and_then(|w| w.git.as_ref())
    else {
        return;
    };
    let changed = !diff.files.is_empty();
    if !git.dirty_unknown && git.dirty != changed {
        fx.push(Effect::Request(Request::Git(GitRequest::Refresh {
            workspace_id: view.workspace_id.clone(),
        })));
    }
}

/// Routes a git reply to the part of the state it answers.
pub fn on_reply(app: &mut App, reply: GitReply, now: Instant, fx: &mut Vec<Effect>) {
    match reply {
        GitReply::WorkspaceDiff { .. } | GitReply::FileDiff { .. } => {
            stale_dirty_mark(app, &reply, fx);
            if let Some(Overlay::Diff(view)) = &mut app.overlay {
                crate::diff::on_reply(view, reply, fx);
            }
        }
        GitReply::Worktrees { .. } => crate::spawn::on_worktrees(app, reply),
        GitReply::SpawnedInWorktree { .. } => crate::spawn::on_spawned(app, reply, now),
    }
}

/// Before a feed event is applied: the open diff view reloads when its workspace's git context
/// changed; the open spawn form lists the worktrees again when they changed.
pub fn on_event(app: &mut App, event: &pb::Event, fx: &mut Vec<Effect>) {
    crate::diff::on_event(app, event, fx);
    crate::spawn::on_event(app, event, fx);
}
