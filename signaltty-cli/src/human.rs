//! Human renderings shared by several commands: tables of workspaces, tabs and panes, and one
//! object's details (the short forms of single values are in `crate::present::text`).
//! Everything here returns text; commands print it.

use crate::present::layout::LayoutJson;
use crate::present::names::name;
use crate::present::text::{age, decision_summary, git_summary, or_dash, status, time};
use signaltty_proto::v1 as pb;

use crate::table::{Table, key_values};

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
    match signaltty_client::layout_tree::tree(t)
        .as_ref()
        .map(LayoutJson::from_proto)
    {
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

/// Panes as a table with their workspace's name (`workspaces`: id → name; the id when absent).
pub fn pane_table_with_workspaces(
    panes: &[pb::Pane],
    workspaces: &std::collections::HashMap<String, String>,
) -> String {
    let mut table = Table::new(&[
        "ID",
        "WORKSPACE",
        "TAB",
        "TITLE",
        "STATUS",
        "LIFECYCLE",
        "ATTENTION",
        "SINCE",
        "MESSAGE",
    ])
    .max_width(1, 24)
    .max_width(3, 24)
    .max_width(8, 40);
    for p in panes {
        let workspace = workspaces
            .get(&p.workspace_id)
            .cloned()
            .unwrap_or_else(|| p.workspace_id.clone());
        table.row([
            p.id.clone(),
            workspace,
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
    pane_details_with(p, None)
}

/// One pane's details, with its cursor and modes when known (`(row, col)`, mode names).
pub fn pane_details_with(p: &pb::Pane, screen: Option<((u16, u16), &[&str])>) -> String {
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
    if let Some(((row, col), modes)) = screen {
        pairs.push(("cursor", format!("row {row}, column {col} (from 0)")));
        pairs.push((
            "modes",
            if modes.is_empty() {
                "-".to_owned()
            } else {
                modes.join(" ")
            },
        ));
    }
    key_values(&pairs)
}
