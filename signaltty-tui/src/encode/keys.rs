//! Key presses as bytes, in the keyboard protocol the pane's program asked for. The pane's
//! model (`signaltty-term`) tracks what the program turned on — the kitty keyboard flags of the
//! active screen and xterm's modifyOtherKeys level — and [`KeyProtocol::of`] reads them, so a
//! Shift+Enter or a Ctrl+I reaches an agent distinct from Enter and Tab, as it would in kitty or
//! xterm. Without a protocol, keys go the legacy way (cursor keys follow DECCKM).
//!
//! The kitty protocol is followed for its flags 1 (disambiguate escape codes), 4 (report
//! alternate keys, for shifted ASCII letters), 8 (report all keys as escape codes) and 16
//! (associated text: with 8, a key that types text carries it, `CSI 97;;97u`) and 2 (event
//! types): when the outer terminal speaks the kitty protocol the TUI asks it for event types too
//! (see `terminal`), and a pane whose program pushed flag 2 gets repeats as `CSI …;m:2 X` and
//! releases as `CSI …;m:3 X` — except where the kitty protocol keeps legacy bytes: a repeat of a
//! key that types text (or of unmodified Enter, Tab, Backspace) is sent like its press, and
//! Enter, Tab and Backspace have no release unless flag 8 is on too. A pane without flag 2 gets
//! repeats as presses and never sees a release. Functional keys (arrows, Home/End, Insert,
//! Delete, PageUp/Down, F-keys) keep their legacy `CSI 1;m X` / `CSI n;m ~` forms, which the
//! kitty protocol also uses. modifyOtherKeys uses xterm's default `CSI 27 ; m ; code ~` form.
//!
//! What a key looks like depends on the outer terminal too: unless it speaks the kitty protocol
//! (the TUI then asks it to disambiguate, see `terminal`), Ctrl+I arrives as Tab and Shift+Enter
//! as Enter, and nothing here can tell them apart again.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use signaltty_term::vt::{Modes, Term};

/// Kitty flag 1: escape codes for keys that are ambiguous in the legacy encoding.
const DISAMBIGUATE: u8 = 1;
/// Kitty flag 2: repeat and release events, as a sub-field of the modifiers (`;m:2`, `;m:3`).
const EVENT_TYPES: u8 = 2;
/// Kitty flag 4: the shifted key follows the key code (`CSI 97:65;2u`).
const ALTERNATE_KEYS: u8 = 4;
/// Kitty flag 8: every key, plain text included, as an escape code.
const ALL_AS_ESCAPES: u8 = 8;
/// Kitty flag 16: with flag 8, the text a key types follows as a third field.
const ASSOCIATED_TEXT: u8 = 16;

/// The keyboard protocols a pane's program turned on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyProtocol {
    /// The kitty enhancement flags in force on the active screen (0 = none).
    pub kitty_flags: u8,
    /// xterm's modifyOtherKeys level (0 off, 1, 2).
    pub modify_other_keys: u8,
}

impl KeyProtocol {
    /// What the program in `term` asked for, on the screen it is showing.
    pub fn of(term: &Term) -> KeyProtocol {
        let keyboard = term.keyboard();
        KeyProtocol {
            kitty_flags: keyboard.kitty_flags(usize::from(term.alternate_screen())),
            modify_other_keys: keyboard.modify_other_keys(),
        }
    }
}

/// The bytes of a key event (press, repeat or release); empty for keys with no encoding and for
/// releases the program did not ask for.
pub fn key(event: &KeyEvent, modes: &Modes, protocol: KeyProtocol) -> Vec<u8> {
    let types = protocol.kitty_flags & EVENT_TYPES != 0;
    let kind = match event.kind {
        KeyEventKind::Press => return press(event, modes, protocol),
        KeyEventKind::Repeat if !types => return press(event, modes, protocol),
        KeyEventKind::Release if !types => return Vec::new(),
        KeyEventKind::Repeat => 2,
        KeyEventKind::Release => 3,
    };
    let bytes = press(event, modes, protocol);
    if let Some(with) = with_event_type(&bytes, kind) {
        return with;
    }
    // The press went as legacy bytes (text, a control byte, unmodified Enter/Tab/Backspace):
    // a repeat is the same bytes again; a release of a text key is `CSI code;m:3u`, and Enter,
    // Tab and Backspace are never released (flag 8 would have sent their press as CSI u).
    if kind == 2 {
        return bytes;
    }
    match event.code {
        KeyCode::Char(c) if !bytes.is_empty() => {
            let mods = Mods::of(event);
            let code = c.to_lowercase().next().unwrap_or(c) as u32;
            format!("\x1b[{code};{}:3u", mods.param()).into_bytes()
        }
        _ => Vec::new(),
    }
}

/// A key's escape sequence (`CSI … X` or `SS3 X`) with the event type `kind` in the modifier
/// field (`CSI A` → `CSI 1;1:2A`, `CSI 3;5~` → `CSI 3;5:3~`, `CSI 97;5u` → `CSI 97;5:3u`);
/// `None` for bytes that are not one (text, control bytes).
fn with_event_type(bytes: &[u8], kind: u8) -> Option<Vec<u8>> {
    let (params, last) = match bytes {
        [0x1b, b'O', last] => ("", *last),
        [0x1b, b'[', rest @ .., last] if last.is_ascii_alphabetic() || *last == b'~' => {
            (std::str::from_utf8(rest).ok()?, *last)
        }
        _ => return None,
    };
    let mut fields: Vec<&str> = params.split(';').collect();
    // The associated text (a third field) belongs to the press only.
    fields.truncate(2);
    let first = if fields[0].is_empty() { "1" } else { fields[0] };
    let mods = fields
        .get(1)
        .filter(|m| !m.is_empty())
        .copied()
        .unwrap_or("1");
    // F3 is `CSI 13 ~` in the kitty protocol: `CSI 1;m R` is also a cursor position report.
    let (first, last) = if last == b'R' {
        ("13", b'~')
    } else {
        (first, last)
    };
    Some(format!("\x1b[{first};{mods}:{kind}{}", char::from(last)).into_bytes())
}

/// The bytes of a key press; empty for keys with no encoding.
fn press(event: &KeyEvent, modes: &Modes, protocol: KeyProtocol) -> Vec<u8> {
    // A terminal in the kitty protocol reports Ctrl+Shift+A as `a` with Shift: the same key as
    // the legacy `A` with Shift, which is the form used below.
    let shifted;
    let event = match event.code {
        KeyCode::Char(c)
            if c.is_ascii_lowercase() && event.modifiers.contains(KeyModifiers::SHIFT) =>
        {
            shifted = KeyEvent::new(KeyCode::Char(c.to_ascii_uppercase()), event.modifiers);
            &shifted
        }
        _ => event,
    };
    if protocol.kitty_flags & (DISAMBIGUATE | ALL_AS_ESCAPES) != 0
        && let Some(bytes) = kitty(event, protocol.kitty_flags)
    {
        return bytes;
    }
    if protocol.kitty_flags == 0
        && protocol.modify_other_keys > 0
        && let Some(bytes) = modify_other_keys(event, protocol.modify_other_keys)
    {
        return bytes;
    }
    legacy(event, modes)
}

/// The modifier bits of a key, with Shift implied by a capital letter.
struct Mods {
    shift: bool,
    alt: bool,
    ctrl: bool,
    /// Super, Hyper and Meta as the kitty protocol numbers them (8, 16, 32).
    extra: u8,
}

impl Mods {
    fn of(event: &KeyEvent) -> Mods {
        let m = event.modifiers;
        let capital = matches!(event.code, KeyCode::Char(c) if c.is_ascii_uppercase());
        Mods {
            shift: m.contains(KeyModifiers::SHIFT)
                || capital
                || matches!(event.code, KeyCode::BackTab),
            alt: m.contains(KeyModifiers::ALT),
            ctrl: m.contains(KeyModifiers::CONTROL),
            extra: 8 * u8::from(m.contains(KeyModifiers::SUPER))
                + 16 * u8::from(m.contains(KeyModifiers::HYPER))
                + 32 * u8::from(m.contains(KeyModifiers::META)),
        }
    }

    /// The protocols' modifier parameter: 1 + shift + 2·alt + 4·ctrl (+ super, hyper, meta).
    fn param(&self) -> u8 {
        1 + u8::from(self.shift) + 2 * u8::from(self.alt) + 4 * u8::from(self.ctrl) + self.extra
    }

    /// Any modifier besides Shift.
    fn beyond_shift(&self) -> bool {
        self.alt || self.ctrl || self.extra > 0
    }
}

/// The kitty form, or `None` where the protocol keeps the legacy bytes.
fn kitty(event: &KeyEvent, flags: u8) -> Option<Vec<u8>> {
    let mods = Mods::of(event);
    let all = flags & ALL_AS_ESCAPES != 0;
    // The key code is the unshifted key; the shifted one is its "alternate".
    let (code, shifted) = match event.code {
        KeyCode::Char(c) if c.is_ascii_uppercase() => (c.to_ascii_lowercase() as u32, Some(c)),
        KeyCode::Char(c) => (c as u32, None),
        KeyCode::Enter => (13, None),
        KeyCode::Tab | KeyCode::BackTab => (9, None),
        KeyCode::Backspace => (127, None),
        KeyCode::Esc => (27, None),
        _ => return None,
    };
    let text_key = matches!(event.code, KeyCode::Char(_));
    let escape = match event.code {
        // Esc is the ambiguous key the protocol exists for.
        KeyCode::Esc => true,
        // Text typed with at most Shift stays text unless every key is asked for.
        KeyCode::Char(_) => all || mods.beyond_shift(),
        // Enter, Tab and Backspace stay legacy when unmodified (so `reset` can still be typed
        // after a crashed program left the flags on), unless every key is asked for.
        _ => all || mods.shift || mods.beyond_shift(),
    };
    if !escape {
        return None;
    }
    let mut out = format!("\x1b[{code}");
    if text_key
        && flags & ALTERNATE_KEYS != 0
        && mods.shift
        && let Some(shifted) = shifted
    {
        out.push_str(&format!(":{}", shifted as u32));
    }
    let param = mods.param();
    // The text typed: a character key with at most Shift (Ctrl or Alt type no text).
    let text = match event.code {
        KeyCode::Char(c) if all && flags & ASSOCIATED_TEXT != 0 && !mods.beyond_shift() => Some(c),
        _ => None,
    };
    if param > 1 || text.is_some() {
        out.push(';');
        if param > 1 {
            out.push_str(&param.to_string());
        }
    }
    if let Some(c) = text {
        out.push_str(&format!(";{}", c as u32));
    }
    out.push('u');
    Some(out.into_bytes())
}

/// xterm's modifyOtherKeys form `CSI 27 ; m ; code ~`, or `None` for the legacy bytes. Level 1
/// only encodes modified keys that have no legacy form of their own (Shift/Ctrl+Enter, Ctrl+Tab,
/// Ctrl+digits and punctuation without a control code, Ctrl+Shift+letter); level 2 every key
/// with Ctrl or Alt, and modified Enter, Tab, Backspace and Esc.
fn modify_other_keys(event: &KeyEvent, level: u8) -> Option<Vec<u8>> {
    let mods = Mods::of(event);
    let (code, special) = match event.code {
        KeyCode::Char(c) => (c as u32, false),
        KeyCode::Enter => (13, true),
        KeyCode::Tab => (9, true),
        KeyCode::BackTab if level >= 2 => (9, true),
        KeyCode::Backspace => (127, true),
        KeyCode::Esc => (27, true),
        _ => return None,
    };
    let wanted = if special {
        mods.beyond_shift() || mods.shift
    } else if level >= 2 {
        mods.beyond_shift()
    } else {
        // Level 1: only Ctrl combinations the legacy encoding cannot express.
        let c = char::from_u32(code).unwrap_or(' ');
        mods.ctrl
            && (c.is_ascii_uppercase() || !(c.is_ascii_lowercase() || control_code(c).is_some()))
    };
    wanted.then(|| format!("\x1b[27;{};{code}~", mods.param()).into_bytes())
}

/// The control byte legacy terminals send for Ctrl+`c`, if there is one.
fn control_code(c: char) -> Option<u8> {
    Some(match c.to_ascii_lowercase() {
        l @ 'a'..='z' => l as u8 & 0x1f,
        '@' | ' ' | '2' => 0,
        '[' | '3' => 0x1b,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '6' => 0x1e,
        '_' | '/' | '7' => 0x1f,
        '?' | '8' => 0x7f,
        _ => return None,
    })
}

/// The legacy (VT/xterm) bytes, cursor keys following DECCKM.
fn legacy(event: &KeyEvent, modes: &Modes) -> Vec<u8> {
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    let alt = event.modifiers.contains(KeyModifiers::ALT);
    let shift = event.modifiers.contains(KeyModifiers::SHIFT);
    // xterm's modifier parameter: 1 + shift + 2·alt + 4·ctrl.
    let param = 1 + u8::from(shift) + 2 * u8::from(alt) + 4 * u8::from(ctrl);
    let cursor = |letter: u8| -> Vec<u8> {
        if param > 1 {
            format!("\x1b[1;{param}{}", letter as char).into_bytes()
        } else if modes.application_cursor {
            vec![0x1b, b'O', letter]
        } else {
            vec![0x1b, b'[', letter]
        }
    };
    let tilde = |n: u8| -> Vec<u8> {
        if param > 1 {
            format!("\x1b[{n};{param}~").into_bytes()
        } else {
            format!("\x1b[{n}~").into_bytes()
        }
    };
    let mut out = match event.code {
        KeyCode::Char(c) if ctrl => match control_code(c) {
            Some(byte) => vec![byte],
            None => c.to_string().into_bytes(),
        },
        KeyCode::Char(c) => c.to_string().into_bytes(),
        KeyCode::Enter => vec![b'\r'],
        KeyCode::Tab => vec![b'\t'],
        KeyCode::BackTab => b"\x1b[Z".to_vec(),
        KeyCode::Backspace => vec![0x7f],
        KeyCode::Esc => vec![0x1b],
        KeyCode::Up => cursor(b'A'),
        KeyCode::Down => cursor(b'B'),
        KeyCode::Right => cursor(b'C'),
        KeyCode::Left => cursor(b'D'),
        KeyCode::Home => cursor(b'H'),
        KeyCode::End => cursor(b'F'),
        KeyCode::Insert => tilde(2),
        KeyCode::Delete => tilde(3),
        KeyCode::PageUp => tilde(5),
        KeyCode::PageDown => tilde(6),
        KeyCode::F(n @ 1..=4) if param > 1 => {
            format!("\x1b[1;{param}{}", (b'P' + (n - 1)) as char).into_bytes()
        }
        KeyCode::F(n @ 1..=4) => vec![0x1b, b'O', b'P' + (n - 1)],
        KeyCode::F(n @ 5..=12) => tilde([15, 17, 18, 19, 20, 21, 23, 24][usize::from(n - 5)]),
        _ => Vec::new(),
    };
    // Alt prefixes ESC to plain keys (the "meta sends escape" convention).
    if alt
        && matches!(
            event.code,
            KeyCode::Char(_) | KeyCode::Enter | KeyCode::Backspace
        )
    {
        out.insert(0, 0x1b);
    }
    out
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
