//! Echo and throughput through SSH (issue 33): the real `signaltty --remote NAME attach PANE`
//! on a PTY against `ssh -tt HOST tmux attach` on a PTY, over one private sshd on loopback —
//! the "remote" is this machine, so the link is the SSH channel and nothing else.
//!
//! Four clients, each on a PTY the benchmark types into and drains the same way:
//! - raw: `ssh -tt HOST sh -c SCRIPT`, the link's own limit (no multiplexer);
//! - signaltty: `signaltty --remote bench attach PANE`, which runs `ssh -tt HOST signaltty
//!   attach PANE` (the remote CLI hands ssh's terminal to its server) on a login of its own
//!   (`ControlMaster=no`, `ControlPath=none`), like tmux's ssh: the fair comparison;
//! - signaltty, shared login: the same through a remote without those options, i.e. over the
//!   shared connection signaltty sets up by default (a ControlMaster in the socket dir: one
//!   more hop, the mux client, between the CLI and the link);
//! - tmux: `ssh -tt HOST tmux -S SOCK attach -t SESSION`.
//!
//! Every ssh gets the same options ([`Sshd::ssh_options`]: no config file, so the same cipher
//! and no compression for all). The keys and transfers rotate between the clients in an order
//! shuffled per round, as in the `echo` and `throughput` sections, whose measuring code this
//! uses.

use std::time::{Duration, Instant};

use serde_json::json;

use super::blocking;
use super::echo::{SCRIPT, SETTLE, TYPING_PAUSE, WARMUP_KEYS, keystrokes, percentile, pty_echo};
use super::ssh_setup::{Client, Setup};
use super::throughput::{Transfer, ready_transfer, transfer_script};
use crate::corpus::Corpus;
use crate::order::round_order;
use crate::pty::PtyChild;
use crate::report::Row;
use crate::sshd::{SSHD, Sshd};
use crate::units::{mb_per_s, ms, times};
use crate::{Bench, SectionOutput, stats};

/// The target of issue 33: within 1.1× of `ssh -t host tmux attach`.
const TARGET: f64 = 1.1;

/// Runs the section; without `/usr/sbin/sshd` it is skipped with a row saying so.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    let Some(sshd) = Sshd::start(&bench.dir.join(bench.unique("sshd")))? else {
        let why = format!("{SSHD} is not installed (apt-get install openssh-server)");
        eprintln!("  SKIPPED: {why}");
        return Ok(SectionOutput {
            rows: vec![Row::new(format!("ssh: SKIPPED, {why}"))],
            details: json!({ "skipped": why }),
            notes: Vec::new(),
        });
    };
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let link = sshd.check_link()?;
    let mut setup = Setup::start(bench, sshd).await?;

    let (echo_rows, echo_details) = echo(bench, &mut setup).await?;
    let (tp_rows, tp_details) = throughput(bench, &mut setup).await?;
    let mut rows = echo_rows;
    rows.extend(tp_rows);
    Ok(SectionOutput {
        rows,
        details: json!({
            "link": link,
            "load_at_start": load.trim(),
            "echo": echo_details,
            "throughput": tp_details,
        }),
        notes: vec![format!(
            "ssh: every client on a PTY through one private sshd on 127.0.0.1 ({link}); all ssh \
             with the same options (-F none, one key, -e none, BatchMode, ServerAlive*). raw = \
             `ssh -tt HOST sh -c CMD`, the link alone. signaltty = `signaltty --remote NAME \
             attach PANE`, i.e. `ssh -tt HOST signaltty attach PANE` on a login of its own \
             (ControlMaster=no, as tmux's ssh); \"shared login\" rows: the same over signaltty's default shared connection \
             (ControlMaster=auto in the socket dir). tmux = `ssh -tt HOST tmux -S SOCK attach`. \
             Echo: `{SCRIPT}`, measured as the echo section does ({} s of rest, {WARMUP_KEYS} \
             unmeasured keys each, batches rotating in a shuffled order; typing pace: one key \
             per client in turn, each after {} ms of rest). Throughput: a pane `cat`s a plain \
             file, timed from the newline to the end marker in the client's PTY; ratio = median \
             of per-round (signaltty time / tmux time). Target (issue 33): ≤ {TARGET}× tmux.",
            SETTLE.as_secs(),
            TYPING_PAUSE.as_millis()
        )],
    })
}

/// The clients this run measures.
fn measured(bench: &Bench) -> Vec<Client> {
    Client::ALL
        .into_iter()
        .filter(|c| bench.with_signaltty || !c.is_signaltty())
        .collect()
}

/// Echo latency through each client: batches, then typing pace.
async fn echo(bench: &Bench, setup: &mut Setup) -> anyhow::Result<(Vec<Row>, serde_json::Value)> {
    let deadline = || Instant::now() + Duration::from_secs(60);
    let mut ptys: [Option<PtyChild>; 4] = Default::default();
    let mut to_close = Vec::new();
    for who in measured(bench) {
        let opened = setup.open(who, SCRIPT, &bench.unique("")).await?;
        let (pty, _) = blocking(opened.pty, move |p| p.drain_until(b"READY", deadline())).await?;
        let (pty, _) = pty_echo(pty, &keystrokes(20)).await?;
        ptys[who as usize] = Some(pty);
        to_close.push((opened.pane, opened.session));
    }
    tokio::time::sleep(SETTLE).await;
    let batch = bench.sizes.echo_batch.max(1);
    rotate(&mut ptys, &keystrokes(WARMUP_KEYS), (batch, Duration::ZERO)).await?;
    let keys = keystrokes(bench.sizes.ssh_echo_keys);
    let batches = rotate(&mut ptys, &keys, (batch, Duration::ZERO)).await?;
    let typing_keys = keystrokes(bench.sizes.ssh_typing_keys);
    let typing = rotate(&mut ptys, &typing_keys, (1, TYPING_PAUSE)).await?;
    drop(ptys);
    for (pane, session) in to_close {
        setup.close(pane, session).await?;
    }

    let mut rows = echo_rows(
        &format!("batches of {batch} ({} keys)", keys.len()),
        &batches,
    );
    rows.extend(echo_rows(
        &format!(
            "keys {} ms apart ({} keys)",
            TYPING_PAUSE.as_millis(),
            typing_keys.len()
        ),
        &typing,
    ));
    let per_client = |lat: &[Vec<Duration>; 4]| {
        let map: serde_json::Map<_, _> = Client::ALL
            .iter()
            .map(|c| {
                (
                    format!("{}_ms", c.key()),
                    json!(stats::millis(&lat[*c as usize])),
                )
            })
            .collect();
        serde_json::Value::Object(map)
    };
    Ok((
        rows,
        json!({ "batch": batch, "batches": per_client(&batches), "typing": per_client(&typing) }),
    ))
}

/// Latencies per client (indexed as [`Client::ALL`]) over `keys`, in batches of `batch`
/// rotating between the clients in a shuffled order, each batch after `pause`.
async fn rotate(
    ptys: &mut [Option<PtyChild>; 4],
    keys: &[Vec<u8>],
    (batch, pause): (usize, Duration),
) -> anyhow::Result<[Vec<Duration>; 4]> {
    let mut lat: [Vec<Duration>; 4] = Default::default();
    for (round, chunk) in keys.chunks(batch).enumerate() {
        for i in round_order::<4>(round as u64) {
            let Some(pty) = ptys[i].take() else { continue };
            if !pause.is_zero() {
                tokio::time::sleep(pause).await;
            }
            let (pty, got) = pty_echo(pty, chunk).await?;
            ptys[i] = Some(pty);
            lat[i].extend(got);
        }
    }
    Ok(lat)
}

/// p50 and p99 rows: signaltty (own login) against tmux with the target, raw ssh beside them;
/// then the shared login against tmux, for information.
fn echo_rows(what: &str, lat: &[Vec<Duration>; 4]) -> Vec<Row> {
    let at = |c: Client, p: f64| percentile(&lat[c as usize], p);
    let mut rows = Vec::new();
    for p in [50.0, 99.0] {
        let tmux = at(Client::Tmux, p);
        let mut row = Row::new(format!("ssh echo p{p:.0}, {what}"))
            .tmux(ms(tmux))
            .raw(format!("{} (ssh)", ms(at(Client::Raw, p))));
        if !lat[Client::Signaltty as usize].is_empty() {
            let s = at(Client::Signaltty, p);
            row = row
                .signaltty(ms(s))
                .ratio(format!("{} tmux", times(s / tmux)))
                .target(format!("≤ {TARGET}× tmux"), Some(s <= TARGET * tmux));
        }
        rows.push(row);
    }
    if !lat[Client::Shared as usize].is_empty() {
        for p in [50.0, 99.0] {
            let (s, tmux) = (at(Client::Shared, p), at(Client::Tmux, p));
            rows.push(
                Row::new(format!("ssh echo p{p:.0}, {what}, shared ssh login"))
                    .signaltty(ms(s))
                    .tmux(ms(tmux))
                    .ratio(format!("{} tmux", times(s / tmux))),
            );
        }
    }
    rows
}

/// Attached throughput through each client: rounds of one transfer each, in a shuffled order.
async fn throughput(
    bench: &Bench,
    setup: &mut Setup,
) -> anyhow::Result<(Vec<Row>, serde_json::Value)> {
    let file = bench.dir.join("ssh-plain.txt");
    let bytes = {
        let (file, bytes) = (file.clone(), bench.sizes.ssh_bytes);
        tokio::task::spawn_blocking(move || Corpus::plain_file(&file, bytes)).await??
    };
    let limit = Duration::from_secs(60 + bytes / 1_000_000);
    let clients = measured(bench);
    let mut seconds: [Vec<f64>; 4] = Default::default();
    for round in 0..bench.sizes.ssh_rounds {
        for who in round_order::<4>(round as u64).map(|i| Client::ALL[i]) {
            if !clients.contains(&who) {
                continue;
            }
            eprintln!("  round {} throughput: {}", round + 1, who.key());
            let n = bench.unique("");
            let (script, marker) = transfer_script(&file, &n);
            let opened = setup.open(who, &script, &n).await?;
            let Transfer { seconds: s, .. } = ready_transfer(opened.pty, &marker, limit).await?;
            setup.close(opened.pane, opened.session).await?;
            seconds[who as usize].push(s);
        }
    }

    let rate = |c: Client| {
        stats::median(&seconds[c as usize]).map_or(String::new(), |s| mb_per_s(bytes, s))
    };
    // Per round, against tmux's time in the same round.
    let over_tmux = |c: Client| {
        let pairs = seconds[c as usize]
            .iter()
            .zip(&seconds[Client::Tmux as usize]);
        stats::median(&pairs.map(|(s, t)| s / t).collect::<Vec<_>>())
    };
    let name = format!(
        "ssh throughput plain {} MB, attached (median of {})",
        bytes / 1_000_000,
        bench.sizes.ssh_rounds
    );
    let mut row = Row::new(name.clone())
        .tmux(rate(Client::Tmux))
        .raw(format!("{} (ssh)", rate(Client::Raw)));
    if let Some(r) = over_tmux(Client::Signaltty) {
        row = row
            .signaltty(rate(Client::Signaltty))
            .ratio(format!("{} tmux time", times(r)))
            .target(format!("≤ {TARGET}× tmux"), Some(r <= TARGET));
    }
    let mut rows = vec![row];
    if let Some(r) = over_tmux(Client::Shared) {
        rows.push(
            Row::new(format!("{name}, shared ssh login"))
                .signaltty(rate(Client::Shared))
                .tmux(rate(Client::Tmux))
                .ratio(format!("{} tmux time", times(r))),
        );
    }
    let details: serde_json::Map<_, _> = Client::ALL
        .iter()
        .map(|c| (format!("{}_s", c.key()), json!(seconds[*c as usize])))
        .chain([("bytes".to_owned(), json!(bytes))])
        .collect();
    Ok((rows, serde_json::Value::Object(details)))
}
