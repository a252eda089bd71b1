//! Git reads run at a lower CPU priority than the rest of the server.
//!
//! A diff of a large checkout is seconds of CPU on several threads (gix stats the checkout on
//! as many threads as there are cores); on a small machine that takes the cores the async
//! worker needs to carry every pane's echo. Linux keeps a nice value per thread and a thread
//! inherits its creator's, so a git read runs on a thread of its own whose nice value is raised
//! first: gix's helper threads are then niced too, and the scheduler hands the CPU to the echo
//! path when both want it. The thread ends with the read (an unprivileged thread cannot lower
//! its nice value again, so a pooled thread must not be niced). The `unsafe` of this module is
//! the one libc call.
#![allow(unsafe_code)]

/// Nice value of git threads (0 is the default, 19 the lowest priority).
pub const GIT_NICE: libc::c_int = 10;

/// Raises the calling thread's nice value to [`GIT_NICE`]; best effort (a failure leaves the
/// thread at its priority).
pub fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority(2) takes plain integers; `who` = 0 names the calling thread on Linux
    // (nice values are per thread there). It touches no memory of ours.
    unsafe {
        let _ = libc::setpriority(libc::PRIO_PROCESS, 0, GIT_NICE);
    }
}
