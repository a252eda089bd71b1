//! Where command results go: stdout, either as human text or (with `--json`) as JSON. Writes
//! return errors instead of panicking, so `signaltty events | head` ends quietly on a closed pipe.

use std::io::Write;

use serde::Serialize;

use crate::error::CliResult;

/// JSON as serde writes it escapes C0 controls but not C1 controls (U+0080–U+009F, which some
/// terminals obey as CSI or OSC) nor bidi overrides; those only occur inside strings, so writing
/// them as `\uXXXX` keeps the JSON identical in meaning and the terminal unaffected.
pub fn escape_json_controls(json: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        ('\u{80}'..='\u{9f}').contains(&c) || signaltty_term::sanitize::is_bidi_control(c)
    };
    if !json.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The output mode chosen by the global `--json` flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned tables and short sentences.
    Human,
    /// JSON on stdout.
    Json,
}

/// Writes command results to stdout.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    format: Format,
}

impl Output {
    /// An output in the given format.
    pub fn new(format: Format) -> Self {
        Output { format }
    }

    /// True with `--json`.
    pub fn is_json(&self) -> bool {
        self.format == Format::Json
    }

    /// Prints a value as pretty JSON.
    pub fn json<T: Serialize + ?Sized>(&self, value: &T) -> CliResult {
        let text = serde_json::to_string_pretty(value)?;
        self.raw_text(&format!("{}\n", escape_json_controls(&text)))
    }

    /// Prints a value as one line of JSON and flushes (for streams).
    pub fn json_line<T: Serialize + ?Sized>(&self, value: &T) -> CliResult {
        let text = serde_json::to_string(value)?;
        self.raw_text(&format!("{}\n", escape_json_controls(&text)))
    }

    /// Prints a line of text.
    pub fn line(&self, text: impl std::fmt::Display) -> CliResult {
        self.text(&format!("{text}\n"))
    }

    /// Prints human text and flushes. Whatever came from the server (names, titles, messages a
    /// program in a pane chose) is shown, never obeyed: escape sequences, control characters but
    /// `\n` and `\t`, and bidi overrides are removed first.
    pub fn text(&self, text: &str) -> CliResult {
        self.raw_text(&signaltty_term::strip(text))
    }

    /// Prints text as is and flushes: only for output whose escape sequences are the point
    /// (`pane read --ansi`) or already escaped (JSON).
    pub fn raw_text(&self, text: &str) -> CliResult {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(text.as_bytes())?;
        stdout.flush()?;
        Ok(())
    }

    /// Prints raw bytes and flushes.
    pub fn bytes(&self, data: &[u8]) -> CliResult {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(data)?;
        stdout.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_its_meaning_without_c1_or_bidi_characters() {
        let value = serde_json::json!({"title": "a\u{9b}31mb\u{202e}c\u{1b}]0;x\u{7}"});
        let text = serde_json::to_string(&value).expect("json");
        let safe = escape_json_controls(&text);
        assert!(
            !safe.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).expect("still JSON");
        assert_eq!(back, value);
    }

    #[test]
    fn human_text_loses_escapes_and_overrides_but_keeps_layout() {
        assert_eq!(
            signaltty_term::strip("id\tname\n1\t\u{1b}]0;evil\u{7}w\u{202e}x\n"),
            "id\tname\n1\twx\n"
        );
    }
}
