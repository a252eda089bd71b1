//! `signaltty web [--listen ADDR] [--allow-host NAME]… [--read-only]`: serves the web client
//! (the page and the server's API as gRPC-web, `signaltty-web`) until stopped, printing the URL
//! with a fresh token; `signaltty web token list | new | revoke ID | rotate ID` manages the
//! tokens. Nothing listens on a network port unless this runs.

use std::net::SocketAddr;

use clap::{Args, Subcommand};
use signaltty_web::command::{self, Start};
use signaltty_web::token::{Access, NewToken, TokenStore};

use super::Ctx;
use crate::error::{CliError, CliResult};
use crate::table::Table;

/// `signaltty web …`
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WebArgs {
    #[command(subcommand)]
    command: Option<WebCommand>,
    /// Address to listen on (default: 127.0.0.1 and a free port). Anything but loopback is
    /// reachable from other machines: prefer `ssh -L` or a Tailscale address.
    #[arg(long, value_name = "ADDR:PORT", default_value = command::DEFAULT_LISTEN)]
    listen: SocketAddr,
    /// Another name the page may be opened under (e.g. a Tailscale name, or `localhost:PORT`
    /// for the local end of an `ssh -L`); repeatable. Requests to any other name are refused.
    #[arg(long, value_name = "HOST[:PORT]")]
    allow_host: Vec<String>,
    /// Make the printed token read-only: it can watch, not answer or type.
    #[arg(long)]
    read_only: bool,
}

#[derive(Debug, Subcommand)]
enum WebCommand {
    /// Manage the web tokens (stored hashed in the state directory's web-tokens.json).
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
}

#[derive(Debug, Subcommand)]
enum TokenCommand {
    /// List tokens (ids, access, age; never the secrets).
    #[command(visible_alias = "ls")]
    List,
    /// Make a new token and print it (shown only this once).
    New {
        /// Watch only: no answers, no typing.
        #[arg(long)]
        read_only: bool,
    },
    /// Revoke a token: browsers holding it are refused from their next request.
    Revoke {
        /// The token's id (`wt_…`, from `web token list`).
        id: String,
    },
    /// Replace a token with a new one of the same access; the old one stops working.
    Rotate {
        /// The token's id (`wt_…`).
        id: String,
    },
}

/// Runs `signaltty web …`.
pub async fn cmd_web(ctx: &Ctx, args: WebArgs) -> CliResult {
    let store = TokenStore::new(&command::state_dir(ctx.target.state_dir.as_deref()));
    match args.command {
        Some(WebCommand::Token { command }) => cmd_token(ctx, &store, command),
        None => serve(ctx, args).await,
    }
}

async fn serve(ctx: &Ctx, args: WebArgs) -> CliResult {
    let client = ctx.client().await?;
    let start = Start {
        listen: args.listen,
        allow_hosts: args.allow_host,
        state_dir: command::state_dir(ctx.target.state_dir.as_deref()),
        access: access(args.read_only),
        channel: client.channel(),
    };
    let bound = start
        .bind()
        .await
        .map_err(|e| CliError::local(e.to_string()))?;
    if command::is_exposed(bound.addr) {
        eprintln!("{}", command::exposed_warning(bound.addr));
    }
    if ctx.out.is_json() {
        ctx.out.json_line(&serde_json::json!({
            "url": bound.url,
            "addr": bound.addr.to_string(),
            "token_id": bound.token.record.id,
            "access": bound.token.record.access.name(),
        }))?;
    } else {
        ctx.out.line(format_args!(
            "signaltty web: open {}\n  token {} ({}); Ctrl-C stops serving (the token stays valid until `signaltty web token revoke {}`)",
            bound.url,
            bound.token.record.id,
            bound.token.record.access.name(),
            bound.token.record.id,
        ))?;
    }
    tokio::select! {
        served = bound.serve() => served.map_err(|e| CliError::local(format!("signaltty web stopped: {e}"))),
        _ = stop_signal() => Ok(()),
    }
}

/// Ctrl-C, SIGTERM or SIGHUP.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
        _ = hup.recv() => {}
    }
}

fn cmd_token(ctx: &Ctx, store: &TokenStore, command: TokenCommand) -> CliResult {
    let err = |e: signaltty_web::token::TokenError| CliError::local(e.to_string());
    match command {
        TokenCommand::List => {
            let tokens = store.list().map_err(err)?;
            if ctx.out.is_json() {
                return ctx.out.json(&tokens
                    .iter()
                    .map(|t| serde_json::json!({"id": t.id, "access": t.access.name(), "label": t.label, "created_unix": t.created_unix}))
                    .collect::<Vec<_>>());
            }
            let mut table = Table::new(&["ID", "ACCESS", "LABEL", "CREATED (UNIX)"]);
            for t in &tokens {
                table.row(vec![
                    t.id.clone(),
                    t.access.name().into(),
                    t.label.clone(),
                    t.created_unix.to_string(),
                ]);
            }
            ctx.out.text(&table.render())
        }
        TokenCommand::New { read_only } => {
            let made = store
                .create(access(read_only), "web token new")
                .map_err(err)?;
            print_new(ctx, &made)
        }
        TokenCommand::Revoke { id } => {
            let gone = store.revoke(&id).map_err(err)?;
            if ctx.out.is_json() {
                return ctx.out.json(&serde_json::json!({"revoked": gone.id}));
            }
            ctx.out.line(format_args!("revoked {}", gone.id))
        }
        TokenCommand::Rotate { id } => {
            let made = store.rotate(&id).map_err(err)?;
            print_new(ctx, &made)
        }
    }
}

fn print_new(ctx: &Ctx, made: &NewToken) -> CliResult {
    if ctx.out.is_json() {
        return ctx.out.json(&serde_json::json!({
            "id": made.record.id, "access": made.record.access.name(), "token": made.secret,
        }));
    }
    ctx.out.line(format_args!(
        "{} ({}): {}\n  open http://HOST:PORT/?token={} on the address `signaltty web` listens on",
        made.record.id,
        made.record.access.name(),
        made.secret,
        made.secret
    ))
}

fn access(read_only: bool) -> Access {
    if read_only {
        Access::ReadOnly
    } else {
        Access::Full
    }
}
