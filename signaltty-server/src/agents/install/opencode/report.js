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
// How long a permission ask waits for an answer from signaltty (the CLI's longest).
const ANSWER_WAIT_S = 120;
const ASK_HEAD_START_MS = 300;
const queue = [];
let busy = false;
// The report whose child runs now: it may not have reached the server when OpenCode exits.
let current = null;

// `on_verdict`, when given, makes the report wait for an answer from signaltty (a permission
// ask): it is called with the verdict (`{reply, message}`) if one comes.
function report(event, payload, on_verdict) {
  if (!process.env.SIGNALTTY_PANE) return;
  if (queue.length >= MAX_QUEUED) queue.shift();
  queue.push([event, payload, on_verdict]);
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
  const on_verdict = item[2];
  const args = ["hook-event", "--agent", "opencode", "--event", item[0], "--payload-stdin"];
  if (on_verdict) args.push("--wait-for-answer", "--timeout", String(ANSWER_WAIT_S));
  // A waiting report is killed only when its wait is over.
  const limit = on_verdict ? (ANSWER_WAIT_S + 10) * 1000 : REPORT_TIMEOUT_MS;
  const timer = setTimeout(() => child && child.kill("SIGKILL"), limit);
  let child;
  try {
    child = spawn(PROGRAM, args, { stdio: ["pipe", on_verdict ? "pipe" : "ignore", "ignore"] });
  } catch (_) {
    // Best effort: a missing CLI must never disturb the agent.
    done();
    return;
  }
  child.once("error", done);
  child.stdin.on("error", () => {});
  child.stdin.end(JSON.stringify(item[1]));
  if (!on_verdict) {
    child.once("close", done);
    return;
  }
  // The ask waits beside OpenCode's own dialog, so the reports after it must not wait for it:
  // they go on once it had ASK_HEAD_START_MS to reach the server first (the next event of that
  // session is the user's reply, which takes a person longer).
  current = null;
  setTimeout(() => {
    if (!finished) {
      finished = true;
      setImmediate(next);
    }
  }, ASK_HEAD_START_MS);
  let out = "";
  child.stdout.on("data", (b) => (out += b));
  child.once("close", () => {
    clearTimeout(timer);
    if (!finished) {
      finished = true;
      setImmediate(next);
    }
    let verdict;
    try {
      verdict = JSON.parse(out);
    } catch (_) {
      return; // No answer came from signaltty: OpenCode's dialog decides.
    }
    if (verdict && typeof verdict.reply === "string") attempt_verdict(on_verdict, verdict);
  });
}

function attempt_verdict(on_verdict, verdict) {
  try {
    Promise.resolve(on_verdict(verdict)).catch(() => {});
  } catch (_) {
    // The request may be answered already: OpenCode's dialog won.
  }
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
