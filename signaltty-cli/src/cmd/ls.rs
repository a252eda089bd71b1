//! `signaltty ls`: every workspace, its tabs and their panes as a tree with status, like
//! `tmux ls` but one level deeper. `--json` prints the same tree (workspace objects with `tabs`,
//! each with its `panes`).

use crate::present::json::{JsonPane, JsonTab, JsonWorkspace};
use crate::present::names::name;
use crate::present::text::{git_summary, or_dash, status};
use clap::Args;
use serde::Serialize;
use signaltty_proto::v1 as pb;

use super::Ctx;
use crate::error::CliResult;

/// `signaltty ls`
#[derive(Debug, Args)]
pub struct LsArgs {
    /// Every machine: this one first, then each remote (`signaltty remote list`), each under
    /// its name; a remote that does not answer is listed with why.
    #[arg(long)]
    all: bool,
}

type Tree = Vec<(pb::Workspace, Vec<pb::Tab>, Vec<pb::Pane>)>;

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
pub async fn cmd_ls(ctx: &Ctx, args: LsArgs) -> CliResult {
    if args.all {
        return ls_all(ctx).await;
    }
    let tree = fetch(&ctx.client().await?).await?;
    if ctx.out.is_json() {
        return ctx.out.json(&to_json(&tree));
    }
    if tree.is_empty() {
        return ctx
            .out
            .line("no workspaces (`signaltty new` opens one for the current directory)");
    }
    ctx.out.text(&render(&tree))
}

/// `ls --all`: this machine, then every remote, each under a heading (JSON: one object per
/// machine with `machine` and `workspaces`, or `error`).
async fn ls_all(ctx: &Ctx) -> CliResult {
    let local = fetch(&ctx.client().await?).await?;
    let mut machines: Vec<(String, Result<Tree, String>)> = vec![("local".to_owned(), Ok(local))];
    for remote in super::remote::all(&ctx.target.socket)? {
        let tree = async {
            let client = signaltty_client::remote::connect_remote(&remote).await?;
            fetch(&client).await
        }
        .await
        .map_err(|e| e.to_string());
        machines.push((remote.name, tree));
    }
    if ctx.out.is_json() {
        let json: Vec<serde_json::Value> = machines
            .iter()
            .map(|(name, tree)| match tree {
                Ok(tree) => serde_json::json!({ "machine": name, "workspaces": to_json(tree) }),
                Err(error) => serde_json::json!({ "machine": name, "error": error }),
            })
            .collect();
        return ctx.out.json(&json);
    }
    let mut out = String::new();
    for (name, tree) in &machines {
        out.push_str(&format!("[{name}]\n"));
        match tree {
            Ok(tree) if tree.is_empty() => out.push_str("  no workspaces\n"),
            Ok(tree) => {
                for line in render(tree).lines() {
                    out.push_str(&format!("  {line}\n"));
                }
            }
            Err(error) => out.push_str(&format!("  unreachable: {error}\n")),
        }
    }
    ctx.out.text(&out)
}

/// Every workspace with its tabs and panes.
async fn fetch(client: &signaltty_client::Client) -> Result<Tree, signaltty_client::ClientError> {
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
    Ok(tree)
}

fn to_json(tree: &Tree) -> Vec<TreeWorkspace> {
    tree.iter()
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
        .collect()
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
