//! Many agents (issue 31): N agent-like panes for N = 10, 100, 300 — each redraws a block of
//! its screen in bursts as an agent's TUI does, sets an OSC title, and (signaltty only) has hook
//! events reported for it at an agent's rate — with the real `signaltty attach` client on one
//! more pane (`stty raw -echo; cat`), against tmux with the same panes and `tmux attach`. Per N:
//! echo p50/p99 through each attached client, each server's CPU per second and RSS over the
//! measured window, and signaltty's event latency to a subscriber (a hook reported → the
//! lifecycle change read off a Subscribe stream).
//!
//! Not measured here: a TUI attached to a 16-pane tab (the `tui` section drives the TUI).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::agent_service_client::AgentServiceClient;
use signaltty_proto::v1::event_service_client::EventServiceClient;
use tokio::sync::Mutex;

use super::echo::{SCRIPT, keystrokes};
use super::{blocking, sh};
use crate::procfs::{ProcSample, clock_ticks_per_second};
use crate::pty::PtyChild;
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::tmux::{TmuxServer, new_session_args};
use crate::units::{mib, ms, times};
use crate::{Bench, SectionOutput, stats};

/// What each agent-like pane runs (bash, no forks in the loop): every 250 ms a burst that moves
/// the cursor home and redraws 12 rows (a spinner, a status line, the tail of a transcript), and
/// every fourth burst an OSC title. `read -t` is the pause (see `events.rs` for why not `sleep`).
const AGENT: &str = "i=0; row='  ⠋ Thinking… reading src/hub/panes.rs and planning the next edit (esc to interrupt)'; \
    while :; do i=$((i+1)); printf '\\033[H'; for r in 1 2 3 4 5 6 7 8 9 10 11 12; do printf '\\033[2K%s %d.%d\\r\\n' \"$row\" $i $r; done; \
    [ $((i % 4)) -eq 0 ] && printf '\\033]0;agent step %d\\007' $i; \
    read -r -t 0.25 _; [ $? -gt 128 ] || exit 7; done";

/// Hook events per agent pane and second (an agent at work reports a tool call every few
/// seconds).
const HOOKS_PER_PANE_PER_S: f64 = 0.5;

/// Keys per system and pane count, typed in batches alternating between the systems.
const KEYS: usize = 600;
const BATCH: usize = 20;
/// The window lasts at least this long (more keys are typed meanwhile), so that the hook
/// events of 10 panes give enough latency samples.
const MIN_WINDOW: Duration = Duration::from_secs(8);

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    let counts: Vec<usize> = if bench.sizes.pane_steps.contains(&500) {
        vec![10, 100, 300]
    } else {
        vec![10, 30]
    };
    let mut rows = Vec::new();
    let mut details = Vec::new();
    for n in counts {
        eprintln!("  {n} agent panes");
        let figures = one_count(bench, n).await?;
        rows.extend(figures.rows());
        details.push(figures.json());
    }
    Ok(SectionOutput {
        rows,
        details: json!(details),
        notes: vec![format!(
            "agents: N panes each redraw 12 rows every 250 ms and set an OSC title every second \
             (bash, no forks); signaltty also gets {HOOKS_PER_PANE_PER_S} hook events per pane \
             and second (ReportHookEvent, Claude's UserPromptSubmit/Stop alternately) and one \
             subscriber reads all events; echo of one more pane through `signaltty attach` and \
             `tmux attach`, at least {KEYS} keys per system in batches of {BATCH} alternating \
             over at least {} s; CPU/s and \
             RSS of each server over the echo window. No TUI in this section.",
            MIN_WINDOW.as_secs()
        )],
    })
}

struct Figures {
    n: usize,
    sig_echo: Vec<Duration>,
    tmux_echo: Vec<Duration>,
    sig_cpu_per_s: f64,
    tmux_cpu_per_s: f64,
    sig_rss_kib: u64,
    tmux_rss_kib: u64,
    event_latency: Vec<Duration>,
}

impl Figures {
    fn rows(&self) -> Vec<Row> {
        let n = self.n;
        let pct = |lat: &[Duration], p| stats::percentile(&stats::millis(lat), p).unwrap_or(0.0);
        let mut rows = Vec::new();
        for p in [50.0, 99.0] {
            let (s, t) = (pct(&self.sig_echo, p), pct(&self.tmux_echo, p));
            rows.push(
                Row::new(format!("agents: echo p{p:.0}, {n} agent panes redrawing"))
                    .signaltty(ms(s))
                    .tmux(ms(t))
                    .ratio(format!("{} tmux", times(s / t.max(1e-9))))
                    .target("≤ tmux", Some(s <= t)),
            );
        }
        rows.push(
            Row::new(format!("agents: server CPU per second, {n} agent panes"))
                .signaltty(format!("{:.0} ms/s", self.sig_cpu_per_s))
                .tmux(format!("{:.0} ms/s", self.tmux_cpu_per_s))
                .ratio(format!(
                    "{} tmux",
                    times(self.sig_cpu_per_s / self.tmux_cpu_per_s.max(1e-9))
                )),
        );
        rows.push(
            Row::new(format!("agents: server RSS, {n} agent panes"))
                .signaltty(mib(self.sig_rss_kib as f64))
                .tmux(mib(self.tmux_rss_kib as f64))
                .ratio(format!(
                    "{} tmux",
                    times(self.sig_rss_kib as f64 / self.tmux_rss_kib.max(1) as f64)
                )),
        );
        rows.push(
            Row::new(format!(
                "agents: hook event → subscriber p50 / p99, {n} agent panes"
            ))
            .signaltty(format!(
                "{} / {}",
                ms(pct(&self.event_latency, 50.0)),
                ms(pct(&self.event_latency, 99.0))
            )),
        );
        rows
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "panes": self.n,
            "signaltty_echo_ms": stats::millis(&self.sig_echo),
            "tmux_echo_ms": stats::millis(&self.tmux_echo),
            "signaltty_cpu_ms_per_s": self.sig_cpu_per_s,
            "tmux_cpu_ms_per_s": self.tmux_cpu_per_s,
            "signaltty_rss_kib": self.sig_rss_kib,
            "tmux_rss_kib": self.tmux_rss_kib,
            "event_latency_ms": stats::millis(&self.event_latency),
        })
    }
}

async fn one_count(bench: &Bench, n: usize) -> anyhow::Result<Figures> {
    let deadline = || Instant::now() + Duration::from_secs(60);
    let agent = vec!["bash".to_owned(), "-c".to_owned(), AGENT.to_owned()];
    let (server, _) =
        SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("agents")).await?;
    let workspace = server.create_workspace(&bench.dir).await?;
    let echo_pane = server.spawn_pane(&workspace, &sh(SCRIPT)).await?;
    let mut agents = Vec::with_capacity(n);
    for _ in 0..n {
        agents.push(server.spawn_pane(&workspace, &agent).await?.id);
    }
    let mut tmux = TmuxServer::new(&bench.dir, &bench.unique("agents"), &bench.tmux_config);
    tmux.new_session("echo", &sh(SCRIPT)).await?;
    for i in 0..n {
        let mut args = if i == 0 {
            new_session_args("agents")
        } else {
            ["new-window", "-d", "-t", "agents"]
                .map(String::from)
                .to_vec()
        };
        args.extend(agent.iter().cloned());
        tmux.run(&args).await?;
    }
    let mut tmux_client = tmux.attach("echo").await?;
    let mut sig_client = server.attach_cli(&bench.cli_bin, &echo_pane.id)?;
    (tmux_client, _) = blocking(tmux_client, move |p| p.drain_until(b"READY", deadline())).await?;
    (sig_client, _) = blocking(sig_client, move |p| p.drain_until(b"READY", deadline())).await?;

    // Hooks and a subscriber, for the whole window.
    let stop = Arc::new(AtomicBool::new(false));
    let sent: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let latencies: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let subscriber = tokio::spawn(subscribe(
        EventServiceClient::new(server.channel()),
        Arc::clone(&sent),
        Arc::clone(&latencies),
        Arc::clone(&stop),
    ));
    let hooks = tokio::spawn(report_hooks(
        AgentServiceClient::new(server.channel()),
        agents.clone(),
        Arc::clone(&sent),
        Arc::clone(&stop),
    ));

    // Warm up, then measure with both servers' counters around the window.
    (sig_client, _) = pty_echo(sig_client, keystrokes(40)).await?;
    (tmux_client, _) = pty_echo(tmux_client, keystrokes(40)).await?;
    let tmux_pid = tmux.pid()?;
    let (sig_before, tmux_before) = (ProcSample::read(server.pid())?, ProcSample::read(tmux_pid)?);
    let started = Instant::now();
    let (mut sig_echo, mut tmux_echo) = (Vec::new(), Vec::new());
    let keys = keystrokes(KEYS);
    let batches = keys.chunks(BATCH).cycle().enumerate();
    for (round, batch) in batches {
        if round * BATCH >= KEYS && started.elapsed() >= MIN_WINDOW {
            break;
        }
        let batch = batch.to_vec();
        if round % 2 == 0 {
            let mut lat;
            (sig_client, lat) = pty_echo(sig_client, batch.clone()).await?;
            sig_echo.extend(lat);
            (tmux_client, lat) = pty_echo(tmux_client, batch).await?;
            tmux_echo.extend(lat);
        } else {
            let mut lat;
            (tmux_client, lat) = pty_echo(tmux_client, batch.clone()).await?;
            tmux_echo.extend(lat);
            (sig_client, lat) = pty_echo(sig_client, batch).await?;
            sig_echo.extend(lat);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let sig = ProcSample::read(server.pid())?.since(&sig_before);
    let tm = ProcSample::read(tmux_pid)?.since(&tmux_before);
    stop.store(true, Ordering::Relaxed);
    let _ = hooks.await;
    subscriber.abort();
    let cpu_ms = |s: &ProcSample| s.cpu_ticks as f64 * 1000.0 / clock_ticks_per_second() as f64;
    let event_latency = latencies.lock().await.clone();
    drop(sig_client);
    drop(tmux_client);
    Ok(Figures {
        n,
        sig_echo,
        tmux_echo,
        sig_cpu_per_s: cpu_ms(&sig) / seconds,
        tmux_cpu_per_s: cpu_ms(&tm) / seconds,
        sig_rss_kib: sig.rss_kib,
        tmux_rss_kib: tm.rss_kib,
        event_latency,
    })
}

async fn pty_echo(
    client: PtyChild,
    keys: Vec<Vec<u8>>,
) -> anyhow::Result<(PtyChild, Vec<Duration>)> {
    blocking(client, move |p| {
        p.echo_latencies(&keys, Instant::now() + Duration::from_secs(60))
    })
    .await
}

/// Reports hook events for the agent panes at [`HOOKS_PER_PANE_PER_S`], alternating a prompt and
/// a stop per pane, and notes when each was sent (the subscriber times its lifecycle change).
async fn report_hooks(
    mut agents_client: AgentServiceClient<tonic::transport::Channel>,
    panes: Vec<String>,
    sent: Arc<Mutex<HashMap<String, Instant>>>,
    stop: Arc<AtomicBool>,
) {
    let per_s = HOOKS_PER_PANE_PER_S * panes.len() as f64;
    let gap = Duration::from_secs_f64(1.0 / per_s.max(0.1));
    let mut working = vec![false; panes.len()];
    let mut next = tokio::time::Instant::now();
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        let k = i % panes.len();
        let event = if working[k] {
            "Stop"
        } else {
            "UserPromptSubmit"
        };
        working[k] = !working[k];
        sent.lock().await.insert(panes[k].clone(), Instant::now());
        let _ = agents_client
            .report_hook_event(pb::ReportHookEventRequest {
                agent: pb::AgentKind::Claude.into(),
                event: event.into(),
                payload: br#"{"session_id":"bench-session"}"#.to_vec(),
                pane_id: panes[k].clone(),
                ..Default::default()
            })
            .await;
        i += 1;
        next += gap;
        tokio::time::sleep_until(next).await;
    }
}

/// Reads every event; a lifecycle change of a pane with a hook in flight is that hook's arrival.
async fn subscribe(
    mut events: EventServiceClient<tonic::transport::Channel>,
    sent: Arc<Mutex<HashMap<String, Instant>>>,
    latencies: Arc<Mutex<Vec<Duration>>>,
    stop: Arc<AtomicBool>,
) {
    let Ok(stream) = events
        .subscribe(pb::SubscribeRequest {
            from_seq: None,
            kinds: Vec::new(),
        })
        .await
    else {
        return;
    };
    let mut stream = stream.into_inner();
    while let Ok(Some(message)) = stream.message().await {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if let Some(pb::subscribe_response::Kind::Event(pb::Event {
            kind: Some(pb::event::Kind::LifecycleChanged(change)),
            ..
        })) = message.kind
            && let Some(at) = sent.lock().await.remove(&change.pane_id)
        {
            latencies.lock().await.push(at.elapsed());
        }
    }
}
