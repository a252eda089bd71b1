//! Pending decisions: a question an agent is blocked on (today, a permission request) that any
//! client may answer.
//!
//! Invariants: a decision has a non-empty prompt and at least one option; option ids are non-empty
//! and unique; texts are sanitized and capped. A pane holds at most one (the store keeps an
//! `Option<PendingDecision>` and a new one supersedes the old). An answer consumes the decision
//! exactly once ([`answer`]); only the option `once` ever yields [`Verdict::Allow`].

use std::collections::HashSet;
use std::fmt;
use std::time::SystemTime;

use crate::ids::{DecisionId, PaneId};
use crate::notification::sanitize_text;
use crate::session_id::SessionId;

/// Longest stored prompt, in characters.
pub const PROMPT_MAX_CHARS: usize = 2000;
/// Longest option label, in characters.
pub const LABEL_MAX_CHARS: usize = 200;
/// Longest option id, in bytes (ids are ASCII).
pub const OPTION_ID_MAX_LEN: usize = 64;
/// Most options one decision may offer.
pub const MAX_OPTIONS: usize = 16;
/// The option id that allows the tool call once.
pub const OPTION_ONCE: &str = "once";
/// The option id that denies it.
pub const OPTION_DENY: &str = "deny";
/// The message a deny verdict carries back to the agent.
pub const DENY_MESSAGE: &str = "Denied in signaltty";

/// Errors of the decision model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecisionError {
    /// The prompt is empty once sanitized.
    #[error("a decision needs a non-empty prompt")]
    EmptyPrompt,
    /// No options, or more than [`MAX_OPTIONS`].
    #[error("a decision needs between 1 and {MAX_OPTIONS} options, got {0}")]
    OptionCount(usize),
    /// An option id is empty, too long or not `[A-Za-z0-9_.-]`.
    #[error("bad option id {0:?} (1-{OPTION_ID_MAX_LEN} characters of A-Z a-z 0-9 _ . -)")]
    BadOptionId(String),
    /// An option label is empty once sanitized.
    #[error("option {0:?} needs a label")]
    EmptyLabel(String),
    /// Two options share an id.
    #[error("option id {0:?} appears twice")]
    DuplicateOption(String),
    /// No pending decision with this id (never existed, already answered, or cleared).
    #[error("no pending decision {0}")]
    NotFound(DecisionId),
    /// The decision has no live waiter to deliver an answer to.
    #[error("decision {0} cannot be answered here any more; answer it in the agent")]
    NotAnswerable(DecisionId),
    /// The option is not one the decision offers (or not one a verdict can be made from).
    #[error("option {0:?} is not offered by this decision")]
    UnknownOption(String),
}

/// One answer a decision offers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DecisionOption {
    /// Stable id the client sends back.
    pub id: String,
    /// What the user sees.
    pub label: String,
}

impl DecisionOption {
    /// Convenience constructor (validated when the decision is built).
    pub fn new(id: impl Into<String>, label: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            label: label.into(),
        }
    }
}

/// A question an agent is blocked on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PendingDecision {
    /// Its id.
    pub id: DecisionId,
    /// The pane whose agent asked.
    pub pane_id: PaneId,
    /// Sanitized question text.
    pub prompt: String,
    /// The answers offered, unique ids.
    pub options: Vec<DecisionOption>,
    /// Whether an answer can be delivered (a hook is waiting). Fixed at creation; the store clears
    /// the decision when the waiter goes away.
    pub answerable: bool,
    /// When it arrived.
    pub received_at: SystemTime,
    /// The tool the agent wants to run, for permission requests.
    pub tool_name: Option<String>,
    /// The agent's id of that tool call, when its hook gave one: a later hook about the same
    /// call (or another one) tells whether the request was settled.
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// The agent session that asked: only a later event of the same session settles it.
    #[serde(default)]
    pub session: Option<SessionId>,
    /// The sub-agent that asked (Claude Code's `agent_id`); `None` for the main session. A tool
    /// event of another agent of the same session does not settle it.
    #[serde(default)]
    pub sub_agent: Option<String>,
}

impl PendingDecision {
    /// Builds and validates an explicit decision.
    pub fn new(
        pane_id: PaneId,
        prompt: &str,
        options: Vec<DecisionOption>,
        answerable: bool,
        now: SystemTime,
    ) -> Result<Self, DecisionError> {
        let prompt = sanitize_text(prompt, PROMPT_MAX_CHARS);
        if prompt.is_empty() {
            return Err(DecisionError::EmptyPrompt);
        }
        if options.is_empty() || options.len() > MAX_OPTIONS {
            return Err(DecisionError::OptionCount(options.len()));
        }
        let mut seen = HashSet::new();
        let mut clean = Vec::with_capacity(options.len());
        for opt in options {
            let id_ok = !opt.id.is_empty()
                && opt.id.len() <= OPTION_ID_MAX_LEN
                && opt
                    .id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
            if !id_ok {
                return Err(DecisionError::BadOptionId(opt.id));
            }
            let label = sanitize_text(&opt.label, LABEL_MAX_CHARS);
            if label.is_empty() {
                return Err(DecisionError::EmptyLabel(opt.id));
            }
            if !seen.insert(opt.id.clone()) {
                return Err(DecisionError::DuplicateOption(opt.id));
            }
            clean.push(DecisionOption { id: opt.id, label });
        }
        Ok(Self {
            id: DecisionId::new(),
            pane_id,
            prompt,
            options: clean,
            answerable,
            received_at: now,
            tool_name: None,
            tool_use_id: None,
            sub_agent: None,
            session: None,
        })
    }

    /// The decision generated for a claude/codex `PermissionRequest`: "Allow <tool>?" with the
    /// options `once` ("Allow once") and `deny` ("Deny"). `detail` (e.g. the command) is appended
    /// on a second line when given. `answerable` is whether a hook is waiting for the verdict.
    pub fn permission_request(
        pane_id: PaneId,
        tool_name: &str,
        detail: Option<&str>,
        answerable: bool,
        now: SystemTime,
    ) -> Self {
        let tool = sanitize_text(tool_name, LABEL_MAX_CHARS);
        let tool = if tool.is_empty() {
            "this tool".to_owned()
        } else {
            tool
        };
        let mut prompt = format!("Allow {tool}?");
        if let Some(detail) = detail
            .map(|d| sanitize_text(d, PROMPT_MAX_CHARS))
            .filter(|d| !d.is_empty())
        {
            prompt.push('\n');
            prompt.push_str(&detail);
        }
        let prompt: String = prompt.chars().take(PROMPT_MAX_CHARS).collect();
        Self {
            id: DecisionId::new(),
            pane_id,
            prompt,
            options: vec![
                DecisionOption::new(OPTION_ONCE, "Allow once"),
                DecisionOption::new(OPTION_DENY, "Deny"),
            ],
            answerable,
            received_at: now,
            tool_name: Some(tool),
            tool_use_id: None,
            sub_agent: None,
            session: None,
        }
    }

    /// The option with this id, if offered.
    pub fn option(&self, option_id: &str) -> Option<&DecisionOption> {
        self.options.iter().find(|o| o.id == option_id)
    }

    /// The option's 1-based position, for agents answered by typing a number.
    pub fn option_position(&self, option_id: &str) -> Option<usize> {
        self.options
            .iter()
            .position(|o| o.id == option_id)
            .map(|i| i + 1)
    }
}

/// What a waiting permission hook is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Run the tool.
    Allow,
    /// Do not; `message` goes back to the agent.
    Deny {
        /// Shown to the agent/user by the agent.
        message: String,
    },
}

impl Verdict {
    /// The verdict for an answered option: only `once` allows, `deny` denies, anything else is
    /// refused (there is no "always": signaltty stores no policy).
    pub fn from_option_id(option_id: &str) -> Result<Self, DecisionError> {
        match option_id {
            OPTION_ONCE => Ok(Verdict::Allow),
            OPTION_DENY => Ok(Verdict::Deny {
                message: DENY_MESSAGE.to_owned(),
            }),
            other => Err(DecisionError::UnknownOption(other.to_owned())),
        }
    }

    /// True for [`Verdict::Allow`].
    pub fn allows(&self) -> bool {
        matches!(self, Verdict::Allow)
    }
}

/// Consumes the pane's pending decision with an answer, checking in order: a decision exists and
/// has this id (`NotFound`), the option is offered and maps to a verdict (`UnknownOption`, the
/// decision stays pending), the decision is answerable (`NotAnswerable`, the decision stays
/// pending so the store can clear it with its own reason). On success the slot is emptied, so a
/// second answer finds nothing.
pub fn answer(
    slot: &mut Option<PendingDecision>,
    decision_id: &DecisionId,
    option_id: &str,
) -> Result<(PendingDecision, Verdict), DecisionError> {
    let pending = match slot {
        Some(d) if &d.id == decision_id => d,
        _ => return Err(DecisionError::NotFound(decision_id.clone())),
    };
    if pending.option(option_id).is_none() {
        return Err(DecisionError::UnknownOption(option_id.to_owned()));
    }
    let verdict = Verdict::from_option_id(option_id)?;
    if !pending.answerable {
        return Err(DecisionError::NotAnswerable(pending.id.clone()));
    }
    let taken = slot
        .take()
        .expect("slot was checked to hold the decision just above");
    Ok((taken, verdict))
}

/// Why a pending decision ended without (or with) an answer; carried on decision-cleared events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClearReason {
    /// A client answered it.
    Answered,
    /// A newer decision replaced it.
    Superseded,
    /// The pane's process exited.
    PaneExited,
    /// The agent went on without it (a hook moved the pane out of blocked, or cleared attention).
    AgentMovedOn,
    /// The waiting hook's deadline passed.
    Timeout,
    /// The waiting hook went away (disconnect).
    WaiterGone,
    /// The server is shutting down.
    Shutdown,
}

impl ClearReason {
    /// Every value.
    pub const ALL: [ClearReason; 7] = [
        ClearReason::Answered,
        ClearReason::Superseded,
        ClearReason::PaneExited,
        ClearReason::AgentMovedOn,
        ClearReason::Timeout,
        ClearReason::WaiterGone,
        ClearReason::Shutdown,
    ];

    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ClearReason::Answered => "answered",
            ClearReason::Superseded => "superseded",
            ClearReason::PaneExited => "pane_exited",
            ClearReason::AgentMovedOn => "agent_moved_on",
            ClearReason::Timeout => "timeout",
            ClearReason::WaiterGone => "waiter_gone",
            ClearReason::Shutdown => "shutdown",
        }
    }

    /// Parses a snake_case name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

impl fmt::Display for ClearReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> SystemTime {
        SystemTime::UNIX_EPOCH
    }

    #[test]
    fn permission_request_has_once_and_deny() {
        let d = PendingDecision::permission_request(
            PaneId::new(),
            "Bash",
            Some("rm -rf build"),
            true,
            now(),
        );
        assert_eq!(d.prompt, "Allow Bash?\nrm -rf build");
        let ids: Vec<_> = d.options.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["once", "deny"]);
        assert_eq!(
            d.option("once").map(|o| o.label.as_str()),
            Some("Allow once")
        );
        assert_eq!(d.option_position("deny"), Some(2));
        assert_eq!(d.tool_name.as_deref(), Some("Bash"));
        assert!(d.id.as_str().starts_with("dec_"));
    }

    #[test]
    fn explicit_decisions_are_validated() {
        let p = PaneId::new();
        let ok = vec![DecisionOption::new("a", "A"), DecisionOption::new("b", "B")];
        assert!(PendingDecision::new(p.clone(), "Pick", ok, false, now()).is_ok());
        let dup = vec![
            DecisionOption::new("a", "A"),
            DecisionOption::new("a", "again"),
        ];
        assert_eq!(
            PendingDecision::new(p.clone(), "Pick", dup, false, now()),
            Err(DecisionError::DuplicateOption("a".into()))
        );
        assert_eq!(
            PendingDecision::new(
                p.clone(),
                " \u{1b}[0m",
                vec![DecisionOption::new("a", "A")],
                false,
                now()
            ),
            Err(DecisionError::EmptyPrompt)
        );
        assert_eq!(
            PendingDecision::new(p.clone(), "Pick", vec![], false, now()),
            Err(DecisionError::OptionCount(0))
        );
        assert_eq!(
            PendingDecision::new(
                p.clone(),
                "Pick",
                vec![DecisionOption::new("", "A")],
                false,
                now()
            ),
            Err(DecisionError::BadOptionId(String::new()))
        );
        assert_eq!(
            PendingDecision::new(
                p,
                "Pick",
                vec![DecisionOption::new("a", "\u{7}")],
                false,
                now()
            ),
            Err(DecisionError::EmptyLabel("a".into()))
        );
    }

    #[test]
    fn only_once_allows() {
        assert_eq!(Verdict::from_option_id("once"), Ok(Verdict::Allow));
        assert_eq!(
            Verdict::from_option_id("deny"),
            Ok(Verdict::Deny {
                message: DENY_MESSAGE.into()
            })
        );
        assert!(Verdict::from_option_id("always").is_err());
        assert!(
            !Verdict::from_option_id("deny")
                .expect("deny is known")
                .allows()
        );
    }

    #[test]
    fn an_answer_is_consumed_once() {
        let d = PendingDecision::permission_request(PaneId::new(), "Edit", None, true, now());
        let id = d.id.clone();
        let mut slot = Some(d);
        assert_eq!(
            answer(&mut slot, &id, "always"),
            Err(DecisionError::UnknownOption("always".into()))
        );
        assert!(slot.is_some(), "a bad option leaves the decision pending");
        let stale = DecisionId::new();
        assert_eq!(
            answer(&mut slot, &stale, "once").map(|_| ()),
            Err(DecisionError::NotFound(stale))
        );
        let (taken, verdict) = answer(&mut slot, &id, "once").expect("first answer");
        assert_eq!(taken.id, id);
        assert!(verdict.allows());
        assert!(slot.is_none());
        assert_eq!(
            answer(&mut slot, &id, "once").map(|_| ()),
            Err(DecisionError::NotFound(id))
        );
    }

    #[test]
    fn unanswerable_decisions_stay_pending() {
        let d = PendingDecision::permission_request(PaneId::new(), "Edit", None, false, now());
        let id = d.id.clone();
        let mut slot = Some(d);
        assert_eq!(
            answer(&mut slot, &id, "deny").map(|_| ()),
            Err(DecisionError::NotAnswerable(id))
        );
        assert!(slot.is_some());
    }

    #[test]
    fn clear_reasons_have_stable_names() {
        for r in ClearReason::ALL {
            assert_eq!(ClearReason::parse(r.as_str()), Some(r));
            assert_eq!(
                serde_json::to_string(&r).expect("serialize"),
                format!("\"{r}\"")
            );
        }
        assert_eq!(ClearReason::AgentMovedOn.as_str(), "agent_moved_on");
    }
}
