//! `signaltty tab list|create|rename|close|set-layout|set-ratio|focus|move`.
//!
//! `set-layout` reads the layout JSON format of [`crate::present::layout`] from
//! `--file` or stdin; `set-ratio` addresses a split by its path from the root (`--path first,second`; no path means
//! the root split).

use std::io::Read;
use std::path::PathBuf;

use crate::present::json::JsonTab;
use crate::present::layout as layout_json;
use clap::{Args, Subcommand};
use signaltty_proto::v1 as pb;

use super::Ctx;
use super::show::print_tab;
use crate::error::{CliError, CliResult};
use crate::human;

/// `signaltty tab …`
#[derive(Debug, Args)]
pub struct TabArgs {
    #[command(subcommand)]
    command: TabCommand,
}

#[derive(Debug, Subcommand)]
enum TabCommand {
    /// List tabs (of one workspace, or of all), in their workspace's order.
    #[command(visible_alias = "ls")]
    List {
        /// Only this workspace's tabs (an id, a unique id prefix or name, or `-`).
        #[arg(long, visible_alias = "ws", value_name = "WS")]
        workspace: Option<String>,
    },
    /// Add an empty tab to a workspace.
    #[command(group(clap::ArgGroup::new("ws").required(true).args(["workspace", "workspace_flag"])))]
    Create {
        /// The workspace: an id, a unique id prefix or name, or `-` for the last one used.
        workspace: Option<String>,
        /// The workspace, as the other commands spell it (instead of WS).
        #[arg(long = "workspace", visible_alias = "ws", value_name = "WS")]
        workspace_flag: Option<String>,
        /// Title [default: "tab N"].
        #[arg(long)]
        title: Option<String>,
    },
    /// Rename a tab.
    Rename {
        /// The tab: an id, a unique id prefix or title, or `-` for the last one used.
        tab: String,
        /// The new title.
        title: String,
    },
    /// Close a tab and end every pane in it.
    Close {
        /// The tab: an id, a unique id prefix or title, or `-` for the last one used.
        tab: String,
    },
    /// Replace a tab's layout with a JSON tree from --file or stdin, e.g.
    /// {"split":{"direction":"right","ratio":0.5,"first":{"pane":"pane_a"},"second":{"pane":"pane_b"}}}
    SetLayout {
        /// The tab: an id, a unique id prefix or title, or `-` for the last one used.
        tab: String,
        /// Read the layout from this file instead of stdin.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// Move one divider: the split at --path gets RATIO (clamped to 0.05–0.95).
    SetRatio {
        /// The tab: an id, a unique id prefix or title, or `-` for the last one used.
        tab: String,
        /// Steps from the root to the split, comma-separated first/second [default: the root].
        #[arg(long, value_name = "STEPS", value_parser = parse_path)]
        path: Option<SplitPath>,
        /// The share of the split's first part.
        #[arg(allow_negative_numbers = true)]
        ratio: f32,
    },
    /// Make a tab its workspace's active tab.
    Focus(super::arrange::TabFocusArgs),
    /// Move a tab to another position in its workspace: --index N (0-based).
    Move(super::arrange::TabMoveArgs),
}

/// Steps from a layout's root to one of its splits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitPath(pub Vec<pb::PathStep>);

/// Parses `first,second,…` (also `f`/`s`, `0`/`1`); an empty string is the root.
pub fn parse_path(text: &str) -> Result<SplitPath, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|step| match step.to_ascii_lowercase().as_str() {
            "first" | "f" | "0" => Ok(pb::PathStep::First),
            "second" | "s" | "1" => Ok(pb::PathStep::Second),
            other => Err(format!("bad path step {other:?}: expected first or second")),
        })
        .collect::<Result<_, _>>()
        .map(SplitPath)
}

/// Runs `signaltty tab …`.
pub async fn cmd_tab(ctx: &Ctx, args: TabArgs) -> CliResult {
    // Read the layout before connecting: a bad file is a usage error and should not start a
    // server.
    let layout = match &args.command {
        TabCommand::SetLayout { file, .. } => Some(read_layout(file.as_deref())?),
        _ => None,
    };
    let conn = ctx.client().await?;
    let mut client = conn.tabs();
    let mut command = args.command;
    match &mut command {
        TabCommand::Create {
            workspace,
            workspace_flag,
            ..
        } => {
            let word = workspace.take().or(workspace_flag.take());
            *workspace = Some(
                ctx.resolve(&conn, crate::resolve::Kind::Workspace, word.as_deref())
                    .await?,
            );
        }
        TabCommand::Rename { tab, .. }
        | TabCommand::Close { tab }
        | TabCommand::SetLayout { tab, .. }
        | TabCommand::SetRatio { tab, .. } => {
            *tab = ctx
                .resolve(&conn, crate::resolve::Kind::Tab, Some(tab))
                .await?;
        }
        TabCommand::List { workspace } => {
            if let Some(word) = workspace.take() {
                *workspace = Some(
                    ctx.resolve(&conn, crate::resolve::Kind::Workspace, Some(&word))
                        .await?,
                );
            }
        }
        // `tab focus` and `tab move` resolve their tab in `arrange`.
        TabCommand::Focus(_) | TabCommand::Move(_) => {}
    }
    let tab = match command {
        TabCommand::Focus(args) => return super::arrange::cmd_tab_focus(ctx, &conn, args).await,
        TabCommand::Move(args) => return super::arrange::cmd_tab_move(ctx, &conn, args).await,
        TabCommand::List { workspace } => return list(ctx, &conn, workspace).await,
        TabCommand::Create {
            workspace, title, ..
        } => {
            client
                .create_tab(pb::CreateTabRequest {
                    workspace_id: workspace.unwrap_or_default(),
                    title: title.unwrap_or_default(),
                })
                .await?
                .into_inner()
                .tab
        }
        TabCommand::Rename { tab, title } => {
            client
                .rename_tab(pb::RenameTabRequest { tab_id: tab, title })
                .await?
                .into_inner()
                .tab
        }
        TabCommand::Close { tab } => {
            let reply = client
                .close_tab(pb::CloseTabRequest {
                    tab_id: tab.clone(),
                })
                .await?;
            let closed = reply.into_inner().closed_pane_ids;
            if ctx.out.is_json() {
                return ctx.out.json(&serde_json::json!({
                    "tab_id": tab,
                    "closed_pane_ids": closed,
                }));
            }
            return ctx
                .out
                .line(format_args!("closed {tab} ({} panes ended)", closed.len()));
        }
        TabCommand::SetLayout { tab, .. } => {
            client
                .set_layout(pb::SetLayoutRequest {
                    tab_id: tab,
                    // The flat form: a nested tree deeper than ~45 splits is refused by the
                    // server's decoder.
                    flat_layout: layout.as_ref().map(signaltty_client::layout_tree::flatten),
                    ..Default::default()
                })
                .await?
                .into_inner()
                .tab
        }
        TabCommand::SetRatio { tab, path, ratio } => {
            client
                .set_ratio(pb::SetRatioRequest {
                    tab_id: tab,
                    path: path
                        .map(|p| p.0)
                        .unwrap_or_default()
                        .into_iter()
                        .map(|s| s as i32)
                        .collect(),
                    ratio,
                })
                .await?
                .into_inner()
                .tab
        }
    };
    let tab = tab.ok_or_else(|| CliError::local("the server's reply carried no tab"))?;
    print_tab(ctx, &tab)
}

/// `tab list`: the tabs of `workspace` (an id), else of every workspace.
async fn list(ctx: &Ctx, conn: &signaltty_client::Client, workspace: Option<String>) -> CliResult {
    let ids = match workspace {
        Some(id) => vec![id],
        None => conn
            .workspaces()
            .list_workspaces(pb::ListWorkspacesRequest {})
            .await?
            .into_inner()
            .workspaces
            .into_iter()
            .map(|w| w.id)
            .collect(),
    };
    let mut tabs = Vec::new();
    for workspace_id in ids {
        let got = conn
            .workspaces()
            .get_workspace(pb::GetWorkspaceRequest { workspace_id })
            .await?
            .into_inner();
        tabs.extend(got.tabs);
    }
    if ctx.out.is_json() {
        return ctx
            .out
            .json(&crate::present::json::list::<_, JsonTab>(&tabs));
    }
    ctx.out.text(&human::tab_table(&tabs))
}

fn read_layout(file: Option<&std::path::Path>) -> CliResult<pb::Layout> {
    let text = match file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?,
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| CliError::usage(format!("cannot read the layout from stdin: {e}")))?;
            text
        }
    };
    let layout =
        layout_json::parse(&text).map_err(|e| CliError::usage(format!("bad layout JSON: {e}")))?;
    Ok(layout.to_proto())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    #[test]
    fn paths_parse_steps_and_the_root() {
        assert_eq!(
            parse_path("first,second"),
            Ok(SplitPath(vec![pb::PathStep::First, pb::PathStep::Second]))
        );
        assert_eq!(
            parse_path("s,0"),
            Ok(SplitPath(vec![pb::PathStep::Second, pb::PathStep::First]))
        );
        assert_eq!(parse_path(""), Ok(SplitPath(vec![])));
        assert!(parse_path("left").is_err());
    }

    #[test]
    fn set_ratio_takes_path_and_ratio() {
        let cli = Cli::try_parse_from([
            "signaltty",
            "tab",
            "set-ratio",
            "tab_1",
            "--path",
            "first,second",
            "0.3",
        ])
        .expect("valid");
        let Command::Tab(TabArgs {
            command: TabCommand::SetRatio { tab, path, ratio },
        }) = cli.command
        else {
            panic!("tab set-ratio")
        };
        assert_eq!(tab, "tab_1");
        assert_eq!(
            path,
            Some(SplitPath(vec![pb::PathStep::First, pb::PathStep::Second]))
        );
        assert_eq!(ratio, 0.3);
    }

    #[test]
    fn set_ratio_without_ratio_is_a_usage_error() {
        let err = Cli::try_parse_from(["signaltty", "tab", "set-ratio", "tab_1"])
            .expect_err("ratio required");
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn set_layout_reads_a_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("layout.json");
        std::fs::write(&path, r#"{"pane":"pane_a"}"#).expect("write");
        let layout = read_layout(Some(&path)).expect("valid layout");
        assert_eq!(layout.node, Some(pb::layout::Node::PaneId("pane_a".into())));
        std::fs::write(&path, "{").expect("write");
        let err = read_layout(Some(&path)).expect_err("bad JSON");
        assert_eq!(err.exit_code(), 2);
    }
}
