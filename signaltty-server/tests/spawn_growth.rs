//! The per-spawn cost of the records and the event bus must not grow with the number of panes
//! (issue 18: spawning the 400th pane cost twice the 1st). Measured without wall time, which a
//! loaded machine makes meaningless: this binary counts heap allocations and the bytes still
//! held, through a counting global allocator, while 400 panes are added one new tab at a time
//! to one workspace through the real `Store` (state + replay ring + live broadcast).
// The counting allocator is the one `unsafe` here: it forwards to the system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::SystemTime;

use signaltty_server::model::ids::{PaneId, TabId};
use signaltty_server::model::lifecycle::PaneState;
use signaltty_server::model::pane::{Pane, PaneStatus, Size};
use signaltty_server::model::state::{Placement, State};
use signaltty_server::model::workspace::{GitContext, WorkspaceSettings};
use signaltty_server::store::Store;

struct Counting;

static LIVE_BYTES: AtomicI64 = AtomicI64::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: same layout the caller gave us.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn record(ws: &signaltty_server::model::ids::WorkspaceId, pid: u32) -> Pane {
    let now = SystemTime::now();
    Pane {
        id: PaneId::new(),
        workspace_id: ws.clone(),
        tab_id: TabId::new(),
        title: "sleep".into(),
        title_locked: false,
        argv: vec!["sleep".into(), "100000".into()],
        cwd: PathBuf::from("/tmp"),
        size: Size {
            cols: 200,
            rows: 50,
        },
        status: PaneStatus::Live { pid },
        state: PaneState::new(now),
        agent: None,
        pending_decision: None,
        last_message: String::new(),
        created_at: now,
    }
}

/// Allocations and bytes retained by one spawn, averaged over a run of spawns.
#[derive(Debug)]
struct PerSpawn {
    allocations: f64,
    retained: f64,
}

#[test]
fn a_spawn_costs_the_same_at_the_400th_pane_as_at_the_1st() {
    const PANES: usize = 400;
    const WINDOW: usize = 50;
    let store = Store::new(
        State::default(),
        signaltty_server::bus::DEFAULT_RING_CAPACITY,
        signaltty_server::bus::DEFAULT_LIVE_CAPACITY,
    );
    // A live subscriber, as a TUI or `signaltty events` would hold.
    let _sub = store.subscribe(Some(0));
    let ws = store
        .apply(|s, now| {
            s.create_workspace(
                "bench",
                PathBuf::from("/tmp"),
                WorkspaceSettings::default(),
                GitContext::default(),
                now,
            )
        })
        .expect("workspace")
        .id;
    let mut windows = Vec::new();
    let mut start = (0, 0);
    for i in 0..PANES {
        if i % WINDOW == 0 {
            start = (
                ALLOCATIONS.load(Ordering::Relaxed),
                LIVE_BYTES.load(Ordering::Relaxed),
            );
        }
        let pane = record(&ws, 10_000 + i as u32);
        store
            .apply(|s, now| {
                s.add_pane(
                    pane,
                    Placement::NewTab {
                        title: String::new(),
                    },
                    now,
                )
            })
            .expect("spawn");
        if i % WINDOW == WINDOW - 1 {
            let n = WINDOW as f64;
            windows.push(PerSpawn {
                allocations: (ALLOCATIONS.load(Ordering::Relaxed) - start.0) as f64 / n,
                retained: (LIVE_BYTES.load(Ordering::Relaxed) - start.1) as f64 / n,
            });
        }
    }
    let (first, last) = (&windows[0], &windows[windows.len() - 1]);
    eprintln!("per spawn, panes 1–{WINDOW}: {first:?}");
    eprintln!("per spawn, panes {}–{PANES}: {last:?}", PANES - WINDOW + 1);
    // Constant, with slack for hash-map and ring growth (amortised doublings).
    assert!(
        last.allocations <= first.allocations * 1.25 + 2.0,
        "allocations per spawn grew with the pane count: {first:?} → {last:?}"
    );
    assert!(
        last.retained <= first.retained * 1.5 + 256.0,
        "bytes retained per spawn grew with the pane count: {first:?} → {last:?}"
    );
    // And small: the records and the events of one spawn, not a copy of the workspace.
    assert!(
        last.retained <= 4096.0,
        "a spawn keeps {:.0} bytes (records + events)",
        last.retained
    );
    store.read(|s| assert_eq!(s.pane_count(), PANES));
    // Every connection is placed by looking for its ancestry among the panes (`peer.rs`): that
    // look allocates nothing at 400 panes (it used to build a map of every pane's pid), and
    // names the pane of the nearest ancestor.
    let chain = [1, 10_000 + PANES as u32 - 1, 10_007, 77];
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let nearest = store.read(|s| s.live_pane_among(&chain).map(|(at, _)| at));
    assert_eq!(
        ALLOCATIONS.load(Ordering::Relaxed) - before,
        0,
        "allocations"
    );
    assert_eq!(nearest, Some(1));
    assert!(store.read(|s| s.live_pane_among(&[1, 2, 3]).is_none()));
}
