//! Throughput and footprint measurements, ignored by default. Run once in release:
//! `cargo test --release -p signaltty-server term::throughput -- --ignored --nocapture`.
//! Each still asserts that the work was really done, so a broken pipeline cannot report a speed.

use std::time::Instant;

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
            line.push_str(&format!("\x1b[38;2;{v};{};{}m\x1b[48;2;0;0;{v}m{:>7} ", 255 - v, v / 2, n + w));
        }
        line.push_str("\x1b[m\r\n");
        line
    })
}

fn mb_per_s(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0) / secs
}

fn feed_screen(name: &str, data: &[u8]) -> f64 {
    let mut screen = Screen::new(80, 24);
    let start = Instant::now();
    for chunk in data.chunks(CHUNK) {
        screen.feed(chunk);
    }
    let secs = start.elapsed().as_secs_f64();
    assert!(screen.history_len() > 1000, "{name}: output scrolled into history");
    let speed = mb_per_s(data.len(), secs);
    println!("screen 80x24 {name:>10}: {speed:8.1} MB/s ({} MB in {secs:.2} s)", data.len() >> 20);
    speed
}

fn scan(name: &str, data: &[u8]) -> f64 {
    let mut scanner = OscScanner::new();
    let start = Instant::now();
    let mut events = 0;
    for chunk in data.chunks(CHUNK) {
        events += scanner.scan(chunk).len();
    }
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(events, 0, "{name}: no OSC in the data");
    let speed = mb_per_s(data.len(), secs);
    println!("osc scanner  {name:>10}: {speed:8.1} MB/s");
    speed
}

#[test]
#[ignore = "measurement; run in release with --ignored --nocapture"]
fn throughput_of_screen_and_scanner() {
    for (name, data) in [("plain", plain()), ("256-colour", colour_256()), ("rgb-colour", colour_rgb())] {
        feed_screen(name, &data);
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
    assert!(per_line_heap <= 150.0, "target ≤ 150 bytes per plain 80-column line");
}
