//! What the `tui` section sets up: the real `signaltty-tui` on a PTY with a home of its own, the
//! same many-pane screen in both multiplexers (printing panes plus one `cat` pane to type into,
//! in one tab / one tmux window), the printers, and how many bytes they printed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Context;
use signaltty_proto::v1::layout::Node;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use signaltty_proto::v1::tab_service_client::TabServiceClient;
use signaltty_proto::v1::{
    Direction, FocusPaneRequest, Layout, SetLayoutRequest, Split, SplitPaneRequest,
};

use super::sh;
use crate::pty::{PtyChild, TermSize};
use crate::signaltty::SignalttyServer;
use crate::tmux::TmuxServer;

/// The outer terminal of both clients: room for a sidebar and a grid of readable panes.
pub const SIZE: TermSize = TermSize {
    cols: 200,
    rows: 60,
};

/// Lines each printer writes per tick (one write(2)), every 10 ms: about 30 KB/s per pane.
const LINES_PER_TICK: usize = 12;

/// Starts the TUI on a `SIZE` PTY in `cwd` (whose workspace it opens), talking to `server`,
/// with `HOME` and every XDG directory inside `home` so no user config or state is read.
pub fn spawn_tui(
    tui_bin: &Path,
    server: &SignalttyServer,
    cwd: &Path,
    home: &Path,
) -> anyhow::Result<PtyChild> {
    std::fs::create_dir_all(home).context("create the TUI's home")?;
    let sub = |name: &str| -> OsString { home.join(name).into_os_string() };
    PtyChild::spawn_in(
        &[
            tui_bin.display().to_string(),
            "--socket".into(),
            server.socket().display().to_string(),
        ],
        SIZE,
        Some(cwd),
        &[
            ("HOME", home.as_os_str().to_owned()),
            ("XDG_CONFIG_HOME", sub("config")),
            ("XDG_STATE_HOME", sub("state")),
            ("XDG_DATA_HOME", sub("data")),
            ("XDG_CACHE_HOME", sub("cache")),
            ("XDG_RUNTIME_DIR", home.as_os_str().to_owned()),
            ("SIGNALTTY_SOCKET", server.socket().as_os_str().to_owned()),
        ],
    )
}

/// A directory of its own under the run's temp dir (a workspace's cwd, a client's home).
pub fn fresh_dir(root: &Path, name: &str) -> anyhow::Result<PathBuf> {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
    // The TUI finds its workspace by comparing cwds, so use the name the server will see.
    dir.canonicalize().context("canonicalize")
}

/// A pane's command that prints numbered lines continuously (no fork per line: one perl).
/// `tag` is on its command line, so [`printed_bytes`] finds every printer of one system.
pub fn printer(tag: &str, id: usize) -> Vec<String> {
    printing(tag, id, LINES_PER_TICK, "0.01")
}

/// A pane that prints like an agent at work: one status line every half second.
pub fn agent_printer(tag: &str, id: usize) -> Vec<String> {
    printing(tag, id, 1, "0.5")
}

/// `lines` numbered lines in one write(2) every `pause` seconds.
fn printing(tag: &str, id: usize, lines: usize, pause: &str) -> Vec<String> {
    let code = format!(
        "$|=1; my $n=0; while (1) {{ my $s=\"\"; for (1..{lines}) {{ $n++; \
         $s .= sprintf(\"agent %02d line %08d output\\r\\n\", $ARGV[1], $n) }} print $s; \
         select(undef, undef, undef, {pause}) }}"
    );
    sh(&format!("exec perl -e '{code}' {tag} {id}"))
}

/// Bytes written so far by every live process whose command line holds `tag` (`wchar` of
/// `/proc/<pid>/io`: everything the printers wrote to their terminals).
pub fn printed_bytes(tag: &str) -> u64 {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let tag = tag.as_bytes();
    procs
        .flatten()
        .filter(|p| {
            p.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|p| {
            std::fs::read(p.path().join("cmdline"))
                .is_ok_and(|c| memchr::memmem::find(&c, tag).is_some())
        })
        .filter_map(|p| std::fs::read_to_string(p.path().join("io")).ok())
        .filter_map(|io| {
            io.lines()
                .find_map(|l| l.strip_prefix("wchar:"))
                .and_then(|v| v.trim().parse::<u64>().ok())
        })
        .sum()
}

/// In `workspace_id`: a new tab with the `cat` pane first and one printer after another split
/// off it, laid out as a grid of near-equal cells (as tmux's `tiled`), the `cat` pane focused.
/// Returns the `cat` pane's id.
pub async fn signaltty_grid(
    server: &SignalttyServer,
    workspace_id: &str,
    cat: &[String],
    printers: &[Vec<String>],
) -> anyhow::Result<String> {
    let first = server.spawn_pane(workspace_id, cat).await?;
    let mut panes = PaneServiceClient::new(server.channel());
    let mut ids = vec![first.id.clone()];
    let mut tab_id = String::new();
    for argv in printers {
        let response = panes
            .split_pane(SplitPaneRequest {
                pane_id: first.id.clone(),
                direction: Direction::Right as i32,
                argv: argv.clone(),
                ..SplitPaneRequest::default()
            })
            .await
            .context("SplitPane")?
            .into_inner();
        ids.push(response.pane.context("SplitPane returned no pane")?.id);
        tab_id = response.tab.context("SplitPane returned no tab")?.id;
    }
    TabServiceClient::new(server.channel())
        .set_layout(SetLayoutRequest {
            tab_id,
            flat_layout: Some(signaltty_client::layout_tree::flatten(&grid(&ids))),
            ..Default::default()
        })
        .await
        .context("SetLayout")?;
    panes
        .focus_pane(FocusPaneRequest {
            pane_id: first.id.clone(),
            mark_seen: false,
        })
        .await
        .context("FocusPane")?;
    Ok(first.id)
}

/// Session `name` at `SIZE` with the `cat` pane first and the printers split off it, `tiled`,
/// the `cat` pane selected.
pub async fn tmux_grid(
    tmux: &mut TmuxServer,
    name: &str,
    cat: &[String],
    printers: &[Vec<String>],
) -> anyhow::Result<()> {
    let mut args: Vec<String> = ["new-session", "-d", "-s", name, "-x"]
        .into_iter()
        .map(String::from)
        .collect();
    args.extend([SIZE.cols.to_string(), "-y".into(), SIZE.rows.to_string()]);
    args.extend(cat.iter().cloned());
    tmux.run(&args).await?;
    tmux.learn_pid(name).await?;
    for argv in printers {
        let mut split: Vec<String> = vec!["split-window".into(), "-d".into(), "-t".into()];
        split.push(format!("{name}:0.0"));
        split.extend(argv.iter().cloned());
        tmux.run(&split).await?;
        // Re-tile after each split, or the next one finds no room.
        tmux.run(&["select-layout", "-t", name, "tiled"]).await?;
    }
    tmux.run(&["select-pane", "-t", &format!("{name}:0.0")])
        .await?;
    Ok(())
}

/// Columns of near-equal height, `ceil(sqrt(n))` of them, of near-equal width.
fn grid(ids: &[String]) -> Layout {
    let columns = (1..).find(|c| c * c >= ids.len()).unwrap_or(1);
    let per_column = ids.len().div_ceil(columns);
    let columns: Vec<Layout> = ids
        .chunks(per_column.max(1))
        .map(|column| {
            let leaves: Vec<Layout> = column
                .iter()
                .map(|id| Layout {
                    node: Some(Node::PaneId(id.clone())),
                })
                .collect();
            balanced(Direction::Down, leaves)
        })
        .collect();
    balanced(Direction::Right, columns)
}

/// A split tree over `parts` in `direction` giving each part the same share.
fn balanced(direction: Direction, mut parts: Vec<Layout>) -> Layout {
    if parts.len() <= 1 {
        return parts.pop().unwrap_or_default();
    }
    let second = parts.split_off(parts.len() / 2);
    let ratio = parts.len() as f32 / (parts.len() + second.len()) as f32;
    Layout {
        node: Some(Node::Split(Box::new(Split {
            direction: direction as i32,
            ratio,
            first: Some(Box::new(balanced(direction, parts))),
            second: Some(Box::new(balanced(direction, second))),
        }))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(layout: &Layout, out: &mut Vec<String>) {
        match &layout.node {
            Some(Node::PaneId(id)) => out.push(id.clone()),
            Some(Node::Split(split)) => {
                for part in [&split.first, &split.second].into_iter().flatten() {
                    leaves(part, out);
                }
            }
            None => {}
        }
    }

    #[test]
    fn the_grid_holds_every_pane_once_in_order() {
        for n in [1, 2, 5, 16, 17] {
            let ids: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
            let mut got = Vec::new();
            leaves(&grid(&ids), &mut got);
            assert_eq!(got, ids, "{n} panes");
        }
    }

    #[test]
    fn the_printer_never_prints_the_typed_keys() {
        let script = printer("tag", 3).join(" ");
        for key in super::super::tui::KEYS {
            assert!(!script.contains(key));
        }
    }
}
