//! Giving freed heap memory back to the OS after bursty work.
//!
//! glibc's malloc keeps what a thread frees in that thread's arena for reuse and returns it to
//! the OS only from the top of the heap. Reading git context (gix opens the repository and may
//! walk the index) or serializing a large snapshot allocates megabytes on a blocking-pool thread
//! for a moment; without a trim, an idle server keeps that memory resident for good (creating
//! one workspace left ~2 MiB behind), and so would start-up (loading the snapshot, decoding the
//! reflection descriptors). The `unsafe` of this module is that one libc call.
#![allow(unsafe_code)]

/// Returns free pages of every malloc arena to the OS. Takes the arenas' locks briefly; call it
/// after bursty work on a blocking thread, not on a hot path.
pub fn release_free_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim(3) only walks glibc's own arenas under their locks and touches no
    // memory of ours; it takes and returns plain integers.
    unsafe {
        libc::malloc_trim(0);
    }
}
