//! Reaching the server (starting it when nobody answers). Temporary: this borrows the CLI's
//! connect-with-auto-start until `signaltty-client` has its own; then only this file changes.

use std::path::Path;

use signaltty_cli::connect::{self, AutoStart, Target};
use tonic::transport::Channel;

/// Where the server is (its socket and the state directory a started server gets).
pub fn target(socket: Option<&Path>) -> Target {
    Target::resolve(socket)
}

/// A channel to the server, starting one first when none answers.
pub async fn connect(target: &Target) -> Result<Channel, String> {
    connect::connect(target, AutoStart::Yes)
        .await
        .map_err(|err| err.to_string())
}
