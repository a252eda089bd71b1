//! What a pane's own output and exit say about it: OSC 9/99/777 notifications and bells from the
//! pane actor's terminal scan, the child's exit, and the explicit "the user looked" (MarkSeen and
//! attaching with `mark_seen`). The rules themselves live in `State` (`model/state/awareness.rs`);
//! this module feeds them and wakes the hook waiting on a decision the exit cleared.

use crate::error::Result;
use crate::model::decision::ClearReason;
use crate::model::event::ChangeSource;
use crate::model::ids::PaneId;
use crate::model::notification::{Notification, NotificationSource, Severity};
use crate::model::pane::Pane;
use crate::term::TermEvent;

use super::Hub;
use super::decisions::WaitEnd;

impl Hub {
    /// Bells and notifications from a pane's output. An OSC notification is stored (info
    /// severity: it raises `unread`) and becomes the pane's last message; a bell raises `unread`.
    pub(super) fn on_term_event(&self, id: &PaneId, event: TermEvent) -> Result<()> {
        match event {
            TermEvent::Notify { title, body } => {
                // The scanner does not say which OSC it was; both forms travel as "OSC" on the
                // wire. A title only comes with OSC 777 (or kitty's 99).
                let source = if title.is_some() {
                    NotificationSource::Osc777
                } else {
                    NotificationSource::Osc9
                };
                let n = Notification::new(
                    Some(id.clone()),
                    title.as_deref().unwrap_or_default(),
                    &body,
                    Severity::Info,
                    source,
                    std::time::SystemTime::now(),
                );
                match n {
                    Ok(n) => self
                        .store()
                        .apply(|s, now| s.notify(n, ChangeSource::Osc, now))
                        .map(|_| ()),
                    // The scanner already sanitized; nothing left means nothing to say.
                    Err(_) => Ok(()),
                }
            }
            TermEvent::Bell => self.store().apply(|s, now| s.ring_bell(id, now)),
            TermEvent::Title(_) => Ok(()),
            TermEvent::Cwd(cwd) => {
                // Only a hint (the shell may be on another host): it triggers a re-read.
                self.git().poke(super::git_watch::Poke::Cwd {
                    pane: id.clone(),
                    cwd,
                });
                Ok(())
            }
        }
    }

    /// The child exited: tombstone, exit rules, and the decision (if any) cleared as
    /// `pane_exited`, waking its hook with no verdict.
    pub(super) fn on_exit(&self, id: &PaneId, code: i32) -> Result<()> {
        // A hibernated agent's exit is the hibernation itself (hub/hibernate.rs), and the exit of
        // a process already replaced by a woken one is no longer this pane's.
        let replaced = self
            .panes()
            .registry()
            .lock()
            .get(id)
            .is_some_and(|h| h.exit_code().is_none());
        if replaced || self.is_hibernated(id) {
            return Ok(());
        }
        self.store().apply(|s, now| {
            let (cleared, events) = s.pane_exited(id, code, now)?;
            if let Some(d) = cleared {
                self.decisions()
                    .waiters()
                    .deliver(&d.id, WaitEnd::Ended(ClearReason::PaneExited));
            }
            Ok(((), events))
        })
    }

    /// Clears a pane's attention (a pending decision keeps `permission_required`) and marks its
    /// notifications read. `source` is `api` for MarkSeen, `client` for an attach.
    pub fn mark_seen(&self, id: &PaneId, source: ChangeSource) -> Result<Pane> {
        self.store().apply(|s, now| s.mark_seen(id, source, now))
    }
}
