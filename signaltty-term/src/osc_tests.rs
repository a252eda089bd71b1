//! Tests for `OscScanner`: every notification form, framing, splits at every byte, limits.

use super::*;

fn scan(bytes: &[u8]) -> Vec<TermEvent> {
    OscScanner::new().scan(bytes)
}

fn note(title: Option<&str>, body: &str) -> TermEvent {
    TermEvent::Notify {
        title: title.map(str::to_owned),
        body: body.to_owned(),
    }
}

fn title(t: &str) -> TermEvent {
    TermEvent::Title(t.to_owned())
}

#[test]
fn osc7_reports_the_working_directory() {
    assert_eq!(
        scan(b"\x1b]7;file://host/home/me/my%20repo\x07"),
        vec![TermEvent::Cwd("/home/me/my repo".into())]
    );
    assert_eq!(
        scan(b"\x1b]7;file:///tmp\x1b\\"),
        vec![TermEvent::Cwd("/tmp".into())]
    );
    assert!(scan(b"\x1b]7;http://x/y\x07").is_empty());
    assert!(scan(b"\x1b]7;file://host\x07").is_empty());
}

#[test]
fn plain_output_yields_nothing() {
    assert_eq!(scan(b"hello world\r\n\x1b[31mred\x1b[0m\n"), vec![]);
}

#[test]
fn titles_from_osc_0_1_2() {
    assert_eq!(scan(b"\x1b]0;zero\x07"), vec![title("zero")]);
    assert_eq!(scan(b"\x1b]1;one\x1b\\"), vec![title("one")]);
    assert_eq!(
        scan(b"\x1b]2;two; with semicolon\x07"),
        vec![title("two; with semicolon")]
    );
    assert_eq!(scan(b"\x1b]2;\x07"), vec![], "an empty title is ignored");
    assert_eq!(
        scan(b"\x1b]2; \x01\x7f \x07"),
        vec![],
        "a title empty after sanitizing is ignored"
    );
}

#[test]
fn osc_9_notifies_and_ignores_progress() {
    assert_eq!(
        scan(b"\x1b]9;Build done\x07"),
        vec![note(None, "Build done")]
    );
    assert_eq!(scan(b"\x1b]9;a;b\x1b\\"), vec![note(None, "a;b")]);
    assert_eq!(scan(b"\x1b]9;4;1;50\x07"), vec![]);
    assert_eq!(scan(b"\x1b]9;4\x07"), vec![]);
    assert_eq!(scan(b"\x1b]9;\x07"), vec![], "an empty body is ignored");
    assert_eq!(scan(b"\x1b]9\x07"), vec![], "no `;` at all is ignored");
}

#[test]
fn osc_777_needs_all_three_parts() {
    assert_eq!(
        scan(b"\x1b]777;notify;Title;Body; with ;\x07"),
        vec![note(Some("Title"), "Body; with ;")]
    );
    assert_eq!(scan(b"\x1b]777;notify;Title\x07"), vec![]);
    assert_eq!(scan(b"\x1b]777;notify\x07"), vec![]);
    assert_eq!(scan(b"\x1b]777;other;Title;Body\x07"), vec![]);
    assert_eq!(scan(b"\x1b]777;notify;;Body\x07"), vec![note(None, "Body")]);
    assert_eq!(
        scan(b"\x1b]777;notify;Only title;\x07"),
        vec![note(Some("Only title"), "")]
    );
    assert_eq!(scan(b"\x1b]777;notify;;\x07"), vec![]);
}

#[test]
fn osc_99_kitty_forms() {
    assert_eq!(
        scan(b"\x1b]99;;Hello world\x1b\\"),
        vec![note(None, "Hello world")]
    );
    assert_eq!(
        scan(b"\x1b]99;i=1:p=body;Text\x1b\\"),
        vec![note(None, "Text")]
    );
    assert_eq!(
        scan(b"\x1b]99;p=title;Only a title\x1b\\"),
        vec![note(Some("Only a title"), "")]
    );
    assert_eq!(
        scan(b"\x1b]99;a=focus;The body\x07"),
        vec![note(None, "The body")],
        "no p= means body"
    );
    assert_eq!(
        scan(b"\x1b]99;plain; text\x07"),
        vec![note(None, "plain; text")],
        "no metadata markers"
    );
    assert_eq!(
        scan(b"\x1b]99;just a body\x07"),
        vec![note(None, "just a body")]
    );
    assert_eq!(scan(b"\x1b]99;i=1:p=close;\x1b\\"), vec![]);
    assert_eq!(scan(b"\x1b]99;e=1;SGVsbG8=\x1b\\"), vec![]);
}

#[test]
fn osc_99_kitty_parts_are_assembled() {
    let mut s = OscScanner::new();
    assert_eq!(s.scan(b"\x1b]99;i=7:d=0:p=title;Build\x1b\\"), vec![]);
    assert_eq!(
        s.scan(b"\x1b]99;i=7:p=body;All green\x1b\\"),
        vec![note(Some("Build"), "All green")]
    );
    // A different id replaces the pending part rather than merging with it.
    assert_eq!(s.scan(b"\x1b]99;i=8:d=0:p=title;Lost\x1b\\"), vec![]);
    assert_eq!(
        s.scan(b"\x1b]99;i=9:p=body;Fresh\x1b\\"),
        vec![note(None, "Fresh")]
    );
}

#[test]
fn bel_outside_osc_is_a_bell_and_terminators_are_not() {
    assert_eq!(scan(b"ding\x07"), vec![TermEvent::Bell]);
    assert_eq!(
        scan(b"\x07\x07\x07"),
        vec![TermEvent::Bell],
        "consecutive bells coalesce"
    );
    assert_eq!(
        scan(b"\x07\x1b]9;x\x07\x07"),
        vec![TermEvent::Bell, note(None, "x"), TermEvent::Bell],
        "bells separated by another event are kept in order"
    );
    assert_eq!(
        scan(b"\x1b]8;;http://example.com\x07link\x1b]8;;\x07"),
        vec![]
    );
    assert_eq!(
        scan(b"\x1b\x07"),
        vec![TermEvent::Bell],
        "ESC BEL still rings"
    );
}

#[test]
fn esc_backslash_and_bel_both_terminate() {
    let a = scan(b"\x1b]9;same\x07");
    let b = scan(b"\x1b]9;same\x1b\\");
    assert_eq!(a, b);
    assert_eq!(a, vec![note(None, "same")]);
}

#[test]
fn new_osc_drops_the_unterminated_one() {
    assert_eq!(
        scan(b"\x1b]9;first\x1b]9;second\x07"),
        vec![note(None, "second")]
    );
    assert_eq!(
        scan(b"\x1b]9;aborted\x1b[31mtext\x07"),
        vec![TermEvent::Bell]
    );
    assert_eq!(scan(b"\x1b]9;cancelled\x18\x07"), vec![TermEvent::Bell]);
}

#[test]
fn split_at_every_byte_boundary() {
    let stream: &[u8] =
        b"a\x07b\x1b]0;T1\x1b\\c\x1b]777;notify;Ti;Bo\x07\x1b]99;p=title;K\x1b\\\x1b]9;n\x07d\x07";
    let expected = vec![
        TermEvent::Bell,
        title("T1"),
        note(Some("Ti"), "Bo"),
        note(Some("K"), ""),
        note(None, "n"),
        TermEvent::Bell,
    ];
    assert_eq!(scan(stream), expected);
    for cut in 0..=stream.len() {
        let mut s = OscScanner::new();
        let mut got = s.scan(&stream[..cut]);
        got.extend(s.scan(&stream[cut..]));
        assert_eq!(got, expected, "split at {cut}");
    }
    // And one byte at a time.
    let mut s = OscScanner::new();
    let got: Vec<_> = stream
        .iter()
        .flat_map(|b| s.scan(std::slice::from_ref(b)))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn long_sequences_are_carried_up_to_the_limit() {
    let body = "x".repeat(MAX_OSC_BYTES - 2);
    let seq = format!("\x1b]9;{body}\x07");
    let mut s = OscScanner::new();
    let mut got = Vec::new();
    for chunk in seq.as_bytes().chunks(1000) {
        got.extend(s.scan(chunk));
    }
    let expected = sanitize(&body, BODY_MAX_CHARS);
    assert_eq!(got, vec![note(None, &expected)]);
}

#[test]
fn overlong_sequences_are_dropped_with_their_terminator() {
    for terminator in [&b"\x07"[..], b"\x1b\\"] {
        let mut s = OscScanner::new();
        let mut seq = b"\x1b]52;c;".to_vec();
        seq.extend(std::iter::repeat_n(b'A', MAX_OSC_BYTES * 4));
        seq.extend_from_slice(terminator);
        seq.extend_from_slice(b"after\x1b]9;next\x07");
        let mut got = Vec::new();
        for chunk in seq.chunks(3000) {
            got.extend(s.scan(chunk));
        }
        assert_eq!(got, vec![note(None, "next")]);
        assert!(s.carry.capacity() <= MAX_OSC_BYTES, "carry stays bounded");
    }
    // An overlong OSC 9 is not reported even though it is a notification.
    let mut seq = b"\x1b]9;".to_vec();
    seq.extend(std::iter::repeat_n(b'B', MAX_OSC_BYTES + 1));
    seq.push(BEL);
    assert_eq!(scan(&seq), vec![]);
}

#[test]
fn notification_text_is_sanitized() {
    assert_eq!(
        scan("\x1b]777;notify;\u{9b}1mBold\u{9b}0m;line\r\nnext\x08!\x07".as_bytes()),
        vec![note(Some("Bold"), "line\nnext!")]
    );
    let long = format!("\x1b]0;{}\x07", "t".repeat(500));
    assert_eq!(
        scan(long.as_bytes()),
        vec![title(&"t".repeat(TITLE_MAX_CHARS))]
    );
}

#[test]
fn invalid_utf8_is_replaced_not_fatal() {
    assert_eq!(
        scan(b"\x1b]9;bad \xff byte\x07"),
        vec![note(None, "bad \u{fffd} byte")]
    );
}

/// Pieces a random stream is made of: plain text, bells, every OSC form, broken sequences.
const FRAGMENTS: &[&[u8]] = &[
    b"plain text ",
    b"\r\n",
    b"\x07",
    b"\x1b[1;31m",
    b"\x1b]0;title\x07",
    b"\x1b]2;other\x1b\\",
    b"\x1b]9;note\x07",
    b"\x1b]9;4;1;50\x07",
    b"\x1b]99;i=1:p=body;kitty\x1b\\",
    b"\x1b]777;notify;T;B\x07",
    b"\x1b]777;notify;T\x07",
    b"\x1b]9;unterminated",
    b"\x1b",
    b"\x1b]",
    "✓ 日本".as_bytes(),
];

proptest::proptest! {
    /// However a stream is cut into chunks, the scanner reports the same events (bells aside,
    /// whose coalescing is per chunk).
    #[test]
    fn chunking_never_changes_the_events(
        picks in proptest::collection::vec(0..FRAGMENTS.len(), 0..40),
        cuts in proptest::collection::vec(0usize..400, 0..8),
    ) {
        let stream: Vec<u8> = picks.iter().flat_map(|&i| FRAGMENTS[i].iter().copied()).collect();
        let strip = |events: Vec<TermEvent>| -> Vec<TermEvent> {
            events.into_iter().filter(|e| *e != TermEvent::Bell).collect()
        };
        let whole = strip(scan(&stream));
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(stream.len())).collect();
        cuts.sort_unstable();
        let mut scanner = OscScanner::new();
        let mut pieces = Vec::new();
        let mut from = 0;
        for cut in cuts.into_iter().chain([stream.len()]) {
            pieces.extend(scanner.scan(&stream[from..cut]));
            from = cut;
        }
        proptest::prop_assert_eq!(strip(pieces), whole);
    }
}
