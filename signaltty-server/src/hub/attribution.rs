//! Which pane a hook runs in. An explicit pane id (the hook's `SIGNALTTY_PANE`) wins; otherwise
//! the server walks up the process tree from the caller's pid through `/proc/<pid>/stat` until it
//! meets the pid of a live pane's child. A process outside every pane maps to no pane, which is
//! not an error (e.g. an agent started from a terminal signaltty does not own).

use std::collections::HashMap;

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
/// pid is met. Stops at pid 0/1, at an unreadable entry, or after [`MAX_DEPTH`] steps.
pub fn pane_of_process(start: u32, panes: &HashMap<u32, PaneId>) -> Option<PaneId> {
    let mut pid = start;
    for _ in 0..MAX_DEPTH {
        if pid <= 1 {
            return None;
        }
        if let Some(pane) = panes.get(&pid) {
            return Some(pane.clone());
        }
        pid = parent_of(pid)?;
    }
    None
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
        Ok(pane_of_process(client_pid, &self.live_pane_pids()))
    }

    /// The child pid of every live pane, and of every pane whose spawn has not yet recorded it.
    pub(super) fn live_pane_pids(&self) -> HashMap<u32, PaneId> {
        let mut pids = self.spawning().pids();
        pids.extend(self.store().read(|s| {
            s.all_panes()
                .into_iter()
                .filter_map(|p| match p.status {
                    crate::model::pane::PaneStatus::Live { pid } => Some((pid, p.id.clone())),
                    _ => None,
                })
                .collect::<Vec<_>>()
        }));
        pids
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
    fn our_own_process_is_found_through_its_ancestors() {
        let me = std::process::id();
        let parent = parent_of(me).expect("our parent is readable");
        let panes = HashMap::from([(parent, PaneId::new())]);
        assert_eq!(pane_of_process(me, &panes), panes.get(&parent).cloned());
        assert_eq!(pane_of_process(me, &HashMap::new()), None);
    }
}
