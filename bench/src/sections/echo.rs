//! Keystroke echo latency: one key at a time into `stty raw -echo; cat`, timed until the key
//! comes back — through a bare PTY, through signaltty's Attach stream (Input → Output), and
//! through a real `tmux attach` client on a PTY the benchmark drains. The keys are split into
//! batches interleaved across the three systems; p50/p99 over all keys of each.

use std::time::{Duration, Instant};

use anyhow::bail;
use serde_json::json;
use signaltty_proto::v1::attach_response::Kind;

use super::{blocking, sh};
use crate::pty::{PtyChild, TERM_SIZE};
use crate::report::Row;
use crate::signaltty::{Attachment, SignalttyServer};
use crate::tmux::TmuxServer;
use crate::units::{ms, times};
use crate::{Bench, SectionOutput, stats};

/// Raw mode so each key is echoed at once by `cat`, not by the line discipline.
const SCRIPT: &str = "stty raw -echo; printf READY; exec cat";

/// Keys unseen in the escape sequences tmux writes while echoing.
const KEYS: &[u8] = b"vwxyz";

/// Every this many keys a carriage return rides along, so the line never wraps or scrolls.
const LINE: usize = 60;

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    let sizes = &bench.sizes;
    let keys = keystrokes(sizes.echo_keys);
    let warmup = keystrokes(20);
    let batch = sizes.echo_batch.max(1);
    let deadline = || Instant::now() + Duration::from_secs(60);

    let mut raw = PtyChild::spawn(&sh(SCRIPT), TERM_SIZE)?;
    let mut tmux = TmuxServer::new(&bench.dir, &bench.unique("echo"), &bench.tmux_config);
    tmux.new_session("echo", &sh(SCRIPT)).await?;
    let mut client = tmux.attach("echo").await?;
    (raw, _) = blocking(raw, move |p| p.drain_until(b"READY", deadline())).await?;
    (client, _) = blocking(client, move |p| p.drain_until(b"READY", deadline())).await?;
    (raw, _) = blocking(raw, {
        let w = warmup.clone();
        move |p| p.echo_latencies(&w, deadline())
    })
    .await?;
    (client, _) = blocking(client, {
        let w = warmup.clone();
        move |p| p.echo_latencies(&w, deadline())
    })
    .await?;

    let signaltty = if bench.with_signaltty {
        let (server, _) =
            SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("echo")).await?;
        let workspace = server.create_workspace(&bench.dir).await?;
        let pane = server.spawn_pane(&workspace, &sh(SCRIPT)).await?;
        let (mut attachment, snapshot) = server.attach(&pane.id).await?;
        if memchr::memmem::find(&snapshot.screen, b"READY").is_none() {
            tokio::time::timeout(Duration::from_secs(10), attachment.until(b"READY")).await??;
        }
        attach_echo(&mut attachment, &warmup).await?;
        Some((server, attachment))
    } else {
        None
    };
    let mut signaltty = signaltty;

    let (mut raw_lat, mut sig_lat, mut tmux_lat) = (Vec::new(), Vec::new(), Vec::new());
    for chunk in keys.chunks(batch) {
        let lat;
        (raw, lat) = blocking(raw, {
            let c = chunk.to_vec();
            move |p| p.echo_latencies(&c, deadline())
        })
        .await?;
        raw_lat.extend(lat);
        if let Some((_, attachment)) = signaltty.as_mut() {
            sig_lat.extend(attach_echo(attachment, chunk).await?);
        }
        let lat;
        (client, lat) = blocking(client, {
            let c = chunk.to_vec();
            move |p| p.echo_latencies(&c, deadline())
        })
        .await?;
        tmux_lat.extend(lat);
    }
    drop((raw, client, signaltty));

    let pct = |lat: &[Duration], p: f64| stats::percentile(&stats::millis(lat), p).unwrap_or(0.0);
    let mut rows = Vec::new();
    for p in [50.0, 99.0] {
        let (s, t, r) = (pct(&sig_lat, p), pct(&tmux_lat, p), pct(&raw_lat, p));
        let mut row = Row::new(format!("echo latency p{p:.0} ({} keys)", raw_lat.len()))
            .tmux(ms(t))
            .raw(ms(r));
        if bench.with_signaltty {
            row = row.signaltty(ms(s)).ratio(format!("{} tmux", times(s / t)));
            if p >= 99.0 {
                row = row.target("≤ tmux p99", Some(s <= t));
            }
        }
        rows.push(row);
    }
    Ok(SectionOutput {
        rows,
        details: json!({
            "keys_per_system": raw_lat.len(),
            "batch": batch,
            "raw_ms": stats::millis(&raw_lat),
            "signaltty_ms": stats::millis(&sig_lat),
            "tmux_ms": stats::millis(&tmux_lat),
        }),
        notes: vec![format!(
            "echo: `stty raw -echo; cat`; one key at a time (every {LINE}th also sends CR), timed \
             from write to the key's byte arriving: raw = bare PTY; signaltty = Attach Input → \
             Output; tmux = key written to the PTY of a `tmux attach` client, until it appears \
             in that client's output. Batches of {batch} keys rotate raw, signaltty, tmux, so \
             all three see the same machine states (waking an idle vCPU of a VM is slow, which \
             makes latencies bimodal)."
        )],
    })
}

/// `count` keystrokes cycling through `KEYS`, every `LINE`th preceded by a carriage return.
fn keystrokes(count: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| {
            let key = KEYS[i % KEYS.len()];
            if i % LINE == LINE - 1 {
                vec![b'\r', key]
            } else {
                vec![key]
            }
        })
        .collect()
}

/// Echo latencies through an Attach stream.
async fn attach_echo(
    attachment: &mut Attachment,
    keystrokes: &[Vec<u8>],
) -> anyhow::Result<Vec<Duration>> {
    let mut latencies = Vec::with_capacity(keystrokes.len());
    for keystroke in keystrokes {
        let Some(&awaited) = keystroke.last() else {
            bail!("empty keystroke")
        };
        let start = Instant::now();
        attachment.input(keystroke).await?;
        let wait = async {
            loop {
                match attachment.next().await? {
                    Kind::Output(o) if memchr::memchr(awaited, &o.data).is_some() => break,
                    Kind::Snapshot(s) if memchr::memchr(awaited, &s.screen).is_some() => break,
                    _ => {}
                }
            }
            anyhow::Ok(())
        };
        tokio::time::timeout(Duration::from_secs(10), wait).await??;
        latencies.push(start.elapsed());
    }
    Ok(latencies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keystrokes_return_to_column_zero_before_the_line_fills() {
        let keys = keystrokes(130);
        assert_eq!(keys.len(), 130);
        assert_eq!(keys[LINE - 1], vec![b'\r', KEYS[(LINE - 1) % KEYS.len()]]);
        assert!(keys.iter().filter(|k| k.len() == 1).count() == 128);
        assert!(LINE < usize::from(TERM_SIZE.cols));
    }
}
