// Reports events to the signaltty server that runs this pane, without ever holding OpenCode:
// the handler only queues; each report is a `signaltty hook-event` child started later, one at a time in order,
// killed after REPORT_TIMEOUT_MS; at most MAX_QUEUED reports wait (the oldest are dropped).
// Outside a signaltty pane (no SIGNALTTY_PANE) nothing is reported.
import { spawn } from "node:child_process";

const PROGRAM = __SIGNALTTY_PROGRAM__;
const REPORT_TIMEOUT_MS = 5000;
const MAX_QUEUED = 64;
const queue = [];
let busy = false;

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
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
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

// The fields of an event worth forwarding, with the session id under the name the server reads.
const FIELDS = ["status", "error", "reason", "permission", "type", "title", "patterns", "pattern", "questions", "message"];
function payload(session_id, data) {
  const out = { session_id };
  for (const key of FIELDS) if (data && data[key] !== undefined) out[key] = data[key];
  return out;
}
