//! `signaltty tab focus|move` and `signaltty pane focus|move`: where the user is, and where
//! panes and tabs go. The `tab` and `pane` command groups register these subcommands; the work
//! is here so that each group's file stays about its other commands. Every tab and pane they
//! take is resolved like everywhere else ([`crate::resolve`]): an id, a unique id prefix, a
//! unique title, or `-` for the last one used.

use clap::{ArgGroup, Args};
use serde::Serialize;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient;
use tonic::transport::Channel;

use super::Ctx;
use super::show::{JsonSpawned, print_tab};
use crate::error::{CliError, CliResult};
use crate::human;
use crate::present::json::{JsonPane, JsonTab, JsonWorkspace, non_empty};
use crate::resolve::{self, Kind};
use signaltty_client::Client;

/// `signaltty tab focus`
#[derive(Debug, Args)]
pub struct TabFocusArgs {
    /// The tab (an id, a unique id prefix or title, or `-` for the last one used); it becomes
    /// its workspace's active tab.
    tab: String,
}

/// `signaltty tab move`
#[derive(Debug, Args)]
pub struct TabMoveArgs {
    /// The tab: an id, a unique id prefix or title, or `-` for the last one used.
    tab: String,
    /// Its new 0-based position among its workspace's tabs.
    #[arg(long, value_name = "N")]
    index: u32,
}

/// `signaltty pane focus`
#[derive(Debug, Args)]
pub struct PaneFocusArgs {
    /// The pane (an id, a unique id prefix or title, or `-` for the last one used); it becomes
    /// its tab's active pane, and its tab the workspace's active tab.
    pane: String,
    /// Also clear the pane's attention, as `signaltty pane seen` does.
    #[arg(long)]
    seen: bool,
}

/// `signaltty pane move`
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("destination").required(true).args(["to_tab", "new_tab"])))]
pub struct PaneMoveArgs {
    /// The pane to move (its process keeps running): an id, a unique id prefix or title, or `-`
    /// for the last one used.
    pane: String,
    /// Move it into this tab (its own tab too, with --beside); an id, prefix or title.
    #[arg(long, value_name = "TAB")]
    to_tab: Option<String>,
    /// Move it into a new tab at the end of its workspace.
    #[arg(long)]
    new_tab: bool,
    /// Title of the new tab [default: "tab N"].
    #[arg(long, conflicts_with = "to_tab")]
    title: Option<String>,
    /// Split this pane of the destination tab (an id, prefix or title) [default: that tab's
    /// active pane].
    #[arg(long, value_name = "PANE", conflicts_with = "new_tab")]
    beside: Option<String>,
    /// Put the moved pane below the pane it splits [default: to its right].
    #[arg(long, conflicts_with = "new_tab")]
    down: bool,
}

impl PaneMoveArgs {
    /// The request, every word resolved to an id. The moved pane becomes the last used pane
    /// and the destination tab the last used tab; `--beside` is resolved without being
    /// remembered, so that `-` still means the pane that moved.
    async fn request(self, ctx: &Ctx, conn: &Client) -> CliResult<pb::MovePaneRequest> {
        use pb::move_pane_request::Destination;
        let pane_id = ctx.resolve(conn, Kind::Pane, Some(&self.pane)).await?;
        let destination = match self.to_tab {
            Some(tab) => Destination::TabId(ctx.resolve(conn, Kind::Tab, Some(&tab)).await?),
            None => Destination::NewTab(pb::NewTabDestination {
                title: self.title.unwrap_or_default(),
            }),
        };
        let direction = if self.down {
            pb::Direction::Down
        } else {
            pb::Direction::Right
        };
        let beside_pane_id = match &self.beside {
            Some(word) => resolve::resolve(conn, &ctx.target, Kind::Pane, Some(word)).await?,
            None => String::new(),
        };
        Ok(pb::MovePaneRequest {
            pane_id,
            destination: Some(destination),
            beside_pane_id,
            direction: direction as i32,
        })
    }
}

/// A moved pane as printed by `pane move --json`.
#[derive(Debug, Serialize)]
struct JsonMoved {
    pane: Option<JsonPane>,
    tab: Option<JsonTab>,
    /// The tab the pane left, when it was emptied and closed.
    closed_tab_id: Option<String>,
}

/// Runs `signaltty tab focus`.
pub async fn cmd_tab_focus(ctx: &Ctx, conn: &Client, args: TabFocusArgs) -> CliResult {
    let tab_id = ctx.resolve(conn, Kind::Tab, Some(&args.tab)).await?;
    let mut client = WorkspaceServiceClient::new(conn.channel());
    let reply = client
        .focus_tab(pb::FocusTabRequest { tab_id })
        .await?
        .into_inner();
    print_workspace(ctx, reply.workspace)
}

/// Runs `signaltty tab move`.
pub async fn cmd_tab_move(ctx: &Ctx, conn: &Client, args: TabMoveArgs) -> CliResult {
    let tab_id = ctx.resolve(conn, Kind::Tab, Some(&args.tab)).await?;
    let mut client = WorkspaceServiceClient::new(conn.channel());
    let reply = client
        .move_tab(pb::MoveTabRequest {
            tab_id,
            index: args.index,
        })
        .await?
        .into_inner();
    print_workspace(ctx, reply.workspace)
}

/// Runs `signaltty pane focus`.
pub async fn cmd_pane_focus(
    ctx: &Ctx,
    conn: &Client,
    client: &mut PaneServiceClient<Channel>,
    args: PaneFocusArgs,
) -> CliResult {
    let pane_id = ctx.resolve(conn, Kind::Pane, Some(&args.pane)).await?;
    let reply = client
        .focus_pane(pb::FocusPaneRequest {
            pane_id,
            mark_seen: args.seen,
        })
        .await?
        .into_inner();
    if ctx.out.is_json() {
        return ctx.out.json(&JsonSpawned {
            pane: reply.pane.as_ref().map(JsonPane::from),
            tab: reply.tab.as_ref().map(JsonTab::from),
        });
    }
    let tab = reply.tab.ok_or_else(no("tab"))?;
    print_tab(ctx, &tab)
}

/// Runs `signaltty pane move`.
pub async fn cmd_pane_move(
    ctx: &Ctx,
    conn: &Client,
    client: &mut PaneServiceClient<Channel>,
    args: PaneMoveArgs,
) -> CliResult {
    let request = args.request(ctx, conn).await?;
    let reply = client.move_pane(request).await?.into_inner();
    if ctx.out.is_json() {
        return ctx.out.json(&JsonMoved {
            pane: reply.pane.as_ref().map(JsonPane::from),
            tab: reply.tab.as_ref().map(JsonTab::from),
            closed_tab_id: non_empty(&reply.closed_tab_id),
        });
    }
    let tab = reply.tab.ok_or_else(no("tab"))?;
    if !reply.closed_tab_id.is_empty() {
        ctx.out.line(format_args!(
            "closed {} (its last pane moved)",
            reply.closed_tab_id
        ))?;
    }
    print_tab(ctx, &tab)
}

fn print_workspace(ctx: &Ctx, workspace: Option<pb::Workspace>) -> CliResult {
    let workspace = workspace.ok_or_else(no("workspace"))?;
    if ctx.out.is_json() {
        return ctx.out.json(&JsonWorkspace::from(&workspace));
    }
    ctx.out.text(&human::workspace_details(&workspace))
}

fn no(what: &'static str) -> impl FnOnce() -> CliError {
    move || CliError::local(format!("the server's reply carried no {what}"))
}

#[cfg(test)]
mod tests {
    use crate::cli::Cli;
    use clap::Parser;

    #[test]
    fn pane_move_needs_exactly_one_destination() {
        for argv in [
            &["signaltty", "pane", "move", "pane_a"][..],
            &[
                "signaltty",
                "pane",
                "move",
                "pane_a",
                "--to-tab",
                "tab_b",
                "--new-tab",
            ],
            &[
                "signaltty",
                "pane",
                "move",
                "pane_a",
                "--new-tab",
                "--beside",
                "pane_c",
            ],
            &[
                "signaltty",
                "pane",
                "move",
                "pane_a",
                "--to-tab",
                "t",
                "--title",
                "x",
            ],
        ] {
            let err = Cli::try_parse_from(argv).expect_err("usage error");
            assert_eq!(err.exit_code(), 2, "{argv:?}");
        }
        Cli::try_parse_from([
            "signaltty",
            "pane",
            "move",
            "pane_a",
            "--to-tab",
            "tab_b",
            "--beside",
            "pane_c",
            "--down",
        ])
        .expect("valid");
    }

    #[test]
    fn tab_move_needs_an_index() {
        let err = Cli::try_parse_from(["signaltty", "tab", "move", "tab_a"]).expect_err("index");
        assert_eq!(err.exit_code(), 2);
        Cli::try_parse_from(["signaltty", "tab", "move", "tab_a", "--index", "0"]).expect("valid");
    }
}
