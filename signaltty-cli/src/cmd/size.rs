//! The `COLSxROWS` form of a terminal size, as `pane get` prints it (`120x40`), for flags that
//! take one (`pane spawn --size`).

/// A terminal size given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeArg {
    /// Width in columns.
    pub cols: u32,
    /// Height in rows.
    pub rows: u32,
}

/// Parses `COLSxROWS` (also `X` or `×`); both numbers at least 1. The server clamps to its
/// limits (20–500 × 5–200).
pub fn parse_size(text: &str) -> Result<SizeArg, String> {
    let bad = || format!("expected COLSxROWS such as 120x40, got {text:?}");
    let (cols, rows) = text.trim().split_once(['x', 'X', '×']).ok_or_else(bad)?;
    let number = |s: &str| s.trim().parse::<u32>().ok().filter(|n| *n > 0);
    match (number(cols), number(rows)) {
        (Some(cols), Some(rows)) => Ok(SizeArg { cols, rows }),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_the_form_pane_get_prints() {
        assert_eq!(
            parse_size("120x40"),
            Ok(SizeArg {
                cols: 120,
                rows: 40
            })
        );
        assert_eq!(parse_size("80X24").map(|s| s.cols), Ok(80));
        assert_eq!(parse_size("100×30").map(|s| s.rows), Ok(30));
        for bad in ["", "120", "x40", "120x", "0x10", "-1x5", "12x4x3", "axb"] {
            assert!(parse_size(bad).is_err(), "{bad:?} accepted");
        }
    }
}
