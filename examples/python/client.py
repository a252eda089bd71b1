"""A signaltty client in Python, generated from proto/ with grpcio-tools.

Creates a workspace, runs a command in a pane, waits for it to exit through the event stream,
and prints what the pane said. Usage: client.py SOCKET DIR
"""

import sys

import grpc

from signaltty.v1 import event_pb2, event_pb2_grpc
from signaltty.v1 import pane_pb2, pane_pb2_grpc
from signaltty.v1 import workspace_pb2, workspace_pb2_grpc


def main() -> int:
    socket, cwd = sys.argv[1], sys.argv[2]
    # grpc-core derives an :authority from the socket path that tonic (h2) rejects: set one.
    channel = grpc.insecure_channel(
        f"unix://{socket}", options=[("grpc.default_authority", "localhost")]
    )
    workspaces = workspace_pb2_grpc.WorkspaceServiceStub(channel)
    panes = pane_pb2_grpc.PaneServiceStub(channel)
    events = event_pb2_grpc.EventServiceStub(channel)

    ws = workspaces.CreateWorkspace(
        workspace_pb2.CreateWorkspaceRequest(name="from-python", cwd=cwd)
    ).workspace
    print(f"workspace {ws.id} on {ws.cwd}")

    # Subscribe before spawning so the exit cannot be missed.
    status = workspaces.GetWorkspace(workspace_pb2.GetWorkspaceRequest(workspace_id=ws.id))
    stream = events.Subscribe(
        event_pb2.SubscribeRequest(kinds=[event_pb2.EVENT_KIND_PANE])
    )
    pane = panes.SpawnPane(
        pane_pb2.SpawnPaneRequest(
            workspace_id=ws.id, argv=["sh", "-c", "echo hello from a signaltty pane"]
        )
    ).pane
    print(f"pane {pane.id} in tab {pane.tab_id}")
    code = None
    for message in stream:
        if message.HasField("event") and message.event.HasField("pane_exited"):
            if message.event.pane_exited.pane_id == pane.id:
                code = message.event.pane_exited.exit_code
                break
    stream.cancel()
    screen = panes.ReadPane(pane_pb2.ReadPaneRequest(pane_id=pane.id))
    text = "\n".join(line for line in screen.lines if line)
    print(f"exit code {code}; screen:\n{text}")
    ok = code == 0 and "hello from a signaltty pane" in text and len(status.tabs) == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
