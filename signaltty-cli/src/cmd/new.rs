//! `signaltty new [--name N] [--cwd DIR] [--detach] [--new] [-- CMD…]`: a workspace for a
//! directory (default: the current one) with one pane running CMD or `$SHELL`, then an attach to
//! it.
//!
//! When a workspace is already open on that directory (and has that name, with `--name`), `new`
//! reuses it instead of making a second one: without CMD it attaches to the workspace's active
//! pane, or to its first live pane when the active one has exited (starting a shell there when
//! none runs); with CMD it starts CMD in a new tab of it. `--new` always makes a fresh workspace.
//!
//! It does not attach with `--detach`, with `--json`, or when stdin or stdout is not a terminal;
//! it prints the pane id (or workspace, pane and tab as JSON) instead.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::present::json::{JsonPane, JsonTab, JsonWorkspace};
use clap::Args;
use serde::Serialize;
use signaltty_proto::v1 as pb;

use super::attach::{AttachOptions, attach};
use super::{Ctx, terminal_size, workspace};
use crate::error::{CliError, CliResult};

/// `signaltty new`
#[derive(Debug, Args)]
pub struct NewArgs {
    /// Workspace name [default: the directory's name].
    #[arg(long)]
    name: Option<String>,
    /// The directory [default: the current directory].
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Do not attach; print the pane's id.
    #[arg(long, short = 'd')]
    detach: bool,
    /// Make a new workspace even if one is open on the directory.
    #[arg(long)]
    new: bool,
    /// The command [default: $SHELL].
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

#[derive(Serialize)]
struct JsonNew {
    workspace: JsonWorkspace,
    pane: Option<JsonPane>,
    tab: Option<JsonTab>,
}

/// Runs `signaltty new`.
pub async fn cmd_new(ctx: &Ctx, args: NewArgs) -> CliResult {
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let attach_after = !(args.detach || ctx.out.is_json() || !interactive);
    // Read before anything is created: a config file with mistakes changes nothing.
    let options = if attach_after {
        super::attach::configured()?
    } else {
        AttachOptions::default()
    };
    let client = ctx.client().await?;
    let mut workspaces = client.workspaces();
    let existing = if args.new {
        None
    } else {
        existing_workspace(&client, args.name.as_deref(), args.cwd.as_deref()).await?
    };
    if let Some((ws, Some(pane))) = &existing
        && args.command.is_empty()
    {
        crate::resolve::remember_pane(&ctx.target, pane);
        if !attach_after {
            if ctx.out.is_json() {
                return ctx.out.json(&JsonNew {
                    workspace: JsonWorkspace::from(ws),
                    pane: Some(JsonPane::from(pane)),
                    tab: None,
                });
            }
            return ctx.out.line(&pane.id);
        }
        drop(workspaces);
        return attach(ctx, client, &pane.id, options).await;
    }
    let ws = match existing {
        Some((ws, _)) => ws,
        None => workspace::create(&mut workspaces, args.name, args.cwd.as_deref()).await?,
    };
    let argv = if args.command.is_empty() {
        // The user's shell, not the server's: they may differ when the server was started by
        // another tool.
        std::env::var("SHELL")
            .ok()
            .filter(|s| !s.is_empty())
            .into_iter()
            .collect()
    } else {
        args.command
    };
    let (cols, rows) = terminal_size().unwrap_or((0, 0));
    let mut panes = client.panes();
    let spawned = panes
        .spawn_pane(pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            argv,
            cols: cols.into(),
            rows: rows.into(),
            ..Default::default()
        })
        .await?
        .into_inner();
    let pane = spawned
        .pane
        .as_ref()
        .ok_or_else(|| CliError::local("the server's reply carried no pane"))?;
    crate::resolve::remember_pane(&ctx.target, pane);

    if !attach_after {
        if ctx.out.is_json() {
            return ctx.out.json(&JsonNew {
                workspace: JsonWorkspace::from(&ws),
                pane: Some(JsonPane::from(pane)),
                tab: spawned.tab.as_ref().map(JsonTab::from),
            });
        }
        return ctx.out.line(&pane.id);
    }
    drop((workspaces, panes));
    attach(ctx, client, &pane.id, options).await
}

/// The workspace open on the directory (with that name, when given), and the live pane to attach
/// to: its active tab's active pane when that one runs, else its first live pane, else none.
async fn existing_workspace(
    client: &signaltty_client::Client,
    name: Option<&str>,
    cwd: Option<&std::path::Path>,
) -> CliResult<Option<(pb::Workspace, Option<pb::Pane>)>> {
    let dir = super::absolute_dir(cwd)?;
    let all = client
        .workspaces()
        .list_workspaces(pb::ListWorkspacesRequest {})
        .await?
        .into_inner()
        .workspaces;
    let Some(ws) = all
        .into_iter()
        .find(|w| w.cwd == dir && name.is_none_or(|n| n == w.name))
    else {
        return Ok(None);
    };
    let got = client
        .workspaces()
        .get_workspace(pb::GetWorkspaceRequest {
            workspace_id: ws.id.clone(),
        })
        .await?
        .into_inner();
    let active = got
        .tabs
        .iter()
        .find(|t| t.id == ws.active_tab_id)
        .map(|t| t.active_pane_id.clone());
    let live = |p: &&pb::Pane| p.status == pb::PaneStatus::Live as i32;
    // Never a pane whose process has exited: attaching to it shows a dead screen. With no live
    // pane, `new` starts a shell in the workspace instead.
    let pane = got
        .panes
        .iter()
        .filter(live)
        .find(|p| Some(&p.id) == active.as_ref())
        .or_else(|| got.panes.iter().find(live))
        .cloned();
    Ok(Some((ws, pane)))
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Command};
    use clap::Parser;

    #[test]
    fn new_takes_a_command_after_dashes() {
        let cli = Cli::try_parse_from([
            "signaltty",
            "new",
            "--name",
            "api",
            "-d",
            "--",
            "claude",
            "-c",
        ])
        .expect("valid");
        let Command::New(args) = cli.command else {
            panic!("new")
        };
        assert_eq!(args.name.as_deref(), Some("api"));
        assert!(args.detach);
        assert_eq!(args.command, ["claude", "-c"]);
    }
}
