// Drives Debian's chromium (playwright-core, no bundled browser) against a real `signaltty web`
// and a real server, as signaltty-cli/tests/web_browser.rs sets them up. Input (environment):
//   WEB_URL       the URL `signaltty web` printed (with the token)
//   SIGNALTTY     the signaltty binary; SIGNALTTY_ARGS_SOCKET its --socket
//   AGENT_PANE    a pane id for the fake agent (hook events are reported for it)
//   ECHO_PANE     a pane running a line echoer (prints "ready-web", then "got:<line>")
//   OUT_DIR       where screenshots and figures.json go
//   CHROMIUM      the browser binary (default /usr/bin/chromium)
//   ROUNDS, ECHOES  how many state changes and typed lines to time (3 and 10; bench/web: more)
// Prints one JSON line of figures on success; any failed step throws (exit code 1).
// The echo figure is a typed line (4 keys and Enter, each a CDP call of playwright) until the
// page's xterm shows the program's answer: an upper bound of what a person sees.
import { chromium } from "playwright-core";
import { spawn, execFileSync } from "node:child_process";
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const env = process.env;
const need = (k) => {
  if (!env[k]) throw new Error(`${k} is not set`);
  return env[k];
};
const url = need("WEB_URL");
const cli = need("SIGNALTTY");
const socket = need("SIGNALTTY_ARGS_SOCKET");
const agentPane = need("AGENT_PANE");
const echoPane = need("ECHO_PANE");
const out = need("OUT_DIR");
mkdirSync(out, { recursive: true });
const WAIT = 20000;
const ROUNDS = Number(env.ROUNDS || 3);
const ECHOES = Number(env.ECHOES || 10);

// p50, p90 and max of a list of milliseconds, rounded to 0.1.
function stats(name, xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] * 10) / 10;
  return { [`${name}_p50`]: at(0.5), [`${name}_p90`]: at(0.9), [`${name}_max`]: at(1), [`${name}_n`]: s.length };
}

function hook(event, payload, extra = []) {
  return spawn(cli, ["--socket", socket, "hook-event", "--agent", "claude", "--event", event, "--pane", agentPane, ...extra], {
    stdio: ["pipe", "pipe", "inherit"],
  }).on("error", (e) => {
    throw e;
  });
}
function hookNow(event, payload) {
  execFileSync(cli, ["--socket", socket, "hook-event", "--agent", "claude", "--event", event, "--pane", agentPane], {
    input: JSON.stringify(payload),
  });
}

const browser = await chromium.launch({
  executablePath: env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  // playwright gives every launch a fresh temporary --user-data-dir of its own (and refuses one
  // passed here), so no profile is shared with another run.
});
const figures = {};
try {
  // ---- desktop: the tree follows state, the live pane shows output and takes keys ----
  const desk = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  desk.on("pageerror", (e) => console.error("page error:", e));
  await desk.goto(url);
  if (desk.url().includes("token=")) throw new Error(`the token stayed in the address: ${desk.url()}`);
  const agentRow = desk.locator(`.pane[data-pane-id="${agentPane}"]`);
  await agentRow.waitFor({ timeout: WAIT });

  // State changes: the fake agent starts working, then stops; timed from the moment the hook
  // command returned (the server has applied the event by then) until the page shows it.
  const toWorking = [];
  const toDone = [];
  for (let i = 0; i < ROUNDS; i++) {
    hookNow("UserPromptSubmit", { hook_event_name: "UserPromptSubmit", prompt: "go" });
    let t = performance.now();
    await desk.waitForSelector(`.pane[data-pane-id="${agentPane}"][data-state="working"]`, { timeout: WAIT });
    toWorking.push(performance.now() - t);
    hookNow("Stop", { hook_event_name: "Stop" });
    t = performance.now();
    await desk.waitForSelector(`.pane[data-pane-id="${agentPane}"]:not([data-state="working"])`, { timeout: WAIT });
    toDone.push(performance.now() - t);
  }
  Object.assign(figures, stats("state_to_page_ms", [...toWorking, ...toDone]));
  let t0;

  // The live pane, read-only first, then typing.
  await desk.locator(`.pane[data-pane-id="${echoPane}"]`).click();
  await desk.waitForFunction(() => document.querySelector("#term .xterm-rows")?.textContent?.includes("ready-web"), null, { timeout: WAIT });
  await desk.click("#typing");
  await desk.waitForFunction(() => document.getElementById("pane-status")?.textContent?.startsWith("typing"), null, { timeout: WAIT });
  await desk.waitForFunction(() => document.querySelector("#term .xterm-rows")?.textContent?.includes("ready-web"), null, { timeout: WAIT });
  await desk.locator("#term .xterm-helper-textarea").focus();
  const echoes = [];
  for (let i = 0; i < ECHOES; i++) {
    const word = `k${i}x`;
    t0 = performance.now();
    await desk.keyboard.type(`${word}\n`);
    await desk.waitForFunction((w) => document.querySelector("#term .xterm-rows")?.textContent?.includes(`got:${w}`), word, { timeout: WAIT, polling: "raf" });
    echoes.push(performance.now() - t0);
  }
  Object.assign(figures, stats("echo_line_ms", echoes));
  await desk.screenshot({ path: join(out, "web-pane-desktop.png") });

  // ---- phone: a permission shows in the inbox and is answered ----
  const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
  phone.on("pageerror", (e) => console.error("page error:", e));
  await phone.goto(url);
  await phone.locator(`.pane[data-pane-id="${agentPane}"]`).waitFor({ timeout: WAIT });
  const agent = hook("PermissionRequest", null, ["--wait-for-answer", "--timeout", "60"]);
  let verdict = "";
  agent.stdout.on("data", (d) => (verdict += d));
  const done = new Promise((r) => agent.on("exit", r));
  t0 = performance.now();
  agent.stdin.end(JSON.stringify({ hook_event_name: "PermissionRequest", tool_name: "Bash", tool_input: { command: "rm -rf build/" } }));
  const decision = phone.locator(".decision").first();
  await decision.waitFor({ timeout: WAIT });
  figures.permission_to_inbox_ms = performance.now() - t0;
  const text = await decision.textContent();
  if (!text.includes("rm -rf build/")) throw new Error(`the inbox does not show the command: ${text}`);
  await phone.screenshot({ path: join(out, "web-inbox-phone.png"), fullPage: true });
  const options = await decision.locator(".option").evaluateAll((bs) => bs.map((b) => b.dataset.optionId));
  const allow = options.find((o) => o !== "deny") ?? options[0];
  await decision.locator(`.option[data-option-id="${allow}"]`).tap();
  const code = await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error("the agent was not released")), WAIT))]);
  if (code !== 0 || !verdict.includes("allow")) throw new Error(`the agent got ${JSON.stringify(verdict)} (exit ${code}), options ${options}`);
  await phone.waitForSelector(".decision", { state: "detached", timeout: WAIT });
  await phone.screenshot({ path: join(out, "web-tree-phone.png"), fullPage: true });
  figures.options = options;
  figures.answered = allow;
} finally {
  await browser.close();
}
writeFileSync(join(out, "web-figures.json"), JSON.stringify(figures, null, 2));
console.log(JSON.stringify(figures));
