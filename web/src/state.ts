// The page's model: the whole tree, pending decisions and notifications, re-read from the
// server whenever an event says something changed (at most one read in flight; events that
// come meanwhile cause one more). Simple and always consistent with the server.
import type { Workspace } from "./gen/signaltty/v1/workspace_pb.js";
import type { Tab } from "./gen/signaltty/v1/tab_pb.js";
import type { Pane } from "./gen/signaltty/v1/pane_pb.js";
import type { Decision } from "./gen/signaltty/v1/agent_pb.js";
import type { Notification } from "./gen/signaltty/v1/notification_pb.js";
import { api } from "./client.js";

export interface WorkspaceView {
  workspace: Workspace;
  tabs: Tab[];
  panes: Pane[];
}

export interface Model {
  workspaces: WorkspaceView[];
  decisions: Decision[];
  notifications: Notification[];
  headSeq: bigint;
  loadedAt: number;
}

export async function load(): Promise<Model> {
  const status = await api.server.getStatus({});
  const list = await api.workspaces.listWorkspaces({});
  const workspaces = await Promise.all(
    list.workspaces.map(async (w) => {
      const full = await api.workspaces.getWorkspace({ workspaceId: w.id });
      return { workspace: full.workspace ?? w, tabs: full.tabs, panes: full.panes };
    }),
  );
  const decisions = (await api.decisions.listPendingDecisions({})).decisions;
  const notifications = (await api.notifications.listNotifications({ limit: 50 })).notifications;
  return { workspaces, decisions, notifications, headSeq: status.headSeq, loadedAt: Date.now() };
}

// Follows the event stream from `fromSeq`, calling `changed` for every event (and after a
// lost history). Reconnects after a second when the stream ends.
export async function follow(fromSeq: bigint, changed: () => void): Promise<never> {
  let seq = fromSeq;
  for (;;) {
    try {
      for await (const msg of api.events.subscribe({ fromSeq: seq })) {
        if (msg.kind.case === "event") {
          seq = msg.kind.value.seq;
          changed();
        } else if (msg.kind.case === "historyLost" || msg.kind.case === "lagged") {
          changed();
        }
      }
    } catch (err) {
      console.warn("event stream ended", err);
    }
    await new Promise((r) => setTimeout(r, 1000));
    changed();
  }
}
