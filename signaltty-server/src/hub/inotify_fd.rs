//! An inotify instance that tokio wakes us for: the watchers that must cost nothing while
//! nothing changes (git directories, Claude's transcripts) sleep on it instead of a timer.

use std::os::fd::{AsFd, OwnedFd};

use nix::sys::inotify::{InitFlags, Inotify, InotifyEvent};
use tokio::io::unix::AsyncFd;

/// The instance, and a duplicate of its descriptor registered with tokio's reactor for
/// readability (the duplicate shares the open file description, so it is readable exactly when
/// the instance has events).
pub(super) struct InotifyFd {
    pub(super) inotify: Inotify,
    ready: AsyncFd<OwnedFd>,
}

impl InotifyFd {
    pub(super) fn open() -> std::io::Result<InotifyFd> {
        let inotify = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC)?;
        let copy = inotify.as_fd().try_clone_to_owned()?;
        let ready = crate::pane::sys::register(copy, tokio::io::Interest::READABLE)?;
        Ok(InotifyFd { inotify, ready })
    }

    /// The next batch of events, waiting for it (cancel-safe: nothing is read until the
    /// descriptor is readable).
    pub(super) async fn next_batch(&self) -> std::io::Result<Vec<InotifyEvent>> {
        loop {
            let mut guard = self.ready.readable().await?;
            match self.inotify.read_events() {
                Ok(events) => return Ok(events),
                Err(nix::errno::Errno::EAGAIN) => guard.clear_ready(),
                Err(e) => {
                    guard.clear_ready();
                    return Err(e.into());
                }
            }
        }
    }
}
