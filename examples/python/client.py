"""A signaltty client in Python, with stubs generated from proto/ by grpcio-tools.

A complete small program over the whole everyday API:
  1. list workspaces and panes (creating a workspace with a `cat` pane to have something);
  2. follow events, disconnect, change something, and reconnect with `from_seq` so the missed
     events are replayed before the `Synced` marker;
  3. attach to the pane and send each line typed on stdin, printing the pane's echo;
  4. answer a pending decision (an agent's permission request, reported the way an agent's hook
     reports it) and show the verdict the waiting hook receives;
  5. read a stable error reason (ErrorInfo) from a failed call;
  6. build tabs of 256 panes (the most a tab holds) in one direction, alternating and balanced,
     and read them whole from `flat_layout` with the decoder's default settings.

Usage: client.py SOCKET DIR   (lines to type come from stdin; exit 0 when every step worked)
"""

import json
import os
import queue
import sys
import threading

import grpc
from grpc_status import rpc_status
from google.rpc import error_details_pb2

from signaltty.v1 import agent_pb2, agent_pb2_grpc
from signaltty.v1 import event_pb2, event_pb2_grpc
from signaltty.v1 import pane_pb2, pane_pb2_grpc
from signaltty.v1 import tab_pb2, tab_pb2_grpc
from signaltty.v1 import workspace_pb2, workspace_pb2_grpc

TIMEOUT = 30  # seconds; generous, the CI machine is shared


def connect(socket):
    # grpc-core derives an :authority from the socket path that tonic (h2) rejects: set one.
    return grpc.insecure_channel(
        f"unix://{socket}", options=[("grpc.default_authority", "localhost")]
    )


def list_everything(workspaces, panes, cwd):
    """Step 1: a workspace with one pane, then the lists."""
    ws = workspaces.CreateWorkspace(
        workspace_pb2.CreateWorkspaceRequest(name="from-python", cwd=cwd)
    ).workspace
    pane = panes.SpawnPane(
        pane_pb2.SpawnPaneRequest(workspace_id=ws.id, argv=["cat"], title="echo")
    ).pane
    for w in workspaces.ListWorkspaces(workspace_pb2.ListWorkspacesRequest()).workspaces:
        print(f"workspace {w.id} {w.name!r} on {w.cwd}")
    for p in panes.ListPanes(pane_pb2.ListPanesRequest(workspace_id=ws.id)).panes:
        print(f"  pane {p.id} {p.title!r} argv={list(p.argv)} tab={p.tab_id}")
    return ws, pane


def read_until_synced(stream):
    """Reads a Subscribe stream up to its Synced marker; returns the events and the last seq."""
    events, last = [], 0
    for message in stream:
        kind = message.WhichOneof("kind")
        if kind == "event":
            events.append(message.event)
            last = message.event.seq
        elif kind == "synced":
            return events, max(last, message.synced.head_seq)
        elif kind == "history_lost":
            raise RuntimeError("history lost: re-read the state and subscribe again")
        elif kind == "lagged":
            raise RuntimeError("lagged: resubscribe from last_delivered_seq")
    raise RuntimeError("the event stream ended before Synced")


def follow_with_replay(channel, panes, pane):
    """Step 2: subscribe, go away, miss a change, come back with from_seq."""
    events = event_pb2_grpc.EventServiceStub(channel)
    first = events.Subscribe(event_pb2.SubscribeRequest(from_seq=0), timeout=TIMEOUT)
    seen, last_seq = read_until_synced(first)
    first.cancel()  # the connection drops; the server keeps the events in its replay ring
    print(f"events: {len(seen)} replayed, last seq {last_seq}; disconnected")

    panes.RenamePane(pane_pb2.RenamePaneRequest(pane_id=pane.id, title="renamed offline"))

    again = events.Subscribe(
        event_pb2.SubscribeRequest(from_seq=last_seq), timeout=TIMEOUT
    )
    missed, _ = read_until_synced(again)
    again.cancel()
    titles = [
        e.pane_updated.pane.title for e in missed if e.WhichOneof("kind") == "pane_updated"
    ]
    print(f"reconnected: {len(missed)} missed event(s) replayed, titles {titles}")
    assert all(e.seq > last_seq for e in missed), "replay starts after from_seq"
    return "renamed offline" in titles


def attach_and_echo(panes, pane, lines):
    """Step 3: Attach (Start first), then Input per typed line; the pane's Output echoes it."""
    requests = queue.Queue()
    requests.put(
        pane_pb2.AttachRequest(
            start=pane_pb2.AttachRequest.Start(pane_id=pane.id, cols=80, rows=24)
        )
    )

    def outgoing():
        while (request := requests.get()) is not None:
            yield request

    stream = panes.Attach(outgoing(), timeout=TIMEOUT)
    responses = iter(stream)
    first = next(responses)
    assert first.WhichOneof("kind") == "snapshot", "a Snapshot comes first"
    offset = first.snapshot.output_offset
    print(f"attached at output offset {offset}, {first.snapshot.cols}x{first.snapshot.rows}")
    ok = True
    for line in lines:
        typed = pane_pb2.AttachRequest.Input(data=line.encode() + b"\r")
        requests.put(pane_pb2.AttachRequest(input=typed))
        seen = b""
        # `cat` in a PTY: the terminal echoes the line, then cat prints it again.
        while seen.count(line.encode()) < 2:
            message = next(responses)
            if message.WhichOneof("kind") == "output":
                data = message.output.data
                assert message.output.end_offset == offset + len(data), "offsets are contiguous"
                offset = message.output.end_offset
                seen += data
        print(f"typed {line!r}; the pane echoed {seen!r}")
        ok = ok and line.encode() in seen
    requests.put(None)  # closing our side detaches
    stream.cancel()
    return ok


def answer_a_decision(channel, pane):
    """Step 4: a waiting permission request, answered by this client."""
    agents = agent_pb2_grpc.AgentServiceStub(channel)
    decisions = agent_pb2_grpc.DecisionServiceStub(channel)
    events = event_pb2_grpc.EventServiceStub(channel)
    payload = {
        "hook_event_name": "PermissionRequest",
        "session_id": "example-session",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    # What an agent's hook does (`signaltty hook-event`): the call waits for the answer.
    hook = agents.ReportHookEvent.future(
        agent_pb2.ReportHookEventRequest(
            agent=agent_pb2.AGENT_KIND_CLAUDE,
            event="PermissionRequest",
            payload=json.dumps(payload).encode(),
            pane_id=pane.id,
            wait_for_answer=True,
            timeout_ms=30000,
        ),
        timeout=TIMEOUT,
    )
    # DecisionCreated says when the request is pending. Replaying from 0 (only decision events)
    # means it cannot be missed, whether it came before or after this subscription started.
    stream = events.Subscribe(
        event_pb2.SubscribeRequest(from_seq=0, kinds=[event_pb2.EVENT_KIND_DECISION]),
        timeout=TIMEOUT,
    )
    for message in stream:
        event = message.event if message.WhichOneof("kind") == "event" else None
        if event and event.HasField("decision_created"):
            if event.decision_created.decision.pane_id == pane.id:
                break
    stream.cancel()
    pending = decisions.ListPendingDecisions(agent_pb2.ListPendingDecisionsRequest()).decisions
    decision = next(d for d in pending if d.pane_id == pane.id and d.answerable)
    print(f"pending: {decision.id} {decision.prompt!r} options {[o.id for o in decision.options]}")
    decisions.AnswerDecision(
        agent_pb2.AnswerDecisionRequest(
            pane_id=pane.id, decision_id=decision.id, option_id="once"
        )
    )
    verdict = hook.result()
    print(
        f"the hook got {agent_pb2.Verdict.Name(verdict.verdict)} ({verdict.wait_end_reason})"
    )
    return verdict.verdict == agent_pb2.VERDICT_ALLOW


def error_reason(panes):
    """Step 5: errors carry a stable reason in google.rpc.ErrorInfo."""
    try:
        panes.GetPane(pane_pb2.GetPaneRequest(pane_id="pane_nosuch"))
    except grpc.RpcError as err:
        status = rpc_status.from_call(err)
        for detail in status.details if status else []:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                print(f"GetPane(pane_nosuch): {err.code().name} {info.reason}: {err.details()}")
                return err.code() == grpc.StatusCode.NOT_FOUND and info.reason == "NO_SUCH_PANE"
    return False


TAB_LIMIT = 256  # the most panes one tab holds (docs/api.md, Limits)


def flat_ids(tab):
    """A tab's pane ids in layout order: the server writes flat_layout depth first."""
    return [n.pane_id for n in tab.flat_layout.nodes if n.WhichOneof("node") == "pane_id"]


def build_flat(ids, shape):
    """A FlatLayout of `ids`, depth first; shape(count, level) gives (cut, direction)."""
    nodes = []

    def push(run, level):
        me = len(nodes)
        if len(run) == 1:
            nodes.append(tab_pb2.LayoutNode(pane_id=run[0]))
            return me
        cut, direction = shape(len(run), level)
        nodes.append(None)  # filled once the children's indices are known
        first = push(run[:cut], level + 1)
        second = push(run[cut:], level + 1)
        split = tab_pb2.LayoutSplit(direction=direction, ratio=0.5, first=first, second=second)
        nodes[me] = tab_pb2.LayoutNode(split=split)
        return me

    push(ids, 0)
    return tab_pb2.FlatLayout(nodes=nodes)


def alternate(level):
    return tab_pb2.DIRECTION_RIGHT if level % 2 == 0 else tab_pb2.DIRECTION_DOWN


def large_tabs(channel, workspaces, panes, cwd):
    """Step 6: the nested `layout` would need two levels of nesting a split, and this decoder
    refuses more than 100; `flat_layout` reads the same for any tab."""
    tabs = tab_pb2_grpc.TabServiceStub(channel)
    events = event_pb2_grpc.EventServiceStub(channel)
    ws = workspaces.CreateWorkspace(
        workspace_pb2.CreateWorkspaceRequest(name="big-from-python", cwd=cwd)
    ).workspace
    argv = ["sleep", "600"]
    first = panes.SpawnPane(pane_pb2.SpawnPaneRequest(workspace_id=ws.id, argv=argv)).pane
    ids, tab = [first.id], None
    while len(ids) < TAB_LIMIT:  # each split cuts the newest pane: a chain 255 splits deep
        split = panes.SplitPane(
            pane_pb2.SplitPaneRequest(
                pane_id=ids[-1], direction=tab_pb2.DIRECTION_RIGHT, argv=argv
            )
        )
        ids.append(split.pane.id)
        tab = split.tab
    ok = flat_ids(tab) == ids and not tab.HasField("layout")
    print(f"{len(ids)} panes split in one direction; the nested field is unset: {ok}")
    try:
        panes.SplitPane(
            pane_pb2.SplitPaneRequest(
                pane_id=ids[0], direction=tab_pb2.DIRECTION_DOWN, argv=argv
            )
        )
        ok = False
    except grpc.RpcError as err:
        status = rpc_status.from_call(err)
        info = error_details_pb2.ErrorInfo()
        reason = next((info.reason for d in status.details if d.Unpack(info)), None)
        print(f"pane {TAB_LIMIT + 1}: {err.code().name} {reason}: {err.details()}")
        ok = ok and reason == "TOO_MANY_PANES"
    shapes = {
        "one direction": lambda count, level: (1, tab_pb2.DIRECTION_RIGHT),
        "alternating": lambda count, level: (1, alternate(level)),
        "balanced": lambda count, level: (count // 2, alternate(level)),
    }
    for name, shape in shapes.items():
        flat = build_flat(ids, shape)
        tabs.SetLayout(tab_pb2.SetLayoutRequest(tab_id=tab.id, flat_layout=flat))
        read = workspaces.GetWorkspace(workspace_pb2.GetWorkspaceRequest(workspace_id=ws.id))
        got = next(t for t in read.tabs if t.id == tab.id)
        whole = flat_ids(got) == ids and got.flat_layout == flat
        print(f"  {name}: GetWorkspace reads all {len(flat_ids(got))} panes: {whole}")
        ok = ok and whole
    stream = events.Subscribe(
        event_pb2.SubscribeRequest(from_seq=0, kinds=[event_pb2.EVENT_KIND_TAB]),
        timeout=TIMEOUT,
    )
    replayed, _ = read_until_synced(stream)
    stream.cancel()
    big = [
        e.tab_updated.tab
        for e in replayed
        if e.WhichOneof("kind") == "tab_updated" and len(e.tab_updated.tab.pane_ids) == TAB_LIMIT
    ]
    print(f"  events: {len(replayed)} tab events replayed, {len(big)} of the full tab")
    ok = ok and len(big) >= 1 + len(shapes) and all(flat_ids(t) == ids for t in big)
    workspaces.CloseWorkspace(workspace_pb2.CloseWorkspaceRequest(workspace_id=ws.id))
    return ok


def main() -> int:
    socket, cwd = sys.argv[1], sys.argv[2]
    lines = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    channel = connect(socket)
    workspaces = workspace_pb2_grpc.WorkspaceServiceStub(channel)
    panes = pane_pb2_grpc.PaneServiceStub(channel)

    ws, pane = list_everything(workspaces, panes, cwd)
    results = {
        "replay": follow_with_replay(channel, panes, pane),
        "attach": attach_and_echo(panes, pane, lines),
        "decision": answer_a_decision(channel, pane),
        "error reason": error_reason(panes),
        "large tabs": large_tabs(channel, workspaces, panes, cwd),
    }
    workspaces.CloseWorkspace(workspace_pb2.CloseWorkspaceRequest(workspace_id=ws.id))
    failed = [name for name, ok in results.items() if not ok]
    print("failed: " + ", ".join(failed) if failed else "every step worked")
    return 1 if failed else 0


if __name__ == "__main__":
    # A hung step must not hang CI: fail instead.
    watchdog = threading.Timer(120, lambda: (print("timed out", file=sys.stderr), os._exit(2)))
    watchdog.daemon = True
    watchdog.start()
    sys.exit(main())
