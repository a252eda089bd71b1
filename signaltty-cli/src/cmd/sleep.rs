//! `signaltty pane hibernate|wake` (the server's hibernation of idle agents) and
//! `signaltty pane list --resources` (each pane's process tree's memory and CPU).

use std::collections::HashMap;

use serde::Serialize;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use tonic::transport::Channel;

use super::Ctx;
use crate::error::CliResult;
use crate::table::Table;

/// `pane hibernate PANE`: prints the pane, and how its agent stopped.
pub async fn hibernate(
    ctx: &Ctx,
    client: &mut PaneServiceClient<Channel>,
    pane: String,
) -> CliResult {
    let reply = client
        .hibernate_pane(pb::HibernatePaneRequest { pane_id: pane })
        .await?
        .into_inner();
    if !ctx.out.is_json() {
        eprintln!("stopped by: {}", reply.stopped_by);
    }
    super::show::print_pane(ctx, reply.pane)
}

/// `pane wake PANE`.
pub async fn wake(ctx: &Ctx, client: &mut PaneServiceClient<Channel>, pane: String) -> CliResult {
    let reply = client
        .wake_pane(pb::WakePaneRequest { pane_id: pane })
        .await?
        .into_inner();
    super::show::print_pane(ctx, reply.pane)
}

#[derive(Serialize)]
struct JsonUsage<'a> {
    pane_id: &'a str,
    workspace_id: &'a str,
    rss_bytes: u64,
    cpu_ms: u64,
    processes: u32,
}

#[derive(Serialize)]
struct JsonWorkspace<'a> {
    workspace_id: &'a str,
    rss_bytes: u64,
    cpu_ms: u64,
    live_panes: u32,
}

#[derive(Serialize)]
struct JsonResources<'a> {
    panes: Vec<JsonUsage<'a>>,
    workspaces: Vec<JsonWorkspace<'a>>,
    server_rss_bytes: u64,
    server_cpu_ms: u64,
}

/// `pane list --resources`: one row per listed pane (RSS, CPU, processes), then one per
/// workspace, then the server's own.
pub async fn list_resources(
    ctx: &Ctx,
    client: &mut PaneServiceClient<Channel>,
    panes: &[pb::Pane],
    workspace_id: String,
    names: &HashMap<String, String>,
) -> CliResult {
    let r = client
        .get_resources(pb::GetResourcesRequest { workspace_id })
        .await?
        .into_inner();
    let by_pane: HashMap<&str, &pb::PaneResources> =
        r.panes.iter().map(|p| (p.pane_id.as_str(), p)).collect();
    let listed: Vec<&pb::PaneResources> = panes
        .iter()
        .filter_map(|p| by_pane.get(p.id.as_str()).copied())
        .collect();
    if ctx.out.is_json() {
        return ctx.out.json(&JsonResources {
            panes: listed
                .iter()
                .map(|p| JsonUsage {
                    pane_id: &p.pane_id,
                    workspace_id: &p.workspace_id,
                    rss_bytes: p.rss_bytes,
                    cpu_ms: p.cpu_ms,
                    processes: p.processes,
                })
                .collect(),
            workspaces: r
                .workspaces
                .iter()
                .map(|w| JsonWorkspace {
                    workspace_id: &w.workspace_id,
                    rss_bytes: w.rss_bytes,
                    cpu_ms: w.cpu_ms,
                    live_panes: w.live_panes,
                })
                .collect(),
            server_rss_bytes: r.server_rss_bytes,
            server_cpu_ms: r.server_cpu_ms,
        });
    }
    let status: HashMap<&str, &pb::Pane> = panes.iter().map(|p| (p.id.as_str(), p)).collect();
    let mut table = Table::new(&["ID", "TITLE", "STATUS", "RSS", "CPU", "PROCS"]).max_width(1, 24);
    for p in &listed {
        let pane = status.get(p.pane_id.as_str());
        table.row([
            p.pane_id.clone(),
            pane.map(|p| p.title.clone()).unwrap_or_default(),
            pane.map(|p| crate::present::names::name::<pb::PaneStatus>(p.status))
                .unwrap_or_default(),
            bytes(p.rss_bytes),
            cpu(p.cpu_ms),
            p.processes.to_string(),
        ]);
    }
    let mut sums = Table::new(&["WORKSPACE", "RSS", "CPU", "LIVE PANES"]).max_width(0, 24);
    for w in &r.workspaces {
        sums.row([
            names
                .get(&w.workspace_id)
                .cloned()
                .unwrap_or_else(|| w.workspace_id.clone()),
            bytes(w.rss_bytes),
            cpu(w.cpu_ms),
            w.live_panes.to_string(),
        ]);
    }
    ctx.out.text(&format!(
        "{}\n{}\nserver: {} RSS, {} CPU\n",
        table.render(),
        sums.render(),
        bytes(r.server_rss_bytes),
        cpu(r.server_cpu_ms)
    ))
}

/// Bytes as KiB/MiB/GiB with one decimal.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// CPU time as seconds with two decimals.
fn cpu(ms: u64) -> String {
    format!("{:.2}s", ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_read_like_ps() {
        assert_eq!(super::bytes(512), "512 B");
        assert_eq!(super::bytes(1536), "1.5 KiB");
        assert_eq!(super::bytes(14 * 1024 * 1024), "14.0 MiB");
        assert_eq!(super::cpu(1234), "1.23s");
    }
}
