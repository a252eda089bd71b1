// A signaltty client in Node.js: @grpc/grpc-js, with proto/ loaded at run time by
// @grpc/proto-loader (no code generation step).
//
// A complete small program over the whole everyday API:
//   1. list workspaces and panes (creating a workspace with a `cat` pane to have something);
//   2. follow events, disconnect, change something, and reconnect with `from_seq` so the missed
//      events are replayed before the `synced` marker;
//   3. attach to the pane and send each line typed on stdin, printing the pane's echo;
//   4. answer a pending decision (an agent's permission request, reported the way an agent's
//      hook reports it) and show the verdict the waiting hook receives;
//   5. read a stable error reason (google.rpc.ErrorInfo) from a failed call;
//   6. build tabs of 256 panes (the most a tab holds) in one direction, alternating and
//      balanced, and read them whole from `flat_layout` with the decoder's default settings.
//
// Usage: node client.js SOCKET DIR   (lines to type come from stdin; exit 0 when it all worked)
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const PROTO_DIR = path.join(__dirname, '..', '..', 'proto');
const TIMEOUT_MS = 30000; // generous: the CI machine is shared

function loadApi() {
  const dir = path.join(PROTO_DIR, 'signaltty', 'v1');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.proto'));
  const definition = protoLoader.loadSync(
    files.map((f) => path.join('signaltty', 'v1', f)),
    {
      includeDirs: [PROTO_DIR],
      keepCase: true, // field names as in the .proto: pane_id, from_seq
      longs: String, // uint64 (seq, offsets) as decimal strings
      enums: String, // enum values by name: 'AGENT_KIND_CLAUDE'
      defaults: true,
      oneofs: true, // a oneof's name holds the name of the field that is set
    },
  );
  return grpc.loadPackageDefinition(definition).signaltty.v1;
}

// google.rpc.Status and ErrorInfo, for the `grpc-status-details-bin` trailer (wire format only).
const rpcTypes = protobuf.Root.fromJSON({
  nested: {
    Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
    Status: {
      fields: {
        code: { type: 'int32', id: 1 },
        message: { type: 'string', id: 2 },
        details: { rule: 'repeated', type: 'Any', id: 3 },
      },
    },
    ErrorInfo: {
      fields: {
        reason: { type: 'string', id: 1 },
        domain: { type: 'string', id: 2 },
        metadata: { keyType: 'string', type: 'string', id: 3 },
      },
    },
  },
});

/** The stable reason (NO_SUCH_PANE, BAD_PARAMS, …) of a failed call, if the server sent one. */
function errorReason(err) {
  const [raw] = err.metadata ? err.metadata.get('grpc-status-details-bin') : [];
  if (!raw) return undefined;
  const status = rpcTypes.lookupType('Status').decode(raw);
  const info = status.details.find((d) => d.type_url.endsWith('/google.rpc.ErrorInfo'));
  return info && rpcTypes.lookupType('ErrorInfo').decode(info.value).reason;
}

const deadline = () => ({ deadline: Date.now() + TIMEOUT_MS });

/** Calls a unary method and resolves with its response. */
function call(client, method, request) {
  return new Promise((resolve, reject) => {
    client[method](request, deadline(), (err, response) => (err ? reject(err) : resolve(response)));
  });
}

/** Ends a stream we stop reading; its CANCELLED error is expected. */
function hangUp(stream) {
  stream.on('error', () => {});
  stream.cancel();
}

async function listEverything(api, channel, cwd) {
  const workspaces = new api.WorkspaceService(null, null, { channelOverride: channel });
  const panes = new api.PaneService(null, null, { channelOverride: channel });
  const { workspace: ws } = await call(workspaces, 'CreateWorkspace', { name: 'from-node', cwd });
  const { pane } = await call(panes, 'SpawnPane', {
    workspace_id: ws.id,
    argv: ['cat'],
    title: 'echo',
  });
  for (const w of (await call(workspaces, 'ListWorkspaces', {})).workspaces) {
    console.log(`workspace ${w.id} '${w.name}' on ${w.cwd}`);
  }
  for (const p of (await call(panes, 'ListPanes', { workspace_id: ws.id })).panes) {
    console.log(`  pane ${p.id} '${p.title}' argv=${JSON.stringify(p.argv)} tab=${p.tab_id}`);
  }
  return { workspaces, panes, ws, pane };
}

/** Reads a Subscribe stream up to its `synced` marker: the events and the last seq. */
async function readUntilSynced(stream) {
  const events = [];
  let last = 0n;
  for await (const message of stream) {
    if (message.kind === 'event') {
      events.push(message.event);
      last = BigInt(message.event.seq);
    } else if (message.kind === 'synced') {
      const head = BigInt(message.synced.head_seq);
      return { events, last: head > last ? head : last };
    } else if (message.kind === 'history_lost') {
      throw new Error('history lost: re-read the state and subscribe again');
    } else if (message.kind === 'lagged') {
      throw new Error('lagged: resubscribe from last_delivered_seq');
    }
  }
  throw new Error('the event stream ended before synced');
}

async function followWithReplay(api, channel, panes, pane) {
  const events = new api.EventService(null, null, { channelOverride: channel });
  const first = events.Subscribe({ from_seq: '0' }, deadline());
  const seen = await readUntilSynced(first);
  hangUp(first); // the server keeps the events in its replay ring
  console.log(`events: ${seen.events.length} replayed, last seq ${seen.last}; disconnected`);

  await call(panes, 'RenamePane', { pane_id: pane.id, title: 'renamed offline' });

  const again = events.Subscribe({ from_seq: seen.last.toString() }, deadline());
  const missed = await readUntilSynced(again);
  hangUp(again);
  const titles = missed.events
    .filter((e) => e.kind === 'pane_updated')
    .map((e) => e.pane_updated.pane.title);
  console.log(`reconnected: ${missed.events.length} missed event(s) replayed, titles ${JSON.stringify(titles)}`);
  const afterCursor = missed.events.every((e) => BigInt(e.seq) > seen.last);
  return afterCursor && titles.includes('renamed offline');
}

async function attachAndEcho(panes, pane, lines) {
  const stream = panes.Attach(deadline());
  stream.write({ start: { pane_id: pane.id, cols: 80, rows: 24 } }); // Start comes first
  const responses = stream[Symbol.asyncIterator]();
  const next = async () => (await responses.next()).value;
  const first = await next();
  if (first.kind !== 'snapshot') throw new Error(`expected a snapshot first, got ${first.kind}`);
  let offset = BigInt(first.snapshot.output_offset);
  console.log(`attached at output offset ${offset}, ${first.snapshot.cols}x${first.snapshot.rows}`);
  let ok = true;
  for (const line of lines) {
    stream.write({ input: { data: Buffer.from(`${line}\r`) } });
    let seen = '';
    // `cat` in a PTY: the terminal echoes the line, then cat prints it again.
    while (seen.split(line).length - 1 < 2) {
      const message = await next();
      if (message.kind !== 'output') continue;
      const { data, end_offset: end } = message.output;
      if (BigInt(end) !== offset + BigInt(data.length)) throw new Error('offsets must be contiguous');
      offset = BigInt(end);
      seen += data.toString();
    }
    console.log(`typed '${line}'; the pane echoed ${JSON.stringify(seen)}`);
    ok = ok && seen.includes(line);
  }
  stream.end(); // closing our side detaches
  hangUp(stream);
  return ok;
}

async function answerADecision(api, channel, pane) {
  const agents = new api.AgentService(null, null, { channelOverride: channel });
  const decisions = new api.DecisionService(null, null, { channelOverride: channel });
  const events = new api.EventService(null, null, { channelOverride: channel });
  const payload = {
    hook_event_name: 'PermissionRequest',
    session_id: 'example-session',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
  };
  // What an agent's hook does (`signaltty hook-event`): the call waits for the answer.
  const hook = call(agents, 'ReportHookEvent', {
    agent: 'AGENT_KIND_CLAUDE',
    event: 'PermissionRequest',
    payload: Buffer.from(JSON.stringify(payload)),
    pane_id: pane.id,
    wait_for_answer: true,
    timeout_ms: 30000,
  });
  // DecisionCreated says when it is pending. Replaying from 0 (decision events only) means it
  // cannot be missed, whether it came before or after this subscription started.
  const stream = events.Subscribe({ from_seq: '0', kinds: ['EVENT_KIND_DECISION'] }, deadline());
  for await (const message of stream) {
    const created = message.kind === 'event' && message.event.decision_created;
    if (created && created.decision.pane_id === pane.id) break;
  }
  hangUp(stream);
  const { decisions: pending } = await call(decisions, 'ListPendingDecisions', {});
  const decision = pending.find((d) => d.pane_id === pane.id && d.answerable);
  console.log(`pending: ${decision.id} ${JSON.stringify(decision.prompt)} options ${JSON.stringify(decision.options.map((o) => o.id))}`);
  await call(decisions, 'AnswerDecision', {
    pane_id: pane.id,
    decision_id: decision.id,
    option_id: 'once',
  });
  const verdict = await hook;
  console.log(`the hook got ${verdict.verdict} (${verdict.wait_end_reason})`);
  return verdict.verdict === 'VERDICT_ALLOW';
}

async function errorReasonStep(panes) {
  try {
    await call(panes, 'GetPane', { pane_id: 'pane_nosuch' });
    return false;
  } catch (err) {
    const reason = errorReason(err);
    console.log(`GetPane(pane_nosuch): ${grpc.status[err.code]} ${reason}: ${err.details}`);
    return err.code === grpc.status.NOT_FOUND && reason === 'NO_SUCH_PANE';
  }
}

const TAB_LIMIT = 256; // the most panes one tab holds (docs/api.md, Limits)

/** A tab's pane ids in layout order: the server writes flat_layout depth first. */
function flatIds(tab) {
  return tab.flat_layout.nodes.filter((n) => n.node === 'pane_id').map((n) => n.pane_id);
}

/** A FlatLayout of `ids`, depth first; shape(count, level) gives [cut, direction]. */
function buildFlat(ids, shape) {
  const nodes = [];
  const push = (run, level) => {
    const me = nodes.length;
    if (run.length === 1) {
      nodes.push({ pane_id: run[0] });
      return me;
    }
    const [cut, direction] = shape(run.length, level);
    nodes.push(null); // filled once the children's indices are known
    const first = push(run.slice(0, cut), level + 1);
    const second = push(run.slice(cut), level + 1);
    nodes[me] = { split: { direction, ratio: 0.5, first, second } };
    return me;
  };
  push(ids, 0);
  return { nodes };
}

const alternate = (level) => (level % 2 === 0 ? 'DIRECTION_RIGHT' : 'DIRECTION_DOWN');
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// Step 6: the nested `layout` would need two levels of nesting a split, which decoders bound;
// `flat_layout` reads the same for any tab.
async function largeTabs(api, channel, workspaces, panes, cwd) {
  const tabs = new api.TabService(null, null, { channelOverride: channel });
  const events = new api.EventService(null, null, { channelOverride: channel });
  const { workspace: ws } = await call(workspaces, 'CreateWorkspace', {
    name: 'big-from-node',
    cwd,
  });
  const argv = ['sleep', '600'];
  const { pane: first } = await call(panes, 'SpawnPane', { workspace_id: ws.id, argv });
  const ids = [first.id];
  let tab;
  while (ids.length < TAB_LIMIT) {
    // Each split cuts the newest pane: a chain 255 splits deep.
    const split = await call(panes, 'SplitPane', {
      pane_id: ids[ids.length - 1],
      direction: 'DIRECTION_RIGHT',
      argv,
    });
    ids.push(split.pane.id);
    tab = split.tab;
  }
  let ok = same(flatIds(tab), ids) && tab.layout === null;
  console.log(`${ids.length} panes split in one direction; the nested field is unset: ${ok}`);
  try {
    await call(panes, 'SplitPane', { pane_id: ids[0], direction: 'DIRECTION_DOWN', argv });
    ok = false;
  } catch (err) {
    const reason = errorReason(err);
    console.log(`pane ${TAB_LIMIT + 1}: ${grpc.status[err.code]} ${reason}: ${err.details}`);
    ok = ok && reason === 'TOO_MANY_PANES';
  }
  const shapes = {
    'one direction': () => [1, 'DIRECTION_RIGHT'],
    alternating: (count, level) => [1, alternate(level)],
    balanced: (count, level) => [Math.floor(count / 2), alternate(level)],
  };
  for (const [name, shape] of Object.entries(shapes)) {
    const flat = buildFlat(ids, shape);
    await call(tabs, 'SetLayout', { tab_id: tab.id, flat_layout: flat });
    const read = await call(workspaces, 'GetWorkspace', { workspace_id: ws.id });
    const got = read.tabs.find((t) => t.id === tab.id);
    const whole = same(flatIds(got), ids) && got.flat_layout.nodes.length === flat.nodes.length;
    console.log(`  ${name}: GetWorkspace reads all ${flatIds(got).length} panes: ${whole}`);
    ok = ok && whole;
  }
  const stream = events.Subscribe({ from_seq: '0', kinds: ['EVENT_KIND_TAB'] }, deadline());
  const { events: replayed } = await readUntilSynced(stream);
  hangUp(stream);
  const big = replayed
    .filter((e) => e.kind === 'tab_updated' && e.tab_updated.tab.pane_ids.length === TAB_LIMIT)
    .map((e) => e.tab_updated.tab);
  console.log(`  events: ${replayed.length} tab events replayed, ${big.length} of the full tab`);
  ok = ok && big.length >= 1 + Object.keys(shapes).length && big.every((t) => same(flatIds(t), ids));
  await call(workspaces, 'CloseWorkspace', { workspace_id: ws.id });
  return ok;
}

async function main() {
  const [socket, cwd] = process.argv.slice(2);
  const lines = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const api = loadApi();
  // grpc-js sends :authority "localhost" for unix: targets, which the server accepts.
  const channel = new grpc.Channel(`unix://${socket}`, grpc.credentials.createInsecure(), {});
  const { workspaces, panes, ws, pane } = await listEverything(api, channel, cwd);
  const results = {
    replay: await followWithReplay(api, channel, panes, pane),
    attach: await attachAndEcho(panes, pane, lines),
    decision: await answerADecision(api, channel, pane),
    'error reason': await errorReasonStep(panes),
    'large tabs': await largeTabs(api, channel, workspaces, panes, cwd),
  };
  await call(workspaces, 'CloseWorkspace', { workspace_id: ws.id });
  channel.close();
  const failed = Object.keys(results).filter((k) => !results[k]);
  console.log(failed.length ? `failed: ${failed.join(', ')}` : 'every step worked');
  return failed.length ? 1 : 0;
}

// A hung step must not hang CI: fail instead.
setTimeout(() => {
  console.error('timed out');
  process.exit(2);
}, 120000).unref();

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
