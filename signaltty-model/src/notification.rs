//! Notifications: what an agent, a terminal sequence or the API told the user, kept in a bounded
//! store, plus the ranking that picks the pane which most needs the user (`NextUnread`).
//!
//! Invariants: every stored title and body went through [`sanitize_text`] (no escape sequences, no
//! control characters other than `\n`/`\t`, title ≤ 200 chars, body ≤ 2000); the store never holds
//! more than its capacity (200 by default) and drops the oldest first.

use std::collections::VecDeque;
use std::fmt;
use std::time::SystemTime;

use crate::ids::{NotificationId, PaneId};
use crate::lifecycle::Attention;

/// Longest stored title, in characters.
pub const TITLE_MAX_CHARS: usize = 200;
/// Longest stored body, in characters.
pub const BODY_MAX_CHARS: usize = 2000;
/// Longest `last_message` summary body, in characters (an ellipsis marks a cut).
pub const SUMMARY_MAX_CHARS: usize = 300;
/// Title given to a notification that arrived without one (OSC 9 has none).
pub const DEFAULT_TITLE: &str = "signaltty";

/// Errors of the notification model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotificationError {
    /// Title and body are both empty once sanitized.
    #[error("a notification needs a title or a body")]
    Empty,
    /// No stored notification has this id (it may have been dropped as the oldest).
    #[error("no notification {0}")]
    NotFound(NotificationId),
    /// Not a severity name.
    #[error("unknown severity {0:?} (expected info, warning or error)")]
    UnknownSeverity(String),
}

/// How serious a notification is; decides the attention it raises.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Plain information (every OSC notification).
    #[default]
    Info,
    /// Something the user should look at.
    Warning,
    /// Something failed.
    Error,
}

impl Severity {
    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Parses `info`, `warning` or `error`.
    pub fn parse(s: &str) -> Result<Self, NotificationError> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            other => Err(NotificationError::UnknownSeverity(other.to_owned())),
        }
    }

    /// The attention a notification of this severity raises: info → unread, warning → warning,
    /// error → error.
    pub fn attention(self) -> Attention {
        match self {
            Severity::Info => Attention::Unread,
            Severity::Warning => Attention::Warning,
            Severity::Error => Attention::Error,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a notification came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotificationSource {
    /// `ESC ] 9 ; body`.
    Osc9,
    /// The kitty form, `ESC ] 99 ; …`.
    Osc99,
    /// `ESC ] 777 ; notify ; title ; body`.
    Osc777,
    /// The `Notify` RPC or the CLI.
    Api,
    /// An agent hook.
    Hook,
    /// A terminal bell, for clients that list bells.
    Bell,
    /// The pane's process exited.
    Exit,
}

impl NotificationSource {
    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationSource::Osc9 => "osc9",
            NotificationSource::Osc99 => "osc99",
            NotificationSource::Osc777 => "osc777",
            NotificationSource::Api => "api",
            NotificationSource::Hook => "hook",
            NotificationSource::Bell => "bell",
            NotificationSource::Exit => "exit",
        }
    }
}

/// One stored notification.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Notification {
    /// Its id.
    pub id: NotificationId,
    /// The pane it concerns, if any.
    pub pane_id: Option<PaneId>,
    /// Sanitized title (never empty: [`DEFAULT_TITLE`] when none was given).
    pub title: String,
    /// Sanitized body (may be empty).
    pub body: String,
    /// Its severity.
    pub severity: Severity,
    /// Where it came from.
    pub source: NotificationSource,
    /// When it was stored.
    pub created_at: SystemTime,
    /// Whether the user has read it.
    pub read: bool,
}

impl Notification {
    /// Builds an unread notification, sanitizing and capping title and body.
    pub fn new(
        pane_id: Option<PaneId>,
        title: &str,
        body: &str,
        severity: Severity,
        source: NotificationSource,
        now: SystemTime,
    ) -> Result<Self, NotificationError> {
        let title = sanitize_text(title, TITLE_MAX_CHARS);
        let body = sanitize_text(body, BODY_MAX_CHARS);
        if title.is_empty() && body.is_empty() {
            return Err(NotificationError::Empty);
        }
        Ok(Self {
            id: NotificationId::new(),
            pane_id,
            title: if title.is_empty() {
                DEFAULT_TITLE.to_owned()
            } else {
                title
            },
            body,
            severity,
            source,
            created_at: now,
            read: false,
        })
    }

    /// The pane's `last_message` line: `title: body`, the body cut to [`SUMMARY_MAX_CHARS`] with
    /// an ellipsis; just the title when there is no body.
    pub fn summary(&self) -> String {
        if self.body.is_empty() {
            return self.title.clone();
        }
        format!(
            "{}: {}",
            self.title,
            truncate_chars(&self.body, SUMMARY_MAX_CHARS)
        )
    }
}

/// Which notifications a listing returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReadFilter {
    /// Read and unread.
    #[default]
    All,
    /// Unread only.
    Unread,
}

/// A bounded store of notifications, oldest first internally.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Notifications {
    items: VecDeque<Notification>,
    capacity: usize,
}

impl Default for Notifications {
    fn default() -> Self {
        Self::new()
    }
}

impl Notifications {
    /// How many notifications the default store keeps.
    pub const CAPACITY: usize = 200;

    /// An empty store keeping [`Self::CAPACITY`] notifications.
    pub fn new() -> Self {
        Self::with_capacity(Self::CAPACITY)
    }

    /// An empty store keeping at most `capacity` (at least one) notifications.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            items: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// Restores a store from a snapshot's list (oldest first); keeps only the newest `CAPACITY`.
    pub fn restore(items: Vec<Notification>) -> Self {
        let mut store = Self::new();
        for n in items {
            store.push(n);
        }
        store
    }

    /// Stores `n`; returns the oldest notification when it had to be dropped to make room.
    pub fn push(&mut self, n: Notification) -> Option<Notification> {
        let dropped = if self.items.len() >= self.capacity {
            self.items.pop_front()
        } else {
            None
        };
        self.items.push_back(n);
        dropped
    }

    /// Number stored.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Looks one up by id.
    pub fn get(&self, id: &NotificationId) -> Option<&Notification> {
        self.items.iter().find(|n| &n.id == id)
    }

    /// Every stored notification, oldest first (for snapshots).
    pub fn iter(&self) -> impl Iterator<Item = &Notification> {
        self.items.iter()
    }

    /// Lists notifications newest first, filtered by read state and, when given, by pane.
    pub fn list(&self, read: ReadFilter, pane: Option<&PaneId>) -> Vec<&Notification> {
        self.items
            .iter()
            .rev()
            .filter(|n| read == ReadFilter::All || !n.read)
            .filter(|n| pane.is_none_or(|p| n.pane_id.as_ref() == Some(p)))
            .collect()
    }

    /// Number of unread notifications, optionally for one pane.
    pub fn unread_count(&self, pane: Option<&PaneId>) -> usize {
        self.list(ReadFilter::Unread, pane).len()
    }

    /// Marks one read. Returns whether it was unread before.
    pub fn mark_read(&mut self, id: &NotificationId) -> Result<bool, NotificationError> {
        let n = self
            .items
            .iter_mut()
            .find(|n| &n.id == id)
            .ok_or_else(|| NotificationError::NotFound(id.clone()))?;
        let was_unread = !n.read;
        n.read = true;
        Ok(was_unread)
    }

    /// Marks read the notifications an agent's hooks gave `pane` from `since` on: those of a
    /// request that has just been settled (the "needs approval" notice, Claude's reminder),
    /// which no longer need anyone. Returns how many changed.
    pub fn settle_since(&mut self, pane: &PaneId, since: SystemTime) -> usize {
        let mut changed = 0;
        for n in self.items.iter_mut().filter(|n| {
            n.pane_id.as_ref() == Some(pane)
                && n.source == NotificationSource::Hook
                && n.created_at >= since
        }) {
            if !n.read {
                n.read = true;
                changed += 1;
            }
        }
        changed
    }

    /// Marks every notification of `pane` read (the user looked at the pane). Returns how many
    /// changed.
    pub fn mark_pane_read(&mut self, pane: &PaneId) -> usize {
        let mut changed = 0;
        for n in self
            .items
            .iter_mut()
            .filter(|n| n.pane_id.as_ref() == Some(pane))
        {
            if !n.read {
                n.read = true;
                changed += 1;
            }
        }
        changed
    }
}

/// A pane competing for the user's attention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttentionCandidate {
    /// The pane.
    pub pane_id: PaneId,
    /// Its current attention.
    pub attention: Attention,
    /// When its state last changed (see `PaneState::last_change`).
    pub since: SystemTime,
}

/// Orders panes by how much they need the user: most severe attention first, then most recent
/// change, then pane id (so equal candidates have a stable order). Panes with attention `none`
/// are left out.
pub fn rank_attention(
    candidates: impl IntoIterator<Item = AttentionCandidate>,
) -> Vec<AttentionCandidate> {
    let mut ranked: Vec<_> = candidates
        .into_iter()
        .filter(|c| c.attention != Attention::None)
        .collect();
    ranked.sort_by(|a, b| {
        b.attention
            .cmp(&a.attention)
            .then(b.since.cmp(&a.since))
            .then(a.pane_id.cmp(&b.pane_id))
    });
    ranked
}

/// The pane that most needs the user (first of [`rank_attention`]), if any needs them at all.
pub fn next_unread(candidates: impl IntoIterator<Item = AttentionCandidate>) -> Option<PaneId> {
    rank_attention(candidates)
        .into_iter()
        .next()
        .map(|c| c.pane_id)
}

/// Every text that reaches storage or clients is cleaned by the terminal model's sanitizer:
/// one implementation, so notifications, decisions and titles follow the same rules.
pub use signaltty_term::sanitize as sanitize_text;

/// The first `max` characters of `s`, with an ellipsis when something was cut.
pub fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn t(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    fn note(pane: Option<&PaneId>, title: &str, at: u64) -> Notification {
        Notification::new(
            pane.cloned(),
            title,
            "body",
            Severity::Info,
            NotificationSource::Api,
            t(at),
        )
        .expect("valid notification")
    }

    #[test]
    fn sanitize_strips_escapes_and_controls() {
        let dirty = "\u{1b}[31mred\u{1b}[0m \u{1b}]0;title\u{07}x\u{1b}]8;;u\u{1b}\\y\u{1b}(Bz\r\u{7}\u{9b}1m\nnext\tcol\u{1b}";
        assert_eq!(sanitize_text(dirty, 100), "red xyz\nnext\tcol");
        assert_eq!(sanitize_text("  héllo wörld  ", 5), "héllo");
        assert_eq!(sanitize_text("\u{1b}", 10), "");
    }

    #[test]
    fn notification_caps_and_defaults() {
        let n = Notification::new(
            None,
            "",
            "hi",
            Severity::Warning,
            NotificationSource::Osc9,
            t(0),
        )
        .expect("body alone is enough");
        assert_eq!(n.title, DEFAULT_TITLE);
        assert!(!n.read);
        let long = "é".repeat(5000);
        let n = Notification::new(
            None,
            &long,
            &long,
            Severity::Info,
            NotificationSource::Api,
            t(0),
        )
        .expect("valid");
        assert_eq!(n.title.chars().count(), TITLE_MAX_CHARS);
        assert_eq!(n.body.chars().count(), BODY_MAX_CHARS);
        assert_eq!(
            n.summary().chars().count(),
            TITLE_MAX_CHARS + 2 + SUMMARY_MAX_CHARS + 1
        );
        assert_eq!(
            Notification::new(
                None,
                "\u{1b}[1m",
                " ",
                Severity::Info,
                NotificationSource::Api,
                t(0)
            ),
            Err(NotificationError::Empty)
        );
    }

    #[test]
    fn severity_maps_to_attention() {
        assert_eq!(Severity::Info.attention(), Attention::Unread);
        assert_eq!(Severity::Warning.attention(), Attention::Warning);
        assert_eq!(Severity::Error.attention(), Attention::Error);
        assert_eq!(Severity::parse("warning"), Ok(Severity::Warning));
        assert!(Severity::parse("fatal").is_err());
    }

    #[test]
    fn store_is_bounded_and_drops_the_oldest() {
        let mut store = Notifications::new();
        let first = note(None, "0", 0);
        let first_id = first.id.clone();
        store.push(first);
        for i in 1..Notifications::CAPACITY {
            assert!(store.push(note(None, &i.to_string(), i as u64)).is_none());
        }
        let dropped = store
            .push(note(None, "last", 999))
            .expect("full store drops one");
        assert_eq!(dropped.id, first_id);
        assert_eq!(store.len(), Notifications::CAPACITY);
        assert!(store.get(&first_id).is_none());
        assert_eq!(store.list(ReadFilter::All, None)[0].title, "last");
    }

    #[test]
    fn list_filters_and_mark_read() {
        let a = PaneId::new();
        let b = PaneId::new();
        let mut store = Notifications::new();
        let na = note(Some(&a), "a1", 1);
        let na_id = na.id.clone();
        store.push(na);
        store.push(note(Some(&a), "a2", 2));
        store.push(note(Some(&b), "b1", 3));
        store.push(note(None, "global", 4));
        assert_eq!(store.list(ReadFilter::All, Some(&a)).len(), 2);
        assert_eq!(store.unread_count(None), 4);
        assert_eq!(store.mark_read(&na_id), Ok(true));
        assert_eq!(store.mark_read(&na_id), Ok(false));
        let titles: Vec<_> = store
            .list(ReadFilter::Unread, Some(&a))
            .iter()
            .map(|n| n.title.clone())
            .collect();
        assert_eq!(titles, ["a2"]);
        assert_eq!(store.mark_pane_read(&a), 1);
        assert_eq!(store.unread_count(Some(&a)), 0);
        assert_eq!(store.unread_count(None), 2);
        let ghost = NotificationId::new();
        assert_eq!(
            store.mark_read(&ghost),
            Err(NotificationError::NotFound(ghost.clone()))
        );
    }

    #[test]
    fn settling_a_request_reads_only_its_pane_hook_notices_since_it() {
        let (a, b) = (PaneId::new(), PaneId::new());
        let mut store = Notifications::new();
        let hook = |pane: &PaneId, at: u64| {
            let mut n = note(Some(pane), "claude needs approval", at);
            n.source = NotificationSource::Hook;
            n
        };
        store.push(hook(&a, 1)); // an earlier turn's: stays unread
        let asked = hook(&a, 5);
        let asked_id = asked.id.clone();
        store.push(asked);
        store.push(hook(&a, 6)); // the reminder
        store.push(note(Some(&a), "osc", 7)); // the program's own: stays unread
        store.push(hook(&b, 8)); // another pane's: stays unread
        assert_eq!(store.settle_since(&a, t(5)), 2);
        assert!(store.get(&asked_id).expect("kept").read);
        assert_eq!(store.unread_count(Some(&a)), 2);
        assert_eq!(store.unread_count(Some(&b)), 1);
    }

    #[test]
    fn next_unread_prefers_severity_then_recency() {
        let old_error = PaneId::new();
        let new_unread = PaneId::new();
        let new_error = PaneId::new();
        let quiet = PaneId::new();
        let cand = |p: &PaneId, a, s| AttentionCandidate {
            pane_id: p.clone(),
            attention: a,
            since: t(s),
        };
        let ranked = rank_attention([
            cand(&old_error, Attention::Error, 1),
            cand(&new_unread, Attention::Unread, 9),
            cand(&new_error, Attention::Error, 5),
            cand(&quiet, Attention::None, 10),
        ]);
        let order: Vec<_> = ranked.into_iter().map(|c| c.pane_id).collect();
        assert_eq!(order, [new_error.clone(), old_error, new_unread]);
        assert_eq!(next_unread([cand(&quiet, Attention::None, 1)]), None);
    }
}
