//! Human renderings shared by several commands: tables of workspaces, tabs and panes, one
//! object's details, and short ages ("4m"). Everything here returns text; commands print it.

use std::time::{Duration, SystemTime};

use signaltty_proto::v1 as pb;

use crate::layout_json::LayoutJson;
use crate::names::name;
use crate::table::{Table, key_values};

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

/// A table of workspaces.
pub fn workspace_table(workspaces: &[pb::Workspace]) -> String {
    let mut table = Table::new(&["ID", "NAME", "TABS", "BRANCH", "CWD"]).max_width(1, 30);
    for w in workspaces {
        table.row([
            w.id.clone(),
            w.name.clone(),
            w.tab_ids.len().to_string(),
            git_summary(w.git.as_ref()),
            w.cwd.clone(),
        ]);
    }
    table.render()
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
            format!("{branch}{}", if g.dirty { "*" } else { "" })
        }
        _ => "-".into(),
    }
}

/// One workspace's details.
pub fn workspace_details(w: &pb::Workspace) -> String {
    let mut pairs = vec![
        ("id", w.id.clone()),
        ("name", w.name.clone()),
        ("cwd", w.cwd.clone()),
        ("git", git_summary(w.git.as_ref())),
    ];
    if let Some(g) = w.git.as_ref().filter(|g| g.is_repo) {
        pairs.push(("repo", format!("{} ({})", g.repo_name, g.repo_root)));
    }
    pairs.push(("tabs", w.tab_ids.len().to_string()));
    pairs.push(("created", time(&w.created_at)));
    key_values(&pairs)
}

/// A table of tabs.
pub fn tab_table(tabs: &[pb::Tab]) -> String {
    let mut table = Table::new(&["ID", "TITLE", "PANES", "ACTIVE PANE"]).max_width(1, 30);
    for t in tabs {
        table.row([
            t.id.clone(),
            t.title.clone(),
            t.pane_ids.len().to_string(),
            or_dash(&t.active_pane_id),
        ]);
    }
    table.render()
}

/// One tab's details and its layout tree.
pub fn tab_details(t: &pb::Tab) -> String {
    let mut text = key_values(&[
        ("id", t.id.clone()),
        ("workspace", t.workspace_id.clone()),
        ("title", t.title.clone()),
        ("panes", t.pane_ids.join(" ")),
    ]);
    match t.layout.as_ref().map(LayoutJson::from_proto) {
        Some(Ok(layout)) => {
            text.push_str("layout:\n");
            for line in layout.render_tree().lines() {
                text.push_str("  ");
                text.push_str(line);
                text.push('\n');
            }
        }
        Some(Err(err)) => text.push_str(&format!("layout: ({err})\n")),
        None => text.push_str("layout: (empty)\n"),
    }
    text
}

/// A table of panes with their status and the two state axes.
pub fn pane_table(panes: &[pb::Pane]) -> String {
    let mut table = Table::new(&[
        "ID",
        "TAB",
        "TITLE",
        "STATUS",
        "LIFECYCLE",
        "ATTENTION",
        "SINCE",
        "MESSAGE",
    ])
    .max_width(2, 24)
    .max_width(7, 40);
    for p in panes {
        table.row([
            p.id.clone(),
            p.tab_id.clone(),
            p.title.clone(),
            status(p),
            name::<pb::Lifecycle>(p.lifecycle),
            name::<pb::Attention>(p.attention),
            age(&p.lifecycle_since),
            p.last_message.clone(),
        ]);
    }
    table.render()
}

/// One pane's details, with its agent and pending decision.
pub fn pane_details(p: &pb::Pane) -> String {
    let mut pairs = vec![
        ("id", p.id.clone()),
        ("workspace", p.workspace_id.clone()),
        ("tab", p.tab_id.clone()),
        ("title", p.title.clone()),
        ("command", p.argv.join(" ")),
        ("cwd", p.cwd.clone()),
        ("size", format!("{}x{}", p.cols, p.rows)),
        ("status", status(p)),
        (
            "pid",
            if p.pid == 0 {
                "-".into()
            } else {
                p.pid.to_string()
            },
        ),
        (
            "lifecycle",
            format!(
                "{} (for {})",
                name::<pb::Lifecycle>(p.lifecycle),
                age(&p.lifecycle_since)
            ),
        ),
        ("attention", name::<pb::Attention>(p.attention)),
        ("last message", or_dash(&p.last_message)),
        ("created", time(&p.created_at)),
    ];
    if let Some(agent) = &p.agent {
        pairs.push(("agent", name::<pb::AgentKind>(agent.kind)));
        pairs.push(("session", or_dash(&agent.session_id)));
        if !agent.resume_argv.is_empty() {
            pairs.push(("resume", agent.resume_argv.join(" ")));
        }
    }
    if let Some(d) = &p.pending_decision {
        pairs.push(("decision", decision_summary(d)));
    }
    key_values(&pairs)
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
