//! `QueryFilter`: takes out of a pane's output the queries the server's emulator answers itself
//! (DA1, DA2, DSR 5, CPR, DECXCPR, DECID, XTVERSION, XTWINOPS 18, the kitty flags: the
//! `vt::reply` module), for a client that
//! writes that output to a real terminal. Otherwise that terminal would answer too, the client
//! would forward its answer as typing, and the program would read two answers, the second one
//! with the client terminal's cursor position rather than the pane's.
//!
//! Output arrives in chunks cut anywhere, so a sequence that might still become a query is held
//! back until the next chunk decides it (at most [`HELD_MAX`] bytes). A sequence is passed on as
//! soon as it can no longer become one (`ESC [ 3`, `ESC [ 1 ;`…), so colours and cursor moves
//! are never held; everything passes through unchanged and in order.

use crate::vt::reply::Query;

/// Longest sequence held back; a longer one is not a query and is passed on as it is.
pub const HELD_MAX: usize = 16;

/// Removes answered queries from a stream of output chunks. See the module docs.
#[derive(Debug, Default, Clone)]
pub struct QueryFilter {
    /// The start of an escape sequence not yet decided: empty, `ESC`, or `ESC [` and what
    /// followed it.
    held: Vec<u8>,
}

impl QueryFilter {
    /// A filter with nothing held.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bytes of `chunk` to show, after any held back from the previous chunk, without the
    /// answered queries; the start of a sequence at the end of `chunk` is held back.
    pub fn filter(&mut self, chunk: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(chunk.len() + self.held.len());
        let mut rest = chunk;
        while let Some((&byte, tail)) = rest.split_first() {
            if self.held.is_empty() {
                // Text up to the next ESC passes as it is, in one copy.
                let run = memchr::memchr(0x1b, rest).unwrap_or(rest.len());
                out.extend_from_slice(&rest[..run]);
                if let Some(esc) = rest.get(run) {
                    self.held.push(*esc);
                }
                rest = rest.get(run + 1..).unwrap_or_default();
                continue;
            }
            self.step(byte, &mut out);
            rest = tail;
        }
        out
    }

    /// [`QueryFilter::filter`] of an owned chunk: a chunk without an escape sequence (and
    /// nothing held) is handed back as it is, without a copy.
    pub fn filter_owned(&mut self, chunk: Vec<u8>) -> Vec<u8> {
        if self.held.is_empty() && memchr::memchr(0x1b, &chunk).is_none() {
            return chunk;
        }
        self.filter(&chunk)
    }

    /// Forgets a held partial sequence: the stream restarts (a Snapshot repaints the screen).
    pub fn reset(&mut self) {
        self.held.clear();
    }

    /// One byte while a sequence is held.
    fn step(&mut self, byte: u8, out: &mut Vec<u8>) {
        if self.held.len() == 1 {
            match byte {
                b'[' => self.held.push(byte),
                // DECID.
                b'Z' => self.held.clear(),
                0x1b => out.push(0x1b),
                _ => self.pass(byte, out),
            }
            return;
        }
        match byte {
            b'0'..=b'9' if self.held.len() < HELD_MAX => {
                self.held.push(byte);
                self.pass_unless_viable(out);
            }
            b'<'..=b'?' if self.held.len() == 2 => {
                self.held.push(byte);
                self.pass_unless_viable(out);
            }
            0x40..=0x7e => {
                if self.answered(byte) {
                    self.held.clear();
                } else {
                    self.pass(byte, out);
                }
            }
            0x1b => {
                out.append(&mut self.held);
                self.held.push(0x1b);
            }
            // `;` included: no answered query has a second parameter.
            _ => self.pass(byte, out),
        }
    }

    /// Passes on what is held when it can no longer become an answered query.
    fn pass_unless_viable(&mut self, out: &mut Vec<u8>) {
        let (prefix, digits) = self.prefix_and_params();
        if !Query::could_start(prefix, digits) {
            out.append(&mut self.held);
        }
    }

    /// The held `ESC [ …` split into its private prefix (`?`, `>`…; may be empty) and the rest.
    fn prefix_and_params(&self) -> (&[u8], &[u8]) {
        let body = &self.held[2..];
        match body.first() {
            Some(b'<'..=b'?') => body.split_at(1),
            _ => body.split_at(0),
        }
    }

    /// Passes on what is held and `byte`.
    fn pass(&mut self, byte: u8, out: &mut Vec<u8>) {
        out.append(&mut self.held);
        out.push(byte);
    }

    /// Whether the held `ESC [ …` ended by `action` is a query the emulator answers.
    fn answered(&self, action: u8) -> bool {
        let (prefix, params) = self.prefix_and_params();
        let first = std::str::from_utf8(params)
            .ok()
            .filter(|p| !p.is_empty())
            .map_or(Some(0), |p| p.parse::<u16>().ok());
        first.is_some_and(|first| Query::parse(prefix, char::from(action), first).is_some())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::vt::{Row, Sink, Term};

    /// Collects the emulator's answers.
    #[derive(Default)]
    struct Answers(Vec<u8>);

    impl Sink for Answers {
        fn scrolled_off(&mut self, _: &Row, _: u16, _: crate::vt::LinePart) {}
        fn title(&mut self, _: &[u8]) {}
        fn clear_history(&mut self) {}
        fn reply(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
    }

    proptest! {
        /// The filter removes a control sequence exactly when the emulator answers it, so a
        /// client's terminal answers only what the pane does not.
        #[test]
        fn removes_exactly_what_the_emulator_answers(
            prefix in prop::sample::select(vec!["", "?", ">", "=", "<"]),
            params in prop::collection::vec(prop::sample::select(vec!["", "0", "00", "1", "5", "6", "18", "018", "180", "65536"]), 0..3),
            intermediate in prop::sample::select(vec!["", " ", "$"]),
            action in prop::sample::select(vec!['c', 'n', 'q', 'R', 'm', 'h', 'p', 'u', 't']),
        ) {
            let sequence = format!("\x1b[{prefix}{}{intermediate}{action}", params.join(";"));
            let mut term = Term::new(80, 24);
            let mut answers = Answers::default();
            term.process(sequence.as_bytes(), &mut answers);
            let kept = filter(&[sequence.as_bytes()]);
            prop_assert_eq!(kept.is_empty(), !answers.0.is_empty(), "{:?}", sequence);
            if !kept.is_empty() {
                prop_assert_eq!(kept, sequence.as_bytes());
            }
        }
    }

    fn filter(chunks: &[&[u8]]) -> Vec<u8> {
        let mut f = QueryFilter::new();
        chunks.iter().flat_map(|c| f.filter(c)).collect()
    }

    #[test]
    fn answered_queries_are_removed_and_everything_else_kept_in_order() {
        assert_eq!(
            filter(&[
                b"a\x1b[6nb\x1b[cc\x1b[0cd\x1b[>ce\x1b[5nf\x1b[?6ng\x1b[>qh\x1bZi\x1b[18tj\x1b[?uk"
            ]),
            b"abcdefghijk"
        );
    }

    #[test]
    fn other_sequences_pass_unchanged() {
        let kept: &[&[u8]] = &[
            b"\x1b[1;31mred\x1b[m",
            b"\x1b[2 q",                   // DECSCUSR has an intermediate
            b"\x1b[?1049h",                // a mode
            b"\x1b[6;1R",                  // looks like an answer
            b"\x1b]11;?\x07",              // colour query: the client terminal knows its colours
            b"\x1b[1c",                    // DA with a parameter
            b"\x1b[6;2n",                  // more parameters than a query takes
            b"\x1b[99999n",                // a parameter out of range
            b"\x1b(0q\x1b(B",              // charset designation, then a q
            b"\x1b\x1b[6",                 // a second ESC restarts
            b"\x1b[12345678901234567890n", // longer than is held
        ];
        for bytes in kept {
            let expected = if *bytes == b"\x1b\x1b[6" {
                b"\x1b".to_vec() // `ESC [ 6` is still held: it may yet become CPR
            } else {
                bytes.to_vec()
            };
            assert_eq!(
                filter(&[bytes]),
                expected,
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn a_query_split_across_chunks_is_still_removed() {
        let whole = b"x\x1b[?6ny";
        for cut in 0..=whole.len() {
            let (a, b) = whole.split_at(cut);
            assert_eq!(filter(&[a, b]), b"xy", "cut at {cut}");
        }
        assert_eq!(filter(&[b"\x1b", b"[", b"6", b"n", b"!"]), b"!");
    }

    #[test]
    fn a_held_start_is_passed_on_once_it_is_not_a_query() {
        let mut f = QueryFilter::new();
        assert_eq!(f.filter(b"ab\x1b[1"), b"ab", "may become CSI 18 t");
        assert_eq!(f.filter(b"1mz"), b"\x1b[11mz");
        assert_eq!(
            f.filter(b"\x1b[3"),
            b"\x1b[3",
            "no query starts with 3: not held"
        );
        assert_eq!(f.filter(b"1m"), b"1m");
        assert_eq!(
            f.filter(b"\x1b[6;"),
            b"\x1b[6;",
            "no query has two parameters"
        );
        assert_eq!(f.filter(b"\x1b[=1"), b"\x1b[=1", "no query has this prefix");
        assert_eq!(f.filter(b"\x1b"), b"");
        f.reset();
        assert_eq!(f.filter(b"[6n"), b"[6n", "a reset forgets the held ESC");
    }
}
