// Rendering: the tree, the decision inbox and the notification list, from the model. Plain
// DOM, rebuilt per change (a handful of nodes); every text goes in as text, never as HTML,
// since titles and messages come from the programs in the panes.
import { Lifecycle, Attention } from "./gen/signaltty/v1/lifecycle_pb.js";
import type { Pane } from "./gen/signaltty/v1/pane_pb.js";
import type { Decision } from "./gen/signaltty/v1/agent_pb.js";
import type { Model } from "./state.js";

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

const GLYPH: Record<number, string> = {
  [Lifecycle.UNSPECIFIED]: "?",
  [Lifecycle.UNKNOWN]: "·",
  [Lifecycle.IDLE]: "○",
  [Lifecycle.WORKING]: "●",
  [Lifecycle.BLOCKED]: "◆",
  [Lifecycle.DONE]: "✓",
  [Lifecycle.FAILED]: "✗",
  [Lifecycle.EXITED]: "■",
};

export function lifecycleName(l: Lifecycle): string {
  return (Lifecycle[l] ?? "UNKNOWN").toLowerCase();
}

function attentionName(a: Attention): string {
  return a === Attention.NONE || a === Attention.UNSPECIFIED ? "" : (Attention[a] ?? "").toLowerCase().replace(/_/g, " ");
}

export function age(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

function since(p: Pane): number | undefined {
  return p.lifecycleSince ? Number(p.lifecycleSince.seconds) * 1000 + p.lifecycleSince.nanos / 1e6 : undefined;
}

export interface Handlers {
  openPane(pane: Pane): void;
  openDiff(workspaceId: string, name: string): void;
  answer(d: Decision, optionId: string, button: HTMLButtonElement): void;
  canAct: boolean;
}

export function renderTree(root: HTMLElement, model: Model, h: Handlers): void {
  const list = el("ul", { class: "tree" });
  for (const w of model.workspaces) {
    const git = w.workspace.git;
    const branch = git?.branch ? ` · ${git.branch}${git.dirty ? "*" : ""}` : "";
    const diff = el("button", { class: "small", "data-testid": "diff" }, "diff");
    diff.onclick = () => h.openDiff(w.workspace.id, w.workspace.name);
    const tabs = el("ul");
    for (const t of w.tabs) {
      const panes = el("ul");
      for (const paneId of t.paneIds) {
        const p = w.panes.find((x) => x.id === paneId);
        if (!p) continue;
        const started = since(p);
        const row = el(
          "li",
          { class: `pane lc-${lifecycleName(p.lifecycle)}`, "data-pane-id": p.id, "data-state": lifecycleName(p.lifecycle) },
          el("span", { class: "glyph", title: lifecycleName(p.lifecycle) }, GLYPH[p.lifecycle] ?? "?"),
          el("span", { class: "title" }, p.title || p.argv.join(" ") || p.id),
          el("span", { class: "state" }, lifecycleName(p.lifecycle)),
          el("span", { class: "timer", "data-since": started ? String(started) : "" }),
          el("span", { class: "attention" }, attentionName(p.attention)),
          el("div", { class: "last" }, p.lastMessage),
        );
        row.onclick = () => h.openPane(p);
        panes.append(row);
      }
      tabs.append(el("li", { class: "tab" }, el("span", { class: "tab-title" }, t.title || t.id), panes));
    }
    list.append(
      el("li", { class: "workspace", "data-workspace-id": w.workspace.id },
        el("div", { class: "ws-head" }, el("strong", {}, w.workspace.name), el("span", { class: "dim" }, branch), diff),
        tabs),
    );
  }
  if (model.workspaces.length === 0) list.append(el("li", { class: "dim" }, "No workspaces. Start one with `signaltty new`."));
  root.replaceChildren(list);
  tickTimers(root);
}

export function tickTimers(root: HTMLElement): void {
  const now = Date.now();
  for (const t of root.querySelectorAll<HTMLElement>(".timer")) {
    const s = Number(t.dataset.since);
    t.textContent = s ? age((now - s) / 1000) : "";
  }
}

export function renderInbox(root: HTMLElement, model: Model, h: Handlers): void {
  const items = model.decisions.map((d) => {
    const pane = model.workspaces.flatMap((w) => w.panes).find((p) => p.id === d.paneId);
    const buttons = el("div", { class: "options" });
    for (const o of d.options) {
      const b = el("button", { class: "option", "data-option-id": o.id }, o.label || o.id);
      b.disabled = !h.canAct || !d.answerable;
      b.onclick = () => h.answer(d, o.id, b);
      buttons.append(b);
    }
    const note = !h.canAct ? "read-only token: watch only" : !d.answerable ? "not answerable from a client" : "";
    return el(
      "li",
      { class: "decision", "data-decision-id": d.id },
      el("div", { class: "where dim" }, pane ? pane.title || pane.id : d.paneId, d.toolName ? ` · ${d.toolName}` : ""),
      el("div", { class: "prompt" }, d.prompt),
      d.detail ? el("pre", { class: "detail" }, d.detail) : "",
      buttons,
      el("div", { class: "note dim" }, note),
    );
  });
  root.replaceChildren(...(items.length ? items : [el("li", { class: "dim" }, "Nothing waits for you.")]));
}

export function renderNotifications(root: HTMLElement, model: Model): void {
  const items = model.notifications.map((n) =>
    el(
      "li",
      { class: `notification ${n.read ? "read" : "unread"}`, "data-notification-id": n.id },
      el("strong", {}, n.title),
      " ",
      el("span", {}, n.body),
    ),
  );
  root.replaceChildren(...(items.length ? items : [el("li", { class: "dim" }, "No notifications.")]));
}
