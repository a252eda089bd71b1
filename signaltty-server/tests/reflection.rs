//! gRPC server reflection over the real socket: v1 and v1alpha list every service and describe
//! them with their `.proto` comments. Reflection is built on its first call (`rpc/reflection.rs`),
//! so these calls are also what builds it; two clients asking at once share one build.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod clients;
mod common;

use common::{TestServer, WAIT};
use tonic_reflection::pb::v1 as r1;
use tonic_reflection::pb::v1alpha as r1a;

const SERVICES: [&str; 9] = [
    "signaltty.v1.AgentService",
    "signaltty.v1.DecisionService",
    "signaltty.v1.EventService",
    "signaltty.v1.GitService",
    "signaltty.v1.NotificationService",
    "signaltty.v1.PaneService",
    "signaltty.v1.ServerService",
    "signaltty.v1.TabService",
    "signaltty.v1.WorkspaceService",
];

/// The first message of a reflection stream (v1 or v1alpha), in time.
async fn first_reply<T>(
    call: impl std::future::Future<Output = Result<tonic::Response<tonic::Streaming<T>>, tonic::Status>>,
) -> T {
    let mut replies = tokio::time::timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("reflection answers")
        .into_inner();
    tokio::time::timeout(WAIT, replies.message())
        .await
        .expect("in time")
        .expect("a reply")
        .expect("not the end")
}

fn lists_every_service(listed: Vec<String>) {
    for service in SERVICES {
        assert!(
            listed.iter().any(|s| s == service),
            "{service} in {listed:?}"
        );
    }
}

async fn ask_v1(
    server: &TestServer,
    request: r1::server_reflection_request::MessageRequest,
) -> r1::server_reflection_response::MessageResponse {
    let mut client =
        r1::server_reflection_client::ServerReflectionClient::new(server.channel.clone());
    let request = r1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(request),
    };
    let reply = first_reply(client.server_reflection_info(tokio_stream::once(request))).await;
    reply.message_response.expect("a response")
}

fn listed_v1(reply: r1::server_reflection_response::MessageResponse) -> Vec<String> {
    let r1::server_reflection_response::MessageResponse::ListServicesResponse(list) = reply else {
        panic!("not a service list: {reply:?}");
    };
    list.service.into_iter().map(|s| s.name).collect()
}

#[tokio::test]
async fn reflection_v1_lists_every_service_and_describes_it_with_its_comments() {
    let server = TestServer::start().await;
    // Two first calls at once: both wait for the one build.
    let (a, b) = tokio::join!(
        ask_v1(
            &server,
            r1::server_reflection_request::MessageRequest::ListServices(String::new())
        ),
        ask_v1(
            &server,
            r1::server_reflection_request::MessageRequest::ListServices(String::new())
        ),
    );
    for listed in [listed_v1(a), listed_v1(b)] {
        lists_every_service(listed);
    }
    let reply = ask_v1(
        &server,
        r1::server_reflection_request::MessageRequest::FileContainingSymbol(
            "signaltty.v1.PaneService".into(),
        ),
    )
    .await;
    let r1::server_reflection_response::MessageResponse::FileDescriptorResponse(files) = reply
    else {
        panic!("not a file descriptor: {reply:?}");
    };
    let file: prost_types::FileDescriptorProto =
        prost::Message::decode(files.file_descriptor_proto[0].as_slice()).expect("a descriptor");
    assert!(
        file.service.iter().any(|s| s.name() == "PaneService"),
        "{:?}",
        file.name
    );
    // The comments (the API reference) travel with it.
    let commented = file
        .source_code_info
        .iter()
        .flat_map(|info| &info.location)
        .filter(|l| {
            l.leading_comments
                .as_deref()
                .is_some_and(|c| !c.trim().is_empty())
        })
        .count();
    assert!(commented > 10, "{commented} commented locations");
}

#[tokio::test]
async fn reflection_v1alpha_lists_every_service() {
    let server = TestServer::start().await;
    let mut client =
        r1a::server_reflection_client::ServerReflectionClient::new(server.channel.clone());
    let request = r1a::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            r1a::server_reflection_request::MessageRequest::ListServices(String::new()),
        ),
    };
    let reply = first_reply(client.server_reflection_info(tokio_stream::once(request))).await;
    let Some(r1a::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        reply.message_response
    else {
        panic!("not a service list: {:?}", reply.message_response);
    };
    lists_every_service(list.service.into_iter().map(|s| s.name).collect());
}
