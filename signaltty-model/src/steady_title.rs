//! The title a pane keeps from its program's OSC 0/2: the program's title without a leading
//! animation frame. Agents' TUIs animate their titles — Codex puts a braille spinner in front
//! while it works and blinks `[ ! ]`/`[ . ]` in front of "Action Required" while it waits on
//! the user, Claude Code cycles `✶ ✻ ✽ ✢ ·` — and every frame would otherwise be a title change:
//! a `pane_updated` event, a save, a redraw in every client, once a second or faster, for as
//! long as the agent works or waits. The frame carries nothing the pane's own state does not.

/// Glyphs agents' spinners use, besides the braille patterns (U+2800–U+28FF).
const SPINNER_GLYPHS: &[char] = &[
    '✳', '✶', '✻', '✽', '✢', '·', '*', '◐', '◓', '◑', '◒', '●', '○',
];

/// `title` without a leading animation frame: one spinner glyph, or a bracketed one-character
/// marker such as `[ ! ]`, followed by a space. Anything else is returned as it is.
pub fn steady_title(title: &str) -> &str {
    let rest = strip_marker(title).or_else(|| strip_glyph(title));
    match rest {
        Some(rest) if !rest.trim().is_empty() => rest.trim_start(),
        _ => title,
    }
}

/// `[ x ] rest` or `[x] rest` → `rest`.
fn strip_marker(title: &str) -> Option<&str> {
    let inner_end = title.strip_prefix('[')?.find(']')? + 1;
    let inner = title[1..inner_end].trim();
    (inner.chars().count() == 1).then_some(())?;
    title[inner_end + 1..].strip_prefix(' ')
}

/// `⠋ rest` → `rest`.
fn strip_glyph(title: &str) -> Option<&str> {
    let first = title.chars().next()?;
    let is_frame = ('\u{2800}'..='\u{28FF}').contains(&first) || SPINNER_GLYPHS.contains(&first);
    is_frame.then_some(())?;
    title[first.len_utf8()..].strip_prefix(' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn animation_frames_are_dropped() {
        // Codex, blinking while it waits on the user.
        assert_eq!(
            steady_title("[ ! ] Action Required | fix it | proj"),
            "Action Required | fix it | proj"
        );
        assert_eq!(
            steady_title("[ . ] Action Required | fix it | proj"),
            "Action Required | fix it | proj"
        );
        // Codex's spinner while it works; Claude Code's glyphs.
        assert_eq!(steady_title("⠋ fix it | proj"), "fix it | proj");
        assert_eq!(steady_title("⠙ fix it | proj"), "fix it | proj");
        assert_eq!(steady_title("✳ Claude Code"), "Claude Code");
        assert_eq!(steady_title("✶ Claude Code"), "Claude Code");
    }

    #[test]
    fn ordinary_titles_are_kept() {
        for title in [
            "vim README.md",
            "user@host: ~/src",
            "[main] build",
            "[ab] x",
            "·",
            "⠋",
            "[ ! ]",
            "* ",
            "",
        ] {
            assert_eq!(steady_title(title), title, "{title:?}");
        }
    }
}
