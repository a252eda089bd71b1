//! The benchmark's input files, generated once per run into its temp dir: a large plain-text
//! file and a large coloured one (256-colour and 24-bit SGR, as compilers, test runners and
//! agents print) for throughput, and two 10,000-line files for scrollback. The text is
//! deterministic (a fixed-seed xorshift picks words), and no line is wider than 80 columns, so
//! nothing wraps and every system keeps the same line count.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The generated files.
#[derive(Clone, Debug)]
pub struct Corpus {
    /// Plain printable ASCII lines, `bytes` long.
    pub plain: PathBuf,
    /// Coloured lines, `bytes` long (escape sequences included).
    pub coloured: PathBuf,
    /// Size of each throughput file.
    pub bytes: u64,
    /// `line N with some padding text to make it longer`, N = 1..=history_lines.
    pub history_plain: PathBuf,
    /// The same visible text with 256-colour, 24-bit and bold/background SGR runs.
    pub history_coloured: PathBuf,
    /// Lines in each history file.
    pub history_lines: usize,
}

const WORDS: &[&str] = &[
    "cargo",
    "build",
    "error",
    "warning",
    "compiling",
    "signaltty",
    "pane",
    "terminal",
    "agent",
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "src/main.rs",
    "fn",
    "let",
    "match",
    "Ok(())",
    "tests",
    "passed",
    "failed",
    "0.42s",
    "finished",
    "release",
    "target",
    "debug",
    "info",
    "tokio",
    "42",
    "1337",
    "{",
    "}",
    "=>",
    "--",
    "#[test]",
    "assert_eq!",
    "workspace",
    "ready",
];

/// A small deterministic generator; quality does not matter, repeatability does.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

impl Corpus {
    /// Writes every file into `dir`: throughput files of about `bytes` each.
    pub fn generate(dir: &Path, bytes: u64, history_lines: usize) -> anyhow::Result<Self> {
        let corpus = Self {
            plain: dir.join("plain.txt"),
            coloured: dir.join("coloured.txt"),
            bytes,
            history_plain: dir.join("history-plain.txt"),
            history_coloured: dir.join("history-coloured.txt"),
            history_lines,
        };
        write_until(&corpus.plain, bytes, plain_line)?;
        write_until(&corpus.coloured, bytes, coloured_line)?;
        write_history(&corpus.history_plain, history_lines, false)?;
        write_history(&corpus.history_coloured, history_lines, true)?;
        Ok(Self {
            bytes: std::fs::metadata(&corpus.plain)?.len(),
            ..corpus
        })
    }

    /// Writes one plain throughput file of about `bytes` to `path` (the same text as
    /// [`Corpus::plain`], cut shorter) and returns its exact size.
    pub fn plain_file(path: &Path, bytes: u64) -> anyhow::Result<u64> {
        write_until(path, bytes, plain_line)?;
        Ok(std::fs::metadata(path)?.len())
    }
}

/// One plain line: words up to 78 columns.
fn plain_line(rng: &mut XorShift, out: &mut Vec<u8>) {
    let width = 20 + rng.below(58);
    let start = out.len();
    while out.len() - start < width {
        let word = WORDS[rng.below(WORDS.len())];
        if out.len() - start + word.len() + 1 > 78 {
            break;
        }
        out.extend_from_slice(word.as_bytes());
        out.push(b' ');
    }
    out.push(b'\n');
}

/// One coloured line: the same words, each in a 256-colour or 24-bit foreground, some bold or
/// on a background, with a reset at the end.
fn coloured_line(rng: &mut XorShift, out: &mut Vec<u8>) {
    let width = 20 + rng.below(58);
    let mut visible = 0;
    while visible < width {
        let word = WORDS[rng.below(WORDS.len())];
        if visible + word.len() + 1 > 78 {
            break;
        }
        let style = match rng.below(4) {
            0 => format!("\x1b[38;5;{}m", rng.below(256)),
            1 => format!(
                "\x1b[38;2;{};{};{}m",
                rng.below(256),
                rng.below(256),
                rng.below(256)
            ),
            2 => format!("\x1b[1;38;5;{}m", rng.below(256)),
            _ => format!(
                "\x1b[48;5;{};38;2;{};{};{}m",
                rng.below(256),
                rng.below(256),
                20,
                200
            ),
        };
        out.extend_from_slice(style.as_bytes());
        out.extend_from_slice(word.as_bytes());
        out.extend_from_slice(b"\x1b[0m ");
        visible += word.len() + 1;
    }
    out.push(b'\n');
}

fn write_until(
    path: &Path,
    bytes: u64,
    line: fn(&mut XorShift, &mut Vec<u8>),
) -> anyhow::Result<()> {
    let file = File::create(path).with_context(|| format!("create {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut rng = XorShift(0x5eed_f0be_4c4c);
    let mut buf = Vec::with_capacity(256);
    let mut written = 0u64;
    while written < bytes {
        buf.clear();
        line(&mut rng, &mut buf);
        out.write_all(&buf)?;
        written += buf.len() as u64;
    }
    out.flush()?;
    Ok(())
}

fn write_history(path: &Path, lines: usize, coloured: bool) -> anyhow::Result<()> {
    let file = File::create(path).with_context(|| format!("create {}", path.display()))?;
    let mut out = BufWriter::new(file);
    for n in 1..=lines {
        if coloured {
            writeln!(
                out,
                "\x1b[38;5;{}mline {n}\x1b[0m with \x1b[38;2;{};{};90msome padding\x1b[0m text to \
                 make it \x1b[1;48;5;{}mlonger\x1b[0m",
                n % 256,
                n % 251,
                (n * 7) % 256,
                (n * 3) % 256
            )?;
        } else {
            writeln!(out, "line {n} with some padding text to make it longer")?;
        }
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_files_of_the_asked_size_with_short_lines() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let corpus = Corpus::generate(dir.path(), 100_000, 50)?;
        assert!(
            corpus.bytes >= 100_000 && corpus.bytes < 100_200,
            "{}",
            corpus.bytes
        );
        let plain = std::fs::read_to_string(&corpus.plain)?;
        assert!(plain.lines().all(|l| l.len() <= 78 && l.is_ascii()));
        let coloured = std::fs::read(&corpus.coloured)?;
        assert!(coloured.len() >= 100_000);
        assert!(memchr::memmem::find(&coloured, b"\x1b[38;2;").is_some());
        let history = std::fs::read_to_string(&corpus.history_plain)?;
        assert_eq!(history.lines().count(), 50);
        assert_eq!(
            history.lines().last(),
            Some("line 50 with some padding text to make it longer")
        );
        Ok(())
    }
}
