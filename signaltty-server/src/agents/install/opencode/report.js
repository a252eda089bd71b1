// Reports events to the signaltty server that runs this pane, without ever holding OpenCode:
// the handler only queues; each report is a `signaltty hook-event` child started later, one at a time in order,
// killed after REPORT_TIMEOUT_MS; at most MAX_QUEUED reports wait (the oldest are dropped). What
// is left when OpenCode exits is sent before it goes (the exit handler at the end).
// Outside a signaltty pane (no SIGNALTTY_PANE) nothing is reported.
import { spawn, spawnSync } from "node:child_process";

const PROGRAM = __SIGNALTTY_PROGRAM__;
const REPORT_TIMEOUT_MS = 5000;
const MAX_QUEUED = 64;
const FLUSH_MS = 2000;
const queue = [];
let busy = false;
// The report whose child runs now: it may not have reached the server when OpenCode exits.
let current = null;

function report(event, payload) {
  if (!process.env.SIGNALTTY_PANE) return;
  if (queue.length >= MAX_QUEUED) queue.shift();
  queue.push([event, payload]);
  // Even starting the child happens after the handler returned.
  if (!busy) {
    busy = true;
    setImmediate(next);
  }
}

function next() {
  const item = queue.shift();
  if (!item) {
    busy = false;
    return;
  }
  busy = true;
  current = item;
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
    current = null;
    clearTimeout(timer);
    setImmediate(next);
  };
  const timer = setTimeout(() => child && child.kill("SIGKILL"), REPORT_TIMEOUT_MS);
  let child;
  try {
    child = spawn(PROGRAM, ["hook-event", "--agent", "opencode", "--event", item[0], "--payload-stdin"], {
      stdio: ["pipe", "ignore", "ignore"],
    });
  } catch (_) {
    // Best effort: a missing CLI must never disturb the agent.
    done();
    return;
  }
  child.once("error", done);
  child.once("close", done);
  child.stdin.on("error", () => {});
  child.stdin.end(JSON.stringify(item[1]));
}

// `opencode run` exits as soon as its turn ends, and the reports still queued (its error, its
// idle) were lost with it. An exit handler cannot wait for children, so only here are they sent
// synchronously: in order, the unconfirmed current one again (a report repeated changes
// nothing), all of them within FLUSH_MS.
process.once("exit", () => {
  const left = current ? [current, ...queue] : [...queue];
  queue.length = 0;
  const until = Date.now() + FLUSH_MS;
  for (const [event, data] of left) {
    const wait = until - Date.now();
    if (wait <= 0) return;
    try {
      spawnSync(PROGRAM, ["hook-event", "--agent", "opencode", "--event", event, "--payload-stdin"], {
        input: JSON.stringify(data),
        stdio: ["pipe", "ignore", "ignore"],
        timeout: wait,
        killSignal: "SIGKILL",
      });
    } catch (_) {
      return;
    }
  }
});

// The fields of an event worth forwarding, with the session id under the name the server reads.
const FIELDS = ["status", "error", "reason", "permission", "type", "title", "patterns", "pattern", "questions", "message", "reply"];
function payload(session_id, data) {
  const out = { session_id };
  for (const key of FIELDS) if (data && data[key] !== undefined) out[key] = data[key];
  return out;
}

// Open permission asks by id: a reply names only the request, and a reject should say what was
// rejected. Bounded like the queue.
const asks = new Map();
function remember_ask(d) {
  if (!d || !d.id) return;
  if (asks.size >= MAX_QUEUED) asks.delete(asks.keys().next().value);
  asks.set(d.id, { permission: d.permission, patterns: d.patterns });
}
function with_ask(d) {
  const id = d && (d.requestID ?? d.permissionID ?? d.id);
  const ask = asks.get(id);
  asks.delete(id);
  return ask ? { ...ask, ...d } : d;
}
