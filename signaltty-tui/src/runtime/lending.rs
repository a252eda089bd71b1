//! Lending the keys (`lend`; what the server takes and why: `signaltty_tty::lend`): while the
//! server paints the focused pane and we are in Insert mode with nothing of ours in the way, a
//! typed letter wakes the server and the program only — this process not at all. What the
//! server hands back (a key bound in our Insert keymap, [`excluded`], the leader, a mouse
//! report, a paste, any escape sequence) comes back to our parser as if we had read it. The
//! keys come home too whenever [`may_lend`] stops holding (a mode, focus or overlay change,
//! attention that typing would clear): `release`, answered by `back`.
//!
//! Switched off by `[fast_paths] lend_keys = false` (for A/B measurements and as an escape
//! hatch): every key is then read here.
//!
//! Lent only when everything we typed is in the pane already (direct input idle), so the
//! server's writes never overtake ours; and our reads stop first — the terminal leaves our
//! reactor, so a key lent does not even wake us.

use crossterm::event::{Event, KeyCode};

use super::painting::ServerPaint;
use crate::input::Reader;

use crate::app::{App, Focus, Mode};
use crate::keymap::{Chord, Resolved, Table};
use crate::keys::{event_of, token_of};

/// Brings where the keys are read in line with `lend` (from [`may_lend`], false while events
/// wait to be handled): keys the server gave back are read again — their events, to be handled
/// first, are returned — and keys are lent (our reads stopped first) or recalled.
pub fn settle(
    lend: bool,
    excluded: &str,
    input: &mut Reader,
    server_paint: &mut ServerPaint,
) -> std::io::Result<Vec<Event>> {
    if input.lent() && !server_paint.keys_lent() {
        let events = input.take_back(&server_paint.take_back())?;
        if !events.is_empty() {
            return Ok(events);
        }
    }
    if lend && input.can_lend() {
        input.lend();
        if !server_paint.lend_keys(excluded) {
            return input.take_back(&[]);
        }
    } else if !lend && input.lent() {
        server_paint.recall_keys();
    }
    Ok(Vec::new())
}

/// Whether the keys may be lent now: Insert mode on the focused pane, no chord held (nor a
/// prefix binding's repeat time running: its next key may be ours), no overlay,
/// the server painting that pane (`painting`), everything typed into it written (`typed_all`),
/// a program that takes plain keys as plain bytes, and nothing that typing there would clear
/// (its unread marks are cleared by the keys we see).
pub fn may_lend(app: &App, painting: Option<&str>, typed_all: impl Fn(&str) -> bool) -> bool {
    if app.mode != Mode::Insert
        || app.focus != Focus::Panes
        || app.overlay.is_some()
        || !app.chord.held.is_empty()
        || app.chord.repeat_until.is_some()
    {
        return false;
    }
    let Some(pane) = app.focused_pane() else {
        return false;
    };
    // A program that wants every key as an escape code would have every key handed back.
    let all_escaped = app.screens.get(&pane.id).is_some_and(|screen| {
        let term = screen.view();
        let flags = term
            .keyboard()
            .kitty_flags(usize::from(term.alternate_screen()));
        flags & signaltty_tty::lend::ALL_KEYS_AS_ESCAPES != 0
    });
    painting == Some(pane.id.as_str())
        && typed_all(&pane.id)
        && !all_escaped
        && !crate::focus::seen_clears(app, pane)
}

/// The keys the server could take that the Insert keymap uses (bound, or the start of a
/// chord), as the characters they type: the server must hand them back. Fixed for a keymap.
pub fn excluded(app: &App) -> String {
    // Plain ASCII bytes, and the characters the keymap's bindings start with (a binding to a
    // non-ASCII key).
    let ascii = (0..=u8::MAX)
        .filter(|b| signaltty_tty::lend::plain(*b))
        .map(char::from);
    let bound = app
        .keymap
        .insert
        .keys()
        .filter_map(|keys| keys.first().and_then(|t| event_of(t)))
        .filter_map(|key| match key.code {
            KeyCode::Char(c) if !c.is_ascii() => Some(c),
            _ => None,
        });
    let mut out: Vec<char> = ascii.chain(bound).filter(|c| !unbound(app, *c)).collect();
    out.sort_unstable();
    out.dedup();
    out.into_iter().collect()
}

/// Whether the key that types `c`, read alone, is one key the Insert keymap does not use.
fn unbound(app: &App, c: char) -> bool {
    let mut events = Vec::new();
    crate::input::Parser::new().feed(c.to_string().as_bytes(), &mut events);
    let [Event::Key(key)] = events[..] else {
        return false;
    };
    let Some(token) = token_of(&key) else {
        return true;
    };
    let now = std::time::Instant::now();
    matches!(
        app.keymap.resolve(Table::Insert, &mut Chord::default(), token, now),
        Resolved::Unbound(tokens) if tokens.len() == 1
    )
}

#[cfg(test)]
#[path = "lending_tests.rs"]
mod tests;
