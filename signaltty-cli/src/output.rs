//! Where command results go: stdout, either as human text or (with `--json`) as JSON. Writes
//! return errors instead of panicking, so `signaltty events | head` ends quietly on a closed pipe.

use std::io::Write;

use serde::Serialize;

use crate::error::CliResult;

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
        self.text(&format!("{text}\n"))
    }

    /// Prints a value as one line of JSON and flushes (for streams).
    pub fn json_line<T: Serialize + ?Sized>(&self, value: &T) -> CliResult {
        let text = serde_json::to_string(value)?;
        self.text(&format!("{text}\n"))
    }

    /// Prints a line of text.
    pub fn line(&self, text: impl std::fmt::Display) -> CliResult {
        self.text(&format!("{text}\n"))
    }

    /// Prints text as is and flushes.
    pub fn text(&self, text: &str) -> CliResult {
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
