//! A complete CSI sequence (its parameter bytes and final byte) as an event: cursor, editing and
//! function keys with modifiers and kitty event types, kitty `CSI … u` keys, SGR and urxvt
//! mouse, focus, the start of a paste — or nothing (a reply to a query, an unknown sequence).

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventState, KeyModifiers};

use super::codes::{kind, kitty_functional, letter_key, modifiers, mouse_event};

/// What a CSI sequence means to the TUI.
pub(super) enum Found {
    Event(Event),
    PasteStart,
    Nothing,
}

/// Parameters: `;`-separated fields of `:`-separated numbers (`None` where empty).
type Params = Vec<Vec<Option<u32>>>;

fn params(bytes: &[u8]) -> Option<Params> {
    let text = std::str::from_utf8(bytes).ok()?;
    text.split(';')
        .map(|field| {
            field
                .split(':')
                .map(|n| {
                    if n.is_empty() {
                        Ok(None)
                    } else {
                        n.parse::<u32>().map(Some)
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .ok()
        })
        .collect()
}

/// Field `i`, sub-field `j`, when present.
fn get(p: &Params, i: usize, j: usize) -> Option<u32> {
    p.get(i).and_then(|f| f.get(j)).copied().flatten()
}

/// `params` are the bytes between `CSI` and the final byte `last`.
pub(super) fn sequence(bytes: &[u8], last: u8) -> Found {
    match bytes.first() {
        Some(b'<') => return sgr_mouse(&bytes[1..], last),
        // Replies to queries (`CSI ? flags u`, `CSI ? … c`) and other private sequences.
        Some(b'?' | b'>' | b'=') => return Found::Nothing,
        _ => {}
    }
    let Some(p) = params(bytes) else {
        return Found::Nothing;
    };
    let event = match last {
        b'I' if bytes.is_empty() => Some(Event::FocusGained),
        b'O' if bytes.is_empty() => Some(Event::FocusLost),
        b'Z' => Some(Event::Key(KeyEvent::new(
            KeyCode::BackTab,
            KeyModifiers::SHIFT,
        ))),
        // A cursor position report (never asked for while running) unless it is F3 with a
        // modifier, which has the same shape (`CSI 1;m R`).
        b'R' if !(get(&p, 0, 0) == Some(1) && get(&p, 1, 0).is_some_and(|m| m >= 2)) => None,
        b'~' => match get(&p, 0, 0) {
            Some(200) => return Found::PasteStart,
            Some(n) => tilde_key(n).map(|code| keyed(code, &p, false)),
            None => None,
        },
        b'u' => kitty(&p),
        b'M' | b'm' if p.len() == 3 => {
            // urxvt (1015): `CSI b;x;y M`, button code offset by 32, release as button 3.
            match (get(&p, 0, 0), get(&p, 1, 0), get(&p, 2, 0)) {
                (Some(b), Some(x), Some(y)) if b >= 32 && x >= 1 && y >= 1 => {
                    let b = b - 32;
                    let release = b & 0b11 == 3 && b & (32 | 64) == 0;
                    mouse_event(clamp(b), clamp(x - 1), clamp(y - 1), release)
                }
                _ => None,
            }
        }
        _ => letter_key(last).map(|code| keyed(code, &p, false)),
    };
    event.map_or(Found::Nothing, Found::Event)
}

fn clamp(n: u32) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// A key with the modifiers and event type of field 1 (`CSI n;mods:event X`).
fn keyed(code: KeyCode, p: &Params, keypad: bool) -> Event {
    let (mut mods, mut state) = modifiers(get(p, 1, 0).unwrap_or(1));
    if keypad {
        state |= KeyEventState::KEYPAD;
    }
    let code = match code {
        KeyCode::Tab if mods.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
        other => other,
    };
    if code == KeyCode::BackTab {
        mods |= KeyModifiers::SHIFT;
    }
    Event::Key(KeyEvent::new_with_kind_and_state(
        code,
        mods,
        kind(get(p, 1, 1)),
        state,
    ))
}

/// The key of `CSI n ~`.
fn tilde_key(n: u32) -> Option<KeyCode> {
    Some(match n {
        1 | 7 => KeyCode::Home,
        2 => KeyCode::Insert,
        3 => KeyCode::Delete,
        4 | 8 => KeyCode::End,
        5 => KeyCode::PageUp,
        6 => KeyCode::PageDown,
        11..=15 => KeyCode::F(u8::try_from(n - 10).ok()?),
        17..=21 => KeyCode::F(u8::try_from(n - 11).ok()?),
        23..=26 => KeyCode::F(u8::try_from(n - 12).ok()?),
        28 | 29 => KeyCode::F(u8::try_from(n - 13).ok()?),
        31..=34 => KeyCode::F(u8::try_from(n - 14).ok()?),
        57427 => KeyCode::KeypadBegin,
        _ => return None,
    })
}

/// Kitty's `CSI code[:shifted[:base]] ; mods[:event] ; text u`.
fn kitty(p: &Params) -> Option<Event> {
    let code = get(p, 0, 0)?;
    let shifted = get(p, 0, 1);
    let (key, keypad) = match code {
        9 => (KeyCode::Tab, false),
        13 => (KeyCode::Enter, false),
        27 => (KeyCode::Esc, false),
        127 | 8 => (KeyCode::Backspace, false),
        57344..=63743 => kitty_functional(code)?,
        _ => {
            let (mods, _) = modifiers(get(p, 1, 0).unwrap_or(1));
            // With Shift, the shifted key (when reported) is the character typed.
            let c = match shifted {
                Some(s) if mods.contains(KeyModifiers::SHIFT) => s,
                _ => code,
            };
            (KeyCode::Char(char::from_u32(c)?), false)
        }
    };
    Some(keyed(key, p, keypad))
}

/// SGR mouse: `CSI < b;x;y M` (press, motion, wheel) or `m` (release), 1-based coordinates.
fn sgr_mouse(bytes: &[u8], last: u8) -> Found {
    if !matches!(last, b'M' | b'm') {
        return Found::Nothing;
    }
    let Some(p) = params(bytes) else {
        return Found::Nothing;
    };
    match (get(&p, 0, 0), get(&p, 1, 0), get(&p, 2, 0)) {
        (Some(b), Some(x), Some(y)) if x >= 1 && y >= 1 => {
            mouse_event(clamp(b), clamp(x - 1), clamp(y - 1), last == b'm')
                .map_or(Found::Nothing, Found::Event)
        }
        _ => Found::Nothing,
    }
}
