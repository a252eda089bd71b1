//! Output throughput: a pane `cat`s a large file (plain, then coloured) with one client attached,
//! timed from the newline that starts the `cat` until the client has seen the end marker that
//! is printed after it — so both "the command wrote everything" and "the client shows the final
//! screen" hold.
//!
//! - raw: the same command on a bare PTY, drained by a minimal reader in 64 KiB reads;
//! - signaltty: SpawnPane, then the real `signaltty attach PANE` on a PTY the benchmark drains
//!   the same way as raw; the marker must appear in that client's output;
//! - API (rows of their own): SpawnPane + an in-process gRPC Attach; the marker must arrive in
//!   Output (or in a Snapshot after a Resync, if the client lagged);
//! - tmux: a real `tmux attach` client on a PTY the benchmark drains the same way as raw; the
//!   marker must appear in that client's output (no capture-pane polling).
//!
//! Rounds interleave raw, signaltty, tmux for each file; the ratio to raw is taken within each
//! round and the median of those is reported.

use std::time::{Duration, Instant};

use serde_json::json;

use super::{blocking, sh};
use crate::pty::{PtyChild, TERM_SIZE};
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::tmux::TmuxServer;
use crate::units::{mb_per_s, times};
use crate::{Bench, SectionOutput, stats};

/// One timed transfer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Transfer {
    pub(crate) seconds: f64,
    /// Bytes the client received.
    pub(crate) received: u64,
    /// Resyncs (signaltty only).
    pub(crate) resyncs: u64,
}

/// One round of one file.
#[derive(Debug)]
struct Round {
    raw: Transfer,
    /// Through the real `signaltty attach` on a drained PTY.
    signaltty: Option<Transfer>,
    /// Through the in-process gRPC Attach stream (the API).
    api: Option<Transfer>,
    tmux: Transfer,
}

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    let corpus = bench.corpus()?;
    let files = [
        ("plain", &corpus.plain, 1.3),
        ("coloured", &corpus.coloured, 2.0),
    ];
    // Generous: a tenth of the slowest expected rate still finishes.
    let limit = Duration::from_secs(60 + corpus.bytes / 1_000_000);
    let signaltty = if bench.with_signaltty {
        let (server, _) =
            SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("tp")).await?;
        let workspace = server.create_workspace(&bench.dir).await?;
        Some((server, workspace))
    } else {
        None
    };
    let mut tmux = TmuxServer::new(&bench.dir, &bench.unique("tp"), &bench.tmux_config);
    let mut rounds: Vec<Vec<Round>> = files.iter().map(|_| Vec::new()).collect();
    for round in 0..bench.sizes.throughput_rounds {
        for (f, (name, path, _)) in files.iter().enumerate() {
            let n = bench.unique("");
            let (script, marker) = transfer_script(path, &n);
            eprintln!("  round {} {name}: raw", round + 1);
            let raw =
                pty_transfer(PtyChild::spawn(&sh(&script), TERM_SIZE)?, &marker, limit).await?;
            let (signaltty, api) = match &signaltty {
                Some((server, workspace)) => {
                    eprintln!("  round {} {name}: signaltty attach", round + 1);
                    let attached =
                        cli_transfer(server, &bench.cli_bin, workspace, &script, &marker, limit)
                            .await?;
                    eprintln!("  round {} {name}: API", round + 1);
                    let api = api_transfer(server, workspace, &script, &marker, limit).await?;
                    (Some(attached), Some(api))
                }
                None => (None, None),
            };
            eprintln!("  round {} {name}: tmux", round + 1);
            let session = format!("tp{n}");
            tmux.new_session(&session, &sh(&script)).await?;
            let client = tmux.attach(&session).await?;
            let tmux_transfer = pty_transfer(client, &marker, limit).await?;
            tmux.run(&["kill-session", "-t", &session]).await?;
            rounds[f].push(Round {
                raw,
                signaltty,
                api,
                tmux: tmux_transfer,
            });
        }
    }
    drop(signaltty);
    drop(tmux);

    let mut output = SectionOutput::default();
    let mut details = serde_json::Map::new();
    for ((name, _, target), rounds) in files.iter().zip(&rounds) {
        let secs = |pick: &dyn Fn(&Round) -> Option<f64>| -> Vec<f64> {
            rounds.iter().filter_map(pick).collect()
        };
        let raw = secs(&|r| Some(r.raw.seconds));
        let sig = secs(&|r| r.signaltty.map(|t| t.seconds));
        let tmx = secs(&|r| Some(r.tmux.seconds));
        let sig_ratio = stats::median(&secs(&|r| r.signaltty.map(|t| t.seconds / r.raw.seconds)));
        let tmux_ratio = stats::median(&secs(&|r| Some(r.tmux.seconds / r.raw.seconds)));
        let rate =
            |v: &[f64]| stats::median(v).map_or(String::new(), |s| mb_per_s(corpus.bytes, s));
        let mut row = Row::new(format!(
            "throughput {name} {} MB (median of {})",
            corpus.bytes / 1_000_000,
            rounds.len()
        ))
        .raw(rate(&raw))
        .tmux(rate(&tmx));
        let tmux_cell = tmux_ratio.map_or(String::new(), |t| format!("tmux {}", times(t)));
        if let Some(s) = sig_ratio {
            row = row
                .signaltty(format!("{} (attach)", rate(&sig)))
                .ratio(format!("{} raw; {tmux_cell}", times(s)))
                .target(format!("≤ {target}× raw"), Some(s <= *target));
        } else {
            row = row.ratio(format!("{tmux_cell} raw"));
        }
        output.rows.push(row);
        let api = secs(&|r| r.api.map(|t| t.seconds));
        let api_ratio = stats::median(&secs(&|r| r.api.map(|t| t.seconds / r.raw.seconds)));
        if let Some(a) = api_ratio {
            let resyncs: u64 = rounds.iter().filter_map(|r| r.api.map(|t| t.resyncs)).sum();
            output.rows.push(
                Row::new(format!(
                    "API: throughput {name} (gRPC Attach, no terminal; median of {})",
                    rounds.len()
                ))
                .signaltty(format!("{} ({resyncs} resyncs)", rate(&api)))
                .ratio(format!("{} raw", times(a))),
            );
        }
        details.insert(
            (*name).into(),
            json!({
                "bytes": corpus.bytes,
                "raw_s": raw, "signaltty_attach_s": sig, "api_s": api, "tmux_s": tmx,
                "signaltty_attach_over_raw_median": sig_ratio, "api_over_raw_median": api_ratio, "tmux_over_raw_median": tmux_ratio,
                "client_bytes": rounds.iter().map(|r| json!({
                    "raw": r.raw.received,
                    "signaltty_attach": r.signaltty.map(|t| t.received),
                    "api": r.api.map(|t| t.received),
                    "tmux": r.tmux.received,
                })).collect::<Vec<_>>(),
                "api_resyncs": rounds.iter().filter_map(|r| r.api.map(|t| t.resyncs)).collect::<Vec<_>>(),
            }),
        );
    }
    output.details = serde_json::Value::Object(details);
    output.notes.push(
        "throughput: time from typing the newline that starts `cat FILE; printf END-MARKER` to \
         the client receiving the marker; MB/s = file bytes / median time; ratio = median of \
         per-round (time / raw time). raw: bare PTY, 64 KiB reads. signaltty: the marker seen \
         in the output of the real `signaltty attach PANE` client on a PTY the benchmark \
         drains like raw's (the user's path). tmux: the same with a `tmux attach` client (not \
         capture-pane polling). API rows: the in-process gRPC Attach stream, no terminal — \
         Output, or the Snapshot after a Resync when it lagged (resyncs summed over rounds); \
         tmux's API (control mode) is not measured. All panes 80×24."
            .into(),
    );
    Ok(output)
}

/// What a pane runs for one transfer of `file`, and the marker that ends it: the pane says
/// READY and waits for a newline, then `cat`s the file and prints the marker. The marker is
/// assembled by printf from the unique `n`, so the command line (which a client may show) never
/// contains it.
pub(crate) fn transfer_script(file: &std::path::Path, n: &str) -> (String, String) {
    let script = format!(
        "printf READY; read x; cat '{}'; printf 'BENCH-%s-DONE\\n' {n}; exec sleep 100000",
        file.display()
    );
    (script, format!("BENCH-{n}-DONE"))
}

/// Waits until the client on `pty` shows READY, then times a transfer on it
/// ([`pty_transfer`]).
pub(crate) async fn ready_transfer(
    pty: PtyChild,
    marker: &str,
    limit: Duration,
) -> anyhow::Result<Transfer> {
    let (pty, _) = blocking(pty, move |p| {
        p.drain_until(b"READY", Instant::now() + Duration::from_secs(60))
    })
    .await?;
    pty_transfer(pty, marker, limit).await
}

/// Types a newline into the PTY (raw, or a tmux client's) and drains it until `marker`.
pub(crate) async fn pty_transfer(
    pty: PtyChild,
    marker: &str,
    limit: Duration,
) -> anyhow::Result<Transfer> {
    let marker = marker.as_bytes().to_vec();
    let (pty, transfer) = blocking(pty, move |pty| {
        let deadline = Instant::now() + limit;
        let started = Instant::now();
        pty.write_all(b"\n", deadline)?;
        let received = pty.drain_until(&marker, deadline)?;
        Ok(Transfer {
            seconds: started.elapsed().as_secs_f64(),
            received,
            resyncs: 0,
        })
    })
    .await?;
    tokio::task::spawn_blocking(move || drop(pty)).await?;
    Ok(transfer)
}

/// Spawns the pane, starts `signaltty attach` on a PTY, waits until it shows the pane, then
/// types the newline into that PTY and drains it until `marker`.
async fn cli_transfer(
    server: &SignalttyServer,
    cli_bin: &std::path::Path,
    workspace: &str,
    script: &str,
    marker: &str,
    limit: Duration,
) -> anyhow::Result<Transfer> {
    let pane = server.spawn_pane(workspace, &sh(script)).await?;
    let attached = server.attach_cli(cli_bin, &pane.id)?;
    let transfer = ready_transfer(attached, marker, limit).await?;
    server.close_pane(&pane.id).await?;
    Ok(transfer)
}

/// Spawns the pane, attaches in-process, types the newline and reads the stream until `marker`.
async fn api_transfer(
    server: &SignalttyServer,
    workspace: &str,
    script: &str,
    marker: &str,
    limit: Duration,
) -> anyhow::Result<Transfer> {
    let pane = server.spawn_pane(workspace, &sh(script)).await?;
    let (mut attachment, _) = server.attach(&pane.id).await?;
    let started = Instant::now();
    attachment.input(b"\n").await?;
    tokio::time::timeout(limit, attachment.until(marker.as_bytes())).await??;
    let transfer = Transfer {
        seconds: started.elapsed().as_secs_f64(),
        received: attachment.received,
        resyncs: attachment.resyncs,
    };
    drop(attachment);
    server.close_pane(&pane.id).await?;
    Ok(transfer)
}
