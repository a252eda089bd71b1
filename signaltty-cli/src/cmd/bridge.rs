//! `signaltty bridge`: the remote end of an ssh link (see `signaltty_client::remote`).
//!
//! Run by `ssh host signaltty bridge`, never by hand: it connects to this user's server on its
//! Unix socket (starting one when none answers, as every command does; the trust checks are the
//! same as any local client's, and it runs as the user ssh logged in as), prints the handshake
//! line, then copies bytes stdin → socket and socket → stdout until either side ends. It reads
//! nothing of what it copies: the server sees one more local client.

use clap::Args;
use signaltty_client::connect::trusted_stream;
use signaltty_client::remote::handshake_line;
use std::os::fd::AsFd;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::unix::pipe;

use super::Ctx;
use crate::error::{CliError, CliResult};

/// `signaltty bridge`
#[derive(Debug, Args)]
pub struct BridgeArgs {}

/// Runs the bridge until the link or the server goes away.
pub async fn cmd_bridge(ctx: &Ctx, _args: BridgeArgs) -> CliResult {
    // Starts the server if needed; its announcement goes to stderr, which ssh shows the client.
    drop(ctx.client().await?);
    let stream = trusted_stream(&ctx.target.socket).await?;
    let mut stdout = tokio::io::stdout();
    let io = |e: std::io::Error| CliError::local(format!("bridge: {e}"));
    stdout
        .write_all(handshake_line().as_bytes())
        .await
        .map_err(io)?;
    stdout.flush().await.map_err(io)?;
    let (mut from_server, mut to_server) = stream.into_split();
    let (mut link_in, mut link_out) = link_pipes(stdout);
    tokio::select! {
        _ = tokio::io::copy(&mut link_in, &mut to_server) => {}
        _ = tokio::io::copy(&mut from_server, &mut link_out) => {}
    }
    let _ = link_out.flush().await;
    // Tokio's stdin reader (when stdin is not a pipe) is a blocking thread the runtime would
    // wait for at shutdown (forever, if the server went away and ssh keeps stdin open): leave
    // now.
    std::process::exit(0)
}

/// The link's two directions. sshd hands a command without a terminal pipes as stdin and
/// stdout: those are read and written nonblocking on the runtime's own thread. Tokio's
/// `stdin()`/`stdout()` (kept for anything else, e.g. a file) do every read and write on a
/// blocking-pool thread, which added two thread wake-ups to every keystroke and every echo
/// crossing the link.
fn link_pipes(
    stdout: tokio::io::Stdout,
) -> (
    Box<dyn AsyncRead + Unpin + Send>,
    Box<dyn AsyncWrite + Unpin + Send>,
) {
    let input = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| pipe::Receiver::from_owned_fd(fd).ok());
    let output = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| pipe::Sender::from_owned_fd(fd).ok());
    let input: Box<dyn AsyncRead + Unpin + Send> = match input {
        Some(pipe) => Box::new(pipe),
        None => Box::new(tokio::io::stdin()),
    };
    let output: Box<dyn AsyncWrite + Unpin + Send> = match output {
        Some(pipe) => Box::new(pipe),
        None => Box::new(stdout),
    };
    (input, output)
}
