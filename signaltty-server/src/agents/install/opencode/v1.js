// signaltty hook-event (managed): written by signaltty; reinstalling replaces it, uninstalling removes it.
// OpenCode 1 plugin: reports this pane's OpenCode session events to signaltty (docs/agents.md).
__SIGNALTTY_REPORT__
const V1_EVENTS = new Set([
  "session.created", "session.status", "session.idle", "session.error",
  "permission.asked", "permission.updated", "permission.replied",
  "question.asked", "question.replied", "question.rejected",
]);
// Sub-agent session → its parent: sub-agents run inside the parent's turn, so their session
// events are not the pane's state, but their permission and question asks are.
const parents = new Map();

export const SignalttyPlugin = async ({ client } = {}) => ({
  event: async ({ event }) => {
    if (!event || !V1_EVENTS.has(event.type)) return;
    const p = event.properties ?? {};
    const session_id = p.sessionID ?? p.sessionId ?? p.session_id ?? p.info?.id;
    if (event.type === "session.created" && p.info?.parentID) {
      parents.set(p.info.id, p.info.parentID);
      return;
    }
    if (!session_id) return;
    const ask = event.type.startsWith("permission.") || event.type.startsWith("question.");
    if (parents.has(session_id) && !ask) return;
    if (ask) {
      if (event.type === "permission.asked" || event.type === "permission.updated") remember_ask(p);
      const data = event.type === "permission.replied" ? with_ask(p) : p;
      // An ask waits for an answer from signaltty, which is passed to OpenCode as if the user
      // had chosen it in OpenCode's dialog.
      const answer =
        event.type === "permission.asked" && p.id && client
          ? (verdict) =>
              client.postSessionIdPermissionsPermissionId({
                path: { id: session_id, permissionID: p.id },
                body: { response: verdict.reply },
              })
          : undefined;
      report(event.type, payload(parents.get(session_id) ?? session_id, data), answer);
      return;
    }
    if (event.type === "session.status") {
      const status = p.status?.type;
      if (status !== "busy" && status !== "idle" && status !== "retry") return;
      // A retry carries OpenCode's error text ("Cannot connect to API …").
      const message = status === "retry" ? p.status?.message : undefined;
      report(event.type, { session_id, status, message });
      return;
    }
    report(event.type, payload(session_id, p));
  },
});
