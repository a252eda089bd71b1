//! The OpenCode plugin follows the OpenCode the server finds (issue 29, point 15): the real
//! server process, with a stand-in `opencode` first on its PATH that reports a version, installs
//! through InstallHooks. OpenCode 2 loads every `.js` file in `plugins/` and fails on an
//! OpenCode 1 plugin there, so after an upgrade the V1 file must go, and a version that cannot be
//! told gets only the V2 plugin (OpenCode 1 never looks into its directory), with a notice.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use server_process::Root;
use signaltty_proto::v1 as pb;

async fn install(server: &server_process::RealServer, home: &std::path::Path) -> pb::HookReport {
    let mut reports = server
        .agents()
        .install_hooks(pb::InstallHooksRequest {
            agents: vec![pb::AgentKind::Opencode as i32],
            home: home.display().to_string(),
            uninstall: false,
        })
        .await
        .unwrap()
        .into_inner()
        .reports;
    assert_eq!(reports.len(), 1);
    reports.remove(0)
}

#[tokio::test]
async fn the_plugin_follows_the_opencode_version() {
    let root = Root::new();
    let home = root.path().join("home");
    let plugins = home.join(".config/opencode/plugins");
    let v1 = plugins.join("signaltty.js");
    let v2 = plugins.join("signaltty/tui.js");
    let server = root.start().await;

    root.script("opencode", "#!/bin/sh\necho 1.18.30\n");
    let r = install(&server, &home).await;
    assert!(r.changed && r.error.is_empty(), "{r:?}");
    assert_eq!(r.notice, "");
    assert!(
        v1.exists() && !v2.exists(),
        "OpenCode 1: the V1 plugin only"
    );

    // Upgraded to OpenCode 2: the V1 file would break it.
    root.script("opencode", "#!/bin/sh\necho opencode v2.0.1\n");
    let r = install(&server, &home).await;
    assert!(r.changed && r.error.is_empty(), "{r:?}");
    assert_eq!(r.state, pb::HookState::Installed as i32);
    assert!(!v1.exists(), "the V1 plugin is gone");
    assert!(v2.exists());

    // The version cannot be told: V2 only, and the user is told; nothing left to change now.
    root.script("opencode", "#!/bin/sh\nexit 1\n");
    let r = install(&server, &home).await;
    assert!(!r.changed && r.error.is_empty(), "{r:?}");
    assert!(!v1.exists() && v2.exists());
    std::fs::remove_dir_all(plugins.join("signaltty")).unwrap();
    let r = install(&server, &home).await;
    assert!(r.changed, "{r:?}");
    assert!(
        r.notice.contains("could not tell the OpenCode version"),
        "{r:?}"
    );
    assert!(!v1.exists() && v2.exists());
    server.kill();
}
