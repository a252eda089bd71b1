//! The TUI against tmux, both real clients on real PTYs of the same size (200×60), in two parts.
//!
//! **Alone**: one `cat` pane, nothing else running. Keystroke echo through the real
//! `signaltty-tui` (Insert mode) and through `tmux attach`, batches and typing pace as in the
//! echo section; then the TUI's wake-ups over the idle window with no timer on screen.
//!
//! **Busy**: 16 panes printing continuously (perl, ~30 KB/s each) plus the `cat` pane, in one
//! tab / one tmux window (`tiled`); both systems at once, so they share the machine's state.
//! **Many**: the same with 99 panes that print like agents (a status line every half second
//! each) plus the `cat` pane: 100 panes on screen (issue 31).
//! Over a window: frames per second the client writes (the TUI's synchronized-update ends;
//! write bursts for both), CPU per MB the panes printed (the TUI process against tmux client +
//! server; the signaltty server separately); then keystroke echo into `cat` while they print.
//!
//! Both clients' terminals are drained all the time by [`Pumped`] threads. Typed keys are Greek
//! letters, which neither the printers nor either client's chrome writes, so an echo is never
//! mistaken; every `LINE`th key starts the line again, and as `LINE` is no multiple of the key
//! cycle each key changes its cell (a client that draws only changed cells must draw it).

use std::time::{Duration, Instant};

use anyhow::bail;
use serde_json::json;
use signaltty_proto::v1::{Lifecycle, ListPanesRequest};

use super::tui_setup::{
    SIZE, agent_printer, fresh_dir, printed_bytes, printer, signaltty_grid, spawn_tui, tmux_grid,
};
use super::{echo::SCRIPT, sh};
use crate::order::round_order;
use crate::procfs::ProcSample;
use crate::pump::{BURST_GAP, Counts, Pumped};
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::tmux::TmuxServer;
use crate::units::{ms, times};
use crate::{Bench, SectionOutput, stats};

/// The keys typed: unseen in the printers' output and in either client's chrome.
pub const KEYS: [&str; 5] = ["λ", "μ", "ν", "ξ", "π"];

/// Keys per line before a carriage return (not a multiple of `KEYS.len()`; narrower than a pane).
const LINE: usize = 29;

/// What a busy screen holds beside the `cat` pane.
struct Busy {
    /// How many other panes.
    printers: usize,
    /// What each runs (`tag`, index).
    printer: fn(&str, usize) -> Vec<String>,
    /// Keys per line typed into `cat`: fewer than its cell is wide, no multiple of `KEYS.len()`.
    line: usize,
}

/// The busy part: 16 panes printing as fast as a busy agent's TUI redraws.
const PRINTING: Busy = Busy {
    printers: 16,
    printer,
    line: LINE,
};

/// The many-pane part: 100 panes on screen (a 10×10 grid; cells ~17 columns wide in the TUI).
const MANY: Busy = Busy {
    printers: 99,
    printer: agent_printer,
    line: 9,
};

/// Printing panes in the busy part (the `cat` pane comes on top).
const PRINTERS: usize = PRINTING.printers;

/// The pause before each key at a person's pace (as in the echo section).
const TYPING_PAUSE: Duration = Duration::from_millis(20);

/// Rest before each batch of keys: what a client still does after its batch (a paced frame,
/// the server's late copy of the output for a TUI whose pane it paints) is over before the
/// other client's batch starts, so neither is measured in the other's wake.
const BATCH_REST: Duration = Duration::from_millis(20);

/// Rest after set-up before a window starts (spawns, first frames, saves settle).
const SETTLE: Duration = Duration::from_secs(2);

/// Echo latencies of both clients.
#[derive(Default)]
struct Latencies {
    tui: Vec<Duration>,
    tmux: Vec<Duration>,
}

/// The busy window's figures.
struct Window {
    seconds: f64,
    tui: Counts,
    tmux_client: Counts,
    tui_cpu_s: f64,
    sig_server_cpu_s: f64,
    tmux_client_cpu_s: f64,
    tmux_server_cpu_s: f64,
    sig_printed: u64,
    tmux_printed: u64,
}

/// Idle wake-ups (voluntary + involuntary context switches of every thread).
struct Idle {
    seconds: f64,
    tui: u64,
    tmux_client: u64,
    timer_visible: bool,
}

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    if !bench.with_signaltty {
        bail!("the tui section measures signaltty-tui; it has nothing to do without signaltty");
    }
    let (alone, typing, idle) = alone(bench).await?;
    let (window, busy_lat) = busy(bench, &PRINTING).await?;
    let (many_window, many) = busy(bench, &MANY).await?;

    let mut rows = Vec::new();
    let batch = bench.sizes.echo_batch.max(1);
    rows.extend(echo_rows(
        &format!("batches of {batch} ({} keys)", alone.tui.len()),
        &alone,
    ));
    if !typing.tui.is_empty() {
        rows.extend(echo_rows(
            &format!(
                "keys {} ms apart ({} keys)",
                TYPING_PAUSE.as_millis(),
                typing.tui.len()
            ),
            &typing,
        ));
    }
    rows.extend(echo_rows(
        &format!("{PRINTERS} panes printing ({} keys)", busy_lat.tui.len()),
        &busy_lat,
    ));
    rows.extend(window_rows(&window, &format!("{PRINTERS} panes printing")));
    let on_screen = MANY.printers + 1;
    rows.extend(echo_rows(
        &format!(
            "{on_screen} panes on screen, agent-like output ({} keys)",
            many.tui.len()
        ),
        &many,
    ));
    rows.extend(
        window_rows(&many_window, &format!("{on_screen} panes on screen"))
            .into_iter()
            .take(1),
    );
    let per_10s = |n: u64| n as f64 * 10.0 / idle.seconds;
    rows.push(
        Row::new(format!(
            "TUI idle wake-ups per 10 s (over {:.0} s, timer {})",
            idle.seconds,
            if idle.timer_visible {
                "VISIBLE"
            } else {
                "not visible"
            }
        ))
        .signaltty(format!("{:.1}", per_10s(idle.tui)))
        .tmux(format!("{:.1} (client)", per_10s(idle.tmux_client)))
        .target("0", Some(idle.tui == 0)),
    );

    let ms_of = |l: &Latencies| json!({ "tui_ms": stats::millis(&l.tui), "tmux_ms": stats::millis(&l.tmux) });
    let details = json!({
        "outer_terminal": format!("{}x{}", SIZE.cols, SIZE.rows),
        "printing_panes": PRINTERS,
        "batch": batch,
        "alone": ms_of(&alone),
        "typing": ms_of(&typing),
        "busy": ms_of(&busy_lat),
        "many": ms_of(&many),
        "many_panes": MANY.printers + 1,
        "many_window": {
            "seconds": many_window.seconds,
            "tui_frames": many_window.tui.frames,
            "tui_bursts": many_window.tui.bursts,
            "tmux_client_bursts": many_window.tmux_client.bursts,
        },
        "window": {
            "seconds": window.seconds,
            "tui_frames": window.tui.frames,
            "tui_bursts": window.tui.bursts,
            "tui_bytes": window.tui.bytes,
            "tmux_client_frames": window.tmux_client.frames,
            "tmux_client_bursts": window.tmux_client.bursts,
            "tmux_client_bytes": window.tmux_client.bytes,
            "tui_cpu_s": window.tui_cpu_s,
            "signaltty_server_cpu_s": window.sig_server_cpu_s,
            "tmux_client_cpu_s": window.tmux_client_cpu_s,
            "tmux_server_cpu_s": window.tmux_server_cpu_s,
            "signaltty_printed_bytes": window.sig_printed,
            "tmux_printed_bytes": window.tmux_printed,
        },
        "idle": {
            "seconds": idle.seconds,
            "tui_switches": idle.tui,
            "tmux_client_switches": idle.tmux_client,
            "timer_visible": idle.timer_visible,
        },
    });
    Ok(SectionOutput {
        rows,
        details,
        notes: vec![format!(
            "tui: the real `signaltty-tui` (Insert mode) and a real `tmux attach -u`, each on a \
             {}x{} PTY drained continuously by a thread of the benchmark. Echo: Greek letters \
             typed one at a time into `stty raw -echo; cat`, timed from the write until the \
             letter's bytes appear in the client's output; alone = that pane only, batches of \
             {batch} rotating between the clients (each batch after {} ms of rest, so neither \
             client's after-work lands in the other's batch), then one key each after {} ms of \
             rest; busy = \
             the same while {PRINTERS} other panes of each system (one tab / one `tiled` window, \
             both systems at once) print ~30 KB/s each; many = the same with {} panes on \
             screen, the others printing one status line every half second each. Frames/s: synchronized-update ends \
             (`ESC[?2026l`, one per TUI frame) and write bursts (reads after ≥ {} ms of \
             silence; tmux 3.3 marks no frames, so bursts are its redraw count) over the window. \
             CPU per MB: utime+stime (schedstat, all threads) over the window ÷ bytes the \
             printers wrote (/proc/<pid>/io wchar); TUI against tmux client + tmux server; the \
             signaltty server is its own row (the TUI's counterpart of tmux's server work). Idle: \
             voluntary + involuntary context switches of every TUI thread over the window, \
             {} s after set-up, with the server reporting no WORKING pane (so no clock shows).",
            SIZE.cols,
            SIZE.rows,
            MANY.printers + 1,
            BATCH_REST.as_millis(),
            TYPING_PAUSE.as_millis(),
            BURST_GAP.as_millis(),
            SETTLE.as_secs(),
        )],
    })
}

/// One `cat` pane per system: echo in batches and at typing pace, then the TUI's idle wake-ups.
async fn alone(bench: &Bench) -> anyhow::Result<(Latencies, Latencies, Idle)> {
    let sizes = &bench.sizes;
    let (server, _) =
        SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("tui")).await?;
    let cwd = fresh_dir(&bench.dir, &bench.unique("tui-alone-"))?;
    let workspace = server.create_workspace(&cwd).await?;
    server.spawn_pane(&workspace, &sh(SCRIPT)).await?;
    let home = bench.dir.join(bench.unique("tui-home-"));
    let tui = Pumped::start(spawn_tui(&bench.tui_bin, &server, &cwd, &home)?, b"READY");

    let mut tmux = TmuxServer::new(&bench.dir, &bench.unique("tui"), &bench.tmux_config);
    tmux_grid(&mut tmux, "alone", &sh(SCRIPT), &[]).await?;
    let client = Pumped::start(tmux.attach_utf8("alone", SIZE).await?, b"READY");

    let (keys, typing_keys) = (
        keystrokes(sizes.echo_keys, LINE),
        keystrokes(sizes.echo_typing_keys, LINE),
    );
    let batch = sizes.echo_batch.max(1);
    let (tui, client, lat, typing) = blocking(move || {
        ready(&tui, &client, LINE)?;
        let lat = rotate(&tui, &client, &keys, batch, Duration::ZERO)?;
        let typing = rotate(&tui, &client, &typing_keys, 1, TYPING_PAUSE)?;
        Ok((tui, client, lat, typing))
    })
    .await?;

    tokio::time::sleep(SETTLE).await;
    let timer_visible = any_working(&server).await?;
    let before = (
        ProcSample::read(tui.pid())?,
        ProcSample::read(client.pid())?,
    );
    let started = Instant::now();
    tokio::time::sleep(sizes.idle_window).await;
    let after = (
        ProcSample::read(tui.pid())?,
        ProcSample::read(client.pid())?,
    );
    let seconds = started.elapsed().as_secs_f64();
    let switches = |a: &ProcSample, b: &ProcSample| {
        let d = a.since(b);
        d.voluntary_switches + d.involuntary_switches
    };
    let timer_visible = timer_visible || any_working(&server).await?;
    let idle = Idle {
        seconds,
        tui: switches(&after.0, &before.0),
        tmux_client: switches(&after.1, &before.1),
        timer_visible,
    };
    drop_blocking(tui, client).await?;
    drop(tmux);
    drop(server);
    Ok((lat, typing, idle))
}

/// `shape`'s panes and the `cat` pane per system, both at once: the window, then echo.
async fn busy(bench: &Bench, shape: &Busy) -> anyhow::Result<(Window, Latencies)> {
    let sizes = &bench.sizes;
    let (server, _) =
        SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("tui")).await?;
    let cwd = fresh_dir(&bench.dir, &bench.unique("tui-busy-"))?;
    let workspace = server.create_workspace(&cwd).await?;
    let sig_tag = format!("tuibench-{}", bench.unique("sig"));
    let printers: Vec<Vec<String>> = (0..shape.printers)
        .map(|i| (shape.printer)(&sig_tag, i))
        .collect();
    signaltty_grid(&server, &workspace, &sh(SCRIPT), &printers).await?;
    let home = bench.dir.join(bench.unique("tui-home-"));
    let tui = Pumped::start(spawn_tui(&bench.tui_bin, &server, &cwd, &home)?, b"READY");

    let mut tmux = TmuxServer::new(&bench.dir, &bench.unique("tui"), &bench.tmux_config);
    let tmux_tag = format!("tuibench-{}", bench.unique("tmux"));
    let printers: Vec<Vec<String>> = (0..shape.printers)
        .map(|i| (shape.printer)(&tmux_tag, i))
        .collect();
    tmux_grid(&mut tmux, "busy", &sh(SCRIPT), &printers).await?;
    let client = Pumped::start(tmux.attach_utf8("busy", SIZE).await?, b"READY");

    let line = shape.line;
    let (tui, client) = blocking(move || {
        ready(&tui, &client, line)?;
        Ok((tui, client))
    })
    .await?;
    tokio::time::sleep(SETTLE).await;

    let pids = [tui.pid(), server.pid(), client.pid(), tmux.pid()?];
    let read_all = || -> anyhow::Result<Vec<ProcSample>> {
        pids.iter().map(|&p| ProcSample::read(p)).collect()
    };
    let before = (read_all()?, tui.counts(), client.counts());
    let printed_before = (printed_bytes(&sig_tag), printed_bytes(&tmux_tag));
    let started = Instant::now();
    tokio::time::sleep(sizes.idle_window).await;
    let after = (read_all()?, tui.counts(), client.counts());
    let printed_after = (printed_bytes(&sig_tag), printed_bytes(&tmux_tag));
    let seconds = started.elapsed().as_secs_f64();
    let cpu = |i: usize| after.0[i].since(&before.0[i]).cpu_ns as f64 / 1e9;
    let window = Window {
        seconds,
        tui: after.1.since(&before.1),
        tmux_client: after.2.since(&before.2),
        tui_cpu_s: cpu(0),
        sig_server_cpu_s: cpu(1),
        tmux_client_cpu_s: cpu(2),
        tmux_server_cpu_s: cpu(3),
        sig_printed: printed_after.0.saturating_sub(printed_before.0),
        tmux_printed: printed_after.1.saturating_sub(printed_before.1),
    };
    if window.sig_printed == 0 || window.tmux_printed == 0 {
        bail!("the printers printed nothing during the window (is perl installed?)");
    }

    let keys = keystrokes(sizes.echo_flood_keys.max(sizes.echo_batch), shape.line);
    let batch = sizes.echo_batch.max(1);
    let (tui, client, lat) = blocking(move || {
        let lat = rotate(&tui, &client, &keys, batch, Duration::ZERO)?;
        Ok((tui, client, lat))
    })
    .await?;
    drop_blocking(tui, client).await?;
    drop(tmux);
    drop(server);
    Ok((window, lat))
}

/// Waits until both clients show their `cat` pane and types a few keys into each (which also
/// proves that the keys reach `cat`; the TUI's default, tmux-like keymap types into the pane
/// from the first key).
fn ready(tui: &Pumped, tmux: &Pumped, line: usize) -> anyhow::Result<()> {
    tui.wait_ready()?;
    tmux.wait_ready()?;
    let warmup = keystrokes(20, line);
    tui.echo(&warmup, awaited)?;
    tmux.echo(&warmup, awaited)?;
    Ok(())
}

/// Latencies over `keys` in batches of `batch`, TUI and tmux in turn, each key after `pause`.
fn rotate(
    tui: &Pumped,
    tmux: &Pumped,
    keys: &[Vec<u8>],
    batch: usize,
    pause: Duration,
) -> anyhow::Result<Latencies> {
    let mut lat = Latencies::default();
    let type_into = |client: &Pumped, chunk: &[Vec<u8>], out: &mut Vec<Duration>| {
        if pause.is_zero() {
            std::thread::sleep(BATCH_REST);
            out.extend(client.echo(chunk, awaited)?);
        } else {
            for key in chunk {
                std::thread::sleep(pause);
                out.extend(client.echo(std::slice::from_ref(key), awaited)?);
            }
        }
        anyhow::Ok(())
    };
    for (round, chunk) in keys.chunks(batch.max(1)).enumerate() {
        // Who goes first changes from round to round (`crate::order`).
        for system in round_order::<2>(round as u64) {
            if system == 0 {
                type_into(tui, chunk, &mut lat.tui)?;
            } else {
                type_into(tmux, chunk, &mut lat.tmux)?;
            }
        }
    }
    Ok(lat)
}

/// `count` keystrokes cycling through `KEYS`, every `line`th preceded by a carriage return.
fn keystrokes(count: usize, line: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| {
            let key = KEYS[i % KEYS.len()].as_bytes();
            if i % line == line - 1 {
                [b"\r", key].concat()
            } else {
                key.to_vec()
            }
        })
        .collect()
}

/// What must show for a keystroke to have echoed: the letter, without the carriage return.
fn awaited(key: &[u8]) -> Vec<u8> {
    key.strip_prefix(b"\r").unwrap_or(key).to_vec()
}

/// Whether the server reports any pane WORKING (then the TUI's sidebar shows a ticking clock).
async fn any_working(server: &SignalttyServer) -> anyhow::Result<bool> {
    let panes = server
        .panes()
        .list_panes(ListPanesRequest::default())
        .await?
        .into_inner()
        .panes;
    Ok(panes
        .iter()
        .any(|p| p.lifecycle == Lifecycle::Working as i32))
}

/// Runs blocking client work on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    tokio::task::spawn_blocking(work).await?
}

/// Ends both clients off the async threads (their pumps are joined).
async fn drop_blocking(tui: Pumped, tmux: Pumped) -> anyhow::Result<()> {
    Ok(tokio::task::spawn_blocking(move || drop((tui, tmux))).await?)
}

/// p50 and p99 rows "TUI echo pN, `what`": the TUI against `tmux attach`.
fn echo_rows(what: &str, lat: &Latencies) -> Vec<Row> {
    [50.0, 99.0]
        .into_iter()
        .map(|p| {
            let pct = |l: &[Duration]| stats::percentile(&stats::millis(l), p).unwrap_or(0.0);
            let (s, t) = (pct(&lat.tui), pct(&lat.tmux));
            Row::new(format!("TUI echo p{p:.0}, {what}"))
                .signaltty(ms(s))
                .tmux(ms(t))
                .ratio(format!("{} tmux", times(s / t)))
                .target("≤ tmux", Some(s <= t))
        })
        .collect()
}

/// Frame rate and CPU per MB rows of a busy window (`what`: what is on screen).
fn window_rows(w: &Window, what: &str) -> Vec<Row> {
    let per_s = |n: u64| n as f64 / w.seconds;
    let mb = |b: u64| b as f64 / 1e6;
    let ms_per_mb = |cpu_s: f64, bytes: u64| cpu_s * 1e3 / mb(bytes).max(1e-9);
    let tui = ms_per_mb(w.tui_cpu_s, w.sig_printed);
    let tmux = ms_per_mb(w.tmux_client_cpu_s + w.tmux_server_cpu_s, w.tmux_printed);
    let server = ms_per_mb(w.sig_server_cpu_s, w.sig_printed);
    let tmux_server = ms_per_mb(w.tmux_server_cpu_s, w.tmux_printed);
    vec![
        Row::new(format!("TUI frames/s, {what}"))
            .signaltty(format!(
                "{:.1} frames ({:.1} bursts)",
                per_s(w.tui.frames),
                per_s(w.tui.bursts)
            ))
            .tmux(format!("{:.1} bursts", per_s(w.tmux_client.bursts)))
            .ratio(format!(
                "{} tmux bursts",
                times(per_s(w.tui.bursts) / per_s(w.tmux_client.bursts))
            ))
            .target("≤ 60", Some(per_s(w.tui.frames) <= 61.0)),
        Row::new(format!(
            "TUI CPU per MB printed ({:.1} / {:.1} MB)",
            mb(w.sig_printed),
            mb(w.tmux_printed)
        ))
        .signaltty(format!("{tui:.0} ms/MB (TUI)"))
        .tmux(format!("{tmux:.0} ms/MB (client+server)"))
        .ratio(format!("{} tmux", times(tui / tmux)))
        .target("≤ tmux client+server", Some(tui <= tmux)),
        Row::new("server CPU per MB printed (TUI attached)")
            .signaltty(format!("{server:.0} ms/MB"))
            .tmux(format!("{tmux_server:.0} ms/MB (server)"))
            .ratio(format!("{} tmux server", times(server / tmux_server))),
        Row::new("TUI + server CPU per MB printed")
            .signaltty(format!("{:.0} ms/MB", tui + server))
            .tmux(format!("{tmux:.0} ms/MB"))
            .ratio(format!("{} tmux", times((tui + server) / tmux))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cat` in raw mode echoes a carriage return as a return to column 0 of the same row, so
    /// every line of keys overwrites the one before, which began after `READY`: a key that
    /// lands on its own letter changes nothing, and a client that draws only changed cells
    /// (both do) never shows it. Played on one row, every key must change its cell.
    #[test]
    fn every_key_changes_its_cell() {
        for shape in [&PRINTING, &MANY] {
            let keys = keystrokes(20 * shape.line, shape.line);
            let mut row: Vec<char> = "READY".chars().collect();
            let mut col = row.len();
            for (i, key) in keys.iter().enumerate() {
                if key.starts_with(b"\r") {
                    col = 0;
                }
                let letter = std::str::from_utf8(&awaited(key))
                    .expect("utf-8")
                    .chars()
                    .next()
                    .expect("a letter");
                if col == row.len() {
                    row.push(' ');
                }
                assert_ne!(
                    row[col], letter,
                    "key {i} (line {}) lands on itself",
                    shape.line
                );
                row[col] = letter;
                col += 1;
            }
            // A line of keys (after `READY`) fits in its cell: 5 columns of the TUI's 172 in the
            // busy part, 10 (17 wide) in the many-pane part.
            assert!(row.len() < if shape.printers > 16 { 17 } else { 34 });
        }
    }
}
