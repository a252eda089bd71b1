//! What `/proc` says about a server process: resident memory, CPU time and context switches.
//!
//! CPU time comes two ways: `utime + stime` from `/proc/<pid>/stat` (process-wide, in clock
//! ticks, usually 10 ms — too coarse to see a nearly idle server) and the sum of every thread's
//! on-CPU nanoseconds from `/proc/<pid>/task/*/schedstat`. Context switches are per thread in
//! `/proc`, so they are summed over `/proc/<pid>/task/*/status`; a voluntary switch is a thread
//! going to sleep, so their count is the number of wake-ups.

use std::path::Path;

use anyhow::{Context, bail};

/// One reading of a process's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcSample {
    /// Resident set size in KiB (`VmRSS`).
    pub rss_kib: u64,
    /// `utime + stime` in clock ticks.
    pub cpu_ticks: u64,
    /// Sum of the threads' on-CPU time in nanoseconds (schedstat).
    pub cpu_ns: u64,
    /// Sum of the threads' voluntary context switches.
    pub voluntary_switches: u64,
    /// Sum of the threads' involuntary context switches.
    pub involuntary_switches: u64,
    /// Number of threads.
    pub threads: u64,
}

impl ProcSample {
    /// Reads every counter of process `pid`.
    pub fn read(pid: u32) -> anyhow::Result<Self> {
        let dir = Path::new("/proc").join(pid.to_string());
        let status = std::fs::read_to_string(dir.join("status"))
            .with_context(|| format!("read /proc/{pid}/status"))?;
        let stat = std::fs::read_to_string(dir.join("stat"))
            .with_context(|| format!("read /proc/{pid}/stat"))?;
        let mut sample = Self {
            rss_kib: status_field(&status, "VmRSS").context("no VmRSS")?,
            cpu_ticks: stat_cpu_ticks(&stat)?,
            ..Self::default()
        };
        for task in std::fs::read_dir(dir.join("task")).context("read task dir")? {
            let task = task?.path();
            // A thread may exit between listing and reading: skip it.
            let (Ok(status), Ok(schedstat)) = (
                std::fs::read_to_string(task.join("status")),
                std::fs::read_to_string(task.join("schedstat")),
            ) else {
                continue;
            };
            sample.threads += 1;
            sample.voluntary_switches +=
                status_field(&status, "voluntary_ctxt_switches").unwrap_or(0);
            sample.involuntary_switches +=
                status_field(&status, "nonvoluntary_ctxt_switches").unwrap_or(0);
            sample.cpu_ns += schedstat
                .split_whitespace()
                .next()
                .and_then(|ns| ns.parse::<u64>().ok())
                .unwrap_or(0);
        }
        Ok(sample)
    }

    /// The counters' growth from `earlier` to `self` (memory and threads as of `self`).
    pub fn since(&self, earlier: &Self) -> Self {
        Self {
            rss_kib: self.rss_kib,
            cpu_ticks: self.cpu_ticks.saturating_sub(earlier.cpu_ticks),
            cpu_ns: self.cpu_ns.saturating_sub(earlier.cpu_ns),
            voluntary_switches: self
                .voluntary_switches
                .saturating_sub(earlier.voluntary_switches),
            involuntary_switches: self
                .involuntary_switches
                .saturating_sub(earlier.involuntary_switches),
            threads: self.threads,
        }
    }
}

/// Clock ticks per second, for turning `cpu_ticks` into time.
pub fn clock_ticks_per_second() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .and_then(|t| u64::try_from(t).ok())
        .filter(|&t| t > 0)
        .unwrap_or(100)
}

/// The machine's CPU time from the first line of `/proc/stat`, in clock ticks: all of it and
/// the part the hypervisor gave to other guests (`steal`). A VM's load average does not show a
/// busy host; steal does, so a run can say whether its machine was quiet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MachineCpu {
    /// Every column summed (user … steal).
    pub total: u64,
    /// Time a vCPU was ready to run and the host ran something else.
    pub steal: u64,
}

impl MachineCpu {
    /// Reads `/proc/stat` (zeros where it cannot be read: the figure is informative only).
    pub fn read() -> Self {
        std::fs::read_to_string("/proc/stat")
            .ok()
            .and_then(|stat| Self::parse(&stat))
            .unwrap_or_default()
    }

    fn parse(stat: &str) -> Option<Self> {
        let line = stat.lines().next()?.strip_prefix("cpu ")?;
        let fields: Vec<u64> = line
            .split_whitespace()
            .map(|f| f.parse().ok())
            .collect::<Option<_>>()?;
        // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is
        // already inside user and nice.
        let counted = fields.get(..8)?;
        Some(MachineCpu {
            total: counted.iter().sum(),
            steal: counted[7],
        })
    }

    /// Steal since `earlier`, in percent of all CPU time in between.
    pub fn steal_percent_since(&self, earlier: &Self) -> f64 {
        let total = self.total.saturating_sub(earlier.total);
        if total == 0 {
            return 0.0;
        }
        100.0 * self.steal.saturating_sub(earlier.steal) as f64 / total as f64
    }
}

/// A numeric `Name:  value [kB]` field of a `/proc/*/status` file.
fn status_field(status: &str, name: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        let (key, rest) = line.split_once(':')?;
        (key == name).then(|| rest.split_whitespace().next()?.parse().ok())?
    })
}

/// `utime + stime` (fields 14 and 15) of a `/proc/<pid>/stat` line.
fn stat_cpu_ticks(stat: &str) -> anyhow::Result<u64> {
    // Field 14 (utime) is index 11 of the fields after the command name.
    let fields = stat_fields(stat)?;
    let field = |i: usize| -> anyhow::Result<u64> {
        fields
            .get(i)
            .context("short stat line")?
            .parse()
            .context("stat field not a number")
    };
    Ok(field(11)? + field(12)?)
}

/// The fields of a `/proc/<pid>/stat` line from field 3 (state) on. The command name (field 2)
/// may contain spaces and parentheses, so fields are counted from the last `)`.
fn stat_fields(stat: &str) -> anyhow::Result<Vec<&str>> {
    let Some((_, after_comm)) = stat.rsplit_once(')') else {
        bail!("malformed stat: {stat}")
    };
    Ok(after_comm.split_whitespace().collect())
}

/// The pids of the processes whose parent is `parent` (field 4 of their stat line); a process
/// that ends while the list is read is left out.
pub fn children_of(parent: i32) -> Vec<i32> {
    let parent = parent.to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let fields = stat_fields(&stat).ok()?;
            (fields.get(1) == Some(&parent.as_str())).then_some(pid)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_machine_cpu_and_steal() {
        let before = MachineCpu::parse("cpu  100 0 50 800 10 0 5 35 7 0\ncpu0 1 2 3\n");
        assert_eq!(
            before,
            Some(MachineCpu {
                total: 1000,
                steal: 35
            })
        );
        let after = MachineCpu::parse("cpu  150 0 60 950 10 0 5 105 9 0\n");
        let percent = after.unwrap().steal_percent_since(&before.unwrap());
        assert!((percent - 25.0).abs() < 1e-9, "{percent}");
        assert_eq!(MachineCpu::parse("intr 1 2 3\n"), None);
    }

    #[test]
    fn parses_status_fields() {
        let status = "Name:\tx\nVmRSS:\t    5120 kB\nvoluntary_ctxt_switches:\t42\n";
        assert_eq!(status_field(status, "VmRSS"), Some(5120));
        assert_eq!(status_field(status, "voluntary_ctxt_switches"), Some(42));
        assert_eq!(status_field(status, "VmHWM"), None);
    }

    #[test]
    fn parses_cpu_ticks_after_a_tricky_command_name() -> anyhow::Result<()> {
        let stat = "123 (a) b (c) S 1 123 123 0 -1 4194560 100 0 0 0 7 5 0 0 20 0 3 0";
        assert_eq!(stat_cpu_ticks(stat)?, 12);
        Ok(())
    }

    #[test]
    fn finds_a_child_by_its_parent() -> anyhow::Result<()> {
        let mut child = std::process::Command::new("sleep").arg("30").spawn()?;
        let me = i32::try_from(std::process::id())?;
        let found = children_of(me).contains(&i32::try_from(child.id())?);
        child.kill()?;
        child.wait()?;
        assert!(found);
        Ok(())
    }

    #[test]
    fn reads_this_process() -> anyhow::Result<()> {
        let sample = ProcSample::read(std::process::id())?;
        assert!(sample.rss_kib > 0);
        assert!(sample.threads >= 1);
        assert!(sample.cpu_ns > 0);
        Ok(())
    }
}
