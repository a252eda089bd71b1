//! Throughput and footprint measurements, ignored by default. Run once in release:
//! `cargo test --release -p signaltty-server term::throughput -- --ignored --nocapture`.
//! Each still asserts that the work was really done, so a broken pipeline cannot report a speed.

use std::time::Instant;

use super::screen::tests::flood_history;
use super::vt::{Row, Sink, Term};
use super::{HistoryLimits, OscScanner, Screen};

const TOTAL: usize = 50 * 1024 * 1024;
/// The size of one PTY read in the pane actor.
const CHUNK: usize = 8192;

/// Repeats `line(n)` until `TOTAL` bytes, as chunks of `CHUNK` bytes.
fn stream(mut line: impl FnMut(usize) -> String) -> Vec<u8> {
    let mut out = Vec::with_capacity(TOTAL + 4096);
    let mut n = 0;
    while out.len() < TOTAL {
        out.extend_from_slice(line(n).as_bytes());
        n += 1;
    }
    out
}

fn plain() -> Vec<u8> {
    stream(|n| format!("{n:>10} the quick brown fox jumps over the lazy dog 0123456789 abcdef\r\n"))
}

fn colour_256() -> Vec<u8> {
    stream(|n| {
        let mut line = String::new();
        for w in 0..8 {
            line.push_str(&format!("\x1b[38;5;{}m{:>8} ", (n + w) % 256, n + w));
        }
        line.push_str("\x1b[m\r\n");
        line
    })
}

fn colour_rgb() -> Vec<u8> {
    stream(|n| {
        let mut line = String::new();
        for w in 0..8 {
            let v = (n * 7 + w * 31) % 256;
            line.push_str(&format!(
                "\x1b[38;2;{v};{};{}m\x1b[48;2;0;0;{v}m{:>7} ",
                255 - v,
                v / 2,
                n + w
            ));
        }
        line.push_str("\x1b[m\r\n");
        line
    })
}

fn mb_per_s(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0) / secs
}

/// CPU time of this thread so far, in seconds. The build machine is shared, so wall-clock time
/// includes waiting for a core; CPU time is what the pane actor would actually spend.
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").expect("schedstat readable");
    let ns: u64 = stat
        .split_whitespace()
        .next()
        .and_then(|f| f.parse().ok())
        .expect("run time in ns");
    ns as f64 / 1e9
}

/// Runs `work` and returns (wall seconds, CPU seconds).
fn timed(work: impl FnOnce()) -> (f64, f64) {
    let (wall, cpu) = (Instant::now(), cpu_secs());
    work();
    (wall.elapsed().as_secs_f64(), cpu_secs() - cpu)
}

fn report(what: &str, name: &str, bytes: usize, (wall, cpu): (f64, f64)) -> f64 {
    // The kernel accounts CPU time at scheduler ticks; a run of a few milliseconds can read 0.
    let speed = mb_per_s(bytes, if cpu > 0.05 { cpu } else { wall });
    println!(
        "{what:<14} {name:>10}: {speed:8.1} MB/s of CPU time ({:.1} MB/s wall clock)",
        mb_per_s(bytes, wall)
    );
    speed
}

fn feed_screen(name: &str, data: &[u8]) -> f64 {
    let mut screen = Screen::new(80, 24);
    let time = timed(|| {
        for chunk in data.chunks(CHUNK) {
            screen.feed(chunk);
        }
    });
    assert!(
        screen.history_len() > 1000,
        "{name}: output scrolled into history"
    );
    report("screen 80x24", name, data.len(), time)
}

/// The same work on a bare vt100 parser (no history capture, no OSC guard), as a baseline.
fn feed_bare_vt100(name: &str, data: &[u8]) -> f64 {
    let size = |n| std::num::NonZeroU16::new(n).expect("non-zero");
    let mut parser = vt100::Parser::new(size(24), size(80), 0);
    let time = timed(|| {
        for chunk in data.chunks(CHUNK) {
            parser.process(chunk);
        }
    });
    assert!(
        !parser.screen().contents().is_empty(),
        "{name}: something was drawn"
    );
    report("bare vt100", name, data.len(), time)
}

/// The emulator alone, rows scrolling off into nothing: what `Screen` adds on top is history.
fn feed_bare_term(name: &str, data: &[u8]) -> f64 {
    struct Discard;
    impl Sink for Discard {
        fn scrolled_off(&mut self, _: &Row, _: u16, _: crate::vt::LinePart) {}
        fn title(&mut self, _: &[u8]) {}
        fn clear_history(&mut self) {}
    }
    let mut term = Term::new(80, 24);
    let time = timed(|| {
        for chunk in data.chunks(CHUNK) {
            term.process(chunk, &mut Discard);
        }
    });
    assert!(
        term.row(0).is_some_and(|r| r.trimmed_len() > 0),
        "{name}: something was drawn"
    );
    report("bare term", name, data.len(), time)
}

fn scan(name: &str, data: &[u8]) -> f64 {
    let mut scanner = OscScanner::new();
    let mut events = 0;
    let time = timed(|| {
        for chunk in data.chunks(CHUNK) {
            events += scanner.scan(chunk).len();
        }
    });
    assert_eq!(events, 0, "{name}: no OSC in the data");
    report("osc scanner", name, data.len(), time)
}

#[test]
#[ignore = "measurement; run in release with --ignored --nocapture"]
fn throughput_of_screen_and_scanner() {
    for (name, data) in [
        ("plain", plain()),
        ("256-colour", colour_256()),
        ("rgb-colour", colour_rgb()),
    ] {
        feed_screen(name, &data);
        feed_bare_term(name, &data);
        feed_bare_vt100(name, &data);
        scan(name, &data);
    }
}

#[test]
#[ignore = "measurement; run in release with --ignored --nocapture"]
fn memory_per_history_line() {
    let mut screen = Screen::new(80, 24);
    // Full 80-column plain lines until the line cap binds.
    let line = format!("{}\r\n", "x".repeat(80));
    for _ in 0..HistoryLimits::default().max_lines * 2 {
        screen.feed(line.as_bytes());
    }
    let history = screen.history();
    assert_eq!(history.len(), HistoryLimits::default().max_lines);
    let per_line_text = history.bytes() as f64 / history.len() as f64;
    let per_line_heap = history.heap_bytes() as f64 / history.len() as f64;
    println!(
        "history: {} lines, {} text bytes ({per_line_text:.1}/line), {} heap bytes incl. index ({per_line_heap:.1}/line)",
        history.len(),
        history.bytes(),
        history.heap_bytes()
    );
    assert!(
        per_line_heap <= 150.0,
        "target ≤ 150 bytes per plain 80-column line"
    );
}

#[test]
#[ignore = "50 MB through the emulator; run in release with --ignored"]
fn history_byte_cap_holds_for_50_mb_of_output() {
    let limits = HistoryLimits {
        max_lines: usize::MAX,
        ..HistoryLimits::default()
    };
    let s = flood_history(limits, TOTAL);
    println!(
        "after 50 MB: {} history lines, {} bytes (cap {})",
        s.history_len(),
        s.history_bytes(),
        limits.max_bytes
    );
}

/// Reflow with a full history (issue 16): a 200×50 screen that printed 10,000 lines of 150–190
/// columns is resized to 80 columns and back; each resize and a capture of the whole history
/// at the new width are timed, and the history's memory read before and after.
#[test]
#[ignore = "measurement; run in release with --ignored --nocapture"]
fn reflow_of_a_full_history() {
    let mut screen = Screen::new(200, 50);
    let mut text = String::new();
    for n in 0..10_000usize {
        let len = 150 + (n * 7919) % 41;
        let start = text.len();
        text.push_str(&format!("{n:>6} "));
        while text.len() - start < len {
            text.push(char::from(b'a' + ((text.len() - start) % 26) as u8));
        }
        text.push_str("\r\n");
    }
    screen.feed(text.as_bytes());
    let before = (screen.history().heap_bytes(), screen.history_bytes());
    let lines = screen.history_len();
    assert!(lines > 9_900, "{lines} history lines");
    let (mut narrow, mut wide, mut capture) = (Vec::new(), Vec::new(), Vec::new());
    let mut rows = 0;
    for _ in 0..20 {
        narrow.push(timed(|| screen.resize(80, 50)).0);
        capture.push(timed(|| rows = screen.scrollback(usize::MAX, false).len()).0);
        wide.push(timed(|| screen.resize(200, 50)).0);
    }
    assert!(rows > 2 * lines, "{rows} rows at 80 columns");
    assert_eq!(screen.history_len(), lines, "no line lost or added");
    let after = (screen.history().heap_bytes(), screen.history_bytes());
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2] * 1000.0
    };
    println!(
        "reflow, {lines} history lines: 200→80 {:.3} ms, 80→200 {:.3} ms (medians of 20, wall \
         clock); capture of all {rows} rows at 80 columns {:.2} ms; history heap {} → {} bytes, \
         text {} → {} bytes",
        median(&mut narrow),
        median(&mut wide),
        median(&mut capture),
        before.0,
        after.0,
        before.1,
        after.1,
    );
    assert!(
        median(&mut narrow) < 10.0 && median(&mut wide) < 10.0,
        "target < 10 ms"
    );
}
