//! The CLI refuses a socket whose directory others can write (issue 14 §2): exit 1 with a
//! message naming the directory, its mode and owner, reason UNTRUSTED_SOCKET, and no server
//! started there. The checks themselves are tested in `signaltty-client`.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::TestEnv;

#[test]
fn an_open_socket_directory_is_refused_without_starting_a_server() {
    let env = TestEnv::new();
    std::fs::set_permissions(env.dir.path(), std::fs::Permissions::from_mode(0o773))
        .expect("chmod");
    let run = env.fails(&["workspace", "list"], 1);
    std::fs::set_permissions(env.dir.path(), std::fs::Permissions::from_mode(0o700))
        .expect("chmod back");
    assert!(run.stderr.contains("refusing the socket"), "{run:?}");
    assert!(
        run.stderr.contains(&env.dir.path().display().to_string()),
        "{run:?}"
    );
    assert!(run.stderr.contains("mode 773"), "{run:?}");
    assert!(run.stderr.contains("(UNTRUSTED_SOCKET)"), "{run:?}");
    assert!(!env.socket.exists(), "a server was started: {run:?}");
}

#[test]
fn the_normal_private_socket_works() {
    let env = TestEnv::new();
    let status = env.json(&["server", "start"]);
    assert!(
        status["pid"].as_u64().is_some_and(|pid| pid > 0),
        "{status}"
    );
}

#[test]
fn a_socket_directory_of_another_user_is_refused() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: needs root to chown");
        return;
    }
    let env = TestEnv::new();
    let chown = |uid: u32| {
        nix::unistd::chown(
            env.dir.path(),
            Some(nix::unistd::Uid::from_raw(uid)),
            Some(nix::unistd::Gid::from_raw(uid)),
        )
        .expect("chown");
    };
    chown(65534);
    let run = env.fails(&["server", "start"], 1);
    chown(0);
    assert!(
        run.stderr.contains("belongs to uid 65534 (nobody)"),
        "{run:?}"
    );
    assert!(run.stderr.contains("(UNTRUSTED_SOCKET)"), "{run:?}");
    assert!(!env.socket.exists(), "a server was started: {run:?}");
}
