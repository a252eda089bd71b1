//! The bridge's first line: `signaltty-bridge <crate version> <protocol>\n`. The protocol
//! number changes only when the bytes after the line change meaning; the crate version is
//! there for the error message (a user fixes a mismatch by installing a version, not a number).

use crate::LinkError;

/// The bridge protocol this build speaks: the line, then HTTP/2 (gRPC) both ways.
pub const BRIDGE_PROTOCOL: u32 = 1;

/// The word the line starts with.
const MAGIC: &str = "signaltty-bridge";

/// The line the bridge prints before the first byte of the connection, newline included.
pub fn handshake_line() -> String {
    format!("{MAGIC} {} {BRIDGE_PROTOCOL}\n", env!("CARGO_PKG_VERSION"))
}

/// Checks the line the remote bridge printed (without its newline). `remote` names the remote
/// in the error.
pub fn check_handshake(remote: &str, line: &str) -> Result<(), LinkError> {
    let mut words = line.split_whitespace();
    let (magic, version, protocol) = (words.next(), words.next(), words.next());
    let local = env!("CARGO_PKG_VERSION");
    let Some((MAGIC, version, protocol)) = magic
        .zip(version)
        .zip(protocol)
        .map(|((m, v), p)| (m, v, p))
    else {
        return Err(LinkError {
            remote: remote.to_owned(),
            reason: "BRIDGE_HANDSHAKE",
            message: format!(
                "the remote did not answer as a signaltty bridge (first line {:?}): is the \
                 remote command a signaltty {local} binary? (`signaltty remote add … --command PATH`)",
                truncate(line)
            ),
        });
    };
    if protocol.parse::<u32>() != Ok(BRIDGE_PROTOCOL) {
        return Err(LinkError {
            remote: remote.to_owned(),
            reason: "BRIDGE_VERSION",
            message: format!(
                "signaltty on {remote} is version {version} (bridge protocol {protocol}), this one \
                 is {local} (protocol {BRIDGE_PROTOCOL}): install signaltty {local} on {remote}"
            ),
        });
    }
    Ok(())
}

fn truncate(line: &str) -> String {
    line.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_own_line_passes() {
        let line = handshake_line();
        check_handshake("gpu", line.trim_end()).expect("same build");
    }

    #[test]
    fn another_protocol_names_both_versions() {
        let err = check_handshake("gpu", "signaltty-bridge 0.0.9 0").expect_err("old");
        let text = err.to_string();
        assert!(text.contains("0.0.9"), "{text}");
        assert!(text.contains(env!("CARGO_PKG_VERSION")), "{text}");
        assert_eq!(err.reason, "BRIDGE_VERSION");
    }

    #[test]
    fn something_else_is_not_a_bridge() {
        let err = check_handshake("gpu", "Welcome to Ubuntu").expect_err("motd");
        assert_eq!(err.reason, "BRIDGE_HANDSHAKE");
    }
}
