//! The signaltty gRPC API v1: generated messages, clients and servers, plus what every Rust client
//! shares: [`connect`] (a tonic channel over the Unix socket), [`default_socket_path`] and
//! [`error_reason`] (the stable reason of an error status).

mod quiet_stream;
mod socket;

pub use quiet_stream::QuietStream;
pub use socket::{
    SOCKET_ENV, connect, default_socket_dir, default_socket_path, resolve_socket_path,
};

#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod v1 {
    tonic::include_proto!("signaltty.v1");
}

/// The encoded `FileDescriptorSet` of every signaltty proto, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/signaltty_descriptor.bin"));

/// The `google.rpc.ErrorInfo` domain of every signaltty error.
pub const ERROR_DOMAIN: &str = "signaltty";

/// The stable reason (e.g. `NO_SUCH_PANE`) carried in a status's `google.rpc.ErrorInfo`, if any.
pub fn error_reason(status: &tonic::Status) -> Option<String> {
    use prost::Message;
    // google.rpc.Status { code = 1, message = 2, details = 3 (Any) }; ErrorInfo { reason = 1,
    // domain = 2, metadata = 3 }. Decoded by hand to keep this crate free of tonic-types.
    let rpc_status = RpcStatus::decode(status.details()).ok()?;
    rpc_status
        .details
        .iter()
        .filter(|any| any.type_url.ends_with("google.rpc.ErrorInfo"))
        .find_map(|any| ErrorInfo::decode(any.value.as_slice()).ok())
        .map(|info| info.reason)
}

#[derive(Clone, PartialEq, prost::Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
    #[prost(message, repeated, tag = "3")]
    details: Vec<prost_types::Any>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ErrorInfo {
    #[prost(string, tag = "1")]
    reason: String,
    #[prost(string, tag = "2")]
    domain: String,
}
