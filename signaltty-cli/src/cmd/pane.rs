//! `signaltty pane …`: spawn, split, list, get, rename, close, resize, signal, seen, resume,
//! respawn here; the I/O commands (send, read, wait) in [`super::pane_io`].

use std::collections::HashMap;
use std::path::PathBuf;

use crate::present::json::{self, JsonPane};
use clap::{ArgGroup, Args, Subcommand};
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use tonic::transport::Channel;

use super::pane_io::{self, ReadArgs, SendArgs, WaitArgs};
use super::screen_state::cursor_json;
use super::show::{print_pane, print_spawned};
use super::{Ctx, absolute_dir};
use crate::error::{CliError, CliResult};
use crate::human;
use crate::resolve::Kind;

/// `signaltty pane …`
#[derive(Debug, Args)]
pub struct PaneArgs {
    #[command(subcommand)]
    command: PaneCommand,
}

#[derive(Debug, Subcommand)]
enum PaneCommand {
    /// Start a process in a new pane (in a new tab unless --tab).
    Spawn(SpawnArgs),
    /// Split a pane and start a process in the new half.
    Split(SplitArgs),
    /// List panes with their status, lifecycle and attention.
    #[command(visible_alias = "ls")]
    List {
        /// Only this workspace's panes (an id, a unique id prefix or name, or `-`).
        #[arg(long, visible_alias = "ws", value_name = "WS")]
        workspace: Option<String>,
        /// Only this tab's panes (an id, a unique id prefix or title, or `-`).
        #[arg(long, value_name = "TAB")]
        tab: Option<String>,
        /// Show each pane's memory (RSS) and CPU time, of its whole process tree, and the sums
        /// per workspace.
        #[arg(long)]
        resources: bool,
    },
    /// Show one pane.
    Get {
        /// The pane: an id, a unique id prefix or title, or `-`/nothing for the last one used.
        pane: Option<String>,
    },
    /// Type text into a pane, followed by Enter.
    Send(SendArgs),
    /// Set a pane's terminal size: `pane resize PANE 120x40` (as `pane get` prints it) or
    /// `pane resize PANE 120 40`.
    Resize {
        /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
        pane: String,
        /// COLSxROWS, or the width in columns when ROWS follows.
        size: String,
        /// Height in rows (with a bare width).
        rows: Option<String>,
    },
    /// Send a signal (INT TERM KILL HUP QUIT WINCH USR1 USR2) to the pane's process.
    Signal {
        /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
        pane: String,
        /// The signal's name, e.g. INT or SIGTERM.
        signal: String,
        /// Signal the pane's whole process group.
        #[arg(long)]
        group: bool,
    },
    /// Set a pane's title.
    Rename {
        /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
        pane: String,
        /// The new title.
        title: String,
    },
    /// End a pane's process and remove the pane; with --exited, remove every pane whose
    /// process is gone (exited, or restored after a restart and not resumed).
    #[command(group(ArgGroup::new("which").required(true).args(["pane", "exited"])))]
    Close {
        /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
        pane: Option<String>,
        /// Every pane without a running process instead of one pane.
        #[arg(long)]
        exited: bool,
        /// With --exited: only this workspace's panes.
        #[arg(long, visible_alias = "ws", value_name = "WS", requires = "exited")]
        workspace: Option<String>,
    },
    /// Print a pane's screen (or scrollback) as text.
    Read(ReadArgs),
    /// Clear a pane's attention (a pending decision keeps its own).
    Seen {
        /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
        pane: String,
    },
    /// Re-spawn a restored pane from its agent's session (or its command with --respawn).
    Resume {
        /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
        pane: String,
        /// Start the pane's original command instead of resuming the agent session.
        #[arg(long)]
        respawn: bool,
    },
    /// Re-spawn a restored or exited pane from its original command (= resume --respawn).
    Respawn {
        /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
        pane: String,
    },
    /// Stop an idle agent's processes to free memory; its screen stays, and typing into it (or
    /// `pane send`, `pane wake`) resumes its session.
    Hibernate {
        /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
        pane: String,
    },
    /// Resume a hibernated agent's session in its pane.
    Wake {
        /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
        pane: String,
    },
    /// Wait until a pane reaches one of the given states.
    Wait(WaitArgs),
    /// Copy a pane's output to stdout as raw bytes until it exits (for a pipe or a file).
    Stream(super::stream::StreamArgs),
    /// Make a pane its tab's active pane (and its tab the workspace's active tab).
    Focus(super::arrange::PaneFocusArgs),
    /// Move a pane, still running, to another tab (--to-tab) or a new one (--new-tab).
    Move(super::arrange::PaneMoveArgs),
}

/// `signaltty pane spawn`
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("ws").required(true).args(["workspace", "workspace_flag"])))]
pub struct SpawnArgs {
    /// The workspace: an id, a unique id prefix or name, or `-` for the last one used.
    workspace: Option<String>,
    /// The workspace, as the other commands spell it (instead of WS).
    #[arg(long = "workspace", visible_alias = "ws", value_name = "WS")]
    workspace_flag: Option<String>,
    /// Put the pane in this tab (an id, a unique id prefix or title) [default: a new tab].
    #[arg(long)]
    tab: Option<String>,
    /// Terminal size, e.g. 120x40 [default: 80x24; clamped to 20–500 × 5–200].
    #[arg(long, value_name = "COLSxROWS", value_parser = super::size::parse_size)]
    size: Option<super::size::SizeArg>,
    #[command(flatten)]
    common: NewPaneArgs,
}

/// `signaltty pane split`
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("direction").required(true).args(["right", "down"])))]
pub struct SplitArgs {
    /// The pane to split: an id, a unique id prefix or title, or `-` for the last one used.
    pane: String,
    /// Put the new pane on the right.
    #[arg(long)]
    right: bool,
    /// Put the new pane below.
    #[arg(long)]
    down: bool,
    #[command(flatten)]
    common: NewPaneArgs,
}

/// What spawn and split share.
#[derive(Debug, Args)]
pub struct NewPaneArgs {
    /// Working directory [default: the workspace's (spawn) or the split pane's (split)].
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Title [default: the command's name until the program sets one].
    #[arg(long)]
    title: Option<String>,
    /// Extra environment for the process (repeatable).
    #[arg(long, value_name = "K=V", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// Do not install signaltty's hooks into a directly launched agent's configuration.
    #[arg(long)]
    skip_hook_install: bool,
    /// The command [default: the server's $SHELL].
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("expected K=V, got {text:?}")),
    }
}

impl NewPaneArgs {
    fn cwd(&self) -> CliResult<String> {
        match &self.cwd {
            Some(dir) => absolute_dir(Some(dir)),
            None => Ok(String::new()),
        }
    }

    fn env(&self) -> HashMap<String, String> {
        self.env.iter().cloned().collect()
    }
}

/// Runs `signaltty pane …`.
pub async fn cmd_pane(ctx: &Ctx, args: PaneArgs) -> CliResult {
    if let PaneCommand::Stream(args) = args.command {
        return super::stream::cmd_stream(ctx, args).await;
    }
    let conn = ctx.client().await?;
    let mut client = conn.panes();
    let pane_id = |word: String| {
        let conn = conn.clone();
        async move { ctx.resolve(&conn, Kind::Pane, Some(&word)).await }
    };
    match args.command {
        PaneCommand::Focus(args) => {
            super::arrange::cmd_pane_focus(ctx, &conn, &mut client, args).await
        }
        PaneCommand::Move(args) => {
            super::arrange::cmd_pane_move(ctx, &conn, &mut client, args).await
        }
        PaneCommand::Spawn(args) => {
            let word = args.workspace.as_deref().or(args.workspace_flag.as_deref());
            let workspace_id = ctx.resolve(&conn, Kind::Workspace, word).await?;
            let tab_id = match &args.tab {
                Some(tab) => ctx.resolve(&conn, Kind::Tab, Some(tab)).await?,
                None => String::new(),
            };
            let request = pb::SpawnPaneRequest {
                workspace_id,
                tab_id,
                argv: args.common.command.clone(),
                cwd: args.common.cwd()?,
                env: args.common.env(),
                cols: args.size.map_or(0, |s| s.cols),
                rows: args.size.map_or(0, |s| s.rows),
                title: args.common.title.clone().unwrap_or_default(),
                skip_hook_install: args.common.skip_hook_install,
            };
            let reply = client.spawn_pane(request).await?.into_inner();
            remember_new(ctx, reply.pane.as_ref());
            print_spawned(ctx, reply.pane.as_ref(), reply.tab.as_ref())
        }
        PaneCommand::Split(args) => {
            let direction = if args.down {
                pb::Direction::Down
            } else {
                pb::Direction::Right
            };
            let request = pb::SplitPaneRequest {
                pane_id: pane_id(args.pane).await?,
                direction: direction as i32,
                argv: args.common.command.clone(),
                cwd: args.common.cwd()?,
                env: args.common.env(),
                title: args.common.title.clone().unwrap_or_default(),
                skip_hook_install: args.common.skip_hook_install,
            };
            let reply = client.split_pane(request).await?.into_inner();
            remember_new(ctx, reply.pane.as_ref());
            print_spawned(ctx, reply.pane.as_ref(), reply.tab.as_ref())
        }
        PaneCommand::List {
            workspace,
            tab,
            resources,
        } => {
            let workspace_id = match &workspace {
                Some(ws) => ctx.resolve(&conn, Kind::Workspace, Some(ws)).await?,
                None => String::new(),
            };
            let tab_id = match &tab {
                Some(tab) => ctx.resolve(&conn, Kind::Tab, Some(tab)).await?,
                None => String::new(),
            };
            let request = pb::ListPanesRequest {
                workspace_id: workspace_id.clone(),
                tab_id,
            };
            let panes = client.list_panes(request).await?.into_inner().panes;
            if resources {
                let names = workspace_names(&conn).await?;
                return super::sleep::list_resources(
                    ctx,
                    &mut client,
                    &panes,
                    workspace_id,
                    &names,
                )
                .await;
            }
            if ctx.out.is_json() {
                return ctx.out.json(&json::list::<_, JsonPane>(&panes));
            }
            let names = workspace_names(&conn).await?;
            ctx.out
                .text(&human::pane_table_with_workspaces(&panes, &names))
        }
        PaneCommand::Get { pane } => {
            let pane = ctx.resolve(&conn, Kind::Pane, pane.as_deref()).await?;
            let reply = client
                .get_pane(pb::GetPaneRequest {
                    pane_id: pane.clone(),
                })
                .await?;
            let pane_record = reply
                .into_inner()
                .pane
                .ok_or_else(|| CliError::local("the server's reply carried no pane"))?;
            let screen = super::screen_state::screen_state(&conn, &pane).await;
            if ctx.out.is_json() {
                let mut value = serde_json::to_value(JsonPane::from(&pane_record))?;
                if let (Some(object), Some(screen)) = (value.as_object_mut(), &screen) {
                    object.insert("cursor".into(), cursor_json(screen));
                    object.insert("modes".into(), serde_json::json!(screen.modes));
                }
                return ctx.out.json(&value);
            }
            let shown = screen
                .as_ref()
                .map(|s| ((s.cursor_row, s.cursor_col), s.modes.as_slice()));
            ctx.out.text(&human::pane_details_with(&pane_record, shown))
        }
        PaneCommand::Send(mut args) => {
            args.pane = pane_id(args.pane).await?;
            let paste = pane_io::Typing::of_screen(
                super::screen_state::screen_state(&conn, &args.pane)
                    .await
                    .as_ref(),
            );
            pane_io::send(ctx, &mut client, args, paste).await
        }
        PaneCommand::Resize { pane, size, rows } => {
            let size =
                super::size::parse_size_words(&size, rows.as_deref()).map_err(CliError::usage)?;
            let pane = pane_id(pane).await?;
            let request = pb::ResizePaneRequest {
                pane_id: pane.clone(),
                cols: size.cols,
                rows: size.rows,
            };
            let reply = client.resize_pane(request).await?.into_inner();
            if ctx.out.is_json() {
                return ctx.out.json(&serde_json::json!({
                    "pane_id": pane, "cols": reply.cols, "rows": reply.rows,
                }));
            }
            ctx.out
                .line(format_args!("{pane} is {}x{}", reply.cols, reply.rows))
        }
        PaneCommand::Signal {
            pane,
            signal,
            group,
        } => {
            let pane = pane_id(pane).await?;
            let request = pb::SignalPaneRequest {
                pane_id: pane.clone(),
                signal: signal.clone(),
                group,
            };
            client.signal_pane(request).await?;
            if ctx.out.is_json() {
                return ctx.out.json(&serde_json::json!({
                    "pane_id": pane, "signal": signal, "group": group, "sent": true,
                }));
            }
            Ok(())
        }
        PaneCommand::Rename { pane, title } => {
            let reply = client
                .rename_pane(pb::RenamePaneRequest {
                    pane_id: pane_id(pane).await?,
                    title,
                })
                .await?;
            print_pane(ctx, reply.into_inner().pane)
        }
        PaneCommand::Close {
            pane: None,
            workspace,
            ..
        } => super::close_exited::close_exited(ctx, &conn, workspace).await,
        PaneCommand::Close {
            pane: Some(pane), ..
        } => {
            let pane = pane_id(pane).await?;
            let reply = client
                .close_pane(pb::ClosePaneRequest {
                    pane_id: pane.clone(),
                })
                .await?;
            let tab_closed = reply.into_inner().tab_closed;
            if ctx.out.is_json() {
                return ctx.out.json(&serde_json::json!({
                    "pane_id": pane, "closed": true, "tab_closed": tab_closed,
                }));
            }
            ctx.out.line(format_args!(
                "closed {pane}{}",
                if tab_closed {
                    " (its tab closed too)"
                } else {
                    ""
                }
            ))
        }
        PaneCommand::Read(args) => {
            let pane = ctx.resolve(&conn, Kind::Pane, args.pane.as_deref()).await?;
            let screen = if ctx.out.is_json() {
                super::screen_state::screen_state(&conn, &pane).await
            } else {
                None
            };
            pane_io::read(ctx, &mut client, pane, args, screen).await
        }
        PaneCommand::Seen { pane } => {
            let reply = client
                .mark_seen(pb::MarkSeenRequest {
                    pane_id: pane_id(pane).await?,
                })
                .await?;
            print_pane(ctx, reply.into_inner().pane)
        }
        PaneCommand::Resume { pane, respawn } => {
            resume(ctx, &mut client, pane_id(pane).await?, respawn).await
        }
        PaneCommand::Hibernate { pane } => {
            super::sleep::hibernate(ctx, &mut client, pane_id(pane).await?).await
        }
        PaneCommand::Wake { pane } => {
            super::sleep::wake(ctx, &mut client, pane_id(pane).await?).await
        }
        PaneCommand::Respawn { pane } => resume(ctx, &mut client, pane_id(pane).await?, true).await,
        PaneCommand::Wait(mut args) => {
            args.pane = pane_id(args.pane).await?;
            pane_io::wait(ctx, &mut client, args).await
        }
        // Handled before connecting (it needs no PaneService client of its own).
        PaneCommand::Stream(_) => Ok(()),
    }
}

async fn resume(
    ctx: &Ctx,
    client: &mut PaneServiceClient<Channel>,
    pane: String,
    respawn: bool,
) -> CliResult {
    let mode = if respawn {
        pb::ResumeMode::RespawnArgv
    } else {
        pb::ResumeMode::AgentSession
    };
    let reply = client
        .resume_pane(pb::ResumePaneRequest {
            pane_id: pane,
            mode: mode as i32,
        })
        .await?;
    print_pane(ctx, reply.into_inner().pane)
}

/// Remembers a new pane as the last used one.
fn remember_new(ctx: &Ctx, pane: Option<&pb::Pane>) {
    if let Some(pane) = pane {
        crate::resolve::remember_pane(&ctx.target, pane);
    }
}

/// Workspace names by id, for tables.
pub async fn workspace_names(
    conn: &signaltty_client::Client,
) -> CliResult<HashMap<String, String>> {
    Ok(conn
        .workspaces()
        .list_workspaces(pb::ListWorkspacesRequest {})
        .await?
        .into_inner()
        .workspaces
        .into_iter()
        .map(|w| (w.id, w.name))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn pane_command(args: &[&str]) -> Result<PaneCommand, clap::Error> {
        let cli = Cli::try_parse_from(["signaltty", "pane"].iter().chain(args))?;
        match cli.command {
            Command::Pane(p) => Ok(p.command),
            other => panic!("not a pane command: {other:?}"),
        }
    }

    #[test]
    fn spawn_takes_env_and_a_command_after_dashes() {
        let cmd = pane_command(&[
            "spawn", "ws_1", "--tab", "tab_1", "--env", "A=1", "--env", "B=x=y", "--", "sleep",
            "--help",
        ])
        .expect("valid");
        let PaneCommand::Spawn(args) = cmd else {
            panic!("spawn")
        };
        assert_eq!(args.workspace.as_deref(), Some("ws_1"));
        assert_eq!(args.tab.as_deref(), Some("tab_1"));
        assert_eq!(args.common.command, ["sleep", "--help"]);
        assert_eq!(args.common.env()["B"], "x=y");
    }

    #[test]
    fn spawn_refuses_a_bad_env_pair() {
        assert!(pane_command(&["spawn", "ws_1", "--env", "NOVALUE"]).is_err());
    }

    #[test]
    fn split_needs_exactly_one_direction() {
        assert!(pane_command(&["split", "pane_1"]).is_err());
        assert!(pane_command(&["split", "pane_1", "--right", "--down"]).is_err());
        let PaneCommand::Split(args) = pane_command(&["split", "pane_1", "--down"]).expect("valid")
        else {
            panic!("split")
        };
        assert!(args.down && !args.right);
    }

    #[test]
    fn respawn_and_resume_parse() {
        assert!(matches!(
            pane_command(&["resume", "pane_1", "--respawn"]),
            Ok(PaneCommand::Resume { respawn: true, .. })
        ));
        assert!(matches!(
            pane_command(&["respawn", "pane_1"]),
            Ok(PaneCommand::Respawn { .. })
        ));
    }
}
