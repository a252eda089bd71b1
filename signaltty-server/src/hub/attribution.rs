//! Which pane a hook runs in. An explicit pane id (the hook's `SIGNALTTY_PANE`) wins; otherwise
//! the server walks up the process tree from the caller's pid through `/proc/<pid>/stat` until it
//! meets the pid of a live pane's child. A process outside every pane maps to no pane, which is
//! not an error (e.g. an agent started from a terminal signaltty does not own).

use crate::error::Result;
use crate::model::ids::PaneId;

use super::Hub;

/// How far up the tree the walk goes: deep enough for shells in tmux in editors, and a bound on
/// a malicious or looping `/proc`.
const MAX_DEPTH: usize = 64;

/// The parent pid in the text of `/proc/<pid>/stat` (`pid (comm) state ppid …`). `comm` may
/// contain spaces and parentheses, so the fields are read after the *last* `)`.
pub fn parse_ppid(stat: &str) -> Option<u32> {
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let _state = fields.next()?;
    fields.next()?.parse().ok()
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_ppid(&stat)
}

/// Walks from `pid` up its ancestors (itself included) and returns the first pane whose child
/// pid is met (`pane_among` is given the chain, nearest first, and names the pane of its nearest
/// member that is a live pane's child). Stops at pid 0/1, at the server (a pane's child is the
/// server's child, so no pane is above it), at an unreadable entry, or after [`MAX_DEPTH`] steps.
pub fn pane_of_process(
    start: u32,
    pane_among: impl FnOnce(&[u32]) -> Option<PaneId>,
) -> Option<PaneId> {
    let me = std::process::id();
    let mut chain = Vec::new();
    let mut pid = start;
    for _ in 0..MAX_DEPTH {
        if pid <= 1 || pid == me {
            break;
        }
        chain.push(pid);
        match parent_of(pid) {
            Some(parent) => pid = parent,
            None => break,
        }
    }
    pane_among(&chain)
}

impl Hub {
    /// Attributes a report: the explicit pane (it must exist: `NO_SUCH_PANE`), else the pane whose
    /// process is an ancestor of `client_pid` (0 = unknown), else none.
    pub(super) fn attribute(
        &self,
        explicit: Option<PaneId>,
        client_pid: u32,
    ) -> Result<Option<PaneId>> {
        if let Some(id) = explicit {
            self.store().read(|s| s.pane(&id).map(|_| ()))?;
            return Ok(Some(id));
        }
        if client_pid == 0 {
            return Ok(None);
        }
        Ok(pane_of_process(client_pid, |chain| {
            self.live_pane_among(chain)
        }))
    }

    /// Of `chain` (a process and its ancestors, nearest first), the nearest that is the child of
    /// a live pane or of a pane whose spawn has not yet recorded it, with that pane. Constant in
    /// the number of panes but for one pass over their records that allocates nothing.
    pub(super) fn live_pane_among(&self, chain: &[u32]) -> Option<PaneId> {
        let starting = self.spawning().nearest_among(chain);
        let live = self.store().read(|s| {
            s.live_pane_among(chain)
                .map(|(at, pane)| (at, pane.clone()))
        });
        match (starting, live) {
            (Some((a, pane_a)), Some((b, pane_b))) => Some(if a <= b { pane_a } else { pane_b }),
            (Some((_, pane)), None) | (None, Some((_, pane))) => Some(pane),
            (None, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ppid_is_read_after_the_last_parenthesis() {
        assert_eq!(parse_ppid("42 (sh) S 7 42 42 0 -1"), Some(7));
        assert_eq!(parse_ppid("42 (a b) c) (d) R 9 1 1"), Some(9));
        assert_eq!(parse_ppid("42 (sh"), None);
        assert_eq!(parse_ppid("42 (sh) S x"), None);
    }

    #[test]
    fn a_process_is_found_through_its_ancestors_up_to_the_server() {
        // sh (our child) starts sleep and waits for it.
        let family = crate::peer::tests::Grandchild::start();
        let (sleep, sh) = (family.pid, family.parent());
        let mut seen = Vec::new();
        assert_eq!(
            pane_of_process(sleep, |chain| {
                seen = chain.to_vec();
                None
            }),
            None
        );
        // The walk stops below us (the server): no pane is above a pane's child.
        assert_eq!(seen, vec![sleep, sh]);
        let pane = PaneId::new();
        let (found, sh_pid) = (pane.clone(), sh);
        assert_eq!(
            pane_of_process(sleep, move |chain| chain.contains(&sh_pid).then_some(found)),
            Some(pane)
        );
    }
}
