//! `OscLimit`: a pass-through filter that keeps the screen parser's OSC buffer bounded.
//!
//! The emulator uses vte with its `std` feature, whose OSC buffer is an unbounded `Vec` that also
//! keeps its capacity afterwards: one unterminated `ESC ]52;…` of a gigabyte would cost a
//! gigabyte for the life of the pane. This filter follows OSC framing the way vte does (ESC `]`
//! opens; BEL, CAN, SUB or ESC close) and drops payload bytes beyond [`MAX_PARSER_OSC_BYTES`], so
//! vte sees a truncated sequence with its real terminator. Everything else passes unchanged; in
//! the common case a chunk costs one `memchr` for ESC.

/// Most OSC payload bytes handed to the screen parser per sequence. Titles and hyperlinks fit;
/// clipboard copies and inline images get truncated, which the emulator ignores anyway.
pub(super) const MAX_PARSER_OSC_BYTES: usize = 4096;

const ESC: u8 = 0x1b;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Ground,
    /// Saw ESC (possibly as the last byte of the previous chunk).
    Escape,
    /// Inside an OSC with `len` payload bytes so far.
    Osc {
        len: usize,
    },
}

/// OSC length filter state, carried across chunks.
#[derive(Debug)]
pub(super) struct OscLimit {
    state: State,
}

impl OscLimit {
    pub(super) fn new() -> Self {
        Self {
            state: State::Ground,
        }
    }

    /// Passes `bytes` to `sink` in order, in one or more slices, minus the OSC payload bytes over
    /// the limit.
    pub(super) fn filter(&mut self, bytes: &[u8], mut sink: impl FnMut(&[u8])) {
        // Start of the slice not yet handed to `sink`.
        let mut from = 0;
        let mut i = 0;
        while i < bytes.len() {
            match self.state {
                State::Ground => match memchr::memchr(ESC, &bytes[i..]) {
                    None => break,
                    Some(at) => {
                        self.state = State::Escape;
                        i += at + 1;
                    }
                },
                State::Escape => {
                    self.state = match bytes[i] {
                        b']' => State::Osc { len: 0 },
                        ESC => State::Escape,
                        _ => State::Ground,
                    };
                    i += 1;
                }
                State::Osc { len } => {
                    let rest = &bytes[i..];
                    let end = rest
                        .iter()
                        .position(|&b| matches!(b, 0x07 | 0x18 | 0x1a | ESC));
                    let run = end.unwrap_or(rest.len());
                    let keep = run.min(MAX_PARSER_OSC_BYTES.saturating_sub(len));
                    if keep < run {
                        sink(&bytes[from..i + keep]);
                        from = i + run;
                    }
                    i += run;
                    self.state = State::Osc {
                        len: len.saturating_add(run),
                    };
                    if let Some(end) = end {
                        self.state = if rest[end] == ESC {
                            State::Escape
                        } else {
                            State::Ground
                        };
                        i += 1;
                    }
                }
            }
        }
        if from < bytes.len() {
            sink(&bytes[from..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chunks: &[&[u8]]) -> Vec<u8> {
        let mut limit = OscLimit::new();
        let mut out = Vec::new();
        for chunk in chunks {
            limit.filter(chunk, |s| out.extend_from_slice(s));
        }
        out
    }

    #[test]
    fn ordinary_output_passes_unchanged() {
        let text: &[u8] =
            b"plain \x1b[31mred\x1b[m \x1b]0;title\x07 \x1b]8;;u\x1b\\l\x1b]8;;\x1b\\\x07";
        assert_eq!(run(&[text]), text);
        for cut in 0..text.len() {
            assert_eq!(run(&[&text[..cut], &text[cut..]]), text, "split at {cut}");
        }
    }

    #[test]
    fn overlong_osc_payload_is_truncated_but_terminated() {
        let mut seq = b"a\x1b]52;c;".to_vec();
        seq.extend(std::iter::repeat_n(b'Q', 100_000));
        seq.extend_from_slice(b"\x07b");
        let chunks: Vec<&[u8]> = seq.chunks(777).collect();
        let out = run(&chunks);
        let mut expected = b"a\x1b]".to_vec();
        expected.extend_from_slice(b"52;c;");
        expected.extend(std::iter::repeat_n(b'Q', MAX_PARSER_OSC_BYTES - 5));
        expected.extend_from_slice(b"\x07b");
        assert_eq!(out, expected);
    }

    #[test]
    fn can_and_esc_end_the_osc() {
        let mut seq = b"\x1b]2;".to_vec();
        seq.extend(std::iter::repeat_n(b'x', 10));
        seq.extend_from_slice(b"\x18");
        seq.extend(std::iter::repeat_n(b'y', MAX_PARSER_OSC_BYTES * 2));
        assert_eq!(
            run(&[&seq]),
            seq,
            "text after CAN is plain output and must not be dropped"
        );
    }
}
