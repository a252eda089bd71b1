//! `Row`: one line of the grid. A row stores only the cells up to the last one written; every
//! column past `cells.len()` is a default blank. That keeps a screen that shows a prompt at a few
//! hundred bytes (tmux allocates a line's cells on first write the same way) and makes erasing to
//! the end of a row with default colours a truncate.
//!
//! Combining marks (accents, variation selectors, zero-width joiners) and underline colours
//! (SGR 58) are rare, so they live in a side list of `(column, extra)` instead of widening
//! every cell; an edit that moves or erases a cell moves or drops its extras with it.

use super::cell::{Cell, Color, Style};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    cells: Vec<Cell>,
    marks: Marks,
    /// The program's line continued onto the next row because the text reached the last column
    /// (a soft wrap: a resize joins the two rows and wraps them again at the new width).
    pub wrapped: bool,
    /// With `wrapped`: the last column is a blank left by a double-width character that did
    /// not fit and went to the next row, not text.
    padded: bool,
}

/// What a cell can carry beyond its 12 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Extra {
    Mark(char),
    UnderlineColor(Color),
}

/// A row's extras: usually none, so one pointer (a `Vec` would be three words in every row of
/// every screen; 16 bytes a row is 800 bytes of a blank 200×50 pane).
// The box is the point: one word in every row instead of three; the extra allocation happens
// only in the rare row that has extras.
#[allow(clippy::box_collection)]
#[derive(Clone, Debug, Default)]
struct Marks(Option<Box<Vec<(u16, Extra)>>>);

impl Marks {
    fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|v| v.is_empty())
    }

    fn iter(&self) -> std::slice::Iter<'_, (u16, Extra)> {
        self.0.as_deref().map_or(&[][..], Vec::as_slice).iter()
    }

    fn iter_mut(&mut self) -> std::slice::IterMut<'_, (u16, Extra)> {
        self.0
            .as_deref_mut()
            .map_or(&mut [][..], Vec::as_mut_slice)
            .iter_mut()
    }

    fn push(&mut self, extra: (u16, Extra)) {
        self.0.get_or_insert_default().push(extra);
    }

    fn extend(&mut self, extras: impl IntoIterator<Item = (u16, Extra)>) {
        self.0.get_or_insert_default().extend(extras);
        if self.is_empty() {
            self.0 = None;
        }
    }

    fn retain(&mut self, keep: impl FnMut(&(u16, Extra)) -> bool) {
        if let Some(v) = &mut self.0 {
            v.retain(keep);
            if v.is_empty() {
                self.0 = None;
            }
        }
    }

    fn clear(&mut self) {
        self.0 = None;
    }
}

impl PartialEq for Marks {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Marks {}

impl FromIterator<(u16, Extra)> for Marks {
    fn from_iter<I: IntoIterator<Item = (u16, Extra)>>(iter: I) -> Self {
        let v: Vec<_> = iter.into_iter().collect();
        Marks((!v.is_empty()).then(|| Box::new(v)))
    }
}

impl Row {
    /// A row with nothing written: what every row of a screen is until the program prints.
    pub(crate) const BLANK: Row = Row {
        cells: Vec::new(),
        marks: Marks(None),
        wrapped: false,
        padded: false,
    };

    /// The stored cells (a prefix of the row; the rest are default blanks).
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// The cell at `col` (a default blank past the stored cells).
    pub fn cell(&self, col: u16) -> Cell {
        self.cells
            .get(usize::from(col))
            .copied()
            .unwrap_or_default()
    }

    /// The combining marks drawn over the cell at `col`, in the order they arrived.
    pub fn marks(&self, col: u16) -> impl Iterator<Item = char> + '_ {
        self.marks.iter().filter_map(move |(c, e)| match e {
            Extra::Mark(m) if *c == col => Some(*m),
            _ => None,
        })
    }

    /// Whether any cell carries combining marks or an underline colour (lets renderers skip
    /// the lookups of [`Row::marks`] and [`Row::style`]).
    pub fn has_marks(&self) -> bool {
        !self.marks.is_empty()
    }

    /// The full style of the cell at `col`: [`Cell::style`] plus its underline colour.
    pub fn style(&self, col: u16) -> Style {
        let mut style = self.cell(col).style();
        if let Some(color) = self.marks.iter().find_map(|(c, e)| match e {
            Extra::UnderlineColor(color) if *c == col => Some(*color),
            _ => None,
        }) {
            style.set_underline_color(color);
        }
        style
    }

    /// Writes a cell drawn with `style` (its underline colour included) at `col`.
    pub fn put_styled(&mut self, col: u16, cell: Cell, style: Style) {
        self.put(col, cell);
        let color = style.underline_color();
        if color != Color::Default {
            self.marks.push((col, Extra::UnderlineColor(color)));
        }
    }

    /// Writes a single-width `cell` at `col`: the hot path of printing, with [`Row::put`]'s
    /// fix-ups only when a wide character or a mark is involved.
    #[inline]
    pub fn put_narrow(&mut self, col: u16, cell: Cell) {
        let at = usize::from(col);
        if at == self.cells.len() {
            self.cells.push(cell);
            if self.marks.is_empty() {
                return;
            }
        } else if let Some(old) = self.cells.get_mut(at)
            && !old.is_wide()
            && !old.is_wide_continuation()
            && self.marks.is_empty()
        {
            *old = cell;
            return;
        }
        self.put(col, cell);
    }

    /// Writes `cell` at `col`; a double-width character partly overwritten is erased whole.
    pub fn put(&mut self, col: u16, cell: Cell) {
        let at = usize::from(col);
        if at >= self.cells.len() {
            self.cells.resize(at + 1, Cell::default());
        }
        let old = self.cells[at];
        if old.is_wide_continuation() && at > 0 {
            self.cells[at - 1] = Cell::blank(self.cells[at - 1].style());
        }
        if old.is_wide()
            && self
                .cells
                .get(at + 1)
                .is_some_and(|c| c.is_wide_continuation())
        {
            self.cells[at + 1] = Cell::blank(self.cells[at + 1].style());
        }
        self.cells[at] = cell;
        if !self.marks.is_empty() {
            self.marks.retain(|(c, _)| *c != col);
        }
    }

    /// Attaches a combining mark to the cell at `col`.
    pub fn add_mark(&mut self, col: u16, mark: char) {
        // A handful per cell is plenty (emoji sequences); more is a program spamming marks.
        if self.marks(col).count() < 8 {
            self.marks.push((col, Extra::Mark(mark)));
        }
    }

    /// Appends `other`'s cells (and extras) after the first `at` columns of this row, which
    /// are padded with blanks first: how a reflow builds a logical line out of rows.
    pub(super) fn append(&mut self, at: usize, other: &Row) {
        self.cells.resize(at, Cell::default());
        self.cells.extend_from_slice(&other.cells);
        let base = at as u32;
        self.marks.extend(other.marks.iter().map(|(c, e)| {
            // Logical lines are at most `MAX_LINE_CELLS` long, which fits in u16.
            ((base + u32::from(*c)) as u16, *e)
        }));
    }

    /// Columns `start..end` of this row as a row of their own (extras included).
    pub(super) fn slice(&self, start: usize, end: usize) -> Row {
        let end = end.min(self.cells.len()).max(start.min(self.cells.len()));
        let start = start.min(end);
        Row {
            cells: self.cells[start..end].to_vec(),
            marks: self
                .marks
                .iter()
                .filter(|(c, _)| (start..end).contains(&usize::from(*c)))
                .map(|(c, e)| (c - start as u16, *e))
                .collect(),
            wrapped: false,
            padded: false,
        }
    }

    /// The columns `first..end` of the first `cols` where this row shows something other
    /// than `old` (a character, its style, combining marks, underline colour); `None` when
    /// they look the same (soft-wrap flags are not looked at). For a client that paints only
    /// what changed (the server's paint): it runs for every row of a screen on every output
    /// chunk, so equal rows — nearly all of them — cost one block-wise comparison of the cells.
    /// Not inlined, so it is compiled at this crate's optimisation level (the server's release
    /// build optimises for size).
    #[inline(never)]
    pub fn changed_columns(&self, old: &Row, cols: u16) -> Option<(u16, u16)> {
        let limit = usize::from(cols);
        let a = &self.cells[..self.cells.len().min(limit)];
        let b = &old.cells[..old.cells.len().min(limit)];
        let marks = !self.marks.is_empty() || !old.marks.is_empty();
        if (!marks || self.marks == old.marks) && super::cell::same_cells(a, b) {
            return None;
        }
        // Columns fit in u16: rows are never wider than the screen.
        let differs = |c: usize| {
            let c = c as u16;
            self.cell(c) != old.cell(c)
                || (marks && (self.style(c) != old.style(c) || !self.marks(c).eq(old.marks(c))))
        };
        let mark_end = self
            .marks
            .iter()
            .chain(old.marks.iter())
            .map(|(c, _)| usize::from(*c) + 1)
            .max()
            .unwrap_or(0);
        // Past both rows' stored cells (and extras) every column is a default blank on both.
        let stored = a.len().max(b.len()).max(mark_end).min(limit);
        let first = (0..stored).find(|&c| differs(c))?;
        let last = (first..stored).rev().find(|&c| differs(c))?;
        Some((first as u16, last as u16 + 1))
    }

    /// Whether the row's soft wrap left its last column blank for a double-width character
    /// (that blank is not part of the line).
    pub fn padded(&self) -> bool {
        self.wrapped && self.padded
    }

    /// Marks the row soft-wrapped, `padded` as [`Row::padded`] says.
    pub(super) fn set_wrapped(&mut self, padded: bool) {
        self.wrapped = true;
        self.padded = padded;
    }

    /// Number of stored cells.
    pub(super) fn len(&self) -> usize {
        self.cells.len()
    }

    /// Drops trailing default blank cells (they are implicit).
    pub(super) fn trim(&mut self) {
        let keep = self
            .cells
            .iter()
            .rposition(|c| !c.is_default_blank())
            .map_or(0, |i| i + 1);
        let keep = keep.max(
            self.marks
                .iter()
                .map(|(c, _)| usize::from(*c) + 1)
                .max()
                .unwrap_or(0),
        );
        self.cells.truncate(keep);
    }

    /// Erases columns `start..end` of a row `cols` wide to blanks in `style`'s background.
    pub fn erase(&mut self, start: u16, end: u16, cols: u16, style: Style) {
        let (start, end) = (usize::from(start), usize::from(end.min(cols)));
        if start >= end {
            return;
        }
        self.split_wide_at(start);
        self.split_wide_at(end);
        let blank = Cell::blank(style);
        if blank.is_default_blank() && end >= self.cells.len() {
            self.cells.truncate(start);
        } else {
            if end > self.cells.len() {
                self.cells.resize(end, Cell::default());
            }
            self.cells[start..end].fill(blank);
        }
        self.drop_marks(start, end);
    }

    /// Erases the whole row (and its wrap flag).
    pub fn clear(&mut self, cols: u16, style: Style) {
        self.erase(0, cols, cols, style);
        self.marks.clear();
        self.wrapped = false;
    }

    /// Inserts `n` blanks at `col`, shifting the rest right; cells pushed past `cols` are lost.
    pub fn insert_blanks(&mut self, col: u16, n: u16, cols: u16, style: Style) {
        let at = usize::from(col);
        if at >= self.cells.len() && Cell::blank(style).is_default_blank() {
            return;
        }
        self.split_wide_at(at);
        if at > self.cells.len() {
            self.cells.resize(at, Cell::default());
        }
        let n = usize::from(n).min(usize::from(cols) - at);
        self.cells
            .splice(at..at, std::iter::repeat_n(Cell::blank(style), n));
        self.cells.truncate(usize::from(cols));
        self.drop_cut_wide(cols);
        self.shift_marks(at, n as isize, cols);
    }

    /// Deletes `n` cells at `col`, shifting the rest left and filling the end with blanks.
    pub fn delete(&mut self, col: u16, n: u16, cols: u16, style: Style) {
        let at = usize::from(col);
        let cols_us = usize::from(cols);
        let n = usize::from(n).min(cols_us - at);
        self.split_wide_at(at);
        self.split_wide_at(at + n);
        if at < self.cells.len() {
            let end = (at + n).min(self.cells.len());
            self.cells.drain(at..end);
            self.drop_marks(at, at + n);
            self.shift_marks(at + n, -(n as isize), cols);
        }
        let blank = Cell::blank(style);
        if !blank.is_default_blank() {
            self.cells.resize(cols_us, blank);
        }
    }

    /// Shortens the row to `cols` columns (a resize).
    pub fn truncate(&mut self, cols: u16) {
        let cols = usize::from(cols);
        if self.cells.len() > cols {
            self.cells.truncate(cols);
        }
        self.drop_cut_wide(cols as u16);
        self.marks.retain(|(c, _)| usize::from(*c) < cols);
        self.wrapped = false;
    }

    /// Columns up to and including the last cell that shows something.
    pub fn trimmed_len(&self) -> usize {
        self.cells
            .iter()
            .rposition(|c| !c.is_default_blank())
            .map_or(0, |i| i + 1)
    }

    /// A double-width character whose right half fell off the end of the row is erased.
    fn drop_cut_wide(&mut self, cols: u16) {
        if let Some(last) = self.cells.get_mut(usize::from(cols) - 1)
            && last.is_wide()
        {
            *last = Cell::blank(last.style());
        }
    }

    /// If a double-width character straddles the boundary before column `at`, erase it whole.
    fn split_wide_at(&mut self, at: usize) {
        if at == 0 || at >= self.cells.len() || !self.cells[at].is_wide_continuation() {
            return;
        }
        let left = self.cells[at - 1];
        self.cells[at - 1] = Cell::blank(left.style());
        self.cells[at] = Cell::blank(self.cells[at].style());
    }

    fn drop_marks(&mut self, start: usize, end: usize) {
        if !self.marks.is_empty() {
            self.marks
                .retain(|(c, _)| !(start..end).contains(&usize::from(*c)));
        }
    }

    fn shift_marks(&mut self, from: usize, by: isize, cols: u16) {
        if self.marks.is_empty() {
            return;
        }
        for (c, _) in self.marks.iter_mut() {
            if usize::from(*c) >= from {
                *c = (*c as isize + by).max(0) as u16;
            }
        }
        self.marks.retain(|(c, _)| *c < cols);
    }
}

#[cfg(test)]
mod tests {
    use super::super::cell::Color;
    use super::*;

    fn text(row: &Row) -> String {
        row.cells().iter().map(|c| c.ch()).collect()
    }

    fn write(row: &mut Row, col: u16, s: &str) {
        for (i, ch) in s.chars().enumerate() {
            row.put(col + i as u16, Cell::new(ch, Style::default()));
        }
    }

    #[test]
    fn changed_columns_span_what_looks_different() {
        let mut old = Row::default();
        write(&mut old, 0, &"x".repeat(40));
        let mut new = old.clone();
        assert_eq!(new.changed_columns(&old, 80), None);
        write(&mut new, 3, "a");
        write(&mut new, 20, "b");
        assert_eq!(new.changed_columns(&old, 80), Some((3, 21)));
        // Trailing default blanks stored or not look the same; a coloured blank does not.
        let mut longer = old.clone();
        longer.put(60, Cell::default());
        assert_eq!(longer.changed_columns(&old, 80), None);
        let mut blue = Style::default();
        blue.set_bg(Color::Idx(4));
        longer.put(61, Cell::blank(blue));
        assert_eq!(longer.changed_columns(&old, 80), Some((61, 62)));
        assert_eq!(longer.changed_columns(&old, 61), None, "past `cols`");
        // A mark, or an underline colour alone.
        let mut marked = old.clone();
        marked.add_mark(5, '\u{301}');
        assert_eq!(marked.changed_columns(&old, 80), Some((5, 6)));
        let mut underlined = Row::default();
        let mut style = Style::default();
        style.set_underline_color(Color::Idx(1));
        underlined.put_styled(2, Cell::new('u', Style::default()), style);
        let mut plain = Row::default();
        plain.put(2, Cell::new('u', Style::default()));
        assert_eq!(underlined.changed_columns(&plain, 80), Some((2, 3)));
    }

    #[test]
    fn cells_grow_only_to_the_last_write_and_erase_truncates() {
        let mut row = Row::default();
        write(&mut row, 3, "ab");
        assert_eq!(text(&row), "   ab");
        row.erase(4, 80, 80, Style::default());
        assert_eq!(row.cells().len(), 4);
        let mut red = Style::default();
        red.set_bg(Color::Idx(1));
        row.erase(2, 10, 80, red);
        assert_eq!(row.cells().len(), 10);
        assert_eq!(row.cell(9).style().bg(), Color::Idx(1));
        assert_eq!(row.cell(50), Cell::default());
    }

    #[test]
    fn overwriting_half_a_wide_character_erases_it() {
        let mut row = Row::default();
        row.put(0, Cell::wide('日', Style::default()));
        row.put(1, Cell::wide_continuation(Style::default()));
        row.put(1, Cell::new('x', Style::default()));
        assert_eq!(text(&row), " x");
        assert!(!row.cell(0).is_wide());
    }

    #[test]
    fn insert_and_delete_shift_cells() {
        let mut row = Row::default();
        write(&mut row, 0, "abcdef");
        row.insert_blanks(1, 2, 7, Style::default());
        assert_eq!(text(&row), "a  bcde");
        row.delete(0, 3, 7, Style::default());
        assert_eq!(text(&row), "bcde");
    }

    #[test]
    fn marks_follow_their_cell() {
        let mut row = Row::default();
        write(&mut row, 0, "abc");
        row.add_mark(2, '\u{301}');
        row.delete(0, 1, 10, Style::default());
        assert_eq!(row.marks(1).collect::<String>(), "\u{301}");
        row.put(1, Cell::new('z', Style::default()));
        assert!(!row.has_marks());
    }
}
