//! Reflow on resize with a full history: a pane 200 columns wide `cat`s 10,000 lines of 150–190
//! columns (each one row at 200 columns, two or three at 80), then is resized to 80 columns and
//! back to 200, several times. Measured: each resize (ResizePane, which reflows the screen
//! before it answers; tmux: `resize-window`, a CLI process, which reflows its whole history),
//! a capture of the whole history at 80 columns right after (signaltty keeps logical lines and
//! wraps them at capture time, so the cost of rewrapping 10,000 lines is paid there), and the
//! servers' RSS before the first resize and after the last.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{Context, ensure};
use serde_json::json;
use signaltty_proto::v1::{ReadMode, ReadPaneRequest, ResizePaneRequest, WriteInputRequest};

use super::{median_ms, sh, wait_for};
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::tmux::TmuxServer;
use crate::units::{ms, times};
use crate::{Bench, SectionOutput, stats};

/// Target: a resize of a pane with a full history takes under 10 ms.
const TARGET_RESIZE_MS: f64 = 10.0;
const LINES: usize = 10_000;
const WIDE: u32 = 200;
const NARROW: u32 = 80;
const ROWS: u32 = 50;

/// 10,000 lines of 150–190 printable characters, deterministic.
fn write_file(path: &std::path::Path) -> anyhow::Result<()> {
    let mut text = String::with_capacity(LINES * 180);
    for n in 0..LINES {
        let len = 150 + (n * 7919) % 41;
        let start = text.len();
        let _ = write!(text, "{n:>6} ");
        while text.len() - start < len {
            text.push(char::from(b'a' + ((text.len() - start) % 26) as u8));
        }
        text.push_str("\r\n");
    }
    std::fs::write(path, text).context("write the reflow file")
}

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    let file = bench.dir.join("reflow-lines.txt");
    write_file(&file)?;
    let script = format!(
        "read x; cat '{}'; printf 'REFLOW-DONE'; exec sleep 100000",
        file.display()
    );
    let marker = "REFLOW-DONE";
    let rounds = bench.sizes.reps.max(5);

    let mut output = SectionOutput::default();
    let (mut sig_narrow, mut sig_wide, mut sig_capture) = (Vec::new(), Vec::new(), Vec::new());
    let mut sig_rss = (0, 0);
    let mut sig_lines = 0;
    if bench.with_signaltty {
        let (server, _) =
            SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("rf")).await?;
        let workspace = server.create_workspace(&bench.dir).await?;
        let pane = server.spawn_pane(&workspace, &sh(&script)).await?.id;
        let resize = |cols: u32| {
            let mut client = server.panes();
            let pane = pane.clone();
            async move {
                client
                    .resize_pane(ResizePaneRequest {
                        pane_id: pane,
                        cols,
                        rows: ROWS,
                    })
                    .await
                    .context("ResizePane")
            }
        };
        resize(WIDE).await?;
        server
            .panes()
            .write_input(WriteInputRequest {
                pane_id: pane.clone(),
                data: b"\n".to_vec(),
                timeout_ms: 5000,
            })
            .await
            .context("WriteInput")?;
        wait_for(|| async {
            Ok(read(&server, &pane, ReadMode::Screen)
                .await?
                .iter()
                .any(|l| l.contains(marker)))
        })
        .await?;
        sig_rss.0 = rss(server.pid())?;
        for _ in 0..rounds {
            let started = Instant::now();
            resize(NARROW).await?;
            sig_narrow.push(started.elapsed());
            let started = Instant::now();
            let lines = read(&server, &pane, ReadMode::Scrollback).await?;
            sig_capture.push(started.elapsed());
            sig_lines = lines.len();
            let started = Instant::now();
            resize(WIDE).await?;
            sig_wide.push(started.elapsed());
        }
        sig_rss.1 = rss(server.pid())?;
        ensure!(
            sig_lines >= 2 * LINES,
            "the capture at 80 columns has {sig_lines} rows, fewer than the lines rewrapped"
        );
    }

    let mut tmux = TmuxServer::new(&bench.dir, &bench.unique("rf"), &bench.tmux_config);
    tmux.new_session("rf", &sh(&script)).await?;
    tmux.run(&["set", "-g", "window-size", "manual"]).await?;
    let (wide, narrow, rows) = (WIDE.to_string(), NARROW.to_string(), ROWS.to_string());
    tmux.run(&["resize-window", "-t", "rf", "-x", &wide, "-y", &rows])
        .await?;
    tmux.run(&["send-keys", "-t", "rf", "Enter"]).await?;
    wait_for(|| async {
        Ok(tmux
            .run(&["capture-pane", "-p", "-t", "rf"])
            .await?
            .contains(marker))
    })
    .await?;
    let tmux_before = rss(tmux.pid()?)?;
    let (mut tmux_narrow, mut tmux_wide, mut tmux_capture) = (Vec::new(), Vec::new(), Vec::new());
    let mut tmux_lines = 0;
    for _ in 0..rounds {
        let started = Instant::now();
        tmux.run(&["resize-window", "-t", "rf", "-x", &narrow, "-y", &rows])
            .await?;
        tmux_narrow.push(started.elapsed());
        let started = Instant::now();
        let captured = tmux
            .run(&["capture-pane", "-p", "-S", "-", "-t", "rf"])
            .await?;
        tmux_capture.push(started.elapsed());
        tmux_lines = captured.lines().count();
        let started = Instant::now();
        tmux.run(&["resize-window", "-t", "rf", "-x", &wide, "-y", &rows])
            .await?;
        tmux_wide.push(started.elapsed());
    }
    let tmux_after = rss(tmux.pid()?)?;
    drop(tmux);

    for (what, sig, tm, target) in [
        (
            "resize 200→80 cols, 10,000-line history (median)",
            &sig_narrow,
            &tmux_narrow,
            true,
        ),
        (
            "resize 80→200 cols, 10,000-line history (median)",
            &sig_wide,
            &tmux_wide,
            true,
        ),
        (
            "capture the history at 80 cols after (median)",
            &sig_capture,
            &tmux_capture,
            false,
        ),
    ] {
        let (s, t) = (median_ms(sig), median_ms(tm));
        let mut row = Row::new(what).tmux(ms(t));
        if bench.with_signaltty {
            row = row.signaltty(ms(s)).ratio(format!("{} tmux", times(s / t)));
            if target {
                row = row.target("< 10 ms", Some(s < TARGET_RESIZE_MS));
            }
        }
        output.rows.push(row);
    }
    let mut row = Row::new("server RSS before / after the resizes").tmux(format!(
        "{:.1} / {:.1} MiB",
        tmux_before as f64 / 1024.0,
        tmux_after as f64 / 1024.0
    ));
    if bench.with_signaltty {
        row = row.signaltty(format!(
            "{:.1} / {:.1} MiB",
            sig_rss.0 as f64 / 1024.0,
            sig_rss.1 as f64 / 1024.0
        ));
    }
    output.rows.push(row);
    output.details = json!({
        "lines": LINES, "rounds": rounds,
        "narrow_ms": { "signaltty": stats::millis(&sig_narrow), "tmux": stats::millis(&tmux_narrow) },
        "wide_ms": { "signaltty": stats::millis(&sig_wide), "tmux": stats::millis(&tmux_wide) },
        "capture_ms": { "signaltty": stats::millis(&sig_capture), "tmux": stats::millis(&tmux_capture) },
        "captured_rows": { "signaltty": sig_lines, "tmux": tmux_lines },
        "rss_kib": { "signaltty": [sig_rss.0, sig_rss.1], "tmux": [tmux_before, tmux_after] },
    });
    output.notes.push(
        "reflow: a 200×50 pane holds 10,000 lines of 150–190 columns; resized to 80 columns and \
         back, alternately. signaltty: ResizePane round trip (the screen is reflowed before the \
         answer; history lines are kept whole and wrapped when captured, so the capture row \
         carries that cost). tmux: `tmux resize-window` as a CLI process (includes its start, \
         ≈ 2 ms), which reflows the whole history. RSS: VmRSS of each server."
            .into(),
    );
    Ok(output)
}

fn rss(pid: u32) -> anyhow::Result<u64> {
    Ok(crate::procfs::ProcSample::read(pid)?.rss_kib)
}

async fn read(server: &SignalttyServer, pane: &str, mode: ReadMode) -> anyhow::Result<Vec<String>> {
    Ok(server
        .panes()
        .read_pane(ReadPaneRequest {
            pane_id: pane.into(),
            mode: mode.into(),
            lines: 0,
            keep_ansi: false,
        })
        .await
        .context("ReadPane")?
        .into_inner()
        .lines)
}
