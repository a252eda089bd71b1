//! What a client says ([`Request`]), encoded and parsed.

use super::{Message, VERSION, hex_bytes, hex_line};

/// A line from the client. The first three open a connection; the rest belong to one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Take my terminal (descriptors: its input, its output) and show the pane on it.
    HandOff(HandOff),
    /// Give me the pane's input (answered with its PTY master). Pane ids have no spaces.
    Input {
        /// The pane.
        pane: String,
    },
    /// Paint the pane into my terminal at `rect` (descriptors: the terminal, and its input to
    /// be lent keys later).
    Paint {
        /// The pane.
        pane: String,
        /// Where, of at least one cell.
        rect: Rect,
    },
    /// Hand-off: the terminal is in raw mode, start.
    Go,
    /// Hand-off: the terminal changed size (the server reads it).
    Resize,
    /// Hand-off: give the terminal back. Paint: end the grant (answered `stopped`).
    Stop,
    /// Paint: the rectangle was redrawn, paint again.
    Resume,
    /// Paint: read my keys, never taking these characters (at most [`super::MAX_BYTES`] in UTF-8).
    Lend {
        /// The characters the client's bindings use.
        excluded: String,
    },
    /// Paint: stop reading my keys (answered by `back`).
    Release,
}

/// A hand-off's request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandOff {
    /// The pane's id (resolved by the client; may not parse as one: the server says so).
    pub pane: String,
    /// Watch only.
    pub read_only: bool,
    /// Clear the pane's attention on attach.
    pub mark_seen: bool,
    /// The byte that detaches.
    pub detach_key: u8,
}

/// Where the pane's content is on the client's terminal, in cells (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// Column of the top-left cell.
    pub col: u16,
    /// Row of the top-left cell.
    pub row: u16,
    /// Width.
    pub cols: u16,
    /// Height.
    pub rows: u16,
}

impl Message for Request {
    fn encode(&self) -> Vec<u8> {
        let line = match self {
            Request::HandOff(h) => format!(
                "attach {VERSION} {} {} {} {}",
                h.detach_key,
                u8::from(h.read_only),
                u8::from(h.mark_seen),
                h.pane
            ),
            Request::Input { pane } => format!("input {VERSION} {pane}"),
            Request::Paint { pane, rect } => format!(
                "paint {VERSION} {pane} {} {} {} {}",
                rect.col, rect.row, rect.cols, rect.rows
            ),
            Request::Go => "go".into(),
            Request::Resize => "resize".into(),
            Request::Stop => "stop".into(),
            Request::Resume => "resume".into(),
            Request::Lend { excluded } => return hex_line("lend", excluded.as_bytes()),
            Request::Release => "release".into(),
        };
        (line + "\n").into_bytes()
    }

    fn parse(line: &str) -> Result<Request, String> {
        let (word, rest) = match line.split_once(' ') {
            Some((word, rest)) => (word, Some(rest)),
            None => (line, None),
        };
        let alone = |request: Request| match rest {
            None => Ok(request),
            Some(_) => Err(format!("`{word}` takes nothing after it")),
        };
        match word {
            "attach" => hand_off(rest.unwrap_or_default()).map(Request::HandOff),
            "input" => input(rest.unwrap_or_default()),
            "paint" => paint(rest.unwrap_or_default()),
            "go" => alone(Request::Go),
            "resize" => alone(Request::Resize),
            "stop" => alone(Request::Stop),
            "resume" => alone(Request::Resume),
            "release" => alone(Request::Release),
            "lend" => String::from_utf8(hex_bytes(word, rest)?)
                .map(|excluded| Request::Lend { excluded })
                .map_err(|_| "`lend` lists characters in UTF-8".to_string()),
            _ => Err(format!(
                "unknown request `{word}`: a connection opens with `attach`, `input` or `paint`"
            )),
        }
    }
}

/// The words after an opening verb, its version checked first.
fn versioned(rest: &str, at_most: usize) -> Result<Vec<&str>, String> {
    let mut words = rest.splitn(at_most + 1, ' ');
    let version = words
        .next()
        .filter(|v| !v.is_empty())
        .ok_or("missing version")?;
    if version != VERSION.to_string() {
        return Err(format!("protocol version {version} is not {VERSION}"));
    }
    Ok(words.collect())
}

fn hand_off(rest: &str) -> Result<HandOff, String> {
    let words = versioned(rest, 4)?;
    let [key, read_only, mark_seen, pane] = words[..] else {
        return Err("expected `attach 1 <detach key> <read-only> <mark-seen> <pane>`".into());
    };
    let flag = |word: &str| match word {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!("`{word}` is not 0 or 1")),
    };
    if pane.is_empty() {
        return Err("missing pane".into());
    }
    Ok(HandOff {
        pane: pane.to_owned(),
        read_only: flag(read_only)?,
        mark_seen: flag(mark_seen)?,
        detach_key: key
            .parse()
            .map_err(|_| "the detach key must be a byte".to_string())?,
    })
}

fn input(rest: &str) -> Result<Request, String> {
    match versioned(rest, 2)?[..] {
        [pane] if !pane.is_empty() => Ok(Request::Input {
            pane: pane.to_owned(),
        }),
        _ => Err("missing pane (expected `input 1 <pane>`)".into()),
    }
}

fn paint(rest: &str) -> Result<Request, String> {
    let words = versioned(rest, usize::MAX - 1)?;
    let [pane, col, row, cols, rows] = words[..] else {
        return Err("expected `paint 1 <pane> <col> <row> <cols> <rows>`".into());
    };
    if pane.is_empty() {
        return Err("missing pane".into());
    }
    let number = |what: &str, word: &str| {
        word.parse::<u16>()
            .map_err(|_| format!("{what} `{word}` is not a number of cells (0–65535)"))
    };
    let rect = Rect {
        col: number("col", col)?,
        row: number("row", row)?,
        cols: number("cols", cols)?,
        rows: number("rows", rows)?,
    };
    if rect.cols == 0 || rect.rows == 0 {
        return Err("the rectangle must be at least 1×1".into());
    }
    Ok(Request::Paint {
        pane: pane.to_owned(),
        rect,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let says = |line: &str, what: &str| {
            let why = Request::parse(line).expect_err(line);
            assert!(why.contains(what), "{line:?}: {why:?} should say {what:?}");
        };
        says("attach 2 28 0 1 p", "version");
        says("attach 1 300 0 1 p", "byte");
        says("attach 1 28 0 2 p", "0 or 1");
        says("attach 1 28 0 1", "expected");
        says("attach", "version");
        says("input 2 p", "version");
        says("input 1", "missing pane");
        says("input 1 ", "missing pane");
        says("input 1 a b", "missing pane");
        says("paint 2 p 0 0 1 1", "version");
        says("paint 1 p 0 0 1", "expected");
        says("paint 1 p 0 0 1 1 9", "expected");
        says("paint 1  0 0 1 1", "missing pane");
        says("paint 1 p x 0 1 1", "col");
        says("paint 1 p 0 0 70000 1", "cols");
        says("paint 1 p 0 0 -1 1", "cols");
        says("paint 1 p 0 0 0 5", "1×1");
        says("lend 1", "pairs");
        says("lend zz", "hex");
        says("lend c3", "UTF-8");
        says("lendx", "unknown");
        says(
            &format!("lend {}", "00".repeat(super::super::MAX_BYTES + 1)),
            "at most",
        );
        says("go now", "nothing after");
        says("detach 1 28 0 1 p", "unknown request");
        says("", "unknown request");
    }
}
