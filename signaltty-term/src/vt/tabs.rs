//! Tab stops: every 8 columns until a program sets its own (HTS `ESC H`, TBC `CSI g`). Only then
//! is a table per column kept, so a pane that never touches them holds none.

use std::fmt::Write as _;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct TabStops {
    /// One flag per column once a program changed any stop.
    custom: Option<Vec<bool>>,
}

fn default_stop(col: usize) -> bool {
    col.is_multiple_of(8)
}

impl TabStops {
    fn is_stop(&self, col: u16) -> bool {
        let col = usize::from(col);
        match &self.custom {
            None => default_stop(col),
            Some(table) => table.get(col).copied().unwrap_or_else(|| default_stop(col)),
        }
    }

    /// The next stop right of `col`, or the last column.
    pub(super) fn next(&self, col: u16, cols: u16) -> u16 {
        let last = cols - 1;
        let mut c = col.saturating_add(1);
        while c < last && !self.is_stop(c) {
            c += 1;
        }
        c.min(last)
    }

    /// The previous stop left of `col`, or the first column.
    pub(super) fn previous(&self, col: u16) -> u16 {
        let mut c = col.saturating_sub(1);
        while c > 0 && !self.is_stop(c) {
            c -= 1;
        }
        c
    }

    /// HTS: a stop at `col`.
    pub(super) fn set(&mut self, col: u16, cols: u16) {
        if let Some(stop) = self.table(cols).get_mut(usize::from(col)) {
            *stop = true;
        }
    }

    /// TBC 0: no stop at `col`.
    pub(super) fn clear(&mut self, col: u16, cols: u16) {
        if let Some(stop) = self.table(cols).get_mut(usize::from(col)) {
            *stop = false;
        }
    }

    /// TBC 3: no stops at all.
    pub(super) fn clear_all(&mut self, cols: u16) {
        self.custom = Some(vec![false; usize::from(cols)]);
    }

    /// New columns get the default stops.
    pub(super) fn resize(&mut self, cols: u16) {
        if let Some(table) = &mut self.custom {
            let old = table.len();
            table.resize(usize::from(cols), false);
            for (col, stop) in table.iter_mut().enumerate().skip(old) {
                *stop = default_stop(col);
            }
        }
    }

    /// Sequences that give a fresh terminal the same stops (nothing when they are the default).
    /// They move the cursor; the repaint positions it afterwards.
    pub(super) fn write_repaint(&self, out: &mut String) {
        let Some(table) = &self.custom else {
            return;
        };
        out.push_str("\x1b[3g");
        for (col, _) in table.iter().enumerate().filter(|(_, stop)| **stop) {
            let _ = write!(out, "\x1b[{}G\x1bH", col + 1);
        }
    }

    fn table(&mut self, cols: u16) -> &mut Vec<bool> {
        self.custom
            .get_or_insert_with(|| (0..usize::from(cols)).map(default_stop).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_stops_are_every_8_columns() {
        let tabs = TabStops::default();
        assert_eq!(tabs.next(0, 80), 8);
        assert_eq!(tabs.next(8, 80), 16);
        assert_eq!(tabs.next(75, 80), 79);
        assert_eq!(tabs.previous(17), 16);
        assert_eq!(tabs.previous(16), 8);
        assert_eq!(tabs.previous(3), 0);
    }

    #[test]
    fn custom_stops_replace_the_defaults() {
        let mut tabs = TabStops::default();
        tabs.clear_all(20);
        assert_eq!(tabs.next(0, 20), 19);
        tabs.set(5, 20);
        tabs.set(12, 20);
        assert_eq!(tabs.next(0, 20), 5);
        assert_eq!(tabs.next(5, 20), 12);
        assert_eq!(tabs.previous(12), 5);
        tabs.clear(5, 20);
        assert_eq!(tabs.next(0, 20), 12);
        tabs.resize(40);
        assert_eq!(tabs.next(12, 40), 24, "new columns get default stops");
        let mut out = String::new();
        tabs.write_repaint(&mut out);
        assert_eq!(out, "\x1b[3g\x1b[13G\x1bH\x1b[25G\x1bH\x1b[33G\x1bH");
    }
}
