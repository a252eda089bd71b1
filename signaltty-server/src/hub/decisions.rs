//! Permission hooks waiting for an answer, and the answers themselves.
//!
//! A waiting `ReportHookEvent` registers a one-shot channel keyed by its decision id (inside the
//! same store section that publishes the decision, so an answer can never arrive before its
//! waiter exists). Whoever ends a decision — an answer, a newer decision, the agent moving on, the
//! pane exiting or closing, shutdown — takes the sender out of the map and sends the outcome;
//! the waiter itself ends it on timeout or when its RPC is dropped (the hook hung up). Because
//! every taker removes the entry under the map's lock and sends before releasing it (or while
//! holding the store lock), an outcome is delivered at most once and a decision is answerable
//! exactly while its waiter waits. Waits live in memory only.
//!
//! The concern's handle is `hub.decisions()`: it owns the waiters and needs the store (the
//! decisions are records) and the shutdown token (a shutdown ends every wait), nothing else.
//!
//! Lock order: the store lock, then the waiters' lock — never the reverse.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;

use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::model::decision::{
    ClearReason, DecisionError, PROMPT_MAX_CHARS, PendingDecision, Verdict,
};
use crate::model::ids::{DecisionId, PaneId, WorkspaceId};
use crate::model::notification::sanitize_text;
use crate::model::state::AnswerRefused;
use crate::store::Store;

/// How a wait ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitEnd {
    /// A client answered; the hook passes the verdict to its agent.
    Answered(Verdict),
    /// The decision ended without an answer: no verdict (the agent falls back to its prompt).
    Ended(ClearReason),
}

impl WaitEnd {
    /// The verdict, only for an answer.
    pub fn verdict(&self) -> Option<&Verdict> {
        match self {
            WaitEnd::Answered(v) => Some(v),
            WaitEnd::Ended(_) => None,
        }
    }

    /// Why the wait ended, as `ReportHookEventResponse.wait_end_reason` spells it.
    pub fn reason(&self) -> ClearReason {
        match self {
            WaitEnd::Answered(_) => ClearReason::Answered,
            WaitEnd::Ended(r) => *r,
        }
    }
}

#[derive(Debug)]
struct Waiter {
    pane_id: PaneId,
    tx: oneshot::Sender<WaitEnd>,
}

/// The hooks waiting right now, by decision id.
#[derive(Debug, Default)]
pub struct Waiters(Mutex<HashMap<DecisionId, Waiter>>);

impl Waiters {
    fn lock(&self) -> MutexGuard<'_, HashMap<DecisionId, Waiter>> {
        // Entries are inserted and removed whole; a poisoned map is still consistent.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers the waiter of a just-created decision.
    pub(super) fn register(
        &self,
        decision: &DecisionId,
        pane: &PaneId,
    ) -> oneshot::Receiver<WaitEnd> {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(
            decision.clone(),
            Waiter {
                pane_id: pane.clone(),
                tx,
            },
        );
        rx
    }

    /// Delivers `end` to the decision's waiter, if one still waits. Returns whether it did.
    pub(super) fn deliver(&self, decision: &DecisionId, end: WaitEnd) -> bool {
        let mut map = self.lock();
        // Send while holding the lock: a waiter that finds its entry gone then always finds the
        // outcome in its channel.
        map.remove(decision)
            .is_some_and(|waiter| waiter.tx.send(end).is_ok())
    }

    /// Ends every wait of the given panes (they were closed or exited).
    pub(super) fn end_panes(&self, panes: &[PaneId], reason: ClearReason) {
        let mut map = self.lock();
        let ids: Vec<DecisionId> = map
            .iter()
            .filter(|(_, w)| panes.contains(&w.pane_id))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            if let Some(w) = map.remove(&id) {
                let _ = w.tx.send(WaitEnd::Ended(reason));
            }
        }
    }

    /// Ends every wait (shutdown).
    pub(super) fn end_all(&self, reason: ClearReason) {
        for (_, w) in self.lock().drain() {
            let _ = w.tx.send(WaitEnd::Ended(reason));
        }
    }

    /// Removes the entry without sending; true when it was still there.
    fn withdraw(&self, decision: &DecisionId) -> bool {
        self.lock().remove(decision).is_some()
    }

    /// Number of hooks waiting (for tests and status).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when no hook waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Ends a wait exactly once, whichever way it ends — including the RPC future being dropped
/// because the hook disconnected, which [`Drop`] turns into `waiter_gone`.
struct WaitGuard {
    decisions: Decisions,
    decision: PendingDecision,
    rx: Option<oneshot::Receiver<WaitEnd>>,
}

impl WaitGuard {
    /// Settles the wait. `received` is the outcome someone delivered, if the waiter saw one;
    /// otherwise the wait ends with `reason` — unless an outcome was delivered meanwhile, which
    /// then wins. An outcome that is not an answer clears the decision if it is still current.
    /// Runs under the store lock, so it cannot interleave with an answer.
    fn finish(&mut self, received: Option<WaitEnd>, reason: ClearReason) -> WaitEnd {
        let rx = self.rx.take();
        let id = &self.decision.id;
        let pane = &self.decision.pane_id;
        let waiters = self.decisions.waiters();
        let settled = self.decisions.store().apply(|s, _| {
            let end = match received {
                Some(end) => end,
                None if waiters.withdraw(id) => WaitEnd::Ended(reason),
                None => rx
                    .and_then(|mut rx| rx.try_recv().ok())
                    .unwrap_or(WaitEnd::Ended(reason)),
            };
            let events = match &end {
                WaitEnd::Ended(r) => s.clear_decision(pane, id, *r)?.1,
                WaitEnd::Answered(_) => Vec::new(),
            };
            Ok((end, events))
        });
        settled.unwrap_or(WaitEnd::Ended(reason))
    }
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        if self.rx.is_some() {
            self.finish(None, ClearReason::WaiterGone);
        }
    }
}

/// The decisions concern's handle. Cheap to clone (a wait's guard keeps one).
#[derive(Clone, Debug)]
pub struct Decisions {
    store: Store,
    shutdown: CancellationToken,
    waiters: Arc<Waiters>,
}

impl Decisions {
    /// The handle over the store; `shutdown` ends every wait.
    pub(super) fn new(store: Store, shutdown: CancellationToken) -> Self {
        Decisions {
            store,
            shutdown,
            waiters: Arc::new(Waiters::default()),
        }
    }

    fn store(&self) -> &Store {
        &self.store
    }

    /// The hooks waiting right now.
    pub(super) fn waiters(&self) -> &Waiters {
        &self.waiters
    }

    /// Holds a hook until its decision is answered or ends otherwise (supersession, the agent
    /// moving on, pane exit, shutdown, `timeout`). Only an answer carries a verdict.
    pub(super) async fn wait_for_answer(
        &self,
        decision: PendingDecision,
        rx: oneshot::Receiver<WaitEnd>,
        timeout: Duration,
    ) -> WaitEnd {
        let mut guard = WaitGuard {
            decisions: self.clone(),
            decision,
            rx: Some(rx),
        };
        let shutdown = self.shutdown.clone();
        let (received, reason) = {
            let rx = guard
                .rx
                .as_mut()
                .expect("the receiver is only taken by finish");
            tokio::select! {
                // A sender never drops without sending (only a bug could make it): treat as gone.
                r = rx => (r.ok(), ClearReason::WaiterGone),
                () = tokio::time::sleep(timeout) => (None, ClearReason::Timeout),
                () = shutdown.cancelled() => (None, ClearReason::Shutdown),
            }
        };
        guard.finish(received, reason)
    }

    /// Answers a pending decision. Checks, in order: the pane exists (`NO_SUCH_PANE`); the
    /// decision is the pane's current one (`NO_SUCH_DECISION`); the option is offered
    /// (`BAD_PARAMS`); a hook still waits for it (`NO_SUCH_DECISION`). The verdict is delivered
    /// and the decision consumed in one store section, so it is consumed exactly once. `message`
    /// replaces the default deny message when given.
    pub fn answer_decision(
        &self,
        pane: &PaneId,
        decision: &DecisionId,
        option_id: &str,
        message: &str,
    ) -> Result<Verdict> {
        let message = sanitize_text(message, PROMPT_MAX_CHARS);
        self.store().apply_with(|s, now| {
            let verdict = match s.check_answer(pane, decision, option_id) {
                Ok(Verdict::Deny { .. }) if !message.is_empty() => Verdict::Deny {
                    message: message.clone(),
                },
                Ok(v) => v,
                Err(AnswerRefused::Pane(e)) => return Err(e.into()),
                Err(AnswerRefused::Decision(DecisionError::UnknownOption(o))) => {
                    return Err(Error::bad(format!(
                        "option {} is not offered by decision {decision}; use one of its option ids (once, deny)",
                        crate::error::quote(&o)
                    )));
                }
                Err(AnswerRefused::Decision(_)) => {
                    return Err(Error::NoSuchDecision(decision.clone()));
                }
            };
            if !self
                .waiters()
                .deliver(decision, WaitEnd::Answered(verdict.clone()))
            {
                // The hook hung up a moment ago; its guard clears the decision (or already did).
                return Err(Error::NoSuchDecision(decision.clone()));
            }
            let (_, events) = s.commit_answer(pane, decision, option_id, now)?;
            Ok((verdict, events))
        })
    }

    /// Pending decisions, oldest first (optionally one workspace's).
    pub fn pending_decisions(&self, ws: Option<&WorkspaceId>) -> Result<Vec<PendingDecision>> {
        self.store().read(|s| {
            if let Some(ws) = ws {
                s.workspace(ws)?;
            }
            Ok(s.pending_decisions(ws).into_iter().cloned().collect())
        })
    }
}
