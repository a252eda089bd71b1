//! `signaltty server start|stop|status`.
//!
//! `start` is idempotent (a server already answering is reported, not an error). `stop` and
//! `status` never start a server: with none running they exit 3 with "no server running on …".

use std::path::PathBuf;

use crate::present::json::JsonStatus;
use crate::present::text::compact_duration;
use clap::{Args, Subcommand};
use signaltty_client::connect::{self, STOP_TIMEOUT, Target};
use signaltty_client::{autostart, server_lock};
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::server_service_client::ServerServiceClient;

use super::Ctx;
use crate::error::{CliError, CliResult, ErrorKind};
use crate::table::key_values;

/// `signaltty server …`
#[derive(Debug, Args)]
pub struct ServerArgs {
    #[command(subcommand)]
    command: ServerCommand,
}

#[derive(Debug, Subcommand)]
enum ServerCommand {
    /// Start the server in the background (if none runs) and wait until it answers.
    Start {
        /// State directory for the server [default: $SIGNALTTY_STATE_DIR, else the server's
        /// own default].
        #[arg(long, value_name = "DIR")]
        state_dir: Option<PathBuf>,
    },
    /// Stop the server; refused while panes run unless --force.
    Stop {
        /// Stop even though panes run: they are hung up like a closing terminal, and come back
        /// without a process at the next start (`pane resume` restarts one, `pane close
        /// --exited` removes them).
        #[arg(long)]
        force: bool,
    },
    /// Show the server's version, uptime and counts.
    Status,
}

/// Runs `signaltty server …`.
pub async fn cmd_server(ctx: &Ctx, args: ServerArgs) -> CliResult {
    match args.command {
        ServerCommand::Start { state_dir } => start(ctx, state_dir).await,
        ServerCommand::Stop { force } => stop(ctx, force).await,
        ServerCommand::Status => status(ctx).await,
    }
}

async fn start(ctx: &Ctx, state_dir: Option<PathBuf>) -> CliResult {
    match ctx.existing_client().await {
        Ok(client) => {
            let status = client.status().await?;
            return print_start(ctx, &status, "already running");
        }
        // Only "nobody answers" means a server should be started; an untrusted socket is
        // reported as it is.
        Err(err) if err.kind == ErrorKind::NoServer => {}
        Err(err) => return Err(err),
    }
    let target = Target {
        state_dir: state_dir
            .map(|d| connect::absolute(&d))
            .or_else(|| ctx.target.state_dir.clone()),
        ..ctx.target.clone()
    };
    let status = autostart::start_server(&target).await?;
    print_start(ctx, &status, "started")
}

fn print_start(ctx: &Ctx, status: &pb::GetStatusResponse, what: &str) -> CliResult {
    if ctx.out.is_json() {
        return ctx.out.json(&JsonStatus::from(status));
    }
    ctx.out.line(format_args!(
        "server {what} on {} (pid {}, version {})",
        ctx.target.socket.display(),
        status.pid,
        status.version
    ))
}

async fn stop(ctx: &Ctx, force: bool) -> CliResult {
    let conn = ctx.existing_client().await?;
    let pid = conn.status().await?.pid;
    let mut client = ServerServiceClient::new(conn.channel());
    drop(conn);
    let reply = client
        .shutdown(pb::ShutdownRequest { force })
        .await?
        .into_inner();
    // Our own connection would hold up the server's graceful stop.
    drop(client);
    // Shutdown answers just before the server stops listening; wait until the server is out of
    // the way (its lock free, or its process gone), so that a following command (or `server
    // start`) neither finds the old one answering nor starts one that the old one's lock refuses.
    if !server_lock::wait_until_stopped(&ctx.target.socket, pid, STOP_TIMEOUT).await {
        return Err(CliError::with_reason(
            ErrorKind::Local,
            format!(
                "the server accepted the shutdown but still answers on {} after {}s",
                ctx.target.socket.display(),
                STOP_TIMEOUT.as_secs()
            ),
            "TIMEOUT",
        ));
    }
    if ctx.out.is_json() {
        return ctx.out.json(&serde_json::json!({
            "stopped": true,
            "hung_up_panes": reply.hung_up_panes,
        }));
    }
    match reply.hung_up_panes {
        0 => ctx.out.line("server stopped"),
        n => ctx.out.line(format_args!(
            "server stopped ({n} live panes hung up). They were saved: at the next start they \
             are back without a process, screen and scrollback kept; `signaltty pane resume \
             PANE` restarts one (an agent resumes its session), `signaltty pane close --exited` \
             removes them all."
        )),
    }
}

async fn status(ctx: &Ctx) -> CliResult {
    let status = ctx.existing_client().await?.status().await?;
    if ctx.out.is_json() {
        return ctx.out.json(&JsonStatus::from(&status));
    }
    ctx.out.text(&key_values(&[
        ("version", status.version.clone()),
        ("pid", status.pid.to_string()),
        ("uptime", compact_duration(status.uptime_seconds)),
        ("socket", status.socket_path.clone()),
        ("state dir", status.state_dir.clone()),
        ("workspaces", status.workspace_count.to_string()),
        ("tabs", status.tab_count.to_string()),
        (
            "panes",
            format!("{} ({} live)", status.pane_count, status.live_pane_count),
        ),
        ("head seq", status.head_seq.to_string()),
        (
            "descriptors",
            format!(
                "{} of {} in use; about {} more panes fit",
                status.open_fds, status.fd_limit, status.panes_that_fit
            ),
        ),
    ]))
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Command};
    use clap::Parser;

    #[test]
    fn stop_takes_force() {
        let cli = Cli::try_parse_from(["signaltty", "server", "stop", "--force"]).expect("valid");
        let Command::Server(args) = cli.command else {
            panic!("server command")
        };
        assert!(matches!(
            args.command,
            super::ServerCommand::Stop { force: true }
        ));
    }
}
