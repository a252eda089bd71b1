//! Not trusting a squatted socket: checks a client makes before its first RPC.
//!
//! With `$XDG_RUNTIME_DIR` unset the default socket lives in `/tmp/signaltty-$UID/`, a name any
//! user can create first and serve a fake server in. The server refuses such a directory; a
//! client must too, or it would send its commands (and its keystrokes) to the squatter. So:
//!
//! 1. [`check_dir`]: the socket's directory must belong to the current uid and be closed to group
//!    and others (mode `& 0o077 == 0`), as the server creates it. Symlinks are followed: what
//!    counts is the directory the socket is really in.
//! 2. [`check_peer`]: once connected, the process on the other end (`SO_PEERCRED`: the uid that
//!    called `listen`) must run as the current uid.
//!
//! Either failing is a [`TrustError`] naming the path, its owner and what to do. Root is not
//! exempt: a root client refuses another user's socket like anyone else.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use tokio::net::UnixStream;

/// Why a socket is not trusted.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// The socket's directory belongs to another user.
    #[error(
        "refusing the socket {socket}: its directory {dir} belongs to {owner}, not to you \
         ({me}); another user may have created it to impersonate the server. Remove it, set \
         $XDG_RUNTIME_DIR, or choose another --socket"
    )]
    DirNotOwned {
        /// The socket path.
        socket: PathBuf,
        /// Its directory.
        dir: PathBuf,
        /// The directory's owner, e.g. `uid 65534 (nobody)`.
        owner: String,
        /// The current user, the same way.
        me: String,
    },
    /// The socket's directory is open to group or others.
    #[error(
        "refusing the socket {socket}: its directory {dir} (owner {owner}) has mode {mode:03o}, \
         so other users can replace the socket; make it private (chmod 700 {dir}) or choose \
         another --socket"
    )]
    DirNotPrivate {
        /// The socket path.
        socket: PathBuf,
        /// Its directory.
        dir: PathBuf,
        /// The directory's owner.
        owner: String,
        /// Its permission bits.
        mode: u32,
    },
    /// The socket's "directory" is something else.
    #[error("refusing the socket {socket}: {dir} is not a directory")]
    NotADirectory {
        /// The socket path.
        socket: PathBuf,
        /// What should have been its directory.
        dir: PathBuf,
    },
    /// The process serving the socket runs as another user.
    #[error(
        "refusing the socket {socket}: the process serving it (pid {pid}) runs as {owner}, not \
         as you ({me}); it is not your signaltty server. Stop it or choose another --socket"
    )]
    PeerNotOwned {
        /// The socket path.
        socket: PathBuf,
        /// The peer's pid as the kernel reports it (0 if unknown).
        pid: i32,
        /// The peer's user.
        owner: String,
        /// The current user.
        me: String,
    },
    /// The checks themselves failed (the directory cannot be read, no peer credentials).
    #[error("cannot check the socket {socket}: {what}: {source}")]
    CannotCheck {
        /// The socket path.
        socket: PathBuf,
        /// What was being checked.
        what: String,
        /// The error.
        #[source]
        source: io::Error,
    },
}

/// What [`check_dir`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirState {
    /// The directory exists and is private to us.
    Private,
    /// The directory does not exist (yet): nothing can listen there, and a server started now
    /// creates it private.
    Missing,
}

/// Checks that the directory holding `socket` is ours and private.
pub fn check_dir(socket: &Path) -> Result<DirState, TrustError> {
    let dir = socket_dir(socket);
    let meta = match std::fs::metadata(&dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(DirState::Missing),
        Err(source) => {
            return Err(TrustError::CannotCheck {
                socket: socket.to_path_buf(),
                what: format!("reading {}", dir.display()),
                source,
            });
        }
    };
    if !meta.is_dir() {
        return Err(TrustError::NotADirectory {
            socket: socket.to_path_buf(),
            dir,
        });
    }
    let me = current_uid();
    if meta.uid() != me {
        return Err(TrustError::DirNotOwned {
            socket: socket.to_path_buf(),
            dir,
            owner: describe_uid(meta.uid()),
            me: describe_uid(me),
        });
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(TrustError::DirNotPrivate {
            socket: socket.to_path_buf(),
            dir,
            owner: describe_uid(meta.uid()),
            mode,
        });
    }
    Ok(DirState::Private)
}

/// Checks that the process on the other end of `stream` (connected to `socket`) runs as us.
pub fn check_peer(stream: &UnixStream, socket: &Path) -> Result<(), TrustError> {
    let cred = stream
        .peer_cred()
        .map_err(|source| TrustError::CannotCheck {
            socket: socket.to_path_buf(),
            what: "reading the peer's credentials (SO_PEERCRED)".into(),
            source,
        })?;
    let me = current_uid();
    if cred.uid() != me {
        return Err(TrustError::PeerNotOwned {
            socket: socket.to_path_buf(),
            pid: cred.pid().unwrap_or(0),
            owner: describe_uid(cred.uid()),
            me: describe_uid(me),
        });
    }
    Ok(())
}

/// The directory the socket is in (`.` for a bare file name).
pub fn socket_dir(socket: &Path) -> PathBuf {
    socket
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

/// The real uid of this process.
pub fn current_uid() -> u32 {
    nix::unistd::getuid().as_raw()
}

/// `uid 65534 (nobody)`, or `uid 1234` when the user database has no name for it.
pub fn describe_uid(uid: u32) -> String {
    match nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)) {
        Ok(Some(user)) => format!("uid {uid} ({})", user.name),
        _ => format!("uid {uid}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    use crate::connect::tests::private_tempdir;

    #[test]
    fn a_private_dir_of_ours_passes() {
        let dir = private_tempdir();
        assert_eq!(
            check_dir(&dir.path().join("s.sock")).expect("trusted"),
            DirState::Private
        );
    }

    #[test]
    fn a_missing_dir_is_not_an_error() {
        let dir = private_tempdir();
        let socket = dir.path().join("absent").join("s.sock");
        assert_eq!(check_dir(&socket).expect("checkable"), DirState::Missing);
    }

    #[test]
    fn group_or_other_access_is_refused_with_the_mode_and_path() {
        for mode in [0o770, 0o705, 0o711, 0o1777] {
            let dir = private_tempdir();
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode))
                .expect("chmod");
            let socket = dir.path().join("s.sock");
            let err = check_dir(&socket).expect_err("open directory");
            assert!(matches!(err, TrustError::DirNotPrivate { .. }), "{err:?}");
            let text = err.to_string();
            assert!(text.contains(&dir.path().display().to_string()), "{text}");
            assert!(text.contains(&format!("{:03o}", mode & 0o777)), "{text}");
            assert!(text.contains("chmod 700"), "{text}");
        }
    }

    #[test]
    fn a_file_in_place_of_the_dir_is_refused() {
        let dir = private_tempdir();
        let file = dir.path().join("f");
        std::fs::write(&file, "").expect("write");
        let err = check_dir(&file.join("s.sock")).expect_err("not a directory");
        assert!(matches!(err, TrustError::NotADirectory { .. }), "{err:?}");
    }

    #[test]
    fn uids_are_described_with_their_names() {
        assert_eq!(describe_uid(0), "uid 0 (root)");
        assert_eq!(describe_uid(4_000_000_000), "uid 4000000000");
    }

    #[tokio::test]
    async fn a_peer_of_our_own_uid_passes() {
        let (a, _b) = UnixStream::pair().expect("socketpair");
        check_peer(&a, Path::new("/x.sock")).expect("same process, same uid");
    }
}
