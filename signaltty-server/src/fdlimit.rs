//! The descriptor limit. Every live pane holds four descriptors (the terminal's master, its
//! reader's and its input writer's duplicates, the child's pidfd), so at the common default soft
//! limit of 1024 a server fits about 250 panes. The hard limit is usually far higher (524288 on
//! systemd), and raising the soft limit up to it needs no privilege, so the server does at start.

use std::io;

/// Descriptors one live pane holds.
pub const FDS_PER_PANE: u64 = 4;
/// Descriptors kept aside for connections, the state files and the runtime.
pub const RESERVE: u64 = 64;

/// RLIMIT_NOFILE as (soft, hard).
#[allow(unsafe_code)]
pub fn get() -> io::Result<(u64, u64)> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid rlimit for the kernel to fill.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((limit.rlim_cur, limit.rlim_max))
}

/// Raises the soft limit to the hard limit. Returns (soft before, hard, soft now).
#[allow(unsafe_code)]
pub fn raise() -> io::Result<(u64, u64, u64)> {
    let (soft, hard) = get()?;
    if soft < hard {
        let limit = libc::rlimit {
            rlim_cur: hard,
            rlim_max: hard,
        };
        // SAFETY: `limit` is a valid rlimit read by the kernel.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    let (now, _) = get()?;
    Ok((soft, hard, now))
}

/// Raises the limit and logs what it was and is.
pub fn raise_and_log() {
    match raise() {
        Ok((before, hard, now)) => tracing::info!(
            soft_before = before,
            hard,
            soft_now = now,
            panes_that_fit = panes_that_fit(now, open_fds()),
            "descriptor limit (RLIMIT_NOFILE)"
        ),
        Err(e) => tracing::warn!(error = %e, "cannot raise the descriptor limit"),
    }
}

/// Descriptors this process has open now.
pub fn open_fds() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64)
}

/// How many more live panes fit under `limit` with `open` descriptors in use.
pub fn panes_that_fit(limit: u64, open: u64) -> u64 {
    limit.saturating_sub(open).saturating_sub(RESERVE) / FDS_PER_PANE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_leaves_the_reserve() {
        assert_eq!(panes_that_fit(1024, 0), 240);
        assert_eq!(panes_that_fit(1024, 1000), 0);
    }
}
