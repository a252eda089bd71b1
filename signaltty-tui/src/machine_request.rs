//! A request addressed to a machine: the local server forwards a call carrying the
//! `signaltty-machine` metadata to that remote's server. A leaf module, so the catalog feed and
//! `machines` both use it without importing each other.

/// The metadata that sends a call to another machine through the local server.
pub const METADATA: &str = "signaltty-machine";

/// `msg` as a request for `machine` (`None`: the local server's own).
pub fn on<T>(machine: Option<&str>, msg: T) -> tonic::Request<T> {
    let mut req = tonic::Request::new(msg);
    if let Some(value) = machine.and_then(|m| m.parse().ok()) {
        req.metadata_mut().insert(METADATA, value);
    }
    req
}
