//! Full histories: memory per scrollback line (plain and coloured), capturing a 10,000-line
//! history, and attaching to a pane that has one.
//!
//! N panes per kind wait on `read` while the servers' RSS is read; then each is sent a newline,
//! `cat`s a 10,000-line file and prints an end marker. Once every pane shows its marker the RSS
//! is read again: the growth over N × 10,000 lines is the cost of one line (screen and
//! bookkeeping included). tmux runs with the same `history-limit 10000`.

use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use serde_json::json;
use signaltty_proto::v1::{ReadMode, ReadPaneRequest, WriteInputRequest};

use super::{blocking, median_ms, sh, wait_for};
use crate::pty::{PtyChild, TERM_SIZE};
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::tmux::TmuxServer;
use crate::units::{ms, times};
use crate::{Bench, SectionOutput, stats};

/// Target: a plain scrollback line costs at most 150 bytes.
const TARGET_PLAIN_BYTES: f64 = 150.0;
/// Target: capturing a 10,000-line history takes at most 10 ms.
const TARGET_CAPTURE_MS: f64 = 10.0;

/// One kind of history (plain or coloured) in both servers.
struct Kind {
    name: &'static str,
    signaltty_panes: Vec<String>,
    tmux_sessions: Vec<String>,
    signaltty_bytes_per_line: Option<f64>,
    tmux_bytes_per_line: f64,
}

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    let corpus = bench.corpus()?;
    let sizes = &bench.sizes;
    let signaltty = if bench.with_signaltty {
        let (server, _) =
            SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("sb")).await?;
        let workspace = server.create_workspace(&bench.dir).await?;
        Some((server, workspace))
    } else {
        None
    };
    let mut tmux = TmuxServer::new(&bench.dir, &bench.unique("sb"), &bench.tmux_config);
    let mut kinds = Vec::new();
    for (name, file) in [
        ("plain", &corpus.history_plain),
        ("coloured", &corpus.history_coloured),
    ] {
        eprintln!(
            "  {} panes × {} {name} lines",
            sizes.history_panes, corpus.history_lines
        );
        let script = |i: usize| {
            format!(
                "read x; cat '{}'; printf 'SB-%s-DONE' {name}{i}; exec sleep 100000",
                file.display()
            )
        };
        let mut kind = Kind {
            name,
            signaltty_panes: Vec::new(),
            tmux_sessions: Vec::new(),
            signaltty_bytes_per_line: None,
            tmux_bytes_per_line: 0.0,
        };
        for i in 0..sizes.history_panes {
            if let Some((server, workspace)) = &signaltty {
                kind.signaltty_panes
                    .push(server.spawn_pane(workspace, &sh(&script(i))).await?.id);
            }
            let session = format!("{name}{i}");
            tmux.new_session(&session, &sh(&script(i))).await?;
            kind.tmux_sessions.push(session);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let sig_before = rss(signaltty.as_ref().map(|(s, _)| s.pid()))?;
        let tmux_before = rss(Some(tmux.pid()?))?.context("tmux rss")?;
        let mut send = Vec::new();
        for session in &kind.tmux_sessions {
            send.extend(["send-keys", "-t", session, "Enter", ";"].map(String::from));
        }
        send.pop();
        tmux.run(&send).await?;
        if let Some((server, _)) = &signaltty {
            for pane in &kind.signaltty_panes {
                server
                    .panes()
                    .write_input(WriteInputRequest {
                        pane_id: pane.clone(),
                        data: b"\n".to_vec(),
                        timeout_ms: 5000,
                    })
                    .await
                    .context("WriteInput")?;
            }
        }
        for (i, session) in kind.tmux_sessions.iter().enumerate() {
            let marker = format!("SB-{name}{i}-DONE");
            wait_for(|| async {
                Ok(tmux
                    .run(&["capture-pane", "-p", "-t", session])
                    .await?
                    .contains(&marker))
            })
            .await?;
        }
        if let Some((server, _)) = &signaltty {
            for (i, pane) in kind.signaltty_panes.iter().enumerate() {
                let marker = format!("SB-{name}{i}-DONE");
                wait_for(|| async {
                    let screen = read_pane(server, pane, ReadMode::Screen).await?;
                    Ok(screen.iter().any(|l| l.contains(&marker)))
                })
                .await?;
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let lines = (sizes.history_panes * corpus.history_lines) as f64;
        let tmux_after = rss(Some(tmux.pid()?))?.context("tmux rss")?;
        kind.tmux_bytes_per_line = (tmux_after as f64 - tmux_before as f64) * 1024.0 / lines;
        if let (Some(before), Some(after)) =
            (sig_before, rss(signaltty.as_ref().map(|(s, _)| s.pid()))?)
        {
            kind.signaltty_bytes_per_line = Some((after as f64 - before as f64) * 1024.0 / lines);
        }
        kinds.push(kind);
    }

    // Capture and attach, on the first plain pane of each server.
    let plain = kinds.first().context("no plain panes")?;
    let tmux_target = plain.tmux_sessions.first().context("no tmux pane")?.clone();
    let marker = "SB-plain0-DONE";
    let tmux_history: u64 = tmux
        .run(&[
            "display-message",
            "-p",
            "-t",
            &tmux_target,
            "#{history_size}",
        ])
        .await?
        .trim()
        .parse()
        .context("history_size")?;
    let (mut sig_capture, mut tmux_capture) = (Vec::new(), Vec::new());
    let (mut sig_attach, mut tmux_attach) = (Vec::new(), Vec::new());
    let mut sig_lines = 0;
    let mut tmux_lines = 0;
    for _ in 0..sizes.reps {
        if let (Some((server, _)), Some(pane)) = (&signaltty, plain.signaltty_panes.first()) {
            let started = Instant::now();
            let lines = read_pane(server, pane, ReadMode::Scrollback).await?;
            sig_capture.push(started.elapsed());
            sig_lines = lines.len();
            let started = Instant::now();
            let (attachment, snapshot) = server.attach(pane).await?;
            sig_attach.push(started.elapsed());
            drop(attachment);
            ensure!(
                memchr::memmem::find(&snapshot.screen, marker.as_bytes()).is_some(),
                "the attach Snapshot lacks the pane's last line"
            );
        }
        let started = Instant::now();
        let captured = tmux
            .run(&["capture-pane", "-p", "-S", "-10000", "-t", &tmux_target])
            .await?;
        tmux_capture.push(started.elapsed());
        tmux_lines = captured.lines().count();
        let mut argv = tmux.base_argv();
        argv.extend(["attach-session".into(), "-t".into(), tmux_target.clone()]);
        let started = Instant::now();
        let client = PtyChild::spawn(&argv, TERM_SIZE)?;
        let deadline = Instant::now() + Duration::from_secs(10);
        let (client, _) =
            blocking(client, move |c| c.drain_until(marker.as_bytes(), deadline)).await?;
        tmux_attach.push(started.elapsed());
        tokio::task::spawn_blocking(move || drop(client)).await?;
    }
    ensure!(
        !bench.with_signaltty || sig_lines >= corpus.history_lines,
        "ReadPane SCROLLBACK returned {sig_lines} lines"
    );
    ensure!(
        tmux_lines >= corpus.history_lines,
        "capture-pane returned {tmux_lines} lines"
    );
    drop(signaltty);
    drop(tmux);

    let mut output = SectionOutput::default();
    for kind in &kinds {
        let mut row = Row::new(format!(
            "scrollback per line, {} ({}×{} lines)",
            kind.name, sizes.history_panes, corpus.history_lines
        ))
        .tmux(format!("{:.0} B", kind.tmux_bytes_per_line));
        if let Some(b) = kind.signaltty_bytes_per_line {
            row = row
                .signaltty(format!("{b:.0} B"))
                .ratio(format!("{} tmux", times(b / kind.tmux_bytes_per_line)));
            if kind.name == "plain" {
                row = row.target("≤ 150 B", Some(b <= TARGET_PLAIN_BYTES));
            }
        }
        output.rows.push(row);
    }
    let (sc, tc) = (median_ms(&sig_capture), median_ms(&tmux_capture));
    let mut row = Row::new(format!(
        "capture {}-line history (median)",
        corpus.history_lines
    ))
    .tmux(ms(tc));
    if bench.with_signaltty {
        row = row
            .signaltty(ms(sc))
            .ratio(format!("{} tmux", times(sc / tc)))
            .target("≤ 10 ms", Some(sc <= TARGET_CAPTURE_MS));
    }
    output.rows.push(row);
    let (sa, ta) = (median_ms(&sig_attach), median_ms(&tmux_attach));
    let mut row = Row::new("attach to a full-history pane (median)").tmux(ms(ta));
    if bench.with_signaltty {
        row = row
            .signaltty(ms(sa))
            .ratio(format!("{} tmux", times(sa / ta)));
    }
    output.rows.push(row);
    output.details = json!({
        "panes_per_kind": sizes.history_panes,
        "lines_per_pane": corpus.history_lines,
        "bytes_per_line": kinds.iter().map(|k| json!({
            "kind": k.name, "signaltty": k.signaltty_bytes_per_line, "tmux": k.tmux_bytes_per_line,
        })).collect::<Vec<_>>(),
        "file_bytes": {
            "plain": std::fs::metadata(&corpus.history_plain)?.len(),
            "coloured": std::fs::metadata(&corpus.history_coloured)?.len(),
        },
        "captured_lines": { "signaltty": sig_lines, "tmux": tmux_lines },
        "tmux_history_size": tmux_history,
        "capture_ms": { "signaltty": stats::millis(&sig_capture), "tmux": stats::millis(&tmux_capture) },
        "attach_ms": { "signaltty": stats::millis(&sig_attach), "tmux": stats::millis(&tmux_attach) },
    });
    output.notes.push(
        "scrollback: bytes per line = growth of server VmRSS while N panes each receive 10,000 \
         lines (80×24 panes), / (N × 10,000); includes the screen and allocator slack. Capture: \
         ReadPane SCROLLBACK vs `tmux capture-pane -p -S -10000` (a CLI process). Attach: \
         Start → first Snapshot vs starting `tmux attach` on a PTY until the pane's last line \
         is drawn (includes the tmux client's start)."
            .into(),
    );
    Ok(output)
}

/// VmRSS of `pid` in KiB, when there is a pid.
fn rss(pid: Option<u32>) -> anyhow::Result<Option<u64>> {
    Ok(pid
        .map(crate::procfs::ProcSample::read)
        .transpose()?
        .map(|s| s.rss_kib))
}

async fn read_pane(
    server: &SignalttyServer,
    pane: &str,
    mode: ReadMode,
) -> anyhow::Result<Vec<String>> {
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
