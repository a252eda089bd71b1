//! What the `ssh` section sets up: the private sshd, a signaltty server with two remotes that
//! reach it back through that sshd (one with a login of its own, one sharing signaltty's default
//! connection), a tmux server, and the four clients on their PTYs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::sh;
use crate::Bench;
use crate::pty::{PtyChild, TERM_SIZE};
use crate::signaltty::SignalttyServer;
use crate::sshd::Sshd;
use crate::tmux::TmuxServer;

/// The remote whose ssh logs in on its own.
const OWN_LOGIN: &str = "bench";
/// The remote that shares one login (signaltty's default).
const SHARED_LOGIN: &str = "bench-shared";

/// The four clients, in the order of their index in a round.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Client {
    Raw,
    Signaltty,
    Shared,
    Tmux,
}

impl Client {
    pub(super) const ALL: [Client; 4] =
        [Client::Raw, Client::Signaltty, Client::Shared, Client::Tmux];

    pub(super) fn key(self) -> &'static str {
        match self {
            Client::Raw => "raw_ssh",
            Client::Signaltty => "signaltty",
            Client::Shared => "signaltty_shared_login",
            Client::Tmux => "tmux",
        }
    }

    pub(super) fn is_signaltty(self) -> bool {
        matches!(self, Client::Signaltty | Client::Shared)
    }
}

/// Whatever the four clients attach to: the link, a signaltty server with both remotes in a
/// config file of its own, and a tmux server.
pub(super) struct Setup {
    sshd: Sshd,
    signaltty: Option<(SignalttyServer, String)>,
    config: PathBuf,
    tmux: TmuxServer,
    cli_bin: PathBuf,
}

impl Setup {
    pub(super) async fn start(bench: &Bench, sshd: Sshd) -> anyhow::Result<Self> {
        let config = bench
            .dir
            .join(format!("{}.toml", bench.unique("ssh-config")));
        let signaltty = if bench.with_signaltty {
            let (server, _) =
                SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("ssh")).await?;
            let workspace = server.create_workspace(&bench.dir).await?;
            Some((server, workspace))
        } else {
            None
        };
        let setup = Self {
            sshd,
            signaltty,
            config,
            tmux: TmuxServer::new(&bench.dir, &bench.unique("ssh"), &bench.tmux_config),
            cli_bin: bench.cli_bin.clone(),
        };
        if let Some((server, _)) = &setup.signaltty {
            // The "remote" runs the same CLI against the same server, through sshd.
            let command = shell_words(&[
                "env".into(),
                format!("SIGNALTTY_CONFIG={}", setup.config.display()),
                setup.cli_bin.display().to_string(),
                "--socket".into(),
                server.socket().display().to_string(),
            ]);
            let own = ["-o", "ControlMaster=no", "-o", "ControlPath=none"];
            setup.add_remote(OWN_LOGIN, &own, &command).await?;
            setup.add_remote(SHARED_LOGIN, &[], &command).await?;
            // The shared login's master is made here, not inside a measurement.
            setup
                .cli(&["--remote", SHARED_LOGIN, "ls"])
                .await
                .context("warm the shared ssh login")?;
        }
        Ok(setup)
    }

    /// `signaltty remote add NAME 127.0.0.1 --ssh-option=… --command=COMMAND`.
    async fn add_remote(&self, name: &str, extra: &[&str], command: &str) -> anyhow::Result<()> {
        let mut args = vec![
            "remote".to_owned(),
            "add".into(),
            name.into(),
            "127.0.0.1".into(),
        ];
        let options = extra.iter().map(|s| (*s).to_owned());
        for option in options.chain(self.sshd.ssh_options()) {
            args.push(format!("--ssh-option={option}"));
        }
        args.push(format!("--command={command}"));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.cli(&args).await.map(drop)
    }

    /// Runs the CLI against the section's server and config; its stdout, or an error with its
    /// stderr.
    async fn cli(&self, args: &[&str]) -> anyhow::Result<String> {
        let socket = self.socket()?;
        let output = tokio::process::Command::new(&self.cli_bin)
            .arg("--socket")
            .arg(socket)
            .args(args)
            .env("SIGNALTTY_CONFIG", &self.config)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output()
            .await
            .with_context(|| format!("run {}", self.cli_bin.display()))?;
        if !output.status.success() {
            bail!(
                "signaltty {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    fn socket(&self) -> anyhow::Result<&Path> {
        Ok(self
            .signaltty
            .as_ref()
            .context("no signaltty server")?
            .0
            .socket())
    }

    /// Makes what `who` attaches to run `script` (a pane, a tmux session; nothing for raw,
    /// which runs it itself), attaches `who` on a fresh PTY, and returns it with the pane or
    /// session to end afterwards.
    pub(super) async fn open(
        &mut self,
        who: Client,
        script: &str,
        n: &str,
    ) -> anyhow::Result<Opened> {
        let ssh_tt = |command: String| {
            let mut argv = vec!["ssh".to_owned()];
            argv.extend(self.sshd.ssh_options());
            argv.extend(["-tt".into(), "127.0.0.1".into(), command]);
            argv
        };
        Ok(match who {
            Client::Raw => Opened {
                pty: PtyChild::spawn(&ssh_tt(shell_words(&sh(script))), TERM_SIZE)?,
                pane: None,
                session: None,
            },
            Client::Signaltty | Client::Shared => {
                let (server, workspace) = self.signaltty.as_ref().context("no signaltty")?;
                let pane = server.spawn_pane(workspace, &sh(script)).await?.id;
                let remote = if who == Client::Shared {
                    SHARED_LOGIN
                } else {
                    OWN_LOGIN
                };
                let argv: Vec<String> = [
                    self.cli_bin.display().to_string(),
                    "--socket".into(),
                    server.socket().display().to_string(),
                    "--remote".into(),
                    remote.into(),
                    "attach".into(),
                    pane.clone(),
                ]
                .into();
                let env = [("SIGNALTTY_CONFIG", OsString::from(&self.config))];
                Opened {
                    pty: PtyChild::spawn_in(&argv, TERM_SIZE, None, &env)?,
                    pane: Some(pane),
                    session: None,
                }
            }
            Client::Tmux => {
                let session = format!("ssh{n}");
                self.tmux.new_session(&session, &sh(script)).await?;
                let mut attach = self.tmux.base_argv();
                attach.extend(["attach-session".into(), "-t".into(), session.clone()]);
                Opened {
                    pty: PtyChild::spawn(&ssh_tt(shell_words(&attach)), TERM_SIZE)?,
                    pane: None,
                    session: Some(session),
                }
            }
        })
    }

    /// Ends what [`Setup::open`] made for a client (its PTY is already dropped).
    pub(super) async fn close(
        &self,
        opened_pane: Option<String>,
        session: Option<String>,
    ) -> anyhow::Result<()> {
        if let (Some(pane), Some((server, _))) = (opened_pane, &self.signaltty) {
            server.close_pane(&pane).await?;
        }
        if let Some(session) = session {
            self.tmux.run(&["kill-session", "-t", &session]).await?;
        }
        Ok(())
    }
}

/// A client attached on its PTY, and what it attached to.
pub(super) struct Opened {
    pub(super) pty: PtyChild,
    pub(super) pane: Option<String>,
    pub(super) session: Option<String>,
}

/// `argv` as one line for the remote shell (ssh joins its command words with spaces and hands
/// them to the login shell), each word in single quotes.
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_survive_quotes_and_spaces() {
        let argv = ["sh".to_owned(), "-c".into(), "printf 'a b'; x".into()];
        assert_eq!(shell_words(&argv), r"'sh' '-c' 'printf '\''a b'\''; x'");
    }
}
