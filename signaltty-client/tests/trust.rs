//! Issue 14 §2, clients must not trust a squatted socket: an open directory, a directory of
//! another uid, and a socket served by a process of another uid are each refused before any
//! RPC, with a message naming the path and the owner; no server is started in their place.
//! These tests run as root (as CI does) so that they can hand directories and a server to
//! `nobody`.

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{World, chmod, server_bin, step};
use signaltty_client::{AutoStart, ClientError, TrustError};

const NOBODY: u32 = 65534;

fn chown(path: &Path, uid: u32) {
    nix::unistd::chown(
        path,
        Some(nix::unistd::Uid::from_raw(uid)),
        Some(nix::unistd::Gid::from_raw(uid)),
    )
    .expect("chown (these tests run as root)");
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

async fn refused(world: &World) -> TrustError {
    match step(signaltty_client::connect(&world.target, AutoStart::Yes)).await {
        Err(ClientError::Untrusted(err)) => err,
        Err(other) => panic!("expected an untrusted socket, got {other:?}"),
        Ok(_) => panic!("connected to an untrusted socket"),
    }
}

#[tokio::test]
async fn a_group_writable_directory_is_refused_and_no_server_started() {
    let world = World::new();
    chmod(world.dir.path(), 0o770);
    let err = refused(&world).await;
    assert!(matches!(err, TrustError::DirNotPrivate { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&world.dir.path().display().to_string()),
        "{text}"
    );
    assert!(text.contains("mode 770"), "{text}");
    assert!(text.contains("owner uid 0 (root)") || !is_root(), "{text}");
    assert!(!world.target.socket.exists(), "a server was started there");
    chmod(world.dir.path(), 0o700);
}

#[tokio::test]
async fn a_directory_owned_by_another_uid_is_refused() {
    if !is_root() {
        eprintln!("skipped: needs root to chown");
        return;
    }
    let world = World::new();
    chown(world.dir.path(), NOBODY);
    let err = refused(&world).await;
    assert!(matches!(err, TrustError::DirNotOwned { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&world.dir.path().display().to_string()),
        "{text}"
    );
    assert!(text.contains("belongs to uid 65534 (nobody)"), "{text}");
    assert!(text.contains("not to you (uid 0 (root))"), "{text}");
    assert!(!world.target.socket.exists(), "a server was started there");
    chown(world.dir.path(), 0);
}

/// Whether another uid can reach `path`: every directory from the root down to it lets
/// others search it (o+x). A clone may sit under a private directory (a home of mode 0700, a
/// `mktemp -d`), where the server binary in its target dir is out of `nobody`'s reach.
fn reachable_by_others(path: &Path) -> bool {
    path.ancestors()
        .skip(1)
        .all(|dir| std::fs::metadata(dir).is_ok_and(|m| m.mode() & 0o001 != 0))
}

/// A copy of the server binary that `nobody` can run, in a fresh directory under the temp dir
/// (the clone's own directories may be private); `None`, with the reason, when the temp dir is
/// out of reach too.
fn server_copy_for_others() -> Result<tempfile::TempDir, String> {
    let dir = tempfile::Builder::new()
        .prefix("sttyc-bin")
        .tempdir()
        .map_err(|e| format!("no temp dir: {e}"))?;
    chmod(dir.path(), 0o755);
    let copy = dir.path().join("signaltty-server");
    std::fs::copy(server_bin(), &copy).map_err(|e| format!("cannot copy the server: {e}"))?;
    chmod(&copy, 0o755);
    if !reachable_by_others(&copy) {
        return Err(format!(
            "{} is not reachable by another uid (a parent directory lacks o+x); set TMPDIR to \
             a directory others can search",
            copy.display()
        ));
    }
    Ok(dir)
}

/// A signaltty server running as `nobody` on `socket`, its state in `home` (nobody's), from a
/// copy of the binary that `nobody` can reach.
struct Impostor(Child);

impl Impostor {
    fn start(binary: &Path, socket: &Path, home: &Path) -> Impostor {
        use std::os::unix::process::CommandExt;
        let child = Command::new(binary)
            .arg("--socket")
            .arg(socket)
            .arg("--state-dir")
            .arg(home.join("state"))
            .env("HOME", home)
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("XDG_STATE_HOME")
            .current_dir("/")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .uid(NOBODY)
            .gid(NOBODY)
            .spawn()
            .expect("start a server as nobody");
        Impostor(child)
    }
}

impl Drop for Impostor {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn a_socket_served_by_another_uid_is_refused() {
    if !is_root() {
        eprintln!("skipped: needs root to run a server as another uid");
        return;
    }
    let bin_dir = match server_copy_for_others() {
        Ok(dir) => dir,
        Err(why) => {
            eprintln!("skipped: cannot give another uid a server binary: {why}");
            return;
        }
    };
    let world = World::new();
    if !reachable_by_others(world.dir.path()) {
        eprintln!(
            "skipped: the temp dir {} is not reachable by another uid",
            world.dir.path().display()
        );
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    chown(home.path(), NOBODY);
    chmod(home.path(), 0o700);
    // The squatter's server binds in our directory while it is theirs; then the directory is
    // ours and private again, so only the peer check can tell.
    chown(world.dir.path(), NOBODY);
    let mut impostor = Impostor::start(
        &bin_dir.path().join("signaltty-server"),
        &world.target.socket,
        home.path(),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut delay = Duration::from_millis(10);
    while !world.target.socket.exists() {
        if let Ok(Some(exit)) = impostor.0.try_wait() {
            panic!("the impostor server exited: {exit}");
        }
        assert!(Instant::now() < deadline, "the impostor never listened");
        std::thread::sleep(delay);
        delay = (delay * 2).min(Duration::from_millis(200));
    }
    chown(world.dir.path(), 0);
    assert_eq!(
        std::fs::metadata(world.dir.path()).expect("dir").uid(),
        0,
        "the directory is ours again"
    );
    assert_eq!(
        std::fs::metadata(&world.target.socket)
            .expect("socket")
            .uid(),
        NOBODY
    );

    let err = refused(&world).await;
    let TrustError::PeerNotOwned { pid, .. } = &err else {
        panic!("expected the peer check to refuse: {err:?}")
    };
    assert_eq!(*pid, impostor.0.id() as i32, "the peer is the impostor");
    let text = err.to_string();
    assert!(
        text.contains(&world.target.socket.display().to_string()),
        "{text}"
    );
    assert!(text.contains("runs as uid 65534 (nobody)"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_own_private_socket_is_trusted() {
    let world = World::new();
    let client = world.start().await;
    assert!(step(client.status()).await.is_ok());
    assert_eq!(
        std::fs::metadata(world.dir.path()).expect("dir").mode() & 0o777,
        0o700
    );
    world.stop(&client).await;
}
