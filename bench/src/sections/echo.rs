//! Keystroke echo latency: one key at a time into `stty raw -echo; cat`, timed until the key
//! comes back — through a bare PTY, through the real `signaltty attach` client on a PTY, through
//! a real `tmux attach` client on a PTY (both typed into and drained the same way), and, as
//! separate "API" rows, through an in-process gRPC Attach stream (Input → Output). The keys are
//! split into batches interleaved across the systems; p50/p99 over all keys of each.

use std::time::{Duration, Instant};

use anyhow::bail;
use serde_json::json;
use signaltty_proto::v1::attach_response::Kind;

use super::{blocking, sh};
use crate::order::round_order;
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
pub(crate) const TYPING_PAUSE: Duration = Duration::from_millis(20);

/// Rest after every system is up, before any key is measured: the servers start one after the
/// other, and the last one's start-up work (its first debounced save comes 2 s after its panes
/// were made) would otherwise fall inside the ~3 s of batches.
pub(crate) const SETTLE: Duration = Duration::from_secs(3);

/// Unmeasured keys per system, in batches, right before the measured ones: the first few
/// hundred keys after a start ran slower for every system, the raw PTY included (median 0.07–0.15
/// ms against 0.04 for the rest, session 14), which put a start-up transient into the p99s.
pub(crate) const WARMUP_KEYS: usize = 300;

/// What the flooding pane runs: output as fast as the terminal takes it.
const FLOOD: &str = "yes 'a line of output from an agent that floods its pane 0123456789'";

/// The clients one key goes through, in turn.
struct Systems<'a> {
    /// A bare PTY running the echoing program.
    raw: PtyChild,
    /// `tmux attach` on a PTY.
    tmux: PtyChild,
    /// `signaltty attach PANE` on a PTY: the user's client.
    cli: Option<PtyChild>,
    /// The in-process gRPC Attach stream (the API).
    api: Option<&'a mut Attachment>,
}

/// One of [`Systems`], to take turns by.
#[derive(Clone, Copy)]
enum Who {
    Raw,
    Cli,
    Api,
    Tmux,
}

impl Who {
    const ALL: [Who; 4] = [Who::Raw, Who::Cli, Who::Api, Who::Tmux];
}

/// Latencies per system.
#[derive(Default)]
struct Latencies {
    raw: Vec<Duration>,
    tmux: Vec<Duration>,
    cli: Vec<Duration>,
    api: Vec<Duration>,
}

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

    // The user's client (`signaltty attach` on a PTY) and the API client each type into a
    // pane of their own on the same server.
    let mut signaltty = None;
    let mut api = None;
    let mut cli = None;
    if bench.with_signaltty {
        let (server, _) =
            SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("echo")).await?;
        let workspace = server.create_workspace(&bench.dir).await?;
        let pane = server.spawn_pane(&workspace, &sh(SCRIPT)).await?;
        let (mut attachment, snapshot) = server.attach(&pane.id).await?;
        if memchr::memmem::find(&snapshot.screen, b"READY").is_none() {
            tokio::time::timeout(Duration::from_secs(10), attachment.until(b"READY")).await??;
        }
        attach_echo(&mut attachment, &warmup).await?;
        let cli_pane = server.spawn_pane(&workspace, &sh(SCRIPT)).await?;
        let mut attached = server.attach_cli(&bench.cli_bin, &cli_pane.id)?;
        (attached, _) = blocking(attached, move |p| p.drain_until(b"READY", deadline())).await?;
        (attached, _) = pty_echo(attached, &warmup).await?;
        cli = Some(attached);
        signaltty = Some(server);
        api = Some(attachment);
    }

    let mut systems = Systems {
        raw,
        tmux: client,
        cli,
        api: api.as_mut(),
    };
    tokio::time::sleep(SETTLE).await;
    (systems, _) = rotate(systems, &keystrokes(WARMUP_KEYS), (batch, Duration::ZERO)).await?;
    let batch_lat;
    (systems, batch_lat) = rotate(systems, &keys, (batch, Duration::ZERO)).await?;

    // One key at a time after a pause, as a person types: every key finds the path asleep.
    let mut typing = Latencies::default();
    if sizes.echo_typing_keys > 0 {
        (systems, typing) = rotate(
            systems,
            &keystrokes(sizes.echo_typing_keys),
            (1, TYPING_PAUSE),
        )
        .await?;
    }

    // The same again while another pane in each multiplexer floods an attached client (a
    // second `tmux attach`, a second `signaltty attach`, each on a drained PTY): typing must
    // not wait for someone else's output (agents print a lot).
    let mut flood = Latencies::default();
    if sizes.echo_flood_keys > 0 {
        tmux.new_session("flood", &sh(FLOOD)).await?;
        drain_in_background(tmux.attach("flood").await?);
        if let Some(server) = signaltty.as_ref() {
            let workspace = server.create_workspace(&bench.dir).await?;
            let flood = server.spawn_pane(&workspace, &sh(FLOOD)).await?;
            drain_in_background(server.attach_cli(&bench.cli_bin, &flood.id)?);
        }
        (systems, flood) = rotate(
            systems,
            &keystrokes(sizes.echo_flood_keys),
            (batch, Duration::ZERO),
        )
        .await?;
    }
    drop(systems);
    drop(api);
    drop(signaltty);

    let with = bench.with_signaltty;
    let mut rows = comparison_rows(
        &format!("batches of {batch} ({} keys)", batch_lat.raw.len()),
        &batch_lat,
        with,
        true,
    );
    if sizes.echo_typing_keys > 0 {
        rows.extend(comparison_rows(
            &format!(
                "keys {} ms apart ({} keys)",
                TYPING_PAUSE.as_millis(),
                typing.tmux.len()
            ),
            &typing,
            with,
            true,
        ));
    }
    if sizes.echo_flood_keys > 0 {
        rows.extend(comparison_rows(
            &format!("another pane flooding ({} keys)", flood.tmux.len()),
            &flood,
            with,
            false,
        ));
    }
    if with {
        rows.extend(api_rows("batches", &batch_lat));
        if sizes.echo_typing_keys > 0 {
            rows.extend(api_rows("typing pace", &typing));
        }
    }
    let ms_of = |l: &Latencies| {
        json!({
            "raw_ms": stats::millis(&l.raw),
            "signaltty_attach_ms": stats::millis(&l.cli),
            "api_ms": stats::millis(&l.api),
            "tmux_ms": stats::millis(&l.tmux),
        })
    };
    Ok(SectionOutput {
        rows,
        details: json!({
            "keys_per_system": batch_lat.raw.len(),
            "batch": batch,
            "typing_pause_ms": TYPING_PAUSE.as_millis(),
            "batches": ms_of(&batch_lat),
            "typing": ms_of(&typing),
            "flood": ms_of(&flood),
        }),
        notes: vec![format!(
            "echo: `stty raw -echo; cat`; one key at a time (every {LINE}th also sends CR), timed \
             from write to the key's byte arriving. raw = bare PTY. signaltty = the real \
             `signaltty attach PANE` client on a PTY: the key is written to that PTY and timed \
             until it appears in that client's output (the user's path). tmux = the same with a \
             `tmux attach` client. API rows = the benchmark's in-process gRPC Attach stream \
             (Input → Output) on an open connection, no terminal; tmux's API is control mode, \
             which this benchmark does not drive, so API rows are compared with `tmux attach` \
             only for scale. Measured settled: {} s of rest once every system is up, then \
             {WARMUP_KEYS} unmeasured keys each. Batches of {batch} keys rotate raw, signaltty \
             attach, API, tmux, in an order shuffled each round, so all see the same machine \
             states and none has a fixed place in the round (waking an idle vCPU of a VM is \
             slow, which makes latencies bimodal). Typing pace: one key per system in turn, \
             each after {} ms of rest, so every key finds the whole path asleep, as a person's \
             do. Flooding: the same as the batches, while another pane of each multiplexer runs \
             `yes` with a real attached client on a drained PTY.",
            SETTLE.as_secs(),
            TYPING_PAUSE.as_millis()
        )],
    })
}

/// Latencies over `keys`, in batches of `batch` rotating between the systems, each batch after
/// `pause` (a person's pace) or at once.
async fn rotate<'a>(
    mut systems: Systems<'a>,
    keys: &[Vec<u8>],
    (batch, pause): (usize, Duration),
) -> anyhow::Result<(Systems<'a>, Latencies)> {
    let mut lat = Latencies::default();
    let rest = || async {
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    };
    for (round, chunk) in keys.chunks(batch).enumerate() {
        // The four systems in this round's order (`crate::order`).
        for system in round_order::<4>(round as u64).map(|i| Who::ALL[i]) {
            match system {
                Who::Raw => {
                    rest().await;
                    let got;
                    (systems.raw, got) = pty_echo(systems.raw, chunk).await?;
                    lat.raw.extend(got);
                }
                Who::Cli => {
                    if let Some(cli) = systems.cli.take() {
                        rest().await;
                        let (cli, got) = pty_echo(cli, chunk).await?;
                        systems.cli = Some(cli);
                        lat.cli.extend(got);
                    }
                }
                Who::Api => {
                    if let Some(api) = systems.api.as_deref_mut() {
                        rest().await;
                        lat.api.extend(attach_echo(api, chunk).await?);
                    }
                }
                Who::Tmux => {
                    rest().await;
                    let got;
                    (systems.tmux, got) = pty_echo(systems.tmux, chunk).await?;
                    lat.tmux.extend(got);
                }
            }
        }
    }
    Ok((systems, lat))
}

/// Echo latencies of `keys` typed one by one into `pty` (on the blocking pool).
pub(crate) async fn pty_echo(
    pty: PtyChild,
    keys: &[Vec<u8>],
) -> anyhow::Result<(PtyChild, Vec<Duration>)> {
    let keys = keys.to_vec();
    blocking(pty, move |p| {
        p.echo_latencies(&keys, Instant::now() + Duration::from_secs(60))
    })
    .await
}

/// p50 and p99 rows "echo pN, `what`": the real `signaltty attach` against `tmux attach`
/// (and the raw PTY when `with_raw`).
fn comparison_rows(what: &str, lat: &Latencies, with_signaltty: bool, with_raw: bool) -> Vec<Row> {
    [50.0, 99.0]
        .into_iter()
        .map(|p| {
            let (s, t) = (percentile(&lat.cli, p), percentile(&lat.tmux, p));
            let mut row = Row::new(format!("echo p{p:.0}, {what}")).tmux(ms(t));
            if with_raw {
                row = row.raw(ms(percentile(&lat.raw, p)));
            }
            if with_signaltty {
                row = row
                    .signaltty(ms(s))
                    .ratio(format!("{} tmux", times(s / t)))
                    .target("≤ tmux", Some(s <= t));
            }
            row
        })
        .collect()
}

/// p50 and p99 rows of the API client (in-process gRPC Attach, no terminal). tmux's API is
/// control mode, which is not measured: the ratio is to `tmux attach`, for scale only.
fn api_rows(what: &str, lat: &Latencies) -> Vec<Row> {
    [50.0, 99.0]
        .into_iter()
        .map(|p| {
            let (a, t) = (percentile(&lat.api, p), percentile(&lat.tmux, p));
            Row::new(format!(
                "API: echo p{p:.0}, {what} (gRPC Attach, no terminal)"
            ))
            .signaltty(ms(a))
            .ratio(format!("{} tmux attach", times(a / t)))
        })
        .collect()
}

/// The `p`th percentile of `lat` in milliseconds (0 when there are none).
pub(crate) fn percentile(lat: &[Duration], p: f64) -> f64 {
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
