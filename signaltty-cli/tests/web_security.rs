//! The web front's defences, end to end: the real `signaltty web` and server, raw HTTP
//! requests (each test picks its own `Host`, `Origin` and cookie), and the real CLI for the
//! tokens. See docs/security.md, "The web client".

mod common;
mod web;

use std::io::Read as _;

use common::TestEnv;
use signaltty_proto::v1 as pb;
use web::{Web, grpc_web, listens, request};

fn server_pid(env: &TestEnv) -> u32 {
    env.json(&["server", "status"])["pid"]
        .as_u64()
        .expect("server pid") as u32
}

#[test]
fn nothing_listens_before_signaltty_web_runs() {
    let env = TestEnv::new();
    env.workspace("quiet");
    let pid = server_pid(&env);
    assert!(!listens(pid), "the server listens on a TCP port of its own");
    let web = Web::start(&env, &[]);
    assert!(
        listens(web.child.id()),
        "the check sees the listener of `signaltty web` itself"
    );
    assert!(!listens(pid), "the server still listens on no TCP port");
    assert!(
        web.addr.ip().is_loopback(),
        "the default is loopback: {}",
        web.addr
    );
}

#[test]
fn no_wrong_or_revoked_token_host_or_origin_gets_in() {
    let env = TestEnv::new();
    env.workspace("guarded");
    let web = Web::start(&env, &[]);
    let host = web.host();
    let list = pb::ListWorkspacesRequest::default();

    // The right token works, as a cookie and through the URL exchange.
    let ok = grpc_web(
        &web,
        "WorkspaceService/ListWorkspaces",
        Some(&web.token),
        &list,
    );
    assert_eq!(
        (ok.status, ok.grpc_status().as_deref()),
        (200, Some("0")),
        "{ok:?}"
    );
    let exchange = request(
        web.addr,
        "GET",
        &format!("/?token={}", web.token),
        &[("Host", &host)],
        b"",
    );
    assert_eq!(exchange.status, 303);
    let cookie = exchange.header("set-cookie").expect("a cookie");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );

    // No cookie, a wrong token: 401, for the API and the page alike.
    for token in [None, Some("0".repeat(64).as_str())] {
        let refused = grpc_web(&web, "WorkspaceService/ListWorkspaces", token, &list);
        assert_eq!(refused.status, 401, "{refused:?}");
        assert!(
            refused.text().contains("open the URL"),
            "{}",
            refused.text()
        );
    }
    let page = request(web.addr, "GET", "/", &[("Host", &host)], b"");
    assert_eq!(page.status, 401);
    let bad_exchange = request(web.addr, "GET", "/?token=nope", &[("Host", &host)], b"");
    assert_eq!(bad_exchange.status, 401);
    assert!(bad_exchange.header("set-cookie").is_none());

    // Wrong Host (DNS rebinding), even with the right token: 421.
    let cookie = format!("signaltty_token={}", web.token);
    let port = web.addr.port();
    let rebound = format!("evil.example:{port}");
    let wrong_host = request(
        web.addr,
        "GET",
        "/session",
        &[("Host", &rebound), ("Cookie", &cookie)],
        b"",
    );
    assert_eq!(wrong_host.status, 421, "{wrong_host:?}");
    let exchange_elsewhere = request(
        web.addr,
        "GET",
        &format!("/?token={}", web.token),
        &[("Host", &rebound)],
        b"",
    );
    assert_eq!(exchange_elsewhere.status, 421);

    // Cross-origin (CSRF), even with the right token: 403.
    for (name, value) in [
        ("Origin", "http://evil.example"),
        ("Sec-Fetch-Site", "cross-site"),
    ] {
        let cross = request(
            web.addr,
            "POST",
            "/signaltty.v1.WorkspaceService/ListWorkspaces",
            &[
                ("Host", &host),
                ("Cookie", &cookie),
                (name, value),
                ("Content-Type", "application/grpc-web+proto"),
            ],
            &web::frame(&list),
        );
        assert_eq!(cross.status, 403, "{name}: {cross:?}");
    }

    // Revoked with the CLI: refused from the next request on, without restarting `web`, and
    // an event stream opened before ends.
    let mut events = web::send(
        web.addr,
        "POST",
        "/signaltty.v1.EventService/Subscribe",
        &[
            ("Host", &host),
            ("Cookie", &cookie),
            ("Content-Type", "application/grpc-web+proto"),
        ],
        &web::frame(&pb::SubscribeRequest::default()),
    );
    let (status, head) = web::read_head_and_some(&mut events, 0);
    assert_eq!(status, 200, "{head}");
    env.ok(&["web", "token", "revoke", &web.token_id]);
    let mut rest = Vec::new();
    events
        .read_to_end(&mut rest)
        .expect("the event stream ends after the revocation (not a 30 s read timeout)");
    let revoked = grpc_web(
        &web,
        "WorkspaceService/ListWorkspaces",
        Some(&web.token),
        &list,
    );
    assert_eq!(revoked.status, 401, "{revoked:?}");
    // Rotate: the old secret stops, the new one works.
    let made = env.json(&["web", "token", "new"]);
    let rotated = env.json(&["web", "token", "rotate", made["id"].as_str().expect("id")]);
    let old = grpc_web(
        &web,
        "WorkspaceService/ListWorkspaces",
        made["token"].as_str(),
        &list,
    );
    assert_eq!(old.status, 401);
    let new = grpc_web(
        &web,
        "WorkspaceService/ListWorkspaces",
        rotated["token"].as_str(),
        &list,
    );
    assert_eq!(new.status, 200);
    let listed = env.json(&["web", "token", "list"]);
    assert!(
        !listed
            .to_string()
            .contains(rotated["token"].as_str().expect("token")),
        "list never shows a secret"
    );
}

#[test]
fn a_read_only_token_cannot_answer_or_type_and_tokens_stay_out_of_the_log() {
    let env = TestEnv::new();
    let ws = env.workspace("watch");
    let pane = env.json(&[
        "pane",
        "spawn",
        &ws,
        "--",
        "sh",
        "-c",
        "echo ready; exec cat",
    ])["pane"]["id"]
        .as_str()
        .expect("pane")
        .to_string();
    let web = Web::start(&env, &["--read-only"]);
    let ro = Some(web.token.as_str());

    let answer = pb::AnswerDecisionRequest {
        pane_id: pane.clone(),
        decision_id: "dec_x".into(),
        option_id: "once".into(),
        message: String::new(),
    };
    let write = pb::WriteInputRequest {
        pane_id: pane.clone(),
        data: b"typed-by-web\n".to_vec(),
        timeout_ms: 0,
    };
    for (method, refused) in [
        (
            "DecisionService/AnswerDecision",
            grpc_web(&web, "DecisionService/AnswerDecision", ro, &answer),
        ),
        (
            "PaneService/WriteInput",
            grpc_web(&web, "PaneService/WriteInput", ro, &write),
        ),
    ] {
        assert_eq!(
            refused.grpc_status().as_deref(),
            Some("7"),
            "{method}: {refused:?}"
        );
        let message = refused.header("grpc-message").unwrap_or_default();
        assert!(message.contains("read-only"), "{method}: {message}");
    }
    // Reads work with it.
    let decisions = grpc_web(
        &web,
        "DecisionService/ListPendingDecisions",
        ro,
        &pb::ListPendingDecisionsRequest::default(),
    );
    assert_eq!(
        decisions.grpc_status().as_deref(),
        Some("0"),
        "{decisions:?}"
    );

    // Attach: a typing Start is refused, a read-only one streams the screen.
    let start = |read_only| pb::AttachRequest {
        kind: Some(pb::attach_request::Kind::Start(pb::attach_request::Start {
            pane_id: pane.clone(),
            cols: 80,
            rows: 24,
            mark_seen: false,
            read_only,
        })),
    };
    let typing = grpc_web(&web, "PaneService/Attach", ro, &start(false));
    assert_eq!(typing.grpc_status().as_deref(), Some("7"), "{typing:?}");
    let host = web.host();
    let cookie = format!("signaltty_token={}", web.token);
    let mut watching = web::send(
        web.addr,
        "POST",
        "/signaltty.v1.PaneService/Attach",
        &[
            ("Host", &host),
            ("Cookie", &cookie),
            ("Content-Type", "application/grpc-web+proto"),
        ],
        &web::frame(&start(true)),
    );
    let (status, head) = web::read_head_and_some(&mut watching, 8);
    assert_eq!(status, 200, "{head}");
    assert!(!head.to_ascii_lowercase().contains("grpc-status"), "{head}");
    drop(watching);

    // Nothing typed reached the pane.
    let screen = env.ok(&["pane", "read", &pane]);
    assert!(!screen.contains("typed-by-web"), "{screen}");

    // The token is in no file the server writes (its log, snapshot, tails).
    env.ok(&["server", "stop", "--force"]);
    let mut seen_log = false;
    for entry in walk(&env.state) {
        if entry.ends_with("web-tokens.json") {
            continue;
        }
        seen_log |= entry.ends_with("server.log");
        let mut bytes = Vec::new();
        std::fs::File::open(&entry)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .expect("read");
        assert!(
            !String::from_utf8_lossy(&bytes).contains(&web.token),
            "the token is in {}",
            entry.display()
        );
    }
    assert!(seen_log, "the server's log was checked");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
