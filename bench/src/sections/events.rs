//! Echo while events burst (issue 14 §6): 200 panes print and raise notifications (OSC 9, so the
//! event bus carries a steady burst), 20 clients are attached to them (one never reads), and the
//! keystroke echo of one more pane is measured without event subscribers and with 20 (one never
//! reads). The two conditions alternate in rounds so both see the same machine states. The server
//! converts each event to its wire form once however many subscribers there are
//! (`Stamped::rendered`); this shows what the subscribers still cost the typist.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;

use serde_json::json;
use signaltty_proto::v1::SubscribeRequest;
use signaltty_proto::v1::event_service_client::EventServiceClient;

use super::echo::{SCRIPT, attach_echo, drain_attach_in_background, keystrokes};
use super::sh;
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::units::ms;
use crate::{Bench, SectionOutput, stats};
use signaltty_proto::v1::{ListPanesRequest, PaneStatus, ReadPaneRequest};

/// Printing panes.
const PANES: usize = 200;
/// Attached clients and event subscribers (one of each stalled).
const CLIENTS: usize = 20;
/// Alternating rounds of (without, with) subscribers.
const ROUNDS: usize = 3;
/// What each printing pane runs (in bash): a line and a notification every 100 ms (the per-pane
/// limit is 20 at once then 5/s, so about 5 notification events per pane and second reach the
/// bus). The pause is bash's `read -t`, not `sleep`: 200 panes forking `sleep` ten times a second
/// are 2000 fork+execs a second, which on a loaded 2-core machine starved the server and
/// everything else (the section's first runs never finished, or found printers gone). `read` ends
/// by timeout (status > 128) as long as the terminal is there; anything else (the terminal hung
/// up: EOF) ends the printer instead of spinning.
const PRINTER: &str = "i=0; while :; do i=$((i+1)); printf 'line %d of an agent at work\\n\\033]9;step %d done\\007' $i $i; read -r -t 0.1 _; [ $? -gt 128 ] || exit 7; done";

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    if !bench.with_signaltty {
        return Ok(SectionOutput::default());
    }
    let keys_per_round = (bench.sizes.echo_flood_keys / ROUNDS).max(20);
    let (server, _) =
        SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("events")).await?;
    let workspace = server.create_workspace(&bench.dir).await?;
    let echo_pane = server.spawn_pane(&workspace, &sh(SCRIPT)).await?;
    let (mut typist, snapshot) = server.attach(&echo_pane.id).await?;
    if memchr::memmem::find(&snapshot.screen, b"READY").is_none() {
        tokio::time::timeout(Duration::from_secs(10), typist.until(b"READY")).await??;
    }
    let mut printers = Vec::with_capacity(PANES);
    let printer = vec!["bash".to_owned(), "-c".to_owned(), PRINTER.to_owned()];
    for _ in 0..PANES {
        printers.push(server.spawn_pane(&workspace, &printer).await?);
    }
    all_printing(&server, &workspace, "after spawning them").await?;
    let socket: PathBuf = server.socket().to_path_buf();
    for pane in printers.iter().take(CLIENTS - 1) {
        drain_attach_in_background(socket.clone(), pane.id.clone());
    }
    // Attached and never read.
    let stalled_client = SignalttyServer::attach_at(&socket, &printers[CLIENTS - 1].id)
        .await
        .with_context(|| format!("attach to printer {}", printers[CLIENTS - 1].id))?;
    attach_echo(&mut typist, &keystrokes(20)).await?;

    let (mut without, mut with) = (Vec::new(), Vec::new());
    let received = Arc::new(AtomicU64::new(0));
    let mut with_seconds = 0.0;
    for _ in 0..ROUNDS {
        without.extend(attach_echo(&mut typist, &keystrokes(keys_per_round)).await?);
        let subscribers = subscribe(&socket, Arc::clone(&received)).await?;
        let started = Instant::now();
        with.extend(attach_echo(&mut typist, &keystrokes(keys_per_round)).await?);
        with_seconds += started.elapsed().as_secs_f64();
        drop(subscribers);
    }
    drop(stalled_client);
    // Figures from a run where printers died would not be the load they claim.
    all_printing(&server, &workspace, "at the end of the run").await?;
    let events = received.load(Ordering::Relaxed);
    let per_s = events as f64 / with_seconds.max(1e-9) / (CLIENTS - 1) as f64;
    let pct = |lat: &[Duration], p| stats::percentile(&stats::millis(lat), p).unwrap_or(0.0);
    let mut rows = Vec::new();
    for p in [50.0, 99.0] {
        let (a, b) = (pct(&without, p), pct(&with, p));
        rows.push(
            Row::new(format!(
                "echo p{p:.0}, {PANES} panes printing + {CLIENTS} attached: 0 → {CLIENTS} event subscribers"
            ))
            .signaltty(format!("{} → {}", ms(a), ms(b)))
            .ratio(format!("{:.2}×", b / a.max(1e-9))),
        );
    }
    rows.push(
        Row::new(format!(
            "events per second delivered to each of {} reading subscribers",
            CLIENTS - 1
        ))
        .signaltty(format!("{per_s:.0}")),
    );
    Ok(SectionOutput {
        rows,
        details: json!({
            "panes": PANES,
            "clients": CLIENTS,
            "rounds": ROUNDS,
            "without_subscribers_ms": stats::millis(&without),
            "with_subscribers_ms": stats::millis(&with),
            "events_received": events,
            "events_per_s_per_subscriber": per_s,
        }),
        notes: vec![format!(
            "events: {PANES} panes each print a line and an OSC 9 notification every 100 ms; \
             {CLIENTS} clients attached to them ({} drained, 1 never reading); echo of one more \
             pane (`stty raw -echo; cat`) through Attach, {ROUNDS} rounds alternating no \
             subscribers and {CLIENTS} subscribers to all events ({} drained, 1 never reading).",
            CLIENTS - 1,
            CLIENTS - 1
        )],
    })
}

/// Starts `CLIENTS` subscribers to every event, each on a connection of its own, on a thread of
/// their own (as other client processes would be, not competing with the typist's thread): all
/// but one read and count what they receive, the last never reads. Dropping the returned sender
/// ends them.
async fn subscribe(
    socket: &std::path::Path,
    received: Arc<AtomicU64>,
) -> anyhow::Result<tokio::sync::oneshot::Sender<()>> {
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel::<anyhow::Result<()>>();
    let socket = socket.to_path_buf();
    std::thread::spawn(move || {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(r) => r,
            Err(e) => {
                let _ = ready_tx.send(Err(e.into()));
                return;
            }
        };
        runtime.block_on(async move {
            let mut streams = Vec::new();
            for _ in 0..CLIENTS {
                let opened = async {
                    let channel = signaltty_proto::connect(&socket).await?;
                    let stream = EventServiceClient::new(channel)
                        .subscribe(SubscribeRequest {
                            from_seq: None,
                            kinds: vec![],
                        })
                        .await?
                        .into_inner();
                    anyhow::Ok(stream)
                };
                match opened.await {
                    Ok(s) => streams.push(s),
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                }
            }
            // The last one is held open and never read.
            let _stalled = streams.pop();
            for mut stream in streams {
                let received = Arc::clone(&received);
                tokio::spawn(async move {
                    while let Ok(Some(_)) = stream.message().await {
                        received.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
            let _ = ready_tx.send(Ok(()));
            let _ = stop_rx.await;
        });
    });
    ready_rx.await??;
    Ok(stop_tx)
}

/// Fails, saying which and why, if a printing pane is no longer running: its exit code and the
/// last lines on its screen (a printer only ends on its own when its terminal goes away).
async fn all_printing(server: &SignalttyServer, workspace: &str, when: &str) -> anyhow::Result<()> {
    let panes = server
        .panes()
        .list_panes(ListPanesRequest {
            workspace_id: workspace.into(),
            ..ListPanesRequest::default()
        })
        .await
        .context("ListPanes")?
        .into_inner()
        .panes;
    let gone: Vec<_> = panes
        .iter()
        .filter(|p| p.status != PaneStatus::Live as i32)
        .collect();
    let Some(first) = gone.first() else {
        return Ok(());
    };
    let screen = server
        .panes()
        .read_pane(ReadPaneRequest {
            pane_id: first.id.clone(),
            ..ReadPaneRequest::default()
        })
        .await
        .map(|r| {
            let lines = r.into_inner().lines;
            let start = lines.len().saturating_sub(3);
            lines[start..].join(" / ")
        })
        .unwrap_or_else(|e| format!("(unreadable: {})", e.message()));
    anyhow::bail!(
        "{} of {} panes stopped running {when}; the first, {}, has status {} and exit code {:?}; its screen ends: {screen}",
        gone.len(),
        panes.len(),
        first.id,
        first.status,
        first.exit_code,
    )
}
