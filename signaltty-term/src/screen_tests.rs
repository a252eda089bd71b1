//! Tests for `Screen`: snapshot round trips, history capture and its bounds, titles, resize.

use super::*;
use crate::vt::Color;

/// Output of a typical session: a shell prints coloured lines, then a full-screen program takes
/// over the alternate screen with modes, colours and cursor movement.
fn full_screen_session() -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..40 {
        out.extend_from_slice(
            format!("\x1b[32m$\x1b[m ls {i}\r\nfile-{i}.txt  \x1b[1;34mdir-{i}\x1b[0m\r\n")
                .as_bytes(),
        );
    }
    out.extend_from_slice(
        b"\x1b[?1049h\x1b[?1h\x1b=\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[?25l\x1b[2 q",
    );
    out.extend_from_slice(
        b"\x1b[H\x1b[2J\x1b[48;5;236m\x1b[38;2;250;120;10m status bar \x1b[K\x1b[m",
    );
    for row in 2..20 {
        out.extend_from_slice(
            format!("\x1b[{row};3H\x1b[{}m{row:>3}\x1b[m \x1b[3;4mitalic\x1b[24m \x1b[7mrev\x1b[27m 日本", 30 + row % 8)
                .as_bytes(),
        );
    }
    out.extend_from_slice(b"\x1b[24;1H\x1b[41m\x1b[2K-- INSERT --\x1b[m\x1b[12;40H");
    out
}

fn assert_same_screen(a: &Screen, b: &Screen) {
    assert_eq!(a.term().repaint(), b.term().repaint());
    crate::vt::tests::assert_same(a.term(), b.term());
}

#[test]
fn snapshot_round_trip_of_a_full_screen_program() {
    let mut a = Screen::new(80, 24);
    a.feed(&full_screen_session());
    assert!(a.alternate_screen());
    let snap = a.snapshot();
    assert_eq!((snap.cols, snap.rows), (80, 24));
    assert_eq!((snap.cursor_row, snap.cursor_col), (11, 39));
    assert!(!snap.cursor_visible);

    let mut b = Screen::new(80, 24);
    b.feed(&snap.repaint);
    assert_same_screen(&a, &b);
    assert!(b.term().modes().application_cursor);
    assert!(b.term().modes().bracketed_paste);

    // The main screen underneath comes back the same when the program exits.
    a.feed(b"\x1b[?1049l\x1b[?25h");
    b.feed(b"\x1b[?1049l\x1b[?25h");
    assert!(!a.alternate_screen());
    assert_same_screen(&a, &b);
    assert!(a.contents(false).contains("dir-39"));
}

#[test]
fn snapshot_round_trip_of_the_main_screen() {
    let mut a = Screen::new(20, 5);
    // Colours, a wide char, and a cursor left in the pending-wrap position after column 20.
    a.feed("\x1b[31mred\x1b[m 日本\r\n\x1b[44m  \x1b[m\r\nabcdefghijklmnopqrst".as_bytes());
    let snap = a.snapshot();
    assert_eq!((snap.cursor_row, snap.cursor_col), (2, 20));
    assert!(snap.cursor_visible);
    let mut b = Screen::new(20, 5);
    b.feed(&snap.repaint);
    assert_same_screen(&a, &b);
    // The next character wraps identically on both.
    a.feed(b"X");
    b.feed(b"X");
    assert_same_screen(&a, &b);
}

#[test]
fn scrolled_lines_go_to_history_and_scrollback_joins_the_screen() {
    let mut s = Screen::new(80, 24);
    for i in 0..100 {
        s.feed(format!("line {i}\r\n").as_bytes());
    }
    // 100 lines and an empty cursor row: 77 lines left the 24-row screen.
    assert_eq!(s.history_len(), 77);
    assert_eq!(s.scrollback(3, false), vec!["line 98", "line 99", ""]);
    let all = s.scrollback(usize::MAX, false);
    assert_eq!(all.len(), 101);
    assert_eq!(all[0], "line 0");
    assert_eq!(all[76], "line 76");
    assert_eq!(all[77], "line 77");
    assert_eq!(s.scrollback(30, false)[0], "line 71");
    assert_eq!(s.contents(false).lines().next(), Some("line 77"));
}

#[test]
fn history_keeps_colours_for_ansi_captures() {
    let mut s = Screen::new(40, 3);
    s.feed(b"\x1b[31mred\x1b[m and \x1b[38;5;208morange\x1b[m\r\nplain\r\nx\r\ny");
    assert_eq!(s.history_len(), 1);
    let styled = s.scrollback(4, true);
    assert!(styled[0].contains("\x1b["), "colours kept: {:?}", styled[0]);
    assert!(styled[0].ends_with("\x1b[m"));
    assert_eq!(
        s.scrollback(4, false),
        vec!["red and orange", "plain", "x", "y"]
    );
    // A styled history line replays to the same cells as the original row had.
    let mut replay = Screen::new(40, 3);
    replay.feed(styled[0].as_bytes());
    let fg = |col| replay.term().cell(0, col).map(|c| c.style().fg());
    assert_eq!(fg(0), Some(Color::Idx(1)));
    assert_eq!(fg(8), Some(Color::Idx(208)));
}

#[test]
fn alternate_screen_output_stays_out_of_history() {
    let mut s = Screen::new(80, 24);
    s.feed(b"before\r\n");
    s.feed(b"\x1b[?1049h");
    for i in 0..500 {
        s.feed(format!("full screen {i}\r\n").as_bytes());
    }
    assert_eq!(s.history_len(), 0);
    s.feed(b"\x1b[?1049l");
    for i in 0..30 {
        s.feed(format!("after {i}\r\n").as_bytes());
    }
    let history = s.history().last_lines(usize::MAX, false);
    assert_eq!(history.first().map(String::as_str), Some("before"));
    assert!(history.iter().all(|l| !l.starts_with("full screen")));
}

#[test]
fn history_line_cap_holds() {
    let mut s = Screen::new(80, 24);
    for i in 0..30_000 {
        s.feed(format!("{i}\n\r").as_bytes());
    }
    assert_eq!(s.history_len(), HistoryLimits::default().max_lines);
    let last = s.history().last_lines(1, false);
    assert_eq!(last, vec![(30_000 - 24).to_string()]);
}

/// Feeds `total` bytes of coloured 80-column lines to a fresh 80×24 screen with history `limits`,
/// asserting after every chunk that history stays within its byte cap, and returns the screen.
pub(crate) fn flood_history(limits: HistoryLimits, total: usize) -> Screen {
    let mut s = Screen::with_history_limits(80, 24, limits);
    let mut chunk = Vec::new();
    let mut n = 0u64;
    while chunk.len() < 64 * 1024 {
        chunk.extend_from_slice(
            format!("\x1b[3{}m{n:>12}\x1b[m {}\r\n", n % 8, "x".repeat(60)).as_bytes(),
        );
        n += 1;
    }
    let mut fed = 0;
    while fed < total {
        s.feed(&chunk);
        fed += chunk.len();
        assert!(s.history_bytes() <= limits.max_bytes);
    }
    assert!(
        s.history_bytes() > limits.max_bytes - 1024,
        "the cap is reached, not undershot"
    );
    assert!(s.history().heap_bytes() <= limits.max_bytes + s.history_len() * 8 + 4096);
    s
}

/// 8 MB through a 1 MiB cap in the normal suite (the unoptimised emulator is slow); the release-only
/// measurement in `throughput_tests` pushes 50 MB through the default 4 MiB cap.
#[test]
fn history_byte_cap_holds_under_a_flood() {
    let limits = HistoryLimits {
        max_lines: usize::MAX,
        max_bytes: 1024 * 1024,
    };
    let s = flood_history(limits, 8 * 1024 * 1024);
    assert!(
        s.history_len() > 10_000,
        "the byte cap, not a line cap, is what binds"
    );
}

#[test]
fn titles_come_from_osc_0_1_2() {
    let mut s = Screen::new(80, 24);
    assert_eq!(s.title(), None);
    s.feed(b"\x1b]2;vim main.rs\x07");
    assert_eq!(s.title(), Some("vim main.rs"));
    s.feed(b"\x1b]0;a; b; c\x1b\\");
    assert_eq!(s.title(), Some("a; b; c"));
    s.feed(b"\x1b]1;icon\x07");
    assert_eq!(s.title(), Some("icon"));
    s.feed(b"\x1b]2;\x1b[31m\x07");
    assert_eq!(
        s.title(),
        Some("icon"),
        "an empty sanitized title changes nothing"
    );
}

#[test]
fn resize_pushes_rows_to_history_and_a_grow_takes_them_back() {
    let mut s = Screen::new(20, 10);
    for i in 0..10 {
        s.feed(format!("r{i}\r\n").as_bytes());
    }
    // r0 scrolled off; r1..r9 and the cursor row are visible.
    assert_eq!(s.history_len(), 1);
    s.resize(20, 5);
    assert_eq!(s.size(), (20, 5));
    assert_eq!(s.history_len(), 6);
    assert_eq!(s.contents(false), "r6\nr7\nr8\nr9");
    s.resize(30, 12);
    assert_eq!(s.size(), (30, 12));
    assert_eq!(
        s.contents(false),
        "r0\nr1\nr2\nr3\nr4\nr5\nr6\nr7\nr8\nr9",
        "growing pulls the history back down"
    );
    assert_eq!(s.history_len(), 0);
    assert_eq!(s.cursor_position(), (10, 0));
    s.resize(30, 5);
    assert_eq!(s.history_len(), 6, "shrinking back pushes the same lines");
    assert_eq!(s.contents(false), "r6\nr7\nr8\nr9");
}

#[test]
fn zero_sizes_are_clamped() {
    let mut s = Screen::new(0, 0);
    assert_eq!(s.size(), (1, 1));
    s.resize(0, 3);
    assert_eq!(s.size(), (1, 3));
}

#[test]
fn overlong_osc_does_not_swallow_following_output() {
    let mut s = Screen::new(40, 5);
    s.feed(b"\x1b]52;c;");
    for _ in 0..100 {
        s.feed(&[b'A'; 100_000]);
    }
    s.feed(b"\x07after");
    assert_eq!(s.contents(false), "after");
}

#[test]
fn contents_with_and_without_ansi() {
    let mut s = Screen::new(20, 4);
    s.feed(b"\x1b[1mbold\x1b[m\r\n\r\n  tail   ");
    assert_eq!(s.contents(false), "bold\n\n  tail");
    assert_eq!(s.contents(true), "\x1b[0;1mbold\x1b[m\n\n  tail");
}

#[test]
fn answers_are_taken_once_in_order_and_bounded() {
    let mut screen = Screen::new(80, 24);
    assert!(screen.take_replies().is_empty());
    screen.feed(b"\x1b[3;5Hx\x1b[6");
    screen.feed(b"n\x1b[c");
    assert_eq!(screen.take_replies(), b"\x1b[3;6R\x1b[?62;22c");
    assert!(screen.take_replies().is_empty(), "taken once");

    // A flood of queries keeps whole answers up to the bound and drops the rest.
    screen.feed(&b"\x1b[5n".repeat(10_000));
    let replies = screen.take_replies();
    assert_eq!(replies.len(), REPLIES_MAX);
    assert_eq!(replies, b"\x1b[0n".repeat(REPLIES_MAX / 4));
    screen.feed(b"\x1b[5n");
    assert_eq!(screen.take_replies(), b"\x1b[0n", "room again once taken");
}
