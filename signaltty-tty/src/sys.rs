//! This crate's only `unsafe` code, kept in one place: a terminal's size (an ioctl nix does
//! not wrap), registering a file with tokio's reactor, and receiving descriptors (`recvmsg`
//! with the control messages walked by hand, so none is ever left open).

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd};

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// The size of the terminal on `fd` as (cols, rows), or `None` when it is not a terminal.
pub fn window_size(fd: impl AsFd) -> Option<(u16, u16)> {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` through the pointer, which points at a live,
    // properly aligned local; the fd is borrowed for the duration of the call.
    let rc = unsafe { libc::ioctl(fd.as_fd().as_raw_fd(), libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_col > 0 && ws.ws_row > 0).then_some((ws.ws_col, ws.ws_row))
}

/// Registers an open file with the current tokio reactor for `interest` only.
pub(crate) fn register_file(file: File, interest: Interest) -> io::Result<AsyncFd<File>> {
    // SAFETY: the `File` owns its descriptor and moves into the `AsyncFd`, so the descriptor
    // stays open, and names the same file description, until the `AsyncFd` is dropped; nothing
    // else closes it.
    unsafe { AsyncFd::register_with_interest(file, interest) }.map_err(io::Error::from)
}

/// The most descriptors Linux passes in one message (`SCM_MAX_FD`); several `SCM_RIGHTS`
/// headers in one send are merged into one list of at most this many.
const SCM_MAX_FD: usize = 253;

/// One non-blocking `recvmsg(2)` on a socket: up to `buf.len()` bytes and every descriptor the
/// kernel installed with them, each owned (so closed when dropped), close-on-exec.
///
/// Why not nix's `cmsgs()`: it refuses to walk a control buffer the kernel flagged
/// `MSG_CTRUNC`, yet the kernel has already installed the descriptors that fit — they would
/// stay open in this process for good. The buffer here has room for `SCM_MAX_FD` descriptors,
/// so a peer cannot make `SCM_RIGHTS` truncate, and the walk below does not trust the flag
/// either: every complete `SCM_RIGHTS` header is taken, truncated or not.
pub(crate) fn recv_with_fds(
    socket: impl AsFd,
    buf: &mut [u8],
) -> io::Result<(usize, Vec<std::os::fd::OwnedFd>)> {
    use std::mem::{size_of, zeroed};
    use std::os::fd::{FromRawFd, OwnedFd, RawFd};

    // u64 words keep the buffer aligned for `cmsghdr`.
    let space = cmsg_space(SCM_MAX_FD * size_of::<RawFd>());
    let mut control = vec![0u64; space.div_ceil(size_of::<u64>())];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: an all-zero `msghdr` is valid (null pointers, zero lengths); the fields set
    // below point at `iov` and `control`, which outlive the call.
    let mut msg: libc::msghdr = unsafe { zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = control.len() * size_of::<u64>();
    // SAFETY: `msg` describes live buffers of the stated lengths; the socket is borrowed.
    let n = unsafe {
        libc::recvmsg(
            socket.as_fd().as_raw_fd(),
            &mut msg,
            libc::MSG_CMSG_CLOEXEC | libc::MSG_DONTWAIT,
        )
    };
    // Take the descriptors before looking at the result: whatever happens next, they close.
    let mut fds = Vec::new();
    if n >= 0 {
        // SAFETY: the kernel filled `control` up to `msg.msg_controllen` with headers;
        // CMSG_FIRSTHDR/CMSG_NXTHDR stay within it, and each SCM_RIGHTS payload holds
        // `(cmsg_len - CMSG_LEN(0)) / sizeof(int)` descriptors newly installed in our table,
        // referenced by nothing else, each wrapped exactly once here.
        unsafe {
            let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
            while !cmsg.is_null() {
                let header = &*cmsg;
                if header.cmsg_level == libc::SOL_SOCKET && header.cmsg_type == libc::SCM_RIGHTS {
                    let payload = header.cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                    let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
                    for i in 0..payload / size_of::<RawFd>() {
                        fds.push(OwnedFd::from_raw_fd(data.add(i).read_unaligned()));
                    }
                }
                cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
            }
        }
    }
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((n as usize, fds))
}

/// `CMSG_SPACE(len)`: the control buffer size for a payload of `len` bytes.
fn cmsg_space(len: usize) -> usize {
    // SAFETY: CMSG_SPACE is arithmetic on its argument.
    unsafe { libc::CMSG_SPACE(len as u32) as usize }
}
