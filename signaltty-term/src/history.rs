//! `History`: the compact scrollback of one pane — the rows that scrolled off the top of its main
//! screen, oldest first.
//!
//! Rows are stored as text (UTF-8 with their SGR colour sequences, never as terminal cells) in one
//! contiguous byte ring plus a ring of line lengths, so a plain 80-column line costs about its 80
//! bytes plus a 4-byte length. Invariants: the history never holds more than `max_lines` lines nor
//! more than `max_bytes` bytes of text, and neither ring's allocation grows past those caps (the
//! oldest lines are evicted first), so a pane printing without end keeps a bounded footprint.
//! Each stored line is self-contained: it starts from default attributes, and a line that sets any
//! attribute ends with a reset (`ESC [ m`).

use std::collections::VecDeque;

use super::render::strip_sgr;

/// Bounds of one pane's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryLimits {
    /// Most lines kept.
    pub max_lines: usize,
    /// Most bytes of line text kept (SGR sequences included).
    pub max_bytes: usize,
}

impl Default for HistoryLimits {
    fn default() -> Self {
        Self {
            max_lines: 10_000,
            max_bytes: 4 * 1024 * 1024,
        }
    }
}

/// Bounded scrollback lines, oldest first.
#[derive(Debug)]
pub struct History {
    limits: HistoryLimits,
    /// Every line's bytes back to back, oldest first.
    text: VecDeque<u8>,
    /// Each line's length in `text`, oldest first.
    lens: VecDeque<u32>,
}

const RESET: &[u8] = b"\x1b[m";

impl History {
    /// An empty history with the given bounds.
    pub fn new(limits: HistoryLimits) -> Self {
        Self {
            limits,
            text: VecDeque::new(),
            lens: VecDeque::new(),
        }
    }

    /// The bounds this history enforces.
    pub fn limits(&self) -> HistoryLimits {
        self.limits
    }

    /// Appends one line. `line` must start from default attributes (a reset is appended when it
    /// contains any escape sequence); a line longer than `max_bytes` is cut at a character
    /// boundary.
    pub fn push(&mut self, line: &str) {
        if self.limits.max_lines == 0 || self.limits.max_bytes == 0 {
            return;
        }
        let styled = memchr::memchr(0x1b, line.as_bytes()).is_some();
        let reset = if styled { RESET.len() } else { 0 };
        let mut body = line;
        if body.len() + reset > self.limits.max_bytes {
            let room = self.limits.max_bytes.saturating_sub(reset);
            body = &body[..body.floor_char_boundary(room)];
        }
        let len = body.len() + reset;
        while self.lens.len() >= self.limits.max_lines
            || self.text.len() + len > self.limits.max_bytes
        {
            self.pop_oldest();
        }
        reserve_bounded(&mut self.text, len, self.limits.max_bytes);
        reserve_bounded(&mut self.lens, 1, self.limits.max_lines);
        self.text.extend(body.as_bytes());
        if styled {
            self.text.extend(RESET);
        }
        // `len` ≤ max_bytes; a length beyond u32 would need a multi-GiB single line.
        self.lens.push_back(u32::try_from(len).unwrap_or(u32::MAX));
    }

    fn pop_oldest(&mut self) {
        if let Some(len) = self.lens.pop_front() {
            let len = (len as usize).min(self.text.len());
            self.text.drain(..len);
        }
    }

    /// Number of lines held.
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// Whether no line is held.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Bytes of line text held (what `max_bytes` bounds).
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Heap memory held by both rings (allocated capacity, not just what is used).
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.lens.capacity() * size_of::<u32>()
    }

    /// Drops every line and releases the memory.
    pub fn clear(&mut self) {
        self.text = VecDeque::new();
        self.lens = VecDeque::new();
    }

    /// The last `n` lines (fewer if fewer are held), oldest first, with their SGR sequences or
    /// as plain text.
    pub fn last_lines(&self, n: usize, keep_ansi: bool) -> Vec<String> {
        self.tail(n).lines(keep_ansi)
    }

    /// A copy of the last `n` lines' bytes (fewer if fewer are held): two `memcpy`s, so a
    /// caller holding a lock over this history can release it before the slower work of
    /// turning them into text ([`HistoryTail::lines`]).
    pub fn tail(&self, n: usize) -> HistoryTail {
        let n = n.min(self.lens.len());
        let first = self.lens.len() - n;
        let lens: Vec<u32> = self.lens.range(first..).copied().collect();
        let total: usize = lens.iter().map(|&len| len as usize).sum();
        let skip = self.text.len() - total;
        let (a, b) = self.text.as_slices();
        let mut text = Vec::with_capacity(total);
        if skip < a.len() {
            text.extend_from_slice(&a[skip..]);
            text.extend_from_slice(b);
        } else {
            text.extend_from_slice(&b[skip - a.len()..]);
        }
        HistoryTail { text, lens }
    }
}

/// History lines copied out by [`History::tail`], oldest first.
#[derive(Clone, Debug, Default)]
pub struct HistoryTail {
    text: Vec<u8>,
    lens: Vec<u32>,
}

impl HistoryTail {
    /// Number of lines.
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Bytes of line text held.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// The lines, with their SGR sequences or as plain text.
    pub fn lines(&self, keep_ansi: bool) -> Vec<String> {
        let mut lines = Vec::with_capacity(self.lens.len());
        let mut start = 0;
        for &len in &self.lens {
            let end = start + len as usize;
            // Lines are pushed as whole `str`s and evicted whole, so the bytes are UTF-8; lossy
            // conversion only guards against that invariant being broken.
            let line = String::from_utf8_lossy(&self.text[start..end]);
            lines.push(if keep_ansi {
                line.into_owned()
            } else {
                strip_sgr(&line)
            });
            start = end;
        }
        lines
    }
}

/// Grows `ring` so `extra` more items fit, doubling like `VecDeque` would but never allocating
/// beyond `cap` items.
fn reserve_bounded<T>(ring: &mut VecDeque<T>, extra: usize, cap: usize) {
    let needed = ring.len() + extra;
    if needed > ring.capacity() {
        let target = needed.max(ring.capacity() * 2).min(cap.max(needed));
        ring.reserve_exact(target - ring.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_lines: usize, max_bytes: usize) -> HistoryLimits {
        HistoryLimits {
            max_lines,
            max_bytes,
        }
    }

    #[test]
    fn tails_are_whole_lines_wherever_the_ring_wraps() {
        // A byte cap that is not a multiple of the line length makes the ring wrap at every
        // possible offset as lines are evicted.
        let mut h = History::new(limits(1000, 997));
        for i in 0..500 {
            h.push(&format!("line {i:03}"));
            let held = h.len();
            for n in [0, 1, 7, held, held + 5] {
                let tail = h.tail(n);
                assert_eq!(tail.len(), n.min(held));
                let expected: Vec<String> = (i + 1 - n.min(held)..=i)
                    .map(|k| format!("line {k:03}"))
                    .collect();
                assert_eq!(tail.lines(false), expected, "after line {i}, last {n}");
            }
        }
    }

    #[test]
    fn keeps_lines_in_order() {
        let mut h = History::new(HistoryLimits::default());
        h.push("one");
        h.push("");
        h.push("three ✓");
        assert_eq!(h.len(), 3);
        assert_eq!(h.last_lines(10, false), vec!["one", "", "three ✓"]);
        assert_eq!(h.last_lines(2, false), vec!["", "three ✓"]);
        assert_eq!(h.last_lines(0, false), Vec::<String>::new());
        assert_eq!(
            h.bytes(),
            "one".len() + "three ✓".len(),
            "the empty line costs only its index entry"
        );
    }

    #[test]
    fn line_cap_evicts_oldest() {
        let mut h = History::new(limits(3, 1 << 20));
        for i in 0..10 {
            h.push(&format!("line {i}"));
        }
        assert_eq!(h.len(), 3);
        assert_eq!(h.last_lines(5, false), vec!["line 7", "line 8", "line 9"]);
        assert!(
            h.lens.capacity() <= 3 + 1,
            "index allocation is bounded: {}",
            h.lens.capacity()
        );
    }

    #[test]
    fn byte_cap_evicts_oldest_and_bounds_allocation() {
        let mut h = History::new(limits(usize::MAX, 1000));
        for i in 0..10_000 {
            h.push(&format!("{i:>10} some text to fill the line"));
            assert!(h.bytes() <= 1000);
        }
        assert_eq!(h.bytes(), h.len() * 37);
        assert_eq!(
            h.last_lines(1, false),
            vec!["      9999 some text to fill the line"]
        );
        assert!(
            h.text.capacity() <= 1000 + 64,
            "text allocation is bounded: {}",
            h.text.capacity()
        );
    }

    #[test]
    fn styled_lines_end_with_a_reset_and_can_be_stripped() {
        let mut h = History::new(HistoryLimits::default());
        h.push("\x1b[31mred\x1b[1m bold");
        h.push("plain");
        assert_eq!(
            h.last_lines(2, true),
            vec!["\x1b[31mred\x1b[1m bold\x1b[m", "plain"]
        );
        assert_eq!(h.last_lines(2, false), vec!["red bold", "plain"]);
    }

    #[test]
    fn a_line_larger_than_the_cap_is_cut_at_a_char_boundary() {
        let mut h = History::new(limits(10, 10));
        h.push("ééééééééé");
        assert_eq!(h.last_lines(1, false), vec!["ééééé"]);
        assert!(h.bytes() <= 10);
    }

    #[test]
    fn zero_limits_keep_nothing() {
        let mut h = History::new(limits(0, 100));
        h.push("x");
        assert!(h.is_empty());
        let mut h = History::new(limits(100, 0));
        h.push("x");
        assert!(h.is_empty());
    }

    #[test]
    fn clear_releases_memory() {
        let mut h = History::new(HistoryLimits::default());
        for _ in 0..100 {
            h.push("some line of text");
        }
        h.clear();
        assert!(h.is_empty());
        assert_eq!(h.heap_bytes(), 0);
    }
}
