//! `signaltty notify | notifications | mark-read | next-unread`: raising, listing and clearing
//! notifications, and finding the pane that most needs the user.

use crate::present::json::{self, JsonNotification, JsonPane};
use crate::present::names::{self, name};
use crate::present::text;
use clap::{ArgGroup, Args};
use serde::Serialize;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::notification_service_client::NotificationServiceClient;

use super::Ctx;
use super::hook_event::PANE_ENV;
use crate::error::CliResult;
use crate::resolve::Kind;
use crate::table::Table;

/// `signaltty notify`
#[derive(Debug, Args)]
pub struct NotifyArgs {
    /// The pane it concerns [default: $SIGNALTTY_PANE, if set].
    #[arg(long)]
    pane: Option<String>,
    /// Title.
    #[arg(long)]
    title: Option<String>,
    /// info, warning or error [default: info].
    #[arg(long, value_parser = names::parse::<pb::Severity>)]
    severity: Option<pb::Severity>,
    /// The message.
    #[arg(required = true)]
    body: Vec<String>,
}

/// `signaltty notifications`
#[derive(Debug, Args)]
pub struct NotificationsArgs {
    /// Only unread ones.
    #[arg(long)]
    unread: bool,
    /// Only this pane's.
    #[arg(long)]
    pane: Option<String>,
    /// Only this workspace's.
    #[arg(long, visible_alias = "ws", value_name = "WS")]
    workspace: Option<String>,
    /// At most this many (newest first).
    #[arg(long, value_name = "N")]
    limit: Option<u32>,
}

/// `signaltty mark-read`
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("which").required(true).args(["id", "pane"])))]
pub struct MarkReadArgs {
    /// One notification.
    #[arg(long)]
    id: Option<String>,
    /// Every notification of this pane.
    #[arg(long)]
    pane: Option<String>,
}

/// `signaltty next-unread`
#[derive(Debug, Args)]
pub struct NextUnreadArgs {
    /// Only within this workspace.
    #[arg(long, visible_alias = "ws", value_name = "WS")]
    workspace: Option<String>,
}

/// Runs `signaltty notify`.
pub async fn cmd_notify(ctx: &Ctx, args: NotifyArgs) -> CliResult {
    let conn = ctx.client().await?;
    let mut client = NotificationServiceClient::new(conn.channel());
    let pane_id = match args.pane {
        Some(word) => ctx.resolve(&conn, Kind::Pane, Some(&word)).await?,
        None => std::env::var(PANE_ENV).unwrap_or_default(),
    };
    let request = pb::NotifyRequest {
        pane_id,
        title: args.title.unwrap_or_default(),
        body: args.body.join(" "),
        severity: args.severity.map(|s| s as i32).unwrap_or_default(),
    };
    let reply = client.notify(request).await?.into_inner();
    let notification = reply.notification.unwrap_or_default();
    if ctx.out.is_json() {
        return ctx.out.json(&JsonNotification::from(&notification));
    }
    ctx.out.line(&notification.id)
}

/// Runs `signaltty notifications`.
pub async fn cmd_notifications(ctx: &Ctx, mut args: NotificationsArgs) -> CliResult {
    let conn = ctx.client().await?;
    let mut client = NotificationServiceClient::new(conn.channel());
    args.pane = resolve_opt(ctx, &conn, Kind::Pane, args.pane).await?;
    args.workspace = resolve_opt(ctx, &conn, Kind::Workspace, args.workspace).await?;
    let request = pb::ListNotificationsRequest {
        unread_only: args.unread,
        pane_id: args.pane.unwrap_or_default(),
        workspace_id: args.workspace.unwrap_or_default(),
        limit: args.limit.unwrap_or(0),
    };
    let list = client
        .list_notifications(request)
        .await?
        .into_inner()
        .notifications;
    if ctx.out.is_json() {
        return ctx.out.json(&json::list::<_, JsonNotification>(&list));
    }
    let mut table = Table::new(&["ID", "AGE", "SEVERITY", "PANE", "READ", "TITLE", "BODY"])
        .max_width(5, 30)
        .max_width(6, 60);
    for n in &list {
        table.row([
            n.id.clone(),
            text::age(&n.created_at),
            name::<pb::Severity>(n.severity),
            text::or_dash(&n.pane_id),
            if n.read { "yes" } else { "no" }.to_string(),
            n.title.clone(),
            n.body.clone(),
        ]);
    }
    ctx.out.text(&table.render())
}

/// Runs `signaltty mark-read`.
pub async fn cmd_mark_read(ctx: &Ctx, mut args: MarkReadArgs) -> CliResult {
    let conn = ctx.client().await?;
    let mut client = NotificationServiceClient::new(conn.channel());
    args.pane = resolve_opt(ctx, &conn, Kind::Pane, args.pane).await?;
    let request = pb::MarkNotificationReadRequest {
        notification_id: args.id.unwrap_or_default(),
        pane_id: args.pane.unwrap_or_default(),
    };
    let marked = client
        .mark_notification_read(request)
        .await?
        .into_inner()
        .marked;
    if ctx.out.is_json() {
        return ctx.out.json(&serde_json::json!({ "marked": marked }));
    }
    ctx.out.line(format_args!("{marked} marked read"))
}

#[derive(Serialize)]
struct JsonNextUnread {
    pane: Option<JsonPane>,
    notification: Option<JsonNotification>,
}

/// Runs `signaltty next-unread`.
pub async fn cmd_next_unread(ctx: &Ctx, mut args: NextUnreadArgs) -> CliResult {
    let conn = ctx.client().await?;
    let mut client = NotificationServiceClient::new(conn.channel());
    args.workspace = resolve_opt(ctx, &conn, Kind::Workspace, args.workspace).await?;
    let request = pb::NextUnreadRequest {
        workspace_id: args.workspace.unwrap_or_default(),
    };
    let reply = client.next_unread(request).await?.into_inner();
    if ctx.out.is_json() {
        return ctx.out.json(&JsonNextUnread {
            pane: reply.pane.as_ref().map(JsonPane::from),
            notification: reply.notification.as_ref().map(JsonNotification::from),
        });
    }
    let Some(pane) = reply.pane else {
        return ctx.out.line("no pane needs attention");
    };
    let mut table = Table::new(&["PANE", "ATTENTION", "LIFECYCLE", "TITLE", "MESSAGE"])
        .max_width(3, 30)
        .max_width(4, 60);
    let message = match &reply.notification {
        Some(n) if n.title.is_empty() => n.body.clone(),
        Some(n) => format!("{}: {}", n.title, n.body),
        None => pane.last_message.clone(),
    };
    table.row([
        pane.id.clone(),
        name::<pb::Attention>(pane.attention),
        name::<pb::Lifecycle>(pane.lifecycle),
        pane.title.clone(),
        message,
    ]);
    ctx.out.text(&table.render())
}

/// Resolves an optional id argument (names, prefixes, `-`); `None` stays `None`.
async fn resolve_opt(
    ctx: &Ctx,
    conn: &signaltty_client::Client,
    kind: Kind,
    word: Option<String>,
) -> CliResult<Option<String>> {
    match word {
        Some(word) => Ok(Some(ctx.resolve(conn, kind, Some(&word)).await?)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Command};
    use clap::Parser;
    use signaltty_proto::v1 as pb;

    #[test]
    fn notify_parses_severity_and_joins_the_body() {
        let cli = Cli::try_parse_from([
            "signaltty",
            "notify",
            "--severity",
            "warning",
            "build",
            "failed",
        ])
        .expect("valid");
        let Command::Notify(args) = cli.command else {
            panic!("notify")
        };
        assert_eq!(args.severity, Some(pb::Severity::Warning));
        assert_eq!(args.body.join(" "), "build failed");
        assert!(Cli::try_parse_from(["signaltty", "notify", "--severity", "loud", "x"]).is_err());
    }

    #[test]
    fn mark_read_needs_id_or_pane() {
        assert!(Cli::try_parse_from(["signaltty", "mark-read"]).is_err());
        assert!(Cli::try_parse_from(["signaltty", "mark-read", "--id", "notif_1"]).is_ok());
        assert!(
            Cli::try_parse_from(["signaltty", "mark-read", "--id", "n", "--pane", "p"]).is_err()
        );
    }
}
