//! Copy mode driven through `update` with the tmux preset: motions in both key styles,
//! selections of the three kinds, search both ways with wrap-around, `g` on the first page,
//! yank to OSC 52 and the paste buffer, and `C-b ]` pasting it bracketed when asked. Frames of
//! copy mode at 80×24 and 200×50 are insta snapshots.

use std::time::Instant;

use super::*;
use crate::app::{Effect, Msg, Overlay, PaneEvent, Reply, Request};
use crate::dsl::press;
use crate::keymap::Preset;
use crate::test_fixture::{app_with, render};
use crate::update::update;

fn history() -> Vec<String> {
    (0..60)
        .map(|i| format!("line {i:02} alpha beta_gamma (delta)"))
        .chain(["$ echo NEEDLE here".into(), "$ ".into()])
        .collect()
}

/// The tmux preset at `size`, in copy mode over pane `a` with `history()` loaded.
fn copying(size: (u16, u16), keys: CopyKeys) -> App {
    let mut app = app_with(Preset::Tmux, size);
    app.keymap.options.copy_keys = keys;
    let now = Instant::now();
    update(
        &mut app,
        Msg::Pane {
            pane_id: "a".into(),
            event: PaneEvent::Snapshot {
                screen: b"$ echo NEEDLE here\r\n$ ".to_vec(),
                cols: 40,
                rows: 10,
            },
        },
        now,
    );
    let fx = press(&mut app, "ctrl-b [", now);
    assert!(
        fx.contains(&Effect::Request(Request::ReadScrollback("a".into()))),
        "{fx:?}"
    );
    let (lines, styled) = crate::styled::parse(&history());
    update(
        &mut app,
        Msg::Reply(Reply::Lines {
            pane_id: "a".into(),
            lines,
            styled,
        }),
        now,
    );
    app
}

fn mode(app: &App) -> &CopyMode {
    match &app.overlay {
        Some(Overlay::Copy(mode)) => mode,
        other => panic!("not in copy mode: {other:?}"),
    }
}

fn copied(fx: &[Effect]) -> Option<String> {
    fx.iter().find_map(|e| match e {
        Effect::Copy(text) => Some(text.clone()),
        _ => None,
    })
}

#[test]
fn it_opens_at_the_panes_cursor_on_the_last_line_and_g_shows_the_first_page() {
    let mut app = copying((100, 30), CopyKeys::Vi);
    let now = Instant::now();
    let m = mode(&app);
    // The last line is the cursor's (`$ `, trailing blank dropped).
    assert_eq!(m.cursor, Point { line: 61, col: 0 });
    assert_eq!(m.top + crate::copy_mode::height(&app, "a"), 62);
    press(&mut app, "g", now);
    assert_eq!((mode(&app).cursor, mode(&app).top), (Point::default(), 0));
    let frame = render(&app);
    assert!(frame.contains("line 00 alpha"), "{frame}");
    press(&mut app, "G", now);
    assert_eq!(mode(&app).cursor.line, 61);
}

#[test]
fn vi_motions_move_by_characters_words_and_lines() {
    let mut app = copying((100, 30), CopyKeys::Vi);
    let now = Instant::now();
    press(&mut app, "g", now);
    press(&mut app, "w", now);
    assert_eq!(mode(&app).cursor.col, 5, "w: to `00`");
    press(&mut app, "w w", now);
    assert_eq!(mode(&app).cursor.col, 14, "to beta_gamma (one word)");
    press(&mut app, "e", now);
    assert_eq!(mode(&app).cursor.col, 23, "e: its last character");
    press(&mut app, "b", now);
    assert_eq!(mode(&app).cursor.col, 14);
    press(&mut app, "$", now);
    assert_eq!(mode(&app).cursor.col, 31);
    press(&mut app, "0 j j l", now);
    assert_eq!(mode(&app).cursor, Point { line: 2, col: 1 });
    press(&mut app, "ctrl-d", now);
    assert!(mode(&app).cursor.line > 2);
}

#[test]
fn emacs_keys_move_select_and_copy() {
    let mut app = copying((100, 30), CopyKeys::Emacs);
    let now = Instant::now();
    press(&mut app, "alt-< ctrl-n ctrl-e", now);
    assert_eq!(mode(&app).cursor, Point { line: 1, col: 31 });
    press(&mut app, "ctrl-a ctrl-space alt-f", now);
    let fx = press(&mut app, "alt-w", now);
    assert_eq!(copied(&fx).as_deref(), Some("line"));
    assert!(app.overlay.is_none());
}

#[test]
fn char_line_and_block_selections_yank_what_they_cover() {
    let now = Instant::now();
    let mut app = copying((100, 30), CopyKeys::Vi);
    press(&mut app, "g w v j", now);
    let fx = press(&mut app, "y", now);
    assert_eq!(
        copied(&fx).as_deref(),
        Some("00 alpha beta_gamma (delta)\nline 0")
    );
    assert_eq!(
        app.paste_buffer.as_deref(),
        Some("00 alpha beta_gamma (delta)\nline 0")
    );
    assert!(app.overlay.is_none(), "a yank leaves copy mode");

    let mut app = copying((100, 30), CopyKeys::Vi);
    let fx = press(&mut app, "g j V j <enter>", now);
    assert_eq!(
        copied(&fx).as_deref(),
        Some("line 01 alpha beta_gamma (delta)\nline 02 alpha beta_gamma (delta)")
    );

    let mut app = copying((100, 30), CopyKeys::Vi);
    let fx = press(&mut app, "g w ctrl-v j j l y", now);
    assert_eq!(copied(&fx).as_deref(), Some("00\n01\n02"));
}

#[test]
fn search_goes_both_ways_wraps_and_highlights_every_match() {
    let mut app = copying((100, 30), CopyKeys::Vi);
    let now = Instant::now();
    press(&mut app, "? needle <enter>", now);
    assert_eq!(mode(&app).cursor, Point { line: 60, col: 7 });
    press(&mut app, "? line <space> 05 <enter>", now);
    assert_eq!(mode(&app).cursor, Point { line: 5, col: 0 });
    assert!(mode(&app).top <= 5, "the match is on screen");
    press(&mut app, "/ (delta) <enter>", now);
    assert_eq!(mode(&app).cursor, Point { line: 5, col: 25 });
    press(&mut app, "n", now);
    assert_eq!(mode(&app).cursor.line, 6);
    press(&mut app, "N N", now);
    assert_eq!(mode(&app).cursor.line, 4);
    // Wrapping: from the top, backwards, the last match.
    press(&mut app, "g ? delta <enter>", now);
    assert_eq!(mode(&app).cursor.line, 59);
    // Every match on screen is drawn in the search colour.
    let (w, h) = app.size;
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
    terminal.draw(|f| crate::view::view(&app, f)).expect("draw");
    let buf = terminal.backend().buffer();
    let area = crate::copy_mode::area(&app, "a").expect("on screen");
    let yellow = (area.y..area.y + area.height)
        .filter(|&y| {
            (area.x..area.x + area.width).any(|x| buf[(x, y)].bg == ratatui::style::Color::Yellow)
        })
        .count();
    assert!(
        yellow >= usize::from(area.height) - 3,
        "{yellow} rows with a match"
    );
}

#[test]
fn the_paste_buffer_goes_in_bracketed_when_the_program_asked() {
    let mut app = copying((100, 30), CopyKeys::Vi);
    let now = Instant::now();
    press(&mut app, "g v e y", now);
    update(
        &mut app,
        Msg::Pane {
            pane_id: "a".into(),
            event: PaneEvent::Output(b"\x1b[?2004h".to_vec()),
        },
        now,
    );
    let fx = press(&mut app, "ctrl-b ]", now);
    let typed: Vec<u8> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Input { bytes, .. } => Some(bytes.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(typed, b"\x1b[200~line\x1b[201~");
}

#[test]
fn the_prefix_leaves_copy_mode_and_q_or_esc_do_too() {
    let now = Instant::now();
    let mut app = copying((100, 30), CopyKeys::Vi);
    press(&mut app, "ctrl-b n", now);
    assert!(app.overlay.is_none());
    let mut app = copying((100, 30), CopyKeys::Vi);
    press(&mut app, "v <esc>", now);
    assert!(
        mode(&app).anchor.is_none(),
        "the first Esc drops the selection"
    );
    press(&mut app, "<esc>", now);
    assert!(app.overlay.is_none());
    let mut app = copying((100, 30), CopyKeys::Vi);
    press(&mut app, "q", now);
    assert!(app.overlay.is_none());
}

#[test]
fn a_mouse_drag_selects_and_scrolls_past_the_top_edge() {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let mut app = copying((100, 30), CopyKeys::Vi);
    let now = Instant::now();
    let area = crate::copy_mode::area(&app, "a").expect("on screen");
    let top = mode(&app).top;
    let mouse = |kind, column, row| {
        Msg::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    let l = MouseButton::Left;
    update(
        &mut app,
        mouse(MouseEventKind::Down(l), area.x + 2, area.y + 3),
        now,
    );
    update(
        &mut app,
        mouse(
            MouseEventKind::Drag(l),
            area.x + 2,
            area.y.saturating_sub(1),
        ),
        now,
    );
    update(
        &mut app,
        mouse(
            MouseEventKind::Drag(l),
            area.x + 2,
            area.y.saturating_sub(1),
        ),
        now,
    );
    assert_eq!(mode(&app).top, top - 2, "dragging above the pane scrolls");
    let fx = update(
        &mut app,
        mouse(MouseEventKind::Up(l), area.x + 2, area.y),
        now,
    );
    let text = copied(&fx).expect("the release copies");
    assert_eq!(text.lines().count(), 6, "{text:?}");
}

#[test]
fn copy_mode_frames() {
    for (size, name) in [
        ((80, 24), "copy_mode_80x24"),
        ((200, 50), "copy_mode_200x50"),
    ] {
        let mut app = copying(size, CopyKeys::Vi);
        let now = Instant::now();
        press(&mut app, "k k v w w ? alpha", now);
        insta::assert_snapshot!(name, render(&app));
    }
}
