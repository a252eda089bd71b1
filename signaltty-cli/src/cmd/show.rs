//! Printing the records a command's reply carries (a pane, a new pane with its tab, a tab), shared
//! by the `pane`, `tab`, `new` and arrangement commands, which all answer with one of them.

use serde::Serialize;
use signaltty_proto::v1 as pb;

use super::Ctx;
use crate::error::{CliError, CliResult};
use crate::human;
use crate::present::json::{JsonPane, JsonTab};

/// A new pane and the tab holding it, as printed by spawn, split and `new`.
#[derive(Debug, Serialize)]
pub struct JsonSpawned {
    /// The new pane.
    pub pane: Option<JsonPane>,
    /// Its tab.
    pub tab: Option<JsonTab>,
}

/// Prints one pane (details, or JSON).
pub fn print_pane(ctx: &Ctx, pane: Option<pb::Pane>) -> CliResult {
    let pane = pane.ok_or_else(|| CliError::local("the server's reply carried no pane"))?;
    if ctx.out.is_json() {
        return ctx.out.json(&JsonPane::from(&pane));
    }
    ctx.out.text(&human::pane_details(&pane))
}

/// Prints a new pane: its id for humans (handy in scripts), pane and tab for `--json`.
pub fn print_spawned(ctx: &Ctx, pane: Option<&pb::Pane>, tab: Option<&pb::Tab>) -> CliResult {
    if ctx.out.is_json() {
        return ctx.out.json(&JsonSpawned {
            pane: pane.map(JsonPane::from),
            tab: tab.map(JsonTab::from),
        });
    }
    let pane = pane.ok_or_else(|| CliError::local("the server's reply carried no pane"))?;
    ctx.out.line(&pane.id)
}

/// Prints a tab (details and layout tree, or JSON).
pub fn print_tab(ctx: &Ctx, tab: &pb::Tab) -> CliResult {
    if ctx.out.is_json() {
        return ctx.out.json(&JsonTab::from(tab));
    }
    ctx.out.text(&human::tab_details(tab))
}
