//! Many idle panes: server RSS at each pane count (and the marginal cost of one more pane),
//! the time to create them one call at a time and to list them, and the idle CPU and wake-ups
//! of each server over a quiet window, both servers measured in the same window; and the memory
//! of panes that printed a prompt line before going idle (their screens hold cells).
//!
//! Panes run `sleep 100000`. signaltty's are created with SpawnPane (one new tab each) over one
//! gRPC channel; tmux's with one CLI call per pane (`new-session`, then `new-window -d`), the
//! way a script drives tmux, and again on a second server with 100 commands chained into each
//! CLI call, which is tmux's cheapest way.

use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use serde_json::json;
use signaltty_proto::v1::ListPanesRequest;

use super::{idle_argv, median_ms, sh, wait_for};
use crate::procfs::{ProcSample, clock_ticks_per_second};
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::tmux::{TmuxServer, new_session_args};
use crate::units::{kib, mib, ms, times};
use crate::{Bench, SectionOutput, stats};

/// Target: a server with one idle pane stays under 8 MiB.
const TARGET_IDLE_RSS_KIB: u64 = 8 * 1024;
/// Target (issue 18): one more idle pane costs at most 16 KiB.
const TARGET_PER_PANE_KIB: f64 = 16.0;

/// RSS readings at one pane count.
struct Step {
    panes: usize,
    signaltty_kib: Option<u64>,
    signaltty_threads: Option<u64>,
    tmux_kib: u64,
    /// Time spent creating panes so far (shows whether creation slows as panes accumulate).
    signaltty_create: Duration,
    tmux_create: Duration,
}

/// Counter growth over the idle window.
struct Idle {
    seconds: f64,
    signaltty: Option<ProcSample>,
    tmux: ProcSample,
}

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    let sizes = &bench.sizes;
    let signaltty = if bench.with_signaltty {
        let (server, _) =
            SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("panes")).await?;
        let workspace = server.create_workspace(&bench.dir).await?;
        Some((server, workspace))
    } else {
        None
    };
    let mut tmux = TmuxServer::new(&bench.dir, &bench.unique("panes"), &bench.tmux_config);
    let (mut sig_create, mut tmux_create) = (Duration::ZERO, Duration::ZERO);
    let mut steps = Vec::new();
    let mut idle = None;
    let mut created = 0;
    for &target in &sizes.pane_steps {
        eprintln!("  {target} idle panes");
        if let Some((server, workspace)) = &signaltty {
            for _ in created..target {
                let started = Instant::now();
                server.spawn_pane(workspace, &idle_argv()).await?;
                sig_create += started.elapsed();
            }
        }
        for i in created..target {
            let mut args = if i == 0 {
                new_session_args("idle")
            } else {
                ["new-window", "-d", "-t", "idle"]
                    .map(String::from)
                    .to_vec()
            };
            args.extend(idle_argv());
            let started = Instant::now();
            tmux.run(&args).await?;
            tmux_create += started.elapsed();
            if i == 0 {
                tmux.learn_pid("idle").await?;
            }
        }
        created = target;
        let sig_pid = signaltty.as_ref().map(|(s, _)| s.pid());
        let sig_sample = sig_pid.map(ProcSample::read).transpose()?;
        steps.push(Step {
            panes: target,
            signaltty_kib: sig_sample.map(|s| s.rss_kib),
            signaltty_threads: sig_sample.map(|s| s.threads),
            tmux_kib: ProcSample::read(tmux.pid()?)?.rss_kib,
            signaltty_create: sig_create,
            tmux_create,
        });
        if target == sizes.idle_panes {
            eprintln!("  idle window ({} s)", sizes.idle_window.as_secs());
            idle = Some(idle_window(sig_pid, tmux.pid()?, sizes.idle_window).await?);
        }
    }

    // Listing, at the largest count.
    let mut sig_list = Vec::new();
    let mut tmux_list = Vec::new();
    for _ in 0..sizes.reps {
        if let Some((server, _)) = &signaltty {
            let started = Instant::now();
            let panes = server
                .panes()
                .list_panes(ListPanesRequest::default())
                .await?;
            sig_list.push(started.elapsed());
            ensure!(panes.into_inner().panes.len() == created, "ListPanes count");
        }
        let started = Instant::now();
        let listed = tmux.run(&["list-panes", "-a", "-F", "#{pane_id}"]).await?;
        tmux_list.push(started.elapsed());
        ensure!(listed.lines().count() == created, "tmux list-panes count");
    }
    // Panes that printed: the grid a terminal holds once something is on screen.
    eprintln!("  {} panes that printed a prompt", sizes.printed_panes);
    let printed = printed_panes(signaltty.as_ref(), &tmux, sizes.printed_panes).await?;
    // Optional: a failure here costs one row, not the section.
    let chained = chained_tmux_create(bench, created).await;
    drop(signaltty);
    drop(tmux);

    let mut output = SectionOutput::default();
    for step in &steps {
        let plural = if step.panes == 1 { "" } else { "s" };
        let mut row = Row::new(format!("server RSS, {} idle pane{plural}", step.panes))
            .tmux(mib(step.tmux_kib as f64));
        if let Some(s) = step.signaltty_kib {
            row = row
                .signaltty(mib(s as f64))
                .ratio(format!("{} tmux", times(s as f64 / step.tmux_kib as f64)));
            if step.panes == 1 {
                row = row.target("≤ 8 MiB", Some(s <= TARGET_IDLE_RSS_KIB));
            }
        }
        output.rows.push(row);
    }
    if let (Some(first), Some(last)) = (steps.first(), steps.last())
        && last.panes > first.panes
    {
        let extra = (last.panes - first.panes) as f64;
        let tmux_per = (last.tmux_kib as f64 - first.tmux_kib as f64) / extra;
        let mut row = Row::new(format!(
            "RSS per idle pane ({}→{})",
            first.panes, last.panes
        ))
        .tmux(kib(tmux_per));
        if let (Some(a), Some(b)) = (first.signaltty_kib, last.signaltty_kib) {
            let per = (b as f64 - a as f64) / extra;
            row = row
                .signaltty(kib(per))
                .ratio(format!("{} tmux", times(per / tmux_per)))
                .target(
                    format!("≤ {TARGET_PER_PANE_KIB} KiB"),
                    Some(per <= TARGET_PER_PANE_KIB),
                );
        }
        output.rows.push(row);
    }
    let mut row = Row::new(format!(
        "RSS per pane that printed a prompt ({} panes)",
        sizes.printed_panes
    ))
    .tmux(kib(printed.tmux_kib));
    if let Some(per) = printed.signaltty_kib {
        row = row
            .signaltty(kib(per))
            .ratio(format!("{} tmux", times(per / printed.tmux_kib)));
    }
    output.rows.push(row);
    let sig_ms = sig_create.as_secs_f64() * 1e3;
    let tmux_ms = tmux_create.as_secs_f64() * 1e3;
    let mut row = Row::new(format!("create {created} panes, one call each")).tmux(ms(tmux_ms));
    if bench.with_signaltty {
        row = row
            .signaltty(ms(sig_ms))
            .ratio(format!("{} tmux", times(sig_ms / tmux_ms)));
    }
    output.rows.push(row);
    let chained_ms = chained.as_ref().map_or(f64::NAN, |d| d.as_secs_f64() * 1e3);
    let mut row = Row::new(format!(
        "create {created} panes, tmux {CHAIN} chained per call"
    ));
    match &chained {
        Ok(_) => {
            row = row.tmux(ms(chained_ms));
            if bench.with_signaltty {
                row = row
                    .signaltty(ms(sig_ms))
                    .ratio(format!("{} tmux", times(sig_ms / chained_ms)));
            }
        }
        Err(e) => row = row.tmux(format!("error: {e:#}")),
    }
    output.rows.push(row);
    let (sl, tl) = (median_ms(&sig_list), median_ms(&tmux_list));
    let mut row = Row::new(format!("list {created} panes (median)")).tmux(ms(tl));
    if bench.with_signaltty {
        row = row
            .signaltty(ms(sl))
            .ratio(format!("{} tmux", times(sl / tl)));
    }
    output.rows.push(row);
    if let Some(idle) = &idle {
        output.rows.extend(idle_rows(idle, sizes.idle_panes));
    }
    output.details = json!({
        "rss_kib": steps.iter().map(|s| json!({
            "panes": s.panes, "signaltty": s.signaltty_kib, "tmux": s.tmux_kib,
            "signaltty_threads": s.signaltty_threads,
        })).collect::<Vec<_>>(),
        "create_ms_cumulative": steps.iter().map(|s| json!({
            "panes": s.panes,
            "signaltty": s.signaltty_create.as_secs_f64() * 1e3,
            "tmux": s.tmux_create.as_secs_f64() * 1e3,
        })).collect::<Vec<_>>(),
        "create_ms": {
            "signaltty": sig_ms,
            "tmux_one_call_each": tmux_ms,
            "tmux_chained": chained.as_ref().ok().map(|d| d.as_secs_f64() * 1e3),
        },
        "list_ms": { "signaltty": stats::millis(&sig_list), "tmux": stats::millis(&tmux_list) },
        "idle": idle.as_ref().map(|i| json!({
            "panes": sizes.idle_panes,
            "seconds": i.seconds,
            "signaltty": i.signaltty.map(sample_json),
            "tmux": sample_json(i.tmux),
        })),
    });
    output.notes.push(
        "panes: RSS = VmRSS of the server process; per-pane = (RSS at most panes − RSS at 1) / \
         extra panes. tmux panes are windows of one session, created by CLI calls (each a new \
         tmux client process); signaltty's by SpawnPane over one connection. Listing: ListPanes \
         vs `tmux list-panes -a` (a CLI process). Printed: extra panes run `printf PROMPT; exec \
         sleep`; RSS growth / panes once each server shows every prompt (signaltty: Attach; \
         tmux: capture-pane), no target (the issue's targets are for silent `sleep` panes)."
            .into(),
    );
    output.notes.push(
        "idle: both servers idle at once over the same window (after 5 s to settle: \
         signaltty's save and its blocking-pool threads; no client attached); CPU = on-CPU \
         time of all threads (schedstat, ns) and utime+stime of /proc/<pid>/stat (clock \
         ticks); wake-ups = voluntary context switches summed over \
         threads. Target: none (tmux makes none)."
            .into(),
    );
    Ok(output)
}

/// What one printing pane costs each server, in KiB.
struct Printed {
    signaltty_kib: Option<f64>,
    tmux_kib: f64,
}

/// What each printing pane shows before it goes idle: a shell-like prompt (the marker is the end).
const PROMPT: &str = "user@host:~/src/project (main) $ ";
const PROMPT_MARKER: &str = "(main) $";

/// Adds `count` panes that print [`PROMPT`] and then sleep, waits until each server shows every
/// prompt, and returns the RSS growth per pane. signaltty's are checked through Attach (Snapshot
/// or Output), tmux's with capture-pane.
async fn printed_panes(
    signaltty: Option<&(SignalttyServer, String)>,
    tmux: &TmuxServer,
    count: usize,
) -> anyhow::Result<Printed> {
    let argv = sh(&format!("printf '{PROMPT}'; exec sleep 100000"));
    let mut signaltty_kib = None;
    if let Some((server, workspace)) = signaltty {
        let before = ProcSample::read(server.pid())?.rss_kib;
        for _ in 0..count {
            let pane = server.spawn_pane(workspace, &argv).await?;
            let (mut attachment, snapshot) = server.attach(&pane.id).await?;
            if !String::from_utf8_lossy(&snapshot.screen).contains(PROMPT_MARKER) {
                tokio::time::timeout(
                    Duration::from_secs(30),
                    attachment.until(PROMPT_MARKER.as_bytes()),
                )
                .await
                .context("a pane never showed its prompt")??;
            }
        }
        let after = ProcSample::read(server.pid())?.rss_kib;
        signaltty_kib = Some((after as f64 - before as f64) / count as f64);
    }
    let before = ProcSample::read(tmux.pid()?)?.rss_kib;
    for i in 0..count {
        let window = format!("printed{i}");
        let mut args: Vec<String> = ["new-window", "-d", "-t", "idle", "-n", &window]
            .map(String::from)
            .to_vec();
        args.extend(argv.iter().cloned());
        tmux.run(&args).await?;
        let target = format!("idle:{window}");
        wait_for(|| {
            let target = target.clone();
            async move {
                let shown = tmux.run(&["capture-pane", "-p", "-t", &target]).await?;
                Ok(shown.contains(PROMPT_MARKER))
            }
        })
        .await?;
    }
    let after = ProcSample::read(tmux.pid()?)?.rss_kib;
    Ok(Printed {
        signaltty_kib,
        tmux_kib: (after as f64 - before as f64) / count as f64,
    })
}

/// Samples both servers' counters across one quiet window.
async fn idle_window(signaltty: Option<u32>, tmux: u32, window: Duration) -> anyhow::Result<Idle> {
    // Start-up settles: signaltty saves the new state up to 2 s after the last change, and its
    // blocking-pool threads (forks, the save) end 1 s after their last job.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let sig_before = signaltty.map(ProcSample::read).transpose()?;
    let tmux_before = ProcSample::read(tmux)?;
    let started = Instant::now();
    tokio::time::sleep(window).await;
    let seconds = started.elapsed().as_secs_f64();
    let sig_after = signaltty.map(ProcSample::read).transpose()?;
    let tmux_after = ProcSample::read(tmux)?;
    Ok(Idle {
        seconds,
        signaltty: sig_before.zip(sig_after).map(|(b, a)| a.since(&b)),
        tmux: tmux_after.since(&tmux_before),
    })
}

fn idle_rows(idle: &Idle, panes: usize) -> Vec<Row> {
    let secs = idle.seconds;
    // schedstat's nanoseconds, then utime+stime in clock ticks (too coarse for an idle server).
    let cpu = |s: &ProcSample| format!("{} ({} ticks)", ms(s.cpu_ns as f64 / 1e6), s.cpu_ticks);
    let mut cpu_row =
        Row::new(format!("idle CPU, {panes} panes, {secs:.0} s window")).tmux(cpu(&idle.tmux));
    let mut wake_row = Row::new(format!("idle wake-ups, {panes} panes, {secs:.0} s window"))
        .tmux(idle.tmux.voluntary_switches.to_string());
    if let Some(s) = &idle.signaltty {
        cpu_row = cpu_row.signaltty(cpu(s));
        wake_row = wake_row
            .signaltty(s.voluntary_switches.to_string())
            .ratio(format!(
                "{:.4}/pane/s",
                s.voluntary_switches as f64 / panes as f64 / secs
            ))
            .target("0 after start-up", Some(s.voluntary_switches == 0));
    }
    vec![cpu_row, wake_row]
}

fn sample_json(s: ProcSample) -> serde_json::Value {
    json!({
        "rss_kib": s.rss_kib,
        "cpu_ticks": s.cpu_ticks,
        "cpu_ticks_ms": s.cpu_ticks * 1000 / clock_ticks_per_second(),
        "cpu_ns": s.cpu_ns,
        "voluntary_switches": s.voluntary_switches,
        "involuntary_switches": s.involuntary_switches,
        "threads": s.threads,
    })
}

/// Commands per chained tmux CLI call: tmux refuses a command line over 16 KiB.
const CHAIN: usize = 100;

/// Creates `count` panes on a fresh tmux server with CLI calls of `CHAIN` commands chained
/// with `;` (`new-session`, then `new-window`s) and returns how long the calls took.
async fn chained_tmux_create(bench: &Bench, count: usize) -> anyhow::Result<Duration> {
    let mut server = TmuxServer::new(&bench.dir, &bench.unique("chain"), &bench.tmux_config);
    let mut calls: Vec<Vec<String>> = Vec::new();
    for i in 0..count {
        let mut command = if i == 0 {
            new_session_args("chain")
        } else {
            ["new-window", "-d", "-t", "chain"]
                .map(String::from)
                .to_vec()
        };
        command.extend(idle_argv());
        match calls.last_mut() {
            Some(call) if i % CHAIN != 0 => {
                call.push(";".into());
                call.extend(command);
            }
            _ => calls.push(command),
        }
    }
    let mut took = Duration::ZERO;
    for (i, call) in calls.iter().enumerate() {
        let started = Instant::now();
        let result = server.run(call).await;
        took += started.elapsed();
        if i == 0 {
            // Learn the pid even after a failure, so the guard can end a half-made server.
            let _ = server.learn_pid("chain").await;
        }
        result?;
    }
    let listed = server
        .run(&["list-panes", "-a", "-F", "#{pane_id}"])
        .await?;
    ensure!(
        listed.lines().count() == count,
        "chained tmux created {}",
        listed.lines().count()
    );
    Ok(took)
}
