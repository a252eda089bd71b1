//! Fuzz targets for what this crate parses from another process: the side socket's lines
//! (every request and reply of `signaltty_tty::protocol`) and their framing (descriptors: the
//! protocol's own round-trip property test), and the pane output the mode tracker follows.
//! Stable-Rust harness (see `signaltty-term/tests/fuzz.rs` for why not `cargo fuzz`): the
//! checked-in corpus (`fuzz/corpus/side_socket/`, one input a line, and
//! `fuzz/corpus/mode_tracker/`), then mutated and random inputs, at `SIGNALTTY_FUZZ_CASES`
//! cases (256 by default, what CI runs).
//!
//! Properties: no decoder panics; what decodes encodes to a line that decodes to the same value
//! (and the encoding of a decoded line is stable); a line read back from the socket is the line
//! written; the mode tracker says what a whole-input reading of the same bytes says, however
//! they are cut, and its restore sequence always leaves the alternate screen.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use signaltty_tty::lend;
use signaltty_tty::modes::ModeTracker;
use signaltty_tty::protocol::{self, Conn, Message, Reply, Request};
use tokio::net::UnixStream;

#[path = "../../fuzz/harness.rs"]
mod harness;

use harness::cases;

/// The side-socket corpus: every line of every file.
fn corpus_lines() -> Vec<String> {
    harness::corpus("side_socket", &[])
        .iter()
        .flat_map(|file| {
            String::from_utf8_lossy(file)
                .split('\n')
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A line as a decoder gets it: without its newline.
fn line_of(encoded: &[u8]) -> String {
    let text = String::from_utf8(encoded.to_vec()).expect("encoders write UTF-8");
    text.strip_suffix('\n')
        .expect("encoders end the line")
        .to_owned()
}

/// Every decoder on `line`, and the round trips of whatever decodes.
fn decode_every_way(line: &str) {
    if let Ok(request) = Request::parse(line) {
        let again = Request::parse(&line_of(&request.encode()));
        assert_eq!(again, Ok(request.clone()), "{line:?}");
        if let Request::Paint { rect, .. } = request {
            assert!(rect.cols > 0 && rect.rows > 0);
        }
        if let Request::Lend { excluded } = &request {
            assert!(excluded.len() <= protocol::MAX_BYTES);
        }
    }
    if let Ok(reply) = Reply::parse(line) {
        let encoded = reply.encode();
        let again = Reply::parse(&line_of(&encoded)).expect("an encoded reply decodes");
        // A reason loses its line breaks on the way out; after that it is stable.
        assert_eq!(again.encode(), encoded, "{line:?}");
        if !line.contains('\r') {
            assert_eq!(again, reply, "{line:?}");
        }
        if let Reply::Back(bytes) = &reply {
            assert!(bytes.len() <= lend::READ_MAX);
        }
    }
}

/// `lend::taken`'s promises: a prefix of whole characters, none excluded, none at all when the
/// pane wants every key as an escape code, and taking again from what was taken takes it all.
fn check_taken(read: &[u8], excluded: &str, flags: u8) {
    let n = lend::taken(read, excluded, flags);
    assert!(n <= read.len());
    let taken = std::str::from_utf8(&read[..n]).expect("whole UTF-8 characters");
    assert!(!taken.chars().any(|c| excluded.contains(c)), "{taken:?}");
    if flags & lend::ALL_KEYS_AS_ESCAPES != 0 {
        assert_eq!(n, 0);
    }
    assert_eq!(lend::taken(&read[..n], excluded, flags), n);
}

/// Lines written to one end of a socket pair, in `cuts` pieces, read back by a [`Conn`] (as
/// requests: a line that does not parse is skipped, as the server refuses it and reads on).
fn read_back(input: &[u8], cuts: &[usize]) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let (writer, reader) = UnixStream::pair().expect("pair");
        let writer = Conn::new(writer);
        let rest = input.to_vec();
        let cuts = cuts.to_vec();
        let write = async move {
            let mut at = 0;
            for cut in cuts {
                let to = (at + cut).min(rest.len());
                writer.send_bytes(&rest[at..to], &[]).await.expect("write");
                at = to;
            }
            writer.send_bytes(&rest[at..], &[]).await.expect("write");
            drop(writer);
        };
        let read = async {
            let mut reader = Conn::new(reader);
            let mut got = Vec::new();
            let ended = loop {
                match reader.recv::<Request>().await {
                    Ok(Some(request)) => got.push(Some(request)),
                    Ok(None) => break Ok(()),
                    Err(e)
                        if e.kind() == std::io::ErrorKind::InvalidData
                            && !e.to_string().starts_with("a line is") =>
                    {
                        got.push(None);
                    }
                    Err(e) => break Err(e),
                }
            };
            (got, ended)
        };
        let ((), (got, ended)) = tokio::join!(write, read);
        // Every line read is the next complete line of the input.
        let whole: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
        let complete = &whole[..whole.len() - 1];
        assert!(got.len() <= complete.len());
        for (request, expected) in got.iter().zip(complete) {
            let parsed = std::str::from_utf8(expected)
                .ok()
                .and_then(|line| Request::parse(line).ok());
            assert_eq!(request, &parsed);
        }
        match ended {
            // The end: every complete line was read.
            Ok(()) => assert_eq!(got.len(), complete.len(), "{input:?}"),
            // Refused only for a line that is not UTF-8 or longer than a line may be.
            Err(_) => {
                let next = whole[got.len()];
                assert!(
                    std::str::from_utf8(next).is_err() || next.len() > protocol::MAX_LINE,
                    "refused {next:?}"
                );
            }
        }
    });
}

/// The alternate-screen state a whole-input reading of `input` gives: the last `ESC [ ?` with
/// at most 32 digits and semicolons, then `h` or `l`, naming 47, 1047 or 1049.
fn alt_screen_of(input: &[u8]) -> bool {
    let mut alt = false;
    for (i, _) in input.iter().enumerate().filter(|(_, b)| **b == 0x1b) {
        let Some(b"[?") = input.get(i + 1..i + 3) else {
            continue;
        };
        let rest = &input[i + 3..];
        let run = rest
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b';')
            .count();
        let (params, after) = rest.split_at(run);
        if run > 32 || !matches!(after.first(), Some(b'h' | b'l')) {
            continue;
        }
        if params
            .split(|&b| b == b';')
            .any(|p| matches!(p, b"1049" | b"1047" | b"47"))
        {
            alt = after[0] == b'h';
        }
    }
    alt
}

fn track(input: &[u8], cut: usize) {
    let cut = cut.max(1);
    let mut tracker = ModeTracker::default();
    for piece in input.chunks(cut) {
        tracker.observe(piece);
    }
    assert_eq!(tracker.alt_screen(), alt_screen_of(input), "{input:?}");
    // What is written when the terminal stops showing the pane always leaves the alternate
    // screen, whatever state the output left the terminal in.
    let restore = tracker.restore_sequence();
    let mut replay = ModeTracker::default();
    replay.observe(input);
    replay.observe(&restore);
    assert!(!replay.alt_screen());
    let mut repainted = ModeTracker::default();
    repainted.observe(input);
    let prefix = repainted.repaint_prefix();
    repainted.observe(&prefix);
    assert!(!repainted.alt_screen());
}

/// A corpus line with some characters replaced or inserted, from the side socket's alphabet.
fn mutated_line() -> impl Strategy<Value = String> {
    let alphabet: Vec<char> = " 0123456789+-abcdefhiklnprstuxyz_é\r\t\u{0}\u{7f}"
        .chars()
        .collect();
    (
        prop::sample::select(corpus_lines()),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                prop::sample::select(alphabet),
                any::<bool>(),
            ),
            0..6,
        ),
    )
        .prop_map(|(line, edits)| {
            let mut chars: Vec<char> = line.chars().collect();
            for (at, c, insert) in edits {
                if chars.is_empty() || insert {
                    let i = at.index(chars.len() + 1);
                    chars.insert(i, c);
                } else {
                    let i = at.index(chars.len());
                    chars[i] = c;
                }
            }
            chars.into_iter().collect()
        })
}

/// Output bytes that mostly build private mode sequences.
fn mode_bytes() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        &b"\x1b"[..],
        b"[",
        b"?",
        b"1049",
        b"1047",
        b"47",
        b"25",
        b"1000",
        b";",
        b"h",
        b"l",
        b"0",
        b"x",
        b"\x18",
        b"\x9b",
        b":",
    ]);
    prop::collection::vec(
        prop_oneof![
            4 => pieces.prop_map(<[u8]>::to_vec),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ],
        0..200,
    )
    .prop_map(|pieces| pieces.concat())
}

#[test]
fn corpus_side_socket() {
    let lines = corpus_lines();
    for line in &lines {
        decode_every_way(line);
    }
    let all = lines.join("\n");
    read_back(all.as_bytes(), &[1, 7, 100]);
}

#[test]
fn corpus_mode_tracker() {
    for input in harness::corpus("mode_tracker", &[]) {
        for cut in [1, 2, 3, 7, input.len()] {
            track(&input, cut);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn fuzz_side_socket_lines(line in mutated_line()) {
        decode_every_way(&line);
    }

    #[test]
    fn fuzz_side_socket_any_text(line in "[^\n]{0,80}") {
        decode_every_way(&line);
    }

    #[test]
    fn fuzz_lend_back_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..=lend::READ_MAX)) {
        let line = line_of(&Reply::Back(bytes.clone()).encode());
        prop_assert_eq!(Reply::parse(&line), Ok(Reply::Back(bytes)));
    }

    #[test]
    fn fuzz_lend_taken(
        read in prop::collection::vec(prop_oneof![3 => 0x20u8..0x80, 1 => any::<u8>()], 0..64),
        excluded in "[a-z`\u{1}é]{0,3}",
        flags in 0u8..32,
    ) {
        check_taken(&read, &excluded, flags);
    }

    #[test]
    fn fuzz_side_socket_framing(
        lines in prop::collection::vec(
            prop_oneof![
                4 => mutated_line(),
                1 => "[^\n]{4000,4600}",
            ],
            0..6,
        ),
        garbage in prop::collection::vec(any::<u8>(), 0..4),
        cuts in prop::collection::vec(1usize..600, 0..8),
    ) {
        let mut input = lines.join("\n").into_bytes();
        input.extend_from_slice(&garbage);
        read_back(&input, &cuts);
    }

    #[test]
    fn fuzz_mode_tracker(input in mode_bytes(), cut in 1usize..40) {
        track(&input, cut);
    }
}
