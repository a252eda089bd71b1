//! A race entry's short text forms, shared by `signaltty race show` and the TUI's race view so
//! that both say the same thing: how long it has worked, its agent's state
//! (`lifecycle/attention`), its pending decision, and the compare matrix's cells (which entry
//! touched which file, `+/-`).

use std::time::{Duration, SystemTime};

use signaltty_proto::v1 as pb;

use super::names::name;

fn time_of(t: Option<&prost_types::Timestamp>) -> Option<SystemTime> {
    let t = t?;
    let secs = u64::try_from(t.seconds).ok()?;
    let nanos = u32::try_from(t.nanos).ok()?;
    Some(SystemTime::UNIX_EPOCH + Duration::new(secs, nanos))
}

/// How long the entry has worked on its last prompt (until its turn ended, else until `now`):
/// `42s`, `3m07s`, `1h05m`; `-` before its agent started.
pub fn elapsed(e: &pb::RaceEntry, now: SystemTime) -> String {
    let Some(from) =
        time_of(e.prompt_delivered_at.as_ref()).or_else(|| time_of(e.started_at.as_ref()))
    else {
        return "-".into();
    };
    let until = time_of(e.turn_ended_at.as_ref())
        .filter(|end| *end >= from)
        .unwrap_or(now);
    let secs = until.duration_since(from).unwrap_or_default().as_secs();
    if secs >= 3600 {
        format!("{}h{:02}m", secs / 3600, secs % 3600 / 60)
    } else if secs >= 60 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("{secs}s")
    }
}

/// The entry's agent as `lifecycle/attention` (`running/idle`); `-` before it has a pane.
pub fn agent_state(e: &pb::RaceEntry) -> String {
    if e.pane_id.is_empty() {
        return "-".to_owned();
    }
    format!(
        "{}/{}",
        name::<pb::Lifecycle>(e.lifecycle),
        name::<pb::Attention>(e.attention)
    )
}

/// The entry's pending decision as one line (its prompt, line breaks as spaces); `None` when
/// nothing is pending.
pub fn decision_label(e: &pb::RaceEntry) -> Option<String> {
    (!e.pending_decision_id.is_empty())
        .then(|| e.pending_decision_prompt.replace(['\n', '\r'], " "))
}

/// The entry's race state, with its queued review comments (`working (2 comments queued)`).
pub fn state_label(e: &pb::RaceEntry) -> String {
    let mut state = name::<pb::RaceEntryState>(e.state);
    if e.pending_comments > 0 {
        state.push_str(&format!(" ({} comments queued)", e.pending_comments));
    }
    state
}

/// The compare matrix: every path any entry touched (sorted), and per path one cell per entry
/// in the order given: `+a/-r`, `bin`, or `·` where the entry did not touch it.
pub fn matrix(entries: &[pb::RaceEntryDiff]) -> Vec<(String, Vec<String>)> {
    let mut paths: Vec<&str> = entries
        .iter()
        .flat_map(|d| d.files.iter().map(|f| f.path.as_str()))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    paths
        .into_iter()
        .map(|path| {
            let cells = entries
                .iter()
                .map(|d| match d.files.iter().find(|f| f.path == path) {
                    Some(f) if f.binary => "bin".to_owned(),
                    Some(f) => format!("+{}/-{}", f.added, f.removed),
                    None => "·".to_owned(),
                })
                .collect();
            (path.to_owned(), cells)
        })
        .collect()
}

/// A check run in a word: `passed`, `failed (2)`, `timed out`.
pub fn check_label(c: &pb::RaceCheck) -> String {
    if c.timed_out {
        "timed out".to_owned()
    } else if c.exit_code == 0 {
        "passed".to_owned()
    } else {
        format!("failed ({})", c.exit_code)
    }
}

/// One line of what keeping (or cancelling) a race did to an entry:
/// `entry 2: agent stopped, worktree removed, branch deleted — <problem>`.
pub fn cleanup_line(c: &pb::RaceCleanup) -> String {
    let mut done = vec![if c.stopped {
        "agent stopped"
    } else {
        "agent not stopped"
    }];
    if c.worktree_removed {
        done.push("worktree removed");
    }
    if c.branch_deleted {
        done.push("branch deleted");
    }
    let problem = if c.problem.is_empty() {
        String::new()
    } else {
        format!(" — {}", c.problem)
    };
    format!("entry {}: {}{problem}", c.index, done.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Option<prost_types::Timestamp> {
        Some(prost_types::Timestamp { seconds, nanos: 0 })
    }

    #[test]
    fn elapsed_runs_from_the_prompt_to_the_turn_end_or_now() {
        let mut e = pb::RaceEntry::default();
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(10_000);
        assert_eq!(elapsed(&e, now), "-");
        e.started_at = at(9_990);
        assert_eq!(elapsed(&e, now), "10s");
        e.prompt_delivered_at = at(9_000);
        assert_eq!(elapsed(&e, now), "16m40s");
        e.turn_ended_at = at(9_042);
        assert_eq!(elapsed(&e, now), "42s");
        e.prompt_delivered_at = at(1_000);
        e.turn_ended_at = None;
        assert_eq!(elapsed(&e, now), "2h30m");
    }

    #[test]
    fn agent_state_and_decision_are_dashes_or_none_until_there() {
        let mut e = pb::RaceEntry::default();
        assert_eq!(agent_state(&e), "-");
        assert_eq!(decision_label(&e), None);
        e.pane_id = "p1".into();
        e.lifecycle = pb::Lifecycle::Blocked as i32;
        e.attention = pb::Attention::PermissionRequired as i32;
        assert_eq!(agent_state(&e), "blocked/permission_required");
        e.pending_decision_id = "d1".into();
        e.pending_decision_prompt = "Allow Bash\nls".into();
        assert_eq!(decision_label(&e).as_deref(), Some("Allow Bash ls"));
        e.pending_comments = 2;
        e.state = pb::RaceEntryState::Working as i32;
        assert_eq!(state_label(&e), "working (2 comments queued)");
    }

    #[test]
    fn the_matrix_marks_who_touched_what() {
        let file = |path: &str, added, removed| pb::FileChange {
            path: path.into(),
            added,
            removed,
            ..Default::default()
        };
        let entries = [
            pb::RaceEntryDiff {
                index: 1,
                files: vec![file("b.txt", 1, 0), file("a.txt", 2, 1)],
                ..Default::default()
            },
            pb::RaceEntryDiff {
                index: 2,
                files: vec![file("a.txt", 0, 3)],
                ..Default::default()
            },
        ];
        assert_eq!(
            matrix(&entries),
            [
                (
                    "a.txt".to_owned(),
                    vec!["+2/-1".to_owned(), "+0/-3".to_owned()]
                ),
                ("b.txt".to_owned(), vec!["+1/-0".to_owned(), "·".to_owned()]),
            ]
        );
    }

    #[test]
    fn a_cleanup_line_says_what_was_done_and_what_was_not() {
        let all = pb::RaceCleanup {
            index: 2,
            stopped: true,
            worktree_removed: true,
            branch_deleted: true,
            ..Default::default()
        };
        assert_eq!(
            cleanup_line(&all),
            "entry 2: agent stopped, worktree removed, branch deleted"
        );
        let kept_running = pb::RaceCleanup {
            index: 3,
            problem: "worktree has changes".into(),
            ..Default::default()
        };
        assert_eq!(
            cleanup_line(&kept_running),
            "entry 3: agent not stopped — worktree has changes"
        );
    }
}
