// Drives Debian's chromium (playwright-core, no bundled browser) against a real `signaltty web`
// and a real server, as signaltty-cli/tests/web_browser.rs sets them up. Input (environment):
//   WEB_URL       the URL `signaltty web` printed (with the token)
//   SIGNALTTY     the signaltty binary; SIGNALTTY_ARGS_SOCKET its --socket
//   AGENT_PANE    a pane id for the fake agent (hook events are reported for it)
//   ECHO_PANE     a pane running a line echoer (prints "ready-web", then "got:<line>")
//   OUT_DIR       where screenshots and figures.json go
//   CHROMIUM      the browser binary (default /usr/bin/chromium)
// Prints one JSON line of figures on success; any failed step throws (exit code 1).
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

  // A state change: the fake agent starts working, then stops.
  let t0 = performance.now();
  hookNow("UserPromptSubmit", { hook_event_name: "UserPromptSubmit", prompt: "go" });
  await desk.waitForSelector(`.pane[data-pane-id="${agentPane}"][data-state="working"]`, { timeout: WAIT });
  figures.state_to_page_ms = performance.now() - t0;
  t0 = performance.now();
  hookNow("Stop", { hook_event_name: "Stop" });
  await desk.waitForSelector(`.pane[data-pane-id="${agentPane}"]:not([data-state="working"])`, { timeout: WAIT });
  figures.stop_to_page_ms = performance.now() - t0;

  // The live pane, read-only first, then typing.
  await desk.locator(`.pane[data-pane-id="${echoPane}"]`).click();
  await desk.waitForFunction(() => document.querySelector("#term .xterm-rows")?.textContent?.includes("ready-web"), null, { timeout: WAIT });
  await desk.click("#typing");
  await desk.waitForFunction(() => document.getElementById("pane-status")?.textContent?.startsWith("typing"), null, { timeout: WAIT });
  await desk.waitForFunction(() => document.querySelector("#term .xterm-rows")?.textContent?.includes("ready-web"), null, { timeout: WAIT });
  await desk.locator("#term .xterm-helper-textarea").focus();
  const echoes = [];
  for (let i = 0; i < 10; i++) {
    const word = `k${i}x`;
    t0 = performance.now();
    await desk.keyboard.type(`${word}\n`);
    await desk.waitForFunction((w) => document.querySelector("#term .xterm-rows")?.textContent?.includes(`got:${w}`), word, { timeout: WAIT, polling: "raf" });
    echoes.push(performance.now() - t0);
  }
  echoes.sort((a, b) => a - b);
  figures.echo_line_ms_p50 = echoes[5];
  figures.echo_line_ms_max = echoes[9];
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
