//! `signaltty integration install|uninstall|status [claude|codex|opencode|cursor|all] [--home
//! DIR]`: signaltty's hooks in the agents' own configuration files. The server does the writing
//! (it owns the installer); this prints its per-agent report and exits 1 when any agent failed.

use std::path::PathBuf;

use crate::present::json::{self, JsonHookReport};
use crate::present::names::name;
use clap::{Args, Subcommand, ValueEnum};
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::agent_service_client::AgentServiceClient;

use super::{Ctx, absolute_dir};
use crate::error::{CliError, CliResult, ErrorKind};
use crate::table::Table;

/// `signaltty integration …`
#[derive(Debug, Args)]
pub struct IntegrationArgs {
    #[command(subcommand)]
    command: IntegrationCommand,
}

#[derive(Debug, Subcommand)]
enum IntegrationCommand {
    /// Add signaltty's hooks, keeping every other entry.
    Install(Which),
    /// Remove only what signaltty added.
    Uninstall(Which),
    /// Show whether the hooks are installed.
    Status(Which),
}

#[derive(Debug, Args)]
struct Which {
    /// Which agent.
    #[arg(value_enum, default_value_t = AgentChoice::All)]
    agent: AgentChoice,
    /// Home directory whose configuration to use [default: the server user's home].
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
}

/// An agent on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentChoice {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// OpenCode.
    Opencode,
    /// Cursor's agent CLI.
    Cursor,
    /// Every supported agent.
    All,
}

impl AgentChoice {
    /// The agents to name in the request (empty means all).
    pub fn kinds(self) -> Vec<i32> {
        let kind = match self {
            AgentChoice::Claude => pb::AgentKind::Claude,
            AgentChoice::Codex => pb::AgentKind::Codex,
            AgentChoice::Opencode => pb::AgentKind::Opencode,
            AgentChoice::Cursor => pb::AgentKind::Cursor,
            AgentChoice::All => return Vec::new(),
        };
        vec![kind as i32]
    }
}

/// Runs `signaltty integration …`.
pub async fn cmd_integration(ctx: &Ctx, args: IntegrationArgs) -> CliResult {
    let mut client = AgentServiceClient::new(ctx.channel().await?);
    let home = |which: &Which| match &which.home {
        Some(dir) => absolute_dir(Some(dir)),
        None => Ok(String::new()),
    };
    let reports = match args.command {
        IntegrationCommand::Install(which) => {
            let request = pb::InstallHooksRequest {
                agents: which.agent.kinds(),
                home: home(&which)?,
                uninstall: false,
            };
            client.install_hooks(request).await?.into_inner().reports
        }
        IntegrationCommand::Uninstall(which) => {
            let request = pb::InstallHooksRequest {
                agents: which.agent.kinds(),
                home: home(&which)?,
                uninstall: true,
            };
            client.install_hooks(request).await?.into_inner().reports
        }
        IntegrationCommand::Status(which) => {
            let request = pb::HookStatusRequest {
                agents: which.agent.kinds(),
                home: home(&which)?,
            };
            client.hook_status(request).await?.into_inner().reports
        }
    };
    if ctx.out.is_json() {
        ctx.out.json(&json::list::<_, JsonHookReport>(&reports))?;
    } else {
        let mut table = Table::new(&["AGENT", "STATE", "CHANGED", "PATH", "ERROR"]);
        for r in &reports {
            table.row([
                name::<pb::AgentKind>(r.agent),
                name::<pb::HookState>(r.state),
                if r.changed { "yes" } else { "no" }.to_string(),
                r.path.clone(),
                r.error.clone(),
            ]);
        }
        ctx.out.text(&table.render())?;
    }
    let failed: Vec<String> = reports
        .iter()
        .filter(|r| !r.error.is_empty())
        .map(|r| name::<pb::AgentKind>(r.agent))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::with_reason(
            ErrorKind::Server,
            format!("hooks could not be handled for: {}", failed.join(", ")),
            "HOOK_ERROR",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    #[test]
    fn the_agent_defaults_to_all() {
        let cli = Cli::try_parse_from(["signaltty", "integration", "status", "--home", "/h"])
            .expect("valid");
        let Command::Integration(args) = cli.command else {
            panic!("integration")
        };
        let IntegrationCommand::Status(which) = args.command else {
            panic!("status")
        };
        assert_eq!(which.agent, AgentChoice::All);
        assert!(which.agent.kinds().is_empty());
        assert_eq!(AgentChoice::Codex.kinds(), [pb::AgentKind::Codex as i32]);
    }
}
