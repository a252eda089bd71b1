//! The one parser of a terminal size typed on the command line, in the `COLSxROWS` form that
//! `pane get` prints (`120x40`): `pane spawn --size` and `pane resize` (which also takes the two
//! numbers as separate words, `pane resize PANE 120 40`) both go through [`parse_size`], so they
//! accept and refuse the same things with the same message.

/// A terminal size given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeArg {
    /// Width in columns.
    pub cols: u32,
    /// Height in rows.
    pub rows: u32,
}

/// What every refusal says: the forms that are accepted, and what was typed.
fn refusal(text: &str) -> String {
    format!("expected COLSxROWS such as 120x40 (or COLS ROWS), got {text:?}")
}

/// One dimension: decimal digits only (no sign, no spaces inside), at least 1. The server
/// clamps to its own limits (20–500 × 5–200); a number too big for 32 bits is refused here.
fn dimension(text: &str) -> Option<u32> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u32>().ok().filter(|n| *n > 0)
}

/// Parses `COLSxROWS` (the separator may also be `X` or `×`; spaces around the numbers are
/// allowed); both numbers at least 1.
pub fn parse_size(text: &str) -> Result<SizeArg, String> {
    let (cols, rows) = text
        .trim()
        .split_once(['x', 'X', '×'])
        .ok_or_else(|| refusal(text))?;
    match (dimension(cols), dimension(rows)) {
        (Some(cols), Some(rows)) => Ok(SizeArg { cols, rows }),
        _ => Err(refusal(text)),
    }
}

/// The size of `pane resize PANE SIZE [ROWS]`: `SIZE` is `COLSxROWS` when `ROWS` is absent, the
/// width alone when it is present. Anything else (`120x40 40`, a bare `120`) is refused.
pub fn parse_size_words(size: &str, rows: Option<&str>) -> Result<SizeArg, String> {
    match rows {
        None => parse_size(size),
        Some(rows) => {
            parse_size(&format!("{size}x{rows}")).map_err(|_| refusal(&format!("{size} {rows}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(cols: u32, rows: u32) -> Result<SizeArg, String> {
        Ok(SizeArg { cols, rows })
    }

    #[test]
    fn sizes_parse_in_the_form_pane_get_prints() {
        assert_eq!(parse_size("120x40"), size(120, 40));
        assert_eq!(parse_size("80X24"), size(80, 24));
        assert_eq!(parse_size("100×30"), size(100, 30));
        assert_eq!(parse_size(" 120 x 40 "), size(120, 40), "spaces around");
        assert_eq!(parse_size("007x09"), size(7, 9), "leading zeros");
        // Beyond the server's limits is still a size: the server clamps it and says so.
        assert_eq!(parse_size("4294967295x1"), size(u32::MAX, 1));
    }

    #[test]
    fn malformed_sizes_are_refused_with_the_accepted_forms() {
        for bad in [
            "",
            " ",
            "x",
            "120",
            "x40",
            "120x",
            "0x10",
            "10x0",
            "-1x5",
            "+1x5",
            "1 2x5",
            "12x4x3",
            "axb",
            "1.5x2",
            "4294967296x1",
            "120*40",
            "１２０x40",
        ] {
            let err = parse_size(bad).expect_err(bad);
            assert!(err.contains("COLSxROWS such as 120x40"), "{bad:?}: {err}");
            assert!(err.contains(&format!("{bad:?}")), "{bad:?}: {err}");
        }
    }

    #[test]
    fn resize_words_take_either_form_but_not_both() {
        assert_eq!(parse_size_words("120x40", None), size(120, 40));
        assert_eq!(parse_size_words("120", Some("40")), size(120, 40));
        for (cols, rows) in [
            ("120", None),
            ("120x40", Some("40")),
            ("120", Some("0")),
            ("0", Some("40")),
            ("120", Some("-4")),
            ("a", Some("4")),
        ] {
            let err = parse_size_words(cols, rows).expect_err(cols);
            assert!(err.contains("COLSxROWS"), "{cols} {rows:?}: {err}");
        }
        assert!(
            parse_size_words("120", Some("x40"))
                .expect_err("two separators")
                .contains("\"120 x40\""),
            "the words are quoted as typed"
        );
    }
}
