//! `signaltty workspace create|list|get|rename|close|refresh-git`.

use std::path::PathBuf;

use crate::present::json::{self, JsonGit, JsonPane, JsonTab, JsonWorkspace};
use crate::present::text;
use clap::{Args, Subcommand};
use serde::Serialize;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient;

use super::{Ctx, absolute_dir};
use crate::error::{CliError, CliResult};
use crate::human;

/// `signaltty workspace …`
#[derive(Debug, Args)]
pub struct WorkspaceArgs {
    #[command(subcommand)]
    command: WorkspaceCommand,
}

#[derive(Debug, Subcommand)]
enum WorkspaceCommand {
    /// Open a workspace on a directory.
    Create {
        /// Display name [default: the directory's name].
        #[arg(long)]
        name: Option<String>,
        /// The directory [default: the current directory].
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
    },
    /// List open workspaces.
    #[command(visible_alias = "ls")]
    List,
    /// Show a workspace with its tabs and panes.
    Get {
        /// The workspace: an id, a unique id prefix or name, or `-` for the last one used.
        workspace: String,
    },
    /// Rename a workspace.
    Rename {
        /// The workspace: an id, a unique id prefix or name, or `-` for the last one used.
        workspace: String,
        /// The new name.
        name: String,
    },
    /// Close a workspace and end every pane in it.
    Close {
        /// The workspace: an id, a unique id prefix or name, or `-` for the last one used.
        workspace: String,
    },
    /// Re-read the workspace's git context now.
    RefreshGit {
        /// The workspace: an id, a unique id prefix or name, or `-` for the last one used.
        workspace: String,
    },
}

/// Runs `signaltty workspace …`.
pub async fn cmd_workspace(ctx: &Ctx, args: WorkspaceArgs) -> CliResult {
    let conn = ctx.client().await?;
    let mut client = conn.workspaces();
    let mut command = args.command;
    if let WorkspaceCommand::Get { workspace }
    | WorkspaceCommand::Rename { workspace, .. }
    | WorkspaceCommand::Close { workspace }
    | WorkspaceCommand::RefreshGit { workspace } = &mut command
    {
        *workspace = ctx
            .resolve(&conn, crate::resolve::Kind::Workspace, Some(workspace))
            .await?;
    }
    match command {
        WorkspaceCommand::Create { name, cwd } => {
            let workspace = create(&mut client, name, cwd.as_deref()).await?;
            crate::resolve::remember(
                &ctx.target,
                crate::resolve::LastUsed {
                    workspace: Some(workspace.id.clone()),
                    ..Default::default()
                },
            );
            // Its id alone, as every command that creates something prints (`workspace get`
            // shows the rest).
            if ctx.out.is_json() {
                return ctx.out.json(&JsonWorkspace::from(&workspace));
            }
            ctx.out.line(&workspace.id)
        }
        WorkspaceCommand::List => {
            let reply = client
                .list_workspaces(pb::ListWorkspacesRequest {})
                .await?
                .into_inner();
            if ctx.out.is_json() {
                return ctx
                    .out
                    .json(&json::list::<_, JsonWorkspace>(&reply.workspaces));
            }
            ctx.out.text(&human::workspace_table(&reply.workspaces))
        }
        WorkspaceCommand::Get { workspace } => {
            let reply = client
                .get_workspace(pb::GetWorkspaceRequest {
                    workspace_id: workspace,
                })
                .await?
                .into_inner();
            print_full(ctx, &reply)
        }
        WorkspaceCommand::Rename { workspace, name } => {
            let reply = client
                .rename_workspace(pb::RenameWorkspaceRequest {
                    workspace_id: workspace,
                    name,
                })
                .await?
                .into_inner();
            print_workspace(ctx, &required(reply.workspace)?)
        }
        WorkspaceCommand::Close { workspace } => {
            let reply = client
                .close_workspace(pb::CloseWorkspaceRequest {
                    workspace_id: workspace.clone(),
                })
                .await?
                .into_inner();
            if ctx.out.is_json() {
                return ctx.out.json(&serde_json::json!({
                    "workspace_id": workspace,
                    "closed_pane_ids": reply.closed_pane_ids,
                }));
            }
            ctx.out.line(format_args!(
                "closed {workspace} ({} panes ended)",
                reply.closed_pane_ids.len()
            ))
        }
        WorkspaceCommand::RefreshGit { workspace } => {
            let reply = client
                .refresh_git(pb::RefreshGitRequest {
                    workspace_id: workspace,
                })
                .await?
                .into_inner();
            let git = reply.git.unwrap_or_default();
            if ctx.out.is_json() {
                return ctx.out.json(&JsonGit::from(&git));
            }
            ctx.out.line(text::git_summary(Some(&git)))
        }
    }
}

/// Creates a workspace on `cwd` (default: the current directory).
pub async fn create(
    client: &mut WorkspaceServiceClient<tonic::transport::Channel>,
    name: Option<String>,
    cwd: Option<&std::path::Path>,
) -> CliResult<pb::Workspace> {
    let reply = client
        .create_workspace(pb::CreateWorkspaceRequest {
            name: name.unwrap_or_default(),
            cwd: absolute_dir(cwd)?,
            settings: None,
        })
        .await?
        .into_inner();
    required(reply.workspace)
}

fn required(workspace: Option<pb::Workspace>) -> CliResult<pb::Workspace> {
    workspace.ok_or_else(|| CliError::local("the server's reply carried no workspace"))
}

fn print_workspace(ctx: &Ctx, workspace: &pb::Workspace) -> CliResult {
    if ctx.out.is_json() {
        return ctx.out.json(&JsonWorkspace::from(workspace));
    }
    ctx.out.text(&human::workspace_details(workspace))
}

#[derive(Serialize)]
struct JsonFullWorkspace {
    workspace: Option<JsonWorkspace>,
    tabs: Vec<JsonTab>,
    panes: Vec<JsonPane>,
}

fn print_full(ctx: &Ctx, reply: &pb::GetWorkspaceResponse) -> CliResult {
    if ctx.out.is_json() {
        return ctx.out.json(&JsonFullWorkspace {
            workspace: reply.workspace.as_ref().map(JsonWorkspace::from),
            tabs: json::list(&reply.tabs),
            panes: json::list(&reply.panes),
        });
    }
    let mut text = reply
        .workspace
        .as_ref()
        .map(human::workspace_details)
        .unwrap_or_default();
    if !reply.tabs.is_empty() {
        text.push('\n');
        text.push_str(&human::tab_table(&reply.tabs));
    }
    if !reply.panes.is_empty() {
        // Every pane here is in this workspace: show its name, as `pane list` does.
        let names = reply
            .workspace
            .iter()
            .map(|w| (w.id.clone(), w.name.clone()))
            .collect();
        text.push('\n');
        text.push_str(&human::pane_table_with_workspaces(&reply.panes, &names));
    }
    ctx.out.text(&text)
}
