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
    let tree = fetch(&ctx.client().await?, None).await?;
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
/// machine with `machine` and `workspaces`, or `error`). The remotes are read through the local
/// server (metadata `signaltty-machine`, its shared links), all at once; under `--remote` the
/// remotes of this machine's config are dialled directly instead (that server has its own).
async fn ls_all(ctx: &Ctx) -> CliResult {
    let client = ctx.client().await?;
    let local = fetch(&client, None).await?;
    let remotes = super::remote::all(&ctx.target.socket)?;
    let trees = remotes.iter().map(|remote| {
        let client = &client;
        async move {
            let tree = match &ctx.remote {
                None => fetch(client, Some(&remote.name)).await,
                Some(_) => match signaltty_client::remote::connect_remote(remote).await {
                    Ok(direct) => fetch(&direct, None).await,
                    Err(e) => Err(e),
                },
            };
            (remote.name.clone(), tree.map_err(|e| e.to_string()))
        }
    });
    let mut machines: Vec<(String, Result<Tree, String>)> = vec![("local".to_owned(), Ok(local))];
    machines.extend(futures_util::future::join_all(trees).await);
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

/// `msg` for `machine` (`None`: the server's own): the metadata the local server forwards on.
fn on<T>(machine: Option<&str>, msg: T) -> tonic::Request<T> {
    let mut req = tonic::Request::new(msg);
    if let Some(value) = machine.and_then(|m| m.parse().ok()) {
        req.metadata_mut().insert("signaltty-machine", value);
    }
    req
}

/// Every workspace with its tabs and panes, of `machine` through `client`'s server.
async fn fetch(
    client: &signaltty_client::Client,
    machine: Option<&str>,
) -> Result<Tree, signaltty_client::ClientError> {
    let workspaces = client
        .workspaces()
        .list_workspaces(on(machine, pb::ListWorkspacesRequest {}))
        .await?
        .into_inner()
        .workspaces;
    let mut tree = Vec::new();
    for w in workspaces {
        let got = client
            .workspaces()
            .get_workspace(on(
                machine,
                pb::GetWorkspaceRequest {
                    workspace_id: w.id.clone(),
                },
            ))
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
