//! Reaching the server through `signaltty-client` (trust checks, auto-start when nobody
//! answers).

use std::path::Path;

use signaltty_client::{AutoStart, Client, Target};

/// Where the server is (its socket and the state directory a started server gets).
pub fn target(socket: Option<&Path>) -> Target {
    Target::resolve(socket)
}

/// A client of the server, starting one first when none answers.
pub async fn connect(target: &Target) -> Result<Client, String> {
    signaltty_client::connect(target, AutoStart::Yes)
        .await
        .map_err(|err| err.to_string())
}
