// The workspace diff: per-file added/removed against HEAD (GetWorkspaceDiff), a file's hunks
// on click (GetFileDiff).
import { api } from "./client.js";
import { el } from "./view.js";

export async function showDiff(root: HTMLElement, workspaceId: string, name: string): Promise<void> {
  root.replaceChildren(el("h2", {}, `Diff · ${name}`), el("p", { class: "dim" }, "loading…"));
  try {
    const diff = await api.git.getWorkspaceDiff({ workspaceId });
    const files = el("ul", { class: "files" });
    const hunks = el("div", { class: "hunks" });
    for (const f of diff.files) {
      const row = el(
        "li",
        { class: "file", "data-path": f.path },
        el("span", { class: "add" }, `+${f.added}`),
        " ",
        el("span", { class: "del" }, `-${f.removed}`),
        " ",
        f.path,
        f.untracked ? " (new)" : "",
      );
      row.onclick = async () => {
        hunks.replaceChildren(el("p", { class: "dim" }, "loading…"));
        try {
          const fd = await api.git.getFileDiff({ workspaceId, path: f.path, oldPath: f.oldPath });
          const pre = el("pre", { class: "hunk" });
          for (const h of fd.hunks) {
            pre.append(el("span", { class: "dim" }, `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n`));
            for (const l of h.lines) {
              const sign = l.kind === 2 ? "+" : l.kind === 3 ? "-" : " ";
              pre.append(el("span", { class: sign === "+" ? "add" : sign === "-" ? "del" : "" }, `${sign}${l.text}\n`));
            }
          }
          hunks.replaceChildren(el("h3", {}, f.path), fd.reason ? el("p", { class: "dim" }, fd.reason) : "", pre);
        } catch (e) {
          hunks.replaceChildren(el("p", { class: "error" }, String(e)));
        }
      };
      files.append(row);
    }
    root.replaceChildren(
      el("h2", {}, `Diff · ${name}`),
      diff.files.length ? files : el("p", { class: "dim" }, "No changes against HEAD."),
      hunks,
    );
  } catch (e) {
    root.replaceChildren(el("h2", {}, `Diff · ${name}`), el("p", { class: "error" }, String(e)));
  }
}
