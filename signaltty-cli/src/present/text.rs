//! Short readable forms of wire values, for any client: ages ("4m"), times, pane status
//! ("EXITED(2)"), git state ("main*"), a decision on one line. Plain text, no layout.

use std::time::{Duration, SystemTime};

use signaltty_proto::v1 as pb;

use super::names::name;

/// How long ago `ts` was, compactly ("12s", "4m", "3h", "2d"), or "-" when unset.
pub fn age(ts: &Option<prost_types::Timestamp>) -> String {
    age_at(ts, SystemTime::now())
}

fn age_at(ts: &Option<prost_types::Timestamp>, now: SystemTime) -> String {
    let Some(ts) = ts else { return "-".into() };
    let Ok(then) = SystemTime::try_from(*ts) else {
        return "-".into();
    };
    let elapsed = now.duration_since(then).unwrap_or(Duration::ZERO);
    compact_duration(elapsed.as_secs())
}

/// A duration in its largest whole unit: "45s", "12m", "5h", "3d".
pub fn compact_duration(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// An RFC 3339 timestamp to the second, or "-".
pub fn time(ts: &Option<prost_types::Timestamp>) -> String {
    match ts {
        Some(ts) => prost_types::Timestamp {
            seconds: ts.seconds,
            nanos: 0,
        }
        .to_string(),
        None => "-".into(),
    }
}

/// `s`, or "-" when empty.
pub fn or_dash(s: &str) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s.to_string()
    }
}

/// The pane status in capitals: LIVE, EXITED, RESTORED, RESUMABLE.
pub fn status(pane: &pb::Pane) -> String {
    let status = name::<pb::PaneStatus>(pane.status).to_uppercase();
    match (pane.status == pb::PaneStatus::Exited as i32, pane.exit_code) {
        (true, Some(code)) => format!("{status}({code})"),
        _ => status,
    }
}

/// "main*" for a dirty checkout on main, "-" outside a repository, "(detached)" without a branch.
pub fn git_summary(git: Option<&pb::GitContext>) -> String {
    match git {
        Some(g) if g.is_repo => {
            let branch = if g.branch.is_empty() {
                "(detached)"
            } else {
                g.branch.as_str()
            };
            // `?`: the dirty check ran out of time (a very large checkout); not a guess.
            let mark = if g.dirty_unknown {
                "?"
            } else if g.dirty {
                "*"
            } else {
                ""
            };
            format!("{branch}{mark}")
        }
        _ => "-".into(),
    }
}

/// "dec_1: Allow Bash? [once|deny]" with "(read-only)" when no hook waits for the answer.
pub fn decision_summary(d: &pb::Decision) -> String {
    let options: Vec<&str> = d.options.iter().map(|o| o.id.as_str()).collect();
    let prompt = d.prompt.lines().next().unwrap_or("");
    format!(
        "{}: {prompt} [{}]{}",
        d.id,
        options.join("|"),
        if d.answerable { "" } else { " (read-only)" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_durations_pick_the_largest_unit() {
        assert_eq!(compact_duration(5), "5s");
        assert_eq!(compact_duration(125), "2m");
        assert_eq!(compact_duration(7200), "2h");
        assert_eq!(compact_duration(200_000), "2d");
    }

    #[test]
    fn age_is_relative_to_now_and_dash_when_unset() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1000);
        let ts = Some(prost_types::Timestamp {
            seconds: 880,
            nanos: 0,
        });
        assert_eq!(age_at(&ts, now), "2m");
        assert_eq!(age_at(&None, now), "-");
    }

    #[test]
    fn exited_status_shows_the_code() {
        let pane = pb::Pane {
            status: pb::PaneStatus::Exited as i32,
            exit_code: Some(2),
            ..Default::default()
        };
        assert_eq!(status(&pane), "EXITED(2)");
    }

    #[test]
    fn git_summary_marks_dirty_and_detached() {
        let g = pb::GitContext {
            is_repo: true,
            branch: "main".into(),
            dirty: true,
            ..Default::default()
        };
        assert_eq!(git_summary(Some(&g)), "main*");
        let d = pb::GitContext {
            is_repo: true,
            ..Default::default()
        };
        assert_eq!(git_summary(Some(&d)), "(detached)");
        assert_eq!(git_summary(None), "-");
    }
}
