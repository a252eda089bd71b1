// The live pane view: xterm.js fed by Attach (a Snapshot repaints, Outputs follow). Read-only
// by default; "Type" (full tokens only) re-attaches at the view's size and sends the keys
// through WriteInput.
import { Terminal } from "@xterm/xterm";
import { api, attach } from "./client.js";
import type { Pane } from "./gen/signaltty/v1/pane_pb.js";

const CELL_W = 8.4; // px per column at the 14px font, measured loosely: sizes the attach
const CELL_H = 17;

export class PaneView {
  private term: Terminal | undefined;
  private abort: AbortController | undefined;
  private typing = false;
  private pane: Pane | undefined;
  private dataHook: { dispose(): void } | undefined;

  constructor(
    private readonly root: HTMLElement,
    private readonly status: HTMLElement,
    private readonly canType: boolean,
  ) {}

  open(pane: Pane): void {
    this.close();
    this.pane = pane;
    this.typing = false;
    this.start();
  }

  setTyping(on: boolean): void {
    if (!this.pane || !this.canType) return;
    this.typing = on;
    this.start();
  }

  isTyping(): boolean {
    return this.typing;
  }

  close(): void {
    this.abort?.abort();
    this.abort = undefined;
    this.dataHook?.dispose();
    this.term?.dispose();
    this.term = undefined;
  }

  private fitSize(): { cols: number; rows: number } {
    const w = this.root.clientWidth || 640;
    const h = this.root.clientHeight || 400;
    return { cols: Math.max(20, Math.floor(w / CELL_W)), rows: Math.max(5, Math.floor(h / CELL_H)) };
  }

  private start(): void {
    const pane = this.pane;
    if (!pane) return;
    this.abort?.abort();
    this.dataHook?.dispose();
    this.term?.dispose();
    const term = new Terminal({ fontSize: 14, convertEol: false, scrollback: 1000, disableStdin: !this.typing });
    this.term = term;
    this.root.replaceChildren();
    term.open(this.root);
    const abort = new AbortController();
    this.abort = abort;
    const size = this.typing ? this.fitSize() : { cols: pane.cols || 80, rows: pane.rows || 24 };
    term.resize(size.cols, size.rows);
    if (this.typing) {
      // One WriteInput in flight at a time, keys typed meanwhile joined into the next: separate
      // requests may overtake each other, and keys must reach the pane in the order typed.
      let pending = "";
      let sending = false;
      const encoder = new TextEncoder();
      const flush = async () => {
        if (sending) return;
        sending = true;
        while (pending) {
          const data = pending;
          pending = "";
          try {
            await api.panes.writeInput({ paneId: pane.id, data: encoder.encode(data) });
          } catch (e) {
            this.say(`typing failed: ${e}`);
          }
        }
        sending = false;
      };
      this.dataHook = term.onData((data) => {
        pending += data;
        void flush();
      });
      term.focus();
    }
    this.say(this.typing ? "typing: keys go to the pane" : "watching (read-only)");
    void (async () => {
      try {
        for await (const msg of attach(pane.id, size.cols, size.rows, !this.typing, abort.signal)) {
          const k = msg.kind;
          if (k.case === "snapshot") {
            term.reset();
            term.resize(k.value.cols || size.cols, k.value.rows || size.rows);
            term.write(k.value.screen);
            this.root.dataset.ready = "1";
          } else if (k.case === "output") {
            term.write(k.value.data);
          } else if (k.case === "resized") {
            term.resize(k.value.cols, k.value.rows);
          } else if (k.case === "exited") {
            this.say(`the program exited (${k.value.code ?? "?"})`);
          }
        }
      } catch (e) {
        if (!abort.signal.aborted) this.say(`attach ended: ${e}`);
      }
    })();
  }

  private say(text: string): void {
    this.status.textContent = text;
  }
}
