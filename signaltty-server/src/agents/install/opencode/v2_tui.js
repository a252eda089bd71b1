// signaltty hook-event (managed): written by signaltty; reinstalling replaces it, uninstalling removes it.
// OpenCode 2 plugin, TUI part: the terminal UI runs in the signaltty pane (the server part may
// run in a shared background service that serves several terminals), so this part reports the
// sessions this terminal shows (docs/agents.md). Plugin.define returns its definition; the plain
// definition is exported so that the file needs no package to load.
__SIGNALTTY_REPORT__
const V2_EVENTS = [
  "session.created", "session.status", "session.idle", "session.error",
  "session.execution.started", "session.execution.succeeded",
  "session.execution.interrupted", "session.execution.failed",
  "permission.asked", "permission.replied",
  "question.asked", "question.replied", "question.rejected",
];

function attempt(f, fallback) {
  try {
    return f();
  } catch (_) {
    return fallback;
  }
}

export default {
  id: "signaltty",
  setup(context) {
    if (!process.env.SIGNALTTY_PANE) return;
    const data = context.data;
    const root = (id) => attempt(() => data.session.root(id), undefined) || id;
    // The event feed is global: a session another terminal shows is not this pane's. While this
    // terminal shows no session yet (its home screen), the one starting is taken as its own.
    const shown = (id) => {
      const ui = context.ui;
      if (!ui) return true;
      const r = root(id);
      const tabs = attempt(() => ui.tabs.list(), undefined);
      if (Array.isArray(tabs) && tabs.some((t) => t.sessionID === r)) return true;
      const route = attempt(() => ui.router.current(), undefined);
      if (route && route.type === "session") return root(route.sessionID) === r;
      return true;
    };
    const child = (id) => Boolean(attempt(() => data.session.get(id)?.parentID, undefined));
    const stops = V2_EVENTS.map((type) =>
      data.on(type, (event) => {
        const d = (event && event.data) || {};
        const id = d.sessionID ?? d.info?.id;
        // Sub-agent sessions run inside the parent's turn: only their asks concern the pane.
        const ask = type.startsWith("permission.") || type.startsWith("question.");
        if (!id || (!ask && child(id)) || !shown(id)) return;
        if (type === "session.status") {
          const status = d.status?.type ?? d.status;
          if (status !== "busy" && status !== "idle" && status !== "retry") return;
          // A retry carries OpenCode's error text ("Cannot connect to API …").
          const message = status === "retry" ? d.status?.message : undefined;
          report(type, { session_id: root(id), status, message });
          return;
        }
        if (type === "permission.asked") remember_ask(d);
        report(type, payload(root(id), type === "permission.replied" ? with_ask(d) : d));
      }),
    );
    return () => stops.forEach((stop) => attempt(() => stop(), undefined));
  },
};
