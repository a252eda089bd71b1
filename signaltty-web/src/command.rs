//! What `signaltty web` does, for the CLI to call: bind, make the token for the printed URL,
//! and serve. The CLI owns the flags and the printing; this owns the order of things (bind
//! first, so a busy port fails before a token is written).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use tonic::transport::Channel;

use crate::guard::Hosts;
use crate::serve::{self, Site};
use crate::token::{Access, NewToken, TokenError, TokenStore};

/// The default address: loopback, a free port.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:0";

/// What to start.
#[derive(Debug)]
pub struct Start {
    /// Where to listen.
    pub listen: SocketAddr,
    /// More names requests may be addressed to (`--allow-host`).
    pub allow_hosts: Vec<String>,
    /// The state directory holding `web-tokens.json`.
    pub state_dir: PathBuf,
    /// The printed token's access.
    pub access: Access,
    /// The connection to the server.
    pub channel: Channel,
}

/// A bound listener, not yet serving.
#[derive(Debug)]
pub struct Bound {
    /// The address it got (the port chosen when 0 was asked).
    pub addr: SocketAddr,
    /// The token in the URL.
    pub token: NewToken,
    /// The URL to open.
    pub url: String,
    listener: tokio::net::TcpListener,
    site: Site,
}

/// `signaltty web` failing to start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}; pick another with --listen ADDR:PORT")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The token file.
    #[error(transparent)]
    Token(#[from] TokenError),
}

impl Start {
    /// Binds and makes the token.
    pub async fn bind(self) -> Result<Bound, StartError> {
        let listener = tokio::net::TcpListener::bind(self.listen)
            .await
            .map_err(|source| StartError::Bind {
                addr: self.listen,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind {
            addr: self.listen,
            source,
        })?;
        let store = TokenStore::new(&self.state_dir);
        let token = store.create(self.access, "signaltty web")?;
        let url = serve::url(addr, &token.secret);
        let site = Site {
            hosts: Hosts::new(addr, &self.allow_hosts),
            store,
            channel: self.channel,
        };
        Ok(Bound {
            addr,
            token,
            url,
            listener,
            site,
        })
    }
}

impl Bound {
    /// Serves until the listener fails or the future is dropped.
    pub async fn serve(self) -> std::io::Result<()> {
        serve::serve(self.listener, self.site).await
    }
}

/// Whether `addr` reaches beyond this machine (anything but loopback).
pub fn is_exposed(addr: SocketAddr) -> bool {
    !addr.ip().is_loopback()
}

/// The warning printed for an exposed address.
pub fn exposed_warning(addr: SocketAddr) -> String {
    format!(
        "WARNING: signaltty web listens on {addr}, which other machines can reach. Anyone with the \
         token can see your panes and (with a full token) type into them and answer your agents. \
         The connection is plain HTTP: use it only on a network you trust (Tailscale), or listen \
         on 127.0.0.1 and reach it through `ssh -L`."
    )
}

/// The state directory: the one given, else `$XDG_STATE_HOME/signaltty`, else
/// `~/.local/state/signaltty` (as the server's default).
pub fn state_dir(given: Option<&Path>) -> PathBuf {
    if let Some(dir) = given {
        return dir.to_path_buf();
    }
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    match env("XDG_STATE_HOME") {
        Some(dir) => PathBuf::from(dir).join("signaltty"),
        None => env("HOME")
            .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from)
            .join(".local/state/signaltty"),
    }
}
