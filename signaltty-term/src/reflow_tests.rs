//! Tests of reflow on resize (`vt::reflow`) through `Screen`, history included: soft-wrapped
//! lines rewrap, hard line ends stay, the cursor stays on its character, the alternate screen
//! is left alone, a grow takes history back, and no resize loses or invents text.

use proptest::prelude::*;

use super::*;

/// The pane's text as logical lines: history lines, then the screen's rows joined at their soft
/// wraps (the first one onto the newest history line when it continues there); trailing blanks
/// and trailing empty lines dropped.
fn logical_lines(s: &Screen) -> Vec<String> {
    let mut lines: Vec<String> = s
        .history()
        .tail(usize::MAX)
        .raw_lines()
        .iter()
        .map(|l| crate::render::strip_sgr(l))
        .collect();
    let mut joining = s.term().history_open() && !lines.is_empty();
    let mut current = if joining {
        lines.pop().unwrap_or_default()
    } else {
        String::new()
    };
    let (cols, _) = s.size();
    for row in s.term().rows() {
        let mut text = String::new();
        crate::render::write_row(row, false, &mut text);
        if row.wrapped {
            // The row reached the edge: its blanks are text.
            let width: usize = (0..cols)
                .filter(|&c| !row.cell(c).is_wide_continuation())
                .map(|c| if row.cell(c).is_wide() { 2 } else { 1 })
                .sum::<usize>()
                .min(usize::from(cols));
            let shown = text.chars().count();
            text.extend(std::iter::repeat_n(' ', width.saturating_sub(shown)));
        }
        current.push_str(&text);
        joining = row.wrapped;
        if !joining {
            lines.push(std::mem::take(&mut current));
        }
    }
    if joining {
        lines.push(current);
    }
    let mut lines: Vec<String> = lines
        .into_iter()
        .map(|l| l.trim_end().to_string())
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

fn screen(cols: u16, rows: u16, bytes: &str) -> Screen {
    let mut s = Screen::new(cols, rows);
    s.feed(bytes.as_bytes());
    s
}

fn under_cursor(s: &Screen) -> String {
    let (row, col) = s.cursor_position();
    s.term().cell_text(row, col)
}

#[test]
fn narrowing_rewraps_soft_wrapped_lines_and_widening_joins_them_again() {
    let mut s = screen(10, 6, "0123456789abcde\r\nshort\r\n$ ");
    assert_eq!(s.contents(false), "0123456789\nabcde\nshort\n$");
    s.resize(5, 6);
    // As in tmux, the rows keep their distance from the bottom: the one that no longer fits
    // above the cursor goes to the history, as one line with the rows below it.
    assert_eq!(s.contents(false), "56789\nabcde\nshort\n$");
    assert_eq!(s.cursor_position(), (3, 2), "still after the prompt");
    assert_eq!(s.scrollback(usize::MAX, false)[..2], ["01234", "56789"]);
    s.resize(20, 6);
    assert_eq!(s.contents(false), "0123456789abcde\nshort\n$");
    assert_eq!(s.cursor_position(), (2, 2));
    s.resize(10, 6);
    assert_eq!(s.contents(false), "abcde\nshort\n$");
    assert_eq!(s.scrollback(usize::MAX, false)[0], "0123456789");
    // A hard line end is never joined: "short" stays on its own row at any width.
    assert!(s.term().row(1).is_some_and(|r| !r.wrapped));
}

#[test]
fn the_cursor_stays_on_its_character() {
    // The cursor on the 'h' of a wrapped line, moved there with CUB.
    let mut s = screen(10, 5, "0123456789abcdefghij\x1b[3D");
    assert_eq!(under_cursor(&s), "h");
    for cols in [3, 7, 13, 40, 10, 4] {
        s.resize(cols, 5);
        assert_eq!(under_cursor(&s), "h", "at {cols} columns");
    }
    // A pending wrap stays pending where the row is full, and the next character wraps.
    let mut s = screen(10, 5, "0123456789abcdefghij");
    assert_eq!(s.cursor_position(), (1, 10));
    s.resize(5, 5);
    assert_eq!(s.cursor_position(), (1, 5));
    s.feed(b"X");
    assert_eq!(s.contents(false), "abcde\nfghij\nX");
    assert_eq!(
        s.scrollback(usize::MAX, false),
        ["01234", "56789", "abcde", "fghij", "X"]
    );
}

#[test]
fn the_cursor_after_a_line_filling_its_last_row_stays_after_it() {
    // A line exactly two rows long: the cursor waits after its last character (pending wrap).
    // Narrowing leaves it after the text on a third, partly filled row; widening back must
    // make the wrap pending again, not put the cursor on the last character (tmux 3.3a: cursor
    // at column 120 after 120 -> 100 -> 120, and `Q` on a row of its own after 60).
    let line = format!("{}Z", "x".repeat(239));
    let mut s = screen(120, 10, &line);
    assert_eq!(s.cursor_position(), (1, 120));
    s.resize(100, 10);
    assert_eq!(
        s.cursor_position(),
        (1, 40),
        "the first row went to the history"
    );
    s.resize(120, 10);
    assert_eq!(
        s.cursor_position(),
        (1, 120),
        "after the line, wrap pending"
    );
    s.resize(60, 10);
    assert_eq!(s.cursor_position(), (1, 60), "still after the line");
    s.feed(b"Q");
    let rows: Vec<String> = s.contents(false).lines().map(str::to_owned).collect();
    assert_eq!(
        rows,
        [
            "x".repeat(60),
            format!("{}Z", "x".repeat(59)),
            "Q".to_owned()
        ],
        "the next character starts a new row and the Z stays"
    );
}

#[test]
fn double_width_characters_are_never_cut() {
    let mut s = screen(6, 4, "ab日本語x");
    assert_eq!(s.contents(false), "ab日本\n語x");
    s.resize(5, 4);
    // 本 would straddle the edge at 5 columns: it starts the next row, the last column
    // stays blank (and is not text: going back to 6 columns joins without it).
    assert_eq!(s.contents(false), "ab日\n本語x");
    s.resize(6, 4);
    assert_eq!(s.contents(false), "ab日本\n語x");
}

#[test]
fn history_lines_rewrap_in_captures_and_come_back_joined() {
    let mut s = screen(10, 3, "");
    for i in 0..6 {
        s.feed(format!("line{i}-{}\r\n", "x".repeat(10)).as_bytes());
    }
    // Each 16-character line took two rows at 10 columns; history holds whole lines.
    let before = logical_lines(&s);
    let whole: Vec<String> = (0..5).map(|i| format!("line{i}-xxxxxxxxxx")).collect();
    assert_eq!(s.history().tail(usize::MAX).lines(false), whole);
    let rows = s.scrollback(usize::MAX, false);
    assert_eq!(
        &rows[..2],
        ["line0-xxxx", "xxxxxx"],
        "captured as rows of 10"
    );
    s.resize(20, 3);
    let rows = s.scrollback(usize::MAX, false);
    assert_eq!(&rows[..2], ["line0-xxxxxxxxxx", "line1-xxxxxxxxxx"]);
    s.resize(4, 3);
    let rows = s.scrollback(usize::MAX, false);
    assert_eq!(&rows[..5], ["line", "0-xx", "xxxx", "xxxx", "line"]);
    assert_eq!(logical_lines(&s), before, "no text lost or invented");
    // The last N rows are counted in rows of the current width.
    assert_eq!(s.scrollback(3, false).len(), 3);
}

#[test]
fn the_alternate_screen_is_not_reflowed_but_the_main_screen_under_it_is() {
    let mut s = screen(10, 4, "0123456789abc\r\n$ \x1b[?1049h\x1b[Hfull screen");
    s.resize(5, 4);
    assert_eq!(s.contents(false), "full\nn", "cut, not rewrapped");
    s.feed(b"\x1b[?1049l");
    assert_eq!(s.contents(false), "56789\nabc\n$");
    assert_eq!(
        s.cursor_position(),
        (2, 2),
        "the saved cursor followed its prompt"
    );
}

#[test]
fn a_grow_takes_rows_back_from_history_and_a_long_line_only_partly() {
    let mut s = screen(10, 3, "");
    s.feed(format!("{}\r\nend\r\n$ ", "y".repeat(45)).as_bytes());
    // 45 y's take 5 rows: 3 of them left the screen, as one open history line.
    assert!(s.term().history_open());
    s.resize(10, 5);
    assert_eq!(s.contents(false), "yyyyyyyyyy\nyyyyyyyyyy\nyyyyy\nend\n$");
    assert_eq!(s.history_len(), 1, "the line's head stays in history");
    assert_eq!(s.cursor_position(), (4, 2));
    s.resize(50, 5);
    assert_eq!(s.contents(false), format!("{}\nend\n$", "y".repeat(45)));
    assert_eq!(s.history_len(), 0);
}

#[test]
fn erasing_the_screen_ends_the_open_history_line() {
    let mut s = screen(
        10,
        2,
        &format!("{}\x1b[H\x1b[2Jnew\r\n\r\n\r\n", "z".repeat(25)),
    );
    let history = s.history().tail(usize::MAX).lines(false);
    assert!(history.iter().any(|l| l == "new"), "{history:?}");
    s.resize(40, 2);
    assert!(logical_lines(&s).iter().all(|l| !l.contains("znew")));
}

/// Shell-like output: lines of letters and spaces of any length, hard line ends, a prompt.
fn output() -> impl Strategy<Value = String> {
    // Lines do not end in blanks: a soft-wrapped row holding only blanks at a line's end is
    // not text, and a reflow may drop it.
    prop::collection::vec("([a-z ]{0,49}[a-z])?", 1..30)
        .prop_map(|lines| format!("{}\r\n$ ", lines.join("\r\n")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// No sequence of resizes loses or invents text, the cursor stays after the prompt, and
    /// going back to the first size gives the same rows (no history cap binds here).
    #[test]
    fn resizes_keep_every_logical_line(
        out in output(),
        cols in 4u16..30,
        rows in 3u16..10,
        // At least 3 columns: the prompt "$ " and the cursor after it.
        sizes in prop::collection::vec((3u16..40, 1u16..12), 1..5),
    ) {
        let mut s = screen(cols, rows, &out);
        let lines = logical_lines(&s);
        let rows_before = s.scrollback(usize::MAX, false);
        let cursor = s.cursor_position();
        for (c, r) in sizes {
            s.resize(c, r);
            prop_assert_eq!(&logical_lines(&s), &lines, "at {}x{}", c, r);
            prop_assert_eq!(under_cursor(&s), " ".to_string(), "the cursor left the prompt");
        }
        s.resize(cols, rows);
        prop_assert_eq!(logical_lines(&s), lines);
        prop_assert_eq!(s.scrollback(usize::MAX, false), rows_before);
        // The row may differ: a widening that left blank rows at the bottom keeps them (tmux
        // too), so the cursor can come back higher than it was.
        prop_assert_eq!(s.cursor_position().1, cursor.1);
    }
}
