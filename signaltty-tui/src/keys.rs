//! Canonical key strings: the one spelling of a key or mouse gesture that keymaps, the help
//! overlay and the test DSL share. A key is `[ctrl-][alt-]name` where `name` is a printable
//! character (`a`, `H`, `%`; a shifted letter is the capital, never `shift-h`), or one of
//! `enter esc tab backtab backspace space up down left right home end pageup pagedown delete
//! insert f1…f12`; a mouse gesture is `mouse:kind(region)` with kind `click dblclick drag
//! wheel-up wheel-down` and region `pane tab sidebar-row split-divider decision-option`. A
//! chord is keys
//! separated by spaces (`"ctrl-w h"`, `"g t"`); `<leader>` stands for the configured leader.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The key names besides single characters.
const NAMED: &[&str] = &[
    "enter",
    "esc",
    "tab",
    "backtab",
    "backspace",
    "space",
    "up",
    "down",
    "left",
    "right",
    "home",
    "end",
    "pageup",
    "pagedown",
    "delete",
    "insert",
];

/// Mouse gesture kinds.
pub const MOUSE_KINDS: &[&str] = &["click", "dblclick", "drag", "wheel-up", "wheel-down"];
/// Mouse regions.
pub const MOUSE_REGIONS: &[&str] = &[
    "pane",
    "tab",
    "sidebar-row",
    "split-divider",
    "decision-option",
];

/// Canonicalises one key token as written in a config file; `Err` says what is wrong.
pub fn canonical_token(token: &str) -> Result<String, String> {
    if token == "<leader>" {
        return Ok(token.to_owned());
    }
    if let Some(rest) = token.strip_prefix("mouse:") {
        let (kind, region) = rest
            .strip_suffix(')')
            .and_then(|r| r.split_once('('))
            .ok_or_else(|| format!("bad mouse gesture {token:?}: expected mouse:kind(region)"))?;
        if !MOUSE_KINDS.contains(&kind) {
            return Err(format!(
                "unknown mouse gesture {kind:?} in {token:?} (one of {})",
                MOUSE_KINDS.join(", ")
            ));
        }
        if !MOUSE_REGIONS.contains(&region) {
            return Err(format!(
                "unknown mouse region {region:?} in {token:?} (one of {})",
                MOUSE_REGIONS.join(", ")
            ));
        }
        return Ok(token.to_owned());
    }
    let mut rest = token;
    let (mut ctrl, mut alt) = (false, false);
    loop {
        // A lone "-" is the minus key, not a modifier separator.
        if let Some(r) = rest.strip_prefix("ctrl-").filter(|r| !r.is_empty()) {
            ctrl = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("alt-").filter(|r| !r.is_empty()) {
            alt = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("shift-").filter(|r| !r.is_empty()) {
            // shift-x is spelled X; shift on named keys (shift-tab) is backtab.
            match r {
                "tab" => rest = "backtab",
                r if r.chars().count() == 1 => {
                    return Err(format!("write {token:?} as {:?}", r.to_uppercase()));
                }
                _ => return Err(format!("shift is only allowed as shift-tab in {token:?}")),
            }
        } else {
            break;
        }
    }
    let name = if rest.chars().count() == 1 {
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_control() || c == ' ' {
            return Err(format!("unknown key {token:?}"));
        }
        // ctrl-H is ctrl-h: terminals cannot tell them apart.
        if ctrl {
            c.to_ascii_lowercase().to_string()
        } else {
            c.to_string()
        }
    } else if NAMED.contains(&rest)
        || rest
            .strip_prefix('f')
            .and_then(|n| n.parse::<u8>().ok())
            .is_some_and(|n| (1..=12).contains(&n))
    {
        rest.to_owned()
    } else {
        return Err(format!("unknown key {token:?}"));
    };
    Ok(format!(
        "{}{}{name}",
        if ctrl { "ctrl-" } else { "" },
        if alt { "alt-" } else { "" }
    ))
}

/// Canonicalises a whole chord string (`"ctrl-w h"`) into its tokens.
pub fn canonical_chord(chord: &str) -> Result<Vec<String>, String> {
    let tokens: Vec<&str> = chord.split_whitespace().collect();
    if tokens.is_empty() {
        return Err("empty key".to_owned());
    }
    tokens.into_iter().map(canonical_token).collect()
}

/// The canonical token of a key press; `None` for keys we do not name (media keys…).
pub fn token_of(key: &KeyEvent) -> Option<String> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let name = match key.code {
        KeyCode::Char(' ') => "space".to_owned(),
        KeyCode::Char(c) if ctrl => c.to_ascii_lowercase().to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "enter".into(),
        KeyCode::Esc => "esc".into(),
        KeyCode::Tab => "tab".into(),
        KeyCode::BackTab => "backtab".into(),
        KeyCode::Backspace => "backspace".into(),
        KeyCode::Up => "up".into(),
        KeyCode::Down => "down".into(),
        KeyCode::Left => "left".into(),
        KeyCode::Right => "right".into(),
        KeyCode::Home => "home".into(),
        KeyCode::End => "end".into(),
        KeyCode::PageUp => "pageup".into(),
        KeyCode::PageDown => "pagedown".into(),
        KeyCode::Delete => "delete".into(),
        KeyCode::Insert => "insert".into(),
        KeyCode::F(n) if (1..=12).contains(&n) => format!("f{n}"),
        _ => return None,
    };
    Some(format!(
        "{}{}{name}",
        if ctrl { "ctrl-" } else { "" },
        if alt { "alt-" } else { "" }
    ))
}

/// The key event a canonical token stands for (the inverse of [`token_of`], for the test DSL
/// and for replaying held chord keys).
pub fn event_of(token: &str) -> Option<KeyEvent> {
    let canonical = canonical_token(token).ok()?;
    let mut rest = canonical.as_str();
    let mut mods = KeyModifiers::NONE;
    if let Some(r) = rest.strip_prefix("ctrl-").filter(|r| !r.is_empty()) {
        mods |= KeyModifiers::CONTROL;
        rest = r;
    }
    if let Some(r) = rest.strip_prefix("alt-").filter(|r| !r.is_empty()) {
        mods |= KeyModifiers::ALT;
        rest = r;
    }
    let code = match rest {
        "enter" => KeyCode::Enter,
        "esc" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "backspace" => KeyCode::Backspace,
        "space" => KeyCode::Char(' '),
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" => KeyCode::PageUp,
        "pagedown" => KeyCode::PageDown,
        "delete" => KeyCode::Delete,
        "insert" => KeyCode::Insert,
        r if r.len() > 1 && r.starts_with('f') => KeyCode::F(r[1..].parse().ok()?),
        r => {
            let c = r.chars().next()?;
            if c.is_ascii_uppercase() {
                mods |= KeyModifiers::SHIFT;
            }
            KeyCode::Char(c)
        }
    };
    Some(KeyEvent::new(code, mods))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_canonicalise_or_say_why_not() {
        for (input, want) in [
            ("a", Ok("a")),
            ("H", Ok("H")),
            ("%", Ok("%")),
            ("-", Ok("-")),
            ("ctrl-a", Ok("ctrl-a")),
            ("ctrl-A", Ok("ctrl-a")),
            ("alt-ctrl-x", Ok("ctrl-alt-x")),
            ("shift-tab", Ok("backtab")),
            ("f12", Ok("f12")),
            ("pageup", Ok("pageup")),
            ("<leader>", Ok("<leader>")),
            ("mouse:click(pane)", Ok("mouse:click(pane)")),
            ("mouse:drag(split-divider)", Ok("mouse:drag(split-divider)")),
            ("ctrl-glorb", Err("unknown key")),
            ("f13", Err("unknown key")),
            ("shift-h", Err("write \"shift-h\" as \"H\"")),
            ("mouse:click(moon)", Err("unknown mouse region")),
            ("mouse:squeeze(pane)", Err("unknown mouse gesture")),
            ("mouse:click", Err("bad mouse gesture")),
        ] {
            match (canonical_token(input), want) {
                (Ok(got), Ok(w)) => assert_eq!(got, w, "{input}"),
                (Err(got), Err(w)) => assert!(got.contains(w), "{input}: {got}"),
                (got, w) => panic!("{input}: got {got:?}, want {w:?}"),
            }
        }
    }

    #[test]
    fn chords_split_on_spaces() {
        assert_eq!(
            canonical_chord("ctrl-w  h"),
            Ok(vec!["ctrl-w".into(), "h".into()])
        );
        assert!(canonical_chord("   ").is_err());
    }

    #[test]
    fn events_and_tokens_are_inverse() {
        for token in [
            "a",
            "H",
            "ctrl-a",
            "ctrl-alt-x",
            "enter",
            "backtab",
            "f5",
            "%",
            "space",
        ] {
            let event = event_of(token).expect(token);
            assert_eq!(token_of(&event).as_deref(), Some(token));
        }
    }
}
