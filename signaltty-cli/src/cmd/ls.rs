//! `signaltty ls`: every workspace, its tabs and their panes as a tree with status, like
//! `tmux ls` but one level deeper. `--json` prints the same tree (workspace objects with `tabs`,
//! each with its `panes`).

use clap::Args;
use serde::Serialize;
use signaltty_client::present::json::{JsonPane, JsonTab, JsonWorkspace};
use signaltty_client::present::names::name;
use signaltty_client::present::text::{git_summary, or_dash, status};
use signaltty_proto::v1 as pb;

use super::Ctx;
use crate::error::CliResult;

/// `signaltty ls`
#[derive(Debug, Args)]
pub struct LsArgs {}

#[derive(Serialize)]
struct TreeWorkspace {
    #[serde(flatten)]
    workspace: JsonWorkspace,
    tabs: Vec<TreeTab>,
}

#[derive(Serialize)]
struct TreeTab {
    #[serde(flatten)]
    tab: JsonTab,
    panes: Vec<JsonPane>,
}

/// Runs `signaltty ls`.
pub async fn cmd_ls(ctx: &Ctx, _args: LsArgs) -> CliResult {
    let client = ctx.client().await?;
    let workspaces = client
        .workspaces()
        .list_workspaces(pb::ListWorkspacesRequest {})
        .await?
        .into_inner()
        .workspaces;
    let mut tree = Vec::new();
    for w in workspaces {
        let got = client
            .workspaces()
            .get_workspace(pb::GetWorkspaceRequest {
                workspace_id: w.id.clone(),
            })
            .await?
            .into_inner();
        tree.push((w, got.tabs, got.panes));
    }
    if ctx.out.is_json() {
        let json: Vec<TreeWorkspace> = tree
            .iter()
            .map(|(w, tabs, panes)| TreeWorkspace {
                workspace: JsonWorkspace::from(w),
                tabs: tabs
                    .iter()
                    .map(|t| TreeTab {
                        tab: JsonTab::from(t),
                        panes: panes
                            .iter()
                            .filter(|p| p.tab_id == t.id)
                            .map(JsonPane::from)
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        return ctx.out.json(&json);
    }
    if tree.is_empty() {
        return ctx
            .out
            .line("no workspaces (`signaltty new` opens one for the current directory)");
    }
    ctx.out.text(&render(&tree))
}

/// The tree as text: a line per workspace, tab (indented) and pane (indented twice).
fn render(tree: &[(pb::Workspace, Vec<pb::Tab>, Vec<pb::Pane>)]) -> String {
    let mut out = String::new();
    for (w, tabs, panes) in tree {
        out.push_str(&format!(
            "{}  {}  {}  {}\n",
            w.name,
            w.id,
            git_summary(w.git.as_ref()),
            w.cwd
        ));
        for t in tabs {
            let active = if t.id == w.active_tab_id { " *" } else { "" };
            out.push_str(&format!("  {}  {}{active}\n", t.title, t.id));
            for p in panes.iter().filter(|p| p.tab_id == t.id) {
                out.push_str(&format!(
                    "    {}  {}  {}  {} / {}  {}\n",
                    p.id,
                    p.title,
                    status(p),
                    name::<pb::Lifecycle>(p.lifecycle),
                    name::<pb::Attention>(p.attention),
                    or_dash(&p.last_message),
                ));
            }
        }
    }
    out
}
