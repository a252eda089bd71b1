//! The start-up screens of an agent pane, read until the agent's hooks speak (`agents::screen_signs`
//! says why and which). One task per pane started as an agent: every [`LOOK_EVERY`] it reads
//! the visible text and, when it shows a known dialog, makes the pane `blocked` /
//! `input_required` with the dialog as its message; when the dialog goes without a hook having
//! spoken, the pane goes back to `unknown`. The task ends as soon as anything else moves the
//! pane's lifecycle (a hook), when the pane exits, and [`WATCH_FOR`] after the start unless a
//! dialog is showing then: a pane whose agent never reports costs nothing after that.

use std::time::{Duration, Instant, SystemTime};

use crate::agents::AgentKind;
use crate::agents::mapping::HookEffect;
use crate::agents::screen_signs::{self, ScreenSign};
use crate::model::ids::{DecisionId, PaneId};
use crate::model::lifecycle::{Attention, Lifecycle};

use super::Hub;
use super::decisions::WaitEnd;

/// How often the screen is read.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// How often the screen is read for Claude's permission dialog until it has shown: a quick
/// "1" can take the dialog away within a fraction of [`LOOK_EVERY`], and a dialog never seen
/// cannot be known as answered. Only the screen's output offset is read when nothing changed.
const DIALOG_LOOK_EVERY: Duration = Duration::from_millis(10);

/// How long the dialog is looked for that often; later it is looked for every [`LOOK_EVERY`].
const DIALOG_LOOK_FAST_FOR: Duration = Duration::from_secs(10);

/// How long after the start a pane is watched when no dialog shows.
const WATCH_FOR: Duration = Duration::from_secs(120);

impl Hub {
    /// Watches the start-up screens of `pane`, just started as `kind`.
    pub(super) fn watch_start_screen(&self, pane: &PaneId, kind: AgentKind) {
        if !screen_signs::watched(kind) {
            return;
        }
        let hub = self.clone();
        let pane = pane.clone();
        tokio::spawn(async move { hub.screen_task(pane, kind).await });
    }

    async fn screen_task(self, pane: PaneId, kind: AgentKind) {
        let started = Instant::now();
        // What this watch shows now, and when it set the lifecycle: a lifecycle changed at any
        // other time was changed by a hook, which knows better.
        let mut shown: Option<ScreenSign> = None;
        let mut set_at: Option<SystemTime> = None;
        loop {
            tokio::time::sleep(LOOK_EVERY).await;
            let Some((lifecycle, since)) = self.store().read(|s| {
                s.pane(&pane)
                    .ok()
                    .filter(|p| p.status.is_live())
                    .map(|p| (p.state.lifecycle(), p.state.lifecycle_since()))
            }) else {
                return;
            };
            let untouched = match set_at {
                None => lifecycle == Lifecycle::Unknown,
                Some(at) => at == since,
            };
            let dialog = shown.is_some_and(|s| s.lifecycle == Lifecycle::Blocked);
            if !untouched {
                if let Some(sign) = shown.filter(|_| dialog) {
                    self.drop_sign(&pane, kind, sign);
                }
                return;
            }
            if !dialog && started.elapsed() > WATCH_FOR {
                return;
            }
            let Ok(handle) = self.panes().handle(&pane) else {
                return;
            };
            let sign =
                handle.with_screen(|screen, _| screen_signs::read(kind, &screen.contents(false)));
            // A ready composer stays ready when its placeholder goes (the user types over it).
            let kept_ready =
                sign.is_none() && shown.is_some_and(|s| s.lifecycle == Lifecycle::Idle);
            if sign == shown || kept_ready {
                continue;
            }
            let effect = match sign {
                Some(sign) => {
                    let mut effect = HookEffect::state(sign.lifecycle, Some(sign.attention));
                    effect.message = Some(sign.message.to_owned());
                    effect
                }
                None => {
                    let mut effect = HookEffect::state(Lifecycle::Unknown, Some(Attention::None));
                    effect.message = Some(String::new());
                    effect
                }
            };
            let applied = self.store().apply(|s, now| {
                let (_, events) = s.apply_hook_event(&pane, kind, &effect, false, now)?;
                let since = s.pane(&pane)?.state.lifecycle_since();
                Ok((since, events))
            });
            match applied {
                Ok(since) => {
                    shown = sign;
                    set_at = Some(since);
                }
                Err(_) => return,
            }
        }
    }

    /// A hook moved the pane while a dialog's sign showed (Claude's SessionStart once the
    /// folder is trusted): the attention and message the dialog raised go with it, unless
    /// something else has replaced them meanwhile.
    fn drop_sign(&self, pane: &PaneId, kind: AgentKind, sign: ScreenSign) {
        let _ = self.store().apply(|s, now| {
            let p = s.pane(pane)?;
            if p.last_message != sign.message || p.state.attention() != sign.attention {
                return Ok(((), Vec::new()));
            }
            let effect = HookEffect {
                attention: Some(Attention::None),
                message: Some(String::new()),
                ..HookEffect::default()
            };
            let (_, events) = s.apply_hook_event(pane, kind, &effect, false, now)?;
            Ok(((), events))
        });
    }

    /// Watches Claude's own permission dialog for `decision` of `pane`: once the dialog has
    /// shown and then is gone (two looks in a row, so a redraw does not count), the user
    /// answered it in Claude, which tells no hook: the decision ends `agent_moved_on` and a
    /// still-blocked pane is working again, without the ask as its message. "No" and Esc are
    /// read from the transcript (`transcript_watch`), which then makes the pane idle.
    pub(super) fn watch_permission_dialog(
        &self,
        pane: &PaneId,
        kind: AgentKind,
        decision: DecisionId,
    ) {
        if !screen_signs::shows_permission_dialog(kind) {
            return;
        }
        let hub = self.clone();
        let pane = pane.clone();
        tokio::spawn(async move { hub.dialog_task(pane, kind, decision).await });
    }

    async fn dialog_task(self, pane: PaneId, kind: AgentKind, decision: DecisionId) {
        let mut seen = false;
        let mut gone_looks = 0;
        let fast_until = Instant::now() + DIALOG_LOOK_FAST_FOR;
        let mut last_offset = None;
        loop {
            let fast = !seen && Instant::now() < fast_until;
            tokio::time::sleep(if fast { DIALOG_LOOK_EVERY } else { LOOK_EVERY }).await;
            let current = self.store().read(|s| {
                s.pane(&pane)
                    .ok()
                    .filter(|p| p.status.is_live())
                    .is_some_and(|p| {
                        p.pending_decision
                            .as_ref()
                            .is_some_and(|d| d.id == decision)
                    })
            });
            let Ok(handle) = self.panes().handle(&pane) else {
                return;
            };
            if !current {
                return;
            }
            let offset = handle.with_screen(|_, offset| offset);
            if fast && last_offset == Some(offset) {
                continue;
            }
            last_offset = Some(offset);
            let showing = handle.with_screen(|screen, _| {
                screen_signs::permission_dialog(kind, &screen.contents(false))
            });
            if showing {
                seen = true;
                gone_looks = 0;
                continue;
            }
            gone_looks += 1;
            if seen && gone_looks >= 2 {
                self.answered_in_agent(&pane, kind);
                return;
            }
        }
    }

    fn answered_in_agent(&self, pane: &PaneId, kind: AgentKind) {
        let mut effect = HookEffect::state(Lifecycle::Working, Some(Attention::None));
        effect.clears_decision = true;
        effect.only_if = Some(Lifecycle::Blocked);
        let _ = self.store().apply(|s, now| {
            let (applied, events) = s.apply_hook_event(pane, kind, &effect, false, now)?;
            for (id, reason) in &applied.cleared {
                self.decisions()
                    .waiters()
                    .deliver(id, WaitEnd::Ended(*reason));
            }
            Ok(((), events))
        });
    }
}
