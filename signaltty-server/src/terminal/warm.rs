//! Keeping the CPUs out of their idle state for a moment after a key typed on a handed-over
//! terminal, so the wake-ups that carry its echo (the kernel's tty work, the pane's program,
//! this server, the terminal's reader) land on CPUs that are awake.
//!
//! Why: on the VMs this runs on, waking a vCPU that went idle costs ~100–200 µs (measured
//! with `perf sched` at typing pace: the echo's hops that landed on an idle vCPU waited that
//! long, the same hops on an awake one ~5–10 µs), and a key typed after a pause finds every
//! CPU idle. One thread per CPU (at most [`MAX_CPUS`]), bound to it and `SCHED_IDLE`, spins
//! for [`WARM_FOR`] after each key: it runs only when nothing else wants the CPU, any wake-up
//! there preempts it at once, and the scheduler places woken tasks on its CPU as on an idle
//! one. Busy-polling on the server's own thread instead (a `sched_yield` loop) did not work:
//! the kernel's tty work queued behind the polling thread for the whole poll (~250 µs).
//!
//! Never while idle: the threads are parked until a key comes, and stop [`WARM_FOR`] after
//! the last one. The CPU cost is that of the spin, on CPUs that had nothing else to do.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long the CPUs are kept awake after a key: a typical echo comes back within this.
pub const WARM_FOR: Duration = Duration::from_micros(300);

/// Spinning threads at most (one per CPU).
const MAX_CPUS: usize = 8;

struct Warm {
    base: Instant,
    /// Nanoseconds after `base` until which the threads spin.
    until: AtomicU64,
    threads: Vec<Thread>,
    spin: Duration,
}

static WARM: OnceLock<Option<Warm>> = OnceLock::new();

/// A key went to a pane: keep the CPUs awake for its echo.
pub fn after_key() {
    let Some(warm) = WARM.get_or_init(start) else {
        return;
    };
    let until = nanos(warm.base.elapsed() + warm.spin);
    warm.until.fetch_max(until, Ordering::Relaxed);
    for thread in &warm.threads {
        thread.unpark();
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// `SIGNALTTY_WARM_US` microseconds when set (0: never), else [`WARM_FOR`].
fn spin_for() -> Duration {
    std::env::var("SIGNALTTY_WARM_US")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(WARM_FOR, Duration::from_micros)
}

fn start() -> Option<Warm> {
    let spin = spin_for();
    if spin.is_zero() {
        return None;
    }
    let cpus = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_CPUS);
    let mut threads = Vec::new();
    for cpu in 0..cpus {
        let spawned = std::thread::Builder::new()
            .name(format!("signaltty-warm{cpu}"))
            .stack_size(64 * 1024)
            .spawn(move || run(cpu));
        match spawned {
            Ok(handle) => threads.push(handle.thread().clone()),
            Err(e) => tracing::debug!(error = %e, "no CPU-warming thread"),
        }
    }
    Some(Warm {
        base: Instant::now(),
        until: AtomicU64::new(0),
        threads,
        spin,
    })
}

fn run(cpu: usize) {
    if let Err(e) = crate::pane::sys::become_idle_thread_on(cpu) {
        tracing::debug!(cpu, error = %e, "cannot make a CPU-warming thread idle-priority; it ends");
        return;
    }
    loop {
        std::thread::park();
        // Set once `start` returned; a kick before that is only a missed spin.
        let Some(Some(warm)) = WARM.get() else {
            continue;
        };
        // A plain loop on the clock (no PAUSE: a hypervisor may take a PAUSE loop as a
        // waiting vCPU and deschedule it, the opposite of what this is for).
        while nanos(warm.base.elapsed()) < warm.until.load(Ordering::Relaxed) {}
    }
}
