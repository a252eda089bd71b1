//! A problem found in a config file, located by line and column, and the list of them for one
//! file (what `signaltty config check` and the server print).

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

/// One thing wrong in the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// 1-based line; 0 for the file as a whole (it cannot be read).
    pub line: usize,
    /// 1-based column (in characters); 0 with `line` 0.
    pub column: usize,
    /// The dotted key it is about (`server.scrollback_lines`), empty for a syntax error.
    pub key: String,
    /// What is wrong and what is expected.
    pub message: String,
}

impl Problem {
    /// A problem at byte `offset` of `source`.
    pub(crate) fn at(source: &str, offset: usize, key: &str, message: impl Into<String>) -> Self {
        let (line, column) = line_column(source, offset);
        Problem {
            line,
            column,
            key: key.to_owned(),
            message: message.into(),
        }
    }

    /// A problem with the file itself (it cannot be read).
    pub(crate) fn whole_file(message: String) -> Self {
        Problem {
            line: 0,
            column: 0,
            key: String::new(),
            message,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}, column {}: ", self.line, self.column)?;
        }
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

/// Every problem found in one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problems {
    /// The file.
    pub path: PathBuf,
    /// In file order; never empty.
    pub problems: Vec<Problem>,
}

impl fmt::Display for Problems {
    /// One line per problem, `path:line:column: key: message` (the form editors jump to).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{}:", self.path.display())?;
            if p.line > 0 {
                write!(f, "{}:{}:", p.line, p.column)?;
            }
            f.write_str(" ")?;
            if !p.key.is_empty() {
                write!(f, "{}: ", p.key)?;
            }
            f.write_str(&p.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}

/// 1-based line and column (in characters) of byte `offset` in `source`.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_columns() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 4), (1, 5));
        assert_eq!(line_column(text, 6), (2, 1));
        // 'é' is two bytes but one column.
        assert_eq!(line_column(text, 9), (2, 3));
        assert_eq!(line_column(text, 999), (3, 1));
    }
}
