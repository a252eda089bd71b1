//! Damage frames against full redraws, over random runs: after every frame, what the drawer
//! believes the terminal shows, and what a terminal model fed the drawer's bytes shows, must
//! both equal a fresh full render of the same state. A failure names its seed and step.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::{Buffer, CellWidth};
use ratatui::layout::Rect as TuiRect;
use ratatui::style::Color;
use signaltty_proto::v1 as pb;
use signaltty_term::Screen;

use super::{Drawn, Frames};
use crate::app::{App, Attachment, Effect, Msg, Overlay, PaneEvent, Selection};
use crate::test_fixture::{decision, four_panes};
use crate::update::update;

/// The drawer's output, shared with the test.
#[derive(Clone, Default)]
struct Tap(Rc<RefCell<Vec<u8>>>);

impl Write for Tap {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Tap {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

/// xorshift64*: small, deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Random program output: text, wide characters, marks, colours, moves, erases, scrolls,
/// insert/delete, the alternate screen.
fn output(rng: &mut Rng) -> Vec<u8> {
    let mut out = String::new();
    for _ in 0..1 + rng.below(6) {
        let piece = match rng.below(16) {
            0..=4 => rng
                .pick(&["hello", "λμν", "x", "a longer line of text", "  ", "|"])
                .to_string(),
            5 => rng.pick(&["世界", "e\u{301}", "日本語", "ｗ"]).to_string(),
            6 => format!(
                "\x1b[{}m",
                rng.pick(&["0", "1", "4", "7", "1;31", "2", "9", "5"])
            ),
            7 => format!("\x1b[38;5;{}m", rng.below(256)),
            8 => format!(
                "\x1b[48;2;{};{};{}m",
                rng.below(256),
                rng.below(256),
                rng.below(256)
            ),
            9 => "\r\n".into(),
            10 => format!("\x1b[{};{}H", 1 + rng.below(30), 1 + rng.below(60)),
            11 => rng
                .pick(&["\x1b[K", "\x1b[1K", "\x1b[2K", "\x1b[J", "\x1b[2J"])
                .to_string(),
            12 => rng
                .pick(&["\x1b[L", "\x1b[M", "\x1b[2P", "\x1b[3@", "\x1b[S", "\x1b[T"])
                .to_string(),
            13 => rng.pick(&["\x1b[?1049h", "\x1b[?1049l"]).to_string(),
            14 => "\x08\x08z".into(),
            _ => "\x1b[0m".into(),
        };
        out.push_str(&piece);
    }
    out.into_bytes()
}

/// A fresh full render of the state: what every frame must leave on screen.
fn full(app: &App) -> Buffer {
    let mut buf = Buffer::empty(TuiRect::new(0, 0, app.size.0, app.size.1));
    crate::view::render(app, &mut buf);
    buf
}

/// ratatui's named colours as the palette indexes a terminal reads them as.
fn palette(c: Color) -> Color {
    let named = [
        Color::Black,
        Color::Red,
        Color::Green,
        Color::Yellow,
        Color::Blue,
        Color::Magenta,
        Color::Cyan,
        Color::Gray,
        Color::DarkGray,
        Color::LightRed,
        Color::LightGreen,
        Color::LightYellow,
        Color::LightBlue,
        Color::LightMagenta,
        Color::LightCyan,
        Color::White,
    ];
    match named.iter().position(|n| *n == c) {
        Some(i) => Color::Indexed(i as u8),
        None => c,
    }
}

/// The terminal model fed every frame's bytes shows what `want` holds, cell by cell (text,
/// colours, attributes).
fn assert_terminal_shows(term: &Screen, want: &Buffer, context: &str) {
    let view = term.view();
    for y in 0..want.area.height {
        for x in 0..want.area.width {
            let cell = &want[(x, y)];
            // A double-width character whose right half something was drawn over (a decision
            // box or an overlay cutting through it) or that a pane's clip left in the screen's
            // last column cannot be shown as the buffer says, by any frame: ratatui's own diff
            // assumes it never happens. Not a damage question (full frames show it the same).
            let cut = |x: u16| {
                want[(x, y)].cell_width() > 1
                    && (x + 1 >= want.area.width || !want[(x + 1, y)].symbol().is_empty())
            };
            // Likewise a right half whose left half was drawn over.
            let orphan = cell.symbol().is_empty() && (x == 0 || want[(x - 1, y)].cell_width() < 2);
            if cut(x) || (x > 0 && cut(x - 1)) || orphan {
                continue;
            }
            let text = view.cell_text(y, x);
            let continuation = view.cell(y, x).is_some_and(|c| c.is_wide_continuation());
            let text = if text.is_empty() && !continuation {
                " ".to_owned()
            } else {
                text
            };
            let style = view
                .cell(y, x)
                .map(|c| crate::view::style_of(c.style()))
                .unwrap_or_default();
            let shown = (
                text.as_str(),
                palette(style.fg.unwrap_or(Color::Reset)),
                palette(style.bg.unwrap_or(Color::Reset)),
                style.add_modifier,
            );
            let wanted = (
                cell.symbol(),
                palette(cell.fg),
                palette(cell.bg),
                cell.modifier,
            );
            // The right half of a double-width character has no style of its own.
            let same = shown == wanted || (continuation && shown.0 == wanted.0);
            if !same {
                let line =
                    |f: &dyn Fn(u16) -> String| (0..want.area.width).map(f).collect::<String>();
                panic!(
                    "{context}: terminal cell ({x}, {y}): {shown:?} != {wanted:?}\nterminal: {:?}\nwanted:   {:?}",
                    line(&|x| view.cell_text(y, x)),
                    line(&|x| want[(x, y)].symbol().to_owned()),
                );
            }
        }
    }
}

/// Draws what the runtime would: the echo's pane alone, or everything.
fn frame(drawer: &mut Frames<Tap>, app: &mut App, echo: Option<&str>) -> Drawn {
    let drawn = match echo {
        Some(pane) if !app.dirty => {
            app.damaged.remove(pane);
            drawer.panes(app, [pane]).expect("frame")
        }
        _ if app.dirty => drawer.full(app).expect("frame"),
        _ => {
            let damaged = std::mem::take(&mut app.damaged);
            drawer
                .panes(app, damaged.iter().map(String::as_str))
                .expect("frame")
        }
    };
    if drawn == Drawn::Full || echo.is_none() {
        app.dirty = false;
        app.damaged.clear();
    }
    drawn
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn run(seed: u64, steps: usize) -> (usize, usize) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut app = four_panes();
    let tap = Tap::default();
    let mut drawer = Frames::new(tap.clone());
    let mut term = Screen::new(app.size.0, app.size.1);
    let (mut damage_frames, mut full_frames) = (0, 0);
    let visible = ["a", "b", "d", "e"];
    for step in 0..steps {
        let now = Instant::now();
        let context = format!("seed {seed} step {step}");
        match rng.below(100) {
            0..=64 => {
                let pane_id = rng.pick(&visible).to_string();
                let event = PaneEvent::Output(output(&mut rng));
                update(&mut app, Msg::Pane { pane_id, event }, now);
            }
            65..=69 => {
                let size = (40 + rng.below(80) as u16, 10 + rng.below(30) as u16);
                update(&mut app, Msg::Resize(size.0, size.1), now);
                // Half the time the server follows with the new sizes (else models keep theirs).
                if rng.chance(50) {
                    for id in visible {
                        if let Some(Attachment::Interactive { cols, rows }) = app.attached.get(id) {
                            let event = PaneEvent::Resized {
                                cols: *cols,
                                rows: *rows,
                            };
                            let pane_id = id.to_owned();
                            update(&mut app, Msg::Pane { pane_id, event }, now);
                        }
                    }
                }
            }
            70..=73 => {
                app.overlay = match app.overlay {
                    None => Some(Overlay::Help { offset: 0 }),
                    Some(_) => None,
                };
                app.dirty = true;
            }
            74..=77 => {
                let pane_id = rng.pick(&visible).to_string();
                app.selection = rng.chance(70).then(|| Selection {
                    pane_id,
                    start: (rng.below(10) as u16, rng.below(20) as u16),
                    end: (rng.below(10) as u16, rng.below(20) as u16),
                });
                app.dirty = true;
            }
            78..=81 => {
                let pane_id = rng.pick(&visible).to_string();
                if let Some(p) = app.catalog.panes.get_mut(&pane_id) {
                    p.pending_decision = match p.pending_decision {
                        None => Some(pb::Decision {
                            pane_id: pane_id.clone(),
                            ..decision()
                        }),
                        Some(_) => None,
                    };
                }
                app.dirty = true;
            }
            _ => {
                // A key: in Insert mode mostly typed into the focused pane, sometimes the leader
                // and a command after it, which must be drawn whole.
                let keys: Vec<KeyEvent> = match rng.below(10) {
                    0 => vec![KeyEvent::new(KeyCode::Char('a'), KeyModifiers::CONTROL)],
                    1 => vec![KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)],
                    2 => vec![key('i')],
                    _ => vec![key(*rng.pick(&['x', 'y', 'λ', ' ']))],
                };
                for k in keys {
                    update(&mut app, Msg::Key(k), now);
                }
            }
        }
        if !rng.chance(60) {
            continue;
        }
        let echo = if rng.chance(30) {
            Some(*rng.pick(&visible))
        } else {
            None
        };
        let drawn = frame(&mut drawer, &mut app, echo);
        match drawn {
            Drawn::Full => full_frames += 1,
            Drawn::Panes => damage_frames += 1,
        }
        let bytes = tap.take();
        if term.size() != app.size {
            term.resize(app.size.0, app.size.1);
        }
        term.feed(&bytes);
        term.take_replies();
        if echo.is_some() && drawn == Drawn::Panes {
            // An echo frame draws one pane: compare only once everything is drawn.
            let rest = frame(&mut drawer, &mut app, None);
            let bytes = tap.take();
            term.feed(&bytes);
            let _ = rest;
        }
        let want = full(&app);
        assert_eq!(drawer.shown(), &want, "{context}: drawer's buffer");
        // Overlays (always drawn in full frames) can cut double-width characters at their
        // borders, which no frame can show as the buffer holds them: the terminal is compared
        // when none is open (the buffer always).
        if app.overlay.is_none() {
            assert_terminal_shows(&term, &want, &context);
        }
    }
    (damage_frames, full_frames)
}

#[test]
fn damage_frames_equal_full_redraws_over_random_runs() {
    let (mut damage, mut full) = (0, 0);
    for seed in 1..=16 {
        let (d, f) = run(seed, 150);
        damage += d;
        full += f;
    }
    // Both kinds were exercised, damage frames most (output is the common step).
    assert!(damage > full, "{damage} damage frames, {full} full");
    assert!(full > 50, "{full} full frames");
}

#[test]
fn an_echo_frame_draws_only_the_changed_row_of_the_pane_typed_into() {
    let mut app = four_panes();
    let tap = Tap::default();
    let mut drawer = Frames::new(tap.clone());
    drawer.full(&app).expect("frame");
    app.dirty = false;
    // Every other pane prints; the echo frame carries none of it.
    for id in ["b", "d", "e"] {
        let event = PaneEvent::Output(b"ZZZZ other pane\r\n".to_vec());
        update(
            &mut app,
            Msg::Pane {
                pane_id: id.into(),
                event,
            },
            Instant::now(),
        );
    }
    tap.take();
    let fx = update(&mut app, Msg::Key(key('x')), Instant::now());
    assert!(
        fx.iter().all(|e| matches!(e, Effect::Input { .. })),
        "{fx:?}"
    );
    assert!(!app.dirty, "a typed key alone draws nothing");
    let event = PaneEvent::Output("λ".as_bytes().to_vec());
    update(
        &mut app,
        Msg::Pane {
            pane_id: "a".into(),
            event,
        },
        Instant::now(),
    );
    assert_eq!(frame(&mut drawer, &mut app, Some("a")), Drawn::Panes);
    let bytes = String::from_utf8(tap.take()).expect("utf-8");
    assert!(bytes.contains('λ'), "{bytes:?}");
    assert!(
        !bytes.contains("ZZZZ"),
        "the echo frame carried other panes: {bytes:?}"
    );
    assert!(
        bytes.len() < 120,
        "{} bytes for one character: {bytes:?}",
        bytes.len()
    );
    // The others follow in the next frame.
    assert_eq!(frame(&mut drawer, &mut app, None), Drawn::Panes);
    let bytes = String::from_utf8(tap.take()).expect("utf-8");
    assert_eq!(bytes.matches("ZZZZ").count(), 3, "{bytes:?}");
    assert_eq!(drawer.shown(), &full(&app));
}

#[test]
fn a_forgotten_rectangle_is_drawn_whole_again_over_another_writer() {
    let mut app = four_panes();
    let tap = Tap::default();
    let mut drawer = Frames::new(tap.clone());
    let mut term = Screen::new(app.size.0, app.size.1);
    drawer.full(&app).expect("frame");
    term.feed(&tap.take());
    // Another writer (the server painting pane `b`) puts text in `b`'s content, framed as it
    // does: cursor and colours saved and restored.
    let (_, placement) = crate::regions::placement(&app).expect("a layout");
    let body = crate::regions::content(placement.rect_of("b").expect("b is placed"));
    let other = format!(
        "\x1b7\x1b[{};{}H\x1b[31mZZZZ\x1b[m\x1b8",
        body.y + 1,
        body.x + 1
    );
    term.feed(other.as_bytes());
    // Unforgotten, a full frame of the same state leaves it there (the drawer believes the
    // cells are blank): the control for what follows.
    app.dirty = true;
    assert_eq!(frame(&mut drawer, &mut app, None), Drawn::Full);
    term.feed(&tap.take());
    assert!(term.view().cell_text(body.y, body.x) == "Z");
    // Forgotten, the next frame writes every cell of the rectangle again.
    drawer.forget(body);
    app.dirty = true;
    frame(&mut drawer, &mut app, None);
    term.feed(&tap.take());
    assert_terminal_shows(&term, &full(&app), "after forget");
}
