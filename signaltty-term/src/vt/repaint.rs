//! Repaint: the bytes that make a fresh terminal of the same size show what the emulator shows,
//! for clients that attach late or are resynced. Order matters, because several steps move the
//! cursor: screens first (the main one, then the alternate one entered with `?1049h` from the
//! main screen's saved cursor so that leaving it restores the right place), then the scroll
//! region (it homes the cursor), the active screen's saved cursor (DECSC, with its pen, charsets
//! and origin mode), origin mode (it homes the cursor too), then the cursor itself (re-printing the last
//! cell when a wrap is pending), then the pen, character sets and modes (insert mode and DEC
//! line drawing last, so they cannot alter the cells re-printed above). Each screen's kitty
//! keyboard stack is pushed while that screen is the active one (the protocol keeps one each).

use std::collections::VecDeque;
use std::fmt::Write as _;

use super::row::Row;
use super::{Charset, Emulator, Saved};
use crate::render::{BlankRun, write_cells, write_sgr};

pub(super) fn repaint(emu: &Emulator) -> String {
    let mut out = String::from("\x1b[m\x1b[H\x1b[2J");
    paint_rows(&emu.main, emu.cols, &mut out);
    emu.keyboard.write_stack(0, &mut out);
    if emu.on_alt {
        let main_cursor = emu.saved[0];
        goto(&mut out, main_cursor.row, main_cursor.col.min(emu.cols - 1));
        write_sgr(main_cursor.pen, &mut out);
        out.push_str("\x1b[?1049h\x1b[m");
        emu.keyboard.write_stack(1, &mut out);
        paint_rows(&emu.alt, emu.cols, &mut out);
    }
    emu.tabs.write_repaint(&mut out);
    if (emu.top, emu.bottom) != (0, emu.rows - 1) {
        let _ = write!(out, "\x1b[{};{}r", emu.top + 1, emu.bottom + 1);
    }
    write_saved_cursor(emu, &mut out);
    if emu.modes.origin {
        out.push_str("\x1b[?6h");
    }
    let origin_row = if emu.modes.origin { emu.top } else { 0 };
    let row = emu.row - origin_row.min(emu.row);
    if emu.col < emu.cols {
        goto(&mut out, row, emu.col);
    } else {
        reprint_last_cell(emu, emu.row, row, &mut out);
    }
    write_sgr(emu.pen, &mut out);
    if emu.charsets[0] == Charset::DecGraphics {
        out.push_str("\x1b(0");
    }
    if emu.charsets[1] == Charset::DecGraphics {
        out.push_str("\x1b)0");
    }
    if emu.shifted {
        out.push('\x0e');
    }
    emu.modes.write_input_modes(&mut out);
    emu.keyboard.write_modify_other_keys(&mut out);
    out
}

/// The active screen's DECSC slot, so that a program's later `ESC 8` lands where it would
/// have on the pane (a pending wrap in the slot included).
fn write_saved_cursor(emu: &Emulator, out: &mut String) {
    let saved = emu.saved[usize::from(emu.on_alt)];
    if saved == Saved::default() {
        return;
    }
    // DECSC also saves origin mode, and in origin mode positions are region-relative.
    // (Restoring clamps such a row into the region, so it is saved clamped.)
    let (grid_row, row) = if saved.origin {
        out.push_str("\x1b[?6h");
        let grid_row = saved.row.clamp(emu.top, emu.bottom);
        (grid_row, grid_row - emu.top)
    } else {
        (saved.row, saved.row)
    };
    if saved.col < emu.cols {
        goto(out, row, saved.col);
    } else {
        reprint_last_cell(emu, grid_row, row, out);
    }
    write_sgr(saved.pen, out);
    let dec = |c: Charset| c == Charset::DecGraphics;
    if dec(saved.charsets[0]) {
        out.push_str("\x1b(0");
    }
    if dec(saved.charsets[1]) {
        out.push_str("\x1b)0");
    }
    if saved.shifted {
        out.push('\x0e');
    }
    out.push_str("\x1b7");
    if saved.origin {
        out.push_str("\x1b[?6l");
    }
    // Back to the power-on charsets; the current ones are set at the end.
    if saved.charsets.into_iter().any(dec) || saved.shifted {
        out.push_str("\x1b(B\x1b)B\x0f");
    }
}

fn goto(out: &mut String, row: u16, col: u16) {
    let _ = write!(out, "\x1b[{};{}H", row + 1, col + 1);
}

/// Paints the rows of a screen onto a cleared one. A row the program's text wrapped out of is
/// written to its last column and the next row follows without a cursor move, so the client's
/// terminal wraps it too (and a selection across the break copies as one line). Consecutive
/// rows are joined by CR LF, which is shorter than a cursor move and reads as text.
/// Rows not made yet (an empty screen) are blank: nothing to paint.
fn paint_rows(rows: &VecDeque<Row>, cols: u16, out: &mut String) {
    let mut continued = false;
    // The row the cursor is on after painting the previous non-blank row.
    let mut at = None;
    for (i, row) in rows.iter().enumerate() {
        let blank = !row.has_marks() && row.cells().iter().all(|c| c.is_default_blank());
        if !continued {
            if blank {
                continue;
            }
            if at.is_some_and(|r| r + 1 == i) {
                out.push_str("\r\n");
            } else {
                // Rows fit in u16: the grid never has more rows than the screen.
                goto(out, i as u16, 0);
            }
        }
        let before = out.len();
        // A cursor move cannot carry out a pending wrap: a continued row is written as text.
        let blanks = if continued {
            BlankRun::Spaces
        } else {
            BlankRun::CursorForward
        };
        let written = write_cells(row, true, blanks, out);
        let wraps = row.wrapped && i + 1 < rows.len();
        if wraps {
            out.extend(std::iter::repeat_n(
                ' ',
                usize::from(cols).saturating_sub(written),
            ));
        }
        // A continued row that printed nothing leaves the cursor pending on the row above.
        if !continued || out.len() > before {
            at = Some(i);
        }
        continued = wraps;
    }
}

/// A pending wrap exists only right after printing into the last column, so print that cell
/// (or the double-width character ending there) again.
/// `grid_row` is the row on the screen, `row` where the client's cursor addressing puts it
/// (they differ in origin mode).
fn reprint_last_cell(emu: &Emulator, grid_row: u16, row: u16, out: &mut String) {
    let line = emu.row_at(grid_row);
    let mut col = emu.cols - 1;
    if col > 0 && line.cell(col).is_wide_continuation() {
        col -= 1;
    }
    goto(out, row, col);
    let cell = line.cell(col);
    write_sgr(line.style(col), out);
    out.push(cell.ch());
    out.extend(line.marks(col));
}
