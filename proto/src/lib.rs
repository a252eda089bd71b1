//! The signaltty gRPC API v1: generated messages, clients and servers, plus what every Rust client
//! shares: [`connect`] (a tonic channel over the Unix socket) and [`default_socket_path`].

#[allow(clippy::all, missing_docs)]
pub mod v1 {
    tonic::include_proto!("signaltty.v1");
}

/// The encoded `FileDescriptorSet` of every signaltty proto, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/signaltty_descriptor.bin"));
