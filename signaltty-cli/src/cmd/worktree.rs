//! `signaltty worktree list|create|open|remove`: the checkouts of a workspace's repository, one
//! per agent. `create … --spawn [-- CMD…]` is the "new agent in its own worktree" flow in one
//! command: checkout → workspace → a pane running CMD (or `$SHELL`) there.
//!
//! WS defaults to the open workspace whose directory contains the current directory.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde::Serialize;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::git_service_client::GitServiceClient;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient;
use tonic::transport::Channel;

use super::{Ctx, absolute_dir, terminal_size};
use crate::error::{CliError, CliResult};
use crate::present::json::{JsonPane, JsonWorkspace};
use crate::table::Table;

/// `signaltty worktree …`
#[derive(Debug, Args)]
pub struct WorktreeArgs {
    #[command(subcommand)]
    command: WorktreeCommand,
}

#[derive(Debug, Subcommand)]
enum WorktreeCommand {
    /// List the repository's checkouts (main first) with the workspaces open on each.
    #[command(visible_alias = "ls")]
    List {
        /// A workspace in the repository [default: the one containing the current directory].
        #[arg(long, visible_alias = "ws", value_name = "WS")]
        workspace: Option<String>,
    },
    /// Add a checkout on a branch (existing, or new) and open a workspace on it.
    ///
    /// The default path is `<repo>-worktrees/<branch>` next to the main checkout (`/` in the
    /// branch becomes `-`). With --spawn or a command after `--`, a pane runs it there:
    /// `signaltty worktree create fix-login --spawn -- claude`.
    Create {
        /// The branch: an existing local branch, or a new one.
        branch: String,
        /// A workspace in the repository [default: the one containing the current directory].
        #[arg(long, visible_alias = "ws", value_name = "WS")]
        workspace: Option<String>,
        /// Where the checkout goes [default: `<repo>-worktrees/<branch>`].
        #[arg(long, value_name = "DIR")]
        path: Option<PathBuf>,
        /// Start a new branch at this revision [default: HEAD].
        #[arg(long, value_name = "REV")]
        from: Option<String>,
        /// Name of the new workspace [default: the branch].
        #[arg(long)]
        name: Option<String>,
        /// Also start a pane in the new workspace running CMD (default: $SHELL).
        #[arg(long)]
        spawn: bool,
        /// The command for --spawn (implies --spawn).
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Open a workspace on an existing checkout (reusing one already open there).
    Open {
        /// The checkout's path.
        path: PathBuf,
        /// A workspace in the repository [default: the one containing the current directory].
        #[arg(long, visible_alias = "ws", value_name = "WS")]
        workspace: Option<String>,
    },
    /// Remove a linked checkout. Refused for the main checkout and for dirty, locked or open
    /// checkouts; the branch is kept; never forced.
    #[command(visible_alias = "rm")]
    Remove {
        /// The checkout's path.
        path: PathBuf,
        /// A workspace in the repository [default: the one containing the current directory].
        #[arg(long, visible_alias = "ws", value_name = "WS")]
        workspace: Option<String>,
    },
}

/// A checkout as `--json` prints it.
#[derive(Serialize)]
pub struct JsonWorktree {
    path: String,
    branch: Option<String>,
    head: Option<String>,
    is_main: bool,
    locked: bool,
    lock_reason: Option<String>,
    missing: bool,
    workspace_ids: Vec<String>,
}

impl From<&pb::Worktree> for JsonWorktree {
    fn from(w: &pb::Worktree) -> Self {
        let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        JsonWorktree {
            path: w.path.clone(),
            branch: some(&w.branch),
            head: some(&w.head),
            is_main: w.is_main,
            locked: w.locked,
            lock_reason: some(&w.lock_reason),
            missing: w.missing,
            workspace_ids: w.workspace_ids.clone(),
        }
    }
}

#[derive(Serialize)]
struct JsonCreated {
    worktree: Option<JsonWorktree>,
    workspace: Option<JsonWorkspace>,
    created_branch: bool,
    pane: Option<JsonPane>,
}

/// Runs `signaltty worktree …`.
pub async fn cmd_worktree(ctx: &Ctx, args: WorktreeArgs) -> CliResult {
    let conn = ctx.client().await?;
    let channel = conn.channel();
    let mut git = GitServiceClient::new(channel.clone());
    match args.command {
        WorktreeCommand::List { workspace } => {
            let ws = resolve_workspace(ctx, &conn, workspace).await?;
            let reply = git
                .list_worktrees(pb::ListWorktreesRequest { workspace_id: ws })
                .await?
                .into_inner();
            if ctx.out.is_json() {
                let list: Vec<JsonWorktree> = reply.worktrees.iter().map(Into::into).collect();
                return ctx.out.json(&list);
            }
            let mut table = Table::new(&["PATH", "BRANCH", "HEAD", "STATE", "WORKSPACES"]);
            for w in &reply.worktrees {
                let mut state = Vec::new();
                if w.is_main {
                    state.push("main");
                }
                if w.locked {
                    state.push("locked");
                }
                if w.missing {
                    state.push("missing");
                }
                table.row([
                    w.path.clone(),
                    if w.branch.is_empty() {
                        "(detached)".into()
                    } else {
                        w.branch.clone()
                    },
                    w.head.chars().take(10).collect(),
                    if state.is_empty() {
                        "-".into()
                    } else {
                        state.join(",")
                    },
                    if w.workspace_ids.is_empty() {
                        "-".into()
                    } else {
                        w.workspace_ids.join(",")
                    },
                ]);
            }
            ctx.out.text(&table.render())
        }
        WorktreeCommand::Create {
            branch,
            workspace,
            path,
            from,
            name,
            spawn,
            command,
        } => {
            let ws = resolve_workspace(ctx, &conn, workspace).await?;
            let path = match path {
                Some(p) => absolute_path(&p)?,
                None => String::new(),
            };
            let created = git
                .create_worktree(pb::CreateWorktreeRequest {
                    workspace_id: ws,
                    path,
                    branch,
                    start_point: from.unwrap_or_default(),
                    workspace_name: name.unwrap_or_default(),
                })
                .await?
                .into_inner();
            let pane = if spawn || !command.is_empty() {
                let new_ws = created
                    .workspace
                    .as_ref()
                    .ok_or_else(|| CliError::local("the server's reply carried no workspace"))?;
                Some(spawn_in(&channel, &new_ws.id, command).await?)
            } else {
                None
            };
            if ctx.out.is_json() {
                return ctx.out.json(&JsonCreated {
                    worktree: created.worktree.as_ref().map(Into::into),
                    workspace: created.workspace.as_ref().map(JsonWorkspace::from),
                    created_branch: created.created_branch,
                    pane: pane.as_ref().map(JsonPane::from),
                });
            }
            let tree = created.worktree.unwrap_or_default();
            let ws = created.workspace.unwrap_or_default();
            let how = if created.created_branch {
                "new branch"
            } else {
                "branch"
            };
            ctx.out.line(format_args!(
                "checkout {} ({how} {}) in workspace {}",
                tree.path, tree.branch, ws.id
            ))?;
            if let Some(p) = pane {
                ctx.out.line(format_args!(
                    "pane {} running {} (attach: signaltty attach {})",
                    p.id,
                    p.argv.join(" "),
                    p.id
                ))?;
            }
            Ok(())
        }
        WorktreeCommand::Open { path, workspace } => {
            let ws = resolve_workspace(ctx, &conn, workspace).await?;
            let reply = git
                .open_worktree(pb::OpenWorktreeRequest {
                    workspace_id: ws,
                    path: absolute_path(&path)?,
                })
                .await?
                .into_inner();
            let opened = reply
                .workspace
                .ok_or_else(|| CliError::local("the server's reply carried no workspace"))?;
            if ctx.out.is_json() {
                return ctx.out.json(&serde_json::json!({
                    "workspace": JsonWorkspace::from(&opened),
                    "reused": reply.reused,
                }));
            }
            let how = if reply.reused {
                "already open as"
            } else {
                "opened as"
            };
            ctx.out
                .line(format_args!("{} {how} workspace {}", opened.cwd, opened.id))
        }
        WorktreeCommand::Remove { path, workspace } => {
            let ws = resolve_workspace(ctx, &conn, workspace).await?;
            let path = absolute_path(&path)?;
            git.remove_worktree(pb::RemoveWorktreeRequest {
                workspace_id: ws,
                path: path.clone(),
            })
            .await?;
            if ctx.out.is_json() {
                return ctx.out.json(&serde_json::json!({ "removed": path }));
            }
            ctx.out
                .line(format_args!("removed checkout {path} (its branch is kept)"))
        }
    }
}

/// Spawns CMD (default `$SHELL`) in a new tab of `ws`, sized like this terminal.
async fn spawn_in(channel: &Channel, ws: &str, command: Vec<String>) -> CliResult<pb::Pane> {
    let argv = if command.is_empty() {
        std::env::var("SHELL")
            .ok()
            .filter(|s| !s.is_empty())
            .into_iter()
            .collect()
    } else {
        command
    };
    if argv.is_empty() {
        return Err(CliError::usage("no command given and $SHELL is not set"));
    }
    let (cols, rows) = terminal_size().unwrap_or((80, 24));
    let reply = PaneServiceClient::new(channel.clone())
        .spawn_pane(pb::SpawnPaneRequest {
            workspace_id: ws.to_owned(),
            argv,
            cols: u32::from(cols),
            rows: u32::from(rows),
            ..Default::default()
        })
        .await?
        .into_inner();
    reply
        .pane
        .ok_or_else(|| CliError::local("the server's reply carried no pane"))
}

/// A path made absolute against the current directory (it need not exist).
fn absolute_path(path: &std::path::Path) -> CliResult<String> {
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| CliError::local(format!("cannot read the current directory: {e}")))?
            .join(path)
    };
    path.into_os_string()
        .into_string()
        .map_err(|p| CliError::usage(format!("path is not UTF-8: {}", p.to_string_lossy())))
}

/// The workspace given (named as everywhere: an id, a unique id prefix or name, or `-`; see
/// [`crate::resolve`]), else the open workspace whose directory contains the current directory
/// (the deepest one).
pub async fn resolve_workspace(
    ctx: &Ctx,
    conn: &signaltty_client::Client,
    given: Option<String>,
) -> CliResult<String> {
    if let Some(word) = given {
        return ctx
            .resolve(conn, crate::resolve::Kind::Workspace, Some(&word))
            .await;
    }
    let here = PathBuf::from(absolute_dir(None)?);
    let list = WorkspaceServiceClient::new(conn.channel())
        .list_workspaces(pb::ListWorkspacesRequest {})
        .await?
        .into_inner()
        .workspaces;
    list.iter()
        .filter(|w| here.starts_with(&w.cwd))
        .max_by_key(|w| w.cwd.len())
        .map(|w| w.id.clone())
        .ok_or_else(|| {
            CliError::usage(format!(
                "no open workspace contains {}; give one with --workspace (see `signaltty workspace list`)",
                here.display()
            ))
        })
}
