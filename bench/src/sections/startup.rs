//! Start-up to first answer: spawn `signaltty-server` and time until GetStatus answers, against
//! `tmux new-session -d` (which starts the tmux server) followed by `tmux ls`. Interleaved
//! rounds, each with a fresh socket; medians.

use std::time::{Duration, Instant};

use serde_json::json;

use super::{idle_argv, median_ms};
use crate::procfs::ProcSample;
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::tmux::{TmuxServer, new_session_args};
use crate::units::{ms, times};
use crate::{Bench, SectionOutput, stats};

/// Target: signaltty answers within 15 ms of being spawned.
const TARGET_MS: f64 = 15.0;

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    let mut signaltty: Vec<Duration> = Vec::new();
    let mut cpu: Vec<Duration> = Vec::new();
    let mut tmux: Vec<Duration> = Vec::new();
    let mut version = String::new();
    for _ in 0..bench.sizes.startup_rounds {
        if bench.with_signaltty {
            let (server, first_answer) =
                SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("st")).await?;
            signaltty.push(first_answer);
            // What the server itself spent to get there (every thread; exec and dynamic linking
            // included): steadier than the wall time on a loaded machine.
            cpu.push(Duration::from_nanos(ProcSample::read(server.pid())?.cpu_ns));
            version = server.version().to_owned();
        }
        let mut server = TmuxServer::new(&bench.dir, &bench.unique("st"), &bench.tmux_config);
        let mut args = new_session_args("st");
        args.extend(idle_argv());
        let started = Instant::now();
        server.run(&args).await?;
        server.run(&["ls"]).await?;
        tmux.push(started.elapsed());
        server.learn_pid("st").await?;
    }
    let (sig_ms, tmux_ms) = (median_ms(&signaltty), median_ms(&tmux));
    let mut row = Row::new("start-up to first answer (median)").tmux(ms(tmux_ms));
    if bench.with_signaltty {
        row = row
            .signaltty(ms(sig_ms))
            .ratio(format!("{} tmux", times(sig_ms / tmux_ms)))
            .target(format!("≤ {TARGET_MS} ms"), Some(sig_ms <= TARGET_MS));
    }
    let mut rows = vec![row];
    if bench.with_signaltty {
        rows.push(
            Row::new("start-up: server CPU to first answer (median)")
                .signaltty(ms(median_ms(&cpu))),
        );
    }
    Ok(SectionOutput {
        rows,
        details: json!({
            "signaltty_version": version,
            "signaltty_ms": stats::millis(&signaltty),
            "signaltty_server_cpu_ms": stats::millis(&cpu),
            "tmux_ms": stats::millis(&tmux),
        }),
        notes: vec![
            "start-up: signaltty = spawn server → GetStatus answers (socket polled every 0.2 ms), and the server's CPU \
             time then (its threads' schedstat); \
             tmux = `tmux new-session -d` (starts the server) + `tmux ls`, two CLI processes."
                .into(),
        ],
    })
}
