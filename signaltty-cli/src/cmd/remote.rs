//! `signaltty remote add|list|remove`: other machines whose server this CLI reaches over ssh,
//! kept as `[remotes.NAME]` in the user's config file (see `signaltty_config::remotes`), and the
//! lookup behind the global `--remote NAME`.

use std::path::Path;

use clap::{Args, Subcommand};
use serde::Serialize;
use signaltty_client::remote::Remote;
use signaltty_config::RemoteConfig;
use signaltty_config::remotes::DEFAULT_COMMAND;
use signaltty_proto::v1::MachineState;

use super::Ctx;
use crate::error::{CliError, CliResult};
use crate::present::text::compact_duration;
use crate::table::Table;

/// `signaltty remote`
#[derive(Debug, Args)]
pub struct RemoteArgs {
    #[command(subcommand)]
    command: RemoteCommand,
}

#[derive(Debug, Subcommand)]
enum RemoteCommand {
    /// Add a machine reached with `ssh [OPTIONS] HOST <command> bridge`.
    Add {
        /// A short name for it (letters, digits, '-', '_'): `--remote NAME`, `NAME:ws/tab`.
        name: String,
        /// `[user@]host` as ssh takes it (an alias from ~/.ssh/config works).
        host: String,
        /// An extra ssh argument (repeat for each: `--ssh-option=-p --ssh-option=2222`).
        #[arg(long = "ssh-option", value_name = "OPT", allow_hyphen_values = true)]
        ssh_options: Vec<String>,
        /// How signaltty is run on that machine: a path, or e.g. `env SIGNALTTY_SOCKET=… signaltty`.
        #[arg(long, value_name = "PATH", default_value = DEFAULT_COMMAND)]
        command: String,
    },
    /// List the remotes and the local server's link to each (it dials those not up yet).
    #[command(visible_alias = "ls")]
    List,
    /// Remove a remote from the config file (its server and panes are left alone).
    #[command(visible_alias = "rm")]
    Remove {
        /// The remote's name.
        name: String,
    },
}

/// Runs `signaltty remote …`.
pub async fn cmd_remote(ctx: &Ctx, args: RemoteArgs) -> CliResult {
    let path = signaltty_config::default_path();
    match args.command {
        RemoteCommand::Add {
            name,
            host,
            ssh_options,
            command,
        } => {
            let remote = RemoteConfig {
                host,
                ssh_options,
                command: (command != DEFAULT_COMMAND).then_some(command),
            };
            signaltty_config::remotes::add(&path, &name, &remote).map_err(CliError::usage)?;
            if ctx.out.is_json() {
                ctx.out
                    .json(&serde_json::json!({ "name": name, "remote": remote, "config": path }))
            } else {
                ctx.out
                    .line(format_args!("added remote {name} to {}", path.display()))
            }
        }
        RemoteCommand::Remove { name } => {
            signaltty_config::remotes::remove(&path, &name).map_err(CliError::usage)?;
            if ctx.out.is_json() {
                ctx.out.json(&serde_json::json!({ "removed": name }))
            } else {
                ctx.out.line(format_args!("removed remote {name}"))
            }
        }
        RemoteCommand::List => list(ctx).await,
    }
}

#[derive(Serialize)]
struct Row {
    name: String,
    host: String,
    command: String,
    ssh_options: Vec<String>,
    /// The local server's link to it is up.
    reachable: bool,
    /// `idle`, `connecting`, `connected`, `reconnecting` or `failed` (`ListMachines`).
    state: String,
    /// The stable reason the link is down, empty when up.
    reason: String,
    /// The server's version when reachable, else why not.
    detail: String,
}

/// The remotes as the local server sees them: `ListMachines { connect }` dials each remote not
/// up yet (through the server's shared links, the ones calls with `signaltty-machine` use) and
/// waits for those dials.
async fn list(ctx: &Ctx) -> CliResult {
    let configured = all(&ctx.target.socket)?;
    let client = ctx.client().await?;
    let machines = client
        .server()
        .list_machines(signaltty_proto::v1::ListMachinesRequest { connect: true })
        .await
        .map_err(signaltty_client::ClientError::from)?
        .into_inner()
        .machines;
    let mut rows = Vec::new();
    for remote in configured {
        let seen = machines.iter().find(|m| m.name == remote.name);
        let state = seen.map_or(MachineState::Unspecified, |m| m.state());
        let detail = match (state, seen) {
            (MachineState::Connected, Some(m)) => format!("server {}", m.server_version),
            (_, Some(m)) if !m.detail.is_empty() => {
                format!("{} (next try {})", m.detail, next_try(&m.next_try_at))
            }
            _ => "not dialled".to_owned(),
        };
        rows.push(Row {
            name: remote.name,
            host: remote.host,
            command: remote.command,
            ssh_options: remote.ssh_options,
            reachable: state == MachineState::Connected,
            state: state_name(state).to_owned(),
            reason: seen.map(|m| m.reason.clone()).unwrap_or_default(),
            detail,
        });
    }
    if ctx.out.is_json() {
        return ctx.out.json(&rows);
    }
    if rows.is_empty() {
        return ctx
            .out
            .line("no remotes (add one with `signaltty remote add NAME [user@]host`)");
    }
    let mut table = Table::new(&["NAME", "HOST", "STATE", "DETAIL"]).max_width(3, 100);
    for row in rows {
        table.row([row.name, row.host, row.state, row.detail]);
    }
    ctx.out.text(&table.render())
}

/// A link state as `remote list` shows it.
fn state_name(state: MachineState) -> &'static str {
    match state {
        MachineState::Idle | MachineState::Unspecified => "idle",
        MachineState::Connecting => "connecting",
        MachineState::Connected => "connected",
        MachineState::Reconnecting => "reconnecting",
        MachineState::Failed => "failed",
    }
}

/// "in 12s" (or "now" when due).
fn next_try(at: &Option<prost_types::Timestamp>) -> String {
    let due = at
        .and_then(|t| std::time::SystemTime::try_from(t).ok())
        .and_then(|t| t.duration_since(std::time::SystemTime::now()).ok());
    match due {
        Some(left) if left.as_secs() > 0 => format!("in {}", compact_duration(left.as_secs())),
        _ => "now".to_owned(),
    }
}

/// Every configured remote, by name; their ssh connections are shared through a control
/// socket beside the local server's socket `local` (see `Remote::control_dir`).
pub fn all(local: &Path) -> CliResult<Vec<Remote>> {
    let control_dir = signaltty_client::trust::socket_dir(local);
    let loaded = signaltty_config::load_located(None)
        .map_err(|problems| CliError::usage(problems.to_string()))?;
    Ok(loaded
        .config
        .remotes
        .into_iter()
        .map(|(name, r)| Remote {
            name,
            host: r.host,
            ssh_options: r.ssh_options,
            command: r.command.unwrap_or_else(|| DEFAULT_COMMAND.to_owned()),
            control_dir: Some(control_dir.clone()),
        })
        .collect())
}

/// The remote named `name` in the config file, or a usage error listing the known ones.
pub fn find(name: &str, local: &Path) -> CliResult<Remote> {
    let all = all(local)?;
    let known: Vec<String> = all.iter().map(|r| r.name.clone()).collect();
    all.into_iter().find(|r| r.name == name).ok_or_else(|| {
        CliError::usage(format!(
            "no remote named {name:?} (known: {}; add one with `signaltty remote add {name} \
             [user@]host`)",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ))
    })
}
