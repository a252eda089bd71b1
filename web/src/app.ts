// The signaltty web page: the tree, the decision inbox, notifications, a live pane and the
// workspace diff, all from the server's API (generated client, gRPC-web) and kept live by
// its event stream.
import "@xterm/xterm/css/xterm.css";
import "./style.css";
import { ConnectError, Code } from "@connectrpc/connect";
import { api } from "./client.js";
import { load, follow, type Model } from "./state.js";
import { renderInbox, renderNotifications, renderTree, tickTimers, type Handlers } from "./view.js";
import { PaneView } from "./pane.js";
import { showDiff } from "./diff.js";
import type { Decision } from "./gen/signaltty/v1/agent_pb.js";

const $ = (id: string) => document.getElementById(id) as HTMLElement;

async function main(): Promise<void> {
  const session = await (await fetch("/session")).json();
  const canAct = session.access === "full";
  $("access").textContent = canAct ? "full access" : "read-only";
  document.body.classList.toggle("read-only", !canAct);

  const paneView = new PaneView($("term"), $("pane-status"), canAct);
  let model: Model | undefined;
  const seen = new Set<string>();
  let firstLoad = true;

  const handlers: Handlers = {
    canAct,
    openPane(pane) {
      $("side").dataset.show = "pane";
      $("pane-title").textContent = pane.title || pane.id;
      $("term").dataset.paneId = pane.id;
      delete $("term").dataset.ready;
      ($("typing") as HTMLButtonElement).textContent = "Type";
      paneView.open(pane);
    },
    openDiff(workspaceId, name) {
      $("side").dataset.show = "diff";
      paneView.close();
      void showDiff($("diff"), workspaceId, name);
    },
    answer(d: Decision, optionId: string, button: HTMLButtonElement) {
      button.disabled = true;
      api.decisions
        .answerDecision({ paneId: d.paneId, decisionId: d.id, optionId })
        .then(() => {
          flash(`answered: ${optionId}`);
          changed();
        })
        .catch((e) => {
          const err = ConnectError.from(e);
          const stale = err.code === Code.NotFound || err.code === Code.FailedPrecondition;
          flash(stale ? "this decision is no longer pending (answered elsewhere or the agent moved on)" : err.rawMessage);
          changed();
        });
    },
  };

  ($("typing") as HTMLButtonElement).onclick = (ev) => {
    const on = !paneView.isTyping();
    paneView.setTyping(on);
    (ev.target as HTMLButtonElement).textContent = on ? "Stop typing" : "Type";
  };
  $("close-side").onclick = () => {
    paneView.close();
    delete $("side").dataset.show;
  };
  $("alerts").onclick = () => void Notification.requestPermission().then(updateAlerts);
  updateAlerts();

  function render(m: Model): void {
    renderTree($("tree"), m, handlers);
    renderInbox($("inbox"), m, handlers);
    renderNotifications($("notifications"), m);
    $("inbox-count").textContent = String(m.decisions.length);
    document.title = m.decisions.length ? `(${m.decisions.length}) signaltty` : "signaltty";
    for (const d of m.decisions) {
      if (!seen.has(d.id) && !firstLoad) alert(d);
      seen.add(d.id);
    }
    firstLoad = false;
    document.body.dataset.loadedAt = String(m.loadedAt);
  }

  // One read in flight at a time; changes during it cause one more.
  let busy = false;
  let again = false;
  async function refresh(): Promise<void> {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        model = await load();
        render(model);
        $("conn").textContent = "live";
      } while (again);
    } catch (e) {
      $("conn").textContent = `disconnected: ${ConnectError.from(e).rawMessage}`;
    } finally {
      busy = false;
    }
  }
  function changed(): void {
    void refresh();
  }

  model = await load();
  render(model);
  $("conn").textContent = "live";
  setInterval(() => tickTimers($("tree")), 1000);
  void follow(model.headSeq, changed);
}

function alert(d: Decision): void {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  new Notification(`signaltty: ${d.toolName || "decision"}`, { body: d.prompt, tag: d.id });
}

function updateAlerts(): void {
  const b = $("alerts") as HTMLButtonElement;
  const p = typeof Notification === "undefined" ? "unsupported" : Notification.permission;
  b.textContent = p === "granted" ? "alerts on" : p === "denied" ? "alerts blocked" : "enable alerts";
  b.disabled = p !== "default";
}

let flashTimer: number | undefined;
function flash(text: string): void {
  const f = $("flash");
  f.textContent = text;
  f.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = window.setTimeout(() => (f.hidden = true), 5000);
}

main().catch((e) => {
  $("conn").textContent = `cannot load: ${e}`;
});
