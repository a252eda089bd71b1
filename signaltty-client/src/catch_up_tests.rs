//! The catch-up's transitions and offset arithmetic (the end-to-end test with a slow terminal is
//! `signaltty-cli/tests/attach_slow_terminal.rs`).

use super::*;
use crate::attach::Cursor;

fn snap(bytes: &[u8], offset: u64) -> Snapshot {
    Snapshot {
        bytes: bytes.to_vec(),
        offset,
        cols: 80,
        rows: 24,
        cursor: Cursor::default(),
        title: String::new(),
    }
}

fn out(p: &[Piece]) -> Vec<u8> {
    p.iter()
        .flat_map(|p| match p {
            Piece::Output(b) => b.clone(),
            Piece::Repaint { bytes, .. } => [b"<R>".as_slice(), bytes].concat(),
        })
        .collect()
}

#[test]
fn live_output_is_written_in_order_and_what_a_snapshot_covers_is_dropped() {
    let mut p = CatchUp::new(80, 24);
    let first = p.snapshot(snap(b"S", 10));
    assert_eq!(
        first,
        vec![Piece::Repaint {
            bytes: b"S".to_vec(),
            first: true
        }]
    );
    // Already in the snapshot, then straddling it, then after it.
    assert!(p.output(b"abc".to_vec(), 8).is_empty());
    assert_eq!(out(&p.output(b"0123".to_vec(), 12)), b"23");
    assert_eq!(out(&p.output(b"xy".to_vec(), 14)), b"xy");
    assert_eq!(p.repaints(), 0);
    assert_eq!(p.skipped(), 5);
}

#[test]
fn a_backlog_over_the_limit_skips_until_the_terminal_caught_up_then_one_fresh_screen() {
    let mut p = CatchUp::new(80, 24);
    p.snapshot(snap(b"S", 0));
    assert!(!p.wrote(MIN_LIMIT), "at the limit is not behind");
    assert!(p.wrote(MIN_LIMIT + 1));
    assert_eq!(p.state(), CatchUpState::Behind);
    // Dropped while behind, snapshots on the stream too (they are older than the next fetch).
    assert!(p.output(vec![b'x'; 1000], 2000).is_empty());
    assert!(p.snapshot(snap(b"old", 2000)).is_empty());
    assert_eq!(
        p.want_snapshot(1),
        None,
        "the terminal still has bytes to take"
    );
    let generation = p.want_snapshot(0).expect("fetch now");
    assert!(matches!(p.state(), CatchUpState::Fetching { .. }));
    // Output arriving during the fetch waits; what the fresh screen covers goes.
    assert!(p.output(b"abcd".to_vec(), 2004).is_empty());
    assert!(p.output(b"efgh".to_vec(), 2008).is_empty());
    let pieces = p.fetched(generation, Ok(snap(b"NEW", 2006)));
    assert_eq!(out(&pieces), b"<R>NEWgh");
    assert!(matches!(pieces[0], Piece::Repaint { first: false, .. }));
    assert_eq!(p.state(), CatchUpState::Live);
    assert_eq!(p.repaints(), 1);
    assert_eq!(out(&p.output(b"ij".to_vec(), 2010)), b"ij");
}

#[test]
fn a_resync_snapshot_during_a_fetch_completes_it_and_the_late_answer_is_ignored() {
    let mut p = CatchUp::new(80, 24);
    p.snapshot(snap(b"S", 0));
    p.wrote(MIN_LIMIT + 1);
    let generation = p.want_snapshot(0).expect("fetch");
    p.output(b"ab".to_vec(), 102);
    let pieces = p.snapshot(snap(b"RS", 500));
    assert_eq!(out(&pieces), b"<R>RS");
    assert!(p.fetched(generation, Ok(snap(b"late", 400))).is_empty());
    assert_eq!(out(&p.output(b"cd".to_vec(), 502)), b"cd");
}

#[test]
fn a_failed_fetch_writes_the_queued_output_and_goes_on() {
    let mut p = CatchUp::new(80, 24);
    p.snapshot(snap(b"S", 0));
    p.wrote(MIN_LIMIT + 1);
    let generation = p.want_snapshot(0).expect("fetch");
    p.output(b"ab".to_vec(), 102);
    let err = ClientError::Disconnected {
        detail: "gone".into(),
    };
    assert_eq!(out(&p.fetched(generation, Err(err))), b"ab");
    assert_eq!(p.state(), CatchUpState::Live);
}

#[test]
fn too_much_output_during_a_fetch_starts_over() {
    let mut p = CatchUp::new(80, 24);
    p.snapshot(snap(b"S", 0));
    p.wrote(MIN_LIMIT + 1);
    let generation = p.want_snapshot(0).expect("fetch");
    let mut end = 0;
    while p.state() != CatchUpState::Behind {
        end += 1 << 20;
        p.output(vec![0; 1 << 20], end);
    }
    assert!(p.fetched(generation, Ok(snap(b"late", 5))).is_empty());
    assert!(p.want_snapshot(0).expect("again") > generation);
}
