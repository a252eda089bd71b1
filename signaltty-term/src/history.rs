//! `History`: the compact scrollback of one pane — the lines that scrolled off the top of its main
//! screen, oldest first.
//!
//! An entry is a *logical* line: rows the program's text soft-wrapped across are appended to one
//! entry as they leave the screen (the row before the wrap with its blanks up to the edge), so
//! that a resize never has to rewrite the history (see `vt::reflow`): captures wrap each line at
//! the width of the moment ([`History::tail_rows`]), and a resize that makes room on screen takes
//! the newest lines back ([`History::pop_newest`]).
//!
//! Lines are stored as text (UTF-8 with their SGR colour sequences, never as terminal cells) in one
//! contiguous byte ring plus a ring of line lengths, so a plain 80-column line costs about its 80
//! bytes plus a 4-byte length. Invariants: the history never holds more than `max_lines` lines nor
//! more than `max_bytes` bytes of text, and neither ring's allocation grows past those caps (the
//! oldest lines are evicted first), so a pane printing without end keeps a bounded footprint.
//! Each stored line is self-contained: it starts from default attributes, and a line that sets any
//! attribute ends with a reset (`ESC [ m`).

use std::collections::VecDeque;

use super::render::{strip_sgr, write_row};
use super::vt::{LinePart, is_printable_ascii, rows_for_text, wrap_text};

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
    /// contains any escape sequence and does not end with one); a line longer than `max_bytes`
    /// is cut at a character boundary.
    pub fn push(&mut self, line: &str) {
        self.push_part(line, LinePart::Starts);
    }

    /// Appends `part` of a line: a new line, or the continuation of the newest one (a row the
    /// newest line soft-wrapped into). A continuation that would make its line longer than
    /// `max_bytes` starts a line instead.
    pub fn push_part(&mut self, line: &str, part: LinePart) {
        if self.limits.max_lines == 0 || self.limits.max_bytes == 0 {
            return;
        }
        let styled =
            memchr::memchr(0x1b, line.as_bytes()).is_some() && !line.as_bytes().ends_with(RESET);
        let reset = if styled { RESET.len() } else { 0 };
        let mut body = line;
        if body.len() + reset > self.limits.max_bytes {
            let room = self.limits.max_bytes.saturating_sub(reset);
            body = &body[..body.floor_char_boundary(room)];
        }
        let len = body.len() + reset;
        let newest = self.lens.back().map_or(0, |&l| l as usize);
        if part == LinePart::Continues
            && !self.lens.is_empty()
            && newest + len <= self.limits.max_bytes
        {
            // Older lines make room; the newest one, being extended, stays.
            while self.lens.len() > 1 && self.text.len() + len > self.limits.max_bytes {
                self.pop_oldest();
            }
            reserve_bounded(&mut self.text, len, self.limits.max_bytes);
            self.text.extend(body.as_bytes());
            if styled {
                self.text.extend(RESET);
            }
            if let Some(last) = self.lens.back_mut() {
                *last = u32::try_from(newest + len).unwrap_or(u32::MAX);
            }
            return;
        }
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

    /// Takes the newest line out (for a resize that brings it back onto the screen), unless it
    /// is longer than `max_bytes` bytes.
    pub fn pop_newest(&mut self, max_bytes: usize) -> Option<String> {
        let len = *self.lens.back()? as usize;
        if len > max_bytes || len > self.text.len() {
            return None;
        }
        self.lens.pop_back();
        let bytes: Vec<u8> = self.text.drain(self.text.len() - len..).collect();
        // Lines are pushed as whole `str`s, so the bytes are UTF-8.
        Some(String::from_utf8_lossy(&bytes).into_owned())
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
        self.copy_tail(n.min(self.lens.len()), None)
    }

    /// A copy of the lines that make the last `n` rows at `cols` columns (each line wrapped as a
    /// screen that wide would wrap it): what a capture at the pane's current width shows.
    /// Lines that fit are counted from their length alone, so this is quick for most histories.
    pub fn tail_rows(&self, n: usize, cols: u16) -> HistoryTail {
        let cols = cols.max(1);
        let (mut rows, mut lines) = (0usize, 0usize);
        let mut end = self.text.len();
        while rows < n && lines < self.lens.len() {
            let len = self.lens[self.lens.len() - 1 - lines] as usize;
            let start = end - len.min(end);
            rows += self.rows_of(start, end, cols);
            end = start;
            lines += 1;
        }
        self.copy_tail(
            lines,
            Some(Wrap {
                cols,
                skip: rows.saturating_sub(n),
            }),
        )
    }

    /// Rows the line at `start..end` of the ring takes at `cols` columns.
    fn rows_of(&self, start: usize, end: usize, cols: u16) -> usize {
        if end - start <= usize::from(cols) {
            return 1;
        }
        let (a, b) = self.text.as_slices();
        let bytes: Vec<u8> = if end <= a.len() {
            return rows_for_text(&String::from_utf8_lossy(&a[start..end]), cols);
        } else if start >= a.len() {
            return rows_for_text(
                &String::from_utf8_lossy(&b[start - a.len()..end - a.len()]),
                cols,
            );
        } else {
            a[start..]
                .iter()
                .chain(&b[..end - a.len()])
                .copied()
                .collect()
        };
        rows_for_text(&String::from_utf8_lossy(&bytes), cols)
    }

    fn copy_tail(&self, n: usize, wrap: Option<Wrap>) -> HistoryTail {
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
        HistoryTail { text, lens, wrap }
    }
}

/// How a tail taken by [`History::tail_rows`] is cut into rows.
#[derive(Clone, Copy, Debug)]
struct Wrap {
    cols: u16,
    /// Rows of the first line left out (the tail starts inside it).
    skip: usize,
}

/// History lines copied out by [`History::tail`] or [`History::tail_rows`], oldest first.
#[derive(Clone, Debug, Default)]
pub struct HistoryTail {
    text: Vec<u8>,
    lens: Vec<u32>,
    wrap: Option<Wrap>,
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

    /// The lines (rows, for a tail of [`History::tail_rows`]), with their SGR sequences or as
    /// plain text, trailing blanks trimmed.
    pub fn lines(&self, keep_ansi: bool) -> Vec<String> {
        let mut lines = Vec::with_capacity(self.lens.len());
        let mut start = 0;
        let mut skip = self.wrap.map_or(0, |w| w.skip);
        for &len in &self.lens {
            let end = start + len as usize;
            // Lines are pushed as whole `str`s and evicted whole, so the bytes are UTF-8; lossy
            // conversion only guards against that invariant being broken.
            let line = String::from_utf8_lossy(&self.text[start..end]);
            start = end;
            let cols = match self.wrap {
                // A line that fits (most: SGR makes lines longer in bytes, not in columns)
                // is taken as it is.
                Some(w) if rows_for_text(&line, w.cols) > 1 => w.cols,
                _ => {
                    lines.push(if keep_ansi {
                        trim_padding(&line).to_string()
                    } else {
                        strip_sgr(&line).trim_end_matches(' ').to_string()
                    });
                    continue;
                }
            };
            if is_printable_ascii(&line) {
                // One column per byte: rows are byte ranges.
                let chunks = line.as_bytes().chunks(usize::from(cols)).skip(skip);
                lines.extend(
                    chunks.map(|c| String::from_utf8_lossy(c).trim_end_matches(' ').to_string()),
                );
                skip = 0;
                continue;
            }
            for row in wrap_text(&line, cols).iter().skip(skip) {
                let mut out = String::new();
                write_row(row, keep_ansi, &mut out);
                lines.push(out);
            }
            skip = 0;
        }
        lines
    }
}

#[cfg(test)]
impl HistoryTail {
    /// The lines as stored (a soft-wrapped end keeps its blanks).
    pub(crate) fn raw_lines(&self) -> Vec<String> {
        let mut start = 0;
        self.lens
            .iter()
            .map(|&len| {
                let end = start + len as usize;
                let line = String::from_utf8_lossy(&self.text[start..end]).into_owned();
                start = end;
                line
            })
            .collect()
    }
}

/// `line` without the blanks that pad a soft-wrapped row to the edge (written after the row's
/// closing reset, in the default style); coloured blanks stay.
fn trim_padding(line: &str) -> &str {
    let body = line.strip_suffix("\x1b[m").unwrap_or(line);
    let trimmed = body.trim_end_matches(' ');
    if trimmed.len() == body.len() {
        return line;
    }
    // The blanks are default-styled only when no SGR is in force before them.
    let default = match trimmed.rfind('\x1b') {
        None => true,
        Some(at) => trimmed[at..].starts_with("\x1b[m"),
    };
    if default { trimmed } else { line }
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
