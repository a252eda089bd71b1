//! The command line: one clap derive enum listing every command, the global flags, and the
//! dispatch from a parsed [`Cli`] to the `cmd_xxx` function of its command group.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use signaltty_client::Target;

use crate::cmd::{self, Ctx};
use crate::error::CliResult;
use crate::output::{Format, Output};

/// A terminal multiplexer server for AI coding agents and shells.
///
/// Any command except `server stop`, `server status` and `hook-event` starts the server in the
/// background when none answers on the socket.
#[derive(Debug, Parser)]
#[command(name = "signaltty", version, propagate_version = true)]
pub struct Cli {
    /// The server's Unix socket [default: $SIGNALTTY_SOCKET, else
    /// $XDG_RUNTIME_DIR/signaltty/signaltty.sock, else /tmp/signaltty-$UID/signaltty.sock].
    #[arg(long, global = true, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Talk to the server of this remote machine (see `signaltty remote`) over ssh.
    #[arg(long, global = true, value_name = "NAME")]
    pub remote: Option<String>,
    /// Print machine-readable JSON on stdout instead of tables.
    #[arg(long, global = true)]
    pub json: bool,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Every command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start, stop or inspect the server.
    Server(cmd::server::ServerArgs),
    /// Manage workspaces (one per project or task).
    #[command(visible_alias = "ws")]
    Workspace(cmd::workspace::WorkspaceArgs),
    /// Manage tabs and their split layouts.
    Tab(cmd::tab::TabArgs),
    /// Manage panes: spawn, split, type into, read, wait for.
    Pane(cmd::pane::PaneArgs),
    /// Follow the server's event stream.
    Events(cmd::events::EventsArgs),
    /// Open a workspace for a directory with one pane, and attach to it (reuses the
    /// directory's open workspace unless --new).
    New(cmd::new::NewArgs),
    /// List workspaces, their tabs and panes as a tree, with status.
    Ls(cmd::ls::LsArgs),
    /// Attach this terminal to a pane (detach with Ctrl-\).
    ///
    /// The terminal goes raw and shows the pane; what you type goes to the pane. Press the
    /// detach key (Ctrl-\ by default; change it with --detach-key, e.g. `--detach-key C-a` or
    /// `--detach-key 0x1d`) to leave: the pane's process keeps running. The attach also ends
    /// when the pane's process exits, the server goes away, or on SIGTERM/SIGHUP; the terminal
    /// is restored in every case.
    Attach(cmd::attach::AttachArgs),
    /// Report an agent hook call (run by the agents' hooks; always exits 0).
    HookEvent(cmd::hook_event::HookEventArgs),
    /// Raise a notification.
    Notify(cmd::notify::NotifyArgs),
    /// List notifications.
    Notifications(cmd::notify::NotificationsArgs),
    /// Mark notifications read.
    MarkRead(cmd::notify::MarkReadArgs),
    /// Show the pane that most needs you.
    NextUnread(cmd::notify::NextUnreadArgs),
    /// List and answer agents' permission requests.
    Decision(cmd::decision::DecisionArgs),
    /// Install, remove or check signaltty's hooks in the agents' configuration.
    Integration(cmd::integration::IntegrationArgs),
    /// Check the config file (`$XDG_CONFIG_HOME/signaltty/config.toml`).
    Config(cmd::config::ConfigArgs),
    /// Print a shell completion script (e.g. `signaltty completions bash > ~/.local/share/bash-completion/completions/signaltty`).
    Completions(cmd::completions::CompletionsArgs),
    /// Print the man page, or write one page per command with --dir.
    Man(cmd::completions::ManArgs),
    /// Git worktrees of a workspace's repository: one checkout per agent.
    #[command(visible_alias = "wt")]
    Worktree(cmd::worktree::WorktreeArgs),
    /// Show what a workspace's checkout changed against HEAD.
    Diff(cmd::diff::DiffArgs),
    /// Race agents: one task to several agents on worktrees of their own; compare, review, keep one.
    Race(cmd::race::RaceArgs),
    /// The remote end of an ssh link to this machine's server (run by `ssh host signaltty
    /// bridge`; see `signaltty remote`).
    Bridge(cmd::bridge::BridgeArgs),
    /// Other machines reached over ssh: add, list (with reachability), remove.
    Remote(cmd::remote::RemoteArgs),
    /// Serve the web client (the page and the API as gRPC-web) for a browser or a phone.
    Web(cmd::web::WebArgs),
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> CliResult {
    let mut target = Target::resolve(cli.socket.as_deref());
    let remote = match &cli.remote {
        Some(name) => Some(cmd::remote::find(name, &target.socket)?),
        None => None,
    };
    if let Some(remote) = &remote {
        // The CLI's "last used" ids are kept per socket: a remote's are its own.
        target.socket = PathBuf::from(format!("ssh:{}", remote.name));
    }
    let ctx = Ctx {
        remote,
        target,
        out: Output::new(if cli.json {
            Format::Json
        } else {
            Format::Human
        }),
    };
    match cli.command {
        Command::Server(args) => cmd::server::cmd_server(&ctx, args).await,
        Command::Workspace(args) => cmd::workspace::cmd_workspace(&ctx, args).await,
        Command::Tab(args) => cmd::tab::cmd_tab(&ctx, args).await,
        Command::Pane(args) => cmd::pane::cmd_pane(&ctx, args).await,
        Command::Events(args) => cmd::events::cmd_events(&ctx, args).await,
        Command::New(args) => cmd::new::cmd_new(&ctx, args).await,
        Command::Ls(args) => cmd::ls::cmd_ls(&ctx, args).await,
        Command::Attach(args) => cmd::attach::cmd_attach(&ctx, args).await,
        Command::HookEvent(args) => cmd::hook_event::cmd_hook_event(&ctx, args).await,
        Command::Notify(args) => cmd::notify::cmd_notify(&ctx, args).await,
        Command::Notifications(args) => cmd::notify::cmd_notifications(&ctx, args).await,
        Command::MarkRead(args) => cmd::notify::cmd_mark_read(&ctx, args).await,
        Command::NextUnread(args) => cmd::notify::cmd_next_unread(&ctx, args).await,
        Command::Decision(args) => cmd::decision::cmd_decision(&ctx, args).await,
        Command::Integration(args) => cmd::integration::cmd_integration(&ctx, args).await,
        Command::Config(args) => cmd::config::cmd_config(&ctx, args).await,
        Command::Completions(args) => cmd::completions::cmd_completions(&ctx, args),
        Command::Man(args) => cmd::completions::cmd_man(&ctx, args),
        Command::Worktree(args) => cmd::worktree::cmd_worktree(&ctx, args).await,
        Command::Diff(args) => cmd::diff::cmd_diff(&ctx, args).await,
        Command::Race(args) => cmd::race::cmd_race(&ctx, args).await,
        Command::Web(args) => cmd::web::cmd_web(&ctx, args).await,
        Command::Remote(args) => cmd::remote::cmd_remote(&ctx, args).await,
        Command::Bridge(args) => cmd::bridge::cmd_bridge(&ctx, args).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn global_flags_work_after_the_subcommand() {
        let cli =
            Cli::try_parse_from(["signaltty", "workspace", "list", "--json", "--socket", "/s"])
                .expect("valid");
        assert!(cli.json);
        assert_eq!(cli.socket, Some(PathBuf::from("/s")));
    }

    #[test]
    fn a_missing_subcommand_is_a_usage_error() {
        let err = Cli::try_parse_from(["signaltty"]).expect_err("needs a command");
        assert_eq!(err.exit_code(), 2);
    }
}
