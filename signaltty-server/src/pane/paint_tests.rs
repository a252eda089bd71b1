//! Paints replayed on a terminal: over random output (text, colours, wide characters, marks,
//! erases, insertions, cursor moves, scrolls), a client terminal that was drawn once and then
//! fed only the paints (a full redraw after each skip, as the client does before `resume`)
//! shows, inside the rectangle, exactly the model's cells as the TUI draws them.

use proptest::prelude::*;

use super::*;
use crate::term::Screen;
use crate::term::vt::Color;

const COLS: u16 = 12;
const ROWS: u16 = 5;
const RECT: Rect = Rect {
    col: 3,
    row: 2,
    cols: 14,
    rows: 7,
};

fn chunk() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[a-z ]{1,6}".prop_map(String::into_bytes),
        Just("日本".as_bytes().to_vec()),
        Just("e\u{301}".as_bytes().to_vec()),
        Just(b"\x1b[1;31m".to_vec()),
        Just(b"\x1b[0;44m".to_vec()),
        Just(b"\x1b[4:3;38;2;9;8;7;53m".to_vec()),
        Just(b"\x1b[m".to_vec()),
        Just(b"\x1b[K".to_vec()),
        Just(b"\x1b[1K".to_vec()),
        Just(b"\x1b[2J".to_vec()),
        Just(b"\x1b[2@".to_vec()),
        Just(b"\x1b[P".to_vec()),
        Just(b"\x08".to_vec()),
        Just(b"\r\n".to_vec()),
        (1u16..=ROWS, 1u16..=COLS).prop_map(|(r, c)| format!("\x1b[{r};{c}H").into_bytes()),
    ]
}

/// What the TUI shows for a model cell: its text and the style as ratatui keeps it.
fn shown(term: &Term, row: u16, col: u16) -> (String, Vec<bool>, Color, Color) {
    let text = term.cell_text(row, col);
    let style = term.cell(row, col).map(|c| c.style()).unwrap_or_default();
    let attrs = signaltty_term::drawn::ATTRS
        .iter()
        .map(|(a, _)| style.has(*a))
        .collect();
    (text, attrs, style.fg(), style.bg())
}

/// The whole screen drawn into the rectangle (what the client does before `resume`).
fn redraw(term: &Term, outer: &mut Screen) {
    let spans: Vec<Span> = (0..ROWS)
        .map(|row| Span {
            row,
            start: 0,
            end: COLS,
        })
        .collect();
    let mut out = Vec::new();
    render(term, &spans, RECT, &mut out);
    outer.feed(&out);
}

proptest! {
    #[test]
    fn the_rectangle_always_shows_the_model(chunks in proptest::collection::vec(chunk(), 1..40)) {
        let mut model = Screen::new(COLS, ROWS);
        let mut outer = Screen::new(30, 12);
        redraw(model.view(), &mut outer);
        let mut copy = ScreenCopy::of(model.view());
        for bytes in &chunks {
            model.feed(bytes);
            match diff(&copy, model.view(), RECT) {
                Diff::Same => {}
                Diff::Spans(spans) => {
                    let mut out = Vec::new();
                    render(model.view(), &spans, RECT, &mut out);
                    prop_assert!(out.starts_with(b"\x1b7") && out.ends_with(b"\x1b[m\x1b8"));
                    outer.feed(&out);
                    copy.update(model.view(), &spans);
                }
                Diff::Skip => {
                    redraw(model.view(), &mut outer);
                    copy.retake(model.view());
                }
            }
            for row in 0..ROWS {
                for col in 0..COLS {
                    prop_assert_eq!(
                        shown(outer.view(), RECT.row + row, RECT.col + col),
                        shown(model.view(), row, col),
                        "cell ({}, {}) after {:?}", row, col, String::from_utf8_lossy(bytes)
                    );
                }
            }
            // Nothing outside the rectangle was ever written.
            for row in 0..12 {
                for col in 0..30 {
                    let inside = (RECT.row..RECT.row + ROWS).contains(&row)
                        && (RECT.col..RECT.col + COLS).contains(&col);
                    if !inside {
                        prop_assert_eq!(outer.view().cell_text(row, col), " ");
                    }
                }
            }
        }
    }
}
