//! What the server says ([`Reply`]), encoded and parsed.

use super::{Message, hex_bytes, hex_line, one_line};

/// A line from the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The request is taken (after `input`, with the pane's PTY master attached).
    Ready,
    /// The server will not do it, and why (one line); the connection ends.
    Refused(String),
    /// A hand-off is over.
    End(End),
    /// About a paint grant.
    Notice(Notice),
    /// Lent keys: the server stopped reading, and these bytes (read, not written to the pane)
    /// come first in what the client reads next.
    Back(Vec<u8>),
}

/// How a hand-off ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// The detach key, `stop`, or the client hung up.
    Detached,
    /// The pane's process exited with this code; the terminal shows its final screen.
    Exited(i32),
    /// The pane was closed.
    Closed,
    /// The server is shutting down.
    Shutdown,
    /// The terminal could not be written or read.
    Failed(String),
}

/// What a paint grant's holder hears after `ready`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// A change was not painted; painting is paused until the client sends `resume`.
    Skipped,
    /// The answer to `stop`: nothing is painted after it.
    Stopped,
    /// A paint was cut short: the terminal may show part of one. The grant is over; the client
    /// redraws its whole screen.
    Damaged,
}

impl Message for Reply {
    fn encode(&self) -> Vec<u8> {
        let line = match self {
            Reply::Ready => "ready".into(),
            Reply::Refused(why) => format!("refused {}", one_line(why)),
            Reply::End(End::Detached) => "end detached".into(),
            Reply::End(End::Exited(code)) => format!("end exited {code}"),
            Reply::End(End::Closed) => "end closed".into(),
            Reply::End(End::Shutdown) => "end shutdown".into(),
            Reply::End(End::Failed(why)) => format!("end failed {}", one_line(why)),
            Reply::Notice(Notice::Skipped) => "skipped".into(),
            Reply::Notice(Notice::Stopped) => "stopped".into(),
            Reply::Notice(Notice::Damaged) => "damaged".into(),
            Reply::Back(bytes) => return hex_line("back", bytes),
        };
        (line + "\n").into_bytes()
    }

    fn parse(line: &str) -> Result<Reply, String> {
        let (word, rest) = match line.split_once(' ') {
            Some((word, rest)) => (word, Some(rest)),
            None => (line, None),
        };
        Ok(match (word, rest) {
            ("ready", None) => Reply::Ready,
            ("refused", why) => Reply::Refused(why.unwrap_or_default().to_owned()),
            ("end", Some("detached")) => Reply::End(End::Detached),
            ("end", Some("closed")) => Reply::End(End::Closed),
            ("end", Some("shutdown")) => Reply::End(End::Shutdown),
            ("end", Some(rest)) if let Some(code) = rest.strip_prefix("exited ") => {
                Reply::End(End::Exited(
                    code.parse()
                        .map_err(|_| format!("bad exit code in `{line}`"))?,
                ))
            }
            ("end", Some(rest)) if let Some(why) = rest.strip_prefix("failed ") => {
                Reply::End(End::Failed(why.to_owned()))
            }
            ("skipped", None) => Reply::Notice(Notice::Skipped),
            ("stopped", None) => Reply::Notice(Notice::Stopped),
            ("damaged", None) => Reply::Notice(Notice::Damaged),
            ("back", rest) => Reply::Back(hex_bytes(word, rest)?),
            _ => return Err(format!("unknown reply `{line}`")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_replies_say_what_is_wrong() {
        for line in [
            "end exited x",
            "end",
            "end later",
            "ready now",
            "back é",
            "back 1",
            "backward",
            "",
        ] {
            assert!(Reply::parse(line).is_err(), "{line:?}");
        }
        assert_eq!(
            Reply::parse("end failed no\rway"),
            Ok(Reply::End(End::Failed("no\rway".into())))
        );
        assert_eq!(
            Reply::End(End::Failed("no\nway".into())).encode(),
            b"end failed no way\n"
        );
    }
}
