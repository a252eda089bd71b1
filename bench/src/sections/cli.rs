//! CLI rows: the real `signaltty` CLI process against tmux's CLI process, each against its
//! running server — what a script or a person at a shell pays per command, process start-up
//! included.
//!
//! - start-up: `signaltty ls` and `signaltty server status` against `tmux ls`;
//! - capture: `signaltty pane read PANE` against `tmux capture-pane -p` (the screen), and
//!   `signaltty pane read --scrollback` against `tmux capture-pane -p -S -` (a full history);
//! - create N panes: `signaltty pane spawn WS -- sleep …` (a new tab each) against
//!   `tmux new-window -d` (a new window each), one process per pane, with the median time of
//!   the first and the last 50 spawns (spawn cost growing with the pane count shows there).
//!
//! Every timed command is interleaved (signaltty, tmux, signaltty, …); medians are reported.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use serde_json::json;

use super::{idle_argv, median_ms, sh};
use crate::procfs::ProcSample;
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::tmux::TmuxServer;
use crate::units::{ms, times};
use crate::{Bench, SectionOutput};

/// Spawns counted at each end of the creation run.
const ENDS: usize = 50;

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    let reps = bench.sizes.reps.max(5);
    let panes = bench.sizes.pane_steps.last().copied().unwrap_or(100);
    let lines = bench.sizes.history_lines;
    let mut output = SectionOutput::default();
    let mut details = serde_json::Map::new();

    let mut tmux = TmuxServer::new(&bench.dir, &bench.unique("cli"), &bench.tmux_config);
    // A pane whose history is full, in both: `seq` then a marker, then it sleeps.
    let script = format!("seq 1 {lines}; printf 'CLI-%s\\n' DONE; exec sleep 100000");
    tmux.new_session("cli", &sh(&script)).await?;
    let signaltty = if bench.with_signaltty {
        let (server, _) =
            SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("cli")).await?;
        let workspace = server.create_workspace(&bench.dir).await?;
        let pane = server.spawn_pane(&workspace, &sh(&script)).await?;
        Some((server, workspace, pane.id))
    } else {
        None
    };
    // Both panes finished printing before anything is timed.
    super::wait_for(|| async {
        let shown = tmux.run(&["capture-pane", "-p", "-t", "cli"]).await?;
        Ok(shown.contains("CLI-DONE"))
    })
    .await?;
    if let Some((server, _, pane)) = &signaltty {
        let cli = Cli::new(&bench.cli_bin, server.socket());
        super::wait_for(|| async {
            Ok(cli.run(&["pane", "read", pane]).await?.contains("CLI-DONE"))
        })
        .await?;
    }

    // Start-up and capture: interleaved rounds of each pair.
    let tmux_ls: Vec<String> = vec!["ls".into()];
    let tmux_screen: Vec<String> = ["capture-pane", "-p", "-t", "cli"]
        .map(String::from)
        .to_vec();
    let tmux_history: Vec<String> = ["capture-pane", "-p", "-S", "-", "-t", "cli"]
        .map(String::from)
        .to_vec();
    type Pair = (&'static str, Option<Vec<String>>, Vec<String>);
    let pairs: Vec<Pair> = {
        let sig = |args: &[&str]| {
            signaltty
                .as_ref()
                .map(|_| args.iter().map(|a| (*a).to_owned()).collect())
        };
        let pane = signaltty.as_ref().map_or("", |(_, _, p)| p.as_str());
        vec![
            (
                "start-up: `signaltty ls` vs `tmux ls`",
                sig(&["ls"]),
                tmux_ls.clone(),
            ),
            (
                "start-up: `signaltty server status` vs `tmux ls`",
                sig(&["server", "status"]),
                tmux_ls,
            ),
            (
                "capture screen: `pane read` vs `capture-pane -p`",
                sig(&["pane", "read", pane]),
                tmux_screen,
            ),
            (
                "capture history: `pane read --scrollback` vs `capture-pane -p -S -`",
                sig(&["pane", "read", "--scrollback", pane]),
                tmux_history,
            ),
        ]
    };
    for (name, sig_args, tmux_args) in &pairs {
        let mut sig_times = Vec::new();
        let mut tmux_times = Vec::new();
        for _ in 0..reps {
            if let (Some((server, _, _)), Some(args)) = (&signaltty, sig_args) {
                let cli = Cli::new(&bench.cli_bin, server.socket());
                let started = Instant::now();
                cli.run(args).await?;
                sig_times.push(started.elapsed());
            }
            let started = Instant::now();
            tmux.run(tmux_args).await?;
            tmux_times.push(started.elapsed());
        }
        let (s, t) = (median_ms(&sig_times), median_ms(&tmux_times));
        let mut row = Row::new(format!("CLI {name} (median of {reps})")).tmux(ms(t));
        if signaltty.is_some() {
            row = row.signaltty(ms(s)).ratio(format!("{} tmux", times(s / t)));
        }
        output.rows.push(row);
        details.insert(
            (*name).into(),
            json!({
                "signaltty_ms": crate::stats::millis(&sig_times),
                "tmux_ms": crate::stats::millis(&tmux_times),
            }),
        );
    }

    // Creating panes, one CLI process each, interleaved.
    let mut sig_spawns = Vec::with_capacity(panes);
    // The server's own CPU per spawn (every thread, from schedstat; the child's exec is not
    // counted): it shows whether what grows with the pane count is the server's work.
    let mut sig_cpu = Vec::with_capacity(panes);
    let mut tmux_spawns = Vec::with_capacity(panes);
    let idle = idle_argv();
    for _ in 0..panes {
        if let Some((server, workspace, _)) = &signaltty {
            let cli = Cli::new(&bench.cli_bin, server.socket());
            let mut args: Vec<String> = vec!["pane".into(), "spawn".into(), workspace.clone()];
            args.push("--".into());
            args.extend(idle.iter().cloned());
            let cpu_before = ProcSample::read(server.pid())?.cpu_ns;
            let started = Instant::now();
            cli.run(&args).await?;
            sig_spawns.push(started.elapsed());
            let cpu_after = ProcSample::read(server.pid())?.cpu_ns;
            sig_cpu.push(Duration::from_nanos(cpu_after.saturating_sub(cpu_before)));
        }
        let mut args: Vec<String> = ["new-window", "-d", "-t", "cli"].map(String::from).to_vec();
        args.extend(idle.iter().cloned());
        let started = Instant::now();
        tmux.run(&args).await?;
        tmux_spawns.push(started.elapsed());
    }
    let listed = tmux.run(&["list-windows", "-t", "cli"]).await?;
    ensure!(listed.lines().count() == panes + 1, "tmux window count");
    let total = |v: &[Duration]| v.iter().sum::<Duration>().as_secs_f64() * 1e3;
    let ends = |v: &[Duration]| {
        let n = ENDS.min(v.len());
        (median_ms(&v[..n]), median_ms(&v[v.len() - n..]))
    };
    let (tf, tl) = ends(&tmux_spawns);
    let mut row = Row::new(format!(
        "CLI create {panes} panes: `pane spawn` vs `new-window -d`, one process each"
    ))
    .tmux(format!(
        "{} (first/last {ENDS}: {}/{})",
        ms(total(&tmux_spawns)),
        ms(tf),
        ms(tl)
    ));
    if signaltty.is_some() {
        let (sf, sl) = ends(&sig_spawns);
        row = row
            .signaltty(format!(
                "{} (first/last {ENDS}: {}/{})",
                ms(total(&sig_spawns)),
                ms(sf),
                ms(sl)
            ))
            .ratio(format!(
                "{} tmux; last/first {}",
                times(total(&sig_spawns) / total(&tmux_spawns)),
                times(sl / sf)
            ));
    }
    output.rows.push(row);
    if signaltty.is_some() {
        let (cf, cl) = ends(&sig_cpu);
        output.rows.push(
            Row::new(format!(
                "CLI create {panes} panes: server CPU per spawn, first/last {ENDS} (median)"
            ))
            .signaltty(format!("{}/{}", ms(cf), ms(cl)))
            .ratio(format!("last/first {}", times(cl / cf))),
        );
    }
    details.insert(
        "create".into(),
        json!({
            "panes": panes,
            "signaltty_ms": crate::stats::millis(&sig_spawns),
            "signaltty_server_cpu_ms": crate::stats::millis(&sig_cpu),
            "tmux_ms": crate::stats::millis(&tmux_spawns),
        }),
    );
    drop(signaltty);
    drop(tmux);

    output.details = serde_json::Value::Object(details);
    output.notes.push(
        "CLI rows: each figure is one real CLI process (`signaltty --socket S …` or `tmux -S S …`), \
         from spawn to exit, against a server that is already running; commands interleaved, \
         medians. Capture: a pane that printed `seq 1 N` (N = the scrollback section's line \
         count). Create: `signaltty pane spawn WS -- sleep` (a new tab each) vs `tmux \
         new-window -d` (a new window each), median per spawn of the first and last 50; the \
         server's CPU per spawn is the sum of its threads' schedstat run time around each call."
            .into(),
    );
    Ok(output)
}

/// The `signaltty` CLI binary aimed at one server.
struct Cli<'a> {
    bin: &'a Path,
    socket: &'a Path,
}

impl<'a> Cli<'a> {
    fn new(bin: &'a Path, socket: &'a Path) -> Self {
        Cli { bin, socket }
    }

    /// Runs one command to its end and returns stdout; a failure is an error with stderr.
    async fn run<S: AsRef<str>>(&self, args: &[S]) -> anyhow::Result<String> {
        let output = tokio::process::Command::new(self.bin)
            .arg("--socket")
            .arg(self.socket)
            .args(args.iter().map(AsRef::as_ref))
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output()
            .await
            .context("run signaltty")?;
        if !output.status.success() {
            let first = args.first().map_or("", AsRef::as_ref);
            bail!(
                "signaltty {first}: {} ({})",
                String::from_utf8_lossy(&output.stderr).trim(),
                output.status
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}
