//! Throughput of the pane output path against the raw PTY limit. A measurement, not a check
//! for CI: run it on purpose, in release mode:
//!
//! ```text
//! cargo test --release -p signaltty-server --test pty_throughput -- --ignored --nocapture
//! ```
//!
//! Both sides `cat` the same 200 MB text file through a fresh terminal in its default (cooked,
//! ONLCR) mode; the baseline reads the master with plain blocking 64 KiB reads and no channel.
//! "CPU here" is this process's CPU time (reader thread, channel, consumer), not cat's.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use signaltty_server::model::ids::PaneId;
use signaltty_server::pane::pty::{Pty, PtyEvent};
use signaltty_server::pane::spawn::SpawnSpec;

const FILE_BYTES: usize = 200 * 1000 * 1000;

fn text_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("text");
    let mut out = BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut written = 0;
    let mut n = 0u64;
    while written < FILE_BYTES {
        let line =
            format!("{n:08} the quick brown fox jumps over the lazy dog; lorem ipsum dolor\n");
        out.write_all(line.as_bytes()).unwrap();
        written += line.len();
        n += 1;
    }
    out.flush().unwrap();
    path
}

/// CPU seconds this process has used (user + system), from /proc/self/stat.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

fn mb_per_s(bytes: usize, elapsed: Duration) -> f64 {
    bytes as f64 / 1e6 / elapsed.as_secs_f64()
}

async fn through_pane(file: &Path) -> (usize, usize, Duration) {
    let spec = SpawnSpec::new(
        vec!["cat".into(), file.to_str().unwrap().into()],
        std::env::temp_dir(),
    );
    let started = Instant::now();
    let (_pty, mut rx) = Pty::spawn(PaneId::new(), Path::new("/s"), &spec).unwrap();
    let (mut bytes, mut chunks) = (0, 0);
    while let Some(event) = rx.recv().await {
        if let PtyEvent::Output { bytes: chunk } = event {
            bytes += chunk.len();
            chunks += 1;
        }
    }
    (bytes, chunks, started.elapsed())
}

fn raw(file: &Path) -> (usize, usize, Duration) {
    let started = Instant::now();
    let pty = nix::pty::openpty(None, None).unwrap();
    let mut child = Command::new("cat")
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::from(pty.slave))
        .spawn()
        .unwrap();
    let mut master = std::fs::File::from(pty.master);
    let mut buf = vec![0u8; 64 * 1024];
    let (mut bytes, mut reads) = (0, 0);
    loop {
        match master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                bytes += n;
                reads += 1;
            }
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) => panic!("{e}"),
        }
    }
    child.wait().unwrap();
    (bytes, reads, started.elapsed())
}

#[test]
#[ignore = "measurement: run in release with --ignored --nocapture"]
fn cat_200_mb_through_a_pane_vs_raw_reads() {
    let dir = tempfile::tempdir().unwrap();
    let file = text_file(dir.path());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    for round in 1..=3 {
        let cpu = cpu_seconds();
        let (bytes, reads, elapsed) = raw(&file);
        println!(
            "round {round} raw blocking reads: {bytes} B in {elapsed:.2?} = {:.1} MB/s, \
             {} B/read, {:.2} s CPU here",
            mb_per_s(bytes, elapsed),
            bytes / reads.max(1),
            cpu_seconds() - cpu
        );
        let cpu = cpu_seconds();
        let (bytes, chunks, elapsed) = runtime.block_on(through_pane(&file));
        println!(
            "round {round} pane reader:        {bytes} B in {elapsed:.2?} = {:.1} MB/s, \
             {} B/chunk, {:.2} s CPU here",
            mb_per_s(bytes, elapsed),
            bytes / chunks.max(1),
            cpu_seconds() - cpu
        );
        assert!(bytes > FILE_BYTES, "ONLCR adds a CR per line");
    }
}
