//! Fuzz targets for the terminal model, the OSC scanner, the sanitizer and the query filter, on
//! stable Rust.
//!
//! `cargo fuzz` needs a nightly toolchain (sanitizer and coverage flags) and none can be installed
//! here, so each target is a proptest property: first every input in the checked-in corpus
//! (`fuzz/corpus/<target>/`, where a found crash's input is added), then random inputs biased
//! towards escape-sequence bytes, so that the parser reaches deep states and not only "text".
//! CI runs them with `cargo test` at the default case count (`SIGNALTTY_FUZZ_CASES`, 256); run
//! longer with e.g. `SIGNALTTY_FUZZ_CASES=100000 cargo test -p signaltty-term --test fuzz`.
//! proptest shrinks a failure to a small input and prints it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use signaltty_term::sanitize::is_bidi_control;
use signaltty_term::vt::{LinePart, Row, Sink, Term};
use signaltty_term::{OscScanner, QueryFilter, Screen, sanitize, strip};

#[path = "../../fuzz/harness.rs"]
mod harness;

use harness::cases;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    harness::corpus(target, &[])
}

/// Bytes that mostly build escape sequences: introducers, parameters, finals, string ends,
/// C1 controls and UTF-8 lead bytes, mixed with anything.
fn terminal_bytes() -> impl Strategy<Value = Vec<u8>> {
    let interesting = prop::sample::select(vec![
        0x1b, b'[', b']', b'P', b'_', b'^', b'X', b'(', b'#', b'?', b'>', b'<', b';', b':', b'0',
        b'1', b'9', b'7', b'2', b'm', b'H', b'J', b'K', b'r', b'h', b'l', b'u', b'c', b'n', b'q',
        0x07, 0x9b, 0x9c, 0x9d, 0x90, b'\\', b'\n', b'\r', b'\t', 0x08, 0xe2, 0x80, 0xae, 0xf0,
        0x9f, 0xcc, 0x81,
    ]);
    prop::collection::vec(prop_oneof![3 => interesting, 1 => any::<u8>()], 0..2048)
}

fn feed_screen(input: &[u8]) {
    let mut screen = Screen::new(40, 10);
    // Fed in uneven pieces: sequences cut across calls must not matter.
    for (i, piece) in input.chunks(97).enumerate() {
        screen.feed(piece);
        if i % 3 == 1 {
            screen.resize(20 + (i % 60) as u16, 5 + (i % 30) as u16);
        }
    }
    let _ = screen.take_replies();
    let _ = screen.snapshot();
    let _ = screen.contents(true);
    let _ = screen.scrollback(0, true);
}

fn scan(input: &[u8]) {
    let mut scanner = OscScanner::new();
    for piece in input.chunks(61) {
        let _ = scanner.scan(piece);
    }
}

fn check_sanitized(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    for out in [sanitize(&text, 200), strip(&text)] {
        assert!(
            !out.chars()
                .any(|c| (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)),
            "{out:?}"
        );
    }
    assert!(sanitize(&text, 200).chars().count() <= 200);
}

/// The query filter over `input` cut every `cut` bytes: the same output however it is cut, and
/// that output is the input with parts taken out (nothing added, nothing reordered).
fn filter_query(input: &[u8], cut: usize) {
    let whole = QueryFilter::new().filter(input);
    let mut filter = QueryFilter::new();
    let pieces: Vec<u8> = input
        .chunks(cut.max(1))
        .flat_map(|piece| filter.filter_owned(piece.to_vec()))
        .collect();
    assert_eq!(pieces, whole, "{input:?} cut every {cut}");
    let mut rest = input.iter();
    assert!(
        whole.iter().all(|b| rest.any(|c| c == b)),
        "not a subsequence of the input: {whole:?} of {input:?}"
    );
}

/// Collects the emulator's answers.
#[derive(Default)]
struct Answers(Vec<u8>);

impl Sink for Answers {
    fn scrolled_off(&mut self, _: &Row, _: u16, _: LinePart) {}
    fn title(&mut self, _: &[u8]) {}
    fn clear_history(&mut self) {}
    fn reply(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

/// Whether the emulator answers `sequence` (fed alone to a fresh terminal).
fn answered(sequence: &[u8]) -> bool {
    let mut answers = Answers::default();
    Term::new(80, 24).process(sequence, &mut answers);
    !answers.0.is_empty()
}

/// Text and whole sequences, queries among them: the filter keeps exactly the pieces the
/// emulator does not answer, in order, however the stream is cut.
fn filter_pieces(pieces: &[Vec<u8>], cut: usize) {
    let input = pieces.concat();
    let expected: Vec<u8> = pieces
        .iter()
        .filter(|p| !answered(p))
        .flatten()
        .copied()
        .collect();
    let mut filter = QueryFilter::new();
    let got: Vec<u8> = input
        .chunks(cut.max(1))
        .flat_map(|piece| filter.filter(piece))
        .collect();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&expected),
        "{:?}",
        String::from_utf8_lossy(&input)
    );
}

/// Pieces of output for [`filter_pieces`]: text without escapes, and whole control sequences
/// with the prefixes, parameters (sub-parameters too) and finals of the answered queries.
fn query_pieces() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let sequence = (
        prop::sample::select(vec!["", "?", ">", "=", "<"]),
        prop::collection::vec(
            prop::sample::select(vec![
                "", "0", "1", "5", "6", "18", "4", "6:1", ":6", "1:", "99999",
            ]),
            0..3,
        ),
        prop::sample::select(vec!["", " ", "$", "!"]),
        prop::sample::select(vec!['c', 'n', 'q', 'R', 'm', 'h', 'p', 'u', 't', 'H']),
    )
        .prop_map(|(prefix, params, intermediate, action)| {
            format!("\x1b[{prefix}{}{intermediate}{action}", params.join(";")).into_bytes()
        });
    let piece = prop_oneof![
        3 => sequence,
        1 => "[a-z 0-9\\[;é]{1,8}".prop_map(String::into_bytes),
        1 => prop::sample::select(vec![&b"\x1bZ"[..], b"\x1b7", b"\x1b]0;t\x07", b"\x1b(0"])
            .prop_map(<[u8]>::to_vec),
    ];
    prop::collection::vec(piece, 0..12)
}

#[test]
fn corpus_query_filter() {
    for input in corpus("query_filter") {
        for cut in [1, 2, 5, input.len()] {
            filter_query(&input, cut);
        }
    }
}

#[test]
fn corpus_terminal_model() {
    corpus("terminal_model").iter().for_each(|i| feed_screen(i));
}

#[test]
fn corpus_osc_scanner() {
    corpus("osc_scanner").iter().for_each(|i| scan(i));
}

#[test]
fn corpus_sanitizer() {
    corpus("sanitizer").iter().for_each(|i| check_sanitized(i));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn fuzz_terminal_model(input in terminal_bytes()) {
        feed_screen(&input);
    }

    #[test]
    fn fuzz_osc_scanner(input in terminal_bytes()) {
        scan(&input);
    }

    #[test]
    fn fuzz_sanitizer(input in terminal_bytes()) {
        check_sanitized(&input);
    }

    #[test]
    fn fuzz_query_filter(input in terminal_bytes(), cut in 1usize..40) {
        filter_query(&input, cut);
    }

    #[test]
    fn fuzz_query_filter_pieces(pieces in query_pieces(), cut in 1usize..20) {
        filter_pieces(&pieces, cut);
    }
}
