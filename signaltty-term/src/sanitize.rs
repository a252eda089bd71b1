//! Text sanitizer for everything a program can make us store or show: titles and notification
//! text from OSC sequences, and (by the callers' contract) any other program-supplied string.
//!
//! Invariant of the output: no escape sequence survives, no control character other than `\n` and
//! `\t` survives, no bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069:
//! they reorder what follows them, so a title could show text in another order than it is —
//! "Trojan Source"), no leading/trailing whitespace, and at most `max_chars` characters. The function
//! never panics, whatever the input (unterminated sequences simply run to the end of the text).

/// Cap for a pane title, in characters.
pub const TITLE_MAX_CHARS: usize = 200;
/// Cap for a notification body, in characters.
pub const BODY_MAX_CHARS: usize = 2000;

const ESC: char = '\x1b';
const BEL: char = '\x07';
/// C1 forms of the introducers, which can arrive as UTF-8 encoded code points.
const C1_CSI: char = '\u{9b}';
const C1_ST: char = '\u{9c}';

/// What the scanner is skipping at the moment.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// Copying text.
    None,
    /// Just saw ESC.
    Escape,
    /// Inside `ESC` + one intermediate (`(`, `)`, `#`, …): one more character to skip.
    EscapeIntermediate,
    /// Inside a CSI: parameters and intermediates until a final byte 0x40–0x7E.
    Csi,
    /// Inside a string (OSC, DCS, SOS, PM, APC) until BEL or ST.
    String,
    /// Inside a string and just saw ESC (which may begin ST).
    StringEscape,
}

/// Removes escape sequences and control characters (except `\n` and `\t`) from `text`, trims
/// surrounding whitespace and keeps at most `max_chars` characters.
pub fn sanitize(text: &str, max_chars: usize) -> String {
    cap_and_trim(&strip(text), max_chars)
}

/// Removes escape sequences, control characters (except `\n` and `\t`) and bidirectional
/// overrides and isolates from `text`, keeping everything else as it is (no trim, no cap): for
/// text a client prints on a terminal, such as a table or an error message.
pub fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut skip = Skip::None;
    for c in text.chars() {
        skip = match skip {
            Skip::None => match c {
                ESC => Skip::Escape,
                C1_CSI => Skip::Csi,
                // C1 DCS, SOS, OSC, PM, APC.
                '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => Skip::String,
                '\n' | '\t' => {
                    out.push(c);
                    Skip::None
                }
                c if c.is_control() || is_bidi_control(c) => Skip::None,
                c => {
                    out.push(c);
                    Skip::None
                }
            },
            Skip::Escape => match c {
                '[' => Skip::Csi,
                ']' | 'P' | 'X' | '^' | '_' => Skip::String,
                // nF sequences (`ESC ( B`, `ESC # 8`, …) carry one intermediate and a final.
                '\x20'..='\x2f' => Skip::EscapeIntermediate,
                ESC => Skip::Escape,
                _ => Skip::None,
            },
            Skip::EscapeIntermediate => Skip::None,
            Skip::Csi => match c {
                '\x40'..='\x7e' => Skip::None,
                ESC => Skip::Escape,
                // Parameters, intermediates, and anything malformed are swallowed until a final.
                _ => Skip::Csi,
            },
            Skip::String => match c {
                BEL | C1_ST => Skip::None,
                ESC => Skip::StringEscape,
                _ => Skip::String,
            },
            Skip::StringEscape => match c {
                '\\' => Skip::None,
                ESC => Skip::StringEscape,
                _ => Skip::String,
            },
        };
    }
    out
}

/// The bidirectional embeddings and overrides (LRE RLE PDF LRO RLO) and isolates (LRI RLI FSI
/// PDI). The marks (LRM, RLM, ALM) only affect neutral characters next to them and stay.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Trims whitespace, keeps the first `max_chars` characters, trims again (the cut may expose
/// trailing whitespace).
fn cap_and_trim(text: &str, max_chars: usize) -> String {
    let trimmed = text.trim();
    match trimmed.char_indices().nth(max_chars) {
        Some((cut, _)) => trimmed[..cut].trim_end().to_owned(),
        None => trimmed.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_passes_through() {
        assert_eq!(
            sanitize("Build finished: 3 warnings", 200),
            "Build finished: 3 warnings"
        );
        assert_eq!(sanitize("line one\nline\ttwo", 200), "line one\nline\ttwo");
        assert_eq!(sanitize("héllo wörld ✓ 日本", 200), "héllo wörld ✓ 日本");
    }

    #[test]
    fn bidi_overrides_and_isolates_are_removed() {
        assert_eq!(
            sanitize("build \u{202e}gnp.exe\u{202c} ok \u{2066}x\u{2069}", 200),
            "build gnp.exe ok x"
        );
        for c in ['\u{202a}', '\u{202b}', '\u{202d}', '\u{2067}', '\u{2068}'] {
            assert_eq!(sanitize(&format!("a{c}b"), 200), "ab", "{c:?}");
        }
        assert_eq!(sanitize("a\u{200e}b", 200), "a\u{200e}b", "LRM stays");
    }

    #[test]
    fn csi_sequences_are_removed() {
        assert_eq!(sanitize("\x1b[1;31mred\x1b[0m text", 200), "red text");
        assert_eq!(sanitize("a\x1b[?1049hb\x1b[2Jc", 200), "abc");
        assert_eq!(sanitize("x\u{9b}31my", 200), "xy");
    }

    #[test]
    fn osc_and_other_strings_are_removed() {
        assert_eq!(sanitize("a\x1b]0;title\x07b", 200), "ab");
        assert_eq!(
            sanitize("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", 200),
            "alinkb"
        );
        assert_eq!(sanitize("a\x1bPdcs stuff\x1b\\b", 200), "ab");
        assert_eq!(sanitize("a\x1b_apc\x1b\\b", 200), "ab");
        assert_eq!(sanitize("a\u{9d}2;t\u{9c}b", 200), "ab");
    }

    #[test]
    fn other_escapes_are_removed() {
        assert_eq!(sanitize("a\x1b(Bb", 200), "ab");
        assert_eq!(sanitize("a\x1b#8b", 200), "ab");
        assert_eq!(sanitize("a\x1b7b\x1b8c", 200), "abc");
        assert_eq!(sanitize("a\x1bcb", 200), "ab");
    }

    #[test]
    fn unterminated_sequences_and_lone_esc_do_not_leak() {
        assert_eq!(sanitize("safe\x1b", 200), "safe");
        assert_eq!(sanitize("safe\x1b[12;3", 200), "safe");
        assert_eq!(sanitize("safe\x1b]0;never ends", 200), "safe");
        assert_eq!(sanitize("safe\x1b(", 200), "safe");
    }

    #[test]
    fn control_characters_are_removed_except_newline_and_tab() {
        assert_eq!(
            sanitize("a\x07b\x08c\rd\x00e\x7ff\u{85}g\u{9c}h", 200),
            "abcdefgh"
        );
        assert_eq!(sanitize("x\ny\tz", 200), "x\ny\tz");
    }

    #[test]
    fn length_is_capped_in_characters_and_trimmed() {
        let long = "é".repeat(5000);
        let cut = sanitize(&long, TITLE_MAX_CHARS);
        assert_eq!(cut.chars().count(), TITLE_MAX_CHARS);
        assert_eq!(
            sanitize(&"b".repeat(3000), BODY_MAX_CHARS).chars().count(),
            BODY_MAX_CHARS
        );
        assert_eq!(sanitize("  padded \n", 200), "padded");
        assert_eq!(sanitize("abc   def", 4), "abc");
        assert_eq!(sanitize("", 10), "");
        assert_eq!(sanitize("\x1b[31m\x1b[0m", 10), "");
    }

    #[test]
    fn escapes_do_not_count_towards_the_cap() {
        assert_eq!(sanitize("\x1b[38;2;255;0;0mabcdef", 3), "abc");
    }

    proptest::proptest! {
        /// Whatever the input, the output holds no ESC, no control character but `\n`/`\t`,
        /// and no more than the cap.
        #[test]
        fn output_is_always_clean(text in "(\\PC|[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}]|\\x1b[\\[\\]P_(#]){0,300}", cap in 0usize..50) {
            let out = sanitize(&text, cap);
            proptest::prop_assert!(out.chars().count() <= cap);
            proptest::prop_assert!(out.chars().all(|c| c == '\n' || c == '\t' || !c.is_control()), "{:?}", out);
        }
    }
}
