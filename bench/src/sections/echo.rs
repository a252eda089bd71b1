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
pub(crate) const SCRIPT: &str = "stty raw -echo; printf READY; exec cat";

/// Keys unseen in the escape sequences tmux writes while echoing.
const KEYS: &[u8] = b"vwxyz";

/// Every this many keys a carriage return rides along, so the line never wraps or scrolls.
const LINE: usize = 60;

/// The pause before each key typed at a person's pace: long enough for every process on the
/// path (and an idle vCPU) to go back to sleep, as between a person's keystrokes.
const TYPING_PAUSE: Duration = Duration::from_millis(20);

/// What the flooding pane runs: output as fast as the terminal takes it.
const FLOOD: &str = "yes 'a line of output from an agent that floods its pane 0123456789'";

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
    (raw, _) = pty_echo(raw, &warmup).await?;
    (client, _) = pty_echo(client, &warmup).await?;

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

    let (raw_lat, sig_lat, tmux_lat);
    (raw, client, (raw_lat, sig_lat, tmux_lat)) = rotate(
        raw,
        client,
        signaltty.as_mut().map(|(_, a)| a),
        &keys,
        (batch, Duration::ZERO),
    )
    .await?;

    // One key at a time after a pause, as a person types: every key finds the path asleep.
    let mut typing_rows = Vec::new();
    let (mut typing_raw, mut typing_sig, mut typing_tmux) = (Vec::new(), Vec::new(), Vec::new());
    if sizes.echo_typing_keys > 0 {
        (raw, client, (typing_raw, typing_sig, typing_tmux)) = rotate(
            raw,
            client,
            signaltty.as_mut().map(|(_, a)| a),
            &keystrokes(sizes.echo_typing_keys),
            (1, TYPING_PAUSE),
        )
        .await?;
        typing_rows = comparison_rows(
            &format!(
                "keys {} ms apart ({} keys)",
                TYPING_PAUSE.as_millis(),
                typing_tmux.len()
            ),
            (&typing_sig, &typing_tmux, Some(&typing_raw)),
            bench.with_signaltty,
        );
    }

    // The same again while another pane in each multiplexer floods an attached client: typing
    // must not wait for someone else's output (agents print a lot).
    let mut flood_rows = Vec::new();
    let (mut flood_sig, mut flood_tmux) = (Vec::new(), Vec::new());
    if sizes.echo_flood_keys > 0 {
        tmux.new_session("flood", &sh(FLOOD)).await?;
        drain_in_background(tmux.attach("flood").await?);
        if let Some((server, _)) = signaltty.as_ref() {
            let workspace = server.create_workspace(&bench.dir).await?;
            let flood = server.spawn_pane(&workspace, &sh(FLOOD)).await?;
            drain_attach_in_background(server.socket().to_path_buf(), flood.id);
        }
        (raw, client, (_, flood_sig, flood_tmux)) = rotate(
            raw,
            client,
            signaltty.as_mut().map(|(_, a)| a),
            &keystrokes(sizes.echo_flood_keys),
            (batch, Duration::ZERO),
        )
        .await?;
        flood_rows = comparison_rows(
            &format!("another pane flooding ({} keys)", flood_tmux.len()),
            (&flood_sig, &flood_tmux, None),
            bench.with_signaltty,
        );
    }
    drop((raw, client, signaltty));

    let pct = percentile;
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
    rows.extend(typing_rows);
    rows.extend(flood_rows);
    Ok(SectionOutput {
        rows,
        details: json!({
            "keys_per_system": raw_lat.len(),
            "batch": batch,
            "raw_ms": stats::millis(&raw_lat),
            "signaltty_ms": stats::millis(&sig_lat),
            "tmux_ms": stats::millis(&tmux_lat),
            "flood_signaltty_ms": stats::millis(&flood_sig),
            "flood_tmux_ms": stats::millis(&flood_tmux),
            "typing_pause_ms": TYPING_PAUSE.as_millis(),
            "typing_raw_ms": stats::millis(&typing_raw),
            "typing_signaltty_ms": stats::millis(&typing_sig),
            "typing_tmux_ms": stats::millis(&typing_tmux),
        }),
        notes: vec![format!(
            "echo: `stty raw -echo; cat`; one key at a time (every {LINE}th also sends CR), timed \
             from write to the key's byte arriving: raw = bare PTY; signaltty = Attach Input → \
             Output; tmux = key written to the PTY of a `tmux attach` client, until it appears \
             in that client's output. Batches of {batch} keys rotate raw, signaltty, tmux, so \
             all three see the same machine states (waking an idle vCPU of a VM is slow, which \
             makes latencies bimodal). Typing pace: one key per system in turn, each after \
             {} ms of rest, so every key finds the whole path asleep, as a person's do. \
             Flooding: the same as the first, while another pane of each multiplexer runs \
             `yes` with a client attached and drained (signaltty: a second connection; tmux: a \
             second `tmux attach`).",
            TYPING_PAUSE.as_millis()
        )],
    })
}

/// Latencies of (raw, signaltty, tmux) over `keys`, in batches of `batch` rotating between them,
/// each batch after `pause` (a person's pace) or at once.
async fn rotate(
    mut raw: PtyChild,
    mut client: PtyChild,
    mut attachment: Option<&mut Attachment>,
    keys: &[Vec<u8>],
    (batch, pause): (usize, Duration),
) -> anyhow::Result<(PtyChild, PtyChild, Latencies)> {
    let (mut raw_lat, mut sig_lat, mut tmux_lat) = (Vec::new(), Vec::new(), Vec::new());
    let rest = || async {
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    };
    for chunk in keys.chunks(batch) {
        rest().await;
        let lat;
        (raw, lat) = pty_echo(raw, chunk).await?;
        raw_lat.extend(lat);
        if let Some(attachment) = attachment.as_deref_mut() {
            rest().await;
            sig_lat.extend(attach_echo(attachment, chunk).await?);
        }
        rest().await;
        let lat;
        (client, lat) = pty_echo(client, chunk).await?;
        tmux_lat.extend(lat);
    }
    Ok((raw, client, (raw_lat, sig_lat, tmux_lat)))
}

type Latencies = (Vec<Duration>, Vec<Duration>, Vec<Duration>);

/// Echo latencies of `keys` typed one by one into `pty` (on the blocking pool).
async fn pty_echo(pty: PtyChild, keys: &[Vec<u8>]) -> anyhow::Result<(PtyChild, Vec<Duration>)> {
    let keys = keys.to_vec();
    blocking(pty, move |p| {
        p.echo_latencies(&keys, Instant::now() + Duration::from_secs(60))
    })
    .await
}

/// p50 and p99 rows "echo pN, `what`" comparing signaltty with tmux (and the raw PTY, if given).
fn comparison_rows(
    what: &str,
    (sig, tmux, raw): (&[Duration], &[Duration], Option<&[Duration]>),
    with_signaltty: bool,
) -> Vec<Row> {
    [50.0, 99.0]
        .into_iter()
        .map(|p| {
            let (s, t) = (percentile(sig, p), percentile(tmux, p));
            let mut row = Row::new(format!("echo p{p:.0}, {what}")).tmux(ms(t));
            if let Some(raw) = raw {
                row = row.raw(ms(percentile(raw, p)));
            }
            if with_signaltty {
                row = row.signaltty(ms(s)).ratio(format!("{} tmux", times(s / t)));
            }
            row
        })
        .collect()
}

fn percentile(lat: &[Duration], p: f64) -> f64 {
    stats::percentile(&stats::millis(lat), p).unwrap_or(0.0)
}

/// Reads a `tmux attach` client's terminal until it ends (the section's tmux server goes).
fn drain_in_background(mut client: PtyChild) {
    std::thread::spawn(move || {
        while client
            .drain_until(b"\0never\0", Instant::now() + Duration::from_secs(3600))
            .is_ok()
        {}
    });
}

/// Attaches to `pane` over a connection of its own, on a thread of its own (as another client
/// process would), and reads until the server goes.
pub(crate) fn drain_attach_in_background(socket: std::path::PathBuf, pane: String) {
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async move {
            let Ok((mut attachment, _)) = SignalttyServer::attach_at(&socket, &pane).await else {
                return;
            };
            while attachment.next().await.is_ok() {}
        });
    });
}

/// `count` keystrokes cycling through `KEYS`, every `LINE`th preceded by a carriage return.
pub(crate) fn keystrokes(count: usize) -> Vec<Vec<u8>> {
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
pub(crate) async fn attach_echo(
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
