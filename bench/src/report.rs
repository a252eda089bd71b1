//! The report: one row per figure (signaltty, tmux, raw, ratio, target, pass) printed as a table,
//! plus every section's detailed samples, written together as JSON with the machine's
//! description.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use serde_json::{Value, json};

/// Whether a figure meets its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Meets it.
    Pass,
    /// Misses it.
    Fail,
}

impl Verdict {
    /// `Pass` when `ok`.
    pub fn from_ok(ok: bool) -> Self {
        if ok { Self::Pass } else { Self::Fail }
    }
}

/// One line of the table. Cells are preformatted text; an empty cell prints as `-`.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// What is measured.
    pub name: String,
    /// signaltty's figure.
    pub signaltty: String,
    /// tmux's figure.
    pub tmux: String,
    /// The raw-PTY figure.
    pub raw: String,
    /// How signaltty compares (to raw or to tmux, as the cell says).
    pub ratio: String,
    /// The target.
    pub target: String,
    /// The verdict, when there is a target.
    pub verdict: Option<Verdict>,
}

impl Row {
    /// A row with a name only; fill the cells with the builder methods.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Sets signaltty's cell.
    pub fn signaltty(mut self, cell: impl Into<String>) -> Self {
        self.signaltty = cell.into();
        self
    }

    /// Sets tmux's cell.
    pub fn tmux(mut self, cell: impl Into<String>) -> Self {
        self.tmux = cell.into();
        self
    }

    /// Sets the raw-PTY cell.
    pub fn raw(mut self, cell: impl Into<String>) -> Self {
        self.raw = cell.into();
        self
    }

    /// Sets the ratio cell.
    pub fn ratio(mut self, cell: impl Into<String>) -> Self {
        self.ratio = cell.into();
        self
    }

    /// Sets the target and, when known, whether it is met.
    pub fn target(mut self, target: impl Into<String>, ok: Option<bool>) -> Self {
        self.target = target.into();
        self.verdict = ok.map(Verdict::from_ok);
        self
    }

    fn to_json(&self) -> Value {
        json!({
            "name": self.name, "signaltty": self.signaltty, "tmux": self.tmux, "raw": self.raw,
            "ratio": self.ratio, "target": self.target,
            "pass": self.verdict.map(|v| v == Verdict::Pass),
        })
    }
}

/// Everything one run measured.
#[derive(Debug, Default)]
pub struct Report {
    /// Table rows, in section order; a failed section adds a row saying why.
    pub rows: Vec<Row>,
    /// Per-section details (samples, counts, notes), keyed by section name.
    pub details: serde_json::Map<String, Value>,
    /// Notes printed under the table: how things are measured.
    pub notes: Vec<String>,
}

impl Report {
    /// The table, aligned, with notes under it.
    pub fn table(&self) -> String {
        let header = [
            "measurement",
            "signaltty",
            "tmux",
            "raw PTY",
            "ratio",
            "target",
            "pass",
        ];
        let cells: Vec<[String; 7]> = self
            .rows
            .iter()
            .map(|r| {
                let dash = |s: &str| {
                    if s.is_empty() {
                        "-".to_owned()
                    } else {
                        s.to_owned()
                    }
                };
                [
                    r.name.clone(),
                    dash(&r.signaltty),
                    dash(&r.tmux),
                    dash(&r.raw),
                    dash(&r.ratio),
                    dash(&r.target),
                    match r.verdict {
                        Some(Verdict::Pass) => "PASS".into(),
                        Some(Verdict::Fail) => "FAIL".into(),
                        None => "-".into(),
                    },
                ]
            })
            .collect();
        let mut widths = header.map(str::len);
        for row in &cells {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, row: &[String]| {
            let mut text = String::new();
            for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
                let pad = w - cell.chars().count();
                if i == 0 {
                    let _ = write!(text, "{cell}{}", " ".repeat(pad));
                } else {
                    let _ = write!(text, " | {}{cell}", " ".repeat(pad));
                }
            }
            let _ = writeln!(out, "{}", text.trim_end());
        };
        line(&mut out, &header.map(String::from));
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        let _ = writeln!(out, "{}", rule.join("-+-"));
        for row in &cells {
            line(&mut out, row);
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        out
    }

    /// Writes `results-<UTC time>.json` into `dir` and returns its path.
    pub fn write_json(&self, dir: &Path, meta: Value) -> anyhow::Result<PathBuf> {
        std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
        let stamp = utc_timestamp(SystemTime::now()).replace(':', "-");
        let path = dir.join(format!("results-{}.json", stamp.trim_end_matches('Z')));
        let value = json!({
            "meta": meta,
            "rows": self.rows.iter().map(Row::to_json).collect::<Vec<_>>(),
            "notes": self.notes,
            "details": self.details,
        });
        std::fs::write(&path, serde_json::to_string_pretty(&value)?)
            .with_context(|| format!("write {}", path.display()))?;
        Ok(path)
    }
}

/// The machine the run is on, for the report.
pub fn machine() -> Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")?
                .split_once(':')
                .map(|(_, m)| m.trim())
        })
        .unwrap_or("unknown");
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    json!({
        "nproc": std::thread::available_parallelism().map(usize::from).unwrap_or(0),
        "cpu_model": model,
        "kernel": read("/proc/sys/kernel/osrelease"),
        "loadavg": read("/proc/loadavg"),
        "tmux": crate::tmux::version(),
    })
}

/// `YYYY-MM-DDTHH:MM:SSZ` for a system time (UTC; no time-zone database needed).
pub fn utc_timestamp(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn formats_utc_timestamps() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_709_210_096); // 2024-02-29 12:34:56
        assert_eq!(utc_timestamp(t), "2024-02-29T12:34:56Z");
    }

    #[test]
    fn table_aligns_cells_and_marks_verdicts() {
        let report = Report {
            rows: vec![
                Row::new("a").signaltty("1 ms").target("≤ 2 ms", Some(true)),
                Row::new("longer name")
                    .tmux("3 ms")
                    .target("≤ 2 ms", Some(false)),
            ],
            ..Report::default()
        };
        let table = report.table();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(
            lines[2].ends_with("PASS") && lines[3].ends_with("FAIL"),
            "{table}"
        );
        assert_eq!(lines[2].find('|'), lines[3].find('|'));
    }
}
