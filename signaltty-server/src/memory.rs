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

/// Keeps glibc to one malloc arena for the whole process. By default every thread that
/// allocates gets an arena of its own (up to 8 per core), and the server's threads — the async
/// worker and the blocking pool that spawns panes, parses floods and reads git — each kept
/// a partly used heap: ~1.4 KiB more resident memory per idle pane (measured at 300 panes: 9.8
/// against 11.2 KiB a pane). Contention is not a concern here: one async worker does nearly
/// all the allocating, and each thread's tcache serves small blocks without the arena's lock.
/// Call once, first thing in `main`, before any thread starts.
pub fn use_one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt(3) sets a glibc tunable; it takes and returns plain integers.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}
