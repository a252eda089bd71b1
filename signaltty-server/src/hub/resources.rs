//! What each pane's process tree uses: resident memory and CPU time, read from `/proc` when a
//! client asks (`GetResources`) and never otherwise, so an idle server with nobody looking pays
//! nothing for it. One pass over `/proc/*/stat` gives every process's parent, RSS and CPU time;
//! a pane's tree is its child and everything below it.
//!
//! RSS is summed per process (shared pages count once per process, as `ps` and tmux users add
//! them up); CPU time is user + system since each process started.

use std::collections::HashMap;

use super::panes::Panes;
use crate::model::ids::{PaneId, WorkspaceId};

/// Page size and clock ticks are the Linux defaults on every architecture we build for.
const PAGE_BYTES: u64 = 4096;
const TICKS_PER_SECOND: u64 = 100;

/// One process as `/proc/<pid>/stat` describes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcStat {
    /// Parent pid.
    pub ppid: u32,
    /// Resident pages × page size.
    pub rss_bytes: u64,
    /// utime + stime in milliseconds.
    pub cpu_ms: u64,
}

/// The fields we need from the text of `/proc/<pid>/stat`, read after the last `)` (`comm` may
/// hold spaces and parentheses).
pub fn parse_stat(stat: &str) -> Option<ProcStat> {
    let after = &stat[stat.rfind(')')? + 1..];
    // Fields from 3 (state) on: ppid is the 4th field, utime the 14th, stime the 15th, rss the
    // 24th of the whole line.
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    let ticks = field(14)? + field(15)?;
    Some(ProcStat {
        ppid: u32::try_from(field(4)?).ok()?,
        rss_bytes: field(24)? * PAGE_BYTES,
        cpu_ms: ticks * 1000 / TICKS_PER_SECOND,
    })
}

/// Every readable process now.
fn all_processes() -> HashMap<u32, ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    dir.filter_map(|entry| {
        let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        Some((pid, parse_stat(&text)?))
    })
    .collect()
}

/// Sums of a process tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Resident bytes.
    pub rss_bytes: u64,
    /// CPU milliseconds.
    pub cpu_ms: u64,
    /// Processes counted.
    pub processes: u32,
}

/// The tree under `root` (itself included) in `procs`.
pub fn tree_usage(
    procs: &HashMap<u32, ProcStat>,
    children: &HashMap<u32, Vec<u32>>,
    root: u32,
) -> Usage {
    let mut usage = Usage::default();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        let Some(p) = procs.get(&pid) else { continue };
        usage.rss_bytes += p.rss_bytes;
        usage.cpu_ms += p.cpu_ms;
        usage.processes += 1;
        if let Some(kids) = children.get(&pid) {
            stack.extend(kids.iter().copied());
        }
    }
    usage
}

/// One pane's figures.
#[derive(Clone, Debug)]
pub struct PaneUsage {
    /// The pane.
    pub pane_id: PaneId,
    /// Its workspace.
    pub workspace_id: WorkspaceId,
    /// Its tree (zeros without a process).
    pub usage: Usage,
}

/// Everything `GetResources` answers.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    /// Per pane, in workspace, tab, layout order.
    pub panes: Vec<PaneUsage>,
    /// Per workspace: the sums, and how many panes have a process.
    pub workspaces: Vec<(WorkspaceId, Usage, u32)>,
    /// The server itself.
    pub server: Usage,
}

impl Panes {
    /// Reads the figures now (on the blocking pool: a pass over `/proc` takes a few ms with
    /// hundreds of processes).
    pub async fn resources(&self, only: Option<WorkspaceId>) -> crate::error::Result<Resources> {
        let panes: Vec<(PaneId, WorkspaceId, Option<u32>)> = self.store().read(|s| {
            s.workspaces()
                .iter()
                .filter(|w| only.as_ref().is_none_or(|id| *id == w.id))
                .flat_map(|w| s.tabs_of(w))
                .flat_map(|t| s.panes_of_tab(t))
                .map(|p| {
                    let pid = match p.status {
                        crate::model::pane::PaneStatus::Live { pid } => Some(pid),
                        _ => None,
                    };
                    (p.id.clone(), p.workspace_id.clone(), pid)
                })
                .collect()
        });
        let workspace_order: Vec<WorkspaceId> = self.store().read(|s| {
            s.workspaces()
                .iter()
                .filter(|w| only.as_ref().is_none_or(|id| *id == w.id))
                .map(|w| w.id.clone())
                .collect()
        });
        super::blocking("resources", move || {
            let procs = all_processes();
            let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
            for (pid, p) in &procs {
                children.entry(p.ppid).or_default().push(*pid);
            }
            let panes: Vec<PaneUsage> = panes
                .into_iter()
                .map(|(pane_id, workspace_id, pid)| PaneUsage {
                    pane_id,
                    workspace_id,
                    usage: pid
                        .map_or_else(Usage::default, |pid| tree_usage(&procs, &children, pid)),
                })
                .collect();
            let workspaces = workspace_order
                .into_iter()
                .map(|ws| {
                    let mut sum = Usage::default();
                    let mut live = 0;
                    for p in panes.iter().filter(|p| p.workspace_id == ws) {
                        sum.rss_bytes += p.usage.rss_bytes;
                        sum.cpu_ms += p.usage.cpu_ms;
                        sum.processes += p.usage.processes;
                        live += u32::from(p.usage.processes > 0);
                    }
                    (ws, sum, live)
                })
                .collect();
            let me = std::process::id();
            let server = procs.get(&me).map_or_else(Usage::default, |p| Usage {
                rss_bytes: p.rss_bytes,
                cpu_ms: p.cpu_ms,
                processes: 1,
            });
            Resources {
                panes,
                workspaces,
                server,
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_spaces_and_parentheses_in_comm_parses() {
        let line = "4242 (my (odd) prog) S 17 4242 4242 34816 4242 4194304 1 2 3 4 250 50 0 0 20 0 1 0 \
                    123 456789 300 18446744073709551615";
        let p = parse_stat(line).unwrap();
        assert_eq!(p.ppid, 17);
        assert_eq!(p.cpu_ms, 3000);
        assert_eq!(p.rss_bytes, 300 * PAGE_BYTES);
    }

    #[test]
    fn a_tree_sums_its_descendants_only() {
        let procs: HashMap<u32, ProcStat> = [
            (
                10,
                ProcStat {
                    ppid: 1,
                    rss_bytes: 100,
                    cpu_ms: 1,
                },
            ),
            (
                11,
                ProcStat {
                    ppid: 10,
                    rss_bytes: 20,
                    cpu_ms: 2,
                },
            ),
            (
                12,
                ProcStat {
                    ppid: 11,
                    rss_bytes: 3,
                    cpu_ms: 3,
                },
            ),
            (
                20,
                ProcStat {
                    ppid: 1,
                    rss_bytes: 999,
                    cpu_ms: 9,
                },
            ),
        ]
        .into();
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for (pid, p) in &procs {
            children.entry(p.ppid).or_default().push(*pid);
        }
        let u = tree_usage(&procs, &children, 10);
        assert_eq!((u.rss_bytes, u.cpu_ms, u.processes), (123, 6, 3));
        assert_eq!(tree_usage(&procs, &children, 99), Usage::default());
    }

    #[test]
    fn this_process_is_found_in_proc() {
        let procs = all_processes();
        let me = procs
            .get(&std::process::id())
            .expect("this test's own process");
        assert!(me.rss_bytes > 0);
    }
}
