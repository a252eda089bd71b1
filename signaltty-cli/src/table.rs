//! A tiny aligned-table printer for human output. Columns are padded to their widest cell (in
//! characters), separated by two spaces; the last column is never padded so lines carry no
//! trailing blanks. Cells are made single-line and stripped of control characters, since titles
//! and messages come from programs running in panes.

/// Rows of text under a header.
#[derive(Debug, Clone)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    max_widths: Vec<Option<usize>>,
}

impl Table {
    /// A table with these column headers.
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            max_widths: vec![None; header.len()],
        }
    }

    /// Cuts cells of column `column` to at most `width` characters (with an ellipsis).
    pub fn max_width(mut self, column: usize, width: usize) -> Self {
        if let Some(slot) = self.max_widths.get_mut(column) {
            *slot = Some(width.max(1));
        }
        self
    }

    /// Adds a row; missing cells are blank, extra cells are dropped.
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut row: Vec<String> = cells
            .into_iter()
            .take(self.header.len())
            .enumerate()
            .map(|(i, cell)| clean(&cell.into(), self.max_widths[i]))
            .collect();
        row.resize(self.header.len(), String::new());
        self.rows.push(row);
    }

    /// True when no row was added.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as text, one line per row, header first.
    pub fn render(&self) -> String {
        let columns = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                line.push_str(cell);
                if i + 1 < columns {
                    let pad = widths[i] - cell.chars().count();
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Aligned `key: value` lines, for one object's details.
pub fn key_values(pairs: &[(&str, String)]) -> String {
    let width = pairs
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (key, value) in pairs {
        let line = format!(
            "{key}:{}  {}",
            " ".repeat(width - key.chars().count()),
            clean(value, None)
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// One line, no control characters, at most `max` characters.
fn clean(cell: &str, max: Option<usize>) -> String {
    let flat: String = cell
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match max {
        Some(max) if flat.chars().count() > max => {
            let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
            cut.push('…');
            cut
        }
        _ => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_on_the_widest_cell() {
        let mut t = Table::new(&["ID", "NAME", "CWD"]);
        t.row(["ws_1", "api", "/src/api"]);
        t.row(["ws_22222", "x", "/"]);
        assert_eq!(
            t.render(),
            "ID        NAME  CWD\nws_1      api   /src/api\nws_22222  x     /\n"
        );
    }

    #[test]
    fn cells_are_flattened_and_cut() {
        let mut t = Table::new(&["A", "B"]).max_width(1, 5);
        t.row(["a\nb", "abcdefgh"]);
        assert_eq!(t.render(), "A    B\na b  abcd…\n");
    }

    #[test]
    fn key_values_align_on_the_longest_key() {
        let text = key_values(&[("id", "ws_1".into()), ("name", "api".into())]);
        assert_eq!(text, "id:    ws_1\nname:  api\n");
    }

    #[test]
    fn short_rows_are_padded_and_no_line_has_trailing_blanks() {
        let mut t = Table::new(&["A", "B", "C"]);
        t.row(["x"]);
        for line in t.render().lines() {
            assert_eq!(line, line.trim_end());
        }
        assert!(!t.is_empty());
    }
}
