//! One module per command group, each with its `XxxArgs` (clap) and `cmd_xxx` (the work), plus
//! the [`Ctx`] every command receives: where the server is and where output goes.

pub mod arrange;
pub mod attach;
pub mod attach_handoff;
pub mod attach_options;
pub mod attach_remote;
pub mod bridge;
pub mod close_exited;
pub mod completions;
pub mod config;
pub mod decision;
pub mod diff;
pub mod events;
pub mod hook_event;
pub mod integration;
pub mod ls;
pub mod new;
pub mod notify;
pub mod pane;
pub mod pane_io;
pub mod race;
pub mod race_show;
pub mod remote;
pub mod screen_state;
pub mod server;
pub mod show;
pub mod size;
pub mod sleep;
pub mod stream;
pub mod tab;
pub mod web;
pub mod workspace;
pub mod worktree;

use std::path::Path;

use signaltty_client::connect::{self, AutoStart, Target};
use signaltty_client::{Client, terminal_size as client_terminal_size};
use tonic::transport::Channel;

use crate::error::{CliError, CliResult};
use crate::output::Output;

/// What every command needs.
#[derive(Debug)]
pub struct Ctx {
    /// How to reach the server.
    pub target: Target,
    /// Where results go.
    pub out: Output,
    /// The remote machine every command talks to (`--remote NAME`), `None` for this one.
    pub remote: Option<signaltty_client::remote::Remote>,
}

impl Ctx {
    /// A connection to the server, starting one if none answers. A server started here is
    /// announced on stderr with the state directory and config file it uses: a start is never
    /// silent, so a server started with other settings than the user meant (after their own
    /// start failed, say) is seen at once.
    pub async fn client(&self) -> CliResult<Client> {
        if let Some(remote) = &self.remote {
            // The remote's bridge starts its server when none answers (and says so on stderr).
            return Ok(signaltty_client::remote::connect_remote(remote).await?);
        }
        match connect::connect(&self.target, AutoStart::No).await {
            Err(signaltty_client::ClientError::NoServer { .. }) => {}
            done => return Ok(done?),
        }
        let status = signaltty_client::autostart::start_server(&self.target).await?;
        announce_start(&status);
        Ok(connect::try_connect(&self.target.socket).await?)
    }

    /// A connection to a server that must already run.
    pub async fn existing_client(&self) -> CliResult<Client> {
        if let Some(remote) = &self.remote {
            return Ok(signaltty_client::remote::connect_remote(remote).await?);
        }
        Ok(connect::connect(&self.target, AutoStart::No).await?)
    }

    /// The id a command-line word names (`None`/`-`: the last used), remembered as the last
    /// used of its kind. See [`crate::resolve`].
    pub async fn resolve(
        &self,
        client: &Client,
        kind: crate::resolve::Kind,
        word: Option<&str>,
    ) -> CliResult<String> {
        use crate::resolve::{Kind, LastUsed, remember, resolve};
        let id = resolve(client, &self.target, kind, word).await?;
        let mut last = LastUsed::default();
        match kind {
            Kind::Workspace => last.workspace = Some(id.clone()),
            Kind::Tab => last.tab = Some(id.clone()),
            Kind::Pane => last.pane = Some(id.clone()),
        }
        remember(&self.target, last);
        Ok(id)
    }

    /// A channel to the server, starting one if none answers.
    pub async fn channel(&self) -> CliResult<Channel> {
        Ok(self.client().await?.channel())
    }

    /// A channel to a server that must already run.
    pub async fn existing_channel(&self) -> CliResult<Channel> {
        Ok(self.existing_client().await?.channel())
    }
}

/// One line on stderr saying that a server was started, where, and with which settings.
fn announce_start(status: &signaltty_proto::v1::GetStatusResponse) {
    let config = signaltty_config::default_path();
    let config = if config.exists() {
        format!("config {}", config.display())
    } else {
        format!("no config file ({} absent): defaults", config.display())
    };
    eprintln!(
        "signaltty: no server was running; started one (pid {}) on {}, state dir {}, {config}",
        status.pid, status.socket_path, status.state_dir
    );
}

/// An existing directory made absolute (the server refuses relative paths); the current
/// directory when `dir` is `None`.
pub fn absolute_dir(dir: Option<&Path>) -> CliResult<String> {
    let dir = match dir {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| CliError::local(format!("cannot read the current directory: {e}")))?,
    };
    // canonicalize also proves the directory exists; fall back to a plain absolute path and let
    // the server say what is wrong with it.
    let absolute = std::fs::canonicalize(&dir).unwrap_or_else(|_| connect::absolute(&dir));
    absolute
        .into_os_string()
        .into_string()
        .map_err(|p| CliError::usage(format!("path is not UTF-8: {}", p.to_string_lossy())))
}

/// The size of the terminal on stdout (or stdin), if either is one.
pub fn terminal_size() -> Option<(u16, u16)> {
    client_terminal_size()
}
