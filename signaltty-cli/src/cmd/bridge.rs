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
use tokio::io::AsyncWriteExt;

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
    let mut stdin = tokio::io::stdin();
    tokio::select! {
        _ = tokio::io::copy(&mut stdin, &mut to_server) => {}
        _ = tokio::io::copy(&mut from_server, &mut stdout) => {}
    }
    let _ = stdout.flush().await;
    // The stdin reader is a blocking thread the runtime would wait for at shutdown (forever, if
    // the server went away and ssh keeps stdin open): leave now.
    std::process::exit(0)
}
